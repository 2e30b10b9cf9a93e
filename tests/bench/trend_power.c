/*
 * How often `trend` finds a planted step, and how often it finds one
 * where there is none (docs/statistics.md, "Trends", the measured
 * table). Synthetic histories go through pd_trend_analyse as the
 * command runs it (1999 shuffles, 3 commits of persistence):
 *
 *   n commits of r runs; a function holding a share of the run's
 *   samples; each commit's runs share a night factor (log-normal,
 *   night CV), each run its own (run CV); from commit `at` on, the
 *   function's weight is (1 + step) times. Weights are either exact or
 *   sample counts (Poisson) of a run of `secs` seconds at 1999 Hz.
 *
 * A step counts as found for a series when it has a change point at
 * `at`; the null rate counts series with any change point.
 *
 * usage: bench_trend_power [SIMS [P [TABLES]]]   (200, 0.001, snc): the
 *        tables (s steps, n null histories, c sample counts)
 *        bench_trend_power SIMS P N SECS CV_RUN CV_NIGHT STEP AT SHARE [TAU]
 *        one history shape (AT = N: none)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xalloc.h"
#include "stats/trend.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static double tau = 0.05; /* the series' threshold */

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* Poisson: by products for small means, else a normal with continuity. */
static double poisson(double lambda)
{
	if (lambda < 40) {
		double l = exp(-lambda), p = 1;
		int k = -1;

		do {
			k++;
			p *= uniform();
		} while (p > l);
		return k;
	}
	return fmax(0, floor(lambda + sqrt(lambda) * gauss() + 0.5));
}

struct cfg {
	size_t n, runs, at;			    /* at == n: no step */
	double step, cv_run, cv_night, share, secs; /* secs 0: exact */
};

static void add_point(struct pd_tseries *s, const double *v, size_t n)
{
	struct pd_tpoint pt;
	size_t k;

	memset(&pt, 0, sizeof(pt));
	pt.sha = pd_xstrdup("c");
	pt.date = pd_xstrdup("");
	pt.n = n;
	pt.v = pd_xmalloc((n + 1) * sizeof(double));
	for (k = 0; k < n; k++) {
		pt.v[k] = v[k];
		pt.mean += v[k] / (double)n;
	}
	pt.lo = pt.hi = v[0];
	PD_VEC_PUSH(&s->pts, pt);
}

/* One history: series 0 the total, 1 the function. */
static void history(struct pd_trend *t, const struct cfg *c, double pmax)
{
	struct pd_tseries s[2];
	double tot[64], fn[64];
	size_t i, k;

	memset(t, 0, sizeof(*t));
	memset(s, 0, sizeof(s));
	t->pmax = pmax;
	t->ncommits = c->n;
	s[0].name = pd_xstrdup("total");
	s[1].name = pd_xstrdup("parse_record");
	s[0].tau = s[1].tau = tau;
	for (i = 0; i < c->n; i++) {
		double night = exp(c->cv_night * gauss());

		for (k = 0; k < c->runs; k++) {
			double f = night * exp(c->cv_run * gauss());
			double st = i >= c->at ? 1 + c->step : 1;
			double lf = c->share * f * st, lr = (1 - c->share) * f;

			if (c->secs > 0) {
				lf = poisson(lf * c->secs * 1999);
				lr = poisson(lr * c->secs * 1999);
			}
			fn[k] = lf;
			tot[k] = lf + lr;
		}
		add_point(&s[0], tot, c->runs);
		add_point(&s[1], fn, c->runs);
	}
	PD_VEC_PUSH(&t->series, s[0]);
	PD_VEC_PUSH(&t->series, s[1]);
}

static int has_at(const struct pd_tseries *s, size_t at, int any)
{
	size_t k;

	for (k = 0; k < s->changes.n; k++)
		if (any || s->changes.v[k].at == at)
			return 1;
	return 0;
}

/* Share of sims finding the step in the total, in the function. */
static void run(const struct cfg *c, int sims, double pmax, double *ft,
		double *ff)
{
	int i, nt = 0, nf = 0;

	for (i = 0; i < sims; i++) {
		struct pd_trend t;

		history(&t, c, pmax);
		pd_trend_analyse(&t, 1999, 3);
		nt += has_at(&t.series.v[0], c->at, c->at >= c->n);
		nf += has_at(&t.series.v[1], c->at, c->at >= c->n);
		pd_trend_release(&t);
	}
	*ft = (double)nt / sims;
	*ff = (double)nf / sims;
}

