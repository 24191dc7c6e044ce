/* metrics/fuzz_responses.c — libFuzzer target for the Responses API parser
 * (responses.c): arbitrary bytes through the SSE framer and
 * gp_responses_event_parse, as one body, and as a whole record through
 * gp_metrics_compute with responses_api set (fuzz_wire.inc says how and what
 * traps). Build: make fuzz. */
#include "metrics/fuzz_wire.inc"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gp_metrics_opts o = {.inter_chunk = 1, .responses_api = 1};
    return fuzz_wire_run(data, size, gp_responses_event_parse, &o);
}
