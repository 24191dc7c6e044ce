/* export/csv.c — <stem>_genai_perf.csv (spec §7.2): Python's csv.writer
 * (QUOTE_MINIMAL, CRLF), numbers as f"{v:,.2f}", telemetry tables last. */
#include "core/buf.h"
#include "core/error.h"
#include "core/pytext.h"
#include "export/export.h"
#include "export/export_int.h"
#include "metrics/metrics.h"

#include <string.h>

/* CSV column order: avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1 */
static double csv_col(const struct gp_stats *s, int c)
{
    if (c == 0) return s->avg;
    if (c == 1) return s->min;
    if (c == 2) return s->max;
    return s->p[GP_NPCT - 1 - (c - 3)];
}

static int csv_field(struct gp_buf *b, const char *s, size_t n)
{
    /* csv.writer QUOTE_MINIMAL: quote fields holding the delimiter, quotes or line breaks */
    int q = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
            q = 1;
    if (!q)
        return gp_buf_append(b, s, n);
    int r = gp_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            r |= gp_buf_putc(b, '"');
        r |= gp_buf_putc(b, s[i]);
    }
    return r | gp_buf_putc(b, '"');
}

static int csv_num(struct gp_buf *b, double v, int commas)
{
    struct gp_buf t = {0};
    int r = commas ? gp_fmt_2f_commas(&t, v) : gp_buf_printf(&t, "%.2f", v);
    r |= csv_field(b, t.data ? t.data : "", t.len);
    gp_buf_free(&t);
    return r;
}

/* "gpu_power_usage" -> "GPU Power Usage" (telemetry_data_exporter_util.py) */
static int telemetry_label(struct gp_buf *b, const char *name, const char *unit)
{
    int r = 0, start = 1;
    const char *p = name;
    while (*p) {
        const char *e = strchr(p, '_');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!start)
            r |= gp_buf_putc(b, ' ');
        start = 0;
        if (n == 3 && strncmp(p, "gpu", 3) == 0) {
            r |= gp_buf_puts(b, "GPU");
        } else if (n) {
            char c = p[0];
            r |= gp_buf_putc(b, (c >= 'a' && c <= 'z') ? (char)(c - 32) : c);
            r |= gp_buf_append(b, p + 1, n - 1);
        }
        p += n;
        if (*p == '_')
            p++;
    }
    if (unit && *unit)
        r |= gp_buf_printf(b, " (%s)", unit);
    return r;
}

static int is_constant_metric(const char *name)
{
    return strcmp(name, "gpu_power_limit") == 0 || strcmp(name, "total_gpu_memory") == 0;
}

static double jnum(const json_t *v, int *ok)
{
    *ok = json_is_number(v);
    return *ok ? json_number_value(v) : 0;
}

/* One GPU table of the CSV: the time-series metrics with every statistic
 * (constant = 0), or the constant ones (energy, memory total, ...) with their
 * value as "Value" (constant = 1), GenAI-Perf's two tables. */
static int csv_gpu_table(struct gp_buf *b, const json_t *ts, int constant)
{
    static const char *const cols[] = {"avg", "min", "max", "p99", "p95", "p90", "p75",
                                       "p50", "p25", "p10", "p5", "p1"};
    size_t ncols = constant ? 1 : sizeof cols / sizeof *cols; /* "Value" is the avg */
    int r = gp_buf_puts(b, constant ? "\r\nMetric,GPU,Value\r\n"
                                    : "\r\nMetric,GPU,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1\r\n");
    const char *name;
    json_t *metric;
    json_object_foreach((json_t *)ts, name, metric) {
        if (is_constant_metric(name) != constant || !json_is_object(metric))
            continue;
        const char *unit = json_string_value(json_object_get(metric, "unit"));
        const char *gpu;
        json_t *g;
        json_object_foreach(metric, gpu, g) {
            if (!json_is_object(g))
                continue;
            struct gp_buf l = {0};
            r |= telemetry_label(&l, name, unit);
            r |= csv_field(b, l.data ? l.data : "", l.len);
            gp_buf_free(&l);
            r |= gp_buf_putc(b, ',');
            r |= csv_field(b, gpu, strlen(gpu));
            for (size_t c = 0; c < ncols; c++) {
                int ok;
                double v = jnum(json_object_get(g, cols[c]), &ok);
                r |= gp_buf_putc(b, ',');
                r |= csv_num(b, ok ? v : 0.0, !constant);
            }
            r |= gp_buf_puts(b, "\r\n");
        }
    }
    return r;
}

static int csv_telemetry(struct gp_buf *b, const json_t *ts)
{
    return csv_gpu_table(b, ts, 0) | csv_gpu_table(b, ts, 1);
}

int gp_export_csv_buf(const struct gp_export_ctx *ctx, struct gp_buf *b)
{
    int r = gp_buf_puts(b, "Metric,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1\r\n");
    const enum gp_metric *rows;
    size_t nrows = gp_export_request_rows(ctx, &rows);
    for (size_t i = 0; i < nrows; i++) {
        const struct gp_stats *s = &ctx->m->stats[rows[i]];
        const char *l = gp_export_label(rows[i]);
        r |= csv_field(b, l, strlen(l));
        for (int c = 0; c < 12; c++) {
            r |= gp_buf_putc(b, ',');
            if (s->present)
                r |= csv_num(b, csv_col(s, c), 1);
            else
                r |= gp_buf_puts(b, "N/A");
        }
        r |= gp_buf_puts(b, "\r\n");
    }
    r |= gp_buf_puts(b, "\r\nMetric,Value\r\n");
    enum gp_metric sys[4];
    size_t ns = gp_export_system_rows(ctx, sys);
    for (size_t i = 0; i < ns; i++) {
        const struct gp_stats *s = &ctx->m->stats[sys[i]];
        const char *l = gp_export_label(sys[i]);
        r |= csv_field(b, l, strlen(l));
        r |= gp_buf_putc(b, ',');
        if (s->present)
            r |= csv_num(b, s->avg, 1);
        else
            r |= gp_buf_puts(b, "N/A");
        r |= gp_buf_puts(b, "\r\n");
    }
    if (ctx->telemetry_stats && json_object_size(ctx->telemetry_stats))
        r |= csv_telemetry(b, ctx->telemetry_stats);
    return r ? -GP_ENOMEM : 0;
}

int gp_export_genai_perf_csv(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err)
{
    struct gp_buf b = {0};
    int rc = gp_export_csv_buf(ctx, &b);
    return gp_export_write_buf(path, &b, rc, err);
}
