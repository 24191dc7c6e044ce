/* profile/cmd_profile.c — `genperf profile` (alias `genai-perf profile`): parse,
 * load the tokenizer, build the dataset, run the client, hand the records to
 * metrics/export, choose the exit status.
 *
 * Owns everything it creates here (config, tokenizer, dataset, record store,
 * telemetry sampler, signalfd) and frees it on every path before returning.
 *
 * Ctrl-C: SIGINT/SIGTERM are blocked for the whole command and read through a
 * signalfd that the client polls next to its sockets, so no signal handler
 * and no global flag are needed; the first signal stops sending and gives
 * in-flight requests a short grace, a second one cancels them at once. What
 * was measured is written and the exit status is 130.
 *
 * Exit status: 0 run completed (some requests may have failed: they are
 * counted in the artifacts); 1 configuration error or invalid run (nothing
 * measured, every request failed, artifacts could not be written, or
 * without --max-failure-rate: requests failed because the client ran out of
 * file descriptors, so the load asked for was not applied); 2 usage
 * error (argparse-style message); 3 the failed share passed
 * --max-failure-rate; 4 incomplete (the --max-memory budget was reached or
 * records could not be stored: the ones kept are written); 130 interrupted.
 */
#include "commands.h"
#include "profile/profile_config.h"
#include "profile/profile_dist.h"
#include "profile/profile_run.h"
#include "profile/profile_runs.h"
#include "client/client.h"
#include "client/record.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "dataset/dataset.h"
#include "dist/dist.h"
#include "tokenizer/tokenizer.h"

#include "export/export.h"
#include "metrics/metrics.h"
#include "telemetry/telemetry.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>


static const char *prog_name(void)
{
    extern char *program_invocation_short_name;
    return !strcmp(program_invocation_short_name, "genai-perf") ? "genai-perf profile" : "genperf profile";
}

/* Joins base URL and endpoint the way perf_analyzer does (url + "/" +
 * endpoint), except that trailing slashes of the base are dropped so that
 * "http://h:8000/" does not become "http://h:8000//v1/...". */
static int build_request_url(const struct profile_config *cfg, char *out, size_t outsz, struct gp_error *err)
{
    size_t n = strlen(cfg->url);
    while (n > 0 && cfg->url[n - 1] == '/')
        n--;
    int w = snprintf(out, outsz, "%.*s/%s", (int)n, cfg->url, cfg->endpoint);
    if (w < 0 || (size_t)w >= outsz)
        return gp_err(err, GP_EINVAL, "--url: '%s' is too long", cfg->url);
    return 0;
}

static int check_signal(int sfd)
{
    if (sfd < 0)
        return 0;
    struct signalfd_siginfo si;
    return read(sfd, &si, sizeof si) == (ssize_t)sizeof si;
}

static void print_warnings(const struct profile_config *cfg)
{
    if (cfg->n_passthrough)
        fprintf(stderr, "genperf: warning: %d argument(s) after '--' are perf_analyzer options; genperf ignores them\n",
                cfg->n_passthrough);
    if (!cfg->endpoint_type_given)
        fprintf(stderr, "genperf: note: --endpoint-type not given; GenAI-Perf would default to kserve (Triton gRPC), "
                        "which genperf does not speak: using chat\n");
    if (cfg->trust_remote_code)
        fprintf(stderr, "genperf: warning: --tokenizer-trust-remote-code is enabled. Custom tokenizer code can be "
                        "executed. This should only be used with repositories you trust.\n");
    if (cfg->generate_plots)
        fprintf(stderr, "genperf: warning: --generate-plots is not supported; use 'genperf report' for charts\n");
    if (cfg->enable_checkpointing)
        fprintf(stderr, "genperf: warning: --enable-checkpointing is accepted and ignored\n");
    if (cfg->insecure)
        fprintf(stderr, "genperf: warning: --insecure: the server's TLS certificate and host name are not verified\n");
    gp_profile_url_note(stderr, cfg);
    gp_profile_extra_input_notes(stderr, cfg);
}

/* Everything one `profile` run holds, stage to stage; freed by run_free. */

/* A stage returns CONTINUE, or the exit status to stop with. */
#define CONTINUE (-1)

