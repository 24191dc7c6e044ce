/* client/client_int.h — private to client/: the event loop's state shared by
 * its parts. Owns nothing by itself; gp_client_run (client.c) creates and
 * frees everything these structs point to.
 *
 * The parts:
 *   client.c        the curl easy handles: per-slot setup, the write and
 *                   pre-request callbacks, starting and recording a transfer,
 *                   the request headers, and gp_client_run itself
 *   client_loop.c   the event loop: shards (curl multi handles), the epoll
 *                   set, curl's socket/timer callbacks, the stop fd, pump
 *   client_sched.c  the scheduler: which request goes next and when (closed
 *                   loop slots and quotas, open loop arrivals, Poisson PRNG)
 *   client_stats.c  the progress line, first-error text, thread CPU time
 *   client_h1.c     the plain-http keep-alive transport that replaces libcurl
 *                   when every URL is http:// and nothing needs libcurl
 *                   (h1.h: parser and request head): its sockets sit in the
 *                   same epoll set, its finished transfers queue on
 *                   h1_done and pump takes them as it takes curl's
 */
#ifndef GP_CLIENT_CLIENT_INT_H
#define GP_CLIENT_CLIENT_INT_H

#include "client/backoff.h"
#include "client/client.h"
#include "client/h1.h"
#include "client/record.h"
#include "client/schedule.h"
#include "core/buf.h"
#include "core/rng.h"

#include <curl/curl.h>
#include <stdint.h>
#include <sys/epoll.h>

struct loop;
struct gp_error;

/* One curl multi handle and its timer. libcurl 7.88 walks every connection
 * to the host on each request (connection reuse lookup, handle removal), so
 * one multi handle for 1,024 transfers costs O(1,024) per request; shards of
 * SHARD_SLOTS transfers, all in the same epoll set, bound that walk. HTTP/2
 * keeps one shard so that its streams share connections. */
#define SHARD_SLOTS 128
#define STOP_SHARD UINT32_MAX    /* epoll tag of the stop fd */
/* epoll tag of an h1 socket: (H1_TAG | endpoint) << 32 | slot id; shard
 * indexes stay far below it */
#define H1_TAG 0x80000000u

/* A slot's h1 transport: one keep-alive connection per endpoint, and the
 * state of the transfer in progress. */
enum { H1_IDLE, H1_CONNECTING, H1_SENDING, H1_RECEIVING };
struct h1_xfer {
    int fd[GP_CLIENT_MAX_URLS]; /* -1 = no connection */
    int ep;                  /* the current transfer's endpoint */
    int state;
    int ai;                  /* connecting: index into the target's addresses */
    int reused;              /* on a connection an earlier request opened (CURLINFO_NUM_CONNECTS == 0) */
    int out;                 /* EPOLLOUT is in the socket's interest */
    const char *body;
    size_t blen, off;        /* request bytes written so far (head, Content-Length, body) */
    size_t cl_len;
    char cl[32];             /* the Content-Length value and the blank line */
    uint64_t deadline;       /* --request-timeout; 0 = none */
    uint64_t t_read;         /* the read being parsed: its stamp (kernel_stamp, or when recv returned) */
    uint64_t t_last;         /* the latest stamp this transfer handed over: stamps never go back */
    uint64_t t_shift;        /* the read returned this long after its stamp (kernel_stamp) */
    int res;                 /* CURLcode once the transfer ended */
    struct gp_h1_resp r;
};

struct shard {
    struct loop *L;
    CURLM *multi;
    uint32_t idx;
    int timer_set;           /* curl asked to be called back at timer_ns */
    uint64_t timer_ns;
};

/* A slot is idle, busy (one transfer in flight: busy) or waiting (backing
 * off: waiting), never busy and waiting at once. gp_cl_slot_start takes an
 * idle slot to busy; the loop clears busy when the transfer ends, before
 * gp_cl_slot_record; back-off takes an idle slot to waiting and
 * gp_cl_sched_resume back to idle (client.c and client_sched.c assert it). */
