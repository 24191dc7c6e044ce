/* core/pytext.c — see pytext.h.
 *
 * The string escaper is the hot one (a million-request profile export is
 * mostly escaped SSE chunks), so it writes straight into reserved space and,
 * with SSE2, finds the bytes to escape sixteen at a time.
 *
 * repr(): the shortest round-trip digits are found by trying 1..17
 * significant digits. glibc's printf rounds correctly, and the closest
 * p-digit decimal round-trips whenever any p-digit decimal does, so the
 * first hit is the string David Gay's dtoa (Python's repr) returns.
 */
#include "core/pytext.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/utf8.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__) && !defined(GP_NO_SIMD)
#define GP_PYTEXT_SSE2 1
#include <emmintrin.h>
/* SSSE3 (pshufb) is chosen at run time, the build stays plain x86-64 */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define GP_PYTEXT_SSSE3 1
#include <tmmintrin.h>
#include "core/pytext_expand.inc"
/* AVX-512 VBMI2 likewise (gcc 8+ and clang 6+ know the intrinsics) */
#if defined(__x86_64__) && (defined(__clang__) ? __clang_major__ >= 6 : __GNUC__ >= 8)
#define GP_PYTEXT_AVX512 1
#include <immintrin.h>
#endif
#endif
#endif

/* ---- JSON string literals ---------------------------------------------- */

/* second byte of the two-byte escape of an ASCII byte that has one; 0:
 * \u00XX */
static const char esc2[128] = {
    ['"'] = '"', ['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't', ['\b'] = 'b', ['\f'] = 'f',
};

static inline char *put_u4(char *o, unsigned v, const char *hex)
{
    o[0] = '\\';
    o[1] = 'u';
    o[2] = hex[(v >> 12) & 15];
    o[3] = hex[(v >> 8) & 15];
    o[4] = hex[(v >> 4) & 15];
    o[5] = hex[v & 15];
    return o + 6;
}

/* writes the escape of u[*i] at o (at most 12 bytes), advances *i past what
 * it consumed; returns the new o */
static inline char *put_esc(char *o, const unsigned char *u, size_t *i, size_t n, unsigned flags)
{
    const char *hex = (flags & GP_JSON_UPPER_HEX) ? "0123456789ABCDEF" : "0123456789abcdef";
    unsigned c = u[*i];
    if (c < 0x80) {
        *i += 1;
        if (esc2[c]) {
            o[0] = '\\';
            o[1] = esc2[c];
            return o + 2;
        }
        return put_u4(o, c, hex); /* a control, or DEL under ensure_ascii */
    }
    if (flags & GP_JSON_RAW_BYTES) {
        *o = (char)c;
        *i += 1;
        return o + 1;
    }
    size_t l = gp_utf8_len(u + *i, n - *i);
    if (!l) {
        /* keeps the output valid JSON (a character split across two reads) */
        memcpy(o, "\\ufffd", 6);
        *i += 1;
        return o + 6;
    }
    if (!(flags & GP_JSON_ASCII)) {
        memcpy(o, u + *i, l);
        *i += l;
        return o + l;
    }
    uint32_t cp = gp_utf8_cp(u + *i, &l);
    *i += l;
    if (cp >= 0x10000) {
        unsigned v = cp - 0x10000;
        o = put_u4(o, 0xD800 + (v >> 10), hex);
        return put_u4(o, 0xDC00 + (v & 0x3FF), hex);
    }
    return put_u4(o, cp, hex);
}

#if GP_PYTEXT_SSE2
/* bit k set: byte k of the 16 at p stops a clean run. Signed compare: bytes
 * >= 0x80 are negative, so "< 0x20" catches them and the controls at once.
 * extra is DEL under ensure_ascii, else '"' again (a no-op). */
static inline unsigned esc_mask16(const unsigned char *p, __m128i extra)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i q = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    __m128i m = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(v, extra));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(q, m));
}

static inline void copy16(char *o, const unsigned char *p)
{
    _mm_storeu_si128((__m128i *)(void *)o, _mm_loadu_si128((const __m128i *)(const void *)p));
}

/* Escapes the lim (<= 16) bytes at input offset i, whose bytes are also at
 * src (32 readable bytes), m their escape mask. Every clean run is copied by
 * one 16-byte store (the output has slack); the positions come from the mask
 * alone, so the loop carries no load-compare chain from one escape to the
 * next — SSE chunks have a quote every few bytes. *adv gets the input bytes
 * consumed (more than lim when a UTF-8 sequence runs past the block). */
