/* sched/sched.h — the load shape as data: when each request is due.
 *
 * Owns: arrival lists (int64_t ns offsets from the run's start), struct
 * gp_trace (rows of a payload:/Mooncake trace, their hash ids and session
 * names), struct gp_session_plan (turns and delays of synthetic sessions),
 * struct gp_load_slice (the run's load as one value) and struct
 * gp_sched_lag (schedule lateness statistics). Everything here is built
 * before timing starts and is immutable afterwards; the client executes it
 * and never learns which shape made it.
 *
 * Who frees what:
 *   - gp_sched_arrivals: *out is malloc'ed, the caller free()s it.
 *   - gp_trace_read / gp_trace_parse: *out is freed with gp_trace_free (one
 *     call frees rows, hash ids and session names).
 *   - gp_session_plan_build: *out is freed with gp_session_plan_free.
 *   - gp_sched_lag_compute allocates nothing the caller keeps.
 *
 * Determinism: every random draw comes from dataset/rng.h streams keyed by
 * (seed, purpose, index), so draw i does not depend on N, on how many workers
 * share the list, or on any other flag. Not thread-safe per object; distinct
 * objects may be used from different threads.
 *
 * Errors: gp_error with one line naming the input (flag or file:line) and the
 * fix; nothing here prints or exits.
 */
#ifndef GP_SCHED_SCHED_H
#define GP_SCHED_SCHED_H

#include <stddef.h>
#include <stdint.h>

struct gp_buf;
struct gp_error;
struct gp_promptgen;

/* RNG stream purposes used here (dataset/rng.h owns enum gp_rng_stream; these
 * values are chosen not to collide with it and are part of the on-disk
 * contract: changing one changes every generated schedule). To move into
 * enum gp_rng_stream when rng.h lands in core/. */
#define GP_SCHED_RNG_ARRIVAL 101u /* inter-arrival gap i (index = i) */
#define GP_SCHED_RNG_TURNS 102u   /* number of turns of session s */
#define GP_SCHED_RNG_DELAY 103u   /* turn delays of session s */
#define GP_SCHED_RNG_SESSION_ID 104u /* the id of session s */

/* ---- arrivals: open-loop request times -------------------------------- */

enum gp_sched_mode {
    GP_SCHED_CONSTANT = 0, /* gaps exactly 1/rate */
    GP_SCHED_POISSON = 1,  /* exponential gaps, mean 1/rate */
    GP_SCHED_GAMMA = 2,    /* gamma gaps: shape = burstiness, scale = 1/(rate*burstiness) (vLLM) */
};

struct gp_sched_load {
    enum gp_sched_mode mode;
    double rate;            /* target requests/s, > 0 */
    double burstiness;      /* GAMMA only: > 0; 1 = Poisson, < 1 burstier, > 1 smoother */
    double ramp_s;          /* > 0: the rate grows linearly from ramp_start_rate to rate over ramp_s seconds */
    double ramp_start_rate; /* requests/s at t = 0 of the ramp (>= 0, < rate) */
    int normalize;          /* no ramp only: rescale gaps so N gaps sum to exactly N/rate (vLLM's
                             * fix for the 1-2% spread of the achieved rate between seeds) */
    uint64_t seed;          /* --random-seed */
};

/* Checks a load shape; the message names the flag (--request-rate, --burstiness,
 * --ramp-up-duration). */
int gp_sched_load_check(const struct gp_sched_load *l, struct gp_error *err);

/* Scheduled send times of requests 0..n-1 as ns offsets from the start,
 * non-decreasing, request 0 due at 0. Worker w of nworkers gets the requests
 * i with i % nworkers == w (round robin, as perf_analyzer deals a schedule to
 * its threads), in order: *nout = how many. The times are the same for a
 * given seed however the list is split (nworkers = 1, worker = 0: all of it).
 * Method: draw gap i in "operational time" (constant 1, Exp(1) or
 * Gamma(b, 1/b)), sum, and map through the inverse of the expected-count
 * curve Λ(t) = ∫ rate(t) dt, which for a ramp is a quadratic then a line. */
int gp_sched_arrivals(const struct gp_sched_load *l, size_t n, size_t nworkers, size_t worker, int64_t **out,
                      size_t *nout, struct gp_error *err);

/* The same times one at a time, without allocating (for runs bounded by a
 * duration, where n is not known; --request-rate on the client's hot path).
 * A plain value: init, then each next() returns this worker's next due time
 * (ns from the start). Identical to gp_sched_arrivals without normalize. */
