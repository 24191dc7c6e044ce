/* compare/cmd_compare.c — `genperf compare BASE NEW [--fail-on SPEC]`.
 *
 * Exit status (docs/compare.md, beside profile's in docs/profile.md):
 *   0  compared; the gate passed, or there was no gate
 *   1  a gated metric regressed past its threshold and the evidence says it is real
 *   2  usage error (flags, a --fail-on term)
 *   3  an input could not be read (no such directory, no *_genai_perf.json,
 *      unparseable JSON, runs of different loads), lacks a gated metric, or
 *      BASE and NEW are unlike runs (model, endpoint type, ISL/OSL or input,
 *      load) without --allow-different
 *   4  no term failed, but one could not be judged (too few requests) and
 *      --allow-unjudged was not given
 */
#include "commands.h"
#include "compare/compare.h"
#include "compare/compare_out.h"

#include "core/argv.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "store/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_GATE 1
#define EXIT_INPUT 3
#define EXIT_UNJUDGED 4

/* A side: an artifact directory, else (with a store) a job id or label;
 * the store is opened read-only on first use. */
static int load_side(const char *spec, const char *db_flag, struct gp_db **db, struct gp_cmp_side **out,
                     struct gp_error *err)
{
    const char *url = gp_db_url(db_flag);
    if (gp_is_dir(spec) || !url || !*url)
        return gp_cmp_side_load(spec, out, err);
    if (!*db && gp_db_open_readonly(url, db, err))
        return -1;
    return gp_cmp_side_load_db(*db, spec, out, err);
}

