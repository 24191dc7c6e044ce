/* store/ingest_genai.c — GenAI-Perf's own files: *_genai_perf.json and, when
 * that is absent, *_genai_perf.csv.
 *
 * Owns nothing past a call: the parsed JSON tree and the CSV text are freed
 * before returning; what they say lands in the job (metric values,
 * telemetry stats, scenario fields from input_config).
 *
 * Both the 0.0.16 layout (input_config.endpoint/perf_analyzer/input objects)
 * and the flat layout of older releases are read.
 */
#include "core/redact.h"
#include "store/ingest_internal.h"

#include "core/error.h"
#include "core/pytext.h"
#include "core/fsutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ input_config */

/* model: 0.0.16 has model_names[]; older releases "model" (list or string) */
static int ic_model(struct ig_job *j, const json_t *ic, const char *path, struct gp_error *err)
{
    const json_t *names = json_object_get(ic, "model_names");
    if (!names)
        names = json_object_get(ic, "model");
    if (json_is_array(names) && json_array_size(names) > 0) {
        const json_t *v = json_array_get(names, 0);
        if (!json_is_string(v))
            return gp_err(err, GP_EINVAL, "%s: field 'input_config.model_names[0]': expected a string, got %s",
                          path, ig_jtype(v));
        ig_set_str(&j->model, json_string_value(v));
    } else if (json_is_string(names) && *json_string_value(names)) {
        ig_set_str(&j->model, json_string_value(names));
    } else if (names && !json_is_array(names)) {
        return gp_err(err, GP_EINVAL, "%s: field 'input_config.model_names': expected a list of names, got %s",
                      path, ig_jtype(names));
    }
    return 0;
}

static int ic_endpoint(struct ig_job *j, const json_t *ic, const char *path, struct gp_error *err)
{
    int bad = 0, r;
    const json_t *ep = ig_opt_obj(ic, "endpoint", path, "input_config.endpoint", &bad, err);
    if (bad)
        return -GP_EINVAL;
    const json_t *epo = ep ? ep : ic; /* flat layout of older releases */
    const char *pre = ep ? "input_config.endpoint." : "input_config.";
    char f[160];
    char *custom = NULL;
    snprintf(f, sizeof f, "%stype", pre);
    if ((r = ig_opt_str(epo, ep ? "type" : "endpoint_type", &j->endpoint_type, path, f, err)))
        return r;
    snprintf(f, sizeof f, "%sstreaming", pre);
    if ((r = ig_opt_bool(epo, "streaming", &j->streaming, path, f, err)))
        return r;
    snprintf(f, sizeof f, "%s%s", pre, ep ? "custom" : "endpoint");
    if ((r = ig_opt_str(epo, ep ? "custom" : "endpoint", &custom, path, f, err)))
        return r;
    if (custom) {
        ig_set_str(&j->endpoint, custom[0] == '/' ? custom + 1 : custom);
        free(custom);
    } else if (j->endpoint_type) {
        if (!strcmp(j->endpoint_type, "chat"))
            ig_set_str(&j->endpoint, "v1/chat/completions");
        else if (!strcmp(j->endpoint_type, "completions"))
            ig_set_str(&j->endpoint, "v1/completions");
        else if (!strcmp(j->endpoint_type, "embeddings"))
            ig_set_str(&j->endpoint, "v1/embeddings");
    }
    snprintf(f, sizeof f, "%surl", pre);
    return ig_opt_str(epo, "url", &j->server_url, path, f, err);
}

