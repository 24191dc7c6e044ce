/* media/audio.c — seeded synthetic WAV clips (see audio.h). */
#include "media/audio.h"
#include "core/base64.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/rng.h"

#include <math.h>
#include <string.h>

#define MIN_SECONDS 0.1

static const long default_depths[] = {16};
static const double default_rates[] = {16};

int gp_audio_enabled(const struct gp_audio_opts *o) { return o->length_mean > 0; }

const char *gp_audio_format_name(enum gp_audio_format f) { return f == GP_AUDIO_MP3 ? "mp3" : "wav"; }

static void lists(const struct gp_audio_opts *o, const long **d, size_t *nd, const double **r, size_t *nr)
{
    *d = o->n_depths ? o->depths : default_depths;
    *nd = o->n_depths ? o->n_depths : 1;
    *r = o->n_sample_rates ? o->sample_rates_khz : default_rates;
    *nr = o->n_sample_rates ? o->n_sample_rates : 1;
}

int gp_audio_check(const struct gp_audio_opts *o, struct gp_error *err)
{
    int ch = o->num_channels ? o->num_channels : 1;
    if (ch != 1 && ch != 2)
        return gp_err(err, GP_EINVAL, "--audio-num-channels %d: only mono (1) and stereo (2) channels are supported",
                      o->num_channels);
    if (o->format != GP_AUDIO_WAV && o->format != GP_AUDIO_MP3)
        return gp_err(err, GP_EINVAL, "--audio-format must be wav or mp3");
    if (!gp_audio_enabled(o))
        return 0; /* GenAI-Perf validates the rest only when it makes a clip */
    if (o->format == GP_AUDIO_MP3)
        return gp_err(err, GP_ENOTSUP,
                      "--audio-format mp3: genperf has no MP3 encoder (none is among its Debian dependencies); "
                      "use --audio-format wav");
    if (o->length_mean < MIN_SECONDS)
        return gp_err(err, GP_EINVAL, "--audio-length-mean %g: the mean length must be at least 0.1 seconds",
                      o->length_mean);
    if (o->length_stddev < 0)
        return gp_err(err, GP_EINVAL, "--audio-length-stddev must be >= 0");
    const long *d;
    const double *r;
    size_t nd, nr;
    lists(o, &d, &nd, &r, &nr);
    long maxd = 0;
    for (size_t i = 0; i < nd; i++) {
        if (d[i] != 8 && d[i] != 16 && d[i] != 24 && d[i] != 32)
            return gp_err(err, GP_EINVAL, "--audio-depths %ld: supported bit depths are 8, 16, 24, 32", d[i]);
        if (d[i] > maxd)
            maxd = d[i];
    }
    double maxr = 0;
    for (size_t i = 0; i < nr; i++) {
        if (!(r[i] * 1000 >= 1) || r[i] > 1000)
            return gp_err(err, GP_EINVAL, "--audio-sample-rates %g: a rate in kHz between 0.001 and 1000", r[i]);
        if (r[i] > maxr)
            maxr = r[i];
    }
    /* The mean clip must fit; a long draw past the limit fails at build. */
    double bytes = o->length_mean * maxr * 1000 * ch * (double)(maxd / 8);
    if (bytes > GP_AUDIO_MAX_BYTES)
        return gp_err(err, GP_EINVAL, "--audio-length-mean %g s: a clip of %.0f MB is over genperf's %u MB limit",
                      o->length_mean, bytes / 1e6, GP_AUDIO_MAX_BYTES >> 20);
    return 0;
}

static void put_le(unsigned char *p, uint32_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* One sample: N(0, 0.3) clipped to [-1, 1], scaled, truncated (numpy's
 * astype). */
static int32_t sample(struct gp_rng *r, int depth)
{
    double v = 0.3 * gp_rng_normal(r);
    if (v > 1)
        v = 1;
    if (v < -1)
        v = -1;
    double maxv = (double)((1LL << (depth - 1)) - 1);
    return (int32_t)(v * maxv);
}

int gp_audio_wav(const struct gp_audio_opts *o, struct gp_rng *r, struct gp_buf *wav, struct gp_audio_info *info,
                 struct gp_error *err)
{
    int rc = gp_audio_check(o, err);
    if (rc)
        return rc;
    const long *d;
    const double *rates;
    size_t nd, nr;
    lists(o, &d, &nd, &rates, &nr);
    int ch = o->num_channels ? o->num_channels : 1;
    double secs = o->length_mean;
    if (o->length_stddev > 0) /* rejection keeps the normal's shape above 0.1 s */
        do
            secs = o->length_mean + o->length_stddev * gp_rng_normal(r);
        while (secs < MIN_SECONDS);
    uint32_t rate = (uint32_t)(rates[nr > 1 ? gp_rng_below(r, nr) : 0] * 1000);
    int depth = (int)d[nd > 1 ? gp_rng_below(r, nd) : 0];
    double fr = floor(secs * rate);
    int bps = depth / 8;
    if (fr * ch * bps > GP_AUDIO_MAX_BYTES)
        return gp_err(err, GP_EINVAL, "an audio clip of %.1f s at %u Hz is over genperf's %u MB limit; lower "
                      "--audio-length-mean/-stddev", secs, rate, GP_AUDIO_MAX_BYTES >> 20);
    size_t frames = (size_t)fr, data = frames * (size_t)ch * (size_t)bps;
    if (gp_buf_reserve(wav, 44 + data + 1))
        return gp_err(err, GP_ENOMEM, "out of memory for a %.1f s audio clip", secs);
    unsigned char *h = (unsigned char *)wav->data + wav->len;
    memcpy(h, "RIFF", 4);
    put_le(h + 4, (uint32_t)(36 + data), 4);
    memcpy(h + 8, "WAVEfmt ", 8);
    put_le(h + 16, 16, 4);
    put_le(h + 20, 1, 2); /* WAVE_FORMAT_PCM */
    put_le(h + 22, (uint32_t)ch, 2);
    put_le(h + 24, rate, 4);
    put_le(h + 28, rate * (uint32_t)(ch * bps), 4);
    put_le(h + 32, (uint32_t)(ch * bps), 2);
    put_le(h + 34, (uint32_t)depth, 2);
    memcpy(h + 36, "data", 4);
    put_le(h + 40, (uint32_t)data, 4);
    unsigned char *p = h + 44;
    for (size_t i = 0; i < frames * (size_t)ch; i++, p += bps) {
        int32_t s = sample(r, depth);
        if (depth == 8)
            *p = (unsigned char)(s + 128);
        else
            put_le(p, (uint32_t)s, bps);
    }
    wav->len += 44 + data;
    wav->data[wav->len] = '\0';
    if (info) {
        info->seconds = secs;
        info->sample_rate = rate;
        info->depth = depth;
        info->channels = ch;
        info->frames = frames;
    }
    return 0;
}

int gp_audio_base64(const struct gp_audio_opts *o, struct gp_rng *r, struct gp_buf *b64, struct gp_audio_info *info,
                    struct gp_error *err)
{
    struct gp_buf wav = {0};
    int rc = gp_audio_wav(o, r, &wav, info, err);
    if (!rc && gp_base64_encode(b64, wav.data, wav.len))
        rc = gp_err(err, GP_ENOMEM, "out of memory encoding an audio clip");
    gp_buf_free(&wav);
    return rc;
}
