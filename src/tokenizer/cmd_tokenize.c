/* tokenizer/cmd_tokenize.c — `genperf tokenize`: encode text lines to JSON id
 * arrays, or decode id arrays to JSON strings, with any supported tokenizer.
 * Also the hidden `--bench FILE` used by bench/tokenizer_bench.sh.
 * Owns: everything it allocates, freed before returning. */
#include "commands.h"
#include "core/argv.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "tokenizer/tokenizer.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) { return (double)gp_now_ns() / 1e9; }

static int bench(struct gp_tokenizer *tok, const char *file, double min_s, double load_s)
{
    struct gp_error err = {0};
    char *data;
    size_t len;
    if (gp_read_file(file, &data, &len, &err)) {
        fprintf(stderr, "genperf tokenize: %s\n", err.msg);
        return 1;
    }
    struct gp_ids ids = {0};
    size_t bytes = 0, tokens = 0;
    int iters = 0;
    double t0 = now_s(), el = 0;
    do {
        const char *p = data, *end = data + len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
            ids.n = 0;
            if (gp_tokenizer_encode(tok, p, l, 0, &ids, &err)) {
                fprintf(stderr, "genperf tokenize: %s\n", err.msg);
                free(data);
                gp_ids_free(&ids);
                return 1;
            }
            tokens += ids.n;
            bytes += l;
            p += l + 1;
        }
        iters++;
        el = now_s() - t0;
    } while (el < min_s);
    printf("{\"impl\":\"genperf\",\"bytes\":%zu,\"tokens\":%zu,\"seconds\":%.6f,\"iters\":%d,"
           "\"mb_per_s\":%.3f,\"tokens_per_s\":%.1f,\"load_s\":%.3f}\n",
           bytes, tokens, el, iters, bytes / el / 1e6, tokens / el, load_s);
    free(data);
    gp_ids_free(&ids);
    return 0;
}

static int put_line(struct gp_buf *o)
{
    if (gp_buf_putc(o, '\n'))
        return -1;
    if (fwrite(o->data, 1, o->len, stdout) != o->len)
        return -1;
    gp_buf_reset(o);
    return 0;
}

/* How each stdin line is read and printed (the command's flags). */
struct tok_mode {
    int add_special, decode, jsonl, skip_special, count;
};

/* --decode: the line's JSON array of ids to one JSON string in out.
 * Returns 0, or 1 after printing why the line failed. */
static int decode_line(const struct tok_mode *m, struct gp_tokenizer *tok, json_t *j, long lineno,
                       struct gp_ids *ids, struct gp_buf *out)
{
    for (size_t k = 0; k < json_array_size(j); k++) {
        json_t *v = json_array_get(j, k);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 0xffffffffLL) {
            fprintf(stderr, "genperf tokenize: stdin line %ld: ids must be non-negative integers\n", lineno);
            return 1;
        }
        gp_ids_push(ids, (uint32_t)json_integer_value(v));
    }
    struct gp_error err = {0};
    struct gp_buf txt = {0};
    int r = gp_tokenizer_decode(tok, ids->v, ids->n, m->skip_special, &txt, &err);
    if (!r)
        gp_buf_json_str(out, txt.data ? txt.data : "", txt.len);
    else
        fprintf(stderr, "genperf tokenize: stdin line %ld: %s\n", lineno, err.msg);
    gp_buf_free(&txt);
    return r ? 1 : 0;
}

/* Encode: the text to a JSON array of ids (or, with --count, their number)
 * in out. Returns 0, or 1 after printing why the line failed. */
static int encode_line(const struct tok_mode *m, struct gp_tokenizer *tok, const char *text, size_t tlen,
                       long lineno, struct gp_ids *ids, struct gp_buf *out)
{
    struct gp_error err = {0};
    if (gp_tokenizer_encode(tok, text, tlen, m->add_special, ids, &err)) {
        fprintf(stderr, "genperf tokenize: stdin line %ld: %s\n", lineno, err.msg);
        return 1;
    }
    if (m->count) {
        gp_buf_printf(out, "%zu", ids->n);
        return 0;
    }
    gp_buf_putc(out, '[');
    for (size_t k = 0; k < ids->n; k++)
        gp_buf_printf(out, k ? ",%u" : "%u", ids->v[k]);
    gp_buf_putc(out, ']');
    return 0;
}

/* One stdin line (without its newline) to its output line in out. With
 * --jsonl or --decode the line is JSON first: a string, or an array of ids.
 * Returns 0, or 1 after printing why the line failed. */
