/* client/schedule.h — what an open-loop phase sends next, and when.
 *
 * Owns: struct gp_csched, the run-time state of one phase's schedule: the
 * arrival iterator of --request-rate (sched/ gp_sched_iter, no allocation),
 * or, for a plan (trace rows, session turns), a min-heap of ready jobs keyed
 * by due time plus one gp_csession per session. gp_csched_init allocates,
 * gp_csched_free frees; the plan itself (struct gp_client_plan) is borrowed
 * from the caller for the whole run.
 *
 * Rules:
 *   - rate: arrival i is due at t0 + gp_sched_iter_next(), entry i mod n.
 *   - plan, session_concurrency == 0: every start job is due at t0 + its
 *     t_sched_ns (a trace replayed at its timestamps, open loop).
 *   - plan, session_concurrency C > 0: the first C chains start at t0, each
 *     later chain when another chain's last turn ends (perf_analyzer's
 *     session threads: a closed loop over whole sessions).
 *   - a chain's next turn is due at max(t0 + its t_sched_ns if any, end of
 *     the previous turn + its delay_ns) — "no earlier than the delay after
 *     the previous turn ended".
 *   - several loops (--workers): loop w of W runs the chains whose start
 *     index is w mod W (whole sessions, trace rows at their own times);
 *     under session concurrency C at most C loops take chains and they
 *     share the C (gp_dist_share).
 * A due job that cannot start (the --max-concurrency cap) keeps its due time:
 * its record's t_sched_ns says when it was due, not when a slot freed.
 */
#ifndef GP_CLIENT_SCHEDULE_H
#define GP_CLIENT_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"

struct gp_error;
struct gp_record_store;
struct gp_record;
struct gp_client_body;
struct gp_csession;

struct gp_client_job {
    int64_t t_sched_ns;   /* due offset from the phase start; -1 = none (a later turn; a session start
                           * under session concurrency) */
    int64_t delay_ns;     /* a later turn: not before the previous turn's end + this */
    uint32_t entry;       /* dataset entry: its body (a session turn's own messages) */
    int32_t next;         /* job index of the session's next turn, -1 = none */
    int32_t session;      /* 0-based session number, -1 = a single request */
    uint32_t turn;        /* 0-based turn within the session */
};

struct gp_client_plan {
    const struct gp_client_job *jobs;
    size_t n;
    const uint32_t *starts;     /* jobs that begin a chain (single requests, first turns), in start order */
    size_t nstarts;
    size_t nsessions;           /* sessions referenced by jobs[].session */
    long session_concurrency;   /* > 0: closed loop over chains (see above); 0: starts at their times */
};

struct gp_csched_item {
    uint64_t due;
    uint32_t job;
};

struct gp_csched {
    const struct gp_client_plan *p;   /* NULL: rate arrivals */
    const struct gp_client_body *bodies;
    size_t nbodies;
    uint64_t t0;
    long limit;                       /* rate: arrivals to issue, -1 = unbounded */
    long issued;                      /* rate: global number of the next arrival this loop sends */
    long stride;                      /* the job's loops taking part: this one sends every stride-th
                                       * arrival (rate) or chain start (plan) */
    struct gp_sched_iter it;
    uint64_t next_due;                /* rate: absolute due time of the next arrival */
    struct gp_csched_item *heap;      /* plan: ready jobs */
    size_t nheap;
    size_t next_start;                /* plan with session concurrency: index in starts of this loop's
                                       * next chain (>= nstarts: none left) */
    size_t outstanding;               /* plan: jobs popped whose chain may still continue */
    struct gp_csession *sess;         /* plan: one per session */
};

/* Rate mode (p == NULL): load and nworkers/worker as in gp_sched_iter_init
 * (this loop sends arrivals worker, worker + nworkers, ... at their global
 * times), limit = arrivals of the whole job (-1 = until stopped). Plan mode:
 * load is unused; this loop runs its share of the chains (see above). */
int gp_csched_init(struct gp_csched *q, const struct gp_client_plan *p, const struct gp_sched_load *load,
                   const struct gp_client_body *bodies, size_t nbodies, uint64_t t0, long limit, size_t nworkers,
                   size_t worker, struct gp_error *err);
void gp_csched_free(struct gp_csched *q);

/* Absolute due time of the next ready job, UINT64_MAX when none is ready
 * (gp_csched_more says whether one may still come). */
uint64_t gp_csched_due(const struct gp_csched *q);
/* 1 while anything is ready or can still become ready. */
int gp_csched_more(const struct gp_csched *q);

/* Takes the next ready job: its number (plan: job index; rate: arrival
 * number), entry and due time. Call only when gp_csched_due() != UINT64_MAX. */
void gp_csched_pop(struct gp_csched *q, uint32_t *job, uint32_t *entry, uint64_t *due);

/* The body to send for a popped job: the entry's own, or a session turn's
 * rebuilt one (valid until that session's next turn). 0 or -GP_E*. */
int gp_csched_body(struct gp_csched *q, uint32_t job, uint32_t entry, const char **data, size_t *len,
                   struct gp_error *err);

/* A popped job finished (record r, ended at t_end): carries the reply into
 * its session and makes the chain's next turn (or, with session
 * concurrency, the next chain) ready. Rate mode: no-op. 0 or -GP_ENOMEM. */
int gp_csched_done(struct gp_csched *q, uint32_t job, uint64_t t_end, const struct gp_record_store *st,
                   const struct gp_record *r, struct gp_error *err);

/* prctl(PR_SET_TIMERSLACK, 1) on the calling thread (the event loop): the
 * kernel's default 50 us slack would otherwise make every timed wake-up up
 * to 50 us late (bench/schedule_bench.sh measures both). Best effort. */
void gp_csched_precise_timers(void);

/* Builds a plan: jobs are owned by the caller-supplied arrays. Helpers for
 * callers (profile/) that turn a trace or a session plan into jobs; each
 * allocates *jobs and *starts (free() both). ---------------------------- */

/* Trace rows 0..n-1 are dataset entries 0..n-1. */
int gp_client_plan_from_trace(const struct gp_trace *t, struct gp_client_job **jobs, uint32_t **starts,
                              size_t *nstarts, struct gp_error *err);
/* Session s's turn k uses dataset entry (first[s] + k) mod nentries. */
int gp_client_plan_from_sessions(const struct gp_session_plan *sp, size_t nentries, struct gp_client_job **jobs,
                                 uint32_t **starts, size_t *nstarts, struct gp_error *err);

#endif
