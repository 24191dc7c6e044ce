/* serve/render.c — see render.h. The literal fragments below are the shapes
 * the spec quotes from each server's serializer; keep them byte-exact, the
 * client's parser tests depend on these quirks (TRT-LLM's "} \n\n", SGLang's
 * separate finish chunk, vLLM's explicit nulls). */
#include "serve/render.h"
#include "core/error.h"

#include <stdio.h>
#include <string.h>

#define APP(b, lit) gp_buf_append((b), (lit), sizeof(lit) - 1)

int gp_flavor_parse(const char *s)
{
    if (!strcmp(s, "vllm")) return GP_FLAVOR_VLLM;
    if (!strcmp(s, "sglang")) return GP_FLAVOR_SGLANG;
    if (!strcmp(s, "trtllm") || !strcmp(s, "tensorrt-llm") || !strcmp(s, "trt-llm")) return GP_FLAVOR_TRTLLM;
    return -1;
}

const char *gp_flavor_name(int f)
{
    return f == GP_FLAVOR_SGLANG ? "sglang" : f == GP_FLAVOR_TRTLLM ? "trtllm" : "vllm";
}

int gp_render_init(struct gp_render *r, int flavor, int endpoint, const char *id, const char *model,
                   long long created, uint32_t prompt_tokens, int continuous_usage)
{
    r->flavor = flavor;
    r->endpoint = endpoint;
    r->continuous_usage = continuous_usage;
    r->prompt_tokens = prompt_tokens;
    r->id = id;
    r->model = model;
    r->created = created;
    r->seq = r->item = r->n_items = 0;
    r->tool_call = 0;
    r->cached_tokens = -1;
    if (!r->eos_id)
        r->eos_id = 2;
    if (endpoint == GP_EP_ANTHROPIC)
        return gp_render_anth_init(r, id, model);
    gp_buf_reset(&r->head);
    int rc = APP(&r->head, "{\"id\":");
    rc |= gp_buf_json_str(&r->head, id, strlen(id));
    if (endpoint == GP_EP_CHAT)
        rc |= APP(&r->head, ",\"object\":\"chat.completion.chunk\",\"created\":");
    else
        rc |= APP(&r->head, ",\"object\":\"text_completion\",\"created\":");
    rc |= gp_buf_u64(&r->head, (uint64_t)(created < 0 ? 0 : created));
    rc |= APP(&r->head, ",\"model\":");
    rc |= gp_buf_json_str(&r->head, model, strlen(model));
    return rc ? -GP_ENOMEM : 0;
}

void gp_render_free(struct gp_render *r) { gp_buf_free(&r->head); }

static int usage_obj(struct gp_buf *out, uint32_t prompt, uint32_t completion)
{
    int rc = APP(out, "{\"prompt_tokens\":");
    rc |= gp_buf_u64(out, prompt);
    rc |= APP(out, ",\"total_tokens\":");
    rc |= gp_buf_u64(out, (uint64_t)prompt + completion);
    rc |= APP(out, ",\"completion_tokens\":");
    rc |= gp_buf_u64(out, completion);
    rc |= APP(out, "}");
    return rc;
}

/* Closes a chunk object: optional continuous usage, then "}\n\n" (TRT-LLM's
 * role chunk adds its famous trailing space before the blank line). */
static int close_chunk(struct gp_render *r, struct gp_buf *out, uint32_t so_far, int trailing_space)
{
    int rc = 0;
    if (r->continuous_usage) {
        rc |= APP(out, ",\"usage\":");
        rc |= usage_obj(out, r->prompt_tokens, so_far);
    }
    rc |= trailing_space ? APP(out, "} \n\n") : APP(out, "}\n\n");
    return rc ? -GP_ENOMEM : 0;
}

static int open_chunk(struct gp_render *r, struct gp_buf *out)
{
    int rc = APP(out, "data: ");
    rc |= gp_buf_append(out, r->head.data, r->head.len);
    rc |= APP(out, ",\"choices\":[{\"index\":0,");
    return rc;
}

void gp_render_tool_call(struct gp_render *r, const char *name, const char *id)
{
    r->tool_call = 1;
    snprintf(r->tool_name, sizeof r->tool_name, "%s", name);
    snprintf(r->tool_id, sizeof r->tool_id, "%s", id);
}

