/* profile/profile_args.c — the `profile` flag parser: argparse-compatible
 * spelling, prefixes and messages, GenAI-Perf's copy of truthy values into
 * struct profile_config, and the checks GenAI-Perf does after argparse.
 *
 * One table (profile_table.c, rows typed in profile_int.h) drives all of it: a row names the flag (every spelling), how argv
 * gives its value, and how that value lands in the config (a copy rule and
 * the offsetof() of its field), so adding a flag is adding a row. Parsing is
 * three passes: argv -> raw values (parse_argv), raw -> config in table order
 * (copy_values), cross-flag checks (validate). See profile_config.h for
 * ownership.
 */
#include "profile/profile_int.h"
#include "core/pytext.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



/* Appends sep+item to the NUL-terminated list[cap], truncating at the end:
 * *len never passes cap - 1, so the next append cannot point past list. */
static void list_add(char *list, size_t cap, size_t *len, const char *sep, const char *item)
{
    if (*len + 1 >= cap)
        return;
    int w = snprintf(list + *len, cap - *len, "%s%s", sep, item);
    if (w > 0)
        *len = *len + (size_t)w < cap ? *len + (size_t)w : cap - 1;
}

static void opt_display(const struct opt *o, char *out, size_t outsz)
{
    out[0] = '\0';
    size_t len = 0;
    for (int i = 0; i < 4 && o->names[i]; i++)
        list_add(out, outsz, &len, i ? "/" : "", o->names[i]);
}

void gp_profile_choices_shown(const struct opt *o, char *out, size_t outsz)
{
    const char *const *c = o->shown ? o->shown : o->choices;
    out[0] = '\0';
    if (!c || outsz < 3)
        return;
    size_t len = 0;
    for (int i = 0; c[i]; i++)
        list_add(out, outsz - 1, &len, i ? "," : "{", c[i]);
    out[len++] = '}';
    out[len] = '\0';
}

/* The usage line and --help; every list of choices in them (the usage
 * line's endpoint types included) comes from the flag table, so neither can
 * leave out what the parser accepts. */
void gp_profile_usage(FILE *fp, const char *prog, int full)
{
    char types[256] = "";
    for (size_t i = 0; i < gp_profile_n_opts; i++)
        if (gp_profile_opts[i].id == O_ENDPOINT_TYPE)
            gp_profile_choices_shown(&gp_profile_opts[i], types, sizeof types);
    fprintf(fp, "usage: %s [-h] -m MODEL [MODEL ...] [-u URL]\n"
                "       [--endpoint-type %s]\n"
                "       [--streaming] [--concurrency N | --request-rate R] [--request-count N]\n"
                "       [options ...] [-- ignored perf_analyzer args]\n",
            prog, types);
    if (!full)
        return;
    fprintf(fp, "\nGenAI-Perf 0.0.16 compatible benchmark of an OpenAI chat/completions endpoint.\n\noptions:\n");
    for (size_t i = 0; i < gp_profile_n_opts; i++) {
        char names[128];
        opt_display(&gp_profile_opts[i], names, sizeof names);
        for (char *c = names; *c; c++)
            if (*c == '/')
                *c = ',';
        char left[384], shown[256];
        gp_profile_choices_shown(&gp_profile_opts[i], shown, sizeof shown);
        const char *mv = gp_profile_opts[i].metavar ? gp_profile_opts[i].metavar : shown;
        if (mv[0])
            snprintf(left, sizeof left, "%s %s", names, mv);
        else
            snprintf(left, sizeof left, "%s", names);
        if (strlen(left) > 36)
            fprintf(fp, "  %s\n  %-36s %s\n", left, "", gp_profile_opts[i].help);
        else
            fprintf(fp, "  %-36s %s\n", left, gp_profile_opts[i].help);
    }
    fprintf(fp, "\nExit status: 0 run completed; 1 invalid configuration or invalid run (e.g. every\n"
                "request failed); 2 usage error; 3 more requests failed than --max-failure-rate allows;\n"
                "4 run incomplete (--max-memory reached or out of memory: the records kept are written);\n"
                "130 interrupted (artifacts of what was measured are written).\n");
    fprintf(fp, "\nEnvironment: GENPERF_API_KEY (see --api-key-file); GENPERF_TRANSPORT=curl|h1 (plain http://\n"
                "uses the built-in HTTP/1.1 client unless curl); GENPERF_RX_STAMP=kernel|user (the built-in\n"
                "client stamps each read with the kernel's receive time, or when recv returns);\n"
                "GENPERF_DIST_NO_SHM=1 (under mpirun, copy the ranks' records to rank 0 even on one host);\n"
                "GENPERF_DIST_KEEP_MCA=1 (under mpirun on one host, leave Open MPI's pml/btl choice alone).\n"
                "Under mpirun, SIGUSR1 to mpirun (forwarded to every rank at once) stops the run as a Ctrl-C does.\n");
}

