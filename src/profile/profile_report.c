/* profile/profile_report.c — the last stages of `genperf profile`: metrics
 * from the recorded bytes, every artifact and the console table, then the
 * closing lines and the exit status (listed in cmd_profile.c's header).
 * Owns nothing beyond each call; struct profile_run is cmd_profile()'s.
 */
#include "profile/profile_run.h"

#include "core/fsutil.h"
#include "export/export.h"
#include "sched/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* The export's inputs, but for telemetry (added by the export stage). */
static void export_ctx(const struct profile_run *r, struct gp_export_ctx *ctx)
{
    const struct profile_config *cfg = &r->cfg;
    *ctx = (struct gp_export_ctx){
        .run_dir = r->run_dir,
        .profile_export_file = cfg->profile_export_file,
        .mode = gp_profile_mode(cfg),
        .value = !strcmp(gp_profile_mode(cfg), "request_rate") ? cfg->request_rate : (double)cfg->concurrency,
        .arrival_process = gp_profile_arrival_process(cfg),
        .burstiness = cfg->burstiness,
        .trace_file = !cfg->fixed_schedule || !cfg->input_file       ? NULL
                      : !strncmp(cfg->input_file, "payload:", 8) ? cfg->input_file + 8
                                                                 : cfg->input_file,
        .trace_speedup = cfg->trace_speedup,
        .service_kind = "openai",
        .endpoint = cfg->endpoint,
        .endpoint_type = (int)cfg->endpoint_type,
        .endpoint_type_name = gp_profile_endpoint_type_name(cfg),
        .streaming = cfg->streaming,
        .goodput = cfg->n_slos > 0,
        .input_config = r->input_config,
        .scale_out = r->scale_out,
        .models = r->models,
        .store = &r->st,
        .ds = r->ds,
        .m = &r->mr,
        .inputs_meta = r->shape.meta,
        .n_inputs_meta = r->shape.meta ? r->n_bodies : 0,
        .tokenizer_source = gp_tokenizer_source(r->tok),
        .client_busy_fraction = r->cs.busy_fraction,
        .client_busy_warn = BUSY_WARN,
        .client_run_ns = r->cs.end_ns > r->cs.start_ns ? r->cs.end_ns - r->cs.start_ns : 0,
        /* ranks may sit on other hosts: their CPU time is not this host's share */
        .client_cpu_ns = gp_profile_dist_size(r->dist) > 1 ? 0 : r->cs.cpu_ns,
        .n_sent = r->cs.n_sent,
        .n_retried = r->cs.n_retried,
        .n_warmup = r->cs.n_warmup,
        .incomplete = r->cs.incomplete,
        .budget_stopped = r->cs.budget_stopped,
        .max_memory = r->max_memory,
        .interrupted = r->cs.interrupted,
        .n_lost = r->cs.n_lost,
        .n_backoff = r->cs.n_backoff,
        .backoff_ns = r->cs.backoff_ns,
        .n_rx_kstamp = r->cs.n_rx_kstamp,
        .rx_lag_sum_ns = r->cs.rx_lag_sum_ns,
        .rx_lag_max_ns = r->cs.rx_lag_max_ns,
        .n_rx_lag_over_1ms = r->cs.n_rx_lag_over_1ms,
        .start_wall_ns = r->wall_start,
        .end_wall_ns = r->wall_end,
        .ramp_s = cfg->ramp_s,
        .cancel_rate = cfg->cancel_rate,
        .cancel_delay_s = cfg->cancel_delay_s,
        .timeslice_s = cfg->timeslice_s,
        .n_cancel_chosen = r->cs.n_cancel_chosen,
        .console = stdout,
        .console_width = 0,
        .verbose = cfg->verbose,  /* -v: GenAI-Perf's GPU telemetry tables after the table */
        .gpu_hour_cost = cfg->gpu_hour_cost,
    };
}

/* Stage 4: per-request and benchmark metrics from the recorded bytes. A
 * failure here still lets the run report its client counts. */
