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
#include "core/utf8.h"

#include <stdlib.h>
#include <string.h>

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
            adv = gp_utf8_len(p + i, n - i);
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
