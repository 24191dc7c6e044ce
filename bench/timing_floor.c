/* bench/timing_floor.c — the least a client can do to send streaming
 * requests and timestamp their chunks: N keep-alive HTTP/1.1 connections on
 * one epoll set (level-triggered), the request written with one write(),
 * CLOCK_MONOTONIC read right after each read(), no HTTP library, no JSON
 * parser. Run against the same server, load and host as `genperf profile`,
 * its error against `genperf serve --timing-log` is the floor this machine
 * sets (scheduling, loopback); genperf's figure beside it says how much the
 * client adds. bench/timing_bench.sh and bench/ttft_start_bench.sh run it.
 *
 *   timing_floor --url http://HOST:PORT --streams N --requests R
 *                [--rate RPS (Poisson arrivals, at most N in flight;
 *                 0 = closed loop: each connection sends its next request
 *                 as soon as the last one ended)] [--osl K] [--isl-words W]
 *                [--out FILE] [--seed S]
 *
 * Writes one JSON line per request to --out, {"id", "t0", "t": [...]}: the
 * completion id (every chunk carries it), the monotonic ns just before the
 * request's write() (the TTFT start) and one monotonic ns per content event
 * (the read that completed it), for bench/timing_compare.py --floor.
 * Prints one JSON line: {"requests", "events", "failed", "wall_s"}.
 * Connections open lazily (the first request of a connection pays connect(),
 * as genperf's does) and are reused; the server's chunked framing is not
 * decoded: SSE events are found by their "\n\n" and a response ends with the
 * last-chunk marker "\r\n0\r\n\r\n".
 */
#include "core/clock.h"
#include "core/rng.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RBUF (64 * 1024)
#define EV_MAX 512

struct conn {
    int fd;
    int busy;
    char *buf;         /* bytes of the current response not yet split into events */
    size_t len, cap;
    char tail[8];      /* the last bytes received: the end marker may span reads */
    char id[96];
    uint64_t t0;
    uint64_t *t;       /* one stamp per content event */
    size_t nt, tcap;
};

struct floor_run {
    struct sockaddr_in addr;
    char host[64];
    int osl, isl_words;
    int epfd;
    FILE *out;
    long started, done, failed, events;
};

