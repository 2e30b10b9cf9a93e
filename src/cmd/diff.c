/*
 * `perfdiff BASELINE CANDIDATE`: import both sides (in parallel), compute
 * the diff, render it, and exit like diff(1): 0 no regression, 1 regression,
 * 2 error.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "import/import.h"
#include "report/report.h"
#include "stats/diff.h"
#include "import/bundle.h"
#include "store/load.h"

static const char check_usage[] =
    "usage: perfdiff check BASELINE CANDIDATE [--function REGEX] [options]\n"
    "\n"
    "A verdict for git bisect run. BASELINE and CANDIDATE are profiles,\n"
    "bundle folders, or stored commits db:REV[:SCENARIO[:CACHE]] (with\n"
    "--db FILE). Takes the options of perfdiff diff.\n"
    "  --function REGEX  decide on the functions whose \"name [module]\"\n"
    "                    matches (self or total); default: the whole verdict\n"
    "\n"
    "Exit status: 0 good (same or improved), 1 bad (regressed), 125 skip\n"
    "(inconclusive), 128 error (stops the bisect).\n";

static const char diff_usage[] =
    "usage: perfdiff [diff] BASELINE CANDIDATE [options]\n"
    "\n"
    "Inputs (format sniffed from the content; .gz read transparently):\n"
    "  --from FORMAT        force the format: speedscope, firefox, "
    "cpuprofile,\n"
    "                       wpa, perf-script, folded\n"
    "  --event NAME         perf script: the event to use (default: the "
    "first)\n"
    "  --process NAME       keep samples whose process name contains NAME\n"
    "  --thread NAME        keep samples whose thread name contains NAME\n"
    "  --sample-weight W    weight of one sample (folded; default: derived)\n"
    "  --interval MS        sampling interval of evented data (default 1 ms)\n"
    "Matching:\n"
    "  --no-normalize       match raw names (keep +0x.., .constprop.N, ...)\n"
    "  --no-module          match functions by name alone, ignoring modules\n"
    "Statistics:\n"
    "  --threshold PCT      smallest ratio change that counts (default 5)\n"
    "  --min-impact PCT     smallest change as %% of the baseline total (0.5)\n"
    "  --alpha A            false discovery rate (default 0.05)\n"
    "  --dispersion PHI     overdispersion floor phi0 (default 2)\n"
    "  --share              compare shares of the total, not absolute weights\n"
    "Output:\n"
    "  -f, --format FMT     text (default), md, json, folded\n"
    "  -o, --output FILE    write to FILE (atomically) instead of stdout\n"
    "  --top N              rows per table in text output (default 20)\n"
    "  --color WHEN         auto (default), always, never\n"
    "\n"
    "Exit status: 0 no regression, 1 regression found, 2 error.\n";

enum {
	OPT_FROM = 256,
	OPT_EVENT,
	OPT_PROCESS,
	OPT_THREAD,
	OPT_SAMPLE_WEIGHT,
	OPT_INTERVAL,
	OPT_WEIGHT,
	OPT_SYMBOLS,
	OPT_DECIMAL,
	OPT_NO_NORMALIZE,
	OPT_NO_MODULE,
	OPT_THRESHOLD,
	OPT_MIN_IMPACT,
	OPT_ALPHA,
	OPT_DISPERSION,
	OPT_SHARE,
	OPT_TOP,
	OPT_COLOR,
	OPT_DB,
	OPT_SCENARIO,
	OPT_CACHE,
	OPT_TOOL,
	OPT_FUNCTION,
};

static const struct option diff_options[] = {
	{ "from", required_argument, NULL, OPT_FROM },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "process", required_argument, NULL, OPT_PROCESS },
	{ "thread", required_argument, NULL, OPT_THREAD },
	{ "sample-weight", required_argument, NULL, OPT_SAMPLE_WEIGHT },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "symbols", required_argument, NULL, OPT_SYMBOLS },
	{ "decimal", required_argument, NULL, OPT_DECIMAL },
	{ "no-normalize", no_argument, NULL, OPT_NO_NORMALIZE },
	{ "no-module", no_argument, NULL, OPT_NO_MODULE },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "min-impact", required_argument, NULL, OPT_MIN_IMPACT },
	{ "alpha", required_argument, NULL, OPT_ALPHA },
	{ "dispersion", required_argument, NULL, OPT_DISPERSION },
	{ "share", no_argument, NULL, OPT_SHARE },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "colour", required_argument, NULL, OPT_COLOR },
	{ "db", required_argument, NULL, OPT_DB },
	{ "scenario", required_argument, NULL, OPT_SCENARIO },
	{ "cache", required_argument, NULL, OPT_CACHE },
	{ "tool", required_argument, NULL, OPT_TOOL },
	{ "function", required_argument, NULL, OPT_FUNCTION },
	{ "baseline", required_argument, NULL, 'b' },
	{ "candidate", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct job {
	const char *path;
	const struct pd_import_opts *o;
	struct pd_profile p;
	struct pd_err err;
	int rc;
};

static void *import_job(void *arg)
{
	struct job *j = arg;

	j->rc = pd_import(&j->p, j->path, j->o, &j->err);
	return NULL;
}

/* Shared by diff and show: parses the import options; 1 if consumed. */
static int import_option(int c, struct pd_import_opts *io)
{
	double v;

	switch (c) {
	case OPT_FROM:
		if (!pd_format_find(optarg)) {
			pd_error("error: unknown format '%s' (supported: %s)",
				 optarg, pd_format_list());
			return -1;
		}
		io->from = optarg;
		return 1;
	case OPT_EVENT:
		io->event = optarg;
		return 1;
	case OPT_PROCESS:
		io->process = optarg;
		return 1;
	case OPT_THREAD:
		io->thread = optarg;
		return 1;
	case OPT_SAMPLE_WEIGHT:
		if (pd_parse_double("--sample-weight", optarg, 1e-300, 1e300,
				    &v))
			return -1;
		io->sample_weight = v;
		return 1;
	case OPT_INTERVAL:
		if (pd_parse_double("--interval", optarg, 1e-9, 1e9, &v))
			return -1;
		io->interval_ms = v;
		return 1;
	case OPT_WEIGHT:
		if (!strcmp(optarg, "cpu"))
			io->weight_mode = 0;
		else if (!strcmp(optarg, "wall"))
			io->weight_mode = 1;
		else {
			pd_error("error: --weight wants cpu or wall");
			return -1;
		}
		return 1;
	case OPT_DECIMAL:
		if ((optarg[0] != '.' && optarg[0] != ',') || optarg[1]) {
			pd_error("error: --decimal wants . or ,");
			return -1;
		}
		io->decimal = optarg[0];
		return 1;
	case OPT_SYMBOLS: {
		/* Repeatable: a growing NULL-terminated list. */
		static const char **dirs;
		static size_t n;

		dirs = pd_xreallocarray(dirs, n + 2, sizeof(*dirs));
		dirs[n++] = optarg;
		dirs[n] = NULL;
		io->symbol_dirs = dirs;
		return 1;
	}
	}
	return 0;
}

