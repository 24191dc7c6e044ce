/* telemetry/cmd_telemetry.c — `genperf telemetry`: sample for a while and print.
 *
 * A quick look at a host: one line per tick (host CPU/load/memory, genperf's
 * own CPU, each GPU, the server's queue), then a summary. Uses the same
 * sampler as profile/run, driven from this thread with gp_telemetry_tick.
 */
#include "commands.h"

#include "core/argv.h"
#include "core/clock.h"
#include "core/error.h"
#include "telemetry/telemetry.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --server-metrics-url, repeatable: the first is the server's, the rest extra. */
struct metrics_urls {
    const char *url;
    const char *more[8];
    int n_more;
};

static int add_metrics_url(void *ctx, const char *name, const char *v, struct gp_error *err)
{
    struct metrics_urls *m = ctx;
    if (!m->url)
        m->url = v;
    else if (m->n_more < 8)
        m->more[m->n_more++] = v;
    else
        return gp_err(err, GP_EINVAL, "at most 9 --server-metrics-url");
    return 0;
}

static void print_tick(const struct gp_telemetry *t, size_t from, size_t to, uint64_t t0)
{
    const struct gp_telemetry_sample *s = gp_telemetry_samples(t);
    if (from >= to)
        return;
    printf("t=%.2fs", (double)(s[from].t_ns - t0) / 1e9);
    char dev[16];
    int last_kind = -1, last_idx = -1;
    for (size_t i = from; i < to; i++) {
        if (s[i].device_kind == GP_TD_CPU)
            continue; /* per-core values go to the file, not the screen */
        if (s[i].device_kind != last_kind || s[i].device_index != last_idx) {
            printf("  %s:", gp_telemetry_device_name(s[i].device_kind, s[i].device_index, dev, sizeof dev));
            last_kind = s[i].device_kind;
            last_idx = s[i].device_index;
        }
        const char *m = gp_telemetry_metric_name(s[i].metric);
        double v = s[i].value;
        if (strstr(m, "bytes"))
            printf(" %s=%.2fGiB", m, v / 1073741824.0);
        else
            printf(" %s=%.6g", m, v);
    }
    printf("\n");
}

static void print_summary(struct gp_telemetry *t)
{
    json_t *sum = gp_telemetry_summary_json(t);
    if (!sum)
        return;
    printf("\nGPU telemetry: %s", gp_telemetry_gpu_status(t));
    json_t *names = json_object_get(json_object_get(sum, "gpu"), "names");
    size_t i;
    json_t *v;
    json_array_foreach(names, i, v) printf("%sgpu%zu=%s", i ? ", " : " (", i, json_string_value(v));
    printf("%s\n", json_array_size(names) ? ")" : "");
    printf("server telemetry: %s\n", gp_telemetry_server_status(t));
    json_t *ev = json_object_get(sum, "events");
    json_array_foreach(ev, i, v) {
        if (json_is_true(json_object_get(v, "mid_run")))
            printf("error: %s: %s\n", json_string_value(json_object_get(v, "device")),
                   json_string_value(json_object_get(v, "reason")));
    }
    printf("%-36s %14s %14s %14s %6s\n", "metric", "avg", "min", "max", "n");
    const char *k;
    json_object_foreach(json_object_get(sum, "metrics"), k, v) {
        double sc = strstr(k, "bytes") ? 1.0 / 1073741824.0 : 1.0;
        char name[64];
        snprintf(name, sizeof name, "%s%s", k, sc != 1.0 ? " (GiB)" : "");
        printf("%-36s %14.3f %14.3f %14.3f %6lld\n", name,
               json_real_value(json_object_get(v, "avg")) * sc,
               json_real_value(json_object_get(v, "min")) * sc,
               json_real_value(json_object_get(v, "max")) * sc,
               (long long)json_integer_value(json_object_get(v, "n")));
    }
    json_decref(sum);
}

