/* export/export.c — GenAI-Perf's artifacts (JSON, CSV, console) and ours.
 *
 * Layouts, labels and number formats follow genai-perf-profile.md §4.6, §7
 * and §8 literally; the unit tests compare against the spec's examples byte
 * for byte. Large files (profile export, records) are streamed through one
 * reused buffer that is flushed to the atomic temp file every megabyte, so a
 * million-request run needs no second copy of the data in memory.
 */
#include "export/export.h"
#include "core/pytext.h"
#include "client/record.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/version.h"
#include "dataset/dataset.h"
#include "metrics/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define FLUSH_AT (1u << 20)

/* ---- fast appenders for the big streamed files -------------------------
 * printf and the generic JSON escaper dominated a million-request export;
 * these write straight into reserved buffer space. */

/* Reserve fast path: the streamed files append a few bytes at a time, so
 * the common case (room left) must not cost a call. */
static inline int room(struct gp_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return 0;
    return gp_buf_reserve(b, extra);
}

static const char digits2[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

static const uint64_t pow10_tab[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
    10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
    10000000000000000000ull,
};

/* decimal digits of v: log2 * log10(2) (1233/4096) then one correction */
static inline unsigned ndigits(uint64_t v)
{
    unsigned t = ((unsigned)(64 - __builtin_clzll(v | 1)) * 1233) >> 12;
    return t - ((v | 1) < pow10_tab[t]) + 1; /* v | 1: 0 has one digit */
}

static inline int put_u64(struct gp_buf *b, uint64_t v)
{
    if (room(b, 24))
        return -GP_ENOMEM;
    /* written in place from the last digit, two per division: nanosecond
     * wall times have 19 digits */
    unsigned n = ndigits(v);
    char *p = b->data + b->len + n;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = digits2[d + 1];
        *--p = digits2[d];
    }
    if (v >= 10) {
        unsigned d = (unsigned)v * 2;
        *--p = digits2[d + 1];
        *--p = digits2[d];
    } else {
        *--p = (char)('0' + v);
    }
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

static inline int put_i64(struct gp_buf *b, int64_t v)
{
    if (v < 0) {
        if (gp_buf_putc(b, '-'))
            return -GP_ENOMEM;
        return put_u64(b, (uint64_t)(-(v + 1)) + 1);
    }
    return put_u64(b, (uint64_t)v);
}

static inline int put_lit(struct gp_buf *b, const char *s, size_t n)
{
    if (room(b, n))
        return -GP_ENOMEM;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}
#define PUTS(b, lit) put_lit((b), (lit), sizeof(lit) - 1)

static inline int put_ch(struct gp_buf *b, char c)
{
    if (room(b, 1))
        return -GP_ENOMEM;
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
    return 0;
}

/* length of a valid UTF-8 sequence at u (n bytes left), 0 if invalid */
static size_t utf8_len(const unsigned char *u, size_t n)
{
    unsigned c = u[0];
    size_t l;
    unsigned v, min;
    if ((c & 0xE0) == 0xC0)
        l = 2, v = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        l = 3, v = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        l = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n < l)
        return 0;
    for (size_t i = 1; i < l; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (u[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
        return 0;
    return l;
}

/* second byte of the two-byte escape of an ASCII byte that needs one; 0:
 * \u00XX */
static const char esc2[128] = {
    ['"'] = '"', ['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't', ['\b'] = 'b', ['\f'] = 'f',
};

/* writes the escape of u[*i] at o, advances *i; returns the new o */
static inline char *put_esc(char *o, const unsigned char *u, size_t *i, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    unsigned c = u[*i];
    if (c >= 0x80) {
        size_t l = utf8_len(u + *i, n - *i);
        if (l) {
            memcpy(o, u + *i, l);
            *i += l;
            return o + l;
        }
        memcpy(o, "\\ufffd", 6);
        *i += 1;
        return o + 6;
    }
    *i += 1;
    o[0] = '\\';
    if (esc2[c]) {
        o[1] = esc2[c];
        return o + 2;
    }
    o[1] = 'u';
    o[2] = '0';
    o[3] = '0';
    o[4] = hex[c >> 4];
    o[5] = hex[c & 15];
    return o + 6;
}

#if defined(__SSE2__)
/* bit k set: byte k of the 16 at p stops a clean run. Signed compare: bytes
 * >= 0x80 are negative, so "< 0x20" catches them and the controls at once. */
static inline unsigned esc_mask16(const unsigned char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                             _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    return (unsigned)_mm_movemask_epi8(m);
}

static inline void copy16(char *o, const unsigned char *p)
{
    _mm_storeu_si128((__m128i *)(void *)o, _mm_loadu_si128((const __m128i *)(const void *)p));
}

/* Escapes the lim (<= 16) bytes at input offset i, whose bytes are also at
 * src (32 readable bytes), m their escape mask. Every clean run is copied by
 * one 16-byte store (the output has slack); the positions come from the mask
 * alone, so the loop carries no load-compare chain from one escape to the
 * next — SSE chunks have a quote every few bytes. *adv gets the input bytes
 * consumed (more than lim when a UTF-8 sequence runs past the block). */
static inline char *esc_block(char *o, const unsigned char *src, unsigned m, unsigned lim, const unsigned char *u,
                              size_t i, size_t n, size_t *adv)
{
    size_t prev = 0;
    while (m) {
        unsigned k = (unsigned)__builtin_ctz(m);
        copy16(o, src + prev);
        o += k - prev;
        size_t j = i + k;
        o = put_esc(o, u, &j, n);
        prev = j - i;
        m &= prev >= 16 ? 0u : ~0u << prev;
    }
    if (prev < lim) {
        copy16(o, src + prev);
        o += lim - prev;
        prev = lim;
    }
    *adv = prev;
    return o;
}
#endif

#if !defined(__SSE2__)
/* JSON string as RapidJSON's Writer emits it (raw UTF-8, '/' unescaped);
 * invalid UTF-8 (a character split across two reads) becomes \ufffd so the
 * file stays valid JSON. Bytes that stop a clean run: '"', '\\', < 0x20 and
 * >= 0x80 (the last only to validate UTF-8). */
static const unsigned char needs_esc[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};
#endif

static int put_jstr(struct gp_buf *b, const char *s, size_t n)
{
    /* worst case 6 output bytes per input byte, plus 16 of slack for the
     * whole-block stores below */
    if (room(b, n * 6 + 2 + 16))
        return -GP_ENOMEM;
    const unsigned char *u = (const unsigned char *)s;
    char *o = b->data + b->len;
    *o++ = '"';
    size_t i = 0;
#if defined(__SSE2__)
    /* esc_block may read 32 bytes from a block's start */
    while (n - i >= 32) {
        unsigned m = esc_mask16(u + i);
        if (!m) {
            copy16(o, u + i);
            o += 16;
            i += 16;
            continue;
        }
        size_t adv;
        o = esc_block(o, u + i, m, 16, u, i, n, &adv);
        i += adv;
    }
    if (i < n) {
        /* the tail (< 32 bytes) through a padded copy: never read past the
         * input; the padding is clean bytes and masked off anyway */
        unsigned char t[64];
        memset(t, 'a', sizeof t);
        size_t t0 = i;
        memcpy(t, u + i, n - i);
        while (i < n) {
            const unsigned char *src = t + (i - t0);
            unsigned lim = n - i < 16 ? (unsigned)(n - i) : 16;
            unsigned m = esc_mask16(src) & ((1u << lim) - 1);
            size_t adv;
            o = esc_block(o, src, m, lim, u, i, n, &adv);
            i += adv;
        }
    }
#else
    while (i < n) {
        while (i < n && !needs_esc[u[i]])
            *o++ = (char)u[i++];
        if (i == n)
            break;
        o = put_esc(o, u, &i, n);
    }
#endif
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    b->data[b->len] = '\0';
    return 0;
}

void gp_export_stem(const char *file, char *out, size_t outsz)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char *dot = strrchr(base, '.');
    /* Python os.path.splitext: a leading dot is not an extension */
    size_t n = (dot && dot != base) ? (size_t)(dot - base) : strlen(base);
    snprintf(out, outsz, "%.*s", (int)n, base);
}

/* ---- labels ------------------------------------------------------------ */

/* CSV/console labels use GenAI-Perf's metadata units, not the JSON ones. */
static const char *label_of(enum gp_metric m)
{
    switch (m) {
    case GP_M_REQUEST_THROUGHPUT: return "Request Throughput (per sec)";
    case GP_M_REQUEST_LATENCY: return "Request Latency (ms)";
    case GP_M_REQUEST_GOODPUT: return "Request Goodput (per sec)";
    case GP_M_REQUEST_COUNT: return "Request Count (count)";
    case GP_M_TTFT: return "Time To First Token (ms)";
    case GP_M_TTST: return "Time To Second Token (ms)";
    case GP_M_ITL: return "Inter Token Latency (ms)";
    case GP_M_OUTPUT_TOKEN_THROUGHPUT: return "Output Token Throughput (tokens/sec)";
    case GP_M_TPS_PER_USER: return "Output Token Throughput Per User (tokens/sec/user)";
    case GP_M_OSL: return "Output Sequence Length (tokens)";
    case GP_M_ISL: return "Input Sequence Length (tokens)";
    default: return "?";
    }
}

static const enum gp_metric stream_rows[] = {GP_M_TTFT, GP_M_TTST, GP_M_REQUEST_LATENCY, GP_M_ITL,
                                             GP_M_TPS_PER_USER, GP_M_OSL, GP_M_ISL};
static const enum gp_metric plain_rows[] = {GP_M_REQUEST_LATENCY, GP_M_OSL, GP_M_ISL};

static size_t request_rows(const struct gp_export_ctx *ctx, const enum gp_metric **rows)
{
    if (ctx->streaming) {
        *rows = stream_rows;
        return sizeof stream_rows / sizeof *stream_rows;
    }
    *rows = plain_rows;
    return sizeof plain_rows / sizeof *plain_rows;
}

static size_t system_rows(const struct gp_export_ctx *ctx, enum gp_metric out[4])
{
    size_t n = 0;
    out[n++] = GP_M_OUTPUT_TOKEN_THROUGHPUT;
    out[n++] = GP_M_REQUEST_THROUGHPUT;
    if (ctx->goodput)
        out[n++] = GP_M_REQUEST_GOODPUT;
    out[n++] = GP_M_REQUEST_COUNT;
    return n;
}

/* CSV column order: avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1 */
static double csv_col(const struct gp_stats *s, int c)
{
    if (c == 0) return s->avg;
    if (c == 1) return s->min;
    if (c == 2) return s->max;
    return s->p[GP_NPCT - 1 - (c - 3)];
}

/* ---- <stem>_genai_perf.json -------------------------------------------- */

int gp_export_genai_perf_json_buf(const struct gp_export_ctx *ctx, struct gp_buf *b)
{
    static const char *const pk[GP_NPCT] = {"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"};
    int r = gp_buf_putc(b, '{');
    int first = 1;
    for (int m = 0; m < GP_M__COUNT; m++) {
        const struct gp_stats *s = &ctx->m->stats[m];
        if (!s->present)
            continue;
        if (m == GP_M_REQUEST_GOODPUT && !ctx->goodput)
            continue;
        r |= gp_buf_printf(b, "%s\n  \"%s\": {\n    \"unit\": \"%s\",\n    \"avg\": ", first ? "" : ",",
                           gp_metric_name(m), gp_metric_unit(m));
        first = 0;
        r |= gp_py_float(b, s->avg);
        if (!s->system) {
            for (int i = 0; i < GP_NPCT; i++) {
                r |= gp_buf_printf(b, ",\n    \"%s\": ", pk[i]);
                r |= gp_py_float(b, s->p[i]);
            }
            r |= gp_buf_puts(b, ",\n    \"min\": ");
            r |= gp_py_float(b, s->min);
            r |= gp_buf_puts(b, ",\n    \"max\": ");
            r |= gp_py_float(b, s->max);
            r |= gp_buf_puts(b, ",\n    \"std\": ");
            r |= gp_py_float(b, s->std);
        }
        r |= gp_buf_puts(b, "\n  }");
    }
    if (ctx->telemetry_stats && json_object_size(ctx->telemetry_stats)) {
        r |= gp_buf_printf(b, "%s\n  \"telemetry_stats\": ", first ? "" : ",");
        r |= gp_json_dump(b, ctx->telemetry_stats, 2, 1, GP_JSON_PYTHON);
        first = 0;
    }
    if (ctx->input_config) {
        r |= gp_buf_printf(b, "%s\n  \"input_config\": ", first ? "" : ",");
        r |= gp_json_dump(b, ctx->input_config, 2, 1, GP_JSON_PYTHON);
        first = 0;
    }
    r |= gp_buf_puts(b, first ? "}" : "\n}");
    return r ? -GP_ENOMEM : 0;
}

static int write_buf(const char *path, struct gp_buf *b, int rc, struct gp_error *err)
{
    if (rc) {
        gp_buf_free(b);
        return gp_err(err, GP_ENOMEM, "out of memory building '%s'", path);
    }
    rc = gp_write_file_atomic(path, b->data ? b->data : "", b->len, err);
    gp_buf_free(b);
    return rc;
}

int gp_export_genai_perf_json(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err)
{
    struct gp_buf b = {0};
    int rc = gp_export_genai_perf_json_buf(ctx, &b);
    return write_buf(path, &b, rc, err);
}

/* ---- <stem>_genai_perf.csv --------------------------------------------- */

static int csv_field(struct gp_buf *b, const char *s, size_t n)
{
    /* csv.writer QUOTE_MINIMAL: quote fields holding the delimiter, quotes or line breaks */
    int q = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
            q = 1;
    if (!q)
        return gp_buf_append(b, s, n);
    int r = gp_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            r |= gp_buf_putc(b, '"');
        r |= gp_buf_putc(b, s[i]);
    }
    return r | gp_buf_putc(b, '"');
}

static int csv_num(struct gp_buf *b, double v, int commas)
{
    struct gp_buf t = {0};
    int r = commas ? gp_fmt_2f_commas(&t, v) : gp_buf_printf(&t, "%.2f", v);
    r |= csv_field(b, t.data ? t.data : "", t.len);
    gp_buf_free(&t);
    return r;
}

/* "gpu_power_usage" -> "GPU Power Usage" (telemetry_data_exporter_util.py) */
static int telemetry_label(struct gp_buf *b, const char *name, const char *unit)
{
    int r = 0, start = 1;
    const char *p = name;
    while (*p) {
        const char *e = strchr(p, '_');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!start)
            r |= gp_buf_putc(b, ' ');
        start = 0;
        if (n == 3 && strncmp(p, "gpu", 3) == 0) {
            r |= gp_buf_puts(b, "GPU");
        } else if (n) {
            char c = p[0];
            r |= gp_buf_putc(b, (c >= 'a' && c <= 'z') ? (char)(c - 32) : c);
            r |= gp_buf_append(b, p + 1, n - 1);
        }
        p += n;
        if (*p == '_')
            p++;
    }
    if (unit && *unit)
        r |= gp_buf_printf(b, " (%s)", unit);
    return r;
}

static int is_constant_metric(const char *name)
{
    return strcmp(name, "gpu_power_limit") == 0 || strcmp(name, "total_gpu_memory") == 0;
}

static double jnum(const json_t *v, int *ok)
{
    *ok = json_is_number(v);
    return *ok ? json_number_value(v) : 0;
}

static int csv_telemetry(struct gp_buf *b, const json_t *ts)
{
    static const char *const cols[] = {"avg", "min", "max", "p99", "p95", "p90", "p75",
                                       "p50", "p25", "p10", "p5", "p1"};
    int r = gp_buf_puts(b, "\r\nMetric,GPU,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1\r\n");
    const char *name;
    json_t *metric;
    json_object_foreach((json_t *)ts, name, metric) {
        if (is_constant_metric(name) || !json_is_object(metric))
            continue;
        const char *unit = json_string_value(json_object_get(metric, "unit"));
        const char *gpu;
        json_t *g;
        json_object_foreach(metric, gpu, g) {
            if (!json_is_object(g))
                continue;
            struct gp_buf l = {0};
            r |= telemetry_label(&l, name, unit);
            r |= csv_field(b, l.data ? l.data : "", l.len);
            gp_buf_free(&l);
            r |= gp_buf_putc(b, ',');
            r |= csv_field(b, gpu, strlen(gpu));
            for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
                int ok;
                double v = jnum(json_object_get(g, cols[c]), &ok);
                r |= gp_buf_putc(b, ',');
                r |= csv_num(b, ok ? v : 0.0, 1);
            }
            r |= gp_buf_puts(b, "\r\n");
        }
    }
    r |= gp_buf_puts(b, "\r\nMetric,GPU,Value\r\n");
    json_object_foreach((json_t *)ts, name, metric) {
        if (!is_constant_metric(name) || !json_is_object(metric))
            continue;
        const char *unit = json_string_value(json_object_get(metric, "unit"));
        const char *gpu;
        json_t *g;
        json_object_foreach(metric, gpu, g) {
            if (!json_is_object(g))
                continue;
            struct gp_buf l = {0};
            r |= telemetry_label(&l, name, unit);
            r |= csv_field(b, l.data ? l.data : "", l.len);
            gp_buf_free(&l);
            r |= gp_buf_putc(b, ',');
            r |= csv_field(b, gpu, strlen(gpu));
            int ok;
            double v = jnum(json_object_get(g, "avg"), &ok);
            r |= gp_buf_putc(b, ',');
            r |= csv_num(b, ok ? v : 0.0, 0);
            r |= gp_buf_puts(b, "\r\n");
        }
    }
    return r;
}

