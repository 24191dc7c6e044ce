/* metrics/test_jscan.c — the JSON scanner (jscan_int.h) on its own: string
 * escapes and surrogates, skipping nested values, object keys, numbers,
 * usage counts and objects, error values, arrays and finish values, and
 * truncated input that must set j->bad and never read past the end. */
#include "core/buf.h"
#include "core/test.h"
#include "metrics/jscan_int.h"
#include "metrics/sse.h"

#include <stdlib.h>
#include <string.h>

/* A cursor over a heap copy of exactly the bytes of s (no NUL after them),
 * so ASan catches any read past end. */
static struct gp_js js_of(const char *s, char **heap)
{
    size_t n = strlen(s);
    *heap = malloc(n ? n : 1);
    memcpy(*heap, s, n);
    return (struct gp_js){*heap, *heap + n, 0};
}

/* Decodes the one string value s into out; 1 when the scan is clean and
 * consumed everything. */
static int str_ok(const char *s, struct gp_buf *out)
{
    char *h;
    struct gp_js j = js_of(s, &h);
    gp_buf_reset(out);
    size_t n = gp_js_str(&j, out);
    int ok = !j.bad && j.p == j.end && n == out->len;
    free(h);
    return ok;
}

static void test_strings(void)
{
    struct gp_buf b = {0};
    CHECK(str_ok("\"plain\"", &b));
    CHECK_STR(b.data, "plain");
    CHECK(str_ok("  \"\"", &b)); /* blanks before a value are skipped */
    CHECK_INT((int)b.len, 0);
    CHECK(str_ok("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", &b));
    CHECK_STR(b.data, "a\"b\\c/d\b\f\n\r\t");
    CHECK(str_ok("\"\\u00e9\\u20AC\"", &b)); /* 2- and 3-byte UTF-8, either hex case */
    CHECK_STR(b.data, "\xc3\xa9\xe2\x82\xac");
    CHECK(str_ok("\"\\ud83d\\ude00\"", &b)); /* a surrogate pair: one 4-byte character */
    CHECK_STR(b.data, "\xf0\x9f\x98\x80");
    CHECK(str_ok("\"\\ud83dx\"", &b)); /* a lone high surrogate: U+FFFD, not a failure */
    CHECK_STR(b.data, "\xef\xbf\xbdx");
    CHECK(str_ok("\"\\ude00\"", &b)); /* a lone low one */
    CHECK_STR(b.data, "\xef\xbf\xbd");

    /* skipping (out NULL) finds the closing quote past escaped ones */
    char *h;
    struct gp_js j = js_of("\"a\\\"b\\\\\",1", &h);
    CHECK_INT((int)gp_js_str(&j, NULL), 0);
    CHECK(!j.bad);
    CHECK_INT(*j.p, ',');
    free(h);

    /* malformed: no opening quote, a bad escape, bad hex */
    const char *bad[] = {"x\"", "\"\\q\"", "\"\\u12g4\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(!str_ok(bad[i], &b));
    }
    gp_buf_free(&b);
}

static void test_skip_nested(void)
{
    /* brackets inside strings do not count; the cursor stops right after the value */
    char *h;
    struct gp_js j = js_of("{\"a\":[1,{\"b\":\"}]\\\"\"},[[]]],\"c\":{}} ,next", &h);
    gp_js_skip(&j);
    CHECK(!j.bad);
    CHECK_INT(gp_js_peek(&j), ',');
    free(h);

    const char *scalars[] = {"true,", "false}", "null]", "-12.5e3 ", "\"s\","};
    for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++) {
        j = js_of(scalars[i], &h);
        gp_js_skip(&j);
        CHECK(!j.bad);
        CHECK(j.p == j.end - 1); /* the delimiter is left for the caller */
        free(h);
    }

    /* deep nesting is skipped without recursion */
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    j = js_of(deep, &h);
    gp_js_skip(&j);
    CHECK(!j.bad);
    CHECK(j.p == j.end);
    free(h);
    free(deep);
}

