/* core/redact.c — see redact.h. */
#include "core/redact.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const default_secret[] = {
    "Authorization", "Proxy-Authorization", "api-key", "x-api-key", "Cookie", "Set-Cookie",
};

static bool name_eq(const char *a, size_t n, const char *b)
{
    return strlen(b) == n && strncasecmp(a, b, n) == 0;
}

/* The name part of "Name: value" without surrounding blanks. */
static size_t trim_name(const char *name, size_t n, const char **start)
{
    while (n > 0 && (*name == ' ' || *name == '\t')) { name++; n--; }
    while (n > 0 && (name[n - 1] == ' ' || name[n - 1] == '\t')) n--;
    *start = name;
    return n;
}

bool gp_redact_is_secret(const struct gp_redact *r, const char *name, size_t n)
{
    const char *s;
    n = trim_name(name, n, &s);
    for (size_t i = 0; i < sizeof default_secret / sizeof *default_secret; i++)
        if (name_eq(s, n, default_secret[i])) return true;
    for (size_t i = 0; r && i < r->n_extra; i++)
        if (r->extra[i] && name_eq(s, n, r->extra[i])) return true;
    return false;
}

size_t gp_redact_header_line(const struct gp_redact *r, const char *line, char *out, size_t outsz)
{
    if (outsz == 0) return 0;
    const char *colon = strchr(line, ':');
    int n;
    if (colon && gp_redact_is_secret(r, line, (size_t)(colon - line)))
        n = snprintf(out, outsz, "%.*s: " GP_REDACTED, (int)(colon - line), line);
    else
        n = snprintf(out, outsz, "%s", line);
    if (n < 0) { out[0] = '\0'; return 0; }
    return (size_t)n < outsz ? (size_t)n : outsz - 1;
}

bool gp_redact_scrub_in_place(const struct gp_redact *r, char *line)
{
    char *colon = strchr(line, ':');
    if (!colon || !gp_redact_is_secret(r, line, (size_t)(colon - line))) return false;
    char *v = colon + 1;
    size_t room = strlen(v);
    /* Keep "Name: ***" when it fits, and blank every byte of the old value. */
    const char *mark = " " GP_REDACTED;
    size_t m = strlen(mark) < room ? strlen(mark) : room;
    memcpy(v, mark, m);
    memset(v + m, 0, room - m);
    return true;
}

size_t gp_redact_mask(char *text, const char *secret)
{
    size_t sl = secret ? strlen(secret) : 0, n = 0;
    if (!sl)
        return 0;
    size_t ml = sl < 3 ? sl : 3;
    char *p;
    while ((p = strstr(text, secret))) {
        memset(p, '*', ml);
        memmove(p + ml, p + sl, strlen(p + sl) + 1);
        text = p + ml;
        n++;
    }
    return n;
}

bool gp_redact_url(const char *url, char *out, size_t outsz)
{
    if (!outsz)
        return false;
    const char *scheme = strstr(url, "://");
    const char *auth = scheme ? scheme + 3 : NULL;
    size_t alen = auth ? strcspn(auth, "/?#") : 0;
    const char *at = auth ? memchr(auth, '@', alen) : NULL;
    if (!at) {
        snprintf(out, outsz, "%s", url);
        return false;
    }
    /* the last '@' of the authority ends the userinfo (a password may hold '@') */
    for (const char *p = at + 1; p < auth + alen; p++)
        if (*p == '@')
            at = p;
    const char *colon = memchr(auth, ':', (size_t)(at - auth));
    if (colon)
        snprintf(out, outsz, "%.*s:" GP_REDACTED "%s", (int)(colon - url), url, at);
    else
        snprintf(out, outsz, "%.*s" GP_REDACTED "%s", (int)(auth - url), url, at);
    return true;
}
