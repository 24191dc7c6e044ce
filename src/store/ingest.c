/* store/ingest.c — artifact directories -> one validated transaction per job.
 *
 * Owns: the struct ig_job of the job in progress (freed by ig_job_free
 * before the next job starts) and the sorted name lists of the directory
 * walk (core/fsutil's gp_dir_list). The database handle and meta are borrowed.
 *
 * Order of work for one job, and why:
 *   1. read + hash the main artifact (identity), parse and validate it and
 *      every sibling file completely (ingest_genai.c, ingest_extras.c,
 *      ingest_jsonl.c), so a bad file rejects the job before any write;
 *   2. a read-only check "already ingested?" (no write lock taken);
 *   3. one transaction writes it (ingest_write.c).
 * Between jobs, and inside the long loops of a job, *meta->stop is polled:
 * an interrupt abandons the job in progress (rolled back) and stops there.
 */
#include "store/store.h"
#include "store/db.h"
#include "store/ingest_internal.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/version.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 6

/* ------------------------------------------------------------ one job */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void sibling(const struct ig_job *j, const char *suffix, char *out, size_t outsz)
{
    snprintf(out, outsz, "%s/%s%s", j->dir, j->stem, suffix);
    if (!gp_is_file(out))
        out[0] = '\0';
}

/* When nothing says which model or stimulus, GenAI-Perf's run directory name
 * does: <model>-openai-chat-concurrency4. */
static void from_dir_name(struct ig_job *j)
{
    const char *b = base_name(j->dir);
    const char *svc = strstr(b, "-openai-");
    if (!svc)
        svc = strstr(b, "-triton-");
    if (!j->model && svc && svc > b) {
        j->model = strndup(b, (size_t)(svc - b));
    }
    const char *c = strstr(b, "-concurrency");
    if (!j->concurrency.set && !j->request_rate.set && c) {
        char *end;
        long long v = strtoll(c + strlen("-concurrency"), &end, 10);
        if (!*end && v > 0)
            j->concurrency.set = 1, j->concurrency.v = v;
    }
    const char *rr = strstr(b, "-request_rate");
    if (!j->concurrency.set && !j->request_rate.set && rr) {
        char *end;
        double v = strtod(rr + strlen("-request_rate"), &end);
        if (!*end && v > 0)
            j->request_rate.set = 1, j->request_rate.v = v;
    }
}

static void apply_meta(struct ig_job *j, const struct gp_ingest_meta *m)
{
    if (!m)
        return;
    if (m->label)
        ig_set_str(&j->label, m->label);
    if (m->model)
        ig_set_str(&j->model, m->model);
    if (m->framework)
        ig_set_str(&j->framework, m->framework);
    if (m->engine_args)
        ig_set_str(&j->engine_args, m->engine_args);
    if (m->hardware)
        ig_set_str(&j->hardware, m->hardware);
    if (m->host)
        ig_set_str(&j->host, m->host);
    if (m->tool_version)
        ig_set_str(&j->tool_version, m->tool_version);
    if (m->gpu_count > 0)
        j->gpu_count.set = 1, j->gpu_count.v = m->gpu_count;
    if (m->tp > 0)
        j->tp.set = 1, j->tp.v = m->tp;
    if (m->replicas > 0)
        j->replicas.set = 1, j->replicas.v = m->replicas;
    if (m->concurrency > 0)
        j->concurrency.set = 1, j->concurrency.v = m->concurrency, j->request_rate.set = 0;
    if (m->isl > 0)
        j->isl.set = 1, j->isl.v = m->isl;
    if (m->osl > 0)
        j->osl.set = 1, j->osl.v = m->osl;
    if (m->request_count > 0)
        j->request_count.set = 1, j->request_count.v = m->request_count;
    if (m->streaming >= 0)
        j->streaming = m->streaming;
}

static void find_run_meta(struct ig_job *j, const char *top)
{
    char d[4096];
    snprintf(d, sizeof d, "%s", j->dir);
    size_t toplen = strlen(top);
    while (toplen > 1 && top[toplen - 1] == '/')
        toplen--;
    for (;;) {
        snprintf(j->run_path, sizeof j->run_path, "%s/genperf_run.json", d);
        if (gp_is_file(j->run_path))
            return;
        char *s = strrchr(d, '/');
        if (!s || strlen(d) <= toplen)
            break;
        *s = '\0';
    }
    j->run_path[0] = '\0';
}

