/* store/migrations.c — the versioned schema of the results store.
 *
 * Owns: the static table of migrations (nothing allocated). Each migration is
 * applied once, in version order, inside the transaction gp_db_open opens,
 * and recorded in schema_migrations. Never edit a migration that has shipped:
 * add a new one. The same text serves both engines; the only dialect
 * difference is the auto-numbered key, written @PK@ here and expanded by
 * db.c ("INTEGER PRIMARY KEY" on SQLite, "BIGSERIAL PRIMARY KEY" on
 * PostgreSQL). Everything else is the common subset: TEXT, INTEGER, BIGINT,
 * DOUBLE PRECISION, CHECK, UNIQUE, REFERENCES, views without engine-specific
 * functions. Booleans are INTEGER 0/1 so both engines print them alike.
 *
 * docs/store.md documents every table and view column; keep it in step.
 */
#include "store/migrations.h"

#include <stddef.h>

static const char m1_schema[] =
    /* One row per distinct benchmark setup: jobs that share a scenario are
     * the same experiment repeated. scenario_key is the sha256 of the fields,
     * so concurrent ingests of the same setup converge on one row. */
    "CREATE TABLE scenarios (\n"
    "  id @PK@,\n"
    "  scenario_key TEXT NOT NULL UNIQUE,\n"
    "  model TEXT NOT NULL,\n"
    "  framework TEXT,\n"
    "  engine_args TEXT,\n"
    "  hardware TEXT,\n"
    "  gpu_count INTEGER,\n"
    "  tp INTEGER,\n"
    "  replicas INTEGER,\n"
    "  concurrency INTEGER,\n"
    "  request_rate DOUBLE PRECISION,\n"
    "  isl INTEGER,\n"
    "  osl INTEGER,\n"
    "  request_count INTEGER,\n"
    "  streaming INTEGER NOT NULL DEFAULT 0,\n"
    "  seed INTEGER,\n"
    "  endpoint TEXT,\n"
    "  endpoint_type TEXT\n"
    ");\n"
    /* One row per ingested run (one *_genai_perf.json or .csv). The artifact
     * hash is the idempotency key: UNIQUE makes a concurrent duplicate lose
     * cleanly (ON CONFLICT DO NOTHING) instead of creating a second job. */
    "CREATE TABLE jobs (\n"
    "  id @PK@,\n"
    "  artifact_sha256 TEXT NOT NULL UNIQUE,\n"
    "  scenario_id BIGINT NOT NULL REFERENCES scenarios(id),\n"
    "  tool_code TEXT NOT NULL DEFAULT 'genai-perf',\n"
    "  tool_type TEXT NOT NULL DEFAULT 'third_party',\n"
    "  tool_version TEXT,\n"
    "  producer TEXT NOT NULL,\n"
    "  producer_version TEXT,\n"
    "  label TEXT,\n"
    "  status TEXT NOT NULL CHECK (status IN ('completed','completed_with_errors','failed')),\n"
    "  started_at TEXT,\n"
    "  finished_at TEXT,\n"
    "  duration_s DOUBLE PRECISION,\n"
    "  host TEXT,\n"
    "  server_url TEXT,\n"
    "  requests_ok INTEGER,\n"
    "  requests_failed INTEGER,\n"
    "  artifact_dir TEXT NOT NULL,\n"
    "  artifact_file TEXT NOT NULL,\n"
    "  input_config TEXT,\n"
    "  goodput_slos TEXT,\n"
    "  genperf_summary TEXT,\n"
    "  ingested_at TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX jobs_scenario ON jobs(scenario_id);\n"
    "CREATE TABLE metric_templates (\n"
    "  code TEXT PRIMARY KEY,\n"
    "  display_name TEXT NOT NULL,\n"
    "  unit TEXT,\n"
    "  better TEXT NOT NULL CHECK (better IN ('lower','higher')),\n"
    "  category TEXT NOT NULL,\n"
    "  sort_order INTEGER NOT NULL\n"
    ");\n"
    "INSERT INTO metric_templates (code, display_name, unit, better, category, sort_order) VALUES\n"
    "  ('request_throughput', 'Request Throughput', 'requests/sec', 'higher', 'throughput', 10),\n"
    "  ('request_latency', 'Request Latency', 'ms', 'lower', 'latency', 20),\n"
    "  ('request_goodput', 'Request Goodput', 'requests/sec', 'higher', 'throughput', 30),\n"
    "  ('request_count', 'Request Count', 'count', 'higher', 'count', 40),\n"
    "  ('time_to_first_token', 'Time To First Token', 'ms', 'lower', 'latency', 50),\n"
    "  ('time_to_second_token', 'Time To Second Token', 'ms', 'lower', 'latency', 60),\n"
    "  ('inter_token_latency', 'Inter Token Latency', 'ms', 'lower', 'latency', 70),\n"
    "  ('output_token_throughput', 'Output Token Throughput', 'tokens/sec', 'higher', 'throughput', 80),\n"
    "  ('output_token_throughput_per_user', 'Output Token Throughput Per User', 'tokens/sec/user', 'higher', "
    "'throughput', 90),\n"
    "  ('output_sequence_length', 'Output Sequence Length', 'tokens', 'higher', 'tokens', 100),\n"
    "  ('input_sequence_length', 'Input Sequence Length', 'tokens', 'higher', 'tokens', 110),\n"
    "  ('failed_request_count', 'Failed Request Count', 'count', 'lower', 'count', 120);\n"
    /* Normalized values: one row per job x metric x statistic. Stats are
     * avg, min, max, std, p1..p99 exactly as the artifact names them; units
     * are the template's (ms for times). */
    "CREATE TABLE metric_values (\n"
    "  job_id BIGINT NOT NULL REFERENCES jobs(id),\n"
    "  metric_code TEXT NOT NULL REFERENCES metric_templates(code),\n"
    "  stat TEXT NOT NULL,\n"
    "  value DOUBLE PRECISION,\n"
    "  PRIMARY KEY (job_id, metric_code, stat)\n"
    ");\n"
    /* Our *_records.jsonl, one row per measured request (failures too);
     * from a real GenAI-Perf run, the request timing of profile_export.json. */
    "CREATE TABLE requests (\n"
    "  job_id BIGINT NOT NULL REFERENCES jobs(id),\n"
    "  request_index INTEGER NOT NULL,\n"
    "  entry INTEGER,\n"
    "  t_start_ns BIGINT,\n"
    "  t_end_ns BIGINT,\n"
    "  status TEXT NOT NULL CHECK (status IN ('ok','failed')),\n"
    "  http_status INTEGER,\n"
    "  error TEXT,\n"
    "  warmup INTEGER NOT NULL DEFAULT 0,\n"
    "  ttft_ns BIGINT,\n"
    "  request_latency_ns BIGINT,\n"
    "  isl INTEGER,\n"
    "  osl INTEGER,\n"
    "  osl_asked INTEGER,\n"
    "  server_prompt_tokens INTEGER,\n"
    "  server_completion_tokens INTEGER,\n"
    "  content_chunks INTEGER,\n"
    "  reasoning_tokens INTEGER,\n"
    "  PRIMARY KEY (job_id, request_index)\n"
    ");\n"
    /* Our *_telemetry.jsonl time series. */
    "CREATE TABLE telemetry_samples (\n"
    "  job_id BIGINT NOT NULL REFERENCES jobs(id),\n"
    "  t_ns BIGINT NOT NULL,\n"
    "  wall_ns BIGINT,\n"
    "  device TEXT NOT NULL,\n"
    "  metric TEXT NOT NULL,\n"
    "  value DOUBLE PRECISION NOT NULL\n"
    ");\n"
    "CREATE INDEX telemetry_samples_job ON telemetry_samples(job_id, device, metric);\n"
    /* GenAI-Perf's telemetry_stats block (aggregates only, no series):
     * device is 'gpu' + the DCGM gpu label so it lines up with our samples. */
    "CREATE TABLE telemetry_stats (\n"
    "  job_id BIGINT NOT NULL REFERENCES jobs(id),\n"
    "  device TEXT NOT NULL,\n"
    "  metric TEXT NOT NULL,\n"
    "  unit TEXT,\n"
    "  stat TEXT NOT NULL,\n"
    "  value DOUBLE PRECISION,\n"
    "  PRIMARY KEY (job_id, device, metric, stat)\n"
    ");\n"
    "CREATE VIEW v_jobs AS\n"
    "SELECT j.id AS job_id, j.label AS job_label, j.tool_code, j.tool_type, j.tool_version,\n"
    "  j.producer, j.producer_version, j.status, j.started_at, j.finished_at, j.duration_s, j.host,\n"
    "  j.server_url, j.requests_ok, j.requests_failed, j.artifact_dir, j.artifact_file,\n"
    "  j.artifact_sha256, j.ingested_at, s.id AS scenario_id, s.model, s.framework, s.engine_args,\n"
    "  s.hardware, s.gpu_count, s.tp, s.replicas, s.concurrency, s.request_rate, s.isl, s.osl,\n"
    "  s.request_count, s.streaming, s.seed, s.endpoint, s.endpoint_type\n"
    "FROM jobs j JOIN scenarios s ON s.id = j.scenario_id;\n"
    "CREATE VIEW v_genai_perf_outputs AS\n"
    "SELECT j.id AS job_id, j.label AS job_label, j.tool_code, j.tool_type, j.tool_version, j.producer,\n"
    "  j.status, j.started_at, j.finished_at, j.host, s.id AS scenario_id, s.model, s.framework,\n"
    "  s.engine_args, s.hardware, s.gpu_count, s.tp, s.replicas, s.concurrency, s.request_rate,\n"
    "  s.isl, s.osl, s.request_count, s.streaming, s.seed, s.endpoint,\n"
    "  p.metric_code AS metric, t.display_name AS metric_name, t.unit, t.better, t.category,\n"
    "  t.sort_order, p.avg, p.min, p.max, p.p1, p.p5, p.p10, p.p25, p.p50, p.p75, p.p90, p.p95,\n"
    "  p.p99, p.std\n"
    "FROM (SELECT job_id, metric_code,\n"
    "        MAX(CASE WHEN stat = 'avg' THEN value END) AS avg,\n"
    "        MAX(CASE WHEN stat = 'min' THEN value END) AS min,\n"
    "        MAX(CASE WHEN stat = 'max' THEN value END) AS max,\n"
    "        MAX(CASE WHEN stat = 'p1' THEN value END) AS p1,\n"
    "        MAX(CASE WHEN stat = 'p5' THEN value END) AS p5,\n"
    "        MAX(CASE WHEN stat = 'p10' THEN value END) AS p10,\n"
    "        MAX(CASE WHEN stat = 'p25' THEN value END) AS p25,\n"
    "        MAX(CASE WHEN stat = 'p50' THEN value END) AS p50,\n"
    "        MAX(CASE WHEN stat = 'p75' THEN value END) AS p75,\n"
    "        MAX(CASE WHEN stat = 'p90' THEN value END) AS p90,\n"
    "        MAX(CASE WHEN stat = 'p95' THEN value END) AS p95,\n"
    "        MAX(CASE WHEN stat = 'p99' THEN value END) AS p99,\n"
    "        MAX(CASE WHEN stat = 'std' THEN value END) AS std\n"
    "      FROM metric_values GROUP BY job_id, metric_code) p\n"
    "  JOIN jobs j ON j.id = p.job_id\n"
    "  JOIN scenarios s ON s.id = j.scenario_id\n"
    "  JOIN metric_templates t ON t.code = p.metric_code;\n"
    /* Samples win; a job/device with only GenAI-Perf aggregates is summarised
     * from those (GenAI-Perf's "GB" is 1e9 bytes, converted to GiB here). */
    "CREATE VIEW v_telemetry_job_summary AS\n"
    "SELECT job_id, device, 'samples' AS source,\n"
    "  COUNT(DISTINCT t_ns) AS sample_count,\n"
    "  CAST(MAX(t_ns) - MIN(t_ns) AS DOUBLE PRECISION) / 1000000000.0 AS duration_s,\n"
    "  AVG(CASE WHEN metric = 'power_w' THEN value END) AS power_avg_w,\n"
    "  MAX(CASE WHEN metric = 'power_w' THEN value END) AS power_max_w,\n"
    "  AVG(CASE WHEN metric = 'gpu_util_pct' THEN value END) AS gpu_util_avg_pct,\n"
    "  MAX(CASE WHEN metric = 'gpu_util_pct' THEN value END) AS gpu_util_max_pct,\n"
    "  MAX(CASE WHEN metric = 'mem_used_bytes' THEN value END) / 1073741824.0 AS mem_used_peak_gib,\n"
    "  MAX(CASE WHEN metric = 'mem_total_bytes' THEN value END) / 1073741824.0 AS mem_total_gib,\n"
    "  100.0 * MAX(CASE WHEN metric = 'mem_used_bytes' THEN value END)\n"
    "    / NULLIF(MAX(CASE WHEN metric = 'mem_total_bytes' THEN value END), 0) AS mem_used_peak_pct,\n"
    "  AVG(CASE WHEN metric IN ('cpu_util_pct', 'cpu_pct') THEN value END) AS cpu_avg_pct,\n"
    "  MAX(CASE WHEN metric IN ('cpu_util_pct', 'cpu_pct') THEN value END) AS cpu_max_pct,\n"
    "  MAX(CASE WHEN metric = 'energy_j' THEN value END)\n"
    "    - MIN(CASE WHEN metric = 'energy_j' THEN value END) AS energy_used_j\n"
    "FROM telemetry_samples GROUP BY job_id, device\n"
    "UNION ALL\n"
    "SELECT job_id, device, 'genai_perf_stats' AS source,\n"
    "  NULL AS sample_count, NULL AS duration_s,\n"
    "  MAX(CASE WHEN metric = 'gpu_power_usage' AND stat = 'avg' THEN value END) AS power_avg_w,\n"
    "  MAX(CASE WHEN metric = 'gpu_power_usage' AND stat = 'max' THEN value END) AS power_max_w,\n"
    "  MAX(CASE WHEN metric = 'gpu_utilization' AND stat = 'avg' THEN value END) AS gpu_util_avg_pct,\n"
    "  MAX(CASE WHEN metric = 'gpu_utilization' AND stat = 'max' THEN value END) AS gpu_util_max_pct,\n"
    "  MAX(CASE WHEN metric = 'gpu_memory_used' AND stat = 'max' THEN value END)\n"
    "    * 1000000000.0 / 1073741824.0 AS mem_used_peak_gib,\n"
    "  MAX(CASE WHEN metric = 'total_gpu_memory' AND stat = 'avg' THEN value END)\n"
    "    * 1000000000.0 / 1073741824.0 AS mem_total_gib,\n"
    "  100.0 * MAX(CASE WHEN metric = 'gpu_memory_used' AND stat = 'max' THEN value END)\n"
    "    / NULLIF(MAX(CASE WHEN metric = 'total_gpu_memory' AND stat = 'avg' THEN value END), 0)\n"
    "    AS mem_used_peak_pct,\n"
    "  NULL AS cpu_avg_pct, NULL AS cpu_max_pct, NULL AS energy_used_j\n"
    "FROM telemetry_stats ts\n"
    "WHERE NOT EXISTS (SELECT 1 FROM telemetry_samples x WHERE x.job_id = ts.job_id AND x.device = ts.device)\n"
    "GROUP BY job_id, device;\n";

