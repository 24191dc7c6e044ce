/* core/rng.h — the one seeded RNG of the codebase: the random streams every
 * workload decision uses (dataset/, client/) and the simulated server's draws (serve/).
 *
 * Owns: struct gp_rng, a plain value (no heap). Fully specified so that the
 * same seed gives the same workload on every machine and libc:
 *   - seeding: splitmix64 (Vigna) expands a 64-bit key into the 256-bit
 *     xoshiro256** state; gp_rng_seed_stream mixes (seed, stream, index) with
 *     splitmix64 first, so every purpose (lengths, prompt text, models) and
 *     every dataset entry has its own independent stream. Entry i therefore
 *     does not change when --num-dataset-entries or another flag changes.
 *   - draws: xoshiro256** 1.0; bounded ints by Lemire's multiply-shift with
 *     rejection (unbiased); doubles from the top 53 bits.
 *   - normal: Marsaglia's polar method. It needs only +,*,/, sqrt (exact in
 *     IEEE 754) and log; the result is rounded to an integer, so a last-ulp
 *     difference in a libm log could only matter exactly at a .5 boundary.
 * libc rand() is never used: its sequence differs between libcs.
 */
#ifndef GP_CORE_RNG_H
#define GP_CORE_RNG_H

#include <stdint.h>

struct gp_rng {
    uint64_t s[4];
};

/* Purposes of the independent streams (part of the on-disk contract: changing
 * a value changes every generated workload). */
enum gp_rng_stream {
    GP_RNG_ISL = 1,     /* prompt length of entry i */
    GP_RNG_OSL = 2,     /* max_tokens of entry i */
    GP_RNG_TEXT = 3,    /* prompt token draws of entry i */
    GP_RNG_MODEL = 4,   /* --model-selection-strategy random */
    GP_RNG_PREFIX = 5,  /* prefix pool texts (index = prefix number) */
    GP_RNG_PICK = 6,    /* which prefix entry i uses */
    GP_RNG_BLOCK = 7,   /* payload: trace block of a hash id (index = hash id) */
    GP_RNG_TAIL = 8,    /* payload: trace blocks past the hash ids, repairs (index = row) */
    GP_RNG_IMAGE = 9,   /* synthetic image of an entry (size, pixels; index = entry + slot << 40) */
    GP_RNG_AUDIO = 10,  /* synthetic audio clip of an entry (index = entry + slot << 40) */
    GP_RNG_SAMPLE = 11, /* --batch-size-text > 1 from files: which rows (index = entry + file << 40) */
    GP_RNG_CANCEL = 12, /* --request-cancellation-rate: is request i cancelled (client.h says i) */
    GP_RNG_SHARED = 16, /* --shared-prefix-ratio pool texts (index = pool entry) */
    GP_RNG_SALT = 17,   /* --cache-bust salt of entry i (index = entry + slot << 40) */
};

uint64_t gp_splitmix64(uint64_t *state);
/* Uniform in [0, 1) from the next splitmix64 output (its top 53 bits). For a
 * cheap one-word stream per item (serve/ draws a request's tokens, EOS point,
 * id and fault from one word seeded by --seed and the request number). */
double gp_splitmix64_double(uint64_t *state);
void gp_rng_seed(struct gp_rng *r, uint64_t key);
void gp_rng_seed_stream(struct gp_rng *r, uint64_t seed, uint64_t stream, uint64_t index);
uint64_t gp_rng_next(struct gp_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t gp_rng_below(struct gp_rng *r, uint64_t n);
/* Uniform in [0, 1). */
double gp_rng_double(struct gp_rng *r);
/* Standard normal N(0, 1). */
double gp_rng_normal(struct gp_rng *r);
/* round(mean + stddev * N(0,1)) clamped to [lo, INT32_MAX]; exactly mean when
 * stddev <= 0 (no draw is consumed then). */
long gp_rng_length(struct gp_rng *r, long mean, long stddev, long lo);

#endif
