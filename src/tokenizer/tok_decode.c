/* tokenizer/tok_decode.c — decoders: ByteLevel, ByteFallback, Fuse, Strip,
 * Replace (String), Metaspace and Sequence, each a step over a list of token
 * strings as HF's decode_chain. Others are refused by name at load time.
 * Owns: the strings and sub-arrays inside struct tk_dec (tk_dec_free). */
#include "tokenizer/tok_internal.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static int load_prepend(json_t *j, enum tk_prepend *pp, struct gp_error *err)
{
    const char *ps = json_string_value(json_object_get(j, "prepend_scheme"));
    json_t *aps = json_object_get(j, "add_prefix_space");
    if (!ps) {
        *pp = (aps && !json_is_true(aps)) ? TK_PREPEND_NEVER : TK_PREPEND_ALWAYS;
        return 0;
    }
    if (!strcmp(ps, "always")) *pp = TK_PREPEND_ALWAYS;
    else if (!strcmp(ps, "first")) *pp = TK_PREPEND_FIRST;
    else if (!strcmp(ps, "never")) *pp = TK_PREPEND_NEVER;
    else
        return gp_err(err, GP_ENOTSUP, "decoder Metaspace prepend_scheme '%s' is not supported", ps);
    return 0;
}

int tk_dec_load(struct tk_dec *d, json_t *j, struct gp_error *err)
{
    memset(d, 0, sizeof *d);
    const char *type = json_string_value(json_object_get(j, "type"));
    if (!type)
        return gp_err(err, GP_EINVAL, "decoder without a \"type\"");
    if (!strcmp(type, "Sequence")) {
        d->kind = TK_D_SEQ;
        json_t *arr = json_object_get(j, "decoders");
        if (!json_is_array(arr))
            return gp_err(err, GP_EINVAL, "decoder Sequence without \"decoders\"");
        d->nsub = json_array_size(arr);
        d->sub = calloc(d->nsub ? d->nsub : 1, sizeof *d->sub);
        if (!d->sub)
            return gp_err(err, GP_ENOMEM, "out of memory");
        for (size_t i = 0; i < d->nsub; i++) {
            int r = tk_dec_load(&d->sub[i], json_array_get(arr, i), err);
            if (r) {
                d->nsub = i + 1;
                return r;
            }
        }
        return 0;
    }
    if (!strcmp(type, "ByteLevel")) { d->kind = TK_D_BYTELEVEL; return 0; }
    if (!strcmp(type, "ByteFallback")) { d->kind = TK_D_BYTEFALLBACK; return 0; }
    if (!strcmp(type, "Fuse")) { d->kind = TK_D_FUSE; return 0; }
    if (!strcmp(type, "Strip")) {
        d->kind = TK_D_STRIP;
        const char *c = json_string_value(json_object_get(j, "content"));
        size_t l;
        if (!c || !*c || gp_utf8_len((const unsigned char *)c, strlen(c)) != strlen(c))
            return gp_err(err, GP_EINVAL, "decoder Strip needs a one-character \"content\"");
        d->strip_cp = gp_utf8_cp((const unsigned char *)c, &l);
        d->start = (int)json_integer_value(json_object_get(j, "start"));
        d->stop = (int)json_integer_value(json_object_get(j, "stop"));
        return 0;
    }
    if (!strcmp(type, "Replace")) {
        d->kind = TK_D_REPLACE;
        json_t *ps = json_object_get(json_object_get(j, "pattern"), "String");
        json_t *ct = json_object_get(j, "content");
        if (!json_is_string(ps))
            return gp_err(err, GP_ENOTSUP, "decoder Replace with a Regex pattern is not supported (only {\"String\": ...})");
        if (!json_is_string(ct) || !json_string_length(ps))
            return gp_err(err, GP_EINVAL, "decoder Replace needs a non-empty pattern and a content string");
        d->a = dupn(json_string_value(ps), d->alen = json_string_length(ps));
        d->b = dupn(json_string_value(ct), d->blen = json_string_length(ct));
        if (!d->a || !d->b)
            return gp_err(err, GP_ENOMEM, "out of memory");
        return 0;
    }
    if (!strcmp(type, "Metaspace")) {
        d->kind = TK_D_METASPACE;
        const char *r = json_string_value(json_object_get(j, "replacement"));
        if (!r) r = "\xE2\x96\x81";
        d->repl_len = strlen(r);
        if (!d->repl_len || d->repl_len > 4)
            return gp_err(err, GP_EINVAL, "decoder Metaspace replacement must be one character");
        memcpy(d->repl, r, d->repl_len);
        return load_prepend(j, &d->prepend, err);
    }
    return gp_err(err, GP_ENOTSUP,
                  "decoder '%s' is not supported (supported: ByteLevel, ByteFallback, Fuse, Strip, Replace, "
                  "Metaspace, Sequence)", type);
}

