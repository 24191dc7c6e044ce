/* sched/trace.c — --input-file payload:FILE and Mooncake traces as a schedule.
 * Ownership as in sched.h: one gp_trace owns its rows, hash ids and session
 * names; gp_trace_free releases all of them.
 *
 * Row fields (GenAI-Perf 0.0.16 payload_input_retriever.py, AIPerf's
 * MooncakeTrace): "timestamp" (ms), "input_length", "output_length",
 * "hash_ids", "session_id", "delay" (ms), or "text"/"text_input" instead of
 * a length. Every other key is payload data the dataset module passes on.
 */
#include "sched/sched.h"

#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "dataset/promptgen.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ISL 4194304L    /* as dataset/: 4 Mi tokens per prompt */
#define MAX_HASH_IDS 4096u  /* per row, as dataset/ */

/* Session-name interning: open addressing over indices into session_ids. */
struct names {
    int32_t *slot; /* -1 = empty */
    size_t cap;    /* power of two */
};

struct parse {
    const char *name;
    const struct gp_trace_opts *o;
    struct gp_trace *t;
    size_t cap_rows, cap_hash, cap_sess;
    struct names map;
    double *ts;          /* raw timestamp (ms) per row, -1 = none */
    int32_t *last;       /* per session: its latest row */
    double prev_ts;      /* last timestamp seen, for the order check */
    long prev_ts_line;
    struct gp_error *err;
};

/* The longest wait a fixed schedule may ask for (ns): one day. */
#define TRACE_MAX_WAIT_NS 86400e9

static int line_err(struct parse *p, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int line_err(struct parse *p, long line, const char *fmt, ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gp_err(p->err, GP_EINVAL, "%s:%ld: %s", p->name, line, msg);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static int names_rehash(struct parse *p, size_t cap)
{
    int32_t *s = malloc(cap * sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < cap; i++)
        s[i] = -1;
    for (size_t i = 0; i < p->t->nsessions; i++) {
        size_t h = (size_t)fnv1a(p->t->session_ids[i]) & (cap - 1);
        while (s[h] >= 0)
            h = (h + 1) & (cap - 1);
        s[h] = (int32_t)i;
    }
    free(p->map.slot);
    p->map.slot = s;
    p->map.cap = cap;
    return 0;
}

/* Index of session `id`, added when new (*is_new = 1). -1 on no memory. */
static int32_t intern(struct parse *p, const char *id, int *is_new)
{
    struct gp_trace *t = p->t;
    *is_new = 0;
    if ((t->nsessions + 1) * 2 > p->map.cap && names_rehash(p, p->map.cap ? p->map.cap * 2 : 64))
        return -1;
    size_t h = (size_t)fnv1a(id) & (p->map.cap - 1);
    while (p->map.slot[h] >= 0) {
        if (!strcmp(t->session_ids[p->map.slot[h]], id))
            return p->map.slot[h];
        h = (h + 1) & (p->map.cap - 1);
    }
    size_t cap = p->cap_sess;
    if (grow((void **)&t->session_ids, &cap, t->nsessions + 1, sizeof *t->session_ids))
        return -1;
    cap = p->cap_sess;
    if (grow((void **)&t->session_first, &cap, t->nsessions + 1, sizeof *t->session_first))
        return -1;
    cap = p->cap_sess;
    if (grow((void **)&p->last, &p->cap_sess, t->nsessions + 1, sizeof *p->last))
        return -1;
    char *copy = strdup(id);
    if (!copy)
        return -1;
    int32_t idx = (int32_t)t->nsessions++;
    t->session_ids[idx] = copy;
    p->map.slot[h] = idx;
    *is_new = 1;
    return idx;
}

/* Optional non-negative number field: 0 absent, 1 set (*v), <0 error. */
static int num_field(struct parse *p, long line, const json_t *row, const char *key, double *v)
{
    json_t *x = json_object_get(row, key);
    if (!x || json_is_null(x))
        return 0;
    if (!json_is_number(x) || !isfinite(json_number_value(x)))
        return line_err(p, line, "\"%s\" must be a number of milliseconds", key);
    *v = json_number_value(x);
    if (*v < 0)
        return line_err(p, line,
                        "\"%s\" %g is negative; give milliseconds >= 0 (GenAI-Perf passes it on and perf_analyzer "
                        "reads it as unsigned, i.e. waits forever)",
                        key, *v);
    return 1;
}

/* Optional positive integer field (lengths): 0 absent, 1 set, <0 error. */
static int len_field(struct parse *p, long line, const json_t *row, const char *key, long max, int32_t *v)
{
    json_t *x = json_object_get(row, key);
    if (!x || json_is_null(x))
        return 0;
    if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > max)
        return line_err(p, line, "\"%s\" must be an integer from 1 to %ld (tokens)", key, max);
    *v = (int32_t)json_integer_value(x);
    return 1;
}

static int hash_field(struct parse *p, long line, const json_t *row, struct gp_trace_row *r)
{
    json_t *h = json_object_get(row, "hash_ids");
    r->hash_off = p->t->nhash;
    r->nhash = 0;
    if (!h || json_is_null(h))
        return 0;
    if (!json_is_array(h) || json_array_size(h) > MAX_HASH_IDS)
        return line_err(p, line, "\"hash_ids\" must be an array of at most %u integers (block ids)", MAX_HASH_IDS);
    size_t n = json_array_size(h);
    if (grow((void **)&p->t->hash, &p->cap_hash, p->t->nhash + n, sizeof *p->t->hash))
        return gp_err(p->err, GP_ENOMEM, "out of memory reading '%s'", p->name);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(h, i);
        if (!json_is_integer(v))
            return line_err(p, line, "\"hash_ids\" must be an array of at most %u integers (block ids)",
                            MAX_HASH_IDS);
        p->t->hash[p->t->nhash + i] = (int64_t)json_integer_value(v);
    }
    p->t->nhash += n;
    r->nhash = (uint32_t)n;
    return 0;
}

