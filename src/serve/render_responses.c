/* serve/render_responses.c — the bytes of the OpenAI Responses API (POST
 * /v1/responses) for `genperf serve`: the streamed events in the order the
 * API reference lists them (response.created, .in_progress,
 * .output_item.added, .content_part.added, .output_text.delta ...,
 * .output_text.done, .output_item.done, .completed) and the non-streamed
 * response object. Reasoning, when the server simulates it, is a
 * "reasoning" output item before the message, streamed as
 * response.reasoning_text.delta. Token text arrives JSON-escaped. */
#include "serve/render.h"
#include "core/error.h"

#include <string.h>

#define APP(b, lit) gp_buf_append((b), (lit), sizeof(lit) - 1)

/* "event: <type>\ndata: {"type":"<type>","sequence_number":N */
static int open_event(struct gp_render *r, struct gp_buf *out, const char *type)
{
    size_t n = strlen(type);
    int rc = APP(out, "event: ");
    rc |= gp_buf_append(out, type, n);
    rc |= APP(out, "\ndata: {\"type\":\"");
    rc |= gp_buf_append(out, type, n);
    rc |= APP(out, "\",\"sequence_number\":");
    rc |= gp_buf_u64(out, r->seq++);
    return rc;
}

static int item_id(struct gp_render *r, struct gp_buf *out, int reasoning)
{
    /* the response id's hex after "resp_", so each item id is unique */
    const char *tail = r->id && !strncmp(r->id, "resp_", 5) ? r->id + 5 : r->id ? r->id : "";
    int rc = reasoning ? APP(out, "\"rs_") : APP(out, "\"msg_");
    rc |= gp_buf_append(out, tail, strlen(tail));
    rc |= APP(out, "\"");
    return rc;
}

static int where(struct gp_render *r, struct gp_buf *out, int reasoning)
{
    int rc = APP(out, ",\"item_id\":");
    rc |= item_id(r, out, reasoning);
    rc |= APP(out, ",\"output_index\":");
    rc |= gp_buf_u64(out, r->n_items ? r->n_items - 1 : 0);
    rc |= APP(out, ",\"content_index\":0");
    return rc;
}

/* {"type":"output_text","text":"..","annotations":[]} / reasoning_text */
static int part(struct gp_buf *out, int reasoning, const char *t, size_t n)
{
    int rc = reasoning ? APP(out, "{\"type\":\"reasoning_text\",\"text\":\"") : APP(out, "{\"type\":\"output_text\",\"text\":\"");
    rc |= gp_buf_append(out, t, n);
    rc |= reasoning ? APP(out, "\"}") : APP(out, "\",\"annotations\":[]}");
    return rc;
}

static int item(struct gp_render *r, struct gp_buf *out, int reasoning, const char *t, size_t n, int done)
{
    int rc = APP(out, "{\"id\":");
    rc |= item_id(r, out, reasoning);
    rc |= reasoning ? APP(out, ",\"type\":\"reasoning\",\"summary\":[],\"content\":[")
                    : APP(out, ",\"type\":\"message\",\"role\":\"assistant\",\"content\":[");
    if (done)
        rc |= part(out, reasoning, t, n);
    rc |= done ? APP(out, "],\"status\":\"completed\"}") : APP(out, "],\"status\":\"in_progress\"}");
    return rc;
}

static int open_item(struct gp_render *r, struct gp_buf *out, int reasoning)
{
    r->item = reasoning ? 1 : 2;
    r->n_items++;
    int rc = open_event(r, out, "response.output_item.added");
    rc |= APP(out, ",\"output_index\":");
    rc |= gp_buf_u64(out, r->n_items - 1);
    rc |= APP(out, ",\"item\":");
    rc |= item(r, out, reasoning, "", 0, 0);
    rc |= APP(out, "}\n\n");
    rc |= open_event(r, out, "response.content_part.added");
    rc |= where(r, out, reasoning);
    rc |= APP(out, ",\"part\":");
    rc |= part(out, reasoning, "", 0);
    rc |= APP(out, "}\n\n");
    return rc;
}

/* .output_text.done (or .reasoning_text.done) with the whole text, then
 * .output_item.done with the finished item */
static int close_item(struct gp_render *r, struct gp_buf *out, const char *t, size_t n)
{
    int reasoning = r->item == 1;
    int rc = open_event(r, out, reasoning ? "response.reasoning_text.done" : "response.output_text.done");
    rc |= where(r, out, reasoning);
    rc |= APP(out, ",\"text\":\"");
    rc |= gp_buf_append(out, t, n);
    rc |= APP(out, "\"}\n\n");
    rc |= open_event(r, out, "response.output_item.done");
    rc |= APP(out, ",\"output_index\":");
    rc |= gp_buf_u64(out, r->n_items - 1);
    rc |= APP(out, ",\"item\":");
    rc |= item(r, out, reasoning, t, n, 1);
    rc |= APP(out, "}\n\n");
    r->item = 0;
    return rc;
}

