#include "runner/runner.h"
#include "runner/launch.h"
#include "runner/recipe.h"
#include "runner/runner_engine.h"
#include "runner/scenario.h"
#include "runner/tool.h"
#include "telemetry/telemetry.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/redact.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int gp_raise_nofile(unsigned long want, struct gp_error *err)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return gp_err(err, GP_EIO, "getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= want)
        return 0;
    struct rlimit nl = rl;
    nl.rlim_cur = want;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
        nl.rlim_max = want;
    if (setrlimit(RLIMIT_NOFILE, &nl) != 0)
        return gp_err(err, GP_EIO,
                      "cannot raise the open-file limit to %lu (soft %llu, hard %llu): %s; run as root, or raise "
                      "it first with `ulimit -n %lu`",
                      want, (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max, strerror(errno),
                      want);
    return 0;
}

/* Finds the GenAI-Perf run directory (the one holding *_genai_perf.json) under dir. */
static int find_run_dir(const char *dir, char *out, size_t outsz)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    int found = -1;
    while (found && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (!gp_is_dir(sub))
            continue;
        DIR *sd = opendir(sub);
        struct dirent *f;
        while (sd && (f = readdir(sd))) {
            size_t n = strlen(f->d_name);
            if (n > 16 && !strcmp(f->d_name + n - 16, "_genai_perf.json")) {
                snprintf(out, outsz, "%s", sub);
                found = 0;
                break;
            }
        }
        if (sd)
            closedir(sd);
    }
    closedir(d);
    return found;
}

struct cell_summary {
    struct gp_cell c;
    int ran;
    double tput, req_tput, ttft50, ttft99, itl50, itl99;
    double osl_out;   /* measured output_sequence_length avg (the cell's OSL is what was asked) */
    long ok, failed;
};

static double stat_of(json_t *root, const char *metric, const char *stat)
{
    json_t *v = json_object_get(json_object_get(root, metric), stat);
    return json_is_number(v) ? json_number_value(v) : -1;
}

static void summarise(const char *run_dir, struct cell_summary *cs)
{
    char path[4096];
    DIR *d = opendir(run_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        snprintf(path, sizeof path, "%s/%s", run_dir, e->d_name);
        if (n > 16 && !strcmp(e->d_name + n - 16, "_genai_perf.json")) {
            json_t *j = json_load_file(path, 0, NULL);
            cs->tput = stat_of(j, "output_token_throughput", "avg");
            cs->req_tput = stat_of(j, "request_throughput", "avg");
            cs->ttft50 = stat_of(j, "time_to_first_token", "p50");
            cs->ttft99 = stat_of(j, "time_to_first_token", "p99");
            cs->itl50 = stat_of(j, "inter_token_latency", "p50");
            cs->itl99 = stat_of(j, "inter_token_latency", "p99");
            cs->osl_out = stat_of(j, "output_sequence_length", "avg");
            json_decref(j);
        } else if (n > 14 && !strcmp(e->d_name + n - 14, "_records.jsonl")) {
            FILE *fp = fopen(path, "r");
            char *line = NULL;
            size_t cap = 0;
            while (fp && getline(&line, &cap, fp) > 0) {
                json_t *r = json_loads(line, 0, NULL);
                const char *st = json_string_value(json_object_get(r, "status"));
                if (!json_is_true(json_object_get(r, "warmup")) && st) {
                    if (!strcmp(st, "ok"))
                        cs->ok++;
                    else
                        cs->failed++;
                }
                json_decref(r);
            }
            free(line);
            if (fp)
                fclose(fp);
        }
    }
    if (d)
        closedir(d);
}

static void print_num(FILE *out, double v, const char *fmt, int width)
{
    if (v < 0)
        fprintf(out, "%*s", width, "-");
    else
        fprintf(out, fmt, width, v);
}

