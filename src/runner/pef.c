/* runner/pef.c — reading and merging the nodes of process-export-files
 * (the command itself is cmd_pef.c). See pef.h. */
#include "runner/pef.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "dataset/dataset.h"
#include "export/export.h"

#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

static int keep_dir(const char *path, const char *name, void *arg) { return gp_is_dir(path); }
static int keep_file(const char *path, const char *name, void *arg) { return gp_is_file(path); }

/* Sorted names of the sub-directories (want_dirs) or files of dir (owned
 * array of owned strings; free_list). GenAI-Perf walks Path.iterdir()
 * (unspecified order); we sort so the merged request order is reproducible. */
static int list_dir(const char *dir, int want_dirs, char ***out, size_t *n_out, struct gp_error *err)
{
    int rc = gp_dir_list(dir, want_dirs ? keep_dir : keep_file, NULL, out, n_out, err);
    if (rc == -GP_ENOENT)
        return gp_err(err, GP_ENOENT, "--input-directory '%s': cannot open it (give a directory holding one "
                                      "sub-directory per node)", dir);
    if (rc < 0)
        return gp_err(err, GP_ENOMEM, "out of memory listing '%s'", dir);
    return 0;
}

static void free_list(char **v, size_t n) { gp_dir_list_free(v, n); }

/* The node files of one sub-directory: <stem>_genai_perf.json and the
 * perf_analyzer export beside it. GenAI-Perf takes "any .json without
 * _genai_perf in its name", which could be inputs.json; we take <stem>.json
 * first, then any other .json that is not inputs.json or one of ours. */
static int node_files(const char *sub, char *pa, char *gap, size_t sz)
{
    char **names = NULL;
    size_t n = 0;
    struct gp_error e = {0};
    if (list_dir(sub, 0, &names, &n, &e) < 0)
        return 0;
    pa[0] = gap[0] = 0;
    for (size_t i = 0; i < n && !gap[0]; i++)
        if (ends_with(names[i], "_genai_perf.json"))
            gp_path_join(gap, sz, sub, names[i]);
    if (gap[0]) {
        const char *base = strrchr(gap, '/') + 1;
        char want[1024];
        snprintf(want, sizeof want, "%.*s.json", (int)(strlen(base) - strlen("_genai_perf.json")), base);
        for (size_t i = 0; i < n && !pa[0]; i++)
            if (!strcmp(names[i], want))
                gp_path_join(pa, sz, sub, names[i]);
        for (size_t i = 0; i < n && !pa[0]; i++)
            if (ends_with(names[i], ".json") && !strstr(names[i], "_genai_perf") && strcmp(names[i], "inputs.json") &&
                !ends_with(names[i], "_genperf.json"))
                gp_path_join(pa, sz, sub, names[i]);
    }
    free_list(names, n);
    return pa[0] && gap[0];
}

static json_t *load_json(const char *path, struct gp_error *err)
{
    json_error_t je;
    json_t *v = json_load_file(path, JSON_DECODE_ANY, &je);
    if (!v)
        gp_err(err, GP_EINVAL, "'%s' line %d: %s (not a JSON export file)", path, je.line, je.text);
    return v;
}

int gp_pef_first_input_config(const char *dir, json_t **out, struct gp_error *err)
{
    char **subs = NULL;
    size_t ns = 0;
    int rc = list_dir(dir, 1, &subs, &ns, err);
    if (rc)
        return rc;
    rc = gp_err(err, GP_ENOENT,
                "--input-directory '%s': no sub-directory holds a profile export and a *_genai_perf.json", dir);
    for (size_t i = 0; i < ns; i++) {
        char sub[4096], pa[4096], gap[4096];
        gp_path_join(sub, sizeof sub, dir, subs[i]);
        if (!node_files(sub, pa, gap, sizeof pa))
            continue;
        gp_err_clear(err);
        json_t *g = load_json(gap, err);
        rc = g ? 0 : -GP_EINVAL;
        if (g) {
            json_t *ic = json_object_get(g, "input_config");
            *out = json_is_object(ic) ? json_incref(ic) : json_object();
            json_decref(g);
        }
        break;
    }
    free_list(subs, ns);
    return rc;
}

