/* tokenizer/cmd_tokenize.c — `genperf tokenize` (PLACEHOLDER: replaced by the issue that builds it). */
#include "commands.h"

#include <stdio.h>

int cmd_tokenize(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "genperf tokenize: not implemented yet\n");
    return 2;
}
