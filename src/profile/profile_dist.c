/* profile/profile_dist.c — `genperf profile` as K MPI ranks: the setup
 * broadcast, the load split, the records' way back to rank 0 and the
 * scale_out block. See profile_dist.h for the sequence and ownership.
 *
 * Wire formats (same binary on every rank: structs travel as bytes):
 *   setup blob   items of (u64 length, bytes): status, workers, argc, argv...,
 *                n_headers, headers..., n_bodies, bodies..., has_plan, and with
 *                a plan: n, nstarts, nsessions, session_concurrency, the jobs
 *                and the starts arrays
 *   start        one i64: the measured phase's start on rank 0's clock
 *                (every mode; an open loop's schedule origin)
 *   the gather   per rank > 0, four parts (gp_dist_gather_bulk): the stats
 *                (i32 workers, the rank's summed gp_client_stats, then one
 *                per worker, start/end on rank 0's clock), the store's byte
 *                arena, its struct gp_record array (times on rank 0's clock;
 *                worker is already the job's loop index rank x W + w) and its
 *                struct gp_chunk array (t_ns on rank 0's clock), and an
 *                inline struct gp_record_shm (empty when the arena is not a
 *                whole memfd): a rank 0 on the same host maps the bytes from
 *                it and takes that part (nothing travels for it); rank 0
 *                rebases the offsets (gp_record_store_commit_tail)
 */
#include "profile/profile_dist.h"
#include "profile/profile_dist_int.h"

#include "client/client.h"
#include "client/record.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/error.h"
#include "dist/dist.h"
#include "metrics/metrics.h"
#include "profile/profile_config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- the setup blob ---- */

static int put_item(struct gp_buf *b, const void *p, size_t n)
{
    uint64_t len = n;
    return gp_buf_append(b, &len, sizeof len) || gp_buf_append(b, p, n) ? -1 : 0;
}

static int put_num(struct gp_buf *b, int64_t v)
{
    return put_item(b, &v, sizeof v);
}

struct reader {
    const char *p;
    size_t len, pos;
    int bad;
};

static const char *get_item(struct reader *r, size_t *n)
{
    uint64_t len = 0;
    if (r->bad || r->len - r->pos < sizeof len) {
        r->bad = 1;
        return NULL;
    }
    memcpy(&len, r->p + r->pos, sizeof len);
    r->pos += sizeof len;
    if (len > r->len - r->pos) {
        r->bad = 1;
        return NULL;
    }
    const char *s = r->p + r->pos;
    r->pos += (size_t)len;
    *n = (size_t)len;
    return s;
}

static int64_t get_num(struct reader *r)
{
    size_t n = 0;
    const char *s = get_item(r, &n);
    int64_t v = 0;
    if (s && n == sizeof v)
        memcpy(&v, s, sizeof v);
    else
        r->bad = 1;
    return v;
}

/* Strings are sent with their NUL, so they can be used in place. */
static const char *get_str(struct reader *r)
{
    size_t n = 0;
    const char *s = get_item(r, &n);
    if (!s || !n || s[n - 1] != '\0') {
        r->bad = 1;
        return NULL;
    }
    return s;
}

int gp_profile_dist_join(struct gp_profile_dist **out, int argc, char **argv, struct gp_error *err)
{
    *out = NULL;
    struct gp_profile_dist *pd = calloc(1, sizeof *pd);
    if (!pd)
        return gp_err(err, GP_ENOMEM, "out of memory");
    int rc = gp_dist_init(&pd->d, NULL, NULL, err);
    if (rc) {
        free(pd);
        return rc;
    }
    pd->rank = gp_dist_rank(pd->d);
    pd->size = gp_dist_size(pd->d);
    pd->workers = 1;
    if (pd->size > 1 && pd->rank == 0) {
        int bad = put_num(&pd->argv0, argc);
        for (int i = 0; i < argc && !bad; i++)
            bad = put_item(&pd->argv0, argv[i], strlen(argv[i]) + 1);
        if (bad) {
            gp_profile_dist_free(pd);
            return gp_err(err, GP_ENOMEM, "out of memory copying the command line");
        }
    }
    *out = pd;
    return 0;
}

