/* core/base64.c — RFC 4648 base64; see base64.h. */
#include "core/base64.h"
#include "core/buf.h"
#include "core/error.h"

#include <stdint.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t gp_base64_len(size_t n) { return (n + 2) / 3 * 4; }

int gp_base64_encode(struct gp_buf *b, const void *p, size_t n)
{
    size_t out = gp_base64_len(n);
    if (gp_buf_reserve(b, out + 1))
        return -GP_ENOMEM;
    const unsigned char *s = p;
    char *d = b->data + b->len;
    size_t i = 0;
    /* Images are megabytes: whole 3-byte groups in one tight loop. */
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
        *d++ = alphabet[v >> 18];
        *d++ = alphabet[(v >> 12) & 63];
        *d++ = alphabet[(v >> 6) & 63];
        *d++ = alphabet[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0);
        *d++ = alphabet[v >> 18];
        *d++ = alphabet[(v >> 12) & 63];
        *d++ = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        *d++ = '=';
    }
    b->len += out;
    b->data[b->len] = '\0';
    return 0;
}

static int sextet(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int gp_base64_decode(struct gp_buf *b, const char *s, size_t n)
{
    if (n % 4)
        return -GP_EINVAL;
    if (gp_buf_reserve(b, n / 4 * 3 + 1))
        return -GP_ENOMEM;
    unsigned char *d = (unsigned char *)b->data + b->len;
    size_t got = 0;
    for (size_t i = 0; i < n; i += 4) {
        int last = i + 4 == n;
        int pad = last ? (s[i + 3] == '=') + (s[i + 2] == '=') : 0;
        if (pad == 1 && s[i + 2] == '=')
            return -GP_EINVAL; /* "x=y=" */
        int v[4];
        for (int k = 0; k < 4 - pad; k++)
            if ((v[k] = sextet((unsigned char)s[i + k])) < 0)
                return -GP_EINVAL;
        for (int k = 4 - pad; k < 4; k++)
            v[k] = 0;
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        d[got++] = (unsigned char)(w >> 16);
        if (pad < 2)
            d[got++] = (unsigned char)(w >> 8);
        if (pad < 1)
            d[got++] = (unsigned char)w;
    }
    b->len += got;
    b->data[b->len] = '\0';
    return 0;
}
