/*
 * Filling the HTML templates of reports/ (html.c, site.c): not for other
 * layers.
 */
#ifndef PD_REPORT_TPL_INT_H
#define PD_REPORT_TPL_INT_H

#include <stddef.h>

#include "core/buf.h"

/*
 * Writes what a slot {name} stands for into b and returns 1, or returns 0
 * for a name it does not know. name is not NUL-terminated: it is the len
 * bytes between the braces.
 */
typedef int (*pd_tpl_slot_fn)(struct pd_buf *b, const char *name, size_t len,
			      void *arg);

/*
 * Appends tpl to b with each slot (a '{', at most 16 bytes, then '}')
 * replaced by what slot writes for it; a slot it does not know stays as
 * it is, and a '{' that opens no slot (CSS, script) is copied.
 */
void pd_tpl_fill(struct pd_buf *b, const char *tpl, pd_tpl_slot_fn slot,
		 void *arg);

/* Whether the len bytes at name are the slot name want. */
int pd_tpl_is(const char *name, size_t len, const char *want);

#endif
