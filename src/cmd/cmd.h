/*
 * Subcommands. Each reads its options and operands through pd_parse
 * (cmd/parse.h) and prints its own errors ("perfdiff: error: ...");
 * each returns the process exit status.
 */
#ifndef PD_CMD_H
#define PD_CMD_H

#include <regex.h>
#include <stdio.h>

#include "cmd/cmdlist.h"
#include "core/compat.h"
#include "core/out.h"
#include "store/db.h"

struct pd_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	int min_args, max_args; /* operands after options; -1: any */
	const char *operands;	/* as usage shows them ("BASELINE CANDIDATE") */
	const char *other;	/* a second form's operands, "" for none */
	const char *summary;
	unsigned bit; /* PD_C_ */
	int opts;     /* parses options (pd_parse) */
};

int pd_cmd_alerts(int argc, char **argv);
int pd_cmd_bundle(int argc, char **argv);
int pd_cmd_check(int argc, char **argv);
int pd_cmd_compare(int argc, char **argv);
int pd_cmd_completion(int argc, char **argv);
int pd_cmd_culprit(int argc, char **argv);
int pd_cmd_diff(int argc, char **argv);
int pd_cmd_ingest(int argc, char **argv);
int pd_cmd_db(int argc, char **argv);
int pd_cmd_site(int argc, char **argv);
int pd_cmd_peek(int argc, char **argv);
int pd_cmd_runs(int argc, char **argv);
int pd_cmd_show(int argc, char **argv);
int pd_cmd_convert(int argc, char **argv);
int pd_cmd_trend(int argc, char **argv);
int pd_cmd_help(int argc, char **argv);
int pd_cmd_version(int argc, char **argv);

const struct pd_cmd *pd_cmd_table(size_t *n);
/* The command called name, or NULL. */
const struct pd_cmd *pd_cmd_find(const char *name);
/*
 * Whether n operands are what the command cmd takes (its table entry):
 * 1, or 0 after "error: CMD wants OPERANDS (got N); see perfdiff help
 * CMD".
 */
int pd_operands_ok(const char *cmd, int n);
void pd_error(const char *fmt, ...) PD_PRINTF(1, 2);

/*
 * The output files of core/out.h with their errors said (pd_error): the
 * same returns.
 */
PD_NODISCARD int pd_out_open_say(struct pd_out *o, const char *path);
PD_NODISCARD int pd_out_close_say(struct pd_out *o, int rc);
PD_NODISCARD int pd_out_check_say(const char *path, int file_only);
PD_NODISCARD int pd_write_by_name_say(const char *output,
				      int (*write)(const char *tmp,
						   const void *arg,
						   struct pd_err *err),
				      const void *arg);
/* Whether --commit-url is an http(s) address with {sha}; else says why. */
int pd_commit_url_ok(const char *url);
/* Opens an existing history database; prints the error, -1. */
PD_NODISCARD int pd_open_history(struct pd_db *db, const char *path);
/* Compiles an extended regular expression; prints the error, -1. */
PD_NODISCARD int pd_parse_regex(const char *opt, const char *pattern,
				regex_t *re);

/* s made safe for a terminal (core/utf8.h), as a new string (free it). */
char *pd_term_dup(const char *s);

#endif
