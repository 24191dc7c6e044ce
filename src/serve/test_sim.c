/* serve/test_sim.c — the batching model in virtual time: step durations,
 * max-batch and KV-capacity queueing, FCFS order, removal mid-flight,
 * prefix-cache hits (a shorter prefill; the cache's own block matching). */
#include "core/test.h"
#include "serve/srv_req.h" /* srv_pcache_* */
#include "serve/sim.h"

struct log {
    int n;
    int seq_of[256];
    uint64_t t[256];
    int first[256], last[256];
    uint64_t now;
    struct gp_sim_seq *base;
};

static void emit(void *ctx, struct gp_sim_seq *q, int first, int last)
{
    struct log *l = ctx;
    if (l->n < 256) {
        l->seq_of[l->n] = (int)(q - l->base);
        l->t[l->n] = l->now;
        l->first[l->n] = first;
        l->last[l->n] = last;
        l->n++;
    }
}

static uint64_t run_until_idle(struct gp_sim *s, struct log *l)
{
    int guard = 0;
    while (s->step_end_ns && guard++ < 10000) {
        l->now = s->step_end_ns;
        gp_sim_step(s, l->now, emit, l);
    }
    return l->now;
}

static void test_single_sequence_timing(void)
{
    struct gp_sim_cfg cfg = {.decode_step_ns = 1000, .per_seq_ns = 100, .prefill_ns_per_token = 10,
                             .max_batch = 8, .kv_tokens = 1000};
    struct gp_sim s;
    gp_sim_init(&s, &cfg);
    struct gp_sim_seq q[1] = {{.prompt_tokens = 50, .out_tokens = 3}};
    struct log l = {.base = q};
    gp_sim_add(&s, &q[0], 0);
    /* prefill step: 1000 + 50*10 (nobody decoding yet) */
    CHECK_INT(s.step_end_ns, 1500);
    CHECK_INT(s.kv_used, 53);
    run_until_idle(&s, &l);
    CHECK_INT(l.n, 3);
    CHECK_INT(l.t[0], 1500);
    CHECK_INT(l.first[0], 1);
    CHECK_INT(l.t[1], 1500 + 1100);   /* one decoding sequence */
    CHECK_INT(l.t[2], 1500 + 2200);
    CHECK_INT(l.last[2], 1);
    CHECK_INT(s.kv_used, 0);
    CHECK_INT(s.running.n, 0);
    CHECK_INT(s.step_end_ns, 0);
}

static void test_max_batch_queues(void)
{
    struct gp_sim_cfg cfg = {.decode_step_ns = 1000, .max_batch = 2, .kv_tokens = 1u << 20};
    struct gp_sim s;
    gp_sim_init(&s, &cfg);
    struct gp_sim_seq q[3] = {{.prompt_tokens = 1, .out_tokens = 2},
                              {.prompt_tokens = 1, .out_tokens = 2},
                              {.prompt_tokens = 1, .out_tokens = 2}};
    struct log l = {.base = q};
    for (int i = 0; i < 3; i++)
        gp_sim_add(&s, &q[i], 0);
    CHECK_INT(s.running.n, 1); /* the engine started as soon as the first arrived */
    CHECK_INT(s.waiting.n, 2);
    run_until_idle(&s, &l);
    CHECK_INT(l.n, 6);
    /* q2 only gets in after q0 finished: it must never run alongside both */
    int q2_first = -1;
    for (int i = 0; i < l.n; i++)
        if (l.seq_of[i] == 2 && l.first[i])
            q2_first = i;
    CHECK(q2_first > 0);
    for (int i = 0; i < q2_first; i++)
        CHECK(l.seq_of[i] != 2);
}

static void test_kv_capacity_queues(void)
{
    struct gp_sim_cfg cfg = {.decode_step_ns = 10, .max_batch = 100, .kv_tokens = 100};
    struct gp_sim s;
    gp_sim_init(&s, &cfg);
    struct gp_sim_seq q[3] = {{.prompt_tokens = 50, .out_tokens = 10},
                              {.prompt_tokens = 35, .out_tokens = 10},
                              {.prompt_tokens = 5, .out_tokens = 5}};
    struct log l = {.base = q};
    gp_sim_add(&s, &q[0], 0);
    gp_sim_add(&s, &q[1], 0);
    gp_sim_add(&s, &q[2], 0);
    l.now = s.step_end_ns;
    gp_sim_step(&s, l.now, emit, &l);
    /* q1 (45) does not fit beside q0 (60): FCFS, so q2 waits behind it too */
    CHECK_INT(s.running.n, 1);
    CHECK_INT(s.waiting.n, 2);
    CHECK_INT(s.kv_used, 60);
    run_until_idle(&s, &l);
    CHECK_INT(l.n, 25);
    CHECK_INT(s.kv_used, 0);
}

