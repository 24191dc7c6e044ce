/* bench/sched_floor.c — the floor for schedule lateness on this machine: the
 * same arrival list genperf would use (sched/ arrivals), driven by nothing
 * but clock_nanosleep(TIMER_ABSTIME) on CLOCK_MONOTONIC. For each request it
 * sleeps until the due time, stamps the clock on waking and records
 * stamp - due. No sockets, no event loop: whatever lateness this shows, a
 * load generator on this host cannot beat.
 * Linux adds up to the thread's timer slack (50 us by default) to every
 * sleep; --slack-ns 1 sets it to 1 ns with prctl(PR_SET_TIMERSLACK), which
 * is what a precise client thread must do too.
 *   sched_floor --rate R [--seconds S] [--mode constant|poisson] [--slack-ns N]
 * prints one human line and "figures: p50_us=.. p99_us=.. max_us=.. late_1ms=.. n=..".
 */
#include "core/clock.h"
#include "core/error.h"
#include "sched/sched.h"

#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    struct gp_sched_load l = {.mode = GP_SCHED_CONSTANT, .rate = 1000};
    double seconds = 2;
    long slack = 0; /* 0 = leave the default */
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rate"))
            l.rate = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds"))
            seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--slack-ns"))
            slack = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--mode"))
            l.mode = !strcmp(argv[i + 1], "poisson") ? GP_SCHED_POISSON : GP_SCHED_CONSTANT;
        else {
            fprintf(stderr, "usage: sched_floor --rate R [--seconds S] [--mode constant|poisson] [--slack-ns N]\n");
            return 2;
        }
    }
    size_t n = (size_t)(l.rate * seconds), k;
    int64_t *due = NULL;
    struct gp_error err;
    if (n == 0 || gp_sched_arrivals(&l, n, 1, 0, &due, &k, &err)) {
        fprintf(stderr, "sched_floor: %s\n", n ? err.msg : "--rate x --seconds gives no requests");
        return 1;
    }
    if (slack > 0 && prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0) != 0) {
        perror("sched_floor: prctl(PR_SET_TIMERSLACK)");
        return 1;
    }
    long cur = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    int64_t *sent = malloc(n * sizeof *sent);
    if (!sent)
        return 1;
    uint64_t t0 = gp_now_ns() + 20000000ull; /* start 20 ms out: page in, settle */
    for (size_t i = 0; i < n; i++) {
        uint64_t at = t0 + (uint64_t)due[i];
        struct timespec ts = {.tv_sec = (time_t)(at / 1000000000ull), .tv_nsec = (long)(at % 1000000000ull)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
        }
        sent[i] = (int64_t)(gp_now_ns() - t0);
    }
    struct gp_sched_lag g;
    if (gp_sched_lag_compute(due, sent, n, &g, &err)) {
        fprintf(stderr, "sched_floor: %s\n", err.msg);
        return 1;
    }
    printf("floor %s %.0f req/s, timer slack %ld ns, %zu requests: lateness p50 %.1f us, p99 %.1f us, max %.1f us, %zu > 1 ms\n",
           l.mode == GP_SCHED_POISSON ? "poisson" : "constant", l.rate, cur, n, g.p50_ms * 1e3, g.p99_ms * 1e3,
           g.max_ms * 1e3, g.late_1ms);
    printf("figures: p50_us=%.1f p99_us=%.1f max_us=%.1f late_1ms=%zu n=%zu\n", g.p50_ms * 1e3, g.p99_ms * 1e3,
           g.max_ms * 1e3, g.late_1ms, n);
    free(due);
    free(sent);
    return 0;
}
