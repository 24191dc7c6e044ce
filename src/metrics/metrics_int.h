/* metrics/metrics_int.h — what metrics.c, scan.c and reasoning.c share (not
 * part of the metrics API).
 *
 * Owns: struct gp_scan, the per-pass scratch one worker reuses for every
 * request (its buffers grow once and are freed by gp_scan_free; nothing is
 * allocated per event). gp_scan_response reads a record from the store
 * (borrowed) and leaves the request's text, content chunk times, first
 * reasoning chunk time, usage and error state in the scratch.
 */
#ifndef GP_METRICS_METRICS_INT_H
#define GP_METRICS_METRICS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/stats.h"
#include "metrics/sse.h"

struct gp_record_store;
struct gp_record;
struct gp_metrics_result;

struct gp_scan {
    struct gp_sse sse;
    struct gp_buf content, reasoning, errtext, first_err, body;
    struct gp_event_tmpl tmpl; /* the last token chunk: the next one reads only its text */
    uint64_t *ct;          /* content chunk times of the current request */
    size_t nct, ctcap;
    size_t *ev_end;        /* content length after each event that carried content (tokens per event) */
    size_t nev, evcap;
    uint64_t first_reasoning_ns; /* read that completed the first reasoning text; 0 = none */
    uint32_t reasoning_chunks;   /* reads that carried reasoning text */
    int done, has_error, has_usage, finish;
    unsigned bad_usage;    /* enum gp_usage_field: the counts whose last report was out of range
                              or not an integer (they read -1) */
    long prompt_tokens, completion_tokens;
    long cached_tokens;    /* prompt tokens read from the prefix cache (gp_event_info), -1 when absent */
    long cache_write_tokens; /* Anthropic's cache_creation_input_tokens, -1 when absent */
    uint32_t events, bad_events;
    uint32_t responses;    /* well-formed response objects (chunks, bodies; not [DONE], not errors) */
    uint32_t foreign;      /* JSON objects that were no event of the API (GP_EV_FOREIGN; in bad_events) */
    struct gp_buf foreign_keys; /* the first such object's keys, "a, b" (its error text names them) */
    int cut_event;         /* the stream ended inside an event (no blank line after it), or its
                              last event was malformed: a body cut short, e.g. by a Content-Length
                              shorter than what the server meant to send */
    int last_bad;          /* the last event dispatched was malformed */
    int responses_api;     /* events are the OpenAI Responses API's (responses.c), set once
                              per worker from gp_metrics_opts */
    int anthropic;         /* events and bodies are Anthropic Messages API ones (set once per worker) */
};

/* Re-frames and scans one record's response into s (reset first).
 * *streamed = it was an event stream. requests_only: embeddings/rankings
 * (a 2xx body ends the request and is not content). 0 or -GP_ENOMEM. */
/* The most content chunk times gp_scan_response can keep for r: one per
 * read of an event stream plus one at its end, else one. */
size_t gp_scan_ct_capacity(const struct gp_record_store *st, const struct gp_record *r);
int gp_scan_response(const struct gp_record_store *st, const struct gp_record *r, struct gp_scan *s,
                     int *streamed, int requests_only);
void gp_scan_free(struct gp_scan *s);

/* reasoning.c: fills result->reasoning from result->reqs (after the window
 * and the content statistics are known). 0 or -GP_ENOMEM. */
int gp_reasoning_summarize(struct gp_metrics_result *r);


/* structured.c: text checked against a JSON Schema (what is checked: the
 * file's comment). GP_SO_OK, GP_SO_INVALID_JSON or GP_SO_MISMATCH. */
enum { GP_SO_OK = 0, GP_SO_INVALID_JSON, GP_SO_MISMATCH };
struct json_t;
int gp_mx_schema_check(const struct json_t *schema, const char *text, size_t len);

/* ---- per-request metrics (metrics_request.c), run by metrics.c's workers ---- */
#include <pthread.h>

struct gp_dataset;
struct gp_tokenizer;
struct gp_req_metrics;
struct gp_metrics_opts;

struct arrays {
    double *lat, *ttft, *ttst, *itl, *tps, *osl, *isl, *icl;
    size_t nlat, nttst, nitl, ntps, nicl, icl_cap;
};

/* Tokens per content event, as counts of each value (gp_mx_tpc_stats): a
 * value per event would cost 8 bytes per event, and events outnumber reads
 * (the record budget, client/record.h, is per read). Values above
 * GP_TPC_HIST - 1 are kept one by one in big[] (rare: a server that sends a
 * whole answer in one event). */
#define GP_TPC_HIST 1024
struct tpc_hist {
    uint64_t cnt[GP_TPC_HIST];
    double *big;
    size_t nbig, bigcap;
};

/* One worker handles a contiguous range of the measured requests with its
 * own scratch buffers and error-text area; the tokenizer is shared under a
 * lock (tokenizer.h: one tokenizer must not be used by two threads at once). */
struct worker {
    const struct gp_record_store *st;
    const struct gp_dataset *ds;
    struct gp_tokenizer *tok;
    pthread_mutex_t *tok_lock;
    int inter_chunk;
    int requests_only;
    const struct json_t *schema;   /* opts->response_schema: check each ok response against it */
    const uint32_t *idx;           /* record index of each measured request */
    struct gp_req_metrics *reqs;
    size_t k0, k1;                 /* this worker's range of reqs */
    struct gp_scan s;
    struct gp_buf text;            /* err_off of its reqs are relative to this */
    struct arrays icl;             /* only icl/nicl/icl_cap used */
    struct tpc_hist tpc;           /* tokens per content event of the ok streamed requests */
    uint64_t *content_ns;          /* the result's content times: a request's go to [ct_first ..) */
    size_t n_content_ns;
    struct gp_metrics_watch *watch; /* NULL, or published to as the range is parsed */
    int slot;                      /* this worker's index in the watch */
    int rc;
};

/* A worker's whole range: one gp_req_metrics per measured request (w->rc
 * set on failure). */
void *gp_mx_worker_run(void *arg);
void gp_mx_worker_free(struct worker *w);
/* 1 when the SLO name is one GenAI-Perf knows; whether a request met every SLO. */
int gp_mx_slo_kind(const char *name);
int gp_mx_is_good(const struct gp_req_metrics *rm, const struct gp_metrics_opts *o);
/* The statistics of the values h counts (sum of several workers' counts:
 * gp_mx_tpc_merge); 0 or -GP_ENOMEM. NumPy's definitions; the mean is exact
 * (a sum of integers), std is computed from the counts. */
int gp_mx_tpc_merge(struct tpc_hist *dst, const struct tpc_hist *src);
int gp_mx_tpc_stats(struct tpc_hist *h, struct gp_stats *out);

#endif
