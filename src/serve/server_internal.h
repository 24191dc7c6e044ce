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
 * requests. The files:
 *   server.c          entry point, set-up/tear-down, the event loop, timers
 *   server_out.c      output buffering: headers, chunks, simple answers, flush
 *   server_conn.c     accept/read, input processing, routing, small endpoints
 *   server_request.c  parsing and validating a generate request
 *   server_gen.c      the emit-token table and token generation
 *   server_fault.c    fault injection (--fault-rate-*, --max-queued)
 *   server_metrics.c  the /metrics histograms and exposition text
 *   server_pcache.c   the prefix cache of --prefix-cache
 *   server_log.c      the timing log and the request lifecycle
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

/* Cached tokens of the prompt ids[0..n) (whole leading blocks seen before,
 * at most n - 1), then remembers its blocks; counts queries and hits. */
uint32_t srv_pcache_lookup(struct srv_pcache *pc, const uint32_t *ids, size_t n);
void srv_pcache_free(struct srv_pcache *pc);

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
    /* --stream-interval N > 1 read as speculative decoding (vLLM's
     * vllm:spec_decode_* counters): each chunk after a request's first token
     * is one step that proposed N - 1 draft tokens and accepted all but one
     * of the tokens it carries */
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

/* ---- server.c: timers ---------------------------------------------------- */

/* Arms c's one timer (replacing any live one); closes c when out of memory. */
void srv_set_timer(struct srv *s, struct conn *c, uint64_t t, int kind);
void srv_cancel_timer(struct srv *s, struct conn *c);

/* ---- server_out.c: output buffering -------------------------------------- */

/* Queue c for the end-of-iteration flush / for the ready pass (serve the
 * next pipelined request or pump its generation). Both ignore closing c. */
void srv_mark_dirty(struct srv *s, struct conn *c);
void srv_mark_ready(struct srv *s, struct conn *c);
/* Queues c on the deferred close list (freed by the loop, never here). */
void srv_conn_close(struct srv *s, struct conn *c);
/* Sends what c->out holds; waits for EPOLLOUT when the socket is full. */
void srv_conn_flush(struct srv *s, struct conn *c);
/* Appends s->scratch to c->out as one HTTP chunk (or raw for HTTP/1.0) and
 * empties s->scratch. */
int srv_put_chunk(struct srv *s, struct conn *c);
/* Status line and headers; clen < 0 = chunked (or close-delimited, HTTP/1.0). */
void srv_put_headers(struct srv *s, struct conn *c, int status, const char *ctype, long long clen,
                     const char *extra);
void srv_send_simple(struct srv *s, struct conn *c, int status, const char *ctype, const char *body, size_t len);
/* The flavour's JSON error body (TRT-LLM 400 "validation": {"error": msg}). */
void srv_send_json_error(struct srv *s, struct conn *c, int status, const char *type, const char *msg,
                         const char *param);

/* ---- server_log.c: timing log and request lifecycle ---------------------- */

/* Opens --timing-log (if set); srv_log_close writes what is buffered and
 * commits the file, returning 0 or a negative code with err filled. */
int srv_log_open(struct srv *s, struct gp_error *err);
int srv_log_close(struct srv *s, struct gp_error *err);
/* Reserves a timing-log slot for one event of kind (see docs/serve.md); the
 * time is filled in by srv_stamp_pending when the bytes reach send(). */
void srv_stamp(struct sreq *r, char kind);
void srv_stamp_pending(struct sreq *r, uint64_t t);
/* The response is complete in c->out: log it, reset the request, and let the
 * ready pass serve the next pipelined request (or close when not keep-alive). */
void srv_req_finish(struct srv *s, struct conn *c, const char *outcome);
/* Closes a connection in the middle of a response (client gone, reset). */
void srv_conn_abort(struct srv *s, struct conn *c, const char *outcome);

/* ---- server_gen.c: token table and generation ---------------------------- */

