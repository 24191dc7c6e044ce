/* metrics/responses.c — the OpenAI Responses API's events and bodies
 * (POST /v1/responses), read with the non-allocating scanner of jscan_int.h.
 *
 * A streamed event names its kind in "type" ("response.output_text.delta")
 * and carries its text in "delta"; a server may write "delta" before "type"
 * (the OpenAI SDK's models dump their fields in alphabetical order), so the
 * value's position is kept and decoded once the type is known: a second
 * pass over one string, never a tree. A non-streamed answer is the response
 * object itself: output[] items of type "message" (content parts
 * "output_text" and "refusal"), "reasoning" (parts "reasoning_text", else
 * the "summary_text" of its summary) and the model's tool calls.
 *
 * What the model writes is output, whatever it is (issue 38 items 1 and 2):
 * text, a refusal, and the arguments of a tool call, as chat's tool_calls
 * arguments are (event.c). The shapes are those openai-node 7.60.0 types in
 * resources/responses/responses.d.ts: the events
 * response.output_text.delta, response.refusal.delta,
 * response.function_call_arguments.delta,
 * response.custom_tool_call_input.delta and response.mcp_call_arguments.delta
 * each carry their text in "delta" (a string); the output items
 * ResponseOutputMessage (content parts ResponseOutputText {type:
 * 'output_text', text} and ResponseOutputRefusal {type: 'refusal',
 * refusal}), ResponseFunctionToolCall {type: 'function_call', arguments},
 * ResponseCustomToolCall {type: 'custom_tool_call', input} and McpCall
 * {type: 'mcp_call', arguments}. The .done events, output_item.added /
 * .done and response.completed repeat what the deltas brought and are not
 * read for text.
 */
#include "metrics/sse.h"
#include "metrics/jscan_int.h"

#include <string.h>

#define KEQ(lit) GP_JS_EQ(k, kl, lit)
#define VEQ GP_JS_EQ

/* A string value's raw bytes (between its quotes; the names compared here
 * have no escapes), or *v = NULL when the value is no string. */
static void raw_str(struct gp_js *j, const char **v, size_t *vl)
{
    *v = NULL;
    *vl = 0;
    if (gp_js_peek(j) != '"') {
        gp_js_skip(j);
        return;
    }
    const char *s = j->p + 1;
    gp_js_str(j, NULL);
    if (!j->bad) {
        *v = s;
        *vl = (size_t)(j->p - 1 - s);
    }
}

/* The string at a kept position, decoded into out; its byte count. */
static size_t str_at(const char *at, const char *end, struct gp_buf *out, int *bad)
{
    struct gp_js j = {at, end, 0};
    size_t n = gp_js_str(&j, out);
    *bad |= j.bad;
    return n;
}

/* error: {"code": .., "message": ..} (code a string in this API; an integer kept) */
static void scan_error(struct gp_js *j, struct gp_buf *errtext, struct gp_event_info *info)
{
    if (gp_js_peek(j) != '{') {
        gp_js_skip(j);
        return;
    }
    const char *k;
    size_t kl;
    int first = 1, r;
    while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("message") && gp_js_peek(j) == '"')
            gp_js_str(j, errtext && errtext->len == 0 ? errtext : NULL);
        else if (KEQ("code") && gp_js_peek(j) != '"') {
            long v = gp_js_num(j);
            info->error_code = v > 0 && v < 100000 ? (int)v : 0;
        } else
            gp_js_skip(j);
        if (j->bad)
            return;
    }
}

/* The parts of one output item ([{"type":"output_text","text":..}, ..]):
 * the text of each part whose type is want goes to out, and with refusals
 * the "refusal" of each part of type "refusal" too, in their order. */
