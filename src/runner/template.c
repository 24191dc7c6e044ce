/* runner/template.c — GenAI-Perf's config template and the config-file ->
 * command-line mapping of `genperf config`. See template.h. */
#include "runner/template.h"
#include "core/error.h"
#include "core/pytext.h"
#include "runner/recipe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GenAI-Perf 0.0.16's `create-template` output, byte for byte (note the
 * trailing space after a key whose default prints as nothing). */
static const char template_text[] =
    "  model_names: \n"
    "\n"
    "  analyze:\n"
    "    # Uncomment the lines below to enable the analyze subcommand\n"
    "    # # For further details see analyze.md\n"
    "    #   concurrency:\n"
    "    #     start: 1\n"
    "    #     stop: 1024\n"
    "\n"
    "  endpoint:\n"
    "    model_selection_strategy: round_robin\n"
    "    backend: tensorrtllm\n"
    "    custom: \n"
    "    type: kserve\n"
    "    streaming: False\n"
    "    server_metrics_urls: http://localhost:9400/metrics\n"
    "    url: localhost:8001\n"
    "    grpc_method: \n"
    "\n"
    "  perf_analyzer:\n"
    "    path: perf_analyzer\n"
    "    verbose: False\n"
    "    stimulus: {'concurrency': 1}\n"
    "    stability_percentage: 999\n"
    "    warmup_request_count: 0\n"
    "\n"
    "    measurement:\n"
    "      mode: request_count\n"
    "      # If left unset, the default value will be inferred based on the mode.\n"
    "      num: \n"
    "\n"
    "  input:\n"
    "    batch_size: 1\n"
    "    extra: \n"
    "    goodput: \n"
    "    header: \n"
    "    file: \n"
    "    num_dataset_entries: 100\n"
    "    random_seed: 0\n"
    "\n"
    "    audio:\n"
    "      batch_size: 1\n"
    "      format: wav\n"
    "      depths: 16\n"
    "      sample_rates: 16\n"
    "      num_channels: 1\n"
    "\n"
    "      length:\n"
    "        mean: 0\n"
    "        stddev: 0\n"
    "\n"
    "    image:\n"
    "      batch_size: 1\n"
    "      format: png\n"
    "\n"
    "      width:\n"
    "        mean: 0\n"
    "        stddev: 0\n"
    "\n"
    "      height:\n"
    "        mean: 0\n"
    "        stddev: 0\n"
    "\n"
    "    output_tokens:\n"
    "      mean: \n"
    "      deterministic: False\n"
    "      stddev: 0\n"
    "\n"
    "    synthetic_tokens:\n"
    "      mean: 550\n"
    "      stddev: 0\n"
    "\n"
    "    prefix_prompt:\n"
    "      num: 0\n"
    "      length: 100\n"
    "\n"
    "    sessions:\n"
    "      num: 0\n"
    "\n"
    "      turns:\n"
    "        mean: 1\n"
    "        stddev: 0\n"
    "\n"
    "      turn_delay:\n"
    "        mean: 0\n"
    "        ratio: 1.0\n"
    "        stddev: 0\n"
    "\n"
    "  output:\n"
    "    artifact_directory: artifacts\n"
    "    checkpoint_directory: checkpoint\n"
    "    profile_export_file: profile_export.json\n"
    "    generate_plots: False\n"
    "    enable_checkpointing: False\n"
    "\n"
    "  tokenizer:\n"
    "    # By default this is the model's name\n"
    "    name: \n"
    "    revision: main\n"
    "    trust_remote_code: False\n"
    "\n"
    "  process:\n"
    "    # Uncomment the lines below to enable the process-export-files subcommand\n"
    "    #   input_path: \n"
    "\n";

const char *gp_genai_perf_template(void) { return template_text; }

/* ------------------------------------------------------------------------
 * config file -> command line
 * ---------------------------------------------------------------------- */

enum kind {
    K_STR,     /* a string (or number) value -> FLAG VALUE, unless null/empty/default */
    K_NUM,     /* a number -> FLAG VALUE, unless null or the default */
    K_BOOL,    /* true -> FLAG */
    K_IGNORE,  /* accepted, nothing to pass (perf_analyzer.path, backend, ...) */
    K_SECTION, /* a nested section */
    K_SPECIAL, /* handled by name in special() */
};

