/* metrics/anthropic.c — one Anthropic Messages API event or body
 * (gp_event_parse_anthropic, sse.h), walked with the same non-allocating
 * JSON scanner as the OpenAI formats (jscan_int.h); only the Anthropic shapes
 * live here.
 *
 * Streamed: message_start {"message":{..,"usage":{"input_tokens":N}}},
 * content_block_start {"content_block":{"type":"text","text":".."}},
 * content_block_delta {"delta":{"type":"text_delta","text":".."}},
 * {"type":"thinking_delta","thinking":".."} or
 * {"type":"input_json_delta","partial_json":".."} (signature_delta carries
 * no text), content_block_stop, message_delta
 * {"delta":{"stop_reason":..},"usage":{"output_tokens":N}} (cumulative; its
 * input and cache counts may be null), usage's cache_read_input_tokens and
 * cache_creation_input_tokens kept apart from input_tokens (which leaves
 * them out; the request's prompt is the sum, metrics_request.c),
 * message_stop (the stream's end: GP_EV_DONE), ping, and error
 * {"type":"error","error":{"type":..,"message":..}}.
 * Non-streamed: {"type":"message","content":[{"type":"text","text":..},
 * {"type":"thinking","thinking":..},{"type":"tool_use","input":{..}}],
 * "stop_reason":..,"usage":{..}}.
 *
 * Tool calls are output (issue 38 item 1), as chat's tool_calls arguments
 * are (event.c): the model writes a tool_use block's input as JSON text,
 * streamed in input_json_delta fragments (the first one is the first token)
 * whose partial_json strings, joined, are that JSON. Not streamed, the block
 * holds the input as a JSON value, and its raw bytes as received are the
 * text: the same JSON the fragments would have spelled, without decoding
 * and re-encoding it (a server that pretty-prints it gets its blanks
 * counted). Shapes as @anthropic-ai/sdk 1.17.0 (resources/messages/
 * messages.d.ts) types them: InputJSONDelta {type, partial_json: string};
 * ToolUseBlock and ServerToolUseBlock {type: 'tool_use' | 'server_tool_use',
 * id, name, input: unknown}, the only blocks with an input, both streamed
 * as input_json_delta. content_block_start's tool_use block carries
 * "input": {} before the deltas, which is not read (it would count "{}"
 * once more).
 */
#include "metrics/sse.h"
#include "metrics/jscan_int.h"

#include <string.h>

#define KEQ(lit) GP_JS_EQ(k, kl, lit)

/* Where one event's findings go (the caller's buffers and info). */
struct anth_out {
    struct gp_buf *content, *reasoning, *errtext;
    struct gp_event_info *info;
    int known;   /* a key of this API's events was seen ("type", ...): else GP_EV_FOREIGN */
};

/* a content block or a delta: "text" and "partial_json" are content,
 * "thinking" is reasoning (the type need not be read for these: only text
 * blocks and text deltas have a "text" key, only input_json_delta a
 * "partial_json", only thinking ones a "thinking" key). With whole (a
 * block of a message's content[], not content_block_start's), a tool_use
 * or server_tool_use block's "input" is content too, as its raw JSON bytes;
 * its type may follow it, so where it stood is kept until the block ends. */
static void anth_block(struct gp_js *j, struct anth_out *s, int whole)
{
    if (!gp_js_open(j, '{'))
        return;
    const char *k, *in0 = NULL, *in1 = NULL;
    size_t kl;
    int first = 1, r, tool = 0;
    while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
        if ((KEQ("text") || KEQ("thinking") || KEQ("partial_json")) && gp_js_peek(j) != '"')
            j->bad = 1; /* text that is no string: a malformed event, not an empty delta */
        else if (KEQ("text") || KEQ("partial_json"))
            s->info->content_len += gp_js_text(j, s->content);
        else if (KEQ("thinking"))
            s->info->reasoning_len += gp_js_text(j, s->reasoning);
        else if (KEQ("stop_reason"))
            gp_js_finish(j, &s->info->has_finish);
        else if (whole && KEQ("type") && gp_js_peek(j) == '"') {
            const char *v = j->p + 1;
            gp_js_str(j, NULL);
            size_t vl = (size_t)(j->p - v) - 1;
            tool = GP_JS_EQ(v, vl, "tool_use") || GP_JS_EQ(v, vl, "server_tool_use");
        } else if (whole && KEQ("input")) {
            if (!gp_js_is_null(j)) { /* null: no input written */
                in0 = j->p;          /* gp_js_is_null consumed the blanks before it */
                gp_js_skip(j);
                in1 = j->p;
            }
        } else
            gp_js_skip(j);
        if (j->bad)
            return;
    }
    if (r == 0 && tool && in0 && s->content) {
        if (gp_buf_append(s->content, in0, (size_t)(in1 - in0)))
            j->bad = 1;
        else
            s->info->content_len += (size_t)(in1 - in0);
    }
}

