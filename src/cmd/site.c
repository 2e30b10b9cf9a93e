/* `perfdiff site DIR`: the history as a static site (series/site.h). */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/parse.h"
#include "series/site.h"

static const char site_about[] =
    "Writes the history as a static site into DIR: index.html (every\n"
    "scenario, cache state and tool with a sparkline and its latest\n"
    "change), alerts.html, a trend page per series whose points open the\n"
    "comparison of that commit with the one before (c/...). Self-contained\n"
    "and offline; run again, it remakes only the comparisons whose runs\n"
    "changed.\n";

static int site_args(int argc, char **argv, struct pd_site *s)
{
	struct pd_args a;
	int rc = pd_parse("site", site_about, argc, argv, &a);

	memset(s, 0, sizeof(*s));
	if (rc < 0 && !pd_operands_ok("site", a.nops))
		rc = 2;
	if (rc < 0) {
		s->dir = a.ops[0];
		s->db = a.db;
		s->commit_url = a.commit_url;
		s->repo = a.repo;
		s->last = a.q.last;
		s->pages = a.pages;
		s->rebuild = a.rebuild;
	}
	pd_args_release(&a);
	return rc;
}

int pd_cmd_site(int argc, char **argv)
{
	struct pd_site s;
	struct pd_err err = PD_ERR_INIT;
	int rc = site_args(argc, argv, &s);

	if (rc >= 0)
		return rc;
	rc = pd_site_build(&s, &err);
	if (rc == 0)
		printf("%s: %zu series; %zu comparison pages made, %zu kept\n",
		       s.dir, s.series.n, s.made, s.kept);
	else
		pd_error("%s", err.msg);
	pd_site_release(&s);
	return rc == 0 ? 0 : 2;
}
