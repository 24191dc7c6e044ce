/* profile/test_profile_flags.c — every flag of GenAI-Perf 0.0.16's `profile`
 * parser (parser.py _parse_profile_args, every spelling) is accepted at its
 * default; the image/audio/batch flags land in the config with GenAI-Perf's
 * validation; the endpoint types genperf speaks map to their paths and the
 * rest are refused with one line naming the spoken ones. */
#include "profile/profile_config.h"
#include "client/record.h"
#include "core/error.h"
#include "core/test.h"
#include "profile/profile_int.h"
#include "profile/test_support.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* parser.py at 0.0.16: (spelling, a value GenAI-Perf accepts there, at its
 * default where it has one; NULL for store_true flags). -h/--help and
 * --backend (GenAI-Perf refuses it for OpenAI endpoints) are checked apart. */
static const char *const flags[][2] = {
    /* Audio Input */
    {"--audio-length-mean", "0"}, {"--audio-length-stddev", "0"}, {"--audio-format", "wav"},
    {"--audio-depths", "16"}, {"--audio-sample-rates", "16"}, {"--audio-num-channels", "1"},
    /* Endpoint */
    {"-m", "m"}, {"--model", "m"}, {"--model-selection-strategy", "round_robin"}, {"--endpoint", "v1/chat/completions"},
    {"--endpoint-type", "chat"}, {"--server-metrics-url", "http://localhost:9400/metrics"},
    {"--server-metrics-urls", "http://localhost:9400/metrics"}, {"--streaming", NULL}, {"-u", "localhost:8000"},
    {"--url", "localhost:8000"},
    /* Image Input */
    {"--image-width-mean", "0"}, {"--image-width-stddev", "0"}, {"--image-height-mean", "0"},
    {"--image-height-stddev", "0"}, {"--image-format", "png"},
    /* Input */
    {"--batch-size-audio", "1"}, {"--batch-size-image", "1"}, {"--batch-size-text", "1"}, {"--batch-size", "1"},
    {"-b", "1"}, {"--extra-inputs", "max_tokens:8"}, {"--goodput", "request_latency:100"}, {"-g", "request_latency:100"},
    {"--header", "X-A: b"}, {"-H", "X-A: b"}, {"--input-file", "synthetic:queries,passages"},
    {"--num-dataset-entries", "100"}, {"--num-prompts", "100"}, {"--num-prefix-prompts", "0"},
    {"--output-tokens-mean", "16"}, {"--osl", "16"},
    {"--output-tokens-stddev", "0"}, {"--random-seed", "0"}, {"--grpc-method", ""},
    {"--synthetic-input-tokens-mean", "550"}, {"--isl", "550"}, {"--synthetic-input-tokens-stddev", "0"},
    {"--prefix-prompt-length", "100"}, {"--warmup-request-count", "0"}, {"--num-warmup-requests", "0"},
    /* Other */
    {"-v", NULL}, {"--verbose", NULL},
    /* Output */
    {"--artifact-dir", "artifacts"}, {"--checkpoint-dir", "checkpoint"}, {"--generate-plots", NULL},
    {"--enable-checkpointing", NULL}, {"--profile-export-file", "profile_export.json"},
    /* Profiling */
    {"--concurrency", "1"}, {"--measurement-interval", "10000"}, {"-p", "10000"}, {"--request-count", "10"},
    {"--num-requests", "10"}, {"--request-rate", "1"}, {"--fixed-schedule", ""}, {"-s", "999"},
    {"--stability-percentage", "999"},
    /* Session */
    {"--num-sessions", "0"}, {"--session-concurrency", "0"}, {"--session-delay-ratio", "1.0"},
    {"--session-turn-delay-mean", "0"}, {"--session-turn-delay-stddev", "0"}, {"--session-turns-mean", "1"},
    {"--session-turns-stddev", "0"},
    /* Tokenizer */
    {"--tokenizer", "builtin"}, {"--tokenizer-revision", "main"}, {"--tokenizer-trust-remote-code", NULL},
};

