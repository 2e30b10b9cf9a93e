/*
 * Records of one size read back in sorted order, in bounded memory: up to
 * a number of records are held and sorted in memory; past it, each full
 * batch is sorted and written to a temporary file of its own as a run,
 * and reading merges the runs (docs/formats.md, "Windows ETW traces": how
 * a trace of any length is read).
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifndef _WIN32
#include <sys/statvfs.h>
#endif

#include "core/buf.h"
#include "core/limits.h"
#include "core/sort.h"
#include "import/etl/etl_int.h"

/* Records a run's reader holds at once. */
#define RUN_BUF 1024

/*
 * Runs merged into one at a time: FANIN runs of one level become one run
 * of the next, so a table holds at most FANIN - 1 runs a level (a few
 * levels for the longest traces: open files stay few, 4 tables' worth
 * well under a process's limit), and each record is rewritten once a
 * level.
 */
#define FANIN 8

void pd_etl_table_init(struct etl_table *t, size_t size,
		       int (*cmp)(const void *, const void *), size_t cap)
{
	memset(t, 0, sizeof(*t));
	t->size = size;
	t->cmp = cmp;
	t->cap = cap < 2 ? 2 : cap;
}

void pd_etl_table_release(struct etl_table *t)
{
	size_t i;

	free(t->mem);
	for (i = 0; i < t->nruns; i++) {
		fclose(t->runs[i].f);
		if (t->spill)
			t->spill->bytes -= (uint64_t)t->runs[i].n * t->size;
	}
	free(t->runs);
	memset(t, 0, sizeof(*t));
}

/* Where the runs go: TMPDIR, else /tmp (on Windows the user's temporary
 * folder, as tmpfile() there chooses it). */
static const char *temp_dir(void)
{
#ifdef _WIN32
	return "the temporary folder";
#else
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
#endif
}

/* An anonymous file in temp_dir(), gone when closed; NULL with errno when
 * it cannot be made. */
static FILE *temp_file(void)
{
#ifdef _WIN32
	return tmpfile();
#else
	struct pd_buf b = PD_BUF_INIT;
	FILE *f = NULL;
	int fd;

	pd_buf_addf(&b, "%s/perfdiff-etl-XXXXXX", temp_dir());
	fd = mkstemp(b.buf);
	if (fd >= 0) {
		unlink(b.buf);
		f = fdopen(fd, "w+b");
		if (!f)
			close(fd);
	}
	pd_buf_release(&b);
	return f;
#endif
}

static int no_file(const char *path, struct pd_err *err)
{
	return pd_err_set(err, PD_EIO,
			  "%s: no temporary file for the trace's records in"
			  " %s: %s",
			  path, temp_dir(), strerror(errno));
}

static int write_failed(FILE *f, const char *path, struct pd_err *err)
{
	fclose(f);
	return pd_err_set(err, PD_EIO,
			  "%s: cannot write the trace's records to a"
			  " temporary file (disk full?)",
			  path);
}

/* Bytes free in temp_dir() for this user, or UINT64_MAX unknown. */
static uint64_t temp_free(void)
{
#ifdef _WIN32
	return UINT64_MAX;
#else
	struct statvfs v;

	if (statvfs(temp_dir(), &v) != 0)
		return UINT64_MAX;
	return (uint64_t)v.f_bavail * v.f_frsize;
#endif
}

/*
 * Whether n more bytes of runs fit the trace's cap (core/limits.h,
 * PD_LIMIT_ETL_SPILL), which the first run sets; an error when not.
 */
static int spill_room(struct etl_table *t, uint64_t n, const char *path,
		      struct pd_err *err)
{
	struct etl_spill *b = t->spill;
	uint64_t in, cap;
	char lim[256];

