/* Unit tests: the Python-exact float repr and json.dumps writer of core/pytext.h. */
#include "core/buf.h"
#include "core/pytext.h"
#include "core/test.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *real_repr(double x, struct gp_buf *b)
{
    gp_buf_reset(b);
    gp_py_float(b, x);
    return b->data;
}

static void test_python_real_repr(void)
{
    struct gp_buf b = {0};
    CHECK_STR(real_repr(0.7, &b), "0.7");
    CHECK_STR(real_repr(1.0, &b), "1.0");
    CHECK_STR(real_repr(100.0, &b), "100.0");
    CHECK_STR(real_repr(-0.0, &b), "-0.0");
    CHECK_STR(real_repr(0.0, &b), "0.0");
    CHECK_STR(real_repr(1e-5, &b), "1e-05");
    CHECK_STR(real_repr(0.0001, &b), "0.0001");
    CHECK_STR(real_repr(1e16, &b), "1e+16");
    CHECK_STR(real_repr(1e15, &b), "1000000000000000.0");
    CHECK_STR(real_repr(123456.789, &b), "123456.789");
    CHECK_STR(real_repr(0.1 + 0.2, &b), "0.30000000000000004");
    CHECK_STR(real_repr(1.5e300, &b), "1.5e+300");
    CHECK_STR(real_repr(-2.5e-7, &b), "-2.5e-07");
    gp_buf_free(&b);
}

/* The float8 text (store): shortest round trip, "4" not "4.0". */
static void test_float8_text(void)
{
    char s[40];
    gp_float8_text(61.599999999999994, s, sizeof s);
    CHECK_STR(s, "61.599999999999994");
    gp_float8_text(4.0, s, sizeof s);
    CHECK_STR(s, "4");
    gp_float8_text(0.1, s, sizeof s);
    CHECK_STR(s, "0.1");
    gp_float8_text(1e-05, s, sizeof s);
    CHECK_STR(s, "1e-05");
    gp_float8_text(15.686274509803921, s, sizeof s);
    CHECK(strtod(s, NULL) == 15.686274509803921);
}

static void test_python_dump(void)
{
    json_error_t je;
    json_t *v = json_loads("{\"a\":[1,2.5,\"x\\u00e9\\ud83d\\ude00/\\u0001\\u007f\\n\"],\"b\":{},\"c\":[],\"d\":null,"
                           "\"e\":true}",
                           0, &je);
    CHECK(v != NULL);
    struct gp_buf b = {0};
    gp_json_dump(&b, v, 2, 0, GP_JSON_PYTHON);
    CHECK_STR(b.data, "{\n  \"a\": [\n    1,\n    2.5,\n    \"x\\u00e9\\ud83d\\ude00/\\u0001\\u007f\\n\"\n  ],\n"
                      "  \"b\": {},\n  \"c\": [],\n  \"d\": null,\n  \"e\": true\n}");
    gp_buf_reset(&b);
    gp_json_dump(&b, v, -1, 0, GP_JSON_RAPIDJSON);
    CHECK_STR(b.data, "{\"a\":[1,2.5,\"x\xc3\xa9\xf0\x9f\x98\x80/\\u0001\x7f\\n\"],\"b\":{},\"c\":[],\"d\":null,"
                      "\"e\":true}");
    json_decref(v);
    gp_buf_free(&b);
}


/* A byte-at-a-time reference of gp_json_str's rules (pytext.h), to compare
 * the vectorised escaper against (its SSE2 block path and its SSSE3
 * quote-expanding path). */