static void test_remove(void)
{
    struct gp_sim_cfg cfg = {.decode_step_ns = 10, .max_batch = 1, .kv_tokens = 100};
    struct gp_sim s;
    gp_sim_init(&s, &cfg);
    struct gp_sim_seq q[2] = {{.prompt_tokens = 1, .out_tokens = 5}, {.prompt_tokens = 1, .out_tokens = 1}};
    struct log l = {.base = q};
    gp_sim_add(&s, &q[0], 0);
    gp_sim_add(&s, &q[1], 0);
    gp_sim_remove(&s, &q[1]);     /* waiting */
    CHECK_INT(s.waiting.n, 0);
    gp_sim_remove(&s, &q[0]);     /* running */
    CHECK_INT(s.kv_used, 0);
    run_until_idle(&s, &l);
    CHECK_INT(l.n, 0);
    CHECK_INT(s.step_end_ns, 0);
}

static void test_chunked_prefill(void)
{
    /* budget 10: the long prompt (25) takes 3 steps, the decoder keeps going */
    struct gp_sim_cfg cfg = {.decode_step_ns = 100, .prefill_ns_per_token = 10, .max_batch = 8,
                             .kv_tokens = 1000, .max_batched_tokens = 10};
    struct gp_sim s;
    gp_sim_init(&s, &cfg);
    struct gp_sim_seq q[2] = {{.prompt_tokens = 5, .out_tokens = 6}, {.prompt_tokens = 25, .out_tokens = 1}};
    struct log l = {.base = q};
    gp_sim_add(&s, &q[0], 0);
    CHECK_INT(s.step_end_ns, 150);          /* 5 prompt tokens */
    l.now = s.step_end_ns;
    gp_sim_add(&s, &q[1], l.now - 1);       /* waits for the next step */
    gp_sim_step(&s, l.now, emit, &l);       /* q0's first token; q1 admitted, chunk 9 (10 - 1 decode) */
    CHECK_INT(l.n, 1);
    CHECK_INT(q[1].chunk, 9);
    CHECK_INT(s.step_end_ns, 150 + 100 + 90);
    run_until_idle(&s, &l);
    /* q1's only token comes after three prefill steps (9 + 9 + 7) */
    int q1_at = -1, q0_before = 0;
    for (int i = 0; i < l.n; i++) {
        if (l.seq_of[i] == 1)
            q1_at = i;
        else if (q1_at < 0)
            q0_before++;
    }
    CHECK(q1_at >= 0);
    CHECK_INT(q0_before, 4);                /* q0 decoded on through q1's prefill */
    CHECK_INT(l.n, 7);
    CHECK_INT(s.kv_used, 0);
}

/* A sequence with cached prompt tokens prefills only the rest. */
static void test_cached_prefill(void)
{
    struct gp_sim_cfg cfg = {.decode_step_ns = 1000, .per_seq_ns = 100, .prefill_ns_per_token = 10,
                             .max_batch = 8, .kv_tokens = 1000};
    struct gp_sim s;
    gp_sim_init(&s, &cfg);
    struct gp_sim_seq q[1] = {{.prompt_tokens = 50, .cached = 32, .out_tokens = 2}};
    struct log l = {.base = q};
    gp_sim_add(&s, &q[0], 0);
    CHECK_INT(s.step_end_ns, 1000 + 18 * 10); /* 50 - 32 tokens prefilled, not 50 */
    CHECK_INT(s.kv_used, 52);                 /* the cached blocks still hold KV */
    run_until_idle(&s, &l);
    CHECK_INT(l.n, 2);
    CHECK_INT(l.t[0], 1180);
}

/* Whole leading 16-token blocks seen before are hits, at most n - 1; a
 * different first block breaks the chain for everything after it. */
static void test_pcache_blocks(void)
{
    struct srv_pcache pc = {0};
    uint32_t a[40], b[40];
    for (int i = 0; i < 40; i++)
        a[i] = b[i] = (uint32_t)i;
    CHECK_INT(srv_pcache_lookup(&pc, a, 40), 0);
    CHECK_INT(srv_pcache_lookup(&pc, a, 40), 32);  /* 2 full blocks; the last 8 tokens are no block */
    CHECK_INT(srv_pcache_lookup(&pc, a, 32), 31);  /* never the whole prompt */
    b[20] = 999;                                   /* second block differs */
    CHECK_INT(srv_pcache_lookup(&pc, b, 40), 16);
    b[0] = 999;                                    /* first block differs: nothing matches */
    CHECK_INT(srv_pcache_lookup(&pc, b, 40), 0);
    CHECK_INT(pc.queries, 40 * 4 + 32);
    CHECK_INT(pc.hits, 32 + 31 + 16);
    srv_pcache_free(&pc);
}

int main(void)
{
    GP_RUN(test_single_sequence_timing);
    GP_RUN(test_max_batch_queues);
    GP_RUN(test_kv_capacity_queues);
    GP_RUN(test_remove);
    GP_RUN(test_chunked_prefill);
    GP_RUN(test_cached_prefill);
    GP_RUN(test_pcache_blocks);
    return gp_test_summary();
}
