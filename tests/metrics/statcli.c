/* tests/metrics/statcli.c — a test helper for the e2e checks against NumPy
 * and rich (not a unit test; built to $(BUILD)/tools/metrics_statcli).
 *
 *   metrics_statcli stats
 *       reads numbers (one per line) and prints gp_stats_compute's
 *       avg p1 p5 p10 p25 p50 p75 p90 p95 p99 min max std as Python repr.
 *   metrics_statcli console WIDTH SCALE STREAMING [noisl]
 *       prints gp_export_console_buf for the CSV exporter's fixture lists
 *       (TTFT 7,8,9 ... ; latency, TTFT, TPS/user and output throughput x SCALE).
 */
#include "core/buf.h"
#include "core/pytext.h"
#include "export/export.h"
#include "core/pytext.h"
#include "core/stats.h"
#include "metrics/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int stats_mode(void)
{
    size_t cap = 1 << 16, n = 0;
    double *x = malloc(cap * sizeof *x), v;
    if (!x)
        return 1;
    while (scanf("%lf", &v) == 1) {
        if (n == cap) {
            double *nx = realloc(x, cap * 2 * sizeof *x);
            if (!nx)
                return 1;
            x = nx;
            cap *= 2;
        }
        x[n++] = v;
    }
    struct gp_stats s;
    gp_stats_compute(x, n, &s);
    char b[64];
    gp_py_float_repr(s.avg, b, sizeof b);
    printf("%s", b);
    for (int i = 0; i < GP_NPCT; i++) {
        gp_py_float_repr(s.p[i], b, sizeof b);
        printf(" %s", b);
    }
    gp_py_float_repr(s.min, b, sizeof b);
    printf(" %s", b);
    gp_py_float_repr(s.max, b, sizeof b);
    printf(" %s", b);
    gp_py_float_repr(s.std, b, sizeof b);
    printf(" %s\n", b);
    free(x);
    return 0;
}

static void set3(struct gp_metrics_result *m, int k, double a, double b, double c)
{
    double x[3] = {a, b, c};
    gp_stats_compute(x, 3, &m->stats[k]);
}

static void sys1(struct gp_metrics_result *m, int k, double v)
{
    m->stats[k].present = m->stats[k].system = 1;
    m->stats[k].avg = v;
}

static int console_mode(int width, double sc, int streaming, int noisl)
{
    struct gp_metrics_result m;
    memset(&m, 0, sizeof m);
    set3(&m, GP_M_TTFT, 7 * sc, 8 * sc, 9 * sc);
    set3(&m, GP_M_TTST, 1, 2, 3);
    set3(&m, GP_M_REQUEST_LATENCY, 4 * sc, 5 * sc, 6 * sc);
    set3(&m, GP_M_ITL, 10, 11, 12);
    set3(&m, GP_M_TPS_PER_USER, 4 * sc, 5 * sc, 6 * sc);
    set3(&m, GP_M_OSL, 1, 2, 3);
    if (!noisl)
        set3(&m, GP_M_ISL, 5, 6, 7);
    sys1(&m, GP_M_OUTPUT_TOKEN_THROUGHPUT, 456 * sc);
    sys1(&m, GP_M_REQUEST_THROUGHPUT, 123);
    sys1(&m, GP_M_REQUEST_COUNT, 3);
    struct gp_export_ctx c = {0};
    c.m = &m;
    c.streaming = streaming;
    struct gp_buf b = {0};
    if (gp_export_console_buf(&c, width, &b))
        return 1;
    fputs(b.data, stdout);
    gp_buf_free(&b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "stats") == 0)
        return stats_mode();
    if (argc >= 5 && strcmp(argv[1], "console") == 0)
        return console_mode(atoi(argv[2]), atof(argv[3]), atoi(argv[4]), argc > 5);
    fprintf(stderr, "usage: metrics_statcli stats | console WIDTH SCALE STREAMING [noisl]\n");
    return 2;
}
