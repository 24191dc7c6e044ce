/* client/cl_sched.h — private to client/: the scheduler layer
 * (client_sched.c), above the request layer (cl_request.h), under the loop.
 * Which request goes next and when: closed-loop slots with their quotas and
 * ramp, back-off waits and resumes, open-loop arrivals (client/schedule.h).
 *
 * Owns: struct sched's open-loop schedule (freed by gp_cl_sched_end) and the
 * slots it adds through gp_cl_slot_new. Calls the request layer only
 * (gp_cl_slot_new, gp_cl_slot_start); the loop calls it.
 *
 * begin: sizes the slots for the phase and starts the closed loop's first
 * requests; start_due: starts every open-loop arrival (or ramp slot) that is
 * due at `now`; more: arrivals remain; wait: lowers *wait_ns to the next
 * arrival; on_done: a closed-loop slot finished a request, start its next
 * one (or back off); resume: starts the backing-off slots whose wait is over
 * (drops them on a stop or at the deadline) and notes the earliest pending
 * resume. */
#ifndef GP_CLIENT_CL_SCHED_H
#define GP_CLIENT_CL_SCHED_H

#include "client/client_int.h"

int gp_cl_sched_begin(struct loop *L, struct sched *S, const struct phase *ph, struct gp_error *err);
int gp_cl_sched_start_due(struct loop *L, struct sched *S, uint64_t now, struct gp_error *err);
int gp_cl_sched_more(const struct loop *L, const struct sched *S);
void gp_cl_sched_wait(const struct loop *L, const struct sched *S, uint64_t now, uint64_t *wait_ns);
int gp_cl_sched_on_done(struct loop *L, struct sched *S, struct slot *sl, CURLcode res, struct gp_error *err);
void gp_cl_sched_end(struct loop *L, struct sched *S);
int gp_cl_sched_resume(struct loop *L, struct sched *S, uint64_t now, struct gp_error *err);

#endif
