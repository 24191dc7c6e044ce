/* export/fidelity.c — the fidelity verdict of a run: was the client
 * limiting the measurement? From figures the client already measured
 * (busiest event loop's busy fraction, open-loop schedule lag, queue-to-send
 * lag, receive lag, CPU time, requests that failed in the client itself) to "not limiting" or "limiting" with one
 * sentence per reason (what was seen, the threshold, what to do). Written
 * as "fidelity" in <stem>_genperf.json and as one console line; `genperf
 * compare` reads the block. Owns nothing; scratch arrays are freed before
 * each function returns.
 *
 * The thresholds are set so that a normal run on a busy 2-core host (the
 * test suite's, five processes sharing it) is not called limiting: one
 * preemption of 10-30 ms lands on a request now and then, so the lag rules
 * need at least GP_FID_MIN_LATE requests past the threshold besides the p99;
 * the busy, receive and CPU rules need a measured phase of 0.5 s (shorter
 * ones are mostly setup, as for the busy warning).
 */
#include "client/record.h"
#include "core/stats.h"
#include "export/export.h"
#include "metrics/metrics.h"
#include "sched/sched.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* p99 (ms) of v[0..n) ns deltas, and how many exceed thr_ms; sorts v. */
static double p99_ms(double *v, size_t n, double thr_ms, size_t *over)
{
    qsort(v, n, sizeof *v, gp_cmp_double);
    *over = 0;
    for (size_t i = 0; i < n; i++)
        *over += v[i] > thr_ms;
    return gp_percentile_sorted(v, n, 99);
}

const char *gp_fidelity_local_cause(const char *err, size_t n)
{
    /* strerror's glibc texts, as the client writes them after "socket: " or
     * a connect failure; ENFILE's text holds EMFILE's, so it comes first */
    static const char *const causes[] = {"Too many open files in system", "Too many open files",
                                         "Cannot assign requested address", "No buffer space available",
                                         "Cannot allocate memory"};
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++)
        if (memmem(err, n, causes[i], strlen(causes[i])))
            return causes[i];
    return NULL;
}

/* Measured requests that failed in the client itself (counted into in). */
static void local_failures(const struct gp_metrics_result *m, struct gp_fidelity_inputs *in)
{
    if (!m)
        return;
    in->local_of = m->n_reqs;
    for (size_t i = 0; i < m->n_reqs; i++) {
        const struct gp_req_metrics *q = &m->reqs[i];
        const char *why = q->fail == GP_FAIL_TRANSPORT && q->err_len
                              ? gp_fidelity_local_cause(m->text + q->err_off, q->err_len)
                              : NULL;
        if (why && !in->local_failed++)
            snprintf(in->local_what, sizeof in->local_what, "%s", why);
    }
}

void gp_fidelity_inputs(const struct gp_export_ctx *ctx, struct gp_fidelity_inputs *in)
{
    const struct gp_record_store *st = ctx->store;
    memset(in, 0, sizeof *in);
    in->busy_fraction = ctx->client_busy_fraction;
    in->run_s = (double)ctx->client_run_ns / 1e9;
    in->cpu_s = ctx->client_run_ns && ctx->client_cpu_ns ? (double)ctx->client_cpu_ns / 1e9 : -1;
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    in->n_cpus = nc > 0 ? (int)nc : 1;
    in->schedule_lag_p99_ms = in->send_lag_p99_ms = -1;
    in->recv_lag_max_ms = in->recv_lag_avg_ms = -1;
    if (ctx->n_rx_kstamp) {
        in->recv_lag_max_ms = (double)ctx->rx_lag_max_ns / 1e6;
        in->recv_lag_avg_ms = (double)ctx->rx_lag_sum_ns / (double)ctx->n_rx_kstamp / 1e6;
    }
    local_failures(ctx->m, in);
    double *v = malloc((st->n ? st->n : 1) * sizeof *v);
    if (!v)
        return; /* the verdict then rules on what it has */
    /* queue-to-send lag: start stamp -> first byte handed to the transport */
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++) {
        const struct gp_record *r = &st->recs[i];
        if ((r->flags & GP_REC_WARMUP) || !r->t_send_ns || r->t_send_ns < r->t_start_ns)
            continue;
        v[n++] = (double)(r->t_send_ns - r->t_start_ns) / 1e6;
    }
    if (n)
        in->send_lag_p99_ms = p99_ms(v, n, GP_FID_LAG_MS, &in->send_late);
    in->send_n = n;
    /* schedule lag of open-loop sends; a send that waited for the
     * --max-concurrency cap waited because the user asked for the cap */
    n = 0;
    for (size_t i = 0; i < st->n; i++) {
        const struct gp_record *r = &st->recs[i];
        if ((r->flags & (GP_REC_WARMUP | GP_REC_CAP_DELAYED)) || !r->t_sched_ns)
            continue;
        v[n++] = r->t_start_ns > r->t_sched_ns ? (double)(r->t_start_ns - r->t_sched_ns) / 1e6 : 0;
    }
    if (n)
        in->schedule_lag_p99_ms = p99_ms(v, n, GP_FID_LAG_MS, &in->sched_late);
    in->sched_n = n;
    free(v);
}

