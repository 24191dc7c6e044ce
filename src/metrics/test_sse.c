/* metrics/test_sse.c — SSE framing, event scanning and per-request metrics
 * over synthetic record stores (every real-server case of the issue). */
#include "client/record.h"
#include "core/buf.h"
#include "core/test.h"
#include "dataset/dataset.h"
#include "metrics/metrics.h"
#include "metrics/sse.h"
#include "metrics/test_support.h"
#include "tokenizer/tokenizer.h"

#include <stdlib.h>
#include <string.h>

struct collect {
    int n;
    char ev[16][256];
    char type[16][32];
};

static int col(void *ctx, const char *d, size_t n, const char *t)
{
    struct collect *c = ctx;
    if (c->n < 16) {
        snprintf(c->ev[c->n], sizeof c->ev[0], "%.*s", (int)n, d);
        snprintf(c->type[c->n], sizeof c->type[0], "%s", t);
    }
    c->n++;
    return 0;
}

/* feeds s split at every position in splits[] */
static void feed_split(struct gp_sse *p, const char *s, size_t step, struct collect *c)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i += step)
        gp_sse_feed(p, s + i, (n - i < step) ? n - i : step, col, c);
    gp_sse_finish(p, col, c);
}

static void test_framing(void)
{
    const char *inputs[] = {
        "data: {\"a\":1}\n\ndata:{\"b\":2}\n\n: keep-alive\n\ndata: [DONE]\n\n",
        "data: {\"a\":1}\r\n\r\ndata:{\"b\":2}\r\n\r\n: ping\r\n\r\ndata: [DONE]\r\n\r\n",
        "data: {\"a\":1}\r\rdata:{\"b\":2}\r\r:x\r\rdata: [DONE]  \r\r",
        "event: message\nid: 3\nretry: 10\ndata: {\"a\":1} \n\nfoo\ndata:{\"b\":2}\n\ndata:[DONE]",
    };
    for (size_t k = 0; k < sizeof inputs / sizeof *inputs; k++)
        for (size_t step = 1; step <= 64; step = step * 2 + 1) {
            struct gp_sse p;
            struct collect c = {0};
            gp_sse_init(&p);
            feed_split(&p, inputs[k], step, &c);
            CHECK_INT(c.n, 3);
            CHECK_STR(c.ev[0], "{\"a\":1}");
            CHECK_STR(c.ev[1], "{\"b\":2}");
            CHECK_STR(c.ev[2], "[DONE]");
            gp_sse_free(&p);
        }
    /* multi-line data joined with \n; event type passed */
    struct gp_sse p;
    struct collect c = {0};
    gp_sse_init(&p);
    feed_split(&p, "event: error\ndata: line1\ndata: line2\n\n", 1000, &c);
    CHECK_INT(c.n, 1);
    CHECK_STR(c.ev[0], "line1\nline2");
    CHECK_STR(c.type[0], "error");
    gp_sse_free(&p);
}

