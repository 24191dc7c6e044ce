/* compare/compare_out.c — the three renderings of a comparison: the terminal
 * table, Markdown (a pull-request comment) and JSON. All three say the same
 * things: the evidence each row rests on (and that one run each is weaker
 * evidence), which side was client-limited, and the gate's outcome per term. */
#include "compare/compare_out.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *gp_cmp_verdict_name(const struct gp_cmp_row *row, int limited)
{
    switch (row->verdict) {
    case GP_CMP_NA: return "n/a";
    case GP_CMP_BETTER: return "better";
    case GP_CMP_WORSE: return "worse";
    case GP_CMP_NO_CHANGE: break;
    }
    if (row->too_few)
        return "not judged: too few requests";
    if (row->excludes_zero && limited)
        return "no verdict (client-limited)";
    if (row->negligible)
        return "no detectable change (under --min-change)";
    return "no detectable change";
}

const char *gp_cmp_gate_name(enum gp_cmp_gate_state s)
{
    switch (s) {
    case GP_GATE_PASS: return "pass";
    case GP_GATE_FAIL: return "FAIL";
    case GP_GATE_LIMITED: return "not judged: client-limited";
    case GP_GATE_MISSING: return "missing";
    case GP_GATE_TOO_FEW: return "not judged: too few requests";
    }
    return "?";
}

/* A value in the metric's unit (the failure rate as a percentage). */
static void fmt_value(char *b, size_t n, int m, int has, double v)
{
    if (!has)
        snprintf(b, n, "n/a");
    else if (m == GP_CMP_FAIL_RATE)
        snprintf(b, n, "%.2f", v * 100);
    else
        snprintf(b, n, "%.2f", v);
}

/* A change: relative in %, the failure rate in percentage points. */
static void fmt_change(char *b, size_t n, int m, double x)
{
    if (!isfinite(x))
        snprintf(b, n, "%s", x < 0 ? "-inf" : "+inf");
    else if (gp_cmp_metrics[m].absolute)
        snprintf(b, n, "%+.2f pp", x * 100);
    else
        snprintf(b, n, "%+.1f%%", x * 100);
}

static const char *method_line(const struct gp_cmp_result *r, const struct gp_cmp_opts *o, char *b, size_t n)
{
    if (r->method == GP_CMP_RUNS)
        snprintf(b, n, "evidence: %zu vs %zu runs, Welch's t on run-level values, 95%% intervals; changes under "
                 "%g%% are not called real", r->n_base, r->n_new, r->min_change * 100);
    else
        snprintf(b, n, "evidence: %s; bootstrap over requests (%d resamples, seed %llu) for latencies and the "
                 "failure rate, 10 time slices per run for throughputs; 95%% intervals. Weaker evidence than "
                 "repeats: run-to-run variation is not measured (give each side at least 2 runs); "
                 "changes under %g%% are not called real",
                 r->n_base == 1 && r->n_new == 1 ? "one run each" : "fewer than 2 runs on a side", o->iters,
                 (unsigned long long)o->seed, r->min_change * 100);
    return b;
}

static void limited_lines(FILE *fp, const char *pre, const struct gp_cmp_side *base, const struct gp_cmp_side *nw)
{
    const struct gp_cmp_side *sides[] = {base, nw};
    for (int i = 0; i < 2; i++)
        if (sides[i]->client_limited)
            fprintf(fp, "%s%s (%s) was client-limited (%s): no difference is called real\n", pre,
                    i ? "NEW" : "BASE", sides[i]->path, sides[i]->limited_why);
}

