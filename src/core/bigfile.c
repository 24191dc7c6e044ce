/* core/bigfile.c — see bigfile.h.
 *
 * Buffered first, O_DIRECT when the page cache is slow. On the build VM the
 * kernel's copy into fresh page-cache pages (copy_folio_from_iter) ran at
 * 1.8 GB/s on a quiet host but at 0.3 GB/s under memory pressure, where it
 * was 37% of the 1M-record post-processing profile and the export took 5.4 s;
 * O_DIRECT writes of 4 MiB ran at 1.0-1.5 GB/s either way (1.4 s). A file
 * first measured its buffered writes and switched only when they were slow;
 * once the big files were written during the metrics, always switching won
 * on a quiet host too (export/stream.c), and the measuring went. The first
 * PROBE_BYTES stay buffered, so a small file never pays for the switch.
 * Only whole 4 KiB blocks from an aligned buffer go direct; the last partial
 * block, and everything where O_DIRECT is refused (some file systems) or the
 * buffer had to grow past its aligned block, goes through the FILE*.
 * Direct writes run on the file's own thread (struct gp_bigfile_io): the
 * export's formatting of 1M records took about as long as its writes
 * (0.5-0.9 s each for profile_export.json), one after the other until then. */
#include "core/bigfile.h"
#include "core/error.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLUSH_AT (1u << 20)
#define DIRECT_FLUSH_AT (4u << 20)
#define DIRECT_CAP (DIRECT_FLUSH_AT + (1u << 20))
#define DIRECT_ALIGN 4096u
#define PROBE_BYTES (64u << 20)
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

/* The direct writes' own thread. The caller formats into one aligned
 * buffer while the other one is written: since the export went O_DIRECT,
 * formatting waited for each 4 MiB write to reach the disk and the disk
 * waited for each 4 MiB to be formatted. One write in flight at most (the
 * spare buffer is the one being written): the caller waits for it before
 * handing over the next, so the writes stay in file order. */
struct gp_bigfile_io {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t work, idle;
    int fd;
    off_t fail_at;
    int fail_errno;
    char *spare;              /* the buffer not in f->b: in flight or free (DIRECT_CAP) */
    /* the write handed over (under mu) */
    size_t n;
    off_t off;
    int busy, quit;
    /* its outcome (under mu until read by the caller after busy drops) */
    int pending;              /* handed over and not yet reaped */
    int refused;              /* reaped: refused, its bytes still in spare for drop_direct */
    int err;
    size_t done;
};

/* Whole aligned blocks: keeps going after a short write that stays aligned. */
static void io_write(struct gp_bigfile_io *io, const char *p, size_t n, off_t off, int *err, size_t *done)
{
    *err = 0;
    *done = 0;
    if (io->fail_at && off + (off_t)n > io->fail_at) {
        *err = io->fail_errno ? io->fail_errno : EIO;
        return;
    }
    while (*done < n) {
        ssize_t w = pwrite(io->fd, p + *done, n - *done, off + (off_t)*done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0 || ((size_t)w & (DIRECT_ALIGN - 1))) {
            /* a short direct write leaves an unaligned offset: give up on the file */
            *err = w < 0 && errno ? errno : EIO;
            return;
        }
        *done += (size_t)w;
    }
}

static void *io_main(void *arg)
{
    struct gp_bigfile_io *io = arg;
    pthread_mutex_lock(&io->mu);
    for (;;) {
        while (!io->busy && !io->quit)
            pthread_cond_wait(&io->work, &io->mu);
        if (!io->busy)
            break;
        /* the spare buffer and the fields of the write are the caller's
         * again only once busy drops: nothing else touches them meanwhile */
        const char *p = io->spare;
        size_t n = io->n;
        off_t off = io->off;
        pthread_mutex_unlock(&io->mu);
        int err;
        size_t done;
        io_write(io, p, n, off, &err, &done);
        pthread_mutex_lock(&io->mu);
        io->err = err;
        io->done = done;
        io->busy = 0;
        pthread_cond_signal(&io->idle);
    }
    pthread_mutex_unlock(&io->mu);
    return NULL;
}

static void io_wait(struct gp_bigfile_io *io)
{
    pthread_mutex_lock(&io->mu);
    while (io->busy)
        pthread_cond_wait(&io->idle, &io->mu);
    pthread_mutex_unlock(&io->mu);
}

/* Starts the thread; NULL if it (or its buffer) cannot be had. */
static struct gp_bigfile_io *io_start(int fd, const struct gp_bigfile *f)
{
    struct gp_bigfile_io *io = calloc(1, sizeof *io);
    void *p = NULL;
    if (!io || posix_memalign(&p, DIRECT_ALIGN, DIRECT_CAP)) {
        free(io);
        return NULL;
    }
    io->fd = fd;
    io->fail_at = f->fail_at;
    io->fail_errno = f->fail_errno;
    io->spare = p;
    pthread_mutex_init(&io->mu, NULL);
    pthread_cond_init(&io->work, NULL);
    pthread_cond_init(&io->idle, NULL);
    if (pthread_create(&io->th, NULL, io_main, io)) {
        pthread_cond_destroy(&io->idle);
        pthread_cond_destroy(&io->work);
        pthread_mutex_destroy(&io->mu);
        free(p);
        free(io);
        return NULL;
    }
    return io;
}

