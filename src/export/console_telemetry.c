/* export/console_telemetry.c — the GPU telemetry tables GenAI-Perf prints
 * after the metrics table with -v/--verbose (its telemetry_data_exporter_util
 * _construct_telemetry_stats_table): per group (Power, Memory, Utilization)
 * an outer table "NVIDIA GenAI-Perf | <Group> Metrics" with an empty header
 * and one nested table per metric that has data, titled "<Label> (<unit>)",
 * columns "GPU Index", avg, min, max, p99, p90, p75, GPU keys sorted.
 * gpu_utilization prints int(round(v)); everything else "{:,.2f}"; a stat a
 * metric lacks (the constants' min..p75) prints N/A. Rich's squeezing of
 * tables wider than the terminal is not reproduced. */
#include "export/export.h"

#include "core/buf.h"
#include "core/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TCOLS 7
#define TMAX_GPU 64

static const char *const t_head[TCOLS] = {"GPU Index", "avg", "min", "max", "p99", "p90", "p75"};

struct t_group { const char *title; const char *metrics[3]; };
static const struct t_group t_groups[] = {
    {"NVIDIA GenAI-Perf | Power Metrics", {"gpu_power_usage", "gpu_power_limit", "energy_consumption"}},
    {"NVIDIA GenAI-Perf | Memory Metrics", {"gpu_memory_used", "total_gpu_memory", NULL}},
    {"NVIDIA GenAI-Perf | Utilization Metrics", {"gpu_utilization", NULL, NULL}},
};

/* One nested table, laid out as lines of fixed display width. */
struct t_sub {
    char title[96];
    int ngpu;
    char cell[TMAX_GPU][TCOLS][40];
    long w[TCOLS];
    long width;   /* display columns of the table's box */
};

static int put_rep(struct gp_buf *b, const char *s, long n)
{
    int r = 0;
    for (long i = 0; i < n; i++)
        r |= gp_buf_puts(b, s);
    return r;
}

/* Python "{:,.2f}". */
static void fmt_2f(char *out, size_t n, double v)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.2f", fabs(v));
    char *dot = strchr(tmp, '.');
    size_t il = dot ? (size_t)(dot - tmp) : strlen(tmp), o = 0;
    char res[96];
    if (v < 0 && strcmp(tmp, "0.00") != 0)
        res[o++] = '-';
    for (size_t i = 0; i < il; i++) {
        res[o++] = tmp[i];
        if ((il - i - 1) % 3 == 0 && i + 1 < il)
            res[o++] = ',';
    }
    snprintf(res + o, sizeof res - o, "%s", dot ? dot : "");
    snprintf(out, n, "%s", res);
}

/* GenAI-Perf's _format_metric_name(name with spaces) + " (unit)". */
static void t_label(char *out, size_t n, const char *name, const char *unit)
{
    size_t o = 0;
    int start = 1;
    for (const char *p = name; *p && o + 4 < n; p++) {
        if (*p == '_') {
            out[o++] = ' ';
            start = 1;
            continue;
        }
        if (start && !strncmp(p, "gpu", 3) && (p[3] == '_' || !p[3])) {
            memcpy(out + o, "GPU", 3);
            o += 3;
            p += 2;
        } else {
            out[o++] = start && *p >= 'a' && *p <= 'z' ? (char)(*p - 32) : *p;
        }
        start = 0;
    }
    snprintf(out + o, n - o, " (%s)", unit ? unit : "N/A");
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Fills s from one telemetry_stats metric; 0 when it has no GPU data. */
static int t_build(struct t_sub *s, const char *name, const json_t *m)
{
    const char *keys[TMAX_GPU];
    int n = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)m, k, v)
        if (strcmp(k, "unit") && json_is_object(v) && json_object_size(v) && n < TMAX_GPU)
            keys[n++] = k;
    if (!n)
        return 0;
    qsort(keys, (size_t)n, sizeof keys[0], cmp_str);
    t_label(s->title, sizeof s->title, name, json_string_value(json_object_get(m, "unit")));
    s->ngpu = n;
    for (int c = 0; c < TCOLS; c++)
        s->w[c] = (long)strlen(t_head[c]);
    for (int g = 0; g < n; g++) {
        snprintf(s->cell[g][0], sizeof s->cell[g][0], "%s", keys[g]);
        const json_t *st = json_object_get(m, keys[g]);
        for (int c = 1; c < TCOLS; c++) {
            const json_t *x = json_object_get(st, t_head[c]);
            if (!json_is_number(x))
                snprintf(s->cell[g][c], sizeof s->cell[g][c], "N/A");
            else if (!strcmp(name, "gpu_utilization"))  /* int(round(v)): half to even */
                snprintf(s->cell[g][c], sizeof s->cell[g][c], "%.0f", nearbyint(json_number_value(x)));
            else
                fmt_2f(s->cell[g][c], sizeof s->cell[g][c], json_number_value(x));
        }
        for (int c = 0; c < TCOLS; c++)
            if ((long)strlen(s->cell[g][c]) > s->w[c])
                s->w[c] = (long)strlen(s->cell[g][c]);
    }
    s->width = TCOLS + 1;
    for (int c = 0; c < TCOLS; c++)
        s->width += s->w[c] + 2;
    return 1;
}