static void test_event_parse(void)
{
    struct gp_buf content = {0}, reasoning = {0}, et = {0};
    struct gp_event_info in;
    const char *role = "{\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}";
    gp_event_parse(role, strlen(role), &content, &reasoning, &et, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.content_len, 0);
    const char *c1 = "{\"choices\":[{\"delta\":{\"role\":null,\"content\":\"He\\u00e9\\ud83d\\ude00\\n\",\"reasoning_content\":null}}],\"usage\":null}";
    gp_event_parse(c1, strlen(c1), &content, &reasoning, &et, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_STR(content.data, "He\xc3\xa9\xf0\x9f\x98\x80\n");
    const char *r1 = "{\"choices\":[{\"delta\":{\"reasoning\":\"think\"}}]}";
    gp_event_parse(r1, strlen(r1), &content, &reasoning, &et, &in);
    CHECK_INT(in.reasoning_len, 5);
    CHECK_INT(in.content_len, 0);
    const char *r2 = "{\"choices\":[{\"delta\":{\"reasoning_content\":\"more\",\"content\":\"\"}}]}";
    gp_event_parse(r2, strlen(r2), &content, &reasoning, &et, &in);
    CHECK_STR(reasoning.data, "thinkmore");
    const char *usage = "{\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"total_tokens\":140,\"completion_tokens\":128,\"completion_tokens_details\":{\"reasoning_tokens\":120}}}";
    gp_event_parse(usage, strlen(usage), &content, &reasoning, &et, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.has_usage, 1);
    CHECK_INT(in.prompt_tokens, 12);
    CHECK_INT(in.completion_tokens, 128);
    CHECK_INT(in.n_choices, 0);
    CHECK_INT(in.cached_tokens, -1);
    /* prefix-cache hits: an object (vLLM, SGLang, TRT-LLM), or null */
    const char *cached = "{\"choices\":[],\"usage\":{\"prompt_tokens\":64,\"completion_tokens\":2,"
                         "\"prompt_tokens_details\":{\"audio_tokens\":0,\"cached_tokens\":48}}}";
    gp_event_parse(cached, strlen(cached), &content, &reasoning, &et, &in);
    CHECK_INT(in.cached_tokens, 48);
    CHECK_INT(in.prompt_tokens, 64);
    CHECK_INT(in.bad_usage, 0);
    const char *nulled = "{\"choices\":[],\"usage\":{\"prompt_tokens\":64,\"prompt_tokens_details\":null,"
                         "\"completion_tokens\":2}}";
    gp_event_parse(nulled, strlen(nulled), &content, &reasoning, &et, &in);
    CHECK_INT(in.cached_tokens, -1);
    CHECK_INT(in.completion_tokens, 2);
    const char *err1 = "{\"error\": {\"message\": \"Internal server error\", \"type\": \"InternalServerError\", \"param\": null, \"code\": 500}}";
    gp_event_parse(err1, strlen(err1), &content, &reasoning, &et, &in);
    CHECK_INT(in.kind, GP_EV_ERROR);
    CHECK_INT(in.error_code, 500);
    CHECK_STR(et.data, "Internal server error");
    const char *err2 = "{\"object\":\"error\",\"message\":\"bad max_tokens\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}";
    gp_event_parse(err2, strlen(err2), &content, &reasoning, &et, &in);
    CHECK_INT(in.kind, GP_EV_ERROR);
    CHECK_STR(et.data, "bad max_tokens");
    const char *err3 = "{\"error\":\"Unauthorized\"}";
    gp_event_parse(err3, strlen(err3), &content, &reasoning, &et, &in);
    CHECK_INT(in.kind, GP_EV_ERROR);
    CHECK_STR(et.data, "Unauthorized");
    gp_event_parse("[DONE]", 6, &content, &reasoning, &et, &in);
    CHECK_INT(in.kind, GP_EV_DONE);
    gp_event_parse("{\"choices\":[{\"delta\":{\"content\":\"x\"", 33, &content, &reasoning, &et, &in);
    CHECK_INT(in.kind, GP_EV_BAD);
    CHECK_STR(content.data, "He\xc3\xa9\xf0\x9f\x98\x80\n"); /* nothing kept from a bad event */
    const char *full = "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"abc\",\"reasoning\":null},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3}}";
    gp_buf_reset(&content);
    gp_event_parse(full, strlen(full), &content, &reasoning, &et, &in);
    CHECK_STR(content.data, "abc");
    CHECK_INT(in.has_finish, 1);
    CHECK_INT(in.completion_tokens, 3);
    const char *tc = "{\"object\":\"text_completion\",\"choices\":[{\"text\":\"xyz\",\"finish_reason\":null}]}";
    gp_buf_reset(&content);
    gp_event_parse(tc, strlen(tc), &content, &reasoning, &et, &in);
    CHECK_STR(content.data, "xyz");
    gp_buf_free(&content);
    gp_buf_free(&reasoning);
    gp_buf_free(&et);
}

/* ---- whole requests through gp_metrics_compute ------------------------- */

#define EV(txt) "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" txt "\"},\"finish_reason\":null}]}\n\n"
#define ROLE "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
#define USAGE "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":4}}\n\n"
#define DONE "data: [DONE]\n\n"

static void run(struct gp_record_store *st, struct gp_metrics_result *m)
{
    struct gp_tokenizer *tok = NULL;
    gp_tokenizer_load("builtin", NULL, &tok, NULL);
    struct gp_metrics_opts o = {.inter_chunk = 1};
    int rc = gp_metrics_compute(st, NULL, tok, &o, m, NULL);
    CHECK_INT(rc, 0);
    gp_tokenizer_free(tok);
}

static void test_requests(void)
{
    struct gp_record_store st;
    ts_store_init(&st);
    uint32_t S = GP_REC_STREAMING;
    /* 0: role chunk, 3 content chunks, finish+usage+done in one read */
    {
        const char *r[] = {ROLE, EV("ab"), EV("cd"), EV("ef") USAGE DONE};
        uint64_t dt[] = {10, 20, 30, 40};
        ts_add_req(&st, 1000, 200, S, r, dt, 4, NULL);
    }
    /* 1: an event split across reads at odd places, CRLF, no space after data: */
    {
        const char *r[] = {"data:{\"choices\":[{\"delta\":{\"content\":\"x", "y\"}}]}\r\n", "\r\n", ": ping\r\n\r\n" EV("zw"), DONE};
        uint64_t dt[] = {100, 200, 300, 400, 500};
        ts_add_req(&st, 2000, 200, S, r, dt, 5, NULL);
    }
    /* 2: in-stream error after one token (HTTP 200) */
    {
        const char *r[] = {EV("a"), "data: {\"error\": {\"message\": \"boom\", \"code\": 500}}\n\n", DONE};
        uint64_t dt[] = {10, 20, 30};
        ts_add_req(&st, 3000, 200, S, r, dt, 3, NULL);
    }
    /* 3: EOF before [DONE] (TRT-LLM dropped the connection): content kept, flagged */
    {
        const char *r[] = {"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]} \n\n", EV("abc"), EV("de")};
        uint64_t dt[] = {5, 15, 45};
        ts_add_req(&st, 4000, 200, S, r, dt, 3, NULL);
    }
    /* 4: HTTP 503 with a JSON body */
    {
        const char *r[] = {"{\"object\":\"error\",\"message\":\"queue full\",\"code\":503}"};
        uint64_t dt[] = {7};
        ts_add_req(&st, 5000, 503, GP_REC_FAILED, r, dt, 1, NULL);
    }
    /* 5: transport error */
    ts_add_req(&st, 6000, 0, GP_REC_FAILED, NULL, NULL, 0, "Connection refused");
    /* 6: warmup, ignored */
    {
        const char *r[] = {EV("a"), DONE};
        uint64_t dt[] = {1, 2};
        ts_add_req(&st, 7000, 200, S | GP_REC_WARMUP, r, dt, 2, NULL);
    }
    /* 7: non-streaming chat.completion */
    {
        const char *r[] = {"{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"content\":\"hello\"}}],", "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":5}}"};
        uint64_t dt[] = {50, 60};
        ts_add_req(&st, 8000, 200, 0, r, dt, 2, NULL);
    }
    /* 8: only empty deltas + reasoning: ok, no content */
    {
        const char *r[] = {ROLE, "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hmm\"}}]}\n\n", EV(""), DONE};
        uint64_t dt[] = {1, 2, 3, 4};
        ts_add_req(&st, 9000, 200, S, r, dt, 4, NULL);
    }
    /* 9: HTTP 500 with a text body in the chunks (no error text from the client) */
    {
        const char *r[] = {"Internal Server Error\n"};
        uint64_t dt[] = {3};
        ts_add_req(&st, 10000, 500, GP_REC_FAILED, r, dt, 1, NULL);
    }
    /* 10: a UTF-8 character split across reads, bare-CR line ends, data:[DONE] without space */
    {
        const char *r[] = {"data: {\"choices\":[{\"delta\":{\"content\":\"\xe4\xbd", "\xa0\"}}]}\r\r",
                           "data:{\"choices\":[{\"delta\":{\"content\":\"!\"}}]}\r\rdata:[DONE]\r\r"};
        uint64_t dt[] = {10, 20, 30};
        ts_add_req(&st, 11000, 200, S, r, dt, 3, NULL);
    }
    /* 11: `event: error` with a text payload */
    {
        const char *r[] = {EV("a"), "event: error\ndata: upstream went away\n\n"};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 12000, 200, S, r, dt, 2, NULL);
    }
    /* 12: EOF before [DONE] with no content at all */
    {
        const char *r[] = {ROLE};
        uint64_t dt[] = {10};
        ts_add_req(&st, 13000, 200, S, r, dt, 1, NULL);
    }
    /* 13: TRT-LLM dropped the connection mid-stream (curl error after a 200) */
    {
        const char *r[] = {EV("ab"), EV("cd")};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 14000, 200, S | GP_REC_FAILED, r, dt, 2, "Transferred a partial file");
    }
    /* 14: dropped after the finish chunk: output complete, accounting incomplete */
    {
        const char *r[] = {EV("ab"), "data: {\"choices\":[{\"delta\":{\"content\":\"z\"},\"finish_reason\":\"length\"}]}\n\n"};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 15000, 200, S | GP_REC_FAILED, r, dt, 2, "Transferred a partial file");
    }
    struct gp_metrics_result m;
    run(&st, &m);
    CHECK_INT(m.n_reqs, 14);
    struct gp_req_metrics *q = m.reqs;
    CHECK_INT(q[0].fail, GP_FAIL_NONE);
    CHECK_INT(q[0].ttft_ns, 20);
    CHECK_INT(q[0].ttst_ns, 10);
    CHECK_INT(q[0].latency_ns, 40);
    CHECK_INT(q[0].osl, 6);
    CHECK_INT(q[0].itl_ns, 4); /* round((40-20)/5) */
    CHECK_INT(q[0].content_chunks, 3);
    CHECK_INT(m.content_ns[q[0].ct_first] - 1000, 20);
    CHECK_INT(m.content_ns[q[0].ct_first + 2] - 1000, 40);
    CHECK_INT(m.content_ns[q[1].ct_first + 1] - 2000, 400);
    CHECK_INT(q[0].server_prompt_tokens, 7);
    CHECK_INT(q[0].server_completion_tokens, 4);
    CHECK(!(q[0].flags & GP_RQ_NO_DONE));
    /* request 1: the blank line ending the event came in the third read (t=300) */
    CHECK_INT(q[1].fail, GP_FAIL_NONE);
    CHECK_INT(q[1].ttft_ns, 300);
    CHECK_INT(q[1].latency_ns, 400);
    CHECK_INT(q[1].osl, 4);
    CHECK_INT(q[1].content_chunks, 2);
    CHECK_INT(q[2].fail, GP_FAIL_STREAM_ERROR);
    CHECK(q[2].err_len > 0 && strstr(m.text + q[2].err_off, "boom"));
    CHECK_INT(q[3].fail, GP_FAIL_NONE);
    CHECK(q[3].flags & GP_RQ_NO_DONE);
    CHECK_INT(q[3].ttft_ns, 15);
    CHECK_INT(q[3].latency_ns, 45);
    CHECK_INT(q[4].fail, GP_FAIL_HTTP);
    CHECK(strstr(m.text + q[4].err_off, "HTTP code 503") != NULL);
    CHECK(strstr(m.text + q[4].err_off, "queue full") != NULL);
    CHECK_INT(q[5].fail, GP_FAIL_TRANSPORT);
    CHECK(strncmp(m.text + q[5].err_off, "Connection refused", q[5].err_len) == 0);
    CHECK_INT(q[6].rec, 7);
    CHECK_INT(q[6].ttft_ns, 61); /* non-streaming: completion time = t_end */
    CHECK_INT(q[6].latency_ns, 61);
    CHECK_INT(q[6].ttst_ns, -1);
    CHECK_INT(q[6].osl, 5);
    CHECK_INT(q[7].fail, GP_FAIL_NONE);
    CHECK_INT(q[7].content_chunks, 0);
    CHECK_INT(q[7].reasoning_tokens, 3);
    CHECK_INT(q[8].fail, GP_FAIL_HTTP);
    CHECK(strstr(m.text + q[8].err_off, "HTTP code 500: Internal Server Error") != NULL);
    CHECK_INT(q[9].fail, GP_FAIL_NONE);
    CHECK_INT(q[9].content_chunks, 2);
    CHECK_INT(q[9].osl, 4); /* 3 bytes + "!" with the byte tokenizer */
    CHECK_INT(q[9].ttft_ns, 20);
    CHECK(!(q[9].flags & GP_RQ_NO_DONE));
    CHECK_INT(q[10].fail, GP_FAIL_STREAM_ERROR);
    CHECK(strstr(m.text + q[10].err_off, "upstream went away") != NULL);
    CHECK_INT(q[11].fail, GP_FAIL_TRUNCATED);
    CHECK_INT(q[12].fail, GP_FAIL_TRUNCATED);
    CHECK(strstr(m.text + q[12].err_off, "partial file") != NULL);
    CHECK_INT(q[12].ttft_ns, 10); /* partial timings kept for diagnostics */
    CHECK_INT(q[12].osl, 4);
    CHECK_INT(q[13].fail, GP_FAIL_NONE);
    CHECK(q[13].flags & GP_RQ_NO_DONE);
    CHECK_INT(q[13].latency_ns, 20);
    CHECK_INT(q[2].ttft_ns, 10); /* stream error after one token: timing kept, not counted */
    CHECK_INT(m.n_ok, 7);
    CHECK_INT(m.n_failed, 7);
    CHECK_INT(m.n_no_content, 1);
    CHECK_INT(m.n_no_done, 4);
    CHECK_INT(m.fail_counts[GP_FAIL_HTTP], 2);
    CHECK_INT(m.fail_counts[GP_FAIL_STREAM_ERROR], 2);
    CHECK_INT(m.fail_counts[GP_FAIL_TRANSPORT], 1);
    CHECK_INT(m.fail_counts[GP_FAIL_TRUNCATED], 2);
    CHECK_INT(m.stats[GP_M_REQUEST_COUNT].avg, 6);
    /* window: min start 1000 .. max last content 15000+20 */
    CHECK_INT(m.window_start_ns, 1000);
    CHECK_INT(m.window_end_ns, 15020);
    CHECK_NEAR(m.stats[GP_M_REQUEST_THROUGHPUT].avg, 7 / (14020 / 1e9), 1e-3);
    CHECK(m.inter_chunk.present);
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

