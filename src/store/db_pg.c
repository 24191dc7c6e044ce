/* store/db_pg.c — the PostgreSQL (libpq) backend of store/db.h.
 *
 * Owns: the PGconn in db->pg (closed by gp_db_pg_close). Each PGresult is
 * cleared before the call returns; row values live until the callback
 * returns.
 *
 * Parameters go as untyped text ($n with paramTypes NULL): the server infers
 * each one's type from its use, which is what the '?'-as-text contract of
 * db.h needs. Server NOTICEs ("relation already exists, skipping") are
 * dropped: library code never prints.
 */
#include "store/db_impl.h"

#include "core/buf.h"
#include "core/error.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* libpq messages end in '\n' and may span lines; keep the first line. */
static void one_line(const char *in, char *out, size_t outsz)
{
    snprintf(out, outsz, "%s", in ? in : "");
    char *nl = strchr(out, '\n');
    if (nl)
        *nl = '\0';
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

int gp_db_pg_open(struct gp_db *db, const char *url, struct gp_error *err)
{
    PGconn *c = PQconnectdb(url);
    if (!c)
        return gp_err(err, GP_ENOMEM, "out of memory connecting to %s", db->where);
    if (PQstatus(c) != CONNECTION_OK) {
        char m[512];
        one_line(PQerrorMessage(c), m, sizeof m);
        PQfinish(c);
        return gp_err(err, GP_EDB, "cannot connect to PostgreSQL at %s: %s; check host, port, user and database",
                      db->where, m);
    }
    PQsetNoticeProcessor(c, quiet_notice, NULL);
    db->pg = c;
    /* read-only twice over: every later transaction defaults to READ ONLY,
     * and the one the queries run in is opened READ ONLY now (a statement
     * cannot switch a running read-only transaction to read-write) */
    if (db->read_only &&
        (gp_db_pg_exec(db, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", err) ||
         gp_db_pg_exec(db, "BEGIN READ ONLY", err))) {
        gp_db_pg_close(db);
        return -GP_EDB;
    }
    return 0;
}

void gp_db_pg_close(struct gp_db *db)
{
    if (db->pg)
        PQfinish(db->pg);
    db->pg = NULL;
}

static int result_error(struct gp_db *db, PGresult *res, const char *sql, struct gp_error *err)
{
    char m[512];
    one_line(res ? PQresultErrorMessage(res) : PQerrorMessage(db->pg), m, sizeof m);
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    gp_err(err, GP_EDB, "%s: %s%s%s%s (query: %.200s)", db->where, m, state ? " [SQLSTATE " : "",
           state ? state : "", state ? "]" : "", sql);
    PQclear(res);
    return -GP_EDB;
}

int gp_db_pg_exec(struct gp_db *db, const char *sql, struct gp_error *err)
{
    PGresult *res = PQexec(db->pg, sql);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY)
        return result_error(db, res, sql, err);
    PQclear(res);
    return 0;
}

int gp_db_pg_query(struct gp_db *db, const char *sql, const char *const *params, int nparams,
                   gp_db_row_fn fn, void *ctx, struct gp_error *err)
{
    struct gp_buf q = {0};
    int want = gp_db_pg_placeholders(sql, &q);
    if (want < 0) {
        gp_buf_free(&q);
        return gp_err(err, GP_ENOMEM, "out of memory preparing a query");
    }
    if (want != nparams) {
        gp_buf_free(&q);
        return gp_err(err, GP_EINVAL, "%s: query has %d placeholders but %d parameters were given: %.200s",
                      db->where, want, nparams, sql);
    }
    PGresult *res = PQexecParams(db->pg, q.data, nparams, NULL, params, NULL, NULL, 0);
    gp_buf_free(&q);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_EMPTY_QUERY) {
        PQclear(res);
        return 0;
    }
    if (st != PGRES_TUPLES_OK)
        return result_error(db, res, sql, err);
    int ncols = PQnfields(res), nrows = PQntuples(res);
    const char **names = calloc((size_t)ncols + 1, sizeof *names);
    const char **values = calloc((size_t)ncols + 1, sizeof *values);
    if (!names || !values) {
        free(names);
        free(values);
        PQclear(res);
        return gp_err(err, GP_ENOMEM, "out of memory reading a query result");
    }
    for (int i = 0; i < ncols; i++)
        names[i] = PQfname(res, i);
    for (int r = 0; fn && r < nrows; r++) {
        for (int i = 0; i < ncols; i++)
            values[i] = PQgetisnull(res, r, i) ? NULL : PQgetvalue(res, r, i);
        if (fn(ctx, ncols, names, values))
            break;
    }
    free(names);
    free(values);
    PQclear(res);
    return 0;
}
