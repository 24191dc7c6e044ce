/* profile/profile_runs.c — `genperf profile --num-runs N` (issue 30 item 1):
 * the same benchmark N times and an aggregate of the runs.
 *
 * Each run is this executable run again as a child, `profile <same args>
 * --num-runs 1 --artifact-dir RUN_DIR/run_K`, so a run is exactly a one-run
 * profile (its own process, tokenizer, dataset and GenAI-Perf artifact set
 * under RUN_DIR/run_K/<run name>/) and a run that fails or is interrupted
 * cannot take the others' results with it. That is the layout `genperf
 * compare` reads as repeats (compare_load.c: runs to depth 3), so two
 * --num-runs directories compare on run-level evidence.
 *
 * After the runs, <stem>_genperf_aggregate.json in RUN_DIR holds, per metric
 * and statistic of <stem>_genai_perf.json, the mean over the runs, their
 * sample stddev, the 95% Student-t interval of the mean and the coefficient
 * of variation (core/stats.h gp_repeat_stats). Its name does not end in
 * _genperf.json, which ingest would take for a run's orphaned extras.
 *
 * Only runs that measured the server are in the mean (issue 38 item 11): a
 * run whose server was gone completes no request, and its 0 req/s would
 * pull the mean down and widen the interval as if the server were slow; a
 * run cut by Ctrl-C measured part of the benchmark. Such runs are left out
 * and named in "failed_runs" with why (gp_profile_run_counts), beside
 * "runs_asked" (--num-runs) and "runs_made" (started); "runs" is the number
 * in the mean.
 *
 * Ctrl-C: cmd_profile blocks SIGINT/SIGTERM into its signalfd before this
 * runs, and the child inherits the block (it reads its own signalfd). A
 * terminal's Ctrl-C reaches both: the child writes what it measured and
 * exits 130, then no further run starts; a signal to this process alone lets
 * the current run finish. Either way the runs made are aggregated and the
 * exit status is 130.
 *
 * Owns the child argv and the parsed run files; frees them before returning.
 */
#include "profile/profile_runs.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/pytext.h"
#include "core/stats.h"
#include "export/export.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* Set in each child: a child that still saw --num-runs > 1 would start its
 * own runs, so it refuses instead (the appended --num-runs 1 must win). */
#define GP_ENV_RUNS_CHILD "GENPERF_NUM_RUNS_CHILD"

int gp_profile_copy_cv_warn(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    if (!(rv->f > 0))
        return gp_err(err, GP_EINVAL, "--cv-warn %s: must be a positive coefficient of variation (e.g. 0.1 warns "
                      "when a key metric's stddev over the runs passes 10%% of its mean)", rv->s);
    cfg->cv_warn = rv->f;
    return 0;
}

/* The statistics printed after the runs and checked against --cv-warn. */
static const struct {
    const char *metric, *stat;
} key_stats[] = {
    {"time_to_first_token", "avg"}, {"time_to_first_token", "p99"}, {"inter_token_latency", "avg"},
    {"inter_token_latency", "p99"}, {"request_latency", "avg"},     {"request_latency", "p99"},
    {"output_token_throughput", "avg"}, {"request_throughput", "avg"},
};

static int is_key(const char *metric, const char *stat)
{
    for (size_t i = 0; i < sizeof key_stats / sizeof key_stats[0]; i++)
        if (!strcmp(key_stats[i].metric, metric) && !strcmp(key_stats[i].stat, stat))
            return 1;
    return 0;
}

static json_t *num_or_null(int has, double v) { return has ? json_real(v) : json_null(); }

/* One statistic over the runs: NULL when no run has it. */
static json_t *stat_json(json_t *const *runs, size_t n, const char *metric, const char *stat, double *vals)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get(json_object_get(runs[i], metric), stat);
        if (json_is_number(v))
            vals[k++] = json_number_value(v);
    }
    if (!k)
        return NULL;
    struct gp_repeat_stats rs;
    gp_repeat_stats(vals, k, &rs);
    json_t *o = json_object(), *values = json_array();
    for (size_t i = 0; i < k; i++)
        json_array_append_new(values, json_real(vals[i]));
    json_object_set_new(o, "n", json_integer((json_int_t)k));
    json_object_set_new(o, "mean", json_real(rs.mean));
    json_object_set_new(o, "stddev", json_real(rs.stddev));
    json_object_set_new(o, "ci95_low", num_or_null(rs.has_ci, rs.ci_lo));
    json_object_set_new(o, "ci95_high", num_or_null(rs.has_ci, rs.ci_hi));
    json_object_set_new(o, "cv", num_or_null(rs.has_cv, rs.cv));
    json_object_set_new(o, "values", values);
    return o;
}