enum fmt { FMT_TEXT, FMT_MD, FMT_JSON, FMT_FOLDED, FMT_HTML, FMT_XLSX };

static int parse_format(const char *s, enum fmt *f)
{
	if (!strcmp(s, "text"))
		*f = FMT_TEXT;
	else if (!strcmp(s, "md") || !strcmp(s, "markdown"))
		*f = FMT_MD;
	else if (!strcmp(s, "json"))
		*f = FMT_JSON;
	else if (!strcmp(s, "folded"))
		*f = FMT_FOLDED;
	else if (!strcmp(s, "html"))
		*f = FMT_HTML;
	else if (!strcmp(s, "xlsx"))
		*f = FMT_XLSX;
	else {
		pd_error("error: unknown output format '%s' (text, md, json,"
			 " folded, html, xlsx)",
			 s);
		return -1;
	}
	return 0;
}

/*
 * Options that diff and show share: input options, -f, -o, -h and getopt's
 * errors. Returns 1 when c was handled, 0 when it is the caller's, or
 * 100 + an exit status when the command must stop now.
 */
static int shared_option(int c, char **argv, struct pd_import_opts *io,
			 enum fmt *fmt, const char **output, const char *usage,
			 const char *cmd)
{
	int r = import_option(c, io);

	if (r)
		return r < 0 ? 102 : 1;
	switch (c) {
	case 'f':
		return parse_format(optarg, fmt) ? 102 : 1;
	case 'o':
		*output = optarg;
		return 1;
	case 'h':
		fputs(usage, stdout);
		return 100;
	case ':':
		pd_error("error: option %s needs a value", argv[optind - 1]);
		return 102;
	case '?':
		pd_error("error: unknown option %s (perfdiff help %s)",
			 argv[optind - 1], cmd);
		return 102;
	}
	return 0;
}

/* Profile paths of one side (works with the PD_VEC macros). */
struct path_list {
	const char **v;
	size_t n, cap;
};

/* Options of a comparison: statistics, output, and where runs come from. */
struct run_opts {
	struct pd_import_opts io;
	struct pd_settings set;
	struct pd_report_opts ro;
	enum fmt fmt;
	const char *output, *color;
	unsigned flags;
	struct path_list base, cand; /* -b / -c files */
	const char *db, *scenario, *cache, *tool;
	const char *function; /* check: the functions that decide */
	regex_t fre;
	int check; /* exit as perfdiff check does */
};

