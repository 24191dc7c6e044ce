/* profile/profile_aiperf.c — AIPerf's `aiperf profile` spellings, rewritten
 * into genperf's before the GenAI-Perf parser sees the command line.
 *
 * Why a rewrite and not more names in the flag table: the table is
 * GenAI-Perf's parser (its --help, its order, its error messages), and
 * AIPerf's names are a second vocabulary for the same ideas. One table here
 * says, for each AIPerf spelling, which genperf flag it becomes, or why it
 * is ignored or refused; docs/profile.md prints the same table. Nothing is
 * dropped in silence: an ignored flag gets a note on stderr.
 *
 * Ownership: gp_profile_aiperf_argv returns a new argv (the array and the
 * strings it made are in *out, freed with gp_profile_aiperf_free); the
 * caller's strings are borrowed.
 */
#include "profile/profile_config.h"
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum how {
    RENAME, /* same value, genperf's name */
    IGNORE, /* AIPerf-internal (logging, its UI, its process layout): a note */
    REFUSE, /* no genperf equivalent: a usage error that says what to use */
    SPECIAL /* handled in rewrite_one */
};

struct aiperf_flag {
    const char *name;
    enum how how;
    int takes_value;
    const char *to; /* RENAME: the genperf flag; IGNORE/REFUSE: why */
};

/* From AIPerf's docs/cli_options.md (ai-dynamo/aiperf, 2025-10). Names that
 * GenAI-Perf and AIPerf share (--concurrency, --request-rate-mode, --isl,
 * --num-requests, ...) are already genperf's and are not listed. */
static const struct aiperf_flag flags[] = {
    {"--benchmark-duration", RENAME, 1, "--duration"},
    {"--num-conversations", RENAME, 1, "--num-sessions"},
    {"--conversation-num", RENAME, 1, "--num-sessions"},
    {"--conversation-turn-mean", RENAME, 1, "--session-turns-mean"},
    {"--conversation-turn-stddev", RENAME, 1, "--session-turns-stddev"},
    {"--conversation-turn-delay-mean", RENAME, 1, "--session-turn-delay-mean"},
    {"--conversation-turn-delay-stddev", RENAME, 1, "--session-turn-delay-stddev"},
    {"--conversation-turn-delay-ratio", RENAME, 1, "--session-delay-ratio"},
    {"--prompt-input-tokens-mean", RENAME, 1, "--synthetic-input-tokens-mean"},
    {"--prompt-input-tokens-stddev", RENAME, 1, "--synthetic-input-tokens-stddev"},
    {"--isl-stddev", RENAME, 1, "--synthetic-input-tokens-stddev"},
    {"--prompt-output-tokens-mean", RENAME, 1, "--output-tokens-mean"},
    {"--prompt-output-tokens-stddev", RENAME, 1, "--output-tokens-stddev"},
    {"--osl-stddev", RENAME, 1, "--output-tokens-stddev"},
    {"--prompt-batch-size", RENAME, 1, "--batch-size-text"},
    {"--image-batch-size", RENAME, 1, "--batch-size-image"},
    {"--audio-batch-size", RENAME, 1, "--batch-size-audio"},
    {"--prompt-prefix-length", RENAME, 1, "--prefix-prompt-length"},
    {"--prompt-prefix-pool-size", RENAME, 1, "--num-prefix-prompts"},
    {"--prefix-prompt-pool-size", RENAME, 1, "--num-prefix-prompts"},
    {"--model-names", RENAME, 1, "--model"},
    {"--output-artifact-dir", RENAME, 1, "--artifact-dir"},
    {"--request-timeout-seconds", RENAME, 1, "--request-timeout"},
    {"--custom-endpoint", RENAME, 1, "--endpoint"},
    {"--workers-max", RENAME, 1, "--workers"},
    {"--max-workers", RENAME, 1, "--workers"},
    {"--extra-verbose", RENAME, 0, "--verbose"},
    {"-vv", RENAME, 0, "--verbose"},
    {"--api-key", SPECIAL, 1, NULL},
    {"--custom-dataset-type", SPECIAL, 1, NULL},
    {"--synthetic-input-tokens-block-size", SPECIAL, 1, NULL},
    {"--prompt-input-tokens-block-size", SPECIAL, 1, NULL},
    {"--isl-block-size", SPECIAL, 1, NULL},
    {"--log-level", IGNORE, 1, "AIPerf's logging level (genperf has -v)"},
    {"--ui-type", IGNORE, 1, "AIPerf's live dashboard (genperf draws one progress line)"},
    {"--ui", IGNORE, 1, "AIPerf's live dashboard (genperf draws one progress line)"},
    {"--record-processor-service-count", IGNORE, 1, "AIPerf's record-processor processes (genperf post-processes "
                                                     "after the run, on its own threads)"},
    {"--record-processors", IGNORE, 1, "AIPerf's record-processor processes (genperf post-processes after the "
                                       "run, on its own threads)"},
    {"--benchmark-grace-period", REFUSE, 1, "genperf's --duration stops sending at the deadline and gives requests "
                                            "in flight a short grace that is not configurable; drop the flag"},
    {"--fixed-schedule-auto-offset", REFUSE, 0, "genperf replays timestamps as perf_analyzer does (ms after the "
                                                "start); subtract the first timestamp in the file"},
    {"--fixed-schedule-start-offset", REFUSE, 1, "cut the trace file to the rows wanted"},
    {"--fixed-schedule-end-offset", REFUSE, 1, "cut the trace file to the rows wanted"},
};

