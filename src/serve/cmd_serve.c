/* serve/cmd_serve.c — `genperf serve` (PLACEHOLDER: replaced by the issue that builds it). */
#include "commands.h"

#include <stdio.h>

int cmd_serve(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "genperf serve: not implemented yet\n");
    return 2;
}
