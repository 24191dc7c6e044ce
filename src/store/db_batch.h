/* store/db_batch.h — multi-row INSERT over store/db.h.
 *
 * Owns: the parameter and SQL buffers of a struct gp_db_batch (freed by
 * gp_db_batch_free) and, until the row is flushed, each row's "keep" object
 * (released with the release function given to gp_db_batch_init). The
 * connection and the head text are borrowed.
 *
 * One statement per max_rows rows keeps round trips to PostgreSQL (and
 * statement preparation in SQLite) off the per-row path. A row's text
 * parameters may point into its keep object (e.g. a parsed JSON line), which
 * lives until the row is written.
 */
#ifndef GP_STORE_DB_BATCH_H
#define GP_STORE_DB_BATCH_H

#include "core/buf.h"

#include <stddef.h>

struct gp_db;
struct gp_error;

#define GP_DB_NUM_LEN 40

struct gp_db_batch {
    struct gp_db *db;
    const char *head;   /* "INSERT INTO t (a, b, c) VALUES " */
    int ncols, rows, max_rows;
    const char **params;
    char (*num)[GP_DB_NUM_LEN];
    void **keep;
    void (*release)(void *keep);
    struct gp_buf sql;
    size_t total;       /* rows written so far */
};

/* release may be NULL when rows never keep anything. Returns -GP_ENOMEM on
 * failure; gp_db_batch_free is safe either way. */
int gp_db_batch_init(struct gp_db_batch *b, struct gp_db *db, const char *head, int ncols, int max_rows,
                     void (*release)(void *keep));
void gp_db_batch_free(struct gp_db_batch *b);

/* Setters for column c of the row being filled. text is borrowed until the
 * row is flushed (NULL = SQL NULL); numbers are formatted into the batch. */
void gp_db_batch_text(struct gp_db_batch *b, int c, const char *text);
void gp_db_batch_ll(struct gp_db_batch *b, int c, long long v);
void gp_db_batch_dbl(struct gp_db_batch *b, int c, double v); /* not finite -> NULL */
void gp_db_batch_clear_row(struct gp_db_batch *b);             /* every column NULL */

/* Ends the row (keep may be NULL); writes the batch when it is full. */
int gp_db_batch_row_done(struct gp_db_batch *b, void *keep, struct gp_error *err);
/* Writes the rows still pending. */
int gp_db_batch_flush(struct gp_db_batch *b, struct gp_error *err);

/* Text parameters for single statements, formatted the way both engines read
 * them back: the return value is out. */
const char *gp_db_text_ll(char out[GP_DB_NUM_LEN], long long v);
const char *gp_db_text_double(char out[GP_DB_NUM_LEN], double v);

#endif
