/* Unit tests: /proc parsers on fixtures, and live host samples vs /proc. */
#include "core/clock.h"
#include "core/fsutil.h"
#include "core/test.h"
#include "telemetry/host.h"
#include "telemetry/telemetry.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void test_parse_stat(void)
{
    const char *a =
        "cpu  100 0 50 800 50 0 0 0 0 0\n"
        "cpu0 60 0 20 400 20 0 0 0 0 0\n"
        "cpu2 40 0 30 400 30 0 0 0 0 0\n"
        "intr 12345 1 2 3\n"
        "cpu9 1 1 1 1\n";
    const char *b =
        "cpu  200 0 100 1500 100 0 0 0 5 5\n"
        "cpu0 160 0 20 400 20 0 0 0 0 0\n"
        "cpu2 40 0 80 850 30 0 0 0 0 0\n";
    struct gp_host_cpu all0, all1, c0[4], c1[4];
    CHECK_INT(gp_host_parse_stat(a, &all0, c0, 4), 2);
    CHECK_INT(gp_host_parse_stat(b, &all1, c1, 4), 2);
    CHECK(c0[0].valid && !c0[1].valid && c0[2].valid && !c0[3].valid);
    CHECK_INT(all0.total, 1000);
    CHECK_INT(all0.idle, 850);
    /* guest (field 9) is already inside user: not added again */
    CHECK_INT(all1.total, 1900);
    /* 900 jiffies passed, 750 of them idle+iowait */
    CHECK_NEAR(gp_host_cpu_util(&all0, &all1), 100.0 * 150 / 900, 1e-9);
    CHECK_NEAR(gp_host_cpu_util(&c0[0], &c1[0]), 100.0, 1e-9);
    CHECK_NEAR(gp_host_cpu_util(&c0[2], &c1[2]), 100.0 * 50 / 500, 1e-9);
    CHECK(gp_host_cpu_util(&all1, &all0) < 0);   /* backwards */
    CHECK(gp_host_cpu_util(&all0, &all0) < 0);   /* no time passed */
    struct gp_host_cpu x;
    CHECK_INT(gp_host_parse_stat("intr 1 2\n", &x, c0, 4), -1);
}

static void test_parse_misc(void)
{
    double l1;
    CHECK_INT(gp_host_parse_loadavg("1.25 0.50 0.10 2/345 6789\n", &l1), 0);
    CHECK_NEAR(l1, 1.25, 0);
    CHECK(gp_host_parse_loadavg("", &l1) < 0);
    uint64_t tot, av;
    const char *mi = "MemTotal:       16000000 kB\nMemFree:         1000 kB\n"
                     "MemAvailable:    4000000 kB\nBuffers: 1 kB\n";
    CHECK_INT(gp_host_parse_meminfo(mi, &tot, &av), 0);
    CHECK_INT(tot, 16000000ull * 1024);
    CHECK_INT(av, 4000000ull * 1024);
    CHECK(gp_host_parse_meminfo("MemTotal: 5 kB\n", &tot, &av) < 0);
}

struct col { int n_host_cpu, n_cores, n_load, n_used, n_avail, n_proc; double used, avail, load, proc; };

static void emit(void *ctx, int kind, int index, int metric, double v)
{
    struct col *c = ctx;
    if (kind == GP_TD_HOST && metric == GP_TM_CPU_UTIL_PCT) {
        c->n_host_cpu++;
        CHECK(v >= 0 && v <= 100);
    } else if (kind == GP_TD_CPU) {
        c->n_cores++;
        CHECK(v >= 0 && v <= 100);
        CHECK(index >= 0);
    } else if (metric == GP_TM_LOAD1) {
        c->n_load++, c->load = v;
    } else if (metric == GP_TM_HOST_MEM_USED_BYTES) {
        c->n_used++, c->used = v;
    } else if (metric == GP_TM_HOST_MEM_AVAILABLE_BYTES) {
        c->n_avail++, c->avail = v;
    } else if (kind == GP_TD_GENPERF) {
        c->n_proc++, c->proc = v;
    }
}

/* genperf's cpu_pct over short windows (found on an H200 machine: the sample
 * right after open divided a batch of /proc clock ticks by 43 us). */
