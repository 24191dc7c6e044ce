/* serve/render.h — the bytes each simulated server puts on the wire: SSE
 * events for streamed chat/completions and the JSON bodies of non-streamed
 * answers and errors, per flavour (vLLM, SGLang, TensorRT-LLM), following
 * /work/shared/spec/sse-and-servers.md sections 1, 2 and 6.
 *
 * Owns: struct gp_render keeps one pre-rendered prefix per request
 * ({"id":..,"object":..,"created":..,"model":..) in r->head, so that a token
 * chunk is a handful of memcpy's (token text arrives already JSON-escaped).
 * gp_render_init fills it, gp_render_free frees it; reuse across requests
 * with gp_render_init again (the buffer's capacity is kept).
 * Every gp_render_* APPENDS one complete event ("data: ...\n\n") or body to
 * out and returns 0 or -GP_ENOMEM. HTTP chunk framing is the caller's job.
 */
#ifndef GP_SERVE_RENDER_H
#define GP_SERVE_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

enum gp_flavor { GP_FLAVOR_VLLM = 0, GP_FLAVOR_SGLANG, GP_FLAVOR_TRTLLM };
enum gp_endpoint { GP_EP_CHAT = 0, GP_EP_COMPLETIONS, GP_EP_EMBEDDINGS, GP_EP_RANKING,
                   GP_EP_RESPONSES /* the OpenAI Responses API, POST /v1/responses (render_responses.c) */,
                   GP_EP_ANTHROPIC /* the Anthropic Messages API, POST /v1/messages (render_anthropic.c) */ };
enum gp_finish { GP_FINISH_NONE = 0, GP_FINISH_LENGTH, GP_FINISH_STOP, GP_FINISH_TOOL_CALLS };

/* Parses "vllm" | "sglang" | "trtllm"; -1 if unknown. */
int gp_flavor_parse(const char *s);
const char *gp_flavor_name(int flavor);

struct gp_render {
    int flavor;            /* enum gp_flavor */
    int endpoint;          /* enum gp_endpoint */
    int continuous_usage;  /* usage object on every chunk */
    uint32_t prompt_tokens;
    int32_t cached_tokens; /* usage.prompt_tokens_details.cached_tokens; -1 = the flavour's
                            * default (--prefix-cache off: vLLM/SGLang null, TRT-LLM 0) */
    uint32_t eos_id;       /* SGLang's matched_stop on an EOS stop */
    struct gp_buf head;    /* {"id":"..","object":"..","created":N,"model":".." */
    /* the Responses API's stream (render_responses.c): id and model are
     * borrowed (the request's own arrays), seq its sequence_number, item the
     * output item open (0 none, 1 reasoning, 2 message), n_items opened */
    const char *id, *model;
    long long created;
    uint32_t seq, item, n_items;
    int anth_block;        /* Anthropic: open content block, 0 none, 1 thinking, 2 text */
    int anth_index;        /* Anthropic: index of the last block opened (-1: none yet) */
    /* chat with tools (gp_render_tool_call): the output is one tool call's
     * arguments, in every flavour in OpenAI's shape (delta.tool_calls) */
    int tool_call;
    char tool_name[64];    /* raw, escaped when rendered */
    char tool_id[40];
};

/* Makes the chat answer a call of function name (after gp_render_init):
 * the role chunk becomes the tool call's head (id, type, name, empty
 * arguments), each token an arguments fragment, the body message.tool_calls. */
void gp_render_tool_call(struct gp_render *r, const char *name, const char *id);

int gp_render_init(struct gp_render *r, int flavor, int endpoint, const char *id, const char *model,
                   long long created, uint32_t prompt_tokens, int continuous_usage);
void gp_render_free(struct gp_render *r);

/* The role chunk that opens a chat stream (nothing for completions). */
int gp_render_role(struct gp_render *r, struct gp_buf *out);
/* One token chunk. esc is the JSON-escaped text without quotes. finish !=
 * GP_FINISH_NONE puts finish_reason on this chunk where the flavour does so
 * (vLLM, TRT-LLM, and SGLang completions); so_far = completion tokens incl. this one. */
int gp_render_token(struct gp_render *r, struct gp_buf *out, const char *esc, size_t n, int reasoning,
                    int finish, uint32_t so_far);
