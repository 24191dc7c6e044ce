/* serve/cmd_serve.c — `genperf serve`: flag parsing for serve/server.c.
 *
 * Owns nothing past the call: the options struct points into argv. Blocks
 * SIGTERM/SIGINT before the server starts so that it receives them through
 * its signalfd and shuts down cleanly (timing log flushed, exit 0).
 */
#include "commands.h"
#include "core/error.h"
#include "serve/render.h"
#include "serve/server.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static void usage(FILE *fp)
{
    fputs("usage: genperf serve [options]\n"
          "A simulated OpenAI-compatible server (vLLM, SGLang or TensorRT-LLM wire format).\n\n"
          "  --host H                   bind address (127.0.0.1)\n"
          "  --port N                   port (8000; 0 picks a free one)\n"
          "  --port-file PATH           write http://HOST:PORT there (atomically) once listening\n"
          "  --flavor vllm|sglang|trtllm  wire format to reproduce (vllm)\n"
          "  --model NAME               served model id (genperf-sim); any name in requests is accepted\n"
          "  --tokenizer SPEC           tokenizer whose tokens are emitted (builtin)\n"
          "  --seed N                   seed for token text, EOS and faults (0)\n"
          "timing (zero-delay > fixed delays > batching model):\n"
          "  --zero-delay               emit as fast as the socket takes it\n"
          "  --ttft-ms X --itl-ms Y     fixed delays: first token X ms after the request, then one every Y ms\n"
          "  --prefill-us-per-token X   batching model: prefill cost per prompt token (20)\n"
          "  --decode-step-ms X         batching model: fixed cost of one engine step (5)\n"
          "  --decode-step-per-seq-us X batching model: added step cost per decoding sequence (20)\n"
          "  --max-batch N              batching model: most sequences in a step (256)\n"
          "  --kv-tokens N              batching model: KV-cache capacity in tokens (1048576)\n"
          "  --max-batched-tokens N     batching model: tokens per step, chunked prefill (8192; 0 = no limit)\n"
          "  --max-queued N             batching model: 503 once N requests wait (vLLM --max-num-queued-reqs; 0 = off)\n"
          "requests:\n"
          "  --max-tokens-default N     output length when a request sets none (256)\n"
          "  --max-model-len N          prompt + output limit, else 400 (131072)\n"
          "  --eos-rate P               per-token chance of an early stop unless ignore_eos (0)\n"
          "  --reasoning N              emit the first N output tokens as reasoning\n"
          "  --stream-interval N        after the first token, one chunk per N tokens (1)\n"
          "  --api-key KEY              require 'Authorization: Bearer KEY' on /v1/* (401 otherwise)\n"
          "  --strict-model             404 for any request model but --model, as vLLM does\n"
          "  --idle-timeout-s S         close idle keep-alive connections after S s (5, like uvicorn)\n"
          "  --sse-keep-alive-s S       ': keep-alive' SSE comment after S s of silence (vLLM; not in batching mode)\n"
          "  --timing-log FILE          JSON line per request with the chunk send times (written at exit)\n"
          "faults (probability per request, seeded):\n"
          "  --fault-rate-429 P --fault-rate-500 P --fault-rate-503 P   error status before streaming\n"
          "  --fault-rate-stream-error P  error event mid-stream (TRT-LLM: connection dropped)\n"
          "  --fault-rate-reset P       TCP reset mid-stream\n"
          "  --fault-rate-stall P --stall-s S  no bytes for S seconds mid-stream (2)\n"
          "  --fault-rate-malformed P   one broken JSON chunk mid-stream\n"
          "  --slow-headers-ms X        delay responses by X ms before their headers (all of them, or\n"
          "                             with --fault-rate-slow-headers P only those drawn; then 1000 by default)\n"
          "  --load-s S                 simulate S s of model loading: vllm/trtllm refuse connections,\n"
          "                             sglang listens but /health answers 503 until then\n"
          "  --quiet                    no banner on stderr\n",
          fp);
}

static int num(const char *flag, const char *v, double lo, double hi, double *out, struct gp_error *err)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || d != d || d < lo || d > hi)
        return gp_err(err, GP_EINVAL, "%s '%s': expected a number in [%g, %g]", flag, v, lo, hi);
    *out = d;
    return 0;
}

