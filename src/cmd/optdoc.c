/*
 * What is made from the option table (cmd/options.h): each command's
 * help, docs/cli.md's option tables, the man page, the shell
 * completions and the table's dump for tests.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "core/buf.h"
#include "core/compat.h"
#include "import/import.h"

/* One usage line: "LEAD perfdiff NAME OPERANDS --NEEDED ARG [options]". */
static void usage_line(struct pd_buf *b, const struct pd_cmd *c,
		       const char *lead, const char *operands)
{
	size_t nt, i;
	const struct pd_optdef *t = pd_opts_table(&nt);
	int more = 0;

	/* a first argument that is not a command is diff's */
	pd_buf_addf(b, "%sperfdiff %s", lead,
		    c->bit == PD_C_DIFF ? "[diff]" : c->name);
	if (*operands)
		pd_buf_addf(b, " %s", operands);
	for (i = 0; i < nt; i++) {
		if (!(t[i].cmds & c->bit) || t[i].kind == PD_OPT_HELP)
			continue;
		if (pd_opts_needed(&t[i], c->bit))
			pd_buf_addf(b, " --%s %s", t[i].name, t[i].arg);
		else if (t[i].help) /* not an alias, nor a hidden one */
			more = 1;
	}
	if (more)
		pd_buf_adds(b, " [options]");
	pd_buf_addch(b, '\n');
}

void pd_opts_usage(struct pd_buf *b, const struct pd_cmd *c, const char *first)
{
	size_t n = strlen(first);

	usage_line(b, c, first, c->operands);
	if (*c->other) {
		char lead[16];

		assert(n < sizeof(lead));
		memset(lead, ' ', n);
		lead[n] = '\0';
		usage_line(b, c, lead, c->other);
	}
}

/*
 * The help text h of row d with its lists put in: the input formats
 * (@FORMATS@), the other names --from takes (@ALIASES@, as code), the
 * output formats d's command writes (@OUTFORMATS@, the default first).
 */
static void help_text(struct pd_buf *b, const char *h,
		      const struct pd_optdef *d)
{
	const struct pd_choice *c;
	const char *n;
	size_t i;
	int k;

	pd_buf_reset(b);
	while (*h) {
		if (!strncmp(h, "@FORMATS@", 9)) {
			pd_buf_adds(b, pd_format_list());
			h += 9;
		} else if (!strncmp(h, "@ALIASES@", 9)) {
			for (i = 0; (n = pd_format_alias(i)); i++)
				pd_buf_addf(b, "%s`%s`", i ? ", " : "", n);
			h += 9;
		} else if (!strncmp(h, "@OUTFORMATS@", 12)) {
			k = 0;
			for (c = pd_outfmt_choices; c->name; c++)
				if (!c->alias && (d->bits & (1u << c->value))) {
					pd_buf_addf(b, "%s%s%s", k ? ", " : "",
						    c->name,
						    k ? "" : " (default)");
					k++;
				}
			h += 12;
		} else {
			pd_buf_addch(b, *h++);
		}
	}
}

