/* core/error.h — the error value every library function fills.
 *
 * Owns: struct gp_error and the helpers that format it. Library code never
 * prints or exits; it returns a negative code and fills *err with one line
 * that names the input that was wrong and how to fix it. Only main() prints.
 * A NULL err is allowed everywhere (the message is then dropped).
 */
#ifndef GP_CORE_ERROR_H
#define GP_CORE_ERROR_H

#include <stdarg.h>

enum gp_errcode {
    GP_OK = 0,
    GP_EINVAL = 1,   /* bad user input (flag, file content) */
    GP_EIO = 2,      /* file or socket I/O failed */
    GP_ENOMEM = 3,
    GP_ENOTSUP = 4,  /* a component we refuse rather than approximate */
    GP_ENOENT = 5,   /* a named file / model / job does not exist */
    GP_ENET = 6,     /* network / HTTP failure */
    GP_EINTR = 7,    /* interrupted by a signal (Ctrl-C) */
    GP_EDB = 8,      /* database failure */
};

struct gp_error {
    int code;        /* enum gp_errcode, 0 when no error */
    char msg[1024];  /* one line, no trailing newline */
};

/* Fills err (if non-NULL) with code and a printf-style message; returns -code
 * so callers can write `return gp_err(err, GP_EINVAL, "...", ...);`. */
int gp_err(struct gp_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int gp_verr(struct gp_error *err, int code, const char *fmt, va_list ap);

/* Prefixes an existing message with context: "ctx: old message". */
int gp_err_prefix(struct gp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void gp_err_clear(struct gp_error *err);

#endif
