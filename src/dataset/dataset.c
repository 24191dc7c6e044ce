/* dataset/dataset.c — builds the workload (synthetic or --input-file JSONL)
 * and writes inputs.json. Ownership as in dataset.h: every payload string is
 * malloc'd here and freed by gp_dataset_free; json_t values built on the way
 * are released before gp_dataset_build returns.
 */
#include "dataset/dataset.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/pytext.h"
#include "core/rng.h"
#include "dataset/promptgen.h"
#include "tokenizer/tokenizer.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_ISL 550
#define DEFAULT_ENTRIES 100
#define DEFAULT_PREFIX_LEN 100
/* Up to this many prompt tokens in all, every prompt is re-encoded even
 * when the tokenizer is proven additive (it costs well under a second);
 * larger workloads rely on the proof (promptgen.h) so that generation stays
 * fast. */
#define VERIFY_BUDGET_TOKENS 1000000.0
/* Longest prompt we build (no served model takes more; it bounds memory). */
#define MAX_PROMPT_TOKENS 4194304L

void gp_dataset_free(struct gp_dataset *ds)
{
    if (!ds)
        return;
    for (size_t i = 0; i < ds->n; i++)
        free(ds->entries[i].payload);
    free(ds->entries);
    free(ds);
}

/* Applies GenAI-Perf's order: model, messages|prompt, stream, max_tokens,
 * then --extra-inputs in their order (an extra with an existing name replaces
 * the value in place, as a Python dict update does). stream_options and the
 * deterministic-OSL fields are ours and sit next to the field they qualify. */
static int finish_body(const struct gp_dataset_opts *o, json_t *body, long osl, int add_stream)
{
    int r = 0;
    if (add_stream && o->streaming) {
        r |= json_object_set_new(body, "stream", json_true());
        if (o->include_usage) {
            json_t *so = json_object();
            r |= json_object_set_new(so, "include_usage", json_true());
            r |= json_object_set_new(body, "stream_options", so);
        }
    }
    if (osl > 0) {
        r |= json_object_set_new(body, "max_tokens", json_integer(osl));
        if (o->osl_deterministic) {
            r |= json_object_set_new(body, "min_tokens", json_integer(osl));
            r |= json_object_set_new(body, "ignore_eos", json_true());
        }
    }
    if (o->extra_inputs && json_is_object(o->extra_inputs)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)o->extra_inputs, k, v) {
            json_t *cp = json_deep_copy(v);
            r |= json_object_set_new(body, k, cp);
        }
    }
    return r ? -1 : 0;
}

static const char *pick_model(const struct gp_dataset_opts *o, size_t i)
{
    if (o->n_models == 1)
        return o->models[0];
    if (o->model_random) {
        struct gp_rng r;
        gp_rng_seed_stream(&r, o->seed, GP_RNG_MODEL, i);
        return o->models[gp_rng_below(&r, o->n_models)];
    }
    return o->models[i % o->n_models];
}

static int emit(struct gp_dataset_entry *e, json_t *body, struct gp_buf *scratch)
{
    gp_buf_reset(scratch);
    if (gp_json_dump(scratch, body, -1, 0, GP_JSON_RAPIDJSON))
        return -1;
    e->payload_len = scratch->len;
    e->payload = malloc(scratch->len + 1);
    if (!e->payload)
        return -1;
    memcpy(e->payload, scratch->data, scratch->len + 1);
    return 0;
}

/* Body with a plain prompt text (synthetic rows and JSONL text rows).
 * ascii: the text is known to be ASCII (generated), so jansson's UTF-8
 * validation pass over it can be skipped. */
static json_t *text_body(const struct gp_dataset_opts *o, const char *model, const char *text, size_t len,
                         int ascii)
{
    json_t *body = json_object();
    json_object_set_new(body, "model", json_string(model));
    json_t *str = ascii ? json_stringn_nocheck(text, len) : json_stringn(text, len);
    if (o->endpoint_type == GP_ENDPOINT_COMPLETIONS) {
        json_object_set_new(body, "prompt", str);
    } else {
        json_t *msg = json_object();
        json_object_set_new(msg, "role", json_string("user"));
        json_object_set_new(msg, "content", str);
        json_t *arr = json_array();
        json_array_append_new(arr, msg);
        json_object_set_new(body, "messages", arr);
    }
    return body;
}

