/* Unit tests: -v GPU telemetry tables, against GenAI-Perf's own example
 * (genai-perf docs/gpu_telemetry.md, "Example console output in verbose
 * mode"; trailing spaces of title lines are stripped there, so here too). */
#include "core/buf.h"
#include "core/test.h"
#include "export/export.h"

#include <jansson.h>
#include <string.h>

static const char *const want =
    "                 NVIDIA GenAI-Perf | Power Metrics\n"
    "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓\n"
    "┃                                                                  ┃\n"
    "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┩\n"
    "│                       GPU Power Usage (W)                        │\n"
    "│ ┏━━━━━━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━┓ │\n"
    "│ ┃ GPU Index ┃   avg ┃   min ┃    max ┃    p99 ┃    p90 ┃   p75 ┃ │\n"
    "│ ┡━━━━━━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━┩ │\n"
    "│ │         0 │ 63.55 │ 21.00 │ 111.39 │ 110.84 │ 105.91 │ 95.16 │ │\n"
    "│ └───────────┴───────┴───────┴────────┴────────┴────────┴───────┘ │\n"
    "│                 GPU Power Limit (W)                              │\n"
    "│ ┏━━━━━━━━━━━┳━━━━━━━━┳━━━━━┳━━━━━┳━━━━━┳━━━━━┳━━━━━┓             │\n"
    "│ ┃ GPU Index ┃    avg ┃ min ┃ max ┃ p99 ┃ p90 ┃ p75 ┃             │\n"
    "│ ┡━━━━━━━━━━━╇━━━━━━━━╇━━━━━╇━━━━━╇━━━━━╇━━━━━╇━━━━━┩             │\n"
    "│ │         0 │ 300.00 │ N/A │ N/A │ N/A │ N/A │ N/A │             │\n"
    "│ └───────────┴────────┴─────┴─────┴─────┴─────┴─────┘             │\n"
    "│                    Energy Consumption (MJ)                       │\n"
    "│ ┏━━━━━━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━━┓    │\n"
    "│ ┃ GPU Index ┃   avg ┃   min ┃   max ┃   p99 ┃   p90 ┃   p75 ┃    │\n"
    "│ ┡━━━━━━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━━┩    │\n"
    "│ │         0 │ 67.33 │ 67.33 │ 67.33 │ 67.33 │ 67.33 │ 67.33 │    │\n"
    "│ └───────────┴───────┴───────┴───────┴───────┴───────┴───────┘    │\n"
    "└──────────────────────────────────────────────────────────────────┘\n"
    "               NVIDIA GenAI-Perf | Memory Metrics\n"
    "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓\n"
    "┃                                                               ┃\n"
    "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┩\n"
    "│                     GPU Memory Used (GB)                      │\n"
    "│ ┏━━━━━━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━━┳━━━━━━━┓ │\n"
    "│ ┃ GPU Index ┃   avg ┃   min ┃   max ┃   p99 ┃   p90 ┃   p75 ┃ │\n"
    "│ ┡━━━━━━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━━╇━━━━━━━┩ │\n"
    "│ │         0 │ 45.99 │ 45.99 │ 45.99 │ 45.99 │ 45.99 │ 45.99 │ │\n"
    "│ └───────────┴───────┴───────┴───────┴───────┴───────┴───────┘ │\n"
    "│                Total GPU Memory (GB)                          │\n"
    "│ ┏━━━━━━━━━━━┳━━━━━━━┳━━━━━┳━━━━━┳━━━━━┳━━━━━┳━━━━━┓           │\n"
    "│ ┃ GPU Index ┃   avg ┃ min ┃ max ┃ p99 ┃ p90 ┃ p75 ┃           │\n"
    "│ ┡━━━━━━━━━━━╇━━━━━━━╇━━━━━╇━━━━━╇━━━━━╇━━━━━╇━━━━━┩           │\n"
    "│ │         0 │ 51.53 │ N/A │ N/A │ N/A │ N/A │ N/A │           │\n"
    "│ └───────────┴───────┴─────┴─────┴─────┴─────┴─────┘           │\n"
    "└───────────────────────────────────────────────────────────────┘\n"
    "       NVIDIA GenAI-Perf | Utilization Metrics\n"
    "┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓\n"
    "┃                                                   ┃\n"
    "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┩\n"
    "│                GPU Utilization (%)                │\n"
    "│ ┏━━━━━━━━━━━┳━━━━━┳━━━━━┳━━━━━┳━━━━━┳━━━━━┳━━━━━┓ │\n"
    "│ ┃ GPU Index ┃ avg ┃ min ┃ max ┃ p99 ┃ p90 ┃ p75 ┃ │\n"
    "│ ┡━━━━━━━━━━━╇━━━━━╇━━━━━╇━━━━━╇━━━━━╇━━━━━╇━━━━━┩ │\n"
    "│ │         0 │  28 │   0 │  50 │  50 │  50 │  49 │ │\n"
    "│ └───────────┴─────┴─────┴─────┴─────┴─────┴─────┘ │\n"
    "└───────────────────────────────────────────────────┘\n";

