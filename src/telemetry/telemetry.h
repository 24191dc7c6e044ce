/* telemetry/telemetry.h — GPU, host and server sampling during a measurement.
 *
 * Owns: struct gp_telemetry (opaque): one sampler (its thread, its NVML
 * handle, its curl easy handle for the server scrape, and every sample taken,
 * held in memory until written). Free with gp_telemetry_free(), which stops
 * the thread first if needed. JSON returned by the *_json functions is a new
 * reference the caller decrefs.
 *
 * Typical use (cmd_profile, one runner cell):
 *     struct gp_telemetry_opts o = { .interval_s = 1.0, .server_metrics_url = url };
 *     struct gp_telemetry *t;
 *     if (gp_telemetry_start(&o, &t, &err)) ... // only fails on bad opts / ENOMEM
 *     ... run the measurement ...
 *     gp_telemetry_stop(t);
 *     gp_telemetry_write_jsonl(t, "<dir>/<stem>_telemetry.jsonl", &err);
 *     json_t *ts = gp_telemetry_stats_json(t);   // NULL when no GPU data
 *     if (ts) json_object_set_new(genai_perf_json, "telemetry_stats", ts);
 *     gp_telemetry_free(t);
 *
 * A missing GPU, a missing/failing NVML library or an unreachable metrics URL
 * never makes start fail: that source is marked unavailable (with the reason,
 * see gp_telemetry_gpu_status / gp_telemetry_server_status) and the others
 * keep sampling. Host CPU/memory telemetry comes from /proc and always works
 * on Linux.
 *
 * NVML is loaded with dlopen at start: opts->nvml_path, else the environment
 * variable GENPERF_NVML_LIB, else "libnvidia-ml.so.1". Tests point
 * GENPERF_NVML_LIB at build/tests-lib/libfake_nvml.so.
 *
 * Time-series file (<stem>_telemetry.jsonl), one JSON object per line:
 *   {"t_ns":<CLOCK_MONOTONIC ns>,"wall_ns":<unix ns>,"device":"gpu0"|"host"|"cpu3"|"genperf"|"server"|"server1",
 *    "metric":"<name>","value":<number>}
 * preceded by status lines (no "value"; readers skip them, see docs/telemetry.md):
 *   {"t_ns":..,"wall_ns":..,"device":"gpu"|"server"|"host","metric":"unavailable","reason":"..."}
 *   {"t_ns":..,"wall_ns":..,"device":"gpu1"|"server","metric":"unavailable","mid_run":true,"reason":"..."}
 * Metric names are the GP_TM_* names below (gp_telemetry_metric_name).
 */
#ifndef GP_TELEMETRY_TELEMETRY_H
#define GP_TELEMETRY_TELEMETRY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct gp_error;
struct gp_telemetry;

struct gp_telemetry_opts {
    double interval_s;               /* sampling period; <= 0 means 1.0; sub-second allowed (>= 0.01) */
    const char *server_metrics_url;  /* Prometheus /metrics URL to scrape; NULL = none */
    const char *nvml_path;           /* NULL = $GENPERF_NVML_LIB or "libnvidia-ml.so.1" */
    /* More explicit URLs (GenAI-Perf's --server-metrics-urls takes several). */
    const char *const *metrics_urls;
    int n_metrics_urls;
    /* Guesses tried quietly as well (e.g. the target's /metrics from
     * gp_telemetry_metrics_url_for, and GenAI-Perf's default DCGM exporter
     * http://localhost:9400/metrics): used if they answer with known metric
     * names, otherwise dropped with no status line in the file. */
    const char *default_metrics_url;
    const char *const *default_metrics_urls;
    int n_default_metrics_urls;
};
/* Every URL is probed once at start (2 s timeout); at most 8 URLs (more
 * explicit ones fail open/start with an error naming the flag). Every URL
 * with vLLM/SGLang/TRT-LLM names is scraped each tick, as device "server"
 * (the first, in the order above), "server1", "server2", ...; GPU metrics come
 * from NVML, or without NVML from every URL that is a DCGM exporter (the
 * second exporter's GPUs numbered on from the first's). */

/* Derives "<scheme>://host[:port]/metrics" from a target URL as given to
 * --url ("localhost:8000", "http://h:8000/v1/chat/completions"). 0, or -1 if
 * it does not fit in out. */
int gp_telemetry_metrics_url_for(const char *target_url, char *out, size_t outsz);

/* Where a sample came from. */
enum gp_tm_device_kind {
    GP_TD_GPU = 0,      /* "gpu<index>" */
    GP_TD_HOST = 1,     /* "host" */
    GP_TD_CPU = 2,      /* "cpu<index>" (one per core, from /proc/stat) */
    GP_TD_GENPERF = 3,  /* "genperf" (this process) */
    GP_TD_SERVER = 4,   /* "server" (scraped /metrics) */
};

/* Every metric name that can appear in the time series. The GPU metrics are
 * one contiguous block [0, GP_TM_GPU__COUNT): NVML readings and DCGM scans
 * are arrays indexed by them with a 64-bit "has" mask (so at most 64). Units
 * are ours (W, J, bytes, %, MHz, C, counts, us, bytes/s); telemetry_json.c
 * scales them to GenAI-Perf's on export. */