/* genperf's own extras from <stem>_genperf.json. */
static const char m2_genperf_metrics[] =
    "INSERT INTO metric_templates (code, display_name, unit, better, category, sort_order) VALUES\n"
    "  ('inter_chunk_latency', 'Inter Chunk Latency', 'ms', 'lower', 'latency', 75),\n"
    "  ('client_busy_fraction', 'Client Busy Fraction', 'fraction', 'lower', 'client', 130)\n"
    "ON CONFLICT (code) DO NOTHING;\n";

/* Token accounting (client vs server counts) and reasoning figures from
 * <stem>_genperf.json (store/ingest_accounting.c). Counts are stored as avg;
 * a largest deviation as max. */
static const char m3_accounting_reasoning[] =
    "INSERT INTO metric_templates (code, display_name, unit, better, category, sort_order) VALUES\n"
    "  ('time_to_first_reasoning_token', 'Time To First Reasoning Token', 'ms', 'lower', 'latency', 55),\n"
    "  ('total_output_token_throughput', 'Total Output Token Throughput (incl. reasoning)', 'tokens/sec', "
    "'higher', 'throughput', 85),\n"
    "  ('reasoning_token_throughput', 'Reasoning Token Throughput', 'tokens/sec', 'higher', 'throughput', 86),\n"
    "  ('reasoning_tokens_per_request', 'Reasoning Tokens Per Request', 'tokens', 'higher', 'tokens', 105),\n"
    "  ('requests_with_server_usage', 'Requests With Server Usage', 'count', 'higher', 'accounting', 140),\n"
    "  ('isl_template_overhead_tokens', 'Chat Template Overhead', 'tokens', 'lower', 'accounting', 141),\n"
    "  ('isl_server_disagree_count', 'ISL vs prompt_tokens Disagreements', 'count', 'lower', 'accounting', 142),\n"
    "  ('isl_server_deviation', 'prompt_tokens - ISL - Overhead', 'tokens', 'lower', 'accounting', 145),\n"
    "  ('osl_server_disagree_count', 'OSL vs completion_tokens Disagreements', 'count', 'lower', 'accounting', "
    "143),\n"
    "  ('osl_server_difference', 'completion_tokens - OSL', 'tokens', 'lower', 'accounting', 144)\n"
    "ON CONFLICT (code) DO NOTHING;\n";