/* argparse's allow_abbrev: an unambiguous prefix of a long option matches. */
static const struct opt *find_opt(const char *name, struct gp_error *err, int *ambiguous)
{
    *ambiguous = 0;
    for (size_t i = 0; i < gp_profile_n_opts; i++)
        for (int j = 0; j < 4 && gp_profile_opts[i].names[j]; j++)
            if (!strcmp(gp_profile_opts[i].names[j], name))
                return &gp_profile_opts[i];
    if (strncmp(name, "--", 2) != 0)
        return NULL;
    const struct opt *hit = NULL;
    char list[512] = "";
    size_t ll = 0;
    int nhits = 0;
    size_t n = strlen(name);
    for (size_t i = 0; i < gp_profile_n_opts; i++)
        for (int j = 0; j < 4 && gp_profile_opts[i].names[j]; j++)
            if (!strncmp(gp_profile_opts[i].names[j], name, n) && gp_profile_opts[i].names[j][1] == '-') {
                list_add(list, sizeof list, &ll, nhits ? ", " : "", gp_profile_opts[i].names[j]);
                nhits++;
                hit = &gp_profile_opts[i];
            }
    if (nhits == 1)
        return hit;
    if (nhits > 1) {
        *ambiguous = 1;
        gp_err(err, GP_EINVAL, "ambiguous option: %s could match %s", name, list);
    }
    return NULL;
}

/* argparse treats a token as an option (not a value) if it starts with '-'
 * and is not a negative number. */
static int looks_like_option(const char *s)
{
    if (s[0] != '-' || !s[1])
        return 0;
    double d;
    if (gp_profile_parse_double(s, &d) == 0)
        return 0;
    return 1;
}

static int push_str(const char ***arr, size_t *n, const char *s)
{
    const char **na = realloc(*arr, (*n + 1) * sizeof *na);
    if (!na)
        return -GP_ENOMEM;
    na[(*n)++] = s;
    *arr = na;
    return 0;
}

static int add_item(struct profile_config *cfg, const struct opt *o, const char *s, struct gp_error *err)
{
    if (o->value)
        return o->value(cfg, s, err);
    if (push_str(FIELD(cfg, o->off, const char **), FIELD(cfg, o->aux, size_t), s))
        return gp_err(err, GP_ENOMEM, "out of memory");
    return 0;
}

/* nargs='+': every following token up to the next option is one item.
 * argparse replaces an earlier list when the flag repeats. */
static int take_list(struct profile_config *cfg, const struct opt *o, const char *inline_val, int argc, char **argv,
                     int *i, const char *disp, struct gp_error *err)
{
    void *old;
    memcpy(&old, FIELD(cfg, o->off, char), sizeof old);
    free(old);
    memset(FIELD(cfg, o->off, char), 0, sizeof old);
    *FIELD(cfg, o->aux, size_t) = 0;
    int rc, n = 0;
    if (inline_val) {
        if ((rc = add_item(cfg, o, inline_val, err)) < 0)
            return rc;
        n++;
    }
    while (*i + 1 < argc && !looks_like_option(argv[*i + 1]) && strcmp(argv[*i + 1], "--")) {
        if ((rc = add_item(cfg, o, argv[++*i], err)) < 0)
            return rc;
        n++;
    }
    if (!n && o->kind == K_LIST)
        return gp_profile_usage_err(cfg, err, "argument %s: expected at least one argument", disp);
    return 0;
}

