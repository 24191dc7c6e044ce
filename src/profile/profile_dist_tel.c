/* profile/profile_dist_tel.c — telemetry of every host under mpirun: which
 * rank samples (the lowest on each host), and each sampler's series on its
 * way to rank 0 (see profile_dist.h, "per-host telemetry").
 *
 * Wire (dist's gather records, same binary everywhere):
 *   u32 KIND_HDR  + gp_telemetry_pack_header bytes   (first, once per host)
 *   u32 KIND_SMP  + up to SAMPLES_PER_REC packed samples (then, in order)
 * Times are already on rank 0's clock when they leave the sampler. */
#include "profile/profile_dist.h"

#include "core/buf.h"
#include "core/error.h"
#include "dist/dist.h"
#include "telemetry/telemetry.h"

#include <stdlib.h>
#include <string.h>

enum { KIND_HDR = 0x54484452u, KIND_SMP = 0x54534d50u };
#define SAMPLES_PER_REC 4096 /* ~96 KiB a record: many per 4 MiB chunk */

/* Lowest rank whose hostname is rank r's. */
static int first_on_host(struct gp_dist *d, int r)
{
    const char *h = gp_dist_hostname(d, r);
    for (int i = 0; i < r; i++)
        if (!strcmp(gp_dist_hostname(d, i), h))
            return i;
    return r;
}

int gp_profile_dist_samples_telemetry(const struct gp_profile_dist *pd)
{
    struct gp_dist *d = gp_profile_dist_job((struct gp_profile_dist *)pd);
    return !d || first_on_host(d, gp_dist_rank(d)) == gp_dist_rank(d);
}

int gp_profile_dist_host_count(const struct gp_profile_dist *pd)
{
    struct gp_dist *d = gp_profile_dist_job((struct gp_profile_dist *)pd);
    int n = 0;
    for (int r = 0; d && r < gp_dist_size(d); r++)
        n += first_on_host(d, r) == r;
    return n ? n : 1;
}

struct tel_send {
    const struct gp_telemetry *t;
    int64_t off;
    int hdr_sent;
    size_t next;
    struct gp_buf b;
};

/* gp_dist_next_fn on samplers other than rank 0 */
static int next_tel(void *ctx, const void **rec, size_t *len, struct gp_error *err)
{
    struct tel_send *s = ctx;
    if (!s->t)
        return 0;
    gp_buf_reset(&s->b);
    uint32_t kind = s->hdr_sent ? KIND_SMP : KIND_HDR;
    if (gp_buf_append(&s->b, &kind, sizeof kind))
        return gp_err(err, GP_ENOMEM, "out of memory packing telemetry for rank 0");
    if (!s->hdr_sent) {
        if (gp_telemetry_pack_header(s->t, s->off, &s->b))
            return gp_err(err, GP_ENOMEM, "out of memory packing telemetry for rank 0");
        s->hdr_sent = 1;
    } else {
        long k = gp_telemetry_pack_samples(s->t, s->next, SAMPLES_PER_REC, s->off, &s->b);
        if (k < 0)
            return gp_err(err, GP_ENOMEM, "out of memory packing telemetry for rank 0");
        if (k == 0)
            return 0;
        s->next += (size_t)k;
    }
    *rec = s->b.data;
    *len = s->b.len;
    return 1;
}

struct tel_recv {
    struct gp_profile_dist *pd;
    struct gp_profile_tel_hosts *h;
    int cap; /* entries allocated: one per host */
};

/* gp_dist_chunk_fn on rank 0: a header opens the host's entry, samples
 * go into the entry of the same rank. */
static int on_tel_chunk(void *ctx, int src, const void *chunk, size_t len, struct gp_error *err)
{
    struct tel_recv *r = ctx;
    struct gp_profile_tel_hosts *h = r->h;
    size_t pos = 0, n = 0;
    uint32_t kind = 0;
    const char *p;
    int more;
    while ((more = gp_dist_chunk_next_kind(chunk, len, &pos, &kind, &p, &n)) == 1) {
        if (kind == KIND_HDR) {
            struct gp_telemetry *t = NULL;
            if (h->n >= r->cap)
                return gp_err(err, GP_EIO, "telemetry from more hosts than ranks span (rank %d)", src);
            int rc = gp_telemetry_unpack_header(p, n, &t, err);
            if (rc)
                return rc;
            h->tel[h->n] = t;
            h->host[h->n] = gp_dist_hostname(gp_profile_dist_job(r->pd), src);
            h->rank[h->n++] = src;
        } else if (kind == KIND_SMP && h->n > 1 && h->rank[h->n - 1] == src) {
            int rc = gp_telemetry_unpack_samples(h->tel[h->n - 1], p, n, err);
            if (rc)
                return rc;
        } else {
            return gp_err(err, GP_EIO, "malformed telemetry from rank %d (kind)", src);
        }
    }
    return more < 0 ? gp_err(err, GP_EIO, "malformed telemetry chunk from rank %d", src) : 0;
}

int gp_profile_dist_gather_telemetry(struct gp_profile_dist *pd, struct gp_telemetry *mine,
                                     struct gp_profile_tel_hosts *out, struct gp_error *err)
{
    memset(out, 0, sizeof *out);
    int hosts = gp_profile_dist_host_count(pd);
    if (hosts < 2)
        return 0;
    struct gp_dist *d = gp_profile_dist_job(pd);
    int rank = gp_dist_rank(d);
    struct gp_error local = {0};
    if (rank == 0 && (!(out->tel = calloc((size_t)hosts, sizeof *out->tel)) ||
                      !(out->host = calloc((size_t)hosts, sizeof *out->host)) ||
                      !(out->rank = calloc((size_t)hosts, sizeof *out->rank))))
        gp_err(&local, GP_ENOMEM, "out of memory for %d hosts' telemetry", hosts);
    int rc = gp_dist_check(d, &local, err);
    if (rc) {
        gp_profile_tel_hosts_free(out);
        return rc;
    }
    if (rank == 0) {
        /* rank 0's own sampler opens the table; NULL telemetry there means none at all */
        out->tel[0] = mine;
        out->host[0] = gp_dist_hostname(d, 0);
        out->n = 1;
    }
    struct tel_send s = {rank && gp_profile_dist_samples_telemetry(pd) ? mine : NULL,
                         gp_profile_dist_offset_ns(pd), 0, 0, {0}};
    struct tel_recv rv = {pd, out, hosts};
    rc = gp_dist_gather(d, GP_PROFILE_DIST_CHUNK, rank ? next_tel : NULL, &s, rank ? NULL : on_tel_chunk, &rv, err);
    gp_buf_free(&s.b);
    if (rc || (rank == 0 && !mine))
        gp_profile_tel_hosts_free(out);
    return rc;
}

void gp_profile_tel_hosts_free(struct gp_profile_tel_hosts *h)
{
    for (int i = 1; h->tel && i < h->n; i++)
        gp_telemetry_free(h->tel[i]);
    free(h->tel);
    free(h->host);
    free(h->rank);
    memset(h, 0, sizeof *h);
}
