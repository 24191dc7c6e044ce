/* export/genperf_json.c — <stem>_genperf.json, ours: counts, provenance,
 * token-count sources, inter-chunk latency, window, client health. Built as a
 * json_t and dumped as Python's json.dumps(indent=2) like GenAI-Perf's file. */
#include "client/record.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/pytext.h"
#include "core/version.h"
#include "export/export.h"
#include "export/export_int.h"
#include "export/prefix_cache.h"
#include "metrics/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *stats_json(const struct gp_stats *s, const char *unit)
{
    static const char *const pk[GP_NPCT] = {"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"};
    if (!s->present)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "unit", json_string(unit));
    json_object_set_new(o, "count", json_integer((json_int_t)s->n));
    json_object_set_new(o, "avg", json_real(s->avg));
    for (int i = 0; i < GP_NPCT; i++)
        json_object_set_new(o, pk[i], json_real(s->p[i]));
    json_object_set_new(o, "min", json_real(s->min));
    json_object_set_new(o, "max", json_real(s->max));
    json_object_set_new(o, "std", json_real(s->std));
    return o;
}

static json_t *num_or_null(double v) { return v < 0 ? json_null() : json_real(v); }

/* the run: wall-clock span, host, load mode, endpoint */
static void add_run(json_t *o, const struct gp_export_ctx *ctx)
{
    const struct gp_record_store *st = ctx->store;
    uint64_t t0 = ctx->start_wall_ns, t1 = ctx->end_wall_ns;
    if (!t0)
        t0 = st->wall0_ns;
    if (!t1) {
        uint64_t mx = st->mono0_ns;
        for (size_t i = 0; i < st->n; i++)
            if (st->recs[i].t_end_ns > mx)
                mx = st->recs[i].t_end_ns;
        t1 = gp_record_wall_ns(st, mx);
    }
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) == 0 && host[0])
        json_object_set_new(o, "host", json_string(host));
    json_object_set_new(o, "start_wall_ns", json_integer((json_int_t)t0));
    json_object_set_new(o, "end_wall_ns", json_integer((json_int_t)t1));
    json_object_set_new(o, "mode", json_string(ctx->mode ? ctx->mode : "concurrency"));
    if (ctx->mode && strcmp(ctx->mode, "request_rate") == 0)
        json_object_set_new(o, "value", json_real(ctx->value));
    else
        json_object_set_new(o, "value", json_integer((json_int_t)ctx->value));
    if (ctx->arrival_process) { /* only for a rate run: others keep their bytes */
        json_t *a = json_pack("{s:s}", "process", ctx->arrival_process);
        if (a && !strcmp(ctx->arrival_process, "gamma"))
            json_object_set_new(a, "burstiness", json_real(ctx->burstiness));
        json_object_set_new(o, "arrivals", a);
    }
    if (ctx->trace_file) /* a trace replay: neither a concurrency nor a rate says its load */
        json_object_set_new(o, "trace", json_pack("{s:s, s:f}", "file", ctx->trace_file, "speedup",
                                                  ctx->trace_speedup > 0 ? ctx->trace_speedup : 1.0));
    json_object_set_new(o, "endpoint", json_string(ctx->endpoint ? ctx->endpoint : "v1/chat/completions"));
    json_object_set_new(o, "streaming", json_boolean(ctx->streaming));
}

