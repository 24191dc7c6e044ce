/* Unit tests for dist/: the split rule, the clock estimate, the chunk format,
 * launcher detection and the single-process job (gather, bcast, check).
 * Built twice: as build/tests/dist_test_dist (dist/ with MPI when mpicc was
 * found, not launched, so it stays one process) and, in an MPI build, as
 * dist_test_dist_nompi (dist/ without MPI, which must refuse to be one of K). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/test.h"
#include "dist/dist.h"

static const char *const launcher_vars[] = {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMI_SIZE",
                                            "PMI_RANK", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"};

static void clear_launcher_env(void)
{
    for (size_t i = 0; i < sizeof launcher_vars / sizeof launcher_vars[0]; i++)
        unsetenv(launcher_vars[i]);
}

static void test_share_sums_and_balance(void)
{
    const uint64_t totals[] = {0, 1, 2, 7, 8, 9, 100, 1001, 4096, 1000003};
    for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++) {
        for (uint64_t parts = 1; parts <= 17; parts++) {
            uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
            for (uint64_t i = 0; i < parts; i++) {
                uint64_t s = gp_dist_share(totals[t], parts, i);
                CHECK_INT(gp_dist_share_first(totals[t], parts, i), sum);
                sum += s;
                lo = s < lo ? s : lo;
                hi = s > hi ? s : hi;
            }
            CHECK_INT(sum, totals[t]);
            CHECK_INT(gp_dist_share_first(totals[t], parts, parts), totals[t]);
            CHECK(hi - lo <= 1);
        }
    }
    /* the extra ones go to the lowest slots */
    CHECK_INT(gp_dist_share(10, 4, 0), 3);
    CHECK_INT(gp_dist_share(10, 4, 1), 3);
    CHECK_INT(gp_dist_share(10, 4, 2), 2);
    CHECK_INT(gp_dist_share(10, 4, 3), 2);
    CHECK_INT(gp_dist_share(10, 4, 4), 0); /* out of range */
    CHECK_INT(gp_dist_share(10, 0, 0), 0);
}

/* Every (C, N, ranks, workers): the loops' request slots tile 0..A-1 in
 * order (A = min(C, N)), their requests sum to N, and each loop's count is
 * the sum of its request slots' quotas, slot by slot as a one-thread run of
 * A request slots gives them (perf_analyzer: N / A, +1 for r < N mod A). */
static void test_split_load_exact(void)
{
    const uint64_t Cs[] = {1, 2, 3, 5, 8, 64, 100, 4096};
    const uint64_t Ns[] = {0, 1, 3, 10, 99, 100, 1000, 123457};
    for (size_t ci = 0; ci < sizeof Cs / sizeof Cs[0]; ci++)
        for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
            for (int ranks = 1; ranks <= 4; ranks++)
                for (int workers = 1; workers <= 5; workers++) {
                    uint64_t C = Cs[ci], N = Ns[ni], A = N && N < C ? N : C, next = 0, nsum = 0;
                    struct gp_dist_load ld = {.closed = 1, .concurrency = C, .requests = N};
                    int ok = 1;
                    for (int r = 0; r < ranks; r++)
                        for (int w = 0; w < workers; w++) {
                            struct gp_dist_slice sl;
                            if (gp_dist_split_load(&ld, ranks, workers, r, w, &sl, NULL)) {
                                ok = 0;
                                continue;
                            }
                            uint64_t q = 0;
                            for (uint64_t k = 0; k < sl.concurrency; k++)
                                q += gp_dist_slot_quota(A, N, sl.first_slot + k);
                            if (sl.first_slot != next || sl.active != A || sl.requests != q || sl.cap != 0 ||
                                sl.slot != (uint64_t)gp_dist_slot(r, w, workers) ||
                                sl.slots != (uint64_t)(ranks * workers))
                                ok = 0;
                            next += sl.concurrency;
                            nsum += sl.requests;
                        }
                    if (!ok || next != A || nsum != N)
                        fprintf(stderr, "  split C=%llu N=%llu %dx%d: slots=%llu nsum=%llu ok=%d\n",
                                (unsigned long long)C, (unsigned long long)N, ranks, workers,
                                (unsigned long long)next, (unsigned long long)nsum, ok);
                    CHECK(ok);
                    CHECK_INT(next, A);
                    CHECK_INT(nsum, N);
                }
}

