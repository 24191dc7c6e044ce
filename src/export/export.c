/* export/export.c — gp_export_all (every artifact of a run, in GenAI-Perf's
 * order), the file stem and the run name. What the writers share (rows,
 * labels, one statistic's JSON, the atomic write) is in rows.c, below them,
 * so that calls run one way: export.c -> writers -> rows.c.
 *
 * One file per artifact: genai_json.c (<stem>_genai_perf.json), csv.c
 * (<stem>_genai_perf.csv), console.c (the rich table), stream.c
 * (profile_export.json and <stem>_records.jsonl, streamed), genperf_json.c
 * (<stem>_genperf.json). Layouts, labels and number formats follow
 * genai-perf-profile.md §4.6, §7 and §8 literally; the unit tests compare
 * against the spec's examples byte for byte.
 */
#include "export/export.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "export/export_int.h"
#include "metrics/metrics.h"
#include "dataset/dataset.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void gp_export_stem(const char *file, char *out, size_t outsz)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char *dot = strrchr(base, '.');
    /* Python os.path.splitext: a leading dot is not an extension */
    size_t n = (dot && dot != base) ? (size_t)(dot - base) : strlen(base);
    snprintf(out, outsz, "%.*s", (int)n, base);
}

int gp_export_run_name(const char *model0, int multi, const char *type, const char *stimulus, char *out,
                       size_t outsz)
{
    int n = snprintf(out, outsz, "%s%s-openai-%s%s%s", model0, multi ? "_multi" : "", type, *stimulus ? "-" : "",
                     stimulus);
    if (n < 0 || (size_t)n >= outsz)
        return -1;
    size_t m = strlen(model0);
    for (size_t i = 0; i < m; i++)
        if (out[i] == '/')
            out[i] = '_';
    return 0;
}

/* ---- all ------------------------------------------------------------------ */

/* The big files written on their own threads: profile_export.json always,
 * <stem>_records.jsonl too when started before the metrics finish. */
struct pe_file {
    struct gp_export_pe *pe;
    int records;              /* 0 profile_export.json, 1 <stem>_records.jsonl */
    char path[4096];
    struct gp_error err;
    int rc;
    pthread_t th;
    int threaded;
};

struct gp_export_pe {
    struct gp_export_ctx ctx; /* the caller's, copied: the threads may outlive its frame */
    struct pe_file f[2];
    int nf;
};

static void *pe_thread(void *arg)
{
    struct pe_file *f = arg;
    f->rc = f->records ? gp_export_records_jsonl(&f->pe->ctx, f->path, &f->err)
                       : gp_export_profile_json(&f->pe->ctx, f->path, &f->err);
    return NULL;
}

/* A second thread costs its stack and, at its first malloc, a malloc arena
 * of 64 MiB of address space: under an address-space limit (ulimit -v) that
 * can be all the room a run that filled memory has left, so the files are
 * written one after the other there. */
static int address_space_limited(void)
{
    struct rlimit rl;
    return getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY;
}

/* The file name given (without a directory: GenAI-Perf writes it into the run directory). */
static const char *pe_name(const struct gp_export_ctx *ctx)
{
    const char *pef = ctx->profile_export_file ? ctx->profile_export_file : "profile_export.json";
    const char *slash = strrchr(pef, '/');
    return slash ? slash + 1 : pef;
}

/* run_dir/<stem><suffix>: the artifacts beside the profile export */
static int stem_path(const struct gp_export_ctx *ctx, const char *suffix, char *out, size_t n)
{
    char stem[1024], name[1200];
    gp_export_stem(pe_name(ctx), stem, sizeof stem);
    snprintf(name, sizeof name, "%s%s", stem, suffix);
    return gp_path_join(out, n, ctx->run_dir, name);
}

/* A job for profile_export.json (and the records file), each on its own
 * thread unless threads are out: gp_export_pe_join then writes it. */
static int pe_new(const struct gp_export_ctx *ctx, int with_records, struct gp_export_pe **out, struct gp_error *err)
{
    *out = NULL;
    int rc = gp_mkdir_p(ctx->run_dir, err);
    if (rc)
        return rc;
    struct gp_export_pe *job = calloc(1, sizeof *job);
    if (!job)
        return gp_err(err, GP_ENOMEM, "out of memory starting the export");
    job->ctx = *ctx;
    job->ctx.pe = NULL;
    job->nf = with_records ? 2 : 1;
    for (int i = 0; i < job->nf; i++) {
        struct pe_file *f = &job->f[i];
        f->pe = job;
        f->records = i;
        if (i ? stem_path(ctx, "_records.jsonl", f->path, sizeof f->path)
              : gp_path_join(f->path, sizeof f->path, ctx->run_dir, pe_name(ctx))) {
            free(job);
            return gp_err(err, GP_EINVAL, "run directory path '%s' is too long", ctx->run_dir);
        }
    }
    int limited = address_space_limited();
    for (int i = 0; i < job->nf; i++)
        job->f[i].threaded = !limited && pthread_create(&job->f[i].th, NULL, pe_thread, &job->f[i]) == 0;
    *out = job;
    return 0;
}

