/* report/rdb_int.h — internal to rdb.c, rdb_compare.c and rdb_groups.c:
 * the row helpers they share. Not part of the report module's API (report.h). */
#ifndef GP_REPORT_RDB_INT_H
#define GP_REPORT_RDB_INT_H

#include "core/error.h"
#include "store/db.h"

#include <jansson.h>

/* The rows of a query as a JSON array of objects (numbers as numbers, the
 * name-like columns as strings); NULL with err filled when it failed. */
json_t *gp_rdb_rows_of(struct gp_db *db, const char *sql, const char *const *p, int np, struct gp_error *err);

/* rdb_groups.c: the repeat group job id is a run of, with the key
 * statistics over its runs and each run's value; json null when none. */
json_t *gp_rdb_job_group(struct gp_db *db, const char *id);

/* 1 when id is a job id as the store writes it (digits only, not too long). */
int gp_rdb_valid_id(const char *id);

#endif
