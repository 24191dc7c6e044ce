/* client/client.c — the event loop behind `genperf profile`: one thread, one
 * curl multi handle, one reusable easy handle per slot. See client.h for the
 * load shapes and what is recorded.
 *
 * Why one thread: every timestamp is taken on the thread that reads the
 * socket, so a chunk's time is when its bytes arrived, not when some other
 * thread got around to it; and the busy fraction of that one thread tells the
 * user whether the client itself limited the measurement.
 *
 * Why the event API (curl_multi_socket_action + our own epoll set): with
 * curl_multi_perform + curl_multi_poll every wake-up polls and walks every
 * open transfer, so one chunk costs O(open streams) and thousands of idle
 * streams keep the thread busy; here a wake-up costs O(ready sockets). The
 * stop fd sits in the same epoll set, and the wait also ends at curl's timer,
 * the next scheduled arrival, the phase deadline or the end of the grace.
 */
#include "client/backoff.h"
#include "client/client.h"
#include "client/record.h"
#include "core/clock.h"
#include "core/error.h"

#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

/* ---- PRNG (Poisson arrivals) ------------------------------------------- */

void gp_client_rng_seed(struct gp_rng *r, uint64_t seed)
{
    gp_rng_seed(r, seed ^ 0x636c69656e74ull); /* "client": independent of the dataset streams */
}

