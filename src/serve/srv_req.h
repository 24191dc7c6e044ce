/* serve/srv_req.h — the request layer of `genperf serve` (private to
 * src/serve/server*.c), above the generation layer (serve/srv_gen.h):
 *   server_route.c    cutting c->in into requests, routing each, and the
 *                     small endpoints (health, models, version)
 *   server_request.c  parsing and validating a generate request
 *   server_pool.c     embeddings and rankings
 *   server_pcache.c   the prefix cache of --prefix-cache
 *
 * Owns: the prefix cache s->pcache (srv_pcache_free frees it); a request's
 * parsed body lives only while its handler runs.
 *
 * May call: every layer below. Within the layer server_route.c calls
 * server_request.c and server_pool.c; server_pool.c calls server_request.c;
 * server_request.c calls server_pcache.c. Only the loop (server.c) calls in. */
#ifndef GP_SERVE_SRV_REQ_H
#define GP_SERVE_SRV_REQ_H

#include "serve/srv_gen.h"

struct gp_http_req;
struct json_t;

/* ---- server_route.c -------------------------------------------------------- */

/* Serves every complete request in the input buffer, one at a time. */
void srv_process_input(struct srv *s, struct conn *c);

/* ---- server_request.c ------------------------------------------------------ */

void srv_handle_generate(struct srv *s, struct conn *c, const struct gp_http_req *hr, int endpoint);
/* A request begins: sequence number, seeded stream, status 400 until answered. */
void srv_req_start(struct srv *s, struct sreq *r, int endpoint);
/* The body as a JSON object (new reference); NULL once answered 400. */
struct json_t *srv_parse_body(struct srv *s, struct conn *c, const struct gp_http_req *hr);

/* ---- server_pool.c --------------------------------------------------------- */

/* POST /v1/embeddings (endpoint GP_EP_EMBEDDINGS) or /v1/ranking, /rerank
 * (GP_EP_RANKING): answered at once with one JSON document. */
void srv_handle_pool(struct srv *s, struct conn *c, const struct gp_http_req *hr, int endpoint);

/* ---- server_pcache.c ------------------------------------------------------- */

/* Cached tokens of the prompt ids[0..n) (whole leading blocks seen before,
 * at most n - 1), then remembers its blocks; counts queries and hits. */
uint32_t srv_pcache_lookup(struct srv_pcache *pc, const uint32_t *ids, size_t n);
void srv_pcache_free(struct srv_pcache *pc);

#endif