int gp_export_csv_buf(const struct gp_export_ctx *ctx, struct gp_buf *b)
{
    int r = gp_buf_puts(b, "Metric,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1\r\n");
    const enum gp_metric *rows;
    size_t nrows = request_rows(ctx, &rows);
    for (size_t i = 0; i < nrows; i++) {
        const struct gp_stats *s = &ctx->m->stats[rows[i]];
        const char *l = label_of(rows[i]);
        r |= csv_field(b, l, strlen(l));
        for (int c = 0; c < 12; c++) {
            r |= gp_buf_putc(b, ',');
            if (s->present)
                r |= csv_num(b, csv_col(s, c), 1);
            else
                r |= gp_buf_puts(b, "N/A");
        }
        r |= gp_buf_puts(b, "\r\n");
    }
    r |= gp_buf_puts(b, "\r\nMetric,Value\r\n");
    enum gp_metric sys[4];
    size_t ns = system_rows(ctx, sys);
    for (size_t i = 0; i < ns; i++) {
        const struct gp_stats *s = &ctx->m->stats[sys[i]];
        const char *l = label_of(sys[i]);
        r |= csv_field(b, l, strlen(l));
        r |= gp_buf_putc(b, ',');
        if (s->present)
            r |= csv_num(b, s->avg, 1);
        else
            r |= gp_buf_puts(b, "N/A");
        r |= gp_buf_puts(b, "\r\n");
    }
    if (ctx->telemetry_stats && json_object_size(ctx->telemetry_stats))
        r |= csv_telemetry(b, ctx->telemetry_stats);
    return r ? -GP_ENOMEM : 0;
}

