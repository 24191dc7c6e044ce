/* metrics/metrics_request.c — the per-request half of the metrics: each
 * worker walks its range of measured records, scans each response
 * (scan.c), counts output tokens with the tokenizer, and fills one
 * gp_req_metrics per request (TTFT, ITL as GenAI-Perf defines it, OSL,
 * failure kind and text). metrics.c runs the workers and turns their
 * results into the benchmark's statistics. Owns only each worker's scratch,
 * freed by gp_mx_worker_free.
 */
#include "metrics/metrics.h"
#include "metrics/metrics_int.h"
#include "metrics/watch.h"
#include "client/record.h"
#include "core/buf.h"
#include "core/error.h"
#include "dataset/dataset.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static long isl_from_payload(struct gp_tokenizer *tok, const char *payload, size_t len)
{
    if (!tok || !payload)
        return -1;
    json_t *root = json_loadb(payload, len, 0, NULL);
    if (!root)
        return -1;
    struct gp_buf b = {0};
    long n = gp_dataset_payload_isl(tok, root, &b);
    gp_buf_free(&b);
    json_decref(root);
    return n;
}

static int save_err(struct gp_buf *text, struct gp_req_metrics *rm, const char *s, size_t n)
{
    if (n > 4000)
        n = 4000;
    /* the text area may contain NULs in a hostile body: keep the bytes, the writers escape them */
    rm->err_off = text->len;
    rm->err_len = (uint32_t)n;
    return gp_buf_append(text, s, n) ? -GP_ENOMEM : 0;
}


static int push_icl(struct arrays *a, double v)
{
    if (a->nicl == a->icl_cap) {
        size_t nc = a->icl_cap ? a->icl_cap * 2 : 1024;
        double *p = realloc(a->icl, nc * sizeof *p);
        if (!p)
            return -GP_ENOMEM;
        a->icl = p;
        a->icl_cap = nc;
    }
    a->icl[a->nicl++] = v;
    return 0;
}

int gp_mx_slo_kind(const char *name)
{
    if (!strcmp(name, "time_to_first_token")) return 1;
    if (!strcmp(name, "time_to_second_token")) return 2;
    if (!strcmp(name, "inter_token_latency")) return 3;
    if (!strcmp(name, "request_latency")) return 4;
    if (!strcmp(name, "output_token_throughput_per_user")) return 5;
    return 0;
}

int gp_mx_is_good(const struct gp_req_metrics *rm, const struct gp_metrics_opts *o)
{
    for (size_t i = 0; i < o->n_slos; i++) {
        double v = o->slos[i].value;
        int64_t x;
        switch (gp_mx_slo_kind(o->slos[i].name)) {
        case 1: x = rm->ttft_ns; break;
        case 2: x = rm->ttst_ns; break;
        case 3: x = rm->itl_ns; break;
        case 4: x = rm->latency_ns; break;
        case 5:
            if (rm->tps_user < 0 || rm->tps_user < v)
                return 0;
            continue;
        default: return 0;
        }
        /* a request without the metric (one chunk: no TTST/ITL) cannot meet its SLO */
        if (x < 0 || (double)x > v * 1e6)
            return 0;
    }
    return 1;
}


static long tcount(struct worker *w, const char *p, size_t n)
{
    if (w->tok_lock)
        pthread_mutex_lock(w->tok_lock);
    long c = gp_tokenizer_count(w->tok, p, n);
    if (w->tok_lock)
        pthread_mutex_unlock(w->tok_lock);
    return c;
}

static long isl_locked(struct worker *w, const char *payload, size_t len)
{
    if (w->tok_lock)
        pthread_mutex_lock(w->tok_lock);
    long c = isl_from_payload(w->tok, payload, len);
    if (w->tok_lock)
        pthread_mutex_unlock(w->tok_lock);
    return c;
}

/* Defaults ("none" is -1) and the request's ISL: the dataset's count, or a
 * session turn's conversation as actually sent (GenAI-Perf counts that body). */
