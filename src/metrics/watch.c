/* metrics/watch.c — see watch.h. One mutex and one condition variable: the
 * workers publish every few thousand requests, so neither side contends. */
#include "metrics/watch.h"

#include <assert.h>
#include <string.h>

void gp_metrics_watch_init(struct gp_metrics_watch *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
}

void gp_metrics_watch_destroy(struct gp_metrics_watch *w)
{
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
}

/* with the lock held */
static void release(struct gp_metrics_reader *rd)
{
    if (rd->holding) {
        assert(rd->w->readers > 0); /* counted once, by hold */
        rd->w->readers--;
        rd->holding = 0;
        pthread_cond_broadcast(&rd->w->cv); /* a failing computation may be waiting for that */
    }
}

static void hold(struct gp_metrics_reader *rd)
{
    rd->w->readers++;
    rd->holding = 1;
}

int gp_metrics_watch_begin(struct gp_metrics_reader *rd, const struct gp_req_metrics **reqs, size_t *n,
                           const uint64_t **ct, size_t *n_ct)
{
    struct gp_metrics_watch *w = rd->w;
    pthread_mutex_lock(&w->mu);
    release(rd);
    while (w->state == 0)
        pthread_cond_wait(&w->cv, &w->mu);
    int ok = w->state > 0;
    if (ok)
        hold(rd);
    *reqs = w->reqs;
    *n = ok ? w->n : 0;
    if (ct) {
        *ct = w->content_ns;
        *n_ct = ok ? w->n_content_ns : 0;
    }
    pthread_mutex_unlock(&w->mu);
    return ok ? 0 : -1;
}

/* the worker that owns k (called with the lock held, state >= 1) */
static int owner(const struct gp_metrics_watch *w, size_t k)
{
    for (int t = 0; t < w->nw; t++)
        if (k >= w->k0[t] && k < w->k1[t])
            return t;
    return -1;
}

int gp_metrics_watch_next(struct gp_metrics_reader *rd, size_t k, size_t *until)
{
    struct gp_metrics_watch *w = rd->w;
    pthread_mutex_lock(&w->mu);
    release(rd);
    int t = owner(w, k), rc = -1;
    for (;;) {
        if (w->state < 0 || t < 0)
            break;
        if (w->state == 2 || w->done[t] > k) {
            *until = w->state == 2 ? w->n : w->done[t];
            hold(rd);
            rc = 0;
            break;
        }
        pthread_cond_wait(&w->cv, &w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

int gp_metrics_watch_done(struct gp_metrics_reader *rd)
{
    struct gp_metrics_watch *w = rd->w;
    pthread_mutex_lock(&w->mu);
    release(rd);
    while (w->state == 0 || w->state == 1)
        pthread_cond_wait(&w->cv, &w->mu);
    int ok = w->state == 2;
    if (ok)
        hold(rd);
    pthread_mutex_unlock(&w->mu);
    return ok ? 0 : -1;
}

void gp_metrics_watch_leave(struct gp_metrics_reader *rd)
{
    pthread_mutex_lock(&rd->w->mu);
    release(rd);
    pthread_mutex_unlock(&rd->w->mu);
}

void gp_metrics_watch_start(struct gp_metrics_watch *w, const struct gp_req_metrics *reqs, size_t n,
                            const uint64_t *content_ns, size_t n_content_ns, int nw, const size_t *k0,
                            const size_t *k1)
{
    pthread_mutex_lock(&w->mu);
    w->reqs = reqs;
    w->n = n;
    w->content_ns = content_ns;
    w->n_content_ns = n_content_ns;
    w->nw = nw < GP_METRICS_MAX_THREADS ? nw : GP_METRICS_MAX_THREADS;
    for (int t = 0; t < w->nw; t++) {
        w->k0[t] = k0[t];
        w->k1[t] = k1[t];
        w->done[t] = k0[t];
    }
    w->state = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void gp_metrics_watch_progress(struct gp_metrics_watch *w, int t, size_t done)
{
    pthread_mutex_lock(&w->mu);
    /* a worker publishes only inside the range it owns (watch.h) */
    assert(t < 0 || t >= w->nw || done <= w->k1[t]);
    if (t >= 0 && t < w->nw && done > w->done[t])
        w->done[t] = done;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void gp_metrics_watch_end(struct gp_metrics_watch *w, int ok)
{
    pthread_mutex_lock(&w->mu);
    w->state = ok ? 2 : -1;
    pthread_cond_broadcast(&w->cv);
    while (!ok && w->readers)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}
