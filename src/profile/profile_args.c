/* profile/profile_args.c — the `profile` flag parser: argparse-compatible
 * spelling, prefixes and messages, GenAI-Perf's copy of truthy values into
 * struct profile_config, and the checks GenAI-Perf does after argparse.
 *
 * One table drives all of it: a row names the flag (every spelling), how argv
 * gives its value, and how that value lands in the config (a copy rule and
 * the offsetof() of its field), so adding a flag is adding a row. Parsing is
 * three passes: argv -> raw values (parse_argv), raw -> config in table order
 * (copy_values), cross-flag checks (validate). See profile_config.h for
 * ownership.
 */
#include "profile/profile_config.h"
#include "core/pytext.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How argv gives the value. */
enum opt_kind { K_FLAG, K_STR, K_INT, K_POSINT, K_FLOAT, K_LIST, K_APPEND, K_CHOICE,
                K_LIST0 /* nargs='*': as K_LIST, zero items allowed (then the default stays) */ };

/* How the value reaches the config. GenAI-Perf copies a value only when it
 * is truthy, so `--concurrency 0` keeps the default (profile_config.h). */
enum copy_rule {
    C_NONE,      /* lists (stored while parsing) and flags only the cross-flag checks read */
    C_SEEN,      /* int = the flag was given */
    C_UNSEEN,    /* int = the flag was not given (--no-...) */
    C_STR,       /* const char * = the value, when not empty */
    C_STR_GIVEN, /* as C_STR, and the int at aux = 1 */
    C_LONG,      /* long = the value, when not 0 */
    C_LONG0,     /* as C_LONG, after GenAI-Perf's lower bound 0 */
    C_DOUBLE0,   /* double = the value, when not 0, after GenAI-Perf's lower bound 0 */
    C_U64,       /* uint64_t = the value, when not 0 */
    C_LONG_MIN1, /* genperf's flags: long = the value when given; it must be >= 1 */
    C_SECS,      /* genperf's flags: double = the value when given; it must be > 0 */
    C_CHOICE1,   /* int = the value is the second choice (random, poisson) */
    C_DOUBLE,    /* double = the value, when not 0 (GenAI-Perf's truthy copy of a float) */
    C_HOOK,      /* the row's hook does it (always called, given or not) */
};

enum opt_id {
    O_HELP, O_MODEL, O_MODEL_SEL, O_ENDPOINT_TYPE, O_ENDPOINT, O_URL, O_STREAMING, O_HEADER,
    O_TOKENIZER, O_TOK_REV, O_TOK_TRUST, O_ISL, O_ISL_STD, O_OSL, O_OSL_STD, O_OSL_DET,
    O_NUM_ENTRIES, O_REQ_COUNT, O_WARMUP, O_CONCURRENCY, O_RATE, O_SEED, O_EXPORT_FILE,
    O_ARTIFACT_DIR, O_EXTRA, O_MEAS_INTERVAL, O_STABILITY, O_GOODPUT, O_INPUT_FILE,
    O_METRICS_URL, O_BACKEND, O_BATCH, O_NUM_PREFIX, O_PREFIX_LEN, O_VERBOSE, O_PLOTS,
    O_CHECKPOINTING, O_CHECKPOINT_DIR, O_FIXED_SCHEDULE, O_NUM_SESSIONS, O_SESSION_CONC,
    O_TURNS_MEAN, O_TURNS_STD, O_TURN_DELAY_MEAN, O_TURN_DELAY_STD, O_DELAY_RATIO,
    O_RATE_MODE, O_BURSTINESS, O_RAMP, O_TRACE_SPEEDUP,
    /* GenAI-Perf's media, batch, gRPC and session-shape flags (issue 15) */
    O_AUDIO_LEN, O_AUDIO_LEN_STD, O_AUDIO_FORMAT, O_AUDIO_DEPTHS, O_AUDIO_RATES, O_AUDIO_CHANNELS,
    O_IMAGE_W, O_IMAGE_W_STD, O_IMAGE_H, O_IMAGE_H_STD, O_IMAGE_FORMAT, O_BATCH_AUDIO, O_BATCH_IMAGE,
    O_GRPC_METHOD,
    /* ours */
    O_TIMEOUT, O_HTTP2, O_DISTRIBUTION, O_MAX_CONC, O_DURATION, O_TELEM_INTERVAL, O_SERVER_USAGE,
    O_OFFLINE, O_REDACT, O_API_KEY_FILE, O_CACERT, O_INSECURE, O_MAX_RESP, O_MAX_FAIL,
    /* scale-out (issue 17) */
    O_WORKERS, O_URL_STRATEGY,
    O__COUNT
};

/* mutually exclusive groups (parser.py:616-655) */
enum { G_NONE, G_STIMULUS, G_MEASUREMENT };

