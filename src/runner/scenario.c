#include "runner/scenario.h"
#include "runner/yamljson.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

static const char *const known_keys[] = {
    "name", "model", "tokenizer", "framework", "url", "engine_args", "hardware", "gpus",
    "concurrency", "isl", "osl", "requests", "streaming", "seed", "api_key", "artifact_dir",
    "host", "port", "ready_timeout_s", "stop_timeout_s", "telemetry_interval", "db", "profile_args",
    "load", "tool", "search", "repeats", "gpu_hour_cost", "exact_osl", "tool_call_parser", NULL,
};

static int get_str(json_t *root, const char *key, char **out, const char *name, struct gp_error *err)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v))
        return 0;
    if (json_is_string(v))
        *out = strdup(json_string_value(v));
    else if (json_is_integer(v)) {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
        *out = strdup(buf);
    } else
        return gp_err(err, GP_EINVAL, "%s: '%s' must be a string", name, key);
    return 0;
}

static int get_num(json_t *root, const char *key, double *out, double lo, const char *name,
                   struct gp_error *err)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_number(v))
        return gp_err(err, GP_EINVAL, "%s: '%s' must be a number", name, key);
    double d = json_number_value(v);
    if (d < lo)
        return gp_err(err, GP_EINVAL, "%s: '%s' must be >= %g (got %g)", name, key, lo, d);
    *out = d;
    return 0;
}

/* tool: genperf | genai-perf | {command: [non-empty strings]} (runner/tool.h). */
static int get_tool(json_t *root, struct gp_scenario *sc, const char *name, struct gp_error *err)
{
    json_t *v = json_object_get(root, "tool");
    if (!v || json_is_null(v))
        return 0;
    if (json_is_string(v)) {
        const char *t = json_string_value(v);
        if (strcmp(t, "genperf") != 0 && strcmp(t, "genai-perf") != 0)
            return gp_err(err, GP_EINVAL, "%s: tool '%s': use genperf, genai-perf, or {command: [PROGRAM, ARGS...]}",
                          name, t);
        sc->tool = strdup(t);
        return 0;
    }
    json_t *cmd = json_object_get(v, "command");
    int ok = json_is_object(v) && json_object_size(v) == 1 && json_is_array(cmd) && json_array_size(cmd) > 0;
    size_t i;
    json_t *x;
    json_array_foreach(cmd, i, x) ok &= json_is_string(x) && json_string_length(x) > 0;
    if (!ok)
        return gp_err(err, GP_EINVAL, "%s: 'tool' must be genperf, genai-perf, or {command: [PROGRAM, ARGS...]} "
                                      "(a list of strings that takes the place of `genperf profile`)", name);
    sc->tool = strdup("command");
    sc->tool_command = json_incref(cmd);
    return 0;
}

/* search: {slo: {METRIC: VALUE}, goodput_target, type, start, max,
 * max_cells, max_time}: `genperf search` per (ISL, OSL) cell, its flags
 * (docs/search.md) checked again there. */
static int get_search(json_t *root, struct gp_scenario *sc, const char *name, struct gp_error *err)
{
    json_t *v = json_object_get(root, "search");
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_object(v))
        return gp_err(err, GP_EINVAL, "%s: 'search' must be a mapping (slo:, goodput_target:, type:, ...)", name);
    static const char *const nums[] = {"goodput_target", "start", "max", "max_cells", "max_time"};
    const char *k;
    json_t *x;
    json_object_foreach(v, k, x) {
        int ok = 0;
        for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
            ok |= !strcmp(k, nums[i]) && json_is_number(x) && json_number_value(x) > 0;
        ok |= !strcmp(k, "type") && json_is_string(x) &&
              (!strcmp(json_string_value(x), "concurrency") || !strcmp(json_string_value(x), "request_rate"));
        if (!strcmp(k, "slo") && json_is_object(x)) {
            const char *m;
            json_t *y;
            ok = 1;
            json_object_foreach(x, m, y) ok &= json_is_number(y) && json_number_value(y) > 0;
        }
        if (!ok)
            return gp_err(err, GP_EINVAL,
                          "%s: search.%s: want slo: {METRIC: positive number}, goodput_target/start/max/max_cells/"
                          "max_time: positive numbers, type: concurrency or request_rate (docs/runner.md)",
                          name, k);
    }
    if (sc->tool && strcmp(sc->tool, "genperf") != 0)
        return gp_err(err, GP_EINVAL, "%s: search: runs `genperf search`, which only genperf does; drop 'tool: %s' "
                                      "or the search block", name, sc->tool);
    sc->search = json_incref(v);
    return 0;
}

