/* telemetry/nvml.c — dlopen'd NVML (see nvml.h). */
#include "telemetry/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Our declarations of NVML's ABI. nvmlDevice_t is an opaque pointer;
 * enums are passed as int (NVML's enums are plain C enums). */
typedef int gp_nvmlReturn;
typedef struct gp_nvmlDevice_st *gp_nvmlDevice;
struct gp_nvmlUtilization { unsigned int gpu, memory; };
struct gp_nvmlMemory { unsigned long long total, free, used; };
/* nvmlMemory_v2_t. v1's "used" includes the memory the driver reserves for
 * itself (about 650 MiB on an H200, driver 580): an idle GPU read 1.5 GiB used
 * where nvidia-smi, and DCGM's FB_USED that GenAI-Perf reports, said 0.9. v2
 * (drivers from R510) gives "used" without the reserve; v1 is the fallback. */
struct gp_nvmlMemory_v2 { unsigned int version; unsigned long long total, reserved, free, used; };
#define GP_NVML_MEMORY_V2 ((unsigned int)(sizeof(struct gp_nvmlMemory_v2) | (2u << 24)))
struct gp_nvmlViolationTime { unsigned long long reference_time, violation_time; };  /* us, ns */
/* nvmlFieldValue_t: 40 bytes; value is a union read as valueType says. */
struct gp_nvmlFieldValue {
    unsigned int field_id, scope_id;
    long long timestamp, latency_us;
    int value_type;   /* 0 double, 1 uint, 2 ulong, 3 ull, 4 sll, 5 int, 6 ushort */
    gp_nvmlReturn nvml_return;
    union { double d; unsigned int ui; unsigned long ul; unsigned long long ull; long long sll;
            int si; unsigned short us; } value;
};
enum { GP_NVML_TEMPERATURE_GPU = 0, GP_NVML_CLOCK_SM = 1, GP_NVML_CLOCK_MEM = 2,
       GP_NVML_PERF_POLICY_POWER = 0, GP_NVML_PERF_POLICY_THERMAL = 1,
       GP_NVML_PCIE_UTIL_TX_BYTES = 0, GP_NVML_PCIE_UTIL_RX_BYTES = 1 };

/* nvmlDeviceGetFieldValues ids (NVML_FI_DEV_*) and the metric each feeds. */
static const struct { unsigned int id; int metric; } nv_fields[] = {
    {82, GP_TM_MEM_TEMP_C},        /* MEMORY_TEMP */
    {3, GP_TM_ECC_SBE_VOL},        /* ECC_SBE_VOL_TOTAL */
    {4, GP_TM_ECC_DBE_VOL},        /* ECC_DBE_VOL_TOTAL */
    {5, GP_TM_ECC_SBE_AGG},        /* ECC_SBE_AGG_TOTAL */
    {6, GP_TM_ECC_DBE_AGG},        /* ECC_DBE_AGG_TOTAL */
    {29, GP_TM_RETIRED_SBE},       /* RETIRED_SBE */
    {30, GP_TM_RETIRED_DBE},       /* RETIRED_DBE */
    {38, GP_TM_NVLINK_CRC_FLIT},   /* NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL */
    {45, GP_TM_NVLINK_CRC_DATA},   /* NVLINK_CRC_DATA_ERROR_COUNT_TOTAL */
    {94, GP_TM_PCIE_REPLAY},       /* PCIE_REPLAY_COUNTER */
};
#define NV_NFIELDS (sizeof nv_fields / sizeof nv_fields[0])

struct gp_nvml {
    void *dl;
    gp_nvmlReturn (*init)(void);
    gp_nvmlReturn (*shutdown)(void);
    const char *(*error_string)(gp_nvmlReturn);
    gp_nvmlReturn (*get_count)(unsigned int *);
    gp_nvmlReturn (*get_handle)(unsigned int, gp_nvmlDevice *);
    gp_nvmlReturn (*get_name)(gp_nvmlDevice, char *, unsigned int);
    gp_nvmlReturn (*power_usage)(gp_nvmlDevice, unsigned int *);
    gp_nvmlReturn (*power_limit)(gp_nvmlDevice, unsigned int *);
    gp_nvmlReturn (*energy)(gp_nvmlDevice, unsigned long long *);
    gp_nvmlReturn (*utilization)(gp_nvmlDevice, struct gp_nvmlUtilization *);
    gp_nvmlReturn (*memory)(gp_nvmlDevice, struct gp_nvmlMemory *);
    gp_nvmlReturn (*memory_v2)(gp_nvmlDevice, struct gp_nvmlMemory_v2 *);
    int memory_v2_off;  /* v2 answered "not here": v1 from then on */
    gp_nvmlReturn (*temperature)(gp_nvmlDevice, int, unsigned int *);
    gp_nvmlReturn (*clock)(gp_nvmlDevice, int, unsigned int *);
    gp_nvmlReturn (*enc_util)(gp_nvmlDevice, unsigned int *, unsigned int *);
    gp_nvmlReturn (*dec_util)(gp_nvmlDevice, unsigned int *, unsigned int *);
    gp_nvmlReturn (*violation)(gp_nvmlDevice, int, struct gp_nvmlViolationTime *);
    gp_nvmlReturn (*pcie_tput)(gp_nvmlDevice, int, unsigned int *);
    gp_nvmlReturn (*fields)(gp_nvmlDevice, int, struct gp_nvmlFieldValue *);
    int ndev;
    gp_nvmlDevice dev[GP_NVML_MAX_DEV];
    char names[GP_NVML_MAX_DEV][96];
};

static const char *nv_errstr(const struct gp_nvml *nv, gp_nvmlReturn rc)
{
    const char *s = nv->error_string ? nv->error_string(rc) : NULL;
    return s ? s : "unknown NVML error";
}

/* dlsym into a function pointer without the object/function pointer
 * conversion warning: POSIX guarantees the representation is the same. */
static int sym(void *dl, const char *name, void *slot)
{
    void *p = dlsym(dl, name);
    if (!p)
        return -1;
    memcpy(slot, &p, sizeof p);
    return 0;
}

int gp_nvml_open(const char *path, struct gp_nvml **out, char *reason, size_t reasonsz)
{
    *out = NULL;
    struct gp_nvml *nv = calloc(1, sizeof *nv);
    if (!nv) {
        snprintf(reason, reasonsz, "out of memory loading NVML");
        return -1;
    }
    nv->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!nv->dl) {
        const char *e = dlerror();
        snprintf(reason, reasonsz, "NVML library '%s' not loadable (%s); install the NVIDIA driver "
                 "or set GENPERF_NVML_LIB", path, e ? e : "dlopen failed");
        free(nv);
        return -1;
    }
    struct { const char *name; void *slot; int required; } syms[] = {
        {"nvmlInit_v2", &nv->init, 1},
        {"nvmlShutdown", &nv->shutdown, 1},
        {"nvmlErrorString", &nv->error_string, 0},
        {"nvmlDeviceGetCount_v2", &nv->get_count, 1},
        {"nvmlDeviceGetHandleByIndex_v2", &nv->get_handle, 1},
        {"nvmlDeviceGetName", &nv->get_name, 0},
        {"nvmlDeviceGetPowerUsage", &nv->power_usage, 0},
        {"nvmlDeviceGetEnforcedPowerLimit", &nv->power_limit, 0},
        {"nvmlDeviceGetTotalEnergyConsumption", &nv->energy, 0},
        {"nvmlDeviceGetUtilizationRates", &nv->utilization, 0},
        {"nvmlDeviceGetMemoryInfo", &nv->memory, 0},
        {"nvmlDeviceGetMemoryInfo_v2", &nv->memory_v2, 0},
        {"nvmlDeviceGetTemperature", &nv->temperature, 0},
        {"nvmlDeviceGetClockInfo", &nv->clock, 0},
        {"nvmlDeviceGetEncoderUtilization", &nv->enc_util, 0},
        {"nvmlDeviceGetDecoderUtilization", &nv->dec_util, 0},
        {"nvmlDeviceGetViolationStatus", &nv->violation, 0},
        {"nvmlDeviceGetPcieThroughput", &nv->pcie_tput, 0},
        {"nvmlDeviceGetFieldValues", &nv->fields, 0},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        if (sym(nv->dl, syms[i].name, syms[i].slot) != 0 && syms[i].required) {
            snprintf(reason, reasonsz, "NVML library '%s' lacks %s (driver too old?)", path,
                     syms[i].name);
            dlclose(nv->dl);
            free(nv);
            return -1;
        }
    }
    gp_nvmlReturn rc = nv->init();
    if (rc != GP_NVML_SUCCESS) {
        snprintf(reason, reasonsz, "nvmlInit_v2 failed in '%s': %s (error %d); is the NVIDIA "
                 "driver loaded?", path, nv_errstr(nv, rc), rc);
        dlclose(nv->dl);
        free(nv);
        return -1;
    }
    unsigned int n = 0;
    rc = nv->get_count(&n);
    if (rc != GP_NVML_SUCCESS || n == 0) {
        if (rc != GP_NVML_SUCCESS)
            snprintf(reason, reasonsz, "nvmlDeviceGetCount_v2 failed: %s (error %d)",
                     nv_errstr(nv, rc), rc);
        else
            snprintf(reason, reasonsz, "no NVIDIA GPU found (NVML reports 0 devices)");
        nv->shutdown();
        dlclose(nv->dl);
        free(nv);
        return -1;
    }
    if (n > GP_NVML_MAX_DEV)
        n = GP_NVML_MAX_DEV;
    for (unsigned int i = 0; i < n; i++) {
        rc = nv->get_handle(i, &nv->dev[i]);
        if (rc != GP_NVML_SUCCESS) {
            snprintf(reason, reasonsz, "nvmlDeviceGetHandleByIndex_v2(%u) failed: %s (error %d)",
                     i, nv_errstr(nv, rc), rc);
            nv->shutdown();
            dlclose(nv->dl);
            free(nv);
            return -1;
        }
        if (nv->get_name && nv->get_name(nv->dev[i], nv->names[i], sizeof nv->names[i]) != 0)
            nv->names[i][0] = '\0';
        nv->names[i][sizeof nv->names[i] - 1] = '\0';
    }
    nv->ndev = (int)n;
    *out = nv;
    return 0;
}

