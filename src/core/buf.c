#include "core/buf.h"
#include "core/error.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gp_buf_reserve(struct gp_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t ncap = b->cap ? b->cap : 64;
    while (ncap < b->len + extra + 1) {
        if (ncap > SIZE_MAX / 2)
            return -GP_ENOMEM;
        ncap *= 2;
    }
    char *p = realloc(b->data, ncap);
    if (!p)
        return -GP_ENOMEM;
    b->data = p;
    b->cap = ncap;
    return 0;
}

int gp_buf_append(struct gp_buf *b, const void *p, size_t n)
{
    if (gp_buf_reserve(b, n))
        return -GP_ENOMEM;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int gp_buf_puts(struct gp_buf *b, const char *s) { return gp_buf_append(b, s, strlen(s)); }

int gp_buf_putc(struct gp_buf *b, char c) { return gp_buf_append(b, &c, 1); }

int gp_buf_printf(struct gp_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -GP_EINVAL;
    if (gp_buf_reserve(b, (size_t)n))
        return -GP_ENOMEM;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    else if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

int gp_buf_json_str(struct gp_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    if (gp_buf_reserve(b, n + 2))
        return -GP_ENOMEM;
    b->data[b->len++] = '"';
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        /* copy the longest run of bytes that need no escaping in one go */
        while (run < n && u[run] >= 0x20 && u[run] < 0x80 && u[run] != '"' && u[run] != '\\')
            run++;
        if (run > i) {
            if (gp_buf_append(b, s + i, run - i))
                return -GP_ENOMEM;
            i = run;
            continue;
        }
        unsigned c = u[i];
        char esc[8];
        const char *out = esc;
        size_t olen = 2;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            if (c < 0x20) {
                esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
                esc[4] = hex[c >> 4]; esc[5] = hex[c & 15];
                olen = 6;
            } else {
                size_t l = utf8_seq(u + i, n - i);
                if (l) {
                    out = s + i;
                    olen = l;
                } else {
                    out = "\\ufffd";
                    olen = 6;
                    l = 1;
                }
                if (gp_buf_append(b, out, olen))
                    return -GP_ENOMEM;
                i += l;
                continue;
            }
        }
        if (gp_buf_append(b, out, olen))
            return -GP_ENOMEM;
        i++;
    }
    return gp_buf_putc(b, '"');
}

void gp_buf_reset(struct gp_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void gp_buf_free(struct gp_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *gp_buf_steal(struct gp_buf *b)
{
    char *p = b->data;
    if (!p)
        p = calloc(1, 1);
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}
