/* client/client.c — the request layer (cl_request.h): a slot's request.
 * One reusable easy handle per slot (or, for plain http:// URLs, the slot's
 * h1 state in client_h1.c), the write and pre-request callbacks, starting a
 * transfer on its transport and recording it once the loop has ended it.
 * See client.h for the load shapes and what is recorded.
 *
 * Plain http:// URLs (no --http2, no proxy) skip libcurl: a slot then owns a
 * keep-alive connection driven by client_h1.c in the same epoll set, sending
 * the same bytes (issue 19: libcurl was most of the loop's time and ran
 * before each chunk's stamp). GENPERF_TRANSPORT=curl keeps libcurl.
 *
 * Calls the transport (cl_transport.h) and client_stats.c only: what a slot
 * does next is the scheduler's (client_sched.c), asked by the loop.
 */
#include "client/cl_request.h"
#include "client/cl_transport.h"
#include "client/schedule.h"
#include "core/clock.h"
#include "core/error.h"

#include <assert.h>
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
    uint64_t t = gp_now_ns();
    size_t n = size * nmemb;
    /* returning short aborts only this transfer */
    return gp_cl_slot_put(ud, p, n, t) ? 0 : n;
}

/* CURLOPT_PREREQFUNCTION: the connection is ready and libcurl is about to
 * send the request; the stamp shows how long a request waited after
 * t_start (the loop busy elsewhere, curl driven late, connection set-up). */
static int on_prereq(void *ud, char *pip, char *lip, int pport, int lport)
{
    (void)pip, (void)lip, (void)pport, (void)lport;
    struct slot *s = ud;
    s->t_send = gp_now_ns();
    return CURL_PREREQFUNC_OK;
}

struct slot *gp_cl_slot_new(struct loop *L, struct gp_error *err)
{
    if (L->nslots == L->slots_cap) {
        size_t nc = L->slots_cap ? L->slots_cap * 2 : 16;
        struct slot **ns = realloc(L->slots, nc * sizeof *ns);
        if (!ns) {
            gp_err(err, GP_ENOMEM, "out of memory allocating client slots");
            return NULL;
        }
        L->slots = ns;
        L->slots_cap = nc;
    }
    struct slot *s = calloc(1, sizeof *s);
    if (s && L->h1t) {
        s->L = L;
        s->id = (uint32_t)L->nslots;
        s->gid = s->id;
        if (gp_cl_h1_slot_init(L, s, err) < 0) {
            free(s);
            return NULL;
        }
        L->slots[L->nslots++] = s;
        return s;
    }
    if (!s || !(s->easy = curl_easy_init())) {
        free(s);
        gp_err(err, GP_ENOMEM, "curl_easy_init failed");
        return NULL;
    }
    s->L = L;
    s->id = (uint32_t)L->nslots;
    s->gid = s->id;
    if (!(s->sh = gp_cl_shard_for(L, s->id, err))) {
        curl_easy_cleanup(s->easy);
        free(s);
        return NULL;
    }
    const struct gp_client_opts *o = L->o;
    CURL *e = s->easy;
    curl_easy_setopt(e, CURLOPT_URL, o->url);
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, L->hdrs);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(e, CURLOPT_PRIVATE, s);
    curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, on_prereq);
    curl_easy_setopt(e, CURLOPT_PREREQDATA, s);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_BUFFERSIZE, 256L * 1024);
    /* Loopback servers must not go through an http_proxy from the environment. */
    curl_easy_setopt(e, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
    /* h2c by Upgrade, not prior knowledge: libcurl 7.88 breaks the second
     * transfer on a reused prior-knowledge connection (curl/curl#10634). */
    if (o->http2)
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION,
                         strncasecmp(o->url, "https:", 6) ? (long)CURL_HTTP_VERSION_2_0 : (long)CURL_HTTP_VERSION_2TLS);
    else
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    if (o->timeout_s > 0)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s * 1000.0 + 0.5));
    if (o->cacert)
        curl_easy_setopt(e, CURLOPT_CAINFO, o->cacert);
    if (o->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    L->slots[L->nslots++] = s;
    return s;
}

void gp_cl_slot_free(struct slot *s)
{
    if (!s)
        return;
    curl_easy_cleanup(s->easy);
    gp_cl_h1_slot_free(s);
    free(s->chunks);
    free(s);
}

static int started(struct loop *L, struct slot *s, struct gp_error *err);