int gp_export_genai_perf_csv(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err)
{
    struct gp_buf b = {0};
    int rc = gp_export_csv_buf(ctx, &b);
    return write_buf(path, &b, rc, err);
}

/* ---- console table (rich HEAVY_HEAD) ----------------------------------- */

#define NCOL 7
#define MAXLINES 8

struct cell {
    char text[128];
};

/* display width of UTF-8 text (labels and numbers are ASCII; be safe) */
static size_t dwidth(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            w++;
    return w;
}

/* Greedy word wrap like rich's Text.wrap: words never split; a word alone
 * wider than the column is cropped with "…". Explicit '\n' breaks. */
static int wrap(const char *s, size_t width, char lines[MAXLINES][128])
{
    int nl = 0;
    if (width < 1)
        width = 1;
    const char *p = s;
    while (*p && nl < MAXLINES) {
        const char *eol = strchr(p, '\n');
        size_t plen = eol ? (size_t)(eol - p) : strlen(p);
        char cur[128] = "";
        size_t cl = 0;
        size_t i = 0;
        int para0 = nl;
        while (i < plen) {
            while (i < plen && p[i] == ' ')
                i++;
            size_t ws = i;
            while (i < plen && p[i] != ' ')
                i++;
            size_t wl = i - ws;
            if (!wl)
                break;
            const char *w = p + ws;
            while (wl) {
                size_t need = cl ? cl + 1 + wl : wl;
                if (need <= width) {
                    if (cl)
                        cur[cl++] = ' ';
                    memcpy(cur + cl, w, wl);
                    cl += wl;
                    cur[cl] = '\0';
                    wl = 0;
                } else if (cl) {
                    if (nl < MAXLINES)
                        snprintf(lines[nl++], 128, "%s", cur);
                    cl = 0;
                    cur[0] = '\0';
                } else {
                    /* a word wider than the column gets a line of its own,
                     * cropped with an ellipsis (rich's default overflow) */
                    if (nl < MAXLINES) {
                        if (width > 1)
                            snprintf(lines[nl++], 128, "%.*s\u2026", (int)(width - 1), w);
                        else
                            snprintf(lines[nl++], 128, "\u2026");
                    }
                    wl = 0;
                }
            }
        }
        /* the paragraph's last line (an empty paragraph is one empty line) */
        if (nl < MAXLINES && (cl || nl == para0))
            snprintf(lines[nl++], 128, "%s", cur);
        p += plen;
        if (*p == '\n')
            p++;
    }
    if (nl == 0)
        lines[nl++][0] = '\0';
    return nl;
}