static void msg(struct gp_ingest_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void msg(struct gp_ingest_result *res, const char *fmt, ...)
{
    char line[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    gp_buf_puts(&res->messages, line);
    gp_buf_putc(&res->messages, '\n');
}

/* Paths, identity and the producer of the job whose main artifact is
 * dir/stem_genai_perf.{json,csv}. */
static int job_locate(struct ig_job *j, const char *top, const char *dir, const char *stem, int is_csv,
                      struct gp_error *err)
{
    snprintf(j->dir, sizeof j->dir, "%s", dir);
    snprintf(j->stem, sizeof j->stem, "%s", stem);
    snprintf(j->main_path, sizeof j->main_path, "%s/%s_genai_perf.%s", dir, stem, is_csv ? "csv" : "json");
    j->main_is_csv = is_csv;
    char *bytes = NULL;
    size_t len = 0;
    int r;
    if ((r = gp_read_file_max(j->main_path, IG_MAX_WHOLE_FILE, GP_READ_REGULAR, &bytes, &len, err)))
        return r;
    gp_sha256_hex(bytes, len, j->sha);
    free(bytes);

    sibling(j, ".json", j->export_path, sizeof j->export_path);
    sibling(j, "_records.jsonl", j->records_path, sizeof j->records_path);
    sibling(j, "_genperf.json", j->genperf_path, sizeof j->genperf_path);
    sibling(j, "_telemetry.jsonl", j->telemetry_path, sizeof j->telemetry_path);
    find_run_meta(j, top);
    if ((r = ig_locate_group(j, err)))
        return r;

    j->producer = (j->genperf_path[0] || j->records_path[0]) ? "genperf" : "genai-perf";
    if (!strcmp(j->producer, "genperf")) {
        ig_set_str(&j->tool_version, GP_GENAI_PERF_COMPAT_VERSION);
        ig_set_str(&j->producer_version, GP_VERSION);
    }
    return 0;
}

/* genperf writes <stem>_genperf.json and <stem>_records.jsonl beside every
 * summary; one without the other is a set its run could not finish (a full
 * disk), whose summary counts requests that no row would back. */
static int job_whole(const struct ig_job *j, struct gp_error *err)
{
    if (!j->genperf_path[0] == !j->records_path[0])
        return 0;
    return gp_err(err, GP_EINVAL,
                  "%s: incomplete set: %s/%s%s is missing beside %s (genperf writes both; the run could not write "
                  "it, e.g. a full disk: see its exit status); rerun, or restore the file",
                  j->main_path, j->dir, j->stem, j->genperf_path[0] ? "_records.jsonl" : "_genperf.json",
                  j->genperf_path[0] ? j->genperf_path : j->records_path);
}

/* Parses and validates every file of the job, then fills what they left
 * open: metadata precedence is meta > genperf_run.json > artifacts > dir name. */
static int job_read(struct ig_job *j, const struct gp_ingest_meta *meta, struct gp_error *err)
{
    int r;
    if ((r = job_whole(j, err)) || (r = j->main_is_csv ? ig_parse_genai_perf_csv(j, err) : ig_parse_genai_perf_json(j, err)) ||
        (j->genperf_path[0] && (r = ig_parse_genperf_summary(j, err))) ||
        (j->export_path[0] && (r = ig_parse_profile_export(j, err))) ||
        (j->records_path[0] && (r = ig_validate_records(j, err))) ||
        (j->telemetry_path[0] && (r = ig_validate_telemetry(j, err))) ||
        (j->run_path[0] && (r = ig_parse_run_meta(j, err))) || (r = ig_check_adds_up(j, err)))
        return r;
    from_dir_name(j);
    apply_meta(j, meta);
    if (!j->model)
        return gp_err(err, GP_EINVAL,
                      "%s: no model name (no input_config.model_names, no genperf_run.json, run directory not "
                      "named <model>-openai-...); pass --model NAME",
                      j->main_path);
    if (!j->finished_at[0]) {
        struct stat st;
        if (stat(j->main_path, &st) == 0)
            ig_iso_from_ns((long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, j->finished_at);
    }
    if (!j->requests_ok.set) {
        for (size_t i = 0; i < j->nmv; i++)
            if (!strcmp(j->mv[i].metric, "request_count") && !strcmp(j->mv[i].stat, "avg") && !j->mv[i].isnull)
                j->requests_ok.set = 1, j->requests_ok.v = (long long)j->mv[i].v;
    }
    return 0;
}

/* Check, write or skip the read job; one message line either way. */
static int job_store(struct gp_db *db, struct ig_job *j, const struct gp_ingest_meta *meta,
                     struct gp_ingest_result *res, struct gp_error *err)
{
    long long existing = 0;
    int r;
    if ((r = ig_find_job(db, j->sha, &existing, err)))
        return r;
    size_t nvalues = j->nmv + (j->requests_failed.set ? 1 : 0);
    if (existing <= 0 && meta && meta->validate_only) {
        res->jobs_added++;
        msg(res,
            "%s: valid (%s, model %s): %zu metric values, %zu requests, %zu telemetry samples%s%s; not written "
            "(--check)",
            j->main_path, j->producer, j->model, nvalues, j->n_records ? j->n_records : j->n_export_requests,
            j->n_samples, j->incomplete[0] ? "; incomplete: " : "", j->incomplete);
        return 0;
    }
    if (existing <= 0) {
        long long id = ig_write_job(db, j, &existing, err);
        if (id < 0)
            return (int)id;
        if (id > 0) {
            res->jobs_added++;
            res->last_job_id = id;
            char grp[64] = "";
            if (j->group_id > 0)
                snprintf(grp, sizeof grp, "; run %ld of repeat group %lld", j->repeat_index, j->group_id);
            msg(res, "job %lld: ingested %s (%s, model %s): %zu metric values, %zu requests, %zu telemetry samples%s%s%s%s",
                id, j->main_path, j->producer, j->model, nvalues, j->n_records, j->n_samples, grp,
                j->export_skipped ? " (profile export over 256 MiB: its per-request timing was skipped)" : "",
                j->incomplete[0] ? "; marked incomplete: " : "", j->incomplete);
            return 0;
        }
    }
    res->jobs_existing++;
    res->last_job_id = existing;
    msg(res, "%s: already ingested as job %lld, nothing changed", j->main_path, existing);
    return 0;
}

/* -GP_EINTR (nothing counted, nothing written) when interrupted. */
static int ingest_one(struct gp_db *db, const char *top, const char *dir, const char *stem, int is_csv,
                      const struct gp_ingest_meta *meta, struct gp_ingest_result *res, struct gp_error *err)
{
    struct ig_job j;
    memset(&j, 0, sizeof j);
    j.stop = meta ? meta->stop : NULL;
    int r = job_locate(&j, top, dir, stem, is_csv, err);
    if (!r)
        r = job_read(&j, meta, err);
    if (!r)
        r = job_store(db, &j, meta, res, err);
    if (!r && j.group_left_out[0])
        msg(res, "%s: not in the repeat group of %s: its aggregate left run %ld out (%s)", j.main_path, j.group_dir,
            j.repeat_index, j.group_left_out);
    if (r != -GP_EINTR) {
        res->jobs_found++;
        if (r) {
            res->jobs_rejected++;
            msg(res, "rejected: %s", err ? err->msg : "error");
        }
    }
    ig_job_free(&j);
    return r;
}

/* ------------------------------------------------------------ discovery */

/* One walk over an artifact tree: counts the jobs (db NULL) or ingests them. */
struct walk {
    struct gp_db *db;
    const char *top;
    const struct gp_ingest_meta *meta;
    struct gp_ingest_result *res;
    struct gp_error *err;
    size_t jobs;     /* main artifacts found */
    int first_err;   /* the first rejection is in *err */
    int stopped;     /* interrupted: walk no further */
};

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n > m && !strcmp(s + n - m, suf);
}

/* A <stem>_genperf.json without its summary: the run could not write the
 * summary (genperf leaves it out of an incomplete set). Rejected by name, so
 * a tree walk does not pass over the run in silence. */
static void visit_orphan(struct walk *w, const char *dir, const char *nm)
{
    size_t stemlen = strlen(nm) - strlen("_genperf.json");
    char p[4200];
    snprintf(p, sizeof p, "%s/%.*s_genai_perf.json", dir, (int)stemlen, nm);
    if (gp_is_file(p))
        return;
    snprintf(p, sizeof p, "%s/%.*s_genai_perf.csv", dir, (int)stemlen, nm);
    if (gp_is_file(p))
        return;
    w->jobs++;
    if (!w->db)
        return;
    struct gp_error jerr;
    gp_err(&jerr, GP_EINVAL,
           "%s/%s: incomplete set: no %.*s_genai_perf.json beside it (its run could not write every file, e.g. a "
           "full disk, and left the summary out: see its exit status); rerun it",
           dir, nm, (int)stemlen, nm);
    w->res->jobs_found++;
    w->res->jobs_rejected++;
    msg(w->res, "rejected: %s", jerr.msg);
    if (!w->first_err) {
        w->first_err = 1;
        if (w->err)
            *w->err = jerr;
    }
}

/* One directory entry: a main artifact is counted or ingested. */
static void visit_file(struct walk *w, const char *dir, const char *nm)
{
    int is_json = ends_with(nm, "_genai_perf.json"), is_csv = ends_with(nm, "_genai_perf.csv");
    if (ends_with(nm, "_genperf.json"))
        visit_orphan(w, dir, nm);
    if (!is_json && !is_csv)
        return;
    if (!strcmp(nm, "analyze_export_genai_perf.csv")) {
        /* `genai-perf analyze` summary: its runs have their own directories */
        if (w->db)
            msg(w->res, "%s/%s: skipped (a sweep summary; its runs are ingested from their own directories)", dir,
                nm);
        return;
    }
    size_t stemlen = strlen(nm) - strlen(is_json ? "_genai_perf.json" : "_genai_perf.csv");
    char stem[1024];
    snprintf(stem, sizeof stem, "%.*s", (int)stemlen, nm);
    if (is_csv) {
        /* the JSON wins when both exist */
        char jp[4200];
        snprintf(jp, sizeof jp, "%s/%s_genai_perf.json", dir, stem);
        if (gp_is_file(jp))
            return;
    }
    w->jobs++;
    if (!w->db)
        return;
    const struct gp_ingest_meta *meta = w->meta;
    struct gp_error jerr;
    gp_err_clear(&jerr);
    int r = meta && meta->stop && *meta->stop
                ? gp_err(&jerr, GP_EINTR, "interrupted before %s/%s", dir, nm)
                : ingest_one(w->db, w->top, dir, stem, is_csv, meta, w->res, &jerr);
    if (r == -GP_EINTR) {
        w->stopped = 1;
        if (w->err)
            *w->err = jerr;
    } else if (r && !w->first_err) {
        w->first_err = 1;
        if (w->err)
            *w->err = jerr;
    }
}

static int walk(struct walk *w, const char *dir, int depth)
{
    char **names = NULL;
    size_t n = 0;
    struct gp_error lerr; /* the walk words its own message, from errno */
    if (gp_dir_list(dir, NULL, NULL, &names, &n, &lerr)) {
        if (depth == 0)
            return gp_err(w->err, GP_EIO, "cannot read directory %s: %s", dir, strerror(errno));
        if (!w->db)
            return 0;
        if (!w->first_err) {
            w->first_err = 1;
            gp_err(w->err, GP_EIO, "cannot read directory %s: %s", dir, strerror(errno));
        }
        w->res->jobs_rejected++;
        msg(w->res, "rejected: cannot read directory %s: %s", dir, strerror(errno));
        return 0;
    }
    for (size_t i = 0; i < n && !w->stopped; i++)
        visit_file(w, dir, names[i]);
    /* run directories can sit next to (and below) a job's files: always descend */
    for (size_t i = 0; depth < MAX_DEPTH && i < n && !w->stopped; i++) {
        char sub[4096];
        if (gp_path_join(sub, sizeof sub, dir, names[i]) || !gp_is_dir(sub))
            continue;
        /* the first rejection inside is reported through w->err directly */
        walk(w, sub, depth + 1);
    }
    gp_dir_list_free(names, n);
    return 0;
}

/* dir without trailing slashes, so messages and genperf_run.json lookups
 * (which stop at the top) see one spelling. */
static void trim_dir(const char *dir, char out[4096])
{
    snprintf(out, 4096, "%s", dir);
    size_t n = strlen(out);
    while (n > 1 && out[n - 1] == '/')
        out[--n] = '\0';
}

size_t gp_store_count_jobs(const char *dir)
{
    char d[4096];
    trim_dir(dir, d);
    struct walk w = {.top = d};
    struct gp_error err;
    gp_err_clear(&err);
    w.err = &err;
    if (!gp_is_dir(d) || walk(&w, d, 0))
        return 0;
    return w.jobs;
}

int gp_store_ingest_dir(struct gp_db *db, const char *dir, const struct gp_ingest_meta *meta,
                        struct gp_ingest_result *res, struct gp_error *err)
{
    if (!gp_is_dir(dir))
        return gp_err(err, GP_ENOENT, "%s is not a directory; pass a GenAI-Perf run directory or an artifact tree",
                      dir);
    char d[4096];
    trim_dir(dir, d);
    struct walk w = {.db = db, .top = d, .meta = meta, .res = res, .err = err};
    int r = walk(&w, d, 0);
    if (r)
        return r;
    if (w.stopped)
        return -GP_EINTR;
    if (w.first_err)
        return -(err && err->code ? err->code : GP_EINVAL);
    if (!w.jobs)
        return gp_err(err, GP_ENOENT,
                      "%s: no *_genai_perf.json or *_genai_perf.csv found (searched %d levels deep); is this an "
                      "artifact directory?",
                      dir, MAX_DEPTH);
    return 0;
}

void gp_ingest_result_free(struct gp_ingest_result *res)
{
    gp_buf_free(&res->messages);
}
