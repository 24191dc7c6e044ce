/* client/cl_loop.h — private to client/: the phase loop (client_loop.c), the
 * top of the client's layers; gp_client_run (client_run.c), above it, calls
 * it and is declared in client.h.
 *
 * Owns nothing beyond a phase's struct sched (on its stack). Calls every
 * layer below: the transport's wait, dispatch and finished transfers
 * (cl_transport.h), the request layer's start and record (cl_request.h),
 * the scheduler (cl_sched.h). It alone takes finished transfers from the
 * transport and hands them up, so nothing below calls back into it. */
#ifndef GP_CLIENT_CL_LOOP_H
#define GP_CLIENT_CL_LOOP_H

#include "client/client_int.h"

/* Runs one phase (warmup or measured) to its end: count reached, deadline,
 * stop, or every transfer done. */
int gp_cl_run_phase(struct loop *L, const struct phase *ph, struct gp_error *err);
/* Removes every in-flight transfer; cancelled ones are recorded (record:
 * Ctrl-C), dropped ones are not (end of a time-bounded run). */
int gp_cl_abandon_inflight(struct loop *L, int record, struct gp_error *err);

/* ---- client_run.c (gp_client_run, above the loop) ---- */
/* Grows the fd table for the job's sockets (gp_client_fd_need); once per
 * process, before the loops start (client_workers.c). */
void gp_cl_reserve_fd_table(const struct gp_client_opts *job);

#endif
