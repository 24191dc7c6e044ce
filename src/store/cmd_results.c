/* store/cmd_results.c — `genperf results` (PLACEHOLDER: replaced by the issue that builds it). */
#include "commands.h"

#include <stdio.h>

int cmd_results(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "genperf results: not implemented yet\n");
    return 2;
}