static int check_opts(const struct gp_dataset_opts *o, struct gp_error *err)
{
    if (!o->models || o->n_models == 0 || !o->models[0])
        return gp_err(err, GP_EINVAL, "no model given: pass -m/--model NAME");
    if (o->osl_deterministic && o->osl_mean <= 0)
        return gp_err(err, GP_EINVAL,
                      "--output-tokens-mean-deterministic needs --output-tokens-mean N (mean must also be set)");
    if (o->osl_stddev > 0 && o->osl_mean <= 0)
        return gp_err(err, GP_EINVAL,
                      "--output-tokens-stddev needs --output-tokens-mean N (mean must also be set)");
    if (o->isl_stddev < 0 || o->osl_stddev < 0)
        return gp_err(err, GP_EINVAL, "token length stddev must be >= 0");
    if (o->isl_mean > MAX_PROMPT_TOKENS || o->prefix_prompt_length > MAX_PROMPT_TOKENS ||
        o->isl_stddev > MAX_PROMPT_TOKENS)
        return gp_err(err, GP_EINVAL, "--synthetic-input-tokens-mean/-stddev and --prefix-prompt-length must be at most %ld",
                      MAX_PROMPT_TOKENS);
    if (o->num_prefix_prompts < 0)
        return gp_err(err, GP_EINVAL, "--num-prefix-prompts %ld: must be >= 0", o->num_prefix_prompts);
    if (o->extra_inputs && !json_is_object(o->extra_inputs))
        return gp_err(err, GP_EINVAL, "--extra-inputs must form a JSON object");
    return 0;
}

/* Open-addressing set of 64-bit text hashes (0 = empty slot; cap is a power
 * of two >= 2x entries). Returns 1 if the text was new. */
static int seen_add(uint64_t *set, size_t cap, const char *s, size_t n)
{
    /* 8 bytes per step: this runs over every generated byte. */
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    h ^= h >> 29;
    h |= 1;
    for (size_t k = h & (cap - 1);; k = (k + 1) & (cap - 1)) {
        if (set[k] == h)
            return 0;
        if (set[k] == 0) {
            set[k] = h;
            return 1;
        }
    }
}

