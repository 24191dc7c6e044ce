/* profile/test_profile_args.c — flag parsing, GenAI-Perf defaults/validation
 * messages, run-directory naming, input_config shape, float repr. */
#include "profile/profile_config.h"
#include "client/client.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/pytext.h"
#include "core/test.h"
#include "profile/test_support.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_issue_command_line(void)
{
    struct profile_config c;
    struct gp_error e;
    int rc = parse(&c, &e, "-m", "Qwen/Qwen3-8B", "--url", "http://127.0.0.1:8000", "-H", "Authorization: Bearer KEY",
                   "-H", "Accept: text/event-stream", "--tokenizer", "Qwen/Qwen3-8B", "--endpoint-type", "chat",
                   "--streaming", "--synthetic-input-tokens-mean", "512", "--synthetic-input-tokens-stddev", "0",
                   "--output-tokens-mean", "128", "--output-tokens-stddev", "0", "--request-count", "200",
                   "--num-dataset-entries", "200", "--concurrency", "16", "--random-seed", "0",
                   "--profile-export-file", "my_run.json", "--artifact-dir", "artifacts", NULL);
    CHECK_INT(rc, 0);
    CHECK_INT(c.n_models, 1);
    CHECK_STR(c.models[0], "Qwen/Qwen3-8B");
    CHECK_STR(c.url, "http://127.0.0.1:8000");
    CHECK_INT(c.n_headers, 2);
    CHECK_STR(c.headers[1], "Accept: text/event-stream");
    CHECK_INT(c.streaming, 1);
    CHECK_INT(c.isl_mean, 512);
    CHECK_INT(c.osl_mean, 128);
    CHECK_INT(c.request_count, 200);
    CHECK_INT(c.num_entries, 200);
    CHECK_INT(c.concurrency, 16);
    CHECK_STR(c.endpoint, "v1/chat/completions");
    char dir[4096];
    CHECK_INT(gp_profile_run_dir(&c, dir, sizeof dir), 0);
    CHECK_STR(dir, "artifacts/Qwen_Qwen3-8B-openai-chat-concurrency16");
    gp_profile_config_free(&c);
}

static void test_defaults(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "test_model", NULL), 0);
    CHECK_INT(c.isl_mean, 550);
    CHECK_INT(c.osl_mean, -1);
    CHECK_INT(c.num_entries, 100);
    CHECK_INT(c.concurrency, 1);
    CHECK_INT(c.request_count, 10);
    CHECK_INT(c.warmup, 0);
    CHECK_INT(c.seed, 0);
    CHECK_STR(c.tokenizer, "test_model");
    CHECK_STR(c.url, "localhost:8000");
    CHECK_STR(c.profile_export_file, "profile_export.json");
    CHECK_INT(c.server_usage, 0);
    CHECK_NEAR(c.request_timeout_s, 600, 0);
    char dir[4096];
    gp_profile_run_dir(&c, dir, sizeof dir);
    CHECK_STR(dir, "artifacts/test_model-openai-chat-concurrency1");
    gp_profile_config_free(&c);

    /* truthy semantics: zeros keep the defaults (genperf refuses --concurrency 0
     * and -s 0, which GenAI-Perf's help says are invalid: test_security; and
     * --isl 0, which would silently send 550-token prompts: test_config_errors) */
    CHECK_INT(parse(&c, &e, "-m", "m", "--request-count", "0", "--output-tokens-mean", "0", NULL), 0);
    CHECK_INT(c.concurrency, 1);
    CHECK_INT(c.request_count, 10);
    CHECK_INT(c.isl_mean, 550);
    CHECK_INT(c.osl_mean, -1);
    CHECK_INT(c.stability_given, 0);
    gp_profile_config_free(&c);

    /* automatic request count max(10, 2*C) */
    CHECK_INT(parse(&c, &e, "-m", "m", "--concurrency", "16", NULL), 0);
    CHECK_INT(c.request_count, 32);
    gp_profile_config_free(&c);
}