/* The "schedule" block of <stem>_genperf.json (open-loop runs: rate, trace,
 * sessions): schedule lateness, how many requests were late or waited for the
 * --max-concurrency cap, and latency / TTFT measured from the scheduled send.
 * Plain metric rows, so closed-loop jobs (no block) simply have none. */
static const char m4_schedule_metrics[] =
    "INSERT INTO metric_templates (code, display_name, unit, better, category, sort_order) VALUES\n"
    "  ('schedule_lag', 'Schedule Lag', 'ms', 'lower', 'schedule', 140),\n"
    "  ('schedule_late_requests', 'Requests Sent Over 1 ms Late', 'count', 'lower', 'schedule', 141),\n"
    "  ('schedule_cap_delayed', 'Requests Delayed By The Concurrency Cap', 'count', 'lower', 'schedule', 142),\n"
    "  ('request_latency_from_schedule', 'Request Latency From Schedule', 'ms', 'lower', 'schedule', 143),\n"
    "  ('time_to_first_token_from_schedule', 'Time To First Token From Schedule', 'ms', 'lower', 'schedule', 144),\n"
    "  ('ramp_excluded_requests', 'Requests Excluded As Ramp-Up', 'count', 'lower', 'schedule', 145)\n"
    "ON CONFLICT (code) DO NOTHING;\n";

