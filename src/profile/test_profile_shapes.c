/* profile/test_profile_shapes.c — unit tests of the profile flags that shape the
 * load (sessions, rate modes and their alias, ramp, several endpoints): what
 * lands in the config and the cross-flag rules. Split from test_profile_args.c,
 * which holds the GenAI-Perf flag parser's own tests. */
#include "profile/profile_config.h"
#include "core/error.h"
#include "core/test.h"
#include "profile/test_support.h"

#include <jansson.h>
#include <string.h>
/* issue 16: the workload-shape flags land in the config, and their cross-flag rules */
static void test_shapes(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "m", "--num-sessions", "4", "--session-concurrency", "2", "--session-turns-mean",
                    "3", "--session-turns-stddev", "1", "--session-turn-delay-mean", "150",
                    "--session-turn-delay-stddev", "5", "--session-delay-ratio", "0.5", NULL), 0);
    CHECK_INT(c.sessions.num_sessions, 4);
    CHECK_INT(c.sessions.session_concurrency, 2);
    CHECK_INT(c.sessions.turns_mean, 3);
    CHECK_INT(c.sessions.turns_stddev, 1);
    CHECK_INT(c.sessions.delay_mean_ms, 150);
    CHECK_INT(c.sessions.delay_stddev_ms, 5);
    CHECK_NEAR(c.sessions.delay_ratio, 0.5, 0);
    /* create_config.py _convert_args_to_stimulus: the session concurrency is the stimulus */
    json_t *ic = gp_profile_input_config(&c);
    json_t *st = json_object_get(json_object_get(ic, "perf_analyzer"), "stimulus");
    CHECK_INT(json_object_size(st), 1);
    CHECK_INT(json_integer_value(json_object_get(st, "session_concurrency")), 2);
    json_decref(ic);
    char name[256];
    CHECK_INT(gp_profile_run_name(&c, name, sizeof name), 0);
    CHECK_STR(name, "m-openai-chat-session_concurrency2");
    gp_profile_config_free(&c);
    /* sessions without --session-concurrency: GenAI-Perf's default concurrency 1 */
    CHECK_INT(parse(&c, &e, "-m", "m", "--num-sessions", "4", NULL), 0);
    ic = gp_profile_input_config(&c);
    st = json_object_get(json_object_get(ic, "perf_analyzer"), "stimulus");
    CHECK_INT(json_object_size(st), 1);
    CHECK_INT(json_integer_value(json_object_get(st, "concurrency")), 1);
    json_decref(ic);
    gp_profile_config_free(&c);
    /* GenAI-Perf's truthy copy: 0 keeps the default ratio 1.0 */
    CHECK_INT(parse(&c, &e, "-m", "m", "--session-delay-ratio", "0", NULL), 0);
    CHECK_NEAR(c.sessions.delay_ratio, 1.0, 0);
    gp_profile_config_free(&c);
    /* 50/s with a 2 s ramp: 50 due in the ramp, so 50 requests would measure nothing */
    CHECK(parse(&c, &e, "-m", "m", "--request-rate", "50", "--request-count", "50", "--ramp-up-duration", "2", NULL) <
          0);
    CHECK(strstr(e.msg, "leaves no measured requests") != NULL);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--request-rate", "50", "--request-count", "51", "--request-rate-mode", "gamma",
                    "--burstiness", "0.5", "--ramp-up-duration", "2", "--max-concurrency", "3", NULL), 0);
    CHECK_INT(c.rate_mode, GP_SCHED_GAMMA);
    CHECK_NEAR(c.burstiness, 0.5, 0);
    CHECK_NEAR(c.ramp_s, 2, 0);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--fixed-schedule", "true", "--input-file", "payload:t.jsonl",
                    "--trace-speedup", "2", "--max-concurrency", "4", NULL), 0);
    CHECK_INT(c.fixed_schedule, 1);
    CHECK_NEAR(c.trace_speedup, 2, 0);
    ic = gp_profile_input_config(&c);
    st = json_object_get(json_object_get(ic, "perf_analyzer"), "stimulus");
    CHECK_INT(json_object_size(st), 1);
    CHECK(json_is_null(json_object_get(st, "fixed_schedule")));
    json_decref(ic);
    CHECK_INT(gp_profile_run_name(&c, name, sizeof name), 0);
    CHECK_STR(name, "m-openai-chat-fixed_schedule");
    gp_profile_config_free(&c);

    CHECK(parse(&c, &e, "-m", "m", "--fixed-schedule", "true", NULL) < 0);
    CHECK(strstr(e.msg, "--fixed-schedule true needs --input-file payload:FILE") != NULL);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--concurrency", "2", "--session-concurrency", "2", NULL) < 0);
    CHECK_INT(c.usage_error, 1);
    CHECK(strstr(e.msg, "not allowed with argument") != NULL);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--session-concurrency", "2", NULL) < 0);
    CHECK(strstr(e.msg, "--session-concurrency needs --num-sessions") != NULL);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--num-sessions", "2", "--session-concurrency", "3", NULL) < 0);
    CHECK(strstr(e.msg, "--session-concurrency 3 is above --num-sessions 2") != NULL);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--burstiness", "2", NULL) < 0);
    CHECK(strstr(e.msg, "--burstiness only applies with --request-rate-mode gamma") != NULL);
    gp_profile_config_free(&c);
    /* one idea, one spelling: --request-rate-mode is canonical, GenAI-Perf's
     * --request-distribution its alias with the same values (gamma too) */
    CHECK_INT(parse(&c, &e, "-m", "m", "--request-rate", "50", "--request-count", "50", "--request-distribution",
                    "gamma", "--burstiness", "0.5", NULL), 0);
    CHECK_INT(c.rate_mode, GP_SCHED_GAMMA);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--request-rate", "50", "--request-count", "50", "--request-distribution",
                    "poisson", NULL), 0);
    CHECK_INT(c.rate_mode, GP_SCHED_POISSON);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--request-rate", "50", "--request-count", "50", "--request-rate-mode",
                    "poisson", "--request-distribution", "poisson", NULL), 0);
    CHECK_INT(c.rate_mode, GP_SCHED_POISSON);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--request-rate", "50", "--request-count", "50", "--request-rate-mode", "gamma",
                "--request-distribution", "poisson", NULL) < 0);
    CHECK(strstr(e.msg, "--request-distribution is an alias of --request-rate-mode") != NULL);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--concurrency", "4", "--ramp-up-duration", "2", NULL), 0);
    CHECK_NEAR(c.ramp_s, 2, 0);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--num-sessions", "2", "--ramp-up-duration", "2", NULL) < 0);
    CHECK(strstr(e.msg, "a trace or sessions keep their own timing") != NULL);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--trace-speedup", "2", NULL) < 0);
    CHECK(strstr(e.msg, "--trace-speedup only applies with --fixed-schedule") != NULL);
    gp_profile_config_free(&c);
}

