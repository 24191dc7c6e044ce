/* serve/server_conn.c — the connection/IO layer of `genperf serve`
 * (serve/srv_io.h): accepting, reading, the connection slots, timers,
 * the dirty/ready/close lists, the flush and its timing-log stamps. */
#include "serve/srv_io.h"
#include "serve/http.h"
#include "core/clock.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static struct conn *conn_new(struct srv *s, int fd)
{
    struct conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    uint32_t idx;
    if (s->nfree) {
        idx = s->freelist[--s->nfree];
    } else {
        if (s->nslots == s->cap_slots) {
            uint32_t nc = s->cap_slots ? s->cap_slots * 2 : 1024;
            struct conn **ns = realloc(s->slots, nc * sizeof *ns);
            uint32_t *nf = ns ? realloc(s->freelist, nc * sizeof *nf) : NULL;
            if (ns)
                s->slots = ns;
            if (!ns || !nf) {
                free(c);
                return NULL;
            }
            s->freelist = nf;
            s->cap_slots = nc;
        }
        idx = s->nslots++;
    }
    c->idx = idx;
    c->fd = fd;
    c->keep_alive = 1;
    c->t_accept_ns = gp_now_ns();
    s->slots[idx] = c;
    s->nconns++;
    return c;
}

void srv_conn_free(struct srv *s, struct conn *c)
{
    if (c->rst) {
        struct linger lg = {.l_onoff = 1, .l_linger = 0};
        setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(c->fd);
    s->slots[c->idx] = NULL;
    s->freelist[s->nfree++] = c->idx;
    s->nconns--;
    gp_buf_free(&c->in);
    gp_buf_free(&c->out);
    gp_buf_free(&c->body);
    gp_buf_free(&c->r.text);
    gp_buf_free(&c->r.rtext);
    gp_buf_free(&c->r.pend);
    gp_buf_free(&c->r.json_pre);
    gp_buf_free(&c->r.json_suf);
    gp_buf_free(&c->r.kinds);
    gp_render_free(&c->r.rd);
    free(c->r.ts);
    free(c);
}

/* accept failed for want of a descriptor (or of memory for one). The
 * listener is level-triggered: left in the epoll set, it would wake the loop
 * again at once while the connection waits in the backlog, a core spent on
 * failing accepts and taken from the client being measured on the same
 * host. So it leaves the set until a connection closes (the loop's reap) or,
 * should none close, for 1 s; the waiting connections stay in the listen
 * backlog meanwhile. Said on stderr once per run. */
static void accept_pause(struct srv *s, int e)
{
    gp_evloop_del(&s->L, s->lfd);
    s->accept_paused = 1;
    s->accept_retry_ns = gp_now_ns() + 1000000000ull;
    if (s->n_accept_pauses++)
        return;
    struct rlimit rl = {0};
    getrlimit(RLIMIT_NOFILE, &rl);
    fprintf(stderr,
            "genperf serve: out of %s (accept: %s) with %u connections open, RLIMIT_NOFILE %llu: not accepting "
            "until one closes, new connections wait in the listen backlog; raise the limit (ulimit -n) for more "
            "(said once; a line at shutdown counts these pauses)\n",
            e == EMFILE || e == ENFILE ? "file descriptors" : "memory", strerror(e), s->nconns,
            (unsigned long long)rl.rlim_cur);
}

void srv_accept_resume(struct srv *s)
{
    int rc = gp_evloop_add(&s->L, s->lfd, EPOLLIN, SRV_TAG_LISTEN);
    if (rc == 0 || rc == -EEXIST)
        s->accept_paused = 0;
    else
        s->accept_retry_ns = gp_now_ns() + 1000000000ull;
}

void srv_on_accept(struct srv *s)
{
    for (;;) {
        int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                accept_pause(s, errno);
            return; /* EAGAIN: the backlog is empty */
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct conn *c = conn_new(s, fd);
        if (!c) {
            close(fd);
            continue;
        }
        if (gp_evloop_add(&s->L, fd, EPOLLIN | EPOLLRDHUP, c->idx)) {
            srv_conn_close(s, c);
            continue;
        }
        srv_set_timer(s, c, c->t_accept_ns + s->idle_ns, T_IDLE);
    }
}

const char *srv_on_readable(struct srv *s, struct conn *c)
{
    for (;;) {
        ssize_t n = recv(c->fd, s->rbuf, s->rbuf_cap, 0);
        if (n > 0) {
            if (c->in.len + (size_t)n > s->o->max_body + GP_HTTP_MAX_HEAD * 2)
                return "input_overflow";
            gp_buf_append(&c->in, s->rbuf, (size_t)n);
            if ((size_t)n < s->rbuf_cap)
                break;
            continue;
        }
        if (n == 0)
            return c->r.state ? "client_closed" : "closed";
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        return "client_reset";
    }
    return NULL;
}

/* ---- timers ---------------------------------------------------------------- */

/* A timer's arg: the connection's slot above, its kind below (key: the
 * connection's token, so a bumped token cancels it). */
void srv_set_timer(struct srv *s, struct conn *c, uint64_t t, int kind)
{
    c->tok = ++s->tok_seq;
    if (gp_evloop_timer_add(&s->L, t, c->tok, (uint64_t)c->idx << 32 | (uint32_t)kind))
        srv_conn_close(s, c); /* out of memory: drop the connection rather than hang it */
}

void srv_cancel_timer(struct srv *s, struct conn *c)
{
    (void)s;
    c->tok = 0;
}

/* ---- output: the end-of-turn flush, deferred close, send stamps ---------------- */

void srv_mark_dirty(struct srv *s, struct conn *c)
{
    if (!c->dirty && !c->closing) {
        c->dirty = 1;
        c->next_dirty = s->dirty;
        s->dirty = c;
    }
}

void srv_mark_ready(struct srv *s, struct conn *c)
{
    if (!c->ready && !c->closing) {
        c->ready = 1;
        c->next_ready = s->ready;
        s->ready = c;
    }
}

void srv_conn_close(struct srv *s, struct conn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    c->next_close = s->closing;
    s->closing = c;
}

static void ep_mod(struct srv *s, struct conn *c, int want_out)
{
    if (c->epout == want_out)
        return;
    if (gp_evloop_mod(&s->L, c->fd, EPOLLIN | EPOLLRDHUP | (want_out ? EPOLLOUT : 0), c->idx) == 0)
        c->epout = want_out;
}

void srv_conn_flush(struct srv *s, struct conn *c)
{
    if (c->closing)
        return;
    while (c->out_off < c->out.len) {
        uint64_t t = gp_now_ns();
        ssize_t n = send(c->fd, c->out.data + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
        if (n > 0) {
            srv_stamp_pending(&c->r, t);
            c->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            ep_mod(s, c, 1);
            return;
        }
        srv_conn_close(s, c);
        return;
    }
    gp_buf_reset(&c->out);
    c->out_off = 0;
    if (c->out.cap > 4 * OUT_HIGH_WATER && !c->r.state) {
        gp_buf_free(&c->out); /* give back what a big body needed */
    }
    ep_mod(s, c, 0);
    if (c->waiting_drain) {
        c->waiting_drain = 0;
        srv_mark_ready(s, c);
    }
    if (c->close_after_write)
        srv_conn_close(s, c);
}

void srv_stamp(struct sreq *r, char kind)
{
    /* reserve a slot; the time is filled in when the bytes reach send() */
    if (!r->logged)
        return;
    if (r->nts == r->cts) {
        uint32_t nc = r->cts ? r->cts * 2 : 64;
        uint64_t *p = realloc(r->ts, nc * sizeof *p);
        if (!p)
            return;
        r->ts = p;
        r->cts = nc;
    }
    r->ts[r->nts++] = 0;
    gp_buf_putc(&r->kinds, kind);
}

void srv_stamp_pending(struct sreq *r, uint64_t t)
{
    while (r->stamped < r->nts)
        r->ts[r->stamped++] = t;
}
