/* runner/run_search.c — a scenario's search: block as `genperf search`
 * commands, one per (ISL, OSL) cell (docs/runner.md). Owns nothing: it
 * appends to the caller's argv. */
#include "runner/recipe.h"
#include "runner/runner.h"
#include "runner/scenario.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push_g(struct gp_argv *a, const char *flag, json_t *v)
{
    char b[64];
    if (!json_is_number(v))
        return;
    snprintf(b, sizeof b, "%.15g", json_number_value(v));
    gp_argv_push(a, flag);
    gp_argv_push(a, b);
}

int gp_runner_search_argv(const struct gp_scenario *sc, const struct gp_cell *c, const char *self_exe,
                          const char *url, const char *dir, const char *db_url, struct gp_argv *a)
{
    char cell_dir[4096];
    snprintf(cell_dir, sizeof cell_dir, "%s/search_isl%ld_osl%ld", dir, c->isl, c->osl);
    int rc = gp_runner_profile_argv(sc, c, self_exe, url, cell_dir, a);
    if (rc < 0 || a->n < 2)
        return rc;
    /* The same flags as a profile of the cell; search replaces --concurrency itself. */
    free(a->v[1]);
    a->v[1] = strdup("search");
    json_t *s = sc->search, *slo = json_object_get(s, "slo"), *t = json_object_get(s, "type");
    if (json_object_size(slo)) {
        gp_argv_push(a, "-g");
        const char *k;
        json_t *v;
        json_object_foreach(slo, k, v) {
            char b[256];
            snprintf(b, sizeof b, "%s:%.15g", k, json_number_value(v));
            gp_argv_push(a, b);
        }
    }
    push_g(a, "--goodput-target", json_object_get(s, "goodput_target"));
    if (json_is_string(t)) {
        gp_argv_push(a, "--search-type");
        gp_argv_push(a, json_string_value(t));
    }
    push_g(a, "--search-start", json_object_get(s, "start"));
    push_g(a, "--search-max", json_object_get(s, "max"));
    push_g(a, "--max-cells", json_object_get(s, "max_cells"));
    push_g(a, "--max-time", json_object_get(s, "max_time"));
    gp_argv_push(a, "--db");
    gp_argv_push(a, db_url);
    gp_argv_push(a, "--label");
    gp_argv_push(a, sc->name);
    return 0;
}
