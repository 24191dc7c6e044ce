/* store/ingest_extras.c — the files next to GenAI-Perf's that carry what
 * its summary does not: our <stem>_genperf.json (genperf version, wall-clock
 * times, client load), the runner's genperf_run.json (scenario metadata) and
 * perf_analyzer's profile export <stem>.json (run timing, per-request rows).
 *
 * Owns: the profile export's json_t once parsed, handed to the job
 * (j->export_json, freed by ig_job_free) so the write step can stream its
 * requests; every other tree is freed before returning.
 */
#include "store/ingest_internal.h"

#include "export/export.h"

#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int ig_parse_run_meta(struct ig_job *j, struct gp_error *err)
{
    const char *path = j->run_path;
    json_t *m = ig_load_json(path, 0, err);
    if (!m)
        return -GP_EINVAL;
    int r = 0, bad = 0;
    struct ig_opt_i gpus = {0}, tp = {0}, rep = {0}, conc = {0}, isl = {0}, osl = {0}, req = {0};
    char *model = NULL, *fw = NULL, *hw = NULL, *label = NULL, *url = NULL, *host = NULL;
    int streaming = -1;
    if (!json_is_object(m)) {
        r = gp_err(err, GP_EINVAL, "%s: expected a JSON object, got %s", path, ig_jtype(m));
        goto done;
    }
    if ((r = ig_opt_str(m, "model", &model, path, "model", err)) ||
        (r = ig_opt_str(m, "framework", &fw, path, "framework", err)) ||
        (r = ig_opt_str(m, "hardware", &hw, path, "hardware", err)) ||
        (r = ig_opt_str(m, "scenario", &label, path, "scenario", err)) ||
        (r = ig_opt_str(m, "url", &url, path, "url", err)) || (r = ig_opt_str(m, "host", &host, path, "host", err)) ||
        (r = ig_opt_count(m, "gpus", &gpus, path, "gpus", err)) ||
        (r = ig_opt_count(m, "tp", &tp, path, "tp", err)) ||
        (r = ig_opt_count(m, "replicas", &rep, path, "replicas", err)) ||
        (r = ig_opt_bool(m, "streaming", &streaming, path, "streaming", err)))
        goto done;
    const json_t *cell = ig_opt_obj(m, "cell", path, "cell", &bad, err);
    if (bad) {
        r = -GP_EINVAL;
        goto done;
    }
    if (cell && ((r = ig_opt_count(cell, "concurrency", &conc, path, "cell.concurrency", err)) ||
                 (r = ig_opt_count(cell, "isl", &isl, path, "cell.isl", err)) ||
                 (r = ig_opt_count(cell, "osl", &osl, path, "cell.osl", err)) ||
                 (r = ig_opt_count(cell, "requests", &req, path, "cell.requests", err))))
        goto done;
    const json_t *ea = json_object_get(m, "engine_args");
    if (ea && !json_is_null(ea)) {
        free(j->engine_args);
        j->engine_args = json_is_string(ea) ? strdup(json_string_value(ea))
                                            : json_dumps(ea, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    }
    if (model)
        ig_set_str(&j->model, model);
    if (fw)
        ig_set_str(&j->framework, fw);
    if (hw)
        ig_set_str(&j->hardware, hw);
    if (label && !j->label)
        ig_set_str(&j->label, label);
    if (url)
        ig_set_str(&j->server_url, url);
    if (host)
        ig_set_str(&j->host, host);
    if (gpus.set)
        j->gpu_count = gpus;
    if (tp.set)
        j->tp = tp;
    if (rep.set)
        j->replicas = rep;
    if (conc.set && conc.v > 0)
        j->concurrency = conc;
    if (isl.set && isl.v > 0)
        j->isl = isl;
    if (osl.set && osl.v > 0)
        j->osl = osl;
    if (req.set && req.v > 0)
        j->request_count = req;
    if (streaming >= 0)
        j->streaming = streaming;
done:
    free(model), free(fw), free(hw), free(label), free(url), free(host);
    json_decref(m);
    return r;
}

/* One number of the "schedule" block: absent or null stores nothing (an
 * older genperf, a metric with no sample), anything else but a number is an
 * error naming the field. 1 = stored or skipped, 0 = out of memory, -1 = bad. */
static int sched_num(struct ig_job *j, const json_t *o, const char *key, const char *metric, const char *stat,
                     const char *path, const char *where, struct gp_error *err)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    if (!v || json_is_null(v))
        return 1;
    if (!json_is_number(v)) {
        gp_err(err, GP_EINVAL, "%s: field '%s%s': expected a number, got %s", path, where, key, ig_jtype(v));
        return -1;
    }
    return ig_add_mval(j, metric, stat, 0, json_number_value(v)) ? 0 : 1;
}

