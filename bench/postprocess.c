/* bench/postprocess.c — post-processing cost for a large run (issue 10 item 7).
 *
 * Builds N synthetic streamed request records in a gp_record_store (a role
 * chunk, K content chunks, a usage chunk and [DONE], as vLLM sends them),
 * then times gp_metrics_compute and gp_export_all (every artifact, fsync'd).
 * Where the library has the pipeline (GP_EXPORT_PE_PIPELINE), profile_export.json
 * is written during the metrics, as genperf profile does: "metrics" then
 * includes that overlap and "export" is what is left after it. Usage: postprocess [N=1000000] [K=4] [out_dir=bench/out/postprocess | - for metrics only]
 * Prints one line per phase, "total <s> s (goal < 2 s)" (issue 19) and the
 * peak RSS. The wall-clock origin is fixed, so the files are the same bytes
 * on every run (bench/postprocess_bench.sh compares two builds with them).
 */
#include "client/record.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/error.h"
#include "dataset/dataset.h"
#include "export/export.h"
#include "metrics/metrics.h"
#include "tokenizer/tokenizer.h"
#ifdef GP_EXPORT_PE_PIPELINE /* export.h says so; older builds (PP_BASE_REF) have no watch */
#include "metrics/watch.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
    int k = argc > 2 ? atoi(argv[2]) : 4;
    const char *out = argc > 3 ? argv[3] : "bench/out/postprocess";
    if (k < 1 || k > 60)
        k = 4;
    struct gp_record_store st;
    gp_record_store_init(&st);
    st.mono0_ns = gp_now_ns();
    /* a fixed wall-clock origin: the artifacts are then the same bytes on
     * every run, so two builds' outputs can be compared with cmp/sha256 */
    st.wall0_ns = 1733000000000000000ull;

    struct gp_dataset ds;
    ds.n = 100;
    ds.entries = calloc(ds.n, sizeof *ds.entries);
    for (size_t i = 0; i < ds.n; i++) {
        char p[256];
        snprintf(p, sizeof p, "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"prompt %zu\"}],"
                              "\"stream\":true,\"max_tokens\":%d}", i, k);
        ds.entries[i].payload = strdup(p);
        ds.entries[i].payload_len = strlen(p);
        ds.entries[i].isl = 550;
        ds.entries[i].osl_asked = k;
    }

    uint64_t t_build = gp_now_ns();
    struct gp_buf body = {0};
    struct gp_chunk ch[64];
    const char *role = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                       "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n";
    const char *tokev = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                        "\"delta\":{\"content\":\"x\"},\"finish_reason\":null}]}\n\n";
    char tail[160];
    snprintf(tail, sizeof tail, "data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"prompt_tokens\":560,"
                                "\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n", k);
    for (size_t i = 0; i < n; i++) {
        gp_buf_reset(&body);
        uint64_t t0 = st.mono0_ns + i * 1000;
        size_t nc = 0;
        ch[nc].t_ns = t0 + 20000000;
        ch[nc].off = body.len;
        gp_buf_puts(&body, role);
        ch[nc].len = (uint32_t)(body.len - ch[nc].off);
        nc++;
        for (int c = 0; c < k; c++) {
            ch[nc].t_ns = t0 + 20000000 + (uint64_t)c * (9000000 + (i * 7919 + (size_t)c * 104729) % 2000000);
            ch[nc].off = body.len;
            gp_buf_puts(&body, tokev);
            ch[nc].len = (uint32_t)(body.len - ch[nc].off);
            nc++;
        }
        ch[nc].t_ns = ch[nc - 1].t_ns + 100000;
        ch[nc].off = body.len;
        gp_buf_puts(&body, tail);
        ch[nc].len = (uint32_t)(body.len - ch[nc].off);
        nc++;
        struct gp_record r = {0};
        r.t_start_ns = t0;
        r.t_end_ns = ch[nc - 1].t_ns + 1000;
        r.http_status = 200;
        r.flags = GP_REC_STREAMING;
        r.entry = (uint32_t)(i % ds.n);
        if (gp_record_append(&st, &r, ch, nc, body.data, body.len, NULL, 0) < 0) {
            fprintf(stderr, "out of memory building %zu records\n", n);
            return 1;
        }
    }
    gp_buf_free(&body);
    uint64_t t_built = gp_now_ns();
    printf("build    %zu records x %d content chunks (%.0f MB of response bytes): %.3f s (not counted)\n", n, k,
           st.bytes.len / 1e6, (t_built - t_build) / 1e9);

    struct gp_tokenizer *tok = NULL;
    struct gp_error err = {0};
    if (gp_tokenizer_load("builtin", NULL, &tok, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    struct gp_metrics_opts o = {.inter_chunk = 1};
    struct gp_metrics_result m;
    int only_metrics = strcmp(out, "-") == 0;
    FILE *devnull = fopen("/dev/null", "w");
    json_t *ic = json_pack("{s:[s], s:s}", "model_names", "m", "subcommand", "profile");
    struct gp_export_ctx ctx = {0};
    ctx.run_dir = out;
    ctx.profile_export_file = "profile_export.json";
    ctx.mode = "concurrency";
    ctx.value = 64;
    ctx.service_kind = "openai";
    ctx.endpoint = "v1/chat/completions";
    ctx.streaming = 1;
    ctx.input_config = ic;
    ctx.store = &st;
    ctx.ds = &ds;
    ctx.m = &m;
    ctx.tokenizer_source = "builtin";
    ctx.client_busy_fraction = -1;
    ctx.console = devnull;
    uint64_t t1 = gp_now_ns();
    double c1 = cpu_s();
#ifdef GP_EXPORT_PE_PIPELINE
    /* as genperf profile does: profile_export.json follows the metrics'
     * parse workers (a build without the pipeline runs one after the other) */
    struct gp_metrics_watch watch;
    gp_metrics_watch_init(&watch);
    if (!only_metrics) {
        ctx.watch = &watch;
        if (gp_export_pe_start(&ctx, &ctx.pe, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        ctx.watch = NULL;
        o.watch = ctx.pe ? &watch : NULL;
    }
#endif
    if (gp_metrics_compute(&st, &ds, tok, &o, &m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    uint64_t t2 = gp_now_ns();
    double c2 = cpu_s();
    printf("metrics  %.3f s, cpu %.3f s (%zu ok, request_count %.0f, TTFT p50 %.3f ms)\n", (t2 - t1) / 1e9, c2 - c1, m.n_ok,
           m.stats[GP_M_REQUEST_COUNT].avg, m.stats[GP_M_TTFT].p[4]);

    if (only_metrics) { /* metrics only (profiling) */
        gp_metrics_result_free(&m);
        return 0;
    }
    if (gp_export_all(&ctx, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    uint64_t t3 = gp_now_ns();
    double c3 = cpu_s();
    printf("export   %.3f s, cpu %.3f s all threads (profile_export.json, _genai_perf.json/.csv, _records.jsonl, _genperf.json in %s)\n",
           (t3 - t2) / 1e9, c3 - c2, out);
    double total = (t3 - t1) / 1e9;
    printf("total    %.3f s wall, %.3f s cpu (goal < 2 s): %s\n", total, c3 - c1, total < 2 ? "PASS" : "OVER");
    FILE *la = fopen("/proc/loadavg", "r");
    char lbuf[64] = "";
    if (la) {
        if (!fgets(lbuf, sizeof lbuf, la))
            lbuf[0] = '\0';
        fclose(la);
    }
    printf("loadavg  %s", lbuf[0] ? lbuf : "?\n");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double rss_mb = ru.ru_maxrss / 1024.0; /* KiB on Linux */
    printf("peak RSS %.0f MiB (the record store with its %.0f MB of response bytes included)\n", rss_mb,
           st.bytes.len / 1e6);
    /* machine lines for bench/run_all.sh (bench/lib.sh format) */
    printf("RESULT|postprocess|metrics + all artifacts, %zu records x %d chunks (wall)|%.2f|s|< 2|%s\n", n, k, total,
           total < 2 ? "yes" : "no");
    printf("RESULT|postprocess|gp_metrics_compute (wall)|%.2f|s|-|-\n", (t2 - t1) / 1e9);
    printf("RESULT|postprocess|gp_export_all (wall)|%.2f|s|-|-\n", (t3 - t2) / 1e9);
    printf("RESULT|postprocess|metrics + artifacts (CPU, all threads)|%.2f|s|-|-\n", c3 - c1);
    printf("RESULT|postprocess|peak RSS (store included)|%.0f|MiB|-|-\n", rss_mb);
    fclose(devnull);
    json_decref(ic);
    gp_metrics_result_free(&m);
    gp_tokenizer_free(tok);
    gp_record_store_free(&st);
    for (size_t i = 0; i < ds.n; i++)
        free(ds.entries[i].payload);
    free(ds.entries);
    return 0;
}
