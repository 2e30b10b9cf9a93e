/* The option table and what is made from it (cmd/options.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/options.h"
#include "core/buf.h"
#include "core/xalloc.h"
#include "import/import.h"

#define RUN (PD_C_DIFF | PD_C_CHECK | PD_C_PEEK)
#define IN (RUN | PD_C_SHOW | PD_C_CONVERT)
#define JUDGE (RUN | PD_C_COMPARE)
#define HIST (PD_C_INGEST | PD_C_RUNS | PD_C_BUNDLE)
#define SERIES (PD_C_TREND | PD_C_CULPRIT)
#define ALL 0x3fffu

static const struct pd_optdef table[] = {
	/* Inputs */
	{ "from", 0, required_argument, OPT_FROM, "FORMAT", "Inputs", IN,
	  "force the format: @FORMATS@ (default: sniffed from the content)",
	  "skip sniffing: the format by name (@FORMATS@; also `samply`, "
	  "`gecko`, `perf`, `csv`, `collapsed`, `stat`, `proto`)" },
	{ "event", 0, required_argument, OPT_EVENT, "NAME", "Inputs", IN,
	  "perf.data, perf script: the event to use (default: the first);\n"
	  "Callgrind, Cachegrind: the event judged (default Ir)",
	  "perf.data and perf script text: the event to use; default the "
	  "first event sampled (the others are named in a warning). "
	  "Callgrind and Cachegrind: the event judged (`Ir`, `Dr`, `D1mr`, "
	  "`Bcm`, ...; default `Ir`)" },
	{ "process", 0, required_argument, OPT_PROCESS, "NAME", "Inputs", IN,
	  "keep samples whose process name contains NAME",
	  "keep samples whose process matches: perf `comm` (substring) or pid "
	  "(exact); speedscope/PerfView the `Process64 name (pid)` frame or "
	  "the profile name; WPA the Process column; Instruments the process "
	  "row; xctrace the process; ETW traces names or pids, several "
	  "separated by commas (default: the process with most samples); "
	  "folded the first frame. Nothing left "
	  "is an error; pprof, DHAT, .cpuprofile, perf stat, Callgrind and "
	  "Cachegrind name no processes: a warning" },
	{ "thread", 0, required_argument, OPT_THREAD, "NAME", "Inputs", IN,
	  "keep samples whose thread name contains NAME",
	  "keep samples whose thread matches: perf `comm` (substring) or tid "
	  "(exact); speedscope the profile name or `Thread (tid)` frame; "
	  "Instruments and xctrace the thread; ETW traces thread ids, "
	  "several separated by commas; folded the first frame. "
	  "Nothing left is an error; pprof, DHAT, .cpuprofile, perf stat, "
	  "Callgrind and Cachegrind name no threads: a warning" },
	{ "sample-weight", 0, required_argument, OPT_SAMPLE_WEIGHT, "W",
	  "Inputs", IN, "weight of one sample (folded; default: derived)",
	  "the weight of one sample, to turn weights into sample counts "
	  "(folded); default: the greatest common divisor of the file's "
	  "weights when chance cannot explain it (at least 1 000, or shared "
	  "by 16 stacks or more), else 1" },
	{ "interval", 0, required_argument, OPT_INTERVAL, "MS", "Inputs", IN,
	  "sampling interval of evented data and Instruments (default 1 ms)",
	  "sampling interval in milliseconds: of evented speedscope data "
	  "(default 1 ms, PerfView's and dotnet-trace's rate) and of an "
	  "Instruments deep copy (default 1 ms, Time Profiler's)" },
	{ "weight", 0, required_argument, OPT_WEIGHT, "cpu|wall", "Inputs", IN,
	  "samply/Firefox: CPU time (default when every sampled thread\n"
	  "has it) or wall clock",
	  "samply/Firefox: CPU time from `threadCPUDelta` or wall clock "
	  "(samples × interval, off-CPU included). Default: CPU time when "
	  "every thread with more than one sample has CPU deltas, else wall "
	  "clock for the whole profile (said in a warning); `cpu` given "
	  "explicitly is an error when a thread has none. The rule is printed "
	  "as the profile's `counts:` line, and a diff of two profiles "
	  "weighed by different rules warns" },
	{ "symbols", 0, required_argument, OPT_SYMBOLS, "PATH", "Inputs", IN,
	  "folders or a symbol path (DIR;srv*DIR*URL) with the profiled\n"
	  "build's binaries and symbols (repeatable; default\n"
	  "$PERFDIFF_SYMBOL_PATH)",
	  "where the profiled build's binaries and symbols are, to name "
	  "frames that only have addresses: a folder (dist/ as built, "
	  "`.app`/`.dSYM` bundles, a SymStore tree, a `.build-id` tree) or a "
	  "symbol path in Windows syntax (`DIR;srv*DIR*URL;cache*DIR`, local "
	  "folders only). Repeatable; files are used only when their build "
	  "ids equal the profile's. Default: `$PERFDIFF_SYMBOL_PATH`. See "
	  "symbols.md" },
	{ "symbolizer", 0, required_argument, OPT_SYMBOLIZER, "PATH", "Inputs",
	  IN, "llvm-symbolizer (or atos) to use",
	  "the symbolizer for PE/PDB and Mach-O files: an `llvm-symbolizer` "
	  "or macOS `atos`; default `llvm-symbolizer` on PATH, in Homebrew's "
	  "llvm, or `llvm-symbolizer-N`, then `atos` on macOS" },
	{ "decimal", 0, required_argument, OPT_DECIMAL, ".|,", "Inputs", IN,
	  "WPA CSV: the decimal separator (default: decided per file)",
	  "WPA CSV: the decimal separator, when detection from the numbers "
	  "cannot tell" },
	{ "sample-type", 0, required_argument, OPT_SAMPLE_TYPE, "T", "Inputs",
	  IN, "pprof: the value to read, by name or index",
	  "pprof: which value to read (`alloc_space`, `1`, …), as `pprof "
	  "-sample_index`; default the profile's default sample type, else "
	  "the last" },
	{ "metric", 0, required_argument, OPT_METRIC, "M", "Inputs", IN,
	  "DHAT: bytes (default), blocks, peak-bytes, ...; WPA memory\n"
	  "tables: bytes or blocks (allocations)",
	  "DHAT: the measure: `bytes` (default), `blocks`, `lifetimes`, "
	  "`max-bytes`, `max-blocks`, `peak-bytes`, `peak-blocks`, "
	  "`end-bytes`, `end-blocks`, `reads`, `writes` (or the raw keys "
	  "`tb`, `gb`, …); WPA memory tables: `bytes` (default) or `blocks` "
	  "(allocations)" },
	{ "alloc-frames", 0, required_argument, OPT_ALLOC_FRAMES, "RE",
	  "Inputs", IN,
	  "memory profiles (DHAT, WPA, Instruments): the allocator's\n"
	  "frames, cut from stacks (POSIX extended)",
	  "memory profiles (DHAT, WPA memory tables, Instruments "
	  "Allocations): the allocator's frames, cut from the leaf end so "
	  "that self lands in the program (POSIX extended regex; DHAT matches "
	  "`FUNCTION (LOCATION)`, WPA `module!function`; defaults in "
	  "formats.md)" },
	{ "perf", 0, required_argument, OPT_PERF, "PATH", "Inputs", IN,
	  "perf, for the perf.data only perf reads (default: on PATH)",
	  "the `perf` that reads the `perf.data` recordings perfdiff does not "
	  "(DWARF or LBR call graphs, compressed, piped: `perf script -i`, "
	  "formats.md); default `perf` on PATH" },
	{ "focus", 0, required_argument, OPT_FOCUS, "RE", "Inputs", IN,
	  "keep only samples with a frame whose name matches RE",
	  "keep only the samples with a frame whose name matches (POSIX "
	  "extended regex), as `pprof -focus`; a note says how much of the "
	  "weight was kept" },
	{ "ignore", 0, required_argument, OPT_IGNORE, "RE", "Inputs", IN,
	  "drop samples with a frame matching RE",
	  "drop the samples with a frame whose name matches, as `pprof "
	  "-ignore`" },
	{ "hide", 0, required_argument, OPT_HIDE, "RE", "Inputs", IN,
	  "take frames matching RE out of the stacks",
	  "take the frames whose name matches out of the stacks, their time "
	  "going to their callers, as `pprof -hide`" },
	/* Sides */
	{ "baseline", 'b', required_argument, 'b', "FILE", "Runs", RUN,
	  "a baseline run (repeatable: several runs per side)", NULL },
	{ "candidate", 'c', required_argument, 'c', "FILE", "Runs", RUN,
	  "a candidate run (repeatable)", NULL },
	{ "paired", 0, no_argument, OPT_PAIRED, NULL, "Runs", RUN,
	  "run i of -b and of -c were recorded one after the other\n"
	  "(A B A B): a paired test",
	  "run i of `-b` and run i of `-c` were recorded one after the other "
	  "(A B A B, `scripts/record-ab.sh`): the paired t-test "
	  "(statistics.md, \"Several runs per side\")" },
	{ "function", 0, required_argument, OPT_FUNCTION, "REGEX", "Runs",
	  PD_C_CHECK,
	  "decide on the functions whose \"name [module]\" matches (self or\n"
	  "total); default: the whole verdict",
	  "decide on the functions whose `name [module]` matches: bad when "
	  "one regressed in self or total time (or appeared), skip when one "
	  "is inconclusive, skip when none matches" },
	/* Matching */
	{ "no-normalize", 0, no_argument, OPT_NO_NORMALIZE, NULL, "Matching",
	  JUDGE, "match raw names (keep +0x.., .constprop.N, ...)",
	  "match raw names exactly (module paths still compare by basename)" },
	{ "no-module", 0, no_argument, OPT_NO_MODULE, NULL, "Matching", JUDGE,
	  "match functions by name alone, ignoring modules", NULL },
	{ "system", 0, required_argument, OPT_SYSTEM, "include", "Matching",
	  JUDGE,
	  "judge kernel, interrupt and driver frames like the program's\n"
	  "(default: reported apart, their time outside the program's\n"
	  "totals)",
	  "kernel, interrupt and driver frames: set apart (default: reported "
	  "in their own section, their time outside the program's totals and "
	  "the verdict) or judged like the program's (statistics.md, \"System "
	  "frames\"); `exclude` is the default" },
	/* Statistics */
	{ "threshold", 0, required_argument, OPT_THRESHOLD, "PCT", "Statistics",
	  JUDGE, "smallest ratio change that counts (default 5)",
	  "smallest change of the ratio that can count as regressed/improved "
	  "(default 5)" },
	{ "min-impact", 0, required_argument, OPT_MIN_IMPACT, "PCT",
	  "Statistics", JUDGE,
	  "smallest change as % of the baseline total (default 0.5)",
	  "smallest change as a percentage of the baseline total (default "
	  "0.5)" },
	{ "alpha", 0, required_argument, OPT_ALPHA, "A", "Statistics", JUDGE,
	  "false discovery rate (default 0.05)",
	  "false discovery rate for Benjamini–Hochberg (default 0.05)" },
	{ "dispersion", 0, required_argument, OPT_DISPERSION, "PHI",
	  "Statistics", JUDGE, "sampling overdispersion floor (default 1.5)",
	  "sampling overdispersion floor φ₀ (default 1.5); φ = max(φ₀, λ) "
	  "when λ can be estimated" },
	{ "run-cv", 0, required_argument, OPT_RUN_CV, "PCT", "Statistics",
	  JUDGE, "run-to-run variation assumed without history (default 2)",
	  "run-to-run variation (coefficient of variation, %) a function is "
	  "assumed to have when no history says (default 2); statistics.md, "
	  "\"the noise model\"" },
	{ "treat", 0, no_argument, OPT_TREAT, NULL, "Statistics", JUDGE,
	  "test changes against the threshold, not against none\n"
	  "(fewer, surer verdicts)",
	  "test each change against the threshold instead of against no "
	  "change (TREAT), so that Benjamini–Hochberg bounds the share of "
	  "false \"beyond the threshold\" verdicts; surer verdicts, fewer "
	  "of them (statistics.md, \"The test\")" },
	{ "share", 0, no_argument, OPT_SHARE, NULL, "Statistics", JUDGE,
	  "compare shares of the total, not absolute weights",
	  "compare shares of each side's total instead of absolute weights" },
	/* History */
	{ "db", 0, required_argument, OPT_DB, "DB", "History",
	  PD_C_CHECK | PD_C_COMPARE | PD_C_INGEST | PD_C_RUNS | SERIES |
	      PD_C_SITE | PD_C_ALERTS,
	  "SQLite file or postgresql:// URL (default $PERFDIFF_DB, else"
	  " ./perfdiff.db)",
	  "the history: a SQLite file, or a PostgreSQL server as"
	  " postgresql://[user@]host[:port]/db[?sslmode=...] (password from"
	  " ~/.pgpass or PGPASSWORD, never the command line); default"
	  " $PERFDIFF_DB, else ./perfdiff.db" },
	{ "scenario", 0, required_argument, OPT_SCENARIO, "S", "History",
	  PD_C_CHECK | PD_C_COMPARE | SERIES,
	  "the scenario (compare, trend, culprit: required)", NULL },
	{ "scenario", 0, required_argument, OPT_SCENARIO, "S", "History",
	  PD_C_INGEST | PD_C_RUNS,
	  "the scenario (ingest: when the bundle does not say; runs: only\n"
	  "its runs)",
	  NULL },
	{ "scenario", 0, required_argument, OPT_SCENARIO, "NAME", "History",
	  PD_C_BUNDLE, "the scenario the bundle records (required)", NULL },
	{ "scenario", 0, required_argument, OPT_SCENARIO, "S", "History",
	  PD_C_ALERTS, "only the scenario's alerts", NULL },
	{ "cache", 0, required_argument, OPT_CACHE, "C", "History",
	  RUN | PD_C_COMPARE | SERIES | HIST,
	  "warm, cold or unspecified (when several are stored or in the\n"
	  "bundles; for ingest, when the bundle does not say, else\n"
	  "unspecified)",
	  NULL },
	{ "tool", 0, required_argument, OPT_TOOL, "T", "History",
	  RUN | PD_C_COMPARE | SERIES,
	  "the profiler, when several are stored or in the bundles", NULL },
	{ "sha", 0, required_argument, OPT_SHA, "REV", "History", HIST,
	  "the commit (ingest: when the bundle does not say; runs: only\n"
	  "its runs; bundle: default HEAD)",
	  NULL },
	{ "repo", 0, required_argument, OPT_REPO, "DIR", "History",
	  PD_C_INGEST | PD_C_BUNDLE | SERIES | PD_C_COMPARE | PD_C_CHECK,
	  "git repository: resolves shas to full ids and commit dates,\n"
	  "and revisions (HEAD~1, a branch, A...B) for compare, check and\n"
	  "--alert-after; trend and culprit order commits as git does",
	  "the git repository: ingest and bundle resolve each sha to its full "
	  "id and commit date (default: the repository holding the bundle, "
	  "else the current folder's); compare, check (`db:REV`) and "
	  "`--alert-after` take any revision git does (`HEAD~1`, a branch, a "
	  "tag, a short sha, `A...B` for the merge base of A and B; without "
	  "it a revision is a stored sha prefix); trend and culprit order "
	  "commits as `git rev-list --topo-order HEAD` does, leaving out "
	  "stored commits git does not know, with a note" },
	{ "base-of", 0, required_argument, OPT_BASE_OF, "REF", "History",
	  PD_C_COMPARE,
	  "one operand, CAND_REV; the baseline is its merge base with REF,\n"
	  "or that commit's nearest stored first-parent ancestor (--repo)",
	  "compare takes one operand, CAND_REV, and the baseline is the "
	  "commit where it left REF: their merge base (`git merge-base`), or, "
	  "when that commit has no stored runs of the scenario, cache state "
	  "and tool, its nearest first-parent ancestor that has, at most 1000 "
	  "commits back; the baseline's provenance in the report says which "
	  "commit and why. Needs `--repo`" },
	{ "dataset", 0, required_argument, OPT_DATASET, "PATH", "History",
	  PD_C_BUNDLE,
	  "an input of the run, recorded with its SHA-256\n"
	  "(repeatable)",
	  NULL },
	{ "cflags-from", 0, required_argument, OPT_CFLAGS_FROM,
	  "compile_commands.json", "History", PD_C_BUNDLE,
	  "the compiler flags, from a compilation database", NULL },
	{ "build-cmd", 0, required_argument, OPT_BUILD_CMD, "TEXT", "History",
	  PD_C_BUNDLE, "the command that built the program", NULL },
	{ "rekey", 0, no_argument, OPT_REKEY, NULL, "History", PD_C_INGEST,
	  "runs stored from this bundle folder (or a gone one) under\n"
	  "another sha or scenario move to the ones it gives now",
	  "runs whose profiles were stored from this bundle folder (or from "
	  "one that is no longer there) under another sha or scenario take "
	  "the ones it gives now; without it such a bundle is refused "
	  "(history.md, \"Ingest\")" },
	{ "verbose", 'v', no_argument, 'v', NULL, "History",
	  PD_C_INGEST | PD_C_RUNS,
	  "ingest: name every bundle already stored; runs: where each\n"
	  "run was read from and its build_meta.json",
	  NULL },
	/* Trend */
	{ "last", 0, required_argument, OPT_LAST, "N", "Trend",
	  SERIES | PD_C_SITE, "the last N commits", NULL },
	{ "pages", 0, required_argument, OPT_PAGES, "N", "Site", PD_C_SITE,
	  "comparison pages for the last N commits of each series\n"
	  "and every alert's (default 30; 0 every commit)",
	  NULL },
	{ "rebuild", 0, no_argument, OPT_REBUILD, NULL, "Site", PD_C_SITE,
	  "make every comparison page again", NULL },
	{ "since", 0, required_argument, OPT_SINCE, "DATE", "Trend", SERIES,
	  "commits dated DATE (ISO 8601) or later",
	  "commits dated DATE (ISO 8601) or later" },
	{ "function", 0, required_argument, OPT_FUNCTION, "REGEX", "Trend",
	  SERIES,
	  "only functions whose \"name [module]\" matches (and no\n"
	  "counters)",
	  "only functions whose `name [module]` matches (POSIX extended); no "
	  "counters" },
	{ "p", 0, required_argument, OPT_P, "P", "Trend", SERIES,
	  "significance of a change point (default 0.001)", NULL },
	{ "threshold", 0, required_argument, OPT_THRESHOLD, "PCT", "Trend",
	  SERIES, "smallest change when none is learned (default 5)", NULL },
	{ "alert-after", 0, required_argument, OPT_ALERT_AFTER, "REV", "Trend",
	  SERIES,
	  "exit 1 only for alerts after commit REV (culprit: the latest\n"
	  "alert after it)",
	  NULL },
	{ "state", 0, required_argument, OPT_STATE, "FILE", "Trend", PD_C_TREND,
	  "exit 1 only for alerts not listed in FILE, then add them",
	  "exit 1 only for alerts whose first bad sha is not in FILE, then "
	  "add them (the nightly job's memory)" },
	{ "record", 0, no_argument, OPT_RECORD, NULL, "Trend", PD_C_TREND,
	  "store the alerts in the history, exit 1 only for new ones",
	  "store the change points in the history's alerts (the database is "
	  "opened for writing), then exit 1 only when a regression no series "
	  "of the scenario had stored at its commit appeared; the others keep "
	  "the state `perfdiff alerts set` gave them (the nightly job's "
	  "memory)" },
	/* Alerts */
	{ "state", 0, required_argument, OPT_STATE, "LIST", "Alerts",
	  PD_C_ALERTS,
	  "only alerts in these states (new,acknowledged,...,all;\n"
	  "default all but invalid)",
	  "only alerts in these states, joined by commas: `new`, "
	  "`acknowledged`, `expected`, `invalid`, `fixed`, `backed-out`, or "
	  "`all` (default: all but `invalid`)" },
	{ "since", 0, required_argument, OPT_SINCE, "DATE", "Alerts",
	  PD_C_ALERTS, "only alerts first seen on DATE (ISO 8601) or later",
	  NULL },
	{ "note", 0, required_argument, OPT_NOTE, "TEXT", "Alerts", PD_C_ALERTS,
	  "set: why, kept with the state", NULL },
	{ "who", 0, required_argument, OPT_WHO, "NAME", "Alerts", PD_C_ALERTS,
	  "set: who triaged it (default $USER)", NULL },
	{ "by", 0, required_argument, OPT_BY, "ID", "Alerts", PD_C_ALERTS,
	  "set fixed or backed-out: the improvement alert that undid it",
	  NULL },
	{ "improvements", 0, no_argument, OPT_IMPROVEMENTS, NULL, "Trend",
	  PD_C_CULPRIT, "also changes for the better", NULL },
	{ "commit-url", 0, required_argument, OPT_COMMIT_URL, "URL", "Trend",
	  PD_C_TREND | PD_C_SITE,
	  "link commits in md and html to URL, {sha} replaced\n"
	  "(https://host/org/repo/commit/{sha})",
	  "link every commit in Markdown and HTML to URL, an http(s) address "
	  "with `{sha}` where the full sha goes "
	  "(`https://github.com/org/repo/commit/{sha}`)" },
	/* Output */
	{ "format", 'f', required_argument, 'f', "FMT", "Output",
	  JUDGE & ~PD_C_PEEK, "text (default), md, json, html, xlsx, folded",
	  NULL },
	{ "format", 'f', required_argument, 'f', "FMT", "Output", PD_C_PEEK,
	  "text (default), json", NULL },
	{ "format", 'f', required_argument, 'f', "FMT", "Output", PD_C_SHOW,
	  "text (default), json, folded", NULL },
	{ "format", 'f', required_argument, 'f', "FMT", "Output", PD_C_CONVERT,
	  "speedscope (default), folded", NULL },
	{ "format", 'f', required_argument, 'f', "FMT", "Output", PD_C_TREND,
	  "text (default), md, json, html, xlsx", NULL },
	{ "format", 'f', required_argument, 'f', "FMT", "Output", PD_C_ALERTS,
	  "text (default), md, json", NULL },
	{ "format", 'f', required_argument, 'f', "FMT", "Output", PD_C_RUNS,
	  "text (default), json, tsv",
	  "text (default); json or tsv for scripts: one run a row with its "
	  "key, unit, samples, total and sample rate (cli.md, \"runs\")" },
	{ "output", 'o', required_argument, 'o', "FILE", "Output",
	  JUDGE | PD_C_SHOW | PD_C_CONVERT | PD_C_TREND,
	  "write to FILE (by a temporary name, then renamed) instead of\n"
	  "stdout; - is stdout (xlsx needs a file)",
	  "write to FILE: a temporary file in the same folder, renamed when "
	  "complete; a file replaced keeps its mode and owner; a symbolic "
	  "link, a FIFO, a device or a folder is refused before any work (`-` "
	  "is standard output, an error for `xlsx`); a signal during the "
	  "write removes the temporary file" },
	{ "counts", 0, no_argument, OPT_COUNTS, NULL, "Output",
	  PD_C_SHOW | PD_C_CONVERT,
	  "folded: sample counts even where the weights are no fixed\n"
	  "multiple of them (CPU time, periods)",
	  NULL },
	{ "top", 0, required_argument, OPT_TOP, "N", "Output",
	  JUDGE & ~PD_C_PEEK, "rows per table in text output (default 20)",
	  NULL },
	{ "sort", 0, required_argument, OPT_SORT, "KEY", "Output",
	  JUDGE & ~PD_C_PEEK,
	  "text rows by impact (default), self, total or cum",
	  "the order of each table's rows in text output: `impact` (the "
	  "change as a share of the baseline, default), `self` or `total` "
	  "(the size of that change), `cum` (the function's total in the "
	  "candidate, as `pprof -cum`)" },
	{ "top", 0, required_argument, OPT_TOP, "N", "Output", PD_C_SHOW,
	  "rows in text output (default 30)", NULL },
	{ "top", 0, required_argument, OPT_TOP, "K", "Output", SERIES,
	  "function series (default 10, by impact)",
	  "function series (default 10, by impact; 0 for the total alone)" },
	{ "color", 0, required_argument, OPT_COLOR, "WHEN", "Output",
	  (JUDGE & ~PD_C_PEEK) | PD_C_TREND, "auto (default), always, never",
	  "`auto` (default: only on a terminal, never with `NO_COLOR` set), "
	  "`always`, `never`" },
	{ "colour", 0, required_argument, OPT_COLOR, "WHEN", "Output",
	  (JUDGE & ~PD_C_PEEK) | PD_C_TREND, NULL, NULL },
	{ "help", 'h', no_argument, 'h', NULL, "Output", ALL, "this help",
	  NULL },
};

