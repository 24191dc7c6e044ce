/* Unit tests: a sampler's state packed on one host and unpacked on rank 0
 * (telemetry_hosts.c), and the several-hosts time series file. */
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/test.h"
#include "telemetry/telemetry.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A sampler with host samples and one status line (no NVML library). */
static struct gp_telemetry *open_local(void)
{
    struct gp_telemetry_opts o = {.interval_s = 0.05, .nvml_path = "/nonexistent/libnvidia-ml.so.1"};
    struct gp_telemetry *t = NULL;
    CHECK_INT(gp_telemetry_open(&o, &t, NULL), 0);
    if (t) {
        gp_telemetry_tick(t);
        gp_telemetry_tick(t);
    }
    return t;
}

/* Packs t as a remote rank would (in pieces of 7 samples), unpacks it. */
static struct gp_telemetry *roundtrip(const struct gp_telemetry *t, int64_t off)
{
    struct gp_buf b = {0};
    struct gp_telemetry *r = NULL;
    struct gp_error err = {0};
    CHECK_INT(gp_telemetry_pack_header(t, off, &b), 0);
    CHECK_INT(gp_telemetry_unpack_header(b.data, b.len, &r, &err), 0);
    /* a header cut short is refused, not read past its end */
    struct gp_telemetry *bad = NULL;
    CHECK(gp_telemetry_unpack_header(b.data, b.len - 1, &bad, &err) < 0 && bad == NULL);
    long k;
    size_t from = 0;
    while (r && (gp_buf_reset(&b), k = gp_telemetry_pack_samples(t, from, 7, off, &b)) > 0) {
        CHECK_INT(gp_telemetry_unpack_samples(r, b.data, b.len, &err), 0);
        from += (size_t)k;
    }
    CHECK_INT(from, gp_telemetry_nsamples(t));
    gp_buf_free(&b);
    return r;
}

static void test_roundtrip(void)
{
    struct gp_telemetry *t = open_local();
    if (!t)
        return;
    const int64_t off = -1000000;
    struct gp_telemetry *r = roundtrip(t, off);
    if (!r) {
        gp_telemetry_free(t);
        return;
    }
    CHECK_INT(gp_telemetry_nsamples(r), gp_telemetry_nsamples(t));
    const struct gp_telemetry_sample *a = gp_telemetry_samples(t), *b = gp_telemetry_samples(r);
    int same = 1;
    for (size_t i = 0; i < gp_telemetry_nsamples(t); i++)
        same &= b[i].t_ns == a[i].t_ns + (uint64_t)off && b[i].value == a[i].value && b[i].metric == a[i].metric &&
                b[i].device_kind == a[i].device_kind && b[i].device_index == a[i].device_index;
    CHECK(same);
    /* the wall clock is the sampler host's own: unchanged by the offset */
    CHECK_INT(gp_telemetry_wall_ns(r, b[0].t_ns), gp_telemetry_wall_ns(t, a[0].t_ns));
    json_t *s1 = gp_telemetry_summary_json(t), *s2 = gp_telemetry_summary_json(r);
    CHECK(json_equal(s1, s2));
    json_decref(s1);
    json_decref(s2);
    /* a sample with an unknown metric id is refused */
    struct gp_telemetry_sample junk = {.metric = 999};
    struct gp_error err = {0};
    CHECK(gp_telemetry_unpack_samples(r, &junk, sizeof junk, &err) < 0);
    CHECK(gp_telemetry_unpack_samples(r, &junk, sizeof junk - 1, &err) < 0);
    gp_telemetry_free(r);
    gp_telemetry_free(t);
}

/* 1 when the line's host key (right after wall_ns) reads exactly want. */
static int starts_at_host(const char *line, const char *want)
{
    const char *h = strstr(line, ",\"host\":"), *nl = strchr(line, '\n');
    return h && (!nl || h < nl) && strncmp(h, want, strlen(want)) == 0;
}

static void test_hosts_file(void)
{
    struct gp_telemetry *t = open_local();
    if (!t)
        return;
    struct gp_telemetry *r = roundtrip(t, 0);
    char dir[] = "/tmp/gp_tel_hostsXXXXXX", p1[64], p2[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(p1, sizeof p1, "%s/one.jsonl", dir);
    snprintf(p2, sizeof p2, "%s/two.jsonl", dir);
    struct gp_error err = {0};
    CHECK_INT(gp_telemetry_write_jsonl(t, p1, &err), 0);
    const struct gp_telemetry *both[2] = {t, r};
    const char *hosts[2] = {"node-a", "node-\"b\""};
    CHECK_INT(gp_telemetry_write_jsonl_hosts(both, hosts, 2, p2, &err), 0);
    char *one = NULL, *two = NULL;
    size_t n1 = 0, n2 = 0;
    CHECK_INT(gp_read_file(p1, &one, &n1, &err), 0);
    CHECK_INT(gp_read_file(p2, &two, &n2, &err), 0);
    /* the single-host file has no host key; every line of the other has one */
    CHECK(one && !strstr(one, "\"host\":\""));
    size_t lines = 0, a = 0, b = 0;
    for (char *l = two; l && *l; l = strchr(l, '\n') + 1, lines++) {
        a += starts_at_host(l, ",\"host\":\"node-a\",\"device\":");
        b += starts_at_host(l, ",\"host\":\"node-\\\"b\\\"\",\"device\":");
    }
    size_t per = gp_telemetry_nsamples(t) + 1; /* + the "gpu unavailable" line */
    CHECK_INT(a, per);
    CHECK_INT(b, per);
    CHECK_INT(lines, 2 * per);
    free(one);
    free(two);
    unlink(p1);
    unlink(p2);
    rmdir(dir);
    gp_telemetry_free(r);
    gp_telemetry_free(t);
}

int main(void)
{
    GP_RUN(test_roundtrip);
    GP_RUN(test_hosts_file);
    return gp_test_summary();
}
