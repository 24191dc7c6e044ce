/* metrics/test_anthropic.c — Anthropic Messages API events and bodies
 * (gp_event_parse_anthropic) and whole Anthropic requests through
 * gp_metrics_compute with opts.anthropic: text deltas are content (OSL,
 * TTFT), thinking deltas reasoning (TTFR), message_delta's usage the server
 * count, message_stop the end of the stream, error events stream errors. */
#include "client/record.h"
#include "core/buf.h"
#include "core/test.h"
#include "metrics/metrics.h"
#include "metrics/sse.h"
#include "metrics/test_support.h"
#include "tokenizer/tokenizer.h"

#include <string.h>

static void parse(const char *json, struct gp_buf *c, struct gp_buf *r, struct gp_buf *e, struct gp_event_info *in)
{
    gp_buf_reset(c);
    gp_buf_reset(r);
    gp_event_parse_anthropic(json, strlen(json), c, r, e, in);
}

static void test_events(void)
{
    struct gp_buf c = {0}, r = {0}, e = {0};
    struct gp_event_info in;
    parse("{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
          "\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}",
          &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.has_usage, 1);
    CHECK_INT(in.prompt_tokens, 25);
    CHECK_INT(in.completion_tokens, 1);
    CHECK_INT(in.cached_tokens, -1); /* not reported: 0 would read as a 0 % prefix-cache hit rate */
    CHECK_INT(in.has_finish, 0);
    CHECK_INT((int)c.len, 0);

    parse("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi \\u00e9\"}}",
          &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT((int)in.content_len, 5);
    CHECK_STR(c.data, "Hi \xc3\xa9");
    CHECK_INT((int)r.len, 0);

    parse("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm\"}}",
          &c, &r, &e, &in);
    CHECK_INT((int)in.reasoning_len, 3);
    CHECK_INT((int)in.content_len, 0);
    CHECK_STR(r.data, "hmm");

    /* a signature delta carries no text; a tool-input delta is content
     * (issue 38 item 1; test_output_kinds.c has the rest) */
    parse("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"x\"}}",
          &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT((int)(in.content_len + in.reasoning_len), 0);
    parse("{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}",
          &c, &r, &e, &in);
    CHECK_INT((int)in.content_len, 1);
    CHECK_INT((int)in.reasoning_len, 0);

    parse("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
          "\"usage\":{\"output_tokens\":15}}",
          &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.has_finish, 1);
    CHECK_INT(in.completion_tokens, 15);
    CHECK_INT(in.prompt_tokens, -1);

    parse("{\"type\":\"message_stop\"}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_DONE);
    parse("{\"type\": \"ping\"}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);

    parse("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_ERROR);
    CHECK_STR(e.data, "Overloaded");

    /* non-streamed body: thinking and text blocks, usage, stop_reason */
    parse("{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":["
          "{\"type\":\"thinking\",\"thinking\":\"let me\",\"signature\":\"s\"},{\"type\":\"text\",\"text\":\"Hello\"}],"
          "\"stop_reason\":\"max_tokens\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":7}}",
          &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_STR(c.data, "Hello");
    CHECK_STR(r.data, "let me");
    CHECK_INT(in.prompt_tokens, 3);
    CHECK_INT(in.completion_tokens, 7);
    CHECK_INT(in.has_finish, 1);

    /* malformed: nothing kept */
    parse("{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"cut", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_BAD);
    CHECK_INT((int)c.len, 0);
    parse("{\"type\":\"message_stop\"} trailing", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_BAD);
    parse("[1,2]", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_BAD);
    /* an OpenAI chunk is no Anthropic event: no content read from it */
    parse("{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}", &c, &r, &e, &in);
    CHECK_INT((int)c.len, 0);
    gp_buf_free(&c);
    gp_buf_free(&r);
    gp_buf_free(&e);
}

#define START                                                                                                   \
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\"," \
    "\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":9,\"output_tokens\":0}}}\n\n" \
    "event: ping\ndata: {\"type\": \"ping\"}\n\n"
#define BLOCK(i, t)                                                                                 \
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":" #i            \
    ",\"content_block\":{\"type\":\"" t "\",\"" t "\":\"\"}}\n\n"
#define TEXT(s) \
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"" s "\"}}\n\n"
#define THINK(s) \
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"" s "\"}}\n\n"
#define STOP(i) "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":" #i "}\n\n"
#define END                                                                                               \
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"," \
    "\"stop_sequence\":null},\"usage\":{\"output_tokens\":6}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

static void test_requests(void)
{
    struct gp_record_store st;
    ts_store_init(&st);
    uint32_t S = GP_REC_STREAMING;
    { /* 0: thinking then text; TTFT at the first text delta (t0 + 300) */
        const char *r[] = {START, BLOCK(0, "thinking") THINK("hm"), STOP(0) BLOCK(1, "text") TEXT("ab"), TEXT("cd"),
                           STOP(1) END};
        uint64_t dt[] = {100, 200, 300, 400, 500};
        ts_add_req(&st, 1000, 200, S, r, dt, 5, NULL);
    }
    { /* 1: an in-stream error event after one token */
        const char *r[] = {START BLOCK(1, "text") TEXT("a"),
                           "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                           "\"message\":\"Overloaded\"}}\n\n"};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 3000, 200, S, r, dt, 2, NULL);
    }
    { /* 2: non-streamed body */
        const char *r[] = {"{\"id\":\"msg_3\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":"
                           "[{\"type\":\"text\",\"text\":\"hello\"}],\"stop_reason\":\"end_turn\","
                           "\"usage\":{\"input_tokens\":4,\"output_tokens\":5}}"};
        uint64_t dt[] = {50};
        ts_add_req(&st, 5000, 200, 0, r, dt, 1, NULL);
    }
    { /* 3: the connection ends before message_stop, inside an event */
        const char *r[] = {START BLOCK(1, "text") TEXT("xy"), "event: content_block_delta\ndata: {\"type\":\"con"};
        uint64_t dt[] = {10, 20};
        ts_add_req(&st, 7000, 200, S, r, dt, 2, NULL);
    }
    struct gp_tokenizer *tok = NULL;
    gp_tokenizer_load("builtin", NULL, &tok, NULL);
    struct gp_metrics_opts o = {.inter_chunk = 1, .anthropic = 1};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, NULL, tok, &o, &m, NULL), 0);
    CHECK_INT((int)m.n_reqs, 4);
    const struct gp_req_metrics *q = &m.reqs[0];
    CHECK_INT(q->fail, GP_FAIL_NONE);
    CHECK_INT((int)q->ttft_ns, 300);
    CHECK_INT((int)q->ttfr_ns, 200);
    CHECK_INT(q->osl, 4);
    CHECK_INT(q->reasoning_tokens, 2);
    CHECK_INT(q->server_prompt_tokens, 9);
    CHECK_INT(q->server_completion_tokens, 6);
    CHECK_INT(q->server_cached_tokens, -1);
    CHECK_INT((int)q->content_chunks, 2);
    CHECK_INT((int)(q->flags & GP_RQ_NO_DONE), 0);
    CHECK_INT((int)q->bad_events, 0);
    CHECK_INT(m.reqs[1].fail, GP_FAIL_STREAM_ERROR);
    CHECK_INT(m.reqs[2].fail, GP_FAIL_NONE);
    CHECK_INT(m.reqs[2].osl, 5);
    CHECK_INT(m.reqs[2].server_completion_tokens, 5);
    CHECK_INT((int)m.reqs[2].ttft_ns, 51); /* a body counts at transfer end (t_end = last read + 1) */
    CHECK_INT(m.reqs[3].fail, GP_FAIL_TRUNCATED);
    CHECK(m.reqs[3].flags & GP_RQ_NO_DONE);
    gp_metrics_result_free(&m);

    /* the same records read as OpenAI chunks carry no content at all: the
     * flag is what makes them readable */
    struct gp_metrics_opts oa = {.inter_chunk = 1};
    CHECK_INT(gp_metrics_compute(&st, NULL, tok, &oa, &m, NULL), 0);
    CHECK(m.reqs[0].osl <= 0);
    gp_metrics_result_free(&m);
    gp_tokenizer_free(tok);
    gp_record_store_free(&st);
}

int main(void)
{
    GP_RUN(test_events);
    GP_RUN(test_requests);
    return gp_test_summary();
}
