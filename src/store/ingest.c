/* store/ingest.c — artifact directories -> one validated transaction per job.
 *
 * Owns: struct job and everything hanging off it (freed by job_free before
 * the next job starts), the JSON it parses, and the batches it builds. The
 * database handle and meta are borrowed.
 *
 * Order of work for one job, and why:
 *   1. read + hash the main artifact (identity), parse and validate it and
 *      every sibling file completely; the JSONL files are streamed once
 *      here to validate and once more inside the transaction to insert, so
 *      a million-line records file never has to sit in memory;
 *   2. a read-only check "already ingested?" (no write lock taken);
 *   3. BEGIN; scenario (ON CONFLICT DO NOTHING, then SELECT: concurrent
 *      ingests of one setup converge on one row); job row with ON CONFLICT
 *      DO NOTHING RETURNING id (a concurrent duplicate returns no row and
 *      backs out cleanly); values; records; samples; COMMIT.
 * Any failure after BEGIN rolls back, so no partial job can exist.
 */
#include "store/store.h"
#include "store/db.h"
#include "store/db_impl.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/version.h"

#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEPTH 6

struct opt_i {
    int set;
    long long v;
};
struct opt_d {
    int set;
    double v;
};

struct mval {
    char metric[96];
    char stat[16];
    int isnull;
    double v;
};

struct tstat {
    char device[48];
    char metric[96];
    char unit[32];
    char stat[16];
    int isnull;
    double v;
};

struct job {
    char dir[4096], stem[1024], main_path[4096];
    int main_is_csv;
    char export_path[4096], records_path[4096], genperf_path[4096], telemetry_path[4096], run_path[4096];
    char sha[65];

    /* scenario */
    char *model, *framework, *engine_args, *hardware, *endpoint, *endpoint_type;
    struct opt_i gpu_count, tp, replicas, concurrency, isl, osl, request_count, seed;
    struct opt_d request_rate;
    int streaming;

    /* job */
    char *tool_version, *producer_version, *label, *host, *server_url;
    const char *producer;
    char *input_config, *goodput, *genperf_summary;
    char started_at[40], finished_at[40];
    struct opt_d duration_s;
    struct opt_i requests_ok, requests_failed;
    size_t n_records, n_samples, n_export_requests;

    struct mval *mv;
    size_t nmv, capmv;
    struct tstat *ts;
    size_t nts, capts;
    char (*new_metrics)[96]; /* codes not in metric_templates: added on ingest */
    size_t nnew;
    json_t *export_json;     /* profile export, kept for its per-request rows */
    int export_skipped;      /* too large to load (GP_MAX_EXPORT_BYTES) */
};

static void job_free(struct job *j)
{
    free(j->model), free(j->framework), free(j->engine_args), free(j->hardware), free(j->endpoint);
    free(j->endpoint_type), free(j->tool_version), free(j->producer_version), free(j->label), free(j->host);
    free(j->server_url), free(j->input_config), free(j->goodput), free(j->genperf_summary);
    free(j->mv), free(j->ts), free(j->new_metrics);
    if (j->export_json)
        json_decref(j->export_json);
    memset(j, 0, sizeof *j);
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? strdup(s) : NULL;
}

static void iso_from_ns(long long ns, char out[40])
{
    time_t s = (time_t)(ns / 1000000000LL);
    int ms = (int)((ns % 1000000000LL) / 1000000LL);
    struct tm tm;
    gmtime_r(&s, &tm);
    char b[32];
    strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, 40, "%s.%03dZ", b, ms);
}

/* ---------------------------------------------------------------- metrics */

struct known_metric {
    const char *code, *unit;
};
static const struct known_metric known[] = {
    {"request_throughput", "requests/sec"},
    {"request_latency", "ms"},
    {"request_goodput", "requests/sec"},
    {"request_count", "count"},
    {"time_to_first_token", "ms"},
    {"time_to_second_token", "ms"},
    {"inter_token_latency", "ms"},
    {"output_token_throughput", "tokens/sec"},
    {"output_token_throughput_per_user", "tokens/sec/user"},
    {"output_sequence_length", "tokens"},
    {"input_sequence_length", "tokens"},
    {"failed_request_count", "count"},
    {"inter_chunk_latency", "ms"},
    {"client_busy_fraction", "fraction"},
};

static const struct known_metric *find_known(const char *code)
{
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(known[i].code, code))
            return &known[i];
    return NULL;
}

static int valid_stat(const char *s)
{
    if (!strcmp(s, "avg") || !strcmp(s, "min") || !strcmp(s, "max") || !strcmp(s, "std"))
        return 1;
    if (s[0] != 'p' || !isdigit((unsigned char)s[1]))
        return 0;
    for (const char *p = s + 1; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != '.')
            return 0;
    return strlen(s) < 16;
}

static int valid_code(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= 96)
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return 0;
    return 1;
}

static int add_mval(struct job *j, const char *metric, const char *stat, int isnull, double v)
{
    if (j->nmv == j->capmv) {
        size_t nc = j->capmv ? j->capmv * 2 : 64;
        struct mval *n = realloc(j->mv, nc * sizeof *n);
        if (!n)
            return -GP_ENOMEM;
        j->mv = n;
        j->capmv = nc;
    }
    struct mval *m = &j->mv[j->nmv++];
    snprintf(m->metric, sizeof m->metric, "%s", metric);
    snprintf(m->stat, sizeof m->stat, "%s", stat);
    m->isnull = isnull;
    m->v = v;
    return 0;
}

static int add_tstat(struct job *j, const char *device, const char *metric, const char *unit, const char *stat,
                     int isnull, double v)
{
    if (j->nts == j->capts) {
        size_t nc = j->capts ? j->capts * 2 : 64;
        struct tstat *n = realloc(j->ts, nc * sizeof *n);
        if (!n)
            return -GP_ENOMEM;
        j->ts = n;
        j->capts = nc;
    }
    struct tstat *t = &j->ts[j->nts++];
    /* DCGM labels GPUs "0", "1": store them as our device names gpu0, gpu1 */
    int digits = *device != '\0';
    for (const char *p = device; *p; p++)
        if (!isdigit((unsigned char)*p))
            digits = 0;
    snprintf(t->device, sizeof t->device, "%s%s", digits ? "gpu" : "", device);
    snprintf(t->metric, sizeof t->metric, "%s", metric);
    snprintf(t->unit, sizeof t->unit, "%s", unit ? unit : "");
    snprintf(t->stat, sizeof t->stat, "%s", stat);
    t->isnull = isnull;
    t->v = v;
    return 0;
}

/* Time metrics in an older or foreign unit are converted to the template's ms. */
static int unit_factor(const char *code, const char *unit, const char *tmpl_unit, double *f)
{
    *f = 1.0;
    if (!strcmp(unit, tmpl_unit))
        return 0;
    if (!strcmp(tmpl_unit, "ms")) {
        if (!strcmp(unit, "ns"))
            return *f = 1e-6, 0;
        if (!strcmp(unit, "us"))
            return *f = 1e-3, 0;
        if (!strcmp(unit, "s"))
            return *f = 1e3, 0;
    }
    /* CSV labels use "per sec" for request rates */
    if (!strcmp(tmpl_unit, "requests/sec") && !strcmp(unit, "per sec"))
        return 0;
    (void)code;
    return -1;
}

static int note_metric(struct job *j, const char *code)
{
    if (find_known(code))
        return 0;
    for (size_t i = 0; i < j->nnew; i++)
        if (!strcmp(j->new_metrics[i], code))
            return 0;
    char(*n)[96] = realloc(j->new_metrics, (j->nnew + 1) * sizeof *n);
    if (!n)
        return -GP_ENOMEM;
    j->new_metrics = n;
    snprintf(j->new_metrics[j->nnew++], 96, "%s", code);
    return 0;
}

/* ------------------------------------------------------------- JSON utils */

/* Python's json.dumps writes NaN, Infinity and -Infinity, which are not JSON;
 * they become null (stored as SQL NULL). */
static char *sanitize_pyjson(const char *in, size_t len, size_t *outlen)
{
    struct gp_buf b = {0};
    if (gp_buf_reserve(&b, len + 16) || gp_buf_puts(&b, ""))
        return NULL;
    int str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (str) {
            gp_buf_putc(&b, c);
            if (c == '\\' && i + 1 < len)
                gp_buf_putc(&b, in[++i]);
            else if (c == '"')
                str = 0;
            continue;
        }
        if (c == '"') {
            str = 1;
        } else if (c == 'N' && len - i >= 3 && !memcmp(in + i, "NaN", 3)) {
            gp_buf_puts(&b, "null");
            i += 2;
            continue;
        } else if (c == 'I' && len - i >= 8 && !memcmp(in + i, "Infinity", 8)) {
            gp_buf_puts(&b, "null");
            i += 7;
            continue;
        } else if (c == '-' && len - i >= 9 && !memcmp(in + i, "-Infinity", 9)) {
            gp_buf_puts(&b, "null");
            i += 8;
            continue;
        }
        gp_buf_putc(&b, c);
    }
    *outlen = b.len;
    return gp_buf_steal(&b);
}

