/* cli/profile_config.c — the `profile` flag parser (argparse-compatible
 * spelling, prefixes and messages) and the config-level validation that
 * GenAI-Perf does after argparse. See profile_config.h for ownership.
 */
#include "cli/profile_config.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum opt_kind { K_FLAG, K_STR, K_INT, K_POSINT, K_FLOAT, K_LIST, K_APPEND, K_CHOICE };

enum opt_id {
    O_HELP, O_MODEL, O_MODEL_SEL, O_ENDPOINT_TYPE, O_ENDPOINT, O_URL, O_STREAMING, O_HEADER,
    O_TOKENIZER, O_TOK_REV, O_TOK_TRUST, O_ISL, O_ISL_STD, O_OSL, O_OSL_STD, O_OSL_DET,
    O_NUM_ENTRIES, O_REQ_COUNT, O_WARMUP, O_CONCURRENCY, O_RATE, O_SEED, O_EXPORT_FILE,
    O_ARTIFACT_DIR, O_EXTRA, O_MEAS_INTERVAL, O_STABILITY, O_GOODPUT, O_INPUT_FILE,
    O_METRICS_URL, O_BACKEND, O_BATCH, O_NUM_PREFIX, O_PREFIX_LEN, O_VERBOSE, O_PLOTS,
    O_CHECKPOINTING, O_CHECKPOINT_DIR, O_FIXED_SCHEDULE, O_NUM_SESSIONS, O_SESSION_CONC,
    /* ours */
    O_TIMEOUT, O_HTTP2, O_DISTRIBUTION, O_MAX_CONC, O_DURATION, O_TELEM_INTERVAL, O_NO_USAGE,
    O_OFFLINE,
    O__COUNT
};

struct opt {
    enum opt_id id;
    enum opt_kind kind;
    const char *names[4];   /* in argparse definition order: shown joined by '/' */
    const char *metavar;
    const char *const *choices;
    const char *help;
};

static const char *const endpoint_types[] = {
    "chat", "completions", "dynamic_grpc", "embeddings", "huggingface_generate", "image_retrieval",
    "nvclip", "rankings", "multimodal", "generate", "kserve", "template", "tensorrtllm_engine",
    "vision", NULL};
static const char *const strategies[] = {"round_robin", "random", NULL};
static const char *const backends[] = {"tensorrtllm", "vllm", NULL};
static const char *const distributions[] = {"constant", "poisson", NULL};

