/* serve/server_json.c — structured output (issue 31 item 3): a chat request
 * whose response_format is json_schema is answered with JSON text of the
 * requested length, as ground truth for the client's schema check. The
 * answer is a skeleton built from the schema's top level (an object gets
 * its required properties with empty values of their types) with the
 * output's words inside one string value: the skeleton's head goes out as
 * the first token's text, each word as one token, its tail as the last, and
 * usage counts the head and tail by the server's tokenizer, so that the
 * client's count of the whole text equals max_tokens (a head or tail token
 * that merges with a word can move it by one on some tokenizers). With
 * --invalid-json-rate a share of them loses its tail: JSON cut short.
 * Owns r->json_pre/json_suf (escaped text), reset per request.
 */
#include "serve/srv_gen.h"
#include "core/rng.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <string.h>

static const char *type_of(const json_t *schema)
{
    const json_t *t = json_object_get(schema, "type");
    if (json_is_array(t))
        t = json_array_get(t, 0);
    return json_is_string(t) ? json_string_value(t) : "";
}

static void empty_value(struct gp_buf *b, const json_t *ps)
{
    const char *t = type_of(ps);
    gp_buf_puts(b, !strcmp(t, "string")                             ? "\"\""
                   : !strcmp(t, "integer") || !strcmp(t, "number") ? "0"
                   : !strcmp(t, "boolean")                          ? "false"
                   : !strcmp(t, "array")                            ? "[]"
                   : !strcmp(t, "null")                             ? "null"
                                                                     : "{}");
}

/* The skeleton around the words: pre + words + suf is the answer (raw text). */
static void skeleton(const json_t *schema, struct gp_buf *pre, struct gp_buf *suf)
{
    const char *t = type_of(schema);
    if (!strcmp(t, "string")) {
        gp_buf_puts(pre, "\"");
        gp_buf_puts(suf, "\"");
        return;
    }
    if (!strcmp(t, "array")) {
        gp_buf_puts(pre, "[\"");
        gp_buf_puts(suf, "\"]");
        return;
    }
    /* an object: the words go into its first string property ("text" when
     * it has none), then every other required property with an empty value */
    const json_t *props = json_object_get(schema, "properties");
    const char *fill = NULL, *k;
    json_t *ps;
    json_object_foreach((json_t *)props, k, ps) if (!fill && !strcmp(type_of(ps), "string")) fill = k;
    if (!fill)
        fill = "text";
    gp_buf_puts(pre, "{");
    gp_buf_json_str(pre, fill, strlen(fill));
    gp_buf_puts(pre, ": \"");
    gp_buf_puts(suf, "\"");
    size_t i;
    json_t *req;
    json_array_foreach(json_object_get(schema, "required"), i, req) {
        const char *name = json_string_value(req);
        if (!name || !strcmp(name, fill))
            continue;
        gp_buf_puts(suf, ", ");
        gp_buf_json_str(suf, name, strlen(name));
        gp_buf_puts(suf, ": ");
        empty_value(suf, json_object_get(props, name));
    }
    gp_buf_puts(suf, "}");
}

/* Escaped text without its quotes, for the token stream. */
static void escaped(struct gp_buf *out, const struct gp_buf *raw)
{
    gp_buf_reset(out);
    if (gp_buf_json_str(out, raw->data ? raw->data : "", raw->len) || out->len < 2)
        return;
    memmove(out->data, out->data + 1, out->len - 2);
    out->len -= 2;
    out->data[out->len] = '\0';
}

void srv_json_plan(struct srv *s, struct sreq *r, const json_t *rf)
{
    r->json_mode = 0;
    r->json_extra = 0;
    const char *type = json_string_value(json_object_get(rf, "type"));
    if (r->endpoint != GP_EP_CHAT || r->rd.tool_call || !type || strcmp(type, "json_schema"))
        return;
    const json_t *schema = json_object_get(json_object_get(rf, "json_schema"), "schema");
    struct gp_buf pre = {0}, suf = {0};
    skeleton(schema, &pre, &suf);
    long npre = gp_tokenizer_count(s->tok, pre.data, pre.len), nsuf = gp_tokenizer_count(s->tok, suf.data, suf.len);
    if (npre < 1)
        npre = 1;
    if (nsuf < 1)
        nsuf = 1;
    /* drawn last and only when asked, so the other draws stay as they were */
    int cut = s->o->invalid_json_rate > 0 && gp_splitmix64_double(&r->rng) < s->o->invalid_json_rate;
    if (cut)
        gp_buf_reset(&suf); /* the last token is one more word: unterminated JSON */
    escaped(&r->json_pre, &pre);
    escaped(&r->json_suf, &suf);
    gp_buf_free(&pre);
    gp_buf_free(&suf);
    /* head, words, tail: out_tokens pieces count head + words + tail tokens */
    uint32_t want = r->out_tokens, fixed = (uint32_t)npre + (cut ? 0 : (uint32_t)nsuf);
    uint32_t words = want > fixed ? want - fixed : 1;
    r->out_tokens = words + 1 + (cut ? 0 : 1);
    r->json_extra = (uint32_t)npre - 1 + (cut ? 0 : (uint32_t)nsuf - 1);
    r->reasoning_n = 0;
    r->json_mode = cut ? 2 : 1;
}

const char *srv_json_piece(const struct sreq *r, uint32_t k, size_t *len)
{
    if (k == 1) {
        *len = r->json_pre.len;
        return r->json_pre.data ? r->json_pre.data : "";
    }
    if (k == r->out_tokens && r->json_mode == 1) {
        *len = r->json_suf.len;
        return r->json_suf.data ? r->json_suf.data : "";
    }
    return NULL;
}
