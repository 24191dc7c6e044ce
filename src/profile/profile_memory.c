/* profile/profile_memory.c — --max-memory: the size syntax, and the run's
 * memory budget (client/record.h struct gp_record_budget) from it or from
 * the memory available when the run starts.
 *
 * Why a budget: the record store keeps every byte of every response (the
 * artifacts need them), so against a fast server it grows without bound
 * (issue 26: 40 s of `serve --zero-delay` = 913k requests, 7.4 GB RSS) and a
 * few minutes later the kernel's OOM killer ends the run with nothing
 * written. With a budget the run stops sending first, and the metrics and
 * artifacts of everything measured still fit (the store charges their share
 * per record and chunk, record.h).
 * Owns nothing beyond each call.
 */
#include "client/record.h"
#include "core/error.h"
#include "profile/profile_config.h"
#include "profile/profile_int.h"
#include "telemetry/host.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MIB (1ull << 20)
/* below this a default budget would stop almost every run at once; a host
 * with less free still gets a run, and the kernel decides */
#define DEFAULT_FLOOR (256ull * MIB)

int gp_profile_parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    double v = strtod(s, &end);
    if (errno || end == s || !(v >= 0))
        return -1;
    double mul = 1;
    const char *u = "KMGT", *q = *end ? strchr(u, toupper((unsigned char)*end)) : NULL;
    if (q) {
        mul = ldexp(1.0, 10 * (int)(q - u + 1));
        end++;
        if (*end == 'i' || *end == 'I')
            end++;
        if (*end == 'B' || *end == 'b')
            end++;
    } else if (*end == 'B' || *end == 'b') {
        end++;
    }
    if (*end || v * mul >= 18e18)
        return -1;
    *out = (uint64_t)(v * mul);
    return 0;
}

int gp_profile_copy_max_memory(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen)
        return 0;
    uint64_t v;
    if (gp_profile_parse_size(rv->s, &v) || v < MIB)
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "--max-memory '%s': pass a size of at least 1M, in bytes or with K, M, G or T "
                                     "(powers of 1024), e.g. 300M or 4G",
                                     rv->s);
    cfg->max_memory = v;
    return 0;
}

/* The first number in a small /proc or /sys file; -1 when absent or "max". */
static int read_u64(const char *path, uint64_t *v)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    unsigned long long x;
    int ok = fscanf(f, "%llu", &x) == 1;
    fclose(f);
    if (!ok)
        return -1;
    *v = x;
    return 0;
}

/* What this process and its cgroup may still take: MemAvailable, or less
 * when the cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes, read at
 * the cgroup mount as a container sees it) leaves less room than that. */
static uint64_t available_now(void)
{
    char text[8192];
    uint64_t total = 0, avail = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    if (gp_host_parse_meminfo(text, &total, &avail))
        avail = 0;
    static const char *const lim[] = {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    static const char *const use[] = {"/sys/fs/cgroup/memory.current", "/sys/fs/cgroup/memory/memory.usage_in_bytes"};
    for (int i = 0; i < 2; i++) {
        uint64_t l, u;
        if (read_u64(lim[i], &l) || read_u64(use[i], &u) || (total && l >= total))
            continue; /* none, "max", or no lower than the host's memory */
        uint64_t room = l > u ? l - u : 0;
        if (!avail || room < avail)
            avail = room;
    }
    return avail;
}

/* This process's resident memory now (/proc/self/statm), 0 if unknown. */
static uint64_t rss_now(void)
{
    unsigned long long size, res;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    int ok = fscanf(f, "%llu %llu", &size, &res) == 2;
    fclose(f);
    return ok ? (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

void gp_profile_memory_budget(const struct profile_config *cfg, struct gp_record_budget *b, uint64_t *total)
{
    uint64_t base = rss_now();
    uint64_t t = cfg->max_memory;
    if (!t) {
        uint64_t room = available_now() / 4 * 3;
        t = base + (room > DEFAULT_FLOOR ? room : DEFAULT_FLOOR);
    }
    *total = t;
    /* Besides the charged records: the store's prefault helper keeps up to
     * an eighth of the store, 4 to 16 MiB, populated ahead of the append
     * point (per worker, until the run ends), and the export's writers hold
     * buffers of their own while the metrics run (measured: 8 MiB with
     * --workers 2). Left out of the limit so the peak RSS stays under t. */
    uint64_t keep = base + 8 * MIB + 8 * MIB * (uint64_t)(cfg->workers > 1 ? cfg->workers : 1);
    if (t < keep + MIB)
        fprintf(stderr,
                "genperf: warning: --max-memory %.1f MiB leaves no room for records: genperf already holds %.1f MiB "
                "(tokenizer, dataset) and needs %.0f MiB more for its buffers; the run stops after its first "
                "requests\n",
                (double)t / (double)MIB, (double)base / (double)MIB, (double)(keep - base) / (double)MIB);
    b->limit = t > keep + MIB ? t - keep : MIB;
    b->hard = b->limit + b->limit / 8;
    atomic_store(&b->charged, 0);
}
