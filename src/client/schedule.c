/* client/schedule.c — the ready queue of an open-loop phase (schedule.h).
 * A binary min-heap on due time; ties keep no particular order, which is
 * fine: jobs due at the same instant are all sent in the same wake-up. */
#include "client/schedule.h"
#include "client/client.h"
#include "client/record.h"
#include "client/session.h"
#include "core/error.h"
#include "core/heap.h"
#include "dist/dist.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

void gp_csched_precise_timers(void) { (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); }

static int item_less(const struct gp_csched_item *a, const struct gp_csched_item *b) { return a->due < b->due; }

GP_HEAP_DEFINE(item_heap, struct gp_csched_item, item_less)

/* The heap holds at most one job per chain, and there are at most p->n jobs:
 * gp_csched_init sized it so; a push past that would write out of bounds.
 * core/heap.h asserts the order. */
static void heap_push(struct gp_csched *q, uint64_t due, uint32_t job)
{
    assert(q->nheap < (q->p->n ? q->p->n : 1));
    item_heap_push(q->heap, &q->nheap, (struct gp_csched_item){.due = due, .job = job});
}

static uint64_t at(uint64_t t0, int64_t off) { return off < 0 ? t0 : t0 + (uint64_t)off; }

int gp_csched_init(struct gp_csched *q, const struct gp_client_plan *p, const struct gp_sched_load *load,
                   const struct gp_client_body *bodies, size_t nbodies, uint64_t t0, long limit, size_t nworkers,
                   size_t worker, struct gp_error *err)
{
    memset(q, 0, sizeof *q);
    q->p = p;
    q->bodies = bodies;
    q->nbodies = nbodies;
    q->t0 = t0;
    q->limit = limit;
    if (!p) {
        int rc = gp_sched_iter_init(&q->it, load, nworkers ? nworkers : 1, worker, err);
        if (rc)
            return rc;
        q->stride = nworkers ? (long)nworkers : 1;
        q->issued = (long)worker;   /* global number of this loop's next arrival */
        q->next_due = t0 + (uint64_t)gp_sched_iter_next(&q->it);
        return 0;
    }
    q->heap = malloc((p->n ? p->n : 1) * sizeof *q->heap);
    q->sess = calloc(p->nsessions ? p->nsessions : 1, sizeof *q->sess);
    if (!q->heap || !q->sess) {
        gp_csched_free(q);
        return gp_err(err, GP_ENOMEM, "out of memory for the request schedule (%zu jobs)", p->n);
    }
    /* This loop's chains: start c when c mod W is its index, so a trace's
     * rows keep their absolute due times and a session stays on one loop
     * (its turns wait for its replies). Under session concurrency C the
     * loops share C (no more loops than C take chains, or one without a
     * thread would hold sessions it never starts). */
    size_t W = nworkers ? nworkers : 1;
    if (p->session_concurrency > 0 && W > (size_t)p->session_concurrency)
        W = (size_t)p->session_concurrency;
    q->stride = (long)W;
    q->next_start = worker < W ? worker : p->nstarts;
    size_t conc = p->nstarts; /* without session concurrency every chain starts at its time */
    if (p->session_concurrency > 0)
        conc = (size_t)gp_dist_share((uint64_t)p->session_concurrency, W, worker < W ? worker : 0);
    for (size_t k = 0; k < conc && q->next_start < p->nstarts; k++, q->next_start += W) {
        const struct gp_client_job *j = &p->jobs[p->starts[q->next_start]];
        heap_push(q, p->session_concurrency > 0 ? t0 : at(t0, j->t_sched_ns), p->starts[q->next_start]);
    }
    return 0;
}

void gp_csched_free(struct gp_csched *q)
{
    if (q->sess)
        for (size_t i = 0; i < q->p->nsessions; i++)
            gp_csession_free(&q->sess[i]);
    free(q->sess);
    free(q->heap);
    q->sess = NULL;
    q->heap = NULL;
    q->nheap = 0;
}

uint64_t gp_csched_due(const struct gp_csched *q)
{
    if (!q->p)
        return q->limit >= 0 && q->issued >= q->limit ? UINT64_MAX : q->next_due;
    return q->nheap ? q->heap[0].due : UINT64_MAX;
}

int gp_csched_more(const struct gp_csched *q)
{
    if (!q->p)
        return q->limit < 0 || q->issued < q->limit;
    return q->nheap > 0 || q->outstanding > 0 || q->next_start < q->p->nstarts;
}

void gp_csched_pop(struct gp_csched *q, uint32_t *job, uint32_t *entry, uint64_t *due)
{
    if (!q->p) {
        *job = (uint32_t)q->issued;
        *entry = (uint32_t)((uint64_t)q->issued % q->nbodies);
        *due = q->next_due;
        q->issued += q->stride;
        q->next_due = q->t0 + (uint64_t)gp_sched_iter_next(&q->it);
        return;
    }
    struct gp_csched_item it = item_heap_pop(q->heap, &q->nheap);
    *job = it.job;
    *entry = q->p->jobs[it.job].entry;
    *due = it.due;
    q->outstanding++;
}

