/* metrics/test_reasoning.c — reasoning models (issue 38 item 5): answers
 * that ended inside the reasoning are counted apart from GenAI-Perf's
 * content-only statistics (gp_reasoning_summarize), and an output length is
 * compared with max_tokens with the reasoning counted (gp_osl_outcome), so
 * content cut short by reasoning is not an early stop and a count one past
 * max_tokens is not an answer that ran past it. */
#include "core/test.h"
#include "metrics/metrics.h"
#include "metrics/metrics_int.h"

#include <string.h>

/* An ok request that asked for `asked` tokens and got `content` content
 * tokens and `reasoning` reasoning tokens; usage -1 = the server sent none. */
static struct gp_req_metrics req(int asked, int content, int reasoning, int usage)
{
    struct gp_req_metrics q;
    memset(&q, 0, sizeof q);
    q.flags = GP_RQ_OK;
    q.osl_asked = asked;
    q.osl = content;
    q.content_chunks = (uint32_t)content;
    q.reasoning_tokens = reasoning;
    q.reasoning_chunks = (uint32_t)reasoning;
    q.ttfr_ns = reasoning ? 1000000 : -1;
    q.server_completion_tokens = usage;
    return q;
}

static void test_osl_outcome(void)
{
    long len;
    int srv;
    struct gp_req_metrics q = req(16, 8, 8, 16);
    /* usage (reasoning included) is max_tokens: reasoning took the share, no early stop */
    CHECK_INT(gp_osl_outcome(&q, &len, &srv), GP_OSL_REASONING);
    CHECK_INT(len, 16);
    CHECK_INT(srv, 1);
    /* no usage: the client's content + reasoning count */
    q = req(16, 8, 8, -1);
    CHECK_INT(gp_osl_outcome(&q, &len, &srv), GP_OSL_REASONING);
    CHECK_INT(len, 16);
    CHECK_INT(srv, 0);
    /* reasoning-only, all of max_tokens spent reasoning */
    q = req(8, 0, 8, 8);
    CHECK_INT(gp_osl_outcome(&q, NULL, NULL), GP_OSL_REASONING);
    q = req(16, 16, 0, 16);
    CHECK_INT(gp_osl_outcome(&q, NULL, NULL), GP_OSL_AS_ASKED);
    /* one past max_tokens is a count, not a longer answer */
    q = req(16, 16, 0, 17);
    CHECK_INT(gp_osl_outcome(&q, &len, NULL), GP_OSL_OFF_BY_ONE);
    CHECK_INT(len, 17);
    q = req(16, 8, 8, 17);
    CHECK_INT(gp_osl_outcome(&q, NULL, NULL), GP_OSL_OFF_BY_ONE);
    q = req(16, 16, 0, 18);
    CHECK_INT(gp_osl_outcome(&q, NULL, NULL), GP_OSL_LONGER);
    /* short, reasoning included: EOS (one short too: EOS can come there) */
    q = req(16, 3, 8, 11);
    CHECK_INT(gp_osl_outcome(&q, NULL, NULL), GP_OSL_SHORTER);
    q = req(16, 7, 8, 15);
    CHECK_INT(gp_osl_outcome(&q, NULL, NULL), GP_OSL_SHORTER);
    q = req(16, 0, 5, -1);
    CHECK_INT(gp_osl_outcome(&q, &len, NULL), GP_OSL_SHORTER);
    CHECK_INT(len, 5);
    /* failed, or no max_tokens: nothing to compare */
    q = req(16, 16, 0, 16);
    q.flags = 0;
    CHECK_INT(gp_osl_outcome(&q, &len, NULL), GP_OSL_NOT_ASKED);
    CHECK_INT(len, -1);
    q = req(-1, 16, 0, 16);
    CHECK_INT(gp_osl_outcome(&q, NULL, NULL), GP_OSL_NOT_ASKED);
}

/* 3 answers with content (2 reasoned first), 2 reasoning-only, 1 without
 * either, 1 failed with reasoning: 2 reasoning-only, 3 in the statistics. */
static void test_summary_counts_reasoning_only(void)
{
    struct gp_req_metrics q[7] = {req(16, 8, 8, -1), req(16, 12, 4, -1), req(16, 16, 0, -1), req(16, 0, 8, -1),
                                  req(16, 0, 3, -1), req(16, 0, 0, -1), req(16, 0, 2, -1)};
    q[6].flags = 0;
    struct gp_metrics_result m;
    memset(&m, 0, sizeof m);
    m.reqs = q;
    m.n_reqs = 7;
    m.duration_s = 1;
    CHECK_INT(gp_reasoning_summarize(&m), 0);
    CHECK_INT(m.reasoning.present, 1);
    CHECK_INT(m.reasoning.n_requests, 3);
    CHECK_INT(m.reasoning.n_with_reasoning, 2);
    CHECK_INT(m.reasoning.n_reasoning_only, 2);
    CHECK_NEAR(m.reasoning.reasoning_tokens_total, 12, 0);
    /* every answer reasoning-only: present, counted, no statistics */
    struct gp_req_metrics only[2] = {req(8, 0, 8, 8), req(8, 0, 8, 8)};
    m.reqs = only;
    m.n_reqs = 2;
    CHECK_INT(gp_reasoning_summarize(&m), 0);
    CHECK_INT(m.reasoning.present, 1);
    CHECK_INT(m.reasoning.n_requests, 0);
    CHECK_INT(m.reasoning.n_reasoning_only, 2);
    CHECK_INT(m.reasoning.ttfr.present, 0);
    CHECK_INT(m.reasoning.tokens.present, 0);
    CHECK(m.reasoning.total_output_token_throughput < 0); /* none, not 0 tokens/s */
    /* no reasoning anywhere: absent */
    struct gp_req_metrics plain[2] = {req(8, 8, 0, -1), req(8, 0, 0, -1)};
    m.reqs = plain;
    CHECK_INT(gp_reasoning_summarize(&m), 0);
    CHECK_INT(m.reasoning.present, 0);
}

int main(void)
{
    GP_RUN(test_osl_outcome);
    GP_RUN(test_summary_counts_reasoning_only);
    return gp_test_summary();
}