double gp_client_rng_exp(struct gp_rng *r, double mean)
{
    /* u in (0, 1]: never log(0) */
    double u = ((double)(gp_rng_next(r) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
    return -mean * log(u);
}

/* ---- slots -------------------------------------------------------------- */

struct loop;

/* One curl multi handle and its timer. libcurl 7.88 walks every connection
 * to the host on each request (connection reuse lookup, handle removal), so
 * one multi handle for 1,024 transfers costs O(1,024) per request; shards of
 * SHARD_SLOTS transfers, all in the same epoll set, bound that walk. HTTP/2
 * keeps one shard so that its streams share connections. */
#define SHARD_SLOTS 128
#define STOP_SHARD UINT32_MAX    /* epoll tag of the stop fd */

struct shard {
    struct loop *L;
    CURLM *multi;
    uint32_t idx;
    int timer_set;           /* curl asked to be called back at timer_ns */
    uint64_t timer_ns;
};

struct slot {
    CURL *easy;
    struct loop *L;
    struct shard *sh;
    uint32_t id;
    int busy;
    int warmup;
    int retried;
    uint32_t entry;
    uint32_t arrival;        /* recorded as gp_record.slot in rate mode */
    uint64_t t_start;
    uint64_t t_send;         /* libcurl's pre-request callback fired (0 = not yet) */
    long sent;               /* requests this slot sent in the current phase */
    long quota;              /* concurrency mode: requests this slot may send (-1 = unbounded) */
    uint64_t nbytes;         /* bytes received by the current transfer */
    struct gp_chunk *chunks; /* its reads: absolute offsets into the store's arena */
    size_t nchunks, chunks_cap;
    int oom;
    int too_big;             /* the body passed max_response_bytes: transfer aborted */
    int waiting;             /* backing off after a connection-level failure until resume_ns */
    uint64_t resume_ns;
    struct gp_backoff bo;
    char errbuf[CURL_ERROR_SIZE];
};

struct loop {
    const struct gp_client_opts *o;
    struct gp_record_store *st;
    struct gp_client_stats *stats;
    struct shard **shards;   /* pointers: a shard's address is its callbacks' data */
    size_t nshards;
    struct curl_slist *hdrs;
    struct slot **slots;     /* pointers: a slot's address is its curl private data */
    size_t nslots, slots_cap;
    size_t inflight;
    int stopping;            /* the stop fd fired once */
    int hard_stop;           /* fired twice, or grace over */
    uint64_t stop_deadline;
    /* progress */
    uint64_t done_measured, failed_measured, events_measured;
    uint64_t last_progress_ns;
    int progress_drawn;
    long phase_total;
    uint64_t phase_start;
    int phase_warmup;
    struct gp_buf tmp;       /* error text scratch */
    struct gp_buf body;      /* scratch: a non-streamed body whose reads were not back to back */
    struct gp_rng bo_rng;    /* back-off jitter (backoff.h) */
    size_t n_waiting;        /* slots backing off */
    uint64_t next_resume;    /* earliest resume_ns among them */
    /* libcurl event API: our epoll set holds curl's sockets and the stop fd */
    int epfd;
    int stop_in_epoll;       /* the stop fd is in the set (else polled each turn) */
    int stop_ready;          /* epoll reported the stop fd */
    int pwait2;              /* epoll_pwait2 works (ns timeouts) */
    struct epoll_event ev[512];
};

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
    uint64_t t = gp_now_ns();
    struct slot *s = ud;
    size_t n = size * nmemb;
    uint64_t cap = s->L->o->max_response_bytes;
    if (cap && s->nbytes + n > cap) {
        s->too_big = 1; /* returning short aborts only this transfer */
        return 0;
    }
    if (s->nchunks == s->chunks_cap) {
        size_t nc = s->chunks_cap ? s->chunks_cap * 2 : 64;
        struct gp_chunk *c = realloc(s->chunks, nc * sizeof *c);
        if (!c) {
            s->oom = 1;
            return 0;
        }
        s->chunks = c;
        s->chunks_cap = nc;
    }
    /* straight into the record store: one copy per read, no staging */
    struct gp_chunk *c = &s->chunks[s->nchunks];
    c->t_ns = t;
    c->len = (uint32_t)n;
    if (gp_record_put_bytes(s->L->st, p, n, &c->off)) {
        s->oom = 1;
        return 0;
    }
    s->nchunks++;
    s->nbytes += n;
    return n;
}

/* CURLOPT_PREREQFUNCTION: the connection is ready and libcurl is about to
 * send the request; the stamp shows how long a request waited after
 * t_start (the loop busy elsewhere, curl driven late, connection set-up). */
static int on_prereq(void *ud, char *pip, char *lip, int pport, int lport)
{
    (void)pip, (void)lip, (void)pport, (void)lport;
    struct slot *s = ud;
    s->t_send = gp_now_ns();
    return CURL_PREREQFUNC_OK;
}

static int on_socket(CURL *e, curl_socket_t fd, int what, void *ud, void *sockp);
static int on_timer(CURLM *m, long ms, void *ud);

/* The shard of slot id, created on first use. */
static struct shard *shard_for(struct loop *L, uint32_t id, struct gp_error *err)
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

static struct slot *slot_new(struct loop *L, struct gp_error *err)
{
    if (L->nslots == L->slots_cap) {
        size_t nc = L->slots_cap ? L->slots_cap * 2 : 16;
        struct slot **ns = realloc(L->slots, nc * sizeof *ns);
        if (!ns) {
            gp_err(err, GP_ENOMEM, "out of memory allocating client slots");
            return NULL;
        }
        L->slots = ns;
        L->slots_cap = nc;
    }
    struct slot *s = calloc(1, sizeof *s);
    if (!s || !(s->easy = curl_easy_init())) {
        free(s);
        gp_err(err, GP_ENOMEM, "curl_easy_init failed");
        return NULL;
    }
    s->L = L;
    s->id = (uint32_t)L->nslots;
    if (!(s->sh = shard_for(L, s->id, err))) {
        curl_easy_cleanup(s->easy);
        free(s);
        return NULL;
    }
    const struct gp_client_opts *o = L->o;
    CURL *e = s->easy;
    curl_easy_setopt(e, CURLOPT_URL, o->url);
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, L->hdrs);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(e, CURLOPT_PRIVATE, s);
    curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, on_prereq);
    curl_easy_setopt(e, CURLOPT_PREREQDATA, s);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 256L * 1024);
    /* Loopback servers must not go through an http_proxy from the environment. */
    curl_easy_setopt(e, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
    /* h2c by Upgrade, not prior knowledge: libcurl 7.88 breaks the second
     * transfer on a reused prior-knowledge connection (curl/curl#10634). */
    if (o->http2)
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
                         strncasecmp(o->url, "https:", 6) ? (long)CURL_HTTP_VERSION_2_0 : (long)CURL_HTTP_VERSION_2TLS);
    else
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    if (o->timeout_s > 0)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s * 1000.0 + 0.5));
    if (o->cacert)
        curl_easy_setopt(e, CURLOPT_CAINFO, o->cacert);
    if (o->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    L->slots[L->nslots++] = s;
    return s;
}

static void slot_free(struct slot *s)
{
    if (!s)
        return;
    curl_easy_cleanup(s->easy);
    free(s->chunks);
    free(s);
}

