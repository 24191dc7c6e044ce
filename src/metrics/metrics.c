/* metrics/metrics.c — from raw chunks to per-request and benchmark metrics.
 *
 * One pass over the records: each response is re-framed (SSE) and scanned
 * with scratch buffers that live for the whole pass, so a million requests
 * cost no allocation per event. Timing decisions mirror GenAI-Perf
 * (genai-perf-profile.md §6.2-6.4): a network read that completed at least
 * one event carrying non-empty `content` is one content chunk stamped with
 * that read's time; role-only, reasoning-only, finish, usage and [DONE]
 * events never move TTFT or latency.
 */
#include "metrics/metrics.h"
#include "metrics/metrics_int.h"
#include "metrics/watch.h"
#include "client/record.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/stats.h"
#include "dataset/dataset.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <pthread.h>
#include <unistd.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[GP_M__COUNT] = {
    "request_throughput", "request_latency", "request_goodput", "request_count",
    "time_to_first_token", "time_to_second_token", "inter_token_latency",
    "output_token_throughput", "output_token_throughput_per_user", "output_sequence_length",
    "input_sequence_length",
};
static const char *const metric_units[GP_M__COUNT] = {
    "requests/sec", "ms", "requests/sec", "count", "ms", "ms", "ms",
    "tokens/sec", "tokens/sec/user", "tokens", "tokens",
};
static const char *const fail_names[GP_FAIL__COUNT] = {
    "none", "transport", "http", "stream_error", "timeout", "cancelled", "truncated", "no_content",
};

const char *gp_metric_name(enum gp_metric m) { return (unsigned)m < GP_M__COUNT ? metric_names[m] : "?"; }
const char *gp_metric_unit(enum gp_metric m) { return (unsigned)m < GP_M__COUNT ? metric_units[m] : "?"; }
const char *gp_fail_kind_name(enum gp_fail_kind k)
{
    return (unsigned)k < GP_FAIL__COUNT ? fail_names[k] : "?";
}

/* GenAI-Perf ISL of a sent body (dataset's reader: message contents and
 * text parts, or the completions prompt list). Used only when the dataset
 * did not record it. */
#define MAX_WORKERS GP_METRICS_MAX_THREADS

/* One statistic to compute (x sorted in place). Independent of the others,
 * so they run on the workers' threads; each is the same computation as on
 * one thread, so the results are the same bits. */
struct stat_job {
    double *x;
    size_t n;
    struct gp_stats *out;
};

struct stat_pool {
    struct stat_job *jobs;
    size_t nj, next;
    pthread_mutex_t mu;
};

static void *stat_run(void *arg)
{
    struct stat_pool *sp = arg;
    for (;;) {
        pthread_mutex_lock(&sp->mu);
        size_t j = sp->next++;
        pthread_mutex_unlock(&sp->mu);
        if (j >= sp->nj)
            return NULL;
        gp_stats_compute(sp->jobs[j].x, sp->jobs[j].n, sp->jobs[j].out);
    }
}

static void stats_parallel(struct stat_job *jobs, size_t nj, int nw)
{
    struct stat_pool sp = {.jobs = jobs, .nj = nj};
    pthread_t th[MAX_WORKERS];
    int started = 0;
    if (nw > 1 && pthread_mutex_init(&sp.mu, NULL) == 0) {
        for (int t = 1; t < nw; t++)
            if (pthread_create(&th[started], NULL, stat_run, &sp) == 0)
                started++;
        stat_run(&sp);
        for (int t = 0; t < started; t++)
            pthread_join(th[t], NULL);
        pthread_mutex_destroy(&sp.mu);
        return;
    }
    for (size_t j = 0; j < nj; j++)
        gp_stats_compute(jobs[j].x, jobs[j].n, jobs[j].out);
}

/* One gp_metrics_compute call: its inputs, the worker threads and the
 * per-metric arrays, which the steps below fill in order. */
