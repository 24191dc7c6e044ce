/* client/client_sched.c — the scheduler: which request goes next and when.
 * Closed loop: C slots with their quotas, slot s's k-th request uses dataset
 * entry (s + k*C) mod n. Open loop: a schedule from client/schedule.h —
 * --request-rate arrivals (constant, Poisson, gamma, ramps; arrival i uses
 * entry i mod n) or a plan's jobs (trace rows at their timestamps, session
 * turns after their delays). A due job that waits for the --max-concurrency
 * cap keeps its due time. See client.h for the shapes.
 */
#include "client/cl_request.h"
#include "client/cl_sched.h"
#include "core/clock.h"
#include "core/error.h"
#include "dist/dist.h"

#include <assert.h>
#include <string.h>

static struct slot *free_slot(struct loop *L, struct gp_error *err)
{
    for (size_t i = 0; i < L->nslots; i++)
        if (!L->slots[i]->busy)
            return L->slots[i];
    return gp_cl_slot_new(L, err);
}

/* Open loop: --request-rate arrivals, or the plan's jobs in the measured
 * phase (a plan's warmup is a closed loop over the first entries). Every
 * loop of a job draws the whole schedule from one origin and sends its own
 * share (arrival i when i mod S is its index), so the union is the
 * single-thread schedule. */
static int open_loop_begin(struct loop *L, struct sched *S, const struct phase *ph, struct gp_error *err)
{
    const struct gp_client_opts *o = L->o;
    struct gp_sched_load ld = o->load.arrivals;
    ld.seed += ph->warmup ? 0x5741524dull : 0;
    uint64_t t0 = ph->start_ns ? ph->start_ns : L->phase_start;
    const struct gp_client_plan *plan = ph->warmup ? NULL : o->plan;
    int rc = gp_csched_init(&S->q, plan, &ld, o->bodies, o->n_bodies, t0, ph->count, (size_t)S->share_count,
                            (size_t)S->share_index, err);
    if (rc)
        return rc < 0 ? rc : -rc;
    gp_csched_precise_timers();
    L->q = &S->q;
    L->cap_block_due = 0;
    L->cap_freed_ns = 0;
    return 0;
}

/* --ramp-up-duration on a closed loop (measured phase only): job-wide slot
 * s (0-based) opens at t0 + gp_sched_ramp_slot_time(C, ramp, s + 1). Open
 * times grow with s, so this loop's closed slots are a suffix of its share. */
static uint64_t ramp_open_at(const struct loop *L, const struct sched *S, long j)
{
    return L->phase_start + (uint64_t)gp_sched_ramp_slot_time(S->nconc, L->o->load.arrivals.ramp_s, S->first + j + 1);
}

static int ramp_start_due(struct loop *L, struct sched *S, uint64_t now, struct gp_error *err)
{
    for (; S->ramp_next < S->mine && !L->stopping && ramp_open_at(L, S, S->ramp_next) <= now; S->ramp_next++) {
        struct slot *sl = L->slots[S->ramp_next];
        int rc;
        if (sl->quota != 0 && (rc = gp_cl_slot_start(L, sl, (uint32_t)(sl->gid % L->o->n_bodies), err)) < 0)
            return rc;
    }
    return 0;
}

/* Closed loop: the job's request slots (min(C, count)) get their quotas
 * (count/C', +1 for s < count%C', as perf_analyzer's threads) and start at
 * entries 0..C'-1; this loop runs its contiguous share of them (a ramp opens
 * them later). The split is dist/plan.c's, as for the workers' caps. */
