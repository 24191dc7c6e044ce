/* profile/profile_prefix.c — prefix-cache workloads (issue 32 item 1;
 * docs/profile.md "Prefix-cache workloads"): the --shared-prefix-ratio,
 * --shared-prefix-pool and --cache-bust flags (copied and checked here), the
 * session pool's prefix groups handed to the dataset, and the hit rate the
 * run saw (profile_int.h: gp_profile_prefix_cache). */
#include "core/error.h"
#include "profile/profile_int.h"
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

int gp_profile_copy_shared_prefix_ratio(struct profile_config *cfg, const struct gp_profile_raw *rv,
                                        struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    if (!(rv->f >= 0 && rv->f <= 1))
        return gp_err(err, GP_EINVAL,
                      "--shared-prefix-ratio %s: must be a share of each prompt from 0 to 1 (e.g. 0.5: the first "
                      "half of every prompt's tokens is a shared prefix)", rv->s);
    cfg->shared_prefix_ratio = rv->f;
    return 0;
}

/* The flag row of --cache-bust, the last of the three: also the cross-flag
 * rules, once all three are copied. */
int gp_profile_copy_cache_bust(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    cfg->cache_bust = rv->seen;
    int shaped = cfg->shared_prefix_ratio > 0 || cfg->cache_bust;
    if (cfg->shared_prefix_ratio > 0 && cfg->num_prefix_prompts > 0)
        return gp_err(err, GP_EINVAL,
                      "--shared-prefix-ratio and --num-prefix-prompts both add a shared prefix; use one (the ratio "
                      "puts the prefix inside the ISL, --num-prefix-prompts adds it on top)");
    if (shaped && cfg->input_file && strncmp(cfg->input_file, "synthetic:", 10))
        return gp_err(err, GP_EINVAL,
                      "--%s shapes synthetic prompts only; drop it or --input-file %s",
                      cfg->cache_bust ? "cache-bust" : "shared-prefix-ratio", cfg->input_file);
    if (cfg->shared_prefix_session && !(cfg->shared_prefix_ratio > 0))
        return gp_err(err, GP_EINVAL, "--shared-prefix-pool session needs --shared-prefix-ratio R > 0");
    if (cfg->shared_prefix_session && cfg->sessions.num_sessions <= 0)
        return gp_err(err, GP_EINVAL,
                      "--shared-prefix-pool session gives each session its own prefix: add --num-sessions N, "
                      "or use --shared-prefix-pool global (one prefix for all requests)");
    return 0;
}

uint32_t *gp_profile_prefix_groups(const struct profile_config *cfg, const struct gp_session_plan *sp, size_t *n)
{
    *n = 0;
    if (!cfg->shared_prefix_session || !sp || !sp->nturns)
        return NULL;
    uint32_t *g = malloc(sp->nturns * sizeof *g);
    if (!g)
        return NULL;
    for (size_t s = 0; s < sp->nsessions; s++)
        for (uint32_t k = 0; k < sp->turns[s]; k++)
            g[sp->first[s] + k] = (uint32_t)s;
    *n = sp->nsessions;
    return g;
}