static void test_proc_window(void)
{
    /* the device's numbers: 10 ms of CPU seen 43 us after open: no value */
    CHECK(gp_host_proc_pct(0, 1000000, 10000000, 1043000) < 0);
    CHECK(gp_host_proc_pct(0, 0, 1, GP_HOST_PROC_MIN_WINDOW_NS - 1) < 0);
    CHECK_NEAR(gp_host_proc_pct(5000000, 0, 55000000, 500000000), 10.0, 1e-9);
    CHECK_NEAR(gp_host_proc_pct(0, 0, 2000000000, 1000000000), 200.0, 1e-9);  /* two threads */
    CHECK(gp_host_proc_pct(10, 0, 5, 500000000) < 0);   /* CPU time went backwards */
    CHECK(gp_host_proc_pct(0, 500, 5, 100) < 0);        /* so did the clock */

    /* a sample right after open emits no cpu_pct and keeps the open baseline,
     * so the next one covers open -> now and stays within one core (one
     * thread here) */
    struct gp_host h;
    char reason[256];
    CHECK_INT(gp_host_open(&h, reason, sizeof reason), 0);
    struct col c = {0};
    gp_host_sample(&h, h.prev_proc_ns + 1000, emit, &c);
    CHECK_INT(c.n_proc, 0);
    volatile double x = 0;
    for (int i = 0; i < 2000000; i++)
        x += 1.0;
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
    memset(&c, 0, sizeof c);
    gp_host_sample(&h, gp_now_ns(), emit, &c);
    CHECK_INT(c.n_proc, 1);
    CHECK(c.proc >= 0 && c.proc <= 101.0);
    gp_host_close(&h);
}

static void test_live_vs_proc(void)
{
    struct gp_host h;
    char reason[256];
    CHECK_INT(gp_host_open(&h, reason, sizeof reason), 0);
    /* burn ~150 ms of CPU time (not wall time: the machine may be busy) */
    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    uint64_t t0 = gp_now_ns();
    volatile double x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x += 1.0;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    } while ((c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec) < 150e6);
    uint64_t t1 = gp_now_ns();
    double expect = 100.0 * ((c1.tv_sec - c0.tv_sec) * 1e9 + (c1.tv_nsec - c0.tv_nsec)) / (double)(t1 - t0);
    struct col c = {0};
    int n = gp_host_sample(&h, t1, emit, &c);
    CHECK(n > 4);
    CHECK_INT(c.n_host_cpu, 1);
    CHECK_INT(c.n_load, 1);
    CHECK_INT(c.n_used, 1);
    CHECK_INT(c.n_avail, 1);
    CHECK_INT(c.n_proc, 1);
    /* the window is open -> t1, a little wider than t0 -> t1 */
    CHECK_NEAR(c.proc, expect, 5.0);

    /* compare with /proc read independently */
    char *mi = NULL, *la = NULL, *st = NULL;
    CHECK_INT(gp_read_file("/proc/meminfo", &mi, NULL, NULL), 0);
    CHECK_INT(gp_read_file("/proc/loadavg", &la, NULL, NULL), 0);
    CHECK_INT(gp_read_file("/proc/stat", &st, NULL, NULL), 0);
    uint64_t tot = 0, av = 0;
    double l1 = -1;
    if (mi && la) {
        CHECK_INT(gp_host_parse_meminfo(mi, &tot, &av), 0);
        CHECK_INT(gp_host_parse_loadavg(la, &l1), 0);
        CHECK_NEAR(c.used + c.avail, (double)tot, 1.0);
        CHECK_NEAR(c.avail, (double)av, 0.05 * (double)tot);
        CHECK_NEAR(c.load, l1, 0.5);
    }
    if (st) {
        struct gp_host_cpu all, *cores = calloc((size_t)h.maxcpu, sizeof *cores);
        int ncores = gp_host_parse_stat(st, &all, cores, h.maxcpu);
        CHECK_INT(c.n_cores, ncores);
        free(cores);
    }
    free(mi);
    free(la);
    free(st);
    (void)x;
    gp_host_close(&h);
}

int main(void)
{
    GP_RUN(test_parse_stat);
    GP_RUN(test_parse_misc);
    GP_RUN(test_proc_window);
    GP_RUN(test_live_vs_proc);
    return gp_test_summary();
}