/* A repeated -u/--url keeps the last (GenAI-Perf's argparse store); several
 * endpoints only with --urls; whichever of the two comes last wins. */
static void test_url_last_wins(void)
{
    struct profile_config c;
    struct gp_error e;
    CHECK_INT(parse(&c, &e, "-m", "m", "--url", "http://a:1", "-u", "http://b:2", NULL), 0);
    CHECK_INT(c.n_urls, 1);
    CHECK_STR(c.urls[0], "http://b:2");
    CHECK_STR(c.url, "http://b:2");
    CHECK_INT(c.n_url_flags, 2);
    CHECK_INT(c.n_urls_given, 2);
    CHECK_STR(c.urls_given[0], "http://a:1");
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--url", "http://x:9", "--urls", "http://a:1", "http://b:2", NULL), 0);
    CHECK_INT(c.n_urls, 2);
    CHECK_STR(c.urls[0], "http://a:1");
    CHECK_STR(c.url, "http://b:2"); /* input_config.url: the last, as for --url */
    CHECK_INT(c.urls_listed, 1);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--urls", "http://a:1", "http://b:2", "--url-strategy", "least_in_flight",
                    "--url", "http://x:9", NULL), 0);
    CHECK_INT(c.n_urls, 1);
    CHECK_STR(c.url, "http://x:9");
    CHECK_INT(c.n_urls_flags, 1);
    CHECK_INT(c.n_urls_given, 3);
    gp_profile_config_free(&c);
    CHECK_INT(parse(&c, &e, "-m", "m", "--urls", "http://a:1", "http://b:2", "--urls", "http://c:3", NULL), 0);
    CHECK_INT(c.n_urls, 1); /* nargs='+' replaces too */
    gp_profile_config_free(&c);
    /* the old spelling with a strategy: a usage error naming --urls */
    CHECK(parse(&c, &e, "-m", "m", "--url", "http://a:1", "--url", "http://b:2", "--url-strategy", "round_robin",
                NULL) < 0);
    CHECK_INT(c.usage_error, 1);
    CHECK(strstr(e.msg, "--urls URL URL") != NULL);
    gp_profile_config_free(&c);
    CHECK(parse(&c, &e, "-m", "m", "--urls", "--streaming", NULL) < 0);
    CHECK_STR(e.msg, "argument --urls: expected at least one argument");
    gp_profile_config_free(&c);
}
/* Issue 43 item 2: every ramp that leaves nothing to measure is a usage
 * error (exit 2) before a request is sent, naming the flags and the fix; a
 * ramp that leaves something measured is accepted. */
