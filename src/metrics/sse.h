/* metrics/sse.h — streaming-safe Server-Sent Events parsing (sse.c) and the
 * OpenAI response extraction built on it (event.c; responses.c and
 * anthropic.c for the other wire formats, all read with jscan.c's scanner).
 *
 * Owns: struct gp_sse (two growable buffers, reused across events and
 * requests: no allocation per event once warm). The caller owns the struct;
 * gp_sse_free releases the buffers. Pure: no I/O, no globals.
 *
 * Accepted on the wire (sse-and-servers.md §0, §6): events split across reads
 * and several events per read; LF, CRLF and CR line ends (a CR at the end of a
 * read waits for the next byte); `data:` with or without one space; several
 * data lines joined with '\n'; `:` comments, event:/id:/retry:/unknown fields
 * ignored; a final event without its blank line is dispatched at EOF.
 */
#ifndef GP_METRICS_SSE_H
#define GP_METRICS_SSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/* Called once per dispatched event with its data: the event's data lines
 * joined by '\n', trailing spaces/tabs removed, len bytes, and data[len] is
 * always '\0'. event_type is the last `event:` value ("" if none). The
 * pointer is valid only during the call. Return non-zero to stop feeding
 * (gp_sse_feed returns that value). */
typedef int (*gp_sse_event_fn)(void *ctx, const char *data, size_t len, const char *event_type);

struct gp_sse {
    struct gp_buf line;    /* the incomplete line carried over between reads */
    struct gp_buf data;    /* data lines of the event being built */
    char event[32];        /* last event: field of the event being built */
    int have_data;
    int pending_cr;        /* last byte seen was CR: skip a following LF */
};

void gp_sse_init(struct gp_sse *p);
void gp_sse_reset(struct gp_sse *p);   /* new stream; keeps buffer capacity */
void gp_sse_free(struct gp_sse *p);
int gp_sse_feed(struct gp_sse *p, const char *bytes, size_t n, gp_sse_event_fn fn, void *ctx);
/* End of stream: dispatches a last event that had no blank line. */
int gp_sse_finish(struct gp_sse *p, gp_sse_event_fn fn, void *ctx);

/* ---- one OpenAI event / body -------------------------------------------- */

enum gp_event_kind {
    GP_EV_CHUNK = 0,   /* chat.completion(.chunk) / text_completion: see fields */
    GP_EV_DONE,        /* [DONE] */
    GP_EV_ERROR,       /* top-level "error" key, or {"object":"error"} */
    GP_EV_BAD,         /* not JSON / unexpected shape (ignored, counted) */
    GP_EV_FOREIGN,     /* a well-formed JSON object that is no event or answer of the API
                          read (chat: neither "choices" nor a "usage" object; Anthropic: no
                          "type"): {}, {"status":"ok"}. Ignored and counted as malformed; a 2xx
                          that brought nothing else fails as no_content (issue 38 item 6) */
};

/* The usage counts an event may carry, as bits of gp_event_info.bad_usage. */
enum gp_usage_field {
    GP_USAGE_PROMPT = 1u << 0,
    GP_USAGE_COMPLETION = 1u << 1,
    GP_USAGE_CACHED = 1u << 2,
    GP_USAGE_CACHE_WRITE = 1u << 3,
};

/* What one event (or one non-streamed body) carried. Text is appended to
 * the caller's buffers (so a request's content accumulates with no
 * allocation per event); *_len say how much this event added. */
struct gp_event_info {
    enum gp_event_kind kind;
    size_t content_len;        /* bytes appended to content: the model's output text (chat:
                                  delta/message .content, .refusal, tool_calls arguments; text) */
    size_t reasoning_len;      /* bytes appended to reasoning (reasoning_content or reasoning) */
    int has_usage;
    long prompt_tokens, completion_tokens;   /* -1 when absent or not a count */
    long cached_tokens;        /* prompt tokens read from the server's prefix cache, -1 when absent:
                                  usage.prompt_tokens_details.cached_tokens (chat; part of
                                  prompt_tokens), input_tokens_details.cached_tokens (Responses;
                                  part of input_tokens), cache_read_input_tokens (Anthropic; NOT
                                  part of its input_tokens) */
    long cache_write_tokens;   /* Anthropic's cache_creation_input_tokens (prompt tokens written to
                                  its cache, not part of input_tokens either), -1 when absent */
    unsigned bad_usage;        /* enum gp_usage_field bits: the usage counts that were not an
                                  integer in [0, INT32_MAX] (out of range, fractional, negative,
                                  not a number); each reads -1. Per count, so that a stream's
                                  later bad count can unset an earlier good one (scan.c) */
    int has_finish;            /* finish_reason non-null */
    int n_choices;             /* -1 when there was no "choices" */
    int error_code;            /* error.code when an integer, else 0 */
    int ends_stream;           /* Responses API: response.completed / response.incomplete, the
                                  stream's last event (it sends no [DONE]) */
};

