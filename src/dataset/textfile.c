/* dataset/textfile.c — GenAI-Perf's FileInputRetriever where rows are made of
 * several texts: --batch-size-text > 1 from a JSONL file (completions,
 * embeddings), and rankings from a directory holding queries.jsonl and
 * passages.jsonl. Texts are the rows' "text" or "text_input" (stripped;
 * blank lines skipped). With a batch of 1 every line is one row; with B > 1
 * there are --num-dataset-entries rows of B texts drawn without replacement
 * (random.sample; genperf draws from the GP_RNG_SAMPLE stream). */
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "dataset/internal.h"
#include "core/rng.h"
#include "tokenizer/tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct texts {
    char *data; /* the file; texts point into it (NUL-terminated in place) */
    const char **s;
    size_t *len;
    long *tokens;
    size_t n, cap;
};

static void texts_free(struct texts *t)
{
    free(t->data);
    free(t->s);
    free(t->len);
    free(t->tokens);
}

static int texts_add(struct texts *t, const char *s, size_t n, long tokens)
{
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        const char **ns = realloc(t->s, nc * sizeof *ns);
        if (ns)
            t->s = ns;
        size_t *nl = realloc(t->len, nc * sizeof *nl);
        if (nl)
            t->len = nl;
        long *nt = realloc(t->tokens, nc * sizeof *nt);
        if (nt)
            t->tokens = nt;
        if (!ns || !nl || !nt)
            return -1;
        t->cap = nc;
    }
    t->s[t->n] = s;
    t->len[t->n] = n;
    t->tokens[t->n++] = tokens;
    return 0;
}

/* Reads the texts of one JSONL file. The row strings are copied into the
 * file buffer's own space (a JSON string is never longer than its source). */
static int read_texts(const char *path, struct gp_tokenizer *tok, struct texts *t, struct gp_error *err)
{
    size_t len = 0;
    int rc = gp_read_file(path, &t->data, &len, err);
    if (rc)
        return gp_err_prefix(err, "--input-file");
    long line = 0;
    for (size_t pos = gp_ds_bom(t->data, len); pos < len;) {
        size_t end = pos;
        while (end < len && t->data[end] != '\n')
            end++;
        line++;
        char *s = t->data + pos;
        size_t n = end - pos, k = 0;
        pos = end + 1;
        while (k < n && gp_ds_pyspace((unsigned char)s[k]))
            k++;
        if (k == n)
            continue;
        json_error_t je;
        json_t *row = gp_ds_bom(s, n) ? NULL : json_loadb(s, n, JSON_REJECT_DUPLICATES, &je);
        json_t *a = json_object_get(row, "text"), *b = json_object_get(row, "text_input");
        const char *why = gp_ds_bom(s, n) ? GP_DS_BOM_MSG
                          : !row          ? gp_json_why(je.text)
                          : a && b ? "each row must have only one of 'text_input' or 'text'"
                          : !json_is_string(a ? a : b) ? "each row needs a string \"text\" (or \"text_input\")"
                                                       : NULL;
        if (why) {
            json_decref(row);
            return gp_err(err, GP_EINVAL, "input file '%s' line %ld: %s", path, line, why);
        }
        const char *v = json_string_value(a ? a : b);
        size_t vl = json_string_length(a ? a : b), x = 0;
        while (x < vl && gp_ds_pyspace((unsigned char)v[x]))
            x++;
        while (vl > x && gp_ds_pyspace((unsigned char)v[vl - 1]))
            vl--;
        memmove(s, v + x, vl - x); /* the decoded text fits where its JSON was */
        s[vl - x] = '\0';
        json_decref(row);
        long tokens = gp_tokenizer_count(tok, s, vl - x);
        if (tokens < 0)
            return gp_err(err, GP_EINVAL, "input file '%s' line %ld: the tokenizer could not encode this text", path, line);
        if (texts_add(t, s, vl - x, tokens))
            return gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
    }
    if (!t->n)
        return gp_err(err, GP_EINVAL, "input file '%s' has no rows; write one JSON object per line, e.g. {\"text\": \"Hello\"}",
                      path);
    return 0;
}

/* Number of rows a file of n texts gives with batch B, or an error. */
static long rows_of(const struct texts *t, long B, long entries, const char *path, struct gp_error *err)
{
    if ((size_t)B > t->n)
        return gp_err(err, GP_EINVAL, "Batch size for texts cannot be larger than the number of available texts "
                                      "(%ld > %zu in '%s')", B, t->n, path);
    return B > 1 ? entries : (long)t->n;
}

/* Row i of file f: its B text indices into pick (random.sample for B > 1). */
static void pick_row(const struct gp_dataset_opts *o, const struct texts *t, long B, uint64_t f, uint64_t i,
                     size_t *perm, size_t *pick)
{
    if (B == 1) {
        pick[0] = i;
        return;
    }
    struct gp_rng r;
    gp_rng_seed_stream(&r, o->seed, GP_RNG_SAMPLE, i + (f << GP_DS_SLOT_SHIFT));
    for (size_t k = 0; k < t->n; k++)
        perm[k] = k;
    for (long k = 0; k < B; k++) { /* partial Fisher-Yates */
        size_t j = (size_t)k + (size_t)gp_rng_below(&r, t->n - (size_t)k);
        size_t tmp = perm[k];
        perm[k] = perm[j];
        perm[j] = tmp;
        pick[k] = perm[k];
    }
}

