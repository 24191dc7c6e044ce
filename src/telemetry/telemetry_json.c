/* telemetry/telemetry_json.c — what the sampler writes: the JSONL time
 * series, GenAI-Perf's telemetry_stats block and genperf's summary (see
 * telemetry.h). Reads the sampler's state through telemetry_int.h. */
#include "telemetry/telemetry.h"
#include "telemetry/telemetry_int.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortest "%.*g" that reads back to the same double (like Python's repr). */
static int put_num(struct gp_buf *b, double v)
{
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    return gp_buf_puts(b, tmp);
}

/* One line of the time series into b: status lines (i < nev) then samples.
 * host adds "host":"<host>" before "device" (several hosts only, so a
 * single-host file keeps its bytes). 0, or -1 out of memory. */
static int put_line(const struct gp_telemetry *t, size_t i, const char *host, struct gp_buf *b)
{
    char dev[16];
    gp_buf_reset(b);
    if (i < (size_t)t->nev) {
        const struct tm_event *e = &t->ev[i];
        gp_buf_printf(b, "{\"t_ns\":%llu,\"wall_ns\":%llu,", (unsigned long long)e->t_ns,
                      (unsigned long long)gp_telemetry_wall_ns(t, e->t_ns));
        if (host) {
            gp_buf_puts(b, "\"host\":");
            gp_buf_json_str(b, host, strlen(host));
            gp_buf_puts(b, ",");
        }
        gp_buf_puts(b, "\"device\":");
        gp_buf_json_str(b, e->device, strlen(e->device));
        gp_buf_printf(b, ",\"metric\":\"unavailable\",%s\"reason\":", e->mid_run ? "\"mid_run\":true," : "");
        gp_buf_json_str(b, e->reason, strlen(e->reason));
        return gp_buf_puts(b, "}\n") ? -1 : 0;
    }
    const struct gp_telemetry_sample *s = &t->s[i - (size_t)t->nev];
    gp_buf_printf(b, "{\"t_ns\":%llu,\"wall_ns\":%llu,", (unsigned long long)s->t_ns,
                  (unsigned long long)gp_telemetry_wall_ns(t, s->t_ns));
    if (host) {
        gp_buf_puts(b, "\"host\":");
        gp_buf_json_str(b, host, strlen(host));
        gp_buf_puts(b, ",");
    }
    gp_buf_printf(b, "\"device\":\"%s\",\"metric\":\"%s\",\"value\":",
                  gp_telemetry_device_name(s->device_kind, s->device_index, dev, sizeof dev),
                  gp_telemetry_metric_name(s->metric));
    put_num(b, s->value);
    return gp_buf_puts(b, "}\n") ? -1 : 0;
}

int gp_telemetry_write_jsonl_hosts(const struct gp_telemetry *const *ts, const char *const *hosts, int n,
                                   const char *path, struct gp_error *err)
{
    struct gp_atomic_file af;
    int r = gp_atomic_open(&af, path, err);
    if (r)
        return r;
    struct gp_buf b = {0};
    for (int h = 0; h < n; h++) {
        const struct gp_telemetry *t = ts[h];
        size_t lines = (size_t)t->nev + t->n;
        for (size_t i = 0; i < lines; i++) {
            if (put_line(t, i, hosts ? hosts[h] : NULL, &b) != 0) {
                gp_buf_free(&b);
                gp_atomic_abort(&af);
                return gp_err(err, GP_ENOMEM, "out of memory writing '%s'", path);
            }
            fwrite(b.data, 1, b.len, af.fp);
        }
    }
    gp_buf_free(&b);
    return gp_atomic_commit(&af, err);
}

int gp_telemetry_write_jsonl(const struct gp_telemetry *t, const char *path, struct gp_error *err)
{
    return gp_telemetry_write_jsonl_hosts(&t, NULL, 1, path, err);
}

/* ---- statistics ---------------------------------------------------------- */

/* Collects the values of (kind,index,metric) into buf (caller's, size >= t->n). */
static size_t collect(const struct gp_telemetry *t, int kind, int index, int metric, double *buf)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct gp_telemetry_sample *s = &t->s[i];
        if (s->device_kind == kind && s->device_index == index && s->metric == metric)
            buf[k++] = s->value;
    }
    return k;
}

struct gp_stat_export { const char *name; const char *unit; int metric; double scale; int constant; };

/* GenAI-Perf's names, order (its TELEMETRY_METRICS: power, memory,
 * utilisation, clock, temperature, ECC/errors, PCIe) and units; the scale
 * takes ours (W, J, bytes, %, MHz, C, counts, us, bytes/s) to its. */
