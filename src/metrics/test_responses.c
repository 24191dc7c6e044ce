/* metrics/test_responses.c — the OpenAI Responses API's events and bodies
 * (responses.c), one by one and as whole requests through
 * gp_metrics_compute with responses_api set. */
#include "client/record.h"
#include "core/buf.h"
#include "core/test.h"
#include "metrics/metrics.h"
#include "metrics/sse.h"
#include "metrics/test_support.h"
#include "tokenizer/tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void parse(const char *json, struct gp_buf *c, struct gp_buf *r, struct gp_buf *e, struct gp_event_info *in)
{
    gp_responses_event_parse(json, strlen(json), c, r, e, in);
}

static void test_events(void)
{
    struct gp_buf c = {0}, r = {0}, e = {0};
    struct gp_event_info in;
    /* a text delta, "type" first (OpenAI) and last (pydantic's alphabetical dump) */
    parse("{\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,"
          "\"delta\":\"Hel\",\"sequence_number\":4}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.content_len, 3);
    parse("{\"content_index\":0,\"delta\":\"lo \\u00e9\",\"item_id\":\"msg_1\",\"logprobs\":[],\"output_index\":0,"
          "\"sequence_number\":5,\"type\":\"response.output_text.delta\"}", &c, &r, &e, &in);
    CHECK_INT(in.content_len, 5);
    CHECK_INT(c.len, 8);
    CHECK(!memcmp(c.data, "Hello \xc3\xa9", 8));
    CHECK_INT(in.has_finish, 0);
    CHECK_INT(in.ends_stream, 0);
    /* the whole text again, and lifecycle events: no tokens */
    parse("{\"type\":\"response.output_text.done\",\"item_id\":\"msg_1\",\"text\":\"Hello \\u00e9\"}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.content_len, 0);
    parse("{\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":"
          "\"response\",\"status\":\"in_progress\",\"output\":[],\"usage\":null,\"error\":null}}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.has_usage, 0);
    CHECK_INT(in.has_finish, 0);
    parse("{\"type\":\"response.content_part.added\",\"part\":{\"type\":\"output_text\",\"text\":\"\"}}", &c, &r, &e,
          &in);
    CHECK_INT(in.content_len, 0);
    CHECK_INT(c.len, 8);
    /* reasoning deltas go to reasoning, never to content */
    parse("{\"delta\":\"think\",\"type\":\"response.reasoning_text.delta\"}", &c, &r, &e, &in);
    CHECK_INT(in.cached_tokens, -1); /* no usage: not reported */
    CHECK_INT(in.reasoning_len, 5);
    CHECK_INT(in.content_len, 0);
    parse("{\"type\":\"response.reasoning_summary_text.delta\",\"delta\":\"!\"}", &c, &r, &e, &in);
    CHECK_INT(r.len, 6);
    /* the end: usage from response.usage; its output (the text again) is not content */
    parse("{\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":"
          "\"incomplete\",\"error\":null,\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"output_text\","
          "\"text\":\"Hello\"}]}],\"usage\":{\"input_tokens\":11,\"input_tokens_details\":{\"cached_tokens\":0},"
          "\"output_tokens\":7,\"total_tokens\":18}},\"sequence_number\":9}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.ends_stream, 1);
    CHECK_INT(in.has_finish, 1);
    CHECK_INT(in.has_usage, 1);
    CHECK_INT(in.prompt_tokens, 11);
    CHECK_INT(in.completion_tokens, 7);
    CHECK_INT(in.cached_tokens, 0); /* input_tokens_details.cached_tokens: reported, 0 */
    CHECK_INT(c.len, 8);
    /* failures */
    parse("{\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\","
          "\"message\":\"engine died\"}}}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_ERROR);
    CHECK(e.len == 11 && !memcmp(e.data, "engine died", 11));
    parse("{\"type\":\"error\",\"code\":\"rate_limit\",\"message\":\"slow down\",\"param\":null}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_ERROR);
    CHECK(e.len == 9 && !memcmp(e.data, "slow down", 9));
    parse("{\"error\":{\"message\":\"boom\",\"code\":500}}", &c, &r, &e, &in); /* chat-shaped */
    CHECK_INT(in.kind, GP_EV_ERROR);
    CHECK_INT(in.error_code, 500);
    /* malformed: nothing kept; [DONE] still understood */
    size_t before = c.len;
    parse("{\"type\":\"response.output_text.delta\",\"delta\":\"zz\",", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_BAD);
    CHECK_INT(c.len, before);
    parse("{\"delta\":\"zz\",\"type\":\"response.output_text.delta\"", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_BAD);
    CHECK_INT(c.len, before);
    parse("[DONE]", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_DONE);
    gp_buf_free(&c);
    gp_buf_free(&r);
    gp_buf_free(&e);
}

static void test_body(void)
{
    struct gp_buf c = {0}, r = {0}, e = {0};
    struct gp_event_info in;
    /* a non-streamed response: reasoning item (content parts, else summary),
     * a function call's arguments, message parts (text and refusal: issue
     * 38 items 1 and 2) */
    parse("{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"error\":null,\"output\":["
          "{\"id\":\"rs_1\",\"summary\":[{\"type\":\"summary_text\",\"text\":\"sum\"}],\"type\":\"reasoning\","
          "\"content\":[{\"type\":\"reasoning_text\",\"text\":\"deep\"}]},"
          "{\"type\":\"function_call\",\"arguments\":\"{}\"},"
          "{\"content\":[{\"annotations\":[],\"text\":\"Hi \",\"type\":\"output_text\"},{\"type\":\"refusal\","
          "\"refusal\":\"no\"},{\"type\":\"output_text\",\"text\":\"there\"}],\"role\":\"assistant\",\"type\":"
          "\"message\"}],\"usage\":{\"input_tokens\":4,\"output_tokens\":6}}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.content_len, 12);
    CHECK(c.len == 12 && !memcmp(c.data, "{}Hi nothere", 12));
    CHECK(r.len == 4 && !memcmp(r.data, "deep", 4));
    CHECK_INT(in.has_finish, 1);
    CHECK_INT(in.ends_stream, 0);
    CHECK_INT(in.prompt_tokens, 4);
    CHECK_INT(in.completion_tokens, 6);
    gp_buf_reset(&r);
    parse("{\"object\":\"response\",\"output\":[{\"type\":\"reasoning\",\"summary\":[{\"type\":\"summary_text\","
          "\"text\":\"sum\"}]}]}", &c, &r, &e, &in);
    CHECK(r.len == 3 && !memcmp(r.data, "sum", 3));
    parse("{\"object\":\"response\",\"status\":\"failed\",\"error\":{\"code\":\"x\",\"message\":\"bad\"}}", &c, &r,
          &e, &in);
    CHECK_INT(in.kind, GP_EV_ERROR);
    gp_buf_free(&c);
    gp_buf_free(&r);
    gp_buf_free(&e);
}

#define TEV(type, body) "event: " type "\ndata: {\"type\":\"" type "\"" body "}\n\n"
#define DELTA(t) TEV("response.output_text.delta", ",\"item_id\":\"msg_1\",\"delta\":\"" t "\"")
#define CREATED TEV("response.created", ",\"response\":{\"object\":\"response\",\"status\":\"in_progress\",\"usage\":null}")
#define COMPLETED                                                                                                     \
    TEV("response.completed", ",\"response\":{\"object\":\"response\",\"status\":\"completed\",\"output\":[{\"type\":" \
                              "\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"abcdef\"}]}],\"usage\":" \
                              "{\"input_tokens\":7,\"output_tokens\":6}}")

static void test_requests(void)
{
    struct gp_record_store st;
    ts_store_init(&st);
    uint32_t S = GP_REC_STREAMING;
    /* 0: created and item events first (no tokens: TTFT is the first delta), then the end */
    {
        const char *r[] = {CREATED, TEV("response.output_item.added", ",\"item\":{\"type\":\"message\"}"),
                           DELTA("ab"), DELTA("cd"),
                           DELTA("ef") TEV("response.output_text.done", ",\"text\":\"abcdef\"") COMPLETED};
        uint64_t dt[] = {5, 10, 20, 30, 40};
        ts_add_req(&st, 1000, 200, S, r, dt, 5, NULL);
    }
    /* 1: reasoning first: TTFR at its delta, TTFT at the first text delta */
    {
        const char *r[] = {CREATED, TEV("response.reasoning_text.delta", ",\"delta\":\"hmm\""), DELTA("xy"),
                           COMPLETED};
        uint64_t dt[] = {5, 10, 25, 30};
        ts_add_req(&st, 2000, 200, S, r, dt, 4, NULL);
    }
    /* 2: cut before response.completed: no end of stream */
    {
        const char *r[] = {CREATED, DELTA("ab")};
        uint64_t dt[] = {5, 10};
        ts_add_req(&st, 3000, 200, S, r, dt, 2, NULL);
    }
    /* 3: response.failed mid-stream */
    {
        const char *r[] = {DELTA("ab"), TEV("response.failed", ",\"response\":{\"status\":\"failed\",\"error\":{"
                                                                "\"code\":\"server_error\",\"message\":\"died\"}}")};
        uint64_t dt[] = {5, 10};
        ts_add_req(&st, 4000, 200, S, r, dt, 2, NULL);
    }
    /* 4: non-streamed body */
    {
        const char *r[] = {"{\"object\":\"response\",\"status\":\"completed\",\"output\":[{\"type\":\"message\","
                           "\"content\":[{\"type\":\"output_text\",\"text\":\"hello\"}]}],",
                           "\"usage\":{\"input_tokens\":3,\"output_tokens\":5}}"};
        uint64_t dt[] = {50, 60};
        ts_add_req(&st, 5000, 200, 0, r, dt, 2, NULL);
    }
    struct gp_tokenizer *tok = NULL;
    gp_tokenizer_load("builtin", NULL, &tok, NULL);
    struct gp_metrics_opts o = {.inter_chunk = 1, .responses_api = 1};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, NULL, tok, &o, &m, NULL), 0);
    CHECK_INT(m.n_reqs, 5);
    struct gp_req_metrics *q = m.reqs;
    CHECK_INT(q[0].fail, GP_FAIL_NONE);
    CHECK_INT(q[0].ttft_ns, 20);
    CHECK_INT(q[0].latency_ns, 40);
    CHECK_INT(q[0].osl, 6);
    CHECK_INT(q[0].content_chunks, 3);
    CHECK_INT(q[0].server_prompt_tokens, 7);
    CHECK_INT(q[0].server_completion_tokens, 6);
    CHECK(!(q[0].flags & GP_RQ_NO_DONE));
    CHECK_INT(q[0].bad_events, 0);
    CHECK_INT(q[1].fail, GP_FAIL_NONE);
    CHECK_INT(q[1].ttfr_ns, 10);
    CHECK_INT(q[1].ttft_ns, 25);
    CHECK_INT(q[1].osl, 2);
    CHECK_INT(q[1].reasoning_tokens, 3);
    CHECK(q[2].flags & GP_RQ_NO_DONE);
    CHECK_INT(q[3].fail, GP_FAIL_STREAM_ERROR);
    CHECK(q[3].err_len && strstr(m.text + q[3].err_off, "died"));
    CHECK_INT(q[4].fail, GP_FAIL_NONE);
    CHECK_INT(q[4].osl, 5);
    CHECK_INT(q[4].ttft_ns, 61);
    CHECK_INT(q[4].server_prompt_tokens, 3);
    gp_metrics_result_free(&m);
    /* the same stream read as chat: no content (what --endpoint-type responses fixes) */
    o.responses_api = 0;
    CHECK_INT(gp_metrics_compute(&st, NULL, tok, &o, &m, NULL), 0);
    CHECK(m.reqs[0].osl <= 0);
    gp_metrics_result_free(&m);
    gp_tokenizer_free(tok);
    gp_record_store_free(&st);
}

/* A response.completed whose response failed is a stream error, and a text
 * delta that is no string a malformed event (issue 38 item 6). */
static void test_failed_completed(void)
{
    struct gp_buf c = {0}, r = {0}, e = {0};
    struct gp_event_info in;
    parse("{\"type\":\"response.completed\",\"response\":{\"object\":\"response\",\"status\":\"failed\","
          "\"error\":null,\"usage\":null}}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_ERROR);
    CHECK_STR(e.data, "response.completed with a failed response");
    gp_buf_reset(&e);
    parse("{\"type\":\"response.completed\",\"response\":{\"object\":\"response\",\"status\":\"completed\","
          "\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_ERROR);
    CHECK_STR(e.data, "boom");
    /* a completed, unfailed response stays the end of the stream */
    parse("{\"type\":\"response.completed\",\"response\":{\"object\":\"response\",\"status\":\"completed\","
          "\"error\":null}}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.ends_stream, 1);
    static const char *deltas[] = {"5", "null", "{\"text\":\"x\"}", "[\"x\"]"};
    for (int i = 0; i < 4; i++) {
        char ev[256];
        gp_buf_reset(&c);
        snprintf(ev, sizeof ev, "{\"delta\":%s,\"type\":\"response.output_text.delta\"}", deltas[i]);
        parse(ev, &c, &r, &e, &in);
        CHECK_INT(in.kind, GP_EV_BAD);
        CHECK_INT((int)c.len, 0);
        snprintf(ev, sizeof ev, "{\"type\":\"response.reasoning_text.delta\",\"delta\":%s}", deltas[i]);
        parse(ev, &c, &r, &e, &in);
        CHECK_INT(in.kind, GP_EV_BAD);
    }
    /* a non-text event's delta is not read */
    parse("{\"type\":\"response.audio.delta\",\"delta\":5}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    /* no event of this API */
    parse("{\"status\":\"ok\"}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_FOREIGN);

    struct gp_record_store st;
    ts_store_init(&st);
    const char *rd[] = {CREATED, DELTA("ab"),
                        TEV("response.completed", ",\"response\":{\"object\":\"response\",\"status\":\"failed\"}")};
    uint64_t dt[] = {5, 10, 20};
    ts_add_req(&st, 1000, 200, GP_REC_STREAMING, rd, dt, 3, NULL);
    struct gp_metrics_opts o = {.responses_api = 1};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, NULL, NULL, &o, &m, NULL), 0);
    CHECK_INT(m.reqs[0].fail, GP_FAIL_STREAM_ERROR);
    CHECK(m.reqs[0].err_len && strstr(m.text + m.reqs[0].err_off, "failed response"));
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
    gp_buf_free(&c);
    gp_buf_free(&r);
    gp_buf_free(&e);
}

/* Usage in an event before response.completed is not the request's
 * (issue 38 item 4): a bad count in response.completed reads null and
 * flagged, never the earlier event's 1. */
static void test_last_usage_wins(void)
{
    struct gp_record_store st;
    ts_store_init(&st);
    const char *r[] = {TEV("response.in_progress", ",\"response\":{\"object\":\"response\",\"status\":"
                                                   "\"in_progress\",\"usage\":{\"input_tokens\":7,\"output_tokens\":1}}"),
                       DELTA("ab"),
                       TEV("response.completed", ",\"response\":{\"object\":\"response\",\"status\":\"completed\","
                                                 "\"usage\":{\"input_tokens\":7,\"output_tokens\":1e9}}")};
    uint64_t dt[] = {5, 10, 20};
    ts_add_req(&st, 1000, 200, GP_REC_STREAMING, r, dt, 3, NULL);
    struct gp_metrics_opts o = {.responses_api = 1};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, NULL, NULL, &o, &m, NULL), 0);
    CHECK_INT(m.reqs[0].fail, GP_FAIL_NONE);
    CHECK_INT(m.reqs[0].server_completion_tokens, -1);
    CHECK_INT(m.reqs[0].server_prompt_tokens, 7);
    CHECK(m.reqs[0].flags & GP_RQ_BAD_USAGE);
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

int main(void)
{
    GP_RUN(test_events);
    GP_RUN(test_body);
    GP_RUN(test_requests);
    GP_RUN(test_last_usage_wins);
    GP_RUN(test_failed_completed);
    return gp_test_summary();
}
