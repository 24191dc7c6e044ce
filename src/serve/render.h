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
enum gp_endpoint { GP_EP_CHAT = 0, GP_EP_COMPLETIONS, GP_EP_EMBEDDINGS, GP_EP_RANKING };
enum gp_finish { GP_FINISH_NONE = 0, GP_FINISH_LENGTH, GP_FINISH_STOP };

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
};

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

/* Appends the decimal digits of v (no allocation when capacity allows). */
int gp_buf_u64(struct gp_buf *b, uint64_t v);

#endif