/* concurrency / request rate / request count */
static int ic_stimulus(struct ig_job *j, const json_t *ic, const char *path, struct gp_error *err)
{
    int bad = 0, r;
    const json_t *pa = ig_opt_obj(ic, "perf_analyzer", path, "input_config.perf_analyzer", &bad, err);
    if (bad)
        return -GP_EINVAL;
    if (!pa) {
        if ((r = ig_opt_count(ic, "concurrency", &j->concurrency, path, "input_config.concurrency", err)) ||
            (r = ig_opt_nonneg(ic, "request_rate", &j->request_rate, path, "input_config.request_rate", err)) ||
            (r = ig_opt_count(ic, "request_count", &j->request_count, path, "input_config.request_count", err)))
            return r;
        return 0;
    }
    const json_t *st = ig_opt_obj(pa, "stimulus", path, "input_config.perf_analyzer.stimulus", &bad, err);
    if (bad)
        return -GP_EINVAL;
    if (st && ((r = ig_opt_count(st, "concurrency", &j->concurrency, path,
                               "input_config.perf_analyzer.stimulus.concurrency", err)) ||
               (r = ig_opt_nonneg(st, "request_rate", &j->request_rate, path,
                               "input_config.perf_analyzer.stimulus.request_rate", err))))
        return r;
    /* a session run ({"session_concurrency": N}) is N closed-loop sessions:
     * its scenario's concurrency is N; a trace replay ({"fixed_schedule":
     * null}) has neither a concurrency nor a rate */
    if (st && !j->concurrency.set && !j->request_rate.set &&
        (r = ig_opt_count(st, "session_concurrency", &j->concurrency, path,
                        "input_config.perf_analyzer.stimulus.session_concurrency", err)))
        return r;
    /* a trace replay's load is its file (input.file, "payload:FILE"); the
     * speed-up is only in _genperf.json "trace" (ig_parse_genperf_summary) */
    if (st && json_object_get(st, "fixed_schedule") && !j->concurrency.set && !j->request_rate.set) {
        const json_t *in = json_object_get(ic, "input");
        const json_t *fj = json_is_object(in) ? json_object_get(in, "file") : NULL;
        const char *fs = json_is_string(fj) ? json_string_value(fj) : "";
        ig_set_str(&j->trace_file, strncmp(fs, "payload:", 8) ? fs : fs + 8);
    }
    const json_t *me = ig_opt_obj(pa, "measurement", path, "input_config.perf_analyzer.measurement", &bad, err);
    if (bad)
        return -GP_EINVAL;
    const json_t *mode = me ? json_object_get(me, "mode") : NULL;
    if (me && json_is_string(mode) && !strcmp(json_string_value(mode), "request_count") &&
        (r = ig_opt_count(me, "num", &j->request_count, path, "input_config.perf_analyzer.measurement.num", err)))
        return r;
    return 0;
}

/* ISL / OSL / seed / goodput SLOs */
static int ic_input(struct ig_job *j, const json_t *ic, const char *path, struct gp_error *err)
{
    int bad = 0, r;
    const json_t *in = ig_opt_obj(ic, "input", path, "input_config.input", &bad, err);
    if (bad)
        return -GP_EINVAL;
    const json_t *gp = NULL;
    if (in) {
        const json_t *sy =
            ig_opt_obj(in, "synthetic_tokens", path, "input_config.input.synthetic_tokens", &bad, err);
        const json_t *ot =
            bad ? NULL : ig_opt_obj(in, "output_tokens", path, "input_config.input.output_tokens", &bad, err);
        if (bad)
            return -GP_EINVAL;
        if ((sy && (r = ig_opt_int(sy, "mean", &j->isl, path, "input_config.input.synthetic_tokens.mean", err))) ||
            (ot && (r = ig_opt_int(ot, "mean", &j->osl, path, "input_config.input.output_tokens.mean", err))) ||
            (r = ig_opt_int(in, "random_seed", &j->seed, path, "input_config.input.random_seed", err)))
            return r;
        gp = ig_opt_obj(in, "goodput", path, "input_config.input.goodput", &bad, err);
    } else {
        if ((r = ig_opt_int(ic, "synthetic_input_tokens_mean", &j->isl, path,
                            "input_config.synthetic_input_tokens_mean", err)) ||
            (r = ig_opt_int(ic, "output_tokens_mean", &j->osl, path, "input_config.output_tokens_mean", err)) ||
            (r = ig_opt_int(ic, "random_seed", &j->seed, path, "input_config.random_seed", err)))
            return r;
        gp = ig_opt_obj(ic, "goodput", path, "input_config.goodput", &bad, err);
    }
    if (bad)
        return -GP_EINVAL;
    if (j->osl.set && j->osl.v < 0) /* older releases: -1 = not set */
        j->osl.set = 0;
    if (gp && json_object_size(gp) > 0) {
        free(j->goodput);
        j->goodput = json_dumps(gp, JSON_COMPACT | JSON_PRESERVE_ORDER);
    }
    return 0;
}

/* Every "header"/"headers" value (a string or a list of strings) anywhere in
 * input_config, secrets replaced in place; every "url" string too, with its
 * userinfo hidden (https://TOKEN@host). */
