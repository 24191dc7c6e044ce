/* metrics/scan.c — one record's raw chunks re-framed (SSE) and scanned into
 * a worker's scratch: content text and content chunk times (GenAI-Perf's
 * timing source), the first reasoning chunk, usage, [DONE] and errors.
 * Split out of metrics.c, which turns these into per-request metrics.
 * A read that completed an event carrying reasoning text is a reasoning
 * chunk; the first one stamps time to first reasoning token (reasoning.c).
 * Reasoning never moves GenAI-Perf's content-only TTFT or latency.
 */
#include "metrics/metrics_int.h"
#include "metrics/jscan_int.h"
#include "client/record.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One usage count of an event into the request's. A stream may report usage
 * more than once (chat's continuous usage stats, Anthropic's message_start
 * then message_delta), and the last report is the server's final word: a
 * count replaces the earlier one, and a count that was no count makes it
 * unknown (-1, its bit kept in s->bad_usage) rather than leave a superseded
 * number standing. An event that does not mention the count leaves it. */
static void take_count(struct gp_scan *s, long *dst, long v, unsigned bad, unsigned field)
{
    if (bad & field) {
        *dst = -1;
        s->bad_usage |= field;
    } else if (v >= 0) {
        *dst = v;
        s->bad_usage &= ~field;
    }
}

static int on_event(void *vctx, const char *data, size_t len, const char *event_type)
{
    struct gp_scan *s = vctx;
    struct gp_event_info info;
    s->events++;
    if (event_type[0] && !strcasecmp(event_type, "error")) {
        /* `event: error` (GenAI-Perf counts it as an error event too). The
         * name is matched whole: `event: message`, `event: completion` or
         * any other name carrying "error" inside it is an ordinary event. */
        if (!s->has_error) {
            gp_buf_reset(&s->first_err);
            gp_buf_append(&s->first_err, data, len > 2000 ? 2000 : len);
        }
        s->has_error = 1;
        return 0;
    }
    size_t before = s->content.len;
    if (s->responses_api)
        gp_responses_event_parse(data, len, &s->content, &s->reasoning, &s->errtext, &info);
    else if (s->anthropic)
        gp_event_parse_anthropic(data, len, &s->content, &s->reasoning, &s->errtext, &info);
    else
        gp_event_parse_tmpl(data, len, &s->content, &s->reasoning, &s->errtext, &s->tmpl, &info);
    if (s->content.len > before) { /* the server's own chunking (tokens per event) */
        if (s->nev == s->evcap) {
            size_t nc = s->evcap ? s->evcap * 2 : 256;
            size_t *p = realloc(s->ev_end, nc * sizeof *p);
            if (!p)
                return -GP_ENOMEM;
            s->ev_end = p;
            s->evcap = nc;
        }
        s->ev_end[s->nev++] = s->content.len;
    }
    s->last_bad = info.kind == GP_EV_BAD;
    switch (info.kind) {
    case GP_EV_DONE:
        s->done = 1;
        break;
    case GP_EV_ERROR:
        if (!s->has_error) {
            gp_buf_reset(&s->first_err);
            if (info.error_code)
                gp_buf_printf(&s->first_err, "in-stream error (code %d): ", info.error_code);
            else
                gp_buf_puts(&s->first_err, "in-stream error: ");
            if (s->errtext.len)
                gp_buf_append(&s->first_err, s->errtext.data, s->errtext.len > 2000 ? 2000 : s->errtext.len);
            else
                gp_buf_append(&s->first_err, data, len > 2000 ? 2000 : len);
        }
        s->has_error = 1;
        break;
    case GP_EV_CHUNK:
        s->responses++;
        if (info.has_finish)
            s->finish = 1;
        if (info.ends_stream)
            s->done = 1; /* response.completed: the Responses API's [DONE] */
        if (info.has_usage) {
            s->has_usage = 1;
            take_count(s, &s->prompt_tokens, info.prompt_tokens, info.bad_usage, GP_USAGE_PROMPT);
            take_count(s, &s->completion_tokens, info.completion_tokens, info.bad_usage, GP_USAGE_COMPLETION);
            take_count(s, &s->cached_tokens, info.cached_tokens, info.bad_usage, GP_USAGE_CACHED);
            take_count(s, &s->cache_write_tokens, info.cache_write_tokens, info.bad_usage, GP_USAGE_CACHE_WRITE);
        }
        break;
    case GP_EV_BAD:
        s->bad_events++; /* GenAI-Perf drops these too; we count them */
        break;
    case GP_EV_FOREIGN:
        s->bad_events++; /* an unexpected shape: ignored and counted as malformed */
        if (!s->foreign++) {
            gp_buf_reset(&s->foreign_keys);
            gp_js_keys(data, len, &s->foreign_keys, 120);
        }
        break;
    }
    return 0;
}

static int push_ct(struct gp_scan *s, uint64_t t)
{
    if (s->nct == s->ctcap) {
        size_t nc = s->ctcap ? s->ctcap * 2 : 256;
        uint64_t *p = realloc(s->ct, nc * sizeof *p);
        if (!p)
            return -GP_ENOMEM;
        s->ct = p;
        s->ctcap = nc;
    }
    s->ct[s->nct++] = t;
    return 0;
}

