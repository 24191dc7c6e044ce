/* client/test_h1.c — the h1 response parser and request head (client/h1.h). */
#include "client/h1.h"
#include "core/error.h"
#include "core/test.h"

#include <curl/curl.h>

struct sink {
    char buf[4096];
    size_t len;
    size_t calls;
    size_t fail_after; /* 0 = never */
};

static int on_body(void *ud, const char *p, size_t n)
{
    struct sink *k = ud;
    k->calls++;
    if (k->fail_after && k->len + n > k->fail_after)
        return -1;
    if (k->len + n > sizeof k->buf)
        return -1;
    memcpy(k->buf + k->len, p, n);
    k->len += n;
    return 0;
}

static struct gp_h1_resp R; /* large: off the stack */

/* Feeds msg cut at `cut` (two reads); returns the last rc. */
static int feed2(const char *msg, size_t n, size_t cut, struct sink *k, size_t *total_used)
{
    gp_h1_resp_init(&R);
    memset(k, 0, sizeof *k);
    size_t used = 0;
    int rc = gp_h1_feed(&R, msg, cut, &used, on_body, k);
    *total_used = used;
    if (rc != GP_H1_MORE)
        return rc;
    rc = gp_h1_feed(&R, msg + cut, n - cut, &used, on_body, k);
    *total_used += used;
    return rc;
}