/* The "schedule" block (export/schedule_json.c) as metric rows: lag
 * p50/p99/max/avg (ms), late and cap-delayed counts (stat avg, as GenAI-Perf
 * writes request_count), from-schedule latency / TTFT p50/p99, and the
 * requests a ramp excluded (the top-level "ramp" block, closed loop too).
 * "schedule": null (closed loop) or no block at all (artifacts from before
 * issue 16) stores nothing. */
static int parse_schedule_block(struct ig_job *j, const json_t *m, const char *path, struct gp_error *err)
{
    const json_t *s = json_object_get(m, "schedule");
    const json_t *ramp = json_object_get(m, "ramp");
    if (!s || json_is_null(s))
        s = NULL; /* closed loop; a concurrency ramp may still be there */
    else if (!json_is_object(s))
        return gp_err(err, GP_EINVAL, "%s: field 'schedule': expected an object or null, got %s", path, ig_jtype(s));
    const json_t *lag = s ? json_object_get(s, "lag") : NULL;
    const json_t *fs = s ? json_object_get(s, "from_schedule") : NULL;
    const json_t *lat = json_is_object(fs) ? json_object_get(fs, "request_latency_ms") : NULL;
    const json_t *ttft = json_is_object(fs) ? json_object_get(fs, "time_to_first_token_ms") : NULL;
    const struct {
        const json_t *o;
        const char *key, *metric, *stat, *where;
    } f[] = {
        {lag, "p50_ms", "schedule_lag", "p50", "schedule.lag."},
        {lag, "p99_ms", "schedule_lag", "p99", "schedule.lag."},
        {lag, "max_ms", "schedule_lag", "max", "schedule.lag."},
        {lag, "avg_ms", "schedule_lag", "avg", "schedule.lag."},
        {s, "late_over_1ms", "schedule_late_requests", "avg", "schedule."},
        {s, "cap_delayed", "schedule_cap_delayed", "avg", "schedule."},
        {lat, "p50", "request_latency_from_schedule", "p50", "schedule.from_schedule.request_latency_ms."},
        {lat, "p99", "request_latency_from_schedule", "p99", "schedule.from_schedule.request_latency_ms."},
        {ttft, "p50", "time_to_first_token_from_schedule", "p50", "schedule.from_schedule.time_to_first_token_ms."},
        {ttft, "p99", "time_to_first_token_from_schedule", "p99", "schedule.from_schedule.time_to_first_token_ms."},
        {ramp, "excluded_requests", "ramp_excluded_requests", "avg", "ramp."},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        int r = sched_num(j, f[i].o, f[i].key, f[i].metric, f[i].stat, path, f[i].where, err);
        if (r < 0)
            return -GP_EINVAL;
        if (r == 0)
            return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    }
    return 0;
}

/* The "energy" and "cost" blocks (export/energy_json.c) as metric rows,
 * stat avg; absent blocks (no GPU telemetry, no --gpu-hour-cost, older
 * genperf) store nothing. Peak watts: the highest of the GPUs'. */