/* Several --url (replicas behind one benchmark, docs/scale-out.md): the
 * "scale_out"."endpoints" block of <stem>_genperf.json, one row per endpoint
 * (store/ingest_endpoints.c). url is the request URL with any userinfo
 * redacted (core/redact). A one --url run has no block and so no rows: its
 * URL is jobs.server_url and its figures are the job's own metric_values.
 * Throughputs are over the whole benchmark window (they add up to the job's);
 * latencies in ms; a NULL percentile means that endpoint had no sample. */
static const char m5_endpoint_breakdown[] =
    "CREATE TABLE job_endpoints (\n"
    "  job_id BIGINT NOT NULL REFERENCES jobs(id),\n"
    "  endpoint_index INTEGER NOT NULL,\n"
    "  url TEXT NOT NULL,\n"
    "  requests INTEGER NOT NULL,\n"
    "  failed INTEGER NOT NULL,\n"
    "  request_throughput DOUBLE PRECISION,\n"
    "  output_token_throughput DOUBLE PRECISION,\n"
    "  ttft_p50_ms DOUBLE PRECISION,\n"
    "  ttft_p99_ms DOUBLE PRECISION,\n"
    "  itl_p50_ms DOUBLE PRECISION,\n"
    "  itl_p99_ms DOUBLE PRECISION,\n"
    "  PRIMARY KEY (job_id, endpoint_index)\n"
    ");\n"
    /* "which runs hit this replica" without a scan */
    "CREATE INDEX job_endpoints_url ON job_endpoints(url);\n"
    "CREATE VIEW v_endpoint_breakdown AS\n"
    "SELECT j.id AS job_id, j.label AS job_label, j.status, j.started_at, j.host, s.id AS scenario_id,\n"
    "  s.model, s.concurrency, s.request_rate, s.isl, s.osl, s.streaming, s.endpoint, s.endpoint_type,\n"
    "  e.endpoint_index, e.url, e.requests, e.failed, e.requests - e.failed AS requests_ok,\n"
    "  CAST(e.requests AS DOUBLE PRECISION)\n"
    "    / NULLIF((SELECT SUM(x.requests) FROM job_endpoints x WHERE x.job_id = e.job_id), 0) AS request_share,\n"
    "  e.request_throughput, e.output_token_throughput, e.ttft_p50_ms, e.ttft_p99_ms, e.itl_p50_ms,\n"
    "  e.itl_p99_ms\n"
    "FROM job_endpoints e\n"
    "  JOIN jobs j ON j.id = e.job_id\n"
    "  JOIN scenarios s ON s.id = j.scenario_id;\n";

