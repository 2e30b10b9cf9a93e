/* The option table (cmd/options.h): every option, its kind and its place. */
#include <regex.h>
#include <stddef.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/parse.h"
#include "core/compat.h"
#include "import/bundle.h"
#include "import/formats.h"
#include "import/import.h"
#include "model/func.h"

#define RUN (PD_C_DIFF | PD_C_CHECK | PD_C_PEEK)
#define IN (RUN | PD_C_SHOW | PD_C_CONVERT)
#define JUDGE (RUN | PD_C_COMPARE)
#define HIST (PD_C_INGEST | PD_C_RUNS | PD_C_BUNDLE)
#define SERIES (PD_C_TREND | PD_C_CULPRIT)
#define ALL                                                                    \
	(HIST | JUDGE | SERIES | PD_C_SHOW | PD_C_CONVERT | PD_C_DB |          \
	 PD_C_SITE | PD_C_ALERTS)

/* A row's kind and where its value goes, in the table's field order. */
#define AT(field) offsetof(struct pd_args, field)
#define HELP PD_OPT_HELP, 0, PD_NUM_INT, 0, 0, NULL, 0, NULL
#define FLAG(f) PD_OPT_FLAG, AT(f), PD_NUM_INT, 0, 0, NULL, 0, NULL
#define BITS(f, b) PD_OPT_BITS, AT(f), PD_NUM_INT, 0, 0, NULL, b, NULL
#define TEXT(f, check) PD_OPT_TEXT, AT(f), PD_NUM_INT, 0, 0, NULL, 0, check
#define NUM(f, how, lo, hi) PD_OPT_NUMBER, AT(f), how, lo, hi, NULL, 0, NULL
#define CHOICE(f, how, list) PD_OPT_CHOICE, AT(f), how, 0, 0, list, 0, NULL
#define LIST(f) PD_OPT_LIST, AT(f), PD_NUM_INT, 0, 0, NULL, 0, NULL
/* -f: the formats a command writes, as PD_FMT bits */
#define FORMATS(set)                                                           \
	PD_OPT_CHOICE, AT(fmt), PD_NUM_INT, 0, 0, pd_outfmt_choices, set, NULL

/* Every output format by the name -f gives it; aliases after their name. */
const struct pd_choice pd_outfmt_choices[] = {
	{ "text", PD_FMT_TEXT, 0 },
	{ "md", PD_FMT_MD, 0 },
	{ "markdown", PD_FMT_MD, 1 },
	{ "json", PD_FMT_JSON, 0 },
	{ "speedscope", PD_FMT_SPEEDSCOPE, 0 },
	{ "folded", PD_FMT_FOLDED, 0 },
	/* as --from names the folded input too */
	{ "collapsed", PD_FMT_FOLDED, 1 },
	{ "html", PD_FMT_HTML, 0 },
	{ "xlsx", PD_FMT_XLSX, 0 },
	{ "tsv", PD_FMT_TSV, 0 },
	{ NULL, 0, 0 },
};

const char *pd_outfmt_name(enum pd_outfmt f)
{
	const struct pd_choice *c;

	for (c = pd_outfmt_choices; c->name; c++)
		if (c->value == (int)f && !c->alias)
			return c->name;
	return "?";
}

/* In the order messages list them ("--weight wants cpu or wall"). */
static const struct pd_choice weights[] = {
	{ "cpu", 2, 0 }, { "wall", 1, 0 }, { "both", 3, 0 }, { NULL, 0, 0 }
};
static const struct pd_choice time_units[] = {
	{ "samples", 0, 0 },  { "ns", 1, 0 },	      { "us", 1000, 0 },
	{ "ms", 1000000, 0 }, { "s", 1000000000, 0 }, { NULL, 0, 0 }
};
static const struct pd_choice decimals[] = { { ".", '.', 0 },
					     { ",", ',', 0 },
					     { NULL, 0, 0 } };
static const struct pd_choice systems[] = { { "include", PD_FUNCS_SYSTEM, 0 },
					    { "exclude", 0, 0 },
					    { NULL, 0, 0 } };
static const struct pd_choice sorts[] = {
	{ "impact", PD_SORT_IMPACT, 0 },
	{ "self", PD_SORT_SELF, 0 },
	{ "total", PD_SORT_TOTAL, 0 },
	{ "cum", PD_SORT_CUM, 0 },
	{ NULL, 0, 0 },
};
static const struct pd_choice colors[] = {
	{ "auto", 0, 0 }, { "always", 1, 0 }, { "never", 2, 0 }, { NULL, 0, 0 }
};

