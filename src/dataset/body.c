/* dataset/body.c — request bodies as GenAI-Perf 0.0.16's OpenAI converters
 * build them (openai_chat_completions_converter.py, openai_completions_,
 * openai_embeddings_, rankings_converter.py). Key order is the converters'
 * dict order, since consumers diff the bytes; docs/dataset.md shows each.
 * Also the other way: a body's ISL as GenAI-Perf counts it (its text parts
 * joined with spaces), which jsonl.c, metrics and pef read. */
#include "core/buf.h"
#include "core/pytext.h"
#include "dataset/internal.h"
#include "core/rng.h"
#include "dataset/dataset.h"
#include "tokenizer/tokenizer.h"

#include <stdlib.h>
#include <string.h>

long gp_ds_batch(long v) { return v > 0 ? v : 1; }

int gp_ds_pyspace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); }

size_t gp_ds_bom(const char *s, size_t n) { return n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3) ? 3 : 0; }

const char *gp_ds_model(const struct gp_dataset_opts *o, size_t i)
{
    if (o->n_models == 1)
        return o->models[0];
    if (o->model_weights) {
        /* one draw per entry from its own stream: the same seed gives the same
         * mix whatever the number of entries or the order they are built in */
        struct gp_rng r;
        gp_rng_seed_stream(&r, o->seed, GP_RNG_MODEL, i);
        double total = 0;
        for (size_t k = 0; k < o->n_models; k++)
            total += o->model_weights[k];
        double u = gp_rng_double(&r) * total;
        for (size_t k = 0; k + 1 < o->n_models; k++) {
            if (u < o->model_weights[k])
                return o->models[k];
            u -= o->model_weights[k];
        }
        return o->models[o->n_models - 1];
    }
    if (o->model_random) {
        struct gp_rng r;
        gp_rng_seed_stream(&r, o->seed, GP_RNG_MODEL, i);
        return o->models[gp_rng_below(&r, o->n_models)];
    }
    return o->models[i % o->n_models];
}

long gp_ds_osl(const struct gp_dataset_opts *o, size_t idx)
{
    if (o->osl_mean <= 0)
        return -1;
    struct gp_rng r;
    gp_rng_seed_stream(&r, o->seed, GP_RNG_OSL, idx);
    return gp_rng_length(&r, o->osl_mean, o->osl_stddev, 1);
}

static int llm_endpoint(enum gp_endpoint_type t)
{
    return t == GP_ENDPOINT_CHAT || t == GP_ENDPOINT_COMPLETIONS || t == GP_ENDPOINT_MULTIMODAL ||
           t == GP_ENDPOINT_RESPONSES;
}


/* The rankings converter's Hugging Face TEI switch: --extra-inputs rankings:tei. */
static int is_tei_pair(const char *k, const json_t *v)
{
    return !strcmp(k, "rankings") && json_is_string(v) && !strcmp(json_string_value(v), "tei");
}

static int rankings_tei(const struct gp_dataset_opts *o)
{
    return o->extra_inputs && is_tei_pair("rankings", json_object_get(o->extra_inputs, "rankings"));
}

/* GenAI-Perf's _add_request_params: stream, max_tokens (LLM endpoints only;
 * max_output_tokens for the Responses API, which names it so),
 * then --extra-inputs in their order (an existing name is replaced in place,
 * as a Python dict update does). stream_options and the deterministic-OSL
 * fields are genperf's and sit next to the field they qualify. */
int gp_ds_finish(const struct gp_dataset_opts *o, json_t *body, long osl)
{
    int r = 0;
    if (llm_endpoint(o->endpoint_type)) {
        int resp = o->endpoint_type == GP_ENDPOINT_RESPONSES;
        if (o->streaming) {
            r |= json_object_set_new(body, "stream", json_true());
            /* the Responses API always ends its stream with usage (response.completed)
             * and has no stream_options.include_usage */
            if (o->server_usage && !resp) {
                json_t *so = json_object();
                r |= json_object_set_new(so, "include_usage", json_true());
                r |= json_object_set_new(body, "stream_options", so);
            }
        }
        if (osl > 0) {
            r |= json_object_set_new(body, resp ? "max_output_tokens" : "max_tokens", json_integer(osl));
            if (o->osl_deterministic) {
                r |= json_object_set_new(body, "min_tokens", json_integer(osl));
                r |= json_object_set_new(body, "ignore_eos", json_true());
            }
        }
    }
    if (o->extra_inputs && json_is_object(o->extra_inputs)) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)o->extra_inputs, k, v) {
            if (o->endpoint_type == GP_ENDPOINT_RANKINGS && is_tei_pair(k, v))
                continue;
            r |= json_object_set_new(body, k, json_deep_copy(v));
        }
    }
    return r ? -1 : 0;
}

static json_t *str(const char *s, size_t n, int ascii) { return ascii ? json_stringn_nocheck(s, n) : json_stringn(s, n); }