static void test_aliases_and_forms(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "--model", "a/b/c", "--isl", "7", "--osl=9", "--num-prompts", "3", "--num-requests", "5",
                    "--num-warmup-requests", "2", "-u", "http://h:1", "--endpoint-type", "completions", NULL),
              0);
    CHECK_INT(c.isl_mean, 7);
    CHECK_INT(c.osl_mean, 9);
    CHECK_INT(c.num_entries, 3);
    CHECK_INT(c.request_count, 5);
    CHECK_INT(c.warmup, 2);
    CHECK_STR(c.endpoint, "v1/completions");
    char dir[4096];
    gp_profile_run_dir(&c, dir, sizeof dir);
    CHECK_STR(dir, "artifacts/a_b_c-openai-completions-concurrency1");
    gp_profile_config_free(&c);

    /* unique prefixes (argparse allow_abbrev), multiple models, passthrough */
    CHECK_INT(parse(&c, &e, "-m", "m1", "m2", "--concurr", "4", "--streami", "--", "--max-threads", "4", NULL), 0);
    CHECK_INT(c.n_models, 2);
    CHECK_INT(c.concurrency, 4);
    CHECK_INT(c.streaming, 1);
    CHECK_INT(c.n_passthrough, 2);
    gp_profile_run_dir(&c, dir, sizeof dir);
    CHECK_STR(dir, "artifacts/m1_multi-openai-chat-concurrency4");
    gp_profile_config_free(&c);

    CHECK_INT(parse(&c, &e, "-m", "m1", "--request-rate", "2.5", "-p", "5000", "-s", "10", NULL), 0);
    gp_profile_run_dir(&c, dir, sizeof dir);
    CHECK_STR(dir, "artifacts/m1-openai-chat-request_rate2.5");
    CHECK_INT(c.measurement_interval_ms, 5000);
    CHECK_STR(gp_profile_mode(&c), "request_rate");
    gp_profile_config_free(&c);

    CHECK_INT(parse(&c, &e, "-m", "m1", "--request-rate", "10", NULL), 0);
    gp_profile_run_dir(&c, dir, sizeof dir);
    CHECK_STR(dir, "artifacts/m1-openai-chat-request_rate10.0");
    CHECK_INT(c.request_count, 10);
    gp_profile_config_free(&c);

    CHECK_INT(parse(&c, &e, "-m", "m", "--endpoint", " /v1/custom", NULL), 0);
    CHECK_STR(c.endpoint, "v1/custom");
    gp_profile_config_free(&c);
}

/* Every row of the flag table lands in its own field (the copy is driven by
 * offsetof() in the table: a wrong offset shows up here). */
static void test_every_flag_lands(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "a", "b", "--model-selection-strategy", "random", "--endpoint-type", "completions",
                    "--endpoint", "/x/y", "-u", "http://h:1", "--streaming", "-H", "A: 1", "--tokenizer", "builtin",
                    "--tokenizer-revision", "r1", "--tokenizer-trust-remote-code", "--isl", "11", "--synthetic-input-tokens-stddev",
                    "2", "--osl", "13", "--output-tokens-stddev", "3", "--genperf-output-tokens-deterministic",
                    "--num-dataset-entries", "7", "--warmup-request-count", "4", "--request-rate", "50", "--random-seed",
                    "9", "--profile-export-file", "p.json", "--artifact-dir", "ad", "--extra-inputs", "k:v", "-s", "5",
                    "-g", "request_latency:100", "--server-metrics-url", "http://g:9400/metrics", "--num-prefix-prompts",
                    "6", "--prefix-prompt-length", "8", "-v", "--generate-plots", "--enable-checkpointing",
                    "--checkpoint-dir", "cd", "--request-timeout", "30", "--http2", "--request-distribution", "poisson",
                    "--max-concurrency", "12", "--duration", "2.5", "--telemetry-interval", "0.5", "--server-usage",
                    "--offline", "--redact-header", "X-Tenant", "--api-key-file", "kf", "--cacert", "ca.pem", "--insecure",
                    "--max-response-bytes", "1000", "--max-failure-rate", "0.25", NULL),
              0);
    CHECK_INT(c.n_models, 2);
    CHECK_INT(c.model_random, 1);
    CHECK_INT(c.endpoint_type, GP_ENDPOINT_COMPLETIONS);
    CHECK_INT(c.endpoint_type_given, 1);
    CHECK_STR(c.endpoint, "x/y");
    CHECK_STR(c.url, "http://h:1");
    CHECK_INT(c.url_given, 1);
    CHECK_INT(c.streaming, 1);
    CHECK_INT(c.n_headers, 1);
    CHECK_STR(c.tokenizer, "builtin");
    CHECK_STR(c.tokenizer_revision, "r1");
    CHECK_INT(c.trust_remote_code, 1);
    CHECK_INT(c.isl_mean, 11);
    CHECK_INT(c.isl_stddev, 2);
    CHECK_INT(c.osl_mean, 13);
    CHECK_INT(c.osl_stddev, 3);
    CHECK_INT(c.osl_deterministic, 1);
    CHECK_INT(c.num_entries, 7);
    CHECK_INT(c.warmup, 4);
    CHECK_NEAR(c.request_rate, 50, 0);
    CHECK_INT(c.concurrency, 1); /* the rate chooses the open loop; concurrency keeps its default */
    CHECK_INT(c.request_count, 10);
    CHECK_INT(c.seed, 9);
    CHECK_STR(c.profile_export_file, "p.json");
    CHECK_STR(c.artifact_dir, "ad");
    CHECK(json_object_get(c.extra_inputs, "k") != NULL);
    CHECK_NEAR(c.stability, 5, 0);
    CHECK_INT(c.stability_given, 1);
    CHECK_INT(c.n_slos, 1);
    CHECK_INT(c.n_metrics_urls, 1);
    CHECK_INT(c.metrics_urls_given, 1);
    CHECK_INT(c.num_prefix_prompts, 6);
    CHECK_INT(c.prefix_prompt_length, 8);
    CHECK_INT(c.verbose, 1);
    CHECK_INT(c.generate_plots, 1);
    CHECK_INT(c.enable_checkpointing, 1);
    CHECK_STR(c.checkpoint_dir, "cd");
    CHECK_NEAR(c.request_timeout_s, 30, 0);
    CHECK_INT(c.http2, 1);
    CHECK_INT(c.poisson, 1);
    CHECK_INT(c.max_concurrency, 12);
    CHECK_NEAR(c.duration_s, 2.5, 0);
    CHECK_NEAR(c.telemetry_interval_s, 0.5, 0);
    CHECK_INT(c.server_usage, 1);
    CHECK_INT(c.offline, 1);
    CHECK_INT(c.n_redact, 1);
    CHECK_STR(c.redact_names[0], "X-Tenant");
    CHECK_STR(c.api_key_file, "kf");
    CHECK_STR(c.cacert, "ca.pem");
    CHECK_INT(c.insecure, 1);
    CHECK_INT(c.max_response_bytes, 1000);
    CHECK_NEAR(c.max_failure_rate, 0.25, 0);
    CHECK_INT(c.backend_given, 0);
    gp_profile_config_free(&c);

    /* genperf's own bounds, reported with the flag's name */
    CHECK(parse(&c, &e, "-m", "m", "--request-rate", "5", "--max-concurrency", "0", NULL) < 0);
    CHECK_STR(e.msg, "--max-concurrency 0: must be >= 1");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--telemetry-interval", "-1", NULL) < 0);
    CHECK_STR(e.msg, "--telemetry-interval -1: must be a positive number of seconds");
    gp_profile_config_free(&c);
}

