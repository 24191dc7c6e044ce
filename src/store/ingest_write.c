/* store/ingest_write.c — one validated job -> one transaction.
 *
 * Owns nothing past a call; the job and the connection are borrowed.
 *
 * Order inside the transaction, and why:
 *   scenario (ON CONFLICT DO NOTHING, then SELECT: concurrent ingests of one
 *   setup converge on one row); metric templates for new codes; the job row
 *   with ON CONFLICT DO NOTHING RETURNING id (a concurrent duplicate returns
 *   no row and backs out cleanly); metric values; telemetry stats; the
 *   per-endpoint breakdown; records; samples; the repeat group last (on
 *   PostgreSQL it holds the group's row until COMMIT); COMMIT. Any failure after BEGIN rolls back, so no partial job
 *   can exist.
 */
#include "store/ingest_internal.h"
#include "store/db.h"
#include "store/db_batch.h"
#include "store/store.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ig_find_job(struct gp_db *db, const char *sha, long long *id, struct gp_error *err)
{
    const char *hp[] = {sha};
    *id = 0;
    return gp_db_query(db, "SELECT id FROM jobs WHERE artifact_sha256 = ?", hp, 1, gp_db_first_ll, id, err);
}

static const char *opt_text(char buf[GP_DB_NUM_LEN], const struct ig_opt_i *o)
{
    return o->set ? gp_db_text_ll(buf, o->v) : NULL;
}

static void scenario_key(const struct ig_job *j, char out[65])
{
    struct gp_buf b = {0};
    const char *s[] = {j->model, j->framework, j->engine_args, j->hardware, j->endpoint, j->endpoint_type};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        gp_buf_puts(&b, s[i] ? s[i] : "\x01");
        gp_buf_putc(&b, '\x1f');
    }
    const struct ig_opt_i *n[] = {&j->gpu_count, &j->tp, &j->replicas, &j->concurrency, &j->isl,
                                  &j->osl, &j->request_count, &j->seed};
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
        if (n[i]->set)
            gp_buf_printf(&b, "%lld", n[i]->v);
        else
            gp_buf_putc(&b, '\x01');
        gp_buf_putc(&b, '\x1f');
    }
    if (j->request_rate.set)
        gp_buf_printf(&b, "%.17g", j->request_rate.v);
    gp_buf_printf(&b, "\x1f%d", j->streaming);
    gp_sha256_hex(b.data ? b.data : "", b.len, out);
    gp_buf_free(&b);
}

static void now_iso(char out[40])
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ig_iso_from_ns((long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, out);
}

/* The scenario row: inserted if new, its id either way. */
static int write_scenario(struct gp_db *db, const struct ig_job *j, long long *scen, struct gp_error *err)
{
    char key[65];
    scenario_key(j, key);
    char nb[9][GP_DB_NUM_LEN];
    const char *sp[] = {key,
                        j->model,
                        j->framework,
                        j->engine_args,
                        j->hardware,
                        opt_text(nb[0], &j->gpu_count),
                        opt_text(nb[1], &j->tp),
                        opt_text(nb[2], &j->replicas),
                        opt_text(nb[3], &j->concurrency),
                        j->request_rate.set ? gp_db_text_double(nb[4], j->request_rate.v) : NULL,
                        opt_text(nb[5], &j->isl),
                        opt_text(nb[6], &j->osl),
                        opt_text(nb[7], &j->request_count),
                        j->streaming ? "1" : "0",
                        opt_text(nb[8], &j->seed),
                        j->endpoint,
                        j->endpoint_type};
    int r;
    *scen = 0;
    if ((r = gp_db_query(db,
                         "INSERT INTO scenarios (scenario_key, model, framework, engine_args, hardware, gpu_count, "
                         "tp, replicas, concurrency, request_rate, isl, osl, request_count, streaming, seed, "
                         "endpoint, endpoint_type) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                         "ON CONFLICT (scenario_key) DO NOTHING",
                         sp, 17, NULL, NULL, err)) ||
        (r = gp_db_query(db, "SELECT id FROM scenarios WHERE scenario_key = ?", sp, 1, gp_db_first_ll, scen, err)))
        return r;
    if (*scen <= 0)
        return gp_err(err, GP_EDB, "scenario row for %s vanished during ingest", j->main_path);
    return 0;
}