int gp_csched_body(struct gp_csched *q, uint32_t job, uint32_t entry, const char **data, size_t *len,
                   struct gp_error *err)
{
    const struct gp_client_body *b = &q->bodies[entry];
    *data = b->data;
    *len = b->len;
    if (!q->p || q->p->jobs[job].session < 0)
        return 0;
    const struct gp_client_job *j = &q->p->jobs[job];
    int rc = gp_csession_body(&q->sess[j->session], b->data, b->len, data, len);
    if (rc == -GP_EINVAL)
        return gp_err(err, GP_EINVAL, "session %d turn %u: dataset entry %u is not a JSON body", j->session,
                      j->turn, entry);
    if (rc)
        return gp_err(err, GP_ENOMEM, "out of memory building session %d turn %u", j->session, j->turn);
    return 0;
}

int gp_csched_done(struct gp_csched *q, uint32_t job, uint64_t t_end, const struct gp_record_store *st,
                   const struct gp_record *r, struct gp_error *err)
{
    if (!q->p)
        return 0;
    const struct gp_client_job *j = &q->p->jobs[job];
    assert(q->outstanding > 0); /* every done job was popped first */
    q->outstanding--;
    if (j->session >= 0 && j->next >= 0 && r && gp_csession_reply(&q->sess[j->session], st, r))
        return gp_err(err, GP_ENOMEM, "out of memory keeping session %d's history", j->session);
    if (j->next >= 0) {
        const struct gp_client_job *nx = &q->p->jobs[j->next];
        uint64_t due = t_end + (uint64_t)(nx->delay_ns > 0 ? nx->delay_ns : 0);
        if (nx->t_sched_ns >= 0 && at(q->t0, nx->t_sched_ns) > due)
            due = at(q->t0, nx->t_sched_ns);
        heap_push(q, due, (uint32_t)j->next);
    } else if (q->p->session_concurrency > 0 && q->next_start < q->p->nstarts) {
        heap_push(q, t_end, q->p->starts[q->next_start]);
        q->next_start += (size_t)q->stride;
    }
    return 0;
}

/* ---- plans ------------------------------------------------------------- */

static int plan_alloc(size_t n, size_t nstarts, struct gp_client_job **jobs, uint32_t **starts,
                      struct gp_error *err)
{
    *jobs = calloc(n ? n : 1, sizeof **jobs);
    *starts = calloc(nstarts ? nstarts : 1, sizeof **starts);
    if (*jobs && *starts)
        return 0;
    free(*jobs);
    free(*starts);
    *jobs = NULL;
    *starts = NULL;
    return gp_err(err, GP_ENOMEM, "out of memory planning %zu requests", n);
}

int gp_client_plan_from_trace(const struct gp_trace *t, struct gp_client_job **jobs, uint32_t **starts,
                              size_t *nstarts, struct gp_error *err)
{
    size_t ns = 0;
    for (size_t i = 0; i < t->n; i++)
        ns += t->rows[i].session < 0 || t->rows[i].turn == 0;
    int rc = plan_alloc(t->n, ns, jobs, starts, err);
    if (rc)
        return rc;
    *nstarts = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct gp_trace_row *r = &t->rows[i];
        struct gp_client_job *j = &(*jobs)[i];
        j->t_sched_ns = r->t_sched_ns;
        j->delay_ns = r->delay_ns;
        j->entry = (uint32_t)i;
        j->next = r->next;
        j->session = r->session;
        j->turn = (uint32_t)(r->turn > 0 ? r->turn : 0);
        if (r->session < 0 || r->turn == 0)
            (*starts)[(*nstarts)++] = (uint32_t)i;
    }
    return 0;
}

int gp_client_plan_from_sessions(const struct gp_session_plan *sp, size_t nentries, struct gp_client_job **jobs,
                                 uint32_t **starts, size_t *nstarts, struct gp_error *err)
{
    int rc = plan_alloc(sp->nturns, sp->nsessions, jobs, starts, err);
    if (rc)
        return rc;
    for (size_t s = 0; s < sp->nsessions; s++) {
        size_t f = sp->first[s];
        (*starts)[s] = (uint32_t)f;
        for (uint32_t k = 0; k < sp->turns[s]; k++) {
            struct gp_client_job *j = &(*jobs)[f + k];
            j->t_sched_ns = -1;
            j->delay_ns = sp->delay_ns[f + k];
            j->entry = (uint32_t)((f + k) % (nentries ? nentries : 1));
            j->next = k + 1 < sp->turns[s] ? (int32_t)(f + k + 1) : -1;
            j->session = (int32_t)s;
            j->turn = k;
        }
    }
    *nstarts = sp->nsessions;
    return 0;
}
