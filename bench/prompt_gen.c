/* bench/prompt_gen.c — times gp_dataset_build for N synthetic prompts of L
 * tokens (default 10,000 x 4,096) and re-encodes a spread sample of 200 prompts (all with --verify-all).
 *
 *   prompt_gen [--tokenizer SPEC] [-n N] [--isl L] [--seed S] [--inputs PATH] [--no-verify|--verify-all]
 *              [--input-file JSONL] [--extra JSON-OBJECT] [--osl N] [--stream] [--server-usage]
 *              [--endpoint-type chat|completions|multimodal|embeddings|rankings] [-b N]
 *              [--image WxH[:SDW,SDH]] [--image-format png|jpeg] [--batch-size-image N]
 *              [--audio SECONDS] [--batch-size-audio N]
 * (the options after --verify-all make it a small inputs.json generator for the e2e tests)
 *
 * Prints one line: "prompt_gen: N prompts x L tokens (tokenizer T): X.XXX s build, ..."
 * Exit 1 if any prompt's re-encoded count differs from L. */
#include "core/clock.h"
#include "core/error.h"
#include "dataset/dataset.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CPU seconds of this process: the figure that matters on a shared machine,
 * where wall time includes waiting for a core. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *spec = "builtin", *inputs = NULL;
    long n = 10000, isl = 4096;
    unsigned long long seed = 0;
    int verify = 1, verify_all = 0, stream = 0, usage = 0, etype = GP_ENDPOINT_CHAT;
    long bt = 0, bi = 0, ba = 0, iw = 0, ih = 0, isw = 0, ish = 0;
    double alen = 0;
    enum gp_image_format ifmt = GP_IMAGE_PNG;
    static const char *const etypes[] = {"chat", "completions", "multimodal", "embeddings", "rankings"};
    long osl = -1;
    const char *input_file = NULL, *extra = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tokenizer") && i + 1 < argc)
            spec = argv[++i];
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--isl") && i + 1 < argc)
            isl = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--inputs") && i + 1 < argc)
            inputs = argv[++i];
        else if (!strcmp(argv[i], "--no-verify"))
            verify = 0;
        else if (!strcmp(argv[i], "--verify-all"))
            verify_all = 1;
        else if (!strcmp(argv[i], "--input-file") && i + 1 < argc)
            input_file = argv[++i];
        else if (!strcmp(argv[i], "--extra") && i + 1 < argc)
            extra = argv[++i];
        else if (!strcmp(argv[i], "--osl") && i + 1 < argc)
            osl = atol(argv[++i]);
        else if (!strcmp(argv[i], "--stream"))
            stream = 1;
        else if (!strcmp(argv[i], "--server-usage"))
            usage = 1;
        else if (!strcmp(argv[i], "--endpoint-type") && i + 1 < argc) {
            const char *t = argv[++i];
            for (etype = 4; etype > 0 && strcmp(t, etypes[etype]); etype--)
                ;
        } else if (!strcmp(argv[i], "-b") && i + 1 < argc)
            bt = atol(argv[++i]);
        else if (!strcmp(argv[i], "--batch-size-image") && i + 1 < argc)
            bi = atol(argv[++i]);
        else if (!strcmp(argv[i], "--batch-size-audio") && i + 1 < argc)
            ba = atol(argv[++i]);
        else if (!strcmp(argv[i], "--image") && i + 1 < argc)
            sscanf(argv[++i], "%ldx%ld:%ld,%ld", &iw, &ih, &isw, &ish);
        else if (!strcmp(argv[i], "--image-format") && i + 1 < argc)
            ifmt = !strcmp(argv[++i], "jpeg") ? GP_IMAGE_JPEG : GP_IMAGE_PNG;
        else if (!strcmp(argv[i], "--audio") && i + 1 < argc)
            alen = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--tokenizer SPEC] [-n N] [--isl L] [--seed S] [--inputs PATH] [--no-verify|--verify-all]\n",
                    argv[0]);
            return 2;
        }
    }
    struct gp_error err = {0};
    struct gp_tokenizer *tok = NULL;
    uint64_t t0 = gp_now_ns();
    if (gp_tokenizer_load(spec, NULL, &tok, &err)) {
        fprintf(stderr, "prompt_gen: %s\n", err.msg);
        return 1;
    }
    uint64_t t1 = gp_now_ns();
    double c1 = cpu_s();
    static const char *const models[] = {"bench-model"};
    struct gp_dataset_opts o;
    memset(&o, 0, sizeof o);
    o.models = models;
    o.n_models = 1;
    o.isl_mean = isl;
    o.osl_mean = osl;
    o.num_entries = n;
    o.seed = seed;
    o.streaming = stream;
    o.server_usage = usage;
    o.endpoint_type = (enum gp_endpoint_type)etype;
    o.batch_size_text = bt;
    o.batch_size_image = bi;
    o.batch_size_audio = ba;
    o.image = (struct gp_image_opts){.width_mean = iw, .height_mean = ih, .width_stddev = isw, .height_stddev = ish,
                                     .format = ifmt};
    o.audio.length_mean = alen;
    if (etype != GP_ENDPOINT_CHAT)
        verify = 0; /* the check below reads chat bodies */
    o.input_file = input_file;
    json_t *extra_obj = NULL;
    if (extra) {
        json_error_t je;
        extra_obj = json_loads(extra, 0, &je);
        if (!json_is_object(extra_obj)) {
            fprintf(stderr, "prompt_gen: --extra must be a JSON object: %s\n", je.text);
            return 2;
        }
        o.extra_inputs = extra_obj;
        verify = 0;
    }
    if (input_file)
        verify = 0; /* file prompts have no asked length to check */
    struct gp_dataset *ds = NULL;
    if (gp_dataset_build(&o, tok, &ds, &err)) {
        fprintf(stderr, "prompt_gen: %s\n", err.msg);
        return 1;
    }
    uint64_t t2 = gp_now_ns();
    double c2 = cpu_s();
    size_t bytes = 0;
    for (size_t i = 0; i < ds->n; i++)
        bytes += ds->entries[i].payload_len;
    long bad = 0;
    long checked = 0;
    if (verify) {
        /* Re-encoding everything would take far longer than generating;
         * check a spread sample unless --verify-all. */
        size_t step = verify_all || ds->n <= 200 ? 1 : ds->n / 200;
        for (size_t i = 0; i < ds->n; i += step) {
            checked++;
            json_t *b = json_loads(ds->entries[i].payload, 0, NULL);
            json_t *c = json_object_get(json_array_get(json_object_get(b, "messages"), 0), "content");
            struct gp_ids ids = {0};
            if (!c || gp_tokenizer_encode(tok, json_string_value(c), json_string_length(c), 0, &ids, NULL) < 0 ||
                (long)ids.n != isl)
                bad++;
            gp_ids_free(&ids);
            json_decref(b);
        }
    }
    uint64_t t3 = gp_now_ns();
    if (inputs && gp_dataset_write_inputs_json(ds, inputs, &err)) {
        fprintf(stderr, "prompt_gen: %s\n", err.msg);
        return 1;
    }
    printf("prompt_gen: %ld prompts x %ld tokens (tokenizer %s): %.3f s build, %.3f s CPU (goal < 2 s for "
           "10000 x 4096), %.3f s tokenizer load, %.1f MB payloads, re-encoded %ld prompts: %s (%.3f s)\n",
           n, isl, gp_tokenizer_source(tok), (double)(t2 - t1) / 1e9, c2 - c1, (double)(t1 - t0) / 1e9, (double)bytes / 1e6,
           checked, verify ? (bad ? "FAILED" : "all exact") : "skipped", (double)(t3 - t2) / 1e9);
    printf("figures: cpu=%.3f wall=%.3f\n", c2 - c1, (double)(t2 - t1) / 1e9);
    if (verify && bad)
        fprintf(stderr, "prompt_gen: %ld prompts had the wrong token count (%.3f s to check)\n", bad,
                (double)(t3 - t2) / 1e9);
    gp_dataset_free(ds);
    json_decref(extra_obj);
    gp_tokenizer_free(tok);
    return bad ? 1 : 0;
}
