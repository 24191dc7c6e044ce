/* serve/test_render.c — chunk shapes per flavour, byte-exact where the spec
 * quotes the server, and every event valid JSON. */
#include "core/test.h"
#include "metrics/sse.h"
#include "serve/render.h"

#include <jansson.h>

static int valid_event(const char *ev)
{
    if (strncmp(ev, "data: ", 6))
        return 0;
    size_t n = strlen(ev);
    if (n < 8 || ev[n - 1] != '\n' || ev[n - 2] != '\n')
        return 0;
    json_t *j = json_loadb(ev + 6, n - 8, 0, NULL);
    int ok = j != NULL;
    json_decref(j);
    return ok;
}

static void test_vllm_chat(void)
{
    struct gp_render r = {0};
    struct gp_buf b = {0};
    gp_render_init(&r, GP_FLAVOR_VLLM, GP_EP_CHAT, "chatcmpl-1", "m", 1760000000, 12, 0);
    gp_render_role(&r, &b);
    CHECK_STR(b.data, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,"
                      "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
                      "\"logprobs\":null,\"finish_reason\":null}]}\n\n");
    gp_buf_reset(&b);
    gp_render_token(&r, &b, "\\\"x", 3, 0, GP_FINISH_LENGTH, 1);
    CHECK(strstr(b.data, "\"delta\":{\"content\":\"\\\"x\"},\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}]}\n\n"));
    CHECK(valid_event(b.data));
    gp_buf_reset(&b);
    gp_render_token(&r, &b, " so", 3, 1, GP_FINISH_NONE, 1);
    CHECK(strstr(b.data, "\"delta\":{\"reasoning\":\" so\"},\"logprobs\":null,\"finish_reason\":null}]}"));
    gp_buf_reset(&b);
    gp_render_usage(&r, &b, 128, 120);
    CHECK(strstr(b.data, "\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"total_tokens\":140,\"completion_tokens\":128,"
                         "\"completion_tokens_details\":{\"reasoning_tokens\":120}}}\n\n"));
    CHECK(valid_event(b.data));
    gp_buf_reset(&b);
    gp_render_stream_error(&r, &b, 500, "InternalServerError", "Internal server error");
    CHECK_STR(b.data, "data: {\"error\": {\"message\": \"Internal server error\", \"type\": \"InternalServerError\", "
                      "\"param\": null, \"code\": 500}}\n\n");
    gp_buf_reset(&b);
    gp_render_done(&b);
    CHECK_STR(b.data, "data: [DONE]\n\n");
    CHECK(!gp_render_separate_finish(&r));
    gp_buf_free(&b);
    gp_render_free(&r);
}

static void test_continuous_usage(void)
{
    struct gp_render r = {0};
    struct gp_buf b = {0};
    gp_render_init(&r, GP_FLAVOR_VLLM, GP_EP_CHAT, "c", "m", 1, 16, 1);
    gp_render_token(&r, &b, "Core", 4, 0, GP_FINISH_NONE, 3);
    CHECK(strstr(b.data, "\"finish_reason\":null}],\"usage\":{\"prompt_tokens\":16,\"total_tokens\":19,\"completion_tokens\":3}}\n\n"));
    CHECK(valid_event(b.data));
    gp_buf_reset(&b);
    gp_render_role(&r, &b);
    CHECK(strstr(b.data, "\"completion_tokens\":0}}\n\n"));
    gp_buf_free(&b);
    gp_render_free(&r);
}

