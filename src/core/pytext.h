/* core/pytext.h — text exactly as Python (and RapidJSON) write it: float
 * repr(), JSON string literals, json.dumps, format(v, ",.2f"); and the one
 * non-Python spelling the store needs, PostgreSQL's float8 text.
 *
 * Owns nothing: every function appends to a caller's struct gp_buf (or
 * writes into a caller's char array). GenAI-Perf's files are Python's output
 * and perf_analyzer's are RapidJSON's; consumers diff them and regexes read
 * them, so the bytes must match, not merely parse the same. This is the one
 * implementation of each; modules that need a variant pass flags.
 *
 * JSON string flags (0 = raw valid UTF-8, invalid bytes as \ufffd, controls
 * as lowercase \u00xx, '/' and DEL unescaped: what gp_buf_json_str writes):
 *   GP_JSON_ASCII      json.dumps' ensure_ascii: DEL and every non-ASCII
 *                      code point as \uXXXX (lowercase, surrogate pairs).
 *   GP_JSON_UPPER_HEX  controls as \u001F, as RapidJSON's Writer does.
 *   GP_JSON_RAW_BYTES  bytes >= 0x80 copied unchecked (RapidJSON's Writer
 *                      does not validate its input).
 *   GP_JSON_COMPACT    (gp_json_dump only) "," and ":" separators instead of
 *                      json.dumps' ", " and ": " when indent < 0.
 */
#ifndef GP_CORE_PYTEXT_H
#define GP_CORE_PYTEXT_H

#include <jansson.h>
#include <stddef.h>

struct gp_buf;

enum {
    GP_JSON_ASCII = 1u << 0,
    GP_JSON_UPPER_HEX = 1u << 1,
    GP_JSON_RAW_BYTES = 1u << 2,
    GP_JSON_COMPACT = 1u << 3,
};
/* json.dumps(ensure_ascii=True), what GenAI-Perf writes */
#define GP_JSON_PYTHON GP_JSON_ASCII
/* RapidJSON Writer, what perf_analyzer sends on the wire */
#define GP_JSON_RAPIDJSON (GP_JSON_UPPER_HEX | GP_JSON_RAW_BYTES | GP_JSON_COMPACT)

/* Appends s (n bytes) as a JSON string literal, quotes included. SSE2 fast
 * path: clean 16-byte blocks are copied whole. Returns 0 or -GP_ENOMEM. */
int gp_json_str(struct gp_buf *b, const char *s, size_t n, unsigned flags);

/* json.dumps(v, indent=indent) from nesting depth `depth` (indent < 0:
 * one line). Integers as ints, reals as gp_py_float. No trailing newline. */
int gp_json_dump(struct gp_buf *b, const json_t *v, int indent, int depth, unsigned flags);

/* The first precision p in [min_prec, 17] whose correctly rounded p-digit
 * decimal ("%.{p-1}e") reads back as x; 17 when none does (NaN). */
int gp_float_round_trip_prec(double x, int min_prec);
/* Shortest text that reads back as the same double ("61.599999999999994",
 * "4", "1e-05"), the way PostgreSQL prints float8 (not Python's repr: "4",
 * not "4.0"), into out (>= 32 bytes). The store writes every REAL so, and
 * reads SQLite's back so, so that both engines agree. */
void gp_float8_text(double v, char *out, size_t outsz);
/* Python repr(x) into out (>= 32 bytes): "4.0", "1e-05", "0.30000000000000004",
 * "-0.0", "nan", "-inf". Returns its length. */
int gp_py_float_repr(double x, char *out, size_t outsz);
/* repr(x), but NaN/Infinity/-Infinity as json.dumps spells them. */
int gp_py_float(struct gp_buf *b, double x);

/* f"{v:,.2f}" ("1,915.41", "-1.00", "nan", "inf"). */
int gp_fmt_2f_commas(struct gp_buf *b, double v);

/* One CSV record (excel dialect, as Python's csv module writes it: quotes,
 * "" escapes; no line break inside a field). fields point into line, which
 * is modified in place. Returns the field count, or -1 when the record is
 * malformed or has more than max fields. */
int gp_csv_split(char *line, char **fields, int max);

#endif
