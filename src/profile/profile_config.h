/* profile/profile_config.h — `genperf profile` command line: GenAI-Perf 0.0.16's
 * flags, defaults and validation, plus genperf's own flags.
 *
 * Owns: struct profile_config. Strings point into the argv given to
 * gp_profile_parse (which must outlive the config); the arrays (models,
 * headers, goodput SLOs, metrics URLs) and extra_inputs are owned by the
 * config and released by gp_profile_config_free. gp_profile_input_config
 * returns a new jansson reference the caller must json_decref.
 *
 * Semantics copied from GenAI-Perf (spec genai-perf-profile.md §1): argparse
 * has no defaults; a value is copied into the config only when it is truthy,
 * so `--concurrency 0` keeps concurrency 1 and `--request-count 0` keeps the
 * automatic count. Bounds and cross-flag rules are checked afterwards.
 */
#ifndef GP_PROFILE_PROFILE_CONFIG_H
#define GP_PROFILE_PROFILE_CONFIG_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dataset/dataset.h"
#include "client/schedule.h"
#include "sched/sched.h"

struct gp_error;

struct profile_slo {
    /* namebuf: the part before ":" (not a pointer: the array is realloc-ed) */
    char namebuf[64];
    double value;
};

struct profile_config {
    /* GenAI-Perf flags */
    const char **models;
    size_t n_models;
    int model_random;                   /* --model-selection-strategy random */
    double *model_weights;              /* --model-weights, one per model in -m order (owned), NULL = none */
    enum gp_endpoint_type endpoint_type;
    int endpoint_type_given;
    char endpoint[512];                 /* path without leading '/', e.g. v1/chat/completions */
    const char *url;                    /* effective base URL (PA default localhost:8000) */
    int url_given;
    int streaming;
    const char **headers;               /* raw -H strings in order */
    size_t n_headers;
    const char *tokenizer;              /* default: models[0] */
    const char *tokenizer_revision;     /* default "main" */
    int trust_remote_code;
    long isl_mean, isl_stddev;          /* 550, 0 */
    long osl_mean, osl_stddev;          /* -1 (unset), 0 */
    int osl_deterministic;
    long num_entries;                   /* 100 */
    long request_count;                 /* resolved: --request-count or max(10, 2*C) */
    int request_count_given;
    long warmup;
    long concurrency;                   /* 1; unused when request_rate > 0 */
    double request_rate;                /* > 0: open loop (the rate chooses it); 0 = concurrency mode */
    uint64_t seed;
    const char *profile_export_file;    /* "profile_export.json" */
    const char *artifact_dir;           /* "artifacts" */
    json_t *extra_inputs;               /* owned object, NULL = none */
    json_t *extra_numeric_strings;      /* owned array of "name:value" given to --extra-inputs whose value
                                         * reads as a number but goes out as a string (warned), NULL = none */
    long measurement_interval_ms;       /* 0 = request-count mode */
    double stability;                   /* 999 */
    int stability_given;
    struct profile_slo *slos;
    size_t n_slos;
    const char *input_file;
    const char **metrics_urls;
    size_t n_metrics_urls;
    int metrics_urls_given;
    long batch_size;                    /* 1 */
    long num_prefix_prompts;            /* 0 */
    long prefix_prompt_length;          /* 100 */
    int verbose, generate_plots, enable_checkpointing;
    const char *checkpoint_dir;         /* "checkpoint" */
    int backend_given;
    /* GenAI-Perf's image/audio input flags (profile_media.c) */
    const char *endpoint_type_name;     /* the --endpoint-type given ("vision" stays "vision"); "chat" */
    long image_width_mean, image_width_stddev, image_height_mean, image_height_stddev; /* 0 */
    int image_jpeg;                     /* --image-format jpeg (default png) */
    long batch_size_image, batch_size_audio; /* 1 */
    double audio_length_mean, audio_length_stddev; /* 0 */
    int audio_mp3;                      /* --audio-format mp3 (default wav) */
    long *audio_depths;                 /* owned; NULL = GenAI-Perf's [16] */
    size_t n_audio_depths;
    double *audio_sample_rates;         /* owned, kHz; NULL = [16] */
    size_t n_audio_sample_rates;
    long audio_num_channels;            /* 1 */

