/* serve/server.c — the event loop behind `genperf serve`.
 *
 * One thread, one epoll set, level-triggered. Per connection: an input
 * buffer (parsed in place by serve/http.c, pipelining-safe: only one request
 * is in flight per connection and the bytes after it wait in the buffer), an
 * output buffer that collects everything one event produces so it leaves in
 * a single send(), and at most one live timer. Timers live in a binary
 * min-heap keyed by (slot, token): cancelling a timer is bumping the
 * connection's token, stale heap entries are skipped when they surface.
 *
 * Three timing modes, chosen once: zero-delay (emit as fast as the socket
 * takes it), fixed delays (--ttft-ms/--itl-ms, per-request timers) and the
 * continuous-batching engine (serve/sim.c, one engine timer).
 *
 * Connections are freed only from the deferred close list at the end of a
 * loop iteration, so no callback can free something a caller still holds.
 */
#include "serve/server.h"
#include "serve/http.h"
#include "serve/render.h"
#include "serve/sim.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "tokenizer/tokenizer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define OUT_HIGH_WATER (64 * 1024)  /* stop rendering when this much is queued */
#define EMIT_BURST 256              /* most chunks one zero-delay pass renders */

enum mode { MODE_ZERO = 0, MODE_FIXED, MODE_BATCH };
enum rstate { R_NONE = 0, R_HOLD, R_GEN, R_DONE };
enum tkind { T_IDLE = 1, T_TOKEN, T_HOLD, T_STALL, T_KEEPALIVE };
enum fault {
    F_NONE = 0, F_429, F_500, F_503, F_STREAM_ERROR, F_RESET, F_STALL, F_MALFORMED, F_SLOW_HEADERS, F_COUNT
};
static const char *const fault_names[] = {NULL, "429", "500", "503", "stream_error", "reset", "stall", "malformed",
                                          "slow_headers"};

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

/* ---- rng ---------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double urand(uint64_t *x) { return (double)(splitmix(x) >> 11) * (1.0 / 9007199254740992.0); }

/* ---- tokens ------------------------------------------------------------ */

struct toktab {
    struct gp_buf esc;      /* every safe token's JSON-escaped text, back to back */
    uint32_t *off, *len;
    uint32_t n;
    int strip_first;        /* SentencePiece: a response's first token drops its space */
};

#define TOKTAB_MAX 2048     /* plenty of variety; scanning a whole 200k vocab costs seconds */

/* 1 if the tokenizer decodes single tokens without their word-initial space
 * (SentencePiece's Metaspace/Strip decoders): "a b" -> [a][b] -> "a"+"b". */
static int sp_style(struct gp_tokenizer *tok)
{
    struct gp_ids ids = {0};
    struct gp_buf one = {0}, all = {0};
    int sp = 0;
    if (!gp_tokenizer_encode(tok, "a b", 3, 0, &ids, NULL) && ids.n >= 2) {
        for (size_t i = 0; i < ids.n; i++)
            gp_tokenizer_decode(tok, &ids.v[i], 1, 1, &one, NULL);
        gp_tokenizer_decode(tok, ids.v, ids.n, 1, &all, NULL);
        sp = all.len == 3 && !memcmp(all.data, "a b", 3) && !(one.len == 3 && !memcmp(one.data, "a b", 3));
    }
    gp_ids_free(&ids);
    gp_buf_free(&one);
    gp_buf_free(&all);
    return sp;
}

/* A token is safe to emit when its text is letters with a leading space
 * (GPT-style byte-level BPE) and it encodes back to exactly itself: then any
 * concatenation of safe tokens re-encodes to the same number of tokens (the
 * pre-tokenizer splits on the spaces), so the client's count equals our
 * usage. SentencePiece tokenizers decode "\u2581word" as "word"; there the
 * word must encode to the token alone (the normalizer re-adds the \u2581),
 * we emit " word", and a response's first token drops the space, as the real
 * detokenizer does. The builtin byte tokenizer: lowercase letters and space. */
static int build_toktab(struct gp_tokenizer *tok, struct toktab *t, struct gp_error *err)
{
    size_t vocab = gp_tokenizer_vocab_size(tok);
    int bytewise = vocab <= 256;
    int sp = !bytewise && sp_style(tok);
    t->strip_first = sp;
    struct gp_buf txt = {0};
    struct gp_ids ids = {0};
    size_t cap = 0;
    for (uint32_t id = 0; id < vocab && t->n < TOKTAB_MAX; id++) {
        if (gp_tokenizer_is_special(tok, id))
            continue;
        gp_buf_reset(&txt);
        if (sp)
            gp_buf_putc(&txt, ' ');
        size_t pre = txt.len;
        if (gp_tokenizer_decode(tok, &id, 1, 1, &txt, NULL) || txt.len == pre || txt.len > 16)
            continue;
        size_t i = 0;
        if (bytewise) {
            if (!(txt.len == 1 && (txt.data[0] == ' ' || (txt.data[0] >= 'a' && txt.data[0] <= 'z'))))
                continue;
        } else {
            if (txt.data[0] != ' ' || txt.len < 2)
                continue;
            for (i = 1; i < txt.len; i++)
                if (!((txt.data[i] >= 'a' && txt.data[i] <= 'z') || (txt.data[i] >= 'A' && txt.data[i] <= 'Z')))
                    break;
            if (i != txt.len)
                continue;
            ids.n = 0;
            /* SentencePiece: the bare word must be this token (prefix space re-added) */
            const char *w = sp ? txt.data + 1 : txt.data;
            size_t wl = sp ? txt.len - 1 : txt.len;
            if (gp_tokenizer_encode(tok, w, wl, 0, &ids, NULL) || ids.n != 1 || ids.v[0] != id)
                continue;
        }
        if (t->n == cap) {
            cap = cap ? cap * 2 : 256;
            uint32_t *o = realloc(t->off, cap * sizeof *o), *l = o ? realloc(t->len, cap * sizeof *l) : NULL;
            if (o)
                t->off = o;
            if (!o || !l) {
                gp_buf_free(&txt);
                gp_ids_free(&ids);
                return gp_err(err, GP_ENOMEM, "out of memory building the token table");
            }
            t->len = l;
        }
        size_t before = t->esc.len;
        if (gp_buf_json_str(&t->esc, txt.data, txt.len)) {
            gp_buf_free(&txt);
            gp_ids_free(&ids);
            return gp_err(err, GP_ENOMEM, "out of memory building the token table");
        }
        /* keep the escaped text without its quotes */
        t->off[t->n] = (uint32_t)before + 1;
        t->len[t->n] = (uint32_t)(t->esc.len - before - 2);
        t->n++;
    }
    gp_buf_free(&txt);
    gp_ids_free(&ids);
    if (!t->n)
        return gp_err(err, GP_EINVAL,
                      "tokenizer '%s' has no plain-word tokens (\" word\") to emit; use --tokenizer builtin",
                      gp_tokenizer_source(tok));
    return 0;
}

/* Re-encodes a seeded sample the way a client sees it (first token possibly
 * without its space) and returns the token count, so start-up can warn when
 * client counts would not equal usage. */
static long toktab_selfcheck(struct gp_tokenizer *tok, const struct toktab *t, uint32_t n)
{
    struct gp_buf txt = {0};
    uint64_t r = 12345;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (uint32_t)(splitmix(&r) % t->n);
        const char *e = t->esc.data + t->off[i];
        size_t l = t->len[i];
        if (k == 0 && t->strip_first && l && e[0] == ' ') {
            e++;
            l--;
        }
        gp_buf_append(&txt, e, l); /* letters and spaces need no unescaping */
    }
    long c = gp_tokenizer_count(tok, txt.data ? txt.data : "", txt.len);
    gp_buf_free(&txt);
    return c;
}

static void toktab_free(struct toktab *t)
{
    gp_buf_free(&t->esc);
    free(t->off);
    free(t->len);
}

/* ---- histograms for /metrics ------------------------------------------- */

#define HMAX 24
struct hist {
    const double *le;
    int n;
    uint64_t cnt[HMAX + 1];
    double sum;
    uint64_t total;
};
static const double ttft_le[] = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
                                 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
static const double itl_le[] = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
                                0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
static const double e2e_le[] = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
                                30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};

static void hist_obs(struct hist *h, double v)
{
    int i = 0;
    while (i < h->n && v > h->le[i])
        i++;
    h->cnt[i]++;
    h->sum += v;
    h->total++;
}

