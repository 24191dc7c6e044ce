/* client/cl_transport.h — private to client/: the transport layer, the
 * bottom of the client's layers (client_int.h lists them). It moves bytes
 * and says when a transfer ended; it knows nothing of what to send next.
 *
 *   client_body.c       a transfer's received bytes into the record store
 *                       (gp_cl_slot_put: both transports' sink)
 *   client_h1.c         the plain-http keep-alive transport (h1.h: parser and
 *                       request head); calls client_body.c only
 *   client_transport.c  the epoll set (core/evloop.h), curl's shards and
 *                       callbacks, the dispatch of ready sockets, drive_now;
 *                       calls client_h1.c and client_body.c
 *
 * Owns: the epoll set and the shards (gp_cl_tr_init / gp_cl_tr_free), the h1
 * targets, read buffer and done queue (gp_cl_h1_setup / gp_cl_h1_teardown),
 * a slot's h1 state (gp_cl_h1_slot_init / gp_cl_h1_slot_free). The slot and
 * its easy handle belong to the request layer (cl_request.h).
 *
 * Finished transfers go up by being taken, never by a call up: an h1
 * transfer is queued on L->h1_done, a curl one waits in its multi handle
 * until the loop calls gp_cl_shard_take_done. */
#ifndef GP_CLIENT_CL_TRANSPORT_H
#define GP_CLIENT_CL_TRANSPORT_H

#include "client/client_int.h"

/* ---- client_body.c ---- */
/* A read's body bytes into the record store, stamped t; -1: the transfer must
 * stop (too_big or oom set). */
int gp_cl_slot_put(struct slot *s, const char *p, size_t n, uint64_t t);

/* ---- client_h1.c: the plain-http transport ----
 * setup: picks h1 when every URL allows it (GENPERF_TRANSPORT=curl|h1);
 * start: sends the slot's request (the slot's t_start is taken); event: an
 * epoll event tagged H1_TAG; expire: fails transfers past their timeout;
 * abort: drops the transfer in progress and its connection. A transfer that
 * ends (finish, expire) is queued on L->h1_done. */
int gp_cl_h1_setup(struct loop *L, struct gp_error *err);
void gp_cl_h1_teardown(struct loop *L);
int gp_cl_h1_slot_init(struct loop *L, struct slot *s, struct gp_error *err);
void gp_cl_h1_slot_free(struct slot *s);
void gp_cl_h1_start(struct loop *L, struct slot *s, const char *body, size_t blen);
void gp_cl_h1_event(struct loop *L, uint64_t tag, uint32_t events);
void gp_cl_h1_expire(struct loop *L, uint64_t now);
void gp_cl_h1_abort(struct loop *L, struct slot *s);

/* ---- client_transport.c: the epoll set and curl's shards ---- */
/* The epoll set, with the stop fd in it where epoll takes it (else
 * L->stop_in_epoll = 0: the loop polls it each turn). */
int gp_cl_tr_init(struct loop *L, struct gp_error *err);
/* The shards (curl multi handles), then the epoll set. */
void gp_cl_tr_free(struct loop *L);
/* The shard of slot id, created on first use. */
struct shard *gp_cl_shard_for(struct loop *L, uint32_t id, struct gp_error *err);
/* Takes a busy slot's transfer off its transport (the h1 connection is
 * closed, the easy handle leaves its multi) and clears busy; the caller
 * records it. */
void gp_cl_tr_abort(struct loop *L, struct slot *s);
/* Runs the shard's curl timer when it is due. */
int gp_cl_shard_run_timer(struct shard *sh, struct gp_error *err);
/* The shard's next finished transfer, its handle already out of the multi,
 * and its result in *res; NULL when none is left. */
struct slot *gp_cl_shard_take_done(struct shard *sh, CURLcode *res);
/* Lowers *wait_ns to the transport's own deadlines: the earliest h1
 * timeout and every armed curl timer. */
void gp_cl_tr_cap_wait(const struct loop *L, uint64_t now, uint64_t *wait_ns);
/* One wait of up to wait_ns, the ready sockets handed to curl or h1 (the stop
 * fd raises L->stop_ready). Without epoll_pwait2 the wait is rounded up to
 * whole ms (core/evloop.h). */
int gp_cl_tr_wait(struct loop *L, uint64_t wait_ns, struct gp_error *err);
/* One zero-timeout look at the epoll set, ready sockets handed over (a new
 * connection's request goes out without waiting for the next turn). */
int gp_cl_drive_now(struct loop *L, struct gp_error *err);

#endif
