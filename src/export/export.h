/* export/export.h — every file a profile run leaves behind, and the console table.
 *
 * Owns nothing long-lived: the context borrows everything (store, dataset,
 * metrics result, JSON objects); each writer builds its file in memory or
 * streams it through gp_atomic_open and renames it into place (never a
 * half-written artifact). Nothing is printed except by gp_export_console /
 * gp_export_all's console step, to ctx->console.
 *
 * Files in ctx->run_dir (stem = profile_export_file without its extension):
 *   <profile_export_file>     perf_analyzer's profile_export.json (§4.6)
 *   <stem>_genai_perf.json    GenAI-Perf's summary (§7.1), Python json.dumps(indent=2)
 *   <stem>_genai_perf.csv     GenAI-Perf's CSV (§7.2), CRLF
 *   <stem>_records.jsonl      ours: one line per measured request, failures included
 *   <stem>_genperf.json       ours: counts, provenance, inter-chunk latency, client health
 * inputs.json is written by the dataset module (gp_dataset_write_inputs_json).
 */
#ifndef GP_EXPORT_EXPORT_H
#define GP_EXPORT_EXPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sched/sched.h"

struct gp_error;
struct gp_buf;
struct gp_record_store;
struct gp_dataset;
struct gp_inputs_meta;
struct gp_metrics_result;

struct gp_metrics_watch;
struct gp_export_pe;

struct gp_export_ctx {
    const char *run_dir;             /* created if missing (mkdir -p) */
    const char *profile_export_file; /* bare file name, default "profile_export.json" */

    const char *mode;                /* "concurrency" | "request_rate" */
    double value;                    /* concurrency (written as an int) or rate (float) */
    const char *arrival_process;     /* a rate run's "constant" | "poisson" | "gamma": written as "arrivals"
                                      * in <stem>_genperf.json; NULL (no rate-driven arrivals) = no key */
    double burstiness;               /* gamma's shape (--burstiness), written with "gamma" only */
    const char *trace_file;          /* a --fixed-schedule replay's --input-file (payload: prefix dropped):
                                      * written as "trace" {file, speedup} in <stem>_genperf.json so the
                                      * store can say the load; NULL (no replay) = no key */
    double trace_speedup;            /* --trace-speedup X, written with trace_file */
    const char *service_kind;        /* "openai" */
    const char *version;             /* profile_export.json "version"; NULL = "genperf <version>" (a merge
                                      * keeps its first node's, as GenAI-Perf does) */
    const char *endpoint;            /* "v1/chat/completions" (no leading '/') */
    int endpoint_type;               /* enum gp_endpoint_type (dataset/dataset.h) */
    const char *endpoint_type_name;  /* --endpoint-type as given ("vision"...): the console title; NULL = chat */
    int streaming;                   /* --streaming: shapes CSV/console rows */
    int goodput;                     /* --goodput given: request_goodput row/key */

    const json_t *input_config;      /* borrowed; written as "input_config" */
    const json_t *telemetry_stats;   /* borrowed, GenAI-Perf shape (§9); NULL = none */

    const struct gp_record_store *store;   /* borrowed */
    const struct gp_dataset *ds;           /* borrowed (payloads for profile_export.json) */
    const struct gp_metrics_result *m;     /* borrowed (gp_metrics_compute) */
    /* borrowed, optional: session runs' per-entry session_id / delay
     * (dataset.h), n_inputs_meta entries indexed by record entry; a record
     * whose entry has a session_id gets them in request_inputs as
     * perf_analyzer's session mode writes them. NULL = payload only. */
    const struct gp_inputs_meta *inputs_meta;
    size_t n_inputs_meta;

