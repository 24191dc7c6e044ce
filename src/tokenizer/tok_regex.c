/* tokenizer/tok_regex.c — the Split/Replace regexes through PCRE2 (JIT, UTF, UCP).
 *
 * HF compiles these with Oniguruma, whose \s is Unicode White_Space. PCRE2's
 * UCP \s also accepts U+180E, so \s and \S are rewritten to the explicit
 * White_Space class before compiling; that makes PCRE2 agree with HF on every
 * code point assigned up to Unicode 14 (see shared/spec/tokenizer.md §0).
 * Owns: re->code and re->md (tk_regex_free). */
#include "tokenizer/tok_internal.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

#define WS_BODY "\\t-\\r\\x{20}\\x{85}\\p{Z}"

static int rewrite(const char *p, size_t n, struct gp_buf *o)
{
    int in_class = 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < n) {
            char e = p[i + 1];
            int r = 0;
            if (e == 's')
                r = in_class ? gp_buf_puts(o, WS_BODY) : gp_buf_puts(o, "[" WS_BODY "]");
            else if (e == 'S' && !in_class)
                r = gp_buf_puts(o, "[^" WS_BODY "]");
            else
                r = gp_buf_append(o, p + i, 2);
            if (r)
                return r;
            i++;
            continue;
        }
        if (!in_class && c == '[') {
            in_class = 1;
            if (gp_buf_putc(o, c))
                return -GP_ENOMEM;
            /* a ']' right after '[' or '[^' is a literal */
            if (i + 1 < n && p[i + 1] == '^') {
                if (gp_buf_putc(o, '^'))
                    return -GP_ENOMEM;
                i++;
            }
            if (i + 1 < n && p[i + 1] == ']') {
                if (gp_buf_putc(o, ']'))
                    return -GP_ENOMEM;
                i++;
            }
            continue;
        }
        if (in_class && c == '[' && i + 1 < n && p[i + 1] == ':') {
            /* POSIX class [:alpha:] inside a class */
            const char *end = memchr(p + i + 2, ']', n - i - 2);
            if (end) {
                size_t l = (size_t)(end - (p + i)) + 1;
                if (gp_buf_append(o, p + i, l))
                    return -GP_ENOMEM;
                i += l - 1;
                continue;
            }
        }
        if (in_class && c == ']')
            in_class = 0;
        if (gp_buf_putc(o, c))
            return -GP_ENOMEM;
    }
    return 0;
}

int tk_regex_compile(struct tk_regex *re, const char *pat, size_t len, int literal,
                     const char *what, struct gp_error *err)
{
    memset(re, 0, sizeof *re);
    struct gp_buf b = {0};
    const char *src = pat;
    size_t slen = len;
    if (!literal) {
        if (rewrite(pat, len, &b)) {
            gp_buf_free(&b);
            return gp_err(err, GP_ENOMEM, "out of memory compiling a regex");
        }
        src = b.data ? b.data : "";
        slen = b.len;
    }
    int ec;
    PCRE2_SIZE eo;
    /* PCRE2_LITERAL allows no UCP (and needs none) */
    uint32_t flags = literal ? (PCRE2_UTF | PCRE2_LITERAL) : (PCRE2_UTF | PCRE2_UCP);
    re->code = pcre2_compile((PCRE2_SPTR)src, slen, flags, &ec, &eo, NULL);
    gp_buf_free(&b);
    if (!re->code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        return gp_err(err, GP_ENOTSUP, "%s: regex /%.*s/ does not compile with PCRE2 at offset %zu: %s",
                      what, (int)(len > 200 ? 200 : len), pat, (size_t)eo, (char *)msg);
    }
    /* JIT is an accelerator only: if it is unavailable the interpreter gives
     * the same matches, just slower. */
    re->jit = pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE) == 0;
    re->md = pcre2_match_data_create_from_pattern(re->code, NULL);
    if (!re->md) {
        tk_regex_free(re);
        return gp_err(err, GP_ENOMEM, "out of memory compiling a regex");
    }
    return 0;
}

int tk_regex_next(struct tk_regex *re, const char *s, size_t n, size_t start, size_t *ms, size_t *me)
{
    while (start <= n) {
        int rc = re->jit ? pcre2_jit_match(re->code, (PCRE2_SPTR)s, n, start, 0, re->md, NULL)
                         : pcre2_match(re->code, (PCRE2_SPTR)s, n, start, PCRE2_NO_UTF_CHECK, re->md, NULL);
        if (rc == PCRE2_ERROR_NOMATCH)
            return 0;
        if (rc < 0)
            return -GP_EINVAL;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(re->md);
        if (ov[1] > ov[0]) {
            *ms = ov[0];
            *me = ov[1];
            return 1;
        }
        /* an empty match yields an empty piece, which HF drops: step one
         * char past it, as find_iter does */
        size_t p = ov[0];
        if (p >= n)
            return 0;
        size_t l = gp_utf8_len((const unsigned char *)s + p, n - p);
        start = p + (l ? l : 1);
    }
    return 0;
}

void tk_regex_free(struct tk_regex *re)
{
    if (re->md)
        pcre2_match_data_free(re->md);
    if (re->code)
        pcre2_code_free(re->code);
    re->md = NULL;
    re->code = NULL;
}