    /* genperf's own flags */
    double request_timeout_s;           /* 600 */
    int http2;
    int poisson;                        /* --request-distribution poisson */
    long max_concurrency;               /* cap of in-flight requests with --request-rate; 0 = none */
    double duration_s;                  /* time-bounded run, 0 = none */
    double telemetry_interval_s;        /* 1.0 */
    int server_usage;                   /* --server-usage: stream_options.include_usage when streaming */
    int offline;                        /* --offline: never download a tokenizer */
    const char **redact_names;          /* --redact-header NAME (repeatable): more secret header names */
    size_t n_redact;
    const char *api_key_file;           /* --api-key-file: "Authorization: Bearer <first line>" */
    const char *cacert;                 /* --cacert FILE (default: $SSL_CERT_FILE, $CURL_CA_BUNDLE) */
    int insecure;                       /* --insecure: no TLS peer/host verification (warned) */
    long max_response_bytes;            /* --max-response-bytes: per-response cap (64 MiB) */
    double max_failure_rate;            /* --max-failure-rate X in [0,1]; < 0 = not given */
    uint64_t max_memory;                /* --max-memory SIZE in bytes; 0 = from available memory
                                         * (profile_memory.c) */
    double cancel_rate;                 /* --request-cancellation-rate, percent 0..100 (AIPerf's unit) */
    double cancel_delay_s;              /* --request-cancellation-delay, seconds >= 0 */
    long num_runs;                      /* --num-runs N: N runs under run_K/ and an aggregate; 1 = one run */
    double cv_warn;                     /* --cv-warn X: warn when a key metric's CV over runs passes X (0.1) */
    /* prefix-cache workloads (issue 32; profile_prefix.c) */
    double shared_prefix_ratio;         /* --shared-prefix-ratio R in [0, 1]; 0 = none */
    int shared_prefix_session;          /* --shared-prefix-pool session (default global) */
    int cache_bust;                     /* --cache-bust: a unique salt opens every prompt */
    double gpu_hour_cost;               /* --gpu-hour-cost USD; 0 = no "cost" block */

    /* workload shapes (issue 16; docs/dataset.md "Schedules, traces and sessions") */
    int fixed_schedule;                 /* --fixed-schedule true: --input-file payload: rows at their timestamps */
    struct gp_session_opts sessions;    /* --num-sessions and friends (GenAI-Perf 0.0.16 defaults) */
    int rate_mode;                      /* enum gp_sched_mode: --request-rate-mode (or --request-distribution) */
    double burstiness;                  /* --burstiness (gamma shape), default 1 */
    double ramp_s;                      /* --ramp-up-duration S, 0 = none */
    double trace_speedup;               /* --trace-speedup X, default 1 */
    double timeslice_s;                 /* --timeslice-duration S: per-slice metrics in genperf.json, 0 = none */

    /* owned: the Authorization header built from --api-key-file / $GENPERF_API_KEY
     * (also the last entry of headers) and copies of secret -H values taken
     * before gp_profile_protect_argv blanks them in argv */
    char *auth_header;
    char **secret_copies;
    size_t n_secret_copies;
    long workers;                       /* --workers: event-loop threads (1; "auto" = cores - 1, >= 1) */

    /* The endpoints: the last of -u/--url (one URL, GenAI-Perf's plain
     * store) and --urls (several) given wins, so a wrapper that appends
     * --url to override a default never splits the load by accident. */
    const char **urls;                  /* the endpoints in order (the array is owned) */
    size_t n_urls;
    int urls_listed;                    /* the last was --urls */
    int n_url_flags;                    /* --url and --urls given, in all (> 1: earlier ones replaced) */
    int n_urls_flags;                   /* ... of them --urls */
    const char **urls_given;            /* every URL of every -u/--url and --urls in argv order, for the
                                         * note naming what is not used (views into argv; the array is owned) */
    size_t n_urls_given;
    int url_least_inflight;             /* --url-strategy least_in_flight */
    int skip_file_checks;               /* MPI ranks > 0: --input-file is read on rank 0's host only */

