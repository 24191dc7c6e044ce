/* client/client_body.c — the bottom of the client's transport layer: a
 * transfer's received bytes into the record store. Both transports write
 * here (libcurl's write callback in client.c, the h1 transport's put_body in
 * client_h1.c), so the response cap, the stamp order and the store's
 * placement are checked in one place. Calls nothing else in client/.
 */
#include "client/cl_transport.h"

#include <assert.h>
#include <stdlib.h>

int gp_cl_slot_put(struct slot *s, const char *p, size_t n, uint64_t t)
{
    uint64_t cap = s->L->o->max_response_bytes;
    if (cap && s->nbytes + n > cap) {
        s->too_big = 1; /* failing only this transfer */
        return -1;
    }
    if (s->nchunks == s->chunks_cap) {
        size_t nc = s->chunks_cap ? s->chunks_cap * 2 : 64;
        struct gp_chunk *c = realloc(s->chunks, nc * sizeof *c);
        if (!c) {
            s->oom = 1;
            return -1;
        }
        s->chunks = c;
        s->chunks_cap = nc;
    }
    /* a transfer's stamps never go back (client_int.h: h1's t_last; libcurl's
     * are read on one thread from a monotonic clock): TTFT and ITL rely on it */
    assert(!s->nchunks || t >= s->chunks[s->nchunks - 1].t_ns);
    /* straight into the record store: one copy per read, no staging */
    struct gp_chunk *c = &s->chunks[s->nchunks];
    c->t_ns = t;
    c->len = (uint32_t)n;
    if (gp_record_put_bytes(s->L->st, p, n, &c->off)) {
        s->oom = 1;
        return -1;
    }
    s->nchunks++;
    s->nbytes += n;
    return 0;
}
