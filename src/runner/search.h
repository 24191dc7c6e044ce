/* runner/search.h — the decision logic of `genperf search`: which load to
 * try next, when to stop, and why. No I/O: cmd_search.c runs the cells
 * (genperf profile children), reads their summaries into struct
 * gp_search_cell and feeds them back here, so this file is tested in
 * virtual time by test_search.c.
 *
 * The search brackets by doubling from `start` until a cell misses the
 * target (or `max` is reached), then bisects between the highest value
 * that met it and the lowest that did not. Concurrency is an integer, so
 * bisection ends when the two are adjacent; a request rate ends when the
 * gap is at most `tolerance` × the failing rate. While still doubling, a
 * cell whose throughput rose less than `sat_gain` over the previous one
 * while its latency rose more than `sat_latency` means the server is
 * saturated: more load buys no throughput, so the search stops there.
 *
 * Owns: struct gp_search (plain value, caller-allocated, nothing to free).
 */
#ifndef GP_RUNNER_SEARCH_H
#define GP_RUNNER_SEARCH_H

#include <stddef.h>

#define GP_SEARCH_MAX_CELLS 64

struct gp_search_cell {
    double value;         /* the concurrency or request rate tried */
    long requests;        /* measured requests (ok + failed) */
    long good;            /* requests that met every SLO (all ok ones when no SLO) */
    double share;         /* good / requests, 0 when no requests */
    int meets;            /* share >= target */
    double req_thr;       /* requests/s */
    double tok_thr;       /* output tokens/s */
    double ttft_p50, ttft_p99, itl_p50, itl_p99, lat_avg, lat_p99; /* ms; < 0 = absent */
    char dir[2048];       /* the cell's artifact directory */
};

enum gp_search_stop {
    GP_SEARCH_RUNNING = 0,
    GP_SEARCH_CONVERGED,  /* bracket narrowed to the resolution */
    GP_SEARCH_NONE_MEETS, /* even the lowest load misses the target */
    GP_SEARCH_REACHED_MAX,/* the highest allowed load still meets it */
    GP_SEARCH_SATURATED,  /* throughput stopped rising while latency climbed */
    GP_SEARCH_CELL_CAP,   /* --max-cells */
    GP_SEARCH_TIME_CAP,   /* --max-time */
    GP_SEARCH_CELL_FAILED,/* a profile exited non-zero */
    GP_SEARCH_INTERRUPTED,
};

struct gp_search {
    /* settings (filled by the caller; gp_search_init sets the defaults) */
    int is_rate;          /* 0: concurrency (integers), 1: request rate */
    double start, max;    /* first value; highest value tried */
    double target;        /* required good share, 0 < target <= 1 */
    double tolerance;     /* request rate: stop when hi - lo <= tolerance * hi */
    double sat_gain;      /* saturated when throughput rises less than this ... */
    double sat_latency;   /* ... while average latency rises more than this */
    size_t max_cells;
    /* state */
    struct gp_search_cell cells[GP_SEARCH_MAX_CELLS];
    size_t n;
    double lo, hi;        /* highest value that met / lowest that missed; 0 = none yet */
    int bisecting;
    enum gp_search_stop stop;
    char why[512];        /* one line: why it stopped */
};

void gp_search_init(struct gp_search *s, int is_rate);

/* The next value to try, or 0 when the search is over (s->stop, s->why set). */
double gp_search_next(struct gp_search *s);

/* Records the measured cell for the value gp_search_next returned; sets
 * c->meets from c->share and the target. */
void gp_search_record(struct gp_search *s, const struct gp_search_cell *c);

/* Ends the search from outside (time cap, failed cell, interrupt). */
void gp_search_halt(struct gp_search *s, enum gp_search_stop why, const char *detail);

/* The limit found: the highest value that met the target; 0 when none. */
double gp_search_limit(const struct gp_search *s);

const char *gp_search_stop_name(enum gp_search_stop s); /* "converged", "saturated", ... */

/* A value as the search prints it and names cells: "6", "12.5". */
void gp_search_fmt(const struct gp_search *s, double v, char *out, size_t sz);

#endif
