/* metrics/metrics.h — everything derived from a finished run's records.
 *
 * Owns: struct gp_metrics_result and every array/byte in it (per-request
 * metrics, statistics, error texts). gp_metrics_compute fills it from a
 * struct gp_record_store (borrowed, read only), the dataset (borrowed: ISL
 * and osl_asked per entry) and a tokenizer (borrowed: OSL is counted on the
 * concatenated streamed `content`, add_special_tokens=False, as GenAI-Perf
 * does). Free with gp_metrics_result_free. Nothing here prints.
 *
 * Definitions (GenAI-Perf 0.0.16, spec genai-perf-profile.md §6):
 *   TTFT    = first non-empty content chunk - request start
 *   TTST    = second content chunk - first content chunk (>= 2 content chunks)
 *   latency = last content chunk - request start (not [DONE]/usage/finish)
 *   ITL     = round_half_even((latency - TTFT) / (OSL - 1)) ns (>= 2 chunks and OSL > 1)
 *             == vLLM/SGLang "TPOT"
 *   TPS/user = 1e9 / ITL (from the rounded ITL)
 *   inter-chunk latency = gaps between consecutive content chunks, pooled over
 *             requests (== vLLM/SGLang "ITL", AIPerf "ICL"); reported only by us.
 * Reasoning models (reported only by us, beside the content-only metrics
 * above, which they never change): a reasoning chunk is a read that completed
 * reasoning_content/reasoning text;
 *   TTFR    = first reasoning chunk - request start (time to first reasoning token)
 *   reasoning tokens = client tokenizer on the concatenated reasoning text
 *   total output throughput = (sum OSL + sum reasoning tokens) / benchmark window
 * A content chunk's timestamp is the time of the network read that completed
 * its SSE event (several events completed by one read share that time and
 * count as one chunk, exactly as GenAI-Perf merges them).
 * Failed requests (transport error, HTTP >= 400, in-stream error object,
 * timeout, a 2xx without any response object) are excluded from every
 * latency/length statistic but counted.
 * Warmup records are ignored entirely (not even counted).
 */
#ifndef GP_METRICS_METRICS_H
#define GP_METRICS_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "core/stats.h" /* struct gp_stats, GP_NPCT: part of this header's API */

struct gp_error;
struct gp_record_store;
struct gp_dataset;
struct gp_tokenizer;

/* Statistics in GenAI-Perf's metric order (genai-perf-profile.md §7.1). */
enum gp_metric {
    GP_M_REQUEST_THROUGHPUT = 0,  /* system: avg only, requests/sec */
    GP_M_REQUEST_LATENCY,         /* ms */
    GP_M_REQUEST_GOODPUT,         /* system, only when goodput SLOs are given */
    GP_M_REQUEST_COUNT,           /* system, count */
    GP_M_TTFT,                    /* time_to_first_token, ms */
    GP_M_TTST,                    /* time_to_second_token, ms */
    GP_M_ITL,                     /* inter_token_latency, ms */
    GP_M_OUTPUT_TOKEN_THROUGHPUT, /* system, tokens/sec */
    GP_M_TPS_PER_USER,            /* output_token_throughput_per_user, tokens/sec/user */
    GP_M_OSL,                     /* output_sequence_length, tokens */
    GP_M_ISL,                     /* input_sequence_length, tokens */
    GP_M__COUNT
};

/* GenAI-Perf's JSON key / unit for a metric ("request_latency", "ms"). */
const char *gp_metric_name(enum gp_metric m);
const char *gp_metric_unit(enum gp_metric m);

/* Why a request failed (counts in <stem>_genperf.json "failures"). */
enum gp_fail_kind {
    GP_FAIL_NONE = 0,
    GP_FAIL_TRANSPORT,    /* no HTTP response (connect/reset/curl error) */
    GP_FAIL_HTTP,         /* HTTP status >= 400 (body text kept as the error) */
    GP_FAIL_STREAM_ERROR, /* {"error": ...} object inside a 200 stream */
    GP_FAIL_TIMEOUT,      /* --request-timeout fired */
    GP_FAIL_CANCELLED,    /* stopped by Ctrl-C / end of run */
    GP_FAIL_TRUNCATED,    /* stream ended (EOF) before [DONE] with no content, or cut (transfer
                             error, or the body ended inside an event) before finish_reason */
    GP_FAIL_NO_CONTENT,   /* a 2xx that carried no response object at all: a text/html (proxy,
                             login) page, a stream whose every event was malformed, a 204, JSON
                             that is no answer of the API ({}, {"status":"ok"}: GP_EV_FOREIGN) */
    GP_FAIL__COUNT
};
const char *gp_fail_kind_name(enum gp_fail_kind k); /* "transport", "http", ... */