static int build_synthetic(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                           struct gp_error *err)
{
    long n = o->num_entries > 0 ? o->num_entries : DEFAULT_ENTRIES;
    long isl_mean = o->isl_mean > 0 ? o->isl_mean : DEFAULT_ISL;
    long npref = o->num_prefix_prompts;
    long plen = o->prefix_prompt_length > 0 ? o->prefix_prompt_length : DEFAULT_PREFIX_LEN;
    struct gp_promptgen *g = NULL;
    struct gp_buf text = {0}, scratch = {0};
    char **prefixes = NULL;
    size_t *prefix_lens = NULL;
    size_t seen_cap = 64;
    while (seen_cap < (size_t)n * 2)
        seen_cap *= 2;
    uint64_t *seen = calloc(seen_cap, sizeof *seen);
    if (!seen)
        return gp_err(err, GP_ENOMEM, "out of memory for %ld dataset entries", n);
    int rc = gp_promptgen_new(tok, &g, err);
    if (rc) {
        free(seen);
        return rc;
    }
    double expect = (double)n * ((double)isl_mean + 3.0 * (double)o->isl_stddev + (npref > 0 ? (double)plen : 0.0));
    if (expect > VERIFY_BUDGET_TOKENS)
        gp_promptgen_set_verify(g, GP_PROMPTGEN_TRUST_ADDITIVE);
    ds->entries = calloc((size_t)n, sizeof *ds->entries);
    if (!ds->entries) {
        rc = gp_err(err, GP_ENOMEM, "out of memory for %ld dataset entries", n);
        goto out;
    }
    if (npref > 0) {
        prefixes = calloc((size_t)npref, sizeof *prefixes);
        prefix_lens = calloc((size_t)npref, sizeof *prefix_lens);
        if (!prefixes || !prefix_lens) {
            rc = gp_err(err, GP_ENOMEM, "out of memory for %ld prefix prompts", npref);
            goto out;
        }
        for (long p = 0; p < npref; p++) {
            struct gp_rng r;
            gp_rng_seed_stream(&r, o->seed, GP_RNG_PREFIX, (uint64_t)p);
            if ((rc = gp_promptgen_text(g, &r, plen, NULL, 0, &text, err)))
                goto out;
            prefix_lens[p] = text.len;
            prefixes[p] = gp_buf_steal(&text);
        }
    }
    for (long i = 0; i < n; i++) {
        struct gp_dataset_entry *e = &ds->entries[i];
        struct gp_rng r;
        gp_rng_seed_stream(&r, o->seed, GP_RNG_ISL, (uint64_t)i);
        long isl = gp_rng_length(&r, isl_mean, o->isl_stddev, 1);
        if (isl > MAX_PROMPT_TOKENS)
            isl = MAX_PROMPT_TOKENS;
        long osl = -1;
        if (o->osl_mean > 0) {
            gp_rng_seed_stream(&r, o->seed, GP_RNG_OSL, (uint64_t)i);
            osl = gp_rng_length(&r, o->osl_mean, o->osl_stddev, 1);
        }
        const char *head = NULL;
        size_t head_len = 0;
        long total = isl;
        if (npref > 0) {
            gp_rng_seed_stream(&r, o->seed, GP_RNG_PICK, (uint64_t)i);
            uint64_t k = gp_rng_below(&r, (uint64_t)npref);
            head = prefixes[k];
            head_len = prefix_lens[k];
            total += plen;
        }
        gp_rng_seed_stream(&r, o->seed, GP_RNG_TEXT, (uint64_t)i);
        /* Distinct prompts: a repeat (likely only for 1-3 token prompts)
         * would be a free prefix-cache hit. Redraw from the same stream a few
         * times; tiny vocabularies may still repeat, which is then accepted. */
        for (int tries = 0;; tries++) {
            if ((rc = gp_promptgen_text(g, &r, isl, head, head_len, &text, err)))
                goto out;
            if (seen_add(seen, seen_cap, text.data, text.len) || tries == 8)
                break;
        }
        json_t *body = text_body(o, pick_model(o, (size_t)i), text.data, text.len, 1);
        int bad = !body || finish_body(o, body, osl, 1) || emit(e, body, &scratch);
        json_decref(body);
        if (bad) {
            rc = gp_err(err, GP_ENOMEM, "out of memory building dataset entry %ld", i);
            goto out;
        }
        e->isl = (int32_t)total;
        e->osl_asked = (int32_t)osl;
        e->timestamp_ms = -1;
        ds->n++;
    }
out:
    if (prefixes)
        for (long p = 0; p < npref; p++)
            free(prefixes[p]);
    free(prefixes);
    free(prefix_lens);
    gp_buf_free(&text);
    gp_buf_free(&scratch);
    gp_promptgen_free(g);
    free(seen);
    return rc;
}

/* ---- --input-file JSONL ------------------------------------------------ */

static int is_pyspace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); }

/* Counts the tokens of the space-joined string contents, GenAI-Perf's ISL. */
static long messages_isl(struct gp_tokenizer *tok, const json_t *messages, struct gp_buf *tmp)
{
    gp_buf_reset(tmp);
    size_t i;
    json_t *m;
    int first = 1;
    json_array_foreach(messages, i, m) {
        json_t *c = json_object_get(m, "content");
        if (!json_is_string(c))
            continue;
        if (!first && gp_buf_putc(tmp, ' '))
            return -1;
        first = 0;
        if (gp_buf_append(tmp, json_string_value(c), json_string_length(c)))
            return -1;
    }
    return gp_tokenizer_count(tok, tmp->data ? tmp->data : "", tmp->len);
}

long gp_dataset_payload_isl(struct gp_tokenizer *tok, const json_t *payload, struct gp_buf *tmp)
{
    json_t *pm = json_object_get(payload, "messages");
    json_t *pp = json_object_get(payload, "prompt");
    if (json_is_array(pm))
        return messages_isl(tok, pm, tmp);
    if (json_is_string(pp))
        return gp_tokenizer_count(tok, json_string_value(pp), json_string_length(pp));
    return 0;
}

static int row_err(struct gp_error *err, const char *path, long line, const char *fmt, const char *detail)
{
    char msg[768];
    snprintf(msg, sizeof msg, fmt, detail);
    return gp_err(err, GP_EINVAL, "input file '%s' line %ld: %s", path, line, msg);
}

