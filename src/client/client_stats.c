/* client/client_stats.c — what the loop reports besides the records: the
 * progress line, the first failure's text, the thread's CPU time.
 */
#include "client/client_int.h"
#include "core/clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* 1 when [p, e) holds key (with its quotes and colon) followed by a
 * non-empty JSON string: "content":"x" or "content": "x", not "content":"". */
static int has_text(const char *p, const char *e, const char *key, size_t klen)
{
    const char *q;
    while ((q = memmem(p, (size_t)(e - p), key, klen))) {
        q += klen;
        while (q < e && *q == ' ')
            q++;
        if (e - q >= 2 && q[0] == '"' && q[1] != '"')
            return 1;
        p = q;
    }
    return 0;
}

/* Counts the SSE data events of a finished response that carry output text
 * ("content" of a chat delta, "text" of a completion), for the progress
 * line's tok/s only: the role chunk, a separate finish chunk, the usage
 * chunk, reasoning-only chunks and [DONE] are no content tokens (counting
 * every event read 12% high at 16 tokens a request). Lines are found with
 * memchr for '\n'; a "\r"-only line end is not split and an event cut
 * between two reads may be missed: the count is a progress estimate,
 * metrics/ parses the events exactly. No allocation. */
uint64_t gp_cl_count_events(const char *p, size_t n)
{
    uint64_t k = 0;
    const char *end = p + n;
    while (p < end) {
        const char *q = memchr(p, '\n', (size_t)(end - p));
        const char *le = q ? q : end;
        if (le - p >= 5 && !memcmp(p, "data:", 5) &&
            (has_text(p + 5, le, "\"content\":", 10) || has_text(p + 5, le, "\"text\":", 7)))
            k++;
        if (!q)
            break;
        p = q + 1;
    }
    return k;
}

