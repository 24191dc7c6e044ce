/* Unit tests for sched/trace.c: payload:/Mooncake rows, errors, sessions, prompts. */
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/test.h"
#include "dataset/promptgen.h"
#include "sched/sched.h"
#include "tokenizer/tokenizer.h"

#include <stdlib.h>
#include <unistd.h>

static struct gp_trace *parse(const char *text, const struct gp_trace_opts *o, struct gp_error *e)
{
    struct gp_trace *t = NULL;
    struct gp_trace_opts d = {0};
    if (gp_trace_parse("t.jsonl", text, strlen(text), o ? o : &d, &t, e))
        return NULL;
    return t;
}

/* The error text of a trace that must be refused. */
static const char *refuse(const char *text, const struct gp_trace_opts *o)
{
    static struct gp_error e;
    struct gp_trace *t = parse(text, o, &e);
    if (t) {
        gp_trace_free(t);
        return "(accepted)";
    }
    return e.msg;
}

static void test_rows(void)
{
    /* Mooncake rows as published (FAST'25 traces) */
    const char *m = "{\"timestamp\": 0, \"input_length\": 6755, \"output_length\": 500, \"hash_ids\": [0, 1, 2]}\n"
                    "\n"
                    "{\"timestamp\": 100, \"input_length\": 7319, \"output_length\": 490, \"hash_ids\": [0, 3]}\r\n"
                    "{\"timestamp\": 250, \"input_length\": 7234, \"output_length\": 794, \"hash_ids\": []}\n";
    struct gp_error e;
    struct gp_trace_opts o = {.speedup = 2};
    struct gp_trace *t = parse(m, &o, &e);
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_INT(t->n, 3);
    CHECK_INT(t->rows[0].t_sched_ns, 0);
    CHECK_INT(t->rows[1].t_sched_ns, 50000000);
    CHECK_INT(t->rows[2].t_sched_ns, 125000000);
    CHECK_INT(t->rows[1].line, 3);
    CHECK_INT(t->rows[1].isl, 7319);
    CHECK_INT(t->rows[2].osl, 794);
    CHECK_INT(t->rows[0].nhash, 3);
    CHECK_INT(t->rows[1].nhash, 2);
    CHECK_INT(t->hash[t->rows[1].hash_off + 1], 3);
    CHECK_INT(t->rows[2].nhash, 0);
    CHECK_INT(t->rows[0].session, -1);
    CHECK_INT(t->rows[0].next, -1);
    CHECK_INT(t->nsessions, 0);
    gp_trace_free(t);
    /* perf_analyzer: a timestamp is ms after the start; auto_offset rebases */
    const char *late = "{\"timestamp\": 5000, \"input_length\": 10}\n{\"timestamp\": 5001.5, \"input_length\": 10}\n";
    struct gp_trace_opts d = {0};
    t = parse(late, &d, &e);
    CHECK(t && t->rows[0].t_sched_ns == 5000000000LL && t->rows[1].t_sched_ns == 5001500000LL);
    CHECK(t && t->first_ts_ms == 5000);
    gp_trace_free(t);
    d.auto_offset = 1;
    t = parse(late, &d, &e);
    CHECK(t && t->rows[0].t_sched_ns == 0 && t->rows[1].t_sched_ns == 1500000);
    gp_trace_free(t);
    /* no length: text rows (-1), or GenAI-Perf's synthetic mean (0) */
    t = parse("{\"text\": \"hi\", \"output_length\": 3}\n{\"max_tokens\": 4}\n{\"hash_ids\": [7]}\n", NULL, &e);
    CHECK(t && t->rows[0].isl == -1 && t->rows[1].isl == 0 && t->rows[2].isl == 0 && t->rows[2].nhash == 1);
    CHECK(t && t->rows[0].t_sched_ns == -1);
    gp_trace_free(t);
}

