/* store/db.h — one small SQL interface over SQLite and PostgreSQL.
 *
 * Owns: struct gp_db (opaque): one connection. Everything above it (ingest,
 * results, query, the Benchmarks page, reports) speaks only this interface,
 * so the same code runs on both engines.
 *
 * URLs accepted by gp_db_open:
 *   sqlite:///abs/path.db, sqlite://rel/path.db, or a plain file path  -> SQLite
 *   postgresql://user@host:port/dbname?..., postgres://...             -> libpq
 * Opening applies pending schema migrations (store/migrations) in one
 * transaction before returning.
 *
 * SQL text uses '?' placeholders for both engines (translated to $1.. for
 * PostgreSQL); params are passed as text (NULL pointer = SQL NULL).
 */
#ifndef GP_STORE_DB_H
#define GP_STORE_DB_H

#include <stddef.h>

/* The results store a command uses: the --db value when given (even empty:
 * callers reject that), else $GENPERF_DB, else NULL. The one place that
 * knows the variable, for ingest, results, query, ui and report. (`genperf
 * run` has its own default: the scenario's db, else <artifact_dir>/genperf.db.) */
const char *gp_db_url(const char *given);

struct gp_error;
struct gp_db;

enum gp_db_engine { GP_DB_SQLITE = 1, GP_DB_POSTGRES = 2 };

int gp_db_open(const char *url, struct gp_db **out, struct gp_error *err);
/* For readers that must never write (genperf query). SQLite: opened with
 * SQLITE_OPEN_READONLY (the file must exist; nothing, ATTACH included, can
 * create one) and PRAGMA query_only=1; statements that would write are
 * refused before they run. PostgreSQL: the session's transactions default
 * to READ ONLY and the connection sits inside BEGIN READ ONLY. No migration
 * runs: a missing or older schema is an error that names the fix. */
int gp_db_open_readonly(const char *url, struct gp_db **out, struct gp_error *err);
/* gp_db_open for readers that migrate but must not create (genperf results,
 * report, ui): a SQLite file that does not exist is a GP_ENOENT error naming
 * the path and `genperf ingest DIR --db FILE`, so a typo in --db is not
 * answered with a new empty store (the commands exit 2 on it, as on a usage
 * error). PostgreSQL: as gp_db_open. */
int gp_db_open_existing(const char *url, struct gp_db **out, struct gp_error *err);
void gp_db_close(struct gp_db *db);
enum gp_db_engine gp_db_engine(const struct gp_db *db);

/* Called once per result row; values[i] is NULL for SQL NULL. names are the
 * column names. Return non-zero to stop early (gp_db_query then returns 0). */
typedef int (*gp_db_row_fn)(void *ctx, int ncols, const char *const *names,
                            const char *const *values);

int gp_db_query(struct gp_db *db, const char *sql, const char *const *params, int nparams,
                gp_db_row_fn fn, void *ctx, struct gp_error *err);
/* A gp_db_row_fn for one-value queries: the first row's first column, when
 * not NULL, as a long long into *(long long *)ctx; stops after that row. */
int gp_db_first_ll(void *ctx, int ncols, const char *const *names, const char *const *values);
/* Runs one or more statements with no parameters and no result rows. */
int gp_db_exec(struct gp_db *db, const char *sql, struct gp_error *err);

int gp_db_begin(struct gp_db *db, struct gp_error *err);
int gp_db_commit(struct gp_db *db, struct gp_error *err);
int gp_db_rollback(struct gp_db *db);

#endif
