#include "runner/launch.h"
#include "runner/recipe.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int gp_find_executable(const char *name, char *out, size_t outsz)
{
    if (strchr(name, '/')) {
        snprintf(out, outsz, "%s", name);
        return access(name, X_OK) == 0 && gp_is_file(name);
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *e = strchr(path, ':');
        size_t n = e ? (size_t)(e - path) : strlen(path);
        snprintf(out, outsz, "%.*s/%s", (int)n, n ? path : ".", name);
        if (access(out, X_OK) == 0 && gp_is_file(out))
            return 1;
        path += n + (e ? 1 : 0);
    }
    return 0;
}

void gp_log_tail(const char *path, int max_lines, struct gp_buf *out)
{
    char *text;
    size_t len;
    if (gp_read_file(path, &text, &len, NULL)) {
        gp_buf_printf(out, " (log %s is empty or missing)", path);
        return;
    }
    size_t start = len;
    int lines = 0;
    while (start > 0 && lines <= max_lines) {
        start--;
        if (text[start] == '\n' && start + 1 < len)
            lines++;
    }
    if (lines > max_lines)
        start++;
    gp_buf_printf(out, "; last lines of %s:\n", path);
    gp_buf_append(out, text + start, len - start);
    free(text);
}

int gp_server_start(struct gp_server *s, const struct gp_argv *argv, const char *log_path,
                    const char *base_url, struct gp_error *err)
{
    memset(s, 0, sizeof *s);
    char exe[4096];
    if (!gp_find_executable(argv->v[0], exe, sizeof exe))
        return gp_err(err, GP_ENOENT,
                      "server executable '%s' not found on PATH; install the framework, fix PATH, or use "
                      "framework: attach with url: to benchmark a server that is already running",
                      argv->v[0]);
    snprintf(s->log_path, sizeof s->log_path, "%s", log_path);
    snprintf(s->base_url, sizeof s->base_url, "%s", base_url);
    int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return gp_err(err, GP_EIO, "cannot open server log '%s': %s", log_path, strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        return gp_err(err, GP_EIO, "fork failed: %s", strerror(errno));
    }
    if (pid == 0) {
        setsid();
        dup2(fd, 1);
        dup2(fd, 2);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execv(exe, argv->v);
        dprintf(2, "genperf run: cannot execute %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    close(fd);
    s->pid = pid;
    return 0;
}

static size_t collect(char *p, size_t sz, size_t n, void *ud)
{
    struct gp_buf *b = ud;
    if (b->len < (1u << 20))
        gp_buf_append(b, p, sz * n);
    return sz * n;
}

static long http_get_auth(const char *url, const char *api_key, struct gp_buf *body)
{
    CURL *h = curl_easy_init();
    if (!h)
        return -1;
    struct curl_slist *hdr = NULL;
    if (api_key) {
        struct gp_buf a = {0};
        gp_buf_printf(&a, "Authorization: Bearer %s", api_key);
        hdr = curl_slist_append(hdr, a.data);
        gp_buf_free(&a);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    }
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 3000L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, body);
    long code = -1;
    if (curl_easy_perform(h) == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(h);
    curl_slist_free_all(hdr);
    return code;
}

static long http_get(const char *url, struct gp_buf *body)
{
    return http_get_auth(url, NULL, body);
}

int gp_server_check_model(const char *base_url, const char *api_key, const char *want, char *served, size_t servedsz,
                          struct gp_error *err)
{
    char url[1024];
    struct gp_buf body = {0}, ids = {0};
    snprintf(url, sizeof url, "%s/v1/models", base_url);
    long code = http_get_auth(url, api_key, &body);
    json_t *j = code == 200 ? json_loads(body.data ? body.data : "", 0, NULL) : NULL;
    json_t *data = json_object_get(j, "data");
    int found = 0, rc = 0;
    size_t i;
    json_t *m;
    json_array_foreach(data, i, m) {
        const char *id = json_string_value(json_object_get(m, "id"));
        if (!id)
            continue;
        gp_buf_printf(&ids, "%s'%s'", ids.len ? ", " : "", id);
        if (!strcmp(id, want))
            found = 1;
    }
    snprintf(served, servedsz, "%s", ids.data ? ids.data : "");
    if (!json_is_array(data))
        snprintf(served, servedsz, "GET %s answered %s%ld%s", url, code < 0 ? "nothing, code " : "HTTP ", code,
                 code == 200 ? " without a model list" : "");
    else if (!found)
        rc = gp_err(err, GP_EINVAL,
                    "the server at %s serves %s, not '%s', the model every cell would send (it would answer "
                    "404); set engine_args.served_model_name (or model) to the name it serves",
                    base_url, ids.len ? ids.data : "no model", want);
    int no_list = !json_is_array(data);
    json_decref(j);
    gp_buf_free(&body);
    gp_buf_free(&ids);
    return rc == 0 && no_list ? 1 : rc;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int gp_server_wait_ready(struct gp_server *s, const char *health_path, double timeout_s,
                         volatile sig_atomic_t *stop, struct gp_error *err)
{
    char url[1024];
    snprintf(url, sizeof url, "%s%s", s->base_url, health_path);
    uint64_t deadline = gp_now_ns() + (uint64_t)(timeout_s * 1e9);
    long last = -1;
    struct gp_buf body = {0}, msg = {0};
    int rc = 0;
    for (;;) {
        int status;
        pid_t w = waitpid(s->pid, &status, WNOHANG);
        if (w == s->pid) {
            s->pid = 0;
            gp_buf_printf(&msg, "server exited before it was ready (%s %d)",
                          WIFEXITED(status) ? "exit status" : "signal",
                          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            gp_log_tail(s->log_path, 15, &msg);
            rc = gp_err(err, GP_ENET, "%s", msg.data);
            break;
        }
        if (stop && *stop) {
            rc = gp_err(err, GP_EINTR, "interrupted while waiting for the server to become ready");
            break;
        }
        gp_buf_reset(&body);
        last = http_get(url, &body);
        if (last == 200)
            break;
        if (gp_now_ns() > deadline) {
            gp_buf_printf(&msg, "server not ready after %.0f s (GET %s: %s%ld)", timeout_s, url,
                          last < 0 ? "no answer, code " : "HTTP ", last);
            gp_log_tail(s->log_path, 15, &msg);
            rc = gp_err(err, GP_ENET, "%s", msg.data);
            break;
        }
        sleep_ms(200);
    }
    if (rc == 0) {
        snprintf(url, sizeof url, "%s/v1/models", s->base_url);
        gp_buf_reset(&body);
        if (http_get(url, &body) == 200) {
            json_t *j = json_loads(body.data ? body.data : "", 0, NULL);
            const char *id = json_string_value(json_object_get(json_array_get(json_object_get(j, "data"), 0), "id"));
            if (id)
                snprintf(s->model_id, sizeof s->model_id, "%s", id);
            json_decref(j);
        }
    }
    gp_buf_free(&body);
    gp_buf_free(&msg);
    return rc;
}

int gp_server_stop(struct gp_server *s, double timeout_s)
{
    if (s->pid <= 0)
        return -1;
    int status = 0;
    kill(-s->pid, SIGTERM);
    uint64_t deadline = gp_now_ns() + (uint64_t)(timeout_s * 1e9);
    for (;;) {
        pid_t w = waitpid(s->pid, &status, WNOHANG);
        if (w == s->pid || (w < 0 && errno == ECHILD))
            break;
        if (gp_now_ns() > deadline) {
            kill(-s->pid, SIGKILL);
            waitpid(s->pid, &status, 0);
            break;
        }
        sleep_ms(50);
    }
    /* workers that ignored SIGTERM while the leader exited still get SIGKILL */
    kill(-s->pid, SIGKILL);
    s->pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
