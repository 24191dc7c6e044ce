/* report/cmd_ui.c — `genperf ui` (PLACEHOLDER: replaced by the issue that builds it). */
#include "commands.h"

#include <stdio.h>

int cmd_ui(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "genperf ui: not implemented yet\n");
    return 2;
}
