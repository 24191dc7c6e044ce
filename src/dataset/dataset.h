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

#include "media/audio.h"
#include "media/image.h"

struct gp_error;
struct gp_tokenizer;

/* GenAI-Perf's OpenAI endpoint types (--endpoint-type); the body each gets is
 * in docs/dataset.md. MULTIMODAL is its "multimodal" (alias "vision"): chat
 * with content parts. Its plain "chat" sends text content only, even when
 * image or audio flags are given (GenAI-Perf draws them and drops them). */
enum gp_endpoint_type {
    GP_ENDPOINT_CHAT = 0,        /* v1/chat/completions */
    GP_ENDPOINT_COMPLETIONS = 1, /* v1/completions, "prompt": [text] */
    GP_ENDPOINT_MULTIMODAL = 2,  /* v1/chat/completions, content parts */
    GP_ENDPOINT_EMBEDDINGS = 3,  /* v1/embeddings, "input": [texts] */
    GP_ENDPOINT_RANKINGS = 4,    /* v1/ranking, query + passages */
    GP_ENDPOINT_RESPONSES = 5,   /* v1/responses (OpenAI Responses API, genperf's own):
                                  * "input": [{"role","content"}], "max_output_tokens" */
    GP_ENDPOINT_ANTHROPIC = 6,   /* v1/messages (Anthropic Messages API; genperf's own,
                                  * not GenAI-Perf's): model, max_tokens, messages, stream */
};

/* max_tokens of an Anthropic request when --output-tokens-mean is not given:
 * the Messages API requires the field and has no default of its own. */
#define GP_ANTHROPIC_DEFAULT_MAX_TOKENS 4096

struct gp_dataset_opts {
    const char *const *models;   /* -m values, at least one */
    size_t n_models;
    int model_random;            /* --model-selection-strategy random (else round_robin) */
    const double *model_weights; /* --model-weights: one weight > 0 per model, NULL = none; set, each
                                  * entry draws its model with these odds (seeded, so repeatable) */
    enum gp_endpoint_type endpoint_type;
    int streaming;               /* "stream": true (chat, completions, multimodal) */
    int server_usage;            /* --server-usage: also "stream_options":{"include_usage":true}
                                  * when streaming (GenAI-Perf never sends it; opt-in) */
    long isl_mean;               /* --synthetic-input-tokens-mean (default 550) */
    long isl_stddev;
    long osl_mean;               /* --output-tokens-mean; -1 = unset (no max_tokens) */
    long osl_stddev;
    int osl_deterministic;       /* also send min_tokens = max_tokens and ignore_eos */
    long num_entries;            /* --num-dataset-entries (default 100) */
    uint64_t seed;               /* --random-seed (default 0) */
    const char *input_file;      /* --input-file: JSONL, payload:FILE (a trace), a directory
                                  * (rankings: queries.jsonl + passages.jsonl) or
                                  * synthetic:NAME,NAME (e.g. synthetic:queries,passages);
                                  * NULL = synthetic */
    long num_prefix_prompts;     /* --num-prefix-prompts (0 = none) */
    long prefix_prompt_length;   /* --prefix-prompt-length (default 100) */
    double shared_prefix_ratio;  /* --shared-prefix-ratio R in [0, 1]: the first round(R x mean ISL)
                                  * tokens of every prompt (within its ISL; at most ISL - 2) are a
                                  * prefix from a pool (0 = none; ignored with num_prefix_prompts;
                                  * see docs/profile.md "Prefix-cache workloads") */
    const uint32_t *prefix_group; /* --shared-prefix-pool session: entry i uses pool prefix
                                  * prefix_group[i] (< n_prefix_groups); NULL = global: one prefix */
    size_t n_prefix_groups;
    int cache_bust;              /* --cache-bust: a unique seeded salt opens every prompt (in its ISL) */
    const json_t *extra_inputs;  /* borrowed JSON object merged into every payload, or NULL */
    long batch_size_text;        /* --batch-size-text/-b texts per request (default 1;
                                  * chat and multimodal accept only 1, as GenAI-Perf) */
    long batch_size_image;       /* --batch-size-image images per multimodal request (default 1) */
    long batch_size_audio;       /* --batch-size-audio clips per multimodal request (default 1) */
    struct gp_image_opts image;  /* --image-*: images when both means > 0 (multimodal only) */
    struct gp_audio_opts audio;  /* --audio-*: clips when length mean > 0 (multimodal only) */
};

struct gp_dataset_entry {
    char *payload;        /* exact request body, NUL-terminated */
    size_t payload_len;
    int32_t isl;          /* prompt content tokens as GenAI-Perf counts them (embeddings and
                           * rankings, which GenAI-Perf gives no ISL: the tokens of all texts) */
    int32_t osl_asked;    /* max_tokens sent, -1 when none */
    double timestamp_ms;  /* --input-file payload:FILE rows' "timestamp" (ms), -1 when none */
    uint32_t model;       /* index into opts.models of the body's "model"; GP_DS_MODEL_OTHER
                           * when a payload row names a model not among -m */
};
#define GP_DS_MODEL_OTHER UINT32_MAX

struct gp_dataset {
    struct gp_dataset_entry *entries;
    size_t n;
};

int gp_dataset_build(const struct gp_dataset_opts *opts, struct gp_tokenizer *tok,
                     struct gp_dataset **out, struct gp_error *err);
/* Writes GenAI-Perf's inputs.json ({"data":[{"payload":[...]}...]}) atomically. */
int gp_dataset_write_inputs_json(const struct gp_dataset *ds, const char *path, struct gp_error *err);

/* GenAI-Perf's per-entry metadata (DataRow.payload_metadata), written after
 * "payload" as one-element lists: {"payload": [..], "session_id": [".."],
 * "delay": [ms]}. Borrowed strings; session_id NULL / delay_ms < 0 = absent. */
struct gp_inputs_meta {
    const char *session_id;
    long long delay_ms;
};
/* The same file with meta[i] for entry i (meta NULL = plain). */
int gp_dataset_write_inputs_json_meta(const struct gp_dataset *ds, const struct gp_inputs_meta *meta,
                                      const char *path, struct gp_error *err);
void gp_dataset_free(struct gp_dataset *ds);

/* GenAI-Perf's ISL of one request body: the tokens of its messages' string
 * contents and text parts joined by ' ' (chat, multimodal; a Responses API
 * body's "input" messages likewise), or of its
 * "prompt" strings joined by ' ' (completions: a list, or a string); 0 when
 * it has neither, -1 when the tokenizer fails. tmp is caller-owned scratch.
 * Used by --input-file payload rows and by process-export-files. */
struct gp_buf;
long gp_dataset_payload_isl(struct gp_tokenizer *tok, const json_t *payload, struct gp_buf *tmp);

#endif
