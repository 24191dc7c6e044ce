/* profile/profile_shapes.c — the workload-shape flags of `genperf profile`
 * (issue 16): their copy hooks and cross-flag rules, and the load / plan the
 * client executes (struct profile_shape, see profile_config.h).
 */
#include "profile/profile_config.h"
#include "profile/profile_int.h"
#include "core/error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int shape_err(struct profile_config *cfg, struct gp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int shape_err(struct profile_config *cfg, struct gp_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gp_verr(err, GP_EINVAL, fmt, ap);
    va_end(ap);
    cfg->usage_error = 0;
    return -GP_EINVAL;
}

/* GenAI-Perf 0.0.16 declares --fixed-schedule with a value (a BOOL). */
int gp_profile_copy_fixed_schedule(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen || !rv->s[0])
        return 0;
    const char *v = rv->s;
    if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "yes"))
        cfg->fixed_schedule = 1;
    else if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "no"))
        cfg->fixed_schedule = 0;
    else
        return shape_err(cfg, err, "--fixed-schedule '%s': give true or false", v);
    return 0;
}

int gp_profile_copy_rate_mode(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    (void)err;
    if (!rv->seen)
        return 0;
    cfg->rate_mode = !strcmp(rv->s, "gamma") ? GP_SCHED_GAMMA : !strcmp(rv->s, "poisson") ? GP_SCHED_POISSON
                                                                                          : GP_SCHED_CONSTANT;
    return 0;
}

/* --request-distribution, the alias; its row copies after --request-rate-mode's
 * (table order), so a different non-constant mode already set means both
 * spellings were given with different values: refuse rather than pick one. */
int gp_profile_copy_distribution(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    int prev = cfg->rate_mode;
    gp_profile_copy_rate_mode(cfg, rv, err);
    if (prev != GP_SCHED_CONSTANT && prev != cfg->rate_mode)
        return shape_err(cfg, err, "--request-distribution is an alias of --request-rate-mode: give one of them");
    cfg->poisson = cfg->rate_mode == GP_SCHED_POISSON;
    return 0;
}

/* A ramp that leaves nothing to measure is a usage error (exit 2), found
 * before a request is sent (issue 43 item 2): the ramp's requests are left
 * out (client_sched.c marks every one started before t0 + ramp GP_REC_RAMP).
 * - --duration D: the run stops at D, so a ramp of D or more holds all of it.
 * - --request-rate R with --request-count N: the rate grows from 0 over the
 *   ramp, so R * ramp / 2 requests are due in it (the expected count for
 *   poisson/gamma); when that is all N nothing is measured.
 * - --concurrency with --request-count: slot k of C' = min(C, N) opens at
 *   (k - 1) * ramp / (C' - 1) (gp_sched_ramp_slot_time), so with C' >= 2 the
 *   last slot opens at the ramp's end and its requests are measured. With
 *   C' = 1 there is nothing to ramp: the one slot sends back to back from t0
 *   and whether any request starts after the ramp depends only on the
 *   server's latency; so it is refused, naming the flag that does leave the
 *   first requests out.
 * Runs after request_count is resolved; --measurement-interval windows keep
 * their own timing and are not judged here. */
int gp_profile_check_ramp(struct profile_config *cfg, struct gp_error *err)
{
    if (!(cfg->ramp_s > 0) || cfg->measurement_interval_ms > 0)
        return 0;
    if (cfg->duration_s > 0) {
        if (cfg->ramp_s >= cfg->duration_s)
            return gp_profile_usage_err(cfg, err,
                            "argument --ramp-up-duration: %g s is not shorter than --duration %g s, so every request "
                            "starts in the ramp and nothing is measured (make --ramp-up-duration shorter than "
                            "--duration)",
                            cfg->ramp_s, cfg->duration_s);
        return 0;
    }
    if (cfg->request_count <= 0)
        return 0;
    if (cfg->request_rate > 0) {
        if (cfg->request_rate * cfg->ramp_s / 2 >= (double)cfg->request_count)
            return gp_profile_usage_err(cfg, err,
                            "argument --ramp-up-duration: %g at --request-rate %g leaves no measured requests: the "
                            "%.0f due in the ramp are left out, and --request-count is %ld (raise --request-count "
                            "above %.0f or shorten the ramp)",
                            cfg->ramp_s, cfg->request_rate, ceil(cfg->request_rate * cfg->ramp_s / 2),
                            cfg->request_count, ceil(cfg->request_rate * cfg->ramp_s / 2));
        return 0;
    }
    /* (perf_analyzer's check above refuses --request-count < --concurrency,
     * so C' = min(C, N) is 1 exactly when --concurrency is 1) */
    if (cfg->concurrency <= 1)
        return gp_profile_usage_err(cfg, err,
                        "argument --ramp-up-duration: at --concurrency 1 there is nothing to ramp, and the %ld "
                        "requests of --request-count, sent back to back, may all start within the %g s ramp and be "
                        "left out (drop --ramp-up-duration; to leave out the first requests use "
                        "--warmup-request-count N; to ramp, raise --concurrency)",
                        cfg->request_count, cfg->ramp_s);
    return 0;
}