/* alerts --state: states joined by commas, or all */
static int check_states(const char *opt, const char **v, unsigned cmd)
{
	unsigned bits;

	(void)cmd;
	if (pd_alert_states_parse(*v, &bits) == 0)
		return 0;
	pd_error("error: %s %s: want new, acknowledged, expected, invalid,"
		 " fixed, backed-out or all, joined by commas",
		 opt, *v);
	return -1;
}

static int check_from(const char *opt, const char **v, unsigned cmd)
{
	(void)opt;
	(void)cmd;
	if (pd_format_find(*v))
		return 0;
	pd_error("error: unknown format '%s' (supported: %s)", *v,
		 pd_format_list());
	return -1;
}

static int check_regex(const char *opt, const char **v, unsigned cmd)
{
	regex_t re;

	(void)cmd;
	if (pd_parse_regex(opt, *v, &re))
		return -1;
	regfree(&re);
	return 0;
}

static int check_metric(const char *opt, const char **v, unsigned cmd)
{
	(void)cmd;
	if (pd_dhat_metric_ok(*v))
		return 0;
	pd_error("error: %s wants one of %s", opt, pd_dhat_metric_names());
	return -1;
}

static int check_url(const char *opt, const char **v, unsigned cmd)
{
	(void)opt;
	(void)cmd;
	return pd_commit_url_ok(*v) ? 0 : -1;
}

/*
 * The runbook's spellings of a cache state become its name; ingest and
 * bundle take nothing else, the readers check any other against the
 * history later.
 */
static int check_cache(const char *opt, const char **v, unsigned cmd)
{
	const char *state = pd_cache_state(*v, strlen(*v));

	if (state) {
		*v = state;
		return 0;
	}
	if (!(cmd & (PD_C_INGEST | PD_C_BUNDLE)))
		return 0;
	pd_error("error: %s %s: a cache state is warm, cold or unspecified",
		 opt, *v);
	return -1;
}

