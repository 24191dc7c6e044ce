/* dist/dist.h — running one benchmark as K cooperating processes (MPI ranks).
 *
 * Owns: struct gp_dist (opaque): this process's place in the job (rank, size,
 * every rank's hostname) and, in an MPI build, the private communicator. Free
 * with gp_dist_finalize(). Everything MPI lives in dist/: the rest of genperf
 * calls only this header, and `#ifdef GP_HAVE_MPI` never leaves the folder.
 *
 * Two builds, one interface:
 *   - built with MPI (src/dist/module.mk found `mpicc`): gp_dist_init() calls
 *     MPI_Init only when a launcher started us (OMPI_COMM_WORLD_SIZE, PMI_SIZE,
 *     PMIX_RANK in the environment); a plain `genperf profile` stays a
 *     single process and never touches MPI.
 *   - built without MPI: every call is the trivial rank-0-of-1 version, and
 *     gp_dist_init() refuses to run when the environment says we are one of
 *     several ranks (so `mpirun -n 3` cannot silently run 3 independent
 *     benchmarks); the caller prints the error and exits non-zero.
 *
 * Collective calls (bcast, barrier, clock_sync, gather, check) must be made by
 * every rank in the same order. Only the thread that called gp_dist_init may
 * call them (MPI_THREAD_FUNNELED): worker threads never talk MPI.
 *
 * Faults: the communicator uses MPI_ERRORS_RETURN, so a failing MPI call is
 * turned into a gp_error naming the peer rank and its host. But Open MPI's
 * runtime (mpirun/orted) kills the whole job as soon as one rank dies or exits
 * non-zero — the survivors never see an error code; mpirun prints which
 * process failed and exits non-zero. Ranks that fail *on their own* (server
 * unreachable, bad response) must therefore not exit: they report through
 * gp_dist_check() / the gather's end-of-stream status, and every rank then
 * returns the same one-line error "rank R on host H: ...". A failing MPI
 * call itself (GP_ENET, "MPI ... failed") may leave other ranks blocked in a
 * collective: main() then calls gp_dist_abort(). See docs/scale-out.md
 * ("Faults").
 */
#ifndef GP_DIST_DIST_H
#define GP_DIST_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define GP_DIST_HOST_MAX 64 /* bytes kept of each rank's hostname, NUL included */

struct gp_dist;

/* ---- launcher detection (pure: reads the environment only) ---- */

struct gp_dist_launch {
    int launched;     /* 1 when a launcher variable was found */
    long size;        /* ranks in the job; 0 when the variables do not say */
    long rank;        /* this process's rank; -1 when unknown */
    char var[32];     /* the variable that told us (for error messages) */
};

/* Looks at OMPI_COMM_WORLD_SIZE/RANK (Open MPI's mpirun), PMI_SIZE/RANK
 * (MPICH hydra, Slurm PMI2) and PMIX_RANK (+ SLURM_STEP_NUM_TASKS under
 * `srun --mpi=pmix`). Unparsable values are ignored. */
void gp_dist_detect(struct gp_dist_launch *out);

/* How long this rank has between the SIGTERM with which the launcher stops a
 * job and the SIGKILL that follows. Open MPI's mpirun does not forward a
 * Ctrl-C: it sends each rank SIGCONT, then SIGTERM after
 * odls_base_sigkill_timeout seconds, then SIGKILL after as many again; it
 * hands the value to the ranks as $OMPI_MCA_odls_base_sigkill_timeout
 * (default 1). Other launchers are assumed to leave Open MPI's default. 0
 * when no launcher started us (nothing will kill us). */
uint64_t gp_dist_kill_window_ns(void);

/* 1 when this binary was built with MPI. */
int gp_dist_have_mpi(void);

/* ---- the job ---- */

/* Joins the job (MPI_Init_thread when launched by mpirun/srun, nothing
 * otherwise), learns rank/size and every rank's hostname. argc/argv may be
 * NULL. Fails (GP_ENOTSUP) in a build without MPI started as one of several
 * ranks; (GP_ENET) when MPI itself cannot start. */
int gp_dist_init(struct gp_dist **out, int *argc, char ***argv, struct gp_error *err);

/* Leaves the job (MPI_Finalize if we initialized it) and frees d. NULL is ok. */
void gp_dist_finalize(struct gp_dist *d);

/* Ends every rank of the job now with `code` (MPI_Abort); in a single process
 * it only returns. For main() after a fatal error on one rank when the others
 * may be blocked in a collective; never called by library code. */