static void gate_lines(FILE *fp, const char *pre, const struct gp_cmp_result *r, const struct gp_cmp_gate *g,
                       const enum gp_cmp_gate_state *st, size_t ng)
{
    for (size_t i = 0; i < ng; i++) {
        const struct gp_cmp_row *row = NULL;
        for (size_t k = 0; k < r->n_rows; k++)
            if (r->rows[k].metric == g[i].metric)
                row = &r->rows[k];
        char c[32] = "n/a", lo[32] = "", hi[32] = "";
        if (row && row->verdict != GP_CMP_NA) {
            fmt_change(c, sizeof c, g[i].metric, row->change.est);
            if (isfinite(row->change.lo) && isfinite(row->change.hi)) {   /* else there is none */
                fmt_change(lo, sizeof lo, g[i].metric, row->change.lo);
                fmt_change(hi, sizeof hi, g[i].metric, row->change.hi);
            }
        }
        fprintf(fp, "%sgate %s: %s (change %s", pre, g[i].text, gp_cmp_gate_name(st[i]), c);
        if (*lo)
            fprintf(fp, ", interval [%s, %s]", lo, hi);
        fprintf(fp, ")\n");
    }
}

static void write_text(FILE *fp, int md, const struct gp_cmp_side *base, const struct gp_cmp_side *nw,
                       const struct gp_cmp_result *r, const struct gp_cmp_opts *o, const struct gp_cmp_gate *g,
                       const enum gp_cmp_gate_state *st, size_t ng)
{
    char line[768];
    if (md) {
        fprintf(fp, "### genperf compare\n\nBASE `%s` (%zu run%s) vs NEW `%s` (%zu run%s)\n\n", base->path,
                r->n_base, r->n_base == 1 ? "" : "s", nw->path, r->n_new, r->n_new == 1 ? "" : "s");
    } else {
        fprintf(fp, "BASE %s (%zu run%s)\nNEW  %s (%zu run%s)\n", base->path, r->n_base, r->n_base == 1 ? "" : "s",
                nw->path, r->n_new, r->n_new == 1 ? "" : "s");
    }
    if (r->unlike[0])
        fprintf(fp, "%swarning: unlike runs, compared under --allow-different: %s%s\n", md ? "**" : "", r->unlike,
                md ? "**\n" : "");
    if (!md)
        fprintf(fp, "%-34s %10s %10s %9s  %-22s %s\n", "Metric", "BASE", "NEW", "Change", "95% interval", "Verdict");
    else
        fprintf(fp, "| Metric | BASE | NEW | Change | 95%% interval | Verdict |\n|---|---:|---:|---:|---|---|\n");
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct gp_cmp_row *row = &r->rows[i];
        int m = row->metric;
        char name[96], vb[32], vn[32], c[32] = "", lo[32], hi[32], iv[80] = "";
        snprintf(name, sizeof name, "%s (%s)", gp_cmp_metrics[m].label, gp_cmp_metrics[m].unit);
        fmt_value(vb, sizeof vb, m, row->has_base, row->base);
        fmt_value(vn, sizeof vn, m, row->has_new, row->new_);
        if (row->verdict != GP_CMP_NA) {
            fmt_change(c, sizeof c, m, row->change.est);
            if (isfinite(row->change.lo) && isfinite(row->change.hi)) {
                fmt_change(lo, sizeof lo, m, row->change.lo);
                fmt_change(hi, sizeof hi, m, row->change.hi);
                snprintf(iv, sizeof iv, "[%s, %s]", lo, hi);
            } else {
                snprintf(iv, sizeof iv, "(no interval)");  /* JSON's evidence says why */
            }
        }
        if (md)
            fprintf(fp, "| %s | %s | %s | %s | %s | %s |\n", name, vb, vn, c, iv, gp_cmp_verdict_name(row, r->limited));
        else
            fprintf(fp, "%-34s %10s %10s %9s  %-22s %s\n", name, vb, vn, c, iv, gp_cmp_verdict_name(row, r->limited));
    }
    const char *pre = md ? "\n" : "";
    fprintf(fp, "%s%s%s\n", md ? "\n_" : "", method_line(r, o, line, sizeof line), md ? "_" : "");
    limited_lines(fp, pre, base, nw);
    if (ng && md)
        fprintf(fp, "\n");
    gate_lines(fp, md ? "- " : "", r, g, st, ng);
}

