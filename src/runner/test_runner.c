/* Unit tests for runner/: YAML loading, scenario validation, sweep cells,
 * recipe rendering and the profile command line. */
#include "runner/recipe.h"
#include "runner/runner.h"
#include "runner/scenario.h"
#include "runner/yamljson.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *yaml(const char *s)
{
    struct gp_error err = {0};
    json_t *j = gp_yaml_load_string(s, strlen(s), "t.yaml", &err);
    if (!j)
        fprintf(stderr, "yaml: %s\n", err.msg);
    return j;
}

static void test_yaml_types(void)
{
    json_t *j = yaml("a: 1\nb: 2.5\nc: true\nd: ~\ne: '7'\nf: [1, x]\ng: {h: no}\n");
    CHECK(j != NULL);
    CHECK(json_is_integer(json_object_get(j, "a")));
    CHECK(json_is_real(json_object_get(j, "b")));
    CHECK(json_is_true(json_object_get(j, "c")));
    CHECK(json_is_null(json_object_get(j, "d")));
    CHECK_STR(json_string_value(json_object_get(j, "e")), "7");
    CHECK_INT(json_array_size(json_object_get(j, "f")), 2);
    CHECK_STR(json_string_value(json_object_get(json_object_get(j, "g"), "h")), "no");
    json_decref(j);
}

static void test_yaml_errors(void)
{
    struct gp_error err = {0};
    CHECK(gp_yaml_load_string("a: [1, 2\n", 9, "bad.yaml", &err) == NULL);
    CHECK(strstr(err.msg, "bad.yaml line") != NULL);
    CHECK(gp_yaml_load_string("a: 1\na: 2\n", 10, "dup.yaml", &err) == NULL);
    CHECK(strstr(err.msg, "'a' appears twice") != NULL);
    CHECK(gp_yaml_load_string("{\"a\": }", 7, "j.json", &err) == NULL);
    CHECK(strstr(err.msg, "j.json line 1") != NULL);
}

static void test_scenario_defaults_and_cells(void)
{
    json_t *j = yaml("model: m/x\nframework: vllm\nhardware: {gpus: 2}\nconcurrency: [1, 64]\nisl: [128, 512]\nosl: 32\n");
    struct gp_scenario sc;
    struct gp_error err = {0};
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    CHECK_STR(sc.tokenizer, "m/x");
    CHECK_INT(sc.streaming, 1);
    CHECK_INT(sc.seed, 0);
    CHECK_INT(sc.gpus, 2);
    CHECK_INT(gp_scenario_n_cells(&sc), 4);
    struct gp_cell c0 = gp_scenario_cell(&sc, 0), c1 = gp_scenario_cell(&sc, 1), c3 = gp_scenario_cell(&sc, 3);
    CHECK_INT(c0.concurrency, 1);
    CHECK_INT(c0.isl, 128);
    CHECK_INT(c0.requests, 200);          /* max(200, 1 x 10) */
    CHECK_INT(c1.isl, 512);
    CHECK_INT(c3.concurrency, 64);
    CHECK_INT(c3.requests, 640);          /* max(200, 64 x 10) */
    gp_scenario_free(&sc);
    json_decref(j);
}

static void expect_reject(const char *text, const char *needle)
{
    json_t *j = yaml(text);
    struct gp_scenario sc;
    struct gp_error err = {0};
    CHECK(j != NULL);
    CHECK(gp_scenario_from_json(j, "t.yaml", &sc, &err) < 0);
    if (!strstr(err.msg, needle))
        fprintf(stderr, "  message was: %s (wanted '%s')\n", err.msg, needle);
    CHECK(strstr(err.msg, needle) != NULL);
    json_decref(j);
}

