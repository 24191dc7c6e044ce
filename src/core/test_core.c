/* Unit tests for core/: buffers, JSON string escaping, atomic files, errors. */
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/test.h"

#include <stdlib.h>
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

int main(void)
{
    GP_RUN(test_buf_append);
    GP_RUN(test_json_str);
    GP_RUN(test_atomic_write);
    GP_RUN(test_err_prefix);
    return gp_test_summary();
}
