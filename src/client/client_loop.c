/* client/client_loop.c — the event loop: shards of curl multi handles, one
 * epoll set for their sockets and the stop fd, curl's socket and timer
 * callbacks, and the turn of the loop that drives a phase (the scheduler in
 * client_sched.c decides what to send and when).
 */
#include "client/client_int.h"
#include "core/clock.h"
#include "core/error.h"

#include <curl/curl.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

static int on_socket(CURL *e, curl_socket_t fd, int what, void *ud, void *sockp);
static int on_timer(CURLM *m, long ms, void *ud);


/* The shard of slot id, created on first use. */
struct shard *gp_cl_shard_for(struct loop *L, uint32_t id, struct gp_error *err)
{
    size_t k = L->o->http2 ? 0 : id / SHARD_SLOTS;
    if (k < L->nshards)
        return L->shards[k];
    struct shard **ns = realloc(L->shards, (k + 1) * sizeof *ns);
    if (!ns) {
        gp_err(err, GP_ENOMEM, "out of memory allocating client shards");
        return NULL;
    }
    L->shards = ns;
    for (; L->nshards <= k; L->nshards++) {
        struct shard *sh = calloc(1, sizeof *sh);
        if (!sh || !(sh->multi = curl_multi_init())) {
            free(sh);
            gp_err(err, GP_ENOMEM, "curl_multi_init failed");
            return NULL;
        }
        sh->L = L;
        sh->idx = (uint32_t)L->nshards;
        curl_multi_setopt(sh->multi, CURLMOPT_PIPELINING,
                          L->o->http2 ? (long)CURLPIPE_MULTIPLEX : (long)CURLPIPE_NOTHING);
        curl_multi_setopt(sh->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
        curl_multi_setopt(sh->multi, CURLMOPT_SOCKETDATA, sh);
        curl_multi_setopt(sh->multi, CURLMOPT_TIMERFUNCTION, on_timer);
        curl_multi_setopt(sh->multi, CURLMOPT_TIMERDATA, sh);
        L->shards[L->nshards] = sh;
    }
    return L->shards[k];
}

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

/* Takes a busy slot's transfer off its transport (the built-in h1 client or
 * libcurl's multi handle) and frees the slot; the caller records it. */
static void slot_abort(struct loop *L, struct slot *s)
{
    if (s->h1)
        gp_cl_h1_abort(L, s);
    else
        curl_multi_remove_handle(s->sh->multi, s->easy);
    s->busy = 0;
}

/* Removes every in-flight transfer; cancelled ones are recorded (Ctrl-C),
 * dropped ones are not (end of a time-bounded run). */
int gp_cl_abandon_inflight(struct loop *L, int record, struct gp_error *err)
{
    for (size_t i = 0; i < L->nslots; i++) {
        struct slot *s = L->slots[i];
        if (!s->busy)
            continue;
        slot_abort(L, s);
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

/* ---- libcurl event API ------------------------------------------------
 * curl tells us which sockets to watch (on_socket) and when to call it back
 * (on_timer); we wait in epoll_wait and hand curl only the sockets that are
 * ready, so a wake-up costs O(ready sockets), where curl_multi_perform +
 * curl_multi_poll walk every open transfer each time. Level-triggered: curl
 * reads at most its buffer per call and relies on being told again. */

static int on_socket(CURL *e, curl_socket_t fd, int what, void *ud, void *sockp)
{
    (void)e;
    struct shard *sh = ud;
    struct loop *L = sh->L;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(L->epfd, EPOLL_CTL_DEL, fd, NULL);
        return 0;
    }
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    ev.data.u64 = (uint64_t)sh->idx << 32 | (uint32_t)fd;
    /* sockp marks a socket already in the set; the other branch covers an fd
     * number reused after a close curl did not announce */
    if (!sockp) {
        if (epoll_ctl(L->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 && errno == EEXIST)
            epoll_ctl(L->epfd, EPOLL_CTL_MOD, fd, &ev);
        curl_multi_assign(sh->multi, fd, sh);
    } else if (epoll_ctl(L->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 && errno == ENOENT) {
        epoll_ctl(L->epfd, EPOLL_CTL_ADD, fd, &ev);
    }
    return 0;
}

static int on_timer(CURLM *m, long ms, void *ud)
{
    (void)m;
    struct shard *sh = ud;
    if (ms < 0) {
        sh->timer_set = 0;
    } else {
        sh->timer_set = 1;
        sh->timer_ns = gp_now_ns() + (uint64_t)ms * 1000000ull;
    }
    return 0;
}

/* epoll_pwait2 takes a nanosecond timeout, so an arrival due in 300 us is
 * not rounded to 0 ms (a spin) or 1 ms (late); kernels before 5.11 get
 * epoll_wait in milliseconds. */
static int wait_events(struct loop *L, uint64_t wait_ns)
{
    int max = (int)(sizeof L->ev / sizeof L->ev[0]);
    int n;
    if (L->pwait2) {
        struct timespec ts = {.tv_sec = (time_t)(wait_ns / 1000000000ull), .tv_nsec = (long)(wait_ns % 1000000000ull)};
        n = epoll_pwait2(L->epfd, L->ev, max, &ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n < 0 && errno == EINTR ? 0 : n;
        L->pwait2 = 0;
    }
    n = epoll_wait(L->epfd, L->ev, max, (int)(wait_ns / 1000000ull));
    return n < 0 && errno == EINTR ? 0 : n;
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
        slot_abort(L, s);
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
    int rc;
    if (sh->timer_set && gp_now_ns() >= sh->timer_ns) {
        /* one-shot: curl re-arms it from inside the call if it needs to */
        sh->timer_set = 0;
        int running;
        CURLMcode mc = curl_multi_socket_action(sh->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        if (mc != CURLM_OK)
            return gp_err(err, GP_ENET, "curl_multi_socket_action: %s", curl_multi_strerror(mc));
    }
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(sh->multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        CURL *e = msg->easy_handle;
        CURLcode res = msg->data.result;
        struct slot *sl = NULL;
        curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&sl);
        curl_multi_remove_handle(sh->multi, e);
        if ((rc = take_done(L, S, sl, res, err)) < 0)
            return rc;
    }
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

/* Hands the ready sockets to curl. */
static int dispatch_list(struct loop *L, const struct epoll_event *evs, int nev, struct gp_error *err)
{
    for (int i = 0; i < nev; i++) {
        uint32_t idx = (uint32_t)(evs[i].data.u64 >> 32);
        int fd = (int)(uint32_t)evs[i].data.u64;
        if (idx == STOP_SHARD) {
            L->stop_ready = 1;
            continue;
        }
        if (idx & H1_TAG) {
            gp_cl_h1_event(L, evs[i].data.u64, evs[i].events);
            continue;
        }
        uint32_t e = evs[i].events;
        int mask = (e & EPOLLIN ? CURL_CSELECT_IN : 0) | (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                   (e & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
        int running;
        CURLMcode mc = curl_multi_socket_action(L->shards[idx]->multi, fd, mask, &running);
        if (mc != CURLM_OK)
            return gp_err(err, GP_ENET, "curl_multi_socket_action: %s", curl_multi_strerror(mc));
    }
    return 0;
}

static int dispatch_events(struct loop *L, int nev, struct gp_error *err)
{
    return dispatch_list(L, L->ev, nev, err);
}

/* A transfer that had to open a connection has not sent its request when
 * curl_multi_add_handle returns: curl waits for the socket to be writable.
 * On loopback and LANs the handshake is done by then, so a zero-timeout look
 * at the epoll set sends it now, not after every other start of this turn
 * (a closed loop opening 256 connections sent its first request ~20 ms after
 * stamping it). Its own event array: callers may be inside dispatch. */
int gp_cl_drive_now(struct loop *L, struct gp_error *err)
{
    struct epoll_event evs[16];
    int n = epoll_wait(L->epfd, evs, (int)(sizeof evs / sizeof evs[0]), 0);
    if (n <= 0)
        return 0;
    return dispatch_list(L, evs, n, err);
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
        if (L->n_waiting) {
            uint64_t d = L->next_resume > now ? L->next_resume - now : 0;
            if (d < wait_ns)
                wait_ns = d;
        }
        if (ph->deadline) {
            uint64_t d = ph->deadline > now ? ph->deadline - now : 0;
            if (d < wait_ns)
                wait_ns = d;
        }
        if (L->stopping) {
            uint64_t d = L->stop_deadline > now ? L->stop_deadline - now : 0;
            if (d < wait_ns)
                wait_ns = d;
        }
        if (L->next_cancel) {
            uint64_t d = L->next_cancel > now ? L->next_cancel - now : 0;
            if (d < wait_ns)
                wait_ns = d;
        }
        if (L->h1_next_deadline) {
            uint64_t d = L->h1_next_deadline > now ? L->h1_next_deadline - now : 0;
            if (d < wait_ns)
                wait_ns = d;
        }
        for (size_t i = 0; i < L->nshards; i++) {
            const struct shard *sh = L->shards[i];
            uint64_t d = sh->timer_ns > now ? sh->timer_ns - now : 0;
            if (sh->timer_set && d < wait_ns)
                wait_ns = d;
        }
        int nev = wait_events(L, wait_ns);
        if (nev < 0)
            return gp_err(err, GP_ENET, "epoll_wait: %s", strerror(errno));
        if ((rc = dispatch_events(L, nev, err)) < 0)
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
