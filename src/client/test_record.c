/* client/test_record.c — the record store: chunk offsets rebased into the
 * shared byte arena, error text placement, growth across many appends, and
 * the prefaulted arena (bytes kept exact across non-temporal copies, moves
 * past the reservation and helper restarts), and the workers' merge moving
 * the arenas instead of copying them, and the MPI gather's bulk merge at
 * the tail (gp_record_store_reserve_tail / _commit_tail). */
#include "client/client.h"
#include "client/record.h"
#include "core/error.h"
#include "core/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_append_and_read_back(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    struct gp_record r = {.t_start_ns = 10, .t_end_ns = 50, .entry = 3, .http_status = 200};
    struct gp_chunk c[2] = {{.t_ns = 20, .off = 0, .len = 5}, {.t_ns = 30, .off = 5, .len = 3}};
    CHECK_INT(gp_record_append(&st, &r, c, 2, "helloabc", 8, NULL, 0), 0);
    r.http_status = 500;
    r.flags = GP_REC_FAILED;
    struct gp_chunk c2 = {.t_ns = 60, .off = 0, .len = 4};
    CHECK_INT(gp_record_append(&st, &r, &c2, 1, "oops", 4, "HTTP 500", 8), 1);
    CHECK_INT(st.n, 2);
    CHECK_INT(st.nchunks, 3);
    const struct gp_record *a = &st.recs[0], *b = &st.recs[1];
    CHECK_INT(a->n_chunks, 2);
    CHECK_INT(a->err_len, 0);
    CHECK(!memcmp(gp_record_bytes(&st, gp_record_chunk(&st, a, 1)), "abc", 3));
    CHECK_INT(gp_record_chunk(&st, a, 1)->t_ns, 30);
    CHECK_INT(b->chunk_first, 2);
    CHECK(!memcmp(gp_record_bytes(&st, gp_record_chunk(&st, b, 0)), "oops", 4));
    CHECK(!memcmp(st.bytes.data + b->err_off, "HTTP 500", 8));
    CHECK_INT(b->err_len, 8);
    gp_record_store_free(&st);
}

static void test_many(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    st.mono0_ns = 1000;
    st.wall0_ns = 5000;
    for (int i = 0; i < 5000; i++) {
        struct gp_record r = {.t_start_ns = (uint64_t)i, .entry = (uint32_t)i};
        struct gp_chunk c = {.t_ns = (uint64_t)i + 1, .off = 0, .len = 1};
        char ch = (char)('a' + i % 26);
        CHECK(gp_record_append(&st, &r, &c, 1, &ch, 1, NULL, 0) == i);
    }
    CHECK_INT(st.n, 5000);
    CHECK_INT(*gp_record_bytes(&st, gp_record_chunk(&st, &st.recs[4999], 0)), 'a' + 4999 % 26);
    CHECK_INT(gp_record_wall_ns(&st, 1500), 5500);
    gp_record_store_free(&st);
    CHECK_INT(st.n, 0);
}

/* Appends records of odd sizes (small ones take memcpy, >= 4 KiB the
 * streamed copy at unaligned destinations) into a 1 MiB reservation so that
 * it is moved several times while the helper runs; every byte must read back. */