static int add_entry(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds, size_t *cap,
                     size_t row_index, const struct gp_ds_row *row, long isl, struct gp_buf *scratch,
                     struct gp_error *err)
{
    struct gp_dataset_entry *e = gp_ds_push(ds, cap);
    long osl = o->endpoint_type == GP_ENDPOINT_COMPLETIONS ? gp_ds_osl(o, ds->n) : -1;
    if (o->endpoint_type == GP_ENDPOINT_COMPLETIONS && row->n_texts > 1) {
        gp_buf_reset(scratch); /* GenAI-Perf's ISL: " ".join(prompt) */
        for (size_t j = 0; j < row->n_texts; j++)
            if ((j && gp_buf_putc(scratch, ' ')) || gp_buf_append(scratch, row->texts[j], row->text_lens[j]))
                return gp_err(err, GP_ENOMEM, "out of memory building dataset rows");
        isl = gp_tokenizer_count(tok, scratch->data, scratch->len);
    }
    json_t *body = e ? gp_ds_body(o, gp_ds_model(o, row_index), row, osl) : NULL;
    int bad = !body || gp_ds_emit(o, e, body, scratch);
    json_decref(body);
    if (bad)
        return gp_err(err, GP_ENOMEM, "out of memory building dataset rows");
    e->isl = (int32_t)(isl > INT32_MAX ? INT32_MAX : isl);
    e->osl_asked = (int32_t)osl;
    ds->n++;
    return 0;
}

/* files[0] (and files[1], the passages, for rankings) -> entries. */
static int make_rows(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                     struct texts *files, const char *const *paths, struct gp_error *err)
{
    int rank = o->endpoint_type == GP_ENDPOINT_RANKINGS;
    long B = gp_ds_batch(o->batch_size_text);
    long entries = o->num_entries > 0 ? o->num_entries : GP_DS_DEFAULT_ENTRIES;
    long rows = rows_of(&files[0], B, entries, paths[0], err);
    if (rows < 0)
        return (int)rows;
    if (rank) {
        long pr = rows_of(&files[1], B, entries, paths[1], err);
        if (pr < 0)
            return (int)pr;
        rows = pr < rows ? pr : rows; /* GenAI-Perf stops at the shorter file */
    }
    size_t nt = rank ? 1 + (size_t)B : (size_t)B, maxn = files[0].n > files[rank].n ? files[0].n : files[rank].n;
    size_t *perm = malloc(maxn * sizeof *perm), *pick = malloc((size_t)B * sizeof *pick);
    const char **tp = malloc(nt * sizeof *tp);
    size_t *tl = malloc(nt * sizeof *tl);
    struct gp_buf scratch = {0};
    size_t cap = 0;
    int rc = perm && pick && tp && tl ? 0 : gp_err(err, GP_ENOMEM, "out of memory building dataset rows");
    for (long i = 0; !rc && i < rows; i++) {
        long isl = 0;
        size_t k = 0;
        for (int f = 0; f <= rank; f++) {
            const struct texts *t = &files[f];
            pick_row(o, t, B, (uint64_t)f, (uint64_t)i, perm, pick);
            /* rankings: the query row's first text, then every passage */
            for (long j = 0; j < (rank && f == 0 ? 1 : B); j++, k++) {
                tp[k] = t->s[pick[j]];
                tl[k] = t->len[pick[j]];
                isl += t->tokens[pick[j]];
            }
        }
        struct gp_ds_row row = {.texts = tp, .text_lens = tl, .n_texts = nt};
        rc = add_entry(o, tok, ds, &cap, (size_t)i, &row, isl, &scratch, err);
    }
    free(perm);
    free(pick);
    free(tp);
    free(tl);
    gp_buf_free(&scratch);
    return rc;
}

int gp_ds_build_text_files(const struct gp_dataset_opts *o, struct gp_tokenizer *tok, struct gp_dataset *ds,
                           struct gp_error *err)
{
    struct stat st;
    int dir = stat(o->input_file, &st) == 0 && S_ISDIR(st.st_mode);
    int rank = o->endpoint_type == GP_ENDPOINT_RANKINGS;
    if (rank && !dir)
        return gp_err(err, GP_EINVAL, "--input-file %s: --endpoint-type rankings reads a directory with "
                                      "queries.jsonl and passages.jsonl (or use synthetic:queries,passages)",
                      o->input_file);
    if (!rank && dir)
        return gp_err(err, GP_EINVAL, "--input-file %s: a directory is read for --endpoint-type rankings only; "
                                      "pass one JSONL file", o->input_file);
    char paths[2][4096];
    const char *pp[2] = {paths[0], paths[1]};
    if (rank) {
        snprintf(paths[0], sizeof paths[0], "%s/queries.jsonl", o->input_file);
        snprintf(paths[1], sizeof paths[1], "%s/passages.jsonl", o->input_file);
    } else {
        snprintf(paths[0], sizeof paths[0], "%s", o->input_file);
    }
    struct texts files[2];
    memset(files, 0, sizeof files);
    int rc = 0;
    for (int f = 0; !rc && f <= rank; f++) {
        if (rank && stat(paths[f], &st) != 0)
            rc = gp_err(err, GP_ENOENT, "Both 'queries.jsonl' and 'passages.jsonl' must be present in the input "
                                        "datasets ('%s' is missing)", paths[f]);
        else
            rc = read_texts(paths[f], tok, &files[f], err);
    }
    if (!rc)
        rc = make_rows(o, tok, ds, files, pp, err);
    texts_free(&files[0]);
    texts_free(&files[1]);
    return rc;
}