static const char CHUNKED[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                              "\r\n6\r\ndata: \r\n17;ext=1\r\n{\"x\":1}\n\ndata: [DONE]\n\n\r\n0\r\nX-T: 1\r\n\r\n";
static const char CHUNKED_BODY[] = "data: {\"x\":1}\n\ndata: [DONE]\n\n";

static void test_chunked_every_split(void)
{
    size_t n = sizeof CHUNKED - 1;
    for (size_t cut = 0; cut <= n; cut++) {
        struct sink k;
        size_t used;
        int rc = feed2(CHUNKED, n, cut, &k, &used);
        CHECK(rc == GP_H1_DONE);
        CHECK(used == n);
        CHECK(k.len == sizeof CHUNKED_BODY - 1 && !memcmp(k.buf, CHUNKED_BODY, k.len));
        CHECK(R.status == 200);
        CHECK_STR(R.ctype, "text/event-stream");
        CHECK(gp_h1_reusable(&R));
    }
}

static void test_chunked_byte_by_byte(void)
{
    size_t n = sizeof CHUNKED - 1, used;
    struct sink k;
    memset(&k, 0, sizeof k);
    gp_h1_resp_init(&R);
    int rc = GP_H1_MORE;
    for (size_t i = 0; i < n && rc == GP_H1_MORE; i++)
        rc = gp_h1_feed(&R, CHUNKED + i, 1, &used, on_body, &k);
    CHECK(rc == GP_H1_DONE);
    CHECK(k.len == sizeof CHUNKED_BODY - 1 && !memcmp(k.buf, CHUNKED_BODY, k.len));
}

static void test_content_length_and_excess(void)
{
    static const char m[] = "HTTP/1.1 201 Created\r\ncontent-length: 5\r\nLocation: /x\r\n\r\nhelloEXTRA";
    size_t n = sizeof m - 1;
    for (size_t cut = 0; cut <= n; cut++) {
        struct sink k;
        size_t used;
        int rc = feed2(m, n, cut, &k, &used);
        CHECK(rc == GP_H1_DONE);
        CHECK(k.len == 5 && !memcmp(k.buf, "hello", 5));
        CHECK(R.status == 201);
        CHECK_STR(R.location, "/x");
        CHECK(R.ctype[0] == '\0');
        if (cut <= n - 5)
            CHECK(used == n - 5); /* the excess is not part of the response */
    }
}

static void test_close_delimited(void)
{
    static const char m[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\":1}";
    struct sink k;
    size_t used;
    CHECK(feed2(m, sizeof m - 1, 20, &k, &used) == GP_H1_MORE);
    CHECK(gp_h1_eof(&R) == GP_H1_DONE);
    CHECK(k.len == 7);
    CHECK(!gp_h1_reusable(&R));
}

static void test_http10_and_connection_close(void)
{
    static const char a[] = "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n";
    static const char b[] = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx";
    static const char c[] = "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n";
    struct sink k;
    size_t used;
    CHECK(feed2(a, sizeof a - 1, 3, &k, &used) == GP_H1_DONE && !gp_h1_reusable(&R));
    CHECK(feed2(b, sizeof b - 1, 3, &k, &used) == GP_H1_DONE && !gp_h1_reusable(&R));
    CHECK(feed2(c, sizeof c - 1, 3, &k, &used) == GP_H1_DONE && gp_h1_reusable(&R));
}

static void test_interim_and_no_body(void)
{
    static const char m[] = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n";
    struct sink k;
    size_t used;
    CHECK(feed2(m, sizeof m - 1, 10, &k, &used) == GP_H1_DONE);
    CHECK(R.status == 204 && k.len == 0 && used == sizeof m - 1);
}

static void test_bad_status_lines(void)
{
    static const char *const bad[] = {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 2000\r\n\r\n",
                                      "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 abc\r\n\r\n", "\r\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct sink k;
        size_t used;
        CHECK(feed2(bad[i], strlen(bad[i]), 0, &k, &used) == GP_H1_ERR);
        CHECK(R.code == CURLE_WEIRD_SERVER_REPLY);
    }
    /* a status line without a reason phrase is fine */
    struct sink k;
    size_t used;
    CHECK(feed2("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", 35, 0, &k, &used) == GP_H1_DONE);
}

static void test_bad_framing(void)
{
    struct sink k;
    size_t used;
    const char *m1 = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n";
    CHECK(feed2(m1, strlen(m1), 0, &k, &used) == GP_H1_ERR && R.code == CURLE_RECV_ERROR);
    const char *m2 = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n";
    CHECK(feed2(m2, strlen(m2), 0, &k, &used) == GP_H1_ERR && R.code == CURLE_RECV_ERROR);
    const char *m3 = "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n";
    CHECK(feed2(m3, strlen(m3), 0, &k, &used) == GP_H1_ERR && R.code == CURLE_WEIRD_SERVER_REPLY);
    const char *m4 = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n";
    CHECK(feed2(m4, strlen(m4), 0, &k, &used) == GP_H1_ERR);
    /* issue 40 item 5: an unasked Content-Encoding stops at the head, named */
    const char *m5 = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 3\r\n\r\n\x1f\x8b\x08";
    CHECK(feed2(m5, strlen(m5), 0, &k, &used) == GP_H1_ERR && R.code == CURLE_BAD_CONTENT_ENCODING);
    CHECK_STR(R.cenc, "gzip");
    const char *m6 = "HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\nContent-Length: 2\r\n\r\nok";
    CHECK(feed2(m6, strlen(m6), 0, &k, &used) == GP_H1_DONE);
}

static void test_oversize_headers(void)
{
    static char m[GP_H1_HEAD_MAX + 4096];
    size_t n = (size_t)snprintf(m, sizeof m, "HTTP/1.1 200 OK\r\n");
    while (n + 100 < sizeof m - 10)
        n += (size_t)snprintf(m + n, sizeof m - n, "X-Pad: %090d\r\n", 0);
    struct sink k;
    size_t used;
    CHECK(feed2(m, n, n / 2, &k, &used) == GP_H1_ERR);
    CHECK(R.code == CURLE_WEIRD_SERVER_REPLY);
    /* one line longer than the line buffer, split so it must be copied */
    static char l[GP_H1_LINE_MAX + 200];
    size_t ln = (size_t)snprintf(l, sizeof l, "HTTP/1.1 200 OK\r\nX-Long: ");
    memset(l + ln, 'a', GP_H1_LINE_MAX);
    ln += GP_H1_LINE_MAX;
    CHECK(feed2(l, ln, 20, &k, &used) == GP_H1_ERR);
}

static void test_eof_cases(void)
{
    struct sink k;
    size_t used;
    gp_h1_resp_init(&R);
    CHECK(gp_h1_eof(&R) == GP_H1_ERR && R.code == CURLE_GOT_NOTHING);
    CHECK(feed2("HTTP/1.1 200 OK\r\nCont", 22, 5, &k, &used) == GP_H1_MORE);
    CHECK(gp_h1_eof(&R) == GP_H1_ERR && R.code == CURLE_RECV_ERROR);
    CHECK(feed2("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", 41, 5, &k, &used) == GP_H1_MORE);
    CHECK(gp_h1_eof(&R) == GP_H1_ERR && R.code == CURLE_PARTIAL_FILE && R.left == 6);
    const char *c = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab";
    CHECK(feed2(c, strlen(c), 5, &k, &used) == GP_H1_MORE);
    CHECK(gp_h1_eof(&R) == GP_H1_ERR && R.code == CURLE_PARTIAL_FILE);
}

static void test_body_callback_abort(void)
{
    static const char m[] = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789";
    struct sink k;
    memset(&k, 0, sizeof k);
    k.fail_after = 4;
    size_t used;
    gp_h1_resp_init(&R);
    CHECK(gp_h1_feed(&R, m, sizeof m - 1, &used, on_body, &k) == GP_H1_ERR);
    CHECK(R.code == CURLE_WRITE_ERROR);
}

static void test_request_head(void)
{
    struct gp_h1_target t;
    struct gp_error e;
    memset(&e, 0, sizeof e);
    const char *why = NULL;
    struct curl_slist *h = curl_slist_append(NULL, "Expect:");
    h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, "Authorization: Bearer k");
    CHECK(gp_h1_target_init(&t, "http://127.0.0.1:8123/v1/chat/completions", h, &why, &e) == 1);
    const char *want = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:8123\r\nAccept: */*\r\n"
                       "Content-Type: application/json\r\nAuthorization: Bearer k\r\nContent-Length: ";
    CHECK(t.head_len == strlen(want) && !memcmp(t.head, want, t.head_len));
    gp_h1_target_free(&t);
    /* no scheme: http is guessed, as libcurl does; port 80 is left out of Host */
    CHECK(gp_h1_target_init(&t, "127.0.0.1:80/x?q=1", h, &why, &e) == 1);
    CHECK(t.head && !strncmp(t.head, "POST /x?q=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n", 39));
    gp_h1_target_free(&t);
    CHECK(gp_h1_target_init(&t, "http://[::1]:9/", h, &why, &e) == 1);
    CHECK(t.head && strstr(t.head, "Host: [::1]:9\r\n"));
    gp_h1_target_free(&t);
    CHECK(gp_h1_target_init(&t, "https://127.0.0.1:1/", h, &why, &e) == 0);
    CHECK(gp_h1_target_init(&t, "http://u:p@127.0.0.1:1/", h, &why, &e) == 0);
    struct curl_slist *h2 = curl_slist_append(h, "Host: other");
    CHECK(gp_h1_target_init(&t, "http://127.0.0.1:1/", h2, &why, &e) == 0);
    curl_slist_free_all(h);
    h = curl_slist_append(NULL, "X-Empty:");
    CHECK(gp_h1_target_init(&t, "http://127.0.0.1:1/", h, &why, &e) == 0);
    curl_slist_free_all(h);
}

int main(void)
{
    GP_RUN(test_chunked_every_split);
    GP_RUN(test_chunked_byte_by_byte);
    GP_RUN(test_content_length_and_excess);
    GP_RUN(test_close_delimited);
    GP_RUN(test_http10_and_connection_close);
    GP_RUN(test_interim_and_no_body);
    GP_RUN(test_bad_status_lines);
    GP_RUN(test_bad_framing);
    GP_RUN(test_oversize_headers);
    GP_RUN(test_eof_cases);
    GP_RUN(test_body_callback_abort);
    GP_RUN(test_request_head);
    return gp_test_summary();
}
