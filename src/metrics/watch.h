/* metrics/watch.h — following a gp_metrics_compute from another thread.
 *
 * Why: the raw profile export (1.3 GB for a million streamed requests) needs
 * of the metrics only which requests succeeded, and each request's verdict is
 * final as soon as its parse worker has passed it. With a watch the export
 * writes request k while the workers are still parsing later ones, so the
 * disk and the parsing overlap instead of running one after the other.
 *
 * The caller owns the watch (init before gp_metrics_compute gets it through
 * gp_metrics_opts.watch, destroy after the watching thread is joined). The
 * computing side publishes; the watching side asks. Between two of its calls
 * the watching thread may read reqs[k .. until) (every field the parse
 * writes except err_off and ct_first, which are rebased at the end); after
 * gp_metrics_watch_done returned 0 it may read all of the result. If the
 * computation fails, it waits for the watcher to come back to a call (which
 * then returns -1) before freeing anything.
 */
#ifndef GP_METRICS_WATCH_H
#define GP_METRICS_WATCH_H

#include <pthread.h>
#include <stddef.h>

#define GP_METRICS_MAX_THREADS 8

struct gp_req_metrics;

struct gp_metrics_watch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;                 /* 0 not yet, 1 parsing, 2 done, -1 failed */
    int busy;                  /* the watcher is reading between two calls */
    const struct gp_req_metrics *reqs;
    size_t n;                  /* measured requests (reqs has n) */
    int nw;                    /* parse workers; worker t owns [k0[t], k1[t]) */
    size_t k0[GP_METRICS_MAX_THREADS], k1[GP_METRICS_MAX_THREADS];
    size_t done[GP_METRICS_MAX_THREADS]; /* [k0[t], done[t]) is final */
};

void gp_metrics_watch_init(struct gp_metrics_watch *w);
void gp_metrics_watch_destroy(struct gp_metrics_watch *w);

/* ---- the watching thread ---- */
/* Blocks until the computation has started: *reqs and *n are then set.
 * 0, or -1 when it failed. */
int gp_metrics_watch_begin(struct gp_metrics_watch *w, const struct gp_req_metrics **reqs, size_t *n);
/* Blocks until reqs[k] is final (k < n); *until gets the end of the run of
 * final requests from k on. 0, or -1 when the computation failed. */
int gp_metrics_watch_next(struct gp_metrics_watch *w, size_t k, size_t *until);
/* Blocks until the whole result is final. 0, or -1 when it failed. */
int gp_metrics_watch_done(struct gp_metrics_watch *w);
/* The watcher stops reading (it gave up early, e.g. on a write error). */
void gp_metrics_watch_leave(struct gp_metrics_watch *w);

/* ---- the computing side (metrics.c) ---- */
void gp_metrics_watch_start(struct gp_metrics_watch *w, const struct gp_req_metrics *reqs, size_t n, int nw,
                            const size_t *k0, const size_t *k1);
void gp_metrics_watch_progress(struct gp_metrics_watch *w, int t, size_t done);
/* ok: the result is complete; else failed (returns once the watcher is not reading). */
void gp_metrics_watch_end(struct gp_metrics_watch *w, int ok);

#endif