static void test_split_load_examples(void)
{
    struct gp_dist_slice sl;
    /* C=3 N=10 over 2x2 loops (docs/scale-out.md): request slots 1,1,1,0
     * with quotas 4,3,3 */
    struct gp_dist_load ld = {.closed = 1, .concurrency = 3, .requests = 10};
    uint64_t want_req[4] = {4, 3, 3, 0};
    for (int s = 0; s < 4; s++) {
        CHECK_INT(gp_dist_split_load(&ld, 2, 2, s / 2, s % 2, &sl, NULL), 0);
        CHECK_INT(sl.concurrency, s < 3 ? 1 : 0);
        CHECK_INT(sl.requests, want_req[s]);
        CHECK_INT(sl.first_slot, s < 3 ? s : 3);
    }
    /* C=5 N=7 over 3 workers: request slots (0,1) (2,3) (4), quotas
     * 2,2,1,1,1 -> 4, 2, 1 (not proportional to the slots: slot order) */
    ld = (struct gp_dist_load){.closed = 1, .concurrency = 5, .requests = 7};
    uint64_t got[3];
    for (int w = 0; w < 3; w++) {
        CHECK_INT(gp_dist_split_load(&ld, 1, 3, 0, w, &sl, NULL), 0);
        got[w] = sl.requests;
    }
    CHECK_INT(got[0], 4);
    CHECK_INT(got[1], 2);
    CHECK_INT(got[2], 1);
    /* N < C: only N request slots run, one request each */
    ld = (struct gp_dist_load){.closed = 1, .concurrency = 8, .requests = 3};
    CHECK_INT(gp_dist_split_load(&ld, 1, 2, 0, 1, &sl, NULL), 0);
    CHECK_INT(sl.active, 3);
    CHECK_INT(sl.concurrency, 1);
    CHECK_INT(sl.first_slot, 2);
    CHECK_INT(sl.requests, 1);
    /* N=0: no request count, every request slot runs */
    ld = (struct gp_dist_load){.closed = 1, .concurrency = 8};
    CHECK_INT(gp_dist_split_load(&ld, 2, 2, 1, 0, &sl, NULL), 0);
    CHECK_INT(sl.concurrency, 2);
    CHECK_INT(sl.first_slot, 4);
    CHECK_INT(sl.requests, 0);
    /* an open loop: no request slots, the cap split evenly (10 over 4: 3,3,2,2) */
    ld = (struct gp_dist_load){.cap = 10};
    uint64_t caps = 0;
    for (int s = 0; s < 4; s++) {
        CHECK_INT(gp_dist_split_load(&ld, 2, 2, s / 2, s % 2, &sl, NULL), 0);
        CHECK_INT(sl.cap, s < 2 ? 3 : 2);
        CHECK_INT(sl.concurrency, 0);
        caps += sl.cap;
    }
    CHECK_INT(caps, 10);
    /* huge values do not overflow */
    ld = (struct gp_dist_load){.closed = 1, .concurrency = UINT64_MAX / 2, .requests = UINT64_MAX / 4};
    CHECK_INT(gp_dist_split_load(&ld, 1, 3, 0, 2, &sl, NULL), 0);
    CHECK(sl.requests > 0 && sl.requests < UINT64_MAX / 4);
}

