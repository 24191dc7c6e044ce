/* Unit tests for core/: buffers, JSON string escaping, Python text, atomic files, the sorted directory
 * listing, the JSONL walk, errors. */
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

static int keep_dirs(const char *path, const char *name, void *arg)
{
    (*(int *)arg)++;
    return gp_is_dir(path) && name[0] != 'z';
}

/* gp_dir_list: dot files left out, strcmp order whatever readdir gives,
 * keep() sees path and name, a missing directory is -GP_ENOENT naming it. */
static void test_dir_list(void)
{
    char dir[256], p[512];
    CHECK(gp_test_mkdtemp(dir, sizeof dir, "gp-dirlist") != NULL);
    struct gp_error err = {0};
    static const char *const files[] = {"b.json", "a.json", ".hidden", "B.json"};
    for (size_t i = 0; i < 4; i++) {
        gp_path_join(p, sizeof p, dir, files[i]);
        CHECK_INT(gp_write_file_atomic(p, "x", 1, &err), 0);
    }
    static const char *const subs[] = {"sub2", "sub1", "zsub", ".git"};
    for (size_t i = 0; i < 4; i++) {
        gp_path_join(p, sizeof p, dir, subs[i]);
        CHECK_INT(gp_mkdir_p(p, &err), 0);
    }
    char **names = NULL;
    size_t n = 0;
    CHECK_INT(gp_dir_list(dir, NULL, NULL, &names, &n, &err), 0);
    static const char *const all[] = {"B.json", "a.json", "b.json", "sub1", "sub2", "zsub"};
    CHECK_INT(n, 6);
    for (size_t i = 0; i < n && i < 6; i++)
        CHECK_STR(names[i], all[i]);
    gp_dir_list_free(names, n);
    int calls = 0;
    CHECK_INT(gp_dir_list(dir, keep_dirs, &calls, &names, &n, &err), 0);
    CHECK_INT(calls, 6);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_STR(names[0], "sub1");
        CHECK_STR(names[1], "sub2");
    }
    gp_dir_list_free(names, n);
    CHECK_INT(gp_dir_list("/nonexistent/gp-dir", NULL, NULL, &names, &n, &err), -GP_ENOENT);
    CHECK(names == NULL && n == 0);
    CHECK(strstr(err.msg, "/nonexistent/gp-dir") != NULL);
    gp_test_rmtree(dir);
}

struct jl_seen {
    int n, nulls;
    long sum;
};

static int jl_count(json_t *o, void *arg)
{
    struct jl_seen *s = arg;
    s->n++;
    if (!o)
        s->nulls++;
    s->sum += (long)json_integer_value(json_object_get(o, "v"));
    return s->n == 99 ? 7 : 0;
}

/* gp_jsonl_each: every line parsed (NULL where not JSON or blank, the last
 * line with or without its newline), leaves the text as it was (compare walks
 * it twice), returns what stopped it. */
static void test_jsonl_each(void)
{
    const char *text = "{\"v\": 1}\n{\"v\": 2}\r\nnot json\n{\"v\": 4}";
    struct jl_seen s = {0};
    CHECK_INT(gp_jsonl_each(text, jl_count, &s), 0);
    CHECK_INT(s.n, 4);
    CHECK_INT(s.nulls, 1);
    CHECK_INT(s.sum, 7);
    CHECK_STR(text, "{\"v\": 1}\n{\"v\": 2}\r\nnot json\n{\"v\": 4}");
    memset(&s, 0, sizeof s);
    CHECK_INT(gp_jsonl_each("{\"v\": 1}\n\n{\"v\": 2}\n", jl_count, &s), 0);
    CHECK_INT(s.n, 3); /* the blank line is NULL; the newline at the end adds no line */
    CHECK_INT(s.nulls, 1);
    CHECK_INT(s.sum, 3);
    memset(&s, 0, sizeof s);
    s.n = 97;
    CHECK_INT(gp_jsonl_each("{}\n{}\n{}\n", jl_count, &s), 7);
    CHECK_INT(s.n, 99);
}

/* gp_jsonl_next: blank lines and trailing CR/spaces passed over, objects in
 * order, then 0; a bad line is an error naming path and line number. */
static void test_jsonl_file(void)
{
    char dir[256], p[512];
    CHECK(gp_test_mkdtemp(dir, sizeof dir, "gp-jsonl") != NULL);
    gp_path_join(p, sizeof p, dir, "r.jsonl");
    struct gp_error err = {0};
    const char *text = "{\"v\": 1}\r\n\n  \n{\"v\": 2} \n[3]\n";
    CHECK_INT(gp_write_file_atomic(p, text, strlen(text), &err), 0);
    struct gp_jsonl_file jf;
    CHECK_INT(gp_jsonl_open(&jf, p, &err), 0);
    json_t *o = NULL;
    CHECK_INT(gp_jsonl_next(&jf, &o, &err), 1);
    CHECK_INT(json_integer_value(json_object_get(o, "v")), 1);
    json_decref(o);
    CHECK_INT(gp_jsonl_next(&jf, &o, &err), 1);
    CHECK_INT(json_integer_value(json_object_get(o, "v")), 2);
    CHECK_INT(jf.lineno, 4);
    json_decref(o);
    CHECK_INT(gp_jsonl_next(&jf, &o, &err), -GP_EINVAL);
    CHECK(strstr(err.msg, "r.jsonl: line 5: expected a JSON object") != NULL);
    gp_jsonl_close(&jf);
    gp_path_join(p, sizeof p, dir, "none.jsonl");
    CHECK_INT(gp_jsonl_open(&jf, p, &err), -GP_EIO);
    CHECK(strstr(err.msg, "cannot read ") != NULL);
    gp_jsonl_close(&jf);
    gp_test_rmtree(dir);
}

/* gp_cmp_double: ascending, equal values (and -0.0 vs 0.0, and NaN against
 * anything) compare 0, the semantics of the copies it replaced. */
static void test_cmp_double(void)
{
    double one = 1.0, two = 2.0, nz = -0.0, pz = 0.0, nan = NAN;
    CHECK(gp_cmp_double(&one, &two) == -1);
    CHECK(gp_cmp_double(&two, &one) == 1);
    CHECK(gp_cmp_double(&one, &one) == 0);
    CHECK(gp_cmp_double(&nz, &pz) == 0);
    CHECK(gp_cmp_double(&nan, &one) == 0);
    CHECK(gp_cmp_double(&one, &nan) == 0);
    double v[] = {3.5, -1.0, 2.0, -7.25, 0.0};
    qsort(v, 5, sizeof *v, gp_cmp_double);
    for (size_t i = 1; i < 5; i++)
        CHECK(v[i - 1] <= v[i]);
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
    GP_RUN(test_dir_list);
    GP_RUN(test_jsonl_each);
    GP_RUN(test_jsonl_file);
    GP_RUN(test_cmp_double);
    GP_RUN(test_err_prefix);
    GP_RUN(test_asserts_are_active);
    return gp_test_summary();
}
