/* metrics/sse.c — SSE line/event framing (the events' JSON is read by
 * event.c, responses.c and anthropic.c with jscan.c's scanner).
 *
 * The framing follows the WHATWG event-stream rules rather than GenAI-Perf's
 * "split on \n\n" so that CRLF streams, `data:` without a space and comments
 * do not lose content (genai-perf-profile.md §11 item 6 lists what GenAI-Perf
 * loses).
 */
#include "metrics/sse.h"
#include "metrics/sse_int.h"
#include "core/error.h"

#include <assert.h>
#include <string.h>
#include <strings.h>


void gp_sse_init(struct gp_sse *p) { memset(p, 0, sizeof *p); }

void gp_sse_reset(struct gp_sse *p)
{
    gp_buf_reset(&p->line);
    gp_buf_reset(&p->data);
    p->event[0] = '\0';
    p->have_data = 0;
    p->pending_cr = 0;
}

void gp_sse_free(struct gp_sse *p)
{
    gp_buf_free(&p->line);
    gp_buf_free(&p->data);
    memset(p, 0, sizeof *p);
}

static int dispatch(struct gp_sse *p, gp_sse_event_fn fn, void *ctx)
{
    int r = 0;
    if (p->have_data) {
        size_t n = p->data.len;
        /* TRT-LLM ends its first event with "} \n\n": trailing blanks are noise */
        while (n && (p->data.data[n - 1] == ' ' || p->data.data[n - 1] == '\t'))
            n--;
        if (gp_buf_reserve(&p->data, 1))
            return -GP_ENOMEM;
        assert(n < p->data.cap); /* data[len] = '\0' stays inside the buffer (sse.h) */
        p->data.data[n] = '\0';
        r = fn(ctx, p->data.data, n, p->event);
    }
    gp_buf_reset(&p->data);
    p->have_data = 0;
    p->event[0] = '\0';
    return r;
}

static int process_line(struct gp_sse *p, const char *s, size_t n, gp_sse_event_fn fn, void *ctx)
{
    if (n == 0)
        return dispatch(p, fn, ctx);
    if (s[0] == ':')
        return 0; /* comment / keep-alive: never touches timing */
    const char *colon = s[0] == 'd' && n >= 5 && s[4] == ':' ? s + 4 : memchr(s, ':', n); /* "data:" mostly */
    size_t flen = colon ? (size_t)(colon - s) : n;
    const char *v = colon ? colon + 1 : s + n;
    size_t vlen = (size_t)(s + n - v);
    if (vlen && v[0] == ' ') {
        v++;
        vlen--;
    }
    if (flen == 4 && memcmp(s, "data", 4) == 0) {
        if (p->have_data && gp_buf_putc(&p->data, '\n'))
            return -GP_ENOMEM;
        if (gp_buf_append(&p->data, v, vlen))
            return -GP_ENOMEM;
        p->have_data = 1;
    } else if (flen == 5 && memcmp(s, "event", 5) == 0) {
        size_t k = vlen < sizeof p->event - 1 ? vlen : sizeof p->event - 1;
        assert(k < sizeof p->event); /* a longer event: name is cut, never overruns */
        memcpy(p->event, v, k);
        p->event[k] = '\0';
    }
    return 0; /* id:, retry:, unknown fields: ignored */
}

int gp_sse_feed(struct gp_sse *p, const char *bytes, size_t n, gp_sse_event_fn fn, void *ctx)
{
    size_t i = 0;
    if (n && p->pending_cr) {
        p->pending_cr = 0;
        if (bytes[0] == '\n')
            i = 1;
    }
    while (i < n) {
        /* the next line end (LF, CR or CRLF) at the byte level: 0x0A/0x0D
         * never occur inside a UTF-8 sequence */
        size_t j = (size_t)(find2(bytes + i, bytes + n, '\n', '\r') - bytes);
        assert(j >= i && j <= n); /* the line end lies inside this read */
        if (j == n) {
            if (gp_buf_append(&p->line, bytes + i, n - i))
                return -GP_ENOMEM;
            return 0;
        }
        int r;
        if (p->line.len) {
            if (gp_buf_append(&p->line, bytes + i, j - i))
                return -GP_ENOMEM;
            r = process_line(p, p->line.data, p->line.len, fn, ctx);
            gp_buf_reset(&p->line);
        } else {
            r = process_line(p, bytes + i, j - i, fn, ctx);
        }
        if (bytes[j] == '\r') {
            if (j + 1 < n) {
                if (bytes[j + 1] == '\n')
                    j++;
            } else {
                p->pending_cr = 1; /* maybe the first half of a CRLF split by the read */
            }
        }
        i = j + 1;
        if (r)
            return r;
    }
    return 0;
}

int gp_sse_finish(struct gp_sse *p, gp_sse_event_fn fn, void *ctx)
{
    int r = 0;
    if (p->line.len) {
        r = process_line(p, p->line.data, p->line.len, fn, ctx);
        gp_buf_reset(&p->line);
        if (r)
            return r;
    }
    p->pending_cr = 0;
    return dispatch(p, fn, ctx);
}