int gp_profile_dist_rank(const struct gp_profile_dist *pd) { return pd ? pd->rank : 0; }
int gp_profile_dist_size(const struct gp_profile_dist *pd) { return pd ? pd->size : 1; }

static int pack_setup(struct gp_profile_dist *pd, int status, int cont, const struct profile_config *cfg,
                      const struct gp_client_body *bodies, size_t n_bodies, const struct profile_shape *shape,
                      struct gp_buf *b)
{
    if (put_num(b, status))
        return -1;
    if (status != cont)
        return 0;
    if (put_num(b, cfg->workers) || gp_buf_append(b, pd->argv0.data, pd->argv0.len) ||
        put_num(b, (int64_t)cfg->n_headers))
        return -1;
    for (size_t i = 0; i < cfg->n_headers; i++)
        if (put_item(b, cfg->headers[i], strlen(cfg->headers[i]) + 1))
            return -1;
    if (put_num(b, (int64_t)n_bodies))
        return -1;
    for (size_t i = 0; i < n_bodies; i++)
        if (put_item(b, bodies[i].data, bodies[i].len))
            return -1;
    /* the plan travels as rank 0 built it: the other ranks may not see the
     * trace file (it is read on rank 0's host only) */
    if (put_num(b, shape->has_plan))
        return -1;
    if (!shape->has_plan)
        return 0;
    const struct gp_client_plan *p = &shape->plan;
    return put_num(b, (int64_t)p->n) || put_num(b, (int64_t)p->nstarts) || put_num(b, (int64_t)p->nsessions) ||
                   put_num(b, p->session_concurrency) || put_item(b, p->jobs, p->n * sizeof *p->jobs) ||
                   put_item(b, p->starts, p->nstarts * sizeof *p->starts)
               ? -1
               : 0;
}

/* Ranks > 0: rank 0's plan (copied out of the blob, whose items are not
 * aligned) becomes this rank's shape. */
static int unpack_plan(struct reader *rd, const struct profile_config *cfg, size_t n_bodies,
                       struct profile_shape *shape, struct gp_error *err)
{
    int64_t has = get_num(rd);
    if (rd->bad)
        return gp_err(err, GP_EIO, "malformed setup from rank 0 (plan)");
    if (!has)
        return gp_profile_shape_adopt(cfg, NULL, n_bodies, shape, err);
    struct gp_client_plan p = {0};
    int64_t n = get_num(rd), nstarts = get_num(rd), nsessions = get_num(rd);
    p.session_concurrency = (long)get_num(rd);
    size_t jl = 0, sl = 0;
    const char *jb = get_item(rd, &jl), *sb = get_item(rd, &sl);
    if (rd->bad || n < 0 || nstarts < 0 || nsessions < 0 || jl != (uint64_t)n * sizeof *p.jobs ||
        sl != (uint64_t)nstarts * sizeof *p.starts)
        return gp_err(err, GP_EIO, "malformed setup from rank 0 (plan)");
    struct gp_client_job *jobs = malloc(jl ? jl : 1);
    uint32_t *starts = malloc(sl ? sl : 1);
    int rc = 0;
    if (!jobs || !starts) {
        rc = gp_err(err, GP_ENOMEM, "out of memory for the request plan (%lld jobs)", (long long)n);
    } else {
        memcpy(jobs, jb, jl);
        memcpy(starts, sb, sl);
        p.jobs = jobs;
        p.n = (size_t)n;
        p.starts = starts;
        p.nstarts = (size_t)nstarts;
        p.nsessions = (size_t)nsessions;
        rc = gp_profile_shape_adopt(cfg, &p, n_bodies, shape, err);
    }
    free(jobs);
    free(starts);
    return rc;
}

/* Ranks > 0: the config rank 0 parsed, from the same argv; the headers are
 * rank 0's final ones (--api-key-file and $GENPERF_API_KEY were read there). */
