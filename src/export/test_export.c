/* export/test_export.c — the writers against the spec's literal examples
 * (genai-perf-profile.md §7.1 JSON, §7.2 CSV, §8 console), plus a full
 * gp_export_all run whose files must parse. */
#include "client/record.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/test.h"
#include "dataset/dataset.h"
#include "export/export.h"
#include "core/pytext.h"
#include "metrics/metrics.h"
#include "metrics/watch.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_stats(struct gp_metrics_result *m, enum gp_metric k, double a, double b, double c)
{
    double x[3] = {a, b, c};
    gp_stats_compute(x, 3, &m->stats[k]);
}

static void set_sys(struct gp_metrics_result *m, enum gp_metric k, double v)
{
    m->stats[k].present = m->stats[k].system = 1;
    m->stats[k].avg = v;
}

/* the lists of GPT/test_exporters/test_csv_exporter.py (unscaled) */
static void csv_fixture(struct gp_metrics_result *m)
{
    memset(m, 0, sizeof *m);
    set_stats(m, GP_M_TTFT, 7, 8, 9);
    set_stats(m, GP_M_TTST, 1, 2, 3);
    set_stats(m, GP_M_REQUEST_LATENCY, 4, 5, 6);
    set_stats(m, GP_M_ITL, 10, 11, 12);
    set_stats(m, GP_M_TPS_PER_USER, 4, 5, 6);
    set_stats(m, GP_M_OSL, 1, 2, 3);
    set_stats(m, GP_M_ISL, 5, 6, 7);
    set_sys(m, GP_M_OUTPUT_TOKEN_THROUGHPUT, 456);
    set_sys(m, GP_M_REQUEST_THROUGHPUT, 123);
    set_sys(m, GP_M_REQUEST_COUNT, 3);
}

static void test_csv_literal(void)
{
    struct gp_metrics_result m;
    csv_fixture(&m);
    struct gp_export_ctx ctx = {0};
    ctx.m = &m;
    ctx.streaming = 1;
    struct gp_buf b = {0};
    CHECK_INT(gp_export_csv_buf(&ctx, &b), 0);
    const char *exp =
        "Metric,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1\r\n"
        "Time To First Token (ms),8.00,7.00,9.00,8.98,8.90,8.80,8.50,8.00,7.50,7.20,7.10,7.02\r\n"
        "Time To Second Token (ms),2.00,1.00,3.00,2.98,2.90,2.80,2.50,2.00,1.50,1.20,1.10,1.02\r\n"
        "Request Latency (ms),5.00,4.00,6.00,5.98,5.90,5.80,5.50,5.00,4.50,4.20,4.10,4.02\r\n"
        "Inter Token Latency (ms),11.00,10.00,12.00,11.98,11.90,11.80,11.50,11.00,10.50,10.20,10.10,10.02\r\n"
        "Output Token Throughput Per User (tokens/sec/user),5.00,4.00,6.00,5.98,5.90,5.80,5.50,5.00,4.50,4.20,4.10,4.02\r\n"
        "Output Sequence Length (tokens),2.00,1.00,3.00,2.98,2.90,2.80,2.50,2.00,1.50,1.20,1.10,1.02\r\n"
        "Input Sequence Length (tokens),6.00,5.00,7.00,6.98,6.90,6.80,6.50,6.00,5.50,5.20,5.10,5.02\r\n"
        "\r\n"
        "Metric,Value\r\n"
        "Output Token Throughput (tokens/sec),456.00\r\n"
        "Request Throughput (per sec),123.00\r\n"
        "Request Count (count),3.00\r\n";
    CHECK_STR(b.data, exp);

    /* non-streaming + goodput + missing ISL + a value >= 1000 (quoted) */
    gp_buf_reset(&b);
    ctx.streaming = 0;
    ctx.goodput = 1;
    set_sys(&m, GP_M_REQUEST_GOODPUT, 100);
    m.stats[GP_M_ISL].present = 0;
    set_stats(&m, GP_M_OSL, 1000, 2000, 3000);
    CHECK_INT(gp_export_csv_buf(&ctx, &b), 0);
    const char *exp2 =
        "Metric,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1\r\n"
        "Request Latency (ms),5.00,4.00,6.00,5.98,5.90,5.80,5.50,5.00,4.50,4.20,4.10,4.02\r\n"
        "Output Sequence Length (tokens),\"2,000.00\",\"1,000.00\",\"3,000.00\",\"2,980.00\",\"2,900.00\","
        "\"2,800.00\",\"2,500.00\",\"2,000.00\",\"1,500.00\",\"1,200.00\",\"1,100.00\",\"1,020.00\"\r\n"
        "Input Sequence Length (tokens),N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A\r\n"
        "\r\n"
        "Metric,Value\r\n"
        "Output Token Throughput (tokens/sec),456.00\r\n"
        "Request Throughput (per sec),123.00\r\n"
        "Request Goodput (per sec),100.00\r\n"
        "Request Count (count),3.00\r\n";
    CHECK_STR(b.data, exp2);
    gp_buf_free(&b);
}

