/* store/cmd_query.c — `genperf query` (PLACEHOLDER: replaced by the issue that builds it). */
#include "commands.h"

#include <stdio.h>

int cmd_query(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "genperf query: not implemented yet\n");
    return 2;
}