static void redact_headers(json_t *v)
{
    const char *k;
    json_t *x;
    size_t i;
    if (json_is_array(v)) {
        json_array_foreach(v, i, x) redact_headers(x);
        return;
    }
    if (!json_is_object(v))
        return;
    json_object_foreach(v, k, x) {
        if (!strcmp(k, "url") && json_is_string(x)) {
            char out[4096];
            if (gp_redact_url(json_string_value(x), out, sizeof out))
                json_string_set(x, out);
            continue;
        }
        if (strcmp(k, "header") && strcmp(k, "headers")) {
            redact_headers(x);
            continue;
        }
        json_t *one = json_is_string(x) ? x : NULL;
        for (size_t n = 0; one || (json_is_array(x) && n < json_array_size(x)); n++) {
            json_t *h = one ? one : json_array_get(x, n);
            const char *line = json_string_value(h);
            if (line && strchr(line, ':')) {
                char out[1024];
                size_t nl = (size_t)(strchr(line, ':') - line);
                if (gp_redact_is_secret(NULL, line, nl)) {
                    gp_redact_header_line(NULL, line, out, sizeof out);
                    json_string_set(h, out);
                }
            }
            if (one)
                break;
        }
    }
}

static int parse_input_config(struct ig_job *j, const json_t *ic, const char *path, struct gp_error *err)
{
    int r;
    if ((r = ic_model(j, ic, path, err)) || (r = ic_endpoint(j, ic, path, err)) ||
        (r = ic_stimulus(j, ic, path, err)) || (r = ic_input(j, ic, path, err)))
        return r;
    /* GenAI-Perf writes -H values verbatim: the copy kept in the database
     * shows secret headers as "Name: ***" (core/redact). */
    json_t *copy = json_deep_copy(ic);
    if (!copy)
        return gp_err(err, GP_ENOMEM, "out of memory");
    redact_headers(copy);
    free(j->input_config);
    j->input_config = json_dumps(copy, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(copy);
    return 0;
}

/* ---------------------------------------------------------- the JSON file */

static int parse_telemetry_metric(struct ig_job *j, const char *metric, const json_t *mo, const char *path,
                                  struct gp_error *err)
{
    if (!ig_valid_code(metric))
        return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s': not a metric name (letters, digits, _)",
                      path, metric);
    if (!json_is_object(mo))
        return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s': expected an object, got %s", path, metric,
                      ig_jtype(mo));
    const json_t *u = json_object_get(mo, "unit");
    if (u && !json_is_string(u))
        return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s.unit': expected a string, got %s", path,
                      metric, ig_jtype(u));
    const char *gpu;
    const json_t *so;
    json_object_foreach((json_t *)mo, gpu, so) {
        if (!strcmp(gpu, "unit"))
            continue;
        if (!json_is_object(so))
            return gp_err(err, GP_EINVAL,
                          "%s: field 'telemetry_stats.%s.%s': expected an object of stats, got %s", path, metric,
                          gpu, ig_jtype(so));
        if (strlen(gpu) >= 40)
            return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s.%s': GPU label too long", path, metric,
                          gpu);
        const char *stat;
        const json_t *sv;
        json_object_foreach((json_t *)so, stat, sv) {
            if (!ig_valid_stat(stat))
                return gp_err(err, GP_EINVAL,
                              "%s: field 'telemetry_stats.%s.%s.%s': unknown statistic "
                              "(expected avg, min, max, std or pN)",
                              path, metric, gpu, stat);
            if (!json_is_number(sv) && !json_is_null(sv))
                return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s.%s.%s': expected a number, got %s",
                              path, metric, gpu, stat, ig_jtype(sv));
            if (ig_add_tstat(j, gpu, metric, u ? json_string_value(u) : NULL, stat, json_is_null(sv),
                             json_is_null(sv) ? 0 : json_number_value(sv)))
                return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
        }
    }
    return 0;
}

static int parse_telemetry_stats(struct ig_job *j, const json_t *tsb, const char *path, struct gp_error *err)
{
    if (!json_is_object(tsb))
        return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats': expected an object, got %s", path,
                      ig_jtype(tsb));
    const char *metric;
    const json_t *mo;
    int r;
    json_object_foreach((json_t *)tsb, metric, mo) {
        if ((r = parse_telemetry_metric(j, metric, mo, path, err)))
            return r;
    }
    return 0;
}

