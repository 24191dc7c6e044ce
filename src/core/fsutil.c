#include "core/fsutil.h"
#include "core/error.h"

#include <dirent.h>
#include <jansson.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gp_mkdir_p(const char *path, struct gp_error *err)
{
    char tmp[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof tmp)
        return gp_err(err, GP_EINVAL, "directory path '%s' is empty or too long", path);
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return gp_err(err, GP_EIO, "cannot create directory '%s': %s", tmp, strerror(errno));
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return gp_err(err, GP_EIO, "cannot create directory '%s': %s", tmp, strerror(errno));
    if (!gp_is_dir(tmp))
        return gp_err(err, GP_EIO, "'%s' exists and is not a directory; remove it or choose another path", tmp);
    return 0;
}

int gp_atomic_open(struct gp_atomic_file *af, const char *path, struct gp_error *err)
{
    memset(af, 0, sizeof *af);
    if (strlen(path) + 32 >= sizeof af->tmp)
        return gp_err(err, GP_EINVAL, "output path '%s' is too long", path);
    snprintf(af->path, sizeof af->path, "%s", path);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmp.%ld", path, (long)getpid());
    af->fp = fopen(af->tmp, "wb");
    if (!af->fp)
        return gp_err(err, GP_EIO, "cannot write '%s': %s (check the directory exists and is writable)",
                      af->tmp, strerror(errno));
    return 0;
}

int gp_atomic_commit(struct gp_atomic_file *af, struct gp_error *err)
{
    int bad = 0;
    if (fflush(af->fp) != 0 || ferror(af->fp))
        bad = errno ? errno : EIO;
    if (!bad && fsync(fileno(af->fp)) != 0 && errno != EINVAL)
        bad = errno;
    if (fclose(af->fp) != 0 && !bad)
        bad = errno ? errno : EIO;
    af->fp = NULL;
    if (!bad && rename(af->tmp, af->path) != 0)
        bad = errno;
    if (bad) {
        unlink(af->tmp);
        return gp_err(err, GP_EIO, "cannot write '%s': %s", af->path, strerror(bad));
    }
    return 0;
}

void gp_atomic_abort(struct gp_atomic_file *af)
{
    if (af->fp)
        fclose(af->fp);
    af->fp = NULL;
    if (af->tmp[0])
        unlink(af->tmp);
}

