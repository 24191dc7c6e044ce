/* serve/fuzz_http.c — libFuzzer target for the HTTP request parser: any
 * bytes, parsed the way the server does (repeatedly, consuming complete
 * requests, pipelined), must never read out of bounds or loop. Build with
 * `make fuzz-serve`; run build/fuzz/serve_http [corpus]. */
#include "core/buf.h"
#include "serve/http.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gp_buf body = {0};
    struct gp_http_req r;
    const char *p = (const char *)data;
    size_t left = size;
    /* also every prefix of the first request, as reads split it */
    for (size_t i = 0; i < size && i < 256; i++)
        gp_http_parse(p, i, 4096, &r, &body);
    while (left) {
        long n = gp_http_parse(p, left, 4096, &r, &body);
        if (n <= 0)
            break;
        if ((size_t)n > left)
            __builtin_trap();
        if (r.body_len && r.body == NULL)
            __builtin_trap();
        if (r.path_len) {
            volatile char c = r.path[r.path_len - 1];
            (void)c;
        }
        p += n;
        left -= (size_t)n;
    }
    gp_buf_free(&body);
    return 0;
}