static const char *const cmd_names[] = {
	"diff",	  "check", "show",    "convert", "compare", "ingest", "runs",
	"bundle", "trend", "culprit", "peek",	 "db",	    "site",   "alerts",
};

unsigned pd_opts_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(cmd_names); i++)
		if (!strcmp(cmd_names[i], name))
			return 1u << i;
	return 0;
}

const struct option *pd_opts_getopt(unsigned cmd)
{
	static struct option *made[PD_ARRAY_SIZE(cmd_names)];
	size_t bit = 0, i, n = 0;

	while (bit < PD_ARRAY_SIZE(cmd_names) && !(cmd & (1u << bit)))
		bit++;
	if (bit == PD_ARRAY_SIZE(cmd_names))
		bit = 0;
	if (!made[bit]) {
		struct option *o =
		    pd_xcalloc(PD_ARRAY_SIZE(table) + 1, sizeof(*o));

		for (i = 0; i < PD_ARRAY_SIZE(table); i++)
			if (table[i].cmds & (1u << bit)) {
				o[n].name = table[i].name;
				o[n].has_arg = table[i].has_arg;
				o[n].val = table[i].id;
				n++;
			}
		made[bit] = o;
	}
	return made[bit];
}

const char *pd_opts_short(unsigned cmd)
{
	static char made[PD_ARRAY_SIZE(cmd_names)][64];
	size_t bit = 0, i, n = 0;

	while (bit < PD_ARRAY_SIZE(cmd_names) && !(cmd & (1u << bit)))
		bit++;
	if (bit == PD_ARRAY_SIZE(cmd_names))
		bit = 0;
	if (!made[bit][0]) {
		char *s = made[bit];

		s[n++] = ':'; /* a missing value is ':', not '?' */
		for (i = 0; i < PD_ARRAY_SIZE(table) && n + 3 < 64; i++)
			if ((table[i].cmds & (1u << bit)) && table[i].letter &&
			    !memchr(s, table[i].letter, n)) {
				s[n++] = (char)table[i].letter;
				if (table[i].has_arg == required_argument)
					s[n++] = ':';
			}
		s[n] = '\0';
	}
	return made[bit];
}