static int run_option(int c, struct run_opts *r)
{
	double v;

	switch (c) {
	case OPT_NO_NORMALIZE:
		r->flags |= PD_FUNCS_NO_NORMALIZE;
		return 1;
	case OPT_NO_MODULE:
		r->flags |= PD_FUNCS_NO_MODULE;
		return 1;
	case OPT_THRESHOLD:
		return pd_parse_double("--threshold", optarg, 0, 1000,
				       &r->set.threshold_pct)
			   ? -1
			   : 1;
	case OPT_MIN_IMPACT:
		return pd_parse_double("--min-impact", optarg, 0, 100,
				       &r->set.min_impact_pct)
			   ? -1
			   : 1;
	case OPT_ALPHA:
		return pd_parse_double("--alpha", optarg, 1e-12, 0.5,
				       &r->set.alpha)
			   ? -1
			   : 1;
	case OPT_DISPERSION:
		return pd_parse_double("--dispersion", optarg, 0.01, 1000,
				       &r->set.dispersion)
			   ? -1
			   : 1;
	case OPT_SHARE:
		r->set.share = 1;
		return 1;
	case OPT_TOP:
		if (pd_parse_double("--top", optarg, 1, 1000000, &v))
			return -1;
		r->ro.top = (int)v;
		return 1;
	case OPT_COLOR:
		if (strcmp(optarg, "auto") && strcmp(optarg, "always") &&
		    strcmp(optarg, "never")) {
			pd_error("error: --color wants auto, always or never");
			return -1;
		}
		r->color = optarg;
		return 1;
	case 'b':
		PD_VEC_PUSH(&r->base, optarg);
		return 1;
	case 'c':
		PD_VEC_PUSH(&r->cand, optarg);
		return 1;
	case OPT_DB:
		r->db = optarg;
		return 1;
	case OPT_SCENARIO:
		r->scenario = optarg;
		return 1;
	case OPT_CACHE:
		r->cache = optarg;
		return 1;
	case OPT_TOOL:
		r->tool = optarg;
		return 1;
	case OPT_FUNCTION:
		r->function = optarg;
		return 1;
	}
	return 0;
}

/* Parses a comparison's options; returns -1 to go on, else an exit status. */
static int parse_run(int argc, char **argv, struct run_opts *r,
		     const char *usage, const char *cmd)
{
	int c;

	memset(r, 0, sizeof(*r));
	pd_settings_default(&r->set);
	r->ro.top = 20;
	r->color = "auto";
	r->db = pd_db_default_path();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:hb:c:", diff_options,
				NULL)) != -1) {
		int k = shared_option(c, argv, &r->io, &r->fmt, &r->output,
				      usage, cmd);

		if (k >= 100)
			return k - 100;
		if (k)
			continue;
		k = run_option(c, r);
		if (k < 0)
			return 2;
		if (!k) {
			pd_error("error: unknown option %s (perfdiff help %s)",
				 argv[optind - 1], cmd);
			return 2;
		}
	}
	if (!strcmp(r->color, "always"))
		r->ro.color = 1;
	else if (!strcmp(r->color, "auto"))
		r->ro.color = !r->output && isatty(1) && !getenv("NO_COLOR");
	return -1;
}

/*
 * perfdiff check's answer for git bisect run: 1 (bad) when a deciding
 * function (or, without --function, anything) regressed, 125 (skip) when
 * the evidence cannot tell, 0 (good) when it is the same or better.
 */
static int check_status(const struct pd_diff *d, struct run_opts *r)
{
	struct pd_buf name = PD_BUF_INIT;
	size_t i, matched = 0;
	int bad = 0, unsure = 0;

	if (!r->function) {
		if (d->verdict == PD_REGRESSED)
			return 1;
		return d->verdict == PD_INCONCLUSIVE ? 125 : 0;
	}
	for (i = 0; i < d->funcs.n; i++) {
		const struct pd_fdiff *f = &d->funcs.v[i];

		pd_buf_reset(&name);
		pd_fmt_func(&name, d, f->func);
		if (regexec(&r->fre, name.buf, 0, NULL, 0) != 0)
			continue;
		matched++;
		bad |= f->self.status == PD_REGRESSED ||
		       f->total.status == PD_REGRESSED ||
		       f->self.status == PD_ADDED;
		unsure |= f->self.status == PD_INCONCLUSIVE ||
			  f->total.status == PD_INCONCLUSIVE;
	}
	pd_buf_release(&name);
	if (!matched) {
		fprintf(stderr,
			"perfdiff: no function matches --function %s:"
			" skipping\n",
			r->function);
		return 125;
	}
	return bad ? 1 : unsure ? 125 : 0;
}

/* Writes the report; returns the exit status (0, 1, or 2). */
/* XLSX: libxlsxwriter writes a file; give it a temporary name. */
static int write_xlsx(const char *tmp, const void *d, struct pd_err *err)
{
	return pd_report_xlsx(tmp, d, err);
}

static int render_xlsx(struct pd_diff *d, const char *output)
{
	if (pd_write_by_name(output, write_xlsx, d) < 0)
		return 2;
	return d->verdict == PD_REGRESSED ? 1 : 0;
}

