/* runner/pef_split.c — GenAI-Perf's repair of "splintered" SSE responses,
 * for process-export-files only (see pef.h, gp_pef_repair_splits).
 *
 * Why a second reading of the same bytes: `genperf profile` times an event
 * split over two reads at the read that completes it (the moment the client
 * could use it; docs/metrics.md). GenAI-Perf 0.0.16 instead appends a
 * continuation to the previous response and drops the emptied entry with its
 * timestamp (llm_profile_data_parser.py _preprocess_response), so the event
 * counts where it started. process-export-files recomputes GenAI-Perf's
 * numbers from an export, so it repairs the responses the same way before
 * the metrics see them; the export it writes keeps the responses as read.
 */
#include "runner/pef.h"
#include "core/buf.h"
#include "core/error.h"

#include <stdlib.h>
#include <string.h>

static int starts(const char *s, size_t n, const char *p)
{
    size_t m = strlen(p);
    return n >= m && !memcmp(s, p, m);
}

/* offset of p in s[0..n), or -1 */
static long find(const char *s, size_t n, const char *p)
{
    size_t m = strlen(p);
    for (size_t i = 0; i + m <= n; i++)
        if (!memcmp(s + i, p, m))
            return (long)i;
    return -1;
}

/* utils.py not_data_sse_field: a comment or an event/id/retry field */
static int not_data_field(const char *s, size_t n)
{
    return starts(s, n, ":") || starts(s, n, "event:") || starts(s, n, "id:") || starts(s, n, "retry:");
}

int gp_pef_repair_splits(const struct gp_chunk *in, size_t n, const char *bytes, struct gp_chunk *out,
                         size_t *n_out, struct gp_buf *out_bytes)
{
    *n_out = 0;
    /* only an SSE stream: a non-streamed body read in several pieces is one
     * response to perf_analyzer, never a splinter */
    if (n < 2 || !(starts(bytes + in[0].off, in[0].len, "data:") || not_data_field(bytes + in[0].off, in[0].len)))
        return 0;
    struct gp_buf *s = calloc(n, sizeof *s);
    if (!s)
        return -GP_ENOMEM;
    int rc = 0, changed = 0;
    for (size_t i = 0; i < n && !rc; i++)
        if (gp_buf_append(&s[i], bytes + in[i].off, in[i].len))
            rc = -GP_ENOMEM;
    /* last to second, as GenAI-Perf: a continuation may itself have
     * received the one after it */
    for (size_t i = n - 1; i >= 1 && !rc; i--) {
        const char *r = s[i].data ? s[i].data : "";
        size_t rl = s[i].len;
        if (not_data_field(r, rl) || starts(r, rl, "data: "))
            continue;
        /* GenAI-Perf raises here (no run at all); genperf leaves the piece
         * where it is, timed as profile times it */
        if (find(s[i - 1].data ? s[i - 1].data : "", s[i - 1].len, "data:") < 0)
            continue;
        long p = find(r, rl, "data: ");
        size_t move = p < 0 ? rl : (size_t)p;
        if (gp_buf_append(&s[i - 1], r, move)) {
            rc = -GP_ENOMEM;
            break;
        }
        memmove(s[i].data, r + move, rl - move);
        s[i].len = rl - move;
        changed = 1;
    }
    /* the emptied entries go, with their timestamps */
    for (size_t i = 0; i < n && !rc && changed; i++) {
        if (!s[i].len)
            continue;
        out[*n_out] = (struct gp_chunk){.t_ns = in[i].t_ns, .off = out_bytes->len, .len = (uint32_t)s[i].len};
        if (gp_buf_append(out_bytes, s[i].data, s[i].len))
            rc = -GP_ENOMEM;
        (*n_out)++;
    }
    for (size_t i = 0; i < n; i++)
        gp_buf_free(&s[i]);
    free(s);
    if (rc || !changed)
        *n_out = 0;
    return rc ? rc : changed;
}
