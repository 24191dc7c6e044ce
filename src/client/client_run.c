/* client/client_run.c — gp_client_run, over the client's layers
 * (client_int.h): the request headers, the URL checks, the fd table, the
 * transport's setup, the warmup and measured phases (client_loop.c), and the
 * teardown of everything the loop's structs point to.
 *
 * Why one thread: every timestamp is taken on the thread that reads the
 * socket, so a chunk's time is when its bytes arrived, not when some other
 * thread got around to it; and the busy fraction of that one thread tells the
 * user whether the client itself limited the measurement.
 *
 * Why the event API (curl_multi_socket_action + our own epoll set): with
 * curl_multi_perform + curl_multi_poll every wake-up polls and walks every
 * open transfer, so one chunk costs O(open streams) and thousands of idle
 * streams keep the thread busy; here a wake-up costs O(ready sockets). The
 * stop fd sits in the same epoll set, and the wait also ends at curl's timer,
 * the next scheduled arrival, the phase deadline or the end of the grace.
 */
#include "client/cl_loop.h"
#include "client/cl_request.h"
#include "client/cl_transport.h"
#include "core/clock.h"
#include "core/error.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int build_headers(struct loop *L, struct gp_error *err)
{
    const struct gp_client_opts *o = L->o;
    int user_ct = 0;
    for (size_t i = 0; i < o->n_headers; i++)
        if (!strncasecmp(o->headers[i], "Content-Type:", 13))
            user_ct = 1;
    struct curl_slist *h = NULL, *t;
    /* An empty Expect: stops curl's 100-continue round trip on big bodies. */
    if (!(t = curl_slist_append(h, "Expect:")))
        goto oom;
    h = t;
    if (!user_ct) {
        if (!(t = curl_slist_append(h, "Content-Type: application/json")))
            goto oom;
        h = t;
    }
    for (size_t i = 0; i < o->n_headers; i++) {
        /* perf_analyzer keeps headers in a map: the last one of a name wins */
        const char *colon = strchr(o->headers[i], ':');
        size_t nl = colon ? (size_t)(colon - o->headers[i]) : strlen(o->headers[i]);
        int later = 0;
        for (size_t j = i + 1; j < o->n_headers; j++)
            if (!strncmp(o->headers[j], o->headers[i], nl) && o->headers[j][nl] == ':')
                later = 1;
        if (later)
            continue;
        if (!(t = curl_slist_append(h, o->headers[i])))
            goto oom;
        h = t;
    }
    L->hdrs = h;
    return 0;
oom:
    curl_slist_free_all(h);
    return gp_err(err, GP_ENOMEM, "out of memory building request headers");
}

uint64_t gp_client_fd_need(const struct gp_client_opts *o)
{
    long inflight = gp_load_is_open(&o->load) ? o->load.max_inflight : o->load.concurrency;
    return inflight > 0 ? (uint64_t)inflight + GP_CLIENT_FD_SPARE : 0;
}

/* Grows the process's fd table now to hold every connection the run may
 * open. The kernel doubles the table when an fd number passes its size, and
 * in a multi-threaded process (the prefault helper, workers, telemetry) that
 * waits for an RCU grace period: socket() blocked 11-17 ms at fd 256 and 512,
 * and every open stream's chunks arrived that much late. F_DUPFD takes the
 * lowest free fd >= the target, so it never clobbers one in use. Best effort:
 * an open loop without a cap guesses one socket per measured request. */
void gp_cl_reserve_fd_table(const struct gp_client_opts *job)
{
    uint64_t need = gp_client_fd_need(job);
    if (!need && job->load.request_count > 0)
        need = (uint64_t)job->load.request_count + GP_CLIENT_FD_SPARE;
    struct rlimit rl;
    if (!need || getrlimit(RLIMIT_NOFILE, &rl))
        return;
    if (rl.rlim_cur != RLIM_INFINITY && (rlim_t)need >= rl.rlim_cur)
        need = (uint64_t)rl.rlim_cur - 1;
    int fd = need > GP_CLIENT_FD_SPARE && need <= INT_MAX ? fcntl(0, F_DUPFD_CLOEXEC, (int)need) : -1;
    if (fd >= 0)
        close(fd);
}


