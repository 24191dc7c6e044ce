/* client/record_shm.c — the record store across processes (see record.h):
 * gp_record_store_shm_handle names this store's memfd-backed arena so that
 * another process on the host can map it, gp_record_store_map_tail maps such
 * a handle's bytes after this store's own (checking by the memfd's name that
 * the fd is still the one named), and gp_record_store_commit_tail checks and
 * rebases the records and chunks that came with them. Split from record.c,
 * which owns the arena (record_int.h). */
#include "client/record.h"
#include "client/record_int.h"
#include "core/error.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int gp_record_store_shm_handle(const struct gp_record_store *st, struct gp_record_shm *h)
{
    const struct gp_record_arena *a = st->arena;
    if (!a || a->memfd < 0 || a->foreign || !a->map || a->th_running)
        return -1;
    h->pid = (int32_t)getpid();
    h->fd = a->memfd;
    h->nonce = a->nonce;
    h->file_off = (uint64_t)(a->base - a->map);
    h->len = st->bytes.len;
    return 0;
}

/* Opens h's memfd and checks, by the name of what was opened, that it is
 * the one h names. -1 on anything else. */
static int shm_open_checked(const struct gp_record_shm *h, size_t need)
{
    char path[64], want[64], got[96];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)h->pid, (int)h->fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* our own fd's link: the file actually opened (the pid's fd may have
     * changed since it named it; the nonce says whether it is still it) */
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    snprintf(want, sizeof want, "/memfd:genperf-arena-%016llx (deleted)", (unsigned long long)h->nonce);
    ssize_t n = readlink(path, got, sizeof got - 1);
    struct stat sb;
    if (n < 0 || (size_t)n != strlen(want) || memcmp(got, want, (size_t)n) || fstat(fd, &sb) ||
        sb.st_size < 0 || (uint64_t)sb.st_size < h->file_off || (uint64_t)sb.st_size - h->file_off < need) {
        close(fd);
        return -1;
    }
    return fd;
}

int gp_record_store_map_tail(struct gp_record_store *st, const struct gp_record_shm *h, uint64_t *base)
{
    struct gp_record_arena *a = st->arena;
    if (!a || !a->map || h->len > SIZE_MAX / 2 || h->file_off % 4096)
        return -1;
    size_t off = gp_record_pages_with_nul(st->bytes.len);
    size_t len = gp_record_pages_with_nul((size_t)h->len); /* its NUL comes along */
    if (off > a->reserved || len > a->reserved - off)
        return -1;
    int fd = shm_open_checked(h, len);
    if (fd < 0)
        return -1;
    /* the helper must not populate what is being replaced */
    int was_running = a->th_running;
    gp_record_store_prefault_stop(st);
    void *m = mmap(a->base + off, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)h->file_off);
    close(fd); /* the mapping keeps the file */
    if (m == MAP_FAILED) {
        /* MAP_FIXED may have unmapped the range already: put the reservation back */
        if (mmap(a->base + off, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
            a->reserved = off; /* a hole: the store ends before it */
        if (was_running)
            gp_record_store_prefault_start(st);
        return -1;
    }
    a->foreign = 1;
    st->bytes.len = off + (size_t)h->len;
    st->bytes.data[st->bytes.len] = '\0';
    if (was_running)
        gp_record_store_prefault_start(st);
    *base = off;
    return 0;
}

/* off + len within [0, nb), without overflow */
static int span_ok(uint64_t off, uint64_t len, uint64_t nb)
{
    return off <= nb && len <= nb - off;
}

int gp_record_store_commit_tail(struct gp_record_store *st, size_t n, size_t nc, uint64_t base, size_t nb)
{
    /* (an array may still be NULL when nothing came) */
    struct gp_record *r = n ? st->recs + st->n : NULL;
    struct gp_chunk *c = nc ? st->chunks + st->nchunks : NULL;
    for (size_t i = 0; i < nc; i++)
        if (!span_ok(c[i].off, c[i].len, nb))
            return -GP_EIO;
    for (size_t i = 0; i < n; i++)
        if (!span_ok(r[i].chunk_first, r[i].n_chunks, nc) ||
            (r[i].err_len && !span_ok(r[i].err_off, r[i].err_len, nb)) ||
            (r[i].body_len && !span_ok(r[i].body_off, r[i].body_len, nb)))
            return -GP_EIO;
    for (size_t i = 0; i < nc; i++)
        c[i].off += base;
    for (size_t i = 0; i < n; i++) {
        r[i].chunk_first += st->nchunks;
        /* no error text: err_off is unused; keep it inside the store */
        r[i].err_off = r[i].err_len ? r[i].err_off + base : base;
        r[i].body_off += r[i].body_len ? base : 0;
    }
    st->n += n;
    st->nchunks += nc;
    return 0;
}
