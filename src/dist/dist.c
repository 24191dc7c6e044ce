/* dist/dist.c — the job: launcher detection, MPI start/stop, broadcast,
 * barrier, status check and clock ping-pong (the gathers: gather.c).
 *
 * Every public function first handles the single-process case (a build
 * without MPI, or an MPI build not started by a launcher, or a job of one
 * rank) and only then, under GP_HAVE_MPI, talks to the other ranks. */
#include "dist/dist.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

#include "dist/dist_int.h"

int gp_dist_have_mpi(void)
{
#ifdef GP_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

static int env_long(const char *name, long *v)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    char *end;
    long x = strtol(s, &end, 10);
    if (*end || x < 0)
        return 0;
    *v = x;
    return 1;
}

void gp_dist_detect(struct gp_dist_launch *o)
{
    static const char *const vars[][2] = {
        {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, /* Open MPI mpirun */
        {"PMI_SIZE", "PMI_RANK"},                         /* MPICH hydra, Slurm PMI2 */
        {"SLURM_STEP_NUM_TASKS", "PMIX_RANK"},            /* srun --mpi=pmix */
    };
    memset(o, 0, sizeof *o);
    o->rank = -1;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        long size = 0, rank = -1;
        int has_size = env_long(vars[i][0], &size), has_rank = env_long(vars[i][1], &rank);
        /* Slurm sets SLURM_STEP_NUM_TASKS for every step, MPI or not: it only
         * counts when PMIx says this is an MPI rank. */
        if (i == 2 ? !has_rank : !has_size)
            continue;
        o->launched = 1;
        o->size = has_size ? size : 0;
        o->rank = has_rank ? rank : -1;
        snprintf(o->var, sizeof o->var, "%s", has_size ? vars[i][0] : vars[i][1]);
        return;
    }
}

uint64_t gp_dist_kill_window_ns(void)
{
    struct gp_dist_launch l;
    gp_dist_detect(&l);
    if (!l.launched)
        return 0;
    long s = 1;
    /* unset, 0 or unparsable: plan for the default (a shorter window than
     * the real one only costs in-flight requests their grace) */
    if (!env_long("OMPI_MCA_odls_base_sigkill_timeout", &s) || s < 1)
        s = 1;
    if (s > 3600)
        s = 3600;
    return (uint64_t)s * 1000000000ull;
}

/* GENPERF_HOSTNAME_OVERRIDE is for tests only: it lets ranks on one machine
 * pose as several hosts (per-host telemetry, tests/e2e/profile_mpi_hosts.sh). */
static void own_hostname(char *out)
{
    const char *fake = getenv("GENPERF_HOSTNAME_OVERRIDE");
    if (fake && *fake) {
        snprintf(out, GP_DIST_HOST_MAX, "%s", fake);
        return;
    }
    if (gethostname(out, GP_DIST_HOST_MAX) != 0 || !out[0])
        snprintf(out, GP_DIST_HOST_MAX, "unknown-host");
    out[GP_DIST_HOST_MAX - 1] = '\0';
}

int gp_dist_rank(const struct gp_dist *d) { return d ? d->rank : 0; }
const char *gp_dist_mca_set(const struct gp_dist *d) { return d ? d->mca_set : ""; }
int gp_dist_size(const struct gp_dist *d) { return d ? d->size : 1; }

const char *gp_dist_hostname(const struct gp_dist *d, int rank)
{
    if (!d || rank < 0 || rank >= d->size)
        return "?";
    return d->hosts + (size_t)rank * GP_DIST_HOST_MAX;
}

#ifdef GP_HAVE_MPI
/* One line naming who failed; MPI's own words at the end. */
int dist_mpi_fail(const struct gp_dist *d, struct gp_error *err, int rc, const char *what, int peer)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int n = 0;
    MPI_Error_string(rc, s, &n);
    if (peer >= 0)
        return gp_err(err, GP_ENET, "MPI %s between rank %d on host %s and rank %d on host %s failed: %s",
                      what, d->rank, gp_dist_hostname(d, d->rank), peer, gp_dist_hostname(d, peer), s);
    return gp_err(err, GP_ENET, "MPI %s failed on rank %d on host %s: %s", what, d->rank,
                  gp_dist_hostname(d, d->rank), s);
}

