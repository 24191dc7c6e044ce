/* serve/server_route.c — the request layer's door (serve/srv_req.h): cuts a
 * connection's input into requests (serve/http.c), routes each to its
 * endpoint, and answers the small endpoints (health, models, version). */
#include "serve/srv_req.h"
#include "serve/http.h"
#include "core/clock.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int path_is(const struct gp_http_req *hr, const char *p)
{
    size_t n = strlen(p);
    return hr->path_len == n && !memcmp(hr->path, p, n);
}

static int auth_ok(struct srv *s, const struct gp_http_req *hr)
{
    if (!s->o->api_key || s->o->flavor == GP_FLAVOR_TRTLLM)
        return 1;
    size_t kl = strlen(s->o->api_key);
    if (path_is(hr, "/v1/messages")) /* Anthropic sends its key as x-api-key, no Bearer */
        return hr->x_api_key && hr->x_api_key_len == kl && !memcmp(hr->x_api_key, s->o->api_key, kl);
    if (!hr->authorization || hr->authorization_len < 7 || strncasecmp(hr->authorization, "Bearer ", 7))
        return 0;
    return hr->authorization_len - 7 == kl && !memcmp(hr->authorization + 7, s->o->api_key, kl);
}


static void handle_request(struct srv *s, struct conn *c, const struct gp_http_req *hr)
{
    int fl = s->o->flavor;
    struct sreq *r = &c->r;
    c->keep_alive = hr->keep_alive;
    r->http10 = hr->minor == 0;
    int v1 = hr->path_len >= 4 && !memcmp(hr->path, "/v1/", 4);
    if (v1 && !auth_ok(s, hr)) {
        const char *b = "{\"error\":\"Unauthorized\"}";
        srv_send_simple(s, c, 401, "application/json", b, strlen(b));
        return;
    }
    int is_chat = path_is(hr, "/v1/chat/completions"), is_cmpl = path_is(hr, "/v1/completions");
    int is_resp = path_is(hr, "/v1/responses"), is_anth = path_is(hr, "/v1/messages");
    if (is_chat || is_cmpl || is_resp || is_anth) {
        if (hr->method != GP_HTTP_POST) {
            const char *b = "{\"detail\":\"Method Not Allowed\"}";
            srv_send_simple(s, c, 405, "application/json", b, strlen(b));
            return;
        }
        /* Anthropic's API refuses a request without anthropic-version; vLLM's
         * and SGLang's /v1/messages read no such header (commits in docs/serve.md) */
        if (is_anth && !hr->anthropic_version && fl != GP_FLAVOR_VLLM && fl != GP_FLAVOR_SGLANG) {
            const char *b = "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                            "\"message\":\"anthropic-version: header is required\"}}";
            srv_send_simple(s, c, 400, "application/json", b, strlen(b));
            return;
        }
        srv_handle_generate(s, c, hr, is_anth ? GP_EP_ANTHROPIC : is_chat ? GP_EP_CHAT : is_resp ? GP_EP_RESPONSES : GP_EP_COMPLETIONS);
        return;
    }
    int is_emb = path_is(hr, "/v1/embeddings");
    if (is_emb || path_is(hr, "/v1/ranking") || path_is(hr, "/rerank")) {
        if (hr->method != GP_HTTP_POST) {
            const char *b = "{\"detail\":\"Method Not Allowed\"}";
            srv_send_simple(s, c, 405, "application/json", b, strlen(b));
            return;
        }
        srv_handle_pool(s, c, hr, is_emb ? GP_EP_EMBEDDINGS : GP_EP_RANKING);
        return;
    }
    if (hr->method != GP_HTTP_GET) {
        const char *b = "{\"detail\":\"Method Not Allowed\"}";
        int known = path_is(hr, "/health") || path_is(hr, "/v1/models") || path_is(hr, "/metrics");
        if (known) {
            srv_send_simple(s, c, 405, "application/json", b, strlen(b));
            return;
        }
    } else if (path_is(hr, "/health") || path_is(hr, "/ping") ||
               (fl == GP_FLAVOR_SGLANG && path_is(hr, "/health_generate"))) {
        int warm = !s->ready_at_ns || gp_now_ns() >= s->ready_at_ns;
        srv_send_simple(s, c, warm ? 200 : 503, fl == GP_FLAVOR_VLLM ? NULL : "application/json", "", 0);
        return;
    } else if (path_is(hr, "/v1/models")) {
        struct gp_buf b = {0};
        const char *owner = fl == GP_FLAVOR_SGLANG ? "sglang" : fl == GP_FLAVOR_TRTLLM ? "tensorrt_llm" : "vllm";
        gp_buf_puts(&b, "{\"object\":\"list\",\"data\":[{\"id\":");
        gp_buf_json_str(&b, s->o->model, strlen(s->o->model));
        gp_buf_printf(&b, ",\"object\":\"model\",\"created\":%lld,\"owned_by\":\"%s\",\"root\":",
                      (long long)(gp_wall_ns() / 1000000000ull), owner);
        gp_buf_json_str(&b, s->o->model, strlen(s->o->model));
        gp_buf_printf(&b, ",\"parent\":null,\"max_model_len\":%u}]}", s->o->max_model_len);
        srv_send_simple(s, c, 200, "application/json", b.data, b.len);
        gp_buf_free(&b);
        return;
    } else if (path_is(hr, "/metrics") || path_is(hr, "/prometheus/metrics")) {
        srv_send_metrics(s, c, fl == GP_FLAVOR_TRTLLM && path_is(hr, "/metrics"));
        return;
    } else if (path_is(hr, "/version")) {
        const char *b = "{\"version\":\"genperf-sim\"}";
        srv_send_simple(s, c, 200, "application/json", b, strlen(b));
        return;
    }
    const char *b = "{\"detail\":\"Not Found\"}";
    srv_send_simple(s, c, 404, "application/json", b, strlen(b));
}

/* Serves every complete request in the input buffer, one at a time. */
void srv_process_input(struct srv *s, struct conn *c)
{
    while (!c->closing && !c->close_after_write && c->r.state == R_NONE && c->in.len) {
        struct gp_http_req hr;
        long n = gp_http_parse(c->in.data, c->in.len, s->o->max_body, &hr, &c->body);
        if (n == 0) {
            if (hr.head_len && hr.expect_continue && !c->sent_continue) {
                c->sent_continue = 1;
                gp_buf_puts(&c->out, "HTTP/1.1 100 Continue\r\n\r\n");
                srv_mark_dirty(s, c);
            }
            return;
        }
        if (n < 0) {
            c->keep_alive = 0;
            char b[80];
            int len = snprintf(b, sizeof b, "{\"detail\":\"%s\"}", gp_http_reason((int)-n));
            srv_send_simple(s, c, (int)-n, "application/json", b, (size_t)len);
            gp_buf_reset(&c->in);
            return;
        }
        c->sent_continue = 0;
        srv_cancel_timer(s, c);
        handle_request(s, c, &hr);
        /* the request's bytes (and the pointers into them) are no longer needed */
        memmove(c->in.data, c->in.data + n, c->in.len - (size_t)n);
        c->in.len -= (size_t)n;
        c->in.data[c->in.len] = '\0';
        if (c->body.cap > (1u << 20))
            gp_buf_free(&c->body);
    }
    if (!c->closing && c->r.state == R_NONE && !c->close_after_write)
        srv_set_timer(s, c, gp_now_ns() + s->idle_ns, T_IDLE);
}
