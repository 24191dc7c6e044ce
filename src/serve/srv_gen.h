/* serve/srv_gen.h — the generation layer of `genperf serve` (private to
 * src/serve/server*.c), above the response layer (serve/srv_resp.h):
 *   server_gen.c    the emit-token table and token generation in the three
 *                   timing modes
 *   server_fault.c  fault injection (--fault-rate-*, --max-queued)
 *   server_json.c   the JSON answer of response_format json_schema
 *
 * Owns: the token table s->tt (srv_toktab_build fills it, srv_toktab_free
 * frees it); a request's JSON head and tail live in its struct sreq.
 *
 * May call: the response and IO layers. Within the layer server_gen.c calls
 * server_fault.c and server_json.c, never the reverse. What makes tokens come
 * (a timer, the engine's step) is the loop's: it calls srv_pump,
 * srv_begin_generation or gp_sim_step with srv_sim_emit. */
#ifndef GP_SERVE_SRV_GEN_H
#define GP_SERVE_SRV_GEN_H

#include "serve/srv_resp.h"

struct json_t;

/* ---- server_gen.c ---------------------------------------------------------- */

int srv_toktab_build(struct gp_tokenizer *tok, struct toktab *t, struct gp_error *err);
long srv_toktab_selfcheck(struct gp_tokenizer *tok, const struct toktab *t, uint32_t n);
void srv_toktab_free(struct toktab *t);
/* A validated request starts producing tokens (the engine or its own timers). */
void srv_begin_generation(struct srv *s, struct conn *c);
/* Fixed/zero-delay modes: emits every due token (bounded per pass). */
void srv_pump(struct srv *s, struct conn *c);
/* gp_sim_emit_fn for the batching engine; ctx is the struct srv. */
void srv_sim_emit(void *ctx, struct gp_sim_seq *q, int first, int last);

/* ---- server_json.c --------------------------------------------------------- */

/* Plans the JSON answer of a request with response_format json_schema, given
 * the request's response_format (after plan_output and the tool-call
 * decision; no-op otherwise), and the text of piece k when it is the JSON
 * head or tail (NULL: a word, drawn as usual). */
void srv_json_plan(struct srv *s, struct sreq *r, const struct json_t *response_format);
const char *srv_json_piece(const struct sreq *r, uint32_t k, size_t *len);

/* ---- server_fault.c -------------------------------------------------------- */

/* Draws the request's fault (F_NONE when no rate is set: then no draw). */
int srv_pick_fault(struct srv *s, uint64_t *rng);
/* Answers a request whose fault (or --max-queued overload) fails it before
 * generation; returns 1 when it did (the request is finished). */
int srv_fault_upfront(struct srv *s, struct conn *c);

/* SGLang's errors raised inside its stream generator (a full queue, a prompt
 * over the context length): HTTP 200, `data: {"error": {...}}`, then
 * `[DONE]`; the request's renderer must be initialised. */
void srv_sglang_stream_error(struct srv *s, struct conn *c, int code, const char *type, const char *msg);
/* 1 when the response headers wait (--slow-headers-ms): a T_HOLD timer is armed. */
int srv_fault_hold(struct srv *s, struct conn *c);
/* The mid-stream fault due at token k: -1 none fired (emit normally), 0
 * generation paused (stall), 1 the request ended. */
int srv_fault_midstream(struct srv *s, struct conn *c, uint64_t now);

#endif
