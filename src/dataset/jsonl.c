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

/* State shared by every row of one file: where errors point, the scratch
 * buffers reused from row to row, and the prompt generator of trace rows
 * (made on the first one). All freed by gp_ds_build_jsonl. */
struct jsonl_ctx {
    const struct gp_dataset_opts *o;
    struct gp_tokenizer *tok;
    struct gp_dataset *ds;
    const char *path;  /* without its "payload:" prefix */
    int trace;         /* payload:FILE: input_length/hash_ids rows allowed */
    struct gp_buf scratch, tmp, ttext;
    struct gp_promptgen *g;
    double generated;  /* trace tokens made so far (verification budget) */
    size_t cap;
};

/* One row on its way to an entry. row is owned until the row is done; the
 * other json_t fields are borrowed from it; body is owned. */
struct jsonl_row {
    json_t *row, *body;
    json_t *text, *text_input, *msgs, *payload;
    long line, osl, isl, ilen;
    double ts_ms;
    size_t idx;
    const char *model;
};

/* Trace rows (payload:FILE): input_length, output_length (the row's
 * max_tokens) and timestamp. An input_length is a prompt of its own, so it
 * counts in *kinds unless the row also has a text. */
static int row_trace_fields(struct jsonl_ctx *c, struct jsonl_row *r, int *kinds, struct gp_error *err)
{
    int r1 = row_posint(r->row, "input_length", &r->ilen, c->path, r->line, err);
    if (r1 == 1 && r->ilen > GP_DS_MAX_PROMPT_TOKENS)
        r1 = row_err(err, c->path, r->line, "\"input_length\" must be at most 4194304%s", "");
    long olen = -1;
    int r2 = r1 < 0 ? 0 : row_posint(r->row, "output_length", &olen, c->path, r->line, err);
    if (r1 < 0 || r2 < 0)
        return -GP_EINVAL;
    if (r2 == 1)
        r->osl = olen;
    *kinds += r1 == 1 && !(r->text || r->text_input);
    json_t *jts = json_object_get(r->row, "timestamp");
    if (jts && !json_is_null(jts)) {
        if (!json_is_number(jts) || json_number_value(jts) < 0)
            return row_err(err, c->path, r->line, "\"timestamp\" must be a number of milliseconds >= 0%s", "");
        r->ts_ms = json_number_value(jts);
    }
    return 0;
}

/* A trace row without text: a synthetic prompt of exactly input_length
 * tokens, so the isl is known without tokenizing it again. */
static int body_trace(struct jsonl_ctx *c, struct jsonl_row *r, struct gp_error *err)
{
    if (r->osl < 0)
        r->osl = gp_ds_osl(c->o, r->idx);
    int rc = trace_prompt(c->o, c->tok, &c->g, &c->generated, r->row, r->ilen, r->idx, &c->ttext, c->path, r->line,
                          err);
    if (rc)
        return rc;
    r->body = gp_ds_text_body(c->o, r->model, c->ttext.data, c->ttext.len, 1, r->osl);
    r->isl = r->ilen;
    if (!r->body)
        return gp_err(err, GP_ENOMEM, "out of memory reading '%s'", c->path);
    return 0;
}

/* A "text" / "text_input" row (GenAI-Perf's file retriever). */
static int body_text(struct jsonl_ctx *c, struct jsonl_row *r, struct gp_error *err)
{
    json_t *t = r->text ? r->text : r->text_input;
    if (!json_is_string(t))
        return row_err(err, c->path, r->line, "\"%s\" must be a string", r->text ? "text" : "text_input");
    int rc = parse_max_tokens(r->row, &r->osl, c->path, r->line, err);
    if (rc)
        return rc;
    /* GenAI-Perf strips the text (Python str.strip()). */
    const char *ts = json_string_value(t);
    size_t tl = json_string_length(t), a = 0;
    while (a < tl && gp_ds_pyspace((unsigned char)ts[a]))
        a++;
    while (tl > a && gp_ds_pyspace((unsigned char)ts[tl - 1]))
        tl--;
    if (r->osl < 0)
        r->osl = gp_ds_osl(c->o, r->idx);
    r->body = gp_ds_text_body(c->o, r->model, ts + a, tl - a, 0, r->osl);
    r->isl = gp_tokenizer_count(c->tok, ts + a, tl - a);
    if (!r->body)
        return gp_err(err, GP_ENOMEM, "out of memory reading '%s'", c->path);
    return 0;
}

/* A "messages" row: a chat conversation sent as written, so only chat-style
 * endpoints take it. */
static int body_messages(struct jsonl_ctx *c, struct jsonl_row *r, struct gp_error *err)
{
    if (c->o->endpoint_type != GP_ENDPOINT_CHAT && c->o->endpoint_type != GP_ENDPOINT_MULTIMODAL)
        return row_err(err, c->path, r->line,
                       "\"messages\" rows need --endpoint-type chat; use \"text\" rows for other endpoints%s", "");
    int rc;
    if ((rc = check_messages(r->msgs, c->path, r->line, err)) ||
        (rc = parse_max_tokens(r->row, &r->osl, c->path, r->line, err)))
        return rc;
    if (r->osl < 0)
        r->osl = gp_ds_osl(c->o, r->idx);
    r->body = json_object();
    json_object_set_new(r->body, "model", json_string(r->model));
    json_object_set_new(r->body, "messages", json_deep_copy(r->msgs));
    r->isl = gp_dataset_payload_isl(c->tok, r->body, &c->tmp);
    if (gp_ds_finish(c->o, r->body, r->osl))
        return gp_err(err, GP_ENOMEM, "out of memory reading '%s'", c->path);
    return 0;
}

