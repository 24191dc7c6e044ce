/* profile/profile_media.c — GenAI-Perf 0.0.16's image and audio input flags
 * (parser.py _add_audio_input_args/_add_image_input_args, config_input.py
 * ConfigAudio/ConfigImage): the list values, their bounds, the options the
 * dataset gets and the "audio"/"image" objects of input_config. The flag
 * rows are in profile_args.c; ownership in profile_config.h.
 */
#include "profile/profile_config.h"

#include "core/error.h"
#include "core/pytext.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int type_error(struct profile_config *cfg, struct gp_error *err, const char *flag, const char *type,
                      const char *s)
{
    cfg->usage_error = 1; /* argparse's type check: exit 2 */
    return gp_err(err, GP_EINVAL, "argument %s: invalid %s value: '%s'", flag, type, s);
}

int gp_profile_add_audio_depth(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    long v;
    if (gp_profile_parse_long(s, &v) < 0)
        return type_error(cfg, err, "--audio-depths", "int", s);
    long *na = realloc(cfg->audio_depths, (cfg->n_audio_depths + 1) * sizeof *na);
    if (!na)
        return gp_err(err, GP_ENOMEM, "out of memory");
    na[cfg->n_audio_depths++] = v;
    cfg->audio_depths = na;
    return 0;
}

int gp_profile_add_audio_rate(struct profile_config *cfg, const char *s, struct gp_error *err)
{
    double v;
    if (gp_profile_parse_double(s, &v) < 0)
        return type_error(cfg, err, "--audio-sample-rates", "float", s);
    double *na = realloc(cfg->audio_sample_rates, (cfg->n_audio_sample_rates + 1) * sizeof *na);
    if (!na)
        return gp_err(err, GP_ENOMEM, "out of memory");
    na[cfg->n_audio_sample_rates++] = v;
    cfg->audio_sample_rates = na;
    return 0;
}

/* ConfigField bounds {"min": 1} on every item (config_field.py
 * _check_item_bounds); a config error (exit 1). */
int gp_profile_copy_audio_lists(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    (void)rv;
    for (size_t i = 0; i < cfg->n_audio_depths; i++)
        if (cfg->audio_depths[i] < 1) {
            cfg->usage_error = 0;
            return gp_err(err, GP_EINVAL, "User Config: %ld exceeds lower bounds ({'lower': 1})", cfg->audio_depths[i]);
        }
    for (size_t i = 0; i < cfg->n_audio_sample_rates; i++)
        if (!(cfg->audio_sample_rates[i] >= 1)) {
            char r[64];
            gp_py_float_repr(cfg->audio_sample_rates[i], r, sizeof r);
            cfg->usage_error = 0;
            return gp_err(err, GP_EINVAL, "User Config: %s exceeds lower bounds ({'lower': 1})", r);
        }
    return 0;
}

/* GenAI-Perf keeps --grpc-method for the dynamic_grpc service kind only;
 * genperf speaks no gRPC, so only the default (empty) is accepted. */
int gp_profile_copy_grpc_method(struct profile_config *cfg, const struct gp_profile_raw *rv, struct gp_error *err)
{
    if (!rv->seen || !rv->s[0])
        return 0;
    cfg->usage_error = 0;
    return gp_err(err, GP_ENOTSUP,
                  "--grpc-method %s: gRPC methods belong to --endpoint-type dynamic_grpc, which genperf does not "
                  "speak (it speaks chat, completions, embeddings, rankings, multimodal/vision); drop --grpc-method",
                  rv->s);
}

void gp_profile_media_opts(const struct profile_config *cfg, struct gp_image_opts *img, struct gp_audio_opts *aud)
{
    memset(img, 0, sizeof *img);
    memset(aud, 0, sizeof *aud);
    img->width_mean = cfg->image_width_mean;
    img->width_stddev = cfg->image_width_stddev;
    img->height_mean = cfg->image_height_mean;
    img->height_stddev = cfg->image_height_stddev;
    img->format = cfg->image_jpeg ? GP_IMAGE_JPEG : GP_IMAGE_PNG;
    aud->length_mean = cfg->audio_length_mean;
    aud->length_stddev = cfg->audio_length_stddev;
    aud->format = cfg->audio_mp3 ? GP_AUDIO_MP3 : GP_AUDIO_WAV;
    aud->depths = cfg->audio_depths;
    aud->n_depths = cfg->n_audio_depths;
    aud->sample_rates_khz = cfg->audio_sample_rates;
    aud->n_sample_rates = cfg->n_audio_sample_rates;
    aud->num_channels = (int)cfg->audio_num_channels;
}

/* A value GenAI-Perf kept at its int default or replaced by the user's
 * float: json.dumps writes 0 and 2.5 (and 3.0) accordingly. */
static json_t *num(double v, int given)
{
    return given ? json_real(v) : json_integer((json_int_t)v);
}

json_t *gp_profile_audio_json(const struct profile_config *cfg)
{
    json_t *depths = json_array(), *rates = json_array();
    if (!depths || !rates) {
        json_decref(depths);
        json_decref(rates);
        return NULL;
    }
    if (cfg->n_audio_depths)
        for (size_t i = 0; i < cfg->n_audio_depths; i++)
            json_array_append_new(depths, json_integer(cfg->audio_depths[i]));
    else
        json_array_append_new(depths, json_integer(16));
    if (cfg->n_audio_sample_rates)
        for (size_t i = 0; i < cfg->n_audio_sample_rates; i++)
            json_array_append_new(rates, json_real(cfg->audio_sample_rates[i]));
    else
        json_array_append_new(rates, json_integer(16));
    return json_pack("{s:I, s:{s:o, s:o}, s:s, s:o, s:o, s:I}", "batch_size", (json_int_t)cfg->batch_size_audio,
                     "length", "mean", num(cfg->audio_length_mean, cfg->audio_length_mean != 0), "stddev",
                     num(cfg->audio_length_stddev, cfg->audio_length_stddev != 0), "format",
                     cfg->audio_mp3 ? "mp3" : "wav", "depths", depths, "sample_rates", rates, "num_channels",
                     (json_int_t)cfg->audio_num_channels);
}

json_t *gp_profile_image_json(const struct profile_config *cfg)
{
    return json_pack("{s:{s:I, s:I}, s:{s:I, s:I}, s:I, s:s}", "width", "mean", (json_int_t)cfg->image_width_mean,
                     "stddev", (json_int_t)cfg->image_width_stddev, "height", "mean",
                     (json_int_t)cfg->image_height_mean, "stddev", (json_int_t)cfg->image_height_stddev,
                     "batch_size", (json_int_t)cfg->batch_size_image, "format", cfg->image_jpeg ? "jpeg" : "png");
}
