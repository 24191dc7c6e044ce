/* export/console.c — the console table "NVIDIA GenAI-Perf | LLM Metrics"
 * (spec §8) as rich draws it with box.HEAVY_HEAD: the same column widths
 * (rich's collapse and ratio_reduce), word wrap and right-justified cells. */
#include "core/buf.h"
#include "core/error.h"
#include "core/pytext.h"
#include "export/export.h"
#include "export/prefix_cache.h"
#include "export/export_int.h"
#include "metrics/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define NCOL 7
#define MAXLINES 8

struct cell {
    char text[128];
};

/* display width of UTF-8 text (labels and numbers are ASCII; be safe) */
static size_t dwidth(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            w++;
    return w;
}

/* Greedy word wrap like rich's Text.wrap: words never split; a word alone
 * wider than the column is cropped with "…". Explicit '\n' breaks. */
static int wrap(const char *s, size_t width, char lines[MAXLINES][128])
{
    int nl = 0;
    if (width < 1)
        width = 1;
    const char *p = s;
    while (*p && nl < MAXLINES) {
        const char *eol = strchr(p, '\n');
        size_t plen = eol ? (size_t)(eol - p) : strlen(p);
        char cur[128] = "";
        size_t cl = 0;
        size_t i = 0;
        int para0 = nl;
        while (i < plen) {
            while (i < plen && p[i] == ' ')
                i++;
            size_t ws = i;
            while (i < plen && p[i] != ' ')
                i++;
            size_t wl = i - ws;
            if (!wl)
                break;
            const char *w = p + ws;
            while (wl) {
                size_t need = cl ? cl + 1 + wl : wl;
                if (need <= width) {
                    if (cl)
                        cur[cl++] = ' ';
                    memcpy(cur + cl, w, wl);
                    cl += wl;
                    cur[cl] = '\0';
                    wl = 0;
                } else if (cl) {
                    if (nl < MAXLINES)
                        snprintf(lines[nl++], 128, "%s", cur);
                    cl = 0;
                    cur[0] = '\0';
                } else {
                    /* a word wider than the column gets a line of its own,
                     * cropped with an ellipsis (rich's default overflow) */
                    if (nl < MAXLINES) {
                        if (width > 1)
                            snprintf(lines[nl++], 128, "%.*s\u2026", (int)(width - 1), w);
                        else
                            snprintf(lines[nl++], 128, "\u2026");
                    }
                    wl = 0;
                }
            }
        }
        /* the paragraph's last line (an empty paragraph is one empty line) */
        if (nl < MAXLINES && (cl || nl == para0))
            snprintf(lines[nl++], 128, "%s", cur);
        p += plen;
        if (*p == '\n')
            p++;
    }
    if (nl == 0)
        lines[nl++][0] = '\0';
    return nl;
}

/* rich.table: _collapse_widths then ratio_reduce (widths include padding) */
static void ratio_reduce(long total, const long *ratios_in, const long *maxs, long *vals, int n)
{
    long ratios[NCOL], total_ratio = 0;
    for (int i = 0; i < n; i++) {
        ratios[i] = maxs[i] ? ratios_in[i] : 0;
        total_ratio += ratios[i];
    }
    if (!total_ratio)
        return;
    long remaining = total;
    for (int i = 0; i < n; i++) {
        if (ratios[i] && total_ratio > 0) {
            double q = (double)ratios[i] * (double)remaining / (double)total_ratio;
            long d = (long)gp_round_half_even(q);
            if (d > maxs[i])
                d = maxs[i];
            vals[i] -= d;
            remaining -= d;
            total_ratio -= ratios[i];
        }
    }
}

static void collapse(long *w, int n, long max_width)
{
    long total = 0;
    for (int i = 0; i < n; i++)
        total += w[i];
    long excess = total - max_width;
    while (total && excess > 0) {
        long mx = 0, second = 0;
        for (int i = 0; i < n; i++)
            if (w[i] > mx)
                mx = w[i];
        for (int i = 0; i < n; i++)
            if (w[i] != mx && w[i] > second)
                second = w[i];
        long diff = mx - second;
        long ratios[NCOL], maxs[NCOL];
        int any = 0;
        for (int i = 0; i < n; i++) {
            ratios[i] = w[i] == mx;
            any |= (int)ratios[i];
            maxs[i] = excess < diff ? excess : diff;
        }
        if (!any || !diff)
            break;
        ratio_reduce(excess, ratios, maxs, w, n);
        total = 0;
        for (int i = 0; i < n; i++)
            total += w[i];
        excess = total - max_width;
    }
    if (excess > 0) {
        long ratios[NCOL], maxs[NCOL];
        for (int i = 0; i < n; i++) {
            ratios[i] = 1;
            maxs[i] = w[i];
        }
        ratio_reduce(excess, ratios, maxs, w, n);
    }
}

