/*
 * The pages of perfdiff site (docs/cli.md, "perfdiff site"), from the
 * templates reports/site-*.html: the index of series, the page of alerts,
 * each series' trend page and the way back put into a comparison page.
 * Every name is HTML-escaped. series/site.c decides what is made and writes
 * the files.
 */
#ifndef PD_REPORT_SITE_H
#define PD_REPORT_SITE_H

#include <stddef.h>
#include <stdio.h>

#include "core/buf.h"
#include "core/compat.h"
#include "stats/trend.h"

/* One scenario x cache x tool of the history. */
struct pd_site_key {
	char *scenario, *cache, *tool;
	char *slug; /* scenario, cache and tool, safe as a file name */
	size_t runs;
};

/* A key with its trend and which of its commits have a comparison page. */
struct pd_site_series {
	const struct pd_site_key *key;
	struct pd_trend t;
	unsigned char *page; /* per commit: has a comparison page */
};

/*
 * index.html into b: a row per series (its trend page, counts, a
 * sparkline of the total and the latest change) and the number of
 * changes. 0, or PD_EIO when a template is missing from the binary.
 */
PD_NODISCARD int pd_site_index_html(struct pd_buf *b,
				    const struct pd_site_series *series,
				    size_t n);
/*
 * alerts.html into b: every alert of the n series, newest first, the
 * alerts that are one change seen by several series together. 0 or
 * PD_EIO as above.
 */
PD_NODISCARD int pd_site_alerts_html(struct pd_buf *b,
				     const struct pd_site_series *series,
				     size_t n);
/*
 * A series' trend page to f: the trend report (pd_trend_html) with the
 * way back to the index and the alerts. 0 or PD_EIO.
 */
PD_NODISCARD int pd_site_trend_html(FILE *f, const struct pd_trend *t);
/*
 * page, a comparison page of the site's series slug, into out with the
 * way back (to the trend, the index and the alerts) after its <body>
 * tag: 1; 0 (out untouched) when page has no <body>; PD_EIO when the
 * template is missing.
 */
PD_NODISCARD int pd_site_compare_nav(struct pd_buf *out, const char *page,
				     const char *slug);

#endif
