/* core/test_argv.c — the subcommand option table: value forms, ranges,
 * positionals, errors, generated --help. */
#include "core/argv.h"
#include "core/error.h"
#include "core/test.h"

#include <stdint.h>
#include <stdio.h>
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

    /* a flag with two spellings is named as the user typed it ("-o" said
     * "-o needs a value" when "--output" was typed, before) */
    const char *typed[] = {"--output", "-o"};
    for (int k = 0; k < 2; k++) {
        struct vals w = {0};
        char *last[] = {"t", (char *)typed[k], NULL};
        char *msg = NULL, want[128];
        stderr = open_memstream(&msg, &len);
        CHECK_INT(parse(&w, 2, last), GP_ARGV_ERROR);
        fclose(stderr);
        stderr = saved;
        snprintf(want, sizeof want, "genperf t: %s needs a value (see 'genperf t --help')\n", typed[k]);
        CHECK_STR(msg, want);
        free(msg);
    }

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

/* What the pass-through test's hook saw: the tokens it took, in order. */
struct taken {
    const char *tok[16];
    int n;
    char msg[256];
};

/* Takes "--" and the rest; "-m" with every following word; "--bad" is a
 * usage error; anything else one token. */
static int take(void *ctx, int argc, char **argv, int i, struct gp_error *err)
{
    struct taken *t = ctx;
    if (!strcmp(argv[i], "--bad"))
        return gp_err(err, GP_EINVAL, "--bad: not here"), 0;
    int n = 1;
    if (!strcmp(argv[i], "--"))
        n = argc - i;
    else if (!strcmp(argv[i], "-m"))
        while (i + n < argc && argv[i + n][0] != '-')
            n++;
    for (int k = 0; k < n && t->n < 16; k++)
        t->tok[t->n++] = argv[i + k];
    return n;
}

static void own_report(void *ctx, const char *msg)
{
    struct taken *t = ctx;
    snprintf(t->msg, sizeof t->msg, "%s", msg);
}

static int parse_pass(struct taken *t, const char **seen, int argc, char **argv)
{
    const struct gp_optdef defs[] = {GP_STR("--type", NULL, seen, "T", NULL)};
    const struct gp_optspec spec = {"t", "usage: t\n", NULL, defs, GP_NDEFS(defs), 12, t};
    const struct gp_argv_pass pass = {take, own_report};
    return gp_argv_parse_pass(&spec, &pass, argc, argv);
}

static void test_pass(void)
{
    /* the table's options are consumed wherever they stand; the rest is
     * handed on in order, the hook deciding how many tokens each takes */
    struct taken t = {0};
    const char *type = NULL;
    char *argv[] = {"t", "-m", "a", "b", "--x", "1", "--type=c", "pos", "--", "--type", "d", "-h", NULL};
    CHECK_INT(parse_pass(&t, &type, 12, argv), 0);
    CHECK_STR(type, "c");
    const char *want[] = {"-m", "a", "b", "--x", "1", "pos", "--", "--type", "d", "-h"};
    CHECK_INT(t.n, 10);
    for (int k = 0; k < 10 && k < t.n; k++)
        CHECK_STR(t.tok[k], want[k]);

    /* usage errors, the hook's and the table's, go to the command's report */
    struct taken u = {0};
    char *bad[] = {"t", "--y", "--bad", NULL};
    CHECK_INT(parse_pass(&u, &type, 3, bad), GP_ARGV_ERROR);
    CHECK_STR(u.msg, "--bad: not here");
    struct taken w = {0};
    char *novalue[] = {"t", "--y", "--type", NULL};
    CHECK_INT(parse_pass(&w, &type, 3, novalue), GP_ARGV_ERROR);
    CHECK_STR(w.msg, "--type needs a value");
    CHECK_INT(w.n, 1);

    /* --help still answers, before the hook sees a later token */
    struct taken h = {0};
    char *help[] = {"t", "--z", "--help", "--bad", NULL};
    FILE *saved = stdout;
    char *out = NULL;
    size_t len = 0;
    stdout = open_memstream(&out, &len);
    CHECK_INT(parse_pass(&h, &type, 4, help), GP_ARGV_HELP);
    fclose(stdout);
    stdout = saved;
    CHECK_STR(out, "usage: t\n");
    CHECK_INT(h.n, 1);
    free(out);
}

int main(void)
{
    GP_RUN(test_forms);
    GP_RUN(test_errors);
    GP_RUN(test_help);
    GP_RUN(test_pass);
    return gp_test_summary();
}