static int parse_energy_block(struct ig_job *j, const json_t *m, const char *path, struct gp_error *err)
{
    const json_t *e = json_object_get(m, "energy"), *c = json_object_get(m, "cost");
    if (e && !json_is_object(e))
        return gp_err(err, GP_EINVAL, "%s: field 'energy': expected an object, got %s", path, ig_jtype(e));
    if (c && !json_is_object(c))
        return gp_err(err, GP_EINVAL, "%s: field 'cost': expected an object, got %s", path, ig_jtype(c));
    const struct {
        const json_t *o;
        const char *key, *metric, *where;
    } f[] = {
        {e, "joules", "energy_joules", "energy."},
        {e, "avg_watts", "gpu_power_avg_watts", "energy."},
        {e, "joules_per_output_token", "joules_per_output_token", "energy."},
        {e, "output_tokens_per_joule", "output_tokens_per_joule", "energy."},
        {c, "usd_per_gpu_hour", "usd_per_gpu_hour", "cost."},
        {c, "usd_per_million_output_tokens", "usd_per_million_output_tokens", "cost."},
        {c, "usd_per_million_input_tokens", "usd_per_million_input_tokens", "cost."},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        int r = sched_num(j, f[i].o, f[i].key, f[i].metric, "avg", path, f[i].where, err);
        if (r < 0)
            return -GP_EINVAL;
        if (r == 0)
            return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    }
    const json_t *gpus = e ? json_object_get(e, "gpus") : NULL, *g;
    size_t i;
    double peak = -1;
    json_array_foreach(gpus, i, g) {
        const json_t *p = json_object_get(g, "peak_watts");
        if (json_is_number(p) && json_number_value(p) > peak)
            peak = json_number_value(p);
    }
    if (peak >= 0 && ig_add_mval(j, "gpu_power_peak_watts", "avg", 0, peak))
        return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    return 0;
}

int ig_parse_genperf_summary(struct ig_job *j, struct gp_error *err)
{
    const char *path = j->genperf_path;
    json_t *m = ig_load_json(path, 1, err);
    if (!m)
        return -GP_EINVAL;
    int r = 0;
    if (!json_is_object(m)) {
        r = gp_err(err, GP_EINVAL, "%s: expected a JSON object, got %s", path, ig_jtype(m));
        goto done;
    }
    char *ver = NULL;
    const char *vkey = json_object_get(m, "genperf_version") ? "genperf_version" : "version";
    if ((r = ig_opt_str(m, vkey, &ver, path, vkey, err)))
        goto done;
    if (ver) {
        free(j->producer_version);
        j->producer_version = ver;
    }
    if ((r = ig_opt_str(m, "host", &j->host, path, "host", err)))
        goto done;
    if ((r = ig_opt_bool(m, "interrupted", &j->interrupted, path, "interrupted", err)))
        goto done;
    /* a trace replay: the file and the --trace-speedup it ran at */
    int bad = 0;
    const json_t *tr = ig_opt_obj(m, "trace", path, "trace", &bad, err);
    if (bad) {
        r = -GP_EINVAL;
        goto done;
    }
    if (tr && ((r = ig_opt_str(tr, "file", &j->trace_file, path, "trace.file", err)) ||
               (r = ig_opt_nonneg(tr, "speedup", &j->trace_speedup, path, "trace.speedup", err))))
        goto done;
    /* the request and failure counts are kept in genperf_summary: none is below 0 */
    static const char *const count_blocks[] = {"requests", "failures"};
    for (size_t b = 0; b < sizeof count_blocks / sizeof *count_blocks; b++) {
        const json_t *blk = json_object_get(m, count_blocks[b]);
        const char *k;
        const json_t *cv;
        json_object_foreach((json_t *)(json_is_object(blk) ? blk : NULL), k, cv) {
            if (json_is_number(cv) && json_number_value(cv) < 0) {
                r = gp_err(err, GP_EINVAL, "%s: field '%s.%s': %g is negative; a count cannot be", path,
                           count_blocks[b], k, json_number_value(cv));
                goto done;
            }
        }
    }
    struct ig_opt_i s = {0}, e = {0};
    if ((r = ig_opt_int(m, "start_wall_ns", &s, path, "start_wall_ns", err)) ||
        (r = ig_opt_int(m, "end_wall_ns", &e, path, "end_wall_ns", err)))
        goto done;
    if (s.set && s.v > 0 && e.set && e.v >= s.v) {
        ig_iso_from_ns(s.v, j->started_at);
        ig_iso_from_ns(e.v, j->finished_at);
        j->duration_s.set = 1;
        j->duration_s.v = (double)(e.v - s.v) / 1e9;
    }
    /* genperf extras become metrics: inter-chunk latency stats, client load */
    const json_t *icl = json_object_get(m, "inter_chunk_latency");
    if (json_is_object(icl)) {
        const char *stat;
        const json_t *sv;
        json_object_foreach((json_t *)icl, stat, sv) {
            if (!ig_valid_stat(stat))
                continue; /* unit, count */
            if (!json_is_number(sv) && !json_is_null(sv)) {
                r = gp_err(err, GP_EINVAL, "%s: field 'inter_chunk_latency.%s': expected a number, got %s", path,
                           stat, ig_jtype(sv));
                goto done;
            }
            if (ig_add_mval(j, "inter_chunk_latency", stat, json_is_null(sv), json_is_null(sv) ? 0 : json_number_value(sv)))
                goto oom;
        }
    }
    const json_t *cl = json_object_get(m, "client");
    const json_t *busy = json_is_object(cl) ? json_object_get(cl, "busy_fraction") : NULL;
    if (json_is_number(busy) && ig_add_mval(j, "client_busy_fraction", "avg", 0, json_number_value(busy)))
        goto oom;
    if ((r = ig_parse_accounting(j, m, path, err)))
        goto done;
    if ((r = parse_schedule_block(j, m, path, err)) || (r = ig_parse_endpoints(j, m, path, err)) ||
        (r = ig_parse_timeslices(j, m, path, err)) || (r = ig_parse_models(j, m, path, err)) ||
        (r = parse_energy_block(j, m, path, err)))
        goto done;
    free(j->genperf_summary);
    j->genperf_summary = json_dumps(m, JSON_COMPACT | JSON_PRESERVE_ORDER);
    goto done;
oom:
    r = gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
done:
    json_decref(m);
    return r;
}

