/* export/genai_json.c — <stem>_genai_perf.json (spec §7.1): Python's
 * json.dumps(indent=2) of GenAI-Perf's stats, floats as repr(). */
#include "core/buf.h"
#include "core/error.h"
#include "core/pytext.h"
#include "export/export.h"
#include "export/export_int.h"
#include "metrics/metrics.h"

/* One metric as GenAI-Perf's Statistics writes it: unit first, then avg, and
 * for a per-request metric the percentiles, min, max and std; nothing when
 * the statistic is not present. ind is the key's indent, its fields one level
 * (two spaces) deeper: the run's block and each session's share this. */
int gp_export_stat_json(struct gp_buf *b, enum gp_metric m, const struct gp_stats *s, const char *ind, int *first)
{
    static const char *const pk[GP_NPCT] = {"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"};
    if (!s->present)
        return 0;
    int r = gp_buf_printf(b, "%s\n%s\"%s\": {\n%s  \"unit\": \"%s\",\n%s  \"avg\": ", *first ? "" : ",", ind,
                          gp_metric_name(m), ind, gp_metric_unit(m), ind);
    *first = 0;
    r |= gp_py_float(b, s->avg);
    if (!s->system) {
        for (int i = 0; i < GP_NPCT; i++) {
            r |= gp_buf_printf(b, ",\n%s  \"%s\": ", ind, pk[i]);
            r |= gp_py_float(b, s->p[i]);
        }
        r |= gp_buf_printf(b, ",\n%s  \"min\": ", ind);
        r |= gp_py_float(b, s->min);
        r |= gp_buf_printf(b, ",\n%s  \"max\": ", ind);
        r |= gp_py_float(b, s->max);
        r |= gp_buf_printf(b, ",\n%s  \"std\": ", ind);
        r |= gp_py_float(b, s->std);
    }
    return r | gp_buf_printf(b, "\n%s}", ind);
}

int gp_export_genai_perf_json_buf(const struct gp_export_ctx *ctx, struct gp_buf *b)
{
    int r = gp_buf_putc(b, '{');
    int first = 1;
    for (int m = 0; m < GP_M__COUNT; m++) {
        if (m == GP_M_REQUEST_GOODPUT && !ctx->goodput)
            continue;
        r |= gp_export_stat_json(b, (enum gp_metric)m, &ctx->m->stats[m], "  ", &first);
    }
    if (ctx->telemetry_stats && json_object_size(ctx->telemetry_stats)) {
        r |= gp_buf_printf(b, "%s\n  \"telemetry_stats\": ", first ? "" : ",");
        r |= gp_json_dump(b, ctx->telemetry_stats, 2, 1, GP_JSON_PYTHON);
        first = 0;
    }
    if (ctx->input_config) {
        r |= gp_buf_printf(b, "%s\n  \"input_config\": ", first ? "" : ",");
        r |= gp_json_dump(b, ctx->input_config, 2, 1, GP_JSON_PYTHON);
        first = 0;
    }
    int rs = gp_export_sessions_json(ctx, b, &first); /* after input_config, as GenAI-Perf's */
    if (rs)
        return rs;
    r |= gp_buf_puts(b, first ? "}" : "\n}");
    return r ? -GP_ENOMEM : 0;
}

int gp_export_genai_perf_json(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err)
{
    struct gp_buf b = {0};
    int rc = gp_export_genai_perf_json_buf(ctx, &b);
    return gp_export_write_buf(path, &b, rc, err);
}
