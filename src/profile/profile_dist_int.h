/* profile/profile_dist_int.h — private to profile_dist*.c: the state of one
 * rank of a `genperf profile` MPI job (struct gp_profile_dist, created by
 * gp_profile_dist_join and freed by gp_profile_dist_free in profile_dist.c;
 * profile_dist_report.c only reads it).
 */
#ifndef GP_PROFILE_PROFILE_DIST_INT_H
#define GP_PROFILE_PROFILE_DIST_INT_H

#include "client/client.h"
#include "client/record.h"
#include "core/buf.h"
#include "core/error.h"
#include "dist/dist.h"

#include <stddef.h>
#include <stdint.h>

struct gp_profile_dist {
    struct gp_dist *d;
    int rank, size;
    long workers;
    struct gp_buf argv0;           /* rank 0: argc + argv items, taken before scrubbing */
    char *blob;                    /* ranks > 0: the setup broadcast (strings point here) */
    size_t blob_len;
    char **argv;                   /* ranks > 0: argv into blob */
    struct gp_dist_clock mine;
    struct gp_dist_clock *clocks;  /* rank 0: size entries */
    /* the shared start of the measured phase (measure_start) */
    int64_t start_ns;              /* on rank 0's clock; 0 = not agreed (yet) */
    int64_t start_margin_ns;       /* rank 0: how far ahead of its "now" it was set */
    struct gp_error start_err;     /* MPI failed while agreeing on it */
    struct gp_client_stats *rank_stats;   /* rank 0: size entries */
    struct gp_client_stats *loop_stats;   /* rank 0: size x workers entries */
    /* the gather (profile_dist.c: send_parts, place_parts, landed_parts) */
    struct gp_record_store *st_rw;
    const struct gp_client_stats *cs, *per_worker;
    struct gp_buf out;             /* the stats blob, sent or received */
    size_t tail_recs, tail_chunks, tail_bytes; /* rank 0: the rank being received */
    uint64_t tail_base;
    struct gp_record_shm shm;      /* ranks > 0: where its bytes are (sent inline) */
    int no_shm;                    /* $GENPERF_DIST_NO_SHM: copy the bytes even on one host */
    int shm_ranks;                 /* rank 0: ranks whose bytes were mapped, not copied */
};

#endif
