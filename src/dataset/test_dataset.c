/* Unit tests: synthetic workloads with the builtin tokenizer — exact ISL,
 * determinism, stddev, OSL fields, payload order, prefixes, inputs.json. */
#include "core/fsutil.h"
#include "core/rng.h"
#include "core/test.h"
#include "dataset/promptgen.h"
#include "dataset/test_support.h"

#include <unistd.h>

static void test_exact_isl_builtin(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_promptgen *g = NULL;
    struct gp_error e = {0};
    CHECK_INT(gp_promptgen_new(tok, &g, &e), 0);
    int words = -1;
    CHECK_INT(gp_promptgen_pieces(g, &words), 27);
    CHECK_INT(words, 0);
    static const long lens[] = {1, 2, 3, 7, 100, 550, 1000, 4096, 32768};
    struct gp_buf b = {0};
    for (uint64_t seed = 0; seed < 5; seed++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            struct gp_rng r;
            gp_rng_seed_stream(&r, seed, GP_RNG_TEXT, k);
            CHECK_INT(gp_promptgen_text(g, &r, lens[k], NULL, 0, &b, &e), 0);
            CHECK_INT(ts_encode_count(tok, b.data), lens[k]);
            CHECK(b.data[0] != ' ');
            CHECK(strstr(b.data, "  ") == NULL);
        }
    gp_buf_free(&b);
    gp_promptgen_free(g);
    gp_tokenizer_free(tok);
}

static void test_dataset_exact_isl(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.num_entries = 20;
    for (long isl = 1; isl <= 2048; isl *= 4) {
        o.isl_mean = isl;
        struct gp_dataset *ds = NULL;
        struct gp_error e = {0};
        CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
        CHECK_INT(ds->n, 20);
        for (size_t i = 0; i < ds->n; i++) {
            char *c = ts_content(ds->entries[i].payload);
            CHECK(c != NULL);
            CHECK_INT(ds->entries[i].isl, isl);
            CHECK_INT(ts_encode_count(tok, c), isl);
            CHECK_INT(ds->entries[i].osl_asked, -1);
            CHECK(strstr(ds->entries[i].payload, "max_tokens") == NULL);
            free(c);
        }
        gp_dataset_free(ds);
    }
    gp_tokenizer_free(tok);
}

static void test_distinct_and_defaults(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.num_entries = 0; /* GenAI-Perf: a falsy value keeps the default */
    o.isl_mean = 0;
    struct gp_dataset *ds = NULL;
    struct gp_error e = {0};
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    CHECK_INT(ds->n, 100);
    CHECK_INT(ds->entries[0].isl, 550);
    for (size_t i = 1; i < ds->n; i++)
        CHECK(strcmp(ds->entries[i].payload, ds->entries[i - 1].payload) != 0);
    gp_dataset_free(ds);
    gp_tokenizer_free(tok);
}

static void test_short_prompts_distinct(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.num_entries = 300;
    o.isl_mean = 2; /* 26 * 26 possible texts */
    struct gp_dataset *ds = NULL;
    struct gp_error e = {0};
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    int dup = 0;
    for (size_t i = 0; i < ds->n; i++)
        for (size_t j = 0; j < i; j++)
            dup += strcmp(ds->entries[i].payload, ds->entries[j].payload) == 0;
    CHECK_INT(dup, 0);
    gp_dataset_free(ds);
    gp_tokenizer_free(tok);
}

static void test_determinism_inputs_json(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.num_entries = 50;
    o.isl_stddev = 5;
    o.osl_mean = 64;
    o.osl_stddev = 8;
    o.seed = 7;
    char d[] = "/tmp/gp-ds-XXXXXX";
    CHECK(mkdtemp(d) != NULL);
    char p1[256], p2[256];
    snprintf(p1, sizeof p1, "%s/a.json", d);
    snprintf(p2, sizeof p2, "%s/b.json", d);
    struct gp_error e = {0};
    struct gp_dataset *a = NULL, *b = NULL;
    CHECK_INT(gp_dataset_build(&o, tok, &a, &e), 0);
    CHECK_INT(gp_dataset_build(&o, tok, &b, &e), 0);
    CHECK_INT(gp_dataset_write_inputs_json(a, p1, &e), 0);
    CHECK_INT(gp_dataset_write_inputs_json(b, p2, &e), 0);
    char *x = NULL, *y = NULL;
    size_t xl = 0, yl = 0;
    CHECK_INT(gp_read_file(p1, &x, &xl, &e), 0);
    CHECK_INT(gp_read_file(p2, &y, &yl, &e), 0);
    CHECK(xl == yl && xl > 0 && memcmp(x, y, xl) == 0);
    CHECK(x[xl - 1] == '}'); /* json.dumps: no trailing newline */
    const char *head = "{\n  \"data\": [\n    {\n      \"payload\": [\n        {\n          \"model\": \"test-model\",\n"
                       "          \"messages\": [\n            {\n              \"role\": \"user\",\n"
                       "              \"content\": \"";
    CHECK(strncmp(x, head, strlen(head)) == 0);
    /* Byte-identical on any machine: this digest is the contract. */
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < xl; i++)
        h = (h ^ (unsigned char)x[i]) * 1099511628211ull;
    printf("inputs.json fnv1a64 = %016llx (%zu bytes)\n", (unsigned long long)h, xl);
    CHECK(h == 0x9430eca114b62c86ull);
    /* a different seed changes the prompts */
    o.seed = 8;
    struct gp_dataset *c = NULL;
    CHECK_INT(gp_dataset_build(&o, tok, &c, &e), 0);
    CHECK(strcmp(a->entries[0].payload, c->entries[0].payload) != 0);
    /* entry i does not depend on how many entries are asked for */
    o.seed = 7;
    o.num_entries = 3;
    struct gp_dataset *s = NULL;
    CHECK_INT(gp_dataset_build(&o, tok, &s, &e), 0);
    for (size_t i = 0; i < 3; i++)
        CHECK_STR(s->entries[i].payload, a->entries[i].payload);
    free(x);
    free(y);
    unlink(p1);
    unlink(p2);
    rmdir(d);
    gp_dataset_free(a);
    gp_dataset_free(b);
    gp_dataset_free(c);
    gp_dataset_free(s);
    gp_tokenizer_free(tok);
}