json_t *gp_profile_aggregate(json_t *const *runs, size_t n, double cv_warn)
{
    double *vals = calloc(n ? n : 1, sizeof *vals);
    json_t *root = json_object(), *metrics = json_object(), *warnings = json_array();
    if (!vals || !root || !metrics || !warnings) {
        free(vals);
        json_decref(root);
        json_decref(metrics);
        json_decref(warnings);
        return NULL;
    }
    json_object_set_new(root, "runs", json_integer((json_int_t)n));
    json_object_set_new(root, "confidence_level", json_real(0.95));
    json_object_set_new(root, "cv_warn", json_real(cv_warn));
    /* every metric of the first run that has a unit, in its order: the
     * metrics are the same in every run of one command line */
    const char *name;
    json_t *m;
    json_object_foreach(n ? runs[0] : NULL, name, m) {
        if (!json_is_object(m) || !json_is_string(json_object_get(m, "unit")))
            continue;
        json_t *out = json_pack("{s:O}", "unit", json_object_get(m, "unit"));
        const char *stat;
        json_t *v;
        json_object_foreach(m, stat, v) {
            json_t *s = json_is_number(v) ? stat_json(runs, n, name, stat, vals) : NULL;
            if (!s)
                continue;
            json_t *cv = json_object_get(s, "cv");
            if (json_is_number(cv) && json_number_value(cv) > cv_warn && is_key(name, stat)) {
                char w[512];
                snprintf(w, sizeof w, "%s %s: CV %.3f over %lld runs exceeds --cv-warn %g", name, stat,
                         json_number_value(cv), (long long)json_integer_value(json_object_get(s, "n")), cv_warn);
                json_array_append_new(warnings, json_string(w));
            }
            json_object_set_new(out, stat, s);
        }
        json_object_set_new(metrics, name, out);
    }
    free(vals);
    json_object_set_new(root, "metrics", metrics);
    json_object_set_new(root, "warnings", warnings);
    return root;
}

