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

/* Requests of slot s under the largest-remainder rule (see dist.h). The
 * concurrency shares take two values only, c_hi = q + 1 for the first r slots
 * and c_lo = q for the rest, so the ranking of fractional parts is a ranking
 * of two groups: the group with the larger fraction takes the leftover first,
 * in slot order; on a tie the lower slots (the c_hi group) go first. */
static uint64_t slot_requests(uint64_t C, uint64_t N, uint64_t S, uint64_t s)
{
    uint64_t q = C / S, r = C % S;
    unsigned __int128 nh = (unsigned __int128)N * (q + 1), nl = (unsigned __int128)N * q;
    uint64_t floor_hi = (uint64_t)(nh / C), frac_hi = (uint64_t)(nh % C);
    uint64_t floor_lo = (uint64_t)(nl / C), frac_lo = (uint64_t)(nl % C);
    uint64_t leftover = N - (r * floor_hi + (S - r) * floor_lo);
    int hi = s < r;
    /* where slot s stands in the leftover order */
    uint64_t pos = frac_hi >= frac_lo ? s : hi ? (S - r) + s : s - r;
    return (hi ? floor_hi : floor_lo) + (pos < leftover ? 1 : 0);
}

int gp_dist_split_load(uint64_t concurrency, uint64_t requests, int ranks, int workers, int rank,
                       int worker, struct gp_dist_slice *out, struct gp_error *err)
{
    if (ranks < 1 || workers < 1)
        return gp_err(err, GP_EINVAL, "load split: %d ranks x %d workers; both must be at least 1",
                      ranks, workers);
    if (rank < 0 || rank >= ranks || worker < 0 || worker >= workers)
        return gp_err(err, GP_EINVAL, "load split: rank %d / worker %d outside %d ranks x %d workers",
                      rank, worker, ranks, workers);
    if (concurrency == 0)
        return gp_err(err, GP_EINVAL, "load split: concurrency 0; pass --concurrency 1 or more");
    uint64_t S = (uint64_t)ranks * (uint64_t)workers;
    uint64_t s = (uint64_t)gp_dist_slot(rank, worker, workers);
    memset(out, 0, sizeof *out);
    out->concurrency = gp_dist_share(concurrency, S, s);
    if (requests == 0)
        return 0;
    out->requests = slot_requests(concurrency, requests, S, s);
    for (uint64_t t = 0; t < s; t++)
        out->first_request += slot_requests(concurrency, requests, S, t);
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