    /* provenance and client health for <stem>_genperf.json */
    const char *tokenizer_source;    /* gp_tokenizer_source(), NULL = unknown */
    double client_busy_fraction;     /* event-loop busy time / wall time, < 0 = unknown */
    double client_busy_warn;         /* warn above this (e.g. 0.8); 0 = 0.8 */
    uint64_t client_run_ns;          /* measured phase length; 0 = unknown (no "fidelity" block when
                                      * client_busy_fraction is unknown too: a merge of exports) */
    uint64_t client_cpu_ns;          /* the client threads' CPU time in it (summed over workers); 0 = unknown
                                      * (MPI ranks, which may run on other hosts) */
    uint64_t n_sent;                 /* requests sent incl. warmup (client counter) */
    uint64_t n_retried;              /* stale-connection resends (not failures) */
    uint64_t n_warmup;
    int incomplete;                  /* the client stopped early (record store out of memory, or the
                                      * --max-memory budget reached: budget_stopped) */
    int budget_stopped;              /* "incomplete_reason": "memory_budget" (else "out_of_memory") */
    uint64_t max_memory;             /* the budget in bytes ("max_memory_bytes", written when incomplete) */
    int interrupted;                 /* Ctrl-C stopped the run ("interrupted": true; written only then) */
    uint64_t n_lost;                 /* requests finished but not recorded */
    uint64_t n_backoff;              /* reconnect back-offs (client.backoff; written only when > 0) */
    uint64_t backoff_ns;             /* their total */
    uint64_t n_rx_kstamp;            /* reads stamped with the kernel's receive time (client.receive_stamp) */
    uint64_t rx_lag_sum_ns, rx_lag_max_ns, n_rx_lag_over_1ms; /* recv's return after that stamp */
    uint64_t start_wall_ns, end_wall_ns;   /* run start/end (CLOCK_REALTIME ns); 0 = from store */
    double ramp_s;                   /* --ramp-up-duration; > 0 writes "ramp" (records flagged GP_REC_RAMP) */
    double cancel_rate;              /* --request-cancellation-rate (percent); > 0 writes "cancellation" */
    double cancel_delay_s;           /* --request-cancellation-delay */
    uint64_t n_cancel_chosen;        /* measured requests the rate chose (client counter) */
    double timeslice_s;              /* --timeslice-duration; > 0 writes "timeslices" (per-slice metrics) */

    /* Post-processing as a pipeline (metrics/watch.h): with watch set,
     * profile_export.json reads each request's verdict as soon as the
     * metrics have it, so gp_export_pe_start can write it while
     * gp_metrics_compute still runs; pe: that writer, joined (and its
     * result taken) by gp_export_all instead of writing the file again. */
    struct gp_metrics_watch *watch;
    struct gp_export_pe *pe;
    FILE *console;                   /* table destination (stdout); NULL = no table */
    int verbose;                     /* -v: GenAI-Perf's GPU telemetry tables follow the table */
    int console_width;               /* 0 = $COLUMNS or 80 */

    /* borrowed, optional: gp_telemetry_summary_json(), written as "telemetry"
     * in <stem>_genperf.json */
    const json_t *telemetry_summary;

    /* borrowed, optional: how the load was spread (workers, ranks, clock
     * offsets, endpoints), written as "scale_out" in <stem>_genperf.json
     * only; NULL (a one-thread, one-process, one-URL run) = no key */
    const json_t *scale_out;

    /* borrowed, optional: the per-model breakdown of several -m, written as
     * "models" in <stem>_genperf.json only; NULL (one model) = no key */
    const json_t *models;
    /* borrowed, optional: gp_telemetry_energy_json(); with it
     * <stem>_genperf.json gets "energy" (energy_json.c). NULL = no key */
    const json_t *energy;
    double gpu_hour_cost;            /* --gpu-hour-cost USD; > 0 writes "cost" */
    int gpu_count;                   /* GPUs telemetry saw (the cost's multiplier); 0 = unknown: 1 assumed */
};