/* Per-host telemetry (mpirun across hosts): the host each sample came from,
 * NULL for a single-host job's file (no "host" key). The summary view gets a
 * host column and one row per job x host x device; GenAI-Perf's aggregates
 * (rank 0's host only) have host NULL. */
static const char m6_telemetry_host[] =
    "ALTER TABLE telemetry_samples ADD COLUMN host TEXT;\n"
    "DROP VIEW v_telemetry_job_summary;\n"
    "CREATE VIEW v_telemetry_job_summary AS\n"
    "SELECT job_id, device, 'samples' AS source,\n"
    "  COUNT(DISTINCT t_ns) AS sample_count,\n"
    "  CAST(MAX(t_ns) - MIN(t_ns) AS DOUBLE PRECISION) / 1000000000.0 AS duration_s,\n"
    "  AVG(CASE WHEN metric = 'power_w' THEN value END) AS power_avg_w,\n"
    "  MAX(CASE WHEN metric = 'power_w' THEN value END) AS power_max_w,\n"
    "  AVG(CASE WHEN metric = 'gpu_util_pct' THEN value END) AS gpu_util_avg_pct,\n"
    "  MAX(CASE WHEN metric = 'gpu_util_pct' THEN value END) AS gpu_util_max_pct,\n"
    "  MAX(CASE WHEN metric = 'mem_used_bytes' THEN value END) / 1073741824.0 AS mem_used_peak_gib,\n"
    "  MAX(CASE WHEN metric = 'mem_total_bytes' THEN value END) / 1073741824.0 AS mem_total_gib,\n"
    "  100.0 * MAX(CASE WHEN metric = 'mem_used_bytes' THEN value END)\n"
    "    / NULLIF(MAX(CASE WHEN metric = 'mem_total_bytes' THEN value END), 0) AS mem_used_peak_pct,\n"
    "  AVG(CASE WHEN metric IN ('cpu_util_pct', 'cpu_pct') THEN value END) AS cpu_avg_pct,\n"
    "  MAX(CASE WHEN metric IN ('cpu_util_pct', 'cpu_pct') THEN value END) AS cpu_max_pct,\n"
    "  MAX(CASE WHEN metric = 'energy_j' THEN value END)\n"
    "    - MIN(CASE WHEN metric = 'energy_j' THEN value END) AS energy_used_j,\n"
    "  host\n"
    "FROM telemetry_samples GROUP BY job_id, host, device\n"
    "UNION ALL\n"
    "SELECT job_id, device, 'genai_perf_stats' AS source,\n"
    "  NULL AS sample_count, NULL AS duration_s,\n"
    "  MAX(CASE WHEN metric = 'gpu_power_usage' AND stat = 'avg' THEN value END) AS power_avg_w,\n"
    "  MAX(CASE WHEN metric = 'gpu_power_usage' AND stat = 'max' THEN value END) AS power_max_w,\n"
    "  MAX(CASE WHEN metric = 'gpu_utilization' AND stat = 'avg' THEN value END) AS gpu_util_avg_pct,\n"
    "  MAX(CASE WHEN metric = 'gpu_utilization' AND stat = 'max' THEN value END) AS gpu_util_max_pct,\n"
    "  MAX(CASE WHEN metric = 'gpu_memory_used' AND stat = 'max' THEN value END)\n"
    "    * 1000000000.0 / 1073741824.0 AS mem_used_peak_gib,\n"
    "  MAX(CASE WHEN metric = 'total_gpu_memory' AND stat = 'avg' THEN value END)\n"
    "    * 1000000000.0 / 1073741824.0 AS mem_total_gib,\n"
    "  100.0 * MAX(CASE WHEN metric = 'gpu_memory_used' AND stat = 'max' THEN value END)\n"
    "    / NULLIF(MAX(CASE WHEN metric = 'total_gpu_memory' AND stat = 'avg' THEN value END), 0)\n"
    "    AS mem_used_peak_pct,\n"
    "  NULL AS cpu_avg_pct, NULL AS cpu_max_pct, NULL AS energy_used_j, CAST(NULL AS TEXT) AS host\n"
    "FROM telemetry_stats ts\n"
    "WHERE NOT EXISTS (SELECT 1 FROM telemetry_samples x WHERE x.job_id = ts.job_id AND x.device = ts.device)\n"
    "GROUP BY job_id, device;\n";

/* A run stopped by Ctrl-C (or SIGTERM, or SIGUSR1 under a launcher) writes
 * what it measured, and its _genperf.json says "interrupted": true; status
 * alone would call it completed. Stores written before this learn it from the
 * summary kept on the job (compact JSON, so the text is exact). */
static const char m7_job_interrupted[] =
    "ALTER TABLE jobs ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;\n"
    "UPDATE jobs SET interrupted = 1 WHERE genperf_summary LIKE '%\"interrupted\":true%';\n"
    /* v_jobs (the Benchmarks list) says so in status, and carries the flag */
    "DROP VIEW IF EXISTS v_jobs;\n"
    "CREATE VIEW v_jobs AS\n"
    "SELECT j.id AS job_id, j.label AS job_label, j.tool_code, j.tool_type, j.tool_version,\n"
    "  j.producer, j.producer_version,\n"
    "  CASE WHEN j.interrupted = 1 THEN 'interrupted' ELSE j.status END AS status,\n"
    "  j.started_at, j.finished_at, j.duration_s, j.host,\n"
    "  j.server_url, j.requests_ok, j.requests_failed, j.artifact_dir, j.artifact_file,\n"
    "  j.artifact_sha256, j.ingested_at, s.id AS scenario_id, s.model, s.framework, s.engine_args,\n"
    "  s.hardware, s.gpu_count, s.tp, s.replicas, s.concurrency, s.request_rate, s.isl, s.osl,\n"
    "  s.request_count, s.streaming, s.seed, s.endpoint, s.endpoint_type, j.interrupted\n"
    "FROM jobs j JOIN scenarios s ON s.id = j.scenario_id;\n";

