/* client/client_stats.c — what the loop reports besides the records: the
 * progress line, the first failure's text, the thread's CPU time.
 */
#include "client/client_int.h"
#include "core/clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Counts SSE data events in a finished response, for the progress line only.
 * Lines are found with memchr for '\n' (two per event), not for 'd', which
 * every JSON event is full of. A "\r"-only line end is not split: the count
 * is a progress estimate, metrics/ parses the events exactly. */
uint64_t gp_cl_count_events(const char *p, size_t n)
{
    uint64_t k = 0;
    const char *end = p + n;
    while (p < end) {
        if (end - p >= 5 && !memcmp(p, "data:", 5))
            k++;
        const char *q = memchr(p, '\n', (size_t)(end - p));
        if (!q)
            break;
        p = q + 1;
    }
    return k;
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
        char tot[32];
        if (L->phase_total > 0)
            snprintf(tot, sizeof tot, "%ld", L->phase_total);
        else
            snprintf(tot, sizeof tot, "%.0fs", (double)L->o->duration_ns / 1e9);
        fprintf(stderr, "\r\033[K%llu/%s done  %.1f req/s  ~%.0f tok/s  %llu failed  %zu in flight%s",
                (unsigned long long)L->done_measured, tot, el > 0 ? (double)L->done_measured / el : 0.0,
                el > 0 ? (double)L->events_measured / el : 0.0, (unsigned long long)L->failed_measured,
                L->inflight, L->stopping ? "  (stopping)" : "");
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