static inline char *esc_block(char *o, const unsigned char *src, unsigned m, unsigned lim, const unsigned char *u,
                              size_t i, size_t n, unsigned flags, size_t *adv)
{
    size_t prev = 0;
    while (m) {
        unsigned k = (unsigned)__builtin_ctz(m);
        copy16(o, src + prev);
        o += k - prev;
        size_t j = i + k;
        o = put_esc(o, u, &j, n, flags);
        prev = j - i;
        m &= prev >= 16 ? 0u : ~0u << prev;
    }
    if (prev < lim) {
        copy16(o, src + prev);
        o += lim - prev;
        prev = lim;
    }
    *adv = prev;
    return o;
}

/* the last bytes (< 32) from input offset i, through a padded copy: never
 * reads past the input; the padding is clean bytes and masked off anyway */
static inline __attribute__((always_inline)) char *esc_tail(char *o, const unsigned char *u, size_t i, size_t n,
                                                          unsigned flags, __m128i extra)
{
    if (i < n) {
        unsigned char t[64];
        memset(t, 'a', sizeof t);
        size_t t0 = i;
        memcpy(t, u + i, n - i);
        while (i < n) {
            const unsigned char *src = t + (i - t0);
            unsigned lim = n - i < 16 ? (unsigned)(n - i) : 16;
            unsigned m = esc_mask16(src, extra) & ((1u << lim) - 1);
            size_t adv;
            o = esc_block(o, src, m, lim, u, i, n, flags, &adv);
            i += adv;
        }
    }
    return o;
}

static inline __attribute__((always_inline)) char *esc_body(char *o, const unsigned char *u, size_t n,
                                                          unsigned flags)
{
    const __m128i extra = _mm_set1_epi8((flags & GP_JSON_ASCII) ? 0x7F : '"');
    size_t i = 0;
    /* esc_block may read 32 bytes from a block's start */
    while (n - i >= 32) {
        unsigned m = esc_mask16(u + i, extra);
        if (!m) {
            copy16(o, u + i);
            o += 16;
            i += 16;
            continue;
        }
        size_t adv;
        o = esc_block(o, u + i, m, 16, u, i, n, flags, &adv);
        i += adv;
    }
    return esc_tail(o, u, i, n, flags, extra);
}

#if GP_PYTEXT_SSSE3
/* Escapes the first cnt (<= 8) bytes in the low half of v, whose
 * quote/backslash bits are m (nothing else in them needs escaping): a
 * backslash before each marked byte, by one shuffle. Stores 16 bytes (the
 * output has slack); returns o advanced past the cnt bytes' escape. */
static inline __attribute__((target("ssse3"), always_inline)) char *expand8(char *o, __m128i v, unsigned m,
                                                                           unsigned cnt)
{
    __m128i idx = _mm_loadu_si128((const __m128i *)(const void *)esc_expand8[m]);
    __m128i gap = _mm_cmpeq_epi8(idx, _mm_set1_epi8((char)0x80));
    __m128i out = _mm_or_si128(_mm_shuffle_epi8(v, idx), _mm_and_si128(gap, _mm_set1_epi8('\\')));
    _mm_storeu_si128((__m128i *)(void *)o, out);
    /* popcount of 8 bits from two nibble lookups (no popcnt instruction
     * is assumed: SSSE3 CPUs without it exist) */
    unsigned pc = (unsigned)((0x4332322132212110ull >> (4 * (m & 15))) & 15) +
                  (unsigned)((0x4332322132212110ull >> (4 * (m >> 4))) & 15);
    return o + cnt + pc;
}

/* The common case for the first lim (<= 16) bytes of v (bytes past lim
 * are masked off): when their only escapes are two-byte ones of a quote, a
 * backslash, LF, CR or tab (SSE chunks are JSON with a quote every few
 * bytes and end in "\n\n"), two shuffles do the block instead of one step
 * per escape: LF/CR/tab first become 'n'/'r'/'t', then a backslash opens
 * before every escaped byte. NULL when another byte needs escaping; *mask
 * gets the block's escape bits for esc_block then. */
