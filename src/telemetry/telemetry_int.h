/* telemetry/telemetry_int.h — the sampler's state, shared by telemetry.c
 * (thread, sources, sampling) and telemetry_json.c (the JSONL file, the
 * GenAI-Perf stats block and the summary). Private to src/telemetry/.
 *
 * Owns nothing by itself: struct gp_telemetry is allocated by
 * gp_telemetry_open and freed by gp_telemetry_free (telemetry.c).
 */
#ifndef GP_TELEMETRY_TELEMETRY_INT_H
#define GP_TELEMETRY_TELEMETRY_INT_H

#include "core/buf.h"
#include "telemetry/host.h"
#include "telemetry/nvml.h"
#include "telemetry/telemetry.h"

#include <curl/curl.h>
#include <pthread.h>

#define TM_MAX_EVENTS 64
#define TM_MAX_SRC 8

/* One scraped /metrics URL, with its own curl easy handle (the client's
 * event loop never sees it). */
struct tm_src {
    char *url;
    char shown[512];    /* url as it may be written or printed: credentials hidden (core/redact) */
    int quiet;          /* a default guess: drop silently when it does not work */
    int on;             /* answered the probe with known names */
    int has_server, has_dcgm;
    int ngpu;           /* GPUs the probe found on a DCGM exporter */
    int use_server;     /* sampled as device "server" / "server<server_idx>" */
    int server_idx;
    int use_dcgm;       /* no NVML: its GPUs are gpu<gpu_base + label order> */
    int gpu_base;
    CURL *curl;
    struct gp_buf body;
    unsigned failures;
    /* The server's prefix-cache counters, in prompt tokens: pc_kind 1 is
     * vLLM's prefix_cache_{hits,queries}_total, 2 SGLang's
     * cached_tokens_total / prompt_tokens_total (pc_hits_seen: cached_tokens
     * appeared in some scrape; until then SGLang's figure is not used, since
     * a version without the counter looks the same as one with no hit). */
    int have_pc_prev, pc_kind, pc_hits_seen;
    double pc_hits_prev, pc_queries_prev;
    /* ... at the window's start: the first scrape that had them, or the
     * scrape at gp_telemetry_mark_window (the window is last - first) */
    double pc_hits_first, pc_queries_first;
    int have_sd_prev;
    double sd_prev[3];  /* vLLM spec_decode drafts, draft tokens, accepted tokens at the last scrape */
    double sd_first[3]; /* ... at the window's start, as pc_*_first */
    int rebase;         /* a window mark is pending: the next good scrape sets *_first */
    /* A prefix-cache hit-rate gauge (its name static), summed over the
     * scrapes since the window's start: shown as a gauge, never as the run's rate */
    const char *gauge_name;
    double gauge_sum;
    int gauge_n;
    char status[512];
    char curl_err[CURL_ERROR_SIZE];
};

/* A source that became (or was) unavailable, written as a status line. */
struct tm_event {
    uint64_t t_ns;
    char device[16];
    int mid_run;      /* 0: never worked; 1: failed during the run (from t_ns on) */
    char reason[400];
};

struct gp_telemetry {
    double interval_s;
    char *nvml_path;
    uint64_t mono0, wall0;

    struct gp_nvml *nv;
    int ngpu;
    int gpu_dead[GP_NVML_MAX_DEV];
    unsigned gpu_soft_errors[GP_NVML_MAX_DEV];
    int gpu_from_dcgm;   /* no NVML, but the metrics URL is a DCGM exporter */
    char gpu_status[512];

    struct gp_host host;
    int host_ok;

    struct tm_src src[TM_MAX_SRC];
    int nsrc;
    int primary;       /* source of the server metrics, -1 = none */
    int dcgm_src;      /* source of DCGM GPU metrics when NVML is missing, -1 = none */
    long scrape_timeout_ms;
    char server_status[512];

    struct gp_telemetry_sample *s;
    size_t n, cap;
    struct tm_event ev[TM_MAX_EVENTS];
    int nev;
    uint64_t t_first, t_last;
    unsigned ticks;
    /* gp_telemetry_mark_window: mark_req (under mu) asks the sampler thread
     * for a marking tick; tick_mark is set only by whoever runs that tick;
     * mark_ns is the marking tick's time, 0 = never marked (the window then
     * starts at the first scrape). */
    int mark_req, tick_mark;
    uint64_t mark_ns;

    /* Rank 0's copy of another host's sampler (gp_telemetry_unpack_header):
     * no sources, only samples, events and the summary its host rendered. */
    json_t *remote_summary;

    pthread_t th;
    uint64_t first_tick_ns; /* gp_telemetry_start's own sample, the thread's phase */
    int thread_started;
    int stopping;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int sync_ok;
};

#endif
