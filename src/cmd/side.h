/*
 * The sides of diff, compare and check (compare/side.h) with their
 * errors said: the calls that can fail, from the options, printing the
 * one line.
 */
#ifndef PD_CMD_SIDE_H
#define PD_CMD_SIDE_H

#include "cmd/run.h"
#include "compare/side.h"
#include "core/compat.h"

/* A file, or a bundle folder whose profiles are the side's runs; 0/-1. */
PD_NODISCARD int pd_run_side_add(struct pd_run_side *s, const char *arg);

/*
 * The series both sides have (pd_compare_series) with --cache and
 * --tool; 0, or -1 after a message.
 */
PD_NODISCARD int pd_run_sides_series(const struct pd_run_side *s,
				     const char *cache, const char *tool,
				     struct pd_series_list *common,
				     struct pd_buf *only);

/*
 * A stored commit: rev[:SCENARIO[:CACHE]] (parts not given come from
 * --scenario and --cache); 0, or -1 after a message.
 */
PD_NODISCARD int pd_run_side_stored(struct pd_run_side *s, const char *operand,
				    const char *rev, const struct pd_args *r);

/*
 * Both sides compared into d (pd_compare_sides) in the history of --db.
 * The exit status so far: -1 when d was made (render it), else 2 after a
 * message.
 */
PD_NODISCARD int pd_run_sides_diff(struct pd_run_side *s, struct pd_args *r,
				   struct pd_funcs *fn, struct pd_diff *d);

#endif
