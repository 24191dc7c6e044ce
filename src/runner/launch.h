/* runner/launch.h — one server process: start, wait until ready, stop.
 *
 * Owns: struct gp_server (the child's pid, its process group, the log path).
 * The child runs in its own process group (setsid) with stdout and stderr
 * appended to the log, so stopping it signals the whole group: SGLang and
 * TRT-LLM spawn workers that must not outlive the run.
 */
#ifndef GP_RUNNER_LAUNCH_H
#define GP_RUNNER_LAUNCH_H

#include <signal.h>
#include <sys/types.h>

struct gp_error;
struct gp_argv;

struct gp_server {
    pid_t pid;            /* 0 = not running */
    char log_path[4096];
    char base_url[512];   /* http://host:port */
    char model_id[512];   /* first id from /v1/models once ready ("" if none) */
};

/* Starts argv in a new session with output to log_path. Fails with a clear
 * message when argv[0] is not an executable on PATH. */
int gp_server_start(struct gp_server *s, const struct gp_argv *argv, const char *log_path,
                    const char *base_url, struct gp_error *err);

/* Polls until GET base_url+health_path answers 200 (then reads /v1/models),
 * the child exits, *stop becomes non-zero, or timeout_s passes. Failure
 * messages end with the last lines of the log. */
int gp_server_wait_ready(struct gp_server *s, const char *health_path, double timeout_s,
                         volatile sig_atomic_t *stop, struct gp_error *err);

/* GETs base_url/v1/models (with api_key as a bearer token when given: vLLM's
 * --api-key guards it) and checks that want, the model every cell sends, is
 * one of the ids listed. Returns 0 when it is (served: the ids, quoted), 1
 * when the route gives no model list (served: what it answered instead; the
 * caller warns and goes on), or -GP_EINVAL naming what the server serves. */
int gp_server_check_model(const char *base_url, const char *api_key, const char *want, char *served, size_t servedsz,
                          struct gp_error *err);

/* SIGTERM to the process group, wait up to timeout_s, then SIGKILL; reaps it.
 * Safe to call twice. Returns the child's exit status (or -1). */
int gp_server_stop(struct gp_server *s, double timeout_s);

/* Appends up to max_lines of the file's tail to out (for error messages). */
struct gp_buf;
void gp_log_tail(const char *path, int max_lines, struct gp_buf *out);

/* 1 if name resolves to an executable file (on PATH when it has no '/'). */
int gp_find_executable(const char *name, char *out, size_t outsz);

#endif
