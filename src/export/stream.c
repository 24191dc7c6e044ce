/* export/stream.c — the big files, streamed: perf_analyzer's
 * profile_export.json (spec §4.6) and our <stem>_records.jsonl.
 *
 * Both go through a gp_bigfile (core/bigfile.h): one reused buffer flushed
 * to the atomic temp file every few megabytes, so a million-request run
 * needs no second copy of the data in memory.
 */
#include "client/record.h"
#include "core/bigfile.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/pytext.h"
#include "core/version.h"
#include "dataset/dataset.h"
#include "export/export.h"
#include "export/export_int.h"
#include "export/fastput.h"
#include "metrics/metrics.h"
#include "metrics/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

static uint64_t wall_of(const struct gp_export_ctx *ctx, uint64_t mono)
{
    return gp_record_wall_ns(ctx->store, mono);
}

/* A session turn's "delay" and "session_id" before "payload" (each with its
 * trailing comma). perf_analyzer's session RequestHandler records payload,
 * session_id, then delay (a uint64, absent when the entry has none) into an
 * std::unordered_map, and the exporter walks that map: with libstdc++ these
 * three names land in distinct buckets, so it iterates them newest first.
 * Nothing for other records, so their bytes do not change. */
static int put_session_meta(struct gp_buf *b, const struct gp_export_ctx *ctx, uint32_t entry)
{
    if (!ctx->inputs_meta || entry >= ctx->n_inputs_meta)
        return 0;
    const struct gp_inputs_meta *im = &ctx->inputs_meta[entry];
    if (!im->session_id)
        return 0;
    int r = 0;
    if (im->delay_ms >= 0)
        r |= PUTS(b, "\"delay\":") | put_i64(b, im->delay_ms) | gp_buf_putc(b, ',');
    r |= PUTS(b, "\"session_id\":");
    r |= gp_json_str(b, im->session_id, strlen(im->session_id), 0);
    return r | gp_buf_putc(b, ',');
}

/* Both big files go O_DIRECT once past 64 MiB, whatever the probe says:
 * buffered writes looked fast in the probe yet cost the kernel's copy into
 * fresh page-cache pages (0.35 s CPU on a quiet host for 1.9 GB, seconds
 * under memory pressure) plus the writeback the commit's fsync waits for.
 * Written during the metrics, the CPU is what the parse workers lose
 * (postprocess_bench, 1M records, alternated: 2.1-3.0 s -> 1.5-1.6 s). */
#define BIG_DIRECT 1