/* one reason, at most GP_FID_MAX_REASONS */
static void reason(struct gp_fidelity *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(struct gp_fidelity *f, const char *fmt, ...)
{
    f->limiting = 1;
    if (f->n_reasons >= GP_FID_MAX_REASONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->reasons[f->n_reasons++], sizeof f->reasons[0], fmt, ap);
    va_end(ap);
}

void gp_fidelity_assess(const struct gp_fidelity_inputs *in, struct gp_fidelity *f)
{
    memset(f, 0, sizeof *f);
    int long_enough = in->run_s >= GP_FID_MIN_RUN_S;
    /* first: a request that never left the client is load not applied,
     * whatever the timing figures say (issue 40 item 6) */
    if (in->local_failed)
        reason(f,
               "%zu of %zu requests failed in the client itself (%s): the load asked for was not applied; raise "
               "the limit (ulimit -n for descriptors), lower the concurrency or rate, or add client hosts",
               in->local_failed, in->local_of, in->local_what);
    if (long_enough && in->busy_fraction >= GP_FID_BUSY)
        reason(f,
               "the busiest event loop was busy %.0f%% of the measured phase (limit %.0f%%): requests waited for "
               "it; add --workers, or lower the load per process",
               in->busy_fraction * 100, GP_FID_BUSY * 100);
    if (in->schedule_lag_p99_ms > GP_FID_LAG_MS && in->sched_late >= GP_FID_MIN_LATE)
        reason(f,
               "open-loop sends were late: schedule lag p99 %.1f ms, %zu of %zu sends over %.0f ms (limit p99 %.0f "
               "ms): less load than asked was applied; add --workers or lower --request-rate",
               in->schedule_lag_p99_ms, in->sched_late, in->sched_n, GP_FID_LAG_MS, GP_FID_LAG_MS);
    if (in->send_lag_p99_ms > GP_FID_LAG_MS && in->send_late >= GP_FID_MIN_LATE)
        reason(f,
               "requests waited between their start stamp and their first byte sent: send lag p99 %.1f ms, %zu of "
               "%zu over %.0f ms (limit p99 %.0f ms), and TTFT and latency include it; add --workers or lower the "
               "concurrency per process",
               in->send_lag_p99_ms, in->send_late, in->send_n, GP_FID_LAG_MS, GP_FID_LAG_MS);
    if (long_enough && in->recv_lag_avg_ms > GP_FID_RECV_AVG_MS)
        reason(f,
               "reads returned %.1f ms on average after the kernel received the bytes (limit %.0f ms): the event "
               "loop was late to its sockets; add --workers, or run on a less loaded host",
               in->recv_lag_avg_ms, GP_FID_RECV_AVG_MS);
    double cores = in->run_s > 0 && in->cpu_s >= 0 ? in->cpu_s / in->run_s : -1;
    if (long_enough && cores >= GP_FID_CPU_SHARE * in->n_cpus)
        reason(f,
               "the client's threads used %.2f of the host's %d CPUs (limit %.0f%% of them): nothing was left for "
               "the rest; run the client on a bigger host or another host than the server",
               cores, in->n_cpus, GP_FID_CPU_SHARE * 100);
}

static json_t *num_or_null(double v) { return v < 0 ? json_null() : json_real(v); }

json_t *gp_fidelity_json(const struct gp_fidelity_inputs *in, const struct gp_fidelity *f)
{
    json_t *o = json_object(), *rs = json_array(), *ij = json_object();
    json_object_set_new(o, "client_limited", json_boolean(f->limiting));
    json_object_set_new(o, "verdict", json_string(f->limiting ? "limiting" : "not limiting"));
    for (int i = 0; i < f->n_reasons; i++)
        json_array_append_new(rs, json_string(f->reasons[i]));
    json_object_set_new(o, "reasons", rs);
    json_object_set_new(ij, "busy_fraction", num_or_null(in->busy_fraction));
    json_object_set_new(ij, "schedule_lag_p99_ms", num_or_null(in->schedule_lag_p99_ms));
    json_object_set_new(ij, "send_lag_p99_ms", num_or_null(in->send_lag_p99_ms));
    json_object_set_new(ij, "recv_lag_max_ms", num_or_null(in->recv_lag_max_ms));
    json_object_set_new(ij, "recv_lag_avg_ms", num_or_null(in->recv_lag_avg_ms));
    json_object_set_new(ij, "cpu_s", num_or_null(in->cpu_s));
    json_object_set_new(ij, "cpus_online", json_integer(in->n_cpus));
    json_object_set_new(ij, "measured_phase_s", json_real(in->run_s));
    json_object_set_new(o, "inputs", ij);
    return o;
}

void gp_fidelity_print(FILE *out, const struct gp_fidelity *f)
{
    if (!f->limiting) {
        fprintf(out, "genperf: client: not limiting\n");
        return;
    }
    fprintf(out, "genperf: client: limiting \xe2\x80\x94 ");
    for (int i = 0; i < f->n_reasons; i++)
        fprintf(out, "%s%s", i ? "; " : "", f->reasons[i]);
    fprintf(out, "\n");
}
