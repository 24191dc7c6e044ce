/* dataset/dataset.c — the module's entry points: option checks, the choice
 * of source (synthetic.c, jsonl.c, textfile.c) and inputs.json (a body's
 * ISL as GenAI-Perf counts it is in body.c, below jsonl.c, which needs it). Ownership as in dataset.h: every payload string is
 * malloc'd by the builders and freed by gp_dataset_free; json_t values built
 * on the way are released before gp_dataset_build returns.
 */
#include "dataset/dataset.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/pytext.h"
#include "core/rng.h"
#include "dataset/internal.h"
#include "tokenizer/tokenizer.h"

#include <stdlib.h>
#include <string.h>

void gp_dataset_free(struct gp_dataset *ds)
{
    if (!ds)
        return;
    for (size_t i = 0; i < ds->n; i++)
        free(ds->entries[i].payload);
    free(ds->entries);
    free(ds);
}

/* GenAI-Perf's output-format names, as its error messages spell them. */
static const char *format_name(enum gp_endpoint_type t)
{
    switch (t) {
    case GP_ENDPOINT_CHAT: return "openai_chat_completions";
    case GP_ENDPOINT_COMPLETIONS: return "openai_completions";
    case GP_ENDPOINT_MULTIMODAL: return "openai_multimodal";
    case GP_ENDPOINT_EMBEDDINGS: return "openai_embeddings";
    case GP_ENDPOINT_RANKINGS: return "rankings";
    case GP_ENDPOINT_RESPONSES: return "openai_responses";
    case GP_ENDPOINT_ANTHROPIC: return "anthropic_messages";
    }
    return "?";
}

static int check_endpoint(const struct gp_dataset_opts *o, struct gp_error *err)
{
    enum gp_endpoint_type t = o->endpoint_type;
    if (t != GP_ENDPOINT_CHAT && t != GP_ENDPOINT_COMPLETIONS && t != GP_ENDPOINT_MULTIMODAL &&
        t != GP_ENDPOINT_EMBEDDINGS && t != GP_ENDPOINT_RANKINGS && t != GP_ENDPOINT_RESPONSES &&
        t != GP_ENDPOINT_ANTHROPIC)
        return gp_err(err, GP_EINVAL, "unknown endpoint type %d", (int)t);
    if (o->streaming && (t == GP_ENDPOINT_EMBEDDINGS || t == GP_ENDPOINT_RANKINGS))
        return gp_err(err, GP_EINVAL, "The --streaming option is not supported for %s.", format_name(t));
    if (o->batch_size_text < 0 || o->batch_size_image < 0 || o->batch_size_audio < 0)
        return gp_err(err, GP_EINVAL, "--batch-size-text/-image/-audio must be positive integers");
    if (o->batch_size_text > 1 && (t == GP_ENDPOINT_CHAT || t == GP_ENDPOINT_MULTIMODAL || t == GP_ENDPOINT_RESPONSES ||
                                 t == GP_ENDPOINT_ANTHROPIC))
        return gp_err(err, GP_EINVAL, "The --batch-size-text flag is not supported for %s.", format_name(t));
    int rc = gp_image_check(&o->image, err);
    return rc ? rc : gp_audio_check(&o->audio, err);
}

static int check_opts(const struct gp_dataset_opts *o, struct gp_error *err)
{
    if (!o->models || o->n_models == 0 || !o->models[0])
        return gp_err(err, GP_EINVAL, "no model given: pass -m/--model NAME");
    if (o->osl_deterministic && o->osl_mean <= 0)
        return gp_err(err, GP_EINVAL,
                      "--genperf-output-tokens-deterministic needs --output-tokens-mean N (mean must also be set)");
    if (o->osl_stddev > 0 && o->osl_mean <= 0)
        return gp_err(err, GP_EINVAL,
                      "--output-tokens-stddev needs --output-tokens-mean N (mean must also be set)");
    if (o->isl_stddev < 0 || o->osl_stddev < 0)
        return gp_err(err, GP_EINVAL, "token length stddev must be >= 0");
    if (o->isl_mean > GP_DS_MAX_PROMPT_TOKENS || o->prefix_prompt_length > GP_DS_MAX_PROMPT_TOKENS ||
        o->isl_stddev > GP_DS_MAX_PROMPT_TOKENS)
        return gp_err(err, GP_EINVAL, "--synthetic-input-tokens-mean/-stddev and --prefix-prompt-length must be at most %ld",
                      GP_DS_MAX_PROMPT_TOKENS);
    if (o->num_prefix_prompts < 0)
        return gp_err(err, GP_EINVAL, "--num-prefix-prompts %ld: must be >= 0", o->num_prefix_prompts);
    if (o->extra_inputs && !json_is_object(o->extra_inputs))
        return gp_err(err, GP_EINVAL, "--extra-inputs must form a JSON object");
    return check_endpoint(o, err);
}

#define MAX_SYNTHETIC_FILES 16

/* --input-file synthetic:NAME,NAME: GenAI-Perf generates one set of rows per
 * name (rankings pair the "queries" and "passages" sets). */