static const char *jtype(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static json_t *load_json(const char *path, int sanitize, struct gp_error *err)
{
    char *text;
    size_t len;
    if (gp_read_file(path, &text, &len, err))
        return NULL;
    if (sanitize) {
        char *s = sanitize_pyjson(text, len, &len);
        free(text);
        if (!s)
            return gp_err(err, GP_ENOMEM, "out of memory reading %s", path), NULL;
        text = s;
    }
    json_error_t je;
    json_t *v = json_loadb(text, len, JSON_ALLOW_NUL, &je);
    free(text);
    if (!v)
        gp_err(err, GP_EINVAL, "%s: not valid JSON at line %d column %d: %s; re-export the file", path, je.line,
               je.column, je.text);
    return v;
}

/* Reads an optional integer field: absent, null and "" (GenAI-Perf's None)
 * leave *o unset; an integral number sets it; anything else is a rejection
 * naming path and field. */
static int opt_int(const json_t *obj, const char *key, struct opt_i *o, const char *path, const char *field,
                   struct gp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v)))
        return 0;
    if (json_is_integer(v)) {
        o->set = 1, o->v = json_integer_value(v);
        return 0;
    }
    if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) && fabs(json_real_value(v)) < 9e15) {
        o->set = 1, o->v = (long long)json_real_value(v);
        return 0;
    }
    return gp_err(err, GP_EINVAL, "%s: field '%s': expected an integer, got %s", path, field, jtype(v));
}

static int opt_num(const json_t *obj, const char *key, struct opt_d *o, const char *path, const char *field,
                   struct gp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v)))
        return 0;
    if (json_is_number(v)) {
        o->set = 1, o->v = json_number_value(v);
        return 0;
    }
    return gp_err(err, GP_EINVAL, "%s: field '%s': expected a number, got %s", path, field, jtype(v));
}

static int opt_str(const json_t *obj, const char *key, char **out, const char *path, const char *field,
                   struct gp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return gp_err(err, GP_EINVAL, "%s: field '%s': expected a string, got %s", path, field, jtype(v));
    if (*json_string_value(v))
        set_str(out, json_string_value(v));
    return 0;
}

static int opt_bool(const json_t *obj, const char *key, int *out, const char *path, const char *field,
                    struct gp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return 0;
    if (json_is_boolean(v)) {
        *out = json_is_true(v);
        return 0;
    }
    if (json_is_integer(v)) {
        *out = json_integer_value(v) != 0;
        return 0;
    }
    return gp_err(err, GP_EINVAL, "%s: field '%s': expected true or false, got %s", path, field, jtype(v));
}

static const json_t *opt_obj(const json_t *obj, const char *key, const char *path, const char *field,
                             int *bad, struct gp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v)))
        return NULL;
    if (!json_is_object(v)) {
        gp_err(err, GP_EINVAL, "%s: field '%s': expected an object, got %s", path, field, jtype(v));
        *bad = 1;
    }
    return json_is_object(v) ? v : NULL;
}

/* --------------------------------------------------- the genai_perf files */

static int parse_input_config(struct job *j, const json_t *ic, const char *path, struct gp_error *err)
{
    int bad = 0, r;
    const json_t *v;
    /* model: 0.0.16 has model_names[]; older releases "model" (list or string) */
    const json_t *names = json_object_get(ic, "model_names");
    if (!names)
        names = json_object_get(ic, "model");
    if (json_is_array(names) && json_array_size(names) > 0) {
        v = json_array_get(names, 0);
        if (!json_is_string(v))
            return gp_err(err, GP_EINVAL, "%s: field 'input_config.model_names[0]': expected a string, got %s",
                          path, jtype(v));
        set_str(&j->model, json_string_value(v));
    } else if (json_is_string(names) && *json_string_value(names)) {
        set_str(&j->model, json_string_value(names));
    } else if (names && !json_is_array(names)) {
        return gp_err(err, GP_EINVAL, "%s: field 'input_config.model_names': expected a list of names, got %s",
                      path, jtype(names));
    }

    const json_t *ep = opt_obj(ic, "endpoint", path, "input_config.endpoint", &bad, err);
    if (bad)
        return -GP_EINVAL;
    const json_t *epo = ep ? ep : ic; /* flat layout of older releases */
    const char *pre = ep ? "input_config.endpoint." : "input_config.";
    char f[160];
    char *custom = NULL;
    snprintf(f, sizeof f, "%stype", pre);
    if ((r = opt_str(epo, ep ? "type" : "endpoint_type", &j->endpoint_type, path, f, err)))
        return r;
    snprintf(f, sizeof f, "%sstreaming", pre);
    if ((r = opt_bool(epo, "streaming", &j->streaming, path, f, err)))
        return r;
    snprintf(f, sizeof f, "%s%s", pre, ep ? "custom" : "endpoint");
    if ((r = opt_str(epo, ep ? "custom" : "endpoint", &custom, path, f, err)))
        return r;
    if (custom) {
        set_str(&j->endpoint, custom[0] == '/' ? custom + 1 : custom);
        free(custom);
    } else if (j->endpoint_type) {
        if (!strcmp(j->endpoint_type, "chat"))
            set_str(&j->endpoint, "v1/chat/completions");
        else if (!strcmp(j->endpoint_type, "completions"))
            set_str(&j->endpoint, "v1/completions");
        else if (!strcmp(j->endpoint_type, "embeddings"))
            set_str(&j->endpoint, "v1/embeddings");
    }
    snprintf(f, sizeof f, "%surl", pre);
    if ((r = opt_str(epo, "url", &j->server_url, path, f, err)))
        return r;

    const json_t *pa = opt_obj(ic, "perf_analyzer", path, "input_config.perf_analyzer", &bad, err);
    if (bad)
        return -GP_EINVAL;
    if (pa) {
        const json_t *st = opt_obj(pa, "stimulus", path, "input_config.perf_analyzer.stimulus", &bad, err);
        if (bad)
            return -GP_EINVAL;
        if (st && ((r = opt_int(st, "concurrency", &j->concurrency, path,
                                "input_config.perf_analyzer.stimulus.concurrency", err)) ||
                   (r = opt_num(st, "request_rate", &j->request_rate, path,
                                "input_config.perf_analyzer.stimulus.request_rate", err))))
            return r;
        const json_t *me = opt_obj(pa, "measurement", path, "input_config.perf_analyzer.measurement", &bad, err);
        if (bad)
            return -GP_EINVAL;
        const json_t *mode = me ? json_object_get(me, "mode") : NULL;
        if (me && json_is_string(mode) && !strcmp(json_string_value(mode), "request_count") &&
            (r = opt_int(me, "num", &j->request_count, path, "input_config.perf_analyzer.measurement.num", err)))
            return r;
    } else {
        if ((r = opt_int(ic, "concurrency", &j->concurrency, path, "input_config.concurrency", err)) ||
            (r = opt_num(ic, "request_rate", &j->request_rate, path, "input_config.request_rate", err)) ||
            (r = opt_int(ic, "request_count", &j->request_count, path, "input_config.request_count", err)))
            return r;
    }

    const json_t *in = opt_obj(ic, "input", path, "input_config.input", &bad, err);
    if (bad)
        return -GP_EINVAL;
    const json_t *gp = NULL;
    if (in) {
        const json_t *sy = opt_obj(in, "synthetic_tokens", path, "input_config.input.synthetic_tokens", &bad, err);
        const json_t *ot = bad ? NULL : opt_obj(in, "output_tokens", path, "input_config.input.output_tokens",
                                                &bad, err);
        if (bad)
            return -GP_EINVAL;
        if ((sy && (r = opt_int(sy, "mean", &j->isl, path, "input_config.input.synthetic_tokens.mean", err))) ||
            (ot && (r = opt_int(ot, "mean", &j->osl, path, "input_config.input.output_tokens.mean", err))) ||
            (r = opt_int(in, "random_seed", &j->seed, path, "input_config.input.random_seed", err)))
            return r;
        gp = opt_obj(in, "goodput", path, "input_config.input.goodput", &bad, err);
    } else {
        if ((r = opt_int(ic, "synthetic_input_tokens_mean", &j->isl, path,
                         "input_config.synthetic_input_tokens_mean", err)) ||
            (r = opt_int(ic, "output_tokens_mean", &j->osl, path, "input_config.output_tokens_mean", err)) ||
            (r = opt_int(ic, "random_seed", &j->seed, path, "input_config.random_seed", err)))
            return r;
        gp = opt_obj(ic, "goodput", path, "input_config.goodput", &bad, err);
    }
    if (bad)
        return -GP_EINVAL;
    if (j->osl.set && j->osl.v < 0) /* older releases: -1 = not set */
        j->osl.set = 0;
    if (gp && json_object_size(gp) > 0) {
        free(j->goodput);
        j->goodput = json_dumps(gp, JSON_COMPACT | JSON_PRESERVE_ORDER);
    }
    free(j->input_config);
    j->input_config = json_dumps(ic, JSON_COMPACT | JSON_PRESERVE_ORDER);
    return 0;
}