int gp_profile_check_shapes(struct profile_config *cfg, struct gp_error *err)
{
    int rc;
    if (cfg->poisson && cfg->rate_mode == GP_SCHED_CONSTANT)
        cfg->rate_mode = GP_SCHED_POISSON; /* --request-distribution poisson, genperf's older spelling */
    if (cfg->rate_mode != GP_SCHED_CONSTANT && cfg->request_rate == 0)
        return shape_err(cfg, err, "--request-rate-mode only applies with --request-rate R");
    if (cfg->burstiness != 1.0 && cfg->rate_mode != GP_SCHED_GAMMA)
        return shape_err(cfg, err, "--burstiness only applies with --request-rate-mode gamma");
    if (cfg->burstiness > 1e6)
        return shape_err(cfg, err, "--burstiness %g: at most 1000000", cfg->burstiness);
    if (cfg->ramp_s > 0 && (cfg->fixed_schedule || cfg->sessions.num_sessions > 0))
        return shape_err(cfg, err, "--ramp-up-duration ramps --request-rate or --concurrency; a trace or sessions "
                                   "keep their own timing: drop it");
    if (cfg->ramp_s > 1e7)
        return shape_err(cfg, err, "--ramp-up-duration: at most 10000000 seconds");
    if (cfg->trace_speedup != 1.0 && !cfg->fixed_schedule)
        return shape_err(cfg, err, "--trace-speedup only applies with --fixed-schedule true");
    if (cfg->fixed_schedule && (!cfg->input_file || strncmp(cfg->input_file, "payload:", 8)))
        return shape_err(cfg, err,
                         "--fixed-schedule true needs --input-file payload:FILE (JSONL rows with \"timestamp\" in ms)");
    struct gp_session_opts *so = &cfg->sessions;
    so->seed = cfg->seed;
    if ((rc = gp_session_opts_check(so, err)) < 0) {
        cfg->usage_error = 0;
        return rc;
    }
    if (so->num_sessions > 0) {
        if (cfg->input_file)
            return shape_err(cfg, err,
                             "--num-sessions builds synthetic sessions; drop --input-file (payload rows with "
                             "\"session_id\" are sessions already)");
        if (cfg->request_rate > 0)
            return shape_err(cfg, err,
                             "--num-sessions runs whole sessions closed loop (--session-concurrency); drop "
                             "--request-rate");
        if (cfg->duration_s > 0 || cfg->measurement_interval_ms)
            return shape_err(cfg, err, "--num-sessions sends every turn of every session; drop --duration / "
                                       "--measurement-interval");
    } else if (so->session_concurrency > 0) {
        return shape_err(cfg, err, "--session-concurrency needs --num-sessions N (synthetic sessions)");
    }
    /* --workers N splits a plan by chain (client/schedule.h): trace rows
     * keep their times, a session stays on one loop. */
    return 0;
}

/* ---- the load the client runs ------------------------------------------ */

int gp_profile_session_meta(const struct gp_session_plan *sp, uint64_t seed, struct gp_inputs_meta **meta,
                            char (**ids)[37], struct gp_error *err)
{
    *meta = calloc(sp->nturns ? sp->nturns : 1, sizeof **meta);
    *ids = calloc(sp->nsessions ? sp->nsessions : 1, sizeof **ids);
    if (!*meta || !*ids) {
        free(*meta);
        free(*ids);
        *meta = NULL;
        *ids = NULL;
        return gp_err(err, GP_ENOMEM, "out of memory building the sessions' metadata");
    }
    for (size_t s = 0; s < sp->nsessions; s++) {
        gp_session_id(seed, s, (*ids)[s]);
        for (uint32_t k = 0; k < sp->turns[s]; k++) {
            size_t i = sp->first[s] + k;
            (*meta)[i].session_id = (*ids)[s];
            /* the plan keeps each wait on the turn it delays: turn k's
             * "delay" (after its response) is turn k+1's wait */
            (*meta)[i].delay_ms = k + 1 < sp->turns[s] ? (long long)(sp->delay_ns[i + 1] / 1000000) : -1;
        }
    }
    return 0;
}