static void print_summary(FILE *out, const struct cell_summary *cs, size_t n)
{
    fprintf(out, "\n%11s %6s %6s %8s %14s %10s %10s %10s %9s %9s %8s\n", "concurrency", "ISL", "OSL",
            "OSL out", "tokens/s", "req/s", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "failed");
    fprintf(out, "%11s %6s %6s %8s %14s %10s %10s %10s %9s %9s %8s\n", "", "", "", "(mean)", "", "", "(ms)",
            "(ms)", "(ms)", "(ms)", "");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%11ld %6ld %6ld ", cs[i].c.concurrency, cs[i].c.isl, cs[i].c.osl);
        if (!cs[i].ran) {
            fprintf(out, "%8s %14s\n", "-", "not run");
            continue;
        }
        print_num(out, cs[i].osl_out, "%*.1f", 8);
        fputc(' ', out);
        print_num(out, cs[i].tput, "%*.1f", 14);
        fputc(' ', out);
        print_num(out, cs[i].req_tput, "%*.2f", 10);
        fputc(' ', out);
        print_num(out, cs[i].ttft50, "%*.2f", 10);
        fputc(' ', out);
        print_num(out, cs[i].ttft99, "%*.2f", 10);
        fputc(' ', out);
        print_num(out, cs[i].itl50, "%*.2f", 9);
        fputc(' ', out);
        print_num(out, cs[i].itl99, "%*.2f", 9);
        fprintf(out, " %8ld\n", cs[i].failed);
    }
}

/* Runs argv as a child in our process group; forwards SIGINT when *stop is
 * set so the profile writes what it measured. Returns the exit status.
 * mpirun gets its own process group (and no terminal input, which it would
 * otherwise read from the background): Open MPI's mpirun takes a second
 * SIGINT as "kill everything now", so a terminal Ctrl-C must reach it once,
 * through us, not from the terminal and again from us.
 * usr1 (mpirun running genperf ranks): the first stop is sent as SIGUSR1,
 * which mpirun forwards to every rank at once and which the ranks take as
 * their Ctrl-C (cmd_profile.c); SIGINT would only reach them as mpirun's
 * SIGTERM odls_base_sigkill_timeout seconds later. A second Ctrl-C then
 * sends SIGINT: mpirun's own stop, for ranks that do not answer. */
static int run_child(const struct gp_argv *argv, volatile sig_atomic_t *stop, int usr1)
{
    int own_group = !strcmp(argv->v[0], "mpirun");
    usr1 = usr1 && own_group;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (own_group) {
            setpgid(0, 0);
            int fd = open("/dev/null", O_RDONLY);
            if (fd > 0) {
                dup2(fd, 0);
                close(fd);
            }
        }
        execvp(argv->v[0], argv->v); /* PATH only for "mpirun": the rest are paths */
        fprintf(stderr, "genperf run: cannot execute %s: %s\n", argv->v[0], strerror(errno));
        _exit(127);
    }
    int status = 0, forwarded = 0;
    for (;;) {
        /* also a stop that came before the wait (mpirun sees no other) */
        if (stop && *stop > forwarded && forwarded < 1 + usr1) {
            kill(pid, usr1 && !forwarded ? SIGUSR1 : SIGINT);
            forwarded++;
        }
        pid_t w = waitpid(pid, &status, 0);
        if (w == pid)
            break;
        if (w < 0 && errno == EINTR)
            continue;
        return -1;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* artifacts/<scenario>/c4_isl128_osl32, with "-<tool>" for a tool other
 * than genperf, so both tools' runs of one cell sit side by side. */
static void cell_dir_of(char *out, size_t n, const char *dir, const struct gp_scenario *sc, const struct gp_cell *c)
{
    const char *t = gp_tool_name(sc);
    int other = strcmp(t, "genperf") != 0;
    snprintf(out, n, "%s/c%ld_isl%ld_osl%ld%s%s", dir, c->concurrency, c->isl, c->osl, other ? "-" : "",
             other ? t : "");
}

/* What is printed of a cell's command: the API key a non-genperf tool gets
 * as a header is masked. */
static void cell_cmdline(const struct gp_scenario *sc, const struct gp_argv *pa, struct gp_buf *pl)
{
    gp_argv_to_shell(pa, pl);
    if (sc->api_key && pl->data) {
        gp_redact_mask(pl->data, sc->api_key);
        pl->len = strlen(pl->data);
    }
}

/* A scenario's search: block: `genperf search` per (ISL, OSL) cell in place
 * of the sweep (the search picks the loads; it ingests its own cells under
 * the scenario's name). The first n_isl x n_osl cells are those pairs. */
static int run_searches(const struct gp_scenario *sc, const struct gp_run_opts *o, const char *url, const char *dir,
                        const char *db_url, FILE *out, struct gp_error *err)
{
    size_t n = sc->n_isl * sc->n_osl;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct gp_cell c = gp_scenario_cell(sc, i);
        struct gp_argv pa = {0};
        struct gp_buf pl = {0};
        gp_runner_search_argv(sc, &c, o->self_exe, url, dir, db_url, &pa);
        cell_cmdline(sc, &pa, &pl);
        fprintf(out, "%ssearch %zu/%zu: ISL %ld, OSL %ld -> %s/search_isl%ld_osl%ld/search_export_genperf.csv\n%s%s%s",
                o->dry_run ? "# " : "genperf run: ", i + 1, n, c.isl, c.osl, dir, c.isl, c.osl,
                o->dry_run ? "" : "  ", pl.data, "\n");
        if (!o->dry_run) {
            int st = run_child(&pa, o->stop, 0);
            if (st == 130 || (o->stop && *o->stop))
                rc = gp_err(err, GP_EINTR, "interrupted during search %zu", i + 1);
            else if (st != 0)
                fprintf(stderr, "genperf run: search %zu exited with status %d (see its output above)\n", i + 1, st);
        }
        gp_argv_free(&pa);
        gp_buf_free(&pl);
    }
    return rc;
}