/* Detection at the step's commit, exact weights (the total is the function). */
static void table_steps(int sims, double pmax)
{
	static const size_t ns[] = { 8, 9, 12, 16 };
	static const double steps[] = { 0.20, 0.26, 0.40 };
	static const double cvr[] = { 0.01, 0.03, 0.05 };
	static const double cvn[] = { 0, 0.02, 0.04 };
	size_t a, b, d, e, w;

	printf("## steps found at their commit (exact weights)\n");
	printf("%-4s %-6s %-6s %-5s %-4s %s\n", "n", "cv_run", "night", "step",
	       "at", "found");
	for (a = 0; a < 4; a++)
		for (d = 0; d < 3; d++)
			for (e = 0; e < 3; e++)
				for (b = 0; b < 3; b++)
					for (w = 0; w < 2; w++) {
						struct cfg c;
						double ft, ff;

						memset(&c, 0, sizeof(c));
						c.n = ns[a];
						c.runs = 3;
						c.cv_run = cvr[d];
						c.cv_night = cvn[e];
						c.share = 1;
						c.step = steps[b];
						c.at = w ? c.n - 3 : c.n / 2;
						run(&c, sims, pmax, &ft, &ff);
						printf("%-4zu %-6.2f %-6.2f "
						       "%-5.2f "
						       "%-4zu %.3f\n",
						       c.n, c.cv_run,
						       c.cv_night, c.step, c.at,
						       ff);
					}
}

/* Null histories: series with any change point, raw and at 5 %. */
static void table_null(int sims, double pmax)
{
	static const size_t ns[] = { 8, 9, 12, 16, 20 };
	static const double cvr[] = { 0.005, 0.01, 0.03 };
	static const double cvn[] = { 0, 0.02, 0.04 };
	size_t a, d, e;

	printf("## null histories: series with a change point\n");
	printf("%-4s %-6s %-6s %-8s %s\n", "n", "cv_run", "night", "raw",
	       "tau 5%");
	for (a = 0; a < 5; a++)
		for (d = 0; d < 3; d++)
			for (e = 0; e < 3; e++) {
				struct cfg c;
				double ft, ff, gt, gf;

				memset(&c, 0, sizeof(c));
				c.n = ns[a];
				c.runs = 3;
				c.cv_run = cvr[d];
				c.cv_night = cvn[e];
				c.share = 1;
				c.at = c.n;
				tau = 0.001;
				run(&c, sims, pmax, &ft, &ff);
				tau = 0.05;
				run(&c, sims, pmax, &gt, &gf);
				printf("%-4zu %-6.3f %-6.2f %-8.4f %.4f\n", c.n,
				       c.cv_run, c.cv_night, ff, gf);
			}
}

/* Sample counts of 0.3 s and 0.65 s runs at 1999 Hz. */
static void table_counts(int sims, double pmax)
{
	static const double secs[] = { 0.3, 0.65 };
	static const size_t at[] = { 4, 6, 9 };
	size_t g, w;

	printf("## sample counts, 9 commits, run CV 1 %%, night CV 1 %%, "
	       "function 50 %% of the run, +26 %%\n");
	printf("%-5s %-4s %-7s %s\n", "secs", "at", "total", "func");
	for (g = 0; g < 2; g++)
		for (w = 0; w < 3; w++) {
			struct cfg c;
			double ft, ff;

			memset(&c, 0, sizeof(c));
			c.n = 9;
			c.runs = 3;
			c.cv_run = 0.01;
			c.cv_night = 0.01;
			c.share = 0.5;
			c.secs = secs[g];
			c.step = 0.26;
			c.at = at[w];
			run(&c, sims, pmax, &ft, &ff);
			printf("%-5.2f %-4s %-7.3f %.3f\n", c.secs,
			       at[w] < 9 ? (at[w] == 4 ? "4" : "6") : "null",
			       ft, ff);
		}
}

int main(int argc, char **argv)
{
	int sims = argc > 1 ? atoi(argv[1]) : 200;
	double pmax = argc > 2 ? atof(argv[2]) : 0.001;

	if (argc > 9) {
		struct cfg c;
		double ft, ff;

		memset(&c, 0, sizeof(c));
		c.n = (size_t)atoi(argv[3]);
		c.runs = 3;
		c.secs = atof(argv[4]);
		c.cv_run = atof(argv[5]);
		c.cv_night = atof(argv[6]);
		c.step = atof(argv[7]);
		c.at = (size_t)atoi(argv[8]);
		c.share = atof(argv[9]);
		if (argc > 10)
			tau = atof(argv[10]);
		run(&c, sims, pmax, &ft, &ff);
		printf("total %.5f func %.5f\n", ft, ff);
		return 0;
	}
	printf("# %d histories a line, p %g, 3 runs a commit\n", sims, pmax);
	if (argc <= 3 || strchr(argv[3], 's'))
		table_steps(sims, pmax);
	if (argc <= 3 || strchr(argv[3], 'n'))
		table_null(5 * sims, pmax);
	if (argc <= 3 || strchr(argv[3], 'c'))
		table_counts(sims, pmax);
	return 0;
}
