/* Unit test: exact ISL with every real tokenizer family present under
 * $GENPERF_CACHE/tokenizers/<family>/tokenizer.json (default .cache/, as
 * scripts/fetch-tokenizers.sh lays them out), across seeds and lengths
 * 1..32k, plus prefix prompts and determinism. Families that are absent or
 * that this build cannot load are reported as "skip <family>: why" and
 * counted in the closing "families: tested=N skipped=M" line, which
 * tests/e2e/dataset_isl_<family>.sh turns into a visible skip. */
#include "core/fsutil.h"
#include "core/pytext.h"
#include "core/rng.h"
#include "core/test.h"
#include "dataset/promptgen.h"
#include "dataset/test_support.h"

#include <dirent.h>
#include <unistd.h>

static int tested, skipped;
static char skipped_names[1024];
static FILE *dump; /* GP_DATASET_DUMP: {"text":..,"tokens":n} per checked prompt, for the HF cross-check */

static void dump_prompt(const char *text, long tokens)
{
    if (!dump)
        return;
    struct gp_buf b = {0};
    gp_buf_puts(&b, "{\"text\":");
    gp_json_str(&b, text, strlen(text), GP_JSON_RAPIDJSON);
    gp_buf_printf(&b, ",\"tokens\":%ld}\n", tokens);
    fwrite(b.data, 1, b.len, dump);
    gp_buf_free(&b);
}

static void check_family(const char *name, const char *path)
{
    struct gp_tokenizer *tok = NULL;
    struct gp_error e = {0};
    struct gp_tokenizer_opts to = {.offline = 1};
    if (gp_tokenizer_load(path, &to, &tok, &e)) {
        printf("skip %s: %s\n", name, e.msg);
        fprintf(stderr, "skip %s: %s\n", name, e.msg);
        skipped++;
        size_t l = strlen(skipped_names);
        snprintf(skipped_names + l, sizeof skipped_names - l, "%s%s", l ? ", " : "", name);
        return;
    }
    struct gp_promptgen *g = NULL;
    CHECK_INT(gp_promptgen_new(tok, &g, &e), 0);
    if (!g) {
        fprintf(stderr, "  %s: %s\n", name, e.msg);
        gp_tokenizer_free(tok);
        return;
    }
    int words = 0;
    size_t np = gp_promptgen_pieces(g, &words);
    CHECK(words == 1 && np > 1000);
    /* All HF families we know are additive; trust mode must then be exact
     * too, which the loop below checks by re-encoding everything. */
    int additive = gp_promptgen_additive(g);
    CHECK_INT(additive, 1);
    static const long lens[] = {1, 2, 3, 5, 17, 128, 550, 1000, 4096};
    struct gp_buf b = {0};
    long bad = 0, total = 0;
    for (uint64_t seed = 0; seed < 4; seed++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            struct gp_rng r;
            /* odd seeds: trust the additivity proof (no internal re-encode) */
            gp_promptgen_set_verify(g, seed & 1 ? GP_PROMPTGEN_TRUST_ADDITIVE : GP_PROMPTGEN_VERIFY);
            gp_rng_seed_stream(&r, seed, GP_RNG_TEXT, k);
            CHECK_INT(gp_promptgen_text(g, &r, lens[k], NULL, 0, &b, &e), 0);
            long c = ts_encode_count(tok, b.data);
            dump_prompt(b.data, lens[k]);
            total++;
            if (c != lens[k]) {
                bad++;
                fprintf(stderr, "  %s seed %llu len %ld: got %ld tokens\n", name, (unsigned long long)seed, lens[k], c);
            }
        }
    for (int mode = 0; mode < 2; mode++) {
        struct gp_rng r;
        gp_promptgen_set_verify(g, mode ? GP_PROMPTGEN_TRUST_ADDITIVE : GP_PROMPTGEN_VERIFY);
        gp_rng_seed_stream(&r, 9 + (uint64_t)mode, GP_RNG_TEXT, 0);
        CHECK_INT(gp_promptgen_text(g, &r, 32768, NULL, 0, &b, &e), 0);
        CHECK_INT(ts_encode_count(tok, b.data), 32768);
        dump_prompt(b.data, 32768);
        total++;
    }
    CHECK_INT(bad, 0);
    gp_buf_free(&b);
    gp_promptgen_free(g);

    /* Whole workloads: prefixes, stddev, and byte-identical rebuilds. */
    struct gp_dataset_opts o = ts_opts();
    o.num_entries = 12;
    o.isl_mean = 200;
    o.isl_stddev = 50;
    o.num_prefix_prompts = 2;
    o.prefix_prompt_length = 64;
    struct gp_dataset *d1 = NULL, *d2 = NULL;
    CHECK_INT(gp_dataset_build(&o, tok, &d1, &e), 0);
    CHECK_INT(gp_dataset_build(&o, tok, &d2, &e), 0);
    for (size_t i = 0; d1 && d2 && i < d1->n; i++) {
        CHECK_STR(d1->entries[i].payload, d2->entries[i].payload);
        char *c = ts_content(d1->entries[i].payload);
        CHECK_INT(ts_encode_count(tok, c), d1->entries[i].isl);
        CHECK(d1->entries[i].isl > 64);
        dump_prompt(c, d1->entries[i].isl);
        free(c);
    }
    gp_dataset_free(d1);
    gp_dataset_free(d2);
    /* Prefix-cache workloads: a shared prefix after a salt, ISL exact. */
    o.num_prefix_prompts = 0;
    o.isl_stddev = 0;
    o.shared_prefix_ratio = 0.5;
    o.cache_bust = 1;
    CHECK_INT(gp_dataset_build(&o, tok, &d1, &e), 0);
    for (size_t i = 0; d1 && i < d1->n; i++) {
        char *c = ts_content(d1->entries[i].payload);
        CHECK_INT(d1->entries[i].isl, 200);
        CHECK_INT(ts_encode_count(tok, c), 200);
        free(c);
    }
    gp_dataset_free(d1);
    o.shared_prefix_ratio = 0;
    o.cache_bust = 0;
    /* A workload past the verify budget (trusts the proof) is exact too. */
    o.num_prefix_prompts = 0;
    o.isl_stddev = 0;
    o.isl_mean = 9000;
    o.num_entries = 120;
    CHECK_INT(gp_dataset_build(&o, tok, &d1, &e), 0);
    for (size_t i = 0; d1 && i < d1->n; i += 29) {
        char *c = ts_content(d1->entries[i].payload);
        CHECK_INT(ts_encode_count(tok, c), 9000);
        dump_prompt(c, 9000);
        free(c);
    }
    gp_dataset_free(d1);
    /* payload: traces: exact input_length, hash-id blocks shared */
    char tpath[64], spec[80];
    snprintf(tpath, sizeof tpath, "/tmp/gp-trace-%d.jsonl", (int)getpid());
    const char *rows = "{\"input_length\": 700, \"hash_ids\": [1, 2]}\n{\"input_length\": 1100, \"hash_ids\": [1, 3, 4]}\n";
    CHECK_INT(gp_write_file_atomic(tpath, rows, strlen(rows), &e), 0);
    snprintf(spec, sizeof spec, "payload:%s", tpath);
    struct gp_dataset_opts tro = ts_opts();
    tro.input_file = spec;
    CHECK_INT(gp_dataset_build(&tro, tok, &d1, &e), 0);
    CHECK(d1 && d1->n == 2);
    if (d1 && d1->n == 2) {
        char *a = ts_content(d1->entries[0].payload), *c = ts_content(d1->entries[1].payload);
        CHECK_INT(ts_encode_count(tok, a), 700);
        CHECK_INT(ts_encode_count(tok, c), 1100);
        CHECK(strncmp(a, c, 1000) == 0); /* 512 shared tokens are > 1000 bytes */
        dump_prompt(a, 700);
        dump_prompt(c, 1100);
        free(a);
        free(c);
    }
    gp_dataset_free(d1);
    unlink(tpath);
    printf("family %s: %zu safe pieces, additive=%d, %ld prompts exact\n", name, np, additive, total - bad);
    tested++;
    gp_tokenizer_free(tok);
}

