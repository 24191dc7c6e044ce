/* report/sweep.c — what the compare view needs to draw a sweep or a search
 * "at a glance": the SLOs the cells were judged by and, for a `genperf
 * search`, which cells met the goodput target and which value is the limit.
 *
 * Owns nothing past a call: the search summary comes from the
 * search_export_genperf.csv that `genperf search` writes next to its cell
 * directories (docs/search.md), found from the points' artifact_dir, so both
 * sources (the store and an artifact directory) decorate their answers the
 * same way. The store keeps the cells as one job group (label) but not the
 * search's verdict; the CSV is that verdict, so it is read, not recomputed.
 */
#include "report/report.h"

#include "core/fsutil.h"
#include "core/pytext.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *num_text(const char *s)
{
    char *end;
    double d = strtod(s, &end);
    return *s && *end == '\0' && isfinite(d) ? json_real(d) : json_null();
}

/* One data row: Cell, Search Type, Value, Meets Target, Good Share, ... Artifact Directory. */
static void cell_row(json_t *cells, char **f, int n)
{
    if (n < 6)
        return;
    json_t *c = json_pack("{s:o,s:s,s:o,s:b,s:o}", "cell", num_text(f[0]), "search_type", f[1], "value",
                          num_text(f[2]), "meets", !strcmp(f[3], "yes"), "good_share", num_text(f[4]));
    if (c)
        json_array_append_new(cells, c);
}

json_t *gp_search_csv_load(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    if (gp_read_file(path, &text, &len, NULL) < 0)
        return NULL;
    json_t *s = json_pack("{s:s,s:[]}", "file", path, "cells");
    json_t *cells = json_object_get(s, "cells");
    int lineno = 0, summary = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), lineno++) {
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[--n] = '\0';
        if (lineno == 0) {
            if (strncmp(line, "Cell,Search Type,Value,Meets Target", 35) != 0)
                break; /* not a search export */
            continue;
        }
        char *f[24];
        int nf = gp_csv_split(line, f, 24);
        if (nf < 2)
            continue;
        /* strtok_r skips the empty row between the cells and the summary;
         * a summary row has two fields and a name where a cell number goes. */
        summary |= nf == 2;
        if (!summary) {
            cell_row(cells, f, nf);
        } else if (!strcmp(f[0], "Limit")) {
            json_object_set_new(s, "limit", num_text(f[1]));
        } else if (!strcmp(f[0], "Goodput Target")) {
            json_object_set_new(s, "goodput_target", num_text(f[1]));
        } else {
            static const char *const keys[][2] = {{"Stopped", "stopped"}, {"Reason", "reason"}, {"SLOs", "slos"}};
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                if (!strcmp(f[0], keys[k][0]))
                    json_object_set_new(s, keys[k][1], json_string(f[1]));
        }
    }
    free(text);
    if (!json_array_size(cells)) {
        json_decref(s);
        return NULL;
    }
    json_object_set(s, "search_type", json_object_get(json_array_get(cells, 0), "search_type"));
    return s;
}

/* <parent of dir>/search_export_genperf.csv, parsed, or NULL. */
static json_t *search_near(const char *dir)
{
    char parent[4096], path[4200];
    if (!dir || snprintf(parent, sizeof parent, "%s", dir) >= (int)sizeof parent)
        return NULL;
    for (size_t n = strlen(parent); n > 1 && parent[n - 1] == '/'; n--)
        parent[n - 1] = '\0';
    char *slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(parent, sizeof parent, ".");
    if (gp_path_join(path, sizeof path, parent[0] ? parent : "/", "search_export_genperf.csv") < 0 ||
        !gp_is_file(path))
        return NULL;
    return gp_search_csv_load(path);
}

void gp_compare_decorate(json_t *answer)
{
    json_t *points = json_object_get(answer, "points");
    json_t *search = NULL, *slos = NULL;
    size_t i, k;
    json_t *pt, *c;
    json_array_foreach(points, i, pt) {
        json_t *s = json_object_get(pt, "slos");
        if (!slos && json_is_object(s) && json_object_size(s))
            slos = s;
        if (!search)
            search = search_near(json_string_value(json_object_get(pt, "artifact_dir")));
    }
    json_object_set(answer, "slos", slos ? slos : json_null());
    if (!search)
        return;
    /* The cells are matched by value: a search tries each value once. */
    const char *type = json_string_value(json_object_get(search, "search_type"));
    const char *xk = type && !strcmp(type, "request_rate") ? "request_rate" : "concurrency";
    json_t *limit = json_object_get(search, "limit");
    json_array_foreach(points, i, pt) {
        json_t *x = json_object_get(pt, xk);
        if (!json_is_number(x))
            continue;
        json_array_foreach(json_object_get(search, "cells"), k, c) {
            json_t *v = json_object_get(c, "value");
            if (!json_is_number(v) || fabs(json_number_value(v) - json_number_value(x)) > 1e-9)
                continue;
            json_object_set(pt, "meets", json_object_get(c, "meets"));
            json_object_set(pt, "good_share", json_object_get(c, "good_share"));
            json_object_set_new(pt, "limit", json_boolean(json_is_number(limit) &&
                                                          fabs(json_number_value(limit) - json_number_value(x)) < 1e-9));
        }
    }
    json_object_del(search, "file"); /* a path of the machine that served it: not for the page */
    json_object_set_new(answer, "search", search);
}
