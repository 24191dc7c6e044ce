/* runner/cmd_search.c — `genperf search`: the highest concurrency (or
 * request rate) at which at least --goodput-target of the requests meet the
 * SLOs given with -g/--goodput (GenAI-Perf's goodput flag), found by
 * bracketing then bisecting (search.c decides, this file runs the cells).
 *
 * Each cell is a `genperf profile` child (/proc/self/exe, as analyze runs
 * them) with the user's profile flags plus the cell's load, staged and
 * moved into <artifact-dir>/<model>-openai-<type>-<search_type><value>/ as
 * analyze names cells, so every cell keeps its full artifact set. At the
 * end: a table on stdout, <artifact-dir>/search_export_genperf.csv, and
 * with --db each cell ingested into the results store under one label.
 * Exit: 0 the search concluded (whatever the limit), 1 a cell failed,
 * 2 usage error, 130 interrupted.
 */
#include "commands.h"
#include "core/argv.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "runner/analyze.h"
#include "runner/search.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROG "genperf search"
#define MAX_ARGS 1024

struct search_args {
    const char *search_type, *artifact_dir, *export_file, *model, *endpoint_type, *db, *label;
    int n_models, count_given;
    long count; /* --request-count / --num-requests as given, else 0 */
    double max_time_s;
    const char *slo[32];
    int n_slo;
    const char *pass[MAX_ARGS]; /* profile flags for every cell */
    int n_pass;
};

static int num_arg(const char *flag, const char *v, double lo, double *out, struct gp_error *err)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !isfinite(d) || d < lo)
        return gp_err(err, GP_EINVAL, "%s '%s': expected a number >= %g", flag, v, lo);
    *out = d;
    return 0;
}

/* What the table's calls and take() fill. */
struct search_parse {
    struct search_args *a;
    struct gp_search *s;
};

/* The numeric search flags (GP_CALL rows): checked here, where the
 * messages say the accepted range. */
static int search_number(void *ctx, const char *name, const char *v, struct gp_error *err)
{
    struct search_parse *p = ctx;
    struct gp_search *s = p->s;
    double d;
    if (!strcmp(name, "--search-start"))
        return num_arg(name, v, 0.01, &s->start, err);
    if (!strcmp(name, "--search-max"))
        return num_arg(name, v, 0.01, &s->max, err);
    if (!strcmp(name, "--goodput-target")) {
        if (num_arg(name, v, 0, &s->target, err) < 0 || s->target <= 0 || s->target > 1)
            return gp_err(err, GP_EINVAL, "--goodput-target '%s': a share of requests, 0 < x <= 1 (e.g. 0.9)", v);
        return 0;
    }
    if (!strcmp(name, "--max-cells")) {
        if (num_arg(name, v, 1, &d, err) < 0 || d > GP_SEARCH_MAX_CELLS)
            return gp_err(err, GP_EINVAL, "--max-cells '%s': 1 to %d", v, GP_SEARCH_MAX_CELLS);
        s->max_cells = (size_t)d;
        return 0;
    }
    if (!strcmp(name, "--max-time"))
        return num_arg(name, v, 0, &p->a->max_time_s, err);
    if (!strcmp(name, "--search-tolerance"))
        return num_arg(name, v, 0.001, &s->tolerance, err);
    return num_arg(name, v, 0, &s->sat_gain, err); /* --saturation-gain */
}

/* core/argv's pass-through hook: every token that is not a search flag.
 * -m/--model and -g/--goodput take every word after them (nargs='+');
 * the load flags the search sets are dropped with their value; the flags
 * that name the cell or bound its requests are remembered; all but the
 * dropped ones are passed on, in order. */
