/* sched/lag.c — schedule lateness: how long after its due time each
 * open-loop request was actually sent. Allocates only scratch it frees.
 */
#include "sched/sched.h"

#include "core/error.h"
#include "core/stats.h"

#include <stdlib.h>
#include <string.h>

int gp_sched_lag_compute(const int64_t *t_sched_ns, const int64_t *t_start_ns, size_t n, struct gp_sched_lag *out,
                         struct gp_error *err)
{
    memset(out, 0, sizeof *out);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += t_sched_ns[i] >= 0;
    if (m == 0)
        return 0;
    double *lag = malloc(m * sizeof *lag);
    if (!lag)
        return gp_err(err, GP_ENOMEM, "out of memory for %zu schedule lags", m);
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (t_sched_ns[i] < 0)
            continue;
        int64_t d = t_start_ns[i] - t_sched_ns[i];
        if (d < 0) {
            out->early++;
            d = 0;
        }
        if (d > 1000000)
            out->late_1ms++;
        if ((double)d > GP_SCHED_LATE_WARN_MS * 1e6)
            out->late_warn++;
        lag[k] = (double)d / 1e6;
        sum += lag[k++];
    }
    qsort(lag, m, sizeof *lag, gp_cmp_double);
    out->n = m;
    out->avg_ms = sum / (double)m;
    out->p50_ms = gp_percentile_sorted(lag, m, 50);
    out->p99_ms = gp_percentile_sorted(lag, m, 99);
    out->max_ms = lag[m - 1];
    free(lag);
    return 0;
}