static void test_scenario_rejections(void)
{
    expect_reject("framework: vllm\nconcurrency: 1\nisl: 1\nosl: 1\n", "'model' is required");
    expect_reject("model: m\nconcurrency: 1\nisl: 1\nosl: 1\n", "'framework' is required");
    expect_reject("model: m\nframework: attach\nconcurrency: 1\nisl: 1\nosl: 1\n", "needs 'url'");
    expect_reject("model: m\nframework: vllm\nconcurrency: 0\nisl: 1\nosl: 1\n", "positive integers");
    expect_reject("model: m\nframework: vllm\nconcurrency: 1\nisl: 1\n", "'osl' is required");
    expect_reject("model: m\nframework: vllm\nconcurrency: 1\nisl: 1\nosl: 1\nconcurency: 2\n",
                  "unknown key 'concurency'");
    expect_reject("model: m\nframework: vllm\nconcurrency: 1\nisl: 1\nosl: 1\nstreaming: 3\n", "true or false");
    expect_reject("model: m\nframework: vllm\nconcurrency: 1\nisl: 1\nosl: 1\nengine_args: [1]\n", "mapping");
    expect_reject("model: m\nframework: vllm\nconcurrency: 1\nisl: 1\nosl: 1\ngpu_hour_cost: 0\n",
                  "'gpu_hour_cost' must be the positive price");
}

static char *render(const char *framework, const char *scenario_yaml, int tp, int port, struct gp_error *err)
{
    json_t *j = yaml(scenario_yaml);
    struct gp_scenario sc;
    struct gp_recipe r;
    struct gp_argv a = {0};
    struct gp_buf b = {0};
    char *out = NULL;
    if (gp_scenario_from_json(j, "t.yaml", &sc, err) == 0) {
        if (gp_recipe_load(framework, NULL, &r, err) == 0) {
            if (gp_recipe_render(&r, &sc, tp, port, &a, err) == 0) {
                gp_argv_to_shell(&a, &b);
                out = gp_buf_steal(&b);
            }
            gp_recipe_free(&r);
        }
        gp_scenario_free(&sc);
    }
    gp_argv_free(&a);
    gp_buf_free(&b);
    json_decref(j);
    return out;
}

#define BASE "model: Org/M-8B\nconcurrency: 1\nisl: 1\nosl: 1\nframework: x\n"

static void test_recipe_vllm(void)
{
    struct gp_error err = {0};
    char *s = render("vllm",
                     BASE "api_key: K\nengine_args: {max_model_len: 8192, gpu_memory_utilization: 0.9, dtype: auto, "
                          "enable_chunked_prefill: false, max_num_seqs: 256, enforce_eager: true}\n",
                     4, 8123, &err);
    CHECK_STR(s, "vllm serve Org/M-8B --tensor-parallel-size 4 --max-model-len 8192 --gpu-memory-utilization 0.9 "
                 "--max-num-seqs 256 --dtype auto --no-enable-chunked-prefill --port 8123 --host 127.0.0.1 --api-key K "
                 "--enforce-eager");
    free(s);
}