static int parse_telemetry_stats(struct job *j, const json_t *tsb, const char *path, struct gp_error *err)
{
    if (!json_is_object(tsb))
        return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats': expected an object, got %s", path, jtype(tsb));
    const char *metric;
    const json_t *mo;
    json_object_foreach((json_t *)tsb, metric, mo) {
        if (!valid_code(metric))
            return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s': not a metric name (letters, digits, _)",
                          path, metric);
        if (!json_is_object(mo))
            return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s': expected an object, got %s", path,
                          metric, jtype(mo));
        const json_t *u = json_object_get(mo, "unit");
        if (u && !json_is_string(u))
            return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s.unit': expected a string, got %s", path,
                          metric, jtype(u));
        const char *gpu;
        const json_t *so;
        json_object_foreach((json_t *)mo, gpu, so) {
            if (!strcmp(gpu, "unit"))
                continue;
            if (!json_is_object(so))
                return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s.%s': expected an object of stats, got %s",
                              path, metric, gpu, jtype(so));
            if (strlen(gpu) >= 40)
                return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s.%s': GPU label too long", path, metric,
                              gpu);
            const char *stat;
            const json_t *sv;
            json_object_foreach((json_t *)so, stat, sv) {
                if (!valid_stat(stat))
                    return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s.%s.%s': unknown statistic "
                                  "(expected avg, min, max, std or pN)", path, metric, gpu, stat);
                if (!json_is_number(sv) && !json_is_null(sv))
                    return gp_err(err, GP_EINVAL, "%s: field 'telemetry_stats.%s.%s.%s': expected a number, got %s",
                                  path, metric, gpu, stat, jtype(sv));
                if (add_tstat(j, gpu, metric, u ? json_string_value(u) : NULL, stat, json_is_null(sv),
                              json_is_null(sv) ? 0 : json_number_value(sv)))
                    return gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
            }
        }
    }
    return 0;
}

static int parse_genai_perf_json(struct job *j, struct gp_error *err)
{
    const char *path = j->main_path;
    json_t *root = load_json(path, 1, err);
    if (!root)
        return -GP_EINVAL;
    int r = 0;
    if (!json_is_object(root)) {
        r = gp_err(err, GP_EINVAL, "%s: expected a JSON object at the top level, got %s", path, jtype(root));
        goto done;
    }
    const char *key;
    json_t *v;
    size_t nmetrics = 0;
    json_object_foreach(root, key, v) {
        if (!strcmp(key, "input_config")) {
            if (!json_is_object(v)) {
                r = gp_err(err, GP_EINVAL, "%s: field 'input_config': expected an object, got %s", path, jtype(v));
                goto done;
            }
            if ((r = parse_input_config(j, v, path, err)))
                goto done;
            continue;
        }
        if (!strcmp(key, "telemetry_stats")) {
            if ((r = parse_telemetry_stats(j, v, path, err)))
                goto done;
            continue;
        }
        if (!strcmp(key, "sessions"))
            continue; /* multi-turn per-session stats: not stored */
        if (!valid_code(key)) {
            r = gp_err(err, GP_EINVAL, "%s: field '%s': not a metric name (letters, digits, _)", path, key);
            goto done;
        }
        if (!json_is_object(v)) {
            r = gp_err(err, GP_EINVAL, "%s: field '%s': expected a metric object {\"unit\": ..., \"avg\": ...}, got %s",
                       path, key, jtype(v));
            goto done;
        }
        const json_t *u = json_object_get(v, "unit");
        if (!json_is_string(u)) {
            r = gp_err(err, GP_EINVAL, "%s: field '%s.unit': expected a string, got %s", path, key,
                       u ? jtype(u) : "nothing");
            goto done;
        }
        double factor = 1.0;
        const struct known_metric *km = find_known(key);
        if (km && unit_factor(key, json_string_value(u), km->unit, &factor)) {
            r = gp_err(err, GP_EINVAL, "%s: field '%s.unit': '%s' is not the unit GenAI-Perf writes ('%s')", path,
                       key, json_string_value(u), km->unit);
            goto done;
        }
        if (!km && note_metric(j, key)) {
            r = gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
            goto done;
        }
        const char *stat;
        json_t *sv;
        json_object_foreach(v, stat, sv) {
            if (!strcmp(stat, "unit"))
                continue;
            if (!valid_stat(stat)) {
                r = gp_err(err, GP_EINVAL, "%s: field '%s.%s': unknown statistic (expected avg, min, max, std or pN)",
                           path, key, stat);
                goto done;
            }
            if (!json_is_number(sv) && !json_is_null(sv)) {
                r = gp_err(err, GP_EINVAL, "%s: field '%s.%s': expected a number, got %s", path, key, stat, jtype(sv));
                goto done;
            }
            if (add_mval(j, key, stat, json_is_null(sv), json_is_null(sv) ? 0 : json_number_value(sv) * factor)) {
                r = gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
                goto done;
            }
        }
        nmetrics++;
    }
    const json_t *rt = json_object_get(root, "request_throughput");
    if (!nmetrics || !rt || !json_is_number(json_object_get(rt, "avg"))) {
        r = gp_err(err, GP_EINVAL,
                   "%s: field 'request_throughput.avg' is missing; this is not a complete GenAI-Perf "
                   "*_genai_perf.json (re-run the profile or ingest the CSV)",
                   path);
        goto done;
    }
done:
    json_decref(root);
    return r;
}

/* One CSV record (excel dialect: quotes, "" escapes). fields point into
 * line, which is modified in place. */
static int csv_split(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return -1;
        char *out = p;
        fields[n++] = out;
        if (*p == '"') {
            p++;
            for (;;) {
                if (!*p)
                    return -1;
                if (*p == '"') {
                    if (p[1] == '"') {
                        *out++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *out++ = *p++;
            }
            if (*p && *p != ',')
                return -1;
        } else {
            while (*p && *p != ',')
                *out++ = *p++;
        }
        int more = *p == ',';
        if (*p)
            p++;
        *out = '\0';
        if (!more)
            break;
    }
    return n;
}

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
    return valid_code(code) ? 0 : -1;
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

static int parse_genai_perf_csv(struct job *j, struct gp_error *err)
{
    const char *path = j->main_path;
    char *text;
    if (gp_read_file(path, &text, NULL, err))
        return -GP_EIO;
    enum { NONE, STATS, VALUES, TSTATS, TVALUES } sec = NONE;
    char *cols[32], *f[32];
    int ncols = 0, r = 0, lineno = 0, nvals = 0;
    char hdr_store[1024];
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        if (!len) {
            sec = NONE;
            continue;
        }
        /* a header also starts a section without the blank line before it
         * (LF-only copies lose it: strtok_r folds empty lines) */
        if (sec == NONE || !strncmp(line, "Metric,", 7)) {
            snprintf(hdr_store, sizeof hdr_store, "%s", line);
            ncols = csv_split(hdr_store, cols, 32);
            if (ncols >= 2 && !strcmp(cols[0], "Metric") && !strcmp(cols[1], "Value"))
                sec = VALUES;
            else if (ncols >= 3 && !strcmp(cols[0], "Metric") && !strcmp(cols[1], "GPU"))
                sec = !strcmp(cols[2], "Value") ? TVALUES : TSTATS;
            else if (ncols >= 2 && !strcmp(cols[0], "Metric"))
                sec = STATS;
            else {
                r = gp_err(err, GP_EINVAL, "%s: line %d: expected a section header starting with 'Metric,', got '%.60s'",
                           path, lineno, line);
                goto done;
            }
            int first = sec == TSTATS ? 2 : 1;
            for (int c = first; sec != VALUES && sec != TVALUES && c < ncols; c++)
                if (!valid_stat(cols[c])) {
                    r = gp_err(err, GP_EINVAL, "%s: line %d: column '%s' is not a statistic", path, lineno, cols[c]);
                    goto done;
                }
            continue;
        }
        int nf = csv_split(line, f, 32);
        if (nf != ncols) {
            r = gp_err(err, GP_EINVAL, "%s: line %d: %d fields, the header has %d", path, lineno, nf, ncols);
            goto done;
        }
        char code[96], unit[32];
        if (csv_label(f[0], code, sizeof code, unit, sizeof unit)) {
            r = gp_err(err, GP_EINVAL, "%s: line %d: '%s' is not a metric label like 'Request Latency (ms)'", path,
                       lineno, f[0]);
            goto done;
        }
        int first = (sec == TSTATS || sec == TVALUES) ? 2 : 1;
        double factor = 1.0;
        if (sec == STATS || sec == VALUES) {
            const struct known_metric *km = find_known(code);
            if (km && unit[0] && unit_factor(code, unit, km->unit, &factor)) {
                r = gp_err(err, GP_EINVAL, "%s: line %d: unit '%s' of '%s' is not GenAI-Perf's ('%s')", path, lineno,
                           unit, f[0], km->unit);
                goto done;
            }
            if (!km && note_metric(j, code)) {
                r = gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
                goto done;
            }
        }
        for (int c = first; c < nf; c++) {
            int na;
            double v;
            if (csv_number(f[c], &na, &v)) {
                r = gp_err(err, GP_EINVAL, "%s: line %d: field '%s' of '%s': expected a number or N/A, got '%s'", path,
                           lineno, sec == VALUES || sec == TVALUES ? "Value" : cols[c], f[0], f[c]);
                goto done;
            }
            if (na)
                continue;
            const char *stat = (sec == VALUES || sec == TVALUES) ? "avg" : cols[c];
            int e = (sec == STATS || sec == VALUES) ? add_mval(j, code, stat, 0, v * factor)
                                                    : add_tstat(j, f[1], code, unit, stat, 0, v);
            if (e) {
                r = gp_err(err, GP_ENOMEM, "out of memory reading %s", path);
                goto done;
            }
            if (sec == VALUES && !strcmp(code, "request_throughput"))
                nvals++;
        }
    }
    if (!nvals)
        r = gp_err(err, GP_EINVAL, "%s: no 'Request Throughput (per sec)' row; this is not a complete GenAI-Perf CSV",
                   path);
done:
    free(text);
    return r;
}

