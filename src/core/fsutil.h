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

/* Removes the temp files of writers that died (SIGKILL, a crash) in dir:
 * entries named NAME.tmp.PID (gp_atomic_open's names) whose PID is no
 * longer a live process (kill(PID, 0) says ESRCH). A live PID's file is
 * kept, even another program's: it may be a writer at work. Returns how
 * many were removed (0 when dir cannot be listed). */
int gp_remove_stale_tmp(const char *dir);

/* Reads a whole file into a malloc'd NUL-terminated buffer (*out, caller
 * frees); *len_out (optional) gets its length. */
int gp_read_file(const char *path, char **out, size_t *len_out, struct gp_error *err);
/* The same with limits, for files a user may hand over unseen (ingest's
 * artifacts, YAML configs): a file longer than max bytes is refused
 * (-GP_EINVAL naming the file and the limit) once max+1 bytes are read, and
 * with GP_READ_REGULAR a FIFO, device or directory is refused before a byte
 * is read (-GP_EINVAL), so neither a pipe nor /dev/zero can hang or exhaust
 * the reader. */
#define GP_READ_REGULAR 1
int gp_read_file_max(const char *path, size_t max, int flags, char **out, size_t *len_out, struct gp_error *err);

/* 1 if path exists and is a regular file / a directory. */
int gp_is_file(const char *path);
int gp_is_dir(const char *path);

/* Joins a and b with one '/' into out (size outsz); -GP_EINVAL if too long. */
int gp_path_join(char *out, size_t outsz, const char *a, const char *b);
/* The sorted directory listing (GenAI-Perf walks Path.iterdir(), whose order
 * is unspecified; sorting makes reports, merges and comparisons reproducible):
 * the names of dir's entries, dot files left out, for which keep(path, name,
 * arg) is non-zero (keep NULL: all), in strcmp order. path is dir/name; an
 * entry whose path would not fit 4096 bytes is passed over. *names_out is a
 * malloc'd array of *n_out malloc'd strings (NULL when none): free it with
 * gp_dir_list_free. 0; -GP_ENOENT when dir cannot be opened, -GP_ENOMEM (err
 * names dir; callers that word it for their user overwrite it; on
 * -GP_ENOENT errno is left as opendir set it). */
int gp_dir_list(const char *dir, int (*keep)(const char *path, const char *name, void *arg), void *arg,
                char ***names_out, size_t *n_out, struct gp_error *err);
void gp_dir_list_free(char **names, size_t n);
/* The JSONL read loop of the artifact readers (report's telemetry series and
 * time slices, compare's records): calls fn(obj, arg) for each line of text,
 * a JSONL file read whole with gp_read_file. obj is the line parsed, NULL
 * where it is blank or not JSON (the readers pass over such lines: a run cut
 * short can end in half a line); fn must not keep obj (json_incref it to).
 * Stops at the end of text (a final newline adds no line) or when fn returns
 * non-zero, which it returns; else 0. text is not modified, so a caller may
 * walk it twice. */
struct json_t;
/* jansson's error text for a user's input, said in the input's terms: its
 * "\u0000 is not allowed without JSON_ALLOW_NUL" (a flag name the user
 * cannot pass) becomes a sentence naming the NUL character; any other text
 * is returned as it is. Static or jansson's own storage: nothing to free. */
const char *gp_json_why(const char *jansson_text);
int gp_jsonl_each(const char *text, int (*fn)(struct json_t *obj, void *arg), void *arg);

/* The strict, streaming JSONL reader (store's ingest of records and
 * telemetry files, which may hold millions of lines and so are never read
 * whole): one line at a time, its number kept for messages. Unlike
 * gp_jsonl_each a bad line is an error, since ingest must reject the job
 * rather than store part of it. Owns the open file and the line buffer until
 * gp_jsonl_close (always call it after a successful open, also on error);
 * path is the caller's and must outlive the reader.
 * gp_jsonl_open: 0, or -GP_EIO "cannot read PATH: why" (also when PATH is
 * not a regular file: a FIFO would block and /dev/zero never end).
 * gp_jsonl_next: 1 and *out the next line's object (the caller decrefs it),
 * 0 at the end, or -GP_EINVAL naming the path, line and column. Blank lines
 * (and trailing spaces, CR) are passed over. */
struct gp_jsonl_file {
    FILE *fp;
    char *line;
    size_t cap;
    long lineno;       /* of the line last read, 1-based */
    const char *path;  /* for messages */
};
int gp_jsonl_open(struct gp_jsonl_file *jf, const char *path, struct gp_error *err);
int gp_jsonl_next(struct gp_jsonl_file *jf, struct json_t **out, struct gp_error *err);
void gp_jsonl_close(struct gp_jsonl_file *jf);

#endif
