/*
 * Every command-line option, once (options.c): its name, its kind and
 * where its value goes (a field of struct pd_args, cmd/parse.h), its
 * argument, help text, section and the commands that take it. The
 * parser (parse.c), each command's help, "did you mean", the man page
 * (docs/perfdiff.1), the shell completions and the option tables of
 * docs/cli.md are all made from it (optdoc.c); a test fails when
 * docs/cli.md or the man page disagree, another when an option a
 * command accepts changes nothing it does.
 */
#ifndef PD_CMD_OPTIONS_H
#define PD_CMD_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "cmd/cmdlist.h"

struct pd_buf;
struct pd_cmd;

enum pd_optkind {
	PD_OPT_HELP,   /* -h: usage and the options' help, exit 0 */
	PD_OPT_FLAG,   /* no value: the int at off becomes 1 */
	PD_OPT_BITS,   /* no value: bits or'ed into the unsigned at off */
	PD_OPT_TEXT,   /* the value (const char *), once check accepts it */
	PD_OPT_NUMBER, /* a number from lo to hi, stored as num says */
	PD_OPT_CHOICE, /* one of choices, its value stored as num says */
	PD_OPT_LIST,   /* repeatable: appended to the pd_strlist at off */
};

/* How a number or a choice is stored at off. */
enum pd_optnum {
	PD_NUM_DOUBLE,
	PD_NUM_PERCENT, /* a double: the percentage given, divided by 100 */
	PD_NUM_INT,
	PD_NUM_SIZE, /* size_t */
	PD_NUM_CHAR,
};

/* A value of a choice; a NULL name ends the list. */
struct pd_choice {
	const char *name;
	int value;
	int alias; /* another spelling, left out of messages */
};

struct pd_optdef {
	const char *name; /* long name */
	int letter;	  /* short option, 0 for none */
	enum pd_optkind kind;
	size_t off; /* where the value goes in struct pd_args */
	enum pd_optnum num;
	double lo, hi;			 /* NUMBER: the range */
	const struct pd_choice *choices; /* CHOICE */
	unsigned bits; /* BITS: what is set; CHOICE of formats: PD_FMT bits */
	/*
	 * TEXT: 0 when the value is good for command cmd (a PD_C_ bit),
	 * else -1 after a one-line error; may put another string (static,
	 * or the value's own) in *v.
	 */
	int (*check)(const char *opt, const char **v, unsigned cmd);
	const char *arg; /* the argument in help ("FILE"), NULL for a flag */
	const char *section;
	unsigned cmds; /* PD_C_ bits */
	/* help, lines joined by '\n'; NULL for an alias left out of help */
	const char *help;
	/* docs/cli.md and the man page: the fuller text, NULL for help's */
	const char *doc;
};

/*
 * Output formats: one list for every command's -f. Which a command
 * writes is its -f row's set of PD_FMT bits (options.c).
 */
enum pd_outfmt {
	PD_FMT_TEXT,
	PD_FMT_MD,
	PD_FMT_JSON,
	PD_FMT_FOLDED,
	PD_FMT_HTML,
	PD_FMT_XLSX,
	PD_FMT_SPEEDSCOPE,
	PD_FMT_TSV,
};
#define PD_FMT(f) (1u << (f))

/* The name -f gives a format ("md"). */
const char *pd_outfmt_name(enum pd_outfmt f);

/* The option table. */
const struct pd_optdef *pd_opts_table(size_t *n);
/* Whether command cmd (a PD_C_ bit) needs option d: its usage shows it. */
int pd_opts_needed(const struct pd_optdef *d, unsigned cmd);
/* The command's bit by name (0 for none, or one without options). */
unsigned pd_opts_cmd(const char *name);
/* The output formats as a choice list, for -f. */
extern const struct pd_choice pd_outfmt_choices[];

/*
 * The usage lines of command c, made from the command table and this
 * one: "perfdiff NAME OPERANDS --NEEDED ARG [options]", a second line
 * for a second form; the first starts with first, the second with as
 * many spaces.
 */
void pd_opts_usage(struct pd_buf *b, const struct pd_cmd *c, const char *first);
/* The option lines of a command's help, by section. */
void pd_opts_help(FILE *f, unsigned cmd);
/* docs/cli.md's option table of a command (Markdown). */
void pd_opts_markdown(FILE *f, unsigned cmd);
/* The man page (roff), docs/perfdiff.1. */
void pd_opts_man(FILE *f);
/* A completion script for "bash", "zsh" or "fish"; -1 for another. */
int pd_opts_completion(FILE *f, const char *shell);
/*
 * Every (command, option) pair, one a line for tests: "COMMAND\t--NAME\t
 * KIND\tARG", an alias's KIND followed by "=" and the name it spells.
 */
void pd_opts_dump(FILE *f);

#endif