/* A trace's session rows: the session's name as written, and the scaled
 * delay (int(delay * --session-delay-ratio) ms, the value GenAI-Perf puts in
 * inputs.json) on every turn a later one follows. A last turn's own
 * "delay" is not kept by gp_trace (it delays nothing), so it has none. */
static int trace_meta(const struct gp_trace *t, struct profile_shape *sh, struct gp_error *err)
{
    if (!t->nsessions)
        return 0;
    sh->meta = calloc(t->n, sizeof *sh->meta);
    if (!sh->meta)
        return gp_err(err, GP_ENOMEM, "out of memory building the trace sessions' metadata");
    for (size_t i = 0; i < t->n; i++) {
        const struct gp_trace_row *row = &t->rows[i];
        sh->meta[i].session_id = row->session >= 0 ? t->session_ids[row->session] : NULL;
        sh->meta[i].delay_ms =
            row->session >= 0 && row->next >= 0 ? (long long)(t->rows[row->next].delay_ns / 1000000) : -1;
    }
    return 0;
}

void gp_profile_shape_free(struct profile_shape *sh)
{
    free(sh->meta);
    free(sh->ids);
    free(sh->jobs);
    free(sh->starts);
    gp_trace_free(sh->trace);
    gp_session_plan_free(sh->sessions);
    memset(sh, 0, sizeof *sh);
}

static int shape_load(const struct profile_config *cfg, struct profile_shape *sh, struct gp_error *err)
{
    memset(sh, 0, sizeof *sh);
    int rc = 0;
    sh->load.mode = (enum gp_sched_mode)cfg->rate_mode;
    sh->load.rate = cfg->request_rate;
    sh->load.burstiness = cfg->burstiness;
    sh->load.ramp_s = cfg->ramp_s;
    sh->load.seed = cfg->seed;
    if (cfg->request_rate > 0 && (rc = gp_sched_load_check(&sh->load, err)))
        return rc < 0 ? rc : -rc;
    return 0;
}

int gp_profile_shape_adopt(const struct profile_config *cfg, const struct gp_client_plan *p, size_t nentries,
                           struct profile_shape *sh, struct gp_error *err)
{
    int rc = shape_load(cfg, sh, err);
    if (rc || !p)
        return rc;
    /* rank 0's plan came over the wire: check every index before the
     * scheduler trusts it */
    int bad = p->n > UINT32_MAX || p->nstarts > p->n;
    for (size_t i = 0; i < p->n && !bad; i++) {
        const struct gp_client_job *j = &p->jobs[i];
        bad = j->entry >= nentries || j->next < -1 || (j->next >= 0 && (size_t)j->next >= p->n) ||
              j->session < -1 || (j->session >= 0 && (size_t)j->session >= p->nsessions);
    }
    for (size_t i = 0; i < p->nstarts && !bad; i++)
        bad = p->starts[i] >= p->n;
    if (bad || p->session_concurrency < 0)
        return gp_err(err, GP_EIO, "malformed request plan from rank 0");
    sh->jobs = malloc((p->n ? p->n : 1) * sizeof *sh->jobs);
    sh->starts = malloc((p->nstarts ? p->nstarts : 1) * sizeof *sh->starts);
    if (!sh->jobs || !sh->starts) {
        gp_profile_shape_free(sh);
        return gp_err(err, GP_ENOMEM, "out of memory for the request plan (%zu jobs)", p->n);
    }
    if (p->n)
        memcpy(sh->jobs, p->jobs, p->n * sizeof *sh->jobs);
    if (p->nstarts)
        memcpy(sh->starts, p->starts, p->nstarts * sizeof *sh->starts);
    sh->plan = *p;
    sh->plan.jobs = sh->jobs;
    sh->plan.starts = sh->starts;
    sh->has_plan = 1;
    return 0;
}