static void test_csv_telemetry(void)
{
    struct gp_metrics_result m;
    csv_fixture(&m);
    json_t *ts = json_loads("{\"gpu_power_usage\":{\"unit\":\"W\",\"gpu0\":{\"avg\":45.85,\"p1\":45.21,\"p5\":45.27,"
                            "\"p10\":45.33,\"p25\":45.53,\"p50\":45.85,\"p75\":46.17,\"p90\":46.37,\"p95\":46.44,"
                            "\"p99\":46.49,\"min\":45.2,\"max\":46.5,\"std\":0.1}},"
                            "\"gpu_power_limit\":{\"unit\":\"W\",\"gpu0\":{\"avg\":250.0}},"
                            "\"gpu_clock_sm\":{\"unit\":\"MHz\",\"gpu0\":{\"avg\":1525.0,\"min\":1500.0}}}",
                            0, NULL);
    struct gp_export_ctx ctx = {0};
    ctx.m = &m;
    ctx.streaming = 1;
    ctx.telemetry_stats = ts;
    struct gp_buf b = {0};
    CHECK_INT(gp_export_csv_buf(&ctx, &b), 0);
    const char *tail = strstr(b.data, "Request Count (count),3.00\r\n");
    CHECK(tail != NULL);
    if (tail)
        CHECK_STR(tail + strlen("Request Count (count),3.00\r\n"),
                  "\r\n"
                  "Metric,GPU,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1\r\n"
                  "GPU Power Usage (W),gpu0,45.85,45.20,46.50,46.49,46.44,46.37,46.17,45.85,45.53,45.33,45.27,45.21\r\n"
                  "GPU Clock Sm (MHz),gpu0,\"1,525.00\",\"1,500.00\",0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00,0.00\r\n"
                  "\r\n"
                  "Metric,GPU,Value\r\n"
                  "GPU Power Limit (W),gpu0,250.00\r\n");
    gp_buf_free(&b);
    json_decref(ts);
}

static void test_console_literal(void)
{
    struct gp_metrics_result m;
    csv_fixture(&m);
    struct gp_export_ctx ctx = {0};
    ctx.m = &m;
    ctx.streaming = 1;
    struct gp_buf b = {0};
    CHECK_INT(gp_export_console_buf(&ctx, 100, &b), 0);
    char *exp = NULL;
    CHECK_INT(gp_read_file("src/export/testdata/console_example.txt", &exp, NULL, NULL), 0);
    if (exp)
        CHECK_STR(b.data, exp);
    free(exp);
    /* at 80 columns (a pipe) the label column is squeezed and wraps more */
    gp_buf_reset(&b);
    CHECK_INT(gp_export_console_buf(&ctx, 80, &b), 0);
    CHECK(strstr(b.data, "│ Output Token Throughput Per │") != NULL);
    CHECK(strstr(b.data, "│                        User │") != NULL);
    /* every line is exactly 80 columns wide */
    const char *p = b.data;
    int lines = 0, bad = 0;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t w = 0;
        for (const char *q = p; q < e; q++)
            if (((unsigned char)*q & 0xC0) != 0x80)
                w++;
        if (w != 80)
            bad++;
        lines++;
        p = e + 1;
    }
    CHECK(lines > 10);
    CHECK_INT(bad, 0);
    gp_buf_free(&b);
}

/* ---- the full example of §7.1 through gp_metrics_compute -------------- */

struct reqspec {
    uint64_t start_ms;
    int n;              /* content chunks, one token ("a") each */
    uint64_t at_ms[5];  /* chunk times relative to start */
};

