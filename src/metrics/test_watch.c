/* metrics/test_watch.c — the watch between the metrics' parse workers and a
 * thread that follows them: the watcher never reads a request before its
 * worker published it, sees every request once, and on failure the
 * computing side does not go on (to free) while the watcher is reading. */
#include "core/test.h"
#include "metrics/metrics.h"
#include "metrics/watch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define N 10000

static void nap_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

struct follow {
    struct gp_metrics_reader rd;
    size_t seen, early;     /* requests read; of those, read before they were written */
    int begin_rc, next_rc, done_rc;
    long linger_us;         /* how long it reads each run (the failure test) */
    atomic_int back;        /* it came back from reading after the failure */
};

static void *follower(void *arg)
{
    struct follow *f = arg;
    const struct gp_req_metrics *reqs = NULL;
    size_t n = 0, until = 0;
    f->begin_rc = gp_metrics_watch_begin(&f->rd, &reqs, &n, NULL, NULL);
    for (size_t k = 0; k < n && !f->begin_rc; k++) {
        if (k >= until) {
            if (f->linger_us)
                nap_us(f->linger_us);
            atomic_store(&f->back, 1);
            if ((f->next_rc = gp_metrics_watch_next(&f->rd, k, &until)) != 0)
                return NULL;
            atomic_store(&f->back, 0);
        }
        f->early += reqs[k].flags != 7u;
        f->seen++;
    }
    if (!f->begin_rc)
        f->done_rc = gp_metrics_watch_done(&f->rd);
    gp_metrics_watch_leave(&f->rd);
    return NULL;
}

/* Two "workers" fill their halves in steps, publishing after each step. */
static void test_follows_every_request(void)
{
    static struct gp_req_metrics reqs[N];
    memset(reqs, 0, sizeof reqs);
    struct gp_metrics_watch w;
    gp_metrics_watch_init(&w);
    struct follow f = {.rd = {&w, 0}}, f2 = {.rd = {&w, 0}}; /* two readers, as the export has */
    pthread_t th, th2;
    CHECK_INT(pthread_create(&th, NULL, follower, &f), 0);
    CHECK_INT(pthread_create(&th2, NULL, follower, &f2), 0);
    nap_us(2000); /* the followers wait for the start */
    size_t k0[2] = {0, N / 2}, k1[2] = {N / 2, N};
    gp_metrics_watch_start(&w, reqs, N, NULL, 0, 2, k0, k1);
    for (size_t step = 0; step < N / 2; step += 500) {
        for (int t = 0; t < 2; t++) {
            for (size_t k = k0[t] + step; k < k0[t] + step + 500; k++)
                reqs[k].flags = 7u;
            gp_metrics_watch_progress(&w, t, k0[t] + step + 500);
        }
        nap_us(200);
    }
    gp_metrics_watch_end(&w, 1);
    pthread_join(th, NULL);
    pthread_join(th2, NULL);
    CHECK_INT(f2.seen, N);
    CHECK_INT(f2.early, 0);
    CHECK_INT(w.readers, 0);
    CHECK_INT(f.begin_rc, 0);
    CHECK_INT(f.next_rc, 0);
    CHECK_INT(f.done_rc, 0);
    CHECK_INT(f.seen, N);
    CHECK_INT(f.early, 0);
    gp_metrics_watch_destroy(&w);
}

/* A failure while the follower is reading: end() returns only once it came
 * back, and its call then says -1. */
static void test_failure_waits_for_the_reader(void)
{
    static struct gp_req_metrics reqs[N];
    memset(reqs, 0, sizeof reqs);
    struct gp_metrics_watch w;
    gp_metrics_watch_init(&w);
    struct follow f = {.rd = {&w, 0}, .linger_us = 50000};
    pthread_t th;
    size_t k0[1] = {0}, k1[1] = {N};
    gp_metrics_watch_start(&w, reqs, N, NULL, 0, 1, k0, k1);
    for (size_t k = 0; k < 100; k++)
        reqs[k].flags = 7u;
    gp_metrics_watch_progress(&w, 0, 100);
    CHECK_INT(pthread_create(&th, NULL, follower, &f), 0);
    nap_us(10000);                  /* it holds the first run, lingering */
    gp_metrics_watch_end(&w, 0);    /* failed */
    CHECK_INT(atomic_load(&f.back), 1); /* not before the reader came back */
    pthread_join(th, NULL);
    CHECK_INT(f.next_rc, -1);
    CHECK(f.seen <= 100);
    CHECK_INT(f.early, 0);
    gp_metrics_watch_destroy(&w);

    /* failed before it started: begin says so */
    gp_metrics_watch_init(&w);
    struct follow g = {.rd = {&w, 0}};
    CHECK_INT(pthread_create(&th, NULL, follower, &g), 0);
    gp_metrics_watch_end(&w, 0);
    pthread_join(th, NULL);
    CHECK_INT(g.begin_rc, -1);
    CHECK_INT(g.seen, 0);
    gp_metrics_watch_destroy(&w);
}

int main(void)
{
    GP_RUN(test_follows_every_request);
    GP_RUN(test_failure_waits_for_the_reader);
    return gp_test_summary();
}