struct opt {
    enum opt_id id;
    enum opt_kind kind;
    const char *names[4];   /* in argparse definition order: shown joined by '/' */
    const char *metavar;
    const char *const *choices;
    const char *help;
    int group;
    enum copy_rule copy;
    size_t off;             /* its field in struct profile_config (copy rule / list array) */
    size_t aux;             /* C_STR_GIVEN: the int "given" field; K_LIST/K_APPEND: the size_t count */
    /* K_LIST/K_APPEND: adds one item (NULL: append the string to the array
     * at off); K_STR: checks the value while parsing (usage error). */
    int (*value)(struct profile_config *cfg, const char *s, struct gp_error *err);
    int (*hook)(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err); /* C_HOOK */
};

#define F(field) offsetof(struct profile_config, field)
#define FIELD(cfg, off, type) ((type *)(void *)((char *)(cfg) + (off)))

static const char *const endpoint_types[] = {
    "chat", "completions", "dynamic_grpc", "embeddings", "huggingface_generate", "image_retrieval",
    "nvclip", "rankings", "multimodal", "generate", "kserve", "template", "tensorrtllm_engine",
    "vision", NULL};
static const char *const strategies[] = {"round_robin", "random", NULL};
static const char *const backends[] = {"tensorrtllm", "vllm", NULL};
static const char *const distributions[] = {"constant", "poisson", NULL};
static const char *const rate_modes[] = {"constant", "poisson", "gamma", NULL};
static const char *const image_formats[] = {"png", "jpeg", NULL};
static const char *const audio_formats[] = {"wav", "mp3", NULL};
static const char *const channel_counts[] = {"1", "2", NULL}; /* type=int, choices=[1, 2] */
static const char *const url_strategies[] = {"round_robin", "least_in_flight", NULL};

/* Table order is argparse's (--help) and the order GenAI-Perf copies and
 * checks values in, which decides which error a bad command line reports. */