/* Event names are matched whole (issue 26 item 7): only `event: error`
 * fails its request; a name that merely contains "error" is an ordinary
 * event whose data counts. */
static void test_event_names(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    uint32_t S = GP_REC_STREAMING;
    {
        const char *r[] = {"event: no_error_here\n" EV("ab"), "event: message\n" EV("cd"), DONE};
        uint64_t dt[] = {10, 20, 30};
        ts_add_req(&st, 1000, 200, S, r, dt, 3, NULL);
    }
    {
        const char *r[] = {EV("ab"), "event: ERROR\ndata: {\"message\": \"overloaded\"}\n\n"};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 2000, 200, S, r, dt, 2, NULL);
    }
    struct gp_metrics_result m;
    run(&st, &m);
    CHECK_INT(m.n_reqs, 2);
    CHECK_INT(m.reqs[0].fail, GP_FAIL_NONE);
    CHECK_INT(m.reqs[0].content_chunks, 2);
    CHECK_INT(m.reqs[0].osl, 4);
    CHECK_INT(m.reqs[1].fail, GP_FAIL_STREAM_ERROR);
    CHECK(m.reqs[1].err_len && strstr(m.text + m.reqs[1].err_off, "overloaded"));
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

/* A 2xx without any response object fails as no_content with its reason
 * (issue 26 item 1); a well-formed response without content stays ok. When
 * no request had content the system metrics are still there (issue 27
 * item 4): request_count 0, throughputs 0. */
