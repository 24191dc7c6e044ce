/* serve/test_http.c — the request parser: complete/incomplete/pipelined,
 * chunked bodies, and the malformed inputs that must not desync a connection. */
#include "core/buf.h"
#include "core/test.h"
#include "serve/http.h"

static long parse(const char *s, struct gp_http_req *r, struct gp_buf *b)
{
    return gp_http_parse(s, strlen(s), 1 << 20, r, b);
}

static void test_simple_get(void)
{
    struct gp_http_req r;
    struct gp_buf b = {0};
    const char *s = "GET /health?x=1 HTTP/1.1\r\nHost: a\r\n\r\n";
    CHECK_INT(parse(s, &r, &b), strlen(s));
    CHECK_INT(r.method, GP_HTTP_GET);
    CHECK_INT(r.path_len, 7);
    CHECK(!memcmp(r.path, "/health", 7));
    CHECK_INT(r.keep_alive, 1);
    CHECK_INT(r.body_len, 0);
    gp_buf_free(&b);
}

static void test_post_content_length_and_incremental(void)
{
    struct gp_http_req r;
    struct gp_buf b = {0};
    const char *s = "POST /v1/chat/completions HTTP/1.1\r\ncontent-type: application/json\r\n"
                    "Content-Length: 5\r\nAuthorization: Bearer k\r\nExpect: 100-continue\r\n\r\nhello";
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++)
        CHECK_INT(gp_http_parse(s, i, 1 << 20, &r, &b), 0);
    /* once the headers are in, head_len tells the caller it may send 100 Continue */
    gp_http_parse(s, n - 5, 1 << 20, &r, &b);
    CHECK(r.head_len == n - 5);
    CHECK_INT(r.expect_continue, 1);
    CHECK_INT(gp_http_parse(s, n, 1 << 20, &r, &b), n);
    CHECK_INT(r.method, GP_HTTP_POST);
    CHECK_INT(r.body_len, 5);
    CHECK(!memcmp(r.body, "hello", 5));
    CHECK(r.content_type && r.content_type_len == 16);
    CHECK(r.authorization && r.authorization_len == 8);
    gp_buf_free(&b);
}

static void test_pipelined(void)
{
    struct gp_http_req r;
    struct gp_buf b = {0};
    const char *s = "POST /a HTTP/1.1\r\nContent-Length: 2\r\n\r\nxyGET /b HTTP/1.1\r\n\r\n";
    long n = parse(s, &r, &b);
    CHECK(n > 0);
    CHECK(!memcmp(r.body, "xy", 2));
    long m = gp_http_parse(s + n, strlen(s) - (size_t)n, 1 << 20, &r, &b);
    CHECK_INT(m, strlen(s) - (size_t)n);
    CHECK(!memcmp(r.path, "/b", 2));
    gp_buf_free(&b);
}

static void test_chunked(void)
{
    struct gp_http_req r;
    struct gp_buf b = {0};
    const char *s = "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "4;ext=1\r\nwiki\r\n5\r\npedia\r\n0\r\nTrailer: t\r\n\r\nNEXT";
    long n = parse(s, &r, &b);
    CHECK_INT(n, strlen(s) - 4);
    CHECK_INT(r.body_len, 9);
    CHECK(!memcmp(r.body, "wikipedia", 9));
    /* every prefix is incomplete, never an error */
    for (size_t i = 0; i < strlen(s) - 4; i++)
        CHECK_INT(gp_http_parse(s, i, 1 << 20, &r, &b), 0);
    gp_buf_free(&b);
}

static void test_connection_semantics(void)
{
    struct gp_http_req r;
    struct gp_buf b = {0};
    parse("GET / HTTP/1.1\r\nConnection: keep-alive, Close\r\n\r\n", &r, &b);
    CHECK_INT(r.keep_alive, 0);
    parse("GET / HTTP/1.0\r\n\r\n", &r, &b);
    CHECK_INT(r.keep_alive, 0);
    CHECK_INT(r.minor, 0);
    parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", &r, &b);
    CHECK_INT(r.keep_alive, 1);
    gp_buf_free(&b);
}

static void test_errors(void)
{
    struct gp_http_req r;
    struct gp_buf b = {0};
    CHECK_INT(parse("GARBAGE\r\n\r\n", &r, &b), -400);
    CHECK_INT(parse("GET / HTTP/2.0\r\n\r\n", &r, &b), -505);
    CHECK_INT(parse("GET / SPDY/3\r\n\r\n", &r, &b), -400);
    CHECK_INT(parse("GET / HTTP/3\r\n\r\n", &r, &b), -505);
    CHECK_INT(parse("POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", &r, &b), -400);
    CHECK_INT(parse("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", &r, &b), -400);
    CHECK_INT(parse("POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", &r, &b), -400);
    CHECK_INT(parse("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", &r, &b), -501);
    CHECK_INT(parse("POST / HTTP/1.1\r\nContent-Length : 1\r\n\r\na", &r, &b), -400);
    CHECK_INT(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", &r, &b), -400);
    CHECK_INT(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", &r, &b), -400);
    CHECK_INT(gp_http_parse("POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n", 40, 10, &r, &b), -413);
    CHECK_INT(parse("NoHeaderEnd\r\n", &r, &b), 0);
    gp_buf_free(&b);
}

static void test_header_limit(void)
{
    struct gp_http_req r;
    struct gp_buf b = {0}, big = {0};
    gp_buf_puts(&big, "GET / HTTP/1.1\r\nX: ");
    while (big.len < GP_HTTP_MAX_HEAD + 10)
        gp_buf_putc(&big, 'a');
    CHECK_INT(gp_http_parse(big.data, big.len, 1 << 20, &r, &b), -431);
    gp_buf_free(&big);
    gp_buf_free(&b);
}

/* Bare LF line ends are refused at once (400), wherever the head has one:
 * waiting for a CRLF CRLF that never comes used to hang the connection
 * until the idle close. A CRLF request is unaffected, a LF in a body too. */
static void test_bare_lf(void)
{
    struct gp_http_req r;
    struct gp_buf b = {0};
    CHECK_INT(parse("GET / HTTP/1.1\n\n", &r, &b), -400);
    CHECK_INT(parse("GET / HTTP/1.1\n", &r, &b), -400);
    CHECK_INT(parse("GET / HTTP/1.1\nHost: a\n\n", &r, &b), -400);
    CHECK_INT(parse("GET / HTTP/1.1\r\nHost: a\n\r\n", &r, &b), -400);
    CHECK_INT(parse("GET / HTTP/1.1\r\nHost: a\n", &r, &b), -400);
    CHECK_INT(parse("GET / HTTP/1.1\r\nHost: a\r\n\n", &r, &b), -400);
    CHECK_INT(parse("\nGET / HTTP/1.1\r\n\r\n", &r, &b), -400);
    CHECK_INT(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: y\n\r\n", &r, &b), -400);
    CHECK_INT(parse("GET / HTTP/1.1\r\nHost: a\r", &r, &b), 0);
    const char *ok = "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\na\nb";
    CHECK_INT(parse(ok, &r, &b), strlen(ok));
    CHECK_INT(r.body_len, 3);
    gp_buf_free(&b);
}

int main(void)
{
    GP_RUN(test_simple_get);
    GP_RUN(test_post_content_length_and_incremental);
    GP_RUN(test_pipelined);
    GP_RUN(test_chunked);
    GP_RUN(test_connection_semantics);
    GP_RUN(test_errors);
    GP_RUN(test_header_limit);
    GP_RUN(test_bare_lf);
    return gp_test_summary();
}
