/* client/record.c — the record store (see record.h).
 *
 * The byte arena: a run keeps every response byte, so the arena only grows,
 * and each new page costs the appending thread a fault plus the kernel
 * zeroing it (the largest single cost of the streaming event loop when it
 * was profiled against nginx). With gp_record_store_prefault_start the
 * arena is one large MAP_NORESERVE reservation (address space only) that a
 * helper thread populates with MADV_POPULATE_WRITE a few MiB ahead of the
 * append point, so the event loop writes into pages that are already there.
 * Without the helper, or where the reservation or madvise is refused, the
 * arena is a plain realloc'd gp_buf and faults on first touch, as before. */
#include "client/record.h"
#include "client/record_int.h"
#include "core/error.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Address space reserved up front: more than the RAM of the machines genperf
 * runs on; MAP_NORESERVE makes it cost nothing until touched. A run that
 * outgrows it is moved with mremap (the helper is stopped around the move). */
#define ARENA_RESERVE (64ull << 30)
#define ARENA_MIN_RESERVE (256ull << 20)
/* How far ahead of the append point pages are populated: an eighth of what
 * is stored, between 4 and 16 MiB (25 ms of a 650 MB/s run, the fastest seen
 * against nginx), so small runs and RSS per in-flight stream (the scale bench:
 * 10,000 streams) pay little. The helper populates at most STEP per madvise. */
#define AHEAD_MIN (4ull << 20)
#define AHEAD_MAX (16ull << 20)
#define STEP (256ull << 10)
#define HUGE_ALIGN (2ull << 20)

/* struct gp_record_arena is in record_int.h: record_shm.c maps into it too. */

void gp_record_store_init(struct gp_record_store *st) { memset(st, 0, sizeof *st); }

void gp_record_store_free(struct gp_record_store *st)
{
    gp_record_store_prefault_stop(st);
    free(st->recs);
    free(st->chunks);
    if (st->arena) {
        if (st->arena->map) /* NULL: its bytes were moved (gp_record_store_take_bytes) */
            munmap(st->arena->map, st->arena->map_len);
        if (st->arena->memfd >= 0)
            close(st->arena->memfd);
        pthread_mutex_destroy(&st->arena->mu);
        pthread_cond_destroy(&st->arena->cv);
        free(st->arena);
    } else {
        gp_buf_free(&st->bytes);
    }
    memset(st, 0, sizeof *st);
}

/* n bytes and the NUL that follows them, in whole pages: the span a store's
 * bytes occupy in its arena when pages are populated, moved or mapped. */

static void *prefault_main(void *p)
{
    struct gp_record_arena *a = p;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (!a->stop && a->faulted >= a->want)
            pthread_cond_wait(&a->cv, &a->mu);
        if (a->stop)
            break;
        size_t from = a->faulted, to = a->want;
        if (to - from > STEP)
            to = from + STEP;
        pthread_mutex_unlock(&a->mu);
        int rc = madvise(a->base + from, to - from, MADV_POPULATE_WRITE);
        pthread_mutex_lock(&a->mu);
        if (rc) {
            a->failed = 1; /* kernel < 5.14, or no memory: the loop faults as before */
            break;
        }
        a->faulted = to;
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* Headroom (see record.h): PROT_NONE, so it costs address space only. */
#define HEADROOM_MAX (64ull << 20)
#define HEADROOM_MIN (4ull << 20)

static void headroom_hold(struct gp_record_store *st)
{
    for (size_t n = HEADROOM_MAX; n >= HEADROOM_MIN && !st->headroom; n /= 2) {
        void *m = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m != MAP_FAILED) {
            st->headroom = m;
            st->headroom_len = n;
        }
    }
}

static void headroom_release(struct gp_record_store *st)
{
    if (st->headroom)
        munmap(st->headroom, st->headroom_len);
    st->headroom = NULL;
    st->headroom_len = 0;
}

/* A reservation is only address space where the kernel does not count it:
 * not under an address-space limit (it would eat the limit) nor with strict
 * overcommit (MAP_NORESERVE is ignored there, so it would eat the commit
 * limit). Those hosts keep the malloc'd arena. */
static int reservation_is_free(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        return 0;
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = 0;
    if (f) {
        if (fscanf(f, "%d", &mode) != 1)
            mode = 0;
        fclose(f);
    }
    return mode != 2;
}

/* A memfd whose name carries a random nonce ("genperf-arena-<16 hex>"): a
 * process that opens it through /proc/<pid>/fd/<n> reads the name back and
 * so knows it reached this file, not whatever that pid/fd pair names in its
 * own pid namespace. -1 when the kernel or the nonce says no. */
