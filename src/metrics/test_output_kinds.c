/* metrics/test_output_kinds.c — what the model writes is output on every API
 * (issue 38 items 1 and 2): a tool call's arguments (Anthropic
 * input_json_delta / tool_use.input, Responses
 * function_call_arguments.delta / function_call.arguments, as chat's
 * tool_calls already were) and a refusal (chat delta.refusal /
 * message.refusal, Responses response.refusal.delta / refusal parts) are
 * content: the first fragment is the first token, the text is OSL, latency
 * runs to the last fragment. Event shapes as openai-node 7.60.0 and
 * @anthropic-ai/sdk 1.17.0 type them. Each parser's events one by one, then
 * whole requests (tool-only, mixed, refusal-only; streamed and not) through
 * gp_metrics_compute. */
#include "client/record.h"
#include "core/buf.h"
#include "core/test.h"
#include "metrics/metrics.h"
#include "metrics/sse.h"
#include "metrics/test_support.h"
#include "tokenizer/tokenizer.h"

#include <string.h>

enum api { CHAT, ANTH, RESP };

/* One event or body through api's parser into c (reset first). */
static void parse(enum api a, const char *json, struct gp_buf *c, struct gp_buf *r, struct gp_event_info *in)
{
    gp_buf_reset(c);
    gp_buf_reset(r);
    if (a == ANTH)
        gp_event_parse_anthropic(json, strlen(json), c, r, NULL, in);
    else if (a == RESP)
        gp_responses_event_parse(json, strlen(json), c, r, NULL, in);
    else
        gp_event_parse(json, strlen(json), c, r, NULL, in);
}