static int fail(struct profile_run *r, const char *what)
{
    fprintf(stderr, "%s: error: %s%s\n", r->prog, what ? what : "", r->err.msg);
    return 1;
}

/* A step of the MPI job failed: every rank got the same line, rank 0 prints
 * it. MPI itself failing (GP_ENET) may leave ranks stuck in a collective:
 * end the job. */
static int dist_fail(struct profile_run *r)
{
    if (gp_profile_dist_rank(r->dist) == 0)
        fail(r, NULL);
    if (r->err.code == GP_ENET)
        gp_profile_dist_abort(r->dist, 1);
    return 1;
}

/* mpirun -n K: rank 0 has loaded and built the dataset (or stopped with
 * `status`); every rank learns which, and ranks > 0 get the config and
 * bodies (profile_dist.c). */
static int stage_dist_setup(struct profile_run *r, int status)
{
    if (gp_profile_dist_setup(r->dist, &status, CONTINUE, &r->cfg, r->prog, &r->bodies, &r->n_bodies, &r->shape,
                              &r->err) < 0)
        return dist_fail(r);
    if (status == CONTINUE && gp_profile_dist_rank(r->dist) != 0 &&
        build_request_url(&r->cfg, r->req_url, sizeof r->req_url, &r->err) < 0)
        return 1; /* cannot happen: rank 0 built it from the same --url */
    return status;
}

static void warn_url_with_path(const struct profile_config *cfg, const char *req_url)
{
    /* GenAI-Perf appends the endpoint to --url verbatim: a full endpoint URL
     * given as --url doubles the path and gets 404s. */
    size_t ul = strlen(cfg->url), el = strlen(cfg->endpoint);
    const char *tail = cfg->url + (ul > el ? ul - el : 0);
    if ((ul > el && !strcmp(tail, cfg->endpoint)) || (ul >= 3 && !strcmp(cfg->url + ul - 3, "/v1")))
        fprintf(stderr, "genperf: warning: --url %s looks like it includes the API path; requests go to %s "
                        "(--url is the base URL, e.g. http://127.0.0.1:8000)\n",
                cfg->url, req_url);
}

static void print_models(const struct profile_config *cfg)
{
    if (strchr(cfg->models[0], '/')) {
        char name[1024];
        snprintf(name, sizeof name, "%s", cfg->models[0]);
        for (char *c = name; *c; c++)
            if (*c == '/')
                *c = '_';
        fprintf(stderr, "genperf: Model name '%s' cannot be used to create artifact directory. Instead, '%s' will be used.\n",
                cfg->models[0], name);
    }
    fprintf(stderr, "genperf: Profiling these models:");
    for (size_t i = 0; i < cfg->n_models; i++)
        fprintf(stderr, "%s %s", i ? "," : "", cfg->models[i]);
    fputc('\n', stderr);
}