static void test_prefault_arena(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    struct gp_record r0 = {.entry = 1};
    struct gp_chunk c0 = {.t_ns = 1, .off = 0, .len = 3};
    CHECK_INT(gp_record_append(&st, &r0, &c0, 1, "pre", 3, NULL, 0), 0); /* malloc'd, then moved */
    st.arena_reserve = 1u << 20;
    CHECK_INT(gp_record_store_prefault_start(&st), 0);
    CHECK(st.arena != NULL);
    static char buf[70001];
    size_t total = 3;
    for (int i = 0; i < 200; i++) {
        size_t n = i % 7 == 0 ? (size_t)(17 + i) : 4093 + (size_t)i * 331 % 65000;
        for (size_t k = 0; k < n; k++)
            buf[k] = (char)('A' + (i * 7 + (int)k) % 53);
        struct gp_record r = {.entry = (uint32_t)i};
        struct gp_chunk c[2] = {{.t_ns = 1, .off = 0, .len = (uint32_t)(n / 2)},
                                {.t_ns = 2, .off = n / 2, .len = (uint32_t)(n - n / 2)}};
        const char *e = i % 50 == 0 ? "boom" : NULL;
        CHECK(gp_record_append(&st, &r, c, 2, buf, n, e, e ? 4 : 0) == i + 1);
        total += n + (e ? 4 : 0);
        if (i == 120) { /* a stop/start in the middle, as between two phases */
            gp_record_store_prefault_stop(&st);
            CHECK_INT(gp_record_store_prefault_start(&st), 0);
        }
    }
    gp_record_store_prefault_stop(&st);
    CHECK_INT(st.bytes.len, total);
    CHECK(st.bytes.cap > total);
    CHECK_INT(st.bytes.data[st.bytes.len], 0);
    CHECK(!memcmp(gp_record_bytes(&st, gp_record_chunk(&st, &st.recs[0], 0)), "pre", 3));
    int bad = 0;
    for (int i = 0; i < 200; i++) {
        const struct gp_record *r = &st.recs[i + 1];
        size_t k = 0;
        for (uint32_t j = 0; j < r->n_chunks; j++) {
            const struct gp_chunk *c = gp_record_chunk(&st, r, j);
            const char *p = gp_record_bytes(&st, c);
            for (uint32_t q = 0; q < c->len; q++, k++)
                bad += p[q] != (char)('A' + (i * 7 + (int)k) % 53);
        }
        if (i % 50 == 0)
            bad += r->err_len != 4 || memcmp(st.bytes.data + r->err_off, "boom", 4) != 0;
    }
    CHECK_INT(bad, 0);
    gp_record_store_free(&st);
    CHECK(st.arena == NULL && st.bytes.data == NULL);
}

/* Two transfers whose reads interleave in the arena, appended with absolute
 * offsets: each record reads back its own bytes in order. */
static void test_placed_interleaved(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    struct gp_chunk a[2], b[2];
    CHECK_INT(gp_record_put_bytes(&st, "a1", 2, &a[0].off), 0);
    CHECK_INT(gp_record_put_bytes(&st, "bb1", 3, &b[0].off), 0);
    CHECK_INT(gp_record_put_bytes(&st, "a22", 3, &a[1].off), 0);
    CHECK_INT(gp_record_put_bytes(&st, "b2", 2, &b[1].off), 0);
    a[0].len = 2, a[1].len = 3, b[0].len = 3, b[1].len = 2;
    a[0].t_ns = 1, a[1].t_ns = 3, b[0].t_ns = 2, b[1].t_ns = 4;
    struct gp_record ra = {.entry = 0}, rb = {.entry = 1};
    CHECK_INT(gp_record_append_placed(&st, &rb, b, 2, "E", 1), 0);
    CHECK_INT(gp_record_append_placed(&st, &ra, a, 2, NULL, 0), 1);
    const struct gp_record *r0 = &st.recs[0], *r1 = &st.recs[1];
    CHECK(!memcmp(gp_record_bytes(&st, gp_record_chunk(&st, r0, 0)), "bb1", 3));
    CHECK(!memcmp(gp_record_bytes(&st, gp_record_chunk(&st, r0, 1)), "b2", 2));
    CHECK(!memcmp(gp_record_bytes(&st, gp_record_chunk(&st, r1, 0)), "a1", 2));
    CHECK(!memcmp(gp_record_bytes(&st, gp_record_chunk(&st, r1, 1)), "a22", 3));
    CHECK_INT(gp_record_chunk(&st, r1, 1)->t_ns, 3);
    CHECK_INT(r0->err_len, 1);
    CHECK_INT(st.bytes.data[r0->err_off], 'E');
    CHECK_INT(r1->err_len, 0);
    CHECK_INT(st.bytes.len, 11);

    /* joining: back-to-back reads are spanned in place, interleaved ones copied */
    struct gp_buf scratch = {0};
    struct gp_chunk one, c[2];
    CHECK_INT(gp_record_put_bytes(&st, "xy", 2, &c[0].off), 0);
    CHECK_INT(gp_record_put_bytes(&st, "z", 1, &c[1].off), 0);
    c[0].len = 2, c[1].len = 1;
    size_t before = st.bytes.len;
    CHECK_INT(gp_record_join_chunks(&st, c, 2, 9, &scratch, &one), 0);
    CHECK_INT(one.off, c[0].off);
    CHECK_INT(one.len, 3);
    CHECK_INT(one.t_ns, 9);
    CHECK_INT(st.bytes.len, before);
    CHECK_INT(gp_record_join_chunks(&st, b, 2, 7, &scratch, &one), 0);
    CHECK_INT(one.len, 5);
    CHECK(one.off >= before);
    CHECK(!memcmp(gp_record_bytes(&st, &one), "bb1b2", 5));
    gp_buf_free(&scratch);
    gp_record_store_free(&st);
}

