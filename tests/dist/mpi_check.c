/* tests/dist/mpi_check.c — dist/ against real MPI ranks (tests/e2e/dist_mpi.sh
 * runs it under `mpirun -n 3`). Every rank checks what it can see; rank 0
 * prints one "mpi_check: ok ..." line when broadcast, barrier, clock offsets
 * and the chunked and bulk gathers all held. A failed assertion prints
 * "mpi_check: FAIL ..." and the process exits 1.
 *
 *   mpi_check                 the checks
 *   mpi_check --have-mpi      prints yes/no (was dist/ built with MPI)
 *   mpi_check --fail-rank R   rank R reports a local error through gp_dist_check
 *   mpi_check --fail-gather R rank R's record producer fails half-way
 *   mpi_check --fail-bulk R   the bulk gather fails: rank R's parts() (R > 0),
 *                             or rank 0 refuses rank 1's parts (R = 0)
 *   mpi_check --die-rank R    rank R exits(3) before the gather
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "dist/dist.h"

#define CHUNK 1024
#define BIG 5000 /* one record bigger than a chunk */

static int failures;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "mpi_check: FAIL rank %d: %s: ", gp_dist_rank(d), #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

static int nrecs(int rank) { return 200 + 50 * rank; }
static size_t rec_size(int rank, int j) { return j == 7 ? BIG : (size_t)((rank * 131 + j * 37) % 700); }
static unsigned char rec_byte(int rank, int j, size_t k) { return (unsigned char)(rank * 7 + j * 13 + k); }

struct producer {
    int rank, j, fail_at;
    unsigned char buf[BIG];
};

static int produce(void *ctx, const void **rec, size_t *len, struct gp_error *err)
{
    struct producer *p = ctx;
    if (p->j == p->fail_at)
        return gp_err(err, GP_ENET, "injected failure: cannot reach the server");
    if (p->j >= nrecs(p->rank))
        return 0;
    size_t n = rec_size(p->rank, p->j);
    for (size_t k = 0; k < n; k++)
        p->buf[k] = rec_byte(p->rank, p->j, k);
    *rec = p->buf;
    *len = n;
    p->j++;
    return 1;
}

struct collector {
    int size;
    int next_j[64];     /* per source rank: the record expected next */
    int chunks[64];
    int last_src;
    size_t bytes, bad;
};

static int collect(void *ctx, int src, const void *chunk, size_t len, struct gp_error *err)
{
    struct collector *c = ctx;
    if (src < 0 || src >= c->size || src < c->last_src)
        return gp_err(err, GP_EIO, "chunk from rank %d out of order (after rank %d)", src, c->last_src);
    c->last_src = src;
    c->chunks[src]++;
    size_t pos = 0, n, nrec = 0;
    const void *rec;
    int rc;
    while ((rc = gp_dist_chunk_next(chunk, len, &pos, &rec, &n)) == 1) {
        int j = c->next_j[src]++;
        nrec++;
        if (n != rec_size(src, j)) {
            c->bad++;
            continue;
        }
        const unsigned char *p = rec;
        for (size_t k = 0; k < n; k++)
            if (p[k] != rec_byte(src, j, k)) {
                c->bad++;
                break;
            }
        c->bytes += n;
    }
    /* bounded chunks: over CHUNK only when it holds one oversized record */
    if (rc < 0 || (len > CHUNK && nrec != 1))
        c->bad++;
    return 0;
}

struct one_clock {
    struct gp_dist_clock c;
    int sent;
};

static int produce_clock(void *ctx, const void **rec, size_t *len, struct gp_error *err)
{
    struct one_clock *o = ctx;
    if (o->sent++)
        return 0;
    *rec = &o->c;
    *len = sizeof o->c;
    return 1;
}

struct clock_cmp {
    const struct gp_dist_clock *all;
    int seen, bad;
};

