/* client/client.h — the load generator: one epoll event loop per thread
 * (--workers N: N of them), many transfers, each on the built-in HTTP/1.1
 * transport (plain http://, client_h1.c) or on libcurl multi (the rest).
 *
 * Owns: the curl handles and per-slot staging buffers for the duration of
 * gp_client_run (all freed before it returns). Borrows: the request bodies
 * (the caller's dataset), the headers, the stop fd, and the record store it
 * appends to (the caller owns and frees the store).
 *
 * Load shapes (spec genai-perf-profile.md §4):
 *   concurrency C   closed loop: C slots, each sends its next request as soon
 *                   as its last one ended. In request-count mode slot s sends
 *                   count/C (+1 for s < count%C) requests, as perf_analyzer's
 *                   threads do; slot s's k-th request uses dataset entry
 *                   (s + k*C) mod n, so with C=1 the order is 0,1,2,...
 *   request rate R  open loop: arrival i is scheduled at t0 + i/R (constant)
 *                   or after exponential gaps (Poisson: sched/arrivals.c) and
 *                   uses entry i mod n; max_inflight caps requests in flight
 *                   (a capped arrival waits and counts as delayed).
 *   duration        either shape, sending until the deadline; requests still
 *                   in flight then are abandoned and not recorded, as
 *                   perf_analyzer drops them at the end of its windows.
 * Warmup requests run first with the same shape (concurrency min(C, W)),
 * all complete, and are recorded with GP_REC_WARMUP; the measured phase then
 * restarts at dataset entry 0 (GenAI-Perf/PA behaviour).
 *
 * Timestamps (all CLOCK_MONOTONIC ns, taken on the loop's thread; record.h):
 *   t_start_ns  gp_now_ns() in gp_cl_slot_start (client.c), just before the
 *               transfer goes to its transport: before h1's connect/send,
 *               before curl_multi_add_handle. TTFT and latency start here.
 *   t_send_ns   when the request's first byte is about to go out on a ready
 *               connection: h1's send_some (client_h1.c), libcurl's
 *               CURLOPT_PREREQFUNCTION (client.c on_prereq).
 *   t_sched_ns  not a reading: the due time the schedule gave (open loop).
 *   chunk t_ns  plain http:// (client_h1.c recv_read): each recvmsg is
 *               stamped before its bytes are parsed, with the kernel's
 *               receive time of the read (SO_TIMESTAMPNS, on CLOCK_REALTIME,
 *               moved to CLOCK_MONOTONIC by the two clocks' offset read then,
 *               kept within [the transfer's last stamp, when recvmsg
 *               returned]: kernel_stamp); GENPERF_RX_STAMP=user: gp_now_ns()
 *               right after recvmsg returns. A read holding several HTTP
 *               chunks gives its first body span that stamp and each later
 *               span gp_now_ns() when handed over, less the read's lag
 *               (put_body). libcurl (https, --http2, proxies): gp_now_ns()
 *               first thing in the write callback (client.c on_write).
 *               A transfer's stamps never go back (asserted).
 *   t_end_ns    gp_now_ns() when gp_cl_slot_record runs (the loop saw the
 *               transfer end). A response that is not text/event-stream is
 *               stored as one chunk, as perf_analyzer records non-streamed
 *               bodies, stamped with its last read's kernel stamp (h1) or
 *               t_end_ns (otherwise); t_end_ns then takes that stamp too.
 */
#ifndef GP_CLIENT_CLIENT_H
#define GP_CLIENT_CLIENT_H

#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "sched/sched.h"

struct gp_error;
struct gp_record_store;
struct gp_record_budget;
struct gp_client_plan;

struct gp_client_body {
    const char *data;
    size_t len;
};

/* One loop's progress counters, written by its thread (relaxed atomics:
 * a progress estimate needs no ordering), read by the thread that draws. */
struct gp_client_progress {
    _Atomic uint64_t done, failed, events, warmup_sent, phase_start_ns;
    _Atomic uint64_t inflight;
    _Atomic int warmup, stopping;
};

struct gp_client_opts {
    const char *url;                 /* full request URL (base + "/" + endpoint) */
    /* Several endpoints (replicas): n_urls > 1 spreads the requests over
     * urls[] (url is then ignored), per event loop: round robin (each loop
     * cycles through them, starting at its share_index), or the endpoint with
     * the fewest of this loop's requests in flight (ties: the lowest index).
     * The record's `endpoint` says which one served it. */
    const char *const *urls;
    size_t n_urls;                   /* 0 or 1: url only; at most GP_CLIENT_MAX_URLS */
    int url_least_inflight;
    const char *const *headers;      /* extra "Name: value" headers, sent as given */
    size_t n_headers;
    const struct gp_client_body *bodies;
    size_t n_bodies;

