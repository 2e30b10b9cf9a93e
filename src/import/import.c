/*
 * Format table and content sniffing (docs/formats.md, the "recognised
 * by" column): compressed and encoded input is already undone by
 * pd_input; JSON shapes are told apart by their keys, text by its first
 * meaningful lines.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/limits.h"
#include "core/proc.h"
#include "import/etl/etl.h"
#include "import/formats.h"
#include "import/import.h"
#include "import/json.h"
#include "import/perf/perfdata.h"

static const struct pd_format formats[] = {
	{ "dhat", "DHAT heap profile (valgrind --tool=dhat, dhat-rs)",
	  pd_dhat_sniff, pd_dhat_import },
	{ "speedscope", "speedscope JSON (PerfView, dotnet-trace, py-spy, ...)",
	  pd_speedscope_sniff, pd_speedscope_import },
	{ "firefox", "Firefox Profiler / samply (processed and Gecko)",
	  pd_firefox_sniff, pd_firefox_import },
	{ "cpuprofile", "Chrome / Node .cpuprofile (DevTools and old V8)",
	  pd_cpuprofile_sniff, pd_cpuprofile_import },
	{ "xctrace", "Instruments trace table exported by xctrace (XML)",
	  pd_xctrace_sniff, pd_xctrace_import },
	{ "callgrind", "Callgrind cost file (valgrind --tool=callgrind)",
	  pd_callgrind_sniff, pd_callgrind_import },
	{ "cachegrind", "Cachegrind cost file (valgrind --tool=cachegrind)",
	  pd_cachegrind_sniff, pd_cachegrind_import },
	/* before WPA: an Allocations header has a Count column */
	{ "instruments", "Instruments deep copy (Time Profiler, Allocations)",
	  pd_instruments_sniff, pd_instruments_import },
	{ "wpa", "Windows Performance Analyzer CSV export", pd_wpa_sniff,
	  pd_wpa_import },
	{ "perf-stat", "Linux perf stat counters (table, -x, CSV, -j JSON)",
	  pd_perfstat_sniff, pd_perfstat_import },
	{ "perf-script", "Linux perf script text", pd_perf_sniff,
	  pd_perf_import },
	{ "folded", "folded stacks (stackcollapse, inferno)", pd_folded_sniff,
	  pd_folded_import },
	/* binary: sniffed apart from the text formats, in sniff() */
	{ "pprof", "pprof profile.proto (Go, gperftools; gzipped or not)", NULL,
	  pd_pprof_import },
	{ "etl", "Windows ETW trace (.etl, PerfView's .etl.zip)", NULL,
	  pd_etl_import },
};

unsigned pd_format_traits(const char *name)
{
	static const struct {
		const char *name;
		unsigned traits;
	} known[] = {
		{ "dhat", PD_FORMAT_EXACT },
		{ "callgrind", PD_FORMAT_EXACT },
		{ "cachegrind", PD_FORMAT_EXACT | PD_FORMAT_SELF_ONLY },
	};
	size_t i;

	for (i = 0; name && i < PD_ARRAY_SIZE(known); i++)
		if (!strcmp(name, known[i].name))
			return known[i].traits;
	return 0;
}

const char *pd_format_name(size_t i)
{
	return i < PD_ARRAY_SIZE(formats) ? formats[i].name : NULL;
}

/* Other names --from takes, each for a format of the table above. */
static const struct {
	const char *alias, *name;
} aliases[] = {
	{ "samply", "firefox" },
	{ "gecko", "firefox" },
	{ "perf", "perf-script" },
	{ "perf_script", "perf-script" },
	{ "csv", "wpa" },
	{ "wpa-csv", "wpa" },
	{ "collapsed", "folded" },
	{ "stat", "perf-stat" },
	{ "perf-stat-csv", "perf-stat" },
	{ "proto", "pprof" },
	{ "pb", "pprof" },
	{ "etw", "etl" },
	{ "etl.zip", "etl" },
};

