/* client/client_h1.c — the plain-http keep-alive transport (see cl_transport.h).
 *
 * Why: libcurl's per-request and per-wake work (handle add/remove, its
 * connection pool walk, its own state machine before our write callback)
 * was most of the loop's time, and it ran before a chunk got its stamp. Here
 * a slot owns its connection, a wake-up is one recv stamped the moment it
 * returns, and the request is one sendmsg of bytes built once per URL,
 * identical to libcurl's (tests/e2e/profile_h1_bytes.sh compares them).
 *
 * A finished transfer is queued on L->h1_done; the loop (client_loop.c)
 * takes it exactly as it takes a curl transfer from its shard, so records,
 * retries on a stale keep-alive connection, back-off and the scheduler are
 * shared. Part of the transport layer (cl_transport.h): calls only
 * gp_cl_slot_put (client_body.c) in client/, its sockets go through
 * core/evloop.h.
 */
#include "client/cl_transport.h"
#include "core/clock.h"
#include "core/error.h"

#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define H1_BUF (256 * 1024) /* as the curl path's CURLOPT_BUFFERSIZE */

int gp_client_transport_check(const char *value, struct gp_error *err)
{
    if (!value || !*value || !strcmp(value, "curl") || !strcmp(value, "h1"))
        return 0;
    return gp_err(err, GP_EINVAL,
                  "GENPERF_TRANSPORT=%s: not a transport; use curl (libcurl) or h1 (built-in HTTP/1.1), or unset it",
                  value);
}

int gp_cl_h1_setup(struct loop *L, struct gp_error *err)
{
    const struct gp_client_opts *o = L->o;
    const char *tr = getenv("GENPERF_TRANSPORT");
    if ((tr && !strcmp(tr, "curl")) || o->http2)
        return 0;
    size_t n = o->n_urls > 1 ? o->n_urls : 1;
    struct gp_h1_target *t = calloc(n, sizeof *t);
    if (!t)
        return gp_err(err, GP_ENOMEM, "out of memory");
    const char *why = NULL;
    for (size_t i = 0; i < n; i++) {
        int rc = gp_h1_target_init(&t[i], o->n_urls > 1 ? o->urls[i] : o->url, L->hdrs, &why, err);
        if (rc <= 0) {
            for (size_t j = 0; j <= i; j++)
                gp_h1_target_free(&t[j]);
            free(t);
            if (rc == 0 && tr && !strcmp(tr, "h1") && o->notes)
                fprintf(o->notes, "genperf: GENPERF_TRANSPORT=h1 not possible (%s); using libcurl\n", why);
            return rc < 0 ? rc : 0;
        }
    }
    if (!(L->h1_buf = malloc(H1_BUF))) {
        for (size_t j = 0; j < n; j++)
            gp_h1_target_free(&t[j]);
        free(t);
        return gp_err(err, GP_ENOMEM, "out of memory");
    }
    L->h1t = t;
    L->n_h1t = n;
    const char *rx = getenv("GENPERF_RX_STAMP");
    L->rx_kstamp = !(rx && !strcmp(rx, "user"));
    return 0;
}

int gp_client_rx_stamp_check(const char *value, struct gp_error *err)
{
    if (!value || !*value || !strcmp(value, "kernel") || !strcmp(value, "user"))
        return 0;
    return gp_err(err, GP_EINVAL,
                  "GENPERF_RX_STAMP=%s: not a stamp source; use kernel (the socket's receive time, the default) "
                  "or user (when recv returns), or unset it",
                  value);
}

void gp_cl_h1_teardown(struct loop *L)
{
    for (size_t i = 0; i < L->n_h1t; i++)
        gp_h1_target_free(&L->h1t[i]);
    free(L->h1t);
    free(L->h1_done);
    free(L->h1_buf);
    L->h1t = NULL;
}