    struct gp_load_slice load;       /* the load plan (sched/sched.h): closed loop or arrivals, cap, counts,
                                      * this loop's share */
    const struct gp_client_plan *plan; /* open loop over planned jobs (trace rows, session turns), borrowed;
                                      * its measured phase sends every job; warmup runs closed loop */
    uint64_t seed;                   /* --random-seed: back-off jitter and cancellation draws */
    double timeout_s;                /* per-request timeout, 0 = none */
    int http2;
    int stop_fd;                     /* signalfd (or any fd) readable = stop; -1 = none */
    FILE *progress;                  /* draw a progress line here (the command passes stderr on a
                                      * terminal); NULL = none. Library code prints only to a FILE*
                                      * it is given: here and notes */
    FILE *notes;                     /* one-line notes for the user (GENPERF_TRANSPORT=h1 not possible);
                                      * NULL = dropped */
    struct gp_client_progress *progress_pub; /* --workers: the loop publishes its counters here (every
                                      * 250 ms and at a phase's end) and the calling thread draws their
                                      * sum (client_workers.c); NULL = the loop draws its own */
    uint64_t grace_ns;               /* after a stop: how long in-flight requests may finish */
    uint64_t max_response_bytes;     /* a response body larger than this fails its request; 0 = no cap */
    struct gp_record_budget *budget; /* --max-memory: charged by the store while the run appends (shared by
                                      * the workers); reached = sending stops, in-flight requests get the
                                      * grace, stats->incomplete and ->budget_stopped. NULL = none */
    const char *cacert;              /* CA bundle file for https (NULL: libcurl's default) */
    int insecure;                    /* skip TLS peer and host name verification */
    /* --request-cancellation-rate/-delay (AIPerf's semantics): each measured
     * request is chosen with probability cancel_rate (0..1) by a draw keyed on
     * seed and its place in the load (closed loop: job slot and its k-th
     * request; open loop: arrival number), so the same requests are chosen
     * whatever the timing or the worker count; a chosen request still in
     * flight cancel_delay_ns after its start is aborted (its connection
     * closed) and recorded GP_REC_CANCELLED | GP_REC_CANCEL_PLANNED. */
    double cancel_rate;
    uint64_t cancel_delay_ns;

    /* Scale-out (client_workers.c, docs/scale-out.md): this event loop runs
     * the share of job slot load.share_index out of load.share_count (ranks x
     * workers), as dist/plan.c's gp_dist_split_load gives it. Closed loop: it
     * owns the request slots gp_dist_share_first(C', S, i) ..
     * + gp_dist_share(C', S, i) - 1 (C' = active concurrency of the phase),
     * each with the quota and dataset entries a one-thread run gives that
     * slot. Open loop: it sends arrivals k with k mod S == i at their global
     * times (every loop draws the whole schedule). gp_client_run_workers
     * gives each loop its share of load.max_inflight (the job's cap there,
     * the loop's in gp_client_run). */
    /* Called exactly once, after the warmup (whether or not it ran or
     * failed), on the loop's thread; returns the CLOCK_MONOTONIC time the
     * measured phase starts at (the loop sleeps until then), so that every
     * loop of a job uses one schedule origin. NULL = start right away.
     * gp_client_run_workers calls it once on its caller's thread, after every
     * worker's warmup (even when a loop or the run failed), so it may talk to
     * other processes (an MPI collective: profile_dist.c). */
    uint64_t (*measure_start)(void *ctx);
    void *measure_ctx;
};

#define GP_CLIENT_MAX_URLS 64

