/* tokenizer/tok_norm.c — normalizers: Sequence, NFC/NFD/NFKC/NFKD (utf8proc),
 * Prepend, Replace (String pattern), Lowercase, Strip. Anything else in a
 * tokenizer.json is refused by name at load time.
 * Owns: the strings and sub-arrays inside struct tk_norm (tk_norm_free). */
#include "tokenizer/tok_internal.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static char *dup_json_str(json_t *j, size_t *len)
{
    const char *s = json_string_value(j);
    if (!s)
        return NULL;
    *len = json_string_length(j);
    char *d = malloc(*len + 1);
    if (d) {
        memcpy(d, s, *len);
        d[*len] = 0;
    }
    return d;
}

int tk_norm_load(struct tk_norm *n, json_t *j, struct gp_error *err)
{
    memset(n, 0, sizeof *n);
    const char *type = json_string_value(json_object_get(j, "type"));
    if (!type)
        return gp_err(err, GP_EINVAL, "normalizer without a \"type\"");
    if (!strcmp(type, "Sequence")) {
        n->kind = TK_N_SEQ;
        json_t *arr = json_object_get(j, "normalizers");
        if (!json_is_array(arr))
            return gp_err(err, GP_EINVAL, "normalizer Sequence without \"normalizers\"");
        n->nsub = json_array_size(arr);
        n->sub = calloc(n->nsub ? n->nsub : 1, sizeof *n->sub);
        if (!n->sub)
            return gp_err(err, GP_ENOMEM, "out of memory");
        for (size_t i = 0; i < n->nsub; i++) {
            const char *st = json_string_value(json_object_get(json_array_get(arr, i), "type"));
            if (st && !strcmp(st, "Sequence")) {
                n->nsub = i;
                return gp_err(err, GP_ENOTSUP, "nested normalizer Sequence is not supported");
            }
            int r = tk_norm_load(&n->sub[i], json_array_get(arr, i), err);
            if (r) {
                n->nsub = i + 1; /* free what loaded, the failed one included */
                return r;
            }
        }
        return 0;
    }
    if (!strcmp(type, "NFC")) { n->kind = TK_N_NFC; return 0; }
    if (!strcmp(type, "NFD")) { n->kind = TK_N_NFD; return 0; }
    if (!strcmp(type, "NFKC")) { n->kind = TK_N_NFKC; return 0; }
    if (!strcmp(type, "NFKD")) { n->kind = TK_N_NFKD; return 0; }
    if (!strcmp(type, "Lowercase")) { n->kind = TK_N_LOWERCASE; return 0; }
    if (!strcmp(type, "Strip")) {
        n->kind = TK_N_STRIP;
        n->left = json_is_true(json_object_get(j, "strip_left"));
        n->right = json_is_true(json_object_get(j, "strip_right"));
        return 0;
    }
    if (!strcmp(type, "Prepend")) {
        n->kind = TK_N_PREPEND;
        n->a = dup_json_str(json_object_get(j, "prepend"), &n->alen);
        if (!n->a)
            return gp_err(err, GP_EINVAL, "normalizer Prepend without a \"prepend\" string");
        return 0;
    }
    if (!strcmp(type, "Replace")) {
        n->kind = TK_N_REPLACE;
        json_t *pat = json_object_get(j, "pattern");
        json_t *ps = json_object_get(pat, "String");
        if (!ps)
            return gp_err(err, GP_ENOTSUP,
                          "normalizer Replace with a Regex pattern is not supported (only {\"String\": ...})");
        n->a = dup_json_str(ps, &n->alen);
        n->b = dup_json_str(json_object_get(j, "content"), &n->blen);
        if (!n->a || !n->b || !n->alen)
            return gp_err(err, GP_EINVAL, "normalizer Replace needs a non-empty pattern and a content string");
        return 0;
    }
    return gp_err(err, GP_ENOTSUP,
                  "normalizer '%s' is not supported (supported: Sequence, NFC, NFD, NFKC, NFKD, Prepend, "
                  "Replace, Lowercase, Strip)", type);
}

static int unicode_norm(const char *s, size_t len, int opts, struct gp_buf *out, struct gp_buf *scratch)
{
    /* decompose into scratch as UTF-32, compose in place, re-encode: no
     * allocation once scratch is warm */
    size_t cap = len + 16;
    for (;;) {
        if (scratch->cap < cap * 4 + 1) {
            scratch->len = 0;
            if (gp_buf_reserve(scratch, cap * 4))
                return -GP_ENOMEM;
        }
        utf8proc_int32_t *w = (utf8proc_int32_t *)(void *)scratch->data;
        utf8proc_ssize_t r = utf8proc_decompose((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, w,
                                                (utf8proc_ssize_t)cap, (utf8proc_option_t)opts);
        if (r < 0)
            return -GP_EINVAL;
        if ((size_t)r > cap) {
            cap = (size_t)r;
            continue;
        }
        r = utf8proc_normalize_utf32(w, r, (utf8proc_option_t)opts);
        if (r < 0)
            return -GP_EINVAL;
        r = utf8proc_reencode(w, r, (utf8proc_option_t)opts);
        if (r < 0)
            return -GP_EINVAL;
        return gp_buf_append(out, scratch->data, (size_t)r);
    }
}

static int is_ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return 0;
    return 1;
}

