/* report/artifact.c — the page's JSON answers built from GenAI-Perf artifact
 * directories instead of the store, for `genperf report ARTIFACT_DIR`.
 *
 * Owns: nothing past each call; the bundle returned is the caller's.
 * Reads <stem>_genai_perf.json (metrics, input_config, telemetry_stats) and,
 * when present next to it, the profile export <stem>.json, whose per-chunk
 * response timestamps give exact TTFT, request latency and ITL by output
 * chunk position (a chunk counts when it carries non-empty content, the same
 * rule GenAI-Perf uses to drop empty first/last chunks), and genperf's
 * <stem>_telemetry.jsonl, when present, for the Hardware tab.
 */
#include "report/report.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *const stat_names[] = {"avg", "min", "max", "p1", "p5", "p10", "p25",
                                         "p50", "p75", "p90", "p95", "p99", "std"};
#define NSTATS (sizeof stat_names / sizeof stat_names[0])

static const char *suffix = "_genai_perf.json";

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* What list_dir keeps: 1 = *_genai_perf.json files, 2 = subdirs, 3 = *_genai_perf.csv files. */
static int keep_entry(const char *path, const char *name, void *arg)
{
    int want = *(const int *)arg;
    return want == 1   ? (ends_with(name, suffix) && gp_is_file(path))
           : want == 3 ? (ends_with(name, "_genai_perf.csv") && gp_is_file(path))
                       : gp_is_dir(path);
}

/* Sorted names in dir matching want (keep_entry). */
static int list_dir(const char *dir, int want, char ***names_out, size_t *n_out, struct gp_error *err)
{
    int rc = gp_dir_list(dir, keep_entry, &want, names_out, n_out, err);
    if (rc == -GP_ENOENT)
        return gp_err(err, GP_ENOENT, "%s: cannot open the artifact directory; pass a `genperf profile` run directory", dir);
    if (rc < 0)
        return gp_err(err, GP_ENOMEM, "out of memory listing %s", dir);
    return 0;
}

static void free_names(char **names, size_t n) { gp_dir_list_free(names, n); }

