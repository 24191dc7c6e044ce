/* client/record.h — what the client measured, and nothing derived from it.
 *
 * Owns: struct gp_record_store, an append-only arena for one run. Every
 * record, every chunk timestamp and every received byte lives in three
 * growable arrays owned by the store (no malloc per chunk). The client is the
 * only writer; metrics/ and export/ only read. Free with gp_record_store_free.
 *
 * One "chunk" = the bytes of one network read (one libcurl write callback),
 * timestamped with CLOCK_MONOTONIC before anything parses it, exactly as
 * perf_analyzer records one response per read. SSE events are parsed out of
 * the chunks after the run (metrics/), so the hot path is one copy per read.
 * The byte arena may be an mmap'd reservation populated ahead of the append
 * point by a helper thread (gp_record_store_prefault_start): st->bytes is
 * then read-only to everyone but gp_record_append (never gp_buf_* on it).
 * A response that is not text/event-stream is stored as ONE chunk stamped at
 * transfer completion, as perf_analyzer delivers non-streamed bodies.
 * GP_REC_TIMEOUT and GP_REC_CANCELLED records also carry GP_REC_FAILED.
 * Requests still in flight at the end of a time-bounded run are not stored.
 */
#ifndef GP_CLIENT_RECORD_H
#define GP_CLIENT_RECORD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

enum gp_record_flags {
    GP_REC_WARMUP = 1u << 0,     /* warmup request: excluded from every metric and export */
    GP_REC_FAILED = 1u << 1,     /* transport error, HTTP status >= 400, or timeout */
    GP_REC_TIMEOUT = 1u << 2,    /* --request-timeout fired */
    GP_REC_CANCELLED = 1u << 3,  /* stopped by Ctrl-C / end of a time-bounded run */
    GP_REC_STREAMING = 1u << 4,  /* response Content-Type was text/event-stream */
    GP_REC_CAP_DELAYED = 1u << 5, /* open loop: was due while max_inflight requests were in flight */
    GP_REC_RAMP = 1u << 6,       /* started during --ramp-up-duration: also GP_REC_WARMUP (not measured) */
    GP_REC_CANCEL_PLANNED = 1u << 7, /* with GP_REC_CANCELLED: aborted by --request-cancellation-rate, on purpose */
};

struct gp_chunk {
    uint64_t t_ns;      /* CLOCK_MONOTONIC stamp of the read (client.h: the kernel's receive time on h1) */
    uint64_t off;       /* into store->bytes */
    uint32_t len;
};

struct gp_record {
    uint64_t t_start_ns;   /* CLOCK_MONOTONIC just before the transfer was queued */
    uint64_t t_end_ns;     /* CLOCK_MONOTONIC when the transfer completed (or failed) */
    uint64_t t_send_ns;    /* CLOCK_MONOTONIC when libcurl began sending the request (connection
                            * ready, CURLOPT_PREREQFUNCTION); 0 = never got that far. t_send_ns -
                            * t_start_ns is the client's queue-to-send lag; TTFT still starts at
                            * t_start_ns, as GenAI-Perf's does */
    uint64_t t_sched_ns;   /* CLOCK_MONOTONIC when the request was due (open loop, traces, session
                            * turns: max(its time, previous turn's end + delay)); 0 = closed loop,
                            * no schedule. t_start_ns - t_sched_ns is its schedule lag */
    uint64_t chunk_first;  /* index of the first chunk in store->chunks */
    uint32_t n_chunks;
    uint32_t entry;        /* dataset entry index (payload = dataset->entries[entry]) */
    int32_t http_status;   /* 0 when no HTTP response was received */
    uint32_t flags;        /* enum gp_record_flags */
    uint32_t worker;       /* client worker (event-loop thread) that ran it */
    uint32_t slot;         /* concurrency slot / arrival number */
    uint64_t err_off;      /* error text (curl error, HTTP body) in store->bytes */
    uint32_t err_len;      /* 0 = no error text */
    uint32_t endpoint;     /* index of the --url it went to (0 with one) */
    uint64_t body_off;     /* the request body actually sent, in store->bytes, when it is not the
                            * dataset entry's (a session turn carries the conversation so far:
                            * GenAI-Perf counts its ISL and exports it from that body) */
    uint32_t body_len;     /* 0 = the dataset entry's payload was sent as it is */
};

/* A memory budget (--max-memory) shared by the stores of one run's client
 * workers. Every byte, chunk and record a store takes while budget is set is
 * charged to it, together with what the metrics and export phase will need
 * for it after the run (GP_RECORD_POST_*: that phase runs when sending has
 * stopped, so the memory must be left for it now). The client stops sending
 * once gp_record_budget_reached (in-flight requests may still finish, within
 * the grace); a put of bytes that would pass `hard` fails as out of memory,
 * so requests still streaming after the stop cannot outgrow it either (the
 * record of such a request is still taken by gp_record_append_placed: it is
 * recorded as failed, not lost). */
