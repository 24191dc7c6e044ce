#include "runner/recipe.h"
#include "runner/scenario.h"
#include "runner/yamljson.h"
#include "core/buf.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipes.h" /* generated: gp_builtin_recipes[] */

int gp_argv_push(struct gp_argv *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 16;
        char **p = realloc(a->v, nc * sizeof *p);
        if (!p)
            return -GP_ENOMEM;
        a->v = p;
        a->cap = nc;
    }
    a->v[a->n++] = strdup(s);
    a->v[a->n] = NULL;
    return 0;
}

void gp_argv_free(struct gp_argv *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof *a);
}

int gp_argv_to_shell(const struct gp_argv *a, struct gp_buf *out)
{
    for (size_t i = 0; i < a->n; i++) {
        const char *w = a->v[i];
        if (i)
            gp_buf_putc(out, ' ');
        int safe = *w != '\0';
        for (const char *p = w; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%", *p))
                safe = 0;
        if (safe) {
            gp_buf_puts(out, w);
            continue;
        }
        gp_buf_putc(out, '\'');
        for (const char *p = w; *p; p++) {
            if (*p == '\'')
                gp_buf_puts(out, "'\\''");
            else
                gp_buf_putc(out, *p);
        }
        gp_buf_putc(out, '\'');
    }
    return 0;
}

static int known_frameworks(char *out, size_t n, const char *dir)
{
    size_t off = 0;
    for (size_t i = 0; i < sizeof gp_builtin_recipes / sizeof gp_builtin_recipes[0]; i++)
        if (!strchr(gp_builtin_recipes[i].name, '.')) /* not the .options beside a recipe */
            off += (size_t)snprintf(out + off, off < n ? n - off : 0, "%s%s", off ? ", " : "",
                                    gp_builtin_recipes[i].name);
    if (off < n)
        snprintf(out + off, n - off, ", attach%s%s", dir ? " (and recipes in " : "", dir ? dir : "");
    if (dir && strlen(out) + 2 < n)
        strcat(out, ")");
    return 0;
}

/* The engine's option list beside its recipe: DIR/<framework>.options when
 * that directory has the recipe's file, else the built-in one; NULL when
 * there is none (a recipe of the user's own: no check). */
static char *load_options(const char *framework, const char *dir)
{
    char path[4096], name[256];
    snprintf(name, sizeof name, "%s.options", framework);
    if (dir) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "r");
        if (f) {
            struct gp_buf b = {0};
            char chunk[4096];
            size_t got;
            while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
                gp_buf_append(&b, chunk, got);
            fclose(f);
            gp_buf_putc(&b, '\0');
            return gp_buf_steal(&b);
        }
        snprintf(path, sizeof path, "%s/%s.yaml", dir, framework);
        if (gp_is_file(path))
            return NULL; /* the directory's own recipe, without an option list */
    }
    for (size_t i = 0; i < sizeof gp_builtin_recipes / sizeof gp_builtin_recipes[0]; i++)
        if (!strcmp(gp_builtin_recipes[i].name, name))
            return strdup(gp_builtin_recipes[i].text);
    return NULL;
}

int gp_recipe_load(const char *framework, const char *dir, struct gp_recipe *out, struct gp_error *err)
{
    memset(out, 0, sizeof *out);
    for (const char *p = framework; *p; p++)
        if (*p == '/' || *p == '.')
            return gp_err(err, GP_EINVAL, "framework '%s': names may not contain '/' or '.'", framework);
    json_t *doc = NULL;
    char path[4096];
    if (dir) {
        snprintf(path, sizeof path, "%s/%s.yaml", dir, framework);
        if (gp_is_file(path) && !(doc = gp_yaml_load_file(path, err)))
            return -GP_EINVAL;
    }
    if (!doc) {
        for (size_t i = 0; i < sizeof gp_builtin_recipes / sizeof gp_builtin_recipes[0]; i++)
            if (!strcmp(gp_builtin_recipes[i].name, framework)) {
                snprintf(path, sizeof path, "recipes/%s.yaml (built in)", framework);
                doc = gp_yaml_load_string(gp_builtin_recipes[i].text, strlen(gp_builtin_recipes[i].text),
                                          path, err);
                if (!doc)
                    return -GP_EINVAL;
            }
    }
    if (!doc) {
        char known[512];
        known_frameworks(known, sizeof known, dir);
        return gp_err(err, GP_ENOENT, "unknown framework '%s'; known: %s", framework, known);
    }
    json_t *cmd = json_object_get(doc, "command");
    json_t *ready = json_object_get(doc, "readiness");
    json_t *port = json_object_get(doc, "default_port");
    if (!json_is_array(cmd) || json_array_size(cmd) == 0 || !json_is_string(ready) || !json_is_integer(port)) {
        json_decref(doc);
        return gp_err(err, GP_EINVAL,
                      "recipe %s: needs 'command' (a list), 'readiness' (a path) and 'default_port' (a number)",
                      path);
    }
    out->doc = doc;
    out->framework = strdup(framework);
    json_t *fl = json_object_get(doc, "flavor");
    out->flavor = strdup(json_is_string(fl) ? json_string_value(fl) : framework);
    out->readiness = strdup(json_string_value(ready));
    out->default_port = (int)json_integer_value(port);
    out->options = load_options(framework, dir);
    return 0;
}

