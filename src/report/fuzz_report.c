/* report/fuzz_report.c — libFuzzer target for what the page does with
 * untrusted text: HTML escaping must never let '<' '>' '"' '\'' or invalid
 * UTF-8 through; the Python-JSON sanitizer plus jansson must not crash, and
 * whatever they accept must survive script escaping as the same JSON value.
 * Build: make fuzz-report (clang). */
#include "core/buf.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct gp_buf b = {0};
    if (gp_html_escape(&b, (const char *)data, size) == 0) {
        if (memchr(b.data, '<', b.len) || memchr(b.data, '>', b.len) || memchr(b.data, '"', b.len) ||
            memchr(b.data, '\'', b.len) || strlen(b.data) != b.len)
            abort();
    }
    gp_buf_free(&b);

    char *clean = gp_json_sanitize_py((const char *)data, size);
    if (clean) {
        json_t *j = json_loads(clean, JSON_DECODE_ANY, NULL);
        if (j) {
            char *t = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
            struct gp_buf e = {0};
            if (t && gp_json_script_escape(&e, t, strlen(t)) == 0) {
                if (strstr(e.data, "</") || memchr(e.data, '<', e.len))
                    abort();
                json_t *back = json_loads(e.data, JSON_DECODE_ANY, NULL);
                if (!back || !json_equal(back, j))
                    abort();
                json_decref(back);
            }
            gp_buf_free(&e);
            free(t);
            json_decref(j);
        }
        free(clean);
    }
    return 0;
}
