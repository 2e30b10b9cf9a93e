/*
 * The Firefox importer's sample columns (docs/formats.md, "samply and the
 * Firefox Profiler"): columns stored compactly or folded into per-stack
 * sums and time blocks as they stream by, and the per-thread steps of
 * resolution that need no view of the tables.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/limits.h"
#include "core/xalloc.h"
#include "import/firefox/firefox_int.h"

void pd_ff_col_push(struct ff_col *c, double d)
{
	size_t i;

	c->len++;
	if (!c->wide) {
		if (isnan(d) ||
		    (d >= 0 && d < 4294967295.0 && !(d - floor(d) > 0))) {
			PD_VEC_PUSH(&c->u, isnan(d) ? UINT32_MAX : (uint32_t)d);
			return;
		}
		c->wide = 1; /* this value does not fit: 8 bytes each */
		PD_VEC_RESERVE(&c->v, c->u.n + 1);
		for (i = 0; i < c->u.n; i++)
			c->v.v[i] = c->u.v[i] == UINT32_MAX ? PD_NAN
							    : (double)c->u.v[i];
		c->v.n = c->u.n;
		PD_VEC_FREE(&c->u);
	}
	PD_VEC_PUSH(&c->v, d);
}

/* Adds to stack st's sum (grown as stacks appear). */
static void add_sum(struct ff_sum *sum, size_t st, double d)
{
	if (st < sum->n) {
		sum->v[st] += d;
		return;
	}
	PD_VEC_RESERVE(sum, st + 1);
	memset(sum->v + sum->n, 0, (st + 1 - sum->n) * sizeof(double));
	sum->n = st + 1;
	sum->v[st] += d;
}

/*
 * Sample i's weight (kind 1) or CPU delta (2) d, into its stack's sum: a
 * missing weight counts 1, the first CPU delta means nothing (it runs
 * from before the recording), a negative or missing one adds nothing.
 * Its time (3) d: into its stack's time blocks.
 */
void pd_ff_fold_value(struct ff_table *t, const struct ff_col *stack, int kind,
		      size_t i, double d)
{
	double dt = PD_NAN;
	size_t st;

	if (kind >= 3 && i == 0)
		t->tprev = PD_NAN;
	if (kind >= 3 && !isnan(d)) {
		/* every sample's gap to the one before, kept by stack */
		if (i && !isnan(t->tprev))
			dt = d - t->tprev;
		t->tprev = d;
	}
	if (!stack->wide) { /* the usual case: indices as they are */
		if (i >= stack->u.n || stack->u.v[i] == UINT32_MAX)
			return;
		st = stack->u.v[i];
	} else {
		double x = ff_cv(stack, i);

		if (isnan(x) || x < 0 || x - floor(x) > 0 || x > 1e9)
			return; /* no stack, or one the resolver refuses */
		st = (size_t)x;
	}
	/* out of range, or over the limit: pd_ff_thread_fold says which */
	if (st >= PD_LIMIT_FF_STACKS)
		return;
	if (kind == 1)
		add_sum(&t->wsum, st, isnan(d) ? 1 : d);
	else if (kind == 2 && i && !isnan(d) && d > 0)
		add_sum(&t->csum, st, d);
	else if (kind >= 3) {
		if (t->blk)
			pd_blocks_add(t->blk, pd_ff_block_key(t, st), d, 1);
		if (!isnan(dt) && dt >= 0)
			add_sum(&t->dsum, st, dt);
	}
}

uint32_t pd_ff_block_key(struct ff_table *t, size_t st)
{
	while (t->bkey.n <= st)
		PD_VEC_PUSH(&t->bkey, 0);
	if (!t->bkey.v[st])
		t->bkey.v[st] = ++*t->nbkeys;
	return t->bkey.v[st] - 1;
}

double pd_ff_sample_time(struct ff_table *t, int deltas, double d)
{
	if (!deltas)
		return d;
	if (!isnan(d))
		t->tsum += d;
	return t->tsum;
}

