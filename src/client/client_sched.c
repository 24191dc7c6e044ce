/* client/client_sched.c — the scheduler: which request goes next and when.
 * Closed loop: C slots with their quotas, slot s's k-th request uses dataset
 * entry (s + k*C) mod n. Open loop: arrival i at t0 + i/R (or Poisson gaps
 * from the seeded PRNG) uses entry i mod n. See client.h for the shapes.
 */
#include "client/client_int.h"
#include "core/clock.h"
#include "core/error.h"
#include "dist/dist.h"

#include <math.h>
#include <string.h>

/* ---- PRNG (Poisson arrivals) ------------------------------------------- */

void gp_client_rng_seed(struct gp_rng *r, uint64_t seed)
{
    gp_rng_seed(r, seed ^ 0x636c69656e74ull); /* "client": independent of the dataset streams */
}

double gp_client_rng_exp(struct gp_rng *r, double mean)
{
    /* u in (0, 1]: never log(0) */
    double u = ((double)(gp_rng_next(r) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
    return -mean * log(u);
}

static struct slot *free_slot(struct loop *L, struct gp_error *err)
{
    for (size_t i = 0; i < L->nslots; i++)
        if (!L->slots[i]->busy)
            return L->slots[i];
    return gp_cl_slot_new(L, err);
}

/* Open loop: steps over the arrivals of other job slots (their gaps are
 * drawn all the same, so every loop's times are the global schedule's). */
static void skip_foreign(struct sched *S)
{
    const struct phase *ph = S->ph;
    while ((uint64_t)S->arrivals % S->share_count != S->share_index && (ph->count < 0 || S->arrivals < ph->count)) {
        S->arrivals++;
        S->next_arrival += S->poisson ? gp_client_rng_exp(&S->rng, S->gap_ns) : S->gap_ns;
    }
}

/* Closed loop: the job's nconc slots get their quotas (count/C, +1 for
 * s < count%C, as perf_analyzer's threads) and start at entries 0..nconc-1;
 * this loop runs its contiguous share of them. */
int gp_cl_sched_begin(struct loop *L, struct sched *S, const struct phase *ph, struct gp_error *err)
{
    const struct gp_client_opts *o = L->o;
    size_t nb = o->n_bodies;
    memset(S, 0, sizeof *S);
    S->ph = ph;
    S->rate_mode = o->request_rate > 0;
    S->poisson = o->poisson;
    S->share_count = o->share_count > 1 ? (uint64_t)o->share_count : 1;
    S->share_index = S->share_count > 1 ? (uint64_t)o->share_index : 0;
    gp_client_rng_seed(&S->rng, o->seed + (ph->warmup ? 0x5741524dull : 0));
    S->gap_ns = S->rate_mode ? 1e9 / o->request_rate : 0;
    if (S->rate_mode) {
        skip_foreign(S);
        return 0;
    }
    long nconc = o->concurrency;
    if (ph->count >= 0 && ph->count < nconc)
        nconc = ph->count;
    S->nconc = nconc;
    S->first = (long)gp_dist_share_first((uint64_t)nconc, S->share_count, S->share_index);
    S->mine = (long)gp_dist_share((uint64_t)nconc, S->share_count, S->share_index);
    while ((long)L->nslots < S->mine)
        if (!gp_cl_slot_new(L, err))
            return -GP_ENOMEM;
    for (long j = 0; j < S->mine; j++) {
        struct slot *sl = L->slots[j];
        long s = S->first + j;
        sl->gid = (uint32_t)s;
        sl->sent = 0;
        sl->quota = ph->count < 0 ? -1 : ph->count / nconc + (s < ph->count % nconc ? 1 : 0);
    }
    for (long j = 0; j < S->mine && !L->stopping; j++) {
        struct slot *sl = L->slots[j];
        int rc;
        if (sl->quota != 0 && (rc = gp_cl_slot_start(L, sl, (uint32_t)(sl->gid % nb), err)) < 0)
            return rc;
    }
    return 0;
}
int gp_cl_sched_more(const struct loop *L, const struct sched *S)
{
    return S->rate_mode && !L->stopping && (S->ph->count < 0 || S->arrivals < S->ph->count);
}

int gp_cl_sched_start_due(struct loop *L, struct sched *S, uint64_t now, struct gp_error *err)
{
    const struct gp_client_opts *o = L->o;
    const struct phase *ph = S->ph;
    size_t nb = o->n_bodies;
    int more_arrivals = gp_cl_sched_more(L, S);
    while (more_arrivals) {
        uint64_t due = L->phase_start + (uint64_t)S->next_arrival;
        if (due > now)
            break;
        if (o->max_inflight > 0 && (long)L->inflight >= o->max_inflight)
            break;
        struct slot *sl = free_slot(L, err);
        if (!sl)
            return -GP_ENOMEM;
        sl->arrival = (uint32_t)S->arrivals;
        uint64_t lag = now - due;
        if (!ph->warmup) {
            if (lag > L->stats->max_lag_ns)
                L->stats->max_lag_ns = lag;
            if (lag > 1000000ull)
                L->stats->n_delayed++;
        }
        int rc = gp_cl_slot_start(L, sl, (uint32_t)(S->arrivals % (long)nb), err);
        if (rc < 0)
            return rc;
        S->arrivals++;
        S->next_arrival += o->poisson ? gp_client_rng_exp(&S->rng, S->gap_ns) : S->gap_ns;
        skip_foreign(S);
        more_arrivals = ph->count < 0 || S->arrivals < ph->count;
    }
    return 0;
}

void gp_cl_sched_wait(const struct loop *L, const struct sched *S, uint64_t now, uint64_t *wait_ns)
{
    if (!gp_cl_sched_more(L, S))
        return;
    uint64_t due = L->phase_start + (uint64_t)S->next_arrival;
    uint64_t d = due > now ? due - now : 0;
    if (L->o->max_inflight > 0 && (long)L->inflight >= L->o->max_inflight)
        d = 100000000ull;
    if (d < *wait_ns)
        *wait_ns = d;
}

int gp_cl_sched_on_done(struct loop *L, struct sched *S, struct slot *sl, struct gp_error *err)
{
    const struct phase *ph = S->ph;
    if (S->rate_mode || L->stopping || !(sl->quota < 0 || sl->sent < sl->quota) ||
        (ph->deadline && gp_now_ns() >= ph->deadline))
        return 0;
    uint32_t entry = (uint32_t)((sl->gid + (uint64_t)sl->sent * (uint64_t)S->nconc) % L->o->n_bodies);
    return gp_cl_slot_start(L, sl, entry, err);
}
