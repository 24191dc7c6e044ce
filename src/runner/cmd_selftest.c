/* runner/cmd_selftest.c — `genperf selftest [profile flags]`: how much does
 * genperf itself add to TTFT and ITL on this host, at this load shape?
 *
 * Starts `genperf serve --port 0 --timing-log` (this executable, its own
 * process group: runner/launch.h), runs `genperf profile` with the user's
 * flags against it as a child process (so the profile is exactly the one a
 * campaign would run), stops the server (which then writes its timing
 * log), and compares the client's per-request times with the server's
 * (selftest.h). Prints one line per figure and writes selftest.json beside
 * the run's artifacts. Exit: 0 measured; 1 the server, the profile or the
 * comparison failed (the message says which); 2 usage.
 *
 * Owns: the server child (stopped on every path) and the work directory
 * <artifact-dir>/selftest/ (timing log, server log), both kept for reading.
 */
#include "commands.h"
#include "core/argv.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/pytext.h"
#include "runner/analyze.h"
#include "runner/launch.h"
#include "runner/recipe.h"
#include "runner/selftest.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "genperf selftest"

static const char usage_text[] =
    "usage: genperf selftest [--serve-ttft-ms MS] [--serve-itl-ms MS] [profile flags]\n"
    "\n"
    "Runs `genperf profile` with the given flags (the load shape of your campaign: --concurrency,\n"
    "--request-rate, --workers, ISL/OSL ...) against `genperf serve` started on this host with a\n"
    "--timing-log, and reports genperf's own error against the server's timing: TTFT excess\n"
    "(client TTFT - server TTFT) median/p99, ITL error |client gap - server gap|, last-token excess.\n"
    "--url is not accepted (the server is selftest's own). Defaults added when not given:\n"
    "-m genperf-sim, --tokenizer builtin, --streaming, --artifact-dir a new directory under $TMPDIR.\n"
    "\n"
    "  --serve-ttft-ms MS   the server's time to first token (default 30)\n"
    "  --serve-itl-ms MS    the server's gap between tokens (default 5)\n"
    "\n"
    "Writes selftest.json in the profile's run directory. Exit 0 measured, 1 failed, 2 usage.\n";

/* What selftest reads of its command line: its own two flags (core/argv's
 * table) and, of the profile flags it passes on in order (take()), those it
 * fills in when absent and those its summary line names. */
struct selftest_args {
    const char *ttft, *itl;
    const char *artifact_dir, *rate, *conc, *workers;
    int model, tokenizer, streaming, url;
    struct gp_argv flags; /* the profile flags, in order, as given; freed by cmd_selftest */
};

/* core/argv's pass-through hook: every token that is not a selftest flag
 * goes on to profile as it stands. A value flag named here keeps its value
 * with it; "--" hands on the rest; --url, -u and --urls are only noted
 * (selftest refuses them: the server is its own). */
static int take(void *ctx, int argc, char **argv, int i, struct gp_error *err)
{
    struct selftest_args *a = ctx;
    const char *o = argv[i], *v;
    int at = i;
    if (!strcmp(o, "--"))
        i = argc - 1;
    else if (!strcmp(o, "-m") || !strcmp(o, "--model") || !strncmp(o, "--model=", 8))
        a->model = 1; /* its words follow as tokens of their own */
    else if (!strcmp(o, "-u") || gp_cell_flag_value(o, "--url", &i, argc, argv) ||
             gp_cell_flag_value(o, "--urls", &i, argc, argv))
        a->url = 1;
    else if ((v = gp_cell_flag_value(o, "--artifact-dir", &i, argc, argv)))
        a->artifact_dir = v;
    else if ((v = gp_cell_flag_value(o, "--request-rate", &i, argc, argv)))
        a->rate = v;
    else if ((v = gp_cell_flag_value(o, "--concurrency", &i, argc, argv)))
        a->conc = v;
    else if ((v = gp_cell_flag_value(o, "--workers", &i, argc, argv)))
        a->workers = v;
    else if (gp_cell_flag_value(o, "--tokenizer", &i, argc, argv))
        a->tokenizer = 1;
    else if (!strcmp(o, "--streaming"))
        a->streaming = 1;
    for (int k = at; k <= i; k++)
        if (gp_argv_push(&a->flags, argv[k]))
            return gp_err(err, GP_ENOMEM, "out of memory"), 0;
    return i - at + 1;
}

