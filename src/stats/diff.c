/*
 * A diff's record (stats/diff.h): the default settings, the names of
 * methods and statuses, provenance, a diff begun and released; what every
 * method and the entry (verdict.c) write into.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "stats/diff.h"
#include "stats/diff_int.h"

void pd_settings_default(struct pd_settings *s)
{
	s->threshold_pct = 5;
	s->min_impact_pct = 0.5;
	s->alpha = 0.05;
	s->dispersion = 1.5;
	s->run_cv = 0.02;
	s->share = 0;
	s->whole_totals = 0;
	s->paired = 0;
	s->treat = 0;
}

int pd_diff_several_runs(const struct pd_diff *d)
{
	return d->method == PD_METHOD_MODERATED_T ||
	       d->method == PD_METHOD_PAIRED_T;
}

int pd_diff_shift_named(const struct pd_diff *d)
{
	return d->shift_alike >= PD_SHIFT_NAMED_ALIKE && d->shift_broad &&
	       fabs(exp(d->shift) - 1) >= PD_SHIFT_NAMED &&
	       fabs(d->shift) >= 2 * sqrt(d->shift_var);
}

const char *pd_method_name(enum pd_method m)
{
	switch (m) {
	case PD_METHOD_MODERATED_T:
		return "moderated-t";
	case PD_METHOD_PAIRED_T:
		return "paired-t";
	case PD_METHOD_EXACT:
		return "exact";
	default:
		return "quasi-poisson";
	}
}

const char *pd_status_name(enum pd_status s)
{
	static const char *const names[] = { "same",	  "inconclusive",
					     "regressed", "improved",
					     "added",	  "removed",
					     "negligible" };

	return s < PD_STATUS_COUNT ? names[s] : "same";
}

void pd_diff_provenance(struct pd_diff *d, int cand, const char *fmt, ...)
{
	va_list ap;

	free(d->provenance[cand]);
	va_start(ap, fmt);
	d->provenance[cand] = pd_vstrf(fmt, ap);
	va_end(ap);
	if (cand)
		d->cand.provenance = d->provenance[1];
	else
		d->base.provenance = d->provenance[0];
}

void pd_diff_release(struct pd_diff *d)
{
	size_t i, k;

	for (i = 0; i < d->tables.n; i++) {
		for (k = 0; k < d->tables.v[i].rows.n; k++) {
			free(d->tables.v[i].rows.v[k].key);
			free(d->tables.v[i].rows.v[k].m);
		}
		PD_VEC_FREE(&d->tables.v[i].rows);
	}
	PD_VEC_FREE(&d->tables);

	for (i = 0; i < d->warnings.n; i++)
		free(d->warnings.v[i]);
	PD_VEC_FREE(&d->warnings);
	PD_VEC_FREE(&d->funcs);
	for (k = 0; k < 2; k++) {
		free(d->provenance[k]);
		d->provenance[k] = NULL;
	}
	d->base.provenance = d->cand.provenance = NULL;
	for (k = 0; k < 2; k++)
		if (d->merged[k]) {
			pd_profile_release(d->merged[k]);
			free(d->merged[k]);
			d->merged[k] = NULL;
		}
}

void pd_diff_begin(struct pd_diff *d, struct pd_funcs *fn,
		   const struct pd_settings *set)
{
	memset(d, 0, sizeof(*d));
	d->set = *set;
	d->fn = fn;
	d->lambda = PD_NAN;
	d->method = PD_METHOD_QUASI_POISSON;
	d->phi_source = "default";
}