static void test_usage_errors(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK(parse(&c, &e, "-m", "m", "--num-dataset-entries", "0", NULL) < 0);
    CHECK_INT(c.usage_error, 1);
    CHECK_STR(e.msg, "argument --num-dataset-entries/--num-prompts: The value must be greater than zero.");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--num-dataset-entries", "abc", NULL) < 0);
    CHECK_STR(e.msg, "argument --num-dataset-entries/--num-prompts: The value must be an integer.");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--concurrency", "x", NULL) < 0);
    CHECK_STR(e.msg, "argument --concurrency: invalid int value: 'x'");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--request-rate", "fast", NULL) < 0);
    CHECK_STR(e.msg, "argument --request-rate: invalid float value: 'fast'");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--concurrency", "2", "--request-rate", "3", NULL) < 0);
    CHECK_INT(c.usage_error, 1);
    CHECK_STR(e.msg, "argument --request-rate: not allowed with argument --concurrency (one load per run, as in "
                     "GenAI-Perf; to cap the requests in flight of a --request-rate run, write --request-rate R "
                     "--max-concurrency N)");
    gp_profile_config_free(&c);
    /* either order names --max-concurrency (issue 43 item 7) */
    CHECK(parse(&c, &e, "-m", "m", "--request-rate", "20", "--concurrency", "4", NULL) < 0);
    CHECK_INT(c.usage_error, 1);
    CHECK(strstr(e.msg, "argument --concurrency: not allowed with argument --request-rate (") == e.msg);
    CHECK(strstr(e.msg, "--max-concurrency N") != NULL);
    gp_profile_config_free(&c);
    /* other pairs of the group keep argparse's words alone */
    CHECK(parse(&c, &e, "-m", "m", "--concurrency", "2", "--fixed-schedule", "true", NULL) < 0);
    CHECK_STR(e.msg, "argument --fixed-schedule: not allowed with argument --concurrency");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--request-count", "5", "--measurement-interval", "100", NULL) < 0);
    CHECK_STR(e.msg, "argument --measurement-interval/-p: not allowed with argument --request-count/--num-requests");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--endpoint-type", "foo", NULL) < 0);
    CHECK(strstr(e.msg, "argument --endpoint-type: invalid choice: 'foo' (choose from 'chat', 'completions',") ==
          e.msg);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--bogus", NULL) < 0);
    CHECK_STR(e.msg, "unrecognized arguments: --bogus");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--concurrency", NULL) < 0);
    CHECK_STR(e.msg, "argument --concurrency: expected one argument");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--s", "5", NULL) < 0); /* ambiguous prefix */
    CHECK(strstr(e.msg, "ambiguous option: --s could match") == e.msg);
    gp_profile_config_free(&c);

    /* "--" alone prefixes every long option: the list of candidates is far
     * longer than its buffer and must be cut, not written past (UBSan/ASan
     * caught `profile -m m --=1`). */
    CHECK(parse(&c, &e, "-m", "m", "--=1", NULL) < 0);
    CHECK_INT(c.usage_error, 1);
    CHECK(strstr(e.msg, "ambiguous option: -- could match --help, --model, ") == e.msg);
    CHECK(strlen(e.msg) < sizeof e.msg);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--", NULL) == 0); /* plain "--" still ends the options */
    gp_profile_config_free(&c);
}

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static void test_config_errors(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK(parse(&c, &e, NULL) < 0);
    CHECK_INT(c.usage_error, 0);
    CHECK(strstr(e.msg, "Required field model_names is not set") == e.msg);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--synthetic-input-tokens-mean", "-1", NULL) < 0);
    CHECK_STR(e.msg, "User Config: -1 exceeds lower bounds ({'lower': 0})");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--warmup-request-count", "-3", NULL) < 0);
    CHECK_STR(e.msg, "User Config: -3 exceeds lower bounds ({'lower': 0})");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "-s", "1000", NULL) < 0);
    CHECK_STR(e.msg, "User Config: 1000.0 exceeds upper bounds ({'lower': 1, 'upper': 999})");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--output-tokens-stddev", "5", NULL) < 0);
    CHECK_STR(e.msg, "User Config: If output tokens stddev is set, mean must also be set");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--genperf-output-tokens-deterministic", NULL) < 0);
    CHECK_STR(e.msg, "User Config: If output tokens deterministic is set, mean must also be set");
    gp_profile_config_free(&c);

    /* GenAI-Perf's spelling is for Triton and TensorRT-LLM Engine only
     * (config_command.py _check_output_tokens_and_service_kind), before the
     * mean check; genperf's own spelling keeps min_tokens/ignore_eos */
    CHECK(parse(&c, &e, "-m", "m", "--endpoint-type", "chat", "--osl", "8", "--output-tokens-mean-deterministic",
                NULL) < 0);
    CHECK(starts(e.msg, "User Config: input.output_tokens.deterministic is only supported with Triton or "
                        "TensorRT-LLM Engine service kinds"));
    CHECK(strstr(e.msg, "--genperf-output-tokens-deterministic") != NULL);
    CHECK_INT(c.usage_error, 0);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--endpoint-type", "completions", "--output-tokens-mean-deterministic", NULL) < 0);
    CHECK(strstr(e.msg, "only supported with Triton or TensorRT-LLM Engine") != NULL);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--endpoint-type", "chat", "--osl", "8", "--genperf-output-tokens-deterministic",
                    NULL), 0);
    CHECK_INT(c.osl_deterministic, 1);
    gp_profile_config_free(&c);

    /* --generate-plots: a warning elsewhere, an error where GenAI-Perf has no
     * plots (config_command.py _check_output_format_and_generate_plots) */
    CHECK(parse(&c, &e, "-m", "m", "--endpoint-type", "embeddings", "--generate-plots", NULL) < 0);
    CHECK(starts(e.msg, "User Config: generate_plots is not supported with the OutputFormat.OPENAI_EMBEDDINGS "
                        "output format"));
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--endpoint-type", "rankings", "--generate-plots", NULL) < 0);
    CHECK(starts(e.msg, "User Config: generate_plots is not supported with the OutputFormat.RANKINGS output format"));
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--endpoint-type", "completions", "--generate-plots", NULL), 0);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--profile-export-file", "a/b.json", NULL) < 0);
    CHECK(strstr(e.msg, "Please use artifact_directory option") == e.msg);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--extra-inputs", "a:b:c", NULL) < 0);
    CHECK_STR(e.msg, "Invalid input format for --extra-inputs: a:b:c\nExpected input format: 'input_name' or "
                     "'input_name:value'");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--extra-inputs", ":b", NULL) < 0);
    CHECK(strstr(e.msg, "Input name or value is empty in --extra-inputs: :b") == e.msg);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--extra-inputs", "a:1", "--extra-inputs", "a:2", NULL) < 0);
    CHECK_STR(e.msg, "Input name already exists in request_inputs dictionary: a");
    gp_profile_config_free(&c);

    /* The repeated name comes from a JSON object: the message must be made
     * while that object's keys still exist (the fuzzer found a use after free). */
    CHECK(parse(&c, &e, "-m", "m", "--extra-inputs", "a:1", "--extra-inputs", "{\"zz\":1,\"a\":2}", NULL) < 0);
    CHECK_STR(e.msg, "Input name already exists in request_inputs dictionary: a");
    gp_profile_config_free(&c);

    /* A repeated key inside one JSON object is refused, as --input-file rows are
     * (it was accepted, the last value silently winning). */
    CHECK(parse(&c, &e, "-m", "m", "--extra-inputs", "{\"a\":1,\"a\":2}", NULL) < 0);
    CHECK(strstr(e.msg, "--extra-inputs {\"a\":1,\"a\":2}: ") == e.msg && strstr(e.msg, "duplicate"));
    gp_profile_config_free(&c);

    /* Digits beyond int64 were clamped to 9223372036854775807 and sent. */
    CHECK(parse(&c, &e, "-m", "m", "--extra-inputs", "max_tokens:100000000000000000000000", NULL) < 0);
    CHECK(strstr(e.msg, "--extra-inputs max_tokens:100000000000000000000000: ") == e.msg);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--extra-inputs", "max_tokens:9223372036854775807", NULL) == 0);
    CHECK(json_integer_value(json_object_get(c.extra_inputs, "max_tokens")) == 9223372036854775807LL);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--concurrency", "8", "--request-count", "4", NULL) < 0);
    CHECK(strstr(e.msg, "--request-count can not be less than concurrency") == e.msg);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--request-rate", "20", NULL) < 0);
    CHECK(strstr(e.msg, "--request-count can not be less than request_rate") == e.msg);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--goodput", "bad", NULL) < 0);
    CHECK(strstr(e.msg, "Invalid format found for goodput constraints.") == e.msg);
    gp_profile_config_free(&c);

    /* the terms quoted as one word split on whitespace, each checked as if
     * given apart (issue 43 item 7: it said "Invalid format") */
    CHECK_INT(parse(&c, &e, "-m", "m", "--goodput", "time_to_first_token:200 inter_token_latency:20", NULL), 0);
    CHECK_INT((long)c.n_slos, 2);
    CHECK_STR(c.slos[0].namebuf, "time_to_first_token");
    CHECK_NEAR(c.slos[0].value, 200, 0);
    CHECK_STR(c.slos[1].namebuf, "inter_token_latency");
    CHECK_NEAR(c.slos[1].value, 20, 0);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "-g", "  request_latency:100\t", "time_to_first_token:5 ", NULL), 0);
    CHECK_INT((long)c.n_slos, 2);
    CHECK_STR(c.slos[0].namebuf, "request_latency");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "-g", "time_to_first_token:200 bad", NULL) < 0);
    CHECK(strstr(e.msg, "Invalid format found for goodput constraints.") == e.msg);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "-g", "time_to_first_token:200 request_latency:-5", NULL) < 0);
    CHECK(strstr(e.msg, "Invalid value found, request_latency: -5.0.") == e.msg);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "-g", " ", NULL) < 0);
    CHECK(strstr(e.msg, "Invalid format found for goodput constraints.") == e.msg);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "-g", "request_latency:-5", NULL) < 0);
    CHECK_STR(e.msg, "Invalid value found, request_latency: -5.0. The goodput constraint value should be "
                     "non-negative. ");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--endpoint-type", "kserve", NULL) < 0);
    CHECK_INT(e.code, GP_ENOTSUP);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--request-timeout", "0", NULL) < 0);
    gp_profile_config_free(&c);

    /* values that would overflow the client's integer clocks */
    CHECK(parse(&c, &e, "-m", "m", "--request-rate", "1e-9", NULL) < 0);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--duration", "1e12", NULL) < 0);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "-p", "99999999999", NULL) < 0);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "-s", "nan", NULL) < 0);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--request-rate", "inf", NULL) < 0);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--max-concurrency", "4", NULL) < 0); /* only with --request-rate */
    gp_profile_config_free(&c);

    /* issue 40 item 4: no silent defaults */
    CHECK(parse(&c, &e, "-m", "m", "--isl", "0", NULL) < 0);
    CHECK(strstr(e.msg, "--synthetic-input-tokens-mean 0: a synthetic prompt needs at least 1 token") == e.msg);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--request-rate", "0", NULL) < 0);
    CHECK_STR(e.msg, "--request-rate 0: must be a positive number of requests per second");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--timeslice-duration", "inf", NULL) < 0);
    CHECK_STR(e.msg, "--timeslice-duration inf: must be a finite positive number of seconds");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--trace-speedup", "0", NULL) < 0);
    CHECK(strstr(e.msg, "--trace-speedup 0: must be a positive factor") == e.msg);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "a", "b", "--model-weights", "a:0x1,b:1", NULL) < 0);
    CHECK(strstr(e.msg, "must be a decimal number") != NULL);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "a", "b", "--model-weights", "a:1,b:1,", NULL) < 0);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "a", "b", "--model-weights", "a:1,,b:1", NULL) < 0);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "a", "b", "--model-weights", "a:0.5,b:1e0", NULL), 0);
    gp_profile_config_free(&c);
}