static void build_example(struct gp_record_store *st, struct gp_dataset *ds)
{
    /* TTFT/latency/ITL/OSL pairs that reproduce the spec's statistics:
     * (ttft 46, lat 58, osl 2) (40, 70, 4) (49, 75, 3) (43, 87, 5) ms */
    static const struct reqspec rs[4] = {
        {0, 2, {46, 58}},
        {0, 4, {40, 50, 60, 70}},
        {100, 3, {49, 62, 75}},
        {168, 5, {43, 54, 65, 76, 87}},
    };
    gp_record_store_init(st);
    st->mono0_ns = 1000000000ull;
    st->wall0_ns = 1733000000000000000ull;
    for (int i = 0; i < 4; i++) {
        struct gp_chunk ch[8];
        struct gp_buf b = {0};
        uint64_t t0 = st->mono0_ns + rs[i].start_ms * 1000000ull;
        int nc = 0;
        ch[nc].t_ns = t0 + rs[i].at_ms[0] * 1000000ull - 1000;
        ch[nc].off = b.len;
        gp_buf_puts(&b, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n");
        ch[nc].len = (uint32_t)(b.len - ch[nc].off);
        nc++;
        for (int k = 0; k < rs[i].n; k++) {
            ch[nc].t_ns = t0 + rs[i].at_ms[k] * 1000000ull;
            ch[nc].off = b.len;
            gp_buf_puts(&b, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n");
            if (k == rs[i].n - 1)
                gp_buf_puts(&b, "data: [DONE]\n\n");
            ch[nc].len = (uint32_t)(b.len - ch[nc].off);
            nc++;
        }
        struct gp_record r = {0};
        r.t_start_ns = t0;
        r.t_end_ns = ch[nc - 1].t_ns + 1000;
        r.http_status = 200;
        r.flags = GP_REC_STREAMING;
        r.entry = (uint32_t)i;
        gp_record_append(st, &r, ch, (size_t)nc, b.data, b.len, NULL, 0);
        gp_buf_free(&b);
    }
    ds->n = 4;
    ds->entries = calloc(4, sizeof *ds->entries);
    for (int i = 0; i < 4; i++) {
        ds->entries[i].payload = strdup("{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}],\"stream\":true}");
        ds->entries[i].payload_len = strlen(ds->entries[i].payload);
        ds->entries[i].isl = 5;
        ds->entries[i].osl_asked = -1;
    }
}

static void free_ds(struct gp_dataset *ds)
{
    for (size_t i = 0; i < ds->n; i++)
        free(ds->entries[i].payload);
    free(ds->entries);
}

static void test_json_literal(void)
{
    struct gp_record_store st;
    struct gp_dataset ds;
    build_example(&st, &ds);
    struct gp_tokenizer *tok = NULL;
    gp_tokenizer_load("builtin", NULL, &tok, NULL);
    struct gp_slo slos[2] = {{"time_to_first_token", 45}, {"request_latency", 120}};
    struct gp_metrics_opts o = {.slos = slos, .n_slos = 2, .inter_chunk = 1};
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, &ds, tok, &o, &m, NULL), 0);

    char *fixture = NULL;
    CHECK_INT(gp_read_file("src/export/testdata/genai_perf_example.json", &fixture, NULL, NULL), 0);
    json_t *full = fixture ? json_loads(fixture, 0, NULL) : NULL;
    CHECK(full != NULL);
    struct gp_export_ctx ctx = {0};
    ctx.m = &m;
    ctx.store = &st;
    ctx.ds = &ds;
    ctx.streaming = 1;
    ctx.goodput = 1;
    ctx.mode = "concurrency";
    ctx.value = 2;
    ctx.input_config = full ? json_object_get(full, "input_config") : NULL;
    struct gp_buf b = {0};
    CHECK_INT(gp_export_genai_perf_json_buf(&ctx, &b), 0);
    if (fixture)
        CHECK_STR(b.data, fixture);
    if (fixture && strcmp(b.data, fixture)) {
        FILE *f = fopen("build/test-logs/genai_perf_json.got", "w");
        if (f) {
            fputs(b.data, f);
            fclose(f);
        }
    }

    /* telemetry_stats goes between the last metric and input_config */
    json_t *ts = json_pack("{s:{s:s,s:{s:f}}}", "gpu_power_limit", "unit", "W", "0", "avg", 700.0);
    ctx.telemetry_stats = ts;
    gp_buf_reset(&b);
    CHECK_INT(gp_export_genai_perf_json_buf(&ctx, &b), 0);
    const char *tpos = strstr(b.data, "\n  \"telemetry_stats\": {\n    \"gpu_power_limit\": {\n      \"unit\": \"W\",\n"
                                      "      \"0\": {\n        \"avg\": 700.0\n      }\n    }\n  },\n  \"input_config\": {");
    CHECK(tpos != NULL);
    CHECK(tpos && strstr(b.data, "\"input_sequence_length\"") < tpos);
    ctx.telemetry_stats = NULL;
    json_decref(ts);

    /* every artifact through gp_export_all */
    char dir[512];
    CHECK(gp_test_mkdtemp(dir, sizeof dir, "gp-export") != NULL);
    char run_dir[256];
    snprintf(run_dir, sizeof run_dir, "%s/run/x", dir);
    ctx.run_dir = run_dir;
    ctx.profile_export_file = "custom_export.json";
    ctx.tokenizer_source = "builtin";
    ctx.client_busy_fraction = 0.25;
    json_t *tsum = json_pack("{s:f,s:i}", "interval_s", 0.33, "samples", 3);
    ctx.telemetry_summary = tsum;
    struct gp_error err = {0};
    int rc = gp_export_all(&ctx, &err);
    CHECK_INT(rc, 0);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    const char *files[] = {"custom_export.json", "custom_export_genai_perf.json", "custom_export_genai_perf.csv",
                           "custom_export_records.jsonl", "custom_export_genperf.json"};
    for (int i = 0; i < 5; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", run_dir, files[i]);
        char *txt = NULL;
        size_t len = 0;
        CHECK_INT(gp_read_file(p, &txt, &len, NULL), 0);
        if (!txt)
            continue;
        if (i == 3) {
            int lines = 0, parsed = 0;
            for (char *q = txt, *e; (e = strchr(q, '\n')); q = e + 1) {
                json_t *j = json_loadb(q, (size_t)(e - q), 0, NULL);
                parsed += j != NULL;
                json_decref(j);
                lines++;
            }
            CHECK_INT(parsed, 4);
            CHECK_INT(lines, 4);
            CHECK(strstr(txt, "\"status\":\"ok\"") != NULL);
        } else if (i != 2) {
            json_error_t je;
            json_t *j = json_loads(txt, 0, &je);
            CHECK(j != NULL);
            if (!j)
                fprintf(stderr, "%s: %s\n", files[i], je.text);
            if (i == 0 && j) {
                json_t *reqs = json_object_get(json_array_get(json_object_get(j, "experiments"), 0), "requests");
                CHECK_INT(json_array_size(reqs), 4);
                json_t *r0 = json_array_get(reqs, 0);
                CHECK_INT(json_integer_value(json_object_get(r0, "timestamp")), 1733000000000000000ll);
                CHECK_INT(json_array_size(json_object_get(r0, "response_outputs")), 3);
                CHECK_STR(json_string_value(json_object_get(j, "endpoint")), "v1/chat/completions");
            }
            if (i == 4 && j) {
                CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "requests"), "ok")), 4);
                CHECK(json_is_object(json_object_get(j, "inter_chunk_latency")));
                CHECK_INT(json_integer_value(json_object_get(json_object_get(j, "telemetry"), "samples")), 3);
            }
            json_decref(j);
        }
        unlink(p);
        free(txt);
    }
    /* files that cannot be written (a directory in their place, as a full
     * disk would): all are tried, each is named, and no summary is left */
    char p[512], q[512];
    for (int i = 0; i < 4; i += 3) {
        snprintf(p, sizeof p, "%s/%s", run_dir, files[i]);
        CHECK_INT(mkdir(p, 0755), 0);
    }
    CHECK(gp_export_all(&ctx, &err) < 0);
    for (int i = 0; i < 4; i += 3) {
        snprintf(q, sizeof q, "cannot write '%s/%s'", run_dir, files[i]);
        CHECK(strstr(err.msg, q) != NULL);
    }
    CHECK(strstr(err.msg, "not written, so that the incomplete set in") != NULL);
    CHECK(strstr(err.msg, "custom_export_genai_perf.json, custom_export_genai_perf.csv") != NULL);
    for (int i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", run_dir, files[i]);
        CHECK_INT(gp_is_file(p), i == 4);
        if (i == 0 || i == 3)
            rmdir(p);
        else
            unlink(p);
    }
    snprintf(p, sizeof p, "%s/run/x", dir);
    rmdir(p);
    snprintf(p, sizeof p, "%s/run", dir);
    rmdir(p);
    rmdir(dir);
    gp_buf_free(&b);
    json_decref(tsum);
    json_decref(full);
    free(fixture);
    gp_metrics_result_free(&m);
    gp_tokenizer_free(tok);
    gp_record_store_free(&st);
    free_ds(&ds);
}

