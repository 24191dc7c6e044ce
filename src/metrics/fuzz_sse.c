/* metrics/fuzz_sse.c — libFuzzer target: arbitrary bytes, split into reads at
 * data-driven points, through the SSE framer and the event scanner, and as a
 * whole record through gp_metrics_compute. Each event is also parsed with the
 * event template kept across the input's events, and must give the same info
 * and text as the plain parse (a trap otherwise). Build: make fuzz (clang). */
#include "client/record.h"
#include "core/buf.h"
#include "metrics/metrics.h"
#include "metrics/sse.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fctx {
    struct gp_buf content, reasoning, err;
    struct gp_buf tc, tr, te; /* the same, parsed with the template */
    struct gp_event_tmpl t;
};

static int same(const struct gp_buf *a, const struct gp_buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static int on_ev(void *vctx, const char *d, size_t n, const char *type)
{
    struct fctx *c = vctx;
    struct gp_event_info in, it;
    (void)type;
    gp_event_parse(d, n, &c->content, &c->reasoning, &c->err, &in);
    gp_event_parse_tmpl(d, n, &c->tc, &c->tr, &c->te, &c->t, &it);
    if (in.kind != it.kind || in.content_len != it.content_len || in.reasoning_len != it.reasoning_len ||
        in.has_usage != it.has_usage || in.prompt_tokens != it.prompt_tokens ||
        in.completion_tokens != it.completion_tokens || in.has_finish != it.has_finish ||
        in.n_choices != it.n_choices || in.error_code != it.error_code || !same(&c->content, &c->tc) ||
        !same(&c->reasoning, &c->tr) || !same(&c->err, &c->te))
        __builtin_trap();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* first byte: read size (1..256) */
    size_t step = (size_t)data[0] + 1;
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    struct gp_sse s;
    struct fctx c;
    memset(&c, 0, sizeof c);
    gp_sse_init(&s);
    for (size_t i = 0; i < n; i += step)
        gp_sse_feed(&s, p + i, n - i < step ? n - i : step, on_ev, &c);
    gp_sse_finish(&s, on_ev, &c);
    gp_sse_free(&s);
    struct gp_event_info in;
    gp_event_parse(p, n, &c.content, &c.reasoning, &c.err, &in);

    struct gp_record_store st;
    gp_record_store_init(&st);
    struct gp_chunk ch[64];
    size_t nc = 0;
    for (size_t i = 0; i < n && nc < 64; i += step, nc++) {
        ch[nc].t_ns = 1000 + i;
        ch[nc].off = i;
        ch[nc].len = (uint32_t)(n - i < step ? n - i : step);
    }
    struct gp_record r = {0};
    r.t_start_ns = 1000;
    r.t_end_ns = 1000 + n + 1;
    r.http_status = 200;
    r.flags = (data[0] & 1) ? GP_REC_STREAMING : 0;
    gp_record_append(&st, &r, ch, nc, p, n, NULL, 0);
    struct gp_metrics_result m;
    if (gp_metrics_compute(&st, NULL, NULL, NULL, &m, NULL) == 0)
        gp_metrics_result_free(&m);
    gp_record_store_free(&st);
    gp_buf_free(&c.content);
    gp_buf_free(&c.reasoning);
    gp_buf_free(&c.err);
    gp_buf_free(&c.tc);
    gp_buf_free(&c.tr);
    gp_buf_free(&c.te);
    gp_event_tmpl_free(&c.t);
    return 0;
}
