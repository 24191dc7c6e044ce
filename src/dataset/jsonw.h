/* dataset/jsonw.h — byte-exact JSON writers for request bodies and inputs.json.
 *
 * Owns nothing: appends to a caller's gp_buf. jansson's own dumper cannot
 * reproduce the two formats we promise, so we walk the json_t ourselves:
 *   GP_JSONW_WIRE    compact, raw UTF-8, '/' unescaped: what perf_analyzer's
 *                    RapidJSON Writer sends.
 *   GP_JSONW_PYTHON  Python json.dumps(obj, indent=2): ensure_ascii escapes
 *                    (\uXXXX lowercase, surrogate pairs), ", " / ": "
 *                    separators with newline + 2-space indents, empty
 *                    containers as [] / {}, floats as Python repr() (shortest
 *                    round-trip, "1e-05", "2.0"). What GenAI-Perf writes.
 * Object keys keep insertion order (jansson >= 2.8 preserves it).
 */
#ifndef GP_DATASET_JSONW_H
#define GP_DATASET_JSONW_H

#include <jansson.h>

struct gp_buf;

enum gp_jsonw_style { GP_JSONW_WIRE = 0, GP_JSONW_PYTHON = 1 };

/* depth: starting indent level (PYTHON only). Returns 0 or -GP_ENOMEM. */
int gp_jsonw(struct gp_buf *b, const json_t *v, enum gp_jsonw_style style, int depth);
/* Python repr() of a finite double, e.g. "0.7", "100.0", "1e-05". */
int gp_jsonw_real(struct gp_buf *b, double x);
/* A JSON string literal in the given style. */
int gp_jsonw_str(struct gp_buf *b, const char *s, size_t n, enum gp_jsonw_style style);

#endif