/* --timeslice-duration: the per-slice metrics of <stem>_genperf.json
 * "timeslices" (store/ingest_timeslices.c). A request belongs to the slice
 * its start falls in (AIPerf's assignment); start_s/end_s are seconds from
 * origin_wall_ns, the first measured request's start on the wall clock of
 * telemetry_samples, so a slice lines up with the server and GPU samples.
 * Throughputs per second of the slice; latencies in ms; NULL = no sample. */
static const char m8_job_timeslices[] =
    "CREATE TABLE job_timeslices (\n"
    "  job_id BIGINT NOT NULL REFERENCES jobs(id),\n"
    "  slice_index INTEGER NOT NULL,\n"
    "  duration_s DOUBLE PRECISION NOT NULL,\n"
    "  origin_wall_ns BIGINT,\n"
    "  start_s DOUBLE PRECISION NOT NULL,\n"
    "  end_s DOUBLE PRECISION NOT NULL,\n"
    "  requests INTEGER NOT NULL,\n"
    "  completed INTEGER NOT NULL,\n"
    "  failures INTEGER NOT NULL,\n"
    "  request_throughput DOUBLE PRECISION,\n"
    "  output_token_throughput DOUBLE PRECISION,\n"
    "  ttft_p50_ms DOUBLE PRECISION,\n"
    "  ttft_p99_ms DOUBLE PRECISION,\n"
    "  itl_p50_ms DOUBLE PRECISION,\n"
    "  itl_p99_ms DOUBLE PRECISION,\n"
    "  latency_p50_ms DOUBLE PRECISION,\n"
    "  latency_p99_ms DOUBLE PRECISION,\n"
    "  PRIMARY KEY (job_id, slice_index)\n"
    ");\n";

/* Several -m (a base model and its LoRA adapters, or models behind one
 * router; issue 32): the "models" block of <stem>_genperf.json, one row per
 * -m in -m order (store/ingest_models.c). weight is the --model-weights share
 * asked for (NULL without weights), share the share of measured requests
 * that went to the model. Throughputs are over the whole benchmark window
 * (they add up to the job's); latencies in ms; a NULL percentile means that
 * model had no sample. A one -m run has no block and so no rows. */
static const char m9_model_breakdown[] =
    "CREATE TABLE job_models (\n"
    "  job_id BIGINT NOT NULL REFERENCES jobs(id),\n"
    "  model_index INTEGER NOT NULL,\n"
    "  model TEXT NOT NULL,\n"
    "  weight DOUBLE PRECISION,\n"
    "  requests INTEGER NOT NULL,\n"
    "  failed INTEGER NOT NULL,\n"
    "  share DOUBLE PRECISION,\n"
    "  request_throughput DOUBLE PRECISION,\n"
    "  output_token_throughput DOUBLE PRECISION,\n"
    "  ttft_p50_ms DOUBLE PRECISION,\n"
    "  ttft_p99_ms DOUBLE PRECISION,\n"
    "  itl_p50_ms DOUBLE PRECISION,\n"
    "  itl_p99_ms DOUBLE PRECISION,\n"
    "  latency_p50_ms DOUBLE PRECISION,\n"
    "  latency_p99_ms DOUBLE PRECISION,\n"
    "  PRIMARY KEY (job_id, model_index),\n"
    "  UNIQUE (job_id, model)\n"
    ");\n"
    /* "which runs served this adapter" without a scan */
    "CREATE INDEX job_models_model ON job_models(model);\n"
    "CREATE VIEW v_model_breakdown AS\n"
    "SELECT j.id AS job_id, j.label AS job_label, j.status, j.started_at, j.host, s.id AS scenario_id,\n"
    "  s.concurrency, s.request_rate, s.isl, s.osl, s.streaming, s.endpoint, s.endpoint_type,\n"
    "  m.model_index, m.model, m.weight, m.requests, m.failed, m.requests - m.failed AS requests_ok,\n"
    "  m.share AS request_share, m.request_throughput, m.output_token_throughput, m.ttft_p50_ms,\n"
    "  m.ttft_p99_ms, m.itl_p50_ms, m.itl_p99_ms, m.latency_p50_ms, m.latency_p99_ms\n"
    "FROM job_models m\n"
    "  JOIN jobs j ON j.id = m.job_id\n"
    "  JOIN scenarios s ON s.id = j.scenario_id;\n";

/* Energy and cost (issue 32): the "energy" and "cost" blocks of
 * <stem>_genperf.json (export/energy_json.c) as plain metric rows, stat avg
 * (store/ingest_extras.c), so jobs without GPU telemetry or --gpu-hour-cost
 * simply have none; v_energy_cost puts them side by side, one row per job
 * that has any. Joules are all GPUs' over the run; watts per GPU summed
 * (avg) or the highest sample of any GPU (peak). */
