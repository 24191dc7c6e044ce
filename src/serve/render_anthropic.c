/* serve/render_anthropic.c — the Anthropic Messages API's wire shapes
 * (POST /v1/messages), for every flavour alike: a real vLLM/SGLang/TRT-LLM
 * serves its own OpenAI shapes, and the point here is a server genperf's
 * Anthropic client can be checked against with ground truth.
 *
 * A stream is message_start, then per content block content_block_start,
 * content_block_delta (text_delta, or thinking_delta for reasoning tokens),
 * content_block_stop; then message_delta (stop_reason and the cumulative
 * usage.output_tokens) and message_stop. Every event carries its name on an
 * `event:` line and its type again in the JSON, as Anthropic's server does.
 * Reasoning tokens come first, as one thinking block (index 0); the text
 * block follows at the next index.
 */
#include "serve/render.h"
#include "core/error.h"

#include <string.h>

#define APP(b, lit) gp_buf_append((b), (lit), sizeof(lit) - 1)

/* head for Anthropic: "id":..,"type":"message","role":"assistant","model":..
 * (without braces: message_start wraps it in "message", the full body is it) */
int gp_render_anth_init(struct gp_render *r, const char *id, const char *model)
{
    r->anth_block = 0;
    r->anth_index = -1;
    gp_buf_reset(&r->head);
    int rc = APP(&r->head, "\"id\":");
    rc |= gp_buf_json_str(&r->head, id, strlen(id));
    rc |= APP(&r->head, ",\"type\":\"message\",\"role\":\"assistant\",\"model\":");
    rc |= gp_buf_json_str(&r->head, model, strlen(model));
    return rc ? -GP_ENOMEM : 0;
}

static const char *stop_reason(int finish) { return finish == GP_FINISH_STOP ? "\"end_turn\"" : "\"max_tokens\""; }

int gp_render_anth_start(struct gp_render *r, struct gp_buf *out)
{
    int rc = APP(out, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{");
    rc |= gp_buf_append(out, r->head.data, r->head.len);
    rc |= APP(out, ",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":");
    rc |= gp_buf_u64(out, r->prompt_tokens);
    rc |= APP(out, ",\"output_tokens\":0}}}\n\n");
    /* Anthropic's API pings after message_start; vLLM's and SGLang's
     * /v1/messages never do (vllm/entrypoints/anthropic/serving.py at commit
     * 82df3f49, sglang .../anthropic/serving.py at commit 0198d48d) */
    if (r->flavor != GP_FLAVOR_VLLM && r->flavor != GP_FLAVOR_SGLANG)
        rc |= APP(out, "event: ping\ndata: {\"type\":\"ping\"}\n\n");
    return rc ? -GP_ENOMEM : 0;
}

static int block_stop(struct gp_render *r, struct gp_buf *out)
{
    if (!r->anth_block)
        return 0;
    r->anth_block = 0;
    int rc = APP(out, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":");
    rc |= gp_buf_u64(out, (uint64_t)r->anth_index);
    rc |= APP(out, "}\n\n");
    return rc;
}

int gp_render_anth_token(struct gp_render *r, struct gp_buf *out, const char *esc, size_t n, int reasoning)
{
    int want = reasoning ? 1 : 2, rc = 0;
    if (r->anth_block != want) {
        rc |= block_stop(r, out);
        r->anth_block = want;
        r->anth_index++;
        rc |= APP(out, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":");
        rc |= gp_buf_u64(out, (uint64_t)r->anth_index);
        rc |= reasoning ? APP(out, ",\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n")
                        : APP(out, ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    }
    rc |= APP(out, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":");
    rc |= gp_buf_u64(out, (uint64_t)r->anth_index);
    rc |= reasoning ? APP(out, ",\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"")
                    : APP(out, ",\"delta\":{\"type\":\"text_delta\",\"text\":\"");
    rc |= gp_buf_append(out, esc, n);
    rc |= APP(out, "\"}}\n\n");
    return rc ? -GP_ENOMEM : 0;
}

/* content_block_stop of the open block and message_delta with the usage. */
int gp_render_anth_end(struct gp_render *r, struct gp_buf *out, int finish, uint32_t completion)
{
    int rc = block_stop(r, out);
    rc |= APP(out, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":");
    rc |= gp_buf_puts(out, stop_reason(finish));
    rc |= APP(out, ",\"stop_sequence\":null},\"usage\":{\"output_tokens\":");
    rc |= gp_buf_u64(out, completion);
    rc |= APP(out, "}}\n\n");
    return rc ? -GP_ENOMEM : 0;
}

int gp_render_anth_stop(struct gp_buf *out)
{
    return APP(out, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n") ? -GP_ENOMEM : 0;
}

int gp_render_anth_error(struct gp_buf *out, const char *type, const char *msg)
{
    int rc = APP(out, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":");
    rc |= gp_buf_json_str(out, type, strlen(type));
    rc |= APP(out, ",\"message\":");
    rc |= gp_buf_json_str(out, msg, strlen(msg));
    rc |= APP(out, "}}\n\n");
    return rc ? -GP_ENOMEM : 0;
}

int gp_render_anth_malformed(struct gp_render *r, struct gp_buf *out)
{
    int rc = APP(out, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":");
    rc |= gp_buf_u64(out, (uint64_t)(r->anth_index < 0 ? 0 : r->anth_index));
    rc |= APP(out, ",\"delta\":{\"type\":\"text_delta\",\"text\":\"\n\n");
    return rc ? -GP_ENOMEM : 0;
}

int gp_render_anth_full(struct gp_render *r, struct gp_buf *out, const char *text, size_t text_len,
                        const char *reasoning, size_t reasoning_len, int finish, uint32_t completion)
{
    int rc = APP(out, "{");
    rc |= gp_buf_append(out, r->head.data, r->head.len);
    rc |= APP(out, ",\"content\":[");
    if (reasoning_len) {
        rc |= APP(out, "{\"type\":\"thinking\",\"thinking\":\"");
        rc |= gp_buf_append(out, reasoning, reasoning_len);
        rc |= APP(out, "\",\"signature\":\"\"},");
    }
    rc |= APP(out, "{\"type\":\"text\",\"text\":\"");
    rc |= gp_buf_append(out, text, text_len);
    rc |= APP(out, "\"}],\"stop_reason\":");
    rc |= gp_buf_puts(out, stop_reason(finish));
    rc |= APP(out, ",\"stop_sequence\":null,\"usage\":{\"input_tokens\":");
    rc |= gp_buf_u64(out, r->prompt_tokens);
    rc |= APP(out, ",\"output_tokens\":");
    rc |= gp_buf_u64(out, completion);
    rc |= APP(out, "}}");
    return rc ? -GP_ENOMEM : 0;
}