/* Whether command cmd has an option help shows (the others have only -h). */
static int has_shown(unsigned cmd)
{
	size_t nt, i;
	const struct pd_optdef *table = pd_opts_table(&nt);

	for (i = 0; i < nt; i++)
		if ((table[i].cmds & cmd) && table[i].help)
			return 1;
	return 0;
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
	size_t nt;
	const struct pd_optdef *table = pd_opts_table(&nt);
	size_t n = 0, i, k;

	for (i = 0; i < nt; i++) {
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
	size_t nt;
	const struct pd_optdef *table = pd_opts_table(&nt);
	const char *sec[16];
	size_t ns = sections(sec, 16), k, i;
	struct pd_buf flag = PD_BUF_INIT, h = PD_BUF_INIT;

	for (k = 0; k < ns; k++) {
		int any = 0;

		for (i = 0; i < nt; i++) {
			const struct pd_optdef *d = &table[i];

			if (!(d->cmds & cmd) || !d->help ||
			    strcmp(d->section, sec[k]))
				continue;
			if (!any++)
				fprintf(f, "%s:\n", sec[k]);
			flag_text(&flag, d);
			help_text(&h, d->help, d);
			/* a flag too long for its column has its text below */
			fprintf(f, "  %-22s", flag.buf);
			if (flag.len > 21)
				fprintf(f, "\n%24s", "");
			print_wrapped(f, h.buf, 24, 24);
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
	size_t nt;
	const struct pd_optdef *table = pd_opts_table(&nt);
	struct pd_buf flag = PD_BUF_INIT, h = PD_BUF_INIT;
	size_t i;

	fputs("| option | meaning |\n|---|---|\n", f);
	for (i = 0; i < nt; i++) {
		const struct pd_optdef *d = &table[i];

		if (!(d->cmds & cmd) || !d->help)
			continue;
		flag_text(&flag, d);
		help_text(&h, d->doc ? d->doc : d->help, d);
		fputs("| `", f);
		md_cell(f, flag.buf);
		fputs("` | ", f);
		md_cell(f, h.buf);
		fputs(" |\n", f);
	}
	pd_buf_release(&flag);
	pd_buf_release(&h);
}

/*
 * roff text: a leading '.' or '\'' and backslashes made literal; a
 * `code` span of the docs' text in bold, as man pages show literals.
 */
static void roff(FILE *f, const char *s, int line_start)
{
	int code = 0;

	for (; *s; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		line_start = *s == '\n';
		if (*s == '`') {
			fputs(code ? "\\fR" : "\\fB", f);
			code = !code;
		} else if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
	if (code) /* an unclosed span ends with the text */
		fputs("\\fR", f);
}

void pd_opts_man(FILE *f)
{
	size_t nt;
	const struct pd_optdef *table = pd_opts_table(&nt);
	size_t ncmd;
	const struct pd_cmd *cmds = pd_cmd_table(&ncmd);
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
	for (c = 0; c < ncmd; c++) {
		if (!has_shown(cmds[c].bit))
			continue;
		fputs(".SH \"PERFDIFF ", f);
		for (i = 0; cmds[c].name[i]; i++)
			fputc(cmds[c].name[i] - 32, f);
		fputs("\"\n", f);
		fputs(".B perfdiff ", f);
		roff(f, cmds[c].name, 0);
		fputs("\n\\- ", f);
		roff(f, cmds[c].summary, 0);
		fputc('\n', f);
		for (i = 0; i < nt; i++) {
			const struct pd_optdef *d = &table[i];

			if (!(d->cmds & cmds[c].bit) || !d->help)
				continue;
			flag_text(&flag, d);
			help_text(&h, d->doc ? d->doc : d->help, d);
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
	      ".TP\n.B NO_COLOR\nno colour in text output\n"
	      ".SH EXAMPLES\n"
	      "Two profiles, a table on the terminal; exit 1 if a function"
	      " regressed:\n.PP\n.RS\n.nf\n"
	      "perfdiff base.perf.txt cand.perf.txt\n.fi\n.RE\n.PP\n"
	      "A pull request's comment (Markdown, on standard output), and"
	      " an HTML report with the differential flame graph:\n"
	      ".PP\n.RS\n.nf\n"
	      "perfdiff \\-f md base.speedscope.json cand.speedscope.json\n"
	      "perfdiff \\-f html \\-o diff.html base/ cand/\n"
	      ".fi\n.RE\n.PP\n"
	      "Several runs a side, judged by their spread:\n.PP\n.RS\n.nf\n"
	      "perfdiff \\-b b1.perf.txt \\-b b2.perf.txt \\-c c1.perf.txt"
	      " \\-c c2.perf.txt\n.fi\n.RE\n.PP\n"
	      "A history: store nightly bundles, compare two commits, follow"
	      " the trend, find the commit that changed it:\n.PP\n.RS\n.nf\n"
	      "perfdiff ingest bundles/*\n"
	      "perfdiff compare a1b2c3d e4f5a6b \\-\\-scenario parse\n"
	      "perfdiff trend \\-\\-scenario parse \\-f html \\-o trend.html\n"
	      "perfdiff culprit \\-\\-scenario parse \\-\\-repo .\n"
	      ".fi\n.RE\n"
	      ".SH SEE ALSO\n"
	      ".BR perf (1),\n"
	      ".BR valgrind (1),\n"
	      ".BR git-bisect (1);\n"
	      "docs/cli.md (every option), docs/formats.md (the formats read),"
	      " docs/statistics.md (how a change is judged real),"
	      " docs/history.md (the history and its commands),"
	      " docs/reports.md (the report formats), in perfdiff's"
	      " source and its installed documentation.\n",
	      f);
	pd_buf_release(&flag);
	pd_buf_release(&h);
}

/* Every long option of a command, space-separated, "--" included. */
static void long_list(FILE *f, unsigned cmd)
{
	size_t nt;
	const struct pd_optdef *table = pd_opts_table(&nt);
	size_t i, k;
	int n = 0;

	for (i = 0; i < nt; i++) {
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

/*
 * The values option d takes, space-separated, into b (empty for any):
 * a choice's names (the formats command bit writes, for -f), the input
 * formats for --from, the usual cache states for --cache (scenarios and
 * tools come from the history: history_field).
 */
static void option_values(struct pd_buf *b, const struct pd_optdef *d)
{
	size_t i;

	pd_buf_reset(b);
	if (d->kind == PD_OPT_CHOICE && d->choices) {
		for (i = 0; d->choices[i].name; i++) {
			const struct pd_choice *c = &d->choices[i];

			if (c->alias || (d->choices == pd_outfmt_choices &&
					 !(d->bits & PD_FMT(c->value))))
				continue;
			pd_buf_addf(b, "%s%s", b->len ? " " : "", c->name);
		}
	} else if (!strcmp(d->name, "from")) {
		const char *n;

		for (i = 0; (n = pd_format_name(i)); i++)
			pd_buf_addf(b, "%s%s", b->len ? " " : "", n);
	} else if (!strcmp(d->name, "cache")) {
		pd_buf_adds(b, "warm cold");
	}
}

/*
 * The field of `perfdiff runs -f tsv` (docs/cli.md, "runs") whose stored
 * values complete option d: the scenarios and tools of the history the
 * command line names (--db) or the default one; 0 for none.
 */
static int history_field(const struct pd_optdef *d)
{
	if (!strcmp(d->name, "scenario"))
		return 3;
	if (!strcmp(d->name, "tool"))
		return 5;
	return 0;
}

/* The fish lines of command c's options. */
static void fish_options(FILE *f, const struct pd_cmd *c)
{
	size_t nt, i, j;
	const struct pd_optdef *table = pd_opts_table(&nt);
	struct pd_buf h = PD_BUF_INIT, v = PD_BUF_INIT;

	for (i = 0; i < nt; i++) {
		const struct pd_optdef *d = &table[i];

		if (!(d->cmds & c->bit) || !d->help)
			continue;
		help_text(&h, d->help, d);
		for (j = 0; j < h.len; j++)
			if (h.buf[j] == '\n' || h.buf[j] == '\'')
				h.buf[j] = ' ';
		option_values(&v, d);
		if (!v.len && history_field(d))
			pd_buf_addf(&v, "(__fish_perfdiff_runs %d)",
				    history_field(d));
		fprintf(f,
			"complete -c perfdiff -n"
			" '__fish_seen_subcommand_from %s'"
			" -l %s%s%s%s%s -d '%.60s'\n",
			c->name, d->name, d->arg ? " -r" : "",
			v.len ? " -x -a '" : "", v.len ? v.buf : "",
			v.len ? "'" : "", h.buf);
	}
	pd_buf_release(&h);
	pd_buf_release(&v);
}

/* bash: a case on the word before the cursor, for command bit's values */
static void bash_values(FILE *f, unsigned bit)
{
	size_t nt, i;
	const struct pd_optdef *table = pd_opts_table(&nt);
	struct pd_buf v = PD_BUF_INIT;

	fputs("    case $prev in\n", f);
	for (i = 0; i < nt; i++) {
		const struct pd_optdef *d = &table[i];

		if (!(d->cmds & bit) || !d->help)
			continue;
		option_values(&v, d);
		if (!v.len && history_field(d))
			pd_buf_addf(&v, "$(_perfdiff_runs %d)",
				    history_field(d));
		if (!v.len)
			continue;
		fprintf(f, "    --%s", d->name);
		if (d->letter)
			fprintf(f, "|-%c", d->letter);
		fprintf(f, ") vals=\"%s\";;\n", v.buf);
	}
	fputs("    esac;;\n", f);
	pd_buf_release(&v);
}

int pd_opts_completion(FILE *f, const char *shell)
{
	size_t c, n;
	const struct pd_cmd *cmds = pd_cmd_table(&n);

	if (!strcmp(shell, "bash")) {
		fputs(
		    "# bash completion for perfdiff (perfdiff completion"
		    " bash)\n"
		    "# the stored values of one field of perfdiff runs -f tsv\n"
		    "_perfdiff_runs() {\n"
		    "  local db= i\n"
		    "  for ((i = 1; i < COMP_CWORD - 1; i++)); do\n"
		    "    [ \"${COMP_WORDS[i]}\" = --db ] &&"
		    " db=${COMP_WORDS[i+1]}\n"
		    "  done\n"
		    "  perfdiff runs ${db:+--db \"$db\"} -f tsv 2>/dev/null |"
		    " cut -f\"$1\" | sort -u\n"
		    "}\n"
		    "_perfdiff() {\n"
		    "  local cur=${COMP_WORDS[COMP_CWORD]} cmd=diff\n"
		    "  local cmds=\"",
		    f);
		for (c = 0; c < n; c++)
			fprintf(f, "%s%s", c ? " " : "", cmds[c].name);
		fputs("\"\n"
		      "  local prev=${COMP_WORDS[COMP_CWORD-1]} vals=\n"
		      "  if [ \"$COMP_CWORD\" -gt 1 ]; then\n"
		      "    case \" $cmds \" in *\" ${COMP_WORDS[1]} \"*)"
		      " cmd=${COMP_WORDS[1]};; esac\n  fi\n"
		      "  local opts\n  case $cmd in\n",
		      f);
		for (c = 0; c < n; c++) {
			if (!has_shown(cmds[c].bit))
				continue;
			fprintf(f, "  %s) opts=\"", cmds[c].name);
			long_list(f, cmds[c].bit);
			fputs("\"\n", f);
			bash_values(f, cmds[c].bit);
		}
		fputs("  *) opts=\"\";;\n  esac\n"
		      "  if [ -n \"$vals\" ]; then\n"
		      "    COMPREPLY=($(compgen -W \"$vals\" -- \"$cur\"))\n"
		      "  elif [ \"$COMP_CWORD\" -eq 1 ] && [ \"${cur#-}\" = "
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
		fputs(
		    "# fish completion for perfdiff (perfdiff completion"
		    " fish)\n"
		    "# the stored values of one field of perfdiff runs -f tsv\n"
		    "function __fish_perfdiff_runs\n"
		    "    set -l w (commandline -opc)\n"
		    "    set -l db\n"
		    "    for i in (seq (count $w))\n"
		    "        if test \"$w[$i]\" = --db; and test $i -lt (count"
		    " $w)\n"
		    "            set db --db $w[(math $i + 1)]\n"
		    "        end\n"
		    "    end\n"
		    "    perfdiff runs $db -f tsv 2>/dev/null | cut -f$argv[1] "
		    "|"
		    " sort -u\n"
		    "end\n",
		    f);
		for (c = 0; c < n; c++)
			fprintf(f,
				"complete -c perfdiff -n __fish_use_subcommand"
				" -a %s\n",
				cmds[c].name);
		for (c = 0; c < n; c++)
			fish_options(f, &cmds[c]);
		return 0;
	}
	return -1;
}

static const char *const kind_names[] = {
	"help", "flag", "bits", "text", "number", "choice", "list",
};

void pd_opts_dump(FILE *f)
{
	size_t nt, n, c, i, k;
	const struct pd_optdef *table = pd_opts_table(&nt);
	const struct pd_cmd *cmds = pd_cmd_table(&n);

	for (c = 0; c < n; c++)
		for (i = 0; i < nt; i++) {
			const struct pd_optdef *d = &table[i];

			if (!(d->cmds & cmds[c].bit))
				continue;
			fprintf(f, "%s\t--%s\t%s", cmds[c].name, d->name,
				kind_names[d->kind]);
			/* an alias: the row before it with the same place */
			for (k = 0; !d->help && k < i; k++)
				if ((table[k].cmds & cmds[c].bit) &&
				    table[k].help && table[k].off == d->off &&
				    table[k].kind == d->kind)
					fprintf(f, "=--%s", table[k].name);
			fprintf(f, "\t%s\n", d->arg ? d->arg : "");
		}
}
