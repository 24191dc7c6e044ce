/* store/cmd_ingest.c — `genperf ingest` (PLACEHOLDER: replaced by the issue that builds it). */
#include "commands.h"

#include <stdio.h>

int cmd_ingest(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "genperf ingest: not implemented yet\n");
    return 2;
}
