/* tests/fake_nvml/fake_nvml.c — a stand-in libnvidia-ml.so for tests only.
 *
 * Built to build/tests-lib/libfake_nvml.so by src/telemetry/module.mk and
 * selected with GENPERF_NVML_LIB. It exports the NVML symbols genperf
 * resolves and answers with scripted values, so the sampler can be tested
 * on machines without a GPU. Knobs (environment, read at nvmlInit_v2):
 *   GENPERF_FAKE_NVML_INIT_FAIL=1   nvmlInit_v2 fails (NVML_ERROR_DRIVER_NOT_LOADED)
 *   GENPERF_FAKE_NVML_DEVICES=N     device count (default 1, 0 allowed)
 *   GENPERF_FAKE_NVML_FAIL_DEV=d    with FAIL_AFTER=N: device d answers
 *   GENPERF_FAKE_NVML_FAIL_AFTER=N  NVML_ERROR_GPU_IS_LOST from its N+1th power read on
 *   GENPERF_FAKE_NVML_NO_ENERGY=1   energy counter NOT_SUPPORTED
 *   GENPERF_FAKE_NVML_GLITCH_AT=N   every device's N+1th power read answers NVML_ERROR_UNKNOWN
 *                                   once (the sample index k does not advance)
 * Values for device d at its k-th sample (k = power reads so far, from 0):
 *   power 100+50d+10k W, limit 700 W, energy 1e6+500k J, gpu util min(100,20+10k) %,
 *   mem util 30+d %, memory 80 GiB total, (1+k) GiB used (v2; v1 adds the 512 MiB reserve), temp 40+d+k C, SM clock 1980-10d MHz,
 *   memory clock 2619-d MHz, encoder util 5+d %, decoder util 7+d %,
 *   power violation 1000+100k us (answered in ns), thermal violation 200k us,
 *   PCIe TX 1000+10k KB/s, RX 2000+d KB/s; field values (nvmlDeviceGetFieldValues):
 *   memory temp (82) 50+d+k C as uint, ECC SBE/DBE volatile (3,4) 3+d / 1 and
 *   aggregate (5,6) 30+d / 2 as ull, retired pages SBE/DBE (29,30) 4 / 5 as uint,
 *   NVLink CRC flit/data totals (38,45) 6 / 7 as ull, PCIe replay (94) 8+k as uint;
 *   any other field id answers NOT_SUPPORTED in its own nvmlReturn.
 *   GENPERF_FAKE_NVML_NO_MEM_V2=1   nvmlDeviceGetMemoryInfo_v2 answers FUNCTION_NOT_FOUND (a
 *                                   driver older than R510): genperf falls back to v1
 * Memory, like a real driver: 512 MiB reserved for the driver itself, which v1's "used"
 * counts and v2's does not (v2 = what nvidia-smi shows); v2 checks its struct version.
 *   GENPERF_FAKE_NVML_BASIC=1 leaves out every query past the first nine metrics
 *   (like an old driver), so the extras must simply be absent.
 * The static counters are this fake's own state, like the real library's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_MAX 16
#define FAKE_KEY 0x6e766d6cUL
#define FAKE_RESERVED (512ull << 20)

struct fake_dev { unsigned long key; int idx; };

static struct fake_dev devs[FAKE_MAX];
static unsigned calls[FAKE_MAX];
static int ndev = 1, inited, fail_dev = -1, no_energy, basic, no_mem_v2;
static long fail_after = -1, glitch_at = -1;
static int glitched[FAKE_MAX];

static long env_long(const char *name, long def)
{
    const char *s = getenv(name);
    return (s && *s) ? strtol(s, NULL, 10) : def;
}

int nvmlInit_v2(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int rc);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, struct fake_dev **out);
int nvmlDeviceGetName(struct fake_dev *d, char *buf, unsigned int len);
int nvmlDeviceGetPowerUsage(struct fake_dev *d, unsigned int *mw);
int nvmlDeviceGetEnforcedPowerLimit(struct fake_dev *d, unsigned int *mw);
int nvmlDeviceGetTotalEnergyConsumption(struct fake_dev *d, unsigned long long *mj);
struct fake_util { unsigned int gpu, memory; };
int nvmlDeviceGetUtilizationRates(struct fake_dev *d, struct fake_util *u);
struct fake_mem { unsigned long long total, free, used; };
int nvmlDeviceGetMemoryInfo(struct fake_dev *d, struct fake_mem *m);
struct fake_mem2 { unsigned int version; unsigned long long total, reserved, free, used; };
int nvmlDeviceGetMemoryInfo_v2(struct fake_dev *d, struct fake_mem2 *m);
int nvmlDeviceGetTemperature(struct fake_dev *d, int sensor, unsigned int *t);
int nvmlDeviceGetClockInfo(struct fake_dev *d, int type, unsigned int *mhz);
int nvmlDeviceGetEncoderUtilization(struct fake_dev *d, unsigned int *u, unsigned int *period_us);
int nvmlDeviceGetDecoderUtilization(struct fake_dev *d, unsigned int *u, unsigned int *period_us);
struct fake_violation { unsigned long long reference_time, violation_time; };
int nvmlDeviceGetViolationStatus(struct fake_dev *d, int policy, struct fake_violation *v);
int nvmlDeviceGetPcieThroughput(struct fake_dev *d, int counter, unsigned int *kbps);
struct fake_field {
    unsigned int field_id, scope_id;
    long long timestamp, latency_us;
    int value_type, nvml_return;
    union { double d; unsigned int ui; unsigned long long ull; } value;
};
int nvmlDeviceGetFieldValues(struct fake_dev *d, int count, struct fake_field *f);

int nvmlInit_v2(void)
{
    if (env_long("GENPERF_FAKE_NVML_INIT_FAIL", 0))
        return 9; /* NVML_ERROR_DRIVER_NOT_LOADED */
    ndev = (int)env_long("GENPERF_FAKE_NVML_DEVICES", 1);
    if (ndev < 0) ndev = 0;
    if (ndev > FAKE_MAX) ndev = FAKE_MAX;
    fail_dev = (int)env_long("GENPERF_FAKE_NVML_FAIL_DEV", -1);
    fail_after = env_long("GENPERF_FAKE_NVML_FAIL_AFTER", -1);
    no_energy = (int)env_long("GENPERF_FAKE_NVML_NO_ENERGY", 0);
    basic = (int)env_long("GENPERF_FAKE_NVML_BASIC", 0);
    no_mem_v2 = (int)env_long("GENPERF_FAKE_NVML_NO_MEM_V2", 0);
    glitch_at = env_long("GENPERF_FAKE_NVML_GLITCH_AT", -1);
    for (int i = 0; i < FAKE_MAX; i++) {
        devs[i].key = FAKE_KEY;
        devs[i].idx = i;
        calls[i] = 0;
        glitched[i] = 0;
    }
    inited = 1;
    return 0;
}