/* request counts, failure kinds, HTTP error statuses */
static void add_counts(json_t *o, const struct gp_export_ctx *ctx)
{
    const struct gp_metrics_result *m = ctx->m;
    const struct gp_record_store *st = ctx->store;
    size_t nwarm = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->recs[i].flags & GP_REC_WARMUP)
            nwarm++;
    json_t *rq = json_object();
    json_object_set_new(rq, "measured", json_integer((json_int_t)m->n_reqs));
    json_object_set_new(rq, "ok", json_integer((json_int_t)m->n_ok));
    json_object_set_new(rq, "failed", json_integer((json_int_t)m->n_failed));
    json_object_set_new(rq, "counted", json_integer((json_int_t)m->stats[GP_M_REQUEST_COUNT].n));
    json_object_set_new(rq, "ok_without_content", json_integer((json_int_t)m->n_no_content));
    json_object_set_new(rq, "warmup", json_integer((json_int_t)(ctx->n_warmup ? ctx->n_warmup : nwarm)));
    json_object_set_new(rq, "sent", json_integer((json_int_t)(ctx->n_sent ? ctx->n_sent : st->n)));
    json_object_set_new(rq, "retried_stale_connection", json_integer((json_int_t)ctx->n_retried));
    json_object_set_new(rq, "streams_without_done", json_integer((json_int_t)m->n_no_done));
    json_object_set_new(rq, "osl_mismatch", json_integer((json_int_t)m->n_osl_mismatch));
    json_object_set_new(rq, "with_server_usage", json_integer((json_int_t)m->n_with_usage));
    json_object_set_new(rq, "malformed_events", json_integer((json_int_t)m->n_bad_events));
    json_object_set_new(rq, "bad_usage", json_integer((json_int_t)m->n_bad_usage));
    if (m->n_short_after_done) /* only when seen: other runs keep their bytes */
        json_object_set_new(rq, "short_after_done", json_integer((json_int_t)m->n_short_after_done));
    json_object_set_new(o, "requests", rq);
    if (m->structured.present) { /* only with a schema sent: other runs keep their bytes */
        json_t *so = json_object();
        json_object_set_new(so, "requests", json_integer((json_int_t)m->structured.requests));
        json_object_set_new(so, "invalid_json", json_integer((json_int_t)m->structured.invalid_json));
        json_object_set_new(so, "schema_mismatch", json_integer((json_int_t)m->structured.schema_mismatch));
        json_object_set_new(o, "structured_output", so);
    }
    if (ctx->interrupted) /* only then: runs that ended by themselves keep their bytes */
        json_object_set_new(o, "interrupted", json_true());
    if (ctx->incomplete) { /* only then: complete runs keep their bytes */
        json_object_set_new(o, "incomplete", json_true());
        json_object_set_new(o, "incomplete_reason", json_string(ctx->budget_stopped ? "memory_budget" : "out_of_memory"));
        if (ctx->max_memory)
            json_object_set_new(o, "max_memory_bytes", json_integer((json_int_t)ctx->max_memory));
        json_object_set_new(rq, "lost_out_of_memory", json_integer((json_int_t)ctx->n_lost));
    }

    json_t *fk = json_object();
    for (int k = 1; k < GP_FAIL__COUNT; k++)
        json_object_set_new(fk, gp_fail_kind_name(k), json_integer((json_int_t)m->fail_counts[k]));
    json_object_set_new(o, "failures", fk);
    /* status histogram of failed HTTP answers */
    json_t *hs = json_object();
    for (size_t i = 0; i < m->n_reqs; i++) {
        if (m->reqs[i].fail != GP_FAIL_HTTP)
            continue;
        char key[16];
        snprintf(key, sizeof key, "%d", m->reqs[i].http_status);
        json_t *c = json_object_get(hs, key);
        json_object_set_new(hs, key, json_integer(c ? json_integer_value(c) + 1 : 1));
    }
    json_object_set_new(o, "http_error_statuses", hs);
}

/* Queue-to-send lag over measured requests: how long a request waited after
 * its start stamp before libcurl began sending it (a late event loop, a
 * connection being set up). TTFT keeps GenAI-Perf's origin; this says how
 * much of it the client added. */