struct gp_record_budget {
    uint64_t limit;              /* charged bytes at which sending stops; 0 = no budget */
    uint64_t hard;               /* charged bytes no put/append may pass (>= limit) */
    _Atomic uint64_t charged;
};
/* Measured after a 20,000-request zero-delay streaming run (258 reads per
 * request, 62 KB stored per request): the metrics and export phase added
 * 135 MB to the RSS, 26 bytes per chunk (content times and inter-chunk
 * gaps, the gaps held twice while the parse workers' lists are gathered;
 * with --workers the merge's copy of the chunk index, 24 bytes, comes and
 * goes before that) and a few hundred bytes per record. */
#define GP_RECORD_POST_PER_CHUNK 32u
#define GP_RECORD_POST_PER_RECORD 512u

static inline int gp_record_budget_reached(const struct gp_record_budget *b)
{
    return b && b->limit && atomic_load_explicit(&b->charged, memory_order_relaxed) >= b->limit;
}

struct gp_record_store {
    struct gp_record *recs;
    size_t n, cap;
    struct gp_chunk *chunks;
    size_t nchunks, chunks_cap;
    struct gp_buf bytes;     /* every received byte and error text, back to back */
    struct gp_record_arena *arena; /* record.c: the mapping behind bytes.data, or NULL (malloc) */
    size_t arena_reserve;    /* address space the arena reserves (0 = 64 GiB); tests set it small */
    void *headroom;          /* record.c: address space held back under RLIMIT_AS (see prefault_start) */
    size_t headroom_len;
    int shm_arena;           /* set before the arena is made: back it with a memfd another process on
                              * this host can map (gp_record_store_shm_handle); MPI ranks > 0 */
    struct gp_record_budget *budget; /* charged by every put and append while set (the client sets it
                              * for its run), NULL = none */
    uint64_t budget_unpublished; /* charged here, not yet added to budget->charged (record.c) */
    uint64_t mono0_ns;       /* gp_now_ns() at run start */
    uint64_t wall0_ns;       /* gp_wall_ns() read at the same moment: wall = wall0 + (t - mono0) */
};

/* Adds the store's unpublished charges to its budget's shared counter (the
 * client does at the end of its run; record.c in batches meanwhile). */
static inline void gp_record_budget_publish(struct gp_record_store *st)
{
    if (st->budget && st->budget_unpublished)
        atomic_fetch_add_explicit(&st->budget->charged, st->budget_unpublished, memory_order_relaxed);
    st->budget_unpublished = 0;
}

void gp_record_store_init(struct gp_record_store *st);
/* Stops the prefault helper if running, frees everything. */
void gp_record_store_free(struct gp_record_store *st);

/* Starts a helper thread that keeps the byte arena's pages populated a few
 * MiB ahead of the append point, so the appending thread (the client's event
 * loop) does not take the page faults and the kernel's page zeroing as the
 * store grows. Moves the arena into a MAP_NORESERVE reservation on first
 * use. Returns 0, or a negative gp code when the reservation or the thread
 * could not be made: harmless, the store then works as without it.
 * Where no reservation can be made because an address-space limit is set
 * (ulimit -v), it holds back up to 64 MiB of that limit instead: the first
 * failed growth of the store gives it back, and so does _stop, so the end
 * of a run that filled memory (cancelling what is in flight, metrics, the
 * artifacts) still finds room.
 * Call _stop (joins the thread; the arena stays) before others read the store
 * from other threads, and once appending is over; gp_record_store_free stops
 * it too. */
int gp_record_store_prefault_start(struct gp_record_store *st);
void gp_record_store_prefault_stop(struct gp_record_store *st);

/* Appends one finished request: *rec (its chunk_first/err_off are filled in
 * here), its n chunks (offsets relative to `bytes`) and their bytes, plus an
 * optional error text. Chunks of one record are therefore contiguous: the
 * client stages a transfer's chunks per slot (buffers reused, no allocation
 * per event once warm) and appends them when the transfer completes.
 * Returns the record index, or -GP_ENOMEM (store unchanged). */
long gp_record_append(struct gp_record_store *st, const struct gp_record *rec,
                      const struct gp_chunk *chunks, size_t n, const void *bytes, size_t nbytes,
                      const char *err_text, size_t err_len);

/* The hot path's pair, without a staging copy: each network read goes
 * straight to the end of the byte arena (gp_record_put_bytes returns its
 * offset in *off), and the finished request is appended with chunks whose
 * offsets are already absolute. A record's chunks are then not contiguous
 * when transfers interleave; every reader goes through gp_record_bytes per
 * chunk. Bytes put for a transfer that is never appended stay unreferenced.
 * Both return -GP_ENOMEM on failure (store unchanged); append returns the
 * record index. */
int gp_record_put_bytes(struct gp_record_store *st, const void *p, size_t n, uint64_t *off);
long gp_record_append_placed(struct gp_record_store *st, const struct gp_record *rec,
                             const struct gp_chunk *chunks, size_t n, const char *err_text, size_t err_len);
/* (append_placed with err_text NULL and err_len > 0: the error text is
 * already in the arena at rec->err_off.) */

