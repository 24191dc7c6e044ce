/* dataset/promptgen.h — synthetic prompt text with an exact token count.
 *
 * Owns: struct gp_promptgen, the per-tokenizer cache of "safe" vocabulary
 * pieces (texts of single tokens that are known to concatenate without
 * merging). Build it once per tokenizer with gp_promptgen_new (this scans the
 * whole vocabulary, the only expensive step), reuse it for every prompt, free
 * with gp_promptgen_free. It borrows the tokenizer, which must outlive it;
 * like the tokenizer it is not thread-safe.
 *
 * Method (also in docs/dataset.md):
 *  1. Safe pieces. For every non-special id, piece = decode([a, id]) minus
 *     decode([a]) (a = the token of "a"), so SentencePiece's "▁" becomes the
 *     leading space it stands for. Kept when it is a word piece — one space
 *     then ASCII letters only — and "a" + piece re-encodes to exactly one
 *     more token than "a". Word pieces start a new pre-token in every
 *     byte-level regex (GPT-2, Llama-3, Qwen, o200k, DeepSeek) and never
 *     contain special, control, digit, punctuation or non-UTF-8 bytes, so a
 *     sequence of them re-encodes piece by piece. Tokenizers with too few word
 *     pieces (the builtin byte tokenizer) fall back to single lowercase
 *     letters and the space.
 *  2. Draw. n pieces uniformly from the safe list with the caller's seeded
 *     gp_rng; the first piece comes from those whose text without its leading
 *     space is still one token, and loses that space.
 *  3. Verify and repair (always, unless the tokenizer is proven additive and
 *     the caller chose GP_PROMPTGEN_TRUST_ADDITIVE). Re-encode the whole text (with its head); if the
 *     count is off, drop pieces from the end or append fresh ones and re-check,
 *     until the count is exact (restart with new draws after 16 rounds). The
 *     returned text is always verified: the count is a fact, not a hope.
 */
#ifndef GP_DATASET_PROMPTGEN_H
#define GP_DATASET_PROMPTGEN_H

#include <stddef.h>
#include <stdint.h>

struct gp_buf;
struct gp_error;
struct gp_rng;
struct gp_tokenizer;
struct gp_promptgen;

/* Whether each prompt is re-encoded. VERIFY (the default) always checks. With
 * TRUST_ADDITIVE, a tokenizer proven additive (see gp_promptgen_additive)
 * skips the re-encode: the count is exact by construction, and we avoid
 * tokenizing 10,000 x 4,096 tokens twice. Other tokenizers are still
 * checked. */
enum gp_promptgen_verify { GP_PROMPTGEN_VERIFY = 0, GP_PROMPTGEN_TRUST_ADDITIVE = 1 };

int gp_promptgen_new(struct gp_tokenizer *tok, struct gp_promptgen **out, struct gp_error *err);
void gp_promptgen_free(struct gp_promptgen *g);

/* Replaces out's content with text T such that
 *   head == NULL/""  : count(T) == ntokens
 *   head given       : T = head + " " + words, count(T) == count(head) + ntokens
 * (GenAI-Perf's f"{prefix} {prompt}" join). ntokens >= 1. */
int gp_promptgen_text(struct gp_promptgen *g, struct gp_rng *rng, long ntokens, const char *head,
                      size_t head_len, struct gp_buf *out, struct gp_error *err);

void gp_promptgen_set_verify(struct gp_promptgen *g, enum gp_promptgen_verify v);
/* 1 if word-piece texts re-encode piece by piece: no token of the
 * vocabulary contains a letter followed by a space (so none can straddle a
 * join), and 4 random 4,096-piece texts re-encode to exactly 4,096 tokens. */
int gp_promptgen_additive(const struct gp_promptgen *g);

/* Trace-style prompt of exactly ntokens tokens built from blocks of `block`
 * tokens: block b (< nids) is drawn from the stream keyed by ids[b], so rows
 * that share hash ids share those prompt prefixes token for token (prefix
 * cache workloads, Mooncake-style traces); blocks past the listed ids, and
 * any repair, come from a stream keyed by salt. Verified like
 * gp_promptgen_text. */
int gp_promptgen_blocks(struct gp_promptgen *g, uint64_t seed, const int64_t *ids, size_t nids, long block,
                        long ntokens, uint64_t salt, struct gp_buf *out, struct gp_error *err);

/* How many safe pieces the cache holds, and whether they are word pieces (1)
 * or the single-character fallback (0). For tests and the docs. */
size_t gp_promptgen_pieces(const struct gp_promptgen *g, int *word_pieces);

#endif
