/* tokenizer/tokenizer.c — the public tokenizer API: the built-in byte
 * tokenizer, and the HuggingFace tokenizer.json pipeline
 *   added tokens (raw) -> normalizer -> added tokens (normalized) ->
 *   pre-tokenizer -> BPE -> post-processor (only with add_special)
 * as HF tokenizers' encode does, and decode via the decoder chain.
 *
 * Owns: struct gp_tokenizer with every component and the encode workspace,
 * all freed by gp_tokenizer_free. Text that is not valid UTF-8 is first
 * converted as from_utf8_lossy / WHATWG do (U+FFFD per maximal invalid
 * subsequence), which is what reading the text as a string in Python, JS or
 * Rust yields. */
#include "tokenizer/tokenizer.h"
#include "tokenizer/tok_internal.h"
#include "tokenizer/hub.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TF_ADDED 1
#define TF_SPECIAL 2

struct gp_tokenizer {
    int kind; /* 0 = builtin bytes, 1 = tokenizer.json */
    char source[4096];
    int has_norm, has_dec, byte_level;
    struct tk_norm norm;
    struct tk_pre *pre;
    size_t npre;
    struct tk_bpe bpe;
    struct tk_added added_raw, added_norm;
    struct tk_dec dec;
    uint32_t *tpl_pre, *tpl_post; /* TemplateProcessing single: ids before/after $A */
    size_t ntpl_pre, ntpl_post;
    /* id -> token string as in the file (added tokens override the model's) */
    char *tarena;
    size_t tarena_len, tarena_cap;
    uint32_t *toff, *tlen;
    uint8_t *tflag;
    uint32_t ntok;
    /* workspace */
    struct gp_buf lossy, nbuf, nalt, nscratch, pbufs[2], dscratch;
    struct tk_pieces pieces, ptmp;
    struct tk_strs d1, d2;
    struct gp_ids cnt;
};

/* ---------------------------------------------------------------- loading */

static int set_token(struct gp_tokenizer *t, uint32_t id, const char *s, size_t n, uint8_t flag)
{
    if (id >= t->ntok)
        return -GP_EINVAL;
    if (t->tarena_len + n > t->tarena_cap) {
        size_t c = t->tarena_cap ? t->tarena_cap : 1 << 20;
        while (c < t->tarena_len + n)
            c *= 2;
        char *p = realloc(t->tarena, c);
        if (!p)
            return -GP_ENOMEM;
        t->tarena = p;
        t->tarena_cap = c;
    }
    memcpy(t->tarena + t->tarena_len, s, n);
    t->toff[id] = (uint32_t)t->tarena_len;
    t->tlen[id] = (uint32_t)n;
    t->tflag[id] = flag;
    t->tarena_len += n;
    return 0;
}