/* One value: checked against the option's kind and kept in rv. */
static int take_value(struct profile_config *cfg, const struct opt *o, const char *val, struct gp_profile_raw *rv,
                      const char *disp, struct gp_error *err)
{
    rv->seen = 1;
    rv->s = val;
    switch (o->kind) {
    case K_INT:
        if (gp_profile_parse_long(val, &rv->i) < 0)
            return gp_profile_usage_err(cfg, err, "argument %s: invalid int value: '%s'", disp, val);
        if (o->choices) { /* type=int, choices=[...]: compared as ints, listed without quotes */
            int ok = 0;
            char list[128] = "";
            size_t ll = 0;
            for (int c = 0; o->choices[c]; c++) {
                ok |= atol(o->choices[c]) == rv->i;
                list_add(list, sizeof list, &ll, c ? ", " : "", o->choices[c]);
            }
            if (!ok)
                return gp_profile_usage_err(cfg, err, "argument %s: invalid choice: %ld (choose from %s)", disp, rv->i, list);
        }
        break;
    case K_POSINT:
        if (gp_profile_parse_long(val, &rv->i) < 0)
            return gp_profile_usage_err(cfg, err, "argument %s: The value must be an integer.", disp);
        if (rv->i <= 0)
            return gp_profile_usage_err(cfg, err, "argument %s: The value must be greater than zero.", disp);
        break;
    case K_FLOAT:
        if (gp_profile_parse_double(val, &rv->f) < 0)
            return gp_profile_usage_err(cfg, err, "argument %s: invalid float value: '%s'", disp, val);
        break;
    case K_CHOICE: {
        int ok = 0;
        char list[512] = "";
        size_t ll = 0;
        for (int c = 0; o->choices[c]; c++) {
            if (!strcmp(o->choices[c], val))
                ok = 1;
            char q[128];
            snprintf(q, sizeof q, "'%s'", o->choices[c]);
            list_add(list, sizeof list, &ll, c ? ", " : "", q);
        }
        if (!ok)
            return gp_profile_usage_err(cfg, err, "argument %s: invalid choice: '%s' (choose from %s)", disp, val, list);
        break;
    }
    case K_APPEND:
        return add_item(cfg, o, val, err);
    case K_STR:
        return o->value ? o->value(cfg, val, err) : 0;
    default:
        break;
    }
    return 0;
}

/* Splits "--name=value" and finds the option, including a one-letter option
 * glued to its value ("-mNAME"); *inline_val is the value part, if any. */
static const struct opt *resolve(struct profile_config *cfg, const char *arg, const char **inline_val,
                                 struct gp_error *err)
{
    char name[256];
    *inline_val = NULL;
    const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    if (eq && (size_t)(eq - arg) < sizeof name) {
        memcpy(name, arg, (size_t)(eq - arg));
        name[eq - arg] = '\0';
        *inline_val = eq + 1;
    } else {
        snprintf(name, sizeof name, "%s", arg);
    }
    int ambiguous;
    const struct opt *o = find_opt(name, err, &ambiguous);
    if (!o && !ambiguous && arg[1] != '-' && strlen(arg) > 2) {
        char shortname[3] = {arg[0], arg[1], 0};
        const struct opt *so = find_opt(shortname, err, &ambiguous);
        if (so && so->kind != K_FLAG) {
            o = so;
            *inline_val = arg + 2;
        }
    }
    if (ambiguous) {
        cfg->usage_error = 1; /* find_opt wrote the message */
        return NULL;
    }
    if (!o)
        gp_profile_usage_err(cfg, err, "unrecognized arguments: %s", arg);
    return o;
}

