/* profile/profile_checks.c — the console lines for what invalidates a
 * benchmark (issue 28 item 4): each figure is also in <stem>_genperf.json,
 * but a reader of the console table alone must not miss it. Called by
 * gp_profile_finish once the metrics exist; reads the run, owns nothing.
 */
#include "profile/profile_run.h"

#include <stdio.h>

/* The server's output length against max_tokens asked (--osl): a server
 * that ignores max_tokens or stops at EOS measures another workload. The
 * length compared counts the reasoning (metrics.h gp_osl_outcome), which a
 * server counts against max_tokens: an answer whose content is short because
 * the model reasoned first did not stop early, and one whose count is off by
 * one did not run past max_tokens. Each case has its own line. */
void gp_profile_osl_lines(FILE *f, const struct gp_metrics_result *m)
{
    size_t n = 0, cnt[GP_OSL_SHORTER + 1] = {0}, off1_client = 0, reasoning_srv = 0;
    double asked = 0, got = 0, asked_reasoning = 0, content_reasoning = 0;
    int any_reasoning = 0;
    for (size_t i = 0; i < m->n_reqs; i++) {
        const struct gp_req_metrics *q = &m->reqs[i];
        long len;
        int srv;
        enum gp_osl_outcome oc = gp_osl_outcome(q, &len, &srv);
        if (oc == GP_OSL_NOT_ASKED)
            continue;
        n++;
        cnt[oc]++;
        asked += q->osl_asked;
        got += (double)len;
        any_reasoning |= q->reasoning_chunks > 0;
        off1_client += oc == GP_OSL_OFF_BY_ONE && !srv;
        if (oc == GP_OSL_REASONING) {
            reasoning_srv += srv != 0;
            asked_reasoning += q->osl_asked;
            content_reasoning += q->osl;
        }
    }
    size_t longer = cnt[GP_OSL_LONGER], shorter = cnt[GP_OSL_SHORTER];
    if (longer || shorter)
        fprintf(f, "genperf: warning: the server's output length differs from the requested OSL in %zu of %zu "
                   "requests (%zu longer, %zu shorter; asked %.1f tokens on average, got %.1f%s): %s\n",
                longer + shorter, n, longer, shorter, asked / (double)n, got / (double)n,
                any_reasoning ? ", reasoning included" : "",
                longer && shorter ? "some ran past max_tokens, some stopped early (EOS?)"
                : longer          ? "the server ran past max_tokens (ignored it?), so the OSL measured is not the one asked"
                                  : "it stopped early (EOS?); --extra-inputs ignore_eos:true keeps it to max_tokens");
    if (cnt[GP_OSL_REASONING])
        fprintf(f, "genperf: note: in %zu of %zu requests the content was shorter than the requested OSL (%.1f tokens "
                   "on average, asked %.1f) because reasoning tokens count against max_tokens: the server produced "
                   "the tokens asked (%s); GenAI-Perf's OSL counts content only (raise --osl for longer answers)\n",
                cnt[GP_OSL_REASONING], n, content_reasoning / (double)cnt[GP_OSL_REASONING],
                asked_reasoning / (double)cnt[GP_OSL_REASONING],
                reasoning_srv == cnt[GP_OSL_REASONING]
                    ? "its usage.completion_tokens, reasoning included, equals max_tokens"
                    : "content + reasoning tokens equal max_tokens: usage.completion_tokens where it sent usage, else "
                      "the client tokenizer");
    if (cnt[GP_OSL_OFF_BY_ONE]) {
        size_t k = cnt[GP_OSL_OFF_BY_ONE];
        if (k > off1_client)
            fprintf(f, "genperf: note: in %zu of %zu requests the server's count differs by 1 from max_tokens "
                       "(usage.completion_tokens is one more): a counting convention (an end-of-sequence token "
                       "counted), not a longer answer\n",
                    k - off1_client, n);
        if (off1_client)
            fprintf(f, "genperf: note: in %zu of %zu requests the client tokenizer's count differs by 1 from "
                       "max_tokens (one more; the server sent no usage): the tokenizer may not be the server's "
                       "(--tokenizer), not a longer answer\n",
                    off1_client, n);
    }
}

/* Answers that ended inside the reasoning carry no content: GenAI-Perf's
 * statistics leave them out (their Request Count is the answers with
 * content), so the table alone would hide them. When every answer is one,
 * gp_profile_reasoning_only_last_line says so instead, last. */
void gp_profile_reasoning_only_line(FILE *f, const struct gp_metrics_result *m)
{
    size_t k = m->reasoning.present ? m->reasoning.n_reasoning_only : 0;
    if (!k || k == m->n_ok)
        return;
    fprintf(f, "genperf: warning: %zu of %zu completed answers carried only reasoning, no content (they ended "
               "inside the reasoning): GenAI-Perf counts content only, so they are left out of its table (Request "
               "Count %zu); *_genperf.json \"reasoning\".requests_reasoning_only counts them\n",
            k, m->n_ok, m->stats[GP_M_REQUEST_COUNT].present ? m->stats[GP_M_REQUEST_COUNT].n : 0);
}

/* The run's last line when every completed answer was reasoning-only: the
 * table is empty, and why (max_tokens spent on reasoning, or EOS inside it)
 * is what the reader must act on. Returns 1 when it printed. */
int gp_profile_reasoning_only_last_line(FILE *f, const struct gp_metrics_result *m)
{
    if (!m->n_ok || !m->reasoning.present || m->reasoning.n_reasoning_only != m->n_ok)
        return 0;
    fprintf(f, "genperf: warning: all %zu completed answers carried only reasoning, none reached content: "
               "GenAI-Perf's table is empty (it counts content only; *_genperf.json \"reasoning\"."
               "requests_reasoning_only = %zu): raise max_tokens (--osl) above the reasoning length, or ask the "
               "model to reason less\n",
            m->n_ok, m->reasoning.n_reasoning_only);
    return 1;
}