/* A positive integer or a list of them (a sweep axis). */
static int get_list(json_t *root, const char *key, long *out, size_t *n, long dflt, const char *name,
                    struct gp_error *err)
{
    json_t *v = json_object_get(root, key);
    *n = 0;
    if (!v || json_is_null(v)) {
        if (dflt <= 0)
            return gp_err(err, GP_EINVAL, "%s: '%s' is required (a positive integer or a list of them)",
                          name, key);
        out[(*n)++] = dflt;
        return 0;
    }
    json_t *one = v;
    size_t count = json_is_array(v) ? json_array_size(v) : 1;
    if (count == 0)
        return gp_err(err, GP_EINVAL, "%s: '%s' is an empty list", name, key);
    if (count > GP_SCENARIO_MAX_LIST)
        return gp_err(err, GP_EINVAL, "%s: '%s' has %zu values; at most %d", name, key, count,
                      GP_SCENARIO_MAX_LIST);
    for (size_t i = 0; i < count; i++) {
        if (json_is_array(v))
            one = json_array_get(v, i);
        if (!json_is_integer(one) || json_integer_value(one) < 1)
            return gp_err(err, GP_EINVAL, "%s: '%s' values must be positive integers", name, key);
        out[(*n)++] = (long)json_integer_value(one);
    }
    return 0;
}

/* The seed's scenario field names (its "Scenario -> CLI mapping") beside
 * the short ones; concurrency, streaming and model are spelled the same. */
static const char *const seed_aliases[][2] = {
    {"input_sequence_length", "isl"},
    {"output_sequence_length", "osl"},
    {"num_requests", "requests"},
    {"random_seed", "seed"},
};

static int scenario_from_json(json_t *root, const char *name_hint, struct gp_scenario *sc, struct gp_error *err);

/* load: {workers, ranks, hosts, mpirun_args}; every rejection one line
 * naming load.KEY and what it must be. */
static int get_strings(json_t *load, const char *key, json_t **out, int host_names, const char *nm,
                       struct gp_error *err)
{
    json_t *v = json_object_get(load, key), *x;
    size_t i;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_array(v) || (host_names && json_array_size(v) == 0))
        return gp_err(err, GP_EINVAL, "%s: 'load.%s' must be a %slist of strings%s", nm, key,
                      host_names ? "non-empty " : "", host_names ? " (e.g. hosts: [node1, node2])" : "");
    json_array_foreach(v, i, x)
    {
        const char *t = json_string_value(x);
        if (!t || !*t || (host_names && strpbrk(t, ", \t")))
            return gp_err(err, GP_EINVAL, "%s: 'load.%s' must be a list of %s (item %zu is not)", nm, key,
                          host_names ? "host names without commas or spaces" : "non-empty strings", i + 1);
    }
    *out = json_incref(v);
    return 0;
}

static int parse_load(json_t *root, struct gp_scenario *sc, const char *nm, struct gp_error *err)
{
    json_t *load = json_object_get(root, "load"), *v;
    const char *key;
    if (!load || json_is_null(load))
        return 0;
    if (!json_is_object(load))
        return gp_err(err, GP_EINVAL, "%s: 'load' must be a mapping like {workers: 2, ranks: 2, hosts: [h1, h2]}", nm);
    json_object_foreach(load, key, v)
    {
        if (strcmp(key, "workers") && strcmp(key, "ranks") && strcmp(key, "hosts") && strcmp(key, "mpirun_args"))
            return gp_err(err, GP_EINVAL, "%s: unknown key 'load.%s' (known: workers, ranks, hosts, mpirun_args)",
                          nm, key);
    }
    v = json_object_get(load, "workers");
    if (json_is_string(v) && !strcmp(json_string_value(v), "auto"))
        sc->workers = -1;
    else if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 1)
            return gp_err(err, GP_EINVAL, "%s: 'load.workers' must be an integer >= 1 or auto (event-loop threads "
                          "per profile process)", nm);
        sc->workers = (long)json_integer_value(v);
    }
    v = json_object_get(load, "ranks");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 1)
            return gp_err(err, GP_EINVAL, "%s: 'load.ranks' must be an integer >= 1 (mpirun -n K)", nm);
        sc->ranks = (long)json_integer_value(v);
    }
    int r = get_strings(load, "hosts", &sc->hosts, 1, nm, err);
    return r ? r : get_strings(load, "mpirun_args", &sc->mpirun_args, 0, nm, err);
}

