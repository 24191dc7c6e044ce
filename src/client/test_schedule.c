/* client/test_schedule.c — the open-loop ready queue (trace times, session
 * chaining with delays, session concurrency, rate arrivals) and a session's
 * history: turn k+1's body carries turn k's user message and the assistant
 * reply recovered from a non-streamed body and from SSE deltas. */
#include "client/client.h"
#include "client/record.h"
#include "client/schedule.h"
#include "client/session.h"
#include "core/error.h"
#include "core/test.h"

#include <stdlib.h>
#include <string.h>

static void test_trace_order_and_chaining(void)
{
    /* rows: 0 single @30ms, 1 session a turn 0 @10ms, 2 a turn 1 (delay 5ms), 3 single @20ms */
    struct gp_client_job jobs[4] = {
        {.t_sched_ns = 30000000, .entry = 0, .next = -1, .session = -1},
        {.t_sched_ns = 10000000, .entry = 1, .next = 2, .session = 0},
        {.t_sched_ns = -1, .delay_ns = 5000000, .entry = 2, .next = -1, .session = 0, .turn = 1},
        {.t_sched_ns = 20000000, .entry = 3, .next = -1, .session = -1},
    };
    uint32_t starts[3] = {0, 1, 3};
    struct gp_client_plan p = {.jobs = jobs, .n = 4, .starts = starts, .nstarts = 3, .nsessions = 1};
    struct gp_client_body bodies[4] = {{"{}", 2}, {"{}", 2}, {"{}", 2}, {"{}", 2}};
    struct gp_csched q;
    struct gp_error err;
    CHECK_INT(gp_csched_init(&q, &p, NULL, bodies, 4, 1000, -1, 1, 0, &err), 0);
    uint32_t job, entry;
    uint64_t due;
    CHECK_INT(gp_csched_due(&q), 1000 + 10000000);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK_INT(job, 1);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK_INT(job, 3);
    CHECK_INT(due, 1000 + 20000000);
    /* turn 1 is not ready until turn 0 ends: only row 0 is queued */
    CHECK_INT(gp_csched_due(&q), 1000 + 30000000);
    CHECK_INT(gp_csched_done(&q, 1, 50000000, NULL, NULL, &err), 0);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK_INT(job, 0);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK_INT(job, 2);
    CHECK_INT(due, 55000000); /* previous end + delay */
    CHECK(gp_csched_more(&q));
    CHECK_INT(gp_csched_done(&q, 0, 60000000, NULL, NULL, &err), 0);
    CHECK_INT(gp_csched_done(&q, 2, 60000000, NULL, NULL, &err), 0);
    CHECK_INT(gp_csched_done(&q, 3, 60000000, NULL, NULL, &err), 0);
    CHECK(!gp_csched_more(&q));
    CHECK_INT(gp_csched_due(&q), UINT64_MAX);
    gp_csched_free(&q);
}

/* The ready queue is a binary heap (schedule.c, with O(1) order asserts at
 * each push and pop): 200 rows due in a scrambled order come out sorted. */
static void test_heap_order_many(void)
{
    enum { N = 200 };
    struct gp_client_job *jobs = calloc(N, sizeof *jobs);
    uint32_t *starts = calloc(N, sizeof *starts);
    CHECK(jobs && starts);
    for (uint32_t i = 0; i < N; i++) {
        /* 7919 is prime to 200: every due time 0..199 ms once, scrambled */
        jobs[i] = (struct gp_client_job){.t_sched_ns = (int64_t)((i * 7919u) % N) * 1000000, .entry = 0,
                                         .next = -1, .session = -1};
        starts[i] = i;
    }
    struct gp_client_plan p = {.jobs = jobs, .n = N, .starts = starts, .nstarts = N};
    struct gp_client_body body = {"{}", 2};
    struct gp_csched q;
    struct gp_error err;
    CHECK_INT(gp_csched_init(&q, &p, NULL, &body, 1, 0, -1, 1, 0, &err), 0);
    uint64_t prev = 0;
    int sorted = 1, n = 0;
    while (gp_csched_due(&q) != UINT64_MAX) {
        uint32_t job, entry;
        uint64_t due;
        gp_csched_pop(&q, &job, &entry, &due);
        sorted &= due >= prev && due == (uint64_t)jobs[job].t_sched_ns;
        prev = due;
        n++;
    }
    CHECK(sorted);
    CHECK_INT(n, N);
    gp_csched_free(&q);
    free(jobs);
    free(starts);
}

