/* tokenizer/test_tokenizer.c — unit tests: the builtin tokenizer, each
 * component on tiny hand-written tokenizer.json files, refusal of unknown
 * components, and (when scripts/fetch-tokenizers.sh has run) known ids,
 * round trips and linear time on the real files. */
#include "core/buf.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/test.h"
#include "tokenizer/hub.h"
#include "tokenizer/tokenizer.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[1024];

static const char *write_tmp(const char *name, const char *json)
{
    static char path[2048];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fputs(json, f);
    fclose(f);
    return path;
}

static struct gp_tokenizer *load_json(const char *json, struct gp_error *err)
{
    struct gp_tokenizer *t = NULL;
    const char *p = write_tmp("tokenizer.json", json);
    if (gp_tokenizer_load(p, NULL, &t, err))
        return NULL;
    return t;
}

/* Encodes s and renders the ids as "1,2,3" into a static buffer. */
static const char *enc(struct gp_tokenizer *t, const char *s, int special)
{
    static char out[4096];
    struct gp_ids ids = {0};
    struct gp_error err = {0};
    out[0] = 0;
    if (gp_tokenizer_encode(t, s, strlen(s), special, &ids, &err)) {
        snprintf(out, sizeof out, "ERR %s", err.msg);
        return out;
    }
    size_t k = 0;
    for (size_t i = 0; i < ids.n && k + 16 < sizeof out; i++)
        k += (size_t)snprintf(out + k, sizeof out - k, i ? ",%u" : "%u", ids.v[i]);
    gp_ids_free(&ids);
    return out;
}

static const char *dec(struct gp_tokenizer *t, const uint32_t *ids, size_t n, int skip)
{
    static struct gp_buf b;
    gp_buf_free(&b);
    struct gp_error err = {0};
    if (gp_tokenizer_decode(t, ids, n, skip, &b, &err))
        return "ERR";
    return b.data ? b.data : "";
}

static void test_builtin(void)
{
    struct gp_tokenizer *t;
    struct gp_error err = {0};
    CHECK_INT(gp_tokenizer_load("builtin", NULL, &t, &err), 0);
    CHECK_STR(enc(t, "hi\xff", 0), "104,105,255");
    CHECK_INT(gp_tokenizer_count(t, "abc", 3), 3);
    CHECK_INT(gp_tokenizer_count_reentrant(t), 1); /* metrics counts with it unlocked */
    uint32_t ids[] = {104, 105};
    CHECK_STR(dec(t, ids, 2, 0), "hi");
    CHECK_INT(gp_tokenizer_vocab_size(t), 256);
    CHECK_STR(gp_tokenizer_source(t), "builtin");
    gp_tokenizer_free(t);
}

/* byte-level: vocab a b c Ġ(space) ab abc Ġa Ġab Ġabc; merges in both forms */
#define BL_VOCAB "\"a\":0,\"b\":1,\"c\":2,\"\\u0120\":3,\"ab\":4,\"abc\":5,\"\\u0120a\":6,\"\\u0120ab\":7,\"\\u0120abc\":8,\"cc\":9,\"ccc\":10"
static const char *bl_json(const char *merges, int ignore)
{
    static char j[4096];
    snprintf(j, sizeof j,
             "{\"version\":\"1.0\",\"added_tokens\":[{\"id\":11,\"content\":\"<|end|>\",\"single_word\":false,"
             "\"lstrip\":false,\"rstrip\":false,\"normalized\":false,\"special\":true}],"
             "\"normalizer\":null,"
             "\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"Regex\":"
             "\" ?\\\\p{L}+|\\\\s+\"},\"behavior\":\"Isolated\",\"invert\":false},{\"type\":\"ByteLevel\","
             "\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":false}]},"
             "\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"Sequence\":{\"id\":\"A\",\"type_id\":0}},"
             "{\"SpecialToken\":{\"id\":\"<|end|>\",\"type_id\":0}}],\"pair\":[],\"special_tokens\":{\"<|end|>\":"
             "{\"id\":\"<|end|>\",\"ids\":[11],\"tokens\":[\"<|end|>\"]}}},"
             "\"decoder\":{\"type\":\"ByteLevel\"},"
             "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":null,\"fuse_unk\":false,\"byte_fallback\":false,"
             "%s\"vocab\":{" BL_VOCAB "},\"merges\":%s}}",
             ignore ? "\"ignore_merges\":true," : "", merges);
    return j;
}