/* ---- connection and request -------------------------------------------- */

struct conn;

struct sreq {
    int state;                 /* enum rstate */
    int endpoint, stream, include_usage, continuous_usage, http10;
    uint64_t seq;
    char id[64];
    char model[256];
    char prompt_head[80];
    uint32_t prompt_tokens, out_tokens, reasoning_n, generated;
    int finish;                /* GP_FINISH_* the request will end with */
    int fault;
    uint32_t fault_at;         /* token index (1-based) where a mid-stream fault fires */
    int fault_done;
    int active;                /* counted in the engine / running_fixed */
    int logged;                /* --timing-log: record chunk stamps */
    int headers_sent;
    int status;
    uint64_t rng;
    uint64_t t_request_ns, t_first_ns, t_last_ns, t_base_ns;
    uint64_t t_next_ns;        /* fixed/zero-delay: when the next token is due */
    uint64_t t_ka_ref_ns;      /* last event, for --sse-keep-alive-s */
    struct gp_render rd;
    struct gp_buf text, rtext;   /* non-streamed: escaped content / reasoning */
    struct gp_buf pend;          /* streamed: tokens waiting for their chunk (--stream-interval) */
    uint32_t pend_n;
    struct gp_sim_seq sq;
    uint64_t *ts;              /* timing log: one stamp per SSE event (or body) */
    uint32_t nts, cts, stamped;
    struct gp_buf kinds;       /* one letter per stamped event, see docs/serve.md */
};

struct conn {
    int fd;
    uint32_t idx;
    uint64_t tok;              /* the live timer's token */
    struct gp_buf in, out, body;
    size_t out_off;
    int epout, closing, close_after_write, rst, dirty, ready, sent_continue, keep_alive;
    int waiting_drain;         /* generation paused until out drains */
    uint64_t t_accept_ns;
    struct conn *next_dirty, *next_ready, *next_close;
    struct sreq r;
};

struct tmr {
    uint64_t t;
    uint64_t tok;
    uint32_t idx;
    uint32_t kind;
};

struct srv {
    const struct gp_serve_opts *o;
    int mode;
    int ep, lfd, sfd;
    struct gp_tokenizer *tok;
    struct toktab tt;
    struct conn **slots;
    uint32_t nslots, cap_slots;
    uint32_t *freelist;
    uint32_t nfree;
    uint32_t nconns;
    struct tmr *heap;
    size_t nheap, cap_heap;
    uint64_t tok_seq;
    struct gp_sim sim;
    struct conn *dirty, *ready, *closing;
    struct gp_buf scratch;
    char *rbuf;
    size_t rbuf_cap;
    uint64_t seq;
    uint64_t ttft_ns, itl_ns, slow_headers_ns, stall_ns, idle_ns, ka_ns;
    char date[40];
    time_t date_sec;
    /* timing log */
    struct gp_atomic_file logf;
    int log_open;
    struct gp_buf logbuf;
    /* metrics */
    uint64_t prompt_total, gen_total, succ_stop, succ_length, succ_abort, n_requests;
    uint32_t running_fixed;
    struct hist h_ttft, h_itl, h_e2e;
    int stop;
    uint64_t ready_at_ns;      /* SGLang --load-s: health answers 503 until then */
};

/* ---- timers -------------------------------------------------------------- */

static int tmr_less(const struct tmr *a, const struct tmr *b) { return a->t < b->t; }

static int heap_push(struct srv *s, struct tmr t)
{
    if (s->nheap == s->cap_heap) {
        size_t nc = s->cap_heap ? s->cap_heap * 2 : 1024;
        struct tmr *h = realloc(s->heap, nc * sizeof *h);
        if (!h)
            return -1;
        s->heap = h;
        s->cap_heap = nc;
    }
    size_t i = s->nheap++;
    while (i) {
        size_t p = (i - 1) / 2;
        if (!tmr_less(&t, &s->heap[p]))
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = t;
    return 0;
}

static struct tmr heap_pop(struct srv *s)
{
    struct tmr top = s->heap[0];
    struct tmr last = s->heap[--s->nheap];
    size_t i = 0, n = s->nheap;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct tmr *mv = &last;
        if (l < n && tmr_less(&s->heap[l], mv)) {
            m = l;
            mv = &s->heap[l];
        }
        if (r < n && tmr_less(&s->heap[r], mv))
            m = r;
        if (m == i)
            break;
        s->heap[i] = s->heap[m];
        i = m;
    }
    if (n)
        s->heap[i] = last;
    return top;
}

static void conn_close(struct srv *s, struct conn *c);

static void set_timer(struct srv *s, struct conn *c, uint64_t t, int kind)
{
    c->tok = ++s->tok_seq;
    struct tmr tm = {.t = t, .tok = c->tok, .idx = c->idx, .kind = (uint32_t)kind};
    if (heap_push(s, tm))
        conn_close(s, c); /* out of memory: drop the connection rather than hang it */
}

static void cancel_timer(struct srv *s, struct conn *c)
{
    (void)s;
    c->tok = 0;
}

/* ---- output -------------------------------------------------------------- */

static void mark_dirty(struct srv *s, struct conn *c)
{
    if (!c->dirty && !c->closing) {
        c->dirty = 1;
        c->next_dirty = s->dirty;
        s->dirty = c;
    }
}

static void mark_ready(struct srv *s, struct conn *c)
{
    if (!c->ready && !c->closing) {
        c->ready = 1;
        c->next_ready = s->ready;
        s->ready = c;
    }
}

static void conn_close(struct srv *s, struct conn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    c->next_close = s->closing;
    s->closing = c;
}

static void update_date(struct srv *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec == s->date_sec)
        return;
    s->date_sec = ts.tv_sec;
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    strftime(s->date, sizeof s->date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

static void stamp(struct sreq *r, char kind)
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

static void stamp_pending(struct sreq *r, uint64_t t)
{
    while (r->stamped < r->nts)
        r->ts[r->stamped++] = t;
}

static void ep_mod(struct srv *s, struct conn *c, int want_out)
{
    if (c->epout == want_out)
        return;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | (want_out ? EPOLLOUT : 0), .data.u32 = c->idx};
    if (epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev) == 0)
        c->epout = want_out;
}

