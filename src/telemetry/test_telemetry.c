/* Unit tests: the sampler with the fake NVML library and a local /metrics
 * server (libmicrohttpd on 127.0.0.1, ephemeral port). */
#include "core/clock.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/test.h"
#include "telemetry/telemetry.h"

#include <jansson.h>
#include <arpa/inet.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fake_path[512];

static void fake_env(const char *devices, const char *init_fail, const char *fail_dev,
                     const char *fail_after, const char *no_energy)
{
    const char *names[] = {"GENPERF_FAKE_NVML_DEVICES", "GENPERF_FAKE_NVML_INIT_FAIL",
                           "GENPERF_FAKE_NVML_FAIL_DEV", "GENPERF_FAKE_NVML_FAIL_AFTER",
                           "GENPERF_FAKE_NVML_NO_ENERGY"};
    const char *vals[] = {devices, init_fail, fail_dev, fail_after, no_energy};
    for (int i = 0; i < 5; i++) {
        if (vals[i])
            setenv(names[i], vals[i], 1);
        else
            unsetenv(names[i]);
    }
}

/* Values of (kind, index, metric) in sample order. */
static int values(struct gp_telemetry *t, int kind, int idx, int metric, double *out, int max)
{
    const struct gp_telemetry_sample *s = gp_telemetry_samples(t);
    int k = 0;
    for (size_t i = 0; i < gp_telemetry_nsamples(t); i++)
        if (s[i].device_kind == kind && s[i].device_index == idx && s[i].metric == metric) {
            if (k < max)
                out[k] = s[i].value;
            k++;
        }
    return k;
}

static struct gp_telemetry *open_fake(void)
{
    struct gp_telemetry_opts o = {.interval_s = 0.05, .nvml_path = fake_path};
    struct gp_telemetry *t = NULL;
    struct gp_error err = {0};
    CHECK_INT(gp_telemetry_open(&o, &t, &err), 0);
    return t;
}

