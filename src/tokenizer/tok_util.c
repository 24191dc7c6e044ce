/* tokenizer/tok_util.c — hashing, UTF-8, the GPT-2 byte map and the gp_ids
 * id array used by every tokenizer component. Owns nothing; tk_strs owns its
 * arena (tk_strs_free), a gp_ids its array (gp_ids_free). The id array lives
 * here, not in tokenizer.c, so tok_bpe.c depends only on this file and
 * tokenizer.c depends on tok_bpe.c, never the reverse. */
#include "tokenizer/tok_internal.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

uint64_t tk_hash(const void *p, size_t n)
{
    /* FNV-1a over 8-byte words with a final mix: cheap for the short
     * pre-tokens that dominate, and good enough for open addressing. */
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ull ^ (n * 0x9e3779b97f4a7c15ull);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
}

int tk_utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* ASCII fast path, 8 bytes at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, u + i, 8);
            if (w & 0x8080808080808080ull)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        size_t l = gp_utf8_len(u + i, n - i);
        if (!l)
            return 0;
        i += l;
    }
    return 1;
}

int tk_utf8_lossy(struct gp_buf *out, const char *s, size_t n)
{
    static const char fffd[] = "\xEF\xBF\xBD";
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t l = gp_utf8_len(u + i, n - i);
        if (l) {
            if (gp_buf_append(out, s + i, l))
                return -GP_ENOMEM;
            i += l;
            continue;
        }
        /* maximal subpart: skip the lead byte and every continuation byte
         * that could still have been part of a valid sequence */
        unsigned c = u[i];
        size_t need = 0;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) need = 1;
        else if (c >= 0xE0 && c <= 0xEF) { need = 2; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
        else if (c >= 0xF0 && c <= 0xF4) { need = 3; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
        i++;
        for (size_t k = 0; k < need && i < n; k++) {
            if (u[i] < lo || u[i] > hi)
                break;
            lo = 0x80; hi = 0xBF;
            i++;
        }
        if (gp_buf_append(out, fffd, 3))
            return -GP_ENOMEM;
    }
    return 0;
}

static int byte_is_printable(unsigned b)
{
    return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
}

/* The 68 unprintable bytes are mapped, in order, to U+0100..U+0143: 0x00-0x20
 * are n = 0..32, 0x7F-0xA0 are 33..66 and 0xAD is 67. */
int tk_cp_to_byte(uint32_t cp)
{
    if (cp < 0x100)
        return byte_is_printable(cp) ? (int)cp : -1;
    if (cp > 0x143)
        return -1;
    unsigned n = cp - 0x100;
    if (n <= 32)
        return (int)n;
    if (n <= 66)
        return (int)(0x7F + n - 33);
    return 0xAD;
}

int tk_is_space(uint32_t c)
{
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

int tk_strs_push(struct tk_strs *s, const char *p, size_t n)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        size_t *o = realloc(s->off, nc * sizeof *o);
        if (!o)
            return -GP_ENOMEM;
        s->off = o;
        size_t *l = realloc(s->len, nc * sizeof *l);
        if (!l)
            return -GP_ENOMEM;
        s->len = l;
        s->cap = nc;
    }
    s->off[s->n] = s->data.len;
    s->len[s->n] = n;
    if (gp_buf_append(&s->data, p, n))
        return -GP_ENOMEM;
    s->n++;
    return 0;
}

void tk_strs_reset(struct tk_strs *s)
{
    gp_buf_reset(&s->data);
    s->n = 0;
}

void tk_strs_free(struct tk_strs *s)
{
    gp_buf_free(&s->data);
    free(s->off);
    free(s->len);
    memset(s, 0, sizeof *s);
}

/* ---- struct gp_ids (public, declared in tokenizer.h) ---- */

int gp_ids_push(struct gp_ids *ids, uint32_t id)
{
    if (ids->n == ids->cap) {
        size_t nc = ids->cap ? ids->cap * 2 : 64;
        uint32_t *p = realloc(ids->v, nc * sizeof *p);
        if (!p)
            return -GP_ENOMEM;
        ids->v = p;
        ids->cap = nc;
    }
    ids->v[ids->n++] = id;
    return 0;
}

void gp_ids_free(struct gp_ids *ids)
{
    free(ids->v);
    ids->v = NULL;
    ids->n = ids->cap = 0;
}