int gp_scenario_uses_mpirun(const struct gp_scenario *sc)
{
    return sc->ranks > 1 || sc->hosts || sc->mpirun_args;
}

int gp_scenario_from_json(json_t *root, const char *name_hint, struct gp_scenario *sc,
                          struct gp_error *err)
{
    if (!json_is_object(root))
        return scenario_from_json(root, name_hint, sc, err);
    json_t *r = json_copy(root); /* shallow: the caller's value is left as given */
    if (!r)
        return gp_err(err, GP_ENOMEM, "out of memory reading the scenario");
    for (size_t i = 0; i < sizeof seed_aliases / sizeof seed_aliases[0]; i++) {
        json_t *v = json_object_get(r, seed_aliases[i][0]);
        if (!v)
            continue;
        if (json_object_get(r, seed_aliases[i][1])) {
            memset(sc, 0, sizeof *sc);
            json_decref(r);
            return gp_err(err, GP_EINVAL, "%s: '%s' and '%s' are the same setting; give one",
                          name_hint ? name_hint : "scenario", seed_aliases[i][0], seed_aliases[i][1]);
        }
        json_object_set(r, seed_aliases[i][1], v);
        json_object_del(r, seed_aliases[i][0]);
    }
    int rc = scenario_from_json(r, name_hint, sc, err);
    json_decref(r);
    return rc;
}