/* Stage 1: command line, run directory name, tokenizer. */
static int stage_load(struct profile_run *r, int argc, char **argv)
{
    struct profile_config *cfg = &r->cfg;
    if (gp_profile_parse(cfg, argc, argv, r->prog, &r->err) < 0) {
        if (cfg->usage_error)
            gp_profile_usage(stderr, r->prog, 0);
        fail(r, NULL);
        return cfg->usage_error ? 2 : 1;
    }
    if (cfg->help) {
        gp_profile_usage(stdout, r->prog, 1);
        return 0;
    }
    if (cfg->num_runs > 1) {
        /* each run is a child profile: one process per run, and runs of
         * an MPI job would each need their own mpirun */
        if (gp_profile_dist_size(r->dist) > 1) {
            gp_profile_usage(stderr, r->prog, 0);
            fprintf(stderr, "%s: error: --num-runs %ld cannot run under mpirun: run mpirun once per run, each with "
                            "its own --artifact-dir DIR/run_K, and 'genperf compare' reads DIR as repeats\n",
                    r->prog, cfg->num_runs);
            return 2;
        }
        return gp_profile_repeat(cfg, r->prog, r->sfd, argc, argv, &r->err);
    }
    if (gp_profile_protect_secrets(cfg, getenv("GENPERF_API_KEY"), &r->err) < 0)
        return fail(r, NULL);
    if (gp_client_transport_check(getenv("GENPERF_TRANSPORT"), &r->err) < 0)
        return fail(r, NULL);
    if (gp_client_rx_stamp_check(getenv("GENPERF_RX_STAMP"), &r->err) < 0)
        return fail(r, NULL);
    for (size_t i = 0; i < cfg->n_metrics_urls; i++)
        if (gp_telemetry_check_url(cfg->metrics_urls[i], &r->err) < 0)
            return fail(r, "--server-metrics-url: ");
    gp_profile_default_cacert(cfg);
    print_warnings(cfg);
    if (build_request_url(cfg, r->req_url, sizeof r->req_url, &r->err) < 0)
        return fail(r, NULL);
    warn_url_with_path(cfg, r->req_url);
    if (gp_profile_run_dir(cfg, r->run_dir, sizeof r->run_dir) < 0) {
        fprintf(stderr, "%s: error: run directory name too long (--artifact-dir / -m)\n", r->prog);
        return 1;
    }
    print_models(cfg);
    gp_profile_arrivals_note(cfg, stderr);
    struct gp_tokenizer_opts topts = {.revision = cfg->tokenizer_revision, .offline = cfg->offline};
    if (gp_tokenizer_load(cfg->tokenizer, &topts, &r->tok, &r->err) < 0) {
        fprintf(stderr, "%s: error: --tokenizer %s: %s\n", r->prog, cfg->tokenizer, r->err.msg);
        return 1;
    }
    return check_signal(r->sfd) ? 130 : CONTINUE;
}

/* Stage 2: the request bodies, inputs.json, a clean run directory. */
/* inputs.json; for synthetic sessions with GenAI-Perf's per-turn metadata:
 * "session_id" on every turn, "delay" (ms after this turn's response) on all
 * but a session's last turn. */
static int write_inputs(struct profile_run *r, const struct gp_session_plan *sp, const char *path)
{
    if (!sp || sp->nturns != r->ds->n)
        return gp_dataset_write_inputs_json(r->ds, path, &r->err);
    struct gp_inputs_meta *meta;
    char (*ids)[37];
    if (gp_profile_session_meta(sp, r->cfg.seed, &meta, &ids, &r->err) < 0)
        return -1;
    int rc = gp_dataset_write_inputs_json_meta(r->ds, meta, path, &r->err);
    free(meta);
    free(ids);
    return rc;
}

