/*
 * Cold against warm in a bundle diff (docs/cli.md, "Cold against warm"):
 * for each tool with both a cold and a warm series, the functions whose
 * own time regressed cold while warm held, and each function's cold-cache
 * cost (its cold self time less its warm one, in the same build) and how
 * that cost changed between the builds, judged (docs/statistics.md,
 * "Cold-cache cost").
 */
#ifndef PD_COMPARE_COLD_H
#define PD_COMPARE_COLD_H

#include "compare/section.h"
#include "core/vec.h"
#include "report/report.h"
#include "stats/diff.h"

/*
 * A function that regressed in a cold series while the warm series of
 * its tool held: what the cold cache made slower, and not the work.
 * Names borrowed from the sections.
 */
typedef PD_VEC(struct pd_md_cold) pd_cold_only_vec;

/*
 * Into out, x[0..n)'s functions regressed cold and not warm, of each
 * tool with both series; out's entries last as long as x.
 */
void pd_sections_cold_only(const struct pd_section *x, size_t n,
			   pd_cold_only_vec *out);

typedef PD_VEC(struct pd_cold_cost) pd_cold_cost_vec;

/*
 * Into out, the cold-cache cost of every function the cold and warm
 * series of one tool both judged or one of them saw alone, tested
 * together (BH at set->alpha), the changed ones first, largest change
 * first; *tested gets how many were tested. Names borrowed from x.
 */
void pd_sections_cold_cost(const struct pd_section *x, size_t n,
			   const struct pd_settings *set, pd_cold_cost_vec *out,
			   size_t *tested);

#endif
