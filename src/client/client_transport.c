/* client/client_transport.c — the client's transport layer over core/evloop:
 * the one epoll set (its sockets and the stop fd), the shards of curl multi
 * handles with curl's socket and timer callbacks, the dispatch of ready
 * sockets to curl or to the h1 transport (client_h1.c), gp_cl_drive_now, and
 * the finished transfers each shard hands back. See cl_transport.h for what
 * it owns and may call: nothing above it (request, scheduler, loop).
 *
 * curl tells us which sockets to watch (on_socket) and when to call it back
 * (on_timer); we wait in the epoll set and hand curl only the sockets that
 * are ready, so a wake-up costs O(ready sockets), where curl_multi_perform +
 * curl_multi_poll walk every open transfer each time. Level-triggered: curl
 * reads at most its buffer per call and relies on being told again.
 *
 * Curl's timers stay one per shard (timer_set, timer_ns), not gp_evloop
 * timers: curl re-arms or clears its one timer on every call, and a heap
 * entry per re-arm (cancelled by token) would grow with each request, where
 * a field per shard is overwritten; the loop already walks the shards in
 * pump, in shard order, which the golden artifacts were made with.
 */
#include "client/cl_transport.h"
#include "core/clock.h"
#include "core/error.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int on_socket(CURL *e, curl_socket_t fd, int what, void *ud, void *sockp);
static int on_timer(CURLM *m, long ms, void *ud);

int gp_cl_tr_init(struct loop *L, struct gp_error *err)
{
    int rc = gp_evloop_init(&L->el, CL_MAX_EVENTS, err);
    if (rc < 0)
        return rc;
    int fd = L->o->stop_fd;
    /* a regular file cannot be in an epoll set: it is then polled each turn */
    L->stop_in_epoll = fd < 0 || gp_evloop_add(&L->el, fd, EPOLLIN, (uint64_t)STOP_SHARD << 32 | (uint32_t)fd) == 0;
    return 0;
}

void gp_cl_tr_free(struct loop *L)
{
    /* curl_multi_cleanup may still call on_socket (CURL_POLL_REMOVE): the
     * epoll set goes last */
    for (size_t i = 0; i < L->nshards; i++) {
        curl_multi_cleanup(L->shards[i]->multi);
        free(L->shards[i]);
    }
    free(L->shards);
    L->shards = NULL;
    L->nshards = 0;
    gp_evloop_free(&L->el);
}

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

void gp_cl_tr_abort(struct loop *L, struct slot *s)
{
    if (s->h1)
        gp_cl_h1_abort(L, s);
    else
        curl_multi_remove_handle(s->sh->multi, s->easy);
    s->busy = 0;
}

static int on_socket(CURL *e, curl_socket_t fd, int what, void *ud, void *sockp)
{
    (void)e;
    struct shard *sh = ud;
    struct loop *L = sh->L;
    if (what == CURL_POLL_REMOVE) {
        gp_evloop_del(&L->el, fd);
        return 0;
    }
    uint32_t events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    /* add-or-mod either way: sockp marks a socket already in the set, and an
     * fd number curl reuses after a close it did not announce is in it too */
    gp_evloop_set(&L->el, fd, events, (uint64_t)sh->idx << 32 | (uint32_t)fd);
    if (!sockp)
        curl_multi_assign(sh->multi, fd, sh);
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

int gp_cl_shard_run_timer(struct shard *sh, struct gp_error *err)
{
    if (!sh->timer_set || gp_now_ns() < sh->timer_ns)
        return 0;
    /* one-shot: curl re-arms it from inside the call if it needs to */
    sh->timer_set = 0;
    int running;
    CURLMcode mc = curl_multi_socket_action(sh->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    if (mc != CURLM_OK)
        return gp_err(err, GP_ENET, "curl_multi_socket_action: %s", curl_multi_strerror(mc));
    return 0;
}

struct slot *gp_cl_shard_take_done(struct shard *sh, CURLcode *res)
{
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(sh->multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        CURL *e = msg->easy_handle;
        *res = msg->data.result;
        struct slot *sl = NULL;
        curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&sl);
        curl_multi_remove_handle(sh->multi, e);
        return sl;
    }
    return NULL;
}

/* Hands the ready sockets to curl or to the h1 transport; the stop fd only
 * raises L->stop_ready for the loop to look at. */
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

void gp_cl_tr_cap_wait(const struct loop *L, uint64_t now, uint64_t *wait_ns)
{
    gp_deadline_cap(wait_ns, now, L->h1_next_deadline);
    for (size_t i = 0; i < L->nshards; i++) {
        const struct shard *sh = L->shards[i];
        if (sh->timer_set)
            gp_deadline_cap(wait_ns, now, sh->timer_ns);
    }
}

int gp_cl_tr_wait(struct loop *L, uint64_t wait_ns, struct gp_error *err)
{
    int nev = gp_evloop_wait(&L->el, wait_ns);
    if (nev < 0)
        return gp_err(err, GP_ENET, "epoll_wait: %s", strerror(errno));
    return dispatch_list(L, L->el.ev, nev, err);
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
    int n = gp_evloop_wait_into(&L->el, evs, (int)(sizeof evs / sizeof evs[0]), 0);
    if (n <= 0)
        return 0;
    return dispatch_list(L, evs, n, err);
}
