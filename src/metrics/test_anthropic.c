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

#include <stdio.h>
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

/* Anthropic's input_tokens leaves out the prompt tokens read from and
 * written to its cache (issue 38 item 3): the server's prompt is the three
 * counts added, and cache reads are the prefix-cache hits, as chat's
 * prompt_tokens_details.cached_tokens, streamed (message_start's usage, then
 * message_delta's, whose cache counts may be null) and not. */
static void test_prompt_cache(void)
{
    struct gp_buf c = {0}, r = {0}, e = {0};
    struct gp_event_info in;
    parse("{\"type\":\"message_start\",\"message\":{\"type\":\"message\",\"content\":[],\"usage\":{"
          "\"input_tokens\":5,\"cache_creation_input_tokens\":20,\"cache_read_input_tokens\":100,"
          "\"cache_creation\":{\"ephemeral_5m_input_tokens\":20,\"ephemeral_1h_input_tokens\":0},\"output_tokens\":1}}}",
          &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.prompt_tokens, 5); /* as sent: the sum is the request's, once every report is in */
    CHECK_INT(in.cached_tokens, 100);
    CHECK_INT(in.cache_write_tokens, 20);
    CHECK_INT((int)in.bad_usage, 0);
    gp_buf_free(&c);
    gp_buf_free(&r);
    gp_buf_free(&e);

#define START_CACHE(rd, wr)                                                                                     \
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"type\":\"message\",\"content\":[]," \
    "\"usage\":{\"input_tokens\":5,\"cache_creation_input_tokens\":" wr ",\"cache_read_input_tokens\":" rd ","     \
    "\"output_tokens\":1}}}\n\n"
#define END_NULLS                                                                                            \
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"    \
    "\"usage\":{\"input_tokens\":null,\"cache_creation_input_tokens\":null,\"cache_read_input_tokens\":null,"  \
    "\"output_tokens\":2}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
    struct gp_record_store st;
    ts_store_init(&st);
    uint32_t S = GP_REC_STREAMING;
    uint64_t dt[] = {10, 20};
    { /* 0: 100 read, 20 written, 5 uncached: prompt 125, cached 100 */
        const char *rd[] = {START_CACHE("100", "20") BLOCK(1, "text") TEXT("ab"), STOP(1) END_NULLS};
        ts_add_req(&st, 1000, 200, S, rd, dt, 2, NULL);
    }
    { /* 1: a cache miss that writes the prompt: 0 read of 25 */
        const char *rd[] = {START_CACHE("0", "20") BLOCK(1, "text") TEXT("ab"), STOP(1) END_NULLS};
        ts_add_req(&st, 2000, 200, S, rd, dt, 2, NULL);
    }
    { /* 2: non-streamed, 15 read of 20 */
        const char *rd[] = {"{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],"
                            "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":5,\"cache_read_input_tokens\":15,"
                            "\"cache_creation_input_tokens\":0,\"output_tokens\":1}}"};
        ts_add_req(&st, 3000, 200, 0, rd, dt, 1, NULL);
    }
    { /* 3: a cache count that is no count: the prompt is unknown, flagged */
        const char *rd[] = {START_CACHE("1.5", "0") BLOCK(1, "text") TEXT("ab"), STOP(1) END_NULLS};
        ts_add_req(&st, 4000, 200, S, rd, dt, 2, NULL);
    }
    { /* 4: no prompt caching in use: input_tokens alone, no cache figure */
        const char *rd[] = {START BLOCK(1, "text") TEXT("ab"), STOP(1) END};
        ts_add_req(&st, 5000, 200, S, rd, dt, 2, NULL);
    }
#undef START_CACHE
#undef END_NULLS
    struct gp_metrics_opts o = {.anthropic = 1};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, NULL, NULL, &o, &m, NULL), 0);
    CHECK_INT(m.n_ok, 5);
    CHECK_INT(m.reqs[0].server_prompt_tokens, 125);
    CHECK_INT(m.reqs[0].server_cached_tokens, 100);
    CHECK_INT(m.reqs[0].server_completion_tokens, 2);
    CHECK_INT(m.reqs[1].server_prompt_tokens, 25);
    CHECK_INT(m.reqs[1].server_cached_tokens, 0);
    CHECK_INT(m.reqs[2].server_prompt_tokens, 20);
    CHECK_INT(m.reqs[2].server_cached_tokens, 15);
    CHECK_INT(m.reqs[3].server_prompt_tokens, -1);
    CHECK_INT(m.reqs[3].server_cached_tokens, -1);
    CHECK(m.reqs[3].flags & GP_RQ_BAD_USAGE);
    CHECK_INT(m.reqs[4].server_prompt_tokens, 9);
    CHECK_INT(m.reqs[4].server_cached_tokens, -1);
    /* the prefix_cache block's usage figures: 115 hits of 170 prompt tokens */
    CHECK_INT(m.n_with_cached, 3);
    CHECK(m.cached_tokens_sum == 115.0 && m.cached_prompt_sum == 170.0);
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

