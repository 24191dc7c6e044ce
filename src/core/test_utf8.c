/* Unit tests: core/utf8.h, the one UTF-8 decoder (tokenizer, JSON writers,
 * HTML escaper): the edges of well-formed UTF-8 and the encode/decode round
 * trip over every scalar value. */
#include "core/test.h"
#include "core/utf8.h"

#include <stdint.h>

static size_t len_of(const char *s, size_t n) { return gp_utf8_len((const unsigned char *)s, n); }

static void test_valid_edges(void)
{
    CHECK(len_of("A", 1) == 1);
    CHECK(len_of("\x7F", 1) == 1);
    CHECK(len_of("\xC2\x80", 2) == 2);             /* U+0080, the least two-byte */
    CHECK(len_of("\xDF\xBF", 2) == 2);             /* U+07FF */
    CHECK(len_of("\xE0\xA0\x80", 3) == 3);         /* U+0800 */
    CHECK(len_of("\xED\x9F\xBF", 3) == 3);         /* U+D7FF, just below the surrogates */
    CHECK(len_of("\xEE\x80\x80", 3) == 3);         /* U+E000, just above */
    CHECK(len_of("\xF0\x90\x80\x80", 4) == 4);     /* U+10000 */
    CHECK(len_of("\xF4\x8F\xBF\xBF", 4) == 4);     /* U+10FFFF, the greatest */
}

static void test_invalid(void)
{
    CHECK(len_of("\x80", 1) == 0);                 /* a lone continuation byte */
    CHECK(len_of("\xC0\x80", 2) == 0);             /* overlong NUL */
    CHECK(len_of("\xC1\xBF", 2) == 0);             /* overlong */
    CHECK(len_of("\xE0\x9F\xBF", 3) == 0);         /* overlong three-byte */
    CHECK(len_of("\xED\xA0\x80", 3) == 0);         /* U+D800, a surrogate */
    CHECK(len_of("\xED\xBF\xBF", 3) == 0);         /* U+DFFF */
    CHECK(len_of("\xF0\x8F\xBF\xBF", 4) == 0);     /* overlong four-byte */
    CHECK(len_of("\xF4\x90\x80\x80", 4) == 0);     /* U+110000 */
    CHECK(len_of("\xF5\x80\x80\x80", 4) == 0);
    CHECK(len_of("\xFF", 1) == 0);
    CHECK(len_of("\xE2\x82", 2) == 0);             /* truncated by n */
    CHECK(len_of("\xE2\x82\xAC", 2) == 0);         /* the bytes are there, but past n */
    CHECK(len_of("\xE2\x28\xAC", 3) == 0);         /* a bad continuation byte */
    CHECK(len_of("\xF0\x90\x80\x28", 4) == 0);
}

/* Every scalar value encodes to a sequence that gp_utf8_len accepts with the
 * same length and gp_utf8_cp decodes back. */
static void test_round_trip_all(void)
{
    int bad = 0;
    for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        char b[4];
        size_t l = gp_utf8_enc(cp, b), dl = 0;
        size_t want = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        if (l != want || gp_utf8_len((const unsigned char *)b, l) != l ||
            gp_utf8_cp((const unsigned char *)b, &dl) != cp || dl != l)
            bad++;
    }
    CHECK(bad == 0);
}

int main(void)
{
    GP_RUN(test_valid_edges);
    GP_RUN(test_invalid);
    GP_RUN(test_round_trip_all);
    return gp_test_summary();
}