struct key {
    const char *name;
    enum kind kind;
    const char *flag;
    const char *deflt;  /* printed value that is GenAI-Perf's (and profile's) default */
    const struct key *sub;
    const char *sub_name; /* section name in GenAI-Perf's messages */
};

#define IGN(n) {.name = n, .kind = K_IGNORE}
#define SPEC(n) {.name = n, .kind = K_SPECIAL}
#define SEC(n, s, sn) {.name = n, .kind = K_SECTION, .sub = s, .sub_name = sn}
#define NUM(n, f, d) {.name = n, .kind = K_NUM, .flag = f, .deflt = d}
#define STR(n, f, d) {.name = n, .kind = K_STR, .flag = f, .deflt = d}
#define BOOL(n, f) {.name = n, .kind = K_BOOL, .flag = f}
#define END {.name = NULL}

static const struct key audio_length_keys[] = {IGN("mean"), IGN("stddev"), END};
static const struct key audio_keys[] = {IGN("batch_size"),   SEC("length", audio_length_keys, "audio_length"),
                                        IGN("format"),       IGN("depths"),
                                        IGN("sample_rates"), IGN("num_channels"),
                                        END};
static const struct key image_wh_keys[] = {IGN("mean"), IGN("stddev"), END};
static const struct key image_keys[] = {IGN("batch_size"),
                                        SEC("width", image_wh_keys, "image_width"),
                                        SEC("height", image_wh_keys, "image_height"),
                                        IGN("format"),
                                        END};
static const struct key osl_keys[] = {NUM("mean", "--output-tokens-mean", NULL),
                                      BOOL("deterministic", "--output-tokens-mean-deterministic"),
                                      NUM("stddev", "--output-tokens-stddev", "0"),
                                      END};
static const struct key isl_keys[] = {NUM("mean", "--synthetic-input-tokens-mean", "550"),
                                      NUM("stddev", "--synthetic-input-tokens-stddev", "0"),
                                      END};
static const struct key prefix_keys[] = {NUM("num", "--num-prefix-prompts", "0"),
                                         NUM("length", "--prefix-prompt-length", "100"),
                                         END};
static const struct key turns_keys[] = {IGN("mean"), IGN("stddev"), END};
static const struct key delay_keys[] = {IGN("mean"), IGN("ratio"), IGN("stddev"), END};
static const struct key session_keys[] = {NUM("num", "--num-sessions", "0"),
                                          SEC("turns", turns_keys, "turns"),
                                          SEC("turn_delay", delay_keys, "turn_delay"),
                                          END};
static const struct key input_keys[] = {
    NUM("batch_size", "--batch-size-text", "1"),
    SPEC("extra"),
    SPEC("goodput"),
    SPEC("header"),
    STR("file", "--input-file", NULL),
    NUM("num_dataset_entries", "--num-dataset-entries", "100"),
    NUM("random_seed", "--random-seed", "0"),
    SEC("audio", audio_keys, "audio"),
    SEC("image", image_keys, "image"),
    SEC("output_tokens", osl_keys, "output_tokens"),
    SEC("synthetic_tokens", isl_keys, "synthetic_tokens"),
    SEC("prefix_prompt", prefix_keys, "prefix_prompt"),
    SEC("sessions", session_keys, "sessions"),
    END};
static const struct key endpoint_keys[] = {
    STR("model_selection_strategy", "--model-selection-strategy", "round_robin"),
    IGN("backend"), /* Triton's backend: no meaning for OpenAI endpoints */
    STR("custom", "--endpoint", NULL),
    STR("type", "--endpoint-type", NULL),
    BOOL("streaming", "--streaming"),
    SPEC("server_metrics_url"),
    SPEC("server_metrics_urls"),
    STR("url", "--url", NULL),
    STR("grpc_method", "--grpc-method", NULL),
    END};
static const struct key measurement_keys[] = {SPEC("mode"), SPEC("num"), END};
static const struct key pa_keys[] = {IGN("path"), /* genperf is its own load generator */
                                     IGN("verbose"),
                                     SPEC("stimulus"),
                                     NUM("stability_percentage", "--stability-percentage", "999"),
                                     NUM("measurement_interval", "--measurement-interval", NULL),
                                     NUM("warmup_request_count", "--warmup-request-count", "0"),
                                     SEC("measurement", measurement_keys, "perf_analyzer_measurement"),
                                     END};
