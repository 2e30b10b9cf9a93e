/*
 * The one command-line parser (cmd/parse.h): every command's argv is read
 * here, against the option table, and every value is checked and stored
 * where the table says.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/parse.h"
#include "core/buf.h"
#include "core/vec.h"
#include "core/xalloc.h"

static const char *cmd_name(unsigned cmd)
{
	size_t i, n;
	const struct pd_cmd *t = pd_cmd_table(&n);

	for (i = 0; i < n; i++)
		if (t[i].bit == cmd)
			return t[i].name;
	return "";
}

/*
 * -h of command name: its usage lines (from the tables), about (or, when
 * NULL, the command's summary as a sentence), the options' help.
 */
static void show_help(const char *name, const char *about, unsigned cmd)
{
	const struct pd_cmd *c = pd_cmd_find(name);
	struct pd_buf b = PD_BUF_INIT;

	assert(c);
	pd_opts_usage(&b, c, "usage: ");
	if (about)
		pd_buf_addf(&b, "\n%s\n", about);
	else
		pd_buf_addf(&b, "\n%c%s.\n\n",
			    toupper((unsigned char)c->summary[0]),
			    c->summary + 1);
	fputs(b.buf, stdout);
	pd_buf_release(&b);
	pd_opts_help(stdout, cmd);
}

/*
 * "error: unknown option ARG" with the nearest long option command cmd
 * takes when one is within two edits ("did you mean --threshold?"), and
 * where help is (perfdiff help NAME).
 */
static void unknown_option(const char *arg, unsigned cmd)
{
	size_t nt, i, n, bd = 0;
	const struct pd_optdef *table = pd_opts_table(&nt);
	const char *best = NULL;
	char name[64];

	if (!strncmp(arg, "--", 2)) {
		n = strcspn(arg + 2, "=");
		if (n < sizeof(name)) {
			memcpy(name, arg + 2, n);
			name[n] = 0;
			/* two edits in a long name, one in a short one */
			bd = n >= 6 ? 3 : 2;
			for (i = 0; i < nt; i++) {
				size_t d;

				if (!(table[i].cmds & cmd))
					continue;
				d = pd_edit_distance(name, table[i].name);
				if (d < bd) {
					bd = d;
					best = table[i].name;
				}
			}
		}
	}
	if (best)
		pd_error("error: unknown option %s; did you mean --%s?"
			 " (perfdiff help %s)",
			 arg, best, cmd_name(cmd));
	else
		pd_error("error: unknown option %s (perfdiff help %s)", arg,
			 cmd_name(cmd));
}

/* "a, b or c": the names of choices (only those in set when not 0). */
static void choice_names(struct pd_buf *b, const struct pd_choice *c,
			 unsigned set)
{
	size_t n = 0, k = 0;
	const struct pd_choice *x;

	for (x = c; x->name; x++)
		n += !x->alias && (!set || (set & (1u << x->value)));
	for (x = c; x->name; x++) {
		if (x->alias || (set && !(set & (1u << x->value))))
			continue;
		pd_buf_addf(b, "%s%s", k ? (k + 1 == n ? " or " : ", ") : "",
			    x->name);
		k++;
	}
}

/* Stores v at p as num says. */
static void store(void *p, enum pd_optnum num, double v)
{
	switch (num) {
	case PD_NUM_DOUBLE:
		*(double *)p = v;
		break;
	case PD_NUM_PERCENT:
		*(double *)p = v / 100;
		break;
	case PD_NUM_INT:
		*(int *)p = (int)v;
		break;
	case PD_NUM_SIZE:
		*(size_t *)p = (size_t)v;
		break;
	case PD_NUM_CHAR:
		*(char *)p = (char)v;
		break;
	}
}

/* A choice's value, or -1 after the message. */
static int choose(const struct pd_optdef *d, const char *opt, const char *v,
		  unsigned cmd, void *p)
{
	const struct pd_choice *c;
	struct pd_buf b = PD_BUF_INIT;

	for (c = d->choices; c->name && strcmp(c->name, v); c++)
		;
	if (c->name && (!d->bits || (d->bits & (1u << c->value)))) {
		store(p, d->num, c->value);
		return 0;
	}
	choice_names(&b, d->choices, d->bits);
	if (d->choices != pd_outfmt_choices)
		pd_error("error: %s wants %s", opt, b.buf);
	else if (!c->name)
		pd_error("error: unknown output format '%s' (%s writes %s)", v,
			 cmd_name(cmd), b.buf);
	else
		pd_error("error: -%c %s: %s writes %s", d->letter, v,
			 cmd_name(cmd), b.buf);
	pd_buf_release(&b);
	return -1;
}