json_t *gp_artifact_load_json(const char *path, struct gp_error *err)
{
    char *text = NULL;
    size_t len = 0;
    if (gp_read_file(path, &text, &len, err) < 0)
        return NULL;
    char *clean = gp_json_sanitize_py(text, len);
    free(text);
    if (!clean) {
        gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loads(clean, JSON_ALLOW_NUL, &je);
    free(clean);
    if (!j)
        gp_err(err, GP_EINVAL, "%s:%d: not valid JSON (%s); regenerate it with genperf profile", path, je.line, je.text);
    return j;
}

/* Fast path for the common case: some "content": "x" with a non-empty
 * string. 1 = yes, 0 = certainly no content key with text, -1 = unsure. */
static int content_scan(const char *raw)
{
    int unsure = 0;
    for (const char *p = strstr(raw, "\"content\""); p; p = strstr(p + 1, "\"content\"")) {
        const char *q = p + 9;
        while (*q == ' ')
            q++;
        if (*q != ':') {
            unsure = 1;
            continue;
        }
        q++;
        while (*q == ' ')
            q++;
        if (*q == '"' && q[1] != '"')
            return 1;
        if (*q != '"' && strncmp(q, "null", 4) != 0)
            unsure = 1;
    }
    return unsure || strstr(raw, "\"text\"") ? -1 : 0;
}

/* True if one raw read of a streamed (or whole) response carries output text. */
static int has_content(const char *raw)
{
    int fast = content_scan(raw);
    if (fast >= 0)
        return fast;
    const char *p = raw;
    int any_event = 0;
    while (p && *p) {
        const char *line = p;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        p = nl ? nl + 1 : NULL;
        const char *payload = NULL;
        size_t plen = 0;
        if (len >= 5 && !strncmp(line, "data:", 5)) {
            payload = line + 5;
            plen = len - 5;
            while (plen && (*payload == ' ')) {
                payload++;
                plen--;
            }
            any_event = 1;
        } else if (!any_event && len && line[0] == '{') {
            payload = line; /* non-streaming: the whole body */
            plen = strlen(line);
            p = NULL;
        }
        if (!payload || !plen || (plen >= 6 && !strncmp(payload, "[DONE]", 6)))
            continue;
        json_t *j = json_loadb(payload, plen, 0, NULL);
        if (!j)
            continue;
        json_t *c0 = json_array_get(json_object_get(j, "choices"), 0);
        const char *s = json_string_value(json_object_get(json_object_get(c0, "delta"), "content"));
        if (!s)
            s = json_string_value(json_object_get(json_object_get(c0, "message"), "content"));
        if (!s)
            s = json_string_value(json_object_get(c0, "text"));
        int yes = s && *s;
        json_decref(j);
        if (yes)
            return 1;
    }
    return 0;
}

static double ns_ms(json_int_t ns) { return (double)ns / 1e6; }

/* Per-request arrays from a profile export; NULL export gives empty arrays. */
json_t *gp_artifact_requests(json_t *exp)
{
    json_t *ttft = json_array(), *lat = json_array();
    double *itl_sum = NULL;
    size_t *itl_n = NULL, npos = 0;
    size_t ei, ri;
    json_t *e, *r;
    json_array_foreach(json_object_get(exp, "experiments"), ei, e) {
        json_array_foreach(json_object_get(e, "requests"), ri, r) {
            json_t *ts_j = json_object_get(r, "timestamp");
            json_t *rts = json_object_get(r, "response_timestamps");
            json_t *outs = json_object_get(r, "response_outputs");
            size_t nr = json_array_size(rts);
            if (!json_is_integer(ts_j) || nr == 0)
                continue;
            json_int_t t0 = json_integer_value(ts_j);
            json_array_append_new(lat, json_real(ns_ms(json_integer_value(json_array_get(rts, nr - 1)) - t0)));
            json_int_t prev = -1;
            size_t pos = 0;
            for (size_t k = 0; k < nr; k++) {
                const char *raw = json_string_value(json_object_get(json_array_get(outs, k), "response"));
                if (!raw || !has_content(raw))
                    continue;
                json_int_t t = json_integer_value(json_array_get(rts, k));
                if (prev < 0) {
                    json_array_append_new(ttft, json_real(ns_ms(t - t0)));
                } else {
                    if (pos >= npos) {
                        size_t nn = npos ? npos * 2 : 64;
                        double *s2 = realloc(itl_sum, nn * sizeof *s2);
                        if (s2)
                            itl_sum = s2;
                        size_t *n2 = s2 ? realloc(itl_n, nn * sizeof *n2) : NULL;
                        if (!s2 || !n2)
                            goto done; /* keep what we have; the chart just ends early */
                        itl_n = n2;
                        memset(itl_sum + npos, 0, (nn - npos) * sizeof *itl_sum);
                        memset(itl_n + npos, 0, (nn - npos) * sizeof *itl_n);
                        npos = nn;
                    }
                    itl_sum[pos] += ns_ms(t - prev);
                    itl_n[pos]++;
                    pos++;
                }
                prev = t;
            }
        }
    }
done:;
    json_t *out = json_pack("{s:o,s:o}", "ttft_ms", ttft, "latency_ms", lat);
    size_t used = 0;
    while (used < npos && itl_n[used])
        used++;
    if (used) {
        json_t *p = json_array(), *a = json_array(), *c = json_array();
        for (size_t k = 0; k < used; k++) {
            json_array_append_new(p, json_integer((json_int_t)k + 1));
            json_array_append_new(a, json_real(itl_sum[k] / (double)itl_n[k]));
            json_array_append_new(c, json_integer((json_int_t)itl_n[k]));
        }
        json_object_set_new(out, "itl_by_position", json_pack("{s:o,s:o,s:o}", "position", p, "avg_ms", a, "count", c));
    } else {
        json_object_set_new(out, "itl_by_position", json_null());
    }
    free(itl_sum);
    free(itl_n);
    return out;
}

/* Time series from genperf's <stem>_telemetry.jsonl (docs/telemetry.md):
 * sample lines {t_ns, wall_ns, [host,] device, metric, value}; status lines
 * (with "reason" instead of "value") are skipped. One series per [host x]
 * device x metric,
 * in first-seen order, t_s relative to the first sample. */
struct tel_walk {
    json_t *series, *index; /* index: "host\x1fdevice\x1fmetric" -> series object */
    double t0;
    int have_t0;
};

static int tel_line(json_t *o, void *arg)
{
    struct tel_walk *w = arg;
    json_t *v = json_object_get(o, "value");
    const char *dev = json_string_value(json_object_get(o, "device"));
    const char *met = json_string_value(json_object_get(o, "metric"));
    /* "host": only in a file of several hosts (mpirun) */
    const char *host = json_string_value(json_object_get(o, "host"));
    json_t *t = json_object_get(o, "t_ns");
    if (!json_is_number(v) || !dev || !met || !json_is_number(t))
        return 0;
    char key[768];
    snprintf(key, sizeof key, "%s\x1f%s\x1f%s", host ? host : "", dev, met);
    json_t *s = json_object_get(w->index, key);
    if (!s) {
        s = json_pack("{s:s,s:s,s:[],s:[]}", "device", dev, "metric", met, "t_s", "v");
        if (host)
            json_object_set_new(s, "host", json_string(host));
        json_array_append_new(w->series, s);
        json_object_set(w->index, key, s);
    }
    double tn = json_number_value(t);
    if (!w->have_t0 || tn < w->t0) {
        w->t0 = tn;
        w->have_t0 = 1;
    }
    json_array_append_new(json_object_get(s, "t_s"), json_real(tn));
    json_array_append(json_object_get(s, "v"), v);
    return 0;
}

static json_t *telemetry_from_jsonl(const char *path)
{
    json_t *series = json_array();
    char *text = NULL;
    size_t len = 0;
    if (gp_read_file(path, &text, &len, NULL) < 0)
        return series;
    struct tel_walk w = {series, json_object(), 0, 0};
    gp_jsonl_each(text, tel_line, &w);
    size_t i, k;
    json_t *s, *x;
    json_array_foreach(series, i, s) {
        json_array_foreach(json_object_get(s, "t_s"), k, x) json_real_set(x, (json_real_value(x) - w.t0) / 1e9);
    }
    json_decref(w.index);
    free(text);
    gp_series_downsample(series, GP_SERIES_MAX_POINTS);
    return series;
}

static json_t *dup_or_null(json_t *v) { return v ? json_deep_copy(v) : json_null(); }

/* One run directory -> (list row, job answer, requests answer, compare point). */
/* genperf_run.json (written by `genperf run`) in dir or a parent up to top:
 * the scenario name, framework, hardware and sweep cell of the run. */
static json_t *run_meta(const char *dir, const char *top)
{
    char d[4096];
    snprintf(d, sizeof d, "%s", dir);
    size_t toplen = strlen(top);
    for (;;) {
        char path[4200];
        snprintf(path, sizeof path, "%s/genperf_run.json", d);
        if (gp_is_file(path))
            return gp_artifact_load_json(path, NULL);
        char *slash = strrchr(d, '/');
        if (!slash || strlen(d) <= toplen)
            return NULL;
        *slash = '\0';
    }
}

/* The siblings genperf writes next to <stem>_genai_perf.json must parse when
 * present: `genperf ingest` rejects a job whose <stem>_genperf.json or
 * genperf_run.json is damaged, and a report must not quietly show that job as
 * if it were whole. */
static int check_siblings(const char *dir, const char *file, struct gp_error *err)
{
    size_t stem = strlen(file) - strlen(suffix);
    char name[1024], path[4200];
    const char *sib[2] = {name, "genperf_run.json"};
    snprintf(name, sizeof name, "%.*s_genperf.json", (int)stem, file);
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, sib[i]);
        if (!gp_is_file(path))
            continue;
        json_t *j = gp_artifact_load_json(path, err);
        if (!j)
            return -err->code;
        int ok = json_is_object(j);
        json_decref(j);
        if (!ok)
            return gp_err(err, GP_EINVAL, "%s: not a JSON object; re-export the run or remove the file", path);
    }
    return 0;
}