/* Parses one JSON event/body (len bytes, need not be NUL-terminated).
 * content/reasoning/errtext may be NULL (then the text is not kept).
 * errtext receives the error message for GP_EV_ERROR. */
void gp_event_parse(const char *json, size_t len, struct gp_buf *content, struct gp_buf *reasoning,
                    struct gp_buf *errtext, struct gp_event_info *out);

/* The last event that gp_event_parse_tmpl parsed in full and whose only text
 * is one content string (a vLLM / SGLang / TRT-LLM token chunk). The next
 * event whose bytes equal it outside that string parses to the same info but
 * for the string, so only the string is read: a stream's id, model, created,
 * index, finish_reason and usage bytes repeat in every chunk, and walking
 * their keys was most of the post-run parse. The parse is a pure function of
 * the bytes, so one template may serve many requests (no reset needed).
 * Owns bytes (grown once, reused: no allocation per event once warm); zero
 * it to start, gp_event_tmpl_free releases it. */
struct gp_event_tmpl {
    struct gp_buf bytes;        /* the event's JSON, blanks around it trimmed */
    size_t cstart, cend;        /* its content string: opening quote .. past the closing one */
    struct gp_event_info info;  /* what it parsed to (content_len aside) */
    int valid;
    unsigned long hits;         /* events answered from the template (tests, benches) */
};
void gp_event_tmpl_free(struct gp_event_tmpl *t);

/* gp_event_parse with a template (NULL: exactly gp_event_parse): the same
 * result and the same bytes appended, for any input. */
void gp_event_parse_tmpl(const char *json, size_t len, struct gp_buf *content, struct gp_buf *reasoning,
                         struct gp_buf *errtext, struct gp_event_tmpl *t, struct gp_event_info *out);

/* The OpenAI Responses API (POST /v1/responses; responses.c): one streamed
 * event ({"type":"response.output_text.delta","delta":..}, any key order)
 * or one non-streamed response object ({"object":"response","output":[..]}).
 * Text, refusal and tool-call deltas (response.output_text.delta,
 * .refusal.delta, .function_call_arguments.delta, ...; responses.c lists
 * them) are content; reasoning_text and
 * reasoning_summary_text deltas are reasoning; every other event type
 * (response.created, .in_progress, .output_item.added, .output_text.done
 * with the whole text again, ...) carries no tokens. response.completed and
 * response.incomplete end the stream (ends_stream, has_finish) with
 * response.usage (input_tokens, output_tokens as prompt/completion tokens);
 * response.failed and "type":"error" are GP_EV_ERROR. An object of neither
 * shape ([DONE], a chat-shaped {"error":..}) is read by gp_event_parse. The
 * same contract as gp_event_parse: no allocation but appending to the
 * caller's buffers, nothing kept from a malformed event. */
void gp_responses_event_parse(const char *json, size_t len, struct gp_buf *content, struct gp_buf *reasoning,
                              struct gp_buf *errtext, struct gp_event_info *out);

/* The same for one Anthropic Messages API event or body (anthropic.c):
 * text / text_delta and tool input (input_json_delta's partial_json; a
 * tool_use block's input as raw JSON bytes) are content, thinking /
 * thinking_delta reasoning, usage.input_tokens / output_tokens the usage
 * counts (cache_read_ and cache_creation_input_tokens as cached_tokens /
 * cache_write_tokens), a non-null
 * stop_reason the finish, "type":"message_stop" GP_EV_DONE (the stream's
 * end in place of [DONE]), "type":"error" GP_EV_ERROR. */
void gp_event_parse_anthropic(const char *json, size_t len, struct gp_buf *content, struct gp_buf *reasoning,
                              struct gp_buf *errtext, struct gp_event_info *out);

#endif
