/* metrics/event.c — one OpenAI event (a chat.completion(.chunk) /
 * text_completion / error object, or [DONE]) read with the non-allocating
 * scanner of jscan_int.h, and the template that lets a stream's token chunks
 * skip all but their text (gp_event_parse_tmpl).
 *
 * It reads only the handful of keys metrics need and skips everything else
 * without building a tree: parsing a million requests' events through a DOM
 * would dominate post-processing time.
 */
#include "metrics/sse.h"
#include "metrics/jscan_int.h"

#include <string.h>

#define KEQ(lit) GP_JS_EQ(k, kl, lit)

struct scan_state {
    struct gp_buf *content, *reasoning, *errtext;
    struct gp_event_info *info;
    const char *cpos, *cend; /* the last content string read into content (the template's slot) */
    size_t clen;             /* the bytes that string appended */
    int ntext;               /* content strings read into content */
};

/* Every string that is output text (delta.content / message.content / text,
 * delta.refusal / message.refusal, tool-call arguments) is read here and
 * nowhere else: a string is appended to content, and where it stood is kept
 * for the template (gp_event_parse_tmpl), which may serve an event only when
 * that one string was all its text. */
static size_t content_field(struct gp_js *j, struct scan_state *s)
{
    if (gp_js_peek(j) != '"')
        return gp_js_text(j, s->content);
    const char *at = j->p;
    size_t n = gp_js_str(j, s->content);
    s->cpos = at;
    s->cend = j->p;
    s->clen = n;
    s->ntext++;
    return n;
}

/* delta.tool_calls / message.tool_calls: [{"index", "id", "type", "function":
 * {"name", "arguments"}}]. The arguments are the model's output: read into
 * content like delta.content (the first fragment is the first token, the
 * text is tokenized into OSL; an event whose only text is one fragment
 * serves as the template too). Names and ids are not output text. */
static void scan_tool_calls(struct gp_js *j, struct scan_state *s)
{
    if (!gp_js_eat(j, '[')) {
        gp_js_skip(j);
        return;
    }
    if (gp_js_eat(j, ']'))
        return;
    do {
        const char *k;
        size_t kl;
        int first = 1;
        if (gp_js_peek(j) != '{') {
            gp_js_skip(j);
            continue;
        }
        while (!j->bad && gp_js_obj_next(j, &first, &k, &kl) == 1) {
            int f1 = 1;
            if (!KEQ("function") || gp_js_peek(j) != '{') {
                gp_js_skip(j);
                continue;
            }
            while (!j->bad && gp_js_obj_next(j, &f1, &k, &kl) == 1) {
                if (KEQ("arguments"))
                    s->info->content_len += content_field(j, s);
                else
                    gp_js_skip(j);
            }
        }
    } while (!j->bad && gp_js_eat(j, ','));
    if (!j->bad && !gp_js_eat(j, ']'))
        j->bad = 1;
}

/* delta / message object of a choice. A refusal (delta.refusal, streamed;
 * message.refusal, not) is what the model wrote in place of an answer:
 * output as content is (openai-node 7.60.0, chat/completions.d.ts,
 * ChatCompletionChunk.Choice.Delta.refusal and ChatCompletionMessage.refusal:
 * a string or null). */
static void scan_delta(struct gp_js *j, struct scan_state *s)
{
    if (!gp_js_open(j, '{'))
        return;
    const char *k;
    size_t kl;
    int first = 1, r;
    while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("content") || KEQ("refusal"))
            s->info->content_len += content_field(j, s);
        else if (KEQ("reasoning_content") || KEQ("reasoning"))
            s->info->reasoning_len += gp_js_text(j, s->reasoning);
        else if (KEQ("tool_calls"))
            scan_tool_calls(j, s);
        else
            gp_js_skip(j);
        if (j->bad)
            return;
    }
}

