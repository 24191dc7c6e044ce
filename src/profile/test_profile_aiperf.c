/* profile/test_profile_aiperf.c — AIPerf's spellings (profile_aiperf.c):
 * each renamed flag lands in the same config field as genperf's own flag,
 * --api-key becomes a redacted Authorization header, mooncake_trace makes the
 * --input-file a payload: trace, AIPerf-internal flags are ignored with a
 * note, and flags genperf cannot honour are refused naming the flag. */
#include "profile/profile_config.h"
#include "core/error.h"
#include "core/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rewrites then parses a NULL-terminated list (after "profile"); the notes
 * go to a memory buffer that *notes receives (caller frees). */
static int run(struct profile_config *cfg, struct gp_profile_aiperf *ap, char **notes, struct gp_error *err, ...)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = "profile";
    va_list va;
    va_start(va, err);
    char *a;
    while ((a = va_arg(va, char *)) && argc < 63)
        argv[argc++] = a;
    va_end(va);
    argv[argc] = NULL;
    size_t len = 0;
    FILE *f = open_memstream(notes, &len);
    gp_err_clear(err);
    gp_profile_config_init(cfg);
    int rc = gp_profile_aiperf_argv(argc, argv, ap, f, err);
    fclose(f);
    if (rc < 0)
        return rc;
    return gp_profile_parse(cfg, ap->argc, ap->argv, "genai-perf profile", err);
}

static void test_renames_land(void)
{
    struct profile_config c;
    struct gp_profile_aiperf ap;
    struct gp_error e;
    char *notes = NULL;
    CHECK_INT(run(&c, &ap, &notes, &e, "--model-names", "a", "b",
                  "--prompt-input-tokens-mean=64", "--isl-stddev", "2", "--prompt-output-tokens-mean", "9",
                  "--osl-stddev", "1", "--output-artifact-dir", "arts", "--request-timeout-seconds", "30",
                  "--conversation-num", "3", "--conversation-turn-mean", "2", "--workers-max", "2", NULL),
              0);
    CHECK_INT((int)c.n_models, 2);
    CHECK_STR(c.models[1], "b");
    CHECK_INT(c.isl_mean, 64);
    CHECK_INT(c.isl_stddev, 2);
    CHECK_INT(c.osl_mean, 9);
    CHECK_INT(c.osl_stddev, 1);
    CHECK_STR(c.artifact_dir, "arts");
    CHECK(c.request_timeout_s == 30);
    CHECK_INT(c.sessions.num_sessions, 3);
    CHECK_INT(c.sessions.turns_mean, 2);
    CHECK_INT(c.workers, 2);
    CHECK_INT(ap.n_mapped, 10);
    CHECK(strstr(notes, "AIPerf's --conversation-num read as --num-sessions") != NULL);
    CHECK(strstr(notes, "defaults stay GenAI-Perf's") != NULL);
    free(notes);
    gp_profile_config_free(&c);
    gp_profile_aiperf_free(&ap);
}

/* The note on GenAI-Perf's constant default is for runs that did not pick
 * an arrival process (issue 38 item 9): one given poisson or gamma, in
 * either spelling, is not told "constant". */
static void test_rate_mode_note(void)
{
    static const char *const given[][2] = {{"--request-rate-mode", "poisson"},
                                           {"--request-rate-mode=gamma", NULL},
                                           {"--request-distribution", "poisson"}};
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++) {
        struct profile_config c;
        struct gp_profile_aiperf ap;
        struct gp_error e;
        char *notes = NULL;
        CHECK_INT(run(&c, &ap, &notes, &e, "-m", "m", "--benchmark-duration", "7", "--request-rate", "5", given[i][0],
                      given[i][1], NULL), 0);
        CHECK(strstr(notes, "AIPerf's --benchmark-duration read as --duration") != NULL);
        CHECK(strstr(notes, "--request-rate-mode constant") == NULL);
        free(notes);
        gp_profile_config_free(&c);
        gp_profile_aiperf_free(&ap);
    }
    struct profile_config c;
    struct gp_profile_aiperf ap;
    struct gp_error e;
    char *notes = NULL;
    CHECK_INT(run(&c, &ap, &notes, &e, "-m", "m", "--benchmark-duration", "7", "--request-rate", "5", NULL), 0);
    CHECK(strstr(notes, "defaults stay GenAI-Perf's where AIPerf's differ (--request-rate-mode constant") != NULL);
    CHECK_INT(c.rate_mode, 0);
    free(notes);
    gp_profile_config_free(&c);
    gp_profile_aiperf_free(&ap);
}

static void test_duration(void)
{
    struct profile_config c;
    struct gp_profile_aiperf ap;
    struct gp_error e;
    char *notes = NULL;
    CHECK_INT(run(&c, &ap, &notes, &e, "-m", "m", "--benchmark-duration", "7", "--concurrency", "2", NULL), 0);
    CHECK(c.duration_s == 7);
    CHECK(strstr(notes, "AIPerf's --benchmark-duration read as --duration") != NULL);
    free(notes);
    gp_profile_config_free(&c);
    gp_profile_aiperf_free(&ap);
}

