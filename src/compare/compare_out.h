/* compare/compare_out.h — writing a comparison: terminal table, Markdown or
 * JSON (docs/compare.md shows each). Owns nothing; writes to the caller's FILE. */
#ifndef GP_COMPARE_COMPARE_OUT_H
#define GP_COMPARE_COMPARE_OUT_H

#include "compare/compare.h"

#include <stdio.h>

enum gp_cmp_format { GP_CMP_FMT_TABLE, GP_CMP_FMT_MD, GP_CMP_FMT_JSON };

/* "better", "worse", "no detectable change", "no verdict (client-limited)", "n/a". */
const char *gp_cmp_verdict_name(const struct gp_cmp_row *row, int limited);
/* "pass", "FAIL", "not judged: client-limited", "missing". */
const char *gp_cmp_gate_name(enum gp_cmp_gate_state s);

/* Writes the comparison and the gate's terms with their states st[0..ng). */
int gp_cmp_write(FILE *fp, enum gp_cmp_format fmt, const struct gp_cmp_side *base, const struct gp_cmp_side *nw,
                 const struct gp_cmp_result *r, const struct gp_cmp_opts *o, const struct gp_cmp_gate *g,
                 const enum gp_cmp_gate_state *st, size_t ng, int gate_failed);

#endif