int gp_cl_sched_begin(struct loop *L, struct sched *S, const struct phase *ph, struct gp_error *err)
{
    const struct gp_client_opts *o = L->o;
    size_t nb = o->n_bodies;
    memset(S, 0, sizeof *S);
    S->ph = ph;
    S->rec0 = L->st->n;
    S->rate_mode = gp_load_is_open(&o->load) || (o->plan && !ph->warmup);
    S->share_count = o->load.share_count > 1 ? (uint64_t)o->load.share_count : 1;
    S->share_index = S->share_count > 1 ? (uint64_t)o->load.share_index : 0;
    if (S->rate_mode)
        return open_loop_begin(L, S, ph, err);
    if (ph->count == 0)
        return 0; /* nothing to send: no slot opens */
    struct gp_dist_load ld = {.closed = 1,
                              .concurrency = o->load.concurrency > 0 ? (uint64_t)o->load.concurrency : 0,
                              .requests = ph->count > 0 ? (uint64_t)ph->count : 0};
    struct gp_dist_slice part;
    int rc = gp_dist_split_load(&ld, 1, (int)S->share_count, 0, (int)S->share_index, &part, err);
    if (rc)
        return rc < 0 ? rc : -rc;
    S->nconc = (long)part.active;
    S->first = (long)part.first_slot;
    S->mine = (long)part.concurrency;
    while ((long)L->nslots < S->mine)
        if (!gp_cl_slot_new(L, err))
            return -GP_ENOMEM;
    for (long j = 0; j < S->mine; j++) {
        struct slot *sl = L->slots[j];
        long s = S->first + j;
        sl->gid = (uint32_t)s;
        sl->sent = 0;
        sl->waiting = 0;
        sl->quota = ph->count < 0 ? -1 : (long)gp_dist_slot_quota((uint64_t)S->nconc, (uint64_t)ph->count, (uint64_t)s);
    }
    if (ph->warmup || !(o->load.arrivals.ramp_s > 0))
        S->ramp_next = S->mine; /* no ramp: all open now */
    for (long j = 0; j < S->mine && !L->stopping; j++) {
        if (j >= S->ramp_next && ramp_open_at(L, S, j) > L->phase_start)
            break; /* the rest open in gp_cl_sched_start_due */
        struct slot *sl = L->slots[j];
        if (sl->quota != 0 && (rc = gp_cl_slot_start(L, sl, (uint32_t)(sl->gid % nb), err)) < 0)
            return rc;
        if (j >= S->ramp_next)
            S->ramp_next = j + 1;
    }
    return 0;
}

/* The ramp is not measured: this phase's requests that started before
 * t0 + ramp (rate or concurrency) become warmup, marked GP_REC_RAMP so the
 * export can say how many were left out. Done once at the end, so the hot
 * path never looks at it. */
static void ramp_exclude(struct loop *L, const struct sched *S)
{
    double ramp_s = L->o->load.arrivals.ramp_s;
    if (S->ph->warmup || !(ramp_s > 0))
        return;
    uint64_t end = L->phase_start + (uint64_t)(ramp_s * 1e9);
    for (size_t i = S->rec0; i < L->st->n; i++) {
        struct gp_record *r = &L->st->recs[i];
        if (!(r->flags & GP_REC_WARMUP) && r->t_start_ns < end)
            r->flags |= GP_REC_WARMUP | GP_REC_RAMP;
    }
}

void gp_cl_sched_end(struct loop *L, struct sched *S)
{
    ramp_exclude(L, S);
    if (L->q == &S->q) {
        L->q = NULL;
        gp_csched_free(&S->q);
    }
}

int gp_cl_sched_more(const struct loop *L, const struct sched *S)
{
    if (!S->rate_mode)
        return !L->stopping && S->ramp_next < S->mine; /* slots a ramp has not opened yet */
    return S->rate_mode && L->q && !L->stopping && gp_csched_more(L->q);
}

/* Most arrivals started per call. A loop that fell behind its schedule (a
 * stalled host, an overloaded client: every arrival of the last seconds is
 * due at once) used to start its whole backlog in one call, without taking a
 * completion or looking at the stop fd in between: in-flight requests piled
 * up (to the fd limit), each start scanned them all for a free slot, and
 * Ctrl-C took effect only once the backlog was sent (37 s after it, for a
 * 2 s stall at 20,000/s). Returning after a batch lets the loop take its
 * completions and the stop fd; it does not sleep, as the next one is due. */
#define START_BATCH 64

