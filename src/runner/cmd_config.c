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

static const char config_usage[] =
    "usage: genperf config -f FILE [--override-config PROFILE-OPTIONS...] [-v]\n\n"
    "Runs what a GenAI-Perf config file says ('genperf create-template' writes one): analyze when its\n"
    "analyze section is set, process-export-files when its process section is, else profile.\n"
    "With --override-config, the options that follow are added after the file's (later wins).\n";

/* What config's pass-through hook fills: the file and the words for the
 * child, in order. */
struct config_args {
    const char *file;
    char **extra;
    int n_extra;
};

/* core/argv's pass-through hook. The first -f/--file names the config (a
 * later one, or one with no value, is the child's, as GenAI-Perf's parser
 * leaves it); every other word is -v or an override, kept in order. */
static int config_take(void *ctx, int argc, char **argv, int i, struct gp_error *err)
{
    struct config_args *c = ctx;
    const char *o = argv[i];
    if ((!strcmp(o, "-f") || !strcmp(o, "--file")) && i + 1 < argc && !c->file) {
        c->file = argv[i + 1];
        return 2;
    }
    if (!strncmp(o, "--file=", 7) && !c->file)
        c->file = o + 7;
    else
        c->extra[c->n_extra++] = argv[i]; /* -v, or overrides when --override-config */
    return 1;
}

static void config_report(void *ctx, const char *msg)
{
    fputs(config_usage, stderr);
    fprintf(stderr, "genperf config: error: %s\n", msg);
}

int cmd_config(int argc, char **argv)
{
    int override = 0;
    struct config_args c = {NULL, calloc((size_t)argc + 1, sizeof(char *)), 0};
    char **extra = c.extra;
    if (!extra)
        return 1;
    const struct gp_optdef defs[] = {
        GP_FLAG("--override-config", NULL, &override, NULL),
    };
    const struct gp_optspec spec = {"config", config_usage, NULL, defs, GP_NDEFS(defs), 24, &c};
    const struct gp_argv_pass pass = {config_take, config_report};
    int p = gp_argv_parse_pass(&spec, &pass, argc, argv);
    if (p < 0) {
        free(extra);
        return p == GP_ARGV_HELP ? 0 : 2;
    }
    const char *file = c.file;
    int n_extra = c.n_extra;
    int status = 1;
    struct gp_error err = {0};
    struct gp_argv a = {0};
    json_t *cfg = NULL;
    if (!file) {
        config_report(NULL, "the following arguments are required: -f/--file");
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
        /* The YAML reader's messages already start with the file's name. */
        int named = !strncmp(err.msg, file, strlen(file));
        fprintf(stderr, "genperf config: error: %s%s%s\n", named ? "" : file, named ? "" : ": ", err.msg);
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