static size_t ref_utf8(const unsigned char *u, size_t n, unsigned *cp)
{
    unsigned c = u[0], v, min;
    size_t l;
    if ((c & 0xE0) == 0xC0)
        l = 2, v = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        l = 3, v = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        l = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n < l)
        return 0;
    for (size_t i = 1; i < l; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (u[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
        return 0;
    *cp = v;
    return l;
}

static void ref_u4(struct gp_buf *b, unsigned v, unsigned flags)
{
    char t[8];
    snprintf(t, sizeof t, (flags & GP_JSON_UPPER_HEX) ? "\\u%04X" : "\\u%04x", v);
    gp_buf_puts(b, t);
}

static void ref_json_str(struct gp_buf *b, const unsigned char *u, size_t n, unsigned flags)
{
    gp_buf_putc(b, '"');
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                      : c == '\t' ? "\\t" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
        if (e) {
            gp_buf_puts(b, e);
            i++;
        } else if (c < 0x20 || (c == 0x7F && (flags & GP_JSON_ASCII))) {
            ref_u4(b, c, flags);
            i++;
        } else if (c < 0x80 || (flags & GP_JSON_RAW_BYTES)) {
            gp_buf_putc(b, (char)c);
            i++;
        } else {
            unsigned cp;
            size_t l = ref_utf8(u + i, n - i, &cp);
            if (!l) {
                gp_buf_puts(b, "\\ufffd");
                i++;
            } else if (!(flags & GP_JSON_ASCII)) {
                gp_buf_append(b, (const char *)u + i, l);
                i += l;
            } else {
                i += l;
                if (cp >= 0x10000) {
                    ref_u4(b, 0xD800 + ((cp - 0x10000) >> 10), flags);
                    ref_u4(b, 0xDC00 + ((cp - 0x10000) & 0x3FF), flags);
                } else {
                    ref_u4(b, cp, flags);
                }
            }
        }
    }
    gp_buf_putc(b, '"');
}

static void test_json_str_matches_reference(void)
{
    /* pieces weighted like SSE chunks (a quote every few bytes), plus
     * controls, DEL, valid and broken UTF-8 */
    static const char *const piece[] = {
        "\"", "\"", "\"", "\\", "a", "bc", "data: {", "\":\"", "0123456789", "\n", "\t", "\x01", "\x1f",
        "\x7f", "\xc3\xa9", "\xf0\x9f\x98\x80", "\xe2\x82", "\xff", "\xed\xa0\x80", "}", " ",
    };
    static const unsigned flag_sets[] = {0, GP_JSON_PYTHON, GP_JSON_RAPIDJSON, GP_JSON_UPPER_HEX};
    struct gp_buf got = {0}, want = {0}, in = {0};
    uint64_t x = 88172645463325252ull;
    int bad = 0;
    for (int t = 0; t < 4000; t++) {
        gp_buf_reset(&in);
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t pieces = x % 60;
        for (size_t k = 0; k < pieces; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* a run of quote-dense text most of the time */
            size_t np = sizeof piece / sizeof *piece;
            size_t w = (x >> 8) % 4 ? (x >> 16) % 8 : (x >> 16) % np;
            gp_buf_puts(&in, piece[w]);
        }
        for (size_t f = 0; f < sizeof flag_sets / sizeof *flag_sets; f++) {
            gp_buf_reset(&got);
            gp_buf_reset(&want);
            gp_json_str(&got, in.data ? in.data : "", in.len, flag_sets[f]);
            ref_json_str(&want, (const unsigned char *)(in.data ? in.data : ""), in.len, flag_sets[f]);
            if (got.len != want.len || memcmp(got.data, want.data, got.len) != 0)
                bad++;
        }
    }
    CHECK_INT(bad, 0);
    gp_buf_free(&got);
    gp_buf_free(&want);
    gp_buf_free(&in);
}

/* Every length up to 130 of text whose escapes are all two-byte ones (the
 * AVX-512 path's 32-byte blocks and its partial last block), and the same
 * with one byte that needs more (a control, a DEL, UTF-8, broken UTF-8) at
 * each position: the escaper hands the rest to the SSSE3 path there. */
static void test_json_str_blocks_and_handover(void)
{
    static const char cls[] = {'"', '\\', '\n', '\r', '\t', 'a', '/', '{'};
    static const char *const odd[] = {"\x01", "\x7f", "\xc3\xa9", "\xe2\x82", "\xff"};
    struct gp_buf got = {0}, want = {0}, in = {0};
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int bad = 0, cases = 0;
    for (size_t len = 0; len <= 130; len++) {
        for (size_t at = 0; at <= len; at++) {
            gp_buf_reset(&in);
            for (size_t k = 0; k < len; k++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                if (k == at && at < len)
                    gp_buf_puts(&in, odd[(x >> 20) % (sizeof odd / sizeof *odd)]);
                gp_buf_putc(&in, cls[(x >> 8) % sizeof cls]);
            }
            gp_buf_reset(&got);
            gp_buf_reset(&want);
            gp_json_str(&got, in.data ? in.data : "", in.len, 0);
            ref_json_str(&want, (const unsigned char *)(in.data ? in.data : ""), in.len, 0);
            bad += got.len != want.len || memcmp(got.data, want.data, got.len) != 0;
            cases++;
            if (len % 7) /* the handover at every position for some lengths */
                break;
        }
    }
    CHECK_INT(bad, 0);
    CHECK(cases > 300);
    gp_buf_free(&got);
    gp_buf_free(&want);
    gp_buf_free(&in);
}

int main(void)
{
    GP_RUN(test_json_str_matches_reference);
    GP_RUN(test_json_str_blocks_and_handover);
    GP_RUN(test_python_real_repr);
    GP_RUN(test_python_dump);
    GP_RUN(test_float8_text);
    return gp_test_summary();
}