/* Codes GenAI-Perf may add in a later release get a template row, so the
 * views show them: "foo_bar_latency" -> "Foo Bar Latency", lower is better
 * unless it is a throughput. */
static int write_metric_templates(struct gp_db *db, const struct ig_job *j, struct gp_error *err)
{
    for (size_t i = 0; i < j->nnew; i++) {
        const char *code = j->new_metrics[i];
        char disp[128];
        size_t k = 0;
        for (const char *p = code; *p && k + 1 < sizeof disp; p++, k++)
            disp[k] = *p == '_' ? ' ' : (p == code || p[-1] == '_') ? (char)toupper((unsigned char)*p) : *p;
        disp[k] = '\0';
        const char *better = strstr(code, "throughput") || strstr(code, "goodput") ? "higher" : "lower";
        const char *tp[] = {code, disp, better};
        int r = gp_db_query(db,
                            "INSERT INTO metric_templates (code, display_name, unit, better, category, sort_order) "
                            "VALUES (?, ?, NULL, ?, 'other', 1000) ON CONFLICT (code) DO NOTHING",
                            tp, 3, NULL, NULL, err);
        if (r)
            return r;
    }
    return 0;
}

/* The job row; *job_id = 0 when a concurrent ingest committed it first. */
static int write_job_row(struct gp_db *db, const struct ig_job *j, long long scen, long long *job_id,
                         struct gp_error *err)
{
    char scen_s[GP_DB_NUM_LEN], ing[40], dur[GP_DB_NUM_LEN], okb[GP_DB_NUM_LEN], fb[GP_DB_NUM_LEN];
    char tsp[GP_DB_NUM_LEN];
    char url[4096]; /* genperf_run.json or input_config may name https://TOKEN@host */
    now_iso(ing);
    if (j->server_url)
        gp_redact_url(j->server_url, url, sizeof url);
    const char *status = "completed";
    if (j->requests_failed.set && j->requests_failed.v > 0)
        status = j->requests_ok.set && j->requests_ok.v == 0 ? "failed" : "completed_with_errors";
    const char *jp[] = {j->sha,
                        gp_db_text_ll(scen_s, scen),
                        j->tool_version,
                        j->producer,
                        j->producer_version,
                        j->label,
                        status,
                        j->started_at[0] ? j->started_at : NULL,
                        j->finished_at[0] ? j->finished_at : NULL,
                        j->duration_s.set ? gp_db_text_double(dur, j->duration_s.v) : NULL,
                        j->host,
                        j->server_url ? url : NULL,
                        opt_text(okb, &j->requests_ok),
                        opt_text(fb, &j->requests_failed),
                        j->dir,
                        j->main_path,
                        j->input_config,
                        j->goodput,
                        j->genperf_summary,
                        ing,
                        j->interrupted ? "1" : "0",
                        j->incomplete[0] ? j->incomplete : NULL,
                        j->trace_file,
                        j->trace_speedup.set ? gp_db_text_double(tsp, j->trace_speedup.v) : NULL};
    *job_id = 0;
    return gp_db_query(db,
                       "INSERT INTO jobs (artifact_sha256, scenario_id, tool_version, producer, producer_version, "
                       "label, status, started_at, finished_at, duration_s, host, server_url, requests_ok, "
                       "requests_failed, artifact_dir, artifact_file, input_config, goodput_slos, "
                       "genperf_summary, ingested_at, interrupted, incomplete, trace_file, trace_speedup) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                       "ON CONFLICT (artifact_sha256) DO NOTHING RETURNING id",
                       jp, 24, gp_db_first_ll, job_id, err);
}

/* A NULL value (GenAI-Perf's NaN) stays SQL NULL. */
static void batch_value(struct gp_db_batch *b, int c, int isnull, double v)
{
    if (isnull)
        gp_db_batch_text(b, c, NULL);
    else
        gp_db_batch_dbl(b, c, v);
}