static void init_req(struct worker *w, const struct gp_record *r, size_t i, struct gp_req_metrics *rm)
{
    rm->rec = (uint32_t)i;
    rm->http_status = r->http_status;
    rm->ttft_ns = rm->ttst_ns = rm->latency_ns = rm->itl_ns = rm->ttfr_ns = -1;
    rm->tps_user = -1;
    rm->isl = rm->osl = -1;
    rm->osl_asked = -1;
    rm->server_prompt_tokens = rm->server_completion_tokens = rm->server_cached_tokens = -1;
    const struct gp_dataset_entry *e = (w->ds && r->entry < w->ds->n) ? &w->ds->entries[r->entry] : NULL;
    if (e) {
        rm->osl_asked = e->osl_asked;
        rm->isl = e->isl >= 0 ? e->isl : (int32_t)isl_locked(w, e->payload, e->payload_len);
    }
    if (r->body_len)
        rm->isl = (int32_t)isl_locked(w, gp_record_body(w->st, r), r->body_len);
}

/* The message of a request that failed on its status (timeout, cancel,
 * non-2xx, transport), saved as its error text. */
static int save_status_error(struct worker *w, const struct gp_record *r, struct gp_req_metrics *rm, int non2xx,
                             const char *etext)
{
    const struct gp_record_store *st = w->st;
    struct gp_buf msg = {0};
    if (non2xx) {
        /* PA's wording, so logs read the same */
        static const char pa[] = "OpenAI response returns HTTP code";
        if (!etext || r->err_len < sizeof pa - 1 || memcmp(etext, pa, sizeof pa - 1) != 0)
            gp_buf_printf(&msg, "%s %d: ", pa, r->http_status);
        if (etext)
            gp_buf_append(&msg, etext, r->err_len);
        else
            for (uint32_t c = 0; c < r->n_chunks && msg.len < 2000; c++) {
                const struct gp_chunk *ch = gp_record_chunk(st, r, c);
                gp_buf_append(&msg, gp_record_bytes(st, ch), ch->len);
            }
    } else if (etext) {
        gp_buf_append(&msg, etext, r->err_len);
    } else {
        gp_buf_puts(&msg, rm->fail == GP_FAIL_TIMEOUT     ? "request timed out"
                          : rm->fail == GP_FAIL_CANCELLED ? "cancelled at the end of the run"
                                                          : "no HTTP response");
    }
    /* trim trailing newlines of a text body */
    while (msg.len && (msg.data[msg.len - 1] == '\n' || msg.data[msg.len - 1] == '\r'))
        msg.len--;
    int rc = save_err(&w->text, rm, msg.data ? msg.data : "", msg.len);
    gp_buf_free(&msg);
    return rc;
}

/* A stream that ended without [DONE]: flagged, and failed as truncated when
 * it had no content, or was cut before finish_reason: the connection broke,
 * or the body stopped inside an event (a Content-Length shorter than the
 * stream: the transfer itself completed, but half an event is no end). A
 * stream that ends cleanly on an event boundary without [DONE] keeps its
 * content, as GenAI-Perf does. */
static int classify_no_done(struct worker *w, const struct gp_record *r, struct gp_req_metrics *rm, int cut,
                            const char *etext)
{
    const struct gp_scan *s = &w->s;
    rm->flags |= GP_RQ_NO_DONE;
    if (!(s->nct == 0 || ((cut || s->cut_event) && !s->finish)))
        return 0;
    rm->fail = GP_FAIL_TRUNCATED;
    struct gp_buf msg = {0};
    gp_buf_puts(&msg, s->nct ? "stream cut before finish_reason and [DONE]" : "stream ended before [DONE] with no content");
    if (cut && etext) {
        gp_buf_puts(&msg, ": ");
        gp_buf_append(&msg, etext, r->err_len);
    } else if (s->nct && s->cut_event) {
        gp_buf_puts(&msg, ": the body ended inside an event");
    }
    int rc = save_err(&w->text, rm, msg.data ? msg.data : "", msg.len);
    gp_buf_free(&msg);
    return rc;
}

/* A 2xx that carried no response object at all: the reason names what came
 * instead, so that the first error line says what the server did. The
 * records keep no response headers: a body is called text/html when it
 * starts with '<' (a proxy's or login page), which is what such pages send. */