static int stage_dataset(struct profile_run *r)
{
    const struct profile_config *cfg = &r->cfg;
    struct gp_dataset_opts dopts = {
        .models = cfg->models,
        .n_models = cfg->n_models,
        .model_random = cfg->model_random,
        .model_weights = cfg->model_weights,
        .endpoint_type = cfg->endpoint_type,
        .streaming = cfg->streaming,
        .server_usage = cfg->server_usage,
        .isl_mean = cfg->isl_mean,
        .isl_stddev = cfg->isl_stddev,
        .osl_mean = cfg->osl_mean,
        .osl_stddev = cfg->osl_stddev,
        .osl_deterministic = cfg->osl_deterministic,
        .num_entries = cfg->num_entries,
        .seed = cfg->seed,
        .input_file = cfg->input_file,
        .num_prefix_prompts = cfg->num_prefix_prompts,
        .prefix_prompt_length = cfg->prefix_prompt_length,
        .extra_inputs = cfg->extra_inputs,
        .batch_size_text = cfg->batch_size,
        .batch_size_image = cfg->batch_size_image,
        .batch_size_audio = cfg->batch_size_audio,
    };
    gp_profile_media_opts(cfg, &dopts.image, &dopts.audio);
    /* Synthetic sessions: one dataset entry per turn, as GenAI-Perf's
     * synthetic retriever makes them (turn k of session s is entry first[s]+k). */
    struct gp_session_plan *sp = NULL;
    if (cfg->sessions.num_sessions > 0) {
        if (gp_session_plan_build(&cfg->sessions, &sp, &r->err) < 0)
            return fail(r, NULL);
        dopts.num_entries = (long)sp->nturns;
    }
    dopts.shared_prefix_ratio = cfg->shared_prefix_ratio;
    dopts.cache_bust = cfg->cache_bust;
    uint32_t *groups = gp_profile_prefix_groups(cfg, sp, &dopts.n_prefix_groups);
    if (cfg->shared_prefix_session && !groups) {
        gp_session_plan_free(sp);
        fprintf(stderr, "%s: error: out of memory\n", r->prog);
        return 1;
    }
    dopts.prefix_group = groups;
    int brc = gp_dataset_build(&dopts, r->tok, &r->ds, &r->err);
    free(groups);
    if (brc < 0) {
        gp_session_plan_free(sp);
        return fail(r, NULL);
    }
    if (!r->ds->n) {
        gp_session_plan_free(sp);
        fprintf(stderr, "%s: error: the dataset has no entries (check --input-file)\n", r->prog);
        return 1;
    }
    char path[8192];
    gp_path_join(path, sizeof path, r->run_dir, "inputs.json");
    brc = check_signal(r->sfd) ? 130 : gp_mkdir_p(r->run_dir, &r->err) < 0 ? -1 : 0;
    if (!brc) {
        /* an earlier run into this directory that was killed left its
         * temp files (a long run's profile export: tens of MB) */
        gp_remove_stale_tmp(r->run_dir);
        snprintf(r->inputs_tmp, sizeof r->inputs_tmp, "%s.tmp.%ld", path, (long)getpid());
        brc = write_inputs(r, sp, r->inputs_tmp);
        if (brc)
            r->inputs_tmp[0] = '\0';
    }
    gp_session_plan_free(sp);
    if (brc)
        return brc == 130 ? 130 : fail(r, NULL);
    /* GenAI-Perf deletes a stale export before running (subcommand.py:96). */
    gp_path_join(path, sizeof path, r->run_dir, cfg->profile_export_file);
    unlink(path);
    r->bodies = calloc(r->ds->n, sizeof *r->bodies);
    if (!r->bodies) {
        fprintf(stderr, "%s: error: out of memory\n", r->prog);
        return 1;
    }
    r->n_bodies = r->ds->n;
    for (size_t i = 0; i < r->ds->n; i++) {
        r->bodies[i].data = r->ds->entries[i].payload;
        r->bodies[i].len = r->ds->entries[i].payload_len;
    }
    /* the arrival process and the plan (trace rows, session chains): built
     * here, where the trace file is, so that mpirun can send it along */
    if (gp_profile_shape_build(cfg, r->n_bodies, &r->shape, &r->err) < 0)
        return fail(r, NULL);
    return CONTINUE;
}

/* What an uncapped open loop is assumed to need in flight: the rate times
 * this latency (a long LLM answer; --request-timeout when shorter, since no
 * request outlives it). A guess: the run's own latency is not known yet. */
#define OPEN_LOOP_EXPECTED_LATENCY_S 10.0

/* One socket per request in flight: lift the soft descriptor limit (often
 * 1024) toward what the run needs; open loops without a cap get the hard
 * limit. Warns before the run when even that is short: past it every
 * further request fails at once with "Too many open files" (a closed loop
 * needs concurrency sockets; an open loop's need grows with the server's
 * latency, which the rate does not wait for). */
