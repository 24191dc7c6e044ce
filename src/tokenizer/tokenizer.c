/* tokenizer/tokenizer.c — dispatch between the built-in byte tokenizer and
 * HuggingFace tokenizer.json files.
 *
 * PLACEHOLDER until the tokenizer issue lands: only "builtin" is implemented
 * here; a path or hub id is refused with a message that says so. */
#include "tokenizer/tokenizer.h"
#include "core/buf.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

struct gp_tokenizer {
    int kind; /* 0 = builtin bytes */
    char source[64];
};

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

int gp_tokenizer_load(const char *spec, const struct gp_tokenizer_opts *opts,
                      struct gp_tokenizer **out, struct gp_error *err)
{
    (void)opts;
    *out = NULL;
    if (!spec || strcmp(spec, "builtin") != 0)
        return gp_err(err, GP_ENOTSUP,
                      "tokenizer '%s': only --tokenizer builtin is available in this build",
                      spec ? spec : "(null)");
    struct gp_tokenizer *t = calloc(1, sizeof *t);
    if (!t)
        return gp_err(err, GP_ENOMEM, "out of memory loading tokenizer");
    strcpy(t->source, "builtin");
    *out = t;
    return 0;
}

void gp_tokenizer_free(struct gp_tokenizer *tok) { free(tok); }

int gp_tokenizer_encode(struct gp_tokenizer *tok, const char *text, size_t len, int add_special,
                        struct gp_ids *out, struct gp_error *err)
{
    (void)tok;
    (void)add_special;
    for (size_t i = 0; i < len; i++)
        if (gp_ids_push(out, (unsigned char)text[i]))
            return gp_err(err, GP_ENOMEM, "out of memory encoding");
    return 0;
}

long gp_tokenizer_count(struct gp_tokenizer *tok, const char *text, size_t len)
{
    (void)tok;
    (void)text;
    return (long)len;
}

int gp_tokenizer_decode(struct gp_tokenizer *tok, const uint32_t *ids, size_t n, int skip_special,
                        struct gp_buf *out, struct gp_error *err)
{
    (void)tok;
    (void)skip_special;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] > 255)
            return gp_err(err, GP_EINVAL, "token id %u is out of range for the builtin tokenizer", ids[i]);
        if (gp_buf_putc(out, (char)ids[i]))
            return gp_err(err, GP_ENOMEM, "out of memory decoding");
    }
    return 0;
}

size_t gp_tokenizer_vocab_size(const struct gp_tokenizer *tok)
{
    (void)tok;
    return 256;
}

int gp_tokenizer_is_special(const struct gp_tokenizer *tok, uint32_t id)
{
    (void)tok;
    (void)id;
    return 0;
}

const char *gp_tokenizer_source(const struct gp_tokenizer *tok) { return tok->source; }
