/* profile/profile_config.c — struct profile_config: defaults, GenAI-Perf's
 * typing of --extra-inputs and --goodput values, the run directory name and
 * the stimulus. The input_config object is built in profile_input_config.c;
 * the flag table and parser are in profile_args.c.
 * See profile_config.h for ownership.
 */
#include "profile/profile_config.h"
#include "profile/profile_int.h"

#include "core/pytext.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/redact.h"
#include "export/export.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* GenAI-Perf reports these as config errors (exit 1): usage_error stays 0. */
int gp_profile_config_err(struct profile_config *cfg, struct gp_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gp_verr(err, code, fmt, ap);
    va_end(ap);
    cfg->usage_error = 0;
    return -code;
}

/* argparse reports these as usage errors (exit 2, the usage block printed):
 * cfg->usage_error = 1. */
int gp_profile_usage_err(struct profile_config *cfg, struct gp_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gp_verr(err, GP_EINVAL, fmt, ap);
    va_end(ap);
    cfg->usage_error = 1;
    return -GP_EINVAL;
}

void gp_profile_config_init(struct profile_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->endpoint_type = GP_ENDPOINT_CHAT;
    cfg->url = "localhost:8000";
    cfg->tokenizer_revision = "main";
    cfg->isl_mean = 550;
    cfg->osl_mean = -1;
    cfg->num_entries = 100;
    cfg->concurrency = 1;
    cfg->profile_export_file = "profile_export.json";
    cfg->artifact_dir = "artifacts";
    cfg->stability = 999;
    cfg->batch_size = 1;
    cfg->prefix_prompt_length = 100;
    cfg->checkpoint_dir = "checkpoint";
    cfg->request_timeout_s = 600;
    cfg->telemetry_interval_s = 1.0;
    cfg->endpoint_type_name = "chat";
    cfg->batch_size_image = 1;
    cfg->batch_size_audio = 1;
    cfg->audio_num_channels = 1;
    cfg->max_response_bytes = 64L << 20;
    cfg->max_failure_rate = -1;
    cfg->num_runs = 1;
    cfg->cv_warn = 0.1;
    cfg->workers = 1;
    gp_session_opts_default(&cfg->sessions);
    cfg->burstiness = 1.0;
    cfg->trace_speedup = 1.0;
}

void gp_profile_config_free(struct profile_config *cfg)
{
    free(cfg->models);
    free(cfg->model_weights);
    free(cfg->headers);
    free(cfg->slos);
    free(cfg->metrics_urls);
    free(cfg->urls);
    free(cfg->urls_given);
    free(cfg->redact_names);
    free(cfg->audio_depths);
    free(cfg->audio_sample_rates);
    free(cfg->auth_header);
    for (size_t i = 0; i < cfg->n_secret_copies; i++)
        free(cfg->secret_copies[i]);
    free(cfg->secret_copies);
    if (cfg->extra_inputs)
        json_decref(cfg->extra_inputs);
    json_decref(cfg->extra_numeric_strings);
    memset(cfg, 0, sizeof *cfg);
}

/* argparse's int() and float() (profile_config.h): both here, below the parser
 * (profile_args.c) and the hooks (profile_media.c) that call them. Python's
 * int() and float() allow blanks around the number, not an empty string. */
static const char *skip_blanks(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

int gp_profile_parse_long(const char *s, long *out)
{
    char *end;
    s = skip_blanks(s);
    if (!*s)
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*skip_blanks(end) || errno)
        return -1;
    *out = v;
    return 0;
}

