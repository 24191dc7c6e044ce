/* client/fuzz_h1.c — libFuzzer target for the h1 response parser
 * (client/h1.h): any bytes from a server, cut into reads at positions the
 * input itself chooses, must never read out of bounds, loop, hand over more
 * body than it was given, or give a different body than one unsplit read. */
#include "client/h1.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct acc {
    size_t len;
    uint64_t sum;
};

static int on_body(void *ud, const char *p, size_t n)
{
    struct acc *a = ud;
    for (size_t i = 0; i < n; i++)
        a->sum = a->sum * 31 + (unsigned char)p[i];
    a->len += n;
    return 0;
}

static struct gp_h1_resp R;

static int run(const char *p, size_t n, size_t step, struct acc *a)
{
    gp_h1_resp_init(&R);
    memset(a, 0, sizeof *a);
    int rc = GP_H1_MORE;
    size_t off = 0;
    while (off < n && rc == GP_H1_MORE) {
        size_t k = n - off < step ? n - off : step, used = 0;
        rc = gp_h1_feed(&R, p + off, k, &used, on_body, a);
        if (used > k)
            __builtin_trap();
        off += used;
    }
    if (rc == GP_H1_MORE)
        rc = gp_h1_eof(&R);
    if (a->len > n)
        __builtin_trap();
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t step = (size_t)data[0] % 17 + 1;
    const char *p = (const char *)data + 1;
    size_t n = size - 1;
    struct acc whole, split;
    int rc1 = run(p, n, n ? n : 1, &whole);
    int rc2 = run(p, n, step, &split);
    /* the same bytes in smaller reads: the same outcome and body (an
     * oversize line is the one thing a read boundary may decide) */
    if (rc1 == GP_H1_DONE && rc2 == GP_H1_DONE && (whole.len != split.len || whole.sum != split.sum))
        __builtin_trap();
    return 0;
}
