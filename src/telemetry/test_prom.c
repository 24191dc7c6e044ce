/* Unit tests: Prometheus text parsing and server/DCGM name mapping. */
#include "core/test.h"
#include "telemetry/prom.h"
#include "telemetry/telemetry.h"

#include <math.h>

struct seen { int n; char name[8][64]; char labels[8][128]; double v[8]; };

static int rec(void *ctx, const char *name, size_t nlen, const char *labels, size_t llen, double v)
{
    struct seen *s = ctx;
    if (s->n < 8) {
        snprintf(s->name[s->n], 64, "%.*s", (int)nlen, name);
        snprintf(s->labels[s->n], 128, "%.*s", (int)llen, labels);
        s->v[s->n] = v;
    }
    s->n++;
    return 0;
}

static void test_parse_lines(void)
{
    const char *txt =
        "# HELP vllm:num_requests_running Number of requests\n"
        "# TYPE vllm:num_requests_running gauge\n"
        "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 3.0\n"
        "\n"
        "   plain_metric 42 1700000000000\n"
        "weird{a=\"x}y\\\"z\",b=\"2\"} +Inf\r\n"
        "nan_metric NaN\n"
        "bad line without value\n"
        "9starts_with_digit 1\n"
        "unterminated{a=\"1\" 5\n"
        "neg -1.5e-3";
    struct seen s = {0};
    CHECK_INT(gp_prom_parse(txt, strlen(txt), rec, &s), 5);
    CHECK_STR(s.name[0], "vllm:num_requests_running");
    CHECK_STR(s.labels[0], "engine=\"0\",model_name=\"m\"");
    CHECK_NEAR(s.v[0], 3.0, 0);
    CHECK_STR(s.name[1], "plain_metric");
    CHECK_NEAR(s.v[1], 42, 0);
    CHECK_STR(s.name[2], "weird");
    CHECK(isinf(s.v[2]) && s.v[2] > 0);
    CHECK(isnan(s.v[3]));
    CHECK_STR(s.name[4], "neg");
    CHECK_NEAR(s.v[4], -1.5e-3, 1e-18);

    char out[32];
    const char *l = s.labels[2];
    CHECK_INT(gp_prom_label(l, strlen(l), "a", out, sizeof out), 1);
    CHECK_STR(out, "x}y\"z");
    CHECK_INT(gp_prom_label(l, strlen(l), "b", out, sizeof out), 1);
    CHECK_STR(out, "2");
    CHECK_INT(gp_prom_label(l, strlen(l), "c", out, sizeof out), 0);
    /* a length that cuts the buffer mid-line must not read past it */
    CHECK_INT(gp_prom_parse(txt, 60, rec, &s), 0);
}

static void test_scan_vllm(void)
{
    const char *txt =
        "vllm:num_requests_running{engine=\"0\"} 2\n"
        "vllm:num_requests_running{engine=\"1\"} 3\n"
        "vllm:num_requests_waiting{engine=\"0\"} 7\n"
        "vllm:kv_cache_usage_perc{engine=\"0\"} 0.25\n"
        "vllm:kv_cache_usage_perc{engine=\"1\"} 0.75\n"
        "vllm:prefix_cache_queries_total{engine=\"0\"} 100\n"
        "vllm:prefix_cache_hits_total{engine=\"0\"} 40\n"
        "vllm:prefix_cache_hits_created{engine=\"0\"} 1.7e9\n"
        "vllm:time_to_first_token_seconds_bucket{le=\"0.1\"} 5\n"
        "unrelated_total 9\n";
    struct gp_prom_scan sc;
    gp_prom_scan(txt, strlen(txt), &sc);
    CHECK_INT(sc.known, 7);
    CHECK(sc.has_running && sc.has_waiting);
    CHECK_NEAR(sc.running, 5, 0);
    CHECK_NEAR(sc.waiting, 7, 0);
    CHECK_INT(sc.kv_n, 2);
    CHECK_NEAR(sc.kv_sum / sc.kv_n, 50.0, 1e-9);
    CHECK_INT(sc.has_pc_counters, 3);
    CHECK_NEAR(sc.pc_hits, 40, 0);
    CHECK_NEAR(sc.pc_queries, 100, 0);
    CHECK_INT(sc.hit_n, 0);
    CHECK_INT(sc.ngpu, 0);
    /* the deprecated name is accepted too */
    const char *old = "vllm:gpu_cache_usage_perc{model_name=\"x\"} 0.5\n";
    gp_prom_scan(old, strlen(old), &sc);
    CHECK_INT(sc.kv_n, 1);
    CHECK_NEAR(sc.kv_sum, 50.0, 1e-9);
}

