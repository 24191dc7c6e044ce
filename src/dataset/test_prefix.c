/* Unit tests: prefix-cache workloads with the builtin tokenizer (one token
 * per byte, so the shares are visible as byte ranges) —
 * --shared-prefix-ratio with its global and session pools, --cache-bust,
 * both together; exact ISL and seeded determinism for each. */
#include "core/test.h"
#include "dataset/test_support.h"

/* Builds o twice (byte-identical), checks every ISL is isl exactly, and
 * returns the contents (caller frees each and the array). */
static char **build(struct gp_tokenizer *tok, const struct gp_dataset_opts *o, long isl)
{
    struct gp_error e = {0};
    struct gp_dataset *d1 = NULL, *d2 = NULL;
    CHECK_INT(gp_dataset_build(o, tok, &d1, &e), 0);
    if (!d1)
        fprintf(stderr, "build: %s\n", e.msg);
    CHECK_INT(gp_dataset_build(o, tok, &d2, &e), 0);
    if (!d1 || !d2)
        return NULL;
    char **c = calloc(d1->n, sizeof *c);
    for (size_t i = 0; i < d1->n; i++) {
        CHECK_STR(d1->entries[i].payload, d2->entries[i].payload);
        c[i] = ts_content(d1->entries[i].payload);
        CHECK_INT(d1->entries[i].isl, isl);
        CHECK_INT(ts_encode_count(tok, c[i]), isl);
    }
    gp_dataset_free(d1);
    gp_dataset_free(d2);
    return c;
}

static void free_all(char **c, size_t n)
{
    for (size_t i = 0; c && i < n; i++)
        free(c[i]);
    free(c);
}

/* ratio 0.5 of ISL 64: the first 32 tokens are one prefix for all (global) */
static void test_shared_global(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.num_entries = 20;
    o.isl_mean = 64;
    o.shared_prefix_ratio = 0.5;
    char **c = build(tok, &o, 64);
    for (size_t i = 0; c && i < 20; i++) {
        CHECK(c[i][32] == ' ');
        CHECK(!strncmp(c[i], c[0], 32));
        if (i)
            CHECK(strcmp(c[i] + 33, c[0] + 33) != 0); /* the rest is the prompt's own */
    }
    free_all(c, 20);
    /* a ratio of 1 still leaves two tokens of their own (the space and a letter here) */
    o.shared_prefix_ratio = 1;
    c = build(tok, &o, 64);
    for (size_t i = 0; c && i < 20; i++)
        CHECK(!strncmp(c[i], c[0], 62) && c[i][62] == ' ');
    free_all(c, 20);
    gp_tokenizer_free(tok);
}

/* session pool: entries of one group share their prefix, groups differ */
static void test_shared_session(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    static const uint32_t groups[8] = {0, 0, 0, 1, 1, 2, 2, 2};
    o.num_entries = 8;
    o.isl_mean = 40;
    o.shared_prefix_ratio = 0.25;
    o.prefix_group = groups;
    o.n_prefix_groups = 3;
    char **c = build(tok, &o, 40);
    for (size_t i = 0; c && i < 8; i++)
        for (size_t j = 0; j < 8; j++)
            CHECK_INT(!strncmp(c[i], c[j], 10), groups[i] == groups[j]);
    free_all(c, 8);
    gp_tokenizer_free(tok);
}

/* cache-bust: a unique salt first, ISL still exact; with a shared prefix the
 * salt follows the prefix, which stays shared (issue 40 item 4) */
static void test_cache_bust(void)
{
    struct gp_tokenizer *tok = ts_builtin();
    struct gp_dataset_opts o = ts_opts();
    o.num_entries = 20;
    o.isl_mean = 64;
    o.cache_bust = 1;
    char **c = build(tok, &o, 64);
    for (size_t i = 0; c && i < 20; i++) {
        CHECK(c[i][4] == ' ');
        for (size_t j = 0; j < i; j++)
            CHECK(strncmp(c[i], c[j], 4) != 0);
    }
    free_all(c, 20);
    o.shared_prefix_ratio = 0.5;
    c = build(tok, &o, 64);
    for (size_t i = 0; c && i < 20; i++) {
        CHECK(c[i][32] == ' ' && c[i][37] == ' ');
        CHECK(!strncmp(c[i], c[0], 33)); /* the prefix and its space are shared */
        if (i)
            CHECK(strncmp(c[i] + 33, c[0] + 33, 4) != 0); /* the salt is not */
    }
    free_all(c, 20);
    gp_tokenizer_free(tok);
}

int main(void)
{
    GP_RUN(test_shared_global);
    GP_RUN(test_shared_session);
    GP_RUN(test_cache_bust);
    return gp_test_summary();
}
