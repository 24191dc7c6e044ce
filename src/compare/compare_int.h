/* compare/compare_int.h — private to compare/: what the two sources of a
 * side (artifact directories in compare_load.c, the results store in
 * compare_store.c) share, so a run is read the same way from either. */
#ifndef GP_COMPARE_COMPARE_INT_H
#define GP_COMPARE_COMPARE_INT_H

#include "compare/compare.h"

#include <jansson.h>

#define MAX_SLO 8

int gp_cmp_vec_push(struct gp_cmp_vec *v, double x);

/* A run's run-level values (genai: the *_genai_perf.json shape, metric ->
 * stat -> value, with input_config), its failure rate and fidelity (extras:
 * the <stem>_genperf.json shape, may be NULL); where names the run. Refuses a
 * stimulus other than *stimulus (set by the first run; the caller decrefs),
 * and a run unlike the side's first (report/run_ident.h), whose identity
 * becomes the side's. */
int gp_cmp_fill_run(struct gp_cmp_side *s, struct gp_cmp_run *run, const char *where, json_t *genai, json_t *extras,
                    json_t **stimulus, struct gp_error *err);

/* Per-request accumulation of one run: records are objects with the keys of
 * <stem>_records.jsonl (status, warmup, t_start_ns, t_end_ns, ttft_ns,
 * itl_ns, request_latency_ns, osl). The window comes from extras' "window";
 * without one, call gp_cmp_acc_window on every record first. */
struct gp_cmp_acc {
    struct gp_cmp_side *s;
    const char *slo_name[MAX_SLO];
    double slo_val[MAX_SLO];
    int n_slo, widened, nomem;
    double w0, w1;
    double out[GP_CMP_SLICES], req[GP_CMP_SLICES], good[GP_CMP_SLICES];
};
void gp_cmp_acc_init(struct gp_cmp_acc *a, struct gp_cmp_side *s, json_t *genai, json_t *extras);
int gp_cmp_acc_has_window(const struct gp_cmp_acc *a);
void gp_cmp_acc_window(struct gp_cmp_acc *a, json_t *r);
void gp_cmp_acc_add(struct gp_cmp_acc *a, json_t *r);
/* Adds the run's time slices to the side; -1 when out of memory. */
int gp_cmp_acc_finish(struct gp_cmp_acc *a);

#endif
