/* store/db.c — engine choice, migrations, and the calls both engines share.
 *
 * Owns: struct gp_db (allocated in gp_db_open, freed by gp_db_close, which
 * also closes the backend connection). Migrations run in one transaction so
 * a crash while upgrading leaves the previous schema intact; on PostgreSQL a
 * transaction-scoped advisory lock serialises two processes that open a
 * fresh database at the same moment (CREATE TABLE IF NOT EXISTS alone races).
 */
#include "store/db.h"
#include "store/db_impl.h"
#include "store/migrations.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/redact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* An arbitrary constant: the advisory lock key of the migration step. */
#define GP_MIGRATION_LOCK_KEY "7305119431"

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

const char *gp_db_url(const char *given)
{
    return given ? given : getenv("GENPERF_DB");
}

int gp_db_first_ll(void *ctx, int ncols, const char *const *names, const char *const *values)
{
    (void)names;
    if (ncols > 0 && values[0])
        *(long long *)ctx = strtoll(values[0], NULL, 10);
    return 1;
}

static int expand_pk(enum gp_db_engine engine, const char *sql, struct gp_buf *out)
{
    const char *pk = engine == GP_DB_SQLITE ? "INTEGER PRIMARY KEY" : "BIGSERIAL PRIMARY KEY";
    const char *p = sql, *q;
    while ((q = strstr(p, "@PK@"))) {
        if (gp_buf_append(out, p, (size_t)(q - p)) || gp_buf_puts(out, pk))
            return -GP_ENOMEM;
        p = q + 4;
    }
    return gp_buf_puts(out, p);
}

static int migrate(struct gp_db *db, struct gp_error *err)
{
    int r;
    size_t n;
    const struct gp_migration *m = gp_store_migrations(&n);
    /* Up to date is the common case: check without a transaction, because
     * BEGIN IMMEDIATE would make every reader (the Benchmarks page, `genperf
     * query`) wait for a long-running ingest's write lock. A missing table
     * (fresh database) fails this query and takes the locked path below. */
    long long have = -1;
    if (gp_db_query(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", NULL, 0, gp_db_first_ll, &have,
                    NULL) == 0 &&
        n > 0 && have == m[n - 1].version)
        return 0;
    if ((r = gp_db_begin(db, err)))
        return r;
    if (db->engine == GP_DB_POSTGRES &&
        (r = gp_db_query(db, "SELECT pg_advisory_xact_lock(" GP_MIGRATION_LOCK_KEY ")", NULL, 0, NULL, NULL,
                         err)))
        goto fail;
    if ((r = gp_db_exec(db,
                        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                        "name TEXT NOT NULL, applied_at TEXT NOT NULL)",
                        err)))
        goto fail;
    long long cur = 0;
    if ((r = gp_db_query(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", NULL, 0, gp_db_first_ll,
                         &cur, err)))
        goto fail;
    if (n > 0 && cur > m[n - 1].version) {
        r = gp_err(err, GP_EDB,
                   "%s: database schema version %lld is newer than this genperf knows (%d); upgrade genperf "
                   "or use another database",
                   db->where, cur, m[n - 1].version);
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        if (m[i].version <= cur)
            continue;
        struct gp_buf sql = {0};
        if (expand_pk(db->engine, m[i].sql, &sql)) {
            gp_buf_free(&sql);
            r = gp_err(err, GP_ENOMEM, "out of memory preparing migration %d", m[i].version);
            goto fail;
        }
        r = gp_db_exec(db, sql.data, err);
        gp_buf_free(&sql);
        if (r) {
            gp_err_prefix(err, "%s: migration %d (%s)", db->where, m[i].version, m[i].name);
            goto fail;
        }
        char ver[32], when[64];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
        snprintf(ver, sizeof ver, "%d", m[i].version);
        const char *p[] = {ver, m[i].name, when};
        if ((r = gp_db_query(db, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", p,
                             3, NULL, NULL, err)))
            goto fail;
    }
    return gp_db_commit(db, err);
fail:
    gp_db_rollback(db);
    return r;
}