static int classify_no_content(struct worker *w, const struct gp_record *r, struct gp_req_metrics *rm, int streamed)
{
    const struct gp_scan *s = &w->s;
    const struct gp_record_store *st = w->st;
    struct gp_buf msg = {0};
    rm->fail = GP_FAIL_NO_CONTENT;
    size_t nbytes = 0;
    for (uint32_t c = 0; c < r->n_chunks; c++)
        nbytes += gp_record_chunk(st, r, c)->len;
    const char *what = s->anthropic ? "Anthropic message" : s->responses_api ? "Responses API response" : "chat completion";
    const char *what_ev = s->anthropic ? "Anthropic Messages event" : s->responses_api ? "Responses API event"
                                                                                          : "chat completion chunk";
    uint32_t malformed = s->bad_events - s->foreign;
    if (s->foreign) {
        /* JSON, but no answer: say what it was (its keys) */
        const char *keys = s->foreign_keys.len ? s->foreign_keys.data : "none";
        if (streamed)
            gp_buf_printf(&msg, "no_content: %d stream whose %u JSON event%s no %s%s (keys%s: %s)", r->http_status,
                          s->foreign, s->foreign == 1 ? " is" : "s are", what_ev, s->foreign == 1 ? "" : "s",
                          s->foreign == 1 ? "" : " of the first", keys);
        else
            gp_buf_printf(&msg, "no_content: %d with a JSON object that is no %s (keys: %s)", r->http_status, what, keys);
        if (malformed)
            gp_buf_printf(&msg, "; %u malformed event%s", malformed, malformed == 1 ? "" : "s");
    } else if (streamed && s->bad_events)
        gp_buf_printf(&msg, "no_content: %u malformed event%s", s->bad_events, s->bad_events == 1 ? "" : "s");
    else if (streamed)
        gp_buf_puts(&msg, "no_content: no response event in the stream");
    else if (!nbytes)
        gp_buf_printf(&msg, r->http_status == 204 ? "no_content: 204 (no body)" : "no_content: empty body (HTTP %d)",
                      r->http_status);
    else {
        /* the first bytes of the body say what it was */
        const struct gp_chunk *c0 = gp_record_chunk(st, r, 0);
        const char *p = gp_record_bytes(st, c0);
        size_t n = c0->len, i = 0;
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
            i++;
        gp_buf_printf(&msg, "no_content: %s (HTTP %d, %zu bytes): ",
                      i < n && p[i] == '<' ? "text/html body" : "not an OpenAI response", r->http_status, nbytes);
        gp_buf_append(&msg, p + i, n - i < 200 ? n - i : 200);
    }
    int rc = save_err(&w->text, rm, msg.data ? msg.data : "", msg.len);
    gp_buf_free(&msg);
    return rc;
}

/* Sets rm->fail (and the error text) from the record's status and the scan
 * (sse-and-servers.md §6: EOF after [DONE] is fine, EOF after
 * finish_reason means output complete but accounting incomplete, EOF
 * before it is a truncated request). 0 or -GP_ENOMEM. */
static int classify(struct worker *w, const struct gp_record *r, struct gp_req_metrics *rm, int streamed)
{
    const struct gp_scan *s = &w->s;
    const char *etext = r->err_len ? w->st->bytes.data + r->err_off : NULL;
    /* any status outside 2xx fails its request: a 3xx is not followed */
    int non2xx = r->http_status != 0 && (r->http_status < 200 || r->http_status >= 300);
    int status_fail = (r->flags & (GP_REC_TIMEOUT | GP_REC_CANCELLED)) || r->http_status == 0 || non2xx;
    int cut = !status_fail && (r->flags & GP_REC_FAILED); /* 2xx, then the transfer failed */
    if (cut && !(streamed && s->events > 0))
        status_fail = 1; /* nothing usable arrived: a transport failure */
    if (status_fail) {
        if (r->flags & GP_REC_TIMEOUT)
            rm->fail = GP_FAIL_TIMEOUT;
        else if (r->flags & GP_REC_CANCELLED)
            rm->fail = GP_FAIL_CANCELLED;
        else if (non2xx)
            rm->fail = GP_FAIL_HTTP;
        else
            rm->fail = GP_FAIL_TRANSPORT;
        return save_status_error(w, r, rm, non2xx, etext) ? -GP_ENOMEM : 0;
    }
    if (s->has_error) {
        rm->fail = GP_FAIL_STREAM_ERROR;
        return save_err(&w->text, rm, s->first_err.data ? s->first_err.data : "", s->first_err.len) ? -GP_ENOMEM
                                                                                                      : 0;
    }
    if (streamed && !s->done)
        return classify_no_done(w, r, rm, cut, etext) ? -GP_ENOMEM : 0;
    /* Everything arrived, then the body fell short of its Content-Length:
     * the answer stands, the framing lie is counted (issue 40 item 5). */
    if (cut && streamed)
        rm->flags |= GP_RQ_SHORT_AFTER_DONE;
    /* A 2xx with no response object at all measured nothing: it fails
     * (GenAI-Perf would count it in request_throughput as a request without
     * content). One with a well-formed response but no content (a finish
     * chunk only, an embeddings body) stays ok (metrics.h, n_no_content). */
    if (!s->responses)
        return classify_no_content(w, r, rm, streamed) ? -GP_ENOMEM : 0;
    return 0;
}

