/* sched/session.c — the plan of synthetic multi-turn sessions.
 * Ownership as in sched.h: gp_session_plan_build allocates the plan and its
 * arrays; gp_session_plan_free releases them.
 */
#include "sched/sched.h"

#include "core/error.h"
#include "core/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A plan this big (64 Mi turns) is a typo, not a benchmark. */
#define MAX_TURNS_TOTAL (1u << 26)

void gp_session_opts_default(struct gp_session_opts *o)
{
    /* GenAI-Perf config_defaults.py: SessionDefaults NUM 0, DELAY_RATIO 1.0;
     * SessionTurnsDefaults MEAN 1, STDDEV 0; SessionTurnDelayDefaults 0, 0. */
    o->num_sessions = 0;
    o->session_concurrency = 0;
    o->turns_mean = 1;
    o->turns_stddev = 0;
    o->delay_mean_ms = 0;
    o->delay_stddev_ms = 0;
    o->delay_ratio = 1.0;
    o->seed = 0;
}

int gp_session_opts_check(const struct gp_session_opts *o, struct gp_error *err)
{
    /* GenAI-Perf only parses these as int/float; what it does with each bad
     * value is in the message, so a user porting a command line knows why
     * genperf refuses it. */
    if (o->num_sessions < 0)
        return gp_err(err, GP_EINVAL,
                      "--num-sessions %ld: must be >= 0 (GenAI-Perf silently runs single requests instead)",
                      o->num_sessions);
    if (o->session_concurrency < 0)
        return gp_err(err, GP_EINVAL, "--session-concurrency %ld: must be > 0 (perf_analyzer: \"Session "
                      "concurrency must be > 0\")", o->session_concurrency);
    if (o->turns_mean < 1)
        return gp_err(err, GP_EINVAL,
                      "--session-turns-mean %ld: must be >= 1 (GenAI-Perf treats 0 as unset and clamps below 1)",
                      o->turns_mean);
    if (o->turns_stddev < 0 || o->delay_stddev_ms < 0)
        return gp_err(err, GP_EINVAL, "--session-turn%s-stddev %ld: must be >= 0",
                      o->turns_stddev < 0 ? "s" : "-delay", o->turns_stddev < 0 ? o->turns_stddev : o->delay_stddev_ms);
    if (o->delay_mean_ms < 0)
        return gp_err(err, GP_EINVAL,
                      "--session-turn-delay-mean %ld: must be a number of ms >= 0 (GenAI-Perf clamps every delay to 0)",
                      o->delay_mean_ms);
    if (!(o->delay_ratio > 0) || !isfinite(o->delay_ratio))
        return gp_err(err, GP_EINVAL,
                      "--session-delay-ratio %g: must be > 0 (GenAI-Perf ignores 0 and turns a negative ratio into "
                      "negative delays)",
                      o->delay_ratio);
    if (o->num_sessions > 0 && o->session_concurrency > o->num_sessions)
        return gp_err(err, GP_EINVAL,
                      "--session-concurrency %ld is above --num-sessions %ld; lower it or add sessions (perf_analyzer "
                      "stops: fewer unique session IDs than the session concurrency)",
                      o->session_concurrency, o->num_sessions);
    return 0;
}

void gp_session_plan_free(struct gp_session_plan *p)
{
    if (!p)
        return;
    free(p->first);
    free(p->turns);
    free(p->delay_ns);
    free(p);
}

int gp_session_plan_build(const struct gp_session_opts *o, struct gp_session_plan **out, struct gp_error *err)
{
    *out = NULL;
    int rc = gp_session_opts_check(o, err);
    if (rc)
        return rc;
    struct gp_session_plan *p = calloc(1, sizeof *p);
    size_t ns = (size_t)o->num_sessions;
    if (!p)
        return gp_err(err, GP_ENOMEM, "out of memory planning %zu sessions", ns);
    p->nsessions = ns;
    p->first = malloc((ns ? ns : 1) * sizeof *p->first);
    p->turns = malloc((ns ? ns : 1) * sizeof *p->turns);
    if (!p->first || !p->turns)
        goto nomem;
    /* Pass 1: turn counts (one stream per session, so session s does not
     * change when --num-sessions grows). */
    size_t total = 0;
    for (size_t s = 0; s < ns; s++) {
        struct gp_rng r;
        gp_rng_seed_stream(&r, o->seed, GP_SCHED_RNG_TURNS, (uint64_t)s);
        long t = gp_rng_length(&r, o->turns_mean, o->turns_stddev, 1);
        if (total + (size_t)t > MAX_TURNS_TOTAL) {
            gp_session_plan_free(p);
            return gp_err(err, GP_EINVAL,
                          "--num-sessions %ld x --session-turns-mean %ld is over %u turns; lower them",
                          o->num_sessions, o->turns_mean, MAX_TURNS_TOTAL);
        }
        p->first[s] = total;
        p->turns[s] = (uint32_t)t;
        total += (size_t)t;
    }
    p->nturns = total;
    p->delay_ns = malloc((total ? total : 1) * sizeof *p->delay_ns);
    if (!p->delay_ns)
        goto nomem;
    /* Pass 2: GenAI-Perf draws a delay after every turn but the last
     * (sample_bounded_normal_int(mean, sd, lower=0)); stored on the turn it
     * delays. --session-delay-ratio is not applied: GenAI-Perf scales only
     * payload-file delays with it. */
    for (size_t s = 0; s < ns; s++) {
        struct gp_rng r;
        gp_rng_seed_stream(&r, o->seed, GP_SCHED_RNG_DELAY, (uint64_t)s);
        p->delay_ns[p->first[s]] = 0;
        for (uint32_t k = 1; k < p->turns[s]; k++)
            p->delay_ns[p->first[s] + k] = (int64_t)gp_rng_length(&r, o->delay_mean_ms, o->delay_stddev_ms, 0) * 1000000;
    }
    *out = p;
    return 0;
nomem:
    gp_session_plan_free(p);
    return gp_err(err, GP_ENOMEM, "out of memory planning %zu sessions", ns);
}

void gp_session_id(uint64_t seed, size_t s, char out[37])
{
    struct gp_rng r;
    gp_rng_seed_stream(&r, seed, GP_SCHED_RNG_SESSION_ID, (uint64_t)s);
    uint64_t hi = gp_rng_next(&r), lo = gp_rng_next(&r);
    hi = (hi & ~0xf000ull) | 0x4000ull;                       /* version 4 */
    lo = (lo & 0x3fffffffffffffffull) | 0x8000000000000000ull; /* RFC 4122 variant */
    snprintf(out, 37, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(hi >> 32), (unsigned)(hi >> 16) & 0xffffu,
             (unsigned)hi & 0xffffu, (unsigned)(lo >> 48), (unsigned long long)(lo & 0xffffffffffffull));
}