static void test_doc_example(void)
{
    json_error_t je;
    json_t *ts = json_loads(
        "{\"gpu_power_usage\":{\"unit\":\"W\",\"0\":{\"avg\":63.551,\"p1\":21.5,\"p99\":110.84,\"p90\":105.91,"
        "\"p75\":95.16,\"min\":21.0,\"max\":111.39,\"std\":3}},"
        "\"gpu_power_limit\":{\"unit\":\"W\",\"0\":{\"avg\":300.0}},"
        "\"energy_consumption\":{\"unit\":\"MJ\",\"0\":{\"avg\":67.33,\"min\":67.33,\"max\":67.33,"
        "\"p99\":67.33,\"p90\":67.33,\"p75\":67.33}},"
        "\"total_gpu_memory\":{\"unit\":\"GB\",\"0\":{\"avg\":51.53}},"
        "\"gpu_memory_used\":{\"unit\":\"GB\",\"0\":{\"avg\":45.99,\"min\":45.99,\"max\":45.99,"
        "\"p99\":45.99,\"p90\":45.99,\"p75\":45.99}},"
        "\"gpu_memory_free\":{\"unit\":\"GB\",\"0\":{\"avg\":5.0}},"
        "\"gpu_utilization\":{\"unit\":\"%\",\"0\":{\"avg\":28.5,\"min\":0.0,\"max\":50.0,\"p99\":49.6,"
        "\"p90\":50.2,\"p75\":49.4}},"
        "\"sm_utilization\":{\"unit\":\"%\",\"0\":{\"avg\":1.0}}}",
        0, &je);
    CHECK(ts != NULL);
    struct gp_buf b = {0};
    CHECK_INT(gp_export_console_telemetry_buf(ts, &b), 0);
    /* (avg 28.5 prints 28: Python round() is half to even) */
    /* strip trailing spaces per line, as the doc example is */
    struct gp_buf s = {0};
    const char *p = b.data ? b.data : "", *end = p + b.len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end, *e = le;
        while (e > p && e[-1] == ' ')
            e--;
        gp_buf_append(&s, p, (size_t)(e - p));
        if (nl)
            gp_buf_putc(&s, '\n');
        p = nl ? nl + 1 : end;
    }
    gp_buf_putc(&s, '\0');
    CHECK_STR(s.data, want);
    /* title lines are padded on both sides, like rich's */
    const char *t0 = "                 NVIDIA GenAI-Perf | Power Metrics                  \n";
    CHECK_INT(strlen(t0), 17 + 33 + 18 + 1);
    CHECK(b.len > 0 && !strncmp(b.data, t0, strlen(t0)));
    gp_buf_free(&s);
    gp_buf_free(&b);
    json_decref(ts);
}

static void test_no_data(void)
{
    struct gp_buf b = {0};
    CHECK_INT(gp_export_console_telemetry_buf(NULL, &b), 0);
    json_t *ts = json_pack("{s:{s:s}}", "gpu_power_usage", "unit", "W");
    CHECK_INT(gp_export_console_telemetry_buf(ts, &b), 0);
    CHECK_INT(b.len, 0);
    json_decref(ts);
    /* two GPUs sorted by key, "{:,.2f}" thousands separators */
    ts = json_loads("{\"gpu_clock_sm\":{},\"gpu_power_usage\":{\"unit\":\"W\",\"1\":{\"avg\":1234.5},"
                    "\"0\":{\"avg\":2.0}}}", 0, NULL);
    CHECK_INT(gp_export_console_telemetry_buf(ts, &b), 0);
    const char *g0 = b.data ? strstr(b.data, "│         0 │     2.00 │") : NULL;
    const char *g1 = b.data ? strstr(b.data, "│         1 │ 1,234.50 │") : NULL;
    CHECK(g0 && g1 && g0 < g1);
    CHECK(b.data && !strstr(b.data, "Memory Metrics"));
    json_decref(ts);
    gp_buf_free(&b);
}

int main(void)
{
    GP_RUN(test_doc_example);
    GP_RUN(test_no_data);
    return gp_test_summary();
}