static void test_errors(void)
{
    struct gp_trace_opts fs = {.require_timestamp = 1};
    const char *m;
    m = refuse("{\"timestamp\": 0, \"input_length\": 5}\n{\"timestamp\": 1, \"input_length\": 5\n", NULL);
    CHECK(strncmp(m, "t.jsonl:2: not JSON", 19) == 0);
    m = refuse("[1]\n", NULL);
    CHECK(strstr(m, "t.jsonl:1: expected a JSON object") != NULL);
    m = refuse("{\"timestamp\": -3, \"input_length\": 5}\n", NULL);
    CHECK(strstr(m, "t.jsonl:1:") && strstr(m, "negative"));
    m = refuse("{\"timestamp\": 10, \"input_length\": 5}\n{\"timestamp\": 9, \"input_length\": 5}\n", NULL);
    CHECK(strstr(m, "t.jsonl:2:") && strstr(m, "earlier than 10 on line 1"));
    m = refuse("{\"timestamp\": 0, \"input_length\": 5}\n\n{\"input_length\": 5}\n", &fs);
    CHECK(strstr(m, "t.jsonl:3: missing \"timestamp\"") != NULL);
    /* issue 40 item 4: a 1e12 ms gap (epoch ms) is named before the run */
    m = refuse("{\"timestamp\": 0, \"input_length\": 5}\n{\"timestamp\": 1000000000000, \"input_length\": 5}\n", &fs);
    CHECK(strstr(m, "t.jsonl:2: \"timestamp\" 1000000000000 is 11574 days after the run starts") == m);
    CHECK(strstr(m, "epoch milliseconds") != NULL);
    struct gp_trace_opts fast = {.require_timestamp = 1, .speedup = 10};
    m = refuse("{\"timestamp\": 0, \"input_length\": 5}\n{\"timestamp\": 864000000, \"input_length\": 5}\n", &fast);
    CHECK_STR(m, "(accepted)"); /* 10 days at x10 is one day */
    m = refuse("{\"timestamp\": 0, \"input_length\": 5}\n{\"timestamp\": 1000000000000, \"input_length\": 5}\n", NULL);
    CHECK_STR(m, "(accepted)"); /* no fixed schedule: nothing waits for it */
    m = refuse("{\"timestamp\": \"0\", \"input_length\": 5}\n", NULL);
    CHECK(strstr(m, "\"timestamp\" must be a number") != NULL);
    m = refuse("{\"input_length\": 0}\n", NULL);
    CHECK(strstr(m, "\"input_length\" must be an integer") != NULL);
    m = refuse("{\"input_length\": 5, \"output_length\": 1.5}\n", NULL);
    CHECK(strstr(m, "\"output_length\"") != NULL);
    m = refuse("{\"input_length\": 5, \"hash_ids\": [1, \"x\"]}\n", NULL);
    CHECK(strstr(m, "\"hash_ids\"") != NULL);
    m = refuse("{\"input_length\": 5, \"hash_ids\": 3}\n", NULL);
    CHECK(strstr(m, "\"hash_ids\"") != NULL);
    m = refuse("{\"text\": \"a\", \"text_input\": \"b\"}\n", NULL);
    CHECK(strstr(m, "only one of 'text_input' or 'text'") != NULL);
    m = refuse("{\"input_length\": 5, \"session_id\": [1]}\n", NULL);
    CHECK(strstr(m, "\"session_id\"") != NULL);
    m = refuse("{\"input_length\": 5, \"delay\": -1}\n", NULL);
    CHECK(strstr(m, "\"delay\"") && strstr(m, "negative"));
    /* fuzz (sched_fuzz_trace): a delay this large overflowed int64 ns (UBSan) */
    m = refuse("{\"session_id\": \"a\", \"input_length\": 5, \"delay\": 55555555555555512}\n"
               "{\"session_id\": \"a\", \"input_length\": 5, \"delay\": 10}\n",
               NULL);
    CHECK(strstr(m, "t.jsonl:1: \"delay\" 5.55556e+16 ms") && strstr(m, "too large"));
    m = refuse("{\"input_length\": 5, \"input_length\": 6}\n", NULL);
    CHECK(strstr(m, "t.jsonl:1: not JSON") != NULL);
    m = refuse("\n  \n", NULL);
    CHECK(strstr(m, "has no rows") != NULL);
    struct gp_trace_opts bad = {.speedup = -1};
    m = refuse("{\"input_length\": 5}\n", &bad);
    CHECK(strstr(m, "--trace-speedup") != NULL);
    /* a session turn with no delay and a successor: perf_analyzer stops */
    m = refuse("{\"session_id\": \"a\", \"input_length\": 5}\n{\"session_id\": \"a\", \"input_length\": 5}\n", NULL);
    CHECK(strstr(m, "t.jsonl:1: session \"a\" turn 0 has no \"delay\"") != NULL);
}