/* Waiting without burning a core. Open MPI's blocking calls poll the
 * shared-memory transport in a tight loop, so a rank that waits for another
 * (the others while rank 0 builds the dataset; whoever finishes its load first;
 * every rank while rank 0 writes the artifacts) would spend a whole core on
 * nothing, which is charged to the client and steals the core from a loop that
 * has work. Waits that can be long therefore use the non-blocking call and test
 * it with sleeps in between: 20 us at first, doubling to 1 ms, so a short wait
 * costs little latency and a long one a few hundred wake-ups a second. The
 * clock ping-pong keeps blocking calls: its round trips must be short. */
#define LAZY_FIRST_NS 20000L
#define LAZY_MAX_NS 1000000L

static void lazy_pause(long *ns)
{
    *ns = *ns ? (*ns * 2 > LAZY_MAX_NS ? LAZY_MAX_NS : *ns * 2) : LAZY_FIRST_NS;
    struct timespec ts = {0, *ns};
    nanosleep(&ts, NULL);
}

int dist_lazy_wait(MPI_Request *rq, MPI_Status *st)
{
    long ns = 0;
    for (;;) {
        int done = 0;
        int rc = MPI_Test(rq, &done, st ? st : MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        lazy_pause(&ns);
    }
}

/* MPI_Probe, lazily */
int dist_lazy_probe(MPI_Comm comm, int src, MPI_Status *st)
{
    long ns = 0;
    for (;;) {
        int found = 0;
        int rc = MPI_Iprobe(src, MPI_ANY_TAG, comm, &found, st);
        if (rc != MPI_SUCCESS || found)
            return rc;
        lazy_pause(&ns);
    }
}

static int lazy_barrier(MPI_Comm comm)
{
    MPI_Request rq;
    int rc = MPI_Ibarrier(comm, &rq);
    return rc == MPI_SUCCESS ? dist_lazy_wait(&rq, NULL) : rc;
}

static int lazy_bcast(void *buf, int count, MPI_Datatype type, MPI_Comm comm)
{
    MPI_Request rq;
    int rc = MPI_Ibcast(buf, count, type, 0, comm, &rq);
    return rc == MPI_SUCCESS ? dist_lazy_wait(&rq, NULL) : rc;
}

/* A job on one host (mpirun says so before MPI_Init) talks through shared
 * memory whatever is chosen, yet Open MPI's default start opens every network
 * transport it was built with to see what they reach: UCX, OFI, TCP, verbs.
 * That probing is most of a rank's start-up on Debian's build (mpirun -n 2 of a
 * 256-request run: 0.14 CPU-s and 0.36 s of wall clock with it, 0.11 and 0.16
 * without), so name the shared-memory path outright. Through the environment,
 * as mpirun's --mca would: Open MPI reads OMPI_MCA_* at MPI_Init, and a value
 * the user gave (either way) is already there and wins. Every rank sees the
 * same sizes, so all make the same choice, which a pml must be. Process-wide
 * state, set once before MPI starts; the choice is reported in d->mca_set. */
static void ompi_single_host(struct gp_dist *d, const struct gp_dist_launch *l)
{
    long local = 0;
    const char *keep = getenv("GENPERF_DIST_KEEP_MCA");
    if ((keep && *keep && strcmp(keep, "0") != 0) || strcmp(l->var, "OMPI_COMM_WORLD_SIZE") != 0 ||
        !env_long("OMPI_COMM_WORLD_LOCAL_SIZE", &local) || local != l->size)
        return;
    static const char *const sel[][2] = {{"OMPI_MCA_pml", "ob1"}, {"OMPI_MCA_btl", "self,vader"}};
    size_t n = 0;
    for (size_t i = 0; i < sizeof sel / sizeof sel[0]; i++) {
        const char *have = getenv(sel[i][0]);
        if ((have && *have) || setenv(sel[i][0], sel[i][1], 0) != 0)
            continue;
        n += (size_t)snprintf(d->mca_set + n, sizeof d->mca_set - n, "%s%s=%s", n ? " " : "",
                              sel[i][0] + strlen("OMPI_MCA_"), sel[i][1]);
    }
}

static int mpi_join(struct gp_dist *d, const struct gp_dist_launch *l, int *argc, char ***argv,
                    struct gp_error *err)
{
    int inited = 0, provided = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        ompi_single_host(d, l);
        if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            return gp_err(err, GP_ENET, "MPI_Init failed: check that mpirun/srun and this binary use "
                                        "the same MPI (see docs/scale-out.md)%s%s%s",
                          d->mca_set[0] ? "; genperf chose " : "", d->mca_set,
                          d->mca_set[0] ? " for a job on one host: GENPERF_DIST_KEEP_MCA=1 leaves that to "
                                          "Open MPI" : "");
        d->mpi_owned = 1;
    }
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &d->comm);
    if (rc != MPI_SUCCESS)
        return dist_mpi_fail(d, err, rc, "Comm_dup", -1);
    d->have_comm = 1;
    MPI_Comm_set_errhandler(d->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Comm_size(d->comm, &d->size);
    d->hosts = calloc((size_t)d->size, GP_DIST_HOST_MAX);
    if (!d->hosts)
        return gp_err(err, GP_ENOMEM, "out of memory for %d hostnames", d->size);
    char me[GP_DIST_HOST_MAX] = "";
    own_hostname(me);
    rc = MPI_Allgather(me, GP_DIST_HOST_MAX, MPI_CHAR, d->hosts, GP_DIST_HOST_MAX, MPI_CHAR, d->comm);
    if (rc != MPI_SUCCESS)
        return dist_mpi_fail(d, err, rc, "Allgather of hostnames", -1);
    d->use_mpi = d->size > 1;
    return 0;
}
#endif

