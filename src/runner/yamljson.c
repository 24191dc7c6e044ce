#include "runner/yamljson.h"
#include "core/error.h"
#include "core/fsutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Types a plain (unquoted) scalar like YAML 1.2's core schema. */
static json_t *plain_scalar(const char *s, size_t n)
{
    if (n == 0 || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
        return json_null();
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
        return json_true();
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
        return json_false();
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end == '\0' && errno == 0 && end != s)
        return json_integer(v);
    errno = 0;
    double d = strtod(s, &end);
    if (*end == '\0' && errno == 0 && end != s && strpbrk(s, "0123456789") && !strpbrk(s, "xXpP"))
        return json_real(d);
    return json_stringn(s, n);
}

/* libyaml's loader resolves an alias to the anchored node itself, so a node
 * may be visited many times: nine anchors each listing the previous one nine
 * times ("billion laughs") is 400 bytes that would convert to 9^9 values and
 * several GB. The conversion counts every value it makes and stops at a
 * budget proportional to the document's own node count (aliases that merely
 * reuse a block a few times stay well inside it) under an absolute cap. */
struct conv {
    yaml_document_t *doc;
    const char *name;
    size_t made, budget;
};

#define YAML_ALIAS_FACTOR 16
#define YAML_VALUES_CAP 4000000

static json_t *convert(struct conv *c, yaml_node_t *node, int depth, struct gp_error *err)
{
    yaml_document_t *doc = c->doc;
    const char *name = c->name;
    if (++c->made > c->budget) {
        gp_err(err, GP_EINVAL, "%s line %lu: aliases expand the document to more than %zu values (at most %d "
               "times its own %zu nodes, %d in all); write the values out or nest fewer aliases", name,
               (unsigned long)node->start_mark.line + 1, c->budget, YAML_ALIAS_FACTOR,
               (size_t)(doc->nodes.top - doc->nodes.start), YAML_VALUES_CAP);
        return NULL;
    }
    if (depth > 64) {
        gp_err(err, GP_EINVAL, "%s: nesting deeper than 64 levels", name);
        return NULL;
    }
    switch (node->type) {
    case YAML_SCALAR_NODE: {
        const char *s = (const char *)node->data.scalar.value;
        size_t n = node->data.scalar.length;
        if (node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            return plain_scalar(s, n);
        return json_stringn(s, n);
    }
    case YAML_SEQUENCE_NODE: {
        json_t *arr = json_array();
        for (yaml_node_item_t *it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++) {
            json_t *v = convert(c, yaml_document_get_node(doc, *it), depth + 1, err);
            if (!v) {
                json_decref(arr);
                return NULL;
            }
            json_array_append_new(arr, v);
        }
        return arr;
    }
    case YAML_MAPPING_NODE: {
        json_t *obj = json_object();
        for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
            yaml_node_t *k = yaml_document_get_node(doc, p->key);
            if (!k || k->type != YAML_SCALAR_NODE) {
                gp_err(err, GP_EINVAL, "%s line %lu: mapping keys must be plain strings", name,
                       (unsigned long)(k ? k->start_mark.line + 1 : 0));
                json_decref(obj);
                return NULL;
            }
            const char *key = (const char *)k->data.scalar.value;
            if (json_object_get(obj, key)) {
                gp_err(err, GP_EINVAL, "%s line %lu: key '%s' appears twice", name,
                       (unsigned long)k->start_mark.line + 1, key);
                json_decref(obj);
                return NULL;
            }
            json_t *v = convert(c, yaml_document_get_node(doc, p->value), depth + 1, err);
            if (!v) {
                json_decref(obj);
                return NULL;
            }
            json_object_set_new(obj, key, v);
        }
        return obj;
    }
    default:
        gp_err(err, GP_EINVAL, "%s: empty document", name);
        return NULL;
    }
}

json_t *gp_yaml_load_string(const char *text, size_t len, const char *name, struct gp_error *err)
{
    if (len > GP_YAML_MAX_BYTES)
        return gp_err(err, GP_EINVAL, "%s is larger than %d MiB, the limit for a YAML or JSON config; is it the "
                      "right file?", name, GP_YAML_MAX_BYTES >> 20), NULL;
    /* JSON is valid YAML, but jansson gives better messages for it. */
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
        i++;
    if (i < len && (text[i] == '{' || text[i] == '[')) {
        json_error_t je;
        json_t *j = json_loadb(text, len, 0, &je);
        if (!j)
            gp_err(err, GP_EINVAL, "%s line %d column %d: %s", name, je.line, je.column, je.text);
        return j;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        gp_err(err, GP_ENOMEM, "%s: cannot initialise the YAML parser", name);
        return NULL;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        gp_err(err, GP_EINVAL, "%s line %lu column %lu: %s%s%s", name,
               (unsigned long)parser.problem_mark.line + 1, (unsigned long)parser.problem_mark.column + 1,
               parser.problem ? parser.problem : "YAML syntax error", parser.context ? " " : "",
               parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return NULL;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    json_t *out = NULL;
    if (!root)
        gp_err(err, GP_EINVAL, "%s: the file is empty; write a scenario mapping (model:, framework:, ...)", name);
    else {
        size_t nodes = (size_t)(doc.nodes.top - doc.nodes.start);
        struct conv c = {.doc = &doc, .name = name, .budget = nodes * YAML_ALIAS_FACTOR + 1024};
        if (c.budget > YAML_VALUES_CAP)
            c.budget = YAML_VALUES_CAP;
        out = convert(&c, root, 0, err);
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return out;
}

json_t *gp_yaml_load_file(const char *path, struct gp_error *err)
{
    char *text;
    size_t len;
    if (gp_read_file_max(path, GP_YAML_MAX_BYTES, 0, &text, &len, err))
        return NULL;
    json_t *j = gp_yaml_load_string(text, len, path, err);
    free(text);
    return j;
}