/* The help text with the format list put in. */
static void help_text(struct pd_buf *b, const char *h)
{
	const char *at = strstr(h, "@FORMATS@");

	pd_buf_reset(b);
	if (!at) {
		pd_buf_adds(b, h);
		return;
	}
	pd_buf_add(b, h, (size_t)(at - h));
	pd_buf_adds(b, pd_format_list());
	pd_buf_adds(b, at + 9);
}

/* "-f, --format FMT" or "--share" */
static void flag_text(struct pd_buf *b, const struct pd_optdef *d)
{
	pd_buf_reset(b);
	if (d->letter)
		pd_buf_addf(b, "-%c, ", d->letter);
	pd_buf_addf(b, "--%s", d->name);
	if (d->arg)
		pd_buf_addf(b, " %s", d->arg);
}

/* Sections in the order of their first option. */
static size_t sections(const char **out, size_t max)
{
	size_t n = 0, i, k;

	for (i = 0; i < PD_ARRAY_SIZE(table); i++) {
		for (k = 0; k < n && strcmp(out[k], table[i].section); k++)
			;
		if (k == n && n < max)
			out[n++] = table[i].section;
	}
	return n;
}

/* Wraps text to width columns, lines joined as they come. */
static void print_wrapped(FILE *f, const char *text, int indent, int first)
{
	const char *s = text;
	int col = first;

	while (*s) {
		size_t w = strcspn(s, " \n");

		if (col > indent && col + 1 + (int)w > 79) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(s, 1, w, f);
		col += (int)w;
		s += w;
		while (*s == ' ' || *s == '\n')
			s++;
	}
	fputc('\n', f);
}