void pd_ff_fold_samples(struct ff_table *t)
{
	const struct ff_col *stack = ff_get_col(t, "stack");
	const struct ff_col *w = ff_get_col(t, "weight");
	const struct ff_col *c = ff_get_col(t, "threadCPUDelta");
	const struct ff_col *tc = ff_get_col(t, "time");
	size_t i, n = ff_col_len(stack);
	int deltas = !tc;

	if (!tc)
		tc = ff_get_col(t, "timeDeltas");
	if (!t->wfolded) {
		for (i = 0; i < n; i++)
			pd_ff_fold_value(t, stack, 1, i,
					 w ? ff_cv(w, i) : PD_NAN);
		t->wfolded = 1;
	}
	if (!t->cfolded && c) {
		for (i = 0; i < n && i < ff_col_len(c); i++)
			pd_ff_fold_value(t, stack, 2, i, ff_cv(c, i));
		t->cfolded = 1;
	}
	if (!t->tfolded && tc) {
		t->tsum = 0;
		t->tprev = PD_NAN;
		for (i = 0; i < n && i < ff_col_len(tc); i++)
			pd_ff_fold_value(
			    t, stack, 3, i,
			    pd_ff_sample_time(t, deltas, ff_cv(tc, i)));
		t->tfolded = 1;
	}
}

/* A samples column folded by stack as it streams: its fold kind, or 0. */
int pd_ff_fold_kind(const char *name)
{
	if (!strcmp(name, "weight"))
		return 1;
	if (!strcmp(name, "threadCPUDelta"))
		return 2;
	if (!strcmp(name, "time"))
		return 3;
	if (!strcmp(name, "timeDeltas"))
		return 4;
	return 0;
}

void pd_ff_table_release(struct ff_table *t)
{
	int i;

	for (i = 0; i < t->n; i++) {
		PD_VEC_FREE(&t->c[i].v);
		PD_VEC_FREE(&t->c[i].u);
	}
	t->n = 0;
	PD_VEC_FREE(&t->wsum);
	PD_VEC_FREE(&t->csum);
	PD_VEC_FREE(&t->dsum);
	PD_VEC_FREE(&t->bkey);
	t->wfolded = t->cfolded = t->tfolded = 0;
	t->tsum = 0;
}

/*
 * Checks that every sample's stack is one of the nst of the table, then folds
 * the samples' stored columns into their stacks' sums and the time blocks; 0 or
 * the error.
 */
int pd_ff_thread_fold(struct ff_state *s, struct ff_thread *th, size_t nst)
{
	struct ff_table *t = &th->t[T_SAMPLES];
	const struct ff_col *stack = ff_get_col(t, "stack");
	size_t n = ff_col_len(stack), i;

	for (i = 0; i < n; i++) { /* every stack names one of the table */
		double st = ff_cv(stack, i);

		if (!isnan(st) &&
		    (st < 0 || st >= (double)nst || st - floor(st) > 0))
			return pd_err_set(
			    s->err, PD_EPARSE,
			    "%s: thread \"%s\": samples.stack[%zu]"
			    " = %g is out of range (%zu stacks)",
			    s->in->path, th->name ? th->name : "?", i, st, nst);
	}
	if (nst > PD_LIMIT_FF_STACKS) {
		struct pd_buf where = PD_BUF_INIT;
		int rc;

		pd_buf_addf(&where, "%s: thread \"%s\"", s->in->path,
			    th->name ? th->name : "?");
		rc = pd_err_limit(s->err, where.buf, PD_LIMIT_FF_STACKS,
				  "stacks a thread", "PD_LIMIT_FF_STACKS");
		pd_buf_release(&where);
		return rc;
	}
	pd_ff_fold_samples(t);
	return 0;
}

/* "name (tid) in process", as reports and convert name a thread. */
void pd_ff_thread_label(const struct ff_thread *th, struct pd_buf *name)
{
	pd_buf_addf(name, "%s", th->name ? th->name : "thread");
	if (th->tid)
		pd_buf_addf(name, " (%s)", th->tid);
	if (th->process && (!th->name || strcmp(th->process, th->name)))
		pd_buf_addf(name, " in %s", th->process);
}

int pd_ff_thread_wanted(const struct pd_import_opts *o,
			const struct ff_thread *t)
{
	const char *name = t->name ? t->name : "";
	const char *proc = t->process ? t->process : name;

	if (o->thread && !pd_filter_match(o->thread, name, strlen(name)) &&
	    !(t->tid && !strcmp(o->thread, t->tid)))
		return 0;
	if (o->process && !pd_filter_match(o->process, proc, strlen(proc)) &&
	    !(t->pid && !strcmp(o->process, t->pid)))
		return 0;
	return 1;
}

/*
 * Stack st's samples by time onto its node: the blocks count samples, so
 * a stack weighed by CPU time spreads its count c over them as its
 * samples lie (statistics.md, "Bursty functions").
 */
void pd_ff_carry_blocks(struct ff_state *s, const struct ff_table *t, size_t st,
			uint32_t node, double c)
{
	if (st < t->bkey.n && t->bkey.v[st])
		pd_blocks_carry_count(&s->p->blk, &s->blk, t->bkey.v[st] - 1,
				      node, c);
}
