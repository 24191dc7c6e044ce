/* core/argv.c — table-driven subcommand options; see argv.h. */
#include "core/argv.h"
#include "core/error.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The parse in progress: the table, and the pass-through hooks (NULL for
 * a command that knows all its options). */
struct parse {
    const struct gp_optspec *spec;
    const struct gp_argv_pass *pass;
};

static int vreport(const struct parse *p, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (p->pass && p->pass->report)
        p->pass->report(p->spec->ctx, msg);
    else
        fprintf(stderr, "genperf %s: %s (see 'genperf %s --help')\n", p->spec->cmd, msg, p->spec->cmd);
    return 2;
}

static int report(const struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int report(const struct parse *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(p, fmt, ap);
    va_end(ap);
    return 2;
}

int gp_argv_error(const struct gp_optspec *spec, const char *fmt, ...)
{
    const struct parse p = {spec, NULL};
    va_list ap;
    va_start(ap, fmt);
    vreport(&p, fmt, ap);
    va_end(ap);
    return 2;
}

void gp_argv_help(const struct gp_optspec *spec, FILE *fp)
{
    fputs(spec->usage, fp);
    for (int i = 0; i < spec->n_defs; i++) {
        const struct gp_optdef *d = &spec->defs[i];
        if (d->type == GP_OPT_TEXT) {
            fprintf(fp, "%s\n", d->name);
            continue;
        }
        if (!d->help)
            continue; /* hidden: accepted, not listed */
        char left[256];
        snprintf(left, sizeof left, "%s%s%s%s%s", d->name, d->alias ? ", " : "", d->alias ? d->alias : "",
                 d->metavar ? " " : "", d->metavar ? d->metavar : "");
        /* a long left column gets its description on the next line */
        if ((int)strlen(left) >= spec->width)
            fprintf(fp, "  %s\n  %-*s", left, spec->width, "");
        else
            fprintf(fp, "  %-*s", spec->width, left);
        for (const char *h = d->help;;) {
            const char *nl = strchr(h, '\n');
            int len = nl ? (int)(nl - h) : (int)strlen(h);
            fprintf(fp, "%.*s\n", len, h);
            if (!nl)
                break;
            h = nl + 1;
            fprintf(fp, "  %-*s", spec->width, "");
        }
    }
    if (spec->epilog)
        fputs(spec->epilog, fp);
}

static const struct gp_optdef *find(const struct gp_optspec *spec, const char *name, size_t len)
{
    for (int i = 0; i < spec->n_defs; i++) {
        const struct gp_optdef *d = &spec->defs[i];
        if (d->type == GP_OPT_TEXT)
            continue;
        if ((strlen(d->name) == len && !strncmp(d->name, name, len)) ||
            (d->alias && strlen(d->alias) == len && !strncmp(d->alias, name, len)))
            return d;
    }
    return NULL;
}

/* An integer or decimal number in [min, max]; integer types also accept
 * "1e3" but not "2.5". Errors name the flag as the user spelled it (as):
 * "-d" when they typed "-d", "--input-directory" when they typed that. */
static int store_number(const struct parse *p, const struct gp_optdef *d, const char *as, const char *v)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    int integral = d->type != GP_OPT_DOUBLE;
    int bad = errno || end == v || *end || isnan(x) || (integral && x != floor(x));
    if (bad || x < d->min || x > d->max) {
        if (integral && d->min == 1 && d->max >= 2147483647.0)
            return report(p, "%s '%s' must be a positive integer", as, v);
        if (!bad)
            return report(p, "%s '%s' is too %s; use at %s %.15g", as, v, x < d->min ? "small" : "large",
                                 x < d->min ? "least" : "most", x < d->min ? d->min : d->max);
        return report(p, "%s '%s' must be %s in [%.15g, %.15g]", as, v,
                             integral ? "an integer" : "a number", d->min, d->max);
    }
    switch (d->type) {
    case GP_OPT_INT: *(int *)d->dst = (int)x; break;
    case GP_OPT_LONG: *(long *)d->dst = (long)x; break;
    case GP_OPT_U32: *(uint32_t *)d->dst = (uint32_t)x; break;
    case GP_OPT_U64: *(uint64_t *)d->dst = (uint64_t)x; break;
    default: *(double *)d->dst = x; break;
    }
    return 0;
}

static int store(const struct parse *p, const struct gp_optdef *d, const char *as, const char *v)
{
    switch (d->type) {
    case GP_OPT_STR:
        *(const char **)d->dst = v;
        return 0;
    case GP_OPT_CALL: {
        struct gp_error err = {0};
        if (d->call(p->spec->ctx, d->name, v, &err))
            return report(p, "%s", err.msg);
        return 0;
    }
    default:
        return store_number(p, d, as, v);
    }
}

/* Hands argv[i] (and what follows, as the hook decides) to the pass-through
 * hook; returns the index of the last token it took, or -1 after the error
 * is reported. */
static int hand_on(const struct parse *p, int argc, char **argv, int i)
{
    struct gp_error err = {0};
    int n = p->pass->take(p->spec->ctx, argc, argv, i, &err);
    if (n < 1 || n > argc - i) {
        report(p, "%s", n < 1 && err.code ? err.msg : "internal error: pass-through hook took a bad count");
        return -1;
    }
    return i + n - 1;
}

int gp_argv_parse_pass(const struct gp_optspec *spec, const struct gp_argv_pass *pass, int argc, char **argv)
{
    const struct parse p = {spec, pass && pass->take ? pass : NULL};
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1]) {
            if (p.pass && (i = hand_on(&p, argc, argv, i)) < 0)
                return GP_ARGV_ERROR;
            if (!p.pass)
                argv[1 + npos++] = argv[i]; /* npos < i: a slot already read */
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            gp_argv_help(spec, stdout);
            return GP_ARGV_HELP;
        }
        const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const struct gp_optdef *d = find(spec, a, len);
        if (!d && p.pass) {
            if ((i = hand_on(&p, argc, argv, i)) < 0)
                return GP_ARGV_ERROR;
            continue;
        }
        if (!d) {
            report(&p, "unknown option '%.*s'", (int)len, a);
            return GP_ARGV_ERROR;
        }
        /* the spelling typed (find() matched one of the two exactly), for messages */
        const char *as = strlen(d->name) == len && !strncmp(d->name, a, len) ? d->name : d->alias;
        if (d->type == GP_OPT_FLAG || d->type == GP_OPT_UNFLAG) {
            if (eq) {
                report(&p, "%s takes no value", as);
                return GP_ARGV_ERROR;
            }
            *(int *)d->dst = d->type == GP_OPT_FLAG;
            continue;
        }
        const char *v = eq ? eq + 1 : NULL;
        if (!v) {
            if (i + 1 >= argc) {
                report(&p, "%s needs a value", as);
                return GP_ARGV_ERROR;
            }
            v = argv[++i];
        }
        if (store(&p, d, as, v))
            return GP_ARGV_ERROR;
    }
    return npos;
}

int gp_argv_parse(const struct gp_optspec *spec, int argc, char **argv)
{
    return gp_argv_parse_pass(spec, NULL, argc, argv);
}