static size_t scan_parts(struct gp_js *j, const char *want, int refusals, struct gp_buf *out)
{
    size_t got = 0;
    if (!gp_js_open(j, '['))
        return 0;
    int elem = 1;
    while (!j->bad && gp_js_arr_next(j, &elem) == 1) {
        const char *text = NULL, *refusal = NULL, *ty = NULL, *k;
        size_t tyl = 0, kl;
        int first = 1, r;
        if (gp_js_peek(j) != '{') {
            gp_js_skip(j);
        } else {
            while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
                if (KEQ("type"))
                    raw_str(j, &ty, &tyl);
                else if (KEQ("text") && gp_js_peek(j) == '"') {
                    text = j->p;
                    gp_js_str(j, NULL);
                } else if (KEQ("refusal") && gp_js_peek(j) == '"') {
                    refusal = j->p;
                    gp_js_str(j, NULL);
                } else
                    gp_js_skip(j);
                if (j->bad)
                    return got;
            }
            if (r < 0)
                return got;
            if (text && ty && tyl == strlen(want) && !memcmp(ty, want, tyl))
                got += str_at(text, j->end, out, &j->bad);
            else if (refusals && refusal && ty && VEQ(ty, tyl, "refusal"))
                got += str_at(refusal, j->end, out, &j->bad);
        }
    }
    return got;
}

/* One output item: a "message" adds its output_text and refusal parts to
 * content, a "reasoning" item its reasoning_text parts (or, with none, its
 * summary's summary_text) to reasoning, a function_call or mcp_call its
 * "arguments" and a custom_tool_call its "input" to content. Other items
 * (web searches, a tool's results, ...) are no text the model wrote. */
static void scan_item(struct gp_js *j, struct gp_buf *content, struct gp_buf *reasoning, struct gp_event_info *info)
{
    if (gp_js_peek(j) != '{') {
        gp_js_skip(j);
        return;
    }
    const char *k, *ty = NULL, *parts = NULL, *summary = NULL, *args = NULL, *input = NULL;
    size_t kl, tyl = 0;
    int first = 1, r;
    while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("type"))
            raw_str(j, &ty, &tyl);
        else if ((KEQ("arguments") || KEQ("input")) && gp_js_peek(j) == '"') {
            *(KEQ("input") ? &input : &args) = j->p;
            gp_js_str(j, NULL);
        } else if (KEQ("content")) {
            parts = j->p;
            gp_js_skip(j);
        } else if (KEQ("summary")) {
            summary = j->p;
            gp_js_skip(j);
        } else
            gp_js_skip(j);
        if (j->bad)
            return;
    }
    if (r < 0 || !ty)
        return;
    struct gp_js sub = {NULL, j->end, 0};
    if (VEQ(ty, tyl, "message") && parts) {
        sub.p = parts;
        info->content_len += scan_parts(&sub, "output_text", 1, content);
    } else if ((VEQ(ty, tyl, "function_call") || VEQ(ty, tyl, "mcp_call")) && args) {
        info->content_len += str_at(args, j->end, content, &sub.bad);
    } else if (VEQ(ty, tyl, "custom_tool_call") && input) {
        info->content_len += str_at(input, j->end, content, &sub.bad);
    } else if (VEQ(ty, tyl, "reasoning")) {
        size_t n = 0;
        if (parts) {
            sub.p = parts;
            n = scan_parts(&sub, "reasoning_text", 0, reasoning);
        }
        if (!n && summary && !sub.bad) {
            sub.p = summary;
            n = scan_parts(&sub, "summary_text", 0, reasoning);
        }
        info->reasoning_len += n;
    }
    j->bad |= sub.bad;
}

static void scan_output(struct gp_js *j, struct gp_buf *content, struct gp_buf *reasoning, struct gp_event_info *info)
{
    if (!gp_js_open(j, '['))
        return;
    int first = 1;
    while (!j->bad && gp_js_arr_next(j, &first) == 1)
        scan_item(j, content, reasoning, info);
}

/* What one response object holds. */
struct resp_obj {
    int is_response;   /* "object":"response" */
    int finished;      /* "status": completed | incomplete */
    int failed;        /* "status": failed, or a non-null "error" */
};

/* The "response" of a streamed event: its usage, status and error. Its
 * output is skipped: response.completed repeats the whole text, which the
 * deltas already brought. */