int gp_dist_init(struct gp_dist **out, int *argc, char ***argv, struct gp_error *err)
{
    *out = NULL;
    struct gp_dist_launch l;
    gp_dist_detect(&l);
    int several = l.size > 1 || l.rank > 0;
#ifndef GP_HAVE_MPI
    if (l.launched && several)
        return gp_err(err, GP_ENOTSUP,
                      "this genperf was built without MPI, but %s says it is one of %ld ranks: it would "
                      "run that many independent benchmarks; rebuild with Open MPI installed (make finds "
                      "mpicc; scripts/deps.sh installs libopenmpi-dev) or run it without mpirun/srun",
                      l.var, l.size > 1 ? l.size : l.rank + 1);
#endif
    struct gp_dist *d = calloc(1, sizeof *d);
    if (!d)
        return gp_err(err, GP_ENOMEM, "out of memory");
    d->size = 1;
#ifdef GP_HAVE_MPI
    /* size unknown (PMIx without Slurm's count): MPI tells us. A plain run
     * never calls MPI_Init, which in Open MPI would try to start a runtime. */
    if (l.launched && (several || l.size == 0)) {
        int rc = mpi_join(d, &l, argc, argv, err);
        if (rc) {
            gp_dist_finalize(d);
            return rc;
        }
        *out = d;
        return 0;
    }
#endif
    (void)argc;
    (void)argv;
    d->hosts = calloc(1, GP_DIST_HOST_MAX);
    if (!d->hosts) {
        free(d);
        return gp_err(err, GP_ENOMEM, "out of memory");
    }
    own_hostname(d->hosts);
    *out = d;
    return 0;
}

void gp_dist_finalize(struct gp_dist *d)
{
    if (!d)
        return;
#ifdef GP_HAVE_MPI
    int fin = 0;
    MPI_Finalized(&fin);
    /* MPI_Finalize synchronises the ranks by polling; the ranks that finish
     * first (all but rank 0, which writes the artifacts) wait here instead */
    if (d->have_comm && !fin && d->use_mpi)
        lazy_barrier(d->comm);
    if (d->have_comm && !fin)
        MPI_Comm_free(&d->comm);
    if (d->mpi_owned && !fin)
        MPI_Finalize();
#endif
    free(d->hosts);
    free(d);
}

void gp_dist_abort(struct gp_dist *d, int code)
{
#ifdef GP_HAVE_MPI
    if (d && d->use_mpi)
        MPI_Abort(d->comm, code ? code : 1);
#endif
    (void)d;
    (void)code;
}