struct gp_sched_iter {
    struct gp_sched_load l;
    uint64_t i;       /* global index of the next arrival this worker returns */
    uint64_t stride;  /* nworkers */
    double u;         /* operational time of arrival i */
    double scale;     /* normalize factor (1 when streaming) */
};
/* Checks l like gp_sched_load_check (and the worker index). */
int gp_sched_iter_init(struct gp_sched_iter *it, const struct gp_sched_load *l, size_t nworkers, size_t worker,
                       struct gp_error *err);
int64_t gp_sched_iter_next(struct gp_sched_iter *it);

/* Concurrency ramp: the number of slots open at time t_ns (offset from the
 * start) when concurrency grows linearly from 1 to target over ramp_s
 * seconds: 1 + floor((target - 1) * t / ramp), capped at target; target when
 * ramp_s <= 0 or t >= ramp. */
long gp_sched_ramp_concurrency(long target, double ramp_s, int64_t t_ns);
/* The first time (ns) at which slot k (1-based, 1..target) is open; the
 * client can arm one timer per slot instead of polling. 0 for k <= 1. */
int64_t gp_sched_ramp_slot_time(long target, double ramp_s, long k);

/* ---- the load plan: what one run sends, as one value ------------------- */

/* Built once from the flags (profile/'s stage_run), split over ranks x
 * workers by the client with dist/plan.c's gp_dist_split_load (each event
 * loop's copy carries its own share_index and cap), carried out by the
 * loop, which never looks at a flag. The arrival process chooses the shape:
 * arrivals.rate > 0 is an open loop (concurrency then only serves a plan's
 * warmup); 0 is a closed loop of `concurrency` request slots. A plain
 * value: it owns nothing. */
struct gp_load_slice {
    long concurrency;              /* closed loop: the job's request slots, >= 1 (gp_dist_split_load checks) */
    struct gp_sched_load arrivals; /* rate > 0: the open loop's arrivals (constant, Poisson, gamma, a rate
                                    * ramp); ramp_s > 0 also ramps a closed loop: slot k opens at
                                    * gp_sched_ramp_slot_time(concurrency, ramp_s, k); either way the
                                    * measured phase's requests started in the ramp are left out */
    long max_inflight;             /* open-loop cap (rate or a client plan), 0 = none: the job's before the
                                    * split, the loop's own after it */
    long request_count;            /* measured requests (ignored with duration_ns or a client plan) */
    long warmup_count;             /* requests sent first with the same shape, then left out */
    uint64_t duration_ns;          /* > 0: a time-bounded measured phase */
    int share_index, share_count;  /* this loop of the job's ranks x workers; count 0 or 1 = the whole load */
};

static inline int gp_load_is_open(const struct gp_load_slice *l)
{
    return l->arrivals.rate > 0;
}

/* ---- traces: --input-file payload:FILE and Mooncake JSONL --------------- */

/* What a row's "delay" means. GenAI-Perf/perf_analyzer: the wait AFTER this
 * turn's response before the session's next turn (the last turn's is unused).
 * AIPerf's mooncake loader: the wait BEFORE this turn. Rows store it as
 * before-semantics either way (delay_ns of turn k = wait after turn k-1). */
enum gp_trace_delay { GP_TRACE_DELAY_AFTER = 0, GP_TRACE_DELAY_BEFORE = 1 };

struct gp_trace_opts {
    double speedup;             /* --trace-speedup: timestamps divided by it; 0 = 1 */
    double delay_ratio;         /* --session-delay-ratio: delay = (int)(delay * ratio) ms; 0 = 1 */
    int require_timestamp;      /* --fixed-schedule: rows that start a session (or have none) need one */
    int auto_offset;            /* subtract the first timestamp (AIPerf --fixed-schedule-auto-offset);
                                 * 0 = perf_analyzer: a timestamp is ms after the run's start */
    enum gp_trace_delay delay_kind;
};

struct gp_trace_row {
    int64_t t_sched_ns; /* due time (ns from start) when the row has a timestamp, else -1 */
    int64_t delay_ns;   /* a later turn: send no earlier than this after the previous turn ended */
    int32_t isl;        /* "input_length"; -1: the row carries "text"/"text_input"; 0: neither, so
                         * GenAI-Perf's synthetic mean (--synthetic-input-tokens-mean) applies */
    int32_t osl;        /* "output_length" (sent as max_tokens); -1 when absent */
    uint32_t nhash;     /* hash ids: trace->hash[hash_off .. hash_off + nhash) */
    size_t hash_off;
    int32_t session;    /* index into trace->session_ids; -1 = a single request */
    int32_t turn;       /* 0-based turn within its session (file order) */
    int32_t next;       /* row index of the session's next turn, -1 = last (or no session) */
    long line;          /* 1-based line of the file, for messages */
};