void pd_opts_help(FILE *f, unsigned cmd)
{
	const char *sec[16];
	size_t ns = sections(sec, 16), k, i;
	struct pd_buf flag = PD_BUF_INIT, h = PD_BUF_INIT;

	for (k = 0; k < ns; k++) {
		int any = 0;

		for (i = 0; i < PD_ARRAY_SIZE(table); i++) {
			const struct pd_optdef *d = &table[i];

			if (!(d->cmds & cmd) || !d->help ||
			    strcmp(d->section, sec[k]))
				continue;
			if (!any++)
				fprintf(f, "%s:\n", sec[k]);
			flag_text(&flag, d);
			help_text(&h, d->help);
			fprintf(f, "  %-22s", flag.buf);
			if (flag.len > 21) {
				fputc('\n', f);
				print_wrapped(f, h.buf, 24, 0);
			} else {
				print_wrapped(f, h.buf, 24, 24);
			}
		}
	}
	pd_buf_release(&flag);
	pd_buf_release(&h);
}

/* s for a Markdown table cell: '|' escaped, lines joined. */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

void pd_opts_markdown(FILE *f, unsigned cmd)
{
	struct pd_buf flag = PD_BUF_INIT, h = PD_BUF_INIT;
	size_t i;

	fputs("| option | meaning |\n|---|---|\n", f);
	for (i = 0; i < PD_ARRAY_SIZE(table); i++) {
		const struct pd_optdef *d = &table[i];

		if (!(d->cmds & cmd) || !d->help)
			continue;
		flag_text(&flag, d);
		help_text(&h, d->doc ? d->doc : d->help);
		fputs("| `", f);
		md_cell(f, flag.buf);
		fputs("` | ", f);
		md_cell(f, h.buf);
		fputs(" |\n", f);
	}
	pd_buf_release(&flag);
	pd_buf_release(&h);
}

