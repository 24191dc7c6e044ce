/* core/test_bigfile.c — a big file's bytes are exactly what was appended,
 * whether it stayed buffered, switched to O_DIRECT after its probe (from an
 * offset that is not on a block boundary), or went back to buffered after a
 * piece larger than the aligned buffer; a missing directory fails at open
 * with the path in the message; a direct write that fails on the I/O thread
 * fails the flush that follows it, or the finish, and leaves no file. */
#include "core/bigfile.h"
#include "core/error.h"
#include "core/test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Appends pieces of varied sizes (one of big bytes when big > 0) to f and to
 * want; returns nonzero on a failed flush. */
static int fill(struct gp_bigfile *f, struct gp_buf *want, size_t total, size_t big)
{
    unsigned x = 12345;
    size_t n = 0;
    char piece[70000];
    while (n < total) {
        x = x * 1103515245u + 12345u;
        size_t len = 1 + (x >> 8) % sizeof piece;
        if (big && n > total * 2 / 3) { /* after some direct writes */
            len = big; /* once: more than the aligned buffer holds */
            big = 0;
        }
        for (size_t i = 0; i < len && i < sizeof piece; i++)
            piece[i] = (char)('a' + (n + i) % 26);
        for (size_t done = 0; done < len;) {
            size_t k = len - done < sizeof piece ? len - done : sizeof piece;
            if (gp_buf_append(&f->b, piece, k) || gp_buf_append(want, piece, k))
                return -1;
            done += k;
        }
        n += len;
        if (gp_bigfile_maybe_flush(f))
            return -1;
    }
    return 0;
}

static int same_bytes(const char *path, const struct gp_buf *want)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    char *got = malloc(want->len + 1);
    size_t n = got ? fread(got, 1, want->len + 1, fp) : 0;
    fclose(fp);
    int ok = got && n == want->len && memcmp(got, want->data, n) == 0;
    free(got);
    return ok;
}

static int direct_works_in(const char *dir)
{
    char p[600];
    snprintf(p, sizeof p, "%s/probe", dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_DIRECT, 0600);
    if (fd >= 0)
        close(fd);
    unlink(p);
    return fd >= 0;
}

/* A fresh temp dir in dir[] where O_DIRECT works: 1. 0 (after printing why
 * `what` is skipped, the dir removed) where the file system refuses it. */
static int direct_dir(char *dir, size_t n, const char *what)
{
    CHECK(gp_test_mkdtemp(dir, n, "gp-bigfile") != NULL);
    if (direct_works_in(dir))
        return 1;
    printf("note: O_DIRECT refused in %s: %s\n", dir, what);
    rmdir(dir);
    return 0;
}

/* direct: the policy (bigfile.h); the probe after 1 MiB + 1 byte so the
 * switch starts mid-block. */
static void one(const char *dir, const char *name, int direct, size_t big, int direct_ok)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct gp_bigfile f;
    struct gp_buf want = {0};
    struct gp_error err = {0};
    CHECK_INT(gp_bigfile_open(&f, path, direct, &err), 0);
    f.probe_bytes = (1u << 20) + 1;
    CHECK_INT(fill(&f, &want, 13u << 20, big), 0);
    uint64_t before_finish = f.direct_bytes;
    CHECK_INT(gp_bigfile_finish(&f, 0, &err), 0);
    CHECK(same_bytes(path, &want));
    if (!direct || !direct_ok)
        CHECK(f.direct_bytes == 0);
    else if (direct > 0)
        CHECK(before_finish >= (4u << 20)); /* after the probe, the blocks went direct */
    if (direct > 0 && direct_ok && big)
        CHECK(f.direct_bytes < want.len - (4u << 20)); /* and after the big piece, buffered */
    gp_buf_free(&want);
    unlink(path);
}

static void test_bytes_every_path(void)
{
    char dir[512];
    CHECK(gp_test_mkdtemp(dir, sizeof dir, "gp-bigfile") != NULL);
    int direct_ok = direct_works_in(dir);
    if (!direct_ok)
        printf("note: O_DIRECT refused in %s: only the buffered path is checked\n", dir);
    one(dir, "direct", 1, 0, direct_ok);
    one(dir, "buffered", 0, 0, direct_ok);
    one(dir, "direct-then-buffered", 1, 6u << 20, direct_ok);
    rmdir(dir);
}

