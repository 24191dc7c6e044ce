/* core/buf.h — a growable byte buffer (in the spirit of redis' sds, but a
 * plain struct you own).
 *
 * Owns: the bytes in b->data. A zeroed struct gp_buf is a valid empty buffer.
 * data is always NUL-terminated after any append (len excludes the NUL).
 * Free with gp_buf_free(); gp_buf_reset() keeps the capacity for reuse, which
 * is what hot paths do (no allocation per event once warmed up).
 * Append functions return 0, or -GP_ENOMEM if growth failed (buffer intact).
 */
#ifndef GP_CORE_BUF_H
#define GP_CORE_BUF_H

#include <stddef.h>

struct gp_buf {
    char *data;
    size_t len;
    size_t cap;
};

int gp_buf_reserve(struct gp_buf *b, size_t extra);
int gp_buf_append(struct gp_buf *b, const void *p, size_t n);
int gp_buf_puts(struct gp_buf *b, const char *s);
int gp_buf_putc(struct gp_buf *b, char c);
int gp_buf_printf(struct gp_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal (with quotes), escaping as JSON requires;
 * invalid UTF-8 bytes are written as \uFFFD so the output is always valid JSON.
 * gp_json_str(b, s, n, 0) (core/pytext.h), which also has the other styles;
 * defined in pytext.c beside the escaper, so that buf.c calls nothing above it. */
int gp_buf_json_str(struct gp_buf *b, const char *s, size_t n);
void gp_buf_reset(struct gp_buf *b);
void gp_buf_free(struct gp_buf *b);
/* Hands the bytes to the caller (who frees them with free()); b becomes empty. */
char *gp_buf_steal(struct gp_buf *b);

#endif