static inline __attribute__((target("ssse3"), always_inline)) char *quote_block(char *o, __m128i v, unsigned lim,
                                                                               __m128i extra, unsigned *mask)
{
    unsigned keep = lim >= 16 ? 0xFFFFu : (1u << lim) - 1;
    __m128i q = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    __m128i nl = _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'));
    __m128i cr = _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'));
    __m128i tab = _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'));
    __m128i ctl = _mm_or_si128(nl, _mm_or_si128(cr, tab));
    unsigned mc = (unsigned)_mm_movemask_epi8(ctl) & keep;
    unsigned mq = ((unsigned)_mm_movemask_epi8(q) & keep) | mc;
    /* signed compare: bytes >= 0x80 count as controls here, as in esc_mask16;
     * extra is '"' (already in mq) unless ensure_ascii */
    unsigned mo = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
                                                         _mm_cmpeq_epi8(v, extra))) &
                  keep & ~mq;
    if (mo) {
        *mask = mq | mo;
        return NULL;
    }
    if (!mq) {
        _mm_storeu_si128((__m128i *)(void *)o, v);
        return o + lim;
    }
    if (mc) /* '\n' - '\n' + 'n' and so on: one add per lane */
        v = _mm_add_epi8(v, _mm_or_si128(_mm_and_si128(nl, _mm_set1_epi8('n' - '\n')),
                                         _mm_or_si128(_mm_and_si128(cr, _mm_set1_epi8('r' - '\r')),
                                                      _mm_and_si128(tab, _mm_set1_epi8('t' - '\t')))));
    if (lim <= 8)
        return expand8(o, v, mq & 0xFF, lim);
    o = expand8(o, v, mq & 0xFF, 8);
    return expand8(o, _mm_srli_si128(v, 8), mq >> 8, lim - 8);
}

/* esc_body with quote_block first for every block. The last partial block
 * is the input's last 16 bytes shifted down (no copy: a padded copy read
 * back at once stalls on store forwarding); blocks that need esc_block
 * near the end, and inputs under 16 bytes, take esc_tail's padded copy. */
static inline __attribute__((target("ssse3"), always_inline)) char *esc_body_ssse3(char *o, const unsigned char *u,
                                                                                 size_t n, unsigned flags)
{
    /* lane k of a load from shift_down + s: byte k + s, or 0 past 16 */
    static const unsigned char shift_down[32] = {0,    1,    2,    3,    4,    5,    6,    7,
                                                 8,    9,    10,   11,   12,   13,   14,   15,
                                                 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                                 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
    const __m128i extra = _mm_set1_epi8((flags & GP_JSON_ASCII) ? 0x7F : '"');
    size_t i = 0;
    while (i < n) {
        size_t r = n - i;
        unsigned lim = r < 16 ? (unsigned)r : 16;
        __m128i v;
        if (r >= 16)
            v = _mm_loadu_si128((const __m128i *)(const void *)(u + i));
        else if (n >= 16)
            v = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(u + n - 16)),
                                 _mm_loadu_si128((const __m128i *)(const void *)(shift_down + 16 - r)));
        else
            break;
        unsigned m;
        char *next = quote_block(o, v, lim, extra, &m);
        if (next) {
            o = next;
            i += lim;
        } else if (r >= 32) {
            size_t adv;
            o = esc_block(o, u + i, m, 16, u, i, n, flags, &adv);
            i += adv;
        } else {
            break;
        }
    }
    return esc_tail(o, u, i, n, flags, extra);
}

__attribute__((target("ssse3"))) static char *esc_ssse3_plain(char *o, const unsigned char *u, size_t n)
{
    return esc_body_ssse3(o, u, n, 0);
}

__attribute__((target("ssse3"))) static char *esc_ssse3(char *o, const unsigned char *u, size_t n, unsigned flags)
{
    return esc_body_ssse3(o, u, n, flags);
}
#if GP_PYTEXT_AVX512
#include "core/pytext_avx512.inc"
#endif
#endif
#else
static inline __attribute__((always_inline)) char *esc_body(char *o, const unsigned char *u, size_t n,
                                                          unsigned flags)
{
    /* bytes that stop a clean run: '"', '\\', < 0x20, >= 0x80 (validated
     * or escaped) and DEL under ensure_ascii */
    const unsigned lim = (flags & GP_JSON_ASCII) ? 0x7F : 0x80;
    size_t i = 0;
    while (i < n) {
        while (i < n && u[i] >= 0x20 && u[i] < lim && u[i] != '"' && u[i] != '\\')
            *o++ = (char)u[i++];
        if (i == n)
            break;
        o = put_esc(o, u, &i, n, flags);
    }
    return o;
}
#endif