static void conn_flush(struct srv *s, struct conn *c)
{
    if (c->closing)
        return;
    while (c->out_off < c->out.len) {
        uint64_t t = gp_now_ns();
        ssize_t n = send(c->fd, c->out.data + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
        if (n > 0) {
            stamp_pending(&c->r, t);
            c->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            ep_mod(s, c, 1);
            return;
        }
        conn_close(s, c);
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
        mark_ready(s, c);
    }
    if (c->close_after_write)
        conn_close(s, c);
}

static size_t queued(const struct conn *c) { return c->out.len - c->out_off; }

/* Appends s->scratch to c->out as one HTTP chunk (or raw for HTTP/1.0). */
static int put_chunk(struct srv *s, struct conn *c)
{
    int rc = 0;
    if (!c->r.http10) {
        char hx[20];
        int n = snprintf(hx, sizeof hx, "%zx\r\n", s->scratch.len);
        rc |= gp_buf_append(&c->out, hx, (size_t)n);
        rc |= gp_buf_append(&c->out, s->scratch.data, s->scratch.len);
        rc |= gp_buf_append(&c->out, "\r\n", 2);
    } else {
        rc |= gp_buf_append(&c->out, s->scratch.data, s->scratch.len);
    }
    gp_buf_reset(&s->scratch);
    mark_dirty(s, c);
    return rc;
}

static void put_headers(struct srv *s, struct conn *c, int status, const char *ctype, long long clen,
                        const char *extra)
{
    update_date(s);
    gp_buf_printf(&c->out, "HTTP/1.1 %d %s\r\ndate: %s\r\nserver: uvicorn\r\n", status, gp_http_reason(status),
                  s->date);
    if (clen >= 0)
        gp_buf_printf(&c->out, "content-length: %lld\r\n", clen);
    if (ctype)
        gp_buf_printf(&c->out, "content-type: %s\r\n", ctype);
    if (clen < 0 && !c->r.http10)
        gp_buf_puts(&c->out, "transfer-encoding: chunked\r\n");
    if (extra)
        gp_buf_puts(&c->out, extra);
    if (!c->keep_alive)
        gp_buf_puts(&c->out, "connection: close\r\n");
    gp_buf_puts(&c->out, "\r\n");
    mark_dirty(s, c);
}

static void send_simple(struct srv *s, struct conn *c, int status, const char *ctype, const char *body,
                        size_t len)
{
    put_headers(s, c, status, ctype, (long long)len, NULL);
    gp_buf_append(&c->out, body, len);
    if (!c->keep_alive)
        c->close_after_write = 1;
}

static void send_json_error(struct srv *s, struct conn *c, int status, const char *type, const char *msg,
                            const char *param)
{
    struct gp_buf b = {0};
    if (s->o->flavor == GP_FLAVOR_TRTLLM && status == 400 && type && !strcmp(type, "validation")) {
        gp_buf_puts(&b, "{\"error\":");
        gp_buf_json_str(&b, msg, strlen(msg));
        gp_buf_putc(&b, '}');
    } else
        gp_render_error_body(s->o->flavor, &b, status, type, msg, param);
    send_simple(s, c, status, "application/json", b.data ? b.data : "", b.len);
    gp_buf_free(&b);
}

/* ---- timing log and request lifecycle ------------------------------------ */

static void log_request(struct srv *s, struct conn *c, const char *outcome)
{
    struct sreq *r = &c->r;
    if (!s->log_open)
        return;
    struct gp_buf *b = &s->logbuf;
    stamp_pending(r, gp_now_ns());
    gp_buf_printf(b, "{\"seq\":%llu,\"id\":", (unsigned long long)r->seq);
    gp_buf_json_str(b, r->id, strlen(r->id));
    gp_buf_puts(b, ",\"model\":");
    gp_buf_json_str(b, r->model, strlen(r->model));
    gp_buf_printf(b, ",\"endpoint\":\"%s\",\"stream\":%s,\"prompt_head\":",
                  r->endpoint == GP_EP_CHAT ? "chat" : "completions", r->stream ? "true" : "false");
    gp_buf_json_str(b, r->prompt_head, strlen(r->prompt_head));
    gp_buf_printf(b, ",\"t_accept_ns\":%llu,\"t_request_ns\":%llu,\"t_first_token_ns\":%llu,\"chunks_ns\":[",
                  (unsigned long long)c->t_accept_ns, (unsigned long long)r->t_request_ns,
                  (unsigned long long)r->t_first_ns);
    uint32_t content = 0;
    for (uint32_t i = 0; i < r->nts; i++) {
        if (i)
            gp_buf_putc(b, ',');
        gp_buf_u64(b, r->ts[i]);
        if (i < r->kinds.len && r->kinds.data[i] == 'C')
            content++;
    }
    gp_buf_puts(b, "],\"kinds\":");
    gp_buf_json_str(b, r->kinds.data ? r->kinds.data : "", r->kinds.len);
    gp_buf_printf(b, ",\"content_chunks\":%u,\"completion_tokens\":%u,\"prompt_tokens\":%u,\"status\":%d,"
                  "\"finish_reason\":%s,\"outcome\":\"%s\",\"fault\":",
                  content, r->generated, r->prompt_tokens, r->status,
                  r->state == R_NONE || !r->generated ? "null"
                  : r->finish == GP_FINISH_STOP     ? "\"stop\""
                                                    : "\"length\"",
                  outcome);
    if (r->fault)
        gp_buf_printf(b, "\"%s\"}\n", fault_names[r->fault]);
    else
        gp_buf_puts(b, "null}\n");
    if (b->len > (1u << 20)) {
        fwrite(b->data, 1, b->len, s->logf.fp);
        gp_buf_reset(b);
    }
}

static void req_reset(struct sreq *r)
{
    r->state = R_NONE;
    r->nts = r->stamped = 0;
    gp_buf_reset(&r->kinds);
    gp_buf_reset(&r->text);
    gp_buf_reset(&r->rtext);
    gp_buf_reset(&r->pend);
    r->pend_n = 0;
    r->fault = 0;
    r->fault_done = 0;
    r->headers_sent = 0;
    r->generated = 0;
    r->t_first_ns = r->t_last_ns = 0;
    r->id[0] = r->model[0] = r->prompt_head[0] = '\0';
}

static void deactivate(struct srv *s, struct sreq *r)
{
    if (!r->active)
        return;
    r->active = 0;
    if (s->mode == MODE_BATCH)
        gp_sim_remove(&s->sim, &r->sq);
    else if (s->running_fixed)
        s->running_fixed--;
}

/* The response is complete in c->out: log it; the ready pass then serves
 * the next pipelined request or arms the idle timer (never recursively from
 * here: the caller may still hold pointers into c->in). */
static void req_finish(struct srv *s, struct conn *c, const char *outcome)
{
    struct sreq *r = &c->r;
    deactivate(s, r);
    log_request(s, c, outcome);
    req_reset(r);
    cancel_timer(s, c);
    if (!c->keep_alive) {
        c->close_after_write = 1;
        if (!queued(c))
            conn_close(s, c);
        return;
    }
    mark_ready(s, c);
}

/* Closes a connection in the middle of a response (client gone, reset). */
static void conn_abort(struct srv *s, struct conn *c, const char *outcome)
{
    if (c->r.state) {
        deactivate(s, &c->r);
        s->succ_abort++;
        log_request(s, c, outcome);
        req_reset(&c->r);
    }
    conn_close(s, c);
}

/* ---- generation ---------------------------------------------------------- */

static void start_stream_headers(struct srv *s, struct conn *c)
{
    struct sreq *r = &c->r;
    if (r->headers_sent || !r->stream)
        return;
    r->headers_sent = 1;
    put_headers(s, c, 200, "text/event-stream; charset=utf-8", -1, NULL);
}

static void end_stream(struct srv *s, struct conn *c)
{
    if (!c->r.http10)
        gp_buf_append(&c->out, "0\r\n\r\n", 5);
    else
        c->close_after_write = 1;
    mark_dirty(s, c);
}

static void metrics_done(struct srv *s, struct sreq *r, uint64_t now)
{
    s->gen_total += r->generated;
    if (r->finish == GP_FINISH_STOP)
        s->succ_stop++;
    else
        s->succ_length++;
    hist_obs(&s->h_e2e, (double)(now - r->t_request_ns) * 1e-9);
}

/* Arms the connection's timer for its next token, or for a keep-alive
 * comment first when the stream would otherwise stay silent too long. */
static void arm_next(struct srv *s, struct conn *c)
{
    struct sreq *r = &c->r;
    if (s->ka_ns && r->stream && r->headers_sent && r->t_next_ns > r->t_ka_ref_ns + s->ka_ns)
        set_timer(s, c, r->t_ka_ref_ns + s->ka_ns, T_KEEPALIVE);
    else
        set_timer(s, c, r->t_next_ns, T_TOKEN);
}

/* Emits output token number r->generated + 1. Returns 1 when the request
 * has ended (completed, failed or the connection is going away). */
static int emit_token(struct srv *s, struct conn *c, uint64_t now)
{
    struct sreq *r = &c->r;
    uint32_t k = r->generated + 1;
    if (r->fault && !r->fault_done && k == r->fault_at) {
        if (r->fault == F_RESET) {
            r->fault_done = 1;
            r->status = 0;
            c->rst = 1;
            conn_flush(s, c);
            conn_abort(s, c, "reset");
            return 1;
        }
        if (r->fault == F_STREAM_ERROR) {
            r->fault_done = 1;
            if (!r->stream) {
                r->state = R_DONE;
                r->status = 500;
                send_json_error(s, c, 500, "InternalServerError", "Internal server error", NULL);
                stamp(r, 'E');
                req_finish(s, c, "error");
                return 1;
            }
            start_stream_headers(s, c);
            if (s->o->flavor == GP_FLAVOR_TRTLLM) {
                /* TRT-LLM re-raises: the ASGI response dies without its terminator */
                conn_flush(s, c);
                conn_abort(s, c, "stream_error");
                return 1;
            }
            gp_render_stream_error(&r->rd, &s->scratch, 500, "InternalServerError",
                                   "Internal server error (injected by genperf serve --fault-rate-stream-error)");
            put_chunk(s, c);
            stamp(r, 'E');
            gp_render_done(&s->scratch);
            put_chunk(s, c);
            stamp(r, 'D');
            end_stream(s, c);
            r->state = R_DONE;
            req_finish(s, c, "stream_error");
            return 1;
        }
        if (r->fault == F_STALL) {
            r->fault_done = 1;
            if (s->mode == MODE_BATCH) {
                gp_sim_remove(&s->sim, &r->sq);
                r->active = 0;
            }
            r->t_next_ns = now + s->stall_ns;
            if (s->mode == MODE_BATCH)
                set_timer(s, c, now + s->stall_ns, T_STALL);
            else
                arm_next(s, c);
            return 0;
        }
    }
    int reasoning = r->generated < r->reasoning_n;
    uint32_t ti = (uint32_t)(splitmix(&r->rng) % s->tt.n);
    const char *esc = s->tt.esc.data + s->tt.off[ti];
    size_t elen = s->tt.len[ti];
    if (k == 1 && s->tt.strip_first && elen && esc[0] == ' ') {
        esc++;
        elen--;
    }
    r->generated = k;
    int last = k >= r->out_tokens;
    if (!r->t_first_ns) {
        r->t_first_ns = now;
        hist_obs(&s->h_ttft, (double)(now - r->t_request_ns) * 1e-9);
    } else {
        hist_obs(&s->h_itl, (double)(now - r->t_last_ns) * 1e-9);
    }
    r->t_last_ns = now;
    /* keep the absolute schedule while lateness is mere wake-up jitter (so the
     * ITL median is the configured one); a token later than half an ITL
     * restarts the schedule from now, as after a slow engine step, instead of
     * being caught up with a burst of short gaps */
    uint64_t due = r->t_next_ns;
    r->t_next_ns = now > due + s->itl_ns / 2 ? now + s->itl_ns : due + s->itl_ns;
    r->t_ka_ref_ns = now;
    if (!r->stream) {
        gp_buf_append(reasoning ? &r->rtext : &r->text, esc, elen);
        if (!last)
            return 0;
        struct gp_buf body = {0};
        gp_render_full(&r->rd, &body, r->text.data, r->text.len, r->rtext.data, r->rtext.len, r->finish,
                       r->generated, r->reasoning_n < r->generated ? r->reasoning_n : r->generated);
        if (r->fault == F_MALFORMED && body.len > 10)
            body.len -= 10; /* a torn body that still claims to be complete */
        r->status = 200;
        send_simple(s, c, 200, "application/json", body.data, body.len);
        gp_buf_free(&body);
        stamp(r, 'B');
        metrics_done(s, r, now);
        r->state = R_DONE;
        req_finish(s, c, "ok");
        return 1;
    }
    start_stream_headers(s, c);
    if (k == 1 && r->endpoint == GP_EP_CHAT) {
        gp_render_role(&r->rd, &s->scratch);
        put_chunk(s, c);
        stamp(r, 'R');
    }
    /* --stream-interval: the first token goes out at once (TTFT), then one
     * chunk per N tokens, and never one chunk mixing reasoning and content */
    gp_buf_append(&r->pend, esc, elen);
    r->pend_n++;
    int malformed = r->fault == F_MALFORMED && !r->fault_done && k == r->fault_at;
    if (!last && !malformed && k > 1 && r->pend_n < s->o->stream_interval && k != r->reasoning_n)
        return 0;
    if (malformed) {
        r->fault_done = 1;
        gp_render_malformed(&r->rd, &s->scratch);
        put_chunk(s, c);
        stamp(r, 'M');
    } else {
        gp_render_token(&r->rd, &s->scratch, r->pend.data, r->pend.len, reasoning,
                        last ? r->finish : GP_FINISH_NONE, k);
        put_chunk(s, c);
        stamp(r, 'C');
    }
    gp_buf_reset(&r->pend);
    r->pend_n = 0;
    if (!last)
        return 0;
    if (gp_render_separate_finish(&r->rd)) {
        gp_render_finish(&r->rd, &s->scratch, r->finish, k);
        put_chunk(s, c);
        stamp(r, 'F');
    }
    if (r->include_usage) {
        gp_render_usage(&r->rd, &s->scratch, k, r->reasoning_n < k ? r->reasoning_n : k);
        put_chunk(s, c);
        stamp(r, 'U');
    }
    gp_render_done(&s->scratch);
    put_chunk(s, c);
    stamp(r, 'D');
    end_stream(s, c);
    metrics_done(s, r, now);
    r->state = R_DONE;
    req_finish(s, c, "ok");
    return 1;
}


/* Fixed/zero-delay modes: emit every due token (bounded per pass), then arm
 * the next timer or join the ready list. */
static void pump(struct srv *s, struct conn *c)
{
    struct sreq *r = &c->r;
    if (c->closing || r->state != R_GEN)
        return;
    uint64_t now = gp_now_ns();
    int n = 0;
    while (r->state == R_GEN && !c->closing && r->t_next_ns <= now) {
        if (queued(c) >= OUT_HIGH_WATER || n >= EMIT_BURST)
            break;
        uint32_t before = r->generated;
        if (emit_token(s, c, now))
            return;
        if (r->generated == before)
            return; /* stalled: the stall timer resumes us */
        n++;
    }
    if (r->state != R_GEN || c->closing)
        return;
    uint64_t next = r->t_next_ns;
    if (next <= now) {
        if (queued(c) >= OUT_HIGH_WATER)
            c->waiting_drain = 1;
        else
            mark_ready(s, c);
    } else {
        arm_next(s, c);
    }
}

static void sim_emit(void *ctx, struct gp_sim_seq *q, int first, int last)
{
    struct srv *s = ctx;
    struct conn *c = (struct conn *)((char *)q - offsetof(struct conn, r) - offsetof(struct sreq, sq));
    (void)first;
    (void)last;
    if (c->closing || c->r.state != R_GEN)
        return;
    emit_token(s, c, gp_now_ns());
}

static void begin_generation(struct srv *s, struct conn *c)
{
    struct sreq *r = &c->r;
    uint64_t now = gp_now_ns();
    r->state = R_GEN;
    r->active = 1;
    r->t_base_ns = now;
    r->t_next_ns = now + s->ttft_ns;
    r->t_ka_ref_ns = now;
    if (s->o->flavor != GP_FLAVOR_SGLANG)
        start_stream_headers(s, c); /* Starlette sends the headers before the first body chunk */
    if (s->mode == MODE_BATCH) {
        r->sq.prompt_tokens = r->prompt_tokens;
        r->sq.out_tokens = r->out_tokens;
        gp_sim_add(&s->sim, &r->sq, now);
    } else {
        s->running_fixed++;
        pump(s, c);
    }
}

/* ---- request parsing ------------------------------------------------------ */

static void add_text(struct gp_tokenizer *tok, const char *t, size_t n, uint32_t *count, char *head, size_t headsz)
{
    long k = gp_tokenizer_count(tok, t, n);
    if (k > 0)
        *count += (uint32_t)k;
    if (!head[0] && n) {
        size_t m = n < headsz - 1 ? n : headsz - 1;
        if (m > 64)
            m = 64;
        /* do not cut a UTF-8 sequence in half */
        while (m < n && m > 0 && ((unsigned char)t[m] & 0xC0) == 0x80)
            m--;
        memcpy(head, t, m);
        head[m] = '\0';
    }
}

static int count_content(struct gp_tokenizer *tok, json_t *content, uint32_t *count, char *head, size_t headsz)
{
    if (json_is_string(content)) {
        add_text(tok, json_string_value(content), json_string_length(content), count, head, headsz);
        return 0;
    }
    if (json_is_array(content)) {
        size_t i;
        json_t *part;
        json_array_foreach(content, i, part) {
            json_t *txt = json_object_get(part, "text");
            if (json_is_string(txt))
                add_text(tok, json_string_value(txt), json_string_length(txt), count, head, headsz);
        }
        return 0;
    }
    return json_is_null(content) ? 0 : -1;
}

static const char *const trt_fields[] = {
    "messages", "prompt", "model", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs", "max_tokens",
    "max_completion_tokens", "n", "presence_penalty", "response_format", "seed", "stop", "stream",
    "stream_options", "temperature", "top_p", "tools", "tool_choice", "user", "best_of", "use_beam_search",
    "top_k", "top_p_min", "min_p", "repetition_penalty", "length_penalty", "early_stopping", "stop_token_ids",
    "include_stop_str_in_output", "ignore_eos", "min_tokens", "skip_special_tokens",
    "spaces_between_special_tokens", "truncate_prompt_tokens", "lora_request", "echo", "add_generation_prompt",
    "add_special_tokens", "documents", "chat_template", "chat_template_kwargs", "disaggregated_params",
    "reasoning_effort", "cache_salt", "prompt_ignore_length", "parallel_tool_calls", "suffix", "return_context_logits",
    "return_generation_logits", "detokenize", "prompt_token_ids", NULL};

static int trt_known(const char *k)
{
    for (int i = 0; trt_fields[i]; i++)
        if (!strcmp(trt_fields[i], k))
            return 1;
    return 0;
}

static int get_uint(json_t *obj, const char *key, long long *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v))
        return -1;
    *out = json_integer_value(v);
    return 1;
}

