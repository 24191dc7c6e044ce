/* serve/http.h — an incremental, allocation-free HTTP/1.1 request parser.
 *
 * Owns nothing: gp_http_parse() reads a connection's input buffer and fills
 * struct gp_http_req with pointers INTO that buffer (valid until the caller
 * consumes or moves those bytes). A chunked body is decoded into the caller's
 * gp_buf (the only copy), a Content-Length body is pointed at in place.
 *
 * The parser is stateless on purpose: the server calls it again after every
 * read until it reports a complete request, which keeps pipelining trivial
 * (bytes after the request stay in the buffer for the next call). Headers are
 * bounded (GP_HTTP_MAX_HEAD) so a re-scan is cheap.
 */
#ifndef GP_SERVE_HTTP_H
#define GP_SERVE_HTTP_H

#include <stddef.h>

struct gp_buf;

#define GP_HTTP_MAX_HEAD (64 * 1024)

enum gp_http_method { GP_HTTP_OTHER = 0, GP_HTTP_GET, GP_HTTP_POST, GP_HTTP_HEAD };

struct gp_http_req {
    int method;                 /* enum gp_http_method */
    const char *path;           /* request target without the query string */
    size_t path_len;
    int minor;                  /* HTTP/1.<minor> */
    int keep_alive;             /* 1 unless "Connection: close" or HTTP/1.0 without keep-alive */
    int expect_continue;        /* "Expect: 100-continue" */
    const char *content_type;   /* NULL when absent */
    size_t content_type_len;
    const char *authorization;  /* NULL when absent */
    size_t authorization_len;
    const char *x_api_key;      /* NULL when absent (Anthropic: /v1/messages) */
    size_t x_api_key_len;
    const char *anthropic_version; /* NULL when absent */
    size_t anthropic_version_len;
    int chunked;                /* Transfer-Encoding: chunked */
    long long content_length;   /* -1 when absent */
    size_t head_len;            /* bytes of request line + headers + blank line */
    const char *body;           /* complete body (in place, or body_out->data when chunked) */
    size_t body_len;
};

/* Parses one request from buf[0..len).
 * Returns the number of bytes the whole request occupies (> 0) when it is
 * complete; 0 when more bytes are needed (req->head_len is set once the
 * headers are complete, so the caller can answer Expect: 100-continue);
 * or a negative HTTP status to answer before closing: -400 malformed,
 * -413 body larger than max_body, -431 headers too large, -501 unsupported
 * transfer coding, -505 not HTTP/1.x. */
long gp_http_parse(const char *buf, size_t len, size_t max_body, struct gp_http_req *req,
                   struct gp_buf *body_out);

/* Reason phrase for a status code ("OK", "Not Found", ...). */
const char *gp_http_reason(int status);

#endif
