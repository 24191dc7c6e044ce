/* profile/profile_table.c — the `profile` flag table: one row per flag, in
 * GenAI-Perf 0.0.16's parser.py order, then genperf's own (their help starts
 * "genperf:"). profile_int.h says what a row holds; profile_args.c parses
 * argv with it, copies the values into struct profile_config in table order
 * and prints --help from it.
 */
#include "profile/profile_int.h"

static const char *const endpoint_types[] = {
    "chat", "completions", "dynamic_grpc", "embeddings", "huggingface_generate", "image_retrieval",
    "nvclip", "rankings", "multimodal", "generate", "kserve", "template", "tensorrtllm_engine",
    "vision",
    "responses", /* genperf's own: the OpenAI Responses API (GenAI-Perf 0.0.16 has none) */
    "anthropic_messages", /* genperf's own: the Anthropic Messages API */
    NULL};
/* What genperf speaks (the OpenAI-compatible ones, then the Anthropic
 * Messages API last: the refusal in gp_profile_copy_endpoint_type names it
 * apart). endpoint_types above, GenAI-Perf 0.0.16's argparse choices and
 * genperf's own, is what the parser accepts, so that the ones genperf does
 * not speak get a message saying so. */
const char *const gp_profile_endpoint_names[] = {"chat",       "completions", "embeddings", "rankings",
                                                 "multimodal", "vision",      "responses",  "anthropic_messages",
                                                 NULL};
const enum gp_endpoint_type gp_profile_endpoint_kinds[] = {
    GP_ENDPOINT_CHAT,       GP_ENDPOINT_COMPLETIONS, GP_ENDPOINT_EMBEDDINGS, GP_ENDPOINT_RANKINGS,
    GP_ENDPOINT_MULTIMODAL, GP_ENDPOINT_MULTIMODAL,  GP_ENDPOINT_RESPONSES,  GP_ENDPOINT_ANTHROPIC};
_Static_assert(sizeof gp_profile_endpoint_kinds / sizeof gp_profile_endpoint_kinds[0] ==
                   sizeof gp_profile_endpoint_names / sizeof gp_profile_endpoint_names[0] - 1,
               "one type per endpoint name");
static const char *const strategies[] = {"round_robin", "random", NULL};
static const char *const backends[] = {"tensorrtllm", "vllm", NULL};
static const char *const rate_modes[] = {"constant", "poisson", "gamma", NULL};
static const char *const image_formats[] = {"png", "jpeg", NULL};
static const char *const audio_formats[] = {"wav", "mp3", NULL};
static const char *const channel_counts[] = {"1", "2", NULL}; /* type=int, choices=[1, 2] */
static const char *const url_strategies[] = {"round_robin", "least_in_flight", NULL};
static const char *const prefix_pools[] = {"global", "session", NULL};

/* Table order is argparse's (--help) and the order GenAI-Perf copies and
 * checks values in, which decides which error a bad command line reports. */
