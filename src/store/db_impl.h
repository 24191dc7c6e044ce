/* store/db_impl.h — what db.c shares with the two engine backends.
 *
 * Owns: the layout of struct gp_db. One backend pointer is set, the other is
 * NULL. Nothing outside src/store/db*.c (and the store unit test) includes
 * this file.
 *
 * Dependencies point one way: db.c calls the backends through this header;
 * a backend calls nothing in db.c (the float8 text both engines share is
 * core/pytext's gp_float8_text), and each backend's helpers live in its own
 * file.
 */
#ifndef GP_STORE_DB_IMPL_H
#define GP_STORE_DB_IMPL_H

#include "store/db.h"

struct gp_buf;

struct gp_db {
    enum gp_db_engine engine;
    void *sq;         /* sqlite3 * */
    void *pg;         /* PGconn * */
    char where[512];  /* the URL with any password removed, for messages */
    int read_only;    /* set before the backend's open: see gp_db_open_readonly */
    int must_exist;   /* likewise: see gp_db_open_existing */
};

int gp_db_sqlite_open(struct gp_db *db, const char *path, struct gp_error *err);
void gp_db_sqlite_close(struct gp_db *db);
int gp_db_sqlite_query(struct gp_db *db, const char *sql, const char *const *params, int nparams,
                       gp_db_row_fn fn, void *ctx, struct gp_error *err);
int gp_db_sqlite_exec(struct gp_db *db, const char *sql, struct gp_error *err);

int gp_db_pg_open(struct gp_db *db, const char *url, struct gp_error *err);
void gp_db_pg_close(struct gp_db *db);
int gp_db_pg_query(struct gp_db *db, const char *sql, const char *const *params, int nparams,
                   gp_db_row_fn fn, void *ctx, struct gp_error *err);
int gp_db_pg_exec(struct gp_db *db, const char *sql, struct gp_error *err);

/* db_pg.c: '?' -> $1, $2 ... outside string literals, quoted identifiers and
 * comments (a '?' inside them is text, not a parameter). */
int gp_db_pg_placeholders(const char *sql, struct gp_buf *out);

#endif