static int unpack_setup(struct gp_profile_dist *pd, struct reader *rd, struct profile_config *cfg,
                        const char *prog, struct gp_client_body **bodies, size_t *n_bodies,
                        struct profile_shape *shape, struct gp_error *err)
{
    pd->workers = (long)get_num(rd);
    int64_t argc = get_num(rd);
    if (rd->bad || argc < 1 || argc > 1 << 20 || !(pd->argv = calloc((size_t)argc + 1, sizeof *pd->argv)))
        return gp_err(err, GP_EIO, "malformed setup from rank 0 (command line)");
    for (int64_t i = 0; i < argc; i++)
        pd->argv[i] = (char *)get_str(rd);
    if (rd->bad)
        return gp_err(err, GP_EIO, "malformed setup from rank 0 (command line)");
    cfg->skip_file_checks = 1;
    if (gp_profile_parse(cfg, (int)argc, pd->argv, prog, err) < 0)
        return gp_err_prefix(err, "parsing rank 0's command line: ");
    cfg->workers = pd->workers;
    int64_t nh = get_num(rd);
    if (rd->bad || nh < 0 || nh > 1 << 20)
        return gp_err(err, GP_EIO, "malformed setup from rank 0 (headers)");
    const char **h = calloc((size_t)nh + 1, sizeof *h);
    if (!h)
        return gp_err(err, GP_ENOMEM, "out of memory");
    for (int64_t i = 0; i < nh; i++)
        h[i] = get_str(rd);
    free(cfg->headers);
    cfg->headers = h;
    cfg->n_headers = (size_t)nh;
    gp_profile_default_cacert(cfg); /* read on this host, as rank 0 read it on its own */
    int64_t nb = get_num(rd);
    if (rd->bad || nb < 1 || (uint64_t)nb > SIZE_MAX / sizeof **bodies)
        return gp_err(err, GP_EIO, "malformed setup from rank 0 (bodies)");
    if (!(*bodies = calloc((size_t)nb, sizeof **bodies)))
        return gp_err(err, GP_ENOMEM, "out of memory for %lld request bodies", (long long)nb);
    for (int64_t i = 0; i < nb; i++)
        (*bodies)[i].data = get_item(rd, &(*bodies)[i].len);
    *n_bodies = (size_t)nb;
    if (rd->bad)
        return gp_err(err, GP_EIO, "malformed setup from rank 0 (bodies)");
    return unpack_plan(rd, cfg, *n_bodies, shape, err);
}

int gp_profile_dist_setup(struct gp_profile_dist *pd, int *status, int cont, struct profile_config *cfg,
                          const char *prog, struct gp_client_body **bodies, size_t *n_bodies,
                          struct profile_shape *shape, struct gp_error *err)
{
    if (pd->size < 2)
        return 0;
    struct gp_buf b = {0};
    void *data = NULL;
    size_t len = 0;
    if (pd->rank == 0) {
        pd->workers = cfg->workers;
        if (pack_setup(pd, *status, cont, cfg, *bodies, *n_bodies, shape, &b)) {
            /* the others still need rank 0's word: send the bare status */
            gp_buf_reset(&b);
            *status = 1;
            fprintf(stderr, "%s: error: out of memory packing the setup for %d ranks\n", prog, pd->size);
            if (put_num(&b, *status)) {
                gp_buf_free(&b);
                return gp_err(err, GP_ENOMEM, "out of memory");
            }
        }
        data = b.data;
        len = b.len;
    }
    int rc = gp_dist_bcast(pd->d, &data, &len, err);
    if (pd->rank == 0)
        gp_buf_free(&b);
    if (rc)
        return rc;
    if (pd->rank == 0 && *status != cont)
        return 0; /* the others stop too, without another collective */
    struct gp_error local = {0};
    if (pd->rank != 0) {
        pd->blob = data;
        pd->blob_len = len;
        struct reader rd = {pd->blob, len, 0, 0};
        int64_t st = get_num(&rd);
        if (rd.bad)
            return gp_err(err, GP_EIO, "malformed setup from rank 0");
        *status = (int)st;
        if (*status != cont)
            return 0; /* rank 0 stopped and said why */
        if (unpack_setup(pd, &rd, cfg, prog, bodies, n_bodies, shape, &local) < 0 && local.code == GP_ENET)
            local.code = GP_EIO;
    }
    return gp_dist_check(pd->d, &local, err);
}