struct compute {
    const struct gp_record_store *st;
    const struct gp_dataset *ds;
    struct gp_tokenizer *tok;
    const struct gp_metrics_opts *opts;
    struct gp_metrics_result *out;
    size_t nmeas;            /* non-warmup records */
    uint32_t *idx;           /* their store indices, in store order */
    struct arrays a;
    struct worker wk[MAX_WORKERS];
    int nw;
    pthread_mutex_t lock;    /* the tokenizer is shared by the workers */
    int have_lock;
    /* accumulated over the successful requests (accumulate) */
    uint64_t wmin, wmax;
    double isl_client_sum, isl_server_sum, osl_server_sum, osl_sum;
    size_t n_isl_server, n_good, n_throughput;
    /* ok requests with usage but no cached count, and their prompt tokens:
     * vLLM leaves prompt_tokens_details out on a miss (see accumulate) */
    size_t n_no_cached;
    double no_cached_prompt_sum;
    int goodput_invalid;
};

static int alloc_arrays(struct compute *c, struct gp_error *err)
{
    const struct gp_record_store *st = c->st;
    for (size_t i = 0; i < st->n; i++)
        if (!(st->recs[i].flags & GP_REC_WARMUP))
            c->nmeas++;
    size_t n = c->nmeas ? c->nmeas : 1;
    struct arrays *a = &c->a;
    c->out->reqs = calloc(n, sizeof *c->out->reqs);
    c->idx = malloc(n * sizeof *c->idx);
    a->lat = malloc(n * sizeof(double));
    a->ttft = malloc(n * sizeof(double));
    a->ttst = malloc(n * sizeof(double));
    a->itl = malloc(n * sizeof(double));
    a->tps = malloc(n * sizeof(double));
    a->osl = malloc(n * sizeof(double));
    a->isl = malloc(n * sizeof(double));
    if (!c->out->reqs || !c->idx || !a->lat || !a->ttft || !a->ttst || !a->itl || !a->tps || !a->osl || !a->isl)
        return gp_err(err, GP_ENOMEM, "out of memory computing metrics for %zu requests", c->nmeas);
    for (size_t i = 0, k = 0; i < st->n; i++)
        if (!(st->recs[i].flags & GP_REC_WARMUP))
            c->idx[k++] = (uint32_t)i;
    /* Each request's content times get a slot of their most possible count,
     * fixed here: a worker writes them in place, and they are final with the
     * request (no rebasing after the workers, which the records file would
     * have to wait for). */
    uint64_t tot = 0;
    for (size_t k = 0; k < c->nmeas; k++) {
        c->out->reqs[k].ct_first = tot;
        tot += gp_scan_ct_capacity(st, &st->recs[c->idx[k]]);
    }
    c->out->content_ns = malloc((tot ? tot : 1) * sizeof *c->out->content_ns);
    if (!c->out->content_ns)
        return gp_err(err, GP_ENOMEM, "out of memory for %llu content chunk times", (unsigned long long)tot);
    c->out->n_content_ns = tot;
    return 0;
}

/* Parses the responses on up to MAX_WORKERS threads: a million requests'
 * SSE scanning is the bulk of post-processing, and requests are
 * independent; each worker takes a contiguous range of them. */
