#include "client/record.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

void gp_record_store_init(struct gp_record_store *st) { memset(st, 0, sizeof *st); }

void gp_record_store_free(struct gp_record_store *st)
{
    free(st->recs);
    free(st->chunks);
    gp_buf_free(&st->bytes);
    memset(st, 0, sizeof *st);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 256;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np)
        return -GP_ENOMEM;
    *p = np;
    *cap = nc;
    return 0;
}

long gp_record_append(struct gp_record_store *st, const struct gp_record *rec,
                      const struct gp_chunk *chunks, size_t n, const void *bytes, size_t nbytes,
                      const char *err_text, size_t err_len)
{
    if (grow((void **)&st->recs, &st->cap, st->n + 1, sizeof *st->recs) ||
        grow((void **)&st->chunks, &st->chunks_cap, st->nchunks + n, sizeof *st->chunks) ||
        gp_buf_reserve(&st->bytes, nbytes + err_len))
        return -GP_ENOMEM;
    struct gp_record *r = &st->recs[st->n];
    *r = *rec;
    uint64_t base = st->bytes.len;
    gp_buf_append(&st->bytes, bytes, nbytes);
    r->chunk_first = st->nchunks;
    r->n_chunks = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        st->chunks[st->nchunks + i] = chunks[i];
        st->chunks[st->nchunks + i].off = base + chunks[i].off;
    }
    st->nchunks += n;
    r->err_off = st->bytes.len;
    r->err_len = (uint32_t)err_len;
    if (err_len)
        gp_buf_append(&st->bytes, err_text, err_len);
    return (long)st->n++;
}