/* ---- the run ---- */

/* gp_client_opts.measure_start of every rank (collective; on the MPI thread,
 * see client.h): once every rank is done with its warmup (a barrier), rank 0
 * sets the start a margin ahead of its clock and broadcasts it; each rank
 * sleeps until that instant converted to its own clock, so the measured phase
 * (and a rate schedule's origin) begins at one instant of rank 0's timeline.
 * The margin covers the broadcast reaching the farthest rank (2 ms plus two
 * of the worst round trips seen by the clock ping-pong). What is left: each
 * rank's conversion is exact to within its clock uncertainty (+-RTT/2), and a
 * rank whose sleep wakes late starts late; both are recorded in scale_out. */
static uint64_t measure_start(void *ctx)
{
    struct gp_profile_dist *pd = ctx;
    int64_t t0 = 0;
    if (gp_dist_barrier(pd->d, &pd->start_err))
        return 0;
    if (pd->rank == 0) {
        int64_t rtt = 0;
        for (int r = 1; r < pd->size; r++)
            if (pd->clocks[r].rtt_ns > rtt)
                rtt = pd->clocks[r].rtt_ns;
        pd->start_margin_ns = 2000000 + 2 * rtt;
        t0 = (int64_t)gp_now_ns() + pd->start_margin_ns;
    }
    void *data = &t0;
    size_t len = sizeof t0;
    if (gp_dist_bcast(pd->d, &data, &len, &pd->start_err))
        return 0;
    if (pd->rank != 0) {
        if (len == sizeof t0)
            memcpy(&t0, data, sizeof t0);
        free(data);
    }
    pd->start_ns = t0;
    int64_t local = t0 - pd->mine.offset_ns;
    return local > 0 ? (uint64_t)local : 0;
}

int gp_profile_dist_before_run(struct gp_profile_dist *pd, long workers, struct gp_client_opts *co,
                               struct gp_error *err)
{
    if (pd->size < 2)
        return 0;
    if (pd->rank == 0 && !(pd->clocks = calloc((size_t)pd->size, sizeof *pd->clocks)))
        return gp_err(err, GP_ENOMEM, "out of memory");
    int rc = gp_dist_clock_sync(pd->d, GP_PROFILE_DIST_CLOCK_ROUNDS, &pd->mine, pd->clocks, err);
    if (rc)
        return rc;
    /* the job's loops and this rank's first, from dist/plan.c's split (the
     * client splits the load over its loops with the same function); only
     * the cap is checked here, where the message can name the ranks, and
     * every rank computes the same verdict: no collective needed. A plan
     * splits by chain like --workers (client/schedule.h): global loop
     * rank x W + w of K x W takes the chains whose start index is its own
     * mod K x W. */
    struct gp_dist_load ld = {.cap = co->load.max_inflight > 0 ? (uint64_t)co->load.max_inflight : 0};
    struct gp_dist_slice sl;
    if ((rc = gp_dist_split_load(&ld, pd->size, (int)workers, pd->rank, 0, &sl, err)))
        return rc < 0 ? rc : -rc;
    co->load.share_index = (int)sl.slot;
    co->load.share_count = (int)sl.slots;
    co->measure_start = measure_start;
    co->measure_ctx = pd;
    return gp_dist_barrier(pd->d, err);
}

void gp_profile_dist_prepare_store(struct gp_profile_dist *pd, struct gp_record_store *st)
{
    if (!pd || pd->size < 2)
        return;
    const char *e = getenv("GENPERF_DIST_NO_SHM");
    pd->no_shm = e && *e && strcmp(e, "0") != 0;
    st->shm_arena = pd->rank != 0 && !pd->no_shm;
}