int gp_export_pe_start(const struct gp_export_ctx *ctx, struct gp_export_pe **out, struct gp_error *err)
{
    if (!ctx->run_dir || !ctx->store || !ctx->m || !ctx->watch)
        return gp_err(err, GP_EINVAL, "export: run_dir, store, metrics and a watch are required");
    return pe_new(ctx, 1, out, err);
}

int gp_export_pe_join(struct gp_export_pe *job, struct gp_error *err)
{
    if (!job)
        return 0;
    int rc = 0;
    for (int i = 0; i < job->nf; i++) {
        struct pe_file *f = &job->f[i];
        if (f->threaded)
            pthread_join(f->th, NULL);
        else
            pe_thread(f); /* no thread: now (with a watch, the metrics are over by now) */
        if (f->rc && !rc) {
            rc = f->rc;
            if (err)
                *err = f->err;
        }
    }
    free(job);
    return rc;
}

/* What a failed export could not write: every file named in one message. */
struct export_failures {
    char msg[sizeof ((struct gp_error *)0)->msg];
    int n, code;
};

static void note_failure(struct export_failures *f, const struct gp_error *e)
{
    size_t len = strlen(f->msg);
    snprintf(f->msg + len, sizeof f->msg - len, "%s%s", f->n ? "; " : "", e->msg);
    if (!f->n++)
        f->code = e->code ? e->code : GP_EIO;
}

/* Waits for the threaded files (as gp_export_pe_join), noting each failure. */
static void join_noting(struct gp_export_pe *job, struct export_failures *f)
{
    for (int i = 0; i < job->nf; i++) {
        struct pe_file *pf = &job->f[i];
        if (pf->threaded)
            pthread_join(pf->th, NULL);
        else
            pe_thread(pf);
        if (pf->rc)
            note_failure(f, &pf->err);
    }
    free(job);
}

int gp_export_all(const struct gp_export_ctx *ctx, struct gp_error *err)
{
    if (!ctx->run_dir || !ctx->store || !ctx->m) {
        gp_export_pe_join(ctx->pe, NULL);
        return gp_err(err, GP_EINVAL, "export: run_dir, store and metrics are required");
    }
    int rc = gp_mkdir_p(ctx->run_dir, err);
    if (!rc)
        rc = gp_export_console(ctx, err);
    /* the big files are written on threads (started here, or already by
     * gp_export_pe_start, which also took the records file) while the
     * summaries are written here (all only read the store and the metrics) */
    struct gp_export_pe *job = ctx->pe;
    if (!job && !rc)
        rc = pe_new(ctx, 0, &job, err);
    if (rc) {
        gp_export_pe_join(job, NULL);
        return rc;
    }
    /* A full disk can fail any file. The <stem>_genai_perf.json (or .csv)
     * makes a directory a job for `genperf ingest`, so it is written last and
     * only over a whole set: a run that lost its records or its profile
     * export never leaves a summary that ingests as a clean job. Every other
     * file is still tried, and every failure is named. */
    struct export_failures fails = {.n = 0};
    char path[4096];
    struct gp_error ferr;
    if (job->nf < 2) {
        stem_path(ctx, "_records.jsonl", path, sizeof path);
        if (gp_export_records_jsonl(ctx, path, &ferr))
            note_failure(&fails, &ferr);
    }
    stem_path(ctx, "_genperf.json", path, sizeof path);
    if (gp_export_genperf_json(ctx, path, &ferr))
        note_failure(&fails, &ferr);
    join_noting(job, &fails);
    /* the JSON before the CSV: a CSV alone would be ingested in its place */
    static const struct {
        const char *suffix;
        int (*write)(const struct gp_export_ctx *, const char *, struct gp_error *);
    } summaries[] = {
        {"_genai_perf.json", gp_export_genai_perf_json},
        {"_genai_perf.csv", gp_export_genai_perf_csv},
    };
    char skipped[600] = "";
    for (size_t i = 0; i < sizeof summaries / sizeof summaries[0]; i++) {
        stem_path(ctx, summaries[i].suffix, path, sizeof path);
        if (fails.n) {
            size_t len = strlen(skipped);
            snprintf(skipped + len, sizeof skipped - len, "%s%s", len ? ", " : "", strrchr(path, '/') + 1);
        } else if (summaries[i].write(ctx, path, &ferr)) {
            note_failure(&fails, &ferr);
        }
    }
    if (!fails.n)
        return 0;
    if (skipped[0])
        return gp_err(err, fails.code, "%s; not written, so that the incomplete set in %s is not taken for a whole "
                      "run: %s", fails.msg, ctx->run_dir, skipped);
    return gp_err(err, fails.code, "%s", fails.msg);
}
