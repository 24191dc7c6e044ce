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
enum { GP_NVML_TEMPERATURE_GPU = 0, GP_NVML_CLOCK_SM = 1 };

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
    gp_nvmlReturn (*temperature)(gp_nvmlDevice, int, unsigned int *);
    gp_nvmlReturn (*clock)(gp_nvmlDevice, int, unsigned int *);
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
        {"nvmlDeviceGetTemperature", &nv->temperature, 0},
        {"nvmlDeviceGetClockInfo", &nv->clock, 0},
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

int gp_nvml_read(struct gp_nvml *nv, int dev, struct gp_nvml_reading *r, char *reason,
                 size_t reasonsz)
{
    memset(r, 0, sizeof *r);
    if (!nv || dev < 0 || dev >= nv->ndev) {
        snprintf(reason, reasonsz, "no such GPU %d", dev);
        return -1;
    }
    gp_nvmlDevice d = nv->dev[dev];
    int c;
    if (nv->power_usage) {
        unsigned int mw = 0;
        if ((c = check(nv, nv->power_usage(d, &mw), "nvmlDeviceGetPowerUsage", reason, reasonsz)) < 0)
            return c;
        if (c) { r->power_w = mw / 1000.0; r->has_power = 1; }
    }
    if (nv->power_limit) {
        unsigned int mw = 0;
        if ((c = check(nv, nv->power_limit(d, &mw), "nvmlDeviceGetEnforcedPowerLimit", reason, reasonsz)) < 0)
            return c;
        if (c) { r->power_limit_w = mw / 1000.0; r->has_power_limit = 1; }
    }
    if (nv->energy) {
        unsigned long long mj = 0;
        if ((c = check(nv, nv->energy(d, &mj), "nvmlDeviceGetTotalEnergyConsumption", reason, reasonsz)) < 0)
            return c;
        if (c) { r->energy_j = (double)mj / 1000.0; r->has_energy = 1; }
    }
    if (nv->utilization) {
        struct gp_nvmlUtilization u = {0, 0};
        if ((c = check(nv, nv->utilization(d, &u), "nvmlDeviceGetUtilizationRates", reason, reasonsz)) < 0)
            return c;
        if (c) { r->gpu_util_pct = u.gpu; r->mem_util_pct = u.memory; r->has_util = 1; }
    }
    if (nv->memory) {
        struct gp_nvmlMemory m = {0, 0, 0};
        if ((c = check(nv, nv->memory(d, &m), "nvmlDeviceGetMemoryInfo", reason, reasonsz)) < 0)
            return c;
        if (c) { r->mem_used_bytes = (double)m.used; r->mem_total_bytes = (double)m.total; r->has_mem = 1; }
    }
    if (nv->temperature) {
        unsigned int tc = 0;
        if ((c = check(nv, nv->temperature(d, GP_NVML_TEMPERATURE_GPU, &tc), "nvmlDeviceGetTemperature", reason, reasonsz)) < 0)
            return c;
        if (c) { r->temp_c = tc; r->has_temp = 1; }
    }
    if (nv->clock) {
        unsigned int mhz = 0;
        if ((c = check(nv, nv->clock(d, GP_NVML_CLOCK_SM, &mhz), "nvmlDeviceGetClockInfo(SM)", reason, reasonsz)) < 0)
            return c;
        if (c) { r->sm_clock_mhz = mhz; r->has_clock = 1; }
    }
    return 0;
}
