/* dist/gather.c — the records' way to rank 0: the chunked gather
 * (gp_dist_gather: packed records in bounded chunks) and the bulk one
 * (gp_dist_gather_bulk: whole buffers received in place). See dist.h. */
#include "dist/dist_int.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"

/* ---- gather ---- */

/* Where a full chunk goes: rank 0 hands its own chunks to on_chunk, the
 * others send theirs to rank 0. A failure here stops this rank's stream. */
struct sink {
    struct gp_dist *d;
    gp_dist_chunk_fn on_chunk;
    void *ctx;
    int transport_failed; /* MPI broke: no end-of-stream message can follow */
};

static int sink_put(struct sink *s, const void *chunk, size_t len, struct gp_error *err)
{
    if (s->d->rank == 0)
        return s->on_chunk ? s->on_chunk(s->ctx, 0, chunk, len, err) : 0;
#ifdef GP_HAVE_MPI
    MPI_Request rq;
    int rc = MPI_Issend(chunk, (int)len, MPI_BYTE, 0, TAG_CHUNK, s->d->comm, &rq);
    if (rc == MPI_SUCCESS)
        rc = dist_lazy_wait(&rq, NULL);
    if (rc != MPI_SUCCESS) {
        s->transport_failed = 1;
        return dist_mpi_fail(s->d, err, rc, "Ssend of a record chunk", 0);
    }
#endif
    return 0;
}

/* Packs next()'s records into chunks of at most chunk_bytes and puts them. */
static int stream_records(struct sink *s, size_t chunk_bytes, gp_dist_next_fn next, void *ctx,
                          struct gp_error *err)
{
    struct gp_buf b = {0};
    int rc = 0;
    for (;;) {
        const void *rec = NULL;
        size_t n = 0;
        int more = next ? next(ctx, &rec, &n, err) : 0;
        if (more < 0) {
            rc = more;
            break;
        }
        if (more == 0)
            break;
        if (n > (size_t)INT_MAX - 4) {
            rc = gp_err(err, GP_EINVAL, "a record of %zu bytes is too large to gather (limit 2 GiB)", n);
            break;
        }
        if (b.len && b.len + 4 + n > chunk_bytes) {
            if ((rc = sink_put(s, b.data, b.len, err)) != 0)
                break;
            gp_buf_reset(&b);
        }
        unsigned char h[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                              (unsigned char)(n >> 24)};
        if (gp_buf_append(&b, h, 4) || gp_buf_append(&b, rec, n)) {
            rc = gp_err(err, GP_ENOMEM, "out of memory packing a %zu-byte record", n);
            break;
        }
        /* Full, or one record bigger than a chunk: it travels alone. */
        if (b.len >= chunk_bytes) {
            if ((rc = sink_put(s, b.data, b.len, err)) != 0)
                break;
            gp_buf_reset(&b);
        }
    }
    if (!rc && b.len)
        rc = sink_put(s, b.data, b.len, err);
    gp_buf_free(&b);
    return rc;
}

#ifdef GP_HAVE_MPI
/* A rank > 0, either gather: waits for rank 0 to ask for its records (rank 0
 * takes the ranks one at a time). */
static int await_go(struct gp_dist *d, struct gp_error *err)
{
    int go = 0;
    MPI_Request rq;
    int rc = MPI_Irecv(&go, 1, MPI_INT, 0, TAG_GO, d->comm, &rq);
    if (rc == MPI_SUCCESS)
        rc = dist_lazy_wait(&rq, NULL);
    return rc == MPI_SUCCESS ? 0 : dist_mpi_fail(d, err, rc, "Recv of the gather request", 0);
}

/* A rank > 0, either gather: the end marker, empty when everything was
 * sent, else this rank's error code and line (e, failed). */