const char *pd_format_alias(size_t i)
{
	return i < PD_ARRAY_SIZE(aliases) ? aliases[i].alias : NULL;
}

const struct pd_format *pd_format_find(const char *name)
{
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(formats); i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	for (i = 0; i < PD_ARRAY_SIZE(aliases); i++)
		if (!strcmp(aliases[i].alias, name))
			return pd_format_find(aliases[i].name);
	return NULL;
}

static const char *skip_ws(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
		s++;
	return s;
}

static int has(const char *head, size_t len, const char *needle)
{
	return pd_filter_match(needle, head, len);
}

/* Names JSON shapes that later versions read, for a helpful message. */
static const char *json_shape(const char *head, size_t len)
{
	if (has(head, len, "\"found_modules\"") ||
	    has(head, len, "\"known_addresses\""))
		return "symbol data (a symbolication reply or sidecar), not a"
		       " profile";
	if (has(head, len, "\"traceEvents\""))
		return "a Chrome trace-event file";
	return NULL;
}

/*
 * A JSON document whose telling keys are not in its head (a DevTools
 * recording holds megabytes of markers before "profile"): the keys of the
 * whole document decide, whatever their order. Standard input, a FIFO or
 * a pipe cannot be read twice; there --from names the format.
 */
static const struct pd_format *sniff_json_keys(const char *path)
{
	static const char *const json_formats[] = { "dhat", "speedscope",
						    "firefox", "cpuprofile" };
	struct pd_buf keys = PD_BUF_INIT;
	struct pd_err ignored = PD_ERR_INIT;
	const struct pd_format *fmt = NULL;
	size_t i;

	/* a syntax error is the importer's to report, with its place */
	(void)!pd_json_keys(path, &keys, &ignored);
	for (i = 0; i < PD_ARRAY_SIZE(json_formats) && !fmt && keys.len; i++) {
		const struct pd_format *f = pd_format_find(json_formats[i]);

		if (f->sniff(keys.buf, keys.len))
			fmt = f;
	}
	pd_buf_release(&keys);
	return fmt;
}

/*
 * Binary files users hand us that are no format perfdiff reads, by their
 * magic, so that they are named rather than taken for a broken pprof
 * (docs/formats.md, "Sniffing").
 */
static const char *binary_kind(const char *h, size_t n)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} kinds[] = {
		{ "PK\x03\x04", 4,
		  "a zip archive with no .etl trace in its first 64 KiB"
		  " (--from etl reads the first .etl member of a zip)" },
		{ "PERFFILE", 8,
		  "a perf.data of format version 1; turn it into text with"
		  " perf script" },
		{ "QPERFSTREAM", 11,
		  "a hotspot perfparser stream; give perfdiff the perf.data"
		  " it was made from" },
		{ "MOJ", 3,
		  "an austin MOJO file; turn it into collapsed stacks with"
		  " mojo2austin" },
		{ "\x7f"
		  "ELF",
		  4, "an ELF binary (a program or library, not a profile)" },
	};
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(kinds); i++)
		if (n >= kinds[i].len &&
		    !memcmp(h, kinds[i].magic, kinds[i].len))
			return kinds[i].what;
	return NULL;
}

