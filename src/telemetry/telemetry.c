/* telemetry/telemetry.c — the sampler: thread, sources, sampling (see telemetry.h).
 * The written outputs (JSONL, stats, summary) are in telemetry_json.c. */
#include "telemetry/telemetry.h"
#include "telemetry/telemetry_int.h"

#include "core/buf.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/redact.h"
#include "telemetry/host.h"
#include "telemetry/nvml.h"
#include "telemetry/prom.h"

#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const metric_names[GP_TM__COUNT] = {
    "power_w", "power_limit_w", "energy_j", "gpu_util_pct", "mem_util_pct",
    "mem_used_bytes", "mem_total_bytes", "temp_c", "sm_clock_mhz",
    "sm_active_pct", "enc_util_pct", "dec_util_pct", "mem_free_bytes", "mem_clock_mhz", "mem_temp_c",
    "ecc_sbe_volatile", "ecc_dbe_volatile", "ecc_sbe_aggregate", "ecc_dbe_aggregate", "xid_last_error",
    "power_violation_us", "thermal_violation_us", "retired_pages_sbe", "retired_pages_dbe",
    "nvlink_crc_flit_errors", "nvlink_crc_data_errors", "pcie_tx_bytes_per_s", "pcie_rx_bytes_per_s",
    "pcie_replay_count",
    "cpu_util_pct", "load1", "mem_used_bytes", "mem_available_bytes",
    "cpu_pct",
    "num_requests_running", "num_requests_waiting", "kv_cache_usage_pct",
    "prefix_cache_hit_rate", "spec_decode_accept_length", "spec_decode_accept_rate",
};
_Static_assert(GP_TM_GPU__COUNT <= 64, "GPU metrics use a 64-bit has mask");

const char *gp_telemetry_metric_name(int metric)
{
    return (metric >= 0 && metric < GP_TM__COUNT) ? metric_names[metric] : NULL;
}

const char *gp_telemetry_device_name(int kind, int index, char *buf, size_t bufsz)
{
    switch (kind) {
    case GP_TD_GPU: snprintf(buf, bufsz, "gpu%d", index); break;
    case GP_TD_HOST: snprintf(buf, bufsz, "host"); break;
    case GP_TD_CPU: snprintf(buf, bufsz, "cpu%d", index); break;
    case GP_TD_GENPERF: snprintf(buf, bufsz, "genperf"); break;
    case GP_TD_SERVER:
        /* the first server source keeps the plain name every reader knows */
        if (index)
            snprintf(buf, bufsz, "server%d", index);
        else
            snprintf(buf, bufsz, "server");
        break;
    default: snprintf(buf, bufsz, "unknown"); break;
    }
    return buf;
}

/* Appends one sample; growth doubles so the amortised cost per tick is a
 * store. A failed growth drops the sample rather than the run. */
static void add(struct gp_telemetry *t, uint64_t now, int kind, int index, int metric, double v)
{
    if (!isfinite(v))
        return;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 1024;
        void *p = realloc(t->s, nc * sizeof *t->s);
        if (!p)
            return;
        t->s = p;
        t->cap = nc;
    }
    struct gp_telemetry_sample *s = &t->s[t->n++];
    s->t_ns = now;
    s->value = v;
    s->device_kind = (uint16_t)kind;
    s->device_index = (uint16_t)index;
    s->metric = (uint16_t)metric;
}

static void add_event(struct gp_telemetry *t, uint64_t now, const char *device, int mid_run,
                      const char *reason)
{
    if (t->nev >= TM_MAX_EVENTS)
        return;
    struct tm_event *e = &t->ev[t->nev++];
    e->t_ns = now;
    snprintf(e->device, sizeof e->device, "%s", device);
    e->mid_run = mid_run;
    snprintf(e->reason, sizeof e->reason, "%s", reason);
}

struct host_ctx { struct gp_telemetry *t; uint64_t now; };

static void host_emit(void *ctx, int kind, int index, int metric, double value)
{
    struct host_ctx *h = ctx;
    add(h->t, h->now, kind, index, metric, value);
}

