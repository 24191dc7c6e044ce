/* export/pyjson.h — Python-compatible text for GenAI-Perf's artifacts.
 *
 * Owns nothing: every function appends to a caller's struct gp_buf.
 * gp_py_float = Python repr(float) (shortest round-trip digits, "4.0",
 * "1e-05", "61.599999999999994", "inf"/"nan" as json.dumps' Infinity/NaN).
 * gp_pyjson_dump = json.dumps(v, indent=2) (ASCII-escaped, ", " / ": "
 * separators, no trailing newline); jansson integers print as ints, reals
 * as Python floats, so an input_config built with json_integer/json_real
 * round-trips exactly. gp_fmt_2f_commas = f"{v:,.2f}".
 */
#ifndef GP_EXPORT_PYJSON_H
#define GP_EXPORT_PYJSON_H

#include <jansson.h>
#include <stddef.h>

struct gp_buf;

/* Writes repr(x) into out (at least 32 bytes); returns its length. */
int gp_py_float_repr(double x, char *out, size_t outsz);
/* Same, but NaN/Infinity spelled as Python's json.dumps does. */
int gp_py_float(struct gp_buf *b, double x);
/* JSON string literal, ASCII-escaped (\uXXXX, surrogate pairs) like json.dumps;
 * invalid UTF-8 bytes become \ufffd. */
int gp_py_json_str(struct gp_buf *b, const char *s, size_t n);
/* json.dumps(v, indent=indent) starting at nesting depth `depth`
 * (indent < 0: compact with ", " and ": " as json.dumps without indent). */
int gp_pyjson_dump(struct gp_buf *b, const json_t *v, int indent, int depth);
/* f"{v:,.2f}" ("1,915.41", "-1.00", "nan", "inf"). */
int gp_fmt_2f_commas(struct gp_buf *b, double v);

#endif
