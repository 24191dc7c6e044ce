/* core/fsutil.h — files the way artifacts need them: atomic, whole, checked.
 *
 * Owns nothing beyond what each function documents. Every artifact genperf
 * writes goes through gp_write_file_atomic (temp file in the same directory,
 * fsync, rename) so a crash or Ctrl-C never leaves a half-written file under
 * the final name.
 */
#ifndef GP_CORE_FSUTIL_H
#define GP_CORE_FSUTIL_H

#include <stddef.h>
#include <stdio.h>

struct gp_error;

/* mkdir -p; 0 or -GP_EIO with the path in the message. */
int gp_mkdir_p(const char *path, struct gp_error *err);

/* Writes len bytes to path atomically (path.tmp.PID then rename). */
int gp_write_file_atomic(const char *path, const void *data, size_t len, struct gp_error *err);

/* Streaming variant for large artifacts: gp_atomic_open gives a FILE* on a
 * temp file; gp_atomic_commit flushes, fsyncs, closes and renames it onto
 * path; gp_atomic_abort closes and unlinks it. Exactly one of commit/abort
 * must be called. */
struct gp_atomic_file {
    FILE *fp;
    char tmp[4096];
    char path[4096];
};
int gp_atomic_open(struct gp_atomic_file *af, const char *path, struct gp_error *err);
int gp_atomic_commit(struct gp_atomic_file *af, struct gp_error *err);
void gp_atomic_abort(struct gp_atomic_file *af);

/* Reads a whole file into a malloc'd NUL-terminated buffer (*out, caller
 * frees); *len_out (optional) gets its length. */
int gp_read_file(const char *path, char **out, size_t *len_out, struct gp_error *err);

/* 1 if path exists and is a regular file / a directory. */
int gp_is_file(const char *path);
int gp_is_dir(const char *path);

/* Joins a and b with one '/' into out (size outsz); -GP_EINVAL if too long. */
int gp_path_join(char *out, size_t outsz, const char *a, const char *b);

#endif
