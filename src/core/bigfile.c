/* core/bigfile.c — see bigfile.h.
 *
 * Buffered first, O_DIRECT when the page cache is slow. On the build VM the
 * kernel's copy into fresh page-cache pages (copy_folio_from_iter) ran at
 * 1.8 GB/s on a quiet host but at 0.3 GB/s under memory pressure, where it
 * was 37% of the 1M-record post-processing profile and the export took 5.4 s;
 * O_DIRECT writes of 4 MiB ran at 1.0-1.5 GB/s either way (1.4 s). Always
 * direct lost on the quiet host (1.6 s against 1.1 s), so each file measures
 * its first PROBE_BYTES: buffered writes (fwrite plus the writeback they
 * start) slower than MIN_RATE switch the rest of the file to O_DIRECT.
 * Only whole 4 KiB blocks from an aligned buffer go direct; the last partial
 * block, and everything where O_DIRECT is refused (some file systems) or the
 * buffer had to grow past its aligned block, goes through the FILE*. */
#include "core/bigfile.h"
#include "core/clock.h"
#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLUSH_AT (1u << 20)
#define DIRECT_FLUSH_AT (4u << 20)
#define DIRECT_CAP (DIRECT_FLUSH_AT + (1u << 20))
#define DIRECT_ALIGN 4096u
#define PROBE_BYTES (64u << 20)
#define MIN_RATE 600e6 /* bytes/s */
/* buffered: how far written data may run ahead of the writeback started */
#define WRITEBACK_AT (8u << 20)

int gp_bigfile_open(struct gp_bigfile *f, const char *path, int direct, struct gp_error *err)
{
    memset(f, 0, sizeof *f);
    f->dfd = -1;
    f->flush_at = FLUSH_AT;
    f->direct = direct;
    f->probe_bytes = PROBE_BYTES;
    return gp_atomic_open(&f->af, path, err);
}

/* From here on O_DIRECT: the partial block at the end of what was written
 * buffered is read back and written again with the next blocks, so every
 * direct write starts on a block boundary. Stays buffered if anything fails. */
static void go_direct(struct gp_bigfile *f)
{
#ifdef O_DIRECT
    size_t pad = (size_t)(f->written & (off_t)(DIRECT_ALIGN - 1));
    if (f->b.len + pad > DIRECT_CAP || fflush(f->af.fp) != 0)
        return;
    void *p = NULL;
    if (posix_memalign(&p, DIRECT_ALIGN, DIRECT_CAP))
        return;
    int fd = open(f->af.tmp, O_WRONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0) {
        free(p);
        return;
    }
    if (pad) { /* a plain descriptor (fopen's is write-only): the page cache has them */
        int rfd = open(f->af.tmp, O_RDONLY | O_CLOEXEC);
        ssize_t got = rfd >= 0 ? pread(rfd, p, pad, f->written - (off_t)pad) : -1;
        if (rfd >= 0)
            close(rfd);
        if (got != (ssize_t)pad) {
            close(fd);
            free(p);
            return;
        }
    }
    if (f->b.len)
        memcpy((char *)p + pad, f->b.data, f->b.len);
    free(f->b.data);
    f->b.data = p;
    f->b.len += pad;
    f->b.cap = DIRECT_CAP;
    f->written -= (off_t)pad;
    f->dfd = fd;
    f->flush_at = DIRECT_FLUSH_AT;
#endif
}

/* Buffered from here on: the FILE*'s position moves to the end of what went
 * direct. */
static void drop_direct(struct gp_bigfile *f)
{
    if (f->dfd < 0)
        return;
    close(f->dfd);
    f->dfd = -1;
    f->flush_at = FLUSH_AT;
    if (!f->bad && fseeko(f->af.fp, f->written, SEEK_SET) != 0)
        f->bad = errno ? errno : EIO;
}

/* Writes the buffer's whole aligned blocks direct; 0 if it could not (the
 * caller writes buffered instead). */
static int flush_direct(struct gp_bigfile *f)
{
    if ((uintptr_t)f->b.data & (DIRECT_ALIGN - 1)) { /* grown past DIRECT_CAP: realloc'd */
        drop_direct(f);
        return 0;
    }
    size_t n = f->b.len & ~(size_t)(DIRECT_ALIGN - 1), done = 0;
    while (done < n) {
        ssize_t w = pwrite(f->dfd, f->b.data + done, n - done, f->written + (off_t)done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EINVAL && done == 0) {
            drop_direct(f); /* refused after all (the open succeeded): buffered */
            return 0;
        }
        if (w <= 0 || ((size_t)w & (DIRECT_ALIGN - 1))) {
            /* a short direct write leaves an unaligned offset: give up on the file */
            f->bad = w < 0 && errno ? errno : EIO;
            return 1;
        }
        done += (size_t)w;
    }
    f->written += (off_t)n;
    f->direct_bytes += n;
    memmove(f->b.data, f->b.data + n, f->b.len - n);
    f->b.len -= n;
    return 1;
}

static int flush(struct gp_bigfile *f)
{
    if (f->bad)
        return f->bad;
    if (f->dfd >= 0 && flush_direct(f))
        return f->bad;
    uint64_t t0 = gp_now_ns();
    if (f->b.len && fwrite(f->b.data, 1, f->b.len, f->af.fp) != f->b.len)
        f->bad = errno ? errno : EIO;
    f->written += (off_t)f->b.len;
    gp_buf_reset(&f->b);
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    /* The commit fsyncs the file; a gigabyte of dirty pages then meant
     * seconds of waiting for the disk after the last byte was formatted.
     * Starting writeback as we go overlaps the disk with the formatting
     * (it only queues I/O and does not wait; errors still surface at the
     * fsync, so the result is ignored here). Bytes still in stdio's buffer
     * are simply not in the page cache yet. */
    if (!f->bad && f->written - f->synced >= (off_t)WRITEBACK_AT) {
        (void)sync_file_range(fileno(f->af.fp), f->synced, f->written - f->synced, SYNC_FILE_RANGE_WRITE);
        f->synced = f->written;
    }
#endif
    f->buffered_ns += gp_now_ns() - t0;
    if (!f->bad && f->direct >= 0 && !f->probed && f->written >= (off_t)f->probe_bytes) {
        f->probed = 1;
        double rate = (double)f->written / ((double)(f->buffered_ns ? f->buffered_ns : 1) / 1e9);
        if (f->direct > 0 || rate < MIN_RATE)
            go_direct(f);
    }
    return f->bad;
}

int gp_bigfile_maybe_flush(struct gp_bigfile *f)
{
    return f->b.len >= f->flush_at ? flush(f) : f->bad;
}

int gp_bigfile_finish(struct gp_bigfile *f, int oom, struct gp_error *err)
{
    if (!oom) {
        flush(f);      /* the whole blocks, direct */
        drop_direct(f);
        flush(f);      /* the tail (< 4 KiB) through the FILE* */
    } else if (f->dfd >= 0) {
        close(f->dfd);
        f->dfd = -1;
    }
    gp_buf_free(&f->b);
    if (oom || f->bad) {
        int bad = f->bad;
        gp_atomic_abort(&f->af);
        if (oom)
            return gp_err(err, GP_ENOMEM, "out of memory writing '%s'", f->af.path);
        return gp_err(err, GP_EIO, "cannot write '%s': %s", f->af.path, strerror(bad));
    }
    return gp_atomic_commit(&f->af, err);
}
