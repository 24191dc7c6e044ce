/* client/client_workers.c — `--workers N`: N copies of the event loop on N
 * threads, then one merged record store.
 *
 * Why copies and not one loop fed by several threads: every timestamp stays
 * on the thread that reads the socket (client_loop.c), and no lock sits on
 * the hot path. Each worker owns its multi handles, its slots and its record
 * store; the only shared things are read-only (options, request bodies) and
 * the stop relay below. The load split is dist/plan.c's gp_dist_split_load
 * (here: each loop's place and cap; client_sched.c: each phase's request
 * slots): the union of the workers' requests is exactly a one-thread run's.
 *
 * Stop: the caller's stop fd (a signalfd) can be consumed by one reader
 * only, so this thread watches it and writes one byte per signal into each
 * worker's own pipe; a worker's loop treats its pipe exactly as the one-thread
 * loop treats the signalfd (first byte: stop sending, finish in-flight
 * requests within the grace; second: hard stop).
 */
#include "client/client.h"
#include "client/cl_loop.h"
#include "client/record.h"
#include "core/clock.h"
#include "core/error.h"
#include "dist/dist.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* The measured phase's common start: every worker arrives after its warmup,
 * the last one in picks a time just ahead, all start their schedule there.
 * With the caller's own measure_start (an MPI job: every rank must agree on
 * the start), the last one in wakes the calling thread instead (ready_fd),
 * which asks the caller for the time: only that thread may talk MPI. */
struct start_sync {
    pthread_mutex_t m;
    pthread_cond_t c;
    int expected;            /* workers that will arrive (lowered when one could not start) */
    int arrived;
    uint64_t t0;
    uint64_t (*outer)(void *ctx); /* the caller's measure_start, NULL = none */
    void *outer_ctx;
    int ready_fd;            /* eventfd: every worker arrived (only with outer) */
    int asked;               /* ready_fd written */
    int outer_called;        /* calling thread only */
};

/* Call with s->m held: the last one in picks the start, 1 ms ahead, when
 * every loop is back in its poll (or, with outer, wakes the calling thread). */
static void sync_release_if_all(struct start_sync *s)
{
    if (s->arrived < s->expected || s->t0)
        return;
    if (!s->outer) {
        s->t0 = gp_now_ns() + 1000000ull;
        pthread_cond_broadcast(&s->c);
    } else if (!s->asked) {
        uint64_t one = 1;
        s->asked = 1;
        if (write(s->ready_fd, &one, sizeof one) < 0) {
            /* an eventfd write of 1 cannot fail; the caller's join path asks anyway */
        }
    }
}

/* The calling thread: asks the caller for the start (exactly once) and
 * releases the workers waiting for it. */
static void sync_ask_outer(struct start_sync *s)
{
    if (!s->outer || s->outer_called)
        return;
    s->outer_called = 1;
    uint64_t t0 = s->outer(s->outer_ctx);
    pthread_mutex_lock(&s->m);
    s->t0 = t0 ? t0 : gp_now_ns();
    pthread_cond_broadcast(&s->c);
    pthread_mutex_unlock(&s->m);
}

struct worker {
    struct start_sync *sync;
    int synced;
    struct gp_client_opts o;
    struct gp_record_store st;
    struct gp_client_stats stats;
    struct gp_error err;
    int rc;
    int stop_pipe[2];
    int done_fd;             /* eventfd shared by all workers: +1 when one ends */
    pthread_t th;
    int started;
};

static uint64_t worker_sync(void *ctx)
{
    struct worker *w = ctx;
    struct start_sync *s = w->sync;
    w->synced = 1;
    pthread_mutex_lock(&s->m);
    s->arrived++;
    sync_release_if_all(s);
    while (!s->t0)
        pthread_cond_wait(&s->c, &s->m);
    uint64_t t0 = s->t0;
    pthread_mutex_unlock(&s->m);
    return t0;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->rc = gp_client_run(&w->o, &w->st, &w->stats, &w->err);
    /* a loop that failed before its warmup ended must not hold the others */
    if (!w->synced)
        worker_sync(w);
    uint64_t one = 1;
    if (write(w->done_fd, &one, sizeof one) < 0) {
        /* an eventfd write of 1 cannot fail short of a bug; the join still happens */
    }
    return NULL;
}