/* rich.table: _collapse_widths then ratio_reduce (widths include padding) */
static void ratio_reduce(long total, const long *ratios_in, const long *maxs, long *vals, int n)
{
    long ratios[NCOL], total_ratio = 0;
    for (int i = 0; i < n; i++) {
        ratios[i] = maxs[i] ? ratios_in[i] : 0;
        total_ratio += ratios[i];
    }
    if (!total_ratio)
        return;
    long remaining = total;
    for (int i = 0; i < n; i++) {
        if (ratios[i] && total_ratio > 0) {
            double q = (double)ratios[i] * (double)remaining / (double)total_ratio;
            long d = (long)gp_round_half_even(q);
            if (d > maxs[i])
                d = maxs[i];
            vals[i] -= d;
            remaining -= d;
            total_ratio -= ratios[i];
        }
    }
}

static void collapse(long *w, int n, long max_width)
{
    long total = 0;
    for (int i = 0; i < n; i++)
        total += w[i];
    long excess = total - max_width;
    while (total && excess > 0) {
        long mx = 0, second = 0;
        for (int i = 0; i < n; i++)
            if (w[i] > mx)
                mx = w[i];
        for (int i = 0; i < n; i++)
            if (w[i] != mx && w[i] > second)
                second = w[i];
        long diff = mx - second;
        long ratios[NCOL], maxs[NCOL];
        int any = 0;
        for (int i = 0; i < n; i++) {
            ratios[i] = w[i] == mx;
            any |= (int)ratios[i];
            maxs[i] = excess < diff ? excess : diff;
        }
        if (!any || !diff)
            break;
        ratio_reduce(excess, ratios, maxs, w, n);
        total = 0;
        for (int i = 0; i < n; i++)
            total += w[i];
        excess = total - max_width;
    }
    if (excess > 0) {
        long ratios[NCOL], maxs[NCOL];
        for (int i = 0; i < n; i++) {
            ratios[i] = 1;
            maxs[i] = w[i];
        }
        ratio_reduce(excess, ratios, maxs, w, n);
    }
}

static int put_rep(struct gp_buf *b, const char *s, long n)
{
    int r = 0;
    for (long i = 0; i < n; i++)
        r |= gp_buf_puts(b, s);
    return r;
}