static int parse_parallel(struct compute *c, struct gp_error *err)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    c->nw = c->nmeas >= 20000 && ncpu > 1 ? (int)(ncpu < MAX_WORKERS ? ncpu : MAX_WORKERS) : 1;
    if (c->nw > 1) {
        if (pthread_mutex_init(&c->lock, NULL) == 0)
            c->have_lock = 1;
        else
            c->nw = 1;
    }
    pthread_t th[MAX_WORKERS];
    int started[MAX_WORKERS] = {0};
    for (int t = 0; t < c->nw; t++) {
        struct worker *w = &c->wk[t];
        w->st = c->st;
        w->ds = c->ds;
        w->tok = c->tok;
        /* the builtin tokenizer's count is a length: no lock to contend on per request */
        w->tok_lock = c->have_lock && c->tok && !gp_tokenizer_count_reentrant(c->tok) ? &c->lock : NULL;
        w->inter_chunk = c->opts->inter_chunk;
        w->requests_only = c->opts->requests_only;
        w->s.responses_api = c->opts->responses_api;
        w->s.anthropic = c->opts->anthropic;
        w->schema = c->opts->response_schema;
        w->idx = c->idx;
        w->reqs = c->out->reqs;
        w->k0 = c->nmeas * (size_t)t / (size_t)c->nw;
        w->k1 = c->nmeas * (size_t)(t + 1) / (size_t)c->nw;
        gp_sse_init(&w->s.sse);
        w->content_ns = c->out->content_ns;
        w->n_content_ns = c->out->n_content_ns;
        w->watch = c->opts->watch;
        w->slot = t;
    }
    if (c->opts->watch) {
        size_t k0[MAX_WORKERS], k1[MAX_WORKERS];
        for (int t = 0; t < c->nw; t++) {
            k0[t] = c->wk[t].k0;
            k1[t] = c->wk[t].k1;
        }
        gp_metrics_watch_start(c->opts->watch, c->out->reqs, c->nmeas, c->out->content_ns, c->out->n_content_ns,
                               c->nw, k0, k1);
    }
    for (int t = 1; t < c->nw; t++)
        if (pthread_create(&th[t], NULL, gp_mx_worker_run, &c->wk[t]) == 0)
            started[t] = 1;
    gp_mx_worker_run(&c->wk[0]);
    for (int t = 1; t < c->nw; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            gp_mx_worker_run(&c->wk[t]); /* could not start a thread: do its share here */
    }
    for (int t = 0; t < c->nw; t++)
        if (c->wk[t].rc)
            return gp_err(err, GP_ENOMEM, "out of memory parsing responses");
    return 0;
}

/* The workers' error texts and inter-chunk gaps, back into
 * request order in one buffer each. */
static int gather_workers(struct compute *c, struct gp_error *err)
{
    struct gp_metrics_result *out = c->out;
    size_t tlen = 0, nicl = 0;
    for (int t = 0; t < c->nw; t++) {
        tlen += c->wk[t].text.len;
        nicl += c->wk[t].icl.nicl;
    }
    out->text = malloc(tlen + 1);
    c->a.icl = malloc((nicl ? nicl : 1) * sizeof(double));
    if (!out->text || !c->a.icl)
        return gp_err(err, GP_ENOMEM, "out of memory collecting error texts");
    size_t base = 0;
    for (int t = 0; t < c->nw; t++) {
        const struct worker *w = &c->wk[t];
        if (w->text.len)
            memcpy(out->text + base, w->text.data, w->text.len);
        for (size_t k = w->k0; k < w->k1; k++)
            if (out->reqs[k].err_len)
                out->reqs[k].err_off += base;
        base += w->text.len;
        if (w->icl.nicl)
            memcpy(c->a.icl + c->a.nicl, w->icl.icl, w->icl.nicl * sizeof(double));
        c->a.nicl += w->icl.nicl;
    }
    out->text[tlen] = '\0';
    out->text_len = tlen;
    return 0;
}

/* Counts every request's outcome and fills the per-metric arrays with the
 * successful ones that carried content (GenAI-Perf skips the others for
 * per-request metrics but keeps them in throughput). */
