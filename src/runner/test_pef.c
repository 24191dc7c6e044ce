/* Unit tests for runner/pef_split.c and pef.c's pieces that follow
 * GenAI-Perf 0.0.16 exactly: the splinter repair (its own
 * test_splintered_sse_responses / test_handle_non_data_sse_fields cases)
 * and the telemetry aggregation (TelemetryStatsAggregator). */
#include "runner/pef.h"
#include "core/buf.h"
#include "core/test.h"

#include <stdlib.h>
#include <string.h>

/* Repairs the responses rs[0..n) stamped 0, 1, 2, ...; the repaired ones,
 * joined with '|' and each prefixed by its stamp ("0:data...|2:data..."),
 * or "unchanged". */
static char *repair(const char *const *rs, size_t n)
{
    struct gp_buf in = {0}, ob = {0}, out = {0};
    struct gp_chunk c[16], o[16];
    for (size_t i = 0; i < n; i++) {
        c[i] = (struct gp_chunk){.t_ns = i, .off = in.len, .len = (uint32_t)strlen(rs[i])};
        gp_buf_puts(&in, rs[i]);
    }
    size_t no = 99;
    int r = gp_pef_repair_splits(c, n, in.data, o, &no, &ob);
    if (r == 0) {
        CHECK_INT(no, 0);
        gp_buf_puts(&out, "unchanged");
    }
    for (size_t i = 0; r > 0 && i < no; i++)
        gp_buf_printf(&out, "%s%llu:%.*s", i ? "|" : "", (unsigned long long)o[i].t_ns, (int)o[i].len,
                      ob.data + o[i].off);
    gp_buf_free(&in);
    gp_buf_free(&ob);
    return gp_buf_steal(&out);
}

#define HEAD "data: {\"choices\":[{\"de"
#define EV(c) "data: {\"choices\":[{\"delta\":{\"content\":\"" c "\"}}]}\n\n"
#define TAIL(c) "lta\":{\"content\":\"" c "\"}}]}\n\n"

static void test_repair(void)
{
    /* split mid-JSON twice; the second continuation also holds the next event */
    const char *a[] = {HEAD, TAIL("abc"), HEAD, TAIL("123") EV("hello"), "data: [DONE]\n\n"};
    char *s = repair(a, 5);
    CHECK_STR(s, "0:" EV("abc") "|2:" EV("123") "|3:" EV("hello") "|4:data: [DONE]\n\n");
    free(s);
    /* cut right after "data:": the rest, without "data: ", goes back whole */
    const char *b[] = {"data:", "{\"x\":1}\n\n", "data: [DONE]\n\n"};
    s = repair(b, 3);
    CHECK_STR(s, "0:data:{\"x\":1}\n\n|2:data: [DONE]\n\n");
    free(s);
    /* a continuation that itself received the next one's head gives its own
     * head back first (last to second) */
    const char *c3[] = {EV("a") "data: {\"b\":", "2}\n\ndata: {\"c\":", "3}\n\n"};
    s = repair(c3, 3);
    CHECK_STR(s, "0:" EV("a") "data: {\"b\":2}\n\n|1:data: {\"c\":3}\n\n");
    free(s);
    /* comments and event fields are left where they are */
    const char *d[] = {":\n\n", EV("Hello "), ":\n\n", EV("world!"), "event: x\n\n", "data: [DONE]\n\n"};
    s = repair(d, 6);
    CHECK_STR(s, "unchanged");
    free(s);
    /* "data:" without the space is a continuation to GenAI-Perf */
    const char *e[] = {EV("a"), "data:{\"b\":2}\n\n"};
    s = repair(e, 2);
    CHECK_STR(s, "0:" EV("a") "data:{\"b\":2}\n\n");
    free(s);
    /* not SSE (a non-streamed body read in pieces): never repaired */
    const char *f[] = {"{\"choices\":[{\"message\":", "{\"content\":\"data: x\"}}]}"};
    s = repair(f, 2);
    CHECK_STR(s, "unchanged");
    free(s);
    /* the piece before holds no "data:": GenAI-Perf raises, genperf leaves it */
    const char *g[] = {": ping\n\n", "\n"};
    s = repair(g, 2);
    CHECK_STR(s, "unchanged");
    free(s);
    /* one response, or none */
    const char *h[] = {HEAD};
    s = repair(h, 1);
    CHECK_STR(s, "unchanged");
    free(s);
}

static void test_telemetry(void)
{
    json_t *n[3];
    n[0] = json_loads("{\"gpu_power_usage\": {\"unit\": \"W\", \"0\": {\"avg\": 0.1, \"max\": 9}, \"1\": {\"avg\": 5}},"
                      " \"gpu_memory_used\": {\"unit\": \"GB\", \"0\": {\"avg\": 10}},"
                      " \"gpu_utilization\": {\"unit\": \"%\"}}",
                      0, NULL);
    n[1] = json_loads("{\"gpu_power_usage\": {\"unit\": \"kW\", \"0\": {\"avg\": 0.2}},"
                      " \"gpu_memory_used\": {\"unit\": \"GB\", \"0\": {\"avg\": 30}, \"2\": {\"avg\": 1}},"
                      " \"xid_errors\": {\"0\": {\"avg\": 3}}}",
                      0, NULL);
    n[2] = json_loads("{\"gpu_power_usage\": {\"0\": {\"avg\": 0.3}, \"1\": {\"min\": 1}},"
                      " \"gpu_memory_used\": {\"0\": {\"avg\": 20}}}",
                      0, NULL);
    json_t *a = gp_pef_telemetry_aggregate(n, 3);
    CHECK(a != NULL);
    json_t *pw = json_object_get(a, "gpu_power_usage");
    /* the first node's unit; statistics.mean is exact: 0.2, not the
     * 0.20000000000000004 of (0.1 + 0.2 + 0.3) / 3 */
    CHECK_STR(json_string_value(json_object_get(pw, "unit")), "W");
    CHECK(json_real_value(json_object_get(json_object_get(pw, "0"), "avg")) == 0.2);
    CHECK(json_number_value(json_object_get(json_object_get(pw, "1"), "avg")) == 5.0);
    CHECK_INT(json_object_size(json_object_get(pw, "0")), 1); /* avg only */
    json_t *mem = json_object_get(a, "gpu_memory_used");
    CHECK(json_number_value(json_object_get(json_object_get(mem, "0"), "avg")) == 30.0); /* max */
    CHECK(json_number_value(json_object_get(json_object_get(mem, "2"), "avg")) == 1.0);
    CHECK(json_object_get(a, "gpu_utilization") == NULL); /* no GPU left: dropped */
    CHECK(json_object_get(a, "xid_errors") == NULL);      /* not in the first node */
    json_decref(a);
    CHECK(gp_pef_telemetry_aggregate(n, 0) == NULL);
    for (int i = 0; i < 3; i++)
        json_decref(n[i]);
}

int main(void)
{
    GP_RUN(test_repair);
    GP_RUN(test_telemetry);
    return gp_test_summary();
}