int gp_dist_barrier(struct gp_dist *d, struct gp_error *err)
{
    if (!d->use_mpi)
        return 0;
#ifdef GP_HAVE_MPI
    int rc = lazy_barrier(d->comm);
    if (rc != MPI_SUCCESS)
        return dist_mpi_fail(d, err, rc, "Barrier", -1);
#endif
    return 0;
}

#ifdef GP_HAVE_MPI
/* Rank 0's verdict (a status_blk) reaches every rank, which returns it. */
int dist_share_verdict(struct gp_dist *d, struct status_blk *v, struct gp_error *err)
{
    int rc = lazy_bcast(v, (int)sizeof *v, MPI_BYTE, d->comm);
    if (rc != MPI_SUCCESS)
        return dist_mpi_fail(d, err, rc, "Bcast of the status", -1);
    if (!v->code)
        return 0;
    v->msg[sizeof v->msg - 1] = '\0';
    return gp_err(err, v->code, "%s", v->msg);
}

void dist_blame(const struct gp_dist *d, struct status_blk *v, int rank, int code, const char *msg)
{
    if (v->code)
        return;
    v->code = code ? code : GP_EIO;
    snprintf(v->msg, sizeof v->msg, "rank %d on host %s: %s", rank, gp_dist_hostname(d, rank), msg);
}
#endif

int gp_dist_check(struct gp_dist *d, const struct gp_error *local, struct gp_error *err)
{
    int failed = local && local->code;
    if (!d->use_mpi) {
        if (failed && err != local)
            gp_err(err, local->code, "%s", local->msg);
        return failed ? -local->code : 0;
    }
#ifdef GP_HAVE_MPI
    int any = 0;
    MPI_Request rq;
    int rc = MPI_Iallreduce(&failed, &any, 1, MPI_INT, MPI_SUM, d->comm, &rq);
    if (rc == MPI_SUCCESS)
        rc = dist_lazy_wait(&rq, NULL);
    if (rc != MPI_SUCCESS)
        return dist_mpi_fail(d, err, rc, "Allreduce of the status", -1);
    if (!any)
        return 0;
    /* Someone failed: collect the lines at rank 0, which names the first. */
    struct status_blk mine = {0}, verdict = {0}, *all = NULL;
    if (failed) {
        mine.code = local->code;
        snprintf(mine.msg, sizeof mine.msg, "%s", local->msg);
    }
    if (d->rank == 0 && !(all = calloc((size_t)d->size, sizeof *all)))
        return gp_err(err, GP_ENOMEM, "out of memory collecting %d statuses", d->size);
    rc = MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, d->comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        return dist_mpi_fail(d, err, rc, "Gather of the status", -1);
    }
    if (d->rank == 0) {
        for (int r = 0; r < d->size; r++) {
            all[r].msg[sizeof all[r].msg - 1] = '\0';
            if (all[r].code)
                dist_blame(d, &verdict, r, all[r].code, all[r].msg);
        }
        if (any > 1) {
            size_t n = strlen(verdict.msg);
            snprintf(verdict.msg + n, sizeof verdict.msg - n, " (%d ranks failed)", any);
        }
        free(all);
    }
    return dist_share_verdict(d, &verdict, err);
#else
    return 0;
#endif
}

int gp_dist_bcast(struct gp_dist *d, void **data, size_t *len, struct gp_error *err)
{
    if (!d->use_mpi)
        return 0;
#ifdef GP_HAVE_MPI
    uint64_t n = d->rank == 0 ? (uint64_t)*len : 0;
    int rc = lazy_bcast(&n, 1, MPI_UINT64_T, d->comm);
    if (rc != MPI_SUCCESS)
        return dist_mpi_fail(d, err, rc, "Bcast of the size", -1);
    char *buf = d->rank == 0 ? *data : NULL;
    struct gp_error local = {0};
    if (d->rank != 0 && (n >= SIZE_MAX || !(buf = malloc((size_t)n + 1))))
        gp_err(&local, GP_ENOMEM, "out of memory for the %llu bytes broadcast by rank 0",
               (unsigned long long)n);
    if ((rc = gp_dist_check(d, &local, err)) != 0) {
        free(d->rank != 0 ? buf : NULL);
        return rc;
    }
    /* MPI counts are int: big blobs go in 1 GiB pieces. */
    for (uint64_t off = 0; off < n;) {
        int piece = n - off > (1u << 30) ? (1 << 30) : (int)(n - off);
        rc = MPI_Bcast(buf + off, piece, MPI_BYTE, 0, d->comm);
        if (rc != MPI_SUCCESS) {
            free(d->rank != 0 ? buf : NULL);
            return dist_mpi_fail(d, err, rc, "Bcast of the data", -1);
        }
        off += (uint64_t)piece;
    }
    if (d->rank != 0) {
        buf[n] = '\0';
        *data = buf;
        *len = (size_t)n;
    }
#endif
    return 0;
}