static void test_every_genai_perf_flag_parses(void)
{
    struct profile_config c;
    struct gp_error e;
    size_t n = sizeof flags / sizeof flags[0];
    CHECK_INT(n, 72); /* + --backend and --output-tokens-mean-deterministic below = the 74 spellings of
                       * parser.py; -h/--help are argparse's */
    for (size_t i = 0; i < n; i++) {
        const char *f = flags[i][0], *v = flags[i][1];
        /* "-m m" first so -m/--model rows test the repeat; an output mean
         * because output-token flags need one */
        int rc = v ? parse(&c, &e, "-m", "m", "--osl", "16", (char *)f, (char *)v, NULL)
                   : parse(&c, &e, "-m", "m", "--osl", "16", (char *)f, NULL);
        if (rc != 0)
            fprintf(stderr, "  %s %s: %s\n", f, v ? v : "", e.msg);
        CHECK_INT(rc, 0);
        gp_profile_config_free(&c);
    }
    CHECK_INT(parse(&c, &e, "-m", "m", "-h", NULL), 0);
    CHECK_INT(c.help, 1);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--backend", "vllm", NULL) < 0);
    CHECK(strstr(e.msg, "The backend should only be used") != NULL);
    gp_profile_config_free(&c);
    /* parsed (argparse knows it), then refused for OpenAI as GenAI-Perf does */
    CHECK(parse(&c, &e, "-m", "m", "--osl", "16", "--output-tokens-mean-deterministic", NULL) < 0);
    CHECK(strstr(e.msg, "only supported with Triton or TensorRT-LLM Engine service kinds") != NULL);
    CHECK_INT(c.usage_error, 0);
    gp_profile_config_free(&c);
}

