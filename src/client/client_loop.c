/* client/client_loop.c — the top of the client's layers (client_int.h): the
 * turn of the loop that drives a phase. Each turn: the stop fd and the
 * memory budget, backing-off slots and due arrivals (the scheduler,
 * client_sched.c), finished transfers taken from the transport (curl's
 * shards, the h1 done queue) and handed to the request layer to record and
 * to the scheduler to follow up, planned cancellations, then one wait on the
 * epoll set until the earliest thing to do. See cl_loop.h.
 */
#include "client/cl_loop.h"
#include "client/cl_request.h"
#include "client/cl_sched.h"
#include "client/cl_transport.h"
#include "core/clock.h"
#include "core/error.h"

#include <curl/curl.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

static int check_stop(struct loop *L, uint64_t now)
{
    int fd = L->o->stop_fd;
    if (fd < 0)
        return 0;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    if (poll(&pfd, 1, 0) <= 0 || !(pfd.revents & POLLIN))
        return 0;
    /* consume the signal so the fd stops being readable */
    struct signalfd_siginfo si;
    if (read(fd, &si, sizeof si) < 0 && errno != EAGAIN) {
        char b[64];
        if (read(fd, b, sizeof b) < 0) {
            /* not a signalfd and nothing readable: treat as a stop anyway */
        }
    }
    if (L->stopping)
        L->hard_stop = 1;
    L->stopping = 1;
    L->stats->interrupted = 1;
    L->stop_deadline = now + L->o->grace_ns;
    return 1;
}

/* Removes every in-flight transfer; cancelled ones are recorded (Ctrl-C),
 * dropped ones are not (end of a time-bounded run). */
int gp_cl_abandon_inflight(struct loop *L, int record, struct gp_error *err)
{
    for (size_t i = 0; i < L->nslots; i++) {
        struct slot *s = L->slots[i];
        if (!s->busy)
            continue;
        gp_cl_tr_abort(L, s);
        L->inflight--;
        if (record) {
            if (gp_cl_slot_record(L, s, CURLE_OK, GP_REC_CANCELLED, err) < 0)
                return -GP_ENOMEM;
        } else if (!s->warmup) {
            L->stats->n_dropped++;
        }
    }
    L->h1_ndone = 0; /* every one of them was busy: handled above */
    return 0;
}

/* A transfer ended (either transport): record it, resend it once on a
 * stale keep-alive connection, or let the scheduler start the slot's next
 * request (closed loop). */
static int take_done(struct loop *L, struct sched *S, struct slot *sl, CURLcode res, struct gp_error *err)
{
    int rc;
    sl->busy = 0;
    /* The loop does not wake at each due time while the cap is full (it
     * would spin), so a request that fell due then is known by its due time
     * being before this instant (gp_cl_sched_start_due). */
    if (L->o->load.max_inflight > 0 && (long)L->inflight >= L->o->load.max_inflight)
        L->cap_freed_ns = gp_now_ns();
    L->inflight--;
    if (gp_cl_is_stale_connection(sl, res) && !L->stopping) {
        sl->retried = 1;
        L->stats->n_retried++;
        L->stats->n_sent--;
        if (sl->warmup)
            L->stats->n_warmup--;
        sl->sent--;
        return gp_cl_slot_start(L, sl, sl->entry, err);
    }
    sl->retried = 0;
    if ((rc = gp_cl_slot_record(L, sl, res, 0, err)) < 0)
        return rc;
    return gp_cl_sched_on_done(L, S, sl, res, err);
}

/* --request-cancellation-rate: aborts every chosen transfer still in flight
 * at its cancel_at (the connection is closed, so the server sees the client
 * go away), records it cancelled, and lets the scheduler go on as after any
 * finished request. Walks the slots only when one is due. */
static int cancel_due(struct loop *L, struct sched *S, uint64_t now, struct gp_error *err)
{
    if (!L->next_cancel || now < L->next_cancel)
        return 0;
    int rc;
    for (size_t i = 0; i < L->nslots; i++) {
        struct slot *s = L->slots[i];
        if (!s->busy || !s->cancel_at || s->cancel_at > now)
            continue;
        gp_cl_tr_abort(L, s);
        if (L->o->load.max_inflight > 0 && (long)L->inflight >= L->o->load.max_inflight)
            L->cap_freed_ns = now;
        L->inflight--;
        s->retried = 0;
        L->stats->n_cancel_planned++;
        if ((rc = gp_cl_slot_record(L, s, CURLE_OK, GP_REC_CANCELLED | GP_REC_CANCEL_PLANNED, err)) < 0)
            return rc;
        if ((rc = gp_cl_sched_on_done(L, S, s, CURLE_OK, err)) < 0)
            return rc;
    }
    /* the next one due, among the transfers in flight now (some just started) */
    L->next_cancel = 0;
    for (size_t i = 0; i < L->nslots; i++) {
        const struct slot *s = L->slots[i];
        if (s->busy && s->cancel_at && (!L->next_cancel || s->cancel_at < L->next_cancel))
            L->next_cancel = s->cancel_at;
    }
    return 0;
}