static int scenario_from_json(json_t *root, const char *name_hint, struct gp_scenario *sc, struct gp_error *err)
{
    memset(sc, 0, sizeof *sc);
    sc->streaming = 1;
    sc->exact_osl = 1;
    sc->ready_timeout_s = 900;
    sc->stop_timeout_s = 30;
    sc->telemetry_interval_s = 1;
    const char *nm = name_hint ? name_hint : "scenario";
    int r = 0;
    if (!json_is_object(root))
        return gp_err(err, GP_EINVAL, "%s: a scenario must be a mapping (model:, framework:, ...)", nm);
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        int ok = 0;
        for (const char *const *k = known_keys; *k; k++)
            ok |= !strcmp(*k, key);
        if (!ok)
            return gp_err(err, GP_EINVAL,
                          "%s: unknown key '%s' (known: name, model, tokenizer, framework, url, engine_args, "
                          "hardware, concurrency, isl, osl, requests, streaming, seed, api_key, artifact_dir, "
                          "host, port, ready_timeout_s, stop_timeout_s, telemetry_interval, db, profile_args, load, tool, search, "
                          "repeats, gpu_hour_cost, exact_osl, tool_call_parser; the seed's "
                          "input_sequence_length, output_sequence_length, num_requests, random_seed)",
                          nm, key);
    }
    if ((r = get_str(root, "name", &sc->name, nm, err)) || (r = get_str(root, "model", &sc->model, nm, err)) ||
        (r = get_str(root, "tokenizer", &sc->tokenizer, nm, err)) ||
        (r = get_str(root, "framework", &sc->framework, nm, err)) ||
        (r = get_str(root, "url", &sc->url, nm, err)) ||
        (r = get_str(root, "api_key", &sc->api_key, nm, err)) ||
        (r = get_str(root, "artifact_dir", &sc->artifact_dir, nm, err)) ||
        (r = get_str(root, "host", &sc->host, nm, err)) || (r = get_str(root, "db", &sc->db, nm, err)) ||
        (r = get_str(root, "tool_call_parser", &sc->tool_call_parser, nm, err)))
        goto fail;
    if (!sc->model) {
        r = gp_err(err, GP_EINVAL, "%s: 'model' is required (e.g. model: Qwen/Qwen3-8B)", nm);
        goto fail;
    }
    if (!sc->framework) {
        r = gp_err(err, GP_EINVAL, "%s: 'framework' is required: vllm, sglang, trtllm or attach", nm);
        goto fail;
    }
    if (!strcmp(sc->framework, "attach") && !sc->url) {
        r = gp_err(err, GP_EINVAL, "%s: framework 'attach' needs 'url' (e.g. url: http://127.0.0.1:8000)", nm);
        goto fail;
    }
    if (!sc->tokenizer)
        sc->tokenizer = strdup(sc->model);
    if (!sc->artifact_dir)
        sc->artifact_dir = strdup("artifacts");
    if (!sc->host)
        sc->host = strdup("127.0.0.1");
    if (!sc->name) {
        const char *b = sc->path ? sc->path : "scenario";
        sc->name = strdup(b);
    }
    json_t *ea = json_object_get(root, "engine_args");
    if (ea && !json_is_null(ea) && !json_is_object(ea)) {
        r = gp_err(err, GP_EINVAL, "%s: 'engine_args' must be a mapping of engine flag names to values", nm);
        goto fail;
    }
    sc->engine_args = (ea && json_is_object(ea)) ? json_deep_copy(ea) : json_object();
    json_t *hw = json_object_get(root, "hardware");
    double gpus = 0;
    if (hw && json_is_object(hw)) {
        if ((r = get_num(hw, "gpus", &gpus, 1, nm, err)) || (r = get_str(hw, "name", &sc->hardware_name, nm, err)))
            goto fail;
    } else if (hw && !json_is_null(hw)) {
        r = gp_err(err, GP_EINVAL, "%s: 'hardware' must be a mapping like {gpus: 2, name: H200}", nm);
        goto fail;
    }
    if ((r = get_num(root, "gpus", &gpus, 1, nm, err)))
        goto fail;
    sc->gpus = (int)gpus;
    if ((r = get_list(root, "concurrency", sc->concurrency, &sc->n_concurrency, 0, nm, err)) ||
        (r = get_list(root, "isl", sc->isl, &sc->n_isl, 0, nm, err)) ||
        (r = get_list(root, "osl", sc->osl, &sc->n_osl, 0, nm, err)))
        goto fail;
    double d = 0;
    if ((r = get_num(root, "requests", &d, 1, nm, err)))
        goto fail;
    sc->requests = (long)d;
    d = 0;
    if ((r = get_num(root, "repeats", &d, 1, nm, err)))
        goto fail;
    sc->repeats = d > 0 ? (long)d : 1;
    if (sc->repeats > 1 && json_object_get(root, "search")) {
        r = gp_err(err, GP_EINVAL, "%s: 'repeats' runs each sweep cell again; a search picks its own loads: drop "
                   "one of them", nm);
        goto fail;
    }
    d = 0;
    if ((r = get_num(root, "seed", &d, 0, nm, err)))
        goto fail;
    sc->seed = (long)d;
    d = 0;
    if ((r = get_num(root, "port", &d, 1, nm, err)))
        goto fail;
    if (d > 65535) {
        r = gp_err(err, GP_EINVAL, "%s: 'port' must be 1..65535", nm);
        goto fail;
    }
    sc->port = (int)d;
    if ((r = get_num(root, "ready_timeout_s", &sc->ready_timeout_s, 0.1, nm, err)) ||
        (r = get_num(root, "stop_timeout_s", &sc->stop_timeout_s, 0, nm, err)) ||
        (r = get_num(root, "telemetry_interval", &sc->telemetry_interval_s, 0.01, nm, err)) ||
        (r = get_num(root, "gpu_hour_cost", &sc->gpu_hour_cost, 0, nm, err)))
        goto fail;
    if (json_object_get(root, "gpu_hour_cost") && !json_is_null(json_object_get(root, "gpu_hour_cost")) &&
        !(sc->gpu_hour_cost > 0)) {
        r = gp_err(err, GP_EINVAL, "%s: 'gpu_hour_cost' must be the positive price in US dollars of one GPU for one "
                   "hour (e.g. 2.50)", nm);
        goto fail;
    }
    json_t *st = json_object_get(root, "streaming");
    if (st && !json_is_null(st)) {
        if (!json_is_boolean(st)) {
            r = gp_err(err, GP_EINVAL, "%s: 'streaming' must be true or false", nm);
            goto fail;
        }
        sc->streaming = json_is_true(st);
    }
    json_t *eo = json_object_get(root, "exact_osl");
    if (eo && !json_is_null(eo)) {
        if (!json_is_boolean(eo)) {
            r = gp_err(err, GP_EINVAL, "%s: 'exact_osl' must be true (send ignore_eos so every response has the "
                       "cell's OSL) or false (let the model stop at EOS)", nm);
            goto fail;
        }
        sc->exact_osl = json_is_true(eo);
    }
    json_t *pa = json_object_get(root, "profile_args");
    if (pa && !json_is_null(pa)) {
        size_t i;
        json_t *x;
        if (!json_is_array(pa)) {
            r = gp_err(err, GP_EINVAL, "%s: 'profile_args' must be a list of strings", nm);
            goto fail;
        }
        json_array_foreach(pa, i, x) if (!json_is_string(x))
        {
            r = gp_err(err, GP_EINVAL, "%s: 'profile_args' must be a list of strings", nm);
            goto fail;
        }
        /* a cell's runs must be where the runner finds and ingests them */
        json_array_foreach(pa, i, x) if (!strncmp(json_string_value(x), "--num-runs", 10))
        {
            r = gp_err(err, GP_EINVAL, "%s: 'profile_args' has --num-runs; write 'repeats: N' instead (each run "
                       "is then found, summarised and ingested)", nm);
            goto fail;
        }
        sc->profile_args = json_incref(pa);
    }
    if ((r = parse_load(root, sc, nm, err)) || (r = get_tool(root, sc, nm, err)) || (r = get_search(root, sc, nm, err)))
        goto fail;
    return 0;
