/* store/ingest_groups.c — the runs of one repeat layout are one group.
 *
 * Owns: j->group_key and j->group_label (freed by ig_job_free), and the
 * value arrays of one statistics pass (freed before returning). The
 * connection is borrowed.
 *
 * `profile --num-runs N` writes RUN_DIR/run_K/<run>/ (with
 * RUN_DIR/<stem>_genperf_aggregate.json), and a scenario's `repeats: N`
 * <cell>/run_K/<run>/: a job whose directory sits in a run_K directory is run
 * K of the group RUN_DIR. The group is named by the real path of RUN_DIR, the
 * run directory's name and the stem, so ingesting the top directory, each
 * run_K alone, or the runner's one ingest per repeat, all converge on one
 * row; the job keeps the identity ingest already gives it (the artifact's
 * sha256), and a job already stored is left as it is, group included. A run
 * that the aggregate file names in "failed_runs" (it measured nothing, or
 * was interrupted: issue 38 item 11) is stored as a job of its own, outside
 * the group, so the group's statistics stay the aggregate's.
 *
 * Inside the job's transaction, after its metric values: the group row
 * (INSERT ... ON CONFLICT DO NOTHING, then SELECT, as scenarios do), an
 * UPDATE of it that on PostgreSQL holds the row until COMMIT — so two
 * ingests adding runs to one group at once take turns and the second sees
 * the first's run — then the link, and the group's statistics recomputed
 * from every member's metric_values (migration 11 says why they are stored).
 */
#include "store/ingest_internal.h"
#include "store/db.h"
#include "store/db_batch.h"

#include "core/error.h"
#include "core/fsutil.h"
#include "core/stats.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "run_K" with K a positive decimal number; 0 when name is not one. */
static long run_number(const char *name)
{
    if (strncmp(name, "run_", 4) || !name[4])
        return 0;
    char *end;
    long k = strtol(name + 4, &end, 10);
    return *end || k <= 0 || name[4] == '0' ? 0 : k;
}

/* Splits path at its last '/': the part after it, and path cut there. */
static const char *cut_last(char *path)
{
    char *s = strrchr(path, '/');
    if (!s || s == path)
        return NULL;
    *s = '\0';
    return s + 1;
}

/* When the aggregate names run K in its failed_runs: why in
 * j->group_left_out, and the job is no repeat. An unreadable aggregate
 * leaves the grouping as it was (the file is not the job's to validate). */
static int left_out(struct ig_job *j)
{
    json_t *agg = j->aggregate_path[0] ? ig_load_json(j->aggregate_path, 0, NULL) : NULL;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(agg, "failed_runs"), i, f) {
        json_t *k = json_object_get(f, "run"), *why = json_object_get(f, "reason");
        if (!json_is_integer(k) || json_integer_value(k) != j->repeat_index)
            continue;
        snprintf(j->group_left_out, sizeof j->group_left_out, "%s",
                 json_is_string(why) ? json_string_value(why) : "failed");
        free(j->group_key);
        j->group_key = NULL;
        break;
    }
    json_decref(agg);
    return 0;
}

int ig_locate_group(struct ig_job *j, struct gp_error *err)
{
    char real[PATH_MAX], parent[PATH_MAX];
    if (!realpath(j->dir, real))
        return 0;
    snprintf(parent, sizeof parent, "%s", real);
    const char *run = cut_last(parent); /* parent: RUN_DIR/run_K */
    if (!run)
        return 0;
    snprintf(j->group_dir, sizeof j->group_dir, "%s", parent);
    const char *rk = cut_last(j->group_dir); /* group_dir: RUN_DIR */
    long k = rk ? run_number(rk) : 0;
    if (!k) {
        j->group_dir[0] = '\0';
        return 0;
    }
    size_t n = strlen(j->group_dir) + strlen(run) + strlen(j->stem) + 16;
    const char *base = strrchr(j->group_dir, '/');
    j->group_key = malloc(n);
    j->group_label = strdup(base ? base + 1 : j->group_dir);
    if (!j->group_key || !j->group_label)
        return gp_err(err, GP_ENOMEM, "out of memory");
    snprintf(j->group_key, n, "%s/run_*/%s/%s", j->group_dir, run, j->stem);
    j->repeat_index = k;
    snprintf(j->aggregate_path, sizeof j->aggregate_path, "%s/%s_genperf_aggregate.json", j->group_dir, j->stem);
    if (!gp_is_file(j->aggregate_path))
        j->aggregate_path[0] = '\0';
    return left_out(j);
}

/* One statistics pass: the member values ordered by metric, stat, run. */
struct stat_pass {
    struct gp_db_batch *b;
    long long group_id;
    char metric[96], stat[16];
    double *x;
    size_t n, cap;
    int failed;
    struct gp_error *err;
};

static int flush_stat(struct stat_pass *p)
{
    if (!p->n)
        return 0;
    struct gp_repeat_stats rs;
    gp_repeat_stats(p->x, p->n, &rs);
    /* the row's text lives in its keep block until the batch writes it */
    size_t lm = strlen(p->metric) + 1, ls = strlen(p->stat) + 1;
    char *keep = malloc(lm + ls);
    if (!keep)
        return gp_err(p->err, GP_ENOMEM, "out of memory");
    memcpy(keep, p->metric, lm);
    memcpy(keep + lm, p->stat, ls);
    struct gp_db_batch *b = p->b;
    gp_db_batch_clear_row(b);
    gp_db_batch_ll(b, 0, p->group_id);
    gp_db_batch_text(b, 1, keep);
    gp_db_batch_text(b, 2, keep + lm);
    gp_db_batch_ll(b, 3, (long long)rs.n);
    gp_db_batch_dbl(b, 4, rs.mean);
    gp_db_batch_dbl(b, 5, rs.stddev);
    if (rs.has_ci) {
        gp_db_batch_dbl(b, 6, rs.ci_lo);
        gp_db_batch_dbl(b, 7, rs.ci_hi);
    }
    if (rs.has_cv)
        gp_db_batch_dbl(b, 8, rs.cv);
    p->n = 0;
    return gp_db_batch_row_done(b, keep, p->err);
}

