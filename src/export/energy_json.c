/* export/energy_json.c — the "energy" and "cost" blocks of
 * <stem>_genperf.json and their console lines (see export.h).
 *
 * Owns nothing beyond the JSON it returns. The joules come from the
 * telemetry (gp_telemetry_energy_json: NVML's energy counter over the
 * sampler's window, which spans the measurement); the tokens are every ok
 * request's client-counted ISL and OSL, the ones the throughput divides.
 */
#include "export/export.h"
#include "metrics/metrics.h"

#include <stdio.h>
#include <string.h>

/* Input and output tokens of the ok measured requests. */
static void token_totals(const struct gp_metrics_result *m, double *in, double *out)
{
    *in = *out = 0;
    for (size_t i = 0; m && i < m->n_reqs; i++) {
        const struct gp_req_metrics *r = &m->reqs[i];
        if (!(r->flags & GP_RQ_OK))
            continue;
        if (r->isl > 0)
            *in += r->isl;
        if (r->osl > 0)
            *out += r->osl;
    }
}

static json_t *per_or_null(double num, double den) { return den > 0 ? json_real(num / den) : json_null(); }

json_t *gp_export_energy_json(const struct gp_export_ctx *ctx)
{
    if (!ctx->energy)
        return NULL;
    json_t *o = json_deep_copy(ctx->energy);
    double in, out, j = json_number_value(json_object_get(ctx->energy, "joules"));
    token_totals(ctx->m, &in, &out);
    json_object_set_new(o, "output_tokens", json_real(out));
    json_object_set_new(o, "joules_per_output_token", per_or_null(j, out));
    json_object_set_new(o, "output_tokens_per_joule", per_or_null(out, j));
    return o;
}

/* GPUs the price is paid for: those telemetry saw, else one (said so). */
static int cost_gpus(const struct gp_export_ctx *ctx, int *assumed)
{
    *assumed = ctx->gpu_count <= 0;
    return *assumed ? 1 : ctx->gpu_count;
}

json_t *gp_export_cost_json(const struct gp_export_ctx *ctx)
{
    if (!(ctx->gpu_hour_cost > 0) || !ctx->m)
        return NULL;
    int assumed;
    int gpus = cost_gpus(ctx, &assumed);
    double in, out, secs = ctx->m->duration_s > 0 ? ctx->m->duration_s : 0;
    token_totals(ctx->m, &in, &out);
    double usd = secs / 3600.0 * ctx->gpu_hour_cost * gpus;
    json_t *o = json_object();
    json_object_set_new(o, "usd_per_gpu_hour", json_real(ctx->gpu_hour_cost));
    json_object_set_new(o, "gpu_count", json_integer(gpus));
    json_object_set_new(o, "gpu_count_assumed", json_boolean(assumed));
    json_object_set_new(o, "window_s", json_real(secs));
    json_object_set_new(o, "usd", json_real(usd));
    json_object_set_new(o, "input_tokens", json_real(in));
    json_object_set_new(o, "output_tokens", json_real(out));
    json_object_set_new(o, "usd_per_million_input_tokens", per_or_null(usd * 1e6, in));
    json_object_set_new(o, "usd_per_million_output_tokens", per_or_null(usd * 1e6, out));
    json_object_set_new(o, "formula", json_string("window_s / 3600 x usd_per_gpu_hour x gpu_count / tokens x 1e6"));
    return o;
}

void gp_export_energy_print(FILE *out, const struct gp_export_ctx *ctx)
{
    json_t *e = gp_export_energy_json(ctx), *c = gp_export_cost_json(ctx);
    if (e) {
        json_t *g;
        size_t i;
        double peak = 0;
        json_array_foreach(json_object_get(e, "gpus"), i, g) {
            double p = json_number_value(json_object_get(g, "peak_watts"));
            peak = p > peak ? p : peak;
        }
        json_t *jpt = json_object_get(e, "joules_per_output_token"), *tpj = json_object_get(e, "output_tokens_per_joule");
        fprintf(out, "genperf: energy: %.1f J on %lld GPU%s (%s), avg %.1f W, peak %.1f W per GPU; ",
                json_number_value(json_object_get(e, "joules")),
                (long long)json_integer_value(json_object_get(e, "gpu_count")),
                json_integer_value(json_object_get(e, "gpu_count")) == 1 ? "" : "s",
                json_string_value(json_object_get(e, "source")), json_number_value(json_object_get(e, "avg_watts")),
                peak);
        if (json_is_number(jpt))
            fprintf(out, "%.4g J per output token, %.4g output tokens per J\n", json_number_value(jpt),
                    json_number_value(tpj));
        else
            fprintf(out, "no output tokens\n");
    }
    if (c) {
        json_t *pi = json_object_get(c, "usd_per_million_input_tokens"),
               *po = json_object_get(c, "usd_per_million_output_tokens");
        fprintf(out, "genperf: cost: $%.4g per million output tokens, $%.4g per million input tokens "
                     "(%lld GPU%s%s at $%g per GPU-hour over %.2f s)\n",
                json_is_number(po) ? json_number_value(po) : 0.0, json_is_number(pi) ? json_number_value(pi) : 0.0,
                (long long)json_integer_value(json_object_get(c, "gpu_count")),
                json_integer_value(json_object_get(c, "gpu_count")) == 1 ? "" : "s",
                json_is_true(json_object_get(c, "gpu_count_assumed")) ? ", assumed: no GPU telemetry" : "",
                ctx->gpu_hour_cost, json_number_value(json_object_get(c, "window_s")));
    }
    json_decref(e);
    json_decref(c);
}