/* "session_id": a non-empty string or an integer (GenAI-Perf's own help shows
 * `"session_id": 1`). Sets r->session / r->turn and links the previous turn. */
static int session_field(struct parse *p, long line, const json_t *row, struct gp_trace_row *r, size_t ri)
{
    json_t *s = json_object_get(row, "session_id");
    r->session = -1;
    r->turn = 0;
    r->next = -1;
    if (!s || json_is_null(s))
        return 0;
    char num[32];
    const char *id;
    if (json_is_string(s) && json_string_length(s) > 0 && strlen(json_string_value(s)) == json_string_length(s)) {
        id = json_string_value(s);
    } else if (json_is_integer(s)) {
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(s));
        id = num;
    } else {
        return line_err(p, line, "\"session_id\" must be a non-empty string or an integer");
    }
    int is_new;
    int32_t si = intern(p, id, &is_new);
    if (si < 0)
        return gp_err(p->err, GP_ENOMEM, "out of memory reading '%s'", p->name);
    r->session = si;
    if (is_new) {
        p->t->session_first[si] = (int32_t)ri;
    } else {
        struct gp_trace_row *prev = &p->t->rows[p->last[si]];
        prev->next = (int32_t)ri;
        r->turn = prev->turn + 1;
    }
    p->last[si] = (int32_t)ri;
    return 0;
}