static int compare_clock(void *ctx, int src, const void *chunk, size_t len, struct gp_error *err)
{
    struct clock_cmp *c = ctx;
    size_t pos = 0, n;
    const void *rec;
    while (gp_dist_chunk_next(chunk, len, &pos, &rec, &n) == 1) {
        c->seen++;
        struct gp_dist_clock got;
        const struct gp_dist_clock *want = &c->all[src];
        if (n != sizeof got) {
            c->bad++;
            continue;
        }
        memcpy(&got, rec, n); /* field by field: padding bytes carry no meaning */
        if (got.offset_ns != want->offset_ns || got.uncertainty_ns != want->uncertainty_ns ||
            got.rtt_ns != want->rtt_ns || got.rounds != want->rounds)
            c->bad++;
    }
    return 0;
}

static int arg_rank(int argc, char **argv, const char *flag)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], flag) == 0)
            return atoi(argv[i + 1]);
    return -1;
}

static void check_bcast(struct gp_dist *d)
{
    size_t n = 3 * 1024 * 1024 + 17;
    unsigned char *blob = NULL;
    struct gp_error e = {0};
    if (gp_dist_rank(d) == 0) {
        blob = malloc(n);
        for (size_t i = 0; blob && i < n; i++)
            blob[i] = (unsigned char)(i * 7 + 3);
    }
    void *data = blob;
    size_t len = n;
    EXPECT(gp_dist_bcast(d, &data, &len, &e) == 0, "%s", e.msg);
    EXPECT(len == n, "got %zu bytes", len);
    size_t bad = 0;
    for (size_t i = 0; data && i < len; i++)
        bad += ((unsigned char *)data)[i] != (unsigned char)(i * 7 + 3);
    EXPECT(bad == 0, "%zu bytes differ", bad);
    if (data != blob)
        free(data);
    free(blob);
    /* an empty blob arrives as an empty, NUL-terminated string */
    char empty[1] = "";
    data = empty;
    len = 0;
    EXPECT(gp_dist_bcast(d, &data, &len, &e) == 0, "%s", e.msg);
    EXPECT(len == 0 && data && ((char *)data)[0] == '\0', "empty blob came back as %zu bytes", len);
    if (data != empty)
        free(data);
}


/* ---- the bulk gather: three parts per rank > 0, one empty, one of many
 * pieces, received into rank 0's buffers and checked byte for byte ---- */
#define PIECE 4096
static size_t bulk_len(int rank, int i)
{
    return i == 0 ? 1000u * (size_t)rank + 5 : i == 1 ? 0 : 3u * PIECE + 7 + (size_t)rank;
}
static unsigned char bulk_byte(int rank, int i, size_t k)
{
    return (unsigned char)(rank * 31 + i * 17 + k * 7 + k / 251);
}

struct bulk_src {
    int rank, fail;
    unsigned char *buf[3];
};

static int bulk_parts(void *ctx, struct gp_dist_part *parts, int *n, struct gp_error *err)
{
    struct bulk_src *b = ctx;
    if (b->fail)
        return gp_err(err, GP_ENET, "injected failure: cannot pack the records");
    for (int i = 0; i < 3; i++) {
        parts[i].len = bulk_len(b->rank, i);
        parts[i].data = b->buf[i];
    }
    *n = 3;
    return 0;
}

struct bulk_dst {
    int refuse_rank, placed, landed, bad, last_src;
    unsigned char *buf[3];
};

static int bulk_place(void *ctx, int src, struct gp_dist_part *parts, int n, struct gp_error *err)
{
    struct bulk_dst *b = ctx;
    if (src == b->refuse_rank)
        return gp_err(err, GP_ENOMEM, "injected failure: no room for rank %d", src);
    if (n != 3 || src <= b->last_src)
        b->bad++;
    b->last_src = src;
    b->placed++;
    for (int i = 0; i < 3 && i < n; i++) {
        if (parts[i].len != bulk_len(src, i))
            b->bad++;
        free(b->buf[i]);
        b->buf[i] = malloc(parts[i].len + 1);
        parts[i].data = b->buf[i];
    }
    return 0;
}

static int bulk_landed(void *ctx, int src, const struct gp_dist_part *parts, int n, struct gp_error *err)
{
    struct bulk_dst *b = ctx;
    (void)err;
    b->landed++;
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < parts[i].len; k++)
            if (((const unsigned char *)parts[i].data)[k] != bulk_byte(src, i, k)) {
                b->bad++;
                break;
            }
    return 0;
}

