/* telemetry/host.c — /proc readers (see host.h). */
#include "telemetry/host.h"
#include "telemetry/telemetry.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"

/* /proc/stat carries a long "intr" line after the cpu lines; 256 KiB holds
 * the cpu lines of any machine we will meet (about 100 bytes per core). */
#define HOST_BUFSZ (256 * 1024)

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static int parse_cpu_fields(const char *p, struct gp_host_cpu *c)
{
    /* user nice system idle iowait irq softirq steal guest guest_nice;
     * guest time is already counted in user, so only the first 8 count. */
    uint64_t v[8] = {0};
    int n = 0;
    while (n < 8) {
        p = skip_ws(p);
        if (!isdigit((unsigned char)*p))
            break;
        char *end;
        v[n++] = strtoull(p, &end, 10);
        p = end;
    }
    if (n < 4)
        return -1;
    c->total = 0;
    for (int i = 0; i < n; i++)
        c->total += v[i];
    c->idle = v[3] + (n > 4 ? v[4] : 0);
    c->valid = 1;
    return 0;
}

int gp_host_parse_stat(const char *text, struct gp_host_cpu *all, struct gp_host_cpu *cpus,
                       int maxcpu)
{
    int have_all = 0, ncores = 0;
    for (int i = 0; i < maxcpu; i++)
        cpus[i].valid = 0;
    const char *line = text;
    while (line && *line) {
        const char *nl = strchr(line, '\n');
        if (strncmp(line, "cpu", 3) == 0) {
            const char *p = line + 3;
            if (*p == ' ') {
                if (parse_cpu_fields(p, all) == 0)
                    have_all = 1;
            } else if (isdigit((unsigned char)*p)) {
                char *end;
                long idx = strtol(p, &end, 10);
                struct gp_host_cpu c;
                if (*end == ' ' && parse_cpu_fields(end, &c) == 0) {
                    ncores++;
                    if (idx >= 0 && idx < maxcpu)
                        cpus[idx] = c;
                }
            }
        } else if (have_all) {
            break; /* the cpu lines come first; the rest is not ours */
        }
        line = nl ? nl + 1 : NULL;
    }
    return have_all ? ncores : -1;
}

double gp_host_cpu_util(const struct gp_host_cpu *prev, const struct gp_host_cpu *cur)
{
    if (!prev->valid || !cur->valid || cur->total <= prev->total)
        return -1;
    uint64_t dt = cur->total - prev->total;
    /* iowait may step backwards on some kernels; treat that as no idle. */
    uint64_t di = cur->idle >= prev->idle ? cur->idle - prev->idle : 0;
    if (di > dt)
        di = dt;
    return 100.0 * (double)(dt - di) / (double)dt;
}

int gp_host_parse_loadavg(const char *text, double *load1)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text)
        return -1;
    *load1 = v;
    return 0;
}

static int meminfo_field(const char *text, const char *key, uint64_t *out)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p;) {
        if (strncmp(p, key, kl) == 0 && p[kl] == ':') {
            char *end;
            unsigned long long v = strtoull(p + kl + 1, &end, 10);
            if (end == p + kl + 1)
                return -1;
            *out = (uint64_t)v * 1024u; /* the kernel writes kB = KiB */
            return 0;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return -1;
}

int gp_host_parse_meminfo(const char *text, uint64_t *total, uint64_t *avail)
{
    if (meminfo_field(text, "MemTotal", total) || meminfo_field(text, "MemAvailable", avail))
        return -1;
    return 0;
}

/* genperf's own CPU comes from CLOCK_PROCESS_CPUTIME_ID, not /proc/self/stat:
 * the latter counts in clock ticks (10 ms), and the kernel may move a whole
 * batch of them into view at once, so a short window divided a tick count by
 * microseconds. On an H200 machine the first sample (taken 43 us after open,
 * with NVML's start-up CPU landing in between) read 230,335 % of a core. The
 * process clock counts every thread, exactly. */
static int proc_cpu_ns(uint64_t *out)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return -1;
    *out = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    return 0;
}

double gp_host_proc_pct(uint64_t cpu0, uint64_t t0, uint64_t cpu1, uint64_t t1)
{
    if (t1 < t0 || t1 - t0 < GP_HOST_PROC_MIN_WINDOW_NS || cpu1 < cpu0)
        return -1;
    return 100.0 * (double)(cpu1 - cpu0) / (double)(t1 - t0);
}

/* Reads the whole (small) /proc file at fd into h->buf; NULL on failure. */
static const char *slurp(struct gp_host *h, int fd)
{
    if (fd < 0)
        return NULL;
    size_t off = 0;
    for (;;) {
        ssize_t r = pread(fd, h->buf + off, h->bufsz - 1 - off, (off_t)off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return NULL;
        }
        if (r == 0)
            break;
        off += (size_t)r;
        if (off >= h->bufsz - 1)
            break;
    }
    h->buf[off] = '\0';
    return h->buf;
}