/* OSL (client tokenizer on the content, else the server's count) and
 * reasoning tokens; kept even for failed requests (diagnostics). */
static void count_tokens(struct worker *w, const struct gp_record *r, struct gp_req_metrics *rm)
{
    const struct gp_scan *s = &w->s;
    rm->content_chunks = (uint32_t)s->nct;
    if (s->content.len || s->nct) {
        long n = w->tok ? tcount(w, s->content.data ? s->content.data : "", s->content.len) : -1;
        if (n < 0 && s->completion_tokens >= 0) {
            n = s->completion_tokens;
            rm->flags |= GP_RQ_OSL_FROM_SERVER;
        }
        rm->osl = (int32_t)n;
    } else {
        rm->osl = 0;
    }
    if (s->reasoning.len && w->tok) {
        long n = tcount(w, s->reasoning.data, s->reasoning.len);
        rm->reasoning_tokens = n < 0 ? 0 : (int32_t)n;
    }
    rm->reasoning_chunks = s->reasoning_chunks;
    if (s->reasoning_chunks) {
        rm->first_reasoning_ns = s->first_reasoning_ns;
        rm->ttfr_ns = (int64_t)(s->first_reasoning_ns - r->t_start_ns);
    }
}

/* Timings for every request that got content, failed ones included
 * (diagnostics in records.jsonl; only ok ones reach the statistics), and
 * its content chunk times kept. */
static void timings(struct worker *w, const struct gp_record *r, struct gp_req_metrics *rm)
{
    const struct gp_scan *s = &w->s;
    if (s->nct) {
        rm->first_content_ns = s->ct[0];
        rm->last_content_ns = s->ct[s->nct - 1];
        rm->ttft_ns = (int64_t)(s->ct[0] - r->t_start_ns);
        rm->latency_ns = (int64_t)(s->ct[s->nct - 1] - r->t_start_ns);
        if (s->nct > 1)
            rm->ttst_ns = (int64_t)(s->ct[1] - s->ct[0]);
        if (s->nct > 1 && rm->osl > 1) {
            double q = (double)(rm->latency_ns - rm->ttft_ns) / (double)(rm->osl - 1);
            rm->itl_ns = (int64_t)gp_round_half_even(q);
            if (rm->itl_ns > 0)
                rm->tps_user = 1.0 / ((double)rm->itl_ns / 1e9);
        }
    }
    /* into the slot alloc_arrays reserved for it (its capacity): final as
     * soon as the request is, which lets the records file follow the parse */
    size_t n = s->nct, cap = gp_scan_ct_capacity(w->st, r);
    if (n > cap)
        n = cap; /* cannot happen (the scan keeps at most that many); never overrun */
    if (rm->ct_first + n > w->n_content_ns)
        n = rm->ct_first < w->n_content_ns ? w->n_content_ns - rm->ct_first : 0;
    if (n)
        memcpy(w->content_ns + rm->ct_first, s->ct, n * sizeof *s->ct);
    rm->content_chunks = (uint32_t)n;
}