enum gp_tm_metric {
    /* gpu (NVML or DCGM exporter; DCGM names in prom.c) */
    GP_TM_POWER_W = 0,
    GP_TM_POWER_LIMIT_W,
    GP_TM_ENERGY_J,          /* NVML total energy counter (since driver load), joules */
    GP_TM_GPU_UTIL_PCT,
    GP_TM_MEM_UTIL_PCT,      /* memory copy utilisation */
    GP_TM_GPU_MEM_USED_BYTES,   /* written as "mem_used_bytes" */
    GP_TM_GPU_MEM_TOTAL_BYTES,  /* written as "mem_total_bytes" */
    GP_TM_TEMP_C,
    GP_TM_SM_CLOCK_MHZ,
    GP_TM_SM_ACTIVE_PCT,     /* DCGM_FI_PROF_SM_ACTIVE x 100 (DCGM only) */
    GP_TM_ENC_UTIL_PCT,
    GP_TM_DEC_UTIL_PCT,
    GP_TM_GPU_MEM_FREE_BYTES,   /* written as "mem_free_bytes" */
    GP_TM_MEM_CLOCK_MHZ,
    GP_TM_MEM_TEMP_C,
    GP_TM_ECC_SBE_VOL,       /* ECC error counts: single/double bit, volatile/aggregate */
    GP_TM_ECC_DBE_VOL,
    GP_TM_ECC_SBE_AGG,
    GP_TM_ECC_DBE_AGG,
    GP_TM_XID_LAST,          /* last XID error code (DCGM only) */
    GP_TM_POWER_VIOLATION_US,   /* cumulative time throttled for power, us */
    GP_TM_THERMAL_VIOLATION_US, /* ... for temperature, us */
    GP_TM_RETIRED_SBE,       /* retired pages */
    GP_TM_RETIRED_DBE,
    GP_TM_NVLINK_CRC_FLIT,   /* NVLink CRC error counts, all links */
    GP_TM_NVLINK_CRC_DATA,
    GP_TM_PCIE_TX_BPS,       /* PCIe throughput, bytes/s */
    GP_TM_PCIE_RX_BPS,
    GP_TM_PCIE_REPLAY,       /* PCIe replay counter */
    GP_TM_GPU__COUNT,
    /* host */
    GP_TM_CPU_UTIL_PCT = GP_TM_GPU__COUNT,  /* host (all cores) and cpuN */
    GP_TM_LOAD1,
    GP_TM_HOST_MEM_USED_BYTES,      /* written as "mem_used_bytes" */
    GP_TM_HOST_MEM_AVAILABLE_BYTES, /* written as "mem_available_bytes" */
    /* genperf */
    GP_TM_PROC_CPU_PCT,      /* "cpu_pct": this process, user+system, 100 = one core */
    /* server */
    GP_TM_NUM_REQUESTS_RUNNING,
    GP_TM_NUM_REQUESTS_WAITING,
    GP_TM_KV_CACHE_USAGE_PCT,
    GP_TM_PREFIX_CACHE_HIT_RATE,  /* 0..1 */
    GP_TM_SPEC_ACCEPT_LENGTH,     /* speculative decoding: tokens per verify step (accepted drafts + 1) */
    GP_TM_SPEC_ACCEPT_RATE,       /* speculative decoding: accepted / proposed draft tokens, 0..1 */
    GP_TM__COUNT
};

/* One sample, as kept in memory (24 bytes). */
struct gp_telemetry_sample {
    uint64_t t_ns;     /* CLOCK_MONOTONIC */
    double value;
    uint16_t device_kind;  /* enum gp_tm_device_kind */
    uint16_t device_index; /* GPU or CPU number; 0 otherwise */
    uint16_t metric;       /* enum gp_tm_metric */
};

/* Opens the sources (NVML, /proc, the metrics URL) and starts the sampler
 * thread; the first sample is taken at once. Fails only on invalid opts,
 * ENOMEM or thread creation failure. */
int gp_telemetry_start(const struct gp_telemetry_opts *o, struct gp_telemetry **out,
                       struct gp_error *err);
/* Starts the counters' window now (the measured phase, after a warmup):
 * takes one extra sample at once (on the sampler thread when it runs, waiting
 * for it: at most one scrape timeout) and makes the server counters' deltas
 * (prefix cache, spec decode) and the hit-rate gauge's mean in the summary
 * run from it to the closing scrape. A source whose scrape fails then starts
 * at its next good one. Without a mark the window starts at the first
 * scrape. NULL t: nothing. Returns 0. */
int gp_telemetry_mark_window(struct gp_telemetry *t);
/* Stops and joins the sampler thread after one last sample; idempotent. */
int gp_telemetry_stop(struct gp_telemetry *t);
void gp_telemetry_free(struct gp_telemetry *t);

/* Same as start but without a thread: the caller drives sampling with
 * gp_telemetry_tick (used by `genperf telemetry` and the unit tests). */