static int pick_fault(struct srv *s, uint64_t *rng)
{
    const struct gp_serve_opts *o = s->o;
    double rates[F_COUNT] = {0, o->rate_429, o->rate_500, o->rate_503, o->rate_stream_error, o->rate_reset,
                             o->rate_stall, o->rate_malformed, o->rate_slow_headers};
    double tot = 0;
    for (int i = 1; i < F_COUNT; i++)
        tot += rates[i];
    if (tot <= 0)
        return F_NONE;
    double u = urand(rng), acc = 0;
    for (int i = 1; i < F_COUNT; i++) {
        acc += rates[i];
        if (u < acc)
            return i;
    }
    return F_NONE;
}

static void handle_generate(struct srv *s, struct conn *c, const struct gp_http_req *hr, int endpoint)
{
    const struct gp_serve_opts *o = s->o;
    struct sreq *r = &c->r;
    int fl = o->flavor;
    r->endpoint = endpoint;
    r->t_request_ns = gp_now_ns();
    r->seq = s->seq++;
    s->n_requests++;
    r->logged = s->log_open;
    r->rng = o->seed * 0x9e3779b97f4a7c15ull + r->seq + 1;
    splitmix(&r->rng);
    r->status = 400;
    r->state = R_DONE;
    snprintf(r->model, sizeof r->model, "%s", o->model);

    if (fl != GP_FLAVOR_TRTLLM &&
        (!hr->content_type || hr->content_type_len < 16 || strncasecmp(hr->content_type, "application/json", 16))) {
        send_json_error(s, c, 400, "BadRequestError",
                        "Unsupported Media Type: Only 'application/json' is allowed", NULL);
        req_finish(s, c, "bad_request");
        return;
    }
    json_error_t jerr;
    json_t *root = json_loadb(hr->body ? hr->body : "", hr->body_len, 0, &jerr);
    if (!json_is_object(root)) {
        json_decref(root);
        send_json_error(s, c, 400, fl == GP_FLAVOR_TRTLLM ? "validation" : "BadRequestError",
                        "JSON decode error: the request body is not a JSON object", NULL);
        req_finish(s, c, "bad_request");
        return;
    }
    char msg[300];
    const char *bad = NULL, *param = NULL;
    json_t *jm = json_object_get(root, "model");
    if (json_is_string(jm)) {
        snprintf(r->model, sizeof r->model, "%s", json_string_value(jm));
    } else if (fl == GP_FLAVOR_TRTLLM) {
        bad = "1 validation error: model: Field required";
    }
    if (!bad && o->strict_model && json_is_string(jm) && strcmp(json_string_value(jm), o->model)) {
        json_decref(root);
        snprintf(msg, sizeof msg, "The model `%.200s` does not exist.", r->model);
        r->status = 404;
        send_json_error(s, c, 404, "NotFoundError", msg, "model");
        req_finish(s, c, "bad_request");
        return;
    }
    if (fl == GP_FLAVOR_VLLM)
        snprintf(r->model, sizeof r->model, "%s", o->model); /* vLLM answers with its served name */
    if (!bad && fl == GP_FLAVOR_TRTLLM) {
        const char *k;
        json_t *v;
        json_object_foreach(root, k, v) {
            if (!trt_known(k)) {
                snprintf(msg, sizeof msg, "1 validation error: %.200s: Extra inputs are not permitted", k);
                bad = msg;
                break;
            }
        }
    }
    uint32_t ptoks = 0;
    if (!bad) {
        if (endpoint == GP_EP_CHAT) {
            json_t *msgs = json_object_get(root, "messages");
            if (!json_is_array(msgs) || !json_array_size(msgs)) {
                bad = "'messages' is required: a non-empty list of {\"role\",\"content\"} objects";
                param = "messages";
            } else {
                size_t i;
                json_t *m;
                json_array_foreach(msgs, i, m) {
                    if (!json_is_object(m) || count_content(s->tok, json_object_get(m, "content"), &ptoks,
                                                            r->prompt_head, sizeof r->prompt_head)) {
                        bad = "each message must be an object whose 'content' is a string or a list of parts";
                        param = "messages";
                        break;
                    }
                }
            }
        } else {
            json_t *p = json_object_get(root, "prompt");
            if (json_is_string(p)) {
                add_text(s->tok, json_string_value(p), json_string_length(p), &ptoks, r->prompt_head,
                         sizeof r->prompt_head);
            } else if (json_is_array(p) && json_array_size(p)) {
                size_t i;
                json_t *e;
                json_array_foreach(p, i, e) {
                    if (json_is_string(e))
                        add_text(s->tok, json_string_value(e), json_string_length(e), &ptoks, r->prompt_head,
                                 sizeof r->prompt_head);
                    else if (json_is_integer(e))
                        ptoks++;
                    else if (json_is_array(e))
                        ptoks += (uint32_t)json_array_size(e);
                }
            } else {
                bad = "'prompt' is required: a string, a list of strings or a list of token ids";
                param = "prompt";
            }
        }
    }
    json_t *js = json_object_get(root, "stream");
    r->stream = json_is_true(js);
    r->http10 = hr->minor == 0;
    json_t *so = json_object_get(root, "stream_options");
    r->include_usage = 0;
    r->continuous_usage = 0;
    if (!bad && json_is_object(so)) {
        if (!r->stream && fl != GP_FLAVOR_SGLANG) {
            bad = "Stream options can only be defined when `stream=True`.";
            param = "stream_options";
        }
        json_t *iu = json_object_get(so, "include_usage");
        r->include_usage = fl == GP_FLAVOR_TRTLLM ? !json_is_false(iu) : json_is_true(iu);
        r->continuous_usage = json_is_true(json_object_get(so, "continuous_usage_stats"));
        if (!r->include_usage)
            r->continuous_usage = 0;
    }
    long long maxt = o->max_tokens_default, mint = 0, v = 0;
    int have_max = 0;
    if (!bad) {
        int g1 = get_uint(root, "max_completion_tokens", &v);
        if (g1 > 0) {
            maxt = v;
            have_max = 1;
        } else {
            int g2 = get_uint(root, "max_tokens", &v);
            if (g2 > 0) {
                maxt = v;
                have_max = 1;
            }
            if (g2 < 0)
                g1 = -1;
        }
        if (g1 < 0 || get_uint(root, "min_tokens", &mint) < 0) {
            bad = "max_tokens, max_completion_tokens and min_tokens must be integers";
            param = "max_tokens";
        } else if (maxt < 1) {
            snprintf(msg, sizeof msg, "max_tokens must be at least 1, got %lld.", maxt);
            bad = msg;
            param = "max_tokens";
        } else if (mint < 0 || mint > maxt) {
            snprintf(msg, sizeof msg, "min_tokens must be in [0, max_tokens=%lld], got %lld.", maxt, mint);
            bad = msg;
            param = "min_tokens";
        }
    }
    if (!bad) {
        if (!have_max && (uint64_t)ptoks + (uint64_t)maxt > o->max_model_len)
            maxt = o->max_model_len > ptoks ? (long long)(o->max_model_len - ptoks) : 0;
        uint64_t need = (uint64_t)ptoks + (uint64_t)maxt;
        uint64_t lim = o->max_model_len;
        if (s->mode == MODE_BATCH && o->kv_tokens < lim)
            lim = o->kv_tokens;
        if (maxt < 1 || need > lim) {
            snprintf(msg, sizeof msg,
                     "This model's maximum context length is %llu tokens. However, you requested %llu tokens "
                     "(%u in the messages, %lld in the completion). Please reduce the length of the messages "
                     "or completion.",
                     (unsigned long long)lim, (unsigned long long)need, ptoks, maxt);
            bad = msg;
            param = "max_tokens";
        }
    }
    int ignore_eos = json_is_true(json_object_get(root, "ignore_eos"));
    json_decref(root);
    r->prompt_tokens = ptoks;
    if (bad) {
        send_json_error(s, c, 400,
                        fl == GP_FLAVOR_TRTLLM && !param ? "validation" : "BadRequestError", bad, param);
        req_finish(s, c, "bad_request");
        return;
    }

    /* output length: max_tokens, unless a seeded EOS ends it early */
    r->out_tokens = (uint32_t)maxt;
    r->finish = GP_FINISH_LENGTH;
    if (!ignore_eos && o->eos_rate > 0) {
        uint32_t from = mint > 1 ? (uint32_t)mint : 1;
        for (uint32_t i = from; i < r->out_tokens; i++) {
            if (urand(&r->rng) < o->eos_rate) {
                r->out_tokens = i;
                r->finish = GP_FINISH_STOP;
                break;
            }
        }
    }
    r->reasoning_n = endpoint == GP_EP_CHAT ? o->reasoning : 0;
    s->prompt_total += ptoks;

    /* ids: vLLM/SGLang hex, TRT-LLM the executor's integer */
    uint64_t idr = splitmix(&r->rng), idr2 = splitmix(&r->rng);
    const char *pre = endpoint == GP_EP_CHAT ? "chatcmpl-" : "cmpl-";
    if (fl == GP_FLAVOR_TRTLLM)
        snprintf(r->id, sizeof r->id, "%s%llu", pre, (unsigned long long)r->seq + 1);
    else
        snprintf(r->id, sizeof r->id, "%s%016llx%016llx", pre, (unsigned long long)idr, (unsigned long long)idr2);
    gp_render_init(&r->rd, fl, endpoint, r->id, r->model, (long long)(gp_wall_ns() / 1000000000ull), ptoks,
                   r->continuous_usage);

    r->fault = pick_fault(s, &r->rng);
    r->fault_at = 1 + (uint32_t)(splitmix(&r->rng) % r->out_tokens);
    /* --max-queued: a real overload, not a drawn fault (vLLM --max-num-queued-reqs
     * answers 503 before streaming; SGLang aborts with an in-stream 503) */
    int overloaded = s->mode == MODE_BATCH && o->max_queued && s->sim.waiting.n >= o->max_queued;
    if (overloaded)
        r->fault = F_NONE;
    if (overloaded || r->fault == F_429 || r->fault == F_500 || r->fault == F_503) {
        int st = overloaded ? 503 : r->fault == F_429 ? 429 : r->fault == F_500 ? 500 : 503;
        r->status = st;
        if (st == 503 && fl == GP_FLAVOR_SGLANG && r->stream) {
            /* SGLang's queue-full abort: HTTP 200, the error rides in the stream */
            r->status = 200;
            r->headers_sent = 1;
            put_headers(s, c, 200, "text/event-stream; charset=utf-8", -1, NULL);
            gp_render_stream_error(&r->rd, &s->scratch, 503, "SERVICE_UNAVAILABLE", "The request queue is full.");
            put_chunk(s, c);
            stamp(r, 'E');
            gp_render_done(&s->scratch);
            put_chunk(s, c);
            stamp(r, 'D');
            end_stream(s, c);
        } else {
            const char *type = st == 429 ? "TooManyRequestsError" : st == 500 ? "InternalServerError"
                                                                                : "ServiceUnavailableError";
            const char *m = overloaded  ? "The request queue is full (genperf serve --max-queued)"
                            : st == 429 ? "Too many requests (injected by genperf serve)"
                            : st == 500 ? "Internal server error (injected by genperf serve)"
                                        : "The server is overloaded (injected by genperf serve)";
            send_json_error(s, c, st, type, m, NULL);
            stamp(r, 'E');
        }
        req_finish(s, c, overloaded ? "overloaded" : "fault");
        return;
    }
    r->status = 200;
    /* --slow-headers-ms alone delays every response; with a rate, only the drawn ones */
    if (s->slow_headers_ns && (r->fault == F_SLOW_HEADERS || o->rate_slow_headers <= 0)) {
        r->state = R_HOLD;
        set_timer(s, c, r->t_request_ns + s->slow_headers_ns, T_HOLD);
        return;
    }
    begin_generation(s, c);
}

