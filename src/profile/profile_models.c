/* profile/profile_models.c — several -m (a model and its LoRA adapters, or
 * several models behind one router): --model-weights, and the per-model
 * breakdown of <stem>_genperf.json ("models") and its lines on stderr. The
 * aggregate artifacts stay GenAI-Perf's; this only splits the measured
 * requests by the model their dataset entry named (gp_dataset_entry.model). */
#include "profile/profile_dist.h"

#include "client/record.h"
#include "core/error.h"
#include "dataset/dataset.h"
#include "metrics/metrics.h"
#include "profile/profile_config.h"
#include "profile/profile_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* --model-weights a:0.7,b:0.3: one weight per -m, in -m order. The name is
 * what precedes the last ':' (a model id may hold ':' itself, e.g. a tag). */
int gp_profile_copy_model_weights(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    double *w = calloc(cfg->n_models ? cfg->n_models : 1, sizeof *w);
    char *copy = strdup(rv->s);
    if (!w || !copy) {
        free(w);
        free(copy);
        return gp_profile_config_err(cfg, err, GP_ENOMEM, "out of memory");
    }
    int rc = 0;
    /* Split by hand: strtok_r skips empty items, so "a:1," passed and the
     * stray comma went unseen (issue 40 item 4). */
    for (char *item = copy, *next; item && !rc; item = next) {
        char *comma = strchr(item, ',');
        next = comma ? comma + 1 : NULL;
        if (comma)
            *comma = '\0';
        char *colon = strrchr(item, ':');
        char *end = NULL;
        double v = 0;
        if (colon) {
            *colon = '\0';
            errno = 0;
            v = strtod(colon + 1, &end);
        }
        size_t k = 0;
        while (colon && k < cfg->n_models && strcmp(cfg->models[k], item))
            k++;
        /* decimal only: strtod also takes 0x1, inf and nan */
        if (colon && colon[1] && strspn(colon + 1, "0123456789.eE+-") != strlen(colon + 1))
            rc = gp_profile_config_err(cfg, err, GP_EINVAL,
                                       "--model-weights '%s': the weight of '%s' must be a decimal number (e.g. 0.7)",
                                       rv->s, item);
        else if (!colon || !*item || errno || end == colon + 1 || *end)
            rc = gp_profile_config_err(cfg, err, GP_EINVAL,
                                       "--model-weights '%s': each item must be NAME:WEIGHT (e.g. a:0.7,b:0.3)", rv->s);
        else if (k == cfg->n_models)
            rc = gp_profile_config_err(cfg, err, GP_EINVAL,
                                       "--model-weights '%s': '%s' is not one of the -m models; weigh only models "
                                       "given with -m", rv->s, item);
        else if (!(v > 0) || v > 1e300)
            rc = gp_profile_config_err(cfg, err, GP_EINVAL,
                                       "--model-weights '%s': the weight of '%s' must be a number > 0", rv->s, item);
        else if (w[k] > 0)
            rc = gp_profile_config_err(cfg, err, GP_EINVAL, "--model-weights '%s': '%s' is weighed twice", rv->s,
                                       item);
        else
            w[k] = v;
    }
    for (size_t k = 0; !rc && k < cfg->n_models; k++)
        if (!(w[k] > 0))
            rc = gp_profile_config_err(cfg, err, GP_EINVAL,
                                       "--model-weights '%s': -m %s has no weight; give every -m model one", rv->s,
                                       cfg->models[k]);
    free(copy);
    if (rc) {
        free(w);
        return rc;
    }
    free(cfg->model_weights);
    cfg->model_weights = w;
    return 0;
}

/* The -m index of measured request i, or n_models when its entry named
 * another model (a payload row's own). */
static size_t model_of(const struct gp_record_store *st, const struct gp_metrics_result *mr,
                       const struct gp_dataset *ds, size_t i, size_t n_models)
{
    uint32_t e = st->recs[mr->reqs[i].rec].entry;
    uint32_t m = ds && e < ds->n ? ds->entries[e].model : GP_DS_MODEL_OTHER;
    return m < n_models ? m : n_models;
}

json_t *gp_profile_models_json(const struct gp_record_store *st, const struct gp_metrics_result *mr,
                               const struct gp_dataset *ds, const char *const *models, size_t n_models,
                               const double *weights)
{
    size_t n = mr->n_reqs ? mr->n_reqs : 1;
    double *ttft = malloc(n * sizeof *ttft), *itl = malloc(n * sizeof *itl), *lat = malloc(n * sizeof *lat);
    json_t *arr = json_array();
    if (!ttft || !itl || !lat || !arr) {
        free(ttft);
        free(itl);
        free(lat);
        json_decref(arr);
        return NULL;
    }
    double wsum = 0;
    for (size_t k = 0; weights && k < n_models; k++)
        wsum += weights[k];
    double secs = mr->duration_s > 0 ? mr->duration_s : 0;
    for (size_t m = 0; m < n_models; m++) {
        size_t count = 0, failed = 0, nt = 0, ni = 0, nl = 0;
        double tokens = 0;
        for (size_t i = 0; i < mr->n_reqs; i++) {
            const struct gp_req_metrics *q = &mr->reqs[i];
            if (model_of(st, mr, ds, i, n_models) != m)
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
            if (q->latency_ns >= 0)
                lat[nl++] = (double)q->latency_ns;
        }
        json_t *o = json_object();
        json_object_set_new(o, "model", json_string(models[m]));
        json_object_set_new(o, "weight", wsum > 0 ? json_real(weights[m] / wsum) : json_null());
        json_object_set_new(o, "requests", json_integer((json_int_t)count));
        json_object_set_new(o, "failed", json_integer((json_int_t)failed));
        json_object_set_new(o, "share", json_real(mr->n_reqs ? (double)count / (double)mr->n_reqs : 0));
        /* over the benchmark's window, like GenAI-Perf's aggregate throughput */
        json_object_set_new(o, "request_throughput", json_real(secs > 0 ? (double)(count - failed) / secs : 0));
        json_object_set_new(o, "output_token_throughput", json_real(secs > 0 ? tokens / secs : 0));
        json_object_set_new(o, "time_to_first_token_ms", gp_profile_p50_p99(ttft, nt));
        json_object_set_new(o, "inter_token_latency_ms", gp_profile_p50_p99(itl, ni));
        json_object_set_new(o, "request_latency_ms", gp_profile_p50_p99(lat, nl));
        json_array_append_new(arr, o);
    }
    free(ttft);
    free(itl);
    free(lat);
    return arr;
}

void gp_profile_models_print(FILE *fp, const struct gp_record_store *st, const struct gp_metrics_result *mr,
                             const struct gp_dataset *ds, const char *const *models, size_t n_models)
{
    if (n_models < 2)
        return;
    fprintf(fp, "genperf: %zu models (-m); measured requests per model:\n", n_models);
    for (size_t m = 0; m <= n_models; m++) {
        size_t count = 0, failed = 0;
        for (size_t i = 0; i < mr->n_reqs; i++)
            if (model_of(st, mr, ds, i, n_models) == m) {
                count++;
                failed += mr->reqs[i].fail != GP_FAIL_NONE;
            }
        if (m == n_models && !count) /* no payload row named a model of its own */
            break;
        fprintf(fp, "genperf:   %s: %zu requests (%.1f%%), %zu failed\n",
                m < n_models ? models[m] : "(a model not among -m)", count,
                mr->n_reqs ? 100.0 * (double)count / (double)mr->n_reqs : 0.0, failed);
    }
}
