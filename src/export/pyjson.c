/* export/pyjson.c — Python's float repr, json.dumps and format(v, ",.2f").
 *
 * GenAI-Perf's files are Python's output; a consumer diffing them or a regex
 * reading them sees repr() digits, so we reproduce them instead of printf's
 * %g. The shortest round-trip digits are found by trying 1..17 significant
 * digits: glibc's printf rounds correctly, and the closest p-digit decimal
 * round-trips whenever any p-digit decimal does, so the first hit is the
 * string David Gay's dtoa (Python's repr) returns.
 */
#include "export/pyjson.h"
#include "core/buf.h"
#include "core/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gp_py_float_repr(double x, char *out, size_t outsz)
{
    if (isnan(x))
        return snprintf(out, outsz, "nan");
    if (isinf(x))
        return snprintf(out, outsz, x < 0 ? "-inf" : "inf");
    if (x == 0)
        return snprintf(out, outsz, signbit(x) ? "-0.0" : "0.0");
    char e[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec - 1, x);
        if (strtod(e, NULL) == x)
            break;
    }
    /* e = [-]d[.ddd]e[+-]XX -> digits and decimal exponent */
    char digits[24];
    int nd = 0, neg = 0;
    const char *p = e;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    while (*p && *p != 'e') {
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
        p++;
    }
    int exp10 = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    int decpt = exp10 + 1; /* value = 0.DIGITS x 10^decpt */
    char buf[64];
    size_t o = 0;
    if (neg)
        buf[o++] = '-';
    if (decpt > 16 || decpt < -3) {
        /* repr switches to exponent form: 1e-05, 1.5e+16 */
        buf[o++] = digits[0];
        if (nd > 1) {
            buf[o++] = '.';
            memcpy(buf + o, digits + 1, (size_t)nd - 1);
            o += (size_t)nd - 1;
        }
        int ex = decpt - 1;
        o += (size_t)snprintf(buf + o, sizeof buf - o, "e%c%02d", ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
    } else if (decpt <= 0) {
        buf[o++] = '0';
        buf[o++] = '.';
        for (int i = 0; i < -decpt; i++)
            buf[o++] = '0';
        memcpy(buf + o, digits, (size_t)nd);
        o += (size_t)nd;
    } else if (decpt >= nd) {
        memcpy(buf + o, digits, (size_t)nd);
        o += (size_t)nd;
        for (int i = nd; i < decpt; i++)
            buf[o++] = '0';
        buf[o++] = '.';
        buf[o++] = '0';
    } else {
        memcpy(buf + o, digits, (size_t)decpt);
        o += (size_t)decpt;
        buf[o++] = '.';
        memcpy(buf + o, digits + decpt, (size_t)(nd - decpt));
        o += (size_t)(nd - decpt);
    }
    buf[o] = '\0';
    return snprintf(out, outsz, "%s", buf);
}

int gp_py_float(struct gp_buf *b, double x)
{
    if (isnan(x))
        return gp_buf_puts(b, "NaN");
    if (isinf(x))
        return gp_buf_puts(b, x < 0 ? "-Infinity" : "Infinity");
    char t[64];
    int n = gp_py_float_repr(x, t, sizeof t);
    return gp_buf_append(b, t, (size_t)n);
}

/* length of a valid UTF-8 sequence at s, 0 if invalid; *cp gets the code point */
static size_t utf8_dec(const unsigned char *s, size_t n, unsigned *cp)
{
    unsigned c = s[0];
    size_t l;
    unsigned v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        l = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        l = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        l = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n < l)
        return 0;
    for (size_t i = 1; i < l; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
        return 0;
    *cp = v;
    return l;
}