static const struct pd_optdef table[] = {
	/* Inputs */
	{ "from", 0, TEXT(io.from, check_from), "FORMAT", "Inputs", IN,
	  "force the format: @FORMATS@ (default: sniffed from the content)",
	  "skip sniffing: the format by name (@FORMATS@; also @ALIASES@)" },
	{ "event", 0, TEXT(io.event, NULL), "NAME", "Inputs", IN,
	  "perf.data, perf script: the event to use (default: the first);\n"
	  "Callgrind, Cachegrind: the event judged (default Ir);\n"
	  "ETW traces: cpu (default), virtualalloc, diskio, fileio or\n"
	  "hardfault",
	  "perf.data and perf script text: the event to use; default the "
	  "first event sampled (the others are named in a warning). "
	  "Callgrind and Cachegrind: the event judged (`Ir`, `Dr`, `D1mr`, "
	  "`Bcm`, ...; default `Ir`). ETW traces: `cpu`, the CPU samples "
	  "(default), `virtualalloc`, the bytes each stack committed with "
	  "VirtualAlloc, `diskio`, the service time of the disk reads and "
	  "writes each stack issued, `fileio`, the time of the file reads and "
	  "writes each stack asked for, or `hardfault`, the time each stack "
	  "waited for pages read in" },
	{ "process", 0, TEXT(io.process, NULL), "NAME", "Inputs", IN,
	  "keep samples whose process name contains NAME",
	  "keep samples whose process matches: perf `comm` (substring) or pid "
	  "(exact); speedscope/PerfView the `Process64 name (pid)` frame or "
	  "the profile name; WPA the Process column; Instruments the process "
	  "row; xctrace the process; folded the first frame. Nothing left "
	  "is an error; pprof, DHAT, .cpuprofile, perf stat, Callgrind and "
	  "Cachegrind name no processes: a warning" },
	{ "thread", 0, TEXT(io.thread, NULL), "NAME", "Inputs", IN,
	  "keep samples whose thread name contains NAME",
	  "keep samples whose thread matches: perf `comm` (substring) or tid "
	  "(exact); speedscope the profile name or `Thread (tid)` frame; "
	  "Instruments and xctrace the thread; folded the first frame. "
	  "Nothing left is an error; pprof, DHAT, .cpuprofile, perf stat, "
	  "Callgrind and Cachegrind name no threads: a warning" },
	{ "sample-weight", 0,
	  NUM(io.sample_weight, PD_NUM_DOUBLE, 1e-300, 1e300), "W", "Inputs",
	  IN, "weight of one sample (folded; default: derived)",
	  "the weight of one sample, to turn weights into sample counts "
	  "(folded); default: the greatest common divisor of the file's "
	  "weights when chance cannot explain it (at least 1 000, or shared "
	  "by 16 stacks or more), else 1" },
	{ "folded-unit", 0, CHOICE(io.folded_ns, PD_NUM_INT, time_units),
	  "samples|ns|us|ms|s", "Inputs", IN,
	  "what a folded file's numbers are (default samples)",
	  "what a folded file's numbers count: samples (the default), or "
	  "time in ns, us, ms or s, as off-CPU tools write it (bcc's "
	  "offcputime -f: microseconds waited); time is shown as time, and "
	  "one sample is --sample-weight of the file's unit, else 1 ms" },
	{ "interval", 0, NUM(io.interval_ms, PD_NUM_DOUBLE, 1e-9, 1e9), "MS",
	  "Inputs", IN,
	  "sampling interval of evented data and Instruments (default 1 ms)",
	  "sampling interval in milliseconds: of evented speedscope data "
	  "(default 1 ms, PerfView's and dotnet-trace's rate) and of an "
	  "Instruments deep copy (default 1 ms, Time Profiler's)" },
	{ "weight", 0, CHOICE(io.weight_mode, PD_NUM_INT, weights),
	  "cpu|wall|both", "Inputs", IN,
	  "samply/Firefox: CPU time (default when every sampled thread\n"
	  "has it), wall clock, or both: CPU and the waiting beside it",
	  "samply/Firefox: CPU time from `threadCPUDelta`, wall clock "
	  "(samples × interval, off-CPU included), or `both`: CPU time, and "
	  "each stack's wall time beyond it as its function's waiting, a "
	  "frame `name (waiting)`. Default: CPU time when "
	  "every thread with more than one sample has CPU deltas, else wall "
	  "clock for the whole profile (said in a warning); `cpu` or `both` "
	  "given explicitly is an error when a thread has none. The rule is "
	  "printed as the profile's `counts:` line, and a diff of two "
	  "profiles weighed by different rules warns" },
	{ "symbols", 0, LIST(symbols), "PATH", "Inputs", IN | PD_C_INGEST,
	  "folders or a symbol path (DIR;srv*DIR*URL) with the profiled\n"
	  "build's binaries and symbols (repeatable; default\n"
	  "$PERFDIFF_SYMBOL_PATH)",
	  "where the profiled build's binaries and symbols are, to name "
	  "frames that only have addresses: a folder (dist/ as built, "
	  "`.app`/`.dSYM` bundles, a SymStore tree, a `.build-id` tree) or a "
	  "symbol path in Windows syntax (`DIR;srv*DIR*URL;cache*DIR`, local "
	  "folders only). Repeatable; files are used only when their build "
	  "ids equal the profile's. Default: `$PERFDIFF_SYMBOL_PATH`. A "
	  "bundle's own `dist/` is looked in after these. See symbols.md" },
	{ "symbolizer", 0, TEXT(io.symbolizer, NULL), "PATH", "Inputs",
	  IN | PD_C_INGEST, "llvm-symbolizer (or atos) to use",
	  "the symbolizer for PE/PDB and Mach-O files: an `llvm-symbolizer` "
	  "or macOS `atos`; default `llvm-symbolizer` on PATH, in Homebrew's "
	  "llvm, or `llvm-symbolizer-N`, then `atos` on macOS" },
	{ "decimal", 0, CHOICE(io.decimal, PD_NUM_CHAR, decimals), ".|,",
	  "Inputs", IN,
	  "WPA CSV: the decimal separator (default: decided per file)",
	  "WPA CSV: the decimal separator, when detection from the numbers "
	  "cannot tell" },
	{ "sample-type", 0, TEXT(io.sample_type, NULL), "T", "Inputs", IN,
	  "pprof: the value to read, by name or index",
	  "pprof: which value to read (`alloc_space`, `1`, …), as `pprof "
	  "-sample_index`; default the profile's default sample type, else "
	  "the last" },
	{ "metric", 0, TEXT(io.metric, check_metric), "M", "Inputs", IN,
	  "DHAT: bytes (default), blocks, peak-bytes, ...; WPA memory\n"
	  "tables: bytes or blocks (allocations); perf read/write calls:\n"
	  "bytes (default: the calls)",
	  "DHAT: the measure: `bytes` (default), `blocks`, `lifetimes`, "
	  "`max-bytes`, `max-blocks`, `peak-bytes`, `peak-blocks`, "
	  "`end-bytes`, `end-blocks`, `reads`, `writes` (or the raw keys "
	  "`tb`, `gb`, …); WPA memory tables: `bytes` (default) or `blocks` "
	  "(allocations); perf's read and write system-call tracepoints: "
	  "`bytes` (default: the calls; formats.md)" },
	{ "alloc-frames", 0, TEXT(io.alloc_frames, check_regex), "RE", "Inputs",
	  IN,
	  "memory profiles (DHAT, WPA, Instruments): the allocator's\n"
	  "frames, cut from stacks (POSIX extended)",
	  "memory profiles (DHAT, WPA memory tables, Instruments "
	  "Allocations): the allocator's frames, cut from the leaf end so "
	  "that self lands in the program (POSIX extended regex; DHAT matches "
	  "`FUNCTION (LOCATION)`, WPA `module!function`; defaults in "
	  "formats.md)" },
	{ "perf", 0, TEXT(io.perf, NULL), "PATH", "Inputs", IN,
	  "perf, for the perf.data only perf reads (default: on PATH)",
	  "the `perf` that reads the `perf.data` recordings perfdiff does not "
	  "(DWARF or LBR call graphs, compressed, piped: `perf script -i`, "
	  "formats.md); default `perf` on PATH" },
	{ "focus", 0, TEXT(io.focus, check_regex), "RE", "Inputs", IN,
	  "keep only samples with a frame whose name matches RE",
	  "keep only the samples with a frame whose name matches (POSIX "
	  "extended regex), as `pprof -focus`; a note says how much of the "
	  "weight was kept" },
	{ "ignore", 0, TEXT(io.ignore, check_regex), "RE", "Inputs", IN,
	  "drop samples with a frame matching RE",
	  "drop the samples with a frame whose name matches, as `pprof "
	  "-ignore`" },
	{ "hide", 0, TEXT(io.hide, check_regex), "RE", "Inputs", IN,
	  "take frames matching RE out of the stacks",
	  "take the frames whose name matches out of the stacks, their time "
	  "going to their callers, as `pprof -hide`" },
	/* Sides */
	{ "baseline", 'b', LIST(base), "FILE", "Runs", RUN,
	  "a baseline run (repeatable: several runs per side)", NULL },
	{ "candidate", 'c', LIST(cand), "FILE", "Runs", RUN,
	  "a candidate run (repeatable)", NULL },
	{ "paired", 0, FLAG(set.paired), NULL, "Runs", RUN,
	  "run i of -b and of -c were recorded one after the other\n"
	  "(A B A B): a paired test",
	  "run i of `-b` and run i of `-c` were recorded one after the other "
	  "(A B A B, `scripts/record-ab.sh`): the paired t-test "
	  "(statistics.md, \"Several runs per side\")" },
	{ "function", 0, TEXT(function, NULL), "REGEX", "Runs", PD_C_CHECK,
	  "decide on the functions whose name or \"name [module]\"\n"
	  "matches (self or total); default: the whole verdict",
	  "decide on the functions whose name or `name [module]` matches: bad "
	  "when "
	  "one regressed in self or total time (or appeared), skip when one "
	  "is inconclusive, skip when none matches" },
	/* Matching */
	/* compare: names are stored normalised, system time set apart */
	{ "no-normalize", 0, BITS(flags, PD_FUNCS_NO_NORMALIZE), NULL,
	  "Matching", RUN, "match raw names (keep +0x.., .constprop.N, ...)",
	  "match raw names exactly (module paths still compare by basename)" },
	{ "no-module", 0, BITS(flags, PD_FUNCS_NO_MODULE), NULL, "Matching",
	  JUDGE, "match functions by name alone, ignoring modules", NULL },
	{ "system", 0, CHOICE(system, PD_NUM_INT, systems), "include",
	  "Matching", RUN,
	  "judge kernel, interrupt and driver frames, and unnamed frames\n"
	  "of shared libraries, like the program's (default: reported\n"
	  "apart, the kernel's time outside the program's totals)",
	  "kernel, interrupt and driver frames, and unnamed frames of shared "
	  "libraries (`libc.so.6+0x9d4c0`): set apart (default: reported in "
	  "their own section and never the verdict; the kernel's time is also "
	  "kept outside the program's totals) or judged like the program's "
	  "(statistics.md, \"System frames\"); `exclude` is the default" },
	/* Statistics */
	{ "threshold", 0, NUM(set.threshold_pct, PD_NUM_DOUBLE, 0, 1000), "PCT",
	  "Statistics", JUDGE, "smallest ratio change that counts (default 5)",
	  "smallest change of the ratio that can count as regressed/improved "
	  "(default 5)" },
	{ "min-impact", 0, NUM(set.min_impact_pct, PD_NUM_DOUBLE, 0, 100),
	  "PCT", "Statistics", JUDGE,
	  "smallest change as % of the baseline total (default 0.5)",
	  "smallest change as a percentage of the baseline total (default "
	  "0.5)" },
	{ "alpha", 0, NUM(set.alpha, PD_NUM_DOUBLE, 1e-12, 0.5), "A",
	  "Statistics", JUDGE, "false discovery rate (default 0.05)",
	  "false discovery rate for Benjamini–Hochberg (default 0.05)" },
	{ "dispersion", 0, NUM(set.dispersion, PD_NUM_DOUBLE, 0.01, 1000),
	  "PHI", "Statistics", JUDGE,
	  "sampling overdispersion floor (default 1.5)",
	  "sampling overdispersion floor φ₀ (default 1.5); φ = max(φ₀, λ) "
	  "when λ can be estimated" },
	{ "run-cv", 0, NUM(set.run_cv, PD_NUM_PERCENT, 0, 100), "PCT",
	  "Statistics", JUDGE,
	  "run-to-run variation assumed without history (default 2)",
	  "run-to-run variation (coefficient of variation, %) a function is "
	  "assumed to have when no history says (default 2); statistics.md, "
	  "\"the noise model\"" },
	{ "treat", 0, FLAG(set.treat), NULL, "Statistics", JUDGE,
	  "test changes against the threshold, not against none\n"
	  "(fewer, surer verdicts)",
	  "test each change against the threshold instead of against no "
	  "change (TREAT), so that Benjamini–Hochberg bounds the share of "
	  "false \"beyond the threshold\" verdicts; surer verdicts, fewer "
	  "of them (statistics.md, \"The test\")" },
	{ "share", 0, FLAG(set.share), NULL, "Statistics", JUDGE,
	  "compare shares of the total, not absolute weights",
	  "compare shares of each side's total instead of absolute weights" },
	/* History */
	{ "db", 0, TEXT(db, NULL), "DB", "History",
	  PD_C_CHECK | PD_C_COMPARE | PD_C_INGEST | PD_C_RUNS | SERIES |
	      PD_C_SITE | PD_C_ALERTS,
	  "SQLite file or postgresql:// URL (default $PERFDIFF_DB, else"
	  " ./perfdiff.db)",
	  "the history: a SQLite file, or a PostgreSQL server as"
	  " postgresql://[user@]host[:port]/db[?sslmode=...] (password from"
	  " ~/.pgpass or PGPASSWORD, never the command line); default"
	  " $PERFDIFF_DB, else ./perfdiff.db" },
	{ "scenario", 0, TEXT(scenario, NULL), "S", "History",
	  PD_C_CHECK | PD_C_COMPARE | SERIES,
	  "the scenario (compare, trend, culprit: required)", NULL },
	{ "scenario", 0, TEXT(scenario, NULL), "S", "History",
	  PD_C_INGEST | PD_C_RUNS,
	  "the scenario (ingest: when the bundle does not say; runs: only\n"
	  "its runs)",
	  NULL },
	{ "scenario", 0, TEXT(scenario, NULL), "NAME", "History", PD_C_BUNDLE,
	  "the scenario the bundle records (required)", NULL },
	{ "scenario", 0, TEXT(scenario, NULL), "S", "History", PD_C_ALERTS,
	  "only the scenario's alerts", NULL },
	{ "cache", 0, TEXT(cache, check_cache), "C", "History",
	  RUN | PD_C_COMPARE | SERIES | HIST,
	  "warm, cold or unspecified (when several are stored or in the\n"
	  "bundles; for ingest, when the bundle does not say, else\n"
	  "unspecified)",
	  NULL },
	{ "tool", 0, TEXT(tool, NULL), "T", "History",
	  RUN | PD_C_COMPARE | SERIES,
	  "the profiler, when several are stored or in the bundles", NULL },
	{ "sha", 0, TEXT(sha, NULL), "REV", "History", HIST,
	  "the commit (ingest: when the bundle does not say; runs: only\n"
	  "its runs; bundle: default HEAD)",
	  NULL },
	{ "repo", 0, TEXT(repo, NULL), "DIR", "History",
	  PD_C_INGEST | PD_C_BUNDLE | SERIES | PD_C_SITE | PD_C_COMPARE |
	      PD_C_CHECK,
	  "git repository: resolves shas to full ids and commit dates,\n"
	  "and revisions (HEAD~1, a branch, A...B) for compare, check and\n"
	  "--alert-after; trend, culprit and site order commits as git does",
	  "the git repository: ingest and bundle resolve each sha to its full "
	  "id and commit date (default: the repository holding the bundle, "
	  "else the current folder's); compare, check (`db:REV`) and "
	  "`--alert-after` take any revision git does (`HEAD~1`, a branch, a "
	  "tag, a short sha, `A...B` for the merge base of A and B; without "
	  "it a revision is a stored sha prefix); trend and culprit order "
	  "commits as `git rev-list --topo-order HEAD` does (during a git "
	  "bisect, the branch the bisect started from rather than HEAD), "
	  "leaving out stored commits git does not know, with a note; so "
	  "do site's trend pages" },
	{ "base-of", 0, TEXT(base_of, NULL), "REF", "History", PD_C_COMPARE,
	  "one operand, CAND_REV; the baseline is its merge base with REF,\n"
	  "or that commit's nearest stored first-parent ancestor (--repo)",
	  "compare takes one operand, CAND_REV, and the baseline is the "
	  "commit where it left REF: their merge base (`git merge-base`), or, "
	  "when that commit has no stored runs of the scenario, cache state "
	  "and tool, its nearest first-parent ancestor that has, at most 1000 "
	  "commits back; the baseline's provenance in the report says which "
	  "commit and why. Needs `--repo`" },
	{ "dataset", 0, LIST(datasets), "PATH", "History", PD_C_BUNDLE,
	  "an input of the run, recorded with its SHA-256\n"
	  "(repeatable)",
	  NULL },
	{ "cflags-from", 0, TEXT(cflags_from, NULL), "compile_commands.json",
	  "History", PD_C_BUNDLE,
	  "the compiler flags, from a compilation database", NULL },
	{ "build-cmd", 0, TEXT(build_cmd, NULL), "TEXT", "History", PD_C_BUNDLE,
	  "the command that built the program", NULL },
	{ "rekey", 0, FLAG(rekey), NULL, "History", PD_C_INGEST,
	  "runs stored from this bundle folder (or a gone one) under\n"
	  "another sha or scenario move to the ones it gives now",
	  "runs whose profiles were stored from this bundle folder (or from "
	  "one that is no longer there) under another sha or scenario take "
	  "the ones it gives now; without it such a bundle is refused "
	  "(history.md, \"Ingest\")" },
	{ "verbose", 'v', FLAG(verbose), NULL, "History",
	  PD_C_INGEST | PD_C_RUNS,
	  "ingest: name every bundle already stored; runs: where each\n"
	  "run was read from and its build_meta.json",
	  NULL },
	/* Trend */
	{ "last", 0, NUM(q.last, PD_NUM_SIZE, 2, 1e9), "N", "Trend",
	  SERIES | PD_C_SITE, "the last N commits", NULL },
	{ "pages", 0, NUM(pages, PD_NUM_SIZE, 0, 1e9), "N", "Site", PD_C_SITE,
	  "comparison pages for the last N commits of each series\n"
	  "and every alert's (default 30; 0 every commit)",
	  NULL },
	{ "rebuild", 0, FLAG(rebuild), NULL, "Site", PD_C_SITE,
	  "make every comparison page again", NULL },
	{ "since", 0, TEXT(q.since, NULL), "DATE", "Trend", SERIES,
	  "commits dated DATE (ISO 8601) or later",
	  "commits dated DATE (ISO 8601) or later" },
	{ "function", 0, TEXT(function, NULL), "REGEX", "Trend", SERIES,
	  "only functions whose name or \"name [module]\" matches\n"
	  "(and no counters)",
	  "only functions whose name or `name [module]` matches (POSIX "
	  "extended); no "
	  "counters" },
	{ "p", 0, NUM(pmax, PD_NUM_DOUBLE, 1e-4, 0.5), "P", "Trend", SERIES,
	  "significance of a change point (default 0.001)", NULL },
	{ "threshold", 0, NUM(q.threshold_pct, PD_NUM_DOUBLE, 0, 1000), "PCT",
	  "Trend", SERIES, "smallest change when none is learned (default 5)",
	  NULL },
	{ "alert-after", 0, TEXT(alert_after, NULL), "REV", "Trend", SERIES,
	  "exit 1 only for alerts after commit REV (culprit: the latest\n"
	  "alert after it)",
	  NULL },
	{ "state", 0, TEXT(state, NULL), "FILE", "Trend", PD_C_TREND,
	  "exit 1 only for alerts not listed in FILE, then add them",
	  "exit 1 only for alerts whose first bad sha is not in FILE, then "
	  "add them (the nightly job's memory)" },
	{ "record", 0, FLAG(record), NULL, "Trend", PD_C_TREND,
	  "store the alerts in the history, exit 1 only for new ones",
	  "store the change points in the history's alerts (the database is "
	  "opened for writing), then exit 1 only when a regression no series "
	  "of the scenario had stored at its commit appeared, or one whose "
	  "change nobody triaged yet; the others keep the state `perfdiff "
	  "alerts set` gave them (the nightly job's memory)" },
	{ "improvements", 0, FLAG(improvements), NULL, "Trend", PD_C_CULPRIT,
	  "also changes for the better", NULL },
	/* Alerts */
	{ "state", 0, TEXT(state, check_states), "LIST", "Alerts", PD_C_ALERTS,
	  "only alerts in these states (new,acknowledged,...,all;\n"
	  "default all but invalid)",
	  "only alerts in these states, joined by commas: `new`, "
	  "`acknowledged`, `expected`, `invalid`, `fixed`, `backed-out`, or "
	  "`all` (default: all but `invalid`)" },
	{ "since", 0, TEXT(q.since, NULL), "DATE", "Alerts", PD_C_ALERTS,
	  "only alerts first seen on DATE (ISO 8601) or later", NULL },
	{ "note", 0, TEXT(note, NULL), "TEXT", "Alerts", PD_C_ALERTS,
	  "set: why, kept with the state", NULL },
	{ "who", 0, TEXT(who, NULL), "NAME", "Alerts", PD_C_ALERTS,
	  "set: who triaged it (default $USER)", NULL },
	{ "by", 0, NUM(alert_by, PD_NUM_SIZE, 1, 1e15), "ID", "Alerts",
	  PD_C_ALERTS,
	  "set fixed or backed-out: the improvement alert that undid it",
	  NULL },
	{ "commit-url", 0, TEXT(commit_url, check_url), "URL", "Trend",
	  PD_C_TREND | PD_C_SITE,
	  "link commits in md and html to URL, {sha} replaced\n"
	  "(https://host/org/repo/commit/{sha})",
	  "link every commit in Markdown and HTML to URL, an http(s) address "
	  "with `{sha}` where the full sha goes "
	  "(`https://github.com/org/repo/commit/{sha}`)" },
	/* Output */
	{ "format", 'f',
	  FORMATS(PD_FMT(PD_FMT_TEXT) | PD_FMT(PD_FMT_MD) |
		  PD_FMT(PD_FMT_JSON) | PD_FMT(PD_FMT_HTML) |
		  PD_FMT(PD_FMT_XLSX) | PD_FMT(PD_FMT_FOLDED)),
	  "FMT", "Output", JUDGE & ~PD_C_PEEK, "@OUTFORMATS@", NULL },
	{ "format", 'f', FORMATS(PD_FMT(PD_FMT_TEXT) | PD_FMT(PD_FMT_JSON)),
	  "FMT", "Output", PD_C_PEEK, "@OUTFORMATS@", NULL },
	{ "format", 'f',
	  FORMATS(PD_FMT(PD_FMT_TEXT) | PD_FMT(PD_FMT_JSON) |
		  PD_FMT(PD_FMT_FOLDED)),
	  "FMT", "Output", PD_C_SHOW, "@OUTFORMATS@", NULL },
	{ "format", 'f',
	  FORMATS(PD_FMT(PD_FMT_SPEEDSCOPE) | PD_FMT(PD_FMT_FOLDED)), "FMT",
	  "Output", PD_C_CONVERT, "@OUTFORMATS@", NULL },
	{ "format", 'f',
	  FORMATS(PD_FMT(PD_FMT_TEXT) | PD_FMT(PD_FMT_MD) |
		  PD_FMT(PD_FMT_JSON) | PD_FMT(PD_FMT_HTML) |
		  PD_FMT(PD_FMT_XLSX)),
	  "FMT", "Output", PD_C_TREND, "@OUTFORMATS@", NULL },
	{ "format", 'f',
	  FORMATS(PD_FMT(PD_FMT_TEXT) | PD_FMT(PD_FMT_MD) |
		  PD_FMT(PD_FMT_JSON)),
	  "FMT", "Output", PD_C_ALERTS, "@OUTFORMATS@", NULL },
	{ "format", 'f',
	  FORMATS(PD_FMT(PD_FMT_TEXT) | PD_FMT(PD_FMT_JSON) |
		  PD_FMT(PD_FMT_TSV)),
	  "FMT", "Output", PD_C_RUNS, "@OUTFORMATS@",
	  "text (default); json or tsv for scripts: one run a row with its "
	  "key, unit, samples, total and sample rate (cli.md, \"runs\")" },
	{ "output", 'o', TEXT(output, NULL), "FILE", "Output",
	  JUDGE | PD_C_SHOW | PD_C_CONVERT | PD_C_TREND,
	  "write to FILE (by a temporary name, then renamed) instead of\n"
	  "stdout; - is stdout (xlsx needs a file)",
	  "write to FILE: a temporary file in the same folder, renamed when "
	  "complete; a file replaced keeps its mode and owner; a symbolic "
	  "link, a FIFO, a device or a folder is refused before any work (`-` "
	  "is standard output, an error for `xlsx`); a signal during the "
	  "write removes the temporary file" },
	{ "counts", 0, FLAG(counts), NULL, "Output", PD_C_SHOW | PD_C_CONVERT,
	  "folded: sample counts even where the weights are no fixed\n"
	  "multiple of them (CPU time, periods)",
	  NULL },
	{ "top", 0, NUM(ro.top, PD_NUM_INT, 1, 1000000), "N", "Output",
	  JUDGE & ~PD_C_PEEK, "rows per table in text output (default 20)",
	  NULL },
	{ "sort", 0, CHOICE(sort, PD_NUM_INT, sorts), "KEY", "Output",
	  JUDGE & ~PD_C_PEEK,
	  "text rows by impact (default), self, total or cum",
	  "the order of each table's rows in text output: `impact` (the "
	  "change as a share of the baseline, default), `self` or `total` "
	  "(the size of that change), `cum` (the function's total in the "
	  "candidate, as `pprof -cum`)" },
	{ "top", 0, NUM(show_top, PD_NUM_INT, 1, 1e9), "N", "Output", PD_C_SHOW,
	  "rows in text output (default 30)", NULL },
	{ "top", 0, NUM(q.top, PD_NUM_SIZE, 0, 1000), "K", "Output", SERIES,
	  "function series (default 10, by impact)",
	  "function series (default 10, by impact; 0 for the total alone)" },
	{ "color", 0, CHOICE(color, PD_NUM_INT, colors), "WHEN", "Output",
	  (JUDGE & ~PD_C_PEEK) | PD_C_TREND, "auto (default), always, never",
	  "`auto` (default: only on a terminal, never with `NO_COLOR` set), "
	  "`always`, `never`" },
	{ "colour", 0, CHOICE(color, PD_NUM_INT, colors), "WHEN", "Output",
	  (JUDGE & ~PD_C_PEEK) | PD_C_TREND, NULL, NULL },
	{ "help", 'h', HELP, NULL, "Output", ALL, "this help", NULL },
	/*
	 * The commands without options take -h too, which their usage line
	 * is all the help of; help's own options make the docs (and the
	 * option walk of t0003): none is shown.
	 */
	{ "help", 'h', HELP, NULL, "Output",
	  PD_C_HELP | PD_C_VERSION | PD_C_COMPLETION, NULL, NULL },
	{ "man", 0, FLAG(man), NULL, "Output", PD_C_HELP, NULL, NULL },
	{ "markdown", 0, TEXT(markdown, NULL), "COMMAND", "Output", PD_C_HELP,
	  NULL, NULL },
	{ "options-table", 0, FLAG(options_table), NULL, "Output", PD_C_HELP,
	  NULL, NULL },
	{ "synopsis", 0, FLAG(synopsis), NULL, "Output", PD_C_HELP, NULL,
	  NULL },
};

const struct pd_optdef *pd_opts_table(size_t *n)
{
	*n = PD_ARRAY_SIZE(table);
	return table;
}

/*
 * The options a command cannot go without (each command says so when
 * one is missing), shown in its usage lines.
 */
static const struct {
	const char *name;
	unsigned cmds;
} needed[] = {
	{ "scenario", PD_C_COMPARE | SERIES | PD_C_BUNDLE },
	{ "cache", PD_C_BUNDLE },
};

int pd_opts_needed(const struct pd_optdef *d, unsigned cmd)
{
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(needed); i++)
		if ((needed[i].cmds & cmd) && !strcmp(needed[i].name, d->name))
			return (d->cmds & cmd) != 0;
	return 0;
}

unsigned pd_opts_cmd(const char *name)
{
	const struct pd_cmd *c = pd_cmd_find(name);

	return c && c->opts ? c->bit : 0;
}