static void test_objects(void)
{
    char *h;
    struct gp_js j = js_of(" { \"id\" : \"x\", \"n\":{\"k\":[1]}, \"a\\\"b\":2, \"c\\\\\":3 } ", &h);
    const char *k;
    size_t kl;
    int first = 1;
    CHECK_INT(gp_js_obj_next(&j, &first, &k, &kl), 1);
    CHECK(GP_JS_EQ(k, kl, "id"));
    CHECK_INT(gp_js_is_null(&j), 0);
    gp_js_skip(&j);
    CHECK_INT(gp_js_obj_next(&j, &first, &k, &kl), 1);
    CHECK(GP_JS_EQ(k, kl, "n"));
    gp_js_skip(&j);
    CHECK_INT(gp_js_obj_next(&j, &first, &k, &kl), 1);
    CHECK(GP_JS_EQ(k, kl, "a\\\"b")); /* a key's raw bytes, escapes not decoded */
    CHECK_INT(gp_js_num(&j), 2);
    CHECK_INT(gp_js_obj_next(&j, &first, &k, &kl), 1);
    CHECK(GP_JS_EQ(k, kl, "c\\\\")); /* an escaped backslash does not escape the quote after it */
    CHECK_INT(gp_js_num(&j), 3);
    CHECK_INT(gp_js_obj_next(&j, &first, &k, &kl), 0);
    CHECK(!j.bad);
    free(h);

    j = js_of("{}", &h);
    first = 1;
    CHECK_INT(gp_js_obj_next(&j, &first, &k, &kl), 0);
    free(h);

    /* a missing ':' or ',' and a non-object are malformed */
    const char *bad[] = {"{\"a\" 1}", "{\"a\":1 \"b\":2}", "[1]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        j = js_of(bad[i], &h);
        first = 1;
        int r;
        while ((r = gp_js_obj_next(&j, &first, &k, &kl)) == 1)
            gp_js_skip(&j);
        CHECK_INT(r, -1);
        CHECK(j.bad);
        free(h);
    }
}

static void test_numbers(void)
{
    char *h;
    struct {
        const char *in;
        long num, count;
        int bad_usage;
    } cases[] = {
        {"42", 42, 42, 0},
        {"-7", -7, -1, 1},          /* a negative count is no count */
        {"3.9", 3, -1, 1},          /* num keeps the integer part; a count is not rounded */
        {"1e3", 1, -1, 1},
        {"2147483647", 2147483647L, 2147483647L, 0},
        {"2147483648", 2147483648L, -1, 1}, /* past INT32_MAX */
        {"\"5\"", -1, -1, 1},       /* a string */
        {"null", -1, -1, 0},        /* null: absent, not bad */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct gp_js j = js_of(cases[i].in, &h);
        CHECK_INT(gp_js_num(&j), cases[i].num);
        CHECK(j.p == j.end);
        free(h);
        struct gp_event_info info = {0};
        j = js_of(cases[i].in, &h);
        CHECK_INT(gp_js_usage_count(&j, &info, GP_USAGE_COMPLETION), cases[i].count);
        CHECK_INT((int)info.bad_usage, cases[i].bad_usage ? GP_USAGE_COMPLETION : 0);
        CHECK(j.p == j.end);
        free(h);
    }

    /* an input/output usage object; other keys skipped, a bad count flagged */
    struct gp_event_info info = {0};
    info.prompt_tokens = info.completion_tokens = -1;
    struct gp_js j = js_of("{\"input_tokens\":9,\"cache\":{\"x\":1},\"output_tokens\":1.5}", &h);
    gp_js_usage_io(&j, &info);
    CHECK(!j.bad && j.p == j.end);
    CHECK_INT(info.has_usage, 1);
    CHECK_INT(info.prompt_tokens, 9);
    CHECK_INT(info.completion_tokens, -1);
    CHECK_INT((int)info.bad_usage, GP_USAGE_COMPLETION); /* the count that was bad, not the others */
    free(h);
    /* the Responses API's input_tokens_details.cached_tokens */
    memset(&info, 0, sizeof info);
    info.cached_tokens = -1;
    j = js_of("{\"input_tokens\":9,\"input_tokens_details\":{\"cached_tokens\":4},\"output_tokens\":2}", &h);
    gp_js_usage_io(&j, &info);
    CHECK(!j.bad && j.p == j.end);
    CHECK_INT(info.cached_tokens, 4);
    CHECK_INT(info.completion_tokens, 2);
    free(h);
    memset(&info, 0, sizeof info);
    j = js_of("null", &h);
    gp_js_usage_io(&j, &info);
    CHECK_INT(info.has_usage, 0);
    free(h);
}