	if (!b)
		return 0;
	if (!b->capped) {
		b->cap = temp_free() / 2;
		b->capped = 1;
	}
	in = b->read ? *b->read : 0;
	cap = pd_limit_scaled(b->floor, b->ratio, in);
	if (b->bytes + n <= cap && b->bytes + n <= b->cap)
		return 0;
	if (b->cap < cap)
		return pd_err_set(err, PD_ETOOBIG,
				  "%s: the trace's records would take more"
				  " than half of the %llu bytes that were free"
				  " in %s (set TMPDIR to a folder with room)",
				  path, (unsigned long long)b->cap * 2,
				  temp_dir());
	snprintf(lim, sizeof(lim),
		 "%llu times the %llu bytes read, plus %llu: "
		 "PERFDIFF_LIMIT_ETL_SPILL=RATIO raises it",
		 b->ratio, (unsigned long long)in,
		 (unsigned long long)b->floor);
	return pd_err_set(err, PD_ETOOBIG,
			  "%s: over perfdiff's limit of %llu bytes of the"
			  " trace's records in temporary files (%s;"
			  " PD_LIMIT_ETL_SPILL in src/core/limits.h)",
			  path, (unsigned long long)cap, lim);
}

/* Appends the run in f (n records, of level) to t. */
static void add_run(struct etl_table *t, FILE *f, size_t n, unsigned level)
{
	t->runs = pd_xreallocarray(t->runs, t->nruns + 1, sizeof(*t->runs));
	t->runs[t->nruns].f = f;
	t->runs[t->nruns].n = n;
	t->runs[t->nruns++].level = level;
}

/* Merges t's last k runs into one run of level. */
static int merge_tail(struct etl_table *t, size_t k, unsigned level,
		      const char *path, struct pd_err *err)
{
	struct etl_cursor c;
	const void *r;
	FILE *f = temp_file();
	size_t n = 0, i;
	uint64_t merged = 0;
	int rc;

	for (i = t->nruns - k; i < t->nruns; i++)
		merged += (uint64_t)t->runs[i].n * t->size;
	/* the merged run is written before the k runs are let go */
	rc = spill_room(t, merged, path, err);
	if (rc) {
		if (f)
			fclose(f);
		return rc;
	}
	if (!f)
		return no_file(path, err);
	pd_etl_cursor_open_runs(&c, t, t->nruns - k, k);
	while ((rc = pd_etl_cursor_next(&c, &r, path, err)) > 0) {
		if (fwrite(r, t->size, 1, f) != 1) {
			pd_etl_cursor_close(&c);
			return write_failed(f, path, err);
		}
		n++;
	}
	pd_etl_cursor_close(&c);
	if (rc < 0) {
		fclose(f);
		return rc;
	}
	if (fflush(f) != 0)
		return write_failed(f, path, err);
	for (i = t->nruns - k; i < t->nruns; i++)
		fclose(t->runs[i].f);
	t->nruns -= k;
	add_run(t, f, n, level);
	/* the k runs' bytes are the merged run's now */
	return 0;
}

/* Sorts the records in memory and writes them as one more run; FANIN runs
 * of one level at the end are merged into one of the next. */
static int spill(struct etl_table *t, const char *path, struct pd_err *err)
{
	FILE *f;
	int rc = spill_room(t, (uint64_t)t->n * t->size, path, err);

	if (rc)
		return rc;
	f = temp_file();
	if (!f)
		return no_file(path, err);
	if (t->spill)
		t->spill->bytes += (uint64_t)t->n * t->size;
	pd_sort(t->mem, t->n, t->size, t->cmp);
	if (fwrite(t->mem, t->size, t->n, f) != t->n || fflush(f) != 0)
		return write_failed(f, path, err);
	add_run(t, f, t->n, 0);
	t->n = 0;
	while (t->nruns >= FANIN &&
	       t->runs[t->nruns - FANIN].level == t->runs[t->nruns - 1].level) {
		rc = merge_tail(t, FANIN, t->runs[t->nruns - 1].level + 1, path,
				err);
		if (rc)
			return rc;
	}
	return 0;
}