static void test_api_key_and_trace(void)
{
    struct profile_config c;
    struct gp_profile_aiperf ap;
    struct gp_error e;
    char *notes = NULL;
    CHECK_INT(run(&c, &ap, &notes, &e, "-m", "m", "--api-key", "sk-secret", "--custom-dataset-type",
                  "mooncake_trace", "--input-file", "trace.jsonl", "--fixed-schedule", "true", "--isl-block-size",
                  "512", NULL),
              0);
    CHECK_INT((int)c.n_headers, 1);
    CHECK_STR(c.headers[0], "Authorization: Bearer sk-secret");
    CHECK(strstr(c.input_file, "payload:trace.jsonl") != NULL);
    CHECK(strstr(notes, "sk-secret") == NULL); /* the key is never echoed */
    free(notes);
    gp_profile_config_free(&c);
    gp_profile_aiperf_free(&ap);
    /* AIPerf's bare --fixed-schedule; a trace with timestamps implies it */
    CHECK_INT(run(&c, &ap, &notes, &e, "-m", "m", "--input-file", "payload:t.jsonl", "--fixed-schedule", NULL), 0);
    CHECK_INT(c.fixed_schedule, 1);
    free(notes);
    gp_profile_config_free(&c);
    gp_profile_aiperf_free(&ap);
    char tmpl[] = "/tmp/gp-aiperf-XXXXXX";
    int fd = mkstemp(tmpl);
    CHECK(fd >= 0);
    CHECK(write(fd, "{\"timestamp\": 0, \"input_length\": 8, \"output_length\": 2}\n", 55) == 55);
    close(fd);
    CHECK_INT(run(&c, &ap, &notes, &e, "-m", "m", "--custom-dataset-type", "mooncake_trace", "--input-file", tmpl,
                  NULL),
              0);
    CHECK_INT(c.fixed_schedule, 1);
    unlink(tmpl);
    free(notes);
    gp_profile_config_free(&c);
    gp_profile_aiperf_free(&ap);
    /* --input-file=FILE, flag after it, payload: given already */
    CHECK_INT(run(&c, &ap, &notes, &e, "-m", "m", "--input-file=t.jsonl", "--custom-dataset-type=mooncake_trace",
                  "--fixed-schedule", "true", NULL),
              0);
    CHECK(strstr(c.input_file, "payload:t.jsonl") != NULL);
    free(notes);
    gp_profile_config_free(&c);
    gp_profile_aiperf_free(&ap);
}

static void test_ignored_and_refused(void)
{
    struct profile_config c;
    struct gp_profile_aiperf ap;
    struct gp_error e;
    char *notes = NULL;
    CHECK_INT(run(&c, &ap, &notes, &e, "-m", "m", "--ui-type", "none", "--log-level", "debug",
                  "--record-processors", "4", NULL),
              0);
    CHECK(strstr(notes, "AIPerf's --ui-type ignored") != NULL);
    CHECK(strstr(notes, "AIPerf's --record-processors ignored") != NULL);
    free(notes);
    gp_profile_config_free(&c);
    gp_profile_aiperf_free(&ap);
    CHECK(run(&c, &ap, &notes, &e, "-m", "m", "--benchmark-grace-period", "5", NULL) < 0);
    CHECK(strstr(e.msg, "--benchmark-grace-period is not supported") != NULL);
    free(notes);
    CHECK(run(&c, &ap, &notes, &e, "-m", "m", "--custom-dataset-type", "random_pool", NULL) < 0);
    CHECK(strstr(e.msg, "--custom-dataset-type random_pool") != NULL);
    free(notes);
    CHECK(run(&c, &ap, &notes, &e, "-m", "m", "--isl-block-size", "64", NULL) < 0);
    CHECK(strstr(e.msg, "512 tokens") != NULL);
    free(notes);
    CHECK(run(&c, &ap, &notes, &e, "-m", "m", "--custom-dataset-type", "mooncake_trace", NULL) < 0);
    CHECK(strstr(e.msg, "needs --input-file") != NULL);
    free(notes);
    CHECK(run(&c, &ap, &notes, &e, "-m", "m", "--benchmark-duration", NULL) < 0);
    CHECK(strstr(e.msg, "expected one argument") != NULL);
    free(notes);
    /* after '--' nothing is rewritten; a GenAI-Perf line gets no notes */
    CHECK_INT(run(&c, &ap, &notes, &e, "-m", "m", "--", "--benchmark-duration", "3", NULL), 0);
    CHECK_INT(ap.n_mapped, 0);
    CHECK_STR(notes, "");
    free(notes);
    gp_profile_config_free(&c);
    gp_profile_aiperf_free(&ap);
}

int main(void)
{
    GP_RUN(test_renames_land);
    GP_RUN(test_rate_mode_note);
    GP_RUN(test_duration);
    GP_RUN(test_api_key_and_trace);
    GP_RUN(test_ignored_and_refused);
    return gp_test_summary();
}