/* ---- metrics and the small endpoints -------------------------------------- */

static void hist_render(struct gp_buf *b, const char *name, const struct hist *h, const char *labels)
{
    gp_buf_printf(b, "# TYPE %s histogram\n", name);
    uint64_t cum = 0;
    for (int i = 0; i < h->n; i++) {
        cum += h->cnt[i];
        gp_buf_printf(b, "%s_bucket{%s,le=\"%g\"} %llu\n", name, labels, h->le[i], (unsigned long long)cum);
    }
    cum += h->cnt[h->n];
    gp_buf_printf(b, "%s_bucket{%s,le=\"+Inf\"} %llu\n", name, labels, (unsigned long long)cum);
    gp_buf_printf(b, "%s_sum{%s} %.9g\n%s_count{%s} %llu\n", name, labels, h->sum, name, labels,
                  (unsigned long long)h->total);
}

static void render_metrics(struct srv *s, struct gp_buf *b)
{
    int fl = s->o->flavor;
    char labels[400];
    struct gp_buf ml = {0};
    gp_buf_json_str(&ml, s->o->model, strlen(s->o->model));
    snprintf(labels, sizeof labels, "engine=\"0\",model_name=%s", ml.data);
    gp_buf_free(&ml);
    uint32_t running = s->mode == MODE_BATCH ? s->sim.running.n : s->running_fixed;
    uint32_t waiting = s->mode == MODE_BATCH ? s->sim.waiting.n : 0;
    double kv = s->mode == MODE_BATCH && s->o->kv_tokens ? (double)s->sim.kv_used / (double)s->o->kv_tokens : 0;
    const char *p = fl == GP_FLAVOR_SGLANG ? "sglang:" : fl == GP_FLAVOR_TRTLLM ? "trtllm_" : "vllm:";
    const char *nrun = fl == GP_FLAVOR_SGLANG ? "num_running_reqs" : "num_requests_running";
    const char *nwait = fl == GP_FLAVOR_SGLANG ? "num_queue_reqs" : "num_requests_waiting";
    const char *kvn = fl == GP_FLAVOR_SGLANG ? "token_usage" : fl == GP_FLAVOR_TRTLLM ? "kv_cache_utilization"
                                                                                     : "kv_cache_usage_perc";
    gp_buf_printf(b, "# TYPE %s%s gauge\n%s%s{%s} %u\n", p, nrun, p, nrun, labels, running);
    gp_buf_printf(b, "# TYPE %s%s gauge\n%s%s{%s} %u\n", p, nwait, p, nwait, labels, waiting);
    gp_buf_printf(b, "# TYPE %s%s gauge\n%s%s{%s} %.6f\n", p, kvn, p, kvn, labels, kv);
    gp_buf_printf(b, "# TYPE %sprompt_tokens_total counter\n%sprompt_tokens_total{%s} %llu\n", p, p, labels,
                  (unsigned long long)s->prompt_total);
    gp_buf_printf(b, "# TYPE %sgeneration_tokens_total counter\n%sgeneration_tokens_total{%s} %llu\n", p, p,
                  labels, (unsigned long long)s->gen_total);
    gp_buf_printf(b, "# TYPE %srequest_success_total counter\n", p);
    gp_buf_printf(b, "%srequest_success_total{%s,finished_reason=\"stop\"} %llu\n", p, labels,
                  (unsigned long long)s->succ_stop);
    gp_buf_printf(b, "%srequest_success_total{%s,finished_reason=\"length\"} %llu\n", p, labels,
                  (unsigned long long)s->succ_length);
    gp_buf_printf(b, "%srequest_success_total{%s,finished_reason=\"abort\"} %llu\n", p, labels,
                  (unsigned long long)s->succ_abort);
    char name[96];
    snprintf(name, sizeof name, "%stime_to_first_token_seconds", p);
    hist_render(b, name, &s->h_ttft, labels);
    snprintf(name, sizeof name, "%s%s", p,
             fl == GP_FLAVOR_TRTLLM ? "time_per_output_token_seconds" : "inter_token_latency_seconds");
    hist_render(b, name, &s->h_itl, labels);
    snprintf(name, sizeof name, "%se2e_request_latency_seconds", p);
    hist_render(b, name, &s->h_e2e, labels);
}