static int memfd_open(uint64_t *nonce)
{
    if (getrandom(nonce, sizeof *nonce, GRND_NONBLOCK) != (ssize_t)sizeof *nonce)
        return -1;
    char name[64];
    snprintf(name, sizeof name, "genperf-arena-%016llx", (unsigned long long)*nonce);
    return memfd_create(name, MFD_CLOEXEC);
}

static int arena_create(struct gp_record_store *st)
{
    size_t want = st->arena_reserve ? st->arena_reserve : ARENA_RESERVE;
    size_t need = st->bytes.len + 1;
    if (!st->arena_reserve && !reservation_is_free())
        return -GP_EINVAL;
    struct gp_record_arena *a = calloc(1, sizeof *a);
    if (!a)
        return -GP_ENOMEM;
    a->memfd = st->shm_arena ? memfd_open(&a->nonce) : -1;
    void *m = MAP_FAILED;
    while (m == MAP_FAILED && want >= need && (want >= ARENA_MIN_RESERVE || st->arena_reserve)) {
        if (a->memfd < 0)
            m = mmap(NULL, want + HUGE_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
        else if (ftruncate(a->memfd, (off_t)(want + HUGE_ALIGN)) == 0) /* sparse: nothing is allocated */
            m = mmap(NULL, want + HUGE_ALIGN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, a->memfd, 0);
        if (m == MAP_FAILED)
            want /= 2;
    }
    if (m == MAP_FAILED) {
        if (a->memfd >= 0)
            close(a->memfd);
        free(a);
        return -GP_ENOMEM;
    }
    a->map = m;
    a->map_len = want + HUGE_ALIGN;
    uintptr_t b = ((uintptr_t)m + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1);
    a->base = (char *)b;
    a->reserved = a->map_len - (size_t)(b - (uintptr_t)m);
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    if (st->bytes.len)
        memcpy(a->base, st->bytes.data, st->bytes.len);
    a->base[st->bytes.len] = '\0';
    gp_buf_free(&st->bytes);
    st->bytes.data = a->base;
    st->bytes.len = need - 1;
    st->bytes.cap = a->reserved;
    st->arena = a;
    return 0;
}

int gp_record_store_prefault_start(struct gp_record_store *st)
{
    if (!st->arena) {
        int rc = arena_create(st);
        if (rc == -GP_EINVAL && !st->headroom)
            headroom_hold(st); /* an address-space limit: keep some of it for the end of the run */
        if (rc)
            return rc;
    }
    struct gp_record_arena *a = st->arena;
    if (a->th_running)
        return 0;
    pthread_mutex_lock(&a->mu);
    a->stop = 0;
    a->failed = 0;
    a->faulted = st->bytes.len & ~(size_t)4095;
    a->want = a->faulted;
    a->want_seen = a->want;
    pthread_mutex_unlock(&a->mu);
    if (pthread_create(&a->th, NULL, prefault_main, a))
        return -GP_ENOMEM;
    a->th_running = 1;
    return 0;
}

void gp_record_store_prefault_stop(struct gp_record_store *st)
{
    headroom_release(st);
    struct gp_record_arena *a = st->arena;
    if (!a || !a->th_running)
        return;
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->th, NULL);
    a->th_running = 0;
    /* give back what was populated beyond the last byte: up to 16 MiB of RSS
     * the post-processing would otherwise carry */
    size_t used = gp_record_pages_with_nul(st->bytes.len);
    if (a->faulted > used) /* (shared pages: DONTNEED would only unmap them, REMOVE frees them) */
        madvise(a->base + used, a->faulted - used, a->memfd >= 0 ? MADV_REMOVE : MADV_DONTNEED);
    a->faulted = used < a->faulted ? used : a->faulted;
}