static json_t *text_list(const struct gp_ds_row *row, size_t from)
{
    json_t *a = json_array();
    for (size_t i = from; a && i < row->n_texts; i++)
        if (json_array_append_new(a, str(row->texts[i], row->text_lens[i], row->ascii)))
            return json_decref(a), NULL;
    return a;
}

/* _add_multi_modal_content: every text, then every image, then every clip. */
static json_t *content_parts(const struct gp_dataset_opts *o, const struct gp_ds_row *row)
{
    json_t *a = json_array();
    int r = !a;
    for (size_t i = 0; !r && i < row->n_texts; i++) {
        json_t *p = json_object();
        r |= json_object_set_new(p, "type", json_string("text"));
        r |= json_object_set_new(p, "text", str(row->texts[i], row->text_lens[i], row->ascii));
        r |= json_array_append_new(a, p);
    }
    for (size_t i = 0; !r && i < row->n_images; i++) {
        json_t *p = json_object(), *u = json_object();
        r |= json_object_set_new(u, "url", json_string_nocheck(row->images[i]));
        r |= json_object_set_new(p, "type", json_string("image_url"));
        r |= json_object_set_new(p, "image_url", u);
        r |= json_array_append_new(a, p);
    }
    for (size_t i = 0; !r && i < row->n_audios; i++) {
        json_t *p = json_object(), *d = json_object();
        r |= json_object_set_new(d, "data", json_string_nocheck(row->audios[i]));
        r |= json_object_set_new(d, "format", json_string(gp_audio_format_name(o->audio.format)));
        r |= json_object_set_new(p, "type", json_string("input_audio"));
        r |= json_object_set_new(p, "input_audio", d);
        r |= json_array_append_new(a, p);
    }
    if (r)
        json_decref(a);
    return r ? NULL : a;
}

static json_t *rankings_body(const struct gp_dataset_opts *o, const char *model, const struct gp_ds_row *row)
{
    /* row: texts[0] is the query, texts[1..] the passages */
    json_t *body = json_object();
    json_t *q = str(row->texts[0], row->text_lens[0], row->ascii);
    int r = !body || !q;
    if (rankings_tei(o)) {
        r |= json_object_set_new(body, "query", q);
        r |= json_object_set_new(body, "texts", text_list(row, 1));
        return r ? (json_decref(body), NULL) : body;
    }
    json_t *qo = json_object(), *ps = json_array();
    r |= json_object_set_new(qo, "text", q);
    for (size_t i = 1; !r && i < row->n_texts; i++) {
        json_t *p = json_object();
        r |= json_object_set_new(p, "text", str(row->texts[i], row->text_lens[i], row->ascii));
        r |= json_array_append_new(ps, p);
    }
    r |= json_object_set_new(body, "query", qo);
    r |= json_object_set_new(body, "passages", ps);
    r |= json_object_set_new(body, "model", json_string(model));
    return r ? (json_decref(body), NULL) : body;
}

/* Anthropic Messages API (POST /v1/messages): model, max_tokens (required
 * there, so GP_ANTHROPIC_DEFAULT_MAX_TOKENS stands in for an unset OSL),
 * messages, then stream, in the order its reference shows them. Nothing
 * else: the API refuses unknown fields, so neither stream_options nor the
 * deterministic-OSL fields go out (--extra-inputs still do). */
static json_t *anthropic_body(const char *model, const struct gp_ds_row *row, long osl, int streaming)
{
    json_t *body = json_object(), *msg = json_object(), *arr = json_array();
    int r = !body || !msg || !arr;
    r |= json_object_set_new(body, "model", json_string(model));
    r |= json_object_set_new(body, "max_tokens", json_integer(osl > 0 ? osl : GP_ANTHROPIC_DEFAULT_MAX_TOKENS));
    r |= json_object_set_new(msg, "role", json_string("user"));
    r |= json_object_set_new(msg, "content", row->n_texts ? str(row->texts[0], row->text_lens[0], row->ascii)
                                                          : json_string(""));
    r |= json_array_append_new(arr, msg);
    r |= json_object_set_new(body, "messages", arr);
    if (streaming)
        r |= json_object_set_new(body, "stream", json_true());
    return r ? (json_decref(body), NULL) : body;
}