static void test_scan_sglang_trtllm(void)
{
    const char *sg =
        "sglang:num_running_reqs{model_name=\"m\"} 4\n"
        "sglang:num_queue_reqs{model_name=\"m\"} 1\n"
        "sglang:token_usage{model_name=\"m\"} 0.1\n"
        "sglang:cache_hit_rate{model_name=\"m\"} 0.6\n"
        "sglang:gen_throughput{model_name=\"m\"} 1234\n";
    struct gp_prom_scan sc;
    gp_prom_scan(sg, strlen(sg), &sc);
    CHECK_INT(sc.known, 4);
    CHECK_NEAR(sc.running, 4, 0);
    CHECK_NEAR(sc.waiting, 1, 0);
    CHECK_NEAR(sc.kv_sum, 10.0, 1e-9);
    CHECK_INT(sc.hit_n, 1);
    CHECK_NEAR(sc.hit_sum, 0.6, 1e-12);
    /* SGLang's counters: cached tokens summed over cache_source label sets */
    const char *sgc =
        "sglang:prompt_tokens_total{model_name=\"m\"} 1000\n"
        "sglang:cached_tokens_total{model_name=\"m\",cache_source=\"device\"} 300\n"
        "sglang:cached_tokens_total{model_name=\"m\",cache_source=\"host\"} 100\n";
    gp_prom_scan(sgc, strlen(sgc), &sc);
    CHECK_INT(sc.has_sg_counters, 3);
    CHECK_NEAR(sc.sg_prompt, 1000, 0);
    CHECK_NEAR(sc.sg_cached, 400, 0);
    CHECK_INT(sc.has_pc_counters, 0);
    gp_prom_scan(sg, strlen(sg), &sc);
    CHECK_STR(sc.hit_name, "sglang:cache_hit_rate");
    const char *tr =
        "trtllm_num_requests_running 8\n"
        "trtllm_num_requests_waiting 2\n"
        "trtllm_kv_cache_utilization 0.5\n"
        "trtllm_kv_cache_hit_rate 0.25\n";
    gp_prom_scan(tr, strlen(tr), &sc);
    CHECK_INT(sc.known, 4);
    CHECK_NEAR(sc.running, 8, 0);
    CHECK_NEAR(sc.waiting, 2, 0);
    CHECK_NEAR(sc.kv_sum, 50, 1e-9);
    CHECK_NEAR(sc.hit_sum, 0.25, 0);
    /* older TRT-LLM: the same names without the trtllm_ prefix (issue 39 item 2) */
    const char *old =
        "num_requests_running{model_name=\"m\"} 3\n"
        "num_requests_waiting{model_name=\"m\"} 1\n"
        "kv_cache_utilization{model_name=\"m\"} 0.25\n"
        "kv_cache_hit_rate{model_name=\"m\"} 0.5\n";
    gp_prom_scan(old, strlen(old), &sc);
    CHECK_INT(sc.known, 4);
    CHECK_NEAR(sc.running, 3, 0);
    CHECK_NEAR(sc.waiting, 1, 0);
    CHECK_NEAR(sc.kv_sum, 25, 1e-9);
    CHECK_NEAR(sc.hit_sum, 0.5, 0);
}