static int auth_ok(struct srv *s, const struct gp_http_req *hr)
{
    if (!s->o->api_key || s->o->flavor == GP_FLAVOR_TRTLLM)
        return 1;
    if (!hr->authorization || hr->authorization_len < 7 || strncasecmp(hr->authorization, "Bearer ", 7))
        return 0;
    size_t kl = strlen(s->o->api_key);
    return hr->authorization_len - 7 == kl && !memcmp(hr->authorization + 7, s->o->api_key, kl);
}

static int path_is(const struct gp_http_req *hr, const char *p)
{
    size_t n = strlen(p);
    return hr->path_len == n && !memcmp(hr->path, p, n);
}

static void process_input(struct srv *s, struct conn *c);

static void handle_request(struct srv *s, struct conn *c, const struct gp_http_req *hr)
{
    int fl = s->o->flavor;
    struct sreq *r = &c->r;
    c->keep_alive = hr->keep_alive;
    r->http10 = hr->minor == 0;
    int v1 = hr->path_len >= 4 && !memcmp(hr->path, "/v1/", 4);
    if (v1 && !auth_ok(s, hr)) {
        const char *b = "{\"error\":\"Unauthorized\"}";
        send_simple(s, c, 401, "application/json", b, strlen(b));
        return;
    }
    int is_chat = path_is(hr, "/v1/chat/completions"), is_cmpl = path_is(hr, "/v1/completions");
    if (is_chat || is_cmpl) {
        if (hr->method != GP_HTTP_POST) {
            const char *b = "{\"detail\":\"Method Not Allowed\"}";
            send_simple(s, c, 405, "application/json", b, strlen(b));
            return;
        }
        handle_generate(s, c, hr, is_chat ? GP_EP_CHAT : GP_EP_COMPLETIONS);
        return;
    }
    if (hr->method != GP_HTTP_GET) {
        const char *b = "{\"detail\":\"Method Not Allowed\"}";
        int known = path_is(hr, "/health") || path_is(hr, "/v1/models") || path_is(hr, "/metrics");
        if (known) {
            send_simple(s, c, 405, "application/json", b, strlen(b));
            return;
        }
    } else if (path_is(hr, "/health") || path_is(hr, "/ping") ||
               (fl == GP_FLAVOR_SGLANG && path_is(hr, "/health_generate"))) {
        int warm = !s->ready_at_ns || gp_now_ns() >= s->ready_at_ns;
        send_simple(s, c, warm ? 200 : 503, fl == GP_FLAVOR_VLLM ? NULL : "application/json", "", 0);
        return;
    } else if (path_is(hr, "/v1/models")) {
        struct gp_buf b = {0};
        const char *owner = fl == GP_FLAVOR_SGLANG ? "sglang" : fl == GP_FLAVOR_TRTLLM ? "tensorrt_llm" : "vllm";
        gp_buf_puts(&b, "{\"object\":\"list\",\"data\":[{\"id\":");
        gp_buf_json_str(&b, s->o->model, strlen(s->o->model));
        gp_buf_printf(&b, ",\"object\":\"model\",\"created\":%lld,\"owned_by\":\"%s\",\"root\":",
                      (long long)(gp_wall_ns() / 1000000000ull), owner);
        gp_buf_json_str(&b, s->o->model, strlen(s->o->model));
        gp_buf_printf(&b, ",\"parent\":null,\"max_model_len\":%u}]}", s->o->max_model_len);
        send_simple(s, c, 200, "application/json", b.data, b.len);
        gp_buf_free(&b);
        return;
    } else if (path_is(hr, "/metrics") || path_is(hr, "/prometheus/metrics")) {
        if (fl == GP_FLAVOR_TRTLLM && path_is(hr, "/metrics")) {
            /* trtllm-serve's /metrics is JSON iteration stats; Prometheus lives elsewhere */
            struct gp_buf b = {0};
            uint32_t running = s->mode == MODE_BATCH ? s->sim.running.n : s->running_fixed;
            gp_buf_printf(&b, "[{\"iter\":%llu,\"numActiveRequests\":%u,\"numQueuedRequests\":%u,"
                              "\"kvCacheStats\":{\"usedNumBlocks\":%llu,\"maxNumBlocks\":%llu,\"tokensPerBlock\":1}}]",
                          (unsigned long long)s->sim.steps, running,
                          s->mode == MODE_BATCH ? s->sim.waiting.n : 0, (unsigned long long)s->sim.kv_used,
                          (unsigned long long)s->o->kv_tokens);
            send_simple(s, c, 200, "application/json", b.data, b.len);
            gp_buf_free(&b);
            return;
        }
        struct gp_buf b = {0};
        render_metrics(s, &b);
        send_simple(s, c, 200, "text/plain; version=0.0.4; charset=utf-8", b.data, b.len);
        gp_buf_free(&b);
        return;
    } else if (path_is(hr, "/version")) {
        const char *b = "{\"version\":\"genperf-sim\"}";
        send_simple(s, c, 200, "application/json", b, strlen(b));
        return;
    }
    const char *b = "{\"detail\":\"Not Found\"}";
    send_simple(s, c, 404, "application/json", b, strlen(b));
}

