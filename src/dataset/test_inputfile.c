/* Unit tests: --input-file JSONL rows, line-numbered errors, inputs.json bytes. */
#include "core/fsutil.h"
#include "core/test.h"
#include "dataset/test_support.h"

#include <unistd.h>

static char dir[64];

static const char *put(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gp_write_file_atomic(path, text, strlen(text), NULL);
    return path;
}

static int build(const char *file, struct gp_dataset_opts *o, struct gp_dataset **ds, struct gp_error *e)
{
    struct gp_tokenizer *tok = ts_builtin();
    o->input_file = file;
    int rc = gp_dataset_build(o, tok, ds, e);
    gp_tokenizer_free(tok);
    return rc;
}

static void test_rows(void)
{
    const char *f = put("ok.jsonl",
                        "{\"text\": \"  Hello world \\n\"}\n"
                        "\n"
                        "{\"text_input\": \"caf\\u00e9\", \"max_tokens\": 12}\r\n"
                        "{\"messages\": [{\"role\": \"system\", \"content\": \"be brief\"}, {\"role\": \"user\", "
                        "\"content\": \"hi\"}]}\n"
                        "{\"payload\": {\"messages\": [{\"role\": \"user\", \"content\": \"raw\"}], \"max_tokens\": 5, "
                        "\"temperature\": 0}}\n"
                        "{\"payload\": {\"model\": \"other\", \"prompt\": \"abc\"}}");
    struct gp_dataset_opts o = ts_opts();
    o.osl_mean = 50;
    o.num_entries = 999; /* ignored for files: every row is one entry */
    struct gp_dataset *ds = NULL;
    struct gp_error e = {0};
    CHECK_INT(build(f, &o, &ds, &e), 0);
    if (!ds)
        return;
    CHECK_INT(ds->n, 5);
    CHECK_STR(ds->entries[0].payload, "{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello "
                                      "world\"}],\"max_tokens\":50}");
    CHECK_INT(ds->entries[0].isl, 11);
    CHECK_INT(ds->entries[0].osl_asked, 50);
    CHECK_STR(ds->entries[1].payload, "{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":\"caf\xc3\xa9\"}],"
                                      "\"max_tokens\":12}");
    CHECK_INT(ds->entries[1].isl, 5); /* builtin counts bytes */
    CHECK_INT(ds->entries[1].osl_asked, 12);
    CHECK_STR(ds->entries[2].payload,
              "{\"model\":\"test-model\",\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},{\"role\":\"user\","
              "\"content\":\"hi\"}],\"max_tokens\":50}");
    CHECK_INT(ds->entries[2].isl, 11); /* "be brief hi" */
    CHECK_STR(ds->entries[3].payload, "{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\",\"content\":\"raw\"}],"
                                      "\"max_tokens\":5,\"temperature\":0}");
    CHECK_INT(ds->entries[3].osl_asked, 5);
    CHECK_INT(ds->entries[3].isl, 3);
    CHECK_STR(ds->entries[4].payload, "{\"model\":\"other\",\"prompt\":\"abc\"}");
    CHECK_INT(ds->entries[4].osl_asked, -1);

    char out[128];
    snprintf(out, sizeof out, "%s/inputs.json", dir);
    CHECK_INT(gp_dataset_write_inputs_json(ds, out, &e), 0);
    char *txt = NULL;
    CHECK_INT(gp_read_file(out, &txt, NULL, &e), 0);
    /* What Python's json.dumps(..., indent=2) prints for the first two rows. */
    const char *want =
        "{\n  \"data\": [\n    {\n      \"payload\": [\n        {\n          \"model\": \"test-model\",\n"
        "          \"messages\": [\n            {\n              \"role\": \"user\",\n"
        "              \"content\": \"Hello world\"\n            }\n          ],\n          \"max_tokens\": 50\n"
        "        }\n      ]\n    },\n    {\n      \"payload\": [\n        {\n          \"model\": \"test-model\",\n"
        "          \"messages\": [\n            {\n              \"role\": \"user\",\n"
        "              \"content\": \"caf\\u00e9\"\n            }\n          ],\n          \"max_tokens\": 12\n"
        "        }\n      ]\n    },";
    CHECK(txt && strncmp(txt, want, strlen(want)) == 0);
    const char *end = "\"prompt\": \"abc\"\n        }\n      ]\n    }\n  ]\n}";
    CHECK(txt && strlen(txt) > strlen(end) && strcmp(txt + strlen(txt) - strlen(end), end) == 0);
    free(txt);
    unlink(out);
    gp_dataset_free(ds);
}

static void expect_err(const char *name, const char *text, const char *needle)
{
    const char *f = put(name, text);
    struct gp_dataset_opts o = ts_opts();
    struct gp_dataset *ds = NULL;
    struct gp_error e = {0};
    int rc = build(f, &o, &ds, &e);
    CHECK(rc < 0);
    CHECK(ds == NULL);
    if (!strstr(e.msg, needle) || !strstr(e.msg, name)) {
        fprintf(stderr, "  [%s] got: %s\n  want: %s\n", name, e.msg, needle);
        CHECK(0);
    }
}