struct slot {
    CURL *easy;              /* NULL when h1 carries the slot's requests */
    struct h1_xfer *h1;
    struct loop *L;
    struct shard *sh;
    uint32_t id;
    uint32_t gid;            /* closed loop: the job-wide slot number (= id when alone) */
    int busy;
    int warmup;
    int retried;
    uint32_t entry;
    uint32_t arrival;        /* recorded as gp_record.slot in rate mode */
    uint64_t t_sched;        /* open loop: when the job was due (0 = closed loop) */
    int cap_delayed;         /* open loop: it waited for the max_inflight cap */
    const char *bdata;       /* open loop: the body (client/schedule.c: a session turn's is rebuilt) */
    size_t blen;
    uint32_t endpoint;       /* index into o->urls of the current transfer */
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
    uint64_t cancel_at;      /* --request-cancellation-rate chose this transfer: abort it then (0 = not chosen) */
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
    struct gp_csched *q;     /* open-loop phase: what is due next (client/schedule.h); NULL = closed loop */
    uint64_t cap_block_due;  /* the latest due time seen blocked by the max_inflight cap */
    uint64_t cap_freed_ns;   /* when a slot last freed while the cap was full (0 = never) */
    uint32_t ep_inflight[GP_CLIENT_MAX_URLS]; /* several --url: this loop's requests in flight per endpoint */
    uint64_t ep_next;        /* several --url, round robin: the next one (mod n_urls) */
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
    struct gp_rng bo_rng;    /* back-off jitter (backoff.h) */
    size_t n_waiting;        /* slots backing off */
    uint64_t next_resume;    /* earliest resume_ns among them */
    struct gp_buf body;      /* scratch: a non-streamed body whose reads were not back to back */
    uint64_t next_cancel;    /* no chosen transfer is due for cancelling before this (0 = none armed) */
    /* libcurl event API: our epoll set holds curl's sockets and the stop fd */
    int epfd;
    int stop_in_epoll;       /* the stop fd is in the set (else polled each turn) */
    int stop_ready;          /* epoll reported the stop fd */
    int pwait2;              /* epoll_pwait2 works (ns timeouts) */
    struct epoll_event ev[512];
    /* h1 transport (client_h1.c); h1t NULL = libcurl */
    struct gp_h1_target *h1t; /* one per URL */
    size_t n_h1t;
    struct slot **h1_done;   /* finished transfers pump has not taken yet */
    size_t h1_ndone, h1_done_cap;
    uint64_t h1_next_deadline; /* no h1 transfer times out before this (0 = none armed) */
    char *h1_buf;            /* the read buffer: a read is parsed before the next */
    int rx_kstamp;           /* stamp reads with the kernel's receive time (SO_TIMESTAMPNS);
                              * GENPERF_RX_STAMP=user: when recv returns */
};

struct phase {
    int warmup;
    long count;              /* requests to send; -1 = until deadline */
    uint64_t deadline;       /* 0 = none */
    uint64_t start_ns;       /* schedule origin; 0 = when the phase begins */
};

/* The scheduler's state for one phase (client_sched.c). */
struct sched {
    const struct phase *ph;
    int rate_mode;           /* open loop: q drives the phase (rate arrivals, trace rows, session turns) */
    long nconc;              /* concurrency mode: active slots of the whole job */
    long first;              /* concurrency mode: job-wide number of this loop's first slot */
    long mine;               /* concurrency mode: slots this loop runs (first .. first+mine-1) */
    uint64_t share_index, share_count; /* this loop's job slot and the job's slots (>= 1) */
    long ramp_next;          /* concurrency ramp: this loop's next slot still closed (= mine: none) */
    size_t rec0;             /* records before this phase: the ramp flags only this phase's */
    struct gp_csched q;      /* open loop: the schedule (freed by gp_cl_sched_end) */
};

/* ---- client.c: easy handles ---- */
struct slot *gp_cl_slot_new(struct loop *L, struct gp_error *err);
void gp_cl_slot_free(struct slot *s);
int gp_cl_slot_start(struct loop *L, struct slot *s, uint32_t entry, struct gp_error *err);
int gp_cl_slot_record(struct loop *L, struct slot *s, CURLcode res, uint32_t extra_flags, struct gp_error *err);
int gp_cl_is_stale_connection(struct slot *s, CURLcode res);
/* Grows the fd table for the job's sockets (gp_client_fd_need); once per
 * process, before the loops start. */