/* Picks the format of an opened input; NULL with err set when none fits. */
static const struct pd_format *
sniff(struct pd_input *in, const struct pd_import_opts *o, struct pd_err *err)
{
	const char *h = in->head, *end = in->head + in->head_len;
	const struct pd_format *fmt = NULL;
	size_t i;

	if (o->from) {
		fmt = pd_format_find(o->from);
		if (!fmt)
			pd_err_set(err, PD_EUSAGE,
				   "unknown format '%s' (supported: %s)",
				   o->from, pd_format_list());
		return fmt;
	}
	if (in->perfdata) {
		/* pd_import reads it; a bundle's sniff skips it, as before */
		pd_err_set(err, PD_EFORMAT,
			   "%s: a raw perf.data file (perfdiff show or diff"
			   " reads it; a bundle holds its perf script text)",
			   in->path);
		return NULL;
	}
	if (skip_ws(h, end) == end) {
		pd_err_set(err, PD_EEMPTY, "%s: empty file", in->path);
		return NULL;
	}
	{
		/* Text that looks like a profile to a loose eye, and is not. */
		const char *s = skip_ws(h, end), *why = NULL;
		size_t n = (size_t)(end - s);

		if (n >= 13 &&
		    (!memcmp(s, "heap profile:", 13) ||
		     !memcmp(s, "--- contention:", n < 15 ? n : 15) ||
		     !memcmp(s, "goroutine profile:", n < 18 ? n : 18) ||
		     !memcmp(s, "threadcreate profile:", n < 21 ? n : 21)))
			why = "a Go legacy text profile: write it as a pprof"
			      " profile with `go tool pprof -proto FILE >"
			      " FILE.pb.gz`";
		if (why) {
			pd_err_set(err, PD_EFORMAT, "%s:1: %s", in->path, why);
			return NULL;
		}
	}
	if (pd_input_is_binary(in)) {
		/*
		 * A control byte in a name (a BEL) is enough to make a short
		 * text look binary: without a NUL, lines that read as folded
		 * stacks are folded, their names escaped where they are shown.
		 */
		const char *what = binary_kind(h, in->head_len);

		if (pd_etl_sniff(h, in->head_len))
			return pd_format_find("etl");
		if (!memchr(h, '\0', in->head_len) &&
		    pd_folded_sniff(h, in->head_len))
			return pd_format_find("folded");
		if (what) {
			pd_err_set(err, PD_EFORMAT,
				   "%s: not a profile format perfdiff knows:"
				   " %s",
				   in->path, what);
			return NULL;
		}
		if (pd_pprof_sniff(h, in->head_len))
			return pd_format_find("pprof");
		pd_err_set(err, PD_EFORMAT,
			   "%s: binary data, not a supported profile"
			   " (supported: %s)",
			   in->path, pd_format_list());
		return NULL;
	}
	for (i = 0; i < PD_ARRAY_SIZE(formats) && !fmt; i++)
		if (formats[i].sniff && formats[i].sniff(h, in->head_len))
			fmt = &formats[i];
	if (!fmt && *skip_ws(h, end) == '{' && in->head_len == PD_INPUT_HEAD &&
	    in->regular)
		fmt = sniff_json_keys(in->path);
	if (!fmt && (*skip_ws(h, end) == '{' || *skip_ws(h, end) == '[')) {
		const char *shape = json_shape(h, in->head_len);

		if (shape) {
			pd_err_set(err, PD_EFORMAT,
				   strstr(shape, "not a profile")
				       ? "%s: this is %s (supported: %s)"
				       : "%s: this is %s, which this version"
					 " cannot read (supported: %s)",
				   in->path, shape, pd_format_list());
			return NULL;
		}
		/* The speedscope reader says so if the shape is off. */
		fmt = pd_format_find("speedscope");
	}
	if (!fmt)
		pd_err_set(err, PD_EFORMAT,
			   "%s:1: not a profile format perfdiff knows"
			   " (supported: %s; --from to force one)",
			   in->path, pd_format_list());
	return fmt;
}

const struct pd_format *pd_import_sniff(const char *path,
					const struct pd_import_opts *o,
					struct pd_err *err)
{
	struct pd_input in;
	const struct pd_format *fmt = NULL;

	if (pd_input_open(&in, path, err) == 0)
		fmt = sniff(&in, o, err);
	pd_input_close(&in);
	return fmt;
}