/* --flag=value or --flag value: the flag's row, or NULL. */
static const struct aiperf_flag *find(const char *arg, const char **inline_value)
{
    *inline_value = NULL;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        size_t n = strlen(flags[i].name);
        if (strncmp(arg, flags[i].name, n))
            continue;
        if (arg[n] == '\0')
            return &flags[i];
        if (arg[n] == '=' && flags[i].takes_value) {
            *inline_value = arg + n + 1;
            return &flags[i];
        }
    }
    return NULL;
}

struct rewrite {
    char **argv;
    int argc;
    char **owned; /* strings made here */
    size_t n_owned;
    const char *dataset_type; /* --custom-dataset-type, applied to --input-file after the loop */
    int fixed_schedule;       /* --fixed-schedule given, in either spelling */
    int rate_mode_given;      /* --request-rate-mode or --request-distribution given: no default to note */
};

/* AIPerf infers --fixed-schedule from a trace whose rows carry timestamps;
 * the first row decides, as a glance at the file would. */
static int first_row_has_timestamp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0; /* the reader reports the missing file with its own message */
    char line[4096];
    int has = fgets(line, sizeof line, f) && strstr(line, "\"timestamp\"");
    fclose(f);
    return has;
}

static int push(struct rewrite *w, const char *s)
{
    w->argv[w->argc++] = (char *)s;
    return 0;
}

static const char *own(struct rewrite *w, char *s)
{
    if (s)
        w->owned[w->n_owned++] = s;
    return s;
}

static int rewrite_special(struct rewrite *w, const struct aiperf_flag *f, const char *v, struct gp_error *err)
{
    if (!strcmp(f->name, "--api-key")) {
        /* AIPerf sends it as this header; -H Authorization is redacted as
         * every credential is (Name: *** in artifacts and output) */
        char *h = malloc(strlen(v) + 32);
        if (!h)
            return gp_err(err, GP_ENOMEM, "out of memory");
        sprintf(h, "Authorization: Bearer %s", v);
        push(w, "-H");
        push(w, own(w, h));
        return 0;
    }
    if (!strcmp(f->name, "--custom-dataset-type")) {
        if (strcmp(v, "mooncake_trace") && strcmp(v, "single_turn"))
            return gp_err(err, GP_EINVAL,
                          "--custom-dataset-type %s: genperf reads mooncake_trace and single_turn files (and "
                          "GenAI-Perf's --input-file formats); for multi-turn chats use --num-sessions or a trace "
                          "with session_id rows",
                          v);
        w->dataset_type = v;
        return 0;
    }
    /* the *-block-size spellings: genperf's hash blocks are 512 tokens, AIPerf's default */
    if (strcmp(v, "512"))
        return gp_err(err, GP_EINVAL, "%s %s: genperf's trace hash blocks are 512 tokens; drop the flag", f->name, v);
    return 0;
}

/* --custom-dataset-type mooncake_trace: the --input-file is a trace, which
 * GenAI-Perf (and so genperf) spells payload:FILE. */
static int apply_dataset_type(struct rewrite *w, struct gp_error *err)
{
    if (!w->dataset_type || strcmp(w->dataset_type, "mooncake_trace"))
        return 0;
    for (int i = 1; i < w->argc; i++) {
        const char *a = w->argv[i], *file = NULL;
        int sep = 0;
        if (!strcmp(a, "--input-file") && i + 1 < w->argc)
            file = w->argv[++i], sep = 1;
        else if (!strncmp(a, "--input-file=", 13))
            file = a + 13;
        if (!file)
            continue;
        if (!strncmp(file, "payload:", 8))
            return 0;
        char *p = malloc(strlen(file) + 24);
        if (!p)
            return gp_err(err, GP_ENOMEM, "out of memory");
        sprintf(p, "%spayload:%s", sep ? "" : "--input-file=", file);
        w->argv[i] = (char *)own(w, p);
        if (!w->fixed_schedule && first_row_has_timestamp(file)) {
            push(w, "--fixed-schedule");
            push(w, "true");
        }
        return 0;
    }
    return gp_err(err, GP_EINVAL, "--custom-dataset-type mooncake_trace needs --input-file FILE");
}

