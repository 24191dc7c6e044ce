/* serve/server.c — the entry point and event loop behind `genperf serve`,
 * the top of its layers: set-up and tear-down, the loop's turn on
 * core/evloop.h, and what a timer does when it fires. May call every layer
 * (serve/srv_req.h and below); nothing calls into it but gp_serve_run's
 * callers. How the server works, and which file does what:
 * serve/server_internal.h. */
#include "serve/server.h"
#include "serve/srv_req.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/evloop.h"
#include "tokenizer/tokenizer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

void gp_serve_opts_default(struct gp_serve_opts *o)
{
    memset(o, 0, sizeof *o);
    o->host = "127.0.0.1";
    o->port = 8000;
    o->flavor = GP_FLAVOR_VLLM;
    o->model = "genperf-sim";
    o->tokenizer = "builtin";
    o->seed = 0;
    o->ttft_ms = -1;
    o->itl_ms = -1;
    o->prefill_us_per_token = 20;
    o->decode_step_ms = 5;
    o->decode_step_per_seq_us = 20;
    o->max_batch = 256;
    o->kv_tokens = 1u << 20;
    o->max_batched_tokens = 8192;
    o->max_tokens_default = 256;
    o->max_model_len = 131072;
    o->idle_timeout_s = 5;
    o->max_body = 64u << 20;
    o->stall_s = 2;
    o->stream_interval = 1;
}

/* ---- timers: what one does when it fires (srv_set_timer arms them) ------- */

static void on_timer(struct srv *s, const struct gp_timer *t)
{
    uint32_t idx = (uint32_t)(t->arg >> 32);
    if (idx >= s->nslots)
        return;
    struct conn *c = s->slots[idx];
    if (!c || c->tok != t->key || c->closing)
        return;
    c->tok = 0;
    switch ((uint32_t)t->arg) {
    case T_IDLE:
        if (c->r.state == R_NONE && !srv_queued(c))
            srv_conn_close(s, c);
        break;
    case T_TOKEN:
        srv_pump(s, c);
        break;
    case T_HOLD:
        srv_begin_generation(s, c);
        break;
    case T_KEEPALIVE:
        if (c->r.state == R_GEN) {
            gp_buf_puts(&s->scratch, ": keep-alive\n\n"); /* vLLM's SSE_KEEP_ALIVE_COMMENT */
            srv_put_chunk(s, c);
            srv_stamp(&c->r, 'K');
            c->r.t_ka_ref_ns = gp_now_ns();
            srv_pump(s, c);
        }
        break;
    case T_STALL:
        if (s->mode == MODE_BATCH) {
            gp_sim_add(&s->sim, &c->r.sq, gp_now_ns());
            c->r.sq.generated = c->r.generated;
            c->r.active = 1;
        } else {
            srv_pump(s, c);
        }
        break;
    }
}

/* ---- the loop ------------------------------------------------------------- */

static int open_listener(struct srv *s, struct gp_error *err)
{
    const struct gp_serve_opts *o = s->o;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *ai = NULL;
    char port[16];
    snprintf(port, sizeof port, "%d", o->port);
    int rc = getaddrinfo(o->host, port, &hints, &ai);
    if (rc)
        return gp_err(err, GP_EINVAL, "--host %s: %s", o->host, gai_strerror(rc));
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        freeaddrinfo(ai);
        return gp_err(err, GP_ENET, "socket: %s", strerror(errno));
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen)) {
        int e = errno;
        freeaddrinfo(ai);
        close(fd);
        return gp_err(err, GP_ENET, "cannot listen on %s:%d: %s (pick another --port, or --port 0)", o->host,
                      o->port, strerror(e));
    }
    freeaddrinfo(ai);
    s->lfd = fd;
    return 0;
}

static int bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len))
        return -1;
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void flush_dirty(struct srv *s)
{
    while (s->dirty) {
        struct conn *c = s->dirty;
        s->dirty = c->next_dirty;
        c->dirty = 0;
        srv_conn_flush(s, c);
    }
}

static void run_ready(struct srv *s)
{
    struct conn *list = s->ready;
    s->ready = NULL;
    while (list) {
        struct conn *c = list;
        list = c->next_ready;
        c->ready = 0;
        if (c->closing)
            continue;
        if (c->r.state == R_NONE)
            srv_process_input(s, c);
        else
            srv_pump(s, c);
    }
}

/* Frees the connections closed this turn; returns how many. */
static int reap(struct srv *s)
{
    int n = 0;
    while (s->closing) {
        struct conn *c = s->closing;
        s->closing = c->next_close;
        srv_conn_free(s, c);
        n++;
    }
    return n;
}