fail:
    gp_scenario_free(sc);
    return r ? r : -GP_EINVAL;
}

int gp_scenario_load(const char *path, struct gp_scenario *sc, struct gp_error *err)
{
    json_t *root = gp_yaml_load_file(path, err);
    if (!root)
        return -(err && err->code ? err->code : GP_EINVAL);
    int has_name = json_is_object(root) && json_object_get(root, "name") != NULL;
    int r = gp_scenario_from_json(root, path, sc, err);
    json_decref(root);
    if (r)
        return r;
    sc->path = strdup(path);
    if (!has_name) {
        /* default name: the file name without directory and extension */
        const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        char *n = strdup(b);
        char *dot = strrchr(n, '.');
        if (dot && dot != n)
            *dot = '\0';
        free(sc->name);
        sc->name = n;
    }
    return 0;
}

void gp_scenario_free(struct gp_scenario *sc)
{
    free(sc->path);
    free(sc->name);
    free(sc->model);
    free(sc->tokenizer);
    free(sc->framework);
    free(sc->url);
    free(sc->hardware_name);
    free(sc->api_key);
    free(sc->artifact_dir);
    free(sc->host);
    free(sc->db);
    free(sc->tool_call_parser);
    json_decref(sc->engine_args);
    json_decref(sc->profile_args);
    json_decref(sc->hosts);
    json_decref(sc->mpirun_args);
    free(sc->tool);
    json_decref(sc->tool_command);
    json_decref(sc->search);
    memset(sc, 0, sizeof *sc);
}

const char *gp_scenario_served_model(const struct gp_scenario *sc)
{
    const char *s = json_string_value(json_object_get(sc->engine_args, "served_model_name"));
    return s && *s ? s : sc->model;
}

size_t gp_scenario_n_cells(const struct gp_scenario *sc)
{
    return sc->n_concurrency * sc->n_isl * sc->n_osl;
}

struct gp_cell gp_scenario_cell(const struct gp_scenario *sc, size_t i)
{
    struct gp_cell c;
    size_t o = i % sc->n_osl, rest = i / sc->n_osl;
    c.osl = sc->osl[o];
    c.isl = sc->isl[rest % sc->n_isl];
    c.concurrency = sc->concurrency[rest / sc->n_isl];
    c.requests = sc->requests ? sc->requests : (c.concurrency * 10 > 200 ? c.concurrency * 10 : 200);
    return c;
}
