/* dataset/jsonw.c — see jsonw.h. */
#include "dataset/jsonw.h"
#include "core/buf.h"
#include "core/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gp_jsonw_real(struct gp_buf *b, double x)
{
    if (isnan(x))
        return gp_buf_puts(b, "NaN");
    if (isinf(x))
        return gp_buf_puts(b, x < 0 ? "-Infinity" : "Infinity");
    char tmp[64];
    int p;
    /* Shortest precision that round-trips, as Python's repr does. */
    for (p = 0; p < 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p, x);
        if (strtod(tmp, NULL) == x)
            break;
    }
    snprintf(tmp, sizeof tmp, "%.*e", p, x);
    const char *s = tmp;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    char digits[32];
    int nd = 0;
    const char *e = strchr(s, 'e');
    for (const char *q = s; q < e; q++)
        if (*q >= '0' && *q <= '9')
            digits[nd++] = *q;
    int exp10 = atoi(e + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    int decpt = exp10 + 1;
    if (x == 0.0)
        decpt = 1;
    char out[96];
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    if (decpt < -3 || decpt > 16) {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            memcpy(out + o, digits + 1, (size_t)nd - 1);
            o += (size_t)nd - 1;
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "e%c%02d", decpt - 1 < 0 ? '-' : '+',
                              abs(decpt - 1));
    } else if (decpt <= 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -decpt; i++)
            out[o++] = '0';
        memcpy(out + o, digits, (size_t)nd);
        o += (size_t)nd;
    } else if (decpt < nd) {
        memcpy(out + o, digits, (size_t)decpt);
        o += (size_t)decpt;
        out[o++] = '.';
        memcpy(out + o, digits + decpt, (size_t)(nd - decpt));
        o += (size_t)(nd - decpt);
    } else {
        memcpy(out + o, digits, (size_t)nd);
        o += (size_t)nd;
        for (int i = nd; i < decpt; i++)
            out[o++] = '0';
        out[o++] = '.';
        out[o++] = '0';
    }
    return gp_buf_append(b, out, o);
}

/* Decodes one UTF-8 sequence; jansson strings are valid UTF-8, so a bad
 * byte (only possible from a caller's raw text) maps to U+FFFD. */
static unsigned utf8_next(const unsigned char *s, size_t n, size_t *i)
{
    unsigned c = s[*i], cp;
    size_t need;
    if (c < 0x80) {
        (*i)++;
        return c;
    } else if ((c & 0xe0) == 0xc0) {
        need = 1;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        need = 2;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        need = 3;
        cp = c & 0x07;
    } else {
        (*i)++;
        return 0xFFFD;
    }
    if (*i + need >= n) {
        (*i)++;
        return 0xFFFD;
    }
    for (size_t k = 1; k <= need; k++) {
        unsigned cc = s[*i + k];
        if ((cc & 0xc0) != 0x80) {
            (*i)++;
            return 0xFFFD;
        }
        cp = (cp << 6) | (cc & 0x3f);
    }
    *i += need + 1;
    return cp;
}

/* Which bytes need no escape, per style (see gp_jsonw_str). */
static const unsigned char plain[256] = {
#define P3 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3
#define P1 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10 */
    3, 3, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, /* 0x20: '"' */
    P3, P3,                                          /* 0x30, 0x40 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 3, 3, 3, /* 0x50: '\\' */
    P3,                                              /* 0x60 */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, /* 0x70: DEL escaped by Python */
    P1, P1, P1, P1, P1, P1, P1, P1,                  /* 0x80-0xff: raw UTF-8 on the wire */
#undef P3
#undef P1
};