static void test_pyjson(void)
{
    json_t *v = json_loads("{\"a\":[],\"b\":{},\"c\":[1,2.5,\"x\"],\"d\":null,\"e\":true,\"f\":1e-5}", 0, NULL);
    struct gp_buf b = {0};
    gp_json_dump(&b, v, 2, 0, GP_JSON_PYTHON);
    CHECK_STR(b.data, "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    2.5,\n    \"x\"\n  ],\n  \"d\": null,\n"
                      "  \"e\": true,\n  \"f\": 1e-05\n}");
    gp_buf_reset(&b);
    gp_json_dump(&b, v, -1, 0, GP_JSON_PYTHON);
    CHECK_STR(b.data, "{\"a\": [], \"b\": {}, \"c\": [1, 2.5, \"x\"], \"d\": null, \"e\": true, \"f\": 1e-05}");
    gp_buf_free(&b);
    json_decref(v);
    char stem[64];
    gp_export_stem("custom_export.json", stem, sizeof stem);
    CHECK_STR(stem, "custom_export");
    gp_export_stem("dir/a.b.json", stem, sizeof stem);
    CHECK_STR(stem, "a.b");
    gp_export_stem("noext", stem, sizeof stem);
    CHECK_STR(stem, "noext");
    /* the run directory name: '/' only in the model part, "" = no stimulus */
    char name[64];
    CHECK_INT(gp_export_run_name("org/m/x", 1, "chat", "session_concurrency2", name, sizeof name), 0);
    CHECK_STR(name, "org_m_x_multi-openai-chat-session_concurrency2");
    CHECK_INT(gp_export_run_name("m", 0, "completions", "", name, sizeof name), 0);
    CHECK_STR(name, "m-openai-completions");
    CHECK_INT(gp_export_run_name("m", 0, "chat", "concurrency1", name, 10), -1);
}

