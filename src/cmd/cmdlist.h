/*
 * Every command, once: the command table (commands.c), the option
 * table's command bits (options.c), help, the man page and the shell
 * completions are all made from this list. Sorted by name (a unit test
 * checks the table made from it).
 *
 * X(ID, name, function, min operands, max operands (-1: any), operands
 *   as usage shows them, the operands of a second form ("" for none),
 *   summary, whether it reads its arguments with pd_parse). Usage lines
 *   are made from these and the option table (optdoc.c): the operands,
 *   the options the command needs, then [options].
 */
#ifndef PD_CMD_CMDLIST_H
#define PD_CMD_CMDLIST_H

#define PD_COMMANDS(X)                                                         \
	X(ALERTS, "alerts", pd_cmd_alerts, 0, 3, "[set ID STATE]", "",         \
	  "the stored alerts, or set one's state", 1)                          \
	X(BUNDLE, "bundle", pd_cmd_bundle, 2, 2, "init DIR", "",               \
	  "create a bundle folder (bundle init)", 1)                           \
	X(CHECK, "check", pd_cmd_check, 2, 2, "BASELINE CANDIDATE", "",        \
	  "good, bad or skip for git bisect run", 1)                           \
	X(COMPARE, "compare", pd_cmd_compare, 2, 2, "BASE_REV CAND_REV",       \
	  "--base-of REF CAND_REV --repo DIR", "compare two stored commits",   \
	  1)                                                                   \
	X(COMPLETION, "completion", pd_cmd_completion, 1, 1, "bash|zsh|fish",  \
	  "", "a shell completion script (bash, zsh, fish)", 1)                \
	X(CONVERT, "convert", pd_cmd_convert, 1, 1, "INPUT", "",               \
	  "write a profile as speedscope JSON or folded stacks", 1)            \
	X(CULPRIT, "culprit", pd_cmd_culprit, 0, 0, "", "",                    \
	  "the commits around the latest change point", 1)                     \
	X(DB, "db", pd_cmd_db, 3, 3, "copy SRC DST", "",                       \
	  "copy a history between SQLite and PostgreSQL", 1)                   \
	X(DIFF, "diff", pd_cmd_diff, 2, 2, "BASELINE CANDIDATE",               \
	  "-b RUN ... -c RUN ...", "compare two profiles (the default)", 1)    \
	X(HELP, "help", pd_cmd_help, 0, 1, "[COMMAND]", "",                    \
	  "show help for perfdiff or a command", 1)                            \
	X(INGEST, "ingest", pd_cmd_ingest, 1, -1, "PATH...", "",               \
	  "store bundles in the history", 1)                                   \
	X(PEEK, "peek", pd_cmd_peek, 3, 3, "REGEX BASELINE CANDIDATE",         \
	  "-b RUN ... -c RUN ... REGEX",                                       \
	  "callers and callees of a function, both sides", 1)                  \
	X(RUNS, "runs", pd_cmd_runs, 0, 0, "", "", "list the stored runs", 1)  \
	X(SHOW, "show", pd_cmd_show, 1, 1, "PROFILE", "",                      \
	  "print one profile's functions", 1)                                  \
	X(SITE, "site", pd_cmd_site, 1, 1, "DIR", "",                          \
	  "the history as a static site", 1)                                   \
	X(TREND, "trend", pd_cmd_trend, 0, 0, "", "",                          \
	  "series and change points over history", 1)                          \
	X(VERSION, "version", pd_cmd_version, 0, 0, "", "",                    \
	  "print the version", 1)

/* Each command's index in the list. */
enum {
#define PD_CMD_INDEX(id, ...) PD_CI_##id,
	PD_COMMANDS(PD_CMD_INDEX)
#undef PD_CMD_INDEX
	    PD_NCOMMANDS
};

/* Each command's bit, for the option table's sets of commands. */
enum {
#define PD_CMD_BIT(id, ...) PD_C_##id = 1u << PD_CI_##id,
	PD_COMMANDS(PD_CMD_BIT)
#undef PD_CMD_BIT
};

#endif