/* keep() for gp_remove_stale_tmp: NAME.tmp.DIGITS with a dead PID. */
static int stale_tmp(const char *path, const char *name, void *arg)
{
    (void)path;
    (void)arg;
    const char *t = strstr(name, ".tmp.");
    if (!t)
        return 0;
    for (const char *n; (n = strstr(t + 1, ".tmp.")); )
        t = n; /* the last one: NAME.tmp.A.tmp.B is B's */
    const char *d = t + 5;
    if (!*d || strspn(d, "0123456789") != strlen(d) || strlen(d) > 9)
        return 0;
    long pid = strtol(d, NULL, 10);
    if (pid <= 0 || pid == (long)getpid())
        return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int gp_remove_stale_tmp(const char *dir)
{
    char **names;
    size_t n;
    if (gp_dir_list(dir, stale_tmp, NULL, &names, &n, NULL) < 0)
        return 0;
    int removed = 0;
    char path[4096];
    for (size_t i = 0; i < n; i++)
        if (gp_path_join(path, sizeof path, dir, names[i]) == 0 && unlink(path) == 0)
            removed++;
    gp_dir_list_free(names, n);
    return removed;
}

int gp_write_file_atomic(const char *path, const void *data, size_t len, struct gp_error *err)
{
    struct gp_atomic_file af;
    int r = gp_atomic_open(&af, path, err);
    if (r)
        return r;
    if (len && fwrite(data, 1, len, af.fp) != len) {
        int e = errno;
        gp_atomic_abort(&af);
        return gp_err(err, GP_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    return gp_atomic_commit(&af, err);
}

int gp_read_file(const char *path, char **out, size_t *len_out, struct gp_error *err)
{
    return gp_read_file_max(path, SIZE_MAX - 1, 0, out, len_out, err);
}

/* Opens path for reading. With GP_READ_REGULAR the open does not wait (a
 * FIFO with no writer would block open itself forever) and anything that is
 * not a regular file after symlinks are followed is refused, so /dev/zero or
 * a pipe can never be read "to the end". */
static FILE *open_for_read(const char *path, int flags, struct gp_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | ((flags & GP_READ_REGULAR) ? O_NONBLOCK : 0));
    if (fd < 0) {
        gp_err(err, errno == ENOENT ? GP_ENOENT : GP_EIO, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    if (flags & GP_READ_REGULAR) {
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            gp_err(err, GP_EINVAL, "'%s' is not a regular file (a FIFO, device or directory); only regular files "
                   "are read here: copy the artifact to a file", path);
            return NULL;
        }
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0)
            (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        close(fd);
        gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
    }
    return fp;
}

int gp_read_file_max(const char *path, size_t max, int flags, char **out, size_t *len_out, struct gp_error *err)
{
    *out = NULL;
    FILE *fp = open_for_read(path, flags, err);
    if (!fp)
        return err && err->code ? -err->code : -GP_EIO;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(fp);
        return gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
    }
    for (;;) {
        if (len > max) {
            free(buf);
            fclose(fp);
            return gp_err(err, GP_EINVAL, "'%s' is larger than %zu MiB, the limit for this kind of file; "
                          "is it the right file?", path, max >> 20);
        }
        if (len + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(fp);
                return gp_err(err, GP_ENOMEM, "out of memory reading '%s'", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len - 1, fp);
        len += n;
        if (n == 0)
            break;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return gp_err(err, GP_EIO, "error reading '%s'", path);
    }
    buf[len] = '\0';
    *out = buf;
    if (len_out)
        *len_out = len;
    return 0;
}

int gp_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int gp_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int gp_path_join(char *out, size_t outsz, const char *a, const char *b)
{
    size_t la = strlen(a);
    int n;
    if (la == 0)
        n = snprintf(out, outsz, "%s", b);
    else if (a[la - 1] == '/')
        n = snprintf(out, outsz, "%s%s", a, b);
    else
        n = snprintf(out, outsz, "%s/%s", a, b);
    return (n < 0 || (size_t)n >= outsz) ? -GP_EINVAL : 0;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void gp_dir_list_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int gp_dir_list(const char *dir, int (*keep)(const char *path, const char *name, void *arg), void *arg,
                char ***names_out, size_t *n_out, struct gp_error *err)
{
    *names_out = NULL;
    *n_out = 0;
    DIR *d = opendir(dir);
    if (!d) {
        /* errno kept as opendir left it: callers word their own message with it */
        int e = errno;
        gp_err(err, GP_ENOENT, "%s: cannot open the directory: %s", dir, strerror(e));
        errno = e;
        return -GP_ENOENT;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        if (gp_path_join(path, sizeof path, dir, e->d_name) < 0)
            continue;
        if (keep && !keep(path, e->d_name, arg))
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            char **nn = realloc(names, nc * sizeof *nn);
            if (!nn)
                goto oom;
            names = nn;
            cap = nc;
        }
        if (!(names[n] = strdup(e->d_name)))
            goto oom;
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_name);
    *names_out = names;
    *n_out = n;
    return 0;
oom:
    closedir(d);
    gp_dir_list_free(names, n);
    return gp_err(err, GP_ENOMEM, "out of memory listing %s", dir);
}

const char *gp_json_why(const char *jansson_text)
{
    /* genperf's prompts, headers and bodies are C strings: a NUL inside
     * one would cut it short, so the parse refuses it (issue 40 item 5) */
    if (jansson_text && strstr(jansson_text, "JSON_ALLOW_NUL"))
        return "the text holds a NUL character (\\u0000), which genperf does not support in prompts or "
               "requests; remove it";
    return jansson_text;
}

int gp_jsonl_each(const char *text, int (*fn)(struct json_t *obj, void *arg), void *arg)
{
    for (const char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        size_t len = next ? (size_t)(next - line) : strlen(line);
        if (next)
            next++;
        json_t *o = json_loadb(line, len, 0, NULL);
        int rc = fn(o, arg);
        json_decref(o);
        if (rc)
            return rc;
    }
    return 0;
}

int gp_jsonl_open(struct gp_jsonl_file *jf, const char *path, struct gp_error *err)
{
    memset(jf, 0, sizeof *jf);
    jf->path = path;
    jf->fp = open_for_read(path, GP_READ_REGULAR, err);
    if (!jf->fp)
        return -GP_EIO;
    return 0;
}

int gp_jsonl_next(struct gp_jsonl_file *jf, struct json_t **out, struct gp_error *err)
{
    for (;;) {
        ssize_t n = getline(&jf->line, &jf->cap, jf->fp);
        if (n < 0)
            return 0;
        jf->lineno++;
        while (n > 0 && (jf->line[n - 1] == '\n' || jf->line[n - 1] == '\r' || jf->line[n - 1] == ' '))
            jf->line[--n] = '\0';
        if (n == 0)
            continue;
        json_error_t je;
        json_t *v = json_loadb(jf->line, (size_t)n, 0, &je);
        if (!v)
            return gp_err(err, GP_EINVAL, "%s: line %ld: not valid JSON (column %d: %s)", jf->path, jf->lineno,
                          je.column, je.text);
        if (!json_is_object(v)) {
            json_decref(v);
            return gp_err(err, GP_EINVAL, "%s: line %ld: expected a JSON object", jf->path, jf->lineno);
        }
        *out = v;
        return 1;
    }
}

void gp_jsonl_close(struct gp_jsonl_file *jf)
{
    if (jf->fp)
        fclose(jf->fp);
    free(jf->line);
    jf->fp = NULL;
    jf->line = NULL;
}