static void test_split_load_rejects(void)
{
    struct gp_dist_slice sl;
    struct gp_error e = {0};
    struct gp_dist_load ld = {.closed = 1, .concurrency = 0, .requests = 10};
    CHECK(gp_dist_split_load(&ld, 1, 1, 0, 0, &sl, &e) < 0);
    CHECK(strstr(e.msg, "--concurrency") != NULL);
    ld.closed = 0; /* an open loop has no request slots to split */
    CHECK_INT(gp_dist_split_load(&ld, 1, 1, 0, 0, &sl, &e), 0);
    ld = (struct gp_dist_load){.closed = 1, .concurrency = 4, .requests = 10};
    CHECK(gp_dist_split_load(&ld, 0, 1, 0, 0, &sl, &e) < 0);
    CHECK(gp_dist_split_load(&ld, 2, 2, 2, 0, &sl, &e) < 0);
    CHECK(gp_dist_split_load(&ld, 2, 2, 0, -1, &sl, &e) < 0);
    /* a cap below the loops: the message names the loops as the user set them */
    ld = (struct gp_dist_load){.cap = 3};
    CHECK(gp_dist_split_load(&ld, 1, 4, 0, 0, &sl, &e) < 0);
    CHECK_STR(e.msg, "--max-concurrency 3 is below the number of event loops (4); lower --workers or raise "
                     "--max-concurrency");
    CHECK(gp_dist_split_load(&ld, 2, 2, 0, 0, &sl, &e) < 0);
    CHECK_STR(e.msg, "--max-concurrency 3 is below the number of event loops (2 ranks x 2 workers); lower "
                     "--workers or the rank count, or raise --max-concurrency");
    ld.cap = 4;
    CHECK_INT(gp_dist_split_load(&ld, 2, 2, 1, 1, &sl, &e), 0);
    CHECK_INT(sl.cap, 1);
}

/* Round robin over slots: the union is the whole list, each slot's count is
 * its share, and a slot's arrivals span the whole run. */
static void test_arrivals_round_robin(void)
{
    enum { N = 1003, RANKS = 3, WORKERS = 2 };
    int seen[N] = {0};
    uint64_t S = RANKS * WORKERS;
    for (int r = 0; r < RANKS; r++)
        for (int w = 0; w < WORKERS; w++) {
            uint64_t slot = (uint64_t)gp_dist_slot(r, w, WORKERS), count = 0, last = 0;
            for (uint64_t i = 0; i < N; i++)
                if (gp_dist_arrival_slot(i, S) == slot) {
                    seen[i]++;
                    count++;
                    last = i;
                }
            CHECK_INT(count, gp_dist_share(N, S, slot));
            CHECK(last >= N - S);
        }
    int once = 1;
    for (int i = 0; i < N; i++)
        once &= seen[i] == 1;
    CHECK(once);
    CHECK_INT(gp_dist_slot(2, 1, 4), 9);
}

static void test_clock_pick(void)
{
    /* remote clock = reference - 5000 ns; three samples, the second has the
     * smallest round trip and a remote stamp 40 ns after its midpoint */
    int64_t t0[] = {1000000, 2000000, 3000000};
    int64_t t2[] = {1009000, 2000400, 3002000};
    int64_t t1[] = {1000000 + 4500 - 5000 + 700, 2000000 + 200 - 5000 + 40, 3000000 + 1000 - 5000 - 900};
    struct gp_dist_clock c;
    CHECK_INT(gp_dist_clock_pick(t0, t1, t2, 3, &c), 0);
    CHECK_INT(c.rtt_ns, 400);
    CHECK_INT(c.uncertainty_ns, 200);
    CHECK_INT(c.offset_ns, 5000 - 40);
    CHECK(llabs(c.offset_ns - 5000) <= c.uncertainty_ns);
    CHECK_INT(c.rounds, 3);
    CHECK_INT(gp_dist_to_rank0_ns(&c, 100), 100 + 5000 - 40);
    /* odd rtt: uncertainty rounds up; ties keep the first sample */
    int64_t a0[] = {0, 10}, a1[] = {7, 99}, a2[] = {3, 13};
    CHECK_INT(gp_dist_clock_pick(a0, a1, a2, 2, &c), 0);
    CHECK_INT(c.rtt_ns, 3);
    CHECK_INT(c.uncertainty_ns, 2);
    CHECK_INT(c.offset_ns, 1 - 7);
    CHECK_INT(gp_dist_clock_pick(a0, a1, a2, 0, &c), -1);
    int64_t b2[] = {-1};
    CHECK_INT(gp_dist_clock_pick(a0, a1, b2, 1, &c), -1);
}

