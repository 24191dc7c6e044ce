/* Unit tests for runner/template.c: GenAI-Perf's template parses back, and
 * config-file keys map to the command line GenAI-Perf's parse methods imply. */
#include "runner/recipe.h"
#include "runner/template.h"
#include "runner/yamljson.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/test.h"

#include <stdlib.h>
#include <string.h>

/* The mapped command line of a YAML text, space-joined; NULL + err on refusal. */
static char *mapped(const char *yaml, struct gp_error *err)
{
    json_t *j = gp_yaml_load_string(yaml, strlen(yaml), "t.yaml", err);
    if (!j)
        return NULL;
    struct gp_argv a = {0};
    char *out = NULL;
    if (gp_gpconfig_argv(j, &a, err) == 0) {
        struct gp_buf b = {0};
        for (size_t i = 0; i < a.n; i++)
            gp_buf_printf(&b, "%s%s", i ? " " : "", a.v[i]);
        out = gp_buf_steal(&b);
    }
    gp_argv_free(&a);
    json_decref(j);
    return out;
}

static void test_template_round_trip(void)
{
    const char *t = gp_genai_perf_template();
    CHECK(strncmp(t, "  model_names: \n\n  analyze:\n", 28) == 0);
    CHECK(strstr(t, "    stimulus: {'concurrency': 1}\n") != NULL);
    CHECK(strstr(t, "  process:\n    # Uncomment the lines below to enable the process-export-files subcommand\n"
                    "    #   input_path: \n\n") != NULL);
    struct gp_error err = {0};
    /* as written: valid YAML, every key known, only the model is missing */
    CHECK(mapped(t, &err) == NULL);
    CHECK_STR(err.msg, "Required field model_names is not set");
    /* with a model: the defaults map to nothing but what the file spells out */
    char *y = malloc(strlen(t) + 16);
    strcpy(y, "  model_names: m");
    strcat(y, t + strlen("  model_names: "));
    char *s = mapped(y, &err);
    CHECK_STR(s, "profile -m m --endpoint-type kserve --url localhost:8001 --concurrency 1 --artifact-dir artifacts "
                 "--profile-export-file profile_export.json");
    free(s);
    free(y);
}

static void test_sections(void)
{
    struct gp_error err = {0};
    char *s = mapped("model_names: a, b\n"
                     "endpoint: {type: chat, streaming: true, url: 'http://h:1', custom: v1/x,\n"
                     "  server_metrics_urls: [ 'http://g:9400/metrics' ]}\n"
                     "perf_analyzer: {stimulus: {request_rate: 2.5}, measurement: {mode: interval, num: 3000},\n"
                     "  warmup_request_count: 2}\n"
                     "input: {goodput: {time_to_first_token: 200, inter_token_latency: 20.5}, header: [ 'A: 1', 'B: 2' ],\n"
                     "  extra: {max_tokens: 5, stop: 'x'}, num_dataset_entries: 7,\n"
                     "  output_tokens: {mean: 9, deterministic: true}, synthetic_tokens: {mean: 32, stddev: 0}}\n"
                     "tokenizer: {name: builtin, revision: main}\n",
                     &err);
    CHECK_STR(s, "profile -m a b --endpoint-type chat --streaming --url http://h:1 --endpoint v1/x "
                 "--server-metrics-url http://g:9400/metrics --request-rate 2.5 --warmup-request-count 2 "
                 "--goodput time_to_first_token:200 inter_token_latency:20.5 -H A: 1 -H B: 2 "
                 "--extra-inputs {\"max_tokens\":5,\"stop\":\"x\"} --num-dataset-entries 7 --output-tokens-mean 9 "
                 "--output-tokens-mean-deterministic --synthetic-input-tokens-mean 32 --tokenizer builtin "
                 "--measurement-interval 3000");
    free(s);
}

static void test_analyze_and_process(void)
{
    struct gp_error err = {0};
    char *s = mapped("model_name: m\nanalyze: {concurrency: {start: 2, stop: 8}}\n", &err);
    CHECK_STR(s, "analyze -m m --sweep-type concurrency --sweep-range 2:8");
    free(s);
    s = mapped("model_name: m\nanalyze:\n  num_dataset_entries: {start: 10, stop: 30, step: 10}\n", &err);
    CHECK_STR(s, "analyze -m m --sweep-type num_dataset_entries --sweep-list 10,20,30");
    free(s);
    s = mapped("model_name: m\nanalyze: {request_rate: {}}\n", &err);
    CHECK_STR(s, "analyze -m m --sweep-type request_rate --sweep-range 16:8192");
    free(s);
    /* GenAI-Perf's session and fixed-schedule stimuli, as its input_config writes them */
    s = mapped("model_name: m\nperf_analyzer: {stimulus: {session_concurrency: 3}}\n"
               "input: {sessions: {num: 6}}\n",
               &err);
    CHECK(s && strstr(s, "--session-concurrency 3") != NULL);
    free(s);
    s = mapped("model_name: m\nperf_analyzer: {stimulus: {fixed_schedule: null}}\n", &err);
    CHECK_STR(s, "profile -m m --fixed-schedule true");
    free(s);
    s = mapped("model_name: m\nperf_analyzer: {stimulus: fixed_schedule}\n", &err);
    CHECK_STR(s, "profile -m m --fixed-schedule true");
    free(s);
    s = mapped("process: {input_path: nodes}\noutput: {artifact_directory: out}\n", &err);
    CHECK_STR(s, "process-export-files --input-directory nodes --artifact-dir out");
    free(s);
}