int gp_host_open(struct gp_host *h, char *reason, size_t reasonsz)
{
    memset(h, 0, sizeof *h);
    h->fd_stat = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    h->fd_loadavg = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    h->fd_meminfo = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
    long nconf = sysconf(_SC_NPROCESSORS_CONF);
    h->maxcpu = (int)(nconf > 0 ? (nconf < 4096 ? nconf : 4096) : 1);
    h->bufsz = HOST_BUFSZ;
    h->buf = malloc(h->bufsz);
    h->prev = calloc((size_t)h->maxcpu, sizeof *h->prev);
    h->cur = calloc((size_t)h->maxcpu, sizeof *h->cur);
    if (!h->buf || !h->prev || !h->cur) {
        snprintf(reason, reasonsz, "out of memory");
        gp_host_close(h);
        return -1;
    }
    const char *txt = slurp(h, h->fd_stat);
    if (!txt || gp_host_parse_stat(txt, &h->prev_all, h->prev, h->maxcpu) < 0) {
        snprintf(reason, reasonsz, "cannot read /proc/stat (%s); host telemetry needs Linux /proc",
                 strerror(errno ? errno : ENOENT));
        gp_host_close(h);
        return -1;
    }
    if (proc_cpu_ns(&h->prev_proc_cpu_ns) == 0) {
        h->prev_proc_ns = gp_now_ns();
        h->have_proc = 1;
    }
    return 0;
}

void gp_host_close(struct gp_host *h)
{
    int *fds[] = {&h->fd_stat, &h->fd_loadavg, &h->fd_meminfo};
    for (size_t i = 0; i < 3; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
    free(h->buf);
    free(h->prev);
    free(h->cur);
    h->buf = NULL;
    h->prev = h->cur = NULL;
}

int gp_host_sample(struct gp_host *h, uint64_t now_ns, gp_host_emit_fn emit, void *ctx)
{
    int n = 0;
    const char *txt = slurp(h, h->fd_stat);
    struct gp_host_cpu all = {0, 0, 0};
    if (txt && gp_host_parse_stat(txt, &all, h->cur, h->maxcpu) >= 0) {
        double u = gp_host_cpu_util(&h->prev_all, &all);
        if (u >= 0) {
            emit(ctx, GP_TD_HOST, 0, GP_TM_CPU_UTIL_PCT, u);
            n++;
            h->prev_all = all;
        } else if (!h->prev_all.valid || all.total < h->prev_all.total) {
            h->prev_all = all;
        }
        for (int i = 0; i < h->maxcpu; i++) {
            double c = gp_host_cpu_util(&h->prev[i], &h->cur[i]);
            if (c >= 0) {
                emit(ctx, GP_TD_CPU, i, GP_TM_CPU_UTIL_PCT, c);
                n++;
                h->prev[i] = h->cur[i];
            } else if (!h->prev[i].valid || !h->cur[i].valid || h->cur[i].total < h->prev[i].total) {
                /* offline core or first reading: restart its baseline */
                h->prev[i] = h->cur[i];
            }
        }
    }
    double l1;
    if ((txt = slurp(h, h->fd_loadavg)) && gp_host_parse_loadavg(txt, &l1) == 0) {
        emit(ctx, GP_TD_HOST, 0, GP_TM_LOAD1, l1);
        n++;
    }
    uint64_t tot, av;
    if ((txt = slurp(h, h->fd_meminfo)) && gp_host_parse_meminfo(txt, &tot, &av) == 0) {
        emit(ctx, GP_TD_HOST, 0, GP_TM_HOST_MEM_USED_BYTES, (double)(tot > av ? tot - av : 0));
        emit(ctx, GP_TD_HOST, 0, GP_TM_HOST_MEM_AVAILABLE_BYTES, (double)av);
        n += 2;
    }
    uint64_t cpu;
    if (proc_cpu_ns(&cpu) == 0) {
        double pct = h->have_proc ? gp_host_proc_pct(h->prev_proc_cpu_ns, h->prev_proc_ns, cpu, now_ns) : -1;
        if (pct >= 0) {
            emit(ctx, GP_TD_GENPERF, 0, GP_TM_PROC_CPU_PCT, pct);
            n++;
        }
        /* a window too short keeps its baseline; one that went backwards (a
         * caller's now_ns older than open) restarts it */
        if (pct >= 0 || !h->have_proc || now_ns < h->prev_proc_ns || cpu < h->prev_proc_cpu_ns) {
            h->prev_proc_cpu_ns = cpu;
            h->prev_proc_ns = now_ns;
            h->have_proc = 1;
        }
    }
    return n;
}