uint64_t gp_profile_dist_grace_ns(const struct gp_profile_dist *pd, uint64_t one)
{
    if (!pd || pd->size < 2)
        return one;
    uint64_t quarter = gp_dist_kill_window_ns() / 4;
    return quarter && quarter < one ? quarter : one;
}

static uint64_t to_rank0(const struct gp_profile_dist *pd, uint64_t t)
{
    return t ? (uint64_t)gp_dist_to_rank0_ns(&pd->mine, t) : 0;
}

static void stats_to_rank0(const struct gp_profile_dist *pd, struct gp_client_stats *s)
{
    s->start_ns = to_rank0(pd, s->start_ns);
    s->end_ns = to_rank0(pd, s->end_ns);
    s->began_ns = to_rank0(pd, s->began_ns);
}

/* The gather (gp_dist_gather_bulk): a rank > 0 sends its store as it lies
 * in memory, so each byte is copied once (by MPI, straight into rank 0's
 * arena) instead of being packed, staged and appended record by record. */
enum { PART_STATS, PART_BYTES, PART_RECS, PART_CHUNKS, PART_SHM, N_PARTS };

/* gp_dist_parts_fn on ranks > 0: the stats, then the store's byte arena,
 * records and chunks, their times converted to rank 0's clock in place (the
 * store is not used after the gather on these ranks). The whole arena
 * travels, also bytes no record references (a transfer cut off at the end of
 * a time-bounded run, the scattered reads of a joined body): finding them
 * would cost a pass over every record for a few percent of the bytes, and
 * rank 0 never reads them. */
static int send_parts(void *ctx, struct gp_dist_part *parts, int *n, struct gp_error *err)
{
    struct gp_profile_dist *pd = ctx;
    struct gp_record_store *st = pd->st_rw;
    struct gp_buf *b = &pd->out;
    gp_buf_reset(b);
    int32_t w = (int32_t)pd->workers;
    struct gp_client_stats s = *pd->cs;
    stats_to_rank0(pd, &s);
    int bad = gp_buf_append(b, &w, sizeof w) || gp_buf_append(b, &s, sizeof s);
    for (long i = 0; i < pd->workers && !bad; i++) {
        s = pd->per_worker[i];
        stats_to_rank0(pd, &s);
        bad = gp_buf_append(b, &s, sizeof s);
    }
    if (bad)
        return gp_err(err, GP_ENOMEM, "out of memory packing the stats for rank 0");
    for (size_t i = 0; i < st->n; i++) {
        struct gp_record *r = &st->recs[i];
        r->t_start_ns = to_rank0(pd, r->t_start_ns);
        r->t_end_ns = to_rank0(pd, r->t_end_ns);
        r->t_send_ns = to_rank0(pd, r->t_send_ns);
        r->t_sched_ns = to_rank0(pd, r->t_sched_ns);
    }
    for (size_t i = 0; i < st->nchunks; i++)
        st->chunks[i].t_ns = to_rank0(pd, st->chunks[i].t_ns);
    parts[PART_STATS] = (struct gp_dist_part){b->data, b->len, 0};
    parts[PART_BYTES] = (struct gp_dist_part){st->bytes.data, st->bytes.len, 0};
    parts[PART_RECS] = (struct gp_dist_part){st->recs, st->n * sizeof *st->recs, 0};
    parts[PART_CHUNKS] = (struct gp_dist_part){st->chunks, st->nchunks * sizeof *st->chunks, 0};
    /* where the bytes are, for a rank 0 on this host (a memfd arena: see
     * gp_profile_dist_prepare_store); empty when they must travel */
    size_t hl = gp_record_store_shm_handle(st, &pd->shm) == 0 ? sizeof pd->shm : 0;
    parts[PART_SHM] = (struct gp_dist_part){&pd->shm, hl, GP_DIST_PART_INLINE};
    *n = N_PARTS;
    return 0;
}

static size_t stats_len(long workers)
{
    return sizeof(int32_t) + (size_t)(workers + 1) * sizeof(struct gp_client_stats);
}

/* gp_dist_place_fn on rank 0: the stats into pd->out, the rest at the tail
 * of the store. */
