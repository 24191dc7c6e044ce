/* Unit tests: media/ — synthetic PNG and JPEG decoded back with libpng and
 * libjpeg (sizes, colour type), data URLs, seeded determinism, GenAI-Perf's
 * size sampling; WAV headers and sample ranges; mp3 and bad flags refused. */
#include "core/base64.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/test.h"
#include "core/rng.h"
#include "media/audio.h"
#include "media/image.h"

#include <stdio.h>
#include <jpeglib.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>

/* Decodes a PNG with libpng's simplified API; returns 0 and the size. */
static int png_size(const void *p, size_t n, int *w, int *h, int *rgb)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, p, n))
        return -1;
    img.format = PNG_FORMAT_RGB;
    void *px = malloc(PNG_IMAGE_SIZE(img));
    int ok = px && png_image_finish_read(&img, NULL, px, 0, NULL);
    free(px);
    *w = (int)img.width;
    *h = (int)img.height;
    *rgb = 1;
    png_image_free(&img);
    return ok ? 0 : -1;
}

struct jfail {
    struct jpeg_error_mgr m;
    jmp_buf jb;
};
static void jfail_exit(j_common_ptr c) { longjmp(((struct jfail *)c->err)->jb, 1); }

/* Decodes a whole JPEG with libjpeg; returns 0 and the size. */
static int jpeg_size(const void *p, size_t n, int *w, int *h, int *comps)
{
    struct jpeg_decompress_struct d;
    struct jfail f;
    memset(&d, 0, sizeof d);
    d.err = jpeg_std_error(&f.m);
    f.m.error_exit = jfail_exit;
    if (setjmp(f.jb)) {
        jpeg_destroy_decompress(&d);
        return -1;
    }
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, p, (unsigned long)n);
    jpeg_read_header(&d, TRUE);
    jpeg_start_decompress(&d);
    *w = (int)d.output_width;
    *h = (int)d.output_height;
    *comps = d.output_components;
    JSAMPARRAY row = (*d.mem->alloc_sarray)((j_common_ptr)&d, JPOOL_IMAGE, d.output_width * 3, 1);
    while (d.output_scanline < d.output_height)
        jpeg_read_scanlines(&d, row, 1);
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    return 0;
}

static void test_png_jpeg_sizes(void)
{
    static const int sz[][2] = {{1, 1}, {2, 3}, {17, 9}, {64, 48}, {333, 1}, {1, 200}, {640, 480}};
    for (int f = 0; f < 2; f++)
        for (size_t k = 0; k < sizeof sz / sizeof sz[0]; k++) {
            struct gp_rng r;
            gp_rng_seed_stream(&r, 0, 9, k);
            struct gp_buf b = {0};
            struct gp_error e = {0};
            CHECK_INT(gp_image_encode((enum gp_image_format)f, sz[k][0], sz[k][1], &r, &b, &e), 0);
            int w = 0, h = 0, c = 0;
            if (f == GP_IMAGE_PNG) {
                CHECK(b.len > 8 && !memcmp(b.data, "\x89PNG\r\n\x1a\n", 8));
                CHECK_INT(png_size(b.data, b.len, &w, &h, &c), 0);
            } else {
                CHECK(b.len > 3 && !memcmp(b.data, "\xff\xd8\xff", 3));
                CHECK_INT(jpeg_size(b.data, b.len, &w, &h, &c), 0);
                CHECK_INT(c, 3);
            }
            CHECK_INT(w, sz[k][0]);
            CHECK_INT(h, sz[k][1]);
            gp_buf_free(&b);
        }
}