/* One non-blank line: fills rows[t->n] and the side arrays. */
static int parse_row(struct parse *p, long line, const char *s, size_t n)
{
    struct gp_trace *t = p->t;
    json_error_t jerr;
    json_t *row = json_loadb(s, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
    if (!row)
        return line_err(p, line, "not JSON (%s, column %d); each line must be one object such as "
                                 "{\"timestamp\": 0, \"input_length\": 512, \"output_length\": 64}",
                        gp_json_why(jerr.text), jerr.column);
    int rc = 0;
    size_t ri = t->n, cap = p->cap_rows;
    if (!json_is_object(row)) {
        rc = line_err(p, line, "expected a JSON object such as {\"timestamp\": 0, \"input_length\": 512}");
        goto out;
    }
    if (grow((void **)&t->rows, &cap, ri + 1, sizeof *t->rows) ||
        grow((void **)&p->ts, &p->cap_rows, ri + 1, sizeof *p->ts)) {
        rc = gp_err(p->err, GP_ENOMEM, "out of memory reading '%s'", p->name);
        goto out;
    }
    struct gp_trace_row *r = &t->rows[ri];
    memset(r, 0, sizeof *r);
    r->line = line;
    r->isl = 0;
    r->osl = -1;
    r->t_sched_ns = -1;
    json_t *text = json_object_get(row, "text"), *text_input = json_object_get(row, "text_input");
    if (text && text_input) {
        rc = line_err(p, line, "Each data entry must have only one of 'text_input' or 'text' key name.");
        goto out;
    }
    json_t *tx = text ? text : text_input;
    if (tx && !json_is_string(tx)) {
        rc = line_err(p, line, "\"%s\" must be a string", text ? "text" : "text_input");
        goto out;
    }
    int has_isl = len_field(p, line, row, "input_length", MAX_ISL, &r->isl);
    if (has_isl < 0 || (rc = len_field(p, line, row, "output_length", 2147483647L, &r->osl)) < 0) {
        rc = has_isl < 0 ? has_isl : rc;
        goto out;
    }
    /* No length: the row's text is the prompt (isl -1), else GenAI-Perf's
     * synthetic mean applies (isl 0, the caller substitutes it). */
    if (!has_isl && tx)
        r->isl = -1;
    rc = 0;
    if ((rc = hash_field(p, line, row, r)) < 0 || (rc = session_field(p, line, row, r, ri)) < 0)
        goto out;
    double ts = -1, delay = -1;
    int has_ts = num_field(p, line, row, "timestamp", &ts);
    if (has_ts < 0 || (rc = num_field(p, line, row, "delay", &delay)) < 0) {
        rc = has_ts < 0 ? has_ts : rc;
        goto out;
    }
    rc = 0;
    if (has_ts) {
        if (p->prev_ts_line && ts < p->prev_ts) {
            rc = line_err(p, line,
                          "\"timestamp\" %g is earlier than %g on line %ld; sort the trace by timestamp "
                          "(GenAI-Perf does not check: perf_analyzer sends such a row late, as soon as its "
                          "thread reaches it)",
                          ts, p->prev_ts, p->prev_ts_line);
            goto out;
        }
        p->prev_ts = ts;
        p->prev_ts_line = line;
        if (t->first_ts_ms < 0)
            t->first_ts_ms = ts;
    } else if (p->o->require_timestamp && r->turn == 0) {
        rc = line_err(p, line,
                      "missing \"timestamp\" (ms from the start); --fixed-schedule needs one on every row that "
                      "starts a request or a session");
        goto out;
    }
    p->ts[ri] = has_ts ? ts : -1;
    /* GenAI-Perf: metadata["delay"] = int(delay * ratio), in ms */
    double ratio = p->o->delay_ratio > 0 ? p->o->delay_ratio : 1.0;
    if (delay >= 0 && !(delay * ratio < 9.0e12)) {
        /* finish() multiplies by 1e6 into int64 ns: past 292 years it would overflow */
        rc = line_err(p, line, "\"delay\" %g ms (x --session-delay-ratio %g) is too large (past 292 years)", delay,
                      ratio);
        goto out;
    }
    r->delay_ns = delay >= 0 ? (int64_t)trunc(delay * ratio) : -1; /* ms for now; finish() converts */
    t->n++;
out:
    json_decref(row);
    return rc;
}

/* After every row is in: due times, and each turn's wait moved onto the turn
 * it delays (before-semantics), checking chains perf_analyzer would stop on. */
static int finish(struct parse *p)
{
    struct gp_trace *t = p->t;
    const struct gp_trace_opts *o = p->o;
    double speed = o->speedup > 0 ? o->speedup : 1.0;
    double base = o->auto_offset && t->first_ts_ms >= 0 ? t->first_ts_ms : 0.0;
    for (size_t i = 0; i < t->n; i++) {
        if (p->ts[i] >= 0) {
            double ns = (p->ts[i] - base) * 1e6 / speed;
            if (!(ns < 9.0e18))
                return line_err(p, t->rows[i].line, "\"timestamp\" %g is too large (past 292 years)", p->ts[i]);
            /* A replay that waits past a day is a mistake, most often epoch
             * milliseconds where ms from the start belong: it would sit
             * silent for years (issue 40 item 4). Say so before the run. */
            if (o->require_timestamp && ns > TRACE_MAX_WAIT_NS)
                return line_err(p, t->rows[i].line,
                                "\"timestamp\" %.17g is %.0f days after the run starts (at --trace-speedup %g); "
                                "timestamps are ms from the start and a fixed schedule waits for each, so the "
                                "replay would wait that long: are these epoch milliseconds? Subtract the first "
                                "row's timestamp from every row (a trace may span at most 1 day)",
                                p->ts[i], ns / 86400e9, speed);
            t->rows[i].t_sched_ns = (int64_t)llround(ns);
        }
    }
    /* delay_ns holds each row's own "delay" in ms (-1 none); rewrite into
     * "wait before this turn" in ns. Walk sessions from their first turn. */
    for (size_t s = 0; s < t->nsessions; s++) {
        int32_t k = t->session_first[s];
        int64_t carry = 0; /* AFTER: the previous turn's delay */
        int64_t prev_raw = -1;
        long prev_line = 0;
        while (k >= 0) {
            struct gp_trace_row *r = &t->rows[k];
            int64_t own = r->delay_ns;
            if (o->delay_kind == GP_TRACE_DELAY_BEFORE) {
                r->delay_ns = r->turn == 0 || own < 0 ? 0 : own * 1000000;
            } else {
                if (r->turn > 0 && prev_raw < 0 && r->t_sched_ns < 0)
                    return line_err(p, prev_line,
                                    "session \"%s\" turn %d has no \"delay\" but turn %d follows on line %ld; give "
                                    "the wait in ms after this turn (perf_analyzer stops with \"Missing 'delay' "
                                    "input\")",
                                    t->session_ids[s], r->turn - 1, r->turn, r->line);
                r->delay_ns = r->turn == 0 ? 0 : carry * 1000000;
                carry = own < 0 ? 0 : own;
                prev_raw = own;
                prev_line = r->line;
            }
            k = r->next;
        }
    }
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].session < 0)
            t->rows[i].delay_ns = 0;
    return 0;
}

