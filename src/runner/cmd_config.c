/* runner/cmd_config.c — GenAI-Perf's `create-template` and `config`
 * subcommands.
 *
 * create-template [-f FILE] [-v]: writes GenAI-Perf's template
 * (template.c) to genai_perf_config.yaml or FILE, refusing to overwrite.
 * config -f FILE [--override-config PROFILE-OPTIONS...]: maps the file's
 * keys to a command line (template.c) and runs it as a genperf child —
 * profile, analyze or process-export-files, as the file says — so what runs
 * is exactly what that command does with those flags. Exit: the child's
 * status; 1 for a bad file (GenAI-Perf's ValueError), 2 for bad usage.
 */
#include "commands.h"
#include "core/argv.h"
#include "core/buf.h"
#include "core/error.h"
#include "runner/analyze.h"
#include "runner/recipe.h"
#include "runner/template.h"
#include "runner/yamljson.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmd_create_template(int argc, char **argv)
{
    const char *file = "genai_perf_config.yaml";
    int verbose = 0;
    const struct gp_optdef defs[] = {
        GP_STR("-f", "--file", &file, "FILE", NULL),
        GP_FLAG("-v", "--verbose", &verbose, NULL),
    };
    const struct gp_optspec spec = {
        .cmd = "create-template",
        .usage = "usage: genperf create-template [-f FILE] [-v]\n\n"
                 "Writes GenAI-Perf's config template (default genai_perf_config.yaml); edit it, then run\n"
                 "'genperf config -f FILE'.\n",
        .defs = defs,
        .n_defs = GP_NDEFS(defs),
    };
    int n = gp_argv_parse(&spec, argc, argv);
    if (n < 0)
        return n == GP_ARGV_HELP ? 0 : 2;
    if (n > 0)
        return gp_argv_error(&spec, "unrecognized argument '%s'; name the file with -f FILE", argv[1]);
    if (verbose)
        fprintf(stderr, "genperf create-template: note: -v/--verbose writes the same template without GenAI-Perf's "
                        "per-option descriptions (see 'genperf profile --help' for them)\n");
    /* GenAI-Perf opens with mode "x": never overwrite an edited config */
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            fprintf(stderr, "genperf create-template: error: File '%s' already exists. Please specify a different "
                            "filename.\n",
                    file);
        else
            fprintf(stderr, "genperf create-template: error: cannot create '%s': %s\n", file, strerror(errno));
        return 1;
    }
    const char *t = gp_genai_perf_template();
    size_t len = strlen(t), off = 0;
    while (off < len) {
        ssize_t w = write(fd, t + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            fprintf(stderr, "genperf create-template: error: cannot write '%s': %s\n", file, strerror(errno));
            close(fd);
            unlink(file);
            return 1;
        }
        off += (size_t)w;
    }
    if (close(fd) < 0) {
        fprintf(stderr, "genperf create-template: error: cannot write '%s': %s\n", file, strerror(errno));
        return 1;
    }
    return 0;
}

static void config_usage(FILE *fp)
{
    fprintf(fp, "usage: genperf config -f FILE [--override-config PROFILE-OPTIONS...] [-v]\n\n"
                "Runs what a GenAI-Perf config file says ('genperf create-template' writes one): analyze when its\n"
                "analyze section is set, process-export-files when its process section is, else profile.\n"
                "With --override-config, the options that follow are added after the file's (later wins).\n");
}

int cmd_config(int argc, char **argv)
{
    const char *file = NULL;
    int override = 0, n_extra = 0;
    char **extra = calloc((size_t)argc + 1, sizeof *extra);
    if (!extra)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            config_usage(stdout);
            free(extra);
            return 0;
        } else if ((!strcmp(argv[i], "-f") || !strcmp(argv[i], "--file")) && i + 1 < argc && !file)
            file = argv[++i];
        else if (!strncmp(argv[i], "--file=", 7) && !file)
            file = argv[i] + 7;
        else if (!strcmp(argv[i], "--override-config"))
            override = 1;
        else
            extra[n_extra++] = argv[i]; /* -v, or overrides when --override-config */
    }
    int status = 1;
    struct gp_error err = {0};
    struct gp_argv a = {0};
    json_t *cfg = NULL;
    if (!file) {
        config_usage(stderr);
        fprintf(stderr, "genperf config: error: the following arguments are required: -f/--file\n");
        status = 2;
        goto done;
    }
    for (int i = 0; i < n_extra && !override; i++)
        if (strcmp(extra[i], "-v") && strcmp(extra[i], "--verbose")) {
            fprintf(stderr, "genperf config: error: In order to use the CLI to override the config, the "
                            "--override-config flag must be set.\n");
            goto done;
        }
    char self[4096];
    if (gp_self_exe(self, sizeof self) < 0) {
        fprintf(stderr, "genperf config: error: cannot find my own executable (/proc/self/exe)\n");
        goto done;
    }
    if ((cfg = gp_yaml_load_file(file, &err)) && override)
        gp_gpconfig_drop_overridden(cfg, extra, n_extra);
    if (!cfg || gp_argv_push(&a, self) < 0 || gp_gpconfig_argv(cfg, &a, &err) < 0) {
        fprintf(stderr, "genperf config: error: %s: %s\n", file, err.msg);
        goto done;
    }
    for (int i = 0; i < n_extra; i++)
        gp_argv_push(&a, extra[i]);
    struct gp_buf shown = {0};
    gp_argv_to_shell(&a, &shown);
    fprintf(stderr, "genperf config: %s runs: genperf%s\n", file,
            shown.data ? strchr(shown.data, ' ') ? strchr(shown.data, ' ') : "" : "");
    gp_buf_free(&shown);
    status = gp_run_child(a.v);
    if (status < 0)
        status = 1;
done:
    json_decref(cfg);
    gp_argv_free(&a);
    free(extra);
    return status;
}
