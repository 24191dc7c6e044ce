/* core/base64.h — RFC 4648 base64 (standard alphabet, '=' padding), the
 * encoding of data URLs and OpenAI input_audio parts.
 *
 * Owns nothing: both functions append to a caller's struct gp_buf, which the
 * caller frees. The one implementation in genperf (dataset/ and media/ encode
 * images and audio with it; tests decode with it).
 */
#ifndef GP_CORE_BASE64_H
#define GP_CORE_BASE64_H

#include <stddef.h>

struct gp_buf;

/* Bytes of the encoding of n input bytes (without the NUL). */
size_t gp_base64_len(size_t n);
/* Appends the base64 text of p[0..n). Returns 0 or -GP_ENOMEM. */
int gp_base64_encode(struct gp_buf *b, const void *p, size_t n);
/* Appends the bytes that the base64 text s[0..n) encodes. Padding is
 * required when the length is not a multiple of 4; whitespace is not
 * allowed. Returns 0, -GP_EINVAL on a malformed text, -GP_ENOMEM. */
int gp_base64_decode(struct gp_buf *b, const char *s, size_t n);

#endif
