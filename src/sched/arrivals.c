/* sched/arrivals.c — open-loop arrival times and the concurrency ramp.
 * Ownership as in sched.h: gp_sched_arrivals mallocs *out, the caller frees.
 */
#include "sched/sched.h"

#include "core/error.h"
#include "core/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Gamma(a, 1) by Marsaglia & Tsang (2000); for a < 1 the boost
 * Gamma(a) = Gamma(a + 1) * U^(1/a). Only +,*,/, sqrt, log, pow and our own
 * normal draws, so the sequence is the same on every libc. */
static double gamma_draw(struct gp_rng *r, double a)
{
    double boost = 1.0;
    if (a < 1.0) {
        double u = 1.0 - gp_rng_double(r); /* (0, 1] */
        boost = pow(u, 1.0 / a);
        a += 1.0;
    }
    double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = gp_rng_normal(r), v = 1.0 + c * x;
        if (v <= 0.0)
            continue;
        v = v * v * v;
        double u = gp_rng_double(r);
        if (u < 1.0 - 0.0331 * (x * x) * (x * x))
            return d * v * boost;
        if (u > 0.0 && log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
            return d * v * boost;
    }
}

/* Gap i in operational time (units of "expected requests"): mean 1. Each gap
 * has its own stream, so gap i is the same whatever n is. */
static double gap(const struct gp_sched_load *l, size_t i)
{
    if (l->mode == GP_SCHED_CONSTANT)
        return 1.0;
    struct gp_rng r;
    gp_rng_seed_stream(&r, l->seed, GP_SCHED_RNG_ARRIVAL, (uint64_t)i);
    if (l->mode == GP_SCHED_POISSON || l->burstiness == 1.0)
        return -log(1.0 - gp_rng_double(&r));
    /* shape b, scale 1/b: mean 1, so rate only enters through the time map */
    return gamma_draw(&r, l->burstiness) / l->burstiness;
}

/* Inverse of Λ(t) = expected requests sent by time t (seconds). With a ramp
 * the rate is r0 + (R - r0) t / S on [0, S], then R: Λ is a quadratic, then a
 * line. The root is written 2u / (r0 + sqrt(r0² + 4au)) so that r0 = R (a = 0)
 * and r0 = 0 need no special case and nothing cancels. */
static double inv_lambda(const struct gp_sched_load *l, double u)
{
    double R = l->rate;
    if (l->ramp_s <= 0.0)
        return u / R;
    double S = l->ramp_s, r0 = l->ramp_start_rate, uS = 0.5 * (r0 + R) * S;
    if (u >= uS)
        return S + (u - uS) / R;
    if (u <= 0.0)
        return 0.0;
    double a = (R - r0) / (2.0 * S);
    return 2.0 * u / (r0 + sqrt(r0 * r0 + 4.0 * a * u));
}

int gp_sched_load_check(const struct gp_sched_load *l, struct gp_error *err)
{
    if (!(l->rate > 0.0) || !isfinite(l->rate))
        return gp_err(err, GP_EINVAL, "--request-rate %g: must be a finite number of requests/s > 0", l->rate);
    if (l->mode != GP_SCHED_CONSTANT && l->mode != GP_SCHED_POISSON && l->mode != GP_SCHED_GAMMA)
        return gp_err(err, GP_EINVAL, "--request-rate-mode: use constant, poisson or gamma");
    if (l->mode == GP_SCHED_GAMMA && (!(l->burstiness > 0.0) || !isfinite(l->burstiness)))
        return gp_err(err, GP_EINVAL,
                      "--burstiness %g: must be > 0 (1 = Poisson, < 1 burstier, > 1 more even)", l->burstiness);
    if (!(l->ramp_s >= 0.0) || !isfinite(l->ramp_s))
        return gp_err(err, GP_EINVAL, "--ramp-up-duration %g: must be a number of seconds >= 0", l->ramp_s);
    if (l->ramp_s > 0.0 && (!(l->ramp_start_rate >= 0.0) || !(l->ramp_start_rate < l->rate)))
        return gp_err(err, GP_EINVAL, "ramp start rate %g: must be >= 0 and below --request-rate %g",
                      l->ramp_start_rate, l->rate);
    return 0;
}

