/* client/test_record.c — the record store: chunk offsets rebased into the
 * shared byte arena, error text placement, growth across many appends. */
#include "client/record.h"
#include "core/test.h"

static void test_append_and_read_back(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    struct gp_record r = {.t_start_ns = 10, .t_end_ns = 50, .entry = 3, .http_status = 200};
    struct gp_chunk c[2] = {{.t_ns = 20, .off = 0, .len = 5}, {.t_ns = 30, .off = 5, .len = 3}};
    CHECK_INT(gp_record_append(&st, &r, c, 2, "helloabc", 8, NULL, 0), 0);
    r.http_status = 500;
    r.flags = GP_REC_FAILED;
    struct gp_chunk c2 = {.t_ns = 60, .off = 0, .len = 4};
    CHECK_INT(gp_record_append(&st, &r, &c2, 1, "oops", 4, "HTTP 500", 8), 1);
    CHECK_INT(st.n, 2);
    CHECK_INT(st.nchunks, 3);
    const struct gp_record *a = &st.recs[0], *b = &st.recs[1];
    CHECK_INT(a->n_chunks, 2);
    CHECK_INT(a->err_len, 0);
    CHECK(!memcmp(gp_record_bytes(&st, gp_record_chunk(&st, a, 1)), "abc", 3));
    CHECK_INT(gp_record_chunk(&st, a, 1)->t_ns, 30);
    CHECK_INT(b->chunk_first, 2);
    CHECK(!memcmp(gp_record_bytes(&st, gp_record_chunk(&st, b, 0)), "oops", 4));
    CHECK(!memcmp(st.bytes.data + b->err_off, "HTTP 500", 8));
    CHECK_INT(b->err_len, 8);
    gp_record_store_free(&st);
}

static void test_many(void)
{
    struct gp_record_store st;
    gp_record_store_init(&st);
    st.mono0_ns = 1000;
    st.wall0_ns = 5000;
    for (int i = 0; i < 5000; i++) {
        struct gp_record r = {.t_start_ns = (uint64_t)i, .entry = (uint32_t)i};
        struct gp_chunk c = {.t_ns = (uint64_t)i + 1, .off = 0, .len = 1};
        char ch = (char)('a' + i % 26);
        CHECK(gp_record_append(&st, &r, &c, 1, &ch, 1, NULL, 0) == i);
    }
    CHECK_INT(st.n, 5000);
    CHECK_INT(*gp_record_bytes(&st, gp_record_chunk(&st, &st.recs[4999], 0)), 'a' + 4999 % 26);
    CHECK_INT(gp_record_wall_ns(&st, 1500), 5500);
    gp_record_store_free(&st);
    CHECK_INT(st.n, 0);
}

int main(void)
{
    GP_RUN(test_append_and_read_back);
    GP_RUN(test_many);
    return gp_test_summary();
}
