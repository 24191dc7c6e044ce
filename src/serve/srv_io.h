/* serve/srv_io.h — the connection/IO layer of `genperf serve` (bottom
 * layer; private to src/serve/server*.c). One file: server_conn.c.
 *
 * Owns: the connection slots (struct conn is allocated by srv_on_accept and
 * freed only by srv_conn_free, which the loop's reap calls for what
 * srv_conn_close queued), the listener's accept pause, each connection's
 * one timer (gp_evloop timers: key = the connection's token, arg = slot << 32
 * | kind; srv_cancel_timer bumps nothing but the token), the dirty, ready
 * and closing lists, the flush of c->out, and the timing-log stamps a flush
 * fills in (a reserved stamp gets the time its bytes reached send()).
 *
 * May call: core/, serve/http.h, and nothing in the layers above. It never
 * decides what bytes mean: srv_on_readable only reads and says whether the
 * connection went away; the loop (server.c) then aborts the request or hands
 * the input to the request layer (srv_process_input), and a timer that fires
 * surfaces in the loop's gp_evloop_timer_due, which dispatches by kind. */
#ifndef GP_SERVE_SRV_IO_H
#define GP_SERVE_SRV_IO_H

#include "serve/server_internal.h"

/* Accepts every connection waiting (pausing the listener when out of
 * descriptors); srv_accept_resume puts the listener back in the set. */
void srv_on_accept(struct srv *s);
void srv_accept_resume(struct srv *s);
/* Reads what c's socket holds into c->in. NULL: the input is ready for the
 * request layer; else the connection is gone, and the outcome to abort its
 * request with ("closed", "client_closed", "client_reset", "input_overflow"). */
const char *srv_on_readable(struct srv *s, struct conn *c);
/* Closes c's socket and frees c and its request (the loop's reap only). */
void srv_conn_free(struct srv *s, struct conn *c);

/* Arms c's one timer (replacing any live one); closes c when out of memory. */
void srv_set_timer(struct srv *s, struct conn *c, uint64_t t, int kind);
void srv_cancel_timer(struct srv *s, struct conn *c);

/* Queue c for the end-of-iteration flush / for the ready pass (serve the
 * next pipelined request or pump its generation). Both ignore closing c. */
void srv_mark_dirty(struct srv *s, struct conn *c);
void srv_mark_ready(struct srv *s, struct conn *c);
/* Queues c on the deferred close list (freed by the loop, never here). */
void srv_conn_close(struct srv *s, struct conn *c);
/* Sends what c->out holds; waits for EPOLLOUT when the socket is full. */
void srv_conn_flush(struct srv *s, struct conn *c);

/* Reserves a timing-log slot for one event of kind (see docs/serve.md); the
 * time is filled in by srv_stamp_pending when the bytes reach send(). */
void srv_stamp(struct sreq *r, char kind);
void srv_stamp_pending(struct sreq *r, uint64_t t);

#endif