static void raise_fd_limit(const struct profile_config *cfg, const struct gp_client_opts *co)
{
    struct rlimit rl;
    uint64_t fd_need = gp_client_fd_need(co); /* the client's own count: 0 = unbounded */
    int capped = fd_need > 0;
    long inflight = capped ? (long)(fd_need - GP_CLIENT_FD_SPARE) : 0;
    rlim_t need = capped ? (rlim_t)fd_need : RLIM_INFINITY;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return;
    if (rl.rlim_cur < need) {
        rl.rlim_cur = need < rl.rlim_max ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (capped) {
        if (rl.rlim_cur < need)
            fprintf(stderr, "genperf: warning: %s %ld needs about %llu file descriptors; the limit is %llu (raise it "
                            "with ulimit -n)\n",
                    cfg->request_rate > 0 ? "--max-concurrency" : "--concurrency", inflight, (unsigned long long)need,
                    (unsigned long long)rl.rlim_cur);
        return;
    }
    double lat = OPEN_LOOP_EXPECTED_LATENCY_S;
    if (cfg->request_timeout_s > 0 && cfg->request_timeout_s < lat)
        lat = cfg->request_timeout_s;
    /* about 32 descriptors are the process's own (stdio, signalfd, event
     * loops, telemetry, the record store) */
    double room = rl.rlim_cur > 32 ? (double)(rl.rlim_cur - 32) : 0;
    if (cfg->request_rate * lat > room)
        fprintf(stderr, "genperf: warning: --request-rate %g keeps rate x latency requests in flight (%.0f if they take "
                        "%g s), but the file descriptor limit %llu leaves room for about %.0f: requests slower than "
                        "%.2f s make later ones fail with 'Too many open files' (raise it with ulimit -n, or cap with "
                        "--max-concurrency)\n",
                cfg->request_rate, cfg->request_rate * lat, lat, (unsigned long long)rl.rlim_cur, room,
                room / cfg->request_rate);
}

/* Given URLs are sampled (and reported when they fail); otherwise the
 * target's own /metrics and GenAI-Perf's default DCGM exporter are tried
 * quietly and kept only if they answer. NULL when telemetry is off. On the
 * sampling rank of another host (mpirun, !rank0) only what is local to that
 * host: NVML, /proc and the localhost DCGM guess; the server is rank 0's. */
static struct gp_telemetry *start_telemetry(const struct profile_config *cfg, int rank0)
{
    static const char *const dcgm_default[] = {"http://localhost:9400/metrics"};
    char target_metrics[1024] = "";
    struct gp_telemetry_opts to = {
        .interval_s = cfg->telemetry_interval_s,
    };
    if (!rank0) {
        if (!cfg->metrics_urls_given) {
            to.default_metrics_urls = dcgm_default;
            to.n_default_metrics_urls = 1;
        }
    } else if (cfg->metrics_urls_given) {
        to.metrics_urls = (const char *const *)cfg->metrics_urls;
        to.n_metrics_urls = (int)cfg->n_metrics_urls;
    } else {
        if (gp_telemetry_metrics_url_for(cfg->url, target_metrics, sizeof target_metrics) == 0)
            to.default_metrics_url = target_metrics;
        to.default_metrics_urls = dcgm_default;
        to.n_default_metrics_urls = 1;
    }
    struct gp_telemetry *tel = NULL;
    struct gp_error terr = {0};
    if (gp_telemetry_start(&to, &tel, &terr) < 0) {
        fprintf(stderr, "genperf: warning: telemetry disabled: %s\n", terr.msg);
        return NULL;
    }
    return tel;
}

/* Stage 3: the measurement itself, with telemetry sampling alongside. */
/* "scale_out" of <stem>_genperf.json: the loops and what each did. */
static json_t *scale_out_json(const struct profile_run *r)
{
    json_t *o = json_object(), *ws = json_array();
    if (!o || !ws) {
        json_decref(o);
        json_decref(ws);
        return NULL;
    }
    json_object_set_new(o, "workers", json_integer(r->cfg.workers));
    json_object_set_new(o, "ranks", json_integer(1));
    for (long i = 0; i < r->cfg.workers; i++) {
        const struct gp_client_stats *s = &r->per_worker[i];
        json_t *w = json_object();
        json_object_set_new(w, "worker", json_integer(i));
        json_object_set_new(w, "requests", json_integer((json_int_t)(s->n_ok + s->n_failed)));
        json_object_set_new(w, "failed", json_integer((json_int_t)s->n_failed));
        json_object_set_new(w, "busy_fraction", json_real(s->busy_fraction));
        json_object_set_new(w, "max_send_lag_ms", json_real((double)s->max_lag_ns / 1e6));
        json_array_append_new(ws, w);
    }
    json_object_set_new(o, "per_worker", ws);
    return o;
}

/* Several --url: each joined with the endpoint path as the single --url is. */
static int build_request_urls(struct profile_run *r)
{
    if (!(r->req_urls = calloc(r->cfg.n_urls, sizeof *r->req_urls)))
        return gp_err(&r->err, GP_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->cfg.n_urls; i++) {
        struct profile_config one = r->cfg;
        char buf[8192];
        one.url = r->cfg.urls[i];
        if (build_request_url(&one, buf, sizeof buf, &r->err) < 0)
            return -GP_EINVAL;
        if (!(r->req_urls[i] = strdup(buf)))
            return gp_err(&r->err, GP_ENOMEM, "out of memory");
    }
    return 0;
}

/* Several --url: the per-endpoint breakdown joins "scale_out". */
static void attach_endpoints(struct profile_run *r)
{
    if (r->cfg.n_urls < 2)
        return;
    if (!r->scale_out)
        r->scale_out = scale_out_json(r);
    json_t *eps = gp_profile_endpoints_json(&r->st, &r->mr, (const char *const *)r->req_urls, r->cfg.n_urls);
    if (r->scale_out && eps)
        json_object_set_new(r->scale_out, "endpoints", eps);
    else
        json_decref(eps);
}

/* gp_client_opts.measure_start after a warmup: the server counters' window
 * (prefix cache, spec decode) starts here, warmup excluded; then the wrapped
 * hook picks the start, else 1 ms ahead as the workers' own sync does. */
static uint64_t measure_start_mark(void *ctx)
{
    struct profile_run *r = ctx;
    gp_telemetry_mark_window(r->tel);
    return r->inner_measure_start ? r->inner_measure_start(r->inner_measure_ctx) : gp_now_ns() + 1000000ull;
}

static int stage_run(struct profile_run *r)
{
    const struct profile_config *cfg = &r->cfg;
    uint64_t duration_ns = 0;
    if (cfg->duration_s > 0)
        duration_ns = (uint64_t)(cfg->duration_s * 1e9);
    else if (cfg->measurement_interval_ms > 0)
        /* perf_analyzer: windows of 1.2 x interval, stable after 3 with the
         * default 999 % threshold (spec §4.5) */
        duration_ns = (uint64_t)cfg->measurement_interval_ms * 3600000ull;

    struct gp_client_opts co = {
        .url = r->req_url,
        .headers = cfg->headers,
        .n_headers = cfg->n_headers,
        .bodies = r->bodies,
        .n_bodies = r->n_bodies,
        /* the load plan, built once: the client splits it and carries it out */
        .load = {.concurrency = cfg->concurrency,
                 .arrivals = r->shape.load,
                 .max_inflight = cfg->max_concurrency,
                 .request_count = cfg->request_count,
                 .warmup_count = cfg->warmup,
                 .duration_ns = duration_ns},
        .plan = r->shape.has_plan ? &r->shape.plan : NULL,
        .seed = cfg->seed,
        .timeout_s = cfg->request_timeout_s,
        .http2 = cfg->http2,
        .stop_fd = r->sfd,
        .progress = isatty(2) && gp_profile_dist_size(r->dist) == 1 ? stderr : NULL,
        .notes = stderr,
        /* under mpirun the SIGKILL that follows its SIGTERM sets the limit */
        .grace_ns = gp_profile_dist_grace_ns(r->dist, 2000000000ull),
        .max_response_bytes = (uint64_t)cfg->max_response_bytes,
        .cacert = cfg->cacert,
        .insecure = cfg->insecure,
        .cancel_rate = cfg->cancel_rate / 100.0,
        .cancel_delay_ns = (uint64_t)(cfg->cancel_delay_s * 1e9 + 0.5),
    };
    if (cfg->n_urls > 1) {
        if (build_request_urls(r) < 0)
            return fail(r, NULL);
        co.urls = (const char *const *)r->req_urls;
        co.n_urls = cfg->n_urls;
        co.url = r->req_urls[0];
        co.url_least_inflight = cfg->url_least_inflight;
    }
    raise_fd_limit(cfg, &co);
    r->input_config = gp_profile_input_config(cfg);
    /* an analyze cell (commands.h): same key, same place, GenAI-Perf's value */
    const char *sub = getenv(GP_ENV_SUBCOMMAND);
    if (r->input_config && sub && !strcmp(sub, "analyze") &&
        json_object_set_new(r->input_config, "subcommand", json_string("analyze")) < 0) {
        json_decref(r->input_config);
        r->input_config = NULL;
    }
    if (!r->input_config) {
        fprintf(stderr, "%s: error: out of memory building input_config\n", r->prog);
        return 1;
    }
    if (gp_profile_dist_samples_telemetry(r->dist))
        r->tel = start_telemetry(cfg, gp_profile_dist_rank(r->dist) == 0);
    if (gp_profile_dist_before_run(r->dist, cfg->workers, &co, &r->err) < 0)
        return dist_fail(r);
    if (r->tel && cfg->warmup > 0) {
        r->inner_measure_start = co.measure_start;
        r->inner_measure_ctx = co.measure_ctx;
        co.measure_start = measure_start_mark;
        co.measure_ctx = r;
    }
    r->wall_start = gp_wall_ns();
    r->per_worker = calloc((size_t)cfg->workers, sizeof *r->per_worker);
    if (!r->per_worker) {
        fprintf(stderr, "%s: error: out of memory\n", r->prog);
        return 1;
    }
    gp_profile_dist_prepare_store(r->dist, &r->st);
    gp_profile_memory_budget(cfg, &r->budget, &r->max_memory);
    co.budget = &r->budget;
    int crc = gp_client_run_workers(&co, (int)cfg->workers, &r->st, &r->cs, r->per_worker, &r->err);
    r->wall_end = gp_wall_ns();
    if (r->tel)
        gp_telemetry_stop(r->tel);
    if (gp_profile_dist_size(r->dist) > 1) {
        /* every rank, also one whose client failed: the job decides together */
        if (gp_profile_dist_after_run(r->dist, crc, &r->err, cfg->workers, &r->st, &r->cs, r->per_worker, &r->err) < 0)
            return dist_fail(r);
        /* every host's telemetry to rank 0; losing it only costs a warning */
        struct gp_error terr = {0};
        if (gp_profile_dist_gather_telemetry(r->dist, r->tel, &r->tel_hosts, &terr) < 0) {
            if (terr.code == GP_ENET) {
                r->err = terr;
                return dist_fail(r);
            }
            if (gp_profile_dist_rank(r->dist) == 0)
                fprintf(stderr, "genperf: warning: telemetry of the other hosts is left out: %s\n", terr.msg);
        }
        if (gp_profile_dist_rank(r->dist) != 0)
            return 0; /* rank 0 reports and writes the artifacts */
        r->scale_out = gp_profile_dist_scale_out(r->dist);
    }
    if (crc < 0)
        return fail(r, NULL);

    const struct gp_client_stats *cs = &r->cs;
    /* a run of a few ms is all setup: its busy fraction says nothing */
    if (cs->busy_fraction > BUSY_WARN && cs->end_ns - cs->start_ns >= 500000000ull)
        fprintf(stderr,
                "genperf: warning: the client's event loop was busy %.0f%% of the run; it may be limiting the "
                "measurement (fewer concurrent requests per process, or a faster machine)\n",
                cs->busy_fraction * 100);
    /* schedule lateness: gp_profile_finish says it once, from the records */
    if (cfg->workers > 1 && !r->scale_out)
        r->scale_out = scale_out_json(r);
    r->n_ok = cs->n_ok;
    r->n_failed = cs->n_failed;
    snprintf(r->first_error, sizeof r->first_error, "%s", cs->first_error);
    return CONTINUE;
}

/* The run ended (also on an error or a Ctrl-C, as before: only a kill
 * leaves the staged file, which the next run into the directory removes):
 * its inputs.json replaces the earlier set's. */
static void commit_inputs(struct profile_run *r)
{
    if (!r->inputs_tmp[0])
        return;
    char path[8192];
    gp_path_join(path, sizeof path, r->run_dir, "inputs.json");
    if (rename(r->inputs_tmp, path) != 0) {
        fprintf(stderr, "%s: warning: cannot write %s: %s\n", r->prog, path, strerror(errno));
        unlink(r->inputs_tmp);
    }
    r->inputs_tmp[0] = '\0';
}

static void run_free(struct profile_run *r)
{
    gp_export_pe_join(r->pe, NULL); /* normally joined by the export stage */
    if (r->watching)
        gp_metrics_watch_destroy(&r->watch);
    gp_profile_tel_hosts_free(&r->tel_hosts);
    gp_telemetry_free(r->tel);
    gp_metrics_result_free(&r->mr);
    json_decref(r->input_config);
    json_decref(r->scale_out);
    json_decref(r->models);
    free(r->per_worker);
    free(r->bodies);
    for (size_t i = 0; r->req_urls && i < r->cfg.n_urls; i++)
        free(r->req_urls[i]);
    free(r->req_urls);
    gp_record_store_free(&r->st);
    gp_profile_shape_free(&r->shape);
    if (r->ds)
        gp_dataset_free(r->ds);
    if (r->tok)
        gp_tokenizer_free(r->tok);
    gp_profile_config_free(&r->cfg);
}

int cmd_profile(int argc, char **argv)
{
    struct profile_run *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "%s: error: out of memory\n", prog_name());
        return 1;
    }
    r->prog = prog_name();
    r->export_ok = 1;
    gp_record_store_init(&r->st);

    /* Signals first, so a Ctrl-C during a slow tokenizer load is not lost. */
    sigset_t mask, oldmask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    /* Under a launcher, SIGUSR1 is a Ctrl-C too: Open MPI's mpirun keeps
     * SIGINT for itself (its answer is to kill the job a second later) but
     * forwards SIGUSR1 to every rank at once, so `kill -USR1 <mpirun>` (what
     * `genperf run` sends on a Ctrl-C) stops the load everywhere now. A plain
     * run keeps SIGUSR1's default. */
    struct gp_dist_launch launch;
    gp_dist_detect(&launch);
    if (launch.launched)
        sigaddset(&mask, SIGUSR1);
    sigprocmask(SIG_BLOCK, &mask, &oldmask);
    r->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    /* A server that closes a TLS connection mid-write must cost one
     * request, not the process: libcurl runs with CURLOPT_NOSIGNAL. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old_pipe);

    gp_profile_config_init(&r->cfg);
    int status = CONTINUE;
    /* AIPerf's spellings become genperf's first; the notes once per job */
    struct gp_profile_aiperf ap;
    if (gp_profile_aiperf_argv(argc, argv, &ap, launch.rank > 0 ? NULL : stderr, &r->err) < 0) {
        fprintf(stderr, "%s: error: %s\n", r->prog, r->err.msg);
        status = 2;
    } else {
        argc = ap.argc;
        argv = ap.argv;
    }
    if (status == CONTINUE && gp_profile_dist_join(&r->dist, argc, argv, &r->err) < 0)
        status = fail(r, NULL);
    if (status == CONTINUE && gp_profile_dist_rank(r->dist) == 0) {
        status = stage_load(r, argc, argv);
        if (status == CONTINUE)
            status = stage_dataset(r);
    }
    if (gp_profile_dist_size(r->dist) > 1)
        status = stage_dist_setup(r, status);
    /* A Ctrl-C while the tokenizer loads or the dataset is built: no request
     * was sent, so there is nothing to write; say so rather than exit 130
     * in silence (a caller such as `genperf run` would otherwise look for
     * artifacts that were never meant to exist). --num-runs said what its
     * runs wrote (profile_runs.c). */
    if (status == 130 && r->cfg.num_runs <= 1)
        fprintf(stderr, "%s: interrupted before any request was sent: nothing was measured, no artifacts written\n",
                r->prog);
    if (status == CONTINUE)
        status = stage_run(r);
    if (status == CONTINUE) {
        gp_profile_stage_metrics(r);
        if (r->metrics_ok) {
            gp_profile_dist_clock_warning(r->dist, &r->mr);
            attach_endpoints(r);
            if (r->cfg.n_models > 1)
                r->models = gp_profile_models_json(&r->st, &r->mr, r->ds, r->cfg.models, r->cfg.n_models,
                                                   r->cfg.model_weights);
            gp_profile_stage_export(r);
        }
        status = gp_profile_finish(r);
    }

    commit_inputs(r);
    int sfd = r->sfd;
    struct gp_profile_dist *dist = r->dist;
    run_free(r);
    gp_profile_dist_free(dist); /* after the config and bodies that point into it */
    gp_profile_aiperf_free(&ap); /* after the config, which may point into its strings */
    free(r);
    if (sfd >= 0) {
        /* drain signals that arrived late so unblocking does not kill us */
        while (check_signal(sfd))
            ;
        close(sfd);
    }
    sigaction(SIGPIPE, &old_pipe, NULL);
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    return status;
}
