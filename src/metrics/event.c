/* metrics/event.c — a non-allocating JSON scanner for one OpenAI event (a
 * chat.completion(.chunk) / text_completion / error object, or [DONE]).
 *
 * It reads only the handful of keys metrics need and skips everything else
 * without building a tree: parsing a million requests' events through a DOM
 * would dominate post-processing time.
 */
#include "metrics/sse.h"
#include "metrics/sse_int.h"
#include "core/error.h"

#include <stdint.h>
#include <string.h>

/* ---- a minimal JSON scanner -------------------------------------------- */

#define js gp_js /* the scanner's state is shared with responses.c (sse_int.h) */

/* ws, peek and eat run several times per key: inline, so the common case
 * (no blank before the next token) costs two compares, not a call. */
static inline void ws(struct js *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static inline int peek(struct js *j)
{
    ws(j);
    return j->p < j->end ? (unsigned char)*j->p : -1;
}

static inline int eat(struct js *j, char c)
{
    if (peek(j) == (unsigned char)c) {
        j->p++;
        return 1;
    }
    return 0;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = s[k];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static int put_utf8(struct gp_buf *b, unsigned cp)
{
    char o[4];
    size_t n;
    if (cp < 0x80) {
        o[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        o[0] = (char)(0xF0 | (cp >> 18));
        o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return gp_buf_append(b, o, n);
}

/* Reads a string value; appends its decoded bytes to out (may be NULL) and
 * returns how many bytes it appended; j->bad on malformed input. Lone
 * surrogates become U+FFFD rather than failing the request. */
static size_t str(struct js *j, struct gp_buf *out)
{
    if (!eat(j, '"')) {
        j->bad = 1;
        return 0;
    }
    if (!out) {
        /* skipping: jump quote to quote; a quote is escaped when an odd
         * number of backslashes precedes it */
        for (;;) {
            const char *q = find2(j->p, j->end, '"', '"');
            if (q == j->end) {
                j->bad = 1;
                return 0;
            }
            const char *b = q;
            while (b > j->p && b[-1] == '\\')
                b--;
            j->p = q + 1;
            if (((q - b) & 1) == 0)
                return 0;
        }
    }
    size_t before = out ? out->len : 0;
    while (j->p < j->end) {
        const char *s = j->p;
        while (j->p < j->end && *j->p != '"' && *j->p != '\\')
            j->p++;
        if (out && j->p > s && gp_buf_append(out, s, (size_t)(j->p - s)))
            j->bad = 1;
        if (j->p >= j->end)
            break;
        if (*j->p == '"') {
            j->p++;
            return out ? out->len - before : 0;
        }
        /* backslash */
        if (j->end - j->p < 2)
            break;
        char c = j->p[1];
        j->p += 2;
        char lit = 0;
        switch (c) {
        case '"': lit = '"'; break;
        case '\\': lit = '\\'; break;
        case '/': lit = '/'; break;
        case 'b': lit = '\b'; break;
        case 'f': lit = '\f'; break;
        case 'n': lit = '\n'; break;
        case 'r': lit = '\r'; break;
        case 't': lit = '\t'; break;
        case 'u': {
            unsigned cp;
            if (j->end - j->p < 4 || hex4(j->p, &cp)) {
                j->bad = 1;
                return 0;
            }
            j->p += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {
                unsigned lo;
                if (j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u' && !hex4(j->p + 2, &lo) &&
                    lo >= 0xDC00 && lo < 0xE000) {
                    j->p += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                cp = 0xFFFD;
            }
            if (out && put_utf8(out, cp))
                j->bad = 1;
            continue;
        }
        default:
            j->bad = 1;
            return 0;
        }
        if (out && gp_buf_putc(out, lit))
            j->bad = 1;
    }
    j->bad = 1;
    return 0;
}

/* Skips any value (iteratively for containers, so hostile nesting cannot
 * blow the stack). */
static void skip(struct js *j)
{
    int c = peek(j);
    if (c == '"') {
        str(j, NULL);
        return;
    }
    if (c == '{' || c == '[') {
        long depth = 0;
        while (j->p < j->end) {
            char ch = *j->p;
            if (ch == '"') {
                str(j, NULL);
                if (j->bad)
                    return;
                continue;
            }
            j->p++;
            if (ch == '{' || ch == '[')
                depth++;
            else if (ch == '}' || ch == ']') {
                if (--depth == 0)
                    return;
            }
        }
        j->bad = 1;
        return;
    }
    /* number, true, false, null */
    const char *s = j->p;
    while (j->p < j->end && *j->p != ',' && *j->p != '}' && *j->p != ']' && *j->p != ' ' &&
           *j->p != '\n' && *j->p != '\r' && *j->p != '\t')
        j->p++;
    if (j->p == s)
        j->bad = 1;
}

static int is_null(struct js *j)
{
    if (peek(j) == 'n' && j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
        j->p += 4;
        return 1;
    }
    return 0;
}

/* An integer value (or -1 when it is not a plain number). */
static long num(struct js *j)
{
    int c = peek(j);
    if (c != '-' && (c < '0' || c > '9')) {
        skip(j);
        return -1;
    }
    int neg = 0;
    if (*j->p == '-') {
        neg = 1;
        j->p++;
    }
    long v = 0;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        if (v < 100000000000000L)
            v = v * 10 + (*j->p - '0');
        j->p++;
    }
    /* fraction/exponent: keep the integer part */
    while (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E' || *j->p == '+' ||
                             *j->p == '-' || (*j->p >= '0' && *j->p <= '9')))
        j->p++;
    return neg ? -v : v;
}

/* Reads an object key (its raw bytes between the quotes: keys we look for
 * never contain escapes) and the ':' after it. */
static int key(struct js *j, const char **k, size_t *kl)
{
    if (peek(j) != '"') {
        j->bad = 1;
        return -1;
    }
    const char *s = ++j->p;
    const char *q = s;
    while (q < j->end && *q != '"') /* keys are short: a plain loop */
        q++;
    while (q < j->end && q[-1] == '\\') {
        /* an escaped quote (only odd runs of backslashes escape it) */
        const char *b = q;
        while (b > s && b[-1] == '\\')
            b--;
        if (((q - b) & 1) == 0)
            break;
        q = find2(q + 1, j->end, '"', '"');
    }
    if (q == j->end) {
        j->bad = 1;
        return -1;
    }
    *k = s;
    *kl = (size_t)(q - s);
    j->p = q + 1;
    if (!eat(j, ':')) {
        j->bad = 1;
        return -1;
    }
    return 0;
}

#define KEQ(lit) (kl == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

/* Iterates an object: call first with *first = 1. Returns 1 with the key
 * read, 0 at the closing brace, -1 on error. */
static int obj_next(struct js *j, int *first, const char **k, size_t *kl)
{
    if (*first) {
        if (!eat(j, '{')) {
            j->bad = 1;
            return -1;
        }
        *first = 0;
        if (eat(j, '}'))
            return 0;
    } else {
        if (eat(j, '}'))
            return 0;
        if (!eat(j, ',')) {
            j->bad = 1;
            return -1;
        }
    }
    return key(j, k, kl) ? -1 : 1;
}

static size_t text_field(struct js *j, struct gp_buf *out)
{
    if (is_null(j))
        return 0;
    if (peek(j) != '"') {
        skip(j);
        return 0;
    }
    return str(j, out);
}

struct scan_state {
    struct gp_buf *content, *reasoning, *errtext;
    struct gp_event_info *info;
    const char *cpos, *cend; /* the last content string read into content (the template's slot) */
    int ntext;               /* content strings read into content */
};

/* delta.content / message.content / text: a string is read into content,
 * and where it stood is kept for the template (gp_event_parse_tmpl). */
static size_t content_field(struct js *j, struct scan_state *s)
{
    if (peek(j) != '"')
        return text_field(j, s->content);
    const char *at = j->p;
    size_t n = str(j, s->content);
    s->cpos = at;
    s->cend = j->p;
    s->ntext++;
    return n;
}

/* delta.tool_calls / message.tool_calls: [{"index", "id", "type", "function":
 * {"name", "arguments"}}]. The arguments are the model's output: read into
 * content like delta.content (the first fragment is the first token, the
 * text is tokenized into OSL; an event whose only text is one fragment
 * serves as the template too). Names and ids are not output text. */
static void scan_tool_calls(struct js *j, struct scan_state *s)
{
    if (!eat(j, '[')) {
        skip(j);
        return;
    }
    if (eat(j, ']'))
        return;
    do {
        const char *k;
        size_t kl;
        int first = 1;
        if (peek(j) != '{') {
            skip(j);
            continue;
        }
        while (!j->bad && obj_next(j, &first, &k, &kl) == 1) {
            int f1 = 1;
            if (!KEQ("function") || peek(j) != '{') {
                skip(j);
                continue;
            }
            while (!j->bad && obj_next(j, &f1, &k, &kl) == 1) {
                if (KEQ("arguments"))
                    s->info->content_len += content_field(j, s);
                else
                    skip(j);
            }
        }
    } while (!j->bad && eat(j, ','));
    if (!j->bad && !eat(j, ']'))
        j->bad = 1;
}

/* delta / message object of a choice */
static void scan_delta(struct js *j, struct scan_state *s)
{
    if (is_null(j))
        return;
    if (peek(j) != '{') {
        skip(j);
        return;
    }
    const char *k;
    size_t kl;
    int first = 1, r;
    while ((r = obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("content"))
            s->info->content_len += content_field(j, s);
        else if (KEQ("reasoning_content") || KEQ("reasoning"))
            s->info->reasoning_len += text_field(j, s->reasoning);
        else if (KEQ("tool_calls"))
            scan_tool_calls(j, s);
        else
            skip(j);
        if (j->bad)
            return;
    }
}

static void scan_choice(struct js *j, struct scan_state *s)
{
    if (peek(j) != '{') {
        skip(j);
        return;
    }
    const char *k;
    size_t kl;
    int first = 1, r;
    while ((r = obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("delta") || KEQ("message"))
            scan_delta(j, s);
        else if (KEQ("text"))
            s->info->content_len += content_field(j, s);
        else if (KEQ("finish_reason")) {
            if (!is_null(j)) {
                s->info->has_finish = 1;
                skip(j);
            }
        } else
            skip(j);
        if (j->bad)
            return;
    }
}

static void scan_choices(struct js *j, struct scan_state *s)
{
    if (is_null(j))
        return;
    if (!eat(j, '[')) {
        skip(j);
        return;
    }
    s->info->n_choices = 0;
    if (eat(j, ']'))
        return;
    for (;;) {
        /* GenAI-Perf reads choices[0] only; with n > 1 the others are other
         * sequences, not more text of this one */
        if (s->info->n_choices == 0)
            scan_choice(j, s);
        else
            skip(j);
        if (j->bad)
            return;
        s->info->n_choices++;
        if (eat(j, ','))
            continue;
        if (eat(j, ']'))
            return;
        j->bad = 1;
        return;
    }
}

/* A usage token count: a plain JSON integer in [0, INT32_MAX] (the
 * records keep int32), -1 for null. Anything else a server sends (out of
 * range, a fraction or exponent, negative, a string) is no count at all:
 * -1 with bad_usage set, never a number cut or rounded from it. */
static long usage_count(struct js *j, struct gp_event_info *info)
{
    if (is_null(j))
        return -1;
    int c = peek(j);
    if (c < '0' || c > '9') {
        skip(j);
        info->bad_usage = 1;
        return -1;
    }
    long v = 0;
    int over = 0;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        if (v <= INT32_MAX)
            v = v * 10 + (*j->p - '0');
        over |= v > INT32_MAX;
        j->p++;
    }
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E')) {
        skip(j); /* the rest of the number */
        over = 1;
    }
    if (over) {
        info->bad_usage = 1;
        return -1;
    }
    return v;
}

/* usage.prompt_tokens_details: {"cached_tokens": N} (prefix-cache hits;
 * vLLM, SGLang, TRT-LLM and OpenAI send it) */
static void scan_prompt_details(struct js *j, struct scan_state *s)
{
    const char *k;
    size_t kl;
    int first = 1;
    while (obj_next(j, &first, &k, &kl) == 1) {
        if (KEQ("cached_tokens") && peek(j) != 'n')
            s->info->cached_tokens = usage_count(j, s->info);
        else
            skip(j);
        if (j->bad)
            return;
    }
}

static void scan_usage(struct js *j, struct scan_state *s)
{
    if (is_null(j))
        return;
    if (peek(j) != '{') {
        skip(j);
        return;
    }
    const char *k;
    size_t kl;
    int first = 1, r;
    s->info->has_usage = 1;
    while ((r = obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("prompt_tokens"))
            s->info->prompt_tokens = usage_count(j, s->info);
        else if (KEQ("completion_tokens"))
            s->info->completion_tokens = usage_count(j, s->info);
        else if (KEQ("prompt_tokens_details") && peek(j) == '{')
            scan_prompt_details(j, s);
        else
            skip(j);
        if (j->bad)
            return;
    }
}

/* "error": {"message": ..., "code": N} | "error": "text" */
static void scan_error(struct js *j, struct scan_state *s)
{
    int c = peek(j);
    if (c == '"') {
        str(j, s->errtext && s->errtext->len == 0 ? s->errtext : NULL);
        return;
    }
    if (c != '{') {
        skip(j);
        return;
    }
    const char *k;
    size_t kl;
    int first = 1, r;
    while ((r = obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("message") && peek(j) == '"') {
            str(j, s->errtext && s->errtext->len == 0 ? s->errtext : NULL);
        } else if (KEQ("code")) {
            long v = num(j);
            s->info->error_code = v > 0 && v < 100000 ? (int)v : 0;
        } else
            skip(j);
        if (j->bad)
            return;
    }
}

static void buf_cut(struct gp_buf *b, size_t n)
{
    if (b && b->data && b->len > n) {
        b->len = n;
        b->data[n] = '\0';
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
    struct js j = {json + pre, end - suf, 0};
    size_t got = str(&j, content);
    if (j.bad || j.p != j.end) {
        buf_cut(content, content0);
        return 0;
    }
    *out = t->info;
    out->content_len = got;
    t->hits++;
    return 1;
}

/* Keeps [json, end) as the template when its only text was one content
 * string; else leaves the template as it was (still a right answer for
 * the bytes it holds). */
static void keep_tmpl(const char *json, const char *end, const struct scan_state *s, struct gp_event_tmpl *t,
                      const struct gp_event_info *info)
{
    if (s->ntext != 1 || info->reasoning_len != 0)
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
    out->prompt_tokens = out->completion_tokens = out->cached_tokens = -1;
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
    struct js j = {json + s0, json + n, 0};
    struct scan_state s = {content, reasoning, errtext, out, NULL, NULL, 0};
    int is_error = 0, flat_error = 0;
    const char *k;
    size_t kl;
    int first = 1, r;
    if (peek(&j) != '{') {
        out->kind = GP_EV_BAD;
        return;
    }
    while ((r = obj_next(&j, &first, &k, &kl)) == 1) {
        if (KEQ("choices"))
            scan_choices(&j, &s);
        else if (KEQ("usage"))
            scan_usage(&j, &s);
        else if (KEQ("error")) {
            if (!is_null(&j)) {
                is_error = 1;
                scan_error(&j, &s);
            }
        } else if (KEQ("object") && peek(&j) == '"') {
            const char *v = j.p + 1;
            str(&j, NULL);
            if (j.p - v == 6 && memcmp(v, "error", 5) == 0)
                flat_error = 1;
        } else if (KEQ("message") && peek(&j) == '"' && errtext && errtext->len == 0) {
            str(&j, errtext); /* flat {"object":"error","message":...} */
        } else if (KEQ("code")) {
            long v = num(&j);
            if (!out->error_code && v > 0 && v < 100000)
                out->error_code = (int)v;
        } else
            skip(&j);
        if (j.bad)
            break;
    }
    if (is_error || flat_error) {
        out->kind = GP_EV_ERROR;
        out->content_len = out->reasoning_len = 0;
        buf_cut(content, content0);
        buf_cut(reasoning, reasoning0);
        return;
    }
    buf_cut(errtext, 0); /* a "message" key outside an error object is not an error */
    if (j.bad || r != 0) {
        /* keep nothing from a malformed event: GenAI-Perf drops it too */
        out->kind = GP_EV_BAD;
        out->content_len = out->reasoning_len = 0;
        out->has_usage = out->bad_usage = 0;
        buf_cut(content, content0);
        buf_cut(reasoning, reasoning0);
        return;
    }
    out->kind = GP_EV_CHUNK;
    if (t)
        keep_tmpl(json + s0, json + n, &s, t, out);
}

/* ---- the scanner for the other wire formats (sse_int.h) ---------------- */
int gp_js_peek(struct gp_js *j) { return peek(j); }
int gp_js_is_null(struct gp_js *j) { return is_null(j); }
size_t gp_js_str(struct gp_js *j, struct gp_buf *out) { return str(j, out); }
void gp_js_skip(struct gp_js *j) { skip(j); }
int gp_js_obj_next(struct gp_js *j, int *first, const char **k, size_t *kl) { return obj_next(j, first, k, kl); }
long gp_js_usage_count(struct gp_js *j, struct gp_event_info *info) { return usage_count(j, info); }
long gp_js_num(struct gp_js *j) { return num(j); }
#include "metrics/event_anthropic.inc"
