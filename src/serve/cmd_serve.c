/* serve/cmd_serve.c — `genperf serve`: flag parsing for serve/server.c.
 *
 * Owns nothing past the call: the options struct points into argv. Blocks
 * SIGTERM/SIGINT before the server starts so that it receives them through
 * its signalfd and shuts down cleanly (timing log flushed, exit 0).
 */
#include "commands.h"
#include "core/argv.h"
#include "core/error.h"
#include "serve/render.h"
#include "serve/server.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int set_flavor(void *ctx, const char *name, const char *v, struct gp_error *err)
{
    struct gp_serve_opts *o = ctx;
    o->flavor = gp_flavor_parse(v);
    if (o->flavor < 0)
        return gp_err(err, GP_EINVAL, "--flavor '%s': expected vllm, sglang or trtllm", v);
    return 0;
}

#define DBL(name, dst, metavar, lo, hi, help) GP_NUM(GP_OPT_DOUBLE, name, NULL, dst, metavar, lo, hi, help)
#define U32(name, dst, lo, hi, help) GP_NUM(GP_OPT_U32, name, NULL, dst, "N", lo, hi, help)
#define RATE(name, dst, help) DBL(name, dst, "P", 0, 1, help)

int cmd_serve(int argc, char **argv)
{
    struct gp_serve_opts o;
    gp_serve_opts_default(&o);
    uint64_t max_body = o.max_body;
    const struct gp_optdef defs[] = {
        GP_STR("--host", NULL, &o.host, "H", "bind address (127.0.0.1)"),
        GP_NUM(GP_OPT_INT, "--port", NULL, &o.port, "N", 0, 65535, "port (8000; 0 picks a free one)"),
        GP_STR("--port-file", NULL, &o.port_file, "PATH", "write http://HOST:PORT there (atomically) once listening"),
        GP_CALL("--flavor", NULL, set_flavor, "vllm|sglang|trtllm", "wire format to reproduce (vllm)"),
        GP_STR("--model", "--served-model-name", &o.model, "NAME",
               "served model id (genperf-sim); any name in requests is accepted"),
        GP_STR("--tokenizer", NULL, &o.tokenizer, "SPEC", "tokenizer whose tokens are emitted (builtin)"),
        GP_NUM(GP_OPT_U64, "--seed", NULL, &o.seed, "N", 0, 1.8e19, "seed for token text, EOS and faults (0)"),
        GP_TEXT("timing (zero-delay > fixed delays > batching model):"),
        GP_FLAG("--zero-delay", NULL, &o.zero_delay, "emit as fast as the socket takes it"),
        DBL("--ttft-ms", &o.ttft_ms, "X", 0, 3.6e6, "fixed delays: first token X ms after the request, then"),
        DBL("--itl-ms", &o.itl_ms, "Y", 0, 3.6e6, "one every Y ms"),
        DBL("--prefill-us-per-token", &o.prefill_us_per_token, "X", 0, 1e6,
            "batching model: prefill cost per prompt token (20)"),
        DBL("--decode-step-ms", &o.decode_step_ms, "X", 0, 1e5, "batching model: fixed cost of one engine step (5)"),
        DBL("--decode-step-per-seq-us", &o.decode_step_per_seq_us, "X", 0, 1e6,
            "batching model: added step cost per decoding sequence (20)"),
        U32("--max-batch", &o.max_batch, 1, 1e7, "batching model: most sequences in a step (256)"),
        GP_NUM(GP_OPT_U64, "--kv-tokens", NULL, &o.kv_tokens, "N", 1, 1e15,
               "batching model: KV-cache capacity in tokens (1048576)"),
        U32("--max-batched-tokens", &o.max_batched_tokens, 0, 4e9,
            "batching model: tokens per step, chunked prefill (8192; 0 = no limit)"),
        U32("--max-queued", &o.max_queued, 0, 4e9,
            "batching model: 503 once N requests wait (vLLM --max-num-queued-reqs; 0 = off)"),
        GP_FLAG("--prefix-cache", NULL, &o.prefix_cache,
                "model an automatic prefix cache (16-token blocks): a prompt's leading blocks seen\n"
                "before are not prefilled again (fixed delays: the TTFT shrinks by the cached share);\n"
                "usage.prompt_tokens_details.cached_tokens (vllm flavour: with the next flag);\n"
                "/metrics: vllm:prefix_cache_* counters,\n"
                "sglang:cached_tokens_total (and the cache_hit_rate gauge), trtllm_kv_cache_hit_rate"),
        GP_FLAG("--enable-prompt-tokens-details", NULL, &o.prompt_tokens_details,
                "vLLM flavour: send usage.prompt_tokens_details.cached_tokens (absent without it, as vLLM)"),
        GP_TEXT("requests:"),
        U32("--max-tokens-default", &o.max_tokens_default, 1, 1e8, "output length when a request sets none (256)"),
        U32("--max-model-len", &o.max_model_len, 1, 4e9, "prompt + output limit, else 400 (131072)"),
        DBL("--eos-rate", &o.eos_rate, "P", 0, 1, "per-token chance of an early stop unless ignore_eos (0)"),
        U32("--reasoning", &o.reasoning, 0, 1e8, "emit the first N output tokens as reasoning"),
        DBL("--miscount-rate", &o.miscount_rate, "P", 0, 1,
            "share of requests whose usage.completion_tokens is one too many, on purpose (0)"),
        DBL("--invalid-json-rate", &o.invalid_json_rate, "P", 0, 1,
            "share of response_format json_schema answers sent as JSON cut short, on purpose (0)"),
        U32("--stream-interval", &o.stream_interval, 1, 1e6,
            "after the first token, one chunk per N tokens (1); chunking, as SGLang's\n"
            "--stream-interval or vLLM's output merging: no spec-decode metrics"),
        U32("--stream-interval-max", &o.stream_interval_max, 1, 1e6,
            "speculative mode: each chunk after the first carries a random count from\n"
            "--stream-interval to M tokens (M - 1 drafts per step; seeded by --seed);\n"
            "/metrics exports the spec-decode counters (vllm) or accept length (sglang)"),
        GP_NUM(GP_OPT_U64, "--max-body-bytes", NULL, &max_body, "N", 1, 1e12,
               "larger request bodies are refused with 413 (67108864, 64 MiB)"),
        GP_STR("--api-key", NULL, &o.api_key, "KEY", "require 'Authorization: Bearer KEY' on /v1/* (401 otherwise)"),
        GP_FLAG("--strict-model", NULL, &o.strict_model, "404 for any request model but --model, as vLLM does"),
        GP_FLAG("--enable-auto-tool-choice", NULL, &o.auto_tool_choice,
                "vLLM flavour: answer tool_choice \"auto\" (the default when tools are sent); without it\n"
                "400, as vLLM started without --enable-auto-tool-choice --tool-call-parser"),
        GP_STR("--lora", NULL, &o.lora, "A,B",
               "LoRA adapters served besides --model: accepted by --strict-model, echoed in \"model\""),
        DBL("--lora-ttft-ms", &o.lora_ttft_ms, "X", 0, 3.6e6,
            "a request naming a --lora adapter gets its first token X ms later (fixed/zero-delay timing)"),
        DBL("--idle-timeout-s", &o.idle_timeout_s, "S", 0.001, 1e6,
            "close idle keep-alive connections after S s (5, like uvicorn)"),
        DBL("--sse-keep-alive-s", &o.sse_keep_alive_s, "S", 0, 3600,
            "': keep-alive' SSE comment after S s of silence (vLLM; not in batching mode)"),
        GP_STR("--timing-log", NULL, &o.timing_log, "FILE",
               "JSON line per request with the chunk send times (written at exit)"),
        GP_TEXT("faults (probability per request, seeded):"),
        RATE("--fault-rate-429", &o.rate_429, "error status 429 before streaming"),
        RATE("--fault-rate-500", &o.rate_500, "error status 500 before streaming"),
        RATE("--fault-rate-503", &o.rate_503, "error status 503 before streaming"),
        RATE("--fault-rate-stream-error", &o.rate_stream_error,
             "error event mid-stream (TRT-LLM: connection dropped)"),
        RATE("--fault-rate-reset", &o.rate_reset, "TCP reset mid-stream"),
        RATE("--fault-rate-stall", &o.rate_stall, "no bytes for --stall-s seconds mid-stream"),
        DBL("--stall-s", &o.stall_s, "S", 0, 3600, "length of a stall (2)"),
        RATE("--fault-rate-malformed", &o.rate_malformed, "one broken JSON chunk mid-stream"),
        DBL("--slow-headers-ms", &o.slow_headers_ms, "X", 0, 3.6e6,
            "delay responses by X ms before their headers (all of them, or\n"
            "with --fault-rate-slow-headers P only those drawn; then 1000 by default)"),
        RATE("--fault-rate-slow-headers", &o.rate_slow_headers, "share of responses whose headers are delayed"),
        DBL("--load-s", &o.load_s, "S", 0, 3600, "simulate S s of model loading: vllm/trtllm refuse connections,\n"
                                                  "sglang listens but /health answers 503 until then"),
        GP_FLAG("--quiet", NULL, &o.quiet, "no banner on stderr"),
    };
    const struct gp_optspec spec = {
        "serve",
        "usage: genperf serve [options]\n"
        "A simulated OpenAI-compatible server (vLLM, SGLang or TensorRT-LLM wire format).\n\n",
        NULL, defs, GP_NDEFS(defs), 27, &o};
    struct gp_error err = {0};
    int npos = gp_argv_parse(&spec, argc, argv);
    if (npos < 0)
        return npos == GP_ARGV_HELP ? 0 : 2;
    if (npos > 0)
        return gp_argv_error(&spec, "unexpected argument '%s'", argv[1]);
    double tot = o.rate_429 + o.rate_500 + o.rate_503 + o.rate_stream_error + o.rate_reset + o.rate_stall +
                 o.rate_malformed + o.rate_slow_headers;
    if (tot > 1.0 + 1e-9) {
        return gp_argv_error(&spec, "the --fault-rate-* values add up to %g; their sum must be at most 1", tot);
    }
    if (o.stream_interval_max && o.stream_interval_max < o.stream_interval)
        return gp_argv_error(&spec, "--stream-interval-max %u is below --stream-interval %u; pass a maximum at least as "
                                    "large", o.stream_interval_max, o.stream_interval);
    o.max_body = (size_t)max_body;
    /* the server takes these through a signalfd; SIGPIPE is moot (MSG_NOSIGNAL) but a
     * stray write to a closed stdout must not kill it either */
    sigset_t ss;
    sigemptyset(&ss);
    sigaddset(&ss, SIGTERM);
    sigaddset(&ss, SIGINT);
    sigprocmask(SIG_BLOCK, &ss, NULL);
    /* thousands of concurrent streams need thousands of descriptors */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    signal(SIGPIPE, SIG_IGN);
    int rc = gp_serve_run(&o, &err);
    if (rc) {
        fprintf(stderr, "genperf serve: %s\n", err.msg);
        return 1;
    }
    return 0;
}