/* request_rate mode, a warmup and a failed request through the two big writers */
static void test_profile_and_records(void)
{
    struct gp_record_store st;
    struct gp_dataset ds;
    build_example(&st, &ds);
    /* a warmup (first in time) and a failed request */
    struct gp_record w = {0};
    w.t_start_ns = st.mono0_ns;
    w.t_end_ns = st.mono0_ns + 5;
    w.http_status = 200;
    w.flags = GP_REC_WARMUP | GP_REC_STREAMING;
    gp_record_append(&st, &w, NULL, 0, NULL, 0, NULL, 0);
    struct gp_record f = {0};
    f.t_start_ns = st.mono0_ns + 10;
    f.t_end_ns = st.mono0_ns + 20;
    f.http_status = 503;
    f.flags = GP_REC_FAILED;
    f.entry = 1;
    gp_record_append(&st, &f, NULL, 0, NULL, 0, "OpenAI response returns HTTP code 503: busy", 43);
    struct gp_tokenizer *tok = NULL;
    gp_tokenizer_load("builtin", NULL, &tok, NULL);
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, &ds, tok, NULL, &m, NULL), 0);
    struct gp_export_ctx ctx = {0};
    ctx.m = &m;
    ctx.store = &st;
    ctx.ds = &ds;
    ctx.mode = "request_rate";
    ctx.value = 2.5;
    ctx.endpoint = "/v1/chat/completions";
    char dir[512];
    CHECK(gp_test_mkdtemp(dir, sizeof dir, "gp-export") != NULL);
    char pe[600], rj[600];
    snprintf(pe, sizeof pe, "%s/pe.json", dir);
    snprintf(rj, sizeof rj, "%s/r.jsonl", dir);
    CHECK_INT(gp_export_profile_json(&ctx, pe, NULL), 0);
    CHECK_INT(gp_export_records_jsonl(&ctx, rj, NULL), 0);
    char *txt = NULL;
    CHECK_INT(gp_read_file(pe, &txt, NULL, NULL), 0);
    if (txt) {
        const char *head = "{\"experiments\":[{\"experiment\":{\"mode\":\"request_rate\",\"value\":2.5},\"requests\":[{";
        CHECK(strncmp(txt, head, strlen(head)) == 0);
        CHECK(strstr(txt, "\"service_kind\":\"openai\",\"endpoint\":\"v1/chat/completions\"}") != NULL);
        json_t *j = json_loads(txt, 0, NULL);
        json_t *e0 = json_array_get(json_object_get(j, "experiments"), 0);
        CHECK_INT(json_array_size(json_object_get(e0, "requests")), 4); /* warmup and failure left out */
        CHECK_INT(json_array_size(json_object_get(e0, "window_boundaries")), 2);
        json_decref(j);
        free(txt);
    }
    txt = NULL;
    CHECK_INT(gp_read_file(rj, &txt, NULL, NULL), 0);
    if (txt) {
        int n = 0, warm = 0, failed = 0;
        for (char *q = txt, *e; (e = strchr(q, '\n')); q = e + 1, n++) {
            json_t *j = json_loadb(q, (size_t)(e - q), 0, NULL);
            CHECK(j != NULL);
            if (json_is_true(json_object_get(j, "warmup")))
                warm++;
            const char *status = json_string_value(json_object_get(j, "status"));
            if (status && !strcmp(status, "failed")) {
                failed++;
                CHECK_STR(json_string_value(json_object_get(j, "error")), "OpenAI response returns HTTP code 503: busy");
                CHECK_STR(json_string_value(json_object_get(j, "fail_kind")), "http");
                CHECK_INT(json_integer_value(json_object_get(j, "http_status")), 503);
            }
            json_decref(j);
        }
        CHECK_INT(n, 6);
        CHECK_INT(warm, 1);
        CHECK_INT(failed, 1);
        free(txt);
    }
    unlink(pe);
    unlink(rj);
    rmdir(dir);
    gp_metrics_result_free(&m);
    gp_tokenizer_free(tok);
    gp_record_store_free(&st);
    free_ds(&ds);
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* Session turns carry perf_analyzer's session_id / delay in request_inputs,
 * before the payload (libstdc++'s unordered_map order); other records keep
 * the payload alone, byte for byte. */
static void test_profile_session_meta(void)
{
    struct gp_record_store st;
    struct gp_dataset ds;
    build_example(&st, &ds);
    struct gp_tokenizer *tok = NULL;
    gp_tokenizer_load("builtin", NULL, &tok, NULL);
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, &ds, tok, NULL, &m, NULL), 0);
    /* entry 0: a non-last turn, 1: a session's last turn (no delay),
     * 2: not a session turn, 3: past the metadata (plain) */
    const struct gp_inputs_meta meta[3] = {{"s\"a", 40}, {"s\"a", -1}, {NULL, 7}};
    struct gp_export_ctx ctx = {0};
    ctx.m = &m;
    ctx.store = &st;
    ctx.ds = &ds;
    ctx.inputs_meta = meta;
    ctx.n_inputs_meta = 3;
    char dir[512];
    CHECK(gp_test_mkdtemp(dir, sizeof dir, "gp-export") != NULL);
    char pe[600];
    snprintf(pe, sizeof pe, "%s/pe.json", dir);
    CHECK_INT(gp_export_profile_json(&ctx, pe, NULL), 0);
    char *txt = NULL;
    CHECK_INT(gp_read_file(pe, &txt, NULL, NULL), 0);
    if (txt) {
        CHECK_INT(count_of(txt, "\"request_inputs\":{\"delay\":40,\"session_id\":\"s\\\"a\",\"payload\":\"{"), 1);
        CHECK_INT(count_of(txt, "\"request_inputs\":{\"session_id\":\"s\\\"a\",\"payload\":\"{"), 1);
        CHECK_INT(count_of(txt, "\"request_inputs\":{\"payload\":\"{"), 2);
        json_t *j = json_loads(txt, 0, NULL);
        CHECK(j != NULL);
        json_t *r0 = json_array_get(json_object_get(json_array_get(json_object_get(j, "experiments"), 0), "requests"), 0);
        json_t *ri = json_object_get(r0, "request_inputs");
        CHECK_INT(json_integer_value(json_object_get(ri, "delay")), 40);
        CHECK_STR(json_string_value(json_object_get(ri, "session_id")), "s\"a");
        json_decref(j);
        free(txt);
    }
    unlink(pe);
    rmdir(dir);
    gp_metrics_result_free(&m);
    gp_tokenizer_free(tok);
    gp_record_store_free(&st);
    free_ds(&ds);
}

