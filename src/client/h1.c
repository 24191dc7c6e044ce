/* client/h1.c — HTTP/1.1 response parser and request head (see h1.h). */
#include "client/h1.h"
#include "core/error.h"

#include <curl/curl.h>
#include <ctype.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    S_STATUS,     /* line-oriented states first */
    S_HEADER,
    S_CHUNK_SIZE,
    S_CHUNK_END,  /* the CRLF after a chunk's data */
    S_TRAILER,
    S_BODY_CL,    /* byte-oriented */
    S_BODY_CLOSE,
    S_CHUNK_DATA,
    S_DONE,
};

void gp_h1_resp_init(struct gp_h1_resp *r)
{
    r->state = S_STATUS;
    r->status = 0;
    r->minor = 1;
    r->chunked = r->close = r->keep_alive = 0;
    r->clen = -1;
    r->left = 0;
    r->seen = 0;
    r->head_bytes = 0;
    r->code = 0;
    r->err = NULL;
    r->line_len = 0;
    r->ctype[0] = '\0';
    r->location[0] = '\0';
}

static int fail(struct gp_h1_resp *r, int code, const char *why)
{
    r->code = code;
    r->err = why;
    return GP_H1_ERR;
}

/* "HTTP/1.x SSS[ reason]" */
static int status_line(struct gp_h1_resp *r, const char *l, size_t n)
{
    if (n < 12 || memcmp(l, "HTTP/1.", 7) || !isdigit((unsigned char)l[7]) || l[8] != ' ' ||
        !isdigit((unsigned char)l[9]) || !isdigit((unsigned char)l[10]) || !isdigit((unsigned char)l[11]) ||
        (n > 12 && l[12] != ' '))
        return fail(r, CURLE_WEIRD_SERVER_REPLY, "Unsupported HTTP version or malformed status line in response");
    r->minor = l[7] - '0';
    r->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
    r->clen = -1;
    r->chunked = r->close = r->keep_alive = 0;
    r->ctype[0] = r->location[0] = r->cenc[0] = '\0';
    r->state = S_HEADER;
    return GP_H1_MORE;
}

static int has_token(const char *v, size_t n, const char *tok)
{
    size_t tl = strlen(tok);
    for (size_t i = 0; i + tl <= n; i++)
        if (!strncasecmp(v + i, tok, tl) && (i == 0 || v[i - 1] == ',' || v[i - 1] == ' ') &&
            (i + tl == n || v[i + tl] == ',' || v[i + tl] == ' '))
            return 1;
    return 0;
}