static void test_values_and_units(void)
{
    fake_env("2", NULL, NULL, NULL, NULL);
    struct gp_telemetry *t = open_fake();
    if (!t)
        return;
    CHECK_STR(gp_telemetry_gpu_status(t), "available");
    CHECK_INT(gp_telemetry_gpu_count(t), 2);
    for (int i = 0; i < 3; i++)
        CHECK(gp_telemetry_tick(t) >= 18);
    double v[8];
    CHECK_INT(values(t, GP_TD_GPU, 0, GP_TM_POWER_W, v, 8), 3);
    CHECK_NEAR(v[0], 100, 0);
    CHECK_NEAR(v[2], 120, 0);
    CHECK_INT(values(t, GP_TD_GPU, 1, GP_TM_POWER_W, v, 8), 3);
    CHECK_NEAR(v[0], 150, 0);
    values(t, GP_TD_GPU, 0, GP_TM_POWER_LIMIT_W, v, 8);
    CHECK_NEAR(v[0], 700, 0);
    values(t, GP_TD_GPU, 0, GP_TM_ENERGY_J, v, 8);   /* mJ -> J */
    CHECK_NEAR(v[1], 1000500.0, 1e-6);
    values(t, GP_TD_GPU, 0, GP_TM_GPU_UTIL_PCT, v, 8);
    CHECK_NEAR(v[2], 40, 0);
    values(t, GP_TD_GPU, 1, GP_TM_MEM_UTIL_PCT, v, 8);
    CHECK_NEAR(v[0], 31, 0);
    values(t, GP_TD_GPU, 0, GP_TM_GPU_MEM_USED_BYTES, v, 8);
    CHECK_NEAR(v[1], 2.0 * 1073741824.0, 0);
    values(t, GP_TD_GPU, 0, GP_TM_GPU_MEM_TOTAL_BYTES, v, 8);
    CHECK_NEAR(v[0], 80.0 * 1073741824.0, 0);
    values(t, GP_TD_GPU, 1, GP_TM_TEMP_C, v, 8);
    CHECK_NEAR(v[2], 43, 0);
    values(t, GP_TD_GPU, 1, GP_TM_SM_CLOCK_MHZ, v, 8);
    CHECK_NEAR(v[0], 1970, 0);
    /* host telemetry runs alongside */
    CHECK_INT(values(t, GP_TD_HOST, 0, GP_TM_LOAD1, v, 8), 3);

    json_t *ts = gp_telemetry_stats_json(t);
    CHECK(ts != NULL);
    if (ts) {
        /* GenAI-Perf order, units and scaling */
        /* every GenAI-Perf field NVML has: all but sm_utilization (a DCGM
         * profiling field) and xid_last_error (NVML events only) */
        const char *order[] = {"gpu_power_usage", "gpu_power_limit", "energy_consumption",
                               "total_gpu_memory", "gpu_memory_used", "gpu_memory_free", "gpu_utilization",
                               "memory_copy_utilization", "video_encoder_utilization",
                               "video_decoder_utilization", "gpu_clock_sm", "gpu_clock_memory",
                               "gpu_temperature", "gpu_memory_temperature", "total_ecc_sbe_volatile",
                               "total_ecc_dbe_volatile", "total_ecc_sbe_aggregate", "total_ecc_dbe_aggregate",
                               "power_throttle_duration", "thermal_throttle_duration", "retired_pages_sbe",
                               "retired_pages_dbe", "total_nvlink_crc_flit_errors",
                               "total_nvlink_crc_data_errors", "pcie_transmit_throughput",
                               "pcie_receive_throughput", "pcie_replay_counter"};
        size_t norder = sizeof order / sizeof order[0];
        CHECK_INT(json_object_size(ts), norder);
        void *it = json_object_iter(ts);
        for (size_t i = 0; i < norder; i++, it = json_object_iter_next(ts, it)) {
            CHECK(it != NULL);
            if (!it)
                break;
            CHECK_STR(json_object_iter_key(it), order[i]);
        }
        json_t *pw = json_object_get(ts, "gpu_power_usage");
        CHECK_STR(json_string_value(json_object_get(pw, "unit")), "W");
        json_t *g0 = json_object_get(pw, "0");
        CHECK_NEAR(json_real_value(json_object_get(g0, "avg")), 110, 1e-9);
        CHECK_NEAR(json_real_value(json_object_get(g0, "p50")), 110, 1e-9);
        CHECK_NEAR(json_real_value(json_object_get(g0, "p25")), 105, 1e-9);
        CHECK_NEAR(json_real_value(json_object_get(g0, "p99")), 119.8, 1e-9);
        CHECK_NEAR(json_real_value(json_object_get(g0, "min")), 100, 0);
        CHECK_NEAR(json_real_value(json_object_get(g0, "max")), 120, 0);
        CHECK_NEAR(json_real_value(json_object_get(g0, "std")), sqrt(200.0 / 3), 1e-9);
        const char *keys[] = {"avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std"};
        it = json_object_iter(g0);
        for (size_t i = 0; i < 13 && it; i++, it = json_object_iter_next(g0, it))
            CHECK_STR(json_object_iter_key(it), keys[i]);
        CHECK_INT(json_object_size(json_object_get(json_object_get(ts, "gpu_power_limit"), "0")), 1);
        json_t *mem = json_object_get(ts, "total_gpu_memory");
        CHECK_STR(json_string_value(json_object_get(mem, "unit")), "GB");
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(mem, "1"), "avg")), 85.89934592, 1e-9);
        json_t *en = json_object_get(ts, "energy_consumption");
        CHECK_STR(json_string_value(json_object_get(en, "unit")), "MJ");
        CHECK_NEAR(json_real_value(json_object_get(json_object_get(en, "0"), "min")), 1.0, 1e-12);
        /* the extras: unit and a scaled value each (fake_nvml.c's script) */
        struct { const char *name, *unit, *gpu, *stat; double want; } ex[] = {
            {"gpu_memory_free", "GB", "0", "max", 78.5 * 1.073741824}, /* 80 - 1 used - 0.5 reserved */
            {"video_encoder_utilization", "%", "1", "avg", 6},
            {"video_decoder_utilization", "%", "0", "avg", 7},
            {"gpu_clock_memory", "MHz", "1", "avg", 2618},
            {"gpu_memory_temperature", "C", "1", "max", 53},
            {"total_ecc_sbe_volatile", "errors", "1", "avg", 4},
            {"total_ecc_dbe_volatile", "errors", "0", "avg", 1},
            {"total_ecc_sbe_aggregate", "errors", "0", "avg", 30},
            {"total_ecc_dbe_aggregate", "errors", "0", "avg", 2},
            {"power_throttle_duration", "us", "0", "max", 1200},
            {"thermal_throttle_duration", "us", "0", "avg", 200},
            {"retired_pages_sbe", "pages", "0", "avg", 4},
            {"retired_pages_dbe", "pages", "0", "avg", 5},
            {"total_nvlink_crc_flit_errors", "errors", "0", "avg", 6},
            {"total_nvlink_crc_data_errors", "errors", "0", "avg", 7},
            {"pcie_transmit_throughput", "KB/s", "0", "min", 1000},
            {"pcie_receive_throughput", "KB/s", "1", "avg", 2001},
            {"pcie_replay_counter", "retries", "0", "max", 10},
        };
        for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
            json_t *mo = json_object_get(ts, ex[i].name);
            CHECK_STR(json_string_value(json_object_get(mo, "unit")), ex[i].unit);
            CHECK_NEAR(json_real_value(json_object_get(json_object_get(mo, ex[i].gpu), ex[i].stat)), ex[i].want,
                       1e-9);
            CHECK_INT(json_object_size(json_object_get(mo, ex[i].gpu)), 13);
        }
        json_decref(ts);
    }
    json_t *sum = gp_telemetry_summary_json(t);
    CHECK_STR(json_string_value(json_object_get(json_object_get(sum, "gpu"), "status")), "available");
    CHECK_STR(json_string_value(json_array_get(json_object_get(json_object_get(sum, "gpu"), "names"), 1)), "Fake GPU 1");
    json_t *m = json_object_get(json_object_get(sum, "metrics"), "gpu1.power_w");
    CHECK_NEAR(json_real_value(json_object_get(m, "avg")), 160, 1e-9);
    CHECK_NEAR(json_real_value(json_object_get(m, "max")), 170, 0);
    CHECK_INT(json_integer_value(json_object_get(m, "n")), 3);
    json_decref(sum);
    gp_telemetry_free(t);
}

