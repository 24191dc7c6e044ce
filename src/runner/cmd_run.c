/* runner/cmd_run.c — `genperf run SCENARIO.yaml`: argv and signals only. */
#include "commands.h"
#include "runner/runner.h"
#include "runner/scenario.h"
#include "core/error.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The one piece of file-scope mutable state: a signal handler can reach
 * nothing else. Everything else gets a pointer to it. */
static volatile sig_atomic_t run_stop;

static void on_signal(int sig)
{
    (void)sig;
    run_stop = 1;
}

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: genperf run SCENARIO.yaml [--dry-run] [--recipes DIR] [--db URL]\n"
            "\n"
            "Resolves the scenario's framework recipe (vllm, sglang, trtllm, or attach to a running\n"
            "server), starts one server (TP = GPU count, one replica), runs `genperf profile` for each\n"
            "cell of the sweep, ingests every cell into the results store and prints a summary table.\n"
            "\n"
            "  --dry-run      print the server command and each cell's profile command, run nothing\n"
            "  --recipes DIR  look for DIR/<framework>.yaml before the built-in recipes\n"
            "                 (also $GENPERF_RECIPES_DIR)\n"
            "  --db URL       results store (default: the scenario's db, else <artifact_dir>/genperf.db)\n"
            "\n"
            "Scenario keys: see docs/runner.md.\n");
}

int cmd_run(int argc, char **argv)
{
    struct gp_run_opts o = {0};
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--dry-run"))
            o.dry_run = 1;
        else if ((!strcmp(argv[i], "--recipes") || !strcmp(argv[i], "--db")) && i + 1 < argc) {
            if (argv[i][2] == 'r')
                o.recipes_dir = argv[++i];
            else
                o.db_url = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "genperf run: unknown or incomplete option '%s'; see 'genperf run --help'\n", argv[i]);
            return 2;
        } else if (!path)
            path = argv[i];
        else {
            fprintf(stderr, "genperf run: one scenario file at a time (got '%s' and '%s')\n", path, argv[i]);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
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