/* ------------------------------------------------------------ our extras */

static int parse_run_meta(struct job *j, struct gp_error *err)
{
    const char *path = j->run_path;
    json_t *m = load_json(path, 0, err);
    if (!m)
        return -GP_EINVAL;
    int r = 0, bad = 0;
    struct opt_i gpus = {0}, tp = {0}, rep = {0}, conc = {0}, isl = {0}, osl = {0}, req = {0};
    char *model = NULL, *fw = NULL, *hw = NULL, *label = NULL, *url = NULL, *host = NULL;
    int streaming = -1;
    if (!json_is_object(m)) {
        r = gp_err(err, GP_EINVAL, "%s: expected a JSON object, got %s", path, jtype(m));
        goto done;
    }
    if ((r = opt_str(m, "model", &model, path, "model", err)) ||
        (r = opt_str(m, "framework", &fw, path, "framework", err)) ||
        (r = opt_str(m, "hardware", &hw, path, "hardware", err)) ||
        (r = opt_str(m, "scenario", &label, path, "scenario", err)) ||
        (r = opt_str(m, "url", &url, path, "url", err)) || (r = opt_str(m, "host", &host, path, "host", err)) ||
        (r = opt_int(m, "gpus", &gpus, path, "gpus", err)) || (r = opt_int(m, "tp", &tp, path, "tp", err)) ||
        (r = opt_int(m, "replicas", &rep, path, "replicas", err)) ||
        (r = opt_bool(m, "streaming", &streaming, path, "streaming", err)))
        goto done;
    const json_t *cell = opt_obj(m, "cell", path, "cell", &bad, err);
    if (bad) {
        r = -GP_EINVAL;
        goto done;
    }
    if (cell && ((r = opt_int(cell, "concurrency", &conc, path, "cell.concurrency", err)) ||
                 (r = opt_int(cell, "isl", &isl, path, "cell.isl", err)) ||
                 (r = opt_int(cell, "osl", &osl, path, "cell.osl", err)) ||
                 (r = opt_int(cell, "requests", &req, path, "cell.requests", err))))
        goto done;
    const json_t *ea = json_object_get(m, "engine_args");
    if (ea && !json_is_null(ea)) {
        free(j->engine_args);
        j->engine_args = json_is_string(ea) ? strdup(json_string_value(ea))
                                            : json_dumps(ea, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    }
    if (model)
        set_str(&j->model, model);
    if (fw)
        set_str(&j->framework, fw);
    if (hw)
        set_str(&j->hardware, hw);
    if (label && !j->label)
        set_str(&j->label, label);
    if (url)
        set_str(&j->server_url, url);
    if (host)
        set_str(&j->host, host);
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

static int parse_genperf_summary(struct job *j, struct gp_error *err)
{
    const char *path = j->genperf_path;
    json_t *m = load_json(path, 1, err);
    if (!m)
        return -GP_EINVAL;
    int r = 0;
    if (!json_is_object(m)) {
        r = gp_err(err, GP_EINVAL, "%s: expected a JSON object, got %s", path, jtype(m));
        goto done;
    }
    char *ver = NULL;
    const char *vkey = json_object_get(m, "genperf_version") ? "genperf_version" : "version";
    if ((r = opt_str(m, vkey, &ver, path, vkey, err)))
        goto done;
    if (ver) {
        free(j->producer_version);
        j->producer_version = ver;
    }
    if ((r = opt_str(m, "host", &j->host, path, "host", err)))
        goto done;
    struct opt_i s = {0}, e = {0};
    if ((r = opt_int(m, "start_wall_ns", &s, path, "start_wall_ns", err)) ||
        (r = opt_int(m, "end_wall_ns", &e, path, "end_wall_ns", err)))
        goto done;
    if (s.set && s.v > 0 && e.set && e.v >= s.v) {
        iso_from_ns(s.v, j->started_at);
        iso_from_ns(e.v, j->finished_at);
        j->duration_s.set = 1;
        j->duration_s.v = (double)(e.v - s.v) / 1e9;
    }
    /* genperf extras become metrics: inter-chunk latency stats, client load */
    const json_t *icl = json_object_get(m, "inter_chunk_latency");
    if (json_is_object(icl)) {
        const char *stat;
        const json_t *sv;
        json_object_foreach((json_t *)icl, stat, sv) {
            if (!valid_stat(stat))
                continue; /* unit, count */
            if (!json_is_number(sv) && !json_is_null(sv)) {
                r = gp_err(err, GP_EINVAL, "%s: field 'inter_chunk_latency.%s': expected a number, got %s", path,
                           stat, jtype(sv));
                goto done;
            }
            if (add_mval(j, "inter_chunk_latency", stat, json_is_null(sv), json_is_null(sv) ? 0 : json_number_value(sv)))
                goto oom;
        }
    }
    const json_t *cl = json_object_get(m, "client");
    const json_t *busy = json_is_object(cl) ? json_object_get(cl, "busy_fraction") : NULL;
    if (json_is_number(busy) && add_mval(j, "client_busy_fraction", "avg", 0, json_number_value(busy)))
        goto oom;
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

static int parse_profile_export(struct job *j, struct gp_error *err)
{
    const char *path = j->export_path;
    struct stat stt;
    if (stat(path, &stt) == 0 && stt.st_size > GP_MAX_EXPORT_BYTES) {
        j->export_skipped = 1;
        return 0;
    }
    json_t *m = load_json(path, 0, err);
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
            const json_t *ts = json_object_get(rq, "timestamp");
            const json_t *rts = json_object_get(rq, "response_timestamps");
            if (!json_is_integer(ts)) {
                r = gp_err(err, GP_EINVAL, "%s: field 'experiments[%zu].requests[%zu].timestamp': expected an integer",
                           path, e, i);
                goto done;
            }
            if (rts && !json_is_array(rts)) {
                r = gp_err(err, GP_EINVAL,
                           "%s: field 'experiments[%zu].requests[%zu].response_timestamps': expected an array", path,
                           e, i);
                goto done;
            }
            long long s = json_integer_value(ts);
            long long last = s;
            for (size_t k = 0; rts && k < json_array_size(rts); k++) {
                const json_t *x = json_array_get(rts, k);
                if (!json_is_integer(x)) {
                    r = gp_err(err, GP_EINVAL,
                               "%s: field 'experiments[%zu].requests[%zu].response_timestamps[%zu]': expected an "
                               "integer", path, e, i, k);
                    goto done;
                }
                if (json_integer_value(x) > last)
                    last = json_integer_value(x);
            }
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
        iso_from_ns(t0, j->started_at);
        iso_from_ns(t1, j->finished_at);
        j->duration_s.set = 1;
        j->duration_s.v = (double)(t1 - t0) / 1e9;
    }
    j->export_json = m;
    return 0;
done:
    json_decref(m);
    return r;
}

/* JSONL reader: one line at a time, with its number for messages. */
struct jsonl {
    FILE *fp;
    char *line;
    size_t cap;
    long lineno;
};

static int jsonl_open(struct jsonl *jl, const char *path, struct gp_error *err)
{
    memset(jl, 0, sizeof *jl);
    jl->fp = fopen(path, "r");
    if (!jl->fp)
        return gp_err(err, GP_EIO, "cannot read %s: %s", path, strerror(errno));
    return 0;
}

/* 1 = *out is the next object, 0 = end, <0 = error. Blank lines are skipped. */
static int jsonl_next(struct jsonl *jl, const char *path, json_t **out, struct gp_error *err)
{
    for (;;) {
        ssize_t n = getline(&jl->line, &jl->cap, jl->fp);
        if (n < 0)
            return 0;
        jl->lineno++;
        while (n > 0 && (jl->line[n - 1] == '\n' || jl->line[n - 1] == '\r' || jl->line[n - 1] == ' '))
            jl->line[--n] = '\0';
        if (n == 0)
            continue;
        json_error_t je;
        json_t *v = json_loadb(jl->line, (size_t)n, 0, &je);
        if (!v)
            return gp_err(err, GP_EINVAL, "%s: line %ld: not valid JSON (column %d: %s)", path, jl->lineno, je.column,
                          je.text);
        if (!json_is_object(v)) {
            json_decref(v);
            return gp_err(err, GP_EINVAL, "%s: line %ld: expected a JSON object", path, jl->lineno);
        }
        *out = v;
        return 1;
    }
}

static void jsonl_close(struct jsonl *jl)
{
    if (jl->fp)
        fclose(jl->fp);
    free(jl->line);
}

static const char *const rec_int_fields[] = {"entry", "t_start_ns", "t_end_ns", "http_status", "ttft_ns",
                                            "request_latency_ns", "isl", "osl", "osl_asked",
                                            "server_prompt_tokens", "server_completion_tokens",
                                            "content_chunks", "reasoning_tokens"};
#define N_REC_INT (sizeof rec_int_fields / sizeof rec_int_fields[0])

struct rec {
    long long index;
    struct opt_i ints[N_REC_INT];
    int failed, warmup;
    const char *error;
};

static int read_rec(const json_t *o, const char *path, long lineno, struct rec *r, struct gp_error *err)
{
    memset(r, 0, sizeof *r);
    char field[80];
    struct opt_i idx = {0};
    snprintf(field, sizeof field, "line %ld: request_index", lineno);
    if (opt_int(o, "request_index", &idx, path, field, err))
        return -GP_EINVAL;
    if (!idx.set || idx.v < 0)
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: request_index': required, a non-negative integer", path,
                      lineno);
    r->index = idx.v;
    for (size_t i = 0; i < N_REC_INT; i++) {
        snprintf(field, sizeof field, "line %ld: %s", lineno, rec_int_fields[i]);
        if (opt_int(o, rec_int_fields[i], &r->ints[i], path, field, err))
            return -GP_EINVAL;
    }
    const json_t *st = json_object_get(o, "status");
    if (!json_is_string(st) || (strcmp(json_string_value(st), "ok") && strcmp(json_string_value(st), "failed")))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: status': expected \"ok\" or \"failed\"", path, lineno);
    r->failed = !strcmp(json_string_value(st), "failed");
    snprintf(field, sizeof field, "line %ld: warmup", lineno);
    if (opt_bool(o, "warmup", &r->warmup, path, field, err))
        return -GP_EINVAL;
    const json_t *e = json_object_get(o, "error");
    if (e && !json_is_null(e) && !json_is_string(e))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: error': expected a string or null, got %s", path, lineno,
                      jtype(e));
    r->error = json_is_string(e) ? json_string_value(e) : NULL;
    return 0;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static int validate_records(struct job *j, struct gp_error *err)
{
    struct jsonl jl;
    if (jsonl_open(&jl, j->records_path, err))
        return -GP_EIO;
    long long *idx = NULL;
    size_t n = 0, cap = 0, ok = 0, failed = 0;
    int r = 0;
    json_t *o;
    while ((r = jsonl_next(&jl, j->records_path, &o, err)) == 1) {
        struct rec rc;
        r = read_rec(o, j->records_path, jl.lineno, &rc, err);
        json_decref(o);
        if (r)
            break;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            long long *ni = realloc(idx, cap * sizeof *ni);
            if (!ni) {
                r = gp_err(err, GP_ENOMEM, "out of memory reading %s", j->records_path);
                break;
            }
            idx = ni;
        }
        idx[n++] = rc.index;
        if (!rc.warmup)
            rc.failed ? failed++ : ok++;
    }
    if (r == 0 && n > 1) {
        qsort(idx, n, sizeof *idx, cmp_ll);
        for (size_t i = 1; i < n; i++)
            if (idx[i] == idx[i - 1]) {
                r = gp_err(err, GP_EINVAL, "%s: field 'request_index': %lld appears more than once", j->records_path,
                           idx[i]);
                break;
            }
    }
    free(idx);
    jsonl_close(&jl);
    if (r < 0)
        return r;
    j->n_records = n;
    j->requests_ok.set = j->requests_failed.set = 1;
    j->requests_ok.v = (long long)ok;
    j->requests_failed.v = (long long)failed;
    return 0;
}

