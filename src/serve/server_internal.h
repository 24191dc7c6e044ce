/* serve/server_internal.h — what the files of `genperf serve` share (private
 * to src/serve/server*.c; the public entry points are in serve/server.h).
 *
 * The server is one thread, one core/evloop.h loop (an epoll set,
 * level-triggered, whose tags are slot indexes). Per connection:
 * an input buffer (parsed in place by serve/http.c, pipelining-safe: only one
 * request is in flight per connection and the bytes after it wait in the
 * buffer), an output buffer that collects everything one event produces so
 * it leaves in a single send(), and at most one live timer. Timers are
 * gp_evloop timers (key: the connection's token; arg: slot << 32 | kind):
 * cancelling a timer is bumping the token, stale ones are skipped when they
 * surface.
 *
 * Three timing modes, chosen once: zero-delay (emit as fast as the socket
 * takes it), fixed delays (--ttft-ms/--itl-ms, per-request timers) and the
 * continuous-batching engine (serve/sim.c, one engine timer).
 *
 * Owns: struct srv (one per gp_serve_run, on its stack) owns every struct
 * conn through s->slots; a connection is freed only from the deferred close
 * list (srv_conn_close queues it, the loop's reap frees it) at the end of a
 * loop iteration, so no callback can free something a caller still holds.
 * struct sreq lives inside its connection and is reset, not freed, between
 * requests.
 *
 * This header holds only what every layer shares: the structs, the enums
 * and srv_queued. The functions are declared by the four layers' headers,
 * each including the one below it; a file calls only its own layer and the
 * layers below (python3 scripts/check-circles.py src/serve: no circle):
 *   server.c                the loop on top: set-up/tear-down, one turn
 *                           (wait, dispatch, due timers, the engine's step,
 *                           ready pass, flush, reap) and what a timer does
 *   serve/srv_req.h         request layer: server_route.c, server_request.c,
 *                           server_pool.c, server_pcache.c
 *   serve/srv_gen.h         generation layer: server_gen.c, server_fault.c,
 *                           server_json.c
 *   serve/srv_resp.h        response/lifecycle layer: server_out.c,
 *                           server_log.c, server_metrics.c
 *   serve/srv_io.h          connection/IO layer: server_conn.c
 * A lower layer never calls up: the IO layer's read returns to the loop,
 * which hands the input to srv_process_input or aborts the request; a timer
 * comes back through the loop's gp_evloop_timer_due, which dispatches by
 * kind to the generation layer; the engine calls srv_sim_emit, which the
 * loop passes to gp_sim_step.
 */
#ifndef GP_SERVE_SERVER_INTERNAL_H
#define GP_SERVE_SERVER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/buf.h"
#include "core/evloop.h"
#include "core/fsutil.h"
#include "serve/render.h"
#include "serve/server.h"
#include "serve/sim.h"
#include "tokenizer/tokenizer.h"

struct gp_error;
struct gp_http_req;
struct gp_tokenizer;
struct json_t;

#define OUT_HIGH_WATER (64 * 1024)  /* stop rendering when this much is queued */
#define EMIT_BURST 256              /* most chunks one zero-delay pass renders */

enum mode { MODE_ZERO = 0, MODE_FIXED, MODE_BATCH };
enum rstate { R_NONE = 0, R_HOLD, R_GEN, R_DONE };
enum tkind { T_IDLE = 1, T_TOKEN, T_HOLD, T_STALL, T_KEEPALIVE };
enum fault {
    F_NONE = 0, F_429, F_500, F_503, F_STREAM_ERROR, F_RESET, F_STALL, F_MALFORMED, F_SLOW_HEADERS, F_COUNT
};

/* ---- tokens ------------------------------------------------------------ */

struct toktab {
    struct gp_buf esc;      /* every safe token's JSON-escaped text, back to back */
    uint32_t *off, *len;
    uint32_t n;
    int strip_first;        /* SentencePiece: a response's first token drops its space */
};

/* ---- histograms for /metrics ------------------------------------------- */

#define HMAX 24
struct hist {
    const double *le;
    int n;
    uint64_t cnt[HMAX + 1];
    double sum;
    uint64_t total;
};

/* ---- prefix cache (server_pcache.c, --prefix-cache) -------------------- */

#define GP_PCACHE_BLOCK 16          /* tokens per cached block (vLLM's default block size) */
#define GP_PCACHE_SLOTS (1u << 20)  /* hash slots: 8 MiB, allocated on the first lookup */

struct srv_pcache {
    uint64_t *set;             /* chained block hashes, 0 = empty */
    size_t used;
    uint64_t queries, hits;    /* prompt tokens looked up / found cached */
    struct gp_ids ids;         /* the request being counted: its prompt's token ids */
};


/* ---- connection and request -------------------------------------------- */