static json_t *side_json(const struct gp_cmp_side *s, size_t runs)
{
    json_t *o = json_pack("{s:s,s:I,s:b}", "path", s->path, "runs", (json_int_t)runs, "client_limited",
                          s->client_limited);
    if (s->client_limited)
        json_object_set_new(o, "client_limited_why", json_string(s->limited_why));
    return o;
}

static json_t *num_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static int write_json(FILE *fp, const struct gp_cmp_side *base, const struct gp_cmp_side *nw,
                      const struct gp_cmp_result *r, const struct gp_cmp_opts *o, const struct gp_cmp_gate *g,
                      const enum gp_cmp_gate_state *st, size_t ng, int gate_failed)
{
    char line[768];
    json_t *root = json_object();
    json_object_set_new(root, "base", side_json(base, r->n_base));
    json_object_set_new(root, "new", side_json(nw, r->n_new));
    json_object_set_new(root, "unlike", r->unlike[0] ? json_string(r->unlike) : json_null());
    json_object_set_new(root, "method", json_string(r->method == GP_CMP_RUNS ? "runs" : "bootstrap"));
    json_object_set_new(root, "weaker_evidence", json_boolean(r->method != GP_CMP_RUNS));
    json_object_set_new(root, "evidence", json_string(method_line(r, o, line, sizeof line)));
    json_object_set_new(root, "bootstrap", json_pack("{s:i,s:I}", "iterations", o->iters, "seed", (json_int_t)o->seed));
    json_object_set_new(root, "min_change", json_real(r->min_change));
    json_t *rows = json_array();
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct gp_cmp_row *row = &r->rows[i];
        int m = row->metric, na = row->verdict == GP_CMP_NA;
        json_t *j = json_pack("{s:s,s:s,s:s,s:s}", "metric", gp_cmp_metrics[m].key, "label", gp_cmp_metrics[m].label,
                              "unit", gp_cmp_metrics[m].unit, "change_kind",
                              gp_cmp_metrics[m].absolute ? "absolute" : "relative");
        json_object_set_new(j, "base", row->has_base ? json_real(row->base) : json_null());
        json_object_set_new(j, "new", row->has_new ? json_real(row->new_) : json_null());
        json_object_set_new(j, "change", na ? json_null() : num_or_null(row->change.est));
        json_object_set_new(j, "ci_low", na ? json_null() : num_or_null(row->change.lo));
        json_object_set_new(j, "ci_high", na ? json_null() : num_or_null(row->change.hi));
        json_object_set_new(j, "evidence", row->how ? json_string(row->how) : json_null());
        json_object_set_new(j, "real", json_boolean(row->real));
        json_object_set_new(j, "negligible", json_boolean(row->negligible));
        json_object_set_new(j, "verdict", json_string(gp_cmp_verdict_name(row, r->limited)));
        json_array_append_new(rows, j);
    }
    json_object_set_new(root, "metrics", rows);
    json_t *gates = json_array();
    for (size_t i = 0; i < ng; i++)
        json_array_append_new(gates, json_pack("{s:s,s:s,s:f,s:s}", "term", g[i].text, "metric",
                                               gp_cmp_metrics[g[i].metric].key, "threshold", g[i].threshold,
                                               "result", gp_cmp_gate_name(st[i])));
    json_object_set_new(root, "gate", gates);
    json_object_set_new(root, "gate_failed", json_boolean(gate_failed));
    int rc = json_dumpf(root, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    fputc('\n', fp);
    json_decref(root);
    return rc;
}

int gp_cmp_write(FILE *fp, enum gp_cmp_format fmt, const struct gp_cmp_side *base, const struct gp_cmp_side *nw,
                 const struct gp_cmp_result *r, const struct gp_cmp_opts *o, const struct gp_cmp_gate *g,
                 const enum gp_cmp_gate_state *st, size_t ng, int gate_failed)
{
    if (fmt == GP_CMP_FMT_JSON)
        return write_json(fp, base, nw, r, o, g, st, ng, gate_failed);
    write_text(fp, fmt == GP_CMP_FMT_MD, base, nw, r, o, g, st, ng);
    return 0;
}