/* 1 = a sample, 0 = a status line to skip, <0 = rejection. */
static int read_sample(const json_t *o, const char *path, long lineno, struct opt_i *t, struct opt_i *w,
                       const char **device, const char **metric, double *value, struct gp_error *err)
{
    const json_t *m = json_object_get(o, "metric"), *v = json_object_get(o, "value");
    if (json_is_string(m) && !strcmp(json_string_value(m), "unavailable"))
        return 0;
    char field[64];
    t->set = w->set = 0;
    snprintf(field, sizeof field, "line %ld: t_ns", lineno);
    if (opt_int(o, "t_ns", t, path, field, err))
        return -GP_EINVAL;
    snprintf(field, sizeof field, "line %ld: wall_ns", lineno);
    if (opt_int(o, "wall_ns", w, path, field, err))
        return -GP_EINVAL;
    if (!t->set)
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: t_ns': required, an integer (monotonic ns)", path, lineno);
    const json_t *d = json_object_get(o, "device");
    if (!json_is_string(d) || !*json_string_value(d))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: device': required, a string like \"gpu0\"", path, lineno);
    if (!json_is_string(m) || !*json_string_value(m))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: metric': required, a string like \"power_w\"", path,
                      lineno);
    if (!json_is_number(v))
        return gp_err(err, GP_EINVAL, "%s: field 'line %ld: value': expected a number, got %s", path, lineno,
                      v ? jtype(v) : "nothing");
    *device = json_string_value(d);
    *metric = json_string_value(m);
    *value = json_number_value(v);
    return 1;
}

static int validate_telemetry(struct job *j, struct gp_error *err)
{
    struct jsonl jl;
    if (jsonl_open(&jl, j->telemetry_path, err))
        return -GP_EIO;
    int r;
    size_t n = 0;
    json_t *o;
    while ((r = jsonl_next(&jl, j->telemetry_path, &o, err)) == 1) {
        struct opt_i t, w;
        const char *d, *m;
        double v;
        r = read_sample(o, j->telemetry_path, jl.lineno, &t, &w, &d, &m, &v, err);
        json_decref(o);
        if (r < 0)
            break;
        n += (size_t)r;
        r = 0;
    }
    jsonl_close(&jl);
    if (r < 0)
        return r;
    j->n_samples = n;
    return 0;
}

/* ---------------------------------------------------------- DB writing */

/* Multi-row INSERT: one statement per `max_rows` rows keeps round trips to
 * PostgreSQL (and statement preparation in SQLite) off the per-row path. */
struct batch {
    struct gp_db *db;
    const char *head;   /* "INSERT INTO t (a, b, c) VALUES " */
    int ncols, rows, max_rows;
    const char **params;
    char (*num)[40];
    json_t **keep;      /* lines whose strings params point into */
    struct gp_buf sql;
    size_t total;
};

static int batch_init(struct batch *b, struct gp_db *db, const char *head, int ncols, int max_rows)
{
    memset(b, 0, sizeof *b);
    b->db = db, b->head = head, b->ncols = ncols, b->max_rows = max_rows;
    b->params = calloc((size_t)ncols * (size_t)max_rows, sizeof *b->params);
    b->num = calloc((size_t)ncols * (size_t)max_rows, sizeof *b->num);
    b->keep = calloc((size_t)max_rows, sizeof *b->keep);
    return b->params && b->num && b->keep ? 0 : -GP_ENOMEM;
}

static int batch_flush(struct batch *b, struct gp_error *err)
{
    if (!b->rows)
        return 0;
    gp_buf_reset(&b->sql);
    gp_buf_puts(&b->sql, b->head);
    for (int r = 0; r < b->rows; r++) {
        gp_buf_puts(&b->sql, r ? ",(" : "(");
        for (int c = 0; c < b->ncols; c++)
            gp_buf_puts(&b->sql, c ? ",?" : "?");
        gp_buf_putc(&b->sql, ')');
    }
    int rc = b->sql.data ? gp_db_query(b->db, b->sql.data, b->params, b->rows * b->ncols, NULL, NULL, err)
                         : gp_err(err, GP_ENOMEM, "out of memory building an INSERT");
    for (int r = 0; r < b->rows; r++)
        if (b->keep[r]) {
            json_decref(b->keep[r]);
            b->keep[r] = NULL;
        }
    b->total += (size_t)b->rows;
    b->rows = 0;
    return rc;
}