int gp_export_profile_json(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err)
{
    struct gp_bigfile s;
    int rc = gp_bigfile_open(&s, path, BIG_DIRECT, err);
    if (rc)
        return rc;
    const struct gp_record_store *st = ctx->store;
    const struct gp_metrics_result *m = ctx->m;
    int r = gp_buf_printf(&s.b, "{\"experiments\":[{\"experiment\":{\"mode\":\"%s\",\"value\":",
                          ctx->mode ? ctx->mode : "concurrency");
    if (ctx->mode && strcmp(ctx->mode, "request_rate") == 0)
        r |= gp_py_float(&s.b, ctx->value);
    else
        r |= gp_buf_printf(&s.b, "%llu", (unsigned long long)(ctx->value > 0 ? ctx->value : 0));
    r |= gp_buf_puts(&s.b, "},\"requests\":[");
    int first = 1, lost = 0;
    /* With a watch the metrics may still be running: request i is read only
     * once its parse worker has passed it (metrics/watch.h). */
    struct gp_metrics_watch *wt = ctx->watch;
    struct gp_metrics_reader rd = {wt, 0};
    const struct gp_req_metrics *reqs = NULL;
    size_t n = 0, until = 0;
    if (wt) { /* m is not to be read before the watch says so */
        lost = gp_metrics_watch_begin(&rd, &reqs, &n, NULL, NULL) != 0;
    } else {
        reqs = m->reqs;
        n = until = m->n_reqs;
    }
    /* only requests the metrics used: PA aborts a run on any failure, so a
     * PA export never holds one; they are all in <stem>_records.jsonl */
    for (size_t i = 0; i < n && !r && !lost; i++) {
        if (i >= until && gp_metrics_watch_next(&rd, i, &until)) {
            lost = 1;
            break;
        }
        const struct gp_req_metrics *q = &reqs[i];
        if (!(q->flags & GP_RQ_OK))
            continue;
        const struct gp_record *rec = &st->recs[q->rec];
        r |= first ? PUTS(&s.b, "{\"timestamp\":") : PUTS(&s.b, ",{\"timestamp\":");
        r |= put_u64(&s.b, wall_of(ctx, rec->t_start_ns));
        r |= PUTS(&s.b, ",\"request_inputs\":{");
        r |= put_session_meta(&s.b, ctx, rec->entry);
        r |= PUTS(&s.b, "\"payload\":");
        first = 0;
        const struct gp_dataset_entry *e =
            (ctx->ds && rec->entry < ctx->ds->n) ? &ctx->ds->entries[rec->entry] : NULL;
        if (rec->body_len) /* a session turn: the conversation it actually sent */
            r |= gp_json_str(&s.b, gp_record_body(st, rec), rec->body_len, 0);
        else if (e)
            r |= gp_json_str(&s.b, e->payload, e->payload_len, 0);
        else
            r |= PUTS(&s.b, "\"\"");
        r |= PUTS(&s.b, "},\"response_timestamps\":[");
        for (uint32_t c = 0; c < rec->n_chunks; c++) {
            if (c)
                r |= gp_buf_putc(&s.b, ',');
            r |= put_u64(&s.b, wall_of(ctx, gp_record_chunk(st, rec, c)->t_ns));
        }
        r |= PUTS(&s.b, "],\"response_outputs\":[");
        for (uint32_t c = 0; c < rec->n_chunks; c++) {
            const struct gp_chunk *ch = gp_record_chunk(st, rec, c);
            r |= c ? PUTS(&s.b, ",{\"response\":") : PUTS(&s.b, "{\"response\":");
            r |= gp_json_str(&s.b, gp_record_bytes(st, ch), ch->len, 0);
            r |= gp_buf_putc(&s.b, '}');
        }
        r |= gp_buf_puts(&s.b, "]}");
        if (gp_bigfile_maybe_flush(&s))
            break;
    }
    if (wt && !r && !lost && gp_metrics_watch_done(&rd))
        lost = 1;
    r |= gp_buf_puts(&s.b, "],\"window_boundaries\":[");
    if (!lost && m->window_end_ns) /* lost: m is being freed by the metrics' thread */
        r |= gp_buf_printf(&s.b, "%llu,%llu", (unsigned long long)wall_of(ctx, m->window_start_ns),
                           (unsigned long long)wall_of(ctx, m->window_end_ns));
    if (ctx->version) {
        r |= PUTS(&s.b, "]}],\"version\":");
        r |= gp_json_str(&s.b, ctx->version, strlen(ctx->version), 0);
        r |= PUTS(&s.b, ",\"service_kind\":");
    } else {
        r |= gp_buf_printf(&s.b, "]}],\"version\":\"genperf %s\",\"service_kind\":", GP_VERSION);
    }
    const char *sk = ctx->service_kind ? ctx->service_kind : "openai";
    const char *ep = ctx->endpoint ? ctx->endpoint : "v1/chat/completions";
    while (*ep == '/')
        ep++; /* GenAI-Perf's endpoint field has no leading slash */
    r |= gp_json_str(&s.b, sk, strlen(sk), 0);
    r |= gp_buf_puts(&s.b, ",\"endpoint\":");
    r |= gp_json_str(&s.b, ep, strlen(ep), 0);
    r |= gp_buf_putc(&s.b, '}');
    if (wt)
        gp_metrics_watch_leave(&rd);
    if (lost) {
        gp_bigfile_finish(&s, 1, NULL);
        return gp_err(err, GP_EIO, "'%s' not written: computing the metrics failed", path);
    }
    return gp_bigfile_finish(&s, r != 0, err);
}

