/* client/cl_request.h — private to client/: the request layer (client.c),
 * above the transport (cl_transport.h), under the scheduler and the loop.
 * A slot's request: its easy handle (or its h1 state, through the
 * transport), the body it sends, its start and its record.
 *
 * Owns: the slots (gp_cl_slot_new adds one to L->slots; gp_cl_slot_free
 * frees it, its easy handle, its h1 state and its chunk list). Calls the
 * transport (shards, h1 start, drive_now, gp_cl_slot_put) and client_stats.c;
 * never the scheduler or the loop: a finished transfer comes back to it only
 * when the loop calls gp_cl_slot_record. */
#ifndef GP_CLIENT_CL_REQUEST_H
#define GP_CLIENT_CL_REQUEST_H

#include "client/client_int.h"

struct slot *gp_cl_slot_new(struct loop *L, struct gp_error *err);
void gp_cl_slot_free(struct slot *s);
/* idle -> busy: the request for dataset entry `entry` goes out (t_start is
 * taken; a planned cancellation is drawn). */
int gp_cl_slot_start(struct loop *L, struct slot *s, uint32_t entry, struct gp_error *err);
/* Records a transfer the loop ended (busy already cleared). */
int gp_cl_slot_record(struct loop *L, struct slot *s, CURLcode res, uint32_t extra_flags, struct gp_error *err);
/* A reused keep-alive connection the server had closed: resend once. */
int gp_cl_is_stale_connection(struct slot *s, CURLcode res);

#endif
