/* telemetry/cmd_telemetry.c — `genperf telemetry` (PLACEHOLDER: replaced by the issue that builds it). */
#include "commands.h"

#include <stdio.h>

int cmd_telemetry(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "genperf telemetry: not implemented yet\n");
    return 2;
}
