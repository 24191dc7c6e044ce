/* core/evloop.c — the epoll set, the nanosecond wait and the timer heap of
 * core/evloop.h. */
#include "core/evloop.h"
#include "core/error.h"
#include "core/heap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int timer_less(const struct gp_timer *a, const struct gp_timer *b) { return a->t < b->t; }

/* Heap order (core/heap.h, asserted): a parent is due no later than its children. */
GP_HEAP_DEFINE(timer_heap, struct gp_timer, timer_less)

int gp_evloop_init(struct gp_evloop *L, int max_events, struct gp_error *err)
{
    memset(L, 0, sizeof *L);
    L->ep = -1;
    L->pwait2 = 1;
    L->max_ev = max_events > 0 ? max_events : 1;
    if (!(L->ev = calloc((size_t)L->max_ev, sizeof *L->ev)))
        return gp_err(err, GP_ENOMEM, "out of memory allocating %d epoll events", L->max_ev);
    if ((L->ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
        return gp_err(err, GP_EIO, "epoll_create1: %s (raise the open-files limit: ulimit -n)", strerror(errno));
    return 0;
}

void gp_evloop_free(struct gp_evloop *L)
{
    if (L->ep >= 0)
        close(L->ep);
    L->ep = -1;
    free(L->ev);
    free(L->heap);
    L->ev = NULL;
    L->heap = NULL;
    L->nheap = L->cap_heap = 0;
}

static int ctl(struct gp_evloop *L, int op, int fd, uint32_t events, uint64_t tag)
{
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = tag;
    return epoll_ctl(L->ep, op, fd, &ev) == 0 ? 0 : -errno;
}

int gp_evloop_add(struct gp_evloop *L, int fd, uint32_t events, uint64_t tag)
{
    return ctl(L, EPOLL_CTL_ADD, fd, events, tag);
}

int gp_evloop_mod(struct gp_evloop *L, int fd, uint32_t events, uint64_t tag)
{
    return ctl(L, EPOLL_CTL_MOD, fd, events, tag);
}

int gp_evloop_set(struct gp_evloop *L, int fd, uint32_t events, uint64_t tag)
{
    int rc = ctl(L, EPOLL_CTL_MOD, fd, events, tag);
    if (rc == -ENOENT)
        rc = ctl(L, EPOLL_CTL_ADD, fd, events, tag);
    return rc;
}

int gp_evloop_del(struct gp_evloop *L, int fd)
{
    return epoll_ctl(L->ep, EPOLL_CTL_DEL, fd, NULL) == 0 ? 0 : -errno;
}

int gp_evloop_wait_into(struct gp_evloop *L, struct epoll_event *evs, int max, uint64_t wait_ns)
{
    int n;
    if (L->pwait2) {
        struct timespec ts = {.tv_sec = (time_t)(wait_ns / 1000000000ull), .tv_nsec = (long)(wait_ns % 1000000000ull)};
        n = epoll_pwait2(L->ep, evs, max, wait_ns == UINT64_MAX ? NULL : &ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n < 0 && errno == EINTR ? 0 : n;
        L->pwait2 = 0;
    }
    int ms = -1;
    if (wait_ns != UINT64_MAX) {
        uint64_t m = (wait_ns + 999999ull) / 1000000ull;
        ms = m > 0x7fffffff ? 0x7fffffff : (int)m;
    }
    n = epoll_wait(L->ep, evs, max, ms);
    return n < 0 && errno == EINTR ? 0 : n;
}

int gp_evloop_wait(struct gp_evloop *L, uint64_t wait_ns)
{
    return gp_evloop_wait_into(L, L->ev, L->max_ev, wait_ns);
}

int gp_evloop_timer_add(struct gp_evloop *L, uint64_t t, uint64_t key, uint64_t arg)
{
    if (L->nheap == L->cap_heap) {
        size_t nc = L->cap_heap ? L->cap_heap * 2 : 1024;
        struct gp_timer *h = realloc(L->heap, nc * sizeof *h);
        if (!h)
            return -1;
        L->heap = h;
        L->cap_heap = nc;
    }
    timer_heap_push(L->heap, &L->nheap, (struct gp_timer){.t = t, .key = key, .arg = arg});
    return 0;
}

int gp_evloop_timer_due(struct gp_evloop *L, uint64_t now, struct gp_timer *out)
{
    if (!L->nheap || L->heap[0].t > now)
        return 0;
    *out = timer_heap_pop(L->heap, &L->nheap);
    return 1;
}
