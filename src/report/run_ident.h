/* report/run_ident.h — what a benchmark run was asked to measure (the model,
 * the endpoint type and streaming, the input: synthetic ISL or an input file, the OSL, and
 * the load: concurrency, request rate or schedule and the arrival process),
 * and the differences between two runs. `genperf compare` refuses to compare
 * runs that differ in any of these (docs/compare.md): a -91% TTFT change
 * between ISL 512 at concurrency 16 and ISL 64 at concurrency 4 measures the
 * configuration, not the server. The Benchmarks page's compare view warns on
 * the same grounds (model, endpoint type).
 *
 * Owns nothing: a struct gp_run_ident is a plain value of fixed-size
 * strings, filled from caller-owned JSON. An empty string is "not recorded"
 * and is never a difference (a GenAI-Perf artifact records no arrival process).
 */
#ifndef GP_REPORT_RUN_IDENT_H
#define GP_REPORT_RUN_IDENT_H

#include <stddef.h>

#include <jansson.h>

struct gp_run_ident {
    char model[256];       /* input_config.model_names joined by "," */
    char endpoint_type[64];/* input_config.endpoint.type */
    char streaming[8];     /* endpoint.streaming: "yes" or "no" (TTFT means something else without it) */
    char input[600];       /* "synthetic" or "file PATH" */
    char isl[32];          /* the asked synthetic mean; "" for a file input */
    char osl[32];          /* input.output_tokens.mean, or "not set" */
    char load_kind[32];    /* "concurrency", "request rate", "session concurrency", "fixed schedule" */
    char load[32];         /* its value ("16", "2.5") */
    char arrival[64];      /* request-rate arrival process ("constant", "poisson", "gamma 2"), when recorded */
};

/* Fills id from a run's input_config (the *_genai_perf.json object) and its
 * <stem>_genperf.json (extras, may be NULL). Fields the JSON lacks stay "". */
void gp_run_ident_from_config(const json_t *input_config, const json_t *extras, struct gp_run_ident *id);

/* Writes the differences between a and b as "model: a vs b; concurrency: 16 vs 4"
 * into buf (size n, always terminated) and returns how many there are (0: alike). */
int gp_run_ident_diff(const struct gp_run_ident *a, const struct gp_run_ident *b, char *buf, size_t n);

#endif