/* The metric rows of the job page and the flat "metric.stat" map of the
 * list, from every object with a unit in *_genai_perf.json. */
static void metric_rows(json_t *g, json_t *metrics, json_t *flat)
{
    const char *key;
    json_t *val;
    json_object_foreach(g, key, val) {
        if (!json_is_object(val) || !json_object_get(val, "unit") || !strcmp(key, "telemetry_stats"))
            continue;
        json_t *row = json_pack("{s:s,s:O?}", "metric", key, "unit", json_object_get(val, "unit"));
        for (size_t s = 0; s < NSTATS; s++) {
            json_t *v = json_object_get(val, stat_names[s]);
            if (!v)
                continue;
            json_object_set(row, stat_names[s], v);
            char fk[256];
            snprintf(fk, sizeof fk, "%s.%s", key, stat_names[s]);
            json_object_set(flat, fk, v);
        }
        json_array_append_new(metrics, row);
    }
}

/* One row per (telemetry metric, GPU) of telemetry_stats: avg/min/max/p99. */
static json_t *telemetry_rows(json_t *g)
{
    json_t *tsum = json_array();
    const char *key;
    json_t *val;
    json_object_foreach(json_object_get(g, "telemetry_stats"), key, val) {
        const char *gpu;
        json_t *gv;
        json_object_foreach(val, gpu, gv) {
            if (!json_is_object(gv))
                continue;
            json_t *row = json_pack("{s:s,s:O?,s:s}", "metric", key, "unit", json_object_get(val, "unit"), "gpu", gpu);
            static const char *const st[] = {"avg", "min", "max", "p99"};
            for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
                json_t *v = json_object_get(gv, st[i]);
                if (v)
                    json_object_set(row, st[i], v);
            }
            json_array_append_new(tsum, row);
        }
    }
    return tsum;
}