/* One top-level metric object {"unit": ..., "avg": ..., "p50": ...}. */
static int parse_metric(struct ig_job *j, const char *key, const json_t *v, const char *path, struct gp_error *err)
{
    if (!ig_valid_code(key))
        return gp_err(err, GP_EINVAL, "%s: field '%s': not a metric name (letters, digits, _)", path, key);
    if (!json_is_object(v))
        return gp_err(err, GP_EINVAL,
                      "%s: field '%s': expected a metric object {\"unit\": ..., \"avg\": ...}, got %s", path, key,
                      ig_jtype(v));
    const json_t *u = json_object_get(v, "unit");
    if (!json_is_string(u))
        return gp_err(err, GP_EINVAL, "%s: field '%s.unit': expected a string, got %s", path, key,
                      u ? ig_jtype(u) : "nothing");
    double factor = 1.0;
    const struct ig_known_metric *km = ig_find_known(key);
    if (km && ig_unit_factor(json_string_value(u), km->unit, &factor))
        return gp_err(err, GP_EINVAL, "%s: field '%s.unit': '%s' is not the unit GenAI-Perf writes ('%s')", path,
                      key, json_string_value(u), km->unit);
    if (!km && ig_note_metric(j, key))
        return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    const char *stat;
    const json_t *sv;
    json_object_foreach((json_t *)v, stat, sv) {
        if (!strcmp(stat, "unit"))
            continue;
        if (!ig_valid_stat(stat))
            return gp_err(err, GP_EINVAL,
                          "%s: field '%s.%s': unknown statistic (expected avg, min, max, std or pN)", path, key,
                          stat);
        if (!json_is_number(sv) && !json_is_null(sv))
            return gp_err(err, GP_EINVAL, "%s: field '%s.%s': expected a number, got %s", path, key, stat,
                          ig_jtype(sv));
        /* latencies, lengths, throughputs and counts: none is below 0 */
        if (json_is_number(sv) && json_number_value(sv) < 0)
            return gp_err(err, GP_EINVAL, "%s: field '%s.%s': %g is negative; no GenAI-Perf metric can be", path, key,
                          stat, json_number_value(sv));
        if (ig_add_mval(j, key, stat, json_is_null(sv), json_is_null(sv) ? 0 : json_number_value(sv) * factor))
            return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
    }
    return 0;
}

/* The rounded measured avg of a length metric, or unset. */
static struct ig_opt_i measured_length(const struct ig_job *j, const char *code)
{
    struct ig_opt_i o = {0};
    for (size_t i = 0; i < j->nmv; i++)
        if (!strcmp(j->mv[i].metric, code) && !strcmp(j->mv[i].stat, "avg") && !j->mv[i].isnull) {
            o.set = 1;
            o.v = (long long)(j->mv[i].v + 0.5); /* lengths are never negative (parse_metric) */
        }
    return o;
}

/* A file or trace input (prompt_source "file", "payload", ...) sends the
 * lengths its rows hold: synthetic_tokens.mean, 550 unless given, says
 * nothing about them, and a trace run listed ISL 550. Its scenario's ISL and
 * OSL are the measured averages, rounded (unset when not measured). */
static void lengths_of_file_input(struct ig_job *j, const json_t *root)
{
    const json_t *ic = json_object_get(root, "input_config");
    const json_t *in = json_object_get(ic, "input");
    const json_t *src = json_object_get(in ? in : ic, "prompt_source");
    if (!json_is_string(src) || !strcmp(json_string_value(src), "synthetic"))
        return;
    j->isl = measured_length(j, "input_sequence_length");
    j->osl = measured_length(j, "output_sequence_length");
}

