/* core/argv.h — the command-line parser of every subcommand but `profile`
 * (which mimics argparse: profile/profile_args.c).
 *
 * A command describes its options once, as a table of struct gp_optdef; the
 * table drives parsing, value checks and the --help text, and every argv
 * error is printed in one format:
 *     genperf CMD: MESSAGE (see 'genperf CMD --help')
 * and answered with exit status 2.
 *
 * Accepted forms: "--name VALUE", "--name=VALUE" (long names), "-o VALUE";
 * the token after a value-taking option is its value even if it starts with
 * '-'. A token that does not start with '-' (or is "-" alone) is positional.
 *
 * Owns nothing: string values point into argv; positionals are moved to
 * the front of argv (argv[1..n], in order), which only reorders pointers.
 */
#ifndef GP_CORE_ARGV_H
#define GP_CORE_ARGV_H

#include <stdio.h>

struct gp_error;

enum gp_opttype {
    GP_OPT_FLAG,    /* int *dst = 1 */
    GP_OPT_UNFLAG,  /* int *dst = 0 (--no-x) */
    GP_OPT_STR,     /* const char **dst = the value */
    GP_OPT_INT,     /* int *dst; integer in [min, max] */
    GP_OPT_LONG,    /* long *dst; integer in [min, max] */
    GP_OPT_U32,     /* uint32_t *dst; integer in [min, max] */
    GP_OPT_U64,     /* uint64_t *dst; integer in [min, max] */
    GP_OPT_DOUBLE,  /* double *dst; number in [min, max] */
    GP_OPT_CALL,    /* call(ctx, name, value, err); a non-zero return is a usage error */
    GP_OPT_TEXT,    /* not an option: a line of its own in --help (a heading) */
};

struct gp_optdef {
    const char *name;     /* "--db" (GP_OPT_TEXT: the line) */
    const char *alias;    /* another spelling ("-o", "--served-model-name") or NULL */
    enum gp_opttype type;
    void *dst;
    const char *metavar;  /* shown after the name in --help; NULL for flags */
    const char *help;     /* description, lines after the first indented under it; NULL: not listed */
    double min, max;      /* numeric types: the accepted range */
    int (*call)(void *ctx, const char *name, const char *value, struct gp_error *err);
};

struct gp_optspec {
    const char *cmd;               /* "ingest": messages say "genperf ingest: ..." */
    const char *usage;             /* printed first by --help (usage lines, what the command does) */
    const char *epilog;            /* printed after the options, or NULL */
    const struct gp_optdef *defs;
    int n_defs;
    int width;                     /* --help: descriptions start 2 + width columns in */
    void *ctx;                     /* passed to GP_OPT_CALL */
};

#define GP_ARGV_HELP (-1)   /* --help / -h was given and printed: exit 0 */
#define GP_ARGV_ERROR (-2)  /* a usage error was printed: exit 2 */

/* Parses argv[1..argc) (argv[0] is the subcommand). Returns n, the number
 * of positionals, now argv[1..n]; or GP_ARGV_HELP or GP_ARGV_ERROR. */
int gp_argv_parse(const struct gp_optspec *spec, int argc, char **argv);

/* Pass-through, for a command that hands the options it does not know to
 * `genperf profile` children in any position (analyze, search). Every token
 * the table does not own -- an unknown option or a positional -- goes, in
 * order, to take(spec->ctx, argc, argv, i, err), which returns how many
 * tokens from argv[i] on it took (>= 1; a value, or all the rest after
 * "--"), or 0 with err set for a usage error. The table's own options,
 * --help and the usage errors stay as gp_argv_parse has them; with report
 * set, a usage error's message goes to report(spec->ctx, msg) instead of
 * the common format (commands that print GenAI-Perf's argparse form). */
struct gp_argv_pass {
    int (*take)(void *ctx, int argc, char **argv, int i, struct gp_error *err);
    void (*report)(void *ctx, const char *msg);
};

/* gp_argv_parse with pass-through (pass NULL: gp_argv_parse itself).
 * Returns 0 (no positionals: take has them), GP_ARGV_HELP or GP_ARGV_ERROR. */
int gp_argv_parse_pass(const struct gp_optspec *spec, const struct gp_argv_pass *pass, int argc, char **argv);

/* Table rows. A row's alias is a second spelling (or NULL). */
#define GP_FLAG(name, alias, dst, help) {name, alias, GP_OPT_FLAG, dst, NULL, help, 0, 0, NULL}
#define GP_UNFLAG(name, alias, dst, help) {name, alias, GP_OPT_UNFLAG, dst, NULL, help, 0, 0, NULL}
#define GP_STR(name, alias, dst, metavar, help) {name, alias, GP_OPT_STR, dst, metavar, help, 0, 0, NULL}
#define GP_NUM(type, name, alias, dst, metavar, lo, hi, help) {name, alias, type, dst, metavar, help, lo, hi, NULL}
#define GP_CALL(name, alias, fn, metavar, help) {name, alias, GP_OPT_CALL, NULL, metavar, help, 0, 0, fn}
#define GP_TEXT(line) {line, NULL, GP_OPT_TEXT, NULL, NULL, NULL, 0, 0, NULL}
#define GP_NDEFS(defs) ((int)(sizeof(defs) / sizeof(defs)[0]))

/* Writes the --help text generated from the table. */
void gp_argv_help(const struct gp_optspec *spec, FILE *fp);

/* Prints a command's own usage error in the common format; returns 2 (the
 * exit status) so a command can `return gp_argv_error(&spec, ...)`. */
int gp_argv_error(const struct gp_optspec *spec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
