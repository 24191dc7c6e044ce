/* serve/server.h — `genperf serve`: a single-threaded epoll HTTP/1.1 server
 * that impersonates vLLM, SGLang or TensorRT-LLM (see docs/serve.md).
 *
 * Owns: everything it creates inside gp_serve_run (sockets, connections,
 * timers, the timing log); all of it is released before gp_serve_run returns.
 * The caller owns opts and the strings it points to.
 */
#ifndef GP_SERVE_SERVER_H
#define GP_SERVE_SERVER_H

#include <stddef.h>
#include <stdint.h>

struct gp_error;

struct gp_serve_opts {
    const char *host;              /* "127.0.0.1" */
    int port;                      /* 0 = pick a free one */
    const char *port_file;         /* NULL or where to write "http://HOST:PORT" */
    int flavor;                    /* enum gp_flavor */
    const char *model;             /* served model id */
    const char *tokenizer;         /* tokenizer spec ("builtin") */
    uint64_t seed;

    /* timing: fixed delays win when either is >= 0; zero_delay wins over all */
    double ttft_ms, itl_ms;        /* < 0 = unset */
    double prefill_us_per_token;
    double decode_step_ms;
    double decode_step_per_seq_us;
    uint32_t max_batch;
    uint64_t kv_tokens;
    uint32_t max_batched_tokens;   /* per-step token budget, chunked prefill (0 = none) */
    uint32_t max_queued;           /* batching model: 503 when this many wait (0 = unbounded) */
    int zero_delay;
    int prefix_cache;              /* model an automatic prefix cache: hits shorten prefill
                                    * (server_pcache.c); off by default */

    const char *timing_log;        /* NULL = none */
    const char *api_key;           /* NULL = no auth */
    int strict_model;              /* 404 for a request model other than ours (vLLM) */
    int prompt_tokens_details;     /* --enable-prompt-tokens-details: the vLLM flavour sends
                                    * usage.prompt_tokens_details.cached_tokens, as vLLM does */
    int auto_tool_choice;          /* --enable-auto-tool-choice: the vLLM flavour answers tool_choice
                                    * "auto" (the default with tools); without it 400, as vLLM does */
    const char *lora;              /* --lora a,b: LoRA adapter names served besides model (NULL =
                                    * none); vLLM answers a request naming one with that name */
    double lora_ttft_ms;           /* extra delay to the first token of a request naming an adapter
                                    * (fixed and zero-delay timing): a per-model difference to measure */
    uint32_t max_tokens_default;
    uint32_t max_model_len;
    double eos_rate;
    uint32_t reasoning;            /* first N output tokens are reasoning */
    double miscount_rate;          /* share of requests whose usage.completion_tokens is one too
                                    * many (a test of client/server token accounting) */
    double invalid_json_rate;      /* share of response_format json_schema answers cut short
                                    * (invalid JSON: ground truth for the client's check) */
    uint32_t stream_interval;      /* tokens per streamed chunk after the first (vLLM --stream-interval) */
    uint32_t stream_interval_max;  /* > stream_interval: each chunk's size drawn in [interval, max] (0 = fixed) */
    double idle_timeout_s;         /* keep-alive idle close (uvicorn: 5) */
    double sse_keep_alive_s;       /* ": keep-alive" comment after this much silence (0 = off) */
    size_t max_body;

    /* faults, each a probability per request, drawn from the seeded stream */
    double rate_429, rate_500, rate_503;
    double rate_stream_error, rate_reset, rate_stall, rate_malformed, rate_slow_headers;
    double stall_s;
    double slow_headers_ms;        /* every response's headers are delayed this long */

    double load_s;                 /* simulated model load before ready (see docs/serve.md) */
    int quiet;                     /* no per-run summary on stderr */
};

void gp_serve_opts_default(struct gp_serve_opts *o);

/* Runs until SIGTERM/SIGINT (which the caller must have blocked, so that the
 * server can take them through a signalfd). Returns 0 or a negative code. */
int gp_serve_run(const struct gp_serve_opts *o, struct gp_error *err);

#endif