static const struct opt opts[] = {
    {O_HELP, K_FLAG, {"-h", "--help"}, NULL, NULL, "show this help message and exit"},
    {O_MODEL, K_LIST, {"-m", "--model"}, "MODEL", NULL, "the model name(s) sent in every request (required)"},
    {O_MODEL_SEL, K_CHOICE, {"--model-selection-strategy"}, "{round_robin,random}", strategies,
     "how dataset rows pick a model when several -m are given (default round_robin)"},
    {O_ENDPOINT_TYPE, K_CHOICE, {"--endpoint-type"}, "{chat,completions,...}", endpoint_types,
     "chat (/v1/chat/completions) or completions (/v1/completions)"},
    {O_ENDPOINT, K_STR, {"--endpoint"}, "ENDPOINT", NULL, "custom endpoint path (default from --endpoint-type)"},
    {O_URL, K_STR, {"-u", "--url"}, "URL", NULL, "server base URL, without the endpoint path (default localhost:8000)"},
    {O_STREAMING, K_FLAG, {"--streaming"}, NULL, NULL, "send \"stream\": true and measure every chunk"},
    {O_HEADER, K_APPEND, {"-H", "--header"}, "HEADER", NULL, "extra HTTP header 'Name: value' (repeatable)"},
    {O_TOKENIZER, K_STR, {"--tokenizer"}, "TOKENIZER", NULL,
     "tokenizer: HF hub id, tokenizer.json path or 'builtin' (default: the model name)"},
    {O_TOK_REV, K_STR, {"--tokenizer-revision"}, "REVISION", NULL, "hub revision (default main)"},
    {O_TOK_TRUST, K_FLAG, {"--tokenizer-trust-remote-code"}, NULL, NULL, "accepted for compatibility"},
    {O_ISL, K_INT, {"--synthetic-input-tokens-mean", "--isl"}, "N", NULL, "mean prompt length in tokens (default 550)"},
    {O_ISL_STD, K_INT, {"--synthetic-input-tokens-stddev"}, "N", NULL, "stddev of the prompt length (default 0)"},
    {O_OSL, K_INT, {"--output-tokens-mean", "--osl"}, "N", NULL, "mean max_tokens per request (default: not sent)"},
    {O_OSL_STD, K_INT, {"--output-tokens-stddev"}, "N", NULL, "stddev of max_tokens (default 0)"},
    {O_OSL_DET, K_FLAG, {"--output-tokens-mean-deterministic"}, NULL, NULL,
     "also send min_tokens = max_tokens and ignore_eos (genperf accepts it for openai)"},
    {O_NUM_ENTRIES, K_POSINT, {"--num-dataset-entries", "--num-prompts"}, "N", NULL,
     "distinct prompts, cycled (default 100)"},
    {O_REQ_COUNT, K_INT, {"--request-count", "--num-requests"}, "N", NULL,
     "measured requests (default max(10, 2 x concurrency))"},
    {O_WARMUP, K_INT, {"--warmup-request-count", "--num-warmup-requests"}, "N", NULL,
     "requests sent first and excluded from every metric (default 0)"},
    {O_CONCURRENCY, K_INT, {"--concurrency"}, "N", NULL, "closed loop: N requests in flight (default 1)"},
    {O_RATE, K_FLOAT, {"--request-rate"}, "R", NULL, "open loop: R requests per second"},
    {O_SEED, K_INT, {"--random-seed"}, "SEED", NULL, "seed for prompts and Poisson arrivals (default 0)"},
    {O_EXPORT_FILE, K_STR, {"--profile-export-file"}, "FILE", NULL,
     "file name of the raw export inside the run directory (default profile_export.json)"},
    {O_ARTIFACT_DIR, K_STR, {"--artifact-dir"}, "DIR", NULL, "parent of the run directory (default artifacts)"},
    {O_EXTRA, K_APPEND, {"--extra-inputs"}, "NAME[:VALUE]", NULL,
     "key merged into every request body; or a JSON object (repeatable)"},
    {O_MEAS_INTERVAL, K_INT, {"--measurement-interval", "-p"}, "MS", NULL,
     "time windows of MS milliseconds instead of a request count"},
    {O_STABILITY, K_FLOAT, {"-s", "--stability-percentage"}, "PCT", NULL,
     "window stability threshold, 1..999 (default 999)"},
    {O_GOODPUT, K_LIST, {"-g", "--goodput"}, "NAME:VALUE", NULL, "goodput SLOs, e.g. time_to_first_token:100"},
    {O_INPUT_FILE, K_STR, {"--input-file"}, "FILE", NULL, "JSONL prompts instead of synthetic ones"},
    {O_METRICS_URL, K_LIST, {"--server-metrics-url", "--server-metrics-urls"}, "URL", NULL,
     "DCGM exporter URL(s) for GPU telemetry (default http://localhost:9400/metrics)"},
    {O_BACKEND, K_CHOICE, {"--backend"}, "{tensorrtllm,vllm}", backends, "Triton only; rejected with openai"},
    {O_BATCH, K_INT, {"-b", "--batch-size", "--batch-size-text"}, "N", NULL, "must be 1 for chat/completions"},
    {O_NUM_PREFIX, K_INT, {"--num-prefix-prompts"}, "N", NULL, "pool of shared prefix prompts (default 0)"},
    {O_PREFIX_LEN, K_INT, {"--prefix-prompt-length"}, "N", NULL, "tokens per prefix prompt (default 100)"},
    {O_VERBOSE, K_FLAG, {"-v", "--verbose"}, NULL, NULL, "more output"},
    {O_PLOTS, K_FLAG, {"--generate-plots"}, NULL, NULL, "not supported by genperf (ignored with a warning)"},
    {O_CHECKPOINTING, K_FLAG, {"--enable-checkpointing"}, NULL, NULL, "accepted, ignored"},
    {O_CHECKPOINT_DIR, K_STR, {"--checkpoint-dir"}, "DIR", NULL, "accepted, ignored"},
    {O_FIXED_SCHEDULE, K_STR, {"--fixed-schedule"}, "BOOL", NULL, "not supported by genperf"},
    {O_NUM_SESSIONS, K_INT, {"--num-sessions"}, "N", NULL, "not supported by genperf"},
    {O_SESSION_CONC, K_INT, {"--session-concurrency"}, "N", NULL, "not supported by genperf"},
    {O_TIMEOUT, K_FLOAT, {"--request-timeout"}, "SECONDS", NULL,
     "genperf: per-request timeout; a stalled request fails (default 600)"},
    {O_HTTP2, K_FLAG, {"--http2"}, NULL, NULL, "genperf: use HTTP/2 (h2c Upgrade on http://, ALPN on https://)"},
    {O_DISTRIBUTION, K_CHOICE, {"--request-distribution"}, "{constant,poisson}", distributions,
     "genperf: arrival process with --request-rate (default constant)"},
    {O_MAX_CONC, K_INT, {"--max-concurrency"}, "N", NULL, "genperf: cap on in-flight requests with --request-rate"},
    {O_DURATION, K_FLOAT, {"--duration"}, "SECONDS", NULL,
     "genperf: send for SECONDS, then stop (requests still in flight are dropped)"},
    {O_TELEM_INTERVAL, K_FLOAT, {"--telemetry-interval"}, "SECONDS", NULL, "genperf: telemetry sampling period (default 1)"},
    {O_NO_USAGE, K_FLAG, {"--no-include-usage"}, NULL, NULL,
     "genperf: do not send stream_options.include_usage when streaming"},
    {O_OFFLINE, K_FLAG, {"--offline"}, NULL, NULL, "genperf: never download a tokenizer"},
};
#define N_OPTS (sizeof opts / sizeof opts[0])

/* What the command line said, before GenAI-Perf's truthy copy. */
struct raw_val {
    int seen;
    const char *s;
    long i;
    double f;
};

/* Appends sep+item to the NUL-terminated list[cap], truncating at the end:
 * *len never passes cap - 1, so the next append cannot point past list. */
static void list_add(char *list, size_t cap, size_t *len, const char *sep, const char *item)
{
    if (*len + 1 >= cap)
        return;
    int w = snprintf(list + *len, cap - *len, "%s%s", sep, item);
    if (w > 0)
        *len = *len + (size_t)w < cap ? *len + (size_t)w : cap - 1;
}

static void opt_display(const struct opt *o, char *out, size_t outsz)
{
    out[0] = '\0';
    size_t len = 0;
    for (int i = 0; i < 4 && o->names[i]; i++)
        list_add(out, outsz, &len, i ? "/" : "", o->names[i]);
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
    cfg->include_usage = 1;
}

void gp_profile_config_free(struct profile_config *cfg)
{
    free(cfg->models);
    free(cfg->headers);
    free(cfg->slos);
    free(cfg->metrics_urls);
    if (cfg->extra_inputs)
        json_decref(cfg->extra_inputs);
    memset(cfg, 0, sizeof *cfg);
}