/* The compare view's point for one run: headline figures, its SLOs, where it
 * lives and which tool wrote it. */
static json_t *compare_point(json_t *job, json_t *listrow, json_t *cfg, int id, const char *base, const char *dir,
                             const char *file)
{
    size_t stem_len = strlen(file) - strlen(suffix);
    char epath[4096];
    json_t *pt = json_pack("{s:i,s:s,s:O?,s:O?,s:O?,s:O?}", "id", id, "label", base, "model",
                           json_object_get(job, "model"), "concurrency", json_object_get(job, "concurrency"),
                           "request_rate", json_object_get(job, "request_rate"), "scenario",
                           json_object_get(job, "scenario"));
    static const char *const pmap[][2] = {
        {"request_throughput", "request_throughput.avg"},
        {"output_token_throughput", "output_token_throughput.avg"},
        {"time_to_first_token_p50", "time_to_first_token.p50"},
        {"request_latency_p50", "request_latency.p50"},
        {"request_latency_p99", "request_latency.p99"},
        {"time_to_first_token_p99", "time_to_first_token.p99"},
        {"inter_token_latency_p50", "inter_token_latency.p50"},
        {"inter_token_latency_p99", "inter_token_latency.p99"},
        {"output_token_throughput_per_user", "output_token_throughput_per_user.avg"},
    };
    json_t *flatm = json_object_get(listrow, "metrics");
    for (size_t i = 0; i < sizeof pmap / sizeof pmap[0]; i++) {
        json_t *v = json_object_get(flatm, pmap[i][1]);
        json_object_set_new(pt, pmap[i][0], v ? json_incref(v) : json_null());
    }
    /* The SLOs the run was judged by: 0.0.16 keeps goodput under input_config.input. */
    json_t *slo = json_object_get(json_object_get(cfg, "input"), "goodput");
    if (!json_is_object(slo))
        slo = json_object_get(cfg, "goodput");
    if (json_is_object(slo) && json_object_size(slo))
        json_object_set_new(pt, "slos", json_deep_copy(slo));
    json_object_set_new(pt, "artifact_dir", json_string(dir));
    json_object_set(pt, "gpu_count", json_object_get(job, "gpu_count"));
    /* Which tool wrote the run, as the store's producer column says it: genperf leaves <stem>_genperf.json. */
    char gpf[1100];
    snprintf(gpf, sizeof gpf, "%.*s_genperf.json", (int)stem_len, file);
    json_object_set_new(pt, "tool", json_string(gp_path_join(epath, sizeof epath, dir, gpf) == 0 && gp_is_file(epath)
                                                    ? "genperf"
                                                    : "genai-perf"));
    return pt;
}