int gp_runner_ingest_cell(const char *db_url, const char *run_dir, const struct gp_scenario *sc,
                          const struct gp_cell *c, int tp, const char *self_exe, FILE *out,
                          struct gp_error *err);

static int write_run_meta(const char *cell_dir, const struct gp_scenario *sc, const struct gp_cell *c, int tp,
                          const char *url, const char *server_cmd, struct gp_error *err)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_t *m = json_pack("{s:s, s:s, s:s, s:s, s:O, s:i, s:i, s:s?, s:s, s:s?, s:{s:i, s:i, s:i, s:i}, s:b, s:i}",
                          "scenario", sc->name, "host", host, "model", sc->model, "framework", sc->framework, "engine_args",
                          sc->engine_args, "gpus", sc->gpus ? sc->gpus : tp, "tp", tp, "hardware",
                          sc->hardware_name, "url", url, "server_command", server_cmd, "cell", "concurrency",
                          (int)c->concurrency, "isl", (int)c->isl, "osl", (int)c->osl, "requests",
                          (int)c->requests, "streaming", sc->streaming, "replicas", 1);
    if (m)
        json_object_set_new(m, "tool", json_string(gp_tool_name(sc)));
    if (!m)
        return gp_err(err, GP_ENOMEM, "cannot build run metadata");
    char *text = json_dumps(m, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(m);
    char path[4096];
    snprintf(path, sizeof path, "%s/genperf_run.json", cell_dir);
    int r = gp_write_file_atomic(path, text, strlen(text), err);
    free(text);
    return r;
}

/* What the dry run prints and the cell loop runs from: the scenario and the
 * server, target and tool decided by gp_runner_run (borrowed). */
struct run_view {
    const struct gp_scenario *sc;
    const struct gp_run_opts *o;
    FILE *out;
    int attach;
    const char *url, *dir, *db_url;
    const struct gp_recipe *recipe;
    int tp;
    const char *cmdline;
    const char *llm_api;       /* the YAML (JSON) the server is given, or NULL */
    const char *llm_api_path;
    const struct gp_tool_plan *tplan;
    int no_mpirun;
    size_t ncells;
    const char *metrics_url;     /* the server's Prometheus URL (checked after the first cell) */
};

/* What `genperf run --dry-run` prints: the server command, each cell's
 * profile command exactly as a real run would execute it, and where the
 * results would go. */
