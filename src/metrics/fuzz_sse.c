/* metrics/fuzz_sse.c — libFuzzer target: arbitrary bytes, split into reads at
 * data-driven points, through the SSE framer and the event scanner, and as a
 * whole record through gp_metrics_compute (the reads and the record as
 * fuzz_wire.inc makes them). Each event is also parsed with the
 * event template kept across the input's events, and must give the same info
 * and text as the plain parse (a trap otherwise). Build: make fuzz (clang). */
#include "metrics/fuzz_wire.inc"

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
    struct fctx c;
    memset(&c, 0, sizeof c);
    fuzz_wire_feed(data, size, on_ev, &c);
    struct gp_event_info in;
    gp_event_parse((const char *)data + 1, size - 1, &c.content, &c.reasoning, &c.err, &in);
    fuzz_wire_record(data, size, NULL);
    gp_buf_free(&c.content);
    gp_buf_free(&c.reasoning);
    gp_buf_free(&c.err);
    gp_buf_free(&c.tc);
    gp_buf_free(&c.tr);
    gp_buf_free(&c.te);
    gp_event_tmpl_free(&c.t);
    return 0;
}