static void test_chat_refusal(void)
{
    struct gp_buf c = {0}, r = {0};
    struct gp_event_info in;
    parse(CHAT, "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"refusal\":\"I can\"},"
                "\"finish_reason\":null}]}", &c, &r, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT((int)in.content_len, 5);
    CHECK_STR(c.data, "I can");
    parse(CHAT, "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,"
                "\"refusal\":\"No \\u00e9\"},\"finish_reason\":\"stop\"}]}", &c, &r, &in);
    CHECK_INT((int)in.content_len, 5);
    CHECK_STR(c.data, "No \xc3\xa9");
    CHECK_INT(in.has_finish, 1);
    parse(CHAT, "{\"choices\":[{\"delta\":{\"refusal\":null},\"finish_reason\":\"stop\"}]}", &c, &r, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT((int)in.content_len, 0);

    /* the template: a refusal fragment serves the next one of the same
     * shape; an event with content and a refusal is read in full (both
     * strings), never served as one of them */
    struct gp_event_tmpl t = {0};
    const char *f1 = "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I \"},\"finish_reason\":null}]}";
    const char *f2 = "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"won't\"},\"finish_reason\":null}]}";
    const char *both = "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\",\"refusal\":\"I \"},"
                       "\"finish_reason\":null}]}";
    const char *both2 = "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\",\"refusal\":\"I \"},"
                        "\"finish_reason\":null}]}";
    gp_buf_reset(&c);
    gp_event_parse_tmpl(f1, strlen(f1), &c, &r, NULL, &t, &in);
    gp_event_parse_tmpl(f2, strlen(f2), &c, &r, NULL, &t, &in);
    CHECK_INT((long)t.hits, 1);
    CHECK_INT((int)in.content_len, 5);
    CHECK_STR(c.data, "I won't");
    gp_buf_reset(&c);
    gp_event_parse_tmpl(both, strlen(both), &c, &r, NULL, &t, &in);
    gp_event_parse_tmpl(both2, strlen(both2), &c, &r, NULL, &t, &in);
    CHECK_INT((long)t.hits, 1);
    CHECK_INT((int)in.content_len, 3);
    CHECK_STR(c.data, "aI bI ");
    gp_event_tmpl_free(&t);
    gp_buf_free(&c);
    gp_buf_free(&r);
}

static void test_anthropic_tool_events(void)
{
    struct gp_buf c = {0}, r = {0};
    struct gp_event_info in;
    /* the block's start: "input": {} comes before the deltas, no text */
    parse(ANTH, "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\","
                "\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{}}}", &c, &r, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT((int)in.content_len, 0);
    parse(ANTH, "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\","
                "\"partial_json\":\"{\\\"city\\\": \\\"Par\"}}", &c, &r, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT((int)in.content_len, 13);
    CHECK_STR(c.data, "{\"city\": \"Par");
    CHECK_INT((int)in.reasoning_len, 0);
    parse(ANTH, "{\"delta\":{\"partial_json\":\"\",\"type\":\"input_json_delta\"},\"index\":1,"
                "\"type\":\"content_block_delta\"}", &c, &r, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT((int)in.content_len, 0);
    /* not streamed: the input's raw JSON bytes, "type" before or after it */
    parse(ANTH, "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
                "\"text\":\"Let me check. \"},{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\","
                "\"input\": {\"city\":\"Paris\",\"days\":[1,2]} },{\"input\":{\"q\":\"x\"},\"name\":\"web_search\","
                "\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\"}],\"stop_reason\":\"tool_use\","
                "\"usage\":{\"input_tokens\":5,\"output_tokens\":20}}", &c, &r, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_STR(c.data, "Let me check. {\"city\":\"Paris\",\"days\":[1,2]}{\"q\":\"x\"}");
    CHECK_INT((int)in.content_len, (int)c.len);
    CHECK_INT(in.has_finish, 1);
    /* a tool-only body; a null input is no text; an input in a block of
     * another type (a tool's result) is not the model's */
    parse(ANTH, "{\"type\":\"message\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":"
                "{\"a\":1}},{\"type\":\"tool_use\",\"id\":\"u\",\"name\":\"g\",\"input\":null},{\"type\":"
                "\"web_search_tool_result\",\"input\":{\"no\":1}}],\"stop_reason\":\"tool_use\"}", &c, &r, &in);
    CHECK_STR(c.data, "{\"a\":1}");
    /* a malformed body keeps nothing */
    parse(ANTH, "{\"type\":\"message\",\"content\":[{\"type\":\"tool_use\",\"input\":{\"a\":1}}", &c, &r, &in);
    CHECK_INT(in.kind, GP_EV_BAD);
    CHECK_INT((int)c.len, 0);
    /* without a content buffer nothing is counted (and nothing crashes) */
    const char *body = "{\"type\":\"message\",\"content\":[{\"type\":\"tool_use\",\"input\":{\"a\":1}}]}";
    gp_event_parse_anthropic(body, strlen(body), NULL, NULL, NULL, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT((int)in.content_len, 0);
    gp_buf_free(&c);
    gp_buf_free(&r);
}

static void test_responses_tool_events(void)
{
    struct gp_buf c = {0}, r = {0};
    struct gp_event_info in;
    parse(RESP, "{\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"function_call\","
                "\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"\"}}", &c, &r, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT((int)in.content_len, 0);
    parse(RESP, "{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":0,"
                "\"delta\":\"{\\\"city\\\"\",\"sequence_number\":3}", &c, &r, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT((int)in.content_len, 7);
    CHECK_STR(c.data, "{\"city\"");
    CHECK_INT(in.n_choices, 1);
    /* "delta" before "type" (an alphabetical dump) */
    parse(RESP, "{\"delta\":\": 1}\",\"item_id\":\"fc_1\",\"output_index\":0,\"sequence_number\":4,"
                "\"type\":\"response.function_call_arguments.delta\"}", &c, &r, &in);
    CHECK_INT((int)in.content_len, 4);
    parse(RESP, "{\"type\":\"response.custom_tool_call_input.delta\",\"item_id\":\"ctc_1\",\"output_index\":0,"
                "\"delta\":\"ls -l\"}", &c, &r, &in);
    CHECK_STR(c.data, "ls -l");
    parse(RESP, "{\"type\":\"response.refusal.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,"
                "\"delta\":\"I can't\"}", &c, &r, &in);
    CHECK_INT((int)in.content_len, 7);
    CHECK_INT((int)r.len, 0);
    /* the .done events repeat the whole text: no tokens */
    parse(RESP, "{\"type\":\"response.function_call_arguments.done\",\"item_id\":\"fc_1\",\"output_index\":0,"
                "\"arguments\":\"{\\\"city\\\": 1}\"}", &c, &r, &in);
    CHECK_INT((int)in.content_len, 0);
    parse(RESP, "{\"type\":\"response.refusal.done\",\"item_id\":\"msg_1\",\"refusal\":\"I can't\"}", &c, &r, &in);
    CHECK_INT((int)in.content_len, 0);
    parse(RESP, "{\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\",\"arguments\":\"{}\"}}",
          &c, &r, &in);
    CHECK_INT((int)in.content_len, 0);
    /* not streamed: function_call arguments, custom_tool_call input, a
     * message's output_text and refusal parts, in order */
    parse(RESP, "{\"object\":\"response\",\"status\":\"completed\",\"output\":[{\"type\":\"message\",\"content\":["
                "{\"type\":\"output_text\",\"text\":\"ok \"},{\"type\":\"refusal\",\"refusal\":\"no \"}]},"
                "{\"arguments\":\"{\\\"a\\\":1}\",\"call_id\":\"c\",\"name\":\"f\",\"type\":\"function_call\"},"
                "{\"type\":\"custom_tool_call\",\"call_id\":\"d\",\"name\":\"sh\",\"input\":\"pwd\"},"
                "{\"type\":\"web_search_call\",\"id\":\"ws\",\"status\":\"completed\"}],"
                "\"usage\":{\"input_tokens\":3,\"output_tokens\":9}}", &c, &r, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_STR(c.data, "ok no {\"a\":1}pwd");
    CHECK_INT((int)in.content_len, (int)c.len);
    CHECK_INT(in.has_finish, 1);
    /* a refusal-only body */
    parse(RESP, "{\"object\":\"response\",\"status\":\"completed\",\"output\":[{\"type\":\"message\",\"role\":"
                "\"assistant\",\"content\":[{\"type\":\"refusal\",\"refusal\":\"Sorry\"}]}]}", &c, &r, &in);
    CHECK_STR(c.data, "Sorry");
    gp_buf_free(&c);
    gp_buf_free(&r);
}

/* ---- whole requests ---------------------------------------------------- */

#define A_START                                                                                          \
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":"   \
    "\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":9,"  \
    "\"output_tokens\":1}}}\n\n"
#define A_TEXT_BLOCK(s)                                                                                    \
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":" \
    "{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":"                 \
    "\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" s "\"}}\n\n"      \
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
#define A_TOOL_START                                                                                        \
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":"   \
    "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{}}}\n\n"
#define A_JSON(s)                                                                                        \
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":" \
    "\"input_json_delta\",\"partial_json\":\"" s "\"}}\n\n"
#define A_END                                                                                                   \
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\nevent: message_delta\n" \
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},"      \
    "\"usage\":{\"output_tokens\":12}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

#define R_EV(type, rest) "event: " type "\ndata: {\"type\":\"" type "\"" rest "}\n\n"
#define R_CREATED R_EV("response.created", ",\"response\":{\"object\":\"response\",\"status\":\"in_progress\"}")
#define R_TEXT(s) R_EV("response.output_text.delta", ",\"item_id\":\"msg_1\",\"delta\":\"" s "\"")
#define R_CALL_ADDED                                                                                    \
    R_EV("response.output_item.added", ",\"output_index\":1,\"item\":{\"type\":\"function_call\","     \
                                       "\"id\":\"fc_1\",\"call_id\":\"call_1\",\"name\":\"f\",\"arguments\":\"\"}")
#define R_ARGS(s) R_EV("response.function_call_arguments.delta", ",\"item_id\":\"fc_1\",\"delta\":\"" s "\"")
#define R_REFUSAL(s) R_EV("response.refusal.delta", ",\"item_id\":\"msg_1\",\"delta\":\"" s "\"")
#define R_DONE                                                                                                 \
    R_EV("response.function_call_arguments.done", ",\"item_id\":\"fc_1\",\"arguments\":\"{\\\"a\\\": 1}\"")  \
    R_EV("response.completed", ",\"response\":{\"object\":\"response\",\"status\":\"completed\",\"output\":[{" \
                               "\"type\":\"function_call\",\"arguments\":\"{\\\"a\\\": 1}\"}],\"usage\":{"     \
                               "\"input_tokens\":7,\"output_tokens\":8}}")

#define C_REFUSAL(s) "data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"" s "\"},\"finish_reason\":null}]}\n\n"
#define C_END "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

/* Requests of one API, each ok with its content from dt[first] to
 * dt[last] and its text's bytes as OSL (the builtin tokenizer: a token a
 * byte). */
struct want {
    int64_t ttft, latency;
    int32_t osl;
    uint32_t chunks;
};

static void check_reqs(struct gp_record_store *st, int anthropic, int responses, const struct want *w, size_t n)
{
    struct gp_tokenizer *tok = NULL;
    gp_tokenizer_load("builtin", NULL, &tok, NULL);
    struct gp_metrics_opts o = {.inter_chunk = 1, .anthropic = anthropic, .responses_api = responses};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(st, NULL, tok, &o, &m, NULL), 0);
    CHECK_INT((int)m.n_reqs, (int)n);
    CHECK_INT((int)m.n_ok, (int)n);
    CHECK_INT((int)m.n_no_content, 0); /* not "ok without content": every one is in request_count */
    for (size_t i = 0; i < n && i < m.n_reqs; i++) {
        const struct gp_req_metrics *q = &m.reqs[i];
        CHECK_INT(q->fail, GP_FAIL_NONE);
        CHECK_INT(q->ttft_ns, w[i].ttft);
        CHECK_INT(q->latency_ns, w[i].latency);
        CHECK_INT(q->osl, w[i].osl);
        CHECK_INT((int)q->content_chunks, (int)w[i].chunks);
    }
    gp_metrics_result_free(&m);
    gp_tokenizer_free(tok);
}

static void test_anthropic_tool_requests(void)
{
    struct gp_record_store st;
    ts_store_init(&st);
    const uint32_t S = GP_REC_STREAMING;
    { /* tool-only: the block's start (10) is no token, the first fragment (20) is */
        const char *r[] = {A_START A_TOOL_START, A_JSON("{\\\"a\\\""), A_JSON(": 1}"), A_END};
        const uint64_t dt[] = {10, 20, 30, 40};
        ts_add_req(&st, 1000, 200, S, r, dt, 4, NULL);
    }
    { /* mixed: text first (10), then the call; latency to its last fragment (30) */
        const char *r[] = {A_START A_TEXT_BLOCK("Hi "), A_TOOL_START A_JSON("{\\\"a\\\""), A_JSON(": 1}"), A_END};
        const uint64_t dt[] = {10, 20, 30, 40};
        ts_add_req(&st, 2000, 200, S, r, dt, 4, NULL);
    }
    { /* not streamed, tool-only: the input's bytes at the body's end (50 + 1) */
        const char *r[] = {"{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
                           "\"tool_use\",\"id\":\"toolu_2\",\"name\":\"f\",\"input\":{\"a\": 1}}],\"stop_reason\":"
                           "\"tool_use\",\"usage\":{\"input_tokens\":4,\"output_tokens\":8}}"};
        const uint64_t dt[] = {50};
        ts_add_req(&st, 3000, 200, 0, r, dt, 1, NULL);
    }
    const struct want w[] = {{20, 30, 8, 2}, {10, 30, 11, 3}, {51, 51, 8, 1}};
    check_reqs(&st, 1, 0, w, 3);
    gp_record_store_free(&st);
}

static void test_responses_tool_requests(void)
{
    struct gp_record_store st;
    ts_store_init(&st);
    const uint32_t S = GP_REC_STREAMING;
    { /* tool-only */
        const char *r[] = {R_CREATED R_CALL_ADDED, R_ARGS("{\\\"a\\\""), R_ARGS(": 1}"), R_DONE};
        const uint64_t dt[] = {10, 20, 30, 40};
        ts_add_req(&st, 1000, 200, S, r, dt, 4, NULL);
    }
    { /* mixed: text, then the call */
        const char *r[] = {R_CREATED R_TEXT("Hi "), R_CALL_ADDED R_ARGS("{\\\"a\\\""), R_ARGS(": 1}"), R_DONE};
        const uint64_t dt[] = {10, 20, 30, 40};
        ts_add_req(&st, 2000, 200, S, r, dt, 4, NULL);
    }
    { /* refusal-only */
        const char *r[] = {R_CREATED, R_REFUSAL("I can"), R_REFUSAL("not."),
                           R_EV("response.completed", ",\"response\":{\"object\":\"response\",\"status\":"
                                                      "\"completed\"}")};
        const uint64_t dt[] = {10, 20, 30, 40};
        ts_add_req(&st, 3000, 200, S, r, dt, 4, NULL);
    }
    { /* not streamed, tool-only */
        const char *r[] = {"{\"object\":\"response\",\"status\":\"completed\",\"output\":[{\"type\":\"function_call\","
                           "\"call_id\":\"c\",\"name\":\"f\",\"arguments\":\"{\\\"a\\\": 1}\"}]}"};
        const uint64_t dt[] = {50};
        ts_add_req(&st, 4000, 200, 0, r, dt, 1, NULL);
    }
    const struct want w[] = {{20, 30, 8, 2}, {10, 30, 11, 3}, {20, 30, 9, 2}, {51, 51, 8, 1}};
    check_reqs(&st, 0, 1, w, 4);
    gp_record_store_free(&st);
}

static void test_chat_refusal_requests(void)
{
    struct gp_record_store st;
    ts_store_init(&st);
    { /* streamed, refusal-only */
        const char *r[] = {C_REFUSAL("I can"), C_REFUSAL("not."), C_END};
        const uint64_t dt[] = {10, 20, 30};
        ts_add_req(&st, 1000, 200, GP_REC_STREAMING, r, dt, 3, NULL);
    }
    { /* not streamed */
        const char *r[] = {"{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
                           "\"assistant\",\"content\":null,\"refusal\":\"No.\"},\"finish_reason\":\"stop\"}]}"};
        const uint64_t dt[] = {50};
        ts_add_req(&st, 2000, 200, 0, r, dt, 1, NULL);
    }
    const struct want w[] = {{10, 20, 9, 2}, {51, 51, 3, 1}};
    check_reqs(&st, 0, 0, w, 2);
    gp_record_store_free(&st);
}

int main(void)
{
    GP_RUN(test_chat_refusal);
    GP_RUN(test_anthropic_tool_events);
    GP_RUN(test_responses_tool_events);
    GP_RUN(test_anthropic_tool_requests);
    GP_RUN(test_responses_tool_requests);
    GP_RUN(test_chat_refusal_requests);
    return gp_test_summary();
}