void gp_nvml_close(struct gp_nvml *nv)
{
    if (!nv)
        return;
    nv->shutdown();
    dlclose(nv->dl);
    free(nv);
}

int gp_nvml_count(const struct gp_nvml *nv) { return nv ? nv->ndev : 0; }

const char *gp_nvml_name(const struct gp_nvml *nv, int dev)
{
    return (nv && dev >= 0 && dev < nv->ndev) ? nv->names[dev] : "";
}

/* 1 = value read, 0 = not available on this device (skip), -1 = device
 * gone, -2 = other error (reason set for both). */
static int check(const struct gp_nvml *nv, gp_nvmlReturn rc, const char *fn, char *reason,
                 size_t reasonsz)
{
    if (rc == GP_NVML_SUCCESS)
        return 1;
    if (rc == GP_NVML_ERROR_NOT_SUPPORTED || rc == 4 /* NO_PERMISSION */ ||
        rc == 13 /* FUNCTION_NOT_FOUND */)
        return 0;
    snprintf(reason, reasonsz, "%s: %s (error %d)", fn, nv_errstr(nv, rc), rc);
    /* UNINITIALIZED, DRIVER_NOT_LOADED, GPU_IS_LOST, RESET_REQUIRED,
     * LIB_RM_VERSION_MISMATCH: asking again cannot help */
    if (rc == 1 || rc == 9 || rc == GP_NVML_ERROR_GPU_IS_LOST || rc == 16 || rc == 18)
        return -1;
    return -2;
}