static void scan_choice(struct gp_js *j, struct scan_state *s)
{
    if (gp_js_peek(j) != '{') {
        gp_js_skip(j);
        return;
    }
    const char *k;
    size_t kl;
    int first = 1, r;
    while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("delta") || KEQ("message"))
            scan_delta(j, s);
        else if (KEQ("text"))
            s->info->content_len += content_field(j, s);
        else if (KEQ("finish_reason"))
            gp_js_finish(j, &s->info->has_finish);
        else
            gp_js_skip(j);
        if (j->bad)
            return;
    }
}

static void scan_choices(struct gp_js *j, struct scan_state *s)
{
    if (!gp_js_open(j, '['))
        return;
    s->info->n_choices = 0;
    int first = 1;
    while (gp_js_arr_next(j, &first) == 1) {
        /* GenAI-Perf reads choices[0] only; with n > 1 the others are other
         * sequences, not more text of this one */
        if (s->info->n_choices == 0)
            scan_choice(j, s);
        else
            gp_js_skip(j);
        if (j->bad)
            return;
        s->info->n_choices++;
    }
}

static void scan_usage(struct gp_js *j, struct scan_state *s)
{
    if (!gp_js_open(j, '{'))
        return;
    const char *k;
    size_t kl;
    int first = 1, r;
    s->info->has_usage = 1;
    while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("prompt_tokens"))
            s->info->prompt_tokens = gp_js_usage_count(j, s->info, GP_USAGE_PROMPT);
        else if (KEQ("completion_tokens"))
            s->info->completion_tokens = gp_js_usage_count(j, s->info, GP_USAGE_COMPLETION);
        else if (KEQ("prompt_tokens_details") && gp_js_peek(j) == '{')
            gp_js_cached_details(j, s->info);
        else
            gp_js_skip(j);
        if (j->bad)
            return;
    }
}

void gp_event_tmpl_free(struct gp_event_tmpl *t)
{
    gp_buf_free(&t->bytes);
    memset(t, 0, sizeof *t);
}

/* The template's answer for [json, end), or 0 (nothing appended) when the
 * bytes differ from it outside its content string. Equal bytes up to the
 * string bring the scanner to the same state there; a string of any text
 * leaves it in the same state after; equal bytes after it end the same. */
static int from_tmpl(const char *json, const char *end, struct gp_buf *content, struct gp_event_tmpl *t,
                     struct gp_event_info *out)
{
    size_t len = (size_t)(end - json), pre = t->cstart, suf = t->bytes.len - t->cend;
    if (len < pre + 2 + suf || memcmp(json, t->bytes.data, pre) != 0 ||
        memcmp(end - suf, t->bytes.data + t->cend, suf) != 0)
        return 0;
    size_t content0 = content ? content->len : 0;
    struct gp_js j = {json + pre, end - suf, 0};
    size_t got = gp_js_str(&j, content);
    if (j.bad || j.p != j.end) {
        gp_js_cut(content, content0);
        return 0;
    }
    *out = t->info;
    out->content_len = got;
    t->hits++;
    return 1;
}

/* Keeps [json, end) as the template when its only text was one content
 * string; else leaves the template as it was (still a right answer for
 * the bytes it holds). The content_len check holds the template to that
 * even if a later field appends content some other way than content_field:
 * such an event is never kept, so it is never served without its text. */
static void keep_tmpl(const char *json, const char *end, const struct scan_state *s, struct gp_event_tmpl *t,
                      const struct gp_event_info *info)
{
    if (s->ntext != 1 || info->reasoning_len != 0 || info->content_len != s->clen)
        return;
    t->valid = 0;
    gp_buf_reset(&t->bytes);
    if (gp_buf_append(&t->bytes, json, (size_t)(end - json)))
        return;
    t->cstart = (size_t)(s->cpos - json);
    t->cend = (size_t)(s->cend - json);
    t->info = *info;
    t->info.content_len = 0;
    t->valid = 1;
}