static int render(struct pd_diff *d, struct run_opts *r,
		  const struct pd_profile *pa, const struct pd_profile *pb,
		  struct pd_funcs *fn)
{
	struct pd_out out;
	int rc, status = 2;
	size_t i;

	/*
	 * Warnings go to stderr; the text report repeats them, unless stdout
	 * and stderr are the same terminal, where they would show twice.
	 */
	r->ro.warnings =
	    !(r->fmt == FMT_TEXT && !r->output && isatty(1) && isatty(2));
	for (i = 0; i < d->warnings.n; i++)
		if (r->ro.warnings)
			fprintf(stderr, "perfdiff: warning: %s\n",
				d->warnings.v[i]);
	if (r->fmt == FMT_FOLDED && (!pa || !pb)) {
		pd_error("error: folded output compares one profile per side");
		return 2;
	}
	if (r->fmt == FMT_XLSX) {
		if (!r->output) {
			pd_error("error: -f xlsx needs -o FILE.xlsx");
			return 2;
		}
		return render_xlsx(d, r->output);
	}
	if (pd_out_open(&out, r->output) != 0)
		return 2;
	switch (r->fmt) {
	case FMT_TEXT:
		rc = pd_report_text(out.f, d, &r->ro);
		break;
	case FMT_MD:
		rc = pd_report_md(out.f, d, &r->ro);
		break;
	case FMT_JSON:
		rc = pd_report_json(out.f, d, &r->ro);
		break;
	case FMT_HTML:
		rc = pd_report_html(out.f, d, &r->ro, pa, pb, fn);
		break;
	default:
		rc = pd_report_folded(out.f, pa, pb);
		break;
	}
	if (rc < 0 && r->output)
		pd_error("error: %s: write failed", r->output);
	if (pd_out_close(&out, rc) == 0 && rc == 0)
		status = r->check		      ? check_status(d, r)
			 : d->verdict == PD_REGRESSED ? 1
						      : 0;
	return status;
}

struct pool {
	struct job *jobs;
	size_t n;
};

static void *pool_odd(void *arg)
{
	struct pool *p = arg;
	size_t i;

	for (i = 1; i < p->n; i += 2)
		import_job(&p->jobs[i]);
	return NULL;
}

/* Imports paths on two threads; prints the first error; 0 or -1. */
static int import_all(const char *const *paths, size_t n,
		      const struct pd_import_opts *io, struct job *jobs)
{
	struct pool pool = { jobs, n };
	pthread_t th;
	int threaded;
	size_t i;

	for (i = 0; i < n; i++) {
		jobs[i].path = paths[i];
		jobs[i].o = io;
		jobs[i].rc = 0;
		memset(&jobs[i].err, 0, sizeof(jobs[i].err));
		pd_profile_init(&jobs[i].p);
	}
	/* The files are independent: read two at a time. */
	threaded = n > 1 && !pthread_create(&th, NULL, pool_odd, &pool);
	for (i = 0; i < n; i += threaded ? 2 : 1)
		import_job(&jobs[i]);
	if (threaded)
		pthread_join(th, NULL);
	for (i = 0; i < n; i++) {
		if (jobs[i].rc < 0) {
			pd_error("%s", jobs[i].err.msg);
			return -1;
		}
	}
	return 0;
}

/* Warns about build metadata that differs between the two sides. */
static void meta_warn(struct pd_diff *d, const struct pd_meta *a,
		      const struct pd_meta *b)
{
	static const struct {
		const char *what;
		size_t off;
	} f[] = {
		{ "compilers", offsetof(struct pd_meta, compiler) },
		{ "build flags", offsetof(struct pd_meta, flags) },
		{ "targets", offsetof(struct pd_meta, target) },
		{ "datasets", offsetof(struct pd_meta, dataset) },
		{ "cache states", offsetof(struct pd_meta, cache) },
		{ "hosts", offsetof(struct pd_meta, host) },
	};
	size_t i;

	for (i = 0; i < PD_ARRAY_SIZE(f); i++) {
		const char *x = *(char *const *)((const char *)a + f[i].off);
		const char *y = *(char *const *)((const char *)b + f[i].off);

		if (x && y && strcmp(x, y))
			pd_diff_warn(d, "%s differ: baseline %s, candidate %s",
				     f[i].what, x, y);
	}
}

/*
 * A bundle folder as one side: its supported profiles of the first
 * profile's format are repeat runs. Adds their paths to files.
 */
static int expand_bundle(const char *dir, struct path_list *files,
			 struct pd_bundle *b, struct pd_meta *meta)
{
	static const struct pd_bundle_key any = { "?", "?", "?" };
	struct pd_import_opts none;
	struct pd_err err = PD_ERR_INIT;
	const struct pd_format *first = NULL;
	size_t i, n = 0;

