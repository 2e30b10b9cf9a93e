/*
 * Generates large, realistic inputs for the benchmark:
 *   gen perf MB SEED        perf script text (cpu-clock, -g call chains)
 *   gen speedscope MB SEED  PerfView-shaped evented speedscope JSON
 *   gen folded MB SEED      folded stacks
 * Stacks come from a fixed pool of call paths, so the number of distinct
 * stacks stays bounded however large the file: as in real profiles. SEED
 * changes the weights slightly, so two seeds make a baseline/candidate pair.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFUNC 3000
#define NPATH 4000
#define MAXDEPTH 40

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int depth[NPATH];
static int path[NPATH][MAXDEPTH];

static void make_paths(void)
{
	int i, d;

	for (i = 0; i < NPATH; i++) {
		depth[i] = 8 + (int)(next() % 24);
		path[i][0] = 0; /* main */
		/*
		 * A function calls a few others (three here), as real code
		 * does: stacks share their edges, and the number of distinct
		 * call sites stays near a real program's.
		 */
		for (d = 1; d < depth[i]; d++)
			path[i][d] = 1 + (int)(((unsigned)path[i][d - 1] * 7u +
						(unsigned)(next() % 3) * 997u) %
					       (NFUNC - 1));
	}
}

/* Skewed choice: a few paths are hot, as in real programs. */
static int pick_path(int seed)
{
	uint64_t r = next() % 1000000;
	int p = (int)((r * r / 1000000) * NPATH / 1000000);

	if (seed && p % 50 == 7 && next() % 10 < 3) /* candidate: some slower */
		return p;
	return NPATH - 1 - p;
}

static void gen_perf(double mb, int seed)
{
	uint64_t bytes = 0, limit = (uint64_t)(mb * 1e6);
	double t = 1000.0;

	while (bytes < limit) {
		int p = pick_path(seed), d;
		int n = printf("app %d/%d [%03d] %.6f: %10d cpu-clock:uhH: \n",
			       4242, 4242 + p % 8, p % 4, t, 1000000);

		bytes += (uint64_t)n;
		for (d = depth[p] - 1; d >= 0; d--) {
			int f = path[p][d];
			/*
			 * As in a real recording: a caller's frame is its call
			 * site, one address per (caller, callee); the leaf is
			 * wherever the sample landed, a few places per
			 * function. A real two-process recording has about
			 * 3 000 distinct frame lines.
			 */
			unsigned off =
			    d == depth[p] - 1
				? (unsigned)(next() % 4) * 4
				: (unsigned)((f * 2654435761u) ^
					     (unsigned)path[p][d + 1] *
						 40503u) %
				      400;

			n = printf("\t    %12llx %s_%d+0x%x (%s)\n",
				   0x7f0000000000ULL +
				       (unsigned long long)f * 1024 + off,
				   f % 3 ? "app::module::function" : "lib_call",
				   f, off,
				   f % 5 ? "/usr/lib/libapp.so.1"
					 : "/opt/app/bin/app");
			bytes += (uint64_t)n;
		}
		bytes += (uint64_t)printf("\n");
		t += 0.001;
	}
}

static void gen_folded(double mb, int seed)
{
	uint64_t bytes = 0, limit = (uint64_t)(mb * 1e6);

	while (bytes < limit) {
		int p = pick_path(seed), d, n = 0;

		for (d = 0; d < depth[p]; d++)
			n += printf("%sfunction_%d", d ? ";" : "", path[p][d]);
		n += printf(" %d\n", 1 + (int)(next() % 5));
		bytes += (uint64_t)n;
	}
}