int gp_cl_sched_start_due(struct loop *L, struct sched *S, uint64_t now, struct gp_error *err)
{
    const struct gp_client_opts *o = L->o;
    const struct phase *ph = S->ph;
    if (!S->rate_mode)
        return ramp_start_due(L, S, now, err);
    for (int started = 0; started < START_BATCH && gp_cl_sched_more(L, S); started++) {
        uint64_t due = gp_csched_due(L->q); /* UINT64_MAX: a turn waits for its previous one */
        if (due > now)
            break;
        if (o->load.max_inflight > 0 && (long)L->inflight >= o->load.max_inflight) {
            L->cap_block_due = due; /* it keeps its due time; counted when it starts */
            break;
        }
        struct slot *sl = free_slot(L, err);
        if (!sl)
            return -GP_ENOMEM;
        uint32_t job, entry;
        gp_csched_pop(L->q, &job, &entry, &due);
        sl->arrival = job;
        sl->t_sched = due;
        /* Starts are in due order, so one still queued when a slot freed
         * under a full cap was due while the cap was full. */
        sl->cap_delayed = (L->cap_block_due && due <= L->cap_block_due) || due < L->cap_freed_ns;
        if (sl->cap_delayed && !ph->warmup)
            L->stats->n_cap_delayed++;
        int rc = gp_csched_body(L->q, job, entry, &sl->bdata, &sl->blen, err);
        if (rc < 0)
            return rc;
        if ((rc = gp_cl_slot_start(L, sl, entry, err)) < 0)
            return rc;
        /* its own start time, not `now`: the starts before it in this call
         * took time, and the lateness stderr reports must match the records' */
        uint64_t lag = sl->t_start - due;
        if (!ph->warmup) {
            if (lag > L->stats->max_lag_ns)
                L->stats->max_lag_ns = lag;
            if (lag > 1000000ull)
                L->stats->n_delayed++;
        }
    }
    return 0;
}

void gp_cl_sched_wait(const struct loop *L, const struct sched *S, uint64_t now, uint64_t *wait_ns)
{
    if (!gp_cl_sched_more(L, S))
        return;
    if (!S->rate_mode) {
        gp_deadline_cap(wait_ns, now, ramp_open_at(L, S, S->ramp_next));
        return;
    }
    /* under a full cap the next due one waits for a free slot, not its time:
     * 100 ms (a turn that frees one starts it) */
    if (L->o->load.max_inflight > 0 && (long)L->inflight >= L->o->load.max_inflight)
        gp_deadline_cap(wait_ns, now, now + 100000000ull);
    else
        gp_deadline_cap(wait_ns, now, gp_csched_due(L->q));
}

/* Closed loop, after a slot's transfer ended: a connection-level failure
 * makes the slot wait (backoff.h) instead of reconnecting at once; returns 1
 * then. Anything that reached the server resets the slot's back-off. */
static int backoff_after(struct loop *L, struct slot *sl, CURLcode res)
{
    if (!gp_backoff_is_connection_failure((int)res) || sl->oom || sl->too_big) {
        gp_backoff_reset(&sl->bo);
        return 0;
    }
    uint64_t d = gp_backoff_next(&sl->bo, &L->bo_rng, 0, 0);
    assert(!sl->busy && !sl->waiting); /* idle -> waiting (the slot states, client_int.h) */
    sl->waiting = 1;
    sl->resume_ns = gp_now_ns() + d;
    if (L->n_waiting++ == 0 || sl->resume_ns < L->next_resume)
        L->next_resume = sl->resume_ns;
    L->stats->n_backoff++;
    L->stats->backoff_ns += d;
    return 1;
}

static uint32_t next_entry(const struct loop *L, const struct sched *S, const struct slot *sl)
{
    return (uint32_t)((sl->gid + (uint64_t)sl->sent * (uint64_t)S->nconc) % L->o->n_bodies);
}

int gp_cl_sched_resume(struct loop *L, struct sched *S, uint64_t now, struct gp_error *err)
{
    const struct phase *ph = S->ph;
    int over = L->stopping || (ph->deadline && now >= ph->deadline);
    L->next_resume = UINT64_MAX;
    for (size_t i = 0; i < L->nslots && L->n_waiting; i++) {
        struct slot *sl = L->slots[i];
        if (!sl->waiting)
            continue;
        if (!over && sl->resume_ns > now) {
            L->next_resume = sl->resume_ns < L->next_resume ? sl->resume_ns : L->next_resume;
            continue;
        }
        assert(!sl->busy); /* waiting -> idle (the slot states, client_int.h) */
        sl->waiting = 0;
        L->n_waiting--;
        if (over)
            continue;
        int rc = gp_cl_slot_start(L, sl, next_entry(L, S, sl), err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int gp_cl_sched_on_done(struct loop *L, struct sched *S, struct slot *sl, CURLcode res, struct gp_error *err)
{
    const struct phase *ph = S->ph;
    if (S->rate_mode || L->stopping || !(sl->quota < 0 || sl->sent < sl->quota) ||
        (ph->deadline && gp_now_ns() >= ph->deadline))
        return 0;
    if (backoff_after(L, sl, res))
        return 0; /* gp_cl_sched_resume starts it later */
    return gp_cl_slot_start(L, sl, next_entry(L, S, sl), err);
}
