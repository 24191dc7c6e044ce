/* profile/profile_endpoints.c — several endpoints (--urls, replicas): the
 * per-endpoint breakdown of <stem>_genperf.json ("scale_out"."endpoints")
 * and its lines on stderr, and the note saying where requests go when the
 * endpoints were given more than once (-u/--url, --urls) or a URL is listed
 * twice. The aggregate artifacts stay GenAI-Perf's; this only splits the
 * measured requests by the endpoint that served them (gp_record.endpoint). */
#include "profile/profile_dist.h"

#include "client/record.h"
#include "core/redact.h"
#include "core/stats.h"
#include "metrics/metrics.h"
#include "profile/profile_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static size_t count_in(const char *const *v, size_t n, const char *s)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += !strcmp(v[i], s);
    return k;
}

/* 1 when v[i] already appeared in v[0..i): each URL is named once. */
static int seen_before(const char *const *v, size_t i)
{
    return count_in(v, i, v[i]) > 0;
}

static void put_url(FILE *fp, const char *sep, const char *url)
{
    char shown[2048]; /* credentials in the userinfo never reach the console */
    gp_redact_url(url, shown, sizeof shown);
    fprintf(fp, "%s%s", sep, shown);
}

/* One note for every spelling of the endpoints, printed only when it has
 * something to say: several -u/--url/--urls (the last wins, as GenAI-Perf's
 * argparse store does; a wrapper appending --url to override a default must
 * not split the load) or a URL listed more than once in --urls. It names
 * where the requests go (each URL once, with how many of the endpoints it
 * is) and which URLs given are not used; a URL that is both replaced and in
 * the set in force is used, so it is never called unused. */
void gp_profile_url_note(FILE *fp, const struct profile_config *cfg)
{
    const char *const *fin = cfg->urls, *const *all = cfg->urls_given;
    size_t n = cfg->n_urls, n_unused = 0, n_distinct = 0;
    int dup = 0;
    for (size_t i = 0; i < n; i++) {
        n_distinct += !seen_before(fin, i);
        dup |= count_in(fin, n, fin[i]) > 1;
    }
    for (size_t i = 0; i < cfg->n_urls_given; i++)
        n_unused += !seen_before(all, i) && !count_in(fin, n, all[i]);
    if (!n || (cfg->n_url_flags < 2 && !dup))
        return;
    fputs("genperf: note: ", fp);
    if (cfg->n_url_flags >= 2)
        fprintf(fp, "%s given %d times%s: the last wins%s; ",
                !cfg->n_urls_flags ? "-u/--url" : cfg->n_urls_flags == cfg->n_url_flags ? "--urls" : "-u/--url and --urls",
                cfg->n_url_flags, cfg->n_urls_flags && cfg->n_urls_flags < cfg->n_url_flags ? " in all" : "",
                cfg->n_urls_flags ? "" : ", as in GenAI-Perf");
    if (n_distinct == 1) {
        put_url(fp, "every request goes to ", fin[0]);
        if (n > 1)
            fprintf(fp, ", listed %zu times by --urls, so one server is counted as %zu endpoints", n, n);
    } else {
        fprintf(fp, "requests go to the %zu URLs of the last --urls:", n);
        for (size_t i = 0, k = 0; i < n; i++) {
            if (seen_before(fin, i))
                continue;
            put_url(fp, k++ ? ", " : " ", fin[i]);
            size_t times = count_in(fin, n, fin[i]);
            if (times > 1)
                fprintf(fp, " (listed %zu times: %zu of the %zu endpoints)", times, times, n);
        }
    }
    if (n_unused) {
        fputs(" (", fp);
        for (size_t i = 0, k = 0; i < cfg->n_urls_given; i++)
            if (!seen_before(all, i) && !count_in(fin, n, all[i]))
                put_url(fp, k++ ? ", " : "", all[i]);
        fprintf(fp, " %s not used)", n_unused > 1 ? "are" : "is");
        if (!cfg->n_urls_flags) /* the old spelling of several endpoints */
            fputs("; for several endpoints write --urls URL URL ...", fp);
    } else if (cfg->n_url_flags >= 2) {
        fputs(" (every URL given is used)", fp);
    }
    fputc('\n', fp);
}
