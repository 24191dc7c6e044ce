/* Fuzz target: arbitrary bytes as an --input-file JSONL or payload: trace (build: make fuzz-dataset). */
#include "core/error.h"
#include "core/fsutil.h"
#include "dataset/dataset.h"
#include "tokenizer/tokenizer.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/gp-fuzz-jsonl-%d.jsonl", (int)getpid());
    if (gp_write_file_atomic(path, data, size, NULL))
        return 0;
    struct gp_tokenizer *tok = NULL;
    if (gp_tokenizer_load("builtin", NULL, &tok, NULL))
        return 0;
    static const char *const models[] = {"m"};
    struct gp_dataset_opts o;
    memset(&o, 0, sizeof o);
    o.models = models;
    o.n_models = 1;
    o.osl_mean = 10;
    /* odd first byte: the same bytes as a payload: trace file */
    char spec[80];
    snprintf(spec, sizeof spec, "%s%s", size && (data[0] & 1) ? "payload:" : "", path);
    o.input_file = spec;
    struct gp_dataset *ds = NULL;
    struct gp_error err;
    if (gp_dataset_build(&o, tok, &ds, &err) == 0) {
        char out[80];
        snprintf(out, sizeof out, "%s.out", path);
        gp_dataset_write_inputs_json(ds, out, NULL);
        unlink(out);
        gp_dataset_free(ds);
    }
    gp_tokenizer_free(tok);
    unlink(path);
    return 0;
}