int cmd_compare(int argc, char **argv)
{
    const char *fmt_s = "table", *fail_on = NULL, *db_flag = NULL;
    struct gp_cmp_opts o = {.iters = 2000, .seed = 0, .min_change = -1};
    double min_change_pct = -1;
    int allow_different = 0, allow_unjudged = 0;
    const struct gp_optdef defs[] = {
        GP_FLAG("--allow-different", NULL, &allow_different,
                "compare runs of a different model, endpoint type, ISL/OSL, input or load\n"
                "(refused with exit 3 otherwise); a warning line names the differences"),
        GP_FLAG("--allow-unjudged", NULL, &allow_unjudged,
                "exit 0 instead of 4 when no --fail-on term failed but one could not be\n"
                "judged (too few requests)"),
        GP_STR("--db", NULL, &db_flag, "URL",
               "results store (default: $GENPERF_DB): BASE and NEW that are not directories\n"
               "are job ids, or labels naming every job ingested under them (the repeats)"),
        GP_STR("--format", NULL, &fmt_s, "F", "table (default), md (a pull-request comment) or json"),
        GP_STR("--fail-on", NULL, &fail_on, "SPEC",
               "METRIC:+N%,METRIC:-N%,...: exit 1 when a metric moved at least that far\n"
               "in that direction and the change is real (e.g. ttft_p99:+5%,output_token_throughput:-3%)"),
        GP_NUM(GP_OPT_INT, "--iterations", NULL, &o.iters, "N", 100, 100000,
               "bootstrap resamples when a side has one run (2000)"),
        GP_NUM(GP_OPT_DOUBLE, "--min-change", NULL, &min_change_pct, "PCT", 0, 100,
               "relative changes under PCT % are not called real (1 with repeats, 5 with one\n"
               "run a side: a rerun of the same configuration differs by about that)"),
        GP_NUM(GP_OPT_U64, "--seed", NULL, &o.seed, "N", 0, 1.8e19, "bootstrap seed (0): same inputs, same output"),
    };
    const struct gp_optspec spec = {
        "compare",
        "usage: genperf compare BASE NEW [--db URL] [--format table|md|json] [--fail-on SPEC]\n"
        "Compares two benchmark results, each an artifact directory (one run, or a directory of\n"
        "repeated runs of one load) or, with --db, a store job id or label: per metric the change,\n"
        "its 95% interval and a verdict (better, worse, no detectable change).\n",
        "Metrics: ttft_avg ttft_p50 ttft_p99 itl_avg itl_p50 itl_p99 latency_avg latency_p50 latency_p99\n"
        "output_token_throughput request_throughput request_goodput failure_rate (points).\n"
        "Exit status: 0 passed or no gate, 1 a gated regression is real, 2 usage error,\n"
        "3 an input could not be read, lacks a gated metric, or the runs are unlike\n"
        "(without --allow-different), 4 a gate term could not be judged (too few requests).\n"
        "See docs/compare.md.\n",
        defs, GP_NDEFS(defs), 16, NULL};
    int npos = gp_argv_parse(&spec, argc, argv);
    if (npos < 0)
        return npos == GP_ARGV_HELP ? 0 : 2;
    if (npos != 2)
        return gp_argv_error(&spec, "give two results, BASE and NEW (artifact directories); got %d", npos);
    o.min_change = min_change_pct < 0 ? -1 : min_change_pct / 100;
    enum gp_cmp_format fmt;
    if (!strcmp(fmt_s, "table"))
        fmt = GP_CMP_FMT_TABLE;
    else if (!strcmp(fmt_s, "md"))
        fmt = GP_CMP_FMT_MD;
    else if (!strcmp(fmt_s, "json"))
        fmt = GP_CMP_FMT_JSON;
    else
        return gp_argv_error(&spec, "--format '%s' is not one of table, md, json", fmt_s);
    struct gp_error err = {0};
    struct gp_cmp_gate gates[GP_CMP_MAX_GATES];
    size_t ng = 0;
    char *gate_copy = NULL;
    if (fail_on) {
        if (!(gate_copy = strdup(fail_on))) {
            fprintf(stderr, "genperf compare: out of memory\n");
            return EXIT_INPUT;
        }
        if (gp_cmp_gate_parse(gate_copy, gates, &ng, &err)) {
            free(gate_copy);
            return gp_argv_error(&spec, "%s", err.msg);
        }
    }
    struct gp_cmp_side *base = NULL, *nw = NULL;
    struct gp_db *db = NULL;
    int rc = 0;
    if (load_side(argv[1], db_flag, &db, &base, &err) || load_side(argv[2], db_flag, &db, &nw, &err)) {
        fprintf(stderr, "genperf compare: %s\n", err.msg);
        rc = EXIT_INPUT;
        goto out;
    }
    char unlike[sizeof ((struct gp_cmp_result *)0)->unlike] = "";
    if (base->has_ident && nw->has_ident && gp_run_ident_diff(&base->ident, &nw->ident, unlike, sizeof unlike)) {
        if (!allow_different) {
            /* before any table: the numbers of unlike runs would read as a verdict on the server */
            fprintf(stderr, "genperf compare: BASE and NEW are unlike runs (%s); their changes would measure "
                    "the configuration, not the server. Profile both the same way, or pass --allow-different "
                    "to compare them anyway\n", unlike);
            rc = EXIT_INPUT;
            goto out;
        }
        fprintf(stderr, "genperf compare: warning: comparing unlike runs (--allow-different): %s\n", unlike);
    }
    struct gp_cmp_result res;
    if (gp_cmp_compute(base, nw, &o, &res, &err)) {
        fprintf(stderr, "genperf compare: %s\n", err.msg);
        rc = EXIT_INPUT;
        goto out;
    }
    snprintf(res.unlike, sizeof res.unlike, "%s", unlike);
    enum gp_cmp_gate_state st[GP_CMP_MAX_GATES];
    int failed = 0, missing = 0, unjudged = 0;
    for (size_t i = 0; i < ng; i++) {
        st[i] = gp_cmp_gate_eval(&gates[i], &res);
        failed |= st[i] == GP_GATE_FAIL;
        missing |= st[i] == GP_GATE_MISSING;
        unjudged |= st[i] == GP_GATE_TOO_FEW;
    }
    gp_cmp_write(stdout, fmt, base, nw, &res, &o, gates, st, ng, failed);
    fflush(stdout);
    for (size_t i = 0; i < ng; i++)
        if (st[i] == GP_GATE_MISSING)
            fprintf(stderr, "genperf compare: --fail-on %s: %s is not in both results (BASE %s, NEW %s); "
                    "gate on a metric both runs report\n", gates[i].text, gp_cmp_metrics[gates[i].metric].key,
                    argv[1], argv[2]);
        else if (st[i] == GP_GATE_LIMITED)
            fprintf(stderr, "genperf compare: --fail-on %s: past the threshold, but a side was client-limited, "
                    "so the change is not called real and the gate does not fail on it\n", gates[i].text);
        else if (st[i] == GP_GATE_TOO_FEW)
            fprintf(stderr, "genperf compare: --fail-on %s: not judged: a side has fewer than %d requests to judge it by%s\n",
                    gates[i].text, GP_CMP_MIN_REQUESTS,
                    allow_unjudged ? " (--allow-unjudged: not an error)"
                                   : "; profile more requests, or pass --allow-unjudged to exit 0 on it");
    rc = failed ? EXIT_GATE : missing ? EXIT_INPUT : unjudged && !allow_unjudged ? EXIT_UNJUDGED : 0;
out:
    if (db)
        gp_db_close(db);
    gp_cmp_side_free(base);
    gp_cmp_side_free(nw);
    free(gate_copy);
    return rc;
}