static int tpc_add(struct tpc_hist *h, long v, uint64_t times)
{
    if (v < 0)
        v = 0;
    if (v < GP_TPC_HIST) {
        h->cnt[v] += times;
        return 0;
    }
    for (uint64_t i = 0; i < times; i++) {
        if (h->nbig == h->bigcap) {
            size_t nc = h->bigcap ? h->bigcap * 2 : 64;
            double *p = realloc(h->big, nc * sizeof *p);
            if (!p)
                return -GP_ENOMEM;
            h->big = p;
            h->bigcap = nc;
        }
        h->big[h->nbig++] = (double)v;
    }
    return 0;
}

/* Tokens in each event that carried content (the server's chunking: SGLang's
 * --stream-interval, vLLM's output merging; or speculative decoding, which
 * chunks alone cannot tell apart): each event's text counted on its
 * own. When the request's OSL equals its content events, every event is
 * taken as one token without a second tokenizer pass (the common case costs
 * nothing); the counts of a multi-token request's events add up to its OSL
 * up to token boundaries that straddle two events. */
static int tokens_per_event(struct worker *w, const struct gp_req_metrics *rm)
{
    const struct gp_scan *s = &w->s;
    if (!s->nev || !w->tok || (rm->flags & GP_RQ_OSL_FROM_SERVER))
        return 0;
    if (rm->osl == (int32_t)s->nev)
        return tpc_add(&w->tpc, 1, s->nev);
    size_t prev = 0;
    for (size_t e = 0; e < s->nev; e++) {
        long c = tcount(w, s->content.data + prev, s->ev_end[e] - prev);
        prev = s->ev_end[e];
        if (tpc_add(&w->tpc, c, 1))
            return -GP_ENOMEM;
    }
    return 0;
}

/* A successful request: its flags and its inter-chunk gaps. */
static int finish_ok(struct worker *w, struct gp_req_metrics *rm)
{
    const struct gp_scan *s = &w->s;
    rm->flags |= GP_RQ_OK;
    if (w->schema) {
        int so = gp_mx_schema_check(w->schema, s->content.data, s->content.len);
        rm->flags |= so == GP_SO_INVALID_JSON ? GP_RQ_SO_INVALID_JSON : so == GP_SO_MISMATCH ? GP_RQ_SO_MISMATCH : 0;
    }
    if (rm->osl_asked >= 0) {
        long got = s->completion_tokens >= 0 ? s->completion_tokens : rm->osl;
        if (got != rm->osl_asked)
            rm->flags |= GP_RQ_OSL_MISMATCH;
    }
    if (w->inter_chunk)
        for (size_t c = 1; c < s->nct; c++)
            if (push_icl(&w->icl, (double)(s->ct[c] - s->ct[c - 1])))
                return -GP_ENOMEM;
    if (w->inter_chunk && (rm->flags & GP_RQ_STREAMED))
        return tokens_per_event(w, rm);
    return 0;
}

/* The prompt the server processed. Anthropic's input_tokens leaves out the
 * tokens read from its prompt cache (cache_read_input_tokens) and written to
 * it (cache_creation_input_tokens); its prompt is the three added, which
 * makes the prefix-cache hit rate (cached / prompt) the same quantity as on
 * chat, whose prompt_tokens include cached_tokens. A cache count that was no
 * count leaves the sum unknown (-1; bad_usage is already set), an absent one
 * counts as 0 (no prompt caching in use), and a sum past int32 is no count. */
static int32_t server_prompt(const struct gp_scan *s, uint32_t *flags)
{
    long p = s->prompt_tokens;
    if (!s->anthropic || p < 0)
        return (int32_t)p;
    if (s->bad_usage & (GP_USAGE_CACHED | GP_USAGE_CACHE_WRITE))
        return -1;
    p += (s->cached_tokens > 0 ? s->cached_tokens : 0) + (s->cache_write_tokens > 0 ? s->cache_write_tokens : 0);
    if (p > INT32_MAX) {
        *flags |= GP_RQ_BAD_USAGE;
        return -1;
    }
    return (int32_t)p;
}