void gp_profile_stage_metrics(struct profile_run *r)
{
    const struct profile_config *cfg = &r->cfg;
    struct gp_slo *slos = NULL;
    if (cfg->n_slos) {
        slos = calloc(cfg->n_slos, sizeof *slos);
        for (size_t i = 0; slos && i < cfg->n_slos; i++) {
            slos[i].name = cfg->slos[i].namebuf;
            slos[i].value = cfg->slos[i].value;
        }
    }
    struct gp_metrics_opts mo = {
        .slos = slos,
        .n_slos = slos ? cfg->n_slos : 0,
        .inter_chunk = 1,
        .requests_only = cfg->endpoint_type == GP_ENDPOINT_EMBEDDINGS || cfg->endpoint_type == GP_ENDPOINT_RANKINGS,
        .responses_api = cfg->endpoint_type == GP_ENDPOINT_RESPONSES,
        .anthropic = cfg->endpoint_type == GP_ENDPOINT_ANTHROPIC,
        .response_schema = gp_profile_response_schema(cfg),
    };
    /* The raw profile export needs of the metrics only each request's
     * verdict: its writer follows the parse workers (metrics/watch.h) and the
     * disk works while they parse. */
    gp_metrics_watch_init(&r->watch);
    r->watching = 1;
    struct gp_export_ctx ctx;
    export_ctx(r, &ctx);
    ctx.watch = &r->watch;
    if (gp_export_pe_start(&ctx, &r->pe, NULL) < 0)
        r->pe = NULL; /* the export stage reports it (same directory, same error) */
    mo.watch = r->pe ? &r->watch : NULL;
    if (gp_metrics_compute(&r->st, r->ds, r->tok, &mo, &r->mr, &r->err) < 0) {
        fprintf(stderr, "%s: error: computing metrics: %s\n", r->prog, r->err.msg);
        r->export_ok = 0;
        gp_export_pe_join(r->pe, NULL); /* it gave up: no profile export without metrics */
        r->pe = NULL;
    } else {
        const struct gp_metrics_result *mr = &r->mr;
        r->metrics_ok = 1;
        r->n_ok = mr->n_ok;
        r->n_failed = mr->n_failed;
        /* reqs[] holds the non-warmup records in store order; a cancellation
         * that was asked for (--request-cancellation-rate) is no error */
        if (!r->first_error[0])
            for (size_t i = 0, j = 0; i < mr->n_reqs && j < r->st.n; i++, j++) {
                while (j < r->st.n && (r->st.recs[j].flags & GP_REC_WARMUP))
                    j++;
                if (j < r->st.n && (r->st.recs[j].flags & GP_REC_CANCEL_PLANNED))
                    continue;
                if (mr->reqs[i].fail != GP_FAIL_NONE && mr->reqs[i].err_len) {
                    int l = mr->reqs[i].err_len < 400 ? (int)mr->reqs[i].err_len : 400;
                    snprintf(r->first_error, sizeof r->first_error, "%.*s", l, mr->text + mr->reqs[i].err_off);
                    break;
                }
            }
    }
    free(slos);
}

static void write_telemetry_jsonl(const struct profile_run *r)
{
    char stem[1024], tp[8192], fn[1100];
    gp_export_stem(r->cfg.profile_export_file, stem, sizeof stem);
    snprintf(fn, sizeof fn, "%s_telemetry.jsonl", stem);
    gp_path_join(tp, sizeof tp, r->run_dir, fn);
    struct gp_error terr = {0};
    const struct gp_profile_tel_hosts *h = &r->tel_hosts;
    /* several hosts: one file, every line naming its host; else today's file */
    int rc = h->n > 1 ? gp_telemetry_write_jsonl_hosts((const struct gp_telemetry *const *)h->tel, h->host, h->n, tp,
                                                       &terr)
                      : gp_telemetry_write_jsonl(r->tel, tp, &terr);
    if (rc < 0)
        fprintf(stderr, "genperf: warning: %s\n", terr.msg);
}

/* Several hosts: "telemetry"."hosts" of <stem>_genperf.json, one summary
 * per host (with its host name and sampling rank); the top-level summary
 * stays rank 0's host, as in a single-host run. */
static void add_host_summaries(const struct profile_run *r, json_t *tsummary)
{
    const struct gp_profile_tel_hosts *h = &r->tel_hosts;
    if (h->n < 2 || !tsummary)
        return;
    json_t *arr = json_array();
    for (int i = 0; i < h->n; i++) {
        json_t *o = json_object(), *s = gp_telemetry_summary_json(h->tel[i]);
        json_object_set_new(o, "host", json_string(h->host[i]));
        json_object_set_new(o, "rank", json_integer(h->rank[i]));
        json_object_update(o, s);
        json_decref(s);
        json_array_append_new(arr, o);
    }
    json_object_set_new(tsummary, "hosts", arr);
}