void gp_dist_abort(struct gp_dist *d, int code);

int gp_dist_rank(const struct gp_dist *d);
int gp_dist_size(const struct gp_dist *d);
/* The Open MPI transport selection gp_dist_init set for this job before
 * MPI_Init ("pml=ob1 btl=self,vader"; only the parts it set), or "" when it
 * left Open MPI to choose: when mpirun says every rank is on this host
 * (OMPI_COMM_WORLD_LOCAL_SIZE == OMPI_COMM_WORLD_SIZE), the shared-memory
 * transport is all the job can use, and probing the network ones (UCX, OFI,
 * TCP, verbs) is most of a rank's start-up. A variable the user set
 * (OMPI_MCA_pml, OMPI_MCA_btl, or mpirun --mca, which arrives as one) is
 * kept; GENPERF_DIST_KEEP_MCA=1 sets nothing. Never NULL. */
const char *gp_dist_mca_set(const struct gp_dist *d);

/* Hostname of `rank` ("?" when out of range); stable until finalize. Tests
 * may set GENPERF_HOSTNAME_OVERRIDE per rank to fake several hosts. */
const char *gp_dist_hostname(const struct gp_dist *d, int rank);

/* Rank 0's *data and *len (possibly 0 bytes) reach every rank. On rank 0 nothing
 * changes; elsewhere *data becomes a malloc'd copy (NUL-terminated one byte
 * past *len, so text can be used directly) that the caller frees. */
int gp_dist_bcast(struct gp_dist *d, void **data, size_t *len, struct gp_error *err);

int gp_dist_barrier(struct gp_dist *d, struct gp_error *err);

/* Collective status: every rank passes its own result (NULL or code 0 = ok).
 * Returns 0 on every rank when all were ok; otherwise every rank returns
 * -code of the lowest failing rank with err = "rank R on host H: <its msg>"
 * (plus "(N ranks failed)" when more than one did); a single process gets
 * its own error back unchanged. Call it after each phase that can fail
 * locally, so no rank proceeds alone. */
int gp_dist_check(struct gp_dist *d, const struct gp_error *local, struct gp_error *err);

/* ---- clocks ---- */

/* A rank's CLOCK_MONOTONIC relative to rank 0's: rank0_ns = local_ns + offset_ns,
 * exact to within ±uncertainty_ns (= half the round trip of the sample used). */
struct gp_dist_clock {
    int64_t offset_ns;
    int64_t uncertainty_ns;
    int64_t rtt_ns;     /* the smallest round trip seen */
    int rounds;         /* round trips measured (0 on rank 0) */
};

/* Rank 0 pings each other rank `rounds` times in turn (t0 = rank 0 sends,
 * t1 = the rank stamps its clock and answers, t2 = rank 0 receives) and keeps
 * the sample with the smallest round trip. *mine gets this rank's result
 * (rank 0: all zeros); on rank 0, all[] (size entries, may be NULL) gets every
 * rank's. Single process: zeros. */
int gp_dist_clock_sync(struct gp_dist *d, int rounds, struct gp_dist_clock *mine,
                       struct gp_dist_clock *all, struct gp_error *err);

/* The estimate behind clock_sync, on n samples (t0/t2 on the reference clock,
 * t1 on the remote one): picks the minimum t2 - t0 (first one on ties) and sets
 * offset = (t0 + t2) / 2 - t1, uncertainty = ceil(rtt / 2). Returns -1 if n <= 0
 * or a sample has t2 < t0. */
int gp_dist_clock_pick(const int64_t *t0, const int64_t *t1, const int64_t *t2, int n,
                       struct gp_dist_clock *out);

static inline int64_t gp_dist_to_rank0_ns(const struct gp_dist_clock *c, uint64_t local_ns)
{
    return (int64_t)local_ns + c->offset_ns;
}

/* ---- the chunked gather of records to rank 0 ---- */

/* Sender side, called until it returns 0: 1 = *rec, *len is the next record
 * (valid until the next call), 0 = no more, < 0 = failed (err filled; the
 * failure travels to rank 0 and names this rank). */
typedef int (*gp_dist_next_fn)(void *ctx, const void **rec, size_t *len, struct gp_error *err);
/* Rank 0 side, once per chunk in arrival order: rank `src`'s records, packed
 * (walk them with gp_dist_chunk_next). The chunk is only valid during the
 * call. Non-zero return = failed (err filled): the gather still drains every
 * rank (so nobody blocks) and then returns that error. */
