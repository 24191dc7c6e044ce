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

/* Copies url into out with the password of user:pass@ replaced by ***. */
static void redact_url(const char *url, char *out, size_t outsz)
{
    const char *scheme = strstr(url, "://");
    const char *at = scheme ? strchr(scheme + 3, '@') : NULL;
    const char *colon = scheme ? strchr(scheme + 3, ':') : NULL;
    if (scheme && at && colon && colon < at)
        snprintf(out, outsz, "%.*s:***%s", (int)(colon - url), url, at);
    else
        snprintf(out, outsz, "%s", url);
}

static int get_int_cb(void *ctx, int ncols, const char *const *names, const char *const *values)
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
    if (gp_db_query(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", NULL, 0, get_int_cb, &have,
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
    if ((r = gp_db_query(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", NULL, 0, get_int_cb,
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

int gp_db_open(const char *url, struct gp_db **out, struct gp_error *err)
{
    *out = NULL;
    if (!url || !*url)
        return gp_err(err, GP_EINVAL,
                      "no database URL given; pass --db sqlite:///path/results.db or --db postgresql://...");
    struct gp_db *db = calloc(1, sizeof *db);
    if (!db)
        return gp_err(err, GP_ENOMEM, "out of memory opening %s", url);
    redact_url(url, db->where, sizeof db->where);
    int r = 0;
    if (has_prefix(url, "postgresql://") || has_prefix(url, "postgres://")) {
        db->engine = GP_DB_POSTGRES;
        r = gp_db_pg_open(db, url, err);
    } else {
        const char *path = url;
        if (has_prefix(url, "sqlite://"))
            path = url + strlen("sqlite://");  /* sqlite:///abs keeps its leading '/' */
        else if (strstr(url, "://"))
            r = gp_err(err, GP_EINVAL,
                       "database URL '%s' has an unknown scheme; use sqlite:///path.db, a plain file path, "
                       "or postgresql://user@host:port/db",
                       db->where);
        if (!r && !*path)
            r = gp_err(err, GP_EINVAL, "database URL '%s' names no file", db->where);
        if (r) {
            free(db);
            return r;
        }
        db->engine = GP_DB_SQLITE;
        r = gp_db_sqlite_open(db, path, err);
    }
    if (r) {
        free(db);
        return r;
    }
    if ((r = migrate(db, err))) {
        gp_db_close(db);
        return r;
    }
    *out = db;
    return 0;
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

int gp_db_pg_placeholders(const char *sql, struct gp_buf *out)
{
    int n = 0;
    for (const char *p = sql; *p; p++) {
        char c = *p;
        if (c == '\'' || c == '"') {
            /* copy the literal up to its closing quote ('' and "" escape) */
            const char *q = p + 1;
            for (; *q; q++) {
                if (*q == c) {
                    if (q[1] == c) {
                        q++;
                        continue;
                    }
                    break;
                }
            }
            size_t len = (size_t)(q - p) + (*q ? 1 : 0);
            if (gp_buf_append(out, p, len))
                return -GP_ENOMEM;
            p += len - 1;
        } else if (c == '-' && p[1] == '-') {
            const char *q = strchr(p, '\n');
            size_t len = q ? (size_t)(q - p) + 1 : strlen(p);
            if (gp_buf_append(out, p, len))
                return -GP_ENOMEM;
            p += len - 1;
        } else if (c == '/' && p[1] == '*') {
            const char *q = strstr(p + 2, "*/");
            size_t len = q ? (size_t)(q - p) + 2 : strlen(p);
            if (gp_buf_append(out, p, len))
                return -GP_ENOMEM;
            p += len - 1;
        } else if (c == '?') {
            if (gp_buf_printf(out, "$%d", ++n))
                return -GP_ENOMEM;
        } else if (gp_buf_putc(out, c)) {
            return -GP_ENOMEM;
        }
    }
    if (!out->data && gp_buf_puts(out, ""))
        return -GP_ENOMEM;
    return n;
}

void gp_db_format_double(double v, char *out, size_t outsz)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, outsz, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}
