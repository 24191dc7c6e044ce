/* metrics/test_tools.c — tool calling (issue 31 item 3): delta.tool_calls /
 * message.tool_calls arguments are output text (OSL) and their first
 * fragment the first token, with and without the event template. */
#include "client/record.h"
#include "core/buf.h"
#include "core/test.h"
#include "metrics/metrics.h"
#include "metrics/metrics_int.h"
#include "metrics/sse.h"
#include "metrics/test_support.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <string.h>

static void test_event_tool_calls(void)
{
    struct gp_event_info in;
    struct gp_buf content = {0};
    /* the first delta names the function; its arguments are empty */
    const char *head = "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,"
                       "\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
                       "\"arguments\":\"\"}}]}}]}";
    gp_event_parse(head, strlen(head), &content, NULL, NULL, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.content_len, 0);
    const char *frag = "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                       "{\"arguments\":\"{\\\"city\\\": \"}}]}}]}";
    gp_event_parse(frag, strlen(frag), &content, NULL, NULL, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.content_len, 9);
    CHECK_STR(content.data, "{\"city\": ");
    /* non-streamed: message.tool_calls, two calls, both arguments kept */
    const char *body = "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                       "\"content\":null,\"tool_calls\":[{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":"
                       "\"f\",\"arguments\":\"{}\"}},{\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"g\","
                       "\"arguments\":\"[1]\"}}]},\"finish_reason\":\"tool_calls\"}]}";
    gp_buf_reset(&content);
    gp_event_parse(body, strlen(body), &content, NULL, NULL, &in);
    CHECK_INT(in.kind, GP_EV_CHUNK);
    CHECK_INT(in.has_finish, 1);
    CHECK_STR(content.data, "{}[1]");
    /* malformed tool_calls: the event is dropped, nothing kept */
    gp_buf_reset(&content);
    const char *bad = "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"x\"}} 5]}}]}";
    gp_event_parse(bad, strlen(bad), &content, NULL, NULL, &in);
    CHECK_INT(in.kind, GP_EV_BAD);
    CHECK_INT((long)content.len, 0);
    /* the template: a second fragment with other text reads the same */
    struct gp_event_tmpl t = {0};
    gp_buf_reset(&content);
    gp_event_parse_tmpl(frag, strlen(frag), &content, NULL, NULL, &t, &in);
    const char *frag2 = "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                        "{\"arguments\":\"\\\"Paris\\\"}\"}}]}}]}";
    gp_event_parse_tmpl(frag2, strlen(frag2), &content, NULL, NULL, &t, &in);
    CHECK_INT(in.content_len, 8);
    CHECK_STR(content.data, "{\"city\": \"Paris\"}");
    CHECK_INT((long)t.hits, 1);
    gp_event_tmpl_free(&t);
    gp_buf_free(&content);
}

#define TC_HEAD "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0," \
                "\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}}]}\n\n"
#define TC_ARG(a) "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":" \
                  "{\"arguments\":\"" a "\"}}]}}]}\n\n"
#define TC_END "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"

static void test_request_tool_calls(void)
{
    struct gp_record_store st;
    ts_store_init(&st);
    const char *reads[] = {TC_HEAD, TC_ARG("{\\\"a\\\""), TC_ARG(": 1}"), TC_END};
    const uint64_t dt[] = {10, 20, 30, 40};
    ts_add_req(&st, 1000, 200, GP_REC_STREAMING, reads, dt, 4, NULL);

    struct gp_tokenizer *tok = NULL;
    gp_tokenizer_load("builtin", NULL, &tok, NULL);
    long want = gp_tokenizer_count(tok, "{\"a\": 1}", 8);
    struct gp_metrics_opts o = {.inter_chunk = 1};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, NULL, tok, &o, &m, NULL), 0);
    CHECK_INT(m.reqs[0].fail, GP_FAIL_NONE);
    /* the first arguments fragment (20 ns), not the name-only head (10 ns) */
    CHECK_INT(m.reqs[0].ttft_ns, 20);
    CHECK_INT(m.reqs[0].latency_ns, 30);
    CHECK_INT(m.reqs[0].content_chunks, 2);
    CHECK(want > 0);
    CHECK_INT(m.reqs[0].osl, want);
    gp_metrics_result_free(&m);
    gp_tokenizer_free(tok);
    gp_record_store_free(&st);
}