static void test_recipe_sglang(void)
{
    struct gp_error err = {0};
    /* the common (vLLM) names in SGLang's words, server_args.py @ 001067fffe33 */
    char *s = render("sglang",
                     BASE "engine_args: {max_model_len: 4096, gpu_memory_utilization: 0.85, max_num_seqs: 64, "
                          "dtype: bfloat16, enable_chunked_prefill: false, enable_prefix_caching: false, "
                          "reasoning_parser: qwen3}\n",
                     2, 30000, &err);
    CHECK_STR(s, "python3 -m sglang.launch_server --model-path Org/M-8B --tp-size 2 --context-length 4096 "
                 "--mem-fraction-static 0.85 --max-running-requests 64 --dtype bfloat16 --chunked-prefill-size -1 "
                 "--disable-radix-cache --reasoning-parser qwen3 --enable-metrics --port 30000 --host 127.0.0.1");
    free(s);
    s = render("sglang", BASE "engine_args: {enable_prefix_caching: true, enable_chunked_prefill: true}\n", 1, 30000,
               &err);
    CHECK_STR(s, "python3 -m sglang.launch_server --model-path Org/M-8B --tp-size 1 --enable-metrics --port 30000 "
                 "--host 127.0.0.1");
    free(s);
    /* SGLang's own name passes the option list; given beside the common name it is refused */
    s = render("sglang", BASE "engine_args: {mem_fraction_static: 0.8}\n", 1, 30000, &err);
    CHECK_STR(s, "python3 -m sglang.launch_server --model-path Org/M-8B --tp-size 1 --enable-metrics --port 30000 "
                 "--host 127.0.0.1 --mem-fraction-static 0.8");
    free(s);
    s = render("sglang", BASE "engine_args: {mem_fraction_static: 0.8, gpu_memory_utilization: 0.7}\n", 1, 30000,
               &err);
    CHECK(s == NULL);
    CHECK(strstr(err.msg, "--mem-fraction-static is already set") != NULL);
    /* another engine's name for an option SGLang spells differently, and a near miss */
    s = render("sglang", BASE "engine_args: {max_num_batched_tokens: 8192}\n", 1, 30000, &err);
    CHECK(s == NULL);
    CHECK(strstr(err.msg, "sglang has no --max-num-batched-tokens; did you mean --chunked-prefill-size?") != NULL);
    s = render("sglang", BASE "engine_args: {schedule_polcy: lpm}\n", 1, 30000, &err);
    CHECK(s == NULL);
    CHECK(strstr(err.msg, "sglang has no --schedule-polcy; did you mean --schedule-policy?") != NULL);
}

static void test_recipe_trtllm(void)
{
    struct gp_error err = {0};
    /* trtllm-serve's own names pass through (serve.py @ 00209af149e7) */
    char *s = render("trtllm",
                     BASE "api_key: K\nengine_args: {max_num_tokens: 8192, kv_cache_free_gpu_memory_fraction: 0.9, "
                          "backend: pytorch, max_batch_size: 128}\n",
                     8, 8000, &err);
    /* return_perf_metrics (a `set` entry) means the options file is always given */
    CHECK_STR(s, "trtllm-serve Org/M-8B --tp_size 8 --port 8000 --host 127.0.0.1 "
                 "--extra_llm_api_options artifacts/scenario/extra_llm_api_options.yaml --max_num_tokens 8192 "
                 "--kv_cache_free_gpu_memory_fraction 0.9 --backend pytorch --max_batch_size 128");
    free(s);
    /* the common names, and what exists only as an LLM-API option goes to the YAML file */
    s = render("trtllm",
               BASE "engine_args: {max_model_len: 4096, gpu_memory_utilization: 0.8, max_num_seqs: 32, dtype: float16, "
                    "enable_chunked_prefill: true, enable_prefix_caching: false}\n",
               1, 8000, &err);
    CHECK_STR(s, "trtllm-serve Org/M-8B --tp_size 1 --max_seq_len 4096 --kv_cache_free_gpu_memory_fraction 0.8 "
                 "--max_batch_size 32 --enable_chunked_prefill --port 8000 --host 127.0.0.1 "
                 "--extra_llm_api_options artifacts/scenario/extra_llm_api_options.yaml");
    free(s);
    /* a complete option list: any unlisted name is refused, with the nearest */
    s = render("trtllm", BASE "engine_args: {max_num_seqs_x: 3}\n", 1, 8000, &err);
    CHECK(s == NULL);
    CHECK(strstr(err.msg, "trtllm has no --max_num_seqs_x; did you mean") != NULL);
    /* no served-name option: the name only tells the cells what to send */
    s = render("trtllm", BASE "engine_args: {served_model_name: x}\n", 1, 8000, &err);
    CHECK_STR(s, "trtllm-serve Org/M-8B --tp_size 1 --port 8000 --host 127.0.0.1 "
                 "--extra_llm_api_options artifacts/scenario/extra_llm_api_options.yaml");
    free(s);
    s = render("trtllm", BASE "engine_args: {mem_fraction_static: 0.5}\n", 1, 8000, &err);
    CHECK(s == NULL);
    CHECK(strstr(err.msg, "did you mean --kv_cache_free_gpu_memory_fraction?") != NULL);
}