int gp_cl_h1_slot_init(struct loop *L, struct slot *s, struct gp_error *err)
{
    /* pump takes the queue in batches; while it takes one, each slot can be
     * queued once more: twice the slots always fit */
    if (L->h1_done_cap < 2 * (L->nslots + 1)) {
        size_t nc = L->h1_done_cap ? L->h1_done_cap * 2 : 16;
        while (nc < 2 * (L->nslots + 1))
            nc *= 2;
        struct slot **d = realloc(L->h1_done, nc * sizeof *d);
        if (!d)
            return gp_err(err, GP_ENOMEM, "out of memory allocating client slots");
        L->h1_done = d;
        L->h1_done_cap = nc;
    }
    if (!(s->h1 = malloc(sizeof *s->h1)))
        return gp_err(err, GP_ENOMEM, "out of memory allocating client slots");
    memset(s->h1, 0, offsetof(struct h1_xfer, r));
    for (size_t i = 0; i < GP_CLIENT_MAX_URLS; i++)
        s->h1->fd[i] = -1;
    gp_h1_resp_init(&s->h1->r);
    return 0;
}

void gp_cl_h1_slot_free(struct slot *s)
{
    if (!s->h1)
        return;
    for (size_t i = 0; i < GP_CLIENT_MAX_URLS; i++)
        if (s->h1->fd[i] >= 0)
            close(s->h1->fd[i]);
    free(s->h1);
    s->h1 = NULL;
}

static uint64_t tag_of(const struct slot *s, int ep)
{
    return (uint64_t)(H1_TAG | (uint32_t)ep) << 32 | s->id;
}

static void set_out(struct loop *L, struct slot *s, int out)
{
    struct h1_xfer *x = s->h1;
    if (x->out == out)
        return;
    gp_evloop_mod(&L->el, x->fd[x->ep], EPOLLIN | EPOLLRDHUP | (out ? EPOLLOUT : 0u), tag_of(s, x->ep));
    x->out = out;
}

static void drop_conn(struct loop *L, struct slot *s, int ep)
{
    struct h1_xfer *x = s->h1;
    if (x->fd[ep] < 0)
        return;
    gp_evloop_del(&L->el, x->fd[ep]);
    close(x->fd[ep]);
    x->fd[ep] = -1;
    if (ep == x->ep)
        x->out = 0;
}

/* The transfer ended with res: its connection stays only when the response
 * allows it; pump takes the slot from the done queue. */
static void finish(struct loop *L, struct slot *s, int res)
{
    struct h1_xfer *x = s->h1;
    /* a response that came before the whole request went out ends it too */
    if (res != CURLE_OK || x->state != H1_RECEIVING || !gp_h1_reusable(&x->r))
        drop_conn(L, s, x->ep);
    else
        set_out(L, s, 0);
    x->state = H1_IDLE;
    x->res = res;
    L->h1_done[L->h1_ndone++] = s;
}

static void fail_errno(struct loop *L, struct slot *s, int res, const char *what, int e)
{
    snprintf(s->errbuf, sizeof s->errbuf, "%s: %s", what, strerror(e));
    finish(L, s, res);
}

static int recv_read(struct loop *L, struct slot *s, int early);

/* The send failed because the server closed the connection (reset, or
 * closed for writing). A server may answer before it has read the whole
 * request and then close: 413 to a body too large (genperf serve, nginx,
 * uvicorn). Its answer waits on the socket ahead of the reset, and that
 * answer, not the reset, is what the transfer got (libcurl reports it too
 * when it reads before the reset comes): an HTTP failure, not a
 * connection-level one for the back-off. Returns 1 when a complete response
 * was read (the transfer is finished), 0 when none was there (the send error
 * stands). */
static int early_response(struct loop *L, struct slot *s)
{
    int rc;
    while ((rc = recv_read(L, s, 1)) == 0)
        ;
    return rc == 1;
}

static void send_some(struct loop *L, struct slot *s)
{
    struct h1_xfer *x = s->h1;
    const struct gp_h1_target *t = &L->h1t[x->ep];
    if (x->state != H1_SENDING) {
        x->state = H1_SENDING;
        s->t_send = gp_now_ns(); /* the curl path's pre-request callback */
    }
    size_t total = t->head_len + x->cl_len + x->blen;
    while (x->off < total) {
        struct iovec iov[3];
        const char *part[3] = {t->head, x->cl, x->body};
        size_t plen[3] = {t->head_len, x->cl_len, x->blen}, skip = x->off;
        int n = 0;
        for (int i = 0; i < 3; i++) {
            if (skip >= plen[i]) {
                skip -= plen[i];
                continue;
            }
            iov[n].iov_base = (void *)(part[i] + skip);
            iov[n++].iov_len = plen[i] - skip;
            skip = 0;
        }
        struct msghdr mh;
        memset(&mh, 0, sizeof mh);
        mh.msg_iov = iov;
        mh.msg_iovlen = (size_t)n;
        ssize_t w = sendmsg(x->fd[x->ep], &mh, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                set_out(L, s, 1);
                return;
            }
            int e = errno;
            if ((e == ECONNRESET || e == EPIPE) && early_response(L, s))
                return;
            fail_errno(L, s, CURLE_SEND_ERROR, "Send failure", e);
            return;
        }
        x->off += (size_t)w;
    }
    x->state = H1_RECEIVING;
    set_out(L, s, 0);
}