static int one_run(const char *dir, const char *file, int id, const char *scenario, const char *top, json_t *api,
                   json_t *jobs, json_t *points, struct gp_error *err)
{
    char path[4096];
    if (gp_path_join(path, sizeof path, dir, file) < 0)
        return gp_err(err, GP_EINVAL, "%s/%s: path too long", dir, file);
    json_t *g = gp_artifact_load_json(path, err);
    if (!g)
        return -err->code;
    if (!json_is_object(g)) {
        json_decref(g);
        return gp_err(err, GP_EINVAL, "%s: not a GenAI-Perf export (top level is not an object)", path);
    }
    if (check_siblings(dir, file, err)) {
        json_decref(g);
        return -err->code;
    }
    json_t *cfg = json_object_get(g, "input_config");
    json_t *model = json_array_get(json_object_get(cfg, "model_names"), 0);
    if (!model)
        model = json_object_get(cfg, "model");
    json_t *stim = json_object_get(json_object_get(cfg, "perf_analyzer"), "stimulus");
    json_t *endpoint = json_object_get(cfg, "endpoint");
    /* a session run's concurrency is its session concurrency, as the store
     * records it (docs/store.md); a trace replay has neither figure */
    json_t *conc = json_object_get(stim, "concurrency");
    if (!json_is_number(conc) && !json_is_number(json_object_get(stim, "request_rate")))
        conc = json_object_get(stim, "session_concurrency");

    /* The cell is the run's path under the directory given (its name when it
     * is that directory). */
    size_t toplen = strlen(top);
    const char *base;
    if (!strncmp(dir, top, toplen) && dir[toplen] == '/' && dir[toplen + 1]) {
        base = dir + toplen + 1;
    } else {
        base = strrchr(dir, '/');
        base = base && base[1] ? base + 1 : dir;
    }
    char created[32] = "";
    struct stat st;
    if (stat(path, &st) == 0) {
        struct tm tm;
        time_t t = st.st_mtime;
        if (gmtime_r(&t, &tm))
            strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    json_t *job = json_pack("{s:i,s:o,s:s,s:s,s:o,s:o,s:o,s:s}", "id", id, "model", dup_or_null(model), "created_at",
                            created, "cell", base, "concurrency",
                            dup_or_null(conc), "request_rate",
                            dup_or_null(json_object_get(stim, "request_rate")), "url",
                            dup_or_null(json_object_get(endpoint, "url")), "source", path);
    if (scenario)
        json_object_set_new(job, "scenario", json_string(scenario));
    json_t *meta = run_meta(dir, top);
    if (json_is_object(meta)) {
        static const char *const keys[][2] = {{"scenario", "scenario"}, {"framework", "framework"},
                                              {"hardware", "hardware"}, {"gpus", "gpu_count"},
                                              {"tp", "tp"},             {"replicas", "replicas"}};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            json_t *v = json_object_get(meta, keys[i][0]);
            if (v && (json_is_string(v) || json_is_number(v)))
                json_object_set(job, keys[i][1], v);
        }
        json_t *cell = json_object_get(meta, "cell");
        json_t *v;
        if ((v = json_object_get(cell, "isl")) && json_is_number(v))
            json_object_set(job, "isl", v);
        if ((v = json_object_get(cell, "osl")) && json_is_number(v))
            json_object_set(job, "osl", v);
    }
    json_decref(meta);

    json_t *metrics = json_array(), *flat = json_object();
    metric_rows(g, metrics, flat);
    json_t *tsum = telemetry_rows(g);

    /* The profile export sits next to the genai_perf file under its stem. */
    char stem_file[1024];
    size_t stem_len = strlen(file) - strlen(suffix);
    snprintf(stem_file, sizeof stem_file, "%.*s.json", (int)stem_len, file);
    char epath[4096];
    json_t *exp = NULL;
    if (gp_path_join(epath, sizeof epath, dir, stem_file) == 0 && gp_is_file(epath)) {
        struct gp_error e2 = {0};
        exp = gp_artifact_load_json(epath, &e2); /* a broken export only loses the charts */
    }
    json_t *reqs = gp_artifact_requests(exp);
    json_decref(exp);
    char tel_file[1100], tpath[4096] = "";
    snprintf(tel_file, sizeof tel_file, "%.*s_telemetry.jsonl", (int)stem_len, file);
    json_t *tel = gp_path_join(tpath, sizeof tpath, dir, tel_file) == 0 && gp_is_file(tpath)
                      ? telemetry_from_jsonl(tpath)
                      : json_array();

    char k[128];
    json_t *listrow = json_deep_copy(job);
    json_object_set_new(listrow, "metrics", flat);
    json_array_append_new(jobs, listrow);

    json_array_append_new(points, compare_point(job, listrow, cfg, id, base, dir, file));

    /* the fidelity verdict, as the store's /api/job gives it (rdb.c) */
    char gpf[1100];
    snprintf(gpf, sizeof gpf, "%.*s_genperf.json", (int)stem_len, file);
    json_t *gsum = gp_path_join(epath, sizeof epath, dir, gpf) == 0 && gp_is_file(epath)
                       ? gp_artifact_load_json(epath, NULL) : NULL;
    json_t *fid = json_object_get(gsum, "fidelity");
    json_object_set_new(job, "fidelity", json_is_object(fid) ? json_incref(fid) : json_null());
    json_t *slices = gp_artifact_timeslices(gsum, gp_is_file(tpath) ? tpath : NULL);
    json_decref(gsum);
    snprintf(k, sizeof k, "/api/job?id=%d", id);
    json_object_set_new(api, k, json_pack("{s:o,s:o,s:o,s:o}", "job", job, "metrics", metrics, "telemetry_summary", tsum,
                                          "timeslices", slices));
    snprintf(k, sizeof k, "/api/job/requests?id=%d", id);
    json_object_set_new(api, k, reqs);
    snprintf(k, sizeof k, "/api/job/telemetry?id=%d", id);
    json_object_set_new(api, k, json_pack("{s:o}", "series", tel));
    json_decref(g);
    return 0;
}

