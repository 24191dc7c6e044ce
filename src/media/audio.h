/* media/audio.h — seeded synthetic audio clips for OpenAI input_audio parts,
 * as GenAI-Perf 0.0.16's synthetic audio generator makes them.
 *
 * Owns nothing across calls: functions append to a caller's struct gp_buf,
 * which the caller frees. Per clip (synthetic_audio_generator.py):
 *   length  ~ N(length_mean, length_stddev) seconds, redrawn until >= 0.1
 *   rate    = one of sample_rates_khz (uniform) * 1000, truncated to Hz
 *   depth   = one of depths (uniform), 8/16/24/32 bits
 *   samples = int(length * rate) frames of N(0, 0.3) noise clipped to
 *             [-1, 1], scaled by 2^(depth-1)-1 and truncated toward zero
 * written as a RIFF/WAVE PCM file (44-byte header, "fmt " chunk of 16 bytes;
 * 8-bit samples unsigned with a 128 offset, as WAV defines them). The draws
 * come from the caller's gp_rng, so clips differ from GenAI-Perf's numpy
 * draws but the shape, lengths and header fields follow the same rules.
 * MP3: GenAI-Perf encodes it with libsndfile's MPEG layer III writer;
 * genperf has no MP3 encoder among its Debian dependencies and refuses it.
 */
#ifndef GP_MEDIA_AUDIO_H
#define GP_MEDIA_AUDIO_H

#include <stddef.h>
#include <stdint.h>

struct gp_buf;
struct gp_error;
struct gp_rng;

enum gp_audio_format { GP_AUDIO_WAV = 0, GP_AUDIO_MP3 = 1 };

/* Largest clip genperf builds (bytes of samples): bounds memory. */
#define GP_AUDIO_MAX_BYTES (256u << 20)

struct gp_audio_opts {
    double length_mean;       /* --audio-length-mean seconds; audio only when > 0 */
    double length_stddev;     /* --audio-length-stddev */
    enum gp_audio_format format;      /* --audio-format (default wav) */
    const long *depths;       /* --audio-depths; NULL/0 = {16} */
    size_t n_depths;
    const double *sample_rates_khz; /* --audio-sample-rates; NULL/0 = {16} */
    size_t n_sample_rates;
    int num_channels;         /* --audio-num-channels 1 or 2; 0 = 1 */
};

/* What one clip was drawn as (for tests and logs). */
struct gp_audio_info {
    double seconds;
    uint32_t sample_rate;
    int depth;
    int channels;
    size_t frames;
};

int gp_audio_enabled(const struct gp_audio_opts *o);
/* GenAI-Perf's validation (channels, depths, mean >= 0.1 s) plus genperf's
 * refusal of mp3 and of clips over GP_AUDIO_MAX_BYTES. */
int gp_audio_check(const struct gp_audio_opts *o, struct gp_error *err);
/* "wav" / "mp3", the input_audio part's "format". */
const char *gp_audio_format_name(enum gp_audio_format f);

/* Appends one WAV file to wav. info may be NULL. */
int gp_audio_wav(const struct gp_audio_opts *o, struct gp_rng *r, struct gp_buf *wav, struct gp_audio_info *info,
                 struct gp_error *err);
/* Appends the base64 of one clip (the input_audio "data" value). */
int gp_audio_base64(const struct gp_audio_opts *o, struct gp_rng *r, struct gp_buf *b64, struct gp_audio_info *info,
                    struct gp_error *err);

#endif