static int check_url(const char *url, struct gp_error *err)
{
    CURLU *u = curl_url();
    if (!u)
        return gp_err(err, GP_ENOMEM, "out of memory");
    CURLUcode uc = curl_url_set(u, CURLUPART_URL, url, CURLU_DEFAULT_SCHEME);
    char *scheme = NULL;
    if (uc == CURLUE_OK)
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
    int bad_scheme = scheme && strcasecmp(scheme, "http") && strcasecmp(scheme, "https");
    curl_free(scheme);
    curl_url_cleanup(u);
    if (uc != CURLUE_OK)
        return gp_err(err, GP_EINVAL, "--url: cannot parse request URL '%s' (%s); pass e.g. http://127.0.0.1:8000",
                      url, curl_url_strerror(uc));
    if (bad_scheme)
        return gp_err(err, GP_EINVAL, "--url: '%s' is not an http:// or https:// URL", url);
    return 0;
}

int gp_client_run(const struct gp_client_opts *o, struct gp_record_store *st, struct gp_client_stats *stats,
                  struct gp_error *err)
{
    memset(stats, 0, sizeof *stats);
    if (!o->n_bodies)
        return gp_err(err, GP_EINVAL, "the dataset is empty: nothing to send");
    if (o->n_urls > GP_CLIENT_MAX_URLS)
        return gp_err(err, GP_EINVAL, "%zu --url given; at most %d", o->n_urls, GP_CLIENT_MAX_URLS);
    for (size_t i = 0; i < (o->n_urls > 1 ? o->n_urls : 1); i++)
        if (check_url(o->n_urls > 1 ? o->urls[i] : o->url, err) < 0)
            return -GP_EINVAL;

    struct loop L;
    memset(&L, 0, sizeof L);
    L.o = o;
    L.ep_next = (uint64_t)(o->load.share_count > 1 ? o->load.share_index : 0);
    L.st = st;
    L.stats = stats;
    int rc = build_headers(&L, err);
    if (rc < 0)
        return rc;
    if ((rc = gp_cl_h1_setup(&L, err)) < 0) {
        curl_slist_free_all(L.hdrs);
        return rc;
    }
    if ((rc = gp_cl_tr_init(&L, err)) < 0) {
        gp_cl_tr_free(&L);
        gp_cl_h1_teardown(&L);
        curl_slist_free_all(L.hdrs);
        return rc;
    }
    gp_rng_seed(&L.bo_rng, o->seed ^ 0x6261636b6f6666ull); /* "backoff": its own stream */

    st->budget = o->budget; /* charged while this run appends, not by later merges */
    /* page faults of the growing record store off this thread (best effort) */
    gp_record_store_prefault_start(st);
    if (!st->mono0_ns) {
        st->mono0_ns = gp_now_ns();
        st->wall0_ns = gp_wall_ns();
    }
    if (o->load.warmup_count > 0) {
        struct phase w = {.warmup = 1, .count = o->load.warmup_count, .deadline = 0};
        rc = gp_cl_run_phase(&L, &w, err);
        gp_cl_progress_draw(&L, gp_now_ns(), 1);
    }
    uint64_t t0 = o->measure_start ? o->measure_start(o->measure_ctx) : 0;
    if (rc == 0 && !L.stopping) {
        if (t0) {
            struct timespec ts = {.tv_sec = (time_t)(t0 / 1000000000ull), .tv_nsec = (long)(t0 % 1000000000ull)};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
        }
        uint64_t cpu0 = gp_cl_thread_cpu_ns();
        stats->began_ns = gp_now_ns();
        stats->start_ns = t0 ? t0 : stats->began_ns;
        struct phase m = {.warmup = 0, .count = o->load.duration_ns || o->plan ? -1 : o->load.request_count,
                          .deadline = 0, .start_ns = t0};
        if (o->load.duration_ns)
            m.deadline = stats->start_ns + o->load.duration_ns;
        rc = gp_cl_run_phase(&L, &m, err);
        stats->end_ns = gp_now_ns();
        stats->cpu_ns = gp_cl_thread_cpu_ns() - cpu0;
        uint64_t wall = stats->end_ns - stats->start_ns;
        stats->busy_fraction = wall ? (double)stats->cpu_ns / (double)wall : 0;
        gp_cl_progress_draw(&L, gp_now_ns(), 1);
    }
    if (rc < 0)
        gp_cl_abandon_inflight(&L, 0, NULL);
    gp_record_store_prefault_stop(st);
    gp_record_budget_publish(st);
    st->budget = NULL;
    for (size_t i = 0; i < L.nslots; i++)
        gp_cl_slot_free(L.slots[i]);
    free(L.slots);
    gp_cl_tr_free(&L); /* the shards, then the epoll set */
    gp_cl_h1_teardown(&L);
    curl_slist_free_all(L.hdrs);
    gp_buf_free(&L.tmp);
    gp_buf_free(&L.body);
    return rc;
}