static void connected(struct loop *L, struct slot *s);
static void connect_next(struct loop *L, struct slot *s);

/* The current address failed (e: its errno): try the host's next one, or
 * fail the transfer with libcurl's wording. */
static void connect_failed(struct loop *L, struct slot *s, int e)
{
    struct h1_xfer *x = s->h1;
    struct gp_h1_target *t = &L->h1t[x->ep];
    drop_conn(L, s, x->ep);
    if (x->ai + 1 < t->naddr) {
        x->ai++;
        connect_next(L, s);
        return;
    }
    snprintf(s->errbuf, sizeof s->errbuf, "Failed to connect to %s port %d after %llu ms: %s", t->host, t->port,
             (unsigned long long)((gp_now_ns() - s->t_start) / 1000000ull), strerror(e));
    finish(L, s, CURLE_COULDNT_CONNECT);
}

/* Opens the connection to the target's address x->ai; sends at once when
 * connect completes before it returns or right after. */
static void connect_next(struct loop *L, struct slot *s)
{
    struct h1_xfer *x = s->h1;
    struct gp_h1_target *t = &L->h1t[x->ep];
    const struct sockaddr_storage *a = &t->addr[x->ai];
    int fd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(s->errbuf, sizeof s->errbuf, "Failed to connect to %s port %d: socket: %s", t->host, t->port,
                 strerror(errno));
        finish(L, s, CURLE_COULDNT_CONNECT);
        return;
    }
    int one = 1, idle = 60;
    /* as the curl path: TCP_NODELAY, TCP_KEEPALIVE (60 s idle and interval) */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle, sizeof idle);
    /* the kernel stamps each segment as it is queued on the socket; a
     * refusal (no such option) leaves recv's own stamp */
    if (L->rx_kstamp)
        setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
    x->fd[x->ep] = fd;
    x->out = 1;
    int arc = gp_evloop_add(&L->el, fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP, tag_of(s, x->ep));
    if (arc < 0) {
        int e = -arc;
        close(fd);
        x->fd[x->ep] = -1;
        fail_errno(L, s, CURLE_COULDNT_CONNECT, "epoll_ctl", e);
        return;
    }
    x->state = H1_CONNECTING;
    if (connect(fd, (const struct sockaddr *)a, t->alen[x->ai]) == 0) {
        send_some(L, s);
        return;
    }
    if (errno == EINPROGRESS || errno == EINTR) {
        /* On loopback and LANs the handshake is usually done when connect
         * returns: send now, not a loop turn later behind every other event
         * of this wake-up (the request's start stamp is already taken). */
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        if (poll(&pfd, 1, 0) > 0)
            connected(L, s);
        return;
    }
    connect_failed(L, s, errno);
}

void gp_cl_h1_start(struct loop *L, struct slot *s, const char *body, size_t blen)
{
    struct h1_xfer *x = s->h1;
    assert(x->state == H1_IDLE); /* finish or abort ended the previous transfer */
    x->ep = (int)s->endpoint;
    x->body = body;
    x->blen = blen;
    x->off = 0;
    x->cl_len = (size_t)snprintf(x->cl, sizeof x->cl, "%zu\r\n\r\n", blen);
    gp_h1_resp_init(&x->r);
    x->t_last = s->t_start;
    x->deadline = 0;
    if (L->o->timeout_s > 0) {
        x->deadline = s->t_start + (uint64_t)(L->o->timeout_s * 1e9);
        if (!L->h1_next_deadline || x->deadline < L->h1_next_deadline)
            L->h1_next_deadline = x->deadline;
    }
    x->reused = x->fd[x->ep] >= 0;
    if (x->reused) {
        send_some(L, s);
        return;
    }
    x->ai = L->h1t[x->ep].pref;
    connect_next(L, s);
}