static void test_no_content(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    uint32_t S = GP_REC_STREAMING;
    {   /* 0: a proxy's login page */
        const char *r[] = {"\n<!DOCTYPE html><html><body>Please sign in</body></html>"};
        uint64_t dt[] = {10};
        ts_add_req(&st, 1000, 200, 0, r, dt, 1, NULL);
    }
    {   /* 1: every event malformed, then [DONE] */
        const char *r[] = {"data: {\"choices\": [\n\ndata: nope\n\n", "data: {\"x\"\n\n" DONE};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 2000, 200, S, r, dt, 2, NULL);
    }
    /* 2: 204, no body */
    ts_add_req(&st, 3000, 204, 0, NULL, NULL, 0, NULL);
    {   /* 3: a finish chunk only: a real (empty) answer, ok without content */
        const char *r[] = {"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" DONE};
        uint64_t dt[] = {10};
        ts_add_req(&st, 4000, 200, S, r, dt, 1, NULL);
    }
    {   /* 4: only [DONE] */
        const char *r[] = {DONE};
        uint64_t dt[] = {10};
        ts_add_req(&st, 5000, 200, S, r, dt, 1, NULL);
    }
    struct gp_metrics_result m;
    run(&st, &m);
    CHECK_INT(m.n_reqs, 5);
    const char *t = m.text;
    CHECK_INT(m.reqs[0].fail, GP_FAIL_NO_CONTENT);
    static const char html[] = "no_content: text/html body (HTTP 200, 56 bytes): <!DOCTYPE html>";
    CHECK(m.reqs[0].err_len > sizeof html && !memcmp(t + m.reqs[0].err_off, html, sizeof html - 1));
    CHECK_INT(m.reqs[1].fail, GP_FAIL_NO_CONTENT);
    CHECK(m.reqs[1].err_len == 30 && !memcmp(t + m.reqs[1].err_off, "no_content: 3 malformed events", 30));
    CHECK_INT(m.reqs[2].fail, GP_FAIL_NO_CONTENT);
    CHECK(!strncmp(t + m.reqs[2].err_off, "no_content: 204 (no body)", m.reqs[2].err_len));
    CHECK_INT(m.reqs[3].fail, GP_FAIL_NONE);
    CHECK_INT(m.reqs[4].fail, GP_FAIL_NO_CONTENT);
    CHECK(!strncmp(t + m.reqs[4].err_off, "no_content: no response event in the stream", m.reqs[4].err_len));
    CHECK_INT(m.n_ok, 1);
    CHECK_INT(m.n_no_content, 1);
    CHECK_INT(m.fail_counts[GP_FAIL_NO_CONTENT], 4);
    CHECK_STR(gp_fail_kind_name(GP_FAIL_NO_CONTENT), "no_content");
    /* nothing with content: the system metrics are written all the same */
    CHECK(m.stats[GP_M_REQUEST_COUNT].present && m.stats[GP_M_REQUEST_COUNT].avg == 0);
    CHECK(m.stats[GP_M_REQUEST_THROUGHPUT].present && m.stats[GP_M_REQUEST_THROUGHPUT].avg == 0);
    CHECK(m.stats[GP_M_OUTPUT_TOKEN_THROUGHPUT].present);
    CHECK(!m.stats[GP_M_REQUEST_LATENCY].present && !m.stats[GP_M_REQUEST_GOODPUT].present);
    gp_metrics_result_free(&m);

    /* embeddings/rankings: a JSON body is the answer, an HTML page is not */
    struct gp_record_store st2;
    gp_record_store_init(&st2);
    {
        const char *r[] = {"{\"object\":\"list\",\"data\":[]}"};
        uint64_t dt[] = {10};
        ts_add_req(&st2, 1000, 200, 0, r, dt, 1, NULL);
        const char *h[] = {"<html>bad gateway</html>"};
        ts_add_req(&st2, 2000, 200, 0, h, dt, 1, NULL);
    }
    struct gp_metrics_opts o = {.requests_only = 1};
    CHECK_INT(gp_metrics_compute(&st2, NULL, NULL, &o, &m, NULL), 0);
    CHECK_INT(m.reqs[0].fail, GP_FAIL_NONE);
    CHECK_INT(m.reqs[1].fail, GP_FAIL_NO_CONTENT);
    CHECK_INT(m.stats[GP_M_REQUEST_COUNT].avg, 1);
    gp_metrics_result_free(&m);
    gp_record_store_free(&st2);
    gp_record_store_free(&st);
}

