/* serve/server_request.c — a generate request of `genperf serve`
 * (/v1/chat/completions, /v1/completions, /v1/responses): the body is parsed and validated
 * with each flavour's error messages, the prompt counted with the server's
 * tokenizer, and the output planned from the request's seeded stream (length
 * and EOS, id, fault) before generation starts. The order of the draws from
 * r->rng is part of the output: the same --seed gives the same answers. */
#include "serve/srv_req.h"
#include "serve/http.h"
#include "core/clock.h"
#include "core/fsutil.h"
#include "core/rng.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Counts t's tokens into *count; with ids (--prefix-cache) also appends
 * them there, for the prefix-cache lookup (one encode, not two). */
static void add_text(struct gp_tokenizer *tok, const char *t, size_t n, uint32_t *count, char *head, size_t headsz,
                     struct gp_ids *ids)
{
    long k;
    if (ids) {
        size_t before = ids->n;
        k = gp_tokenizer_encode(tok, t, n, 0, ids, NULL) ? -1 : (long)(ids->n - before);
    } else {
        k = gp_tokenizer_count(tok, t, n);
    }
    if (k > 0)
        *count += (uint32_t)k;
    if (!head[0] && n) {
        size_t m = n < headsz - 1 ? n : headsz - 1;
        if (m > 64)
            m = 64;
        /* do not cut a UTF-8 sequence in half */
        while (m < n && m > 0 && ((unsigned char)t[m] & 0xC0) == 0x80)
            m--;
        memcpy(head, t, m);
        head[m] = '\0';
    }
}

static int count_content(struct gp_tokenizer *tok, json_t *content, uint32_t *count, char *head, size_t headsz,
                         struct gp_ids *ids)
{
    if (json_is_string(content)) {
        add_text(tok, json_string_value(content), json_string_length(content), count, head, headsz, ids);
        return 0;
    }
    if (json_is_array(content)) {
        size_t i;
        json_t *part;
        json_array_foreach(content, i, part) {
            /* OpenAI content parts: text, image_url {url}, input_audio {data, format} */
            const char *type = json_string_value(json_object_get(part, "type"));
            if (!type)
                return -1;
            /* input_text / output_text: a Responses API input's parts */
            if (!strcmp(type, "text") || !strcmp(type, "input_text") || !strcmp(type, "output_text")) {
                json_t *txt = json_object_get(part, "text");
                if (!json_is_string(txt))
                    return -1;
                add_text(tok, json_string_value(txt), json_string_length(txt), count, head, headsz, ids);
            } else if (!strcmp(type, "image_url")) {
                if (!json_is_string(json_object_get(json_object_get(part, "image_url"), "url")))
                    return -1;
            } else if (!strcmp(type, "input_audio")) {
                json_t *au = json_object_get(part, "input_audio");
                if (!json_is_string(json_object_get(au, "data")) || !json_is_string(json_object_get(au, "format")))
                    return -1;
            } else {
                return -1;
            }
        }
        return 0;
    }
    return json_is_null(content) ? 0 : -1;
}

static const char *const trt_fields[] = {
    "messages", "prompt", "model", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs", "max_tokens",
    "max_completion_tokens", "n", "presence_penalty", "response_format", "seed", "stop", "stream",
    "stream_options", "temperature", "top_p", "tools", "tool_choice", "user", "best_of", "use_beam_search",
    "top_k", "top_p_min", "min_p", "repetition_penalty", "length_penalty", "early_stopping", "stop_token_ids",
    "include_stop_str_in_output", "ignore_eos", "min_tokens", "skip_special_tokens",
    "spaces_between_special_tokens", "truncate_prompt_tokens", "lora_request", "echo", "add_generation_prompt",
    "add_special_tokens", "documents", "chat_template", "chat_template_kwargs", "disaggregated_params",
    "reasoning_effort", "cache_salt", "prompt_ignore_length", "parallel_tool_calls", "suffix", "return_context_logits",
    "return_generation_logits", "detokenize", "prompt_token_ids", NULL};

static int trt_known(const char *k)
{
    for (int i = 0; trt_fields[i]; i++)
        if (!strcmp(trt_fields[i], k))
            return 1;
    return 0;
}

static int get_uint(json_t *obj, const char *key, long long *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v))
        return -1;
    *out = json_integer_value(v);
    return 1;
}

/* A validation failure: the message (it may live in msg) and the parameter
 * it names; bad == NULL while the request is fine. */