static int parse_max_tokens(const json_t *row, long *osl, const char *path, long line, struct gp_error *err)
{
    json_t *mt = json_object_get(row, "max_tokens");
    if (!mt || json_is_null(mt))
        return 0;
    if (!json_is_integer(mt) || json_integer_value(mt) < 1 || json_integer_value(mt) > 2147483647)
        return row_err(err, path, line, "\"max_tokens\" must be a positive integer%s", "");
    *osl = (long)json_integer_value(mt);
    return 0;
}

static int check_messages(const json_t *msgs, const char *path, long line, struct gp_error *err)
{
    if (!json_is_array(msgs) || json_array_size(msgs) == 0)
        return row_err(err, path, line, "\"messages\" must be a non-empty array of {\"role\", \"content\"}%s", "");
    size_t i;
    json_t *m;
    json_array_foreach(msgs, i, m) {
        char what[64];
        snprintf(what, sizeof what, "%zu", i);
        if (!json_is_object(m) || !json_is_string(json_object_get(m, "role")) || !json_object_get(m, "content"))
            return row_err(err, path, line, "\"messages\"[%s] must be an object with a string \"role\" and a \"content\"",
                           what);
    }
    return 0;
}

/* Positive integer field of a row: 0 absent, 1 set, <0 error. */
static int row_posint(const json_t *row, const char *key, long *v, const char *path, long line, struct gp_error *err)
{
    json_t *x = json_object_get(row, key);
    if (!x || json_is_null(x))
        return 0;
    if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 2147483647)
        return row_err(err, path, line, "\"%s\" must be a positive integer", key);
    *v = (long)json_integer_value(x);
    return 1;
}

/* payload:FILE rows {"input_length": N, "hash_ids": [...], "output_length": M,
 * "timestamp": ms}: a synthetic prompt of exactly N tokens from 512-token
 * blocks shared by hash id (GenAI-Perf's block size). */
static int trace_prompt(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_promptgen **g,
                        double *generated, const json_t *row, long ilen, size_t idx, struct gp_buf *text,
                        const char *path, long line, struct gp_error *err)
{
    json_t *h = json_object_get(row, "hash_ids");
    int64_t ids[4096];
    size_t nids = 0;
    if (h && !json_is_null(h)) {
        if (!json_is_array(h) || json_array_size(h) > 4096)
            return row_err(err, path, line, "\"hash_ids\" must be an array of at most 4096 integers%s", "");
        size_t i;
        json_t *v;
        json_array_foreach(h, i, v) {
            if (!json_is_integer(v))
                return row_err(err, path, line, "\"hash_ids\" must be an array of at most 4096 integers%s", "");
            ids[nids++] = (int64_t)json_integer_value(v);
        }
    }
    int rc;
    if (!*g && (rc = gp_promptgen_new(tok, g, err)))
        return rc;
    *generated += (double)ilen;
    if (*generated > VERIFY_BUDGET_TOKENS)
        gp_promptgen_set_verify(*g, GP_PROMPTGEN_TRUST_ADDITIVE);
    if ((rc = gp_promptgen_blocks(*g, o->seed, ids, nids, 512, ilen, idx, text, err)))
        return gp_err_prefix(err, "input file '%s' line %ld", path, line);
    return 0;
}