/* GenAI-Perf's "sessions" block: sessions in the order of their first
 * request, each over its own requests and its own span; a record without a
 * session_id is in no session. */
static void test_genai_json_sessions(void)
{
    struct gp_record_store st;
    struct gp_dataset ds;
    build_example(&st, &ds);
    struct gp_tokenizer *tok = NULL;
    gp_tokenizer_load("builtin", NULL, &tok, NULL);
    struct gp_metrics_result m;
    CHECK_INT(gp_metrics_compute(&st, &ds, tok, NULL, &m, NULL), 0);
    const struct gp_inputs_meta meta[4] = {{"b", 5}, {"a", -1}, {"b", -1}, {NULL, -1}};
    struct gp_export_ctx ctx = {0};
    ctx.m = &m;
    ctx.store = &st;
    ctx.ds = &ds;
    ctx.inputs_meta = meta;
    ctx.n_inputs_meta = 4;
    struct gp_buf b = {0};
    CHECK_INT(gp_export_genai_perf_json_buf(&ctx, &b), 0);
    const char *pb = strstr(b.data, "\n    \"b\": {"), *pa = strstr(b.data, "\n    \"a\": {");
    CHECK(pb && pa && pb < pa);
    json_t *j = json_loads(b.data, 0, NULL);
    json_t *ss = json_object_get(j, "sessions");
    CHECK_INT(json_object_size(ss), 2);
    json_t *sb = json_object_get(ss, "b"), *sa = json_object_get(ss, "a");
#define AVG(o, k) json_real_value(json_object_get(json_object_get(o, k), "avg"))
    /* b: requests 0 (lat 58, osl 2) and 2 (lat 75, osl 3, started at 100): span 175 ms */
    CHECK_NEAR(AVG(sb, "request_latency"), 66.5, 1e-9);
    CHECK_NEAR(AVG(sb, "request_count"), 2.0, 0);
    CHECK_NEAR(AVG(sb, "request_throughput"), 2 / 0.175, 1e-9);
    CHECK_NEAR(AVG(sb, "output_token_throughput"), 5 / 0.175, 1e-9);
    CHECK_NEAR(json_real_value(json_object_get(json_object_get(sb, "time_to_first_token"), "max")), 49.0, 1e-9);
    CHECK(json_object_get(sb, "request_goodput") == NULL);
    /* a: request 1 alone (lat 70, osl 4) */
    CHECK_NEAR(AVG(sa, "request_latency"), 70.0, 1e-9);
    CHECK_NEAR(AVG(sa, "request_throughput"), 1 / 0.07, 1e-9);
    CHECK_NEAR(AVG(sa, "output_token_throughput"), 4 / 0.07, 1e-9);
#undef AVG
    json_decref(j);
    gp_buf_free(&b);
    /* no session ids: no block */
    ctx.inputs_meta = NULL;
    CHECK_INT(gp_export_genai_perf_json_buf(&ctx, &b), 0);
    CHECK(strstr(b.data, "sessions") == NULL);
    gp_buf_free(&b);
    gp_metrics_result_free(&m);
    gp_tokenizer_free(tok);
    gp_record_store_free(&st);
    free_ds(&ds);
}