enum gp_req_flags {
    GP_RQ_OK = 1u << 0,            /* counted in latency statistics */
    GP_RQ_NO_DONE = 1u << 1,       /* streaming, EOF before [DONE] (content kept) */
    GP_RQ_HAS_USAGE = 1u << 2,     /* server sent usage (prompt/completion tokens valid) */
    GP_RQ_STREAMED = 1u << 3,      /* the response was an event stream */
    GP_RQ_OSL_MISMATCH = 1u << 4,  /* osl_asked >= 0 and the OSL got differs (server count if sent) */
    GP_RQ_OSL_FROM_SERVER = 1u << 5, /* no tokenizer count: osl = usage.completion_tokens */
    GP_RQ_BAD_USAGE = 1u << 6,     /* a usage count was out of range or not an integer: kept as absent */
    GP_RQ_SO_INVALID_JSON = 1u << 7, /* a schema was sent and the output is not JSON (not a failure) */
    GP_RQ_SO_MISMATCH = 1u << 8,   /* a schema was sent; the output is JSON that does not match it */
    GP_RQ_SHORT_AFTER_DONE = 1u << 9, /* the stream was complete ([DONE]), then the connection closed short
                                       * of the Content-Length: ok, but the server's framing is wrong */
};

/* One measured (non-warmup) request. Times are CLOCK_MONOTONIC ns like the
 * store's; -1 = not applicable. */
struct gp_req_metrics {
    /* 8-byte fields, then 4-byte, then the byte: no padding holes (152
     * bytes, not 176: a million of these are fresh pages the workers fault in) */
    uint32_t rec;                 /* index into store->recs */
    uint32_t flags;               /* enum gp_req_flags */
    int64_t ttft_ns, ttst_ns, latency_ns, itl_ns;
    double tps_user;              /* < 0 when not applicable */
    uint64_t first_content_ns, last_content_ns;  /* 0 when no content */
    uint64_t first_reasoning_ns;  /* first reasoning chunk, 0 when none */
    int64_t ttfr_ns;              /* first reasoning chunk - request start, -1 when none */
    uint64_t err_off;             /* error text in result->text, err_len 0 = none */
    uint64_t ct_first;            /* its content_chunks times: result->content_ns[ct_first..] */
    int32_t http_status;
    int32_t isl;                  /* GenAI-Perf ISL (client tokenizer, no template) */
    int32_t osl;                  /* client tokenizer on the concatenated content */
    int32_t osl_asked;            /* max_tokens sent, -1 when none */
    int32_t server_prompt_tokens;     /* usage.prompt_tokens (Responses, Anthropic: input_tokens; Anthropic's
                                         plus its cache_read_ and cache_creation_input_tokens), -1 when absent */
    int32_t server_completion_tokens; /* usage.completion_tokens, -1 when absent */
    int32_t server_cached_tokens;     /* usage.prompt_tokens_details.cached_tokens (Responses:
                                         input_tokens_details.; Anthropic: cache_read_input_tokens), -1 when absent */
    int32_t reasoning_tokens;     /* client tokenizer on reasoning/reasoning_content text */
    uint32_t reasoning_chunks;    /* reads that carried reasoning text */
    uint32_t content_chunks;      /* chunks that carried non-empty content */
    uint32_t events;              /* SSE data events seen */
    uint32_t bad_events;          /* events that were not JSON / had an unexpected shape (ignored) */
    uint32_t err_len;
    uint8_t fail;                 /* enum gp_fail_kind */
};

/* A goodput SLO (GenAI-Perf --goodput name:value; time values in ms). */
struct gp_slo {
    const char *name;
    double value;
};

struct gp_metrics_watch;

struct gp_metrics_opts {
    const struct gp_slo *slos;     /* NULL/0 = no --goodput */
    size_t n_slos;
    int inter_chunk;               /* 1: also collect pooled inter-chunk latencies */
    int requests_only;             /* embeddings/rankings: a 2xx response ends its request and
                                      carries no content; only request latency, throughput,
                                      goodput and count are reported (GenAI-Perf's Metrics) */
    struct gp_metrics_watch *watch; /* optional: another thread follows the parse (watch.h) */
    int responses_api;             /* --endpoint-type responses: events and bodies are the OpenAI
                                      Responses API's (gp_responses_event_parse): output_text
                                      deltas are content, response.completed ends the stream */
    int anthropic;                 /* responses are Anthropic Messages API events/bodies
                                      (--endpoint-type anthropic_messages) */
    const struct json_t *response_schema; /* the JSON Schema the requests carried (borrowed): each ok
                                      response's output is checked against it (structured.c) */
};

/* Reasoning figures over the requests in the content statistics (ok, >= 1
 * content chunk), and how many ok answers carried reasoning but no content.
 * present = 0 when no ok request carried reasoning text, then nothing below
 * is meaningful and exporters leave the block out. A run whose every answer
 * was reasoning-only is present with n_requests 0 and no statistics. */