/* Request n's session_id and delay from its request_inputs (perf_analyzer's
 * session mode writes both there; "delay" is absent on a last turn). meta
 * is created at the first request that has a session_id. */
static int keep_session_meta(struct gp_pef_merged *m, size_t n, json_t *in)
{
    json_t *sid = json_object_get(in, "session_id");
    if (!json_is_string(sid) && !m->meta)
        return 0;
    if (n >= m->meta_cap) {
        size_t cap = m->meta_cap ? m->meta_cap : 64;
        while (cap <= n)
            cap *= 2;
        struct gp_inputs_meta *nm = realloc(m->meta, cap * sizeof *nm);
        if (!nm)
            return -1;
        for (size_t i = m->meta_cap; i < cap; i++)
            nm[i] = (struct gp_inputs_meta){NULL, -1};
        m->meta = nm;
        m->meta_cap = cap;
    }
    if (!json_is_string(sid))
        return 0;
    json_t *dl = json_object_get(in, "delay");
    if (!(m->meta[n].session_id = strdup(json_string_value(sid))))
        return -1;
    m->meta[n].delay_ms = json_is_integer(dl) && json_integer_value(dl) >= 0 ? json_integer_value(dl) : -1;
    return 0;
}

/* Appends src's record j to dst (its chunks are contiguous, in bytes too). */
static int copy_record(struct gp_record_store *dst, const struct gp_record_store *src, size_t j)
{
    const struct gp_record *r = &src->recs[j];
    const struct gp_chunk *c = &src->chunks[r->chunk_first];
    struct gp_chunk *cc = r->n_chunks ? malloc(r->n_chunks * sizeof *cc) : NULL;
    if (r->n_chunks && !cc)
        return -GP_ENOMEM;
    uint64_t base = r->n_chunks ? c[0].off : 0, len = 0;
    for (uint32_t i = 0; i < r->n_chunks; i++) {
        cc[i] = c[i];
        cc[i].off -= base;
        len += c[i].len;
    }
    long rc = gp_record_append(dst, r, cc, r->n_chunks, src->bytes.data + base, len, NULL, 0);
    free(cc);
    return rc < 0 ? -GP_ENOMEM : 0;
}

/* The record as the metrics read it: GenAI-Perf's splinter repair applied.
 * The repaired store is started at the first request that needs it, with
 * every record before it. */
static int add_metrics_record(struct gp_pef_merged *m, const struct gp_record *rec, const struct gp_chunk *chunks,
                              size_t nc, const struct gp_buf *bytes)
{
    struct gp_chunk *fixed = nc ? malloc(nc * sizeof *fixed) : NULL;
    struct gp_buf fb = {0};
    size_t nf = 0;
    int r = (nc && !fixed) ? -GP_ENOMEM : gp_pef_repair_splits(chunks, nc, bytes->data, fixed, &nf, &fb);
    if (r > 0 && !m->split) {
        m->split = 1;
        for (size_t j = 0; j + 1 < m->store.n && r > 0; j++)
            if (copy_record(&m->mstore, &m->store, j) < 0)
                r = -GP_ENOMEM;
    }
    if (r >= 0 && m->split &&
        gp_record_append(&m->mstore, rec, r > 0 ? fixed : chunks, r > 0 ? nf : nc, r > 0 ? fb.data : bytes->data,
                         r > 0 ? fb.len : bytes->len, NULL, 0) < 0)
        r = -GP_ENOMEM;
    free(fixed);
    gp_buf_free(&fb);
    return r < 0 ? r : 0;
}