static void accumulate(struct compute *c)
{
    struct gp_metrics_result *out = c->out;
    const struct gp_metrics_opts *opts = c->opts;
    struct arrays *a = &c->a;
    c->wmin = UINT64_MAX;
    for (size_t i = 0; i < opts->n_slos; i++)
        if (!gp_mx_slo_kind(opts->slos[i].name))
            c->goodput_invalid = 1;
    out->n_reqs = c->nmeas;
    for (size_t k = 0; k < c->nmeas; k++) {
        struct gp_req_metrics *rm = &out->reqs[k];
        const struct gp_record *r = &c->st->recs[rm->rec];
        out->n_bad_events += rm->bad_events;
        if (rm->flags & GP_RQ_NO_DONE)
            out->n_no_done++;
        if (rm->flags & GP_RQ_SHORT_AFTER_DONE)
            out->n_short_after_done++;
        if (rm->flags & GP_RQ_HAS_USAGE)
            out->n_with_usage++;
        if (rm->flags & GP_RQ_BAD_USAGE)
            out->n_bad_usage++;
        if (rm->fail != GP_FAIL_NONE) {
            out->n_failed++;
            out->fail_counts[rm->fail]++;
            continue;
        }
        out->n_ok++;
        c->n_throughput++;
        if (c->opts->response_schema) {
            out->structured.requests++;
            out->structured.invalid_json += (rm->flags & GP_RQ_SO_INVALID_JSON) != 0;
            out->structured.schema_mismatch += (rm->flags & GP_RQ_SO_MISMATCH) != 0;
        }
        if (rm->server_cached_tokens >= 0 && rm->server_prompt_tokens > 0) {
            out->n_with_cached++;
            out->cached_tokens_sum += rm->server_cached_tokens;
            out->cached_prompt_sum += rm->server_prompt_tokens;
        } else if (rm->server_prompt_tokens > 0) {
            c->n_no_cached++;
            c->no_cached_prompt_sum += rm->server_prompt_tokens;
        }
        if (rm->tps_user >= 0) /* every ok request's, with content or not */
            a->tps[a->ntps++] = rm->tps_user;
        if (rm->flags & GP_RQ_OSL_MISMATCH)
            out->n_osl_mismatch++;
        if (rm->content_chunks == 0) {
            out->n_no_content++;
            continue;
        }
        if (r->t_start_ns < c->wmin)
            c->wmin = r->t_start_ns;
        if (rm->last_content_ns > c->wmax)
            c->wmax = rm->last_content_ns;
        a->lat[a->nlat] = (double)rm->latency_ns;
        a->ttft[a->nlat] = (double)rm->ttft_ns;
        a->osl[a->nlat] = (double)rm->osl;
        a->isl[a->nlat] = (double)rm->isl;
        a->nlat++;
        if (rm->ttst_ns >= 0)
            a->ttst[a->nttst++] = (double)rm->ttst_ns;
        if (rm->itl_ns >= 0)
            a->itl[a->nitl++] = (double)rm->itl_ns;
        c->isl_client_sum += rm->isl;
        if (rm->server_prompt_tokens >= 0) {
            c->isl_server_sum += (double)rm->server_prompt_tokens;
            c->osl_server_sum += (double)(rm->server_completion_tokens >= 0 ? rm->server_completion_tokens : 0);
            c->n_isl_server++;
        }
        if (opts->n_slos && !c->goodput_invalid && gp_mx_is_good(rm, opts))
            c->n_good++;
    }
    /* vLLM with --enable-prompt-tokens-details reports cached_tokens only for
     * a hit ("if self.enable_prompt_tokens_details and num_cached_tokens",
     * serving_chat.py at commit 99c5632f): once any request reported a count,
     * a usage without one is a miss, 0 cached, not a request left out of the
     * hit rate (Anthropic's usage without cache fields means caching was not
     * asked for) */
    if (out->n_with_cached && !opts->anthropic) {
        out->n_with_cached += c->n_no_cached;
        out->cached_prompt_sum += c->no_cached_prompt_sum;
    }
}

/* Statistics of every per-request metric (time metrics in ns, then x 1/1e6
 * as GenAI-Perf exports them), one sort each, on the workers' threads. */