/* key is the literal ",\"name\":". About 25 a line, a million lines:
 * inline (the key's copy becomes a few moves) with one room check for the
 * key and "null" together. */
static inline __attribute__((always_inline)) int put_opt(struct gp_buf *b, const char *key, size_t klen, int64_t v)
{
    if (room(b, klen + 4))
        return -GP_ENOMEM;
    memcpy(b->data + b->len, key, klen);
    b->len += klen;
    if (v >= 0)
        return put_u64(b, (uint64_t)v);
    memcpy(b->data + b->len, "null", 5); /* with the NUL the buffer keeps */
    b->len += 4;
    return 0;
}
#define OPT(b, name, v) put_opt((b), ",\"" name "\":", sizeof(",\"" name "\":") - 1, (v))

int gp_export_records_jsonl(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err)
{
    struct gp_bigfile s;
    int rc = gp_bigfile_open(&s, path, BIG_DIRECT, err);
    if (rc)
        return rc;
    const struct gp_record_store *st = ctx->store;
    const struct gp_metrics_result *m = ctx->m;
    /* With a watch the metrics may still be running (metrics/watch.h): a
     * request is read once its worker passed it; an error text (rare) only
     * after the end, when the texts are in request order. */
    struct gp_metrics_reader rd = {ctx->watch, 0};
    const struct gp_req_metrics *reqs = NULL;
    const uint64_t *cts = NULL;
    size_t n = 0, nct = 0, until = 0;
    int lost = 0, final = 0;
    if (ctx->watch) {
        lost = gp_metrics_watch_begin(&rd, &reqs, &n, &cts, &nct) != 0;
    } else {
        reqs = m->reqs;
        n = until = m->n_reqs;
        cts = m->content_ns;
        nct = m->n_content_ns;
        final = 1;
    }
    /* --timeslice-duration: each measured record's slice, as in genperf.json */
    uint64_t ts0 = ctx->timeslice_s > 0 ? gp_export_timeslice_origin(st) : 0;
    size_t k = 0; /* walks reqs, which is in store order without warmups */
    int r = 0;
    for (size_t i = 0; i < st->n && !r && !lost; i++) {
        const struct gp_record *rec = &st->recs[i];
        const struct gp_req_metrics *q = NULL;
        if (!(rec->flags & GP_REC_WARMUP) && k < n) {
            if (k >= until && gp_metrics_watch_next(&rd, k, &until)) {
                lost = 1;
                break;
            }
            if (reqs[k].rec == i)
                q = &reqs[k++];
        }
        if (q && q->err_len && !final) {
            if (gp_metrics_watch_done(&rd)) {
                lost = 1;
                break;
            }
            final = 1;
            until = n;
        }
        r |= PUTS(&s.b, "{\"request_index\":");
        r |= put_u64(&s.b, i);
        r |= OPT(&s.b, "entry", rec->entry);
        r |= OPT(&s.b, "t_start_ns", (int64_t)wall_of(ctx, rec->t_start_ns));
        r |= OPT(&s.b, "t_end_ns", (int64_t)wall_of(ctx, rec->t_end_ns ? rec->t_end_ns : rec->t_start_ns));
        /* queue-to-send: from the start stamp (GenAI-Perf's TTFT origin) to libcurl
         * beginning to send on a ready connection; null when it never got there */
        r |= OPT(&s.b, "send_lag_ns",
                 rec->t_send_ns >= rec->t_start_ns && rec->t_send_ns ? (int64_t)(rec->t_send_ns - rec->t_start_ns) : -1);
        /* open loop: when it was due, and how late it started (null: closed loop) */
        r |= OPT(&s.b, "t_sched_ns", rec->t_sched_ns ? (int64_t)wall_of(ctx, rec->t_sched_ns) : -1);
        r |= OPT(&s.b, "sched_lag_ns",
                 rec->t_sched_ns ? (rec->t_start_ns > rec->t_sched_ns ? (int64_t)(rec->t_start_ns - rec->t_sched_ns) : 0)
                                 : -1);
        int failed;
        const char *etext = NULL;
        size_t elen = 0;
        if (q) {
            failed = q->fail != GP_FAIL_NONE;
            if (q->err_len) {
                etext = m->text + q->err_off;
                elen = q->err_len;
            }
        } else {
            failed = (rec->flags & (GP_REC_FAILED | GP_REC_TIMEOUT | GP_REC_CANCELLED)) || rec->http_status == 0 ||
                     rec->http_status >= 400;
            if (rec->err_len) {
                etext = st->bytes.data + rec->err_off;
                elen = rec->err_len;
            }
        }
        r |= failed ? PUTS(&s.b, ",\"status\":\"failed\"") : PUTS(&s.b, ",\"status\":\"ok\"");
        r |= OPT(&s.b, "http_status", rec->http_status ? rec->http_status : -1);
        r |= PUTS(&s.b, ",\"error\":");
        r |= etext ? gp_json_str(&s.b, etext, elen, 0) : PUTS(&s.b, "null");
        r |= PUTS(&s.b, ",\"fail_kind\":");
        if (q && q->fail) {
            const char *fk = gp_fail_kind_name(q->fail);
            r |= gp_buf_putc(&s.b, '"') | gp_buf_puts(&s.b, fk) | gp_buf_putc(&s.b, '"');
        } else {
            r |= PUTS(&s.b, "null");
        }
        r |= (rec->flags & GP_REC_WARMUP) ? PUTS(&s.b, ",\"warmup\":true") : PUTS(&s.b, ",\"warmup\":false");
        if (q) {
            r |= OPT(&s.b, "ttft_ns", q->ttft_ns);
            r |= OPT(&s.b, "ttst_ns", q->ttst_ns);
            r |= OPT(&s.b, "request_latency_ns", q->latency_ns);
            r |= OPT(&s.b, "itl_ns", q->itl_ns);
            r |= OPT(&s.b, "isl", q->isl);
            r |= OPT(&s.b, "osl", q->osl);
            r |= OPT(&s.b, "osl_asked", q->osl_asked);
            r |= (q->flags & GP_RQ_OSL_FROM_SERVER) ? PUTS(&s.b, ",\"osl_source\":\"server\"")
                                                    : PUTS(&s.b, ",\"osl_source\":\"tokenizer\"");
            r |= OPT(&s.b, "server_prompt_tokens", q->server_prompt_tokens);
            r |= OPT(&s.b, "server_completion_tokens", q->server_completion_tokens);
            r |= OPT(&s.b, "content_chunks", q->content_chunks);
            /* every content chunk's time, ns after the request start */
            r |= PUTS(&s.b, ",\"content_ns\":[");
            for (uint32_t c = 0; c < q->content_chunks && q->ct_first + c < nct; c++) {
                if (c)
                    r |= gp_buf_putc(&s.b, ',');
                r |= put_u64(&s.b, cts[q->ct_first + c] - rec->t_start_ns);
            }
            r |= gp_buf_putc(&s.b, ']');
            r |= OPT(&s.b, "reasoning_tokens", q->reasoning_tokens);
            if (q->reasoning_chunks) { /* reasoning runs only: other runs' lines stay as they were */
                r |= OPT(&s.b, "reasoning_chunks", q->reasoning_chunks);
                r |= OPT(&s.b, "ttfr_ns", q->ttfr_ns);
            }
            r |= OPT(&s.b, "events", q->events);
            r |= OPT(&s.b, "bad_events", q->bad_events);
            r |= (q->flags & GP_RQ_STREAMED) ? PUTS(&s.b, ",\"streamed\":true") : PUTS(&s.b, ",\"streamed\":false");
            r |= (q->flags & GP_RQ_NO_DONE) ? PUTS(&s.b, ",\"done\":false") : PUTS(&s.b, ",\"done\":true");
            r |= (q->flags & GP_RQ_OSL_MISMATCH) ? PUTS(&s.b, ",\"osl_mismatch\":true")
                                                 : PUTS(&s.b, ",\"osl_mismatch\":false");
        } else {
            r |= PUTS(&s.b, ",\"ttft_ns\":null,\"ttst_ns\":null,\"request_latency_ns\":null,\"itl_ns\":null"
                            ",\"isl\":null,\"osl\":null,\"osl_asked\":null,\"osl_source\":null"
                            ",\"server_prompt_tokens\":null,\"server_completion_tokens\":null"
                            ",\"content_chunks\":null,\"content_ns\":null,\"reasoning_tokens\":null,\"events\":null,\"bad_events\":null"
                            ",\"streamed\":null,\"done\":null,\"osl_mismatch\":null");
        }
        r |= OPT(&s.b, "n_chunks", rec->n_chunks);
        r |= OPT(&s.b, "worker", rec->worker);
        r |= OPT(&s.b, "slot", rec->slot);
        if (ctx->timeslice_s > 0 && !(rec->flags & GP_REC_WARMUP)) /* only then: other runs' lines keep their bytes */
            r |= OPT(&s.b, "timeslice", (int64_t)gp_export_timeslice_index(rec->t_start_ns, ts0, ctx->timeslice_s));
        r |= PUTS(&s.b, "}\n");
        if (gp_bigfile_maybe_flush(&s))
            break;
    }
    if (ctx->watch)
        gp_metrics_watch_leave(&rd);
    if (lost) {
        gp_bigfile_finish(&s, 1, NULL);
        return gp_err(err, GP_EIO, "'%s' not written: computing the metrics failed", path);
    }
    return gp_bigfile_finish(&s, r != 0, err);
}