/* Lets curl run its due timer, then takes every finished transfer: records
 * it, resends it once on a stale keep-alive connection, or lets the
 * scheduler start the slot's next request (closed loop). */
static int pump_shard(struct loop *L, struct shard *sh, struct sched *S, struct gp_error *err)
{
    int rc = gp_cl_shard_run_timer(sh, err);
    if (rc < 0)
        return rc;
    struct slot *sl;
    CURLcode res;
    while ((sl = gp_cl_shard_take_done(sh, &res)))
        if ((rc = take_done(L, S, sl, res, err)) < 0)
            return rc;
    return 0;
}

/* The h1 transport's finished transfers, in the order they ended; taking
 * one may start requests that end at once and join the queue. */
static int pump_h1(struct loop *L, struct sched *S, struct gp_error *err)
{
    gp_cl_h1_expire(L, gp_now_ns());
    while (L->h1_ndone) {
        size_t n = L->h1_ndone;
        for (size_t i = 0; i < n; i++) {
            struct slot *sl = L->h1_done[i];
            int rc = take_done(L, S, sl, (CURLcode)sl->h1->res, err);
            if (rc < 0) {
                L->h1_ndone = 0;
                return rc;
            }
        }
        /* what this batch queued (a request that failed at once) is next */
        memmove(L->h1_done, L->h1_done + n, (L->h1_ndone - n) * sizeof *L->h1_done);
        L->h1_ndone -= n;
    }
    return 0;
}

static int pump(struct loop *L, struct sched *S, struct gp_error *err)
{
    if (L->h1t)
        return pump_h1(L, S, err);
    for (size_t i = 0; i < L->nshards; i++) {
        int rc = pump_shard(L, L->shards[i], S, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int run_phase_loop(struct loop *L, const struct phase *ph, struct sched *S, struct gp_error *err)
{
    int rc = 0;
    for (;;) {
        uint64_t now = gp_now_ns();
        if (L->stop_ready || !L->stop_in_epoll) {
            L->stop_ready = 0;
            check_stop(L, now);
        }
        if (!L->stopping && gp_record_budget_reached(L->o->budget)) {
            /* --max-memory (any worker's store may have passed it: the
             * budget is shared): no new request; what is in flight finishes
             * within the grace, as after a first Ctrl-C, and is recorded */
            L->stopping = 1;
            L->stats->incomplete = 1;
            L->stats->budget_stopped = 1;
            L->stop_deadline = now + L->o->grace_ns;
        }
        if (L->stopping && (L->hard_stop || L->inflight == 0 || now >= L->stop_deadline)) {
            if ((rc = gp_cl_abandon_inflight(L, 1, err)) < 0)
                return rc;
            break;
        }
        if (ph->deadline && now >= ph->deadline) {
            if ((rc = gp_cl_abandon_inflight(L, 0, err)) < 0)
                return rc;
            break;
        }

        if (L->n_waiting && (rc = gp_cl_sched_resume(L, S, now, err)) < 0)
            return rc;

        /* open loop: start every arrival that is due */
        if ((rc = gp_cl_sched_start_due(L, S, now, err)) < 0)
            return rc;

        if ((rc = pump(L, S, err)) < 0)
            return rc;
        if ((rc = cancel_due(L, S, gp_now_ns(), err)) < 0)
            return rc;

        now = gp_now_ns();
        gp_cl_progress_draw(L, now, 0);
        int more_arrivals = gp_cl_sched_more(L, S);
        if (L->inflight == 0 && !L->n_waiting && !more_arrivals && !(ph->deadline && !S->rate_mode && !L->stopping && ph->count < 0))
            break;

        /* sleep until the next thing to do: socket activity, curl's timer,
         * the next arrival, the deadline, the stop fd, or at most 100 ms */
        uint64_t wait_ns = 100000000ull;
        gp_cl_sched_wait(L, S, now, &wait_ns);
        gp_deadline_cap(&wait_ns, now, L->n_waiting ? L->next_resume : 0);
        gp_deadline_cap(&wait_ns, now, ph->deadline);
        gp_deadline_cap(&wait_ns, now, L->stopping ? L->stop_deadline : 0);
        gp_deadline_cap(&wait_ns, now, L->next_cancel);
        gp_cl_tr_cap_wait(L, now, &wait_ns); /* h1 timeouts, curl's timers */
        if ((rc = gp_cl_tr_wait(L, wait_ns, err)) < 0)
            return rc;
        if ((rc = pump(L, S, err)) < 0)
            return rc;
    }
    return 0;
}

int gp_cl_run_phase(struct loop *L, const struct phase *ph, struct gp_error *err)
{
    L->phase_warmup = ph->warmup;
    L->phase_total = ph->count;
    L->phase_start = ph->start_ns ? ph->start_ns : gp_now_ns();
    L->n_waiting = 0;
    struct sched S;
    int rc = gp_cl_sched_begin(L, &S, ph, err);
    if (rc >= 0)
        rc = run_phase_loop(L, ph, &S, err);
    gp_cl_sched_end(L, &S); /* the open loop's schedule, on every path */
    return rc;
}