static const struct gp_stat_export gp_exports[] = {
    {"gpu_power_usage", "W", GP_TM_POWER_W, 1.0, 0},
    {"gpu_power_limit", "W", GP_TM_POWER_LIMIT_W, 1.0, 1},
    {"energy_consumption", "MJ", GP_TM_ENERGY_J, 1e-6, 0},
    {"total_gpu_memory", "GB", GP_TM_GPU_MEM_TOTAL_BYTES, 1e-9, 1},
    {"gpu_memory_used", "GB", GP_TM_GPU_MEM_USED_BYTES, 1e-9, 0},
    {"gpu_memory_free", "GB", GP_TM_GPU_MEM_FREE_BYTES, 1e-9, 0},
    {"gpu_utilization", "%", GP_TM_GPU_UTIL_PCT, 1.0, 0},
    {"sm_utilization", "%", GP_TM_SM_ACTIVE_PCT, 1.0, 0},
    {"memory_copy_utilization", "%", GP_TM_MEM_UTIL_PCT, 1.0, 0},
    {"video_encoder_utilization", "%", GP_TM_ENC_UTIL_PCT, 1.0, 0},
    {"video_decoder_utilization", "%", GP_TM_DEC_UTIL_PCT, 1.0, 0},
    {"gpu_clock_sm", "MHz", GP_TM_SM_CLOCK_MHZ, 1.0, 0},
    {"gpu_clock_memory", "MHz", GP_TM_MEM_CLOCK_MHZ, 1.0, 0},
    {"gpu_temperature", "C", GP_TM_TEMP_C, 1.0, 0},
    {"gpu_memory_temperature", "C", GP_TM_MEM_TEMP_C, 1.0, 0},
    {"total_ecc_sbe_volatile", "errors", GP_TM_ECC_SBE_VOL, 1.0, 0},
    {"total_ecc_dbe_volatile", "errors", GP_TM_ECC_DBE_VOL, 1.0, 0},
    {"total_ecc_sbe_aggregate", "errors", GP_TM_ECC_SBE_AGG, 1.0, 0},
    {"total_ecc_dbe_aggregate", "errors", GP_TM_ECC_DBE_AGG, 1.0, 0},
    {"xid_last_error", "errors", GP_TM_XID_LAST, 1.0, 0},
    {"power_throttle_duration", "us", GP_TM_POWER_VIOLATION_US, 1.0, 0},
    {"thermal_throttle_duration", "us", GP_TM_THERMAL_VIOLATION_US, 1.0, 0},
    {"retired_pages_sbe", "pages", GP_TM_RETIRED_SBE, 1.0, 0},
    {"retired_pages_dbe", "pages", GP_TM_RETIRED_DBE, 1.0, 0},
    {"total_nvlink_crc_flit_errors", "errors", GP_TM_NVLINK_CRC_FLIT, 1.0, 0},
    {"total_nvlink_crc_data_errors", "errors", GP_TM_NVLINK_CRC_DATA, 1.0, 0},
    {"pcie_transmit_throughput", "KB/s", GP_TM_PCIE_TX_BPS, 1.0 / 1024, 0},
    {"pcie_receive_throughput", "KB/s", GP_TM_PCIE_RX_BPS, 1.0 / 1024, 0},
    {"pcie_replay_counter", "retries", GP_TM_PCIE_REPLAY, 1.0, 0},
};
_Static_assert(sizeof gp_exports / sizeof gp_exports[0] == GP_TM_GPU__COUNT,
               "every GPU metric has a GenAI-Perf name");

/* NumPy-exact stats (core/stats.c), then scaled to GenAI-Perf's unit the
 * way its scale_data does: every stat multiplied after the fact. */
static json_t *stats_obj(double *x, size_t n, double scale, int constant)
{
    struct gp_stats st;
    gp_stats_compute(x, n, &st);
    gp_stats_scale(&st, scale);
    json_t *o = json_object();
    json_object_set_new(o, "avg", json_real(st.avg));
    if (constant)
        return o;
    for (int i = 0; i < GP_NPCT; i++) {
        char key[8];
        snprintf(key, sizeof key, "p%d", gp_pct_levels[i]);
        json_object_set_new(o, key, json_real(st.p[i]));
    }
    json_object_set_new(o, "min", json_real(st.min));
    json_object_set_new(o, "max", json_real(st.max));
    json_object_set_new(o, "std", json_real(st.std));
    return o;
}