int nvmlShutdown(void)
{
    if (!inited)
        return 1; /* NVML_ERROR_UNINITIALIZED */
    inited = 0;
    return 0;
}

const char *nvmlErrorString(int rc)
{
    switch (rc) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 9: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    default: return "Unknown Error";
    }
}

static int valid(const struct fake_dev *d)
{
    return inited && d && d->key == FAKE_KEY && d->idx >= 0 && d->idx < ndev;
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
    if (!inited) return 1;
    *n = (unsigned)ndev;
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, struct fake_dev **out)
{
    if (!inited) return 1;
    if ((int)i >= ndev) return 2;
    *out = &devs[i];
    return 0;
}

int nvmlDeviceGetName(struct fake_dev *d, char *buf, unsigned int len)
{
    if (!valid(d)) return 2;
    snprintf(buf, len, "Fake GPU %d", d->idx);
    return 0;
}

/* k: index of the sample being taken (the power read counts them). */
static unsigned k_of(const struct fake_dev *d) { return calls[d->idx] ? calls[d->idx] - 1 : 0; }

int nvmlDeviceGetPowerUsage(struct fake_dev *d, unsigned int *mw)
{
    if (!valid(d)) return 2;
    if (d->idx == fail_dev && fail_after >= 0 && calls[d->idx] >= (unsigned long)fail_after)
        return 15; /* NVML_ERROR_GPU_IS_LOST */
    if (glitch_at >= 0 && calls[d->idx] == (unsigned long)glitch_at && !glitched[d->idx]) {
        glitched[d->idx] = 1;
        return 999; /* NVML_ERROR_UNKNOWN */
    }
    unsigned k = calls[d->idx]++;
    *mw = (100 + 50 * (unsigned)d->idx + 10 * k) * 1000;
    return 0;
}