/* what the check looks at: top-level type, required keys, property types */
static void test_schema_check(void)
{
    json_t *obj = json_loads("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"},"
                             "\"x\":{\"type\":[\"number\",\"null\"]},\"t\":{\"type\":\"array\"}},"
                             "\"required\":[\"n\"]}", 0, NULL);
    json_t *arr = json_loads("{\"type\":\"array\"}", 0, NULL), *any = json_loads("{}", 0, NULL);
    static const struct {
        int which;
        const char *text;
        int want;
    } cases[] = {
        {0, "{\"n\": 1}", GP_SO_OK},           {0, "{\"n\": 1.0, \"x\": null}", GP_SO_OK},
        {0, "{\"n\": 1.5}", GP_SO_MISMATCH},   {0, "{\"n\": 1, \"x\": \"s\"}", GP_SO_MISMATCH},
        {0, "{\"x\": 2}", GP_SO_MISMATCH},     {0, "[1]", GP_SO_MISMATCH},
        {0, "{\"n\": 1, \"t\": {}}", GP_SO_MISMATCH}, {0, "{\"n\": 1, \"extra\": 1}", GP_SO_OK},
        {0, "{\"n\": 1", GP_SO_INVALID_JSON},  {0, "", GP_SO_INVALID_JSON},
        {0, "Sure! {\"n\": 1}", GP_SO_INVALID_JSON}, {1, "[1, 2]", GP_SO_OK},
        {1, "{}", GP_SO_MISMATCH},               {2, "\"s\"", GP_SO_OK},
    };
    const json_t *schemas[] = {obj, arr, any};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK_INT(gp_mx_schema_check(schemas[cases[i].which], cases[i].text, strlen(cases[i].text)), cases[i].want);
    json_decref(obj);
    json_decref(arr);
    json_decref(any);
}

/* the structured-output counts: a schema sent, each ok response checked,
 * none failed for it */
static void test_structured_counts(void)
{
    struct gp_record_store st;
    ts_store_init(&st);
    static const char *const bodies[] = {
        "{\"choices\":[{\"message\":{\"content\":\"{\\\"name\\\": \\\"a\\\", \\\"age\\\": 3}\"},\"finish_reason\":\"stop\"}]}",
        "{\"choices\":[{\"message\":{\"content\":\"{\\\"name\\\": \\\"a\\\"\"},\"finish_reason\":\"length\"}]}",
        "{\"choices\":[{\"message\":{\"content\":\"{\\\"name\\\": 5, \\\"age\\\": 3}\"},\"finish_reason\":\"stop\"}]}",
        "{\"choices\":[{\"message\":{\"content\":\"{\\\"name\\\": \\\"b\\\"}\"},\"finish_reason\":\"stop\"}]}",
    };
    const uint64_t dt[] = {10};
    for (size_t i = 0; i < 4; i++)
        ts_add_req(&st, 1000 * (i + 1), 200, 0, &bodies[i], dt, 1, NULL);
    json_t *schema = json_loads("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
                                "\"age\":{\"type\":\"integer\"}},\"required\":[\"name\",\"age\"]}", 0, NULL);
    struct gp_metrics_opts o = {.inter_chunk = 1, .response_schema = schema};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, NULL, NULL, &o, &m, NULL), 0);
    CHECK_INT(m.n_ok, 4);
    CHECK_INT(m.structured.present, 1);
    CHECK_INT(m.structured.requests, 4);
    CHECK_INT(m.structured.invalid_json, 1);    /* the cut object */
    CHECK_INT(m.structured.schema_mismatch, 2); /* name not a string; age missing */
    CHECK(m.reqs[1].flags & GP_RQ_SO_INVALID_JSON);
    CHECK(m.reqs[2].flags & GP_RQ_SO_MISMATCH);
    CHECK(!(m.reqs[0].flags & (GP_RQ_SO_MISMATCH | GP_RQ_SO_INVALID_JSON)));
    gp_metrics_result_free(&m);
    /* no schema: no block */
    o.response_schema = NULL;
    CHECK_INT(gp_metrics_compute(&st, NULL, NULL, &o, &m, NULL), 0);
    CHECK_INT(m.structured.present, 0);
    CHECK_INT(m.structured.invalid_json, 0);
    gp_metrics_result_free(&m);
    json_decref(schema);
    gp_record_store_free(&st);
}

int main(void)
{
    GP_RUN(test_schema_check);
    GP_RUN(test_structured_counts);
    GP_RUN(test_event_tool_calls);
    GP_RUN(test_request_tool_calls);
    return gp_test_summary();
}
