/* Fuzz target: the Prometheus parser and the name mapping on arbitrary bytes
 * (build with `make fuzz-telemetry`, clang only). */
#include "telemetry/prom.h"

#include <stddef.h>
#include <stdint.h>

static int sink(void *ctx, const char *name, size_t nlen, const char *labels, size_t llen, double v)
{
    char out[32];
    (void)ctx; (void)name; (void)nlen; (void)v;
    gp_prom_label(labels, llen, "gpu", out, sizeof out);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gp_prom_scan sc;
    gp_prom_parse((const char *)data, size, sink, NULL);
    gp_prom_scan((const char *)data, size, &sc);
    return 0;
}
