/* runner/test_selftest.c — selftest's arithmetic (selftest.c) on a hand-made
 * profile export and timing log whose figures are worked out below: one
 * request matched by id (a role read without content, a reasoning_content
 * event that is not content, two content events in one read), one whose id
 * the server never logged. */
#include "core/error.h"
#include "core/test.h"
#include "runner/selftest.h"

#include <stdio.h>
#include <string.h>

static void test_compare(void)
{
    char dir[512], ex[600], lg[600];
    if (!gp_test_mkdtemp(dir, sizeof dir, "gp-selftest")) {
        CHECK(0);
        return;
    }
    snprintf(ex, sizeof ex, "%s/profile_export.json", dir);
    snprintf(lg, sizeof lg, "%s/timing.jsonl", dir);
    /* client (wall = mono + 5e9): start 1.000 ms; reads at 1.2 ms (one content), 1.3 ms (two) */
    const long long W = 5000000000LL;
    json_t *a = json_pack(
        "{s:I, s:[I,I,I], s:[{s:s},{s:s},{s:s}]}", "timestamp", W + 1000000LL, "response_timestamps", W + 1100000LL,
        W + 1200000LL, W + 1300000LL, "response_outputs", "response",
        "data: {\"id\":\"chatcmpl-a\",\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\","
        "\"reasoning_content\":\"hmm\"}}]}\n\n",
        "response", "data: {\"id\":\"chatcmpl-a\",\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n", "response",
        "data: {\"id\":\"chatcmpl-a\",\"choices\":[{\"delta\":{\"content\": \"y\"}}]}\n\n"
        "data: {\"id\":\"chatcmpl-a\",\"choices\":[{\"delta\":{\"content\":\"z\"}}]}\n\ndata: [DONE]\n\n");
    json_t *b = json_pack("{s:I, s:[I], s:[{s:s}]}", "timestamp", W + 2000000LL, "response_timestamps",
                          W + 2100000LL, "response_outputs", "response",
                          "data: {\"id\":\"chatcmpl-b\",\"choices\":[{\"delta\":{\"content\":\"q\"}}]}\n\n");
    json_t *doc = json_pack("{s:[{s:[o,o]}]}", "experiments", "requests", a, b);
    CHECK(doc && json_dump_file(doc, ex, 0) == 0);
    json_decref(doc);
    /* server: parsed at 1.010 ms; content chunks handed to send() at 1.15, 1.25, 1.26 ms */
    FILE *f = fopen(lg, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("{\"seq\":0,\"id\":\"chatcmpl-a\",\"t_request_ns\":1010000,\"chunks_ns\":[1090000,1150000,1250000,"
          "1260000,1270000],\"kinds\":\"RCCCD\"}\n"
          "{\"seq\":1,\"id\":\"chatcmpl-other\",\"t_request_ns\":1,\"chunks_ns\":[2],\"kinds\":\"C\"}\n",
          f);
    fclose(f);

    struct gp_selftest_result r;
    struct gp_error err = {0};
    CHECK_INT(gp_selftest_compare(ex, lg, W, &r, &err), 0);
    CHECK_INT((int)r.requests, 2);
    CHECK_INT((int)r.matched, 1);
    CHECK_INT((int)r.unmatched, 1);
    /* TTFT excess (1.2 - 1.0) - (1.15 - 1.01) ms = 60 us; send 10 us; receive 50 us */
    CHECK_INT((int)r.ttft_excess.n, 1);
    CHECK_NEAR(r.ttft_excess.median_us, 60, 1e-9);
    CHECK_NEAR(r.ttft_excess.p99_us, 60, 1e-9);
    CHECK_NEAR(r.send_side.median_us, 10, 1e-9);
    CHECK_NEAR(r.recv_side.median_us, 50, 1e-9);
    /* gaps: client 100, 0 us; server 100, 10 us -> |errors| 0, 10: median 5, p99 9.9 */
    CHECK_INT((int)r.itl_error.n, 2);
    CHECK_NEAR(r.itl_error.median_us, 5, 1e-9);
    CHECK_NEAR(r.itl_error.p99_us, 9.9, 1e-9);
    CHECK_NEAR(r.itl_error.max_us, 10, 1e-9);
    /* last token: (1.3 - 1.0) - (1.26 - 1.01) ms = 50 us */
    CHECK_NEAR(r.last_excess.median_us, 50, 1e-9);
    json_t *j = gp_selftest_json(&r);
    CHECK_NEAR(json_real_value(json_object_get(json_object_get(j, "ttft_excess"), "median_us")), 60, 1e-9);
    CHECK_INT((int)json_integer_value(json_object_get(j, "matched")), 1);
    json_decref(j);

    /* a missing log names the file */
    snprintf(lg, sizeof lg, "%s/none.jsonl", dir);
    CHECK(gp_selftest_compare(ex, lg, W, &r, &err) < 0 && strstr(err.msg, "none.jsonl"));
    gp_test_rmtree(dir);
}

int main(void)
{
    GP_RUN(test_compare);
    return gp_test_summary();
}