static void test_media_flags_land(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "m", "--endpoint-type", "multimodal", "--image-width-mean", "64",
                    "--image-width-stddev", "4", "--image-height-mean", "48", "--image-height-stddev", "2",
                    "--image-format", "jpeg", "--batch-size-image", "3", "--audio-length-mean", "1.5",
                    "--audio-length-stddev", "0.25", "--audio-depths", "8", "16", "--audio-sample-rates", "16",
                    "44.1", "--audio-num-channels", "2", "--batch-size-audio", "2", NULL),
              0);
    CHECK_INT(c.image_width_mean, 64);
    CHECK_INT(c.image_width_stddev, 4);
    CHECK_INT(c.image_height_mean, 48);
    CHECK_INT(c.image_height_stddev, 2);
    CHECK_INT(c.image_jpeg, 1);
    CHECK_INT(c.batch_size_image, 3);
    CHECK_NEAR(c.audio_length_mean, 1.5, 0);
    CHECK_NEAR(c.audio_length_stddev, 0.25, 0);
    CHECK_INT(c.n_audio_depths, 2);
    CHECK_INT(c.audio_depths[1], 16);
    CHECK_INT(c.n_audio_sample_rates, 2);
    CHECK_NEAR(c.audio_sample_rates[1], 44.1, 1e-12);
    CHECK_INT(c.audio_num_channels, 2);
    CHECK_INT(c.batch_size_audio, 2);
    struct gp_image_opts img;
    struct gp_audio_opts aud;
    gp_profile_media_opts(&c, &img, &aud);
    CHECK_INT(img.format, GP_IMAGE_JPEG);
    CHECK_INT(img.height_mean, 48);
    CHECK_INT(aud.n_sample_rates, 2);
    CHECK_INT(aud.num_channels, 2);
    json_t *ic = gp_profile_input_config(&c);
    json_t *in = json_object_get(ic, "input");
    char *a = json_dumps(json_object_get(in, "audio"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    char *i = json_dumps(json_object_get(in, "image"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK_STR(a, "{\"batch_size\":2,\"length\":{\"mean\":1.5,\"stddev\":0.25},\"format\":\"wav\",\"depths\":[8,16],"
                 "\"sample_rates\":[16.0,44.100000000000001],\"num_channels\":2}");
    CHECK_STR(i, "{\"width\":{\"mean\":64,\"stddev\":4},\"height\":{\"mean\":48,\"stddev\":2},\"batch_size\":3,"
                 "\"format\":\"jpeg\"}");
    free(a);
    free(i);
    json_decref(ic);
    gp_profile_config_free(&c);

    /* defaults as GenAI-Perf writes them; "--audio-depths" with no value keeps [16] (nargs='*') */
    CHECK_INT(parse(&c, &e, "-m", "m", "--audio-depths", "--audio-sample-rates", NULL), 0);
    ic = gp_profile_input_config(&c);
    in = json_object_get(ic, "input");
    a = json_dumps(json_object_get(in, "audio"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK_STR(a, "{\"batch_size\":1,\"length\":{\"mean\":0,\"stddev\":0},\"format\":\"wav\",\"depths\":[16],"
                 "\"sample_rates\":[16],\"num_channels\":1}");
    free(a);
    json_decref(ic);
    gp_profile_config_free(&c);
}

static void test_media_validation(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK(parse(&c, &e, "-m", "m", "--audio-num-channels", "3", NULL) < 0);
    CHECK_INT(c.usage_error, 1);
    CHECK_STR(e.msg, "argument --audio-num-channels: invalid choice: 3 (choose from 1, 2)");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--image-format", "gif", NULL) < 0);
    CHECK_STR(e.msg, "argument --image-format: invalid choice: 'gif' (choose from 'png', 'jpeg')");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--audio-depths", "16", "x", NULL) < 0);
    CHECK_INT(c.usage_error, 1);
    CHECK_STR(e.msg, "argument --audio-depths: invalid int value: 'x'");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--audio-depths", "0", NULL) < 0);
    CHECK_INT(c.usage_error, 0);
    CHECK_STR(e.msg, "User Config: 0 exceeds lower bounds ({'lower': 1})");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--audio-sample-rates", "0.5", NULL) < 0);
    CHECK_STR(e.msg, "User Config: 0.5 exceeds lower bounds ({'lower': 1})");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--audio-length-mean", "-1", NULL) < 0);
    CHECK_STR(e.msg, "User Config: -1.0 exceeds lower bounds ({'lower': 0})");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--image-width-mean", "-3", NULL) < 0);
    CHECK_STR(e.msg, "User Config: -3 exceeds lower bounds ({'lower': 0})");
    gp_profile_config_free(&c);
    /* zeros keep the defaults (GenAI-Perf copies truthy values only) */
    CHECK_INT(parse(&c, &e, "-m", "m", "--batch-size-image", "0", "--audio-num-channels", "1", NULL), 0);
    CHECK_INT(c.batch_size_image, 1);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--grpc-method", "pkg.Svc/Call", NULL) < 0);
    CHECK_INT(e.code, GP_ENOTSUP);
    CHECK(strstr(e.msg, "--grpc-method pkg.Svc/Call: ") == e.msg);
    gp_profile_config_free(&c);
    /* text batches: not for chat/multimodal, fine for completions, embeddings, rankings */
    CHECK(parse(&c, &e, "-m", "m", "--endpoint-type", "vision", "-b", "2", NULL) < 0);
    CHECK_STR(e.msg, "The --batch-size-text flag is not supported for openai_multimodal.");
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--endpoint-type", "completions", "-b", "2", NULL), 0);
    CHECK_INT(c.batch_size, 2);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--endpoint-type", "embeddings", "--streaming", NULL) < 0);
    CHECK_STR(e.msg, "The --streaming option is not supported for openai_embeddings.");
    gp_profile_config_free(&c);
}

/* --max-memory SIZE (genperf's): powers of 1024, at least 1M; the budget
 * leaves out what genperf holds already, and its hard limit is 1/8 above. */
static void test_max_memory(void)
{
    struct profile_config c;
    struct gp_error e;
    static const struct {
        const char *s;
        uint64_t v;
    } ok[] = {{"300M", 300ull << 20}, {"1.5G", 3ull << 29}, {"2GiB", 2ull << 30}, {"1048576", 1ull << 20},
              {"4096kb", 4ull << 20}, {"1t", 1ull << 40}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        CHECK_INT(parse(&c, &e, "-m", "m", "--max-memory", ok[i].s, NULL), 0);
        CHECK_INT(c.max_memory, ok[i].v);
        gp_profile_config_free(&c);
    }
    static const char *const bad[] = {"abc", "10x", "-5", "512K", "", "1e30G", "5MM"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(parse(&c, &e, "-m", "m", "--max-memory", bad[i], NULL) < 0);
        CHECK(strstr(e.msg, "--max-memory '") == e.msg);
        gp_profile_config_free(&c);
    }
    CHECK_INT(parse(&c, &e, "-m", "m", NULL), 0);
    CHECK_INT(c.max_memory, 0);
    struct gp_record_budget b;
    uint64_t total;
    gp_profile_memory_budget(&c, &b, &total); /* the default: from the memory available now */
    CHECK(total >= (256ull << 20) && b.limit > 0 && b.limit < total && b.hard == b.limit + b.limit / 8);
    c.max_memory = 4ull << 30;
    gp_profile_memory_budget(&c, &b, &total);
    CHECK_INT(total, 4ull << 30);
    CHECK(b.limit < total && b.limit > total - (512ull << 20)); /* less this test's RSS */
    gp_profile_config_free(&c);
}

static void test_endpoint_types(void)
{
    static const char *const spoken[][4] = {
        {"chat", "v1/chat/completions", "openai_chat_completions", "m-openai-chat-concurrency1"},
        {"completions", "v1/completions", "openai_completions", "m-openai-completions-concurrency1"},
        {"embeddings", "v1/embeddings", "openai_embeddings", "m-openai-embeddings-concurrency1"},
        {"rankings", "v1/ranking", "rankings", "m-openai-rankings-concurrency1"},
        {"multimodal", "v1/chat/completions", "openai_multimodal", "m-openai-multimodal-concurrency1"},
        {"vision", "v1/chat/completions", "openai_multimodal", "m-openai-vision-concurrency1"},
        {"responses", "v1/responses", "openai_responses", "m-openai-responses-concurrency1"},
    };
    struct profile_config c;
    struct gp_error e;
    for (size_t i = 0; i < sizeof spoken / sizeof spoken[0]; i++) {
        CHECK_INT(parse(&c, &e, "-m", "m", "--endpoint-type", (char *)spoken[i][0], NULL), 0);
        CHECK_STR(c.endpoint, spoken[i][1]);
        CHECK_STR(gp_profile_output_format(&c), spoken[i][2]);
        char name[256];
        CHECK_INT(gp_profile_run_name(&c, name, sizeof name), 0);
        CHECK_STR(name, spoken[i][3]);
        json_t *ic = gp_profile_input_config(&c);
        json_t *ep = json_object_get(ic, "endpoint");
        CHECK_STR(json_string_value(json_object_get(ep, "type")), spoken[i][0]);
        CHECK_STR(json_string_value(json_object_get(ep, "output_format")), spoken[i][2]);
        json_decref(ic);
        gp_profile_config_free(&c);
    }
    static const char *const refused[] = {"kserve", "triton_unused", "tensorrtllm_engine", "dynamic_grpc", "template",
                                          "generate", "huggingface_generate", "image_retrieval", "nvclip"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        if (!strcmp(refused[i], "triton_unused"))
            continue; /* "triton" is a service kind, not an --endpoint-type choice */
        CHECK(parse(&c, &e, "-m", "m", "--endpoint-type", (char *)refused[i], NULL) < 0);
        CHECK_INT(e.code, GP_ENOTSUP);
        CHECK_INT(c.usage_error, 0);
        CHECK(strstr(e.msg, "it speaks chat, completions, embeddings, rankings, multimodal, vision, responses (OpenAI-compatible HTTP) and anthropic_messages") != NULL);
        CHECK(strchr(e.msg, '\n') == NULL);
        gp_profile_config_free(&c);
    }
    /* --endpoint still overrides the type's default path */
    CHECK_INT(parse(&c, &e, "-m", "m", "--endpoint-type", "rankings", "--endpoint", "/rerank", NULL), 0);
    CHECK_STR(c.endpoint, "rerank");
    gp_profile_config_free(&c);
}

/* mpirun: ranks > 0 take rank 0's plan as sent (gp_profile_shape_adopt):
 * the same jobs and starts, and an index out of range is refused. */
static void test_shape_adopt(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "m", "--num-sessions", "3", "--session-concurrency", "2", "--session-turns-mean",
                    "2", NULL), 0);
    struct profile_shape a, b;
    CHECK_INT(gp_profile_shape_build(&c, 6, &a, &e), 0);
    CHECK(a.has_plan && a.plan.n == 6 && a.plan.nstarts == 3);
    CHECK_INT(gp_profile_shape_adopt(&c, &a.plan, 6, &b, &e), 0);
    CHECK(b.has_plan && b.plan.jobs != a.plan.jobs && b.plan.n == 6 && b.plan.nstarts == 3);
    CHECK(!memcmp(b.plan.jobs, a.plan.jobs, 6 * sizeof *a.plan.jobs));
    CHECK(!memcmp(b.plan.starts, a.plan.starts, 3 * sizeof *a.plan.starts));
    CHECK_INT(b.plan.session_concurrency, 2);
    CHECK_INT(b.plan.nsessions, 3);
    CHECK(b.meta == NULL); /* only rank 0 exports */
    gp_profile_shape_free(&b);
    /* fewer bodies than the plan's entries: refused */
    CHECK_INT(gp_profile_shape_adopt(&c, &a.plan, 5, &b, &e), -GP_EIO);
    CHECK(strstr(e.msg, "malformed request plan from rank 0") != NULL);
    CHECK(!b.has_plan && !b.jobs);
    /* no plan: the load alone */
    CHECK_INT(gp_profile_shape_adopt(&c, NULL, 6, &b, &e), 0);
    CHECK(!b.has_plan);
    gp_profile_shape_free(&a);
    gp_profile_config_free(&c);
}

/* --model-weights (issue 32): one weight > 0 per -m, in -m order whatever
 * the order written; each mistake is one line naming the item and the fix. */
static void test_model_weights(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "base", "org/m:v2", "--model-weights", "org/m:v2:1,base:3", NULL), 0);
    CHECK(c.model_weights != NULL);
    if (c.model_weights) {
        CHECK(c.model_weights[0] == 3.0);
        CHECK(c.model_weights[1] == 1.0);
    }
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "a", "b", NULL), 0);
    CHECK(c.model_weights == NULL);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "a", "b", "--model-weights", "a:1,b:1", "--model-selection-strategy", "random", NULL),
              0);
    gp_profile_config_free(&c);
    static const struct {
        const char *w, *msg;
    } bad[] = {
        {"a:0.7,c:0.3", "--model-weights 'a:0.7,c:0.3': 'c' is not one of the -m models; weigh only models given "
                        "with -m"},
        {"a:0.7", "--model-weights 'a:0.7': -m b has no weight; give every -m model one"},
        {"a:0,b:1", "--model-weights 'a:0,b:1': the weight of 'a' must be a number > 0"},
        {"a:-1,b:1", "--model-weights 'a:-1,b:1': the weight of 'a' must be a number > 0"},
        {"a:x,b:1", "--model-weights 'a:x,b:1': the weight of 'a' must be a decimal number (e.g. 0.7)"},
        /* issue 40 item 4: strtod's hex and inf, and an empty item, are refused */
        {"a:0x1,b:1", "--model-weights 'a:0x1,b:1': the weight of 'a' must be a decimal number (e.g. 0.7)"},
        {"a:inf,b:1", "--model-weights 'a:inf,b:1': the weight of 'a' must be a decimal number (e.g. 0.7)"},
        {"a:1,b:1,", "--model-weights 'a:1,b:1,': each item must be NAME:WEIGHT (e.g. a:0.7,b:0.3)"},
        {"a,b", "--model-weights 'a,b': each item must be NAME:WEIGHT (e.g. a:0.7,b:0.3)"},
        {"a:1,a:2,b:1", "--model-weights 'a:1,a:2,b:1': 'a' is weighed twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(parse(&c, &e, "-m", "a", "b", "--model-weights", bad[i].w, NULL) < 0);
        CHECK_STR(e.msg, bad[i].msg);
        gp_profile_config_free(&c);
    }
    CHECK(parse(&c, &e, "-m", "a", "b", "--model-weights", "a:1,b:1", "--model-selection-strategy", "round_robin",
                NULL) < 0);
    CHECK(strstr(e.msg, "drop --model-selection-strategy round_robin") != NULL);
    gp_profile_config_free(&c);
}