json_t *gp_ds_body(const struct gp_dataset_opts *o, const char *model, const struct gp_ds_row *row, long osl)
{
    json_t *body;
    int r = 0;
    if (o->endpoint_type == GP_ENDPOINT_RANKINGS) {
        if (!(body = rankings_body(o, model, row)))
            return NULL;
    } else if (o->endpoint_type == GP_ENDPOINT_ANTHROPIC) {
        if (!(body = anthropic_body(model, row, osl, o->streaming)))
            return NULL;
    } else {
        body = json_object();
        if (!body)
            return NULL;
        r |= json_object_set_new(body, "model", json_string(model));
        if (o->endpoint_type == GP_ENDPOINT_COMPLETIONS) {
            r |= json_object_set_new(body, "prompt", text_list(row, 0));
        } else if (o->endpoint_type == GP_ENDPOINT_EMBEDDINGS) {
            r |= json_object_set_new(body, "input", text_list(row, 0));
        } else {
            json_t *msg = json_object(), *arr = json_array();
            r |= json_object_set_new(msg, "role", json_string("user"));
            /* chat: content = texts[0] (GenAI-Perf drops images and audio) */
            r |= json_object_set_new(msg, "content",
                                     o->endpoint_type == GP_ENDPOINT_MULTIMODAL ? content_parts(o, row)
                                     : row->n_texts ? str(row->texts[0], row->text_lens[0], row->ascii)
                                                    : json_string(""));
            r |= json_array_append_new(arr, msg);
            /* the Responses API takes the same messages as its "input" (EasyInputMessage) */
            r |= json_object_set_new(body, o->endpoint_type == GP_ENDPOINT_RESPONSES ? "input" : "messages", arr);
        }
    }
    if (r || gp_ds_finish(o, body, osl)) {
        json_decref(body);
        return NULL;
    }
    return body;
}

json_t *gp_ds_text_body(const struct gp_dataset_opts *o, const char *model, const char *text, size_t len, int ascii,
                        long osl)
{
    const char *t[1] = {text};
    size_t l[1] = {len};
    struct gp_ds_row row = {.texts = t, .text_lens = l, .n_texts = 1, .ascii = ascii};
    return gp_ds_body(o, model, &row, osl);
}

int gp_ds_emit(const struct gp_dataset_opts *o, struct gp_dataset_entry *e, const json_t *body,
               struct gp_buf *scratch)
{
    /* the model the body names, so the report can split metrics by model
     * (a payload row may name its own) */
    const char *m = json_string_value(json_object_get(body, "model"));
    e->model = GP_DS_MODEL_OTHER;
    for (size_t k = 0; m && k < o->n_models; k++)
        if (!strcmp(m, o->models[k])) {
            e->model = (uint32_t)k;
            break;
        }
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

struct gp_dataset_entry *gp_ds_push(struct gp_dataset *ds, size_t *cap)
{
    if (ds->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct gp_dataset_entry *ne = realloc(ds->entries, nc * sizeof *ne);
        if (!ne)
            return NULL;
        ds->entries = ne;
        *cap = nc;
    }
    struct gp_dataset_entry *e = &ds->entries[ds->n];
    memset(e, 0, sizeof *e);
    e->timestamp_ms = -1;
    e->osl_asked = -1;
    return e;
}

/* ---- the ISL of a body ------------------------------------------------------ */

/* Appends s to tmp, after a ' ' unless it is the first piece. */
static int join(struct gp_buf *tmp, int *first, const json_t *s)
{
    if (!json_is_string(s))
        return 0;
    if (!*first && gp_buf_putc(tmp, ' '))
        return -1;
    *first = 0;
    return gp_buf_append(tmp, json_string_value(s), json_string_length(s));
}

/* GenAI-Perf: " ".join(m["content"] for m in messages) for chat, and the
 * text parts of the content list for multimodal; both forms are read here. */
static int join_messages(struct gp_buf *tmp, const json_t *messages)
{
    size_t i, k;
    json_t *m, *part;
    int first = 1;
    json_array_foreach(messages, i, m) {
        json_t *c = json_object_get(m, "content");
        if (json_is_array(c)) {
            json_array_foreach(c, k, part) {
                json_t *type = json_object_get(part, "type");
                /* "input_text": a Responses API input part */
                if (json_is_string(type) &&
                    (!strcmp(json_string_value(type), "text") || !strcmp(json_string_value(type), "input_text")) &&
                    join(tmp, &first, json_object_get(part, "text")))
                    return -1;
            }
        } else if (join(tmp, &first, c)) {
            return -1;
        }
    }
    return 0;
}

long gp_dataset_payload_isl(struct gp_tokenizer *tok, const json_t *payload, struct gp_buf *tmp)
{
    json_t *pm = json_object_get(payload, "messages");
    json_t *pp = json_object_get(payload, "prompt");
    json_t *pi = json_object_get(payload, "input"); /* Responses API messages (not embeddings' strings) */
    gp_buf_reset(tmp);
    if (!json_is_array(pm) && json_is_array(pi) && json_is_object(json_array_get(pi, 0)))
        pm = pi;
    if (json_is_array(pm)) {
        if (join_messages(tmp, pm))
            return -1;
    } else if (json_is_string(pp)) {
        return gp_tokenizer_count(tok, json_string_value(pp), json_string_length(pp));
    } else if (json_is_array(pp)) {
        /* " ".join(payload["prompt"]) */
        size_t i;
        json_t *s;
        int first = 1;
        json_array_foreach(pp, i, s) {
            if (join(tmp, &first, s))
                return -1;
        }
    } else {
        return 0;
    }
    return gp_tokenizer_count(tok, tmp->data ? tmp->data : "", tmp->len);
}
