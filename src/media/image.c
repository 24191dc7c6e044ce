/* media/image.c — seeded synthetic images, PNG via libpng and JPEG via
 * libjpeg-turbo, as base64 data URLs (see image.h). Both encoders take one
 * row at a time, so memory is O(width) whatever the size. */
#include "media/image.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/rng.h"

#include <stdio.h> /* before jpeglib.h, which uses FILE */
#include <jpeglib.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* The colour field: a GRID x GRID lattice of random colours, bilinearly
 * interpolated, plus +-NOISE per channel. A smooth field compresses like a
 * photo would (pure noise would make every image its worst case). */
#define GRID 4
#define NOISE 8

struct painter {
    int w, h;
    unsigned char lattice[GRID][GRID][3];
    struct gp_rng *r;
};

static void painter_init(struct painter *p, int w, int h, struct gp_rng *r)
{
    p->w = w;
    p->h = h;
    p->r = r;
    for (int i = 0; i < GRID; i++)
        for (int j = 0; j < GRID; j++) {
            uint64_t v = gp_rng_next(r);
            for (int c = 0; c < 3; c++)
                p->lattice[i][j][c] = (unsigned char)(v >> (8 * c));
        }
}

/* Integer arithmetic only, so the pixels do not depend on the FPU. */
static void painter_row(const struct painter *p, int y, unsigned char *row)
{
    int64_t fy = p->h > 1 ? (int64_t)y * (GRID - 1) * 1024 / (p->h - 1) : 0;
    int gy = (int)(fy >> 10), ty = (int)(fy & 1023);
    if (gy >= GRID - 1)
        gy = GRID - 2, ty = 1024;
    uint64_t bits = 0;
    int left = 0;
    for (int x = 0; x < p->w; x++) {
        int64_t fx = p->w > 1 ? (int64_t)x * (GRID - 1) * 1024 / (p->w - 1) : 0;
        int gx = (int)(fx >> 10), tx = (int)(fx & 1023);
        if (gx >= GRID - 1)
            gx = GRID - 2, tx = 1024;
        for (int c = 0; c < 3; c++) {
            int a = p->lattice[gy][gx][c], b = p->lattice[gy][gx + 1][c];
            int d = p->lattice[gy + 1][gx][c], e = p->lattice[gy + 1][gx + 1][c];
            int top = a * (1024 - tx) + b * tx, bot = d * (1024 - tx) + e * tx;
            int v = (int)(((int64_t)top * (1024 - ty) + (int64_t)bot * ty) >> 20);
            if (left == 0) {
                bits = gp_rng_next(p->r);
                left = 8;
            }
            v += (int)(bits & 0xff) % (2 * NOISE + 1) - NOISE;
            bits >>= 8;
            left--;
            row[3 * x + c] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}

int gp_image_enabled(const struct gp_image_opts *o) { return o->width_mean > 0 && o->height_mean > 0; }

const char *gp_image_format_name(enum gp_image_format f) { return f == GP_IMAGE_JPEG ? "jpeg" : "png"; }

int gp_image_check(const struct gp_image_opts *o, struct gp_error *err)
{
    if (o->width_mean < 0 || o->height_mean < 0 || o->width_stddev < 0 || o->height_stddev < 0)
        return gp_err(err, GP_EINVAL, "--image-width/height-mean and -stddev must be >= 0");
    if (o->width_mean > GP_IMAGE_MAX_SIDE || o->height_mean > GP_IMAGE_MAX_SIDE)
        return gp_err(err, GP_EINVAL, "--image-width-mean %ld / --image-height-mean %ld: at most %d pixels",
                      o->width_mean, o->height_mean, GP_IMAGE_MAX_SIDE);
    if (o->format != GP_IMAGE_PNG && o->format != GP_IMAGE_JPEG)
        return gp_err(err, GP_EINVAL, "--image-format must be png or jpeg");
    return 0;
}

int gp_image_side(struct gp_rng *r, long mean, long stddev)
{
    double v = (double)mean;
    if (stddev > 0)
        v += (double)stddev * gp_rng_normal(r);
    v = fabs(v);
    if (v > GP_IMAGE_MAX_SIDE)
        return GP_IMAGE_MAX_SIDE;
    int n = (int)v; /* Python's int(): truncation */
    return n ? n : 1;
}

/* ---- PNG ---------------------------------------------------------------- */

struct png_sink {
    struct gp_buf *out;
    int oom;
};

static void png_write_cb(png_structp png, png_bytep data, png_size_t n)
{
    struct png_sink *s = png_get_io_ptr(png);
    if (gp_buf_append(s->out, data, n)) {
        s->oom = 1;
        png_error(png, "out of memory");
    }
}

static void png_flush_cb(png_structp png) { (void)png; }

static int encode_png(struct painter *p, unsigned char *row, struct gp_buf *out, struct gp_error *err)
{
    struct png_sink sink = {out, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return gp_err(err, GP_ENOMEM, "out of memory starting the PNG encoder");
    }
    /* libpng reports errors by longjmp; nothing allocated below needs freeing
     * other than the libpng structs. */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return gp_err(err, sink.oom ? GP_ENOMEM : GP_EIO, "PNG encoding of a %dx%d image failed", p->w, p->h);
    }
    png_set_write_fn(png, &sink, png_write_cb, png_flush_cb);
    png_set_compression_level(png, 6);
    png_set_IHDR(png, info, (png_uint_32)p->w, (png_uint_32)p->h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < p->h; y++) {
        painter_row(p, y, row);
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

/* ---- JPEG --------------------------------------------------------------- */

struct jpeg_fail {
    struct jpeg_error_mgr mgr;
    jmp_buf jb;
};

static void jpeg_fail_exit(j_common_ptr cinfo)
{
    struct jpeg_fail *f = (struct jpeg_fail *)cinfo->err;
    longjmp(f->jb, 1);
}

static int encode_jpeg(struct painter *p, unsigned char *row, struct gp_buf *out, struct gp_error *err)
{
    struct jpeg_compress_struct c;
    struct jpeg_fail fail;
    /* jpeg_mem_dest stores its malloc'd buffer in m (we free it, also after
     * a longjmp: m's address is taken, so it lives in memory, not a register). */
    unsigned char *m = NULL;
    unsigned long memlen = 0;
    memset(&c, 0, sizeof c);
    c.err = jpeg_std_error(&fail.mgr);
    fail.mgr.error_exit = jpeg_fail_exit;
    if (setjmp(fail.jb)) {
        jpeg_destroy_compress(&c);
        free(m);
        return gp_err(err, GP_EIO, "JPEG encoding of a %dx%d image failed", p->w, p->h);
    }
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &m, &memlen);
    c.image_width = (JDIMENSION)p->w;
    c.image_height = (JDIMENSION)p->h;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 75, TRUE);
    jpeg_start_compress(&c, TRUE);
    for (int y = 0; y < p->h; y++) {
        painter_row(p, y, row);
        JSAMPROW rp = row;
        jpeg_write_scanlines(&c, &rp, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    int rc = gp_buf_append(out, m, memlen) ? gp_err(err, GP_ENOMEM, "out of memory for a %dx%d JPEG", p->w, p->h) : 0;
    free(m);
    return rc;
}

int gp_image_encode(enum gp_image_format f, int w, int h, struct gp_rng *r, struct gp_buf *out,
                    struct gp_error *err)
{
    if (w < 1 || h < 1 || w > GP_IMAGE_MAX_SIDE || h > GP_IMAGE_MAX_SIDE)
        return gp_err(err, GP_EINVAL, "image size %dx%d: each side must be 1..%d", w, h, GP_IMAGE_MAX_SIDE);
    struct painter p;
    painter_init(&p, w, h, r);
    unsigned char *row = malloc((size_t)w * 3);
    if (!row)
        return gp_err(err, GP_ENOMEM, "out of memory for a %dx%d image", w, h);
    int rc = f == GP_IMAGE_JPEG ? encode_jpeg(&p, row, out, err) : encode_png(&p, row, out, err);
    free(row);
    return rc;
}

int gp_image_data_url(const struct gp_image_opts *o, struct gp_rng *r, struct gp_buf *url, int *w, int *h,
                      struct gp_error *err)
{
    int iw = gp_image_side(r, o->width_mean, o->width_stddev);
    int ih = gp_image_side(r, o->height_mean, o->height_stddev);
    struct gp_buf file = {0};
    int rc = gp_image_encode(o->format, iw, ih, r, &file, err);
    if (!rc && (gp_buf_printf(url, "data:image/%s;base64,", gp_image_format_name(o->format)) ||
                gp_base64_encode(url, file.data, file.len)))
        rc = gp_err(err, GP_ENOMEM, "out of memory for a %dx%d image data URL", iw, ih);
    gp_buf_free(&file);
    if (w)
        *w = iw;
    if (h)
        *h = ih;
    return rc;
}