/* Serves every complete request in the input buffer, one at a time. */
static void process_input(struct srv *s, struct conn *c)
{
    while (!c->closing && !c->close_after_write && c->r.state == R_NONE && c->in.len) {
        struct gp_http_req hr;
        long n = gp_http_parse(c->in.data, c->in.len, s->o->max_body, &hr, &c->body);
        if (n == 0) {
            if (hr.head_len && hr.expect_continue && !c->sent_continue) {
                c->sent_continue = 1;
                gp_buf_puts(&c->out, "HTTP/1.1 100 Continue\r\n\r\n");
                mark_dirty(s, c);
            }
            return;
        }
        if (n < 0) {
            c->keep_alive = 0;
            char b[80];
            int len = snprintf(b, sizeof b, "{\"detail\":\"%s\"}", gp_http_reason((int)-n));
            send_simple(s, c, (int)-n, "application/json", b, (size_t)len);
            gp_buf_reset(&c->in);
            return;
        }
        c->sent_continue = 0;
        cancel_timer(s, c);
        handle_request(s, c, &hr);
        /* the request's bytes (and the pointers into them) are no longer needed */
        memmove(c->in.data, c->in.data + n, c->in.len - (size_t)n);
        c->in.len -= (size_t)n;
        c->in.data[c->in.len] = '\0';
        if (c->body.cap > (1u << 20))
            gp_buf_free(&c->body);
    }
    if (!c->closing && c->r.state == R_NONE && !c->close_after_write)
        set_timer(s, c, gp_now_ns() + s->idle_ns, T_IDLE);
}

/* ---- accept / read -------------------------------------------------------- */

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

static void conn_free(struct srv *s, struct conn *c)
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
    gp_buf_free(&c->r.kinds);
    gp_render_free(&c->r.rd);
    free(c->r.ts);
    free(c);
}

static void on_accept(struct srv *s)
{
    for (;;) {
        int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return; /* EAGAIN, or EMFILE: try again on the next event */
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct conn *c = conn_new(s, fd);
        if (!c) {
            close(fd);
            continue;
        }
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u32 = c->idx};
        if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
            conn_close(s, c);
            continue;
        }
        set_timer(s, c, c->t_accept_ns + s->idle_ns, T_IDLE);
    }
}