static void test_session_concurrency(void)
{
    /* 3 one-turn sessions, 2 at a time: the third starts when one ends */
    struct gp_client_job jobs[3] = {{.t_sched_ns = -1, .next = -1, .session = 0},
                                    {.t_sched_ns = -1, .entry = 1, .next = -1, .session = 1},
                                    {.t_sched_ns = -1, .entry = 2, .next = -1, .session = 2}};
    uint32_t starts[3] = {0, 1, 2};
    struct gp_client_plan p = {.jobs = jobs, .n = 3, .starts = starts, .nstarts = 3, .nsessions = 3,
                               .session_concurrency = 2};
    struct gp_client_body bodies[3] = {{"{}", 2}, {"{}", 2}, {"{}", 2}};
    struct gp_csched q;
    struct gp_error err;
    CHECK_INT(gp_csched_init(&q, &p, NULL, bodies, 3, 7, -1, 1, 0, &err), 0);
    uint32_t job, entry;
    uint64_t due;
    gp_csched_pop(&q, &job, &entry, &due);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK_INT(gp_csched_due(&q), UINT64_MAX);
    CHECK(gp_csched_more(&q));
    CHECK_INT(gp_csched_done(&q, 0, 99, NULL, NULL, &err), 0);
    CHECK_INT(gp_csched_due(&q), 99);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK_INT(job, 2);
    gp_csched_free(&q);
}

/* --workers: loop w of W runs the chains whose start index is w mod W; under
 * session concurrency C at most C loops take chains and share C. */
static void test_plan_split(void)
{
    struct gp_client_job jobs[5];
    uint32_t starts[5];
    struct gp_client_body bodies[5];
    for (int i = 0; i < 5; i++) {
        jobs[i] = (struct gp_client_job){.t_sched_ns = 1000 * i, .entry = (uint32_t)i, .next = -1, .session = i};
        starts[i] = (uint32_t)i;
        bodies[i] = (struct gp_client_body){"{}", 2};
    }
    struct gp_client_plan p = {.jobs = jobs, .n = 5, .starts = starts, .nstarts = 5, .nsessions = 5};
    struct gp_csched q;
    struct gp_error err;
    uint32_t job, entry;
    uint64_t due;
    /* a trace: loop 1 of 2 gets rows 1 and 3 at their own times */
    CHECK_INT(gp_csched_init(&q, &p, NULL, bodies, 5, 100, -1, 2, 1, &err), 0);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK(job == 1 && due == 1100);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK(job == 3 && due == 3100);
    CHECK_INT(gp_csched_due(&q), UINT64_MAX);
    gp_csched_free(&q);
    /* sessions 3 at a time over 2 loops: loop 0 runs 2 at once (0, 2, then 4), loop 1 one (1, then 3) */
    for (int i = 0; i < 5; i++)
        jobs[i].t_sched_ns = -1;
    p.session_concurrency = 3;
    CHECK_INT(gp_csched_init(&q, &p, NULL, bodies, 5, 100, -1, 2, 0, &err), 0);
    gp_csched_pop(&q, &job, &entry, &due);
    uint32_t a = job;
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK((a == 0 && job == 2) || (a == 2 && job == 0));
    CHECK_INT(gp_csched_due(&q), UINT64_MAX);
    CHECK_INT(gp_csched_done(&q, 0, 500, NULL, NULL, &err), 0);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK(job == 4 && due == 500);
    CHECK_INT(gp_csched_done(&q, 2, 600, NULL, NULL, &err), 0);
    CHECK_INT(gp_csched_done(&q, 4, 700, NULL, NULL, &err), 0);
    CHECK(!gp_csched_more(&q));
    gp_csched_free(&q);
    CHECK_INT(gp_csched_init(&q, &p, NULL, bodies, 5, 100, -1, 2, 1, &err), 0);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK_INT(job, 1);
    CHECK_INT(gp_csched_due(&q), UINT64_MAX);
    CHECK_INT(gp_csched_done(&q, 1, 500, NULL, NULL, &err), 0);
    gp_csched_pop(&q, &job, &entry, &due);
    CHECK_INT(job, 3);
    CHECK_INT(gp_csched_done(&q, 3, 600, NULL, NULL, &err), 0);
    CHECK(!gp_csched_more(&q));
    gp_csched_free(&q);
    /* more loops than C: loop 3 of 4 with C = 3 takes nothing */
    CHECK_INT(gp_csched_init(&q, &p, NULL, bodies, 5, 100, -1, 4, 3, &err), 0);
    CHECK(!gp_csched_more(&q));
    gp_csched_free(&q);
}