static void test_extra_inputs_typing(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "m", "--extra-inputs", "temperature:0.7", "--extra-inputs", "ignore_eos:true",
                    "--extra-inputs", "n:3", "--extra-inputs", "neg:-1", "--extra-inputs", "flag", "--extra-inputs",
                    "{\"stream_options\":{\"include_usage\":true}}", NULL),
              0);
    json_t *x = c.extra_inputs;
    CHECK(json_is_real(json_object_get(x, "temperature")));
    CHECK(json_is_true(json_object_get(x, "ignore_eos")));
    CHECK(json_is_integer(json_object_get(x, "n")));
    CHECK(json_is_string(json_object_get(x, "neg")));
    CHECK(json_is_null(json_object_get(x, "flag")));
    CHECK(json_is_object(json_object_get(x, "stream_options")));
    char *s = json_dumps(x, JSON_COMPACT);
    CHECK_STR(s, "{\"temperature\":0.69999999999999996,\"ignore_eos\":true,\"n\":3,\"neg\":\"-1\",\"flag\":null,"
                 "\"stream_options\":{\"include_usage\":true}}");
    free(s);
    /* issue 40 item 4: a number sent as a string keeps its bytes, is warned */
    char *note = NULL;
    size_t nn = 0;
    FILE *f = open_memstream(&note, &nn);
    gp_profile_extra_input_notes(f, &c);
    fclose(f);
    CHECK_STR(note, "genperf: warning: --extra-inputs neg:-1: -1 goes out as the JSON string \"-1\", not a number "
                    "(GenAI-Perf types only plain digits as numbers); for a number pass '{\"neg\": -1}'\n");
    free(note);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--extra-inputs", "max_tokens:1e23", "--extra-inputs", "{\"s\":\"5e1\"}", NULL), 0);
    CHECK_STR(json_string_value(json_object_get(c.extra_inputs, "max_tokens")), "1e23");
    f = open_memstream(&note, &nn);
    gp_profile_extra_input_notes(f, &c);
    fclose(f);
    CHECK(strstr(note, "genperf: warning: --extra-inputs max_tokens:1e23: 1e23 goes out as the JSON string") == note);
    CHECK(strstr(note, "\"s\"") == NULL); /* a JSON string given as one is no surprise */
    free(note);
    gp_profile_config_free(&c);
}