int gp_export_console_buf(const struct gp_export_ctx *ctx, int width, struct gp_buf *b)
{
    static const char *const head[NCOL] = {"Statistic", "avg", "min", "max", "p99", "p90", "p75"};
    /* stats index for avg,min,max,p99,p90,p75 */
    struct row {
        struct cell c[NCOL];
    } rows[16];
    int nr = 0;
    const enum gp_metric *rq;
    size_t nrq = request_rows(ctx, &rq);
    for (size_t i = 0; i < nrq; i++, nr++) {
        const struct gp_stats *s = &ctx->m->stats[rq[i]];
        const char *l = label_of(rq[i]);
        /* textwrap.fill(label, 36) */
        char lines[MAXLINES][128];
        int n = wrap(l, 36, lines);
        struct gp_buf t = {0};
        for (int k = 0; k < n; k++) {
            if (k)
                gp_buf_putc(&t, '\n');
            gp_buf_puts(&t, lines[k]);
        }
        snprintf(rows[nr].c[0].text, 128, "%s", t.data ? t.data : "");
        gp_buf_free(&t);
        double v[6];
        v[0] = s->avg, v[1] = s->min, v[2] = s->max, v[3] = s->p[8], v[4] = s->p[6], v[5] = s->p[5];
        for (int c = 0; c < 6; c++) {
            struct gp_buf f = {0};
            if (s->present)
                gp_fmt_2f_commas(&f, v[c]);
            else
                gp_buf_puts(&f, "N/A");
            snprintf(rows[nr].c[1 + c].text, 128, "%s", f.data ? f.data : "");
            gp_buf_free(&f);
        }
    }
    enum gp_metric sys[4];
    size_t ns = system_rows(ctx, sys);
    for (size_t i = 0; i < ns; i++, nr++) {
        const struct gp_stats *s = &ctx->m->stats[sys[i]];
        snprintf(rows[nr].c[0].text, 128, "%s", label_of(sys[i]));
        struct gp_buf f = {0};
        if (s->present)
            gp_fmt_2f_commas(&f, s->avg);
        else
            gp_buf_puts(&f, "N/A");
        snprintf(rows[nr].c[1].text, 128, "%s", f.data ? f.data : "");
        gp_buf_free(&f);
        for (int c = 2; c < NCOL; c++)
            snprintf(rows[nr].c[c].text, 128, "N/A");
    }
    /* natural widths (longest line + 2 padding) */
    long w[NCOL];
    for (int c = 0; c < NCOL; c++) {
        size_t mx = strlen(head[c]);
        for (int r = 0; r < nr; r++) {
            const char *p = rows[r].c[c].text;
            while (*p) {
                const char *e = strchr(p, '\n');
                size_t l = e ? (size_t)(e - p) : strlen(p);
                size_t dw = dwidth(p, l);
                if (dw > mx)
                    mx = dw;
                p += l;
                if (*p)
                    p++;
            }
        }
        w[c] = (long)mx + 2;
    }
    if (width <= 0)
        width = 80;
    long max_cols = width - (NCOL + 1);
    long total = 0;
    for (int c = 0; c < NCOL; c++)
        total += w[c];
    if (total > max_cols)
        collapse(w, NCOL, max_cols);
    total = 0;
    for (int c = 0; c < NCOL; c++) {
        if (w[c] < 3)
            w[c] = 3;
        total += w[c];
    }
    long tw = total + NCOL + 1;
    int rc = 0;
    /* title, centred over the table */
    const char *title = "NVIDIA GenAI-Perf | LLM Metrics";
    long tl = (long)strlen(title);
    long lp = tw > tl ? (tw - tl) / 2 : 0, rp = tw > tl ? tw - tl - lp : 0;
    rc |= put_rep(b, " ", lp);
    rc |= gp_buf_puts(b, title);
    rc |= put_rep(b, " ", rp);
    rc |= gp_buf_putc(b, '\n');
    /* top border */
    rc |= gp_buf_puts(b, "┏");
    for (int c = 0; c < NCOL; c++) {
        rc |= put_rep(b, "━", w[c]);
        rc |= gp_buf_puts(b, c == NCOL - 1 ? "┓\n" : "┳");
    }
    /* rows: header (heavy verticals) then body */
    for (int r = -1; r < nr; r++) {
        char cl[NCOL][MAXLINES][128];
        int nlines[NCOL], h = 1;
        for (int c = 0; c < NCOL; c++) {
            const char *t = r < 0 ? head[c] : rows[r].c[c].text;
            nlines[c] = wrap(t, (size_t)(w[c] - 2), cl[c]);
            if (nlines[c] > h)
                h = nlines[c];
        }
        const char *v = r < 0 ? "┃" : "│";
        for (int k = 0; k < h; k++) {
            rc |= gp_buf_puts(b, v);
            for (int c = 0; c < NCOL; c++) {
                const char *t = k < nlines[c] ? cl[c][k] : "";
                long tlen = (long)dwidth(t, strlen(t));
                rc |= gp_buf_putc(b, ' ');
                rc |= put_rep(b, " ", w[c] - 2 - tlen); /* right-justified */
                rc |= gp_buf_puts(b, t);
                rc |= gp_buf_putc(b, ' ');
                rc |= gp_buf_puts(b, v);
            }
            rc |= gp_buf_putc(b, '\n');
        }
        if (r < 0) {
            rc |= gp_buf_puts(b, "┡");
            for (int c = 0; c < NCOL; c++) {
                rc |= put_rep(b, "━", w[c]);
                rc |= gp_buf_puts(b, c == NCOL - 1 ? "┩\n" : "╇");
            }
        }
    }
    rc |= gp_buf_puts(b, "└");
    for (int c = 0; c < NCOL; c++) {
        rc |= put_rep(b, "─", w[c]);
        rc |= gp_buf_puts(b, c == NCOL - 1 ? "┘\n" : "┴");
    }
    return rc ? -GP_ENOMEM : 0;
}

int gp_export_console(const struct gp_export_ctx *ctx, struct gp_error *err)
{
    if (!ctx->console)
        return 0;
    int width = ctx->console_width;
    struct winsize ws;
    if (width <= 0 && isatty(fileno(ctx->console)) && ioctl(fileno(ctx->console), TIOCGWINSZ, &ws) == 0 && ws.ws_col)
        width = ws.ws_col; /* rich follows the terminal */
    if (width <= 0) {
        const char *cols = getenv("COLUMNS");
        width = cols ? atoi(cols) : 0;
        if (width <= 0)
            width = 80;
    }
    struct gp_buf b = {0};
    if (gp_export_console_buf(ctx, width, &b)) {
        gp_buf_free(&b);
        return gp_err(err, GP_ENOMEM, "out of memory building the console table");
    }
    fwrite(b.data, 1, b.len, ctx->console);
    fflush(ctx->console);
    gp_buf_free(&b);
    return 0;
}

/* ---- streamed files ---------------------------------------------------- */

struct sink {
    struct gp_atomic_file af;
    struct gp_buf b;
    int bad;
    off_t written, synced;
};

/* how far written data may run ahead of the writeback we have started */
#define WRITEBACK_AT (8u << 20)

static int sink_flush(struct sink *s)
{
    if (s->b.len && fwrite(s->b.data, 1, s->b.len, s->af.fp) != s->b.len)
        s->bad = errno ? errno : EIO;
    s->written += (off_t)s->b.len;
    gp_buf_reset(&s->b);
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    /* The commit fsyncs the file; a gigabyte of dirty pages then meant
     * seconds of waiting for the disk after the last byte was formatted.
     * Starting writeback as we go overlaps the disk with the formatting
     * (it only queues I/O and does not wait; errors still surface at the
     * fsync, so the result is ignored here). Bytes still in stdio's buffer
     * are simply not in the page cache yet. */
    if (!s->bad && s->written - s->synced >= (off_t)WRITEBACK_AT) {
        (void)sync_file_range(fileno(s->af.fp), s->synced, s->written - s->synced, SYNC_FILE_RANGE_WRITE);
        s->synced = s->written;
    }
#endif
    return s->bad;
}

static int sink_finish(struct sink *s, int oom, const char *path, struct gp_error *err)
{
    if (!oom)
        sink_flush(s);
    gp_buf_free(&s->b);
    if (oom || s->bad) {
        gp_atomic_abort(&s->af);
        if (oom)
            return gp_err(err, GP_ENOMEM, "out of memory writing '%s'", path);
        return gp_err(err, GP_EIO, "cannot write '%s': %s", path, strerror(s->bad));
    }
    return gp_atomic_commit(&s->af, err);
}

static uint64_t wall_of(const struct gp_export_ctx *ctx, uint64_t mono)
{
    return gp_record_wall_ns(ctx->store, mono);
}

