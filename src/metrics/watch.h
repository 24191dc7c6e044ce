/* metrics/watch.h — following a gp_metrics_compute from another thread.
 *
 * Why: the raw profile export (1.3 GB for a million streamed requests) needs
 * of the metrics only which requests succeeded, and each request's verdict is
 * final as soon as its parse worker has passed it. With a watch the export
 * writes request k while the workers are still parsing later ones, so the
 * disk and the parsing overlap instead of running one after the other.
 *
 * The caller owns the watch (init before gp_metrics_compute gets it through
 * gp_metrics_opts.watch, destroy after the watching threads are joined). The
 * computing side publishes; each watching thread asks through its own
 * struct gp_metrics_reader. Between two of its calls a reader may read
 * reqs[k .. until) (every field the parse writes except err_off, which is
 * rebased at the end) and their content times (content_ns[ct_first ..]);
 * after gp_metrics_watch_done returned 0 it may read all of the result. If
 * the computation fails, it waits for every reader to come back to a call
 * (which then returns -1) before freeing anything.
 */
#ifndef GP_METRICS_WATCH_H
#define GP_METRICS_WATCH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define GP_METRICS_MAX_THREADS 8

struct gp_req_metrics;

struct gp_metrics_watch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;                 /* 0 not yet, 1 parsing, 2 done, -1 failed */
    int readers;               /* readers reading between two calls */
    const struct gp_req_metrics *reqs;
    size_t n;                  /* measured requests (reqs has n) */
    const uint64_t *content_ns; /* the result's, n_content_ns entries */
    size_t n_content_ns;
    int nw;                    /* parse workers; worker t owns [k0[t], k1[t]) */
    size_t k0[GP_METRICS_MAX_THREADS], k1[GP_METRICS_MAX_THREADS];
    size_t done[GP_METRICS_MAX_THREADS]; /* [k0[t], done[t]) is final */
};

void gp_metrics_watch_init(struct gp_metrics_watch *w);
void gp_metrics_watch_destroy(struct gp_metrics_watch *w);

/* ---- a watching thread ---- */
struct gp_metrics_reader {
    struct gp_metrics_watch *w;
    int holding;               /* counted in w->readers */
};
/* Blocks until the computation has started: *reqs, *n (and the content
 * times, when ct is not NULL) are then set. 0, or -1 when it failed. */
int gp_metrics_watch_begin(struct gp_metrics_reader *rd, const struct gp_req_metrics **reqs, size_t *n,
                           const uint64_t **ct, size_t *n_ct);
/* Blocks until reqs[k] is final (k < n); *until gets the end of the run of
 * final requests from k on. 0, or -1 when the computation failed. */
int gp_metrics_watch_next(struct gp_metrics_reader *rd, size_t k, size_t *until);
/* Blocks until the whole result is final. 0, or -1 when it failed. */
int gp_metrics_watch_done(struct gp_metrics_reader *rd);
/* The reader stops reading (at its end, or when it gives up early). */
void gp_metrics_watch_leave(struct gp_metrics_reader *rd);

/* ---- the computing side (metrics.c) ---- */
void gp_metrics_watch_start(struct gp_metrics_watch *w, const struct gp_req_metrics *reqs, size_t n,
                            const uint64_t *content_ns, size_t n_content_ns, int nw, const size_t *k0,
                            const size_t *k1);
void gp_metrics_watch_progress(struct gp_metrics_watch *w, int t, size_t done);
/* ok: the result is complete; else failed (returns once no reader is reading). */
void gp_metrics_watch_end(struct gp_metrics_watch *w, int ok);

#endif