static void test_chunk_next(void)
{
    const unsigned char chunk[] = {3, 0, 0, 0, 'a', 'b', 'c', 0, 0, 0, 0, 1, 1, 0, 0};
    size_t pos = 0, n = 0;
    const void *rec = NULL;
    CHECK_INT(gp_dist_chunk_next(chunk, 11, &pos, &rec, &n), 1);
    CHECK_INT(n, 3);
    CHECK(memcmp(rec, "abc", 3) == 0);
    CHECK_INT(gp_dist_chunk_next(chunk, 11, &pos, &rec, &n), 1);
    CHECK_INT(n, 0);
    CHECK_INT(gp_dist_chunk_next(chunk, 11, &pos, &rec, &n), 0);
    /* a length of 257 running past the end; a torn header */
    pos = 11;
    CHECK_INT(gp_dist_chunk_next(chunk, sizeof chunk, &pos, &rec, &n), -1);
    pos = 0;
    CHECK_INT(gp_dist_chunk_next(chunk, 2, &pos, &rec, &n), -1);
}

static void test_chunk_next_kind(void)
{
    /* a 6-byte record: kind 0x04030201 then "ab"; then a 3-byte record, too
     * short for its tag */
    const unsigned char chunk[] = {6, 0, 0, 0, 1, 2, 3, 4, 'a', 'b', 3, 0, 0, 0, 9, 9, 9};
    size_t pos = 0, n = 0;
    uint32_t kind = 0, want;
    const unsigned char tag[4] = {1, 2, 3, 4};
    memcpy(&want, tag, sizeof want);
    const char *body = NULL;
    CHECK_INT(gp_dist_chunk_next_kind(chunk, 10, &pos, &kind, &body, &n), 1);
    CHECK(kind == want);
    CHECK_INT(n, 2);
    CHECK(memcmp(body, "ab", 2) == 0);
    CHECK_INT(gp_dist_chunk_next_kind(chunk, 10, &pos, &kind, &body, &n), 0);
    CHECK_INT(gp_dist_chunk_next_kind(chunk, sizeof chunk, &pos, &kind, &body, &n), -1);
}

static void test_detect(void)
{
    struct gp_dist_launch l;
    clear_launcher_env();
    gp_dist_detect(&l);
    CHECK_INT(l.launched, 0);
    setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
    setenv("OMPI_COMM_WORLD_RANK", "2", 1);
    gp_dist_detect(&l);
    CHECK_INT(l.launched, 1);
    CHECK_INT(l.size, 3);
    CHECK_INT(l.rank, 2);
    CHECK_STR(l.var, "OMPI_COMM_WORLD_SIZE");
    clear_launcher_env();
    setenv("PMI_SIZE", "8", 1);
    gp_dist_detect(&l);
    CHECK_INT(l.size, 8);
    CHECK_INT(l.rank, -1);
    clear_launcher_env();
    /* Slurm's task count alone is not an MPI launch (any srun/sbatch sets it) */
    setenv("SLURM_STEP_NUM_TASKS", "4", 1);
    gp_dist_detect(&l);
    CHECK_INT(l.launched, 0);
    setenv("PMIX_RANK", "1", 1);
    gp_dist_detect(&l);
    CHECK_INT(l.launched, 1);
    CHECK_INT(l.size, 4);
    CHECK_INT(l.rank, 1);
    unsetenv("SLURM_STEP_NUM_TASKS");
    gp_dist_detect(&l);
    CHECK_INT(l.size, 0);
    CHECK_STR(l.var, "PMIX_RANK");
    clear_launcher_env();
    setenv("OMPI_COMM_WORLD_SIZE", "three", 1);
    gp_dist_detect(&l);
    CHECK_INT(l.launched, 0);
    clear_launcher_env();
}

/* Open MPI's SIGTERM-to-SIGKILL window as the ranks see it (mpirun --mca
 * odls_base_sigkill_timeout S puts it in their environment). */
static void test_kill_window(void)
{
    clear_launcher_env();
    unsetenv("OMPI_MCA_odls_base_sigkill_timeout");
    CHECK(gp_dist_kill_window_ns() == 0); /* no launcher: nobody kills us */
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    CHECK(gp_dist_kill_window_ns() == 1000000000ull);
    setenv("OMPI_MCA_odls_base_sigkill_timeout", "5", 1);
    CHECK(gp_dist_kill_window_ns() == 5000000000ull);
    setenv("OMPI_MCA_odls_base_sigkill_timeout", "0", 1);
    CHECK(gp_dist_kill_window_ns() == 1000000000ull);
    setenv("OMPI_MCA_odls_base_sigkill_timeout", "5s", 1);
    CHECK(gp_dist_kill_window_ns() == 1000000000ull);
    unsetenv("OMPI_MCA_odls_base_sigkill_timeout");
    clear_launcher_env();
    setenv("PMI_SIZE", "4", 1); /* another launcher: Open MPI's default assumed */
    CHECK(gp_dist_kill_window_ns() == 1000000000ull);
    clear_launcher_env();
}