static void print_dry_run(const struct run_view *d)
{
    const struct gp_scenario *sc = d->sc;
    const struct gp_run_opts *o = d->o;
    const struct gp_tool_plan *tplan = d->tplan;
    FILE *out = d->out;
    const char *url = d->url, *dir = d->dir, *db_url = d->db_url;
    size_t ncells = d->ncells;
    if (d->no_mpirun)
        fprintf(out, "# warning: mpirun is not on PATH; a real run needs Open MPI (apt-get install openmpi-bin)\n");
    if (tplan->how == GP_TOOL_HOST)
        fprintf(out, "# tool: genai-perf (%s)\n", tplan->path);
    else if (tplan->how == GP_TOOL_CONTAINER)
        fprintf(out, "# tool: genai-perf in the container %s (%s, host networking)\n", GP_GENAI_PERF_IMAGE,
                tplan->path);
    else if (tplan->how == GP_TOOL_COMMAND)
        fprintf(out, "# tool: the scenario's command (in place of `genperf profile`)\n");
    else if (tplan->how == GP_TOOL_MISSING)
        fprintf(out, "# %s; the commands it would run:\n", tplan->missing);
    if (d->attach)
        fprintf(out, "# attach: no server is started; target %s\n", url);
    else
        fprintf(out, "# server (%s, TP=%d, replicas=1, ready when GET %s%s answers 200)\n%s\n",
                d->recipe->framework, d->tp, url, d->recipe->readiness, d->cmdline);
    if (!d->attach && d->llm_api)
        fprintf(out, "# %s (written before the server starts): %s\n", d->llm_api_path, d->llm_api);
    fprintf(out, "# server metrics: %s (checked after the first cell)\n", d->metrics_url);
    if (sc->search)
        run_searches(sc, o, url, dir, db_url, out, NULL);
    for (size_t i = 0; i < ncells && !sc->search; i++) {
        struct gp_cell c = gp_scenario_cell(sc, i);
        char cell_dir[4096];
        cell_dir_of(cell_dir, sizeof cell_dir, dir, sc, &c);
        struct gp_argv pa = {0};
        struct gp_buf pl = {0};
        gp_runner_profile_argv(sc, &c, o->self_exe, url, cell_dir, &pa);
        cell_cmdline(sc, &pa, &pl);
        fprintf(out, "# cell %zu/%zu: concurrency %ld, ISL %ld, OSL %ld, %ld requests\n%s\n", i + 1, ncells,
                c.concurrency, c.isl, c.osl, c.requests, pl.data);
        gp_argv_free(&pa);
        gp_buf_free(&pl);
    }
    if (sc->repeats > 1 && !sc->search)
        fprintf(out, "# repeats: each cell runs %ld times, with --artifact-dir <cell>/run_1 .. run_%ld\n", sc->repeats,
                sc->repeats);
    if (sc->api_key && tplan->how == GP_TOOL_SELF)
        fprintf(out, "# api_key: each profile gets it as $GENPERF_API_KEY (sent as 'Authorization: Bearer ***')\n");
    fprintf(out, "# results store: %s\n", db_url);
}

/* TP = GPU count: ask NVML (the telemetry module's loader) when the
 * scenario does not say; a host without a GPU gets the reason. */
static int scenario_tp(const struct gp_scenario *sc, FILE *out, char *reason, size_t reasonsz)
{
    int tp = sc->gpus;
    if (tp > 0)
        return tp;
    struct gp_telemetry_opts to = {0};
    struct gp_telemetry *t = NULL;
    if (gp_telemetry_open(&to, &t, NULL) == 0) {
        tp = gp_telemetry_gpu_count(t);
        snprintf(reason, reasonsz, "%s", gp_telemetry_gpu_status(t));
        gp_telemetry_free(t);
    }
    if (tp > 0)
        fprintf(out, "genperf run: %d GPU(s) detected through NVML: TP=%d\n", tp, tp);
    return tp;
}

/* Each cell: its `genperf profile` (or the scenario's tool) as a child, its
 * run metadata, its summary row and its ingest. Returns 0, or -GP_EINTR when
 * a signal ended the sweep (what was measured stays on disk). */
