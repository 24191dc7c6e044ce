/* export/fastput.h — private to export/: appenders for the big streamed
 * files (profile_export.json, records.jsonl).
 *
 * Owns nothing: each appends to a caller's gp_buf, with the same contract as
 * gp_buf_append (0 or -GP_ENOMEM, data stays NUL-terminated). printf
 * dominated a million-request export; these write straight into reserved
 * buffer space. Strings go through gp_json_str (core/pytext.h).
 */
#ifndef GP_EXPORT_FASTPUT_H
#define GP_EXPORT_FASTPUT_H

#include "core/buf.h"
#include "core/error.h"

#include <stdint.h>
#include <string.h>

/* Reserve fast path: the streamed files append a few bytes at a time, so
 * the common case (room left) must not cost a call. */
static inline int room(struct gp_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return 0;
    return gp_buf_reserve(b, extra);
}

static const char digits2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

static const uint64_t pow10_tab[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
    10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
    10000000000000000000ull,
};

/* decimal digits of v: log2 * log10(2) (1233/4096) then one correction */
static inline unsigned ndigits(uint64_t v)
{
    unsigned t = ((unsigned)(64 - __builtin_clzll(v | 1)) * 1233) >> 12;
    return t - ((v | 1) < pow10_tab[t]) + 1; /* v | 1: 0 has one digit */
}

static inline int put_u64(struct gp_buf *b, uint64_t v)
{
    if (room(b, 24))
        return -GP_ENOMEM;
    /* written in place from the last digit, two per division: nanosecond
     * wall times have 19 digits */
    unsigned n = ndigits(v);
    char *p = b->data + b->len + n;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = digits2[d + 1];
        *--p = digits2[d];
    }
    if (v >= 10) {
        unsigned d = (unsigned)v * 2;
        *--p = digits2[d + 1];
        *--p = digits2[d];
    } else {
        *--p = (char)('0' + v);
    }
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

static inline int put_i64(struct gp_buf *b, int64_t v)
{
    if (v < 0) {
        if (gp_buf_putc(b, '-'))
            return -GP_ENOMEM;
        return put_u64(b, (uint64_t)(-(v + 1)) + 1);
    }
    return put_u64(b, (uint64_t)v);
}

static inline int put_lit(struct gp_buf *b, const char *s, size_t n)
{
    if (room(b, n))
        return -GP_ENOMEM;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}
#define PUTS(b, lit) put_lit((b), (lit), sizeof(lit) - 1)

#endif
