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