/* Moves src's bytes into dst without copying them (merging the stores of
 * several client workers): the first store dst takes (dst has no bytes yet)
 * is adopted whole, later ones are moved with mremap into dst's reservation.
 * On 0, src's byte at offset o is dst's byte at o + *shift, and src has no
 * bytes left (its records and chunks stay: the caller re-appends them with
 * offsets shifted). -1 = not possible (a store without an mmap'd arena, a
 * prefault helper running, no room): nothing changed, copy instead. A dst
 * that took several stores cannot grow past its reservation later. */
int gp_record_store_take_bytes(struct gp_record_store *dst, struct gp_record_store *src, uint64_t *shift);

/* A bulk merge of another store sent whole (the MPI gather, profile_dist.c),
 * in two steps with the caller's copy in between:
 * _reserve_tail makes room for n records, nc chunks and nb bytes at the
 * tail. On 0: *bytes points at the nb bytes at offset *base, already counted
 * in st->bytes.len (their contents are the caller's to fill; a NUL follows;
 * a running prefault helper populates them ahead of the writer), and
 * st->recs + st->n, st->chunks + st->nchunks have room for n and nc entries,
 * not yet counted. The pointers stay valid until the store next grows.
 * -GP_ENOMEM: nothing counted.
 * _commit_tail counts the n records and nc chunks written there, whose byte
 * offsets (chunk off, err_off, body_off) are relative to the nb bytes at base
 * and whose chunk_first are relative to those nc chunks: it checks that each
 * stays inside them and rebases it, as gp_client_merge_stores does for a
 * worker's store. -GP_EIO (one does not fit): nothing counted, the bytes
 * stay unreferenced. */
int gp_record_store_reserve_tail(struct gp_record_store *st, size_t n, size_t nc, size_t nb, char **bytes,
                                 uint64_t *base);
int gp_record_store_commit_tail(struct gp_record_store *st, size_t n, size_t nc, uint64_t base, size_t nb);

/* The same merge without the copy, on one host: a store made with
 * shm_arena keeps its bytes in a memfd (same reservation, same prefault
 * helper), and another process maps them at its own arena's tail.
 * _shm_handle (the sender): where its bytes are, for as long as the store
 * lives (its fd must stay open until the receiver has mapped them). -1 when
 * there is no such arena (no shm_arena, no reservation possible, e.g. under
 * ulimit -v, or another store's pages were moved in): send the bytes.
 * _map_tail (the receiver): opens /proc/<pid>/fd/<fd>, checks by its name
 * (the nonce) that it is that memfd (another host, pid namespace or user
 * fails here), maps its h->len bytes MAP_SHARED|MAP_FIXED at a page boundary
 * past st's bytes inside st's reservation and counts them: on 0 they are at
 * *base, as _reserve_tail's would be (then _reserve_tail(n, nc, 0) and
 * _commit_tail(n, nc, *base, h->len) for the records). -1: nothing changed,
 * copy instead. A store that mapped one cannot grow past its reservation. */
struct gp_record_shm {
    int32_t pid, fd;
    uint64_t nonce;
    uint64_t file_off;   /* where byte 0 lies in the file (page-aligned) */
    uint64_t len;
};
int gp_record_store_shm_handle(const struct gp_record_store *st, struct gp_record_shm *h);
int gp_record_store_map_tail(struct gp_record_store *st, const struct gp_record_shm *h, uint64_t *base);

/* One chunk stamped t covering the n placed chunks' bytes in order (a
 * non-streamed body is recorded as one response). Their reads are usually
 * back to back in the arena and *out then just spans them; when another
 * transfer's bytes landed between them the body is copied once more,
 * contiguously, through scratch (the scattered copy stays unreferenced).
 * n >= 1. Returns 0 or -GP_ENOMEM. */
int gp_record_join_chunks(struct gp_record_store *st, const struct gp_chunk *chunks, size_t n, uint64_t t,
                          struct gp_buf *scratch, struct gp_chunk *out);

/* Sorts the records by start time, stably (ties keep their order), e.g.
 * after appending several sources one after the other. Only recs moves;
 * chunk and byte offsets stay valid. 0 or -GP_ENOMEM (store unchanged). */
int gp_record_store_sort_by_start(struct gp_record_store *st);

/* The body record r sent, when it was not its dataset entry's (body_len > 0). */
static inline const char *gp_record_body(const struct gp_record_store *st, const struct gp_record *r)
{
    return r->body_len ? st->bytes.data + r->body_off : NULL;
}

/* The i-th chunk of record r and a pointer to its bytes. */
static inline const struct gp_chunk *gp_record_chunk(const struct gp_record_store *st,
                                                     const struct gp_record *r, size_t i)
{
    return &st->chunks[r->chunk_first + i];
}
static inline const char *gp_record_bytes(const struct gp_record_store *st, const struct gp_chunk *c)
{
    return st->bytes.data + c->off;
}

static inline uint64_t gp_record_wall_ns(const struct gp_record_store *st, uint64_t t_mono)
{
    return st->wall0_ns + (t_mono - st->mono0_ns);
}

#endif