int gp_cl_slot_start(struct loop *L, struct slot *s, uint32_t entry, struct gp_error *err)
{
    struct gp_client_body b0 = L->o->bodies[entry], *b = &b0;
    assert(!s->busy && !s->waiting); /* idle -> busy only (the slot states, client_int.h) */
    if (s->t_sched) {
        b0.data = s->bdata;
        b0.len = s->blen;
    }
    s->nbytes = 0;
    s->nchunks = 0;
    s->oom = 0;
    s->t_send = 0;
    s->too_big = 0;
    s->errbuf[0] = '\0';
    s->entry = entry;
    s->warmup = L->phase_warmup;
    if (L->o->n_urls > 1) {
        size_t n = L->o->n_urls, ep = (size_t)(L->ep_next++ % n);
        if (L->o->url_least_inflight) {
            ep = 0;
            for (size_t i = 1; i < n; i++)
                if (L->ep_inflight[i] < L->ep_inflight[ep])
                    ep = i;
        }
        s->endpoint = (uint32_t)ep;
        L->ep_inflight[ep]++;
        if (s->easy)
            curl_easy_setopt(s->easy, CURLOPT_URL, L->o->urls[ep]);
    }
    if (s->h1) {
        s->t_start = gp_now_ns();
        gp_cl_h1_start(L, s, b->data, b->len);
        return started(L, s, err);
    }
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)b->len);
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, b->data);
    s->t_start = gp_now_ns();
    CURLMcode mc = curl_multi_add_handle(s->sh->multi, s->easy);
    if (mc != CURLM_OK)
        return gp_err(err, GP_ENET, "curl_multi_add_handle: %s", curl_multi_strerror(mc));
    /* Drive the new transfer now (curl_multi_add_handle only arms a 0 ms
     * timer): otherwise the request waits for the next turn of the loop,
     * behind every other completion of this wake-up, after t_start was taken.
     * A transfer this finishes is picked up by pump's curl_multi_info_read. */
    int running;
    mc = curl_multi_socket_action(s->sh->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    if (mc != CURLM_OK)
        return gp_err(err, GP_ENET, "curl_multi_socket_action: %s", curl_multi_strerror(mc));
    return started(L, s, err);
}

static int started(struct loop *L, struct slot *s, struct gp_error *err)
{
    /* no pre-request callback yet: a connection is being opened */
    if (!s->t_send) {
        int rc = gp_cl_drive_now(L, err);
        if (rc < 0)
            return rc;
    }
    if (L->o->cancel_rate > 0 && !s->warmup) {
        /* keyed on the request's place in the load, not on timing
         * (client.h); a stale-connection resend keeps its verdict */
        uint64_t key = s->t_sched ? (1ull << 63 | s->arrival) : ((uint64_t)s->gid << 32 | (uint64_t)s->sent);
        struct gp_rng r;
        gp_rng_seed_stream(&r, L->o->seed, GP_RNG_CANCEL, key);
        s->cancel_at = 0;
        if (gp_rng_double(&r) < L->o->cancel_rate) {
            s->cancel_at = s->t_start + L->o->cancel_delay_ns;
            if (!L->next_cancel || s->cancel_at < L->next_cancel)
                L->next_cancel = s->cancel_at;
            if (!s->retried)
                L->stats->n_cancel_chosen++;
        }
    }
    s->busy = 1;
    s->sent++;
    L->inflight++;
    L->stats->n_sent++;
    if (s->warmup)
        L->stats->n_warmup++;
    return 0;
}


/* Appends up to max bytes of the transfer's body (its chunks, in order) to b. */
static int gather(struct loop *L, struct slot *s, struct gp_buf *b, size_t max)
{
    for (size_t i = 0; i < s->nchunks && max > 0; i++) {
        size_t n = s->chunks[i].len < max ? s->chunks[i].len : max;
        if (gp_buf_append(b, gp_record_bytes(L->st, &s->chunks[i]), n))
            return -GP_ENOMEM;
        max -= n;
    }
    return 0;
}

/* libcurl's CURLINFO_REDIRECT_URL for an h1 response: a 3xx's Location
 * resolved against the request URL (curl_free it). Not a hot path. */