static void add_send_lag(json_t *cl, const struct gp_record_store *st)
{
    uint64_t n = 0, sum = 0, max = 0;
    for (size_t i = 0; i < st->n; i++) {
        const struct gp_record *r = &st->recs[i];
        if ((r->flags & GP_REC_WARMUP) || !r->t_send_ns || r->t_send_ns < r->t_start_ns)
            continue;
        uint64_t d = r->t_send_ns - r->t_start_ns;
        n++;
        sum += d;
        if (d > max)
            max = d;
    }
    json_t *l = json_object();
    json_object_set_new(l, "requests", json_integer((json_int_t)n));
    json_object_set_new(l, "avg_ms", n ? json_real((double)sum / (double)n / 1e6) : json_null());
    json_object_set_new(l, "max_ms", n ? json_real((double)max / 1e6) : json_null());
    json_object_set_new(cl, "queue_to_send_lag", l);
}

/* Where chunk stamps came from. "kernel": the built-in HTTP/1.1 client took
 * each read's time from the socket (SO_TIMESTAMPNS), so TTFT and ITL leave
 * out how long the loop took to get to the read; recv_lag says how long that
 * was (the client's own receive lateness). "recv": stamped when the read
 * returned (libcurl, or GENPERF_RX_STAMP=user). */
static void add_receive_stamp(json_t *cl, const struct gp_export_ctx *ctx)
{
    uint64_t n = ctx->n_rx_kstamp;
    json_object_set_new(cl, "receive_stamp", json_string(n ? "kernel" : "recv"));
    json_t *l = json_object();
    json_object_set_new(l, "reads", json_integer((json_int_t)n));
    json_object_set_new(l, "avg_us", n ? json_real((double)ctx->rx_lag_sum_ns / (double)n / 1e3) : json_null());
    json_object_set_new(l, "max_us", n ? json_real((double)ctx->rx_lag_max_ns / 1e3) : json_null());
    json_object_set_new(l, "reads_over_1ms", json_integer((json_int_t)ctx->n_rx_lag_over_1ms));
    json_object_set_new(cl, "recv_lag", l);
}

/* where ISL and OSL came from (client tokenizer or server usage) */
static void add_token_sources(json_t *o, const struct gp_export_ctx *ctx)
{
    const struct gp_metrics_result *m = ctx->m;
    size_t from_server = 0;
    for (size_t i = 0; i < m->n_reqs; i++)
        if (m->reqs[i].flags & GP_RQ_OSL_FROM_SERVER)
            from_server++;
    json_t *isl = json_object();
    json_object_set_new(isl, "client_avg", num_or_null(m->isl_client_avg));
    json_object_set_new(isl, "server_prompt_tokens_avg", num_or_null(m->isl_server_avg));
    json_object_set_new(isl, "client_source", json_string("tokenizer: prompt message contents joined by spaces, "
                                                          "no chat template (GenAI-Perf)"));
    json_object_set_new(isl, "server_source", json_string("usage.prompt_tokens (includes the chat template)"));
    json_object_set_new(o, "isl", isl);
    json_t *osl = json_object();
    const struct gp_stats *os = &m->stats[GP_M_OSL];
    json_object_set_new(osl, "client_avg", os->present ? json_real(os->avg) : json_null());
    json_object_set_new(osl, "server_completion_tokens_avg", num_or_null(m->osl_server_avg));
    json_object_set_new(osl, "source", json_string(from_server == 0 ? "tokenizer"
                                                   : from_server == m->n_reqs ? "server usage.completion_tokens"
                                                                              : "mixed"));
    json_object_set_new(osl, "requests_counted_by_server", json_integer((json_int_t)from_server));
    json_object_set_new(o, "osl", osl);
    json_object_set_new(o, "tokenizer_source", ctx->tokenizer_source ? json_string(ctx->tokenizer_source) : json_null());
}

/* d[k] of d sorted ascending, in O(n): quickselect with a three-way
 * partition (the differences are mostly one value: an all-equal array is one
 * pass). Reorders d. A million-request run sorted them with qsort before. */