json_t *gp_telemetry_stats_json(const struct gp_telemetry *t)
{
    if (!t || t->n == 0 || t->ngpu == 0)
        return NULL;
    double *buf = malloc(t->n * sizeof *buf);
    if (!buf)
        return NULL;
    json_t *root = json_object();
    for (size_t m = 0; m < sizeof gp_exports / sizeof gp_exports[0]; m++) {
        json_t *mo = NULL;
        for (int g = 0; g < t->ngpu; g++) {
            size_t k = collect(t, GP_TD_GPU, g, gp_exports[m].metric, buf);
            if (!k)
                continue;
            if (!mo) {
                mo = json_object();
                json_object_set_new(mo, "unit", json_string(gp_exports[m].unit));
            }
            char key[16];
            snprintf(key, sizeof key, "%d", g);  /* GenAI-Perf keys by DCGM's gpu label */
            json_object_set_new(mo, key, stats_obj(buf, k, gp_exports[m].scale, gp_exports[m].constant));
        }
        if (mo)
            json_object_set_new(root, gp_exports[m].name, mo);
    }
    free(buf);
    if (json_object_size(root) == 0) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* One entry of the summary's server.sources: the URL, what it is used for,
 * and the server's own counters over the window (window: "measured" or
 * "run", window_s its length). */
static json_t *source_json(const struct tm_src *x, const char *window, double window_s)
{
    json_t *e = json_object();
    json_object_set_new(e, "url", json_string(x->shown));
    json_object_set_new(e, "status", json_string(x->status));
    json_object_set_new(e, "default", json_boolean(x->quiet));
    json_object_set_new(e, "used_for",
                        json_string(x->use_server && x->use_dcgm ? "server+gpu"
                                    : x->use_server                 ? "server"
                                    : x->use_dcgm                   ? "gpu"
                                                                    : "none"));
    json_object_set_new(e, "failed_scrapes", json_integer(x->failures));
    if (x->have_sd_prev) {
        /* vLLM's spec_decode counters over the window (its start to the
         * closing scrape): acceptance figures from the server's own
         * counters, never from the client's tokens per chunk */
        double d = x->sd_prev[0] - x->sd_first[0], dt = x->sd_prev[1] - x->sd_first[1],
               da = x->sd_prev[2] - x->sd_first[2];
        json_t *sd = json_object();
        json_object_set_new(sd, "drafts", json_real(d));
        json_object_set_new(sd, "draft_tokens", json_real(dt));
        json_object_set_new(sd, "accepted_tokens", json_real(da));
        json_object_set_new(sd, "mean_acceptance_length", d > 0 ? json_real(1.0 + da / d) : json_null());
        json_object_set_new(sd, "acceptance_rate", dt > 0 ? json_real(da / dt) : json_null());
        json_object_set_new(sd, "window", json_string(window));
        json_object_set_new(e, "spec_decode", sd);
    }
    if (x->have_pc_prev && (x->pc_kind == 1 || x->pc_hits_seen)) {
        /* the prefix-cache counters over the window, in prompt tokens */
        double q = x->pc_queries_prev - x->pc_queries_first, h = x->pc_hits_prev - x->pc_hits_first;
        json_t *pc = json_object();
        json_object_set_new(pc, "counters",
                            json_string(x->pc_kind == 1
                                            ? "vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total"
                                            : "sglang:cached_tokens_total / sglang:prompt_tokens_total"));
        json_object_set_new(pc, "queries", json_real(q));
        json_object_set_new(pc, "hits", json_real(h));
        json_object_set_new(pc, "hit_rate", q > 0 && h >= 0 && h <= q ? json_real(h / q) : json_null());
        json_object_set_new(pc, "window", json_string(window));
        json_object_set_new(pc, "window_s", json_real(window_s));
        json_object_set_new(e, "prefix_cache", pc);
    }
    if (x->gauge_n) {
        /* a hit-rate gauge is the server's own figure over its own span
         * (SGLang's cache_hit_rate: the last prefill batch): its mean over
         * the window's scrapes, named as a gauge, not the run's rate */
        json_t *g = json_object();
        json_object_set_new(g, "gauge", json_string(x->gauge_name));
        json_object_set_new(g, "mean", json_real(x->gauge_sum / x->gauge_n));
        json_object_set_new(g, "scrapes", json_integer(x->gauge_n));
        json_object_set_new(g, "window", json_string(window));
        json_object_set_new(e, "prefix_cache_gauge", g);
    }
    return e;
}

