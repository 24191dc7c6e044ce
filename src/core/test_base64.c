/* Unit tests: core/base64 — RFC 4648 section 10 vectors, a binary round
 * trip, malformed input refused. */
#include "core/base64.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/test.h"

static void test_rfc_vectors(void)
{
    static const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        struct gp_buf b = {0}, d = {0};
        CHECK_INT(gp_base64_encode(&b, in[i], strlen(in[i])), 0);
        CHECK_STR(b.data ? b.data : "", out[i]);
        CHECK_INT(gp_base64_len(strlen(in[i])), strlen(out[i]));
        CHECK_INT(gp_base64_decode(&d, out[i], strlen(out[i])), 0);
        CHECK_INT(d.len, strlen(in[i]));
        CHECK(d.len == 0 || !memcmp(d.data, in[i], d.len));
        gp_buf_free(&b);
        gp_buf_free(&d);
    }
}

static void test_binary_round_trip(void)
{
    unsigned char raw[1000];
    for (int i = 0; i < 1000; i++)
        raw[i] = (unsigned char)(i * 37 + (i >> 3));
    for (size_t n = 0; n < 40; n++) {
        struct gp_buf b = {0}, d = {0};
        CHECK_INT(gp_buf_puts(&b, "data:x;base64,"), 0);
        CHECK_INT(gp_base64_encode(&b, raw + n, 1000 - n), 0);
        CHECK_INT(gp_base64_decode(&d, b.data + 14, b.len - 14), 0);
        CHECK_INT(d.len, 1000 - n);
        CHECK(!memcmp(d.data, raw + n, d.len));
        gp_buf_free(&b);
        gp_buf_free(&d);
    }
}

static void test_malformed(void)
{
    static const char *bad[] = {"Zg=", "Z===", "Zg=a", "Zm9v\n", "Zm 9", "Zm9vYg=x", "Zg==Zg=="};
    for (int i = 0; i < 7; i++) {
        struct gp_buf d = {0};
        CHECK_INT(gp_base64_decode(&d, bad[i], strlen(bad[i])), -GP_EINVAL);
        gp_buf_free(&d);
    }
}

int main(void)
{
    GP_RUN(test_rfc_vectors);
    GP_RUN(test_binary_round_trip);
    GP_RUN(test_malformed);
    return gp_test_summary();
}