static void die(const char *what)
{
    fprintf(stderr, "timing_floor: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int open_conn(struct floor_run *F)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die("socket");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&F->addr, sizeof F->addr) < 0)
        die("connect");
    return fd;
}

static int send_request(struct floor_run *F, struct conn *c, long i)
{
    char body[4096], req[5120];
    int bl = snprintf(body, sizeof body,
                      "{\"model\":\"sim\",\"stream\":true,\"max_tokens\":%d,\"min_tokens\":%d,\"ignore_eos\":true,"
                      "\"messages\":[{\"role\":\"user\",\"content\":\"floor %ld",
                      F->osl, F->osl, i);
    for (int w = 0; w < F->isl_words && bl < (int)sizeof body - 64; w++)
        bl += snprintf(body + bl, sizeof body - (size_t)bl, " hello");
    bl += snprintf(body + bl, sizeof body - (size_t)bl, "\"}]}");
    int rl = snprintf(req, sizeof req,
                      "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                      "Content-Length: %d\r\n\r\n%s",
                      F->host, bl, body);
    if (c->fd < 0) {
        c->fd = open_conn(F);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(F->epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0)
            die("epoll_ctl");
    }
    c->len = c->nt = 0;
    c->id[0] = '\0';
    memset(c->tail, 0, sizeof c->tail);
    c->t0 = gp_now_ns();
    ssize_t n = write(c->fd, req, (size_t)rl);
    if (n != rl)
        return -1;
    c->busy = 1;
    F->started++;
    return 0;
}

static void put_stamp(struct conn *c, uint64_t t)
{
    if (c->nt == c->tcap) {
        c->tcap = c->tcap ? c->tcap * 2 : 128;
        if (!(c->t = realloc(c->t, c->tcap * sizeof *c->t)))
            die("realloc");
    }
    c->t[c->nt++] = t;
}

/* Splits off every complete SSE event in c->buf: the first one carrying an
 * "id" names the request; each with non-empty "content" gets stamp t. */
static void scan_events(struct floor_run *F, struct conn *c, uint64_t t)
{
    size_t pos = 0;
    for (;;) {
        char *e = memmem(c->buf + pos, c->len - pos, "\n\n", 2);
        if (!e)
            break;
        size_t n = (size_t)(e - (c->buf + pos));
        const char *ev = c->buf + pos;
        if (!c->id[0]) {
            const char *p = memmem(ev, n, "\"id\":\"", 6);
            if (p) {
                p += 6;
                size_t k = 0;
                while (p + k < ev + n && p[k] != '"' && k + 1 < sizeof c->id)
                    k++;
                memcpy(c->id, p, k);
                c->id[k] = '\0';
            }
        }
        const char *p = memmem(ev, n, "\"content\":\"", 11);
        if (p && p + 11 < ev + n && p[11] != '"') {
            put_stamp(c, t);
            F->events++;
        }
        pos += n + 2;
    }
    memmove(c->buf, c->buf + pos, c->len - pos);
    c->len -= pos;
}

static void finish(struct floor_run *F, struct conn *c, int ok)
{
    if (ok) {
        fprintf(F->out, "{\"id\":\"%s\",\"t0\":%llu,\"t\":[", c->id, (unsigned long long)c->t0);
        for (size_t i = 0; i < c->nt; i++)
            fprintf(F->out, "%s%llu", i ? "," : "", (unsigned long long)c->t[i]);
        fputs("]}\n", F->out);
    } else {
        F->failed++;
    }
    c->busy = 0;
    F->done++;
}

static void close_conn(struct floor_run *F, struct conn *c)
{
    epoll_ctl(F->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
}

/* One read on a ready connection; returns 1 when a response ended. */
static int on_readable(struct floor_run *F, struct conn *c, char *rb)
{
    ssize_t n = read(c->fd, rb, RBUF);
    uint64_t t = gp_now_ns();
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0) {
        /* closed: mid-response it is a failure; idle, just reconnect later */
        close_conn(F, c);
        if (c->busy) {
            finish(F, c, 0);
            return 1;
        }
        return 0;
    }
    if (!c->busy)
        return 0;
    if (c->len + (size_t)n > c->cap) {
        c->cap = (c->len + (size_t)n) * 2;
        if (!(c->buf = realloc(c->buf, c->cap)))
            die("realloc");
    }
    memcpy(c->buf + c->len, rb, (size_t)n);
    c->len += (size_t)n;
    /* the stream's last 7 bytes, for the end marker */
    char last[16];
    size_t keep = (size_t)n >= 7 ? 0 : 7 - (size_t)n;
    memcpy(last, c->tail + 7 - keep, keep);
    size_t take = (size_t)n < 7 ? (size_t)n : 7;
    memcpy(last + keep, rb + n - (ssize_t)take, take);
    memcpy(c->tail, last, 7);
    scan_events(F, c, t);
    if (!memcmp(c->tail, "\r\n0\r\n\r\n", 7)) {
        finish(F, c, 1);
        return 1;
    }
    return 0;
}

static int parse_url(struct floor_run *F, const char *url)
{
    const char *p = strstr(url, "//");
    p = p ? p + 2 : url;
    const char *colon = strrchr(p, ':');
    if (!colon || (size_t)(colon - p) >= sizeof F->host)
        return -1;
    memcpy(F->host, p, (size_t)(colon - p));
    F->host[colon - p] = '\0';
    F->addr.sin_family = AF_INET;
    F->addr.sin_port = htons((uint16_t)atoi(colon + 1));
    const char *h = strcmp(F->host, "localhost") ? F->host : "127.0.0.1";
    return inet_pton(AF_INET, h, &F->addr.sin_addr) == 1 ? 0 : -1;
}

static int wait_events(int epfd, struct epoll_event *ev, uint64_t wait_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(wait_ns / 1000000000ull), .tv_nsec = (long)(wait_ns % 1000000000ull)};
    int n = epoll_pwait2(epfd, ev, EV_MAX, &ts, NULL);
    if (n < 0 && errno == ENOSYS)
        n = epoll_wait(epfd, ev, EV_MAX, (int)(wait_ns / 1000000ull));
    return n < 0 && errno == EINTR ? 0 : n;
}