/* A "payload" row, the raw body: sent as written (a missing "model" is
 * filled in first); no flag rewrites it. */
static int body_payload(struct jsonl_ctx *c, struct jsonl_row *r, struct gp_error *err)
{
    if (!json_is_object(r->payload))
        return row_err(err, c->path, r->line, "\"payload\" must be a JSON object (the request body)%s", "");
    r->body = json_object();
    if (!json_object_get(r->payload, "model"))
        json_object_set_new(r->body, "model", json_string(r->model));
    json_object_update(r->body, r->payload);
    json_t *mt = json_object_get(r->payload, "max_tokens");
    if (!mt)
        mt = json_object_get(r->payload, "max_completion_tokens");
    if (json_is_integer(mt))
        r->osl = (long)json_integer_value(mt);
    r->isl = gp_dataset_payload_isl(c->tok, r->payload, &c->tmp);
    return 0;
}

/* Checks that the row holds exactly one kind of prompt, then builds the body
 * for that kind. */
static int row_body(struct jsonl_ctx *c, struct jsonl_row *r, int kinds, struct gp_error *err)
{
    if (!json_is_object(r->row))
        return row_err(err, c->path, r->line, "expected a JSON object such as {\"text\": \"...\"}%s", "");
    if (r->text && r->text_input)
        return row_err(err, c->path, r->line, "each row must have only one of 'text_input' or 'text'%s", "");
    if (kinds == 0)
        return row_err(err, c->path, r->line,
                       c->trace ? "no prompt: give \"text\" or \"input_length\" (with optional \"hash_ids\")%s"
                                : "no prompt: give \"text\", \"messages\" or \"payload\"%s",
                       "");
    if (kinds > 1)
        return row_err(err, c->path, r->line, "give only one of \"text\", \"messages\" or \"payload\"%s", "");
    if (r->ilen > 0 && !(r->text || r->text_input))
        return body_trace(c, r, err);
    if (r->text || r->text_input)
        return body_text(c, r, err);
    if (r->msgs)
        return body_messages(c, r, err);
    return body_payload(c, r, err);
}

/* Appends the row's entry to the dataset. */
static int row_push(struct jsonl_ctx *c, const struct jsonl_row *r, struct gp_error *err)
{
    struct gp_dataset_entry *e = gp_ds_push(c->ds, &c->cap);
    if (!e || gp_ds_emit(c->o, e, r->body, &c->scratch))
        return gp_err(err, GP_ENOMEM, "out of memory reading '%s'", c->path);
    e->isl = (int32_t)r->isl;
    /* embeddings bodies carry no max_tokens */
    e->osl_asked = (int32_t)(r->osl > 0 && c->o->endpoint_type != GP_ENDPOINT_EMBEDDINGS ? r->osl : -1);
    e->timestamp_ms = r->ts_ms;
    c->ds->n++;
    return 0;
}

/* One non-blank line: parse it, build its body, add its entry. */
static int jsonl_line(struct jsonl_ctx *c, const char *s, size_t n, long line, struct gp_error *err)
{
    json_error_t jerr;
    struct jsonl_row r = {.line = line, .osl = -1, .isl = -1, .ts_ms = -1, .idx = c->ds->n};
    if (gp_ds_bom(s, n))
        return row_err(err, c->path, line, "%s", GP_DS_BOM_MSG);
    r.row = json_loadb(s, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (!r.row) {
        char d[320];
        snprintf(d, sizeof d, "%s (column %d)", gp_json_why(jerr.text), jerr.column);
        return row_err(err, c->path, line, "invalid JSON: %s; each line must be one JSON object such as {\"text\": \"...\"}", d);
    }
    r.model = gp_ds_model(c->o, r.idx);
    r.text = json_object_get(r.row, "text");
    r.text_input = json_object_get(r.row, "text_input");
    r.msgs = json_object_get(r.row, "messages");
    r.payload = json_object_get(r.row, "payload");
    int kinds = (r.text || r.text_input) + !!r.msgs + !!r.payload;
    int rc = 0;
    if (c->trace && json_is_object(r.row))
        rc = row_trace_fields(c, &r, &kinds, err);
    if (!rc)
        rc = row_body(c, &r, kinds, err);
    json_decref(r.row);
    if (!rc && r.isl < 0)
        rc = row_err(err, c->path, line, "the tokenizer could not encode this prompt%s", "");
    if (!rc)
        rc = row_push(c, &r, err);
    json_decref(r.body);
    return rc;
}

int gp_ds_build_jsonl(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                      struct gp_error *err)
{
    struct jsonl_ctx c = {.o = o, .tok = tok, .ds = ds, .path = o->input_file};
    if (!strncmp(c.path, "payload:", 8)) {
        c.path += 8;
        c.trace = 1;
    }
    char *data = NULL;
    size_t len = 0;
    int rc = gp_read_file(c.path, &data, &len, err);
    if (rc)
        return gp_err_prefix(err, "--input-file");
    long line = 0;
    for (size_t pos = gp_ds_bom(data, len); pos < len && !rc;) {
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
        rc = jsonl_line(&c, s, n, line, err);
    }
    if (!rc && ds->n == 0)
        rc = gp_err(err, GP_EINVAL,
                    "input file '%s' has no rows; write one JSON object per line, e.g. {\"text\": \"Hello\"}", c.path);
    free(data);
    gp_buf_free(&c.scratch);
    gp_buf_free(&c.tmp);
    gp_buf_free(&c.ttext);
    gp_promptgen_free(c.g);
    return rc;
}