static void statistics(struct compute *c)
{
    struct gp_metrics_result *out = c->out;
    struct arrays *a = &c->a;
    const double ms = 1 / 1e6;
    struct stat_job jobs[8];
    size_t nj = 0;
    /* the pooled inter-chunk gaps first: the largest array */
    jobs[nj++] = (struct stat_job){a->icl, a->nicl, &out->inter_chunk};
    jobs[nj++] = (struct stat_job){a->lat, a->nlat, &out->stats[GP_M_REQUEST_LATENCY]};
    jobs[nj++] = (struct stat_job){a->ttft, a->nlat, &out->stats[GP_M_TTFT]};
    jobs[nj++] = (struct stat_job){a->ttst, a->nttst, &out->stats[GP_M_TTST]};
    double sum = 0;
    for (size_t i = 0; i < a->nitl; i++)
        sum += a->itl[i];
    /* GenAI-Perf skips inter_token_latency (and so TPS/user's source) when it sums to 0 */
    if (sum != 0)
        jobs[nj++] = (struct stat_job){a->itl, a->nitl, &out->stats[GP_M_ITL]};
    jobs[nj++] = (struct stat_job){a->tps, a->ntps, &out->stats[GP_M_TPS_PER_USER]};
    c->osl_sum = 0; /* before the sort: the sum's order is the requests' */
    for (size_t i = 0; i < a->nlat; i++)
        c->osl_sum += a->osl[i];
    jobs[nj++] = (struct stat_job){a->osl, a->nlat, &out->stats[GP_M_OSL]};
    jobs[nj++] = (struct stat_job){a->isl, a->nlat, &out->stats[GP_M_ISL]};
    stats_parallel(jobs, nj, c->nw);
    gp_stats_scale(&out->stats[GP_M_REQUEST_LATENCY], ms);
    gp_stats_scale(&out->stats[GP_M_TTFT], ms);
    gp_stats_scale(&out->stats[GP_M_TTST], ms);
    gp_stats_scale(&out->stats[GP_M_ITL], ms);
    gp_stats_scale(&out->inter_chunk, ms);
}

/* Throughputs, goodput and count over the benchmark window (first start to
 * last content), and the token-count averages. */
static void system_metrics(struct compute *c)
{
    struct gp_metrics_result *out = c->out;
    const struct gp_metrics_opts *opts = c->opts;
    size_t nlat = c->a.nlat;
    if (nlat) {
        out->window_start_ns = c->wmin;
        out->window_end_ns = c->wmax;
        out->duration_s = (double)(c->wmax - c->wmin) / 1e9;
        /* a zero window crashes GenAI-Perf (ZeroDivisionError); we report no throughput */
        if (out->duration_s > 0) {
            struct gp_stats *sys;
            sys = &out->stats[GP_M_REQUEST_THROUGHPUT];
            sys->present = sys->system = 1;
            sys->avg = (double)c->n_throughput / out->duration_s;
            sys = &out->stats[GP_M_OUTPUT_TOKEN_THROUGHPUT];
            sys->present = sys->system = 1;
            sys->avg = c->osl_sum / out->duration_s;
            if (opts->n_slos) {
                sys = &out->stats[GP_M_REQUEST_GOODPUT];
                sys->present = sys->system = 1;
                sys->avg = c->goodput_invalid ? -1.0 : (double)c->n_good / out->duration_s;
            }
        }
        struct gp_stats *cnt = &out->stats[GP_M_REQUEST_COUNT];
        cnt->present = cnt->system = 1;
        cnt->avg = (double)nlat;
        cnt->n = nlat;
    } else {
        /* No request with content: GenAI-Perf still writes its system
         * metrics (metrics.py:66, request_count = len([]) = 0; throughputs
         * n / (0 - inf) = -0.0). We write 0.0 for those, never a
         * *_genai_perf.json without metrics (which our own ingest refuses). */
        static const enum gp_metric sys_metrics[] = {GP_M_REQUEST_THROUGHPUT, GP_M_REQUEST_GOODPUT, GP_M_REQUEST_COUNT,
                                                     GP_M_OUTPUT_TOKEN_THROUGHPUT};
        for (size_t i = 0; i < sizeof sys_metrics / sizeof sys_metrics[0]; i++) {
            struct gp_stats *sys = &out->stats[sys_metrics[i]];
            if (sys_metrics[i] == GP_M_REQUEST_GOODPUT && !opts->n_slos)
                continue;
            memset(sys, 0, sizeof *sys);
            sys->present = sys->system = 1;
            sys->avg = sys_metrics[i] == GP_M_REQUEST_GOODPUT && c->goodput_invalid ? -1.0 : 0.0;
        }
    }
    if (opts->requests_only) {
        /* GenAI-Perf's ProfileDataParser (embeddings, rankings): request
         * latency, throughput, goodput and count only */
        static const enum gp_metric token_metrics[] = {GP_M_TTFT, GP_M_TTST, GP_M_ITL, GP_M_OUTPUT_TOKEN_THROUGHPUT,
                                             GP_M_TPS_PER_USER, GP_M_OSL, GP_M_ISL};
        for (size_t i = 0; i < sizeof token_metrics / sizeof token_metrics[0]; i++)
            memset(&out->stats[token_metrics[i]], 0, sizeof out->stats[token_metrics[i]]);
        memset(&out->inter_chunk, 0, sizeof out->inter_chunk);
    }
    out->goodput_invalid = c->goodput_invalid;
    out->isl_client_avg = nlat ? c->isl_client_sum / (double)nlat : -1;
    out->isl_server_avg = c->n_isl_server ? c->isl_server_sum / (double)c->n_isl_server : -1;
    out->osl_server_avg = c->n_isl_server ? c->osl_server_sum / (double)c->n_isl_server : -1;
}