static void test_errors(void)
{
    expect_err("bad.jsonl", "{\"text\": \"a\"}\n{\"text\": \"b\"}\n{\"text\": \"c\",}\n", "line 3: invalid JSON");
    expect_err("nokey.jsonl", "{\"text\": \"a\"}\n\n{\"prompt\": \"b\"}\n", "line 3: no prompt");
    expect_err("both.jsonl", "{\"text\": \"a\", \"text_input\": \"b\"}\n", "line 1: each row must have only one of");
    expect_err("two.jsonl", "{\"text\": \"a\", \"messages\": []}\n", "line 1: give only one of");
    expect_err("nonstr.jsonl", "{\"text\": 5}\n", "line 1: \"text\" must be a string");
    expect_err("arr.jsonl", "[1,2]\n", "line 1: expected a JSON object");
    expect_err("mt.jsonl", "{\"text\": \"a\"}\n{\"text\": \"a\", \"max_tokens\": -3}\n",
               "line 2: \"max_tokens\" must be a positive integer");
    expect_err("msg.jsonl", "{\"messages\": [{\"content\": \"x\"}]}\n", "line 1: \"messages\"[0] must be an object");
    expect_err("msg2.jsonl", "{\"messages\": []}\n", "line 1: \"messages\" must be a non-empty array");
    expect_err("pl.jsonl", "{\"payload\": \"x\"}\n", "line 1: \"payload\" must be a JSON object");
    expect_err("dup.jsonl", "{\"text\": \"a\", \"text\": \"b\"}\n", "line 1: invalid JSON");
    expect_err("empty.jsonl", "", "has no rows");
    expect_err("blank.jsonl", "\n   \n\r\n", "has no rows");
    expect_err("utf8.jsonl", "{\"text\": \"\xff\"}\n", "line 1: invalid JSON");
    /* issue 40 item 5: a NUL is named, not jansson's flag name */
    expect_err("nul.jsonl", "{\"text\": \"a\"}\n{\"text\": \"b\\u0000c\"}\n",
               "line 2: invalid JSON: the text holds a NUL character (\\u0000), which genperf does not support");
    struct gp_dataset_opts o = ts_opts();
    struct gp_dataset *ds = NULL;
    struct gp_error e = {0};
    char missing[128];
    snprintf(missing, sizeof missing, "%s/missing.jsonl", dir);
    CHECK(build(missing, &o, &ds, &e) < 0);
    CHECK(strstr(e.msg, "missing.jsonl") != NULL);
    /* messages rows are chat-only */
    const char *f = put("chatonly.jsonl", "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}\n");
    o.endpoint_type = GP_ENDPOINT_COMPLETIONS;
    CHECK(build(f, &o, &ds, &e) < 0);
    CHECK(strstr(e.msg, "line 1") && strstr(e.msg, "--endpoint-type chat"));
}

static void test_file_deterministic_osl(void)
{
    const char *f = put("det.jsonl", "{\"text\": \"abc\", \"max_tokens\": 9}\n{\"text\": \"abc\"}\n");
    struct gp_dataset_opts o = ts_opts();
    o.osl_mean = 20;
    o.osl_deterministic = 1;
    o.streaming = 1;
    o.endpoint_type = GP_ENDPOINT_COMPLETIONS;
    struct gp_dataset *ds = NULL;
    struct gp_error e = {0};
    CHECK_INT(build(f, &o, &ds, &e), 0);
    if (!ds)
        return;
    CHECK_STR(ds->entries[0].payload, "{\"model\":\"test-model\",\"prompt\":[\"abc\"],\"stream\":true,\"max_tokens\":9,"
                                      "\"min_tokens\":9,\"ignore_eos\":true}");
    CHECK_STR(ds->entries[1].payload, "{\"model\":\"test-model\",\"prompt\":[\"abc\"],\"stream\":true,\"max_tokens\":20,"
                                      "\"min_tokens\":20,\"ignore_eos\":true}");
    gp_dataset_free(ds);
}

