/* Unit tests for core/: buffers, JSON string escaping, Python text, atomic files, errors. */
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/pytext.h"
#include "core/stats.h"
#include "core/test.h"

#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_buf_append(void)
{
    struct gp_buf b = {0};
    CHECK_INT(gp_buf_puts(&b, "abc"), 0);
    CHECK_INT(gp_buf_printf(&b, "-%d-", 42), 0);
    CHECK_STR(b.data, "abc-42-");
    gp_buf_reset(&b);
    CHECK_INT(b.len, 0);
    for (int i = 0; i < 10000; i++)
        gp_buf_putc(&b, 'x');
    CHECK_INT(b.len, 10000);
    gp_buf_free(&b);
}

static void test_json_str(void)
{
    struct gp_buf b = {0};
    const char in[] = "a\"b\\c\n\x01\xc3\xa9\xff";
    gp_buf_json_str(&b, in, sizeof in - 1);
    CHECK_STR(b.data, "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\\ufffd\"");
    gp_buf_free(&b);
}

/* The flag variants, on input long enough to take the 16-byte block path
 * with escapes straddling block edges and a UTF-8 sequence split by one. */
static void test_json_str_flags(void)
{
    struct gp_buf b = {0};
    const char in[] = "0123456789abcd\xc3\xa9\"x\x7f\x1f/0123456789abcdef\xf0\x9f\x98\x80\xff\ttail";
    gp_json_str(&b, in, sizeof in - 1, 0);
    CHECK_STR(b.data, "\"0123456789abcd\xc3\xa9\\\"x\x7f\\u001f/0123456789abcdef\xf0\x9f\x98\x80\\ufffd\\ttail\"");
    gp_buf_reset(&b);
    gp_json_str(&b, in, sizeof in - 1, GP_JSON_PYTHON);
    CHECK_STR(b.data, "\"0123456789abcd\\u00e9\\\"x\\u007f\\u001f/0123456789abcdef\\ud83d\\ude00\\ufffd\\ttail\"");
    gp_buf_reset(&b);
    gp_json_str(&b, in, sizeof in - 1, GP_JSON_RAPIDJSON);
    CHECK_STR(b.data, "\"0123456789abcd\xc3\xa9\\\"x\x7f\\u001F/0123456789abcdef\xf0\x9f\x98\x80\xff\\ttail\"");
    gp_buf_reset(&b);
    /* a string of nothing but escapes: the 6-bytes-per-byte worst case */
    char ctl[100];
    memset(ctl, 1, sizeof ctl);
    CHECK_INT(gp_json_str(&b, ctl, sizeof ctl, 0), 0);
    CHECK_INT(b.len, 2 + 6 * sizeof ctl);
    gp_buf_free(&b);
}

static const char *repr(double x)
{
    static char out[64];
    gp_py_float_repr(x, out, sizeof out);
    return out;
}

static void test_py_float(void)
{
    CHECK_STR(repr(4.0), "4.0");
    CHECK_STR(repr(1e-05), "1e-05");
    CHECK_STR(repr(0.0001), "0.0001");
    CHECK_STR(repr(1e16), "1e+16");
    CHECK_STR(repr(1e15), "1000000000000000.0");
    CHECK_STR(repr(0.1 + 0.2), "0.30000000000000004");
    CHECK_STR(repr(-0.0), "-0.0");
    CHECK_STR(repr(-1.0 / 0.0), "-inf");
    struct gp_buf b = {0};
    gp_py_float(&b, 0.0 / 0.0);
    gp_buf_putc(&b, ' ');
    gp_py_float(&b, 1.0 / 0.0);
    gp_buf_putc(&b, ' ');
    gp_fmt_2f_commas(&b, -1234567.891);
    CHECK_STR(b.data, "NaN Infinity -1,234,567.89");
    gp_buf_free(&b);
    CHECK_INT(gp_float_round_trip_prec(0.1, 1), 1);
    CHECK_INT(gp_float_round_trip_prec(0.1, 15), 15);
    CHECK_INT(gp_float_round_trip_prec(61.599999999999994, 1), 17);
    CHECK_INT(gp_float_round_trip_prec(0.0 / 0.0, 15), 17);
}

static void test_json_dump(void)
{
    json_error_t je;
    json_t *v = json_loads("{\"a\":[1,2.5,\"\\u00e9\"],\"b\":{}}", 0, &je);
    CHECK(v != NULL);
    struct gp_buf b = {0};
    gp_json_dump(&b, v, 2, 0, GP_JSON_PYTHON);
    CHECK_STR(b.data, "{\n  \"a\": [\n    1,\n    2.5,\n    \"\\u00e9\"\n  ],\n  \"b\": {}\n}");
    gp_buf_reset(&b);
    gp_json_dump(&b, v, -1, 0, GP_JSON_PYTHON);
    CHECK_STR(b.data, "{\"a\": [1, 2.5, \"\\u00e9\"], \"b\": {}}");
    gp_buf_reset(&b);
    gp_json_dump(&b, v, -1, 0, GP_JSON_RAPIDJSON);
    CHECK_STR(b.data, "{\"a\":[1,2.5,\"\xc3\xa9\"],\"b\":{}}");
    json_decref(v);
    gp_buf_free(&b);
}

static void test_atomic_write(void)
{
    char dir[] = "/tmp/gp-core-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    gp_path_join(path, sizeof path, dir, "a/b");
    struct gp_error err = {0};
    CHECK_INT(gp_mkdir_p(path, &err), 0);
    gp_path_join(path, sizeof path, dir, "a/b/f.txt");
    CHECK_INT(gp_write_file_atomic(path, "hello", 5, &err), 0);
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(gp_read_file(path, &data, &len, &err), 0);
    CHECK_INT(len, 5);
    CHECK_STR(data, "hello");
    free(data);
    CHECK(gp_read_file("/nonexistent/x", &data, &len, &err) < 0);
    CHECK(strstr(err.msg, "/nonexistent/x") != NULL);
    unlink(path);
}

static void test_err_prefix(void)
{
    struct gp_error err = {0};
    CHECK_INT(gp_err(&err, GP_EINVAL, "bad %s", "x"), -GP_EINVAL);
    gp_err_prefix(&err, "file %s", "f.json");
    CHECK_STR(err.msg, "file f.json: bad x");
}

/* The invariants docs/ARCHITECTURE.md lists are assert()ed, so the build
 * must keep asserts: no NDEBUG (the unit tests use the library's own
 * flags). And one of them does fire: percentiles of an unsorted array abort
 * (in a child, its assert message sent to /dev/null). */
static void test_asserts_are_active(void)
{
#ifdef NDEBUG
    CHECK(!"NDEBUG is defined: the invariants' assert()s are compiled out");
#endif
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 2);
        double unsorted[2] = {3.0, 1.0};
        volatile double p = gp_percentile_sorted(unsorted, 2, 50);
        (void)p;
        _exit(0);
    }
    int st = 0;
    CHECK_INT(waitpid(pid, &st, 0), pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
}

int main(void)
{
    GP_RUN(test_buf_append);
    GP_RUN(test_json_str);
    GP_RUN(test_json_str_flags);
    GP_RUN(test_py_float);
    GP_RUN(test_json_dump);
    GP_RUN(test_atomic_write);
    GP_RUN(test_err_prefix);
    GP_RUN(test_asserts_are_active);
    return gp_test_summary();
}