static long select_long(long *d, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* the answer is in d[lo, hi) */
    while (hi - lo > 1) {
        long a = d[lo], b = d[lo + (hi - lo) / 2], c = d[hi - 1];
        long pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)); /* median of 3 */
        size_t lt = lo, i = lo, gt = hi; /* [lo,lt) < pivot, [lt,i) == pivot, [gt,hi) > pivot */
        while (i < gt) {
            long x = d[i];
            if (x < pivot) {
                d[i++] = d[lt];
                d[lt++] = x;
            } else if (x > pivot) {
                d[i] = d[--gt];
                d[gt] = x;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
    return d[lo];
}

/* Client vs server token counts, request by request (ok requests whose
 * response carried usage). ISL: the server also counts the chat template,
 * so the overhead is measured as the median of prompt_tokens - ISL, and a
 * request disagrees when its difference is not that overhead. OSL: the
 * client's tokenizer count (content + reasoning text, as completion_tokens
 * counts both) against usage.completion_tokens. NULL when no
 * request carried usage (GenAI-Perf's default body asks for none). */
static json_t *token_accounting(const struct gp_metrics_result *m)
{
    long *d = malloc((m->n_reqs ? m->n_reqs : 1) * sizeof *d);
    if (!d)
        return NULL;
    size_t n = 0, no = 0, osl_bad = 0;
    long osl_max = 0;
    double osl_sum = 0;
    for (size_t i = 0; i < m->n_reqs; i++) {
        const struct gp_req_metrics *r = &m->reqs[i];
        if (!(r->flags & GP_RQ_OK) || r->server_prompt_tokens < 0 || r->isl < 0)
            continue;
        d[n++] = (long)r->server_prompt_tokens - r->isl;
        if (r->server_completion_tokens >= 0 && !(r->flags & GP_RQ_OSL_FROM_SERVER) && r->osl >= 0) {
            /* OpenAI's completion_tokens include the reasoning tokens; OSL is content only */
            long od = (long)r->server_completion_tokens - r->osl - r->reasoning_tokens;
            no++;
            osl_sum += (double)od;
            if (od) {
                osl_bad++;
                if (labs(od) > osl_max)
                    osl_max = labs(od);
            }
        }
    }
    if (!n) {
        free(d);
        return NULL;
    }
    long overhead = select_long(d, n, n / 2), isl_max = 0;
    size_t isl_bad = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i] != overhead) {
            isl_bad++;
            if (labs(d[i] - overhead) > isl_max)
                isl_max = labs(d[i] - overhead);
        }
    free(d);
    json_t *o = json_object(), *isl = json_object(), *osl = json_object();
    json_object_set_new(o, "requests_with_server_usage", json_integer((json_int_t)n));
    json_object_set_new(isl, "compared", json_integer((json_int_t)n));
    json_object_set_new(isl, "template_overhead_tokens", json_integer(overhead));
    json_object_set_new(isl, "overhead_method", json_string("median of usage.prompt_tokens - ISL over the compared requests"));
    json_object_set_new(isl, "disagree", json_integer((json_int_t)isl_bad));
    json_object_set_new(isl, "max_abs_deviation_tokens", json_integer(isl_max));
    json_object_set_new(o, "isl_vs_prompt_tokens", isl);
    json_object_set_new(osl, "compared", json_integer((json_int_t)no));
    json_object_set_new(osl, "disagree", json_integer((json_int_t)osl_bad));
    json_object_set_new(osl, "max_abs_difference_tokens", json_integer(osl_max));
    json_object_set_new(osl, "mean_difference_tokens", no ? json_real(osl_sum / (double)no) : json_null());
    json_object_set_new(o, "osl_vs_completion_tokens", osl);
    return o;
}

/* Reasoning models: our figures beside GenAI-Perf's content-only TTFT/OSL
 * (which do not change), and the answers its statistics leave out because
 * they never reached content. Absent when no ok request carried reasoning
 * text. */
