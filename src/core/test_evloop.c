/* Unit tests: core/evloop.h — tags come back with their events, add/mod/set/
 * del keep epoll's rules, a wait ends at its timeout (not before), timers come
 * out due-time first with ties in the heap's fixed order, and
 * gp_deadline_cap only ever lowers a wait. */
#include "core/clock.h"
#include "core/error.h"
#include "core/evloop.h"
#include "core/test.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

static void test_tags_and_ctl(void)
{
    struct gp_evloop L;
    struct gp_error err = {0};
    CHECK(gp_evloop_init(&L, 4, &err) == 0);
    int p[2], q[2];
    CHECK(pipe(p) == 0 && pipe(q) == 0);
    CHECK(gp_evloop_add(&L, p[0], EPOLLIN, 0x1234567890ull) == 0);
    CHECK(gp_evloop_add(&L, p[0], EPOLLIN, 1) == -EEXIST);
    CHECK(gp_evloop_mod(&L, q[0], EPOLLIN, 2) == -ENOENT);
    CHECK(gp_evloop_set(&L, q[0], EPOLLIN, 0xfeedull << 32 | 7) == 0); /* add */
    CHECK(gp_evloop_wait(&L, 0) == 0);                                 /* nothing readable */
    CHECK(write(q[1], "x", 1) == 1);
    int n = gp_evloop_wait(&L, 1000000000ull);
    CHECK(n == 1);
    CHECK(n == 1 && L.ev[0].data.u64 == (0xfeedull << 32 | 7) && (L.ev[0].events & EPOLLIN));
    CHECK(gp_evloop_set(&L, q[0], EPOLLIN, 9) == 0); /* mod: the new tag is reported */
    struct epoll_event mine[2];
    n = gp_evloop_wait_into(&L, mine, 2, 0);
    CHECK(n == 1 && mine[0].data.u64 == 9);
    CHECK(gp_evloop_del(&L, q[0]) == 0);
    CHECK(gp_evloop_del(&L, q[0]) == -ENOENT);
    CHECK(gp_evloop_wait(&L, 0) == 0); /* q still readable, but no longer watched */
    CHECK(write(p[1], "y", 1) == 1);
    n = gp_evloop_wait(&L, UINT64_MAX); /* no limit: returns because p is readable */
    CHECK(n == 1 && L.ev[0].data.u64 == 0x1234567890ull);
    close(p[0]), close(p[1]), close(q[0]), close(q[1]);
    gp_evloop_free(&L);
    gp_evloop_free(&L); /* twice is harmless */
}

/* A wait with nothing ready lasts at least its timeout (the loops rely on
 * not waking early: they would spin). */
static void test_wait_timeout(void)
{
    struct gp_evloop L;
    struct gp_error err = {0};
    CHECK(gp_evloop_init(&L, 1, &err) == 0);
    uint64_t t0 = gp_now_ns();
    CHECK(gp_evloop_wait(&L, 3000000ull) == 0);
    CHECK(gp_now_ns() - t0 >= 3000000ull);
    L.pwait2 = 0; /* the millisecond fallback rounds up */
    t0 = gp_now_ns();
    CHECK(gp_evloop_wait(&L, 1500000ull) == 0);
    CHECK(gp_now_ns() - t0 >= 1500000ull);
    gp_evloop_free(&L);
}

static void test_timers(void)
{
    struct gp_evloop L;
    struct gp_error err = {0};
    CHECK(gp_evloop_init(&L, 1, &err) == 0);
    CHECK(gp_evloop_timer_next(&L) == 0);
    struct gp_timer t;
    CHECK(gp_evloop_timer_due(&L, UINT64_MAX, &t) == 0);
    /* the keys of core/test_heap.c's tie test: the same fixed order */
    static const uint64_t due[8] = {3, 1, 3, 1, 2, 1, 3, 2};
    for (uint64_t i = 0; i < 8; i++)
        CHECK(gp_evloop_timer_add(&L, due[i] * 100, i, i * 10) == 0);
    CHECK(gp_evloop_timer_next(&L) == 100);
    CHECK(gp_evloop_timer_due(&L, 99, &t) == 0); /* nothing due yet */
    static const uint64_t want[8] = {1, 3, 5, 7, 4, 0, 6, 2};
    int k = 0;
    while (gp_evloop_timer_due(&L, 250, &t)) { /* due 100 and 200 only */
        CHECK(t.key == want[k] && t.arg == want[k] * 10);
        k++;
    }
    CHECK(k == 5);
    CHECK(gp_evloop_timer_next(&L) == 300);
    while (gp_evloop_timer_due(&L, 300, &t)) {
        CHECK(k < 8 && t.key == want[k]);
        k++;
    }
    CHECK(k == 8 && L.nheap == 0);
    /* growth past the first allocation */
    for (uint64_t i = 0; i < 5000; i++)
        CHECK(gp_evloop_timer_add(&L, 5000 - i, i, 0) == 0);
    uint64_t prev = 0;
    int bad = 0;
    while (gp_evloop_timer_due(&L, UINT64_MAX, &t)) {
        bad += t.t < prev;
        prev = t.t;
    }
    CHECK(bad == 0 && prev == 5000);
    gp_evloop_free(&L);
}

static void test_deadline_cap(void)
{
    uint64_t w = 100;
    gp_deadline_cap(&w, 1000, 0); /* none */
    CHECK(w == 100);
    gp_deadline_cap(&w, 1000, 1050);
    CHECK(w == 50);
    gp_deadline_cap(&w, 1000, 2000); /* later: no change */
    CHECK(w == 50);
    gp_deadline_cap(&w, 1000, 900); /* passed: do not sleep */
    CHECK(w == 0);
    w = UINT64_MAX;
    gp_deadline_cap(&w, 5, 5);
    CHECK(w == 0);
}

int main(void)
{
    GP_RUN(test_tags_and_ctl);
    GP_RUN(test_wait_timeout);
    GP_RUN(test_timers);
    GP_RUN(test_deadline_cap);
    return gp_test_summary();
}