void gp_trace_free(struct gp_trace *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nsessions; i++)
        free(t->session_ids[i]);
    free(t->session_ids);
    free(t->session_first);
    free(t->rows);
    free(t->hash);
    free(t);
}

int gp_trace_parse(const char *name, const char *data, size_t len, const struct gp_trace_opts *o,
                   struct gp_trace **out, struct gp_error *err)
{
    *out = NULL;
    if (o->speedup < 0 || !isfinite(o->speedup))
        return gp_err(err, GP_EINVAL, "--trace-speedup %g: must be > 0 (2 replays twice as fast)", o->speedup);
    if (o->delay_ratio < 0 || !isfinite(o->delay_ratio))
        return gp_err(err, GP_EINVAL, "--session-delay-ratio %g: must be > 0 (0.5 halves the delays)",
                      o->delay_ratio);
    struct parse p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.o = o;
    p.err = err;
    p.t = calloc(1, sizeof *p.t);
    if (!p.t)
        return gp_err(err, GP_ENOMEM, "out of memory reading '%s'", name);
    p.t->first_ts_ms = -1;
    int rc = 0;
    long line = 0;
    for (size_t pos = 0; pos < len && !rc;) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - data) : len, n = end - pos;
        const char *s = data + pos;
        pos = end + 1;
        line++;
        if (n && s[n - 1] == '\r')
            n--;
        size_t k = 0;
        while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\f' || s[k] == '\v'))
            k++;
        if (k == n)
            continue; /* GenAI-Perf skips blank lines */
        if (p.t->n >= 0x7fffffff)
            rc = line_err(&p, line, "more than 2^31 rows; split the trace");
        else
            rc = parse_row(&p, line, s, n);
    }
    if (!rc && p.t->n == 0)
        rc = gp_err(err, GP_EINVAL,
                    "trace '%s' has no rows; write one JSON object per line, e.g. {\"timestamp\": 0, "
                    "\"input_length\": 512, \"output_length\": 64, \"hash_ids\": [0]}",
                    name);
    if (!rc)
        rc = finish(&p);
    free(p.ts);
    free(p.last);
    free(p.map.slot);
    if (rc) {
        gp_trace_free(p.t);
        return rc;
    }
    *out = p.t;
    return 0;
}

int gp_trace_read(const char *path, const struct gp_trace_opts *o, struct gp_trace **out, struct gp_error *err)
{
    *out = NULL;
    if (!strncmp(path, "payload:", 8))
        path += 8;
    char *data = NULL;
    size_t len = 0;
    int rc = gp_read_file(path, &data, &len, err);
    if (rc)
        return gp_err_prefix(err, "--input-file");
    rc = gp_trace_parse(path, data, len, o, out, err);
    free(data);
    return rc;
}