const struct opt gp_profile_opts[] = {
    {O_HELP, K_FLAG, {"-h", "--help"}, NULL, NULL, "show this help message and exit", .copy = C_NONE},
    {O_MODEL, K_LIST, {"-m", "--model"}, "MODEL", NULL, "the model name(s) sent in every request (required)",
     .copy = C_NONE, .off = F(models), .aux = F(n_models)},
    {O_MODEL_SEL, K_CHOICE, {"--model-selection-strategy"}, NULL, strategies,
     "how dataset rows pick a model when several -m are given (default round_robin)",
     .copy = C_CHOICE1, .off = F(model_random)},
    {O_ENDPOINT_TYPE, K_CHOICE, {"--endpoint-type"}, NULL, endpoint_types,
     "the API the requests speak, one of those listed, each with its default --endpoint path (default chat; "
     "anthropic_messages sends x-api-key); GenAI-Perf's Triton/gRPC types (kserve, generate, ...) are refused",
     .shown = gp_profile_endpoint_names, .copy = C_HOOK, .hook = gp_profile_copy_endpoint_type},
    {O_ENDPOINT, K_STR, {"--endpoint"}, "ENDPOINT", NULL, "custom endpoint path (default from --endpoint-type)",
     .copy = C_HOOK, .hook = gp_profile_copy_endpoint},
    {O_URL, K_STR, {"-u", "--url"}, "URL", NULL,
     "server base URL, without the endpoint path (default localhost:8000); given again, the last wins",
     .copy = C_STR_GIVEN, .off = F(url), .aux = F(url_given), .value = gp_profile_set_url},
    {O_STREAMING, K_FLAG, {"--streaming"}, NULL, NULL, "send \"stream\": true and measure every chunk",
     .copy = C_SEEN, .off = F(streaming)},
    {O_HEADER, K_APPEND, {"-H", "--header"}, "HEADER", NULL, "extra HTTP header 'Name: value' (repeatable)",
     .copy = C_NONE, .off = F(headers), .aux = F(n_headers)},
    {O_TOKENIZER, K_STR, {"--tokenizer"}, "TOKENIZER", NULL,
     "tokenizer: HF hub id, tokenizer.json path or 'builtin' (default: the model name)",
     .copy = C_STR, .off = F(tokenizer)},
    {O_TOK_REV, K_STR, {"--tokenizer-revision"}, "REVISION", NULL, "hub revision (default main)",
     .copy = C_STR, .off = F(tokenizer_revision)},
    {O_TOK_TRUST, K_FLAG, {"--tokenizer-trust-remote-code"}, NULL, NULL, "accepted for compatibility",
     .copy = C_SEEN, .off = F(trust_remote_code)},
    {O_ISL, K_INT, {"--synthetic-input-tokens-mean", "--isl"}, "N", NULL, "mean prompt length in tokens (default 550)",
     .copy = C_LONG0, .off = F(isl_mean)},
    {O_ISL_STD, K_INT, {"--synthetic-input-tokens-stddev"}, "N", NULL, "stddev of the prompt length (default 0)",
     .copy = C_LONG0, .off = F(isl_stddev)},
    {O_OSL, K_INT, {"--output-tokens-mean", "--osl"}, "N", NULL, "mean max_tokens per request (default: not sent)",
     .copy = C_LONG0, .off = F(osl_mean)},
    {O_OSL_STD, K_INT, {"--output-tokens-stddev"}, "N", NULL, "stddev of max_tokens (default 0)",
     .copy = C_LONG0, .off = F(osl_stddev)},
    /* GenAI-Perf's spelling parses, and validate() refuses it as GenAI-Perf
     * does for every OpenAI endpoint; genperf's own spelling does the work */
    {O_OSL_DET, K_FLAG, {"--output-tokens-mean-deterministic"}, NULL, NULL,
     "Triton/TensorRT-LLM Engine only, so refused for OpenAI endpoints as in GenAI-Perf; see "
     "--genperf-output-tokens-deterministic", .copy = C_NONE},
    {O_NUM_ENTRIES, K_POSINT, {"--num-dataset-entries", "--num-prompts"}, "N", NULL,
     "distinct prompts, cycled (default 100)", .copy = C_LONG, .off = F(num_entries)},
    {O_REQ_COUNT, K_INT, {"--request-count", "--num-requests"}, "N", NULL,
     "measured requests (default max(10, 2 x concurrency))", .group = G_MEASUREMENT, .copy = C_NONE},
    {O_WARMUP, K_INT, {"--warmup-request-count", "--num-warmup-requests"}, "N", NULL,
     "requests sent first and excluded from every metric (default 0)", .copy = C_LONG0, .off = F(warmup)},
    {O_CONCURRENCY, K_INT, {"--concurrency"}, "N", NULL, "closed loop: N requests in flight (default 1)",
     .group = G_STIMULUS, .copy = C_LONG, .off = F(concurrency)},
    {O_RATE, K_FLOAT, {"--request-rate"}, "R", NULL, "open loop: R requests per second",
     .group = G_STIMULUS, .copy = C_DOUBLE, .off = F(request_rate)},
    {O_SEED, K_INT, {"--random-seed"}, "SEED", NULL, "seed for prompts and Poisson arrivals (default 0)",
     .copy = C_U64, .off = F(seed)},
    {O_EXPORT_FILE, K_STR, {"--profile-export-file"}, "FILE", NULL,
     "file name of the raw export inside the run directory (default profile_export.json)",
     .copy = C_STR, .off = F(profile_export_file)},
    {O_ARTIFACT_DIR, K_STR, {"--artifact-dir"}, "DIR", NULL, "parent of the run directory (default artifacts)",
     .copy = C_STR, .off = F(artifact_dir)},
    {O_EXTRA, K_APPEND, {"--extra-inputs"}, "NAME[:VALUE]", NULL,
     "key merged into every request body; or a JSON object (repeatable)", .copy = C_NONE, .value = gp_profile_add_extra_input},
    {O_MEAS_INTERVAL, K_INT, {"--measurement-interval", "-p"}, "MS", NULL,
     "time windows of MS milliseconds instead of a request count",
     .group = G_MEASUREMENT, .copy = C_LONG, .off = F(measurement_interval_ms)},
    {O_STABILITY, K_FLOAT, {"-s", "--stability-percentage"}, "PCT", NULL,
     "window stability threshold, 1..999 (default 999)", .copy = C_HOOK, .hook = gp_profile_copy_stability},
    {O_GOODPUT, K_LIST, {"-g", "--goodput"}, "NAME:VALUE", NULL, "goodput SLOs, e.g. time_to_first_token:100",
     .copy = C_NONE, .off = F(slos), .aux = F(n_slos), .value = gp_profile_add_goodput},
    {O_INPUT_FILE, K_STR, {"--input-file"}, "FILE", NULL, "JSONL prompts instead of synthetic ones",
     .copy = C_STR, .off = F(input_file), .value = gp_profile_check_input_file},
    {O_METRICS_URL, K_LIST, {"--server-metrics-url", "--server-metrics-urls"}, "URL", NULL,
     "DCGM exporter URL(s) for GPU telemetry (default http://localhost:9400/metrics)",
     .copy = C_HOOK, .off = F(metrics_urls), .aux = F(n_metrics_urls), .hook = gp_profile_copy_metrics_urls},
    {O_BACKEND, K_CHOICE, {"--backend"}, NULL, backends, "Triton only; rejected with openai",
     .copy = C_SEEN, .off = F(backend_given)},
    {O_BATCH, K_INT, {"--batch-size-text", "--batch-size", "-b"}, "N", NULL,
     "texts per request: completions, embeddings, rankings passages (default 1)",
     .copy = C_LONG, .off = F(batch_size)},
    {O_NUM_PREFIX, K_INT, {"--num-prefix-prompts"}, "N", NULL, "pool of shared prefix prompts (default 0)",
     .copy = C_LONG, .off = F(num_prefix_prompts)},
    {O_PREFIX_LEN, K_INT, {"--prefix-prompt-length"}, "N", NULL, "tokens per prefix prompt (default 100)",
     .copy = C_LONG, .off = F(prefix_prompt_length)},
    {O_VERBOSE, K_FLAG, {"-v", "--verbose"}, NULL, NULL, "more output", .copy = C_SEEN, .off = F(verbose)},
    {O_PLOTS, K_FLAG, {"--generate-plots"}, NULL, NULL, "not supported by genperf (ignored with a warning)",
     .copy = C_SEEN, .off = F(generate_plots)},
    {O_CHECKPOINTING, K_FLAG, {"--enable-checkpointing"}, NULL, NULL, "accepted, ignored",
     .copy = C_SEEN, .off = F(enable_checkpointing)},
    {O_CHECKPOINT_DIR, K_STR, {"--checkpoint-dir"}, "DIR", NULL, "accepted, ignored",
     .copy = C_STR, .off = F(checkpoint_dir)},
    /* workload shapes (issue 16): GenAI-Perf 0.0.16's session and fixed-schedule flags, then genperf's */
    {O_FIXED_SCHEDULE, K_STR, {"--fixed-schedule"}, "BOOL", NULL,
     "true: send each --input-file payload:FILE row at its timestamp (ms), open loop",
     .group = G_STIMULUS, .copy = C_HOOK, .hook = gp_profile_copy_fixed_schedule},
    {O_NUM_SESSIONS, K_INT, {"--num-sessions"}, "N", NULL, "synthetic multi-turn sessions (default 0: none)",
     .copy = C_LONG, .off = F(sessions.num_sessions)},
    {O_SESSION_CONC, K_INT, {"--session-concurrency"}, "N", NULL,
     "sessions in flight at once, each sending its turns in order (default 0: unset, one session at a "
     "time, recorded as --concurrency 1)",
     .group = G_STIMULUS, .copy = C_LONG, .off = F(sessions.session_concurrency)},
    {O_TURNS_MEAN, K_INT, {"--session-turns-mean"}, "N", NULL, "mean turns per session (default 1)",
     .copy = C_LONG, .off = F(sessions.turns_mean)},
    {O_TURNS_STD, K_INT, {"--session-turns-stddev"}, "N", NULL, "stddev of the turns per session (default 0)",
     .copy = C_LONG, .off = F(sessions.turns_stddev)},
    {O_TURN_DELAY_MEAN, K_INT, {"--session-turn-delay-mean"}, "MS", NULL,
     "mean wait after a turn's response before the next turn (default 0)",
     .copy = C_LONG, .off = F(sessions.delay_mean_ms)},
    {O_TURN_DELAY_STD, K_INT, {"--session-turn-delay-stddev"}, "MS", NULL, "stddev of that wait (default 0)",
     .copy = C_LONG, .off = F(sessions.delay_stddev_ms)},
    {O_DELAY_RATIO, K_FLOAT, {"--session-delay-ratio"}, "X", NULL,
     "scales the \"delay\" of payload-file rows (default 1.0)", .copy = C_DOUBLE, .off = F(sessions.delay_ratio)},
    {O_RATE_MODE, K_CHOICE, {"--request-rate-mode"}, NULL, rate_modes,
     "genperf: arrival process with --request-rate (default constant; gamma takes --burstiness)",
     .copy = C_HOOK, .hook = gp_profile_copy_rate_mode},
    {O_BURSTINESS, K_FLOAT, {"--burstiness"}, "B", NULL,
     "genperf: gamma shape with --request-rate-mode gamma: 1 = Poisson, < 1 burstier (default 1)",
     .copy = C_SECS, .off = F(burstiness)},
    {O_RAMP, K_FLOAT, {"--ramp-up-duration"}, "SECONDS", NULL,
     "genperf: the request rate grows linearly from 0 to its target over SECONDS",
     .copy = C_SECS, .off = F(ramp_s)},
    {O_TRACE_SPEEDUP, K_FLOAT, {"--trace-speedup"}, "X", NULL,
     "genperf: with --fixed-schedule, divide every timestamp by X (default 1)",
     .copy = C_SECS, .off = F(trace_speedup)},
    {O_TIMESLICE, K_FLOAT, {"--timeslice-duration"}, "SECONDS", NULL,
     "genperf: per-slice metrics (throughput, TTFT, ITL, latency, failures) in *_genperf.json, requests "
     "assigned by their start (AIPerf's time slicing)",
     .copy = C_SECS, .off = F(timeslice_s)},
    /* ---- GenAI-Perf's media, batch, gRPC and session-shape flags (issue 15) ---- */
    {O_AUDIO_LEN, K_FLOAT, {"--audio-length-mean"}, "SECONDS", NULL,
     "mean audio clip length; clips are sent (multimodal) when > 0 (default 0)", .copy = C_DOUBLE0,
     .off = F(audio_length_mean)},
    {O_AUDIO_LEN_STD, K_FLOAT, {"--audio-length-stddev"}, "SECONDS", NULL, "stddev of the clip length (default 0)",
     .copy = C_DOUBLE0, .off = F(audio_length_stddev)},
    {O_AUDIO_FORMAT, K_CHOICE, {"--audio-format"}, NULL, audio_formats,
     "clip format (default wav; genperf has no MP3 encoder and refuses mp3 clips)", .copy = C_CHOICE1,
     .off = F(audio_mp3)},
    {O_AUDIO_DEPTHS, K_LIST0, {"--audio-depths"}, "[BITS ...]", NULL, "bit depths drawn from (default 16)",
     .copy = C_NONE, .off = F(audio_depths), .aux = F(n_audio_depths), .value = gp_profile_add_audio_depth},
    {O_AUDIO_RATES, K_LIST0, {"--audio-sample-rates"}, "[KHZ ...]", NULL, "sample rates in kHz drawn from (default 16)",
     .copy = C_HOOK, .off = F(audio_sample_rates), .aux = F(n_audio_sample_rates), .value = gp_profile_add_audio_rate,
     .hook = gp_profile_copy_audio_lists},
    {O_AUDIO_CHANNELS, K_INT, {"--audio-num-channels"}, NULL, channel_counts, "1 mono or 2 stereo (default 1)",
     .copy = C_LONG, .off = F(audio_num_channels)},
    {O_IMAGE_W, K_INT, {"--image-width-mean"}, "PX", NULL,
     "mean image width; images are sent (multimodal) when width and height means are > 0 (default 0)",
     .copy = C_LONG0, .off = F(image_width_mean)},
    {O_IMAGE_W_STD, K_INT, {"--image-width-stddev"}, "PX", NULL, "stddev of the image width (default 0)",
     .copy = C_LONG0, .off = F(image_width_stddev)},
    {O_IMAGE_H, K_INT, {"--image-height-mean"}, "PX", NULL, "mean image height (default 0)", .copy = C_LONG0,
     .off = F(image_height_mean)},
    {O_IMAGE_H_STD, K_INT, {"--image-height-stddev"}, "PX", NULL, "stddev of the image height (default 0)",
     .copy = C_LONG0, .off = F(image_height_stddev)},
    {O_IMAGE_FORMAT, K_CHOICE, {"--image-format"}, NULL, image_formats, "image encoding (default png)",
     .copy = C_CHOICE1, .off = F(image_jpeg)},
    {O_BATCH_AUDIO, K_INT, {"--batch-size-audio"}, "N", NULL, "clips per multimodal request (default 1)",
     .copy = C_LONG0, .off = F(batch_size_audio)},
    {O_BATCH_IMAGE, K_INT, {"--batch-size-image"}, "N", NULL, "images per multimodal request (default 1)",
     .copy = C_LONG0, .off = F(batch_size_image)},
    {O_GRPC_METHOD, K_STR, {"--grpc-method"}, "METHOD", NULL, "dynamic_grpc only; genperf accepts only the default",
     .copy = C_HOOK, .hook = gp_profile_copy_grpc_method},
    /* ---- end of the issue 15 block ---- */
    {O_TIMEOUT, K_FLOAT, {"--request-timeout"}, "SECONDS", NULL,
     "genperf: per-request timeout; a stalled request fails (default 600)",
     .copy = C_SECS, .off = F(request_timeout_s)},
    {O_HTTP2, K_FLAG, {"--http2"}, NULL, NULL, "genperf: use HTTP/2 (h2c Upgrade on http://, ALPN on https://)",
     .copy = C_SEEN, .off = F(http2)},
    /* genperf's first spelling of --request-rate-mode, kept as its alias with
     * the same values so one idea has one set of choices (issue 28) */
    {O_DISTRIBUTION, K_CHOICE, {"--request-distribution"}, NULL, rate_modes,
     "genperf: alias of --request-rate-mode", .copy = C_HOOK, .hook = gp_profile_copy_distribution},
    {O_MAX_CONC, K_INT, {"--max-concurrency"}, "N", NULL, "genperf: cap on in-flight requests with --request-rate",
     .copy = C_LONG_MIN1, .off = F(max_concurrency)},
    {O_DURATION, K_FLOAT, {"--duration"}, "SECONDS", NULL,
     "genperf: send for SECONDS, then stop (requests still in flight are dropped)",
     .group = G_MEASUREMENT, .copy = C_SECS, .off = F(duration_s)},
    {O_TELEM_INTERVAL, K_FLOAT, {"--telemetry-interval"}, "SECONDS", NULL,
     "genperf: telemetry sampling period (default 1)", .copy = C_SECS, .off = F(telemetry_interval_s)},
    {O_SERVER_USAGE, K_FLAG, {"--server-usage"}, NULL, NULL,
     "genperf: also send stream_options.include_usage when streaming, to compare client and server token counts "
     "(GenAI-Perf never sends it)", .copy = C_SEEN, .off = F(server_usage)},
    {O_OSL_DET_GP, K_FLAG, {"--genperf-output-tokens-deterministic"}, NULL, NULL,
     "genperf: with --output-tokens-mean, also send min_tokens = max_tokens and ignore_eos, so the server "
     "generates exactly that many tokens (GenAI-Perf has no OpenAI equivalent)",
     .copy = C_SEEN, .off = F(osl_deterministic)},
    {O_OFFLINE, K_FLAG, {"--offline"}, NULL, NULL, "genperf: never download a tokenizer",
     .copy = C_SEEN, .off = F(offline)},
    {O_REDACT, K_APPEND, {"--redact-header"}, "NAME", NULL,
     "genperf: also write this -H header as 'NAME: ***' everywhere (repeatable; Authorization, api-key, "
     "x-api-key and Cookie always are)", .copy = C_NONE, .off = F(redact_names), .aux = F(n_redact)},
    {O_API_KEY_FILE, K_STR, {"--api-key-file"}, "FILE", NULL,
     "genperf: send 'Authorization: Bearer <first line of FILE>' (default: $GENPERF_API_KEY)",
     .copy = C_STR, .off = F(api_key_file)},
    {O_CACERT, K_STR, {"--cacert"}, "FILE", NULL,
     "genperf: CA bundle to verify https servers (default: $SSL_CERT_FILE, $CURL_CA_BUNDLE, the system's)",
     .copy = C_STR, .off = F(cacert)},
    {O_INSECURE, K_FLAG, {"--insecure"}, NULL, NULL, "genperf: do not verify the https server's certificate (warned)",
     .copy = C_SEEN, .off = F(insecure)},
    {O_MAX_RESP, K_INT, {"--max-response-bytes"}, "BYTES", NULL,
     "genperf: a response larger than BYTES fails that request (default 67108864 = 64 MiB)",
     .copy = C_LONG_MIN1, .off = F(max_response_bytes)},
    {O_MAX_FAIL, K_FLOAT, {"--max-failure-rate"}, "X", NULL,
     "genperf: exit 3 when more than this share (0..1) of the requests failed (default: failures do not "
     "change the exit status)", .copy = C_HOOK, .hook = gp_profile_copy_failure_rate},
    /* scale-out (issue 17) */
    {O_WORKERS, K_STR, {"--workers"}, "N|auto", NULL,
     "genperf: event-loop threads sharing the load (default 1; auto = cores - 1)",
     .copy = C_HOOK, .hook = gp_profile_copy_workers},
    {O_URL_STRATEGY, K_CHOICE, {"--url-strategy"}, NULL, url_strategies,
     "genperf: how requests are spread over the --urls endpoints (default round_robin)",
     .copy = C_CHOICE1, .off = F(url_least_inflight)},
    {O_URLS, K_LIST, {"--urls"}, "URL", NULL,
     "genperf: several server base URLs, each request sent to one of them (replaces --url; "
     "see --url-strategy)", .copy = C_HOOK, .off = F(urls), .aux = F(n_urls), .value = gp_profile_add_url,
     .hook = gp_profile_copy_urls},
    /* issue 26 */
    {O_MAX_MEMORY, K_STR, {"--max-memory"}, "SIZE", NULL,
     "genperf: stop sending when the records would pass SIZE (e.g. 4G), writing what was measured, marked "
     "incomplete, exit 4 (default: 3/4 of the available memory)",
     .copy = C_HOOK, .hook = gp_profile_copy_max_memory},
    /* issue 31: AIPerf's names and units (a percentage, seconds) */
    {O_CANCEL_RATE, K_FLOAT, {"--request-cancellation-rate"}, "PERCENT", NULL,
     "genperf: cancel this percentage (0..100) of the measured requests, chosen by --random-seed, "
     "--request-cancellation-delay seconds after each is sent (AIPerf's flag; default 0)",
     .copy = C_HOOK, .hook = gp_profile_copy_cancel_rate},
    {O_CANCEL_DELAY, K_FLOAT, {"--request-cancellation-delay"}, "SECONDS", NULL,
     "genperf: how long after it was sent a request chosen by --request-cancellation-rate is cancelled "
     "(default 0: at once)", .copy = C_HOOK, .hook = gp_profile_copy_cancel_delay},
    /* issue 30: repeated runs (profile_runs.c) */
    {O_NUM_RUNS, K_INT, {"--num-runs"}, "N", NULL,
     "genperf: run the benchmark N times, each run's artifacts under run_K/ of the run directory, and write "
     "<stem>_genperf_aggregate.json there: per metric and statistic the mean over runs, stddev, 95% interval "
     "(Student t) and CV (default 1: one run, as GenAI-Perf)", .copy = C_LONG_MIN1, .off = F(num_runs)},
    {O_CV_WARN, K_FLOAT, {"--cv-warn"}, "X", NULL,
     "genperf: with --num-runs, warn when a key metric's coefficient of variation over the runs exceeds X "
     "(default 0.1)", .copy = C_HOOK, .hook = gp_profile_copy_cv_warn},
    /* issue 31 item 3 (profile_tools.c): each sets one key of every chat request body */
    {O_TOOLS, K_STR, {"--tools"}, "FILE", NULL,
     "genperf: send \"tools\": the JSON array of OpenAI tool definitions in FILE (chat endpoint)",
     .copy = C_HOOK, .hook = gp_profile_copy_tools},
    {O_SYNTH_TOOLS, K_INT, {"--synthetic-tools"}, "N", NULL,
     "genperf: send \"tools\": N synthetic functions tool_0..tool_N-1, each with one string argument",
     .copy = C_HOOK, .hook = gp_profile_copy_synthetic_tools},
    {O_TOOL_CHOICE, K_STR, {"--tool-choice"}, "auto|required|none|NAME", NULL,
     "genperf: send \"tool_choice\" (NAME forces that function); needs --tools or --synthetic-tools",
     .copy = C_HOOK, .hook = gp_profile_copy_tool_choice},
    {O_RESPONSE_SCHEMA, K_STR, {"--response-format-schema"}, "FILE", NULL,
     "genperf: send \"response_format\": {\"type\": \"json_schema\", ...} with the JSON Schema in FILE, "
     "and count the responses that are not JSON or do not match it (not failures)",
     .copy = C_HOOK, .hook = gp_profile_copy_response_schema},
    /* issue 32: prefix-cache workloads (profile_prefix.c) */
    {O_SHARED_PREFIX_RATIO, K_FLOAT, {"--shared-prefix-ratio"}, "R", NULL,
     "genperf: the first round(R x ISL mean) tokens (0 <= R <= 1) of every synthetic prompt are a shared "
     "prefix, inside its ISL (default 0: none)",
     .copy = C_HOOK, .hook = gp_profile_copy_shared_prefix_ratio},
    {O_SHARED_PREFIX_POOL, K_CHOICE, {"--shared-prefix-pool"}, NULL, prefix_pools,
     "genperf: with --shared-prefix-ratio, one prefix for all requests (global, default) or one per "
     "--num-sessions session", .copy = C_CHOICE1, .off = F(shared_prefix_session)},
    {O_CACHE_BUST, K_FLAG, {"--cache-bust"}, NULL, NULL,
     "genperf: open every synthetic prompt with a unique salt (4 tokens, inside its ISL, seeded by "
     "--random-seed), so no prompt shares a prefix with another: a prefix-cache-cold run",
     .copy = C_HOOK, .hook = gp_profile_copy_cache_bust},
    /* issue 32: model and LoRA mixes (profile_models.c) */
    {O_MODEL_WEIGHTS, K_STR, {"--model-weights"}, "NAME:W,...", NULL,
     "genperf: with several -m, each dataset entry draws its model with these odds (e.g. a:0.7,b:0.3; every -m "
     "needs a weight > 0; seeded by --random-seed; replaces --model-selection-strategy)",
     .copy = C_HOOK, .hook = gp_profile_copy_model_weights},
    /* issue 32: energy and cost (export/energy_json.c) */
    {O_GPU_HOUR_COST, K_FLOAT, {"--gpu-hour-cost"}, "USD", NULL,
     "genperf: the price of one GPU for one hour; adds \"cost\" (dollars per million input and output tokens, "
     "over the GPUs telemetry sees) to *_genperf.json and a console line (default: none)",
     .copy = C_HOOK, .hook = gp_profile_copy_gpu_hour_cost},
};
const size_t gp_profile_n_opts = sizeof gp_profile_opts / sizeof gp_profile_opts[0];
