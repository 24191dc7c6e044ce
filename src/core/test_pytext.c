/* Unit tests: the Python-exact float repr and json.dumps writer of core/pytext.h. */
#include "core/buf.h"
#include "core/pytext.h"
#include "core/test.h"

#include <jansson.h>

static const char *real_repr(double x, struct gp_buf *b)
{
    gp_buf_reset(b);
    gp_py_float(b, x);
    return b->data;
}

static void test_python_real_repr(void)
{
    struct gp_buf b = {0};
    CHECK_STR(real_repr(0.7, &b), "0.7");
    CHECK_STR(real_repr(1.0, &b), "1.0");
    CHECK_STR(real_repr(100.0, &b), "100.0");
    CHECK_STR(real_repr(-0.0, &b), "-0.0");
    CHECK_STR(real_repr(0.0, &b), "0.0");
    CHECK_STR(real_repr(1e-5, &b), "1e-05");
    CHECK_STR(real_repr(0.0001, &b), "0.0001");
    CHECK_STR(real_repr(1e16, &b), "1e+16");
    CHECK_STR(real_repr(1e15, &b), "1000000000000000.0");
    CHECK_STR(real_repr(123456.789, &b), "123456.789");
    CHECK_STR(real_repr(0.1 + 0.2, &b), "0.30000000000000004");
    CHECK_STR(real_repr(1.5e300, &b), "1.5e+300");
    CHECK_STR(real_repr(-2.5e-7, &b), "-2.5e-07");
    gp_buf_free(&b);
}

static void test_python_dump(void)
{
    json_error_t je;
    json_t *v = json_loads("{\"a\":[1,2.5,\"x\\u00e9\\ud83d\\ude00/\\u0001\\u007f\\n\"],\"b\":{},\"c\":[],\"d\":null,"
                           "\"e\":true}",
                           0, &je);
    CHECK(v != NULL);
    struct gp_buf b = {0};
    gp_json_dump(&b, v, 2, 0, GP_JSON_PYTHON);
    CHECK_STR(b.data, "{\n  \"a\": [\n    1,\n    2.5,\n    \"x\\u00e9\\ud83d\\ude00/\\u0001\\u007f\\n\"\n  ],\n"
                      "  \"b\": {},\n  \"c\": [],\n  \"d\": null,\n  \"e\": true\n}");
    gp_buf_reset(&b);
    gp_json_dump(&b, v, -1, 0, GP_JSON_RAPIDJSON);
    CHECK_STR(b.data, "{\"a\":[1,2.5,\"x\xc3\xa9\xf0\x9f\x98\x80/\\u0001\x7f\\n\"],\"b\":{},\"c\":[],\"d\":null,"
                      "\"e\":true}");
    json_decref(v);
    gp_buf_free(&b);
}

int main(void)
{
    GP_RUN(test_python_real_repr);
    GP_RUN(test_python_dump);
    return gp_test_summary();
}