	memset(&none, 0, sizeof(none));
	if (pd_bundle_read(b, dir, &any, &err) < 0) {
		pd_error("%s", err.msg);
		return -1;
	}
	for (i = 0; i < b->files.n; i++) {
		const struct pd_format *fmt;

		memset(&err, 0, sizeof(err));
		fmt = pd_import_sniff(b->files.v[i].path, &none, &err);
		if (!fmt || (first && fmt != first))
			continue;
		first = fmt;
		PD_VEC_PUSH(files, b->files.v[i].path);
		n++;
	}
	if (!n) {
		pd_error("error: %s: no supported profile under profiles/",
			 dir);
		return -1;
	}
	pd_meta_from_json(meta, b->build_meta);
	if (!meta->cache && strcmp(b->cache, "?"))
		meta->cache = pd_xstrdup(b->cache);
	return 0;
}

static int check_db(struct run_opts *r, char **operands);

static int diff_run(int argc, char **argv, int check)
{
	struct run_opts r;
	struct job *jobs;
	const struct pd_profile **pa, **pb;
	const char **paths;
	struct pd_funcs fn;
	struct pd_diff d;
	struct pd_bundle bundle[2];
	struct pd_meta meta[2];
	size_t na, nb, i, n;
	int status = 2, have_meta = 0, have_re = 0;

	memset(bundle, 0, sizeof(bundle));
	memset(meta, 0, sizeof(meta));
	status = parse_run(argc, argv, &r, check ? check_usage : diff_usage,
			   check ? "check" : "diff");
	if (status >= 0)
		goto out_opts;
	status = 2;
	r.check = check;
	if (r.function && !check) {
		pd_error("error: --function is an option of perfdiff check");
		goto out_opts;
	}
	if (r.function) {
		if (pd_parse_regex("--function", r.function, &r.fre))
			goto out_opts;
		have_re = 1;
	}
	if (check && argc - optind == 2 &&
	    (!strncmp(argv[optind], "db:", 3) ||
	     !strncmp(argv[optind + 1], "db:", 3))) {
		status = check_db(&r, argv + optind);
		goto out_opts;
	}
	if (r.base.n || r.cand.n) {
		if (!r.base.n || !r.cand.n || argc != optind) {
			pd_error(
			    "error: with -b/-c give every profile that way:"
			    " -b BASE... -c CAND...");
			goto out_opts;
		}
		na = r.base.n;
		nb = r.cand.n;
	} else {
		if (argc - optind != 2) {
			pd_error("error: want two profiles, BASELINE and"
				 " CANDIDATE (got %d); see perfdiff help diff",
				 argc - optind);
			goto out_opts;
		}
		/* A folder is a bundle: its profiles are that side's runs. */
		for (i = 0; i < 2; i++) {
			const char *arg = argv[optind + i];

			if (pd_is_dir(arg)) {
				if (expand_bundle(arg, i ? &r.cand : &r.base,
						  &bundle[i], &meta[i]) < 0)
					goto out_opts;
				have_meta = 1;
			} else {
				PD_VEC_PUSH(i ? &r.cand : &r.base, arg);
			}
		}
		na = r.base.n;
		nb = r.cand.n;
	}
	n = na + nb;
	paths = pd_xmalloc(n * sizeof(*paths));
	for (i = 0; i < n; i++)
		paths[i] = i < na ? r.base.v[i] : r.cand.v[i - na];
	for (i = 0; i < n; i++) {
		size_t k;

		for (k = i + 1; k < n; k++)
			if (!strcmp(paths[i], "-") && !strcmp(paths[k], "-")) {
				pd_error("error: only one profile can be"
					 " standard input (-)");
				free(paths);
				goto out_opts;
			}
	}
	jobs = pd_xcalloc(n, sizeof(*jobs));
	if (import_all(paths, n, &r.io, jobs) == 0) {
		pa = pd_xmalloc(na * sizeof(*pa));
		pb = pd_xmalloc(nb * sizeof(*pb));
		for (i = 0; i < na; i++)
			pa[i] = &jobs[i].p;
		for (i = 0; i < nb; i++)
			pb[i] = &jobs[na + i].p;
		pd_funcs_init(&fn, r.flags);
		pd_diff_profiles(&d, pa, na, pb, nb, &fn, &r.set);
		if (have_meta)
			meta_warn(&d, &meta[0], &meta[1]);
		status = render(&d, &r, na == 1 ? pa[0] : NULL,
				nb == 1 ? pb[0] : NULL, &fn);
		pd_diff_release(&d);
		pd_funcs_release(&fn);
		free(pa);
		free(pb);
	}
	for (i = 0; i < n; i++)
		pd_profile_release(&jobs[i].p);
	free(jobs);
	free(paths);
out_opts:
	for (i = 0; i < 2; i++) {
		pd_bundle_release(&bundle[i]);
		pd_meta_release(&meta[i]);
	}
	if (have_re)
		regfree(&r.fre);
	PD_VEC_FREE(&r.base);
	PD_VEC_FREE(&r.cand);
	return status;
}

