/* core/evloop.h — the one event loop library under `genperf serve` and the
 * client (redis's ae in spirit): an epoll set whose events carry the caller's
 * 64-bit tag, a wait with a nanosecond timeout, one-shot timers in a
 * core/heap.h min-heap, and gp_deadline_cap, the "sleep no later than this"
 * step every loop repeats for each thing it waits on.
 *
 * No callbacks: gp_evloop_wait fills L->ev and the caller dispatches on the
 * tags; gp_evloop_timer_due hands back the timers that are due. Both users
 * index slot tables by a small id, so a tag is the whole dispatch and no
 * per-descriptor record is allocated; each loop's turn (accept/read/flush
 * for serve; curl, the h1 transport and the scheduler for the client) stays
 * in its own module, written in its own order.
 *
 * Timers are cancelled the way serve always did: the owner keeps a token and
 * ignores a timer whose key no longer matches when it surfaces (no delete
 * from the middle of the heap). Equal due times come out in the heap's fixed
 * order (core/heap.h), which the golden artifacts rely on.
 *
 * Owns: the epoll descriptor, the event array and the timer heap, all freed
 * by gp_evloop_free (which closes no watched descriptor: their owners do).
 * The struct lives wherever the caller puts it. Not thread-safe: one loop per
 * thread. Linux only (epoll). */
#ifndef GP_CORE_EVLOOP_H
#define GP_CORE_EVLOOP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>

struct gp_error;

/* A one-shot timer: due at t (CLOCK_MONOTONIC ns); key and arg are the
 * caller's (serve: the connection's token, and its slot and timer kind). */
struct gp_timer {
    uint64_t t;
    uint64_t key;
    uint64_t arg;
};

struct gp_evloop {
    int ep;                  /* the epoll set; -1 before init */
    int pwait2;              /* epoll_pwait2 works (ns timeouts, Linux >= 5.11) */
    int max_ev;
    struct epoll_event *ev;  /* what the last gp_evloop_wait returned */
    struct gp_timer *heap;
    size_t nheap, cap_heap;
};

/* Creates the epoll set and an event array of max_events (>= 1). On error
 * err names the call that failed; L is then safe to gp_evloop_free. */
int gp_evloop_init(struct gp_evloop *L, int max_events, struct gp_error *err);
void gp_evloop_free(struct gp_evloop *L);

/* Watches fd for events (EPOLLIN, EPOLLOUT, EPOLLRDHUP...; level-triggered),
 * reported with tag. add fails on a watched fd, mod on an unwatched one;
 * set is add-or-mod, for a caller that cannot know (libcurl may reuse an fd
 * number without announcing the close). 0, or -errno. */
int gp_evloop_add(struct gp_evloop *L, int fd, uint32_t events, uint64_t tag);
int gp_evloop_mod(struct gp_evloop *L, int fd, uint32_t events, uint64_t tag);
int gp_evloop_set(struct gp_evloop *L, int fd, uint32_t events, uint64_t tag);
int gp_evloop_del(struct gp_evloop *L, int fd);

/* Waits up to wait_ns (UINT64_MAX: no limit; 0: a look without sleeping) and
 * returns how many events are in L->ev: 0 on timeout or a signal, -1 with
 * errno when epoll fails. Without epoll_pwait2 the timeout is rounded up to
 * whole milliseconds: waking late by under 1 ms rather than spinning. */
int gp_evloop_wait(struct gp_evloop *L, uint64_t wait_ns);
/* The same into the caller's array: for a zero-timeout look from inside a
 * dispatch of L->ev (the client's gp_cl_drive_now). */
int gp_evloop_wait_into(struct gp_evloop *L, struct epoll_event *evs, int max, uint64_t wait_ns);

/* Arms a timer. 0, or -1 when out of memory (nothing armed). */
int gp_evloop_timer_add(struct gp_evloop *L, uint64_t t, uint64_t key, uint64_t arg);
/* The earliest armed due time; 0 when none is armed. */
static inline uint64_t gp_evloop_timer_next(const struct gp_evloop *L) { return L->nheap ? L->heap[0].t : 0; }
/* Takes the earliest timer due at or before now into *out: 1, or 0 when none
 * is due. Call until 0 each turn. */
int gp_evloop_timer_due(struct gp_evloop *L, uint64_t now, struct gp_timer *out);

/* Lowers *wait_ns so that a sleep starting at now ends by t (0 when t has
 * passed); t == 0 means nothing is due and leaves *wait_ns alone. */
static inline void gp_deadline_cap(uint64_t *wait_ns, uint64_t now, uint64_t t)
{
    if (!t)
        return;
    uint64_t d = t > now ? t - now : 0;
    if (d < *wait_ns)
        *wait_ns = d;
}

#endif