static const struct key output_keys[] = {STR("artifact_directory", "--artifact-dir", NULL),
                                         STR("checkpoint_directory", "--checkpoint-dir", "checkpoint"),
                                         STR("profile_export_file", "--profile-export-file", NULL),
                                         BOOL("generate_plots", "--generate-plots"),
                                         BOOL("enable_checkpointing", "--enable-checkpointing"),
                                         END};
static const struct key tokenizer_keys[] = {STR("name", "--tokenizer", NULL),
                                            STR("revision", "--tokenizer-revision", "main"),
                                            BOOL("trust_remote_code", "--tokenizer-trust-remote-code"),
                                            END};

struct mapper {
    struct gp_argv *out;
    char mode[32];        /* perf_analyzer.measurement.mode */
    const json_t *num;    /* perf_analyzer.measurement.num */
    struct gp_error *err;
};

/* A scalar as it goes on a command line: Python's spelling of numbers. */
static int scalar(const json_t *v, char *out, size_t sz)
{
    if (json_is_string(v))
        snprintf(out, sz, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(out, sz, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        gp_py_float_repr(json_real_value(v), out, sz);
    else if (json_is_boolean(v))
        snprintf(out, sz, "%s", json_is_true(v) ? "true" : "false");
    else
        return -1;
    return 0;
}

/* FLAG VALUE, or VALUE alone when flag is NULL */
static int push2(struct mapper *m, const char *flag, const char *val)
{
    return (flag && gp_argv_push(m->out, flag)) || gp_argv_push(m->out, val) ? gp_err(m->err, GP_ENOMEM, "out of memory")
                                                                             : 0;
}

/* "a, b" or [a, b] -> FLAG item for each item (GenAI-Perf's split_and_strip_whitespace);
 * flag NULL: the items alone. */
static int each_item(struct mapper *m, const json_t *v, const char *flag, const char *what)
{
    char buf[4096];
    if (json_is_array(v)) {
        size_t i;
        const json_t *x;
        json_array_foreach(v, i, x) {
            if (scalar(x, buf, sizeof buf) < 0)
                return gp_err(m->err, GP_EINVAL, "User Config: %s must be a string or list", what);
            if (push2(m, flag, buf))
                return -GP_ENOMEM;
        }
        return 0;
    }
    if (!json_is_string(v))
        return gp_err(m->err, GP_EINVAL, "User Config: %s must be a string or list", what);
    const char *s = json_string_value(v);
    while (*s) {
        const char *c = strchr(s, ',');
        size_t n = c ? (size_t)(c - s) : strlen(s);
        while (n && (*s == ' ' || *s == '\t'))
            s++, n--;
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        snprintf(buf, sizeof buf, "%.*s", (int)n, s);
        if (n && push2(m, flag, buf))
            return -GP_ENOMEM;
        if (!c)
            break;
        s = c + 1;
    }
    return 0;
}

static int special(struct mapper *m, const char *k, const json_t *v)
{
    char buf[4096];
    if (json_is_null(v))
        return 0;
    if (!strcmp(k, "goodput")) {
        if (!json_is_object(v))
            return gp_err(m->err, GP_EINVAL, "User Config: goodput must be a mapping of metric: value");
        if (!json_object_size(v))
            return 0;
        if (gp_argv_push(m->out, "--goodput"))
            return gp_err(m->err, GP_ENOMEM, "out of memory");
        const char *metric;
        const json_t *x;
        json_object_foreach((json_t *)v, metric, x) {
            if (!json_is_number(x))
                return gp_err(m->err, GP_EINVAL, "User Config: Goodput values must be integers or floats");
            if (json_number_value(x) < 0)
                return gp_err(m->err, GP_EINVAL, "User Config: Goodput values must be non-negative (%s)", metric);
            char n[64];
            scalar(x, n, sizeof n);
            snprintf(buf, sizeof buf, "%s:%s", metric, n);
            if (gp_argv_push(m->out, buf))
                return gp_err(m->err, GP_ENOMEM, "out of memory");
        }
        return 0;
    }
    if (!strcmp(k, "extra")) {
        /* the whole object as one JSON value keeps its types exactly */
        if (!json_is_object(v))
            return gp_err(m->err, GP_EINVAL, "User Config: extra must be a mapping of input_name: value");
        if (!json_object_size(v))
            return 0;
        char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
        int r = s ? push2(m, "--extra-inputs", s) : gp_err(m->err, GP_ENOMEM, "out of memory");
        free(s);
        return r;
    }
    if (!strcmp(k, "header")) {
        if (json_is_string(v))
            return json_string_length(v) ? push2(m, "-H", json_string_value(v)) : 0;
        return each_item(m, v, "-H", "header");
    }
    if (!strcmp(k, "server_metrics_url") || !strcmp(k, "server_metrics_urls")) {
        /* the DCGM default is what the template prints: not a user choice */
        if (json_is_string(v) && !strcmp(json_string_value(v), "http://localhost:9400/metrics"))
            return 0;
        return each_item(m, v, "--server-metrics-url", "server_metrics_url(s)");
    }
    if (!strcmp(k, "stimulus")) {
        /* _parse_stimulus: a string is {name: None}, which only the fixed
         * schedule runs with */
        if (json_is_string(v) && !strcmp(json_string_value(v), "fixed_schedule"))
            return push2(m, "--fixed-schedule", "true");
        if (json_is_string(v))
            return gp_err(m->err, GP_EINVAL, "User Config: stimulus '%s' needs a value (e.g. stimulus: {%s: 4})",
                          json_string_value(v), json_string_value(v));
        if (!json_is_object(v))
            return gp_err(m->err, GP_EINVAL, "User Config: stimulus must be a string or dict");
        const char *s;
        const json_t *x;
        json_object_foreach((json_t *)v, s, x) {
            const char *flag = !strcmp(s, "concurrency")           ? "--concurrency"
                               : !strcmp(s, "request_rate")        ? "--request-rate"
                               : !strcmp(s, "session_concurrency") ? "--session-concurrency"
                               : !strcmp(s, "fixed_schedule")      ? "--fixed-schedule"
                                                                   : NULL;
            if (!flag)
                return gp_err(m->err, GP_EINVAL,
                              "User Config: stimulus %s is not supported by genperf (concurrency, request_rate, "
                              "session_concurrency or fixed_schedule)",
                              s);
            /* {fixed_schedule: null} is how GenAI-Perf writes a trace replay */
            if (json_is_null(x) && !strcmp(s, "fixed_schedule")) {
                if (push2(m, flag, "true"))
                    return -GP_ENOMEM;
                continue;
            }
            if (json_is_null(x))
                continue;
            if (scalar(x, buf, sizeof buf) < 0)
                return gp_err(m->err, GP_EINVAL, "User Config: stimulus %s must be a number", s);
            if (push2(m, flag, buf))
                return -GP_ENOMEM;
        }
        return 0;
    }
    if (!strcmp(k, "mode")) {
        if (!json_is_string(v))
            return gp_err(m->err, GP_EINVAL, "User Config: measurement mode must be request_count or interval");
        snprintf(m->mode, sizeof m->mode, "%s", json_string_value(v));
        for (char *c = m->mode; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
        if (strcmp(m->mode, "request_count") && strcmp(m->mode, "interval"))
            return gp_err(m->err, GP_EINVAL, "User Config: %s is not a valid perf_analyzer_measurement mode",
                          json_string_value(v));
        return 0;
    }
    if (!strcmp(k, "num")) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return gp_err(m->err, GP_EINVAL, "User Config: measurement num must be a non-negative integer");
        m->num = v;
        return 0;
    }
    return gp_err(m->err, GP_EINVAL, "User Config: %s is not handled", k);
}

static const struct key *find_key(const struct key *keys, const char *k)
{
    for (; keys->name; keys++)
        if (!strcmp(keys->name, k))
            return keys;
    return NULL;
}

static int walk(struct mapper *m, const json_t *obj, const struct key *keys, const char *section)
{
    if (!obj || json_is_null(obj))
        return 0;
    if (!json_is_object(obj))
        return gp_err(m->err, GP_EINVAL, "User Config: %s must be a mapping of keys to values", section);
    const char *k;
    const json_t *v;
    char buf[4096];
    json_object_foreach((json_t *)obj, k, v) {
        const struct key *d = find_key(keys, k);
        if (!d)
            return gp_err(m->err, GP_EINVAL, "User Config: %s is not a valid %s parameter", k, section);
        int r = 0;
        switch (d->kind) {
        case K_IGNORE:
            break;
        case K_SECTION:
            r = walk(m, v, d->sub, d->sub_name);
            break;
        case K_SPECIAL:
            r = special(m, k, v);
            break;
        case K_BOOL:
            if (!json_is_null(v) && !json_is_boolean(v))
                return gp_err(m->err, GP_EINVAL, "User Config: %s.%s must be true or false", section, k);
            if (json_is_true(v))
                r = gp_argv_push(m->out, d->flag) ? gp_err(m->err, GP_ENOMEM, "out of memory") : 0;
            break;
        case K_NUM:
            if (json_is_null(v))
                break;
            if (!json_is_number(v))
                return gp_err(m->err, GP_EINVAL, "User Config: %s.%s must be a number", section, k);
            if (json_number_value(v) < 0)
                return gp_err(m->err, GP_EINVAL, "User Config: %s.%s exceeds lower bounds ({'lower': 0})", section, k);
            scalar(v, buf, sizeof buf);
            if (!d->deflt || json_number_value(v) != strtod(d->deflt, NULL))
                r = push2(m, d->flag, buf);
            break;
        case K_STR:
            if (json_is_null(v))
                break;
            if (scalar(v, buf, sizeof buf) < 0)
                return gp_err(m->err, GP_EINVAL, "User Config: %s.%s must be a string", section, k);
            if (!buf[0])
                break;
            if (!d->deflt || strcmp(buf, d->deflt))
                r = push2(m, d->flag, buf);
            break;
        }
        if (r)
            return r;
    }
    return 0;
}

/* The analyze section -> --sweep-type and --sweep-range / --sweep-list,
 * with GenAI-Perf's default start and stop per parameter
 * (config_defaults.py AnalyzeDefaults) and its list for a step. */
static int analyze_flags(struct mapper *m, const json_t *an)
{
    static const struct {
        const char *name, *sweep;
        long start, stop;
    } types[] = {{"concurrency", "concurrency", 1, 1024},
                 {"request_rate", "request_rate", 16, 8192},
                 {"runtime_batch_size", "batch_size", 1, 128},
                 {"num_dataset_entries", "num_dataset_entries", 100, 1000},
                 {"input_sequence_length", "input_sequence_length", 100, 1000}};
    if (!json_is_object(an))
        return gp_err(m->err, GP_EINVAL, "User Config: analyze must be a mapping of parameter: {start, stop, step}");
    if (json_object_size(an) != 1)
        return gp_err(m->err, GP_EINVAL, "genperf analyze sweeps one parameter; the analyze section names %zu",
                      json_object_size(an));
    const char *k;
    const json_t *r;
    json_object_foreach((json_t *)an, k, r) {
        size_t t = 0;
        while (t < sizeof types / sizeof types[0] && strcmp(types[t].name, k))
            t++;
        if (t == sizeof types / sizeof types[0])
            return gp_err(m->err, GP_EINVAL, "User Config: %s is not a valid analyze parameter", k);
        if (!json_is_object(r) && !json_is_null(r))
            return gp_err(m->err, GP_EINVAL, "User Config: analyze.%s must be a mapping of start, stop, step", k);
        const json_t *js = json_object_get(r, "start"), *je = json_object_get(r, "stop"),
                     *jp = json_object_get(r, "step");
        if ((js && !json_is_integer(js)) || (je && !json_is_integer(je)) || (jp && !json_is_integer(jp)))
            return gp_err(m->err, GP_EINVAL, "User Config: analyze.%s start, stop and step must be integers", k);
        long start = js ? (long)json_integer_value(js) : types[t].start;
        long stop = je ? (long)json_integer_value(je) : types[t].stop;
        if (push2(m, "--sweep-type", types[t].sweep))
            return -GP_ENOMEM;
        char buf[4096];
        if (!jp) {
            snprintf(buf, sizeof buf, "%ld:%ld", start, stop);
            return push2(m, "--sweep-range", buf);
        }
        long step = (long)json_integer_value(jp);
        if (step < 1)
            return gp_err(m->err, GP_EINVAL, "User Config: analyze.%s step must be positive", k);
        size_t n = 0;
        buf[0] = 0;
        for (long v = start; v <= stop && n + 24 < sizeof buf; v += step)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%ld", n ? "," : "", v);
        if (!n)
            return gp_err(m->err, GP_EINVAL, "User Config: analyze.%s: no value between start and stop", k);
        return push2(m, "--sweep-list", buf);
    }
    return 0;
}

/* arg is flag, or flag=VALUE */
static int names_flag(const char *arg, const char *const *flags)
{
    for (; *flags; flags++) {
        size_t n = strlen(*flags);
        if (!strncmp(arg, *flags, n) && (arg[n] == 0 || arg[n] == '='))
            return 1;
    }
    return 0;
}

int gp_gpconfig_drop_overridden(json_t *cfg, char *const *cli, int n)
{
    /* profile's mutually exclusive groups (parser.py), in genperf's spelling */
    static const char *const stimulus[] = {"--concurrency", "--request-rate", "--session-concurrency",
                                           "--fixed-schedule", NULL};
    static const char *const measurement[] = {"--request-count", "--num-requests", "--measurement-interval", "-p",
                                              "--duration", NULL};
    int stim = 0, meas = 0, dropped = 0;
    for (int i = 0; i < n && strcmp(cli[i], "--"); i++) {
        stim |= names_flag(cli[i], stimulus);
        meas |= names_flag(cli[i], measurement);
    }
    json_t *pa = json_object_get(cfg, "perf_analyzer");
    if (!json_is_object(pa))
        return 0;
    if (stim && json_object_del(pa, "stimulus") == 0)
        dropped++;
    if (meas && json_object_del(pa, "measurement") == 0)
        dropped++;
    if (meas && json_object_del(pa, "measurement_interval") == 0)
        dropped++;
    return dropped;
}

static int set(const json_t *v) { return v && !json_is_null(v) && (!json_is_object(v) || json_object_size(v)); }

int gp_gpconfig_argv(const json_t *cfg, struct gp_argv *out, struct gp_error *err)
{
    struct mapper m = {.out = out, .err = err};
    snprintf(m.mode, sizeof m.mode, "request_count");
    if (!json_is_object(cfg))
        return gp_err(err, GP_EINVAL, "the config file must be a YAML mapping (genai-perf create-template writes one)");
    static const char *const top[] = {"model_name", "model_names", "analyze", "process", "endpoint",
                                       "perf_analyzer", "input", "output", "tokenizer", NULL};
    const char *k;
    const json_t *v, *models = NULL;
    json_object_foreach((json_t *)cfg, k, v) {
        int ok = 0;
        for (int i = 0; top[i]; i++)
            ok |= !strcmp(k, top[i]);
        if (!ok)
            return gp_err(err, GP_EINVAL, "User Config: %s is not a valid top-level parameter", k);
        if (!strcmp(k, "model_name") || !strcmp(k, "model_names"))
            models = v;
    }
    const json_t *an = json_object_get(cfg, "analyze"), *pr = json_object_get(cfg, "process");
    if (!set(an) && set(pr)) {
        /* process-export-files reads only the process and output sections */
        const json_t *in = json_is_object(pr) ? json_object_get(pr, "input_path") : NULL;
        char buf[4096];
        if (!in || scalar(in, buf, sizeof buf) < 0)
            return gp_err(err, GP_EINVAL, "User Config: process needs input_path: DIRECTORY");
        if (gp_argv_push(out, "process-export-files") || push2(&m, "--input-directory", buf))
            return gp_err(err, GP_ENOMEM, "out of memory");
        return walk(&m, json_object_get(cfg, "output"), output_keys, "output");
    }
    if (gp_argv_push(out, set(an) ? "analyze" : "profile"))
        return gp_err(err, GP_ENOMEM, "out of memory");
    if (!set(models) || (json_is_string(models) && !json_string_length(models)))
        return gp_err(err, GP_EINVAL, "Required field model_names is not set");
    if (gp_argv_push(out, "-m"))
        return gp_err(err, GP_ENOMEM, "out of memory");
    int r = each_item(&m, models, NULL, "model_names");
    if (r || (set(an) && (r = analyze_flags(&m, an))))
        return r;
    static const struct {
        const char *name;
        const struct key *keys;
    } sections[] = {{"endpoint", endpoint_keys}, {"perf_analyzer", pa_keys}, {"input", input_keys},
                    {"output", output_keys},     {"tokenizer", tokenizer_keys}};
    json_object_foreach((json_t *)cfg, k, v) {
        for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
            if (!strcmp(k, sections[i].name) && (r = walk(&m, v, sections[i].keys, k)))
                return r;
    }
    if (m.num) {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(m.num));
        r = push2(&m, strcmp(m.mode, "interval") ? "--request-count" : "--measurement-interval", buf);
    }
    return r;
}
