/* tokenizer/tok_pretok.c — pre-tokenizers: Split (PCRE2), ByteLevel,
 * Metaspace, and Sequence of those (flattened at load). Others are refused by
 * name. The split behaviors follow HF's SplitDelimiterBehavior fold exactly.
 * Owns: the tk_pre array (tk_pre_free) and a tk_pieces' arrays (tk_pieces_free). */
#include "tokenizer/tok_internal.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

/* GPT-2's pattern, hard-coded in HF's byte_level.rs */
static const char GPT2_RE[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

int tk_pieces_push(struct tk_pieces *p, size_t off, size_t len, int first)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 256;
        size_t *o = realloc(p->off, nc * sizeof *o);
        if (!o)
            return -GP_ENOMEM;
        p->off = o;
        size_t *l = realloc(p->len, nc * sizeof *l);
        if (!l)
            return -GP_ENOMEM;
        p->len = l;
        unsigned char *f = realloc(p->first, nc);
        if (!f)
            return -GP_ENOMEM;
        p->first = f;
        p->cap = nc;
    }
    p->off[p->n] = off;
    p->len[p->n] = len;
    p->first[p->n] = (unsigned char)first;
    p->n++;
    return 0;
}

void tk_pieces_free(struct tk_pieces *p)
{
    free(p->off);
    free(p->len);
    free(p->first);
    memset(p, 0, sizeof *p);
}

static int load_one(json_t *j, struct tk_pre *p, int *byte_level, struct gp_error *err)
{
    memset(p, 0, sizeof *p);
    const char *type = json_string_value(json_object_get(j, "type"));
    if (!type)
        return gp_err(err, GP_EINVAL, "pre_tokenizer without a \"type\"");
    if (*byte_level)
        return gp_err(err, GP_ENOTSUP,
                      "pre_tokenizer '%s' after ByteLevel is not supported (ByteLevel must come last)", type);
    if (!strcmp(type, "Split")) {
        p->kind = TK_P_SPLIT;
        json_t *pat = json_object_get(j, "pattern");
        json_t *rx = json_object_get(pat, "Regex"), *st = json_object_get(pat, "String");
        json_t *ps = rx ? rx : st;
        if (!json_is_string(ps))
            return gp_err(err, GP_EINVAL, "pre_tokenizer Split needs pattern {\"Regex\"|\"String\": ...}");
        int r = tk_regex_compile(&p->re, json_string_value(ps), json_string_length(ps), rx == NULL,
                                 "pre_tokenizer Split", err);
        if (r)
            return r;
        p->has_re = 1;
        const char *b = json_string_value(json_object_get(j, "behavior"));
        if (!b) b = "Isolated";
        if (!strcmp(b, "Isolated")) p->beh = TK_B_ISOLATED;
        else if (!strcmp(b, "Removed")) p->beh = TK_B_REMOVED;
        else if (!strcmp(b, "MergedWithPrevious")) p->beh = TK_B_MERGED_PREV;
        else if (!strcmp(b, "MergedWithNext")) p->beh = TK_B_MERGED_NEXT;
        else if (!strcmp(b, "Contiguous")) p->beh = TK_B_CONTIGUOUS;
        else
            return gp_err(err, GP_ENOTSUP, "pre_tokenizer Split behavior '%s' is not supported", b);
        p->invert = json_is_true(json_object_get(j, "invert"));
        return 0;
    }
    if (!strcmp(type, "ByteLevel")) {
        p->kind = TK_P_BYTELEVEL;
        p->add_prefix_space = json_is_true(json_object_get(j, "add_prefix_space"));
        json_t *ur = json_object_get(j, "use_regex");
        if (!ur || json_is_true(ur)) {
            int r = tk_regex_compile(&p->re, GPT2_RE, strlen(GPT2_RE), 0, "pre_tokenizer ByteLevel", err);
            if (r)
                return r;
            p->has_re = 1;
        }
        p->beh = TK_B_ISOLATED;
        *byte_level = 1;
        return 0;
    }
    if (!strcmp(type, "Metaspace")) {
        p->kind = TK_P_METASPACE;
        json_t *rp = json_object_get(j, "replacement");
        const char *r = json_string_value(rp);
        if (!r) r = "\xE2\x96\x81";
        p->repl_len = strlen(r);
        if (p->repl_len == 0 || p->repl_len > 4 || gp_utf8_len((const unsigned char *)r, p->repl_len) != p->repl_len)
            return gp_err(err, GP_EINVAL, "pre_tokenizer Metaspace replacement must be one character");
        memcpy(p->repl, r, p->repl_len);
        const char *ps = json_string_value(json_object_get(j, "prepend_scheme"));
        json_t *aps = json_object_get(j, "add_prefix_space");
        if (ps) {
            if (!strcmp(ps, "always")) p->prepend = TK_PREPEND_ALWAYS;
            else if (!strcmp(ps, "first")) p->prepend = TK_PREPEND_FIRST;
            else if (!strcmp(ps, "never")) p->prepend = TK_PREPEND_NEVER;
            else
                return gp_err(err, GP_ENOTSUP, "pre_tokenizer Metaspace prepend_scheme '%s' is not supported", ps);
        } else
            p->prepend = (aps && !json_is_true(aps)) ? TK_PREPEND_NEVER : TK_PREPEND_ALWAYS;
        json_t *sp = json_object_get(j, "split");
        p->ms_split = !sp || json_is_true(sp);
        return 0;
    }
    return gp_err(err, GP_ENOTSUP,
                  "pre_tokenizer '%s' is not supported (supported: Split, ByteLevel, Metaspace, Sequence)", type);
}