static int run_cells(const struct run_view *d, struct cell_summary *cs, struct gp_error *err)
{
    const struct gp_scenario *sc = d->sc;
    const struct gp_run_opts *o = d->o;
    FILE *out = d->out;
    const char *url = d->url, *dir = d->dir, *db_url = d->db_url;
    size_t ncells = d->ncells;
    int tp = d->tp, rc = 0;
    long reps = sc->repeats > 1 ? sc->repeats : 1;
    /* repeats: each run of a cell is a cell of its own under <cell>/run_K/
     * (the layout `genperf compare` reads as repeats), ingested as a job */
    for (size_t j = 0; j < ncells * (size_t)reps; j++) {
        size_t i = j / (size_t)reps;
        struct gp_cell c = gp_scenario_cell(sc, i);
        cs[i].c = c;
        if (o->stop && *o->stop) {
            rc = gp_err(err, GP_EINTR, "interrupted");
            break;
        }
        char cell_dir[4200], run_dir[4096];
        cell_dir_of(cell_dir, 4096, dir, sc, &c);
        if (reps > 1)
            snprintf(cell_dir + strlen(cell_dir), sizeof cell_dir - strlen(cell_dir), "/run_%zu", j % reps + 1);
        if ((rc = gp_mkdir_p(cell_dir, err)))
            break;
        struct gp_argv pa = {0};
        gp_runner_profile_argv(sc, &c, o->self_exe, url, cell_dir, &pa);
        fprintf(out, "genperf run: cell %zu/%zu%s%s: concurrency %ld, ISL %ld, OSL %ld, %ld requests%s%s\n", i + 1,
                ncells, reps > 1 ? " " : "", reps > 1 ? strrchr(cell_dir, '/') + 1 : "", c.concurrency, c.isl, c.osl, c.requests,
                d->tplan->how == GP_TOOL_SELF ? "" : ", tool ", d->tplan->how == GP_TOOL_SELF ? "" : gp_tool_name(sc));
        fflush(out);
        int st = run_child(&pa, o->stop, d->tplan->how == GP_TOOL_SELF);
        gp_argv_free(&pa);
        int have_run = find_run_dir(cell_dir, run_dir, sizeof run_dir) == 0;
        /* after traffic: SGLang and TRT-LLM show their labelled series
         * only once a request has gone through */
        if (j == 0 && st != 130 && !(o->stop && *o->stop))
            gp_runner_check_metrics(d->attach ? NULL : d->recipe, d->metrics_url, out);
        if (have_run) {
            cs[i].ran = 1;
            write_run_meta(run_dir, sc, &c, tp, url, d->attach ? NULL : d->cmdline, NULL);
            summarise(run_dir, &cs[i]);
            struct gp_error ierr = {0};
            if (gp_runner_ingest_cell(db_url, run_dir, sc, &c, tp, o->self_exe, out, &ierr))
                fprintf(stderr, "genperf run: cell %zu: ingest failed: %s\n", i + 1, ierr.msg);
        }
        if (st == 130 || (o->stop && *o->stop)) {
            if (have_run)
                rc = gp_err(err, GP_EINTR, "interrupted during cell %zu; what was measured is in %s", i + 1,
                            cell_dir);
            else
                rc = gp_err(err, GP_EINTR, "interrupted during cell %zu before it sent a request; nothing measured",
                            i + 1);
            break;
        }
        if (st != 0)
            fprintf(stderr, "genperf run: cell %zu: profile exited with status %d (see its output above)\n",
                    i + 1, st);
    }
    return rc;
}

