/* metrics/metrics.c — from raw chunks to per-request and benchmark metrics.
 *
 * One pass over the records: each response is re-framed (SSE) and scanned
 * with scratch buffers that live for the whole pass, so a million requests
 * cost no allocation per event. Timing decisions mirror GenAI-Perf
 * (genai-perf-profile.md §6.2-6.4): a network read that completed at least
 * one event carrying non-empty `content` is one content chunk stamped with
 * that read's time; role-only, reasoning-only, finish, usage and [DONE]
 * events never move TTFT or latency.
 */
#include "metrics/metrics.h"
#include "metrics/sse.h"
#include "client/record.h"
#include "core/buf.h"
#include "core/error.h"
#include "dataset/dataset.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const metric_names[GP_M__COUNT] = {
    "request_throughput", "request_latency", "request_goodput", "request_count",
    "time_to_first_token", "time_to_second_token", "inter_token_latency",
    "output_token_throughput", "output_token_throughput_per_user", "output_sequence_length",
    "input_sequence_length",
};
static const char *const metric_units[GP_M__COUNT] = {
    "requests/sec", "ms", "requests/sec", "count", "ms", "ms", "ms",
    "tokens/sec", "tokens/sec/user", "tokens", "tokens",
};
static const char *const fail_names[GP_FAIL__COUNT] = {
    "none", "transport", "http", "stream_error", "timeout", "cancelled", "truncated",
};

const char *gp_metric_name(enum gp_metric m) { return (unsigned)m < GP_M__COUNT ? metric_names[m] : "?"; }
const char *gp_metric_unit(enum gp_metric m) { return (unsigned)m < GP_M__COUNT ? metric_units[m] : "?"; }
const char *gp_fail_kind_name(enum gp_fail_kind k)
{
    return (unsigned)k < GP_FAIL__COUNT ? fail_names[k] : "?";
}

/* Per-pass scratch: reused for every request. */
struct scratch {
    struct gp_sse sse;
    struct gp_buf content, reasoning, errtext, first_err, body;
    uint64_t *ct;          /* content chunk times of the current request */
    size_t nct, ctcap;
    int done, has_error, has_usage;
    long prompt_tokens, completion_tokens;
    uint32_t events, bad_events;
};

static int on_event(void *vctx, const char *data, size_t len, const char *event_type)
{
    struct scratch *s = vctx;
    struct gp_event_info info;
    s->events++;
    if (event_type[0] && strcasestr(event_type, "error")) {
        /* `event: error` (GenAI-Perf counts it as an error event too) */
        if (!s->has_error) {
            gp_buf_reset(&s->first_err);
            gp_buf_append(&s->first_err, data, len > 2000 ? 2000 : len);
        }
        s->has_error = 1;
        return 0;
    }
    gp_event_parse(data, len, &s->content, &s->reasoning, &s->errtext, &info);
    switch (info.kind) {
    case GP_EV_DONE:
        s->done = 1;
        break;
    case GP_EV_ERROR:
        if (!s->has_error) {
            gp_buf_reset(&s->first_err);
            if (info.error_code)
                gp_buf_printf(&s->first_err, "in-stream error (code %d): ", info.error_code);
            else
                gp_buf_puts(&s->first_err, "in-stream error: ");
            if (s->errtext.len)
                gp_buf_append(&s->first_err, s->errtext.data, s->errtext.len > 2000 ? 2000 : s->errtext.len);
            else
                gp_buf_append(&s->first_err, data, len > 2000 ? 2000 : len);
        }
        s->has_error = 1;
        break;
    case GP_EV_CHUNK:
        if (info.has_usage) {
            s->has_usage = 1;
            if (info.prompt_tokens >= 0)
                s->prompt_tokens = info.prompt_tokens;
            if (info.completion_tokens >= 0)
                s->completion_tokens = info.completion_tokens;
        }
        break;
    case GP_EV_BAD:
        s->bad_events++; /* GenAI-Perf drops these too; we count them */
        break;
    }
    return 0;
}

static int push_ct(struct scratch *s, uint64_t t)
{
    if (s->nct == s->ctcap) {
        size_t nc = s->ctcap ? s->ctcap * 2 : 256;
        uint64_t *p = realloc(s->ct, nc * sizeof *p);
        if (!p)
            return -GP_ENOMEM;
        s->ct = p;
        s->ctcap = nc;
    }
    s->ct[s->nct++] = t;
    return 0;
}

static int looks_like_sse(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t'))
        i++;
    return (n - i >= 5 && memcmp(p + i, "data:", 5) == 0) || (i < n && p[i] == ':') ||
           (n - i >= 6 && memcmp(p + i, "event:", 6) == 0);
}

