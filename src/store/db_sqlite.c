/* store/db_sqlite.c — the SQLite backend of store/db.h.
 *
 * Owns: the sqlite3 handle in db->sq (closed by gp_db_sqlite_close). Row
 * values handed to callbacks live until the callback returns.
 *
 * WAL journal so the Benchmarks page can read while an ingest writes; a
 * 30 s busy timeout so two ingests into one file queue instead of failing.
 * Parameters are bound as text: column affinity turns them back into
 * INTEGER/REAL on insert and comparison, so callers never need types.
 */
#include "store/db_impl.h"

#include "core/error.h"
#include "core/pytext.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GP_SQLITE_BUSY_MS 30000

/* Read-only connections refuse ATTACH outright: even with
 * SQLITE_OPEN_READONLY it would open (and read) any file the user names. */
static int ro_authorizer(void *ctx, int action, const char *a, const char *b, const char *c, const char *d)
{
    (void)ctx, (void)a, (void)b, (void)c, (void)d;
    return action == SQLITE_ATTACH ? SQLITE_DENY : SQLITE_OK;
}

/* The readers (query, results, report, ui, compare) refuse a store file
 * that is not there: SQLITE_OPEN_CREATE would turn a mistyped --db into a
 * new, empty store answering "(no rows)", and SQLITE_OPEN_READONLY alone
 * fails late with "unable to open database file". The message names the
 * file and the command that starts a store (ingest creates one). */
static int missing_store(const char *path, struct gp_error *err)
{
    if (!strcmp(path, ":memory:") || access(path, F_OK) == 0)
        return 0;
    return gp_err(err, GP_ENOENT,
                  "no SQLite database at '%s' (this command reads a store and never creates one); check the path, "
                  "or create the store from artifact directories with: genperf ingest DIR --db %s",
                  path, path);
}

