/* profile/profile_endpoints.c — several endpoints (--urls, replicas): the
 * per-endpoint breakdown of <stem>_genperf.json ("scale_out"."endpoints")
 * and its lines on stderr, and the note that a repeated --url kept only the
 * last. The aggregate artifacts stay GenAI-Perf's; this only splits the
 * measured requests by the endpoint that served them (gp_record.endpoint). */
#include "profile/profile_dist.h"

#include "client/record.h"
#include "core/redact.h"
#include "core/stats.h"
#include "metrics/metrics.h"
#include "profile/profile_config.h"

#include <stdio.h>
#include <stdlib.h>

json_t *gp_profile_p50_p99(double *v, size_t n)
{
    if (!n)
        return json_null();
    qsort(v, n, sizeof *v, gp_cmp_double);
    json_t *o = json_object();
    json_object_set_new(o, "p50", json_real(gp_percentile_sorted(v, n, 50) / 1e6));
    json_object_set_new(o, "p99", json_real(gp_percentile_sorted(v, n, 99) / 1e6));
    return o;
}

json_t *gp_profile_endpoints_json(const struct gp_record_store *st, const struct gp_metrics_result *mr,
                                  const char *const *urls, size_t n_urls)
{
    size_t n = mr->n_reqs ? mr->n_reqs : 1;
    double *ttft = malloc(n * sizeof *ttft), *itl = malloc(n * sizeof *itl);
    json_t *arr = json_array();
    if (!ttft || !itl || !arr) {
        free(ttft);
        free(itl);
        json_decref(arr);
        return NULL;
    }
    double secs = mr->duration_s > 0 ? mr->duration_s : 0;
    for (size_t e = 0; e < n_urls; e++) {
        size_t count = 0, failed = 0, nt = 0, ni = 0;
        double tokens = 0;
        for (size_t i = 0; i < mr->n_reqs; i++) {
            const struct gp_req_metrics *q = &mr->reqs[i];
            if (st->recs[q->rec].endpoint != e)
                continue;
            count++;
            if (q->fail != GP_FAIL_NONE) {
                failed++;
                continue;
            }
            if (q->osl > 0)
                tokens += q->osl;
            if (q->ttft_ns >= 0)
                ttft[nt++] = (double)q->ttft_ns;
            if (q->itl_ns >= 0)
                itl[ni++] = (double)q->itl_ns;
        }
        json_t *o = json_object();
        json_object_set_new(o, "endpoint", json_integer((json_int_t)e));
        char shown[2048]; /* credentials in the userinfo never reach an artifact */
        gp_redact_url(urls[e], shown, sizeof shown);
        json_object_set_new(o, "url", json_string(shown));
        json_object_set_new(o, "requests", json_integer((json_int_t)count));
        json_object_set_new(o, "failed", json_integer((json_int_t)failed));
        /* over the benchmark's window, like GenAI-Perf's aggregate throughput */
        json_object_set_new(o, "request_throughput", json_real(secs > 0 ? (double)(count - failed) / secs : 0));
        json_object_set_new(o, "output_token_throughput", json_real(secs > 0 ? tokens / secs : 0));
        json_object_set_new(o, "time_to_first_token_ms", gp_profile_p50_p99(ttft, nt));
        json_object_set_new(o, "inter_token_latency_ms", gp_profile_p50_p99(itl, ni));
        json_array_append_new(arr, o);
    }
    free(ttft);
    free(itl);
    return arr;
}

void gp_profile_endpoints_print(FILE *fp, const struct gp_record_store *st, const struct gp_metrics_result *mr,
                                const char *const *urls, size_t n_urls, int least_inflight)
{
    if (n_urls < 2)
        return;
    fprintf(fp, "genperf: %zu endpoints (--urls, --url-strategy %s); measured requests per endpoint:\n", n_urls,
            least_inflight ? "least_in_flight" : "round_robin");
    for (size_t e = 0; e < n_urls; e++) {
        size_t count = 0, failed = 0;
        for (size_t i = 0; i < mr->n_reqs; i++)
            if (st->recs[mr->reqs[i].rec].endpoint == e) {
                count++;
                failed += mr->reqs[i].fail != GP_FAIL_NONE;
            }
        char shown[2048];
        gp_redact_url(urls[e], shown, sizeof shown);
        fprintf(fp, "genperf:   %s: %zu requests (%.1f%%), %zu failed\n", shown, count,
                mr->n_reqs ? 100.0 * (double)count / (double)mr->n_reqs : 0.0, failed);
    }
}

/* A wrapper that appends --url to override a default used to benchmark both
 * endpoints without a word; now the last wins, and this line says which. */
void gp_profile_url_note(FILE *fp, const struct profile_config *cfg)
{
    if (cfg->n_url_flags < 2 || !cfg->url_replaced)
        return;
    char was[2048], now[2048];
    gp_redact_url(cfg->url_replaced, was, sizeof was);
    gp_redact_url(cfg->n_urls ? cfg->urls[0] : cfg->url, now, sizeof now);
    const char *more = cfg->n_url_flags > 2 ? " nor the ones before it" : "";
    if (cfg->urls_listed)
        fprintf(fp, "genperf: note: -u/--url and --urls given %d times in all: the last wins; requests go to the %zu "
                    "URLs of the last --urls (%s is not used%s)\n", cfg->n_url_flags, cfg->n_urls, was, more);
    else
        fprintf(fp, "genperf: note: -u/--url given %d times: the last wins, as in GenAI-Perf; every request goes to "
                    "%s (%s is not used%s); for several endpoints write --urls URL URL ...\n", cfg->n_url_flags, now,
                was, more);
}
