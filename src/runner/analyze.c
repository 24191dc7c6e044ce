/* runner/analyze.c — sweep values and the child runner of `genperf analyze`
 * (the command and its CSV are in cmd_analyze.c). See analyze.h. */
#include "runner/analyze.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct {
    const char *type, *flag;
    int exponential; /* GenAI-Perf's exponential_range_parameters */
} sweeps[] = {
    {"concurrency", "--concurrency", 1},
    {"request_rate", "--request-rate", 1},
    {"input_sequence_length", "--synthetic-input-tokens-mean", 1},
    {"num_dataset_entries", "--num-dataset-entries", 0},
    {"batch_size", "--batch-size", 1},
};

static int find(const char *t)
{
    for (size_t i = 0; t && i < sizeof sweeps / sizeof sweeps[0]; i++)
        if (!strcmp(t, sweeps[i].type))
            return (int)i;
    return -1;
}

const char *gp_sweep_flag(const char *t)
{
    int i = find(t);
    return i < 0 ? NULL : sweeps[i].flag;
}

static int parse_int(const char *s, size_t n, long *out)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int is_pow2(long v) { return v > 0 && (v & (v - 1)) == 0; }

static int floor_log2(long v)
{
    int k = 0;
    while (v > 1) {
        v >>= 1;
        k++;
    }
    return k;
}

int gp_sweep_values(const char *type, const char *list, const char *range, long *out, size_t *n,
                    struct gp_error *err)
{
    int ti = find(type);
    *n = 0;
    if (ti < 0)
        return gp_err(err, GP_EINVAL, "--sweep-type '%s': choose from batch_size, concurrency, num_dataset_entries, "
                                      "input_sequence_length, request_rate", type ? type : "");
    if (list) {
        for (const char *p = list;;) {
            const char *c = strchr(p, ',');
            size_t l = c ? (size_t)(c - p) : strlen(p);
            long v;
            if (parse_int(p, l, &v) < 0)
                return gp_err(err, GP_EINVAL, "--sweep-list '%s': values must be integers, comma-separated", list);
            if (v < 1)
                return gp_err(err, GP_EINVAL, "Values in -sweep-list must be positive");
            if (*n == GP_SWEEP_MAX)
                return gp_err(err, GP_EINVAL, "--sweep-list: at most %d values", GP_SWEEP_MAX);
            out[(*n)++] = v;
            if (!c)
                break;
            p = c + 1;
        }
        return 0;
    }
    long part[3];
    int np = 0;
    for (const char *p = range;; np++) {
        const char *c = strchr(p, ':');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (np == 3 || parse_int(p, l, &part[np]) < 0)
            return gp_err(err, GP_EINVAL, "The format of '--sweep-range' must be min:max or min:max:step.");
        if (!c) {
            np++;
            break;
        }
        p = c + 1;
    }
    if (np < 2)
        return gp_err(err, GP_EINVAL, "The format of '--sweep-range' must be min:max or min:max:step.");
    long mn = part[0], mx = part[1], step = np == 3 ? part[2] : 0;
    if (mn < 1 || mx < 1)
        return gp_err(err, GP_EINVAL, "--sweep-range min/max value must be positive");
    if (np == 3 && step < 1)
        return gp_err(err, GP_EINVAL, "--sweep-range step value must be positive");
    if (mn >= mx)
        return gp_err(err, GP_EINVAL, "--sweep-range max must be greater than min");
    if (ti == 0 && (!is_pow2(mn) || !is_pow2(mx)))
        return gp_err(err, GP_EINVAL, "--sweep-range min/max values must be powers of 2 when sweeping concurrency");
    if (ti == 0 && step)
        return gp_err(err, GP_EINVAL, "--sweep-range step is not supported when sweeping concurrency");
    if (step) {
        for (long v = mn; v <= mx; v += step) {
            if (*n == GP_SWEEP_MAX)
                return gp_err(err, GP_EINVAL, "--sweep-range: more than %d values", GP_SWEEP_MAX);
            out[(*n)++] = v;
        }
    } else if (sweeps[ti].exponential) {
        /* SearchParameters: 2**k for k in log2(min)..log2(max), both truncated */
        for (int k = floor_log2(mn); k <= floor_log2(mx); k++)
            out[(*n)++] = 1L << k;
    } else {
        for (long v = mn; v <= mx; v++) {
            if (*n == GP_SWEEP_MAX)
                return gp_err(err, GP_EINVAL, "--sweep-range: more than %d values (give a step)", GP_SWEEP_MAX);
            out[(*n)++] = v;
        }
    }
    return 0;
}

int gp_self_exe(char *out, size_t sz)
{
    ssize_t n = readlink("/proc/self/exe", out, sz - 1);
    if (n <= 0)
        return -1;
    out[n] = 0;
    return 0;
}

int gp_run_child(char *const *argv) { return gp_run_child_env(argv, NULL, NULL); }

int gp_run_child_env(char *const *argv, const char *env_name, const char *env_value)
{
    fflush(NULL);
    /* Ctrl-C reaches the whole foreground group: the child profile writes
     * what it measured and exits 130, which the caller then reports; we
     * must not die before it does. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, oi, ot;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &oi);
    sigaction(SIGTERM, &ign, &ot);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        /* set in the child only: the parent's environment stays as it was */
        if (env_name && setenv(env_name, env_value, 1) < 0)
            _exit(127);
        execv(argv[0], argv);
        fprintf(stderr, "genperf: cannot execute %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0, rc = -1;
    if (pid > 0) {
        pid_t w;
        while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
            ;
        if (w == pid)
            rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    sigaction(SIGINT, &oi, NULL);
    sigaction(SIGTERM, &ot, NULL);
    return rc;
}

int gp_collect_cell(const char *staging, const char *cell_dir, struct gp_error *err)
{
    DIR *d = opendir(staging);
    if (!d)
        return gp_err(err, GP_EIO, "cell left no artifacts in '%s'", staging);
    struct dirent *de;
    char run[4096] = "";
    while ((de = readdir(d)))
        if (de->d_name[0] != '.')
            gp_path_join(run, sizeof run, staging, de->d_name);
    closedir(d);
    if (!run[0] || !(d = opendir(run)))
        return gp_err(err, GP_EIO, "cell left no run directory in '%s'", staging);
    int rc = gp_mkdir_p(cell_dir, err);
    while (!rc && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char from[8192], to[8192];
        gp_path_join(from, sizeof from, run, de->d_name);
        gp_path_join(to, sizeof to, cell_dir, de->d_name);
        if (rename(from, to) < 0)
            rc = gp_err(err, GP_EIO, "cannot move '%s' to '%s': %s", from, to, strerror(errno));
    }
    closedir(d);
    rmdir(run);
    rmdir(staging);
    return rc;
}

const char *gp_cell_flag_value(const char *arg, const char *name, int *i, int argc, char **argv)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n))
        return NULL;
    if (arg[n] == '=')
        return arg + n + 1;
    if (arg[n] || *i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

void gp_csv_field(struct gp_buf *b, const char *s, int first)
{
    if (!first)
        gp_buf_putc(b, ',');
    if (!strpbrk(s, ",\"\r\n")) {
        gp_buf_puts(b, s);
        return;
    }
    gp_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            gp_buf_putc(b, '"');
        gp_buf_putc(b, *s);
    }
    gp_buf_putc(b, '"');
}