int gp_json_str(struct gp_buf *b, const char *s, size_t n, unsigned flags)
{
    /* worst case 6 output bytes per input byte, plus 16 of slack for the
     * whole-block stores */
    if (n > (SIZE_MAX - 64) / 6)
        return -GP_ENOMEM;
    size_t need = n * 6 + 2 + 16;
    if (b->len + need + 1 > b->cap && gp_buf_reserve(b, need)) /* the call only when growing */
        return -GP_ENOMEM;
    char *o = b->data + b->len;
    *o++ = '"';
    /* flags 0 (the profile export's SSE chunks) gets its own copy with the
     * flag tests folded away */
#if GP_PYTEXT_AVX512
    if (flags == 0 && avx512_esc_ok())
        o = esc_avx512_plain(o, (const unsigned char *)s, n);
    else
#endif
#if GP_PYTEXT_SSSE3
    if (__builtin_cpu_supports("ssse3"))
        o = flags == 0 ? esc_ssse3_plain(o, (const unsigned char *)s, n)
                       : esc_ssse3(o, (const unsigned char *)s, n, flags);
    else
#endif
    if (flags == 0)
        o = esc_body(o, (const unsigned char *)s, n, 0);
    else
        o = esc_body(o, (const unsigned char *)s, n, flags);
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    b->data[b->len] = '\0';
    return 0;
}

/* Declared in core/buf.h (most callers only write bytes); here so that
 * buf.c, which pytext.c builds on, calls nothing in pytext.c. */
int gp_buf_json_str(struct gp_buf *b, const char *s, size_t n)
{
    return gp_json_str(b, s, n, 0);
}

/* ---- json.dumps ---------------------------------------------------------- */

static int nl_indent(struct gp_buf *b, int indent, int depth)
{
    if (indent < 0)
        return 0;
    if (gp_buf_putc(b, '\n'))
        return -GP_ENOMEM;
    for (int i = 0; i < indent * depth; i++)
        if (gp_buf_putc(b, ' '))
            return -GP_ENOMEM;
    return 0;
}

int gp_json_dump(struct gp_buf *b, const json_t *v, int indent, int depth, unsigned flags)
{
    /* json.dumps: item separator "," when indenting, else ", " */
    const char *item = (indent >= 0 || (flags & GP_JSON_COMPACT)) ? "," : ", ";
    const char *key_sep = (flags & GP_JSON_COMPACT) ? ":" : ": ";
    int r = 0;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        if (json_object_size(v) == 0)
            return gp_buf_puts(b, "{}");
        r |= gp_buf_putc(b, '{');
        const char *k;
        json_t *x;
        int first = 1;
        json_object_foreach((json_t *)v, k, x) {
            if (!first)
                r |= gp_buf_puts(b, item);
            first = 0;
            r |= nl_indent(b, indent, depth + 1);
            r |= gp_json_str(b, k, strlen(k), flags);
            r |= gp_buf_puts(b, key_sep);
            r |= gp_json_dump(b, x, indent, depth + 1, flags);
        }
        r |= nl_indent(b, indent, depth);
        r |= gp_buf_putc(b, '}');
        break;
    }
    case JSON_ARRAY: {
        if (json_array_size(v) == 0)
            return gp_buf_puts(b, "[]");
        r |= gp_buf_putc(b, '[');
        size_t i;
        json_t *x;
        json_array_foreach((json_t *)v, i, x) {
            if (i)
                r |= gp_buf_puts(b, item);
            r |= nl_indent(b, indent, depth + 1);
            r |= gp_json_dump(b, x, indent, depth + 1, flags);
        }
        r |= nl_indent(b, indent, depth);
        r |= gp_buf_putc(b, ']');
        break;
    }
    case JSON_STRING:
        r = gp_json_str(b, json_string_value(v), json_string_length(v), flags);
        break;
    case JSON_INTEGER:
        r = gp_buf_printf(b, "%lld", (long long)json_integer_value(v));
        break;
    case JSON_REAL:
        r = gp_py_float(b, json_real_value(v));
        break;
    case JSON_TRUE:
        r = gp_buf_puts(b, "true");
        break;
    case JSON_FALSE:
        r = gp_buf_puts(b, "false");
        break;
    case JSON_NULL:
        r = gp_buf_puts(b, "null");
        break;
    }
    return r ? -GP_ENOMEM : 0;
}

/* ---- floats -------------------------------------------------------------- */

int gp_float_round_trip_prec(double x, int min_prec)
{
    char e[40];
    for (int p = min_prec < 1 ? 1 : min_prec; p < 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, x);
        if (strtod(e, NULL) == x)
            return p;
    }
    return 17;
}