static void anth_content(struct gp_js *j, struct anth_out *s)
{
    if (!gp_js_open(j, '['))
        return;
    int first = 1;
    while (!j->bad && gp_js_arr_next(j, &first) == 1)
        anth_block(j, s, 1);
}

/* The keys of an event or of a message object (message_start nests one);
 * *type_stop / *type_error: "type" was "message_stop" / "error". */
static int anth_object(struct gp_js *j, struct anth_out *s, int *type_stop, int *type_error)
{
    const char *k;
    size_t kl;
    int first = 1, r;
    while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("type") || KEQ("message") || KEQ("content_block") || KEQ("delta") || KEQ("content") ||
            KEQ("usage") || KEQ("stop_reason"))
            s->known = 1;
        if (KEQ("type") && gp_js_peek(j) == '"') {
            const char *v = j->p + 1;
            gp_js_str(j, NULL);
            size_t vl = (size_t)(j->p - v) - 1;
            if (GP_JS_EQ(v, vl, "message_stop"))
                *type_stop = 1;
            else if (GP_JS_EQ(v, vl, "error"))
                *type_error = 1;
        } else if (KEQ("message") && gp_js_peek(j) == '{') {
            int ts = 0, te = 0;
            r = anth_object(j, s, &ts, &te);
            if (r != 0)
                j->bad = 1;
        } else if (KEQ("delta") && gp_js_peek(j) != '{')
            j->bad = 1; /* a delta is an object: another value is a malformed event */
        else if (KEQ("content_block") || KEQ("delta"))
            anth_block(j, s, 0);
        else if (KEQ("content"))
            anth_content(j, s);
        else if (KEQ("usage"))
            gp_js_usage_io(j, s->info);
        else if (KEQ("stop_reason"))
            gp_js_finish(j, &s->info->has_finish);
        else if (KEQ("error") && !gp_js_is_null(j)) {
            *type_error = 1;
            gp_js_error_value(j, s->errtext, s->info);
        } else
            gp_js_skip(j);
        if (j->bad)
            return -1;
    }
    return r;
}

void gp_event_parse_anthropic(const char *json, size_t len, struct gp_buf *content, struct gp_buf *reasoning,
                              struct gp_buf *errtext, struct gp_event_info *out)
{
    memset(out, 0, sizeof *out);
    out->prompt_tokens = out->completion_tokens = out->cached_tokens = out->cache_write_tokens = -1; /* -1: not reported */
    out->n_choices = -1;
    size_t content0 = content ? content->len : 0, reasoning0 = reasoning ? reasoning->len : 0;
    if (errtext)
        gp_buf_reset(errtext);
    struct gp_js j = {json, json + len, 0};
    struct anth_out s = {content, reasoning, errtext, out, 0};
    int type_stop = 0, type_error = 0;
    int r = gp_js_peek(&j) == '{' ? anth_object(&j, &s, &type_stop, &type_error) : -1;
    if (!j.bad && r == 0 && (gp_js_ws(&j), j.p != j.end))
        j.bad = 1; /* bytes after the object: not one JSON document */
    if (type_error) {
        out->kind = GP_EV_ERROR;
        out->content_len = out->reasoning_len = 0;
        gp_js_cut(content, content0);
        gp_js_cut(reasoning, reasoning0);
        return;
    }
    if (j.bad || r != 0) {
        out->kind = GP_EV_BAD;
        out->content_len = out->reasoning_len = 0;
        out->has_usage = out->bad_usage = 0;
        gp_js_cut(content, content0);
        gp_js_cut(reasoning, reasoning0);
        return;
    }
    if (!s.known) {
        out->kind = GP_EV_FOREIGN; /* {}, {"status":"ok"}: no Messages API event */
        out->has_usage = out->bad_usage = 0;
        return;
    }
    out->kind = type_stop ? GP_EV_DONE : GP_EV_CHUNK;
}