/* Marks the frames whose name re matches (NULL when re is NULL). */
static unsigned char *marks(const struct pd_profile *p, const char *re)
{
	unsigned char *m;
	regex_t rx;
	size_t i;

	if (!re || regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return NULL; /* the options were checked when given */
	m = pd_xcalloc(p->frames.n + 1, 1);
	for (i = 0; i < p->frames.n; i++)
		m[i] =
		    regexec(&rx, pd_intern_str(&p->strs, p->frames.v[i].name),
			    0, NULL, 0) == 0;
	regfree(&rx);
	return m;
}

/* --focus, --ignore, --hide, as pprof has them (cli.md). */
static void filter(struct pd_profile *p, const struct pd_import_opts *o)
{
	unsigned char *f = marks(p, o->focus), *i = marks(p, o->ignore),
		      *h = marks(p, o->hide);
	double before = p->total_weight;

	pd_profile_filter(p, f, i, h);
	pd_profile_finish(p);
	if ((o->focus || o->ignore) && before > 0)
		pd_profile_note(
		    p, "%s%s%s%s%s%s: %.1f %% of the weight kept",
		    o->focus ? "--focus " : "", o->focus ? o->focus : "",
		    o->focus && o->ignore ? ", " : "",
		    o->ignore ? "--ignore " : "", o->ignore ? o->ignore : "",
		    "", p->total_weight / before * 100);
	free(f);
	free(i);
	free(h);
}

/*
 * Notes that name the temporary text perf script wrote (a skipped line
 * at /tmp/pdperfXXXXXX:17) name the user's file instead; the file is gone
 * by the time they are read.
 */
static void rename_in_notes(struct pd_profile *p, const char *tmp,
			    const char *path)
{
	struct pd_buf b = PD_BUF_INIT;
	size_t i, n = strlen(tmp);

	for (i = 0; i < p->notes.n; i++) {
		const char *s = p->notes.v[i], *at;

		if (!strstr(s, tmp))
			continue;
		pd_buf_reset(&b);
		while ((at = strstr(s, tmp))) {
			pd_buf_add(&b, s, (size_t)(at - s));
			pd_buf_addf(&b, "%s (perf script's text)", path);
			s = at + n;
		}
		pd_buf_adds(&b, s);
		free(p->notes.v[i]);
		p->notes.v[i] = pd_buf_detach(&b);
	}
	pd_buf_release(&b);
}

/*
 * A raw perf.data: perf script turns it into text (perf knows the
 * recording's format, its build ids and where the symbols are); the text
 * goes to a temporary file that the perf script importer reads.
 */
static int import_perf_data(struct pd_profile *p, const char *path,
			    const char *file, const struct pd_import_opts *o,
			    struct pd_err *err)
{
	const char *tmpdir = getenv("TMPDIR");
	struct pd_buf tmp = PD_BUF_INIT, tool = PD_BUF_INIT;
	char script[] = "script", dash_i[] = "-i", *argv[5];
	int fd, rc, st;

	pd_buf_adds(&tool, o->perf ? o->perf : "perf");
	argv[0] = tool.buf;
	argv[1] = script;
	argv[2] = dash_i;
	argv[3] = pd_xstrdup(file);
	argv[4] = NULL;
	pd_buf_addf(&tmp, "%s/pdperfXXXXXX",
		    tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkstemp(tmp.buf);
	if (fd < 0) {
		rc = pd_err_set(err, PD_EIO, "%s: a temporary file: %s", path,
				strerror(errno));
		goto out;
	}
	st = pd_proc_run_fd(argv, NULL, NULL, fd);
	close(fd);
	if (st != 0) {
		rc = pd_err_set(err, PD_EFORMAT,
				"%s: a perf.data file, and `%s script -i %s`"
				" %s; run perf script yourself and give its"
				" text (or --perf PATH)",
				path, tool.buf, path,
				st == 127 || st < 0 ? "could not run (no perf"
						      " here?)"
						    : "failed");
		goto out;
	}
	rc = pd_import(p, tmp.buf, o, err);
	if (rc == 0) {
		free(p->source);
		p->source = pd_xstrdup(path);
		rename_in_notes(p, tmp.buf, path);
		pd_profile_note(p, "%s: read through `%s script`", path,
				tool.buf);
	} else if (err->code) {
		/* name the user's file, not the temporary one */
		struct pd_err e = PD_ERR_INIT;

		pd_err_set(&e, err->code, "%s (perf script's text of %s)",
			   err->msg, path);
		*err = e;
	}
out:
	if (tmp.len)
		unlink(tmp.buf);
	free(argv[3]);
	pd_buf_release(&tmp);
	pd_buf_release(&tool);
	return rc;
}

/*
 * A raw perf.data: read directly from fd (the file's, handed over),
 * unless it holds what only perf itself unwinds or decodes; then through
 * perf script reading file, and the report says why. path names it.
 */
static int import_perf_data_file(struct pd_profile *p, const char *path,
				 const char *file, int fd,
				 const struct pd_import_opts *o,
				 struct pd_err *err)
{
	struct pd_buf why = PD_BUF_INIT;
	int rc = pd_perfdata_import(p, path, fd, o, err, &why);

	if (rc == PDD_USE_PERF) {
		rc = import_perf_data(p, path, file, o, err);
		if (rc == 0)
			pd_profile_note(p,
					"%s: %s, so it was read through"
					" perf script",
					path, why.buf);
	}
	pd_buf_release(&why);
	return rc;
}

/*
 * A perf.data is read by offsets: one from a pipe or stdin is copied to a
 * temporary file first (its name in tmp), from the bytes in has read.
 * Returns the file's descriptor, or -1 with err set.
 */
static int spool(struct pd_input *in, struct pd_buf *tmp, struct pd_err *err)
{
	const char *tmpdir = getenv("TMPDIR");
	char *chunk = pd_xmalloc(1u << 20);
	ssize_t n = 0;
	int fd;

	pd_buf_addf(tmp, "%s/pdspoolXXXXXX",
		    tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkstemp(tmp->buf);
	if (fd < 0) {
		pd_err_set(err, PD_EIO, "%s: a temporary file: %s", in->path,
			   strerror(errno));
		pd_buf_reset(tmp);
	}
	while (fd >= 0 && (n = pd_input_read(in, chunk, 1u << 20, err)) > 0)
		if (write(fd, chunk, (size_t)n) != n) {
			n = pd_err_set(err, PD_EIO, "%s: %s: %s", in->path,
				       tmp->buf, strerror(errno));
			break;
		}
	if (fd >= 0 && n < 0) {
		close(fd);
		fd = -1;
	}
	free(chunk);
	return fd;
}

/* A raw perf.data, opened as in: read from its descriptor or a copy. */
static int import_perf_data_input(struct pd_profile *p, struct pd_input *in,
				  const struct pd_import_opts *o,
				  struct pd_err *err)
{
	struct pd_buf tmp = PD_BUF_INIT;
	int fd, rc;

	fd = in->regular ? dup(in->fd) : spool(in, &tmp, err);
	if (fd < 0 && !err->code)
		pd_err_set(err, PD_EIO, "%s: %s", in->path, strerror(errno));
	rc = fd < 0 ? err->code
		    : import_perf_data_file(p, in->path,
					    tmp.len ? tmp.buf : in->path, fd, o,
					    err);
	if (tmp.len)
		unlink(tmp.buf);
	pd_buf_release(&tmp);
	return rc;
}

/*
 * A name past PD_LIMIT_NAME was not interned (core/intern.h): the import
 * fails with the name's start as its place, whatever the importer made
 * of the empty name in its stead.
 */
static int name_too_long(const struct pd_profile *p, const char *path,
			 struct pd_err *err)
{
	struct pd_buf where = PD_BUF_INIT;
	int rc;

	pd_buf_addf(&where, "%s: a name of %zu bytes starting \"%s\"", path,
		    p->strs.over_len, p->strs.over_start);
	memset(err, 0, sizeof(*err));
	rc = pd_err_limit(err, where.buf, PD_LIMIT_NAME, "bytes in one name",
			  "PD_LIMIT_NAME");
	pd_buf_release(&where);
	return rc;
}

static int import_input(struct pd_profile *p, const char *path,
			const struct pd_import_opts *o, struct pd_err *err);

/*
 * --thread and --process on a format that records no threads or
 * processes: said, not silently ignored (docs/cli.md, "Inputs").
 */
static void unfiltered(struct pd_profile *p, const struct pd_format *fmt,
		       const struct pd_import_opts *o)
{
	static const char *const none[] = { "pprof",	  "dhat",
					    "cpuprofile", "perf-stat",
					    "callgrind",  "cachegrind" };
	size_t i;

	if (!o->thread && !o->process)
		return;
	for (i = 0; i < PD_ARRAY_SIZE(none); i++)
		if (!strcmp(fmt->name, none[i]))
			pd_profile_note(p,
					"%s%s%s: a %s profile names no threads"
					" or processes; the whole profile is"
					" read",
					o->thread ? "--thread" : "",
					o->thread && o->process ? " and " : "",
					o->process ? "--process" : "",
					fmt->name);
}

/*
 * A profile with nothing in it is an error, whatever its format: a
 * filter that matches nothing must not pass a gate as "no change". An
 * exact count of zero (no leaks) is an answer, not an empty file.
 */
static int not_empty(const struct pd_profile *p, const char *path,
		     const struct pd_import_opts *o, struct pd_err *err)
{
	if ((p->total_weight > 0 && p->total_weight < HUGE_VAL) ||
	    p->tables.n || (p->exact && p->nsamples))
		return 0;
	return pd_err_set(err, PD_EEMPTY, "%s: no samples%s (empty profile)",
			  path,
			  (o->process || o->thread || o->event || o->focus ||
			   o->ignore || o->hide)
			      ? " left after filtering"
			      : "");
}

int pd_import(struct pd_profile *p, const char *path,
	      const struct pd_import_opts *o, struct pd_err *err)
{
	unsigned long long cap;
	int rc;

	rc = pd_limit_env("PERFDIFF_LIMIT_NODES", PD_LIMIT_NODES, &cap, err);
	if (rc < 0)
		return rc;
	p->strs.max_len = PD_LIMIT_NAME;
	p->node_cap = cap < PD_LIMIT_IDS ? (size_t)cap : PD_LIMIT_IDS;
	rc = import_input(p, path, o, err);
	p->strs.max_len = 0;
	p->node_cap = 0;
	if (p->strs.over_len)
		rc = name_too_long(p, path, err);
	else if (p->nodes_over)
		rc = pd_err_set(err, PD_ETOOBIG,
				"%s: over perfdiff's limit of %llu distinct"
				" call paths (stack-tree nodes: PD_LIMIT_NODES"
				" in src/core/limits.h;"
				" PERFDIFF_LIMIT_NODES=N raises it)",
				path, cap);
	return rc;
}

static int import_input(struct pd_profile *p, const char *path,
			const struct pd_import_opts *o, struct pd_err *err)
{
	struct pd_input in;
	const struct pd_format *fmt;
	int rc;

	rc = pd_input_open(&in, path, err);
	if (rc < 0)
		goto out;
	if (in.perfdata) {
		rc = import_perf_data_input(p, &in, o, err);
		if (rc >= 0)
			rc = not_empty(p, path, o, err);
		goto out;
	}
	free(p->source);
	p->source = pd_xstrdup(path);
	fmt = sniff(&in, o, err);
	if (!fmt) {
		rc = err->code ? err->code : PD_EFORMAT;
		goto out;
	}
	p->format = fmt->name;
	rc = fmt->import(&in, p, o, err);
	if (rc < 0)
		goto out;
	unfiltered(p, fmt, o);
	pd_profile_finish(p);
	if (o->focus || o->ignore || o->hide)
		filter(p, o);
	rc = not_empty(p, path, o, err);
out:
	pd_input_close(&in);
	return rc;
}
