/* serve/server_log.c — the request lifecycle of `genperf serve` (finish,
 * abort, reset between pipelined requests) and the --timing-log it writes:
 * one JSON line per request with a stamp per SSE event (docs/serve.md;
 * the stamps are taken by the IO layer's flush, serve/srv_io.h). */
#include "serve/srv_resp.h"
#include "core/clock.h"
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const fault_names[] = {NULL, "429", "500", "503", "stream_error", "reset", "stall", "malformed",
                                          "slow_headers"};

const char *srv_fault_name(int fault) { return fault > 0 && fault < F_COUNT ? fault_names[fault] : NULL; }

int srv_log_open(struct srv *s, struct gp_error *err)
{
    if (!s->o->timing_log)
        return 0;
    int rc = gp_atomic_open(&s->logf, s->o->timing_log, err);
    if (!rc)
        s->log_open = 1;
    return rc;
}

int srv_log_close(struct srv *s, struct gp_error *err)
{
    int rc = 0;
    if (s->log_open) {
        if (s->logbuf.len)
            fwrite(s->logbuf.data, 1, s->logbuf.len, s->logf.fp);
        struct gp_error e2;
        if (gp_atomic_commit(&s->logf, &e2))
            rc = gp_err(err, e2.code, "%s", e2.msg);
    }
    gp_buf_free(&s->logbuf);
    return rc;
}



static void log_request(struct srv *s, struct conn *c, const char *outcome)
{
    struct sreq *r = &c->r;
    if (!s->log_open)
        return;
    struct gp_buf *b = &s->logbuf;
    srv_stamp_pending(r, gp_now_ns());
    gp_buf_printf(b, "{\"seq\":%llu,\"id\":", (unsigned long long)r->seq);
    gp_buf_json_str(b, r->id, strlen(r->id));
    gp_buf_puts(b, ",\"model\":");
    gp_buf_json_str(b, r->model, strlen(r->model));
    gp_buf_printf(b, ",\"endpoint\":\"%s\",\"stream\":%s,\"prompt_head\":",
                  r->endpoint == GP_EP_CHAT          ? "chat"
                  : r->endpoint == GP_EP_ANTHROPIC   ? "anthropic_messages"
                  : r->endpoint == GP_EP_EMBEDDINGS  ? "embeddings"
                  : r->endpoint == GP_EP_RANKING     ? "ranking"
                  : r->endpoint == GP_EP_RESPONSES   ? "responses"
                                                     : "completions",
                  r->stream ? "true" : "false");
    gp_buf_json_str(b, r->prompt_head, strlen(r->prompt_head));
    gp_buf_printf(b, ",\"messages\":%u,\"assistant_head\":", r->n_messages);
    gp_buf_json_str(b, r->assistant_head, strlen(r->assistant_head));
    /* already JSON-escaped token texts, whole tokens only */
    gp_buf_printf(b, ",\"reply_head\":\"%s\"", r->reply_head);
    gp_buf_printf(b, ",\"t_accept_ns\":%llu,\"t_request_ns\":%llu,\"t_first_token_ns\":%llu,\"chunks_ns\":[",
                  (unsigned long long)c->t_accept_ns, (unsigned long long)r->t_request_ns,
                  (unsigned long long)r->t_first_ns);
    uint32_t content = 0;
    for (uint32_t i = 0; i < r->nts; i++) {
        if (i)
            gp_buf_putc(b, ',');
        gp_buf_u64(b, r->ts[i]);
        if (i < r->kinds.len && r->kinds.data[i] == 'C')
            content++;
    }
    gp_buf_puts(b, "],\"kinds\":");
    gp_buf_json_str(b, r->kinds.data ? r->kinds.data : "", r->kinds.len);
    gp_buf_printf(b, ",\"content_chunks\":%u,\"completion_tokens\":%u,\"prompt_tokens\":%u,\"status\":%d,"
                  "\"finish_reason\":%s,\"outcome\":\"%s\",\"fault\":",
                  content, r->generated + r->json_extra, r->prompt_tokens, r->status,
                  r->state == R_NONE || !r->generated ? "null"
                  : r->finish == GP_FINISH_STOP     ? "\"stop\""
                  : r->finish == GP_FINISH_TOOL_CALLS ? "\"tool_calls\""
                                                    : "\"length\"",
                  outcome);
    if (r->fault)
        gp_buf_printf(b, "\"%s\"", srv_fault_name(r->fault));
    else
        gp_buf_puts(b, "null");
    /* only on the answers of issue 31 item 3, so other lines keep their bytes */
    if (r->rd.tool_call) {
        gp_buf_puts(b, ",\"tool_call\":");
        gp_buf_json_str(b, r->rd.tool_name, strlen(r->rd.tool_name));
    }
    if (r->json_mode)
        gp_buf_puts(b, r->json_mode == 2 ? ",\"structured\":\"json_cut\"" : ",\"structured\":\"json\"");
    gp_buf_printf(b, ",\"usage_miscount\":%u}\n", r->miscount);
    if (b->len > (1u << 20)) {
        fwrite(b->data, 1, b->len, s->logf.fp);
        gp_buf_reset(b);
    }
}

static void req_reset(struct sreq *r)
{
    r->state = R_NONE;
    r->nts = r->stamped = 0;
    gp_buf_reset(&r->kinds);
    gp_buf_reset(&r->text);
    gp_buf_reset(&r->rtext);
    gp_buf_reset(&r->pend);
    r->pend_n = 0;
    r->fault = 0;
    r->fault_done = 0;
    r->miscount = 0;
    r->headers_sent = 0;
    r->generated = 0;
    r->t_first_ns = r->t_last_ns = 0;
    r->id[0] = r->model[0] = r->prompt_head[0] = '\0';
    r->assistant_head[0] = r->reply_head[0] = '\0';
    r->n_messages = r->reply_head_len = 0;
}

static void deactivate(struct srv *s, struct sreq *r)
{
    if (!r->active)
        return;
    r->active = 0;
    if (s->mode == MODE_BATCH)
        gp_sim_remove(&s->sim, &r->sq);
    else if (s->running_fixed)
        s->running_fixed--;
}

/* The response is complete in c->out: log it; the ready pass then serves
 * the next pipelined request or arms the idle timer (never recursively from
 * here: the caller may still hold pointers into c->in). */
void srv_req_finish(struct srv *s, struct conn *c, const char *outcome)
{
    struct sreq *r = &c->r;
    deactivate(s, r);
    log_request(s, c, outcome);
    req_reset(r);
    srv_cancel_timer(s, c);
    if (!c->keep_alive) {
        c->close_after_write = 1;
        if (!srv_queued(c))
            srv_conn_close(s, c);
        return;
    }
    srv_mark_ready(s, c);
}

/* Closes a connection in the middle of a response (client gone, reset). */
void srv_conn_abort(struct srv *s, struct conn *c, const char *outcome)
{
    if (c->r.state) {
        deactivate(s, &c->r);
        s->succ_abort++;
        log_request(s, c, outcome);
        req_reset(&c->r);
    }
    srv_conn_close(s, c);
}