static void test_input_config(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "test-model", "--endpoint-type", "chat", "--streaming", "--concurrency", "2",
                    "--goodput", "time_to_first_token:45", "request_latency:120", "--extra-inputs",
                    "temperature:0.7", "--extra-inputs", "ignore_eos:true", NULL),
              0);
    json_t *ic = gp_profile_input_config(&c);
    CHECK(ic != NULL);
    /* top-level key order */
    const char *want[] = {"model_names", "subcommand", "verbose", "template_filename", "analyze", "endpoint",
                          "perf_analyzer", "input", "output", "tokenizer", "process"};
    size_t i = 0;
    const char *k;
    json_t *v;
    json_object_foreach(ic, k, v) {
        if (i < sizeof want / sizeof want[0])
            CHECK_STR(k, want[i]);
        i++;
    }
    CHECK_INT(i, sizeof want / sizeof want[0]);
    CHECK_STR(json_string_value(json_object_get(json_object_get(ic, "endpoint"), "url")), "localhost:8001");
    CHECK_STR(json_string_value(json_object_get(json_object_get(ic, "endpoint"), "custom")), "v1/chat/completions");
    json_t *pa = json_object_get(ic, "perf_analyzer");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(pa, "stimulus"), "concurrency")), 2);
    CHECK(json_is_integer(json_object_get(pa, "stability_percentage")));
    CHECK_STR(json_string_value(json_object_get(json_object_get(pa, "measurement"), "num")), "");
    json_t *in = json_object_get(ic, "input");
    CHECK_NEAR(json_real_value(json_object_get(json_object_get(in, "goodput"), "time_to_first_token")), 45.0, 0);
    CHECK_STR(json_string_value(json_object_get(in, "header")), "");
    CHECK_STR(json_string_value(json_object_get(json_object_get(in, "output_tokens"), "mean")), "");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(in, "synthetic_tokens"), "mean")), 550);
    json_t *tk = json_object_get(ic, "tokenizer");
    CHECK_STR(json_string_value(json_object_get(tk, "name")), "test-model");
    CHECK(json_is_true(json_object_get(tk, "_enable_debug_logging")));
    CHECK_STR(json_string_value(json_object_get(json_object_get(ic, "output"), "artifact_directory")), "artifacts");
    json_decref(ic);
    gp_profile_config_free(&c);

    CHECK_INT(parse(&c, &e, "-m", "m", "--request-rate", "2.5", "-p", "5000", "-s", "10", "-H", "A: b", "-u",
                    "http://x:1", "--output-tokens-mean", "64", NULL),
              0);
    ic = gp_profile_input_config(&c);
    pa = json_object_get(ic, "perf_analyzer");
    CHECK_NEAR(json_real_value(json_object_get(json_object_get(pa, "stimulus"), "request_rate")), 2.5, 0);
    CHECK(json_is_real(json_object_get(pa, "stability_percentage")));
    CHECK_STR(json_string_value(json_object_get(json_object_get(pa, "measurement"), "mode")), "interval");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(pa, "measurement"), "num")), 5000);
    in = json_object_get(ic, "input");
    CHECK_STR(json_string_value(json_array_get(json_object_get(in, "header"), 0)), "A: b");
    CHECK_INT(json_integer_value(json_object_get(json_object_get(in, "output_tokens"), "mean")), 64);
    CHECK_STR(json_string_value(json_object_get(json_object_get(ic, "endpoint"), "url")), "http://x:1");
    json_decref(ic);
    gp_profile_config_free(&c);

    /* the session flags land in input.sessions as create_config.py puts them */
    CHECK_INT(parse(&c, &e, "-m", "m", "--num-sessions", "3", "--session-turns-mean", "4", "--session-turns-stddev",
                    "1", "--session-turn-delay-mean", "20", "--session-turn-delay-stddev", "5",
                    "--session-delay-ratio", "0.5", NULL),
              0);
    ic = gp_profile_input_config(&c);
    struct gp_buf b = {0};
    CHECK_INT(gp_json_dump(&b, json_object_get(json_object_get(ic, "input"), "sessions"), -1, 0, GP_JSON_PYTHON), 0);
    CHECK_STR(b.data, "{\"num\": 3, \"turns\": {\"mean\": 4, \"stddev\": 1}, "
                      "\"turn_delay\": {\"mean\": 20, \"ratio\": 0.5, \"stddev\": 5}}");
    gp_buf_free(&b);
    json_decref(ic);
    gp_profile_config_free(&c);
}

