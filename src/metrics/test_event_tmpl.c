/* metrics/test_event_tmpl.c — the event template (gp_event_parse_tmpl):
 * for every event, the same info and the same text as gp_event_parse, and
 * token chunks that repeat their neighbours' bytes are answered from it. */
#include "core/buf.h"
#include "core/test.h"
#include "metrics/sse.h"

#include <stdio.h>
#include <string.h>

struct pair {
    struct gp_buf c1, r1, e1; /* plain parse */
    struct gp_buf c2, r2, e2; /* with the template */
    struct gp_event_tmpl t;
};

static int same_info(const struct gp_event_info *a, const struct gp_event_info *b)
{
    return a->kind == b->kind && a->content_len == b->content_len && a->reasoning_len == b->reasoning_len &&
           a->has_usage == b->has_usage && a->prompt_tokens == b->prompt_tokens &&
           a->completion_tokens == b->completion_tokens && a->has_finish == b->has_finish &&
           a->n_choices == b->n_choices && a->error_code == b->error_code;
}

static int same_buf(const struct gp_buf *a, const struct gp_buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* Parses ev both ways; 1 when they agree on everything. */
static int both(struct pair *p, const char *ev)
{
    struct gp_event_info a, b;
    gp_event_parse(ev, strlen(ev), &p->c1, &p->r1, &p->e1, &a);
    gp_event_parse_tmpl(ev, strlen(ev), &p->c2, &p->r2, &p->e2, &p->t, &b);
    int ok = same_info(&a, &b) && same_buf(&p->c1, &p->c2) && same_buf(&p->r1, &p->r2) && same_buf(&p->e1, &p->e2);
    if (!ok)
        fprintf(stderr, "  differs on %s\n  plain: kind %d content %zu '%.*s'\n  tmpl:  kind %d content %zu '%.*s'\n",
                ev, a.kind, a.content_len, (int)p->c1.len, p->c1.data ? p->c1.data : "", b.kind, b.content_len,
                (int)p->c2.len, p->c2.data ? p->c2.data : "");
    return ok;
}

static void pair_free(struct pair *p)
{
    gp_buf_free(&p->c1), gp_buf_free(&p->r1), gp_buf_free(&p->e1);
    gp_buf_free(&p->c2), gp_buf_free(&p->r2), gp_buf_free(&p->e2);
    gp_event_tmpl_free(&p->t);
}

#define HEAD(id) "{\"id\":\"" id "\",\"object\":\"chat.completion.chunk\",\"created\":7,\"model\":\"m\",\"choices\":[{\"index\":0,"
#define TOK(id, text) HEAD(id) "\"delta\":{\"content\":\"" text "\"},\"logprobs\":null,\"finish_reason\":null}]}"

static void test_vllm_stream(void)
{
    struct pair p = {0};
    const char *ev[] = {
        HEAD("c1") "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}",
        TOK("c1", "Hello"),
        TOK("c1", " wor"),
        TOK("c1", "ld\\n"),
        TOK("c1", "\\\"q\\\""),
        TOK("c1", "\\u00e9\\ud83d\\ude00"),
        TOK("c1", ""),
        TOK("c1", "a\\\\b"),
        TOK("c1", "x\\\"},\\\"finish_reason\\\":\\\"stop\\\"}]}"),
        "  " TOK("c1", "blanks around") " \r\n",
        HEAD("c1") "\"delta\":{\"content\":\"end\"},\"logprobs\":null,\"finish_reason\":\"stop\"}]}",
        "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":7,\"model\":\"m\",\"choices\":[],"
        "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":9}}",
        "[DONE]",
        /* another request: a new id misses once, then its tokens hit */
        TOK("c2", "next"),
        TOK("c2", "one"),
        TOK("c2", "two"),
    };
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
        CHECK(both(&p, ev[i]));
    /* answered from the template: c1's tokens after "Hello" (8), c2's after "next" (2) */
    CHECK_INT((int)p.t.hits, 10);
    CHECK(strstr(p.c2.data, "Hello world\n\"q\"") != NULL);
    pair_free(&p);
}

/* Bytes that share the template's prefix and suffix but not its shape:
 * every one must fall back to the full parse and agree with it. */