static int open_readonly(struct gp_db *db, const char *path, sqlite3 **sq, struct gp_error *err)
{
    int r = missing_store(path, err);
    if (r)
        return r;
    int rc = sqlite3_open_v2(path, sq, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(*sq, "PRAGMA query_only=1", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_set_authorizer(*sq, ro_authorizer, NULL);
    return rc == SQLITE_OK ? 0 : -GP_EDB;
}

int gp_db_sqlite_open(struct gp_db *db, const char *path, struct gp_error *err)
{
    sqlite3 *sq = NULL;
    int rc;
    if (db->read_only) {
        if ((rc = open_readonly(db, path, &sq, err)) == -GP_ENOENT) {
            sqlite3_close(sq);
            return rc;
        }
        rc = rc ? SQLITE_ERROR : SQLITE_OK;
    } else if (db->must_exist && (rc = missing_store(path, err))) {
        return rc;
    } else {
        rc = sqlite3_open_v2(path, &sq, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    }
    if (rc != SQLITE_OK) {
        gp_err(err, GP_EDB, "cannot open SQLite database '%s': %s; check that the directory exists and is writable",
               path, sq ? sqlite3_errmsg(sq) : sqlite3_errstr(rc));
        sqlite3_close(sq);
        return -GP_EDB;
    }
    sqlite3_busy_timeout(sq, GP_SQLITE_BUSY_MS);
    sqlite3_extended_result_codes(sq, 1);
    db->sq = sq;
    if (db->read_only)
        return 0;
    /* journal_mode may be refused while another connection holds the file;
     * it is persistent, so whoever created the file has already set it. */
    sqlite3_exec(sq, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    if (gp_db_sqlite_exec(db, "PRAGMA foreign_keys=ON", err)) {
        sqlite3_close(sq);
        db->sq = NULL;
        return -GP_EDB;
    }
    return 0;
}

void gp_db_sqlite_close(struct gp_db *db)
{
    if (db->sq)
        sqlite3_close_v2(db->sq);
    db->sq = NULL;
}

int gp_db_sqlite_exec(struct gp_db *db, const char *sql, struct gp_error *err)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db->sq, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        gp_err(err, GP_EDB, "%s: %s (statement: %.120s)", db->where, msg ? msg : sqlite3_errstr(rc), sql);
        sqlite3_free(msg);
        return -GP_EDB;
    }
    return 0;
}

int gp_db_sqlite_query(struct gp_db *db, const char *sql, const char *const *params, int nparams,
                       gp_db_row_fn fn, void *ctx, struct gp_error *err)
{
    sqlite3 *sq = db->sq;
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v2(sq, sql, -1, &st, &tail);
    if (rc != SQLITE_OK || !st) {
        if (rc == SQLITE_OK)
            return gp_err(err, GP_EINVAL, "%s: the query is empty: '%.120s'", db->where, sql);
        if (db->read_only && rc == SQLITE_AUTH)
            return gp_err(err, GP_EDB, "%s: refused, the store is open read-only and ATTACH could create or read other files; "
                          "genperf query only reads this store (query: %.200s)",
                          db->where, sql);
        return gp_err(err, GP_EDB, "%s: %s (query: %.200s)", db->where, sqlite3_errmsg(sq), sql);
    }
    if (db->read_only && !sqlite3_stmt_readonly(st)) {
        sqlite3_finalize(st);
        return gp_err(err, GP_EDB,
                      "%s: refused, the store is open read-only and this statement would change it; genperf "
                      "query only reads (query: %.200s)",
                      db->where, sql);
    }
    /* one statement per call, as on PostgreSQL (PQexecParams refuses more) */
    for (const char *t = tail; t && *t; t++) {
        if (*t == ';' || *t == ' ' || *t == '\t' || *t == '\n' || *t == '\r')
            continue;
        sqlite3_finalize(st);
        return gp_err(err, GP_EINVAL, "%s: only one SQL statement per query; remove the text after ';': %.80s",
                      db->where, t);
    }
    int want = sqlite3_bind_parameter_count(st);
    if (want != nparams) {
        sqlite3_finalize(st);
        return gp_err(err, GP_EINVAL, "%s: query has %d placeholders but %d parameters were given: %.200s",
                      db->where, want, nparams, sql);
    }
    for (int i = 0; i < nparams; i++) {
        rc = params[i] ? sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_TRANSIENT)
                       : sqlite3_bind_null(st, i + 1);
        if (rc != SQLITE_OK) {
            sqlite3_finalize(st);
            return gp_err(err, GP_EDB, "%s: binding parameter %d: %s", db->where, i + 1, sqlite3_errmsg(sq));
        }
    }
    int ncols = sqlite3_column_count(st);
    const char **names = calloc((size_t)ncols + 1, sizeof *names);
    const char **values = calloc((size_t)ncols + 1, sizeof *values);
    char (*nums)[40] = calloc((size_t)ncols + 1, sizeof *nums);
    int r = 0;
    if (!names || !values || !nums) {
        r = gp_err(err, GP_ENOMEM, "out of memory running a query");
        goto done;
    }
    for (int i = 0; i < ncols; i++)
        names[i] = sqlite3_column_name(st, i);
    for (;;) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            r = gp_err(err, GP_EDB, "%s: %s (query: %.200s)", db->where, sqlite3_errmsg(sq), sql);
            break;
        }
        if (!fn)
            continue;
        for (int i = 0; i < ncols; i++) {
            switch (sqlite3_column_type(st, i)) {
            case SQLITE_NULL:
                values[i] = NULL;
                break;
            case SQLITE_FLOAT:
                gp_float8_text(sqlite3_column_double(st, i), nums[i], sizeof nums[i]);
                values[i] = nums[i];
                break;
            default:
                values[i] = (const char *)sqlite3_column_text(st, i);
                if (!values[i])
                    values[i] = "";
                break;
            }
        }
        if (fn(ctx, ncols, names, values))
            break;
    }
done:
    free(names);
    free(values);
    free(nums);
    sqlite3_finalize(st);
    return r;
}