static int place_parts(void *ctx, int src, struct gp_dist_part *parts, int n, struct gp_error *err)
{
    struct gp_profile_dist *pd = ctx;
    if (n != N_PARTS || parts[PART_STATS].len != stats_len(pd->workers) ||
        parts[PART_RECS].len % sizeof(struct gp_record) || parts[PART_CHUNKS].len % sizeof(struct gp_chunk))
        return gp_err(err, GP_EIO, "malformed records from rank %d (%d parts)", src, n);
    gp_buf_reset(&pd->out);
    if (gp_buf_reserve(&pd->out, parts[PART_STATS].len))
        return gp_err(err, GP_ENOMEM, "out of memory");
    parts[PART_STATS].data = pd->out.data;
    struct gp_record_store *st = pd->st_rw;
    pd->tail_recs = parts[PART_RECS].len / sizeof(struct gp_record);
    pd->tail_chunks = parts[PART_CHUNKS].len / sizeof(struct gp_chunk);
    pd->tail_bytes = parts[PART_BYTES].len;
    /* on this host its bytes are mapped, not sent; anything refused (another
     * host, another pid namespace or user, no arena here) sends them */
    uint64_t mapped_base = 0;
    int mapped = 0;
    if (parts[PART_SHM].len == sizeof(struct gp_record_shm) && !pd->no_shm &&
        strcmp(gp_dist_hostname(pd->d, src), gp_dist_hostname(pd->d, 0)) == 0) {
        struct gp_record_shm h;
        memcpy(&h, parts[PART_SHM].data, sizeof h);
        mapped = h.len == pd->tail_bytes && gp_record_store_map_tail(st, &h, &mapped_base) == 0;
    }
    char *bytes = NULL;
    if (gp_record_store_reserve_tail(st, pd->tail_recs, pd->tail_chunks, mapped ? 0 : pd->tail_bytes, &bytes,
                                     &pd->tail_base))
        return gp_err(err, GP_ENOMEM, "out of memory storing rank %d's %zu records (%zu bytes)", src,
                      pd->tail_recs, pd->tail_bytes);
    if (mapped) {
        pd->tail_base = mapped_base;
        parts[PART_BYTES].flags |= GP_DIST_PART_TAKEN;
        pd->shm_ranks++;
    }
    parts[PART_BYTES].data = bytes;
    /* (the arrays may still be NULL when nothing comes) */
    parts[PART_RECS].data = pd->tail_recs ? st->recs + st->n : NULL;
    parts[PART_CHUNKS].data = pd->tail_chunks ? st->chunks + st->nchunks : NULL;
    return 0;
}

/* gp_dist_landed_fn on rank 0 */
static int landed_parts(void *ctx, int src, const struct gp_dist_part *parts, int n, struct gp_error *err)
{
    struct gp_profile_dist *pd = ctx;
    (void)n;
    int32_t w = 0;
    memcpy(&w, parts[PART_STATS].data, sizeof w);
    if (w != pd->workers)
        return gp_err(err, GP_EIO, "malformed stats from rank %d (%d workers, expected %ld)", src, (int)w,
                      pd->workers);
    const char *p = (const char *)parts[PART_STATS].data + sizeof w;
    memcpy(&pd->rank_stats[src], p, sizeof pd->rank_stats[src]);
    memcpy(&pd->loop_stats[(size_t)src * (size_t)w], p + sizeof(struct gp_client_stats),
           (size_t)w * sizeof(struct gp_client_stats));
    if (gp_record_store_commit_tail(pd->st_rw, pd->tail_recs, pd->tail_chunks, pd->tail_base, pd->tail_bytes))
        return gp_err(err, GP_EIO, "malformed records from rank %d (an offset outside its bytes)", src);
    return 0;
}

/* What makes a rank fail the job: its client could not run, or every one of
 * its requests failed (typically: its host cannot reach the server). Not
 * when it was interrupted: a Ctrl-C before any of its requests finished
 * cancels them all, and what the other ranks measured is still written. */