/* Deliberately not Python's repr ("4", not "4.0"): PostgreSQL's float8
 * text, so both store engines show the same; %g never below 15 digits. */
void gp_float8_text(double v, char *out, size_t outsz)
{
    snprintf(out, outsz, "%.*g", gp_float_round_trip_prec(v, 15), v);
}

int gp_py_float_repr(double x, char *out, size_t outsz)
{
    if (isnan(x))
        return snprintf(out, outsz, "nan");
    if (isinf(x))
        return snprintf(out, outsz, x < 0 ? "-inf" : "inf");
    if (x == 0)
        return snprintf(out, outsz, signbit(x) ? "-0.0" : "0.0");
    char e[40];
    snprintf(e, sizeof e, "%.*e", gp_float_round_trip_prec(x, 1) - 1, x);
    /* e = [-]d[.ddd]e[+-]XX -> digits and decimal exponent */
    char digits[24];
    int nd = 0, neg = 0;
    const char *p = e;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    int decpt = atoi(p + 1) + 1; /* value = 0.DIGITS x 10^decpt */
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    char buf[64];
    size_t o = 0;
    if (neg)
        buf[o++] = '-';
    if (decpt > 16 || decpt < -3) {
        /* repr switches to exponent form: 1e-05, 1.5e+16 */
        buf[o++] = digits[0];
        if (nd > 1) {
            buf[o++] = '.';
            memcpy(buf + o, digits + 1, (size_t)nd - 1);
            o += (size_t)nd - 1;
        }
        int ex = decpt - 1;
        o += (size_t)snprintf(buf + o, sizeof buf - o, "e%c%02d", ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
    } else if (decpt <= 0) {
        buf[o++] = '0';
        buf[o++] = '.';
        for (int i = 0; i < -decpt; i++)
            buf[o++] = '0';
        memcpy(buf + o, digits, (size_t)nd);
        o += (size_t)nd;
    } else if (decpt >= nd) {
        memcpy(buf + o, digits, (size_t)nd);
        o += (size_t)nd;
        for (int i = nd; i < decpt; i++)
            buf[o++] = '0';
        buf[o++] = '.';
        buf[o++] = '0';
    } else {
        memcpy(buf + o, digits, (size_t)decpt);
        o += (size_t)decpt;
        buf[o++] = '.';
        memcpy(buf + o, digits + decpt, (size_t)(nd - decpt));
        o += (size_t)(nd - decpt);
    }
    buf[o] = '\0';
    return snprintf(out, outsz, "%s", buf);
}

int gp_py_float(struct gp_buf *b, double x)
{
    if (isnan(x))
        return gp_buf_puts(b, "NaN");
    if (isinf(x))
        return gp_buf_puts(b, x < 0 ? "-Infinity" : "Infinity");
    char t[64];
    int n = gp_py_float_repr(x, t, sizeof t);
    return gp_buf_append(b, t, (size_t)n);
}

int gp_fmt_2f_commas(struct gp_buf *b, double v)
{
    if (isnan(v))
        return gp_buf_puts(b, "nan");
    if (isinf(v))
        return gp_buf_puts(b, v < 0 ? "-inf" : "inf");
    char t[512];
    int n = snprintf(t, sizeof t, "%.2f", v);
    if (n < 0 || (size_t)n >= sizeof t)
        return gp_buf_puts(b, t);
    const char *p = t;
    if (*p == '-') {
        if (gp_buf_putc(b, '-'))
            return -GP_ENOMEM;
        p++;
    }
    const char *dot = strchr(p, '.');
    size_t il = dot ? (size_t)(dot - p) : strlen(p);
    for (size_t i = 0; i < il; i++) {
        if (i && (il - i) % 3 == 0 && gp_buf_putc(b, ','))
            return -GP_ENOMEM;
        if (gp_buf_putc(b, p[i]))
            return -GP_ENOMEM;
    }
    return dot ? gp_buf_puts(b, dot) : 0;
}

/* What csv.reader reads back from csv.writer rows (see pytext.h). */
int gp_csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return -1;
        char *out = p;
        fields[n++] = out;
        if (*p == '"') {
            p++;
            for (;;) {
                if (!*p)
                    return -1;
                if (*p == '"') {
                    if (p[1] == '"') {
                        *out++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *out++ = *p++;
            }
            if (*p && *p != ',')
                return -1;
        } else {
            while (*p && *p != ',')
                *out++ = *p++;
        }
        int more = *p == ',';
        if (*p)
            p++;
        *out = '\0';
        if (!more)
            break;
    }
    return n;
}
