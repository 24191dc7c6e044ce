/* serve/server_pool.c — the pooling endpoints of `genperf serve`, in the
 * three shapes GenAI-Perf 0.0.16 sends (docs/dataset.md, docs/serve.md):
 *   POST /v1/embeddings {"model","input": text | [texts] | [ids] | [[ids]]}
 *        -> {"object":"list","data":[{"index","object":"embedding","embedding":[...]}],
 *            "model", "usage":{"prompt_tokens","total_tokens"}}
 *   POST /v1/ranking {"model","query":{"text"},"passages":[{"text"}...]}  (NIM)
 *        -> {"rankings":[{"index","logit"}...]}, highest logit first
 *   POST /v1/ranking or /rerank {"query": text, "texts": [...]}        (TEI)
 *        -> [{"index","score"}...], highest score first
 * Vectors and scores are seeded by the text (FNV-1a), so the same input gets
 * the same answer on every run. The answer leaves at once: the pooling
 * endpoints have no token timing to simulate, and faults are not injected.
 */
#include "serve/srv_req.h"
#include "serve/http.h"
#include "core/clock.h"
#include "core/rng.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EMBED_DIM 32   /* small: the response size should not dominate a benchmark */
#define MAX_ITEMS 4096 /* texts / passages per request */

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void bad(struct srv *s, struct conn *c, const char *msg, const char *param)
{
    srv_send_json_error(s, c, 400, s->o->flavor == GP_FLAVOR_TRTLLM ? "validation" : "BadRequestError", msg, param);
    srv_req_finish(s, c, "bad_request");
}

static uint32_t count_tokens(struct srv *s, struct sreq *r, const char *t, size_t n)
{
    if (!r->prompt_head[0] && n) {
        size_t m = n < 64 ? n : 64;
        while (m < n && m > 0 && ((unsigned char)t[m] & 0xC0) == 0x80)
            m--;
        memcpy(r->prompt_head, t, m);
        r->prompt_head[m] = '\0';
    }
    long k = gp_tokenizer_count(s->tok, t, n);
    return k > 0 ? (uint32_t)k : 0;
}

/* One input item's hash and token count; -1 when it is not a text or ids. */
static int embed_item(struct srv *s, struct sreq *r, json_t *it, uint64_t *h, uint32_t *ntok)
{
    *h = 0xcbf29ce484222325ull;
    if (json_is_string(it)) {
        *h = fnv1a(*h, json_string_value(it), json_string_length(it));
        *ntok += count_tokens(s, r, json_string_value(it), json_string_length(it));
        return 0;
    }
    if (!json_is_array(it))
        return -1;
    size_t i;
    json_t *id;
    json_array_foreach(it, i, id) {
        if (!json_is_integer(id))
            return -1;
        json_int_t v = json_integer_value(id);
        *h = fnv1a(*h, (const char *)&v, sizeof v);
    }
    *ntok += (uint32_t)json_array_size(it);
    return 0;
}

static void put_vector(struct gp_buf *b, uint64_t h)
{
    uint64_t st = h;
    double v[EMBED_DIM], norm = 0;
    for (int d = 0; d < EMBED_DIM; d++) {
        v[d] = gp_splitmix64_double(&st) * 2 - 1;
        norm += v[d] * v[d];
    }
    norm = norm > 0 ? sqrt(norm) : 1;
    gp_buf_putc(b, '[');
    for (int d = 0; d < EMBED_DIM; d++)
        gp_buf_printf(b, "%s%.6f", d ? "," : "", v[d] / norm);
    gp_buf_putc(b, ']');
}

static int embeddings(struct srv *s, struct conn *c, json_t *root, struct gp_buf *out)
{
    struct sreq *r = &c->r;
    json_t *in = json_object_get(root, "input");
    /* "input": one text, one id list, or a list of either */
    int single = json_is_string(in) || (json_is_array(in) && json_array_size(in) && json_is_integer(json_array_get(in, 0)));
    size_t n = single ? 1 : json_is_array(in) ? json_array_size(in) : 0;
    if (!n || n > MAX_ITEMS) {
        bad(s, c, "'input' is required: a string, a list of strings or a list of token ids (at most 4096 items)",
            "input");
        return -1;
    }
    uint32_t ntok = 0;
    gp_buf_puts(out, "{\"object\":\"list\",\"data\":[");
    for (size_t i = 0; i < n; i++) {
        uint64_t h;
        if (embed_item(s, r, single ? in : json_array_get(in, i), &h, &ntok) < 0) {
            bad(s, c, "each 'input' item must be a string or a list of token ids", "input");
            return -1;
        }
        gp_buf_printf(out, "%s{\"index\":%zu,\"object\":\"embedding\",\"embedding\":", i ? "," : "", i);
        put_vector(out, h ^ s->o->seed);
        gp_buf_putc(out, '}');
    }
    gp_buf_puts(out, "],\"model\":");
    gp_buf_json_str(out, r->model, strlen(r->model));
    gp_buf_printf(out, ",\"usage\":{\"prompt_tokens\":%u,\"total_tokens\":%u}}", ntok, ntok);
    r->prompt_tokens = ntok;
    return 0;
}

