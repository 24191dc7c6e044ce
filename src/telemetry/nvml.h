/* telemetry/nvml.h — the few NVML calls genperf uses, loaded at run time.
 *
 * Owns: struct gp_nvml (the dlopen handle and resolved symbols) and the
 * per-device handles. There is no NVIDIA package at build time: the types
 * and signatures below are our own declarations of NVML's stable C ABI
 * (nvml.h, API version 11+), limited to what we call. Free with
 * gp_nvml_close(), which calls nvmlShutdown and dlclose.
 */
#ifndef GP_TELEMETRY_NVML_H
#define GP_TELEMETRY_NVML_H

#include <stddef.h>
#include <stdint.h>

#include "telemetry/telemetry.h"

#define GP_NVML_MAX_DEV 64

/* NVML return codes we treat specially (values from NVML's nvmlReturn_t). */
enum {
    GP_NVML_SUCCESS = 0,
    GP_NVML_ERROR_NOT_SUPPORTED = 3,
    GP_NVML_ERROR_GPU_IS_LOST = 15,
};

struct gp_nvml;

/* One reading of one device, indexed by the gp_tm_metric GPU block, in our
 * units; bit m of has says v[m] was read (a device may not support every
 * query, e.g. no energy counter before Volta, no ECC on consumer boards).
 * NVML has no SM-active ratio (a DCGM profiling field) and reports XIDs only
 * as events, so GP_TM_SM_ACTIVE_PCT and GP_TM_XID_LAST never come from here. */
struct gp_nvml_reading {
    double v[GP_TM_GPU__COUNT];
    uint64_t has;
};

/* Loads path (dlopen), resolves the symbols and calls nvmlInit_v2 and
 * nvmlDeviceGetCount_v2. On failure returns -1 and writes why into reason
 * (one line, naming the library); *out is NULL. Zero devices is a failure
 * too ("no NVIDIA GPU found"). */
int gp_nvml_open(const char *path, struct gp_nvml **out, char *reason, size_t reasonsz);
void gp_nvml_close(struct gp_nvml *nv);
int gp_nvml_count(const struct gp_nvml *nv);
/* Device name ("NVIDIA H100 80GB HBM3"), "" if unknown. */
const char *gp_nvml_name(const struct gp_nvml *nv, int dev);
/* Reads every metric of device dev. Queries answering NOT_SUPPORTED,
 * NO_PERMISSION or FUNCTION_NOT_FOUND are skipped silently (that metric is
 * absent). Returns 0; -1 when the device is gone for good (GPU is lost,
 * reset required, driver unloaded); -2 for any other error, worth retrying
 * next tick. reason is filled for both ("nvmlDeviceGetPowerUsage: GPU is lost"). */
int gp_nvml_read(struct gp_nvml *nv, int dev, struct gp_nvml_reading *r, char *reason,
                 size_t reasonsz);

#endif