/*
 * Row d given with value v (NULL for a flag) to a: 0, or -1 after the
 * message. opt is the option's name for messages ("--top").
 */
static int apply(struct pd_args *a, const struct pd_optdef *d, const char *v)
{
	void *p = (char *)a + d->off;
	char opt[80];
	char *end;
	double x;

	snprintf(opt, sizeof(opt), "--%s", d->name);
	switch (d->kind) {
	case PD_OPT_HELP:
		return 0;
	case PD_OPT_FLAG:
		*(int *)p = 1;
		return 0;
	case PD_OPT_BITS:
		*(unsigned *)p |= d->bits;
		return 0;
	case PD_OPT_TEXT:
		if (d->check && d->check(opt, &v, a->cmd))
			return -1;
		*(const char **)p = v;
		return 0;
	case PD_OPT_NUMBER:
		errno = 0;
		x = strtod(v, &end);
		if (end == v || *end || errno || isnan(x) || x < d->lo ||
		    x > d->hi) {
			pd_error("error: %s wants a number from %g to %g, not"
				 " '%s'",
				 opt, d->lo, d->hi, v);
			return -1;
		}
		store(p, d->num, x);
		return 0;
	case PD_OPT_CHOICE:
		return choose(d, opt, v, a->cmd, p);
	case PD_OPT_LIST:
		PD_VEC_PUSH((struct pd_strlist *)p, v);
		return 0;
	}
	return 0;
}

static int takes_value(const struct pd_optdef *d)
{
	return d->kind >= PD_OPT_TEXT;
}

/*
 * The row of long option name (n bytes) for command cmd: its exact name,
 * else the one whose name it begins (rows that spell one option, as
 * --color and --colour, count once). NULL after the message.
 */
static const struct pd_optdef *find_long(const char *arg, const char *name,
					 size_t n, unsigned cmd)
{
	size_t nt, i;
	const struct pd_optdef *t = pd_opts_table(&nt), *hit = NULL;
	int many = 0;

	for (i = 0; i < nt && n; i++)
		if ((t[i].cmds & cmd) && strlen(t[i].name) == n &&
		    !strncmp(t[i].name, name, n))
			return &t[i];
	for (i = 0; i < nt && n; i++) {
		if (!(t[i].cmds & cmd) || strncmp(t[i].name, name, n))
			continue;
		if (hit && (hit->off != t[i].off || hit->kind != t[i].kind))
			many = 1;
		hit = hit ? hit : &t[i];
	}
	if (!hit) {
		unknown_option(arg, cmd);
		return NULL;
	}
	if (many) {
		struct pd_buf b = PD_BUF_INIT;

		for (i = 0; i < nt; i++)
			if ((t[i].cmds & cmd) && t[i].help &&
			    !strncmp(t[i].name, name, n))
				pd_buf_addf(&b, " --%s", t[i].name);
		pd_error("error: option %.*s is ambiguous:%s (perfdiff help"
			 " %s)",
			 (int)strcspn(arg, "="), arg, b.buf, cmd_name(cmd));
		pd_buf_release(&b);
		return NULL;
	}
	return hit;
}

/* argv[*i], a long option; 0 to go on, else the exit status. */
static int long_option(struct pd_args *a, const char *const help[2], int argc,
		       char **argv, int *i)
{
	const char *arg = argv[*i], *name = arg + 2, *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);
	const struct pd_optdef *d = find_long(arg, name, n, a->cmd);
	const char *v = eq ? eq + 1 : NULL;

	if (!d)
		return 2;
	if (!takes_value(d) && v) {
		pd_error("error: option --%s takes no value", d->name);
		return 2;
	}
	if (takes_value(d) && !v) {
		if (*i + 1 >= argc) {
			pd_error("error: option %s needs a value", arg);
			return 2;
		}
		v = argv[++*i];
	}
	if (d->kind == PD_OPT_HELP) {
		show_help(help[0], help[1], a->cmd);
		return 0;
	}
	return apply(a, d, v) ? 2 : -1;
}