int gp_dist_clock_sync(struct gp_dist *d, int rounds, struct gp_dist_clock *mine,
                       struct gp_dist_clock *all, struct gp_error *err)
{
    memset(mine, 0, sizeof *mine);
    if (all && d->rank == 0)
        memset(all, 0, (size_t)d->size * sizeof *all);
    if (rounds < 1)
        return gp_err(err, GP_EINVAL, "clock sync: %d round trips; use at least 1", rounds);
    if (!d->use_mpi)
        return 0;
#ifdef GP_HAVE_MPI
    int64_t blk[4] = {0}, *out = NULL;
    struct gp_error local = {0};
    if (d->rank == 0 && !(out = calloc((size_t)d->size * 4, sizeof *out)))
        gp_err(&local, GP_ENOMEM, "out of memory for %d clock offsets", d->size);
    int rc = gp_dist_check(d, &local, err);
    if (rc)
        return rc;
    if (d->rank == 0) {
        /* One rank at a time, so no rank's answer waits behind another's. */
        for (int r = 1; r < d->size; r++) {
            struct gp_dist_clock best = {0}, cur;
            for (int i = 0; i < rounds; i++) {
                int64_t t0 = (int64_t)gp_now_ns(), t1 = 0;
                rc = MPI_Send(&t0, 1, MPI_INT64_T, r, TAG_PING, d->comm);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Recv(&t1, 1, MPI_INT64_T, r, TAG_PONG, d->comm, MPI_STATUS_IGNORE);
                int64_t t2 = (int64_t)gp_now_ns();
                if (rc != MPI_SUCCESS) {
                    free(out);
                    return dist_mpi_fail(d, err, rc, "clock ping-pong", r);
                }
                gp_dist_clock_pick(&t0, &t1, &t2, 1, &cur);
                if (i == 0 || cur.rtt_ns < best.rtt_ns)
                    best = cur;
            }
            /* best.offset_ns = rank 0's clock - rank r's: what r adds to its stamps */
            int64_t *o = out + 4 * r;
            o[0] = best.offset_ns;
            o[1] = best.uncertainty_ns;
            o[2] = best.rtt_ns;
            o[3] = rounds;
        }
    } else {
        for (int i = 0; i < rounds; i++) {
            int64_t t0 = 0, t1;
            rc = MPI_Recv(&t0, 1, MPI_INT64_T, 0, TAG_PING, d->comm, MPI_STATUS_IGNORE);
            t1 = (int64_t)gp_now_ns();
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(&t1, 1, MPI_INT64_T, 0, TAG_PONG, d->comm);
            if (rc != MPI_SUCCESS)
                return dist_mpi_fail(d, err, rc, "clock ping-pong", 0);
        }
    }
    rc = MPI_Scatter(out, 4, MPI_INT64_T, blk, 4, MPI_INT64_T, 0, d->comm);
    if (rc == MPI_SUCCESS && all && d->rank == 0)
        for (int r = 0; r < d->size; r++)
            all[r] = (struct gp_dist_clock){out[4 * r], out[4 * r + 1], out[4 * r + 2], (int)out[4 * r + 3]};
    free(out);
    if (rc != MPI_SUCCESS)
        return dist_mpi_fail(d, err, rc, "Scatter of the clock offsets", -1);
    *mine = (struct gp_dist_clock){blk[0], blk[1], blk[2], (int)blk[3]};
#endif
    return 0;
}