/* "m:ss", or "h:mm:ss" from an hour on. */
static void fmt_clock(char *b, size_t bs, double s)
{
    long t = s > 0 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(b, bs, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(b, bs, "%ld:%02ld", t / 60, t % 60);
}

void gp_cl_note_first_error(struct loop *L, long status, const char *txt, size_t len)
{
    if (L->stats->first_error[0])
        return;
    L->stats->first_error_status = status;
    size_t n = len < sizeof L->stats->first_error - 1 ? len : sizeof L->stats->first_error - 1;
    memcpy(L->stats->first_error, txt, n);
    L->stats->first_error[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (L->stats->first_error[i] == '\n' || L->stats->first_error[i] == '\r')
            L->stats->first_error[i] = ' ';
}

void gp_cl_progress_print(FILE *fp, const struct gp_cl_progress_view *v, int final)
{
    double el = v->elapsed_s;
    if (v->warmup) {
        fprintf(fp, "\r\033[Kwarmup: %llu/%ld sent", (unsigned long long)v->warmup_sent, v->total);
    } else {
        /* elapsed and what is left: of the count at the rate so far, or
         * of --duration, which is a time and is shown as one */
        char elb[24], tot[24], eta[40] = "", done[48];
        fmt_clock(elb, sizeof elb, el);
        double rate = el > 0 ? (double)v->done / el : 0.0;
        if (v->duration_ns) {
            double d = (double)v->duration_ns / 1e9;
            fmt_clock(tot, sizeof tot, d);
            snprintf(done, sizeof done, "%llu done", (unsigned long long)v->done);
            if (!final) {
                char r[24];
                fmt_clock(r, sizeof r, d - el);
                snprintf(eta, sizeof eta, "  ETA %s", r);
            }
        } else {
            tot[0] = '\0';
            if (v->total > 0)
                snprintf(done, sizeof done, "%llu/%ld done", (unsigned long long)v->done, v->total);
            else
                snprintf(done, sizeof done, "%llu done", (unsigned long long)v->done);
            if (!final && rate > 0 && v->total > 0 && (uint64_t)v->total > v->done) {
                char r[24];
                fmt_clock(r, sizeof r, (double)((uint64_t)v->total - v->done) / rate);
                snprintf(eta, sizeof eta, "  ETA %s", r);
            }
        }
        fprintf(fp, "\r\033[K%s  elapsed %s%s%s%s  %.1f req/s  ~%.0f tok/s  %llu failed  %llu in flight%s", done,
                elb, tot[0] ? " of " : "", tot, eta, rate, el > 0 ? (double)v->events / el : 0.0,
                (unsigned long long)v->failed, (unsigned long long)v->inflight, v->stopping ? "  (stopping)" : "");
    }
    if (final)
        fputc('\n', fp);
}

void gp_cl_progress_draw(struct loop *L, uint64_t now, int final)
{
    if (!L->o->progress)
        return;
    if (!final && now - L->last_progress_ns < 250000000ull)
        return;
    L->last_progress_ns = now;
    struct gp_client_progress *pub = L->o->progress_pub;
    if (pub) { /* a worker: the calling thread draws the sum */
        atomic_store_explicit(&pub->warmup, L->phase_warmup, memory_order_relaxed);
        atomic_store_explicit(&pub->warmup_sent, L->stats->n_warmup, memory_order_relaxed);
        atomic_store_explicit(&pub->phase_start_ns, L->phase_start, memory_order_relaxed);
        atomic_store_explicit(&pub->done, L->done_measured, memory_order_relaxed);
        atomic_store_explicit(&pub->failed, L->failed_measured, memory_order_relaxed);
        atomic_store_explicit(&pub->events, L->events_measured, memory_order_relaxed);
        atomic_store_explicit(&pub->inflight, L->inflight, memory_order_relaxed);
        atomic_store_explicit(&pub->stopping, L->stopping, memory_order_relaxed);
        return;
    }
    struct gp_cl_progress_view v = {
        .warmup = L->phase_warmup,
        .stopping = L->stopping,
        .warmup_sent = L->stats->n_warmup,
        .done = L->done_measured,
        .failed = L->failed_measured,
        .events = L->events_measured,
        .inflight = L->inflight,
        .total = L->phase_total,
        .duration_ns = L->o->load.duration_ns,
        .elapsed_s = (double)(now - L->phase_start) / 1e9,
    };
    gp_cl_progress_print(L->o->progress, &v, final);
    L->progress_drawn = !final;
}

void gp_cl_progress_sum(const struct gp_client_opts *o, struct gp_client_progress *pub, int n, uint64_t now, int final,
                        int *shown_warmup)
{
    struct gp_cl_progress_view v = {.duration_ns = o->load.duration_ns};
    uint64_t t0 = 0;
    for (int i = 0; i < n; i++) {
        struct gp_client_progress *p = &pub[i];
        v.warmup |= atomic_load_explicit(&p->warmup, memory_order_relaxed);
        v.stopping |= atomic_load_explicit(&p->stopping, memory_order_relaxed);
        v.warmup_sent += atomic_load_explicit(&p->warmup_sent, memory_order_relaxed);
        v.done += atomic_load_explicit(&p->done, memory_order_relaxed);
        v.failed += atomic_load_explicit(&p->failed, memory_order_relaxed);
        v.events += atomic_load_explicit(&p->events, memory_order_relaxed);
        v.inflight += atomic_load_explicit(&p->inflight, memory_order_relaxed);
        uint64_t s = atomic_load_explicit(&p->phase_start_ns, memory_order_relaxed);
        if (s && (!t0 || s < t0))
            t0 = s;
    }
    if (!t0 && !final)
        return; /* no worker has published yet */
    if (*shown_warmup && !v.warmup)
        fputc('\n', o->progress);
    *shown_warmup = v.warmup;
    v.total = v.warmup ? o->load.warmup_count : o->load.duration_ns || o->plan ? -1 : o->load.request_count;
    v.elapsed_s = t0 && now > t0 ? (double)(now - t0) / 1e9 : 0;
    gp_cl_progress_print(o->progress, &v, final);
}

uint64_t gp_cl_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