typedef int (*gp_dist_chunk_fn)(void *ctx, int src, const void *chunk, size_t len, struct gp_error *err);

/* Every rank streams its records to rank 0 in chunks of at most chunk_bytes
 * (a single record larger than that travels alone in a chunk of its size).
 * Rank 0 delivers its own records first, then rank 1's, 2's, ... each in the
 * sender's order; a rank sends only when rank 0 asks for it and each chunk is
 * a synchronous send, so rank 0 holds one chunk at a time (O(chunk_bytes +
 * largest record) memory beyond what on_chunk keeps). next/on_chunk are
 * unused on ranks where they do not apply (NULL is fine there).
 * On failure of any rank's next() or of on_chunk, every rank returns an error
 * (naming the first failing rank and its host) — rank 0 must then not use
 * what on_chunk kept as a complete result. chunk_bytes: 16 .. INT_MAX. */
int gp_dist_gather(struct gp_dist *d, size_t chunk_bytes, gp_dist_next_fn next, void *next_ctx,
                   gp_dist_chunk_fn on_chunk, void *chunk_ctx, struct gp_error *err);

/* Walks a chunk: each record is a 4-byte little-endian length then its bytes.
 * *pos starts at 0. Returns 1 with *rec and *rec_len set, 0 at the end, -1 when
 * the chunk is malformed (a length running past the end). */
int gp_dist_chunk_next(const void *chunk, size_t len, size_t *pos, const void **rec, size_t *rec_len);
/* The same walk for records that open with a u32 kind tag (in the sender's
 * byte order: every rank runs the same binary): 1 with *kind and the bytes
 * after it in *body and *body_len, 0 at the end, -1 when the chunk is malformed
 * or a record is too short for its tag. */
int gp_dist_chunk_next_kind(const void *chunk, size_t len, size_t *pos, uint32_t *kind, const char **body,
                            size_t *body_len);

/* ---- the bulk gather: whole buffers to rank 0, received in place ----
 *
 * For data that already sits in memory as a few large buffers (a record
 * store's byte arena and its arrays): each rank > 0 names up to
 * GP_DIST_PARTS_MAX buffers; rank 0 learns their sizes, says where each is to
 * land (typically the tail of its own arrays, room reserved first) and MPI
 * writes the bytes there directly, in pieces of at most piece_bytes, two in
 * flight. No packing, no staging buffer: one copy per byte (MPI's), and rank
 * 0 needs no memory beyond the places it gave. Ranks are served one after the
 * other (1, 2, ...) and only when rank 0 asks, as in gp_dist_gather; a rank's
 * failure (its parts() failing) or rank 0's (place/landed failing) is
 * reported the same way: every rank returns "rank R on host H: <msg>" of the
 * first failing one, after rank 0 has heard from every rank. Rank 0's own
 * data does not travel (it has it): in a single process this is a no-op. */

#define GP_DIST_PARTS_MAX 8
#define GP_DIST_INLINE_MAX 64

/* flags of a part:
 * INLINE (set by the sender): its bytes (at most GP_DIST_INLINE_MAX) travel
 *   with the sizes, so rank 0's place already sees them in data (valid until
 *   landed returns; place leaves data alone). A handle to where the rest of
 *   the data is, say.
 * TAKEN (set by rank 0's place): it got this part's bytes another way (from
 *   the handle): nothing travels for it. The sender keeps its memory as it is
 *   until the gather returns, so rank 0 has it until then. */
enum { GP_DIST_PART_INLINE = 1u << 0, GP_DIST_PART_TAKEN = 1u << 1 };

struct gp_dist_part {
    void *data;
    size_t len;
    unsigned flags;
};

/* Ranks > 0: set parts[0 .. *n) (the memory must stay valid and unchanged
 * until the gather returns). < 0 = failed (err filled): nothing is sent but
 * the error line, which names this rank on every rank. */
typedef int (*gp_dist_parts_fn)(void *ctx, struct gp_dist_part *parts, int *n, struct gp_error *err);
/* Rank 0, per rank src > 0: parts[i].len are src's sizes; point parts[i].data
 * at room for that many bytes (any pointer when 0). Non-zero = refused (err
 * filled): src sends nothing and the gather fails naming rank 0. */
typedef int (*gp_dist_place_fn)(void *ctx, int src, struct gp_dist_part *parts, int n, struct gp_error *err);
/* Rank 0, once src's parts have all landed where place said. Non-zero =
 * failed, as for place. */