static int take(void *ctx, int argc, char **argv, int i, struct gp_error *err)
{
    struct search_args *a = ((struct search_parse *)ctx)->a;
    const char *o = argv[i], *v;
    int at = i;
    if (a->n_pass >= MAX_ARGS - 16 || a->n_slo >= 30)
        return gp_err(err, GP_EINVAL, "too many arguments"), 0;
    if (!strcmp(o, "-m") || !strcmp(o, "--model") || !strcmp(o, "-g") || !strcmp(o, "--goodput")) {
        int is_model = o[1] == 'm' || o[2] == 'm';
        a->pass[a->n_pass++] = o;
        while (i + 1 < argc && argv[i + 1][0] != '-' && a->n_pass < MAX_ARGS - 16 && a->n_slo < 30) {
            if (is_model && !a->model)
                a->model = argv[i + 1];
            if (is_model)
                a->n_models++;
            else
                a->slo[a->n_slo++] = argv[i + 1];
            a->pass[a->n_pass++] = argv[++i];
        }
        return i - at + 1;
    }
    if ((v = gp_cell_flag_value(o, "--concurrency", &i, argc, argv)) || (v = gp_cell_flag_value(o, "--request-rate", &i, argc, argv)))
        return i - at + 1; /* the search sets the load */
    if ((v = gp_cell_flag_value(o, "--endpoint-type", &i, argc, argv)))
        a->endpoint_type = v;
    else if ((v = gp_cell_flag_value(o, "--profile-export-file", &i, argc, argv)))
        a->export_file = v;
    else if ((v = gp_cell_flag_value(o, "--request-count", &i, argc, argv)) ||
             (v = gp_cell_flag_value(o, "--num-requests", &i, argc, argv))) {
        a->count_given = 1;
        a->count = strtol(v, NULL, 10); /* profile itself validates it */
    } else if (!strncmp(o, "--measurement-interval", 22) || !strcmp(o, "-p") || !strncmp(o, "--duration", 10))
        a->count_given = 1;
    for (int k = at; k <= i; k++)
        a->pass[a->n_pass++] = argv[k];
    return i - at + 1;
}

static const char usage_text[] =
    "usage: " PROG " [--search-type concurrency|request_rate] [-g METRIC:VALUE ...] [--goodput-target 0.9]\n"
    "       [--search-start 1] [--search-max 1024] [--max-cells 16] [--max-time SECONDS]\n"
    "       [--search-tolerance 0.1] [--saturation-gain 0.1] [--db URL] [--label TEXT] PROFILE-OPTIONS...\n\n"
    "Finds the highest load at which at least --goodput-target of the requests meet the -g/--goodput SLOs\n"
    "(every request succeeding when none is given): doubles from --search-start until a cell misses, then\n"
    "bisects. Stops early when throughput stops rising while latency climbs (saturation), or at the caps.\n"
    "Each cell is a 'genperf profile' in <artifact-dir>/<model>-openai-<type>-<search_type><value>/;\n"
    "the cells and the limit go to stdout and <artifact-dir>/search_export_genperf.csv; --db ingests\n"
    "every cell under one label. Every other option is a profile option ('genperf profile --help').\n";

/* A usage error in GenAI-Perf's argparse form: the usage, then the error. */
static void report(void *ctx, const char *msg)
{
    fputs(usage_text, stderr);
    fprintf(stderr, PROG ": error: %s\n", msg);
}

/* The search flags from the table (hidden: the usage text lists them), the
 * rest through take(). Returns 0, GP_ARGV_HELP, or GP_ARGV_ERROR once the
 * error is printed. */
static int parse(int argc, char **argv, struct search_args *a, struct gp_search *s)
{
    a->artifact_dir = "artifacts";
    a->export_file = "profile_export.json";
    a->endpoint_type = "chat";
    a->search_type = "concurrency";
    struct search_parse ctx = {a, s};
    const struct gp_optdef defs[] = {
        GP_STR("--search-type", NULL, &a->search_type, "TYPE", NULL),
        GP_CALL("--search-start", NULL, search_number, "N", NULL),
        GP_CALL("--search-max", NULL, search_number, "N", NULL),
        GP_CALL("--goodput-target", NULL, search_number, "SHARE", NULL),
        GP_CALL("--max-cells", NULL, search_number, "N", NULL),
        GP_CALL("--max-time", NULL, search_number, "SECONDS", NULL),
        GP_CALL("--search-tolerance", NULL, search_number, "X", NULL),
        GP_CALL("--saturation-gain", NULL, search_number, "X", NULL),
        GP_STR("--db", NULL, &a->db, "URL", NULL),
        GP_STR("--label", NULL, &a->label, "TEXT", NULL),
        GP_STR("--artifact-dir", NULL, &a->artifact_dir, "DIR", NULL),
    };
    const struct gp_optspec spec = {"search", usage_text, NULL, defs, GP_NDEFS(defs), 24, &ctx};
    const struct gp_argv_pass pass = {take, report};
    int rc = gp_argv_parse_pass(&spec, &pass, argc, argv);
    if (rc < 0)
        return rc;
    char msg[512] = "";
    if (strcmp(a->search_type, "concurrency") && strcmp(a->search_type, "request_rate"))
        snprintf(msg, sizeof msg, "--search-type '%s': choose concurrency or request_rate", a->search_type);
    else if (!a->model)
        snprintf(msg, sizeof msg, "the following arguments are required: -m/--model");
    else if (s->start > s->max)
        snprintf(msg, sizeof msg, "--search-start %g is above --search-max %g", s->start, s->max);
    if (!*msg)
        return 0;
    report(NULL, msg);
    return GP_ARGV_ERROR;
}

