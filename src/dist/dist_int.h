/* dist/dist_int.h — what dist.c shares with gather.c, and nobody else.
 *
 * The job's struct, the status block collectives hand around, the message
 * tags, and (in an MPI build) the failure line, the lazy waits and the
 * verdict helpers. Nothing here is allocated: see dist.h for ownership. */
#ifndef GP_DIST_DIST_INT_H
#define GP_DIST_DIST_INT_H

#include <stdint.h>

#include "core/error.h"
#include "dist/dist.h"

#ifdef GP_HAVE_MPI
#include <mpi.h>
#endif

struct gp_dist {
    int rank, size;
    int mpi_owned;  /* we called MPI_Init, so we call MPI_Finalize */
    int use_mpi;    /* size > 1: the collectives talk over comm */
    char *hosts;    /* size * GP_DIST_HOST_MAX bytes, rank-major */
    char mca_set[64]; /* the Open MPI selection we chose before MPI_Init ("" none) */
#ifdef GP_HAVE_MPI
    MPI_Comm comm;  /* our own duplicate of MPI_COMM_WORLD, MPI_ERRORS_RETURN */
    int have_comm;
#endif
};

/* The status that collectives hand around: fixed size so it travels as bytes. */
struct status_blk {
    int32_t code;
    char msg[sizeof(((struct gp_error *)0)->msg)];
};

enum { TAG_PING = 1701, TAG_PONG, TAG_GO, TAG_CHUNK, TAG_END, TAG_SIZES, TAG_ACCEPT, TAG_PIECE };

#ifdef GP_HAVE_MPI
/* One line naming who failed (GP_ENET); MPI's own words at the end. peer -1:
 * a collective. */
int dist_mpi_fail(const struct gp_dist *d, struct gp_error *err, int rc, const char *what, int peer);
/* MPI_Wait / MPI_Probe(any tag) that sleep between tests (see dist.c). */
int dist_lazy_wait(MPI_Request *rq, MPI_Status *st);
int dist_lazy_probe(MPI_Comm comm, int src, MPI_Status *st);
/* Rank 0's verdict v reaches every rank, which returns it (0 or -code). */
int dist_share_verdict(struct gp_dist *d, struct status_blk *v, struct gp_error *err);
/* Records "rank R on host H: msg" in v unless v already names someone. */
void dist_blame(const struct gp_dist *d, struct status_blk *v, int rank, int code, const char *msg);
#endif

#endif
