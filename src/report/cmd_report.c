/* report/cmd_report.c — `genperf report` (PLACEHOLDER: replaced by the issue that builds it). */
#include "commands.h"

#include <stdio.h>

int cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "genperf report: not implemented yet\n");
    return 2;
}