static void test_data_url_and_determinism(void)
{
    struct gp_image_opts o = {.width_mean = 100, .width_stddev = 30, .height_mean = 60, .height_stddev = 0,
                              .format = GP_IMAGE_JPEG};
    struct gp_buf a = {0}, b = {0}, raw = {0};
    struct gp_error e = {0};
    struct gp_rng r1, r2;
    gp_rng_seed_stream(&r1, 7, 9, 3);
    gp_rng_seed_stream(&r2, 7, 9, 3);
    int w = 0, h = 0, w2 = 0, h2 = 0;
    CHECK_INT(gp_image_data_url(&o, &r1, &a, &w, &h, &e), 0);
    CHECK_INT(gp_image_data_url(&o, &r2, &b, &w2, &h2, &e), 0);
    CHECK_INT(a.len, b.len);
    CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
    CHECK_INT(w, w2);
    CHECK_INT(h, 60);
    const char *pre = "data:image/jpeg;base64,";
    CHECK(!strncmp(a.data, pre, strlen(pre)));
    CHECK_INT(gp_base64_decode(&raw, a.data + strlen(pre), a.len - strlen(pre)), 0);
    int dw = 0, dh = 0, c = 0;
    CHECK_INT(jpeg_size(raw.data, raw.len, &dw, &dh, &c), 0);
    CHECK_INT(dw, w);
    CHECK_INT(dh, h);
    /* another stream, another image */
    struct gp_buf d = {0};
    gp_rng_seed_stream(&r1, 7, 9, 4);
    CHECK_INT(gp_image_data_url(&o, &r1, &d, NULL, NULL, &e), 0);
    CHECK(d.len != a.len || memcmp(d.data, a.data, a.len));
    o.format = GP_IMAGE_PNG;
    gp_buf_reset(&d);
    CHECK_INT(gp_image_data_url(&o, &r1, &d, NULL, NULL, &e), 0);
    CHECK(!strncmp(d.data, "data:image/png;base64,iVBORw0KGgo", 33));
    gp_buf_free(&a);
    gp_buf_free(&b);
    gp_buf_free(&d);
    gp_buf_free(&raw);
}

/* int(abs(gauss(mean, sd))), 0 -> 1: stddev 0 is exact; a wide spread
 * folds negatives to positive and never gives 0. */
static void test_side_sampling(void)
{
    struct gp_rng r;
    gp_rng_seed_stream(&r, 1, 9, 0);
    CHECK_INT(gp_image_side(&r, 512, 0), 512);
    double sum = 0;
    int minv = 1 << 30;
    for (int i = 0; i < 4000; i++) {
        int s = gp_image_side(&r, 300, 50);
        sum += s;
        if (s < minv)
            minv = s;
    }
    CHECK_NEAR(sum / 4000, 300, 5);
    for (int i = 0; i < 2000; i++) {
        int s = gp_image_side(&r, 1, 100);
        if (s < minv)
            minv = s;
    }
    CHECK_INT(minv, 1);
    CHECK_INT(gp_image_side(&r, 0, 0), 1);
    CHECK_INT(gp_image_side(&r, 1000000, 0), GP_IMAGE_MAX_SIDE);
    struct gp_image_opts bad = {.width_mean = -1, .height_mean = 5};
    struct gp_error e = {0};
    CHECK(gp_image_check(&bad, &e) < 0);
    bad.width_mean = GP_IMAGE_MAX_SIDE + 1;
    CHECK(gp_image_check(&bad, &e) < 0);
    CHECK(strstr(e.msg, "--image-width-mean") != NULL);
}

