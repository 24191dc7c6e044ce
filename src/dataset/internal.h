/* dataset/internal.h — what the dataset's source files share (private to
 * src/dataset/; not part of the module's API, which is dataset.h).
 *
 * A gp_ds_row is one GenAI-Perf DataRow: borrowed texts, image data URLs and
 * base64 audio clips; gp_ds_body turns it into the request body of the
 * endpoint type, in GenAI-Perf's key order (docs/dataset.md). The caller
 * owns the row's strings and the returned json_t.
 */
#ifndef GP_DATASET_INTERNAL_H
#define GP_DATASET_INTERNAL_H

#include "dataset/dataset.h"

struct gp_buf;

#define GP_DS_DEFAULT_ISL 550
#define GP_DS_DEFAULT_ENTRIES 100
#define GP_DS_DEFAULT_PREFIX_LEN 100
/* Up to this many prompt tokens in all, every prompt is re-encoded even
 * when the tokenizer is proven additive (well under a second); larger
 * workloads rely on the proof (promptgen.h). */
#define GP_DS_VERIFY_BUDGET_TOKENS 1000000.0
/* Longest prompt we build (no served model takes more; it bounds memory). */
#define GP_DS_MAX_PROMPT_TOKENS 4194304L
/* Seeded streams of text/image/clip slot t > 0 of entry i use index
 * i + (t << GP_DS_SLOT_SHIFT); slot 0 is index i, the single-text layout
 * every earlier workload used, so those stay byte-identical. */
#define GP_DS_SLOT_SHIFT 40

struct gp_ds_row {
    const char *const *texts;
    const size_t *text_lens;
    size_t n_texts;
    const char *const *images; /* "data:image/png;base64,..." */
    size_t n_images;
    const char *const *audios; /* base64 WAV */
    size_t n_audios;
    int ascii;                 /* texts known to be ASCII (generated): skip UTF-8 checks */
};

long gp_ds_batch(long v);
const char *gp_ds_model(const struct gp_dataset_opts *o, size_t i);
/* max_tokens of entry idx drawn from --output-tokens-mean/-stddev; -1 when unset. */
long gp_ds_osl(const struct gp_dataset_opts *o, size_t idx);
/* Body of one request (NULL on out of memory); osl <= 0 sends no max_tokens. */
json_t *gp_ds_body(const struct gp_dataset_opts *o, const char *model, const struct gp_ds_row *row, long osl);
/* Body with one text (JSONL text rows, traces). */
json_t *gp_ds_text_body(const struct gp_dataset_opts *o, const char *model, const char *text, size_t len, int ascii,
                        long osl);
/* GenAI-Perf's _add_request_params on a body that has its prompt already:
 * stream (+ stream_options when server_usage), max_tokens (+ min_tokens,
 * ignore_eos), then --extra-inputs. Returns 0 or -1 (out of memory). */
int gp_ds_finish(const struct gp_dataset_opts *o, json_t *body, long osl);
/* Serialises body as the client sends it into e->payload. */
int gp_ds_emit(const struct gp_dataset_opts *o, struct gp_dataset_entry *e, const json_t *body,
               struct gp_buf *scratch);
/* Appends one entry slot to ds (growing entries by doubling); NULL on OOM. */
struct gp_dataset_entry *gp_ds_push(struct gp_dataset *ds, size_t *cap);
/* Python str.isspace for the ASCII range GenAI-Perf's strip() removes. */
int gp_ds_pyspace(unsigned char c);
/* 3 when s starts with a UTF-8 byte order mark, else 0. --input-file reads
 * past one at the start of the file (Python's utf-8-sig; Windows editors
 * write it) and names one that starts any other line, whose bytes would not
 * show in an "invalid JSON" message. */
size_t gp_ds_bom(const char *s, size_t n);
#define GP_DS_BOM_MSG "the line starts with a UTF-8 byte order mark (U+FEFF); remove it (only the file may start with one)"

int gp_ds_build_synthetic(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                          const char *const *files, size_t n_files, struct gp_error *err);
int gp_ds_build_jsonl(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                      struct gp_error *err);
/* --batch-size-text > 1 from a JSONL file, and rankings from a directory. */
int gp_ds_build_text_files(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                           struct gp_error *err);

#endif