static void put(struct gp_nvml_reading *r, int metric, double v)
{
    r->v[metric] = v;
    r->has |= UINT64_C(1) << metric;
}

/* One query of an optional function: a negative check() ends the reading
 * with that code, except a retryable error (-2) of a "soft" query (the
 * extras beyond GenAI-Perf's first nine), which only drops that value, so a
 * query a driver answers oddly never costs the core readings. The statement
 * after the macro runs when the value is valid (c == 1). */
#define NV_Q(fnp, call, name, soft)                                                 \
    if ((fnp) && (c = check(nv, (call), (name), reason, reasonsz)) < 0 &&           \
        !((soft) && c == -2))                                                       \
        return c;                                                                   \
    else if ((fnp) && c == 1)

/* Memory through nvmlDeviceGetMemoryInfo_v2, into v1's struct: 1 read, 0 not
 * available (no symbol, or the driver answers NOT_SUPPORTED /
 * FUNCTION_NOT_FOUND / ARGUMENT_VERSION_MISMATCH: then v1, for this and every
 * later sample), < 0 as check(). */
static int read_memory_v2(struct gp_nvml *nv, gp_nvmlDevice d, struct gp_nvmlMemory *out, char *reason,
                          size_t reasonsz)
{
    if (!nv->memory_v2 || nv->memory_v2_off)
        return 0;
    struct gp_nvmlMemory_v2 m = {GP_NVML_MEMORY_V2, 0, 0, 0, 0};
    gp_nvmlReturn rc = nv->memory_v2(d, &m);
    int c = rc == 25 /* ARGUMENT_VERSION_MISMATCH */ ? 0 : check(nv, rc, "nvmlDeviceGetMemoryInfo_v2", reason, reasonsz);
    if (c == 0)
        nv->memory_v2_off = 1;
    if (c == 1)
        *out = (struct gp_nvmlMemory){m.total, m.free, m.used};
    return c;
}