int gp_py_json_str(struct gp_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    if (gp_buf_reserve(b, n + 2))
        return -GP_ENOMEM;
    if (gp_buf_putc(b, '"'))
        return -GP_ENOMEM;
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && u[run] >= 0x20 && u[run] < 0x7F && u[run] != '"' && u[run] != '\\')
            run++;
        if (run > i) {
            if (gp_buf_append(b, s + i, run - i))
                return -GP_ENOMEM;
            i = run;
            continue;
        }
        unsigned c = u[i];
        char esc[16];
        size_t el = 2;
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; i++; break;
        case '\\': esc[1] = '\\'; i++; break;
        case '\n': esc[1] = 'n'; i++; break;
        case '\r': esc[1] = 'r'; i++; break;
        case '\t': esc[1] = 't'; i++; break;
        case '\b': esc[1] = 'b'; i++; break;
        case '\f': esc[1] = 'f'; i++; break;
        default: {
            unsigned cp;
            size_t l = c < 0x80 ? 1 : utf8_dec(u + i, n - i, &cp);
            if (c < 0x80)
                cp = c;
            if (l == 0) {
                cp = 0xFFFD;
                l = 1;
            }
            i += l;
            if (cp >= 0x10000) {
                unsigned v = cp - 0x10000, hi = 0xD800 + (v >> 10), lo = 0xDC00 + (v & 0x3FF);
                snprintf(esc, sizeof esc, "\\u%c%c%c%c\\u%c%c%c%c", hex[hi >> 12], hex[(hi >> 8) & 15],
                         hex[(hi >> 4) & 15], hex[hi & 15], hex[lo >> 12], hex[(lo >> 8) & 15],
                         hex[(lo >> 4) & 15], hex[lo & 15]);
                el = 12;
            } else {
                snprintf(esc, sizeof esc, "\\u%c%c%c%c", hex[cp >> 12], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15],
                         hex[cp & 15]);
                el = 6;
            }
        }
        }
        if (gp_buf_append(b, esc, el))
            return -GP_ENOMEM;
    }
    return gp_buf_putc(b, '"');
}

static int nl_indent(struct gp_buf *b, int indent, int depth)
{
    if (indent < 0)
        return 0;
    if (gp_buf_putc(b, '\n'))
        return -GP_ENOMEM;
    for (int i = 0; i < indent * depth; i++)
        if (gp_buf_putc(b, ' '))
            return -GP_ENOMEM;
    return 0;
}

int gp_pyjson_dump(struct gp_buf *b, const json_t *v, int indent, int depth)
{
    int r = 0;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        if (json_object_size(v) == 0)
            return gp_buf_puts(b, "{}");
        r |= gp_buf_putc(b, '{');
        const char *k;
        json_t *x;
        int first = 1;
        json_object_foreach((json_t *)v, k, x) {
            if (!first)
                r |= gp_buf_puts(b, indent < 0 ? ", " : ",");
            first = 0;
            r |= nl_indent(b, indent, depth + 1);
            r |= gp_py_json_str(b, k, strlen(k));
            r |= gp_buf_puts(b, ": ");
            r |= gp_pyjson_dump(b, x, indent, depth + 1);
        }
        r |= nl_indent(b, indent, depth);
        r |= gp_buf_putc(b, '}');
        break;
    }
    case JSON_ARRAY: {
        if (json_array_size(v) == 0)
            return gp_buf_puts(b, "[]");
        r |= gp_buf_putc(b, '[');
        size_t i;
        json_t *x;
        json_array_foreach((json_t *)v, i, x) {
            if (i)
                r |= gp_buf_puts(b, indent < 0 ? ", " : ",");
            r |= nl_indent(b, indent, depth + 1);
            r |= gp_pyjson_dump(b, x, indent, depth + 1);
        }
        r |= nl_indent(b, indent, depth);
        r |= gp_buf_putc(b, ']');
        break;
    }
    case JSON_STRING:
        r = gp_py_json_str(b, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        r = gp_buf_printf(b, "%lld", (long long)json_integer_value(v));
        break;
    case JSON_REAL:
        r = gp_py_float(b, json_real_value(v));
        break;
    case JSON_TRUE:
        r = gp_buf_puts(b, "true");
        break;
    case JSON_FALSE:
        r = gp_buf_puts(b, "false");
        break;
    case JSON_NULL:
        r = gp_buf_puts(b, "null");
        break;
    }
    return r ? -GP_ENOMEM : 0;
}

int gp_fmt_2f_commas(struct gp_buf *b, double v)
{
    if (isnan(v))
        return gp_buf_puts(b, "nan");
    if (isinf(v))
        return gp_buf_puts(b, v < 0 ? "-inf" : "inf");
    char t[512];
    int n = snprintf(t, sizeof t, "%.2f", v);
    if (n < 0 || (size_t)n >= sizeof t)
        return gp_buf_puts(b, t);
    const char *p = t;
    if (*p == '-') {
        if (gp_buf_putc(b, '-'))
            return -GP_ENOMEM;
        p++;
    }
    const char *dot = strchr(p, '.');
    size_t il = dot ? (size_t)(dot - p) : strlen(p);
    for (size_t i = 0; i < il; i++) {
        if (i && (il - i) % 3 == 0 && gp_buf_putc(b, ','))
            return -GP_ENOMEM;
        if (gp_buf_putc(b, p[i]))
            return -GP_ENOMEM;
    }
    return dot ? gp_buf_puts(b, dot) : 0;
}
