/* The slots of the HTML templates in reports/ filled in (tpl_int.h). */
#include <string.h>

#include "report/tpl_int.h"

/* The longest slot name: longer brace pairs are CSS or script. */
#define SLOT_MAX 16

void pd_tpl_fill(struct pd_buf *b, const char *tpl, pd_tpl_slot_fn slot,
		 void *arg)
{
	const char *p = tpl;

	while (*p) {
		const char *open = strchr(p, '{'), *close;
		size_t k;

		if (!open) {
			pd_buf_adds(b, p);
			break;
		}
		pd_buf_add(b, p, (size_t)(open - p));
		close = strchr(open, '}');
		k = close ? (size_t)(close - open - 1) : 0;
		if (!close || k > SLOT_MAX) {
			pd_buf_addch(b, '{');
			p = open + 1;
			continue;
		}
		if (!slot(b, open + 1, k, arg))
			pd_buf_add(b, open, k + 2);
		p = close + 1;
	}
}

int pd_tpl_is(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && !memcmp(name, want, len);
}