/* roff text: a leading '.' or '\'' and backslashes made literal. */
static void roff(FILE *f, const char *s, int line_start)
{
	for (; *s; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		line_start = *s == '\n';
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

void pd_opts_man(FILE *f)
{
	static const char *const what[] = {
		"compare two profiles (the default command)",
		"good, bad or skip for git bisect run",
		"print one profile's functions",
		"write a profile as speedscope JSON or folded stacks",
		"compare two stored commits",
		"store bundles in the history",
		"list the stored runs",
		"create a bundle folder (bundle init)",
		"series and change points over the history",
		"the commits around the latest change point",
		"callers and callees of a function, both sides",
		"copy a history between SQLite and PostgreSQL (db copy)",
		"the history as a static site",
		"the stored alerts and their states (alerts set)",
	};
	struct pd_buf flag = PD_BUF_INIT, h = PD_BUF_INIT;
	size_t c, i;

	fputs(".\\\" Made by `perfdiff help --man` from src/cmd/options.c.\n"
	      ".TH PERFDIFF 1 \"\" \"perfdiff " PD_VERSION "\" \"User"
	      " Commands\"\n"
	      ".SH NAME\nperfdiff \\- find performance regressions between"
	      " two builds, function by function\n"
	      ".SH SYNOPSIS\n.B perfdiff\n.I BASELINE CANDIDATE\n"
	      "[options]\n.br\n.B perfdiff\n.I command\n[options] [args]\n"
	      ".SH DESCRIPTION\nperfdiff reads the profiles real profilers"
	      " write (perf, samply, PerfView, WPA, Instruments, pprof,"
	      " DHAT, ...), compares two builds per function, and says"
	      " whether each change is real or noise. The formats, the"
	      " statistics and the history are described in the"
	      " documentation that comes with perfdiff (docs/).\n"
	      ".SH EXIT STATUS\n0 no regression, 1 regression found, 2"
	      " error (check: 0 good, 1 bad, 125 skip, 128 error).\n",
	      f);
	for (c = 0; c < PD_ARRAY_SIZE(cmd_names); c++) {
		fputs(".SH \"PERFDIFF ", f);
		for (i = 0; cmd_names[c][i]; i++)
			fputc(cmd_names[c][i] - 32, f);
		fputs("\"\n", f);
		fputs(".B perfdiff ", f);
		roff(f, cmd_names[c], 0);
		fputs("\n\\- ", f);
		roff(f, what[c], 0);
		fputc('\n', f);
		for (i = 0; i < PD_ARRAY_SIZE(table); i++) {
			const struct pd_optdef *d = &table[i];

			if (!(d->cmds & (1u << c)) || !d->help)
				continue;
			flag_text(&flag, d);
			help_text(&h, d->doc ? d->doc : d->help);
			fputs(".TP\n.B ", f);
			roff(f, flag.buf, 0);
			fputc('\n', f);
			roff(f, h.buf, 1);
			fputc('\n', f);
		}
	}
	fputs(".SH ENVIRONMENT\n.TP\n.B PERFDIFF_DB\nthe history database"
	      " (default ./perfdiff.db)\n.TP\n.B PERFDIFF_SYMBOL_PATH\n"
	      "where symbols are looked for when \\-\\-symbols is not given\n"
	      ".TP\n.B NO_COLOR\nno colour in text output\n",
	      f);
	pd_buf_release(&flag);
	pd_buf_release(&h);
}

/* Every long option of a command, space-separated, "--" included. */
static void long_list(FILE *f, unsigned cmd)
{
	size_t i, k;
	int n = 0;

	for (i = 0; i < PD_ARRAY_SIZE(table); i++) {
		if (!(table[i].cmds & cmd) || !table[i].help)
			continue;
		for (k = 0; k < i; k++) /* one entry per name */
			if ((table[k].cmds & cmd) && table[k].help &&
			    !strcmp(table[k].name, table[i].name))
				break;
		if (k == i)
			fprintf(f, "%s--%s", n++ ? " " : "", table[i].name);
	}
}

int pd_opts_completion(FILE *f, const char *shell)
{
	size_t c;

	if (!strcmp(shell, "bash")) {
		fputs("# bash completion for perfdiff (perfdiff completion"
		      " bash)\n_perfdiff() {\n"
		      "  local cur=${COMP_WORDS[COMP_CWORD]} cmd=diff\n"
		      "  local cmds=\"",
		      f);
		for (c = 0; c < PD_ARRAY_SIZE(cmd_names); c++)
			fprintf(f, "%s ", cmd_names[c]);
		fputs("help version\"\n"
		      "  if [ \"$COMP_CWORD\" -gt 1 ]; then\n"
		      "    case \" $cmds \" in *\" ${COMP_WORDS[1]} \"*)"
		      " cmd=${COMP_WORDS[1]};; esac\n  fi\n"
		      "  local opts\n  case $cmd in\n",
		      f);
		for (c = 0; c < PD_ARRAY_SIZE(cmd_names); c++) {
			fprintf(f, "  %s) opts=\"", cmd_names[c]);
			long_list(f, 1u << c);
			fputs("\";;\n", f);
		}
		fputs("  *) opts=\"\";;\n  esac\n"
		      "  if [ \"$COMP_CWORD\" -eq 1 ] && [ \"${cur#-}\" = "
		      "\"$cur\" ]; then\n"
		      "    COMPREPLY=($(compgen -W \"$cmds\" -- \"$cur\"))\n"
		      "    compopt -o default 2>/dev/null\n"
		      "  elif [ \"${cur#--}\" != \"$cur\" ]; then\n"
		      "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
		      "  else\n    COMPREPLY=()\n"
		      "    compopt -o default 2>/dev/null\n  fi\n}\n"
		      "complete -F _perfdiff perfdiff\n",
		      f);
		return 0;
	}
	if (!strcmp(shell, "zsh")) {
		fputs("#compdef perfdiff\n# zsh completion for perfdiff"
		      " (perfdiff completion zsh)\n"
		      "autoload -U bashcompinit && bashcompinit\n",
		      f);
		return pd_opts_completion(f, "bash");
	}
	if (!strcmp(shell, "fish")) {
		fputs("# fish completion for perfdiff (perfdiff completion"
		      " fish)\n",
		      f);
		for (c = 0; c < PD_ARRAY_SIZE(cmd_names); c++)
			fprintf(f,
				"complete -c perfdiff -n __fish_use_subcommand"
				" -a %s\n",
				cmd_names[c]);
		for (c = 0; c < PD_ARRAY_SIZE(cmd_names); c++) {
			size_t i;

			for (i = 0; i < PD_ARRAY_SIZE(table); i++) {
				const struct pd_optdef *d = &table[i];
				struct pd_buf h = PD_BUF_INIT;
				size_t j;

				if (!(d->cmds & (1u << c)) || !d->help)
					continue;
				help_text(&h, d->help);
				for (j = 0; j < h.len; j++)
					if (h.buf[j] == '\n' ||
					    h.buf[j] == '\'')
						h.buf[j] = ' ';
				fprintf(f,
					"complete -c perfdiff -n"
					" '__fish_seen_subcommand_from %s'"
					" -l %s%s -d '%.60s'\n",
					cmd_names[c], d->name,
					d->arg ? " -r" : "", h.buf);
				pd_buf_release(&h);
			}
		}
		return 0;
	}
	return -1;
}