/* GenAI-Perf's run timing lives only in perf_analyzer's export: request
 * timestamps are Unix-epoch ns (system_clock). */
/* perf_analyzer's export carries every response chunk; a long run's file can
 * be gigabytes, and a parsed JSON tree is several times larger. Past this
 * size it is skipped (no start time, no per-request rows) rather than risk
 * the machine's memory. */
#define GP_MAX_EXPORT_BYTES (256L * 1024 * 1024)

int ig_parse_profile_export(struct ig_job *j, struct gp_error *err)
{
    const char *path = j->export_path;
    struct stat stt;
    if (stat(path, &stt) == 0 && stt.st_size > GP_MAX_EXPORT_BYTES) {
        j->export_skipped = 1;
        return 0;
    }
    json_t *m = ig_load_json(path, 0, err);
    if (!m)
        return -GP_EINVAL;
    int r = 0;
    const json_t *ex = json_is_object(m) ? json_object_get(m, "experiments") : NULL;
    if (!json_is_array(ex)) {
        r = gp_err(err, GP_EINVAL, "%s: field 'experiments': expected an array (is this a perf_analyzer profile "
                   "export?)", path);
        goto done;
    }
    long long t0 = 0, t1 = 0;
    size_t nreq = 0;
    for (size_t e = 0; e < json_array_size(ex); e++) {
        const json_t *reqs = json_object_get(json_array_get(ex, e), "requests");
        if (!json_is_array(reqs)) {
            r = gp_err(err, GP_EINVAL, "%s: field 'experiments[%zu].requests': expected an array", path, e);
            goto done;
        }
        for (size_t i = 0; i < json_array_size(reqs); i++) {
            const json_t *rq = json_array_get(reqs, i);
            char field[96];
            snprintf(field, sizeof field, "experiments[%zu].requests[%zu]", e, i);
            long long last;
            if ((r = gp_export_check_pa_request(rq, 0, path, field, &last, err)))
                goto done;
            long long s = json_integer_value(json_object_get(rq, "timestamp"));
            if (!nreq || s < t0)
                t0 = s;
            if (!nreq || last > t1)
                t1 = last;
            nreq++;
        }
    }
    j->n_export_requests = nreq;
    /* epoch ns after 2001: real wall clock; our tests' small numbers are not */
    if (nreq && t0 > 1000000000000000000LL && !j->started_at[0]) {
        ig_iso_from_ns(t0, j->started_at);
        ig_iso_from_ns(t1, j->finished_at);
        j->duration_s.set = 1;
        j->duration_s.v = (double)(t1 - t0) / 1e9;
    }
    j->export_json = m;
    return 0;
done:
    json_decref(m);
    return r;
}
