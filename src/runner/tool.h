/* runner/tool.h — which load generator runs a scenario's cells ("vary only
 * the tool", the seed's cross-check).
 *
 * A scenario's `tool:` is `genperf` (default: this binary's `profile`),
 * `genai-perf` (NVIDIA GenAI-Perf: `genai-perf` on PATH, else the Triton SDK
 * container through docker or podman with host networking) or
 * `{command: [argv...]}` (an argv prefix that takes the place of
 * `genperf profile`). Every tool gets the same flags (runner.c), so the only
 * difference between two jobs of one cell is the tool.
 *
 * Owns: nothing; struct gp_tool_plan is plain data filled in place.
 */
#ifndef GP_RUNNER_TOOL_H
#define GP_RUNNER_TOOL_H

#include <stddef.h>

struct gp_argv;
struct gp_scenario;

#define GP_GENAI_PERF_IMAGE "nvcr.io/nvidia/tritonserver:26.04-py3-sdk"

enum gp_tool_how {
    GP_TOOL_SELF,      /* genperf profile (this binary) */
    GP_TOOL_HOST,      /* genai-perf found on PATH */
    GP_TOOL_CONTAINER, /* docker/podman run ... GP_GENAI_PERF_IMAGE genai-perf profile */
    GP_TOOL_COMMAND,   /* the scenario's tool.command */
    GP_TOOL_MISSING,   /* genai-perf: neither the tool nor a container runtime here */
};

struct gp_tool_plan {
    enum gp_tool_how how;
    char path[4096];    /* HOST: the genai-perf found; CONTAINER: the runtime */
    char missing[512];  /* MISSING: what is missing and how to get it */
};

/* The tool's name as jobs are tagged with it: "genperf", "genai-perf" or
 * "command". */
const char *gp_tool_name(const struct gp_scenario *sc);

/* Decides how the scenario's tool runs on this host (PATH lookups only). */
void gp_tool_plan(const struct gp_scenario *sc, struct gp_tool_plan *p);

/* Pushes the argv head that replaces `genperf profile`; cwd is mounted at the
 * same path in a container (and the artifact directory when it lies outside),
 * so relative artifact paths mean the same inside. A MISSING plan pushes the
 * host form (`genai-perf profile`), which is what a dry run prints. */
void gp_tool_push_head(const struct gp_scenario *sc, const struct gp_tool_plan *p, const char *self_exe,
                       struct gp_argv *a);

#endif