static void io_stop(struct gp_bigfile_io *io)
{
    pthread_mutex_lock(&io->mu);
    io->quit = 1;
    pthread_cond_signal(&io->work);
    pthread_mutex_unlock(&io->mu);
    pthread_join(io->th, NULL);
    pthread_cond_destroy(&io->idle);
    pthread_cond_destroy(&io->work);
    pthread_mutex_destroy(&io->mu);
    free(io->spare);
    free(io);
}

/* Waits for the write in flight. Its failure becomes f->bad; returns 1 if
 * it was refused (EINVAL before a byte: the file system takes no O_DIRECT
 * after all), its bytes still in the spare buffer for drop_direct (which
 * must then follow: io->refused says so to it). */
static int reap(struct gp_bigfile *f)
{
    struct gp_bigfile_io *io = f->io;
    if (!io || !io->pending)
        return 0;
    io_wait(io);
    io->pending = 0;
    if (io->err == EINVAL && io->done == 0)
        return io->refused = 1;
    if (io->err && !f->bad)
        f->bad = io->err;
    return 0;
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
    struct gp_bigfile_io *io = io_start(fd, f);
    if (!io) {
        close(fd);
        free(p);
        return;
    }
    if (f->b.len)
        memcpy((char *)p + pad, f->b.data, f->b.len);
    free(f->b.data);
    f->b.data = p;
    f->b.len += pad;
    f->b.cap = DIRECT_CAP;
    f->written -= (off_t)pad;
    f->dfd = fd;
    f->io = io;
    f->flush_at = DIRECT_FLUSH_AT;
#endif
}

/* Buffered from here on: waits for the direct write in flight (a refused
 * one is written again through the FILE*), and the FILE*'s position moves
 * to the end of what went direct. */
static void drop_direct(struct gp_bigfile *f)
{
    if (f->dfd < 0)
        return;
    reap(f);
    if (f->io->refused && !f->bad) {
        struct gp_bigfile_io *io = f->io;
        off_t at = f->written - (off_t)io->n;
        f->direct_bytes -= io->n;
        if (fseeko(f->af.fp, at, SEEK_SET) != 0 || fwrite(io->spare, 1, io->n, f->af.fp) != io->n)
            f->bad = errno ? errno : EIO;
    } else if (!f->bad && fseeko(f->af.fp, f->written, SEEK_SET) != 0) {
        f->bad = errno ? errno : EIO;
    }
    io_stop(f->io);
    f->io = NULL;
    close(f->dfd);
    f->dfd = -1;
    f->flush_at = FLUSH_AT;
}

/* Hands the buffer's whole aligned blocks to the I/O thread and continues
 * in the spare buffer (with the partial block at the end); 0 if they are
 * not to go direct (the caller writes buffered instead). */
static int flush_direct(struct gp_bigfile *f)
{
    if (reap(f) || f->b.cap != DIRECT_CAP || ((uintptr_t)f->b.data & (DIRECT_ALIGN - 1))) {
        /* refused, or grown past DIRECT_CAP: realloc'd, aligned or not
         * depending on the allocator (TSan's kept it aligned) */
        drop_direct(f);
        return 0;
    }
    if (f->bad)
        return 1;
    struct gp_bigfile_io *io = f->io;
    size_t n = f->b.len & ~(size_t)(DIRECT_ALIGN - 1), tail = f->b.len - n;
    if (!n)
        return 1;
    char *next = io->spare;
    memcpy(next, f->b.data + n, tail);
    next[tail] = '\0';
    pthread_mutex_lock(&io->mu);
    /* one direct write in flight at a time (reap waited for the last), and
     * each starts on a block boundary (go_direct aligned `written`) */
    assert(!io->busy && !io->pending);
    assert((f->written & (off_t)(DIRECT_ALIGN - 1)) == 0);
    io->spare = f->b.data;
    io->n = n;
    io->off = f->written;
    io->busy = 1;
    io->pending = 1;
    pthread_cond_signal(&io->work);
    pthread_mutex_unlock(&io->mu);
    f->b.data = next;
    f->b.len = tail;
    f->written += (off_t)n;
    f->direct_bytes += n;
    return 1;
}

static int flush(struct gp_bigfile *f)
{
    if (f->bad)
        return f->bad;
    if (f->dfd >= 0 && (flush_direct(f) || f->bad))
        return f->bad;
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
    if (!f->bad && f->direct > 0 && !f->probed && f->written >= (off_t)f->probe_bytes) {
        f->probed = 1;
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
    } else {
        drop_direct(f); /* stops the I/O thread */
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
