/* export/genai_json.c — <stem>_genai_perf.json (spec §7.1): Python's
 * json.dumps(indent=2) of GenAI-Perf's stats, floats as repr(). */
#include "core/buf.h"
#include "core/error.h"
#include "core/pytext.h"
#include "export/export.h"
#include "export/export_int.h"
#include "metrics/metrics.h"

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