static size_t curl_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
    struct gp_buf *b = ud;
    size_t n = size * nmemb;
    /* a metrics page is a few hundred KB at most; refuse runaway bodies */
    if (b->len + n > 16u * 1024 * 1024 || gp_buf_append(b, ptr, n) != 0)
        return 0;
    return n;
}

/* GETs src->url into src->body. 0, or -1 with why in reason. */
static int scrape(struct tm_src *src, long timeout_ms, char *reason, size_t reasonsz)
{
    gp_buf_reset(&src->body);
    curl_easy_setopt(src->curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(src->curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    src->curl_err[0] = '\0';
    CURLcode rc = curl_easy_perform(src->curl);
    if (rc != CURLE_OK) {
        snprintf(reason, reasonsz, "GET %s failed: %s", src->shown,
                 src->curl_err[0] ? src->curl_err : curl_easy_strerror(rc));
        return -1;
    }
    long code = 0;
    curl_easy_getinfo(src->curl, CURLINFO_RESPONSE_CODE, &code);
    if (code != 200) {
        snprintf(reason, reasonsz, "GET %s answered HTTP %ld", src->shown, code);
        return -1;
    }
    return 0;
}

static void sample_dcgm(struct gp_telemetry *t, uint64_t now, const struct gp_prom_scan *sc, int base, int ngpu)
{
    /* an exporter that grew GPUs after the probe keeps its probed count, so
     * indices never run into the next exporter's */
    for (int g = 0; g < sc->ngpu && g < ngpu; g++)
        for (int m = 0; m < GP_TM_GPU__COUNT; m++)
            if (sc->gpu[g].has & (UINT64_C(1) << m))
                add(t, now, GP_TD_GPU, base + g, m, sc->gpu[g].v[m]);
}

/* The prefix-cache counters of one good scrape: this interval's hit rate as
 * a sample (the ratio of the increments; none when no lookup happened), and
 * the window's start (the first scrape with them, or a pending rebase). A
 * source with counters has its series from them even when it also exports a
 * hit-rate gauge (SGLang's cache_hit_rate is the last prefill batch's);
 * without counters the gauge's value is the sample. */
static void track_prefix_cache(struct gp_telemetry *t, struct tm_src *src, const struct gp_prom_scan *sc,
                               uint64_t now)
{
    int kind = 0, k = src->server_idx;
    double hits = 0, queries = 0;
    if (sc->has_pc_counters == 3) {
        kind = 1;
        hits = sc->pc_hits;
        queries = sc->pc_queries;
    } else if (sc->has_sg_counters & 2) {
        kind = 2;
        hits = sc->sg_cached; /* absent: no request had a hit yet (see prom.h) */
        queries = sc->sg_prompt;
        if (sc->has_sg_counters & 1)
            src->pc_hits_seen = 1;
    }
    int usable = kind == 1 || (kind == 2 && src->pc_hits_seen);
    if (kind && src->have_pc_prev && src->pc_kind == kind) {
        if (usable && queries > src->pc_queries_prev && hits >= src->pc_hits_prev)
            add(t, now, GP_TD_SERVER, k, GP_TM_PREFIX_CACHE_HIT_RATE,
                (hits - src->pc_hits_prev) / (queries - src->pc_queries_prev));
    } else if (kind) {
        src->have_pc_prev = 0; /* first sight (or the names changed): a new baseline */
    }
    if (!usable && sc->hit_n)
        add(t, now, GP_TD_SERVER, k, GP_TM_PREFIX_CACHE_HIT_RATE, sc->hit_sum / sc->hit_n);
    if (!kind)
        return;
    if (!src->have_pc_prev || src->rebase) {
        src->pc_hits_first = hits;
        src->pc_queries_first = queries;
    }
    src->pc_kind = kind;
    src->pc_hits_prev = hits;
    src->pc_queries_prev = queries;
    src->have_pc_prev = 1;
}

static void sample_source(struct gp_telemetry *t, int i, uint64_t now)
{
    struct tm_src *src = &t->src[i];
    char reason[512];
    if (scrape(src, t->scrape_timeout_ms, reason, sizeof reason) != 0) {
        /* A busy server may miss one scrape; keep trying, report the first. */
        char dev[16];
        if (src->failures++ == 0)
            add_event(t, now,
                      src->use_server ? gp_telemetry_device_name(GP_TD_SERVER, src->server_idx, dev, sizeof dev)
                                      : "gpu",
                      1, reason);
        return;
    }
    /* the scan is 5 KB on the stack: fine for the sampler thread */
    struct gp_prom_scan sc;
    gp_prom_scan(src->body.data ? src->body.data : "", src->body.len, &sc);
    if (src->use_dcgm)
        sample_dcgm(t, now, &sc, src->gpu_base, src->ngpu);
    if (!src->use_server)
        return;
    int k = src->server_idx;
    if (sc.has_running)
        add(t, now, GP_TD_SERVER, k, GP_TM_NUM_REQUESTS_RUNNING, sc.running);
    if (sc.has_waiting)
        add(t, now, GP_TD_SERVER, k, GP_TM_NUM_REQUESTS_WAITING, sc.waiting);
    if (sc.kv_n)
        add(t, now, GP_TD_SERVER, k, GP_TM_KV_CACHE_USAGE_PCT, sc.kv_sum / sc.kv_n);
    if (src->rebase) {
        src->gauge_sum = 0;
        src->gauge_n = 0;
    }
    if (sc.hit_n) {
        src->gauge_name = sc.hit_name;
        src->gauge_sum += sc.hit_sum / sc.hit_n;
        src->gauge_n++;
    }
    track_prefix_cache(t, src, &sc, now);
    if (sc.sd_len_n) {
        add(t, now, GP_TD_SERVER, k, GP_TM_SPEC_ACCEPT_LENGTH, sc.sd_len_sum / sc.sd_len_n);
    } else if (sc.has_sd_counters == 7) {
        /* vLLM's spec_decode counters: this interval's increments (none
         * when no verify step ran) */
        double d = sc.sd_drafts - src->sd_prev[0], dt = sc.sd_draft_tokens - src->sd_prev[1],
               da = sc.sd_accepted - src->sd_prev[2];
        if (src->have_sd_prev && d > 0 && da >= 0)
            add(t, now, GP_TD_SERVER, k, GP_TM_SPEC_ACCEPT_LENGTH, 1.0 + da / d);
        if (src->have_sd_prev && dt > 0 && da >= 0)
            add(t, now, GP_TD_SERVER, k, GP_TM_SPEC_ACCEPT_RATE, da / dt);
        if (!src->have_sd_prev || src->rebase) {
            src->sd_first[0] = sc.sd_drafts;
            src->sd_first[1] = sc.sd_draft_tokens;
            src->sd_first[2] = sc.sd_accepted;
        }
        src->sd_prev[0] = sc.sd_drafts;
        src->sd_prev[1] = sc.sd_draft_tokens;
        src->sd_prev[2] = sc.sd_accepted;
        src->have_sd_prev = 1;
    }
    src->rebase = 0;
}

static void sample_gpus(struct gp_telemetry *t, uint64_t now)
{
    for (int g = 0; g < t->ngpu; g++) {
        if (t->gpu_dead[g])
            continue;
        struct gp_nvml_reading r;
        char reason[300], dev[16], line[400];
        int rc = gp_nvml_read(t->nv, g, &r, reason, sizeof reason);
        if (rc == -1) {
            /* A lost GPU keeps failing (and may block in the driver): stop
             * asking it and say when it went away. */
            t->gpu_dead[g] = 1;
            gp_telemetry_device_name(GP_TD_GPU, g, dev, sizeof dev);
            snprintf(line, sizeof line, "%s; sampling of %s stopped", reason, dev);
            add_event(t, now, dev, 1, line);
            continue;
        }
        if (rc < 0) {
            /* anything else may pass: drop this tick's reading, retry next
             * tick, and report only the first such failure of the device */
            if (t->gpu_soft_errors[g]++ == 0) {
                gp_telemetry_device_name(GP_TD_GPU, g, dev, sizeof dev);
                snprintf(line, sizeof line, "%s; %s skipped for this sample, retried next", reason, dev);
                add_event(t, now, dev, 1, line);
            }
            continue;
        }
        for (int m = 0; m < GP_TM_GPU__COUNT; m++)
            if (r.has & (UINT64_C(1) << m))
                add(t, now, GP_TD_GPU, g, m, r.v[m]);
    }
}

int gp_telemetry_tick(struct gp_telemetry *t)
{
    size_t before = t->n;
    uint64_t now = gp_now_ns();
    if (!t->ticks++)
        t->t_first = now;
    t->t_last = now;
    if (t->tick_mark) {
        /* the window's start: every server source's counters and gauge
         * restart from this tick's scrape (or its next good one) */
        t->mark_ns = now;
        for (int i = 0; i < t->nsrc; i++)
            t->src[i].rebase = 1;
    }
    if (t->nv)
        sample_gpus(t, now);
    if (t->host_ok) {
        struct host_ctx hc = {t, now};
        gp_host_sample(&t->host, now, host_emit, &hc);
    }
    for (int i = 0; i < t->nsrc; i++)
        if (t->src[i].use_server || t->src[i].use_dcgm)
            sample_source(t, i, now);
    return (int)(t->n - before);
}

/* Probes one source; on = answered 200 with names we know (has_* set). */
static void probe_source(struct gp_telemetry *t, struct tm_src *src)
{
    src->curl = curl_easy_init();
    if (!src->curl) {
        snprintf(src->status, sizeof src->status, "curl_easy_init failed for %s", src->shown);
        return;
    }
    curl_easy_setopt(src->curl, CURLOPT_URL, src->url);
    curl_easy_setopt(src->curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(src->curl, CURLOPT_WRITEFUNCTION, curl_write);
    curl_easy_setopt(src->curl, CURLOPT_WRITEDATA, &src->body);
    curl_easy_setopt(src->curl, CURLOPT_ERRORBUFFER, src->curl_err);
    curl_easy_setopt(src->curl, CURLOPT_NOSIGNAL, 1L);  /* we run in a thread */
    curl_easy_setopt(src->curl, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(src->curl, CURLOPT_USERAGENT, "genperf-telemetry");
    if (scrape(src, 2000, src->status, sizeof src->status) != 0)
        return;
    struct gp_prom_scan sc;
    gp_prom_scan(src->body.data ? src->body.data : "", src->body.len, &sc);
    if (sc.known == 0) {
        /* TensorRT-LLM's /metrics answers its iteration stats as JSON; its
         * Prometheus text is at /prometheus/metrics (serve/openai_server.py) */
        const char *p = src->body.data ? src->body.data : "";
        size_t i = 0;
        while (i < src->body.len && strchr(" \t\r\n", p[i]))
            i++;
        if (i < src->body.len && (p[i] == '{' || p[i] == '['))
            snprintf(src->status, sizeof src->status, "%s answered JSON, not Prometheus text", src->shown);
        else
            snprintf(src->status, sizeof src->status,
                     "%s has no vLLM, SGLang, TRT-LLM or DCGM metric names", src->shown);
        return;
    }
    src->on = 1;
    src->has_dcgm = sc.ngpu > 0;
    src->ngpu = sc.ngpu;
    src->has_server = sc.known > 0 && (sc.has_running || sc.has_waiting || sc.kv_n || sc.hit_n ||
                                       sc.has_pc_counters || sc.has_sg_counters);
    (void)t;
    snprintf(src->status, sizeof src->status, "available");
}

/* 0, 1 out of memory, 2 more URLs than TM_MAX_SRC (the caller ORs them). */
static int add_source(struct gp_telemetry *t, const char *url, int quiet)
{
    if (!url || !*url)
        return 0;
    for (int i = 0; i < t->nsrc; i++)
        if (strcmp(t->src[i].url, url) == 0)
            return 0;
    if (t->nsrc >= TM_MAX_SRC)
        return quiet ? 0 : 2; /* a guess past the limit is dropped; a URL the user gave is not */
    struct tm_src *src = &t->src[t->nsrc];
    if (!(src->url = strdup(url)))
        return 1;
    gp_redact_url(url, src->shown, sizeof src->shown);
    src->quiet = quiet;
    t->nsrc++;
    return 0;
}

/* Probes every source; every one with server names is sampled (device
 * "server", "server1", ... in the order given) and, without NVML, every DCGM
 * exporter's GPUs (numbered on from the previous exporter's). primary and
 * dcgm_src name the first of each for the summary. */
static void open_sources(struct gp_telemetry *t)
{
    /* the scrape must finish well inside one interval */
    long ms = (long)(t->interval_s * 800.0);
    t->scrape_timeout_ms = ms < 200 ? 200 : (ms > 2000 ? 2000 : ms);
    t->primary = t->dcgm_src = -1;
    int nserver = 0;
    for (int i = 0; i < t->nsrc; i++) {
        struct tm_src *src = &t->src[i];
        probe_source(t, src);
        if (src->on && src->has_server) {
            src->use_server = 1;
            src->server_idx = nserver++;
            if (t->primary < 0)
                t->primary = i;
        }
        if (src->on && src->has_dcgm && !t->nv && t->ngpu + src->ngpu <= GP_NVML_MAX_DEV) {
            src->use_dcgm = 1;
            src->gpu_base = t->ngpu;
            t->ngpu += src->ngpu;
            if (t->dcgm_src < 0)
                t->dcgm_src = i;
            t->gpu_from_dcgm = 1;
        }
        if (!src->on && !src->quiet)
            add_event(t, t->mono0, "server", 0, src->status);
    }
    if (t->gpu_from_dcgm)
        snprintf(t->gpu_status, sizeof t->gpu_status, "available");
    const struct tm_src *why = NULL;
    for (int i = 0; i < t->nsrc && !why; i++)
        if (!t->src[i].quiet && !t->src[i].on)
            why = &t->src[i];
    if (t->primary >= 0)
        snprintf(t->server_status, sizeof t->server_status, "available");
    else if (why)
        snprintf(t->server_status, sizeof t->server_status, "%s", why->status);
    else if (t->nsrc > 0 && !t->src[0].on)
        snprintf(t->server_status, sizeof t->server_status, "none (default %s)", t->src[0].status);
    else if (t->nsrc > 0)
        snprintf(t->server_status, sizeof t->server_status, "none (%s has no server metric names)",
                 t->src[0].url);
    else
        snprintf(t->server_status, sizeof t->server_status, "none");
}

int gp_telemetry_check_url(const char *url, struct gp_error *err)
{
    /* libcurl would happily read file:// or talk gopher://; a metrics scrape
     * is an HTTP GET, and anything else is a mistake (or a way to read local
     * files into an artifact). */
    if (!url || !*url || strncasecmp(url, "http://", 7) == 0 || strncasecmp(url, "https://", 8) == 0)
        return 0;
    return gp_err(err, GP_EINVAL,
                  "--server-metrics-url %s: only http:// and https:// URLs can be scraped; give the server's "
                  "/metrics URL, e.g. http://127.0.0.1:8000/metrics", url);
}

int gp_telemetry_open(const struct gp_telemetry_opts *o, struct gp_telemetry **out,
                      struct gp_error *err)
{
    *out = NULL;
    if (o) {
        int rc = gp_telemetry_check_url(o->server_metrics_url, err);
        for (int i = 0; !rc && i < o->n_metrics_urls && o->metrics_urls; i++)
            rc = gp_telemetry_check_url(o->metrics_urls[i], err);
        if (rc)
            return rc;
    }
    double iv = (o && o->interval_s > 0) ? o->interval_s : 1.0;
    if (!(iv >= 0.01 && iv <= 3600))
        return gp_err(err, GP_EINVAL,
                      "--telemetry-interval %g is out of range; use 0.01 to 3600 seconds", iv);
    struct gp_telemetry *t = calloc(1, sizeof *t);
    if (!t)
        return gp_err(err, GP_ENOMEM, "out of memory starting telemetry");
    t->interval_s = iv;
    int bad = 0;
    if (o) {
        bad |= add_source(t, o->server_metrics_url, 0);
        for (int i = 0; i < o->n_metrics_urls && o->metrics_urls; i++)
            bad |= add_source(t, o->metrics_urls[i], 0);
        bad |= add_source(t, o->default_metrics_url, 1);
        for (int i = 0; i < o->n_default_metrics_urls && o->default_metrics_urls; i++)
            bad |= add_source(t, o->default_metrics_urls[i], 1);
    }
    const char *np = (o && o->nvml_path) ? o->nvml_path : getenv("GENPERF_NVML_LIB");
    if (!np || !*np)
        np = "libnvidia-ml.so.1";
    t->nvml_path = strdup(np);
    if (bad == 2) {
        gp_telemetry_free(t);
        return gp_err(err, GP_EINVAL,
                      "--server-metrics-url(s): more than %d metrics URLs given; genperf scrapes at most %d, "
                      "give fewer", TM_MAX_SRC, TM_MAX_SRC);
    }
    if (!t->nvml_path || bad) {
        gp_telemetry_free(t);
        return gp_err(err, GP_ENOMEM, "out of memory starting telemetry");
    }
    t->mono0 = gp_now_ns();
    t->wall0 = gp_wall_ns();
    if (gp_nvml_open(t->nvml_path, &t->nv, t->gpu_status, sizeof t->gpu_status) == 0) {
        t->ngpu = gp_nvml_count(t->nv);
        snprintf(t->gpu_status, sizeof t->gpu_status, "available");
    }
    char reason[256];
    if (gp_host_open(&t->host, reason, sizeof reason) == 0)
        t->host_ok = 1;
    else
        add_event(t, t->mono0, "host", 0, reason);
    open_sources(t);
    if (!t->nv && !t->gpu_from_dcgm)
        add_event(t, t->mono0, "gpu", 0, t->gpu_status);
    /* room for one minute of samples up front, so a short run never grows */
    size_t per_tick = 8 + (size_t)t->host.maxcpu + (size_t)GP_TM_GPU__COUNT * (size_t)t->ngpu;
    size_t ticks = (size_t)(60.0 / iv) + 2;
    t->cap = per_tick * (ticks > 6000 ? 6000 : ticks);
    t->s = malloc(t->cap * sizeof *t->s);
    if (!t->s)
        t->cap = 0;
    *out = t;
    return 0;
}

int gp_telemetry_metrics_url_for(const char *target_url, char *out, size_t outsz)
{
    const char *p = target_url, *scheme = "http";
    const char *sep = strstr(p, "://");
    if (sep) {
        scheme = (sep - p == 5 && strncmp(p, "https", 5) == 0) ? "https" : "http";
        p = sep + 3;
    }
    size_t hl = strcspn(p, "/?#");
    if (hl == 0)
        return -1;
    int n = snprintf(out, outsz, "%s://%.*s/metrics", scheme, (int)hl, p);
    return (n < 0 || (size_t)n >= outsz) ? -1 : 0;
}

/* The first sample is taken by gp_telemetry_start, so this thread waits a
 * step before each of its own. */
static void *sampler_main(void *arg)
{
    struct gp_telemetry *t = arg;
    uint64_t step = (uint64_t)(t->interval_s * 1e9);
    uint64_t next = t->first_tick_ns + step;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->stopping && !t->mark_req) {
            uint64_t now = gp_now_ns();
            if (now >= next)
                break;
            struct timespec ts = {(time_t)(next / 1000000000ull), (long)(next % 1000000000ull)};
            pthread_cond_timedwait(&t->cv, &t->mu, &ts);
        }
        if (t->stopping)
            break;
        int marking = t->mark_req;
        pthread_mutex_unlock(&t->mu);
        t->tick_mark = marking;
        gp_telemetry_tick(t);
        t->tick_mark = 0;
        if (!marking) { /* a marking tick is extra: the schedule keeps its slots */
            next += step;
            uint64_t now = gp_now_ns();
            if (next < now)  /* a slow tick: skip the missed slots, keep the phase */
                next += ((now - next) / step + 1) * step;
        }
        pthread_mutex_lock(&t->mu);
        if (marking) {
            t->mark_req = 0;
            pthread_cond_broadcast(&t->cv);
        }
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

int gp_telemetry_start(const struct gp_telemetry_opts *o, struct gp_telemetry **out,
                       struct gp_error *err)
{
    struct gp_telemetry *t;
    int r = gp_telemetry_open(o, &t, err);
    if (r)
        return r;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int ok = pthread_mutex_init(&t->mu, NULL) == 0;
    if (ok && pthread_cond_init(&t->cv, &ca) != 0) {
        pthread_mutex_destroy(&t->mu);
        ok = 0;
    }
    pthread_condattr_destroy(&ca);
    if (!ok) {
        gp_telemetry_free(t);
        return gp_err(err, GP_ENOMEM, "cannot create the telemetry sampler's lock");
    }
    t->sync_ok = 1;
    /* The first sample is taken here, before the caller sends a request: the
     * server's counters over the run (vLLM's prefix-cache hits/queries, the
     * spec-decode counters) are differences from it. Taken on the thread,
     * a loaded host could start it after the first requests were served
     * (CI saw 22 of 24 requests counted). It costs one scrape, at most the
     * scrape timeout, before the run starts. */
    t->first_tick_ns = gp_now_ns();
    gp_telemetry_tick(t);
    /* The sampler must never be the thread a process signal (Ctrl-C) lands
     * on: whoever waits for signals (signalfd, sigwait) expects them blocked
     * everywhere else. The new thread inherits this mask. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    r = pthread_create(&t->th, NULL, sampler_main, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        gp_telemetry_free(t);
        return gp_err(err, GP_ENOMEM, "cannot start the telemetry sampler thread: %s", strerror(r));
    }
    t->thread_started = 1;
    *out = t;
    return 0;
}

int gp_telemetry_mark_window(struct gp_telemetry *t)
{
    if (!t)
        return 0;
    if (!t->thread_started) {
        t->tick_mark = 1;
        gp_telemetry_tick(t);
        t->tick_mark = 0;
        return 0;
    }
    pthread_mutex_lock(&t->mu);
    t->mark_req = 1;
    pthread_cond_broadcast(&t->cv);
    while (t->mark_req && !t->stopping)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    return 0;
}

int gp_telemetry_stop(struct gp_telemetry *t)
{
    if (!t || !t->thread_started)
        return 0;
    pthread_mutex_lock(&t->mu);
    t->stopping = 1;
    pthread_cond_broadcast(&t->cv); /* the sampler, and a mark_window caller waiting on it */
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->th, NULL);
    t->thread_started = 0;
    /* one closing sample so the series covers the whole measurement */
    gp_telemetry_tick(t);
    return 0;
}

void gp_telemetry_free(struct gp_telemetry *t)
{
    if (!t)
        return;
    gp_telemetry_stop(t);
    if (t->sync_ok) {
        pthread_mutex_destroy(&t->mu);
        pthread_cond_destroy(&t->cv);
    }
    gp_nvml_close(t->nv);
    if (t->host_ok)
        gp_host_close(&t->host);
    for (int i = 0; i < t->nsrc; i++) {
        if (t->src[i].curl)
            curl_easy_cleanup(t->src[i].curl);
        gp_buf_free(&t->src[i].body);
        free(t->src[i].url);
    }
    json_decref(t->remote_summary);
    free(t->s);
    free(t->nvml_path);
    free(t);
}

const char *gp_telemetry_gpu_status(const struct gp_telemetry *t) { return t->gpu_status; }
const char *gp_telemetry_server_status(const struct gp_telemetry *t) { return t->server_status; }
int gp_telemetry_gpu_count(const struct gp_telemetry *t) { return t->ngpu; }
size_t gp_telemetry_nsamples(const struct gp_telemetry *t) { return t->n; }
const struct gp_telemetry_sample *gp_telemetry_samples(const struct gp_telemetry *t) { return t->s; }

uint64_t gp_telemetry_wall_ns(const struct gp_telemetry *t, uint64_t t_ns)
{
    return t->wall0 + (t_ns - t->mono0);
}