json_t *gp_telemetry_summary_json(const struct gp_telemetry *t)
{
    if (t->remote_summary) /* rendered on the sampler's own host (telemetry_hosts.c) */
        return json_deep_copy(t->remote_summary);
    json_t *root = json_object();
    json_object_set_new(root, "interval_s", json_real(t->interval_s));
    json_object_set_new(root, "duration_s",
                        json_real(t->ticks ? (double)(t->t_last - t->t_first) / 1e9 : 0.0));
    json_object_set_new(root, "ticks", json_integer(t->ticks));
    json_object_set_new(root, "samples", json_integer((json_int_t)t->n));
    json_t *gpu = json_object();
    json_object_set_new(gpu, "status", json_string(t->gpu_status));
    json_object_set_new(gpu, "source", json_string(t->nv ? "nvml" : t->gpu_from_dcgm ? "dcgm" : "none"));
    json_object_set_new(gpu, "count", json_integer(t->ngpu));
    json_t *names = json_array();
    for (int g = 0; t->nv && g < t->ngpu; g++)
        json_array_append_new(names, json_string(gp_nvml_name(t->nv, g)));
    json_object_set_new(gpu, "names", names);
    json_object_set_new(root, "gpu", gpu);
    json_t *srv = json_object();
    json_object_set_new(srv, "status", json_string(t->server_status));
    const struct tm_src *ps = t->primary >= 0 ? &t->src[t->primary] : t->nsrc ? &t->src[0] : NULL;
    json_object_set_new(srv, "url", ps ? json_string(ps->shown) : json_null());
    json_object_set_new(srv, "failed_scrapes", json_integer(ps ? ps->failures : 0));
    /* the counters' window: from gp_telemetry_mark_window's tick
     * ("measured": the caller's measured phase) or the first scrape ("run") */
    const char *window = t->mark_ns ? "measured" : "run";
    double window_s = t->ticks ? (double)(t->t_last - (t->mark_ns ? t->mark_ns : t->t_first)) / 1e9 : 0.0;
    json_t *srcs = json_array();
    for (int i = 0; i < t->nsrc; i++) {
        json_t *e = source_json(&t->src[i], window, window_s);
        json_array_append_new(srcs, e);
    }
    json_object_set_new(srv, "sources", srcs);
    json_object_set_new(root, "server", srv);
    json_t *ev = json_array();
    for (int i = 0; i < t->nev; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "device", json_string(t->ev[i].device));
        json_object_set_new(e, "metric", json_string("unavailable"));
        json_object_set_new(e, "mid_run", json_boolean(t->ev[i].mid_run));
        json_object_set_new(e, "reason", json_string(t->ev[i].reason));
        json_array_append_new(ev, e);
    }
    json_object_set_new(root, "events", ev);

    /* per (device, metric): avg/min/max/last/n, in first-seen order; host
     * per-core series are summarised by "cpu*" only through host.cpu_util_pct */
    json_t *mets = json_object();
    char dev[16], key[64];
    for (size_t i = 0; i < t->n; i++) {
        const struct gp_telemetry_sample *s = &t->s[i];
        if (s->device_kind == GP_TD_CPU)
            continue;
        snprintf(key, sizeof key, "%s.%s",
                 gp_telemetry_device_name(s->device_kind, s->device_index, dev, sizeof dev),
                 gp_telemetry_metric_name(s->metric));
        json_t *o = json_object_get(mets, key);
        if (!o) {
            o = json_object();
            json_object_set_new(o, "sum", json_real(0));
            json_object_set_new(o, "min", json_real(s->value));
            json_object_set_new(o, "max", json_real(s->value));
            json_object_set_new(o, "n", json_integer(0));
            json_object_set_new(mets, key, o);
        }
        json_real_set(json_object_get(o, "sum"), json_real_value(json_object_get(o, "sum")) + s->value);
        if (s->value < json_real_value(json_object_get(o, "min")))
            json_real_set(json_object_get(o, "min"), s->value);
        if (s->value > json_real_value(json_object_get(o, "max")))
            json_real_set(json_object_get(o, "max"), s->value);
        json_integer_set(json_object_get(o, "n"), json_integer_value(json_object_get(o, "n")) + 1);
        json_object_set_new(o, "last", json_real(s->value));
    }
    const char *k;
    json_t *o;
    json_object_foreach(mets, k, o) {
        double sum = json_real_value(json_object_get(o, "sum"));
        json_int_t n = json_integer_value(json_object_get(o, "n"));
        json_object_set_new(o, "avg", json_real(n ? sum / (double)n : 0.0));
        json_object_del(o, "sum");
    }
    json_object_set_new(root, "metrics", mets);
    return root;
}
