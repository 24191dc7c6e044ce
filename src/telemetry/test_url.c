/* Unit test: telemetry scrapes only http(s) metrics URLs (issue 14: file:// was accepted). */
#include "core/error.h"
#include "core/test.h"
#include "telemetry/telemetry.h"

static void test_check_url(void)
{
    struct gp_error e = {0};
    CHECK_INT(gp_telemetry_check_url("http://127.0.0.1:8000/metrics", &e), 0);
    CHECK_INT(gp_telemetry_check_url("HTTPS://dcgm:9400/metrics", &e), 0);
    CHECK_INT(gp_telemetry_check_url(NULL, &e), 0);
    CHECK(gp_telemetry_check_url("file:///etc/passwd", &e) < 0);
    CHECK(strstr(e.msg, "file:///etc/passwd") != NULL);
    CHECK(strstr(e.msg, "http://") != NULL);
    CHECK(gp_telemetry_check_url("gopher://x/", &e) < 0);
}

static void test_open_refuses(void)
{
    struct gp_error e = {0};
    struct gp_telemetry *t = NULL;
    struct gp_telemetry_opts o = {.interval_s = 1, .server_metrics_url = "file:///etc/passwd"};
    CHECK(gp_telemetry_open(&o, &t, &e) < 0);
    CHECK(t == NULL);
}

int main(void)
{
    GP_RUN(test_check_url);
    GP_RUN(test_open_refuses);
    return gp_test_summary();
}
