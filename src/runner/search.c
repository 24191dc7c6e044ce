/* runner/search.c — bracketing, bisection and the stop rules of
 * `genperf search`. See search.h. */
#include "runner/search.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void gp_search_init(struct gp_search *s, int is_rate)
{
    memset(s, 0, sizeof *s);
    s->is_rate = is_rate;
    s->start = 1;
    s->max = 1024;
    s->target = 0.9;
    s->tolerance = 0.1;
    s->sat_gain = 0.1;
    s->sat_latency = 0.1;
    s->max_cells = 16;
}

void gp_search_fmt(const struct gp_search *s, double v, char *out, size_t sz)
{
    if (s->is_rate)
        snprintf(out, sz, "%.10g", v);
    else
        snprintf(out, sz, "%.0f", v);
}

const char *gp_search_stop_name(enum gp_search_stop s)
{
    static const char *const names[] = {"running",   "converged", "none_meets", "reached_max", "saturated",
                                        "cell_cap",  "time_cap",  "cell_failed", "interrupted"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

void gp_search_halt(struct gp_search *s, enum gp_search_stop why, const char *detail)
{
    if (s->stop)
        return;
    s->stop = why;
    snprintf(s->why, sizeof s->why, "%s", detail);
}

double gp_search_limit(const struct gp_search *s) { return s->lo; }

static const char *unit(const struct gp_search *s) { return s->is_rate ? "request rate" : "concurrency"; }

/* The value half-way between lo (0 = below the smallest) and hi, on the
 * search's grid; 0 when there is none strictly between them. */
static double midpoint(const struct gp_search *s)
{
    if (!s->is_rate) {
        double m = floor((s->lo + s->hi) / 2);
        return m > s->lo && m < s->hi && m >= 1 ? m : 0;
    }
    /* rates on a 0.01 grid: finer than any client can pace */
    double m = round((s->lo + s->hi) / 2 * 100) / 100;
    return m > s->lo && m < s->hi && m >= 0.01 ? m : 0;
}

double gp_search_next(struct gp_search *s)
{
    char a[48], b[48], d[512];
    if (s->stop)
        return 0;
    if (s->n == 0)
        return s->is_rate ? s->start : floor(s->start);
    if (s->n >= s->max_cells || s->n >= GP_SEARCH_MAX_CELLS) {
        gp_search_fmt(s, s->lo, a, sizeof a);
        gp_search_fmt(s, s->hi, b, sizeof b);
        if (s->hi)
            snprintf(d, sizeof d, "stopped after %zu cells (--max-cells): the limit lies between %s %s and %s", s->n,
                     unit(s), s->lo ? a : "(none)", b);
        else
            snprintf(d, sizeof d, "stopped after %zu cells (--max-cells) while still doubling: %s %s met the target",
                     s->n, unit(s), a);
        gp_search_halt(s, GP_SEARCH_CELL_CAP, d);
        return 0;
    }
    if (!s->hi) {
        if (s->lo >= s->max) {
            gp_search_fmt(s, s->max, a, sizeof a);
            snprintf(d, sizeof d, "reached the highest %s allowed (--search-max %s) and it still meets the target",
                     unit(s), a);
            gp_search_halt(s, GP_SEARCH_REACHED_MAX, d);
            return 0;
        }
        double v = s->lo * 2;
        return v > s->max ? s->max : v;
    }
    s->bisecting = 1;
    double m = midpoint(s);
    int close = s->is_rate && s->lo > 0 && s->hi - s->lo <= s->tolerance * s->hi;
    if (!m || close) {
        gp_search_fmt(s, s->lo, a, sizeof a);
        gp_search_fmt(s, s->hi, b, sizeof b);
        if (!s->lo) {
            snprintf(d, sizeof d, "no %s met the target: even %s %s missed it", unit(s), unit(s), b);
            gp_search_halt(s, GP_SEARCH_NONE_MEETS, d);
        } else {
            snprintf(d, sizeof d, "converged: %s %s meets the target, %s does not", unit(s), a, b);
            gp_search_halt(s, GP_SEARCH_CONVERGED, d);
        }
        return 0;
    }
    return m;
}

static double throughput(const struct gp_search_cell *c) { return c->tok_thr > 0 ? c->tok_thr : c->req_thr; }

void gp_search_record(struct gp_search *s, const struct gp_search_cell *c)
{
    if (s->n >= GP_SEARCH_MAX_CELLS)
        return;
    struct gp_search_cell *me = &s->cells[s->n++];
    *me = *c;
    me->meets = me->requests > 0 && me->share >= s->target - 1e-12;
    if (!me->meets) {
        if (!s->hi || me->value < s->hi)
            s->hi = me->value;
        return;
    }
    if (me->value > s->lo)
        s->lo = me->value;
    /* Saturation is judged only while doubling: there each step doubles
     * the load, so an unsaturated server must gain clearly. Near the
     * limit, during bisection, a flat throughput is expected. */
    if (s->hi || s->n < 2)
        return;
    const struct gp_search_cell *p = &s->cells[s->n - 2];
    if (!p->meets || p->value >= me->value || throughput(p) <= 0 || p->lat_avg <= 0)
        return;
    double gain = throughput(me) / throughput(p) - 1, rise = me->lat_avg / p->lat_avg - 1;
    if (gain < s->sat_gain && rise > s->sat_latency) {
        char a[48], b[48], d[512];
        gp_search_fmt(s, me->value, a, sizeof a);
        gp_search_fmt(s, p->value, b, sizeof b);
        snprintf(d, sizeof d,
                 "saturated at %s %s: throughput %+.1f%% over %s while average request latency %+.1f%%; "
                 "more load buys no throughput",
                 unit(s), a, gain * 100, b, rise * 100);
        gp_search_halt(s, GP_SEARCH_SATURATED, d);
    }
}
