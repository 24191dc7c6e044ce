/* report/html.c — escaping for everything the page and reports put into HTML.
 *
 * Owns no memory beyond what it appends to the caller's gp_buf. Data shown by
 * the page (model names, error texts) comes from files and servers, so text
 * that C writes into HTML goes through gp_html_escape, and JSON embedded in a
 * <script> element goes through gp_json_script_escape; the browser side only
 * ever uses text nodes.
 */
#include "report/report.h"

#include "core/buf.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if the bytes there
 * are not one (overlongs, surrogates and > U+10FFFF count as invalid). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

int gp_html_escape(struct gp_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0; /* bytes [run, i) are copied verbatim in one append */
    while (i < n) {
        const char *rep = NULL;
        size_t adv = 1;
        switch (p[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        case '\0': rep = "\xEF\xBF\xBD"; break;
        default:
            adv = utf8_seq(p + i, n - i);
            if (adv == 0) {
                rep = "\xEF\xBF\xBD";
                adv = 1;
            }
        }
        if (rep) {
            if (gp_buf_append(b, p + run, i - run) < 0 || gp_buf_puts(b, rep) < 0)
                return -GP_ENOMEM;
            run = i + adv;
        }
        i += adv;
    }
    return gp_buf_append(b, p + run, n - run) < 0 ? -GP_ENOMEM : 0;
}

int gp_json_script_escape(struct gp_buf *b, const char *json, size_t n)
{
    const unsigned char *p = (const unsigned char *)json;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = NULL;
        size_t skip = 1;
        if (p[i] == '<')
            rep = "\\u003c";
        else if (p[i] == '>')
            rep = "\\u003e";
        else if (p[i] == '&')
            rep = "\\u0026";
        else if (p[i] == 0xE2 && i + 2 < n && p[i + 1] == 0x80 && (p[i + 2] == 0xA8 || p[i + 2] == 0xA9)) {
            rep = p[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
            skip = 3;
        }
        if (!rep)
            continue;
        /* Outside strings these bytes cannot occur in JSON, so replacing
         * them everywhere only ever touches string contents. */
        if (gp_buf_append(b, p + run, i - run) < 0 || gp_buf_puts(b, rep) < 0)
            return -GP_ENOMEM;
        i += skip - 1;
        run = i + 1;
    }
    return gp_buf_append(b, p + run, n - run) < 0 ? -GP_ENOMEM : 0;
}

char *gp_json_sanitize_py(const char *t, size_t n)
{
    struct gp_buf b = {0};
    int in_str = 0;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
            continue;
        }
        if (c == '"') {
            in_str = 1;
            continue;
        }
        size_t tok = 0;
        if (c == 'N' && n - i >= 3 && !memcmp(t + i, "NaN", 3))
            tok = 3;
        else if (c == 'I' && n - i >= 8 && !memcmp(t + i, "Infinity", 8))
            tok = 8;
        else if (c == '-' && n - i >= 9 && !memcmp(t + i, "-Infinity", 9))
            tok = 9;
        if (!tok)
            continue;
        if (gp_buf_append(&b, t + run, i - run) < 0 || gp_buf_puts(&b, "null") < 0) {
            gp_buf_free(&b);
            return NULL;
        }
        i += tok - 1;
        run = i + 1;
    }
    if (gp_buf_append(&b, t + run, n - run) < 0 || (!b.data && gp_buf_puts(&b, "") < 0)) {
        gp_buf_free(&b);
        return NULL;
    }
    return gp_buf_steal(&b);
}