static void test_lookalikes(void)
{
    struct pair p = {0};
    const char *ev[] = {
        TOK("c1", "seed"),
        TOK("c1", "warm"),
        /* more after the string, same tail */
        HEAD("c1") "\"delta\":{\"content\":\"abc\",\"reasoning_content\":\"think\"},\"logprobs\":null,"
                   "\"finish_reason\":null}]}",
        /* unescaped quotes: the string ends early, then another key */
        HEAD("c1") "\"delta\":{\"content\":\"abc\",\"x\":\"y\"},\"logprobs\":null,\"finish_reason\":null}]}",
        /* not a string where the string was */
        HEAD("c1") "\"delta\":{\"content\":null},\"logprobs\":null,\"finish_reason\":null}]}",
        HEAD("c1") "\"delta\":{\"content\":12},\"logprobs\":null,\"finish_reason\":null}]}",
        /* a bad escape inside the string */
        TOK("c1", "bad\\q"),
        /* cut short: the suffix is not all there */
        HEAD("c1") "\"delta\":{\"content\":\"cut\"},\"logprobs\":null,\"finish_reason\":null}",
        /* a second text field: text in the prefix would be read again */
        "{\"choices\":[{\"text\":\"one\",\"delta\":{\"content\":\"two\"}}]}",
        "{\"choices\":[{\"text\":\"one\",\"delta\":{\"content\":\"three\"}}]}",
        /* reasoning in the bytes around the content: never a template */
        "{\"choices\":[{\"delta\":{\"reasoning_content\":\"r\",\"content\":\"a\"}}]}",
        "{\"choices\":[{\"delta\":{\"reasoning_content\":\"r\",\"content\":\"b\"}}]}",
        /* an error object with the same head */
        "{\"error\":{\"message\":\"boom\",\"code\":500},\"choices\":[{\"delta\":{\"content\":\"a\"}}]}",
        "{\"error\":{\"message\":\"boom\",\"code\":500},\"choices\":[{\"delta\":{\"content\":\"b\"}}]}",
        TOK("c1", "after"),
        TOK("c1", "again"),
    };
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
        CHECK(both(&p, ev[i]));
    pair_free(&p);
}

/* A refusal is content too (issue 38 item 2): a run of refusal fragments
 * is answered from the template, and an event holding a refusal beside
 * content (either order, either one in the template's slot) is read in
 * full, never served with one of its strings left out. */
#define REF(id, text) HEAD(id) "\"delta\":{\"refusal\":\"" text "\"},\"logprobs\":null,\"finish_reason\":null}]}"
static void test_refusals(void)
{
    struct pair p = {0};
    const char *ev[] = {
        HEAD("r1") "\"delta\":{\"role\":\"assistant\",\"content\":null,\"refusal\":\"\"},\"logprobs\":null,"
                   "\"finish_reason\":null}]}",
        REF("r1", "I can"),
        REF("r1", "not"),
        REF("r1", " help."),
        /* the same tail after a refusal that is followed by content */
        HEAD("r1") "\"delta\":{\"refusal\":\"a\",\"content\":\"b\"},\"logprobs\":null,\"finish_reason\":null}]}",
        HEAD("r1") "\"delta\":{\"refusal\":\"c\",\"content\":\"d\"},\"logprobs\":null,\"finish_reason\":null}]}",
        TOK("r1", "text"),
        TOK("r1", "more"),
        /* content first, then a refusal: the template's prefix, more after the string */
        HEAD("r1") "\"delta\":{\"content\":\"e\",\"refusal\":\"f\"},\"logprobs\":null,\"finish_reason\":null}]}",
        /* a refusal where the template has content: another key, a full parse */
        REF("r1", "g"),
        /* tool-call arguments next to a refusal */
        HEAD("r1") "\"delta\":{\"refusal\":\"h\",\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"i\"}}]},"
                   "\"logprobs\":null,\"finish_reason\":null}]}",
        REF("r1", "j"),
    };
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
        CHECK(both(&p, ev[i]));
    CHECK(p.t.hits >= 3); /* "not", " help." and "more" at least */
    CHECK(strstr(p.c2.data, "I cannot help.abcdtextmoreefghij") != NULL);
    pair_free(&p);
}

/* No text kept (content NULL): the same kinds and counts either way. */
static void test_no_buffers(void)
{
    struct gp_event_tmpl t = {0};
    const char *ev[] = {TOK("c1", "a"), TOK("c1", "bb"), TOK("c1", "ccc")};
    for (size_t i = 0; i < 3; i++) {
        struct gp_event_info a, b;
        gp_event_parse(ev[i], strlen(ev[i]), NULL, NULL, NULL, &a);
        gp_event_parse_tmpl(ev[i], strlen(ev[i]), NULL, NULL, NULL, &t, &b);
        CHECK(same_info(&a, &b));
    }
    CHECK_INT((int)t.hits, 2);
    gp_event_tmpl_free(&t);
}

int main(void)
{
    GP_RUN(test_vllm_stream);
    GP_RUN(test_lookalikes);
    GP_RUN(test_refusals);
    GP_RUN(test_no_buffers);
    return gp_test_summary();
}
