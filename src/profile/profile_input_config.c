/* profile/profile_input_config.c — gp_profile_input_config: the config as
 * GenAI-Perf's *_genai_perf.json "input_config" object (create_config.py's
 * layout), secrets redacted. Split from profile_config.c, which owns the
 * config it reads. The caller owns the returned object (json_decref).
 */
#include "profile/profile_config.h"
#include "profile/profile_int.h"

#include "core/redact.h"
#include "export/export.h"

#include <string.h>

/* jansson helpers that keep the build-up readable; a NULL from an
 * allocation propagates to the top-level check (json_object_set_new
 * tolerates NULL values by failing). */
static json_t *str_list(const char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

/* A URL as it may be written: GenAI-Perf copies --url verbatim, but a
 * password or token in its userinfo must never reach an artifact. */
static json_t *url_string(const char *url)
{
    char shown[2048];
    gp_redact_url(url, shown, sizeof shown);
    return json_string(shown);
}

static json_t *url_list(const char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, url_string(v[i]));
    return a;
}

/* input_config.header as GenAI-Perf writes it, secrets as "Name: ***". */
static json_t *header_list(const struct profile_config *cfg)
{
    struct gp_redact red;
    gp_profile_redact(cfg, &red);
    json_t *a = json_array();
    for (size_t i = 0; a && i < cfg->n_headers; i++) {
        const char *h = cfg->headers[i], *colon = strchr(h, ':');
        if (colon && gp_redact_is_secret(&red, h, (size_t)(colon - h))) {
            char line[1024];
            gp_redact_header_line(&red, h, line, sizeof line);
            json_array_append_new(a, json_string(line));
        } else {
            json_array_append_new(a, json_string(h));
        }
    }
    return a;
}

static json_t *mean_stddev(json_int_t mean, json_int_t stddev)
{
    return json_pack("{s:I, s:I}", "mean", mean, "stddev", stddev);
}