static void test_recipe_unknown(void)
{
    struct gp_recipe r;
    struct gp_error err = {0};
    CHECK(gp_recipe_load("tgi", NULL, &r, &err) < 0);
    CHECK(strstr(err.msg, "unknown framework 'tgi'") != NULL);
    CHECK(strstr(err.msg, "vllm") != NULL);
    CHECK(gp_recipe_load("../etc/passwd", NULL, &r, &err) < 0);
}

static void test_shell_quoting(void)
{
    struct gp_argv a = {0};
    struct gp_buf b = {0};
    gp_argv_push(&a, "x");
    gp_argv_push(&a, "Authorization: Bearer K");
    gp_argv_push(&a, "it's");
    gp_argv_push(&a, "");
    gp_argv_to_shell(&a, &b);
    CHECK_STR(b.data, "x 'Authorization: Bearer K' 'it'\\''s' ''");
    gp_argv_free(&a);
    gp_buf_free(&b);
}

static void test_profile_argv(void)
{
    json_t *j = yaml("model: Qwen/Qwen3-8B\nframework: attach\nurl: http://h:1\nconcurrency: 16\nisl: 512\nosl: 128\n"
                     "api_key: KEY\nprofile_args: [--warmup-request-count, '2']\n");
    struct gp_scenario sc;
    struct gp_error err = {0};
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    struct gp_cell c = gp_scenario_cell(&sc, 0);
    struct gp_argv a = {0};
    struct gp_buf b = {0};
    gp_runner_profile_argv(&sc, &c, "genperf", "http://h:1", "out/c16", &a);
    gp_argv_to_shell(&a, &b);
    /* the key goes through $GENPERF_API_KEY, never on the command line */
    CHECK(strstr(b.data, "KEY") == NULL);
    CHECK_STR(b.data,
              "genperf profile -m Qwen/Qwen3-8B --url http://h:1 "
              "-H 'Accept: text/event-stream' --tokenizer Qwen/Qwen3-8B --endpoint-type chat --streaming "
              "--synthetic-input-tokens-mean 512 --synthetic-input-tokens-stddev 0 --output-tokens-mean 128 "
              "--output-tokens-stddev 0 --request-count 200 --num-dataset-entries 200 --concurrency 16 "
              "--random-seed 0 --profile-export-file profile_export_c16_isl512_osl128.json --artifact-dir out/c16 "
              "--warmup-request-count 2");
    gp_argv_free(&a);
    gp_buf_free(&b);
    gp_scenario_free(&sc);
    json_decref(j);
}

/* A served_model_name is the name the server answers to, so every cell sends
 * it; the tokenizer stays the model's (issue 39 item 1). */
static void test_profile_argv_served_name(void)
{
    json_t *j = yaml("model: Qwen/Qwen3-8B\nframework: vllm\nconcurrency: 1\nisl: 8\nosl: 4\n"
                     "engine_args: {served_model_name: qwen}\n");
    struct gp_scenario sc;
    struct gp_error err = {0};
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    struct gp_cell c = gp_scenario_cell(&sc, 0);
    struct gp_argv a = {0};
    struct gp_buf b = {0};
    gp_runner_profile_argv(&sc, &c, "genperf", "http://h:1", "o", &a);
    gp_argv_to_shell(&a, &b);
    CHECK(strstr(b.data, "genperf profile -m qwen --url http://h:1 ") == b.data);
    CHECK(strstr(b.data, "--tokenizer Qwen/Qwen3-8B ") != NULL);
    gp_argv_free(&a);
    gp_buf_free(&b);
    gp_scenario_free(&sc);
    json_decref(j);
}

