/* serve/http.c — see http.h. Strict where ambiguity could desynchronise a
 * keep-alive connection (both Content-Length and chunked, bad sizes), lenient
 * elsewhere (header case, optional whitespace). */
#include "serve/http.h"
#include "core/buf.h"

#include <string.h>
#include <strings.h>

static int ieq(const char *a, size_t an, const char *b)
{
    size_t bn = strlen(b);
    return an == bn && strncasecmp(a, b, bn) == 0;
}

/* 1 if the comma-separated header value contains token (case-insensitive). */
static int has_token(const char *v, size_t n, const char *tok)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (ieq(v + s, e - s, tok))
            return 1;
    }
    return 0;
}

/* The end of the head (after its CRLF CRLF), NULL while it is incomplete,
 * or *bare set when a line ends in a bare LF. RFC 9112 2.2 lets a server
 * take those as line ends; this one refuses them (400) as soon as one
 * arrives, as llhttp (uvicorn's httptools) does: a CRLF CRLF may never come,
 * and reading the same bytes as another parser would is what keeps a
 * keep-alive connection in step. */
static const char *find_head_end(const char *buf, size_t len, int *bare)
{
    size_t lim = len < GP_HTTP_MAX_HEAD ? len : GP_HTTP_MAX_HEAD;
    *bare = 0;
    for (size_t i = 0; i < lim; i++) {
        if (buf[i] != '\n')
            continue;
        if (i == 0 || buf[i - 1] != '\r') {
            *bare = 1;
            return NULL;
        }
        if (i >= 3 && buf[i - 2] == '\n' && buf[i - 3] == '\r')
            return buf + i + 1;
    }
    return NULL;
}

/* Decodes a chunked body starting at p. Returns bytes consumed (> 0), 0 if
 * incomplete, or a negative status. */
static long parse_chunked(const char *p, size_t n, size_t max_body, struct gp_buf *out)
{
    size_t i = 0;
    gp_buf_reset(out);
    for (;;) {
        unsigned long long sz = 0;
        int digits = 0;
        while (i < n) {
            char c = p[i];
            int d;
            if (c >= '0' && c <= '9') d = c - '0';
            else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
            else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
            else break;
            if (sz > (1ull << 40))
                return -413;
            sz = sz * 16 + (unsigned)d;
            digits++;
            i++;
        }
        if (i >= n)
            return 0;
        if (!digits)
            return -400;
        /* skip chunk extensions up to CRLF */
        while (i < n && p[i] != '\r') {
            if (p[i] == '\n')
                return -400;
            i++;
        }
        if (i + 1 >= n)
            return 0;
        if (p[i + 1] != '\n')
            return -400;
        i += 2;
        if (sz == 0) {
            /* trailers: lines until an empty one */
            for (;;) {
                size_t s = i;
                while (i < n && p[i] != '\r') {
                    if (p[i] == '\n')
                        return -400; /* a bare LF, as in the head */
                    i++;
                }
                if (i + 1 >= n)
                    return 0;
                if (p[i + 1] != '\n')
                    return -400;
                i += 2;
                if (i - 2 == s)
                    return (long)i;
            }
        }
        if (out->len + sz > max_body)
            return -413;
        if (n - i < sz + 2)
            return 0;
        if (gp_buf_append(out, p + i, (size_t)sz))
            return -413;
        i += (size_t)sz;
        if (p[i] != '\r' || p[i + 1] != '\n')
            return -400;
        i += 2;
    }
}

long gp_http_parse(const char *buf, size_t len, size_t max_body, struct gp_http_req *req,
                   struct gp_buf *body_out)
{
    memset(req, 0, sizeof *req);
    req->content_length = -1;
    /* RFC 9112 2.2: ignore at least one empty line before the request-line */
    size_t skip = 0;
    while (skip + 1 < len && buf[skip] == '\r' && buf[skip + 1] == '\n')
        skip += 2;
    buf += skip;
    len -= skip;
    int bare;
    const char *end = find_head_end(buf, len, &bare);
    if (bare)
        return -400;
    if (!end)
        return len >= GP_HTTP_MAX_HEAD ? -431 : 0;
    req->head_len = (size_t)(end - buf) + skip;

