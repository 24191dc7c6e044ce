/* media/image.h — seeded synthetic images for multimodal requests, encoded
 * as PNG (libpng) or JPEG (libjpeg-turbo) and wrapped in base64 data URLs.
 *
 * Owns nothing across calls: every function appends to a caller's struct
 * gp_buf, which the caller frees. GenAI-Perf 0.0.16 resizes one of four
 * bundled photos to a sampled size; genperf paints a seeded smooth colour
 * field with light noise instead (no bundled photos), so the bytes differ
 * from GenAI-Perf's but the sizes, formats and data URL shape are its:
 *   width  = int(abs(gauss(width_mean, width_stddev))), 0 -> 1 (same for height)
 *   url    = "data:image/png;base64,..." or "data:image/jpeg;base64,..."
 * PNG is written at zlib level 6 and JPEG at quality 75, PIL's defaults.
 * Every pixel comes from the gp_rng the caller passes, so the same stream
 * gives the same bytes on every machine.
 */
#ifndef GP_MEDIA_IMAGE_H
#define GP_MEDIA_IMAGE_H

#include <stdint.h>

struct gp_buf;
struct gp_error;
struct gp_rng;

enum gp_image_format { GP_IMAGE_PNG = 0, GP_IMAGE_JPEG = 1 };

/* Largest side genperf draws (JPEG's limit is 65500; this bounds memory). */
#define GP_IMAGE_MAX_SIDE 16384

struct gp_image_opts {
    long width_mean;    /* --image-width-mean; images only when both means > 0 */
    long width_stddev;  /* --image-width-stddev */
    long height_mean;   /* --image-height-mean */
    long height_stddev; /* --image-height-stddev */
    enum gp_image_format format; /* --image-format (GenAI-Perf's default: png) */
};

/* Whether opts ask for images (GenAI-Perf: both means > 0). */
int gp_image_enabled(const struct gp_image_opts *o);
/* Rejects negative values and means over GP_IMAGE_MAX_SIDE. */
int gp_image_check(const struct gp_image_opts *o, struct gp_error *err);
/* One side as GenAI-Perf samples it, clamped to GP_IMAGE_MAX_SIDE. */
int gp_image_side(struct gp_rng *r, long mean, long stddev);
/* "png" / "jpeg", as in the data URL's media type. */
const char *gp_image_format_name(enum gp_image_format f);

/* Appends the encoded file of a seeded w x h RGB image to out. */
int gp_image_encode(enum gp_image_format f, int w, int h, struct gp_rng *r, struct gp_buf *out,
                    struct gp_error *err);
/* Samples width and height from opts, paints, encodes and appends the data
 * URL to url; *w and *h (may be NULL) receive the size drawn. */
int gp_image_data_url(const struct gp_image_opts *o, struct gp_rng *r, struct gp_buf *url, int *w, int *h,
                      struct gp_error *err);

#endif