static void local_verdict(const struct gp_profile_dist *pd, int crc, const struct gp_error *run_err,
                          const struct gp_client_stats *cs, struct gp_error *local)
{
    if (crc < 0)
        /* GP_ENET is kept for MPI's own failures (see the header) */
        gp_err(local, run_err->code == GP_ENET ? GP_EIO : run_err->code ? run_err->code : GP_EIO, "%s",
               run_err->msg);
    else if (pd->size > 1 && cs->n_ok == 0 && cs->n_failed > 0 && !cs->interrupted)
        gp_err(local, GP_EIO, "every one of its %llu requests failed: %s", (unsigned long long)cs->n_failed,
               cs->first_error);
}

int gp_profile_dist_after_run(struct gp_profile_dist *pd, int crc, const struct gp_error *run_err, long workers,
                              struct gp_record_store *st, struct gp_client_stats *cs,
                              const struct gp_client_stats *per_worker, struct gp_error *err)
{
    if (pd->size < 2)
        return 0;
    if (pd->start_err.code) /* MPI broke agreeing on the start: GP_ENET, the caller aborts */
        return gp_err(err, pd->start_err.code, "%s", pd->start_err.msg);
    struct gp_error local = {0};
    local_verdict(pd, crc, run_err, cs, &local);
    size_t nloops = (size_t)pd->size * (size_t)workers;
    if (!local.code && pd->rank == 0 &&
        (!(pd->rank_stats = calloc((size_t)pd->size, sizeof *pd->rank_stats)) ||
         !(pd->loop_stats = calloc(nloops, sizeof *pd->loop_stats))))
        gp_err(&local, GP_ENOMEM, "out of memory for %zu loops' stats", nloops);
    int rc = gp_dist_check(pd->d, &local, err);
    if (rc)
        return rc;
    pd->workers = workers;
    pd->st_rw = st;
    pd->cs = cs;
    pd->per_worker = per_worker;
    if (pd->rank == 0) {
        pd->rank_stats[0] = *cs;
        memcpy(pd->loop_stats, per_worker, (size_t)workers * sizeof *per_worker);
    }
    /* rank 0's own records are already in st: it sends none. The others'
     * bytes land in its arena with the page population ahead of them, as
     * during the run (batched: cheaper than a fault per page). */
    if (pd->rank == 0)
        gp_record_store_prefault_start(st);
    rc = gp_dist_gather_bulk(pd->d, GP_PROFILE_DIST_PIECE, pd->rank ? send_parts : NULL, pd,
                             pd->rank ? NULL : place_parts, pd->rank ? NULL : landed_parts, pd, err);
    gp_buf_free(&pd->out);
    if (pd->rank == 0)
        gp_record_store_prefault_stop(st);
    if (rc || pd->rank != 0)
        return rc;
    /* the records arrived rank by rank, each rank's in start order: ties in
     * start time keep the lower rank first */
    if (gp_record_store_sort_by_start(st))
        return gp_err(err, GP_ENOMEM, "out of memory sorting %zu records", st->n);
    for (int r = 0; r < pd->size; r++)
        gp_client_stats_sum(cs, &pd->rank_stats[r], r == 0);
    return 0;
}

struct gp_dist *gp_profile_dist_job(struct gp_profile_dist *pd) { return pd ? pd->d : NULL; }

int64_t gp_profile_dist_offset_ns(const struct gp_profile_dist *pd)
{
    return pd && pd->size > 1 ? pd->mine.offset_ns : 0;
}

void gp_profile_dist_abort(struct gp_profile_dist *pd, int code)
{
    if (pd)
        gp_dist_abort(pd->d, code);
}

void gp_profile_dist_free(struct gp_profile_dist *pd)
{
    if (!pd)
        return;
    gp_dist_finalize(pd->d);
    gp_buf_free(&pd->argv0);
    gp_buf_free(&pd->out);
    free(pd->blob);
    free(pd->argv);
    free(pd->clocks);
    free(pd->rank_stats);
    free(pd->loop_stats);
    free(pd);
}