static int apply_one(const struct tk_norm *n, const char *s, size_t len, struct gp_buf *out,
                     struct gp_buf *scratch)
{
    switch (n->kind) {
    case TK_N_NFC:
    case TK_N_NFKC:
    case TK_N_NFD:
    case TK_N_NFKD: {
        if (is_ascii(s, len)) /* every normal form is the identity on ASCII */
            return gp_buf_append(out, s, len);
        int o = UTF8PROC_STABLE;
        if (n->kind == TK_N_NFC) o |= UTF8PROC_COMPOSE;
        if (n->kind == TK_N_NFD) o |= UTF8PROC_DECOMPOSE;
        if (n->kind == TK_N_NFKC) o |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
        if (n->kind == TK_N_NFKD) o |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
        return unicode_norm(s, len, o, out, scratch);
    }
    case TK_N_LOWERCASE: {
        size_t i = 0;
        while (i < len) {
            size_t l;
            uint32_t cp = gp_utf8_cp((const unsigned char *)s + i, &l);
            char e[4];
            int rr;
            if (cp == 0x130) /* Rust's char::to_lowercase: the one mapping to two chars */
                rr = gp_buf_append(out, "i\xCC\x87", 3);
            else {
                uint32_t lc = (uint32_t)utf8proc_tolower((utf8proc_int32_t)cp);
                rr = gp_buf_append(out, e, gp_utf8_enc(lc, e));
            }
            if (rr)
                return -GP_ENOMEM;
            i += l;
        }
        return 0;
    }
    case TK_N_STRIP: {
        size_t a = 0, b = len;
        while (n->left && a < b) {
            size_t l;
            uint32_t cp = gp_utf8_cp((const unsigned char *)s + a, &l);
            if (!tk_is_space(cp))
                break;
            a += l;
        }
        while (n->right && b > a) {
            size_t k = b - 1;
            while (k > a && ((unsigned char)s[k] & 0xC0) == 0x80)
                k--;
            size_t l;
            uint32_t cp = gp_utf8_cp((const unsigned char *)s + k, &l);
            if (!tk_is_space(cp))
                break;
            b = k;
        }
        return gp_buf_append(out, s + a, b - a);
    }
    case TK_N_PREPEND:
        /* HF prepends to every non-empty string, even one that already
         * starts with the prefix */
        if (len && gp_buf_append(out, n->a, n->alen))
            return -GP_ENOMEM;
        return gp_buf_append(out, s, len);
    case TK_N_REPLACE: {
        size_t i = 0;
        while (i < len) {
            const char *hit = (len - i >= n->alen) ? memmem(s + i, len - i, n->a, n->alen) : NULL;
            if (!hit)
                return gp_buf_append(out, s + i, len - i);
            if (gp_buf_append(out, s + i, (size_t)(hit - (s + i))) || gp_buf_append(out, n->b, n->blen))
                return -GP_ENOMEM;
            i = (size_t)(hit - s) + n->alen;
        }
        return 0;
    }
    case TK_N_SEQ:
        break;
    }
    return -GP_EINVAL;
}

int tk_norm_apply(const struct tk_norm *n, const char *s, size_t len, struct gp_buf *out,
                  struct gp_buf *alt, struct gp_buf *scratch)
{
    gp_buf_reset(out);
    if (n->kind != TK_N_SEQ)
        return apply_one(n, s, len, out, scratch);
    if (n->nsub == 0)
        return gp_buf_append(out, s, len);
    /* ping-pong between out and alt (both the caller's, reused across calls:
     * no allocation once warm); nested Sequences were flattened at load */
    struct gp_buf *dst = out, *other = alt;
    for (size_t i = 0; i < n->nsub; i++) {
        gp_buf_reset(dst);
        int r = apply_one(&n->sub[i], s, len, dst, scratch);
        if (r)
            return r;
        s = dst->data ? dst->data : "";
        len = dst->len;
        struct gp_buf *sw = dst;
        dst = other;
        other = sw;
    }
    if (other != out) { /* the result is in alt: hand the buffers over */
        struct gp_buf sw = *out;
        *out = *alt;
        *alt = sw;
    }
    return 0;
}

void tk_norm_free(struct tk_norm *n)
{
    for (size_t i = 0; i < n->nsub; i++)
        tk_norm_free(&n->sub[i]);
    free(n->sub);
    free(n->a);
    free(n->b);
    memset(n, 0, sizeof *n);
}