/* The fidelity verdict (fidelity.c): is the client limiting the
 * measurement? "fidelity" in <stem>_genperf.json, one console line.
 * Limiting when any of: the busiest loop busy >= GP_FID_BUSY (measured
 * phase >= GP_FID_MIN_RUN_S); open-loop schedule lag p99 > GP_FID_LAG_MS
 * with >= GP_FID_MIN_LATE sends past it (sends that waited for the
 * --max-concurrency cap left out); queue-to-send lag the same; kernel-
 * stamped reads returned > GP_FID_RECV_AVG_MS late on average (phase >=
 * GP_FID_MIN_RUN_S); the client's threads used >= GP_FID_CPU_SHARE of the
 * host's CPUs (phase >= GP_FID_MIN_RUN_S; one process only); or any
 * measured request failed in the client itself (out of file descriptors,
 * local ports or buffers: gp_fidelity_local_cause). */
#define GP_FID_BUSY 0.9
#define GP_FID_MIN_RUN_S 0.5
#define GP_FID_LAG_MS 10.0
#define GP_FID_MIN_LATE 5
#define GP_FID_RECV_AVG_MS 5.0
#define GP_FID_CPU_SHARE 0.9
#define GP_FID_MAX_REASONS 5

struct gp_fidelity_inputs {
    double busy_fraction;            /* busiest loop; < 0 = unknown */
    double run_s;                    /* measured phase */
    double schedule_lag_p99_ms;      /* < 0: closed loop */
    size_t sched_n, sched_late;      /* open-loop sends counted, and those > GP_FID_LAG_MS late */
    double send_lag_p99_ms;          /* < 0: no send stamps */
    size_t send_n, send_late;
    double recv_lag_max_ms, recv_lag_avg_ms; /* < 0: reads not kernel-stamped */
    double cpu_s;                    /* client threads' CPU; < 0 = unknown */
    int n_cpus;                      /* online CPUs of this host */
    size_t local_failed;             /* requests that failed in the client itself (no descriptor, no local
                                      * port, no buffer): the load asked for was not applied */
    size_t local_of;                 /* measured requests they are counted among */
    char local_what[64];             /* the first one's cause, e.g. "Too many open files" */
};
struct gp_fidelity {
    int limiting;
    int n_reasons;
    char reasons[GP_FID_MAX_REASONS][400]; /* what was seen, the threshold, what to do */
};
/* The cause when a transport error text err[0..n) is the client's own
 * resource running out (EMFILE, ENFILE, EADDRNOTAVAIL, ENOBUFS, ENOMEM: the
 * request never reached the server for a local reason), else NULL. */
const char *gp_fidelity_local_cause(const char *err, size_t n);
/* The figures from ctx (its store's records and client counters). */
void gp_fidelity_inputs(const struct gp_export_ctx *ctx, struct gp_fidelity_inputs *in);
/* The verdict from them (pure: unit-tested on hand-made inputs). */
void gp_fidelity_assess(const struct gp_fidelity_inputs *in, struct gp_fidelity *f);
/* {"client_limited", "verdict", "reasons", "inputs"}: new reference. */
json_t *gp_fidelity_json(const struct gp_fidelity_inputs *in, const struct gp_fidelity *f);
/* "genperf: client: not limiting" or "genperf: client: limiting — why; why" */
void gp_fidelity_print(FILE *out, const struct gp_fidelity *f);

/* Energy and cost (energy_json.c), new references, NULL when absent:
 * "energy" = ctx->energy plus "output_tokens", "joules_per_output_token",
 * "output_tokens_per_joule" (null without tokens / joules); "cost" with
 * --gpu-hour-cost: usd = window_s / 3600 x usd_per_gpu_hour x gpu_count,
 * "usd_per_million_{input,output}_tokens" = usd / tokens x 1e6 (window_s:
 * the benchmark window the throughput uses; tokens: every ok request's ISL /
 * OSL). gp_export_energy_print writes one console line for each present. */
json_t *gp_export_energy_json(const struct gp_export_ctx *ctx);
json_t *gp_export_cost_json(const struct gp_export_ctx *ctx);
void gp_export_energy_print(FILE *out, const struct gp_export_ctx *ctx);

