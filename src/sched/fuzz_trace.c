/* Fuzz target: arbitrary bytes as a payload:/Mooncake trace (build: make fuzz-sched).
 * The first byte picks the options, so every reader path is reachable. */
#include "core/error.h"
#include "sched/sched.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gp_trace_opts o;
    memset(&o, 0, sizeof o);
    uint8_t f = size ? data[0] : 0;
    o.require_timestamp = f & 1;
    o.auto_offset = (f >> 1) & 1;
    o.delay_kind = (f >> 2) & 1 ? GP_TRACE_DELAY_BEFORE : GP_TRACE_DELAY_AFTER;
    o.speedup = (f >> 3) & 1 ? 3.5 : 0;
    o.delay_ratio = (f >> 4) & 1 ? 0.25 : 0;
    struct gp_trace *t = NULL;
    struct gp_error err;
    if (gp_trace_parse("fuzz", (const char *)data, size, &o, &t, &err) == 0) {
        /* walk every session chain: links must stay in range and end */
        for (size_t s = 0; s < t->nsessions; s++) {
            int32_t k = t->session_first[s];
            size_t steps = 0;
            while (k >= 0 && steps++ <= t->n) {
                if ((size_t)k >= t->n)
                    __builtin_trap();
                k = t->rows[k].next;
            }
        }
        for (size_t i = 0; i < t->n; i++)
            if (t->rows[i].hash_off + t->rows[i].nhash > t->nhash || t->rows[i].delay_ns < 0)
                __builtin_trap();
        gp_trace_free(t);
    }
    return 0;
}