/* The trtllm recipe's llm_api_options keep the scenario's types and nest the
 * dotted keys, as trtllm-serve's --extra_llm_api_options YAML wants them. */
static void test_llm_api_options(void)
{
    json_t *j = yaml("model: m\nframework: trtllm\nconcurrency: 1\nisl: 8\nosl: 4\nname: s\nartifact_dir: a\n"
                     "engine_args: {dtype: bfloat16, enable_prefix_caching: false, gpu_memory_utilization: 0.8}\n");
    struct gp_scenario sc;
    struct gp_recipe r;
    struct gp_error err = {0};
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    CHECK_INT(gp_recipe_load("trtllm", NULL, &r, &err), 0);
    json_t *o = NULL;
    char path[256];
    CHECK_INT(gp_recipe_llm_api_options(&r, &sc, &o, path, sizeof path, &err), 0);
    char *text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(15));
    CHECK_STR(text, "{\"dtype\":\"bfloat16\",\"kv_cache_config\":{\"enable_block_reuse\":false,"
                    "\"free_gpu_memory_fraction\":0.8},\"return_perf_metrics\":true}");
    CHECK_STR(path, "a/s/extra_llm_api_options.yaml");
    free(text);
    json_decref(o);
    gp_scenario_free(&sc);
    json_decref(j);
    /* the scenario's own options file: its keys win, the recipe's fill in beside them */
    char tmpl[] = "/tmp/gp-llmapi-XXXXXX";
    int fd = mkstemp(tmpl);
    CHECK(fd >= 0);
    const char *mine = "kv_cache_config:\n  enable_block_reuse: true\nmax_beam_width: 2\nreturn_perf_metrics: false\n";
    CHECK(write(fd, mine, strlen(mine)) == (ssize_t)strlen(mine));
    close(fd);
    char doc[512];
    snprintf(doc, sizeof doc,
             "model: m\nframework: trtllm\nconcurrency: 1\nisl: 8\nosl: 4\n"
             "engine_args: {extra_llm_api_options: %s, enable_prefix_caching: false, gpu_memory_utilization: 0.5}\n",
             tmpl);
    j = yaml(doc);
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    CHECK_INT(gp_recipe_llm_api_options(&r, &sc, &o, path, sizeof path, &err), 0);
    text = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(15));
    /* ...its return_perf_metrics: false too, over the recipe's `set` */
    CHECK_STR(text, "{\"kv_cache_config\":{\"enable_block_reuse\":true,\"free_gpu_memory_fraction\":0.5},"
                    "\"max_beam_width\":2,\"return_perf_metrics\":false}");
    free(text);
    json_decref(o);
    /* and the flag is given once, with the written file */
    struct gp_argv a = {0};
    CHECK_INT(gp_recipe_render(&r, &sc, 1, 8000, &a, &err), 0);
    size_t nflag = 0;
    for (size_t k = 0; k < a.n; k++)
        nflag += !strcmp(a.v[k], "--extra_llm_api_options");
    CHECK_INT(nflag, 1);
    CHECK_STR(a.v[a.n - 1], "artifacts/scenario/extra_llm_api_options.yaml");
    gp_argv_free(&a);
    unlink(tmpl);
    gp_recipe_free(&r);
    gp_scenario_free(&sc);
    json_decref(j);
}

/* gpu_hour_cost: reaches genperf profile as --gpu-hour-cost (issue 32). */
static void test_profile_argv_cost(void)
{
    json_t *j = yaml("model: m\nframework: attach\nurl: http://h:1\nconcurrency: 1\nisl: 8\nosl: 2\nrequests: 6\n"
                     "gpu_hour_cost: 2.5\n");
    struct gp_scenario sc;
    struct gp_error err = {0};
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    struct gp_cell c = gp_scenario_cell(&sc, 0);
    struct gp_argv a = {0};
    struct gp_buf b = {0};
    gp_runner_profile_argv(&sc, &c, "genperf", "http://h:1", "o", &a);
    gp_argv_to_shell(&a, &b);
    CHECK(b.data && strstr(b.data, " --gpu-hour-cost 2.5 --profile-export-file ") != NULL);
    gp_argv_free(&a);
    gp_buf_free(&b);
    gp_scenario_free(&sc);
    json_decref(j);
}

