/* runner/tool.c — see tool.h. */
#include "runner/tool.h"
#include "runner/launch.h"
#include "runner/scenario.h"
#include "runner/recipe.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *gp_tool_name(const struct gp_scenario *sc)
{
    return sc->tool && *sc->tool ? sc->tool : "genperf";
}

void gp_tool_plan(const struct gp_scenario *sc, struct gp_tool_plan *p)
{
    memset(p, 0, sizeof *p);
    const char *t = gp_tool_name(sc);
    if (!strcmp(t, "command")) {
        p->how = GP_TOOL_COMMAND;
        return;
    }
    if (strcmp(t, "genai-perf") != 0) {
        p->how = GP_TOOL_SELF;
        return;
    }
    if (gp_find_executable("genai-perf", p->path, sizeof p->path)) {
        p->how = GP_TOOL_HOST;
        return;
    }
    static const char *const runtimes[] = {"docker", "podman"};
    for (size_t i = 0; i < 2; i++) {
        if (gp_find_executable(runtimes[i], p->path, sizeof p->path)) {
            p->how = GP_TOOL_CONTAINER;
            return;
        }
    }
    p->how = GP_TOOL_MISSING;
    p->path[0] = '\0';
    snprintf(p->missing, sizeof p->missing,
             "tool genai-perf: `genai-perf` is not on PATH and neither docker nor podman is (for the container "
             "%s); install GenAI-Perf (pip install genai-perf) or a container runtime, or set tool: genperf",
             GP_GENAI_PERF_IMAGE);
}

void gp_tool_push_head(const struct gp_scenario *sc, const struct gp_tool_plan *p, const char *self_exe,
                       struct gp_argv *a)
{
    size_t i;
    json_t *x;
    switch (p->how) {
    case GP_TOOL_SELF:
        gp_argv_push(a, self_exe);
        break;
    case GP_TOOL_COMMAND:
        json_array_foreach(sc->tool_command, i, x) gp_argv_push(a, json_string_value(x));
        return; /* the command names its own subcommand */
    case GP_TOOL_HOST:
        gp_argv_push(a, p->path);
        break;
    case GP_TOOL_MISSING:
        gp_argv_push(a, "genai-perf");
        break;
    case GP_TOOL_CONTAINER: {
        char cwd[4096], vol[8200];
        if (!getcwd(cwd, sizeof cwd))
            snprintf(cwd, sizeof cwd, "/");
        gp_argv_push(a, p->path);
        gp_argv_push(a, "run");
        gp_argv_push(a, "--rm");
        gp_argv_push(a, "--net=host");
        snprintf(vol, sizeof vol, "%s:%s", cwd, cwd);
        gp_argv_push(a, "-v");
        gp_argv_push(a, vol);
        const char *ad = sc->artifact_dir;
        if (ad && ad[0] == '/' && strncmp(ad, cwd, strlen(cwd)) != 0) {
            snprintf(vol, sizeof vol, "%s:%s", ad, ad);
            gp_argv_push(a, "-v");
            gp_argv_push(a, vol);
        }
        gp_argv_push(a, "-w");
        gp_argv_push(a, cwd);
        gp_argv_push(a, GP_GENAI_PERF_IMAGE);
        gp_argv_push(a, "genai-perf");
        break;
    }
    }
    gp_argv_push(a, "profile");
}
