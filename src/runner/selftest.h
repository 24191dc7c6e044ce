/* runner/selftest.h — genperf's own timing error, measured against the
 * ground truth of `genperf serve --timing-log` (issue 30 item 5; the
 * command is cmd_selftest.c, this is its arithmetic).
 *
 * Requests are matched by the completion id every chunk carries, as
 * bench/timing_compare.py matches them, and the figures are that script's:
 * TTFT excess = (client's first content arrival - client's request start)
 * - (server's first content chunk handed to send() - request parsed), split
 * into a send side (request parsed - client start) and a receive side
 * (client arrival - server send); ITL error = |client gap - server gap| per
 * pair of consecutive content chunks; last-token excess as TTFT's for the
 * last content chunk. Percentiles are numpy's (linear), in microseconds.
 *
 * Owns nothing past a call: gp_selftest_compare reads both files and frees
 * what it read.
 */
#ifndef GP_RUNNER_SELFTEST_H
#define GP_RUNNER_SELFTEST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct gp_error;

struct gp_selftest_pct {
    size_t n;
    double median_us, p90_us, p99_us, max_us; /* NaN-free: all 0 when n == 0 */
};

struct gp_selftest_result {
    size_t requests;        /* in the profile export */
    size_t matched;         /* found in the timing log by id */
    size_t unmatched;
    struct gp_selftest_pct ttft_excess, send_side, recv_side, itl_error, last_excess;
};

/* export_path: perf_analyzer's profile_export.json (wall-clock ns);
 * log_path: serve's timing log (CLOCK_MONOTONIC ns); wall_minus_mono_ns:
 * this host's CLOCK_REALTIME - CLOCK_MONOTONIC (the client derives wall
 * times as wall0 + (mono - mono0), so it is one constant). 0 or -1 with err
 * naming the file that could not be read. */
int gp_selftest_compare(const char *export_path, const char *log_path, int64_t wall_minus_mono_ns,
                        struct gp_selftest_result *out, struct gp_error *err);

/* The result as an object (new reference). */
json_t *gp_selftest_json(const struct gp_selftest_result *r);

#endif