/* load: {...} wraps the profile in mpirun and adds --workers (issue 17). */
static void test_profile_argv_load(void)
{
    json_t *j = yaml("model: m\nframework: attach\nurl: http://h:1\nconcurrency: 4\nisl: 8\nosl: 2\nrequests: 6\n"
                     "streaming: false\napi_key: KEY\n"
                     "load: {workers: 2, hosts: [a, b], mpirun_args: [--oversubscribe]}\n");
    struct gp_scenario sc;
    struct gp_error err = {0};
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    CHECK(gp_scenario_uses_mpirun(&sc));
    struct gp_cell c = gp_scenario_cell(&sc, 0);
    struct gp_argv a = {0};
    struct gp_buf b = {0};
    gp_runner_profile_argv(&sc, &c, "/g", "http://h:1", "o", &a);
    gp_argv_to_shell(&a, &b);
    CHECK_STR(b.data,
              "mpirun -n 2 --host a,b -x GENPERF_API_KEY --mca odls_base_sigkill_timeout 3 --oversubscribe /g "
              "profile -m m --url http://h:1 "
              "--tokenizer m --endpoint-type chat --synthetic-input-tokens-mean 8 --synthetic-input-tokens-stddev 0 "
              "--output-tokens-mean 2 --output-tokens-stddev 0 --request-count 6 --num-dataset-entries 6 "
              "--concurrency 4 --random-seed 0 --workers 2 --profile-export-file profile_export_c4_isl8_osl2.json "
              "--artifact-dir o");
    gp_argv_free(&a);
    gp_buf_free(&b);
    gp_scenario_free(&sc);
    json_decref(j);
    /* a timeout of the scenario's own replaces ours */
    j = yaml("model: m\nframework: attach\nurl: u\nconcurrency: 1\nisl: 1\nosl: 1\n"
             "load: {ranks: 2, mpirun_args: [--mca, odls_base_sigkill_timeout, '20']}\n");
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    gp_runner_profile_argv(&sc, &c, "/g", "u", "o", &a);
    gp_argv_to_shell(&a, &b);
    const char *head = "mpirun -n 2 --bind-to none --mca odls_base_sigkill_timeout 20 /g profile ";
    CHECK(!strncmp(b.data, head, strlen(head)));
    CHECK(strstr(b.data, "timeout 3") == NULL);
    gp_argv_free(&a);
    gp_buf_free(&b);
    gp_scenario_free(&sc);
    json_decref(j);
    /* one host: ranks unbound unless the scenario binds them itself */
    j = yaml("model: m\nframework: attach\nurl: u\nconcurrency: 1\nisl: 1\nosl: 1\n"
             "load: {ranks: 2, mpirun_args: [--bind-to, core]}\n");
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    gp_runner_profile_argv(&sc, &c, "/g", "u", "o", &a);
    gp_argv_to_shell(&a, &b);
    head = "mpirun -n 2 --mca odls_base_sigkill_timeout 3 --bind-to core /g profile ";
    CHECK(!strncmp(b.data, head, strlen(head)));
    CHECK(strstr(b.data, "none") == NULL);
    gp_argv_free(&a);
    gp_buf_free(&b);
    gp_scenario_free(&sc);
    json_decref(j);
    /* ranks: 1 and workers alone stay one plain process */
    j = yaml("model: m\nframework: attach\nurl: u\nconcurrency: 1\nisl: 1\nosl: 1\nload: {ranks: 1, workers: auto}\n");
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    CHECK(!gp_scenario_uses_mpirun(&sc));
    CHECK_INT(sc.workers, -1);
    gp_scenario_free(&sc);
    json_decref(j);
    const char *base = "model: m\nframework: attach\nurl: u\nconcurrency: 1\nisl: 1\nosl: 1\n";
    char text[512];
    static const char *const bad[][2] = {
        {"load: {ranks: 0}", "'load.ranks' must be an integer >= 1"},
        {"load: {ranks: 1.5}", "'load.ranks' must be an integer >= 1"},
        {"load: {workers: -3}", "'load.workers' must be an integer >= 1 or auto"},
        {"load: {hostz: [a]}", "unknown key 'load.hostz'"},
        {"load: {hosts: [a, '']}", "'load.hosts' must be a list of host names without commas or spaces (item 2"},
        {"load: {mpirun_args: [1]}", "'load.mpirun_args' must be a list of non-empty strings (item 1"},
        {"load: 3", "'load' must be a mapping"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s\n", base, bad[i][0]);
        expect_reject(text, bad[i][1]);
    }
}

/* tool: the choices, and a command that replaces `genperf profile` with the
 * same flags; a non-genperf tool gets the API key as a header. */
static void test_tool(void)
{
    static const char *const bad[] = {"tool: perf_analyzer\n", "tool: {command: []}\n", "tool: {command: [a, 1]}\n",
                                      "tool: {command: [a], x: 1}\n", "tool: [genperf]\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "model: m\nframework: attach\nurl: http://h:1\nconcurrency: 1\nisl: 1\nosl: 1\n%s",
                 bad[i]);
        json_t *j = yaml(text);
        struct gp_scenario sc;
        struct gp_error err = {0};
        CHECK(gp_scenario_from_json(j, "t.yaml", &sc, &err) < 0);
        CHECK(strstr(err.msg, "tool") != NULL);
        json_decref(j);
    }
    json_t *j = yaml("model: m\nframework: attach\nurl: http://h:1\nconcurrency: 2\nisl: 8\nosl: 4\napi_key: KEY\n"
                     "tool: {command: [/opt/gap/bin/genai-perf, profile]}\n");
    struct gp_scenario sc;
    struct gp_error err = {0};
    CHECK_INT(gp_scenario_from_json(j, "t.yaml", &sc, &err), 0);
    CHECK_STR(sc.tool, "command");
    struct gp_cell c = gp_scenario_cell(&sc, 0);
    struct gp_argv a = {0};
    struct gp_buf b = {0};
    gp_runner_profile_argv(&sc, &c, "genperf", "http://h:1", "out/c2", &a);
    gp_argv_to_shell(&a, &b);
    CHECK(!strncmp(b.data, "/opt/gap/bin/genai-perf profile -m m --url http://h:1 -H 'Authorization: Bearer KEY' ", 85));
    CHECK(strstr(b.data, "--concurrency 2 --random-seed 0") != NULL);
    gp_argv_free(&a);
    gp_buf_free(&b);
    gp_scenario_free(&sc);
    json_decref(j);
}

int main(void)
{
    GP_RUN(test_yaml_types);
    GP_RUN(test_yaml_errors);
    GP_RUN(test_scenario_defaults_and_cells);
    GP_RUN(test_scenario_rejections);
    GP_RUN(test_profile_argv_cost);
    GP_RUN(test_recipe_vllm);
    GP_RUN(test_recipe_sglang);
    GP_RUN(test_recipe_trtllm);
    GP_RUN(test_recipe_unknown);
    GP_RUN(test_shell_quoting);
    GP_RUN(test_profile_argv);
    GP_RUN(test_profile_argv_load);
    GP_RUN(test_profile_argv_served_name);
    GP_RUN(test_llm_api_options);
    GP_RUN(test_tool);
    return gp_test_summary();
}