int gp_profile_parse_double(const char *s, double *out)
{
    char *end;
    s = skip_blanks(s);
    if (!*s)
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (*skip_blanks(end) || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

/* GenAI-Perf's --extra-inputs typing (common.py:60-104). */
int gp_profile_add_extra_input(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    if (!cfg->extra_inputs && !(cfg->extra_inputs = json_object()))
        return -GP_ENOMEM;
    const char *hint = "Expected input format: 'input_name' or 'input_name:value'";
    if (s[0] == '{') {
        json_error_t je;
        /* A repeated key would silently keep its last value; --input-file
         * rows refuse it, and so does this. */
        json_t *obj = json_loads(s, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
        if (!obj || !json_is_object(obj)) {
            if (obj)
                json_decref(obj);
            return gp_profile_config_err(cfg, err, GP_EINVAL,
                              "--extra-inputs %s: not a valid JSON object (%s); %s", s, gp_json_why(je.text),
                              strstr(je.text, "duplicate") ? "give each key once"
                                                           : "pass a JSON object or name:value");
        }
        const char *k;
        json_t *v;
        json_object_foreach(obj, k, v) {
            if (json_object_get(cfg->extra_inputs, k)) {
                /* k belongs to obj: format the message before obj goes. */
                int rc = gp_profile_config_err(cfg, err, GP_EINVAL,
                                               "Input name already exists in request_inputs dictionary: %s", k);
                json_decref(obj);
                return rc;
            }
            json_object_set(cfg->extra_inputs, k, v);
        }
        json_decref(obj);
        return 0;
    }
    const char *colon = strchr(s, ':');
    char name[256];
    json_t *val;
    if (!colon) {
        if (!*s)
            return gp_profile_config_err(cfg, err, GP_EINVAL, "Input name or value is empty in --extra-inputs: %s\n%s", s, hint);
        snprintf(name, sizeof name, "%s", s);
        val = json_null();
    } else {
        if (strchr(colon + 1, ':'))
            return gp_profile_config_err(cfg, err, GP_EINVAL, "Invalid input format for --extra-inputs: %s\n%s", s, hint);
        size_t nl = (size_t)(colon - s);
        const char *v = colon + 1;
        if (nl == 0 || !*v)
            return gp_profile_config_err(cfg, err, GP_EINVAL, "Input name or value is empty in --extra-inputs: %s\n%s", s, hint);
        if (nl >= sizeof name)
            nl = sizeof name - 1;
        memcpy(name, s, nl);
        name[nl] = '\0';
        int alldig = 1, ndot = 0, ndig = 0;
        for (const char *c = v; *c; c++) {
            if (isdigit((unsigned char)*c))
                ndig++;
            else if (*c == '.')
                ndot++;
            else
                alldig = 0;
        }
        if (!strcasecmp(v, "true"))
            val = json_true();
        else if (!strcasecmp(v, "false"))
            val = json_false();
        else if (alldig && (ndot == 0 || (ndot == 1 && ndig > 0))) {
            /* Python sends any integer; one beyond int64 (or a float beyond
             * double) cannot be sent as written, and clamping it sends
             * another number than the user asked for. */
            errno = 0;
            if (ndot == 0)
                val = json_integer(strtoll(v, NULL, 10));
            else
                val = json_real(strtod(v, NULL));
            if (errno == ERANGE || !val) {
                json_decref(val);
                return gp_profile_config_err(cfg, err, GP_EINVAL,
                                             "--extra-inputs %s: the number is out of range (integers up to "
                                             "9223372036854775807); pass a smaller value, or a JSON string",
                                             s);
            }
        } else {
            val = json_string(v);
            /* GenAI-Perf types only plain digits: 1e23 or -1 go out as
             * strings. Keep its bytes, but remember to say so. */
            char *end = NULL;
            (void)strtod(v, &end);
            if (val && end != v && !*end) {
                if (!cfg->extra_numeric_strings && !(cfg->extra_numeric_strings = json_array())) {
                    json_decref(val);
                    return -GP_ENOMEM;
                }
                json_array_append_new(cfg->extra_numeric_strings, json_string(s));
            }
        }
    }
    if (json_object_get(cfg->extra_inputs, name)) {
        json_decref(val);
        return gp_profile_config_err(cfg, err, GP_EINVAL, "Input name already exists in request_inputs dictionary: %s", name);
    }
    json_object_set_new(cfg->extra_inputs, name, val);
    return 0;
}

void gp_profile_extra_input_notes(FILE *out, const struct profile_config *cfg)
{
    size_t i;
    json_t *v;
    json_array_foreach(cfg->extra_numeric_strings, i, v) {
        const char *s = json_string_value(v);
        const char *colon = s ? strchr(s, ':') : NULL;
        if (!colon)
            continue;
        fprintf(out,
                "genperf: warning: --extra-inputs %s: %s goes out as the JSON string \"%s\", not a number (GenAI-Perf "
                "types only plain digits as numbers); for a number pass '{\"%.*s\": %s}'\n",
                s, colon + 1, colon + 1, (int)(colon - s), s, colon + 1);
    }
}

static int add_goodput_term(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    const char *colon = strchr(s, ':');
    double v;
    if (!colon || colon == s || strchr(colon + 1, ':') || gp_profile_parse_double(colon + 1, &v) < 0 ||
        (size_t)(colon - s) >= sizeof cfg->slos[0].namebuf)
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                          "Invalid format found for goodput constraints. The expected format is 'key:value' pairs. The "
                          "key should be a service level objective name (e.g. request_latency). The value should be a "
                          "number representing either milliseconds or a throughput value per second.");
    struct profile_slo *ns = realloc(cfg->slos, (cfg->n_slos + 1) * sizeof *ns);
    if (!ns)
        return -GP_ENOMEM;
    cfg->slos = ns;
    struct profile_slo *slo = &ns[cfg->n_slos++];
    memcpy(slo->namebuf, s, (size_t)(colon - s));
    slo->namebuf[colon - s] = '\0';
    slo->value = v;
    if (v < 0) {
        char r[64];
        gp_py_float_repr(v, r, sizeof r);
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                          "Invalid value found, %s: %s. The goodput constraint value should be non-negative. ",
                          slo->namebuf, r);
    }
    return 0;
}

/* One -g/--goodput word. GenAI-Perf 0.0.16 wants one NAME:VALUE per word
 * and calls "time_to_first_token:200 inter_token_latency:20" (the terms
 * quoted together) an invalid format; the split is unambiguous (a name has
 * no space and a number none either), so genperf splits such a word on
 * whitespace and checks each term as if given apart (issue 43 item 7). */
int gp_profile_add_goodput(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    const char *p = s;
    while (*p && !isspace((unsigned char)*p))
        p++;
    if (!*p)
        return add_goodput_term(cfg, s, err); /* the usual case: one term */
    int n = 0;
    for (p = s;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        const char *end = p;
        while (*end && !isspace((unsigned char)*end))
            end++;
        char term[256];
        if ((size_t)(end - p) >= sizeof term) /* longer than any name:value; the format error says why */
            return add_goodput_term(cfg, s, err);
        memcpy(term, p, (size_t)(end - p));
        term[end - p] = '\0';
        int rc = add_goodput_term(cfg, term, err);
        if (rc < 0)
            return rc;
        n++;
        p = end;
    }
    return n ? 0 : add_goodput_term(cfg, s, err); /* only spaces: the format error */
}

/* ---- hooks of rows in the flag table (profile_args.c) ---- */

/* One more -u/--url or --urls: a new set of endpoints begins (the sets it
 * replaces stay in urls_given for the note on stderr, gp_profile_url_note). */
static void begin_url_set(struct profile_config *cfg, int listed)
{
    cfg->n_url_flags++;
    cfg->n_urls_flags += listed;
    cfg->urls_listed = listed;
}

static int push_url(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    if (cfg->n_urls >= 64) {
        cfg->usage_error = 1;
        return gp_err(err, GP_EINVAL, "argument --urls: at most 64 URLs");
    }
    const char **u = realloc(cfg->urls, (cfg->n_urls + 1) * sizeof *u);
    if (!u)
        return gp_err(err, GP_ENOMEM, "out of memory");
    u[cfg->n_urls++] = s;
    cfg->urls = u;
    const char **g = realloc(cfg->urls_given, (cfg->n_urls_given + 1) * sizeof *g);
    if (!g)
        return gp_err(err, GP_ENOMEM, "out of memory");
    g[cfg->n_urls_given++] = s;
    cfg->urls_given = g;
    return 0;
}

/* -u/--url is GenAI-Perf's plain store: given again, the last one wins (a
 * wrapper appending --url to override a default must not add an endpoint). */
int gp_profile_set_url(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    begin_url_set(cfg, 0);
    cfg->n_urls = 0;
    return push_url(cfg, s, err);
}

/* --urls A B ...: the parser empties the list when the flag begins (argparse
 * replaces an nargs='+' list), so the first item starts a new set. */
int gp_profile_add_url(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    if (!cfg->n_urls)
        begin_url_set(cfg, 1);
    return push_url(cfg, s, err);
}

/* After -u/--url's copy (table order): when --urls came last, the single-URL
 * consumers (input_config.url, the default server-metrics target, a one-item
 * list's request URL) take its last item, as they take the last --url. */
int gp_profile_copy_urls(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    (void)rv;
    (void)err;
    if (cfg->urls_listed && cfg->n_urls && cfg->urls[cfg->n_urls - 1][0]) {
        cfg->url = cfg->urls[cfg->n_urls - 1];
        cfg->url_given = 1;
    }
    return 0;
}

int gp_profile_check_input_file(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    if (!cfg->skip_file_checks && !gp_is_file(s) && !gp_is_dir(s) && strncmp(s, "synthetic:", 10) && strncmp(s, "payload:", 8)) {
        cfg->usage_error = 1; /* argparse's type check: a usage error (exit 2) */
        return gp_err(err, GP_EINVAL, "argument --input-file: invalid file_or_directory value: '%s'", s);
    }
    return 0;
}

int gp_profile_copy_endpoint_type(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    cfg->endpoint_type_given = 1;
    char list[256] = "";
    size_t len = 0, n = 0;
    for (; gp_profile_endpoint_names[n]; n++)
        if (!strcmp(rv->s, gp_profile_endpoint_names[n])) {
            cfg->endpoint_type = gp_profile_endpoint_kinds[n];
            cfg->endpoint_type_name = gp_profile_endpoint_names[n];
            return 0;
        }
    /* the table's last name is the Anthropic API, the rest are OpenAI's */
    for (size_t i = 0; i + 1 < n; i++) {
        int w = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", gp_profile_endpoint_names[i]);
        if (w > 0 && len + (size_t)w < sizeof list)
            len += (size_t)w;
    }
    /* kserve, triton, tensorrtllm_engine, dynamic_grpc, template, generate,
     * huggingface_generate, image_retrieval, nvclip: gRPC/Triton or formats
     * genperf has no body or response parser for */
    return gp_profile_config_err(cfg, err, GP_ENOTSUP,
                                 "--endpoint-type %s is not supported by genperf; it speaks %s (OpenAI-compatible "
                                 "HTTP) and %s (the Anthropic Messages API)",
                                 rv->s, list, n ? gp_profile_endpoint_names[n - 1] : "");
}

/* after --endpoint-type in the table: the default path depends on it */
int gp_profile_copy_endpoint(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    /* config/endpoint_config.py endpoint_type_map */
    const char *e = cfg->endpoint_type == GP_ENDPOINT_COMPLETIONS  ? "v1/completions"
                    : cfg->endpoint_type == GP_ENDPOINT_EMBEDDINGS ? "v1/embeddings"
                    : cfg->endpoint_type == GP_ENDPOINT_RANKINGS   ? "v1/ranking"
                    : cfg->endpoint_type == GP_ENDPOINT_RESPONSES  ? "v1/responses"
                    : cfg->endpoint_type == GP_ENDPOINT_ANTHROPIC  ? "v1/messages"
                                                                   : "v1/chat/completions";
    if (rv->seen && rv->s[0])
        for (e = rv->s; *e == ' ' || *e == '/'; e++)
            ;
    snprintf(cfg->endpoint, sizeof cfg->endpoint, "%s", e);
    return 0;
}

int gp_profile_copy_stability(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    double s = rv->f;
    if (s == 0)
        return 0;
    char r[64];
    gp_py_float_repr(s, r, sizeof r);
    if (!(s >= 1))
        return gp_profile_config_err(cfg, err, GP_EINVAL, "User Config: %s exceeds lower bounds ({'lower': 1, 'upper': 999})", r);
    if (s > 999)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "User Config: %s exceeds upper bounds ({'lower': 1, 'upper': 999})", r);
    cfg->stability = s;
    cfg->stability_given = 1;
    return 0;
}

