/* report/report.h — the Benchmarks page (`genperf ui`) and self-contained
 * HTML reports (`genperf report`).
 *
 * Owns: escaping for HTML and for JSON inside <script>, the page builder
 * (embedded app + uPlot), the JSON endpoint builders over the results store
 * (store/db.h only), the same answers built from an artifact directory, the
 * microhttpd server, and the report writer.
 *
 * Memory: every builder appends to a caller-owned struct gp_buf (the caller
 * frees it with gp_buf_free); json_t values returned through out-pointers
 * belong to the caller (json_decref). Nothing here keeps global state.
 *
 * The JSON endpoints (documented in docs/report.md):
 *   GET /api/jobs[?model=&framework=&hardware=&from=&to=&sort=&order=]
 *   GET /api/job?id=N            job row, metric table, telemetry summary
 *   GET /api/job/requests?id=N   per-request TTFT / latency / ITL
 *   GET /api/job/telemetry?id=N  telemetry time series
 *   GET /api/compare?ids=1,2 | ?scenario=NAME
 *   GET /report?id=N[,N...]      the same as `genperf report`, as a download
 * A report embeds the answers to exactly these paths in a JSON "bundle"
 * ({"start": "#/job/N", "api": {"/api/jobs": {...}, ...}}), so the page code
 * is the same in both.
 */
#ifndef GP_REPORT_REPORT_H
#define GP_REPORT_REPORT_H

#include <stddef.h>

#include <jansson.h>

struct gp_buf;
struct gp_db;
struct gp_error;

/* The one escaping function for text placed into HTML (element content or a
 * quoted attribute): & < > " ' become entities; invalid UTF-8 becomes U+FFFD.
 * Returns 0 or -GP_ENOMEM. */
int gp_html_escape(struct gp_buf *b, const char *s, size_t n);

/* Appends JSON text so it can sit inside <script type="application/json">:
 * '<', '>', '&', U+2028 and U+2029 are written as \u escapes (which JSON
 * readers decode back), so no "</script>" or "<!--" can end the element. The
 * input must be valid JSON (json_dumps output); strings stay intact. */
int gp_json_script_escape(struct gp_buf *b, const char *json, size_t n);

enum gp_page_mode {
    GP_PAGE_UI = 1,     /* scripts and CSS are separate URLs (/assets/...) so a strict CSP applies */
    GP_PAGE_REPORT = 2, /* everything inline, plus the data bundle: opens from file:// offline */
};

/* Builds the whole HTML page. title is escaped here; bundle (JSON text, may be
 * NULL in UI mode) is embedded with gp_json_script_escape. */
int gp_page_build(struct gp_buf *out, enum gp_page_mode mode, const char *title, const char *bundle_json);

/* The embedded static assets, for the UI server: name is "app.js",
 * "compare.js", "jobparts.js", "app.css", "uPlot.min.js" or "uPlot.min.css".
 * Returns NULL if unknown. */
const unsigned char *gp_page_asset(const char *name, size_t *len, const char **content_type);

/* ---- JSON endpoint answers over the results store (rdb.c) ---------------- */

struct gp_jobs_filter {
    const char *model, *framework, *hardware; /* exact match; NULL or "" = any */
    const char *from, *to;                    /* YYYY-MM-DD inclusive on created_at; NULL = open */
    const char *sort;                         /* a metric key "metric.stat", or a job column */
    int desc;
};

/* Filters and sorts the "jobs" array of a /api/jobs answer in place, the
 * same way for both sources. Unknown sort keys are -GP_EINVAL; jobs without
 * the sort key go last. */
int gp_jobs_filter_apply(json_t *jobs, const struct gp_jobs_filter *f, struct gp_error *err);

/* Caps each {t_s, v} series of a telemetry answer at about max_points by
 * keeping each bucket's min and max sample; a capped series gets
 * "downsampled_from": N. Both sources apply it with GP_SERIES_MAX_POINTS. */
#define GP_SERIES_MAX_POINTS 4000
void gp_series_downsample(json_t *series, size_t max_points);

/* Each returns 0 and a new json_t in *out, or a negative gp_errcode with err
 * filled (-GP_ENOENT for an unknown job id). */
int gp_rdb_jobs(struct gp_db *db, const struct gp_jobs_filter *f, json_t **out, struct gp_error *err);
int gp_rdb_job(struct gp_db *db, const char *id, json_t **out, struct gp_error *err);
int gp_rdb_requests(struct gp_db *db, const char *id, json_t **out, struct gp_error *err);
int gp_rdb_telemetry(struct gp_db *db, const char *id, json_t **out, struct gp_error *err);
/* ids: comma-separated job ids, or NULL with scenario set. */
int gp_rdb_compare(struct gp_db *db, const char *ids, const char *scenario, json_t **out, struct gp_error *err);

/* The report bundle for jobs of the store: ids is one id or several
 * ("3,4,5"); each job's page, requests and telemetry, the list of just those
 * jobs, and their comparison (under /api/compare?ids=<ids as given>). */
int gp_rdb_bundle(struct gp_db *db, const char *ids, json_t **out, struct gp_error *err);