static json_t *reasoning_json(const struct gp_metrics_result *m)
{
    const struct gp_reasoning_summary *rs = &m->reasoning;
    if (!rs->present)
        return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "requests", json_integer((json_int_t)rs->n_requests));
    json_object_set_new(o, "requests_with_reasoning", json_integer((json_int_t)rs->n_with_reasoning));
    json_object_set_new(o, "requests_reasoning_only", json_integer((json_int_t)rs->n_reasoning_only));
    json_object_set_new(o, "time_to_first_reasoning_token", stats_json(&rs->ttfr, "ms"));
    json_object_set_new(o, "reasoning_tokens_per_request", stats_json(&rs->tokens, "tokens"));
    json_object_set_new(o, "reasoning_tokens_total", json_integer((json_int_t)rs->reasoning_tokens_total));
    json_object_set_new(o, "reasoning_token_throughput", num_or_null(rs->reasoning_token_throughput));
    json_object_set_new(o, "total_output_token_throughput", num_or_null(rs->total_output_token_throughput));
    json_object_set_new(o, "definitions",
                        json_string("TTFR = first reasoning chunk - request start; reasoning tokens = client "
                                    "tokenizer on the reasoning text; total output throughput = (OSL + reasoning "
                                    "tokens) / benchmark window. time_to_first_token and output_sequence_length "
                                    "stay GenAI-Perf's (content only); requests = those in its statistics; "
                                    "requests_reasoning_only = ok answers with reasoning but no content, which "
                                    "it leaves out (in requests.ok_without_content)"));
    return o;
}