static void copy_value(char *dst, size_t cap, const char *v, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

/* The empty line ended the head: what the body is. */
static int head_end(struct gp_h1_resp *r)
{
    if (r->status >= 100 && r->status < 200) {
        if (r->status == 101)
            return fail(r, CURLE_WEIRD_SERVER_REPLY, "unexpected 101 Switching Protocols");
        r->state = S_STATUS; /* an interim response: the real one follows */
        return GP_H1_MORE;
    }
    if (r->minor == 0 && !r->keep_alive)
        r->close = 1;
    /* No Accept-Encoding was sent: a gzip (or any) encoded body is bytes no
     * parser can read, and its failure would be named for what the bytes
     * are not (issue 40 item 5). The caller names the encoding. */
    if (r->cenc[0] && strcasecmp(r->cenc, "identity")) {
        r->close = 1;
        return fail(r, CURLE_BAD_CONTENT_ENCODING, "unrequested Content-Encoding");
    }
    if (r->status == 204 || r->status == 304) {
        r->state = S_DONE;
    } else if (r->chunked) {
        r->state = S_CHUNK_SIZE;
    } else if (r->clen >= 0) {
        r->left = (uint64_t)r->clen;
        r->state = r->left ? S_BODY_CL : S_DONE;
    } else {
        r->close = 1;
        r->state = S_BODY_CLOSE;
    }
    return r->state == S_DONE ? GP_H1_DONE : GP_H1_MORE;
}

static int header_line(struct gp_h1_resp *r, const char *l, size_t n)
{
    if (n == 0)
        return head_end(r);
    if (l[0] == ' ' || l[0] == '\t')
        return GP_H1_MORE; /* obsolete line folding: nothing we read continues */
    const char *colon = memchr(l, ':', n);
    if (!colon)
        return GP_H1_MORE; /* libcurl skips such a line too */
    size_t nl = (size_t)(colon - l);
    const char *v = colon + 1, *end = l + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t vn = (size_t)(end - v);
    if (nl == 12 && !strncasecmp(l, "Content-Type", 12)) {
        copy_value(r->ctype, sizeof r->ctype, v, vn);
    } else if (nl == 16 && !strncasecmp(l, "Content-Encoding", 16)) {
        copy_value(r->cenc, sizeof r->cenc, v, vn);
    } else if (nl == 8 && !strncasecmp(l, "Location", 8)) {
        copy_value(r->location, sizeof r->location, v, vn);
    } else if (nl == 14 && !strncasecmp(l, "Content-Length", 14)) {
        int64_t x = 0;
        if (!vn)
            return fail(r, CURLE_WEIRD_SERVER_REPLY, "invalid Content-Length value");
        for (size_t i = 0; i < vn; i++) {
            if (!isdigit((unsigned char)v[i]) || x > (INT64_MAX - 9) / 10)
                return fail(r, CURLE_WEIRD_SERVER_REPLY, "invalid Content-Length value");
            x = x * 10 + (v[i] - '0');
        }
        r->clen = x;
    } else if (nl == 17 && !strncasecmp(l, "Transfer-Encoding", 17)) {
        r->chunked = has_token(v, vn, "chunked");
    } else if (nl == 10 && !strncasecmp(l, "Connection", 10)) {
        if (has_token(v, vn, "close"))
            r->close = 1;
        if (has_token(v, vn, "keep-alive"))
            r->keep_alive = 1;
    }
    return GP_H1_MORE;
}

static int chunk_size_line(struct gp_h1_resp *r, const char *l, size_t n)
{
    uint64_t x = 0;
    size_t i = 0;
    for (; i < n && isxdigit((unsigned char)l[i]); i++) {
        if (i >= 15)
            return fail(r, CURLE_RECV_ERROR, "Malformed encoding found in chunked-encoding (chunk size too large)");
        int c = tolower((unsigned char)l[i]);
        x = x * 16 + (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    if (i == 0 || (i < n && l[i] != ';' && l[i] != ' ' && l[i] != '\t'))
        return fail(r, CURLE_RECV_ERROR, "Malformed encoding found in chunked-encoding");
    r->left = x;
    r->state = x ? S_CHUNK_DATA : S_TRAILER;
    return GP_H1_MORE;
}

/* One complete line (CR LF or LF stripped) in a line-oriented state. */
static int on_line(struct gp_h1_resp *r, const char *l, size_t n)
{
    switch (r->state) {
    case S_STATUS:
        return status_line(r, l, n);
    case S_HEADER:
        return header_line(r, l, n);
    case S_CHUNK_SIZE:
        return chunk_size_line(r, l, n);
    case S_CHUNK_END:
        if (n)
            return fail(r, CURLE_RECV_ERROR, "Malformed encoding found in chunked-encoding (no CRLF after data)");
        r->state = S_CHUNK_SIZE;
        return GP_H1_MORE;
    default: /* S_TRAILER */
        if (n)
            return GP_H1_MORE;
        r->state = S_DONE;
        return GP_H1_DONE;
    }
}

/* Takes one line from p[*i..n): zero-copy when it is whole in this read. */
static int take_line(struct gp_h1_resp *r, const char *p, size_t n, size_t *i)
{
    const char *s = p + *i;
    size_t avail = n - *i;
    const char *nl = memchr(s, '\n', avail);
    size_t take = nl ? (size_t)(nl - s) + 1 : avail;
    if (r->state <= S_HEADER) {
        r->head_bytes += take;
        if (r->head_bytes > GP_H1_HEAD_MAX)
            return fail(r, CURLE_WEIRD_SERVER_REPLY, "response headers larger than 100 KiB");
    }
    *i += take;
    const char *l;
    size_t ln;
    if (!r->line_len && nl) {
        l = s;
        ln = take - 1;
    } else {
        size_t add = nl ? take - 1 : take;
        if (r->line_len + add > sizeof r->line)
            return fail(r, r->state <= S_HEADER ? CURLE_WEIRD_SERVER_REPLY : CURLE_RECV_ERROR,
                        "a response header or chunk line longer than 8 KiB");
        memcpy(r->line + r->line_len, s, add);
        r->line_len += add;
        if (!nl)
            return GP_H1_MORE;
        l = r->line;
        ln = r->line_len;
        r->line_len = 0;
    }
    if (ln && l[ln - 1] == '\r')
        ln--;
    return on_line(r, l, ln);
}

int gp_h1_feed(struct gp_h1_resp *r, const char *p, size_t n, size_t *used, gp_h1_body_fn fn, void *ud)
{
    size_t i = 0;
    int rc = GP_H1_MORE;
    r->seen += n;
    while (i < n && rc == GP_H1_MORE) {
        if (r->state == S_DONE) {
            rc = GP_H1_DONE;
            break;
        }
        if (r->state < S_BODY_CL) {
            rc = take_line(r, p, n, &i);
            continue;
        }
        size_t k = n - i;
        if (r->state != S_BODY_CLOSE && k > r->left)
            k = (size_t)r->left;
        if (fn(ud, p + i, k))
            return fail(r, CURLE_WRITE_ERROR, "Failure writing output to destination");
        i += k;
        if (r->state == S_BODY_CLOSE)
            continue;
        r->left -= k;
        if (r->left == 0) {
            if (r->state == S_CHUNK_DATA) {
                r->state = S_CHUNK_END;
            } else {
                r->state = S_DONE;
                rc = GP_H1_DONE;
            }
        }
    }
    if (r->state == S_DONE)
        rc = GP_H1_DONE;
    *used = i;
    return rc;
}

int gp_h1_eof(struct gp_h1_resp *r)
{
    switch (r->state) {
    case S_BODY_CLOSE:
    case S_DONE:
        r->state = S_DONE;
        return GP_H1_DONE;
    case S_STATUS:
        if (!r->seen)
            return fail(r, CURLE_GOT_NOTHING, "Empty reply from server");
        /* fall through */
    case S_HEADER:
        return fail(r, CURLE_RECV_ERROR, "Connection closed in the middle of the response headers");
    case S_BODY_CL:
        return fail(r, CURLE_PARTIAL_FILE, "transfer closed with bytes remaining to read");
    default:
        return fail(r, CURLE_PARTIAL_FILE, "transfer closed with outstanding read data remaining");
    }
}

int gp_h1_reusable(const struct gp_h1_resp *r)
{
    return r->state == S_DONE && !r->close;
}

/* ---- request head ---------------------------------------------------- */

/* Headers libcurl writes itself or treats specially; a custom one of these
 * changes what libcurl sends, so the URL stays on libcurl. */
static int special_header(const char *h, size_t nl)
{
    static const char *const names[] = {"Host", "Accept", "Content-Length", "Transfer-Encoding", "Connection",
                                        "Expect"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == nl && !strncasecmp(h, names[i], nl))
            return 1;
    return 0;
}

static int loopback_host(const char *h)
{
    return !strcasecmp(h, "localhost") || !strcmp(h, "127.0.0.1") || !strcmp(h, "::1") || !strcmp(h, "[::1]");
}

static int proxy_in_env(void)
{
    static const char *const vars[] = {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return 1;
    }
    return 0;
}

static int resolve(struct gp_h1_target *t, const char *host, const char *port, const char **why)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &res) || !res) {
        *why = "the host did not resolve";
        return 0;
    }
    for (struct addrinfo *a = res; a && t->naddr < GP_H1_MAX_ADDRS; a = a->ai_next) {
        if (a->ai_addrlen > sizeof t->addr[0])
            continue;
        memcpy(&t->addr[t->naddr], a->ai_addr, a->ai_addrlen);
        t->alen[t->naddr++] = a->ai_addrlen;
    }
    freeaddrinfo(res);
    return t->naddr > 0;
}