/* The pipeline (profile_export.json and the records file written while the
 * metrics' workers parse, metrics/watch.h) writes the same bytes as the
 * files written after them. 30,000 requests: enough for the metrics to use every core (their
 * threshold is 20,000), so the writer follows more than one worker. */
static void test_pipeline_same_bytes(void)
{
    enum { NREQ = 30000 };
    struct gp_record_store st;
    gp_record_store_init(&st);
    st.mono0_ns = 1000000000ull;
    st.wall0_ns = 1733000000000000000ull;
    struct gp_dataset ds = {0};
    ds.n = 8;
    ds.entries = calloc(ds.n, sizeof *ds.entries);
    for (size_t i = 0; i < ds.n; i++) {
        char pl[128];
        snprintf(pl, sizeof pl, "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"p%zu\"}],\"stream\":true}", i);
        ds.entries[i].payload = strdup(pl);
        ds.entries[i].payload_len = strlen(pl);
        ds.entries[i].isl = 3;
        ds.entries[i].osl_asked = -1;
    }
    const char *ev = "data: {\"choices\":[{\"delta\":{\"content\":\"ab\"}}]}\n\n";
    for (size_t i = 0; i < NREQ; i++) {
        struct gp_buf b = {0};
        struct gp_chunk ch[4];
        uint64_t t0 = st.mono0_ns + i * 1000;
        for (int c = 0; c < 3; c++) {
            ch[c].t_ns = t0 + 1000000 + (uint64_t)c * (500000 + i % 777);
            ch[c].off = b.len;
            gp_buf_puts(&b, ev);
            if (c == 2)
                gp_buf_puts(&b, "data: [DONE]\n\n");
            ch[c].len = (uint32_t)(b.len - ch[c].off);
        }
        struct gp_record r = {.t_start_ns = t0, .t_end_ns = ch[2].t_ns + 10, .http_status = 200,
                              .flags = GP_REC_STREAMING, .entry = (uint32_t)(i % ds.n)};
        if (i % 1000 == 999) { /* a failure now and then: left out of the file */
            r.http_status = 500;
            r.flags = GP_REC_FAILED;
            gp_record_append(&st, &r, NULL, 0, NULL, 0, "HTTP 500", 8);
        } else {
            gp_record_append(&st, &r, ch, 3, b.data, b.len, NULL, 0);
        }
        gp_buf_free(&b);
    }
    struct gp_tokenizer *tok = NULL;
    gp_tokenizer_load("builtin", NULL, &tok, NULL);
    char dir[512];
    CHECK(gp_test_mkdtemp(dir, sizeof dir, "gp-export") != NULL);

    /* after the metrics */
    struct gp_metrics_result m1, m2;
    CHECK_INT(gp_metrics_compute(&st, &ds, tok, NULL, &m1, NULL), 0);
    struct gp_export_ctx ctx = {.store = &st, .ds = &ds, .m = &m1, .mode = "concurrency", .value = 4};
    char a[600], run_dir[600], b2[700];
    snprintf(a, sizeof a, "%s/after.json", dir);
    CHECK_INT(gp_export_profile_json(&ctx, a, NULL), 0);
    char ra[600];
    snprintf(ra, sizeof ra, "%s/after_records.jsonl", dir);
    CHECK_INT(gp_export_records_jsonl(&ctx, ra, NULL), 0);

    /* during the metrics */
    snprintf(run_dir, sizeof run_dir, "%s/during", dir);
    struct gp_metrics_watch w;
    gp_metrics_watch_init(&w);
    ctx.m = &m2;
    ctx.run_dir = run_dir;
    ctx.watch = &w;
    struct gp_export_pe *pe = NULL;
    CHECK_INT(gp_export_pe_start(&ctx, &pe, NULL), 0);
    CHECK(pe != NULL);
    struct gp_metrics_opts o = {.inter_chunk = 1, .watch = pe ? &w : NULL};
    CHECK_INT(gp_metrics_compute(&st, &ds, tok, &o, &m2, NULL), 0);
    CHECK_INT(gp_export_pe_join(pe, NULL), 0);
    snprintf(b2, sizeof b2, "%s/profile_export.json", run_dir);
    char *x = NULL, *y = NULL;
    size_t xl = 0, yl = 0;
    CHECK_INT(gp_read_file(a, &x, &xl, NULL), 0);
    CHECK_INT(gp_read_file(b2, &y, &yl, NULL), 0);
    CHECK(xl > 1000000);
    CHECK(x && y && xl == yl && memcmp(x, y, xl) == 0);
    free(x);
    free(y);
    /* and the records file, which waited for the end at the first error text */
    char rb[700];
    snprintf(rb, sizeof rb, "%s/profile_export_records.jsonl", run_dir);
    x = y = NULL;
    CHECK_INT(gp_read_file(ra, &x, &xl, NULL), 0);
    CHECK_INT(gp_read_file(rb, &y, &yl, NULL), 0);
    CHECK(xl > 1000000);
    CHECK(x && y && xl == yl && memcmp(x, y, xl) == 0);
    CHECK(x && strstr(x, "HTTP 500") != NULL);
    free(x);
    free(y);
    unlink(a);
    unlink(b2);
    unlink(ra);
    unlink(rb);
    rmdir(run_dir);
    rmdir(dir);
    gp_metrics_watch_destroy(&w);
    gp_metrics_result_free(&m1);
    gp_metrics_result_free(&m2);
    gp_tokenizer_free(tok);
    gp_record_store_free(&st);
    free_ds(&ds);
}

int main(void)
{
    GP_RUN(test_pipeline_same_bytes);
    GP_RUN(test_profile_and_records);
    GP_RUN(test_profile_session_meta);
    GP_RUN(test_genai_json_sessions);
    GP_RUN(test_csv_literal);
    GP_RUN(test_csv_telemetry);
    GP_RUN(test_console_literal);
    GP_RUN(test_json_literal);
    GP_RUN(test_pyjson);
    return gp_test_summary();
}