/* argv -> raw values (argparse's part). Lists, -H and --extra-inputs are
 * stored in cfg as they come; everything else waits in raw. */
static int parse_argv(struct profile_config *cfg, int argc, char **argv, struct gp_profile_raw *raw, struct gp_error *err)
{
    const struct opt *group_seen[3] = {NULL, NULL, NULL};
    int rc;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--")) {
            cfg->n_passthrough = argc - i - 1;
            break;
        }
        if (!looks_like_option(arg))
            return gp_profile_usage_err(cfg, err, "unrecognized arguments: %s", arg);
        const char *inline_val;
        const struct opt *o = resolve(cfg, arg, &inline_val, err);
        if (!o)
            return -GP_EINVAL;
        char disp[160];
        opt_display(o, disp, sizeof disp);
        if (o->group) {
            const struct opt *prev = group_seen[o->group];
            if (prev && prev != o) {
                char d2[160];
                opt_display(prev, d2, sizeof d2);
                /* GenAI-Perf's rule, argparse's words; but a user writing both
                 * most often means a rate capped at N in flight: name the flag
                 * that says that (issue 43 item 7) */
                int cap = (o->id == O_RATE && prev->id == O_CONCURRENCY) ||
                          (o->id == O_CONCURRENCY && prev->id == O_RATE);
                return gp_profile_usage_err(cfg, err, "argument %s: not allowed with argument %s%s", disp, d2,
                                 cap ? " (one load per run, as in GenAI-Perf; to cap the requests in flight of a "
                                       "--request-rate run, write --request-rate R --max-concurrency N)"
                                     : "");
            }
            group_seen[o->group] = o;
        }
        struct gp_profile_raw *rv = &raw[o->id];
        if (o->kind == K_FLAG) {
            if (inline_val)
                return gp_profile_usage_err(cfg, err, "argument %s: ignored explicit argument '%s'", disp, inline_val);
            rv->seen = 1;
            if (o->id == O_HELP) {
                cfg->help = 1;
                return 0;
            }
            continue;
        }
        if (o->kind == K_LIST || o->kind == K_LIST0) {
            if ((rc = take_list(cfg, o, inline_val, argc, argv, &i, disp, err)) < 0)
                return rc;
            rv->seen = 1;
            continue;
        }
        const char *val = inline_val;
        if (!val) {
            if (i + 1 >= argc || looks_like_option(argv[i + 1]) || !strcmp(argv[i + 1], "--"))
                return gp_profile_usage_err(cfg, err, "argument %s: expected one argument", disp);
            val = argv[++i];
        }
        if ((rc = take_value(cfg, o, val, rv, disp, err)) < 0)
            return rc;
    }
    return 0;
}

/* ---- GenAI-Perf's config processing: copy only truthy values ---- */

