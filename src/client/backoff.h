/* client/backoff.h — the reconnect back-off of the closed loop.
 *
 * Owns: struct gp_backoff, a plain value per concurrency slot (no heap,
 * nothing to free). The jitter draws come from a gp_rng the caller owns.
 *
 * Why: a slot whose request failed at the connection level (refused, reset,
 * no answer) used to send its next request at once, so a dead server got a
 * burst of connection attempts from every slot and the run burnt through its
 * request count in milliseconds. After such a failure the slot now waits
 * base * 2^k (k = consecutive connection failures of the slot, 0-based),
 * capped at max, with "equal jitter": uniform in [d/2, d], so that slots
 * failing together do not retry in lockstep. Any request that reached the
 * server (an HTTP answer, even 5xx; a timeout; a body cut by the byte cap)
 * resets the slot's level: those are the server's answers, not reconnects.
 */
#ifndef GP_CLIENT_BACKOFF_H
#define GP_CLIENT_BACKOFF_H

#include <stdint.h>

#include "core/rng.h"

#define GP_BACKOFF_BASE_NS 10000000ull    /* 10 ms */
#define GP_BACKOFF_MAX_NS 1000000000ull   /* 1 s */

struct gp_backoff {
    unsigned level;          /* consecutive connection-level failures of this slot */
};

/* 1 when a transfer that ended with this CURLcode never got (or lost) its
 * connection: refused, unresolvable, reset, nothing received, send/receive
 * error. Timeouts and HTTP statuses are not. */
int gp_backoff_is_connection_failure(int curl_code);

/* The delay before the slot's next request after one more connection-level
 * failure (and the level goes up by one): in [d/2, d], d = min(base << level,
 * max). base 0 picks GP_BACKOFF_BASE_NS, max 0 GP_BACKOFF_MAX_NS. */
uint64_t gp_backoff_next(struct gp_backoff *b, struct gp_rng *rng, uint64_t base_ns, uint64_t max_ns);

/* The slot's request reached the server: the next failure starts at base. */
static inline void gp_backoff_reset(struct gp_backoff *b) { b->level = 0; }

#endif