static int put_rep(struct gp_buf *b, const char *s, long n)
{
    int r = 0;
    for (long i = 0; i < n; i++)
        r |= gp_buf_puts(b, s);
    return r;
}

static const char *const head[NCOL] = {"Statistic", "avg", "min", "max", "p99", "p90", "p75"};

struct row {
    struct cell c[NCOL];
};

static void cell_num(struct cell *c, const struct gp_stats *s, double v)
{
    struct gp_buf f = {0};
    if (s->present)
        gp_fmt_2f_commas(&f, v);
    else
        gp_buf_puts(&f, "N/A");
    snprintf(c->text, sizeof c->text, "%s", f.data ? f.data : "");
    gp_buf_free(&f);
}

/* The table's cells: per-request rows (avg,min,max,p99,p90,p75), then the
 * system rows (avg only). Returns the row count (at most 16). */
static int build_rows(const struct gp_export_ctx *ctx, struct row rows[16])
{
    int nr = 0;
    const enum gp_metric *rq;
    size_t nrq = gp_export_request_rows(ctx, &rq);
    for (size_t i = 0; i < nrq; i++, nr++) {
        const struct gp_stats *s = &ctx->m->stats[rq[i]];
        /* textwrap.fill(label, 36) */
        char lines[MAXLINES][128];
        int n = wrap(gp_export_label(rq[i]), 36, lines);
        struct gp_buf t = {0};
        for (int k = 0; k < n; k++) {
            if (k)
                gp_buf_putc(&t, '\n');
            gp_buf_puts(&t, lines[k]);
        }
        snprintf(rows[nr].c[0].text, 128, "%s", t.data ? t.data : "");
        gp_buf_free(&t);
        double v[6];
        v[0] = s->avg, v[1] = s->min, v[2] = s->max, v[3] = s->p[8], v[4] = s->p[6], v[5] = s->p[5];
        for (int c = 0; c < 6; c++)
            cell_num(&rows[nr].c[1 + c], s, v[c]);
    }
    enum gp_metric sys[4];
    size_t ns = gp_export_system_rows(ctx, sys);
    for (size_t i = 0; i < ns; i++, nr++) {
        const struct gp_stats *s = &ctx->m->stats[sys[i]];
        snprintf(rows[nr].c[0].text, 128, "%s", gp_export_label(sys[i]));
        cell_num(&rows[nr].c[1], s, s->avg);
        for (int c = 2; c < NCOL; c++)
            snprintf(rows[nr].c[c].text, 128, "N/A");
    }
    return nr;
}

/* Column widths (padding included) as rich computes them for width columns:
 * natural widths (longest line + 2), collapsed to fit, at least 3. */
static void col_widths(const struct row *rows, int nr, int width, long w[NCOL])
{
    for (int c = 0; c < NCOL; c++) {
        size_t mx = strlen(head[c]);
        for (int r = 0; r < nr; r++) {
            const char *p = rows[r].c[c].text;
            while (*p) {
                const char *e = strchr(p, '\n');
                size_t l = e ? (size_t)(e - p) : strlen(p);
                size_t dw = dwidth(p, l);
                if (dw > mx)
                    mx = dw;
                p += l;
                if (*p)
                    p++;
            }
        }
        w[c] = (long)mx + 2;
    }
    long max_cols = width - (NCOL + 1);
    long total = 0;
    for (int c = 0; c < NCOL; c++)
        total += w[c];
    if (total > max_cols)
        collapse(w, NCOL, max_cols);
    for (int c = 0; c < NCOL; c++)
        if (w[c] < 3)
            w[c] = 3;
}

/* one horizontal rule: left, fill per column, separators, right + newline */
static int rule(struct gp_buf *b, const long w[NCOL], const char *l, const char *fill, const char *sep,
                const char *r)
{
    int rc = gp_buf_puts(b, l);
    for (int c = 0; c < NCOL; c++) {
        rc |= put_rep(b, fill, w[c]);
        rc |= gp_buf_puts(b, c == NCOL - 1 ? r : sep);
    }
    return rc | gp_buf_putc(b, '\n');
}