static void test_sglang_chat(void)
{
    struct gp_render r = {0};
    struct gp_buf b = {0};
    gp_render_init(&r, GP_FLAVOR_SGLANG, GP_EP_CHAT, "chatcmpl-4f1c", "default", 1760000000, 14, 0);
    CHECK(gp_render_separate_finish(&r));
    gp_render_token(&r, &b, "Hello", 5, 0, GP_FINISH_STOP, 26); /* finish ignored: separate chunk */
    CHECK(strstr(b.data, "\"delta\":{\"content\":\"Hello\"},\"logprobs\":null,\"finish_reason\":null,\"matched_stop\":null}]}\n\n"));
    gp_buf_reset(&b);
    gp_render_token(&r, &b, "Let me", 6, 1, GP_FINISH_NONE, 1);
    CHECK(strstr(b.data, "\"delta\":{\"reasoning_content\":\"Let me\"}"));
    gp_buf_reset(&b);
    r.eos_id = 151645;
    gp_render_finish(&r, &b, GP_FINISH_STOP, 26);
    CHECK(strstr(b.data, "\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\",\"matched_stop\":151645}]}\n\n"));
    CHECK(valid_event(b.data));
    gp_buf_reset(&b);
    gp_render_usage(&r, &b, 26, 9);
    CHECK(strstr(b.data, "\"choices\":[],\"usage\":{\"prompt_tokens\":14,\"total_tokens\":40,\"completion_tokens\":26,"
                         "\"prompt_tokens_details\":null,\"reasoning_tokens\":9}}\n\n"));
    gp_buf_reset(&b);
    gp_render_stream_error(&r, &b, 503, "SERVICE_UNAVAILABLE", "The request queue is full.");
    CHECK_STR(b.data, "data: {\"error\": {\"object\": \"error\", \"message\": \"The request queue is full.\", \"type\": "
                      "\"SERVICE_UNAVAILABLE\", \"param\": null, \"code\": 503}}\n\n");
    gp_buf_free(&b);
    gp_render_free(&r);
}

static void test_trtllm_chat(void)
{
    struct gp_render r = {0};
    struct gp_buf b = {0};
    gp_render_init(&r, GP_FLAVOR_TRTLLM, GP_EP_CHAT, "chatcmpl-7", "Qwen3-8B", 1760000000, 9, 0);
    gp_render_role(&r, &b);
    CHECK_STR(b.data, "data: {\"id\":\"chatcmpl-7\",\"object\":\"chat.completion.chunk\",\"created\":1760000000,"
                      "\"model\":\"Qwen3-8B\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]} \n\n");
    gp_buf_reset(&b);
    gp_render_token(&r, &b, "Hello", 5, 0, GP_FINISH_NONE, 1);
    CHECK(strstr(b.data, "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\",\"reasoning_content\":\"\"},"
                         "\"avg_decoded_tokens_per_iter\":1.0}]}\n\n"));
    gp_buf_reset(&b);
    gp_render_token(&r, &b, " world", 6, 0, GP_FINISH_LENGTH, 2);
    CHECK(strstr(b.data, "\"reasoning_content\":\"\"},\"finish_reason\":\"length\",\"avg_decoded_tokens_per_iter\":1.0}]}"));
    gp_buf_reset(&b);
    gp_render_usage(&r, &b, 2, 0);
    CHECK(strstr(b.data, "\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"total_tokens\":11,\"completion_tokens\":2,"
                         "\"prompt_tokens_details\":{\"cached_tokens\":0}}}\n\n"));
    gp_buf_free(&b);
    gp_render_free(&r);
}

static void test_completions_and_full_bodies(void)
{
    for (int f = 0; f < 3; f++) {
        struct gp_render r = {0};
        struct gp_buf b = {0};
        gp_render_init(&r, f, GP_EP_COMPLETIONS, "cmpl-1", "m\"q", 5, 3, 0);
        gp_render_role(&r, &b);
        CHECK_INT(b.len, 0); /* completions have no role chunk */
        gp_render_token(&r, &b, "a", 1, 0, GP_FINISH_LENGTH, 1);
        CHECK(valid_event(b.data));
        CHECK(strstr(b.data, "\"object\":\"text_completion\""));
        CHECK(strstr(b.data, "\"text\":\"a\""));
        CHECK(strstr(b.data, "\"finish_reason\":\"length\""));
        gp_buf_reset(&b);
        gp_render_full(&r, &b, "ab", 2, "", 0, GP_FINISH_STOP, 2, 0);
        json_t *j = json_loads(b.data, 0, NULL);
        CHECK(j != NULL);
        CHECK_STR(json_string_value(json_object_get(j, "object")), "text_completion");
        CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(j, "choices"), 0), "text")), "ab");
        CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "usage"), "total_tokens")), 5);
        json_decref(j);
        gp_buf_free(&b);
        gp_render_free(&r);

        gp_render_init(&r, f, GP_EP_CHAT, "chatcmpl-2", "m", 5, 3, 0);
        gp_render_full(&r, &b, "hi", 2, "th", 2, GP_FINISH_LENGTH, 4, 2);
        j = json_loads(b.data, 0, NULL);
        CHECK(j != NULL);
        CHECK_STR(json_string_value(json_object_get(j, "object")), "chat.completion");
        json_t *msg = json_object_get(json_array_get(json_object_get(j, "choices"), 0), "message");
        CHECK_STR(json_string_value(json_object_get(msg, "content")), "hi");
        CHECK_STR(json_string_value(json_object_get(msg, f == GP_FLAVOR_VLLM ? "reasoning" : "reasoning_content")), "th");
        json_decref(j);
        gp_buf_reset(&b);
        gp_render_malformed(&r, &b);
        CHECK(!valid_event(b.data));
        gp_buf_free(&b);
        gp_render_free(&r);
    }
}

