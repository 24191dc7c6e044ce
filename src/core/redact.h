/* core/redact.h — which HTTP headers are secrets, and their redacted spelling.
 *
 * Why one module: a bearer token must never reach an artifact, a log line, a
 * database row or a page, and every writer (export, ingest, runner, report)
 * has to agree on what counts as secret. GenAI-Perf writes `-H` values
 * verbatim into input_config.header; genperf writes "Name: ***" instead.
 *
 * Secret by default (case-insensitive): Authorization, Proxy-Authorization,
 * api-key, x-api-key, Cookie, Set-Cookie. A caller adds names the user listed
 * with --redact-header through struct gp_redact (borrowed strings; nothing
 * here allocates or frees).
 *
 * URLs carry secrets too: the userinfo of scheme://user:pass@host (a database
 * URL, an endpoint given as https://TOKEN@host). gp_redact_url is the one
 * place that knows how they are shown.
 */
#ifndef GP_CORE_REDACT_H
#define GP_CORE_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#define GP_REDACTED "***"

struct gp_redact {
    const char *const *extra;   /* extra header names (borrowed), may be NULL */
    size_t n_extra;
};

/* True when the header name (n bytes, no colon) is a secret. */
bool gp_redact_is_secret(const struct gp_redact *r, const char *name, size_t n);

/* Writes the header line "Name: value" as it may be shown: unchanged, or
 * "Name: ***" when the name is secret (a line without a colon is copied).
 * Returns the length written, truncating to outsz-1 (always NUL-terminated). */
size_t gp_redact_header_line(const struct gp_redact *r, const char *line, char *out, size_t outsz);

/* Scrubs a secret header's value in place ("Name: ***" padded with NULs), for
 * argv strings so `ps` no longer shows the token. Returns true if it changed. */
bool gp_redact_scrub_in_place(const struct gp_redact *r, char *line);

/* Replaces every occurrence of secret (a key rendered into a command line,
 * e.g. a recipe's {api_key}) in the NUL-terminated text with "***", in place
 * (the text only shrinks; a secret shorter than 3 bytes becomes that many
 * '*'). Returns the number of occurrences. */
size_t gp_redact_mask(char *text, const char *secret);

/* Copies url into out (truncating to outsz-1, always NUL-terminated) with the
 * credentials of its authority hidden: "scheme://user:pass@host/..." becomes
 * "scheme://user:***@host/..." (the user name stays: it says which account)
 * and a lone userinfo, "TOKEN@host", becomes "***@host" (a lone
 * userinfo is as likely a token as a name). Only an '@' before the first '/',
 * '?' or '#' after "://" counts; anything else is copied unchanged. Returns
 * true when something was hidden. */
bool gp_redact_url(const char *url, char *out, size_t outsz);

#endif