static int copy_values(struct profile_config *cfg, const struct gp_profile_raw *raw, struct gp_error *err)
{
    int rc;
    for (size_t k = 0; k < gp_profile_n_opts; k++) {
        const struct opt *o = &gp_profile_opts[k];
        const struct gp_profile_raw *rv = &raw[o->id];
        switch (o->copy) {
        case C_NONE:
            break;
        case C_SEEN:
            *FIELD(cfg, o->off, int) = rv->seen;
            break;
        case C_UNSEEN:
            *FIELD(cfg, o->off, int) = !rv->seen;
            break;
        case C_STR:
        case C_STR_GIVEN:
            if (rv->seen && rv->s[0]) {
                *FIELD(cfg, o->off, const char *) = rv->s;
                if (o->copy == C_STR_GIVEN)
                    *FIELD(cfg, o->aux, int) = 1;
            }
            break;
        case C_LONG0:
            if (rv->i < 0)
                return gp_profile_config_err(cfg, err, GP_EINVAL, "User Config: %ld exceeds lower bounds ({'lower': 0})", rv->i);
            /* fall through */
        case C_LONG:
            if (rv->i)
                *FIELD(cfg, o->off, long) = rv->i;
            break;
        case C_DOUBLE0:
            if (rv->f < 0) {
                char r[64];
                gp_py_float_repr(rv->f, r, sizeof r);
                return gp_profile_config_err(cfg, err, GP_EINVAL, "User Config: %s exceeds lower bounds ({'lower': 0})", r);
            }
            if (rv->f != 0)
                *FIELD(cfg, o->off, double) = rv->f;
            break;
        case C_U64:
            if (rv->i)
                *FIELD(cfg, o->off, uint64_t) = (uint64_t)rv->i;
            break;
        case C_LONG_MIN1:
            if (rv->seen && rv->i < 1)
                return gp_profile_config_err(cfg, err, GP_EINVAL, "%s %ld: must be >= 1", o->names[0], rv->i);
            if (rv->seen)
                *FIELD(cfg, o->off, long) = rv->i;
            break;
        case C_SECS:
            /* inf would be a slice or ramp that never ends (and vanishes
             * from the JSON, which has no inf): finite only (issue 40 item 4) */
            if (rv->seen && !(rv->f > 0 && isfinite(rv->f)))
                return gp_profile_config_err(cfg, err, GP_EINVAL, "%s %s: must be a %spositive %s", o->names[0],
                                  rv->s, isfinite(rv->f) ? "" : "finite ",
                                  o->id == O_TRACE_SPEEDUP ? "factor (2 replays the trace twice as fast)"
                                                           : "number of seconds");
            if (rv->seen)
                *FIELD(cfg, o->off, double) = rv->f;
            break;
        case C_CHOICE1:
            *FIELD(cfg, o->off, int) = rv->seen && !strcmp(rv->s, o->choices[1]);
            break;
        case C_DOUBLE:
            if (rv->seen && rv->f != 0)
                *FIELD(cfg, o->off, double) = rv->f;
            break;
        case C_HOOK:
            if ((rc = o->hook(cfg, rv, err)) < 0)
                return rc;
            break;
        }
    }
    return 0;
}

/* -H must be one "Name: value" line: CR/LF would put more headers (or a body)
 * on the wire, and perf_analyzer aborts on a value without ':' (its
 * substr() throws std::out_of_range) where GenAI-Perf passes it on. */
static int check_headers(struct profile_config *cfg, struct gp_error *err)
{
    for (size_t i = 0; i < cfg->n_headers; i++) {
        const char *h = cfg->headers[i];
        const char *colon = strchr(h, ':');
        int nl = (int)(colon ? (size_t)(colon - h) : strlen(h));
        if (nl > 64)
            nl = 64;
        if (!colon)
            return gp_profile_config_err(cfg, err, GP_EINVAL,
                              "-H '%.*s': a header must be 'Name: value' (no ':' found; perf_analyzer aborts on it)",
                              nl, h);
        if (colon == h)
            return gp_profile_config_err(cfg, err, GP_EINVAL, "-H '%.*s': the header has no name before ':'", nl, h);
        if (strpbrk(h, "\r\n"))
            return gp_profile_config_err(cfg, err, GP_EINVAL,
                              "-H '%.*s': the header contains a CR or LF (header injection); pass one header "
                              "per -H", nl, h);
        /* The body's framing is the client's: a user Content-Length or
         * Transfer-Encoding replaces the real one and the server reads a
         * desynchronised stream (issue 40 item 3). Host (virtual hosting) and
         * Connection (close is honoured by the client) change no framing. */
        if ((nl == 14 && !strncasecmp(h, "Content-Length", 14)) ||
            (nl == 17 && !strncasecmp(h, "Transfer-Encoding", 17)))
            return gp_profile_config_err(cfg, err, GP_EINVAL,
                              "-H '%.*s': the client frames each request body itself (Content-Length); drop "
                              "this header", nl, h);
    }
    return 0;
}