/* 0 = checked (failures counted); 1 = --fail-bulk: the process ends with rc */
static int check_bulk(struct gp_dist *d, int fail_rank, int *rc_out)
{
    int rank = gp_dist_rank(d), size = gp_dist_size(d);
    struct bulk_src src = {rank, rank == fail_rank && rank > 0, {NULL, NULL, NULL}};
    struct bulk_dst dst = {fail_rank == 0 ? 1 : -1, 0, 0, 0, 0, {NULL, NULL, NULL}};
    for (int i = 0; i < 3 && rank > 0; i++) {
        src.buf[i] = malloc(bulk_len(rank, i) + 1);
        for (size_t k = 0; src.buf[i] && k < bulk_len(rank, i); k++)
            src.buf[i][k] = bulk_byte(rank, i, k);
    }
    struct gp_error e = {0};
    int rc = gp_dist_gather_bulk(d, PIECE, bulk_parts, &src, bulk_place, bulk_landed, &dst, &e);
    for (int i = 0; i < 3; i++) {
        free(src.buf[i]);
        free(dst.buf[i]);
    }
    if (fail_rank >= 0) {
        fprintf(stderr, "mpi_check: rank %d: bulk gather returned %d: %s\n", rank, rc, e.msg);
        *rc_out = rc ? 1 : 0;
        return 1;
    }
    EXPECT(rc == 0, "bulk gather: %s", e.msg);
    if (rank == 0)
        EXPECT(dst.placed == size - 1 && dst.landed == size - 1 && dst.bad == 0,
               "bulk gather: %d placed, %d landed, %d bad", dst.placed, dst.landed, dst.bad);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--have-mpi") == 0) {
        puts(gp_dist_have_mpi() ? "yes" : "no");
        return 0;
    }
    struct gp_dist *d = NULL;
    struct gp_error e = {0};
    if (gp_dist_init(&d, &argc, &argv, &e)) {
        fprintf(stderr, "mpi_check: %s\n", e.msg);
        return 1;
    }
    int rank = gp_dist_rank(d), size = gp_dist_size(d);
    if (size > 64) {
        fprintf(stderr, "mpi_check: at most 64 ranks\n");
        gp_dist_finalize(d);
        return 1;
    }

    /* a local failure on one rank stops every rank with its name on it */
    int fail_rank = arg_rank(argc, argv, "--fail-rank");
    if (fail_rank >= 0) {
        struct gp_error local = {0};
        if (rank == fail_rank)
            gp_err(&local, GP_ENET, "injected failure: cannot reach the server");
        int rc = gp_dist_check(d, &local, &e);
        fprintf(stderr, "mpi_check: rank %d: check returned %d: %s\n", rank, rc, e.msg);
        gp_dist_finalize(d);
        return rc ? 1 : 0;
    }

    check_bcast(d);

    /* barrier: rank 0 cannot leave before the last rank arrives 200 ms late */
    EXPECT(gp_dist_barrier(d, &e) == 0, "%s", e.msg);
    uint64_t t = gp_now_ns();
    if (rank == size - 1 && size > 1)
        nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    EXPECT(gp_dist_barrier(d, &e) == 0, "%s", e.msg);
    uint64_t waited = gp_now_ns() - t;
    if (rank == 0 && size > 1)
        EXPECT(waited >= 150000000ull, "rank 0 left the barrier after %llu ns", (unsigned long long)waited);

    /* clocks: one host, one CLOCK_MONOTONIC: the true offset is 0, so the
     * estimate must be within its own uncertainty */
    struct gp_dist_clock mine, all[64];
    EXPECT(gp_dist_clock_sync(d, 50, &mine, all, &e) == 0, "%s", e.msg);
    if (rank > 0) {
        EXPECT(mine.uncertainty_ns > 0 && mine.rounds == 50, "uncertainty %lld, rounds %d",
               (long long)mine.uncertainty_ns, mine.rounds);
        EXPECT(llabs(mine.offset_ns) <= mine.uncertainty_ns, "offset %lld ns > uncertainty %lld ns",
               (long long)mine.offset_ns, (long long)mine.uncertainty_ns);
        EXPECT(mine.uncertainty_ns < 50000000, "uncertainty %lld ns", (long long)mine.uncertainty_ns);
    }
    int64_t worst = 0;
    if (rank == 0)
        for (int r = 0; r < size; r++) {
            printf("mpi_check: clock rank %d on %s: offset %lld ns, uncertainty %lld ns (rtt %lld ns)\n", r,
                   gp_dist_hostname(d, r), (long long)all[r].offset_ns, (long long)all[r].uncertainty_ns,
                   (long long)all[r].rtt_ns);
            worst = all[r].uncertainty_ns > worst ? all[r].uncertainty_ns : worst;
        }
    /* what each rank got from the scatter equals what rank 0 measured */
    struct one_clock oc = {mine, 0};
    struct clock_cmp cc = {all, 0, 0};
    EXPECT(gp_dist_gather(d, 64, produce_clock, &oc, compare_clock, &cc, &e) == 0, "%s", e.msg);
    if (rank == 0)
        EXPECT(cc.seen == size && cc.bad == 0, "clock records: %d seen, %d differ", cc.seen, cc.bad);

    int die = arg_rank(argc, argv, "--die-rank");
    if (rank == die) {
        fprintf(stderr, "mpi_check: rank %d exits now (--die-rank)\n", rank);
        fflush(stderr);
        _exit(3);
    }

    int brc = 0;
    if (check_bulk(d, arg_rank(argc, argv, "--fail-bulk"), &brc)) {
        gp_dist_finalize(d);
        return brc;
    }

    /* the chunked gather */
    struct producer *p = calloc(1, sizeof *p);
    struct collector *c = calloc(1, sizeof *c);
    if (!p || !c)
        return 1;
    p->rank = rank;
    p->fail_at = rank == arg_rank(argc, argv, "--fail-gather") ? nrecs(rank) / 2 : -1;
    c->size = size;
    int rc = gp_dist_gather(d, CHUNK, produce, p, collect, c, &e);
    if (p->fail_at >= 0 || arg_rank(argc, argv, "--fail-gather") >= 0) {
        fprintf(stderr, "mpi_check: rank %d: gather returned %d: %s\n", rank, rc, e.msg);
        free(p);
        free(c);
        gp_dist_finalize(d);
        return rc ? 1 : 0;
    }
    EXPECT(rc == 0, "%s", e.msg);
    if (rank == 0) {
        size_t want_bytes = 0;
        int nchunks = 0;
        for (int r = 0; r < size; r++) {
            for (int j = 0; j < nrecs(r); j++)
                want_bytes += rec_size(r, j);
            EXPECT(c->next_j[r] == nrecs(r), "rank %d: %d records arrived, %d sent", r, c->next_j[r], nrecs(r));
            EXPECT(c->chunks[r] > 1, "rank %d: %d chunk(s): not chunked", r, c->chunks[r]);
            nchunks += c->chunks[r];
        }
        EXPECT(c->bad == 0, "%zu records or chunks malformed", c->bad);
        EXPECT(c->bytes == want_bytes, "%zu record bytes arrived, %zu sent", c->bytes, want_bytes);
        if (!failures)
            printf("mpi_check: ok (%d ranks, %zu record bytes in %d chunks of <= %d bytes, worst clock "
                   "uncertainty %lld ns)\n", size, c->bytes, nchunks, CHUNK, (long long)worst);
    }
    /* every rank's verdict: no rank exits 0 while another found a problem */
    struct gp_error mine_err = {0};
    if (failures)
        gp_err(&mine_err, GP_EIO, "%d check(s) failed", failures);
    rc = gp_dist_check(d, &mine_err, &e);
    if (rc && rank == 0)
        fprintf(stderr, "mpi_check: FAIL %s\n", e.msg);
    free(p);
    free(c);
    gp_dist_finalize(d);
    return rc ? 1 : 0;
}