static void test_families(void)
{
    /* Loading a real tokenizer takes a second or two, so this runs from
     * tests/e2e/dataset_isl_<family>.sh, one family per test, which reports
     * skips visibly. GP_DATASET_FAMILIES = a family name, or "all". */
    const char *only = getenv("GP_DATASET_FAMILIES");
    if (!only) {
        printf("families: run by tests/e2e/dataset_isl_<family>.sh (GP_DATASET_FAMILIES=name|all)\n");
        return;
    }
    if (getenv("GP_DATASET_DUMP"))
        dump = fopen(getenv("GP_DATASET_DUMP"), "w");
    const char *cache = getenv("GENPERF_CACHE");
    char dir[4096];
    if (cache)
        snprintf(dir, sizeof dir, "%s/tokenizers", cache);
    else
        snprintf(dir, sizeof dir, "%s/.cache/tokenizers", getenv("GP_ROOT") ? getenv("GP_ROOT") : ".");
    DIR *d = opendir(dir);
    if (!d) {
        printf("skip all families: %s not found (run scripts/fetch-tokenizers.sh)\n", dir);
        return;
    }
    /* Sorted, so the output reads the same everywhere. */
    char names[64][128];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 64) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(names[n++], sizeof names[0], "%s", de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < n; i++) {
        char path[8192];
        if (strcmp(only, "all") != 0 && strcmp(only, names[i]) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s/tokenizer.json", dir, names[i]);
        if (!gp_is_file(path)) {
            printf("skip %s: no tokenizer.json\n", names[i]);
            skipped++;
            continue;
        }
        check_family(names[i], path);
    }
    if (dump)
        fclose(dump);
}

int main(void)
{
    GP_RUN(test_families);
    printf("families: tested=%d skipped=%d%s%s\n", tested, skipped, skipped ? " skipped: " : "", skipped_names);
    return gp_test_summary();
}