static void test_no_library(void)
{
    fake_env(NULL, NULL, NULL, NULL, NULL);
    struct gp_telemetry_opts o = {.interval_s = 0.05, .nvml_path = "/nonexistent/libnvidia-ml.so.1"};
    struct gp_telemetry *t = NULL;
    CHECK_INT(gp_telemetry_open(&o, &t, NULL), 0);
    if (!t)
        return;
    CHECK(strstr(gp_telemetry_gpu_status(t), "not loadable") != NULL);
    CHECK(strstr(gp_telemetry_gpu_status(t), "/nonexistent/libnvidia-ml.so.1") != NULL);
    CHECK_INT(gp_telemetry_gpu_count(t), 0);
    gp_telemetry_tick(t);
    gp_telemetry_tick(t);
    double v[4];
    CHECK_INT(values(t, GP_TD_HOST, 0, GP_TM_HOST_MEM_AVAILABLE_BYTES, v, 4), 2);
    CHECK_INT(values(t, GP_TD_GPU, 0, GP_TM_POWER_W, v, 4), 0);
    CHECK(gp_telemetry_stats_json(t) == NULL);
    CHECK_STR(gp_telemetry_server_status(t), "none");
    gp_telemetry_free(t);
}

static void test_init_fails(void)
{
    fake_env("1", "1", NULL, NULL, NULL);
    struct gp_telemetry *t = open_fake();
    if (!t)
        return;
    CHECK(strstr(gp_telemetry_gpu_status(t), "nvmlInit_v2 failed") != NULL);
    CHECK(strstr(gp_telemetry_gpu_status(t), "Driver Not Loaded") != NULL);
    CHECK(gp_telemetry_tick(t) > 0);  /* host still sampled */
    CHECK(gp_telemetry_stats_json(t) == NULL);
    gp_telemetry_free(t);
}

static void test_no_devices(void)
{
    fake_env("0", NULL, NULL, NULL, NULL);
    struct gp_telemetry *t = open_fake();
    if (!t)
        return;
    CHECK(strstr(gp_telemetry_gpu_status(t), "no NVIDIA GPU") != NULL);
    gp_telemetry_free(t);
}

static void test_device_error_mid_run(void)
{
    fake_env("2", NULL, "1", "2", "1");
    struct gp_telemetry *t = open_fake();
    if (!t)
        return;
    for (int i = 0; i < 5; i++)
        gp_telemetry_tick(t);
    double v[8];
    CHECK_INT(values(t, GP_TD_GPU, 0, GP_TM_POWER_W, v, 8), 5);
    CHECK_INT(values(t, GP_TD_GPU, 1, GP_TM_POWER_W, v, 8), 2);
    CHECK_INT(values(t, GP_TD_GPU, 1, GP_TM_TEMP_C, v, 8), 2);
    /* NOT_SUPPORTED energy is skipped silently, not an error */
    CHECK_INT(values(t, GP_TD_GPU, 0, GP_TM_ENERGY_J, v, 8), 0);
    CHECK_INT(values(t, GP_TD_GPU, 0, GP_TM_TEMP_C, v, 8), 5);
    json_t *sum = gp_telemetry_summary_json(t);
    json_t *ev = json_object_get(sum, "events");
    CHECK_INT(json_array_size(ev), 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(ev, 0), "device")), "gpu1");
    CHECK(strstr(json_string_value(json_object_get(json_array_get(ev, 0), "reason")), "GPU is lost") != NULL);
    json_decref(sum);
    json_t *ts = gp_telemetry_stats_json(t);
    CHECK(ts && !json_object_get(ts, "energy_consumption"));
    CHECK(ts && json_object_get(json_object_get(ts, "gpu_power_usage"), "1"));
    json_decref(ts);

    /* the time series file: status line first, then one line per sample */
    char path[512];
    snprintf(path, sizeof path, "%s/gp_tel_%d.jsonl", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    struct gp_error err = {0};
    CHECK_INT(gp_telemetry_write_jsonl(t, path, &err), 0);
    char *txt = NULL;
    CHECK_INT(gp_read_file(path, &txt, NULL, NULL), 0);
    size_t lines = 0, with_value = 0;
    for (char *line = txt, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        json_error_t je;
        json_t *j = json_loadb(line, nl ? (size_t)(nl - line) : strlen(line), 0, &je);
        CHECK(j != NULL);
        if (!j)
            break;
        CHECK(json_is_integer(json_object_get(j, "t_ns")));
        CHECK(json_is_integer(json_object_get(j, "wall_ns")));
        CHECK(json_is_string(json_object_get(j, "device")));
        CHECK(json_is_string(json_object_get(j, "metric")));
        if (lines == 0) {
            CHECK_STR(json_string_value(json_object_get(j, "metric")), "unavailable");
            CHECK(json_is_true(json_object_get(j, "mid_run")));
            CHECK(json_is_string(json_object_get(j, "reason")));
        }
        if (json_is_number(json_object_get(j, "value")))
            with_value++;
        json_decref(j);
        lines++;
    }
    CHECK_INT(with_value, gp_telemetry_nsamples(t));
    CHECK_INT(lines, gp_telemetry_nsamples(t) + 1);
    free(txt);
    unlink(path);
    gp_telemetry_free(t);
}