static void test_ramp_refusals(void)
{
    struct profile_config c;
    struct gp_error e;
    static const struct {
        const char *args[8];
        const char *says; /* NULL: accepted */
    } cases[] = {
        {{"--concurrency", "1", "--request-count", "5", "--ramp-up-duration", "5"}, "at --concurrency 1 there is nothing to ramp"},
        {{"--ramp-up-duration", "5"}, "--warmup-request-count N"}, /* --concurrency 1 is the default */
        {{"--duration", "2", "--ramp-up-duration", "3"}, "3 s is not shorter than --duration 2 s"},
        {{"--concurrency", "4", "--duration", "2", "--ramp-up-duration", "2"}, "make --ramp-up-duration shorter than --duration"},
        {{"--request-rate", "10", "--duration", "2", "--ramp-up-duration", "2"}, "not shorter than --duration"},
        {{"--request-rate", "10", "--request-count", "10", "--ramp-up-duration", "3"}, "raise --request-count above 15"},
        {{"--concurrency", "2", "--request-count", "2", "--ramp-up-duration", "5"}, NULL},
        {{"--concurrency", "1", "--duration", "3", "--ramp-up-duration", "2"}, NULL},
        {{"--request-rate", "10", "--request-count", "16", "--ramp-up-duration", "3"}, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[12] = {"profile", "-m", "m"};
        int argc = 3;
        for (int k = 0; cases[i].args[k]; k++)
            argv[argc++] = (char *)cases[i].args[k];
        gp_profile_config_init(&c);
        memset(&e, 0, sizeof e);
        int rc = gp_profile_parse(&c, argc, argv, "genperf profile", &e);
        if (cases[i].says) {
            CHECK(rc < 0);
            CHECK_INT(c.usage_error, 1);
            CHECK(strstr(e.msg, "argument --ramp-up-duration: ") == e.msg);
            CHECK(strstr(e.msg, cases[i].says) != NULL);
            CHECK(strchr(e.msg, '\n') == NULL);
        } else {
            CHECK_INT(rc, 0);
        }
        gp_profile_config_free(&c);
    }
}

int main(void)
{
    GP_RUN(test_shapes);
    GP_RUN(test_url_last_wins);
    GP_RUN(test_ramp_refusals);
    return gp_test_summary();
}
