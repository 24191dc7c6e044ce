/* client/record_int.h — the record store's byte arena, shared by the two
 * files that implement the store: record.c (the arena, its prefault helper,
 * appends) and record_shm.c (handing the arena's memfd to another process
 * and mapping another's into this one, for the MPI gather). Not part of the
 * store's API (record.h); nothing outside client/record*.c includes it. */
#ifndef GP_CLIENT_RECORD_INT_H
#define GP_CLIENT_RECORD_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct gp_record_arena {
    char *map;                /* the mapping (munmap/mremap this) */
    size_t map_len;
    char *base;               /* map aligned up to 2 MiB: st->bytes.data */
    size_t reserved;          /* usable bytes from base */
    size_t want_seen;         /* loop: the last `want` it published */
    pthread_t th;
    int th_running;
    pthread_mutex_t mu;       /* guards want, faulted, stop, failed */
    pthread_cond_t cv;
    size_t want;              /* populate [0, want) */
    size_t faulted;           /* [0, faulted) is populated */
    int stop;
    int failed;               /* madvise refused: nothing more to do */
    int memfd;                /* -1, or the memfd behind map (st->shm_arena): file offset 0 = map */
    uint64_t nonce;           /* in the memfd's name, so another process can tell it is this one */
    int foreign;              /* another store's pages were moved in: the memfd no longer holds them all */
};

/* n bytes and their NUL, rounded up to whole pages */
static inline size_t gp_record_pages_with_nul(size_t n) { return (n + 1 + 4095) & ~(size_t)4095; }

#endif
