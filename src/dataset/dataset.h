/* dataset/dataset.h — the workload: N request bodies built before timing starts.
 *
 * Owns: struct gp_dataset and every byte in it (payload strings). Built once by
 * gp_dataset_build, immutable afterwards, freed with gp_dataset_free. The
 * client sends entries[i % n].payload verbatim; metrics/ and export/ read isl,
 * osl_asked and payload back by index.
 *
 * Synthetic prompts: seeded random token ids decoded with the workload
 * tokenizer such that re-encoding gives exactly the asked ISL (method in
 * dataset/promptgen.h and docs/dataset.md). File prompts: --input-file JSONL
 * (text / messages / payload rows), or payload:FILE traces (input_length +
 * hash_ids rows). Zero/negative numeric opts mean "default" as in GenAI-Perf
 * (isl 550, 100 entries, prefix length 100, osl_mean <= 0 = no max_tokens).
 */
#ifndef GP_DATASET_DATASET_H
#define GP_DATASET_DATASET_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct gp_error;
struct gp_tokenizer;

enum gp_endpoint_type { GP_ENDPOINT_CHAT = 0, GP_ENDPOINT_COMPLETIONS = 1 };

struct gp_dataset_opts {
    const char *const *models;   /* -m values, at least one */
    size_t n_models;
    int model_random;            /* --model-selection-strategy random (else round_robin) */
    enum gp_endpoint_type endpoint_type;
    int streaming;               /* "stream": true */
    int include_usage;           /* stream_options.include_usage when streaming */
    long isl_mean;               /* --synthetic-input-tokens-mean (default 550) */
    long isl_stddev;
    long osl_mean;               /* --output-tokens-mean; -1 = unset (no max_tokens) */
    long osl_stddev;
    int osl_deterministic;       /* also send min_tokens = max_tokens and ignore_eos */
    long num_entries;            /* --num-dataset-entries (default 100) */
    uint64_t seed;               /* --random-seed (default 0) */
    const char *input_file;      /* --input-file JSONL (or payload:FILE, a trace), NULL = synthetic */
    long num_prefix_prompts;     /* --num-prefix-prompts (0 = none) */
    long prefix_prompt_length;   /* --prefix-prompt-length (default 100) */
    const json_t *extra_inputs;  /* borrowed JSON object merged into every payload, or NULL */
};

struct gp_dataset_entry {
    char *payload;        /* exact request body, NUL-terminated */
    size_t payload_len;
    int32_t isl;          /* prompt content tokens as GenAI-Perf counts them */
    int32_t osl_asked;    /* max_tokens sent, -1 when none */
    double timestamp_ms;  /* --input-file payload:FILE rows' "timestamp" (ms), -1 when none */
};

struct gp_dataset {
    struct gp_dataset_entry *entries;
    size_t n;
};

int gp_dataset_build(const struct gp_dataset_opts *opts, struct gp_tokenizer *tok,
                     struct gp_dataset **out, struct gp_error *err);
/* Writes GenAI-Perf's inputs.json ({"data":[{"payload":[...]}...]}) atomically. */
int gp_dataset_write_inputs_json(const struct gp_dataset *ds, const char *path, struct gp_error *err);
void gp_dataset_free(struct gp_dataset *ds);

/* GenAI-Perf's ISL of one request body: the tokens of its messages' string
 * contents joined by ' ' (chat), or of its "prompt" (completions); 0 when it
 * has neither, -1 when the tokenizer fails. tmp is caller-owned scratch.
 * Used by --input-file payload rows and by process-export-files. */
struct gp_buf;
long gp_dataset_payload_isl(struct gp_tokenizer *tok, const json_t *payload, struct gp_buf *tmp);

#endif