/* The slot for column c of the row being filled. */
static const char **bcell(struct batch *b, int c)
{
    return &b->params[b->rows * b->ncols + c];
}
static void bset_int(struct batch *b, int c, const struct opt_i *v)
{
    char *s = b->num[b->rows * b->ncols + c];
    if (v->set) {
        snprintf(s, 40, "%lld", v->v);
        *bcell(b, c) = s;
    } else {
        *bcell(b, c) = NULL;
    }
}
static void bset_ll(struct batch *b, int c, long long v)
{
    struct opt_i o = {1, v};
    bset_int(b, c, &o);
}
static void bset_dbl(struct batch *b, int c, int isnull, double v)
{
    char *s = b->num[b->rows * b->ncols + c];
    if (isnull || !isfinite(v)) {
        *bcell(b, c) = NULL;
        return;
    }
    gp_db_format_double(v, s, 40);
    *bcell(b, c) = s;
}
static int batch_row_done(struct batch *b, json_t *keep, struct gp_error *err)
{
    b->keep[b->rows] = keep;
    b->rows++;
    return b->rows == b->max_rows ? batch_flush(b, err) : 0;
}

static void batch_free(struct batch *b)
{
    for (int r = 0; b->keep && r < b->rows; r++)
        if (b->keep[r])
            json_decref(b->keep[r]);
    free(b->params);
    free(b->num);
    free(b->keep);
    gp_buf_free(&b->sql);
}

static int first_cb(void *ctx, int ncols, const char *const *names, const char *const *values)
{
    (void)names;
    if (ncols > 0 && values[0])
        *(long long *)ctx = strtoll(values[0], NULL, 10);
    return 1;
}

static int insert_records(struct gp_db *db, struct job *j, long long job_id, struct gp_error *err)
{
    struct batch b;
    int r = batch_init(&b, db,
                       "INSERT INTO requests (job_id, request_index, status, warmup, error, entry, t_start_ns, "
                       "t_end_ns, http_status, ttft_ns, request_latency_ns, isl, osl, osl_asked, "
                       "server_prompt_tokens, server_completion_tokens, content_chunks, reasoning_tokens) VALUES ",
                       18, 100);
    if (r) {
        batch_free(&b);
        return gp_err(err, GP_ENOMEM, "out of memory inserting records");
    }
    if (j->records_path[0]) {
        struct jsonl jl;
        if ((r = jsonl_open(&jl, j->records_path, err))) {
            batch_free(&b);
            return r;
        }
        json_t *o;
        while ((r = jsonl_next(&jl, j->records_path, &o, err)) == 1) {
            struct rec rc;
            if ((r = read_rec(o, j->records_path, jl.lineno, &rc, err))) {
                json_decref(o);
                break;
            }
            bset_ll(&b, 0, job_id);
            bset_ll(&b, 1, rc.index);
            *bcell(&b, 2) = rc.failed ? "failed" : "ok";
            *bcell(&b, 3) = rc.warmup ? "1" : "0";
            *bcell(&b, 4) = rc.error;
            for (size_t i = 0; i < N_REC_INT; i++)
                bset_int(&b, 5 + (int)i, &rc.ints[i]);
            if ((r = batch_row_done(&b, o, err)))
                break;
        }
        jsonl_close(&jl);
    } else if (j->export_json) {
        /* GenAI-Perf run: request timing from perf_analyzer's export */
        const json_t *ex = json_object_get(j->export_json, "experiments");
        long long index = 0;
        for (size_t e = 0; r == 0 && e < json_array_size(ex); e++) {
            const json_t *reqs = json_object_get(json_array_get(ex, e), "requests");
            for (size_t i = 0; r == 0 && i < json_array_size(reqs); i++) {
                const json_t *rq = json_array_get(reqs, i);
                long long s = json_integer_value(json_object_get(rq, "timestamp")), last = s;
                const json_t *rts = json_object_get(rq, "response_timestamps");
                for (size_t k = 0; k < json_array_size(rts); k++)
                    if (json_integer_value(json_array_get(rts, k)) > last)
                        last = json_integer_value(json_array_get(rts, k));
                for (int c = 0; c < 18; c++)
                    *bcell(&b, c) = NULL;
                bset_ll(&b, 0, job_id);
                bset_ll(&b, 1, index++);
                *bcell(&b, 2) = "ok";
                *bcell(&b, 3) = "0";
                bset_ll(&b, 6, s);
                bset_ll(&b, 7, last);
                r = batch_row_done(&b, NULL, err);
            }
        }
        j->n_records = (size_t)index;
    }
    if (r >= 0)
        r = batch_flush(&b, err);
    batch_free(&b);
    return r < 0 ? r : 0;
}

static int insert_samples(struct gp_db *db, struct job *j, long long job_id, struct gp_error *err)
{
    if (!j->telemetry_path[0])
        return 0;
    struct batch b;
    int r = batch_init(&b, db, "INSERT INTO telemetry_samples (job_id, t_ns, wall_ns, device, metric, value) VALUES ",
                       6, 200);
    struct jsonl jl;
    if (r || (r = jsonl_open(&jl, j->telemetry_path, err))) {
        batch_free(&b);
        return r ? r : gp_err(err, GP_ENOMEM, "out of memory inserting telemetry");
    }
    json_t *o;
    while ((r = jsonl_next(&jl, j->telemetry_path, &o, err)) == 1) {
        struct opt_i t, w;
        const char *d, *m;
        double v;
        r = read_sample(o, j->telemetry_path, jl.lineno, &t, &w, &d, &m, &v, err);
        if (r <= 0) {
            json_decref(o);
            if (r < 0)
                break;
            continue;
        }
        bset_ll(&b, 0, job_id);
        bset_int(&b, 1, &t);
        bset_int(&b, 2, &w);
        *bcell(&b, 3) = d;
        *bcell(&b, 4) = m;
        bset_dbl(&b, 5, 0, v);
        if ((r = batch_row_done(&b, o, err)))
            break;
    }
    jsonl_close(&jl);
    if (r >= 0)
        r = batch_flush(&b, err);
    batch_free(&b);
    return r < 0 ? r : 0;
}

static void num_param(char *buf, size_t sz, const struct opt_i *o, const char **p)
{
    if (o->set) {
        snprintf(buf, sz, "%lld", o->v);
        *p = buf;
    } else {
        *p = NULL;
    }
}

static void scenario_key(const struct job *j, char out[65])
{
    struct gp_buf b = {0};
    const char *s[] = {j->model, j->framework, j->engine_args, j->hardware, j->endpoint, j->endpoint_type};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        gp_buf_puts(&b, s[i] ? s[i] : "\x01");
        gp_buf_putc(&b, '\x1f');
    }
    const struct opt_i *n[] = {&j->gpu_count, &j->tp, &j->replicas, &j->concurrency, &j->isl,
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
    iso_from_ns((long long)ts.tv_sec * 1000000000LL + ts.tv_nsec, out);
}