int pd_cmd_diff(int argc, char **argv)
{
	return diff_run(argc, argv, 0);
}

/* One side of a check: stored runs, or profiles (files or a bundle). */
struct check_side {
	char *spec; /* db:REV[:SCENARIO[:CACHE]], split in place */
	const char *rev, *scenario, *cache;
	char *sha;
	struct pd_loaded l;
	int loaded;
	struct path_list files;
	struct pd_bundle bundle;
	struct pd_meta meta;
	struct job *jobs;
	struct pd_agg *aggs;
	size_t n;
	struct pd_side side;
};

static int check_side_profiles(struct check_side *c, const char *arg,
			       struct run_opts *r, struct pd_funcs *fn)
{
	const struct pd_profile **pp;
	size_t i;

	if (pd_is_dir(arg)) {
		if (expand_bundle(arg, &c->files, &c->bundle, &c->meta) < 0)
			return -1;
	} else {
		PD_VEC_PUSH(&c->files, arg);
	}
	c->n = c->files.n;
	c->jobs = pd_xcalloc(c->n, sizeof(*c->jobs));
	if (import_all(c->files.v, c->n, &r->io, c->jobs) < 0)
		return -1;
	c->aggs = pd_xcalloc(c->n, sizeof(*c->aggs));
	pp = pd_xmalloc(c->n * sizeof(*pp));
	for (i = 0; i < c->n; i++) {
		pp[i] = &c->jobs[i].p;
		pd_agg_init(&c->aggs[i]);
		pd_agg_compute(&c->aggs[i], pp[i], fn);
	}
	pd_side_of_profiles(&c->side, pp, c->n);
	free(pp);
	return 0;
}

static void check_side_release(struct check_side *c)
{
	size_t i;

	if (c->loaded)
		pd_loaded_release(&c->l);
	for (i = 0; c->aggs && i < c->n; i++)
		pd_agg_release(&c->aggs[i]);
	for (i = 0; c->jobs && i < c->n; i++)
		pd_profile_release(&c->jobs[i].p);
	free(c->aggs);
	free(c->jobs);
	free(c->sha);
	free(c->spec);
	PD_VEC_FREE(&c->files);
	pd_bundle_release(&c->bundle);
	pd_meta_release(&c->meta);
}

/*
 * A check with a stored side (db:REV...): the stored runs and any files
 * are compared as per-run aggregates over one function table, with the
 * noise the history has learned for the stored side's scenario.
 */
