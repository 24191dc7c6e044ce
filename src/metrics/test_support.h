/* metrics/test_support.h — helpers shared by the metrics unit tests (header
 * only, included by test_*.c; not part of the library). */
#ifndef GP_METRICS_TEST_SUPPORT_H
#define GP_METRICS_TEST_SUPPORT_H

#include "client/record.h"
#include "core/buf.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

/* An empty store whose run starts at monotonic 1000 ns (the tests' requests
 * start after it) and at a fixed wall-clock time. */
static inline void ts_store_init(struct gp_record_store *st)
{
    gp_record_store_init(st);
    st->mono0_ns = 1000;
    st->wall0_ns = 1700000000000000000ull;
}

/* Appends to st a request started at t0 whose response is the n reads
 * (NUL-terminated strings) at times t0 + dt[i], ended 1 ns after the last
 * one; errtext (may be NULL) is the transport's error. At most 32 reads. */
static inline void ts_add_req(struct gp_record_store *st, uint64_t t0, int status, uint32_t flags,
                              const char *const *reads, const uint64_t *dt, size_t n, const char *errtext)
{
    struct gp_chunk ch[32];
    struct gp_buf b = {0};
    assert(n <= 32);
    for (size_t i = 0; i < n; i++) {
        ch[i].t_ns = t0 + dt[i];
        ch[i].off = b.len;
        ch[i].len = (uint32_t)strlen(reads[i]);
        gp_buf_puts(&b, reads[i]);
    }
    struct gp_record r = {0};
    r.t_start_ns = t0;
    r.t_end_ns = t0 + (n ? dt[n - 1] : 0) + 1;
    r.http_status = status;
    r.flags = flags;
    gp_record_append(st, &r, ch, n, b.data, b.len, errtext, errtext ? strlen(errtext) : 0);
    gp_buf_free(&b);
}

#endif
