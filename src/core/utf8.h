/* core/utf8.h — the one UTF-8 decoder and encoder: the tokenizer (pre-
 * tokenisation, BPE symbols, normalizers, decoders), the JSON string writers
 * of core/pytext.c and the HTML escaper of report/html.c all use it.
 *
 * Owns nothing; every function reads or writes only the caller's bytes.
 * Static inline because two of the callers are hot loops (the tokenizer walks
 * every character of every prompt; the JSON escaper every non-ASCII one), and
 * an out-of-line call per character costs them measurably.
 *
 * "Valid" is Unicode's well-formed UTF-8 (Table 3-7): no overlong forms, no
 * surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no truncated sequence. */
#ifndef GP_CORE_UTF8_H
#define GP_CORE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (1..4) of the valid UTF-8 sequence at s, n >= 1 bytes available;
 * 0 if the bytes there are not one. ASCII is 1. The second byte's range
 * depends on the lead byte (E0: A0..BF, ED: 80..9F, F0: 90..BF, F4: 80..8F),
 * which rules out overlongs, surrogates and > U+10FFFF without decoding. */
static inline size_t gp_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

/* The code point of the sequence at s, which the caller has checked is valid
 * (gp_utf8_len != 0); *len gets its length. Checks nothing: on invalid bytes
 * the result is meaningless (but reads at most 4 bytes). */
static inline uint32_t gp_utf8_cp(const unsigned char *s, size_t *len)
{
    unsigned c = s[0];
    if (c < 0x80) {
        *len = 1;
        return c;
    }
    if (c < 0xE0) {
        *len = 2;
        return ((c & 0x1Fu) << 6) | (s[1] & 0x3Fu);
    }
    if (c < 0xF0) {
        *len = 3;
        return ((c & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
    }
    *len = 4;
    return ((c & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) | (s[3] & 0x3Fu);
}

/* Writes the UTF-8 of cp (<= U+10FFFF) at out, which has room for 4 bytes;
 * returns its length. */
static inline size_t gp_utf8_enc(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

#endif