static void test_rate(void)
{
    struct gp_sched_load l = {.mode = GP_SCHED_CONSTANT, .rate = 1000};
    struct gp_client_body b = {"{}", 2};
    struct gp_csched q;
    struct gp_error err;
    CHECK_INT(gp_csched_init(&q, NULL, &l, &b, 1, 500, 3, 1, 0, &err), 0);
    uint32_t job, entry;
    uint64_t due;
    for (uint32_t i = 0; i < 3; i++) {
        CHECK(gp_csched_more(&q));
        gp_csched_pop(&q, &job, &entry, &due);
        CHECK_INT(job, i);
        CHECK_INT(due, 500 + (uint64_t)i * 1000000);
    }
    CHECK(!gp_csched_more(&q));
    CHECK_INT(gp_csched_due(&q), UINT64_MAX);
    gp_csched_free(&q);
}

static void test_session_history(void)
{
    struct gp_csession s;
    memset(&s, 0, sizeof s);
    const char *t0 = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":3}";
    const char *t1 = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"more\"}],\"max_tokens\":3}";
    const char *t2 = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"end\"}],\"stream\":true}";
    const char *out;
    size_t n;
    CHECK_INT(gp_csession_body(&s, t0, strlen(t0), &out, &n), 0);
    CHECK_STR(out, t0);
    struct gp_record_store st;
    gp_record_store_init(&st);
    const char *resp = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"Hello there\"}}]}";
    struct gp_record r = {.http_status = 200};
    struct gp_chunk c = {.len = (uint32_t)strlen(resp)};
    CHECK_INT(gp_record_append(&st, &r, &c, 1, resp, strlen(resp), NULL, 0), 0);
    CHECK_INT(gp_csession_reply(&s, &st, &st.recs[0]), 0);
    CHECK_INT(gp_csession_body(&s, t1, strlen(t1), &out, &n), 0);
    CHECK_STR(out, "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"assistant\","
                   "\"content\":\"Hello there\"},{\"role\":\"user\",\"content\":\"more\"}],\"max_tokens\":3}");
    CHECK_INT(n, strlen(out));
    /* a streamed reply, split across reads mid-event */
    const char *sse = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\ndata: {\"choices\":[{\"delta\":"
                      "{\"content\":\"Fi\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"ne\"}}]}\n\ndata: [DONE]\n\n";
    struct gp_record r2 = {.http_status = 200, .flags = GP_REC_STREAMING};
    struct gp_chunk c2[2] = {{.off = 0, .len = 70}, {.off = 70, .len = (uint32_t)strlen(sse) - 70}};
    CHECK_INT(gp_record_append(&st, &r2, c2, 2, sse, strlen(sse), NULL, 0), 1);
    CHECK_INT(gp_csession_reply(&s, &st, &st.recs[1]), 0);
    CHECK_INT(gp_csession_body(&s, t2, strlen(t2), &out, &n), 0);
    CHECK(strstr(out, "{\"role\":\"assistant\",\"content\":\"Fine\"},{\"role\":\"user\",\"content\":\"end\"}]") != NULL);
    CHECK_INT(json_array_size(s.hist), 5);
    gp_record_store_free(&st);
    gp_csession_free(&s);
}

int main(void)
{
    GP_RUN(test_trace_order_and_chaining);
    GP_RUN(test_heap_order_many);
    GP_RUN(test_session_concurrency);
    GP_RUN(test_plan_split);
    GP_RUN(test_rate);
    GP_RUN(test_session_history);
    return gp_test_summary();
}