/* ---- sweeps and searches (sweep.c) --------------------------------------- */

/* Parses a search_export_genperf.csv (docs/search.md) into {"search_type",
 * "limit", "stopped", "reason", "goodput_target", "slos", "file", "cells":
 * [{"cell", "search_type", "value", "meets", "good_share"}]}; NULL when the
 * file is missing or is not one. The caller owns the result. */
json_t *gp_search_csv_load(const char *path);

/* Completes a /api/compare answer in place: "slos" (the first point's
 * "slos" object, or null) and, when a search_export_genperf.csv sits in the
 * parent of a point's "artifact_dir", "search" (as above, without "file")
 * and per point "meets", "good_share" and "limit" (true for the limit). */
void gp_compare_decorate(json_t *answer);

/* ---- the same answers from GenAI-Perf artifact directories (artifact.c) -- */

/* dir is one run directory (holding *_genai_perf.json and, optionally, the
 * profile export it came from) or a directory of run directories (each one
 * becomes a job, ids 1..N in name order; the compare view spans them all). */
int gp_artifact_bundle(const char *dir, json_t **out, struct gp_error *err);

/* Reads a JSON file GenAI-Perf or genperf wrote (NaN/Infinity allowed). */
json_t *gp_artifact_load_json(const char *path, struct gp_error *err);
/* The /api/job/requests answer from a parsed profile export (NULL gives
 * empty arrays): ttft_ms, latency_ms and exact itl_by_position. */
json_t *gp_artifact_requests(json_t *profile_export);
/* The /api/job "timeslices" rows from a parsed <stem>_genperf.json and its
 * telemetry JSONL (NULL: none) (artifact_slices.c); [] without slices. */
json_t *gp_artifact_timeslices(const json_t *genperf_summary, const char *telemetry_path);

/* Replaces the non-JSON tokens Python's json.dumps may write (NaN, Infinity,
 * -Infinity) outside strings with null, in a new malloc'd string. */
char *gp_json_sanitize_py(const char *text, size_t n);

/* ---- report and server --------------------------------------------------- */

/* Writes the self-contained HTML for bundle to path atomically. */
int gp_report_write(const char *path, const char *title, json_t *bundle, struct gp_error *err);

/* Where the server's answers come from: the store (rdb.c) or a bundle (an
 * artifact directory turned into endpoint answers, artifact.c). answer()
 * fills *out with a new json_t or returns a negative gp_errcode with err set
 * (-GP_ENOENT -> 404, -GP_EINVAL -> 400, others -> 500). */
typedef const char *(*gp_ui_arg_fn)(void *actx, const char *key);
struct gp_ui_src {
    int (*answer)(void *self, const char *path, gp_ui_arg_fn get, void *actx, json_t **out, struct gp_error *err);
    /* The report bundle for ids ("3" or "3,4,5"; NULL = everything the source holds, if it can). */
    int (*bundle)(void *self, const char *ids, json_t **out, struct gp_error *err);
    void *self;
};
/* Answers from a bundle (the one a report embeds); bundle is borrowed. */
struct gp_ui_src gp_ui_bundle_src(json_t *bundle);
/* Answers from an open store connection (rdb.c); db is borrowed. */
struct gp_ui_src gp_rdb_src(struct gp_db *db);

struct gp_ui_opts {
    const char *host;      /* numeric IPv4 address to bind; NULL = 127.0.0.1 */
    int port;              /* 0 = any free port */
    const char *port_file; /* if set, "http://HOST:PORT" is written there once listening */
    /* called once listening (the command prints the URL; library code does not print) */
    void (*on_listen)(const char *url, void *ctx);
    void *listen_ctx;
    /* --allow-host: Host names answered besides localhost, 127.0.0.1 and [::1] */
    const char *const *allow_hosts;
    size_t n_allow_hosts;
};

/* Whether a request whose Host header is host (NULL: none) is answered: its
 * name is localhost, 127.0.0.1, [::1] or one of o->allow_hosts (any case),
 * or, when the server is not bound to loopback, an IP literal; a port, if
 * any, must be 1..65535 but is not compared (tunnels send their own). */
int gp_ui_host_ok(const struct gp_ui_opts *o, int loopback, const char *host);
/* Checks an --allow-host value: a name or address without a port. */
int gp_ui_allow_host_check(const char *name, struct gp_error *err);

/* Serves src until SIGINT or SIGTERM: blocks both in the calling thread
 * before the server threads start (they inherit the mask) and waits for them
 * with sigwait, so no signal handler or global flag is needed. */
int gp_ui_run(const struct gp_ui_opts *o, const struct gp_ui_src *src, struct gp_error *err);

/* Routes one GET request (path without the query; get(actx, key) returns a
 * query argument or NULL) into *status, *ctype and body. The server uses it,
 * and unit tests call it without sockets. Static assets come back with
 * *static_body set (body untouched) so they are not copied. */
int gp_ui_route(const struct gp_ui_src *src, const char *path, gp_ui_arg_fn get, void *actx, int *status,
                const char **ctype, struct gp_buf *body, const unsigned char **static_body, size_t *static_len);

#endif