/* A count from a run's <stem>_genperf.json "requests" block; -1 when absent. */
static long long requests_count(const json_t *genperf, const char *key)
{
    json_t *v = json_object_get(json_object_get(genperf, "requests"), key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

int gp_profile_run_counts(const struct gp_profile_run_outcome *o, char *why, size_t whysz)
{
    char exited[48] = "";
    if (o->rc != 0 && o->rc != 3)
        snprintf(exited, sizeof exited, "; it exited %d", o->rc);
    /* a child stopped by Ctrl-C wrote what it measured and exited 130: part
     * of a run, whose rates and counts are not the benchmark's */
    if (o->rc == 130 || json_is_true(json_object_get(o->genperf, "interrupted"))) {
        snprintf(why, whysz, "interrupted: the run stopped before its measurement was done%s", exited);
        return 0;
    }
    if (o->rc > 128) {
        snprintf(why, whysz, "killed by signal %d", o->rc - 128);
        return 0;
    }
    if (o->rc < 0) {
        snprintf(why, whysz, "could not start the run");
        return 0;
    }
    if (!o->genai) {
        snprintf(why, whysz, "left no *_genai_perf.json%s", exited);
        return 0;
    }
    json_t *rc = json_object_get(json_object_get(o->genai, "request_count"), "avg");
    if (!json_is_number(rc) || !(json_number_value(rc) > 0)) {
        long long measured = requests_count(o->genperf, "measured"), failed = requests_count(o->genperf, "failed");
        if (measured >= 0 && failed >= 0)
            snprintf(why, whysz, "no request completed (%lld of %lld measured failed)%s", failed, measured, exited);
        else
            snprintf(why, whysz, "no request completed%s", exited);
        return 0;
    }
    if (json_is_true(json_object_get(o->genperf, "incomplete"))) {
        json_t *r = json_object_get(o->genperf, "incomplete_reason");
        snprintf(why, whysz, "stopped early (%s)%s", json_is_string(r) ? json_string_value(r) : "incomplete", exited);
        return 0;
    }
    if (exited[0]) {
        snprintf(why, whysz, "%s", exited + 2);
        return 0;
    }
    return 1;
}

json_t *gp_profile_aggregate_runs(const struct gp_profile_run_outcome *o, size_t made, long asked, double cv_warn)
{
    json_t **good = calloc(made ? made : 1, sizeof *good);
    json_t *root = json_object(), *failed = json_array(), *dirs = json_array();
    json_t *agg = NULL;
    size_t n = 0;
    int bad = !good || !root || !failed || !dirs;
    for (size_t i = 0; !bad && i < made; i++) {
        char why[512];
        if (gp_profile_run_counts(&o[i], why, sizeof why)) {
            good[n++] = o[i].genai;
            bad |= json_array_append_new(dirs, json_string(o[i].dir ? o[i].dir : ""));
        } else {
            bad |= json_array_append_new(failed, json_pack("{s:I, s:s?, s:s}", "run", (json_int_t)(i + 1), "directory",
                                                           o[i].dir, "reason", why));
        }
    }
    if (!bad)
        agg = gp_profile_aggregate(good, n, cv_warn);
    free(good);
    if (!agg) {
        json_decref(root);
        json_decref(failed);
        json_decref(dirs);
        return NULL;
    }
    bad |= json_object_set_new(root, "runs_asked", json_integer((json_int_t)asked));
    bad |= json_object_set_new(root, "runs_made", json_integer((json_int_t)made));
    bad |= json_object_set_new(root, "runs", json_integer((json_int_t)n));
    bad |= json_object_set_new(root, "failed_runs", failed);
    bad |= json_object_update(root, agg); /* appends its keys after these, in its order */
    bad |= json_object_set_new(root, "run_directories", dirs);
    json_decref(agg);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

void gp_profile_aggregate_print(json_t *agg, FILE *out, FILE *warn)
{
    long long n = json_integer_value(json_object_get(agg, "runs"));
    json_t *made = json_object_get(agg, "runs_made"), *asked = json_object_get(agg, "runs_asked");
    size_t fi;
    json_t *w;
    json_array_foreach(json_object_get(agg, "failed_runs"), fi, w)
        fprintf(warn, "genperf: warning: run %lld left out of the aggregate: %s\n",
                (long long)json_integer_value(json_object_get(w, "run")),
                json_string_value(json_object_get(w, "reason")) ?: "failed");
    if (json_is_integer(made) && json_is_integer(asked) &&
        (json_integer_value(made) != n || json_integer_value(asked) != n))
        fprintf(warn, "genperf: warning: %lld of the %lld runs asked %s made; %lld %s in the aggregate\n",
                (long long)json_integer_value(made), (long long)json_integer_value(asked),
                json_integer_value(made) == 1 ? "was" : "were", n, n == 1 ? "run is" : "runs are");
    if (!n) {
        fprintf(out, "genperf: no run to aggregate: every run made was left out\n");
        return;
    }
    fprintf(out, "genperf: over %lld %s: mean, 95%% interval of the mean (Student t), coefficient of variation\n", n,
            n == 1 ? "run" : "runs");
    json_t *metrics = json_object_get(agg, "metrics");
    for (size_t i = 0; i < sizeof key_stats / sizeof key_stats[0]; i++) {
        json_t *m = json_object_get(metrics, key_stats[i].metric);
        json_t *s = json_object_get(m, key_stats[i].stat);
        if (!s)
            continue;
        char label[96], ci[64] = "[no interval: 1 run]", cv[32] = "-";
        snprintf(label, sizeof label, "%s %s (%s)", key_stats[i].metric, key_stats[i].stat,
                 json_string_value(json_object_get(m, "unit")) ?: "");
        json_t *lo = json_object_get(s, "ci95_low"), *hi = json_object_get(s, "ci95_high");
        if (json_is_number(lo) && json_is_number(hi))
            snprintf(ci, sizeof ci, "[%.2f, %.2f]", json_number_value(lo), json_number_value(hi));
        if (json_is_number(json_object_get(s, "cv")))
            snprintf(cv, sizeof cv, "%.3f", json_number_value(json_object_get(s, "cv")));
        fprintf(out, "  %-42s %12.2f  %-26s CV %s\n", label, json_number_value(json_object_get(s, "mean")), ci, cv);
    }
    json_array_foreach(json_object_get(agg, "warnings"), fi, w)
        fprintf(warn, "genperf: warning: %s: the runs disagree more than that; look for what changed between "
                      "them (other load on the host or server) or make each run longer\n", json_string_value(w));
}

/* Runs child argv; its exit status, 128 + signal, or -1 when it could not run. */
static int run_child(char *const *argv)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (setenv(GP_ENV_RUNS_CHILD, "1", 1) < 0)
            _exit(127);
        execv(argv[0], argv);
        fprintf(stderr, "genperf: cannot execute %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (pid < 0)
        return -1;
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    if (w != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int signalled(int sfd)
{
    struct signalfd_siginfo si;
    return sfd >= 0 && read(sfd, &si, sizeof si) == (ssize_t)sizeof si;
}

/* Reads run_1..run_made's artifacts, writes the aggregate (the runs that
 * count, and those left out named) and prints it. rcs[K-1]: run K's exit
 * status. Returns the number of runs in the mean, or -1 with err set. */
static int write_aggregate(const struct profile_config *cfg, const char *run_dir, const char *name, const int *rcs,
                           size_t made, struct gp_error *err)
{
    char stem[1024], path[8192];
    gp_export_stem(cfg->profile_export_file, stem, sizeof stem);
    struct gp_profile_run_outcome *o = calloc(made ? made : 1, sizeof *o);
    char **dirs = calloc(made ? made : 1, sizeof *dirs);
    int rc = !o || !dirs ? gp_err(err, GP_ENOMEM, "out of memory") : 0;
    for (size_t k = 1; !rc && k <= made; k++) {
        struct gp_profile_run_outcome *r = &o[k - 1];
        r->rc = rcs[k - 1];
        snprintf(path, sizeof path, "%s/run_%zu/%s/%s_genai_perf.json", run_dir, k, name, stem);
        r->genai = gp_is_file(path) ? json_load_file(path, 0, NULL) : NULL;
        snprintf(path, sizeof path, "%s/run_%zu/%s/%s_genperf.json", run_dir, k, name, stem);
        r->genperf = gp_is_file(path) ? json_load_file(path, 0, NULL) : NULL;
        snprintf(path, sizeof path, "run_%zu/%s", k, name);
        if (r->genai && !(dirs[k - 1] = strdup(path)))
            rc = gp_err(err, GP_ENOMEM, "out of memory");
        r->dir = dirs[k - 1];
    }
    json_t *agg = rc ? NULL : gp_profile_aggregate_runs(o, made, cfg->num_runs, cfg->cv_warn);
    for (size_t k = 0; o && dirs && k < made; k++) {
        json_decref(o[k].genai);
        json_decref(o[k].genperf);
        free(dirs[k]);
    }
    free(o);
    free(dirs);
    if (!agg)
        return rc ? rc : gp_err(err, GP_ENOMEM, "out of memory");
    long long n = json_integer_value(json_object_get(agg, "runs"));
    snprintf(path, sizeof path, "%s/%s_genperf_aggregate.json", run_dir, stem);
    /* Python's json.dumps(indent=4), as GenAI-Perf's own JSON is written */
    struct gp_buf b = {0};
    rc = gp_json_dump(&b, agg, 4, 0, GP_JSON_PYTHON) < 0 || gp_buf_putc(&b, '\n') < 0
             ? gp_err(err, GP_ENOMEM, "out of memory")
             : gp_write_file_atomic(path, b.data, b.len, err);
    gp_buf_free(&b);
    if (rc == 0) {
        gp_profile_aggregate_print(agg, stdout, stderr);
        if ((size_t)n == made)
            fprintf(stderr, "genperf: aggregate of %lld %s written to %s\n", n, n == 1 ? "run" : "runs", path);
        else
            fprintf(stderr, "genperf: aggregate of %lld of the %zu runs made (%zu left out) written to %s\n", n, made,
                    made - (size_t)n, path);
    }
    json_decref(agg);
    return rc < 0 ? -1 : (int)n;
}

int gp_profile_repeat(const struct profile_config *cfg, const char *prog, int sfd, int argc, char **argv,
                      struct gp_error *err)
{
    if (getenv(GP_ENV_RUNS_CHILD)) {
        gp_err(err, GP_EINVAL, "--num-runs %ld inside a --num-runs run (internal: the child's --num-runs 1 was "
               "not the last one given)", cfg->num_runs);
        return 1;
    }
    char self[4096], name[2048], run_dir[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        gp_err(err, GP_EIO, "cannot find my own executable (/proc/self/exe) to start the runs");
        return 1;
    }
    self[sl] = '\0';
    if (gp_profile_run_name(cfg, name, sizeof name) < 0 || gp_profile_run_dir(cfg, run_dir, sizeof run_dir) < 0 ||
        gp_mkdir_p(run_dir, err) < 0) {
        if (!err->code)
            gp_err(err, GP_EINVAL, "run directory name too long (--artifact-dir / -m)");
        return 1;
    }
    /* child argv: self, "profile", our arguments up to a "--" (perf_analyzer
     * passthrough), then --num-runs 1 --artifact-dir RUN_DIR/run_K (argparse:
     * the last value given wins), then the passthrough */
    char **cargv = calloc((size_t)argc + 6, sizeof *cargv), kdir[4200];
    if (!cargv) {
        gp_err(err, GP_ENOMEM, "out of memory");
        return 1;
    }
    int dd = 1;
    while (dd < argc && strcmp(argv[dd], "--"))
        dd++;
    int c = 0;
    cargv[c++] = self;
    cargv[c++] = "profile";
    for (int i = 1; i < dd; i++)
        cargv[c++] = argv[i];
    cargv[c++] = "--num-runs";
    cargv[c++] = "1";
    cargv[c++] = "--artifact-dir";
    cargv[c++] = kdir;
    for (int i = dd; i < argc; i++)
        cargv[c++] = argv[i];
    int status = 0, interrupted = 0, *rcs = NULL;
    size_t done = 0;
    for (long k = 1; k <= cfg->num_runs; k++) {
        snprintf(kdir, sizeof kdir, "%s/run_%ld", run_dir, k);
        fprintf(stderr, "genperf: run %ld of %ld: artifacts in %s/%s\n", k, cfg->num_runs, kdir, name);
        int rc = run_child(cargv);
        int *nr = realloc(rcs, (done + 1) * sizeof *rcs);
        if (!nr) {
            status = 1;
            gp_err(err, GP_ENOMEM, "out of memory");
            break;
        }
        rcs = nr;
        rcs[done++] = rc;
        if (rc == 130 || signalled(sfd)) {
            interrupted = 1;
            break;
        }
        if (rc == 3 && !status)
            status = 3; /* --max-failure-rate: the run's artifacts are complete; go on */
        else if (rc != 0 && rc != 3) {
            fprintf(stderr, "%s: error: run %ld of %ld exited %d; no further run started\n", prog, k, cfg->num_runs,
                    rc);
            status = rc < 0 ? 1 : rc;
            break;
        }
    }
    free(cargv);
    snprintf(kdir, sizeof kdir, "%s/run_%ld", run_dir, cfg->num_runs + 1);
    if (gp_is_dir(kdir))
        fprintf(stderr, "genperf: note: %s is left from an earlier --num-runs; it is not in this aggregate, but "
                        "'genperf compare' reads every run_K (remove it)\n", kdir);
    if (interrupted)
        fprintf(stderr, "%s: interrupted after run %zu of %ld: aggregating the runs made\n", prog, done,
                cfg->num_runs);
    int counted = done ? write_aggregate(cfg, run_dir, name, rcs, done, err) : 0;
    free(rcs);
    if (counted < 0)
        fprintf(stderr, "%s: error: %s\n", prog, err->msg);
    if (counted <= 0 && !status && !interrupted)
        status = 1; /* every run was left out: there is no measurement to stand on */
    return interrupted ? 130 : status;
}
