/* Unit tests for core/redact: which headers are secret and how they are shown. */
#include "core/redact.h"
#include "core/test.h"

static void test_defaults(void)
{
    CHECK(gp_redact_is_secret(NULL, "Authorization", 13));
    CHECK(gp_redact_is_secret(NULL, "authorization", 13));
    CHECK(gp_redact_is_secret(NULL, " X-API-Key ", 11));
    CHECK(gp_redact_is_secret(NULL, "cookie", 6));
    CHECK(!gp_redact_is_secret(NULL, "Accept", 6));
    CHECK(!gp_redact_is_secret(NULL, "Authorization2", 14));
}

static void test_extra(void)
{
    const char *names[] = { "X-Tenant-Token" };
    struct gp_redact r = { names, 1 };
    CHECK(gp_redact_is_secret(&r, "x-tenant-token", 14));
    CHECK(!gp_redact_is_secret(NULL, "x-tenant-token", 14));
}

static void test_line(void)
{
    char out[64];
    CHECK_INT(gp_redact_header_line(NULL, "Authorization: Bearer sk-123", out, sizeof out), 18);
    CHECK_STR(out, "Authorization: ***");
    gp_redact_header_line(NULL, "Accept: text/event-stream", out, sizeof out);
    CHECK_STR(out, "Accept: text/event-stream");
    gp_redact_header_line(NULL, "no colon here", out, sizeof out);
    CHECK_STR(out, "no colon here");
    char small[8];
    CHECK_INT(gp_redact_header_line(NULL, "Accept: text/event-stream", small, sizeof small), 7);
    CHECK_STR(small, "Accept:");
}

static void test_scrub(void)
{
    char a[] = "Authorization: Bearer sk-secret-token";
    CHECK(gp_redact_scrub_in_place(NULL, a));
    CHECK_STR(a, "Authorization: ***");
    CHECK(memchr(a, 's', sizeof a - 1) == NULL || strstr(a + 15, "sk") == NULL);
    for (size_t i = strlen(a); i < sizeof a - 1; i++) CHECK(a[i] == '\0');
    char b[] = "api-key:x";
    CHECK(gp_redact_scrub_in_place(NULL, b));
    CHECK_STR(b, "api-key: ");
    char c[] = "Accept: json";
    CHECK(!gp_redact_scrub_in_place(NULL, c));
    CHECK_STR(c, "Accept: json");
}

static void test_mask(void)
{
    char a[] = "vllm serve m --api-key sk-SECRET --port 1 x=sk-SECRET";
    CHECK_INT(gp_redact_mask(a, "sk-SECRET"), 2);
    CHECK_STR(a, "vllm serve m --api-key *** --port 1 x=***");
    char b[] = "k=ab";
    CHECK_INT(gp_redact_mask(b, "ab"), 1);
    CHECK_STR(b, "k=**");
    CHECK_INT(gp_redact_mask(b, ""), 0);
    CHECK_INT(gp_redact_mask(b, NULL), 0);
}

static void test_url(void)
{
    char o[128];
    CHECK(gp_redact_url("postgresql://u:s3cret@127.0.0.1:1/none", o, sizeof o));
    CHECK_STR(o, "postgresql://u:***@127.0.0.1:1/none");
    CHECK(gp_redact_url("https://sk-TOKEN@api.example/v1/chat/completions", o, sizeof o));
    CHECK_STR(o, "https://***@api.example/v1/chat/completions");
    /* a password holding '@' or ':' hides whole */
    CHECK(gp_redact_url("http://a:b@c:d@h:8000/v1", o, sizeof o));
    CHECK_STR(o, "http://a:***@h:8000/v1");
    /* an '@' past the authority is not userinfo */
    CHECK(!gp_redact_url("http://h:8000/v1/x@y?u=a:b@c", o, sizeof o));
    CHECK_STR(o, "http://h:8000/v1/x@y?u=a:b@c");
    CHECK(!gp_redact_url("localhost:8000", o, sizeof o));
    CHECK_STR(o, "localhost:8000");
    char small[12];
    CHECK(gp_redact_url("http://u:p@host/long/path", small, sizeof small));
    CHECK_STR(small, "http://u:**");
}

int main(void)
{
    GP_RUN(test_defaults);
    GP_RUN(test_extra);
    GP_RUN(test_line);
    GP_RUN(test_scrub);
    GP_RUN(test_mask);
    GP_RUN(test_url);
    return gp_test_summary();
}
