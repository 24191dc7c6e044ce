/* tokenizer/tok_added.c — added-token extraction as HF's AddedVocabulary:
 * leftmost-longest matching, single_word, lstrip/rstrip.
 * Owns: the token array and contents (tk_added_free). */
#include "tokenizer/tok_internal.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static int cmp_tok(const void *x, const void *y)
{
    const struct tk_added_tok *a = x, *b = y;
    unsigned ca = a->len ? (unsigned char)a->content[0] : 0, cb = b->len ? (unsigned char)b->content[0] : 0;
    if (ca != cb)
        return ca < cb ? -1 : 1;
    if (a->len != b->len)
        return a->len > b->len ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

int tk_added_init(struct tk_added *a, struct tk_added_tok *t, size_t n)
{
    memset(a, 0, sizeof *a);
    /* drop empty patterns: they can never match */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].len)
            t[k++] = t[i];
        else
            free(t[i].content);
    }
    a->t = t;
    a->n = k;
    qsort(t, k, sizeof *t, cmp_tok);
    for (size_t i = 0; i < k; i++) {
        unsigned c = (unsigned char)t[i].content[0];
        if (!a->bcount[c])
            a->bstart[c] = (uint32_t)i;
        a->bcount[c]++;
    }
    return 0;
}

static int is_word_cp(uint32_t cp)
{
    if (cp == '_')
        return 1;
    utf8proc_category_t c = utf8proc_category((utf8proc_int32_t)cp);
    return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) ||
           (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
}

static uint32_t cp_before(const char *s, size_t at, size_t *start)
{
    size_t k = at - 1;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    size_t l;
    *start = k;
    return gp_utf8_cp((const unsigned char *)s + k, &l);
}

long tk_added_next(const struct tk_added *a, const char *s, size_t n, size_t pos, size_t *ms, size_t *me)
{
    if (!a->n)
        return -1;
    const unsigned char *u = (const unsigned char *)s;
    size_t i = pos;
    while (i < n) {
        unsigned c = u[i];
        if (!a->bcount[c]) {
            i++;
            continue;
        }
        long hit = -1;
        for (uint32_t k = a->bstart[c], e = k + a->bcount[c]; k < e; k++) {
            const struct tk_added_tok *t = &a->t[k];
            if (t->len <= n - i && !memcmp(s + i, t->content, t->len)) {
                hit = (long)k;
                break; /* longest first */
            }
        }
        if (hit < 0) {
            i++;
            continue;
        }
        const struct tk_added_tok *t = &a->t[hit];
        size_t start = i, stop = i + t->len, l;
        if (t->single_word) {
            size_t ks;
            int before = start > 0 && is_word_cp(cp_before(s, start, &ks));
            int after = stop < n && is_word_cp(gp_utf8_cp(u + stop, &l));
            if (before || after) {
                i = stop; /* the automaton resumes after the rejected match */
                continue;
            }
        }
        if (t->lstrip) {
            while (start > pos) {
                size_t ks;
                if (!tk_is_space(cp_before(s, start, &ks)))
                    break;
                start = ks;
            }
        }
        if (t->rstrip) {
            while (stop < n) {
                uint32_t cp = gp_utf8_cp(u + stop, &l);
                if (!tk_is_space(cp))
                    break;
                stop += l;
            }
        }
        *ms = start;
        *me = stop;
        return hit;
    }
    return -1;
}

void tk_added_free(struct tk_added *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->t[i].content);
    free(a->t);
    memset(a, 0, sizeof *a);
}