/* A delta whose text is no string, or that is no object, is a malformed
 * event; an object with no Anthropic "type" is no event (issue 38 item 6). */
static void test_not_an_event(void)
{
    struct gp_buf c = {0}, r = {0}, e = {0};
    struct gp_event_info in;
    static const char *bad[] = {
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":5}}",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":null}}",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":[]}}",
        "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":\"hi\"}",
    };
    for (int i = 0; i < 4; i++) {
        parse(bad[i], &c, &r, &e, &in);
        CHECK_INT(in.kind, GP_EV_BAD);
        CHECK_INT((int)(c.len + r.len), 0);
    }
    parse("{}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_FOREIGN);
    parse("{\"status\":\"ok\"}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_FOREIGN);
    parse("{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}", &c, &r, &e, &in);
    CHECK_INT(in.kind, GP_EV_FOREIGN);
    gp_buf_free(&c);
    gp_buf_free(&r);
    gp_buf_free(&e);

    struct gp_record_store st;
    ts_store_init(&st);
    const char *rd[] = {"{\"status\":\"ok\"}"};
    uint64_t dt[] = {10};
    ts_add_req(&st, 1000, 200, 0, rd, dt, 1, NULL);
    struct gp_metrics_opts o = {.anthropic = 1};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, NULL, NULL, &o, &m, NULL), 0);
    CHECK_INT(m.reqs[0].fail, GP_FAIL_NO_CONTENT);
    static const char want[] = "no_content: 200 with a JSON object that is no Anthropic message (keys: status)";
    CHECK(m.reqs[0].err_len == sizeof want - 1 && !memcmp(m.text + m.reqs[0].err_off, want, sizeof want - 1));
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

/* message_start's usage says output_tokens 1; message_delta's is the final
 * word (issue 38 item 4): a count there replaces it, and a count that is no
 * count makes it unknown and flagged, never the stale 1. */
static void test_last_usage_wins(void)
{
#define DELTA_USAGE(ct)                                                                                  \
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}," \
    "\"usage\":{\"output_tokens\":" ct "}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
#define START1                                                                                                  \
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"type\":\"message\",\"content\":[]," \
    "\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n"
    struct gp_record_store st;
    ts_store_init(&st);
    uint32_t S = GP_REC_STREAMING;
    const char *finals[] = {"4294967296", "2.5", "-1", "6"};
    for (int i = 0; i < 4; i++) {
        const char *r[] = {START1 BLOCK(1, "text") TEXT("ab"), STOP(1), NULL};
        char last[512];
        snprintf(last, sizeof last, DELTA_USAGE("%s"), finals[i]);
        r[2] = last;
        uint64_t dt[] = {10, 20, 30};
        ts_add_req(&st, 1000 + 1000 * (uint64_t)i, 200, S, r, dt, 3, NULL);
    }
#undef DELTA_USAGE
#undef START1
    struct gp_metrics_opts o = {.anthropic = 1};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, NULL, NULL, &o, &m, NULL), 0);
    for (int i = 0; i < 3; i++) {
        CHECK_INT(m.reqs[i].fail, GP_FAIL_NONE);
        CHECK_INT(m.reqs[i].server_completion_tokens, -1);
        CHECK_INT(m.reqs[i].server_prompt_tokens, 9);
        CHECK(m.reqs[i].flags & GP_RQ_BAD_USAGE);
    }
    CHECK_INT(m.reqs[3].server_completion_tokens, 6);
    CHECK(!(m.reqs[3].flags & GP_RQ_BAD_USAGE));
    CHECK_INT(m.n_bad_usage, 3);
    gp_metrics_result_free(&m);
    gp_record_store_free(&st);
}

int main(void)
{
    GP_RUN(test_events);
    GP_RUN(test_requests);
    GP_RUN(test_last_usage_wins);
    GP_RUN(test_prompt_cache);
    GP_RUN(test_not_an_event);
    return gp_test_summary();
}