static void scan_response(struct gp_js *j, struct gp_buf *errtext, struct gp_event_info *info, struct resp_obj *ro)
{
    if (gp_js_peek(j) != '{') {
        gp_js_skip(j);
        return;
    }
    const char *k, *v;
    size_t kl, vl;
    int first = 1, r;
    while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("object")) {
            raw_str(j, &v, &vl);
            ro->is_response |= v && VEQ(v, vl, "response");
        } else if (KEQ("status")) {
            raw_str(j, &v, &vl);
            ro->finished |= v && (VEQ(v, vl, "completed") || VEQ(v, vl, "incomplete"));
            ro->failed |= v && VEQ(v, vl, "failed");
        } else if (KEQ("error")) {
            if (!gp_js_is_null(j)) {
                ro->failed = 1;
                scan_error(j, errtext, info);
            }
        } else if (KEQ("usage"))
            gp_js_usage_io(j, info);
        else
            gp_js_skip(j);
        if (j->bad)
            return;
    }
    if (r < 0)
        j->bad = 1;
}

/* The event's type, classified: RT_TEXT for every delta the model's output
 * (text, refusal, a tool call's arguments or input) comes in. */
enum rtype { RT_NONE = 0, RT_OTHER, RT_TEXT, RT_REASONING, RT_END, RT_FAILED, RT_ERROR };

static enum rtype classify(const char *v, size_t vl)
{
    if (!v)
        return RT_NONE;
    if (VEQ(v, vl, "response.output_text.delta") || VEQ(v, vl, "response.refusal.delta") ||
        VEQ(v, vl, "response.function_call_arguments.delta") || VEQ(v, vl, "response.custom_tool_call_input.delta") ||
        VEQ(v, vl, "response.mcp_call_arguments.delta"))
        return RT_TEXT;
    if (VEQ(v, vl, "response.reasoning_text.delta") || VEQ(v, vl, "response.reasoning_summary_text.delta"))
        return RT_REASONING;
    if (VEQ(v, vl, "response.completed") || VEQ(v, vl, "response.incomplete"))
        return RT_END;
    if (VEQ(v, vl, "response.failed"))
        return RT_FAILED;
    if (VEQ(v, vl, "error"))
        return RT_ERROR;
    return RT_OTHER;
}