int gp_export_check_pa_request(const json_t *rq, int required, const char *path, const char *field,
                               long long *last_ns, struct gp_error *err)
{
    const json_t *ts = json_object_get(rq, "timestamp");
    const json_t *rts = json_object_get(rq, "response_timestamps");
    const json_t *ros = json_object_get(rq, "response_outputs");
    if (!json_is_integer(ts))
        return gp_err(err, GP_EINVAL, "%s: field '%s.timestamp': expected an integer", path, field);
    if ((rts || required) && !json_is_array(rts))
        return gp_err(err, GP_EINVAL, "%s: field '%s.response_timestamps': expected an array", path, field);
    if ((ros || required) && !json_is_array(ros))
        return gp_err(err, GP_EINVAL, "%s: field '%s.response_outputs': expected an array", path, field);
    /* a negative or reversed time would turn into a TTFT of years: -1 gave 1.8e12 ms */
    long long prev = json_integer_value(ts);
    if (prev < 0)
        return gp_err(err, GP_EINVAL, "%s: field '%s.timestamp': %lld is negative (ns since the epoch)", path, field,
                      prev);
    for (size_t k = 0; rts && k < json_array_size(rts); k++) {
        const json_t *x = json_array_get(rts, k);
        if (!json_is_integer(x))
            return gp_err(err, GP_EINVAL, "%s: field '%s.response_timestamps[%zu]': expected an integer", path, field,
                          k);
        if (json_integer_value(x) < prev)
            return gp_err(err, GP_EINVAL, "%s: field '%s.response_timestamps[%zu]': %lld is before %s (%lld)", path,
                          field, k, (long long)json_integer_value(x), k ? "the response before it" : "the timestamp",
                          prev);
        prev = json_integer_value(x);
    }
    /* perf_analyzer writes one output per response */
    if (rts && ros && json_array_size(rts) != json_array_size(ros))
        return gp_err(err, GP_EINVAL, "%s: field '%s.response_outputs': %zu outputs for %zu response_timestamps", path,
                      field, json_array_size(ros), json_array_size(rts));
    if (last_ns)
        *last_ns = prev;
    return 0;
}