static int check_db(struct run_opts *r, char **operands)
{
	struct check_side c[2];
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_funcs fn;
	struct pd_idmap ids;
	struct pd_noise noise;
	struct pd_diff d;
	const char *scen = NULL, *cache = NULL, *tool = r->tool;
	char *cache_own = NULL, *tool_own = NULL;
	const char *exclude[3] = { NULL, NULL, NULL };
	int i, status = 2, have_noise = 0, opened = 0;
	size_t k;

	memset(c, 0, sizeof(c));
	pd_funcs_init(&fn, r->flags);
	pd_idmap_init(&ids, &fn);
	for (i = 0; i < 2; i++) {
		char *p;

		if (strncmp(operands[i], "db:", 3))
			continue;
		c[i].spec = pd_xstrdup(operands[i] + 3);
		c[i].rev = c[i].spec;
		c[i].scenario = r->scenario;
		c[i].cache = r->cache;
		if ((p = strchr(c[i].spec, ':'))) {
			*p++ = '\0';
			c[i].scenario = p;
			if ((p = strchr(p, ':'))) {
				*p++ = '\0';
				c[i].cache = p;
			}
		}
		if (!*c[i].rev || !c[i].scenario || !*c[i].scenario) {
			pd_error("error: %s: want db:REV:SCENARIO[:CACHE] (or"
				 " --scenario)",
				 operands[i]);
			goto out;
		}
	}
	if (pd_open_history(&db, r->db) < 0)
		goto out;
	opened = 1;
	for (i = 0; i < 2; i++) {
		if (!c[i].spec) {
			if (check_side_profiles(&c[i], operands[i], r, &fn) < 0)
				goto out;
			continue;
		}
		if (pd_store_resolve(&db, c[i].rev, c[i].scenario, c[i].cache,
				     &c[i].sha, &err) < 0)
			goto fail;
		if (!cache_own)
			cache = c[i].cache;
		{
			char *co = NULL, *to = NULL;

			if (pd_store_caches(&db, c[i].sha, c[i].scenario,
					    &cache, &tool, &co, &to, &err) < 0)
				goto fail;
			if (!cache_own) {
				cache_own = co;
				tool_own = to;
			} else {
				free(co);
				free(to);
			}
		}
		if (pd_store_load(&db, c[i].sha, c[i].scenario, cache_own,
				  tool_own, &ids, &c[i].l, &err) < 0)
			goto fail;
		c[i].loaded = 1;
		c[i].aggs = NULL;
		c[i].side = c[i].l.side;
		scen = c[i].scenario;
		exclude[i] = c[i].sha;
		/* a second stored side must match the first's key */
		cache = cache_own;
		tool = tool_own;
		if (c[i].cache && strcmp(c[i].cache, cache_own)) {
			pd_error("error: %s: cache state %s, the other side %s",
				 operands[i], c[i].cache, cache_own);
			goto out;
		}
	}
	/* Noise learned for the stored side, without the commits compared. */
	{
		const char *ex[3];
		int n = 0;

		for (i = 0; i < 2; i++)
			if (exclude[i])
				ex[n++] = exclude[i];
		ex[n] = NULL;
		if (pd_store_noise(&db, scen, cache_own, tool_own, ex, &ids,
				   &noise, &err) < 0)
			goto fail;
		have_noise = 1;
	}
	for (i = 0; i < 2; i++) {
		struct pd_agg *a = c[i].loaded ? c[i].l.runs : c[i].aggs;
		size_t n = c[i].loaded ? c[i].l.n : c[i].n;

		for (k = 0; k < n; k++)
			pd_agg_resize(&a[k], fn.v.n);
	}
	/* (noise learning sized its arrays to the table, grown by then) */
	pd_diff_aggs(&d, &c[0].side, c[0].loaded ? c[0].l.runs : c[0].aggs,
		     c[0].loaded ? c[0].l.n : c[0].n, &c[1].side,
		     c[1].loaded ? c[1].l.runs : c[1].aggs,
		     c[1].loaded ? c[1].l.n : c[1].n, &fn, &r->set, &noise);
	{
		struct pd_meta m[2];

		for (i = 0; i < 2; i++) {
			if (c[i].loaded)
				pd_meta_from_json(&m[i], c[i].l.build_meta);
			else
				m[i] = c[i].meta;
		}
		meta_warn(&d, &m[0], &m[1]);
		for (i = 0; i < 2; i++)
			if (c[i].loaded)
				pd_meta_release(&m[i]);
	}
	status = render(&d, r, NULL, NULL, &fn);
	pd_diff_release(&d);
	goto out;
fail:
	pd_error("%s", err.msg);
out:
	if (have_noise)
		pd_noise_release(&noise);
	for (i = 0; i < 2; i++)
		check_side_release(&c[i]);
	if (opened)
		pd_db_close(&db);
	pd_idmap_release(&ids);
	pd_funcs_release(&fn);
	free(cache_own);
	free(tool_own);
	return status;
}

int pd_cmd_check(int argc, char **argv)
{
	int s = diff_run(argc, argv, 1);

	/* git bisect run stops on 128 and above: errors must not mark */
	return s == 2 ? 128 : s;
}

static const char compare_usage[] =
    "usage: perfdiff compare BASE_REV CAND_REV --scenario S [--cache C]\n"
    "                        [--tool T] [--db FILE] [options]\n"
    "\n"
    "Compares two stored commits (sha prefixes) with every repeat run on\n"
    "each side, using noise learned from the history. Takes the statistics\n"
    "and output options of perfdiff diff (see perfdiff help diff).\n"
    "  --db FILE        database (default $PERFDIFF_DB, else ./perfdiff.db)\n"
    "  --scenario S     the scenario (required)\n"
    "  --cache C        warm or cold, when both are stored\n"
    "  --tool T         the profiler, when several are stored\n";