void gp_recipe_free(struct gp_recipe *r)
{
    free(r->framework);
    free(r->flavor);
    free(r->readiness);
    free(r->options);
    json_decref(r->doc);
    memset(r, 0, sizeof *r);
}

/* Formats a scalar the way a person would type it on a command line. */
static int scalar_text(json_t *v, char *out, size_t n)
{
    if (json_is_string(v))
        snprintf(out, n, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(out, n, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) {
        snprintf(out, n, "%.15g", json_real_value(v));
        if (strtod(out, NULL) != json_real_value(v))
            snprintf(out, n, "%.17g", json_real_value(v));
    } else if (json_is_true(v))
        snprintf(out, n, "true");
    else if (json_is_false(v))
        snprintf(out, n, "false");
    else
        return -1;
    return 0;
}

struct ctx {
    const struct gp_scenario *sc;
    int tp, port;
    json_t *used;  /* engine keys the recipe consumed */
    const char *api_file; /* {llm_api_options_file}, or NULL when nothing goes there */
};

/* Looks up a placeholder; returns a borrowed or new value in *v (new: *owned=1). */
static json_t *lookup(struct ctx *c, const char *key, int *owned)
{
    *owned = 1;
    if (!strcmp(key, "model"))
        return json_string(c->sc->model);
    if (!strcmp(key, "tp"))
        return json_integer(c->tp);
    if (!strcmp(key, "port"))
        return json_integer(c->port);
    if (!strcmp(key, "host"))
        return json_string(c->sc->host);
    if (!strcmp(key, "api_key"))
        return c->sc->api_key ? json_string(c->sc->api_key) : NULL;
    if (!strcmp(key, "llm_api_options_file"))
        return c->api_file ? json_string(c->api_file) : NULL;
    *owned = 0;
    if (!strncmp(key, "engine.", 7)) {
        json_object_set_new(c->used, key + 7, json_true());
        json_t *v = json_object_get(c->sc->engine_args, key + 7);
        return (v && !json_is_null(v)) ? v : NULL;
    }
    return NULL;
}

/* Expands "{x}" templates in s; *missing=1 when a placeholder has no value. */
static int expand(struct ctx *c, const char *s, struct gp_buf *out, int *missing, const char *rname,
                  struct gp_error *err)
{
    gp_buf_reset(out);
    while (*s) {
        if (*s != '{') {
            gp_buf_putc(out, *s++);
            continue;
        }
        const char *e = strchr(s, '}');
        if (!e)
            return gp_err(err, GP_EINVAL, "recipe %s: unclosed '{' in '%s'", rname, s);
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(e - s - 1), s + 1);
        int owned;
        json_t *v = lookup(c, key, &owned);
        char text[512];
        if (!v) {
            if (strcmp(key, "model") && strcmp(key, "tp") && strcmp(key, "port") && strcmp(key, "host") &&
                strcmp(key, "api_key") && strcmp(key, "llm_api_options_file") && strncmp(key, "engine.", 7))
                return gp_err(err, GP_EINVAL,
                              "recipe %s: unknown placeholder {%s} (use model, tp, port, host, api_key, engine.KEY, "
                              "llm_api_options_file)",
                              rname, key);
            *missing = 1;
        } else if (scalar_text(v, text, sizeof text)) {
            if (owned)
                json_decref(v);
            return gp_err(err, GP_EINVAL, "engine arg for {%s} must be a scalar", key);
        } else
            gp_buf_puts(out, text);
        if (v && owned)
            json_decref(v);
        s = e + 1;
    }
    return 0;
}

/* Sets dotted key a.b.c in obj to v (stolen), making the objects on the way,
 * unless obj already has a value there: what was set first wins. */
static void set_dotted(json_t *obj, const char *key, json_t *v)
{
    const char *dot;
    while ((dot = strchr(key, '.'))) {
        char part[128];
        snprintf(part, sizeof part, "%.*s", (int)(dot - key), key);
        json_t *sub = json_object_get(obj, part);
        if (!sub) {
            sub = json_object();
            json_object_set_new(obj, part, sub);
        }
        if (!json_is_object(sub)) {
            json_decref(v);
            return;
        }
        obj = sub;
        key = dot + 1;
    }
    if (json_object_get(obj, key))
        json_decref(v);
    else
        json_object_set_new(obj, key, v);
}