/* Returns 0, GP_ARGV_HELP or GP_ARGV_ERROR (the message printed). */
static int parse(int argc, char **argv, struct selftest_args *a)
{
    a->ttft = "30";
    a->itl = "5";
    const struct gp_optdef defs[] = {
        GP_STR("--serve-ttft-ms", NULL, &a->ttft, "MS", NULL),
        GP_STR("--serve-itl-ms", NULL, &a->itl, "MS", NULL),
    };
    const struct gp_optspec spec = {"selftest", usage_text, NULL, defs, GP_NDEFS(defs), 24, a};
    const struct gp_argv_pass pass = {take, NULL};
    return gp_argv_parse_pass(&spec, &pass, argc, argv);
}

/* The run directory profile just wrote: the newest subdirectory of dir
 * holding a *_genperf.json; its stem's .json is the profile export. */
static int find_export(const char *dir, char *run_dir, size_t rsz, char *export_path, size_t esz)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    time_t best = 0;
    int found = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "selftest"))
            continue;
        char sub[4096];
        gp_path_join(sub, sizeof sub, dir, e->d_name);
        DIR *s = opendir(sub);
        if (!s)
            continue;
        struct dirent *f;
        while ((f = readdir(s)) != NULL) {
            size_t l = strlen(f->d_name);
            if (l <= 13 || strcmp(f->d_name + l - 13, "_genperf.json"))
                continue;
            char p[4096], fn[1024];
            gp_path_join(p, sizeof p, sub, f->d_name);
            struct stat stt;
            if (stat(p, &stt) || (found && stt.st_mtime < best))
                continue;
            best = stt.st_mtime, found = 1;
            snprintf(fn, sizeof fn, "%.*s.json", (int)(l - 13), f->d_name);
            snprintf(run_dir, rsz, "%s", sub);
            gp_path_join(export_path, esz, sub, fn);
        }
        closedir(s);
    }
    closedir(d);
    return found ? 0 : -1;
}

