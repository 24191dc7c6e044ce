/* runner/cmd_run.c — `genperf run SCENARIO.yaml`: argv and signals only. */
#include "commands.h"
#include "runner/runner.h"
#include "runner/scenario.h"
#include "core/argv.h"
#include "core/error.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The one piece of file-scope mutable state: a signal handler can reach
 * nothing else. Everything else gets a pointer to it. */
static volatile sig_atomic_t run_stop;

/* counts the signals (capped): a cell under mpirun treats the second as
 * "stop now" (runner.c run_child) */
static void on_signal(int sig)
{
    (void)sig;
    if (run_stop < 100)
        run_stop = run_stop + 1;
}

int cmd_run(int argc, char **argv)
{
    struct gp_run_opts o = {0};
    const struct gp_optdef defs[] = {
        GP_FLAG("--dry-run", NULL, &o.dry_run, "print the server command and each cell's profile command, run nothing"),
        GP_STR("--recipes", NULL, &o.recipes_dir, "DIR", "look for DIR/<framework>.yaml before the built-in recipes\n"
                                                          "(also $GENPERF_RECIPES_DIR)"),
        GP_STR("--db", NULL, &o.db_url, "URL", "results store (default: the scenario's db, else <artifact_dir>/genperf.db)"),
    };
    const struct gp_optspec spec = {
        "run",
        "usage: genperf run SCENARIO.yaml [--dry-run] [--recipes DIR] [--db URL]\n"
        "\n"
        "Resolves the scenario's framework recipe (vllm, sglang, trtllm, or attach to a running\n"
        "server), starts one server (TP = GPU count, one replica), runs `genperf profile` for each\n"
        "cell of the sweep, ingests every cell into the results store and prints a summary table.\n"
        "\n",
        "\nScenario keys: see docs/runner.md.\n", defs, GP_NDEFS(defs), 15, NULL};
    int npos = gp_argv_parse(&spec, argc, argv);
    if (npos < 0)
        return npos == GP_ARGV_HELP ? 0 : 2;
    if (npos > 1)
        return gp_argv_error(&spec, "one scenario file at a time (got '%s' and '%s')", argv[1], argv[2]);
    if (npos == 0) {
        gp_argv_help(&spec, stderr);
        return 2;
    }
    const char *path = argv[1];
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "genperf run: cannot find my own executable (/proc/self/exe)\n");
        return 1;
    }
    self[n] = '\0';
    o.self_exe = self;
    o.stop = &run_stop;
    o.out = stdout;

    struct gp_error err = {0};
    struct gp_scenario sc;
    if (gp_scenario_load(path, &sc, &err)) {
        fprintf(stderr, "genperf run: %s\n", err.msg);
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: waits must wake up */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int rc = gp_runner_run(&sc, &o, &err);
    gp_scenario_free(&sc);
    if (rc == -GP_EINTR) {
        fprintf(stderr, "genperf run: %s\n", err.msg);
        return 130;
    }
    if (rc) {
        fprintf(stderr, "genperf run: %s\n", err.msg);
        return 1;
    }
    return 0;
}
