/* runner/fuzz_scenario.c — libFuzzer target for what `genperf run` reads from
 * the user: arbitrary bytes as a scenario file (YAML or JSON) through the
 * YAML-to-JSON reader and the scenario validator; a scenario that loads is
 * expanded into its cells and, for a built-in framework, rendered into the
 * server command line (recipe placeholders filled from the fuzzed values).
 * Odd first byte: the same bytes are also read as a recipe file (the other
 * YAML genperf run loads) and rendered for a fixed scenario.
 * Any input must end in a clean error or a result, never a crash or leak.
 * Build and run: make fuzz F=runner. Seeds: tests/fuzz/runner_fuzz_scenario/. */
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "runner/recipe.h"
#include "runner/scenario.h"
#include "runner/yamljson.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void render(const struct gp_recipe *r, const struct gp_scenario *sc)
{
    struct gp_argv argv = {0};
    struct gp_buf sh = {0};
    if (gp_recipe_render(r, sc, sc->gpus > 0 ? sc->gpus : 1, sc->port, &argv, NULL) == 0)
        gp_argv_to_shell(&argv, &sh);
    gp_argv_free(&argv);
    gp_buf_free(&sh);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* one scratch directory per process: <dir>/s.yaml is the scenario,
     * <dir>/fz.yaml the recipe (framework "fz") */
    static char dir[128];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/gp-fuzz-scenario.%ld", (long)getpid());
        if (gp_mkdir_p(dir, NULL))
            abort();
    }
    char path[256];
    snprintf(path, sizeof path, "%s/s.yaml", dir);
    if (gp_write_file_atomic(path, data, size, NULL))
        return 0;

    struct gp_scenario sc;
    memset(&sc, 0, sizeof sc);
    if (gp_scenario_load(path, &sc, NULL) == 0) {
        size_t n = gp_scenario_n_cells(&sc);
        for (size_t i = 0; i < n && i < 4096; i++) {
            struct gp_cell c = gp_scenario_cell(&sc, i);
            if (c.concurrency < 0 || c.isl < 0 || c.osl < 0 || c.requests < 0)
                abort();
        }
        struct gp_recipe r;
        if (sc.framework && gp_recipe_load(sc.framework, NULL, &r, NULL) == 0) {
            render(&r, &sc);
            gp_recipe_free(&r);
        }
        gp_scenario_free(&sc);
    }

    if (size && (data[0] & 1)) {
        char rpath[256];
        snprintf(rpath, sizeof rpath, "%s/fz.yaml", dir);
        if (rename(path, rpath) == 0) {
            static const char scen[] = "model: m\nframework: fz\nengine_args: {a: 1, b: true, c: x}\n"
                                       "concurrency: [1, 2]\nisl: 8\nosl: 8\napi_key: K\n";
            json_t *root = gp_yaml_load_string(scen, sizeof scen - 1, "fixed.yaml", NULL);
            struct gp_recipe r;
            memset(&sc, 0, sizeof sc);
            if (root && gp_scenario_from_json(root, "fixed.yaml", &sc, NULL) == 0) {
                if (gp_recipe_load("fz", dir, &r, NULL) == 0) {
                    render(&r, &sc);
                    gp_recipe_free(&r);
                }
                gp_scenario_free(&sc);
            }
            json_decref(root);
            unlink(rpath);
        }
    }
    unlink(path);
    return 0;
}