int gp_export_profile_json(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err)
{
    struct sink s;
    memset(&s, 0, sizeof s);
    int rc = gp_atomic_open(&s.af, path, err);
    if (rc)
        return rc;
    const struct gp_record_store *st = ctx->store;
    const struct gp_metrics_result *m = ctx->m;
    int r = gp_buf_printf(&s.b, "{\"experiments\":[{\"experiment\":{\"mode\":\"%s\",\"value\":",
                          ctx->mode ? ctx->mode : "concurrency");
    if (ctx->mode && strcmp(ctx->mode, "request_rate") == 0)
        r |= gp_py_float(&s.b, ctx->value);
    else
        r |= gp_buf_printf(&s.b, "%llu", (unsigned long long)(ctx->value > 0 ? ctx->value : 0));
    r |= gp_buf_puts(&s.b, "},\"requests\":[");
    int first = 1;
    /* only requests the metrics used: PA aborts a run on any failure, so a
     * PA export never holds one; they are all in <stem>_records.jsonl */
    for (size_t i = 0; i < m->n_reqs && !r; i++) {
        const struct gp_req_metrics *q = &m->reqs[i];
        if (!(q->flags & GP_RQ_OK))
            continue;
        const struct gp_record *rec = &st->recs[q->rec];
        r |= first ? PUTS(&s.b, "{\"timestamp\":") : PUTS(&s.b, ",{\"timestamp\":");
        r |= put_u64(&s.b, wall_of(ctx, rec->t_start_ns));
        r |= PUTS(&s.b, ",\"request_inputs\":{\"payload\":");
        first = 0;
        const struct gp_dataset_entry *e =
            (ctx->ds && rec->entry < ctx->ds->n) ? &ctx->ds->entries[rec->entry] : NULL;
        if (e)
            r |= put_jstr(&s.b, e->payload, e->payload_len);
        else
            r |= PUTS(&s.b, "\"\"");
        r |= PUTS(&s.b, "},\"response_timestamps\":[");
        for (uint32_t c = 0; c < rec->n_chunks; c++) {
            if (c)
                r |= gp_buf_putc(&s.b, ',');
            r |= put_u64(&s.b, wall_of(ctx, gp_record_chunk(st, rec, c)->t_ns));
        }
        r |= PUTS(&s.b, "],\"response_outputs\":[");
        for (uint32_t c = 0; c < rec->n_chunks; c++) {
            const struct gp_chunk *ch = gp_record_chunk(st, rec, c);
            r |= c ? PUTS(&s.b, ",{\"response\":") : PUTS(&s.b, "{\"response\":");
            r |= put_jstr(&s.b, gp_record_bytes(st, ch), ch->len);
            r |= gp_buf_putc(&s.b, '}');
        }
        r |= gp_buf_puts(&s.b, "]}");
        if (s.b.len >= FLUSH_AT && sink_flush(&s))
            break;
    }
    r |= gp_buf_puts(&s.b, "],\"window_boundaries\":[");
    if (m->window_end_ns)
        r |= gp_buf_printf(&s.b, "%llu,%llu", (unsigned long long)wall_of(ctx, m->window_start_ns),
                           (unsigned long long)wall_of(ctx, m->window_end_ns));
    r |= gp_buf_printf(&s.b, "]}],\"version\":\"genperf %s\",\"service_kind\":", GP_VERSION);
    const char *sk = ctx->service_kind ? ctx->service_kind : "openai";
    const char *ep = ctx->endpoint ? ctx->endpoint : "v1/chat/completions";
    while (*ep == '/')
        ep++; /* GenAI-Perf's endpoint field has no leading slash */
    r |= gp_buf_json_str(&s.b, sk, strlen(sk));
    r |= gp_buf_puts(&s.b, ",\"endpoint\":");
    r |= gp_buf_json_str(&s.b, ep, strlen(ep));
    r |= gp_buf_putc(&s.b, '}');
    return sink_finish(&s, r != 0, path, err);
}

/* key is the literal ",\"name\":" */
static int put_opt(struct gp_buf *b, const char *key, size_t klen, int64_t v)
{
    int r = put_lit(b, key, klen);
    return r | (v < 0 ? PUTS(b, "null") : put_i64(b, v));
}
#define OPT(b, name, v) put_opt((b), ",\"" name "\":", sizeof(",\"" name "\":") - 1, (v))

int gp_export_records_jsonl(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err)
{
    struct sink s;
    memset(&s, 0, sizeof s);
    int rc = gp_atomic_open(&s.af, path, err);
    if (rc)
        return rc;
    const struct gp_record_store *st = ctx->store;
    const struct gp_metrics_result *m = ctx->m;
    size_t k = 0; /* walks m->reqs, which is in store order without warmups */
    int r = 0;
    for (size_t i = 0; i < st->n && !r; i++) {
        const struct gp_record *rec = &st->recs[i];
        const struct gp_req_metrics *q = NULL;
        if (!(rec->flags & GP_REC_WARMUP) && k < m->n_reqs && m->reqs[k].rec == i)
            q = &m->reqs[k++];
        r |= PUTS(&s.b, "{\"request_index\":");
        r |= put_u64(&s.b, i);
        r |= OPT(&s.b, "entry", rec->entry);
        r |= OPT(&s.b, "t_start_ns", (int64_t)wall_of(ctx, rec->t_start_ns));
        r |= OPT(&s.b, "t_end_ns", (int64_t)wall_of(ctx, rec->t_end_ns ? rec->t_end_ns : rec->t_start_ns));
        int failed;
        const char *etext = NULL;
        size_t elen = 0;
        if (q) {
            failed = q->fail != GP_FAIL_NONE;
            if (q->err_len) {
                etext = m->text + q->err_off;
                elen = q->err_len;
            }
        } else {
            failed = (rec->flags & (GP_REC_FAILED | GP_REC_TIMEOUT | GP_REC_CANCELLED)) || rec->http_status == 0 ||
                     rec->http_status >= 400;
            if (rec->err_len) {
                etext = st->bytes.data + rec->err_off;
                elen = rec->err_len;
            }
        }
        r |= failed ? PUTS(&s.b, ",\"status\":\"failed\"") : PUTS(&s.b, ",\"status\":\"ok\"");
        r |= OPT(&s.b, "http_status", rec->http_status ? rec->http_status : -1);
        r |= PUTS(&s.b, ",\"error\":");
        r |= etext ? put_jstr(&s.b, etext, elen) : PUTS(&s.b, "null");
        r |= PUTS(&s.b, ",\"fail_kind\":");
        if (q && q->fail) {
            const char *fk = gp_fail_kind_name(q->fail);
            r |= gp_buf_putc(&s.b, '"') | gp_buf_puts(&s.b, fk) | gp_buf_putc(&s.b, '"');
        } else {
            r |= PUTS(&s.b, "null");
        }
        r |= (rec->flags & GP_REC_WARMUP) ? PUTS(&s.b, ",\"warmup\":true") : PUTS(&s.b, ",\"warmup\":false");
        if (q) {
            r |= OPT(&s.b, "ttft_ns", q->ttft_ns);
            r |= OPT(&s.b, "ttst_ns", q->ttst_ns);
            r |= OPT(&s.b, "request_latency_ns", q->latency_ns);
            r |= OPT(&s.b, "itl_ns", q->itl_ns);
            r |= OPT(&s.b, "isl", q->isl);
            r |= OPT(&s.b, "osl", q->osl);
            r |= OPT(&s.b, "osl_asked", q->osl_asked);
            r |= (q->flags & GP_RQ_OSL_FROM_SERVER) ? PUTS(&s.b, ",\"osl_source\":\"server\"")
                                                    : PUTS(&s.b, ",\"osl_source\":\"tokenizer\"");
            r |= OPT(&s.b, "server_prompt_tokens", q->server_prompt_tokens);
            r |= OPT(&s.b, "server_completion_tokens", q->server_completion_tokens);
            r |= OPT(&s.b, "content_chunks", q->content_chunks);
            /* every content chunk's time, ns after the request start */
            r |= PUTS(&s.b, ",\"content_ns\":[");
            for (uint32_t c = 0; c < q->content_chunks && q->ct_first + c < m->n_content_ns; c++) {
                if (c)
                    r |= gp_buf_putc(&s.b, ',');
                r |= put_u64(&s.b, m->content_ns[q->ct_first + c] - rec->t_start_ns);
            }
            r |= gp_buf_putc(&s.b, ']');
            r |= OPT(&s.b, "reasoning_tokens", q->reasoning_tokens);
            r |= OPT(&s.b, "events", q->events);
            r |= OPT(&s.b, "bad_events", q->bad_events);
            r |= (q->flags & GP_RQ_STREAMED) ? PUTS(&s.b, ",\"streamed\":true") : PUTS(&s.b, ",\"streamed\":false");
            r |= (q->flags & GP_RQ_NO_DONE) ? PUTS(&s.b, ",\"done\":false") : PUTS(&s.b, ",\"done\":true");
            r |= (q->flags & GP_RQ_OSL_MISMATCH) ? PUTS(&s.b, ",\"osl_mismatch\":true")
                                                 : PUTS(&s.b, ",\"osl_mismatch\":false");
        } else {
            r |= PUTS(&s.b, ",\"ttft_ns\":null,\"ttst_ns\":null,\"request_latency_ns\":null,\"itl_ns\":null"
                            ",\"isl\":null,\"osl\":null,\"osl_asked\":null,\"osl_source\":null"
                            ",\"server_prompt_tokens\":null,\"server_completion_tokens\":null"
                            ",\"content_chunks\":null,\"content_ns\":null,\"reasoning_tokens\":null,\"events\":null,\"bad_events\":null"
                            ",\"streamed\":null,\"done\":null,\"osl_mismatch\":null");
        }
        r |= OPT(&s.b, "n_chunks", rec->n_chunks);
        r |= OPT(&s.b, "worker", rec->worker);
        r |= OPT(&s.b, "slot", rec->slot);
        r |= PUTS(&s.b, "}\n");
        if (s.b.len >= FLUSH_AT && sink_flush(&s))
            break;
    }
    return sink_finish(&s, r != 0, path, err);
}