/* 1 if the flavour sends finish_reason in its own chunk after the last token. */
int gp_render_separate_finish(const struct gp_render *r);
int gp_render_finish(struct gp_render *r, struct gp_buf *out, int finish, uint32_t so_far);
/* The closing usage chunk ("choices":[]). */
int gp_render_usage(struct gp_render *r, struct gp_buf *out, uint32_t completion, uint32_t reasoning);
/* An in-stream error event (vLLM/SGLang; TRT-LLM drops the connection instead). */
int gp_render_stream_error(struct gp_render *r, struct gp_buf *out, int code, const char *type,
                           const char *msg);
int gp_render_done(struct gp_buf *out);
/* A syntactically broken chunk, for the malformed-JSON fault. */
int gp_render_malformed(struct gp_render *r, struct gp_buf *out);

/* Non-streamed body. text/reasoning are JSON-escaped, without quotes. */
int gp_render_full(struct gp_render *r, struct gp_buf *out, const char *text, size_t text_len,
                   const char *reasoning, size_t reasoning_len, int finish, uint32_t completion,
                   uint32_t reasoning_tokens);

/* Non-streamed error body in the flavour's shape. status is the HTTP status,
 * type e.g. "BadRequestError", param may be NULL. */
int gp_render_error_body(int flavor, struct gp_buf *out, int status, const char *type, const char *msg,
                         const char *param);

/* ---- the OpenAI Responses API (render_responses.c) ----------------------
 * Every event is "event: <type>\ndata: {"type":"<type>","sequence_number":N,
 * ...}\n\n", as the API reference's streaming events; there is no [DONE].
 * text/rtext are the request's whole JSON-escaped content / reasoning so far
 * (the .done events and the final response repeat them). */
/* response.created and response.in_progress (status in_progress, no usage). */
int gp_render_resp_open(struct gp_render *r, struct gp_buf *out);
/* One chunk of tokens (esc, JSON-escaped): response.output_text.delta, or
 * response.reasoning_text.delta; an output item (reasoning, then message)
 * is opened first when this kind has none open, closing the other. */
int gp_render_resp_delta(struct gp_render *r, struct gp_buf *out, const char *esc, size_t n, int reasoning,
                         const char *rtext, size_t rlen);
/* Closes the open item, then response.completed with the whole response
 * (status completed, or incomplete with incomplete_details on a length
 * finish) and its usage (input_tokens, output_tokens incl. reasoning). */
int gp_render_resp_end(struct gp_render *r, struct gp_buf *out, const char *text, size_t tlen, const char *rtext,
                       size_t rlen, int finish, uint32_t completion, uint32_t reasoning_tokens);
/* A non-streamed answer: the response object itself. */
int gp_render_resp_full(struct gp_render *r, struct gp_buf *out, const char *text, size_t tlen, const char *rtext,
                        size_t rlen, int finish, uint32_t completion, uint32_t reasoning_tokens);
/* Anthropic Messages API (render_anthropic.c); gp_render_init, role,
 * token, finish, usage, stream_error, malformed and full hand over to these
 * when r->endpoint is GP_EP_ANTHROPIC. _end is content_block_stop and
 * message_delta (usage); _stop is message_stop (the stream's end marker in
 * place of [DONE]). */
int gp_render_anth_init(struct gp_render *r, const char *id, const char *model);
int gp_render_anth_start(struct gp_render *r, struct gp_buf *out);
int gp_render_anth_token(struct gp_render *r, struct gp_buf *out, const char *esc, size_t n, int reasoning);
int gp_render_anth_end(struct gp_render *r, struct gp_buf *out, int finish, uint32_t completion);
int gp_render_anth_stop(struct gp_buf *out);
int gp_render_anth_error(struct gp_buf *out, const char *type, const char *msg);
int gp_render_anth_malformed(struct gp_render *r, struct gp_buf *out);
int gp_render_anth_full(struct gp_render *r, struct gp_buf *out, const char *text, size_t text_len,
                        const char *reasoning, size_t reasoning_len, int finish, uint32_t completion);

/* Appends the decimal digits of v (no allocation when capacity allows).
 * Inline here, not in render.c, so render_anthropic.c and
 * render_responses.c, which render.c dispatches to, need nothing back from
 * it (no render.c <-> render_anthropic.c circle). */
static inline int gp_buf_u64(struct gp_buf *b, uint64_t v)
{
    char tmp[24];
    int i = 24;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return gp_buf_append(b, tmp + i, (size_t)(24 - i));
}

#endif