/* A binary without MPI that a launcher started as one of 3 ranks refuses; as
 * the only rank it runs. (In an MPI build, init would call MPI_Init here, so
 * only the no-MPI binary checks the refusal.) */
static void test_init_refuses_k_ranks_without_mpi(void)
{
    if (gp_dist_have_mpi())
        return;
    struct gp_dist *d = NULL;
    struct gp_error e = {0};
    setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    CHECK_INT(gp_dist_init(&d, NULL, NULL, &e), -GP_ENOTSUP);
    CHECK(d == NULL);
    CHECK(strstr(e.msg, "built without MPI") != NULL);
    CHECK(strstr(e.msg, "OMPI_COMM_WORLD_SIZE says it is one of 3 ranks") != NULL);
    clear_launcher_env();
    setenv("PMIX_RANK", "2", 1); /* size unknown, but a rank 2 means several */
    CHECK_INT(gp_dist_init(&d, NULL, NULL, &e), -GP_ENOTSUP);
    CHECK(strstr(e.msg, "one of 3 ranks") != NULL);
    clear_launcher_env();
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    CHECK_INT(gp_dist_init(&d, NULL, NULL, &e), 0);
    CHECK_INT(gp_dist_size(d), 1);
    gp_dist_finalize(d);
    clear_launcher_env();
}

struct recs {
    int n, i;
    size_t size[64];
    unsigned char scratch[5000];
    int fail_at; /* -1: never */
};

static int next_rec(void *ctx, const void **rec, size_t *len, struct gp_error *err)
{
    struct recs *r = ctx;
    if (r->i == r->fail_at)
        return gp_err(err, GP_ENET, "cannot reach http://server:8000 (connection refused)");
    if (r->i >= r->n)
        return 0;
    for (size_t k = 0; k < r->size[r->i]; k++)
        r->scratch[k] = (unsigned char)(r->i * 31 + k);
    *rec = r->scratch;
    *len = r->size[r->i];
    r->i++;
    return 1;
}

struct got {
    int chunks, recs, bad;
    size_t max_chunk;
};

static int on_chunk(void *ctx, int src, const void *chunk, size_t len, struct gp_error *err)
{
    struct got *g = ctx;
    g->chunks++;
    g->max_chunk = len > g->max_chunk ? len : g->max_chunk;
    size_t pos = 0, n;
    const void *rec;
    int rc;
    while ((rc = gp_dist_chunk_next(chunk, len, &pos, &rec, &n)) == 1) {
        const unsigned char *p = rec;
        for (size_t k = 0; k < n; k++)
            if (p[k] != (unsigned char)(g->recs * 31 + k))
                g->bad++;
        g->recs++;
    }
    if (rc < 0 || src != 0)
        g->bad++;
    return 0;
}

static int bulk_never_parts(void *ctx, struct gp_dist_part *parts, int *n, struct gp_error *err)
{
    (void)ctx;
    (void)parts;
    (void)n;
    CHECK(0);
    return gp_err(err, GP_EIO, "called");
}

static int bulk_never_place(void *ctx, int src, struct gp_dist_part *parts, int n, struct gp_error *err)
{
    (void)ctx;
    (void)src;
    (void)parts;
    (void)n;
    CHECK(0);
    return gp_err(err, GP_EIO, "called");
}

static int bulk_never_landed(void *ctx, int src, const struct gp_dist_part *parts, int n, struct gp_error *err)
{
    (void)ctx;
    (void)src;
    (void)parts;
    (void)n;
    CHECK(0);
    return gp_err(err, GP_EIO, "called");
}