/* argv[*i], one or more short options; -1 to go on, else the status. */
static int short_options(struct pd_args *a, const char *const help[2], int argc,
			 char **argv, int *i)
{
	const char *s = argv[*i] + 1;
	size_t nt, k;
	const struct pd_optdef *t = pd_opts_table(&nt);

	for (; *s; s++) {
		const struct pd_optdef *d = NULL;
		const char *v = NULL;
		char given[3] = { '-', *s, 0 };

		for (k = 0; k < nt && !d; k++)
			if ((t[k].cmds & a->cmd) && t[k].letter == *s)
				d = &t[k];
		if (!d) {
			unknown_option(given, a->cmd);
			return 2;
		}
		if (d->kind == PD_OPT_HELP) {
			show_help(help[0], help[1], a->cmd);
			return 0;
		}
		if (takes_value(d)) {
			if (s[1])
				v = s + 1;
			else if (*i + 1 < argc)
				v = argv[++*i];
			else {
				pd_error("error: option %s needs a value",
					 given);
				return 2;
			}
		}
		if (apply(a, d, v))
			return 2;
		if (v)
			return -1;
	}
	return -1;
}

/* The first format of the command's -f (help says it is the default). */
static int default_format(unsigned cmd)
{
	size_t nt, i;
	const struct pd_optdef *t = pd_opts_table(&nt);
	const struct pd_choice *c;

	for (i = 0; i < nt; i++)
		if ((t[i].cmds & cmd) && t[i].choices == pd_outfmt_choices)
			for (c = pd_outfmt_choices; c->name; c++)
				if (t[i].bits & (1u << c->value))
					return c->value;
	return PD_FMT_TEXT;
}

static void defaults(struct pd_args *a, unsigned cmd, int argc)
{
	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	a->ops = pd_xcalloc((size_t)argc + 1, sizeof(*a->ops));
	pd_settings_default(&a->set);
	a->ro.top = 20;
	a->show_top = 30;
	a->q.top = 10;
	a->q.threshold_pct = 5;
	a->pmax = 0.001;
	a->pages = 30;
	a->db = pd_db_default_path();
	a->fmt = default_format(cmd);
}

/* What the values make together; -1 to go on, or 2 after a message. */
static int finish(struct pd_args *a)
{
	if (a->symbols.n) {
		/* a NULL-terminated list, as the importers take it */
		PD_VEC_PUSH(&a->symbols, NULL);
		a->symbols.n--;
		a->io.symbol_dirs = a->symbols.v;
	}
	a->flags |= (unsigned)a->system;
	a->ro.sort = (enum pd_sort)a->sort;
	a->ro.color = a->color == 1 || (a->color == 0 && !a->output &&
					isatty(1) && !getenv("NO_COLOR"));
	if (a->fmt == PD_FMT_XLSX && !a->output) {
		pd_error("error: -f xlsx needs -o FILE.xlsx");
		return 2;
	}
	/* A bad -o is said before any work, not after it. */
	if (a->output && pd_out_check_say(a->output, a->fmt == PD_FMT_XLSX))
		return 2;
	return -1;
}

int pd_parse(const char *name, const char *about, int argc, char **argv,
	     struct pd_args *a)
{
	const char *const help[2] = { name, about };
	int i, rc = -1, only_operands = 0;

	defaults(a, pd_opts_cmd(name), argc);
	for (i = 1; i < argc && rc < 0; i++) {
		const char *s = argv[i];

		if (only_operands || s[0] != '-' || !s[1])
			a->ops[a->nops++] = argv[i];
		else if (!strcmp(s, "--"))
			only_operands = 1;
		else if (s[1] == '-')
			rc = long_option(a, help, argc, argv, &i);
		else
			rc = short_options(a, help, argc, argv, &i);
	}
	return rc >= 0 ? rc : finish(a);
}

void pd_args_release(struct pd_args *a)
{
	PD_VEC_FREE(&a->symbols);
	PD_VEC_FREE(&a->base);
	PD_VEC_FREE(&a->cand);
	PD_VEC_FREE(&a->datasets);
	free(a->ops);
	a->ops = NULL;
	if (a->have_fre)
		regfree(&a->fre);
	a->have_fre = 0;
}