/* The head: request line, Host, Accept, then the custom headers in order
 * (libcurl drops an empty "Name:" one; "Expect:" is how the curl path turns
 * off 100-continue). Content-Length and the body follow per request. */
static int build_head(struct gp_h1_target *t, const char *hostpart, long port, const char *path,
                      const char *query, const struct curl_slist *hdrs, const char **why)
{
    size_t cap = 256 + strlen(hostpart) + strlen(path) + (query ? strlen(query) : 0);
    for (const struct curl_slist *h = hdrs; h; h = h->next)
        cap += strlen(h->data) + 2;
    char *b = malloc(cap);
    if (!b)
        return -1;
    int w = snprintf(b, cap, "POST %s%s%s HTTP/1.1\r\nHost: %s", path, query ? "?" : "", query ? query : "",
                     hostpart);
    size_t len = (size_t)w;
    if (port != 80)
        len += (size_t)snprintf(b + len, cap - len, ":%ld", port);
    len += (size_t)snprintf(b + len, cap - len, "\r\nAccept: */*\r\n");
    for (const struct curl_slist *h = hdrs; h; h = h->next) {
        const char *d = h->data, *colon = strchr(d, ':');
        size_t nl = colon ? (size_t)(colon - d) : strlen(d);
        const char *v = colon ? colon + 1 : "";
        while (*v == ' ' || *v == '\t')
            v++;
        if (!colon || !*v || strchr(d, '\r') || strchr(d, '\n')) {
            if (colon && nl == 6 && !strncasecmp(d, "Expect", 6) && !*v)
                continue; /* the curl path's "no 100-continue": libcurl sends nothing */
            free(b);
            *why = "a custom header without a value (libcurl rewrites those)";
            return 0;
        }
        if (special_header(d, nl)) {
            free(b);
            *why = "a custom header libcurl treats specially (Host, Accept, Content-Length, ...)";
            return 0;
        }
        len += (size_t)snprintf(b + len, cap - len, "%s\r\n", d);
    }
    len += (size_t)snprintf(b + len, cap - len, "Content-Length: ");
    t->head = b;
    t->head_len = len;
    return 1;
}