static const struct opt opts[] = {
    {O_HELP, K_FLAG, {"-h", "--help"}, NULL, NULL, "show this help message and exit", .copy = C_NONE},
    {O_MODEL, K_LIST, {"-m", "--model"}, "MODEL", NULL, "the model name(s) sent in every request (required)",
     .copy = C_NONE, .off = F(models), .aux = F(n_models)},
    {O_MODEL_SEL, K_CHOICE, {"--model-selection-strategy"}, "{round_robin,random}", strategies,
     "how dataset rows pick a model when several -m are given (default round_robin)",
     .copy = C_CHOICE1, .off = F(model_random)},
    {O_ENDPOINT_TYPE, K_CHOICE, {"--endpoint-type"}, "{chat,completions,...}", endpoint_types,
     "chat, completions, embeddings (/v1/embeddings), rankings (/v1/ranking), multimodal or vision",
     .copy = C_HOOK, .hook = gp_profile_copy_endpoint_type},
    {O_ENDPOINT, K_STR, {"--endpoint"}, "ENDPOINT", NULL, "custom endpoint path (default from --endpoint-type)",
     .copy = C_HOOK, .hook = gp_profile_copy_endpoint},
    {O_URL, K_STR, {"-u", "--url"}, "URL", NULL, "server base URL, without the endpoint path (default localhost:8000)",
     .copy = C_STR_GIVEN, .off = F(url), .aux = F(url_given), .value = gp_profile_add_url},
    {O_STREAMING, K_FLAG, {"--streaming"}, NULL, NULL, "send \"stream\": true and measure every chunk",
     .copy = C_SEEN, .off = F(streaming)},
    {O_HEADER, K_APPEND, {"-H", "--header"}, "HEADER", NULL, "extra HTTP header 'Name: value' (repeatable)",
     .copy = C_NONE, .off = F(headers), .aux = F(n_headers)},
    {O_TOKENIZER, K_STR, {"--tokenizer"}, "TOKENIZER", NULL,
     "tokenizer: HF hub id, tokenizer.json path or 'builtin' (default: the model name)",
     .copy = C_STR, .off = F(tokenizer)},
    {O_TOK_REV, K_STR, {"--tokenizer-revision"}, "REVISION", NULL, "hub revision (default main)",
     .copy = C_STR, .off = F(tokenizer_revision)},
    {O_TOK_TRUST, K_FLAG, {"--tokenizer-trust-remote-code"}, NULL, NULL, "accepted for compatibility",
     .copy = C_SEEN, .off = F(trust_remote_code)},
    {O_ISL, K_INT, {"--synthetic-input-tokens-mean", "--isl"}, "N", NULL, "mean prompt length in tokens (default 550)",
     .copy = C_LONG0, .off = F(isl_mean)},
    {O_ISL_STD, K_INT, {"--synthetic-input-tokens-stddev"}, "N", NULL, "stddev of the prompt length (default 0)",
     .copy = C_LONG0, .off = F(isl_stddev)},
    {O_OSL, K_INT, {"--output-tokens-mean", "--osl"}, "N", NULL, "mean max_tokens per request (default: not sent)",
     .copy = C_LONG0, .off = F(osl_mean)},
    {O_OSL_STD, K_INT, {"--output-tokens-stddev"}, "N", NULL, "stddev of max_tokens (default 0)",
     .copy = C_LONG0, .off = F(osl_stddev)},
    {O_OSL_DET, K_FLAG, {"--output-tokens-mean-deterministic"}, NULL, NULL,
     "also send min_tokens = max_tokens and ignore_eos (genperf accepts it for openai)",
     .copy = C_SEEN, .off = F(osl_deterministic)},
    {O_NUM_ENTRIES, K_POSINT, {"--num-dataset-entries", "--num-prompts"}, "N", NULL,
     "distinct prompts, cycled (default 100)", .copy = C_LONG, .off = F(num_entries)},
    {O_REQ_COUNT, K_INT, {"--request-count", "--num-requests"}, "N", NULL,
     "measured requests (default max(10, 2 x concurrency))", .group = G_MEASUREMENT, .copy = C_NONE},
    {O_WARMUP, K_INT, {"--warmup-request-count", "--num-warmup-requests"}, "N", NULL,
     "requests sent first and excluded from every metric (default 0)", .copy = C_LONG0, .off = F(warmup)},
    {O_CONCURRENCY, K_INT, {"--concurrency"}, "N", NULL, "closed loop: N requests in flight (default 1)",
     .group = G_STIMULUS, .copy = C_LONG, .off = F(concurrency)},
    {O_RATE, K_FLOAT, {"--request-rate"}, "R", NULL, "open loop: R requests per second",
     .group = G_STIMULUS, .copy = C_HOOK, .hook = gp_profile_copy_rate},
    {O_SEED, K_INT, {"--random-seed"}, "SEED", NULL, "seed for prompts and Poisson arrivals (default 0)",
     .copy = C_U64, .off = F(seed)},
    {O_EXPORT_FILE, K_STR, {"--profile-export-file"}, "FILE", NULL,
     "file name of the raw export inside the run directory (default profile_export.json)",
     .copy = C_STR, .off = F(profile_export_file)},
    {O_ARTIFACT_DIR, K_STR, {"--artifact-dir"}, "DIR", NULL, "parent of the run directory (default artifacts)",
     .copy = C_STR, .off = F(artifact_dir)},
    {O_EXTRA, K_APPEND, {"--extra-inputs"}, "NAME[:VALUE]", NULL,
     "key merged into every request body; or a JSON object (repeatable)", .copy = C_NONE, .value = gp_profile_add_extra_input},
    {O_MEAS_INTERVAL, K_INT, {"--measurement-interval", "-p"}, "MS", NULL,
     "time windows of MS milliseconds instead of a request count",
     .group = G_MEASUREMENT, .copy = C_LONG, .off = F(measurement_interval_ms)},
    {O_STABILITY, K_FLOAT, {"-s", "--stability-percentage"}, "PCT", NULL,
     "window stability threshold, 1..999 (default 999)", .copy = C_HOOK, .hook = gp_profile_copy_stability},
    {O_GOODPUT, K_LIST, {"-g", "--goodput"}, "NAME:VALUE", NULL, "goodput SLOs, e.g. time_to_first_token:100",
     .copy = C_NONE, .off = F(slos), .aux = F(n_slos), .value = gp_profile_add_goodput},
    {O_INPUT_FILE, K_STR, {"--input-file"}, "FILE", NULL, "JSONL prompts instead of synthetic ones",
     .copy = C_STR, .off = F(input_file), .value = gp_profile_check_input_file},
    {O_METRICS_URL, K_LIST, {"--server-metrics-url", "--server-metrics-urls"}, "URL", NULL,
     "DCGM exporter URL(s) for GPU telemetry (default http://localhost:9400/metrics)",
     .copy = C_HOOK, .off = F(metrics_urls), .aux = F(n_metrics_urls), .hook = gp_profile_copy_metrics_urls},
    {O_BACKEND, K_CHOICE, {"--backend"}, "{tensorrtllm,vllm}", backends, "Triton only; rejected with openai",
     .copy = C_SEEN, .off = F(backend_given)},
    {O_BATCH, K_INT, {"--batch-size-text", "--batch-size", "-b"}, "N", NULL,
     "texts per request: completions, embeddings, rankings passages (default 1)",
     .copy = C_LONG, .off = F(batch_size)},
    {O_NUM_PREFIX, K_INT, {"--num-prefix-prompts"}, "N", NULL, "pool of shared prefix prompts (default 0)",
     .copy = C_LONG, .off = F(num_prefix_prompts)},
    {O_PREFIX_LEN, K_INT, {"--prefix-prompt-length"}, "N", NULL, "tokens per prefix prompt (default 100)",
     .copy = C_LONG, .off = F(prefix_prompt_length)},
    {O_VERBOSE, K_FLAG, {"-v", "--verbose"}, NULL, NULL, "more output", .copy = C_SEEN, .off = F(verbose)},
    {O_PLOTS, K_FLAG, {"--generate-plots"}, NULL, NULL, "not supported by genperf (ignored with a warning)",
     .copy = C_SEEN, .off = F(generate_plots)},
    {O_CHECKPOINTING, K_FLAG, {"--enable-checkpointing"}, NULL, NULL, "accepted, ignored",
     .copy = C_SEEN, .off = F(enable_checkpointing)},
    {O_CHECKPOINT_DIR, K_STR, {"--checkpoint-dir"}, "DIR", NULL, "accepted, ignored",
     .copy = C_STR, .off = F(checkpoint_dir)},
    /* workload shapes (issue 16): GenAI-Perf 0.0.16's session and fixed-schedule flags, then genperf's */
    {O_FIXED_SCHEDULE, K_STR, {"--fixed-schedule"}, "BOOL", NULL,
     "true: send each --input-file payload:FILE row at its timestamp (ms), open loop",
     .group = G_STIMULUS, .copy = C_HOOK, .hook = gp_profile_copy_fixed_schedule},
    {O_NUM_SESSIONS, K_INT, {"--num-sessions"}, "N", NULL, "synthetic multi-turn sessions (default 0: none)",
     .copy = C_LONG, .off = F(sessions.num_sessions)},
    {O_SESSION_CONC, K_INT, {"--session-concurrency"}, "N", NULL,
     "sessions in flight at once, each sending its turns in order (default 1)",
     .group = G_STIMULUS, .copy = C_LONG, .off = F(sessions.session_concurrency)},
    {O_TURNS_MEAN, K_INT, {"--session-turns-mean"}, "N", NULL, "mean turns per session (default 1)",
     .copy = C_LONG, .off = F(sessions.turns_mean)},
    {O_TURNS_STD, K_INT, {"--session-turns-stddev"}, "N", NULL, "stddev of the turns per session (default 0)",
     .copy = C_LONG, .off = F(sessions.turns_stddev)},
    {O_TURN_DELAY_MEAN, K_INT, {"--session-turn-delay-mean"}, "MS", NULL,
     "mean wait after a turn's response before the next turn (default 0)",
     .copy = C_LONG, .off = F(sessions.delay_mean_ms)},
    {O_TURN_DELAY_STD, K_INT, {"--session-turn-delay-stddev"}, "MS", NULL, "stddev of that wait (default 0)",
     .copy = C_LONG, .off = F(sessions.delay_stddev_ms)},
    {O_DELAY_RATIO, K_FLOAT, {"--session-delay-ratio"}, "X", NULL,
     "scales the \"delay\" of payload-file rows (default 1.0)", .copy = C_DOUBLE, .off = F(sessions.delay_ratio)},
    {O_RATE_MODE, K_CHOICE, {"--request-rate-mode"}, "{constant,poisson,gamma}", rate_modes,
     "genperf: arrival process with --request-rate (default constant; gamma takes --burstiness)",
     .copy = C_HOOK, .hook = gp_profile_copy_rate_mode},
    {O_BURSTINESS, K_FLOAT, {"--burstiness"}, "B", NULL,
     "genperf: gamma shape with --request-rate-mode gamma: 1 = Poisson, < 1 burstier (default 1)",
     .copy = C_SECS, .off = F(burstiness)},
    {O_RAMP, K_FLOAT, {"--ramp-up-duration"}, "SECONDS", NULL,
     "genperf: the request rate grows linearly from 0 to its target over SECONDS",
     .copy = C_SECS, .off = F(ramp_s)},
    {O_TRACE_SPEEDUP, K_FLOAT, {"--trace-speedup"}, "X", NULL,
     "genperf: with --fixed-schedule, divide every timestamp by X (default 1)",
     .copy = C_SECS, .off = F(trace_speedup)},
    /* ---- GenAI-Perf's media, batch, gRPC and session-shape flags (issue 15) ---- */
    {O_AUDIO_LEN, K_FLOAT, {"--audio-length-mean"}, "SECONDS", NULL,
     "mean audio clip length; clips are sent (multimodal) when > 0 (default 0)", .copy = C_DOUBLE0,
     .off = F(audio_length_mean)},
    {O_AUDIO_LEN_STD, K_FLOAT, {"--audio-length-stddev"}, "SECONDS", NULL, "stddev of the clip length (default 0)",
     .copy = C_DOUBLE0, .off = F(audio_length_stddev)},
    {O_AUDIO_FORMAT, K_CHOICE, {"--audio-format"}, "{wav,mp3}", audio_formats,
     "clip format (default wav; genperf has no MP3 encoder and refuses mp3 clips)", .copy = C_CHOICE1,
     .off = F(audio_mp3)},
    {O_AUDIO_DEPTHS, K_LIST0, {"--audio-depths"}, "[BITS ...]", NULL, "bit depths drawn from (default 16)",
     .copy = C_NONE, .off = F(audio_depths), .aux = F(n_audio_depths), .value = gp_profile_add_audio_depth},
    {O_AUDIO_RATES, K_LIST0, {"--audio-sample-rates"}, "[KHZ ...]", NULL, "sample rates in kHz drawn from (default 16)",
     .copy = C_HOOK, .off = F(audio_sample_rates), .aux = F(n_audio_sample_rates), .value = gp_profile_add_audio_rate,
     .hook = gp_profile_copy_audio_lists},
    {O_AUDIO_CHANNELS, K_INT, {"--audio-num-channels"}, "{1,2}", channel_counts, "1 mono or 2 stereo (default 1)",
     .copy = C_LONG, .off = F(audio_num_channels)},
    {O_IMAGE_W, K_INT, {"--image-width-mean"}, "PX", NULL,
     "mean image width; images are sent (multimodal) when width and height means are > 0 (default 0)",
     .copy = C_LONG0, .off = F(image_width_mean)},
    {O_IMAGE_W_STD, K_INT, {"--image-width-stddev"}, "PX", NULL, "stddev of the image width (default 0)",
     .copy = C_LONG0, .off = F(image_width_stddev)},
    {O_IMAGE_H, K_INT, {"--image-height-mean"}, "PX", NULL, "mean image height (default 0)", .copy = C_LONG0,
     .off = F(image_height_mean)},
    {O_IMAGE_H_STD, K_INT, {"--image-height-stddev"}, "PX", NULL, "stddev of the image height (default 0)",
     .copy = C_LONG0, .off = F(image_height_stddev)},
    {O_IMAGE_FORMAT, K_CHOICE, {"--image-format"}, "{png,jpeg}", image_formats, "image encoding (default png)",
     .copy = C_CHOICE1, .off = F(image_jpeg)},
    {O_BATCH_AUDIO, K_INT, {"--batch-size-audio"}, "N", NULL, "clips per multimodal request (default 1)",
     .copy = C_LONG0, .off = F(batch_size_audio)},
    {O_BATCH_IMAGE, K_INT, {"--batch-size-image"}, "N", NULL, "images per multimodal request (default 1)",
     .copy = C_LONG0, .off = F(batch_size_image)},
    {O_GRPC_METHOD, K_STR, {"--grpc-method"}, "METHOD", NULL, "dynamic_grpc only; genperf accepts only the default",
     .copy = C_HOOK, .hook = gp_profile_copy_grpc_method},
    /* ---- end of the issue 15 block ---- */
    {O_TIMEOUT, K_FLOAT, {"--request-timeout"}, "SECONDS", NULL,
     "genperf: per-request timeout; a stalled request fails (default 600)",
     .copy = C_SECS, .off = F(request_timeout_s)},
    {O_HTTP2, K_FLAG, {"--http2"}, NULL, NULL, "genperf: use HTTP/2 (h2c Upgrade on http://, ALPN on https://)",
     .copy = C_SEEN, .off = F(http2)},
    {O_DISTRIBUTION, K_CHOICE, {"--request-distribution"}, "{constant,poisson}", distributions,
     "genperf: arrival process with --request-rate (default constant)", .copy = C_CHOICE1, .off = F(poisson)},
    {O_MAX_CONC, K_INT, {"--max-concurrency"}, "N", NULL, "genperf: cap on in-flight requests with --request-rate",
     .copy = C_LONG_MIN1, .off = F(max_concurrency)},
    {O_DURATION, K_FLOAT, {"--duration"}, "SECONDS", NULL,
     "genperf: send for SECONDS, then stop (requests still in flight are dropped)",
     .group = G_MEASUREMENT, .copy = C_SECS, .off = F(duration_s)},
    {O_TELEM_INTERVAL, K_FLOAT, {"--telemetry-interval"}, "SECONDS", NULL,
     "genperf: telemetry sampling period (default 1)", .copy = C_SECS, .off = F(telemetry_interval_s)},
    {O_SERVER_USAGE, K_FLAG, {"--server-usage"}, NULL, NULL,
     "genperf: also send stream_options.include_usage when streaming, to compare client and server token counts "
     "(GenAI-Perf never sends it)", .copy = C_SEEN, .off = F(server_usage)},
    {O_OFFLINE, K_FLAG, {"--offline"}, NULL, NULL, "genperf: never download a tokenizer",
     .copy = C_SEEN, .off = F(offline)},
    {O_REDACT, K_APPEND, {"--redact-header"}, "NAME", NULL,
     "genperf: also write this -H header as 'NAME: ***' everywhere (repeatable; Authorization, api-key, "
     "x-api-key and Cookie always are)", .copy = C_NONE, .off = F(redact_names), .aux = F(n_redact)},
    {O_API_KEY_FILE, K_STR, {"--api-key-file"}, "FILE", NULL,
     "genperf: send 'Authorization: Bearer <first line of FILE>' (default: $GENPERF_API_KEY)",
     .copy = C_STR, .off = F(api_key_file)},
    {O_CACERT, K_STR, {"--cacert"}, "FILE", NULL,
     "genperf: CA bundle to verify https servers (default: $SSL_CERT_FILE, $CURL_CA_BUNDLE, the system's)",
     .copy = C_STR, .off = F(cacert)},
    {O_INSECURE, K_FLAG, {"--insecure"}, NULL, NULL, "genperf: do not verify the https server's certificate (warned)",
     .copy = C_SEEN, .off = F(insecure)},
    {O_MAX_RESP, K_INT, {"--max-response-bytes"}, "BYTES", NULL,
     "genperf: a response larger than BYTES fails that request (default 67108864 = 64 MiB)",
     .copy = C_LONG_MIN1, .off = F(max_response_bytes)},
    {O_MAX_FAIL, K_FLOAT, {"--max-failure-rate"}, "X", NULL,
     "genperf: exit 3 when more than this share (0..1) of the requests failed (default: failures do not "
     "change the exit status)", .copy = C_HOOK, .hook = gp_profile_copy_failure_rate},
    /* scale-out (issue 17) */
    {O_WORKERS, K_STR, {"--workers"}, "N|auto", NULL,
     "genperf: event-loop threads sharing the load (default 1; auto = cores - 1)",
     .copy = C_HOOK, .hook = gp_profile_copy_workers},
    {O_URL_STRATEGY, K_CHOICE, {"--url-strategy"}, "{round_robin,least_in_flight}", url_strategies,
     "genperf: how requests are spread when --url is given several times (default round_robin)",
     .copy = C_CHOICE1, .off = F(url_least_inflight)},
};
#define N_OPTS (sizeof opts / sizeof opts[0])

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
                "request failed); 2 usage error; 3 more requests failed than --max-failure-rate allows;\n"
                "4 run incomplete (out of memory: the records kept are written); 130 interrupted (artifacts\n"
                "of what was measured are written).\n");
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

