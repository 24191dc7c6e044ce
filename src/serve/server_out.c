/* serve/server_out.c — the bytes of a response in `genperf serve`
 * (response layer, serve/srv_resp.h): everything one event produces is
 * appended to the connection's out buffer (headers, HTTP chunks, whole
 * bodies, a stream's terminator) and leaves in one send() when the IO
 * layer's flush runs at the end of the loop iteration; and the timer of a
 * stream's next token. */
#include "serve/srv_resp.h"
#include "serve/http.h"
#include "core/clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static void update_date(struct srv *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec == s->date_sec)
        return;
    s->date_sec = ts.tv_sec;
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    strftime(s->date, sizeof s->date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}


/* Appends s->scratch to c->out as one HTTP chunk (or raw for HTTP/1.0). */
int srv_put_chunk(struct srv *s, struct conn *c)
{
    int rc = 0;
    if (!c->r.http10) {
        char hx[20];
        int n = snprintf(hx, sizeof hx, "%zx\r\n", s->scratch.len);
        rc |= gp_buf_append(&c->out, hx, (size_t)n);
        rc |= gp_buf_append(&c->out, s->scratch.data, s->scratch.len);
        rc |= gp_buf_append(&c->out, "\r\n", 2);
    } else {
        rc |= gp_buf_append(&c->out, s->scratch.data, s->scratch.len);
    }
    gp_buf_reset(&s->scratch);
    srv_mark_dirty(s, c);
    return rc;
}

void srv_put_headers(struct srv *s, struct conn *c, int status, const char *ctype, long long clen,
                     const char *extra)
{
    update_date(s);
    gp_buf_printf(&c->out, "HTTP/1.1 %d %s\r\ndate: %s\r\nserver: uvicorn\r\n", status, gp_http_reason(status),
                  s->date);
    if (clen >= 0)
        gp_buf_printf(&c->out, "content-length: %lld\r\n", clen);
    if (ctype)
        gp_buf_printf(&c->out, "content-type: %s\r\n", ctype);
    if (clen < 0 && !c->r.http10)
        gp_buf_puts(&c->out, "transfer-encoding: chunked\r\n");
    if (extra)
        gp_buf_puts(&c->out, extra);
    if (!c->keep_alive)
        gp_buf_puts(&c->out, "connection: close\r\n");
    gp_buf_puts(&c->out, "\r\n");
    srv_mark_dirty(s, c);
}

void srv_send_simple(struct srv *s, struct conn *c, int status, const char *ctype, const char *body, size_t len)
{
    srv_put_headers(s, c, status, ctype, (long long)len, NULL);
    gp_buf_append(&c->out, body, len);
    if (!c->keep_alive)
        c->close_after_write = 1;
}

void srv_send_json_error(struct srv *s, struct conn *c, int status, const char *type, const char *msg,
                         const char *param)
{
    struct gp_buf b = {0};
    if (s->o->flavor == GP_FLAVOR_TRTLLM && status == 400 && type && !strcmp(type, "validation")) {
        gp_buf_puts(&b, "{\"error\":");
        gp_buf_json_str(&b, msg, strlen(msg));
        gp_buf_putc(&b, '}');
    } else
        gp_render_error_body(s->o->flavor, &b, status, type, msg, param);
    srv_send_simple(s, c, status, "application/json", b.data ? b.data : "", b.len);
    gp_buf_free(&b);
}

void srv_start_stream_headers(struct srv *s, struct conn *c)
{
    struct sreq *r = &c->r;
    if (r->headers_sent || !r->stream)
        return;
    r->headers_sent = 1;
    srv_put_headers(s, c, 200, "text/event-stream; charset=utf-8", -1, NULL);
}

void srv_end_stream(struct srv *s, struct conn *c)
{
    if (!c->r.http10)
        gp_buf_append(&c->out, "0\r\n\r\n", 5);
    else
        c->close_after_write = 1;
    srv_mark_dirty(s, c);
}

/* Arms the connection's timer for its next token, or for a keep-alive
 * comment first when the stream would otherwise stay silent too long. */
void srv_arm_next(struct srv *s, struct conn *c)
{
    struct sreq *r = &c->r;
    if (s->ka_ns && r->stream && r->headers_sent && r->t_next_ns > r->t_ka_ref_ns + s->ka_ns)
        srv_set_timer(s, c, r->t_ka_ref_ns + s->ka_ns, T_KEEPALIVE);
    else
        srv_set_timer(s, c, r->t_next_ns, T_TOKEN);
}
