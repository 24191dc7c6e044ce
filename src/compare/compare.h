/* compare/compare.h — `genperf compare BASE NEW`: two benchmark results, per
 * metric the change, its 95% interval and a verdict, and the CI gate
 * (--fail-on). docs/compare.md is the user's side of this.
 *
 * Owns: struct gp_cmp_side (one side's runs read from artifact directories:
 * run-level metric values and the pooled per-request samples), struct
 * gp_cmp_result (the rows), the gate list. Sides are freed with
 * gp_cmp_side_free; results and gates are plain values.
 *
 * Evidence: with at least 2 runs on each side (repeats) the rows compare
 * run-level values with Welch's t interval; otherwise a percentile bootstrap
 * over requests (latencies, failure rate) or Welch over 10 time slices of
 * each run (throughputs, goodput), which the output calls weaker evidence.
 * A change is real when its interval excludes 0, it is at least --min-change
 * (relative metrics) and neither side was client-limited (the "fidelity"
 * block of <stem>_genperf.json).
 * May include core/, store/ (the results store) and report/ (its artifact readers).
 */
#ifndef GP_COMPARE_COMPARE_H
#define GP_COMPARE_COMPARE_H

#include "compare/cmpstats.h"
#include "report/run_ident.h"

#include <stddef.h>
#include <stdint.h>

struct gp_error;

enum gp_cmp_metric {
    GP_CMP_TTFT_AVG, GP_CMP_TTFT_P50, GP_CMP_TTFT_P99,
    GP_CMP_ITL_AVG, GP_CMP_ITL_P50, GP_CMP_ITL_P99,
    GP_CMP_LAT_AVG, GP_CMP_LAT_P50, GP_CMP_LAT_P99,
    GP_CMP_OUT_TPUT, GP_CMP_REQ_TPUT, GP_CMP_GOODPUT, GP_CMP_FAIL_RATE,
    GP_CMP_NMETRICS
};

/* What a metric is: its gate/JSON key ("ttft_p99"), the label shown, its unit,
 * whether lower is better, and whether its change is absolute (failure rate:
 * percentage points) rather than relative. */
struct gp_cmp_metric_def {
    const char *key, *label, *unit;
    int lower_better, absolute;
};
extern const struct gp_cmp_metric_def gp_cmp_metrics[GP_CMP_NMETRICS];
/* The metric named key, or -1. */
int gp_cmp_metric_find(const char *key);

/* A growable array of doubles (the per-request samples). */
struct gp_cmp_vec {
    double *v;
    size_t n, cap;
};

/* --min-change defaults: with repeats the interval already holds the
 * run-to-run spread; with one run each it does not, and two runs of one
 * configuration against genperf serve differed by up to 1.9% in TTFT and
 * latency averages and 4.4% in latency p99 with intervals that excluded 0. */
#define GP_CMP_MIN_CHANGE_RUNS 0.01
#define GP_CMP_MIN_CHANGE_BOOTSTRAP 0.05

#define GP_CMP_SLICES 10  /* time slices per run for the throughputs' batch means */

/* Fewer measured requests than this in a run (or per-request samples of a
 * metric on a side, one run each) and the comparison cannot judge it: Welch's
 * interval needs 2 values a side, and the bootstrap of 1 request has no spread
 * (every resample is that request, so its interval is a point that would call
 * any change real). */
#define GP_CMP_MIN_REQUESTS 2

struct gp_cmp_run {
    char dir[1024];
    int has[GP_CMP_NMETRICS];
    double value[GP_CMP_NMETRICS];
    int n_req_known;               /* requests.measured of _genperf.json, or GenAI-Perf's request_count */
    double n_req;
};

struct gp_cmp_side {
    char path[1024];
    size_t n_runs;
    struct gp_cmp_run *runs;
    int client_limited;            /* some run's fidelity.client_limited is true */
    char limited_why[512];         /* its verdict / reasons, for the output */
    int per_request;               /* 1 = records.jsonl or profile_export.json was read */
    /* per-request samples pooled over the runs (ms; fail: 0/1 per measured request) */
    struct gp_cmp_vec ttft, itl, lat, fail;
    /* per time slice of each run: output tokens/s, requests/s, good requests/s */
    struct gp_cmp_vec s_out, s_req, s_good;
    int has_good;                  /* goodput SLOs were given and every one can be judged per request */
    int has_ident;                 /* ident was read (from the first run's input_config) */
    struct gp_run_ident ident;     /* what the runs were asked to measure */
};