int main(int argc, char **argv)
{
    struct floor_run F;
    memset(&F, 0, sizeof F);
    const char *url = NULL, *out = "/dev/null";
    long streams = 0, requests = 0;
    double rate = 0;
    uint64_t seed = 1;
    F.osl = 64;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--url"))
            url = v;
        else if (!strcmp(k, "--streams"))
            streams = atol(v);
        else if (!strcmp(k, "--requests"))
            requests = atol(v);
        else if (!strcmp(k, "--rate"))
            rate = atof(v);
        else if (!strcmp(k, "--osl"))
            F.osl = atoi(v);
        else if (!strcmp(k, "--isl-words"))
            F.isl_words = atoi(v);
        else if (!strcmp(k, "--out"))
            out = v;
        else if (!strcmp(k, "--seed"))
            seed = strtoull(v, NULL, 10);
        else {
            fprintf(stderr, "timing_floor: unknown option %s (see the comment at the top of bench/timing_floor.c)\n", k);
            return 2;
        }
    }
    if (!url || streams < 1 || requests < 1 || parse_url(&F, url)) {
        fprintf(stderr, "timing_floor: need --url http://IPV4:PORT --streams N --requests R\n");
        return 2;
    }
    if (!(F.out = fopen(out, "w")))
        die(out);
    if ((F.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
        die("epoll_create1");
    struct conn *cs = calloc((size_t)streams, sizeof *cs);
    char *rb = malloc(RBUF);
    struct epoll_event *ev = malloc(EV_MAX * sizeof *ev);
    if (!cs || !rb || !ev)
        die("malloc");
    for (long i = 0; i < streams; i++)
        cs[i].fd = -1;
    struct gp_rng rng;
    gp_rng_seed(&rng, seed);
    uint64_t t_start = gp_now_ns();
    double next_due = 0; /* ns after t_start */
    long inflight = 0, free_hint = 0;

    while (F.done < requests) {
        uint64_t now = gp_now_ns();
        /* start what is due: closed loop fills every idle connection */
        while (F.started < requests && inflight < streams && (rate <= 0 || (double)(now - t_start) >= next_due)) {
            long k = free_hint;
            while (cs[k].busy)
                k = (k + 1) % streams;
            free_hint = (k + 1) % streams;
            if (send_request(&F, &cs[k], F.started) < 0) {
                close_conn(&F, &cs[k]);
                F.started++;
                finish(&F, &cs[k], 0);
                continue;
            }
            inflight++;
            if (rate > 0)
                next_due += -log(1.0 - gp_rng_double(&rng)) / rate * 1e9;
        }
        uint64_t wait_ns = 1000000000ull;
        if (rate > 0 && F.started < requests && inflight < streams) {
            double d = next_due - (double)(gp_now_ns() - t_start);
            wait_ns = d > 0 ? (uint64_t)d : 0;
        }
        int n = wait_events(F.epfd, ev, wait_ns);
        if (n < 0)
            die("epoll_wait");
        for (int i = 0; i < n; i++)
            if (on_readable(&F, ev[i].data.ptr, rb))
                inflight--;
    }
    double wall = (double)(gp_now_ns() - t_start) / 1e9;
    printf("{\"requests\":%ld,\"events\":%ld,\"failed\":%ld,\"wall_s\":%.3f}\n", F.done, F.events, F.failed, wall);
    fclose(F.out);
    for (long i = 0; i < streams; i++) {
        if (cs[i].fd >= 0)
            close(cs[i].fd);
        free(cs[i].buf);
        free(cs[i].t);
    }
    free(cs);
    free(rb);
    free(ev);
    close(F.epfd);
    return F.failed ? 1 : 0;
}
