/* serve/server_fault.c — fault injection for `genperf serve`: each request
 * draws at most one fault from its seeded stream (--fault-rate-*, see
 * docs/serve.md) and the --max-queued overload answer. Faults that fail a
 * request before generation are answered here at once; mid-stream faults
 * fire when their token (r->fault_at) is due; the torn body and malformed
 * chunk are emitted by server_gen.c in place of the normal bytes. */
#include "serve/srv_gen.h"
#include "core/rng.h"

#include <stddef.h>

int srv_pick_fault(struct srv *s, uint64_t *rng)
{
    const struct gp_serve_opts *o = s->o;
    double rates[F_COUNT] = {0, o->rate_429, o->rate_500, o->rate_503, o->rate_stream_error, o->rate_reset,
                             o->rate_stall, o->rate_malformed, o->rate_slow_headers};
    double tot = 0;
    for (int i = 1; i < F_COUNT; i++)
        tot += rates[i];
    if (tot <= 0)
        return F_NONE;
    double u = gp_splitmix64_double(rng), acc = 0;
    for (int i = 1; i < F_COUNT; i++) {
        acc += rates[i];
        if (u < acc)
            return i;
    }
    return F_NONE;
}

void srv_sglang_stream_error(struct srv *s, struct conn *c, int code, const char *type, const char *msg)
{
    struct sreq *r = &c->r;
    r->status = 200;
    r->headers_sent = 1;
    srv_put_headers(s, c, 200, "text/event-stream; charset=utf-8", -1, NULL);
    gp_render_stream_error(&r->rd, &s->scratch, code, type, msg);
    srv_put_chunk(s, c);
    srv_stamp(r, 'E');
    if (r->endpoint != GP_EP_ANTHROPIC) /* an Anthropic stream ends at its error event */
        gp_render_done(&s->scratch);
    srv_put_chunk(s, c);
    srv_stamp(r, 'D');
    srv_end_stream(s, c);
}

int srv_fault_upfront(struct srv *s, struct conn *c)
{
    const struct gp_serve_opts *o = s->o;
    struct sreq *r = &c->r;
    /* --max-queued: a real overload, not a drawn fault (vLLM --max-num-queued-reqs
     * answers 503 before streaming; SGLang aborts with an in-stream 503) */
    int overloaded = s->mode == MODE_BATCH && o->max_queued && s->sim.waiting.n >= o->max_queued;
    if (overloaded)
        r->fault = F_NONE;
    if (!(overloaded || r->fault == F_429 || r->fault == F_500 || r->fault == F_503))
        return 0;
    int st = overloaded ? 503 : r->fault == F_429 ? 429 : r->fault == F_500 ? 500 : 503;
    r->status = st;
    if (st == 503 && o->flavor == GP_FLAVOR_SGLANG && r->stream) {
        /* SGLang's queue-full abort */
        srv_sglang_stream_error(s, c, 503, "SERVICE_UNAVAILABLE", "The request queue is full.");
    } else {
        const char *type = st == 429 ? "TooManyRequestsError" : st == 500 ? "InternalServerError"
                                                                            : "ServiceUnavailableError";
        const char *m = overloaded  ? "The request queue is full (genperf serve --max-queued)"
                        : st == 429 ? "Too many requests (injected by genperf serve)"
                        : st == 500 ? "Internal server error (injected by genperf serve)"
                                    : "The server is overloaded (injected by genperf serve)";
        srv_send_json_error(s, c, st, type, m, NULL);
        srv_stamp(r, 'E');
    }
    srv_req_finish(s, c, overloaded ? "overloaded" : "fault");
    return 1;
}

int srv_fault_hold(struct srv *s, struct conn *c)
{
    struct sreq *r = &c->r;
    /* --slow-headers-ms alone delays every response; with a rate, only the drawn ones */
    if (!(s->slow_headers_ns && (r->fault == F_SLOW_HEADERS || s->o->rate_slow_headers <= 0)))
        return 0;
    r->state = R_HOLD;
    srv_set_timer(s, c, r->t_request_ns + s->slow_headers_ns, T_HOLD);
    return 1;
}

/* --fault-rate-stream-error: a 500 body before anything was sent, else an
 * in-stream error event (TRT-LLM: the stream just dies). */
static int stream_error(struct srv *s, struct conn *c)
{
    struct sreq *r = &c->r;
    r->fault_done = 1;
    if (!r->stream) {
        r->state = R_DONE;
        r->status = 500;
        srv_send_json_error(s, c, 500, "InternalServerError", "Internal server error", NULL);
        srv_stamp(r, 'E');
        srv_req_finish(s, c, "error");
        return 1;
    }
    srv_start_stream_headers(s, c);
    if (s->o->flavor == GP_FLAVOR_TRTLLM) {
        /* TRT-LLM re-raises: the ASGI response dies without its terminator */
        srv_conn_flush(s, c);
        srv_conn_abort(s, c, "stream_error");
        return 1;
    }
    gp_render_stream_error(&r->rd, &s->scratch, 500, "InternalServerError",
                           "Internal server error (injected by genperf serve --fault-rate-stream-error)");
    srv_put_chunk(s, c);
    srv_stamp(r, 'E');
    if (r->endpoint != GP_EP_ANTHROPIC) /* an Anthropic stream ends at its error event */
        gp_render_done(&s->scratch);
    srv_put_chunk(s, c);
    srv_stamp(r, 'D');
    srv_end_stream(s, c);
    r->state = R_DONE;
    srv_req_finish(s, c, "stream_error");
    return 1;
}

int srv_fault_midstream(struct srv *s, struct conn *c, uint64_t now)
{
    struct sreq *r = &c->r;
    if (r->fault == F_RESET) {
        r->fault_done = 1;
        r->status = 0;
        c->rst = 1;
        srv_conn_flush(s, c);
        srv_conn_abort(s, c, "reset");
        return 1;
    }
    if (r->fault == F_STREAM_ERROR)
        return stream_error(s, c);
    if (r->fault == F_STALL) {
        r->fault_done = 1;
        if (s->mode == MODE_BATCH) {
            gp_sim_remove(&s->sim, &r->sq);
            r->active = 0;
        }
        r->t_next_ns = now + s->stall_ns;
        if (s->mode == MODE_BATCH)
            srv_set_timer(s, c, now + s->stall_ns, T_STALL);
        else
            srv_arm_next(s, c);
        return 0;
    }
    return -1;
}
