/* runner/recipe_options.c — an engine's declared options, kept as data beside
 * its recipe (recipes/<framework>.options), and the check of pass-through
 * engine args against them.
 *
 * Why: a vLLM name passed unchanged to another engine either aborts its launch
 * after minutes of loading (trtllm-serve --max_num_seqs) or, worse, is dropped
 * with a warning so the run measures a configuration nobody asked for. The
 * list is read from each engine's own source; its header names the file and
 * commit. Format: '#' lines are comments ("complete: yes" in one of them makes
 * every unlisted name an error), then one option a line, followed by other
 * engines' engine_args names for the same setting.
 */
#include "runner/recipe.h"
#include "core/error.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Option names compare without dashes and case: --max-num-seqs, max_num_seqs
 * and --max_num_seqs are one name. */
static void norm(const char *s, size_t n, char *out, size_t outsz)
{
    size_t o = 0;
    while (n > 0 && *s == '-')
        s++, n--;
    for (size_t i = 0; i < n && o + 1 < outsz; i++)
        out[o++] = s[i] == '-' ? '_' : (char)tolower((unsigned char)s[i]);
    out[o] = '\0';
}

/* Levenshtein distance, capped at the buffer (names are short). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 95 || lb > 95)
        return 99;
    size_t row[96];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

int gp_recipe_check_option(const struct gp_recipe *r, const char *key, const char *flag, struct gp_error *err)
{
    if (!r->options)
        return 0;
    char want[128], word[128], opt[128], best[128] = "", alias_of[128] = "";
    norm(key, strlen(key), want, sizeof want);
    size_t best_d = 99;
    int complete = 0;
    for (const char *line = r->options; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (line[0] == '#') {
            if (memmem(line, len, "complete: yes", 13))
                complete = 1;
        } else {
            const char *p = line, *stop = line + len;
            int first = 1;
            while (p < stop) {
                while (p < stop && isspace((unsigned char)*p))
                    p++;
                const char *w = p;
                while (p < stop && !isspace((unsigned char)*p))
                    p++;
                if (p == w)
                    break;
                snprintf(word, sizeof word, "%.*s", (int)(p - w), w);
                char n[128];
                norm(word, strlen(word), n, sizeof n);
                if (first) {
                    snprintf(opt, sizeof opt, "%s", word);
                    if (!strcmp(n, want))
                        return 0;
                    size_t d = edit_distance(n, want);
                    if (d < best_d) {
                        best_d = d;
                        snprintf(best, sizeof best, "%s", word);
                    }
                } else if (!strcmp(n, want) && !alias_of[0])
                    snprintf(alias_of, sizeof alias_of, "%s", opt);
                first = 0;
            }
        }
        line += len + (end ? 1 : 0);
    }
    if (alias_of[0])
        return gp_err(err, GP_EINVAL,
                      "engine_args.%s: %s has no %s; did you mean %s? (another engine's name for it; "
                      "recipes/%s.options lists the options read from %s's source)",
                      key, r->framework, flag, alias_of, r->framework, r->framework);
    if (complete || (best_d <= 2 && strlen(want) >= 6))
        return gp_err(err, GP_EINVAL,
                      "engine_args.%s: %s has no %s; did you mean %s? (recipes/%s.options lists the options "
                      "read from %s's source)",
                      key, r->framework, flag, best[0] ? best : "(none listed)", r->framework, r->framework);
    return 0;
}
