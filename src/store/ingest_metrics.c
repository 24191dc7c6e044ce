/* store/ingest_metrics.c — the metric vocabulary of the ingest, and the job
 * record's small helpers.
 *
 * Owns: the table of metric codes GenAI-Perf writes and their units (the same
 * codes and units the metric_templates migration seeds). Codes outside it
 * are accepted and remembered so the write step can add a template row.
 */
#include "store/ingest_internal.h"

#include "core/error.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ig_check_stop(const struct ig_job *j, struct gp_error *err)
{
    if (!j->stop || !*j->stop)
        return 0;
    return gp_err(err, GP_EINTR, "interrupted while ingesting %s; nothing of this job was written", j->main_path);
}

void ig_job_free(struct ig_job *j)
{
    free(j->model), free(j->framework), free(j->engine_args), free(j->hardware), free(j->endpoint);
    free(j->endpoint_type), free(j->tool_version), free(j->producer_version), free(j->label), free(j->host);
    free(j->server_url), free(j->input_config), free(j->goodput), free(j->genperf_summary), free(j->trace_file);
    free(j->mv), free(j->ts), free(j->new_metrics), free(j->group_key), free(j->group_label);
    for (size_t i = 0; i < j->neps; i++)
        free(j->eps[i].url);
    free(j->eps);
    free(j->slices);
    for (size_t i = 0; i < j->nmods; i++)
        free(j->mods[i].model);
    free(j->mods);
    if (j->export_json)
        json_decref(j->export_json);
    memset(j, 0, sizeof *j);
}

void ig_set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = s ? strdup(s) : NULL;
}

void ig_iso_from_ns(long long ns, char out[40])
{
    time_t s = (time_t)(ns / 1000000000LL);
    int ms = (int)((ns % 1000000000LL) / 1000000LL);
    struct tm tm;
    gmtime_r(&s, &tm);
    char b[32];
    strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, 40, "%s.%03dZ", b, ms);
}
static const struct ig_known_metric known[] = {
    {"request_throughput", "requests/sec"},
    {"request_latency", "ms"},
    {"request_goodput", "requests/sec"},
    {"request_count", "count"},
    {"time_to_first_token", "ms"},
    {"time_to_second_token", "ms"},
    {"inter_token_latency", "ms"},
    {"output_token_throughput", "tokens/sec"},
    {"output_token_throughput_per_user", "tokens/sec/user"},
    {"output_sequence_length", "tokens"},
    {"input_sequence_length", "tokens"},
    {"failed_request_count", "count"},
    {"inter_chunk_latency", "ms"},
    {"client_busy_fraction", "fraction"},
};

const struct ig_known_metric *ig_find_known(const char *code)
{
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(known[i].code, code))
            return &known[i];
    return NULL;
}

int ig_valid_stat(const char *s)
{
    if (!strcmp(s, "avg") || !strcmp(s, "min") || !strcmp(s, "max") || !strcmp(s, "std"))
        return 1;
    if (s[0] != 'p' || !isdigit((unsigned char)s[1]))
        return 0;
    for (const char *p = s + 1; *p; p++)
        if (!isdigit((unsigned char)*p) && *p != '.')
            return 0;
    return strlen(s) < 16;
}

int ig_valid_code(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= 96)
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return 0;
    return 1;
}

int ig_add_mval(struct ig_job *j, const char *metric, const char *stat, int isnull, double v)
{
    if (j->nmv == j->capmv) {
        size_t nc = j->capmv ? j->capmv * 2 : 64;
        struct ig_mval *n = realloc(j->mv, nc * sizeof *n);
        if (!n)
            return -GP_ENOMEM;
        j->mv = n;
        j->capmv = nc;
    }
    struct ig_mval *m = &j->mv[j->nmv++];
    snprintf(m->metric, sizeof m->metric, "%s", metric);
    snprintf(m->stat, sizeof m->stat, "%s", stat);
    m->isnull = isnull;
    m->v = v;
    return 0;
}

int ig_has_mval(const struct ig_job *j, const char *metric, const char *stat)
{
    for (size_t i = 0; i < j->nmv; i++)
        if (!strcmp(j->mv[i].metric, metric) && !strcmp(j->mv[i].stat, stat))
            return 1;
    return 0;
}

int ig_has_tstat(const struct ig_job *j, const char *device, const char *metric, const char *stat)
{
    char dev[sizeof j->ts[0].device];
    int digits = *device != '\0';
    for (const char *p = device; *p; p++)
        if (!isdigit((unsigned char)*p))
            digits = 0;
    snprintf(dev, sizeof dev, "%s%s", digits ? "gpu" : "", device);
    for (size_t i = 0; i < j->nts; i++)
        if (!strcmp(j->ts[i].device, dev) && !strcmp(j->ts[i].metric, metric) && !strcmp(j->ts[i].stat, stat))
            return 1;
    return 0;
}

int ig_add_tstat(struct ig_job *j, const char *device, const char *metric, const char *unit, const char *stat,
                     int isnull, double v)
{
    if (j->nts == j->capts) {
        size_t nc = j->capts ? j->capts * 2 : 64;
        struct ig_tstat *n = realloc(j->ts, nc * sizeof *n);
        if (!n)
            return -GP_ENOMEM;
        j->ts = n;
        j->capts = nc;
    }
    struct ig_tstat *t = &j->ts[j->nts++];
    /* DCGM labels GPUs "0", "1": store them as our device names gpu0, gpu1 */
    int digits = *device != '\0';
    for (const char *p = device; *p; p++)
        if (!isdigit((unsigned char)*p))
            digits = 0;
    snprintf(t->device, sizeof t->device, "%s%s", digits ? "gpu" : "", device);
    snprintf(t->metric, sizeof t->metric, "%s", metric);
    snprintf(t->unit, sizeof t->unit, "%s", unit ? unit : "");
    snprintf(t->stat, sizeof t->stat, "%s", stat);
    t->isnull = isnull;
    t->v = v;
    return 0;
}

/* Time metrics in an older or foreign unit are converted to the template's ms. */
int ig_unit_factor(const char *unit, const char *tmpl_unit, double *f)
{
    *f = 1.0;
    if (!strcmp(unit, tmpl_unit))
        return 0;
    if (!strcmp(tmpl_unit, "ms")) {
        if (!strcmp(unit, "ns"))
            return *f = 1e-6, 0;
        if (!strcmp(unit, "us"))
            return *f = 1e-3, 0;
        if (!strcmp(unit, "s"))
            return *f = 1e3, 0;
    }
    /* CSV labels use "per sec" for request rates */
    if (!strcmp(tmpl_unit, "requests/sec") && !strcmp(unit, "per sec"))
        return 0;
    return -1;
}

int ig_note_metric(struct ig_job *j, const char *code)
{
    if (ig_find_known(code))
        return 0;
    for (size_t i = 0; i < j->nnew; i++)
        if (!strcmp(j->new_metrics[i], code))
            return 0;
    char(*n)[96] = realloc(j->new_metrics, (j->nnew + 1) * sizeof *n);
    if (!n)
        return -GP_ENOMEM;
    j->new_metrics = n;
    snprintf(j->new_metrics[j->nnew++], 96, "%s", code);
    return 0;
}
