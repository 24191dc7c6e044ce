/* export/test_fidelity.c — the fidelity verdict (fidelity.c) on hand-made
 * figures: each rule fires past its threshold and not below it, the
 * short-run and few-late guards hold, and the figures are taken from a
 * record store as the rules expect (cap-delayed sends and warmup left out). */
#include "client/record.h"
#include "core/test.h"
#include "export/export.h"

#include <string.h>

static struct gp_fidelity_inputs calm(void)
{
    return (struct gp_fidelity_inputs){
        .busy_fraction = 0.3, .run_s = 10, .schedule_lag_p99_ms = -1, .send_lag_p99_ms = 0.05, .send_n = 1000,
        .recv_lag_max_ms = 12, .recv_lag_avg_ms = 0.2, .cpu_s = 3, .n_cpus = 2,
    };
}

static void test_rules(void)
{
    struct gp_fidelity f;
    struct gp_fidelity_inputs in = calm();
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 0);
    CHECK_INT(f.n_reasons, 0);

    /* issue 40 item 6: requests the client itself failed (68 of 300 for
     * lack of descriptors) limit the run, whatever the timing says */
    in.local_failed = 68, in.local_of = 300;
    snprintf(in.local_what, sizeof in.local_what, "%s", "Too many open files");
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 1);
    CHECK(strstr(f.reasons[0], "68 of 300 requests failed in the client itself (Too many open files)") == f.reasons[0]);
    in.run_s = 0.1; /* no guard: even a short run did not apply its load */
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 1);
    in = calm();
    CHECK_STR(gp_fidelity_local_cause("Failed to connect to h port 1: socket: Too many open files in system", 69),
              "Too many open files in system");
    CHECK_STR(gp_fidelity_local_cause("x: Cannot assign requested address", 35), "Cannot assign requested address");
    CHECK(gp_fidelity_local_cause("Failed to connect: Connection refused", 37) == NULL);

    in.busy_fraction = 0.95;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 1);
    CHECK_INT(f.n_reasons, 1);
    CHECK(strstr(f.reasons[0], "busy 95%") && strstr(f.reasons[0], "limit 90%") && strstr(f.reasons[0], "--workers"));
    in.run_s = 0.3; /* mostly setup: says nothing */
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 0);
    in = calm();
    in.busy_fraction = 0.89;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 0);

    /* schedule lag: p99 past 10 ms and at least 5 sends past it */
    in = calm();
    in.schedule_lag_p99_ms = 40, in.sched_n = 100, in.sched_late = 4;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 0);
    in.sched_late = 5;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 1);
    CHECK(strstr(f.reasons[0], "schedule lag p99 40.0 ms") && strstr(f.reasons[0], "5 of 100"));
    in.schedule_lag_p99_ms = 9.9;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 0);

    /* send lag */
    in = calm();
    in.send_lag_p99_ms = 25, in.send_late = 12;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 1);
    CHECK(strstr(f.reasons[0], "send lag p99 25.0 ms"));

    /* receive lag: the average, not one preempted read's max */
    in = calm();
    in.recv_lag_max_ms = 200;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 0);
    in.recv_lag_avg_ms = 6;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 1);
    CHECK(strstr(f.reasons[0], "6.0 ms on average"));
    in.run_s = 0.2; /* a short run's reads are mostly its start */
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 0);

    /* CPU: 1.9 of 2 CPUs over 10 s (two workers, neither alone past 90%) */
    in = calm();
    in.cpu_s = 19;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 1);
    CHECK(strstr(f.reasons[0], "1.90 of the host's 2 CPUs"));

    /* several reasons, in order; the JSON block's schema */
    in.busy_fraction = 0.99, in.send_lag_p99_ms = 30, in.send_late = 50;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.n_reasons, 3);
    json_t *j = gp_fidelity_json(&in, &f);
    CHECK(json_is_true(json_object_get(j, "client_limited")));
    CHECK_STR(json_string_value(json_object_get(j, "verdict")), "limiting");
    CHECK_INT((int)json_array_size(json_object_get(j, "reasons")), 3);
    json_t *ij = json_object_get(j, "inputs");
    CHECK(json_is_null(json_object_get(ij, "schedule_lag_p99_ms")));
    CHECK_NEAR(json_real_value(json_object_get(ij, "send_lag_p99_ms")), 30, 1e-9);
    CHECK_NEAR(json_real_value(json_object_get(ij, "busy_fraction")), 0.99, 1e-9);
    json_decref(j);
}

static void test_inputs_from_store(void)
{
    struct gp_record recs[20];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < 20; i++) {
        recs[i].t_sched_ns = 1000000000ull + (uint64_t)i * 1000000ull;
        recs[i].t_start_ns = recs[i].t_sched_ns + (i < 10 ? 100000ull : 50000000ull); /* 0.1 ms / 50 ms late */
        recs[i].t_send_ns = recs[i].t_start_ns + 20000ull;                           /* 0.02 ms */
    }
    /* of the 10 late ones: 2 waited for the cap, 3 were warmup: 5 stay */
    recs[10].flags = recs[11].flags = GP_REC_CAP_DELAYED;
    recs[12].flags = recs[13].flags = recs[14].flags = GP_REC_WARMUP;
    recs[14].t_send_ns = recs[14].t_start_ns + 900000000ull; /* warmup: not counted */
    struct gp_record_store st = {.recs = recs, .n = 20};
    struct gp_export_ctx ctx = {.store = &st, .client_busy_fraction = 0.5, .client_run_ns = 2000000000ull,
                                .client_cpu_ns = 1000000000ull};
    struct gp_fidelity_inputs in;
    gp_fidelity_inputs(&ctx, &in);
    CHECK_INT((int)in.sched_n, 15);
    CHECK_INT((int)in.sched_late, 5);
    CHECK(in.schedule_lag_p99_ms > 49 && in.schedule_lag_p99_ms < 50.1);
    CHECK_INT((int)in.send_n, 17);
    CHECK_NEAR(in.send_lag_p99_ms, 0.02, 1e-6);
    CHECK_INT((int)in.send_late, 0);
    CHECK_NEAR(in.cpu_s, 1.0, 1e-9);
    CHECK_NEAR(in.run_s, 2.0, 1e-9);
    CHECK(in.recv_lag_avg_ms < 0); /* no kernel stamps */
    ctx.client_cpu_ns = 0;         /* MPI ranks: unknown */
    struct gp_fidelity_inputs in2;
    gp_fidelity_inputs(&ctx, &in2);
    CHECK(in2.cpu_s < 0);
    struct gp_fidelity f;
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 1); /* 5 late sends out of 15, p99 50 ms */
    /* closed loop: no schedule figure */
    for (int i = 0; i < 20; i++)
        recs[i].t_sched_ns = 0;
    gp_fidelity_inputs(&ctx, &in);
    CHECK(in.schedule_lag_p99_ms < 0);
    gp_fidelity_assess(&in, &f);
    CHECK_INT(f.limiting, 0);
}

int main(void)
{
    GP_RUN(test_rules);
    GP_RUN(test_inputs_from_store);
    return gp_test_summary();
}