static void test_device_glitch(void)
{
    /* an unknown error is one lost sample, not a lost device */
    fake_env("1", NULL, NULL, NULL, NULL);
    setenv("GENPERF_FAKE_NVML_GLITCH_AT", "1", 1);
    struct gp_telemetry *t = open_fake();
    unsetenv("GENPERF_FAKE_NVML_GLITCH_AT");
    if (!t)
        return;
    for (int i = 0; i < 4; i++)
        gp_telemetry_tick(t);
    double v[8];
    CHECK_INT(values(t, GP_TD_GPU, 0, GP_TM_POWER_W, v, 8), 3);
    CHECK_NEAR(v[0], 100, 0);
    CHECK_NEAR(v[1], 110, 0);
    CHECK_NEAR(v[2], 120, 0);
    json_t *sum = gp_telemetry_summary_json(t);
    json_t *ev = json_object_get(sum, "events");
    CHECK_INT(json_array_size(ev), 1);
    CHECK(strstr(json_string_value(json_object_get(json_array_get(ev, 0), "reason")), "retried next") != NULL);
    json_decref(sum);
    gp_telemetry_free(t);
}

static void test_thread(void)
{
    fake_env("1", NULL, NULL, NULL, NULL);
    struct gp_telemetry_opts o = {.interval_s = 0.02, .nvml_path = fake_path};
    struct gp_telemetry *t = NULL;
    struct gp_error err = {0};
    CHECK_INT(gp_telemetry_start(&o, &t, &err), 0);
    if (!t)
        return;
    usleep(210000);
    CHECK_INT(gp_telemetry_stop(t), 0);
    CHECK_INT(gp_telemetry_stop(t), 0);  /* idempotent */
    double v[64];
    int n = values(t, GP_TD_GPU, 0, GP_TM_POWER_W, v, 64);
    /* ~11 ticks + the closing one; generous bounds for a loaded machine */
    CHECK(n >= 5 && n <= 14);
    const struct gp_telemetry_sample *s = gp_telemetry_samples(t);
    for (size_t i = 1; i < gp_telemetry_nsamples(t); i++)
        CHECK(s[i].t_ns >= s[i - 1].t_ns);
    uint64_t w = gp_telemetry_wall_ns(t, s[0].t_ns), now = gp_wall_ns();
    CHECK(w <= now && now - w < 5000000000ull);
    gp_telemetry_free(t);

    CHECK(gp_telemetry_open(&(struct gp_telemetry_opts){.interval_s = 0.001}, &t, &err) < 0);
    CHECK(strstr(err.msg, "interval") != NULL);
}

/* ---- a /metrics server ---------------------------------------------------- */

