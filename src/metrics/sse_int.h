/* metrics/sse_int.h — what sse.c (the SSE framer) and event.c (the OpenAI
 * event scanner) share; not for other modules. Owns nothing.
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

/* ---- event.c's non-allocating JSON scanner, shared with responses.c ----
 * (one scanner for every wire format: the Responses API events are read
 * with the same primitives as chat chunks). j->bad is set on malformed
 * input; nothing allocates except appending to a caller's buffer. */
struct gp_buf;
struct gp_event_info;
struct gp_js {
    const char *p, *end;
    int bad;
};
int gp_js_peek(struct gp_js *j);               /* next non-blank byte, -1 at the end */
int gp_js_is_null(struct gp_js *j);            /* consumes a null */
size_t gp_js_str(struct gp_js *j, struct gp_buf *out); /* a string, appended decoded (out may be NULL) */
void gp_js_skip(struct gp_js *j);              /* any value */
/* an object's next key: *first = 1 at the start; 1 with the key, 0 at '}', -1 bad */
int gp_js_obj_next(struct gp_js *j, int *first, const char **k, size_t *kl);
/* a usage count (event.c's rules: a plain integer in [0, INT32_MAX], else -1 with bad_usage) */
long gp_js_usage_count(struct gp_js *j, struct gp_event_info *info);
long gp_js_num(struct gp_js *j);               /* an integer, -1 when not a plain number */

#endif
