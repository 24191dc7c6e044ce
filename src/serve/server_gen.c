/* serve/server_gen.c — what `genperf serve` emits and when: the table of
 * emit-safe tokens (built once from the tokenizer) and per-request token
 * generation in the three timing modes (see server_internal.h). */
#include "serve/srv_gen.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/rng.h"
#include "tokenizer/tokenizer.h"

#include <stdlib.h>
#include <string.h>


#define TOKTAB_MAX 2048     /* plenty of variety; scanning a whole 200k vocab costs seconds */

/* 1 if the tokenizer decodes single tokens without their word-initial space
 * (SentencePiece's Metaspace/Strip decoders): "a b" -> [a][b] -> "a"+"b". */
static int sp_style(struct gp_tokenizer *tok)
{
    struct gp_ids ids = {0};
    struct gp_buf one = {0}, all = {0};
    int sp = 0;
    if (!gp_tokenizer_encode(tok, "a b", 3, 0, &ids, NULL) && ids.n >= 2) {
        for (size_t i = 0; i < ids.n; i++)
            gp_tokenizer_decode(tok, &ids.v[i], 1, 1, &one, NULL);
        gp_tokenizer_decode(tok, ids.v, ids.n, 1, &all, NULL);
        sp = all.len == 3 && !memcmp(all.data, "a b", 3) && !(one.len == 3 && !memcmp(one.data, "a b", 3));
    }
    gp_ids_free(&ids);
    gp_buf_free(&one);
    gp_buf_free(&all);
    return sp;
}

/* A token is safe to emit when its text is letters with a leading space
 * (GPT-style byte-level BPE) and it encodes back to exactly itself: then any
 * concatenation of safe tokens re-encodes to the same number of tokens (the
 * pre-tokenizer splits on the spaces), so the client's count equals our
 * usage. SentencePiece tokenizers decode "\u2581word" as "word"; there the
 * word must encode to the token alone (the normalizer re-adds the \u2581),
 * we emit " word", and a response's first token drops the space, as the real
 * detokenizer does. The builtin byte tokenizer: lowercase letters and space. */
int srv_toktab_build(struct gp_tokenizer *tok, struct toktab *t, struct gp_error *err)
{
    size_t vocab = gp_tokenizer_vocab_size(tok);
    int bytewise = vocab <= 256;
    int sp = !bytewise && sp_style(tok);
    t->strip_first = sp;
    struct gp_buf txt = {0};
    struct gp_ids ids = {0};
    size_t cap = 0;
    for (uint32_t id = 0; id < vocab && t->n < TOKTAB_MAX; id++) {
        if (gp_tokenizer_is_special(tok, id))
            continue;
        gp_buf_reset(&txt);
        if (sp)
            gp_buf_putc(&txt, ' ');
        size_t pre = txt.len;
        if (gp_tokenizer_decode(tok, &id, 1, 1, &txt, NULL) || txt.len == pre || txt.len > 16)
            continue;
        size_t i = 0;
        if (bytewise) {
            if (!(txt.len == 1 && (txt.data[0] == ' ' || (txt.data[0] >= 'a' && txt.data[0] <= 'z'))))
                continue;
        } else {
            if (txt.data[0] != ' ' || txt.len < 2)
                continue;
            for (i = 1; i < txt.len; i++)
                if (!((txt.data[i] >= 'a' && txt.data[i] <= 'z') || (txt.data[i] >= 'A' && txt.data[i] <= 'Z')))
                    break;
            if (i != txt.len)
                continue;
            ids.n = 0;
            /* SentencePiece: the bare word must be this token (prefix space re-added) */
            const char *w = sp ? txt.data + 1 : txt.data;
            size_t wl = sp ? txt.len - 1 : txt.len;
            if (gp_tokenizer_encode(tok, w, wl, 0, &ids, NULL) || ids.n != 1 || ids.v[0] != id)
                continue;
        }
        if (t->n == cap) {
            cap = cap ? cap * 2 : 256;
            uint32_t *o = realloc(t->off, cap * sizeof *o), *l = o ? realloc(t->len, cap * sizeof *l) : NULL;
            if (o)
                t->off = o;
            if (!o || !l) {
                gp_buf_free(&txt);
                gp_ids_free(&ids);
                return gp_err(err, GP_ENOMEM, "out of memory building the token table");
            }
            t->len = l;
        }
        size_t before = t->esc.len;
        if (gp_buf_json_str(&t->esc, txt.data, txt.len)) {
            gp_buf_free(&txt);
            gp_ids_free(&ids);
            return gp_err(err, GP_ENOMEM, "out of memory building the token table");
        }
        /* keep the escaped text without its quotes */
        t->off[t->n] = (uint32_t)before + 1;
        t->len[t->n] = (uint32_t)(t->esc.len - before - 2);
        t->n++;
    }
    gp_buf_free(&txt);
    gp_ids_free(&ids);
    if (!t->n)
        return gp_err(err, GP_EINVAL,
                      "tokenizer '%s' has no plain-word tokens (\" word\") to emit; use --tokenizer builtin",
                      gp_tokenizer_source(tok));
    return 0;
}