/* Stage 5: every artifact GenAI-Perf writes, the console table, telemetry. */
void gp_profile_stage_export(struct profile_run *r)
{
    json_t *tstats = NULL, *tsummary = NULL, *energy = NULL;
    if (r->tel) {
        tstats = gp_telemetry_stats_json(r->tel);
        tsummary = gp_telemetry_summary_json(r->tel);
        add_host_summaries(r, tsummary);
        /* rank 0's host only under mpirun: the other hosts' GPUs are in "telemetry"."hosts" */
        energy = gp_telemetry_energy_json(r->tel);
    }
    struct gp_export_ctx ctx;
    export_ctx(r, &ctx);
    ctx.telemetry_stats = tstats;
    ctx.telemetry_summary = tsummary;
    ctx.energy = energy;
    ctx.gpu_count = energy ? (int)json_integer_value(json_object_get(energy, "gpu_count"))
                           : r->tel ? gp_telemetry_gpu_count(r->tel) : 0;
    ctx.pe = r->pe; /* joined by gp_export_all */
    r->pe = NULL;
    if (gp_export_all(&ctx, &r->err) < 0) {
        fprintf(stderr, "%s: error: writing artifacts: %s\n", r->prog, r->err.msg);
        r->export_ok = 0;
    }
    if (r->tel)
        write_telemetry_jsonl(r);
    if (r->metrics_ok)
        gp_export_energy_print(stderr, &ctx);
    if (tstats)
        json_decref(tstats);
    json_decref(tsummary);
    json_decref(energy);
}

/* Requests that failed because the client itself ran out of file
 * descriptors (EMFILE, ENFILE: "Too many open files [in system]"): the
 * server never saw them, so the load that was asked for was not applied. */
static size_t fd_failures(const struct gp_metrics_result *mr)
{
    static const char emfile[] = "Too many open files";
    size_t n = 0;
    for (size_t i = 0; i < mr->n_reqs; i++) {
        const struct gp_req_metrics *q = &mr->reqs[i];
        if (q->fail == GP_FAIL_TRANSPORT && q->err_len &&
            memmem(mr->text + q->err_off, q->err_len, emfile, sizeof emfile - 1))
            n++;
    }
    return n;
}

/* Schedule lateness, said only for an open loop (--request-rate, or a
 * --fixed-schedule trace). A closed loop's session turns carry due times too
 * (the previous answer's end + the think delay), but no arrival rate was
 * promised there, so their lag stays in *_genperf.json "schedule". The cap is
 * named only when --max-concurrency was given, and only a send later than
 * GP_SCHED_LATE_WARN_MS counts as the schedule not kept (sched.h says why). */
static void report_schedule(const struct profile_run *r)
{
    const struct profile_config *cfg = &r->cfg;
    struct gp_export_sched sch;
    if (!(cfg->request_rate > 0 || cfg->fixed_schedule) || gp_export_schedule_summary(&r->st, &sch) || !sch.present)
        return;
    size_t cap = cfg->max_concurrency > 0 ? sch.cap_delayed : 0;
    char capped[160] = "";
    if (cap)
        snprintf(capped, sizeof capped, "; %zu %s for the --max-concurrency cap (%ld in flight)", cap,
                 cap == 1 ? "request waited" : "requests waited", cfg->max_concurrency);
    if (!sch.lag.late_warn) {
        fprintf(stderr, "genperf: client: open loop kept its schedule: the latest send was %.2f ms after its due time "
                        "(none more than %.0f ms late)%s\n",
                sch.lag.max_ms, GP_SCHED_LATE_WARN_MS, capped);
        return;
    }
    fprintf(stderr, "genperf: warning: open loop fell behind its schedule: %zu of %zu %s more than %.0f ms late, "
                    "schedule lag p99 %.2f ms, worst %.2f ms%s: latency from the scheduled time is in "
                    "*_genperf.json \"schedule\"\n",
            sch.lag.late_warn, sch.lag.n, sch.lag.n == 1 ? "send" : "sends", GP_SCHED_LATE_WARN_MS, sch.lag.p99_ms,
            sch.lag.max_ms, capped);
}