int pd_cmd_compare(int argc, char **argv)
{
	struct run_opts r;
	struct pd_db db;
	struct pd_err err = PD_ERR_INIT;
	struct pd_funcs fn;
	struct pd_idmap ids;
	struct pd_loaded la, lb;
	struct pd_noise noise;
	struct pd_diff d;
	char *sha[2] = { NULL, NULL }, *cache = NULL, *tool = NULL;
	char *c2 = NULL, *t2 = NULL;
	const char *cc, *tt;
	int status, i, loaded = 0, have_noise = 0;

	memset(&la, 0, sizeof(la));
	memset(&lb, 0, sizeof(lb));
	status = parse_run(argc, argv, &r, compare_usage, "compare");
	if (status >= 0)
		goto out_opts;
	status = 2;
	if (argc - optind != 2 || !r.scenario) {
		pd_error("error: usage: perfdiff compare BASE_REV CAND_REV"
			 " --scenario S [--cache C]");
		goto out_opts;
	}
	if (pd_open_history(&db, r.db) < 0)
		goto out_opts;
	pd_funcs_init(&fn, r.flags);
	pd_idmap_init(&ids, &fn);
	for (i = 0; i < 2; i++) {
		if (pd_store_resolve(&db, argv[optind + i], r.scenario, r.cache,
				     &sha[i], &err) < 0)
			goto fail;
	}
	cc = r.cache;
	tt = r.tool;
	if (pd_store_caches(&db, sha[0], r.scenario, &cc, &tt, &cache, &tool,
			    &err) < 0)
		goto fail;
	/* The candidate must have the same cache state and tool. */
	if (pd_store_caches(&db, sha[1], r.scenario, &cc, &tt, &c2, &t2, &err) <
	    0)
		goto fail;
	{
		/* Noise is learned on a second thread while the sides load. */
		const char *exclude[] = { sha[0], sha[1], NULL };
		struct pd_noise_task task;
		int rc1, rc2;

		pd_store_noise_start(&task, r.db, r.scenario, cache, tool,
				     exclude);
		rc1 = pd_store_load(&db, sha[0], r.scenario, cache, tool, &ids,
				    &la, &err);
		if (rc1 == 0)
			rc1 = pd_store_load(&db, sha[1], r.scenario, cache,
					    tool, &ids, &lb, &err);
		rc2 = pd_store_noise_finish(
		    &task, &ids, &noise,
		    rc1 < 0 ? &(struct pd_err){ 0, { 0 } } : &err);
		loaded = 1;
		if (rc1 < 0 || rc2 < 0) {
			if (rc2 == 0)
				pd_noise_release(&noise);
			goto fail;
		}
		have_noise = 1;
	}
	pd_diff_aggs(&d, &la.side, la.runs, la.n, &lb.side, lb.runs, lb.n, &fn,
		     &r.set, &noise);
	{
		struct pd_meta ma, mb;

		pd_meta_from_json(&ma, la.build_meta);
		pd_meta_from_json(&mb, lb.build_meta);
		meta_warn(&d, &ma, &mb);
		pd_meta_release(&ma);
		pd_meta_release(&mb);
	}
	status = render(&d, &r, NULL, NULL, &fn);
	pd_diff_release(&d);
	goto done;
fail:
	pd_error("%s", err.msg);
done:
	if (have_noise)
		pd_noise_release(&noise);
	if (loaded || la.runs)
		pd_loaded_release(&la);
	if (loaded || lb.runs)
		pd_loaded_release(&lb);
	pd_idmap_release(&ids);
	pd_funcs_release(&fn);
	pd_db_close(&db);
	free(sha[0]);
	free(sha[1]);
	free(cache);
	free(tool);
	free(c2);
	free(t2);
out_opts:
	PD_VEC_FREE(&r.base);
	PD_VEC_FREE(&r.cand);
	return status;
}

static const char show_usage[] =
    "usage: perfdiff show PROFILE [options]\n"
    "\n"
    "Prints one profile's functions with self and total weights.\n"
    "  -f, --format FMT   text (default), json, folded\n"
    "  -o, --output FILE  write to FILE instead of stdout\n"
    "  --top N            rows in text output (default 30)\n"
    "  --from, --event, --process, --thread, --sample-weight, --interval\n"
    "                     as for perfdiff diff\n";

int pd_cmd_show(int argc, char **argv)
{
	struct pd_import_opts io;
	struct pd_profile p;
	struct pd_err err = PD_ERR_INIT;
	struct pd_out out;
	const char *output = NULL;
	enum fmt fmt = FMT_TEXT;
	int c, rc, top = 30, status = 2;
	size_t i;
	double v;

	memset(&io, 0, sizeof(io));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", diff_options, NULL)) !=
	       -1) {
		int r = shared_option(c, argv, &io, &fmt, &output, show_usage,
				      "show");

		if (r >= 100)
			return r - 100;
		if (r)
			continue;
		switch (c) {
		case OPT_TOP:
			if (pd_parse_double("--top", optarg, 1, 1e9, &v))
				return 2;
			top = (int)v;
			break;
		default:
			pd_error(
			    "error: unknown option %s (perfdiff help show)",
			    argv[optind - 1]);
			return 2;
		}
	}
	if (fmt == FMT_MD) {
		pd_error("error: show writes text, json or folded");
		return 2;
	}
	if (argc - optind != 1) {
		pd_error("error: want one profile; see perfdiff help show");
		return 2;
	}
	pd_profile_init(&p);
	if (pd_import(&p, argv[optind], &io, &err) < 0) {
		pd_error("%s", err.msg);
		goto out;
	}
	if (fmt != FMT_TEXT || output)
		for (i = 0; i < p.notes.n; i++)
			fprintf(stderr, "perfdiff: warning: %s\n",
				p.notes.v[i]);
	if (pd_out_open(&out, output) == 0) {
		if (fmt == FMT_JSON)
			rc = pd_report_profile_json(out.f, &p);
		else if (fmt == FMT_FOLDED)
			rc = pd_report_folded(out.f, &p, NULL);
		else
			rc = pd_report_profile_text(out.f, &p, top);
		if (pd_out_close(&out, rc) == 0 && rc == 0)
			status = 0;
	}
out:
	pd_profile_release(&p);
	return status;
}
