/* telemetry/host.h — host CPU, load and memory from /proc, and genperf's own CPU.
 *
 * Owns: struct gp_host (the open /proc file descriptors, one read buffer and
 * the previous CPU counters needed for rates). Nothing is allocated per
 * sample: each file is re-read with pread(fd, buf, .., 0) into the same
 * buffer. The parse functions are pure (text in, numbers out) so the unit
 * tests can feed them fixtures.
 */
#ifndef GP_TELEMETRY_HOST_H
#define GP_TELEMETRY_HOST_H

#include <stddef.h>
#include <stdint.h>

struct gp_host_cpu {
    uint64_t total, idle;  /* jiffies: all states (excluding guest), idle+iowait */
    int valid;
};

struct gp_host {
    int fd_stat, fd_loadavg, fd_meminfo;
    char *buf;
    size_t bufsz;
    int maxcpu;                 /* size of prev[] */
    struct gp_host_cpu prev_all;
    struct gp_host_cpu *prev;   /* per core, indexed by N of "cpuN" */
    struct gp_host_cpu *cur;
    uint64_t prev_proc_cpu_ns, prev_proc_ns;  /* CLOCK_PROCESS_CPUTIME_ID, CLOCK_MONOTONIC */
    int have_proc;
};

/* Shortest window genperf's cpu_pct is computed over; a shorter one (a sample
 * right after open) adds nothing and keeps the baseline for the next. */
#define GP_HOST_PROC_MIN_WINDOW_NS 1000000ull

/* Called once per value: kind is enum gp_tm_device_kind, metric enum gp_tm_metric. */
typedef void (*gp_host_emit_fn)(void *ctx, int kind, int index, int metric, double value);

/* Opens /proc/{stat,loadavg,meminfo} and reads the first CPU
 * counters (so the first sample already has a rate if time has passed).
 * -1 with reason if /proc/stat cannot be read. */
int gp_host_open(struct gp_host *h, char *reason, size_t reasonsz);
void gp_host_close(struct gp_host *h);
/* Emits host cpu_util_pct (when a rate is computable), load1, mem_used_bytes,
 * mem_available_bytes, per-core cpu_util_pct and genperf cpu_pct. now_ns is
 * CLOCK_MONOTONIC. Returns the number of values emitted. */
int gp_host_sample(struct gp_host *h, uint64_t now_ns, gp_host_emit_fn emit, void *ctx);

/* Parses /proc/stat: the aggregate "cpu" line into *all and "cpuN" lines into
 * cpus[N] for N < maxcpu (valid set). Returns the number of cpuN lines, -1 if
 * there is no aggregate line. */
int gp_host_parse_stat(const char *text, struct gp_host_cpu *all, struct gp_host_cpu *cpus,
                       int maxcpu);
/* Utilisation % between two readings; -1 when no time passed or the
 * counters went backwards. */
double gp_host_cpu_util(const struct gp_host_cpu *prev, const struct gp_host_cpu *cur);
int gp_host_parse_loadavg(const char *text, double *load1);
/* MemTotal and MemAvailable in bytes; -1 if either is missing. */
int gp_host_parse_meminfo(const char *text, uint64_t *total, uint64_t *avail);
/* genperf's CPU % (100 = one core) from CPU time cpu0 -> cpu1 over the
 * monotonic window t0 -> t1 (ns); -1 when the window is shorter than
 * GP_HOST_PROC_MIN_WINDOW_NS or a counter went backwards. */
double gp_host_proc_pct(uint64_t cpu0, uint64_t t0, uint64_t cpu1, uint64_t t1);

#endif
