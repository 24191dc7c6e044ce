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

void gp_cl_progress_draw(struct loop *L, uint64_t now, int final)
{
    if (!L->o->progress)
        return;
    if (!final && now - L->last_progress_ns < 250000000ull)
        return;
    L->last_progress_ns = now;
    double el = (double)(now - L->phase_start) / 1e9;
    if (L->phase_warmup) {
        fprintf(stderr, "\r\033[Kwarmup: %llu/%ld sent", (unsigned long long)L->stats->n_warmup, L->phase_total);
    } else {
        /* elapsed and what is left: of the count at the rate so far, or
         * of --duration, which is a time and is shown as one */
        char elb[24], tot[24], eta[40] = "";
        fmt_clock(elb, sizeof elb, el);
        double rate = el > 0 ? (double)L->done_measured / el : 0.0;
        char done[48];
        if (L->o->duration_ns) {
            double d = (double)L->o->duration_ns / 1e9;
            fmt_clock(tot, sizeof tot, d);
            snprintf(done, sizeof done, "%llu done", (unsigned long long)L->done_measured);
            if (!final) {
                char r[24];
                fmt_clock(r, sizeof r, d - el);
                snprintf(eta, sizeof eta, "  ETA %s", r);
            }
        } else {
            tot[0] = '\0';
            snprintf(done, sizeof done, "%llu/%ld done", (unsigned long long)L->done_measured, L->phase_total);
            if (!final && rate > 0 && L->phase_total > 0 && (uint64_t)L->phase_total > L->done_measured) {
                char r[24];
                fmt_clock(r, sizeof r, (double)((uint64_t)L->phase_total - L->done_measured) / rate);
                snprintf(eta, sizeof eta, "  ETA %s", r);
            }
        }
        fprintf(stderr, "\r\033[K%s  elapsed %s%s%s%s  %.1f req/s  ~%.0f tok/s  %llu failed  %zu in flight%s", done, elb,
                tot[0] ? " of " : "", tot, eta, rate, el > 0 ? (double)L->events_measured / el : 0.0,
                (unsigned long long)L->failed_measured, L->inflight, L->stopping ? "  (stopping)" : "");
    }
    L->progress_drawn = 1;
    if (final) {
        fputc('\n', stderr);
        L->progress_drawn = 0;
    }
}

uint64_t gp_cl_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
