/* client/client.h — the load generator: one thread, one libcurl multi
 * handle, many transfers.
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
 *                   or after exponential gaps (Poisson, own seeded PRNG) and
 *                   uses entry i mod n; max_inflight caps requests in flight
 *                   (a capped arrival waits and counts as delayed).
 *   duration        either shape, sending until the deadline; requests still
 *                   in flight then are abandoned and not recorded, as
 *                   perf_analyzer drops them at the end of its windows.
 * Warmup requests run first with the same shape (concurrency min(C, W)),
 * all complete, and are recorded with GP_REC_WARMUP; the measured phase then
 * restarts at dataset entry 0 (GenAI-Perf/PA behaviour).
 *
 * Timestamps: t_start_ns just before the transfer is queued, one chunk per
 * libcurl write callback stamped with gp_now_ns() before anything else. A
 * response that is not text/event-stream is stored as one chunk stamped at
 * completion, as perf_analyzer records non-streamed bodies.
 */
#ifndef GP_CLIENT_CLIENT_H
#define GP_CLIENT_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/rng.h"

struct gp_error;
struct gp_record_store;

struct gp_client_body {
    const char *data;
    size_t len;
};

struct gp_client_opts {
    const char *url;                 /* full request URL (base + "/" + endpoint) */
    const char *const *headers;      /* extra "Name: value" headers, sent as given */
    size_t n_headers;
    const struct gp_client_body *bodies;
    size_t n_bodies;

    long concurrency;                /* > 0: closed loop */
    double request_rate;             /* > 0: open loop (concurrency ignored) */
    int poisson;
    long max_inflight;               /* rate mode cap, 0 = none */
    long request_count;              /* measured requests (ignored when duration_ns) */
    long warmup_count;
    uint64_t duration_ns;            /* > 0: time-bounded measured phase */
    uint64_t seed;                   /* Poisson PRNG seed */
    double timeout_s;                /* per-request timeout, 0 = none */
    int http2;
    int stop_fd;                     /* signalfd (or any fd) readable = stop; -1 = none */
    int progress;                    /* draw a progress line on stderr */
    uint64_t grace_ns;               /* after a stop: how long in-flight requests may finish */
    uint64_t max_response_bytes;     /* a response body larger than this fails its request; 0 = no cap */
    const char *cacert;              /* CA bundle file for https (NULL: libcurl's default) */
    int insecure;                    /* skip TLS peer and host name verification */
};

struct gp_client_stats {
    uint64_t n_sent;                 /* transfers started, warmup included, retries excluded */
    uint64_t n_retried;              /* stale keep-alive resends */
    uint64_t n_warmup;
    uint64_t n_failed;               /* measured records flagged GP_REC_FAILED */
    uint64_t n_ok;
    uint64_t n_dropped;              /* in flight at the end of a time-bounded run */
    uint64_t n_delayed;              /* rate mode: sends later than 1 ms after schedule */
    uint64_t max_lag_ns;             /* rate mode: worst send lateness */
    uint64_t start_ns, end_ns;       /* measured phase, CLOCK_MONOTONIC */
    uint64_t cpu_ns;                 /* thread CPU time during the measured phase */
    uint64_t n_send_stamped;         /* measured records with a t_send_ns */
    uint64_t send_lag_sum_ns;        /* sum and max of t_send_ns - t_start_ns over them */
    uint64_t send_lag_max_ns;
    double busy_fraction;            /* cpu_ns / (end - start) */
    int interrupted;                 /* the stop fd fired */
    int incomplete;                  /* the record store could not grow: the run stopped early */
    uint64_t n_lost;                 /* finished requests that could not be recorded (incomplete) */
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

/* The Poisson arrivals use the seeded xoshiro256** of core/rng.h
 * on a stream of their own; exposed for tests. */
void gp_client_rng_seed(struct gp_rng *r, uint64_t seed);
double gp_client_rng_exp(struct gp_rng *r, double mean);

#endif