struct srv { int hits; };

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *data,
                               size_t *size, void **ptr)
{
    struct srv *s = cls;
    char body[2048];
    unsigned status = 200;
    int k = s->hits++;
    if (!strcmp(url, "/metrics")) {
        snprintf(body, sizeof body,
                 "# TYPE vllm:num_requests_running gauge\n"
                 "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} %d\n"
                 "vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 2\n"
                 "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.125\n"
                 "vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"} %d\n"
                 "vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} %d\n",
                 k, 10 * k, 5 * k);
    } else if (!strcmp(url, "/dcgm")) {
        snprintf(body, sizeof body,
                 "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-x\"} %d.5\n"
                 "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-x\"} 2048\n"
                 "DCGM_FI_DEV_FB_TOTAL{gpu=\"0\",UUID=\"GPU-x\"} 81920\n",
                 200 + k);
    } else if (!strcmp(url, "/sglang")) {
        /* SGLang: a lifetime-looking gauge beside the counters; the cached
         * counter (two cache_source label sets) appears from the third
         * request on, as prometheus_client shows it after the first hit */
        int n = snprintf(body, sizeof body,
                         "sglang:num_running_reqs{model_name=\"m\"} 1\n"
                         "sglang:cache_hit_rate{model_name=\"m\"} 0.9\n"
                         "sglang:prompt_tokens_total{model_name=\"m\"} %d\n",
                         100 * k);
        if (k >= 2)
            snprintf(body + n, sizeof body - (size_t)n,
                     "sglang:cached_tokens_total{model_name=\"m\",cache_source=\"device\"} %d\n"
                     "sglang:cached_tokens_total{model_name=\"m\",cache_source=\"host\"} %d\n",
                     20 * k, 5 * k);
    } else if (!strcmp(url, "/other")) {
        snprintf(body, sizeof body, "process_cpu_seconds_total 1\n");
    } else if (!strcmp(url, "/json")) {
        /* TensorRT-LLM's /metrics: iteration stats as JSON */
        snprintf(body, sizeof body, "[{\"iter\": 1, \"numActiveRequests\": 0}]\n");
    } else {
        status = 404;
        snprintf(body, sizeof body, "not found\n");
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static void test_server_scrape(void)
{
    struct srv s = {0};
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                                            handler, &s, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_END);
    CHECK(d != NULL);
    if (!d)
        return;
    int port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    char url[128];
    fake_env(NULL, NULL, NULL, NULL, NULL);

    snprintf(url, sizeof url, "http://127.0.0.1:%d/metrics", port);
    struct gp_telemetry_opts o = {.interval_s = 0.05, .server_metrics_url = url,
                                  .nvml_path = "/nonexistent/libnvml.so"};
    struct gp_telemetry *t = NULL;
    CHECK_INT(gp_telemetry_open(&o, &t, NULL), 0);
    if (t) {
        CHECK_STR(gp_telemetry_server_status(t), "available");
        for (int i = 0; i < 3; i++)
            gp_telemetry_tick(t);
        double v[8];
        /* the probe was request 0; ticks see 1, 2, 3 */
        CHECK_INT(values(t, GP_TD_SERVER, 0, GP_TM_NUM_REQUESTS_RUNNING, v, 8), 3);
        CHECK_NEAR(v[0], 1, 0);
        CHECK_NEAR(v[2], 3, 0);
        CHECK_INT(values(t, GP_TD_SERVER, 0, GP_TM_NUM_REQUESTS_WAITING, v, 8), 3);
        CHECK_INT(values(t, GP_TD_SERVER, 0, GP_TM_KV_CACHE_USAGE_PCT, v, 8), 3);
        CHECK_NEAR(v[0], 12.5, 1e-12);
        /* counter deltas: first tick only sets the baseline */
        CHECK_INT(values(t, GP_TD_SERVER, 0, GP_TM_PREFIX_CACHE_HIT_RATE, v, 8), 2);
        CHECK_NEAR(v[0], 0.5, 1e-12);
        gp_telemetry_free(t);
    }

    /* gp_telemetry_start takes the first sample itself, before it returns:
     * the counters' baseline precedes the run's first request (on the thread
     * alone, a loaded host started it after requests were served). The
     * thread's own first tick is a whole interval (60 s) away. */
    struct gp_telemetry_opts slow = o;
    slow.interval_s = 60;
    int hits0 = s.hits;
    t = NULL;
    CHECK_INT(gp_telemetry_start(&slow, &t, NULL), 0);
    if (t) {
        CHECK_INT(s.hits - hits0, 2); /* the probe and the first sample */
        double v[8];
        CHECK_INT(values(t, GP_TD_SERVER, 0, GP_TM_NUM_REQUESTS_RUNNING, v, 8), 1);
        gp_telemetry_free(t); /* joins at once: the wait is cut by stop */
    }

    snprintf(url, sizeof url, "http://127.0.0.1:%d/dcgm", port);
    t = NULL;
    CHECK_INT(gp_telemetry_open(&o, &t, NULL), 0);
    if (t) {
        /* no NVML, but a DCGM exporter: GPU telemetry comes from it */
        CHECK_STR(gp_telemetry_gpu_status(t), "available");
        CHECK_INT(gp_telemetry_gpu_count(t), 1);
        gp_telemetry_tick(t);
        gp_telemetry_tick(t);
        double v[8];
        CHECK_INT(values(t, GP_TD_GPU, 0, GP_TM_POWER_W, v, 8), 2);
        json_t *ts = gp_telemetry_stats_json(t);
        CHECK(ts != NULL);
        json_t *mu = json_object_get(json_object_get(ts, "gpu_memory_used"), "0");
        CHECK_NEAR(json_real_value(json_object_get(mu, "avg")), 2.147483648, 1e-12);
        json_decref(ts);
        gp_telemetry_free(t);
    }

    snprintf(url, sizeof url, "http://127.0.0.1:%d/other", port);
    t = NULL;
    CHECK_INT(gp_telemetry_open(&o, &t, NULL), 0);
    if (t) {
        CHECK(strstr(gp_telemetry_server_status(t), "has no vLLM") != NULL);
        gp_telemetry_free(t);
    }
    snprintf(url, sizeof url, "http://127.0.0.1:%d/json", port);
    t = NULL;
    CHECK_INT(gp_telemetry_open(&o, &t, NULL), 0);
    if (t) {
        CHECK(strstr(gp_telemetry_server_status(t), "answered JSON, not Prometheus text") != NULL);
        gp_telemetry_free(t);
    }
    snprintf(url, sizeof url, "http://127.0.0.1:%d/missing", port);
    t = NULL;
    CHECK_INT(gp_telemetry_open(&o, &t, NULL), 0);
    if (t) {
        CHECK(strstr(gp_telemetry_server_status(t), "HTTP 404") != NULL);
        gp_telemetry_free(t);
    }
    /* a default URL that does not work is dropped quietly */
    struct gp_telemetry_opts od = {.interval_s = 0.05, .default_metrics_url = url,
                                   .nvml_path = "/nonexistent/libnvml.so"};
    t = NULL;
    CHECK_INT(gp_telemetry_open(&od, &t, NULL), 0);
    if (t) {
        CHECK(strncmp(gp_telemetry_server_status(t), "none (default GET", 17) == 0);
        json_t *sum = gp_telemetry_summary_json(t);
        json_t *ev = json_object_get(sum, "events");
        CHECK_INT(json_array_size(ev), 1);  /* only the gpu line */
        CHECK_STR(json_string_value(json_object_get(json_array_get(ev, 0), "device")), "gpu");
        json_decref(sum);
        gp_telemetry_free(t);
    }
    /* and a default that answers is used */
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/chat/completions", port);
    char mu[160];
    CHECK_INT(gp_telemetry_metrics_url_for(url, mu, sizeof mu), 0);
    od.default_metrics_url = mu;
    t = NULL;
    CHECK_INT(gp_telemetry_open(&od, &t, NULL), 0);
    if (t) {
        CHECK_STR(gp_telemetry_server_status(t), "available");
        gp_telemetry_free(t);
    }
    /* several URLs: server metrics from the vLLM one, GPUs from the DCGM one */
    char u_m[128], u_d[128], u_x[128];
    snprintf(u_m, sizeof u_m, "http://127.0.0.1:%d/metrics", port);
    snprintf(u_d, sizeof u_d, "http://127.0.0.1:%d/dcgm", port);
    snprintf(u_x, sizeof u_x, "http://127.0.0.1:%d/missing", port);
    const char *defs[] = {u_d, u_x, u_m};
    struct gp_telemetry_opts om = {.interval_s = 0.05, .server_metrics_url = u_m,
                                   .default_metrics_urls = defs, .n_default_metrics_urls = 3,
                                   .nvml_path = "/nonexistent/libnvml.so"};
    t = NULL;
    CHECK_INT(gp_telemetry_open(&om, &t, NULL), 0);
    if (t) {
        CHECK_STR(gp_telemetry_server_status(t), "available");
        CHECK_STR(gp_telemetry_gpu_status(t), "available");
        gp_telemetry_tick(t);
        double v[4];
        CHECK_INT(values(t, GP_TD_GPU, 0, GP_TM_POWER_W, v, 4), 1);
        CHECK_INT(values(t, GP_TD_SERVER, 0, GP_TM_NUM_REQUESTS_WAITING, v, 4), 1);
        json_t *sum = gp_telemetry_summary_json(t);
        json_t *srcs = json_object_get(json_object_get(sum, "server"), "sources");
        CHECK_INT(json_array_size(srcs), 3);  /* the duplicate is dropped */
        CHECK_STR(json_string_value(json_object_get(json_array_get(srcs, 0), "used_for")), "server");
        CHECK_STR(json_string_value(json_object_get(json_array_get(srcs, 1), "used_for")), "gpu");
        CHECK_STR(json_string_value(json_object_get(json_array_get(srcs, 2), "used_for")), "none");
        CHECK_INT(json_array_size(json_object_get(sum, "events")), 0);
        json_decref(sum);
        gp_telemetry_free(t);
    }
    /* every URL given is scraped: two servers (server, server1) and two DCGM
     * exporters (gpu0 from the first, gpu1 from the second) */
    char u_m2[128], u_d2[128];
    snprintf(u_m2, sizeof u_m2, "http://127.0.0.1:%d/metrics?replica=2", port);
    snprintf(u_d2, sizeof u_d2, "http://127.0.0.1:%d/dcgm?node=2", port);
    const char *all[] = {u_d, u_m2, u_d2};
    struct gp_telemetry_opts oa = {.interval_s = 0.05, .server_metrics_url = u_m, .metrics_urls = all,
                                   .n_metrics_urls = 3, .nvml_path = "/nonexistent/libnvml.so"};
    t = NULL;
    CHECK_INT(gp_telemetry_open(&oa, &t, NULL), 0);
    if (t) {
        CHECK_INT(gp_telemetry_gpu_count(t), 2);
        gp_telemetry_tick(t);
        gp_telemetry_tick(t);
        double v[4];
        CHECK_INT(values(t, GP_TD_SERVER, 0, GP_TM_NUM_REQUESTS_WAITING, v, 4), 2);
        CHECK_INT(values(t, GP_TD_SERVER, 1, GP_TM_NUM_REQUESTS_WAITING, v, 4), 2);
        CHECK_INT(values(t, GP_TD_GPU, 0, GP_TM_POWER_W, v, 4), 2);
        CHECK_INT(values(t, GP_TD_GPU, 1, GP_TM_POWER_W, v, 4), 2);
        char dev[16];
        CHECK_STR(gp_telemetry_device_name(GP_TD_SERVER, 1, dev, sizeof dev), "server1");
        json_t *sum = gp_telemetry_summary_json(t);
        json_t *srcs = json_object_get(json_object_get(sum, "server"), "sources");
        CHECK_INT(json_array_size(srcs), 4);
        CHECK_STR(json_string_value(json_object_get(json_array_get(srcs, 2), "used_for")), "server");
        CHECK_STR(json_string_value(json_object_get(json_array_get(srcs, 3), "used_for")), "gpu");
        CHECK(json_object_get(json_object_get(sum, "metrics"), "server1.num_requests_waiting") != NULL);
        json_decref(sum);
        gp_telemetry_free(t);
    }
    /* more URLs than genperf scrapes: an error naming the flag, not a silent drop */
    char many[9][128];
    const char *manyp[9];
    for (int i = 0; i < 9; i++) {
        snprintf(many[i], sizeof many[i], "http://127.0.0.1:%d/metrics?n=%d", port, i);
        manyp[i] = many[i];
    }
    struct gp_telemetry_opts ob = {.interval_s = 0.05, .metrics_urls = manyp, .n_metrics_urls = 9,
                                   .nvml_path = "/nonexistent/libnvml.so"};
    struct gp_error e9 = {0};
    t = NULL;
    CHECK(gp_telemetry_open(&ob, &t, &e9) < 0);
    CHECK(t == NULL);
    CHECK(strstr(e9.msg, "--server-metrics-url") != NULL && strstr(e9.msg, "at most 8") != NULL);
    ob.n_metrics_urls = 8; /* exactly the limit works */
    CHECK_INT(gp_telemetry_open(&ob, &t, NULL), 0);
    gp_telemetry_free(t);
    MHD_stop_daemon(d);

    /* nothing listens any more: unreachable, reported, and start still works */
    snprintf(url, sizeof url, "http://127.0.0.1:%d/metrics", port);
    t = NULL;
    CHECK_INT(gp_telemetry_start(&o, &t, NULL), 0);
    if (t) {
        CHECK(strstr(gp_telemetry_server_status(t), "failed") != NULL);
        gp_telemetry_free(t);
    }
}