static void test_sessions(void)
{
    /* GenAI-Perf form: "delay" = wait after this turn; ratio 0.5 truncates */
    const char *s = "{\"session_id\": \"a\", \"timestamp\": 0, \"input_length\": 5, \"delay\": 3}\n"
                    "{\"session_id\": 7, \"timestamp\": 10, \"input_length\": 6, \"delay\": 1000}\n"
                    "{\"session_id\": \"a\", \"input_length\": 7, \"delay\": 2000}\n"
                    "{\"session_id\": \"7\", \"input_length\": 8}\n"
                    "{\"session_id\": \"a\", \"input_length\": 9}\n"
                    "{\"timestamp\": 20, \"input_length\": 10}\n";
    struct gp_error e;
    struct gp_trace_opts o = {.delay_ratio = 0.5, .require_timestamp = 1};
    struct gp_trace *t = parse(s, &o, &e);
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_INT(t->nsessions, 2);
    CHECK_STR(t->session_ids[0], "a");
    CHECK_STR(t->session_ids[1], "7");
    CHECK_INT(t->session_first[0], 0);
    CHECK_INT(t->session_first[1], 1);
    CHECK_INT(t->rows[0].next, 2);
    CHECK_INT(t->rows[2].next, 4);
    CHECK_INT(t->rows[4].next, -1);
    CHECK_INT(t->rows[1].next, 3);
    CHECK_INT(t->rows[4].turn, 2);
    CHECK_INT(t->rows[3].turn, 1);
    CHECK_INT(t->rows[3].session, 1);
    CHECK_INT(t->rows[0].delay_ns, 0);
    CHECK_INT(t->rows[2].delay_ns, 1000000);    /* int(3 * 0.5) = 1 ms */
    CHECK_INT(t->rows[4].delay_ns, 1000000000); /* 2000 * 0.5 */
    CHECK_INT(t->rows[3].delay_ns, 500000000);
    CHECK_INT(t->rows[2].t_sched_ns, -1);
    CHECK_INT(t->rows[5].session, -1);
    CHECK_INT(t->rows[5].t_sched_ns, 20000000);
    gp_trace_free(t);
    /* AIPerf's form: "delay" = wait before this turn (first turn's ignored) */
    const char *a = "{\"session_id\": \"x\", \"input_length\": 5, \"delay\": 9}\n"
                    "{\"session_id\": \"x\", \"delay\": 2, \"input_length\": 6}\n"
                    "{\"session_id\": \"x\", \"input_length\": 6}\n";
    struct gp_trace_opts b = {.delay_kind = GP_TRACE_DELAY_BEFORE};
    t = parse(a, &b, &e);
    CHECK(t && t->rows[0].delay_ns == 0 && t->rows[1].delay_ns == 2000000 && t->rows[2].delay_ns == 0);
    gp_trace_free(t);
    /* a later turn with its own timestamp needs no delay before it */
    const char *ts = "{\"session_id\": \"x\", \"timestamp\": 0, \"input_length\": 5}\n"
                     "{\"session_id\": \"x\", \"timestamp\": 40, \"input_length\": 6}\n";
    t = parse(ts, NULL, &e);
    CHECK(t && t->rows[1].delay_ns == 0 && t->rows[1].t_sched_ns == 40000000);
    gp_trace_free(t);
}

static void test_read_and_prompt(void)
{
    char path[64], spec[80];
    snprintf(path, sizeof path, "/tmp/gp-sched-trace-%d.jsonl", (int)getpid());
    const char *rows = "{\"timestamp\": 0, \"input_length\": 32, \"hash_ids\": [11, 12]}\n"
                       "{\"timestamp\": 1, \"input_length\": 32, \"hash_ids\": [11, 12]}\n"
                       "{\"timestamp\": 2, \"input_length\": 32, \"hash_ids\": [11, 13]}\n"
                       "{\"timestamp\": 3, \"text\": \"x\"}\n";
    struct gp_error e;
    CHECK_INT(gp_write_file_atomic(path, rows, strlen(rows), &e), 0);
    snprintf(spec, sizeof spec, "payload:%s", path);
    struct gp_trace *t = NULL;
    struct gp_trace_opts o = {0};
    CHECK_INT(gp_trace_read(spec, &o, &t, &e), 0);
    CHECK(t && t->n == 4 && t->rows[3].isl == -1);
    gp_trace_free(t);
    unlink(path);
    CHECK(gp_trace_read(path, &o, &t, &e) < 0 && strstr(e.msg, "--input-file"));
    struct gp_trace *t2 = NULL;
    CHECK_INT(gp_trace_parse("x", rows, strlen(rows), &o, &t2, &e), 0);
    t = t2;
    struct gp_tokenizer *tok = NULL;
    struct gp_promptgen *g = NULL;
    CHECK_INT(gp_tokenizer_load("builtin", NULL, &tok, &e), 0);
    CHECK_INT(gp_promptgen_new(tok, &g, &e), 0);
    struct gp_buf p[3] = {{0}};
    /* the parsed rows' hash ids feed gp_promptgen_blocks (dataset/jsonl.c
     * does the same for payload:FILE rows, with 512-token blocks) */
    for (size_t r = 0; r < 3; r++) {
        const struct gp_trace_row *row = &t->rows[r];
        CHECK_INT(gp_promptgen_blocks(g, 5, t->hash + row->hash_off, row->nhash, 16, row->isl, (uint64_t)r, &p[r], &e),
                  0);
        CHECK_INT(gp_tokenizer_count(tok, p[r].data, p[r].len), 32);
    }
    /* 32 tokens = exactly two 16-token blocks (a tail past the ids would
     * come from the row's own stream). Same hash ids: same prompt; the
     * second id differs: only the first block is shared */
    CHECK(p[0].len == p[1].len && memcmp(p[0].data, p[1].data, p[0].len) == 0);
    size_t common = 0;
    while (common < p[0].len && common < p[2].len && p[0].data[common] == p[2].data[common])
        common++;
    CHECK(common > 0 && common < p[0].len);
    CHECK_INT(gp_tokenizer_count(tok, p[0].data, common) >= 15, 1);
    for (size_t r = 0; r < 3; r++)
        gp_buf_free(&p[r]);
    gp_promptgen_free(g);
    gp_tokenizer_free(tok);
    gp_trace_free(t);
}

int main(void)
{
    GP_RUN(test_rows);
    GP_RUN(test_errors);
    GP_RUN(test_sessions);
    GP_RUN(test_read_and_prompt);
    return gp_test_summary();
}