/* Asks the helper to keep pages populated a little beyond len. */
static void prefault_ahead(struct gp_record_arena *a, size_t len)
{
    if (!a->th_running)
        return;
    size_t ahead = len / 8;
    ahead = ahead < AHEAD_MIN ? AHEAD_MIN : ahead > AHEAD_MAX ? AHEAD_MAX : ahead;
    if (len + ahead / 2 <= a->want_seen)
        return; /* still comfortably ahead: no lock, no wake */
    size_t w = (len + ahead + 4095) & ~(size_t)4095;
    if (w > a->reserved)
        w = a->reserved;
    pthread_mutex_lock(&a->mu);
    if (w > a->want) {
        a->want = w;
        pthread_cond_signal(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
    a->want_seen = w;
}

/* Room for n more bytes plus the NUL. */
static int bytes_reserve(struct gp_record_store *st, size_t n)
{
    struct gp_record_arena *a = st->arena;
    if (!a) {
        if (gp_buf_reserve(&st->bytes, n) == 0)
            return 0;
        headroom_release(st); /* the store is full: the rest of the run gets the headroom */
        return -GP_ENOMEM;
    }
    if (st->bytes.len + n + 1 <= a->reserved)
        return 0;
    /* outgrew the reservation: move it (rare; the helper must not run meanwhile) */
    int was_running = a->th_running;
    gp_record_store_prefault_stop(st);
    size_t nr = a->reserved;
    while (nr < st->bytes.len + n + 1)
        nr *= 2;
    size_t off = (size_t)(a->base - a->map);
    void *m = MAP_FAILED;
    /* (a memfd's mapping may not reach past the file's end) */
    if (a->memfd < 0 || ftruncate(a->memfd, (off_t)(nr + off)) == 0)
        m = mremap(a->map, a->map_len, nr + off, MREMAP_MAYMOVE);
    if (m == MAP_FAILED) {
        if (was_running)
            gp_record_store_prefault_start(st);
        return -GP_ENOMEM;
    }
    a->map = m;
    a->map_len = nr + off;
    a->base = (char *)m + off;
    a->reserved = nr;
    st->bytes.data = a->base;
    st->bytes.cap = nr;
    if (was_running)
        gp_record_store_prefault_start(st);
    return 0;
}

/* Copies a response into the arena with non-temporal stores: the bytes are
 * not read again until post-processing, so going around the cache saves the
 * read-for-ownership of every destination line (about 1.7x memcpy's speed
 * for 55 KB responses into populated pages, measured on the dev host). */
static void copy_out(char *d, const char *s, size_t n)
{
#if defined(__SSE2__)
    if (n >= 4096) {
        size_t head = (16 - ((uintptr_t)d & 15)) & 15;
        memcpy(d, s, head);
        d += head;
        s += head;
        n -= head;
        for (; n >= 64; d += 64, s += 64, n -= 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(s + 32)), e = _mm_loadu_si128((const __m128i *)(s + 48));
            _mm_stream_si128((__m128i *)d, a);
            _mm_stream_si128((__m128i *)(d + 16), b);
            _mm_stream_si128((__m128i *)(d + 32), c);
            _mm_stream_si128((__m128i *)(d + 48), e);
        }
        _mm_sfence(); /* order the streamed stores before anything that publishes them */
    }
#endif
    memcpy(d, s, n);
}

static void bytes_put(struct gp_record_store *st, const void *p, size_t n)
{
    if (n)
        copy_out(st->bytes.data + st->bytes.len, p, n);
    st->bytes.len += n;
    st->bytes.data[st->bytes.len] = '\0';
}

static int grow(struct gp_record_store *st, void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 256;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np) {
        headroom_release(st);
        return -GP_ENOMEM;
    }
    *p = np;
    *cap = nc;
    return 0;
}

/* Charges n bytes to the store's budget (record.h); -GP_ENOMEM when hard
 * is set and they would pass its hard limit, nothing charged. Published to
 * the shared counter in batches: an atomic add per network read bounced its
 * cache line between the workers; BUDGET_BATCH per worker unseen is nothing. */
#define BUDGET_BATCH (256u << 10)

static int charge(struct gp_record_store *st, uint64_t n, int hard)
{
    struct gp_record_budget *b = st->budget;
    if (!b || !b->limit)
        return 0;
    uint64_t seen = atomic_load_explicit(&b->charged, memory_order_relaxed) + st->budget_unpublished;
    if (hard && b->hard && seen + n > b->hard)
        return -GP_ENOMEM;
    st->budget_unpublished += n;
    if (st->budget_unpublished >= BUDGET_BATCH)
        gp_record_budget_publish(st);
    return 0;
}

static void uncharge(struct gp_record_store *st, uint64_t n)
{
    if (!st->budget || !st->budget->limit)
        return;
    if (st->budget_unpublished >= n)
        st->budget_unpublished -= n;
    else /* published with the charge */
        atomic_fetch_sub_explicit(&st->budget->charged, n, memory_order_relaxed);
}

