/* metrics/fuzz_anthropic.c — libFuzzer target for the Anthropic Messages API
 * parser (anthropic.c): arbitrary bytes, split into reads at
 * data-driven points, through the SSE framer and gp_event_parse_anthropic,
 * and as a whole record through gp_metrics_compute with anthropic set. Each event must append
 * exactly the bytes it reports (content_len, reasoning_len), and nothing
 * when it is malformed or an error (a trap otherwise). Build: make fuzz. */
#include "client/record.h"
#include "core/buf.h"
#include "metrics/metrics.h"
#include "metrics/sse.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fctx {
    struct gp_buf content, reasoning, err;
};

static int on_ev(void *vctx, const char *d, size_t n, const char *type)
{
    struct fctx *c = vctx;
    struct gp_event_info in;
    (void)type;
    size_t c0 = c->content.len, r0 = c->reasoning.len;
    gp_event_parse_anthropic(d, n, &c->content, &c->reasoning, &c->err, &in);
    if (c->content.len - c0 != in.content_len || c->reasoning.len - r0 != in.reasoning_len)
        __builtin_trap();
    if ((in.kind == GP_EV_BAD || in.kind == GP_EV_ERROR) && (in.content_len || in.reasoning_len))
        __builtin_trap();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t step = (size_t)data[0] + 1; /* first byte: read size (1..256) */
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
    on_ev(&c, p, n, ""); /* the whole input as one non-streamed body */

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
    struct gp_metrics_opts o = {.inter_chunk = 1, .anthropic = 1};
    struct gp_metrics_result m;
    if (gp_metrics_compute(&st, NULL, NULL, &o, &m, NULL) == 0)
        gp_metrics_result_free(&m);
    gp_record_store_free(&st);
    gp_buf_free(&c.content);
    gp_buf_free(&c.reasoning);
    gp_buf_free(&c.err);
    return 0;
}