int gp_profile_parse_long(const char *s, long *out)
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

/* argparse treats a token as an option (not a value) if it starts with '-'
 * and is not a negative number. */
static int looks_like_option(const char *s)
{
    if (s[0] != '-' || !s[1])
        return 0;
    double d;
    if (gp_profile_parse_double(s, &d) == 0)
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

static int add_item(struct profile_config *cfg, const struct opt *o, const char *s, struct gp_error *err)
{
    if (o->value)
        return o->value(cfg, s, err);
    if (push_str(FIELD(cfg, o->off, const char **), FIELD(cfg, o->aux, size_t), s))
        return gp_err(err, GP_ENOMEM, "out of memory");
    return 0;
}

/* nargs='+': every following token up to the next option is one item.
 * argparse replaces an earlier list when the flag repeats. */
static int take_list(struct profile_config *cfg, const struct opt *o, const char *inline_val, int argc, char **argv,
                     int *i, const char *disp, struct gp_error *err)
{
    void *old;
    memcpy(&old, FIELD(cfg, o->off, char), sizeof old);
    free(old);
    memset(FIELD(cfg, o->off, char), 0, sizeof old);
    *FIELD(cfg, o->aux, size_t) = 0;
    int rc, n = 0;
    if (inline_val) {
        if ((rc = add_item(cfg, o, inline_val, err)) < 0)
            return rc;
        n++;
    }
    while (*i + 1 < argc && !looks_like_option(argv[*i + 1]) && strcmp(argv[*i + 1], "--")) {
        if ((rc = add_item(cfg, o, argv[++*i], err)) < 0)
            return rc;
        n++;
    }
    if (!n && o->kind == K_LIST)
        return usage_err(cfg, err, "argument %s: expected at least one argument", disp);
    return 0;
}

/* One value: checked against the option's kind and kept in rv. */
static int take_value(struct profile_config *cfg, const struct opt *o, const char *val, struct gp_profile_raw *rv,
                      const char *disp, struct gp_error *err)
{
    rv->seen = 1;
    rv->s = val;
    switch (o->kind) {
    case K_INT:
        if (gp_profile_parse_long(val, &rv->i) < 0)
            return usage_err(cfg, err, "argument %s: invalid int value: '%s'", disp, val);
        if (o->choices) { /* type=int, choices=[...]: compared as ints, listed without quotes */
            int ok = 0;
            char list[128] = "";
            size_t ll = 0;
            for (int c = 0; o->choices[c]; c++) {
                ok |= atol(o->choices[c]) == rv->i;
                list_add(list, sizeof list, &ll, c ? ", " : "", o->choices[c]);
            }
            if (!ok)
                return usage_err(cfg, err, "argument %s: invalid choice: %ld (choose from %s)", disp, rv->i, list);
        }
        break;
    case K_POSINT:
        if (gp_profile_parse_long(val, &rv->i) < 0)
            return usage_err(cfg, err, "argument %s: The value must be an integer.", disp);
        if (rv->i <= 0)
            return usage_err(cfg, err, "argument %s: The value must be greater than zero.", disp);
        break;
    case K_FLOAT:
        if (gp_profile_parse_double(val, &rv->f) < 0)
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
        return add_item(cfg, o, val, err);
    case K_STR:
        return o->value ? o->value(cfg, val, err) : 0;
    default:
        break;
    }
    return 0;
}

/* Splits "--name=value" and finds the option, including a one-letter option
 * glued to its value ("-mNAME"); *inline_val is the value part, if any. */
static const struct opt *resolve(struct profile_config *cfg, const char *arg, const char **inline_val,
                                 struct gp_error *err)
{
    char name[256];
    *inline_val = NULL;
    const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    if (eq && (size_t)(eq - arg) < sizeof name) {
        memcpy(name, arg, (size_t)(eq - arg));
        name[eq - arg] = '\0';
        *inline_val = eq + 1;
    } else {
        snprintf(name, sizeof name, "%s", arg);
    }
    int ambiguous;
    const struct opt *o = find_opt(name, err, &ambiguous);
    if (!o && !ambiguous && arg[1] != '-' && strlen(arg) > 2) {
        char shortname[3] = {arg[0], arg[1], 0};
        const struct opt *so = find_opt(shortname, err, &ambiguous);
        if (so && so->kind != K_FLAG) {
            o = so;
            *inline_val = arg + 2;
        }
    }
    if (ambiguous) {
        cfg->usage_error = 1; /* find_opt wrote the message */
        return NULL;
    }
    if (!o)
        usage_err(cfg, err, "unrecognized arguments: %s", arg);
    return o;
}

/* argv -> raw values (argparse's part). Lists, -H and --extra-inputs are
 * stored in cfg as they come; everything else waits in raw. */
static int parse_argv(struct profile_config *cfg, int argc, char **argv, struct gp_profile_raw *raw, struct gp_error *err)
{
    const struct opt *group_seen[3] = {NULL, NULL, NULL};
    int rc;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--")) {
            cfg->n_passthrough = argc - i - 1;
            break;
        }
        if (!looks_like_option(arg))
            return usage_err(cfg, err, "unrecognized arguments: %s", arg);
        const char *inline_val;
        const struct opt *o = resolve(cfg, arg, &inline_val, err);
        if (!o)
            return -GP_EINVAL;
        char disp[160];
        opt_display(o, disp, sizeof disp);
        if (o->group) {
            const struct opt *prev = group_seen[o->group];
            if (prev && prev != o) {
                char d2[160];
                opt_display(prev, d2, sizeof d2);
                return usage_err(cfg, err, "argument %s: not allowed with argument %s", disp, d2);
            }
            group_seen[o->group] = o;
        }
        struct gp_profile_raw *rv = &raw[o->id];
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
        if (o->kind == K_LIST || o->kind == K_LIST0) {
            if ((rc = take_list(cfg, o, inline_val, argc, argv, &i, disp, err)) < 0)
                return rc;
            rv->seen = 1;
            continue;
        }
        const char *val = inline_val;
        if (!val) {
            if (i + 1 >= argc || looks_like_option(argv[i + 1]) || !strcmp(argv[i + 1], "--"))
                return usage_err(cfg, err, "argument %s: expected one argument", disp);
            val = argv[++i];
        }
        if ((rc = take_value(cfg, o, val, rv, disp, err)) < 0)
            return rc;
    }
    return 0;
}

