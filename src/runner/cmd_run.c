/* runner/cmd_run.c — `genperf run` (PLACEHOLDER: replaced by the issue that builds it). */
#include "commands.h"

#include <stdio.h>

int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "genperf run: not implemented yet\n");
    return 2;
}
