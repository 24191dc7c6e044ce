#!/usr/bin/env python3
"""A stand-in DCGM exporter for tests only: serves /metrics in the DCGM
exporter's Prometheus text format with every field GenAI-Perf's DCGM
collector reads, for GPUs 0..N-1 (labels gpu, UUID, device, modelName,
Hostname as dcgm-exporter writes them).

Usage: fake_dcgm.py PORT_FILE [NGPU]   (binds 127.0.0.1 on an ephemeral port
and writes the port number to PORT_FILE once listening).

Values for GPU g at scrape k (k = 0, 1, ...): DCGM_FI_DEV_POWER_USAGE
300 + 10g + 5k W; everything else is constant per GPU: FIELDS below plus g
for the raw values marked "+g". Tests compute what genperf must report from
the same table (import FIELDS from this file)."""
import http.server
import itertools
import os
import sys

# name: (raw value for GPU 0, add g?, help text); units as DCGM exports them
FIELDS = {
    "DCGM_FI_DEV_POWER_USAGE": (300.0, True, "Power draw (in W)."),
    "DCGM_FI_DEV_POWER_MGMT_LIMIT": (700.0, False, "Power management limit (in W)."),
    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": (123456789012.0, True, "Total energy since boot (in mJ)."),
    "DCGM_FI_DEV_GPU_UTIL": (87.0, True, "GPU utilization (in %)."),
    "DCGM_FI_DEV_MEM_COPY_UTIL": (41.0, True, "Memory utilization (in %)."),
    "DCGM_FI_DEV_ENC_UTIL": (3.0, True, "Encoder utilization (in %)."),
    "DCGM_FI_DEV_DEC_UTIL": (4.0, True, "Decoder utilization (in %)."),
    "DCGM_FI_PROF_SM_ACTIVE": (0.625, False, "Ratio of cycles an SM has at least 1 warp assigned."),
    "DCGM_FI_DEV_SM_CLOCK": (1980.0, False, "SM clock frequency (in MHz)."),
    "DCGM_FI_DEV_MEM_CLOCK": (2619.0, False, "Memory clock frequency (in MHz)."),
    "DCGM_FI_DEV_FB_USED": (100000.0, True, "Framebuffer memory used (in MiB)."),
    "DCGM_FI_DEV_FB_TOTAL": (143771.0, False, "Framebuffer memory total (in MiB)."),
    "DCGM_FI_DEV_FB_FREE": (43771.0, False, "Framebuffer memory free (in MiB)."),
    "DCGM_FI_DEV_MEMORY_TEMP": (45.0, True, "Memory temperature (in C)."),
    "DCGM_FI_DEV_GPU_TEMP": (38.0, True, "GPU temperature (in C)."),
    "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL": (11.0, True, "Total number of single-bit volatile ECC errors."),
    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": (12.0, True, "Total number of double-bit volatile ECC errors."),
    "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL": (13.0, True, "Total number of single-bit persistent ECC errors."),
    "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL": (14.0, True, "Total number of double-bit persistent ECC errors."),
    "DCGM_FI_DEV_XID_ERRORS": (79.0, False, "Value of the last XID error encountered."),
    "DCGM_FI_DEV_POWER_VIOLATION": (5000.0, True, "Throttling duration due to power constraints (in us)."),
    "DCGM_FI_DEV_THERMAL_VIOLATION": (6000.0, True, "Throttling duration due to thermal constraints (in us)."),
    "DCGM_FI_DEV_RETIRED_SBE": (15.0, True, "Total number of retired pages due to single-bit errors."),
    "DCGM_FI_DEV_RETIRED_DBE": (16.0, True, "Total number of retired pages due to double-bit errors."),
    "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL": (17.0, True, "Total number of NVLink flow-control CRC errors."),
    "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL": (18.0, True, "Total number of NVLink data CRC errors."),
    "DCGM_FI_PROF_PCIE_TX_BYTES": (2048000.0, True, "The rate of data transmitted over the PCIe bus (bytes/s)."),
    "DCGM_FI_PROF_PCIE_RX_BYTES": (4096000.0, True, "The rate of data received over the PCIe bus (bytes/s)."),
    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER": (19.0, True, "Total number of PCIe retries."),
}


def value(name, gpu, k):
    raw, per_gpu, _ = FIELDS[name]
    v = raw + (gpu if per_gpu else 0)
    if name == "DCGM_FI_DEV_POWER_USAGE":
        v = 300.0 + 10 * gpu + 5 * k
    return v


def page(ngpu, k):
    out = []
    for name, (_, _, helptext) in FIELDS.items():
        kind = "counter" if name.endswith(("_TOTAL", "CONSUMPTION", "VIOLATION", "COUNTER")) else "gauge"
        out.append(f"# HELP {name} {helptext}\n# TYPE {name} {kind}\n")
        for g in range(ngpu):
            v = value(name, g, k)
            text = repr(v) if v != int(v) else str(int(v))
            out.append(f'{name}{{gpu="{g}",UUID="GPU-fake-{g}",device="nvidia{g}",'
                       f'modelName="NVIDIA H200",Hostname="fake"}} {text}\n')
    # a name GenAI-Perf does not read: ignored
    out.append('DCGM_FI_DEV_VGPU_LICENSE_STATUS{gpu="0"} 0\n')
    return "".join(out).encode()


def main():
    port_file = sys.argv[1]
    ngpu = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    scrapes = itertools.count()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path != "/metrics":
                self.send_response(404)
                self.end_headers()
                return
            body = page(ngpu, next(scrapes))
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