/* {"index":0,"id":..,"type":"function","function":{"name":..,"arguments":"<esc>"}} */
static int tool_call_obj(struct gp_render *r, struct gp_buf *out, const char *esc, size_t n)
{
    int rc = APP(out, "{\"index\":0,\"id\":");
    rc |= gp_buf_json_str(out, r->tool_id, strlen(r->tool_id));
    rc |= APP(out, ",\"type\":\"function\",\"function\":{\"name\":");
    rc |= gp_buf_json_str(out, r->tool_name, strlen(r->tool_name));
    rc |= APP(out, ",\"arguments\":\"");
    rc |= gp_buf_append(out, esc, n);
    rc |= APP(out, "\"}}");
    return rc;
}

int gp_render_role(struct gp_render *r, struct gp_buf *out)
{
    if (r->endpoint == GP_EP_ANTHROPIC)
        return gp_render_anth_start(r, out);
    if (r->endpoint != GP_EP_CHAT)
        return 0;
    int rc = open_chunk(r, out);
    if (r->tool_call) {
        rc |= APP(out, "\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[");
        rc |= tool_call_obj(r, out, "", 0);
        rc |= APP(out, "]},\"logprobs\":null,\"finish_reason\":null}]");
        if (rc)
            return -GP_ENOMEM;
        return close_chunk(r, out, 0, 0);
    }
    switch (r->flavor) {
    case GP_FLAVOR_VLLM:
        rc |= APP(out, "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]");
        break;
    case GP_FLAVOR_SGLANG:
        rc |= APP(out, "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null,\"matched_stop\":null}]");
        break;
    default:
        rc |= APP(out, "\"delta\":{\"role\":\"assistant\"}}]");
        break;
    }
    if (rc)
        return -GP_ENOMEM;
    return close_chunk(r, out, 0, r->flavor == GP_FLAVOR_TRTLLM);
}

static const char *finish_str(int finish)
{
    return finish == GP_FINISH_STOP ? "\"stop\"" : finish == GP_FINISH_TOOL_CALLS ? "\"tool_calls\"" : "\"length\"";
}

static int matched_stop(struct gp_render *r, struct gp_buf *out, int finish)
{
    int rc = APP(out, ",\"matched_stop\":");
    if (finish == GP_FINISH_STOP)
        rc |= gp_buf_u64(out, r->eos_id);
    else
        rc |= APP(out, "null");
    return rc;
}

int gp_render_separate_finish(const struct gp_render *r)
{
    return r->flavor == GP_FLAVOR_SGLANG && r->endpoint == GP_EP_CHAT;
}