#if defined(__SANITIZE_ADDRESS__)
#define GP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GP_ASAN 1
#endif
#endif

/* Under an address-space limit the store holds back headroom; the first
 * failed growth gives it back, so what follows (records of the requests in
 * flight, metrics, artifacts) finds room. Run in a child: the limit stays
 * there. Not under ASan, whose shadow memory needs more address space than
 * any such limit allows. */
static void test_headroom_under_rlimit_as(void)
{
#ifndef GP_ASAN
    pid_t pid = fork();
    if (pid == 0) {
        long vm_kb = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (!f || fscanf(f, "%ld", &vm_kb) != 1)
            _exit(10);
        fclose(f);
        vm_kb *= sysconf(_SC_PAGESIZE) / 1024;
        struct rlimit rl = {.rlim_cur = (rlim_t)(vm_kb + 256 * 1024) * 1024, .rlim_max = RLIM_INFINITY};
        if (setrlimit(RLIMIT_AS, &rl))
            _exit(11);
        struct gp_record_store st;
        gp_record_store_init(&st);
        if (gp_record_store_prefault_start(&st) == 0 || st.arena || st.headroom_len != (64u << 20))
            _exit(12); /* no reservation under the limit, 64 MiB held back instead */
        static char chunk[1 << 20];
        uint64_t off;
        int n = 0;
        while (gp_record_put_bytes(&st, chunk, sizeof chunk, &off) == 0)
            if (++n > 1024)
                _exit(13);
        if (st.headroom || n < 16)
            _exit(14); /* the failed growth released the headroom */
        void *p = malloc(48u << 20); /* ... which the end of the run can now use */
        if (!p)
            _exit(15);
        free(p);
        gp_record_store_free(&st);
        _exit(0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK_INT(WEXITSTATUS(status), 0);
#endif
}

/* Store w's record k: start time 1000 + 10k + w (interleaved with the other
 * stores'), response "w<w>k<k>:" + filler, every third with an error text and
 * every fifth with a sent body. */
static void fill_store(struct gp_record_store *st, int w, int n, int arena)
{
    gp_record_store_init(st);
    if (arena) {
        st->arena_reserve = 8u << 20;
        CHECK_INT(gp_record_store_prefault_start(st), 0);
    }
    char buf[9000], err[32];
    for (int k = 0; k < n; k++) {
        int len = snprintf(buf, sizeof buf, "w%dk%d:", w, k);
        size_t total = 5000 + (size_t)(k * 37 % 3000);
        memset(buf + len, 'a' + w, total - (size_t)len);
        uint64_t off = 0;
        if (k % 5 == 0) /* a session turn's body, put before the response */
            CHECK_INT(gp_record_put_bytes(st, "BODY", 4, &off), 0);
        struct gp_record r = {.t_start_ns = 1000 + (uint64_t)k * 10 + (uint64_t)w, .entry = (uint32_t)k,
                              .worker = (uint32_t)w, .body_off = off, .body_len = k % 5 == 0 ? 4 : 0};
        struct gp_chunk c[2] = {{.t_ns = 1, .off = 0, .len = 1000},
                                {.t_ns = 2, .off = 1000, .len = (uint32_t)(total - 1000)}};
        int el = snprintf(err, sizeof err, "err w%d k%d", w, k);
        CHECK(gp_record_append(st, &r, c, 2, buf, total, k % 3 ? NULL : err, k % 3 ? 0 : (size_t)el) == k);
    }
    if (arena)
        gp_record_store_prefault_stop(st);
}

static void test_merge_moves_bytes(void)
{
    struct gp_record_store src[3], dst;
    fill_store(&src[0], 0, 300, 1);
    fill_store(&src[1], 1, 250, 0); /* malloc'd: copied */
    fill_store(&src[2], 2, 280, 1);
    gp_record_store_init(&dst);
    struct gp_record_store *srcs[3] = {&src[0], &src[1], &src[2]};
    struct gp_error err = {0};
    CHECK_INT(gp_client_merge_stores(&dst, srcs, 3, &err), 0);
    CHECK(dst.arena != NULL);
    CHECK_INT(src[0].bytes.len, 0); /* moved */
    CHECK_INT(src[2].bytes.len, 0);
    CHECK(src[1].bytes.len > 0);    /* copied */
    CHECK_INT(dst.n, 830);
    int bad = 0;
    uint64_t prev = 0;
    for (size_t i = 0; i < dst.n; i++) {
        const struct gp_record *r = &dst.recs[i];
        int w = (int)((r->t_start_ns - 1000) % 10), k = (int)((r->t_start_ns - 1000) / 10);
        char head[32], err_txt[32];
        int hl = snprintf(head, sizeof head, "w%dk%d:", w, k);
        size_t total = 5000 + (size_t)(k * 37 % 3000);
        const struct gp_chunk *c0 = gp_record_chunk(&dst, r, 0), *c1 = gp_record_chunk(&dst, r, 1);
        bad += r->t_start_ns < prev || r->n_chunks != 2 || c0->len + c1->len != total;
        bad += memcmp(gp_record_bytes(&dst, c0), head, (size_t)hl) != 0;
        bad += gp_record_bytes(&dst, c1)[c1->len - 1] != 'a' + w;
        int el = snprintf(err_txt, sizeof err_txt, "err w%d k%d", w, k);
        if (k % 3)
            bad += r->err_len != 0;
        else
            bad += r->err_len != (uint32_t)el || memcmp(dst.bytes.data + r->err_off, err_txt, (size_t)el);
        bad += k % 5 ? r->body_len != 0 : memcmp(gp_record_body(&dst, r), "BODY", 4) != 0;
        prev = r->t_start_ns;
    }
    CHECK_INT(bad, 0);
    CHECK_INT(dst.bytes.data[dst.bytes.len], 0);
    /* dst still takes appends after the merge (rank 0 adds the other ranks') */
    struct gp_record r = {.entry = 999};
    struct gp_chunk c = {.t_ns = 1, .off = 0, .len = 4};
    CHECK(gp_record_append(&dst, &r, &c, 1, "tail", 4, NULL, 0) == 830);
    CHECK(!memcmp(gp_record_bytes(&dst, gp_record_chunk(&dst, &dst.recs[830], 0)), "tail", 4));
    for (int i = 0; i < 3; i++)
        gp_record_store_free(&src[i]);
    gp_record_store_free(&dst);
}

/* Regression: after the merge moved a worker's bytes away, freeing that
 * worker's store unmapped its whole original range, including whatever malloc
 * had since mapped into the hole the move left (dst->recs, in the crash seen
 * with --workers 2 and 200,000 requests). */
static void test_merge_frees_only_its_own(void)
{
    struct gp_record_store src[2], dst;
    fill_store(&src[0], 0, 50, 1);
    fill_store(&src[1], 1, 50, 1);
    gp_record_store_init(&dst);
    char *hole = src[1].bytes.data; /* moves to dst: this address range is free after the merge */
    struct gp_record_store *srcs[2] = {&src[0], &src[1]};
    struct gp_error err = {0};
    CHECK_INT(gp_client_merge_stores(&dst, srcs, 2, &err), 0);
    CHECK_INT(src[1].bytes.len, 0);
    /* someone else's mapping lands in the hole, as malloc's next large block may */
    void *other = mmap(hole, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    CHECK(other == (void *)hole);
    for (int i = 0; i < 2; i++)
        gp_record_store_free(&src[i]);
    CHECK_INT(msync(hole, 4096, MS_ASYNC), 0); /* still mapped: freeing src left it alone */
    if (other == (void *)hole)
        munmap(other, 4096);
    CHECK_INT(dst.n, 100);
    gp_record_store_free(&dst);
}

/* The MPI gather's merge: another store's arena, records and chunks copied
 * whole to the tail of a store with records of its own (arena prefaulted, as
 * on rank 0), then rebased: every record reads back its chunks, error text
 * and sent body; a record pointing outside the bytes it came with is refused
 * and nothing is counted. */
static void fill_src_into(struct gp_record_store *src)
{
    static char buf[9000];
    for (int i = 0; i < 40; i++) {
        size_t n = 1 + (size_t)i * 211 % 8999;
        for (size_t k = 0; k < n; k++)
            buf[k] = (char)('a' + (i + (int)k) % 26);
        struct gp_record r = {.t_start_ns = 100 + (uint64_t)i, .entry = (uint32_t)i};
        uint64_t off;
        if (i % 3 == 0) { /* a sent body, put first */
            CHECK_INT(gp_record_put_bytes(src, "BODY", 4, &off), 0);
            r.body_off = off;
            r.body_len = 4;
        }
        struct gp_chunk c[2];
        CHECK_INT(gp_record_put_bytes(src, buf, n / 2, &c[0].off), 0);
        CHECK_INT(gp_record_put_bytes(src, "zz", 2, &off), 0); /* unreferenced, travels too */
        CHECK_INT(gp_record_put_bytes(src, buf + n / 2, n - n / 2, &c[1].off), 0);
        c[0].len = (uint32_t)(n / 2);
        c[1].len = (uint32_t)(n - n / 2);
        c[0].t_ns = c[1].t_ns = 200 + (uint64_t)i;
        const char *e = i % 5 == 0 ? "boom" : NULL;
        CHECK(gp_record_append_placed(src, &r, c, 2, e, e ? 4 : 0) == i);
    }
}

static void fill_src(struct gp_record_store *src)
{
    gp_record_store_init(src);
    fill_src_into(src);
}

/* dst's records first .. first + src->n are src's, rebased: each reads back
 * its chunks, error text and sent body. Returns the number of mismatches. */
static int merged_mismatches(const struct gp_record_store *dst, size_t first, size_t first_chunk,
                             const struct gp_record_store *src)
{
    int bad = 0;
    for (size_t i = 0; i < src->n; i++) {
        const struct gp_record *a = &src->recs[i], *b = &dst->recs[first + i];
        bad += a->t_start_ns != b->t_start_ns || a->n_chunks != b->n_chunks || a->err_len != b->err_len ||
               a->body_len != b->body_len || b->chunk_first != a->chunk_first + first_chunk;
        for (uint32_t j = 0; j < a->n_chunks && j < b->n_chunks; j++) {
            const struct gp_chunk *ca = gp_record_chunk(src, a, j), *cb = gp_record_chunk(dst, b, j);
            bad += ca->len != cb->len || ca->t_ns != cb->t_ns ||
                   memcmp(gp_record_bytes(src, ca), gp_record_bytes(dst, cb), ca->len) != 0;
        }
        if (a->err_len)
            bad += memcmp(dst->bytes.data + b->err_off, "boom", 4) != 0;
        if (a->body_len)
            bad += memcmp(gp_record_body(dst, b), "BODY", 4) != 0;
    }
    return bad;
}

static void copy_tail(struct gp_record_store *dst, const struct gp_record_store *src, uint64_t *base)
{
    char *bytes = NULL;
    CHECK_INT(gp_record_store_reserve_tail(dst, src->n, src->nchunks, src->bytes.len, &bytes, base), 0);
    memcpy(bytes, src->bytes.data, src->bytes.len);
    memcpy(dst->recs + dst->n, src->recs, src->n * sizeof *src->recs);
    memcpy(dst->chunks + dst->nchunks, src->chunks, src->nchunks * sizeof *src->chunks);
}

static void test_bulk_tail(void)
{
    struct gp_record_store src, dst;
    fill_src(&src);
    gp_record_store_init(&dst);
    struct gp_record r0 = {.t_start_ns = 1};
    struct gp_chunk c0 = {.t_ns = 2, .off = 0, .len = 3};
    CHECK_INT(gp_record_append(&dst, &r0, &c0, 1, "own", 3, "err", 3), 0);
    dst.arena_reserve = 1u << 20;
    CHECK_INT(gp_record_store_prefault_start(&dst), 0);
    uint64_t base = 0;
    copy_tail(&dst, &src, &base);
    CHECK_INT(base, 6);
    CHECK_INT(gp_record_store_commit_tail(&dst, src.n, src.nchunks, base, src.bytes.len), 0);
    gp_record_store_prefault_stop(&dst);
    CHECK_INT(dst.n, 41);
    CHECK_INT(dst.nchunks, 81);
    CHECK_INT(dst.bytes.len, 6 + src.bytes.len);
    CHECK_INT(dst.bytes.data[dst.bytes.len], 0);
    CHECK(!memcmp(gp_record_bytes(&dst, gp_record_chunk(&dst, &dst.recs[0], 0)), "own", 3));
    CHECK_INT(merged_mismatches(&dst, 1, 1, &src), 0);
    /* a chunk past the bytes, then a record past the chunks: refused */
    size_t n = dst.n, nc = dst.nchunks;
    copy_tail(&dst, &src, &base);
    dst.chunks[dst.nchunks + 5].off = src.bytes.len - 1;
    CHECK_INT(gp_record_store_commit_tail(&dst, src.n, src.nchunks, base, src.bytes.len), -GP_EIO);
    CHECK_INT(dst.n, n);
    CHECK_INT(dst.nchunks, nc);
    copy_tail(&dst, &src, &base);
    dst.recs[dst.n + 39].chunk_first = src.nchunks - 1;
    CHECK_INT(gp_record_store_commit_tail(&dst, src.n, src.nchunks, base, src.bytes.len), -GP_EIO);
    copy_tail(&dst, &src, &base);
    dst.recs[dst.n].err_off = src.bytes.len - 2;
    CHECK_INT(gp_record_store_commit_tail(&dst, src.n, src.nchunks, base, src.bytes.len), -GP_EIO);
    CHECK_INT(dst.n, n);
    gp_record_store_free(&src);
    gp_record_store_free(&dst);
}

/* The same merge on one host without the copy: a store made with
 * shm_arena keeps its bytes in a memfd, which another store maps at its
 * tail through /proc/<pid>/fd/<fd> (here our own pid) after checking the
 * nonce in its name; the records then read back as after the copy, the
 * pages are shared (not copied), and they outlive the sender's store. A
 * wrong nonce, a file that is not that memfd, and stores without a memfd
 * arena are refused with nothing changed. */
static void test_shm_tail(void)
{
    struct gp_record_store src, dst, plain;
    gp_record_store_init(&src);
    src.shm_arena = 1;
    src.arena_reserve = 4u << 20;
    CHECK_INT(gp_record_store_prefault_start(&src), 0);
    fill_src_into(&src);
    struct gp_record_shm h;
    CHECK_INT(gp_record_store_shm_handle(&src, &h), -1); /* the helper still runs */
    gp_record_store_prefault_stop(&src);
    CHECK_INT(gp_record_store_shm_handle(&src, &h), 0);
    CHECK_INT(h.pid, getpid());
    CHECK_INT(h.len, src.bytes.len);
    fill_src(&plain); /* malloc'd bytes */
    struct gp_record_shm hp;
    CHECK_INT(gp_record_store_shm_handle(&plain, &hp), -1);
    plain.arena_reserve = 1u << 20; /* an anonymous reservation */
    CHECK_INT(gp_record_store_prefault_start(&plain), 0);
    gp_record_store_prefault_stop(&plain);
    CHECK_INT(gp_record_store_shm_handle(&plain, &hp), -1);

    gp_record_store_init(&dst);
    struct gp_record r0 = {.t_start_ns = 1};
    struct gp_chunk c0 = {.t_ns = 2, .off = 0, .len = 3};
    CHECK_INT(gp_record_append(&dst, &r0, &c0, 1, "own", 3, "err", 3), 0);
    uint64_t base = 0;
    CHECK_INT(gp_record_store_map_tail(&dst, &h, &base), -1); /* no mmap'd arena yet */
    dst.arena_reserve = 1u << 20;
    CHECK_INT(gp_record_store_prefault_start(&dst), 0);
    struct gp_record_shm bad = h;
    bad.nonce ^= 1;
    CHECK_INT(gp_record_store_map_tail(&dst, &bad, &base), -1);
    bad = h;
    bad.fd = 0; /* stdin: not that memfd */
    CHECK_INT(gp_record_store_map_tail(&dst, &bad, &base), -1);
    bad = h;
    bad.len = 8u << 20; /* more than dst has room for */
    CHECK_INT(gp_record_store_map_tail(&dst, &bad, &base), -1);
    CHECK_INT(dst.bytes.len, 6);

    CHECK_INT(gp_record_store_map_tail(&dst, &h, &base), 0);
    CHECK_INT(base, 4096); /* the first page boundary past dst's bytes and NUL */
    CHECK_INT(dst.bytes.len, 4096 + src.bytes.len);
    CHECK_INT(dst.bytes.data[dst.bytes.len], 0);
    char *bytes = NULL;
    uint64_t b2 = 0;
    CHECK_INT(gp_record_store_reserve_tail(&dst, src.n, src.nchunks, 0, &bytes, &b2), 0);
    memcpy(dst.recs + dst.n, src.recs, src.n * sizeof *src.recs);
    memcpy(dst.chunks + dst.nchunks, src.chunks, src.nchunks * sizeof *src.chunks);
    CHECK_INT(gp_record_store_commit_tail(&dst, src.n, src.nchunks, base, (size_t)h.len), 0);
    gp_record_store_prefault_stop(&dst);
    CHECK_INT(dst.n, 41);
    CHECK(!memcmp(gp_record_bytes(&dst, gp_record_chunk(&dst, &dst.recs[0], 0)), "own", 3));
    CHECK_INT(merged_mismatches(&dst, 1, 1, &src), 0);
    /* shared, not copied: a byte written by the sender shows at the tail */
    char was = src.bytes.data[10];
    src.bytes.data[10] = '#';
    CHECK_INT(dst.bytes.data[base + 10], '#');
    src.bytes.data[10] = was;
    /* the sender goes (its fd closes): the mapping keeps the bytes */
    char *copy = malloc(src.bytes.len);
    size_t len = src.bytes.len;
    if (copy)
        memcpy(copy, src.bytes.data, len);
    gp_record_store_free(&src);
    CHECK(copy && !memcmp(dst.bytes.data + base, copy, len));
    free(copy);
    gp_record_store_free(&plain);
    gp_record_store_free(&dst);
}

/* --max-memory: every put and append is charged (a record also for what the
 * metrics will need of it), reached stops sending, and nothing may pass the
 * hard limit: that put fails with the store unchanged. */
static void test_budget(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    struct gp_record_budget b = {.limit = 1000, .hard = 1500};
    st.budget = &b;
    uint64_t off;
    char buf[600] = {0};
    CHECK_INT(gp_record_put_bytes(&st, buf, 600, &off), 0);
    CHECK_INT(atomic_load(&b.charged) + st.budget_unpublished, 600);
    gp_record_budget_publish(&st);
    CHECK_INT(atomic_load(&b.charged), 600);
    CHECK(!gp_record_budget_reached(&b));
    struct gp_record r = {.t_start_ns = 1};
    struct gp_chunk c = {.t_ns = 2, .off = off, .len = 600};
    CHECK_INT(gp_record_append_placed(&st, &r, &c, 1, NULL, 0), 0);
    gp_record_budget_publish(&st);
    uint64_t want = 600 + sizeof(struct gp_record) + GP_RECORD_POST_PER_RECORD + sizeof(struct gp_chunk) +
                    GP_RECORD_POST_PER_CHUNK;
    CHECK_INT(atomic_load(&b.charged), want);
    CHECK(gp_record_budget_reached(&b));
    /* past the hard limit: refused, nothing stored, nothing charged */
    size_t len = st.bytes.len;
    CHECK_INT(gp_record_put_bytes(&st, buf, 1500 - want + 1, &off), -GP_ENOMEM);
    CHECK_INT(st.bytes.len, len);
    CHECK_INT(atomic_load(&b.charged), want);
    CHECK_INT(gp_record_append(&st, &r, NULL, 0, NULL, 0, "e", 1), -GP_ENOMEM);
    CHECK_INT(st.n, 1);
    /* ... but the record of the request it refused is still taken (failed, not lost) */
    uint64_t rec_cost = sizeof(struct gp_record) + GP_RECORD_POST_PER_RECORD + 3;
    CHECK_INT(gp_record_append_placed(&st, &r, NULL, 0, "oom", 3), 1);
    gp_record_budget_publish(&st);
    want += rec_cost;
    CHECK_INT(atomic_load(&b.charged), want);
    b.hard += rec_cost;
    CHECK_INT(gp_record_put_bytes(&st, buf, b.hard - want, &off), 0);
    CHECK_INT(st.budget_unpublished, b.hard - want);
    /* published in batches: a store's unpublished charges count for its own hard limit */
    CHECK_INT(gp_record_put_bytes(&st, buf, 1, &off), -GP_ENOMEM);
    gp_record_budget_publish(&st);
    CHECK_INT(atomic_load(&b.charged), b.hard);
    struct gp_record_budget big = {.limit = 1u << 30, .hard = 1u << 30};
    st.budget = &big;
    for (int i = 0; i < 500; i++)
        CHECK_INT(gp_record_put_bytes(&st, buf, 600, &off), 0);
    CHECK(atomic_load(&big.charged) > 0 && atomic_load(&big.charged) + st.budget_unpublished == 300000);
    st.budget_unpublished = 0;
    /* no budget (limit 0): nothing charged, nothing refused */
    struct gp_record_budget none = {0};
    st.budget = &none;
    CHECK_INT(gp_record_put_bytes(&st, buf, 600, &off), 0);
    CHECK_INT(atomic_load(&none.charged), 0);
    CHECK(!gp_record_budget_reached(&none) && !gp_record_budget_reached(NULL));
    gp_record_store_free(&st);
}

static void test_sort_by_start(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    const uint64_t t[6] = {30, 10, 20, 10, 5, 30};
    for (int i = 0; i < 6; i++) {
        struct gp_record r = {.t_start_ns = t[i], .entry = (uint32_t)i};
        struct gp_chunk c = {.t_ns = 1, .off = 0, .len = 1};
        char b = (char)('a' + i);
        CHECK(gp_record_append(&st, &r, &c, 1, &b, 1, NULL, 0) == i);
    }
    CHECK_INT(gp_record_store_sort_by_start(&st), 0);
    const uint32_t want[6] = {4, 1, 3, 2, 0, 5}; /* ties (10, 30) keep their order */
    int bad = 0;
    for (int i = 0; i < 6; i++) {
        const struct gp_record *r = &st.recs[i];
        bad += r->entry != want[i] || *gp_record_bytes(&st, gp_record_chunk(&st, r, 0)) != (char)('a' + r->entry);
    }
    CHECK_INT(bad, 0);
    gp_record_store_free(&st);
}

int main(void)
{
    GP_RUN(test_budget);
    GP_RUN(test_sort_by_start);
    GP_RUN(test_bulk_tail);
    GP_RUN(test_shm_tail);
    GP_RUN(test_merge_moves_bytes);
    GP_RUN(test_merge_frees_only_its_own);
    GP_RUN(test_headroom_under_rlimit_as);
    GP_RUN(test_append_and_read_back);
    GP_RUN(test_many);
    GP_RUN(test_prefault_arena);
    GP_RUN(test_placed_interleaved);
    return gp_test_summary();
}