int gp_jsonw_str(struct gp_buf *b, const char *str, size_t n, enum gp_jsonw_style style)
{
    const unsigned char *s = (const unsigned char *)str;
    if (gp_buf_reserve(b, n + 2))
        return -GP_ENOMEM;
    int r = gp_buf_putc(b, '"');
    size_t i = 0;
    while (i < n && !r) {
        unsigned char c = s[i];
        /* Fast path: a run of bytes that need no escaping (bit 0: plain in
         * WIRE style, bit 1: plain in PYTHON style). */
        const unsigned char bit = style == GP_JSONW_WIRE ? 1 : 2;
        size_t j = i;
        while (j < n && (plain[s[j]] & bit))
            j++;
        if (j > i) {
            r = gp_buf_append(b, s + i, j - i);
            i = j;
            continue;
        }
        char esc[16];
        switch (c) {
        case '"': r = gp_buf_puts(b, "\\\""); i++; continue;
        case '\\': r = gp_buf_puts(b, "\\\\"); i++; continue;
        case '\n': r = gp_buf_puts(b, "\\n"); i++; continue;
        case '\r': r = gp_buf_puts(b, "\\r"); i++; continue;
        case '\t': r = gp_buf_puts(b, "\\t"); i++; continue;
        case '\b': r = gp_buf_puts(b, "\\b"); i++; continue;
        case '\f': r = gp_buf_puts(b, "\\f"); i++; continue;
        default: break;
        }
        if (c < 0x20) {
            snprintf(esc, sizeof esc, style == GP_JSONW_WIRE ? "\\u%04X" : "\\u%04x", c);
            r = gp_buf_puts(b, esc);
            i++;
            continue;
        }
        /* PYTHON style, c >= 0x7f: escape the whole code point. */
        unsigned cp = utf8_next(s, n, &i);
        if (cp >= 0x10000) {
            unsigned v = cp - 0x10000;
            snprintf(esc, sizeof esc, "\\u%04x\\u%04x", 0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
        } else {
            snprintf(esc, sizeof esc, "\\u%04x", cp);
        }
        r = gp_buf_puts(b, esc);
    }
    if (!r)
        r = gp_buf_putc(b, '"');
    return r ? -GP_ENOMEM : 0;
}

static int newline(struct gp_buf *b, int depth)
{
    if (gp_buf_putc(b, '\n'))
        return -GP_ENOMEM;
    for (int i = 0; i < depth; i++)
        if (gp_buf_append(b, "  ", 2))
            return -GP_ENOMEM;
    return 0;
}

int gp_jsonw(struct gp_buf *b, const json_t *v, enum gp_jsonw_style style, int depth)
{
    int py = style == GP_JSONW_PYTHON;
    char num[32];
    switch (json_typeof(v)) {
    case JSON_NULL: return gp_buf_puts(b, "null");
    case JSON_TRUE: return gp_buf_puts(b, "true");
    case JSON_FALSE: return gp_buf_puts(b, "false");
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return gp_buf_puts(b, num);
    case JSON_REAL: return gp_jsonw_real(b, json_real_value(v));
    case JSON_STRING: return gp_jsonw_str(b, json_string_value(v), json_string_length(v), style);
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        if (n == 0)
            return gp_buf_puts(b, "[]");
        if (gp_buf_putc(b, '['))
            return -GP_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            if (i && gp_buf_putc(b, ','))
                return -GP_ENOMEM;
            if (py && newline(b, depth + 1))
                return -GP_ENOMEM;
            if (gp_jsonw(b, json_array_get(v, i), style, depth + 1))
                return -GP_ENOMEM;
        }
        if (py && newline(b, depth))
            return -GP_ENOMEM;
        return gp_buf_putc(b, ']');
    }
    case JSON_OBJECT: {
        if (json_object_size(v) == 0)
            return gp_buf_puts(b, "{}");
        if (gp_buf_putc(b, '{'))
            return -GP_ENOMEM;
        const char *key;
        json_t *val;
        int first = 1;
        json_object_foreach((json_t *)v, key, val) {
            if (!first && gp_buf_putc(b, ','))
                return -GP_ENOMEM;
            first = 0;
            if (py && newline(b, depth + 1))
                return -GP_ENOMEM;
            if (gp_jsonw_str(b, key, strlen(key), style))
                return -GP_ENOMEM;
            if (gp_buf_puts(b, py ? ": " : ":"))
                return -GP_ENOMEM;
            if (gp_jsonw(b, val, style, depth + 1))
                return -GP_ENOMEM;
        }
        if (py && newline(b, depth))
            return -GP_ENOMEM;
        return gp_buf_putc(b, '}');
    }
    }
    return 0;
}