/* dir/name opened always-direct after a probe of just over 1 MiB, its
 * direct writes failing (fail_errno, 0 = EIO) once one reaches past 6 MiB. */
static void open_failing(struct gp_bigfile *f, char *path, size_t cap, const char *dir, const char *name,
                         int fail_errno)
{
    struct gp_error err = {0};
    snprintf(path, cap, "%s/%s", dir, name);
    CHECK_INT(gp_bigfile_open(f, path, 1, &err), 0);
    f->probe_bytes = (1u << 20) + 1;
    f->fail_at = 6u << 20;
    f->fail_errno = fail_errno;
}

/* A direct write failing on the I/O thread (fail_at: every one reaching
 * past 6 MiB): formatting of 10 MiB ends before any flush could see it, so
 * finish reports it; of 20 MiB, the flush after the failed write does (at
 * about 13 MiB, flushes come every 4 MiB). Either way no file is left. */
static void one_failing(const char *dir, size_t total, int stops_early)
{
    char path[600];
    struct gp_bigfile f;
    struct gp_buf want = {0};
    struct gp_error err = {0};
    open_failing(&f, path, sizeof path, dir, "failing.json", 0);
    int rc = fill(&f, &want, total, 0);
    CHECK_INT(rc, stops_early ? -1 : 0);
    if (stops_early)
        CHECK(want.len < (15u << 20)); /* not only at the end */
    CHECK(f.direct_bytes > 0);
    CHECK(gp_bigfile_finish(&f, 0, &err) < 0);
    CHECK(strstr(err.msg, path) != NULL);
    CHECK(strstr(err.msg, strerror(EIO)) != NULL);
    CHECK(access(path, F_OK) != 0);
    gp_buf_free(&want);
}

/* The file system refusing a direct write after all (EINVAL before a byte,
 * seen only when the next flush reaps it): those bytes and the rest go
 * through the FILE*, and the file is still exactly what was appended. */
static void test_direct_refused_late(void)
{
    char dir[512];
    if (!direct_dir(dir, sizeof dir, "nothing to refuse late"))
        return;
    char path[600];
    struct gp_bigfile f;
    struct gp_buf want = {0};
    struct gp_error err = {0};
    open_failing(&f, path, sizeof path, dir, "refused.json", EINVAL);
    CHECK_INT(fill(&f, &want, 20u << 20, 0), 0);
    CHECK_INT(gp_bigfile_finish(&f, 0, &err), 0);
    CHECK(same_bytes(path, &want));
    CHECK(f.direct_bytes > 0 && f.direct_bytes < (6u << 20)); /* the first write went direct, no more */
    gp_buf_free(&want);
    unlink(path);
    CHECK(rmdir(dir) == 0);
}

static void test_direct_write_error(void)
{
    char dir[512];
    if (!direct_dir(dir, sizeof dir, "no I/O thread to fail"))
        return;
    one_failing(dir, 10u << 20, 0); /* reported by finish */
    one_failing(dir, 20u << 20, 1); /* reported by a gp_bigfile_maybe_flush */
    CHECK(rmdir(dir) == 0);         /* empty: the temp files went too */
}

static void test_abandoned_and_missing_dir(void)
{
    struct gp_bigfile f;
    struct gp_error err = {0};
    CHECK(gp_bigfile_open(&f, "/nonexistent-gp-dir/x.json", 0, &err) < 0);
    CHECK(strstr(err.msg, "/nonexistent-gp-dir/x.json") != NULL);

    char dir[512];
    CHECK(gp_test_mkdtemp(dir, sizeof dir, "gp-bigfile") != NULL);
    char path[600];
    snprintf(path, sizeof path, "%s/oom.json", dir);
    CHECK_INT(gp_bigfile_open(&f, path, 0, &err), 0);
    CHECK_INT(gp_buf_puts(&f.b, "partial"), 0);
    CHECK(gp_bigfile_finish(&f, 1, &err) < 0); /* abandoned: no file, no temp file */
    CHECK(access(path, F_OK) != 0);
    CHECK(rmdir(dir) == 0);                    /* empty: the temp file went too */
}

int main(void)
{
    GP_RUN(test_bytes_every_path);
    GP_RUN(test_direct_write_error);
    GP_RUN(test_direct_refused_late);
    GP_RUN(test_abandoned_and_missing_dir);
    return gp_test_summary();
}
