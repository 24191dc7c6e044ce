/* core/test.h — the tiny unit-test harness every test_*.c uses.
 *
 * A test file defines functions `static void test_x(void)` and a main() that
 * calls GP_RUN(test_x) for each, then `return gp_test_summary();`.
 * CHECK* record a failure (file:line and the expression) and carry on, so
 * one run shows every broken assertion. The summary line is
 * "<binary>: N passed, N failed" and the exit status is non-zero on failure;
 * tests/run.sh adds the per-binary counts into the suite's closing line.
 *
 * Running one test: GP_TEST_FILTER=substr (environment) or `-t substr` on
 * the command line runs only the GP_RUN functions whose name contains substr
 * (the others are neither passed nor failed); a filter that matches no test
 * fails the binary, so a typo cannot pass silently. `-t` is read from
 * /proc/self/cmdline because the test mains take no arguments.
 */
#ifndef GP_CORE_TEST_H
#define GP_CORE_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <ftw.h>
#include <sys/stat.h>
#include <string.h>
#include <math.h>

static int gp_t_pass, gp_t_fail, gp_t_cur_failed, gp_t_skipped;
static const char *gp_t_name = "";

/* The name filter: NULL = run everything. Looked up once, on the first GP_RUN. */
static inline const char *gp_test_filter(void)
{
    static int done;
    static char arg[256];
    static const char *filter;
    if (done)
        return filter;
    done = 1;
    filter = getenv("GP_TEST_FILTER");
    if (filter && *filter)
        return filter;
    filter = NULL;
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return NULL;
    char cmd[4096];
    size_t n = fread(cmd, 1, sizeof cmd - 1, f);
    fclose(f);
    cmd[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(cmd + i) + 1) {
        if (strcmp(cmd + i, "-t") == 0 && i + 3 < n) {
            snprintf(arg, sizeof arg, "%s", cmd + i + 3);
            filter = arg;
            break;
        }
    }
    return filter;
}

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "  FAIL %s:%d [%s]: %s\n", __FILE__, __LINE__, gp_t_name, #cond); \
            gp_t_cur_failed = 1;                                                         \
        }                                                                                \
    } while (0)

#define CHECK_INT(a, b)                                                                  \
    do {                                                                                 \
        long long gp_a_ = (long long)(a), gp_b_ = (long long)(b);                        \
        if (gp_a_ != gp_b_) {                                                            \
            fprintf(stderr, "  FAIL %s:%d [%s]: %s == %s (%lld != %lld)\n", __FILE__,    \
                    __LINE__, gp_t_name, #a, #b, gp_a_, gp_b_);                          \
            gp_t_cur_failed = 1;                                                         \
        }                                                                                \
    } while (0)

#define CHECK_STR(a, b)                                                                  \
    do {                                                                                 \
        const char *gp_a_ = (a), *gp_b_ = (b);                                           \
        if (!gp_a_ || !gp_b_ || strcmp(gp_a_, gp_b_) != 0) {                             \
            fprintf(stderr, "  FAIL %s:%d [%s]: %s == %s (\"%s\" != \"%s\")\n", __FILE__, \
                    __LINE__, gp_t_name, #a, #b, gp_a_ ? gp_a_ : "(null)",               \
                    gp_b_ ? gp_b_ : "(null)");                                           \
            gp_t_cur_failed = 1;                                                         \
        }                                                                                \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                            \
    do {                                                                                 \
        double gp_a_ = (a), gp_b_ = (b);                                                 \
        if (!(fabs(gp_a_ - gp_b_) <= (tol))) {                                           \
            fprintf(stderr, "  FAIL %s:%d [%s]: %s ~= %s (%.17g vs %.17g)\n", __FILE__,  \
                    __LINE__, gp_t_name, #a, #b, gp_a_, gp_b_);                          \
            gp_t_cur_failed = 1;                                                         \
        }                                                                                \
    } while (0)

#define GP_RUN(fn)                                                                       \
    do {                                                                                 \
        if (gp_test_filter() && !strstr(#fn, gp_test_filter())) {                       \
            gp_t_skipped++;                                                              \
            break;                                                                       \
        }                                                                                \
        gp_t_name = #fn;                                                                 \
        gp_t_cur_failed = 0;                                                             \
        fn();                                                                            \
        if (gp_t_cur_failed) {                                                           \
            gp_t_fail++;                                                                 \
            fprintf(stderr, "not ok %s\n", #fn);                                         \
        } else {                                                                         \
            gp_t_pass++;                                                                 \
        }                                                                                \
    } while (0)

static inline int gp_test_summary_named(const char *name)
{
    if (gp_test_filter() && gp_t_pass + gp_t_fail == 0) {
        fprintf(stderr, "%s: no test name contains \"%s\" (GP_TEST_FILTER / -t)\n", name,
                gp_test_filter());
        gp_t_fail = 1;
    }
    printf("%s: %d passed, %d failed\n", name, gp_t_pass, gp_t_fail);
    if (gp_t_skipped)
        fprintf(stderr, "%s: %d tests not run (filter \"%s\")\n", name, gp_t_skipped,
                gp_test_filter());
    return gp_t_fail ? 1 : 0;
}
#define gp_test_summary() gp_test_summary_named(__FILE__)

/* A fresh directory under $TMPDIR (or /tmp) named <prefix>-XXXXXX into dir
 * (size n); the test removes it. NULL (and dir empty) on failure. */
static inline char *gp_test_mkdtemp(char *dir, size_t n, const char *prefix)
{
    const char *td = getenv("TMPDIR");
    snprintf(dir, n, "%s/%s-XXXXXX", td && *td ? td : "/tmp", prefix);
    if (!mkdtemp(dir)) {
        dir[0] = '\0';
        return NULL;
    }
    return dir;
}

static inline int gp_test_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes dir and everything in it (a test's scratch); says so on stderr when
 * it cannot. No shell: the path may hold any character. */
static inline void gp_test_rmtree(const char *dir)
{
    if (dir && dir[0] && nftw(dir, gp_test_rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

#endif
