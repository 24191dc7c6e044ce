/* metrics/jscan.c — the non-allocating JSON scanner (jscan_int.h): strings
 * with escapes decoded into a caller's buffer, values skipped without a tree,
 * object keys, numbers, usage counts and error values.
 *
 * A module of its own so that the three wire-format parsers (event.c,
 * responses.c, anthropic.c) call one scanner directly, with no wrapper layer.
 */
#include "metrics/jscan_int.h"
#include "metrics/sse.h"
#include "metrics/sse_int.h"

#include <stdint.h>
#include <string.h>

#define KEQ(lit) GP_JS_EQ(k, kl, lit)

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

size_t gp_js_str(struct gp_js *j, struct gp_buf *out)
{
    if (!gp_js_eat(j, '"')) {
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

void gp_js_skip(struct gp_js *j)
{
    int c = gp_js_peek(j);
    if (c == '"') {
        gp_js_str(j, NULL);
        return;
    }
    if (c == '{' || c == '[') {
        long depth = 0;
        while (j->p < j->end) {
            char ch = *j->p;
            if (ch == '"') {
                gp_js_str(j, NULL);
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

long gp_js_num(struct gp_js *j)
{
    int c = gp_js_peek(j);
    if (c != '-' && (c < '0' || c > '9')) {
        gp_js_skip(j);
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
static int key(struct gp_js *j, const char **k, size_t *kl)
{
    if (gp_js_peek(j) != '"') {
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
    if (!gp_js_eat(j, ':')) {
        j->bad = 1;
        return -1;
    }
    return 0;
}

int gp_js_obj_next(struct gp_js *j, int *first, const char **k, size_t *kl)
{
    if (*first) {
        if (!gp_js_eat(j, '{')) {
            j->bad = 1;
            return -1;
        }
        *first = 0;
        if (gp_js_eat(j, '}'))
            return 0;
    } else {
        if (gp_js_eat(j, '}'))
            return 0;
        if (!gp_js_eat(j, ',')) {
            j->bad = 1;
            return -1;
        }
    }
    return key(j, k, kl) ? -1 : 1;
}

size_t gp_js_text(struct gp_js *j, struct gp_buf *out)
{
    if (gp_js_is_null(j))
        return 0;
    if (gp_js_peek(j) != '"') {
        gp_js_skip(j);
        return 0;
    }
    return gp_js_str(j, out);
}

long gp_js_usage_count(struct gp_js *j, struct gp_event_info *info, unsigned field)
{
    if (gp_js_is_null(j))
        return -1;
    int c = gp_js_peek(j);
    if (c < '0' || c > '9') {
        gp_js_skip(j);
        info->bad_usage |= field;
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
        gp_js_skip(j); /* the rest of the number */
        over = 1;
    }
    if (over) {
        info->bad_usage |= field;
        return -1;
    }
    return v;
}

/* "error": {"message": ..., "code": N} | "error": "text" (OpenAI's shape;
 * Anthropic's error object has the same "message") */
void gp_js_error_value(struct gp_js *j, struct gp_buf *errtext, struct gp_event_info *info)
{
    int c = gp_js_peek(j);
    if (c == '"') {
        gp_js_str(j, errtext && errtext->len == 0 ? errtext : NULL);
        return;
    }
    if (c != '{') {
        gp_js_skip(j);
        return;
    }
    const char *k;
    size_t kl;
    int first = 1, r;
    while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("message") && gp_js_peek(j) == '"') {
            gp_js_str(j, errtext && errtext->len == 0 ? errtext : NULL);
        } else if (KEQ("code")) {
            long v = gp_js_num(j);
            info->error_code = v > 0 && v < 100000 ? (int)v : 0;
        } else
            gp_js_skip(j);
        if (j->bad)
            return;
    }
}

void gp_js_cached_details(struct gp_js *j, struct gp_event_info *info)
{
    const char *k;
    size_t kl;
    int first = 1;
    while (gp_js_obj_next(j, &first, &k, &kl) == 1) {
        if (KEQ("cached_tokens") && gp_js_peek(j) != 'n')
            info->cached_tokens = gp_js_usage_count(j, info, GP_USAGE_CACHED);
        else
            gp_js_skip(j);
        if (j->bad)
            return;
    }
}

void gp_js_usage_io(struct gp_js *j, struct gp_event_info *info)
{
    if (!gp_js_open(j, '{'))
        return;
    const char *k;
    size_t kl;
    int first = 1, r;
    info->has_usage = 1;
    while ((r = gp_js_obj_next(j, &first, &k, &kl)) == 1) {
        if (KEQ("input_tokens"))
            info->prompt_tokens = gp_js_usage_count(j, info, GP_USAGE_PROMPT);
        else if (KEQ("output_tokens"))
            info->completion_tokens = gp_js_usage_count(j, info, GP_USAGE_COMPLETION);
        else if (KEQ("input_tokens_details") && gp_js_peek(j) == '{')
            gp_js_cached_details(j, info);
        else if (KEQ("cache_read_input_tokens"))
            info->cached_tokens = gp_js_usage_count(j, info, GP_USAGE_CACHED);
        else if (KEQ("cache_creation_input_tokens"))
            info->cache_write_tokens = gp_js_usage_count(j, info, GP_USAGE_CACHE_WRITE);
        else
            gp_js_skip(j);
        if (j->bad)
            return;
    }
}

void gp_js_keys(const char *json, size_t len, struct gp_buf *out, size_t max)
{
    struct gp_js j = {json, json + len, 0};
    const char *k;
    size_t kl, start = out->len;
    int first = 1;
    if (gp_js_peek(&j) != '{')
        return;
    while (gp_js_obj_next(&j, &first, &k, &kl) == 1) {
        if (out->len - start >= max) {
            gp_buf_puts(out, ", ...");
            return;
        }
        if (out->len > start)
            gp_buf_puts(out, ", ");
        gp_buf_append(out, k, kl);
        gp_js_skip(&j);
        if (j.bad)
            return;
    }
}