static int slot_start(struct loop *L, struct slot *s, uint32_t entry, struct gp_error *err)
{
    const struct gp_client_body *b = &L->o->bodies[entry];
    s->nbytes = 0;
    s->nchunks = 0;
    s->oom = 0;
    s->t_send = 0;
    s->too_big = 0;
    s->errbuf[0] = '\0';
    s->entry = entry;
    s->warmup = L->phase_warmup;
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)b->len);
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, b->data);
    s->t_start = gp_now_ns();
    CURLMcode mc = curl_multi_add_handle(s->sh->multi, s->easy);
    if (mc != CURLM_OK)
        return gp_err(err, GP_ENET, "curl_multi_add_handle: %s", curl_multi_strerror(mc));
    /* Drive the new transfer now (curl_multi_add_handle only arms a 0 ms
     * timer): otherwise the request waits for the next turn of the loop,
     * behind every other completion of this wake-up, after t_start was taken.
     * A transfer this finishes is picked up by pump's curl_multi_info_read. */
    int running;
    mc = curl_multi_socket_action(s->sh->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    if (mc != CURLM_OK)
        return gp_err(err, GP_ENET, "curl_multi_socket_action: %s", curl_multi_strerror(mc));
    s->busy = 1;
    s->sent++;
    L->inflight++;
    L->stats->n_sent++;
    if (s->warmup)
        L->stats->n_warmup++;
    return 0;
}

/* Counts SSE data events in a finished response, for the progress line only.
 * Lines are found with memchr for '\n' (two per event), not for 'd', which
 * every JSON event is full of. A "\r"-only line end is not split: the count
 * is a progress estimate, metrics/ parses the events exactly. */
static uint64_t count_events(const char *p, size_t n)
{
    uint64_t k = 0;
    const char *end = p + n;
    while (p < end) {
        if (end - p >= 5 && !memcmp(p, "data:", 5))
            k++;
        const char *q = memchr(p, '\n', (size_t)(end - p));
        if (!q)
            break;
        p = q + 1;
    }
    return k;
}