/* One table row (r < 0: the header, heavy verticals), cells wrapped to
 * their column and right-justified. */
static int render_row(struct gp_buf *b, const struct row *rows, int r, const long w[NCOL])
{
    char cl[NCOL][MAXLINES][128];
    int nlines[NCOL], h = 1, rc = 0;
    for (int c = 0; c < NCOL; c++) {
        const char *t = r < 0 ? head[c] : rows[r].c[c].text;
        nlines[c] = wrap(t, (size_t)(w[c] - 2), cl[c]);
        if (nlines[c] > h)
            h = nlines[c];
    }
    const char *v = r < 0 ? "┃" : "│";
    for (int k = 0; k < h; k++) {
        rc |= gp_buf_puts(b, v);
        for (int c = 0; c < NCOL; c++) {
            const char *t = k < nlines[c] ? cl[c][k] : "";
            long tlen = (long)dwidth(t, strlen(t));
            rc |= gp_buf_putc(b, ' ');
            rc |= put_rep(b, " ", w[c] - 2 - tlen); /* right-justified */
            rc |= gp_buf_puts(b, t);
            rc |= gp_buf_putc(b, ' ');
            rc |= gp_buf_puts(b, v);
        }
        rc |= gp_buf_putc(b, '\n');
    }
    return rc;
}

int gp_export_console_buf(const struct gp_export_ctx *ctx, int width, struct gp_buf *b)
{
    struct row rows[16];
    int nr = build_rows(ctx, rows);
    long w[NCOL];
    col_widths(rows, nr, width <= 0 ? 80 : width, w);
    long tw = NCOL + 1;
    for (int c = 0; c < NCOL; c++)
        tw += w[c];
    int rc = 0;
    /* title, centred over the table */
    /* console_exporter.py _get_title: by the --endpoint-type string ("vision" stays LLM) */
    const char *t = ctx->endpoint_type_name ? ctx->endpoint_type_name : "";
    const char *title = !strcmp(t, "embeddings")   ? "NVIDIA GenAI-Perf | Embeddings Metrics"
                        : !strcmp(t, "rankings")   ? "NVIDIA GenAI-Perf | Rankings Metrics"
                        : !strcmp(t, "multimodal") ? "NVIDIA GenAI-Perf | Multi-Modal Metrics"
                                                   : "NVIDIA GenAI-Perf | LLM Metrics";
    long tl = (long)strlen(title);
    long lp = tw > tl ? (tw - tl) / 2 : 0, rp = tw > tl ? tw - tl - lp : 0;
    rc |= put_rep(b, " ", lp);
    rc |= gp_buf_puts(b, title);
    rc |= put_rep(b, " ", rp);
    rc |= gp_buf_putc(b, '\n');
    rc |= rule(b, w, "┏", "━", "┳", "┓");
    rc |= render_row(b, rows, -1, w);
    rc |= rule(b, w, "┡", "━", "╇", "┩");
    for (int r = 0; r < nr; r++)
        rc |= render_row(b, rows, r, w);
    rc |= rule(b, w, "└", "─", "┴", "┘");
    return rc ? -GP_ENOMEM : 0;
}

int gp_export_console(const struct gp_export_ctx *ctx, struct gp_error *err)
{
    if (!ctx->console)
        return 0;
    int width = ctx->console_width;
    struct winsize ws;
    if (width <= 0 && isatty(fileno(ctx->console)) && ioctl(fileno(ctx->console), TIOCGWINSZ, &ws) == 0 && ws.ws_col)
        width = ws.ws_col; /* rich follows the terminal */
    if (width <= 0) {
        const char *cols = getenv("COLUMNS");
        width = cols ? atoi(cols) : 0;
        if (width <= 0)
            width = 80;
    }
    struct gp_buf b = {0};
    if (gp_export_console_buf(ctx, width, &b) || gp_export_prefix_cache_line(ctx, &b) ||
        (ctx->verbose && gp_export_console_telemetry_buf(ctx->telemetry_stats, &b))) {
        gp_buf_free(&b);
        return gp_err(err, GP_ENOMEM, "out of memory building the console table");
    }
    fwrite(b.data, 1, b.len, ctx->console);
    fflush(ctx->console);
    gp_buf_free(&b);
    return 0;
}