int cmd_serve(int argc, char **argv)
{
    struct gp_serve_opts o;
    gp_serve_opts_default(&o);
    struct gp_error err = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        char flag[64];
        const char *v = NULL;
        const char *eq = strchr(a, '=');
        if (!strncmp(a, "--", 2) && eq && (size_t)(eq - a) < sizeof flag) {
            memcpy(flag, a, (size_t)(eq - a));
            flag[eq - a] = '\0';
            v = eq + 1;
        } else {
            snprintf(flag, sizeof flag, "%s", a);
        }
        if (!strcmp(flag, "--zero-delay")) { o.zero_delay = 1; continue; }
        if (!strcmp(flag, "--quiet")) { o.quiet = 1; continue; }
        if (!strcmp(flag, "--strict-model")) { o.strict_model = 1; continue; }
        if (!v) {
            if (i + 1 >= argc) {
                fprintf(stderr, "genperf serve: %s needs a value (see genperf serve --help)\n", flag);
                return 2;
            }
            v = argv[++i];
        }
        double d = 0;
        int rc = 0;
        if (!strcmp(flag, "--host")) o.host = v;
        else if (!strcmp(flag, "--port")) { rc = num(flag, v, 0, 65535, &d, &err); o.port = (int)d; }
        else if (!strcmp(flag, "--port-file")) o.port_file = v;
        else if (!strcmp(flag, "--flavor")) {
            o.flavor = gp_flavor_parse(v);
            if (o.flavor < 0)
                rc = gp_err(&err, GP_EINVAL, "--flavor '%s': expected vllm, sglang or trtllm", v);
        }
        else if (!strcmp(flag, "--model") || !strcmp(flag, "--served-model-name")) o.model = v;
        else if (!strcmp(flag, "--tokenizer")) o.tokenizer = v;
        else if (!strcmp(flag, "--seed")) { rc = num(flag, v, 0, 1.8e19, &d, &err); o.seed = (uint64_t)d; }
        else if (!strcmp(flag, "--ttft-ms")) rc = num(flag, v, 0, 3.6e6, &o.ttft_ms, &err);
        else if (!strcmp(flag, "--itl-ms")) rc = num(flag, v, 0, 3.6e6, &o.itl_ms, &err);
        else if (!strcmp(flag, "--prefill-us-per-token")) rc = num(flag, v, 0, 1e6, &o.prefill_us_per_token, &err);
        else if (!strcmp(flag, "--decode-step-ms")) rc = num(flag, v, 0, 1e5, &o.decode_step_ms, &err);
        else if (!strcmp(flag, "--decode-step-per-seq-us")) rc = num(flag, v, 0, 1e6, &o.decode_step_per_seq_us, &err);
        else if (!strcmp(flag, "--max-batch")) { rc = num(flag, v, 1, 1e7, &d, &err); o.max_batch = (uint32_t)d; }
        else if (!strcmp(flag, "--kv-tokens")) { rc = num(flag, v, 1, 1e15, &d, &err); o.kv_tokens = (uint64_t)d; }
        else if (!strcmp(flag, "--max-batched-tokens")) { rc = num(flag, v, 0, 4e9, &d, &err); o.max_batched_tokens = (uint32_t)d; }
        else if (!strcmp(flag, "--max-queued")) { rc = num(flag, v, 0, 4e9, &d, &err); o.max_queued = (uint32_t)d; }
        else if (!strcmp(flag, "--timing-log")) o.timing_log = v;
        else if (!strcmp(flag, "--api-key")) o.api_key = v;
        else if (!strcmp(flag, "--max-tokens-default")) { rc = num(flag, v, 1, 1e8, &d, &err); o.max_tokens_default = (uint32_t)d; }
        else if (!strcmp(flag, "--max-model-len")) { rc = num(flag, v, 1, 4e9, &d, &err); o.max_model_len = (uint32_t)d; }
        else if (!strcmp(flag, "--eos-rate")) rc = num(flag, v, 0, 1, &o.eos_rate, &err);
        else if (!strcmp(flag, "--reasoning")) { rc = num(flag, v, 0, 1e8, &d, &err); o.reasoning = (uint32_t)d; }
        else if (!strcmp(flag, "--stream-interval")) { rc = num(flag, v, 1, 1e6, &d, &err); o.stream_interval = (uint32_t)d; }
        else if (!strcmp(flag, "--idle-timeout-s")) rc = num(flag, v, 0.001, 1e6, &o.idle_timeout_s, &err);
        else if (!strcmp(flag, "--sse-keep-alive-s")) rc = num(flag, v, 0, 3600, &o.sse_keep_alive_s, &err);
        else if (!strcmp(flag, "--fault-rate-429")) rc = num(flag, v, 0, 1, &o.rate_429, &err);
        else if (!strcmp(flag, "--fault-rate-500")) rc = num(flag, v, 0, 1, &o.rate_500, &err);
        else if (!strcmp(flag, "--fault-rate-503")) rc = num(flag, v, 0, 1, &o.rate_503, &err);
        else if (!strcmp(flag, "--fault-rate-stream-error")) rc = num(flag, v, 0, 1, &o.rate_stream_error, &err);
        else if (!strcmp(flag, "--fault-rate-reset")) rc = num(flag, v, 0, 1, &o.rate_reset, &err);
        else if (!strcmp(flag, "--fault-rate-stall")) rc = num(flag, v, 0, 1, &o.rate_stall, &err);
        else if (!strcmp(flag, "--fault-rate-malformed")) rc = num(flag, v, 0, 1, &o.rate_malformed, &err);
        else if (!strcmp(flag, "--fault-rate-slow-headers")) rc = num(flag, v, 0, 1, &o.rate_slow_headers, &err);
        else if (!strcmp(flag, "--stall-s")) rc = num(flag, v, 0, 3600, &o.stall_s, &err);
        else if (!strcmp(flag, "--slow-headers-ms")) rc = num(flag, v, 0, 3.6e6, &o.slow_headers_ms, &err);
        else if (!strcmp(flag, "--load-s")) rc = num(flag, v, 0, 3600, &o.load_s, &err);
        else {
            fprintf(stderr, "genperf serve: unknown option '%s' (see genperf serve --help)\n", a);
            return 2;
        }
        if (rc) {
            fprintf(stderr, "genperf serve: %s\n", err.msg);
            return 2;
        }
    }
    double tot = o.rate_429 + o.rate_500 + o.rate_503 + o.rate_stream_error + o.rate_reset + o.rate_stall +
                 o.rate_malformed + o.rate_slow_headers;
    if (tot > 1.0 + 1e-9) {
        fprintf(stderr, "genperf serve: the --fault-rate-* values add up to %g; their sum must be at most 1\n", tot);
        return 2;
    }
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
