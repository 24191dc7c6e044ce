/* profile/profile_int.h — private to src/profile/: the row type of the
 * `profile` flag table (profile_table.c) that the parser (profile_args.c)
 * walks. A row names the flag (every spelling), how argv gives its value, and
 * how that value lands in struct profile_config (a copy rule and the
 * offsetof() of its field), so adding a flag is adding a row. Nothing here
 * allocates; the table is static const.
 */
#ifndef GP_PROFILE_INT_H
#define GP_PROFILE_INT_H

#include "profile/profile_config.h"

#include <stddef.h>

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
    O_TIMEOUT, O_HTTP2, O_DISTRIBUTION, O_MAX_CONC, O_DURATION, O_TELEM_INTERVAL, O_SERVER_USAGE, O_OSL_DET_GP,
    O_OFFLINE, O_REDACT, O_API_KEY_FILE, O_CACERT, O_INSECURE, O_MAX_RESP, O_MAX_FAIL,
    /* scale-out (issue 17) */
    O_WORKERS, O_URL_STRATEGY, O_URLS,
    /* issue 26 */
    O_MAX_MEMORY,
    /* issue 31 */
    O_CANCEL_RATE, O_CANCEL_DELAY,
    /* issue 30: repeated runs */
    O_NUM_RUNS, O_CV_WARN,
    /* issue 31 item 3: tool calling and structured output */
    O_TOOLS, O_SYNTH_TOOLS, O_TOOL_CHOICE, O_RESPONSE_SCHEMA,
    /* issue 32: prefix-cache workloads */
    O_SHARED_PREFIX_RATIO, O_SHARED_PREFIX_POOL, O_CACHE_BUST,
    /* issue 32 */
    O_TIMESLICE,
    /* issue 32: model mixes */
    O_MODEL_WEIGHTS,
    /* issue 32: energy and cost */
    O_GPU_HOUR_COST,
    O__COUNT
};

/* mutually exclusive groups (parser.py:616-655) */
enum { G_NONE, G_STIMULUS, G_MEASUREMENT };

struct opt {
    enum opt_id id;
    enum opt_kind kind;
    const char *names[4];   /* in argparse definition order: shown joined by '/' */
    const char *metavar;    /* NULL with choices: "{a,b,...}" of shown (or choices), built by --help */
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
    const char *const *shown; /* the choices --help and the usage line list (NULL: all of choices) */
};

#define F(field) offsetof(struct profile_config, field)
#define FIELD(cfg, off, type) ((type *)(void *)((char *)(cfg) + (off)))

/* GenAI-Perf reports these as config errors (exit 1): cfg->usage_error = 0;
 * returns -code with err filled (profile_config.c). */
int gp_profile_config_err(struct profile_config *cfg, struct gp_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* argparse's usage errors (exit 2 with the usage block): cfg->usage_error =
 * 1; returns -GP_EINVAL with err filled (profile_config.c). */
int gp_profile_usage_err(struct profile_config *cfg, struct gp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* GenAI-Perf's stimulus, in its order of precedence: 1 = session concurrency,
 * 2 = fixed schedule, 0 = neither (profile_config.c; the run name and
 * input_config both follow it). */
int gp_profile_schedule_stimulus(const struct profile_config *cfg);

extern const struct opt gp_profile_opts[];
extern const size_t gp_profile_n_opts;

/* The endpoint types genperf speaks, NULL-terminated, and the type of each
 * (same index): the one list behind --endpoint-type's parsing, its refusal
 * of GenAI-Perf's other types, --help and the usage line. */
extern const char *const gp_profile_endpoint_names[];
extern const enum gp_endpoint_type gp_profile_endpoint_kinds[];

/* The choices --help shows for o ("{a,b,...}" into out); "" when o has none. */
void gp_profile_choices_shown(const struct opt *o, char *out, size_t outsz);

#endif
