/* dataset/jsonl.c — --input-file JSONL: text / text_input rows (GenAI-Perf's
 * file retriever), genperf's messages and payload rows, and payload:FILE
 * traces (input_length + hash_ids). Every row becomes one entry; the body is
 * the endpoint's (body.c). Errors name the file, the line and the fix. */
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "dataset/internal.h"
#include "dataset/promptgen.h"
#include "tokenizer/tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (*generated > GP_DS_VERIFY_BUDGET_TOKENS)
        gp_promptgen_set_verify(*g, GP_PROMPTGEN_TRUST_ADDITIVE);
    if ((rc = gp_promptgen_blocks(*g, o->seed, ids, nids, 512, ilen, idx, text, err)))
        return gp_err_prefix(err, "input file '%s' line %ld", path, line);
    return 0;
}

int gp_ds_build_jsonl(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                      struct gp_error *err)
{
    const char *path = o->input_file;
    int trace = 0;
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
        while (k < n && gp_ds_pyspace((unsigned char)s[k]))
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
        const char *model = gp_ds_model(o, idx);
        json_t *text = json_object_get(row, "text"), *text_input = json_object_get(row, "text_input");
        json_t *msgs = json_object_get(row, "messages"), *payload = json_object_get(row, "payload");
        json_t *jts = json_object_get(row, "timestamp");
        int kinds = (text || text_input) + !!msgs + !!payload;
        if (trace && json_is_object(row)) {
            /* trace rows: output_length is the row's max_tokens */
            int r1 = row_posint(row, "input_length", &ilen, path, line, err);
            if (r1 == 1 && ilen > GP_DS_MAX_PROMPT_TOKENS)
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
            if (osl < 0)
                osl = gp_ds_osl(o, idx);
            if (!(rc = trace_prompt(o, tok, &g, &generated, row, ilen, idx, &ttext, path, line, err))) {
                body = gp_ds_text_body(o, model, ttext.data, ttext.len, 1, osl);
                isl = ilen;
                if (!body)
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
                while (a < tl && gp_ds_pyspace((unsigned char)ts[a]))
                    a++;
                while (tl > a && gp_ds_pyspace((unsigned char)ts[tl - 1]))
                    tl--;
                if (osl < 0)
                    osl = gp_ds_osl(o, idx);
                body = gp_ds_text_body(o, model, ts + a, tl - a, 0, osl);
                isl = gp_tokenizer_count(tok, ts + a, tl - a);
                if (!body)
                    rc = gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
            }
        } else if (msgs) {
            if (o->endpoint_type != GP_ENDPOINT_CHAT && o->endpoint_type != GP_ENDPOINT_MULTIMODAL) {
                rc = row_err(err, path, line, "\"messages\" rows need --endpoint-type chat; use \"text\" rows for other endpoints%s", "");
            } else if (!(rc = check_messages(msgs, path, line, err)) &&
                       !(rc = parse_max_tokens(row, &osl, path, line, err))) {
                if (osl < 0)
                    osl = gp_ds_osl(o, idx);
                body = json_object();
                json_object_set_new(body, "model", json_string(model));
                json_object_set_new(body, "messages", json_deep_copy(msgs));
                isl = gp_dataset_payload_isl(tok, body, &tmp);
                if (gp_ds_finish(o, body, osl))
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
        if (!rc) {
            struct gp_dataset_entry *e = gp_ds_push(ds, &cap);
            if (!e || gp_ds_emit(e, body, &scratch))
                rc = gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
            else {
                e->isl = (int32_t)isl;
                /* embeddings bodies carry no max_tokens */
                e->osl_asked = (int32_t)(osl > 0 && o->endpoint_type != GP_ENDPOINT_EMBEDDINGS ? osl : -1);
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
