/* store/ingest_checks.c — whether a read job's files add up (issue 40 item 2).
 *
 * Each reader validates its own file; this pass compares them with each
 * other once all are read, before anything is written. Two answers:
 *
 *   refuse  values that cannot be: a statistic whose min exceeds its avg or
 *           whose avg exceeds its max; a count in _genperf.json "requests" or
 *           "failures", or the summary's request_count, beyond the measured
 *           requests; more measured rows in the records file than the
 *           summary measured. Such a file was edited or corrupted, and no
 *           part of it can be trusted: the job is rejected, nothing written.
 *   mark    a set that holds a real measurement but lacks part of it: the
 *           _genai_perf.csv or the _telemetry.jsonl its run writes (the
 *           latter when _genperf.json counts samples), records for fewer
 *           requests than the summary measured, a repeat aggregate naming
 *           runs that are not there. The job is stored with j->incomplete
 *           saying which (jobs.incomplete; v_jobs status 'incomplete').
 *
 * Owns nothing beyond the JSON it parses (freed before returning).
 */
#include "store/ingest_internal.h"

#include "core/error.h"
#include "core/fsutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Appends one reason to j->incomplete, "; " between them. */
static void mark(struct ig_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mark(struct ig_job *j, const char *fmt, ...)
{
    size_t n = strlen(j->incomplete);
    if (n && n + 2 < sizeof j->incomplete) {
        memcpy(j->incomplete + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->incomplete + n, sizeof j->incomplete - n, fmt, ap);
    va_end(ap);
}

/* a > b beyond what rounding (the CSV's two decimals round min, avg and max
 * alike, so their order survives) could explain */
static int above(double a, double b)
{
    return a > b + 1e-9 * fmax(1.0, fabs(b));
}

/* min <= avg <= max for every metric of the summary that has all three. */
static int check_stats(const struct ig_job *j, struct gp_error *err)
{
    for (size_t i = 0; i < j->nmv; i++) {
        const struct ig_mval *a = &j->mv[i];
        if (a->isnull || strcmp(a->stat, "avg"))
            continue;
        for (size_t k = 0; k < j->nmv; k++) {
            const struct ig_mval *b = &j->mv[k];
            if (b->isnull || strcmp(b->metric, a->metric))
                continue;
            int lo = !strcmp(b->stat, "min"), hi = !strcmp(b->stat, "max");
            if ((lo && above(b->v, a->v)) || (hi && above(a->v, b->v)))
                return gp_err(err, GP_EINVAL,
                              "%s: field '%s': %s %g %s avg %g; a statistic's min <= avg <= max, so the file was "
                              "edited or corrupted: re-export it",
                              j->main_path, a->metric, b->stat, b->v, lo ? "above" : "below", a->v);
        }
    }
    for (size_t i = 0; i < j->nts; i++) {
        const struct ig_tstat *a = &j->ts[i];
        if (a->isnull || strcmp(a->stat, "avg"))
            continue;
        for (size_t k = 0; k < j->nts; k++) {
            const struct ig_tstat *b = &j->ts[k];
            if (b->isnull || strcmp(b->metric, a->metric) || strcmp(b->device, a->device))
                continue;
            int lo = !strcmp(b->stat, "min"), hi = !strcmp(b->stat, "max");
            if ((lo && above(b->v, a->v)) || (hi && above(a->v, b->v)))
                return gp_err(err, GP_EINVAL,
                              "%s: telemetry '%s' of %s: %s %g %s avg %g; a statistic's min <= avg <= max, so the "
                              "file was edited or corrupted: re-export it",
                              j->main_path, a->metric, a->device, b->stat, b->v, lo ? "above" : "below", a->v);
        }
    }
    return 0;
}

static double summary_value(const struct ig_job *j, const char *metric, const char *stat, int *found)
{
    for (size_t i = 0; i < j->nmv; i++)
        if (!j->mv[i].isnull && !strcmp(j->mv[i].metric, metric) && !strcmp(j->mv[i].stat, stat))
            return *found = 1, j->mv[i].v;
    return *found = 0, 0;
}

/* _genperf.json's counts against its own "requests.measured", and the
 * records file's measured rows against both. */
static int check_counts(struct ig_job *j, const json_t *g, struct gp_error *err)
{
    const json_t *req = json_object_get(g, "requests");
    const json_t *mj = json_object_get(req, "measured");
    if (!json_is_integer(mj))
        return 0;
    long long measured = json_integer_value(mj);
    static const char *const within[] = {"ok", "failed", "counted", "ok_without_content", "streams_without_done",
                                         "osl_mismatch", "with_server_usage"};
    for (size_t i = 0; i < sizeof within / sizeof *within; i++) {
        const json_t *v = json_object_get(req, within[i]);
        if (json_is_integer(v) && json_integer_value(v) > measured)
            return gp_err(err, GP_EINVAL, "%s: field 'requests.%s': %lld is more than the %lld measured requests",
                          j->genperf_path, within[i], (long long)json_integer_value(v), measured);
    }
    /* sums in double: a hostile file's counts near LLONG_MAX must not overflow */
    double okf = (double)json_integer_value(json_object_get(req, "ok")) +
                 (double)json_integer_value(json_object_get(req, "failed"));
    if (okf > (double)measured)
        return gp_err(err, GP_EINVAL, "%s: fields 'requests.ok' + 'requests.failed': %.0f is more than the %lld "
                      "measured requests", j->genperf_path, okf, measured);
    const char *k;
    const json_t *v;
    double fsum = 0;
    json_object_foreach((json_t *)json_object_get(g, "failures"), k, v) {
        if (json_is_integer(v))
            fsum += (double)json_integer_value(v);
    }
    if (fsum > (double)measured)
        return gp_err(err, GP_EINVAL, "%s: field 'failures': its counts add up to %.0f, more than the %lld measured "
                      "requests", j->genperf_path, fsum, measured);
    int found;
    double rc = summary_value(j, "request_count", "avg", &found);
    if (found && above(rc, (double)measured))
        return gp_err(err, GP_EINVAL, "%s: field 'request_count': %g is more than the %lld requests %s measured",
                      j->main_path, rc, measured, j->genperf_path);
    if (!j->records_path[0] || !j->requests_ok.set)
        return 0;
    long long rows = j->requests_ok.v + j->requests_failed.v;
    if (rows > measured)
        return gp_err(err, GP_EINVAL, "%s: %lld measured records, more than the %lld requests %s measured; the sets "
                      "were mixed: re-export", j->records_path, rows, measured, j->genperf_path);
    if (rows < measured)
        mark(j, "%s holds %lld measured records, %s counts %lld", j->records_path, rows, j->genperf_path, measured);
    return 0;
}

/* The files genperf's run writes beside its summary. */
static void check_files(struct ig_job *j, const json_t *g)
{
    char path[4200];
    if (!j->main_is_csv) {
        snprintf(path, sizeof path, "%s/%s_genai_perf.csv", j->dir, j->stem);
        if (!gp_is_file(path))
            mark(j, "%s is missing (the run could not write it)", path);
    }
    const json_t *s = json_object_get(json_object_get(g, "telemetry"), "samples");
    if (json_is_integer(s) && json_integer_value(s) > 0 && !j->telemetry_path[0])
        mark(j, "%s/%s_telemetry.jsonl is missing (%s says %lld telemetry samples)", j->dir, j->stem, j->genperf_path,
             (long long)json_integer_value(s));
}

/* Every run the repeat aggregate averaged must be there: each of its
 * run_directories ends in run_K/<run>, looked up under the group's
 * directory (the aggregate may name them relative to another cwd). */
static void check_aggregate(struct ig_job *j)
{
    if (!j->aggregate_path[0])
        return;
    json_t *agg = ig_load_json(j->aggregate_path, 0, NULL);
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(agg, "run_directories"), i, d) {
        const char *s = json_string_value(d), *tail = NULL;
        for (const char *p = s; p && (p = strstr(p, "run_")); p++)
            if (p == s || p[-1] == '/')
                tail = p;
        char path[8400], file[8600];
        if (!tail)
            continue;
        snprintf(path, sizeof path, "%s/%s", j->group_dir, tail);
        snprintf(file, sizeof file, "%s/%s_genai_perf.json", path, j->stem);
        if (!gp_is_dir(path) || !gp_is_file(file)) {
            snprintf(file, sizeof file, "%s/%s_genai_perf.csv", path, j->stem);
            if (!gp_is_file(file))
                mark(j, "the repeat aggregate %s averages %s, which is not there", j->aggregate_path, path);
        }
    }
    json_decref(agg);
}

int ig_check_adds_up(struct ig_job *j, struct gp_error *err)
{
    int r = check_stats(j, err);
    if (r || !j->genperf_path[0] || !j->genperf_summary)
        return r;
    json_t *g = json_loads(j->genperf_summary, 0, NULL);
    r = check_counts(j, g, err);
    if (!r) {
        check_files(j, g);
        check_aggregate(j);
    }
    json_decref(g);
    return r;
}
