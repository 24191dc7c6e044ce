/* core/test_argv.c — the subcommand option table: value forms, ranges,
 * positionals, errors, generated --help. */
#include "core/argv.h"
#include "core/error.h"
#include "core/test.h"

#include <stdint.h>
#include <stdlib.h>

struct vals {
    int flag, port;
    const char *db, *out;
    double rate;
    uint64_t seed;
    int ncalls;
};

static int count_call(void *ctx, const char *name, const char *v, struct gp_error *err)
{
    struct vals *x = ctx;
    if (!strcmp(v, "bad"))
        return gp_err(err, GP_EINVAL, "%s '%s': not good", name, v);
    x->ncalls++;
    return 0;
}

#define SPEC(x)                                                                                       \
    const struct gp_optdef defs[] = {                                                                 \
        GP_FLAG("--flag", "-f", &(x).flag, "a flag"),                                                 \
        GP_UNFLAG("--no-flag", NULL, &(x).flag, "not it"),                                            \
        GP_NUM(GP_OPT_INT, "--port", NULL, &(x).port, "N", 0, 65535, "port"),                          \
        GP_STR("--db", NULL, &(x).db, "URL", "store\nsecond line"),                                   \
        GP_STR("-o", "--output", &(x).out, "FILE", "output"),                                         \
        GP_NUM(GP_OPT_DOUBLE, "--rate", NULL, &(x).rate, "P", 0, 1, "probability"),                    \
        GP_NUM(GP_OPT_U64, "--seed", NULL, &(x).seed, "N", 0, 1.8e19, "seed"),                         \
        GP_CALL("--call", NULL, count_call, "V", "calls"),                                            \
        GP_TEXT("a heading:"),                                                                        \
        GP_STR("--hidden", NULL, &(x).out, "X", NULL),                                                \
    };                                                                                                \
    const struct gp_optspec spec = {"t", "usage: t\n", "end\n", defs, GP_NDEFS(defs), 12, &(x)}

static int parse(struct vals *x, int argc, char **argv)
{
    SPEC(*x);
    return gp_argv_parse(&spec, argc, argv);
}

static void test_forms(void)
{
    struct vals x = {0};
    char *argv[] = {"t", "a", "--flag", "--port", "80", "--db=sqlite:///x", "b", "-o", "-", "--rate", "0.5",
                    "--seed", "1e3", "--call", "1", "--call=2", "--hidden", "h", NULL};
    int n = parse(&x, 18, argv);
    CHECK_INT(n, 2);
    CHECK_STR(argv[1], "a");
    CHECK_STR(argv[2], "b");
    CHECK_INT(x.flag, 1);
    CHECK_INT(x.port, 80);
    CHECK_STR(x.db, "sqlite:///x");
    CHECK_STR(x.out, "h");
    CHECK_NEAR(x.rate, 0.5, 1e-12);
    CHECK_INT(x.seed, 1000);
    CHECK_INT(x.ncalls, 2);

    struct vals y = {0};
    char *argv2[] = {"t", "-f", "--no-flag", "--output", "--db", NULL}; /* a value may start with '-' */
    CHECK_INT(parse(&y, 5, argv2), 0);
    CHECK_INT(y.flag, 0);
    CHECK_STR(y.out, "--db");
}

static void test_errors(void)
{
    char *cases[][3] = {
        {"--bogus", NULL, NULL}, {"--port", "65536", NULL}, {"--port", "1.5", NULL}, {"--port", "x", NULL},
        {"--rate", "nan", NULL}, {"--flag=1", NULL, NULL},  {"--db", NULL, NULL},    {"--call", "bad", NULL},
        {"-x", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct vals x = {0};
        char *argv[4] = {"t", cases[i][0], cases[i][1], NULL};
        CHECK_INT(parse(&x, cases[i][1] ? 3 : 2, argv), GP_ARGV_ERROR);
    }
    /* the message says what to do: a bound, or the expected kind of value */
    struct vals z = {0};
    char *big[] = {"t", "--port", "65536", NULL};
    char *err = NULL;
    size_t len = 0;
    FILE *saved = stderr;
    stderr = open_memstream(&err, &len);
    CHECK_INT(parse(&z, 3, big), GP_ARGV_ERROR);
    fclose(stderr);
    stderr = saved;
    CHECK_STR(err, "genperf t: --port '65536' is too large; use at most 65535 (see 'genperf t --help')\n");
    free(err);

    struct vals x = {0};
    char *argv[] = {"t", "--port", "1", "-h", "--bogus", NULL};
    CHECK_INT(parse(&x, 5, argv), GP_ARGV_HELP);
}

static void test_help(void)
{
    struct vals x = {0};
    SPEC(x);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    gp_argv_help(&spec, fp);
    fclose(fp);
    CHECK(strstr(buf, "usage: t\n  --flag, -f  a flag\n") == buf);
    CHECK(strstr(buf, "  --db URL    store\n              second line\n"));
    CHECK(strstr(buf, "  -o, --output FILE\n              output\n"));
    CHECK(strstr(buf, "\na heading:\n"));
    CHECK(!strstr(buf, "--hidden"));
    CHECK(strstr(buf, "end\n") == buf + len - 4);
    free(buf);
}

int main(void)
{
    GP_RUN(test_forms);
    GP_RUN(test_errors);
    GP_RUN(test_help);
    return gp_test_summary();
}