static int value_row(void *ctx, int ncols, const char *const *names, const char *const *values)
{
    (void)names;
    struct stat_pass *p = ctx;
    if (ncols < 3 || !values[0] || !values[1] || !values[2])
        return 0;
    if (strcmp(values[0], p->metric) || strcmp(values[1], p->stat)) {
        if (flush_stat(p)) {
            p->failed = 1;
            return 1;
        }
        snprintf(p->metric, sizeof p->metric, "%s", values[0]);
        snprintf(p->stat, sizeof p->stat, "%s", values[1]);
    }
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        double *nx = realloc(p->x, cap * sizeof *nx);
        if (!nx) {
            gp_err(p->err, GP_ENOMEM, "out of memory");
            p->failed = 1;
            return 1;
        }
        p->x = nx, p->cap = cap;
    }
    p->x[p->n++] = strtod(values[2], NULL);
    return 0;
}

/* repeat_group_stats of the group, from its members' metric_values. */
static int recompute_stats(struct gp_db *db, long long group_id, const char *gid, struct gp_error *err)
{
    const char *p[] = {gid};
    int r = gp_db_query(db, "DELETE FROM repeat_group_stats WHERE group_id = ?", p, 1, NULL, NULL, err);
    if (r)
        return r;
    struct gp_db_batch b;
    if (gp_db_batch_init(&b, db,
                         "INSERT INTO repeat_group_stats (group_id, metric_code, stat, n, mean, stddev, ci95_low, "
                         "ci95_high, cv) VALUES ",
                         9, 100, free)) {
        gp_db_batch_free(&b);
        return gp_err(err, GP_ENOMEM, "out of memory computing a repeat group's statistics");
    }
    /* run order (K), the order the aggregate file sums in */
    struct stat_pass sp = {.b = &b, .group_id = group_id, .err = err};
    r = gp_db_query(db,
                    "SELECT v.metric_code, v.stat, v.value FROM metric_values v "
                    "JOIN repeat_group_jobs g ON g.job_id = v.job_id "
                    "WHERE g.group_id = ? AND v.value IS NOT NULL "
                    "ORDER BY v.metric_code, v.stat, g.repeat_index, g.job_id",
                    p, 1, value_row, &sp, err);
    if (!r && sp.failed)
        r = -(err && err->code ? err->code : GP_EDB);
    if (!r)
        r = flush_stat(&sp);
    if (!r)
        r = gp_db_batch_flush(&b, err);
    free(sp.x);
    gp_db_batch_free(&b);
    return r;
}

int ig_link_group(struct gp_db *db, struct ig_job *j, long long job_id, struct gp_error *err)
{
    if (!j->group_key)
        return 0;
    char now[40], label[1400], jid[GP_DB_NUM_LEN], gid[GP_DB_NUM_LEN], kb[GP_DB_NUM_LEN];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ig_iso_from_ns((long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, now);
    /* a scenario's label (its name) says which sweep the cell is of */
    if (j->label)
        snprintf(label, sizeof label, "%s %s", j->label, j->group_label);
    else
        snprintf(label, sizeof label, "%s", j->group_label);
    const char *agg = j->aggregate_path[0] ? j->aggregate_path : NULL;
    const char *ins[] = {j->group_key, label, j->group_dir, agg, now};
    long long group_id = 0;
    int r;
    if ((r = gp_db_query(db,
                         "INSERT INTO repeat_groups (group_key, label, group_dir, aggregate_file, n_runs, created_at) "
                         "VALUES (?,?,?,?,0,?) ON CONFLICT (group_key) DO NOTHING",
                         ins, 5, NULL, NULL, err)) ||
        (r = gp_db_query(db, "SELECT id FROM repeat_groups WHERE group_key = ?", ins, 1, gp_db_first_ll, &group_id, err)))
        return r;
    if (group_id <= 0)
        return gp_err(err, GP_EDB, "repeat group row for %s vanished during ingest", j->main_path);
    gp_db_text_ll(gid, group_id);
    /* the aggregate file is written after the last run: a group made by an
     * earlier ingest of run_1 alone learns it from a later run */
    const char *up[] = {now, agg, gid};
    const char *link[] = {gp_db_text_ll(jid, job_id), gid, gp_db_text_ll(kb, j->repeat_index)};
    const char *cnt[] = {gid, gid};
    if ((r = gp_db_query(db, "UPDATE repeat_groups SET updated_at = ?, aggregate_file = COALESCE(?, aggregate_file) "
                             "WHERE id = ?", up, 3, NULL, NULL, err)) ||
        (r = gp_db_query(db, "INSERT INTO repeat_group_jobs (job_id, group_id, repeat_index) VALUES (?,?,?)", link,
                         3, NULL, NULL, err)) ||
        (r = recompute_stats(db, group_id, gid, err)) ||
        (r = gp_db_query(db, "UPDATE repeat_groups SET n_runs = (SELECT COUNT(*) FROM repeat_group_jobs "
                             "WHERE group_id = ?) WHERE id = ?", cnt, 2, NULL, NULL, err)))
        return r;
    j->group_id = group_id;
    return 0;
}