void gp_responses_event_parse(const char *json, size_t len, struct gp_buf *content, struct gp_buf *reasoning,
                              struct gp_buf *errtext, struct gp_event_info *out)
{
    memset(out, 0, sizeof *out);
    out->prompt_tokens = out->completion_tokens = out->cached_tokens = out->cache_write_tokens = -1; /* -1: not reported */
    out->n_choices = -1;
    size_t content0 = content ? content->len : 0, reasoning0 = reasoning ? reasoning->len : 0;
    if (errtext)
        gp_buf_reset(errtext);
    struct gp_js j = {json, json + len, 0};
    if (gp_js_peek(&j) != '{') {
        gp_event_parse(json, len, content, reasoning, errtext, out); /* [DONE], or bad */
        return;
    }
    const char *k, *ty = NULL, *delta = NULL;
    size_t kl, tyl = 0;
    int first = 1, r, top_error = 0, delta_bad = 0;
    struct resp_obj ro = {0}, inner = {0};
    while ((r = gp_js_obj_next(&j, &first, &k, &kl)) == 1) {
        if (KEQ("type"))
            raw_str(&j, &ty, &tyl);
        else if (KEQ("delta") && gp_js_peek(&j) == '"') {
            delta = j.p;
            gp_js_str(&j, NULL);
        } else if (KEQ("delta")) {
            delta_bad = 1; /* malformed if this is a text event (known after "type") */
            gp_js_skip(&j);
        } else if (KEQ("response"))
            scan_response(&j, errtext, out, &inner);
        else if (KEQ("object") || KEQ("status") || KEQ("usage") || KEQ("output")) {
            /* a non-streamed response object: these keys are its own */
            const char *v;
            size_t vl;
            if (KEQ("object")) {
                raw_str(&j, &v, &vl);
                ro.is_response |= v && VEQ(v, vl, "response");
            } else if (KEQ("status")) {
                raw_str(&j, &v, &vl);
                ro.finished |= v && (VEQ(v, vl, "completed") || VEQ(v, vl, "incomplete"));
                ro.failed |= v && VEQ(v, vl, "failed");
            } else if (KEQ("usage"))
                gp_js_usage_io(&j, out);
            else
                scan_output(&j, content, reasoning, out);
        } else if (KEQ("error") || KEQ("message") || KEQ("code")) {
            if (KEQ("error")) {
                if (!gp_js_is_null(&j)) { /* a response object's "error": null is none */
                    top_error = 1;
                    if (gp_js_peek(&j) == '"')
                        gp_js_str(&j, errtext && errtext->len == 0 ? errtext : NULL);
                    else
                        scan_error(&j, errtext, out);
                }
            } else if (KEQ("message") && gp_js_peek(&j) == '"')
                gp_js_str(&j, errtext && errtext->len == 0 ? errtext : NULL); /* "type":"error" events */
            else if (KEQ("code") && gp_js_peek(&j) != '"') {
                long v = gp_js_num(&j);
                if (!out->error_code && v > 0 && v < 100000)
                    out->error_code = (int)v;
            } else
                gp_js_skip(&j);
        } else
            gp_js_skip(&j);
        if (j.bad)
            break;
    }
    enum rtype t = classify(ty, tyl);
    if (!j.bad && r == 0 && t == RT_NONE && !ro.is_response && !top_error) {
        /* neither an event of this API nor a response object: a chat-shaped
         * chunk or error from a server that answers this path so */
        gp_js_cut(content, content0);
        gp_js_cut(reasoning, reasoning0);
        gp_event_parse(json, len, content, reasoning, errtext, out);
        return;
    }
    if (delta_bad && (t == RT_TEXT || t == RT_REASONING))
        j.bad = 1; /* a text delta that is no string: a malformed event, not an empty one */
    if (t == RT_END && inner.failed && errtext && errtext->len == 0)
        gp_buf_puts(errtext, "response.completed with a failed response"); /* no error message came */
    if (!j.bad && r == 0 && (t == RT_TEXT || t == RT_REASONING) && delta) {
        size_t n = str_at(delta, j.end, t == RT_TEXT ? content : reasoning, &j.bad);
        if (t == RT_TEXT)
            out->content_len += n;
        else
            out->reasoning_len += n;
    }
    if (top_error || t == RT_FAILED || t == RT_ERROR || (t == RT_NONE && ro.failed) || (t == RT_END && inner.failed)) {
        out->kind = GP_EV_ERROR;
        out->content_len = out->reasoning_len = 0;
        out->has_usage = out->bad_usage = 0;
        gp_js_cut(content, content0);
        gp_js_cut(reasoning, reasoning0);
        return;
    }
    gp_js_cut(errtext, 0); /* a "message" outside an error is no error text */
    if (j.bad || r != 0) {
        out->kind = GP_EV_BAD; /* keep nothing from a malformed event */
        out->content_len = out->reasoning_len = 0;
        out->has_usage = out->bad_usage = 0;
        out->prompt_tokens = out->completion_tokens = out->cached_tokens = out->cache_write_tokens = -1;
        gp_js_cut(content, content0);
        gp_js_cut(reasoning, reasoning0);
        return;
    }
    out->kind = GP_EV_CHUNK;
    if (t == RT_END || (t == RT_NONE && ro.finished)) {
        out->has_finish = 1;
        out->ends_stream = t == RT_END;
    }
    if (t != RT_END && t != RT_NONE) {
        /* only the final response object's usage is the request's */
        out->has_usage = out->bad_usage = 0;
        out->prompt_tokens = out->completion_tokens = out->cached_tokens = out->cache_write_tokens = -1;
    }
    if (out->content_len || out->reasoning_len)
        out->n_choices = 1;
}