/* The summary's prefix_cache block of source 0 (borrowed from sum). */
static json_t *pc_block(json_t *sum, const char *key)
{
    return json_object_get(json_array_get(json_object_get(json_object_get(sum, "server"), "sources"), 0), key);
}

/* The counters' window: from gp_telemetry_mark_window's tick (after a
 * warmup) to the closing one, on the caller's ticks and on the thread; and
 * SGLang's counters preferred to its gauge, which is kept as a gauge. */
static void test_window_mark(void)
{
    struct srv s = {0};
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                                            handler, &s, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_END);
    CHECK(d != NULL);
    if (!d)
        return;
    int port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    char url[128];
    fake_env(NULL, NULL, NULL, NULL, NULL);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/metrics", port);
    struct gp_telemetry_opts o = {.interval_s = 0.05, .server_metrics_url = url,
                                  .nvml_path = "/nonexistent/libnvml.so"};
    struct gp_telemetry *t = NULL;
    /* probe k=0; ticks k=1, 2 (the warmup); mark k=3; tick k=4: queries 10 x k, hits 5 x k */
    CHECK_INT(gp_telemetry_open(&o, &t, NULL), 0);
    if (t) {
        gp_telemetry_tick(t);
        gp_telemetry_tick(t);
        CHECK_INT(gp_telemetry_mark_window(t), 0);
        gp_telemetry_tick(t);
        json_t *sum = gp_telemetry_summary_json(t), *pc = pc_block(sum, "prefix_cache");
        CHECK_NEAR(json_number_value(json_object_get(pc, "queries")), 10, 0);
        CHECK_NEAR(json_number_value(json_object_get(pc, "hits")), 5, 0);
        CHECK_STR(json_string_value(json_object_get(pc, "window")), "measured");
        CHECK_STR(json_string_value(json_object_get(pc, "counters")),
                  "vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total");
        json_decref(sum);
        gp_telemetry_free(t);
    }
    /* on the thread (its own ticks a minute apart): start's sample, the
     * mark's (waited for), the closing one */
    o.interval_s = 60;
    t = NULL;
    int hits0 = s.hits;
    CHECK_INT(gp_telemetry_start(&o, &t, NULL), 0);
    if (t) {
        CHECK_INT(gp_telemetry_mark_window(t), 0);
        CHECK_INT(s.hits - hits0, 3); /* probe, start's sample, the mark's */
        gp_telemetry_stop(t);
        json_t *sum = gp_telemetry_summary_json(t), *pc = pc_block(sum, "prefix_cache");
        CHECK_NEAR(json_number_value(json_object_get(pc, "queries")), 10, 0);
        CHECK_STR(json_string_value(json_object_get(pc, "window")), "measured");
        json_decref(sum);
        gp_telemetry_free(t);
    }
    /* SGLang: probe k=0, ticks k=1..3; cached_tokens_total from k=2 on */
    snprintf(url, sizeof url, "http://127.0.0.1:%d/sglang", port);
    o.interval_s = 0.05;
    t = NULL;
    s.hits = 0; /* no request in flight: the handler's next k is 0 */
    CHECK_INT(gp_telemetry_open(&o, &t, NULL), 0);
    if (t) {
        for (int i = 0; i < 3; i++)
            gp_telemetry_tick(t);
        double v[8];
        /* k=1: no cached counter yet, the gauge; then the counters' interval ratios */
        CHECK_INT(values(t, GP_TD_SERVER, 0, GP_TM_PREFIX_CACHE_HIT_RATE, v, 8), 3);
        CHECK_NEAR(v[0], 0.9, 1e-12);
        CHECK_NEAR(v[1], 0.5, 1e-12);
        CHECK_NEAR(v[2], 0.25, 1e-12);
        json_t *sum = gp_telemetry_summary_json(t), *pc = pc_block(sum, "prefix_cache");
        CHECK_NEAR(json_number_value(json_object_get(pc, "queries")), 200, 0);
        CHECK_NEAR(json_number_value(json_object_get(pc, "hits")), 75, 0);
        CHECK_STR(json_string_value(json_object_get(pc, "window")), "run");
        CHECK_STR(json_string_value(json_object_get(pc, "counters")),
                  "sglang:cached_tokens_total / sglang:prompt_tokens_total");
        json_t *g = pc_block(sum, "prefix_cache_gauge");
        CHECK_STR(json_string_value(json_object_get(g, "gauge")), "sglang:cache_hit_rate");
        CHECK_NEAR(json_number_value(json_object_get(g, "mean")), 0.9, 1e-12);
        CHECK_INT(json_integer_value(json_object_get(g, "scrapes")), 3);
        json_decref(sum);
        gp_telemetry_free(t);
    }
    MHD_stop_daemon(d);
}