static void test_stddev_reproducible_clamped(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.num_entries = 400;
    o.isl_mean = 3;
    o.isl_stddev = 10;
    struct gp_error e = {0};
    struct gp_dataset *a = NULL, *b = NULL;
    CHECK_INT(gp_dataset_build(&o, tok, &a, &e), 0);
    CHECK_INT(gp_dataset_build(&o, tok, &b, &e), 0);
    int ones = 0, big = 0;
    for (size_t i = 0; i < a->n; i++) {
        CHECK(a->entries[i].isl >= 1);
        CHECK_INT(a->entries[i].isl, b->entries[i].isl);
        char *c = ts_content(a->entries[i].payload);
        CHECK_INT(ts_encode_count(tok, c), a->entries[i].isl);
        free(c);
        ones += a->entries[i].isl == 1;
        big += a->entries[i].isl > 15;
    }
    CHECK(ones > 100); /* P(x < 1.5) ~ 44% clamped to 1 */
    CHECK(big > 20);
    gp_dataset_free(a);
    gp_dataset_free(b);
    gp_tokenizer_free(tok);
}

static void test_osl_fields(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.isl_mean = 5;
    o.osl_mean = 100;
    struct gp_error e = {0};
    struct gp_dataset *ds = NULL;
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    for (size_t i = 0; i < ds->n; i++) {
        CHECK_INT(ds->entries[i].osl_asked, 100);
        const char *p = ds->entries[i].payload;
        size_t n = strlen(p);
        CHECK(n > 20 && strcmp(p + n - 20, "}],\"max_tokens\":100}") == 0);
        CHECK(strstr(p, "min_tokens") == NULL && strstr(p, "ignore_eos") == NULL);
    }
    gp_dataset_free(ds);

    o.osl_deterministic = 1;
    o.streaming = 1;
    o.server_usage = 1;
    json_t *extra = json_pack("{s:f,s:b}", "temperature", 0.7, "stream", 1);
    o.extra_inputs = extra;
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    const char *p = ds->entries[0].payload;
    const char *head = "{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":\"";
    CHECK(strncmp(p, head, strlen(head)) == 0);
    const char *tail = "\"}],\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":100,"
                       "\"min_tokens\":100,\"ignore_eos\":true,\"temperature\":0.7}";
    CHECK(strlen(p) > strlen(tail) && strcmp(p + strlen(p) - strlen(tail), tail) == 0);
    gp_dataset_free(ds);
    json_decref(extra);

    /* An extra overriding a built-in key keeps its position (dict update). */
    o.osl_deterministic = 0;
    o.server_usage = 0;
    extra = json_pack("{s:b,s:i}", "stream", 0, "max_tokens", 7);
    o.extra_inputs = extra;
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    p = ds->entries[0].payload;
    tail = "\"}],\"stream\":false,\"max_tokens\":7}";
    CHECK(strcmp(p + strlen(p) - strlen(tail), tail) == 0);
    gp_dataset_free(ds);
    json_decref(extra);
    o.extra_inputs = NULL;

    /* OSL with stddev: varies, reproducible, >= 1 */
    o.osl_mean = 2;
    o.osl_stddev = 20;
    o.num_entries = 200;
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    int ones = 0, distinct = 0;
    for (size_t i = 0; i < ds->n; i++) {
        int32_t v = ds->entries[i].osl_asked;
        CHECK(v >= 1);
        ones += v == 1;
        distinct += i && v != ds->entries[i - 1].osl_asked;
        char want[64];
        snprintf(want, sizeof want, "\"max_tokens\":%d", v);
        CHECK(strstr(ds->entries[i].payload, want) != NULL);
    }
    CHECK(ones > 50 && distinct > 50);
    gp_dataset_free(ds);

    /* deterministic without a mean is refused */
    o.osl_mean = -1;
    o.osl_stddev = 0;
    o.osl_deterministic = 1;
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    CHECK(strstr(e.msg, "--output-tokens-mean") != NULL);
    gp_tokenizer_free(tok);
}

