/* metrics/sse_int.h — what sse.c (the SSE framer) and jscan.c (the JSON
 * scanner) share: find2. Not for other modules. Owns nothing.
 */
#ifndef GP_METRICS_SSE_INT_H
#define GP_METRICS_SSE_INT_H

#if defined(__SSE2__) && !defined(GP_NO_SIMD)
#include <emmintrin.h>
#define GP_SSE_SSE2 1
#endif

/* The first byte in [p, end) equal to a or b, or end. Inline, 16 bytes a
 * step: the searches here are short (a key, a line of one event), where a
 * memchr call costs more than the search. */
static inline const char *find2(const char *p, const char *end, char a, char b)
{
#if GP_SSE_SSE2
    const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)));
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    while (p < end && *p != a && *p != b)
        p++;
    return p;
}

#endif