static int looks_like_sse(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t'))
        i++;
    return (n - i >= 5 && memcmp(p + i, "data:", 5) == 0) || (i < n && p[i] == ':') ||
           (n - i >= 6 && memcmp(p + i, "event:", 6) == 0);
}

/* Streamed by flag, or a non-streaming request answered with an event stream. */
static int is_sse(const struct gp_record_store *st, const struct gp_record *r)
{
    if (r->flags & GP_REC_STREAMING)
        return 1;
    if (!r->n_chunks)
        return 0;
    const struct gp_chunk *c0 = gp_record_chunk(st, r, 0);
    return looks_like_sse(gp_record_bytes(st, c0), c0->len);
}

size_t gp_scan_ct_capacity(const struct gp_record_store *st, const struct gp_record *r)
{
    return is_sse(st, r) ? (size_t)r->n_chunks + 1 : 1;
}

/* A read that completed reasoning text (the first one is the time to first
 * reasoning token); no allocation: only a time and a count. */
static void note_reasoning(struct gp_scan *s, uint64_t t)
{
    if (!s->reasoning_chunks)
        s->first_reasoning_ns = t;
    s->reasoning_chunks++;
}

/* Parses one record's response into s (content, times, usage, error). */
int gp_scan_response(const struct gp_record_store *st, const struct gp_record *r, struct gp_scan *s,
                     int *streamed, int requests_only)
{
    gp_sse_reset(&s->sse);
    gp_buf_reset(&s->content);
    gp_buf_reset(&s->reasoning);
    gp_buf_reset(&s->first_err);
    s->nct = 0;
    s->nev = 0;
    s->done = s->has_error = s->has_usage = s->finish = s->bad_usage = 0;
    s->prompt_tokens = s->completion_tokens = s->cached_tokens = s->cache_write_tokens = -1;
    s->events = s->bad_events = s->responses = s->foreign = 0;
    s->cut_event = s->last_bad = 0;
    s->first_reasoning_ns = 0;
    s->reasoning_chunks = 0;
    int sse = is_sse(st, r);
    *streamed = sse;
    if (sse) {
        for (uint32_t i = 0; i < r->n_chunks; i++) {
            const struct gp_chunk *c = gp_record_chunk(st, r, i);
            size_t before = s->content.len, rbefore = s->reasoning.len;
            int rc = gp_sse_feed(&s->sse, gp_record_bytes(st, c), c->len, on_event, s);
            if (rc < 0)
                return rc;
            if (s->content.len > before && push_ct(s, c->t_ns))
                return -GP_ENOMEM;
            if (s->reasoning.len > rbefore)
                note_reasoning(s, c->t_ns);
        }
        size_t before = s->content.len, rbefore = s->reasoning.len;
        int mid_event = s->sse.line.len > 0 || s->sse.have_data; /* no blank line ended it */
        int rc = gp_sse_finish(&s->sse, on_event, s);
        if (rc < 0)
            return rc;
        s->cut_event = mid_event || s->last_bad;
        uint64_t t = r->n_chunks ? gp_record_chunk(st, r, r->n_chunks - 1)->t_ns : r->t_end_ns;
        if (s->content.len > before && push_ct(s, t))
            return -GP_ENOMEM;
        if (s->reasoning.len > rbefore)
            note_reasoning(s, t);
        return 0;
    }
    /* non-streaming: one response at transfer completion (PA delivers the body once) */
    gp_buf_reset(&s->body);
    for (uint32_t i = 0; i < r->n_chunks; i++) {
        const struct gp_chunk *c = gp_record_chunk(st, r, i);
        if (gp_buf_append(&s->body, gp_record_bytes(st, c), c->len))
            return -GP_ENOMEM;
    }
    if (s->body.len && requests_only) {
        /* embeddings/rankings: the response is one JSON document whose
         * arrival ends the request; nothing in it is content. Only a body
         * that is not JSON at all (a proxy's HTML page) is no response. */
        s->events = 1;
        s->done = 1;
        size_t i = 0;
        while (i < s->body.len && (s->body.data[i] == ' ' || s->body.data[i] == '\t' || s->body.data[i] == '\r' ||
                                   s->body.data[i] == '\n'))
            i++;
        if (i == s->body.len || (s->body.data[i] != '{' && s->body.data[i] != '['))
            return 0;
        s->responses = 1;
        uint64_t t = r->t_end_ns ? r->t_end_ns : gp_record_chunk(st, r, r->n_chunks - 1)->t_ns;
        return push_ct(s, t) ? -GP_ENOMEM : 0;
    }
    if (s->body.len) {
        s->events = 1;
        on_event(s, s->body.data, s->body.len, "");
        s->done = 1;
        uint64_t t = r->t_end_ns ? r->t_end_ns : gp_record_chunk(st, r, r->n_chunks - 1)->t_ns;
        if (s->content.len && push_ct(s, t))
            return -GP_ENOMEM;
        if (s->reasoning.len)
            note_reasoning(s, t);
    }
    return 0;
}

void gp_scan_free(struct gp_scan *s)
{
    gp_sse_free(&s->sse);
    gp_buf_free(&s->content);
    gp_buf_free(&s->reasoning);
    gp_buf_free(&s->errtext);
    gp_buf_free(&s->first_err);
    gp_buf_free(&s->body);
    gp_buf_free(&s->foreign_keys);
    gp_event_tmpl_free(&s->tmpl);
    free(s->ct);
    free(s->ev_end);
}