/* Reads one side from artifact directories: path is a run directory (holding *_genai_perf.json) or a
 * directory whose subdirectories (to depth 3) are runs of the same load (the
 * repeats). Returns 0, or a negative gp_errcode with err naming the path. */
int gp_cmp_side_load(const char *path, struct gp_cmp_side **out, struct gp_error *err);
void gp_cmp_side_free(struct gp_cmp_side *s);
/* Reads one side from the results store: spec is a job id (digits) or a
 * label (every job ingested under it: the repeats). -GP_ENOENT when the store
 * has none. */
struct gp_db;
int gp_cmp_side_load_db(struct gp_db *db, const char *spec, struct gp_cmp_side **out, struct gp_error *err);

enum gp_cmp_verdict {
    GP_CMP_NA,         /* the metric is missing on a side */
    GP_CMP_NO_CHANGE,  /* the interval holds 0 (or no verdict is allowed) */
    GP_CMP_BETTER,
    GP_CMP_WORSE,
};

enum gp_cmp_method { GP_CMP_RUNS, GP_CMP_BOOTSTRAP };

struct gp_cmp_row {
    int metric;                    /* enum gp_cmp_metric */
    enum gp_cmp_verdict verdict;
    int real;                      /* the interval excludes 0, the change is not negligible and
                                      neither side is client-limited */
    int excludes_zero;             /* the interval alone excludes 0 */
    int negligible;                /* it does, but a relative change is under --min-change */
    int has_base, has_new;         /* every run of the side has the metric */
    double base, new_;             /* means over runs (or the one run's value) */
    struct gp_cs_interval change;  /* relative (0.05 = +5%), or absolute for failure_rate */
    const char *how;               /* "runs", "requests", "time slices" */
    int too_few;                   /* not judged: a side has fewer than GP_CMP_MIN_REQUESTS requests */
};

struct gp_cmp_result {
    enum gp_cmp_method method;
    size_t n_base, n_new;          /* runs on each side */
    int limited;                   /* 1 base, 2 new, 3 both were client-limited */
    double min_change;             /* the --min-change applied */
    struct gp_cmp_row rows[GP_CMP_NMETRICS];
    size_t n_rows;
    /* set by the caller before writing: the sides' differences (gp_run_ident_diff),
     * compared anyway under --allow-different; "" when alike */
    char unlike[1024];
};

struct gp_cmp_opts {
    int iters;                     /* bootstrap resamples (2000) */
    uint64_t seed;                 /* bootstrap seed (0) */
    /* A relative change smaller than this is no detectable change even when
     * its interval excludes 0: a run differs from its repeat by about that
     * much, which one run each cannot measure (docs/compare.md). Negative:
     * the default of the method, GP_CMP_MIN_CHANGE_RUNS or _BOOTSTRAP. */
    double min_change;
};

/* Compares base with new. Returns 0 or a negative gp_errcode (out of memory). */
int gp_cmp_compute(const struct gp_cmp_side *base, const struct gp_cmp_side *new_, const struct gp_cmp_opts *o,
                   struct gp_cmp_result *out, struct gp_error *err);

/* --fail-on "ttft_p99:+5%,output_token_throughput:-3%": fail when a metric's
 * change is at or past the threshold in the threshold's direction and real. */
#define GP_CMP_MAX_GATES 16
struct gp_cmp_gate {
    int metric;
    double threshold;              /* signed fraction (+0.05); failure_rate: points as a fraction */
    const char *text;              /* the term as given (points into a copy the caller keeps) */
};
/* Parses spec (modified: split at commas) into g[0..*n). -GP_EINVAL with a
 * message naming the bad term and the fix. */
int gp_cmp_gate_parse(char *spec, struct gp_cmp_gate *g, size_t *n, struct gp_error *err);

enum gp_cmp_gate_state {
    GP_GATE_PASS,                  /* within the threshold, or not real */
    GP_GATE_FAIL,                  /* past the threshold and real */
    GP_GATE_LIMITED,               /* past the threshold, interval excludes 0, but a side was client-limited */
    GP_GATE_MISSING,               /* the metric is missing on a side */
    GP_GATE_TOO_FEW,               /* a side has too few requests to judge (GP_CMP_MIN_REQUESTS) */
};
enum gp_cmp_gate_state gp_cmp_gate_eval(const struct gp_cmp_gate *g, const struct gp_cmp_result *r);

#endif