struct verdict {
    const char *bad, *param;
    int over_len;              /* bad: the prompt plus output exceed the context */
    char msg[300];
};

/* What the body asks for. */
struct gen_params {
    uint32_t ptoks;            /* prompt tokens */
    long long maxt, mint;      /* max_tokens (or the default), min_tokens */
    int have_max;              /* max_tokens came from the body */
};

void srv_req_start(struct srv *s, struct sreq *r, int endpoint)
{
    const struct gp_serve_opts *o = s->o;
    r->endpoint = endpoint;
    r->t_request_ns = gp_now_ns();
    r->seq = s->seq++;
    s->n_requests++;
    r->logged = s->log_open;
    r->rng = o->seed * 0x9e3779b97f4a7c15ull + r->seq + 1;
    gp_splitmix64(&r->rng);
    r->status = 400;
    r->state = R_DONE;
    r->json_mode = 0;
    r->json_extra = 0;
    snprintf(r->model, sizeof r->model, "%s", o->model);
    r->lora = 0;
}

/* name is one of the comma-separated --lora adapters (no allocation: once per request). */
static int is_lora(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && n && !memcmp(p, name, n))
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

static void reject(struct srv *s, struct conn *c, int status, const char *type, const char *msg, const char *param)
{
    srv_send_json_error(s, c, status, type, msg, param);
    srv_req_finish(s, c, "bad_request");
}

