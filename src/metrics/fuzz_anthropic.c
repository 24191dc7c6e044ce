/* metrics/fuzz_anthropic.c — libFuzzer target for the Anthropic Messages API
 * parser (anthropic.c): arbitrary bytes through the SSE framer and
 * gp_event_parse_anthropic, as one body, and as a whole record through
 * gp_metrics_compute with anthropic set (fuzz_wire.inc says how and what
 * traps). Build: make fuzz. */
#include "metrics/fuzz_wire.inc"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gp_metrics_opts o = {.inter_chunk = 1, .anthropic = 1};
    return fuzz_wire_run(data, size, gp_event_parse_anthropic, &o);
}