/* A 200 whose JSON is no answer (issue 38 item 6): {} from a gateway, a
 * health check's {"status":"ok"}, a stream of {"foo":1} then [DONE] fail as
 * no_content naming what came (its keys); a usage-only or choices-only
 * chunk is still an answer. */
static void test_not_an_answer(void)
{
    struct gp_event_info in;
    static const struct {
        const char *json;
        int kind;
    } ev[] = {
        {"{}", GP_EV_FOREIGN}, {"{\"status\":\"ok\"}", GP_EV_FOREIGN}, {"{\"usage\":null}", GP_EV_FOREIGN},
        {"{\"choices\":null,\"id\":\"x\"}", GP_EV_FOREIGN}, {"{\"choices\":[]}", GP_EV_CHUNK},
        {"{\"usage\":{\"prompt_tokens\":3}}", GP_EV_CHUNK}, {"[]", GP_EV_BAD},
    };
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
        gp_event_parse(ev[i].json, strlen(ev[i].json), NULL, NULL, NULL, &in);
        CHECK_INT(in.kind, ev[i].kind);
    }
    struct gp_record_store st;
    gp_record_store_init(&st);
    uint64_t dt[] = {10, 20};
    {
        const char *r[] = {"{}"};
        ts_add_req(&st, 1000, 200, 0, r, dt, 1, NULL);
    }
    {
        const char *r[] = {"{\"status\":\"ok\"}\n"};
        ts_add_req(&st, 2000, 200, 0, r, dt, 1, NULL);
    }
    {
        const char *r[] = {"data: {\"foo\":1}\n\n", DONE};
        ts_add_req(&st, 3000, 200, GP_REC_STREAMING, r, dt, 2, NULL);
    }
    {   /* two foreign events and a malformed one */
        const char *r[] = {"data: {\"a\":1,\"b\":{\"c\":2}}\n\ndata: {\"d\":1}\n\n", "data: nope\n\n" DONE};
        ts_add_req(&st, 4000, 200, GP_REC_STREAMING, r, dt, 2, NULL);
    }
    {   /* a foreign event inside a real stream is ignored, counted */
        const char *r[] = {EV("ab") "data: {\"foo\":1}\n\n", EV("cd") DONE};
        ts_add_req(&st, 5000, 200, GP_REC_STREAMING, r, dt, 2, NULL);
    }
    struct gp_metrics_result m;
    run(&st, &m);
    static const char *want[] = {
        "no_content: 200 with a JSON object that is no chat completion (keys: none)",
        "no_content: 200 with a JSON object that is no chat completion (keys: status)",
        "no_content: 200 stream whose 1 JSON event is no chat completion chunk (keys: foo)",
        "no_content: 200 stream whose 2 JSON events are no chat completion chunks (keys of the first: a, b); "
        "1 malformed event",
    };
    for (int i = 0; i < 4; i++) {
        CHECK_INT(m.reqs[i].fail, GP_FAIL_NO_CONTENT);
        CHECK(m.reqs[i].err_len == strlen(want[i]) && !memcmp(m.text + m.reqs[i].err_off, want[i], strlen(want[i])));
    }
    CHECK_INT(m.reqs[3].bad_events, 3);
    CHECK_INT(m.reqs[4].fail, GP_FAIL_NONE);
    CHECK_INT(m.reqs[4].osl, 4);
    CHECK_INT(m.reqs[4].bad_events, 1);
    CHECK_INT(m.fail_counts[GP_FAIL_NO_CONTENT], 4);
    CHECK_INT(m.n_no_content, 0);
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

