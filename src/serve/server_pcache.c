/* serve/server_pcache.c — `genperf serve --prefix-cache`: an automatic
 * prefix cache in vLLM's manner, so that a prefix-cache workload has ground
 * truth. A prompt's token ids are cut into blocks of GP_PCACHE_BLOCK tokens;
 * each full block is keyed by a hash chained over every block before it (so
 * a block matches only when the whole prefix up to it matches, as vLLM's
 * block hashes do). A request's cached tokens are the leading blocks already
 * in the set, at most prompt - 1 (vLLM always computes the last prompt token
 * to get the first output token); then all its full blocks are added. The
 * set has room for GP_PCACHE_SLOTS blocks; once it is half full it is
 * emptied (a whole-cache eviction: simpler than LRU and never reached by the
 * workloads the tests run). queries/hits count tokens, as
 * vllm:prefix_cache_{queries,hits}_total do. */
#include "serve/srv_req.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

/* Finds h (1) or the empty slot where it would go (0). */
static int find(const struct srv_pcache *pc, uint64_t h, size_t *slot)
{
    size_t mask = GP_PCACHE_SLOTS - 1;
    for (size_t k = h & mask;; k = (k + 1) & mask) {
        if (pc->set[k] == h || pc->set[k] == 0) {
            *slot = k;
            return pc->set[k] == h;
        }
    }
}

uint32_t srv_pcache_lookup(struct srv_pcache *pc, const uint32_t *ids, size_t n)
{
    if (!pc->set) {
        pc->set = calloc(GP_PCACHE_SLOTS, sizeof *pc->set);
        if (!pc->set)
            return 0; /* no memory: every request is a miss */
    }
    if (pc->used > GP_PCACHE_SLOTS / 2) {
        memset(pc->set, 0, GP_PCACHE_SLOTS * sizeof *pc->set);
        pc->used = 0;
    }
    size_t nblocks = n / GP_PCACHE_BLOCK, hit_blocks = 0;
    int hitting = 1;
    uint64_t h = 0x2545f4914f6cdd1dull;
    for (size_t b = 0; b < nblocks; b++) {
        for (size_t t = 0; t < GP_PCACHE_BLOCK; t++)
            h = mix(h, ids[b * GP_PCACHE_BLOCK + t]);
        uint64_t key = h | 1; /* 0 marks an empty slot */
        size_t slot;
        if (find(pc, key, &slot)) {
            if (hitting)
                hit_blocks++;
        } else {
            hitting = 0;
            pc->set[slot] = key;
            pc->used++;
        }
    }
    size_t cached = hit_blocks * GP_PCACHE_BLOCK;
    if (n && cached > n - 1)
        cached = n - 1;
    pc->queries += n;
    pc->hits += cached;
    return (uint32_t)cached;
}

void srv_pcache_free(struct srv_pcache *pc)
{
    free(pc->set);
    gp_ids_free(&pc->ids);
    memset(pc, 0, sizeof *pc);
}