/* The first body span of a read carries the read's stamp; a read holding
 * several chunks hands the later ones over stamped as they are handed over,
 * as libcurl's write callback stamps them, less how much later than its
 * stamp the read returned (t_shift: 0 for recv's own stamp). That is not a
 * nicety: a read with a whole zero-delay stream would otherwise give every
 * event one time, GenAI-Perf then drops inter_token_latency (it sums to 0),
 * and the artifacts would depend on the transport (tests/golden). */
static int put_body(void *ud, const char *p, size_t n)
{
    struct slot *s = ud;
    uint64_t t = s->h1->t_read;
    if (t)
        s->h1->t_read = 0;
    else
        t = gp_now_ns() - s->h1->t_shift;
    assert(t >= s->h1->t_last); /* a later span of the read: now - shift >= the read's stamp */
    s->h1->t_last = t;
    return gp_cl_slot_put(s, p, n, t);
}

/* The kernel's receive time of the read's last segment (SCM_TIMESTAMPNS, on
 * CLOCK_REALTIME) moved to CLOCK_MONOTONIC by the two clocks' offset read
 * now. Why: recv returns after the loop has served every socket that woke
 * before this one, and at 512 streams that wait, not the network, was the
 * tail of the chunk-time error; the kernel's stamp does not wait for the
 * loop. The result is kept within [the transfer's last stamp, t_user]: a
 * step of the wall clock (settimeofday, NTP) moves it only inside what recv
 * alone would have said, and a transfer's stamps never go back. */
static uint64_t kernel_stamp(struct loop *L, struct h1_xfer *x, struct msghdr *mh, uint64_t t_user)
{
    const struct timespec *k = NULL;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS)
            k = (const struct timespec *)(void *)CMSG_DATA(c);
    if (!k)
        return t_user;
    uint64_t k_ns = (uint64_t)k->tv_sec * 1000000000ull + (uint64_t)k->tv_nsec, wall = gp_wall_ns();
    uint64_t back = wall > k_ns ? wall - k_ns : 0; /* how long ago the segment came */
    uint64_t t = back < t_user ? t_user - back : 0;
    if (t < x->t_last)
        t = x->t_last;
    if (t > t_user)
        t = t_user;
    assert(t >= x->t_last); /* t_last <= t_user: the clamps above never cross */
    if (!L->phase_warmup) {
        uint64_t lag = t_user - t;
        L->stats->n_rx_kstamp++;
        L->stats->rx_lag_sum_ns += lag;
        if (lag > L->stats->rx_lag_max_ns)
            L->stats->rx_lag_max_ns = lag;
        L->stats->n_rx_lag_over_1ms += lag > 1000000;
    }
    return t;
}

/* One read, stamped (kernel_stamp) before it is parsed, parsed at once.
 * Returns 1 when the transfer finished, 0 when the response goes on, -1 when
 * nothing was there to read. early (early_response): a read error, or an end
 * or a parse error before the response is complete, does not finish the
 * transfer either (-1): the send error that led here is reported instead. */