static void note_first_error(struct loop *L, long status, const char *txt, size_t len)
{
    if (L->stats->first_error[0])
        return;
    L->stats->first_error_status = status;
    size_t n = len < sizeof L->stats->first_error - 1 ? len : sizeof L->stats->first_error - 1;
    memcpy(L->stats->first_error, txt, n);
    L->stats->first_error[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (L->stats->first_error[i] == '\n' || L->stats->first_error[i] == '\r')
            L->stats->first_error[i] = ' ';
}

/* Appends up to max bytes of the transfer's body (its chunks, in order) to b. */
static int gather(struct loop *L, struct slot *s, struct gp_buf *b, size_t max)
{
    for (size_t i = 0; i < s->nchunks && max > 0; i++) {
        size_t n = s->chunks[i].len < max ? s->chunks[i].len : max;
        if (gp_buf_append(b, gp_record_bytes(L->st, &s->chunks[i]), n))
            return -GP_ENOMEM;
        max -= n;
    }
    return 0;
}

/* Records a finished (or cancelled) transfer. The handle is already removed
 * from the multi. */
static int slot_record(struct loop *L, struct slot *s, CURLcode res, uint32_t extra_flags, struct gp_error *err)
{
    uint64_t t_end = gp_now_ns();
    struct gp_record rec;
    memset(&rec, 0, sizeof rec);
    rec.t_start_ns = s->t_start;
    rec.t_end_ns = t_end;
    rec.t_send_ns = s->t_send;
    rec.entry = s->entry;
    rec.worker = 0;
    rec.slot = L->o->request_rate > 0 ? s->arrival : s->id;
    long status = 0;
    curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
    rec.http_status = (int32_t)status;
    char *ct = NULL;
    curl_easy_getinfo(s->easy, CURLINFO_CONTENT_TYPE, &ct);
    int streaming = ct && strcasestr(ct, "text/event-stream") != NULL;
    rec.flags = extra_flags;
    if (s->warmup)
        rec.flags |= GP_REC_WARMUP;
    if (streaming)
        rec.flags |= GP_REC_STREAMING;
    /* perf_analyzer hands a non-streamed body over once, at completion. */
    struct gp_chunk one;
    const struct gp_chunk *chunks = s->chunks;
    size_t nchunks = s->nchunks;
    if (!streaming && s->nbytes > 0 && !s->oom) {
        if (gp_record_join_chunks(L->st, s->chunks, s->nchunks, t_end, &L->body, &one) == 0) {
            chunks = &one;
            nchunks = 1;
        } else {
            s->oom = 1; /* recorded without its body, below */
        }
    }
    if (s->oom)
        nchunks = 0;
    gp_buf_reset(&L->tmp);
    if (extra_flags & GP_REC_CANCELLED) {
        rec.flags |= GP_REC_FAILED;
        gp_buf_puts(&L->tmp, "request cancelled (interrupted before it completed)");
    } else if (s->oom) {
        rec.flags |= GP_REC_FAILED;
        gp_buf_puts(&L->tmp, "out of memory while receiving the response (client); the run stops here, incomplete");
    } else if (s->too_big) {
        rec.flags |= GP_REC_FAILED;
        gp_buf_printf(&L->tmp, "response larger than %llu bytes (--max-response-bytes); transfer aborted",
                      (unsigned long long)L->o->max_response_bytes);
    } else if (res != CURLE_OK) {
        rec.flags |= GP_REC_FAILED;
        if (res == CURLE_OPERATION_TIMEDOUT) {
            rec.flags |= GP_REC_TIMEOUT;
            gp_buf_printf(&L->tmp, "request timed out after %.3g s (--request-timeout): %s", L->o->timeout_s,
                          s->errbuf[0] ? s->errbuf : curl_easy_strerror(res));
        } else {
            gp_buf_printf(&L->tmp, "%s: %s", curl_easy_strerror(res), s->errbuf[0] ? s->errbuf : "no detail");
        }
    } else if (status >= 400) {
        rec.flags |= GP_REC_FAILED;
        gp_buf_printf(&L->tmp, "OpenAI response returns HTTP code %ld: ", status);
        (void)gather(L, s, &L->tmp, 2048); /* the error body, as much of it as fits */
    } else if (status < 200 || status >= 300) {
        /* redirects are not followed (the body went to this URL only) */
        char *loc = NULL;
        curl_easy_getinfo(s->easy, CURLINFO_REDIRECT_URL, &loc);
        rec.flags |= GP_REC_FAILED;
        gp_buf_printf(&L->tmp, "OpenAI response returns HTTP code %ld: not a success (2xx)%s%.512s%s", status,
                      loc ? "; redirect to " : "", loc ? loc : "", loc ? " not followed (point --url at it)" : "");
    }
    long idx = gp_record_append_placed(L->st, &rec, chunks, nchunks, L->tmp.len ? L->tmp.data : NULL, L->tmp.len);
    if (idx < 0 || s->oom) {
        /* Out of memory: degrade per run, not per process. Stop sending
         * (what is in flight is cancelled), keep every record stored so far;
         * the caller writes them and marks the run incomplete. The request
         * that hit it is a failed record when the store could still take it. */
        (void)err;
        L->stats->incomplete = 1;
        L->stopping = L->hard_stop = 1;
        if (idx < 0) {
            L->stats->n_lost++;
            return 0;
        }
    }
    if (!s->warmup) {
        L->done_measured++;
        if (s->t_send && s->t_send >= s->t_start) {
            uint64_t lag = s->t_send - s->t_start;
            L->stats->n_send_stamped++;
            L->stats->send_lag_sum_ns += lag;
            if (lag > L->stats->send_lag_max_ns)
                L->stats->send_lag_max_ns = lag;
        }
        if (rec.flags & GP_REC_FAILED) {
            L->failed_measured++;
            L->stats->n_failed++;
            note_first_error(L, status, L->tmp.data ? L->tmp.data : "", L->tmp.len);
        } else {
            L->stats->n_ok++;
        }
        /* the event count only feeds the progress line: no scan without one */
        if (streaming && L->o->progress)
            for (size_t i = 0; i < s->nchunks; i++)
                L->events_measured += count_events(gp_record_bytes(L->st, &s->chunks[i]), s->chunks[i].len);
        else if (!(rec.flags & GP_REC_FAILED))
            L->events_measured++;
    }
    return 0;
}

static void progress_draw(struct loop *L, uint64_t now, int final)
{
    if (!L->o->progress)
        return;
    if (!final && now - L->last_progress_ns < 250000000ull)
        return;
    L->last_progress_ns = now;
    double el = (double)(now - L->phase_start) / 1e9;
    if (L->phase_warmup) {
        fprintf(stderr, "\r\033[Kwarmup: %llu/%ld sent", (unsigned long long)L->stats->n_warmup, L->phase_total);
    } else {
        char tot[32];
        if (L->phase_total > 0)
            snprintf(tot, sizeof tot, "%ld", L->phase_total);
        else
            snprintf(tot, sizeof tot, "%.0fs", (double)L->o->duration_ns / 1e9);
        fprintf(stderr, "\r\033[K%llu/%s done  %.1f req/s  ~%.0f tok/s  %llu failed  %zu in flight%s",
                (unsigned long long)L->done_measured, tot, el > 0 ? (double)L->done_measured / el : 0.0,
                el > 0 ? (double)L->events_measured / el : 0.0, (unsigned long long)L->failed_measured,
                L->inflight, L->stopping ? "  (stopping)" : "");
    }
    L->progress_drawn = 1;
    if (final) {
        fputc('\n', stderr);
        L->progress_drawn = 0;
    }
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

/* Removes every in-flight transfer; cancelled ones are recorded (Ctrl-C),
 * dropped ones are not (end of a time-bounded run). */
static int abandon_inflight(struct loop *L, int record, struct gp_error *err)
{
    for (size_t i = 0; i < L->nslots; i++) {
        struct slot *s = L->slots[i];
        if (!s->busy)
            continue;
        curl_multi_remove_handle(s->sh->multi, s->easy);
        s->busy = 0;
        L->inflight--;
        if (record) {
            if (slot_record(L, s, CURLE_OK, GP_REC_CANCELLED, err) < 0)
                return -GP_ENOMEM;
        } else if (!s->warmup) {
            L->stats->n_dropped++;
        }
    }
    return 0;
}

/* A reused keep-alive connection the server already closed fails before any
 * byte arrives; that is the client's pool, not the server (spec §0 rule 11). */
static int is_stale_connection(struct slot *s, CURLcode res)
{
    if (s->retried || s->nbytes > 0)
        return 0;
    if (res != CURLE_GOT_NOTHING && res != CURLE_SEND_ERROR && res != CURLE_RECV_ERROR)
        return 0;
    long nconn = -1;
    curl_easy_getinfo(s->easy, CURLINFO_NUM_CONNECTS, &nconn);
    return nconn == 0;
}

struct phase {
    int warmup;
    long count;              /* requests to send; -1 = until deadline */
    uint64_t deadline;       /* 0 = none */
};

static struct slot *free_slot(struct loop *L, struct gp_error *err)
{
    for (size_t i = 0; i < L->nslots; i++)
        if (!L->slots[i]->busy)
            return L->slots[i];
    return slot_new(L, err);
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

/* Closed loop, after a slot's transfer ended: a connection-level failure
 * makes the slot wait (backoff.h) instead of reconnecting at once; returns 1
 * then. Anything that reached the server resets the slot's back-off. */
static int backoff_after(struct loop *L, struct slot *sl, CURLcode res)
{
    if (!gp_backoff_is_connection_failure((int)res) || sl->oom || sl->too_big) {
        gp_backoff_reset(&sl->bo);
        return 0;
    }
    uint64_t d = gp_backoff_next(&sl->bo, &L->bo_rng, 0, 0);
    sl->waiting = 1;
    sl->resume_ns = gp_now_ns() + d;
    if (L->n_waiting++ == 0 || sl->resume_ns < L->next_resume)
        L->next_resume = sl->resume_ns;
    L->stats->n_backoff++;
    L->stats->backoff_ns += d;
    return 1;
}

/* Starts the backing-off slots whose wait is over (drops them all on a stop
 * or at the deadline) and notes the earliest pending resume. */
static int resume_slots(struct loop *L, const struct phase *ph, long nconc, uint64_t now, struct gp_error *err)
{
    L->next_resume = UINT64_MAX;
    for (size_t i = 0; i < L->nslots && L->n_waiting; i++) {
        struct slot *sl = L->slots[i];
        if (!sl->waiting)
            continue;
        if (!L->stopping && !(ph->deadline && now >= ph->deadline) && sl->resume_ns > now) {
            L->next_resume = sl->resume_ns < L->next_resume ? sl->resume_ns : L->next_resume;
            continue;
        }
        sl->waiting = 0;
        L->n_waiting--;
        if (L->stopping || (ph->deadline && now >= ph->deadline))
            continue;
        uint32_t entry = (uint32_t)((sl->id + (uint64_t)sl->sent * (uint64_t)nconc) % L->o->n_bodies);
        int rc = slot_start(L, sl, entry, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Lets curl run its due timer, then takes every finished transfer: records
 * it, resends it once on a stale keep-alive connection, or starts the slot's
 * next request (closed loop). */
static int pump_shard(struct loop *L, struct shard *sh, const struct phase *ph, long nconc, struct gp_error *err)
{
    int rate_mode = L->o->request_rate > 0;
    size_t nb = L->o->n_bodies;
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
        sl->busy = 0;
        L->inflight--;
        if (is_stale_connection(sl, res) && !L->stopping) {
            sl->retried = 1;
            L->stats->n_retried++;
            L->stats->n_sent--;
            if (sl->warmup)
                L->stats->n_warmup--;
            sl->sent--;
            if ((rc = slot_start(L, sl, sl->entry, err)) < 0)
                return rc;
            continue;
        }
        sl->retried = 0;
        if ((rc = slot_record(L, sl, res, 0, err)) < 0)
            return rc;
        if (!rate_mode && !L->stopping && (sl->quota < 0 || sl->sent < sl->quota) &&
            !(ph->deadline && gp_now_ns() >= ph->deadline)) {
            if (backoff_after(L, sl, res))
                continue; /* resume_slots starts it later */
            uint32_t entry = (uint32_t)((sl->id + (uint64_t)sl->sent * (uint64_t)nconc) % nb);
            if ((rc = slot_start(L, sl, entry, err)) < 0)
                return rc;
        }
    }
    return 0;
}

static int pump(struct loop *L, const struct phase *ph, long nconc, struct gp_error *err)
{
    for (size_t i = 0; i < L->nshards; i++) {
        int rc = pump_shard(L, L->shards[i], ph, nconc, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int run_phase(struct loop *L, const struct phase *ph, struct gp_error *err)
{
    const struct gp_client_opts *o = L->o;
    int rate_mode = o->request_rate > 0;
    size_t nb = o->n_bodies;
    int rc = 0;
    L->phase_warmup = ph->warmup;
    L->phase_total = ph->count;
    L->phase_start = gp_now_ns();
    L->n_waiting = 0;

    long nconc = 0;          /* concurrency mode: active slots */
    long arrivals = 0;       /* rate mode: arrivals started */
    double next_arrival = 0; /* ns offset from phase start */
    struct gp_rng rng;
    gp_client_rng_seed(&rng, o->seed + (ph->warmup ? 0x5741524dull : 0));
    double gap_ns = rate_mode ? 1e9 / o->request_rate : 0;

    if (!rate_mode) {
        nconc = o->concurrency;
        if (ph->count >= 0 && ph->count < nconc)
            nconc = ph->count;
        while ((long)L->nslots < nconc)
            if (!slot_new(L, err))
                return -GP_ENOMEM;
        for (long s = 0; s < nconc; s++) {
            struct slot *sl = L->slots[s];
            sl->sent = 0;
            sl->waiting = 0;
            sl->quota = ph->count < 0 ? -1 : ph->count / nconc + (s < ph->count % nconc ? 1 : 0);
        }
        for (long s = 0; s < nconc && !L->stopping; s++) {
            struct slot *sl = L->slots[s];
            if (sl->quota != 0 && (rc = slot_start(L, sl, (uint32_t)(s % (long)nb), err)) < 0)
                return rc;
        }
    }

    for (;;) {
        uint64_t now = gp_now_ns();
        if (L->stop_ready || !L->stop_in_epoll) {
            L->stop_ready = 0;
            check_stop(L, now);
        }
        if (L->stopping && (L->hard_stop || L->inflight == 0 || now >= L->stop_deadline)) {
            if ((rc = abandon_inflight(L, 1, err)) < 0)
                return rc;
            break;
        }
        if (ph->deadline && now >= ph->deadline) {
            if ((rc = abandon_inflight(L, 0, err)) < 0)
                return rc;
            break;
        }

        if (L->n_waiting && (rc = resume_slots(L, ph, nconc, now, err)) < 0)
            return rc;

        /* open loop: start every arrival that is due */
        int more_arrivals = rate_mode && !L->stopping && (ph->count < 0 || arrivals < ph->count);
        while (more_arrivals) {
            uint64_t due = L->phase_start + (uint64_t)next_arrival;
            if (due > now)
                break;
            if (o->max_inflight > 0 && (long)L->inflight >= o->max_inflight)
                break;
            struct slot *sl = free_slot(L, err);
            if (!sl)
                return -GP_ENOMEM;
            sl->arrival = (uint32_t)arrivals;
            uint64_t lag = now - due;
            if (!ph->warmup) {
                if (lag > L->stats->max_lag_ns)
                    L->stats->max_lag_ns = lag;
                if (lag > 1000000ull)
                    L->stats->n_delayed++;
            }
            if ((rc = slot_start(L, sl, (uint32_t)(arrivals % (long)nb), err)) < 0)
                return rc;
            arrivals++;
            next_arrival += o->poisson ? gp_client_rng_exp(&rng, gap_ns) : gap_ns;
            more_arrivals = ph->count < 0 || arrivals < ph->count;
        }

        if ((rc = pump(L, ph, nconc, err)) < 0)
            return rc;

        now = gp_now_ns();
        progress_draw(L, now, 0);
        more_arrivals = rate_mode && !L->stopping && (ph->count < 0 || arrivals < ph->count);
        if (L->inflight == 0 && !L->n_waiting && !more_arrivals && !(ph->deadline && !rate_mode && !L->stopping && ph->count < 0))
            break;

        /* sleep until the next thing to do: socket activity, curl's timer,
         * the next arrival, the deadline, the stop fd, or at most 100 ms */
        uint64_t wait_ns = 100000000ull;
        if (more_arrivals) {
            uint64_t due = L->phase_start + (uint64_t)next_arrival;
            uint64_t d = due > now ? due - now : 0;
            if (o->max_inflight > 0 && (long)L->inflight >= o->max_inflight)
                d = 100000000ull;
            if (d < wait_ns)
                wait_ns = d;
        }
        if (ph->deadline) {
            uint64_t d = ph->deadline > now ? ph->deadline - now : 0;
            if (d < wait_ns)
                wait_ns = d;
        }
        if (L->n_waiting) {
            uint64_t d = L->next_resume > now ? L->next_resume - now : 0;
            if (d < wait_ns)
                wait_ns = d;
        }
        if (L->stopping) {
            uint64_t d = L->stop_deadline > now ? L->stop_deadline - now : 0;
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
        for (int i = 0; i < nev; i++) {
            uint32_t idx = (uint32_t)(L->ev[i].data.u64 >> 32);
            int fd = (int)(uint32_t)L->ev[i].data.u64;
            if (idx == STOP_SHARD) {
                L->stop_ready = 1;
                continue;
            }
            uint32_t e = L->ev[i].events;
            int mask = (e & EPOLLIN ? CURL_CSELECT_IN : 0) | (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                       (e & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
            int running;
            CURLMcode mc = curl_multi_socket_action(L->shards[idx]->multi, fd, mask, &running);
            if (mc != CURLM_OK)
                return gp_err(err, GP_ENET, "curl_multi_socket_action: %s", curl_multi_strerror(mc));
        }
        if ((rc = pump(L, ph, nconc, err)) < 0)
            return rc;
    }
    return 0;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int build_headers(struct loop *L, struct gp_error *err)
{
    const struct gp_client_opts *o = L->o;
    int user_ct = 0;
    for (size_t i = 0; i < o->n_headers; i++)
        if (!strncasecmp(o->headers[i], "Content-Type:", 13))
            user_ct = 1;
    struct curl_slist *h = NULL, *t;
    /* An empty Expect: stops curl's 100-continue round trip on big bodies. */
    if (!(t = curl_slist_append(h, "Expect:")))
        goto oom;
    h = t;
    if (!user_ct) {
        if (!(t = curl_slist_append(h, "Content-Type: application/json")))
            goto oom;
        h = t;
    }
    for (size_t i = 0; i < o->n_headers; i++) {
        /* perf_analyzer keeps headers in a map: the last one of a name wins */
        const char *colon = strchr(o->headers[i], ':');
        size_t nl = colon ? (size_t)(colon - o->headers[i]) : strlen(o->headers[i]);
        int later = 0;
        for (size_t j = i + 1; j < o->n_headers; j++)
            if (!strncmp(o->headers[j], o->headers[i], nl) && o->headers[j][nl] == ':')
                later = 1;
        if (later)
            continue;
        if (!(t = curl_slist_append(h, o->headers[i])))
            goto oom;
        h = t;
    }
    L->hdrs = h;
    return 0;
oom:
    curl_slist_free_all(h);
    return gp_err(err, GP_ENOMEM, "out of memory building request headers");
}

int gp_client_run(const struct gp_client_opts *o, struct gp_record_store *st, struct gp_client_stats *stats,
                  struct gp_error *err)
{
    memset(stats, 0, sizeof *stats);
    if (!o->n_bodies)
        return gp_err(err, GP_EINVAL, "the dataset is empty: nothing to send");
    if (o->request_rate <= 0 && o->concurrency <= 0)
        return gp_err(err, GP_EINVAL, "client: need a concurrency >= 1 or a request rate > 0");
    CURLU *u = curl_url();
    if (!u)
        return gp_err(err, GP_ENOMEM, "out of memory");
    CURLUcode uc = curl_url_set(u, CURLUPART_URL, o->url, CURLU_DEFAULT_SCHEME);
    char *scheme = NULL;
    if (uc == CURLUE_OK)
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
    int bad_scheme = scheme && strcasecmp(scheme, "http") && strcasecmp(scheme, "https");
    curl_free(scheme);
    curl_url_cleanup(u);
    if (uc != CURLUE_OK)
        return gp_err(err, GP_EINVAL, "--url: cannot parse request URL '%s' (%s); pass e.g. http://127.0.0.1:8000",
                      o->url, curl_url_strerror(uc));
    if (bad_scheme)
        return gp_err(err, GP_EINVAL, "--url: '%s' is not an http:// or https:// URL", o->url);

    struct loop L;
    memset(&L, 0, sizeof L);
    L.o = o;
    L.st = st;
    L.stats = stats;
    int rc = build_headers(&L, err);
    if (rc < 0)
        return rc;
    L.epfd = epoll_create1(EPOLL_CLOEXEC);
    if (L.epfd < 0) {
        rc = gp_err(err, GP_ENET, "epoll_create1: %s", strerror(errno));
        curl_slist_free_all(L.hdrs);
        return rc;
    }
    L.pwait2 = 1;
    gp_rng_seed(&L.bo_rng, o->seed ^ 0x6261636b6f6666ull); /* "backoff": its own stream */
    if (o->stop_fd >= 0) {
        struct epoll_event ev;
        memset(&ev, 0, sizeof ev);
        ev.events = EPOLLIN;
        ev.data.u64 = (uint64_t)STOP_SHARD << 32 | (uint32_t)o->stop_fd;
        /* a regular file cannot be in an epoll set: it is then polled each turn */
        L.stop_in_epoll = epoll_ctl(L.epfd, EPOLL_CTL_ADD, o->stop_fd, &ev) == 0;
    } else {
        L.stop_in_epoll = 1; /* nothing to check */
    }

    /* page faults of the growing record store off this thread (best effort) */
    gp_record_store_prefault_start(st);
    if (!st->mono0_ns) {
        st->mono0_ns = gp_now_ns();
        st->wall0_ns = gp_wall_ns();
    }
    if (o->warmup_count > 0) {
        struct phase w = {.warmup = 1, .count = o->warmup_count, .deadline = 0};
        rc = run_phase(&L, &w, err);
        progress_draw(&L, gp_now_ns(), 1);
    }
    if (rc == 0 && !L.stopping) {
        uint64_t cpu0 = thread_cpu_ns();
        stats->start_ns = gp_now_ns();
        struct phase m = {.warmup = 0, .count = o->duration_ns ? -1 : o->request_count, .deadline = 0};
        if (o->duration_ns)
            m.deadline = stats->start_ns + o->duration_ns;
        rc = run_phase(&L, &m, err);
        stats->end_ns = gp_now_ns();
        stats->cpu_ns = thread_cpu_ns() - cpu0;
        uint64_t wall = stats->end_ns - stats->start_ns;
        stats->busy_fraction = wall ? (double)stats->cpu_ns / (double)wall : 0;
        progress_draw(&L, gp_now_ns(), 1);
    }
    if (rc < 0)
        abandon_inflight(&L, 0, NULL);
    gp_record_store_prefault_stop(st);
    for (size_t i = 0; i < L.nslots; i++)
        slot_free(L.slots[i]);
    free(L.slots);
    for (size_t i = 0; i < L.nshards; i++) {
        curl_multi_cleanup(L.shards[i]->multi);
        free(L.shards[i]);
    }
    free(L.shards);
    close(L.epfd);
    curl_slist_free_all(L.hdrs);
    gp_buf_free(&L.tmp);
    gp_buf_free(&L.body);
    return rc;
}