/* The scenario's own options file, engine_args.<flag without dashes> (e.g.
 * extra_llm_api_options: my.yaml): its keys win over the recipe's. */
static int user_api_file(struct ctx *c, const char *flag, json_t *out, struct gp_error *err)
{
    char key[128];
    while (*flag == '-')
        flag++;
    snprintf(key, sizeof key, "%s", flag);
    const char *path = json_string_value(json_object_get(c->sc->engine_args, key));
    if (!path)
        return 0;
    json_object_set_new(c->used, key, json_true());
    json_t *u = gp_yaml_load_file(path, err);
    if (!u)
        return -GP_EINVAL;
    if (!json_is_object(u)) {
        json_decref(u);
        return gp_err(err, GP_EINVAL, "engine_args.%s: %s must be a mapping of LLM API options", key, path);
    }
    json_object_update(out, u);
    json_decref(u);
    return 0;
}

/* Builds the recipe's llm_api_options object (recipe.h): the scenario's own
 * file, then `map` ([dotted.key, "{engine.KEY}"]: the scenario value, its type
 * kept, true stays a YAML boolean; left out without a value), then `set`
 * (constants), each leaving what an earlier one set. Marks the engine keys it
 * reads as used. *out is a new object, also on error. */
static int build_llm_api(struct ctx *c, const struct gp_recipe *r, json_t **out, struct gp_error *err)
{
    *out = json_object();
    json_t *spec = json_object_get(r->doc, "llm_api_options");
    const char *flag = json_string_value(json_object_get(spec, "flag"));
    int rc;
    if (flag && (rc = user_api_file(c, flag, *out, err)))
        return rc;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(spec, "map"), i, x) {
        const char *key = json_string_value(json_array_get(x, 0));
        const char *t = json_string_value(json_array_get(x, 1));
        size_t tl = t ? strlen(t) : 0;
        if (!key || json_array_size(x) != 2 || tl < 10 || strncmp(t, "{engine.", 8) || t[tl - 1] != '}')
            return gp_err(err, GP_EINVAL, "recipe %s: llm_api_options.map entries are [dotted.key, \"{engine.KEY}\"]",
                          r->framework);
        char ek[128];
        snprintf(ek, sizeof ek, "%.*s", (int)(tl - 9), t + 8);
        json_object_set_new(c->used, ek, json_true());
        json_t *ev = json_object_get(c->sc->engine_args, ek);
        if (ev && !json_is_null(ev))
            set_dotted(*out, key, json_deep_copy(ev));
    }
    const char *k;
    json_object_foreach(json_object_get(spec, "set"), k, x) set_dotted(*out, k, json_deep_copy(x));
    return 0;
}

static void api_path(const struct gp_recipe *r, const struct gp_scenario *sc, char *path, size_t n)
{
    const char *file = json_string_value(json_object_get(json_object_get(r->doc, "llm_api_options"), "file"));
    snprintf(path, n, "%s/%s/%s", sc->artifact_dir, sc->name, file ? file : "extra_llm_api_options.yaml");
}

int gp_recipe_llm_api_options(const struct gp_recipe *r, const struct gp_scenario *sc, json_t **out, char *path,
                              size_t pathsz, struct gp_error *err)
{
    struct ctx c = {sc, 0, 0, json_object(), NULL};
    int rc = build_llm_api(&c, r, out, err);
    json_decref(c.used);
    if (path && pathsz)
        path[0] = '\0';
    if (rc) {
        json_decref(*out);
        *out = NULL;
    } else if (path && json_object_size(*out))
        api_path(r, sc, path, pathsz);
    return rc;
}

/* A switch's on/off value: one flag, or a list of words ([--chunked-prefill-size, "-1"]). */
static void push_words(struct gp_argv *argv, json_t *v)
{
    size_t i;
    json_t *x;
    if (json_is_string(v))
        gp_argv_push(argv, json_string_value(v));
    json_array_foreach(v, i, x) if (json_is_string(x)) gp_argv_push(argv, json_string_value(x));
}