int gp_render_token(struct gp_render *r, struct gp_buf *out, const char *esc, size_t n, int reasoning,
                    int finish, uint32_t so_far)
{
    if (r->endpoint == GP_EP_ANTHROPIC)
        return gp_render_anth_token(r, out, esc, n, reasoning);
    if (gp_render_separate_finish(r))
        finish = GP_FINISH_NONE;
    int rc = open_chunk(r, out);
    if (r->endpoint == GP_EP_COMPLETIONS) {
        rc |= APP(out, "\"text\":\"");
        rc |= gp_buf_append(out, esc, n);
        rc |= APP(out, "\"");
        switch (r->flavor) {
        case GP_FLAVOR_VLLM:
            rc |= APP(out, ",\"logprobs\":null,\"finish_reason\":");
            rc |= finish ? gp_buf_puts(out, finish_str(finish)) : APP(out, "null");
            rc |= APP(out, ",\"stop_reason\":null}]");
            if (!r->continuous_usage)
                rc |= APP(out, ",\"usage\":null");
            break;
        case GP_FLAVOR_SGLANG:
            rc |= APP(out, ",\"logprobs\":null,\"finish_reason\":");
            rc |= finish ? gp_buf_puts(out, finish_str(finish)) : APP(out, "null");
            rc |= matched_stop(r, out, finish);
            rc |= APP(out, "}]");
            break;
        default:
            if (finish) {
                rc |= APP(out, ",\"finish_reason\":");
                rc |= gp_buf_puts(out, finish_str(finish));
            }
            rc |= APP(out, "}]");
            break;
        }
        if (rc)
            return -GP_ENOMEM;
        return close_chunk(r, out, so_far, 0);
    }
    if (r->tool_call) {
        /* an arguments fragment: OpenAI's shape, index only after the head */
        rc |= APP(out, "\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"");
        rc |= gp_buf_append(out, esc, n);
        rc |= APP(out, "\"}}]},\"logprobs\":null,\"finish_reason\":");
        rc |= finish ? gp_buf_puts(out, finish_str(finish)) : APP(out, "null");
        rc |= APP(out, "}]");
        if (rc)
            return -GP_ENOMEM;
        return close_chunk(r, out, so_far, 0);
    }
    switch (r->flavor) {
    case GP_FLAVOR_VLLM:
        rc |= reasoning ? APP(out, "\"delta\":{\"reasoning\":\"") : APP(out, "\"delta\":{\"content\":\"");
        rc |= gp_buf_append(out, esc, n);
        rc |= APP(out, "\"},\"logprobs\":null,\"finish_reason\":");
        if (finish) {
            rc |= gp_buf_puts(out, finish_str(finish));
            rc |= APP(out, ",\"stop_reason\":null}]");
        } else {
            rc |= APP(out, "null}]");
        }
        break;
    case GP_FLAVOR_SGLANG:
        rc |= reasoning ? APP(out, "\"delta\":{\"reasoning_content\":\"") : APP(out, "\"delta\":{\"content\":\"");
        rc |= gp_buf_append(out, esc, n);
        rc |= APP(out, "\"},\"logprobs\":null,\"finish_reason\":null,\"matched_stop\":null}]");
        break;
    default:
        if (reasoning) {
            rc |= APP(out, "\"delta\":{\"content\":\"\",\"reasoning_content\":\"");
            rc |= gp_buf_append(out, esc, n);
            rc |= APP(out, "\"}");
        } else {
            rc |= APP(out, "\"delta\":{\"content\":\"");
            rc |= gp_buf_append(out, esc, n);
            rc |= APP(out, "\",\"reasoning_content\":\"\"}");
        }
        if (finish) {
            rc |= APP(out, ",\"finish_reason\":");
            rc |= gp_buf_puts(out, finish_str(finish));
        }
        rc |= APP(out, ",\"avg_decoded_tokens_per_iter\":1.0}]");
        break;
    }
    if (rc)
        return -GP_ENOMEM;
    return close_chunk(r, out, so_far, 0);
}

int gp_render_finish(struct gp_render *r, struct gp_buf *out, int finish, uint32_t so_far)
{
    if (!gp_render_separate_finish(r))
        return 0;
    int rc = open_chunk(r, out);
    rc |= APP(out, "\"delta\":{},\"logprobs\":null,\"finish_reason\":");
    rc |= gp_buf_puts(out, finish_str(finish));
    rc |= matched_stop(r, out, finish);
    rc |= APP(out, "}]");
    if (rc)
        return -GP_ENOMEM;
    return close_chunk(r, out, so_far, 0);
}

/* ,"prompt_tokens_details":... as the flavour sends it: {"cached_tokens":N}
 * with --prefix-cache (vLLM with --enable-prompt-tokens-details, SGLang
 * with --enable-cache-report), else vLLM/SGLang null and TRT-LLM 0. */
static int cached_details(const struct gp_render *r, struct gp_buf *out)
{
    if (r->cached_tokens < 0 && r->flavor != GP_FLAVOR_TRTLLM)
        return APP(out, ",\"prompt_tokens_details\":null");
    int rc = APP(out, ",\"prompt_tokens_details\":{\"cached_tokens\":");
    rc |= gp_buf_u64(out, r->cached_tokens > 0 ? (uint64_t)r->cached_tokens : 0);
    return rc | APP(out, "}");
}

int gp_render_usage(struct gp_render *r, struct gp_buf *out, uint32_t completion, uint32_t reasoning)
{
    int rc = APP(out, "data: ");
    rc |= gp_buf_append(out, r->head.data, r->head.len);
    rc |= APP(out, ",\"choices\":[],\"usage\":{\"prompt_tokens\":");
    rc |= gp_buf_u64(out, r->prompt_tokens);
    rc |= APP(out, ",\"total_tokens\":");
    rc |= gp_buf_u64(out, (uint64_t)r->prompt_tokens + completion);
    rc |= APP(out, ",\"completion_tokens\":");
    rc |= gp_buf_u64(out, completion);
    switch (r->flavor) {
    case GP_FLAVOR_VLLM:
        if (r->cached_tokens >= 0)
            rc |= cached_details(r, out);
        if (reasoning) {
            rc |= APP(out, ",\"completion_tokens_details\":{\"reasoning_tokens\":");
            rc |= gp_buf_u64(out, reasoning);
            rc |= APP(out, "}");
        }
        break;
    case GP_FLAVOR_SGLANG:
        rc |= cached_details(r, out);
        rc |= APP(out, ",\"reasoning_tokens\":");
        rc |= gp_buf_u64(out, reasoning);
        break;
    default:
        rc |= cached_details(r, out);
        break;
    }
    rc |= APP(out, "}}\n\n");
    return rc ? -GP_ENOMEM : 0;
}

/* json.dumps style (", " and ": " separators), as the servers' error events are. */
int gp_render_stream_error(struct gp_render *r, struct gp_buf *out, int code, const char *type,
                           const char *msg)
{
    if (r->endpoint == GP_EP_ANTHROPIC) /* Anthropic's error types: 529 is overloaded_error */
        return gp_render_anth_error(out, code == 503 ? "overloaded_error" : "api_error", msg);
    int rc = APP(out, "data: {\"error\": {");
    if (r->flavor == GP_FLAVOR_SGLANG)
        rc |= APP(out, "\"object\": \"error\", ");
    rc |= APP(out, "\"message\": ");
    rc |= gp_buf_json_str(out, msg, strlen(msg));
    rc |= APP(out, ", \"type\": ");
    rc |= gp_buf_json_str(out, type, strlen(type));
    rc |= APP(out, ", \"param\": null, \"code\": ");
    rc |= gp_buf_u64(out, (uint64_t)code);
    rc |= APP(out, "}}\n\n");
    return rc ? -GP_ENOMEM : 0;
}

int gp_render_done(struct gp_buf *out) { return APP(out, "data: [DONE]\n\n") ? -GP_ENOMEM : 0; }

int gp_render_malformed(struct gp_render *r, struct gp_buf *out)
{
    /* a chunk cut inside a string, as a buggy proxy or a torn write would leave it */
    if (r->endpoint == GP_EP_ANTHROPIC)
        return gp_render_anth_malformed(r, out);
    int rc = APP(out, "data: ");
    rc |= gp_buf_append(out, r->head.data, r->head.len);
    rc |= APP(out, ",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\u12\n\n");
    return rc ? -GP_ENOMEM : 0;
}

static int str_or_null(struct gp_buf *out, const char *esc, size_t n, int null_if_empty)
{
    if (!n && null_if_empty)
        return APP(out, "null");
    int rc = APP(out, "\"");
    rc |= gp_buf_append(out, esc, n);
    rc |= APP(out, "\"");
    return rc;
}

int gp_render_full(struct gp_render *r, struct gp_buf *out, const char *text, size_t text_len,
                   const char *reasoning, size_t reasoning_len, int finish, uint32_t completion,
                   uint32_t reasoning_tokens)
{
    if (r->endpoint == GP_EP_ANTHROPIC)
        return gp_render_anth_full(r, out, text, text_len, reasoning, reasoning_len, finish, completion);
    /* the head carries the ".chunk"/"text_completion" object name; rebuild the
     * non-streamed prefix from it by replacing the object field */
    const char *h = r->head.data;
    const char *obj = strstr(h, ",\"object\":");
    const char *after = obj ? strchr(obj + 10, ',') : NULL;
    int rc = 0;
    if (!obj || !after)
        return -GP_EINVAL;
    rc |= gp_buf_append(out, h, (size_t)(obj - h));
    rc |= r->endpoint == GP_EP_CHAT ? APP(out, ",\"object\":\"chat.completion\"")
                                    : APP(out, ",\"object\":\"text_completion\"");
    rc |= gp_buf_puts(out, after);
    rc |= APP(out, ",\"choices\":[{\"index\":0,");
    if (r->endpoint == GP_EP_CHAT && r->tool_call) {
        rc |= APP(out, "\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[");
        rc |= tool_call_obj(r, out, text, text_len);
        rc |= APP(out, "]},\"logprobs\":null,\"finish_reason\":");
        rc |= gp_buf_puts(out, finish_str(finish));
        rc |= APP(out, "}],\"usage\":");
    } else if (r->endpoint == GP_EP_CHAT) {
        switch (r->flavor) {
        case GP_FLAVOR_VLLM:
            rc |= APP(out, "\"message\":{\"role\":\"assistant\",\"content\":");
            rc |= str_or_null(out, text, text_len, 0);
            rc |= APP(out, ",\"refusal\":null,\"annotations\":null,\"audio\":null,\"function_call\":null,\"tool_calls\":[],\"reasoning\":");
            rc |= str_or_null(out, reasoning, reasoning_len, 1);
            rc |= APP(out, "},\"logprobs\":null,\"finish_reason\":");
            rc |= gp_buf_puts(out, finish_str(finish));
            rc |= APP(out, ",\"stop_reason\":null,\"token_ids\":null}],\"service_tier\":null,\"system_fingerprint\":null,\"usage\":");
            break;
        case GP_FLAVOR_SGLANG:
            rc |= APP(out, "\"message\":{\"role\":\"assistant\",\"content\":");
            rc |= str_or_null(out, text, text_len, 0);
            rc |= APP(out, ",\"reasoning_content\":");
            rc |= str_or_null(out, reasoning, reasoning_len, 1);
            rc |= APP(out, ",\"tool_calls\":null},\"logprobs\":null,\"finish_reason\":");
            rc |= gp_buf_puts(out, finish_str(finish));
            rc |= matched_stop(r, out, finish);
            rc |= APP(out, "}],\"usage\":");
            break;
        default:
            rc |= APP(out, "\"message\":{\"role\":\"assistant\",\"content\":");
            rc |= str_or_null(out, text, text_len, 0);
            rc |= APP(out, ",\"reasoning_content\":");
            rc |= str_or_null(out, reasoning, reasoning_len, 0);
            rc |= APP(out, ",\"reasoning\":null,\"tool_calls\":[]},\"logprobs\":null,\"finish_reason\":");
            rc |= gp_buf_puts(out, finish_str(finish));
            rc |= APP(out, ",\"stop_reason\":null,\"mm_embedding_handle\":null,\"disaggregated_params\":null,\"avg_decoded_tokens_per_iter\":1.0}],\"usage\":");
            break;
        }
    } else {
        /* completions: reasoning text, if any, is part of the text */
        rc |= APP(out, "\"text\":\"");
        rc |= gp_buf_append(out, reasoning, reasoning_len);
        rc |= gp_buf_append(out, text, text_len);
        rc |= APP(out, "\",\"logprobs\":null,\"finish_reason\":");
        rc |= gp_buf_puts(out, finish_str(finish));
        if (r->flavor == GP_FLAVOR_SGLANG)
            rc |= matched_stop(r, out, finish);
        else
            rc |= APP(out, ",\"stop_reason\":null");
        rc |= APP(out, "}],\"usage\":");
    }
    rc |= APP(out, "{\"prompt_tokens\":");
    rc |= gp_buf_u64(out, r->prompt_tokens);
    rc |= APP(out, ",\"total_tokens\":");
    rc |= gp_buf_u64(out, (uint64_t)r->prompt_tokens + completion);
    rc |= APP(out, ",\"completion_tokens\":");
    rc |= gp_buf_u64(out, completion);
    switch (r->flavor) {
    case GP_FLAVOR_VLLM:
        rc |= cached_details(r, out);
        if (reasoning_tokens) {
            rc |= APP(out, ",\"completion_tokens_details\":{\"reasoning_tokens\":");
            rc |= gp_buf_u64(out, reasoning_tokens);
            rc |= APP(out, "}");
        }
        rc |= APP(out, "},\"prompt_logprobs\":null,\"prompt_token_ids\":null,\"kv_transfer_params\":null}");
        break;
    case GP_FLAVOR_SGLANG:
        rc |= cached_details(r, out);
        rc |= APP(out, ",\"reasoning_tokens\":");
        rc |= gp_buf_u64(out, reasoning_tokens);
        rc |= APP(out, "},\"metadata\":null}");
        break;
    default:
        rc |= cached_details(r, out);
        rc |= APP(out, "},\"prompt_token_ids\":null}");
        break;
    }
    return rc ? -GP_ENOMEM : 0;
}

int gp_render_error_body(int flavor, struct gp_buf *out, int status, const char *type, const char *msg,
                         const char *param)
{
    int rc = 0;
    if (flavor == GP_FLAVOR_VLLM)
        rc |= APP(out, "{\"error\":{\"message\":");
    else
        rc |= APP(out, "{\"object\":\"error\",\"message\":");
    rc |= gp_buf_json_str(out, msg, strlen(msg));
    rc |= APP(out, ",\"type\":");
    rc |= gp_buf_json_str(out, type, strlen(type));
    rc |= APP(out, ",\"param\":");
    rc |= param ? gp_buf_json_str(out, param, strlen(param)) : APP(out, "null");
    rc |= APP(out, ",\"code\":");
    rc |= gp_buf_u64(out, (uint64_t)status);
    rc |= flavor == GP_FLAVOR_VLLM ? APP(out, "}}") : APP(out, "}");
    return rc ? -GP_ENOMEM : 0;
}
