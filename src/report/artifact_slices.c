/* report/artifact_slices.c — /api/job's "timeslices" from an artifact
 * directory: the "timeslices" of <stem>_genperf.json in the rows the store's
 * job_timeslices gives (rdb.c), with offset_s placing them on the telemetry
 * axis (seconds since the job's first telemetry sample, whose wall time is the
 * smallest wall_ns of <stem>_telemetry.jsonl). Owns nothing it returns. */
#include "report/report.h"

#include "core/fsutil.h"

#include <stdlib.h>
#include <string.h>

static int min_wall(json_t *o, void *arg)
{
    double *w0 = arg;
    json_t *w = json_object_get(o, "wall_ns");
    if (json_is_number(w) && (*w0 == 0 || json_number_value(w) < *w0))
        *w0 = json_number_value(w);
    return 0;
}

/* The smallest "wall_ns" in a telemetry JSONL file; 0 when none. */
static double first_wall_ns(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    if (!path || gp_read_file(path, &text, &len, NULL) < 0)
        return 0;
    double w0 = 0;
    gp_jsonl_each(text, min_wall, &w0);
    free(text);
    return w0;
}

json_t *gp_artifact_timeslices(const json_t *genperf_summary, const char *telemetry_path)
{
    json_t *rows = json_array();
    const json_t *ts = json_object_get(genperf_summary, "timeslices");
    const json_t *origin = json_object_get(genperf_summary, "timeslice_origin_wall_ns");
    if (!json_is_array(ts) || !json_array_size(ts))
        return rows;
    double w0 = first_wall_ns(telemetry_path);
    double off = w0 > 0 && json_is_number(origin) ? (json_number_value(origin) - w0) / 1e9 : 0;
    static const char *const keys[] = {"start_s", "end_s", "requests", "completed", "failures", "request_throughput",
                                       "output_token_throughput", "ttft_p50_ms", "ttft_p99_ms", "itl_p50_ms",
                                       "itl_p99_ms", "latency_p50_ms", "latency_p99_ms"};
    size_t i;
    json_t *s;
    json_array_foreach(ts, i, s) {
        json_t *r = json_object();
        json_t *ix = json_object_get(s, "index");
        json_object_set_new(r, "slice_index", ix ? json_deep_copy(ix) : json_integer((json_int_t)i));
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
            json_t *v = json_object_get(s, keys[k]);
            json_object_set_new(r, keys[k], v ? json_deep_copy(v) : json_null());
        }
        json_object_set_new(r, "offset_s", json_real(off));
        json_array_append_new(rows, r);
    }
    return rows;
}