struct scored {
    size_t index;
    double logit;
};

static int by_logit_desc(const void *a, const void *b)
{
    double x = ((const struct scored *)a)->logit, y = ((const struct scored *)b)->logit;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* NIM {"query":{"text"},"passages":[{"text"}]} or TEI {"query","texts"}. */
static int rankings(struct srv *s, struct conn *c, json_t *root, struct gp_buf *out)
{
    struct sreq *r = &c->r;
    json_t *q = json_object_get(root, "query"), *texts = json_object_get(root, "texts");
    int tei = json_is_string(q) && json_is_array(texts);
    json_t *qt = tei ? q : json_object_get(q, "text");
    json_t *list = tei ? texts : json_object_get(root, "passages");
    size_t n = json_is_array(list) ? json_array_size(list) : 0;
    if (!json_is_string(qt) || !n || n > MAX_ITEMS) {
        bad(s, c,
            "expected {\"query\":{\"text\":...},\"passages\":[{\"text\":...},...]} or TEI's "
            "{\"query\":...,\"texts\":[...]} with 1..4096 passages",
            tei ? "texts" : "passages");
        return -1;
    }
    struct scored *sc = malloc(n * sizeof *sc);
    if (!sc) {
        srv_send_json_error(s, c, 500, "InternalServerError", "out of memory", NULL);
        srv_req_finish(s, c, "error");
        return -1;
    }
    uint64_t hq = fnv1a(0xcbf29ce484222325ull ^ s->o->seed, json_string_value(qt), json_string_length(qt));
    uint32_t ntok = count_tokens(s, r, json_string_value(qt), json_string_length(qt));
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_array_get(list, i), *pt = tei ? p : json_object_get(p, "text");
        if (!json_is_string(pt)) {
            free(sc);
            bad(s, c, tei ? "each 'texts' item must be a string" : "each passage must be {\"text\": string}",
                tei ? "texts" : "passages");
            return -1;
        }
        uint64_t st = fnv1a(hq, json_string_value(pt), json_string_length(pt));
        sc[i].index = i;
        sc[i].logit = gp_splitmix64_double(&st) * 20 - 10;
        ntok += count_tokens(s, r, json_string_value(pt), json_string_length(pt));
    }
    qsort(sc, n, sizeof *sc, by_logit_desc);
    gp_buf_puts(out, tei ? "[" : "{\"rankings\":[");
    for (size_t i = 0; i < n; i++) {
        if (tei)
            gp_buf_printf(out, "%s{\"index\":%zu,\"score\":%.6f}", i ? "," : "", sc[i].index,
                          1 / (1 + exp(-sc[i].logit)));
        else
            gp_buf_printf(out, "%s{\"index\":%zu,\"logit\":%.6f}", i ? "," : "", sc[i].index, sc[i].logit);
    }
    gp_buf_puts(out, tei ? "]" : "]}");
    free(sc);
    r->prompt_tokens = ntok;
    return 0;
}

void srv_handle_pool(struct srv *s, struct conn *c, const struct gp_http_req *hr, int endpoint)
{
    struct sreq *r = &c->r;
    srv_req_start(s, r, endpoint);
    snprintf(r->id, sizeof r->id, "%s%llu", endpoint == GP_EP_EMBEDDINGS ? "embd-" : "rank-",
             (unsigned long long)r->seq + 1);
    json_t *root = srv_parse_body(s, c, hr);
    if (!root)
        return;
    json_t *jm = json_object_get(root, "model");
    if (json_is_string(jm) && s->o->flavor != GP_FLAVOR_VLLM)
        snprintf(r->model, sizeof r->model, "%s", json_string_value(jm));
    struct gp_buf out = {0};
    int rc = endpoint == GP_EP_EMBEDDINGS ? embeddings(s, c, root, &out) : rankings(s, c, root, &out);
    json_decref(root);
    if (rc == 0) { /* else answered already */
        r->status = 200;
        s->prompt_total += r->prompt_tokens;
        srv_send_simple(s, c, 200, "application/json", out.data ? out.data : "", out.len);
        srv_req_finish(s, c, "ok");
    }
    gp_buf_free(&out);
}
