/* client/session.c — a session's chat history and the body of its next
 * turn (see session.h). Once per turn: jansson is fine here. */
#include "client/session.h"
#include "client/record.h"
#include "core/error.h"
#include "core/pytext.h"

#include <string.h>

void gp_csession_free(struct gp_csession *s)
{
    if (!s)
        return;
    json_decref(s->hist);
    s->hist = NULL;
    gp_buf_free(&s->body);
}

int gp_csession_body(struct gp_csession *s, const char *turn_body, size_t len, const char **out, size_t *outlen)
{
    json_error_t jerr;
    json_t *body = json_loadb(turn_body, len, 0, &jerr);
    if (!body)
        return -GP_EINVAL;
    json_t *msgs = json_object_get(body, "messages");
    if (!json_is_array(msgs)) {
        /* completions: nothing to carry; the turn goes as it is */
        json_decref(body);
        *out = turn_body;
        *outlen = len;
        return 0;
    }
    if (!s->hist && !(s->hist = json_array())) {
        json_decref(body);
        return -GP_ENOMEM;
    }
    int rc = json_array_extend(s->hist, msgs) ? -GP_ENOMEM : 0;
    /* the body shares the history array (one reference more): dumping it
     * copies nothing, and the next turn extends the same array */
    if (!rc && json_object_set(body, "messages", s->hist))
        rc = -GP_ENOMEM;
    gp_buf_reset(&s->body);
    if (!rc && (gp_json_dump(&s->body, body, -1, 0, GP_JSON_RAPIDJSON) || gp_buf_putc(&s->body, '\0')))
        rc = -GP_ENOMEM;
    json_decref(body);
    if (rc)
        return rc;
    *out = s->body.data;
    *outlen = s->body.len - 1; /* without the NUL */
    return 0;
}

/* The text after "data:" of one SSE line, or NULL. */
static const char *sse_data(const char *line, size_t n, size_t *dlen)
{
    if (n < 5 || memcmp(line, "data:", 5))
        return NULL;
    size_t k = 5;
    if (k < n && line[k] == ' ')
        k++;
    *dlen = n - k;
    return line + k;
}

static int append_json_string(struct gp_buf *out, const json_t *v)
{
    if (!json_is_string(v))
        return 0;
    return gp_buf_append(out, json_string_value(v), json_string_length(v)) ? -GP_ENOMEM : 0;
}

/* The response body's bytes back to back (a non-streamed body is one chunk;
 * a stream's chunks are copied once, per turn). */
static int gather_body(const struct gp_record_store *st, const struct gp_record *r, struct gp_buf *b)
{
    for (uint32_t i = 0; i < r->n_chunks; i++) {
        const struct gp_chunk *c = gp_record_chunk(st, r, i);
        if (gp_buf_append(b, gp_record_bytes(st, c), c->len))
            return -GP_ENOMEM;
    }
    return 0;
}

int gp_csession_reply_text(const struct gp_record_store *st, const struct gp_record *r, struct gp_buf *out)
{
    struct gp_buf all = {0};
    int rc = gather_body(st, r, &all);
    if (rc || !all.len) {
        gp_buf_free(&all);
        return rc;
    }
    if (r->flags & GP_REC_STREAMING) {
        for (size_t pos = 0; pos < all.len && !rc;) {
            const char *nl = memchr(all.data + pos, '\n', all.len - pos);
            size_t end = nl ? (size_t)(nl - all.data) : all.len;
            size_t n = end - pos;
            if (n && all.data[pos + n - 1] == '\r')
                n--;
            size_t dlen;
            const char *d = sse_data(all.data + pos, n, &dlen);
            pos = end + 1;
            if (!d || (dlen == 6 && !memcmp(d, "[DONE]", 6)))
                continue;
            json_t *ev = json_loadb(d, dlen, 0, NULL);
            json_t *ch = json_array_get(json_object_get(ev, "choices"), 0);
            json_t *delta = json_object_get(ch, "delta");
            rc = append_json_string(out, delta ? json_object_get(delta, "content") : json_object_get(ch, "text"));
            json_decref(ev);
        }
    } else {
        json_t *resp = json_loadb(all.data, all.len, 0, NULL);
        json_t *ch = json_array_get(json_object_get(resp, "choices"), 0);
        json_t *msg = json_object_get(ch, "message");
        rc = append_json_string(out, msg ? json_object_get(msg, "content") : json_object_get(ch, "text"));
        json_decref(resp);
    }
    gp_buf_free(&all);
    return rc;
}

int gp_csession_reply(struct gp_csession *s, const struct gp_record_store *st, const struct gp_record *r)
{
    if (!s->hist)
        return 0; /* not a chat session: nothing to carry */
    json_t *msg = NULL;
    if (!(r->flags & (GP_REC_STREAMING | GP_REC_FAILED)) && r->n_chunks == 1) {
        /* perf_analyzer appends choices[0].message as the server returned it */
        const struct gp_chunk *c = gp_record_chunk(st, r, 0);
        json_t *resp = json_loadb(gp_record_bytes(st, c), c->len, 0, NULL);
        json_t *m = json_object_get(json_array_get(json_object_get(resp, "choices"), 0), "message");
        if (json_is_object(m))
            msg = json_incref(m);
        json_decref(resp);
    }
    if (!msg) {
        struct gp_buf text = {0};
        if (!(r->flags & GP_REC_FAILED) && gp_csession_reply_text(st, r, &text)) {
            gp_buf_free(&text);
            return -GP_ENOMEM;
        }
        msg = json_pack("{s:s,s:s%}", "role", "assistant", "content", text.data ? text.data : "", text.len);
        gp_buf_free(&text);
    }
    if (!msg)
        return -GP_ENOMEM;
    return json_array_append_new(s->hist, msg) ? -GP_ENOMEM : 0;
}