#define TOK(s, i) ((s)->data.data + (s)->off[i])

static int replace_into(struct gp_buf *o, const char *s, size_t n, const char *a, size_t al, const char *b,
                        size_t bl)
{
    size_t i = 0;
    while (i < n) {
        const char *hit = (n - i >= al) ? memmem(s + i, n - i, a, al) : NULL;
        if (!hit)
            return gp_buf_append(o, s + i, n - i);
        if (gp_buf_append(o, s + i, (size_t)(hit - (s + i))) || gp_buf_append(o, b, bl))
            return -GP_ENOMEM;
        i = (size_t)(hit - s) + al;
    }
    return 0;
}

/* ByteLevel: each token's chars map back to bytes (GPT-2's byte map), all
 * tokens joined, then String::from_utf8_lossy over the whole byte string,
 * as one token. */
static int step_bytelevel(struct tk_strs *in, struct tk_strs *out, struct gp_buf *tmp)
{
    int r = 0;
    gp_buf_reset(tmp);
    for (size_t i = 0; i < in->n && !r; i++) {
        const char *s = TOK(in, i);
        size_t n = in->len[i], p = 0, mark = tmp->len;
        int ok = 1;
        while (p < n) {
            size_t l = gp_utf8_len((const unsigned char *)s + p, n - p);
            int b = -1;
            if (l) {
                size_t dl;
                b = tk_cp_to_byte(gp_utf8_cp((const unsigned char *)s + p, &dl));
            }
            if (b < 0) {
                ok = 0;
                break;
            }
            if ((r = gp_buf_putc(tmp, (char)b)))
                break;
            p += l;
        }
        if (!ok) { /* a char outside the byte map: keep the token's own bytes */
            tmp->len = mark;
            r = gp_buf_append(tmp, s, n);
        }
    }
    if (r)
        return r;
    if ((r = tk_strs_push(out, "", 0)))
        return r;
    r = tk_utf8_lossy(&out->data, tmp->data ? tmp->data : "", tmp->len);
    out->len[0] = out->data.len;
    return r;
}

/* 1 and the byte in *v if token i of in is "<0xNN>" (hex digits either case). */
static int byte_token(struct tk_strs *in, size_t i, unsigned *v)
{
    if (i >= in->n || in->len[i] != 6)
        return 0;
    const char *s = TOK(in, i);
    if (memcmp(s, "<0x", 3) || s[5] != '>')
        return 0;
    *v = 0;
    for (int k = 3; k < 5; k++) {
        char c = s[k];
        int x = (c >= '0' && c <= '9') ? c - '0' : (c >= 'A' && c <= 'F') ? c - 'A' + 10
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
        if (x < 0)
            return 0;
        *v = *v * 16 + (unsigned)x;
    }
    return 1;
}

/* ByteFallback: each run of "<0xNN>" tokens becomes one token if its bytes
 * are valid UTF-8, else one U+FFFD per byte (as HF); other tokens pass. The
 * loop runs one past the end so that a trailing run is flushed. */
static int step_bytefallback(struct tk_strs *in, struct tk_strs *out, struct gp_buf *tmp)
{
    int r = 0;
    gp_buf_reset(tmp); /* the pending run of <0xNN> bytes */
    for (size_t i = 0; i <= in->n && !r; i++) {
        unsigned v = 0;
        if (byte_token(in, i, &v)) {
            r = gp_buf_putc(tmp, (char)v);
            continue;
        }
        if (tmp->len) {
            if (tk_utf8_valid(tmp->data, tmp->len))
                r = tk_strs_push(out, tmp->data, tmp->len);
            else
                for (size_t k = 0; k < tmp->len && !r; k++)
                    r = tk_strs_push(out, "\xEF\xBF\xBD", 3);
            gp_buf_reset(tmp);
        }
        if (!r && i < in->n)
            r = tk_strs_push(out, TOK(in, i), in->len[i]);
    }
    return r;
}