struct gp_trace {
    struct gp_trace_row *rows;
    size_t n;
    int64_t *hash;       /* all rows' hash ids, concatenated */
    size_t nhash;
    char **session_ids;  /* session names as written ("abc", or an integer's digits) */
    size_t nsessions;
    int32_t *session_first; /* row index of each session's first turn */
    double first_ts_ms;  /* the first timestamp in the file (ms, as written), -1 when none */
};

/* Parses JSONL bytes (name is used in messages only). */
int gp_trace_parse(const char *name, const char *data, size_t len, const struct gp_trace_opts *o,
                   struct gp_trace **out, struct gp_error *err);
/* Reads a file; a leading "payload:" is skipped. */
int gp_trace_read(const char *path, const struct gp_trace_opts *o, struct gp_trace **out, struct gp_error *err);
void gp_trace_free(struct gp_trace *t);


/* ---- sessions: --num-sessions and friends (GenAI-Perf 0.0.16) ---------- */

struct gp_session_opts {
    long num_sessions;        /* --num-sessions, default 0 (no sessions) */
    long session_concurrency; /* --session-concurrency, 0 = unset */
    long turns_mean;          /* --session-turns-mean, default 1 */
    long turns_stddev;        /* --session-turns-stddev, default 0 */
    long delay_mean_ms;       /* --session-turn-delay-mean, default 0 */
    long delay_stddev_ms;     /* --session-turn-delay-stddev, default 0 */
    double delay_ratio;       /* --session-delay-ratio, default 1.0 (payload files only) */
    uint64_t seed;            /* --random-seed */
};

void gp_session_opts_default(struct gp_session_opts *o);
/* Range checks genperf adds (GenAI-Perf only parses the numbers; see
 * docs/dataset.md "Sessions" for what it does with each bad value). */
int gp_session_opts_check(const struct gp_session_opts *o, struct gp_error *err);

struct gp_session_plan {
    size_t nsessions;
    size_t nturns;      /* total over all sessions */
    size_t *first;      /* first[s]: index of session s's turn 0 in the flat arrays */
    uint32_t *turns;    /* turns[s] >= 1 */
    int64_t *delay_ns;  /* delay_ns[first[s] + k]: wait after turn k-1 ended before turn k (0 for k = 0) */
};

/* turns = round(max(1, N(mean, sd))), delay = round(max(0, N(mean, sd))) ms per
 * turn after the first, as GenAI-Perf's synthetic sessions draw them (with
 * genperf's seeded streams instead of Python's random). */
int gp_session_plan_build(const struct gp_session_opts *o, struct gp_session_plan **out, struct gp_error *err);
void gp_session_plan_free(struct gp_session_plan *p);

/* Session s's id in inputs.json / profile_export.json: UUID version 4 text
 * (GenAI-Perf writes str(uuid.uuid4())), drawn from (seed, 104, s) so that
 * runs are reproducible. out gets 36 characters and a NUL. */
void gp_session_id(uint64_t seed, size_t s, char out[37]);

/* ---- schedule lateness ------------------------------------------------- */

struct gp_sched_lag {
    size_t n;           /* requests that had a due time (t_sched >= 0) */
    double p50_ms, p99_ms, max_ms, avg_ms;
    size_t late_1ms;    /* sent more than 1 ms after due */
    size_t late_warn;   /* sent more than GP_SCHED_LATE_WARN_MS after due */
    size_t early;       /* sent before due (a client bug; counted, lag taken as 0) */
};

/* The lateness the console calls a schedule not kept. 1 ms (late_1ms, kept
 * in *_genperf.json) is the host's noise: on a busy host timer slack and a
 * core shared with the server make a few ms routine, which shifts no arrival
 * enough to change the load or the measured latency. 10 ms is a whole
 * inter-arrival gap at 100 requests/s. */
#define GP_SCHED_LATE_WARN_MS 10.0

/* lag_i = t_start_ns[i] - t_sched_ns[i] over entries with t_sched_ns[i] >= 0
 * (closed-loop requests carry -1 and are skipped); percentiles as numpy's
 * linear method (metrics' gp_percentile_sorted). */
int gp_sched_lag_compute(const int64_t *t_sched_ns, const int64_t *t_start_ns, size_t n, struct gp_sched_lag *out,
                         struct gp_error *err);

#endif