/* --server-usage asked for usage; a server that sends none leaves the
 * client/server token comparison empty. Then client and server counts. */
static void usage_lines(const struct profile_run *r, const struct gp_metrics_result *m)
{
    if (r->cfg.server_usage && r->cfg.streaming && m->n_ok && !m->n_with_usage) {
        fprintf(stderr, "genperf: warning: --server-usage was given but the server sent no usage in any of the %zu "
                        "successful responses: its token counts can not be compared with the client's\n",
                m->n_ok);
        return;
    }
    size_t n = 0, bad = 0;
    for (size_t i = 0; i < m->n_reqs; i++) {
        const struct gp_req_metrics *q = &m->reqs[i];
        if (!(q->flags & GP_RQ_OK) || q->server_completion_tokens < 0 || (q->flags & GP_RQ_OSL_FROM_SERVER) ||
            q->osl < 0)
            continue;
        n++; /* completion_tokens counts reasoning tokens too, as token_accounting in genperf_json.c */
        bad += (long)q->server_completion_tokens != (long)q->osl + q->reasoning_tokens;
    }
    if (bad)
        fprintf(stderr, "genperf: warning: client and server output token counts disagree in %zu of %zu requests "
                        "(usage.completion_tokens vs the client's tokenizer; *_genperf.json \"token_accounting\"): "
                        "the tokenizer may not be the server's (--tokenizer)\n",
                bad, n);
}

/* TTFT stays GenAI-Perf's (first content token), so it includes the time
 * the model spent reasoning: say so, with TTFR and the first token of any
 * kind (TTFO) beside it. */
static void reasoning_line(const struct gp_metrics_result *m)
{
    const struct gp_reasoning_summary *rs = &m->reasoning;
    if (!rs->present || !rs->n_with_reasoning || !m->stats[GP_M_TTFT].present)
        return;
    double ttfo = 0;
    size_t n = 0;
    for (size_t i = 0; i < m->n_reqs; i++) {
        const struct gp_req_metrics *q = &m->reqs[i];
        if (!(q->flags & GP_RQ_OK) || q->content_chunks == 0 || q->ttft_ns < 0)
            continue;
        int64_t t = q->ttfr_ns >= 0 && q->ttfr_ns < q->ttft_ns ? q->ttfr_ns : q->ttft_ns;
        ttfo += (double)t / 1e6;
        n++;
    }
    fprintf(stderr, "genperf: note: TTFT includes reasoning: %zu of %zu requests reasoned before answering; time to "
                    "first token (content) avg %.2f ms, to first reasoning token (TTFR) avg %.2f ms, to first output "
                    "token of either kind (TTFO) avg %.2f ms\n",
            rs->n_with_reasoning, rs->n_requests, m->stats[GP_M_TTFT].avg, rs->ttfr.avg,
            n ? ttfo / (double)n : 0.0);
}

/* Failures by kind, HTTP ones by status: "first error" alone hides a mix. */
static void failure_line(const struct gp_metrics_result *m, size_t planned)
{
    /* cancellations asked for with --request-cancellation-rate are not
     * failures: their own line says how many (profile_report.c) */
    if (m->n_failed <= planned)
        return;
    char buf[512];
    size_t o = 0;
    int statuses[8] = {0};
    size_t counts[8] = {0}, ns = 0, other = 0;
    for (size_t i = 0; i < m->n_reqs; i++) {
        if (m->reqs[i].fail != GP_FAIL_HTTP)
            continue;
        size_t k = 0;
        while (k < ns && statuses[k] != m->reqs[i].http_status)
            k++;
        if (k == ns && ns < 8)
            statuses[ns++] = m->reqs[i].http_status;
        if (k < ns)
            counts[k]++;
        else
            other++;
    }
    for (size_t k = 0; k < ns && o < sizeof buf; k++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%zu HTTP %d", o ? ", " : "", counts[k], statuses[k]);
    if (other && o < sizeof buf)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%zu HTTP other", o ? ", " : "", other);
    for (int k = 1; k < GP_FAIL__COUNT && o < sizeof buf; k++)
        if (k != GP_FAIL_HTTP && m->fail_counts[k] > (k == GP_FAIL_CANCELLED ? planned : 0))
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%zu %s", o ? ", " : "",
                                  m->fail_counts[k] - (k == GP_FAIL_CANCELLED ? planned : 0), gp_fail_kind_name(k));
    fprintf(stderr, "genperf: failures by kind: %s (of %zu measured requests; each one's error text is in "
                    "*_records.jsonl)\n",
            buf, m->n_reqs);
}

/* With a response_format schema sent: how many ok responses were not JSON
 * or did not match it (counted in *_genperf.json; they are not failures). */
static void structured_line(const struct gp_metrics_result *m)
{
    if (!m->structured.present)
        return;
    fprintf(stderr,
            "genperf: structured output: %zu of %zu ok responses not JSON, %zu not matching the schema "
            "(counted, not failed; structured_output in *_genperf.json)\n",
            m->structured.invalid_json, m->structured.requests, m->structured.schema_mismatch);
}

void gp_profile_report_checks(const struct profile_run *r, uint64_t planned)
{
    if (!r->metrics_ok)
        return;
    const struct gp_metrics_result *m = &r->mr;
    failure_line(m, (size_t)planned);
    gp_profile_osl_lines(stderr, m);
    gp_profile_reasoning_only_line(stderr, m);
    usage_lines(r, m);
    reasoning_line(m);
    structured_line(m);
}