int gp_profile_shape_build(const struct profile_config *cfg, size_t nentries, struct profile_shape *sh,
                           struct gp_error *err)
{
    int rc = shape_load(cfg, sh, err);
    if (rc)
        return rc;
    size_t nstarts = 0;
    if (cfg->fixed_schedule) {
        struct gp_trace_opts to = {.speedup = cfg->trace_speedup,
                                   .delay_ratio = cfg->sessions.delay_ratio,
                                   .require_timestamp = 1,
                                   .delay_kind = GP_TRACE_DELAY_AFTER};
        if ((rc = gp_trace_read(cfg->input_file, &to, &sh->trace, err)))
            return rc < 0 ? rc : -rc;
        if (sh->trace->n != nentries) {
            gp_profile_shape_free(sh);
            return gp_err(err, GP_EINVAL, "--input-file %s: %zu trace rows but %zu dataset rows; one row per line",
                          cfg->input_file, sh->trace ? sh->trace->n : 0, nentries);
        }
        rc = gp_client_plan_from_trace(sh->trace, &sh->jobs, &sh->starts, &nstarts, err);
        if (!rc)
            rc = trace_meta(sh->trace, sh, err);
        sh->plan.nsessions = sh->trace->nsessions;
        sh->plan.n = sh->trace->n;
    } else if (cfg->sessions.num_sessions > 0) {
        if ((rc = gp_session_plan_build(&cfg->sessions, &sh->sessions, err)))
            return rc < 0 ? rc : -rc;
        rc = gp_client_plan_from_sessions(sh->sessions, nentries, &sh->jobs, &sh->starts, &nstarts, err);
        if (!rc && sh->sessions->nturns == nentries)
            rc = gp_profile_session_meta(sh->sessions, cfg->seed, &sh->meta, &sh->ids, err);
        sh->plan.nsessions = sh->sessions->nsessions;
        sh->plan.n = sh->sessions->nturns;
        /* perf_analyzer's session threads; unset = one session at a time */
        sh->plan.session_concurrency = cfg->sessions.session_concurrency > 0 ? cfg->sessions.session_concurrency : 1;
    } else {
        return 0;
    }
    if (rc) {
        gp_profile_shape_free(sh);
        return rc < 0 ? rc : -rc;
    }
    sh->plan.jobs = sh->jobs;
    sh->plan.starts = sh->starts;
    sh->plan.nstarts = nstarts;
    sh->has_plan = 1;
    return 0;
}

const char *gp_profile_arrival_process(const struct profile_config *cfg)
{
    if (!(cfg->request_rate > 0) || cfg->fixed_schedule)
        return NULL;
    switch ((enum gp_sched_mode)cfg->rate_mode) {
    case GP_SCHED_POISSON: return "poisson";
    case GP_SCHED_GAMMA: return "gamma";
    case GP_SCHED_CONSTANT: break;
    }
    return "constant";
}

void gp_profile_arrivals_note(const struct profile_config *cfg, FILE *out)
{
    const char *p = gp_profile_arrival_process(cfg);
    if (!p)
        return;
    double gap_ms = 1000.0 / cfg->request_rate;
    char ramp[96] = "";
    if (cfg->ramp_s > 0)
        snprintf(ramp, sizeof ramp, "; the rate ramps up over the first %g s", cfg->ramp_s);
    if (cfg->rate_mode == GP_SCHED_POISSON)
        fprintf(out, "genperf: arrivals: poisson at %g requests/s (exponential gaps, mean %.3g ms)%s\n",
                cfg->request_rate, gap_ms, ramp);
    else if (cfg->rate_mode == GP_SCHED_GAMMA)
        fprintf(out, "genperf: arrivals: gamma at %g requests/s, burstiness %g (gamma gaps of shape %g, mean %.3g ms: "
                     "%s)%s\n",
                cfg->request_rate, cfg->burstiness, cfg->burstiness, gap_ms,
                cfg->burstiness < 1 ? "burstier than Poisson" : cfg->burstiness > 1 ? "smoother than Poisson"
                                                                                    : "as Poisson",
                ramp);
    else
        fprintf(out, "genperf: arrivals: constant at %g requests/s (one every %.3g ms; --request-rate-mode poisson or "
                     "gamma for random gaps)%s\n",
                cfg->request_rate, gap_ms, ramp);
}