static void test_single_process_job(void)
{
    clear_launcher_env();
    struct gp_dist *d = NULL;
    struct gp_error e = {0};
    CHECK_INT(gp_dist_init(&d, NULL, NULL, &e), 0);
    if (!d)
        return;
    CHECK_INT(gp_dist_rank(d), 0);
    CHECK_INT(gp_dist_size(d), 1);
    CHECK(strlen(gp_dist_hostname(d, 0)) > 0);
    CHECK_STR(gp_dist_hostname(d, 1), "?");
    char text[] = "dataset";
    void *data = text;
    size_t len = 7;
    CHECK_INT(gp_dist_bcast(d, &data, &len, &e), 0);
    CHECK(data == text && len == 7);
    CHECK_INT(gp_dist_barrier(d, &e), 0);
    struct gp_dist_clock mine = {.offset_ns = 9}, all[1] = {{.rtt_ns = 9}};
    CHECK_INT(gp_dist_clock_sync(d, 5, &mine, all, &e), 0);
    CHECK_INT(mine.offset_ns, 0);
    CHECK_INT(all[0].rtt_ns, 0);
    CHECK(gp_dist_clock_sync(d, 0, &mine, all, &e) < 0);
    CHECK_INT(gp_dist_check(d, NULL, &e), 0);
    struct gp_error bad = {0};
    gp_err(&bad, GP_ENET, "server down");
    CHECK_INT(gp_dist_check(d, &bad, &e), -GP_ENET);
    CHECK_STR(e.msg, "server down");

    /* 40 records of 0..~4000 bytes through 512-byte chunks: every record
     * once, in order; chunks stay within 512 bytes unless one record is
     * bigger (then it travels alone) */
    struct recs r = {.n = 40, .fail_at = -1};
    size_t total = 0, biggest = 0;
    for (int i = 0; i < r.n; i++) {
        r.size[i] = (size_t)((i * 97) % 300);
        if (i == 17)
            r.size[i] = 4000;
        total += r.size[i] + 4;
        biggest = r.size[i] > biggest ? r.size[i] : biggest;
    }
    struct got g = {0};
    CHECK_INT(gp_dist_gather(d, 512, next_rec, &r, on_chunk, &g, &e), 0);
    CHECK_INT(g.recs, 40);
    CHECK_INT(g.bad, 0);
    /* the big record alone, the rest at most 512 per chunk, and no chunk is
     * flushed while the next record would still have fitted (two neighbours
     * together exceed 512) */
    CHECK(g.chunks >= (int)((total - (biggest + 4)) / 512) + 2);
    CHECK(g.chunks <= (int)(2 * total / 512) + 1);
    CHECK_INT(g.max_chunk, biggest + 4);
    /* a failing producer: its error comes back, records so far were delivered */
    struct recs r2 = {.n = 10, .fail_at = 6};
    struct got g2 = {0};
    CHECK_INT(gp_dist_gather(d, 64, next_rec, &r2, on_chunk, &g2, &e), -GP_ENET);
    CHECK(strstr(e.msg, "connection refused") != NULL);
    CHECK(g2.recs <= 6);
    CHECK(gp_dist_gather(d, 8, next_rec, &r, on_chunk, &g, &e) < 0); /* chunk too small */
    /* the bulk gather: rank 0 alone has its data already; no callback runs
     * (they would fail if called) */
    CHECK_INT(gp_dist_gather_bulk(d, 1u << 20, bulk_never_parts, NULL, bulk_never_place, bulk_never_landed, NULL,
                                  &e), 0);
    CHECK(gp_dist_gather_bulk(d, 8, NULL, NULL, NULL, NULL, NULL, &e) < 0); /* piece too small */
    CHECK(strstr(e.msg, "piece size 8") != NULL);
    gp_dist_finalize(d);
}

int main(void)
{
    GP_RUN(test_share_sums_and_balance);
    GP_RUN(test_split_load_exact);
    GP_RUN(test_split_load_examples);
    GP_RUN(test_split_load_rejects);
    GP_RUN(test_arrivals_round_robin);
    GP_RUN(test_clock_pick);
    GP_RUN(test_chunk_next);
    GP_RUN(test_chunk_next_kind);
    GP_RUN(test_detect);
    GP_RUN(test_kill_window);
    GP_RUN(test_init_refuses_k_ranks_without_mpi);
    GP_RUN(test_single_process_job);
    return gp_test_summary_named(gp_dist_have_mpi() ? "dist_test_dist" : "dist_test_dist (no MPI)");
}