/* The timing mode and the durations the options ask for (no resources yet). */
static void srv_configure(struct srv *s, const struct gp_serve_opts *o)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    s->L.ep = s->lfd = s->sfd = -1;
    srv_metrics_init(s);
    if (o->zero_delay) {
        s->mode = MODE_ZERO;
    } else if (o->ttft_ms >= 0 || o->itl_ms >= 0) {
        s->mode = MODE_FIXED;
        s->ttft_ns = o->ttft_ms > 0 ? (uint64_t)(o->ttft_ms * 1e6) : 0;
        s->itl_ns = o->itl_ms > 0 ? (uint64_t)(o->itl_ms * 1e6) : 0;
    } else {
        s->mode = MODE_BATCH;
    }
    s->slow_headers_ns = o->slow_headers_ms > 0 ? (uint64_t)(o->slow_headers_ms * 1e6)
                         : o->rate_slow_headers > 0 ? 1000000000ull : 0;
    s->stall_ns = o->stall_s > 0 ? (uint64_t)(o->stall_s * 1e9) : 0;
    s->lora_ttft_ns = o->lora_ttft_ms > 0 ? (uint64_t)(o->lora_ttft_ms * 1e6) : 0;
    s->ka_ns = o->sse_keep_alive_s > 0 ? (uint64_t)(o->sse_keep_alive_s * 1e9) : 0;
    s->idle_ns = o->idle_timeout_s > 0 ? (uint64_t)(o->idle_timeout_s * 1e9) : 5000000000ull;
    struct gp_sim_cfg sc = {
        .decode_step_ns = (uint64_t)(o->decode_step_ms * 1e6),
        .per_seq_ns = (uint64_t)(o->decode_step_per_seq_us * 1e3),
        .prefill_ns_per_token = (uint64_t)(o->prefill_us_per_token * 1e3),
        .max_batch = o->max_batch,
        .kv_tokens = o->kv_tokens,
        .max_batched_tokens = o->max_batched_tokens,
    };
    gp_sim_init(&s->sim, &sc);
}

/* Tokenizer and emit table, read buffer, timing log, epoll set, signalfd
 * and the bound (not yet listening) socket. */
static int srv_open(struct srv *s, struct gp_error *err)
{
    const struct gp_serve_opts *o = s->o;
    int rc = gp_tokenizer_load(o->tokenizer, NULL, &s->tok, err);
    if (rc)
        return rc;
    if ((rc = srv_toktab_build(s->tok, &s->tt, err)))
        return rc;
    s->rbuf_cap = 64 * 1024;
    if (!(s->rbuf = malloc(s->rbuf_cap)))
        return gp_err(err, GP_ENOMEM, "out of memory");
    if ((rc = srv_log_open(s, err)))
        return rc;
    if ((rc = gp_evloop_init(&s->L, SRV_MAX_EVENTS, err)))
        return rc;
    sigset_t ss;
    sigemptyset(&ss);
    sigaddset(&ss, SIGTERM);
    sigaddset(&ss, SIGINT);
    s->sfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
    if (s->sfd < 0)
        return gp_err(err, GP_EIO, "signalfd: %s", strerror(errno));
    return open_listener(s, err);
}

/* --load-s, listen(), the port file and the banner. Returns 0, 1 when a
 * signal came while "loading" (a clean exit), or a negative code. */
static int srv_start(struct srv *s, struct gp_error *err)
{
    const struct gp_serve_opts *o = s->o;
    /* --load-s: vLLM and TRT-LLM bind early but listen only once the model is
     * loaded (connections are refused meanwhile); SGLang listens at once and
     * answers 503 on its health routes until warm-up is over */
    if (o->load_s > 0 && o->flavor != GP_FLAVOR_SGLANG) {
        struct pollfd pf = {.fd = s->sfd, .events = POLLIN};
        int pr = poll(&pf, 1, (int)(o->load_s * 1000));
        if (pr > 0)
            return 1; /* SIGTERM while "loading": a clean exit */
    }
    s->ready_at_ns = o->flavor == GP_FLAVOR_SGLANG && o->load_s > 0 ? gp_now_ns() + (uint64_t)(o->load_s * 1e9) : 0;
    if (listen(s->lfd, 4096))
        return gp_err(err, GP_ENET, "cannot listen on %s:%d: %s", o->host, o->port, strerror(errno));
    gp_evloop_add(&s->L, s->lfd, EPOLLIN, SRV_TAG_LISTEN);
    gp_evloop_add(&s->L, s->sfd, EPOLLIN, SRV_TAG_SIGNAL);

    int port = bound_port(s->lfd);
    char url[300];
    int v6 = strchr(o->host, ':') != NULL;
    snprintf(url, sizeof url, v6 ? "http://[%s]:%d" : "http://%s:%d", o->host, port);
    int rc;
    if (o->port_file && (rc = gp_write_file_atomic(o->port_file, url, strlen(url), err)))
        return rc;
    printf("genperf serve: listening on %s\n", url);
    fflush(stdout);
    long chk = srv_toktab_selfcheck(s->tok, &s->tt, 200);
    if (chk != 200)
        fprintf(stderr, "genperf serve: warning: 200 emitted tokens re-encode to %ld with tokenizer %s; "
                        "client token counts will differ from usage\n", chk, gp_tokenizer_source(s->tok));
    if (!o->quiet) {
        const char *mn = s->mode == MODE_ZERO ? "zero-delay" : s->mode == MODE_FIXED ? "fixed delays" : "batching model";
        fprintf(stderr, "genperf serve: flavor %s, model %s, %s, %u emit tokens from tokenizer %s\n",
                gp_flavor_name(o->flavor), o->model, mn, s->tt.n, gp_tokenizer_source(s->tok));
    }
    return 0;
}

