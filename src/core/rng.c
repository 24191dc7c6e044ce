/* core/rng.c — splitmix64 / xoshiro256** / polar normal (see rng.h). */
#include "core/rng.h"

#include <math.h>

uint64_t gp_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double gp_splitmix64_double(uint64_t *state) { return (double)(gp_splitmix64(state) >> 11) * 0x1.0p-53; }

void gp_rng_seed(struct gp_rng *r, uint64_t key)
{
    uint64_t st = key;
    for (int i = 0; i < 4; i++)
        r->s[i] = gp_splitmix64(&st);
}

void gp_rng_seed_stream(struct gp_rng *r, uint64_t seed, uint64_t stream, uint64_t index)
{
    /* Chain the three words through splitmix64 so that nearby (stream, index)
     * pairs give unrelated states. */
    uint64_t st = seed;
    uint64_t k = gp_splitmix64(&st);
    st = k ^ (stream * 0xd1b54a32d192ed03ull);
    k = gp_splitmix64(&st);
    st = k ^ (index * 0x8cb92ba72f3d8dd7ull);
    k = gp_splitmix64(&st);
    gp_rng_seed(r, k);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t gp_rng_next(struct gp_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t gp_rng_below(struct gp_rng *r, uint64_t n)
{
    /* Lemire 2019: the high word of x*n is uniform once the low word clears
     * the threshold (2^64 mod n). */
    unsigned __int128 m = (unsigned __int128)gp_rng_next(r) * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t thresh = (0 - n) % n;
        while (lo < thresh) {
            m = (unsigned __int128)gp_rng_next(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double gp_rng_double(struct gp_rng *r) { return (double)(gp_rng_next(r) >> 11) * 0x1.0p-53; }

double gp_rng_normal(struct gp_rng *r)
{
    for (;;) {
        double u = 2.0 * gp_rng_double(r) - 1.0;
        double v = 2.0 * gp_rng_double(r) - 1.0;
        double s = u * u + v * v;
        if (s > 0.0 && s < 1.0)
            return u * sqrt(-2.0 * log(s) / s);
    }
}

long gp_rng_length(struct gp_rng *r, long mean, long stddev, long lo)
{
    double x = (double)mean;
    if (stddev > 0)
        x += (double)stddev * gp_rng_normal(r);
    x = floor(x + 0.5);
    if (x < (double)lo)
        return lo;
    if (x > 2147483647.0)
        return 2147483647L;
    return (long)x;
}
