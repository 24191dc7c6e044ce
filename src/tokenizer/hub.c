/* tokenizer/hub.c — HF cache lookup and hub download (libcurl) for
 * --tokenizer ORG/NAME; see hub.h for the resolution order.
 * Owns nothing beyond each call: curl handles and buffers are freed before
 * returning. Files land in the cache atomically (temp file + rename). */
#include "tokenizer/hub.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gp_hub_is_model_id(const char *s)
{
    if (!s || !*s || *s == '/' || *s == '.' || *s == '~')
        return 0;
    size_t n = strlen(s);
    if (n > 5 && !strcmp(s + n - 5, ".json")) /* a missing file, not a model */
        return 0;
    int slashes = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '/')
            slashes++;
        else if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            return 0;
    }
    return slashes <= 1 && s[strlen(s) - 1] != '/' && !strstr(s, "..");
}

static int hub_cache_dir(char *out, size_t sz)
{
    const char *e = getenv("HF_HUB_CACHE");
    if (e && *e)
        return snprintf(out, sz, "%s", e) >= (int)sz;
    if ((e = getenv("HUGGINGFACE_HUB_CACHE")) && *e)
        return snprintf(out, sz, "%s", e) >= (int)sz;
    if ((e = getenv("HF_HOME")) && *e)
        return snprintf(out, sz, "%s/hub", e) >= (int)sz;
    if ((e = getenv("XDG_CACHE_HOME")) && *e)
        return snprintf(out, sz, "%s/huggingface/hub", e) >= (int)sz;
    const char *home = getenv("HOME");
    return snprintf(out, sz, "%s/.cache/huggingface/hub", home ? home : ".") >= (int)sz;
}

static int is_commit(const char *rev)
{
    size_t n = strlen(rev);
    if (n != 40)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)rev[i]))
            return 0;
    return 1;
}

/* models--ORG--NAME */
static void repo_dir_name(const char *id, char *out, size_t sz)
{
    size_t k = (size_t)snprintf(out, sz, "models--");
    for (const char *p = id; *p && k + 3 < sz; p++) {
        if (*p == '/') {
            out[k++] = '-';
            out[k++] = '-';
        } else
            out[k++] = *p;
    }
    out[k] = 0;
}

static int read_ref(const char *repo, const char *rev, char *commit, size_t sz)
{
    if (is_commit(rev)) {
        snprintf(commit, sz, "%s", rev);
        return 0;
    }
    char p[4096];
    snprintf(p, sizeof p, "%s/refs/%s", repo, rev);
    FILE *f = fopen(p, "r");
    if (!f)
        return -1;
    int ok = fgets(commit, (int)sz, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    commit[strcspn(commit, "\r\n \t")] = 0;
    return *commit ? 0 : -1;
}

struct dl {
    struct gp_buf body;
    char commit[128];
    char etag[256];
};

static size_t on_body(char *p, size_t sz, size_t n, void *u)
{
    struct dl *d = u;
    return gp_buf_append(&d->body, p, sz * n) ? 0 : sz * n;
}

static void header_val(const char *line, size_t n, const char *name, char *out, size_t osz)
{
    size_t nl = strlen(name);
    if (n <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
        return;
    const char *v = line + nl + 1;
    const char *end = line + n;
    while (v < end && (*v == ' ' || *v == '"' || *v == 'W' || *v == '/')) {
        if (*v == 'W' && (v + 1 >= end || v[1] != '/'))
            break;
        v++;
    }
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == '"' || end[-1] == ' '))
        end--;
    size_t l = (size_t)(end - v);
    if (l >= osz)
        l = osz - 1;
    memcpy(out, v, l);
    out[l] = 0;
}

static size_t on_header(char *p, size_t sz, size_t n, void *u)
{
    struct dl *d = u;
    header_val(p, sz * n, "X-Repo-Commit", d->commit, sizeof d->commit);
    char e[256] = "";
    header_val(p, sz * n, "X-Linked-Etag", e, sizeof e);
    if (*e)
        snprintf(d->etag, sizeof d->etag, "%s", e);
    else if (!*d->etag)
        header_val(p, sz * n, "ETag", d->etag, sizeof d->etag);
    return sz * n;
}

/* GET url; 0 ok (body in d), 1 = 404, <0 error. */
static int http_get(const char *url, struct dl *d, struct gp_error *err)
{
    CURL *c = curl_easy_init();
    if (!c)
        return gp_err(err, GP_ENET, "cannot initialise libcurl");
    struct curl_slist *hdr = NULL;
    const char *tok = getenv("HF_TOKEN");
    if (!tok || !*tok)
        tok = getenv("HUGGING_FACE_HUB_TOKEN");
    char auth[1024];
    if (tok && *tok) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", tok);
        hdr = curl_slist_append(hdr, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, d);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, d);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "genperf/0 (tokenizer download)");
    if (hdr)
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    CURLcode rc = curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(c);
    curl_slist_free_all(hdr);
    if (rc != CURLE_OK)
        return gp_err(err, GP_ENET, "GET %s failed: %s", url, curl_easy_strerror(rc));
    if (code == 404)
        return 1;
    if (code == 401 || code == 403)
        return gp_err(err, GP_ENET, "GET %s: HTTP %ld (gated or private model: set HF_TOKEN)", url, code);
    if (code != 200)
        return gp_err(err, GP_ENET, "GET %s: HTTP %ld", url, code);
    return 0;
}