/* --workers N | auto: auto leaves one core for telemetry and the exporter. */
int gp_profile_copy_workers(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    if (!strcmp(rv->s, "auto")) {
        long n = sysconf(_SC_NPROCESSORS_ONLN) - 1;
        cfg->workers = n >= 1 ? n : 1;
        return 0;
    }
    char *end;
    errno = 0;
    long n = strtol(rv->s, &end, 10);
    if (errno || end == rv->s || *end || n < 1 || n > 1024)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--workers '%s': pass a number of threads from 1 to 1024, or auto",
                          rv->s);
    cfg->workers = n;
    return 0;
}

int gp_profile_copy_metrics_urls(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    cfg->metrics_urls_given = cfg->n_metrics_urls > 0;
    return 0;
}

int gp_profile_copy_failure_rate(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    if (!(rv->f >= 0 && rv->f <= 1))
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--max-failure-rate %s: must be a share between 0 and 1 (e.g. 0.05)",
                          rv->s);
    cfg->max_failure_rate = rv->f;
    return 0;
}

/* AIPerf's units: a percentage of requests (it divides by 100) and seconds. */
int gp_profile_copy_cancel_rate(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    if (!(rv->f >= 0 && rv->f <= 100))
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "--request-cancellation-rate %s: must be a percentage from 0 to 100 (e.g. 10)",
                                     rv->s);
    cfg->cancel_rate = rv->f;
    return 0;
}