int pd_etl_table_push(struct etl_table *t, const void *rec, const char *path,
		      struct pd_err *err)
{
	if (t->n == t->cap) {
		int rc = spill(t, path, err);

		if (rc)
			return rc;
	}
	if (!t->mem)
		t->mem = pd_xreallocarray(NULL, t->cap, t->size);
	memcpy(t->mem + t->n * t->size, rec, t->size);
	t->n++;
	t->total++;
	return 0;
}

int pd_etl_table_sort(struct etl_table *t, const char *path, struct pd_err *err)
{
	if (t->nruns && t->n) {
		int rc = spill(t, path, err);

		if (rc)
			return rc;
	}
	if (!t->nruns) {
		pd_sort(t->mem, t->n, t->size, t->cmp);
		return 0;
	}
	free(t->mem);
	t->mem = NULL;
	/* at most FANIN runs to read together */
	while (t->nruns > FANIN) {
		int rc = merge_tail(
		    t, FANIN, t->runs[t->nruns - FANIN].level + 1, path, err);

		if (rc)
			return rc;
	}
	return 0;
}

void pd_etl_cursor_open_runs(struct etl_cursor *c, struct etl_table *t,
			     size_t first, size_t count)
{
	size_t i;

	assert(t->size <= sizeof(c->rec) && first + count <= t->nruns);
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->first = first;
	c->count = count;
	if (!count)
		return;
	c->runs = pd_xcalloc(count, sizeof(*c->runs));
	for (i = 0; i < count; i++) {
		rewind(t->runs[first + i].f);
		c->runs[i].left = t->runs[first + i].n;
		c->runs[i].buf = pd_xreallocarray(NULL, RUN_BUF, t->size);
	}
}

void pd_etl_cursor_open(struct etl_cursor *c, struct etl_table *t)
{
	pd_etl_cursor_open_runs(c, t, 0, t->nruns);
}

void pd_etl_cursor_close(struct etl_cursor *c)
{
	size_t i;

	for (i = 0; c->runs && i < c->count; i++)
		free(c->runs[i].buf);
	free(c->runs);
	memset(c, 0, sizeof(*c));
}

/* Fills run r's buffer when it is used up; 0, or an error. */
static int refill(struct etl_cursor *c, size_t i, const char *path,
		  struct pd_err *err)
{
	const struct etl_table *t = c->t;
	struct etl_reader *r = &c->runs[i];
	size_t want;

	if (r->pos < r->n || !r->left)
		return 0;
	want = r->left < RUN_BUF ? r->left : RUN_BUF;
	if (fread(r->buf, t->size, want, t->runs[c->first + i].f) != want)
		return pd_err_set(err, PD_EIO,
				  "%s: cannot read the trace's records back"
				  " from a temporary file",
				  path);
	r->left -= want;
	r->pos = 0;
	r->n = want;
	return 0;
}

int pd_etl_cursor_next(struct etl_cursor *c, const void **rec, const char *path,
		       struct pd_err *err)
{
	const struct etl_table *t = c->t;
	struct etl_reader *best = NULL;
	size_t i;

	if (!c->count) {
		if (c->i >= t->n)
			return 0;
		*rec = t->mem + c->i++ * t->size;
		return 1;
	}
	/* the least head of the runs (at most FANIN) */
	for (i = 0; i < c->count; i++) {
		struct etl_reader *r = &c->runs[i];
		int rc = refill(c, i, path, err);

		if (rc)
			return rc;
		if (r->pos < r->n &&
		    (!best || t->cmp(r->buf + r->pos * t->size,
				     best->buf + best->pos * t->size) < 0))
			best = r;
	}
	if (!best)
		return 0;
	memcpy(c->rec, best->buf + best->pos * t->size, t->size);
	best->pos++;
	*rec = c->rec;
	return 1;
}