/* ---- GenAI-Perf's config processing: copy only truthy values ---- */

static int copy_values(struct profile_config *cfg, const struct gp_profile_raw *raw, struct gp_error *err)
{
    int rc;
    for (size_t k = 0; k < N_OPTS; k++) {
        const struct opt *o = &opts[k];
        const struct gp_profile_raw *rv = &raw[o->id];
        switch (o->copy) {
        case C_NONE:
            break;
        case C_SEEN:
            *FIELD(cfg, o->off, int) = rv->seen;
            break;
        case C_UNSEEN:
            *FIELD(cfg, o->off, int) = !rv->seen;
            break;
        case C_STR:
        case C_STR_GIVEN:
            if (rv->seen && rv->s[0]) {
                *FIELD(cfg, o->off, const char *) = rv->s;
                if (o->copy == C_STR_GIVEN)
                    *FIELD(cfg, o->aux, int) = 1;
            }
            break;
        case C_LONG0:
            if (rv->i < 0)
                return config_err(cfg, err, GP_EINVAL, "User Config: %ld exceeds lower bounds ({'lower': 0})", rv->i);
            /* fall through */
        case C_LONG:
            if (rv->i)
                *FIELD(cfg, o->off, long) = rv->i;
            break;
        case C_DOUBLE0:
            if (rv->f < 0) {
                char r[64];
                gp_py_float_repr(rv->f, r, sizeof r);
                return config_err(cfg, err, GP_EINVAL, "User Config: %s exceeds lower bounds ({'lower': 0})", r);
            }
            if (rv->f != 0)
                *FIELD(cfg, o->off, double) = rv->f;
            break;
        case C_U64:
            if (rv->i)
                *FIELD(cfg, o->off, uint64_t) = (uint64_t)rv->i;
            break;
        case C_LONG_MIN1:
            if (rv->seen && rv->i < 1)
                return config_err(cfg, err, GP_EINVAL, "%s %ld: must be >= 1", o->names[0], rv->i);
            if (rv->seen)
                *FIELD(cfg, o->off, long) = rv->i;
            break;
        case C_SECS:
            if (rv->seen && !(rv->f > 0))
                return config_err(cfg, err, GP_EINVAL, "%s %s: must be a positive number of seconds", o->names[0],
                                  rv->s);
            if (rv->seen)
                *FIELD(cfg, o->off, double) = rv->f;
            break;
        case C_CHOICE1:
            *FIELD(cfg, o->off, int) = rv->seen && !strcmp(rv->s, o->choices[1]);
            break;
        case C_DOUBLE:
            if (rv->seen && rv->f != 0)
                *FIELD(cfg, o->off, double) = rv->f;
            break;
        case C_HOOK:
            if ((rc = o->hook(cfg, rv, err)) < 0)
                return rc;
            break;
        }
    }
    return 0;
}