static void test_bytelevel_merges(void)
{
    struct gp_error err = {0};
    const char *forms[] = {"[\"a b\",\"ab c\",\"\\u0120 a\",\"\\u0120a b\",\"\\u0120ab c\",\"c c\",\"cc c\"]",
                           "[[\"a\",\"b\"],[\"ab\",\"c\"],[\"\\u0120\",\"a\"],[\"\\u0120a\",\"b\"],[\"\\u0120ab\",\"c\"],"
                           "[\"c\",\"c\"],[\"cc\",\"c\"]]"};
    for (int f = 0; f < 2; f++) {
        struct gp_tokenizer *t = load_json(bl_json(forms[f], 0), &err);
        CHECK(t != NULL);
        if (!t) {
            fprintf(stderr, "  load: %s\n", err.msg);
            continue;
        }
        /* " abc": a b (rank 0) and ab c (1) win over Ġ a (2), so Ġabc is never built */
        CHECK_STR(enc(t, "abc abc", 0), "5,3,5");
        CHECK_STR(enc(t, "abc abc", 1), "5,3,5,11");
        CHECK_STR(enc(t, " a", 0), "6");
        CHECK_STR(enc(t, "ab<|end|>ca", 0), "4,11,2,0");
        /* "cccc": merge c c (rank 5) leftmost twice -> cc cc; cc c never applies */
        CHECK_STR(enc(t, "cccc", 0), "9,9");
        CHECK_STR(enc(t, "ccc", 0), "10");
        uint32_t ids[] = {5, 8, 11};
        CHECK_STR(dec(t, ids, 3, 0), "abc abc<|end|>");
        CHECK_STR(dec(t, ids, 3, 1), "abc abc");
        CHECK(gp_tokenizer_is_special(t, 11));
        CHECK(!gp_tokenizer_is_special(t, 5));
        CHECK_INT(gp_tokenizer_vocab_size(t), 12);
        gp_tokenizer_free(t);
    }
    /* ignore_merges: a whole pre-token in the vocab wins over the merges */
    struct gp_tokenizer *t = load_json(bl_json("[\"c c\"]", 1), &err);
    CHECK(t != NULL);
    if (t) {
        CHECK_STR(enc(t, "ccc", 0), "10");
        CHECK_INT(gp_tokenizer_count_reentrant(t), 0); /* its pre-token cache: metrics locks */
        CHECK_STR(enc(t, "cccc", 0), "9,9");
        gp_tokenizer_free(t);
    }
    t = load_json(bl_json("[\"c c\"]", 0), &err);
    if (t) {
        CHECK_STR(enc(t, "ccc", 0), "9,2");
        gp_tokenizer_free(t);
    }
    /* a merge naming a token outside the vocab is refused, as HF does */
    t = load_json(bl_json("[\"c x\"]", 0), &err);
    CHECK(t == NULL);
    CHECK(strstr(err.msg, "merges[0]") != NULL);
}

