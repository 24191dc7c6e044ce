/* tokenizer/hub.h — finds a HuggingFace hub model's tokenizer.json the way
 * GenAI-Perf (transformers / huggingface_hub) does, downloading it if needed.
 *
 * Resolution of a model id ORG/NAME at revision REV (default "main"):
 *   1. the HF cache: $HF_HUB_CACHE, else $HF_HOME/hub, else
 *      $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub;
 *      models--ORG--NAME/refs/REV names the snapshot (or REV is a commit),
 *      models--ORG--NAME/snapshots/<commit>/tokenizer.json;
 *   2. unless offline ($HF_HUB_OFFLINE=1 also means offline): download
 *      $HF_ENDPOINT (default https://huggingface.co)/ORG/NAME/resolve/REV/tokenizer.json
 *      (+ tokenizer_config.json when it exists) with $HF_TOKEN as bearer
 *      token, written atomically into the same cache layout (blobs/, a
 *      snapshots/<commit>/ link, refs/REV) so Python tools share it.
 * Owns nothing: the path is written into the caller's buffer. */
#ifndef GP_TOKENIZER_HUB_H
#define GP_TOKENIZER_HUB_H

#include <stddef.h>

struct gp_error;

/* 1 if spec looks like a hub id (ORG/NAME or NAME, not an existing path). */
int gp_hub_is_model_id(const char *spec);

/* Writes the local path of the model's tokenizer.json into path (size sz). */
int gp_hub_resolve(const char *model_id, const char *revision, int offline, char *path, size_t sz,
                   struct gp_error *err);

#endif
