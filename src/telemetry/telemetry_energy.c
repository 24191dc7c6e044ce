/* telemetry/telemetry_energy.c — the energy a run's GPUs used (see
 * gp_telemetry_energy_json in telemetry.h), from the samples already taken.
 *
 * Owns nothing beyond the JSON it returns. The sampler reads NVML's total
 * energy counter (nvmlDeviceGetTotalEnergyConsumption, mJ since the driver
 * loaded) at its first tick, which is taken at start, and at its last, taken
 * at stop: the difference is the energy of the window, exact to the
 * counter's resolution whatever the sampling interval. Power x time between
 * samples misses every spike shorter than the interval, so it is only the
 * fallback, for a GPU without the counter (before Volta) or one whose counter
 * went backwards (reset, device lost and back).
 */
#include "telemetry/telemetry.h"
#include "telemetry/telemetry_int.h"

#include <string.h>

struct gpu_energy {
    int have_e, have_p;
    double e_first, e_last;          /* J */
    uint64_t te_first, te_last;      /* ns */
    double p_prev, p_integral, p_max; /* W, J, W */
    uint64_t tp_first, tp_prev;
};

/* One GPU's entry, or NULL when the samples do not span any time. */
static json_t *gpu_json(int idx, const struct gpu_energy *g, int *counter)
{
    double joules, secs;
    *counter = g->have_e && g->te_last > g->te_first && g->e_last >= g->e_first;
    if (*counter) {
        joules = g->e_last - g->e_first;
        secs = (double)(g->te_last - g->te_first) / 1e9;
    } else if (g->have_p && g->tp_prev > g->tp_first) {
        joules = g->p_integral;
        secs = (double)(g->tp_prev - g->tp_first) / 1e9;
    } else {
        return NULL;
    }
    json_t *o = json_object();
    json_object_set_new(o, "gpu", json_integer(idx));
    json_object_set_new(o, "source", json_string(*counter ? "counter" : "power_integral"));
    json_object_set_new(o, "seconds", json_real(secs));
    json_object_set_new(o, "joules", json_real(joules));
    json_object_set_new(o, "avg_watts", json_real(joules / secs));
    json_object_set_new(o, "peak_watts", g->have_p ? json_real(g->p_max) : json_null());
    return o;
}

json_t *gp_telemetry_energy_json(const struct gp_telemetry *t)
{
    if (!t)
        return NULL;
    static struct gpu_energy zero;
    struct gpu_energy g[GP_NVML_MAX_DEV];
    for (int i = 0; i < GP_NVML_MAX_DEV; i++)
        g[i] = zero;
    for (size_t i = 0; i < t->n; i++) {
        const struct gp_telemetry_sample *s = &t->s[i];
        if (s->device_kind != GP_TD_GPU || s->device_index >= GP_NVML_MAX_DEV)
            continue;
        struct gpu_energy *e = &g[s->device_index];
        if (s->metric == GP_TM_ENERGY_J) {
            if (!e->have_e) {
                e->e_first = s->value;
                e->te_first = s->t_ns;
            }
            e->have_e = 1;
            e->e_last = s->value;
            e->te_last = s->t_ns;
        } else if (s->metric == GP_TM_POWER_W) {
            /* trapezoids between consecutive readings */
            if (!e->have_p) {
                e->tp_first = s->t_ns;
                e->p_max = s->value;
            } else {
                e->p_integral += (e->p_prev + s->value) / 2 * (double)(s->t_ns - e->tp_prev) / 1e9;
            }
            if (s->value > e->p_max)
                e->p_max = s->value;
            e->have_p = 1;
            e->p_prev = s->value;
            e->tp_prev = s->t_ns;
        }
    }
    json_t *gpus = json_array();
    double joules = 0, watts = 0;
    int n_counter = 0, n = 0;
    for (int i = 0; i < GP_NVML_MAX_DEV; i++) {
        int counter = 0;
        json_t *o = gpu_json(i, &g[i], &counter);
        if (!o)
            continue;
        joules += json_real_value(json_object_get(o, "joules"));
        watts += json_real_value(json_object_get(o, "avg_watts"));
        n_counter += counter;
        n++;
        json_array_append_new(gpus, o);
    }
    if (!n) {
        json_decref(gpus);
        return NULL;
    }
    json_t *o = json_object();
    json_object_set_new(o, "source", json_string(n_counter == n ? "counter" : n_counter ? "mixed" : "power_integral"));
    json_object_set_new(o, "gpu_count", json_integer(n));
    json_object_set_new(o, "joules", json_real(joules));
    json_object_set_new(o, "avg_watts", json_real(watts));
    json_object_set_new(o, "gpus", gpus);
    return o;
}