int gp_profile_copy_cancel_delay(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    if (!(rv->f >= 0 && rv->f <= 1e7))
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "--request-cancellation-delay %s: must be a number of seconds from 0 to 10000000",
                                     rv->s);
    cfg->cancel_delay_s = rv->f;
    return 0;
}

void gp_profile_redact(const struct profile_config *cfg, struct gp_redact *out)
{
    out->extra = cfg->redact_names;
    out->n_extra = cfg->n_redact;
}

/* The key: the first line of the file, surrounding blanks dropped. */
static int read_key_file(struct profile_config *cfg, const char *path, char *key, size_t keysz, struct gp_error *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return gp_profile_config_err(cfg, err, GP_EIO, "--api-key-file %s: %s", path, strerror(errno));
    if (!fgets(key, (int)keysz, fp))
        key[0] = '\0';
    fclose(fp);
    key[strcspn(key, "\r\n")] = '\0';
    return 0;
}

void gp_profile_default_cacert(struct profile_config *cfg)
{
    if (cfg->cacert)
        return;
    const char *env = getenv("SSL_CERT_FILE");
    if (!env || !*env)
        env = getenv("CURL_CA_BUNDLE");
    if (env && *env)
        cfg->cacert = env;
}

int gp_profile_protect_secrets(struct profile_config *cfg, const char *env_key, struct gp_error *err)
{
    struct gp_redact red;
    gp_profile_redact(cfg, &red);
    /* Anthropic's Messages API takes the key as x-api-key (no Bearer) and
     * wants anthropic-version on every request: 2023-06-01 unless -H gives one */
    int anth = cfg->endpoint_type == GP_ENDPOINT_ANTHROPIC;
    const char *kname = anth ? "x-api-key" : "Authorization";
    size_t knl = strlen(kname);
    int have_auth = 0, have_version = 0;
    for (size_t i = 0; i < cfg->n_headers; i++) {
        const char *colon = strchr(cfg->headers[i], ':');
        if (colon && (size_t)(colon - cfg->headers[i]) == knl && !strncasecmp(cfg->headers[i], kname, knl))
            have_auth = 1;
        if (colon && (size_t)(colon - cfg->headers[i]) == 17 && !strncasecmp(cfg->headers[i], "anthropic-version", 17))
            have_version = 1;
    }
    if (anth && !have_version) {
        const char **na = realloc(cfg->headers, (cfg->n_headers + 1) * sizeof *na);
        if (!na)
            return gp_profile_config_err(cfg, err, GP_ENOMEM, "out of memory");
        cfg->headers = na;
        cfg->headers[cfg->n_headers++] = "anthropic-version: 2023-06-01";
    }
    char key[4096] = "";
    const char *from = NULL;
    if (cfg->api_key_file) {
        int rc = read_key_file(cfg, cfg->api_key_file, key, sizeof key, err);
        if (rc < 0)
            return rc;
        from = "--api-key-file";
    } else if (env_key && *env_key) {
        snprintf(key, sizeof key, "%s", env_key);
        from = "GENPERF_API_KEY";
    }
    char *k = key;
    while (*k == ' ' || *k == '\t')
        k++;
    for (size_t n = strlen(k); n > 0 && (k[n - 1] == ' ' || k[n - 1] == '\t'); n--)
        k[n - 1] = '\0';
    if (cfg->api_key_file && !*k)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--api-key-file %s: the file is empty; put the key on its first line",
                          cfg->api_key_file);
    if (from && have_auth && cfg->api_key_file)
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                          "--api-key-file and -H '%s: ...' both give the key; pass only one", kname);
    if (from && !have_auth) {
        size_t n = strlen(k) + 32;
        const char **na = realloc(cfg->headers, (cfg->n_headers + 1) * sizeof *na);
        if (!na || !(cfg->auth_header = malloc(n))) {
            if (na)
                cfg->headers = na;
            return gp_profile_config_err(cfg, err, GP_ENOMEM, "out of memory");
        }
        if (anth)
            snprintf(cfg->auth_header, n, "x-api-key: %s", k);
        else
            snprintf(cfg->auth_header, n, "Authorization: Bearer %s", k);
        cfg->headers = na;
        cfg->headers[cfg->n_headers++] = cfg->auth_header;
    }
    memset(key, 0, sizeof key);
    /* Copy every secret -H out of argv, then blank it there. */
    for (size_t i = 0; i < cfg->n_headers; i++) {
        const char *h = cfg->headers[i];
        const char *colon = strchr(h, ':');
        if (h == cfg->auth_header || !colon || !gp_redact_is_secret(&red, h, (size_t)(colon - h)))
            continue;
        char **nc = realloc(cfg->secret_copies, (cfg->n_secret_copies + 1) * sizeof *nc);
        if (!nc)
            return gp_profile_config_err(cfg, err, GP_ENOMEM, "out of memory");
        cfg->secret_copies = nc;
        if (!(nc[cfg->n_secret_copies] = strdup(h)))
            return gp_profile_config_err(cfg, err, GP_ENOMEM, "out of memory");
        cfg->headers[i] = nc[cfg->n_secret_copies++];
        gp_redact_scrub_in_place(&red, (char *)h); /* h points into argv (profile_config.h) */
    }
    return 0;
}

