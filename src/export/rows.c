/* export/rows.c — what the artifact writers share, below all of them: the
 * rows and labels of the CSV and console tables (GenAI-Perf's), one
 * statistic as *_genai_perf.json writes it (the run's block and each
 * session's), and the atomic write of an in-memory artifact. Calls nothing
 * else in export/. */
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/pytext.h"
#include "dataset/dataset.h"
#include "export/export.h"
#include "export/export_int.h"
#include "metrics/metrics.h"

/* ---- rows and labels ----------------------------------------------------- */

/* CSV/console labels use GenAI-Perf's metadata units, not the JSON ones. */
const char *gp_export_label(enum gp_metric m)
{
    switch (m) {
    case GP_M_REQUEST_THROUGHPUT: return "Request Throughput (per sec)";
    case GP_M_REQUEST_LATENCY: return "Request Latency (ms)";
    case GP_M_REQUEST_GOODPUT: return "Request Goodput (per sec)";
    case GP_M_REQUEST_COUNT: return "Request Count (count)";
    case GP_M_TTFT: return "Time To First Token (ms)";
    case GP_M_TTST: return "Time To Second Token (ms)";
    case GP_M_ITL: return "Inter Token Latency (ms)";
    case GP_M_OUTPUT_TOKEN_THROUGHPUT: return "Output Token Throughput (tokens/sec)";
    case GP_M_TPS_PER_USER: return "Output Token Throughput Per User (tokens/sec/user)";
    case GP_M_OSL: return "Output Sequence Length (tokens)";
    case GP_M_ISL: return "Input Sequence Length (tokens)";
    default: return "?";
    }
}

static const enum gp_metric stream_rows[] = {GP_M_TTFT, GP_M_TTST, GP_M_REQUEST_LATENCY, GP_M_ITL,
                                             GP_M_TPS_PER_USER, GP_M_OSL, GP_M_ISL};
static const enum gp_metric plain_rows[] = {GP_M_REQUEST_LATENCY, GP_M_OSL, GP_M_ISL};

/* embeddings and rankings: GenAI-Perf's base Metrics class (no token metrics) */
static int requests_only(const struct gp_export_ctx *ctx)
{
    return ctx->endpoint_type == GP_ENDPOINT_EMBEDDINGS || ctx->endpoint_type == GP_ENDPOINT_RANKINGS;
}

size_t gp_export_request_rows(const struct gp_export_ctx *ctx, const enum gp_metric **rows)
{
    if (requests_only(ctx)) {
        *rows = plain_rows;
        return 1;
    }
    if (ctx->streaming) {
        *rows = stream_rows;
        return sizeof stream_rows / sizeof *stream_rows;
    }
    *rows = plain_rows;
    return sizeof plain_rows / sizeof *plain_rows;
}

size_t gp_export_system_rows(const struct gp_export_ctx *ctx, enum gp_metric out[4])
{
    size_t n = 0;
    if (!requests_only(ctx))
        out[n++] = GP_M_OUTPUT_TOKEN_THROUGHPUT;
    out[n++] = GP_M_REQUEST_THROUGHPUT;
    if (ctx->goodput)
        out[n++] = GP_M_REQUEST_GOODPUT;
    out[n++] = GP_M_REQUEST_COUNT;
    return n;
}

int gp_export_write_buf(const char *path, struct gp_buf *b, int rc, struct gp_error *err)
{
    if (rc) {
        gp_buf_free(b);
        return gp_err(err, GP_ENOMEM, "out of memory building '%s'", path);
    }
    rc = gp_write_file_atomic(path, b->data ? b->data : "", b->len, err);
    gp_buf_free(b);
    return rc;
}

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