/* Appends one exported request to the store and the dataset. */
static int add_request(struct gp_pef_merged *m, json_t *rq, size_t idx, struct gp_tokenizer *tok,
                       struct gp_buf *tmp, size_t *cap, const char *path, struct gp_error *err)
{
    json_t *ts = json_object_get(rq, "timestamp");
    json_t *rts = json_object_get(rq, "response_timestamps");
    json_t *ros = json_object_get(rq, "response_outputs");
    json_t *in = json_object_get(rq, "request_inputs");
    char field[64];
    snprintf(field, sizeof field, "experiments[0].requests[%zu]", idx);
    int crc = gp_export_check_pa_request(rq, 1, path, field, NULL, err);
    if (crc)
        return crc;
    size_t nc = json_array_size(rts);
    struct gp_dataset *ds = m->ds;
    if (ds->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        struct gp_dataset_entry *ne = realloc(ds->entries, ncap * sizeof *ne);
        if (!ne)
            return gp_err(err, GP_ENOMEM, "out of memory merging '%s'", path);
        ds->entries = ne;
        *cap = ncap;
    }
    if (keep_session_meta(m, ds->n, in))
        return gp_err(err, GP_ENOMEM, "out of memory merging '%s'", path);
    struct gp_dataset_entry *e = &ds->entries[ds->n];
    memset(e, 0, sizeof *e);
    e->osl_asked = -1;
    e->timestamp_ms = -1;
    /* perf_analyzer writes the payload as a JSON string holding the body */
    json_t *pl = json_object_get(in, "payload");
    const char *body = json_is_string(pl) ? json_string_value(pl) : "";
    size_t blen = json_is_string(pl) ? json_string_length(pl) : 0;
    if (!(e->payload = malloc(blen + 1)))
        return gp_err(err, GP_ENOMEM, "out of memory merging '%s'", path);
    memcpy(e->payload, body, blen);
    e->payload[blen] = 0;
    e->payload_len = blen;
    ds->n++;
    json_t *pj = json_loadb(body, blen, 0, NULL);
    if (json_is_object(pj)) {
        json_t *mt = json_object_get(pj, "max_tokens");
        if (!mt)
            mt = json_object_get(pj, "max_completion_tokens");
        if (json_is_integer(mt))
            e->osl_asked = (int32_t)json_integer_value(mt);
        if (tok) {
            long isl = gp_dataset_payload_isl(tok, pj, tmp);
            if (isl < 0) {
                json_decref(pj);
                return gp_err(err, GP_EINVAL, "'%s': the tokenizer could not encode a request's prompt", path);
            }
            e->isl = (int32_t)isl;
        }
    }
    json_decref(pj);

    struct gp_chunk *chunks = nc ? calloc(nc, sizeof *chunks) : NULL;
    struct gp_buf bytes = {0};
    int rc = (nc && !chunks) ? -GP_ENOMEM : 0;
    for (size_t i = 0; !rc && i < nc; i++) {
        json_t *t = json_array_get(rts, i);
        json_t *r = json_object_get(json_array_get(ros, i), "response");
        const char *s = json_is_string(r) ? json_string_value(r) : "";
        size_t sl = json_is_string(r) ? json_string_length(r) : 0;
        chunks[i].t_ns = json_is_integer(t) ? (uint64_t)json_integer_value(t) : 0;
        chunks[i].off = bytes.len;
        chunks[i].len = (uint32_t)sl;
        if (gp_buf_append(&bytes, s, sl))
            rc = -GP_ENOMEM;
    }
    if (!rc) {
        struct gp_record rec = {
            .t_start_ns = (uint64_t)json_integer_value(ts),
            .t_end_ns = nc ? chunks[nc - 1].t_ns : (uint64_t)json_integer_value(ts),
            .entry = (uint32_t)(ds->n - 1),
            .http_status = 200, /* perf_analyzer exports only successful requests */
        };
        if (gp_record_append(&m->store, &rec, chunks, nc, bytes.data, bytes.len, NULL, 0) < 0 ||
            add_metrics_record(m, &rec, chunks, nc, &bytes) < 0)
            rc = -GP_ENOMEM;
    }
    free(chunks);
    gp_buf_free(&bytes);
    if (rc)
        return gp_err(err, GP_ENOMEM, "out of memory merging '%s'", path);
    return 0;
}