int gp_export_genperf_json(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err)
{
    const struct gp_metrics_result *m = ctx->m;
    const struct gp_record_store *st = ctx->store;
    json_t *o = json_object();
    json_object_set_new(o, "genperf_version", json_string(GP_VERSION));
    json_object_set_new(o, "genai_perf_compat_version", json_string(GP_GENAI_PERF_COMPAT_VERSION));
    add_run(o, ctx);
    add_counts(o, ctx);
    add_token_sources(o, ctx);
    json_t *ta = token_accounting(m);
    if (ta)
        json_object_set_new(o, "token_accounting", ta);
    json_t *rj = reasoning_json(m);
    if (rj)
        json_object_set_new(o, "reasoning", rj);
    json_object_set_new(o, "inter_chunk_latency", stats_json(&m->inter_chunk, "ms"));
    /* only when the server put other than one token in a chunk: runs
     * without keep their bytes (GenAI-Perf's ITL stays per request) */
    if (m->tokens_per_chunk_multi)
        json_object_set_new(o, "tokens_per_chunk", stats_json(&m->tokens_per_chunk, "tokens"));
    json_t *win = json_object();
    if (m->window_end_ns) {
        json_object_set_new(win, "start_wall_ns", json_integer((json_int_t)gp_record_wall_ns(st, m->window_start_ns)));
        json_object_set_new(win, "end_wall_ns", json_integer((json_int_t)gp_record_wall_ns(st, m->window_end_ns)));
    }
    json_object_set_new(win, "duration_s", json_real(m->duration_s));
    json_object_set_new(o, "window", win);
    json_t *cl = json_object();
    double warn_at = ctx->client_busy_warn > 0 ? ctx->client_busy_warn : 0.8;
    json_object_set_new(cl, "busy_fraction", num_or_null(ctx->client_busy_fraction));
    json_object_set_new(cl, "busy_warn_threshold", json_real(warn_at));
    json_object_set_new(cl, "busy_warning", json_boolean(ctx->client_busy_fraction >= warn_at));
    add_send_lag(cl, st);
    add_receive_stamp(cl, ctx);
    if (ctx->n_backoff) { /* only then: runs without connection failures keep their bytes */
        json_t *bo = json_object();
        json_object_set_new(bo, "count", json_integer((json_int_t)ctx->n_backoff));
        json_object_set_new(bo, "total_ms", json_real((double)ctx->backoff_ns / 1e6));
        json_object_set_new(bo, "policy", json_string("after a refused/reset connection: 10 ms doubling to 1 s "
                                                      "per slot, uniform jitter in [d/2, d]"));
        json_object_set_new(cl, "backoff", bo);
    }
    json_object_set_new(o, "client", cl);
    if (ctx->client_busy_fraction >= 0) { /* a merge of exports (pef) knows nothing of its clients */
        struct gp_fidelity_inputs fi;
        struct gp_fidelity fv;
        gp_fidelity_inputs(ctx, &fi);
        gp_fidelity_assess(&fi, &fv);
        json_object_set_new(o, "fidelity", gp_fidelity_json(&fi, &fv));
    }
    if (ctx->scale_out)
        json_object_set(o, "scale_out", (json_t *)ctx->scale_out);
    if (ctx->models)
        json_object_set(o, "models", (json_t *)ctx->models);
    json_t *sched = gp_export_schedule_json(ctx);
    json_object_set_new(o, "schedule", sched ? sched : json_null());
    if (ctx->ramp_s > 0) { /* only then: runs without a ramp keep their bytes */
        size_t nr = 0;
        for (size_t i = 0; i < st->n; i++)
            nr += (st->recs[i].flags & GP_REC_RAMP) != 0;
        json_t *ramp = json_object();
        json_object_set_new(ramp, "seconds", json_real(ctx->ramp_s));
        json_object_set_new(ramp, "excluded_requests", json_integer((json_int_t)nr));
        json_object_set_new(ramp, "note", json_string("requests started during the ramp are left out of every "
                                                      "metric (as warmup)"));
        json_object_set_new(o, "ramp", ramp);
    }
    if (ctx->cancel_rate > 0) { /* only then: runs without it keep their bytes */
        size_t nc = 0;
        for (size_t i = 0; i < st->n; i++)
            nc += (st->recs[i].flags & (GP_REC_CANCEL_PLANNED | GP_REC_WARMUP)) == GP_REC_CANCEL_PLANNED;
        json_t *c = json_object();
        json_object_set_new(c, "rate_percent", json_real(ctx->cancel_rate));
        json_object_set_new(c, "delay_s", json_real(ctx->cancel_delay_s));
        json_object_set_new(c, "chosen", json_integer((json_int_t)ctx->n_cancel_chosen));
        json_object_set_new(c, "cancelled", json_integer((json_int_t)nc));
        json_object_set_new(c, "completed_before_delay",
                            json_integer((json_int_t)(ctx->n_cancel_chosen > nc ? ctx->n_cancel_chosen - nc : 0)));
        json_object_set_new(o, "cancellation", c);
    }
    json_t *pc = gp_export_prefix_cache_json(ctx); /* only when there is one: other runs keep their bytes */
    if (pc)
        json_object_set_new(o, "prefix_cache", pc);
    /* only then: runs without --timeslice-duration keep their bytes */
    int trc = ctx->timeslice_s > 0 ? gp_export_timeslices(ctx, o) : 0;
    if (ctx->telemetry_summary)
        json_object_set(o, "telemetry", (json_t *)ctx->telemetry_summary);
    json_t *en = gp_export_energy_json(ctx), *cost = gp_export_cost_json(ctx);
    if (en) /* only with GPU telemetry / --gpu-hour-cost: other runs keep their bytes */
        json_object_set_new(o, "energy", en);
    if (cost)
        json_object_set_new(o, "cost", cost);
    json_t *names = json_object();
    json_object_set_new(names, "inter_token_latency", json_string("(latency - TTFT) / (OSL - 1): vLLM/SGLang TPOT, AIPerf ITL"));
    json_object_set_new(names, "inter_chunk_latency", json_string("gaps between content chunks: vLLM/SGLang ITL, AIPerf ICL"));
    json_object_set_new(o, "metric_names", names);

    struct gp_buf b = {0};
    int rc = trc ? -1 : gp_json_dump(&b, o, 2, 0, GP_JSON_PYTHON);
    json_decref(o);
    if (!rc)
        rc = gp_buf_putc(&b, '\n');
    return gp_export_write_buf(path, &b, rc, err);
}
