/* store/results.c — printing query results as a table, CSV or JSON, and the
 * listings behind `genperf results`.
 *
 * Owns: the rows it collects for one call (freed before returning). Tables
 * need every row to size their columns, so rows are buffered; CSV and JSON
 * stream. NULL prints as an empty cell in tables/CSV and null in JSON;
 * numbers stay numbers in JSON (a value that parses completely as a finite
 * number is written bare). genperf results' tables are for reading: a
 * number with a fraction is rounded there (see round_for_reading); CSV and
 * JSON, and genperf query, keep the stored text, full precision.
 */
#include "store/store.h"
#include "store/db.h"

#include "core/buf.h"
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gp_store_parse_format(const char *s, enum gp_out_format *out)
{
    if (!strcmp(s, "table"))
        *out = GP_OUT_TABLE;
    else if (!strcmp(s, "csv"))
        *out = GP_OUT_CSV;
    else if (!strcmp(s, "json"))
        *out = GP_OUT_JSON;
    else
        return -GP_EINVAL;
    return 0;
}

struct collect {
    enum gp_out_format fmt;
    FILE *out;
    int ncols;
    char **names;
    char **cells;       /* table: rows * ncols strings (NULL = SQL NULL) */
    size_t nrows, cap;
    int failed;
    int round;          /* table cells rounded for reading (genperf results, not query) */
    int fit;            /* table: at most fit columns wide (0 = no limit), text cells clipped in the
                         * middle to get there; columns empty in every row left out */
    const char *const *keep; /* with fit: the columns clipped only when the others cannot give enough
                              * (NULL-terminated names) */
    struct gp_buf line;
};

/* A JSON number exactly: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? —
 * text like "007", "+5" or "0x10" stays a string. */