    /* request line */
    const char *p = buf, *eol = memchr(buf, '\r', (size_t)(end - buf));
    const char *sp1 = memchr(p, ' ', (size_t)(eol - p));
    if (!sp1 || sp1 == p)
        return -400;
    size_t mlen = (size_t)(sp1 - p);
    if (mlen == 3 && !memcmp(p, "GET", 3)) req->method = GP_HTTP_GET;
    else if (mlen == 4 && !memcmp(p, "POST", 4)) req->method = GP_HTTP_POST;
    else if (mlen == 4 && !memcmp(p, "HEAD", 4)) req->method = GP_HTTP_HEAD;
    else req->method = GP_HTTP_OTHER;
    const char *tgt = sp1 + 1;
    const char *sp2 = memchr(tgt, ' ', (size_t)(eol - tgt));
    if (!sp2 || sp2 == tgt)
        return -400;
    const char *ver = sp2 + 1;
    if (eol - ver != 8 || memcmp(ver, "HTTP/1.", 7) != 0)
        return (eol - ver >= 5 && !memcmp(ver, "HTTP/", 5)) ? -505 : -400;
    if (ver[7] < '0' || ver[7] > '9')
        return -400;
    req->minor = ver[7] - '0';
    req->path = tgt;
    const char *q = memchr(tgt, '?', (size_t)(sp2 - tgt));
    req->path_len = (size_t)((q ? q : sp2) - tgt);
    for (const char *c = tgt; c < sp2; c++)
        if ((unsigned char)*c <= 0x20 || *c == 0x7f)
            return -400;
    req->keep_alive = req->minor >= 1;

    int saw_te = 0;
    p = eol + 2;
    while (p < end - 2) {
        eol = memchr(p, '\r', (size_t)(end - p));
        if (!eol || eol[1] != '\n')
            return -400;
        const char *colon = memchr(p, ':', (size_t)(eol - p));
        if (!colon || colon == p)
            return -400;
        for (const char *c = p; c < colon; c++)
            if (*c == ' ' || *c == '\t' || (unsigned char)*c < 0x21)
                return -400; /* whitespace before the colon: request smuggling vector */
        const char *v = colon + 1, *ve = eol;
        while (v < ve && (*v == ' ' || *v == '\t'))
            v++;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        size_t nl = (size_t)(colon - p), vl = (size_t)(ve - v);
        if (ieq(p, nl, "content-length")) {
            if (!vl)
                return -400;
            long long cl = 0;
            for (size_t i = 0; i < vl; i++) {
                if (v[i] < '0' || v[i] > '9')
                    return -400;
                if (cl > (1ll << 40))
                    return -413;
                cl = cl * 10 + (v[i] - '0');
            }
            if (req->content_length >= 0 && req->content_length != cl)
                return -400;
            req->content_length = cl;
        } else if (ieq(p, nl, "transfer-encoding")) {
            saw_te = 1;
            if (ieq(v, vl, "chunked"))
                req->chunked = 1;
            else
                return -501;
        } else if (ieq(p, nl, "connection")) {
            if (has_token(v, vl, "close"))
                req->keep_alive = 0;
            else if (has_token(v, vl, "keep-alive"))
                req->keep_alive = 1;
        } else if (ieq(p, nl, "expect")) {
            if (ieq(v, vl, "100-continue"))
                req->expect_continue = 1;
        } else if (ieq(p, nl, "content-type")) {
            req->content_type = v;
            req->content_type_len = vl;
        } else if (ieq(p, nl, "authorization")) {
            req->authorization = v;
            req->authorization_len = vl;
        } else if (ieq(p, nl, "x-api-key")) { /* Anthropic's key header */
            req->x_api_key = v;
            req->x_api_key_len = vl;
        } else if (ieq(p, nl, "anthropic-version")) {
            req->anthropic_version = v;
            req->anthropic_version_len = vl;
        }
        p = eol + 2;
    }
    if (saw_te && req->content_length >= 0)
        return -400;

    size_t avail = len - (size_t)(end - buf);
    if (req->chunked) {
        long r = parse_chunked(end, avail, max_body, body_out);
        if (r <= 0)
            return r;
        req->body = body_out->data ? body_out->data : "";
        req->body_len = body_out->len;
        return (long)(req->head_len + (size_t)r);
    }
    long long cl = req->content_length < 0 ? 0 : req->content_length;
    if ((unsigned long long)cl > max_body)
        return -413;
    if (avail < (size_t)cl)
        return 0;
    req->body = end;
    req->body_len = (size_t)cl;
    return (long)(req->head_len + (size_t)cl);
}

const char *gp_http_reason(int s)
{
    switch (s) {
    case 100: return "Continue";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Request Entity Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}