/* What a record with n chunks and nbytes of its own bytes costs the budget. */
static uint64_t record_cost(size_t n, size_t nbytes)
{
    return sizeof(struct gp_record) + GP_RECORD_POST_PER_RECORD +
           (uint64_t)n * (sizeof(struct gp_chunk) + GP_RECORD_POST_PER_CHUNK) + nbytes;
}

int gp_record_put_bytes(struct gp_record_store *st, const void *p, size_t n, uint64_t *off)
{
    if (charge(st, n, 1))
        return -GP_ENOMEM;
    if (bytes_reserve(st, n)) {
        uncharge(st, n);
        return -GP_ENOMEM;
    }
    *off = st->bytes.len;
    bytes_put(st, p, n);
    if (st->arena)
        prefault_ahead(st->arena, st->bytes.len);
    return 0;
}

long gp_record_append_placed(struct gp_record_store *st, const struct gp_record *rec,
                             const struct gp_chunk *chunks, size_t n, const char *err_text, size_t err_len)
{
    /* (placed error text: charged when put.) Never refused at the hard
     * limit: the request whose bytes it refused is recorded as failed, not
     * lost, and a record is small next to the bytes the limit holds back. */
    uint64_t cost = record_cost(n, err_text ? err_len : 0);
    charge(st, cost, 0);
    if (grow(st, (void **)&st->recs, &st->cap, st->n + 1, sizeof *st->recs) ||
        grow(st, (void **)&st->chunks, &st->chunks_cap, st->nchunks + n, sizeof *st->chunks) ||
        bytes_reserve(st, err_len)) {
        uncharge(st, cost);
        return -GP_ENOMEM;
    }
    struct gp_record *r = &st->recs[st->n];
    /* append-only (record.h): placed chunks and a placed error text are
     * already in the arena, the newest last (checked O(1): that one) */
    assert(!n || chunks[n - 1].off + chunks[n - 1].len <= st->bytes.len);
    assert(err_text || !err_len || rec->err_off + err_len <= st->bytes.len);
    *r = *rec;
    r->chunk_first = st->nchunks;
    r->n_chunks = (uint32_t)n;
    if (n)
        memcpy(&st->chunks[st->nchunks], chunks, n * sizeof *chunks);
    st->nchunks += n;
    r->err_len = (uint32_t)err_len;
    if (err_len && !err_text)
        return (long)st->n++; /* already placed at rec->err_off */
    r->err_off = st->bytes.len;
    if (err_len)
        bytes_put(st, err_text, err_len);
    return (long)st->n++;
}

int gp_record_store_take_bytes(struct gp_record_store *dst, struct gp_record_store *src, uint64_t *shift)
{
    struct gp_record_arena *sa = src->arena, *da = dst->arena;
    if (!sa || sa->th_running || (da && da->th_running))
        return -1;
    if (!da && !dst->bytes.len) {
        /* the first one: dst takes the whole arena */
        gp_buf_free(&dst->bytes);
        dst->bytes = src->bytes;
        dst->arena = sa;
        memset(&src->bytes, 0, sizeof src->bytes);
        src->arena = NULL;
        *shift = 0;
        return 0;
    }
    if (!da)
        return -1;
    /* the pages move (page tables only: no copy, no zeroing) to a 2 MiB
     * boundary past dst's bytes, so transparent huge pages stay whole; the gap
     * is address space, never touched. */
    size_t off = (dst->bytes.len + 1 + HUGE_ALIGN - 1) & ~(size_t)(HUGE_ALIGN - 1);
    size_t len = gp_record_pages_with_nul(src->bytes.len);
    if (off > da->reserved || len > da->reserved - off)
        return -1;
    if (mremap(sa->base, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, da->base + off) == MAP_FAILED)
        return -1;
    da->foreign = 1;
    dst->bytes.len = off + src->bytes.len; /* src's NUL came along */
    /* What is left of src's mapping goes now, around the hole the move left.
     * Keeping it for gp_record_store_free was a bug: malloc may map its next
     * large block into that hole (the merge grows dst->recs right after), and
     * the munmap of src's whole original range then took the block with it
     * (--workers 2, 200,000 requests: SIGSEGV in the metrics). */
    char *end = sa->map + sa->map_len;
    if (sa->base > sa->map)
        munmap(sa->map, (size_t)(sa->base - sa->map));
    if (sa->base + len < end)
        munmap(sa->base + len, (size_t)(end - (sa->base + len)));
    sa->map = NULL;
    sa->map_len = 0;
    sa->base = NULL;
    sa->reserved = 0;
    src->bytes.len = 0;
    src->bytes.data = NULL;
    src->bytes.cap = 0;
    *shift = off;
    return 0;
}

