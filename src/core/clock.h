/* core/clock.h — the two clocks genperf uses.
 *
 * Every interval is measured with CLOCK_MONOTONIC nanoseconds (gp_now_ns).
 * CLOCK_REALTIME (gp_wall_ns) is read once per run to label artifacts; wall
 * timestamps in exports are derived as wall0 + (mono - mono0) so that they
 * never jump when NTP steps the clock. The one other reader is the h1
 * client, which moves the kernel's CLOCK_REALTIME receive stamps onto
 * CLOCK_MONOTONIC by the two clocks' offset at that moment.
 */
#ifndef GP_CORE_CLOCK_H
#define GP_CORE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t gp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t gp_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
