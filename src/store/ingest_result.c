/*
 * What an ingest says of itself (store.h): its notes and the changes to
 * stored runs, gathered by every part of the ingest and printed by cmd/.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "core/buf.h"
#include "store/ingest_int.h"
#include "store/store.h"

void pd_ingest_note(struct pd_ingest_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	PD_VEC_PUSH(&r->notes, pd_vstrf(fmt, ap));
	va_end(ap);
}

void pd_ingest_change(struct pd_ingest_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	PD_VEC_PUSH(&r->changes, pd_vstrf(fmt, ap));
	va_end(ap);
}

void pd_ingest_result_release(struct pd_ingest_result *r)
{
	size_t i;

	for (i = 0; i < r->notes.n; i++)
		free(r->notes.v[i]);
	PD_VEC_FREE(&r->notes);
	for (i = 0; i < r->changes.n; i++)
		free(r->changes.v[i]);
	PD_VEC_FREE(&r->changes);
}