int nvmlDeviceGetEnforcedPowerLimit(struct fake_dev *d, unsigned int *mw)
{
    if (!valid(d)) return 2;
    *mw = 700000;
    return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(struct fake_dev *d, unsigned long long *mj)
{
    if (!valid(d)) return 2;
    if (no_energy) return 3;
    *mj = 1000000000ull + 500000ull * k_of(d);
    return 0;
}

int nvmlDeviceGetUtilizationRates(struct fake_dev *d, struct fake_util *u)
{
    if (!valid(d)) return 2;
    unsigned g = 20 + 10 * k_of(d);
    u->gpu = g > 100 ? 100 : g;
    u->memory = 30 + (unsigned)d->idx;
    return 0;
}

int nvmlDeviceGetMemoryInfo(struct fake_dev *d, struct fake_mem *m)
{
    if (!valid(d)) return 2;
    m->total = 80ull << 30;
    m->used = ((1ull + k_of(d)) << 30) + FAKE_RESERVED;
    m->free = m->total - m->used;
    return 0;
}

int nvmlDeviceGetMemoryInfo_v2(struct fake_dev *d, struct fake_mem2 *m)
{
    if (!valid(d)) return 2;
    if (no_mem_v2) return 13;  /* NVML_ERROR_FUNCTION_NOT_FOUND */
    if (m->version != ((unsigned)sizeof *m | (2u << 24))) return 25;  /* ARGUMENT_VERSION_MISMATCH */
    m->total = 80ull << 30;
    m->reserved = FAKE_RESERVED;
    m->used = (1ull + k_of(d)) << 30;
    m->free = m->total - m->reserved - m->used;
    return 0;
}

int nvmlDeviceGetTemperature(struct fake_dev *d, int sensor, unsigned int *t)
{
    if (!valid(d) || sensor != 0) return 2;
    *t = 40 + (unsigned)d->idx + k_of(d);
    return 0;
}

int nvmlDeviceGetClockInfo(struct fake_dev *d, int type, unsigned int *mhz)
{
    if (!valid(d) || (type != 1 && type != 2)) return 2;
    if (type == 2 && basic) return 3;
    *mhz = type == 1 ? 1980 - 10 * (unsigned)d->idx : 2619 - (unsigned)d->idx;
    return 0;
}

/* The extras below answer NOT_SUPPORTED under GENPERF_FAKE_NVML_BASIC. */
int nvmlDeviceGetEncoderUtilization(struct fake_dev *d, unsigned int *u, unsigned int *period_us)
{
    if (!valid(d)) return 2;
    if (basic) return 3;
    *u = 5 + (unsigned)d->idx;
    *period_us = 167000;
    return 0;
}

int nvmlDeviceGetDecoderUtilization(struct fake_dev *d, unsigned int *u, unsigned int *period_us)
{
    if (!valid(d)) return 2;
    if (basic) return 3;
    *u = 7 + (unsigned)d->idx;
    *period_us = 167000;
    return 0;
}

int nvmlDeviceGetViolationStatus(struct fake_dev *d, int policy, struct fake_violation *v)
{
    if (!valid(d) || (policy != 0 && policy != 1)) return 2;
    if (basic) return 3;
    v->reference_time = 1700000000000000ull;
    v->violation_time = policy == 0 ? (1000ull + 100ull * k_of(d)) * 1000ull : 200ull * k_of(d) * 1000ull;
    return 0;
}

int nvmlDeviceGetPcieThroughput(struct fake_dev *d, int counter, unsigned int *kbps)
{
    if (!valid(d) || (counter != 0 && counter != 1)) return 2;
    if (basic) return 3;
    *kbps = counter == 0 ? 1000 + 10 * k_of(d) : 2000 + (unsigned)d->idx;
    return 0;
}

int nvmlDeviceGetFieldValues(struct fake_dev *d, int count, struct fake_field *f)
{
    if (!valid(d) || count < 0 || (count && !f)) return 2;
    if (basic) return 3;
    unsigned di = (unsigned)d->idx, k = k_of(d);
    for (int i = 0; i < count; i++) {
        f[i].nvml_return = 0;
        f[i].value_type = 1; /* unsigned int */
        switch (f[i].field_id) {
        case 82: f[i].value.ui = 50 + di + k; break;
        case 3: f[i].value_type = 3; f[i].value.ull = 3 + di; break;
        case 4: f[i].value_type = 3; f[i].value.ull = 1; break;
        case 5: f[i].value_type = 3; f[i].value.ull = 30 + di; break;
        case 6: f[i].value_type = 3; f[i].value.ull = 2; break;
        case 29: f[i].value.ui = 4; break;
        case 30: f[i].value.ui = 5; break;
        case 38: f[i].value_type = 3; f[i].value.ull = 6; break;
        case 45: f[i].value_type = 3; f[i].value.ull = 7; break;
        case 94: f[i].value.ui = 8 + k; break;
        default: f[i].nvml_return = 3; break;
        }
    }
    return 0;
}