/* ---- <stem>_genperf.json ----------------------------------------------- */

static json_t *stats_json(const struct gp_stats *s, const char *unit)
{
    static const char *const pk[GP_NPCT] = {"p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"};
    if (!s->present)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "unit", json_string(unit));
    json_object_set_new(o, "count", json_integer((json_int_t)s->n));
    json_object_set_new(o, "avg", json_real(s->avg));
    for (int i = 0; i < GP_NPCT; i++)
        json_object_set_new(o, pk[i], json_real(s->p[i]));
    json_object_set_new(o, "min", json_real(s->min));
    json_object_set_new(o, "max", json_real(s->max));
    json_object_set_new(o, "std", json_real(s->std));
    return o;
}

static json_t *num_or_null(double v) { return v < 0 ? json_null() : json_real(v); }

int gp_export_genperf_json(const struct gp_export_ctx *ctx, const char *path, struct gp_error *err)
{
    const struct gp_metrics_result *m = ctx->m;
    const struct gp_record_store *st = ctx->store;
    json_t *o = json_object();
    json_object_set_new(o, "genperf_version", json_string(GP_VERSION));
    json_object_set_new(o, "genai_perf_compat_version", json_string(GP_GENAI_PERF_COMPAT_VERSION));
    uint64_t t0 = ctx->start_wall_ns, t1 = ctx->end_wall_ns;
    if (!t0)
        t0 = st->wall0_ns;
    if (!t1) {
        uint64_t mx = st->mono0_ns;
        for (size_t i = 0; i < st->n; i++)
            if (st->recs[i].t_end_ns > mx)
                mx = st->recs[i].t_end_ns;
        t1 = gp_record_wall_ns(st, mx);
    }
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) == 0 && host[0])
        json_object_set_new(o, "host", json_string(host));
    json_object_set_new(o, "start_wall_ns", json_integer((json_int_t)t0));
    json_object_set_new(o, "end_wall_ns", json_integer((json_int_t)t1));
    json_object_set_new(o, "mode", json_string(ctx->mode ? ctx->mode : "concurrency"));
    if (ctx->mode && strcmp(ctx->mode, "request_rate") == 0)
        json_object_set_new(o, "value", json_real(ctx->value));
    else
        json_object_set_new(o, "value", json_integer((json_int_t)ctx->value));
    json_object_set_new(o, "endpoint", json_string(ctx->endpoint ? ctx->endpoint : "v1/chat/completions"));
    json_object_set_new(o, "streaming", json_boolean(ctx->streaming));

    size_t nwarm = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->recs[i].flags & GP_REC_WARMUP)
            nwarm++;
    json_t *rq = json_object();
    json_object_set_new(rq, "measured", json_integer((json_int_t)m->n_reqs));
    json_object_set_new(rq, "ok", json_integer((json_int_t)m->n_ok));
    json_object_set_new(rq, "failed", json_integer((json_int_t)m->n_failed));
    json_object_set_new(rq, "counted", json_integer((json_int_t)m->stats[GP_M_REQUEST_COUNT].n));
    json_object_set_new(rq, "ok_without_content", json_integer((json_int_t)m->n_no_content));
    json_object_set_new(rq, "warmup", json_integer((json_int_t)(ctx->n_warmup ? ctx->n_warmup : nwarm)));
    json_object_set_new(rq, "sent", json_integer((json_int_t)(ctx->n_sent ? ctx->n_sent : st->n)));
    json_object_set_new(rq, "retried_stale_connection", json_integer((json_int_t)ctx->n_retried));
    json_object_set_new(rq, "streams_without_done", json_integer((json_int_t)m->n_no_done));
    json_object_set_new(rq, "osl_mismatch", json_integer((json_int_t)m->n_osl_mismatch));
    json_object_set_new(rq, "with_server_usage", json_integer((json_int_t)m->n_with_usage));
    json_object_set_new(rq, "malformed_events", json_integer((json_int_t)m->n_bad_events));
    json_object_set_new(o, "requests", rq);

    json_t *fk = json_object();
    for (int k = 1; k < GP_FAIL__COUNT; k++)
        json_object_set_new(fk, gp_fail_kind_name(k), json_integer((json_int_t)m->fail_counts[k]));
    json_object_set_new(o, "failures", fk);
    /* status histogram of failed HTTP answers */
    json_t *hs = json_object();
    for (size_t i = 0; i < m->n_reqs; i++) {
        if (m->reqs[i].fail != GP_FAIL_HTTP)
            continue;
        char key[16];
        snprintf(key, sizeof key, "%d", m->reqs[i].http_status);
        json_t *c = json_object_get(hs, key);
        json_object_set_new(hs, key, json_integer(c ? json_integer_value(c) + 1 : 1));
    }
    json_object_set_new(o, "http_error_statuses", hs);

    size_t from_server = 0;
    for (size_t i = 0; i < m->n_reqs; i++)
        if (m->reqs[i].flags & GP_RQ_OSL_FROM_SERVER)
            from_server++;
    json_t *isl = json_object();
    json_object_set_new(isl, "client_avg", num_or_null(m->isl_client_avg));
    json_object_set_new(isl, "server_prompt_tokens_avg", num_or_null(m->isl_server_avg));
    json_object_set_new(isl, "client_source", json_string("tokenizer: prompt message contents joined by spaces, "
                                                          "no chat template (GenAI-Perf)"));
    json_object_set_new(isl, "server_source", json_string("usage.prompt_tokens (includes the chat template)"));
    json_object_set_new(o, "isl", isl);
    json_t *osl = json_object();
    const struct gp_stats *os = &m->stats[GP_M_OSL];
    json_object_set_new(osl, "client_avg", os->present ? json_real(os->avg) : json_null());
    json_object_set_new(osl, "server_completion_tokens_avg", num_or_null(m->osl_server_avg));
    json_object_set_new(osl, "source", json_string(from_server == 0 ? "tokenizer"
                                                   : from_server == m->n_reqs ? "server usage.completion_tokens"
                                                                              : "mixed"));
    json_object_set_new(osl, "requests_counted_by_server", json_integer((json_int_t)from_server));
    json_object_set_new(o, "osl", osl);
    json_object_set_new(o, "tokenizer_source", ctx->tokenizer_source ? json_string(ctx->tokenizer_source) : json_null());

    json_object_set_new(o, "inter_chunk_latency", stats_json(&m->inter_chunk, "ms"));
    json_t *win = json_object();
    if (m->window_end_ns) {
        json_object_set_new(win, "start_wall_ns", json_integer((json_int_t)gp_record_wall_ns(st, m->window_start_ns)));
        json_object_set_new(win, "end_wall_ns", json_integer((json_int_t)gp_record_wall_ns(st, m->window_end_ns)));
    }
    json_object_set_new(win, "duration_s", json_real(m->duration_s));
    json_object_set_new(o, "window", win);
    json_t *cl = json_object();
    double warn_at = ctx->client_busy_warn > 0 ? ctx->client_busy_warn : 0.8;
    json_object_set_new(cl, "busy_fraction", num_or_null(ctx->client_busy_fraction));
    json_object_set_new(cl, "busy_warn_threshold", json_real(warn_at));
    json_object_set_new(cl, "busy_warning", json_boolean(ctx->client_busy_fraction >= warn_at));
    json_object_set_new(o, "client", cl);
    if (ctx->telemetry_summary)
        json_object_set(o, "telemetry", (json_t *)ctx->telemetry_summary);
    json_t *names = json_object();
    json_object_set_new(names, "inter_token_latency", json_string("(latency - TTFT) / (OSL - 1): vLLM/SGLang TPOT, AIPerf ITL"));
    json_object_set_new(names, "inter_chunk_latency", json_string("gaps between content chunks: vLLM/SGLang ITL, AIPerf ICL"));
    json_object_set_new(o, "metric_names", names);

    struct gp_buf b = {0};
    int rc = gp_json_dump(&b, o, 2, 0, GP_JSON_PYTHON);
    json_decref(o);
    if (!rc)
        rc = gp_buf_putc(&b, '\n');
    return write_buf(path, &b, rc, err);
}