static int build_from_file(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                           struct gp_error *err)
{
    const char *path = o->input_file;
    int trace = 0;
    if (!strncmp(path, "synthetic:", 10))
        return gp_err(err, GP_ENOTSUP,
                      "--input-file %s: named synthetic sources are not supported; leave out --input-file for "
                      "synthetic prompts",
                      path);
    if (!strncmp(path, "payload:", 8)) {
        path += 8;
        trace = 1;
    }
    char *data = NULL;
    size_t len = 0;
    struct gp_buf scratch = {0}, tmp = {0}, ttext = {0};
    struct gp_promptgen *g = NULL;
    double generated = 0;
    size_t cap = 0;
    int rc = gp_read_file(path, &data, &len, err);
    if (rc)
        return gp_err_prefix(err, "--input-file");
    long line = 0;
    for (size_t pos = 0; pos < len && !rc;) {
        size_t end = pos;
        while (end < len && data[end] != '\n')
            end++;
        line++;
        size_t lend = end;
        if (lend > pos && data[lend - 1] == '\r')
            lend--;
        const char *s = data + pos;
        size_t n = lend - pos;
        pos = end + 1;
        size_t k = 0;
        while (k < n && is_pyspace((unsigned char)s[k]))
            k++;
        if (k == n)
            continue; /* blank lines carry no row */
        json_error_t jerr;
        json_t *row = json_loadb(s, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
        if (!row) {
            char d[320];
            snprintf(d, sizeof d, "%s (column %d)", jerr.text, jerr.column);
            rc = row_err(err, path, line, "invalid JSON: %s; each line must be one JSON object such as {\"text\": \"...\"}", d);
            break;
        }
        json_t *body = NULL;
        long osl = -1, isl = -1, ilen = 0;
        double ts_ms = -1;
        size_t idx = ds->n;
        const char *model = pick_model(o, idx);
        json_t *text = json_object_get(row, "text"), *text_input = json_object_get(row, "text_input");
        json_t *msgs = json_object_get(row, "messages"), *payload = json_object_get(row, "payload");
        json_t *jts = json_object_get(row, "timestamp");
        int kinds = (text || text_input) + !!msgs + !!payload;
        if (trace && json_is_object(row)) {
            /* trace rows: output_length is the row's max_tokens */
            int r1 = row_posint(row, "input_length", &ilen, path, line, err);
            if (r1 == 1 && ilen > MAX_PROMPT_TOKENS)
                r1 = row_err(err, path, line, "\"input_length\" must be at most 4194304%s", "");
            long olen = -1;
            int r2 = r1 < 0 ? 0 : row_posint(row, "output_length", &olen, path, line, err);
            if (r1 < 0 || r2 < 0) {
                rc = -GP_EINVAL;
                json_decref(row);
                break;
            }
            if (r2 == 1)
                osl = olen;
            kinds += r1 == 1 && !(text || text_input);
            if (jts && !json_is_null(jts)) {
                if (!json_is_number(jts) || json_number_value(jts) < 0) {
                    rc = row_err(err, path, line, "\"timestamp\" must be a number of milliseconds >= 0%s", "");
                    json_decref(row);
                    break;
                }
                ts_ms = json_number_value(jts);
            }
        }
        if (!json_is_object(row)) {
            rc = row_err(err, path, line, "expected a JSON object such as {\"text\": \"...\"}%s", "");
        } else if (text && text_input) {
            rc = row_err(err, path, line, "each row must have only one of 'text_input' or 'text'%s", "");
        } else if (kinds == 0) {
            rc = row_err(err, path, line,
                         trace ? "no prompt: give \"text\" or \"input_length\" (with optional \"hash_ids\")%s"
                               : "no prompt: give \"text\", \"messages\" or \"payload\"%s",
                         "");
        } else if (kinds > 1) {
            rc = row_err(err, path, line, "give only one of \"text\", \"messages\" or \"payload\"%s", "");
        } else if (ilen > 0 && !(text || text_input)) {
            if (osl < 0 && o->osl_mean > 0) {
                struct gp_rng r;
                gp_rng_seed_stream(&r, o->seed, GP_RNG_OSL, idx);
                osl = gp_rng_length(&r, o->osl_mean, o->osl_stddev, 1);
            }
            if (!(rc = trace_prompt(o, tok, &g, &generated, row, ilen, idx, &ttext, path, line, err))) {
                body = text_body(o, model, ttext.data, ttext.len, 1);
                isl = ilen;
                if (!body || finish_body(o, body, osl, 1))
                    rc = gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
            }
        } else if (text || text_input) {
            json_t *t = text ? text : text_input;
            if (!json_is_string(t)) {
                rc = row_err(err, path, line, "\"%s\" must be a string", text ? "text" : "text_input");
            } else if (!(rc = parse_max_tokens(row, &osl, path, line, err))) {
                /* GenAI-Perf strips the text (Python str.strip()). */
                const char *ts = json_string_value(t);
                size_t tl = json_string_length(t), a = 0;
                while (a < tl && is_pyspace((unsigned char)ts[a]))
                    a++;
                while (tl > a && is_pyspace((unsigned char)ts[tl - 1]))
                    tl--;
                if (osl < 0 && o->osl_mean > 0) {
                    struct gp_rng r;
                    gp_rng_seed_stream(&r, o->seed, GP_RNG_OSL, idx);
                    osl = gp_rng_length(&r, o->osl_mean, o->osl_stddev, 1);
                }
                body = text_body(o, model, ts + a, tl - a, 0);
                isl = gp_tokenizer_count(tok, ts + a, tl - a);
                if (!body || finish_body(o, body, osl, 1))
                    rc = gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
            }
        } else if (msgs) {
            if (o->endpoint_type == GP_ENDPOINT_COMPLETIONS) {
                rc = row_err(err, path, line, "\"messages\" rows need --endpoint-type chat; use \"text\" for completions%s", "");
            } else if (!(rc = check_messages(msgs, path, line, err)) &&
                       !(rc = parse_max_tokens(row, &osl, path, line, err))) {
                if (osl < 0 && o->osl_mean > 0) {
                    struct gp_rng r;
                    gp_rng_seed_stream(&r, o->seed, GP_RNG_OSL, idx);
                    osl = gp_rng_length(&r, o->osl_mean, o->osl_stddev, 1);
                }
                body = json_object();
                json_object_set_new(body, "model", json_string(model));
                json_object_set_new(body, "messages", json_deep_copy(msgs));
                isl = messages_isl(tok, msgs, &tmp);
                if (finish_body(o, body, osl, 1))
                    rc = gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
            }
        } else {
            /* Raw body: sent as written (a missing "model" is filled in
             * first); no flag rewrites it. */
            if (!json_is_object(payload)) {
                rc = row_err(err, path, line, "\"payload\" must be a JSON object (the request body)%s", "");
            } else {
                body = json_object();
                if (!json_object_get(payload, "model"))
                    json_object_set_new(body, "model", json_string(model));
                json_object_update(body, payload);
                json_t *mt = json_object_get(payload, "max_tokens");
                if (!mt)
                    mt = json_object_get(payload, "max_completion_tokens");
                if (json_is_integer(mt))
                    osl = (long)json_integer_value(mt);
                isl = gp_dataset_payload_isl(tok, payload, &tmp);
            }
        }
        json_decref(row);
        if (!rc && isl < 0)
            rc = row_err(err, path, line, "the tokenizer could not encode this prompt%s", "");
        if (!rc && ds->n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            struct gp_dataset_entry *ne = realloc(ds->entries, nc * sizeof *ne);
            if (!ne)
                rc = gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
            else {
                ds->entries = ne;
                cap = nc;
            }
        }
        if (!rc) {
            struct gp_dataset_entry *e = &ds->entries[ds->n];
            memset(e, 0, sizeof *e);
            if (emit(e, body, &scratch))
                rc = gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
            else {
                e->isl = (int32_t)isl;
                e->osl_asked = (int32_t)(osl > 0 ? osl : -1);
                e->timestamp_ms = ts_ms;
                ds->n++;
            }
        }
        json_decref(body);
    }
    if (!rc && ds->n == 0)
        rc = gp_err(err, GP_EINVAL,
                    "input file '%s' has no rows; write one JSON object per line, e.g. {\"text\": \"Hello\"}", path);
    free(data);
    gp_buf_free(&scratch);
    gp_buf_free(&tmp);
    gp_buf_free(&ttext);
    gp_promptgen_free(g);
    return rc;
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
    rc = opts->input_file ? build_from_file(opts, tok, ds, err) : build_synthetic(opts, tok, ds, err);
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

int gp_dataset_write_inputs_json(const struct gp_dataset *ds, const char *path, struct gp_error *err)
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
            return gp_buf_free(&b), gp_err(err, GP_EINVAL, "dataset entry %zu is not valid JSON: %s", i, jerr.text);
        int bad = (i && gp_buf_putc(&b, ',')) || indent(&b, 2) || gp_buf_putc(&b, '{') || indent(&b, 3) ||
                  gp_buf_puts(&b, "\"payload\": [") || indent(&b, 4) || gp_json_dump(&b, body, 2, 4, GP_JSON_PYTHON) ||
                  indent(&b, 3) || gp_buf_putc(&b, ']') || indent(&b, 2) || gp_buf_putc(&b, '}');
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