static uint32_t le(const unsigned char *p, int n)
{
    uint32_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void test_wav_headers(void)
{
    static const long depths[] = {8, 16, 24, 32};
    static const double rates[] = {8, 16, 44.1};
    for (int ch = 1; ch <= 2; ch++)
        for (int di = 0; di < 4; di++)
            for (int ri = 0; ri < 3; ri++) {
                struct gp_audio_opts o = {.length_mean = 0.25, .depths = &depths[di], .n_depths = 1,
                                          .sample_rates_khz = &rates[ri], .n_sample_rates = 1, .num_channels = ch};
                struct gp_rng r;
                gp_rng_seed_stream(&r, 0, 10, (uint64_t)(ch * 100 + di * 10 + ri));
                struct gp_buf b = {0};
                struct gp_audio_info in;
                struct gp_error e = {0};
                CHECK_INT(gp_audio_wav(&o, &r, &b, &in, &e), 0);
                const unsigned char *h = (const unsigned char *)b.data;
                uint32_t rate = (uint32_t)(rates[ri] * 1000);
                uint32_t frames = (uint32_t)(0.25 * rate);
                uint32_t bps = (uint32_t)depths[di] / 8, data = frames * (uint32_t)ch * bps;
                CHECK(!memcmp(h, "RIFF", 4) && !memcmp(h + 8, "WAVEfmt ", 8) && !memcmp(h + 36, "data", 4));
                CHECK_INT(le(h + 4, 4), 36 + data);
                CHECK_INT(le(h + 16, 4), 16);
                CHECK_INT(le(h + 20, 2), 1);
                CHECK_INT(le(h + 22, 2), ch);
                CHECK_INT(le(h + 24, 4), rate);
                CHECK_INT(le(h + 28, 4), rate * (uint32_t)ch * bps);
                CHECK_INT(le(h + 32, 2), (uint32_t)ch * bps);
                CHECK_INT(le(h + 34, 2), depths[di]);
                CHECK_INT(le(h + 40, 4), data);
                CHECK_INT(b.len, 44 + data);
                CHECK_INT(in.frames, frames);
                CHECK_INT(in.sample_rate, rate);
                /* noise with sd 0.3 of full scale: not silent, within range */
                if (depths[di] == 16) {
                    double ss = 0;
                    for (uint32_t i = 0; i < frames * (uint32_t)ch; i++) {
                        int16_t s = (int16_t)le(h + 44 + 2 * i, 2);
                        ss += (double)s * s;
                    }
                    double rms = sqrt(ss / (frames * ch)) / 32767.0;
                    CHECK_NEAR(rms, 0.3, 0.03);
                }
                gp_buf_free(&b);
            }
}

static void test_audio_draws_and_refusals(void)
{
    static const long depths[] = {16, 24};
    static const double rates[] = {16, 22.05, 48};
    struct gp_audio_opts o = {.length_mean = 0.5, .length_stddev = 0.4, .depths = depths, .n_depths = 2,
                              .sample_rates_khz = rates, .n_sample_rates = 3, .num_channels = 2};
    int seen_rate[3] = {0}, seen_depth[2] = {0};
    for (int i = 0; i < 60; i++) {
        struct gp_rng r;
        gp_rng_seed_stream(&r, 3, 10, (uint64_t)i);
        struct gp_buf b = {0};
        struct gp_audio_info in;
        struct gp_error e = {0};
        CHECK_INT(gp_audio_base64(&o, &r, &b, &in, &e), 0);
        CHECK(in.seconds >= 0.1);
        CHECK_INT(in.frames, (size_t)(in.seconds * in.sample_rate));
        seen_rate[in.sample_rate == 16000 ? 0 : in.sample_rate == 22050 ? 1 : 2]++;
        seen_depth[in.depth == 16 ? 0 : 1]++;
        CHECK(!strncmp(b.data, "UklGR", 5)); /* base64 of "RIFF" */
        gp_buf_free(&b);
    }
    CHECK(seen_rate[0] && seen_rate[1] && seen_rate[2] && seen_depth[0] && seen_depth[1]);
    struct gp_error e = {0};
    struct gp_audio_opts m = {.length_mean = 1, .format = GP_AUDIO_MP3};
    CHECK_INT(gp_audio_check(&m, &e), -GP_ENOTSUP);
    CHECK(strstr(e.msg, "mp3") && strstr(e.msg, "--audio-format wav"));
    m.length_mean = 0; /* no audio asked: nothing to refuse */
    CHECK_INT(gp_audio_check(&m, &e), 0);
    struct gp_audio_opts c = {.length_mean = 1, .num_channels = 3};
    CHECK(gp_audio_check(&c, &e) < 0);
    static const long bad_depth[] = {12};
    struct gp_audio_opts d = {.length_mean = 1, .depths = bad_depth, .n_depths = 1};
    CHECK(gp_audio_check(&d, &e) < 0);
    CHECK(strstr(e.msg, "--audio-depths 12") != NULL);
    struct gp_audio_opts s = {.length_mean = 0.05};
    CHECK(gp_audio_check(&s, &e) < 0);
    struct gp_audio_opts big = {.length_mean = 100000};
    CHECK(gp_audio_check(&big, &e) < 0);
}

int main(void)
{
    GP_RUN(test_png_jpeg_sizes);
    GP_RUN(test_data_url_and_determinism);
    GP_RUN(test_side_sampling);
    GP_RUN(test_wav_headers);
    GP_RUN(test_audio_draws_and_refusals);
    return gp_test_summary();
}