/* Re-encodes a seeded sample the way a client sees it (first token possibly
 * without its space) and returns the token count, so start-up can warn when
 * client counts would not equal usage. */
long srv_toktab_selfcheck(struct gp_tokenizer *tok, const struct toktab *t, uint32_t n)
{
    struct gp_buf txt = {0};
    uint64_t r = 12345;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (uint32_t)(gp_splitmix64(&r) % t->n);
        const char *e = t->esc.data + t->off[i];
        size_t l = t->len[i];
        if (k == 0 && t->strip_first && l && e[0] == ' ') {
            e++;
            l--;
        }
        gp_buf_append(&txt, e, l); /* letters and spaces need no unescaping */
    }
    long c = gp_tokenizer_count(tok, txt.data ? txt.data : "", txt.len);
    gp_buf_free(&txt);
    return c;
}

void srv_toktab_free(struct toktab *t)
{
    gp_buf_free(&t->esc);
    free(t->off);
    free(t->len);
}




/* Draws output token k from the request's stream: its JSON-escaped text. */
static const char *next_token(struct srv *s, struct sreq *r, uint32_t k, size_t *len)
{
    uint32_t ti = (uint32_t)(gp_splitmix64(&r->rng) % s->tt.n);
    const char *piece = r->json_mode ? srv_json_piece(r, k, len) : NULL;
    if (piece)
        return piece;
    const char *esc = s->tt.esc.data + s->tt.off[ti];
    size_t elen = s->tt.len[ti];
    if (k == 1 && s->tt.strip_first && elen && esc[0] == ' ') {
        esc++;
        elen--;
    }
    *len = elen;
    return esc;
}

/* Token timing: TTFT/ITL histograms and when the next token is due. */
static void note_token_time(struct srv *s, struct sreq *r, uint64_t now)
{
    if (!r->t_first_ns) {
        r->t_first_ns = now;
        srv_hist_obs(&s->h_ttft, (double)(now - r->t_request_ns) * 1e-9);
    } else {
        srv_hist_obs(&s->h_itl, (double)(now - r->t_last_ns) * 1e-9);
    }
    r->t_last_ns = now;
    /* keep the absolute schedule while lateness is mere wake-up jitter (so the
     * ITL median is the configured one); a token later than half an ITL
     * restarts the schedule from now, as after a slow engine step, instead of
     * being caught up with a burst of short gaps */
    uint64_t due = r->t_next_ns;
    r->t_next_ns = now > due + s->itl_ns / 2 ? now + s->itl_ns : due + s->itl_ns;
    r->t_ka_ref_ns = now;
}

/* Non-streamed: collects the token; the last one sends the whole body. */
static int emit_full(struct srv *s, struct conn *c, const char *esc, size_t elen, int reasoning, int last,
                     uint64_t now)
{
    struct sreq *r = &c->r;
    gp_buf_append(reasoning ? &r->rtext : &r->text, esc, elen);
    if (!last)
        return 0;
    struct gp_buf body = {0};
    if (r->endpoint == GP_EP_RESPONSES)
        gp_render_resp_full(&r->rd, &body, r->text.data, r->text.len, r->rtext.data, r->rtext.len, r->finish,
                            r->generated + r->miscount + r->json_extra, r->reasoning_n < r->generated ? r->reasoning_n : r->generated);
    else
        gp_render_full(&r->rd, &body, r->text.data, r->text.len, r->rtext.data, r->rtext.len, r->finish,
                       r->generated + r->miscount + r->json_extra, r->reasoning_n < r->generated ? r->reasoning_n : r->generated);
    if (r->fault == F_MALFORMED && body.len > 10)
        body.len -= 10; /* a torn body that still claims to be complete */
    r->status = 200;
    srv_send_simple(s, c, 200, "application/json", body.data, body.len);
    gp_buf_free(&body);
    srv_stamp(r, 'B');
    srv_metrics_done(s, r, now);
    r->state = R_DONE;
    srv_req_finish(s, c, "ok");
    return 1;
}

