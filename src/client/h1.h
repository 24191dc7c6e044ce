/* client/h1.h — the pieces of the plain-http keep-alive transport
 * (client_h1.c) that do not touch sockets: the HTTP/1.1 response parser and
 * the request head, built once per URL before timing starts.
 *
 * The parser never allocates: a header or chunk-size line split across reads
 * is copied into its fixed line buffer, every other byte is looked at where
 * the caller's read put it; body bytes (chunk framing stripped) go to a
 * callback as spans of the caller's buffer, exactly the spans libcurl hands
 * its write callback. Errors carry the CURLcode libcurl gives for the same
 * failure and a one-line text, so the rest of the client cannot tell the
 * transports apart. gp_h1_target owns its head (gp_h1_target_free).
 */
#ifndef GP_CLIENT_H1_H
#define GP_CLIENT_H1_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct gp_error;
struct curl_slist;

#define GP_H1_LINE_MAX 8192           /* one header line split across reads */
#define GP_H1_HEAD_MAX (100 * 1024)   /* all header lines (libcurl's CURL_MAX_HTTP_HEADER) */
#define GP_H1_MAX_ADDRS 4

enum { GP_H1_MORE = 0, GP_H1_DONE = 1, GP_H1_ERR = -1 };

/* Body bytes in order; return non-zero to abort (the parser then fails with
 * CURLE_WRITE_ERROR, as libcurl does when its write callback comes up short). */
typedef int (*gp_h1_body_fn)(void *ud, const char *p, size_t n);

struct gp_h1_resp {
    int state;
    int status;              /* 0 until the status line */
    int minor;               /* HTTP/1.<minor> */
    int chunked, close, keep_alive;
    int64_t clen;            /* Content-Length; -1 = none */
    uint64_t left;           /* bytes left in the Content-Length body or the current chunk */
    uint64_t seen;           /* response bytes fed so far (0 at EOF = "empty reply") */
    size_t head_bytes;
    int code;                /* CURLcode of the failure */
    const char *err;         /* its text (static) */
    size_t line_len;
    char line[GP_H1_LINE_MAX];
    char ctype[256];         /* Content-Type value ("" = none) */
    char location[2048];     /* Location value ("" = none) */
    char cenc[64];           /* Content-Encoding value ("" = none): no Accept-Encoding is sent, so any
                              * but identity is a body genperf cannot read (GP_H1_ERR at the head) */
};

void gp_h1_resp_init(struct gp_h1_resp *r);
/* Feeds n bytes. GP_H1_MORE: all used, the response goes on; GP_H1_DONE: the
 * response is complete after *used bytes (more is excess: the connection is
 * then not reused); GP_H1_ERR: r->code and r->err say why. */
int gp_h1_feed(struct gp_h1_resp *r, const char *p, size_t n, size_t *used, gp_h1_body_fn fn, void *ud);
/* The server closed the connection: GP_H1_DONE for a close-delimited body,
 * else GP_H1_ERR (empty reply, cut headers, a short body). */
int gp_h1_eof(struct gp_h1_resp *r);
/* The connection may carry the next request. Only after GP_H1_DONE. */
int gp_h1_reusable(const struct gp_h1_resp *r);

/* One request URL, resolved. head is everything libcurl sends before the
 * Content-Length value: request line, Host, Accept, the custom headers. */
struct gp_h1_target {
    struct sockaddr_storage addr[GP_H1_MAX_ADDRS];
    socklen_t alen[GP_H1_MAX_ADDRS];
    int naddr;
    int pref;                /* the address that last connected */
    char *head;
    size_t head_len;
    char host[256];          /* for error texts */
    int port;
};

/* Fills t for url with the request headers hdrs (the curl path's list).
 * Returns 1 when the h1 transport can send exactly what libcurl would, 0
 * when it cannot (*why says what; use libcurl), <0 on error (err set). */
int gp_h1_target_init(struct gp_h1_target *t, const char *url, const struct curl_slist *hdrs, const char **why,
                      struct gp_error *err);
void gp_h1_target_free(struct gp_h1_target *t);

#endif