/* 0 when url is empty or http(s)://; else an error naming the flag and the fix. */
int gp_telemetry_check_url(const char *url, struct gp_error *err);
int gp_telemetry_open(const struct gp_telemetry_opts *o, struct gp_telemetry **out,
                      struct gp_error *err);
/* Takes one sample of every available source now; returns the number of
 * samples added. Must not be called while the thread runs. */
int gp_telemetry_tick(struct gp_telemetry *t);

/* Writes the time series (see above) atomically. Call after stop. */
int gp_telemetry_write_jsonl(const struct gp_telemetry *t, const char *path, struct gp_error *err);

/* Several hosts (mpirun): one time series file for all of them, hosts[h]'s
 * samples after hosts[h-1]'s, every line with "host":"<hosts[h]>" before
 * "device". hosts == NULL (and n == 1) writes exactly what write_jsonl does. */
int gp_telemetry_write_jsonl_hosts(const struct gp_telemetry *const *ts, const char *const *hosts, int n,
                                   const char *path, struct gp_error *err);

/* ---- Several hosts: a sampler's state travels to rank 0 (telemetry_hosts.c)
 * Under mpirun one rank per host samples; at the end its state goes to rank 0
 * as one header record and its samples in pieces (profile/profile_dist_tel.c
 * carries them in dist's bounded chunks). offset_ns (this host's
 * CLOCK_MONOTONIC -> rank 0's) is added to every t_ns, so rank 0 writes every
 * host on its own timeline; wall_ns stays the sampler host's wall clock. The
 * summary is rendered on the sampler's host (it knows its GPUs' names). */
struct gp_buf;
/* Appends the header (times, status events, summary) to b. 0, -1 ENOMEM. */
int gp_telemetry_pack_header(const struct gp_telemetry *t, int64_t offset_ns, struct gp_buf *b);
/* Appends samples [from, from + n) (clipped to what is left) to b; returns
 * how many (0 once from reaches the end), -1 ENOMEM. */
long gp_telemetry_pack_samples(const struct gp_telemetry *t, size_t from, size_t n, int64_t offset_ns,
                               struct gp_buf *b);
/* Rank 0: a sampler object with no sources, built from a header; the
 * *_json and write functions work on it. Free with gp_telemetry_free. */
int gp_telemetry_unpack_header(const void *p, size_t n, struct gp_telemetry **out, struct gp_error *err);
int gp_telemetry_unpack_samples(struct gp_telemetry *t, const void *p, size_t n, struct gp_error *err);

/* GenAI-Perf's "telemetry_stats" block for the GPU metrics (new reference);
 * NULL when no GPU sample was taken. */
json_t *gp_telemetry_stats_json(const struct gp_telemetry *t);

/* Our own summary for genperf.json (new reference, never NULL on success):
 *   {"interval_s":..,"duration_s":..,"samples":N,
 *    "gpu":{"status":"available"|reason,"count":N,"names":[..]},
 *    "server":{"status":"available"|"none"|reason,"url":..},
 *    "metrics":{"<device>.<metric>":{"avg":..,"min":..,"max":..,"last":..,"n":..}, ...}}  */
json_t *gp_telemetry_summary_json(const struct gp_telemetry *t);

/* The energy the GPUs used over the sampler's window (telemetry_energy.c),
 * new reference; NULL when no GPU has two readings:
 *   {"source":"counter"|"power_integral"|"mixed","gpu_count":N,"joules":..,"avg_watts":..,
 *    "gpus":[{"gpu":0,"source":..,"seconds":..,"joules":..,"avg_watts":..,"peak_watts":..|null},..]}
 * "counter": NVML's total energy counter, last reading - first; a GPU
 * without it (or whose counter went backwards) integrates its power samples
 * (trapezoids), "power_integral". avg_watts = joules / seconds; peak_watts is
 * the highest power sample. The totals add the GPUs up. */
json_t *gp_telemetry_energy_json(const struct gp_telemetry *t);

/* "available", or the reason GPU telemetry is not (no library, init failed,
 * no devices, ...). Valid until gp_telemetry_free. */
const char *gp_telemetry_gpu_status(const struct gp_telemetry *t);
/* "available", "none" (no URL given), or why the scrape is not used. */
const char *gp_telemetry_server_status(const struct gp_telemetry *t);
int gp_telemetry_gpu_count(const struct gp_telemetry *t);

/* Read access to the samples (after stop, or between ticks). */
size_t gp_telemetry_nsamples(const struct gp_telemetry *t);
const struct gp_telemetry_sample *gp_telemetry_samples(const struct gp_telemetry *t);
/* CLOCK_MONOTONIC -> unix ns, on the clock pair read at start. */
uint64_t gp_telemetry_wall_ns(const struct gp_telemetry *t, uint64_t t_ns);

/* "power_w", "cpu_util_pct", ...; NULL for an unknown id. */
const char *gp_telemetry_metric_name(int metric);
/* Formats "gpu0" / "host" / "cpu3" / "genperf" / "server" into buf. */
const char *gp_telemetry_device_name(int kind, int index, char *buf, size_t bufsz);

#endif