/* After the last content chunk: finish and usage chunks, [DONE], terminator. */
static int end_stream_ok(struct srv *s, struct conn *c, uint32_t k, uint64_t now)
{
    struct sreq *r = &c->r;
    if (r->endpoint == GP_EP_RESPONSES) {
        /* the items' .done events and response.completed with usage: its
         * stream has no [DONE] and always ends with usage */
        gp_render_resp_end(&r->rd, &s->scratch, r->text.data ? r->text.data : "", r->text.len,
                           r->rtext.data ? r->rtext.data : "", r->rtext.len, r->finish, k + r->miscount,
                           r->reasoning_n < k ? r->reasoning_n : k);
        srv_put_chunk(s, c);
        srv_stamp(r, 'D');
        srv_end_stream(s, c);
        srv_metrics_done(s, r, now);
        r->state = R_DONE;
        srv_req_finish(s, c, "ok");
        return 1;
    }
    if (gp_render_separate_finish(&r->rd)) {
        gp_render_finish(&r->rd, &s->scratch, r->finish, k);
        srv_put_chunk(s, c);
        srv_stamp(r, 'F');
    }
    if (r->endpoint == GP_EP_ANTHROPIC) {
        /* Anthropic always reports usage (message_delta); message_stop ends the stream */
        gp_render_anth_end(&r->rd, &s->scratch, r->finish, k + r->miscount + r->json_extra);
        srv_put_chunk(s, c);
        srv_stamp(r, 'U');
        gp_render_anth_stop(&s->scratch);
    } else if (r->include_usage) {
        gp_render_usage(&r->rd, &s->scratch, k + r->miscount + r->json_extra, r->reasoning_n < k ? r->reasoning_n : k);
        srv_put_chunk(s, c);
        srv_stamp(r, 'U');
    }
    if (r->endpoint != GP_EP_ANTHROPIC)
        gp_render_done(&s->scratch);
    srv_put_chunk(s, c);
    srv_stamp(r, 'D');
    srv_end_stream(s, c);
    srv_metrics_done(s, r, now);
    r->state = R_DONE;
    srv_req_finish(s, c, "ok");
    return 1;
}

/* Streamed: token k joins the pending chunk, which goes out when due. */
static int emit_chunk(struct srv *s, struct conn *c, const char *esc, size_t elen, int reasoning, int last,
                      uint64_t now)
{
    struct sreq *r = &c->r;
    uint32_t k = r->generated;
    srv_start_stream_headers(s, c);
    if (k == 1 && (r->endpoint == GP_EP_CHAT || r->endpoint == GP_EP_RESPONSES ||
                   r->endpoint == GP_EP_ANTHROPIC)) {
        if (r->endpoint != GP_EP_RESPONSES)
            gp_render_role(&r->rd, &s->scratch);
        else
            gp_render_resp_open(&r->rd, &s->scratch); /* response.created, .in_progress */
        srv_put_chunk(s, c);
        srv_stamp(r, 'R');
    }
    if (r->endpoint == GP_EP_RESPONSES) /* the .done events and the final response repeat it */
        gp_buf_append(reasoning ? &r->rtext : &r->text, esc, elen);
    /* --stream-interval: the first token goes out at once (TTFT), then one
     * chunk per N tokens, and never one chunk mixing reasoning and content */
    gp_buf_append(&r->pend, esc, elen);
    r->pend_n++;
    uint32_t lo = s->o->stream_interval, hi = s->o->stream_interval_max > lo ? s->o->stream_interval_max : lo;
    if (r->pend_n == 1) /* a new chunk: how many tokens it waits for (a draw only with a range) */
        r->pend_target = hi > lo ? lo + (uint32_t)(gp_splitmix64_double(&r->rng) * (double)(hi - lo + 1)) : lo;
    if (r->pend_target > hi)
        r->pend_target = hi;
    int malformed = r->fault == F_MALFORMED && !r->fault_done && k == r->fault_at;
    if (!last && !malformed && k > 1 && r->pend_n < r->pend_target && k != r->reasoning_n)
        return 0;
    if (malformed) {
        r->fault_done = 1;
        gp_render_malformed(&r->rd, &s->scratch);
        srv_put_chunk(s, c);
        srv_stamp(r, 'M');
    } else {
        if (r->endpoint == GP_EP_RESPONSES)
            gp_render_resp_delta(&r->rd, &s->scratch, r->pend.data, r->pend.len, reasoning,
                                 r->rtext.data ? r->rtext.data : "", r->rtext.len);
        else
            gp_render_token(&r->rd, &s->scratch, r->pend.data, r->pend.len, reasoning,
                            last ? r->finish : GP_FINISH_NONE, k);
        srv_put_chunk(s, c);
        srv_stamp(r, 'C');
        if (s->o->stream_interval_max > 1 && k > 1) { /* speculative mode only: else chunking */
            s->spec_drafts++;
            s->spec_draft_tokens += hi - 1;
            s->spec_accepted += r->pend_n - 1;
        }
    }
    gp_buf_reset(&r->pend);
    r->pend_n = 0;
    if (!last)
        return 0;
    return end_stream_ok(s, c, k, now);
}