    int n_passthrough;                  /* args after "--" (ignored with a warning) */
    int help;                           /* --help was given: usage printed, nothing else to do */
    int usage_error;                    /* set with a failed parse: 1 = argparse-style (exit 2), 0 = config error (exit 1) */
};

void gp_profile_config_init(struct profile_config *cfg);
void gp_profile_config_free(struct profile_config *cfg);

/* Parses argv[1..argc) (argv[0] is the subcommand name). On success returns
 * 0; --help prints usage to stdout and sets cfg->help. On failure returns
 * -GP_EINVAL (or -GP_ENOTSUP) with the GenAI-Perf message in err and
 * cfg->usage_error telling which exit status GenAI-Perf would use (2/1).
 * prog is the name shown in usage lines ("genai-perf profile"). */
int gp_profile_parse(struct profile_config *cfg, int argc, char **argv, const char *prog,
                     struct gp_error *err);

/* AIPerf's `aiperf profile` spellings (profile_aiperf.c): argv rewritten
 * into genperf's flags (--benchmark-duration -> --duration, --api-key K ->
 * -H "Authorization: Bearer K", --custom-dataset-type mooncake_trace ->
 * --input-file payload:FILE, ...), a note on `notes` (may be NULL) for each
 * one used or ignored. Returns 0, or -1 with err naming a flag AIPerf has and
 * genperf refuses (usage error). argv is borrowed; free with
 * gp_profile_aiperf_free. */
struct gp_profile_aiperf {
    char **argv;   /* argc entries and a NULL */
    int argc;
    int n_mapped;  /* AIPerf spellings found */
    char **owned;
    size_t n_owned;
};
int gp_profile_aiperf_argv(int argc, char **argv, struct gp_profile_aiperf *out, FILE *notes, struct gp_error *err);
void gp_profile_aiperf_free(struct gp_profile_aiperf *a);

/* The redaction list of this command line (--redact-header names) for core/redact. */
struct gp_redact;
void gp_profile_redact(const struct profile_config *cfg, struct gp_redact *out);

/* Adds "Authorization: Bearer <key>" from --api-key-file, else from
 * $GENPERF_API_KEY (env_key, may be NULL), unless -H gave Authorization.
 * Then copies every secret -H value into memory the config owns and scrubs
 * it in argv (which must be writable) so `ps` shows "Name: ***". */
int gp_profile_protect_secrets(struct profile_config *cfg, const char *env_key, struct gp_error *err);
/* With no --cacert: cfg->cacert becomes $SSL_CERT_FILE, else $CURL_CA_BUNDLE
 * (curl's own variables, as the curl tool reads them; empty = unset), else
 * stays NULL (libcurl's built-in bundle). Points into the environment. Called
 * by rank 0 and by every other MPI rank, each on its own host. */
void gp_profile_default_cacert(struct profile_config *cfg);

/* the --endpoint-type as given ("chat", "completions", "embeddings", "rankings",
 * "multimodal", "vision"); "chat" when not given */
const char *gp_profile_endpoint_type_name(const struct profile_config *cfg);
/* GenAI-Perf's output format name: "openai_chat_completions", "openai_embeddings", ... */
const char *gp_profile_output_format(const struct profile_config *cfg);
/* The dataset's image and audio options from the flags (views into cfg). */
void gp_profile_media_opts(const struct profile_config *cfg, struct gp_image_opts *img, struct gp_audio_opts *aud);
/* input_config.input.audio / .image as GenAI-Perf writes them (new references). */
json_t *gp_profile_audio_json(const struct profile_config *cfg);
json_t *gp_profile_image_json(const struct profile_config *cfg);
/* "concurrency" | "request_rate" */
const char *gp_profile_mode(const struct profile_config *cfg);