int gp_profile_float_repr(double x, char *out, size_t outsz)
{
    if (isnan(x))
        return snprintf(out, outsz, "nan");
    if (isinf(x))
        return snprintf(out, outsz, x < 0 ? "-inf" : "inf");
    char tmp[64];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, x);
        if (strtod(tmp, NULL) == x)
            break;
    }
    /* tmp = [-]d.ddde[+-]XX; Python picks fixed notation for -4 <= exp < 16. */
    char digits[32];
    size_t nd = 0;
    const char *p = tmp;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (isdigit((unsigned char)*p))
            digits[nd++] = *p;
    digits[nd] = '\0';
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        digits[--nd] = '\0';
    char res[64];
    size_t r = 0;
    if (neg)
        res[r++] = '-';
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            res[r++] = '0';
            res[r++] = '.';
            for (int i = 0; i < -exp - 1; i++)
                res[r++] = '0';
            for (size_t i = 0; i < nd; i++)
                res[r++] = digits[i];
        } else {
            for (int i = 0; i <= exp; i++)
                res[r++] = (size_t)i < nd ? digits[i] : '0';
            res[r++] = '.';
            if ((size_t)exp + 1 < nd)
                for (size_t i = (size_t)exp + 1; i < nd; i++)
                    res[r++] = digits[i];
            else
                res[r++] = '0';
        }
        res[r] = '\0';
    } else {
        res[r++] = digits[0];
        if (nd > 1) {
            res[r++] = '.';
            for (size_t i = 1; i < nd; i++)
                res[r++] = digits[i];
        }
        snprintf(res + r, sizeof res - r, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
    return snprintf(out, outsz, "%s", res);
}

void gp_profile_usage(FILE *fp, const char *prog, int full)
{
    fprintf(fp, "usage: %s [-h] -m MODEL [MODEL ...] [--endpoint-type {chat,completions}] [-u URL]\n"
                "       [--streaming] [--concurrency N | --request-rate R] [--request-count N]\n"
                "       [options ...] [-- ignored perf_analyzer args]\n",
            prog);
    if (!full)
        return;
    fprintf(fp, "\nGenAI-Perf 0.0.16 compatible benchmark of an OpenAI chat/completions endpoint.\n\noptions:\n");
    for (size_t i = 0; i < N_OPTS; i++) {
        char names[128];
        opt_display(&opts[i], names, sizeof names);
        for (char *c = names; *c; c++)
            if (*c == '/')
                *c = ',';
        char left[192];
        if (opts[i].metavar)
            snprintf(left, sizeof left, "%s %s", names, opts[i].metavar);
        else
            snprintf(left, sizeof left, "%s", names);
        if (strlen(left) > 36)
            fprintf(fp, "  %s\n  %-36s %s\n", left, "", opts[i].help);
        else
            fprintf(fp, "  %-36s %s\n", left, opts[i].help);
    }
    fprintf(fp, "\nExit status: 0 run completed; 1 invalid configuration or invalid run (e.g. every\n"
                "request failed); 2 usage error; 130 interrupted (artifacts of what was measured are written).\n");
}

/* argparse's allow_abbrev: an unambiguous prefix of a long option matches. */
static const struct opt *find_opt(const char *name, struct gp_error *err, int *ambiguous)
{
    *ambiguous = 0;
    for (size_t i = 0; i < N_OPTS; i++)
        for (int j = 0; j < 4 && opts[i].names[j]; j++)
            if (!strcmp(opts[i].names[j], name))
                return &opts[i];
    if (strncmp(name, "--", 2) != 0)
        return NULL;
    const struct opt *hit = NULL;
    char list[512] = "";
    size_t ll = 0;
    int nhits = 0;
    size_t n = strlen(name);
    for (size_t i = 0; i < N_OPTS; i++)
        for (int j = 0; j < 4 && opts[i].names[j]; j++)
            if (!strncmp(opts[i].names[j], name, n) && opts[i].names[j][1] == '-') {
                list_add(list, sizeof list, &ll, nhits ? ", " : "", opts[i].names[j]);
                nhits++;
                hit = &opts[i];
            }
    if (nhits == 1)
        return hit;
    if (nhits > 1) {
        *ambiguous = 1;
        gp_err(err, GP_EINVAL, "ambiguous option: %s could match %s", name, list);
    }
    return NULL;
}

static int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    long v = strtol(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || errno)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    double v = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

/* argparse treats a token as an option (not a value) if it starts with '-'
 * and is not a negative number. */
static int looks_like_option(const char *s)
{
    if (s[0] != '-' || !s[1])
        return 0;
    double d;
    if (parse_double(s, &d) == 0)
        return 0;
    return 1;
}

static int usage_err(struct profile_config *cfg, struct gp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int usage_err(struct profile_config *cfg, struct gp_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gp_verr(err, GP_EINVAL, fmt, ap);
    va_end(ap);
    cfg->usage_error = 1;
    return -GP_EINVAL;
}

static int config_err(struct profile_config *cfg, struct gp_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int config_err(struct profile_config *cfg, struct gp_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gp_verr(err, code, fmt, ap);
    va_end(ap);
    cfg->usage_error = 0;
    return -code;
}

static int push_str(const char ***arr, size_t *n, const char *s)
{
    const char **na = realloc(*arr, (*n + 1) * sizeof *na);
    if (!na)
        return -GP_ENOMEM;
    na[(*n)++] = s;
    *arr = na;
    return 0;
}

/* GenAI-Perf's --extra-inputs typing (common.py:60-104). */
static int add_extra_input(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    if (!cfg->extra_inputs && !(cfg->extra_inputs = json_object()))
        return -GP_ENOMEM;
    const char *hint = "Expected input format: 'input_name' or 'input_name:value'";
    if (s[0] == '{') {
        json_error_t je;
        json_t *obj = json_loads(s, JSON_DECODE_ANY, &je);
        if (!obj || !json_is_object(obj)) {
            if (obj)
                json_decref(obj);
            return config_err(cfg, err, GP_EINVAL,
                              "--extra-inputs %s: not a valid JSON object (%s); pass a JSON object or name:value", s,
                              je.text);
        }
        const char *k;
        json_t *v;
        json_object_foreach(obj, k, v) {
            if (json_object_get(cfg->extra_inputs, k)) {
                json_decref(obj);
                return config_err(cfg, err, GP_EINVAL, "Input name already exists in request_inputs dictionary: %s", k);
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
            return config_err(cfg, err, GP_EINVAL, "Input name or value is empty in --extra-inputs: %s\n%s", s, hint);
        snprintf(name, sizeof name, "%s", s);
        val = json_null();
    } else {
        if (strchr(colon + 1, ':'))
            return config_err(cfg, err, GP_EINVAL, "Invalid input format for --extra-inputs: %s\n%s", s, hint);
        size_t nl = (size_t)(colon - s);
        const char *v = colon + 1;
        if (nl == 0 || !*v)
            return config_err(cfg, err, GP_EINVAL, "Input name or value is empty in --extra-inputs: %s\n%s", s, hint);
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
        else if (alldig && ndot == 0)
            val = json_integer(strtoll(v, NULL, 10));
        else if (alldig && ndot == 1 && ndig > 0)
            val = json_real(strtod(v, NULL));
        else
            val = json_string(v);
    }
    if (json_object_get(cfg->extra_inputs, name)) {
        json_decref(val);
        return config_err(cfg, err, GP_EINVAL, "Input name already exists in request_inputs dictionary: %s", name);
    }
    json_object_set_new(cfg->extra_inputs, name, val);
    return 0;
}

static int add_goodput(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    const char *colon = strchr(s, ':');
    double v;
    if (!colon || colon == s || strchr(colon + 1, ':') || parse_double(colon + 1, &v) < 0 ||
        (size_t)(colon - s) >= sizeof cfg->slos[0].namebuf)
        return config_err(cfg, err, GP_EINVAL,
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
        gp_profile_float_repr(v, r, sizeof r);
        return config_err(cfg, err, GP_EINVAL,
                          "Invalid value found, %s: %s. The goodput constraint value should be non-negative. ",
                          slo->namebuf, r);
    }
    return 0;
}

static int bounds_lower0(struct profile_config *cfg, long v, struct gp_error *err)
{
    if (v < 0)
        return config_err(cfg, err, GP_EINVAL, "User Config: %ld exceeds lower bounds ({'lower': 0})", v);
    return 0;
}

int gp_profile_parse(struct profile_config *cfg, int argc, char **argv, const char *prog, struct gp_error *err)
{
    struct raw_val raw[O__COUNT];
    memset(raw, 0, sizeof raw);
    const struct opt *group_rate[O__COUNT] = {0};
    (void)group_rate;
    const struct opt *stim_seen = NULL, *meas_seen = NULL;
    int rc;
    (void)prog;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--")) {
            cfg->n_passthrough = argc - i - 1;
            break;
        }
        if (!looks_like_option(arg))
            return usage_err(cfg, err, "unrecognized arguments: %s", arg);
        char name[256];
        const char *inline_val = NULL;
        const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
        if (eq && (size_t)(eq - arg) < sizeof name) {
            memcpy(name, arg, (size_t)(eq - arg));
            name[eq - arg] = '\0';
            inline_val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", arg);
        }
        /* argparse also accepts "-m" glued to its value for one-letter options. */
        int ambiguous;
        const struct opt *o = find_opt(name, err, &ambiguous);
        if (!o && !ambiguous && arg[1] != '-' && strlen(arg) > 2) {
            char shortname[3] = {arg[0], arg[1], 0};
            const struct opt *so = find_opt(shortname, err, &ambiguous);
            if (so && so->kind != K_FLAG) {
                o = so;
                inline_val = arg + 2;
            }
        }
        if (ambiguous) {
            cfg->usage_error = 1;
            return -GP_EINVAL;
        }
        if (!o)
            return usage_err(cfg, err, "unrecognized arguments: %s", arg);
        char disp[160];
        opt_display(o, disp, sizeof disp);
        struct raw_val *rv = &raw[o->id];

        /* mutually exclusive groups (parser.py:616-655) */
        if (o->id == O_CONCURRENCY || o->id == O_RATE || o->id == O_FIXED_SCHEDULE) {
            if (stim_seen && stim_seen != o) {
                char d2[160];
                opt_display(stim_seen, d2, sizeof d2);
                return usage_err(cfg, err, "argument %s: not allowed with argument %s", disp, d2);
            }
            stim_seen = o;
        }
        if (o->id == O_REQ_COUNT || o->id == O_MEAS_INTERVAL || o->id == O_DURATION) {
            if (meas_seen && meas_seen != o) {
                char d2[160];
                opt_display(meas_seen, d2, sizeof d2);
                return usage_err(cfg, err, "argument %s: not allowed with argument %s", disp, d2);
            }
            meas_seen = o;
        }

        if (o->kind == K_FLAG) {
            if (inline_val)
                return usage_err(cfg, err, "argument %s: ignored explicit argument '%s'", disp, inline_val);
            rv->seen = 1;
            if (o->id == O_HELP) {
                cfg->help = 1;
                return 0;
            }
            continue;
        }
        if (o->kind == K_LIST) {
            size_t before;
            const char ***arr;
            size_t *n;
            switch (o->id) {
            case O_MODEL: arr = &cfg->models; n = &cfg->n_models; break;
            case O_METRICS_URL: arr = &cfg->metrics_urls; n = &cfg->n_metrics_urls; break;
            default: arr = NULL; n = NULL; break;
            }
            /* argparse replaces an earlier nargs='+' list when the flag repeats */
            if (arr) {
                free(*arr);
                *arr = NULL;
                *n = 0;
            } else if (o->id == O_GOODPUT) {
                free(cfg->slos);
                cfg->slos = NULL;
                cfg->n_slos = 0;
            }
            before = 0;
            if (inline_val) {
                if (arr ? push_str(arr, n, inline_val) : add_goodput(cfg, inline_val, err))
                    return -GP_EINVAL;
                before++;
            }
            while (i + 1 < argc && !looks_like_option(argv[i + 1]) && strcmp(argv[i + 1], "--")) {
                i++;
                if (arr) {
                    if (push_str(arr, n, argv[i]))
                        return gp_err(err, GP_ENOMEM, "out of memory");
                } else if ((rc = add_goodput(cfg, argv[i], err)) < 0) {
                    return rc;
                }
                before++;
            }
            if (!before)
                return usage_err(cfg, err, "argument %s: expected at least one argument", disp);
            rv->seen = 1;
            continue;
        }
        const char *val = inline_val;
        if (!val) {
            if (i + 1 >= argc || looks_like_option(argv[i + 1]) || !strcmp(argv[i + 1], "--"))
                return usage_err(cfg, err, "argument %s: expected one argument", disp);
            val = argv[++i];
        }
        rv->seen = 1;
        rv->s = val;
        switch (o->kind) {
        case K_INT:
            if (parse_long(val, &rv->i) < 0)
                return usage_err(cfg, err, "argument %s: invalid int value: '%s'", disp, val);
            break;
        case K_POSINT:
            if (parse_long(val, &rv->i) < 0)
                return usage_err(cfg, err, "argument %s: The value must be an integer.", disp);
            if (rv->i <= 0)
                return usage_err(cfg, err, "argument %s: The value must be greater than zero.", disp);
            break;
        case K_FLOAT:
            if (parse_double(val, &rv->f) < 0)
                return usage_err(cfg, err, "argument %s: invalid float value: '%s'", disp, val);
            break;
        case K_CHOICE: {
            int ok = 0;
            char list[512] = "";
            size_t ll = 0;
            for (int c = 0; o->choices[c]; c++) {
                if (!strcmp(o->choices[c], val))
                    ok = 1;
                char q[128];
                snprintf(q, sizeof q, "'%s'", o->choices[c]);
                list_add(list, sizeof list, &ll, c ? ", " : "", q);
            }
            if (!ok)
                return usage_err(cfg, err, "argument %s: invalid choice: '%s' (choose from %s)", disp, val, list);
            break;
        }
        case K_APPEND:
            if (o->id == O_HEADER) {
                if (push_str(&cfg->headers, &cfg->n_headers, val))
                    return gp_err(err, GP_ENOMEM, "out of memory");
            } else if (o->id == O_EXTRA) {
                if ((rc = add_extra_input(cfg, val, err)) < 0)
                    return rc;
            }
            break;
        default:
            break;
        }
        if (o->id == O_INPUT_FILE && !gp_is_file(val) && !gp_is_dir(val) && strncmp(val, "synthetic:", 10) &&
            strncmp(val, "payload:", 8))
            return usage_err(cfg, err, "argument --input-file: invalid file_or_directory value: '%s'", val);
    }

    /* ---- GenAI-Perf's config processing: copy only truthy values ---- */
    if (raw[O_MODEL_SEL].seen)
        cfg->model_random = !strcmp(raw[O_MODEL_SEL].s, "random");
    if (raw[O_ENDPOINT_TYPE].seen) {
        cfg->endpoint_type_given = 1;
        const char *t = raw[O_ENDPOINT_TYPE].s;
        if (!strcmp(t, "chat"))
            cfg->endpoint_type = GP_ENDPOINT_CHAT;
        else if (!strcmp(t, "completions"))
            cfg->endpoint_type = GP_ENDPOINT_COMPLETIONS;
        else
            return config_err(cfg, err, GP_ENOTSUP,
                              "--endpoint-type %s is not supported by genperf; use chat or completions", t);
    }
    if (raw[O_ENDPOINT].seen && raw[O_ENDPOINT].s[0]) {
        const char *e = raw[O_ENDPOINT].s;
        while (*e == ' ' || *e == '/')
            e++;
        snprintf(cfg->endpoint, sizeof cfg->endpoint, "%s", e);
    } else {
        snprintf(cfg->endpoint, sizeof cfg->endpoint, "%s",
                 cfg->endpoint_type == GP_ENDPOINT_CHAT ? "v1/chat/completions" : "v1/completions");
    }
    if (raw[O_URL].seen && raw[O_URL].s[0]) {
        cfg->url = raw[O_URL].s;
        cfg->url_given = 1;
    }
    cfg->streaming = raw[O_STREAMING].seen;
    if (raw[O_TOKENIZER].seen && raw[O_TOKENIZER].s[0])
        cfg->tokenizer = raw[O_TOKENIZER].s;
    if (raw[O_TOK_REV].seen && raw[O_TOK_REV].s[0])
        cfg->tokenizer_revision = raw[O_TOK_REV].s;
    cfg->trust_remote_code = raw[O_TOK_TRUST].seen;
    if (raw[O_ISL].i) {
        if ((rc = bounds_lower0(cfg, raw[O_ISL].i, err)) < 0)
            return rc;
        cfg->isl_mean = raw[O_ISL].i;
    }
    if (raw[O_ISL_STD].i) {
        if ((rc = bounds_lower0(cfg, raw[O_ISL_STD].i, err)) < 0)
            return rc;
        cfg->isl_stddev = raw[O_ISL_STD].i;
    }
    if (raw[O_OSL].i) {
        if ((rc = bounds_lower0(cfg, raw[O_OSL].i, err)) < 0)
            return rc;
        cfg->osl_mean = raw[O_OSL].i;
    }
    if (raw[O_OSL_STD].i) {
        if ((rc = bounds_lower0(cfg, raw[O_OSL_STD].i, err)) < 0)
            return rc;
        cfg->osl_stddev = raw[O_OSL_STD].i;
    }
    cfg->osl_deterministic = raw[O_OSL_DET].seen;
    if (raw[O_NUM_ENTRIES].i)
        cfg->num_entries = raw[O_NUM_ENTRIES].i;
    if (raw[O_WARMUP].i) {
        if ((rc = bounds_lower0(cfg, raw[O_WARMUP].i, err)) < 0)
            return rc;
        cfg->warmup = raw[O_WARMUP].i;
    }
    if (raw[O_CONCURRENCY].i)
        cfg->concurrency = raw[O_CONCURRENCY].i;
    if (raw[O_RATE].f != 0) {
        cfg->request_rate = raw[O_RATE].f;
        cfg->concurrency = 0;
    }
    if (raw[O_SEED].i)
        cfg->seed = (uint64_t)raw[O_SEED].i;
    if (raw[O_EXPORT_FILE].seen && raw[O_EXPORT_FILE].s[0])
        cfg->profile_export_file = raw[O_EXPORT_FILE].s;
    if (raw[O_ARTIFACT_DIR].seen && raw[O_ARTIFACT_DIR].s[0])
        cfg->artifact_dir = raw[O_ARTIFACT_DIR].s;
    if (raw[O_MEAS_INTERVAL].i)
        cfg->measurement_interval_ms = raw[O_MEAS_INTERVAL].i;
    if (raw[O_STABILITY].f != 0) {
        double s = raw[O_STABILITY].f;
        char r[64];
        gp_profile_float_repr(s, r, sizeof r);
        if (!(s >= 1))
            return config_err(cfg, err, GP_EINVAL, "User Config: %s exceeds lower bounds ({'lower': 1, 'upper': 999})", r);
        if (s > 999)
            return config_err(cfg, err, GP_EINVAL, "User Config: %s exceeds upper bounds ({'lower': 1, 'upper': 999})", r);
        cfg->stability = s;
        cfg->stability_given = 1;
    }
    if (raw[O_INPUT_FILE].seen && raw[O_INPUT_FILE].s[0])
        cfg->input_file = raw[O_INPUT_FILE].s;
    cfg->metrics_urls_given = cfg->n_metrics_urls > 0;
    cfg->backend_given = raw[O_BACKEND].seen;
    if (raw[O_BATCH].i)
        cfg->batch_size = raw[O_BATCH].i;
    if (raw[O_NUM_PREFIX].i)
        cfg->num_prefix_prompts = raw[O_NUM_PREFIX].i;
    if (raw[O_PREFIX_LEN].i)
        cfg->prefix_prompt_length = raw[O_PREFIX_LEN].i;
    cfg->verbose = raw[O_VERBOSE].seen;
    cfg->generate_plots = raw[O_PLOTS].seen;
    cfg->enable_checkpointing = raw[O_CHECKPOINTING].seen;
    if (raw[O_CHECKPOINT_DIR].seen && raw[O_CHECKPOINT_DIR].s[0])
        cfg->checkpoint_dir = raw[O_CHECKPOINT_DIR].s;
    /* ours */
    if (raw[O_TIMEOUT].seen) {
        if (!(raw[O_TIMEOUT].f > 0))
            return config_err(cfg, err, GP_EINVAL, "--request-timeout %s: must be a positive number of seconds",
                              raw[O_TIMEOUT].s);
        cfg->request_timeout_s = raw[O_TIMEOUT].f;
    }
    cfg->http2 = raw[O_HTTP2].seen;
    cfg->poisson = raw[O_DISTRIBUTION].seen && !strcmp(raw[O_DISTRIBUTION].s, "poisson");
    if (raw[O_MAX_CONC].seen) {
        if (raw[O_MAX_CONC].i < 1)
            return config_err(cfg, err, GP_EINVAL, "--max-concurrency %ld: must be >= 1", raw[O_MAX_CONC].i);
        cfg->max_concurrency = raw[O_MAX_CONC].i;
    }
    if (raw[O_DURATION].seen) {
        if (!(raw[O_DURATION].f > 0))
            return config_err(cfg, err, GP_EINVAL, "--duration %s: must be a positive number of seconds",
                              raw[O_DURATION].s);
        cfg->duration_s = raw[O_DURATION].f;
    }
    if (raw[O_TELEM_INTERVAL].seen) {
        if (!(raw[O_TELEM_INTERVAL].f > 0))
            return config_err(cfg, err, GP_EINVAL, "--telemetry-interval %s: must be a positive number of seconds",
                              raw[O_TELEM_INTERVAL].s);
        cfg->telemetry_interval_s = raw[O_TELEM_INTERVAL].f;
    }
    cfg->include_usage = !raw[O_NO_USAGE].seen;
    cfg->offline = raw[O_OFFLINE].seen;

    /* ---- cross-field validation (GenAI-Perf order where it has one) ---- */
    if (cfg->n_models == 0)
        return config_err(cfg, err, GP_EINVAL, "Required field model_names is not set (pass -m MODEL)");
    if (!cfg->tokenizer)
        cfg->tokenizer = cfg->models[0];
    if (raw[O_OSL_STD].i && cfg->osl_mean < 0)
        return config_err(cfg, err, GP_EINVAL, "User Config: If output tokens stddev is set, mean must also be set");
    if (cfg->osl_deterministic && cfg->osl_mean < 0)
        return config_err(cfg, err, GP_EINVAL,
                          "User Config: If output tokens deterministic is set, mean must also be set");
    if (strchr(cfg->profile_export_file, '/'))
        return config_err(cfg, err, GP_EINVAL,
                          "Please use artifact_directory option to define intermediary paths to the "
                          "profile_export_file.");
    if (cfg->backend_given)
        return config_err(cfg, err, GP_EINVAL,
                          "The backend should only be used with the following combination: 'service_kind: triton' & "
                          "'type: kserve'");
    if (cfg->batch_size != 1)
        return config_err(cfg, err, GP_EINVAL, "The --batch-size-text flag is not supported for %s.",
                          cfg->endpoint_type == GP_ENDPOINT_CHAT ? "openai_chat_completions" : "openai_completions");
    if (raw[O_FIXED_SCHEDULE].seen && raw[O_FIXED_SCHEDULE].s[0])
        return config_err(cfg, err, GP_ENOTSUP, "--fixed-schedule is not supported by genperf; use --request-rate");
    if (raw[O_NUM_SESSIONS].i || raw[O_SESSION_CONC].i)
        return config_err(cfg, err, GP_ENOTSUP,
                          "multi-turn sessions (--num-sessions, --session-concurrency) are not supported by genperf");
    if (cfg->concurrency < 0)
        return config_err(cfg, err, GP_EINVAL, "--concurrency %ld: must be >= 1", cfg->concurrency);
    if (cfg->request_rate != 0 && cfg->request_rate < 1e-6)
        return config_err(cfg, err, GP_EINVAL, "--request-rate %s: must be at least 0.000001 requests per second",
                          raw[O_RATE].s);
    if (cfg->request_timeout_s > 1e7 || cfg->duration_s > 1e7 || cfg->telemetry_interval_s > 1e7)
        return config_err(cfg, err, GP_EINVAL,
                          "--request-timeout / --duration / --telemetry-interval: at most 10000000 seconds");
    if (cfg->measurement_interval_ms > 1000000000L)
        return config_err(cfg, err, GP_EINVAL, "--measurement-interval %ld: at most 1000000000 ms",
                          cfg->measurement_interval_ms);
    if (cfg->request_rate < 0 || !isfinite(cfg->request_rate))
        return config_err(cfg, err, GP_EINVAL, "--request-rate %s: must be a positive number of requests per second",
                          raw[O_RATE].s);
    if (cfg->max_concurrency && cfg->request_rate == 0)
        return config_err(cfg, err, GP_EINVAL, "--max-concurrency only applies with --request-rate; use --concurrency");
    if (cfg->poisson && cfg->request_rate == 0)
        return config_err(cfg, err, GP_EINVAL, "--request-distribution only applies with --request-rate");
    if (cfg->measurement_interval_ms < 0)
        return config_err(cfg, err, GP_EINVAL, "--measurement-interval %ld: must be a positive number of ms",
                          cfg->measurement_interval_ms);
    if (raw[O_REQ_COUNT].i) {
        if (raw[O_REQ_COUNT].i < 0)
            return config_err(cfg, err, GP_EINVAL, "--request-count %ld: must be >= 1", raw[O_REQ_COUNT].i);
        cfg->request_count = raw[O_REQ_COUNT].i;
        cfg->request_count_given = 1;
    } else {
        /* perf_analyzer_config.py:376-398 */
        cfg->request_count = 2 * cfg->concurrency > 10 ? 2 * cfg->concurrency : 10;
    }
    if (!cfg->measurement_interval_ms && cfg->duration_s == 0) {
        /* perf_analyzer's own checks (command_line_parser.cc:2129-2150) */
        if (cfg->request_rate == 0 && cfg->request_count < cfg->concurrency)
            return config_err(cfg, err, GP_EINVAL,
                              "--request-count can not be less than concurrency (%ld < %ld); raise --request-count",
                              cfg->request_count, cfg->concurrency);
        if (cfg->request_rate > 0 && (double)cfg->request_count < cfg->request_rate) {
            char r[64];
            gp_profile_float_repr(cfg->request_rate, r, sizeof r);
            return config_err(cfg, err, GP_EINVAL,
                              "--request-count can not be less than request_rate (%ld < %s); pass --request-count N "
                              "with N >= the rate (GenAI-Perf's default count is 10)",
                              cfg->request_count, r);
        }
    }
    return 0;
}

const char *gp_profile_endpoint_type_name(const struct profile_config *cfg)
{
    return cfg->endpoint_type == GP_ENDPOINT_CHAT ? "chat" : "completions";
}

const char *gp_profile_mode(const struct profile_config *cfg)
{
    return cfg->request_rate > 0 ? "request_rate" : "concurrency";
}

int gp_profile_run_name(const struct profile_config *cfg, char *out, size_t outsz)
{
    char name[1024], stim[96];
    snprintf(name, sizeof name, "%s%s", cfg->models[0], cfg->n_models > 1 ? "_multi" : "");
    for (char *c = name; *c; c++)
        if (*c == '/')
            *c = '_';
    if (cfg->request_rate > 0) {
        char r[64];
        gp_profile_float_repr(cfg->request_rate, r, sizeof r);
        snprintf(stim, sizeof stim, "request_rate%s", r);
    } else {
        snprintf(stim, sizeof stim, "concurrency%ld", cfg->concurrency);
    }
    int n = snprintf(out, outsz, "%s-openai-%s-%s", name, gp_profile_endpoint_type_name(cfg), stim);
    return n < 0 || (size_t)n >= outsz ? -GP_EINVAL : 0;
}

int gp_profile_run_dir(const struct profile_config *cfg, char *out, size_t outsz)
{
    char name[2048];
    if (gp_profile_run_name(cfg, name, sizeof name) < 0)
        return -GP_EINVAL;
    return gp_path_join(out, outsz, cfg->artifact_dir, name);
}

/* jansson helpers that keep the build-up readable; a NULL from an
 * allocation propagates to the top-level check (json_object_set_new
 * tolerates NULL values by failing). */
static json_t *str_list(const char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *mean_stddev(json_int_t mean, json_int_t stddev)
{
    return json_pack("{s:I, s:I}", "mean", mean, "stddev", stddev);
}

json_t *gp_profile_input_config(const struct profile_config *cfg)
{
    static const char *const default_metrics_url[] = {"http://localhost:9400/metrics"};
    json_t *root = json_object();
    if (!root)
        return NULL;
    int bad = 0;
#define SET(obj, key, val) bad |= json_object_set_new((obj), (key), (val))
    SET(root, "model_names", str_list(cfg->models, cfg->n_models));
    SET(root, "subcommand", json_string("profile"));
    SET(root, "verbose", json_boolean(cfg->verbose));
    SET(root, "template_filename", json_string("genai_perf_config.yaml"));
    SET(root, "analyze", json_pack("{s:{s:{s:i, s:i}}}", "sweep_parameters", "concurrency", "min", 1, "max", 1024));

    json_t *ep = json_object();
    SET(root, "endpoint", ep);
    if (ep) {
        SET(ep, "model_selection_strategy", json_string(cfg->model_random ? "random" : "round_robin"));
        SET(ep, "backend", json_string("tensorrtllm"));
        SET(ep, "custom", json_string(cfg->endpoint));
        SET(ep, "type", json_string(gp_profile_endpoint_type_name(cfg)));
        SET(ep, "streaming", json_boolean(cfg->streaming));
        SET(ep, "server_metrics_urls", cfg->metrics_urls_given ? str_list(cfg->metrics_urls, cfg->n_metrics_urls)
                                                               : str_list(default_metrics_url, 1));
        SET(ep, "url", json_string(cfg->url_given ? cfg->url : "localhost:8001"));
        SET(ep, "grpc_method", json_string(""));
        SET(ep, "service_kind", json_string("openai"));
        SET(ep, "output_format",
            json_string(cfg->endpoint_type == GP_ENDPOINT_CHAT ? "openai_chat_completions" : "openai_completions"));
    }

    json_t *pa = json_object();
    SET(root, "perf_analyzer", pa);
    if (pa) {
        SET(pa, "path", json_string("perf_analyzer"));
        SET(pa, "verbose", json_boolean(cfg->verbose));
        if (cfg->request_rate > 0)
            SET(pa, "stimulus", json_pack("{s:f}", "request_rate", cfg->request_rate));
        else
            SET(pa, "stimulus", json_pack("{s:I}", "concurrency", (json_int_t)cfg->concurrency));
        SET(pa, "stability_percentage", cfg->stability_given ? json_real(cfg->stability) : json_integer(999));
        json_t *meas = json_object();
        SET(pa, "measurement", meas);
        if (meas) {
            if (cfg->measurement_interval_ms) {
                SET(meas, "mode", json_string("interval"));
                SET(meas, "num", json_integer(cfg->measurement_interval_ms));
            } else {
                SET(meas, "mode", json_string("request_count"));
                SET(meas, "num", cfg->request_count_given ? json_integer(cfg->request_count) : json_string(""));
            }
        }
        SET(pa, "warmup_request_count", json_integer(cfg->warmup));
    }

    json_t *in = json_object();
    SET(root, "input", in);
    if (in) {
        SET(in, "batch_size", json_integer(cfg->batch_size));
        SET(in, "extra", cfg->extra_inputs ? json_deep_copy(cfg->extra_inputs) : json_string(""));
        if (cfg->n_slos) {
            json_t *g = json_object();
            for (size_t i = 0; g && i < cfg->n_slos; i++)
                SET(g, cfg->slos[i].namebuf, json_real(cfg->slos[i].value));
            SET(in, "goodput", g);
        } else {
            SET(in, "goodput", json_string(""));
        }
        SET(in, "header", cfg->n_headers ? str_list(cfg->headers, cfg->n_headers) : json_string(""));
        SET(in, "file", json_string(cfg->input_file ? cfg->input_file : ""));
        SET(in, "num_dataset_entries", json_integer(cfg->num_entries));
        SET(in, "random_seed", json_integer((json_int_t)cfg->seed));
        SET(in, "audio",
            json_pack("{s:i, s:o, s:s, s:[i], s:[i], s:i}", "batch_size", 1, "length", mean_stddev(0, 0), "format",
                      "wav", "depths", 16, "sample_rates", 16, "num_channels", 1));
        SET(in, "image",
            json_pack("{s:o, s:o, s:i, s:s}", "width", mean_stddev(0, 0), "height", mean_stddev(0, 0), "batch_size", 1,
                      "format", "png"));
        json_t *ot = json_object();
        SET(in, "output_tokens", ot);
        if (ot) {
            SET(ot, "mean", cfg->osl_mean >= 0 ? json_integer(cfg->osl_mean) : json_string(""));
            SET(ot, "deterministic", json_boolean(cfg->osl_deterministic));
            SET(ot, "stddev", json_integer(cfg->osl_stddev));
        }
        SET(in, "synthetic_tokens", mean_stddev(cfg->isl_mean, cfg->isl_stddev));
        SET(in, "prefix_prompt",
            json_pack("{s:I, s:I}", "num", (json_int_t)cfg->num_prefix_prompts, "length",
                      (json_int_t)cfg->prefix_prompt_length));
        SET(in, "sessions",
            json_pack("{s:i, s:{s:i, s:i}, s:{s:i, s:f, s:i}}", "num", 0, "turns", "mean", 1, "stddev", 0,
                      "turn_delay", "mean", 0, "ratio", 1.0, "stddev", 0));
        SET(in, "prompt_source", json_string(cfg->input_file ? "file" : "synthetic"));
        SET(in, "synthetic_files", json_array());
        SET(in, "payload_file", json_string(""));
    }

    SET(root, "output",
        json_pack("{s:s, s:s, s:s, s:b, s:b}", "artifact_directory", cfg->artifact_dir, "checkpoint_directory",
                  cfg->checkpoint_dir, "profile_export_file", cfg->profile_export_file, "generate_plots",
                  cfg->generate_plots, "enable_checkpointing", cfg->enable_checkpointing));
    SET(root, "tokenizer",
        json_pack("{s:s, s:s, s:b, s:b}", "name", cfg->tokenizer, "revision", cfg->tokenizer_revision,
                  "trust_remote_code", cfg->trust_remote_code, "_enable_debug_logging", 1));
    SET(root, "process", json_pack("{s:s}", "input_path", "aggregated"));
#undef SET
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}
