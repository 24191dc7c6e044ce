/* profile/fuzz_profile_args.c — libFuzzer target for the `profile` flag parser:
 * the input is split on NUL bytes into argv; parsing must never crash, leak
 * or read out of bounds, and a successful parse must yield a run directory
 * name and an input_config. Build: make fuzz-profile-args. */
#include "profile/profile_config.h"
#include "core/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[130];
    int argc = 0;
    argv[argc++] = "profile";
    for (size_t i = 0; i <= size && argc < 129;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    struct profile_config cfg;
    struct gp_error err;
    gp_profile_config_init(&cfg);
    if (gp_profile_parse(&cfg, argc, argv, "genai-perf profile", &err) == 0 && !cfg.help) {
        char dir[4096];
        gp_profile_run_dir(&cfg, dir, sizeof dir);
        json_t *ic = gp_profile_input_config(&cfg);
        json_decref(ic);
    }
    gp_profile_config_free(&cfg);
    free(buf);
    return 0;
}