static int recv_read(struct loop *L, struct slot *s, int early)
{
    struct h1_xfer *x = s->h1;
    struct iovec iov = {.iov_base = L->h1_buf, .iov_len = H1_BUF};
    union {
        char b[CMSG_SPACE(sizeof(struct timespec)) + 64];
        struct cmsghdr align;
    } cb;
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    if (L->rx_kstamp) {
        mh.msg_control = cb.b;
        mh.msg_controllen = sizeof cb.b;
    }
    ssize_t n = recvmsg(x->fd[x->ep], &mh, 0);
    uint64_t t = gp_now_ns();
    if (n < 0) {
        if (errno == EINTR)
            return 0;
        if (errno == EAGAIN || errno == EWOULDBLOCK || early)
            return -1;
        fail_errno(L, s, CURLE_RECV_ERROR, "Recv failure", errno);
        return 1;
    }
    x->t_shift = 0;
    if (n > 0 && L->rx_kstamp) {
        uint64_t k = kernel_stamp(L, x, &mh, t);
        x->t_shift = t - k;
        t = k;
    }
    int rc;
    if (n == 0) {
        rc = gp_h1_eof(&x->r);
    } else {
        size_t used;
        x->t_read = t;
        rc = gp_h1_feed(&x->r, L->h1_buf, (size_t)n, &used, put_body, s);
        if (rc == GP_H1_DONE && used < (size_t)n)
            x->r.close = 1; /* bytes past the response: not a connection to reuse */
    }
    if (rc == GP_H1_MORE)
        return 0;
    if (rc == GP_H1_DONE) {
        finish(L, s, CURLE_OK);
        return 1;
    }
    if (early)
        return -1;
    if (x->r.code == CURLE_BAD_CONTENT_ENCODING)
        snprintf(s->errbuf, sizeof s->errbuf, CL_ENCODING_FMT, x->r.cenc, x->r.cenc);
    else if (x->r.code == CURLE_PARTIAL_FILE && !x->r.chunked && x->r.clen >= 0)
        snprintf(s->errbuf, sizeof s->errbuf,
                 "transfer closed with %llu bytes remaining to read: the response body is truncated (%llu of its "
                 "Content-Length %lld bytes arrived)",
                 (unsigned long long)x->r.left, (unsigned long long)((uint64_t)x->r.clen - x->r.left),
                 (long long)x->r.clen);
    else
        snprintf(s->errbuf, sizeof s->errbuf, "%s", x->r.err);
    finish(L, s, x->r.code);
    return 1;
}

static void recv_some(struct loop *L, struct slot *s)
{
    recv_read(L, s, 0);
}

static void connected(struct loop *L, struct slot *s)
{
    struct h1_xfer *x = s->h1;
    struct gp_h1_target *t = &L->h1t[x->ep];
    int e = 0;
    socklen_t el = sizeof e;
    if (getsockopt(x->fd[x->ep], SOL_SOCKET, SO_ERROR, &e, &el) < 0)
        e = errno;
    if (e == 0) {
        t->pref = x->ai;
        send_some(L, s);
        return;
    }
    connect_failed(L, s, e);
}

void gp_cl_h1_event(struct loop *L, uint64_t tag, uint32_t events)
{
    uint32_t sid = (uint32_t)tag, ep = (uint32_t)(tag >> 32) & ~H1_TAG;
    if (sid >= L->nslots || ep >= GP_CLIENT_MAX_URLS)
        return;
    struct slot *s = L->slots[sid];
    struct h1_xfer *x = s->h1;
    if (x->state == H1_IDLE || (int)ep != x->ep) {
        /* an idle keep-alive connection spoke: the server closed it (or
         * sent what nobody asked for); the next request opens a new one */
        drop_conn(L, s, (int)ep);
        return;
    }
    if (x->state == H1_CONNECTING) {
        if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            connected(L, s);
        return;
    }
    if (x->state == H1_SENDING && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) && !(events & EPOLLIN)) {
        send_some(L, s);
        return;
    }
    /* a response (even an early one, before the body went out) is read */
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP))
        recv_some(L, s);
    else if (x->state == H1_SENDING)
        send_some(L, s);
}

void gp_cl_h1_abort(struct loop *L, struct slot *s)
{
    struct h1_xfer *x = s->h1;
    if (x->state != H1_IDLE)
        drop_conn(L, s, x->ep);
    x->state = H1_IDLE;
}

void gp_cl_h1_expire(struct loop *L, uint64_t now)
{
    if (!L->h1_next_deadline || now < L->h1_next_deadline)
        return;
    uint64_t next = 0;
    for (size_t i = 0; i < L->nslots; i++) {
        struct slot *s = L->slots[i];
        struct h1_xfer *x = s->h1;
        if (!s->busy || x->state == H1_IDLE || !x->deadline)
            continue;
        if (x->deadline <= now) {
            snprintf(s->errbuf, sizeof s->errbuf, "Operation timed out after %llu milliseconds with %llu bytes received",
                     (unsigned long long)((now - s->t_start) / 1000000ull), (unsigned long long)s->nbytes);
            finish(L, s, CURLE_OPERATION_TIMEDOUT);
        } else if (!next || x->deadline < next) {
            next = x->deadline;
        }
    }
    L->h1_next_deadline = next;
}
