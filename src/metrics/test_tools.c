/* metrics/test_tools.c — tool calling (issue 31 item 3): delta.tool_calls /
 * message.tool_calls arguments are output text (OSL) and their first
 * fragment the first token, with and without the event template. */
#include "client/record.h"
#include "core/buf.h"
#include "core/test.h"
#include "metrics/metrics.h"
#include "metrics/sse.h"
#include "tokenizer/tokenizer.h"

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
    gp_record_store_init(&st);
    st.mono0_ns = 1000;
    st.wall0_ns = 1700000000000000000ull;
    const char *reads[] = {TC_HEAD, TC_ARG("{\\\"a\\\""), TC_ARG(": 1}"), TC_END};
    struct gp_chunk ch[4];
    struct gp_buf b = {0};
    for (size_t i = 0; i < 4; i++) {
        ch[i].t_ns = 1000 + 10 * (i + 1);
        ch[i].off = b.len;
        ch[i].len = (uint32_t)strlen(reads[i]);
        gp_buf_puts(&b, reads[i]);
    }
    struct gp_record r = {0};
    r.t_start_ns = 1000;
    r.t_end_ns = 1041;
    r.http_status = 200;
    r.flags = GP_REC_STREAMING;
    gp_record_append(&st, &r, ch, 4, b.data, b.len, NULL, 0);
    gp_buf_free(&b);

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

int main(void)
{
    GP_RUN(test_event_tool_calls);
    GP_RUN(test_request_tool_calls);
    return gp_test_summary();
}