int gp_profile_aiperf_argv(int argc, char **argv, struct gp_profile_aiperf *out, FILE *notes, struct gp_error *err)
{
    struct rewrite w = {0};
    memset(out, 0, sizeof *out);
    /* a rewrite never makes the line longer than two words per argument and
     * a trailing --fixed-schedule true, and owns at most two strings per argument */
    w.argv = calloc((size_t)argc * 2 + 3, sizeof *w.argv);
    w.owned = calloc((size_t)argc * 2 + 1, sizeof *w.owned);
    if (!w.argv || !w.owned) {
        free(w.argv);
        free(w.owned);
        return gp_err(err, GP_ENOMEM, "out of memory");
    }
    int rc = 0, mapped = 0;
    for (int i = 0; i < argc && !rc; i++) {
        const char *iv, *a = argv[i];
        const struct aiperf_flag *f = i && strcmp(a, "--") ? find(a, &iv) : NULL;
        if (i && !strcmp(a, "--")) { /* the rest is not flags */
            while (i < argc)
                push(&w, argv[i++]);
            break;
        }
        if (!f && i && !strcmp(a, "--fixed-schedule") && (i + 1 >= argc || argv[i + 1][0] == '-')) {
            /* AIPerf's is a bare flag, GenAI-Perf's takes a BOOL (a bare
             * one is an argparse error there, so nothing GenAI-Perf
             * accepts changes meaning) */
            push(&w, a);
            push(&w, "true");
            w.fixed_schedule = 1;
            mapped++;
            if (notes)
                fprintf(notes, "genperf: note: AIPerf's bare --fixed-schedule read as --fixed-schedule true\n");
            continue;
        }
        if (!f) {
            w.fixed_schedule |= i && !strncmp(a, "--fixed-schedule", 16);
            w.rate_mode_given |= i && (!strncmp(a, "--request-rate-mode", 19) || !strncmp(a, "--request-distribution", 22));
            push(&w, a);
            continue;
        }
        const char *v = iv;
        if (f->takes_value && !v) {
            if (i + 1 >= argc) {
                rc = gp_err(err, GP_EINVAL, "argument %s: expected one argument", f->name);
                break;
            }
            v = argv[++i];
        }
        mapped++;
        switch (f->how) {
        case RENAME:
            push(&w, f->to);
            if (v)
                push(&w, v);
            /* --model-names a b: AIPerf takes a list, as -m does */
            while (!strcmp(f->name, "--model-names") && i + 1 < argc && argv[i + 1][0] != '-')
                push(&w, argv[++i]);
            if (notes)
                fprintf(notes, "genperf: note: AIPerf's %s read as %s\n", f->name, f->to);
            break;
        case IGNORE:
            if (notes)
                fprintf(notes, "genperf: note: AIPerf's %s ignored: %s\n", f->name, f->to);
            break;
        case REFUSE:
            rc = gp_err(err, GP_EINVAL, "AIPerf's %s is not supported: %s", f->name, f->to);
            break;
        case SPECIAL:
            rc = rewrite_special(&w, f, v, err);
            if (!rc && notes && strcmp(f->name, "--api-key"))
                fprintf(notes, "genperf: note: AIPerf's %s %s accepted\n", f->name, v);
            break;
        }
    }
    if (!rc)
        rc = apply_dataset_type(&w, err);
    /* the one default that differs; said only when it applies (issue 38
     * item 9: a run given --request-rate-mode poisson was told "constant") */
    if (!rc && mapped && notes && !w.rate_mode_given)
        fprintf(notes, "genperf: note: defaults stay GenAI-Perf's where AIPerf's differ (--request-rate-mode constant; "
                       "AIPerf's is poisson)\n");
    out->argv = w.argv;
    out->argc = w.argc;
    out->owned = w.owned;
    out->n_owned = w.n_owned;
    out->n_mapped = mapped;
    if (rc) {
        gp_profile_aiperf_free(out);
        return -1;
    }
    return 0;
}

void gp_profile_aiperf_free(struct gp_profile_aiperf *a)
{
    for (size_t i = 0; i < a->n_owned; i++)
        free(a->owned[i]);
    free(a->owned);
    free(a->argv);
    memset(a, 0, sizeof *a);
}