static void test_metrics_url_for(void)
{
    char b[128];
    CHECK_INT(gp_telemetry_metrics_url_for("localhost:8000", b, sizeof b), 0);
    CHECK_STR(b, "http://localhost:8000/metrics");
    CHECK_INT(gp_telemetry_metrics_url_for("http://10.0.0.1:8000/v1/chat/completions", b, sizeof b), 0);
    CHECK_STR(b, "http://10.0.0.1:8000/metrics");
    CHECK_INT(gp_telemetry_metrics_url_for("https://h.example/v1", b, sizeof b), 0);
    CHECK_STR(b, "https://h.example/metrics");
    CHECK_INT(gp_telemetry_metrics_url_for("http:///x", b, sizeof b), -1);
    CHECK_INT(gp_telemetry_metrics_url_for("localhost:8000", b, 10), -1);
}

/* An old driver (or a board without ECC, NVLink, encoders): the extra
 * queries answer NOT_SUPPORTED and only the extras are absent. */
static void test_basic_driver(void)
{
    fake_env("1", NULL, NULL, NULL, NULL);
    setenv("GENPERF_FAKE_NVML_BASIC", "1", 1);
    struct gp_telemetry *t = open_fake();
    unsetenv("GENPERF_FAKE_NVML_BASIC");
    if (!t)
        return;
    gp_telemetry_tick(t);
    gp_telemetry_tick(t);
    double v[4];
    for (int m = 0; m < GP_TM_GPU__COUNT; m++) {
        int core = m <= GP_TM_SM_CLOCK_MHZ || m == GP_TM_GPU_MEM_FREE_BYTES;
        CHECK_INT(values(t, GP_TD_GPU, 0, m, v, 4), core ? 2 : 0);
    }
    json_t *ts = gp_telemetry_stats_json(t);
    CHECK_INT(json_object_size(ts), 10);
    CHECK(json_object_get(ts, "gpu_memory_free") != NULL);
    json_decref(ts);
    gp_telemetry_free(t);
}

int main(void)
{
    const char *b = getenv("BUILD");
    snprintf(fake_path, sizeof fake_path, "%s/tests-lib/libfake_nvml.so", b && *b ? b : "build");
    if (access(fake_path, R_OK) != 0) {
        fprintf(stderr, "%s missing: build it with make (TEST_DEPS)\n", fake_path);
        return 1;
    }
    GP_RUN(test_values_and_units);
    GP_RUN(test_basic_driver);
    GP_RUN(test_no_library);
    GP_RUN(test_init_fails);
    GP_RUN(test_no_devices);
    GP_RUN(test_device_error_mid_run);
    GP_RUN(test_device_glitch);
    GP_RUN(test_thread);
    GP_RUN(test_server_scrape);
    GP_RUN(test_window_mark);
    GP_RUN(test_metrics_url_for);
    return gp_test_summary();
}