/* Strip: up to d->start copies of the char off each token's front and up
 * to d->stop off its back. */
static int step_strip(const struct tk_dec *d, struct tk_strs *in, struct tk_strs *out)
{
    int r = 0;
    for (size_t i = 0; i < in->n && !r; i++) {
        const unsigned char *s = (const unsigned char *)TOK(in, i);
        size_t n = in->len[i], a = 0, b = n, l;
        for (int k = 0; k < d->start && a < n; k++) {
            if (gp_utf8_cp(s + a, &l) != d->strip_cp)
                break;
            a += l;
        }
        for (int k = 0; k < d->stop && b > a; k++) {
            size_t q = b - 1;
            while (q > a && (s[q] & 0xC0) == 0x80)
                q--;
            if (gp_utf8_cp(s + q, &l) != d->strip_cp)
                break;
            b = q;
        }
        r = tk_strs_push(out, (const char *)s + a, b - a);
    }
    return r;
}

static int step(const struct tk_dec *d, struct tk_strs *in, struct tk_strs *out, struct gp_buf *tmp)
{
    tk_strs_reset(out);
    int r = 0;
    switch (d->kind) {
    case TK_D_BYTELEVEL:
        return step_bytelevel(in, out, tmp);
    case TK_D_BYTEFALLBACK:
        return step_bytefallback(in, out, tmp);
    case TK_D_FUSE:
        gp_buf_reset(tmp);
        for (size_t i = 0; i < in->n && !r; i++)
            r = gp_buf_append(tmp, TOK(in, i), in->len[i]);
        return r ? r : tk_strs_push(out, tmp->data ? tmp->data : "", tmp->len);
    case TK_D_STRIP:
        return step_strip(d, in, out);
    case TK_D_REPLACE:
        for (size_t i = 0; i < in->n && !r; i++) {
            gp_buf_reset(tmp);
            r = replace_into(tmp, TOK(in, i), in->len[i], d->a, d->alen, d->b, d->blen);
            if (!r)
                r = tk_strs_push(out, tmp->data ? tmp->data : "", tmp->len);
        }
        return r;
    case TK_D_METASPACE:
        /* HF drops every replacement char of the first token (not just a
         * leading one) unless the scheme is never; elsewhere it is a space */
        for (size_t i = 0; i < in->n && !r; i++) {
            gp_buf_reset(tmp);
            if (i == 0 && d->prepend != TK_PREPEND_NEVER)
                r = replace_into(tmp, TOK(in, i), in->len[i], d->repl, d->repl_len, "", 0);
            else
                r = replace_into(tmp, TOK(in, i), in->len[i], d->repl, d->repl_len, " ", 1);
            if (!r)
                r = tk_strs_push(out, tmp->data ? tmp->data : "", tmp->len);
        }
        return r;
    case TK_D_SEQ:
        break;
    }
    return -GP_EINVAL;
}

static int run(const struct tk_dec *d, struct tk_strs **cur, struct tk_strs **tmp, struct gp_buf *scratch)
{
    if (d->kind == TK_D_SEQ) {
        for (size_t i = 0; i < d->nsub; i++) {
            int r = run(&d->sub[i], cur, tmp, scratch);
            if (r)
                return r;
        }
        return 0;
    }
    int r = step(d, *cur, *tmp, scratch);
    if (r)
        return r;
    struct tk_strs *sw = *cur;
    *cur = *tmp;
    *tmp = sw;
    return 0;
}

int tk_dec_apply(const struct tk_dec *d, struct tk_strs **cur, struct tk_strs **tmp, struct gp_buf *scratch)
{
    return run(d, cur, tmp, scratch);
}

void tk_dec_free(struct tk_dec *d)
{
    for (size_t i = 0; i < d->nsub; i++)
        tk_dec_free(&d->sub[i]);
    free(d->sub);
    free(d->a);
    free(d->b);
    memset(d, 0, sizeof *d);
}