/* A body that stops inside an event (a Content-Length shorter than the
 * stream) without finish_reason or [DONE] is truncated, not an ok request
 * with part of its output (issue 26 item 2); after finish_reason the output
 * was complete. */
static void test_cut_stream(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    uint32_t S = GP_REC_STREAMING;
    {   /* 0: the third event cut in half */
        const char *r[] = {EV("ab"), EV("cd"), "data: {\"choices\":[{\"delta\":{\"content\":\"e"};
        uint64_t dt[] = {10, 20, 30};
        ts_add_req(&st, 1000, 200, S, r, dt, 3, NULL);
    }
    {   /* 1: cut in half with its blank line: malformed last event */
        const char *r[] = {EV("ab"), "data: {\"choices\":[{\"delta\":{\"content\":\"e\n\n"};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 2000, 200, S, r, dt, 2, NULL);
    }
    {   /* 2: cut after the finish chunk: the output was complete */
        const char *r[] = {EV("ab"), "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: {\"choi"};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 3000, 200, S, r, dt, 2, NULL);
    }
    {   /* 3: ends on an event boundary without [DONE]: kept, flagged */
        const char *r[] = {EV("ab"), EV("cd")};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 4000, 200, S, r, dt, 2, NULL);
    }
    struct gp_metrics_result m;
    run(&st, &m);
    static const char why[] = "stream cut before finish_reason and [DONE]: the body ended inside an event";
    CHECK_INT(m.reqs[0].fail, GP_FAIL_TRUNCATED);
    CHECK(m.reqs[0].err_len == sizeof why - 1 && !memcmp(m.text + m.reqs[0].err_off, why, sizeof why - 1));
    CHECK_INT(m.reqs[0].osl, 4); /* partial output kept for the records */
    CHECK_INT(m.reqs[1].fail, GP_FAIL_TRUNCATED);
    CHECK_INT(m.reqs[2].fail, GP_FAIL_NONE);
    CHECK(m.reqs[2].flags & GP_RQ_NO_DONE);
    CHECK_INT(m.reqs[3].fail, GP_FAIL_NONE);
    CHECK(m.reqs[3].flags & GP_RQ_NO_DONE);
    CHECK_INT(m.fail_counts[GP_FAIL_TRUNCATED], 2);
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

