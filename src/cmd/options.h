/*
 * Every command-line option, once (options.c): its name, argument, help
 * text, section and the commands that take it. The getopt tables, each
 * command's help, "did you mean", the man page (docs/perfdiff.1), the
 * shell completions and the option tables of docs/cli.md are all made
 * from it; a test fails when docs/cli.md or the man page disagree.
 */
#ifndef PD_CMD_OPTIONS_H
#define PD_CMD_OPTIONS_H

#include <stdio.h>

/* Option ids beyond the single letters (getopt's return values). */
enum {
	OPT_FROM = 256,
	OPT_EVENT,
	OPT_PROCESS,
	OPT_THREAD,
	OPT_SAMPLE_WEIGHT,
	OPT_INTERVAL,
	OPT_WEIGHT,
	OPT_SYMBOLS,
	OPT_SYMBOLIZER,
	OPT_DECIMAL,
	OPT_SAMPLE_TYPE,
	OPT_METRIC,
	OPT_ALLOC_FRAMES,
	OPT_NO_NORMALIZE,
	OPT_NO_MODULE,
	OPT_SYSTEM,
	OPT_FOCUS,
	OPT_IGNORE,
	OPT_HIDE,
	OPT_PERF,
	OPT_THRESHOLD,
	OPT_MIN_IMPACT,
	OPT_ALPHA,
	OPT_DISPERSION,
	OPT_RUN_CV,
	OPT_PAIRED,
	OPT_TREAT,
	OPT_SHARE,
	OPT_TOP,
	OPT_SORT,
	OPT_COLOR,
	OPT_DB,
	OPT_SCENARIO,
	OPT_CACHE,
	OPT_TOOL,
	OPT_FUNCTION,
	OPT_COUNTS,
	OPT_SHA,
	OPT_DATASET,
	OPT_REPO,
	OPT_CFLAGS_FROM,
	OPT_BUILD_CMD,
	OPT_LAST,
	OPT_SINCE,
	OPT_P,
	OPT_ALERT_AFTER,
	OPT_STATE,
	OPT_IMPROVEMENTS,
	OPT_COMMIT_URL,
	OPT_PAGES,
	OPT_REBUILD,
	OPT_REKEY,
	OPT_BASE_OF,
	OPT_RECORD,
	OPT_NOTE,
	OPT_WHO,
	OPT_BY,
};

/* The commands that take options, one bit each. */
enum {
	PD_C_DIFF = 1u << 0,
	PD_C_CHECK = 1u << 1,
	PD_C_SHOW = 1u << 2,
	PD_C_CONVERT = 1u << 3,
	PD_C_COMPARE = 1u << 4,
	PD_C_INGEST = 1u << 5,
	PD_C_RUNS = 1u << 6,
	PD_C_BUNDLE = 1u << 7,
	PD_C_TREND = 1u << 8,
	PD_C_CULPRIT = 1u << 9,
	PD_C_PEEK = 1u << 10,
	PD_C_DB = 1u << 11,
	PD_C_SITE = 1u << 12,
	PD_C_ALERTS = 1u << 13,
};

struct pd_optdef {
	const char *name; /* long name */
	int letter;	  /* short option, 0 for none */
	int has_arg;	  /* getopt's no_argument / required_argument */
	int id;		  /* what getopt returns: the letter or an OPT_ id */
	const char *arg;  /* the argument in help ("FILE"), NULL for a flag */
	const char *section;
	unsigned cmds; /* PD_C_ bits */
	/* help, lines joined by '\n'; NULL for an alias left out of help */
	const char *help;
	/* docs/cli.md and the man page: the fuller text, NULL for help's */
	const char *doc;
};

/* The command's bit by name (0 for none). */
unsigned pd_opts_cmd(const char *name);
/* getopt_long's table for a command (built once, never freed). */
const struct option *pd_opts_getopt(unsigned cmd);
/*
 * getopt's string of the command's short options, from the same table
 * (":f:o:hb:c:" for diff): a letter the help does not list is refused.
 */
const char *pd_opts_short(unsigned cmd);
/* The option lines of a command's help, by section. */
void pd_opts_help(FILE *f, unsigned cmd);
/* docs/cli.md's option table of a command (Markdown). */
void pd_opts_markdown(FILE *f, unsigned cmd);
/* The man page (roff), docs/perfdiff.1. */
void pd_opts_man(FILE *f);
/* A completion script for "bash", "zsh" or "fish"; -1 for another. */
int pd_opts_completion(FILE *f, const char *shell);

#endif