static int parse_root(struct ig_job *j, json_t *root, const char *path, struct gp_error *err)
{
    if (!json_is_object(root))
        return gp_err(err, GP_EINVAL, "%s: expected a JSON object at the top level, got %s", path,
                      ig_jtype(root));
    const char *key;
    json_t *v;
    size_t nmetrics = 0;
    int r;
    json_object_foreach(root, key, v) {
        if (!strcmp(key, "input_config")) {
            if (!json_is_object(v))
                return gp_err(err, GP_EINVAL, "%s: field 'input_config': expected an object, got %s", path,
                              ig_jtype(v));
            if ((r = parse_input_config(j, v, path, err)))
                return r;
        } else if (!strcmp(key, "telemetry_stats")) {
            if ((r = parse_telemetry_stats(j, v, path, err)))
                return r;
        } else if (strcmp(key, "sessions")) { /* multi-turn per-session stats: not stored */
            if ((r = parse_metric(j, key, v, path, err)))
                return r;
            nmetrics++;
        }
    }
    const json_t *rt = json_object_get(root, "request_throughput");
    if (!nmetrics || !rt || !json_is_number(json_object_get(rt, "avg")))
        return gp_err(err, GP_EINVAL,
                      "%s: field 'request_throughput.avg' is missing; this is not a complete GenAI-Perf "
                      "*_genai_perf.json (re-run the profile or ingest the CSV)",
                      path);
    lengths_of_file_input(j, root);
    return 0;
}

int ig_parse_genai_perf_json(struct ig_job *j, struct gp_error *err)
{
    json_t *root = ig_load_json(j->main_path, 1, err);
    if (!root)
        return -GP_EINVAL;
    int r = parse_root(j, root, j->main_path, err);
    json_decref(root);
    return r;
}

/* ----------------------------------------------------------- the CSV file */

/* "Time To First Token (ms)" -> code time_to_first_token, unit ms. */
static int csv_label(const char *label, char *code, size_t codesz, char *unit, size_t unitsz)
{
    const char *open = strrchr(label, '(');
    size_t n = open ? (size_t)(open - label) : strlen(label);
    while (n > 0 && label[n - 1] == ' ')
        n--;
    if (n == 0 || n >= codesz)
        return -1;
    for (size_t i = 0; i < n; i++)
        code[i] = label[i] == ' ' ? '_' : (char)tolower((unsigned char)label[i]);
    code[n] = '\0';
    unit[0] = '\0';
    if (open) {
        const char *close = strchr(open, ')');
        if (!close)
            return -1;
        snprintf(unit, unitsz, "%.*s", (int)(close - open - 1), open + 1);
    }
    return ig_valid_code(code) ? 0 : -1;
}

static int csv_number(const char *s, int *isna, double *v)
{
    *isna = 0;
    if (!strcmp(s, "N/A")) {
        *isna = 1;
        return 0;
    }
    char buf[64];
    size_t k = 0;
    for (const char *p = s; *p; p++)
        if (*p != ',' && k + 1 < sizeof buf)
            buf[k++] = *p;
    buf[k] = '\0';
    if (!k)
        return -1;
    char *end;
    *v = strtod(buf, &end);
    return *end ? -1 : 0;
}

/* GenAI-Perf's CSV is a run of sections, each a header line and rows:
 * per-metric stats, single values, and the GPU telemetry pair of both. */
enum csv_sec { SEC_NONE, SEC_STATS, SEC_VALUES, SEC_TSTATS, SEC_TVALUES };

struct csv_state {
    const char *path;
    int lineno;
    enum csv_sec sec;
    char hdr[1024]; /* the header line; cols point into it */
    char *cols[32];
    int ncols;
    int nvals; /* request_throughput values seen */
};

static int csv_header(struct csv_state *cs, const char *line, struct gp_error *err)
{
    snprintf(cs->hdr, sizeof cs->hdr, "%s", line);
    cs->ncols = gp_csv_split(cs->hdr, cs->cols, 32);
    char **cols = cs->cols;
    if (cs->ncols >= 2 && !strcmp(cols[0], "Metric") && !strcmp(cols[1], "Value"))
        cs->sec = SEC_VALUES;
    else if (cs->ncols >= 3 && !strcmp(cols[0], "Metric") && !strcmp(cols[1], "GPU"))
        cs->sec = !strcmp(cols[2], "Value") ? SEC_TVALUES : SEC_TSTATS;
    else if (cs->ncols >= 2 && !strcmp(cols[0], "Metric"))
        cs->sec = SEC_STATS;
    else
        return gp_err(err, GP_EINVAL,
                      "%s: line %d: expected a section header starting with 'Metric,', got '%.60s'", cs->path,
                      cs->lineno, line);
    int first = cs->sec == SEC_TSTATS ? 2 : 1;
    for (int c = first; cs->sec != SEC_VALUES && cs->sec != SEC_TVALUES && c < cs->ncols; c++)
        if (!ig_valid_stat(cols[c]))
            return gp_err(err, GP_EINVAL, "%s: line %d: column '%s' is not a statistic", cs->path, cs->lineno,
                          cols[c]);
    return 0;
}

