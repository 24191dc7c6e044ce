/* dataset/test_support.h — helpers shared by the dataset unit tests (header
 * only, included by test_*.c; not part of the library). */
#ifndef GP_DATASET_TEST_SUPPORT_H
#define GP_DATASET_TEST_SUPPORT_H

#include "core/buf.h"
#include "core/error.h"
#include "dataset/dataset.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The user content (chat) or first prompt (completions) of a payload, malloc'd. */
static inline char *ts_content(const char *payload)
{
    json_error_t je;
    json_t *b = json_loads(payload, 0, &je);
    if (!b)
        return NULL;
    const char *s = NULL;
    json_t *m = json_object_get(b, "messages");
    if (m)
        s = json_string_value(json_object_get(json_array_get(m, 0), "content"));
    else if (json_is_array(json_object_get(b, "prompt"))) /* GenAI-Perf sends a list */
        s = json_string_value(json_array_get(json_object_get(b, "prompt"), 0));
    else
        s = json_string_value(json_object_get(b, "prompt"));
    char *r = s ? strdup(s) : NULL;
    json_decref(b);
    return r;
}

/* Token count via encode (a different path from gp_tokenizer_count, which
 * the generator itself uses). */
static inline long ts_encode_count(struct gp_tokenizer *tok, const char *s)
{
    struct gp_ids ids = {0};
    if (gp_tokenizer_encode(tok, s, strlen(s), 0, &ids, NULL) < 0)
        return -1;
    long n = (long)ids.n;
    gp_ids_free(&ids);
    return n;
}

/* The builtin tokenizer (one token per byte), or NULL with the reason on
 * stderr. */
static inline struct gp_tokenizer *ts_builtin(void)
{
    struct gp_tokenizer *t = NULL;
    struct gp_error e = {0};
    if (gp_tokenizer_load("builtin", NULL, &t, &e))
        fprintf(stderr, "load builtin: %s\n", e.msg);
    return t;
}

static inline struct gp_dataset_opts ts_opts(void)
{
    static const char *const models[] = {"test-model"};
    struct gp_dataset_opts o;
    memset(&o, 0, sizeof o);
    o.models = models;
    o.n_models = 1;
    o.isl_mean = 16;
    o.osl_mean = -1;
    o.num_entries = 4;
    o.prefix_prompt_length = 100;
    return o;
}

#endif