/* ---- cross-field validation (GenAI-Perf order where it has one) ---- */
static int validate(struct profile_config *cfg, const struct gp_profile_raw *raw, struct gp_error *err)
{
    int rc;
    /* The old spelling of several endpoints (--url twice, a strategy to
     * spread over them) now has one endpoint: say so rather than measure it. */
    if (raw[O_URL_STRATEGY].seen && !raw[O_URLS].seen && cfg->n_url_flags > 1)
        return gp_profile_usage_err(cfg, err,
                         "argument --url-strategy: -u/--url was given %d times and the last one wins (as in "
                         "GenAI-Perf), so there is one endpoint; for several write --urls URL URL ...",
                         cfg->n_url_flags);
    if (cfg->n_models == 0)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "Required field model_names is not set (pass -m MODEL)");
    if (!cfg->tokenizer)
        cfg->tokenizer = cfg->models[0];
    /* weights are a weighted random draw; a round robin asked for by name
     * would be silently replaced, so say it rather than measure another mix */
    if (cfg->model_weights && raw[O_MODEL_SEL].seen && !cfg->model_random)
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "--model-weights draws each entry's model at random with the given odds; drop "
                                     "--model-selection-strategy round_robin (or pass random)");
    /* config_command.py _check_for_illegal_combinations, before the output
     * token checks: genperf's service kind is always openai */
    if (raw[O_OSL_DET].seen)
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "User Config: input.output_tokens.deterministic is only supported with Triton or "
                                     "TensorRT-LLM Engine service kinds (--output-tokens-mean-deterministic; to send "
                                     "min_tokens and ignore_eos to an OpenAI endpoint, use genperf's "
                                     "--genperf-output-tokens-deterministic)");
    if (cfg->generate_plots &&
        (cfg->endpoint_type == GP_ENDPOINT_EMBEDDINGS || cfg->endpoint_type == GP_ENDPOINT_RANKINGS))
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "User Config: generate_plots is not supported with the OutputFormat.%s output "
                                     "format (drop --generate-plots)",
                                     cfg->endpoint_type == GP_ENDPOINT_RANKINGS ? "RANKINGS" : "OPENAI_EMBEDDINGS");
    if (raw[O_OSL_STD].i && cfg->osl_mean < 0)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "User Config: If output tokens stddev is set, mean must also be set");
    if (cfg->osl_deterministic && cfg->osl_mean < 0)
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                          "User Config: If output tokens deterministic is set, mean must also be set");
    if (strchr(cfg->profile_export_file, '/'))
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                          "Please use artifact_directory option to define intermediary paths to the "
                          "profile_export_file.");
    if (cfg->backend_given)
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                          "The backend should only be used with the following combination: 'service_kind: triton' & "
                          "'type: kserve'");
    if (cfg->batch_size != 1 && (cfg->endpoint_type == GP_ENDPOINT_CHAT || cfg->endpoint_type == GP_ENDPOINT_MULTIMODAL ||
                                 cfg->endpoint_type == GP_ENDPOINT_RESPONSES))
        return gp_profile_config_err(cfg, err, GP_EINVAL, "The --batch-size-text flag is not supported for %s.",
                          gp_profile_output_format(cfg));
    if (cfg->streaming && (cfg->endpoint_type == GP_ENDPOINT_EMBEDDINGS || cfg->endpoint_type == GP_ENDPOINT_RANKINGS))
        return gp_profile_config_err(cfg, err, GP_EINVAL, "The --streaming option is not supported for %s.",
                          gp_profile_output_format(cfg));
    if (cfg->concurrency < 0 || (raw[O_CONCURRENCY].seen && raw[O_CONCURRENCY].i == 0))
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--concurrency %ld: must be >= 1", raw[O_CONCURRENCY].i);
    /* GenAI-Perf's bound lets 0 through and then sends empty prompts; 0 here
     * used to keep the default and send 550-token ones (issue 40 item 4) */
    if (raw[O_ISL].seen && raw[O_ISL].i == 0)
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                                     "--synthetic-input-tokens-mean 0: a synthetic prompt needs at least 1 token "
                                     "(GenAI-Perf would send empty prompts); pass N >= 1");
    if (raw[O_STABILITY].seen && raw[O_STABILITY].f == 0)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "-s/--stability-percentage 0: must be 1..999");
    if ((rc = check_headers(cfg, err)) < 0)
        return rc;
    if (cfg->request_rate != 0 && cfg->request_rate < 1e-6)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--request-rate %s: must be at least 0.000001 requests per second",
                          raw[O_RATE].s);
    if (cfg->request_timeout_s > 1e7 || cfg->duration_s > 1e7 || cfg->telemetry_interval_s > 1e7)
        return gp_profile_config_err(cfg, err, GP_EINVAL,
                          "--request-timeout / --duration / --telemetry-interval: at most 10000000 seconds");
    if (cfg->measurement_interval_ms > 1000000000L)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--measurement-interval %ld: at most 1000000000 ms",
                          cfg->measurement_interval_ms);
    /* 0 is no rate, not "closed loop": refused like -1 (issue 40 item 4) */
    if (cfg->request_rate < 0 || !isfinite(cfg->request_rate) || (raw[O_RATE].seen && raw[O_RATE].f == 0))
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--request-rate %s: must be a positive number of requests per second",
                          raw[O_RATE].s);
    if (cfg->max_concurrency && cfg->request_rate == 0 && !cfg->fixed_schedule)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--max-concurrency only applies with --request-rate or --fixed-schedule; use --concurrency");
    if (cfg->poisson && cfg->request_rate == 0)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--request-distribution only applies with --request-rate");
    if (cfg->measurement_interval_ms < 0)
        return gp_profile_config_err(cfg, err, GP_EINVAL, "--measurement-interval %ld: must be a positive number of ms",
                          cfg->measurement_interval_ms);
    if ((rc = gp_profile_check_shapes(cfg, err)) < 0) {
        cfg->usage_error = 0;
        return rc;
    }
    if (raw[O_REQ_COUNT].i) {
        if (raw[O_REQ_COUNT].i < 0)
            return gp_profile_config_err(cfg, err, GP_EINVAL, "--request-count %ld: must be >= 1", raw[O_REQ_COUNT].i);
        cfg->request_count = raw[O_REQ_COUNT].i;
        cfg->request_count_given = 1;
    } else {
        /* perf_analyzer_config.py:376-398 */
        cfg->request_count = 2 * cfg->concurrency > 10 ? 2 * cfg->concurrency : 10;
    }
    if (!cfg->measurement_interval_ms && cfg->duration_s == 0) {
        /* perf_analyzer's own checks (command_line_parser.cc:2129-2150) */
        if (cfg->request_rate == 0 && cfg->request_count < cfg->concurrency)
            return gp_profile_config_err(cfg, err, GP_EINVAL,
                              "--request-count can not be less than concurrency (%ld < %ld); raise --request-count",
                              cfg->request_count, cfg->concurrency);
        if (cfg->request_rate > 0 && (double)cfg->request_count < cfg->request_rate) {
            char r[64];
            gp_py_float_repr(cfg->request_rate, r, sizeof r);
            return gp_profile_config_err(cfg, err, GP_EINVAL,
                              "--request-count can not be less than request_rate (%ld < %s); pass --request-count N "
                              "with N >= the rate (GenAI-Perf's default count is 10)",
                              cfg->request_count, r);
        }
    }
    return gp_profile_check_ramp(cfg, err);
}


int gp_profile_parse(struct profile_config *cfg, int argc, char **argv, const char *prog, struct gp_error *err)
{
    struct gp_profile_raw raw[O__COUNT];
    memset(raw, 0, sizeof raw);
    (void)prog;
    int rc = parse_argv(cfg, argc, argv, raw, err);
    if (rc < 0 || cfg->help)
        return rc;
    if ((rc = copy_values(cfg, raw, err)) < 0)
        return rc;
    return validate(cfg, raw, err);
}