static char *dup_str(json_t *v, const char *dflt)
{
    return strdup(json_is_string(v) ? json_string_value(v) : dflt);
}

/* What process-export-files can recompute: the service kinds and endpoints
 * genperf has a response parser for. GenAI-Perf 0.0.16 also reads Triton
 * (text_output), TensorRT-LLM engine (output_ids) and huggingface/generate
 * exports (profile_data_parser.py); genperf refuses them by name rather than
 * reporting the empty statistics its OpenAI parser would find in them. */
static int check_export_kind(const char *path, json_t *sk, json_t *ep, struct gp_error *err)
{
    if (sk && (!json_is_string(sk) || strcmp(json_string_value(sk), "openai")))
        return gp_err(err, GP_ENOTSUP,
                      "'%s': service_kind '%s' is not supported by genperf process-export-files (Triton, KServe "
                      "and TensorRT-LLM engine exports are not parsed); it recomputes OpenAI-compatible exports "
                      "(service_kind 'openai')",
                      path, json_is_string(sk) ? json_string_value(sk) : "(not a string)");
    const char *e = json_string_value(ep);
    if (!e)
        return 0;
    char low[256];
    size_t i = 0;
    for (; e[i] && i + 1 < sizeof low; i++)
        low[i] = (char)(e[i] >= 'A' && e[i] <= 'Z' ? e[i] + 32 : e[i]);
    low[i] = 0;
    if (strstr(low, "huggingface/generate") || !strcmp(low, "v1/infer"))
        return gp_err(err, GP_ENOTSUP,
                      "'%s': endpoint '%s' (%s) is not supported by genperf process-export-files; it recomputes "
                      "chat, completions, embeddings, rankings and multimodal exports",
                      path, e, strstr(low, "huggingface") ? "Hugging Face generate" : "image retrieval");
    return 0;
}

int gp_pef_check_input_config(const json_t *ic, const char *dir, struct gp_error *err)
{
    static const char *const spoken[] = {"chat", "completions", "embeddings", "rankings", "multimodal", "vision"};
    json_t *t = json_object_get(json_object_get(ic, "endpoint"), "type");
    if (!t)
        return 0;
    for (size_t i = 0; json_is_string(t) && i < sizeof spoken / sizeof *spoken; i++)
        if (!strcmp(json_string_value(t), spoken[i]))
            return 0;
    return gp_err(err, GP_ENOTSUP,
                  "--input-directory '%s': the first node's input_config.endpoint.type '%s' is not supported by "
                  "genperf process-export-files; it recomputes chat, completions, embeddings, rankings, "
                  "multimodal and vision runs (OpenAI-compatible HTTP)",
                  dir, json_is_string(t) ? json_string_value(t) : "(not a string)");
}

/* statistics.mean for the few nodes' values: long double keeps the sum of a
 * handful of doubles exact in practice, so the result is the correctly
 * rounded mean Python's exact-fraction mean gives. */
static double mean_of(const double *v, size_t n)
{
    long double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return (double)(s / (long double)n);
}