static const char m10_energy_cost[] =
    "INSERT INTO metric_templates (code, display_name, unit, better, category, sort_order) VALUES\n"
    "  ('energy_joules', 'GPU Energy', 'J', 'lower', 'energy', 150),\n"
    "  ('gpu_power_avg_watts', 'GPU Power (avg, all GPUs)', 'W', 'lower', 'energy', 151),\n"
    "  ('gpu_power_peak_watts', 'GPU Power (peak, one GPU)', 'W', 'lower', 'energy', 152),\n"
    "  ('joules_per_output_token', 'Energy Per Output Token', 'J/token', 'lower', 'energy', 153),\n"
    "  ('output_tokens_per_joule', 'Output Tokens Per Joule', 'tokens/J', 'higher', 'energy', 154),\n"
    "  ('usd_per_million_output_tokens', 'Cost Per Million Output Tokens', 'USD/Mtok', 'lower', 'cost', 160),\n"
    "  ('usd_per_million_input_tokens', 'Cost Per Million Input Tokens', 'USD/Mtok', 'lower', 'cost', 161),\n"
    "  ('usd_per_gpu_hour', 'GPU-Hour Price', 'USD', 'lower', 'cost', 162)\n"
    "ON CONFLICT (code) DO NOTHING;\n"
    "CREATE VIEW v_energy_cost AS\n"
    "SELECT j.id AS job_id, j.label AS job_label, j.status, j.started_at, s.id AS scenario_id, s.model,\n"
    "  s.framework, s.hardware, s.gpu_count, s.concurrency, s.request_rate, s.isl, s.osl,\n"
    "  MAX(CASE WHEN v.metric_code = 'energy_joules' THEN v.value END) AS energy_j,\n"
    "  MAX(CASE WHEN v.metric_code = 'gpu_power_avg_watts' THEN v.value END) AS power_avg_w,\n"
    "  MAX(CASE WHEN v.metric_code = 'gpu_power_peak_watts' THEN v.value END) AS power_peak_w,\n"
    "  MAX(CASE WHEN v.metric_code = 'joules_per_output_token' THEN v.value END) AS joules_per_output_token,\n"
    "  MAX(CASE WHEN v.metric_code = 'output_tokens_per_joule' THEN v.value END) AS output_tokens_per_joule,\n"
    "  MAX(CASE WHEN v.metric_code = 'usd_per_gpu_hour' THEN v.value END) AS usd_per_gpu_hour,\n"
    "  MAX(CASE WHEN v.metric_code = 'usd_per_million_output_tokens' THEN v.value END)\n"
    "    AS usd_per_million_output_tokens,\n"
    "  MAX(CASE WHEN v.metric_code = 'usd_per_million_input_tokens' THEN v.value END)\n"
    "    AS usd_per_million_input_tokens\n"
    "FROM metric_values v\n"
    "  JOIN jobs j ON j.id = v.job_id\n"
    "  JOIN scenarios s ON s.id = j.scenario_id\n"
    "WHERE v.stat = 'avg' AND v.metric_code IN ('energy_joules', 'gpu_power_avg_watts', 'gpu_power_peak_watts',\n"
    "  'joules_per_output_token', 'output_tokens_per_joule', 'usd_per_gpu_hour', 'usd_per_million_output_tokens',\n"
    "  'usd_per_million_input_tokens')\n"
    "GROUP BY j.id, j.label, j.status, j.started_at, s.id, s.model, s.framework, s.hardware, s.gpu_count,\n"
    "  s.concurrency, s.request_rate, s.isl, s.osl;\n";

/* Repeats (issue 30: `profile --num-runs N`, a scenario's `repeats:`): the
 * runs of one RUN_DIR/run_K/<run>/ layout are one group (store/ingest_groups.c).
 * group_key names the layout (the real path of RUN_DIR, the run directory's
 * name and the artifact stem), so every ingest of one of its runs, together
 * or one at a time, converges on one row. aggregate_file is RUN_DIR's
 * <stem>_genperf_aggregate.json when there is one (NULL for a scenario's
 * cells, which write none). repeat_group_jobs links each run's job to its
 * group, with K as repeat_index.
 *
 * The group's statistics are stored, not computed by the view: the 95%
 * interval needs Student's t quantile and the stddev a square root, which
 * neither engine's portable SQL has (SQLite builds lack sqrt and stddev). So
 * ingest recomputes repeat_group_stats from the member jobs' metric_values
 * with core/stats gp_repeat_stats, the function that writes the aggregate
 * file: the two agree to the last bit on the same runs. Per metric x stat:
 * n runs with a value, their mean, sample stddev, interval bounds (NULL with
 * one run) and stddev / |mean| (NULL when the mean is 0). */
