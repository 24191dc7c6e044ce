/* runner/scenario.h — a scenario file, validated, and its sweep cells.
 *
 * Owns: struct gp_scenario and all its strings and the engine_args object;
 * free with gp_scenario_free. Built by gp_scenario_load from YAML or JSON;
 * every rejection names the file and the key. A scenario with lists for
 * concurrency / isl / osl expands into the cross product of cells, run in the
 * order concurrency-major, then isl, then osl.
 */
#ifndef GP_RUNNER_SCENARIO_H
#define GP_RUNNER_SCENARIO_H

#include <jansson.h>
#include <stddef.h>

struct gp_error;

#define GP_SCENARIO_MAX_LIST 64

struct gp_scenario {
    char *path;            /* file it came from */
    char *name;            /* default: file name without extension */
    char *model;
    char *tokenizer;       /* default: model */
    char *framework;       /* vllm | sglang | trtllm | attach | any recipe name */
    char *url;             /* attach: the server's base URL */
    json_t *engine_args;   /* object, possibly empty */
    int gpus;              /* hardware.gpus; 0 = not given (detected via NVML) */
    char *hardware_name;   /* hardware.name, optional label */
    long concurrency[GP_SCENARIO_MAX_LIST];
    size_t n_concurrency;
    long isl[GP_SCENARIO_MAX_LIST];
    size_t n_isl;
    long osl[GP_SCENARIO_MAX_LIST];
    size_t n_osl;
    long requests;         /* 0 = max(200, concurrency x 10) per cell */
    int streaming;         /* default 1 */
    long seed;             /* default 0 */
    char *api_key;         /* optional */
    char *artifact_dir;    /* default "artifacts" */
    char *host;            /* default 127.0.0.1 */
    int port;              /* 0 = the recipe's default port */
    double ready_timeout_s;   /* default 900 */
    double stop_timeout_s;    /* default 30 */
    double telemetry_interval_s; /* default 1 */
    double gpu_hour_cost;  /* gpu_hour_cost: USD per GPU-hour, passed as --gpu-hour-cost; 0 = none */
    char *db;              /* results store URL; default <artifact_dir>/genperf.db */
    json_t *profile_args;  /* array of extra strings appended to every profile command, or NULL */
    long repeats;          /* repeats: N runs of each cell under <cell>/run_K/, each ingested (default 1) */
    /* load: {workers, ranks, hosts, mpirun_args} — how each cell's profile
     * scales out (docs/runner.md "Scale-out"). mpirun is used when ranks > 1
     * or hosts / mpirun_args are given (gp_scenario_uses_mpirun). */
    long workers;          /* --workers N on the profile; 0 = not given, -1 = auto */
    long ranks;            /* mpirun -n K; 0 = not given */
    json_t *hosts;         /* array of host names (mpirun --host h1,h2), or NULL */
    json_t *mpirun_args;   /* array of extra mpirun words before the profile, or NULL */
    char *tool;            /* NULL/"genperf" (default), "genai-perf" or "command" (runner/tool.h) */
    json_t *tool_command;  /* tool: {command: [...]}: the argv prefix in place of `genperf profile` */
    json_t *search;        /* search: {slo: {metric: value}, goodput_target, type, start, max, max_cells,
                            * max_time}, validated; NULL = run the sweep cells (docs/runner.md) */
    /* exact_osl (default 1): each cell also sends the engine's stop-at-EOS
     * override (the recipe's exact_osl_inputs, e.g. ignore_eos), so every
     * response is as long as the cell's OSL says; 0 lets the model stop. */
    int exact_osl;
    char *tool_call_parser; /* tool_call_parser: the engine's parser for tool calls (recipes' tool_args) */
    /* Resolved by the runner from the recipe on a shallow copy of the
     * scenario (borrowed: gp_scenario_free leaves them alone); NULL in a
     * freshly loaded scenario. */
    const json_t *cell_inputs;    /* strings NAME:VALUE, each a --extra-inputs ("{osl}" = the cell's OSL) */
    const char *metrics_url;      /* the server's Prometheus URL when not <url>/metrics: --server-metrics-url */
};

struct gp_cell {
    long concurrency, isl, osl, requests;
};

int gp_scenario_load(const char *path, struct gp_scenario *sc, struct gp_error *err);
/* Same from an already parsed value (tests); name_hint labels error messages. */
int gp_scenario_from_json(json_t *root, const char *name_hint, struct gp_scenario *sc,
                          struct gp_error *err);
void gp_scenario_free(struct gp_scenario *sc);

/* 1 when each cell's profile runs under mpirun (load.ranks > 1, load.hosts
 * or load.mpirun_args given). */
int gp_scenario_uses_mpirun(const struct gp_scenario *sc);

/* The model name every cell sends (-m): engine_args.served_model_name when it
 * is a string (the recipe launches the server under that name, and vLLM
 * answers 404 to any other), else model. Borrowed from sc. */
const char *gp_scenario_served_model(const struct gp_scenario *sc);

size_t gp_scenario_n_cells(const struct gp_scenario *sc);
struct gp_cell gp_scenario_cell(const struct gp_scenario *sc, size_t i);

#endif