json_t *gp_pef_telemetry_aggregate(json_t *const *nodes, size_t n)
{
    if (!n || !json_is_object(nodes[0]))
        return NULL;
    json_t *out = json_object();
    double *vals = malloc(n * sizeof *vals);
    if (!out || !vals) {
        json_decref(out);
        free(vals);
        return NULL;
    }
    const char *metric;
    json_t *m0;
    json_object_foreach(nodes[0], metric, m0) {
        if (!json_is_object(m0))
            continue;
        json_t *agg = json_object();
        json_t *unit = json_object_get(m0, "unit");
        json_object_set_new(agg, "unit", json_string(json_is_string(unit) ? json_string_value(unit) : ""));
        int mean = !strcmp(metric, "gpu_power_usage") || !strcmp(metric, "gpu_utilization") ||
                   !strcmp(metric, "energy_consumption");
        /* every GPU any node has, in the order first seen (GenAI-Perf: a set) */
        for (size_t k = 0; k < n; k++) {
            json_t *mk = json_object_get(nodes[k], metric);
            const char *gpu;
            json_t *g;
            if (!json_is_object(mk))
                continue;
            json_object_foreach(mk, gpu, g) {
                if (!strcmp(gpu, "unit") || json_object_get(agg, gpu))
                    continue;
                size_t nv = 0;
                for (size_t j = 0; j < n; j++) {
                    json_t *a = json_object_get(json_object_get(json_object_get(nodes[j], metric), gpu), "avg");
                    if (json_is_number(a))
                        vals[nv++] = json_number_value(a);
                }
                if (!nv)
                    continue;
                double v = vals[0];
                if (mean)
                    v = mean_of(vals, nv);
                else
                    for (size_t j = 1; j < nv; j++)
                        v = vals[j] > v ? vals[j] : v;
                json_object_set_new(agg, gpu, json_pack("{s:f}", "avg", v));
            }
        }
        if (json_object_size(agg) > 1)
            json_object_set_new(out, metric, agg);
        else
            json_decref(agg);
    }
    free(vals);
    if (!json_object_size(out)) {
        json_decref(out);
        return NULL;
    }
    return out;
}

static int merge_node(struct gp_pef_merged *m, const char *pa, const char *gap, struct gp_tokenizer *tok,
                      struct gp_buf *tmp, size_t *cap, json_t *tele, struct gp_error *err)
{
    json_t *p = load_json(pa, err);
    if (!p)
        return -GP_EINVAL;
    json_t *ex = json_array_get(json_object_get(p, "experiments"), 0);
    json_t *reqs = json_object_get(ex, "requests");
    int rc = 0;
    if (!json_is_array(reqs)) {
        rc = gp_err(err, GP_EINVAL, "Invalid profile data in file '%s': 'experiments' key is missing or empty", pa);
    } else if (!(rc = check_export_kind(pa, json_object_get(p, "service_kind"), json_object_get(p, "endpoint"),
                                        err))) {
        if (!m->endpoint) {
            m->endpoint = dup_str(json_object_get(p, "endpoint"), "v1/chat/completions");
            m->service_kind = dup_str(json_object_get(p, "service_kind"), "openai");
            m->version = dup_str(json_object_get(p, "version"), "");
            /* the experiment as the first node wrote it: a session run's is
             * request_rate 0.0 where its input_config says session_concurrency */
            json_t *e = json_object_get(ex, "experiment"), *mode = json_object_get(e, "mode");
            json_t *val = json_object_get(e, "value");
            if (json_is_string(mode) && json_is_number(val) &&
                (!strcmp(json_string_value(mode), "concurrency") || !strcmp(json_string_value(mode), "request_rate"))) {
                m->exp_mode = strdup(json_string_value(mode));
                m->exp_value = json_number_value(val);
            }
        }
        size_t i;
        json_t *rq;
        json_array_foreach(reqs, i, rq) {
            if ((rc = add_request(m, rq, i, tok, tmp, cap, pa, err)))
                break;
        }
    }
    json_decref(p);
    if (rc)
        return rc;
    json_t *g = load_json(gap, err);
    if (!g)
        return -GP_EINVAL;
    /* MergedProfileParser sums the list of the nodes' avgs: a node without
     * one adds nothing, and no node with one sums to 0 */
    json_t *rt = json_object_get(json_object_get(g, "request_throughput"), "avg");
    json_t *ot = json_object_get(json_object_get(g, "output_token_throughput"), "avg");
    if (json_is_number(rt))
        m->request_throughput_sum += json_number_value(rt);
    if (json_is_number(ot))
        m->output_token_throughput_sum += json_number_value(ot);
    json_t *ts = json_object_get(g, "telemetry_stats");
    if (json_is_object(ts) && json_object_size(ts))
        json_array_append(tele, ts);
    if (!m->input_config) {
        json_t *ic = json_object_get(g, "input_config");
        m->input_config = json_is_object(ic) ? json_deep_copy(ic) : json_object();
    }
    json_decref(g);
    return 0;
}