static void on_readable(struct srv *s, struct conn *c)
{
    for (;;) {
        ssize_t n = recv(c->fd, s->rbuf, s->rbuf_cap, 0);
        if (n > 0) {
            if (c->in.len + (size_t)n > s->o->max_body + GP_HTTP_MAX_HEAD * 2) {
                conn_abort(s, c, "input_overflow");
                return;
            }
            gp_buf_append(&c->in, s->rbuf, (size_t)n);
            if ((size_t)n < s->rbuf_cap)
                break;
            continue;
        }
        if (n == 0) {
            conn_abort(s, c, c->r.state ? "client_closed" : "closed");
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        conn_abort(s, c, "client_reset");
        return;
    }
    process_input(s, c);
}

static void on_timer(struct srv *s, const struct tmr *t)
{
    if (t->idx >= s->nslots)
        return;
    struct conn *c = s->slots[t->idx];
    if (!c || c->tok != t->tok || c->closing)
        return;
    c->tok = 0;
    switch (t->kind) {
    case T_IDLE:
        if (c->r.state == R_NONE && !queued(c))
            conn_close(s, c);
        break;
    case T_TOKEN:
        pump(s, c);
        break;
    case T_HOLD:
        begin_generation(s, c);
        break;
    case T_KEEPALIVE:
        if (c->r.state == R_GEN) {
            gp_buf_puts(&s->scratch, ": keep-alive\n\n"); /* vLLM's SSE_KEEP_ALIVE_COMMENT */
            put_chunk(s, c);
            stamp(&c->r, 'K');
            c->r.t_ka_ref_ns = gp_now_ns();
            pump(s, c);
        }
        break;
    case T_STALL:
        if (s->mode == MODE_BATCH) {
            gp_sim_add(&s->sim, &c->r.sq, gp_now_ns());
            c->r.sq.generated = c->r.generated;
            c->r.active = 1;
        } else {
            pump(s, c);
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
        conn_flush(s, c);
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
            process_input(s, c);
        else
            pump(s, c);
    }
}

static void reap(struct srv *s)
{
    while (s->closing) {
        struct conn *c = s->closing;
        s->closing = c->next_close;
        conn_free(s, c);
    }
}

int gp_serve_run(const struct gp_serve_opts *o, struct gp_error *err)
{
    struct srv S;
    struct srv *s = &S;
    memset(s, 0, sizeof *s);
    s->o = o;
    s->ep = s->lfd = s->sfd = -1;
    s->h_ttft = (struct hist){.le = ttft_le, .n = (int)(sizeof ttft_le / sizeof ttft_le[0])};
    s->h_itl = (struct hist){.le = itl_le, .n = (int)(sizeof itl_le / sizeof itl_le[0])};
    s->h_e2e = (struct hist){.le = e2e_le, .n = (int)(sizeof e2e_le / sizeof e2e_le[0])};
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

    int rc = gp_tokenizer_load(o->tokenizer, NULL, &s->tok, err);
    if (rc)
        return rc;
    if ((rc = build_toktab(s->tok, &s->tt, err)))
        goto out;
    s->rbuf_cap = 64 * 1024;
    if (!(s->rbuf = malloc(s->rbuf_cap))) {
        rc = gp_err(err, GP_ENOMEM, "out of memory");
        goto out;
    }
    if (o->timing_log) {
        if ((rc = gp_atomic_open(&s->logf, o->timing_log, err)))
            goto out;
        s->log_open = 1;
    }
    s->ep = epoll_create1(EPOLL_CLOEXEC);
    sigset_t ss;
    sigemptyset(&ss);
    sigaddset(&ss, SIGTERM);
    sigaddset(&ss, SIGINT);
    s->sfd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
    if (s->ep < 0 || s->sfd < 0) {
        rc = gp_err(err, GP_EIO, "epoll/signalfd: %s", strerror(errno));
        goto out;
    }
    if ((rc = open_listener(s, err)))
        goto out;
    /* --load-s: vLLM and TRT-LLM bind early but listen only once the model is
     * loaded (connections are refused meanwhile); SGLang listens at once and
     * answers 503 on its health routes until warm-up is over */
    if (o->load_s > 0 && o->flavor != GP_FLAVOR_SGLANG) {
        struct pollfd pf = {.fd = s->sfd, .events = POLLIN};
        int pr = poll(&pf, 1, (int)(o->load_s * 1000));
        if (pr > 0) {
            rc = 0; /* SIGTERM while "loading": a clean exit */
            goto out;
        }
    }
    s->ready_at_ns = o->flavor == GP_FLAVOR_SGLANG && o->load_s > 0 ? gp_now_ns() + (uint64_t)(o->load_s * 1e9) : 0;
    if (listen(s->lfd, 4096)) {
        rc = gp_err(err, GP_ENET, "cannot listen on %s:%d: %s", o->host, o->port, strerror(errno));
        goto out;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = UINT32_MAX};
    epoll_ctl(s->ep, EPOLL_CTL_ADD, s->lfd, &ev);
    ev.data.u32 = UINT32_MAX - 1;
    epoll_ctl(s->ep, EPOLL_CTL_ADD, s->sfd, &ev);

    int port = bound_port(s->lfd);
    char url[300];
    int v6 = strchr(o->host, ':') != NULL;
    snprintf(url, sizeof url, v6 ? "http://[%s]:%d" : "http://%s:%d", o->host, port);
    if (o->port_file && (rc = gp_write_file_atomic(o->port_file, url, strlen(url), err)))
        goto out;
    printf("genperf serve: listening on %s\n", url);
    fflush(stdout);
    long chk = toktab_selfcheck(s->tok, &s->tt, 200);
    if (chk != 200)
        fprintf(stderr, "genperf serve: warning: 200 emitted tokens re-encode to %ld with tokenizer %s; "
                        "client token counts will differ from usage\n", chk, gp_tokenizer_source(s->tok));
    if (!o->quiet) {
        const char *mn = s->mode == MODE_ZERO ? "zero-delay" : s->mode == MODE_FIXED ? "fixed delays" : "batching model";
        fprintf(stderr, "genperf serve: flavor %s, model %s, %s, %u emit tokens from tokenizer %s\n",
                gp_flavor_name(o->flavor), o->model, mn, s->tt.n, gp_tokenizer_source(s->tok));
    }

    struct epoll_event evs[256];
    int have_pwait2 = 1;
    while (!s->stop) {
        uint64_t now = gp_now_ns(), wait_ns = UINT64_MAX;
        if (s->ready || s->dirty) {
            wait_ns = 0;
        } else {
            uint64_t next = UINT64_MAX;
            if (s->nheap)
                next = s->heap[0].t;
            if (s->sim.step_end_ns && s->sim.step_end_ns < next)
                next = s->sim.step_end_ns;
            if (next != UINT64_MAX)
                wait_ns = next <= now ? 0 : next - now;
        }
        /* epoll_wait's millisecond timeout would make every ITL late by up to
         * 1 ms; epoll_pwait2 takes nanoseconds (Linux >= 5.11) */
        int n = -1;
        if (have_pwait2) {
            struct timespec ts = {.tv_sec = (time_t)(wait_ns / 1000000000ull), .tv_nsec = (long)(wait_ns % 1000000000ull)};
            n = epoll_pwait2(s->ep, evs, 256, wait_ns == UINT64_MAX ? NULL : &ts, NULL);
            if (n < 0 && errno == ENOSYS)
                have_pwait2 = 0;
        }
        if (!have_pwait2)
            n = epoll_wait(s->ep, evs, 256,
                           wait_ns == UINT64_MAX ? -1 : (int)((wait_ns + 999999) / 1000000));
        if (n < 0 && errno != EINTR) {
            rc = gp_err(err, GP_EIO, "epoll_wait: %s", strerror(errno));
            break;
        }
        for (int i = 0; i < n; i++) {
            uint32_t id = evs[i].data.u32;
            if (id == UINT32_MAX) {
                on_accept(s);
                continue;
            }
            if (id == UINT32_MAX - 1) {
                struct signalfd_siginfo si;
                while (read(s->sfd, &si, sizeof si) == (ssize_t)sizeof si)
                    s->stop = 1;
                continue;
            }
            if (id >= s->nslots || !s->slots[id])
                continue;
            struct conn *c = s->slots[id];
            if (c->closing)
                continue;
            if (evs[i].events & EPOLLOUT)
                conn_flush(s, c);
            if (!c->closing && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)))
                on_readable(s, c);
        }
        now = gp_now_ns();
        while (s->nheap && s->heap[0].t <= now) {
            struct tmr t = heap_pop(s);
            on_timer(s, &t);
        }
        if (s->sim.step_end_ns && s->sim.step_end_ns <= now)
            gp_sim_step(&s->sim, now, sim_emit, s);
        run_ready(s);
        flush_dirty(s);
        reap(s);
    }
    rc = 0;
    if (!o->quiet)
        fprintf(stderr, "genperf serve: shutting down after %llu requests (%llu tokens)\n",
                (unsigned long long)s->n_requests, (unsigned long long)s->gen_total);

out:
    for (uint32_t i = 0; i < s->nslots; i++)
        if (s->slots && s->slots[i] && !s->slots[i]->closing)
            conn_abort(s, s->slots[i], "shutdown");
    reap(s);
    if (s->log_open) {
        if (s->logbuf.len)
            fwrite(s->logbuf.data, 1, s->logbuf.len, s->logf.fp);
        struct gp_error e2;
        if (gp_atomic_commit(&s->logf, &e2) && !rc)
            rc = gp_err(err, e2.code, "%s", e2.msg);
    }
    gp_buf_free(&s->logbuf);
    gp_buf_free(&s->scratch);
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->ep >= 0)
        close(s->ep);
    if (s->sfd >= 0)
        close(s->sfd);
    free(s->rbuf);
    free(s->slots);
    free(s->freelist);
    free(s->heap);
    toktab_free(&s->tt);
    gp_tokenizer_free(s->tok);
    return rc;
}
