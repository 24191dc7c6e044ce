/* report/ui.c — `genperf ui`: the Benchmarks page over libmicrohttpd.
 *
 * Owns: the daemon for the duration of gp_ui_run, and each response body
 * (malloc'd, handed to microhttpd with MHD_RESPMEM_MUST_FREE). The server
 * runs one internal polling thread, so requests are answered one at a time
 * and the single store connection behind src needs no locking. It binds
 * 127.0.0.1 unless told otherwise: results can hold internal model names and
 * URLs, so exposing them is an explicit choice.
 *
 * Every answer is JSON (Content-Type application/json) except the page and
 * its assets; the page carries a CSP that allows only its own scripts, which
 * backs up the rule that data is inserted as text only.
 */
#include "report/report.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const json_ct = "application/json; charset=utf-8";
static const char *const csp =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/* encodeURIComponent, so bundle keys match what app.js asks for. */
static void uri_component(struct gp_buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-_.!~*'()", *p))
            gp_buf_putc(b, (char)*p);
        else
            gp_buf_printf(b, "%%%02X", *p);
    }
}

static int bundle_answer(void *self, const char *path, gp_ui_arg_fn get, void *actx, json_t **out,
                         struct gp_error *err)
{
    json_t *api = json_object_get((json_t *)self, "api");
    struct gp_buf key = {0};
    gp_buf_puts(&key, path);
    const char *id = get(actx, "id"), *ids = get(actx, "ids"), *sc = get(actx, "scenario");
    if (!strncmp(path, "/api/job", 8) && strcmp(path, "/api/jobs") != 0) {
        if (!id || !*id) {
            gp_buf_free(&key);
            return gp_err(err, GP_EINVAL, "%s: missing ?id=JOB", path);
        }
        gp_buf_puts(&key, "?id=");
        uri_component(&key, id);
    } else if (!strcmp(path, "/api/compare")) {
        if (ids && *ids) {
            gp_buf_puts(&key, "?ids=");
            char *dup = strdup(ids), *save = NULL;
            int first = 1;
            for (char *t = dup ? strtok_r(dup, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
                if (!first)
                    gp_buf_putc(&key, ',');
                uri_component(&key, t);
                first = 0;
            }
            free(dup);
        } else if (sc && *sc) {
            gp_buf_puts(&key, "?scenario=");
            uri_component(&key, sc);
        } else {
            gp_buf_free(&key);
            return gp_err(err, GP_EINVAL, "/api/compare: pass ?ids=1,2,... or ?scenario=NAME");
        }
    }
    json_t *v = json_object_get(api, key.data);
    if (!v) {
        int rc = gp_err(err, GP_ENOENT, "%s: not in this artifact set (only the runs it holds, and their full "
                                        "comparison, are available)", key.data);
        gp_buf_free(&key);
        return rc;
    }
    gp_buf_free(&key);
    *out = json_incref(v);
    return 0;
}

static int bundle_bundle(void *self, const char *ids, json_t **out, struct gp_error *err)
{
    (void)ids; /* an artifact set is reported whole: its runs are one sweep */
    (void)err;
    *out = json_incref((json_t *)self);
    return 0;
}

struct gp_ui_src gp_ui_bundle_src(json_t *bundle)
{
    struct gp_ui_src s = {bundle_answer, bundle_bundle, bundle};
    return s;
}

static void json_error_body(struct gp_buf *body, const char *msg)
{
    gp_buf_reset(body);
    gp_buf_puts(body, "{\"error\":");
    gp_buf_json_str(body, msg, strlen(msg));
    gp_buf_puts(body, "}");
}

int gp_ui_route(const struct gp_ui_src *src, const char *path, gp_ui_arg_fn get, void *actx, int *status,
                const char **ctype, struct gp_buf *body, const unsigned char **static_body, size_t *static_len)
{
    *static_body = NULL;
    if (!strcmp(path, "/") || !strcmp(path, "/index.html")) {
        *status = 200;
        *ctype = "text/html; charset=utf-8";
        return gp_page_build(body, GP_PAGE_UI, "Benchmarks", NULL);
    }
    if (!strncmp(path, "/assets/", 8)) {
        *static_body = gp_page_asset(path + 8, static_len, ctype);
        if (*static_body) {
            *status = 200;
            return 0;
        }
        *status = 404;
        *ctype = json_ct;
        json_error_body(body, "no such asset");
        return 0;
    }
    *ctype = json_ct;
    if (!strcmp(path, "/report")) {
        struct gp_error err = {0};
        json_t *b = NULL;
        if (src->bundle(src->self, get(actx, "id"), &b, &err) < 0) {
            *status = err.code == GP_ENOENT ? 404 : err.code == GP_EINVAL ? 400 : 500;
            json_error_body(body, err.msg);
            return 0;
        }
        char *txt = json_dumps(b, JSON_COMPACT | JSON_ENSURE_ASCII);
        json_decref(b);
        if (!txt) {
            *status = 500;
            json_error_body(body, "out of memory");
            return 0;
        }
        int rc = gp_page_build(body, GP_PAGE_REPORT, "genperf report", txt);
        free(txt);
        *status = 200;
        *ctype = "text/html; charset=utf-8";
        return rc;
    }
    if (strncmp(path, "/api/", 5) != 0) {
        *status = 404;
        json_error_body(body, "not found; the page is at /, the JSON endpoints under /api/, reports at /report?id=N "
                              "(docs/report.md)");
        return 0;
    }
    static const char *const known[] = {"/api/jobs", "/api/job", "/api/job/requests", "/api/job/telemetry",
                                        "/api/compare"};
    int ok = 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        ok |= !strcmp(path, known[i]);
    if (!ok) {
        *status = 404;
        json_error_body(body, "unknown endpoint; see docs/report.md for /api/jobs, /api/job, /api/job/requests, "
                              "/api/job/telemetry, /api/compare");
        return 0;
    }
    struct gp_error err = {0};
    json_t *ans = NULL;
    int rc = src->answer(src->self, path, get, actx, &ans, &err);
    if (rc == 0 && !strcmp(path, "/api/jobs")) {
        /* Filtering removes rows from the array in place, and a bundle source
         * answers with its own objects: filter copies (the rows themselves
         * are shared, not changed), or ?model=nope would empty the list for
         * every later request. */
        json_t *own = json_copy(ans), *jobs = json_object_get(ans, "jobs");
        json_decref(ans);
        ans = own;
        if (!own || (jobs && json_object_set_new(own, "jobs", json_copy(jobs)) < 0))
            rc = gp_err(&err, GP_ENOMEM, "out of memory");
    }
    if (rc == 0 && !strcmp(path, "/api/jobs")) {
        struct gp_jobs_filter f = {get(actx, "model"), get(actx, "framework"), get(actx, "hardware"),
                                   get(actx, "from"), get(actx, "to"), get(actx, "sort"), 0};
        const char *order = get(actx, "order");
        f.desc = order && !strcmp(order, "desc");
        rc = gp_jobs_filter_apply(json_object_get(ans, "jobs"), &f, &err);
    }
    if (rc < 0) {
        json_decref(ans);
        *status = err.code == GP_ENOENT ? 404 : err.code == GP_EINVAL ? 400 : 500;
        json_error_body(body, err.msg[0] ? err.msg : "internal error");
        return 0;
    }
    char *txt = json_dumps(ans, JSON_COMPACT);
    json_decref(ans);
    if (!txt) {
        *status = 500;
        json_error_body(body, "out of memory");
        return 0;
    }
    *status = 200;
    rc = gp_buf_puts(body, txt);
    free(txt);
    return rc;
}

/* ---- microhttpd glue ---------------------------------------------------- */

static const char *mhd_arg(void *actx, const char *key)
{
    return MHD_lookup_connection_value((struct MHD_Connection *)actx, MHD_GET_ARGUMENT_KIND, key);
}

/* A query argument with a NUL byte (?model=%00) would read as a shorter
 * string, "" for %00, which the filters take as "no filter": every job would
 * be listed. No real query holds one, so such a request is refused. */
static enum MHD_Result find_nul(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                const char *value, size_t value_size)
{
    (void)kind;
    if (strlen(key) != key_size || (value && strlen(value) != value_size)) {
        *(const char **)cls = key;
        return MHD_NO;
    }
    return MHD_YES;
}

/* Counts the request's Host header lines. RFC 9112 §3.2: a server must
 * answer 400 to a request with more than one; libmicrohttpd keeps them all
 * and MHD_lookup_connection_value returns the first, so a proxy that
 * checked the other would disagree with us about where the request goes. */
static enum MHD_Result count_host(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                  const char *value, size_t value_size)
{
    (void)kind;
    (void)value;
    (void)value_size;
    if (key_size == 4 && !strncasecmp(key, "Host", 4))
        (*(int *)cls)++;
    return MHD_YES;
}

struct server {
    const struct gp_ui_src *src;
    const struct gp_ui_opts *o;
    int loopback; /* bound to 127.x: IP-literal Hosts other than the loopback names are refused too */
};

/* Splits a Host header value into its name (a DNS name, an IPv4 literal or a
 * bracketed IPv6 literal) and checks that anything after it is ":PORT" with
 * PORT 1..65535. Returns the name's length, 0 when the value is malformed. */
static size_t host_name_len(const char *host)
{
    size_t n;
    if (host[0] == '[') {
        n = strspn(host + 1, "0123456789abcdefABCDEF:.");
        if (host[1 + n] != ']')
            return 0;
        n += 2;
    } else {
        n = strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._");
    }
    if (n == 0 || n > 253)
        return 0;
    if (!host[n])
        return n;
    const char *p = host + n + 1;
    size_t d = strspn(p, "0123456789");
    if (host[n] != ':' || d == 0 || d > 5 || p[d] || atol(p) < 1 || atol(p) > 65535)
        return 0;
    return n;
}

int gp_ui_allow_host_check(const char *name, struct gp_error *err)
{
    size_t n = host_name_len(name);
    if (!n || name[n])
        return gp_err(err, GP_EINVAL, "--allow-host %s: give a host name or address without a port "
                                      "(e.g. bench.internal or [fe80::1])", name);
    return 0;
}

/* A page on some web site can point a DNS name it controls at 127.0.0.1 (or
 * at this machine's address) and read this server through the victim's
 * browser (DNS rebinding). Checking the Host header's name defeats that: only
 * the loopback names, the names the user allowed with --allow-host and, when
 * the server is exposed beyond loopback, IP literals (an IP is not a name an
 * attacker can re-point) are answered. The port is not compared: the attacker
 * controls the name, not the port, and a tunnel (ssh -L 9000:localhost:8080,
 * docker -p) legitimately sends its own port, or none for port 80. */
int gp_ui_host_ok(const struct gp_ui_opts *o, int loopback, const char *host)
{
    if (!host)
        return 0;
    size_t n = host_name_len(host);
    if (!n)
        return 0;
    static const char *const local[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
        if (strlen(local[i]) == n && !strncasecmp(host, local[i], n))
            return 1;
    for (size_t i = 0; i < o->n_allow_hosts; i++)
        if (strlen(o->allow_hosts[i]) == n && !strncasecmp(host, o->allow_hosts[i], n))
            return 1;
    if (loopback)
        return 0;
    char name[256];
    memcpy(name, host, n);
    name[n] = '\0';
    unsigned char addr[16];
    if (name[0] == '[') {
        name[n - 1] = '\0';
        return inet_pton(AF_INET6, name + 1, addr) == 1;
    }
    return inet_pton(AF_INET, name, addr) == 1;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **req_cls)
{
    const struct server *srv = cls;
    const struct gp_ui_src *src = srv->src;
    (void)version;
    (void)upload;
    struct MHD_Response *r;
    if (!*req_cls) { /* first call for this request: headers only */
        *req_cls = (void *)1;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0; /* drain and ignore a body; answered below with 405 */
        return MHD_YES;
    }
    int status;
    const char *ctype = json_ct;
    struct gp_buf body = {0};
    const unsigned char *sbody = NULL;
    size_t slen = 0;
    const char *nul_key = NULL;
    MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, find_nul, &nul_key);
    int hosts = 0;
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, count_host, &hosts);
    if (hosts > 1) {
        status = 400;
        json_error_body(&body, "the request has more than one Host header line (RFC 9112 section 3.2); send one");
    } else if (!gp_ui_host_ok(srv->o, srv->loopback, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"))) {
        status = 403;
        json_error_body(&body, "this server answers only requests addressed to localhost, 127.0.0.1 or [::1] "
                               "(or an IP address when --host exposes it); start it with --allow-host NAME to "
                               "serve NAME too (docs/report.md)");
    } else if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        status = 405;
        json_error_body(&body, "only GET is supported");
    } else if (nul_key) {
        char msg[160];
        snprintf(msg, sizeof msg, "query argument '%.64s' holds a NUL byte (%%00); remove it", nul_key);
        status = 400;
        json_error_body(&body, msg);
    } else if (gp_ui_route(src, url, mhd_arg, c, &status, &ctype, &body, &sbody, &slen) < 0) {
        status = 500;
        ctype = json_ct;
        json_error_body(&body, "out of memory");
    }
    if (sbody) {
        r = MHD_create_response_from_buffer(slen, (void *)sbody, MHD_RESPMEM_PERSISTENT);
    } else {
        size_t len = body.len;
        char *data = gp_buf_steal(&body);
        r = MHD_create_response_from_buffer(len, data ? data : (char *)"", data ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
        if (!r)
            free(data);
    }
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    if (!strcmp(url, "/report") && status == 200) {
        /* A download: the report carries its scripts inline, made to be opened from disk. */
        MHD_add_response_header(r, "Content-Disposition", "attachment; filename=\"genperf-report.html\"");
        MHD_add_response_header(r, "Content-Security-Policy", "sandbox");
    } else if (!strncmp(ctype, "text/html", 9)) {
        MHD_add_response_header(r, "Content-Security-Policy", csp);
    }
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ret;
}

int gp_ui_run(const struct gp_ui_opts *o, const struct gp_ui_src *src, struct gp_error *err)
{
    const char *host = o->host && *o->host ? o->host : "127.0.0.1";
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)o->port);
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return gp_err(err, GP_EINVAL, "--host %s: not a numeric IPv4 address (use 127.0.0.1, or 0.0.0.0 for all)", host);
    if (o->port < 0 || o->port > 65535)
        return gp_err(err, GP_EINVAL, "--port %d: must be 0..65535 (0 picks a free one)", o->port);

    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old);

    struct server srv = {src, o, !strncmp(host, "127.", 4)};
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL, NULL, handle,
                                            &srv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                                            MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
    if (!d) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return gp_err(err, GP_ENET, "cannot listen on %s:%d (%s); pick another --port or 0 for a free one", host,
                      o->port, strerror(errno));
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    int port = info ? (int)info->port : o->port;
    char url[128];
    snprintf(url, sizeof url, "http://%s:%d", host, port);
    int rc = 0;
    if (o->port_file) {
        /* Same contract as genperf serve: the URL, no newline, atomically. */
        rc = gp_write_file_atomic(o->port_file, url, strlen(url), err);
    }
    if (rc == 0) {
        if (o->on_listen)
            o->on_listen(url, o->listen_ctx);
        int sig = 0;
        sigwait(&set, &sig);
    }
    MHD_stop_daemon(d);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
