/* bench/page_cost.c — what a fresh page costs on this host: maps 64 MiB of
 * anonymous memory and populates it (MADV_POPULATE_WRITE, 256 KiB a call, as
 * the record store's helper does), three times, and prints GB/s.
 *
 * Why: on the shared build VM the kernel's page zeroing (clear_page_erms) is
 * the largest single cost in several client profiles (non-streaming, mpirun
 * ranks, post-processing), far above what the bytes involved suggest. This
 * says whether the host itself is slow to hand out memory (a VM backing
 * guest pages on first touch: 0.2-0.7 GB/s measured here on 2026-12-03)
 * rather than genperf touching too much of it. Bare metal zeroes at 5-15 GB/s.
 * Build and run: bash bench/page_cost_bench.sh
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
    const size_t n = (size_t)64 << 20, step = (size_t)256 << 10;
    for (int k = 0; k < 3; k++) {
        char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        double t = now_s();
        for (size_t o = 0; o < n; o += step)
            if (madvise(p + o, step, MADV_POPULATE_WRITE)) {
                perror("madvise(MADV_POPULATE_WRITE)");
                return 1;
            }
        double d = now_s() - t;
        printf("round %d: populated 64 MiB in %.1f ms = %.2f GB/s\n", k + 1, d * 1e3, (double)n / d / 1e9);
        printf("RESULT|page_cost|fresh anonymous pages populated, round %d|%.2f|GB/s|-|-\n", k + 1,
               (double)n / d / 1e9);
        munmap(p, n);
    }
    return 0;
}