int gp_sched_iter_init(struct gp_sched_iter *it, const struct gp_sched_load *l, size_t nworkers, size_t worker,
                       struct gp_error *err)
{
    memset(it, 0, sizeof *it);
    int rc = gp_sched_load_check(l, err);
    if (rc)
        return rc;
    if (nworkers == 0 || worker >= nworkers)
        return gp_err(err, GP_EINVAL, "worker %zu of %zu: the worker index must be below the worker count", worker,
                      nworkers);
    it->l = *l;
    it->stride = nworkers;
    it->scale = 1.0;
    /* walk to this worker's first arrival, summing the gaps it skips */
    for (size_t k = 0; k < worker; k++)
        it->u += gap(l, it->i++);
    return 0;
}

int64_t gp_sched_iter_next(struct gp_sched_iter *it)
{
    double ns = inv_lambda(&it->l, it->u * it->scale) * 1e9;
    /* Every worker sums the same gaps in the same order, so its times are
     * bit-identical to the single-list ones. */
    for (uint64_t k = 0; k < it->stride; k++)
        it->u += gap(&it->l, it->i++);
    return ns < 9.0e18 ? (int64_t)llround(ns) : INT64_MAX;
}

int gp_sched_arrivals(const struct gp_sched_load *l, size_t n, size_t nworkers, size_t worker, int64_t **out,
                      size_t *nout, struct gp_error *err)
{
    *out = NULL;
    *nout = 0;
    struct gp_sched_iter it;
    int rc = gp_sched_iter_init(&it, l, nworkers, worker, err);
    if (rc)
        return rc;
    size_t mine = n / nworkers + (worker < n % nworkers);
    int64_t *t = malloc((mine ? mine : 1) * sizeof *t);
    if (!t)
        return gp_err(err, GP_ENOMEM, "out of memory for %zu arrival times", mine);
    /* vLLM's normalization: the n gaps (the one after the last request
     * included) are scaled to sum to exactly n, so the achieved mean rate
     * does not wander with the seed. It needs the total first: one extra
     * pass, cheap because each gap is a pure function of (seed, i). */
    if (l->normalize && l->ramp_s <= 0.0 && l->mode != GP_SCHED_CONSTANT && n > 0) {
        double tot = 0.0;
        for (size_t i = 0; i < n; i++)
            tot += gap(l, i);
        if (tot > 0.0)
            it.scale = (double)n / tot;
    }
    for (size_t k = 0; k < mine; k++) {
        t[k] = gp_sched_iter_next(&it);
        if (t[k] == INT64_MAX) {
            free(t);
            return gp_err(err, GP_EINVAL,
                          "--request-rate %g with %zu requests puts request %zu past 292 years; raise the rate",
                          l->rate, n, worker + k * nworkers);
        }
    }
    *out = t;
    *nout = mine;
    return 0;
}

long gp_sched_ramp_concurrency(long target, double ramp_s, int64_t t_ns)
{
    if (target <= 1 || !(ramp_s > 0.0))
        return target < 1 ? 1 : target;
    double ramp_ns = ramp_s * 1e9;
    if ((double)t_ns >= ramp_ns)
        return target;
    if (t_ns <= 0)
        return 1;
    long c = 1 + (long)floor((double)(target - 1) * (double)t_ns / ramp_ns);
    return c > target ? target : c;
}

int64_t gp_sched_ramp_slot_time(long target, double ramp_s, long k)
{
    if (k <= 1 || target <= 1 || !(ramp_s > 0.0))
        return 0;
    if (k > target)
        k = target;
    /* smallest t with 1 + floor((target-1) t / ramp) >= k */
    double t = ceil((double)(k - 1) * ramp_s * 1e9 / (double)(target - 1));
    while (t > 0 && gp_sched_ramp_concurrency(target, ramp_s, (int64_t)t - 1) >= k)
        t -= 1; /* floating-point slack: step back to the first open ns */
    while (gp_sched_ramp_concurrency(target, ramp_s, (int64_t)t) < k)
        t += 1;
    return (int64_t)t;
}