int gp_pef_load(const char *dir, struct gp_tokenizer *tok, struct gp_pef_merged *m, struct gp_error *err)
{
    memset(m, 0, sizeof *m);
    gp_record_store_init(&m->store);
    m->store.mono0_ns = m->store.wall0_ns = 0; /* record times are the export's wall ns */
    gp_record_store_init(&m->mstore);
    m->mstore.mono0_ns = m->mstore.wall0_ns = 0;
    if (!(m->ds = calloc(1, sizeof *m->ds)))
        return gp_err(err, GP_ENOMEM, "out of memory");
    char **subs = NULL;
    size_t ns = 0, cap = 0;
    int rc = list_dir(dir, 1, &subs, &ns, err);
    if (rc)
        return rc;
    struct gp_buf tmp = {0};
    json_t *tele = json_array(); /* each node's telemetry_stats (referenced) */
    char node[4096] = ""; /* the profile export of the last node merged */
    for (size_t i = 0; i < ns && !rc; i++) {
        char sub[4096], pa[4096], gap[4096];
        gp_path_join(sub, sizeof sub, dir, subs[i]);
        if (!node_files(sub, pa, gap, sizeof pa))
            continue;
        rc = !tele ? gp_err(err, GP_ENOMEM, "out of memory") : merge_node(m, pa, gap, tok, &tmp, &cap, tele, err);
        if (!rc) {
            m->n_nodes++;
            snprintf(node, sizeof node, "%s", pa);
        }
    }
    gp_buf_free(&tmp);
    free_list(subs, ns);
    if (!rc && json_array_size(tele)) {
        json_t **v = malloc(json_array_size(tele) * sizeof *v);
        if (!v)
            rc = gp_err(err, GP_ENOMEM, "out of memory");
        for (size_t i = 0; v && i < json_array_size(tele); i++)
            v[i] = json_array_get(tele, i);
        if (v)
            m->telemetry_stats = gp_pef_telemetry_aggregate(v, json_array_size(tele));
        free(v);
    }
    json_decref(tele);
    if (!rc && !m->n_nodes)
        rc = gp_err(err, GP_ENOENT,
                    "--input-directory '%s': no sub-directory holds a profile export and a *_genai_perf.json "
                    "(one sub-directory per node, e.g. the run directories of 'genperf profile')", dir);
    /* nothing to compute metrics over: an empty artifact set is no merge */
    if (!rc && !m->ds->n)
        rc = m->n_nodes == 1 ? gp_err(err, GP_EINVAL, "'%s': field 'experiments[0].requests': empty; there is "
                                      "nothing to compute metrics over", node)
                             : gp_err(err, GP_EINVAL, "--input-directory '%s': field 'experiments[0].requests' is "
                                      "empty in all %zu nodes' profile exports; there is nothing to merge",
                                      dir, m->n_nodes);
    return rc;
}

void gp_pef_free(struct gp_pef_merged *m)
{
    gp_record_store_free(&m->store);
    gp_record_store_free(&m->mstore);
    if (m->ds)
        gp_dataset_free(m->ds);
    for (size_t i = 0; i < m->meta_cap; i++)
        free((char *)m->meta[i].session_id);
    free(m->meta);
    json_decref(m->input_config);
    free(m->endpoint);
    free(m->service_kind);
    free(m->version);
    json_decref(m->telemetry_stats);
    free(m->exp_mode);
    memset(m, 0, sizeof *m);
}
