/* serve/srv_resp.h — the response/lifecycle layer of `genperf serve`
 * (private to src/serve/server*.c), above the IO layer (serve/srv_io.h):
 *   server_out.c      the bytes of a response: status line and headers, HTTP
 *                     chunks, simple and JSON-error answers, a stream's start
 *                     and terminator, and the timer of its next token
 *   server_log.c      the request lifecycle (finish, abort, reset between
 *                     pipelined requests) and the --timing-log lines
 *   server_metrics.c  the /metrics histograms and exposition text
 *
 * Owns: nothing allocated but the timing log (s->logf, s->logbuf: opened by
 * srv_log_open, written and freed by srv_log_close); responses are appended
 * to c->out, which the IO layer owns and flushes.
 *
 * May call: the IO layer and serve/render.h; within the layer, server_log.c
 * and server_metrics.c call server_out.c, never the reverse. */
#ifndef GP_SERVE_SRV_RESP_H
#define GP_SERVE_SRV_RESP_H

#include "serve/srv_io.h"

/* ---- server_out.c ---------------------------------------------------------- */

/* Appends s->scratch to c->out as one HTTP chunk (or raw for HTTP/1.0) and
 * empties s->scratch. */
int srv_put_chunk(struct srv *s, struct conn *c);
/* Status line and headers; clen < 0 = chunked (or close-delimited, HTTP/1.0). */
void srv_put_headers(struct srv *s, struct conn *c, int status, const char *ctype, long long clen,
                     const char *extra);
void srv_send_simple(struct srv *s, struct conn *c, int status, const char *ctype, const char *body, size_t len);
/* The flavour's JSON error body (TRT-LLM 400 "validation": {"error": msg}). */
void srv_send_json_error(struct srv *s, struct conn *c, int status, const char *type, const char *msg,
                         const char *param);
/* A streamed response's headers (once); its terminator (last HTTP chunk, or
 * close for HTTP/1.0). */
void srv_start_stream_headers(struct srv *s, struct conn *c);
void srv_end_stream(struct srv *s, struct conn *c);
/* Arms c's timer for its next token (or an SSE keep-alive comment first). */
void srv_arm_next(struct srv *s, struct conn *c);

/* ---- server_log.c ---------------------------------------------------------- */

/* Opens --timing-log (if set); srv_log_close writes what is buffered and
 * commits the file, returning 0 or a negative code with err filled. */
int srv_log_open(struct srv *s, struct gp_error *err);
int srv_log_close(struct srv *s, struct gp_error *err);
/* "429", "stream_error", ... for the timing log; NULL for F_NONE. */
const char *srv_fault_name(int fault);
/* The response is complete in c->out: log it, reset the request, and let the
 * ready pass serve the next pipelined request (or close when not keep-alive). */
void srv_req_finish(struct srv *s, struct conn *c, const char *outcome);
/* Closes a connection in the middle of a response (client gone, reset). */
void srv_conn_abort(struct srv *s, struct conn *c, const char *outcome);

/* ---- server_metrics.c ------------------------------------------------------ */

void srv_metrics_init(struct srv *s);
void srv_hist_obs(struct hist *h, double v);
/* Counts a completed request (tokens, finish reason, end-to-end latency). */
void srv_metrics_done(struct srv *s, struct sreq *r, uint64_t now);
/* GET /metrics: Prometheus text, or TRT-LLM's JSON iteration stats. */
void srv_send_metrics(struct srv *s, struct conn *c, int iteration_json);

#endif