static int csv_row(struct ig_job *j, struct csv_state *cs, char *line, struct gp_error *err)
{
    char *f[32];
    int nf = gp_csv_split(line, f, 32);
    if (nf != cs->ncols)
        return gp_err(err, GP_EINVAL, "%s: line %d: %d fields, the header has %d", cs->path, cs->lineno, nf,
                      cs->ncols);
    char code[96], unit[32];
    if (csv_label(f[0], code, sizeof code, unit, sizeof unit))
        return gp_err(err, GP_EINVAL, "%s: line %d: '%s' is not a metric label like 'Request Latency (ms)'",
                      cs->path, cs->lineno, f[0]);
    int gpu = cs->sec == SEC_TSTATS || cs->sec == SEC_TVALUES;
    int single = cs->sec == SEC_VALUES || cs->sec == SEC_TVALUES;
    double factor = 1.0;
    if (!gpu) {
        const struct ig_known_metric *km = ig_find_known(code);
        if (km && unit[0] && ig_unit_factor(unit, km->unit, &factor))
            return gp_err(err, GP_EINVAL, "%s: line %d: unit '%s' of '%s' is not GenAI-Perf's ('%s')", cs->path,
                          cs->lineno, unit, f[0], km->unit);
        if (!km && ig_note_metric(j, code))
            return gp_err(err, GP_ENOMEM, "out of memory reading %s", cs->path);
    }
    for (int c = gpu ? 2 : 1; c < nf; c++) {
        int na;
        double v;
        if (csv_number(f[c], &na, &v))
            return gp_err(err, GP_EINVAL, "%s: line %d: field '%s' of '%s': expected a number or N/A, got '%s'",
                          cs->path, cs->lineno, single ? "Value" : cs->cols[c], f[0], f[c]);
        if (na)
            continue;
        if (!gpu && v < 0)
            return gp_err(err, GP_EINVAL, "%s: line %d: field '%s' of '%s': %g is negative; no GenAI-Perf metric can be",
                          cs->path, cs->lineno, single ? "Value" : cs->cols[c], f[0], v);
        const char *stat = single ? "avg" : cs->cols[c];
        if (!gpu ? ig_has_mval(j, code, stat) : ig_has_tstat(j, f[1], code, stat))
            return gp_err(err, GP_EINVAL, "%s: line %d: '%s'%s%s statistic '%s' is given twice; keep one column "
                          "and one row per metric", cs->path, cs->lineno, f[0], gpu ? " of GPU " : "",
                          gpu ? f[1] : "", stat);
        int e = !gpu ? ig_add_mval(j, code, stat, 0, v * factor) : ig_add_tstat(j, f[1], code, unit, stat, 0, v);
        if (e)
            return gp_err(err, GP_ENOMEM, "out of memory reading %s", cs->path);
        if (cs->sec == SEC_VALUES && !strcmp(code, "request_throughput"))
            cs->nvals++;
    }
    return 0;
}

int ig_parse_genai_perf_csv(struct ig_job *j, struct gp_error *err)
{
    char *text;
    if (gp_read_file_max(j->main_path, IG_MAX_WHOLE_FILE, GP_READ_REGULAR, &text, NULL, err))
        return -GP_EIO;
    struct csv_state cs = {.path = j->main_path, .sec = SEC_NONE};
    int r = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && !r; line = strtok_r(NULL, "\n", &save)) {
        cs.lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        if (!len) {
            cs.sec = SEC_NONE;
            continue;
        }
        /* a header also starts a section without the blank line before it
         * (LF-only copies lose it: strtok_r folds empty lines) */
        if (cs.sec == SEC_NONE || !strncmp(line, "Metric,", 7))
            r = csv_header(&cs, line, err);
        else
            r = csv_row(j, &cs, line, err);
    }
    if (!r && !cs.nvals)
        r = gp_err(err, GP_EINVAL,
                   "%s: no 'Request Throughput (per sec)' row; this is not a complete GenAI-Perf CSV", j->main_path);
    free(text);
    return r;
}