/* -H must be one "Name: value" line: CR/LF would put more headers (or a body)
 * on the wire, and perf_analyzer aborts on a value without ':' (its
 * substr() throws std::out_of_range) where GenAI-Perf passes it on. */
static int check_headers(struct profile_config *cfg, struct gp_error *err)
{
    for (size_t i = 0; i < cfg->n_headers; i++) {
        const char *h = cfg->headers[i];
        const char *colon = strchr(h, ':');
        int nl = (int)(colon ? (size_t)(colon - h) : strlen(h));
        if (nl > 64)
            nl = 64;
        if (!colon)
            return config_err(cfg, err, GP_EINVAL,
                              "-H '%.*s': a header must be 'Name: value' (no ':' found; perf_analyzer aborts on it)",
                              nl, h);
        if (colon == h)
            return config_err(cfg, err, GP_EINVAL, "-H '%.*s': the header has no name before ':'", nl, h);
        if (strpbrk(h, "\r\n"))
            return config_err(cfg, err, GP_EINVAL,
                              "-H '%.*s': the header contains a CR or LF (header injection); pass one header "
                              "per -H", nl, h);
    }
    return 0;
}

/* ---- cross-field validation (GenAI-Perf order where it has one) ---- */
static int validate(struct profile_config *cfg, const struct gp_profile_raw *raw, struct gp_error *err)
{
    int rc;
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
    if (cfg->batch_size != 1 && (cfg->endpoint_type == GP_ENDPOINT_CHAT || cfg->endpoint_type == GP_ENDPOINT_MULTIMODAL))
        return config_err(cfg, err, GP_EINVAL, "The --batch-size-text flag is not supported for %s.",
                          gp_profile_output_format(cfg));
    if (cfg->streaming && (cfg->endpoint_type == GP_ENDPOINT_EMBEDDINGS || cfg->endpoint_type == GP_ENDPOINT_RANKINGS))
        return config_err(cfg, err, GP_EINVAL, "The --streaming option is not supported for %s.",
                          gp_profile_output_format(cfg));
    if (cfg->concurrency < 0 || (raw[O_CONCURRENCY].seen && raw[O_CONCURRENCY].i == 0))
        return config_err(cfg, err, GP_EINVAL, "--concurrency %ld: must be >= 1", raw[O_CONCURRENCY].i);
    if (raw[O_STABILITY].seen && raw[O_STABILITY].f == 0)
        return config_err(cfg, err, GP_EINVAL, "-s/--stability-percentage 0: must be 1..999");
    if ((rc = check_headers(cfg, err)) < 0)
        return rc;
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
    if (cfg->max_concurrency && cfg->request_rate == 0 && !cfg->fixed_schedule)
        return config_err(cfg, err, GP_EINVAL, "--max-concurrency only applies with --request-rate or --fixed-schedule; use --concurrency");
    if (cfg->poisson && cfg->request_rate == 0)
        return config_err(cfg, err, GP_EINVAL, "--request-distribution only applies with --request-rate");
    if (cfg->measurement_interval_ms < 0)
        return config_err(cfg, err, GP_EINVAL, "--measurement-interval %ld: must be a positive number of ms",
                          cfg->measurement_interval_ms);
    if ((rc = gp_profile_check_shapes(cfg, err)) < 0) {
        cfg->usage_error = 0;
        return rc;
    }
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
            gp_py_float_repr(cfg->request_rate, r, sizeof r);
            return config_err(cfg, err, GP_EINVAL,
                              "--request-count can not be less than request_rate (%ld < %s); pass --request-count N "
                              "with N >= the rate (GenAI-Perf's default count is 10)",
                              cfg->request_count, r);
        }
    }
    return 0;
}


int gp_profile_parse(struct profile_config *cfg, int argc, char **argv, const char *prog, struct gp_error *err)
{
    struct gp_profile_raw raw[O__COUNT];
    memset(raw, 0, sizeof raw);
    (void)prog;
    int rc = parse_argv(cfg, argc, argv, raw, err);
    if (rc < 0 || cfg->help)
        return rc;
    if ((rc = copy_values(cfg, raw, err)) < 0)
        return rc;
    return validate(cfg, raw, err);
}
