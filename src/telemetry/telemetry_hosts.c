/* telemetry/telemetry_hosts.c — a sampler's state as bytes, so another
 * host's telemetry can travel to rank 0 under mpirun (see telemetry.h,
 * "Several hosts"). The same binary runs on every rank, so fixed-size
 * structs travel as they are; every length is checked on the way in.
 *
 * Header: struct wire_hdr, nev x struct tm_event, the summary JSON text.
 * Samples: n x struct gp_telemetry_sample (padding zeroed). */
#include "telemetry/telemetry.h"
#include "telemetry/telemetry_int.h"

#include "core/buf.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

#define WIRE_MAGIC 0x544c4d48u /* "HMLT" */

struct wire_hdr {
    uint32_t magic;
    uint32_t nev;
    double interval_s;
    uint64_t mono0, wall0, t_first, t_last;
    uint32_t ticks;
    uint32_t summary_len;
};

static uint64_t shift(uint64_t t, int64_t off)
{
    return (uint64_t)((int64_t)t + off);
}

int gp_telemetry_pack_header(const struct gp_telemetry *t, int64_t offset_ns, struct gp_buf *b)
{
    json_t *sum = gp_telemetry_summary_json(t);
    char *text = sum ? json_dumps(sum, JSON_COMPACT) : NULL;
    json_decref(sum);
    if (!text)
        return -1;
    struct wire_hdr h;
    memset(&h, 0, sizeof h);
    h.magic = WIRE_MAGIC;
    h.nev = (uint32_t)t->nev;
    h.interval_s = t->interval_s;
    /* mono0 moves with the samples, so wall = wall0 + (t - mono0) still holds */
    h.mono0 = shift(t->mono0, offset_ns);
    h.wall0 = t->wall0;
    h.t_first = shift(t->t_first, offset_ns);
    h.t_last = shift(t->t_last, offset_ns);
    h.ticks = t->ticks;
    h.summary_len = (uint32_t)strlen(text);
    int bad = gp_buf_append(b, &h, sizeof h);
    for (int i = 0; i < t->nev && !bad; i++) {
        struct tm_event e = t->ev[i];
        e.t_ns = shift(e.t_ns, offset_ns);
        bad = gp_buf_append(b, &e, sizeof e);
    }
    if (!bad)
        bad = gp_buf_append(b, text, h.summary_len);
    free(text);
    return bad ? -1 : 0;
}

long gp_telemetry_pack_samples(const struct gp_telemetry *t, size_t from, size_t n, int64_t offset_ns,
                               struct gp_buf *b)
{
    if (from >= t->n)
        return 0;
    if (n > t->n - from)
        n = t->n - from;
    for (size_t i = from; i < from + n; i++) {
        struct gp_telemetry_sample s;
        memset(&s, 0, sizeof s); /* no stack garbage on the wire */
        s.t_ns = shift(t->s[i].t_ns, offset_ns);
        s.value = t->s[i].value;
        s.device_kind = t->s[i].device_kind;
        s.device_index = t->s[i].device_index;
        s.metric = t->s[i].metric;
        if (gp_buf_append(b, &s, sizeof s))
            return -1;
    }
    return (long)n;
}

int gp_telemetry_unpack_header(const void *p, size_t n, struct gp_telemetry **out, struct gp_error *err)
{
    *out = NULL;
    struct wire_hdr h;
    if (n < sizeof h)
        return gp_err(err, GP_EIO, "malformed telemetry header (%zu bytes)", n);
    memcpy(&h, p, sizeof h);
    if (h.magic != WIRE_MAGIC || h.nev > TM_MAX_EVENTS ||
        n != sizeof h + (size_t)h.nev * sizeof(struct tm_event) + h.summary_len)
        return gp_err(err, GP_EIO, "malformed telemetry header (%zu bytes, %u events)", n, h.nev);
    struct gp_telemetry *t = calloc(1, sizeof *t);
    if (!t)
        return gp_err(err, GP_ENOMEM, "out of memory for another host's telemetry");
    t->interval_s = h.interval_s;
    t->mono0 = h.mono0;
    t->wall0 = h.wall0;
    t->t_first = h.t_first;
    t->t_last = h.t_last;
    t->ticks = h.ticks;
    t->primary = t->dcgm_src = -1;
    const char *q = (const char *)p + sizeof h;
    for (uint32_t i = 0; i < h.nev; i++, q += sizeof(struct tm_event)) {
        memcpy(&t->ev[i], q, sizeof t->ev[i]);
        t->ev[i].device[sizeof t->ev[i].device - 1] = '\0';
        t->ev[i].reason[sizeof t->ev[i].reason - 1] = '\0';
    }
    t->nev = (int)h.nev;
    t->remote_summary = json_loadb(q, h.summary_len, 0, NULL);
    if (!json_is_object(t->remote_summary)) {
        gp_telemetry_free(t);
        return gp_err(err, GP_EIO, "malformed telemetry header (summary is not a JSON object)");
    }
    *out = t;
    return 0;
}

int gp_telemetry_unpack_samples(struct gp_telemetry *t, const void *p, size_t n, struct gp_error *err)
{
    size_t k = n / sizeof(struct gp_telemetry_sample);
    if (n % sizeof(struct gp_telemetry_sample))
        return gp_err(err, GP_EIO, "malformed telemetry samples (%zu bytes)", n);
    if (t->n + k > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->n + k)
            cap *= 2;
        void *np = realloc(t->s, cap * sizeof *t->s);
        if (!np)
            return gp_err(err, GP_ENOMEM, "out of memory for another host's %zu telemetry samples", t->n + k);
        t->s = np;
        t->cap = cap;
    }
    memcpy(t->s + t->n, p, n);
    for (size_t i = t->n; i < t->n + k; i++)
        if (t->s[i].metric >= GP_TM__COUNT || t->s[i].device_kind > GP_TD_SERVER)
            return gp_err(err, GP_EIO, "malformed telemetry sample (metric %u, device kind %u)",
                          (unsigned)t->s[i].metric, (unsigned)t->s[i].device_kind);
    t->n += k;
    return 0;
}
