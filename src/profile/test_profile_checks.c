/* profile/test_profile_checks.c — which console line a reasoning model's
 * lengths get (issue 38 item 5, profile_checks.c): content shorter than max_tokens
 * because the reasoning took a share is said so, not "stopped early (EOS?)";
 * a server count one past max_tokens "differs by 1", not "ran past
 * max_tokens"; answers with reasoning only are counted on their own line,
 * and a run of nothing else says so in its last line. */
#include "core/test.h"
#include "metrics/metrics.h"
#include "profile/profile_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NQ 8

static struct gp_req_metrics q[NQ];

/* n requests asking for `asked`, each with content/reasoning/usage as given
 * (usage -1: none sent) */
static void fill(struct gp_metrics_result *m, size_t n, int asked, int content, int reasoning, int usage)
{
    memset(m, 0, sizeof *m);
    memset(q, 0, sizeof q);
    for (size_t i = 0; i < n; i++) {
        q[i].flags = GP_RQ_OK;
        q[i].osl_asked = asked;
        q[i].osl = content;
        q[i].content_chunks = (uint32_t)content;
        q[i].reasoning_tokens = reasoning;
        q[i].reasoning_chunks = (uint32_t)reasoning;
        q[i].server_completion_tokens = usage;
    }
    m->reqs = q;
    m->n_reqs = n;
    m->n_ok = n;
}

/* what fn wrote for m (caller frees) */
static char *lines(void (*fn)(FILE *, const struct gp_metrics_result *), const struct gp_metrics_result *m)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    fn(f, m);
    fclose(f);
    return out;
}

static void check_osl(const struct gp_metrics_result *m, const char *want, const char *not_want)
{
    char *s = lines(gp_profile_osl_lines, m);
    if (want)
        CHECK(strstr(s, want) != NULL);
    else
        CHECK_STR(s, "");
    if (not_want)
        CHECK(strstr(s, not_want) == NULL);
    if (want && !strstr(s, want))
        fprintf(stderr, "got: %s\n", s);
    free(s);
}

static void test_reasoning_share_is_no_early_stop(void)
{
    struct gp_metrics_result m;
    /* usage 16 = max_tokens: 8 reasoning + 8 content */
    fill(&m, 4, 16, 8, 8, 16);
    check_osl(&m, "because reasoning tokens count against max_tokens", "stopped early");
    check_osl(&m, "its usage.completion_tokens, reasoning included, equals max_tokens", "differs from the requested");
    /* no usage: the client's content + reasoning count */
    fill(&m, 4, 16, 8, 8, -1);
    check_osl(&m, "in 4 of 4 requests the content was shorter", "stopped early");
    /* a real early stop still is one, reasoning included in "got" */
    fill(&m, 4, 16, 3, 8, 11);
    check_osl(&m, "stopped early (EOS?)", "because reasoning tokens");
    check_osl(&m, "got 11.0, reasoning included", NULL);
    /* as asked, no reasoning: nothing to say */
    fill(&m, 4, 16, 16, 0, 16);
    check_osl(&m, NULL, NULL);
}

static void test_off_by_one_is_a_count(void)
{
    struct gp_metrics_result m;
    fill(&m, 3, 16, 16, 0, 17);
    check_osl(&m, "in 3 of 3 requests the server's count differs by 1", "ran past max_tokens");
    fill(&m, 3, 16, 17, 0, -1);
    check_osl(&m, "the client tokenizer's count differs by 1", "ran past max_tokens");
    fill(&m, 3, 16, 16, 0, 18);
    check_osl(&m, "ran past max_tokens", "differs by 1");
}

static void test_reasoning_only_lines(void)
{
    struct gp_metrics_result m;
    fill(&m, 6, 16, 8, 8, -1);
    m.n_ok = 40; /* the counts the line reads */
    m.reasoning.present = 1;
    m.reasoning.n_reasoning_only = 13;
    m.stats[GP_M_REQUEST_COUNT].present = 1;
    m.stats[GP_M_REQUEST_COUNT].n = 27;
    char *s = lines(gp_profile_reasoning_only_line, &m);
    CHECK(strstr(s, "13 of 40 completed answers carried only reasoning") != NULL);
    CHECK(strstr(s, "left out of its table (Request Count 27)") != NULL);
    CHECK(strstr(s, "requests_reasoning_only") != NULL);
    free(s);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_INT(gp_profile_reasoning_only_last_line(f, &m), 0);
    fclose(f);
    CHECK_STR(buf, "");
    free(buf);
    /* every answer: the checks line stays quiet, the last line speaks */
    m.n_ok = 13;
    m.stats[GP_M_REQUEST_COUNT].present = 0;
    s = lines(gp_profile_reasoning_only_line, &m);
    CHECK_STR(s, "");
    free(s);
    f = open_memstream(&buf, &len);
    CHECK_INT(gp_profile_reasoning_only_last_line(f, &m), 1);
    fclose(f);
    CHECK(strstr(buf, "all 13 completed answers carried only reasoning, none reached content") != NULL);
    CHECK(strstr(buf, "raise max_tokens (--osl)") != NULL);
    free(buf);
    /* none reasoning-only: nothing */
    m.reasoning.n_reasoning_only = 0;
    s = lines(gp_profile_reasoning_only_line, &m);
    CHECK_STR(s, "");
    free(s);
}

int main(void)
{
    GP_RUN(test_reasoning_share_is_no_early_stop);
    GP_RUN(test_off_by_one_is_a_count);
    GP_RUN(test_reasoning_only_lines);
    return gp_test_summary();
}
