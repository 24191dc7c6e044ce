/* Unit tests: request bodies key by key against GenAI-Perf 0.0.16's
 * converters. The expected bodies were written by hand from
 * openai_chat_completions_converter.py, openai_completions_converter.py,
 * openai_embeddings_converter.py, rankings_converter.py and
 * base_converter.py: same keys, same order (Python dict insertion order),
 * same value types. "*" in an expected string matches any string; "PREFIX*"
 * any string that starts with PREFIX. */
#include "core/base64.h"
#include "core/test.h"
#include "dataset/test_support.h"

#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/gp_bodies_XXXXXX";

static const char *put(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

/* Same keys in the same order, same types and values, recursively. */
static int same(const json_t *want, const json_t *got, const char *where)
{
    if (json_typeof(want) != json_typeof(got) && !(json_is_string(want) && !strcmp(json_string_value(want), "*"))) {
        fprintf(stderr, "    %s: type %d != %d\n", where, json_typeof(got), json_typeof(want));
        return 0;
    }
    char sub[512];
    if (json_is_object(want)) {
        void *iw = json_object_iter((json_t *)want), *ig = json_object_iter((json_t *)got);
        for (; iw && ig; iw = json_object_iter_next((json_t *)want, iw), ig = json_object_iter_next((json_t *)got, ig)) {
            const char *kw = json_object_iter_key(iw), *kg = json_object_iter_key(ig);
            snprintf(sub, sizeof sub, "%s.%s", where, kw);
            if (strcmp(kw, kg)) {
                fprintf(stderr, "    %s: key \"%s\" where GenAI-Perf has \"%s\"\n", where, kg, kw);
                return 0;
            }
            if (!same(json_object_iter_value(iw), json_object_iter_value(ig), sub))
                return 0;
        }
        if (iw || ig)
            fprintf(stderr, "    %s: %s keys\n", where, iw ? "missing" : "extra");
        return !iw && !ig;
    }
    if (json_is_array(want)) {
        if (json_array_size(want) != json_array_size(got)) {
            fprintf(stderr, "    %s: %zu items, GenAI-Perf %zu\n", where, json_array_size(got), json_array_size(want));
            return 0;
        }
        for (size_t i = 0; i < json_array_size(want); i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", where, i);
            if (!same(json_array_get(want, i), json_array_get(got, i), sub))
                return 0;
        }
        return 1;
    }
    if (json_is_string(want)) {
        const char *w = json_string_value(want), *g = json_string_value(got);
        size_t n = strlen(w);
        int ok = n && w[n - 1] == '*' ? !strncmp(w, g, n - 1) : !strcmp(w, g);
        if (!ok)
            fprintf(stderr, "    %s: \"%.60s\" != \"%s\"\n", where, g, w);
        return ok;
    }
    int ok = json_equal((json_t *)want, (json_t *)got);
    if (!ok)
        fprintf(stderr, "    %s: values differ\n", where);
    return ok;
}

static int body_is(const char *payload, const char *want_json)
{
    json_error_t je;
    json_t *w = json_loads(want_json, JSON_PRESERVE_ORDER, &je), *g = json_loads(payload, 0, &je);
    if (!w)
        fprintf(stderr, "    bad expected JSON: %s\n", je.text);
    int ok = w && g && same(w, g, "body");
    json_decref(w);
    json_decref(g);
    return ok;
}

static struct gp_dataset *build(const struct gp_dataset_opts *o, struct gp_tokenizer *tok)
{
    struct gp_dataset *ds = NULL;
    struct gp_error e = {0};
    if (gp_dataset_build(o, tok, &ds, &e))
        fprintf(stderr, "    build: %s\n", e.msg);
    return ds;
}

/* {"model", "messages":[{"role":"user","content": text}], "stream", "max_tokens", extras} */
static void test_chat(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.input_file = put("t.jsonl", "{\"text\": \"  hello there \"}\n{\"text_input\": \"second\"}\n");
    o.streaming = 1;
    o.osl_mean = 12;
    json_t *extra = json_pack("{s:f,s:s}", "temperature", 0.5, "user", "u1");
    o.extra_inputs = extra;
    struct gp_dataset *ds = build(&o, tok);
    CHECK(ds && ds->n == 2);
    if (ds) {
        CHECK(body_is(ds->entries[0].payload,
                      "{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}],"
                      "\"stream\":true,\"max_tokens\":12,\"temperature\":0.5,\"user\":\"u1\"}"));
        /* the comparison sees key order */
        CHECK(!body_is(ds->entries[0].payload,
                       "{\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}],\"model\":\"test-model\","
                       "\"stream\":true,\"max_tokens\":12,\"temperature\":0.5,\"user\":\"u1\"}"));
        /* GenAI-Perf never sends stream_options */
        CHECK(strstr(ds->entries[1].payload, "stream_options") == NULL);
    }
    gp_dataset_free(ds);
    /* --server-usage: genperf's opt-in, right after "stream" */
    o.server_usage = 1;
    ds = build(&o, tok);
    CHECK(ds && body_is(ds->entries[0].payload,
                        "{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}],"
                        "\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":12,"
                        "\"temperature\":0.5,\"user\":\"u1\"}"));
    gp_dataset_free(ds);
    /* chat drops images and audio (only multimodal sends parts) */
    o.server_usage = 0;
    o.input_file = NULL;
    o.image = (struct gp_image_opts){.width_mean = 8, .height_mean = 8};
    ds = build(&o, tok);
    CHECK(ds && body_is(ds->entries[0].payload,
                        "{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":\"*\"}],"
                        "\"stream\":true,\"max_tokens\":12,\"temperature\":0.5,\"user\":\"u1\"}"));
    gp_dataset_free(ds);
    /* --batch-size-text is refused for chat, as GenAI-Perf's check_config does */
    o.batch_size_text = 2;
    struct gp_error e = {0};
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    CHECK_STR(e.msg, "The --batch-size-text flag is not supported for openai_chat_completions.");
    json_decref(extra);
    gp_tokenizer_free(tok);
}

/* The OpenAI Responses API (API reference, "Create a model response"):
 * {"model", "input": [{"role":"user","content": text}], "stream",
 * "max_output_tokens", extras}; no stream_options (the API has none: its
 * stream always ends with usage), and its input messages count as ISL. */
static void test_responses(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.endpoint_type = GP_ENDPOINT_RESPONSES;
    o.input_file = put("r.jsonl", "{\"text\": \"hello there\"}\n");
    o.streaming = 1;
    o.server_usage = 1;
    o.osl_mean = 12;
    json_t *extra = json_pack("{s:f}", "temperature", 0.5);
    o.extra_inputs = extra;
    struct gp_dataset *ds = build(&o, tok);
    CHECK(ds && ds->n == 1);
    if (ds) {
        CHECK(body_is(ds->entries[0].payload,
                      "{\"model\":\"test-model\",\"input\":[{\"role\":\"user\",\"content\":\"hello there\"}],"
                      "\"stream\":true,\"max_output_tokens\":12,\"temperature\":0.5}"));
        CHECK_INT(ds->entries[0].osl_asked, 12);
        CHECK_INT(ds->entries[0].isl, 11);
    }
    gp_dataset_free(ds);
    o.batch_size_text = 2;
    struct gp_error e = {0};
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    CHECK_STR(e.msg, "The --batch-size-text flag is not supported for openai_responses.");
    json_t *p = json_loads("{\"model\":\"m\",\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\","
                           "\"text\":\"ab\"}]},{\"role\":\"user\",\"content\":\"cd\"}]}", 0, NULL);
    struct gp_buf tmp = {0};
    CHECK_INT(gp_dataset_payload_isl(tok, p, &tmp), 5);
    gp_buf_free(&tmp);
    json_decref(p);
    json_decref(extra);
    gp_tokenizer_free(tok);
}

/* {"model", "prompt": [texts], "stream", "max_tokens", extras} */
static void test_completions(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.endpoint_type = GP_ENDPOINT_COMPLETIONS;
    o.input_file = put("c.jsonl", "{\"text\": \"one two\"}\n");
    o.streaming = 1;
    o.osl_mean = 5;
    struct gp_dataset *ds = build(&o, tok);
    CHECK(ds && body_is(ds->entries[0].payload,
                        "{\"model\":\"test-model\",\"prompt\":[\"one two\"],\"stream\":true,\"max_tokens\":5}"));
    CHECK(ds && ds->entries[0].isl == 7);
    gp_dataset_free(ds);
    /* -b 3: three prompts per request; ISL is the tokens of " ".join(prompt) */
    o.input_file = put("c3.jsonl", "{\"text\": \"aa\"}\n{\"text\": \"bb\"}\n{\"text\": \"cc\"}\n{\"text\": \"dd\"}\n");
    o.batch_size_text = 3;
    o.streaming = 0;
    o.num_entries = 5;
    ds = build(&o, tok);
    CHECK(ds && ds->n == 5);
    for (size_t i = 0; ds && i < ds->n; i++) {
        CHECK(body_is(ds->entries[i].payload, "{\"model\":\"test-model\",\"prompt\":[\"*\",\"*\",\"*\"],\"max_tokens\":5}"));
        CHECK_INT(ds->entries[i].isl, 8);
    }
    gp_dataset_free(ds);
    /* synthetic with -b 2 */
    o.input_file = NULL;
    o.batch_size_text = 2;
    ds = build(&o, tok);
    CHECK(ds && body_is(ds->entries[0].payload, "{\"model\":\"test-model\",\"prompt\":[\"*\",\"*\"],\"max_tokens\":5}"));
    gp_dataset_free(ds);
    gp_tokenizer_free(tok);
}

/* {"model", "input": [texts], extras}: no stream, no max_tokens */
static void test_embeddings(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.endpoint_type = GP_ENDPOINT_EMBEDDINGS;
    o.osl_mean = 9;
    json_t *extra = json_pack("{s:s}", "encoding_format", "float");
    o.extra_inputs = extra;
    o.input_file = put("e.jsonl", "{\"text\": \"embed me\"}\n");
    struct gp_dataset *ds = build(&o, tok);
    CHECK(ds && body_is(ds->entries[0].payload,
                        "{\"model\":\"test-model\",\"input\":[\"embed me\"],\"encoding_format\":\"float\"}"));
    CHECK(ds && ds->entries[0].osl_asked == -1);
    gp_dataset_free(ds);
    o.input_file = NULL;
    o.batch_size_text = 4;
    ds = build(&o, tok);
    CHECK(ds && ds->n == 4);
    CHECK(ds && body_is(ds->entries[3].payload,
                        "{\"model\":\"test-model\",\"input\":[\"*\",\"*\",\"*\",\"*\"],\"encoding_format\":\"float\"}"));
    CHECK(ds && ds->entries[3].isl == 64 && ds->entries[3].osl_asked == -1);
    gp_dataset_free(ds);
    o.streaming = 1;
    struct gp_error e = {0};
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    CHECK_STR(e.msg, "The --streaming option is not supported for openai_embeddings.");
    json_decref(extra);
    gp_tokenizer_free(tok);
}

/* {"query": {"text"}, "passages": [{"text"}...], "model", extras};
 * with --extra-inputs rankings:tei {"query": text, "texts": [...]}. */
static void test_rankings(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.endpoint_type = GP_ENDPOINT_RANKINGS;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/rank", tmpdir);
    mkdir(dir, 0700);
    put("rank/queries.jsonl", "{\"text\": \"what is up\"}\n{\"text\": \"q2\"}\n{\"text\": \"q3\"}\n");
    put("rank/passages.jsonl", "{\"text\": \"the sky\"}\n{\"text\": \"p2\"}\n");
    o.input_file = dir;
    struct gp_dataset *ds = build(&o, tok);
    CHECK(ds && ds->n == 2); /* stops at the shorter file */
    CHECK(ds && body_is(ds->entries[0].payload, "{\"query\":{\"text\":\"what is up\"},\"passages\":[{\"text\":\"the sky\"}],"
                                                "\"model\":\"test-model\"}"));
    gp_dataset_free(ds);
    json_t *extra = json_pack("{s:s,s:b}", "rankings", "tei", "truncate", 1);
    o.extra_inputs = extra;
    ds = build(&o, tok);
    CHECK(ds && body_is(ds->entries[1].payload, "{\"query\":\"q2\",\"texts\":[\"p2\"],\"truncate\":true}"));
    gp_dataset_free(ds);
    json_decref(extra);
    o.extra_inputs = NULL;
    /* synthetic:queries,passages with -b 3: one query, three passages */
    o.input_file = "synthetic:queries,passages";
    o.batch_size_text = 3;
    ds = build(&o, tok);
    CHECK(ds && ds->n == 4);
    CHECK(ds && body_is(ds->entries[2].payload, "{\"query\":{\"text\":\"*\"},\"passages\":[{\"text\":\"*\"},"
                                                "{\"text\":\"*\"},{\"text\":\"*\"}],\"model\":\"test-model\"}"));
    gp_dataset_free(ds);
    struct gp_error e = {0};
    o.input_file = NULL;
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    CHECK(strstr(e.msg, "synthetic:queries,passages") != NULL);
    o.input_file = "synthetic:queries";
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    gp_tokenizer_free(tok);
}

/* multimodal: content parts, texts then image_url parts then input_audio parts */
static void test_multimodal_images_audio(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.endpoint_type = GP_ENDPOINT_MULTIMODAL;
    o.num_entries = 3;
    o.streaming = 1;
    o.image = (struct gp_image_opts){.width_mean = 40, .height_mean = 30, .width_stddev = 5, .format = GP_IMAGE_JPEG};
    o.batch_size_image = 2;
    o.audio.length_mean = 0.2;
    struct gp_dataset *ds = build(&o, tok);
    CHECK(ds && ds->n == 3);
    const char *want = "{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":["
                       "{\"type\":\"text\",\"text\":\"*\"},"
                       "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/jpeg;base64,/9j/*\"}},"
                       "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/jpeg;base64,/9j/*\"}},"
                       "{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"UklGR*\",\"format\":\"wav\"}}]}],"
                       "\"stream\":true}";
    for (size_t i = 0; ds && i < ds->n; i++) {
        CHECK(body_is(ds->entries[i].payload, want));
        CHECK_INT(ds->entries[i].isl, 16); /* the text part only */
    }
    /* GenAI-Perf's ISL reader agrees on the text part */
    if (ds) {
        json_t *b = json_loads(ds->entries[0].payload, 0, NULL);
        struct gp_buf tmp = {0};
        CHECK_INT(gp_dataset_payload_isl(tok, b, &tmp), 16);
        gp_buf_free(&tmp);
        json_decref(b);
    }
    /* seeded: the same bytes twice */
    struct gp_dataset *again = build(&o, tok);
    CHECK(ds && again && !strcmp(ds->entries[1].payload, again->entries[1].payload));
    gp_dataset_free(again);
    gp_dataset_free(ds);
    /* png, no audio */
    o.image.format = GP_IMAGE_PNG;
    o.audio.length_mean = 0;
    o.batch_size_image = 0;
    ds = build(&o, tok);
    CHECK(ds && body_is(ds->entries[0].payload,
                        "{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":["
                        "{\"type\":\"text\",\"text\":\"*\"},"
                        "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,iVBORw0KGgo*\"}}]}],"
                        "\"stream\":true}"));
    gp_dataset_free(ds);
    o.audio.length_mean = 1;
    o.audio.format = GP_AUDIO_MP3;
    struct gp_error e = {0};
    CHECK(gp_dataset_build(&o, tok, &ds, &e) == -GP_ENOTSUP);
    CHECK(strstr(e.msg, "mp3") != NULL);
    gp_tokenizer_free(tok);
}

/* completions "prompt" lists and chat content parts count as GenAI-Perf's
 * _get_input_payload joins them. */
static void test_payload_isl_forms(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_buf tmp = {0};
    json_t *a = json_loads("{\"prompt\":[\"ab\",\"cd\"]}", 0, NULL);
    json_t *b = json_loads("{\"prompt\":\"ab cd\"}", 0, NULL);
    json_t *c = json_loads("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"ab\"},"
                           "{\"type\":\"image_url\",\"image_url\":{\"url\":\"x\"}},{\"type\":\"text\",\"text\":\"cd\"}]}]}",
                           0, NULL);
    CHECK_INT(gp_dataset_payload_isl(tok, a, &tmp), 5);
    CHECK_INT(gp_dataset_payload_isl(tok, b, &tmp), 5);
    CHECK_INT(gp_dataset_payload_isl(tok, c, &tmp), 5);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    gp_buf_free(&tmp);
    gp_tokenizer_free(tok);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 1;
    GP_RUN(test_chat);
    GP_RUN(test_completions);
    GP_RUN(test_responses);
    GP_RUN(test_embeddings);
    GP_RUN(test_rankings);
    GP_RUN(test_multimodal_images_audio);
    GP_RUN(test_payload_isl_forms);
    gp_test_rmtree(tmpdir);
    return gp_test_summary();
}