static void test_text_and_error(void)
{
    struct gp_buf b = {0};
    char *h;
    struct gp_js j = js_of("null", &h);
    CHECK_INT((int)gp_js_text(&j, &b), 0);
    CHECK(!j.bad && j.p == j.end);
    free(h);
    j = js_of("[\"no\"]", &h);
    CHECK_INT((int)gp_js_text(&j, &b), 0); /* not a string: skipped, nothing kept */
    CHECK(!j.bad && j.p == j.end);
    CHECK_INT((int)b.len, 0);
    free(h);

    struct gp_event_info info = {0};
    j = js_of("{\"code\":429,\"type\":\"x\",\"message\":\"slow \\\"down\\\"\"}", &h);
    gp_js_error_value(&j, &b, &info);
    CHECK(!j.bad && j.p == j.end);
    CHECK_STR(b.data, "slow \"down\"");
    CHECK_INT(info.error_code, 429);
    free(h);
    /* a message is kept only when none is yet; a string code is no code */
    j = js_of("{\"message\":\"second\",\"code\":\"rate\"}", &h);
    gp_js_error_value(&j, &b, &info);
    CHECK_STR(b.data, "slow \"down\"");
    CHECK_INT(info.error_code, 0);
    free(h);
    gp_buf_reset(&b);
    j = js_of("\"flat text\"", &h);
    gp_js_error_value(&j, &b, &info);
    CHECK_STR(b.data, "flat text");
    free(h);

    /* gp_js_cut takes back what was appended, and accepts NULL */
    gp_js_cut(&b, 4);
    CHECK_STR(b.data, "flat");
    gp_js_cut(&b, 10);
    CHECK_STR(b.data, "flat");
    gp_js_cut(NULL, 0);
    gp_buf_free(&b);
}

/* gp_js_open, gp_js_arr_next, gp_js_finish: the container and finish shapes */
static void test_shapes(void)
{
    char *h;
    /* null is consumed and another value skipped (0); an opening is left for the iterator (1) */
    struct gp_js j = js_of("null,{\"a\":1},[ 1 , [2,3] ,\"]\" ], [], [1 2]", &h);
    CHECK_INT(gp_js_open(&j, '['), 0);
    CHECK(gp_js_eat(&j, ','));
    CHECK_INT(gp_js_open(&j, '['), 0);
    CHECK(!j.bad && gp_js_eat(&j, ','));
    CHECK_INT(gp_js_open(&j, '['), 1);
    int first = 1, n = 0, r;
    while ((r = gp_js_arr_next(&j, &first)) == 1) {
        gp_js_skip(&j);
        n++;
    }
    CHECK_INT(r, 0);
    CHECK_INT(n, 3);
    CHECK(gp_js_eat(&j, ','));
    first = 1;
    CHECK_INT(gp_js_arr_next(&j, &first), 0); /* [] */
    CHECK(gp_js_eat(&j, ','));
    first = 1;
    CHECK_INT(gp_js_arr_next(&j, &first), 1);
    gp_js_skip(&j);
    CHECK_INT(gp_js_arr_next(&j, &first), -1); /* no comma */
    CHECK(j.bad);
    free(h);

    int fin = 0;
    j = js_of("null", &h);
    gp_js_finish(&j, &fin);
    CHECK_INT(fin, 0);
    CHECK(j.p == j.end);
    free(h);
    j = js_of("\"stop\"", &h);
    gp_js_finish(&j, &fin);
    CHECK_INT(fin, 1);
    CHECK(!j.bad && j.p == j.end);
    free(h);
}

/* Every prefix of a valid event is cut somewhere: each is read to its end
 * (under ASan a read past it fails) and ends bad or unfinished, and what the
 * prefix decoded is never more than the whole event's text. */
static void test_truncated(void)
{
    const char *ev = "{\"choices\":[{\"delta\":{\"content\":\"h\\u00e9\\ud83d\\ude00\\n\"},\"x\":[1,{\"y\":null}]}],"
                     "\"usage\":{\"prompt_tokens\":12}}";
    size_t n = strlen(ev);
    size_t s0 = (size_t)(strstr(ev, "\"h") - ev), s1 = (size_t)(strstr(ev, "n\"}") - ev) + 2; /* the string */
    struct gp_buf b = {0};
    for (size_t cut = 0; cut < n; cut++) {
        char *h = malloc(cut ? cut : 1);
        memcpy(h, ev, cut);
        struct gp_js j = {h, h + cut, 0};
        gp_buf_reset(&b);
        gp_js_skip(&j);
        CHECK(j.bad);
        CHECK(j.p <= j.end);
        /* the string alone, cut: bad, and no byte past the cut decoded */
        if (cut > s0) {
            struct gp_js s = {h + s0, h + cut, 0};
            size_t got = gp_js_str(&s, &b);
            if (cut < s1) {
                CHECK(s.bad);
            } else {
                CHECK(!s.bad);
                CHECK_INT((int)got, 8);
            }
            CHECK(b.len <= 8);
        }
        free(h);
    }
    gp_buf_free(&b);
}

int main(void)
{
    GP_RUN(test_strings);
    GP_RUN(test_skip_nested);
    GP_RUN(test_objects);
    GP_RUN(test_numbers);
    GP_RUN(test_text_and_error);
    GP_RUN(test_shapes);
    GP_RUN(test_truncated);
    return gp_test_summary();
}