int gp_h1_target_init(struct gp_h1_target *t, const char *url, const struct curl_slist *hdrs, const char **why,
                      struct gp_error *err)
{
    memset(t, 0, sizeof *t);
    CURLU *u = curl_url();
    if (!u)
        return gp_err(err, GP_ENOMEM, "out of memory");
    char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL, *query = NULL, *user = NULL, *zone = NULL;
    int rc = 0;
    /* the flags libcurl's easy handle parses CURLOPT_URL with */
    if (curl_url_set(u, CURLUPART_URL, url, CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
        *why = "the URL does not parse";
        goto out;
    }
    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
    curl_url_get(u, CURLUPART_HOST, &host, 0);
    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
    curl_url_get(u, CURLUPART_PATH, &path, 0);
    curl_url_get(u, CURLUPART_QUERY, &query, 0);
    curl_url_get(u, CURLUPART_USER, &user, 0);
    curl_url_get(u, CURLUPART_ZONEID, &zone, 0);
    if (!scheme || strcasecmp(scheme, "http") || !host || !port || !path) {
        *why = "not a plain http:// URL";
        goto out;
    }
    if (user || zone) {
        *why = "credentials or an IPv6 zone in the URL";
        goto out;
    }
    if (proxy_in_env() && !loopback_host(host)) {
        *why = "a proxy is set in the environment";
        goto out;
    }
    /* the host part as libcurl writes it in Host: (IPv6 keeps its brackets) */
    char bare[256];
    size_t hl = strlen(host);
    if (hl >= sizeof bare || hl >= sizeof t->host) {
        *why = "host name too long";
        goto out;
    }
    memcpy(t->host, host, hl + 1);
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
        memcpy(bare, host + 1, hl - 2);
        bare[hl - 2] = '\0';
    } else {
        memcpy(bare, host, hl + 1);
    }
    t->port = atoi(port);
    if (!resolve(t, bare, port, why))
        goto out;
    rc = build_head(t, host, t->port, path, query, hdrs, why);
    if (rc < 0)
        rc = gp_err(err, GP_ENOMEM, "out of memory building the request head");
out:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_free(path);
    curl_free(query);
    curl_free(user);
    curl_free(zone);
    curl_url_cleanup(u);
    return rc;
}

void gp_h1_target_free(struct gp_h1_target *t)
{
    free(t->head);
    t->head = NULL;
}