static void test_sleep(void)
{
    const char *s = getenv("GENPERF_TEST_INGEST_SLEEP_MS");
    long ms = s ? strtol(s, NULL, 10) : 0;
    if (ms > 0) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* Returns the new job id (> 0), 0 when a concurrent ingest won the race
 * (*existing set), or < 0. */
static long long write_job(struct gp_db *db, struct job *j, long long *existing, struct gp_error *err)
{
    int r;
    if ((r = gp_db_begin(db, err)))
        return r;
    char key[65];
    scenario_key(j, key);
    char b_gpu[32], b_tp[32], b_rep[32], b_conc[32], b_rate[40], b_isl[32], b_osl[32], b_cnt[32], b_seed[32];
    const char *sp[18];
    sp[0] = key;
    sp[1] = j->model;
    sp[2] = j->framework;
    sp[3] = j->engine_args;
    sp[4] = j->hardware;
    num_param(b_gpu, sizeof b_gpu, &j->gpu_count, &sp[5]);
    num_param(b_tp, sizeof b_tp, &j->tp, &sp[6]);
    num_param(b_rep, sizeof b_rep, &j->replicas, &sp[7]);
    num_param(b_conc, sizeof b_conc, &j->concurrency, &sp[8]);
    if (j->request_rate.set) {
        gp_db_format_double(j->request_rate.v, b_rate, sizeof b_rate);
        sp[9] = b_rate;
    } else {
        sp[9] = NULL;
    }
    num_param(b_isl, sizeof b_isl, &j->isl, &sp[10]);
    num_param(b_osl, sizeof b_osl, &j->osl, &sp[11]);
    num_param(b_cnt, sizeof b_cnt, &j->request_count, &sp[12]);
    sp[13] = j->streaming ? "1" : "0";
    num_param(b_seed, sizeof b_seed, &j->seed, &sp[14]);
    sp[15] = j->endpoint;
    sp[16] = j->endpoint_type;
    long long scen = 0, job_id = 0;
    if ((r = gp_db_query(db,
                         "INSERT INTO scenarios (scenario_key, model, framework, engine_args, hardware, gpu_count, "
                         "tp, replicas, concurrency, request_rate, isl, osl, request_count, streaming, seed, "
                         "endpoint, endpoint_type) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                         "ON CONFLICT (scenario_key) DO NOTHING",
                         sp, 17, NULL, NULL, err)) ||
        (r = gp_db_query(db, "SELECT id FROM scenarios WHERE scenario_key = ?", sp, 1, first_cb, &scen, err)))
        goto fail;
    if (scen <= 0) {
        r = gp_err(err, GP_EDB, "scenario row for %s vanished during ingest", j->main_path);
        goto fail;
    }
    for (size_t i = 0; i < j->nnew; i++) {
        const char *code = j->new_metrics[i];
        char disp[128];
        size_t k = 0;
        for (const char *p = code; *p && k + 1 < sizeof disp; p++, k++)
            disp[k] = *p == '_' ? ' ' : (p == code || p[-1] == '_') ? (char)toupper((unsigned char)*p) : *p;
        disp[k] = '\0';
        const char *better = strstr(code, "throughput") || strstr(code, "goodput") ? "higher" : "lower";
        const char *tp[] = {code, disp, better};
        if ((r = gp_db_query(db,
                             "INSERT INTO metric_templates (code, display_name, unit, better, category, sort_order) "
                             "VALUES (?, ?, NULL, ?, 'other', 1000) ON CONFLICT (code) DO NOTHING",
                             tp, 3, NULL, NULL, err)))
            goto fail;
    }
    char scen_s[32], ing[40], dur[40], okb[32], fb[32];
    snprintf(scen_s, sizeof scen_s, "%lld", scen);
    now_iso(ing);
    const char *status = "completed";
    if (j->requests_failed.set && j->requests_failed.v > 0)
        status = j->requests_ok.set && j->requests_ok.v == 0 ? "failed" : "completed_with_errors";
    const char *jp[21];
    jp[0] = j->sha;
    jp[1] = scen_s;
    jp[2] = j->tool_version;
    jp[3] = j->producer;
    jp[4] = j->producer_version;
    jp[5] = j->label;
    jp[6] = status;
    jp[7] = j->started_at[0] ? j->started_at : NULL;
    jp[8] = j->finished_at[0] ? j->finished_at : NULL;
    if (j->duration_s.set) {
        gp_db_format_double(j->duration_s.v, dur, sizeof dur);
        jp[9] = dur;
    } else {
        jp[9] = NULL;
    }
    jp[10] = j->host;
    jp[11] = j->server_url;
    num_param(okb, sizeof okb, &j->requests_ok, &jp[12]);
    num_param(fb, sizeof fb, &j->requests_failed, &jp[13]);
    jp[14] = j->dir;
    jp[15] = j->main_path;
    jp[16] = j->input_config;
    jp[17] = j->goodput;
    jp[18] = j->genperf_summary;
    jp[19] = ing;
    if ((r = gp_db_query(db,
                         "INSERT INTO jobs (artifact_sha256, scenario_id, tool_version, producer, producer_version, "
                         "label, status, started_at, finished_at, duration_s, host, server_url, requests_ok, "
                         "requests_failed, artifact_dir, artifact_file, input_config, goodput_slos, "
                         "genperf_summary, ingested_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                         "ON CONFLICT (artifact_sha256) DO NOTHING RETURNING id",
                         jp, 20, first_cb, &job_id, err)))
        goto fail;
    if (job_id <= 0) {
        /* a concurrent ingest committed this artifact first */
        gp_db_rollback(db);
        const char *hp[] = {j->sha};
        *existing = 0;
        if ((r = gp_db_query(db, "SELECT id FROM jobs WHERE artifact_sha256 = ?", hp, 1, first_cb, existing, err)))
            return r;
        return 0;
    }
    struct batch b;
    if (batch_init(&b, db, "INSERT INTO metric_values (job_id, metric_code, stat, value) VALUES ", 4, 100)) {
        batch_free(&b);
        r = gp_err(err, GP_ENOMEM, "out of memory inserting metrics");
        goto fail;
    }
    for (size_t i = 0; i < j->nmv && r == 0; i++) {
        bset_ll(&b, 0, job_id);
        *bcell(&b, 1) = j->mv[i].metric;
        *bcell(&b, 2) = j->mv[i].stat;
        bset_dbl(&b, 3, j->mv[i].isnull, j->mv[i].v);
        r = batch_row_done(&b, NULL, err);
    }
    if (r == 0 && j->requests_failed.set) {
        bset_ll(&b, 0, job_id);
        *bcell(&b, 1) = "failed_request_count";
        *bcell(&b, 2) = "avg";
        bset_dbl(&b, 3, 0, (double)j->requests_failed.v);
        r = batch_row_done(&b, NULL, err);
    }
    if (r == 0)
        r = batch_flush(&b, err);
    batch_free(&b);
    if (r)
        goto fail;
    if (batch_init(&b, db, "INSERT INTO telemetry_stats (job_id, device, metric, unit, stat, value) VALUES ", 6,
                   100)) {
        batch_free(&b);
        r = gp_err(err, GP_ENOMEM, "out of memory inserting telemetry stats");
        goto fail;
    }
    for (size_t i = 0; i < j->nts && r == 0; i++) {
        bset_ll(&b, 0, job_id);
        *bcell(&b, 1) = j->ts[i].device;
        *bcell(&b, 2) = j->ts[i].metric;
        *bcell(&b, 3) = j->ts[i].unit[0] ? j->ts[i].unit : NULL;
        *bcell(&b, 4) = j->ts[i].stat;
        bset_dbl(&b, 5, j->ts[i].isnull, j->ts[i].v);
        r = batch_row_done(&b, NULL, err);
    }
    if (r == 0)
        r = batch_flush(&b, err);
    batch_free(&b);
    if (r)
        goto fail;
    test_sleep(); /* test hook: a kill -9 here must leave no trace of the job */
    if ((r = insert_records(db, j, job_id, err)) || (r = insert_samples(db, j, job_id, err)))
        goto fail;
    if ((r = gp_db_commit(db, err)))
        goto fail;
    return job_id;
fail:
    gp_db_rollback(db);
    return r < 0 ? r : -GP_EDB;
}

/* ------------------------------------------------------- discovery */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void sibling(const struct job *j, const char *suffix, char *out, size_t outsz)
{
    snprintf(out, outsz, "%s/%s%s", j->dir, j->stem, suffix);
    if (!gp_is_file(out))
        out[0] = '\0';
}

/* When nothing says which model or stimulus, GenAI-Perf's run directory name
 * does: <model>-openai-chat-concurrency4. */
static void from_dir_name(struct job *j)
{
    const char *b = base_name(j->dir);
    const char *svc = strstr(b, "-openai-");
    if (!svc)
        svc = strstr(b, "-triton-");
    if (!j->model && svc && svc > b) {
        j->model = strndup(b, (size_t)(svc - b));
    }
    const char *c = strstr(b, "-concurrency");
    if (!j->concurrency.set && !j->request_rate.set && c) {
        char *end;
        long long v = strtoll(c + strlen("-concurrency"), &end, 10);
        if (!*end && v > 0)
            j->concurrency.set = 1, j->concurrency.v = v;
    }
    const char *rr = strstr(b, "-request_rate");
    if (!j->concurrency.set && !j->request_rate.set && rr) {
        char *end;
        double v = strtod(rr + strlen("-request_rate"), &end);
        if (!*end && v > 0)
            j->request_rate.set = 1, j->request_rate.v = v;
    }
}

static void apply_meta(struct job *j, const struct gp_ingest_meta *m)
{
    if (!m)
        return;
    if (m->label)
        set_str(&j->label, m->label);
    if (m->model)
        set_str(&j->model, m->model);
    if (m->framework)
        set_str(&j->framework, m->framework);
    if (m->engine_args)
        set_str(&j->engine_args, m->engine_args);
    if (m->hardware)
        set_str(&j->hardware, m->hardware);
    if (m->host)
        set_str(&j->host, m->host);
    if (m->tool_version)
        set_str(&j->tool_version, m->tool_version);
    if (m->gpu_count > 0)
        j->gpu_count.set = 1, j->gpu_count.v = m->gpu_count;
    if (m->tp > 0)
        j->tp.set = 1, j->tp.v = m->tp;
    if (m->replicas > 0)
        j->replicas.set = 1, j->replicas.v = m->replicas;
    if (m->concurrency > 0)
        j->concurrency.set = 1, j->concurrency.v = m->concurrency, j->request_rate.set = 0;
    if (m->isl > 0)
        j->isl.set = 1, j->isl.v = m->isl;
    if (m->osl > 0)
        j->osl.set = 1, j->osl.v = m->osl;
    if (m->request_count > 0)
        j->request_count.set = 1, j->request_count.v = m->request_count;
    if (m->streaming >= 0)
        j->streaming = m->streaming;
}

static void find_run_meta(struct job *j, const char *top)
{
    char d[4096];
    snprintf(d, sizeof d, "%s", j->dir);
    size_t toplen = strlen(top);
    while (toplen > 1 && top[toplen - 1] == '/')
        toplen--;
    for (;;) {
        snprintf(j->run_path, sizeof j->run_path, "%s/genperf_run.json", d);
        if (gp_is_file(j->run_path))
            return;
        char *s = strrchr(d, '/');
        if (!s || strlen(d) <= toplen)
            break;
        *s = '\0';
    }
    j->run_path[0] = '\0';
}

static void msg(struct gp_ingest_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void msg(struct gp_ingest_result *res, const char *fmt, ...)
{
    char line[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    gp_buf_puts(&res->messages, line);
    gp_buf_putc(&res->messages, '\n');
}

static int ingest_one(struct gp_db *db, const char *top, const char *dir, const char *stem, int is_csv,
                      const struct gp_ingest_meta *meta, struct gp_ingest_result *res, struct gp_error *err)
{
    struct job j;
    memset(&j, 0, sizeof j);
    snprintf(j.dir, sizeof j.dir, "%s", dir);
    snprintf(j.stem, sizeof j.stem, "%s", stem);
    snprintf(j.main_path, sizeof j.main_path, "%s/%s_genai_perf.%s", dir, stem, is_csv ? "csv" : "json");
    j.main_is_csv = is_csv;
    res->jobs_found++;
    int r;
    char *bytes = NULL;
    size_t len = 0;
    if ((r = gp_read_file(j.main_path, &bytes, &len, err)))
        goto out;
    gp_sha256_hex(bytes, len, j.sha);
    free(bytes);

    sibling(&j, ".json", j.export_path, sizeof j.export_path);
    sibling(&j, "_records.jsonl", j.records_path, sizeof j.records_path);
    sibling(&j, "_genperf.json", j.genperf_path, sizeof j.genperf_path);
    sibling(&j, "_telemetry.jsonl", j.telemetry_path, sizeof j.telemetry_path);
    find_run_meta(&j, top);

    j.producer = (j.genperf_path[0] || j.records_path[0]) ? "genperf" : "genai-perf";
    if (!strcmp(j.producer, "genperf")) {
        set_str(&j.tool_version, GP_GENAI_PERF_COMPAT_VERSION);
        set_str(&j.producer_version, GP_VERSION);
    }
    if ((r = is_csv ? parse_genai_perf_csv(&j, err) : parse_genai_perf_json(&j, err)))
        goto out;
    if (j.genperf_path[0] && (r = parse_genperf_summary(&j, err)))
        goto out;
    if (j.export_path[0] && (r = parse_profile_export(&j, err)))
        goto out;
    if (j.records_path[0] && (r = validate_records(&j, err)))
        goto out;
    if (j.telemetry_path[0] && (r = validate_telemetry(&j, err)))
        goto out;
    if (j.run_path[0] && (r = parse_run_meta(&j, err)))
        goto out;
    from_dir_name(&j);
    apply_meta(&j, meta);
    if (!j.model) {
        r = gp_err(err, GP_EINVAL,
                   "%s: no model name (no input_config.model_names, no genperf_run.json, run directory not named "
                   "<model>-openai-...); pass --model NAME",
                   j.main_path);
        goto out;
    }
    if (!j.finished_at[0]) {
        struct stat st;
        if (stat(j.main_path, &st) == 0)
            iso_from_ns((long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, j.finished_at);
    }
    if (!j.requests_ok.set) {
        for (size_t i = 0; i < j.nmv; i++)
            if (!strcmp(j.mv[i].metric, "request_count") && !strcmp(j.mv[i].stat, "avg") && !j.mv[i].isnull)
                j.requests_ok.set = 1, j.requests_ok.v = (long long)j.mv[i].v;
    }

    long long existing = 0;
    const char *hp[] = {j.sha};
    if ((r = gp_db_query(db, "SELECT id FROM jobs WHERE artifact_sha256 = ?", hp, 1, first_cb, &existing, err)))
        goto out;
    if (existing <= 0 && meta && meta->validate_only) {
        res->jobs_added++;
        msg(res, "%s: valid (%s, model %s): %zu metric values, %zu requests, %zu telemetry samples; not written (--check)",
            j.main_path, j.producer, j.model, j.nmv + (j.requests_failed.set ? 1 : 0),
            j.n_records ? j.n_records : j.n_export_requests, j.n_samples);
        goto out;
    }
    if (existing <= 0) {
        long long id = write_job(db, &j, &existing, err);
        if (id < 0) {
            r = (int)id;
            goto out;
        }
        if (id > 0) {
            res->jobs_added++;
            res->last_job_id = id;
            msg(res, "job %lld: ingested %s (%s, model %s): %zu metric values, %zu requests, %zu telemetry samples%s",
                id, j.main_path, j.producer, j.model, j.nmv + (j.requests_failed.set ? 1 : 0), j.n_records,
                j.n_samples, j.export_skipped ? " (profile export over 256 MiB: its per-request timing was skipped)" : "");
            goto out;
        }
    }
    res->jobs_existing++;
    res->last_job_id = existing;
    msg(res, "%s: already ingested as job %lld, nothing changed", j.main_path, existing);
out:
    if (r) {
        res->jobs_rejected++;
        msg(res, "rejected: %s", err ? err->msg : "error");
    }
    job_free(&j);
    return r;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n > m && !strcmp(s + n - m, suf);
}

static int walk(struct gp_db *db, const char *top, const char *dir, int depth, const struct gp_ingest_meta *meta,
                struct gp_ingest_result *res, int *first_err, struct gp_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (depth == 0)
            return gp_err(err, GP_EIO, "cannot read directory %s: %s", dir, strerror(errno));
        if (!*first_err) {
            *first_err = 1;
            gp_err(err, GP_EIO, "cannot read directory %s: %s", dir, strerror(errno));
        }
        res->jobs_rejected++;
        msg(res, "rejected: cannot read directory %s: %s", dir, strerror(errno));
        return 0;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    struct gp_error jerr;
    for (size_t i = 0; i < n; i++) {
        const char *nm = names[i];
        int is_json = ends_with(nm, "_genai_perf.json"), is_csv = ends_with(nm, "_genai_perf.csv");
        if (!is_json && !is_csv)
            continue;
        if (!strcmp(nm, "analyze_export_genai_perf.csv")) {
            /* `genai-perf analyze` summary: its runs have their own directories */
            msg(res, "%s/%s: skipped (a sweep summary; its runs are ingested from their own directories)", dir, nm);
            continue;
        }
        size_t stemlen = strlen(nm) - strlen(is_json ? "_genai_perf.json" : "_genai_perf.csv");
        char stem[1024];
        snprintf(stem, sizeof stem, "%.*s", (int)stemlen, nm);
        if (is_csv) {
            /* the JSON wins when both exist */
            char jp[4200];
            snprintf(jp, sizeof jp, "%s/%s_genai_perf.json", dir, stem);
            if (gp_is_file(jp))
                continue;
        }
        gp_err_clear(&jerr);
        if (ingest_one(db, top, dir, stem, is_csv, meta, res, &jerr) && !*first_err) {
            *first_err = 1;
            if (err)
                *err = jerr;
        }
    }
    /* run directories can sit next to (and below) a job's files: always descend */
    if (depth < MAX_DEPTH) {
        for (size_t i = 0; i < n; i++) {
            char sub[4096];
            if (gp_path_join(sub, sizeof sub, dir, names[i]) || !gp_is_dir(sub))
                continue;
            /* the first rejection inside is reported through err directly */
            walk(db, top, sub, depth + 1, meta, res, first_err, err);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return 0;
}

int gp_store_ingest_dir(struct gp_db *db, const char *dir, const struct gp_ingest_meta *meta,
                        struct gp_ingest_result *res, struct gp_error *err)
{
    if (!gp_is_dir(dir))
        return gp_err(err, GP_ENOENT, "%s is not a directory; pass a GenAI-Perf run directory or an artifact tree",
                      dir);
    char d[4096];
    snprintf(d, sizeof d, "%s", dir);
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    size_t before = res->jobs_found;
    int first_err = 0;
    int r = walk(db, d, d, 0, meta, res, &first_err, err);
    if (r)
        return r;
    if (first_err)
        return -(err && err->code ? err->code : GP_EINVAL);
    if (res->jobs_found == before)
        return gp_err(err, GP_ENOENT,
                      "%s: no *_genai_perf.json or *_genai_perf.csv found (searched %d levels deep); is this an "
                      "artifact directory?",
                      dir, MAX_DEPTH);
    return 0;
}

void gp_ingest_result_free(struct gp_ingest_result *res)
{
    gp_buf_free(&res->messages);
}