int gp_record_store_reserve_tail(struct gp_record_store *st, size_t n, size_t nc, size_t nb, char **bytes,
                                 uint64_t *base)
{
    if (n > SIZE_MAX - st->n || nc > SIZE_MAX - st->nchunks || nb > SIZE_MAX / 2 ||
        grow(st, (void **)&st->recs, &st->cap, st->n + n, sizeof *st->recs) ||
        grow(st, (void **)&st->chunks, &st->chunks_cap, st->nchunks + nc, sizeof *st->chunks) ||
        bytes_reserve(st, nb))
        return -GP_ENOMEM;
    *base = st->bytes.len;
    *bytes = st->bytes.data + st->bytes.len;
    st->bytes.len += nb;
    st->bytes.data[st->bytes.len] = '\0';
    /* the whole span at once: the helper populates it while the caller's
     * copy (MPI's) fills it from the front (nothing to populate for bytes
     * that were mapped: gp_record_store_map_tail) */
    if (st->arena && nb)
        prefault_ahead(st->arena, st->bytes.len);
    return 0;
}

int gp_record_join_chunks(struct gp_record_store *st, const struct gp_chunk *chunks, size_t n, uint64_t t,
                          struct gp_buf *scratch, struct gp_chunk *out)
{
    uint64_t total = 0;
    int contiguous = 1;
    for (size_t i = 0; i < n; i++) {
        total += chunks[i].len;
        if (i && chunks[i].off != chunks[i - 1].off + chunks[i - 1].len)
            contiguous = 0;
    }
    out->t_ns = t;
    out->off = chunks[0].off;
    out->len = (uint32_t)total;
    if (contiguous)
        return 0;
    gp_buf_reset(scratch);
    for (size_t i = 0; i < n; i++)
        if (gp_buf_append(scratch, gp_record_bytes(st, &chunks[i]), chunks[i].len))
            return -GP_ENOMEM;
    /* scratch first: putting may move the arena the chunks point into */
    return gp_record_put_bytes(st, scratch->data, scratch->len, &out->off);
}

long gp_record_append(struct gp_record_store *st, const struct gp_record *rec,
                      const struct gp_chunk *chunks, size_t n, const void *bytes, size_t nbytes,
                      const char *err_text, size_t err_len)
{
    uint64_t cost = record_cost(n, nbytes + err_len);
    if (charge(st, cost, 1))
        return -GP_ENOMEM;
    if (grow(st, (void **)&st->recs, &st->cap, st->n + 1, sizeof *st->recs) ||
        grow(st, (void **)&st->chunks, &st->chunks_cap, st->nchunks + n, sizeof *st->chunks) ||
        bytes_reserve(st, nbytes + err_len)) {
        uncharge(st, cost);
        return -GP_ENOMEM;
    }
    struct gp_record *r = &st->recs[st->n];
    assert(!n || chunks[n - 1].off + chunks[n - 1].len <= nbytes); /* offsets are into `bytes` */
    *r = *rec;
    uint64_t base = st->bytes.len;
    bytes_put(st, bytes, nbytes);
    r->chunk_first = st->nchunks;
    r->n_chunks = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        st->chunks[st->nchunks + i] = chunks[i];
        st->chunks[st->nchunks + i].off = base + chunks[i].off;
    }
    st->nchunks += n;
    r->err_off = st->bytes.len;
    r->err_len = (uint32_t)err_len;
    if (err_len)
        bytes_put(st, err_text, err_len);
    if (st->arena)
        prefault_ahead(st->arena, st->bytes.len);
    return (long)st->n++;
}

struct order {
    uint64_t t;
    size_t i;
};

static int order_cmp(const void *a, const void *b)
{
    const struct order *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

int gp_record_store_sort_by_start(struct gp_record_store *st)
{
    struct order *o = malloc((st->n ? st->n : 1) * sizeof *o);
    struct gp_record *recs = malloc((st->n ? st->n : 1) * sizeof *recs);
    if (!o || !recs) {
        free(o);
        free(recs);
        return -GP_ENOMEM;
    }
    for (size_t i = 0; i < st->n; i++)
        o[i] = (struct order){st->recs[i].t_start_ns, i};
    qsort(o, st->n, sizeof *o, order_cmp);
    for (size_t i = 0; i < st->n; i++)
        recs[i] = st->recs[o[i].i];
    memcpy(st->recs, recs, st->n * sizeof *recs);
    free(recs);
    free(o);
    return 0;
}