static int send_end(struct gp_dist *d, int failed, const struct gp_error *e, struct gp_error *err)
{
    struct status_blk end = {.code = e->code ? e->code : GP_EIO};
    size_t len = 0;
    if (failed) {
        snprintf(end.msg, sizeof end.msg, "%s", e->msg);
        len = offsetof(struct status_blk, msg) + strlen(end.msg);
    }
    MPI_Request rq;
    int rc = MPI_Issend(&end, (int)len, MPI_BYTE, 0, TAG_END, d->comm, &rq);
    if (rc == MPI_SUCCESS)
        rc = dist_lazy_wait(&rq, NULL);
    return rc == MPI_SUCCESS ? 0 : dist_mpi_fail(d, err, rc, "Ssend of the end of records", 0);
}

/* Rank 0, either gather: asks rank r for its records (await_go's other
 * side; rank 0 takes the ranks one at a time). */
static int ask_rank(struct gp_dist *d, int r, struct gp_error *err)
{
    int go = 1, rc = MPI_Send(&go, 1, MPI_INT, r, TAG_GO, d->comm);
    return rc == MPI_SUCCESS ? 0 : dist_mpi_fail(d, err, rc, "Send of the gather request", r);
}

/* Rank 0, either gather: waits (lazily) for rank r's next message; its tag
 * in *st, its size in bytes in *cnt. */
static int probe_rank(struct gp_dist *d, int r, MPI_Status *st, int *cnt, const char *what, struct gp_error *err)
{
    int rc = dist_lazy_probe(d->comm, r, st);
    if (rc == MPI_SUCCESS)
        rc = MPI_Get_count(st, MPI_BYTE, cnt);
    return rc == MPI_SUCCESS ? 0 : dist_mpi_fail(d, err, rc, what, r);
}

/* Rank 0, either gather: receives rank r's end marker of cnt bytes
 * (send_end's other side) and blames r with its error line, if it sent
 * one. Non-zero only when MPI itself failed. */