typedef int (*gp_dist_landed_fn)(void *ctx, int src, const struct gp_dist_part *parts, int n,
                                 struct gp_error *err);

/* Collective. piece_bytes: 16 .. INT_MAX. parts is used on ranks > 0,
 * place/landed (with ctx) on rank 0; NULL where unused. */
int gp_dist_gather_bulk(struct gp_dist *d, size_t piece_bytes, gp_dist_parts_fn parts, void *parts_ctx,
                        gp_dist_place_fn place, gp_dist_landed_fn landed, void *ctx, struct gp_error *err);

/* ---- splitting the load exactly (pure) ----
 *
 * The rule. The job has S = ranks x workers slots, numbered
 * slot = rank * workers + worker (gp_dist_slot).
 *   - A count split evenly (gp_dist_share): slot s gets total / S, plus one
 *     when s < total % S. Shares differ by at most one and sum to total.
 *   - Concurrency C: split evenly. When C < S the first C slots get one
 *     in-flight request each and the rest get none (they stay idle).
 *   - Request count N (with concurrency C): the job runs A = min(C, N)
 *     request slots (closed-loop lanes, numbered job-wide); request slot r
 *     sends N / A requests, plus one when r < N mod A (gp_dist_slot_quota),
 *     as perf_analyzer's threads split a count, and its k-th request uses
 *     dataset entry (r + k*A) mod n. Slot s runs the request slots
 *     gp_dist_share_first(A, S, s) onwards, gp_dist_share(A, S, s) of them,
 *     so the union over slots is exactly the one-thread run's (request slot,
 *     entry) pairs.
 *   - An in-flight cap M (--max-concurrency, open loops): slot s gets
 *     gp_dist_share(M, S, s); M must be at least S, so no slot gets 0.
 *   - An arrival list (rate mode, traces): arrival i belongs to slot i % S
 *     (gp_dist_arrival_slot). Each slot's arrivals keep their global times,
 *     so the union over slots is exactly the single-thread schedule, the
 *     shares are gp_dist_share(n, S, s), and every slot's load is spread over
 *     the whole run instead of one slot taking the first minutes.
 */

static inline int gp_dist_slot(int rank, int worker, int workers)
{
    return rank * workers + worker;
}

static inline uint64_t gp_dist_arrival_slot(uint64_t i, uint64_t slots)
{
    return i % slots;
}

uint64_t gp_dist_share(uint64_t total, uint64_t parts, uint64_t index);
/* Sum of the shares of slots 0 .. index-1 (where slot index's share starts). */
uint64_t gp_dist_share_first(uint64_t total, uint64_t parts, uint64_t index);

/* What the job asks for, before the split. */
struct gp_dist_load {
    int closed;           /* a closed loop (or a plan's warmup) runs: concurrency must be >= 1 */
    uint64_t concurrency; /* closed loop: the job's slots (--concurrency) */
    uint64_t requests;    /* closed loop: the phase's request count; 0 = none (a duration) */
    uint64_t cap;         /* open loop: the job's in-flight cap (--max-concurrency); 0 = none */
};

/* One loop's part of the load: the one place the job is split over ranks x
 * workers (profile/ validates with it before an MPI job starts, the client's
 * workers take their caps from it, its scheduler its slots each phase). */
struct gp_dist_slice {
    uint64_t slot, slots;   /* this loop: rank * workers + worker, of ranks x workers */
    uint64_t active;        /* closed loop: the job's request slots, min(C, N) (C when N = 0) */
    uint64_t first_slot;    /* closed loop: job-wide index of this loop's first request slot */
    uint64_t concurrency;   /* closed loop: request slots this loop runs (0 = an idle loop) */
    uint64_t requests;      /* closed loop: requests this loop sends (0 when N = 0) */
    uint64_t cap;           /* this loop's share of the cap (0 = no cap) */
};

/* The slice of loop (rank, worker). Fails on ranks/workers < 1, rank/worker
 * out of range, a closed loop with concurrency 0, or a cap below the number
 * of loops (the message names --max-concurrency and what to change). */
int gp_dist_split_load(const struct gp_dist_load *ld, int ranks, int workers, int rank, int worker,
                       struct gp_dist_slice *out, struct gp_error *err);

/* Requests of request slot r when `active` request slots share n (the rule
 * above). */
static inline uint64_t gp_dist_slot_quota(uint64_t active, uint64_t n, uint64_t r)
{
    return active ? n / active + (r < n % active ? 1 : 0) : 0;
}

#endif
