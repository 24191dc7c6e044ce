/* client/session.h — one multi-turn session's conversation, as the client
 * sends it (GenAI-Perf 0.0.16 / perf_analyzer's chat history rule).
 *
 * Owns: struct gp_csession — the history (a jansson array of message
 * objects) and the body of the turn being sent (a gp_buf). Free with
 * gp_csession_free. Only one turn of a session is in flight at a time, so
 * one body buffer per session is enough; the pointer gp_csession_body
 * returns stays valid until the next gp_csession_body or free.
 *
 * Rule (docs/dataset.md "Sessions"): each turn's own "messages" are appended
 * to the history, the body's "messages" is replaced by the whole history and
 * re-serialized compactly (RapidJSON's form, as perf_analyzer sends it);
 * after the response the assistant message is appended: the non-streamed
 * response's choices[0].message as the server returned it, or for an SSE
 * stream {"role": "assistant", "content": <the delta contents joined>}.
 * Done once per turn, off the per-event hot path.
 */
#ifndef GP_CLIENT_SESSION_H
#define GP_CLIENT_SESSION_H

#include <jansson.h>
#include <stddef.h>

#include "core/buf.h"

struct gp_record_store;
struct gp_record;

struct gp_csession {
    json_t *hist;          /* array of message objects, NULL until the first turn */
    struct gp_buf body;    /* the body of the turn in flight */
};

/* Builds the body of the next turn from that turn's own body (a chat body
 * with "messages"); a body without "messages" (completions) is sent as it
 * is. Returns 0 (and out, outlen), or -GP_ENOMEM / -GP_EINVAL (not JSON). */
int gp_csession_body(struct gp_csession *s, const char *turn_body, size_t len, const char **out, size_t *outlen);

/* Appends the assistant reply recorded in r (its chunks in st) to the
 * history. A failed or empty response appends {"role":"assistant",
 * "content":""} so the turns still alternate. 0 or -GP_ENOMEM. */
int gp_csession_reply(struct gp_csession *s, const struct gp_record_store *st, const struct gp_record *r);

/* The assistant text of a recorded response (streamed or not) appended to
 * out; exposed for tests. 0, or -GP_ENOMEM. */
int gp_csession_reply_text(const struct gp_record_store *st, const struct gp_record *r, struct gp_buf *out);

void gp_csession_free(struct gp_csession *s);

#endif