json_t *gp_profile_input_config(const struct profile_config *cfg)
{
    static const char *const default_metrics_url[] = {"http://localhost:9400/metrics"};
    json_t *root = json_object();
    if (!root)
        return NULL;
    int bad = 0;
#define SET(obj, key, val) bad |= json_object_set_new((obj), (key), (val))
    SET(root, "model_names", str_list(cfg->models, cfg->n_models));
    SET(root, "subcommand", json_string("profile"));
    SET(root, "verbose", json_boolean(cfg->verbose));
    SET(root, "template_filename", json_string("genai_perf_config.yaml"));
    SET(root, "analyze", json_pack("{s:{s:{s:i, s:i}}}", "sweep_parameters", "concurrency", "min", 1, "max", 1024));

    json_t *ep = json_object();
    SET(root, "endpoint", ep);
    if (ep) {
        SET(ep, "model_selection_strategy", json_string(cfg->model_random ? "random" : "round_robin"));
        SET(ep, "backend", json_string("tensorrtllm"));
        SET(ep, "custom", json_string(cfg->endpoint));
        SET(ep, "type", json_string(gp_profile_endpoint_type_name(cfg)));
        SET(ep, "streaming", json_boolean(cfg->streaming));
        SET(ep, "server_metrics_urls", cfg->metrics_urls_given ? url_list(cfg->metrics_urls, cfg->n_metrics_urls)
                                                               : str_list(default_metrics_url, 1));
        SET(ep, "url", url_string(cfg->url_given ? cfg->url : "localhost:8001"));
        SET(ep, "grpc_method", json_string(""));
        SET(ep, "service_kind", json_string("openai"));
        SET(ep, "output_format", json_string(gp_profile_output_format(cfg)));
    }

    json_t *pa = json_object();
    SET(root, "perf_analyzer", pa);
    if (pa) {
        SET(pa, "path", json_string("perf_analyzer"));
        SET(pa, "verbose", json_boolean(cfg->verbose));
        /* one key, as create_config.py _convert_args_to_stimulus picks it */
        int ss = gp_profile_schedule_stimulus(cfg);
        if (ss == 1)
            SET(pa, "stimulus", json_pack("{s:I}", "session_concurrency", (json_int_t)cfg->sessions.session_concurrency));
        else if (ss == 2)
            SET(pa, "stimulus", json_pack("{s:n}", "fixed_schedule"));
        else if (cfg->request_rate > 0)
            SET(pa, "stimulus", json_pack("{s:f}", "request_rate", cfg->request_rate));
        else
            SET(pa, "stimulus", json_pack("{s:I}", "concurrency", (json_int_t)cfg->concurrency));
        SET(pa, "stability_percentage", cfg->stability_given ? json_real(cfg->stability) : json_integer(999));
        json_t *meas = json_object();
        SET(pa, "measurement", meas);
        if (meas) {
            if (cfg->measurement_interval_ms) {
                SET(meas, "mode", json_string("interval"));
                SET(meas, "num", json_integer(cfg->measurement_interval_ms));
            } else {
                SET(meas, "mode", json_string("request_count"));
                SET(meas, "num", cfg->request_count_given ? json_integer(cfg->request_count) : json_string(""));
            }
        }
        SET(pa, "warmup_request_count", json_integer(cfg->warmup));
    }

    json_t *in = json_object();
    SET(root, "input", in);
    if (in) {
        SET(in, "batch_size", json_integer(cfg->batch_size));
        SET(in, "extra", cfg->extra_inputs ? json_deep_copy(cfg->extra_inputs) : json_string(""));
        if (cfg->n_slos) {
            json_t *g = json_object();
            for (size_t i = 0; g && i < cfg->n_slos; i++)
                SET(g, cfg->slos[i].namebuf, json_real(cfg->slos[i].value));
            SET(in, "goodput", g);
        } else {
            SET(in, "goodput", json_string(""));
        }
        SET(in, "header", cfg->n_headers ? header_list(cfg) : json_string(""));
        SET(in, "file", json_string(cfg->input_file ? cfg->input_file : ""));
        SET(in, "num_dataset_entries", json_integer(cfg->num_entries));
        SET(in, "random_seed", json_integer((json_int_t)cfg->seed));
        SET(in, "audio", gp_profile_audio_json(cfg));
        SET(in, "image", gp_profile_image_json(cfg));
        json_t *ot = json_object();
        SET(in, "output_tokens", ot);
        if (ot) {
            SET(ot, "mean", cfg->osl_mean >= 0 ? json_integer(cfg->osl_mean) : json_string(""));
            SET(ot, "deterministic", json_boolean(cfg->osl_deterministic));
            SET(ot, "stddev", json_integer(cfg->osl_stddev));
        }
        SET(in, "synthetic_tokens", mean_stddev(cfg->isl_mean, cfg->isl_stddev));
        SET(in, "prefix_prompt",
            json_pack("{s:I, s:I}", "num", (json_int_t)cfg->num_prefix_prompts, "length",
                      (json_int_t)cfg->prefix_prompt_length));
        /* create_config.py copies each session flag only when it is truthy,
         * so a 0 leaves GenAI-Perf's default (num 0, turns 1/0, delay 0/1.0/0) */
        const struct gp_session_opts *so = &cfg->sessions;
        SET(in, "sessions",
            json_pack("{s:I, s:{s:I, s:I}, s:{s:I, s:f, s:I}}", "num", (json_int_t)so->num_sessions, "turns", "mean",
                      (json_int_t)(so->turns_mean ? so->turns_mean : 1), "stddev", (json_int_t)so->turns_stddev,
                      "turn_delay", "mean", (json_int_t)so->delay_mean_ms, "ratio",
                      so->delay_ratio != 0 ? so->delay_ratio : 1.0, "stddev", (json_int_t)so->delay_stddev_ms));
        SET(in, "prompt_source", json_string(cfg->input_file ? "file" : "synthetic"));
        SET(in, "synthetic_files", json_array());
        SET(in, "payload_file", json_string(""));
    }

    SET(root, "output",
        json_pack("{s:s, s:s, s:s, s:b, s:b}", "artifact_directory", cfg->artifact_dir, "checkpoint_directory",
                  cfg->checkpoint_dir, "profile_export_file", cfg->profile_export_file, "generate_plots",
                  cfg->generate_plots, "enable_checkpointing", cfg->enable_checkpointing));
    SET(root, "tokenizer",
        json_pack("{s:s, s:s, s:b, s:b}", "name", cfg->tokenizer, "revision", cfg->tokenizer_revision,
                  "trust_remote_code", cfg->trust_remote_code, "_enable_debug_logging", 1));
    SET(root, "process", json_pack("{s:s}", "input_path", "aggregated"));
    /* genperf's own settings that GenAI-Perf's keys cannot say, after them
     * and only when one differs from what GenAI-Perf would do, so a run
     * GenAI-Perf could have made keeps its bytes: the arrival process of a
     * rate run other than perf_analyzer's constant one (issue 38 item 9) */
    const char *arrivals = gp_profile_arrival_process(cfg);
    if (arrivals && strcmp(arrivals, "constant")) {
        json_t *gx = json_pack("{s:s}", "request_rate_mode", arrivals);
        if (gx && cfg->rate_mode == GP_SCHED_GAMMA)
            SET(gx, "burstiness", json_real(cfg->burstiness));
        SET(root, "genperf", gx);
    }
#undef SET
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}
