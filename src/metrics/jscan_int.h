/* metrics/jscan_int.h — the non-allocating JSON scanner that every wire-format
 * parser in metrics/ reads events with (jscan.c): chat and completions chunks
 * (event.c), the Responses API (responses.c), Anthropic Messages
 * (anthropic.c). Only metrics/ may include it.
 *
 * Owns nothing. A struct gp_js is a cursor over the caller's bytes [p, end)
 * and borrows them. The only writes are decoded strings appended to a buffer
 * the caller passes in and owns, so once those buffers are warm a parse
 * allocates nothing. It reads the few keys a parser asks for and skips the
 * rest without building a tree, because a DOM per event would dominate
 * post-processing time.
 *
 * Errors: malformed or truncated input sets j->bad. A call that finds
 * j->bad set already may read on, but it never reads past end. Parsers check
 * j->bad after each value and, on a bad event, take back what they appended
 * (gp_js_cut).
 */
#ifndef GP_METRICS_JSCAN_INT_H
#define GP_METRICS_JSCAN_INT_H

#include <stddef.h>
#include <string.h>

#include "core/buf.h"

struct gp_event_info;

struct gp_js {
    const char *p, *end;
    int bad;
};

/* s (n bytes) equals the string literal lit: a key or a raw value. */
#define GP_JS_EQ(s, n, lit) ((n) == sizeof(lit) - 1 && memcmp((s), lit, sizeof(lit) - 1) == 0)

/* ws, peek, eat and is_null run several times per key. They are inline so
 * that the common case (no blank before the next token) costs two compares
 * and no call. */
static inline void gp_js_ws(struct gp_js *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

/* The next non-blank byte (blanks consumed), or -1 at the end. */
static inline int gp_js_peek(struct gp_js *j)
{
    gp_js_ws(j);
    return j->p < j->end ? (unsigned char)*j->p : -1;
}

/* Consumes c if it is the next non-blank byte: 1, else 0. */
static inline int gp_js_eat(struct gp_js *j, char c)
{
    if (gp_js_peek(j) == (unsigned char)c) {
        j->p++;
        return 1;
    }
    return 0;
}

/* Consumes a null: 1, else 0 (nothing consumed but blanks). */
static inline int gp_js_is_null(struct gp_js *j)
{
    if (gp_js_peek(j) == 'n' && j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
        j->p += 4;
        return 1;
    }
    return 0;
}

/* Takes back what a parse appended to b past its first n bytes (b may be
 * NULL). A malformed event must leave no text behind, as GenAI-Perf keeps
 * none from it. */
static inline void gp_js_cut(struct gp_buf *b, size_t n)
{
    if (b && b->data && b->len > n) {
        b->len = n;
        b->data[n] = '\0';
    }
}

/* A string value. With out, its decoded bytes are appended to out and the
 * count appended is returned. With out NULL it is skipped (0). Lone
 * surrogates become U+FFFD rather than failing the event. */
size_t gp_js_str(struct gp_js *j, struct gp_buf *out);

/* Skips any value. Containers are skipped in a loop, not by recursion, so
 * hostile nesting cannot overflow the stack. */
void gp_js_skip(struct gp_js *j);

/* An integer value, with any fraction or exponent dropped. -1 (the value
 * skipped) when it is not a number. */
long gp_js_num(struct gp_js *j);

/* Iterates an object: call first with *first = 1. Returns 1 with the next key
 * (its raw bytes between the quotes, *k / *kl; the keys parsers look for
 * contain no escapes) and its ':' consumed, 0 at the closing brace, -1 on
 * malformed input (j->bad). */
int gp_js_obj_next(struct gp_js *j, int *first, const char **k, size_t *kl);

/* A text field: a string is appended to out (may be NULL) and its byte count
 * returned. null or any other value is skipped (0). */
size_t gp_js_text(struct gp_js *j, struct gp_buf *out);

/* A usage token count: a plain JSON integer in [0, INT32_MAX] (the records
 * keep int32), or -1 for null. Anything else a server sends (out of range, a
 * fraction or exponent, negative, a string) is no count at all: -1 with
 * field (enum gp_usage_field, the count being read) set in info->bad_usage,
 * never a number cut or rounded from it. */
long gp_js_usage_count(struct gp_js *j, struct gp_event_info *info, unsigned field);

/* The inside of a usage details object ({ already consumed):
 * {"cached_tokens": N} becomes info->cached_tokens (prefix-cache hits; chat's
 * prompt_tokens_details and the Responses API's input_tokens_details). */
void gp_js_cached_details(struct gp_js *j, struct gp_event_info *info);

/* A usage object that names its counts input_tokens / output_tokens (the
 * Responses API and Anthropic Messages both do): they become
 * info->prompt_tokens / completion_tokens, input_tokens_details.cached_tokens
 * (Responses) and cache_read_input_tokens (Anthropic) info->cached_tokens,
 * cache_creation_input_tokens (Anthropic) info->cache_write_tokens, and an
 * object sets info->has_usage. null or a non-object is skipped. The counts
 * are kept as sent: Anthropic's input_tokens leaves both cache counts out,
 * and the request's prompt is their sum, taken once the stream's last report
 * of each is known (metrics_request.c), since message_start and message_delta
 * may each carry some of them. */
void gp_js_usage_io(struct gp_js *j, struct gp_event_info *info);

/* The top-level keys of the JSON object json (len bytes), appended to out
 * as "a, b, c" (at most about max bytes, then ", ..."), to name what a
 * server sent that was no answer. Nothing is appended for a non-object. */
void gp_js_keys(const char *json, size_t len, struct gp_buf *out, size_t max);

/* An error value: {"message": "..", "code": N, ..} or "text". The message
 * goes to errtext when errtext is empty (the first error's text is kept). An
 * integer code in (0, 100000) goes to info->error_code, and any other code
 * sets it to 0. */
void gp_js_error_value(struct gp_js *j, struct gp_buf *errtext, struct gp_event_info *info);

/* ---- the shapes every parser reads (inline: small, and on the chat path) */

/* The usual start of reading a container that may be null: 1 when the next
 * value starts with open ('{' or '['; nothing consumed but blanks, so that
 * gp_js_obj_next / gp_js_arr_next open it), 0 when it was null (consumed) or
 * another value (skipped). */
static inline int gp_js_open(struct gp_js *j, char open)
{
    if (gp_js_is_null(j))
        return 0;
    if (gp_js_peek(j) != (unsigned char)open) {
        gp_js_skip(j);
        return 0;
    }
    return 1;
}

/* Iterates an array as gp_js_obj_next does an object: call first with
 * *first = 1. Returns 1 when an element is next (the caller reads it), 0
 * at the closing bracket, -1 on malformed input (j->bad). */
static inline int gp_js_arr_next(struct gp_js *j, int *first)
{
    if (*first) {
        if (!gp_js_eat(j, '[')) {
            j->bad = 1;
            return -1;
        }
        *first = 0;
        return gp_js_eat(j, ']') ? 0 : 1;
    }
    if (gp_js_eat(j, ']'))
        return 0;
    if (!gp_js_eat(j, ',')) {
        j->bad = 1;
        return -1;
    }
    return 1;
}

/* A finish value (finish_reason, stop_reason): any non-null value sets
 * *has_finish and is skipped; null is consumed. */
static inline void gp_js_finish(struct gp_js *j, int *has_finish)
{
    if (!gp_js_is_null(j)) {
        *has_finish = 1;
        gp_js_skip(j);
    }
}

#endif