struct sreq {
    int state;                 /* enum rstate */
    int endpoint, stream, include_usage, continuous_usage, http10;
    int lora;                  /* the request named a --lora adapter */
    uint64_t seq;
    char id[64];
    char model[256];
    char prompt_head[80];
    /* timing log, for session tests (a session is its first message, a turn
     * its message count): messages in a chat body, the head of its last
     * assistant message, and the head of the reply (escaped, whole tokens) */
    uint32_t n_messages;
    char assistant_head[48];
    char reply_head[48];
    uint32_t reply_head_len;
    uint32_t prompt_tokens, out_tokens, reasoning_n, generated;
    int finish;                /* GP_FINISH_* the request will end with */
    int fault;
    uint32_t fault_at;         /* token index (1-based) where a mid-stream fault fires */
    int fault_done;
    uint32_t miscount;         /* added to usage.completion_tokens (--miscount-rate) */
    uint32_t cached_tokens;    /* --prefix-cache: prompt tokens found in the cache */
    int active;                /* counted in the engine / running_fixed */
    int logged;                /* --timing-log: record chunk stamps */
    int headers_sent;
    int status;
    uint64_t rng;              /* one-word gp_splitmix64 stream: seeded by --seed and seq */
    uint64_t t_request_ns, t_first_ns, t_last_ns, t_base_ns;
    uint64_t t_next_ns;        /* fixed/zero-delay: when the next token is due */
    uint64_t t_ka_ref_ns;      /* last event, for --sse-keep-alive-s */
    struct gp_render rd;
    struct gp_buf text, rtext;   /* non-streamed: escaped content / reasoning */
    struct gp_buf pend;          /* streamed: tokens waiting for their chunk (--stream-interval) */
    uint32_t pend_n;
    uint32_t pend_target;      /* tokens the pending chunk waits for (--stream-interval[-max]) */
    struct gp_sim_seq sq;
    uint64_t *ts;              /* timing log: one stamp per SSE event (or body) */
    uint32_t nts, cts, stamped;
    struct gp_buf kinds;       /* one letter per stamped event, see docs/serve.md */
    /* response_format json_schema (server_json.c): 1 = the answer is JSON,
     * 2 = JSON cut short (--invalid-json-rate); its head and tail (escaped),
     * and the tokens they hold beyond one each (added to usage) */
    int json_mode;
    uint32_t json_extra;
    struct gp_buf json_pre, json_suf;
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

/* epoll tags: a connection's is its slot index; these two are above any. */
#define SRV_TAG_LISTEN ((uint64_t)UINT32_MAX)
#define SRV_TAG_SIGNAL ((uint64_t)UINT32_MAX - 1)
#define SRV_MAX_EVENTS 256  /* events one wait returns */

struct srv {
    const struct gp_serve_opts *o;
    int mode;
    struct gp_evloop L;        /* epoll set and timer heap (core/evloop.h) */
    int lfd, sfd;
    struct gp_tokenizer *tok;
    struct toktab tt;
    struct conn **slots;
    uint32_t nslots, cap_slots;
    uint32_t *freelist;
    uint32_t nfree;
    uint32_t nconns;
    uint64_t tok_seq;
    struct gp_sim sim;
    struct conn *dirty, *ready, *closing;
    struct gp_buf scratch;
    char *rbuf;
    size_t rbuf_cap;
    uint64_t seq;
    uint64_t ttft_ns, itl_ns, slow_headers_ns, stall_ns, idle_ns, ka_ns;
    uint64_t lora_ttft_ns;             /* --lora-ttft-ms */
    char date[40];
    time_t date_sec;
    /* timing log */
    struct gp_atomic_file logf;
    int log_open;
    struct gp_buf logbuf;
    /* metrics */
    uint64_t prompt_total, gen_total, succ_stop, succ_length, succ_abort, n_requests;
    /* --stream-interval-max M (serve's speculative mode; vLLM's
     * vllm:spec_decode_* counters): each chunk after a request's first token
     * is one step that proposed M - 1 draft tokens and accepted all but one
     * of the tokens it carries. A plain --stream-interval N is chunking and
     * counts nothing here. */
    uint64_t spec_drafts, spec_draft_tokens, spec_accepted;
    struct srv_pcache pcache;  /* --prefix-cache */
    uint32_t running_fixed;
    struct hist h_ttft, h_itl, h_e2e;
    int stop;
    uint64_t ready_at_ns;      /* SGLang --load-s: health answers 503 until then */
    /* accept ran out of descriptors: the listener is out of the epoll set
     * until a connection closes or accept_retry_ns (srv_on_accept) */
    int accept_paused;
    uint64_t accept_retry_ns;
    uint64_t n_accept_pauses;
};

/* Bytes of c->out not yet sent. */
static inline size_t srv_queued(const struct conn *c) { return c->out.len - c->out_off; }

#endif
