/* export/export_int.h — private to export/: what the artifact writers share.
 *
 * Owns nothing. The rows and labels are GenAI-Perf's (CSV and console show
 * the same rows under the same labels); gp_export_write_buf is how every
 * in-memory artifact reaches disk. The first four functions live in rows.c,
 * which calls nothing else in export/.
 */
#ifndef GP_EXPORT_EXPORT_INT_H
#define GP_EXPORT_EXPORT_INT_H

#include "export/export.h"
#include "metrics/metrics.h"

/* CSV/console label of a metric ("Request Latency (ms)"). */
const char *gp_export_label(enum gp_metric m);
/* The per-request rows (streaming adds TTFT, TTST, ITL, TPS per user). */
size_t gp_export_request_rows(const struct gp_export_ctx *ctx, const enum gp_metric **rows);
/* The system rows (throughputs, goodput when asked, count); returns how many. */
size_t gp_export_system_rows(const struct gp_export_ctx *ctx, enum gp_metric out[4]);
/* Writes b to path atomically (rc != 0: building b failed, report ENOMEM)
 * and frees b either way. */
int gp_export_write_buf(const char *path, struct gp_buf *b, int rc, struct gp_error *err);

/* "schedule" of <stem>_genperf.json (schedule_json.c): null without a
 * schedule; NULL on ENOMEM. New reference. */
json_t *gp_export_schedule_json(const struct gp_export_ctx *ctx);

/* One statistic of *_genai_perf.json at key indent ind (rows.c). */
int gp_export_stat_json(struct gp_buf *b, enum gp_metric m, const struct gp_stats *s, const char *ind, int *first);
/* "timeslice_duration_s", "timeslice_assignment", "timeslice_origin_wall_ns"
 * and the "timeslices" array (timeslices.c) set on o, the genperf.json
 * object, for ctx->timeslice_s > 0. 0, or -1 on ENOMEM. */
int gp_export_timeslices(const struct gp_export_ctx *ctx, json_t *o);
/* The slice of a request that started at t_start_ns, t0_ns being the first
 * measured start and s the slice length (timeslices.c; records.jsonl's
 * "timeslice" uses the same). */
size_t gp_export_timeslice_index(uint64_t t_start_ns, uint64_t t0_ns, double s);
/* The first measured (non-warmup) request's start: the slices' origin. */
uint64_t gp_export_timeslice_origin(const struct gp_record_store *st);
/* ",\n  \"sessions\": {...}" (sessions.c): GenAI-Perf's per-session statistics
 * over the measured requests whose dataset entry has a session_id; nothing
 * when none has. *first: no key written yet (cleared when this writes).
 * 0 or -GP_ENOMEM. */
int gp_export_sessions_json(const struct gp_export_ctx *ctx, struct gp_buf *b, int *first);

#endif