/* The body as a JSON object; NULL once the request has been answered 400. */
json_t *srv_parse_body(struct srv *s, struct conn *c, const struct gp_http_req *hr)
{
    int fl = s->o->flavor;
    if (fl != GP_FLAVOR_TRTLLM &&
        (!hr->content_type || hr->content_type_len < 16 || strncasecmp(hr->content_type, "application/json", 16))) {
        reject(s, c, 400, "BadRequestError", "Unsupported Media Type: Only 'application/json' is allowed", NULL);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(hr->body ? hr->body : "", hr->body_len, 0, &jerr);
    if (!json_is_object(root)) {
        json_decref(root);
        /* a NUL is valid JSON that jansson refuses: name it, not "no object" */
        char why[160];
        if (!root && gp_json_why(jerr.text) != jerr.text)
            snprintf(why, sizeof why, "JSON decode error: %s (line %d column %d)", gp_json_why(jerr.text), jerr.line,
                     jerr.column);
        else
            snprintf(why, sizeof why, "JSON decode error: the request body is not a JSON object");
        reject(s, c, 400, fl == GP_FLAVOR_TRTLLM ? "validation" : "BadRequestError", why, NULL);
        return NULL;
    }
    return root;
}

/* "model": the name answered with; 1 when --strict-model answered 404. */
static int check_model(struct srv *s, struct conn *c, json_t *root, struct verdict *v)
{
    const struct gp_serve_opts *o = s->o;
    struct sreq *r = &c->r;
    json_t *jm = json_object_get(root, "model");
    if (json_is_string(jm)) {
        snprintf(r->model, sizeof r->model, "%s", json_string_value(jm));
    } else if (o->flavor == GP_FLAVOR_TRTLLM) {
        v->bad = "1 validation error: model: Field required";
    }
    r->lora = json_is_string(jm) && is_lora(o->lora, json_string_value(jm));
    if (!v->bad && o->strict_model && json_is_string(jm) && strcmp(json_string_value(jm), o->model) && !r->lora) {
        char msg[300];
        snprintf(msg, sizeof msg, "The model `%.200s` does not exist.", r->model);
        r->status = 404;
        srv_send_json_error(s, c, 404, "NotFoundError", msg, "model");
        srv_req_finish(s, c, "bad_request");
        return 1;
    }
    if (o->flavor == GP_FLAVOR_VLLM && !r->lora) /* vLLM answers with its served name, or the adapter's */
        snprintf(r->model, sizeof r->model, "%s", o->model);
    return 0;
}

/* TRT-LLM's pydantic model forbids fields it does not know. */
static void check_trt_fields(json_t *root, struct verdict *v)
{
    const char *k;
    json_t *val;
    json_object_foreach(root, k, val) {
        if (!trt_known(k)) {
            snprintf(v->msg, sizeof v->msg, "1 validation error: %.200s: Extra inputs are not permitted", k);
            v->bad = v->msg;
            return;
        }
    }
}

/* Where the prompt's token ids go for the prefix-cache lookup (NULL: off). */
static struct gp_ids *pc_ids(struct srv *s) { return s->o->prefix_cache ? &s->pcache.ids : NULL; }

static void count_messages(struct srv *s, struct sreq *r, json_t *root, struct gen_params *p, struct verdict *v)
{
    json_t *msgs = json_object_get(root, "messages");
    if (!json_is_array(msgs) || !json_array_size(msgs)) {
        v->bad = "'messages' is required: a non-empty list of {\"role\",\"content\"} objects";
        v->param = "messages";
        return;
    }
    size_t i;
    json_t *m;
    r->n_messages = (uint32_t)json_array_size(msgs);
    json_array_foreach(msgs, i, m) {
        json_t *content = json_object_get(m, "content");
        if (json_is_string(content) && json_is_string(json_object_get(m, "role")) &&
            !strcmp(json_string_value(json_object_get(m, "role")), "assistant"))
            snprintf(r->assistant_head, sizeof r->assistant_head, "%s", json_string_value(content));
        if (!json_is_object(m) || count_content(s->tok, json_object_get(m, "content"), &p->ptoks,
                                                r->prompt_head, sizeof r->prompt_head, pc_ids(s))) {
            v->bad = "each message must be an object whose 'content' is a string or a list of parts "
                     "({\"type\":\"text\",\"text\"}, {\"type\":\"image_url\",\"image_url\":{\"url\"}}, "
                     "{\"type\":\"input_audio\",\"input_audio\":{\"data\",\"format\"}})";
            v->param = "messages";
            return;
        }
    }
}

/* The Responses API's "input": a string, or a list of messages
 * ({"role","content"}, "type":"message" optional) as chat's. */
static void count_input(struct srv *s, struct sreq *r, json_t *root, struct gen_params *p, struct verdict *v)
{
    json_t *in = json_object_get(root, "input");
    if (json_is_string(in)) {
        r->n_messages = 1;
        add_text(s->tok, json_string_value(in), json_string_length(in), &p->ptoks, r->prompt_head,
                 sizeof r->prompt_head, pc_ids(s));
        return;
    }
    if (!json_is_array(in) || !json_array_size(in)) {
        v->bad = "'input' is required: a string or a non-empty list of {\"role\",\"content\"} messages";
        v->param = "input";
        return;
    }
    size_t i;
    json_t *m;
    r->n_messages = (uint32_t)json_array_size(in);
    json_array_foreach(in, i, m) {
        if (!json_is_object(m) || count_content(s->tok, json_object_get(m, "content"), &p->ptoks, r->prompt_head,
                                                sizeof r->prompt_head, pc_ids(s))) {
            v->bad = "each input item must be a message whose 'content' is a string or a list of "
                     "{\"type\":\"input_text\",\"text\"} parts";
            v->param = "input";
            return;
        }
    }
}

static void count_prompt(struct srv *s, struct sreq *r, json_t *root, struct gen_params *p, struct verdict *v)
{
    json_t *pr = json_object_get(root, "prompt");
    if (json_is_string(pr)) {
        add_text(s->tok, json_string_value(pr), json_string_length(pr), &p->ptoks, r->prompt_head,
                 sizeof r->prompt_head, pc_ids(s));
    } else if (json_is_array(pr) && json_array_size(pr)) {
        size_t i;
        json_t *e;
        json_array_foreach(pr, i, e) {
            if (json_is_string(e))
                add_text(s->tok, json_string_value(e), json_string_length(e), &p->ptoks, r->prompt_head,
                         sizeof r->prompt_head, pc_ids(s));
            else if (json_is_integer(e))
                p->ptoks++;
            else if (json_is_array(e))
                p->ptoks += (uint32_t)json_array_size(e);
        }
    } else {
        v->bad = "'prompt' is required: a string, a list of strings or a list of token ids";
        v->param = "prompt";
    }
}

/* "stream" and "stream_options" (read even for a request already bad: the
 * error answer's framing depends on them). */
static void parse_stream(struct srv *s, struct sreq *r, json_t *root, const struct gp_http_req *hr,
                         struct verdict *v)
{
    int fl = s->o->flavor;
    json_t *js = json_object_get(root, "stream");
    r->stream = json_is_true(js);
    r->http10 = hr->minor == 0;
    json_t *so = json_object_get(root, "stream_options");
    r->include_usage = 0;
    r->continuous_usage = 0;
    if (!v->bad && json_is_object(so)) {
        if (!r->stream && fl != GP_FLAVOR_SGLANG) {
            v->bad = "Stream options can only be defined when `stream=True`.";
            v->param = "stream_options";
        }
        /* vLLM (StreamOptions.include_usage defaults to True, protocol.py at
         * commit 99c5632f) and TRT-LLM count an absent include_usage as true, so
         * "stream_options": {} asks for the usage chunk; SGLang defaults it false */
        json_t *iu = json_object_get(so, "include_usage");
        if (fl == GP_FLAVOR_SGLANG)
            r->include_usage = json_is_true(iu);
        else if (fl == GP_FLAVOR_TRTLLM)
            r->include_usage = !json_is_false(iu);
        else /* vLLM: an explicit null is None, which is false */
            r->include_usage = iu ? json_is_true(iu) : 1;
        r->continuous_usage = json_is_true(json_object_get(so, "continuous_usage_stats"));
        if (!r->include_usage)
            r->continuous_usage = 0;
    }
}

/* max_completion_tokens (or max_tokens) and min_tokens. */
static void parse_lengths(json_t *root, struct gen_params *p, struct verdict *v)
{
    long long val = 0;
    /* max_output_tokens: the Responses API's name for it */
    int g1 = get_uint(root, "max_output_tokens", &val);
    if (g1 == 0)
        g1 = get_uint(root, "max_completion_tokens", &val);
    if (g1 > 0) {
        p->maxt = val;
        p->have_max = 1;
    } else {
        int g2 = get_uint(root, "max_tokens", &val);
        if (g2 > 0) {
            p->maxt = val;
            p->have_max = 1;
        }
        if (g2 < 0)
            g1 = -1;
    }
    if (g1 < 0 || get_uint(root, "min_tokens", &p->mint) < 0) {
        v->bad = "max_tokens, max_completion_tokens, max_output_tokens and min_tokens must be integers";
        v->param = "max_tokens";
    } else if (p->maxt < 1) {
        snprintf(v->msg, sizeof v->msg, "max_tokens must be at least 1, got %lld.", p->maxt);
        v->bad = v->msg;
        v->param = "max_tokens";
    } else if (p->mint < 0 || p->mint > p->maxt) {
        snprintf(v->msg, sizeof v->msg, "min_tokens must be in [0, max_tokens=%lld], got %lld.", p->maxt, p->mint);
        v->bad = v->msg;
        v->param = "min_tokens";
    }
}

/* Prompt plus output must fit the context (and, batching, the KV cache);
 * without max_tokens the output takes what is left, as vLLM does. */
static void check_context(struct srv *s, struct gen_params *p, struct verdict *v)
{
    const struct gp_serve_opts *o = s->o;
    if (!p->have_max && (uint64_t)p->ptoks + (uint64_t)p->maxt > o->max_model_len)
        p->maxt = o->max_model_len > p->ptoks ? (long long)(o->max_model_len - p->ptoks) : 0;
    uint64_t need = (uint64_t)p->ptoks + (uint64_t)p->maxt;
    uint64_t lim = o->max_model_len;
    if (s->mode == MODE_BATCH && o->kv_tokens < lim)
        lim = o->kv_tokens;
    if (o->flavor == GP_FLAVOR_SGLANG && (p->ptoks >= lim || need >= lim)) {
        /* SGLang's TokenizerManager._validate_one_request (commit in
         * docs/serve.md): both limits are >=, its own words */
        if (p->ptoks >= lim)
            snprintf(v->msg, sizeof v->msg,
                     "The input (%u tokens) is longer than the model's context length (%llu tokens).", p->ptoks,
                     (unsigned long long)lim);
        else
            snprintf(v->msg, sizeof v->msg,
                     "Requested token count exceeds the model's maximum context length of %llu tokens. You "
                     "requested a total of %llu tokens: %u tokens from the input messages and %lld tokens for the "
                     "completion. Please reduce the number of tokens in the input messages or the completion to "
                     "fit within the limit.",
                     (unsigned long long)lim, (unsigned long long)need, p->ptoks, p->maxt);
        v->bad = v->msg;
        v->param = NULL;
        v->over_len = 1;
    } else if (p->maxt < 1 || need > lim) {
        snprintf(v->msg, sizeof v->msg,
                 "This model's maximum context length is %llu tokens. However, you requested %llu tokens "
                 "(%u in the messages, %lld in the completion). Please reduce the length of the messages "
                 "or completion.",
                 (unsigned long long)lim, (unsigned long long)need, p->ptoks, p->maxt);
        v->bad = v->msg;
        v->param = "max_tokens";
    }
}

/* Every check in the flavour's order; v->bad says whether one failed. */
static void validate(struct srv *s, struct conn *c, const struct gp_http_req *hr, json_t *root,
                     struct gen_params *p, struct verdict *v)
{
    struct sreq *r = &c->r;
    /* (TRT-LLM's field list is its chat/completions model's) */
    if (!v->bad && s->o->flavor == GP_FLAVOR_TRTLLM && r->endpoint != GP_EP_RESPONSES)
        check_trt_fields(root, v);
    if (!v->bad) {
        if (r->endpoint == GP_EP_CHAT || r->endpoint == GP_EP_ANTHROPIC)
            count_messages(s, r, root, p, v);
        else if (r->endpoint == GP_EP_RESPONSES)
            count_input(s, r, root, p, v);
        else
            count_prompt(s, r, root, p, v);
    }
    parse_stream(s, r, root, hr, v);
    if (!v->bad && r->endpoint == GP_EP_ANTHROPIC && !json_is_integer(json_object_get(root, "max_tokens"))) {
        v->bad = "max_tokens: Field required"; /* the Messages API has no default length */
        v->param = "max_tokens";
    }
    if (!v->bad)
        parse_lengths(root, p, v);
    if (!v->bad)
        check_context(s, p, v);
}

/* Output length: max_tokens, unless a seeded EOS ends it early. */
static void plan_output(struct srv *s, struct sreq *r, const struct gen_params *p, int ignore_eos)
{
    const struct gp_serve_opts *o = s->o;
    r->out_tokens = (uint32_t)p->maxt;
    r->finish = GP_FINISH_LENGTH;
    if (!ignore_eos && o->eos_rate > 0) {
        uint32_t from = p->mint > 1 ? (uint32_t)p->mint : 1;
        for (uint32_t i = from; i < r->out_tokens; i++) {
            if (gp_splitmix64_double(&r->rng) < o->eos_rate) {
                r->out_tokens = i;
                r->finish = GP_FINISH_STOP;
                break;
            }
        }
    }
    r->reasoning_n = r->endpoint == GP_EP_CHAT || r->endpoint == GP_EP_RESPONSES ||
                   r->endpoint == GP_EP_ANTHROPIC ? o->reasoning : 0;
    s->prompt_total += p->ptoks;
}

/* ids: vLLM/SGLang hex, TRT-LLM the executor's integer; then the renderer. */
static void assign_id(struct srv *s, struct sreq *r)
{
    int fl = s->o->flavor;
    uint64_t idr = gp_splitmix64(&r->rng), idr2 = gp_splitmix64(&r->rng);
    const char *pre = r->endpoint == GP_EP_ANTHROPIC ? "msg_" : r->endpoint == GP_EP_CHAT ? "chatcmpl-" : r->endpoint == GP_EP_RESPONSES ? "resp_" : "cmpl-";
    if (fl == GP_FLAVOR_TRTLLM)
        snprintf(r->id, sizeof r->id, "%s%llu", pre, (unsigned long long)r->seq + 1);
    else
        snprintf(r->id, sizeof r->id, "%s%016llx%016llx", pre, (unsigned long long)idr, (unsigned long long)idr2);
    gp_render_init(&r->rd, fl, r->endpoint, r->id, r->model, (long long)(gp_wall_ns() / 1000000000ull),
                   r->prompt_tokens, r->continuous_usage);
}

/* The function a chat request with tools gets called (tool_choice a named
 * function, *named = 1; else the first tool), or NULL: no tools, or
 * tool_choice "none". Borrowed from root. */
static const char *tool_to_call(const struct sreq *r, json_t *root, int *named)
{
    json_t *tools = json_object_get(root, "tools"), *tc = json_object_get(root, "tool_choice");
    *named = 0;
    if (r->endpoint != GP_EP_CHAT || !json_is_array(tools) || !json_array_size(tools))
        return NULL;
    if (json_is_string(tc) && !strcmp(json_string_value(tc), "none"))
        return NULL;
    const char *forced = json_string_value(json_object_get(json_object_get(tc, "function"), "name"));
    *named = forced != NULL;
    if (forced)
        return forced;
    const char *first = json_string_value(json_object_get(json_object_get(json_array_get(tools, 0), "function"), "name"));
    return first ? first : "function";
}

/* 1 when a chat request sends tools with tool_choice "auto", which is also
 * vLLM's default when tools are sent (chat protocol.py); vLLM refuses it
 * unless started with --enable-auto-tool-choice and --tool-call-parser
 * (entrypoints/openai chat serving). */
static int auto_tools_asked(const struct sreq *r, json_t *root)
{
    json_t *tools = json_object_get(root, "tools"), *tc = json_object_get(root, "tool_choice");
    if (r->endpoint != GP_EP_CHAT || !json_is_array(tools) || !json_array_size(tools))
        return 0;
    return !tc || json_is_null(tc) || (json_is_string(tc) && !strcmp(json_string_value(tc), "auto"));
}

void srv_handle_generate(struct srv *s, struct conn *c, const struct gp_http_req *hr, int endpoint)
{
    struct sreq *r = &c->r;
    srv_req_start(s, r, endpoint);
    json_t *root = srv_parse_body(s, c, hr);
    if (!root)
        return;
    struct verdict v = {0};
    if (check_model(s, c, root, &v)) {
        json_decref(root);
        return;
    }
    struct gen_params p = {.maxt = s->o->max_tokens_default};
    s->pcache.ids.n = 0;
    validate(s, c, hr, root, &p, &v);
    if (!v.bad && s->o->flavor == GP_FLAVOR_VLLM && !s->o->auto_tool_choice && auto_tools_asked(r, root))
        v.bad = "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set";
    int ignore_eos = json_is_true(json_object_get(root, "ignore_eos"));
    char tool[64] = "";
    int named = 0;
    const char *tname = v.bad ? NULL : tool_to_call(r, root, &named);
    if (tname)
        snprintf(tool, sizeof tool, "%s", tname);
    json_t *rf = v.bad ? NULL : json_incref(json_object_get(root, "response_format"));
    json_decref(root);
    r->prompt_tokens = p.ptoks;
    if (v.bad && v.over_len && r->stream) {
        /* SGLang validates inside its stream generator: HTTP 200, the error in the stream */
        assign_id(s, r);
        srv_sglang_stream_error(s, c, 400, "BadRequestError", v.bad);
        srv_req_finish(s, c, "bad_request");
        return;
    }
    if (v.bad) {
        reject(s, c, 400, s->o->flavor == GP_FLAVOR_TRTLLM && !v.param ? "validation" : "BadRequestError", v.bad,
               v.param);
        return;
    }
    /* the draws from r->rng, in this order: EOS, id, fault, fault token */
    plan_output(s, r, &p, ignore_eos);
    assign_id(s, r);
    if (tool[0]) {
        /* the answer is one call whose arguments are the out_tokens tokens
         * (no reasoning); the id reuses the request's, so no draw moves */
        char cid[40];
        snprintf(cid, sizeof cid, "call_%.30s", r->id + (strncmp(r->id, "chatcmpl-", 9) ? 0 : 9));
        gp_render_tool_call(&r->rd, tool, cid);
        /* vLLM answers a named tool_choice through structured output, not
         * its tool parser, and reports the engine's "stop" */
        r->finish = named && s->o->flavor == GP_FLAVOR_VLLM ? GP_FINISH_STOP : GP_FINISH_TOOL_CALLS;
        r->reasoning_n = 0;
    }
    if (rf) {
        srv_json_plan(s, r, rf);
        json_decref(rf);
    }
    r->fault = srv_pick_fault(s, &r->rng);
    r->fault_at = 1 + (uint32_t)(gp_splitmix64(&r->rng) % r->out_tokens);
    /* drawn last and only when asked, so the other draws stay as they were */
    r->miscount = s->o->miscount_rate > 0 && gp_splitmix64_double(&r->rng) < s->o->miscount_rate;
    if (srv_fault_upfront(s, c))
        return;
    /* the cache is looked up by requests that run, as vLLM's scheduler does */
    r->cached_tokens = 0;
    if (s->o->prefix_cache)
        r->cached_tokens = srv_pcache_lookup(&s->pcache, s->pcache.ids.v, s->pcache.ids.n);
    /* vLLM reports usage.prompt_tokens_details only when started with
     * --enable-prompt-tokens-details and only for a hit ("if
     * self.enable_prompt_tokens_details and num_cached_tokens", chat
     * serving at commit 99c5632f): a miss streams no field and a body says null */
    if (s->o->flavor == GP_FLAVOR_VLLM ? s->o->prompt_tokens_details && r->cached_tokens > 0 : s->o->prefix_cache)
        r->rd.cached_tokens = (int32_t)r->cached_tokens;
    r->status = 200;
    if (srv_fault_hold(s, c))
        return;
    srv_begin_generation(s, c);
}