/* ---- all --------------------------------------------------------------- */

struct pe_job {
    const struct gp_export_ctx *ctx;
    char path[4096];
    struct gp_error err;
    int rc;
};

static void *pe_thread(void *arg)
{
    struct pe_job *j = arg;
    j->rc = gp_export_profile_json(j->ctx, j->path, &j->err);
    return NULL;
}

int gp_export_all(const struct gp_export_ctx *ctx, struct gp_error *err)
{
    if (!ctx->run_dir || !ctx->store || !ctx->m)
        return gp_err(err, GP_EINVAL, "export: run_dir, store and metrics are required");
    int rc = gp_mkdir_p(ctx->run_dir, err);
    if (rc)
        return rc;
    const char *pef = ctx->profile_export_file ? ctx->profile_export_file : "profile_export.json";
    const char *slash = strrchr(pef, '/');
    if (slash)
        pef = slash + 1;
    char stem[1024], path[4096], name[1200];
    gp_export_stem(pef, stem, sizeof stem);
    if ((rc = gp_export_console(ctx, err)))
        return rc;
    struct pe_job *job = calloc(1, sizeof *job);
    if (!job)
        return gp_err(err, GP_ENOMEM, "out of memory starting the export");
    job->ctx = ctx;
    if (gp_path_join(job->path, sizeof job->path, ctx->run_dir, pef)) {
        free(job);
        return gp_err(err, GP_EINVAL, "run directory path '%s' is too long", ctx->run_dir);
    }
    /* the raw profile export is by far the largest file: write it on a
     * second thread while the summaries and the records file are written
     * here (both only read the store and the metrics) */
    pthread_t th;
    int threaded = pthread_create(&th, NULL, pe_thread, job) == 0;
    if (!threaded)
        pe_thread(job);
    snprintf(name, sizeof name, "%s_genai_perf.json", stem);
    gp_path_join(path, sizeof path, ctx->run_dir, name);
    rc = gp_export_genai_perf_json(ctx, path, err);
    if (!rc) {
        snprintf(name, sizeof name, "%s_genai_perf.csv", stem);
        gp_path_join(path, sizeof path, ctx->run_dir, name);
        rc = gp_export_genai_perf_csv(ctx, path, err);
    }
    if (!rc) {
        snprintf(name, sizeof name, "%s_records.jsonl", stem);
        gp_path_join(path, sizeof path, ctx->run_dir, name);
        rc = gp_export_records_jsonl(ctx, path, err);
    }
    if (!rc) {
        snprintf(name, sizeof name, "%s_genperf.json", stem);
        gp_path_join(path, sizeof path, ctx->run_dir, name);
        rc = gp_export_genperf_json(ctx, path, err);
    }
    if (threaded)
        pthread_join(th, NULL);
    if (!rc && job->rc) {
        rc = job->rc;
        if (err)
            *err = job->err;
    }
    free(job);
    return rc;
}
