/* cli/stub/dataset_stub.c — BUILD FALLBACK, compiled only while the tree has
 * no dataset implementation (see src/cli/module.mk). It builds GenAI-Perf
 * shaped bodies with a fixed filler prompt ("a " repeated isl_mean times), so
 * that `genperf profile` and its end-to-end tests run before the dataset
 * module lands. It is not the synthetic prompt generator: once any
 * C file under src/dataset/ defines gp_dataset_build this file is no longer built.
 * Owns: the dataset it returns (gp_dataset_free).
 */
#include "dataset/dataset.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <stdlib.h>
#include <string.h>

int gp_dataset_build(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset **out,
                     struct gp_error *err)
{
    (void)tok;
    long n = o->num_entries > 0 ? o->num_entries : 100;
    struct gp_dataset *ds = calloc(1, sizeof *ds);
    if (!ds || !(ds->entries = calloc((size_t)n, sizeof *ds->entries))) {
        free(ds);
        return gp_err(err, GP_ENOMEM, "out of memory");
    }
    long isl = o->isl_mean > 0 ? o->isl_mean : 1;
    char *text = malloc((size_t)isl * 2 + 1);
    if (!text) {
        free(ds->entries);
        free(ds);
        return gp_err(err, GP_ENOMEM, "out of memory");
    }
    for (long i = 0; i < isl; i++)
        memcpy(text + 2 * i, "a ", 2);
    text[2 * isl - 1] = '\0';
    for (long i = 0; i < n; i++) {
        json_t *p = json_object();
        json_object_set_new(p, "model", json_string(o->models[(size_t)i % o->n_models]));
        if (o->endpoint_type == GP_ENDPOINT_CHAT)
            json_object_set_new(p, "messages", json_pack("[{s:s, s:s}]", "role", "user", "content", text));
        else
            json_object_set_new(p, "prompt", json_string(text));
        if (o->streaming)
            json_object_set_new(p, "stream", json_true());
        if (o->osl_mean > 0)
            json_object_set_new(p, "max_tokens", json_integer(o->osl_mean));
        if (o->osl_mean > 0 && o->osl_deterministic) {
            json_object_set_new(p, "min_tokens", json_integer(o->osl_mean));
            json_object_set_new(p, "ignore_eos", json_true());
        }
        if (o->extra_inputs)
            json_object_update(p, (json_t *)o->extra_inputs);
        if (o->streaming && o->include_usage && !json_object_get(p, "stream_options"))
            json_object_set_new(p, "stream_options", json_pack("{s:b}", "include_usage", 1));
        ds->entries[i].payload = json_dumps(p, JSON_COMPACT | JSON_PRESERVE_ORDER);
        ds->entries[i].payload_len = strlen(ds->entries[i].payload);
        ds->entries[i].isl = (int32_t)(2 * isl - 1);
        ds->entries[i].osl_asked = o->osl_mean > 0 ? (int32_t)o->osl_mean : -1;
        json_decref(p);
    }
    ds->n = (size_t)n;
    free(text);
    *out = ds;
    return 0;
}

int gp_dataset_write_inputs_json(const struct gp_dataset *ds, const char *path, struct gp_error *err)
{
    json_t *data = json_array();
    for (size_t i = 0; i < ds->n; i++)
        json_array_append_new(data, json_pack("{s:[o]}", "payload", json_loads(ds->entries[i].payload, 0, NULL)));
    json_t *root = json_pack("{s:o}", "data", data);
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    json_decref(root);
    if (!s)
        return gp_err(err, GP_ENOMEM, "out of memory writing %s", path);
    int rc = gp_write_file_atomic(path, s, strlen(s), err);
    free(s);
    return rc;
}

void gp_dataset_free(struct gp_dataset *ds)
{
    if (!ds)
        return;
    for (size_t i = 0; i < ds->n; i++)
        free(ds->entries[i].payload);
    free(ds->entries);
    free(ds);
}
