#include "core/error.h"

#include <stdio.h>
#include <string.h>

int gp_verr(struct gp_error *err, int code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return -code;
}

int gp_err(struct gp_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = gp_verr(err, code, fmt, ap);
    va_end(ap);
    return r;
}

int gp_err_prefix(struct gp_error *err, const char *fmt, ...)
{
    if (!err)
        return -GP_EINVAL;
    char pre[512], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s: %s", pre, old);
    if (!err->code)
        err->code = GP_EINVAL;
    return -err->code;
}

void gp_err_clear(struct gp_error *err)
{
    if (err) {
        err->code = 0;
        err->msg[0] = '\0';
    }
}