/* The response object: status, output items, usage (NULL-free when done). */
static int response(struct gp_render *r, struct gp_buf *out, const char *status, int finish, const char *text,
                    size_t tlen, const char *rtext, size_t rlen, int done, uint32_t completion, uint32_t rtok)
{
    int rc = APP(out, "{\"id\":");
    rc |= gp_buf_json_str(out, r->id ? r->id : "", r->id ? strlen(r->id) : 0);
    rc |= APP(out, ",\"object\":\"response\",\"created_at\":");
    rc |= gp_buf_u64(out, (uint64_t)(r->created < 0 ? 0 : r->created));
    rc |= APP(out, ",\"status\":\"");
    rc |= gp_buf_append(out, status, strlen(status));
    rc |= APP(out, "\",\"error\":null,\"incomplete_details\":");
    rc |= done && finish == GP_FINISH_LENGTH ? APP(out, "{\"reason\":\"max_output_tokens\"}") : APP(out, "null");
    rc |= APP(out, ",\"model\":");
    rc |= gp_buf_json_str(out, r->model ? r->model : "", r->model ? strlen(r->model) : 0);
    rc |= APP(out, ",\"output\":[");
    if (done && rlen) {
        rc |= item(r, out, 1, rtext, rlen, 1);
        rc |= APP(out, ",");
    }
    if (done)
        rc |= item(r, out, 0, text, tlen, 1);
    rc |= APP(out, "],\"usage\":");
    if (!done)
        return rc | APP(out, "null}");
    rc |= APP(out, "{\"input_tokens\":");
    rc |= gp_buf_u64(out, r->prompt_tokens);
    rc |= APP(out, ",\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":");
    rc |= gp_buf_u64(out, completion);
    rc |= APP(out, ",\"output_tokens_details\":{\"reasoning_tokens\":");
    rc |= gp_buf_u64(out, rtok);
    rc |= APP(out, "},\"total_tokens\":");
    rc |= gp_buf_u64(out, (uint64_t)r->prompt_tokens + completion);
    rc |= APP(out, "}}");
    return rc;
}

int gp_render_resp_open(struct gp_render *r, struct gp_buf *out)
{
    int rc = 0;
    static const char *const ev[] = {"response.created", "response.in_progress"};
    for (int i = 0; i < 2; i++) {
        rc |= open_event(r, out, ev[i]);
        rc |= APP(out, ",\"response\":");
        rc |= response(r, out, "in_progress", GP_FINISH_NONE, "", 0, "", 0, 0, 0, 0);
        rc |= APP(out, "}\n\n");
    }
    return rc ? -GP_ENOMEM : 0;
}

int gp_render_resp_delta(struct gp_render *r, struct gp_buf *out, const char *esc, size_t n, int reasoning,
                         const char *rtext, size_t rlen)
{
    int rc = 0;
    if (r->item != (reasoning ? 1u : 2u)) {
        if (r->item == 1)
            rc |= close_item(r, out, rtext, rlen);
        rc |= open_item(r, out, reasoning);
    }
    rc |= open_event(r, out, reasoning ? "response.reasoning_text.delta" : "response.output_text.delta");
    rc |= where(r, out, reasoning);
    rc |= APP(out, ",\"delta\":\"");
    rc |= gp_buf_append(out, esc, n);
    rc |= reasoning ? APP(out, "\"}\n\n") : APP(out, "\",\"logprobs\":[]}\n\n");
    return rc ? -GP_ENOMEM : 0;
}

int gp_render_resp_end(struct gp_render *r, struct gp_buf *out, const char *text, size_t tlen, const char *rtext,
                       size_t rlen, int finish, uint32_t completion, uint32_t reasoning_tokens)
{
    int rc = 0;
    if (r->item)
        rc |= r->item == 1 ? close_item(r, out, rtext, rlen) : close_item(r, out, text, tlen);
    /* vLLM's shape: response.completed whatever the status (the API also
     * names a response.incomplete event; the client takes either) */
    rc |= open_event(r, out, "response.completed");
    rc |= APP(out, ",\"response\":");
    rc |= response(r, out, finish == GP_FINISH_LENGTH ? "incomplete" : "completed", finish, text, tlen, rtext, rlen, 1,
                   completion, reasoning_tokens);
    rc |= APP(out, "}\n\n");
    return rc ? -GP_ENOMEM : 0;
}

int gp_render_resp_full(struct gp_render *r, struct gp_buf *out, const char *text, size_t tlen, const char *rtext,
                        size_t rlen, int finish, uint32_t completion, uint32_t reasoning_tokens)
{
    int rc = response(r, out, finish == GP_FINISH_LENGTH ? "incomplete" : "completed", finish, text ? text : "",
                      tlen, rtext ? rtext : "", rlen, 1, completion, reasoning_tokens);
    return rc ? -GP_ENOMEM : 0;
}