static double stat_of(const json_t *o, const char *metric, const char *stat)
{
    json_t *v = json_object_get(json_object_get(o, metric), stat);
    return json_is_number(v) ? json_number_value(v) : -1;
}

/* Fills c from the cell's <stem>_genai_perf.json and <stem>_genperf.json. */
static int read_cell(const char *dir, const char *stem, int with_slo, struct gp_search_cell *c, struct gp_error *err)
{
    char p[4096], f[1100];
    snprintf(f, sizeof f, "%s_genai_perf.json", stem);
    gp_path_join(p, sizeof p, dir, f);
    json_error_t je;
    json_t *g = json_load_file(p, 0, &je);
    if (!g)
        return gp_err(err, GP_EIO, "%s: %s (the cell's profile wrote no summary)", p, je.text);
    snprintf(f, sizeof f, "%s_genperf.json", stem);
    gp_path_join(p, sizeof p, dir, f);
    json_t *x = json_load_file(p, 0, NULL), *rq = json_object_get(x, "requests");
    long ok = (long)json_integer_value(json_object_get(rq, "ok"));
    long failed = (long)json_integer_value(json_object_get(rq, "failed"));
    if (!rq) /* no genperf sidecar: GenAI-Perf's count is of the successful requests */
        ok = (long)fmax(0, stat_of(g, "request_count", "avg"));
    c->requests = ok + failed;
    double thr = stat_of(g, "request_throughput", "avg"), gp = stat_of(g, "request_goodput", "avg");
    /* goodput and throughput share one window: their ratio is the share of
     * the successful requests that met every SLO */
    c->good = !with_slo ? ok : thr > 0 && gp >= 0 ? lround(gp / thr * (double)ok) : 0;
    c->share = c->requests ? (double)c->good / (double)c->requests : 0;
    c->req_thr = thr;
    c->tok_thr = stat_of(g, "output_token_throughput", "avg");
    c->ttft_p50 = stat_of(g, "time_to_first_token", "p50");
    c->ttft_p99 = stat_of(g, "time_to_first_token", "p99");
    c->itl_p50 = stat_of(g, "inter_token_latency", "p50");
    c->itl_p99 = stat_of(g, "inter_token_latency", "p99");
    c->lat_avg = stat_of(g, "request_latency", "avg");
    c->lat_p99 = stat_of(g, "request_latency", "p99");
    json_decref(g);
    json_decref(x);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct search_run {
    struct search_args *a;
    struct gp_search *s;
    char self[4096], staging[4096], model[1024], stem[1024], label[512];
};

/* Profiles one cell at value v into its directory; returns the child's
 * exit status (or -1 when it could not be started). */
static int run_cell(struct search_run *r, double v, char *cell_dir, size_t sz)
{
    struct search_args *a = r->a;
    char val[48], cell[2048], count[32];
    gp_search_fmt(r->s, v, val, sizeof val);
    snprintf(cell, sizeof cell, "%s-openai-%s-%s%s", r->model, a->endpoint_type, a->search_type, val);
    gp_path_join(cell_dir, sz, a->artifact_dir, cell);
    const char *cv[MAX_ARGS + 16];
    int k = 0, tail;
    cv[k++] = r->self;
    cv[k++] = "profile";
    for (int j = 0; j < a->n_pass; j++)
        cv[k++] = a->pass[j];
    for (tail = 2; tail < k && strcmp(cv[tail], "--"); tail++)
        ;
    /* the load, the count a rate needs and the staging dir go before any '--' */
    const char *extra[6] = {r->s->is_rate ? "--request-rate" : "--concurrency", val, "--artifact-dir", r->staging};
    int ne = 4;
    if (r->s->is_rate && !a->count_given) {
        /* profile's default count (10) is refused above 10 req/s: two
         * seconds' worth keeps every rate cell about as long */
        snprintf(count, sizeof count, "%ld", (long)fmax(10, ceil(2 * v)));
        extra[ne++] = "--request-count";
        extra[ne++] = count;
    }
    if (!r->s->is_rate && a->count > 0 && (double)a->count < ceil(v)) {
        /* profile refuses a count below the concurrency (GenAI-Perf does
         * too), which ended the search at the first cell past the count with
         * "the cell's profile failed"; a later --request-count wins there */
        snprintf(count, sizeof count, "%.0f", ceil(v));
        extra[ne++] = "--request-count";
        extra[ne++] = count;
        fprintf(stderr, PROG ": cell %zu: --request-count raised from %ld to %s, the cell's concurrency\n",
                r->s->n + 1, a->count, count);
    }
    memmove(&cv[tail + ne], &cv[tail], (size_t)(k - tail) * sizeof cv[0]);
    memcpy(&cv[tail], extra, (size_t)ne * sizeof cv[0]);
    k += ne;
    cv[k] = NULL;
    fprintf(stderr, PROG ": cell %zu: %s %s -> %s\n", r->s->n + 1, a->search_type, val, cell_dir);
    return gp_run_child((char *const *)cv);
}

static void ingest_cell(struct search_run *r, const char *cell_dir)
{
    /* The store keeps the directory as given: an absolute one lets the
     * Benchmarks page find search_export_genperf.csv next to the cells
     * whatever directory `genperf ui` runs in. */
    char *abs = realpath(cell_dir, NULL);
    const char *iv[] = {r->self, "ingest", abs ? abs : cell_dir, "--db", r->a->db, "--label", r->label, NULL};
    int st = gp_run_child((char *const *)iv);
    free(abs);
    if (st != 0)
        fprintf(stderr, PROG ": warning: `genperf ingest %s --db %s` exited with status %d; the search goes on\n",
                cell_dir, r->a->db, st);
}

/* The search loop; returns the exit status. */
static int search_loop(struct search_run *r)
{
    struct gp_search *s = r->s;
    struct search_args *a = r->a;
    double t0 = now_s(), longest = 0, v;
    char d[512];
    while ((v = gp_search_next(s)) > 0) {
        double el = now_s() - t0;
        if (a->max_time_s > 0 && s->n && el + longest > a->max_time_s) {
            snprintf(d, sizeof d,
                     "stopped at the time cap (--max-time %g s): %.0f s spent, the next cell would take ~%.0f s more",
                     a->max_time_s, el, longest);
            gp_search_halt(s, GP_SEARCH_TIME_CAP, d);
            break;
        }
        char cell_dir[4096];
        struct gp_error err = {0};
        double c0 = now_s();
        int rc = run_cell(r, v, cell_dir, sizeof cell_dir);
        if (now_s() - c0 > longest)
            longest = now_s() - c0;
        char val[48];
        gp_search_fmt(s, v, val, sizeof val);
        if (rc != 0) {
            snprintf(d, sizeof d, "%s at %s %s (profile exit status %d)",
                     rc == 130 ? "interrupted" : "the cell's profile failed", a->search_type, val, rc);
            gp_search_halt(s, rc == 130 ? GP_SEARCH_INTERRUPTED : GP_SEARCH_CELL_FAILED, d);
            if (gp_collect_cell(r->staging, cell_dir, &err) == 0)
                fprintf(stderr, PROG ": what that cell measured is in %s\n", cell_dir);
            break;
        }
        struct gp_search_cell c = {0};
        c.value = v;
        snprintf(c.dir, sizeof c.dir, "%s", cell_dir);
        if (gp_collect_cell(r->staging, cell_dir, &err) < 0 || read_cell(cell_dir, r->stem, a->n_slo > 0, &c, &err) < 0) {
            snprintf(d, sizeof d, "cell %s %s: %s", a->search_type, val, err.msg);
            gp_search_halt(s, GP_SEARCH_CELL_FAILED, d);
            break;
        }
        gp_search_record(s, &c);
        const struct gp_search_cell *m = &s->cells[s->n - 1];
        fprintf(stderr, PROG ": %s %s: %ld/%ld requests good (%.1f%%), TTFT p99 %.2f ms, ITL p99 %.2f ms, "
                        "%.2f req/s: %s\n",
                a->search_type, val, m->good, m->requests, m->share * 100, m->ttft_p99, m->itl_p99, m->req_thr,
                m->meets ? "meets the target" : "misses the target");
        if (a->db)
            ingest_cell(r, cell_dir);
    }
    return s->stop == GP_SEARCH_INTERRUPTED ? 130 : s->stop == GP_SEARCH_CELL_FAILED ? 1 : 0;
}

static void fmt_ms(char *out, size_t sz, double v)
{
    if (v < 0)
        snprintf(out, sz, "-");
    else
        snprintf(out, sz, "%.2f", v);
}

static void print_table(const struct search_run *r)
{
    const struct gp_search *s = r->s;
    char slos[1024] = "";
    for (int i = 0; i < r->a->n_slo; i++)
        snprintf(slos + strlen(slos), sizeof slos - strlen(slos), "%s%s", i ? " " : "", r->a->slo[i]);
    printf("\n%s search: at least %.4g%% of requests %s\n", r->a->search_type, s->target * 100,
           r->a->n_slo ? "within the SLOs" : "successful (no SLO given)");
    if (r->a->n_slo)
        printf("SLOs: %s\n", slos);
    printf("\n%4s %12s %7s %9s %9s %10s %10s %10s %12s %s\n", "cell", r->a->search_type, "good%", "requests",
           "meets", "TTFT p99", "ITL p99", "req/s", "out tok/s", "");
    for (size_t i = 0; i < s->n; i++) {
        const struct gp_search_cell *c = &s->cells[i];
        char v[48], t[32], l[32];
        gp_search_fmt(s, c->value, v, sizeof v);
        fmt_ms(t, sizeof t, c->ttft_p99);
        fmt_ms(l, sizeof l, c->itl_p99);
        printf("%4zu %12s %6.1f%% %9ld %9s %10s %10s %10.2f %12.2f\n", i + 1, v, c->share * 100, c->requests,
               c->meets ? "yes" : "no", t, l, c->req_thr, c->tok_thr);
    }
    char lim[48];
    gp_search_fmt(s, gp_search_limit(s), lim, sizeof lim);
    if (gp_search_limit(s) > 0)
        printf("\nlimit: %s %s\n", r->a->search_type, lim);
    else
        printf("\nlimit: none (no %s tried met the target)\n", r->a->search_type);
    printf("stopped: %s\n", s->why);
    printf("cells: %zu, in %s\n", s->n, r->a->artifact_dir);
}

static void csv_row(struct gp_buf *b, const char *const *f, int n)
{
    for (int i = 0; i < n; i++)
        gp_csv_field(b, f[i], i == 0);
    gp_buf_puts(b, "\r\n");
}

static int write_csv(const struct search_run *r, double elapsed, struct gp_error *err)
{
    static const char *const hdr[] = {
        "Cell", "Search Type", "Value", "Meets Target", "Good Share", "Requests", "Good Requests",
        "p50 Time To First Token (ms)", "p99 Time To First Token (ms)", "p50 Inter Token Latency (ms)",
        "p99 Inter Token Latency (ms)", "Avg. Request Latency (ms)", "p99 Request Latency (ms)",
        "Output Token Throughput (tokens/sec)", "Request Throughput (requests/sec)", "Artifact Directory"};
    enum { NF = sizeof hdr / sizeof hdr[0] };
    const struct gp_search *s = r->s;
    struct gp_buf b = {0};
    csv_row(&b, hdr, NF);
    char f[NF][64];
    const char *row[NF];
    for (size_t i = 0; i < s->n; i++) {
        const struct gp_search_cell *c = &s->cells[i];
        snprintf(f[0], 64, "%zu", i + 1);
        gp_search_fmt(s, c->value, f[2], 64);
        snprintf(f[3], 64, "%s", c->meets ? "yes" : "no");
        snprintf(f[4], 64, "%.4f", c->share);
        snprintf(f[5], 64, "%ld", c->requests);
        snprintf(f[6], 64, "%ld", c->good);
        const double m[] = {c->ttft_p50, c->ttft_p99, c->itl_p50, c->itl_p99, c->lat_avg, c->lat_p99, c->tok_thr,
                            c->req_thr};
        for (int k = 0; k < 8; k++)
            fmt_ms(f[7 + k], 64, m[k]);
        for (int k = 0; k < NF; k++)
            row[k] = f[k];
        row[1] = r->a->search_type;
        row[NF - 1] = c->dir;
        csv_row(&b, row, NF);
    }
    gp_buf_puts(&b, "\r\n");
    char lim[48], tgt[32], n[32], el[32], slos[1024] = "";
    if (gp_search_limit(s) > 0)
        gp_search_fmt(s, gp_search_limit(s), lim, sizeof lim);
    else
        lim[0] = 0;
    snprintf(tgt, sizeof tgt, "%g", s->target);
    snprintf(n, sizeof n, "%zu", s->n);
    snprintf(el, sizeof el, "%.1f", elapsed);
    for (int i = 0; i < r->a->n_slo; i++)
        snprintf(slos + strlen(slos), sizeof slos - strlen(slos), "%s%s", i ? " " : "", r->a->slo[i]);
    const char *sum[][2] = {{"Limit", lim},           {"Stopped", gp_search_stop_name(s->stop)},
                            {"Reason", s->why},       {"Goodput Target", tgt},
                            {"SLOs", slos},           {"Cells", n},
                            {"Elapsed (s)", el}};
    for (size_t i = 0; i < sizeof sum / sizeof sum[0]; i++)
        csv_row(&b, sum[i], 2);
    char path[4096];
    gp_path_join(path, sizeof path, r->a->artifact_dir, "search_export_genperf.csv");
    int rc = gp_mkdir_p(r->a->artifact_dir, err) ? -1 : gp_write_file_atomic(path, b.data, b.len, err);
    gp_buf_free(&b);
    if (!rc)
        fprintf(stderr, PROG ": Generating %s\n", path);
    return rc;
}

/* Everything after the arguments: the loop, the table, the CSV. */
static int run_search(struct search_args *a, struct gp_search *s)
{
    struct gp_error err = {0};
    struct search_run r = {.a = a, .s = s};
    if (gp_self_exe(r.self, sizeof r.self) < 0) {
        fprintf(stderr, PROG ": error: cannot find my own executable (/proc/self/exe)\n");
        return 1;
    }
    gp_path_join(r.staging, sizeof r.staging, a->artifact_dir, ".search-staging");
    snprintf(r.model, sizeof r.model, "%s%s", a->model, a->n_models > 1 ? "_multi" : "");
    for (char *c = r.model; *c; c++)
        if (*c == '/')
            *c = '_';
    snprintf(r.stem, sizeof r.stem, "%s", a->export_file);
    char *dot = strrchr(r.stem, '.');
    if (dot)
        *dot = 0;
    if (a->label)
        snprintf(r.label, sizeof r.label, "%s", a->label);
    else {
        time_t now = time(NULL);
        struct tm tm;
        char ts[32];
        strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
        snprintf(r.label, sizeof r.label, "search %s %s %s", a->model, a->search_type, ts);
    }
    double t0 = now_s();
    int status = search_loop(&r);
    print_table(&r);
    if (write_csv(&r, now_s() - t0, &err) < 0) {
        fprintf(stderr, PROG ": error: %s\n", err.msg);
        status = status ? status : 1;
    }
    if (a->db)
        printf("results store: %s (label \"%s\")\n", a->db, r.label);
    return status;
}

int cmd_search(int argc, char **argv)
{
    struct search_args a;
    memset(&a, 0, sizeof a);
    /* 64 cells with their paths: on the heap, not the stack */
    struct gp_search *s = malloc(sizeof *s);
    if (!s) {
        fprintf(stderr, PROG ": error: out of memory\n");
        return 1;
    }
    /* the type first: it decides the defaults the other flags override */
    int is_rate = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = gp_cell_flag_value(argv[i], "--search-type", &i, argc, argv);
        if (v)
            is_rate = !strcmp(v, "request_rate");
    }
    gp_search_init(s, is_rate);
    int p = parse(argc, argv, &a, s), status;
    if (p == GP_ARGV_HELP)
        status = 0;
    else if (p < 0)
        status = 2;
    else
        status = run_search(&a, s);
    free(s);
    return status;
}