/* The closing lines on stderr and the exit status. */
int gp_profile_finish(struct profile_run *r)
{
    const struct profile_config *cfg = &r->cfg;
    const struct gp_client_stats *cs = &r->cs;
    uint64_t measured = cs->n_ok + cs->n_failed;
    for (char *c = r->first_error; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    /* --request-cancellation-rate: cancelled on purpose, so counted apart
     * from the failures (and left out of --max-failure-rate's share) */
    uint64_t n_planned = 0;
    for (size_t i = 0; cfg->cancel_rate > 0 && i < r->st.n; i++)
        n_planned += (r->st.recs[i].flags & (GP_REC_CANCEL_PLANNED | GP_REC_WARMUP)) == GP_REC_CANCEL_PLANNED;
    uint64_t n_failed = r->n_failed > n_planned ? r->n_failed - n_planned : 0;
    if (n_failed && r->n_ok)
        fprintf(stderr, "genperf: %llu of %llu requests failed; first error: %s\n", (unsigned long long)n_failed,
                (unsigned long long)(r->n_ok + r->n_failed), r->first_error);
    gp_profile_report_checks(r, n_planned);
    if (cfg->cancel_rate > 0)
        fprintf(stderr, "genperf: client: %llu of %llu measured requests cancelled %g s after they were sent "
                        "(--request-cancellation-rate %g chose %llu; the rest completed first); left out of the "
                        "latency statistics, counted in _genperf.json \"cancellation\"\n",
                (unsigned long long)n_planned, (unsigned long long)(r->n_ok + r->n_failed), cfg->cancel_delay_s,
                cfg->cancel_rate, (unsigned long long)cs->n_cancel_chosen);
    if (r->metrics_ok && r->req_urls)
        gp_profile_endpoints_print(stderr, &r->st, &r->mr, (const char *const *)r->req_urls, cfg->n_urls,
                                   cfg->url_least_inflight);
    if (r->metrics_ok)
        gp_profile_models_print(stderr, &r->st, &r->mr, r->ds, cfg->models, cfg->n_models);
    size_t n_ok_no_done = 0;
    for (size_t i = 0; r->metrics_ok && i < r->mr.n_reqs; i++)
        n_ok_no_done += (r->mr.reqs[i].flags & (GP_RQ_OK | GP_RQ_NO_DONE)) == (GP_RQ_OK | GP_RQ_NO_DONE);
    if (n_ok_no_done) /* counted as GenAI-Perf counts them, but not silently */
        fprintf(stderr, "genperf: warning: %zu counted streams ended without [DONE] (on an event boundary, or after "
                        "finish_reason); records.jsonl marks them \"done\": false\n",
                n_ok_no_done);
    if (r->metrics_ok && r->mr.n_short_after_done)
        fprintf(stderr, "genperf: warning: %zu streams were complete ([DONE]) but their transfer then failed (the "
                        "connection closed short of the Content-Length, or the chunked body was cut): counted as ok, "
                        "but the server (or a proxy) frames its responses wrongly; _genperf.json "
                        "\"requests\".\"short_after_done\" counts them\n",
                r->mr.n_short_after_done);
    /* all reasoning-only: the last line says that instead (below) */
    int all_reasoning_only = r->metrics_ok && r->mr.n_ok && r->mr.reasoning.present &&
                             r->mr.reasoning.n_reasoning_only == r->mr.n_ok;
    if (r->metrics_ok && r->n_ok && r->mr.n_no_content == r->n_ok && !r->mr.stats[GP_M_REQUEST_LATENCY].present &&
        !all_reasoning_only)
        fprintf(stderr, "genperf: warning: none of the %llu completed requests carried content: no latency or token "
                        "metric was measured (request_count 0)\n",
                (unsigned long long)r->n_ok);
    fprintf(stderr,
            "genperf: client: %llu requests sent (%llu warmup, %llu stale keep-alive resends not counted); "
            "measured phase %.2f s, event loop busy %.1f%% of one core\n",
            (unsigned long long)cs->n_sent, (unsigned long long)cs->n_warmup, (unsigned long long)cs->n_retried,
            (double)(cs->end_ns - cs->start_ns) / 1e9, cs->busy_fraction * 100);
    if (r->metrics_ok) { /* the verdict that *_genperf.json "fidelity" holds */
        struct gp_export_ctx ctx;
        struct gp_fidelity_inputs fi;
        struct gp_fidelity fv;
        export_ctx(r, &ctx);
        gp_fidelity_inputs(&ctx, &fi);
        gp_fidelity_assess(&fi, &fv);
        gp_fidelity_print(stderr, &fv);
    }
    size_t n_ramp = 0;
    for (size_t i = 0; cfg->ramp_s > 0 && i < r->st.n; i++)
        n_ramp += (r->st.recs[i].flags & GP_REC_RAMP) != 0;
    if (n_ramp) /* sent, but not in Request Count: say where they went */
        fprintf(stderr, "genperf: client: %zu requests started during --ramp-up-duration %g s and are left out of the "
                        "measurement (records.jsonl marks them warmup)\n",
                n_ramp, cfg->ramp_s);
    report_schedule(r);
    if (cs->n_backoff)
        fprintf(stderr, "genperf: client: backed off %llu times (%.2f s in all) before reconnecting after "
                        "refused or reset connections\n",
                (unsigned long long)cs->n_backoff, (double)cs->backoff_ns / 1e9);
    if (cs->n_dropped)
        fprintf(stderr, "genperf: %llu %s still in flight at the end of the time-bounded run %s dropped\n",
                (unsigned long long)cs->n_dropped, cs->n_dropped == 1 ? "request" : "requests",
                cs->n_dropped == 1 ? "was" : "were");

    if (cs->interrupted) {
        fprintf(stderr, "genperf: interrupted: wrote what was measured to %s\n", r->run_dir);
        if (gp_profile_dist_size(r->dist) > 1) /* rank 0 exits 130, but mpirun has the last word */
            fprintf(stderr, "genperf: note: rank 0 exits 130; the launcher may report its own status for a job it "
                            "stopped (Open MPI's mpirun: 1)\n");
        return 130;
    }
    if (!r->export_ok)
        return 1;
    if (cs->incomplete && cs->budget_stopped && !cs->n_lost) {
        fprintf(stderr, "%s: error: memory budget reached (--max-memory %.0f MiB): sending stopped; the %llu records "
                        "kept are written to %s, marked incomplete\n",
                r->prog, (double)r->max_memory / 1048576.0, (unsigned long long)r->st.n, r->run_dir);
        return 4;
    }
    if (cs->incomplete) {
        fprintf(stderr, "%s: error: out of memory storing request records: the run stopped early (%llu finished "
                        "requests not recorded); the %llu records kept are written to %s, marked incomplete\n",
                r->prog, (unsigned long long)cs->n_lost, (unsigned long long)r->st.n, r->run_dir);
        return 4;
    }
    if (measured == 0) {
        fprintf(stderr, "%s: error: no request completed during the measurement; nothing was measured%s\n", r->prog,
                cfg->duration_s > 0 || cfg->measurement_interval_ms > 0 ? " (raise --duration / --measurement-interval)"
                                                                         : "");
        return 1;
    }
    if (r->metrics_ok && r->n_ok + r->n_failed == 0 && n_ramp) {
        /* the client counted them, the metrics left them out: nothing failed */
        fprintf(stderr, "%s: error: all %zu requests started during --ramp-up-duration %g s; nothing was measured "
                        "(raise --request-count or shorten the ramp)\n",
                r->prog, n_ramp, cfg->ramp_s);
        return 1;
    }
    if (r->n_ok == 0 && n_planned && n_failed == 0) {
        fprintf(stderr, "%s: error: all %llu requests were cancelled by --request-cancellation-rate %g (after %g s): "
                        "nothing was measured (lower the rate or raise --request-cancellation-delay)\n",
                r->prog, (unsigned long long)n_planned, cfg->cancel_rate, cfg->cancel_delay_s);
        return 1;
    }
    if (r->n_ok == 0) {
        fprintf(stderr, "%s: error: all %llu requests to %s failed: %s%s\n", r->prog, (unsigned long long)measured,
                r->req_url, r->first_error,
                cfg->http2 ? " (--http2 speaks HTTP/2 with prior knowledge: the server must support it)" : "");
        return 1;
    }
    size_t n_fd = r->metrics_ok ? fd_failures(&r->mr) : 0;
    if (n_fd) {
        struct rlimit rl = {0};
        getrlimit(RLIMIT_NOFILE, &rl);
        /* without --max-failure-rate nothing else would say that this run
         * did not measure what was asked; with it, the share decides */
        fprintf(stderr, "%s: %s: %zu of %llu requests failed in the client: it ran out of file descriptors (Too many "
                        "open files; limit %llu): the load asked for was not applied (raise the limit with ulimit -n%s)\n",
                r->prog, cfg->max_failure_rate < 0 ? "error" : "warning", n_fd, (unsigned long long)measured,
                (unsigned long long)rl.rlim_cur, cfg->request_rate > 0 ? ", or cap with --max-concurrency" : "");
        if (cfg->max_failure_rate < 0)
            return 1;
    }
    if (cfg->max_failure_rate >= 0 && (double)n_failed > cfg->max_failure_rate * (double)(r->n_ok + n_failed)) {
        fprintf(stderr, "%s: error: %llu of %llu requests failed (%.1f%%), more than --max-failure-rate %g allows\n",
                r->prog, (unsigned long long)n_failed, (unsigned long long)(r->n_ok + n_failed),
                100.0 * (double)n_failed / (double)(r->n_ok + n_failed), cfg->max_failure_rate);
        return 3;
    }
    if (all_reasoning_only)
        gp_profile_reasoning_only_last_line(stderr, &r->mr);
    return 0;
}