/* Waits for every worker, relaying each signal on stop_fd to all of them
 * and asking the caller for the measured phase's start when they are ready. */
static void watch_workers(const struct gp_client_opts *o, struct gp_client_progress *pub, struct worker *ws, int n,
                          int stop_fd, int done_fd, struct start_sync *sync)
{
    int ended = 0, shown_warmup = 0;
    while (ended < n) {
        if (pub) /* this thread draws the workers' progress, 4 times a second */
            gp_cl_progress_sum(o, pub, n, gp_now_ns(), 0, &shown_warmup);
        struct pollfd p[3] = {{.fd = done_fd, .events = POLLIN},
                              {.fd = sync->outer_called ? -1 : sync->ready_fd, .events = POLLIN},
                              {.fd = stop_fd, .events = POLLIN}};
        int np = stop_fd >= 0 ? 3 : 2;
        if (poll(p, (nfds_t)np, pub ? 250 : -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents & POLLIN)
            sync_ask_outer(sync);
        if (p[0].revents & POLLIN) {
            uint64_t k = 0;
            if (read(done_fd, &k, sizeof k) == (ssize_t)sizeof k)
                ended += (int)k;
        }
        if (np == 3 && (p[2].revents & POLLIN)) {
            struct signalfd_siginfo si;
            if (read(stop_fd, &si, sizeof si) < 0 && errno == EAGAIN)
                continue;
            for (int i = 0; i < n; i++)
                if (write(ws[i].stop_pipe[1], "s", 1) < 0) {
                    /* the pipe holds 64 KiB: a full one already says stop */
                }
        }
    }
    if (pub)
        gp_cl_progress_sum(o, pub, n, gp_now_ns(), 1, &shown_warmup);
}

void gp_client_stats_sum(struct gp_client_stats *t, const struct gp_client_stats *s, int first)
{
    if (first) {
        *t = *s;
        return;
    }
    t->n_sent += s->n_sent;
    t->n_retried += s->n_retried;
    t->n_warmup += s->n_warmup;
    t->n_failed += s->n_failed;
    t->n_ok += s->n_ok;
    t->n_dropped += s->n_dropped;
    t->n_cancel_chosen += s->n_cancel_chosen;
    t->n_cancel_planned += s->n_cancel_planned;
    t->n_delayed += s->n_delayed;
    if (s->max_lag_ns > t->max_lag_ns)
        t->max_lag_ns = s->max_lag_ns;
    if (s->start_ns && (!t->start_ns || s->start_ns < t->start_ns))
        t->start_ns = s->start_ns;
    if (s->end_ns > t->end_ns)
        t->end_ns = s->end_ns;
    if (s->began_ns > t->began_ns)
        t->began_ns = s->began_ns;
    t->cpu_ns += s->cpu_ns;
    t->n_send_stamped += s->n_send_stamped;
    t->send_lag_sum_ns += s->send_lag_sum_ns;
    if (s->send_lag_max_ns > t->send_lag_max_ns)
        t->send_lag_max_ns = s->send_lag_max_ns;
    t->n_rx_kstamp += s->n_rx_kstamp;
    t->rx_lag_sum_ns += s->rx_lag_sum_ns;
    if (s->rx_lag_max_ns > t->rx_lag_max_ns)
        t->rx_lag_max_ns = s->rx_lag_max_ns;
    t->n_rx_lag_over_1ms += s->n_rx_lag_over_1ms;
    if (s->busy_fraction > t->busy_fraction)
        t->busy_fraction = s->busy_fraction;
    t->interrupted |= s->interrupted;
    t->incomplete |= s->incomplete;
    t->budget_stopped |= s->budget_stopped;
    t->n_lost += s->n_lost;
    t->n_backoff += s->n_backoff;
    t->backoff_ns += s->backoff_ns;
    if (!t->first_error[0] && s->first_error[0]) {
        t->first_error_status = s->first_error_status;
        memcpy(t->first_error, s->first_error, sizeof t->first_error);
    }
}

/* Loop i of `loops` on this process: its place in the job and its share
 * of the in-flight cap, from dist/plan.c's split (the one split of the job
 * over ranks x workers; client_sched.c takes each phase's request slots from
 * it too). Also where the plan is validated: a closed loop's concurrency
 * >= 1, a cap no lower than the job's loops. */
static int loop_opts(const struct gp_client_opts *o, int loops, int i, struct gp_client_opts *out,
                     struct gp_error *err)
{
    const struct gp_load_slice *l = &o->load;
    int S = l->share_count > 1 ? l->share_count : loops;
    struct gp_dist_load ld = {
        .closed = !gp_load_is_open(l), /* a closed loop, or a plan's warmup */
        .concurrency = l->concurrency > 0 ? (uint64_t)l->concurrency : 0,
        .cap = l->max_inflight > 0 ? (uint64_t)l->max_inflight : 0,
    };
    struct gp_dist_slice sl;
    int rc = gp_dist_split_load(&ld, 1, S, 0, (l->share_count > 1 ? l->share_index : 0) + i, &sl, err);
    if (rc)
        return rc < 0 ? rc : -rc;
    *out = *o;
    out->load.share_index = (int)sl.slot;
    out->load.share_count = S;
    out->load.max_inflight = (long)sl.cap;
    return 0;
}

static int start_workers(const struct gp_client_opts *o, struct worker *ws, int n, int done_fd,
                         const struct gp_record_store *st, struct start_sync *sync, struct gp_client_progress *pub,
                         struct gp_error *err)
{
    for (int i = 0; i < n; i++) {
        struct worker *w = &ws[i];
        /* one clock origin for all: the merged store keeps it */
        w->st.mono0_ns = st->mono0_ns;
        w->st.wall0_ns = st->wall0_ns;
        int rc = loop_opts(o, n, i, &w->o, err);
        if (rc < 0)
            return rc;
        w->o.progress = pub ? o->progress : NULL; /* a worker publishes; the caller draws */
        w->o.progress_pub = pub ? &pub[i] : NULL;
        w->done_fd = done_fd;
        w->sync = sync;
        w->o.measure_start = worker_sync;
        w->o.measure_ctx = w;
        if (pipe2(w->stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
            w->stop_pipe[0] = w->stop_pipe[1] = -1;
            return gp_err(err, GP_EIO, "pipe: %s", strerror(errno));
        }
        w->o.stop_fd = w->stop_pipe[0];
    }
    for (int i = 0; i < n; i++) {
        int e = pthread_create(&ws[i].th, NULL, worker_main, &ws[i]);
        if (e) {
            /* the started ones must not wait for the rest at the start line */
            pthread_mutex_lock(&sync->m);
            sync->expected = i;
            sync_release_if_all(sync);
            pthread_mutex_unlock(&sync->m);
            return gp_err(err, GP_ENOMEM, "cannot start client worker %d: %s", i, strerror(e));
        }
        ws[i].started = 1;
    }
    return 0;
}

/* One loop on the calling thread: its measure_start, called exactly once. */
struct once {
    uint64_t (*fn)(void *ctx);
    void *ctx;
    int called;
};

static uint64_t once_call(void *ctx)
{
    struct once *c = ctx;
    c->called = 1;
    return c->fn(c->ctx);
}

int gp_client_run_workers(const struct gp_client_opts *o, int workers, struct gp_record_store *st,
                          struct gp_client_stats *stats, struct gp_client_stats *per_worker, struct gp_error *err)
{
    gp_cl_reserve_fd_table(o); /* o: the job's (or this rank's) load, before the split */
    if (workers <= 1) {
        struct gp_client_opts o1;
        int rc = loop_opts(o, 1, 0, &o1, err);
        if (rc < 0) {
            memset(stats, 0, sizeof *stats);
            if (o->measure_start) /* the caller's collective still happens once */
                o->measure_start(o->measure_ctx);
            return rc;
        }
        struct once one = {o->measure_start, o->measure_ctx, 0};
        if (o->measure_start) {
            o1.measure_start = once_call;
            o1.measure_ctx = &one;
        }
        rc = gp_client_run(&o1, st, stats, err);
        if (o->measure_start && !one.called) /* the run failed before its measured phase */
            o->measure_start(o->measure_ctx);
        if (per_worker)
            per_worker[0] = *stats;
        return rc;
    }
    memset(stats, 0, sizeof *stats);
    struct gp_client_opts check; /* every loop gets the same verdict: refuse before any starts */
    int vrc = loop_opts(o, workers, 0, &check, err);
    if (vrc < 0)
        return vrc;
    struct worker *ws = calloc((size_t)workers, sizeof *ws);
    /* --workers: the line is drawn here from what each loop publishes */
    struct gp_client_progress *pub = o->progress ? calloc((size_t)workers, sizeof *pub) : NULL;
    if (!ws || (o->progress && !pub)) {
        free(ws);
        free(pub);
        return gp_err(err, GP_ENOMEM, "out of memory starting %d client workers", workers);
    }
    for (int i = 0; i < workers; i++) {
        gp_record_store_init(&ws[i].st);
        ws[i].stop_pipe[0] = ws[i].stop_pipe[1] = -1;
    }
    /* the store st adopts whole in the merge (record.h: shm_arena) */
    ws[0].st.shm_arena = st->shm_arena;
    if (!st->mono0_ns) {
        st->mono0_ns = gp_now_ns();
        st->wall0_ns = gp_wall_ns();
    }
    struct start_sync sync = {.m = PTHREAD_MUTEX_INITIALIZER, .c = PTHREAD_COND_INITIALIZER, .expected = workers,
                              .outer = o->measure_start, .outer_ctx = o->measure_ctx, .ready_fd = -1};
    int done_fd = eventfd(0, EFD_CLOEXEC);
    if (sync.outer)
        sync.ready_fd = eventfd(0, EFD_CLOEXEC);
    int rc = done_fd < 0 || (sync.outer && sync.ready_fd < 0)
                 ? gp_err(err, GP_EIO, "eventfd: %s", strerror(errno))
                 : start_workers(o, ws, workers, done_fd, st, &sync, pub, err);
    int started = 0;
    for (int i = 0; i < workers; i++)
        started += ws[i].started;
    if (rc < 0) {
        /* the ones that run must stop before we return */
        for (int i = 0; i < workers; i++)
            if (ws[i].started && write(ws[i].stop_pipe[1], "ss", 2) < 0) {
                /* nothing better to do: join below waits for it */
            }
    } else {
        watch_workers(o, pub, ws, started, o->stop_fd, done_fd, &sync);
    }
    /* the caller hears of the start once, whatever happened (its other
     * processes wait for it); workers still waiting are released */
    sync_ask_outer(&sync);
    for (int i = 0; i < workers; i++)
        if (ws[i].started)
            pthread_join(ws[i].th, NULL);
    for (int i = 0; rc == 0 && i < workers; i++)
        if (ws[i].rc < 0) {
            rc = gp_err(err, -ws[i].rc, "client worker %d: %s", i, ws[i].err.msg);
        }
    if (rc == 0) {
        struct gp_record_store **srcs = calloc((size_t)workers, sizeof *srcs);
        for (int i = 0; srcs && i < workers; i++)
            srcs[i] = &ws[i].st;
        rc = srcs ? gp_client_merge_stores(st, srcs, (size_t)workers, err)
                  : gp_err(err, GP_ENOMEM, "out of memory merging records");
        free(srcs);
    }
    for (int i = 0; i < workers; i++) {
        gp_client_stats_sum(stats, &ws[i].stats, i == 0);
        if (per_worker)
            per_worker[i] = ws[i].stats;
        gp_record_store_free(&ws[i].st);
        if (ws[i].stop_pipe[0] >= 0) {
            close(ws[i].stop_pipe[0]);
            close(ws[i].stop_pipe[1]);
        }
    }
    /* the busy fraction of the run: the busiest loop (gp_client_stats_sum) */
    if (done_fd >= 0)
        close(done_fd);
    if (sync.ready_fd >= 0)
        close(sync.ready_fd);
    free(ws);
    free(pub);
    return rc;
}

/* ---- merge ---------------------------------------------------------------- */

/* shift: src's bytes were moved into dst at +shift (gp_record_store_take_bytes);
 * UINT64_MAX: they are still in src and are copied. */
static int copy_record(struct gp_record_store *dst, const struct gp_record_store *src, const struct gp_record *r,
                       uint64_t shift, struct gp_chunk **scratch, size_t *scratch_cap)
{
    if (r->n_chunks > *scratch_cap) {
        size_t nc = r->n_chunks * 2u;
        struct gp_chunk *c = realloc(*scratch, nc * sizeof *c);
        if (!c)
            return -GP_ENOMEM;
        *scratch = c;
        *scratch_cap = nc;
    }
    if (shift != UINT64_MAX) {
        for (uint32_t i = 0; i < r->n_chunks; i++) {
            (*scratch)[i] = *gp_record_chunk(src, r, i);
            (*scratch)[i].off += shift;
        }
        struct gp_record cp = *r;
        cp.err_off += shift;
        cp.body_off += r->body_len ? shift : 0;
        return gp_record_append_placed(dst, &cp, *scratch, r->n_chunks, NULL, r->err_len) < 0 ? -GP_ENOMEM : 0;
    }
    for (uint32_t i = 0; i < r->n_chunks; i++) {
        const struct gp_chunk *c = gp_record_chunk(src, r, i);
        (*scratch)[i] = *c;
        if (gp_record_put_bytes(dst, gp_record_bytes(src, c), c->len, &(*scratch)[i].off))
            return -GP_ENOMEM;
    }
    struct gp_record cp = *r;
    if (r->body_len && gp_record_put_bytes(dst, gp_record_body(src, r), r->body_len, &cp.body_off))
        return -GP_ENOMEM;
    const char *etxt = r->err_len ? src->bytes.data + r->err_off : NULL;
    if (gp_record_append_placed(dst, &cp, *scratch, r->n_chunks, etxt, r->err_len) < 0)
        return -GP_ENOMEM;
    return 0;
}

/* Record indices of st in start order (ties: append order): a store is in
 * completion order. */
static size_t *start_order(const struct gp_record_store *st)
{
    size_t *ix = malloc((st->n ? st->n : 1) * sizeof *ix);
    if (!ix)
        return NULL;
    for (size_t i = 0; i < st->n; i++)
        ix[i] = i;
    /* insertion sort on nearly sorted data (completion order is start order
     * give or take the requests in flight) is O(n x in-flight) */
    for (size_t i = 1; i < st->n; i++) {
        size_t v = ix[i], j = i;
        uint64_t t = st->recs[v].t_start_ns;
        while (j > 0 && st->recs[ix[j - 1]].t_start_ns > t) {
            ix[j] = ix[j - 1];
            j--;
        }
        ix[j] = v;
    }
    return ix;
}

int gp_client_merge_stores(struct gp_record_store *dst, struct gp_record_store *const *srcs, size_t n,
                           struct gp_error *err)
{
    if (n && !dst->mono0_ns) {
        dst->mono0_ns = srcs[0]->mono0_ns;
        dst->wall0_ns = srcs[0]->wall0_ns;
    }
    size_t *pos = calloc(n ? n : 1, sizeof *pos);
    size_t **order = calloc(n ? n : 1, sizeof *order);
    uint64_t *shift = malloc((n ? n : 1) * sizeof *shift);
    struct gp_chunk *scratch = NULL;
    size_t scratch_cap = 0;
    int rc = pos && order && shift ? 0 : -GP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!(order[i] = start_order(srcs[i])))
            rc = -GP_ENOMEM;
    /* The bytes (every response: most of the memory) move instead of being
     * copied: copying them doubled the peak memory of a streaming run and cost
     * as much CPU as a second pass over the responses (page faults, zeroing). */
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (gp_record_store_take_bytes(dst, srcs[i], &shift[i]))
            shift[i] = UINT64_MAX;
    /* k-way merge: n is the number of workers (small), so a linear scan per
     * record is cheaper than a heap */
    while (rc == 0) {
        size_t best = n;
        uint64_t bt = 0;
        for (size_t i = 0; i < n; i++) {
            if (pos[i] >= srcs[i]->n)
                continue;
            uint64_t t = srcs[i]->recs[order[i][pos[i]]].t_start_ns;
            if (best == n || t < bt) {
                best = i;
                bt = t;
            }
        }
        if (best == n)
            break;
        rc = copy_record(dst, srcs[best], &srcs[best]->recs[order[best][pos[best]]], shift[best], &scratch,
                         &scratch_cap);
        pos[best]++;
    }
    for (size_t i = 0; order && i < n; i++)
        free(order[i]);
    free(order);
    free(scratch);
    free(pos);
    free(shift);
    if (rc < 0)
        return gp_err(err, GP_ENOMEM, "out of memory merging the workers' records");
    return 0;
}