static void test_trace_payload_file(void)
{
    const char *f = put("trace.jsonl",
                        "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 20, \"hash_ids\": [7, 8]}\n"
                        "{\"timestamp\": 25.5, \"input_length\": 520, \"hash_ids\": [7, 9]}\n"
                        "{\"input_length\": 3}\n"
                        "{\"text\": \"hello\", \"output_length\": 4}\n");
    char spec[300];
    snprintf(spec, sizeof spec, "payload:%s", f);
    struct gp_dataset_opts o = ts_opts();
    struct gp_dataset *ds = NULL;
    struct gp_error e = {0};
    struct gp_tokenizer *tok = ts_builtin();
    o.input_file = spec;
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    if (!ds) {
        fprintf(stderr, "  %s\n", e.msg);
        gp_tokenizer_free(tok);
        return;
    }
    CHECK_INT(ds->n, 4);
    long want[] = {600, 520, 3, 5};
    for (size_t i = 0; i < 4; i++) {
        char *c = ts_content(ds->entries[i].payload);
        CHECK_INT(ds->entries[i].isl, want[i]);
        CHECK_INT(ts_encode_count(tok, c), want[i]);
        free(c);
    }
    CHECK_INT(ds->entries[0].osl_asked, 20);
    CHECK(strstr(ds->entries[0].payload, "\"max_tokens\":20") != NULL);
    CHECK_INT(ds->entries[1].osl_asked, -1);
    CHECK_INT(ds->entries[3].osl_asked, 4);
    CHECK_NEAR(ds->entries[0].timestamp_ms, 0.0, 0);
    CHECK_NEAR(ds->entries[1].timestamp_ms, 25.5, 0);
    CHECK_NEAR(ds->entries[2].timestamp_ms, -1.0, 0);
    /* hash id 7 is the same first 512-token block in rows 0 and 1 */
    char *a = ts_content(ds->entries[0].payload), *b = ts_content(ds->entries[1].payload);
    CHECK(a && b && strncmp(a, b, 512) == 0 && strncmp(a, b, 600) != 0);
    free(a);
    free(b);
    gp_dataset_free(ds);

    f = put("trace_bad.jsonl", "{\"input_length\": 4}\n{\"input_length\": 0}\n");
    snprintf(spec, sizeof spec, "payload:%s", f);
    o.input_file = spec;
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    CHECK(strstr(e.msg, "line 2: \"input_length\" must be a positive integer") != NULL);
    f = put("trace_bad3.jsonl", "{\"timestamp\": \"soon\", \"input_length\": 4}\n");
    snprintf(spec, sizeof spec, "payload:%s", f);
    o.input_file = spec;
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    CHECK(strstr(e.msg, "line 1: \"timestamp\" must be a number") != NULL);
    f = put("trace_bad2.jsonl", "{\"input_length\": 5, \"hash_ids\": [\"x\"]}\n");
    snprintf(spec, sizeof spec, "payload:%s", f);
    o.input_file = spec;
    CHECK(gp_dataset_build(&o, tok, &ds, &e) < 0);
    CHECK(strstr(e.msg, "line 1") && strstr(e.msg, "hash_ids"));
    /* named synthetic sets: one set of rows per name (GenAI-Perf's synthetic:) */
    o.input_file = "synthetic:queries,passages";
    o.num_entries = 3;
    CHECK_INT(gp_dataset_build(&o, tok, &ds, &e), 0);
    CHECK_INT(ds->n, 6);
    gp_dataset_free(ds);
    gp_tokenizer_free(tok);
}

/* A UTF-8 byte order mark (Windows editors write one) starts the file: read
 * past it, as Python's utf-8-sig does; anywhere else (two files joined with
 * cat) it is named, not shown as invisible bytes. */
static void test_bom(void)
{
    const char *f = put("bom.jsonl", "\xef\xbb\xbf{\"text\": \"a\"}\n{\"text\": \"b\"}\n");
    struct gp_dataset_opts o = ts_opts();
    struct gp_dataset *ds = NULL;
    struct gp_error e = {0};
    CHECK_INT(build(f, &o, &ds, &e), 0);
    CHECK(ds && ds->n == 2 && strstr(ds->entries[0].payload, "\"content\":\"a\""));
    gp_dataset_free(ds);
    ds = NULL;
    /* the several-texts reader (--batch-size-text > 1) too */
    o.endpoint_type = GP_ENDPOINT_COMPLETIONS;
    o.batch_size_text = 2;
    o.num_entries = 1;
    CHECK_INT(build(f, &o, &ds, &e), 0);
    CHECK(ds && ds->n == 1);
    gp_dataset_free(ds);
    expect_err("bom2.jsonl", "{\"text\": \"a\"}\n\xef\xbb\xbf{\"text\": \"b\"}\n",
               "line 2: the line starts with a UTF-8 byte order mark (U+FEFF)");
    f = put("bom3.jsonl", "{\"text\": \"a\"}\n\xef\xbb\xbf{\"text\": \"b\"}\n");
    ds = NULL;
    CHECK(build(f, &o, &ds, &e) < 0);
    CHECK(strstr(e.msg, "bom3.jsonl' line 2: the line starts with a UTF-8 byte order mark (U+FEFF)") != NULL);
}

int main(void)
{
    if (!gp_test_mkdtemp(dir, sizeof dir, "gp-infile"))
        return 1;
    GP_RUN(test_rows);
    GP_RUN(test_errors);
    GP_RUN(test_file_deterministic_osl);
    GP_RUN(test_trace_payload_file);
    GP_RUN(test_bom);
    gp_test_rmtree(dir);
    return gp_test_summary();
}