int cmd_telemetry(int argc, char **argv)
{
    double duration = 10, interval = 1;
    const char *nvml = NULL, *output = NULL;
    struct metrics_urls mu = {0};
    int as_json = 0, quiet = 0;
    const struct gp_optdef defs[] = {
        GP_NUM(GP_OPT_DOUBLE, "--duration", NULL, &duration, "S", 0, 1e6,
               "how long to sample (default 10; 0 = one sample)"),
        GP_NUM(GP_OPT_DOUBLE, "--interval", "--telemetry-interval", &interval, "S", 0.01, 1e6,
               "sampling period, sub-second allowed (default 1)"),
        GP_CALL("--server-metrics-url", NULL, add_metrics_url, "U",
                "Prometheus /metrics of a vLLM/SGLang/TRT-LLM server or DCGM exporter\n"
                "(repeatable: e.g. the server and a DCGM exporter)"),
        GP_STR("--nvml-lib", NULL, &nvml, "PATH", "NVML library (default $GENPERF_NVML_LIB or libnvidia-ml.so.1)"),
        GP_STR("--output", "-o", &output, "FILE", "also write the time series (JSON lines, docs/telemetry.md)"),
        GP_FLAG("--json", NULL, &as_json, "print the summary as JSON instead of text"),
        GP_FLAG("--quiet", "-q", &quiet, "no per-tick lines"),
    };
    const struct gp_optspec spec = {
        "telemetry",
        "usage: genperf telemetry [--duration S] [--interval S] [--server-metrics-url URL]\n"
        "                         [--nvml-lib PATH] [--output FILE.jsonl] [--json] [--quiet]\n"
        "  Samples GPU (NVML), host (/proc) and server (/metrics) telemetry and prints it.\n",
        NULL, defs, GP_NDEFS(defs), 24, &mu};
    int npos = gp_argv_parse(&spec, argc, argv);
    if (npos < 0)
        return npos == GP_ARGV_HELP ? 0 : 2;
    if (npos > 0)
        return gp_argv_error(&spec, "unexpected argument '%s'", argv[1]);
    const char *url = mu.url;
    struct gp_telemetry_opts o = {.interval_s = interval, .server_metrics_url = url, .nvml_path = nvml,
                                  .metrics_urls = mu.more, .n_metrics_urls = mu.n_more};
    struct gp_telemetry *t;
    struct gp_error err = {0};
    if (gp_telemetry_open(&o, &t, &err)) {
        fprintf(stderr, "genperf telemetry: %s\n", err.msg);
        return 1;
    }
    if (!as_json && !quiet) {
        printf("GPU telemetry: %s\n", gp_telemetry_gpu_status(t));
        if (url)
            printf("server telemetry: %s\n", gp_telemetry_server_status(t));
    }
    /* Ctrl-C / SIGTERM end the sampling early but still print the summary
     * and write the file: block them and wait for them instead of sleeping. */
    sigset_t stopsig, oldmask;
    sigemptyset(&stopsig);
    sigaddset(&stopsig, SIGINT);
    sigaddset(&stopsig, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopsig, &oldmask);
    int interrupted = 0;
    uint64_t t0 = gp_now_ns(), step = (uint64_t)(interval * 1e9);
    uint64_t end = t0 + (uint64_t)(duration * 1e9), next = t0;
    for (;;) {
        size_t before = gp_telemetry_nsamples(t);
        gp_telemetry_tick(t);
        if (!as_json && !quiet)
            print_tick(t, before, gp_telemetry_nsamples(t), t0);
        fflush(stdout);
        next += step;
        if (next > end + step / 100)  /* tolerate rounding so the last tick lands at end */
            break;
        for (uint64_t now = gp_now_ns(); now < next && !interrupted; now = gp_now_ns()) {
            uint64_t left = next - now;
            struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
            if (sigtimedwait(&stopsig, NULL, &ts) > 0)
                interrupted = 1;
        }
        if (interrupted)
            break;
    }
    pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
    if (interrupted && !as_json)
        fprintf(stderr, "genperf telemetry: interrupted; summary of what was sampled\n");
    int rc = 0;
    if (output && gp_telemetry_write_jsonl(t, output, &err)) {
        fprintf(stderr, "genperf telemetry: %s\n", err.msg);
        rc = 1;
    }
    if (as_json) {
        json_t *sum = gp_telemetry_summary_json(t);
        json_t *ts = gp_telemetry_stats_json(t);
        if (ts)
            json_object_set_new(sum, "telemetry_stats", ts);
        char *s = json_dumps(sum, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (s)
            printf("%s\n", s);
        free(s);
        json_decref(sum);
    } else {
        print_summary(t);
    }
    gp_telemetry_free(t);
    return rc;
}
