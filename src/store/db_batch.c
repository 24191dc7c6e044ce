/* store/db_batch.c — multi-row INSERT (see db_batch.h). */
#include "store/db_batch.h"
#include "store/db.h"

#include "core/error.h"
#include "core/pytext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gp_db_batch_init(struct gp_db_batch *b, struct gp_db *db, const char *head, int ncols, int max_rows,
                     void (*release)(void *keep))
{
    memset(b, 0, sizeof *b);
    b->db = db, b->head = head, b->ncols = ncols, b->max_rows = max_rows, b->release = release;
    b->params = calloc((size_t)ncols * (size_t)max_rows, sizeof *b->params);
    b->num = calloc((size_t)ncols * (size_t)max_rows, sizeof *b->num);
    b->keep = calloc((size_t)max_rows, sizeof *b->keep);
    return b->params && b->num && b->keep ? 0 : -GP_ENOMEM;
}

static void release_rows(struct gp_db_batch *b)
{
    for (int r = 0; b->keep && r < b->rows; r++) {
        if (b->keep[r] && b->release)
            b->release(b->keep[r]);
        b->keep[r] = NULL;
    }
}

void gp_db_batch_free(struct gp_db_batch *b)
{
    release_rows(b);
    free(b->params);
    free(b->num);
    free(b->keep);
    gp_buf_free(&b->sql);
    memset(b, 0, sizeof *b);
}

int gp_db_batch_flush(struct gp_db_batch *b, struct gp_error *err)
{
    if (!b->rows)
        return 0;
    gp_buf_reset(&b->sql);
    gp_buf_puts(&b->sql, b->head);
    for (int r = 0; r < b->rows; r++) {
        gp_buf_puts(&b->sql, r ? ",(" : "(");
        for (int c = 0; c < b->ncols; c++)
            gp_buf_puts(&b->sql, c ? ",?" : "?");
        gp_buf_putc(&b->sql, ')');
    }
    int rc = b->sql.data ? gp_db_query(b->db, b->sql.data, b->params, b->rows * b->ncols, NULL, NULL, err)
                         : gp_err(err, GP_ENOMEM, "out of memory building an INSERT");
    release_rows(b);
    b->total += (size_t)b->rows;
    b->rows = 0;
    return rc;
}

/* The slot for column c of the row being filled. */
static const char **cell(struct gp_db_batch *b, int c)
{
    return &b->params[b->rows * b->ncols + c];
}

static char *num(struct gp_db_batch *b, int c)
{
    return b->num[b->rows * b->ncols + c];
}

void gp_db_batch_text(struct gp_db_batch *b, int c, const char *text)
{
    *cell(b, c) = text;
}

void gp_db_batch_ll(struct gp_db_batch *b, int c, long long v)
{
    *cell(b, c) = gp_db_text_ll(num(b, c), v);
}

void gp_db_batch_dbl(struct gp_db_batch *b, int c, double v)
{
    *cell(b, c) = isfinite(v) ? gp_db_text_double(num(b, c), v) : NULL;
}

void gp_db_batch_clear_row(struct gp_db_batch *b)
{
    for (int c = 0; c < b->ncols; c++)
        *cell(b, c) = NULL;
}

int gp_db_batch_row_done(struct gp_db_batch *b, void *keep, struct gp_error *err)
{
    b->keep[b->rows] = keep;
    b->rows++;
    return b->rows == b->max_rows ? gp_db_batch_flush(b, err) : 0;
}

const char *gp_db_text_ll(char out[GP_DB_NUM_LEN], long long v)
{
    snprintf(out, GP_DB_NUM_LEN, "%lld", v);
    return out;
}

const char *gp_db_text_double(char out[GP_DB_NUM_LEN], double v)
{
    gp_float8_text(v, out, GP_DB_NUM_LEN);
    return out;
}