/* issue 14: secrets, header shape, bounds GenAI-Perf's help promises */
static void test_security(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "m", NULL), 0);
    CHECK_INT(c.max_response_bytes, 64L << 20);
    CHECK(c.max_failure_rate < 0);
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "-H", "Authorization: Bearer x\r\nX-Evil: 1", NULL) < 0);
    CHECK(strstr(e.msg, "-H 'Authorization'") && strstr(e.msg, "CR or LF"));
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "-H", "NoColonHere", NULL) < 0);
    CHECK(strstr(e.msg, "-H 'NoColonHere'") && strstr(e.msg, "'Name: value'"));
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "-H", ": v", NULL) < 0);
    gp_profile_config_free(&c);
    /* issue 40 item 3: the body's framing is the client's, any case */
    CHECK(parse(&c, &e, "-m", "m", "-H", "Content-Length: 5", NULL) < 0);
    CHECK_STR(e.msg, "-H 'Content-Length': the client frames each request body itself (Content-Length); drop "
                     "this header");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "-H", "transfer-ENCODING: chunked", NULL) < 0);
    CHECK(strstr(e.msg, "-H 'transfer-ENCODING'") == e.msg);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "-H", "Host: example.test", "-H", "Connection: close", NULL), 0);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--concurrency", "0", NULL) < 0);
    CHECK_STR(e.msg, "--concurrency 0: must be >= 1");
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "-s", "0", NULL) < 0);
    CHECK(strstr(e.msg, "must be 1..999") != NULL);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--max-failure-rate", "1.5", NULL) < 0);
    CHECK(strstr(e.msg, "--max-failure-rate 1.5") == e.msg);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--max-response-bytes", "0", NULL) < 0);
    gp_profile_config_free(&c);

    /* secret -H values: copied, blanked in argv, redacted in input_config */
    char h1[] = "Authorization: Bearer sk-SECRET", h2[] = "X-Tenant: t-SECRET", h3[] = "Accept: x";
    char *argv[] = {"profile", "-m", "m", "-H", h1, "--header", h2, "-H", h3, "--redact-header", "x-tenant", NULL};
    gp_profile_config_init(&c);
    CHECK_INT(gp_profile_parse(&c, 11, argv, "p", &e), 0);
    CHECK_INT(gp_profile_protect_secrets(&c, "ENVKEY", &e), 0);
    CHECK_INT(c.n_headers, 3); /* -H Authorization wins over the environment */
    CHECK_STR(c.headers[0], "Authorization: Bearer sk-SECRET");
    CHECK_STR(c.headers[1], "X-Tenant: t-SECRET");
    CHECK_STR(h1, "Authorization: ***");
    CHECK_STR(h2, "X-Tenant: ***");
    CHECK_STR(h3, "Accept: x");
    json_t *ic = gp_profile_input_config(&c);
    char *txt = json_dumps(ic, 0);
    CHECK(txt && !strstr(txt, "SECRET") && strstr(txt, "\"Authorization: ***\"") && strstr(txt, "Accept: x"));
    free(txt);
    json_decref(ic);
    gp_profile_config_free(&c);

    /* $GENPERF_API_KEY, then --api-key-file (first line, trimmed) */
    char *argv2[] = {"profile", "-m", "m", NULL};
    gp_profile_config_init(&c);
    CHECK_INT(gp_profile_parse(&c, 3, argv2, "p", &e), 0);
    CHECK_INT(gp_profile_protect_secrets(&c, "ENVKEY", &e), 0);
    CHECK_INT(c.n_headers, 1);
    CHECK_STR(c.headers[0], "Authorization: Bearer ENVKEY");
    gp_profile_config_free(&c);
    char kf[] = "/tmp/gp_test_keyfileXXXXXX";
    int fd = mkstemp(kf);
    CHECK(fd >= 0 && write(fd, "  filekey \nsecond\n", 19) == 19);
    close(fd);
    char *argv3[] = {"profile", "-m", "m", "--api-key-file", kf, NULL};
    gp_profile_config_init(&c);
    CHECK_INT(gp_profile_parse(&c, 5, argv3, "p", &e), 0);
    CHECK_INT(gp_profile_protect_secrets(&c, "ENVKEY", &e), 0);
    CHECK_STR(c.headers[0], "Authorization: Bearer filekey");
    gp_profile_config_free(&c);
    char h4[] = "authorization: Bearer other";
    char *argv4[] = {"profile", "-m", "m", "--api-key-file", kf, "-H", h4, NULL};
    gp_profile_config_init(&c);
    CHECK_INT(gp_profile_parse(&c, 7, argv4, "p", &e), 0);
    CHECK(gp_profile_protect_secrets(&c, NULL, &e) < 0);
    CHECK(strstr(e.msg, "pass only one") != NULL);
    gp_profile_config_free(&c);
    unlink(kf);
    char *argv5[] = {"profile", "-m", "m", "--api-key-file", "/nonexistent/k", NULL};
    gp_profile_config_init(&c);
    CHECK_INT(gp_profile_parse(&c, 5, argv5, "p", &e), 0);
    CHECK(gp_profile_protect_secrets(&c, NULL, &e) < 0);
    CHECK(strstr(e.msg, "--api-key-file /nonexistent/k: ") == e.msg);
    gp_profile_config_free(&c);
}