struct walk {
    const char *top, *scenario;
    int id, csv_only;
    json_t *api, *jobs, *points;
};

/* Every directory holding *_genai_perf.json is a run; others are searched
 * (sorted, a few levels deep: artifacts/<scenario>/<cell>/<run>/ from
 * `genperf run` is three). */
static int walk_dir(struct walk *w, const char *dir, int depth, struct gp_error *err)
{
    char **files = NULL;
    size_t nf = 0;
    int rc = list_dir(dir, 1, &files, &nf, depth == 0 ? err : NULL);
    if (rc < 0)
        return depth == 0 ? rc : 0;
    for (size_t i = 0; i < nf && rc == 0; i++)
        rc = one_run(dir, files[i], ++w->id, w->scenario, w->top, w->api, w->jobs, w->points, err);
    free_names(files, nf);
    if (nf || rc < 0 || depth >= 6)
        return rc;
    char **subs = NULL;
    size_t ns = 0;
    if (list_dir(dir, 3, &files, &nf, NULL) == 0) {
        w->csv_only |= nf > 0;
        free_names(files, nf);
    }
    if (list_dir(dir, 2, &subs, &ns, NULL) < 0)
        return 0;
    for (size_t i = 0; i < ns && rc == 0; i++) {
        char sub[4096];
        if (gp_path_join(sub, sizeof sub, dir, subs[i]) == 0)
            rc = walk_dir(w, sub, depth + 1, err);
    }
    free_names(subs, ns);
    return rc;
}