static char *redirect_target(struct loop *L, struct slot *s)
{
    if (!s->h1->r.location[0] || s->h1->r.status < 300 || s->h1->r.status >= 400)
        return NULL;
    char *out = NULL;
    CURLU *u = curl_url();
    const char *url = L->o->n_urls > 1 ? L->o->urls[s->endpoint] : L->o->url;
    if (u && curl_url_set(u, CURLUPART_URL, url, CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
        curl_url_set(u, CURLUPART_URL, s->h1->r.location, CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK)
        curl_url_get(u, CURLUPART_URL, &out, 0);
    curl_url_cleanup(u);
    return out;
}

/* libcurl's transfer: the Content-Encoding it passed through undecoded (no
 * CURLOPT_ACCEPT_ENCODING is set), NULL for none or identity. */
static const char *curl_encoding(CURL *e)
{
    struct curl_header *h = NULL;
    if (curl_easy_header(e, "Content-Encoding", 0, CURLH_HEADER, -1, &h) != CURLHE_OK || !h || !h->value ||
        !*h->value || !strcasecmp(h->value, "identity"))
        return NULL;
    return h->value;
}

/* Records a finished (or cancelled) transfer. The handle is already removed
 * from the multi. */
int gp_cl_slot_record(struct loop *L, struct slot *s, CURLcode res, uint32_t extra_flags, struct gp_error *err)
{
    uint64_t t_end = gp_now_ns();
    assert(!s->busy); /* the loop ended the transfer first: it is recorded once */
    s->cancel_at = 0;
    struct gp_record rec;
    memset(&rec, 0, sizeof rec);
    rec.t_start_ns = s->t_start;
    rec.t_sched_ns = s->t_sched;
    rec.t_end_ns = t_end;
    rec.t_send_ns = s->t_send;
    rec.entry = s->entry;
    rec.worker = (uint32_t)L->o->load.share_index;
    rec.endpoint = s->endpoint;
    if (L->o->n_urls > 1 && L->ep_inflight[s->endpoint])
        L->ep_inflight[s->endpoint]--;
    rec.slot = s->t_sched ? s->arrival : s->gid;
    long status = 0;
    char *ct = NULL;
    const char *enc = NULL;
    if (s->h1) {
        status = s->h1->r.status;
        ct = s->h1->r.ctype[0] ? s->h1->r.ctype : NULL;
    } else {
        curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_getinfo(s->easy, CURLINFO_CONTENT_TYPE, &ct);
    }
    rec.http_status = (int32_t)status;
    int streaming = ct && strcasestr(ct, "text/event-stream") != NULL;
    rec.flags = extra_flags;
    if (s->warmup)
        rec.flags |= GP_REC_WARMUP;
    if (streaming)
        rec.flags |= GP_REC_STREAMING;
    if (s->cap_delayed)
        rec.flags |= GP_REC_CAP_DELAYED;
    /* perf_analyzer hands a non-streamed body over once, at completion. */
    struct gp_chunk one;
    const struct gp_chunk *chunks = s->chunks;
    size_t nchunks = s->nchunks;
    if (!streaming && s->nbytes > 0 && !s->oom) {
        /* at completion: the last read's kernel receive stamp where reads
         * carry one (client_h1.c), so the loop's lateness stays out of the
         * latency as it does for a stream's chunks */
        uint64_t t_done = s->h1 && L->rx_kstamp && s->nchunks ? s->chunks[s->nchunks - 1].t_ns : t_end;
        if (gp_record_join_chunks(L->st, s->chunks, s->nchunks, t_done, &L->body, &one) == 0) {
            /* the body's one response is the transfer's end: the metrics
             * and a re-export from the records read it there */
            rec.t_end_ns = t_done;
            chunks = &one;
            nchunks = 1;
        } else {
            s->oom = 1; /* recorded without its body, below */
        }
    }
    /* a session turn's rebuilt body (valid until its session's next turn):
     * GenAI-Perf's ISL and request_inputs are that body's */
    if (s->t_sched && s->blen && s->bdata != L->o->bodies[s->entry].data && !s->oom) {
        if (s->blen > UINT32_MAX || gp_record_put_bytes(L->st, s->bdata, s->blen, &rec.body_off))
            s->oom = 1;
        else
            rec.body_len = (uint32_t)s->blen;
    }
    if (s->oom)
        nchunks = 0;
    gp_buf_reset(&L->tmp);
    if (extra_flags & GP_REC_CANCEL_PLANNED) {
        rec.flags |= GP_REC_FAILED;
        gp_buf_printf(&L->tmp, "request cancelled %.3f s after it was sent (--request-cancellation-rate)",
                      (double)L->o->cancel_delay_ns / 1e9);
    } else if (extra_flags & GP_REC_CANCELLED) {
        rec.flags |= GP_REC_FAILED;
        gp_buf_puts(&L->tmp, L->stats->budget_stopped && !L->stats->interrupted
                                 ? "request cancelled (the memory budget, --max-memory, was used up before it completed)"
                                 : "request cancelled (interrupted before it completed)");
    } else if (s->oom) {
        rec.flags |= GP_REC_FAILED;
        /* past the budget: the store refused the bytes (record.h), memory did not run out */
        gp_buf_puts(&L->tmp, gp_record_budget_reached(L->o->budget)
                                 ? "memory budget (--max-memory) used up while receiving the response (client); the "
                                   "run stops here, incomplete"
                                 : "out of memory while receiving the response (client); the run stops here, incomplete");
    } else if (s->too_big) {
        rec.flags |= GP_REC_FAILED;
        gp_buf_printf(&L->tmp, "response larger than %llu bytes (--max-response-bytes); transfer aborted",
                      (unsigned long long)L->o->max_response_bytes);
    } else if (res != CURLE_OK) {
        rec.flags |= GP_REC_FAILED;
        if (res == CURLE_OPERATION_TIMEDOUT) {
            rec.flags |= GP_REC_TIMEOUT;
            gp_buf_printf(&L->tmp, "request timed out after %.3g s (--request-timeout): %s", L->o->timeout_s,
                          s->errbuf[0] ? s->errbuf : curl_easy_strerror(res));
        } else {
            gp_buf_printf(&L->tmp, "%s: %s", curl_easy_strerror(res), s->errbuf[0] ? s->errbuf : "no detail");
        }
    } else if (!s->h1 && (enc = curl_encoding(s->easy)) != NULL) {
        /* as the HTTP/1.1 client says it (issue 40 item 5) */
        rec.flags |= GP_REC_FAILED;
        gp_buf_printf(&L->tmp, CL_ENCODING_FMT, enc, enc);
    } else if (status >= 400) {
        rec.flags |= GP_REC_FAILED;
        gp_buf_printf(&L->tmp, "OpenAI response returns HTTP code %ld: ", status);
        (void)gather(L, s, &L->tmp, 2048); /* the error body, as much of it as fits */
    } else if (status < 200 || status >= 300) {
        /* redirects are not followed (the body went to this URL only) */
        char *loc = NULL, *h1loc = NULL;
        if (s->h1)
            loc = h1loc = redirect_target(L, s);
        else
            curl_easy_getinfo(s->easy, CURLINFO_REDIRECT_URL, &loc);
        rec.flags |= GP_REC_FAILED;
        gp_buf_printf(&L->tmp, "OpenAI response returns HTTP code %ld: not a success (2xx)%s%.512s%s", status,
                      loc ? "; redirect to " : "", loc ? loc : "", loc ? " not followed (point --url at it)" : "");
        curl_free(h1loc);
    }
    long idx = gp_record_append_placed(L->st, &rec, chunks, nchunks, L->tmp.len ? L->tmp.data : NULL, L->tmp.len);
    if (idx < 0 || s->oom) {
        /* Out of memory: degrade per run, not per process. Stop sending
         * (what is in flight is cancelled), keep every record stored so far;
         * the caller writes them and marks the run incomplete. The request
         * that hit it is a failed record when the store could still take it. */
        (void)err;
        L->stats->incomplete = 1;
        L->stopping = L->hard_stop = 1;
        if (idx < 0) {
            L->stats->n_lost++;
            return 0;
        }
    }
    if (s->t_sched) {
        s->t_sched = 0;
        if (L->q && gp_csched_done(L->q, s->arrival, t_end, L->st, &L->st->recs[idx], err))
            return -GP_ENOMEM;
    }
    if (!s->warmup) {
        L->done_measured++;
        if (s->t_send && s->t_send >= s->t_start) {
            uint64_t lag = s->t_send - s->t_start;
            L->stats->n_send_stamped++;
            L->stats->send_lag_sum_ns += lag;
            if (lag > L->stats->send_lag_max_ns)
                L->stats->send_lag_max_ns = lag;
        }
        if (rec.flags & GP_REC_FAILED) {
            L->failed_measured++;
            L->stats->n_failed++;
            if (!(rec.flags & GP_REC_CANCEL_PLANNED)) /* asked for: not the error to show */
                gp_cl_note_first_error(L, status, L->tmp.data ? L->tmp.data : "", L->tmp.len);
        } else {
            L->stats->n_ok++;
        }
        /* the event count only feeds the progress line: no scan without one */
        if (streaming && L->o->progress)
            for (size_t i = 0; i < s->nchunks; i++)
                L->events_measured += gp_cl_count_events(gp_record_bytes(L->st, &s->chunks[i]), s->chunks[i].len);
        else if (!(rec.flags & GP_REC_FAILED))
            L->events_measured++;
    }
    return 0;
}

/* A reused keep-alive connection the server already closed fails before any
 * byte arrives; that is the client's pool, not the server (spec §0 rule 11). */
int gp_cl_is_stale_connection(struct slot *s, CURLcode res)
{
    if (s->retried || s->nbytes > 0)
        return 0;
    if (res != CURLE_GOT_NOTHING && res != CURLE_SEND_ERROR && res != CURLE_RECV_ERROR)
        return 0;
    long nconn = -1;
    if (s->h1)
        nconn = s->h1->reused ? 0 : 1;
    else
        curl_easy_getinfo(s->easy, CURLINFO_NUM_CONNECTS, &nconn);
    return nconn == 0;
}