/* Starts the server; its URL into url. */
static int start_server(const char *self, const char *work, const char *ttft, const char *itl, struct gp_server *srv,
                        char *url, size_t usz, char *log_path, size_t lsz)
{
    char port_file[4096], serve_log[4096];
    gp_path_join(port_file, sizeof port_file, work, "url");
    gp_path_join(log_path, lsz, work, "serve_timing.jsonl");
    gp_path_join(serve_log, sizeof serve_log, work, "serve.log");
    unlink(port_file);
    struct gp_argv a = {0};
    const char *words[] = {self,           "serve", "--port", "0",     "--port-file", port_file, "--timing-log",
                           log_path,       "--quiet", "--tokenizer", "builtin", "--ttft-ms", ttft, "--itl-ms", itl};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (gp_argv_push(&a, words[i]) < 0) {
            gp_argv_free(&a);
            fprintf(stderr, PROG ": error: out of memory\n");
            return -1;
        }
    struct gp_error err = {0};
    int rc = gp_server_start(srv, &a, serve_log, "", &err);
    gp_argv_free(&a);
    if (rc < 0) {
        fprintf(stderr, PROG ": error: cannot start genperf serve: %s\n", err.msg);
        return -1;
    }
    for (int i = 0; i < 200; i++) { /* 10 s */
        char *text = NULL;
        size_t len = 0;
        if (gp_read_file(port_file, &text, &len, NULL) == 0 && len) { /* written atomically */
            while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
                len--;
            snprintf(url, usz, "%.*s", (int)len, text);
            free(text);
            return 0;
        }
        free(text);
        if (waitpid(srv->pid, NULL, WNOHANG) == srv->pid) {
            srv->pid = 0;
            break;
        }
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    struct gp_buf tail = {0};
    gp_log_tail(serve_log, 10, &tail);
    fprintf(stderr, PROG ": error: genperf serve did not start within 10 s (its log %s):\n%s\n", serve_log,
            tail.data ? tail.data : "");
    gp_buf_free(&tail);
    gp_server_stop(srv, 2);
    return -1;
}

/* genperf profile with the user's flags (and the defaults) as a child; its exit status */
static int run_profile(const char *self, const struct selftest_args *sa, const char *url, const char *adir)
{
    struct gp_argv a = {0};
    int bad = gp_argv_push(&a, self) | gp_argv_push(&a, "profile");
    for (size_t i = 0; i < sa->flags.n; i++)
        bad |= gp_argv_push(&a, sa->flags.v[i]);
    if (!sa->model)
        bad |= gp_argv_push(&a, "-m") | gp_argv_push(&a, "genperf-sim");
    if (!sa->tokenizer)
        bad |= gp_argv_push(&a, "--tokenizer") | gp_argv_push(&a, "builtin");
    if (!sa->streaming)
        bad |= gp_argv_push(&a, "--streaming");
    if (!sa->artifact_dir)
        bad |= gp_argv_push(&a, "--artifact-dir") | gp_argv_push(&a, adir);
    bad |= gp_argv_push(&a, "--url") | gp_argv_push(&a, url);
    if (bad) {
        gp_argv_free(&a);
        fprintf(stderr, PROG ": error: out of memory\n");
        return 1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execv(self, a.v);
        _exit(127);
    }
    gp_argv_free(&a);
    if (pid < 0) {
        fprintf(stderr, PROG ": error: cannot fork genperf profile\n");
        return 1;
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void print_result(const struct gp_selftest_result *r, const struct selftest_args *a, const char *url)
{
    const char *rate = a->rate, *conc = a->conc, *workers = a->workers;
    char host[256] = "this host", shape[256];
    gethostname(host, sizeof host - 1);
    if (rate)
        snprintf(shape, sizeof shape, "at --request-rate %s", rate);
    else
        snprintf(shape, sizeof shape, "at concurrency %s", conc ? conc : "1");
    printf("genperf selftest: %zu of %zu requests matched to the timing log of genperf serve at %s\n", r->matched,
           r->requests, url);
    printf("genperf selftest: %s%s%s on %s, genperf adds median %.0f us, p99 %.0f us to TTFT (send side median "
           "%.0f us, receive side median %.0f us)\n",
           shape, workers ? ", --workers " : "", workers ? workers : "", host, r->ttft_excess.median_us,
           r->ttft_excess.p99_us, r->send_side.median_us, r->recv_side.median_us);
    printf("genperf selftest: ITL error |client gap - server gap| median %.0f us, p99 %.0f us over %zu chunk gaps\n",
           r->itl_error.median_us, r->itl_error.p99_us, r->itl_error.n);
    printf("genperf selftest: latency to the last token: genperf adds median %.0f us, p99 %.0f us\n",
           r->last_excess.median_us, r->last_excess.p99_us);
}

static int write_json(const struct gp_selftest_result *r, const char *run_dir, const char *log_path, const char *ttft,
                      const char *itl)
{
    char path[4096];
    gp_path_join(path, sizeof path, run_dir, "selftest.json");
    json_t *o = gp_selftest_json(r), *srv = json_object();
    json_object_set_new(srv, "ttft_ms", json_real(atof(ttft)));
    json_object_set_new(srv, "itl_ms", json_real(atof(itl)));
    json_object_set_new(srv, "timing_log", json_string(log_path));
    json_object_set_new(o, "server", srv);
    struct gp_buf b = {0};
    int rc = gp_json_dump(&b, o, 2, 0, GP_JSON_PYTHON) || gp_buf_putc(&b, '\n');
    json_decref(o);
    struct gp_error err = {0};
    if (rc || gp_write_file_atomic(path, b.data, b.len, &err) < 0) {
        fprintf(stderr, PROG ": error: cannot write %s: %s\n", path, rc ? "out of memory" : err.msg);
        gp_buf_free(&b);
        return -1;
    }
    gp_buf_free(&b);
    printf("genperf selftest: wrote %s\n", path);
    return 0;
}

static int selftest(int argc, char **argv, struct selftest_args *sa)
{
    int prc = parse(argc, argv, sa);
    if (prc == GP_ARGV_HELP)
        return 0;
    if (prc < 0)
        return 2;
    if (sa->url) {
        fprintf(stderr, PROG ": --url is not accepted: selftest starts its own genperf serve (see 'genperf "
                        "selftest --help')\n");
        return 2;
    }
    const char *ttft = sa->ttft, *itl = sa->itl;
    char *end;
    if (strtod(ttft, &end) < 0 || *end || !*ttft || strtod(itl, &end) < 0 || *end || !*itl) {
        fprintf(stderr, PROG ": --serve-ttft-ms and --serve-itl-ms take a number of ms >= 0, got '%s' and '%s' "
                        "(see 'genperf selftest --help')\n", ttft, itl);
        return 2;
    }
    char self[4096], adir[4096], work[4096], url[512], log_path[4096];
    if (gp_self_exe(self, sizeof self) < 0) {
        fprintf(stderr, PROG ": error: cannot find my own executable (/proc/self/exe)\n");
        return 1;
    }
    const char *given = sa->artifact_dir;
    if (given) {
        snprintf(adir, sizeof adir, "%s", given);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(adir, sizeof adir, "%s/genperf-selftest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(adir)) {
            fprintf(stderr, PROG ": error: cannot make a directory %s (set TMPDIR or pass --artifact-dir)\n", adir);
            return 1;
        }
    }
    gp_path_join(work, sizeof work, adir, "selftest");
    struct gp_error err = {0};
    if (gp_mkdir_p(work, &err) < 0) {
        fprintf(stderr, PROG ": error: %s\n", err.msg);
        return 1;
    }
    struct gp_server srv;
    if (start_server(self, work, ttft, itl, &srv, url, sizeof url, log_path, sizeof log_path) < 0)
        return 1;
    /* A Ctrl-C reaches the profile (which writes what it measured) and
     * must not leave the server running: this process waits it out. */
    void (*oint)(int) = signal(SIGINT, SIG_IGN), (*oterm)(int) = signal(SIGTERM, SIG_IGN);
    prc = run_profile(self, sa, url, adir);
    gp_server_stop(&srv, 10); /* it writes the timing log as it exits */
    signal(SIGINT, oint);
    signal(SIGTERM, oterm);
    if (prc != 0) {
        fprintf(stderr, PROG ": error: genperf profile exited %d against the selftest server; nothing compared\n",
                prc);
        return 1;
    }
    char run_dir[4096], export_path[4096];
    if (find_export(adir, run_dir, sizeof run_dir, export_path, sizeof export_path) < 0) {
        fprintf(stderr, PROG ": error: no *_genperf.json under %s after the profile\n", adir);
        return 1;
    }
    struct timespec rt, mt;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mt);
    int64_t off = ((int64_t)rt.tv_sec - (int64_t)mt.tv_sec) * 1000000000 + (rt.tv_nsec - mt.tv_nsec);
    struct gp_selftest_result r;
    if (gp_selftest_compare(export_path, log_path, off, &r, &err) < 0) {
        fprintf(stderr, PROG ": error: %s\n", err.msg);
        return 1;
    }
    if (!r.ttft_excess.n) {
        fprintf(stderr, PROG ": error: none of the %zu requests of %s matched a streamed answer in the timing log %s "
                        "(%zu unmatched): TTFT needs --streaming and a chat or completions endpoint\n",
                r.requests, export_path, log_path, r.unmatched);
        return 1;
    }
    print_result(&r, sa, url);
    return write_json(&r, run_dir, log_path, ttft, itl) < 0 ? 1 : 0;
}

int cmd_selftest(int argc, char **argv)
{
    struct selftest_args sa = {0};
    int rc = selftest(argc, argv, &sa);
    gp_argv_free(&sa.flags);
    return rc;
}