struct gp_reasoning_summary {
    int present;
    size_t n_requests;             /* requests in the statistics */
    size_t n_with_reasoning;       /* of those, with >= 1 reasoning chunk */
    size_t n_reasoning_only;       /* ok, reasoning chunks, no content chunk: left out of GenAI-Perf's
                                      statistics (which count content only); a part of n_no_content */
    struct gp_stats ttfr;          /* ms, over requests with reasoning */
    struct gp_stats tokens;        /* reasoning tokens per request, over all n_requests */
    double reasoning_tokens_total;
    double reasoning_token_throughput;    /* tokens/sec over the window, < 0 without one */
    double total_output_token_throughput; /* (OSL + reasoning) tokens/sec, < 0 without a window */
};

struct gp_metrics_result {
    struct gp_req_metrics *reqs;   /* one per non-warmup record, store order */
    size_t n_reqs;
    struct gp_stats stats[GP_M__COUNT];  /* time stats already in ms (x 1/1e6), as exported */
    struct gp_stats inter_chunk;   /* ms, pooled over requests; present=0 when none */
    /* tokens in each content event of the ok streamed requests, pooled (the
     * server's chunking, or speculative decoding: never an acceptance figure); present
     * = 0 when none was counted. tokens_per_chunk_multi: some event carried
     * more (or fewer) than one token, the only case exporters write it in */
    struct gp_stats tokens_per_chunk;
    int tokens_per_chunk_multi;

    /* benchmark window over requests with >= 1 content chunk (§6.4) */
    uint64_t window_start_ns, window_end_ns;  /* monotonic */
    double duration_s;

    size_t n_ok, n_failed;
    size_t fail_counts[GP_FAIL__COUNT];
    size_t n_no_content;           /* ok (2xx, complete, a well-formed response) but no content
                                      chunk: GenAI-Perf leaves them out of request_count, keeps
                                      them in request_throughput's numerator. A 2xx without any
                                      response object is not one of these: it fails as
                                      GP_FAIL_NO_CONTENT (GenAI-Perf, which never sees it fail,
                                      would count it here) */
    size_t n_no_done;              /* streams without [DONE] (ok or not) */
    size_t n_short_after_done;     /* streams complete, then closed short of Content-Length (GP_RQ_SHORT_AFTER_DONE) */
    size_t n_osl_mismatch;         /* requests with osl_asked >= 0 and osl != osl_asked */
    size_t n_with_usage;           /* requests that carried usage */
    size_t n_bad_usage;            /* of those, with a usage count that was no count (GP_RQ_BAD_USAGE) */
    size_t n_bad_events;           /* malformed events over all requests (their text is lost) */
    double isl_client_avg;         /* over ok requests */
    double isl_server_avg;         /* over ok requests with usage; < 0 when none */
    double osl_server_avg;         /* usage.completion_tokens avg; < 0 when none */
    size_t n_with_cached;          /* ok requests whose usage had prompt_tokens_details.cached_tokens,
                                    * and once one had, those whose usage had none (a vLLM miss) */
    double cached_tokens_sum;      /* of those: the cached tokens, and their usage.prompt_tokens */
    double cached_prompt_sum;
    int goodput_invalid;           /* an unknown SLO name: goodput = -1.0 as GenAI-Perf */
    struct gp_reasoning_summary reasoning;
    /* with opts->response_schema: ok requests checked, and of those the
     * outputs that were not JSON / did not match (counted, not failed) */
    struct {
        int present;
        size_t requests, invalid_json, schema_mismatch;
    } structured;

    char *text;                    /* error texts, back to back (owned) */
    size_t text_len;
    uint64_t *content_ns;          /* every content chunk time (monotonic), per request (owned) */
    size_t n_content_ns;
};

/* How an ok request's output length compares with the max_tokens it sent.
 * The length is the server's usage.completion_tokens when it sent one, else
 * the client's count of content + reasoning tokens: both include reasoning,
 * which counts against max_tokens while GenAI-Perf's OSL is content only. */
enum gp_osl_outcome {
    GP_OSL_NOT_ASKED = 0,  /* failed, or no max_tokens sent */
    GP_OSL_AS_ASKED,       /* the length is max_tokens, no reasoning took a share of it */
    GP_OSL_REASONING,      /* the length is max_tokens, reasoning took a share: content is shorter */
    GP_OSL_OFF_BY_ONE,     /* one past max_tokens: a counting convention (an EOS token), not a workload */
    GP_OSL_LONGER,         /* two or more past max_tokens: the server ignored it */
    GP_OSL_SHORTER,        /* short of max_tokens: the answer stopped early (EOS) */
};

/* The outcome for q; *length (may be NULL) gets the length compared (-1 for
 * GP_OSL_NOT_ASKED), *from_server whether it was the server's usage. Pure. */
enum gp_osl_outcome gp_osl_outcome(const struct gp_req_metrics *q, long *length, int *from_server);

int gp_metrics_compute(const struct gp_record_store *st, const struct gp_dataset *ds,
                       struct gp_tokenizer *tok, const struct gp_metrics_opts *opts,
                       struct gp_metrics_result *out, struct gp_error *err);
void gp_metrics_result_free(struct gp_metrics_result *r);

#endif