struct gp_client_stats {
    uint64_t n_sent;                 /* transfers started, warmup included, retries excluded */
    uint64_t n_retried;              /* stale keep-alive resends */
    uint64_t n_warmup;
    uint64_t n_failed;               /* measured records flagged GP_REC_FAILED */
    uint64_t n_ok;
    uint64_t n_dropped;              /* in flight at the end of a time-bounded run */
    uint64_t n_cancel_chosen;        /* measured requests --request-cancellation-rate chose */
    uint64_t n_cancel_planned;       /* of those, cancelled (still in flight after the delay) */
    uint64_t n_delayed;              /* rate mode: sends later than 1 ms after schedule */
    uint64_t max_lag_ns;             /* rate mode: worst send lateness */
    uint64_t n_cap_delayed;          /* open loop: measured requests that waited for the max_inflight cap */
    uint64_t start_ns, end_ns;       /* measured phase, CLOCK_MONOTONIC */
    uint64_t began_ns;               /* when the loop really began it: start_ns, or later when its sleep
                                      * until a measure_start time woke late (summed: the latest loop) */
    uint64_t cpu_ns;                 /* thread CPU time during the measured phase */
    uint64_t n_send_stamped;         /* measured records with a t_send_ns */
    uint64_t send_lag_sum_ns;        /* sum and max of t_send_ns - t_start_ns over them */
    uint64_t send_lag_max_ns;
    /* h1 transport, measured phase: reads stamped with the kernel's receive
     * time, and how much later recv returned (the loop's own lateness,
     * which those stamps leave out of TTFT and ITL) */
    uint64_t n_rx_kstamp;
    uint64_t rx_lag_sum_ns, rx_lag_max_ns;
    uint64_t n_rx_lag_over_1ms;
    double busy_fraction;            /* cpu_ns / (end - start) */
    int interrupted;                 /* the stop fd fired */
    int incomplete;                  /* the record store could not grow: the run stopped early */
    uint64_t n_lost;                 /* finished requests that could not be recorded (incomplete) */
    int budget_stopped;              /* incomplete because the memory budget (opts budget) was reached */
    uint64_t n_backoff;              /* closed loop: waits after connection-level failures (backoff.h) */
    uint64_t backoff_ns;             /* sum of those waits */
    long first_error_status;         /* HTTP status of the first failure, 0 = transport */
    char first_error[512];           /* text of the first failure ("" = none) */
};

/* Runs warmup + measurement, appending every finished request to st.
 * Returns 0 when the run completed (even with failed requests, or when
 * interrupted: check stats->interrupted; or when the store ran out of
 * memory: stats->incomplete, what it holds is still valid), or a negative gp code for a run
 * that could not start (bad URL, curl init), with err filled. */
int gp_client_run(const struct gp_client_opts *o, struct gp_record_store *st, struct gp_client_stats *stats,
                  struct gp_error *err);

/* Runs the load on `workers` event-loop threads (client_workers.c), each with
 * its own multi handles and record store, as job slots o->load.share_index
 * + w of o->load.share_count (0 = workers). o->stop_fd is watched by the calling
 * thread and relayed to every worker. After the run the workers' records are
 * merged into st by start time (ties: lower worker first) and their stats
 * summed into *stats (max_lag: the worst; busy_fraction: the busiest worker);
 * per_worker (workers entries, may be NULL) gets each worker's own stats.
 * With o->progress the calling thread draws the workers' summed progress
 * line (each loop publishes into a gp_client_progress). workers == 1 is exactly
 * gp_client_run on the calling thread. */
int gp_client_run_workers(const struct gp_client_opts *o, int workers, struct gp_record_store *st,
                          struct gp_client_stats *stats, struct gp_client_stats *per_worker, struct gp_error *err);

/* Adds loop s's stats into t (first: t = *s): counts summed, the worst lag,
 * the earliest start and latest end (both on one clock), the busiest loop's
 * busy fraction, the first error. Workers' and MPI ranks' totals. */
void gp_client_stats_sum(struct gp_client_stats *t, const struct gp_client_stats *s, int first);

/* Appends every record of srcs[0..n) to dst, merged by t_start_ns (ties: the
 * lower source first), with its chunks, bytes and error text. dst's clock
 * origin is taken from srcs[0] when dst has none. 0 or -GP_ENOMEM. */
int gp_client_merge_stores(struct gp_record_store *dst, struct gp_record_store *const *srcs, size_t n,
                           struct gp_error *err);

/* The file descriptors the job of o needs (o before the split: its whole
 * concurrency or cap): one socket per request in flight, a closed loop's
 * load.concurrency or an open loop's load.max_inflight, plus GP_CLIENT_FD_SPARE for
 * the process's own (stdio, signalfd, event loops, telemetry, the record
 * store). 0 when nothing bounds it: an open loop without a cap keeps rate x
 * latency requests in flight. profile/ raises RLIMIT_NOFILE to it; the
 * client sizes the fd table by it. */
#define GP_CLIENT_FD_SPARE 64
uint64_t gp_client_fd_need(const struct gp_client_opts *o);

/* $GENPERF_TRANSPORT: unset or empty (the built-in HTTP/1.1 client where
 * the URLs allow it, else libcurl), "curl" or "h1". Any other value: -1 with
 * a message naming it, so a typo fails before anything runs or is written. */
int gp_client_transport_check(const char *value, struct gp_error *err);

/* $GENPERF_RX_STAMP: unset, empty or "kernel" (the built-in HTTP/1.1 client
 * stamps each read with the socket's receive time, SO_TIMESTAMPNS) or "user"
 * (when recv returns, as libcurl's write callback does). Anything else: -1
 * with a message naming it. */
int gp_client_rx_stamp_check(const char *value, struct gp_error *err);

#endif