/* The field-value batch: one call; each field has its own return code, and
 * one a device lacks (no ECC, no NVLink) is simply absent. */
static int read_fields(struct gp_nvml *nv, gp_nvmlDevice d, struct gp_nvml_reading *r,
                       char *reason, size_t reasonsz)
{
    struct gp_nvmlFieldValue fv[NV_NFIELDS];
    memset(fv, 0, sizeof fv);
    for (size_t i = 0; i < NV_NFIELDS; i++)
        fv[i].field_id = nv_fields[i].id;
    int c = check(nv, nv->fields(d, (int)NV_NFIELDS, fv), "nvmlDeviceGetFieldValues", reason, reasonsz);
    if (c <= 0)
        return c;
    for (size_t i = 0; i < NV_NFIELDS; i++) {
        double v;
        if (fv[i].nvml_return != GP_NVML_SUCCESS)
            continue;
        switch (fv[i].value_type) {
        case 0: v = fv[i].value.d; break;
        case 1: v = fv[i].value.ui; break;
        case 2: v = (double)fv[i].value.ul; break;
        case 3: v = (double)fv[i].value.ull; break;
        case 4: v = (double)fv[i].value.sll; break;
        case 5: v = fv[i].value.si; break;
        case 6: v = fv[i].value.us; break;
        default: continue;
        }
        put(r, nv_fields[i].metric, v);
    }
    return 0;
}

