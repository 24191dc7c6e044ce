/* client/client_int.h — private to client/: the structs the client's layers
 * share (slot, shard, loop, phase, sched) and client_stats.c's functions.
 * Owns nothing by itself; gp_client_run (client_run.c) creates and frees
 * everything these structs point to.
 *
 * The layers, each calling only those below it (scripts/check-circles.py
 * src/client: no circle), each with its own header saying what it owns:
 *   client_run.c        gp_client_run: headers, URL checks, the fd table,
 *                       setup, the warmup and measured phases, teardown
 *   client_loop.c       cl_loop.h: the phase loop: stop fd, wait budget,
 *                       finished transfers taken from the transport and
 *                       handed to the request and scheduler layers
 *   client_sched.c      cl_sched.h: the scheduler: which request goes next
 *                       and when (closed loop slots and quotas, ramps, back-off
 *                       resumes, open loop arrivals)
 *   client.c            cl_request.h: a slot's request: its easy handle and
 *                       callbacks, start, record, stale-connection check
 *   client_transport.c  cl_transport.h: the epoll set (core/evloop.h), curl's
 *                       shards and callbacks, dispatch, drive_now
 *   client_h1.c         cl_transport.h: the plain-http keep-alive transport
 *                       that replaces libcurl when every URL is http:// and
 *                       nothing needs libcurl (h1.h: parser and request
 *                       head); its finished transfers queue on h1_done
 *   client_body.c       cl_transport.h: a transfer's bytes into the store
 * and beside them, called from any layer and calling none:
 *   client_stats.c      the progress line, first-error text, thread CPU time
 * (client_workers.c runs several loops on threads, over gp_client_run.)
 */
#ifndef GP_CLIENT_CLIENT_INT_H
#define GP_CLIENT_CLIENT_INT_H

#include "client/backoff.h"
#include "client/client.h"
#include "client/h1.h"
#include "client/record.h"
#include "client/schedule.h"
#include "core/buf.h"
#include "core/evloop.h"
#include "core/rng.h"

#include <curl/curl.h>
#include <stdint.h>

struct loop;
struct gp_error;

/* One curl multi handle and its timer. libcurl 7.88 walks every connection
 * to the host on each request (connection reuse lookup, handle removal), so
 * one multi handle for 1,024 transfers costs O(1,024) per request; shards of
 * SHARD_SLOTS transfers, all in the same epoll set, bound that walk. HTTP/2
 * keeps one shard so that its streams share connections. */
#define SHARD_SLOTS 128
#define CL_MAX_EVENTS 512        /* epoll events taken per wait */
#define STOP_SHARD UINT32_MAX    /* epoll tag of the stop fd */
/* epoll tag of an h1 socket: (H1_TAG | endpoint) << 32 | slot id; shard
 * indexes stay far below it */
#define H1_TAG 0x80000000u
/* The failure of a body sent with a Content-Encoding nobody asked for (no
 * Accept-Encoding is sent), on both transports; %s twice: the encoding. */
#define CL_ENCODING_FMT                                                                                         \
    "response body is %s-encoded (Content-Encoding: %s) though no Accept-Encoding was sent; genperf reads "     \
    "unencoded bodies only (turn compression off at the server or proxy)"

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
    /* the transport's epoll set (core/evloop.h): curl's sockets, h1's, the stop fd */
    struct gp_evloop el;     /* CL_MAX_EVENTS events per wait */
    int stop_in_epoll;       /* the stop fd is in the set (else polled each turn) */
    int stop_ready;          /* epoll reported the stop fd */
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