static int build_named_synthetic(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                                 struct gp_error *err)
{
    const char *spec = o->input_file + 10;
    char copy[1024];
    if (strlen(spec) >= sizeof copy)
        return gp_err(err, GP_EINVAL, "--input-file synthetic:...: the list of names is too long");
    strcpy(copy, spec);
    const char *names[MAX_SYNTHETIC_FILES];
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == MAX_SYNTHETIC_FILES)
            return gp_err(err, GP_EINVAL, "--input-file %s: at most %d synthetic names", o->input_file,
                          MAX_SYNTHETIC_FILES);
        names[n++] = t;
    }
    if (!n)
        return gp_err(err, GP_EINVAL, "--input-file synthetic: needs names, e.g. synthetic:queries,passages");
    return gp_ds_build_synthetic(o, tok, ds, names, n, err);
}

static int build(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                 struct gp_error *err)
{
    const char *f = o->input_file;
    if (!f)
        return gp_ds_build_synthetic(o, tok, ds, NULL, 0, err);
    if (!strncmp(f, "synthetic:", 10))
        return build_named_synthetic(o, tok, ds, err);
    if (strncmp(f, "payload:", 8) && (o->endpoint_type == GP_ENDPOINT_RANKINGS || o->batch_size_text > 1))
        return gp_ds_build_text_files(o, tok, ds, err);
    if (o->endpoint_type == GP_ENDPOINT_RANKINGS)
        return gp_err(err, GP_EINVAL, "--endpoint-type rankings reads a directory with queries.jsonl and "
                                      "passages.jsonl, or synthetic:queries,passages, not %s", f);
    return gp_ds_build_jsonl(o, tok, ds, err);
}

int gp_dataset_build(const struct gp_dataset_opts *opts, struct gp_tokenizer *tok, struct gp_dataset **out,
                     struct gp_error *err)
{
    *out = NULL;
    int rc = check_opts(opts, err);
    if (rc)
        return rc;
    struct gp_dataset *ds = calloc(1, sizeof *ds);
    if (!ds)
        return gp_err(err, GP_ENOMEM, "out of memory");
    rc = build(opts, tok, ds, err);
    if (rc) {
        gp_dataset_free(ds);
        return rc;
    }
    *out = ds;
    return 0;
}

static int indent(struct gp_buf *b, int depth)
{
    if (gp_buf_putc(b, '\n'))
        return -1;
    for (int i = 0; i < depth; i++)
        if (gp_buf_append(b, "  ", 2))
            return -1;
    return 0;
}

/* ,\n  "key": [\n    value\n  ] at entry depth 3 (Python's indent=2 layout). */
static int meta_list(struct gp_buf *b, const char *key, const char *str, long long num)
{
    if (gp_buf_putc(b, ',') || indent(b, 3) || gp_buf_printf(b, "\"%s\": [", key) || indent(b, 4))
        return -1;
    if (str) {
        json_t *s = json_string(str);
        int bad = !s || gp_json_dump(b, s, 2, 4, GP_JSON_PYTHON);
        json_decref(s);
        if (bad)
            return -1;
    } else if (gp_buf_printf(b, "%lld", num)) {
        return -1;
    }
    return indent(b, 3) || gp_buf_putc(b, ']') ? -1 : 0;
}

int gp_dataset_write_inputs_json(const struct gp_dataset *ds, const char *path, struct gp_error *err)
{
    return gp_dataset_write_inputs_json_meta(ds, NULL, path, err);
}

int gp_dataset_write_inputs_json_meta(const struct gp_dataset *ds, const struct gp_inputs_meta *meta,
                                      const char *path, struct gp_error *err)
{
    struct gp_buf b = {0};
    int rc = 0;
    /* json.dumps({"data": [{"payload": [body]}, ...]}, indent=2) */
    if (gp_buf_putc(&b, '{') || indent(&b, 1) || gp_buf_puts(&b, "\"data\": ["))
        goto oom;
    for (size_t i = 0; i < ds->n; i++) {
        json_error_t jerr;
        json_t *body = json_loadb(ds->entries[i].payload, ds->entries[i].payload_len, 0, &jerr);
        if (!body)
            return gp_buf_free(&b), gp_err(err, GP_EINVAL, "dataset entry %zu is not valid JSON: %s", i, gp_json_why(jerr.text));
        int bad = (i && gp_buf_putc(&b, ',')) || indent(&b, 2) || gp_buf_putc(&b, '{') || indent(&b, 3) ||
                  gp_buf_puts(&b, "\"payload\": [") || indent(&b, 4) || gp_json_dump(&b, body, 2, 4, GP_JSON_PYTHON) ||
                  indent(&b, 3) || gp_buf_putc(&b, ']');
        if (!bad && meta && meta[i].session_id)
            bad = meta_list(&b, "session_id", meta[i].session_id, 0);
        if (!bad && meta && meta[i].delay_ms >= 0)
            bad = meta_list(&b, "delay", NULL, meta[i].delay_ms);
        bad = bad || indent(&b, 2) || gp_buf_putc(&b, '}');
        json_decref(body);
        if (bad)
            goto oom;
    }
    if (ds->n == 0) {
        if (gp_buf_puts(&b, "]"))
            goto oom;
    } else if (indent(&b, 1) || gp_buf_putc(&b, ']'))
        goto oom;
    if (indent(&b, 0) || gp_buf_putc(&b, '}'))
        goto oom;
    rc = gp_write_file_atomic(path, b.data, b.len, err);
    gp_buf_free(&b);
    return rc;
oom:
    gp_buf_free(&b);
    return gp_err(err, GP_ENOMEM, "out of memory writing '%s'", path);
}
