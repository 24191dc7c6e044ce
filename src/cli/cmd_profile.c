/* cli/cmd_profile.c — `genperf profile` (PLACEHOLDER: replaced by the issue that builds it). */
#include "commands.h"

#include <stdio.h>

int cmd_profile(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "genperf profile: not implemented yet\n");
    return 2;
}
