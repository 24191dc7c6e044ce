/* core/heap.h — the one binary min-heap: serve's timers, the client's ready
 * queue of an open-loop plan, and the BPE merge queue all use it.
 *
 * Owns nothing: the heap is the caller's array `h` of `*n` elements; the
 * caller allocates it and makes room before a push (push never grows it, so
 * it never fails and never allocates). GP_HEAP_DEFINE generates, per element
 * type, two static inline functions:
 *
 *     void NAME_push(T *h, size_t *n, T v);   appends v, restores the order
 *     T    NAME_pop(T *h, size_t *n);         removes and returns the least
 *
 * LESS(a, b) takes two `const T *` and says whether *a sorts strictly before
 * *b. Equal keys come out in no particular order, but always the same order
 * for the same sequence of pushes and pops (the algorithm is fixed), which the
 * golden artifacts rely on.
 *
 * Why a macro rather than one function over void * and a comparator: the BPE
 * merge loop is the tokenizer's hot path, and an indirect call per comparison
 * costs it measurably; generated inline code costs nothing over the
 * hand-written heaps it replaced.
 *
 * Invariant (asserted, O(1) per operation; the build keeps asserts): a parent
 * never sorts after its children. Each push checks the pair it settled, each
 * pop the new root against the old one and against its first child; a pop
 * never meets an empty heap. */
#ifndef GP_CORE_HEAP_H
#define GP_CORE_HEAP_H

#include <assert.h>
#include <stddef.h>

#define GP_HEAP_DEFINE(NAME, T, LESS)                                                                   \
    static inline void NAME##_push(T *h, size_t *n, T v)                                                \
    {                                                                                                   \
        size_t i = (*n)++;                                                                              \
        while (i) {                                                                                     \
            size_t p = (i - 1) / 2;                                                                     \
            if (!LESS(&v, &h[p]))                                                                       \
                break;                                                                                  \
            h[i] = h[p];                                                                                \
            i = p;                                                                                      \
        }                                                                                               \
        h[i] = v;                                                                                       \
        assert(i == 0 || !LESS(&h[i], &h[(i - 1) / 2]));                                                \
    }                                                                                                   \
                                                                                                        \
    static inline T NAME##_pop(T *h, size_t *n)                                                         \
    {                                                                                                   \
        assert(*n > 0);                                                                                 \
        T top = h[0], last = h[--(*n)];                                                                 \
        size_t i = 0, cnt = *n;                                                                         \
        for (;;) {                                                                                      \
            size_t c = 2 * i + 1;                                                                       \
            if (c >= cnt)                                                                               \
                break;                                                                                  \
            if (c + 1 < cnt && LESS(&h[c + 1], &h[c]))                                                  \
                c++;                                                                                    \
            if (!LESS(&h[c], &last))                                                                    \
                break;                                                                                  \
            h[i] = h[c];                                                                                \
            i = c;                                                                                      \
        }                                                                                               \
        if (cnt)                                                                                        \
            h[i] = last;                                                                                \
        assert(cnt == 0 || !LESS(&h[0], &top));                                                         \
        assert(cnt < 2 || !LESS(&h[1], &h[0]));                                                         \
        return top;                                                                                     \
    }

#endif