/* Parses one record's response into s (content, times, usage, error). */
static int scan_response(const struct gp_record_store *st, const struct gp_record *r, struct scratch *s,
                         int *streamed)
{
    gp_sse_reset(&s->sse);
    gp_buf_reset(&s->content);
    gp_buf_reset(&s->reasoning);
    gp_buf_reset(&s->first_err);
    s->nct = 0;
    s->done = s->has_error = s->has_usage = 0;
    s->prompt_tokens = s->completion_tokens = -1;
    s->events = s->bad_events = 0;
    int sse = (r->flags & GP_REC_STREAMING) != 0;
    if (!sse && r->n_chunks) {
        const struct gp_chunk *c0 = gp_record_chunk(st, r, 0);
        sse = looks_like_sse(gp_record_bytes(st, c0), c0->len);
    }
    *streamed = sse;
    if (sse) {
        for (uint32_t i = 0; i < r->n_chunks; i++) {
            const struct gp_chunk *c = gp_record_chunk(st, r, i);
            size_t before = s->content.len;
            int rc = gp_sse_feed(&s->sse, gp_record_bytes(st, c), c->len, on_event, s);
            if (rc < 0)
                return rc;
            if (s->content.len > before && push_ct(s, c->t_ns))
                return -GP_ENOMEM;
        }
        size_t before = s->content.len;
        int rc = gp_sse_finish(&s->sse, on_event, s);
        if (rc < 0)
            return rc;
        if (s->content.len > before) {
            uint64_t t = r->n_chunks ? gp_record_chunk(st, r, r->n_chunks - 1)->t_ns : r->t_end_ns;
            if (push_ct(s, t))
                return -GP_ENOMEM;
        }
        return 0;
    }
    /* non-streaming: one response at transfer completion (PA delivers the body once) */
    gp_buf_reset(&s->body);
    for (uint32_t i = 0; i < r->n_chunks; i++) {
        const struct gp_chunk *c = gp_record_chunk(st, r, i);
        if (gp_buf_append(&s->body, gp_record_bytes(st, c), c->len))
            return -GP_ENOMEM;
    }
    if (s->body.len) {
        s->events = 1;
        on_event(s, s->body.data, s->body.len, "");
        s->done = 1;
        if (s->content.len) {
            uint64_t t = r->t_end_ns ? r->t_end_ns : gp_record_chunk(st, r, r->n_chunks - 1)->t_ns;
            if (push_ct(s, t))
                return -GP_ENOMEM;
        }
    }
    return 0;
}

/* GenAI-Perf ISL: tokens of the space-joined message contents (or the
 * completions prompt), no chat template. Used only when the dataset did not
 * record it. */