static void gen_speedscope(double mb, int seed)
{
	uint64_t bytes = 0, limit = (uint64_t)(mb * 1e6);
	int i, th, nthreads = 8;
	double t = 0;

	bytes += (uint64_t)printf(
	    "{\"exporter\": "
	    "\"Microsoft.Diagnostics.Tracing.TraceEvent@3.1.23.0\","
	    " \"name\": \"bench\", \"activeProfileIndex\": 0, \"$schema\":"
	    " \"https://www.speedscope.app/file-format-schema.json\","
	    " \"shared\": { \"frames\": [ { \"name\": \"Process64 app (42)"
	    " Args: \" }, { \"name\": \"(Non-Activities)\" }, { \"name\":"
	    " \"Threads\" }");
	for (i = 0; i < nthreads; i++)
		printf(", { \"name\": \"Thread (%d) CPU=1ms\" }", 100 + i);
	printf(", { \"name\": \"CPU_TIME\" }");
	for (i = 0; i < NFUNC; i++)
		printf(", { \"name\": "
		       "\"App.Module%d!App.Namespace.Class%d.Method%d(int32,"
		       "class System.String)\" }",
		       i % 20, i / 7, i);
	printf(" ]}, \"profiles\": [");
	/* frames: 0..2 pseudo, 3..3+n-1 threads, 3+n CPU_TIME, then functions
	 */
	for (th = 0; th < nthreads; th++) {
		uint64_t share = limit / (uint64_t)nthreads, start = bytes;
		int open[MAXDEPTH + 8], nopen = 0, first = 1;

		printf("%s{\"type\": \"evented\", \"name\": \"Thread (%d) "
		       "CPU=1ms\","
		       " \"unit\": \"milliseconds\", \"startValue\": %.6f,"
		       " \"endValue\": 0, \"events\": [",
		       th ? ", " : "", 100 + th, t);
		open[nopen++] = 0;
		open[nopen++] = 1;
		open[nopen++] = 2;
		open[nopen++] = 3 + th;
		for (i = 0; i < 4; i++) {
			bytes +=
			    (uint64_t)printf("%s{ \"type\": \"O\", \"frame\": "
					     "%d, \"at\": %.6f }",
					     first ? "" : ", ", open[i], t);
			first = 0;
		}
		while (bytes - start < share) {
			int p = pick_path(seed), d, keep = 4;

			/* Close down to the common prefix, open the rest. */
			while (keep < nopen && keep - 4 < depth[p] &&
			       open[keep] == 4 + nthreads + path[p][keep - 4])
				keep++;
			while (nopen > keep)
				bytes += (uint64_t)printf(
				    ", { \"type\": \"C\", \"frame\": %d, "
				    "\"at\": %.6f }",
				    open[--nopen], t);
			for (d = nopen - 4; d < depth[p]; d++) {
				open[nopen++] = 4 + nthreads + path[p][d];
				bytes += (uint64_t)printf(
				    ", { \"type\": \"O\", \"frame\": %d, "
				    "\"at\": %.6f }",
				    open[nopen - 1], t);
			}
			if (next() % 4 ==
			    0) { /* CPU_TIME leaf, as EventPipe writes */
				bytes += (uint64_t)printf(
				    ", { \"type\": \"O\", \"frame\": %d, "
				    "\"at\": %.6f }",
				    3 + nthreads, t);
				t += 1.0 + (double)(next() % 3);
				bytes += (uint64_t)printf(
				    ", { \"type\": \"C\", \"frame\": %d, "
				    "\"at\": %.6f }",
				    3 + nthreads, t);
			} else {
				t += 1.0 + (double)(next() % 3);
			}
		}
		while (nopen > 0)
			bytes +=
			    (uint64_t)printf(", { \"type\": \"C\", \"frame\": "
					     "%d, \"at\": %.6f }",
					     open[--nopen], t);
		printf("]}");
	}
	printf("]}\n");
}

int main(int argc, char **argv)
{
	double mb;
	int seed;

	if (argc < 4) {
		fprintf(stderr, "usage: gen perf|speedscope|folded MB SEED\n");
		return 2;
	}
	mb = atof(argv[2]);
	seed = atoi(argv[3]);
	make_paths(); /* same paths for every seed */
	rng ^= (uint64_t)seed * 0x9e3779b97f4a7c15ULL;
	if (!strcmp(argv[1], "perf"))
		gen_perf(mb, seed);
	else if (!strcmp(argv[1], "speedscope"))
		gen_speedscope(mb, seed);
	else if (!strcmp(argv[1], "folded"))
		gen_folded(mb, seed);
	else
		return 2;
	return fflush(stdout) ? 1 : 0;
}