static void test_scan_dcgm(void)
{
    const char *txt =
        "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\",modelName=\"H100\"} 312.5\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-b\"} 100\n"
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} 5000000\n"
        "DCGM_FI_DEV_FB_USED{gpu=\"0\"} 1024\n"
        "DCGM_FI_DEV_FB_FREE{gpu=\"0\"} 3072\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 87\n"
        "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\"} 1755\n"
        "DCGM_FI_DEV_GPU_TEMP{UUID=\"no-gpu-label\"} 50\n"
        "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"} 0\n";
    struct gp_prom_scan sc;
    gp_prom_scan(txt, strlen(txt), &sc);
    CHECK_INT(sc.ngpu, 2);
    CHECK_INT(sc.known, 8);
    const struct gp_prom_gpu *g = &sc.gpu[0];
    CHECK(g->has & (UINT64_C(1) << GP_TM_POWER_W));
    CHECK_NEAR(g->v[GP_TM_POWER_W], 312.5, 0);
    CHECK_NEAR(g->v[GP_TM_ENERGY_J], 5000.0, 1e-9);
    CHECK_NEAR(g->v[GP_TM_GPU_MEM_USED_BYTES], 1024.0 * 1048576, 0);
    CHECK_NEAR(g->v[GP_TM_GPU_MEM_TOTAL_BYTES], 4096.0 * 1048576, 0);
    CHECK_NEAR(g->v[GP_TM_GPU_UTIL_PCT], 87, 0);
    CHECK_NEAR(g->v[GP_TM_SM_CLOCK_MHZ], 1755, 0);
    CHECK(!(g->has & (UINT64_C(1) << GP_TM_TEMP_C)));
    CHECK_NEAR(sc.gpu[1].v[GP_TM_POWER_W], 100, 0);
    CHECK_NEAR(g->v[GP_TM_GPU_MEM_FREE_BYTES], 3072.0 * 1048576, 0);
    CHECK_NEAR(g->v[GP_TM_XID_LAST], 0, 0);
    CHECK(g->has & (UINT64_C(1) << GP_TM_XID_LAST));
}