static long isl_from_payload(struct gp_tokenizer *tok, const char *payload, size_t len)
{
    if (!tok || !payload)
        return -1;
    json_t *root = json_loadb(payload, len, 0, NULL);
    if (!root)
        return -1;
    struct gp_buf b = {0};
    json_t *msgs = json_object_get(root, "messages");
    if (json_is_array(msgs)) {
        size_t i;
        json_t *m;
        int firstm = 1;
        json_array_foreach(msgs, i, m) {
            json_t *c = json_object_get(m, "content");
            if (!json_is_string(c))
                continue;
            if (!firstm)
                gp_buf_putc(&b, ' ');
            firstm = 0;
            gp_buf_append(&b, json_string_value(c), json_string_length(c));
        }
    } else {
        json_t *p = json_object_get(root, "prompt");
        if (json_is_string(p))
            gp_buf_append(&b, json_string_value(p), json_string_length(p));
    }
    long n = gp_tokenizer_count(tok, b.data ? b.data : "", b.len);
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

struct arrays {
    double *lat, *ttft, *ttst, *itl, *tps, *osl, *isl, *icl;
    size_t nlat, nttst, nitl, nicl, icl_cap;
};

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

static int slo_kind(const char *name)
{
    if (!strcmp(name, "time_to_first_token")) return 1;
    if (!strcmp(name, "time_to_second_token")) return 2;
    if (!strcmp(name, "inter_token_latency")) return 3;
    if (!strcmp(name, "request_latency")) return 4;
    if (!strcmp(name, "output_token_throughput_per_user")) return 5;
    return 0;
}

static int is_good(const struct gp_req_metrics *rm, const struct gp_metrics_opts *o)
{
    for (size_t i = 0; i < o->n_slos; i++) {
        double v = o->slos[i].value;
        int64_t x;
        switch (slo_kind(o->slos[i].name)) {
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

int gp_metrics_compute(const struct gp_record_store *st, const struct gp_dataset *ds,
                       struct gp_tokenizer *tok, const struct gp_metrics_opts *opts,
                       struct gp_metrics_result *out, struct gp_error *err)
{
    static const struct gp_metrics_opts defaults = {0, NULL, 0, 1};
    if (!opts)
        opts = &defaults;
    memset(out, 0, sizeof *out);
    size_t nmeas = 0;
    for (size_t i = 0; i < st->n; i++)
        if (!(st->recs[i].flags & GP_REC_WARMUP))
            nmeas++;
    struct scratch s;
    memset(&s, 0, sizeof s);
    gp_sse_init(&s.sse);
    struct gp_buf text = {0};
    struct arrays a;
    memset(&a, 0, sizeof a);
    int rc = 0;
    size_t alloc_n = nmeas ? nmeas : 1;
    out->reqs = calloc(alloc_n, sizeof *out->reqs);
    a.lat = malloc(alloc_n * sizeof(double));
    a.ttft = malloc(alloc_n * sizeof(double));
    a.ttst = malloc(alloc_n * sizeof(double));
    a.itl = malloc(alloc_n * sizeof(double));
    a.tps = malloc(alloc_n * sizeof(double));
    a.osl = malloc(alloc_n * sizeof(double));
    a.isl = malloc(alloc_n * sizeof(double));
    if (!out->reqs || !a.lat || !a.ttft || !a.ttst || !a.itl || !a.tps || !a.osl || !a.isl) {
        rc = gp_err(err, GP_ENOMEM, "out of memory computing metrics for %zu requests", nmeas);
        goto done;
    }

    uint64_t wmin = UINT64_MAX, wmax = 0;
    double isl_client_sum = 0, isl_server_sum = 0, osl_server_sum = 0;
    size_t n_isl_server = 0, n_good = 0, n_throughput = 0;
    int goodput_invalid = 0;
    for (size_t i = 0; i < opts->n_slos; i++)
        if (!slo_kind(opts->slos[i].name))
            goodput_invalid = 1;

    size_t k = 0;
    for (size_t i = 0; i < st->n; i++) {
        const struct gp_record *r = &st->recs[i];
        if (r->flags & GP_REC_WARMUP)
            continue;
        struct gp_req_metrics *rm = &out->reqs[k++];
        rm->rec = (uint32_t)i;
        rm->http_status = r->http_status;
        rm->ttft_ns = rm->ttst_ns = rm->latency_ns = rm->itl_ns = -1;
        rm->tps_user = -1;
        rm->isl = rm->osl = -1;
        rm->osl_asked = -1;
        rm->server_prompt_tokens = rm->server_completion_tokens = -1;
        const struct gp_dataset_entry *e = (ds && r->entry < ds->n) ? &ds->entries[r->entry] : NULL;
        if (e) {
            rm->osl_asked = e->osl_asked;
            rm->isl = e->isl >= 0 ? e->isl : (int32_t)isl_from_payload(tok, e->payload, e->payload_len);
        }

        int streamed = 0;
        if ((rc = scan_response(st, r, &s, &streamed)) < 0) {
            rc = gp_err(err, GP_ENOMEM, "out of memory parsing the response of request %zu", i);
            goto done;
        }
        rm->events = s.events;
        rm->bad_events = s.bad_events;
        out->n_bad_events += s.bad_events;
        if (streamed)
            rm->flags |= GP_RQ_STREAMED;
        if (s.has_usage) {
            rm->flags |= GP_RQ_HAS_USAGE;
            rm->server_prompt_tokens = (int32_t)s.prompt_tokens;
            rm->server_completion_tokens = (int32_t)s.completion_tokens;
        }
        const char *etext = r->err_len ? st->bytes.data + r->err_off : NULL;

        /* classify */
        int failed_transport = (r->flags & (GP_REC_FAILED | GP_REC_TIMEOUT | GP_REC_CANCELLED)) ||
                               r->http_status == 0 || r->http_status >= 400;
        if (failed_transport) {
            if (r->flags & GP_REC_TIMEOUT)
                rm->fail = GP_FAIL_TIMEOUT;
            else if (r->flags & GP_REC_CANCELLED)
                rm->fail = GP_FAIL_CANCELLED;
            else if (r->http_status >= 400)
                rm->fail = GP_FAIL_HTTP;
            else
                rm->fail = GP_FAIL_TRANSPORT;
            struct gp_buf msg = {0};
            if (r->http_status >= 400) {
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
            rc = save_err(&text, rm, msg.data ? msg.data : "", msg.len);
            gp_buf_free(&msg);
            if (rc) {
                rc = gp_err(err, GP_ENOMEM, "out of memory keeping error texts");
                goto done;
            }
        } else if (s.has_error) {
            rm->fail = GP_FAIL_STREAM_ERROR;
            if (save_err(&text, rm, s.first_err.data ? s.first_err.data : "", s.first_err.len)) {
                rc = gp_err(err, GP_ENOMEM, "out of memory keeping error texts");
                goto done;
            }
        } else if (streamed && !s.done) {
            rm->flags |= GP_RQ_NO_DONE;
            if (s.nct == 0) {
                rm->fail = GP_FAIL_TRUNCATED;
                static const char m[] = "stream ended before [DONE] with no content";
                if (save_err(&text, rm, m, sizeof m - 1)) {
                    rc = gp_err(err, GP_ENOMEM, "out of memory keeping error texts");
                    goto done;
                }
            }
        }
        if (rm->flags & GP_RQ_NO_DONE)
            out->n_no_done++;
        if (s.has_usage)
            out->n_with_usage++;

        /* token counts are kept even for failed requests (diagnostics) */
        rm->content_chunks = (uint32_t)s.nct;
        if (s.content.len || s.nct) {
            long n = tok ? gp_tokenizer_count(tok, s.content.data ? s.content.data : "", s.content.len) : -1;
            if (n < 0 && s.completion_tokens >= 0) {
                n = s.completion_tokens;
                rm->flags |= GP_RQ_OSL_FROM_SERVER;
            }
            rm->osl = (int32_t)n;
        } else {
            rm->osl = 0;
        }
        if (s.reasoning.len && tok) {
            long n = gp_tokenizer_count(tok, s.reasoning.data, s.reasoning.len);
            rm->reasoning_tokens = n < 0 ? 0 : (int32_t)n;
        }

        if (rm->fail != GP_FAIL_NONE) {
            out->n_failed++;
            out->fail_counts[rm->fail]++;
            continue;
        }
        out->n_ok++;
        n_throughput++;
        rm->flags |= GP_RQ_OK;
        if (rm->osl_asked >= 0) {
            long got = s.completion_tokens >= 0 ? s.completion_tokens : rm->osl;
            if (got != rm->osl_asked) {
                rm->flags |= GP_RQ_OSL_MISMATCH;
                out->n_osl_mismatch++;
            }
        }
        if (s.nct == 0) {
            out->n_no_content++;
            continue; /* GenAI-Perf: skipped for per-request metrics, still in throughput */
        }

        rm->first_content_ns = s.ct[0];
        rm->last_content_ns = s.ct[s.nct - 1];
        rm->ttft_ns = (int64_t)(s.ct[0] - r->t_start_ns);
        rm->latency_ns = (int64_t)(s.ct[s.nct - 1] - r->t_start_ns);
        if (s.nct > 1)
            rm->ttst_ns = (int64_t)(s.ct[1] - s.ct[0]);
        if (s.nct > 1 && rm->osl > 1) {
            double q = (double)(rm->latency_ns - rm->ttft_ns) / (double)(rm->osl - 1);
            rm->itl_ns = (int64_t)gp_round_half_even(q);
            if (rm->itl_ns > 0)
                rm->tps_user = 1.0 / ((double)rm->itl_ns / 1e9);
        }
        if (r->t_start_ns < wmin)
            wmin = r->t_start_ns;
        if (rm->last_content_ns > wmax)
            wmax = rm->last_content_ns;
        a.lat[a.nlat] = (double)rm->latency_ns;
        a.ttft[a.nlat] = (double)rm->ttft_ns;
        a.osl[a.nlat] = (double)rm->osl;
        a.isl[a.nlat] = (double)rm->isl;
        a.nlat++;
        if (rm->ttst_ns >= 0)
            a.ttst[a.nttst++] = (double)rm->ttst_ns;
        if (rm->itl_ns >= 0) {
            a.itl[a.nitl++] = (double)rm->itl_ns;
        }
        if (opts->inter_chunk)
            for (size_t c = 1; c < s.nct; c++)
                if (push_icl(&a, (double)(s.ct[c] - s.ct[c - 1]))) {
                    rc = gp_err(err, GP_ENOMEM, "out of memory collecting inter-chunk latencies");
                    goto done;
                }
        isl_client_sum += rm->isl;
        if (s.has_usage && s.prompt_tokens >= 0) {
            isl_server_sum += (double)s.prompt_tokens;
            osl_server_sum += (double)(s.completion_tokens >= 0 ? s.completion_tokens : 0);
            n_isl_server++;
        }
        if (opts->n_slos && !goodput_invalid && is_good(rm, opts))
            n_good++;
    }
    out->n_reqs = k;

    /* statistics (time metrics in ns, then x 1/1e6 as GenAI-Perf exports them) */
    const double ms = 1 / 1e6;
    gp_stats_compute(a.lat, a.nlat, &out->stats[GP_M_REQUEST_LATENCY]);
    gp_stats_compute(a.ttft, a.nlat, &out->stats[GP_M_TTFT]);
    gp_stats_compute(a.ttst, a.nttst, &out->stats[GP_M_TTST]);
    {
        double sum = 0;
        for (size_t i = 0; i < a.nitl; i++)
            sum += a.itl[i];
        /* GenAI-Perf skips inter_token_latency (and so TPS/user's source) when it sums to 0 */
        if (sum != 0)
            gp_stats_compute(a.itl, a.nitl, &out->stats[GP_M_ITL]);
    }
    {
        size_t ntps = 0;
        for (size_t i = 0; i < out->n_reqs; i++)
            if ((out->reqs[i].flags & GP_RQ_OK) && out->reqs[i].tps_user >= 0)
                a.tps[ntps++] = out->reqs[i].tps_user;
        gp_stats_compute(a.tps, ntps, &out->stats[GP_M_TPS_PER_USER]);
    }
    double osl_sum = 0;
    for (size_t i = 0; i < a.nlat; i++)
        osl_sum += a.osl[i];
    gp_stats_compute(a.osl, a.nlat, &out->stats[GP_M_OSL]);
    gp_stats_compute(a.isl, a.nlat, &out->stats[GP_M_ISL]);
    gp_stats_compute(a.icl, a.nicl, &out->inter_chunk);
    gp_stats_scale(&out->stats[GP_M_REQUEST_LATENCY], ms);
    gp_stats_scale(&out->stats[GP_M_TTFT], ms);
    gp_stats_scale(&out->stats[GP_M_TTST], ms);
    gp_stats_scale(&out->stats[GP_M_ITL], ms);
    gp_stats_scale(&out->inter_chunk, ms);

    if (a.nlat) {
        out->window_start_ns = wmin;
        out->window_end_ns = wmax;
        out->duration_s = (double)(wmax - wmin) / 1e9;
        /* a zero window crashes GenAI-Perf (ZeroDivisionError); we report no throughput */
        if (out->duration_s > 0) {
            struct gp_stats *sys;
            sys = &out->stats[GP_M_REQUEST_THROUGHPUT];
            sys->present = sys->system = 1;
            sys->avg = (double)n_throughput / out->duration_s;
            sys = &out->stats[GP_M_OUTPUT_TOKEN_THROUGHPUT];
            sys->present = sys->system = 1;
            sys->avg = osl_sum / out->duration_s;
            if (opts->n_slos) {
                sys = &out->stats[GP_M_REQUEST_GOODPUT];
                sys->present = sys->system = 1;
                sys->avg = goodput_invalid ? -1.0 : (double)n_good / out->duration_s;
            }
        }
        struct gp_stats *c = &out->stats[GP_M_REQUEST_COUNT];
        c->present = c->system = 1;
        c->avg = (double)a.nlat;
        c->n = a.nlat;
    }
    out->goodput_invalid = goodput_invalid;
    out->isl_client_avg = a.nlat ? isl_client_sum / (double)a.nlat : -1;
    out->isl_server_avg = n_isl_server ? isl_server_sum / (double)n_isl_server : -1;
    out->osl_server_avg = n_isl_server ? osl_server_sum / (double)n_isl_server : -1;
    out->text_len = text.len;
    out->text = gp_buf_steal(&text);
    rc = 0;

done:
    gp_sse_free(&s.sse);
    gp_buf_free(&s.content);
    gp_buf_free(&s.reasoning);
    gp_buf_free(&s.errtext);
    gp_buf_free(&s.first_err);
    gp_buf_free(&s.body);
    free(s.ct);
    free(a.lat);
    free(a.ttft);
    free(a.ttst);
    free(a.itl);
    free(a.tps);
    free(a.osl);
    free(a.isl);
    free(a.icl);
    gp_buf_free(&text);
    if (rc)
        gp_metrics_result_free(out);
    return rc;
}

void gp_metrics_result_free(struct gp_metrics_result *r)
{
    free(r->reqs);
    free(r->text);
    memset(r, 0, sizeof *r);
}
