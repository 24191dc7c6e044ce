/* runner/pef.h — `genperf process-export-files`: merge per-node run directories.
 *
 * GenAI-Perf 0.0.16's subcommand/process_export_files.py, reimplemented: every
 * sub-directory of the input directory that holds a perf_analyzer export
 * (profile_export.json) and a <stem>_genai_perf.json is one node. The nodes'
 * requests are concatenated into one export; per-request metrics are
 * recomputed from the merged requests with the tokenizer named in the first
 * node's input_config; request and output-token throughput are the SUM of
 * the nodes' reported averages (each node measured its own window). The
 * result is written as a full artifact set under
 * <artifact_dir>/<model>-openai-<type>-<stimulus>/ by export/.
 *
 * A session run's requests keep their perf_analyzer "session_id" and "delay"
 * (request_inputs) through the merge: meta[i] holds request i's, and export/
 * writes them back in the same place.
 *
 * Owns: struct gp_pef_merged and everything in it (record store, dataset,
 * input_config, meta and its session_id strings); build with gp_pef_load,
 * free with gp_pef_free.
 */
#ifndef GP_RUNNER_PEF_H
#define GP_RUNNER_PEF_H

#include <jansson.h>
#include <stddef.h>

#include "client/record.h"

struct gp_error;
struct gp_dataset;
struct gp_inputs_meta;

struct gp_pef_merged {
    size_t n_nodes;
    struct gp_record_store store;   /* one record per merged request, times = wall ns; its responses as
                                     * the export has them (what the merged export writes) */
    struct gp_record_store mstore;  /* the same records with GenAI-Perf's splinter repair
                                     * (gp_pef_repair_splits): what the metrics read. Filled only once
                                     * a response needed it (split = 1); until then store serves both */
    int split;
    struct gp_dataset *ds;          /* one entry per merged request (its payload) */
    json_t *input_config;           /* first node's input_config (owned) */
    char *endpoint;                 /* first export's "endpoint" */
    char *service_kind;
    char *version;                  /* first export's "version" ("" when it has none, as GenAI-Perf) */
    char *exp_mode;                 /* first export's experiment "mode" (concurrency | request_rate), NULL =
                                     * none: then input_config's stimulus says */
    double exp_value;
    struct gp_inputs_meta *meta;    /* one per dataset entry (session_id NULL = none), NULL if no
                                     * request had a session_id */
    size_t meta_cap;
    double request_throughput_sum;  /* sum of nodes' request_throughput.avg (a node without: 0) */
    double output_token_throughput_sum;
    json_t *telemetry_stats;        /* the nodes' telemetry_stats aggregated (gp_pef_telemetry_aggregate),
                                     * NULL when no node has any (owned) */
};

/* Reads every node directory of dir (sorted by name). The tokenizer counts
 * ISL of each payload; it may be NULL when only the merged JSON is wanted
 * (then ISL = 0). Fails with a message naming the file when a node's JSON is
 * unreadable or when no node directory is found. */
struct gp_tokenizer;
int gp_pef_load(const char *dir, struct gp_tokenizer *tok, struct gp_pef_merged *out, struct gp_error *err);
/* GenAI-Perf's TelemetryStatsAggregator over n nodes' telemetry_stats
 * blocks: the metrics of the first block, each GPU any block has, one "avg"
 * per GPU: the mean of the nodes' avgs for gpu_power_usage, gpu_utilization
 * and energy_consumption, their max for every other metric. Metrics left
 * without a GPU are dropped (its JSON exporter filters them). NULL when n is
 * 0 or nothing is left; else a new object. */
json_t *gp_pef_telemetry_aggregate(json_t *const *nodes, size_t n);
/* Refuses what process-export-files cannot recompute: an input_config whose
 * endpoint.type genperf has no parser for (kserve, generate, ...), named in
 * one line with where it was read. 0 when the type is one genperf speaks
 * or absent. */
int gp_pef_check_input_config(const json_t *ic, const char *dir, struct gp_error *err);
/* GenAI-Perf's splinter repair of one request's responses (an SSE stream
 * whose first response is "data:" or an SSE field): from the last response
 * to the second, one that is not an SSE field and does not start with
 * "data: " gives everything before its first "data: " (all of it when
 * there is none) to the response before it, when that one holds "data:";
 * responses left empty are dropped with their timestamps. 1 with the
 * repaired responses in out[0..*n_out) (room for n; offsets into
 * out_bytes, appended to), 0 when nothing changed (*n_out = 0), or
 * -GP_ENOMEM. */
struct gp_buf;
int gp_pef_repair_splits(const struct gp_chunk *in, size_t n, const char *bytes, struct gp_chunk *out,
                         size_t *n_out, struct gp_buf *out_bytes);
/* The store the metrics read: the repaired one when a response needed it. */
static inline const struct gp_record_store *gp_pef_metrics_store(const struct gp_pef_merged *m)
{
    return m->split ? &m->mstore : &m->store;
}
/* Reads only the first node's input_config (to learn the tokenizer before
 * the merge); *out is a new reference. */
int gp_pef_first_input_config(const char *dir, json_t **out, struct gp_error *err);
void gp_pef_free(struct gp_pef_merged *m);

#endif
