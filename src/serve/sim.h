/* serve/sim.h — the continuous-batching timing model (a vLLM-like engine
 * reduced to its clock): a FIFO waiting queue, a running batch bounded by
 * max_batch sequences and kv_tokens KV-cache slots, and one engine step at a
 * time whose duration is
 *     decode_step_ns + per_seq_ns * (sequences decoding this step)
 *                    + prefill_ns_per_token * (prompt tokens prefilled this step)
 * A sequence admitted at the start of a step is prefilled in it and produces
 * its first token at the end of the step that completes its prefill (as
 * vLLM's prefill does); every other running sequence produces one token per
 * step. With max_batched_tokens (vLLM's --max-num-batched-tokens, chunked
 * prefill), a step holds at most that many tokens: one per decoding sequence
 * first, then prompt chunks in FCFS order, so a long prompt is prefilled over
 * several steps while the others keep decoding. A sequence reserves
 * prompt + output tokens of KV when admitted (no preemption), so requests
 * queue when the cache is full.
 *
 * Owns nothing it does not embed: struct gp_sim_seq lives inside the caller's
 * request object and is linked into the engine's lists; the caller must
 * gp_sim_remove() a sequence it abandons (client gone) before freeing it.
 * Pure logic and virtual time, so it is unit-tested without sockets.
 */
#ifndef GP_SERVE_SIM_H
#define GP_SERVE_SIM_H

#include <stdint.h>

struct gp_sim_cfg {
    uint64_t decode_step_ns;
    uint64_t per_seq_ns;
    uint64_t prefill_ns_per_token;
    uint32_t max_batch;
    uint64_t kv_tokens;
    uint32_t max_batched_tokens;   /* 0 = no per-step budget (whole prompts in one step) */
};

enum gp_sim_state { GP_SIM_IDLE = 0, GP_SIM_WAITING, GP_SIM_RUNNING };

struct gp_sim_seq {
    struct gp_sim_seq *prev, *next;
    uint32_t prompt_tokens;
    uint32_t cached;         /* leading prompt tokens in the prefix cache: not prefilled
                              * (still counted in its KV reservation) */
    uint32_t out_tokens;     /* tokens this sequence will produce in total */
    uint32_t generated;      /* tokens produced so far */
    int state;               /* enum gp_sim_state */
    int prefilling;          /* prefill progresses (or completes) in the current step */
    uint32_t prefilled;      /* prompt tokens prefilled so far */
    uint32_t chunk;          /* prompt tokens prefilled in the current step */
    uint64_t t_arrive_ns, t_admit_ns;
};

struct gp_sim_list {
    struct gp_sim_seq *head, *tail;
    uint32_t n;
};

struct gp_sim {
    struct gp_sim_cfg cfg;
    struct gp_sim_list waiting, running;
    uint64_t kv_used;
    uint64_t step_end_ns;    /* 0 when the engine is idle */
    uint64_t steps;
    uint32_t last_batch;     /* sequences in the step that ran last */
};

void gp_sim_init(struct gp_sim *s, const struct gp_sim_cfg *cfg);
/* Queues seq at time now; starts a step if the engine was idle. */
void gp_sim_add(struct gp_sim *s, struct gp_sim_seq *seq, uint64_t now);
/* Takes seq out of whichever list holds it and frees its KV. */
void gp_sim_remove(struct gp_sim *s, struct gp_sim_seq *seq);

/* Called for each token a step produced. first: the sequence's first token;
 * last: its final one (the engine drops it from the batch right after the
 * callback). The callback may gp_sim_remove (and even gp_sim_add again) the
 * sequence it was given, but no other one. */
typedef void (*gp_sim_emit_fn)(void *ctx, struct gp_sim_seq *seq, int first, int last);

/* Ends the step due at step_end_ns (call when now >= step_end_ns): emits the
 * step's tokens, retires finished sequences, admits waiting ones and starts
 * the next step at now. Returns the number of tokens emitted. */
uint32_t gp_sim_step(struct gp_sim *s, uint64_t now, gp_sim_emit_fn emit, void *ctx);

#endif