int gp_recipe_render(const struct gp_recipe *r, const struct gp_scenario *sc, int tp, int port,
                     struct gp_argv *argv, struct gp_error *err)
{
    struct ctx c = {sc, tp, port, json_object(), NULL};
    struct gp_buf w = {0};
    int rc = 0, missing;
    size_t i;
    json_t *x, *api = NULL;
    char api_file[4096];
    if ((rc = build_llm_api(&c, r, &api, err)))
        goto out;
    if (json_object_size(api)) {
        api_path(r, sc, api_file, sizeof api_file);
        c.api_file = api_file;
    }
    /* engine args the recipe reads without a flag (trtllm: served_model_name
     * only names what the cells send) */
    json_array_foreach(json_object_get(r->doc, "consumes"), i, x) if (json_is_string(x))
        json_object_set_new(c.used, json_string_value(x), json_true());
    json_array_foreach(json_object_get(r->doc, "command"), i, x) {
        missing = 0;
        if (!json_is_string(x) || (rc = expand(&c, json_string_value(x), &w, &missing, r->framework, err)))
            goto out;
        if (missing) {
            rc = gp_err(err, GP_EINVAL, "recipe %s: command word '%s' has no value", r->framework,
                        json_string_value(x));
            goto out;
        }
        gp_argv_push(argv, w.data);
    }
    json_array_foreach(json_object_get(r->doc, "args"), i, x) {
        if (json_is_array(x)) {
            /* all words or none: a flag without its value is worse than no flag */
            struct gp_argv words = {0};
            size_t j;
            json_t *y;
            missing = 0;
            json_array_foreach(x, j, y) {
                if (!json_is_string(y) || (rc = expand(&c, json_string_value(y), &w, &missing, r->framework, err))) {
                    gp_argv_free(&words);
                    if (!rc)
                        rc = gp_err(err, GP_EINVAL, "recipe %s: args entries must be strings", r->framework);
                    goto out;
                }
                gp_argv_push(&words, w.data);
            }
            for (j = 0; !missing && j < words.n; j++)
                gp_argv_push(argv, words.v[j]);
            gp_argv_free(&words);
        } else if (json_is_object(x)) {
            const char *when = json_string_value(json_object_get(x, "when"));
            if (!when || strncmp(when, "engine.", 7)) {
                rc = gp_err(err, GP_EINVAL, "recipe %s: a switch needs when: engine.KEY", r->framework);
                goto out;
            }
            json_object_set_new(c.used, when + 7, json_true());
            json_t *v = json_object_get(sc->engine_args, when + 7);
            if (!v || json_is_null(v))
                continue;
            if (!json_is_boolean(v)) {
                rc = gp_err(err, GP_EINVAL, "engine_args.%s must be true or false", when + 7);
                goto out;
            }
            push_words(argv, json_object_get(x, json_is_true(v) ? "on" : "off"));
        } else {
            rc = gp_err(err, GP_EINVAL, "recipe %s: each args entry is a list or a {when:, on:, off:} switch",
                        r->framework);
            goto out;
        }
    }
    /* the options file goes last among the recipe's words, unless an args
     * entry placed it with {llm_api_options_file} */
    const char *api_flag = json_string_value(json_object_get(json_object_get(r->doc, "llm_api_options"), "flag"));
    if (c.api_file && api_flag) {
        int placed = 0;
        for (size_t k = 0; k < argv->n; k++)
            placed |= !strcmp(argv->v[k], c.api_file);
        if (!placed) {
            gp_argv_push(argv, api_flag);
            gp_argv_push(argv, c.api_file);
        }
    }
    /* engine args the recipe does not name pass through, in the scenario's order */
    json_t *pt = json_object_get(r->doc, "passthrough");
    const char *prefix = json_string_value(json_object_get(pt, "prefix"));
    const char *sep = json_string_value(json_object_get(pt, "separator"));
    const char *key;
    json_object_foreach(sc->engine_args, key, x) {
        if (json_object_get(c.used, key))
            continue;
        gp_buf_reset(&w);
        gp_buf_puts(&w, prefix ? prefix : "--");
        for (const char *p = key; *p; p++)
            gp_buf_putc(&w, (*p == '_' || *p == '-') ? (sep ? sep[0] : '-') : *p);
        char text[512];
        if (json_is_false(x) || json_is_null(x))
            continue; /* documented: false means "leave the engine default" */
        if ((rc = gp_recipe_check_option(r, key, w.data, err)))
            goto out;
        int given = 0;
        for (size_t k = 0; k < argv->n; k++)
            given |= !strcmp(argv->v[k], w.data);
        /* a flag alone the recipe already passes (sglang's --enable-metrics)
         * asks for nothing more: given once */
        if (given && json_is_true(x))
            continue;
        for (size_t k = 0; k < argv->n; k++)
            if (!strcmp(argv->v[k], w.data)) {
                rc = gp_err(err, GP_EINVAL,
                            "engine_args.%s: %s is already set from another engine arg (a common name this "
                            "recipe maps); give one of the two",
                            key, w.data);
                goto out;
            }
        gp_argv_push(argv, w.data);
        if (json_is_true(x))
            continue;
        if (scalar_text(x, text, sizeof text)) {
            rc = gp_err(err, GP_EINVAL, "engine_args.%s must be a scalar (string, number or boolean)", key);
            goto out;
        }
        gp_argv_push(argv, text);
    }
out:
    json_decref(c.used);
    json_decref(api);
    gp_buf_free(&w);
    return rc;
}