static void test_float_repr(void)
{
    char b[64];
    gp_py_float_repr(10.0, b, sizeof b);
    CHECK_STR(b, "10.0");
    gp_py_float_repr(2.5, b, sizeof b);
    CHECK_STR(b, "2.5");
    gp_py_float_repr(0.1, b, sizeof b);
    CHECK_STR(b, "0.1");
    gp_py_float_repr(1e-05, b, sizeof b);
    CHECK_STR(b, "1e-05");
    gp_py_float_repr(100000.0, b, sizeof b);
    CHECK_STR(b, "100000.0");
    gp_py_float_repr(1e16, b, sizeof b);
    CHECK_STR(b, "1e+16");
    gp_py_float_repr(61.599999999999994, b, sizeof b);
    CHECK_STR(b, "61.599999999999994");
    gp_py_float_repr(-5.0, b, sizeof b);
    CHECK_STR(b, "-5.0");
    gp_py_float_repr(0.0001, b, sizeof b);
    CHECK_STR(b, "0.0001");
    gp_py_float_repr(123.456, b, sizeof b);
    CHECK_STR(b, "123.456");
}

int main(void)
{
    GP_RUN(test_issue_command_line);
    GP_RUN(test_defaults);
    GP_RUN(test_aliases_and_forms);
    GP_RUN(test_every_flag_lands);
    GP_RUN(test_usage_errors);
    GP_RUN(test_config_errors);
    GP_RUN(test_extra_inputs_typing);
    GP_RUN(test_input_config);
    GP_RUN(test_security);
    GP_RUN(test_float_repr);
    return gp_test_summary();
}