/* Issue 43 item 3: the usage line and --help list every endpoint type the
 * parser speaks (the usage line said {chat,completions,...} and the help
 * left out responses), each of which parses. */
static void test_usage_lists_types(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    CHECK(fp != NULL);
    if (!fp)
        return;
    gp_profile_usage(fp, "genperf profile", 1);
    fclose(fp);
    const char *usage_end = strstr(text, "\n\n");
    CHECK(usage_end != NULL);
    CHECK(strstr(text, "{chat,completions,...}") == NULL);
    char want[512] = "--endpoint-type {";
    for (size_t i = 0; gp_profile_endpoint_names[i]; i++) {
        strncat(want, gp_profile_endpoint_names[i], sizeof want - strlen(want) - 2);
        strncat(want, gp_profile_endpoint_names[i + 1] ? "," : "}", sizeof want - strlen(want) - 1);
        struct profile_config c;
        struct gp_error e;
        CHECK_INT(parse(&c, &e, "-m", "m", "--endpoint-type", (char *)gp_profile_endpoint_names[i], NULL), 0);
        CHECK_INT(c.endpoint_type, gp_profile_endpoint_kinds[i]);
        gp_profile_config_free(&c);
    }
    const char *in_usage = strstr(text, want), *in_help = usage_end ? strstr(usage_end, want) : NULL;
    CHECK(in_usage != NULL && usage_end && in_usage < usage_end);
    CHECK(in_help != NULL);
    CHECK(strstr(text, "responses") != NULL && strstr(text, "anthropic_messages") != NULL);
    free(text);
}

int main(void)
{
    GP_RUN(test_every_genai_perf_flag_parses);
    GP_RUN(test_media_flags_land);
    GP_RUN(test_media_validation);
    GP_RUN(test_max_memory);
    GP_RUN(test_endpoint_types);
    GP_RUN(test_shape_adopt);
    GP_RUN(test_model_weights);
    GP_RUN(test_usage_lists_types);
    return gp_test_summary();
}