void gp_event_parse(const char *json, size_t len, struct gp_buf *content, struct gp_buf *reasoning,
                    struct gp_buf *errtext, struct gp_event_info *out)
{
    gp_event_parse_tmpl(json, len, content, reasoning, errtext, NULL, out);
}

void gp_event_parse_tmpl(const char *json, size_t len, struct gp_buf *content, struct gp_buf *reasoning,
                         struct gp_buf *errtext, struct gp_event_tmpl *t, struct gp_event_info *out)
{
    memset(out, 0, sizeof *out);
    out->prompt_tokens = out->completion_tokens = out->cached_tokens = out->cache_write_tokens = -1;
    out->n_choices = -1;
    size_t content0 = content ? content->len : 0, reasoning0 = reasoning ? reasoning->len : 0;
    if (errtext)
        gp_buf_reset(errtext);

    size_t n = len;
    while (n && (json[n - 1] == ' ' || json[n - 1] == '\t' || json[n - 1] == '\r' || json[n - 1] == '\n'))
        n--;
    size_t s0 = 0;
    while (s0 < n && (json[s0] == ' ' || json[s0] == '\t' || json[s0] == '\r' || json[s0] == '\n'))
        s0++;
    if (n - s0 == 6 && memcmp(json + s0, "[DONE]", 6) == 0) {
        out->kind = GP_EV_DONE;
        return;
    }
    if (t && t->valid && from_tmpl(json + s0, json + n, content, t, out))
        return;
    struct gp_js j = {json + s0, json + n, 0};
    struct scan_state s = {content, reasoning, errtext, out, NULL, NULL, 0, 0};
    int is_error = 0, flat_error = 0;
    const char *k;
    size_t kl;
    int first = 1, r;
    if (gp_js_peek(&j) != '{') {
        out->kind = GP_EV_BAD;
        return;
    }
    while ((r = gp_js_obj_next(&j, &first, &k, &kl)) == 1) {
        if (KEQ("choices"))
            scan_choices(&j, &s);
        else if (KEQ("usage"))
            scan_usage(&j, &s);
        else if (KEQ("error")) {
            if (!gp_js_is_null(&j)) {
                is_error = 1;
                gp_js_error_value(&j, errtext, out);
            }
        } else if (KEQ("object") && gp_js_peek(&j) == '"') {
            const char *v = j.p + 1;
            gp_js_str(&j, NULL);
            if (j.p - v == 6 && memcmp(v, "error", 5) == 0)
                flat_error = 1;
        } else if (KEQ("message") && gp_js_peek(&j) == '"' && errtext && errtext->len == 0) {
            gp_js_str(&j, errtext); /* flat {"object":"error","message":...} */
        } else if (KEQ("code")) {
            long v = gp_js_num(&j);
            if (!out->error_code && v > 0 && v < 100000)
                out->error_code = (int)v;
        } else
            gp_js_skip(&j);
        if (j.bad)
            break;
    }
    if (is_error || flat_error) {
        out->kind = GP_EV_ERROR;
        out->content_len = out->reasoning_len = 0;
        gp_js_cut(content, content0);
        gp_js_cut(reasoning, reasoning0);
        return;
    }
    gp_js_cut(errtext, 0); /* a "message" key outside an error object is not an error */
    if (j.bad || r != 0) {
        /* keep nothing from a malformed event: GenAI-Perf drops it too */
        out->kind = GP_EV_BAD;
        out->content_len = out->reasoning_len = 0;
        out->has_usage = out->bad_usage = 0;
        gp_js_cut(content, content0);
        gp_js_cut(reasoning, reasoning0);
        return;
    }
    if (out->n_choices < 0 && !out->has_usage) {
        /* no "choices" and no usage: a health check's {"status":"ok"}, a
         * gateway's {}, no completion (nothing was read from it) */
        out->kind = GP_EV_FOREIGN;
        return;
    }
    out->kind = GP_EV_CHUNK;
    if (t)
        keep_tmpl(json + s0, json + n, &s, t, out);
}