/* Emits output token number r->generated + 1. Returns 1 when the request
 * has ended (completed, failed or the connection is going away). */
static int emit_token(struct srv *s, struct conn *c, uint64_t now)
{
    struct sreq *r = &c->r;
    uint32_t k = r->generated + 1;
    if (r->fault && !r->fault_done && k == r->fault_at) {
        int f = srv_fault_midstream(s, c, now);
        if (f >= 0)
            return f;
    }
    int reasoning = r->generated < r->reasoning_n;
    size_t elen;
    const char *esc = next_token(s, r, k, &elen);
    if (r->reply_head_len + elen < sizeof r->reply_head && !reasoning) {
        memcpy(r->reply_head + r->reply_head_len, esc, elen);
        r->reply_head_len += (uint32_t)elen;
        r->reply_head[r->reply_head_len] = '\0';
    }
    r->generated = k;
    int last = k >= r->out_tokens;
    note_token_time(s, r, now);
    if (!r->stream)
        return emit_full(s, c, esc, elen, reasoning, last, now);
    return emit_chunk(s, c, esc, elen, reasoning, last, now);
}

/* Fixed/zero-delay modes: emit every due token (bounded per pass), then arm
 * the next timer or join the ready list. */
void srv_pump(struct srv *s, struct conn *c)
{
    struct sreq *r = &c->r;
    if (c->closing || r->state != R_GEN)
        return;
    uint64_t now = gp_now_ns();
    int n = 0;
    while (r->state == R_GEN && !c->closing && r->t_next_ns <= now) {
        if (srv_queued(c) >= OUT_HIGH_WATER || n >= EMIT_BURST)
            break;
        uint32_t before = r->generated;
        if (emit_token(s, c, now))
            return;
        if (r->generated == before)
            return; /* stalled: the stall timer resumes us */
        n++;
    }
    if (r->state != R_GEN || c->closing)
        return;
    uint64_t next = r->t_next_ns;
    if (next <= now) {
        if (srv_queued(c) >= OUT_HIGH_WATER)
            c->waiting_drain = 1;
        else
            srv_mark_ready(s, c);
    } else {
        srv_arm_next(s, c);
    }
}

void srv_sim_emit(void *ctx, struct gp_sim_seq *q, int first, int last)
{
    struct srv *s = ctx;
    struct conn *c = (struct conn *)((char *)q - offsetof(struct conn, r) - offsetof(struct sreq, sq));
    (void)first;
    (void)last;
    if (c->closing || c->r.state != R_GEN)
        return;
    emit_token(s, c, gp_now_ns());
}

void srv_begin_generation(struct srv *s, struct conn *c)
{
    struct sreq *r = &c->r;
    uint64_t now = gp_now_ns();
    r->state = R_GEN;
    r->active = 1;
    r->t_base_ns = now;
    r->t_next_ns = now + s->ttft_ns + (r->lora ? s->lora_ttft_ns : 0);
    if (r->cached_tokens && r->prompt_tokens)
        /* fixed delays read --ttft-ms as the prefill of the whole prompt:
         * a prefix-cache hit leaves only the uncached share of it */
        r->t_next_ns = now + (uint64_t)((double)s->ttft_ns * (double)(r->prompt_tokens - r->cached_tokens) /
                                        (double)r->prompt_tokens) +
                      (r->lora ? s->lora_ttft_ns : 0);
    r->t_ka_ref_ns = now;
    if (s->o->flavor != GP_FLAVOR_SGLANG)
        srv_start_stream_headers(s, c); /* Starlette sends the headers before the first body chunk */
    if (s->mode == MODE_BATCH) {
        r->sq.prompt_tokens = r->prompt_tokens;
        r->sq.cached = r->cached_tokens;
        r->sq.out_tokens = r->out_tokens;
        gp_sim_add(&s->sim, &r->sq, now);
    } else {
        s->running_fixed++;
        srv_pump(s, c);
    }
}
