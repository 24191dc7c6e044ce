/* report/rdb_int.h — internal to rdb.c, rdb_compare.c, rdb_groups.c and
 * rdb_rows.c: the row helpers they share (rdb_rows.c) and the repeat group
 * (rdb_groups.c). Not part of the report module's API (report.h). */
#ifndef GP_REPORT_RDB_INT_H
#define GP_REPORT_RDB_INT_H

#include "core/error.h"
#include "store/db.h"

#include <jansson.h>

/* rdb_rows.c: the rows of a query as a JSON array of objects (numbers as
 * numbers, the name-like columns as strings); NULL with err filled when it
 * failed. */
json_t *gp_rdb_rows_of(struct gp_db *db, const char *sql, const char *const *p, int np, struct gp_error *err);
/* rdb_rows.c: one column's text as JSON the way gp_rdb_rows_of converts it
 * (NULL -> null; a number unless col is a name-like column; invalid UTF-8
 * bytes as '?'). */
json_t *gp_rdb_value_json(const char *col, const char *v);

/* rdb_groups.c: the repeat group job id is a run of, with the key
 * statistics over its runs and each run's value; json null when none. */
json_t *gp_rdb_job_group(struct gp_db *db, const char *id);

/* rdb_rows.c: 1 when id is a job id as the store writes it (digits only, not
 * too long). */
int gp_rdb_valid_id(const char *id);

#endif
