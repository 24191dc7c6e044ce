/* report/run_ident.c — a run's identity (what it was asked to measure) and
 * the differences between two (see run_ident.h). */
#include "report/run_ident.h"

#include <stdio.h>
#include <string.h>

/* A JSON scalar as text: strings as they are, numbers by %g (4 and 4.0 are
 * the same load), "" for anything else. */
static void scalar_text(const json_t *v, char *out, size_t n)
{
    if (json_is_string(v))
        snprintf(out, n, "%s", json_string_value(v));
    else if (json_is_number(v))
        snprintf(out, n, "%g", json_number_value(v));
    else
        out[0] = '\0';
}

/* The arrival process as item 9 of issue 38 records it: <stem>_genperf.json's
 * "arrivals" {"process": "gamma", "burstiness": 0.5}, or input_config's
 * "genperf" extension {"request_rate_mode": "gamma", "burstiness": 0.5}.
 * proc_key names the process's key in the object given. */
static void arrival_text(const json_t *a, const char *proc_key, char *out, size_t n)
{
    out[0] = '\0';
    if (!json_is_object(a))
        return;
    char p[48], k[24];
    scalar_text(json_object_get(a, proc_key), p, sizeof p);
    scalar_text(json_object_get(a, "burstiness"), k, sizeof k);
    if (p[0])
        snprintf(out, n, "%s%s%s", p, k[0] ? " burstiness " : "", k);
}

void gp_run_ident_from_config(const json_t *ic, const json_t *extras, struct gp_run_ident *id)
{
    memset(id, 0, sizeof *id);
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(ic, "model_names"), i, v) {
        size_t used = strlen(id->model);
        snprintf(id->model + used, sizeof id->model - used, "%s%s", i ? "," : "", json_string_value(v) ?: "");
    }
    scalar_text(json_object_get(json_object_get(ic, "endpoint"), "type"), id->endpoint_type, sizeof id->endpoint_type);
    json_t *stream = json_object_get(json_object_get(ic, "endpoint"), "streaming");
    if (json_is_boolean(stream))
        snprintf(id->streaming, sizeof id->streaming, "%s", json_is_true(stream) ? "yes" : "no");
    json_t *in = json_object_get(ic, "input");
    if (in) {
        const char *file = json_string_value(json_object_get(in, "file"));
        const char *src = json_string_value(json_object_get(in, "prompt_source"));
        int from_file = (file && *file) || (src && !strcmp(src, "file"));
        if (from_file)
            snprintf(id->input, sizeof id->input, "file %s", file ? file : "");
        else
            snprintf(id->input, sizeof id->input, "synthetic");
        if (!from_file)
            scalar_text(json_object_get(json_object_get(in, "synthetic_tokens"), "mean"), id->isl, sizeof id->isl);
        json_t *ot = json_object_get(json_object_get(in, "output_tokens"), "mean");
        scalar_text(ot, id->osl, sizeof id->osl);
        if (ot && !id->osl[0])
            snprintf(id->osl, sizeof id->osl, "not set");   /* "" in GenAI-Perf's JSON: the server decides */
    }
    /* create_config.py's stimulus: one key */
    const char *k;
    json_object_foreach(json_object_get(json_object_get(ic, "perf_analyzer"), "stimulus"), k, v) {
        snprintf(id->load_kind, sizeof id->load_kind, "%s",
                 !strcmp(k, "request_rate")          ? "request rate"
                 : !strcmp(k, "session_concurrency") ? "session concurrency"
                 : !strcmp(k, "fixed_schedule")      ? "fixed schedule"
                                                     : k);
        scalar_text(v, id->load, sizeof id->load);
        break;
    }
    if (!strcmp(id->load_kind, "request rate")) {
        arrival_text(json_object_get(extras, "arrivals"), "process", id->arrival, sizeof id->arrival);
        if (!id->arrival[0])
            arrival_text(json_object_get(ic, "genperf"), "request_rate_mode", id->arrival, sizeof id->arrival);
        /* input_config carries the extension only where the process is not
         * GenAI-Perf's one (constant): a rate run without it is constant */
        if (!id->arrival[0])
            snprintf(id->arrival, sizeof id->arrival, "constant");
    }
}

/* Appends "name: a vs b" to buf when both are recorded and differ. */
static int differ(const char *name, const char *a, const char *b, char *buf, size_t n, int k)
{
    if (!*a || !*b || !strcmp(a, b))
        return k;
    size_t used = strlen(buf);
    if (used < n)
        snprintf(buf + used, n - used, "%s%s: %s vs %s", k ? "; " : "", name, a, b);
    return k + 1;
}

int gp_run_ident_diff(const struct gp_run_ident *a, const struct gp_run_ident *b, char *buf, size_t n)
{
    if (!n)
        return 0;
    buf[0] = '\0';
    int k = 0;
    k = differ("model", a->model, b->model, buf, n, k);
    k = differ("endpoint type", a->endpoint_type, b->endpoint_type, buf, n, k);
    k = differ("streaming", a->streaming, b->streaming, buf, n, k);
    k = differ("input", a->input, b->input, buf, n, k);
    k = differ("ISL", a->isl, b->isl, buf, n, k);
    k = differ("OSL", a->osl, b->osl, buf, n, k);
    if (strcmp(a->load_kind, b->load_kind) && *a->load_kind && *b->load_kind) {
        char la[80], lb[80];
        snprintf(la, sizeof la, "%s %s", a->load_kind, a->load);
        snprintf(lb, sizeof lb, "%s %s", b->load_kind, b->load);
        k = differ("load", la, lb, buf, n, k);
    } else {
        k = differ(a->load_kind, a->load, b->load, buf, n, k);
    }
    k = differ("arrival", a->arrival, b->arrival, buf, n, k);
    return k;
}