static void test_completions_and_models(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    static const char *const models[] = {"m0", "m1", "m2"};
    struct gp_dataset_opts o = ts_opts();
    o.models = models;
    o.n_models = 3;
    o.num_entries = 6;
    o.endpoint_type = GP_ENDPOINT_COMPLETIONS;
    struct gp_error e = {0};
    struct gp_dataset *ds = NULL;
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    for (size_t i = 0; i < 6; i++) {
        char want[64];
        snprintf(want, sizeof want, "{\"model\":\"m%zu\",\"prompt\":[\"", i % 3);
        CHECK(strncmp(ds->entries[i].payload, want, strlen(want)) == 0);
        char *c = ts_content(ds->entries[i].payload);
        CHECK_INT(ts_encode_count(tok, c), 16);
        free(c);
    }
    gp_dataset_free(ds);
    o.model_random = 1;
    o.num_entries = 60;
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    int seen[3] = {0};
    for (size_t i = 0; i < ds->n; i++)
        for (int m = 0; m < 3; m++) {
            char want[32];
            snprintf(want, sizeof want, "{\"model\":\"m%d\"", m);
            seen[m] += strncmp(ds->entries[i].payload, want, strlen(want)) == 0;
        }
    CHECK(seen[0] > 5 && seen[1] > 5 && seen[2] > 5 && seen[0] + seen[1] + seen[2] == 60);
    gp_dataset_free(ds);
    /* --model-weights 0.7,0.2,0.1: each entry records the model its body
     * names, the mix follows the odds, and the same seed gives the same mix */
    static const double w[] = {0.7, 0.2, 0.1};
    o.model_weights = w;
    o.num_entries = 400;
    size_t got[2][3] = {{0}};
    for (int run = 0; run < 2; run++) {
        CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
        for (size_t i = 0; i < ds->n; i++) {
            uint32_t m = ds->entries[i].model;
            CHECK(m < 3);
            char want[32];
            snprintf(want, sizeof want, "{\"model\":\"m%u\"", (unsigned)(m < 3 ? m : 0));
            CHECK(strncmp(ds->entries[i].payload, want, strlen(want)) == 0);
            got[run][m < 3 ? m : 0]++;
        }
        gp_dataset_free(ds);
    }
    CHECK(got[0][0] == got[1][0] && got[0][1] == got[1][1] && got[0][2] == got[1][2]);
    CHECK(got[0][0] > 250 && got[0][0] < 310 && got[0][1] > 55 && got[0][1] < 105 && got[0][2] > 20 && got[0][2] < 60);
    o.model_weights = NULL;
    o.n_models = 0;
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    CHECK(strstr(e.msg, "--model") != NULL);
    o.n_models = 3;
    o.isl_mean = 5000000;
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    CHECK(strstr(e.msg, "at most 4194304") != NULL);
    gp_tokenizer_free(tok);
}

static void test_prefix_prompts(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.num_entries = 40;
    o.isl_mean = 30;
    o.num_prefix_prompts = 3;
    o.prefix_prompt_length = 20;
    struct gp_error e = {0};
    struct gp_dataset *ds = NULL;
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    char *prefixes[3] = {0};
    int used[3] = {0};
    for (size_t i = 0; i < ds->n; i++) {
        char *c = ts_content(ds->entries[i].payload);
        CHECK_INT(ds->entries[i].isl, 50);
        CHECK_INT(ts_encode_count(tok, c), 50);
        /* builtin: 1 token per byte, so the prefix is the first 20 bytes and
         * the join is a space, as in f"{prefix} {prompt}". */
        CHECK(c[20] == ' ');
        c[20] = '\0';
        int k;
        for (k = 0; k < 3 && prefixes[k]; k++)
            if (strcmp(prefixes[k], c) == 0)
                break;
        CHECK(k < 3);
        if (k < 3) {
            if (!prefixes[k])
                prefixes[k] = strdup(c);
            used[k]++;
        }
        free(c);
    }
    CHECK(used[0] && used[1] && used[2]);
    for (int k = 0; k < 3; k++)
        free(prefixes[k]);
    gp_dataset_free(ds);
    gp_tokenizer_free(tok);
}

int main(void)
{
    GP_RUN(test_exact_isl_builtin);
    GP_RUN(test_dataset_exact_isl);
    GP_RUN(test_distinct_and_defaults);
    GP_RUN(test_short_prompts_distinct);
    GP_RUN(test_determinism_inputs_json);
    GP_RUN(test_stddev_reproducible_clamped);
    GP_RUN(test_osl_fields);
    GP_RUN(test_completions_and_models);
    GP_RUN(test_prefix_prompts);
    return gp_test_summary();
}