static int load_post(struct gp_tokenizer *t, json_t *j, struct gp_error *err)
{
    if (!j || json_is_null(j))
        return 0;
    const char *type = json_string_value(json_object_get(j, "type"));
    if (!type)
        return gp_err(err, GP_EINVAL, "post_processor without a \"type\"");
    if (!strcmp(type, "ByteLevel"))
        return 0; /* trims offsets only; adds no ids */
    if (!strcmp(type, "Sequence")) {
        json_t *arr = json_object_get(j, "processors");
        for (size_t i = 0; i < json_array_size(arr); i++) {
            int r = load_post(t, json_array_get(arr, i), err);
            if (r)
                return r;
        }
        return 0;
    }
    if (t->tpl_pre || t->tpl_post)
        return gp_err(err, GP_ENOTSUP, "post_processor: more than one template is not supported");
    t->tpl_pre = calloc(64, sizeof *t->tpl_pre);
    t->tpl_post = calloc(64, sizeof *t->tpl_post);
    if (!t->tpl_pre || !t->tpl_post)
        return gp_err(err, GP_ENOMEM, "out of memory");
    if (!strcmp(type, "BertProcessing") || !strcmp(type, "RobertaProcessing")) {
        json_t *cls = json_object_get(j, "cls"), *sep = json_object_get(j, "sep");
        if (!json_is_integer(json_array_get(cls, 1)) || !json_is_integer(json_array_get(sep, 1)))
            return gp_err(err, GP_EINVAL, "post_processor %s needs cls and sep [token, id]", type);
        t->tpl_pre[t->ntpl_pre++] = (uint32_t)json_integer_value(json_array_get(cls, 1));
        t->tpl_post[t->ntpl_post++] = (uint32_t)json_integer_value(json_array_get(sep, 1));
        return 0;
    }
    if (strcmp(type, "TemplateProcessing") != 0)
        return gp_err(err, GP_ENOTSUP,
                      "post_processor '%s' is not supported (supported: TemplateProcessing, ByteLevel, "
                      "BertProcessing, RobertaProcessing, Sequence)", type);
    json_t *single = json_object_get(j, "single"), *sp = json_object_get(j, "special_tokens");
    if (!json_is_array(single))
        return gp_err(err, GP_EINVAL, "post_processor TemplateProcessing without \"single\"");
    int seen_a = 0;
    for (size_t i = 0; i < json_array_size(single); i++) {
        json_t *it = json_array_get(single, i);
        json_t *st = json_object_get(it, "SpecialToken"), *sq = json_object_get(it, "Sequence");
        if (sq) {
            const char *id = json_string_value(json_object_get(sq, "id"));
            if (!id || strcmp(id, "A") != 0 || seen_a)
                return gp_err(err, GP_EINVAL, "post_processor TemplateProcessing: single must hold $A once");
            seen_a = 1;
            continue;
        }
        const char *name = json_string_value(json_object_get(st, "id"));
        json_t *ids = json_object_get(json_object_get(sp, name ? name : ""), "ids");
        if (!name || !json_is_array(ids))
            return gp_err(err, GP_EINVAL, "post_processor TemplateProcessing: special token '%s' has no ids",
                          name ? name : "(none)");
        for (size_t k = 0; k < json_array_size(ids); k++) {
            uint32_t v = (uint32_t)json_integer_value(json_array_get(ids, k));
            if (seen_a ? t->ntpl_post >= 64 : t->ntpl_pre >= 64)
                return gp_err(err, GP_ENOTSUP, "post_processor TemplateProcessing: too many special tokens");
            if (seen_a)
                t->tpl_post[t->ntpl_post++] = v;
            else
                t->tpl_pre[t->ntpl_pre++] = v;
        }
    }
    return 0;
}

