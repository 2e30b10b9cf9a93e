/*
 * The one command-line parser: a command's argv read against the option
 * table (cmd/options.c), each value checked there and stored where its
 * row says, in struct pd_args. No command reads argv itself.
 */
#ifndef PD_CMD_PARSE_H
#define PD_CMD_PARSE_H

#include <regex.h>
#include <stddef.h>

#include "cmd/options.h"
#include "core/compat.h"
#include "import/import.h"
#include "report/report.h"
#include "stats/diff.h"
#include "store/trend.h"

/* A list of strings (works with the PD_VEC macros). */
struct pd_strlist {
	const char **v;
	size_t n, cap;
};

/*
 * Every option's value, for every command: a row of the option table
 * names the field its value goes to. pd_parse sets the defaults first;
 * a command reads the fields of the options it takes.
 */
struct pd_args {
	/* Inputs */
	struct pd_import_opts io; /* io.symbol_dirs: from symbols */
	struct pd_strlist symbols;
	/* Runs */
	struct pd_strlist base, cand; /* -b, -c */
	const char *function;	      /* check, trend, culprit: REGEX */
	/* Matching: PD_FUNCS_ bits, --system's among them */
	unsigned flags;
	int system;
	/* Statistics */
	struct pd_settings set;
	/* History */
	const char *db, *scenario, *cache, *tool, *sha, *repo, *base_of;
	const char *cflags_from, *build_cmd;
	struct pd_strlist datasets;
	int rekey, verbose;
	/* Trend: q's since, last, top and threshold_pct are options */
	struct pd_trend_query q;
	double pmax;
	const char *alert_after, *state, *commit_url;
	int improvements;
	int record; /* trend --record */
	/* alerts: --state's list in state, and set's note, who and link */
	const char *note, *who;
	size_t alert_by;
	/* Site: q.last, and */
	size_t pages;
	int rebuild;
	/* Output */
	int fmt; /* enum pd_outfmt */
	const char *output;
	struct pd_report_opts ro; /* ro.color from color, ro.sort from sort */
	int color, sort;	  /* --color: 0 auto, 1 always, 2 never */
	int counts;		  /* show, convert: folded sample counts */
	int show_top;		  /* show: rows */
	/* help's own, for the docs and tests: help --man, --markdown CMD */
	int man, options_table, synopsis;
	const char *markdown;
	/* The command (PD_C_ bit) and its operands, in argv's order */
	unsigned cmd;
	char **ops;
	int nops;
	/* The command's own, not options: check's answer, --function's ERE */
	int check, have_fre;
	regex_t fre;
};

/*
 * Parses the options and operands of command name (argv[0], the
 * command's name, is skipped) into a, after setting every default: long
 * options (--name VALUE, --name=VALUE, a unique prefix of a name), short
 * ones (-f VALUE, -fVALUE, -vh), operands anywhere, and "--" ending the
 * options. Returns -1 to go on, else the exit status to return now: 0
 * after printing usage and the options' help for -h, 2 after a one-line
 * error. Release a with pd_args_release either way. -h prints the
 * usage lines the tables make (optdoc.c), about (the command's
 * description, prose ending in a newline; NULL: its summary) and the
 * options' help.
 */
PD_NODISCARD int pd_parse(const char *name, const char *about, int argc,
			  char **argv, struct pd_args *a);
/* Frees what a holds (its lists, operands and --function's ERE). */
void pd_args_release(struct pd_args *a);

#endif