static void test_error_bodies(void)
{
    struct gp_buf b = {0};
    gp_render_error_body(GP_FLAVOR_VLLM, &b, 400, "BadRequestError", "bad", "max_tokens");
    CHECK_STR(b.data, "{\"error\":{\"message\":\"bad\",\"type\":\"BadRequestError\",\"param\":\"max_tokens\",\"code\":400}}");
    gp_buf_reset(&b);
    gp_render_error_body(GP_FLAVOR_SGLANG, &b, 400, "Bad Request", "x", NULL);
    CHECK_STR(b.data, "{\"object\":\"error\",\"message\":\"x\",\"type\":\"Bad Request\",\"param\":null,\"code\":400}");
    gp_buf_reset(&b);
    gp_buf_u64(&b, 0);
    gp_buf_u64(&b, 18446744073709551615ull);
    CHECK_STR(b.data, "018446744073709551615");
    CHECK_INT(gp_flavor_parse("sglang"), GP_FLAVOR_SGLANG);
    CHECK_INT(gp_flavor_parse("nope"), -1);
    gp_buf_free(&b);
}

/* What a Responses stream read back with the client's parser carried. */
struct resp_read {
    struct gp_buf content, reasoning, err;
    int events, bad, ends, usage_in, usage_out, typed;
};

static int on_resp(void *ctx, const char *d, size_t n, const char *type)
{
    struct resp_read *r = ctx;
    struct gp_event_info in;
    json_t *j = json_loadb(d, n, 0, NULL);
    /* `event:` names the same type as the data's "type" (the API's framing) */
    r->typed += j && !strcmp(json_string_value(json_object_get(j, "type")), type);
    json_decref(j);
    gp_responses_event_parse(d, n, &r->content, &r->reasoning, &r->err, &in);
    r->events++;
    r->bad += in.kind != GP_EV_CHUNK;
    if (in.ends_stream) {
        r->ends++;
        r->usage_in = (int)in.prompt_tokens;
        r->usage_out = (int)in.completion_tokens;
    }
    return 0;
}

/* The Responses API: created, in_progress, a reasoning item, a message
 * item, completed with usage; read back by metrics/responses.c. */