static void compute_free(struct compute *c)
{
    for (int t = 0; t < c->nw; t++)
        gp_mx_worker_free(&c->wk[t]);
    if (c->have_lock)
        pthread_mutex_destroy(&c->lock);
    free(c->idx);
    free(c->a.lat);
    free(c->a.ttft);
    free(c->a.ttst);
    free(c->a.itl);
    free(c->a.tps);
    free(c->a.osl);
    free(c->a.isl);
    free(c->a.icl);
}

int gp_metrics_compute(const struct gp_record_store *st, const struct gp_dataset *ds,
                       struct gp_tokenizer *tok, const struct gp_metrics_opts *opts,
                       struct gp_metrics_result *out, struct gp_error *err)
{
    static const struct gp_metrics_opts defaults = {.inter_chunk = 1};
    memset(out, 0, sizeof *out);
    struct compute *c = calloc(1, sizeof *c);
    if (!c)
        return gp_err(err, GP_ENOMEM, "out of memory computing metrics");
    c->st = st;
    c->ds = ds;
    c->tok = tok;
    c->opts = opts ? opts : &defaults;
    c->out = out;
    out->structured.present = c->opts->response_schema != NULL;
    int rc = alloc_arrays(c, err);
    if (!rc)
        rc = parse_parallel(c, err);
    if (!rc)
        rc = gather_workers(c, err);
    for (int t = 1; !rc && t < c->nw; t++)
        if (gp_mx_tpc_merge(&c->wk[0].tpc, &c->wk[t].tpc))
            rc = gp_err(err, GP_ENOMEM, "out of memory counting tokens per chunk");
    if (!rc && !c->opts->requests_only && gp_mx_tpc_stats(&c->wk[0].tpc, &out->tokens_per_chunk))
        rc = gp_err(err, GP_ENOMEM, "out of memory counting tokens per chunk");
    if (!rc)
        out->tokens_per_chunk_multi =
            out->tokens_per_chunk.present && (out->tokens_per_chunk.min != 1 || out->tokens_per_chunk.max != 1);
    if (!rc) {
        accumulate(c);
        statistics(c);
        system_metrics(c);
        if (!c->opts->requests_only && gp_reasoning_summarize(out))
            rc = gp_err(err, GP_ENOMEM, "out of memory summarizing reasoning for %zu requests", c->nmeas);
    }
    compute_free(c);
    free(c);
    if (opts && opts->watch) /* on failure: once the watcher has stopped reading */
        gp_metrics_watch_end(opts->watch, rc == 0);
    if (rc)
        gp_metrics_result_free(out);
    return rc;
}

void gp_metrics_result_free(struct gp_metrics_result *r)
{
    free(r->reqs);
    free(r->text);
    free(r->content_ns);
    memset(r, 0, sizeof *r);
}
