/* dist/plan.c — the pure parts of dist/: the exact load split, the clock
 * estimate and the chunk format. No MPI here, so the unit tests cover them
 * in every build. */
#include "dist/dist.h"

#include <string.h>

uint64_t gp_dist_share(uint64_t total, uint64_t parts, uint64_t index)
{
    if (parts == 0 || index >= parts)
        return 0;
    return total / parts + (index < total % parts ? 1 : 0);
}

uint64_t gp_dist_share_first(uint64_t total, uint64_t parts, uint64_t index)
{
    if (parts == 0)
        return 0;
    if (index > parts)
        index = parts;
    uint64_t r = total % parts;
    return index * (total / parts) + (index < r ? index : r);
}

int gp_dist_split_load(const struct gp_dist_load *ld, int ranks, int workers, int rank, int worker,
                       struct gp_dist_slice *out, struct gp_error *err)
{
    if (ranks < 1 || workers < 1)
        return gp_err(err, GP_EINVAL, "load split: %d ranks x %d workers; both must be at least 1",
                      ranks, workers);
    if (rank < 0 || rank >= ranks || worker < 0 || worker >= workers)
        return gp_err(err, GP_EINVAL, "load split: rank %d / worker %d outside %d ranks x %d workers",
                      rank, worker, ranks, workers);
    if (ld->closed && ld->concurrency == 0)
        return gp_err(err, GP_EINVAL, "load split: concurrency 0; pass --concurrency 1 or more");
    uint64_t S = (uint64_t)ranks * (uint64_t)workers;
    /* every loop needs a share of the cap: a loop with none could never
     * send. The message names what the user sees: ranks only under MPI. */
    if (ld->cap > 0 && ld->cap < S) {
        if (ranks > 1)
            return gp_err(err, GP_EINVAL, "--max-concurrency %llu is below the number of event loops (%d ranks x "
                          "%d workers); lower --workers or the rank count, or raise --max-concurrency",
                          (unsigned long long)ld->cap, ranks, workers);
        return gp_err(err, GP_EINVAL, "--max-concurrency %llu is below the number of event loops (%d); "
                      "lower --workers or raise --max-concurrency", (unsigned long long)ld->cap, workers);
    }
    memset(out, 0, sizeof *out);
    out->slots = S;
    out->slot = (uint64_t)gp_dist_slot(rank, worker, workers);
    out->cap = ld->cap ? gp_dist_share(ld->cap, S, out->slot) : 0;
    if (!ld->closed)
        return 0;
    uint64_t A = ld->requests && ld->requests < ld->concurrency ? ld->requests : ld->concurrency;
    out->active = A;
    out->first_slot = gp_dist_share_first(A, S, out->slot);
    out->concurrency = gp_dist_share(A, S, out->slot);
    /* the quotas of request slots 0..r-1 sum to gp_dist_share_first(N, A, r) */
    if (ld->requests)
        out->requests = gp_dist_share_first(ld->requests, A, out->first_slot + out->concurrency) -
                        gp_dist_share_first(ld->requests, A, out->first_slot);
    return 0;
}

int gp_dist_clock_pick(const int64_t *t0, const int64_t *t1, const int64_t *t2, int n,
                       struct gp_dist_clock *out)
{
    if (n <= 0)
        return -1;
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (t2[i] < t0[i])
            return -1;
        if (best < 0 || t2[i] - t0[i] < t2[best] - t0[best])
            best = i;
    }
    int64_t rtt = t2[best] - t0[best];
    /* The remote stamp t1 was taken somewhere in [t0, t2]; the midpoint is the
     * best guess and is off by at most rtt/2 either way. */
    out->rtt_ns = rtt;
    out->offset_ns = t0[best] + rtt / 2 - t1[best];
    out->uncertainty_ns = (rtt + 1) / 2;
    out->rounds = n;
    return 0;
}

int gp_dist_chunk_next(const void *chunk, size_t len, size_t *pos, const void **rec, size_t *rec_len)
{
    const unsigned char *p = chunk;
    if (*pos >= len)
        return 0;
    if (len - *pos < 4)
        return -1;
    const unsigned char *h = p + *pos;
    size_t n = (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 | (size_t)h[3] << 24;
    if (n > len - *pos - 4)
        return -1;
    *rec = h + 4;
    *rec_len = n;
    *pos += 4 + n;
    return 1;
}

int gp_dist_chunk_next_kind(const void *chunk, size_t len, size_t *pos, uint32_t *kind, const char **body,
                            size_t *body_len)
{
    const void *rec;
    size_t n;
    int rc = gp_dist_chunk_next(chunk, len, pos, &rec, &n);
    if (rc != 1)
        return rc;
    if (n < sizeof *kind)
        return -1;
    memcpy(kind, rec, sizeof *kind);
    *body = (const char *)rec + sizeof *kind;
    *body_len = n - sizeof *kind;
    return 1;
}