/* Writes every artifact above (console table first, as GenAI-Perf does).
 * A file that cannot be written (a full disk) does not stop the others;
 * <stem>_genai_perf.json and .csv come last and only when every other file
 * was written, so an incomplete set never ingests as a job. The error names
 * every file not written. */
int gp_export_all(const struct gp_export_ctx *ctx, struct gp_error *err);

/* Starts profile_export.json on its own thread (see pe above): ctx is
 * copied; what it points to (store, dataset, the metrics result the watch
 * fills) must stay valid until the join. *out = NULL (returning 0) where no
 * thread can be started: gp_export_all then writes the file itself. */
struct gp_export_pe;
#define GP_EXPORT_PE_PIPELINE 1 /* for bench/postprocess.c, which also builds against older trees */
int gp_export_pe_start(const struct gp_export_ctx *ctx, struct gp_export_pe **out, struct gp_error *err);
/* Waits for it, frees it; its result (gp_export_all calls this for ctx->pe). */
int gp_export_pe_join(struct gp_export_pe *pe, struct gp_error *err);

/* The single writers (path = full file path). */
int gp_export_profile_json(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err);
int gp_export_genai_perf_json(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err);
int gp_export_genai_perf_csv(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err);
int gp_export_records_jsonl(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err);
int gp_export_genperf_json(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err);

/* Checks one request of a perf_analyzer profile export (§4.6) as
 * `genperf ingest` and process-export-files read it: "timestamp" an integer
 * >= 0; "response_timestamps" integers, none before the one before it (or
 * the timestamp); as many "response_outputs" as response timestamps. With
 * required, both arrays must be there. 0 (and *last_ns = the last time, if
 * given) or -GP_EINVAL naming path and field ("experiments[0].requests[3]"). */
int gp_export_check_pa_request(const json_t *rq, int required, const char *path, const char *field,
                               long long *last_ns, struct gp_error *err);

/* Builders into a buffer (for tests and for callers that print elsewhere). */
int gp_export_genai_perf_json_buf(const struct gp_export_ctx *ctx, struct gp_buf *out);
int gp_export_csv_buf(const struct gp_export_ctx *ctx, struct gp_buf *out);
/* Console table "NVIDIA GenAI-Perf | LLM Metrics" (§8), plain box drawing. */
int gp_export_console_buf(const struct gp_export_ctx *ctx, int width, struct gp_buf *out);
int gp_export_console(const struct gp_export_ctx *ctx, struct gp_error *err);
/* GenAI-Perf's -v GPU telemetry tables (Power, Memory, Utilization groups of
 * nested tables) from a telemetry_stats block; appends nothing when no
 * group has data. 0 or -GP_ENOMEM. */
int gp_export_console_telemetry_buf(const json_t *telemetry_stats, struct gp_buf *out);

/* Schedule lateness over the measured records that had a due time
 * (t_sched_ns), and how many waited for the --max-concurrency cap; present
 * = 0 for a closed-loop run. Feeds "schedule" in <stem>_genperf.json and the
 * console warning of `profile`. 0 or -GP_ENOMEM. */
struct gp_export_sched {
    int present;
    struct gp_sched_lag lag;
    size_t cap_delayed;
};
int gp_export_schedule_summary(const struct gp_record_store *st, struct gp_export_sched *out);

/* <stem> of a profile export file name: "custom_export.json" -> "custom_export". */
void gp_export_stem(const char *profile_export_file, char *out, size_t outsz);

/* GenAI-Perf's run directory name, "<model0>[_multi]-openai-<type>[-<stimulus>]"
 * with every '/' of the model name as '_' (perf_analyzer_config.py). One
 * copy for `profile` (from its flags) and `process-export-files` (from a
 * node's input_config); stimulus "" adds no suffix. 0, or -1 when it does not
 * fit in outsz. */
int gp_export_run_name(const char *model0, int multi, const char *type, const char *stimulus, char *out,
                       size_t outsz);

#endif