int tk_pre_load(json_t *j, struct tk_pre **pre, size_t *n, int *byte_level, struct gp_error *err)
{
    *pre = NULL;
    *n = 0;
    *byte_level = 0;
    if (!j || json_is_null(j))
        return 0;
    const char *type = json_string_value(json_object_get(j, "type"));
    json_t *list = NULL;
    size_t cnt = 1;
    if (type && !strcmp(type, "Sequence")) {
        list = json_object_get(j, "pretokenizers");
        if (!json_is_array(list))
            return gp_err(err, GP_EINVAL, "pre_tokenizer Sequence without \"pretokenizers\"");
        cnt = json_array_size(list);
        for (size_t i = 0; i < cnt; i++) {
            const char *t = json_string_value(json_object_get(json_array_get(list, i), "type"));
            if (t && !strcmp(t, "Sequence"))
                return gp_err(err, GP_ENOTSUP, "nested pre_tokenizer Sequence is not supported");
        }
    }
    struct tk_pre *p = calloc(cnt ? cnt : 1, sizeof *p);
    if (!p)
        return gp_err(err, GP_ENOMEM, "out of memory");
    for (size_t i = 0; i < cnt; i++) {
        int r = load_one(list ? json_array_get(list, i) : j, &p[i], byte_level, err);
        if (r) {
            tk_pre_free(p, i + 1);
            return r;
        }
    }
    *pre = p;
    *n = cnt;
    return 0;
}

/* Applies a split behavior to the ranges of one piece (is_match already
 * inverted as asked) — the fold in HF's NormalizedString::split. */
struct folder {
    struct tk_pieces *out;
    enum tk_split_beh beh;
    int prev_match;
    size_t base_n;    /* out->n when this piece started */
    size_t piece_off;
    int piece_first;
};

static int fold_push(struct folder *f, size_t s, size_t e, int is_match)
{
    struct tk_pieces *o = f->out;
    int r = 0;
    int first = f->piece_first && s == f->piece_off;
    switch (f->beh) {
    case TK_B_ISOLATED:
        r = tk_pieces_push(o, s, e - s, first);
        break;
    case TK_B_REMOVED:
        if (!is_match)
            r = tk_pieces_push(o, s, e - s, first);
        break;
    case TK_B_MERGED_PREV:
        if (is_match && !f->prev_match && o->n > f->base_n)
            o->len[o->n - 1] = e - o->off[o->n - 1];
        else
            r = tk_pieces_push(o, s, e - s, first);
        break;
    case TK_B_CONTIGUOUS:
        if (is_match == f->prev_match && o->n > f->base_n)
            o->len[o->n - 1] = e - o->off[o->n - 1];
        else
            r = tk_pieces_push(o, s, e - s, first);
        break;
    case TK_B_MERGED_NEXT:
        /* forward form of HF's reverse fold: a match starts a new piece
         * unless the previous range was a match too; a non-match joins a
         * preceding match */
        if (o->n > f->base_n && f->prev_match && !is_match)
            o->len[o->n - 1] = e - o->off[o->n - 1];
        else
            r = tk_pieces_push(o, s, e - s, first);
        break;
    }
    f->prev_match = is_match;
    return r;
}

static int split_piece(const struct tk_pre *p, const char *text, size_t off, size_t len, int first,
                       struct tk_pieces *out)
{
    struct folder f = {out, p->beh, 0, out->n, off, first};
    const char *s = text + off;
    size_t pos = 0, ms, me;
    int r;
    while ((r = tk_regex_next((struct tk_regex *)&p->re, s, len, pos, &ms, &me)) == 1) {
        if (ms > pos && (r = fold_push(&f, off + pos, off + ms, p->invert)))
            return r;
        if ((r = fold_push(&f, off + ms, off + me, !p->invert)))
            return r;
        pos = me;
    }
    if (r < 0)
        return r;
    if (pos < len)
        return fold_push(&f, off + pos, off + len, p->invert);
    return 0;
}

