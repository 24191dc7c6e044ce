/* serve/sim.c — see sim.h. */
#include "serve/sim.h"

#include <string.h>

static void list_push(struct gp_sim_list *l, struct gp_sim_seq *q)
{
    q->next = NULL;
    q->prev = l->tail;
    if (l->tail)
        l->tail->next = q;
    else
        l->head = q;
    l->tail = q;
    l->n++;
}

static void list_del(struct gp_sim_list *l, struct gp_sim_seq *q)
{
    if (q->prev)
        q->prev->next = q->next;
    else
        l->head = q->next;
    if (q->next)
        q->next->prev = q->prev;
    else
        l->tail = q->prev;
    q->prev = q->next = NULL;
    l->n--;
}

static uint64_t need(const struct gp_sim_seq *q) { return (uint64_t)q->prompt_tokens + q->out_tokens; }

void gp_sim_init(struct gp_sim *s, const struct gp_sim_cfg *cfg)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    if (!s->cfg.max_batch)
        s->cfg.max_batch = 1;
}

/* Plans the next step: decodes first, then unfinished prefills, then
 * admissions from the head of the queue (FIFO, no skipping: a big request
 * at the head blocks smaller ones behind it, as vLLM's FCFS scheduler does),
 * all within the token budget. */
static void start_step(struct gp_sim *s, uint64_t now)
{
    uint64_t budget = s->cfg.max_batched_tokens ? s->cfg.max_batched_tokens : UINT64_MAX;
    uint64_t prefill_tokens = 0;
    uint32_t decoding = 0;
    for (struct gp_sim_seq *q = s->running.head; q; q = q->next) {
        q->chunk = 0;
        q->prefilling = 0;
        if (q->generated > 0) {
            decoding++;
            if (budget)
                budget--;
        }
    }
    for (struct gp_sim_seq *q = s->running.head; q; q = q->next) {
        if (q->generated > 0)
            continue;
        uint64_t left = q->prompt_tokens - q->prefilled;
        q->chunk = (uint32_t)(left < budget ? left : budget);
        q->prefilling = q->chunk > 0 || left == 0;
        budget -= q->chunk;
        prefill_tokens += q->chunk;
    }
    while (s->waiting.head && s->running.n < s->cfg.max_batch &&
           s->kv_used + need(s->waiting.head) <= s->cfg.kv_tokens &&
           (budget > 0 || s->waiting.head->prompt_tokens == 0)) {
        struct gp_sim_seq *q = s->waiting.head;
        list_del(&s->waiting, q);
        list_push(&s->running, q);
        q->state = GP_SIM_RUNNING;
        q->t_admit_ns = now;
        /* prefix-cache hits are already computed: prefill starts past them */
        q->prefilled = q->cached < q->prompt_tokens ? q->cached : 0;
        uint64_t left = q->prompt_tokens - q->prefilled;
        q->chunk = (uint32_t)(left < budget ? left : budget);
        q->prefilling = 1;
        budget -= q->chunk;
        s->kv_used += need(q);
        prefill_tokens += q->chunk;
    }
    if (!s->running.n) {
        s->step_end_ns = 0;
        return;
    }
    uint64_t d = s->cfg.decode_step_ns + s->cfg.per_seq_ns * decoding +
                 s->cfg.prefill_ns_per_token * prefill_tokens;
    s->step_end_ns = now + (d ? d : 1);
    s->last_batch = s->running.n;
}

void gp_sim_add(struct gp_sim *s, struct gp_sim_seq *q, uint64_t now)
{
    q->generated = 0;
    q->prefilling = 0;
    q->prefilled = 0;
    q->chunk = 0;
    q->state = GP_SIM_WAITING;
    q->t_arrive_ns = now;
    list_push(&s->waiting, q);
    if (!s->step_end_ns)
        start_step(s, now);
}

void gp_sim_remove(struct gp_sim *s, struct gp_sim_seq *q)
{
    if (q->state == GP_SIM_WAITING) {
        list_del(&s->waiting, q);
    } else if (q->state == GP_SIM_RUNNING) {
        list_del(&s->running, q);
        s->kv_used -= need(q);
    }
    q->state = GP_SIM_IDLE;
    /* the current step keeps its duration (the work was already launched);
     * an emptied batch simply ends with nothing to emit */
}

uint32_t gp_sim_step(struct gp_sim *s, uint64_t now, gp_sim_emit_fn emit, void *ctx)
{
    uint32_t n = 0;
    struct gp_sim_seq *q = s->running.head;
    s->steps++;
    while (q) {
        struct gp_sim_seq *next = q->next;
        int first = q->generated == 0;
        if (first) {
            /* still prefilling: no token until the step that completes the prompt */
            int progressed = q->prefilling;
            q->prefilled += q->chunk;
            q->chunk = 0;
            q->prefilling = 0;
            if (!progressed || q->prefilled < q->prompt_tokens) {
                q = next;
                continue;
            }
        }
        q->prefilling = 0;
        q->generated++;
        int last = q->generated >= q->out_tokens;
        n++;
        emit(ctx, q, first, last);
        /* the callback may have removed q itself (request done, client gone) */
        if (last && q->state == GP_SIM_RUNNING) {
            list_del(&s->running, q);
            s->kv_used -= need(q);
            q->state = GP_SIM_IDLE;
        }
        q = next;
    }
    start_step(s, now);
    return n;
}