int gp_nvml_read(struct gp_nvml *nv, int dev, struct gp_nvml_reading *r, char *reason,
                 size_t reasonsz)
{
    memset(r, 0, sizeof *r);
    if (!nv || dev < 0 || dev >= nv->ndev) {
        snprintf(reason, reasonsz, "no such GPU %d", dev);
        return -1;
    }
    gp_nvmlDevice d = nv->dev[dev];
    int c = 0;
    unsigned int u = 0, per = 0;
    unsigned long long ull = 0;
    struct gp_nvmlUtilization ut = {0, 0};
    struct gp_nvmlMemory m = {0, 0, 0};
    struct gp_nvmlViolationTime vt = {0, 0};
    NV_Q(nv->power_usage, nv->power_usage(d, &u), "nvmlDeviceGetPowerUsage", 0) put(r, GP_TM_POWER_W, u / 1000.0);
    NV_Q(nv->power_limit, nv->power_limit(d, &u), "nvmlDeviceGetEnforcedPowerLimit", 0)
        put(r, GP_TM_POWER_LIMIT_W, u / 1000.0);
    NV_Q(nv->energy, nv->energy(d, &ull), "nvmlDeviceGetTotalEnergyConsumption", 0)
        put(r, GP_TM_ENERGY_J, (double)ull / 1000.0);
    NV_Q(nv->utilization, nv->utilization(d, &ut), "nvmlDeviceGetUtilizationRates", 0) {
        put(r, GP_TM_GPU_UTIL_PCT, ut.gpu);
        put(r, GP_TM_MEM_UTIL_PCT, ut.memory);
    }
    c = read_memory_v2(nv, d, &m, reason, reasonsz);
    if (c == 0 && nv->memory)
        c = check(nv, nv->memory(d, &m), "nvmlDeviceGetMemoryInfo", reason, reasonsz);
    if (c < 0)
        return c;
    if (c == 1) {
        put(r, GP_TM_GPU_MEM_USED_BYTES, (double)m.used);
        put(r, GP_TM_GPU_MEM_TOTAL_BYTES, (double)m.total);
        put(r, GP_TM_GPU_MEM_FREE_BYTES, (double)m.free);
    }
    NV_Q(nv->temperature, nv->temperature(d, GP_NVML_TEMPERATURE_GPU, &u), "nvmlDeviceGetTemperature", 0)
        put(r, GP_TM_TEMP_C, u);
    NV_Q(nv->clock, nv->clock(d, GP_NVML_CLOCK_SM, &u), "nvmlDeviceGetClockInfo(SM)", 0) put(r, GP_TM_SM_CLOCK_MHZ, u);
    NV_Q(nv->clock, nv->clock(d, GP_NVML_CLOCK_MEM, &u), "nvmlDeviceGetClockInfo(MEM)", 1)
        put(r, GP_TM_MEM_CLOCK_MHZ, u);
    NV_Q(nv->enc_util, nv->enc_util(d, &u, &per), "nvmlDeviceGetEncoderUtilization", 1) put(r, GP_TM_ENC_UTIL_PCT, u);
    NV_Q(nv->dec_util, nv->dec_util(d, &u, &per), "nvmlDeviceGetDecoderUtilization", 1) put(r, GP_TM_DEC_UTIL_PCT, u);
    /* violation time is in ns; DCGM's *_VIOLATION fields (and GenAI-Perf) use us */
    NV_Q(nv->violation, nv->violation(d, GP_NVML_PERF_POLICY_POWER, &vt), "nvmlDeviceGetViolationStatus(POWER)", 1)
        put(r, GP_TM_POWER_VIOLATION_US, (double)vt.violation_time / 1000.0);
    NV_Q(nv->violation, nv->violation(d, GP_NVML_PERF_POLICY_THERMAL, &vt),
         "nvmlDeviceGetViolationStatus(THERMAL)", 1)
        put(r, GP_TM_THERMAL_VIOLATION_US, (double)vt.violation_time / 1000.0);
    /* PCIe throughput comes in KB/s (1 KB = 1024 bytes, DCGM's divisor) */
    NV_Q(nv->pcie_tput, nv->pcie_tput(d, GP_NVML_PCIE_UTIL_TX_BYTES, &u), "nvmlDeviceGetPcieThroughput(TX)", 1)
        put(r, GP_TM_PCIE_TX_BPS, u * 1024.0);
    NV_Q(nv->pcie_tput, nv->pcie_tput(d, GP_NVML_PCIE_UTIL_RX_BYTES, &u), "nvmlDeviceGetPcieThroughput(RX)", 1)
        put(r, GP_TM_PCIE_RX_BPS, u * 1024.0);
    if (nv->fields && (c = read_fields(nv, d, r, reason, reasonsz)) == -1)
        return c;
    return 0;
}