const char *gp_profile_endpoint_type_name(const struct profile_config *cfg)
{
    return cfg->endpoint_type_name ? cfg->endpoint_type_name : "chat";
}

const char *gp_profile_output_format(const struct profile_config *cfg)
{
    switch (cfg->endpoint_type) {
    case GP_ENDPOINT_COMPLETIONS: return "openai_completions";
    case GP_ENDPOINT_MULTIMODAL: return "openai_multimodal";
    case GP_ENDPOINT_EMBEDDINGS: return "openai_embeddings";
    case GP_ENDPOINT_RANKINGS: return "rankings";
    case GP_ENDPOINT_RESPONSES: return "openai_responses";
    case GP_ENDPOINT_ANTHROPIC: return "anthropic_messages";
    default: return "openai_chat_completions";
    }
}

/* GenAI-Perf's stimulus, in its order of precedence (create_config.py
 * _convert_args_to_stimulus): session concurrency, concurrency, request
 * rate, fixed schedule. 1 = session concurrency, 2 = fixed schedule, 0 =
 * neither (the flag parser refuses --concurrency / --request-rate beside
 * either, so the order only matters to a hand-built config). */
int gp_profile_schedule_stimulus(const struct profile_config *cfg)
{
    if (cfg->sessions.num_sessions > 0 && cfg->sessions.session_concurrency > 0)
        return 1;
    return cfg->fixed_schedule && !(cfg->request_rate > 0) ? 2 : 0;
}