/* Usage counts a server cannot mean (issue 26 item 6) read as absent and
 * are counted, never stored as a number cut or rounded from them. */
static void test_bad_usage(void)
{
    static const struct {
        const char *v;
        long want;
        int bad;
    } cases[] = {
        {"9223372036854775808", -1, 1}, {"1.5", -1, 1}, {"-3", -1, 1}, {"\"12\"", -1, 1}, {"1e3", -1, 1},
        {"2147483648", -1, 1}, {"99999999999999999999999", -1, 1}, {"2147483647", 2147483647, 0}, {"0", 0, 0},
        {"128", 128, 0}, {"null", -1, 0},
    };
    struct gp_event_info in;
    char ev[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = snprintf(ev, sizeof ev, "{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":%s}}",
                         cases[i].v);
        gp_event_parse(ev, (size_t)n, NULL, NULL, NULL, &in);
        CHECK_INT(in.kind, GP_EV_CHUNK);
        CHECK_INT(in.completion_tokens, cases[i].want);
        CHECK_INT((int)in.bad_usage, cases[i].bad ? GP_USAGE_COMPLETION : 0);
        CHECK_INT(in.prompt_tokens, 5);
    }
    struct gp_record_store st;
    gp_record_store_init(&st);
    {
        const char *r[] = {EV("ab"), "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":"
                                     "9223372036854775808}}\n\n" DONE};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 1000, 200, GP_REC_STREAMING, r, dt, 2, NULL);
    }
    struct gp_metrics_result m;
    run(&st, &m);
    CHECK_INT(m.reqs[0].fail, GP_FAIL_NONE);
    CHECK_INT(m.reqs[0].server_completion_tokens, -1);
    CHECK_INT(m.reqs[0].server_prompt_tokens, 7);
    CHECK(m.reqs[0].flags & GP_RQ_BAD_USAGE);
    CHECK_INT(m.n_bad_usage, 1);
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

/* A stream that reports usage more than once (vLLM's continuous usage
 * stats: every chunk) ends with the server's last word (issue 38 item 4): a
 * later count replaces an earlier one, and a later count that is no count
 * makes the value unknown and flagged, never the superseded number. */