/* Connects db (engine and where already set up by the caller) to url. */
static int connect_url(struct gp_db *db, const char *url, struct gp_error *err)
{
    if (has_prefix(url, "postgresql://") || has_prefix(url, "postgres://")) {
        db->engine = GP_DB_POSTGRES;
        return gp_db_pg_open(db, url, err);
    }
    const char *path = url;
    if (has_prefix(url, "sqlite://"))
        path = url + strlen("sqlite://"); /* sqlite:///abs keeps its leading '/' */
    else if (strstr(url, "://"))
        return gp_err(err, GP_EINVAL,
                      "database URL '%s' has an unknown scheme; use sqlite:///path.db, a plain file path, "
                      "or postgresql://user@host:port/db",
                      db->where);
    if (!*path)
        return gp_err(err, GP_EINVAL, "database URL '%s' names no file", db->where);
    db->engine = GP_DB_SQLITE;
    return gp_db_sqlite_open(db, path, err);
}

/* A read-only connection cannot migrate: the schema must already be the
 * one this genperf writes. */
static int check_schema(struct gp_db *db, struct gp_error *err)
{
    size_t n;
    const struct gp_migration *m = gp_store_migrations(&n);
    int want = n > 0 ? m[n - 1].version : 0;
    long long have = -1;
    if (gp_db_query(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", NULL, 0, gp_db_first_ll, &have,
                    NULL) ||
        have <= 0)
        return gp_err(err, GP_EDB,
                      "%s is not a genperf results store (no schema); create it with genperf ingest DIR --db URL",
                      db->where);
    if (have < want)
        return gp_err(err, GP_EDB,
                      "%s: database schema version %lld is older than this genperf's (%d); upgrade it by running "
                      "genperf results --db URL once (it migrates), then query again",
                      db->where, have, want);
    if (have > want)
        return gp_err(err, GP_EDB,
                      "%s: database schema version %lld is newer than this genperf knows (%d); upgrade genperf "
                      "or use another database",
                      db->where, have, want);
    return 0;
}

static int open_url(const char *url, int read_only, int must_exist, struct gp_db **out, struct gp_error *err)
{
    *out = NULL;
    if (!url || !*url)
        return gp_err(err, GP_EINVAL,
                      "no database URL given; pass --db sqlite:///path/results.db or --db postgresql://...");
    struct gp_db *db = calloc(1, sizeof *db);
    if (!db)
        return gp_err(err, GP_ENOMEM, "out of memory opening %s", url);
    gp_redact_url(url, db->where, sizeof db->where);
    db->read_only = read_only;
    db->must_exist = must_exist;
    int r = connect_url(db, url, err);
    if (r) {
        free(db);
        return r;
    }
    if ((r = read_only ? check_schema(db, err) : migrate(db, err))) {
        gp_db_close(db);
        return r;
    }
    *out = db;
    return 0;
}

int gp_db_open(const char *url, struct gp_db **out, struct gp_error *err)
{
    return open_url(url, 0, 0, out, err);
}

int gp_db_open_existing(const char *url, struct gp_db **out, struct gp_error *err)
{
    return open_url(url, 0, 1, out, err);
}

int gp_db_open_readonly(const char *url, struct gp_db **out, struct gp_error *err)
{
    return open_url(url, 1, 1, out, err);
}

void gp_db_close(struct gp_db *db)
{
    if (!db)
        return;
    if (db->engine == GP_DB_SQLITE)
        gp_db_sqlite_close(db);
    else
        gp_db_pg_close(db);
    free(db);
}

enum gp_db_engine gp_db_engine(const struct gp_db *db)
{
    return db->engine;
}

int gp_db_query(struct gp_db *db, const char *sql, const char *const *params, int nparams, gp_db_row_fn fn,
                void *ctx, struct gp_error *err)
{
    if (db->engine == GP_DB_SQLITE)
        return gp_db_sqlite_query(db, sql, params, nparams, fn, ctx, err);
    return gp_db_pg_query(db, sql, params, nparams, fn, ctx, err);
}

int gp_db_exec(struct gp_db *db, const char *sql, struct gp_error *err)
{
    if (db->engine == GP_DB_SQLITE)
        return gp_db_sqlite_exec(db, sql, err);
    return gp_db_pg_exec(db, sql, err);
}

int gp_db_begin(struct gp_db *db, struct gp_error *err)
{
    /* IMMEDIATE takes SQLite's write lock up front: a deferred transaction
     * that later upgrades can fail with SQLITE_BUSY without ever waiting. */
    return gp_db_exec(db, db->engine == GP_DB_SQLITE ? "BEGIN IMMEDIATE" : "BEGIN", err);
}

int gp_db_commit(struct gp_db *db, struct gp_error *err)
{
    return gp_db_exec(db, "COMMIT", err);
}

int gp_db_rollback(struct gp_db *db)
{
    return gp_db_exec(db, "ROLLBACK", NULL);
}