static void test_refusals(void)
{
    struct gp_error err = {0};
    CHECK(mapped("model_name: m\nbogus: 1\n", &err) == NULL);
    CHECK_STR(err.msg, "User Config: bogus is not a valid top-level parameter");
    CHECK(mapped("model_name: m\nendpoint: {urll: x}\n", &err) == NULL);
    CHECK_STR(err.msg, "User Config: urll is not a valid endpoint parameter");
    CHECK(mapped("model_name: m\ninput: {sessions: {turns: {x: 1}}}\n", &err) == NULL);
    CHECK_STR(err.msg, "User Config: x is not a valid turns parameter");
    CHECK(mapped("model_name: m\nperf_analyzer: {measurement: {mode: forever}}\n", &err) == NULL);
    CHECK_STR(err.msg, "User Config: forever is not a valid perf_analyzer_measurement mode");
    CHECK(mapped("model_name: m\nperf_analyzer: {stimulus: {session_request_rate: 2}}\n", &err) == NULL);
    CHECK(strstr(err.msg, "stimulus session_request_rate is not supported by genperf") != NULL);
    CHECK(mapped("model_name: m\nanalyze: {batch: {}}\n", &err) == NULL);
    CHECK_STR(err.msg, "User Config: batch is not a valid analyze parameter");
    CHECK(mapped("model_name: m\ninput: {goodput: {time_to_first_token: fast}}\n", &err) == NULL);
    CHECK_STR(err.msg, "User Config: Goodput values must be integers or floats");
    CHECK(mapped("model_name: m\ninput: {num_dataset_entries: -1}\n", &err) == NULL);
    CHECK(strstr(err.msg, "exceeds lower bounds") != NULL);
}

/* --override-config with a stimulus or measurement flag: the file's one goes
 * (GenAI-Perf sets config.perf_analyzer.stimulus from the CLI), so profile
 * never sees two flags of one exclusive group. */
static void test_override_replaces_stimulus(void)
{
    const char *y = "model_name: m\nperf_analyzer: {stimulus: {concurrency: 3}, warmup_request_count: 2,\n"
                    "  measurement: {mode: interval, num: 3000}}\n";
    struct gp_error err = {0};
    json_t *j = gp_yaml_load_string(y, strlen(y), "t.yaml", &err);
    char *rate[] = {"--request-rate", "5", "--artifact-dir", "x"};
    CHECK_INT(gp_gpconfig_drop_overridden(j, rate, 4), 1);
    struct gp_argv a = {0};
    CHECK_INT(gp_gpconfig_argv(j, &a, &err), 0);
    struct gp_buf b = {0};
    for (size_t i = 0; i < a.n; i++)
        gp_buf_printf(&b, "%s%s", i ? " " : "", a.v[i]);
    CHECK_STR(b.data, "profile -m m --warmup-request-count 2 --measurement-interval 3000");
    gp_buf_free(&b);
    gp_argv_free(&a);
    json_decref(j);

    j = gp_yaml_load_string(y, strlen(y), "t.yaml", &err);
    char *count[] = {"--request-count=9", "--concurrency=2"};
    CHECK_INT(gp_gpconfig_drop_overridden(j, count, 2), 2);
    CHECK(json_object_get(json_object_get(j, "perf_analyzer"), "measurement") == NULL);
    json_decref(j);

    /* other flags, or a stimulus flag after '--' (perf_analyzer's), leave the file's */
    j = gp_yaml_load_string(y, strlen(y), "t.yaml", &err);
    char *other[] = {"--concurrency-x", "1", "--streaming", "--", "--concurrency", "4"};
    CHECK_INT(gp_gpconfig_drop_overridden(j, other, 6), 0);
    CHECK(json_object_get(json_object_get(j, "perf_analyzer"), "stimulus") != NULL);
    json_decref(j);
}

int main(void)
{
    GP_RUN(test_template_round_trip);
    GP_RUN(test_sections);
    GP_RUN(test_analyze_and_process);
    GP_RUN(test_refusals);
    GP_RUN(test_override_replaces_stimulus);
    return gp_test_summary();
}