static const char m11_repeat_groups[] =
    "CREATE TABLE repeat_groups (\n"
    "  id @PK@,\n"
    "  group_key TEXT NOT NULL UNIQUE,\n"
    "  label TEXT NOT NULL,\n"
    "  group_dir TEXT NOT NULL,\n"
    "  aggregate_file TEXT,\n"
    "  n_runs INTEGER NOT NULL DEFAULT 0,\n"
    "  created_at TEXT NOT NULL,\n"
    "  updated_at TEXT\n"
    ");\n"
    /* a job belongs to one group at most (the key is job_id); a link table
     * rather than a jobs column keeps the widest table as it is */
    "CREATE TABLE repeat_group_jobs (\n"
    "  job_id BIGINT PRIMARY KEY REFERENCES jobs(id),\n"
    "  group_id BIGINT NOT NULL REFERENCES repeat_groups(id),\n"
    "  repeat_index INTEGER\n"
    ");\n"
    "CREATE INDEX repeat_group_jobs_group ON repeat_group_jobs(group_id);\n"
    "CREATE TABLE repeat_group_stats (\n"
    "  group_id BIGINT NOT NULL REFERENCES repeat_groups(id),\n"
    "  metric_code TEXT NOT NULL REFERENCES metric_templates(code),\n"
    "  stat TEXT NOT NULL,\n"
    "  n INTEGER NOT NULL,\n"
    "  mean DOUBLE PRECISION NOT NULL,\n"
    "  stddev DOUBLE PRECISION NOT NULL,\n"
    "  ci95_low DOUBLE PRECISION,\n"
    "  ci95_high DOUBLE PRECISION,\n"
    "  cv DOUBLE PRECISION,\n"
    "  PRIMARY KEY (group_id, metric_code, stat)\n"
    ");\n"
    "CREATE VIEW v_repeat_groups AS\n"
    "SELECT g.id AS group_id, g.label AS group_label, g.n_runs, g.group_dir, g.aggregate_file, g.created_at,\n"
    "  g.updated_at, st.metric_code AS metric, t.display_name AS metric_name, t.unit, t.better, t.sort_order,\n"
    "  st.stat, st.n, st.mean, st.stddev, st.ci95_low, st.ci95_high,\n"
    "  (st.ci95_high - st.ci95_low) / 2 AS ci95_half_width, st.cv\n"
    "FROM repeat_groups g\n"
    "  JOIN repeat_group_stats st ON st.group_id = g.id\n"
    "  JOIN metric_templates t ON t.code = st.metric_code;\n";

/* A set that does not add up but still holds a measurement (a records file
 * with fewer rows than the summary's requests, a missing CSV or telemetry
 * file, a repeat aggregate naming runs that are not there: ingest_checks.c)
 * is stored with why in jobs.incomplete; v_jobs calls it 'incomplete'
 * (jobs.status keeps its CHECK'd values). NULL: the set is whole. */
static const char m12_job_incomplete[] =
    "ALTER TABLE jobs ADD COLUMN incomplete TEXT;\n"
    "DROP VIEW IF EXISTS v_jobs;\n"
    "CREATE VIEW v_jobs AS\n"
    "SELECT j.id AS job_id, j.label AS job_label, j.tool_code, j.tool_type, j.tool_version,\n"
    "  j.producer, j.producer_version,\n"
    "  CASE WHEN j.interrupted = 1 THEN 'interrupted' WHEN j.incomplete IS NOT NULL THEN 'incomplete'\n"
    "    ELSE j.status END AS status,\n"
    "  j.started_at, j.finished_at, j.duration_s, j.host,\n"
    "  j.server_url, j.requests_ok, j.requests_failed, j.artifact_dir, j.artifact_file,\n"
    "  j.artifact_sha256, j.ingested_at, s.id AS scenario_id, s.model, s.framework, s.engine_args,\n"
    "  s.hardware, s.gpu_count, s.tp, s.replicas, s.concurrency, s.request_rate, s.isl, s.osl,\n"
    "  s.request_count, s.streaming, s.seed, s.endpoint, s.endpoint_type, j.interrupted, j.incomplete\n"
    "FROM jobs j JOIN scenarios s ON s.id = j.scenario_id;\n";

/* A trace replay (--fixed-schedule true --input-file payload:FILE) has
 * neither a concurrency nor a rate: its load is the trace and the speed-up
 * it was replayed at (_genperf.json "trace"; a GenAI-Perf artifact names
 * the file only, so trace_speedup stays NULL). genperf results shows them. */
static const char m13_job_trace[] =
    "ALTER TABLE jobs ADD COLUMN trace_file TEXT;\n"
    "ALTER TABLE jobs ADD COLUMN trace_speedup DOUBLE PRECISION;\n";

static const struct gp_migration migrations[] = {
    {1, "initial schema: jobs, scenarios, metrics, requests, telemetry, views", m1_schema},
    {2, "metric templates for genperf extras: inter_chunk_latency, client_busy_fraction", m2_genperf_metrics},
    {3, "metric templates for token accounting and reasoning figures", m3_accounting_reasoning},
    {4, "metric templates for the schedule block: lag, late, cap-delayed, from-schedule latency/TTFT, ramp",
     m4_schedule_metrics},
    {5, "per-endpoint breakdown of several --url: job_endpoints, v_endpoint_breakdown", m5_endpoint_breakdown},
    {6, "per-host telemetry: telemetry_samples.host, v_telemetry_job_summary by host", m6_telemetry_host},
    {7, "jobs.interrupted: runs stopped by a signal, from _genperf.json", m7_job_interrupted},
    {8, "per-slice metrics of --timeslice-duration: job_timeslices", m8_job_timeslices},
    {9, "per-model breakdown of several -m: job_models, v_model_breakdown", m9_model_breakdown},
    {10, "energy and cost metric templates, v_energy_cost", m10_energy_cost},
    {11, "repeat groups (--num-runs, repeats:): repeat_groups, repeat_group_jobs, repeat_group_stats, "
         "v_repeat_groups", m11_repeat_groups},
    {12, "jobs.incomplete: why a stored set does not add up (missing files, fewer records)", m12_job_incomplete},
    {13, "jobs.trace_file, jobs.trace_speedup: the load of a trace replay", m13_job_trace},
};

const struct gp_migration *gp_store_migrations(size_t *n)
{
    *n = sizeof migrations / sizeof migrations[0];
    return migrations;
}