/* MergedWithNext split on each occurrence of a literal char (Metaspace split). */
static int split_char(const char *text, size_t off, size_t len, int first, const char *c, size_t clen,
                      struct tk_pieces *out)
{
    struct folder f = {out, TK_B_MERGED_NEXT, 0, out->n, off, first};
    size_t pos = 0;
    const char *s = text + off;
    while (pos < len) {
        const char *hit = memmem(s + pos, len - pos, c, clen);
        if (!hit)
            break;
        size_t h = (size_t)(hit - s);
        int r;
        if (h > pos && (r = fold_push(&f, off + pos, off + h, 0)))
            return r;
        if ((r = fold_push(&f, off + h, off + h + clen, 1)))
            return r;
        pos = h + clen;
    }
    if (pos < len)
        return fold_push(&f, off + pos, off + len, 0);
    return 0;
}

int tk_pre_apply(const struct tk_pre *pre, size_t n, const char **text, size_t *textlen, int first,
                 struct tk_pieces *pieces, struct tk_pieces *tmp, struct gp_buf bufs[2])
{
    pieces->n = 0;
    int r = tk_pieces_push(pieces, 0, *textlen, first);
    if (r || *textlen == 0)
        return r;
    int nb = 0; /* next buffer to write a rewritten text into */
    for (size_t k = 0; k < n; k++) {
        const struct tk_pre *p = &pre[k];
        const char *t = *text;
        if (p->kind == TK_P_BYTELEVEL && p->add_prefix_space) {
            struct gp_buf *b = &bufs[nb];
            gp_buf_reset(b);
            tmp->n = 0;
            for (size_t i = 0; i < pieces->n; i++) {
                size_t o = b->len;
                if ((pieces->len[i] == 0 || t[pieces->off[i]] != ' ') && gp_buf_putc(b, ' '))
                    return -GP_ENOMEM;
                if (gp_buf_append(b, t + pieces->off[i], pieces->len[i]) ||
                    tk_pieces_push(tmp, o, b->len - o, pieces->first[i]))
                    return -GP_ENOMEM;
            }
            struct tk_pieces sw = *pieces; *pieces = *tmp; *tmp = sw;
            *text = t = b->data;
            *textlen = b->len;
            nb ^= 1;
        }
        if (p->kind == TK_P_METASPACE) {
            struct gp_buf *b = &bufs[nb];
            gp_buf_reset(b);
            tmp->n = 0;
            for (size_t i = 0; i < pieces->n; i++) {
                size_t o = b->len;
                const char *ps = t + pieces->off[i];
                size_t pl = pieces->len[i];
                int starts = (pl && ps[0] == ' ') ||
                             (pl >= p->repl_len && !memcmp(ps, p->repl, p->repl_len));
                int pre_it = p->prepend == TK_PREPEND_ALWAYS ||
                             (p->prepend == TK_PREPEND_FIRST && pieces->first[i]);
                if (pre_it && !starts && gp_buf_append(b, p->repl, p->repl_len))
                    return -GP_ENOMEM;
                for (size_t j = 0; j < pl; j++) {
                    int rr = ps[j] == ' ' ? gp_buf_append(b, p->repl, p->repl_len) : gp_buf_putc(b, ps[j]);
                    if (rr)
                        return -GP_ENOMEM;
                }
                if (tk_pieces_push(tmp, o, b->len - o, pieces->first[i]))
                    return -GP_ENOMEM;
            }
            struct tk_pieces sw = *pieces; *pieces = *tmp; *tmp = sw;
            *text = t = b->data;
            *textlen = b->len;
            nb ^= 1;
            if (p->ms_split) {
                tmp->n = 0;
                for (size_t i = 0; i < pieces->n; i++)
                    if ((r = split_char(t, pieces->off[i], pieces->len[i], pieces->first[i], p->repl,
                                        p->repl_len, tmp)))
                        return r;
                sw = *pieces; *pieces = *tmp; *tmp = sw;
            }
            continue;
        }
        if (p->has_re) {
            tmp->n = 0;
            for (size_t i = 0; i < pieces->n; i++) {
                if (!pieces->len[i])
                    continue;
                if ((r = split_piece(p, t, pieces->off[i], pieces->len[i], pieces->first[i], tmp)))
                    return r;
            }
            struct tk_pieces sw = *pieces; *pieces = *tmp; *tmp = sw;
        }
    }
    return 0;
}

void tk_pre_free(struct tk_pre *pre, size_t n)
{
    if (!pre)
        return;
    for (size_t i = 0; i < n; i++)
        tk_regex_free(&pre[i].re);
    free(pre);
}
