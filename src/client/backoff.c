/* client/backoff.c — reconnect back-off (see backoff.h). */
#include "client/backoff.h"

#include <curl/curl.h>

int gp_backoff_is_connection_failure(int curl_code)
{
    switch ((CURLcode)curl_code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
        return 1;
    default:
        return 0;
    }
}

uint64_t gp_backoff_next(struct gp_backoff *b, struct gp_rng *rng, uint64_t base_ns, uint64_t max_ns)
{
    if (!base_ns)
        base_ns = GP_BACKOFF_BASE_NS;
    if (!max_ns)
        max_ns = GP_BACKOFF_MAX_NS;
    if (base_ns > max_ns)
        base_ns = max_ns;
    uint64_t d = base_ns;
    /* doubling stops at max: no shift can overflow, the level stays small */
    for (unsigned i = 0; i < b->level && d < max_ns; i++)
        d = d > max_ns / 2 ? max_ns : d * 2;
    if (d >= max_ns)
        d = max_ns;
    else
        b->level++;
    uint64_t half = d / 2;
    return half + gp_rng_below(rng, d - half + 1);
}
