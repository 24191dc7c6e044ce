/* tokenizer/tokenizer.h — the one tokenizer interface every layer uses
 * (dataset/ to build exact-ISL prompts, metrics/ to count ISL/OSL, serve/ to
 * draw token text, `genperf tokenize`).
 *
 * Owns: struct gp_tokenizer (opaque). Load with gp_tokenizer_load, free with
 * gp_tokenizer_free. Encoding keeps an internal pre-token cache, so one
 * tokenizer must not be used from two threads at once (give each thread its
 * own, or lock).
 *
 * Specs accepted by gp_tokenizer_load:
 *   "builtin"            a built-in byte tokenizer (id = byte value, 256 ids,
 *                        no specials): exact, lossless, needs no files; used by
 *                        tests and the demo when no real tokenizer is at hand.
 *   /path/tokenizer.json or a directory holding one (plus tokenizer_config.json)
 *   ORG/NAME             a HuggingFace hub id, looked up in the HF cache and
 *                        downloaded when missing (see tokenizer/hub.h)
 */
#ifndef GP_TOKENIZER_TOKENIZER_H
#define GP_TOKENIZER_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

struct gp_error;
struct gp_buf;
struct gp_tokenizer;

/* A growable id array; zeroed = empty. Owner frees with gp_ids_free. */
struct gp_ids {
    uint32_t *v;
    size_t n;
    size_t cap;
};
int gp_ids_push(struct gp_ids *ids, uint32_t id);
void gp_ids_free(struct gp_ids *ids);

struct gp_tokenizer_opts {
    const char *revision;   /* hub revision, NULL = "main" */
    int offline;            /* 1: never download */
};

int gp_tokenizer_load(const char *spec, const struct gp_tokenizer_opts *opts,
                      struct gp_tokenizer **out, struct gp_error *err);
void gp_tokenizer_free(struct gp_tokenizer *tok);

/* Encodes text[0..len) and APPENDS ids to out (out->n is not reset).
 * add_special: 0 = HF add_special_tokens=False, 1 = apply the post-processor. */
int gp_tokenizer_encode(struct gp_tokenizer *tok, const char *text, size_t len, int add_special,
                        struct gp_ids *out, struct gp_error *err);

/* Number of tokens text encodes to (add_special_tokens=False); -1 on error. */
long gp_tokenizer_count(struct gp_tokenizer *tok, const char *text, size_t len);
/* 1 when gp_tokenizer_count keeps no state (the builtin byte tokenizer),
 * so threads may count with it at once without a lock. */
int gp_tokenizer_count_reentrant(const struct gp_tokenizer *tok);

/* Decodes ids and APPENDS the text to out. skip_special: HF skip_special_tokens. */
int gp_tokenizer_decode(struct gp_tokenizer *tok, const uint32_t *ids, size_t n, int skip_special,
                        struct gp_buf *out, struct gp_error *err);

/* Vocabulary size including added tokens (ids are < this). */
size_t gp_tokenizer_vocab_size(const struct gp_tokenizer *tok);
/* 1 if id is a special/added token that prompts must avoid. */
int gp_tokenizer_is_special(const struct gp_tokenizer *tok, uint32_t id);
/* Where it came from (file path, or "builtin"); owned by tok. */
const char *gp_tokenizer_source(const struct gp_tokenizer *tok);

#endif