static int safe_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
            return 0;
    return 1;
}

/* Downloads one file into the cache layout; 1 = not on the hub. */
static int fetch_file(const char *endpoint, const char *id, const char *rev, const char *repo, const char *file,
                      char *commit_io, size_t csz, struct gp_error *err)
{
    char url[4096];
    snprintf(url, sizeof url, "%s/%s/resolve/%s/%s", endpoint, id, rev, file);
    struct dl d = {0};
    int r = http_get(url, &d, err);
    if (r) {
        gp_buf_free(&d.body);
        return r;
    }
    if (!*commit_io)
        snprintf(commit_io, csz, "%s", safe_name(d.commit) ? d.commit : (is_commit(rev) ? rev : rev));
    char blob[128];
    if (!safe_name(d.etag)) {
        /* no usable ETag: name the blob by a content hash so it is stable */
        unsigned long long h = 1469598103934665603ull;
        for (size_t i = 0; i < d.body.len; i++)
            h = (h ^ (unsigned char)d.body.data[i]) * 1099511628211ull;
        snprintf(blob, sizeof blob, "gp-%016llx", h);
    } else
        snprintf(blob, sizeof blob, "%s", d.etag);
    char p[4096], snap[4096], link[4096], rel[4096];
    snprintf(p, sizeof p, "%s/blobs", repo);
    snprintf(snap, sizeof snap, "%s/snapshots/%s", repo, commit_io);
    if ((r = gp_mkdir_p(p, err)) || (r = gp_mkdir_p(snap, err))) {
        gp_buf_free(&d.body);
        return r;
    }
    snprintf(p, sizeof p, "%s/blobs/%s", repo, blob);
    r = gp_write_file_atomic(p, d.body.data ? d.body.data : "", d.body.len, err);
    gp_buf_free(&d.body);
    if (r)
        return r;
    snprintf(link, sizeof link, "%s/%s", snap, file);
    snprintf(rel, sizeof rel, "../../blobs/%s", blob);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", link, (long)getpid());
    unlink(tmp);
    if (symlink(rel, tmp) != 0 || rename(tmp, link) != 0) {
        unlink(tmp);
        /* filesystems without symlinks: a plain copy works for every reader */
        char *data;
        size_t len;
        if ((r = gp_read_file(p, &data, &len, err)))
            return r;
        r = gp_write_file_atomic(link, data, len, err);
        free(data);
        if (r)
            return r;
    }
    return 0;
}

int gp_hub_resolve(const char *id, const char *revision, int offline, char *path, size_t sz,
                   struct gp_error *err)
{
    const char *rev = revision && *revision ? revision : "main";
    if (strchr(rev, '/') || strstr(rev, ".."))
        return gp_err(err, GP_EINVAL, "--tokenizer-revision '%s' is not a branch, tag or commit name", rev);
    char cache[4096], rname[512], repo[4700], commit[128] = "";
    if (hub_cache_dir(cache, sizeof cache))
        return gp_err(err, GP_EINVAL, "HF cache path is too long");
    repo_dir_name(id, rname, sizeof rname);
    snprintf(repo, sizeof repo, "%s/%s", cache, rname);
    if (read_ref(repo, rev, commit, sizeof commit) == 0) {
        if (snprintf(path, sz, "%s/snapshots/%s/tokenizer.json", repo, commit) < (int)sz && gp_is_file(path))
            return 0;
    }
    const char *off = getenv("HF_HUB_OFFLINE");
    if (offline || (off && *off && strcmp(off, "0") != 0))
        return gp_err(err, GP_ENOENT,
                      "tokenizer '%s' (revision %s) is not in the HF cache %s and downloads are off (offline): "
                      "pass --tokenizer /path/to/tokenizer.json (or a directory holding one), or fill the cache "
                      "with `huggingface-cli download %s tokenizer.json`", id, rev, cache, id);
    const char *ep = getenv("HF_ENDPOINT");
    char endpoint[2048];
    snprintf(endpoint, sizeof endpoint, "%s", ep && *ep ? ep : "https://huggingface.co");
    size_t el = strlen(endpoint);
    while (el && endpoint[el - 1] == '/')
        endpoint[--el] = 0;
    commit[0] = 0;
    int r = fetch_file(endpoint, id, rev, repo, "tokenizer.json", commit, sizeof commit, err);
    if (r == 1)
        return gp_err(err, GP_ENOENT, "model '%s' (revision %s) has no tokenizer.json on %s: pass --tokenizer "
                                      "/path/to/tokenizer.json instead", id, rev, endpoint);
    if (r)
        return gp_err_prefix(err, "downloading tokenizer '%s' (offline? pass --tokenizer /path/to/tokenizer.json)", id);
    struct gp_error e2 = {0};
    (void)fetch_file(endpoint, id, rev, repo, "tokenizer_config.json", commit, sizeof commit, &e2);
    if (!is_commit(rev)) {
        char refs[4800];
        snprintf(refs, sizeof refs, "%s/refs", repo);
        if (!gp_mkdir_p(refs, &e2)) {
            snprintf(refs, sizeof refs, "%s/refs/%s", repo, rev);
            (void)gp_write_file_atomic(refs, commit, strlen(commit), &e2);
        }
    }
    if (snprintf(path, sz, "%s/snapshots/%s/tokenizer.json", repo, commit) >= (int)sz)
        return gp_err(err, GP_EINVAL, "HF cache path is too long");
    return 0;
}