/* <model0 with / -> _>[_multi]-openai-<type>-<concurrencyN|request_rateR>
 * (spec §5.1); the run directory is artifact_dir/<this>. */
int gp_profile_run_name(const struct profile_config *cfg, char *out, size_t outsz);
int gp_profile_run_dir(const struct profile_config *cfg, char *out, size_t outsz);

/* The "input_config" object GenAI-Perf writes into <stem>_genai_perf.json
 * (spec §7.1), keys in GenAI-Perf's order. New reference; NULL on ENOMEM. */
json_t *gp_profile_input_config(const struct profile_config *cfg);

/* The load the client runs (profile_shapes.c): the arrival process of
 * --request-rate, and for --fixed-schedule / --num-sessions a plan of jobs
 * (trace rows or session turns over dataset entries 0..nentries-1). Owns the
 * trace, the session plan, the job arrays and the per-entry metadata;
 * gp_profile_shape_free. */
struct profile_shape {
    struct gp_sched_load load;
    struct gp_client_plan plan;
    int has_plan;
    struct gp_client_job *jobs;
    uint32_t *starts;
    struct gp_trace *trace;
    struct gp_session_plan *sessions;
    /* Session runs only (NULL otherwise): meta[i] is entry i's session_id
     * and delay for profile_export.json's request_inputs; ids holds the
     * synthetic sessions' id text (trace sessions borrow trace's names). */
    struct gp_inputs_meta *meta;
    char (*ids)[37];
};
int gp_profile_shape_build(const struct profile_config *cfg, size_t nentries, struct profile_shape *sh,
                           struct gp_error *err);
/* mpirun, ranks > 0: the load from cfg and a copy of rank 0's plan p (NULL:
 * none), whose indices are checked against nentries dataset entries first
 * (GP_EIO when one is out of range). Only rank 0 exports, so no metadata. */
int gp_profile_shape_adopt(const struct profile_config *cfg, const struct gp_client_plan *p, size_t nentries,
                           struct profile_shape *sh, struct gp_error *err);
void gp_profile_shape_free(struct profile_shape *sh);
/* The arrival process of a rate run (--request-rate without a
 * --fixed-schedule trace, whose rows carry their own times): "constant",
 * "poisson" or "gamma" (issue 38 item 9: recorded in input_config.genperf
 * and *_genperf.json "arrivals"); NULL for a run without rate-driven
 * arrivals. Static strings. */
const char *gp_profile_arrival_process(const struct profile_config *cfg);
/* One line on out naming the arrival process of a rate run, its rate and
 * mean gap (and gamma's shape); nothing for other runs. */
void gp_profile_arrivals_note(const struct profile_config *cfg, FILE *out);
/* GenAI-Perf's per-turn metadata of synthetic sessions, one per turn (turn k
 * of session s is entry first[s] + k): "session_id" on every turn, "delay"
 * (ms after this turn's response, as drawn) on all but a session's last.
 * *meta (sp->nturns entries) points into *ids; the caller frees both. */
int gp_profile_session_meta(const struct gp_session_plan *sp, uint64_t seed, struct gp_inputs_meta **meta,
                            char (**ids)[37], struct gp_error *err);

/* Writes the --help text. */
void gp_profile_usage(FILE *fp, const char *prog, int full);

/* Shared by the parser (profile_args.c), the flag hooks and profile_config.c
 * (which defines them all), not for other modules: argparse's int() and
 * float() (surrounding blanks allowed; 0 or -1), and one --extra-inputs /
 * --goodput value added to cfg (GenAI-Perf's config error messages; 0 or
 * -GP_EINVAL / -GP_ENOMEM). */
int gp_profile_parse_long(const char *s, long *out);
int gp_profile_parse_double(const char *s, double *out);
int gp_profile_add_extra_input(struct profile_config *cfg, const char *s, struct gp_error *err);