static int process_one(struct worker *w, size_t i, struct gp_req_metrics *rm)
{
    const struct gp_record *r = &w->st->recs[i];
    struct gp_scan *s = &w->s;
    init_req(w, r, i, rm);
    int streamed = 0;
    if (gp_scan_response(w->st, r, s, &streamed, w->requests_only) < 0)
        return -GP_ENOMEM;
    rm->events = s->events;
    rm->bad_events = s->bad_events;
    if (streamed)
        rm->flags |= GP_RQ_STREAMED;
    if (s->bad_usage)
        rm->flags |= GP_RQ_BAD_USAGE;
    if (s->has_usage) {
        rm->flags |= GP_RQ_HAS_USAGE;
        rm->server_prompt_tokens = server_prompt(s, &rm->flags);
        rm->server_completion_tokens = (int32_t)s->completion_tokens;
        rm->server_cached_tokens = (int32_t)s->cached_tokens;
    }
    if (classify(w, r, rm, streamed))
        return -GP_ENOMEM;
    count_tokens(w, r, rm);
    timings(w, r, rm);
    if (rm->fail != GP_FAIL_NONE)
        return 0;
    return finish_ok(w, rm);
}

void *gp_mx_worker_run(void *arg)
{
    struct worker *w = arg;
    for (size_t k = w->k0; k < w->k1 && !w->rc; k++) {
        w->rc = process_one(w, w->idx[k], &w->reqs[k]);
        /* every 4096 requests: a lock per publication, not per request */
        if (w->watch && !w->rc && ((k + 1 - w->k0) & 4095) == 0)
            gp_metrics_watch_progress(w->watch, w->slot, k + 1);
    }
    if (w->watch && !w->rc)
        gp_metrics_watch_progress(w->watch, w->slot, w->k1);
    return NULL;
}

void gp_mx_worker_free(struct worker *w)
{
    gp_scan_free(&w->s);
    gp_buf_free(&w->text);
    free(w->icl.icl);
    free(w->tpc.big);
}


int gp_mx_tpc_merge(struct tpc_hist *dst, const struct tpc_hist *src)
{
    for (size_t v = 0; v < GP_TPC_HIST; v++)
        dst->cnt[v] += src->cnt[v];
    for (size_t i = 0; i < src->nbig; i++)
        if (tpc_add(dst, (long)src->big[i], 1))
            return -GP_ENOMEM;
    return 0;
}

/* The value of rank k (0-based) in ascending order. */
static double tpc_at(const struct tpc_hist *h, uint64_t k)
{
    for (size_t v = 0; v < GP_TPC_HIST; v++) {
        if (k < h->cnt[v])
            return (double)v;
        k -= h->cnt[v];
    }
    return h->big[k];
}

int gp_mx_tpc_stats(struct tpc_hist *h, struct gp_stats *out)
{
    memset(out, 0, sizeof *out);
    uint64_t n = h->nbig;
    double sum = 0;
    for (size_t v = 0; v < GP_TPC_HIST; v++) {
        n += h->cnt[v];
        sum += (double)v * (double)h->cnt[v];
    }
    if (!n)
        return 0;
    if (h->nbig) /* qsort(NULL, 0, ...) is undefined (UBSan: nonnull argument) */
        qsort(h->big, h->nbig, sizeof *h->big, gp_cmp_double);
    for (size_t i = 0; i < h->nbig; i++)
        sum += h->big[i];
    out->present = 1;
    out->n = (size_t)n;
    out->avg = sum / (double)n;
    out->min = tpc_at(h, 0);
    out->max = tpc_at(h, n - 1);
    /* np.percentile's linear method with numpy's _lerp, on the ranks */
    for (int i = 0; i < GP_NPCT; i++) {
        double vi = (double)(n - 1) * gp_pct_levels[i] / 100.0;
        uint64_t lo = (uint64_t)vi;
        double g = vi - (double)lo, a = tpc_at(h, lo), b = lo + 1 < n ? tpc_at(h, lo + 1) : a;
        out->p[i] = g < 0.5 ? a + (b - a) * g : b - (b - a) * (1 - g);
    }
    double ss = 0;
    for (size_t v = 0; v < GP_TPC_HIST; v++)
        ss += ((double)v - out->avg) * ((double)v - out->avg) * (double)h->cnt[v];
    for (size_t i = 0; i < h->nbig; i++)
        ss += (h->big[i] - out->avg) * (h->big[i] - out->avg);
    out->std = sqrt(ss / (double)n);
    return 0;
}