int srv_toktab_build(struct gp_tokenizer *tok, struct toktab *t, struct gp_error *err);
long srv_toktab_selfcheck(struct gp_tokenizer *tok, const struct toktab *t, uint32_t n);
/* server_json.c: plans the JSON answer of a request with response_format
 * json_schema, given the request's response_format (after plan_output and
 * the tool-call decision; no-op
 * otherwise), and the text of piece k when it is the JSON head or tail
 * (NULL: a word, drawn as usual). */
void srv_json_plan(struct srv *s, struct sreq *r, const struct json_t *response_format);
const char *srv_json_piece(const struct sreq *r, uint32_t k, size_t *len);
void srv_toktab_free(struct toktab *t);
void srv_start_stream_headers(struct srv *s, struct conn *c);
/* The stream's terminator (last HTTP chunk, or close for HTTP/1.0). */
void srv_end_stream(struct srv *s, struct conn *c);
/* Arms c's timer for its next token (or an SSE keep-alive comment first). */
void srv_arm_next(struct srv *s, struct conn *c);
/* A validated request starts producing tokens (the engine or its own timers). */
void srv_begin_generation(struct srv *s, struct conn *c);
/* Fixed/zero-delay modes: emits every due token (bounded per pass). */
void srv_pump(struct srv *s, struct conn *c);
/* gp_sim_emit_fn for the batching engine; ctx is the struct srv. */
void srv_sim_emit(void *ctx, struct gp_sim_seq *q, int first, int last);

/* ---- server_request.c ---------------------------------------------------- */

void srv_handle_generate(struct srv *s, struct conn *c, const struct gp_http_req *hr, int endpoint);
/* A request begins: sequence number, seeded stream, status 400 until answered. */
void srv_req_start(struct srv *s, struct sreq *r, int endpoint);
/* The body as a JSON object (new reference); NULL once answered 400. */
struct json_t;
struct json_t *srv_parse_body(struct srv *s, struct conn *c, const struct gp_http_req *hr);

/* ---- server_pool.c: embeddings and rankings ------------------------------- */

/* POST /v1/embeddings (endpoint GP_EP_EMBEDDINGS) or /v1/ranking, /rerank
 * (GP_EP_RANKING): answered at once with one JSON document. */
void srv_handle_pool(struct srv *s, struct conn *c, const struct gp_http_req *hr, int endpoint);

/* ---- server_fault.c ------------------------------------------------------ */

/* "429", "stream_error", ... for the timing log; NULL for F_NONE. */
const char *srv_fault_name(int fault);
/* Draws the request's fault (F_NONE when no rate is set: then no draw). */
int srv_pick_fault(struct srv *s, uint64_t *rng);
/* Answers a request whose fault (or --max-queued overload) fails it before
 * generation; returns 1 when it did (the request is finished). */
int srv_fault_upfront(struct srv *s, struct conn *c);
/* 1 when the response headers wait (--slow-headers-ms): a T_HOLD timer is armed. */
int srv_fault_hold(struct srv *s, struct conn *c);
/* The mid-stream fault due at token k: -1 none fired (emit normally), 0
 * generation paused (stall), 1 the request ended. */
int srv_fault_midstream(struct srv *s, struct conn *c, uint64_t now);

/* ---- server_metrics.c ---------------------------------------------------- */

void srv_metrics_init(struct srv *s);
void srv_hist_obs(struct hist *h, double v);
/* Counts a completed request (tokens, finish reason, end-to-end latency). */
void srv_metrics_done(struct srv *s, struct sreq *r, uint64_t now);
/* GET /metrics: Prometheus text, or TRT-LLM's JSON iteration stats. */
void srv_send_metrics(struct srv *s, struct conn *c, int iteration_json);

/* ---- server_conn.c ------------------------------------------------------- */

void srv_on_accept(struct srv *s);
/* Puts the listener back into the epoll set after an accept pause. */
void srv_accept_resume(struct srv *s);
void srv_on_readable(struct srv *s, struct conn *c);
/* Serves every complete request in the input buffer, one at a time. */
void srv_process_input(struct srv *s, struct conn *c);
void srv_conn_free(struct srv *s, struct conn *c);

#endif