static int take_end(struct gp_dist *d, int r, int cnt, struct status_blk *verdict, struct gp_error *err)
{
    struct status_blk end = {0};
    if (cnt < 0 || (size_t)cnt > sizeof end)
        cnt = 0; /* not ours: receive nothing (MPI reports the truncation) */
    int rc = MPI_Recv(&end, cnt, MPI_BYTE, r, TAG_END, d->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return dist_mpi_fail(d, err, rc, "Recv of the end of records", r);
    end.msg[sizeof end.msg - 1] = '\0';
    if ((size_t)cnt > offsetof(struct status_blk, msg))
        dist_blame(d, verdict, r, end.code, end.msg);
    return 0;
}

/* Rank 0: asks rank r for its records and takes chunks until its end marker
 * (which carries its error line, if any). Returns non-zero only when MPI
 * itself failed. */
static int pull_rank(struct gp_dist *d, int r, struct gp_buf *buf, gp_dist_chunk_fn on_chunk, void *ctx,
                     struct status_blk *verdict, struct gp_error *err)
{
    int rc = ask_rank(d, r, err);
    if (rc)
        return rc;
    for (;;) {
        MPI_Status st;
        int n = 0;
        if ((rc = probe_rank(d, r, &st, &n, "Probe of a record chunk", err)) != 0)
            return rc;
        if (st.MPI_TAG == TAG_END)
            return take_end(d, r, n, verdict, err);
        gp_buf_reset(buf);
        if (gp_buf_reserve(buf, (size_t)n + 1))
            return gp_err(err, GP_ENOMEM, "out of memory for a %d-byte chunk from rank %d", n, r);
        rc = MPI_Recv(buf->data, n, MPI_BYTE, r, st.MPI_TAG, d->comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return dist_mpi_fail(d, err, rc, "Recv of a record chunk", r);
        buf->data[n] = '\0';
        if (!verdict->code && on_chunk) {
            struct gp_error e = {0};
            if (on_chunk(ctx, r, buf->data, (size_t)n, &e))
                dist_blame(d, verdict, 0, e.code, e.msg);
        }
    }
}
#endif

int gp_dist_gather(struct gp_dist *d, size_t chunk_bytes, gp_dist_next_fn next, void *next_ctx,
                   gp_dist_chunk_fn on_chunk, void *chunk_ctx, struct gp_error *err)
{
    if (chunk_bytes < 16 || chunk_bytes > INT_MAX)
        return gp_err(err, GP_EINVAL, "gather: chunk size %zu; use 16 bytes .. 2 GiB", chunk_bytes);
    struct sink s = {d, on_chunk, chunk_ctx, 0};
    if (!d->use_mpi)
        return stream_records(&s, chunk_bytes, next, next_ctx, err);
#ifdef GP_HAVE_MPI
    struct status_blk verdict = {0};
    struct gp_error e = {0};
    int rc;
    if (d->rank == 0) {
        if (stream_records(&s, chunk_bytes, next, next_ctx, &e))
            dist_blame(d, &verdict, 0, e.code, e.msg);
        struct gp_buf buf = {0};
        for (int r = 1; r < d->size; r++) {
            if ((rc = pull_rank(d, r, &buf, on_chunk, chunk_ctx, &verdict, err)) != 0) {
                gp_buf_free(&buf);
                return rc; /* MPI broke: the others may be stuck; the caller aborts */
            }
        }
        gp_buf_free(&buf);
    } else {
        if ((rc = await_go(d, err)) != 0)
            return rc;
        rc = stream_records(&s, chunk_bytes, next, next_ctx, &e);
        if (rc && s.transport_failed)
            return gp_err(err, e.code, "%s", e.msg);
        if ((rc = send_end(d, rc != 0, &e, err)) != 0)
            return rc;
    }
    return dist_share_verdict(d, &verdict, err);
#else
    return 0;
#endif
}

/* ---- bulk ---- */

#ifdef GP_HAVE_MPI
/* Moves parts[0..n) between this rank and peer in pieces of at most `piece`
 * bytes (MPI counts are int), two in flight so the next piece is already
 * matched when one completes; messages between two ranks on one tag arrive
 * in order, so both sides walk the same sequence. The receiver (rank 0, busy
 * copying) waits actively; the sender sleeps between tests. */
static int move_pieces(struct gp_dist *d, int peer, int recv, const struct gp_dist_part *parts, int n,
                       size_t piece)
{
    MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    unsigned k = 0;
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        for (size_t off = 0; off < parts[i].len && rc == MPI_SUCCESS;) {
            size_t m = parts[i].len - off < piece ? parts[i].len - off : piece;
            MPI_Request *q = &rq[k++ & 1u];
            if (*q != MPI_REQUEST_NULL &&
                (rc = recv ? MPI_Wait(q, MPI_STATUS_IGNORE) : dist_lazy_wait(q, NULL)) != MPI_SUCCESS)
                break;
            char *p = (char *)parts[i].data + off;
            rc = recv ? MPI_Irecv(p, (int)m, MPI_BYTE, peer, TAG_PIECE, d->comm, q)
                      : MPI_Isend(p, (int)m, MPI_BYTE, peer, TAG_PIECE, d->comm, q);
            off += m;
        }
    }
    for (int j = 0; j < 2; j++) {
        if (rq[j] == MPI_REQUEST_NULL)
            continue;
        int r2 = recv ? MPI_Wait(&rq[j], MPI_STATUS_IGNORE) : dist_lazy_wait(&rq[j], NULL);
        if (rc == MPI_SUCCESS)
            rc = r2;
    }
    return rc;
}

/* The sizes message, in u64 words: n, then (length, flags) per part, then
 * each inline part's bytes padded to whole words. The go-ahead: bit 0 =
 * send, bit 1 + i = part i was taken another way (do not send it). */
#define SIZES_WORDS (1 + 2 * GP_DIST_PARTS_MAX + GP_DIST_PARTS_MAX * GP_DIST_INLINE_MAX / 8)

/* Rank r > 0: waits for rank 0's turn, then sends its sizes, its parts (if
 * rank 0 accepts them) and the end marker (its error line, if any). */
static int bulk_send(struct gp_dist *d, size_t piece, gp_dist_parts_fn parts_fn, void *ctx, struct gp_error *err)
{
    int rc = await_go(d, err);
    if (rc != 0)
        return rc;
    MPI_Request rq;
    struct gp_dist_part parts[GP_DIST_PARTS_MAX] = {{0}};
    int n = 0;
    struct gp_error e = {0};
    int failed = parts_fn ? parts_fn(ctx, parts, &n, &e) : 0;
    if (!failed && (n < 0 || n > GP_DIST_PARTS_MAX))
        failed = gp_err(&e, GP_EINVAL, "bulk gather: %d parts (at most %d)", n, GP_DIST_PARTS_MAX);
    uint64_t sizes[SIZES_WORDS] = {(uint64_t)n};
    int w = 1 + 2 * n;
    for (int i = 0; i < n && !failed; i++) {
        sizes[1 + 2 * i] = parts[i].len;
        sizes[2 + 2 * i] = parts[i].flags & GP_DIST_PART_INLINE;
        if (!(parts[i].flags & GP_DIST_PART_INLINE))
            continue;
        if (parts[i].len > GP_DIST_INLINE_MAX)
            failed = gp_err(&e, GP_EINVAL, "bulk gather: an inline part of %zu bytes (at most %d)", parts[i].len,
                            GP_DIST_INLINE_MAX);
        else if (parts[i].len)
            memcpy(&sizes[w], parts[i].data, parts[i].len);
        w += (int)((parts[i].len + 7) / 8);
    }
    if (!failed) {
        int accept = 0;
        rc = MPI_Issend(sizes, w, MPI_UINT64_T, 0, TAG_SIZES, d->comm, &rq);
        if (rc == MPI_SUCCESS)
            rc = dist_lazy_wait(&rq, NULL);
        if (rc == MPI_SUCCESS)
            rc = MPI_Irecv(&accept, 1, MPI_INT, 0, TAG_ACCEPT, d->comm, &rq);
        if (rc == MPI_SUCCESS)
            rc = dist_lazy_wait(&rq, NULL);
        /* what travels: neither the inline parts (sent) nor those rank 0 took */
        for (int i = 0; i < n; i++)
            if ((parts[i].flags & GP_DIST_PART_INLINE) || (accept >> (1 + i) & 1))
                parts[i].len = 0;
        if (rc == MPI_SUCCESS && (accept & 1))
            rc = move_pieces(d, 0, 0, parts, n, piece);
        if (rc != MPI_SUCCESS)
            return dist_mpi_fail(d, err, rc, "bulk send of the records", 0);
    }
    return send_end(d, failed != 0, &e, err);
}

/* Rank 0: the sizes message's parts (inline ones point into it). The number
 * of parts, or -1 when it does not add up. */
static int parse_sizes(uint64_t *sizes, int words, struct gp_dist_part *parts)
{
    if (words < 1 || sizes[0] > GP_DIST_PARTS_MAX || 1 + 2 * (int)sizes[0] > words)
        return -1;
    int n = (int)sizes[0], w = 1 + 2 * n;
    for (int i = 0; i < n; i++) {
        parts[i].len = (size_t)sizes[1 + 2 * i];
        parts[i].flags = sizes[2 + 2 * i] & GP_DIST_PART_INLINE;
        if (!parts[i].flags)
            continue;
        if (parts[i].len > GP_DIST_INLINE_MAX || (int)((parts[i].len + 7) / 8) > words - w)
            return -1;
        parts[i].data = &sizes[w];
        w += (int)((parts[i].len + 7) / 8);
    }
    return w == words ? n : -1;
}

/* Rank 0: asks rank r for its parts and takes them until its end marker.
 * Returns non-zero only when MPI itself failed. */
static int bulk_pull(struct gp_dist *d, int r, size_t piece, gp_dist_place_fn place, gp_dist_landed_fn landed,
                     void *ctx, struct status_blk *verdict, struct gp_error *err)
{
    int rc = ask_rank(d, r, err);
    if (rc)
        return rc;
    for (;;) {
        MPI_Status st;
        int cnt = 0;
        if ((rc = probe_rank(d, r, &st, &cnt, "Probe of the records", err)) != 0)
            return rc;
        if (st.MPI_TAG == TAG_END)
            return take_end(d, r, cnt, verdict, err);
        uint64_t sizes[SIZES_WORDS] = {0};
        if (st.MPI_TAG != TAG_SIZES || cnt < 8 || (size_t)cnt > sizeof sizes || cnt % 8)
            return gp_err(err, GP_EIO, "bulk gather: unexpected message (tag %d, %d bytes) from rank %d",
                          st.MPI_TAG, cnt, r);
        rc = MPI_Recv(sizes, cnt / 8, MPI_UINT64_T, r, TAG_SIZES, d->comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return dist_mpi_fail(d, err, rc, "Recv of the record sizes", r);
        struct gp_dist_part parts[GP_DIST_PARTS_MAX] = {{0}};
        int n = parse_sizes(sizes, cnt / 8, parts);
        struct gp_error e = {0};
        if (n < 0)
            dist_blame(d, verdict, r, GP_EIO, "bulk gather: malformed sizes");
        /* after a failure nothing more is kept: the rank sends nothing */
        int accept = n >= 0 && !verdict->code;
        if (accept && place && place(ctx, r, parts, n, &e)) {
            dist_blame(d, verdict, 0, e.code, e.msg);
            accept = 0;
        }
        struct gp_dist_part move[GP_DIST_PARTS_MAX] = {{0}};
        for (int i = 0; accept && i < n; i++) {
            move[i] = parts[i];
            if (parts[i].flags & (GP_DIST_PART_INLINE | GP_DIST_PART_TAKEN))
                move[i].len = 0;
            if ((parts[i].flags & GP_DIST_PART_TAKEN) && !(parts[i].flags & GP_DIST_PART_INLINE))
                accept |= 1 << (1 + i);
        }
        if ((rc = MPI_Send(&accept, 1, MPI_INT, r, TAG_ACCEPT, d->comm)) != MPI_SUCCESS)
            return dist_mpi_fail(d, err, rc, "Send of the go-ahead", r);
        if (!accept)
            continue;
        if ((rc = move_pieces(d, r, 1, move, n, piece)) != MPI_SUCCESS)
            return dist_mpi_fail(d, err, rc, "bulk receive of the records", r);
        if (landed && landed(ctx, r, parts, n, &e))
            dist_blame(d, verdict, 0, e.code, e.msg);
    }
}
#endif

int gp_dist_gather_bulk(struct gp_dist *d, size_t piece_bytes, gp_dist_parts_fn parts, void *parts_ctx,
                        gp_dist_place_fn place, gp_dist_landed_fn landed, void *ctx, struct gp_error *err)
{
    if (piece_bytes < 16 || piece_bytes > INT_MAX)
        return gp_err(err, GP_EINVAL, "bulk gather: piece size %zu; use 16 bytes .. 2 GiB", piece_bytes);
    if (!d->use_mpi)
        return 0;
#ifdef GP_HAVE_MPI
    struct status_blk verdict = {0};
    if (d->rank == 0) {
        for (int r = 1; r < d->size; r++) {
            int rc = bulk_pull(d, r, piece_bytes, place, landed, ctx, &verdict, err);
            if (rc)
                return rc; /* MPI broke: the others may be stuck; the caller aborts */
        }
    } else {
        int rc = bulk_send(d, piece_bytes, parts, parts_ctx, err);
        if (rc)
            return rc;
    }
    return dist_share_verdict(d, &verdict, err);
#else
    (void)parts;
    (void)parts_ctx;
    (void)place;
    (void)landed;
    (void)ctx;
    return 0;
#endif
}