/* SentencePiece-style, as hf-internal-testing/llama-tokenizer */
static const char SPM_JSON[] =
    "{\"added_tokens\":[{\"id\":0,\"content\":\"<unk>\",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,"
    "\"normalized\":true,\"special\":true},{\"id\":1,\"content\":\"<s>\",\"single_word\":false,\"lstrip\":false,"
    "\"rstrip\":false,\"normalized\":true,\"special\":true}],"
    "\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\\u2581\"},"
    "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\\u2581\"}]},"
    "\"pre_tokenizer\":null,"
    "\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},"
    "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}],\"special_tokens\":{\"<s>\":{\"id\":\"<s>\",\"ids\":[1],\"tokens\":[\"<s>\"]}}},"
    "\"decoder\":{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{\"String\":\"\\u2581\"},"
    "\"content\":\" \"},{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"},{\"type\":\"Strip\",\"content\":\" \",\"start\":1,\"stop\":0}]},"
    "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":\"<unk>\",\"fuse_unk\":true,\"byte_fallback\":true,"
    "\"vocab\":{\"<unk>\":0,\"<s>\":1,\"<0xC3>\":2,\"<0xA9>\":3,\"\\u2581\":4,\"h\":5,\"i\":6,\"hi\":7,\"\\u2581hi\":8,"
    "\"<\":9,\">\":10,\"s\":11,\"<0xE2>\":12,\"<0x82>\":13,\"<0xAC>\":14},"
    "\"merges\":[\"h i\",\"\\u2581 hi\"]}}";

static void test_spm(void)
{
    struct gp_error err = {0};
    struct gp_tokenizer *t = load_json(SPM_JSON, &err);
    CHECK(t != NULL);
    if (!t) {
        fprintf(stderr, "  load: %s\n", err.msg);
        return;
    }
    CHECK_STR(enc(t, "hi hi", 0), "8,8");
    CHECK_STR(enc(t, "hi hi", 1), "1,8,8");
    CHECK_STR(enc(t, "hi", 1), "1,8");
    /* byte fallback for é, € */
    CHECK_STR(enc(t, "hi\xc3\xa9", 0), "8,2,3");
    /* normalized:true <s> is matched by its normalized form "▁<s>" */
    CHECK_STR(enc(t, "hi <s> hi", 0), "8,1,8");
    CHECK_STR(enc(t, "hi<s>hi", 0), "8,9,11,10,7");
    /* unknown chars (no byte tokens for them): fused into one <unk> */
    CHECK_STR(enc(t, "hi\xd0\x96\xd0\x96", 0), "8,0");
    uint32_t ids[] = {1, 8, 2, 3, 8, 12, 13};
    CHECK_STR(dec(t, ids, 7, 0), "<s> hi\xc3\xa9 hi\xef\xbf\xbd\xef\xbf\xbd");
    /* HF 0.23: a normalized:true special decodes as "▁<s>" and is not skipped */
    CHECK_STR(dec(t, ids, 7, 1), "<s> hi\xc3\xa9 hi\xef\xbf\xbd\xef\xbf\xbd");
    gp_tokenizer_free(t);
}

static void test_refusals(void)
{
    struct {
        const char *from, *to, *word;
    } cases[] = {
        {"\"pre_tokenizer\":null", "\"pre_tokenizer\":{\"type\":\"Whitespace\"}", "Whitespace"},
        {"{\"type\":\"Prepend\",\"prepend\":\"\\u2581\"}", "{\"type\":\"BertNormalizer\"}", "BertNormalizer"},
        {"{\"type\":\"Fuse\"}", "{\"type\":\"WordPiece\"}", "WordPiece"},
        {"\"type\":\"BPE\"", "\"type\":\"Unigram\"", "Unigram"},
        {"\"dropout\":null", "\"dropout\":0.1", "dropout"},
        {"\"post_processor\":{\"type\":\"TemplateProcessing\"", "\"post_processor\":{\"type\":\"Fancy\"", "Fancy"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char j[8192];
        const char *p = strstr(SPM_JSON, cases[i].from);
        CHECK(p != NULL);
        if (!p)
            continue;
        snprintf(j, sizeof j, "%.*s%s%s", (int)(p - SPM_JSON), SPM_JSON, cases[i].to, p + strlen(cases[i].from));
        struct gp_error err = {0};
        struct gp_tokenizer *t = load_json(j, &err);
        CHECK(t == NULL);
        CHECK(strstr(err.msg, cases[i].word) != NULL);
        if (!strstr(err.msg, cases[i].word))
            fprintf(stderr, "  message: %s\n", err.msg);
        gp_tokenizer_free(t);
    }
    struct gp_error err = {0};
    struct gp_tokenizer *t = NULL;
    CHECK(gp_tokenizer_load("/nonexistent/dir/tokenizer.json", NULL, &t, &err) != 0);
    CHECK(err.code == GP_ENOENT);
    CHECK(gp_hub_is_model_id("meta-llama/Llama-3.1-8B"));
    CHECK(!gp_hub_is_model_id("/abs/path"));
    CHECK(!gp_hub_is_model_id("a/b/c"));
    CHECK(!gp_hub_is_model_id("../x"));
    /* offline and not cached: one clear error that says how to supply a file */
    setenv("HF_HUB_CACHE", tmpdir, 1);
    struct gp_tokenizer_opts o = {NULL, 1};
    CHECK(gp_tokenizer_load("nobody/nothing", &o, &t, &err) != 0);
    CHECK(strstr(err.msg, "--tokenizer /path/to/tokenizer.json") != NULL);
}

static struct gp_tokenizer *real(const char *fam)
{
    const char *c = getenv("GENPERF_CACHE");
    char p[2048];
    snprintf(p, sizeof p, "%s/tokenizers/%s/tokenizer.json", c && *c ? c : ".cache", fam);
    if (access(p, R_OK) != 0) {
        printf("note: %s missing (run scripts/fetch-tokenizers.sh); real-file checks for %s skipped\n", p, fam);
        return NULL;
    }
    struct gp_tokenizer *t = NULL;
    struct gp_error err = {0};
    if (gp_tokenizer_load(p, NULL, &t, &err))
        fprintf(stderr, "  load %s: %s\n", p, err.msg);
    CHECK(t != NULL);
    return t;
}

static void roundtrip(struct gp_tokenizer *t, const char *s)
{
    struct gp_ids ids = {0};
    struct gp_buf b = {0};
    CHECK_INT(gp_tokenizer_encode(t, s, strlen(s), 0, &ids, NULL), 0);
    CHECK_INT(gp_tokenizer_decode(t, ids.v, ids.n, 0, &b, NULL), 0);
    CHECK_STR(b.data ? b.data : "", s);
    gp_ids_free(&ids);
    gp_buf_free(&b);
}

static const char *RT[] = {"Hello world! It's 2024, don't   you think?", "  leading\n\n\ttabs\r\n",
                           "中文 日本語 한국어 😀👨‍👩‍👧", "<|endoftext|><think>x</think>", "e\xcc\x81 caf\xc3\xa9", ""};

static void test_real_llama3(void)
{
    struct gp_tokenizer *t = real("llama3");
    if (!t)
        return;
    CHECK_STR(enc(t, " Vi\xe1\xbb\x87t", 0), "101798"); /* ignore_merges (spec §2.1) */
    CHECK_STR(enc(t, "Hello world! It's 2024, don't   you think?", 0),
              "9906,1917,0,1102,596,220,2366,19,11,1541,956,256,499,1781,30");
    CHECK_STR(enc(t, "<|begin_of_text|>hi", 0), "128000,6151");
    for (size_t i = 0; i < sizeof RT / sizeof RT[0]; i++)
        roundtrip(t, RT[i]);
    /* linear time: 8x the text must not take much more than 8x as long */
    struct gp_buf big = {0};
    for (int i = 0; i < 8000; i++)
        gp_buf_printf(&big, "word%d alpha beta %d, gamma\xce\xb4 delta! ", i, i * 7919);
    struct gp_ids ids = {0};
    uint64_t t0 = gp_now_ns();
    gp_tokenizer_encode(t, big.data, big.len / 8, 0, &ids, NULL);
    uint64_t t1 = gp_now_ns();
    size_t small = ids.n;
    ids.n = 0;
    gp_tokenizer_encode(t, big.data, big.len, 0, &ids, NULL);
    uint64_t t2 = gp_now_ns();
    printf("llama3: %zu tokens in %.1f ms, %zu in %.1f ms\n", small, (t1 - t0) / 1e6, ids.n, (t2 - t1) / 1e6);
    CHECK(ids.n > 100000);
    CHECK((double)(t2 - t1) < 30.0 * (double)(t1 - t0) + 50e6);
    gp_ids_free(&ids);
    gp_buf_free(&big);
    gp_tokenizer_free(t);
}

static void test_real_others(void)
{
    const char *fams[] = {"qwen3", "gpt4o", "deepseek_v3", "gptoss"};
    for (size_t f = 0; f < 4; f++) {
        struct gp_tokenizer *t = real(fams[f]);
        if (!t)
            continue;
        for (size_t i = 0; i < sizeof RT / sizeof RT[0]; i++)
            if (f != 0 || i != 4) /* qwen3 normalizes to NFC: e + U+0301 comes back as U+00E9 */
                roundtrip(t, RT[i]);
        gp_tokenizer_free(t);
    }
    struct gp_tokenizer *t = real("qwen3");
    if (t) {
        CHECK_STR(enc(t, "Hello world! It's 2024, don't   you think?", 0),
                  "9707,1879,0,1084,594,220,17,15,17,19,11,1513,944,256,498,1744,30");
        CHECK_STR(enc(t, "<think>", 0), "151667"); /* non-special added tokens are split out too */
        gp_tokenizer_free(t);
    }
    t = real("llama_tok"); /* hf-internal-testing/llama-tokenizer, GenAI-Perf's default */
    if (t) {
        CHECK_STR(enc(t, "The Gophers craft code using [MASK] language.", 1),
                  "1,450,402,3021,414,25554,775,773,518,1529,16033,29962,4086,29889");
        CHECK_STR(enc(t, "Hello <s> world", 0), "15043,1,3186"); /* normalized:true <s> is "▁<s>" */
        gp_tokenizer_free(t);
    }
    t = real("llama2"); /* really Mistral-7B's file */
    if (t) {
        CHECK_STR(enc(t, "Hello", 0), "22557");
        CHECK_STR(enc(t, "Hello", 1), "1,22557");
        /* long SPM input (one word for the model): linear thanks to the safe ▁ split */
        struct gp_buf big = {0};
        for (int i = 0; i < 20000; i++)
            gp_buf_printf(&big, "token%d is here. ", i);
        struct gp_ids ids = {0};
        uint64_t t0 = gp_now_ns();
        CHECK_INT(gp_tokenizer_encode(t, big.data, big.len, 0, &ids, NULL), 0);
        printf("llama2: %zu tokens in %.1f ms\n", ids.n, (gp_now_ns() - t0) / 1e6);
        CHECK(ids.n > 100000);
        gp_ids_free(&ids);
        gp_buf_free(&big);
        gp_tokenizer_free(t);
    }
}

int main(void)
{
    if (!gp_test_mkdtemp(tmpdir, sizeof tmpdir, "gp-toktest"))
        return 2;
    GP_RUN(test_builtin);
    GP_RUN(test_bytelevel_merges);
    GP_RUN(test_spm);
    GP_RUN(test_refusals);
    GP_RUN(test_real_llama3);
    GP_RUN(test_real_others);
    gp_test_rmtree(tmpdir);
    return gp_test_summary();
}