static int load_added(struct gp_tokenizer *t, json_t *arr, struct gp_error *err)
{
    size_t n = json_array_size(arr);
    struct tk_added_tok *raw = calloc(n + 1, sizeof *raw), *nrm = calloc(n + 1, sizeof *nrm);
    size_t nr = 0, nn = 0;
    int rc = 0;
    if (!raw || !nrm) {
        free(raw);
        free(nrm);
        return gp_err(err, GP_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n && !rc; i++) {
        json_t *e = json_array_get(arr, i);
        json_t *c = json_object_get(e, "content"), *id = json_object_get(e, "id");
        if (!json_is_string(c) || !json_is_integer(id) || json_integer_value(id) < 0 ||
            (uint64_t)json_integer_value(id) >= t->ntok) {
            rc = gp_err(err, GP_EINVAL, "added_tokens[%zu] needs a \"content\" string and a valid \"id\"", i);
            break;
        }
        struct tk_added_tok at = {0};
        at.id = (uint32_t)json_integer_value(id);
        at.special = json_is_true(json_object_get(e, "special"));
        at.normalized = json_is_true(json_object_get(e, "normalized"));
        at.lstrip = json_is_true(json_object_get(e, "lstrip"));
        at.rstrip = json_is_true(json_object_get(e, "rstrip"));
        at.single_word = json_is_true(json_object_get(e, "single_word"));
        const char *s = json_string_value(c);
        size_t l = json_string_length(c);
        int changed = 0;
        /* a normalized token is matched by its normalized form (tokenizers 0.23) */
        if (at.normalized && t->has_norm) {
            if (tk_norm_apply(&t->norm, s, l, &t->nbuf, &t->nalt, &t->nscratch)) {
                rc = gp_err(err, GP_ENOMEM, "out of memory");
                break;
            }
            changed = t->nbuf.len != l || memcmp(t->nbuf.data, s, l) != 0;
            s = t->nbuf.data ? t->nbuf.data : "";
            l = t->nbuf.len;
        }
        /* tokenizers 0.23 also decodes such a token as its normalized form
         * (Llama-2's <s> comes back as "▁<s>", i.e. " <s>"), and that form is
         * not in its special-token set, so skip_special_tokens keeps it */
        uint8_t flag = (uint8_t)(TF_ADDED | (at.special && !changed ? TF_SPECIAL : 0));
        if (set_token(t, at.id, s, l, flag)) {
            rc = gp_err(err, GP_ENOMEM, "out of memory");
            break;
        }
        at.content = malloc(l + 1);
        if (!at.content) {
            rc = gp_err(err, GP_ENOMEM, "out of memory");
            break;
        }
        memcpy(at.content, s, l);
        at.content[l] = 0;
        at.len = l;
        if (at.normalized)
            nrm[nn++] = at;
        else
            raw[nr++] = at;
    }
    tk_added_init(&t->added_raw, raw, nr);
    tk_added_init(&t->added_norm, nrm, nn);
    return rc;
}

static int load_json(struct gp_tokenizer *t, const char *path, struct gp_error *err)
{
    char *data;
    size_t len;
    int r = gp_read_file(path, &data, &len, err);
    if (r)
        return r;
    json_error_t je;
    json_t *root = json_loadb(data, len, JSON_ALLOW_NUL, &je);
    free(data);
    if (!root)
        return gp_err(err, GP_EINVAL, "%s:%d: not valid JSON: %s", path, je.line, je.text);
    json_t *model = json_object_get(root, "model");
    if (!json_is_object(model)) {
        json_decref(root);
        return gp_err(err, GP_EINVAL, "%s: no \"model\" object (is this a HuggingFace tokenizer.json?)", path);
    }
    json_t *norm = json_object_get(root, "normalizer");
    if (norm && !json_is_null(norm)) {
        t->has_norm = 1; /* set first: a half-loaded normalizer is freed too */
        if ((r = tk_norm_load(&t->norm, norm, err)))
            goto out;
    }
    if ((r = tk_pre_load(json_object_get(root, "pre_tokenizer"), &t->pre, &t->npre, &t->byte_level, err)))
        goto out;
    if ((r = tk_bpe_load(&t->bpe, model, t->byte_level, err)))
        goto out;
    json_t *dec = json_object_get(root, "decoder");
    if (dec && !json_is_null(dec)) {
        t->has_dec = 1;
        if ((r = tk_dec_load(&t->dec, dec, err)))
            goto out;
    }
    if ((r = load_post(t, json_object_get(root, "post_processor"), err)))
        goto out;
    /* the id table: model vocab plus added tokens */
    json_t *added = json_object_get(root, "added_tokens");
    t->ntok = t->bpe.nid;
    for (size_t i = 0; i < json_array_size(added); i++) {
        json_int_t id = json_integer_value(json_object_get(json_array_get(added, i), "id"));
        if (id >= 0 && id < 0x7fffffff && (uint32_t)id + 1 > t->ntok)
            t->ntok = (uint32_t)id + 1;
    }
    t->toff = calloc(t->ntok + 1, sizeof *t->toff);
    t->tlen = malloc((t->ntok + 1) * sizeof *t->tlen);
    t->tflag = calloc(t->ntok + 1, 1);
    if (!t->toff || !t->tlen || !t->tflag) {
        r = gp_err(err, GP_ENOMEM, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < t->ntok; i++)
        t->tlen[i] = UINT32_MAX;
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(model, "vocab"), k, v) {
        uint32_t id = (uint32_t)json_integer_value(v);
        if (t->tlen[id] == UINT32_MAX && set_token(t, id, k, strlen(k), 0)) {
            r = gp_err(err, GP_ENOMEM, "out of memory");
            goto out;
        }
    }
    if ((r = load_added(t, added, err)))
        goto out;
    for (size_t i = 0; i < t->ntpl_pre + t->ntpl_post; i++) {
        uint32_t id = i < t->ntpl_pre ? t->tpl_pre[i] : t->tpl_post[i - t->ntpl_pre];
        if (id >= t->ntok) {
            r = gp_err(err, GP_EINVAL, "post_processor uses id %u, which is not in the vocab", id);
            goto out;
        }
    }
out:
    json_decref(root);
    if (r)
        gp_err_prefix(err, "tokenizer %s", path);
    return r;
}

int gp_tokenizer_load(const char *spec, const struct gp_tokenizer_opts *opts,
                      struct gp_tokenizer **out, struct gp_error *err)
{
    *out = NULL;
    if (!spec || !*spec)
        return gp_err(err, GP_EINVAL, "no tokenizer given (use --tokenizer PATH|ORG/NAME|builtin)");
    struct gp_tokenizer *t = calloc(1, sizeof *t);
    if (!t)
        return gp_err(err, GP_ENOMEM, "out of memory loading tokenizer");
    if (!strcmp(spec, "builtin")) {
        strcpy(t->source, "builtin");
        *out = t;
        return 0;
    }
    t->kind = 1;
    char path[4096];
    int r = 0;
    if (gp_is_dir(spec)) {
        if ((r = gp_path_join(path, sizeof path, spec, "tokenizer.json")))
            r = gp_err(err, GP_EINVAL, "tokenizer path '%s' is too long", spec);
        else if (!gp_is_file(path))
            r = gp_err(err, GP_ENOENT, "tokenizer directory '%s' has no tokenizer.json (point --tokenizer at "
                                       "a tokenizer.json or a directory holding one)", spec);
    } else if (gp_is_file(spec)) {
        if (strlen(spec) >= sizeof path)
            r = gp_err(err, GP_EINVAL, "tokenizer path '%s' is too long", spec);
        else
            strcpy(path, spec);
    } else if (gp_hub_is_model_id(spec)) {
        r = gp_hub_resolve(spec, opts ? opts->revision : NULL, opts ? opts->offline : 0, path, sizeof path, err);
    } else {
        r = gp_err(err, GP_ENOENT, "tokenizer '%s': no such file or directory, and not a hub id ORG/NAME", spec);
    }
    if (!r)
        r = load_json(t, path, err);
    if (r) {
        gp_tokenizer_free(t);
        return r;
    }
    snprintf(t->source, sizeof t->source, "%s", path);
    *out = t;
    return 0;
}

void gp_tokenizer_free(struct gp_tokenizer *t)
{
    if (!t)
        return;
    if (t->has_norm)
        tk_norm_free(&t->norm);
    tk_pre_free(t->pre, t->npre);
    tk_bpe_free(&t->bpe);
    tk_added_free(&t->added_raw);
    tk_added_free(&t->added_norm);
    if (t->has_dec)
        tk_dec_free(&t->dec);
    free(t->tpl_pre);
    free(t->tpl_post);
    free(t->tarena);
    free(t->toff);
    free(t->tlen);
    free(t->tflag);
    gp_buf_free(&t->lossy);
    gp_buf_free(&t->nbuf);
    gp_buf_free(&t->nscratch);
    gp_buf_free(&t->nalt);
    gp_buf_free(&t->dscratch);
    gp_buf_free(&t->pbufs[0]);
    gp_buf_free(&t->pbufs[1]);
    tk_pieces_free(&t->pieces);
    tk_pieces_free(&t->ptmp);
    tk_strs_free(&t->d1);
    tk_strs_free(&t->d2);
    gp_ids_free(&t->cnt);
    free(t);
}

/* --------------------------------------------------------------- encoding */

static int encode_pretok(struct gp_tokenizer *t, const char *s, size_t n, int first, struct gp_ids *out)
{
    if (!n)
        return 0;
    const char *text = s;
    size_t tl = n;
    int r = tk_pre_apply(t->pre, t->npre, &text, &tl, first, &t->pieces, &t->ptmp, t->pbufs);
    if (r)
        return r;
    for (size_t i = 0; i < t->pieces.n; i++)
        if ((r = tk_bpe_word(&t->bpe, text + t->pieces.off[i], t->pieces.len[i], out)))
            return r;
    return 0;
}

static int encode_segment(struct gp_tokenizer *t, const char *s, size_t n, int first, struct gp_ids *out)
{
    if (!n)
        return 0;
    if (t->has_norm) {
        int r = tk_norm_apply(&t->norm, s, n, &t->nbuf, &t->nalt, &t->nscratch);
        if (r)
            return r;
        s = t->nbuf.data ? t->nbuf.data : "";
        n = t->nbuf.len;
    }
    size_t pos = 0, ms, me;
    long k;
    while ((k = tk_added_next(&t->added_norm, s, n, pos, &ms, &me)) >= 0) {
        int r = encode_pretok(t, s + pos, ms - pos, first && pos == 0, out);
        if (r || (r = gp_ids_push(out, t->added_norm.t[k].id)))
            return r;
        pos = me;
    }
    return encode_pretok(t, s + pos, n - pos, first && pos == 0, out);
}

int gp_tokenizer_encode(struct gp_tokenizer *tok, const char *text, size_t len, int add_special,
                        struct gp_ids *out, struct gp_error *err)
{
    if (tok->kind == 0) {
        for (size_t i = 0; i < len; i++)
            if (gp_ids_push(out, (unsigned char)text[i]))
                return gp_err(err, GP_ENOMEM, "out of memory encoding");
        return 0;
    }
    int r = 0;
    if (add_special)
        for (size_t i = 0; i < tok->ntpl_pre && !r; i++)
            r = gp_ids_push(out, tok->tpl_pre[i]);
    if (!tk_utf8_valid(text, len)) {
        gp_buf_reset(&tok->lossy);
        if (tk_utf8_lossy(&tok->lossy, text, len))
            return gp_err(err, GP_ENOMEM, "out of memory encoding");
        text = tok->lossy.data;
        len = tok->lossy.len;
    }
    size_t pos = 0, ms, me;
    long k;
    while (!r && (k = tk_added_next(&tok->added_raw, text, len, pos, &ms, &me)) >= 0) {
        r = encode_segment(tok, text + pos, ms - pos, pos == 0, out);
        if (!r)
            r = gp_ids_push(out, tok->added_raw.t[k].id);
        pos = me;
    }
    if (!r)
        r = encode_segment(tok, text + pos, len - pos, pos == 0, out);
    if (add_special)
        for (size_t i = 0; i < tok->ntpl_post && !r; i++)
            r = gp_ids_push(out, tok->tpl_post[i]);
    if (r == -GP_ENOMEM)
        return gp_err(err, GP_ENOMEM, "out of memory encoding %zu bytes", len);
    if (r)
        return gp_err(err, GP_EINVAL, "encoding failed (regex match error) on %zu bytes of text", len);
    return 0;
}

long gp_tokenizer_count(struct gp_tokenizer *tok, const char *text, size_t len)
{
    if (tok->kind == 0)
        return (long)len;
    tok->cnt.n = 0;
    if (gp_tokenizer_encode(tok, text, len, 0, &tok->cnt, NULL))
        return -1;
    return (long)tok->cnt.n;
}

int gp_tokenizer_count_reentrant(const struct gp_tokenizer *tok) { return tok->kind == 0; }

/* --------------------------------------------------------------- decoding */

int gp_tokenizer_decode(struct gp_tokenizer *tok, const uint32_t *ids, size_t n, int skip_special,
                        struct gp_buf *out, struct gp_error *err)
{
    if (tok->kind == 0) {
        for (size_t i = 0; i < n; i++) {
            if (ids[i] > 255)
                return gp_err(err, GP_EINVAL, "token id %u is out of range for the builtin tokenizer", ids[i]);
            if (gp_buf_putc(out, (char)ids[i]))
                return gp_err(err, GP_ENOMEM, "out of memory decoding");
        }
        return 0;
    }
    struct tk_strs *cur = &tok->d1, *tmp = &tok->d2;
    tk_strs_reset(cur);
    int r = 0;
    for (size_t i = 0; i < n && !r; i++) {
        uint32_t id = ids[i];
        if (id >= tok->ntok || tok->tlen[id] == UINT32_MAX)
            continue; /* HF skips ids it does not know */
        if (skip_special && (tok->tflag[id] & TF_SPECIAL))
            continue;
        r = tk_strs_push(cur, tok->tarena + tok->toff[id], tok->tlen[id]);
    }
    if (!r && tok->has_dec)
        r = tk_dec_apply(&tok->dec, &cur, &tmp, &tok->dscratch);
    for (size_t i = 0; i < cur->n && !r; i++) {
        if (!tok->has_dec && i && gp_buf_putc(out, ' '))
            r = -GP_ENOMEM;
        if (!r)
            r = gp_buf_append(out, cur->data.data + cur->off[i], cur->len[i]);
    }
    if (r)
        return gp_err(err, GP_ENOMEM, "out of memory decoding %zu ids", n);
    return 0;
}

size_t gp_tokenizer_vocab_size(const struct gp_tokenizer *tok)
{
    return tok->kind == 0 ? 256 : tok->ntok;
}

int gp_tokenizer_is_special(const struct gp_tokenizer *tok, uint32_t id)
{
    if (tok->kind == 0 || id >= tok->ntok)
        return 0;
    return (tok->tflag[id] & TF_ADDED) != 0;
}

const char *gp_tokenizer_source(const struct gp_tokenizer *tok) { return tok->source; }