const char *gp_profile_mode(const struct profile_config *cfg)
{
    /* perf_analyzer's export has only concurrency and request_rate; GenAI-Perf
     * reads a session or fixed-schedule run as request_rate 0.0 (subcommand.py) */
    return cfg->request_rate > 0 || gp_profile_schedule_stimulus(cfg) ? "request_rate" : "concurrency";
}

int gp_profile_run_name(const struct profile_config *cfg, char *out, size_t outsz)
{
    char stim[96];
    int ss = gp_profile_schedule_stimulus(cfg);
    if (ss == 1) {
        snprintf(stim, sizeof stim, "session_concurrency%ld", cfg->sessions.session_concurrency);
    } else if (ss == 2) {
        snprintf(stim, sizeof stim, "fixed_schedule");
    } else if (cfg->request_rate > 0) {
        char r[64];
        gp_py_float_repr(cfg->request_rate, r, sizeof r);
        snprintf(stim, sizeof stim, "request_rate%s", r);
    } else {
        snprintf(stim, sizeof stim, "concurrency%ld", cfg->concurrency);
    }
    return gp_export_run_name(cfg->models[0], cfg->n_models > 1, gp_profile_endpoint_type_name(cfg), stim, out,
                              outsz) < 0 ? -GP_EINVAL : 0;
}

int gp_profile_run_dir(const struct profile_config *cfg, char *out, size_t outsz)
{
    char name[2048];
    if (gp_profile_run_name(cfg, name, sizeof name) < 0)
        return -GP_EINVAL;
    return gp_path_join(out, outsz, cfg->artifact_dir, name);
}

/* --gpu-hour-cost USD: a price, so positive and finite (a typo like "2,5"
 * must not silently cost nothing). */
int gp_profile_copy_gpu_hour_cost(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    if (!(rv->f > 0) || rv->f > 1e9)
        return gp_err(err, GP_EINVAL, "--gpu-hour-cost %s: must be the positive price in US dollars of one GPU for "
                      "one hour (e.g. 2.50)", rv->s);
    cfg->gpu_hour_cost = rv->f;
    return 0;
}