static int tokenize_line(const struct tok_mode *m, struct gp_tokenizer *tok, const char *line, size_t len,
                         long lineno, struct gp_ids *ids, struct gp_buf *out)
{
    const char *text = line;
    size_t tlen = len;
    json_t *j = NULL;
    if (m->jsonl || m->decode) {
        json_error_t je;
        j = json_loadb(line, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        if (!j || (m->decode ? !json_is_array(j) : !json_is_string(j))) {
            fprintf(stderr, "genperf tokenize: stdin line %ld: expected a JSON %s\n", lineno,
                    m->decode ? "array of ids" : "string");
            json_decref(j);
            return 1;
        }
        if (!m->decode) {
            text = json_string_value(j);
            tlen = json_string_length(j);
        }
    }
    ids->n = 0;
    int rc = m->decode ? decode_line(m, tok, j, lineno, ids, out) : encode_line(m, tok, text, tlen, lineno, ids, out);
    json_decref(j);
    return rc;
}

/* Every stdin line in turn, one output line each, stopping at the first
 * failure. Returns the command's exit status. */
static int tokenize_stdin(const struct tok_mode *m, struct gp_tokenizer *tok)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;
    int rc = 0;
    struct gp_ids ids = {0};
    struct gp_buf out = {0};
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        lineno++;
        size_t len = (size_t)n;
        if (len && line[len - 1] == '\n')
            len--;
        if ((rc = tokenize_line(m, tok, line, len, lineno, &ids, &out)))
            break;
        if (put_line(&out)) {
            fprintf(stderr, "genperf tokenize: writing stdout failed\n");
            rc = 1;
            break;
        }
    }
    free(line);
    gp_ids_free(&ids);
    gp_buf_free(&out);
    return rc;
}

int cmd_tokenize(int argc, char **argv)
{
    const char *spec_s = "hf-internal-testing/llama-tokenizer", *rev = NULL, *bench_file = NULL;
    struct tok_mode m = {0};
    int offline = 0;
    double bench_s = 1.0;
    const struct gp_optdef defs[] = {
        GP_STR("--tokenizer", NULL, &spec_s, "T",
               "a tokenizer.json, a directory holding one, a hub id ORG/NAME (HF cache,\n"
               "else downloaded from $HF_ENDPOINT), or 'builtin' (one id per byte).\n"
               "Default: hf-internal-testing/llama-tokenizer (as GenAI-Perf)."),
        GP_STR("--tokenizer-revision", NULL, &rev, "REV", "hub branch, tag or commit (default main)"),
        GP_FLAG("--add-special-tokens", NULL, &m.add_special,
                "apply the post-processor (e.g. BOS), as add_special_tokens=True"),
        GP_FLAG("--decode", NULL, &m.decode,
                "each line is a JSON array of ids; prints the decoded text as a JSON string"),
        GP_FLAG("--skip-special-tokens", NULL, &m.skip_special,
                "with --decode: drop special tokens, as skip_special_tokens=True"),
        GP_FLAG("--jsonl", NULL, &m.jsonl, "each line is a JSON string instead (for texts holding newlines)"),
        GP_FLAG("--count", NULL, &m.count, "print only the number of ids per line"),
        GP_FLAG("--offline", NULL, &offline, "never download (also HF_HUB_OFFLINE=1)"),
        GP_STR("--bench", NULL, &bench_file, "FILE", NULL), /* bench/tokenizer_bench.sh */
        GP_NUM(GP_OPT_DOUBLE, "--bench-seconds", NULL, &bench_s, "S", 0, 1e6, NULL),
    };
    const struct gp_optspec spec = {
        "tokenize",
        "usage: genperf tokenize [--tokenizer T] [--tokenizer-revision REV] [--add-special-tokens]\n"
        "                        [--decode [--skip-special-tokens]] [--jsonl] [--count] [--offline]\n"
        "\n"
        "Reads stdin, one input per line, and prints one line per input:\n"
        "  encode (default): each line is a text (without its newline); prints a JSON array of ids.\n"
        "\n"
        "options:\n",
        NULL, defs, GP_NDEFS(defs), 25, NULL};
    int npos = gp_argv_parse(&spec, argc, argv);
    if (npos < 0)
        return npos == GP_ARGV_HELP ? 0 : 2;
    if (npos > 0)
        return gp_argv_error(&spec, "unexpected argument '%s'", argv[1]);
    struct gp_error err = {0};
    struct gp_tokenizer *tok;
    struct gp_tokenizer_opts opts = {rev, offline};
    double t0 = now_s();
    if (gp_tokenizer_load(spec_s, &opts, &tok, &err)) {
        fprintf(stderr, "genperf tokenize: %s\n", err.msg);
        return 1;
    }
    int rc = bench_file ? bench(tok, bench_file, bench_s, now_s() - t0) : tokenize_stdin(&m, tok);
    gp_tokenizer_free(tok);
    if (!bench_file && fflush(stdout) != 0)
        rc = 1;
    return rc;
}