void gp_cl_reserve_fd_table(const struct gp_client_opts *job);
/* A read's body bytes into the record store, stamped t; -1: the transfer must
 * stop (too_big or oom set). */
int gp_cl_slot_put(struct slot *s, const char *p, size_t n, uint64_t t);

/* ---- client_h1.c: the plain-http transport ----
 * setup: picks h1 when every URL allows it (GENPERF_TRANSPORT=curl|h1);
 * start: sends the slot's request (the slot's t_start is taken); event: an
 * epoll event tagged H1_TAG; expire: fails transfers past their timeout;
 * abort: drops the transfer in progress and its connection. */
int gp_cl_h1_setup(struct loop *L, struct gp_error *err);
void gp_cl_h1_teardown(struct loop *L);
int gp_cl_h1_slot_init(struct loop *L, struct slot *s, struct gp_error *err);
void gp_cl_h1_slot_free(struct slot *s);
void gp_cl_h1_start(struct loop *L, struct slot *s, const char *body, size_t blen);
void gp_cl_h1_event(struct loop *L, uint64_t tag, uint32_t events);
void gp_cl_h1_expire(struct loop *L, uint64_t now);
void gp_cl_h1_abort(struct loop *L, struct slot *s);

/* ---- client_loop.c: the event loop ---- */
struct shard *gp_cl_shard_for(struct loop *L, uint32_t id, struct gp_error *err);
int gp_cl_abandon_inflight(struct loop *L, int record, struct gp_error *err);
int gp_cl_run_phase(struct loop *L, const struct phase *ph, struct gp_error *err);
/* One zero-timeout epoll_wait, ready sockets handed to curl (a new
 * connection's request goes out without waiting for the next turn). */
int gp_cl_drive_now(struct loop *L, struct gp_error *err);

/* ---- client_sched.c: the scheduler ----
 * begin: sizes the slots for the phase and starts the closed loop's first
 * requests; start_due: starts every open-loop arrival that is due at `now`;
 * more: arrivals remain; wait_ns: lowers *wait_ns to the next arrival;
 * on_done: a closed-loop slot finished a request, start its next one. */
int gp_cl_sched_begin(struct loop *L, struct sched *S, const struct phase *ph, struct gp_error *err);
int gp_cl_sched_start_due(struct loop *L, struct sched *S, uint64_t now, struct gp_error *err);
int gp_cl_sched_more(const struct loop *L, const struct sched *S);
void gp_cl_sched_wait(const struct loop *L, const struct sched *S, uint64_t now, uint64_t *wait_ns);
int gp_cl_sched_on_done(struct loop *L, struct sched *S, struct slot *sl, CURLcode res, struct gp_error *err);
void gp_cl_sched_end(struct loop *L, struct sched *S);
/* Closed loop: starts the backing-off slots whose wait is over (drops them on
 * a stop or at the deadline) and notes the earliest pending resume. */
int gp_cl_sched_resume(struct loop *L, struct sched *S, uint64_t now, struct gp_error *err);

/* ---- client_stats.c: progress, first error, CPU time ---- */
uint64_t gp_cl_count_events(const char *p, size_t n);
void gp_cl_note_first_error(struct loop *L, long status, const char *txt, size_t len);
void gp_cl_progress_draw(struct loop *L, uint64_t now, int final);
/* What one progress line shows; gp_cl_progress_print draws it (the one
 * loop's line and the workers' summed line are the same line). */
struct gp_cl_progress_view {
    int warmup, stopping;
    uint64_t warmup_sent, done, failed, events, inflight;
    long total;              /* measured requests asked for; <= 0: none (duration, plan) */
    uint64_t duration_ns;    /* > 0: a time-bounded run */
    double elapsed_s;
};
void gp_cl_progress_print(FILE *fp, const struct gp_cl_progress_view *v, int final);
/* The workers' published counters summed into one line (client_workers.c
 * calls it); *shown_warmup: whether the last line drawn was warmup's, so
 * the measured phase starts a line of its own. */
void gp_cl_progress_sum(const struct gp_client_opts *o, struct gp_client_progress *pub, int n, uint64_t now, int final,
                        int *shown_warmup);
uint64_t gp_cl_thread_cpu_ns(void);

#endif