static void test_last_usage_wins(void)
{
#define CU(txt, ct) \
    "data: {\"choices\":[{\"delta\":{\"content\":\"" txt "\"}}],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":" ct "}}\n\n"
    struct gp_record_store st;
    gp_record_store_init(&st);
    uint32_t S = GP_REC_STREAMING;
    {   /* 0: 1, 2, then out of range: null and flagged, not 2 */
        const char *r[] = {CU("ab", "1"), CU("cd", "2"), "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,"
                                                         "\"completion_tokens\":9223372036854775808}}\n\n" DONE};
        uint64_t dt[] = {10, 20, 30};
        ts_add_req(&st, 1000, 200, S, r, dt, 3, NULL);
    }
    {   /* 1: a bad count early, a good one at the end: the good one, not flagged */
        const char *r[] = {CU("ab", "1.5"), CU("cd", "2") DONE};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 2000, 200, S, r, dt, 2, NULL);
    }
    {   /* 2: a later event without the count leaves it */
        const char *r[] = {CU("ab", "1"), "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":8}}\n\n" DONE};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 3000, 200, S, r, dt, 2, NULL);
    }
    {   /* 3: a negative final count */
        const char *r[] = {CU("ab", "1"), CU("", "-1") DONE};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 4000, 200, S, r, dt, 2, NULL);
    }
#undef CU
    struct gp_metrics_result m;
    run(&st, &m);
    CHECK_INT(m.reqs[0].fail, GP_FAIL_NONE);
    CHECK_INT(m.reqs[0].server_completion_tokens, -1);
    CHECK_INT(m.reqs[0].server_prompt_tokens, 7);
    CHECK(m.reqs[0].flags & GP_RQ_BAD_USAGE);
    CHECK_INT(m.reqs[1].server_completion_tokens, 2);
    CHECK(!(m.reqs[1].flags & GP_RQ_BAD_USAGE));
    CHECK_INT(m.reqs[2].server_completion_tokens, 1);
    CHECK_INT(m.reqs[2].server_prompt_tokens, 8);
    CHECK(!(m.reqs[2].flags & GP_RQ_BAD_USAGE));
    CHECK_INT(m.reqs[3].server_completion_tokens, -1);
    CHECK(m.reqs[3].flags & GP_RQ_BAD_USAGE);
    CHECK_INT(m.n_bad_usage, 2);
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

/* enough requests for the multi-threaded path: error texts and inter-chunk
 * gaps must come back in request order */
static void test_many(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    size_t n = 30000;
    for (size_t i = 0; i < n; i++) {
        char etext[32];
        snprintf(etext, sizeof etext, "boom %zu", i);
        if (i % 7 == 3) {
            ts_add_req(&st, 1000 + i * 10, 0, GP_REC_FAILED, NULL, NULL, 0, etext);
            continue;
        }
        const char *r[] = {EV("ab"), EV("c") DONE};
        uint64_t dt[] = {100 + i % 50, 300 + i % 50 + i % 3};
        ts_add_req(&st, 1000 + i * 10, 200, GP_REC_STREAMING, r, dt, 2, NULL);
    }
    struct gp_metrics_result m;
    run(&st, &m);
    CHECK_INT(m.n_reqs, n);
    size_t nf = 0, bad = 0, badgap = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gp_req_metrics *q = &m.reqs[i];
        if (i % 7 == 3) {
            char etext[32];
            snprintf(etext, sizeof etext, "boom %zu", i);
            nf++;
            if (q->fail != GP_FAIL_TRANSPORT || q->err_len != strlen(etext) ||
                memcmp(m.text + q->err_off, etext, q->err_len) != 0)
                bad++;
        } else if (q->ttft_ns != (int64_t)(100 + i % 50) || q->osl != 3 || q->rec != i ||
                   m.content_ns[q->ct_first + 1] - st.recs[i].t_start_ns != 300 + i % 50 + i % 3) {
            bad++;
        }
    }
    CHECK_INT(bad, 0);
    CHECK_INT(m.n_failed, nf);
    CHECK_INT(m.inter_chunk.n, n - nf);
    /* gaps are 200..202 ns */
    CHECK(m.inter_chunk.min * 1e6 > 199.5 && m.inter_chunk.max * 1e6 < 202.5);
    (void)badgap;
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

int main(void)
{
    GP_RUN(test_many);
    GP_RUN(test_framing);
    GP_RUN(test_event_parse);
    GP_RUN(test_requests);
    GP_RUN(test_event_names);
    GP_RUN(test_no_content);
    GP_RUN(test_not_an_answer);
    GP_RUN(test_cut_stream);
    GP_RUN(test_bad_usage);
    GP_RUN(test_last_usage_wins);
    return gp_test_summary();
}
