/* core/bigfile.h — one large artifact written as it is formatted.
 *
 * The caller formats into f->b (a gp_buf it appends to directly) and calls
 * gp_bigfile_maybe_flush after each piece; the buffer is flushed to an
 * atomic temp file (core/fsutil.h) every few megabytes, so a file far
 * larger than memory needs no second copy of itself. gp_bigfile_finish
 * writes the rest, fsyncs and renames onto the path (or, on failure,
 * removes the temp file) and frees the buffer: exactly one finish per open.
 *
 * Buffered through the page cache for the first 64 MiB; with direct set, the
 * rest goes to the disk with O_DIRECT where the file system allows it (see
 * bigfile.c for why), so small files never do. The file's bytes are the
 * same either way. Direct writes run on a thread of the file's own
 * (two aligned buffers: the caller formats into one while the other goes to
 * the disk); a write that fails there is reported by the next
 * gp_bigfile_maybe_flush, or at the latest by gp_bigfile_finish.
 */
#ifndef GP_CORE_BIGFILE_H
#define GP_CORE_BIGFILE_H

#include "core/buf.h"
#include "core/fsutil.h"

#include <stdint.h>
#include <sys/types.h>

struct gp_error;
struct gp_bigfile_io; /* the direct writes' thread and its spare buffer (bigfile.c) */

struct gp_bigfile {
    struct gp_buf b;          /* append here; owned (freed by finish) */
    struct gp_atomic_file af;
    int bad;                  /* errno of the first failed write */
    int dfd;                  /* the temp file opened O_DIRECT; -1: through af.fp */
    int direct;               /* 0 never, 1 once probe_bytes are written */
    int probed;
    size_t probe_bytes;       /* the switch comes after this much (64 MiB; tests lower it) */
    size_t flush_at;
    off_t written, synced;
    uint64_t direct_bytes;    /* how many went O_DIRECT (tests, diagnostics) */
    struct gp_bigfile_io *io; /* set while direct (owned; finish frees it) */
    off_t fail_at;            /* tests: a direct write reaching past it fails (0: never) */
    int fail_errno;           /* tests: with this errno (0: EIO; EINVAL: refused, see bigfile.c) */
};

/* direct: 1 = O_DIRECT after the first 64 MiB (the big export files:
 * export/stream.c says why); 0 = buffered throughout. */
int gp_bigfile_open(struct gp_bigfile *f, const char *path, int direct, struct gp_error *err);

/* Flushes when the buffer is full; nonzero once a write has failed (stop
 * formatting: finish reports it). */
int gp_bigfile_maybe_flush(struct gp_bigfile *f);

/* oom: the caller ran out of memory formatting (the file is abandoned). */
int gp_bigfile_finish(struct gp_bigfile *f, int oom, struct gp_error *err);

#endif
