/* profile/test_support.h — for the profile unit tests only: parse() runs the
 * `profile` flag parser over a NULL-terminated list of arguments (after
 * "profile"), as `genai-perf profile ARGS...` would. The argv array is
 * static: one call at a time, the strings are borrowed. */
#ifndef GP_PROFILE_TEST_SUPPORT_H
#define GP_PROFILE_TEST_SUPPORT_H

#include "core/error.h"
#include "profile/profile_config.h"

#include <stdarg.h>
#include <stddef.h>

#define MAXA 128

static int parse(struct profile_config *cfg, struct gp_error *err, ...)
{
    static char *argv[MAXA];
    int argc = 0;
    argv[argc++] = "profile";
    va_list ap;
    va_start(ap, err);
    char *a;
    while ((a = va_arg(ap, char *)) && argc < MAXA - 1)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    gp_profile_config_init(cfg);
    gp_err_clear(err);
    return gp_profile_parse(cfg, argc, argv, "genai-perf profile", err);
}

#endif