static void compare_key(struct gp_buf *key, const char *scenario)
{
    /* encodeURIComponent, as app.js asks for it */
    gp_buf_reset(key);
    gp_buf_puts(key, "/api/compare?scenario=");
    for (const char *p = scenario; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-_.!~*'()", c))
            gp_buf_putc(key, (char)c);
        else
            gp_buf_printf(key, "%%%02X", c);
    }
}

int gp_artifact_bundle(const char *dir, json_t **out, struct gp_error *err)
{
    char top[4096];
    snprintf(top, sizeof top, "%s", dir);
    for (size_t n = strlen(top); n > 1 && top[n - 1] == '/'; n--)
        top[n - 1] = '\0';
    const char *base = strrchr(top, '/');
    struct walk w = {top, NULL, 0, 0, json_object(), json_array(), json_array()};
    char **files = NULL;
    size_t nf = 0;
    /* Runs found below the directory given are cells of one sweep named after it. */
    if (list_dir(top, 1, &files, &nf, NULL) == 0 && nf == 0)
        w.scenario = base && base[1] ? base + 1 : top;
    free_names(files, nf);
    int rc = walk_dir(&w, top, 0, err);
    if (rc == 0 && w.id == 0) {
        if (w.csv_only)
            rc = gp_err(err, GP_ENOTSUP, "%s: only *_genai_perf.csv here; reports read the JSON export: ingest the "
                                         "directory (genperf ingest %s --db results.db) and use genperf report --db",
                        dir, dir);
        else
            rc = gp_err(err, GP_ENOENT, "%s: no *%s here or below; pass the artifact directory genperf profile or "
                                        "genperf run wrote", dir, suffix);
    }
    if (rc < 0) {
        json_decref(w.api);
        json_decref(w.jobs);
        json_decref(w.points);
        return rc;
    }
    /* The compare answers: all jobs, and each scenario's jobs. */
    struct gp_buf key = {0};
    gp_buf_puts(&key, "/api/compare?ids=");
    for (int i = 1; i <= w.id; i++)
        gp_buf_printf(&key, "%s%d", i > 1 ? "," : "", i);
    json_object_set_new(w.api, key.data, json_pack("{s:O}", "points", w.points));
    size_t i;
    json_t *pt;
    json_array_foreach(w.points, i, pt) {
        const char *sc = json_string_value(json_object_get(pt, "scenario"));
        if (!sc)
            continue;
        compare_key(&key, sc);
        json_t *cmp = json_object_get(w.api, key.data);
        if (!cmp) {
            cmp = json_pack("{s:[]}", "points");
            json_object_set_new(w.api, key.data, cmp);
        }
        json_array_append(json_object_get(cmp, "points"), pt);
    }
    gp_buf_free(&key);
    json_decref(w.points);
    const char *ck;
    json_t *cv;
    json_object_foreach(w.api, ck, cv)
        if (!strncmp(ck, "/api/compare?", 13))
            gp_compare_decorate(cv);
    json_object_set_new(w.api, "/api/jobs", json_pack("{s:o}", "jobs", w.jobs));
    *out = json_pack("{s:s,s:o}", "start", w.id == 1 ? "#/job/1" : "#/", "api", w.api);
    return 0;
}