static int t_rule(struct gp_buf *b, const struct t_sub *s, const char *l, const char *f, const char *x,
                  const char *r)
{
    int rc = gp_buf_puts(b, l);
    for (int c = 0; c < TCOLS; c++) {
        rc |= put_rep(b, f, s->w[c] + 2);
        rc |= gp_buf_puts(b, c + 1 < TCOLS ? x : r);
    }
    return rc;
}

static int t_row(struct gp_buf *b, const struct t_sub *s, const char *const *cells, const char *bar)
{
    int rc = 0;
    for (int c = 0; c < TCOLS; c++) {
        rc |= gp_buf_puts(b, bar);
        rc |= put_rep(b, " ", s->w[c] + 1 - (long)strlen(cells[c]));
        rc |= gp_buf_puts(b, cells[c]);
        rc |= gp_buf_putc(b, ' ');
    }
    return rc | gp_buf_puts(b, bar);
}

/* "│ " + content padded to inner + " │\n" around one line of a nested table. */
static int t_cell_open(struct gp_buf *b) { return gp_buf_puts(b, "│ "); }
static int t_cell_close(struct gp_buf *b, long used, long inner)
{
    return put_rep(b, " ", inner - used) | gp_buf_puts(b, " │\n");
}

static int t_centre(struct gp_buf *b, const char *text, long width)
{
    long tl = (long)strlen(text), lp = width > tl ? (width - tl) / 2 : 0;
    return put_rep(b, " ", lp) | gp_buf_puts(b, text) | put_rep(b, " ", width > tl ? width - tl - lp : 0);
}

static int t_group(struct gp_buf *b, const struct t_group *grp, const json_t *ts, struct t_sub *subs)
{
    int ns = 0;
    long inner = 0;
    for (int i = 0; i < 3 && grp->metrics[i]; i++) {
        const json_t *m = json_object_get(ts, grp->metrics[i]);
        if (json_is_object(m) && t_build(&subs[ns], grp->metrics[i], m)) {
            if (subs[ns].width > inner)
                inner = subs[ns].width;
            ns++;
        }
    }
    if (!ns)
        return 0;
    long outer = inner + 4;
    int rc = t_centre(b, grp->title, outer) | gp_buf_putc(b, '\n');
    rc |= gp_buf_puts(b, "┏") | put_rep(b, "━", outer - 2) | gp_buf_puts(b, "┓\n");
    rc |= gp_buf_puts(b, "┃") | put_rep(b, " ", outer - 2) | gp_buf_puts(b, "┃\n");
    rc |= gp_buf_puts(b, "┡") | put_rep(b, "━", outer - 2) | gp_buf_puts(b, "┩\n");
    for (int i = 0; i < ns; i++) {
        const struct t_sub *s = &subs[i];
        rc |= t_cell_open(b) | t_centre(b, s->title, s->width) | t_cell_close(b, s->width, inner);
        rc |= t_cell_open(b) | t_rule(b, s, "┏", "━", "┳", "┓") | t_cell_close(b, s->width, inner);
        rc |= t_cell_open(b) | t_row(b, s, t_head, "┃") | t_cell_close(b, s->width, inner);
        rc |= t_cell_open(b) | t_rule(b, s, "┡", "━", "╇", "┩") | t_cell_close(b, s->width, inner);
        for (int g = 0; g < s->ngpu; g++) {
            const char *cells[TCOLS];
            for (int c = 0; c < TCOLS; c++)
                cells[c] = s->cell[g][c];
            rc |= t_cell_open(b) | t_row(b, s, cells, "│") | t_cell_close(b, s->width, inner);
        }
        rc |= t_cell_open(b) | t_rule(b, s, "└", "─", "┴", "┘") | t_cell_close(b, s->width, inner);
    }
    rc |= gp_buf_puts(b, "└") | put_rep(b, "─", outer - 2) | gp_buf_puts(b, "┘\n");
    return rc;
}

int gp_export_console_telemetry_buf(const json_t *ts, struct gp_buf *b)
{
    if (!json_is_object(ts))
        return 0;
    struct t_sub *subs = calloc(3, sizeof *subs);
    if (!subs)
        return -GP_ENOMEM;
    int rc = 0;
    for (size_t i = 0; i < sizeof t_groups / sizeof t_groups[0]; i++)
        rc |= t_group(b, &t_groups[i], ts, subs);
    free(subs);
    return rc ? -GP_ENOMEM : 0;
}