static int is_number(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return 0;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

/* A table cell: numbers with a fraction rounded for reading, 2 decimals from
 * 1 up (316.73, 49.84) and 3 significant digits below (0.00123); integers
 * and text as stored. Returns a new string (NULL on no memory). */
static char *round_for_reading(const char *v)
{
    if (!is_number(v) || !strpbrk(v, ".eE"))
        return strdup(v);
    double d = strtod(v, NULL);
    char s[64];
    if (d == 0 || d >= 1 || d <= -1)
        snprintf(s, sizeof s, "%.2f", d);
    else
        snprintf(s, sizeof s, "%.3g", d);
    if (strpbrk(s, "eE")) /* %.3g of a tiny value: the stored text reads as well */
        return strdup(v);
    return strdup(s);
}

static void csv_field(struct gp_buf *b, const char *s)
{
    if (!s)
        return;
    if (strpbrk(s, ",\"\r\n")) {
        gp_buf_putc(b, '"');
        for (const char *p = s; *p; p++) {
            if (*p == '"')
                gp_buf_putc(b, '"');
            gp_buf_putc(b, *p);
        }
        gp_buf_putc(b, '"');
    } else {
        gp_buf_puts(b, s);
    }
}

static int row_cb(void *ctx, int ncols, const char *const *names, const char *const *values)
{
    struct collect *c = ctx;
    if (!c->names) {
        c->ncols = ncols;
        c->names = calloc((size_t)ncols + 1, sizeof *c->names);
        if (!c->names)
            return c->failed = 1;
        for (int i = 0; i < ncols; i++)
            c->names[i] = strdup(names[i]);
        if (c->fmt == GP_OUT_CSV) {
            gp_buf_reset(&c->line);
            for (int i = 0; i < ncols; i++) {
                if (i)
                    gp_buf_putc(&c->line, ',');
                csv_field(&c->line, names[i]);
            }
            fprintf(c->out, "%s\n", c->line.data);
        } else if (c->fmt == GP_OUT_JSON) {
            fputs("[", c->out);
        }
    }
    if (c->fmt == GP_OUT_TABLE) {
        if (c->nrows == c->cap) {
            size_t nc = c->cap ? c->cap * 2 : 64;
            char **n = realloc(c->cells, nc * (size_t)ncols * sizeof *n);
            if (!n)
                return c->failed = 1;
            c->cells = n;
            c->cap = nc;
        }
        for (int i = 0; i < ncols; i++)
            c->cells[c->nrows * (size_t)ncols + (size_t)i] = values[i] ? (c->round ? round_for_reading(values[i]) : strdup(values[i])) : NULL;
        c->nrows++;
        return 0;
    }
    gp_buf_reset(&c->line);
    if (c->fmt == GP_OUT_CSV) {
        for (int i = 0; i < ncols; i++) {
            if (i)
                gp_buf_putc(&c->line, ',');
            csv_field(&c->line, values[i]);
        }
        fprintf(c->out, "%s\n", c->line.data);
    } else {
        gp_buf_puts(&c->line, c->nrows ? ",\n {" : "\n {");
        for (int i = 0; i < ncols; i++) {
            if (i)
                gp_buf_puts(&c->line, ", ");
            gp_buf_json_str(&c->line, names[i], strlen(names[i]));
            gp_buf_puts(&c->line, ": ");
            if (!values[i])
                gp_buf_puts(&c->line, "null");
            else if (is_number(values[i]))
                gp_buf_puts(&c->line, values[i]);
            else
                gp_buf_json_str(&c->line, values[i], strlen(values[i]));
        }
        gp_buf_putc(&c->line, '}');
        fputs(c->line.data, c->out);
        c->nrows++;
    }
    return 0;
}

/* Display width in code points (UTF-8 continuation bytes do not count). */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; s && *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* Writes v in at most w code points: a longer one keeps its head and tail
 * around an ellipsis, so "trace x2 ...ces/day1.jsonl" still says both. */
static void put_clipped(FILE *out, const char *v, size_t w)
{
    size_t n = width(v);
    if (n <= w) {
        fputs(v, out);
        return;
    }
    size_t tail = (w - 1) / 2, head = w - 1 - tail, k = 0;
    for (const char *p = v; *p; p++) {
        if (((unsigned char)*p & 0xC0) != 0x80) { /* code point k starts here */
            if (k == head)
                fputs("\xe2\x80\xa6", out); /* U+2026 */
            k++;
        }
        if (k - 1 < head || k - 1 >= n - tail)
            fputc(*p, out);
    }
}

static int kept(const struct collect *c, const char *name)
{
    for (const char *const *k = c->keep; k && *k; k++)
        if (!strcmp(*k, name))
            return 1;
    return 0;
}

/* The column widths: every name and cell; with c->fit, columns empty in
 * every row hidden (show[i] = 0) and the widest text column narrowed one
 * step at a time (never below its name, nor 8) until the line fits, the
 * c->keep columns only once no other can give more. Numbers are never
 * narrowed: a clipped number would read as another. */
static void table_widths(const struct collect *c, size_t *w, int *num, int *show)
{
    int n = c->ncols;
    for (int i = 0; i < n; i++) {
        w[i] = width(c->names[i]);
        num[i] = 1;
        show[i] = !c->fit;
    }
    for (size_t r = 0; r < c->nrows; r++)
        for (int i = 0; i < n; i++) {
            const char *v = c->cells[r * (size_t)n + (size_t)i];
            if (v && width(v) > w[i])
                w[i] = width(v);
            if (v && !is_number(v))
                num[i] = 0;
            if (v && *v)
                show[i] = 1;
        }
    if (!c->fit)
        return;
    for (int pass = 0; pass < 2;) {
        size_t total = 0;
        int widest = -1, nshown = 0;
        for (int i = 0; i < n; i++) {
            if (!show[i])
                continue;
            total += w[i] + (nshown++ ? 2 : 0);
            size_t min = width(c->names[i]) > 8 ? width(c->names[i]) : 8;
            if (!num[i] && w[i] > min && kept(c, c->names[i]) == pass && (widest < 0 || w[i] > w[widest]))
                widest = i;
        }
        if (total <= (size_t)c->fit)
            return;
        if (widest < 0)
            pass++;
        else
            w[widest]--;
    }
}

static void print_table(struct collect *c)
{
    int n = c->ncols;
    size_t *w = calloc((size_t)n + 1, sizeof *w);
    int *num = calloc((size_t)n + 1, sizeof *num), *show = calloc((size_t)n + 1, sizeof *show);
    if (!w || !num || !show) {
        free(w);
        free(num);
        free(show);
        return;
    }
    table_widths(c, w, num, show);
    int last = -1;
    for (int i = 0; i < n; i++)
        if (show[i])
            last = i;
    const char *sep = "";
    for (int i = 0; i < n; i++)
        if (show[i]) {
            fprintf(c->out, "%s%-*s", sep, i == last ? 0 : (int)w[i], c->names[i]);
            sep = "  ";
        }
    fputc('\n', c->out);
    sep = "";
    for (int i = 0; i < n; i++)
        if (show[i]) {
            fputs(sep, c->out);
            for (size_t k = 0; k < w[i]; k++)
                fputc('-', c->out);
            sep = "  ";
        }
    fputc('\n', c->out);
    for (size_t r = 0; r < c->nrows; r++) {
        sep = "";
        for (int i = 0; i < n; i++) {
            if (!show[i])
                continue;
            const char *v = c->cells[r * (size_t)n + (size_t)i];
            if (!v)
                v = "";
            size_t vw = width(v) < w[i] ? width(v) : w[i];
            int pad = (int)(w[i] - vw);
            fputs(sep, c->out);
            sep = "  ";
            if (num[i]) {
                fprintf(c->out, "%*s%s", pad, "", v);
                continue;
            }
            put_clipped(c->out, v, w[i]);
            if (i != last)
                fprintf(c->out, "%*s", pad, "");
        }
        fputc('\n', c->out);
    }
    free(w);
    free(num);
    free(show);
}

static int print_query(struct gp_db *db, const char *sql, const char *const *params, int nparams,
                       enum gp_out_format fmt, int round, int fit, FILE *out, struct gp_error *err)
{
    /* what a fitted jobs table clips last: the load, the status, the start */
    static const char *const keep[] = {"load", "status", "started", NULL};
    struct collect c = {.fmt = fmt, .out = out, .round = round, .fit = fit, .keep = keep};
    int r = gp_db_query(db, sql, params, nparams, row_cb, &c, err);
    if (!r && c.failed)
        r = gp_err(err, GP_ENOMEM, "out of memory collecting query rows");
    if (!r) {
        if (fmt == GP_OUT_TABLE && c.names)
            print_table(&c);
        else if (fmt == GP_OUT_JSON)
            fputs(c.names ? "\n]\n" : "[]\n", out);
        else if (fmt == GP_OUT_TABLE)
            fputs("(no rows)\n", out);
    }
    for (size_t i = 0; c.cells && i < c.nrows * (size_t)c.ncols; i++)
        free(c.cells[i]);
    free(c.cells);
    for (int i = 0; c.names && i < c.ncols; i++)
        free(c.names[i]);
    free(c.names);
    gp_buf_free(&c.line);
    return r;
}

/* genperf query prints what the SQL returned, exactly: its user chose the
 * values and may round them in SQL. */
int gp_store_print_query(struct gp_db *db, const char *sql, const char *const *params, int nparams,
                         enum gp_out_format fmt, FILE *out, struct gp_error *err)
{
    return print_query(db, sql, params, nparams, fmt, 0, 0, out, err);
}

/* genperf results' own listings: tables rounded for reading. */
static int print_listing(struct gp_db *db, const char *sql, const char *const *params, int nparams,
                         enum gp_out_format fmt, FILE *out, struct gp_error *err)
{
    return print_query(db, sql, params, nparams, fmt, 1, 0, out, err);
}

static int check_job(struct gp_db *db, const char *job_id, struct gp_error *err)
{
    char *end;
    long long id = strtoll(job_id, &end, 10);
    if (*end || id <= 0 || !*job_id)
        return gp_err(err, GP_EINVAL, "--job '%s' is not a job id; list the ids with `genperf results --db URL`",
                      job_id);
    long long found = 0;
    int r = gp_store_job_exists(db, id, &found, err);
    if (r)
        return r;
    if (!found)
        return gp_err(err, GP_ENOENT, "no job %lld in the store; list the ids with `genperf results --db URL`",
                      id);
    return 0;
}

int gp_store_print_telemetry(struct gp_db *db, const char *job_id, enum gp_out_format fmt, FILE *out,
                             struct gp_error *err)
{
    if (!job_id)
        return print_listing(db, "SELECT * FROM v_telemetry_job_summary ORDER BY job_id, device", NULL, 0, fmt,
                             out, err);
    int r = check_job(db, job_id, err);
    if (r)
        return r;
    const char *p[] = {job_id};
    return print_listing(db, "SELECT * FROM v_telemetry_job_summary WHERE job_id = ? ORDER BY device", p, 1, fmt,
                         out, err);
}

int gp_store_print_endpoints(struct gp_db *db, const char *job_id, enum gp_out_format fmt, FILE *out,
                             struct gp_error *err)
{
    const char *cols = "SELECT job_id, endpoint_index, url, requests, failed, request_share, request_throughput, "
                       "output_token_throughput, ttft_p50_ms, ttft_p99_ms, itl_p50_ms, itl_p99_ms "
                       "FROM v_endpoint_breakdown ";
    char sql[512];
    if (!job_id) {
        snprintf(sql, sizeof sql, "%sORDER BY job_id, endpoint_index", cols);
        return print_listing(db, sql, NULL, 0, fmt, out, err);
    }
    int r = check_job(db, job_id, err);
    if (r)
        return r;
    const char *p[] = {job_id};
    snprintf(sql, sizeof sql, "%sWHERE job_id = ? ORDER BY endpoint_index", cols);
    return print_listing(db, sql, p, 1, fmt, out, err);
}

int gp_store_print_models(struct gp_db *db, const char *job_id, enum gp_out_format fmt, FILE *out,
                          struct gp_error *err)
{
    const char *cols = "SELECT job_id, model_index, model, weight, requests, failed, request_share, "
                       "request_throughput, output_token_throughput, ttft_p50_ms, ttft_p99_ms, itl_p50_ms, "
                       "itl_p99_ms, latency_p50_ms, latency_p99_ms FROM v_model_breakdown ";
    char sql[512];
    if (!job_id) {
        snprintf(sql, sizeof sql, "%sORDER BY job_id, model_index", cols);
        return print_listing(db, sql, NULL, 0, fmt, out, err);
    }
    int r = check_job(db, job_id, err);
    if (r)
        return r;
    const char *p[] = {job_id};
    snprintf(sql, sizeof sql, "%sWHERE job_id = ? ORDER BY model_index", cols);
    return print_listing(db, sql, p, 1, fmt, out, err);
}

int gp_store_print_energy(struct gp_db *db, const char *job_id, enum gp_out_format fmt, FILE *out,
                          struct gp_error *err)
{
    const char *cols = "SELECT job_id, job_label AS label, model, concurrency, request_rate, energy_j, power_avg_w, "
                       "power_peak_w, joules_per_output_token, output_tokens_per_joule, usd_per_gpu_hour, "
                       "usd_per_million_output_tokens, usd_per_million_input_tokens FROM v_energy_cost ";
    char sql[640];
    if (!job_id) {
        snprintf(sql, sizeof sql, "%sORDER BY job_id", cols);
        return print_listing(db, sql, NULL, 0, fmt, out, err);
    }
    int r = check_job(db, job_id, err);
    if (r)
        return r;
    const char *p[] = {job_id};
    snprintf(sql, sizeof sql, "%sWHERE job_id = ?", cols);
    return print_listing(db, sql, p, 1, fmt, out, err);
}

/* The key statistics of `results --groups`, as profile --num-runs prints them. */
static const struct {
    const char *col, *pre, *metric, *stat; /* the mean's column; pre_ci95, pre_cv */
} group_keys[] = {
    {"ttft_avg_ms", "ttft_avg", "time_to_first_token", "avg"},
    {"ttft_p99_ms", "ttft_p99", "time_to_first_token", "p99"},
    {"itl_avg_ms", "itl_avg", "inter_token_latency", "avg"},
    {"latency_p99_ms", "latency_p99", "request_latency", "p99"},
    {"tokens_per_s", "tokens_per_s", "output_token_throughput", "avg"},
    {"requests_per_s", "requests_per_s", "request_throughput", "avg"},
};

int gp_store_print_groups(struct gp_db *db, const char *job_id, enum gp_out_format fmt, FILE *out,
                          struct gp_error *err)
{
    if (job_id) {
        int r = check_job(db, job_id, err);
        if (r)
            return r;
        const char *p[] = {job_id};
        return print_listing(db,
                             "SELECT group_id, group_label AS label, n_runs AS runs, metric, unit, stat, n, mean, "
                             "stddev, ci95_low, ci95_high, ci95_half_width, cv FROM v_repeat_groups "
                             "WHERE group_id = (SELECT group_id FROM repeat_group_jobs WHERE job_id = ?) "
                             "ORDER BY sort_order, metric, stat",
                             p, 1, fmt, out, err);
    }
    /* one row per group: per key statistic the mean, the half-width of its
     * 95% interval (mean +- that) and the CV, pivoted from the stored stats */
    struct gp_buf sql = {0};
    gp_buf_puts(&sql, "SELECT g.id AS group_id, g.label, g.n_runs AS runs, (SELECT s.model FROM repeat_group_jobs x "
                      "JOIN jobs j ON j.id = x.job_id JOIN scenarios s ON s.id = j.scenario_id "
                      "WHERE x.group_id = g.id ORDER BY x.job_id LIMIT 1) AS model");
    for (size_t i = 0; i < sizeof group_keys / sizeof group_keys[0]; i++) {
        const char *c = group_keys[i].col, *pre = group_keys[i].pre, *m = group_keys[i].metric,
                   *st = group_keys[i].stat;
        gp_buf_printf(&sql,
                      ", MAX(CASE WHEN st.metric_code = '%s' AND st.stat = '%s' THEN st.mean END) AS %s"
                      ", MAX(CASE WHEN st.metric_code = '%s' AND st.stat = '%s' THEN (st.ci95_high - st.ci95_low) / 2 "
                      "END) AS %s_ci95"
                      ", MAX(CASE WHEN st.metric_code = '%s' AND st.stat = '%s' THEN st.cv END) AS %s_cv",
                      m, st, c, m, st, pre, m, st, pre);
    }
    gp_buf_puts(&sql, " FROM repeat_groups g LEFT JOIN repeat_group_stats st ON st.group_id = g.id "
                      "GROUP BY g.id, g.label, g.n_runs ORDER BY g.id");
    int r = sql.data ? print_listing(db, sql.data, NULL, 0, fmt, out, err) : gp_err(err, GP_ENOMEM, "out of memory");
    gp_buf_free(&sql);
    return r;
}

/* The jobs listing's columns. The default table is for a terminal: it
 * fits GP_RESULTS_FIT columns (text clipped in the middle, columns empty in
 * every row left out), says the load in one column and the start as
 * MM-DD HH:MM (UTC); --wide and CSV/JSON keep every column and every
 * character. */
#define GP_RESULTS_FIT 160

/* "concurrency 4", "rate 2.5/s" or, for a trace replay (neither),
 * "trace x2 FILE" (x2: --trace-speedup; absent when the artifact did not
 * record it, as GenAI-Perf's do not). Whole speed-ups print without ".0"
 * on SQLite and PostgreSQL alike. */
static const char results_load[] =
    "CASE WHEN j.concurrency IS NOT NULL THEN 'concurrency ' || j.concurrency "
    "WHEN j.request_rate IS NOT NULL THEN 'rate ' || j.request_rate || '/s' "
    "WHEN x.trace_file IS NOT NULL THEN 'trace' || COALESCE(' x' || CASE WHEN x.trace_speedup = "
    "CAST(x.trace_speedup AS INTEGER) THEN CAST(CAST(x.trace_speedup AS INTEGER) AS TEXT) "
    "ELSE CAST(x.trace_speedup AS TEXT) END, '') || CASE WHEN x.trace_file <> '' THEN ' ' || x.trace_file "
    "ELSE '' END END";

/* Beside the requested OSL, what came back: an engine that stops at EOS
 * answers shorter (issue 39 item 4). Not ROUND(value, 1) in SQL: PostgreSQL
 * has no round(double precision, integer); the table rounds as it prints. */
static const char results_osl_measured[] =
    "(SELECT value FROM metric_values v WHERE v.job_id = j.job_id AND v.metric_code = "
    "'output_sequence_length' AND v.stat = 'avg')";

static const char results_metrics[] =
    "(SELECT value FROM metric_values v WHERE v.job_id = j.job_id AND v.metric_code = "
    "'output_token_throughput' AND v.stat = 'avg') AS %s, "
    "(SELECT value FROM metric_values v WHERE v.job_id = j.job_id AND v.metric_code = "
    "'request_throughput' AND v.stat = 'avg') AS %s, "
    "(SELECT value FROM metric_values v WHERE v.job_id = j.job_id AND v.metric_code = "
    "'time_to_first_token' AND v.stat = 'p50') AS ttft_p50_ms, "
    "(SELECT value FROM metric_values v WHERE v.job_id = j.job_id AND v.metric_code = "
    "'inter_token_latency' AND v.stat = 'p50') AS itl_p50_ms "
    "FROM v_jobs j JOIN jobs x ON x.id = j.job_id ORDER BY j.job_id";

int gp_store_print_results(struct gp_db *db, const char *job_id, enum gp_out_format fmt, int wide, FILE *out,
                           struct gp_error *err)
{
    if (!job_id) {
        struct gp_buf sql = {0};
        if (fmt == GP_OUT_TABLE && !wide) {
            gp_buf_printf(&sql,
                          "SELECT j.job_id AS id, j.job_label AS label, j.model, j.framework, %s AS load, j.isl, "
                          "j.osl, %s AS osl_out, j.status, REPLACE(SUBSTR(j.started_at, 6, 11), 'T', ' ') AS started, "
                          "j.requests_ok AS ok, j.requests_failed AS failed, ",
                          results_load, results_osl_measured);
            gp_buf_printf(&sql, results_metrics, "\"tokens/s\"", "\"req/s\"");
        } else {
            gp_buf_puts(&sql, "SELECT j.job_id, j.job_label AS label, j.model, j.framework, j.endpoint_type, ");
            if (fmt == GP_OUT_TABLE)
                gp_buf_printf(&sql, "%s AS load, ", results_load);
            gp_buf_printf(&sql,
                          "j.concurrency, j.request_rate, x.trace_file, x.trace_speedup, j.isl, j.osl, %s AS osl_measured, "
                          "j.status, j.started_at, j.requests_ok, j.requests_failed, ",
                          results_osl_measured);
            gp_buf_printf(&sql, results_metrics, "tokens_per_s", "requests_per_s");
        }
        int r = !sql.data ? gp_err(err, GP_ENOMEM, "out of memory")
                          : print_query(db, sql.data, NULL, 0, fmt, 1, fmt == GP_OUT_TABLE && !wide ? GP_RESULTS_FIT : 0,
                                        out, err);
        gp_buf_free(&sql);
        return r;
    }
    int r = check_job(db, job_id, err);
    if (r)
        return r;
    const char *p[] = {job_id};
    return print_listing(db,
                         "SELECT metric, unit, avg, min, max, p50, p90, p95, p99, std "
                         "FROM v_genai_perf_outputs WHERE job_id = ? ORDER BY sort_order, metric",
                         p, 1, fmt, out, err);
}

int gp_store_job_exists(struct gp_db *db, long long id, long long *found, struct gp_error *err)
{
    char s[32];
    snprintf(s, sizeof s, "%lld", id);
    const char *p[] = {s};
    *found = 0;
    return gp_db_query(db, "SELECT COUNT(*) FROM jobs WHERE id = ?", p, 1, gp_db_first_ll, found, err);
}