/* One warning line on `out` per --extra-inputs NAME:VALUE whose VALUE reads as
 * a number (1e23, -1, 0x10) yet goes out as a JSON string, as GenAI-Perf's
 * typing sends it: the bytes are kept, the surprise is named. */
void gp_profile_extra_input_notes(FILE *out, const struct profile_config *cfg);
/* -u/--url X: the endpoints become X alone; --urls X Y: each item appended
 * to the list the parser emptied when the flag began. */
int gp_profile_set_url(struct profile_config *cfg, const char *s, struct gp_error *err);
int gp_profile_add_url(struct profile_config *cfg, const char *s, struct gp_error *err);
int gp_profile_add_goodput(struct profile_config *cfg, const char *s, struct gp_error *err);

/* What the command line said for one flag, before GenAI-Perf's truthy copy,
 * and the copies with rules of their own, called in flag-table order. */
struct gp_profile_raw {
    int seen;
    const char *s;
    long i;
    double f;
};
int gp_profile_check_input_file(struct profile_config *cfg, const char *s, struct gp_error *err);
int gp_profile_copy_endpoint_type(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_endpoint(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_stability(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_workers(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
/* profile_models.c */
int gp_profile_copy_model_weights(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_metrics_urls(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_urls(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_fixed_schedule(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_rate_mode(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_distribution(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
/* The cross-flag rules of the workload-shape flags (after GenAI-Perf's own). */
int gp_profile_check_shapes(struct profile_config *cfg, struct gp_error *err);
/* --ramp-up-duration that would leave no measured request (after request_count is resolved). */
int gp_profile_check_ramp(struct profile_config *cfg, struct gp_error *err);
int gp_profile_add_audio_depth(struct profile_config *cfg, const char *s, struct gp_error *err);
int gp_profile_add_audio_rate(struct profile_config *cfg, const char *s, struct gp_error *err);
int gp_profile_copy_audio_lists(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_grpc_method(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_failure_rate(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_max_memory(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_cancel_rate(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_cancel_delay(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_gpu_hour_cost(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_cv_warn(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
/* profile_tools.c (issue 31 item 3): each flag becomes a key of extra_inputs. */
int gp_profile_copy_tools(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_synthetic_tools(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_tool_choice(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
int gp_profile_copy_response_schema(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
/* The JSON Schema the requests carry (extra_inputs' response_format of type
 * json_schema, from --response-format-schema or --extra-inputs), borrowed;
 * NULL when none. */
const json_t *gp_profile_response_schema(const struct profile_config *cfg);
int gp_profile_copy_shared_prefix_ratio(struct profile_config *cfg, const struct gp_profile_raw *rv,
                                        struct gp_error *err);
int gp_profile_copy_cache_bust(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err);
struct gp_session_plan;
/* --shared-prefix-pool session: the session of every dataset entry (turn k
 * of session s is entry first[s] + k), malloc'd, *n = sessions; NULL (and
 * *n = 0) for the global pool, or out of memory when sp has turns. */
uint32_t *gp_profile_prefix_groups(const struct profile_config *cfg, const struct gp_session_plan *sp, size_t *n);
/* profile_memory.c: "300M", "1.5G", "4096" (bytes; K/M/G/T are powers of 1024,
 * an optional "iB" or "B" after them) into *out; 0 or -1. */
int gp_profile_parse_size(const char *s, uint64_t *out);
struct gp_record_budget;
/* profile_memory.c: the run's memory budget (--max-memory, or 3/4 of the
 * memory available now, the lower of MemAvailable and the cgroup's room,
 * at least 256 MiB, plus what genperf already holds). *total gets it; b's
 * limit is it less the RSS genperf holds before the run and 8 MiB plus 8 MiB
 * per client worker for buffers (at least 1 MiB, warned), its hard limit 1/8
 * above that. */
void gp_profile_memory_budget(const struct profile_config *cfg, struct gp_record_budget *b, uint64_t *total);

#endif