static void test_responses(void)
{
    struct gp_render r = {0};
    struct gp_buf out = {0};
    CHECK_INT(gp_render_init(&r, GP_FLAVOR_VLLM, GP_EP_RESPONSES, "resp_ab12", "m", 1700000000, 7, 0), 0);
    CHECK_INT(gp_render_resp_open(&r, &out), 0);
    CHECK_INT(gp_render_resp_delta(&r, &out, "th", 2, 1, "th", 2), 0);
    CHECK_INT(gp_render_resp_delta(&r, &out, "ink", 3, 1, "think", 5), 0);
    CHECK_INT(gp_render_resp_delta(&r, &out, " He\\\"y", 6, 0, "think", 5), 0);
    CHECK_INT(gp_render_resp_delta(&r, &out, " you", 4, 0, "think", 5), 0);
    CHECK_INT(gp_render_resp_end(&r, &out, " He\\\"y you", 10, "think", 5, GP_FINISH_STOP, 6, 2), 0);
    CHECK(strstr(out.data, "data: [DONE]") == NULL);
    CHECK(strstr(out.data, "\"item_id\":\"rs_ab12\"") && strstr(out.data, "\"item_id\":\"msg_ab12\""));
    struct resp_read rd = {0};
    struct gp_sse p;
    gp_sse_init(&p);
    CHECK_INT(gp_sse_feed(&p, out.data, out.len, on_resp, &rd), 0);
    CHECK_INT(gp_sse_finish(&p, on_resp, &rd), 0);
    gp_sse_free(&p);
    CHECK_INT(rd.bad, 0);
    CHECK_INT(rd.typed, rd.events);
    CHECK_INT(rd.ends, 1);
    CHECK(rd.content.len == 9 && !memcmp(rd.content.data, " He\"y you", 9));
    CHECK(rd.reasoning.len == 5 && !memcmp(rd.reasoning.data, "think", 5));
    CHECK_INT(rd.usage_in, 7);
    CHECK_INT(rd.usage_out, 6);
    /* the non-streamed object: valid JSON, status incomplete on a length finish */
    gp_buf_reset(&out);
    CHECK_INT(gp_render_resp_full(&r, &out, "ab", 2, "", 0, GP_FINISH_LENGTH, 2, 0), 0);
    json_t *j = json_loadb(out.data, out.len, 0, NULL);
    CHECK(j != NULL);
    CHECK_STR(json_string_value(json_object_get(j, "status")), "incomplete");
    CHECK_STR(json_string_value(json_object_get(j, "object")), "response");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "usage"), "output_tokens")), 2);
    json_decref(j);
    gp_buf_free(&rd.content);
    gp_buf_free(&rd.reasoning);
    gp_buf_free(&rd.err);
    gp_buf_free(&out);
    gp_render_free(&r);
}

/* a tool call (issue 31 item 3): OpenAI's shape in every flavour */
static void test_tool_call(void)
{
    for (int fl = GP_FLAVOR_VLLM; fl <= GP_FLAVOR_TRTLLM; fl++) {
        struct gp_render r = {0};
        struct gp_buf b = {0};
        gp_render_init(&r, fl, GP_EP_CHAT, "chatcmpl-1", "m", 1760000000, 12, 0);
        gp_render_tool_call(&r, "get_\"w", "call_1");
        gp_render_role(&r, &b);
        CHECK(valid_event(b.data));
        CHECK(strstr(b.data, "\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,\"id\":"
                             "\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_\\\"w\",\"arguments\":\"\"}}]}"));
        gp_buf_reset(&b);
        gp_render_token(&r, &b, " \\\"a", 4, 0, GP_FINISH_TOOL_CALLS, 1);
        CHECK(valid_event(b.data));
        CHECK(strstr(b.data, "\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\" \\\"a\"}}]}"));
        CHECK(!strstr(b.data, "\"content\""));
        if (gp_render_separate_finish(&r)) {
            gp_buf_reset(&b);
            gp_render_finish(&r, &b, GP_FINISH_TOOL_CALLS, 1);
        }
        CHECK(strstr(b.data, "\"finish_reason\":\"tool_calls\""));
        gp_buf_reset(&b);
        gp_render_full(&r, &b, "{\\\"x\\\": 1}", 10, "", 0, GP_FINISH_TOOL_CALLS, 5, 0);
        json_t *j = json_loads(b.data, 0, NULL);
        CHECK(j != NULL);
        json_t *msg = json_object_get(json_array_get(json_object_get(j, "choices"), 0), "message");
        json_t *f = json_object_get(json_array_get(json_object_get(msg, "tool_calls"), 0), "function");
        CHECK_STR(json_string_value(json_object_get(f, "arguments")), "{\"x\": 1}");
        CHECK_STR(json_string_value(json_object_get(f, "name")), "get_\"w");
        CHECK(json_is_null(json_object_get(msg, "content")));
        json_decref(j);
        /* a new request on the same renderer is no tool call */
        gp_render_init(&r, fl, GP_EP_CHAT, "chatcmpl-2", "m", 1760000000, 12, 0);
        CHECK_INT(r.tool_call, 0);
        gp_buf_free(&b);
        gp_render_free(&r);
    }
}

int main(void)
{
    GP_RUN(test_tool_call);
    GP_RUN(test_vllm_chat);
    GP_RUN(test_continuous_usage);
    GP_RUN(test_sglang_chat);
    GP_RUN(test_trtllm_chat);
    GP_RUN(test_completions_and_full_bodies);
    GP_RUN(test_error_bodies);
    GP_RUN(test_responses);
    return gp_test_summary();
}