/* Every DCGM field GenAI-Perf's collector maps, with its unit conversion. */
static void test_scan_dcgm_every_field(void)
{
    static const struct { const char *name; double raw; int metric; double want; } f[] = {
        {"DCGM_FI_DEV_POWER_USAGE", 250.5, GP_TM_POWER_W, 250.5},
        {"DCGM_FI_DEV_POWER_MGMT_LIMIT", 700, GP_TM_POWER_LIMIT_W, 700},
        {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 123456789, GP_TM_ENERGY_J, 123456.789},
        {"DCGM_FI_DEV_GPU_UTIL", 91, GP_TM_GPU_UTIL_PCT, 91},
        {"DCGM_FI_DEV_MEM_COPY_UTIL", 44, GP_TM_MEM_UTIL_PCT, 44},
        {"DCGM_FI_DEV_ENC_UTIL", 3, GP_TM_ENC_UTIL_PCT, 3},
        {"DCGM_FI_DEV_DEC_UTIL", 2, GP_TM_DEC_UTIL_PCT, 2},
        {"DCGM_FI_PROF_SM_ACTIVE", 0.625, GP_TM_SM_ACTIVE_PCT, 62.5},
        {"DCGM_FI_DEV_SM_CLOCK", 1980, GP_TM_SM_CLOCK_MHZ, 1980},
        {"DCGM_FI_DEV_MEM_CLOCK", 2619, GP_TM_MEM_CLOCK_MHZ, 2619},
        {"DCGM_FI_DEV_FB_USED", 1000, GP_TM_GPU_MEM_USED_BYTES, 1000.0 * 1048576},
        {"DCGM_FI_DEV_FB_TOTAL", 143771, GP_TM_GPU_MEM_TOTAL_BYTES, 143771.0 * 1048576},
        {"DCGM_FI_DEV_FB_FREE", 142771, GP_TM_GPU_MEM_FREE_BYTES, 142771.0 * 1048576},
        {"DCGM_FI_DEV_MEMORY_TEMP", 41, GP_TM_MEM_TEMP_C, 41},
        {"DCGM_FI_DEV_GPU_TEMP", 35, GP_TM_TEMP_C, 35},
        {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", 11, GP_TM_ECC_SBE_VOL, 11},
        {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 12, GP_TM_ECC_DBE_VOL, 12},
        {"DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", 13, GP_TM_ECC_SBE_AGG, 13},
        {"DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", 14, GP_TM_ECC_DBE_AGG, 14},
        {"DCGM_FI_DEV_XID_ERRORS", 79, GP_TM_XID_LAST, 79},
        {"DCGM_FI_DEV_POWER_VIOLATION", 5000, GP_TM_POWER_VIOLATION_US, 5000},
        {"DCGM_FI_DEV_THERMAL_VIOLATION", 6000, GP_TM_THERMAL_VIOLATION_US, 6000},
        {"DCGM_FI_DEV_RETIRED_SBE", 15, GP_TM_RETIRED_SBE, 15},
        {"DCGM_FI_DEV_RETIRED_DBE", 16, GP_TM_RETIRED_DBE, 16},
        {"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", 17, GP_TM_NVLINK_CRC_FLIT, 17},
        {"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", 18, GP_TM_NVLINK_CRC_DATA, 18},
        {"DCGM_FI_PROF_PCIE_TX_BYTES", 2048000, GP_TM_PCIE_TX_BPS, 2048000},
        {"DCGM_FI_PROF_PCIE_RX_BYTES", 4096000, GP_TM_PCIE_RX_BPS, 4096000},
        {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", 19, GP_TM_PCIE_REPLAY, 19},
    };
    CHECK_INT(sizeof f / sizeof f[0], GP_TM_GPU__COUNT);
    char txt[8192];
    size_t n = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        n += (size_t)snprintf(txt + n, sizeof txt - n, "%s{gpu=\"2\",UUID=\"GPU-x\"} %.17g\n", f[i].name,
                              f[i].raw);
    struct gp_prom_scan sc;
    gp_prom_scan(txt, n, &sc);
    CHECK_INT(sc.ngpu, 3);
    CHECK_INT(sc.known, GP_TM_GPU__COUNT);
    const struct gp_prom_gpu *g = &sc.gpu[2];
    CHECK(g->has == (UINT64_C(1) << GP_TM_GPU__COUNT) - 1);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        CHECK_NEAR(g->v[f[i].metric], f[i].want, 1e-9 * fabs(f[i].want));
    CHECK(sc.gpu[0].has == 0);
}

static void test_names(void)
{
    char b[16];
    CHECK_STR(gp_telemetry_metric_name(GP_TM_POWER_W), "power_w");
    CHECK_STR(gp_telemetry_metric_name(GP_TM_GPU_MEM_USED_BYTES), "mem_used_bytes");
    CHECK_STR(gp_telemetry_metric_name(GP_TM_HOST_MEM_AVAILABLE_BYTES), "mem_available_bytes");
    CHECK_STR(gp_telemetry_metric_name(GP_TM_PROC_CPU_PCT), "cpu_pct");
    CHECK_STR(gp_telemetry_metric_name(GP_TM_PREFIX_CACHE_HIT_RATE), "prefix_cache_hit_rate");
    CHECK(gp_telemetry_metric_name(GP_TM__COUNT) == NULL);
    CHECK_STR(gp_telemetry_device_name(GP_TD_GPU, 3, b, sizeof b), "gpu3");
    CHECK_STR(gp_telemetry_device_name(GP_TD_CPU, 12, b, sizeof b), "cpu12");
    CHECK_STR(gp_telemetry_device_name(GP_TD_GENPERF, 0, b, sizeof b), "genperf");
}

int main(void)
{
    GP_RUN(test_parse_lines);
    GP_RUN(test_scan_vllm);
    GP_RUN(test_scan_sglang_trtllm);
    GP_RUN(test_scan_dcgm);
    GP_RUN(test_scan_dcgm_every_field);
    GP_RUN(test_names);
    return gp_test_summary();
}