/* How long the loop may sleep: until the next timer or engine step. */
static uint64_t wait_budget(const struct srv *s, uint64_t now)
{
    if (s->ready || s->dirty)
        return 0;
    uint64_t w = UINT64_MAX;
    gp_deadline_cap(&w, now, gp_evloop_timer_next(&s->L));
    gp_deadline_cap(&w, now, s->sim.step_end_ns);
    if (s->accept_paused)
        gp_deadline_cap(&w, now, s->accept_retry_ns);
    return w;
}

static void dispatch(struct srv *s, const struct epoll_event *ev)
{
    uint64_t id = ev->data.u64;
    if (id == SRV_TAG_LISTEN) {
        srv_on_accept(s);
        return;
    }
    if (id == SRV_TAG_SIGNAL) {
        struct signalfd_siginfo si;
        while (read(s->sfd, &si, sizeof si) == (ssize_t)sizeof si)
            s->stop = 1;
        return;
    }
    if (id >= s->nslots || !s->slots[id])
        return;
    struct conn *c = s->slots[id];
    if (c->closing)
        return;
    if (ev->events & EPOLLOUT)
        srv_conn_flush(s, c);
    if (c->closing || !(ev->events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)))
        return;
    /* the IO layer reads; what the bytes mean is the request layer's */
    const char *gone = srv_on_readable(s, c);
    if (gone)
        srv_conn_abort(s, c, gone);
    else
        srv_process_input(s, c);
}

/* Runs until SIGTERM/SIGINT; a negative code when epoll fails. */
static int srv_loop(struct srv *s, struct gp_error *err)
{
    while (!s->stop) {
        uint64_t now = gp_now_ns();
        int n = gp_evloop_wait(&s->L, wait_budget(s, now));
        if (n < 0)
            return gp_err(err, GP_EIO, "epoll_wait: %s", strerror(errno));
        for (int i = 0; i < n; i++)
            dispatch(s, &s->L.ev[i]);
        now = gp_now_ns();
        struct gp_timer t;
        while (gp_evloop_timer_due(&s->L, now, &t))
            on_timer(s, &t);
        if (s->sim.step_end_ns && s->sim.step_end_ns <= now)
            gp_sim_step(&s->sim, now, srv_sim_emit, s);
        run_ready(s);
        flush_dirty(s);
        /* a closed connection gave a descriptor back: accept again */
        int freed = reap(s);
        if (s->accept_paused && (freed || gp_now_ns() >= s->accept_retry_ns))
            srv_accept_resume(s);
    }
    return 0;
}

/* Aborts what is still open, commits the timing log, frees everything.
 * Returns rc, or the timing log's error when rc is 0. */
static int srv_close(struct srv *s, int rc, struct gp_error *err)
{
    for (uint32_t i = 0; i < s->nslots; i++)
        if (s->slots && s->slots[i] && !s->slots[i]->closing)
            srv_conn_abort(s, s->slots[i], "shutdown");
    reap(s);
    int lrc = srv_log_close(s, rc ? NULL : err);
    if (!rc)
        rc = lrc;
    gp_buf_free(&s->scratch);
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->sfd >= 0)
        close(s->sfd);
    free(s->rbuf);
    free(s->slots);
    free(s->freelist);
    gp_evloop_free(&s->L);
    srv_toktab_free(&s->tt);
    srv_pcache_free(&s->pcache);
    gp_tokenizer_free(s->tok);
    return rc;
}

int gp_serve_run(const struct gp_serve_opts *o, struct gp_error *err)
{
    struct srv S;
    struct srv *s = &S;
    srv_configure(s, o);
    int rc = srv_open(s, err);
    if (!rc)
        rc = srv_start(s, err);
    if (rc == 1)
        rc = 0;
    else if (!rc) {
        /* an epoll failure ends the loop with err filled; the exit status has
         * always been 0 then (kept as it was by the split of this file) */
        srv_loop(s, err);
        if (!o->quiet)
            fprintf(stderr, "genperf serve: shutting down after %llu requests (%llu tokens)\n",
                    (unsigned long long)s->n_requests, (unsigned long long)s->gen_total);
        if (!o->quiet && s->n_accept_pauses)
            fprintf(stderr, "genperf serve: accepting paused %llu times for want of file descriptors or memory\n",
                    (unsigned long long)s->n_accept_pauses);
    }
    return srv_close(s, rc, err);
}