int gp_runner_run(const struct gp_scenario *sc_in, const struct gp_run_opts *o, struct gp_error *err)
{
    /* the scenario with what the recipe resolves (cell_inputs, metrics_url) */
    struct gp_scenario rs = *sc_in;
    const struct gp_scenario *sc = &rs;
    json_t *attach_inputs = NULL;
    char metrics_url[1024];
    FILE *out = o->out ? o->out : stdout;
    int attach = !strcmp(sc->framework, "attach");
    struct gp_recipe recipe = {0};
    struct gp_argv server_argv = {0};
    struct gp_server server = {0};
    struct gp_buf cmdline = {0};
    char url[512], dir[4096], db_url[4096], api_path[4096] = "";
    char *api_text = NULL; /* the recipe's llm_api_options, as the file's text */
    int rc = 0;
    size_t ncells = gp_scenario_n_cells(sc);
    struct cell_summary *cs = calloc(ncells, sizeof *cs);
    const char *recipes_dir = o->recipes_dir ? o->recipes_dir : getenv("GENPERF_RECIPES_DIR");

    char gpu_reason[256] = "";
    int tp = scenario_tp(sc, out, gpu_reason, sizeof gpu_reason);
    if (!attach) {
        if ((rc = gp_recipe_load(sc->framework, recipes_dir, &recipe, err)))
            goto done;
        if (tp <= 0) {
            rc = gp_err(err, GP_EINVAL,
                        "%s: hardware.gpus is not set and no GPU was detected through NVML (%s); set "
                        "hardware: {gpus: N} (tensor parallelism = GPU count)",
                        sc->path ? sc->path : sc->name, gpu_reason[0] ? gpu_reason : "NVML unavailable");
            goto done;
        }
        int port = sc->port ? sc->port : recipe.default_port;
        snprintf(url, sizeof url, "http://%s:%d", sc->host, port);
        snprintf(dir, sizeof dir, "%s/%s", sc->artifact_dir, sc->name);
        if ((rc = gp_recipe_render(&recipe, sc, tp, port, &server_argv, err)) ||
            (rc = gp_runner_push_tool_args(&recipe, sc, &server_argv, err)))
            goto done;
        json_t *api = NULL;
        if ((rc = gp_recipe_llm_api_options(&recipe, sc, &api, api_path, sizeof api_path, err)))
            goto done;
        /* JSON is YAML: trtllm-serve reads the file with yaml.safe_load */
        if (api_path[0])
            api_text = json_dumps(api, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(15));
        json_decref(api);
        gp_argv_to_shell(&server_argv, &cmdline);
        /* the key stays in the server's argv (the recipe asked for it) but
         * not in what we print or write */
        if (sc->api_key && cmdline.data) {
            gp_redact_mask(cmdline.data, sc->api_key);
            cmdline.len = strlen(cmdline.data);
        }
    } else {
        snprintf(url, sizeof url, "%s", sc->url);
        size_t n = strlen(url);
        while (n > 0 && url[n - 1] == '/')
            url[--n] = '\0';
    }
    snprintf(dir, sizeof dir, "%s/%s", sc->artifact_dir, sc->name);
    rs.cell_inputs = gp_runner_exact_osl_inputs(attach ? NULL : &recipe, sc, &attach_inputs);
    gp_runner_metrics_url(attach ? NULL : &recipe, sc, url, metrics_url, sizeof metrics_url);
    {
        /* the profile's own guess is <url>/metrics: name any other URL */
        char guess[1024];
        snprintf(guess, sizeof guess, "%s/metrics", url);
        if (strcmp(guess, metrics_url))
            rs.metrics_url = metrics_url;
    }
    if (o->db_url)
        snprintf(db_url, sizeof db_url, "%s", o->db_url);
    else if (sc->db)
        snprintf(db_url, sizeof db_url, "%s", sc->db);
    else
        snprintf(db_url, sizeof db_url, "%s/genperf.db", sc->artifact_dir);

    /* Checked before any server starts: a sweep that cannot launch its
     * profiles should not first wait 15 minutes for vLLM. */
    char mpirun[4096];
    int no_mpirun = gp_scenario_uses_mpirun(sc) && !gp_find_executable("mpirun", mpirun, sizeof mpirun);
    if (no_mpirun && !o->dry_run) {
        rc = gp_err(err, GP_ENOENT,
                    "%s: load asks for mpirun (ranks %ld%s) but mpirun is not on PATH; install Open MPI "
                    "(apt-get install openmpi-bin) or put its bin directory on PATH, or drop load.ranks/hosts/"
                    "mpirun_args to run one profile process",
                    sc->path ? sc->path : sc->name, sc->ranks ? sc->ranks : 1, sc->hosts ? ", hosts" : "");
        goto done;
    }

    struct gp_tool_plan tplan;
    gp_tool_plan(sc, &tplan);
    if (o->dry_run) {
        struct run_view d = {sc, o, out, attach, url, dir, db_url, &recipe, tp, cmdline.data, api_text, api_path,
                             &tplan, no_mpirun, ncells, metrics_url};
        print_dry_run(&d);
        goto done;
    }

    if (tplan.how == GP_TOOL_MISSING) {
        rc = gp_err(err, GP_ENOENT, "%s (--dry-run prints the commands)", tplan.missing);
        goto done;
    }
    long max_c = 0;
    for (size_t i = 0; i < sc->n_concurrency; i++)
        if (sc->concurrency[i] > max_c)
            max_c = sc->concurrency[i];
    if (max_c >= 512 && (rc = gp_raise_nofile(65536, err)))
        goto done;
    if ((rc = gp_mkdir_p(dir, err)))
        goto done;

    if (!attach) {
        char log[4096];
        snprintf(log, sizeof log, "%s/server.log", dir);
        if (api_text && (rc = gp_write_file_atomic(api_path, api_text, strlen(api_text), err)))
            goto done;
        fprintf(out, "genperf run: starting %s (log %s)\n  %s\n", recipe.framework, log, cmdline.data);
        fflush(out);
        if ((rc = gp_server_start(&server, &server_argv, log, url, err)))
            goto done;
        if ((rc = gp_server_wait_ready(&server, recipe.readiness, sc->ready_timeout_s, o->stop, err)))
            goto done;
        fprintf(out, "genperf run: server ready at %s%s%s\n", url, server.model_id[0] ? ", serving " : "",
                server.model_id);
    }
    /* Before the first cell: a name the server does not serve makes every
     * request of every cell a 404 (vLLM), so the sweep would measure nothing. */
    char served[1024];
    int chk = gp_server_check_model(url, sc->api_key, gp_scenario_served_model(sc), served, sizeof served, err);
    if (chk < 0) {
        rc = chk;
        goto done;
    }
    if (chk > 0)
        fprintf(out, "genperf run: warning: cannot check the model name the cells send ('%s'): %s\n",
                gp_scenario_served_model(sc), served);

    if (sc->api_key)
        setenv("GENPERF_API_KEY", sc->api_key, 1); /* after the server started: only the profiles get it */
    if (sc->search) {
        rc = run_searches(sc, o, url, dir, db_url, out, err);
        fprintf(out, "\nartifacts: %s\nresults store: %s (label \"%s\")\n", dir, db_url, sc->name);
        goto done;
    }
    struct run_view cells = {sc, o, out, attach, url, dir, db_url, &recipe, tp, cmdline.data, api_text, api_path,
                             &tplan, 0, ncells, metrics_url};
    rc = run_cells(&cells, cs, err);
    print_summary(out, cs, ncells);
    fprintf(out, "\nartifacts: %s\nresults store: %s\n", dir, db_url);

done:
    if (sc->api_key && !o->dry_run)
        unsetenv("GENPERF_API_KEY");
    if (server.pid > 0) {
        fprintf(out, "genperf run: stopping the server\n");
        gp_server_stop(&server, sc->stop_timeout_s);
    }
    gp_recipe_free(&recipe);
    json_decref(attach_inputs);
    gp_argv_free(&server_argv);
    gp_buf_free(&cmdline);
    free(api_text);
    free(cs);
    return rc;
}

/* Ingests through `genperf ingest`, the same code a person runs, in a child
 * process: a store failure (locked database, bad artifact) then costs this
 * cell's ingest, never the sweep. The store reads genperf_run.json in the run
 * directory for the scenario's metadata (framework, engine args, TP, ...). */
int gp_runner_ingest_cell(const char *db_url, const char *run_dir, const struct gp_scenario *sc,
                          const struct gp_cell *c, int tp, const char *self_exe, FILE *out,
                          struct gp_error *err)
{
    (void)sc;
    (void)c;
    (void)tp;
    struct gp_argv a = {0};
    gp_argv_push(&a, self_exe);
    gp_argv_push(&a, "ingest");
    gp_argv_push(&a, run_dir);
    gp_argv_push(&a, "--db");
    gp_argv_push(&a, db_url);
    fflush(out);
    int st = run_child(&a, NULL, 0);
    gp_argv_free(&a);
    if (st != 0)
        return gp_err(err, GP_EDB, "`genperf ingest %s --db %s` exited with status %d", run_dir, db_url, st);
    return 0;
}