static int write_metric_values(struct gp_db *db, const struct ig_job *j, long long job_id, struct gp_error *err)
{
    struct gp_db_batch b;
    if (gp_db_batch_init(&b, db, "INSERT INTO metric_values (job_id, metric_code, stat, value) VALUES ", 4, 100,
                         NULL)) {
        gp_db_batch_free(&b);
        return gp_err(err, GP_ENOMEM, "out of memory inserting metrics");
    }
    int r = 0;
    for (size_t i = 0; i < j->nmv && r == 0; i++) {
        gp_db_batch_ll(&b, 0, job_id);
        gp_db_batch_text(&b, 1, j->mv[i].metric);
        gp_db_batch_text(&b, 2, j->mv[i].stat);
        batch_value(&b, 3, j->mv[i].isnull, j->mv[i].v);
        r = gp_db_batch_row_done(&b, NULL, err);
    }
    /* from the records: GenAI-Perf's summary has no failure count */
    if (r == 0 && j->requests_failed.set) {
        gp_db_batch_ll(&b, 0, job_id);
        gp_db_batch_text(&b, 1, "failed_request_count");
        gp_db_batch_text(&b, 2, "avg");
        gp_db_batch_dbl(&b, 3, (double)j->requests_failed.v);
        r = gp_db_batch_row_done(&b, NULL, err);
    }
    if (r == 0)
        r = gp_db_batch_flush(&b, err);
    gp_db_batch_free(&b);
    return r;
}

static int write_telemetry_stats(struct gp_db *db, const struct ig_job *j, long long job_id, struct gp_error *err)
{
    struct gp_db_batch b;
    if (gp_db_batch_init(&b, db, "INSERT INTO telemetry_stats (job_id, device, metric, unit, stat, value) VALUES ",
                         6, 100, NULL)) {
        gp_db_batch_free(&b);
        return gp_err(err, GP_ENOMEM, "out of memory inserting telemetry stats");
    }
    int r = 0;
    for (size_t i = 0; i < j->nts && r == 0; i++) {
        gp_db_batch_ll(&b, 0, job_id);
        gp_db_batch_text(&b, 1, j->ts[i].device);
        gp_db_batch_text(&b, 2, j->ts[i].metric);
        gp_db_batch_text(&b, 3, j->ts[i].unit[0] ? j->ts[i].unit : NULL);
        gp_db_batch_text(&b, 4, j->ts[i].stat);
        batch_value(&b, 5, j->ts[i].isnull, j->ts[i].v);
        r = gp_db_batch_row_done(&b, NULL, err);
    }
    if (r == 0)
        r = gp_db_batch_flush(&b, err);
    gp_db_batch_free(&b);
    return r;
}

long long ig_write_job(struct gp_db *db, struct ig_job *j, long long *existing, struct gp_error *err)
{
    int r;
    if ((r = ig_check_stop(j, err)) || (r = gp_db_begin(db, err)))
        return r;
    long long scen = 0, job_id = 0;
    if ((r = write_scenario(db, j, &scen, err)) || (r = write_metric_templates(db, j, err)) ||
        (r = write_job_row(db, j, scen, &job_id, err)))
        goto fail;
    if (job_id <= 0) {
        /* a concurrent ingest committed this artifact first */
        gp_db_rollback(db);
        return ig_find_job(db, j->sha, existing, err);
    }
    if ((r = write_metric_values(db, j, job_id, err)) || (r = write_telemetry_stats(db, j, job_id, err)) ||
        (r = ig_insert_endpoints(db, j, job_id, err)) ||
        (r = ig_insert_timeslices(db, j, job_id, err)) ||
        (r = ig_insert_models(db, j, job_id, err)) || (r = ig_insert_records(db, j, job_id, err)) ||
        (r = ig_insert_samples(db, j, job_id, err)) || (r = ig_link_group(db, j, job_id, err)) ||
        (r = ig_check_stop(j, err)) || (r = gp_db_commit(db, err)))
        goto fail;
    return job_id;
fail:
    gp_db_rollback(db);
    return r < 0 ? r : -GP_EDB;
}
