/*
 * The perf.data file itself (docs/formats.md, "perf.data read directly"):
 * header, event attributes and their ids, the feature sections read
 * (build ids, host name, kernel release, event names), the record stream
 * in bounded memory, and the first pass over it (mappings, thread names,
 * forks). Sizes and offsets are checked against the file before use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/sort.h"
#include "core/xalloc.h"
#include "import/perf/perfdata.h"
#include "import/perf/perfdata_int.h"

int pd_pdd_bad(struct pdd *d, struct pd_err *err, uint64_t off,
	       const char *what)
{
	return pd_err_set(err, PD_EPARSE, "%s: byte %llu: %s", d->path,
			  (unsigned long long)off, what);
}

int pd_pdd_use_perf(struct pdd *d, const char *why)
{
	pd_buf_reset(&d->why);
	pd_buf_adds(&d->why, why);
	return PDD_USE_PERF;
}

/* n bytes at off, all of them, into b. */
static int read_at(struct pdd *d, uint64_t off, void *b, size_t n)
{
	return pd_pread_full(d->fd, b, n, off);
}

/* A section of at most MAX_META bytes, read whole (owned), or NULL. */
static unsigned char *read_section(struct pdd *d, uint64_t off, uint64_t n)
{
	unsigned char *b;

	if (n > MAX_META)
		return NULL;
	b = pd_xmalloc((size_t)n + 1);
	if (read_at(d, off, b, (size_t)n)) {
		free(b);
		return NULL;
	}
	b[n] = 0;
	return b;
}

/* ---- header, attributes, features ---- */

static const char *event_name(uint64_t type, uint64_t config)
{
	static const char *const hw[] = { "cycles",
					  "instructions",
					  "cache-references",
					  "cache-misses",
					  "branches",
					  "branch-misses",
					  "bus-cycles",
					  "stalled-cycles-frontend",
					  "stalled-cycles-backend",
					  "ref-cycles" };
	static const char *const sw[] = {
		"cpu-clock",	    "task-clock",
		"page-faults",	    "context-switches",
		"cpu-migrations",   "minor-faults",
		"major-faults",	    "alignment-faults",
		"emulation-faults", "dummy"
	};

	if (type == 0 && config < sizeof(hw) / sizeof(*hw))
		return hw[config];
	if (type == 1 && config < sizeof(sw) / sizeof(*sw))
		return sw[config];
	return NULL;
}

static int read_attrs(struct pdd *d, const unsigned char *h, struct pd_err *err)
{
	uint64_t asize = u64at(h + 16), off = u64at(h + 24), n = u64at(h + 32);
	unsigned char *b, *e;
	uint64_t i, k;

	if (asize < 64 + 16 || n % asize || !n)
		return pd_pdd_bad(d, err, 16,
				  "attribute size does not fit the file");
	b = read_section(d, off, n);
	if (!b)
		return pd_pdd_bad(d, err, off, "the attributes are cut short");
	for (i = 0; i < n / asize; i++) {
		struct pdd_attr a;
		uint64_t idoff, idn;
		unsigned char *ids;
		const char *nm;

		e = b + i * asize;
		memset(&a, 0, sizeof(a));
		a.type = u32at(e);
		a.config = u64at(e + 8);
		a.period = u64at(e + 16);
		a.sample_type = u64at(e + 24);
		a.read_format = u64at(e + 32);
		a.flags = u64at(e + 40);
		if (asize - 16 >= 80)
			a.branch_type = u64at(e + 72);
		if (asize - 16 >= 96)
			a.stack_user = u32at(e + 88);
		nm = event_name(a.type, a.config);
		if (nm)
			a.name = pd_xstrdup(nm);
		else {
			char raw[64];

			snprintf(raw, sizeof(raw), "raw:%llu:%llx",
				 (unsigned long long)a.type,
				 (unsigned long long)a.config);
			a.name = pd_xstrdup(raw);
		}
		idoff = u64at(e + asize - 16);
		idn = u64at(e + asize - 8);
		PD_VEC_PUSH(&d->attrs, a);
		ids = idn ? read_section(d, idoff, idn) : NULL;
		if (idn && !ids) {
			free(b);
			return pd_pdd_bad(d, err, idoff,
					  "an event's ids are cut short");
		}
		for (k = 0; k + 8 <= idn; k += 8) {
			struct pdd_idmap m = { u64at(ids + k), (size_t)i };

			PD_VEC_PUSH(&d->ids, m);
		}
		free(ids);
	}
	free(b);
	return 0;
}

/* A perf header string: u32 length, then that many bytes (NUL-padded). */
static char *header_string(const unsigned char *b, uint64_t n, uint64_t *at)
{
	uint32_t len;

	if (*at + 4 > n)
		return NULL;
	len = u32at(b + *at);
	if (len > n - *at - 4)
		return NULL;
	*at += 4 + (uint64_t)len;
	return pd_xstrndup((const char *)b + *at - len, len);
}

/* A build id's bytes as lowercase hex (at most 20 bytes). */
static void hex_id(char out[41], const unsigned char *id, size_t n)
{
	size_t k;

	if (n > 20)
		n = 20;
	for (k = 0; k < n; k++)
		snprintf(out + 2 * k, 3, "%02x", id[k]);
	out[2 * n] = 0;
}

/* The DSO of an interned file name, made on first sight. */
static struct pdd_dso *dso_named(struct pdd *d, uint32_t name)
{
	while (d->dso_of.n <= name)
		PD_VEC_PUSH(&d->dso_of, UINT32_MAX);
	if (d->dso_of.v[name] == UINT32_MAX) {
		struct pdd_dso x;

		memset(&x, 0, sizeof(x));
		x.name = pd_xstrdup(pd_intern_str(&d->strs, name));
		d->dso_of.v[name] = (uint32_t)d->syms.dsos.n;
		PD_VEC_PUSH(&d->syms.dsos, x);
	}
	return &d->syms.dsos.v[d->dso_of.v[name]];
}

static void feat_build_ids(struct pdd *d, const unsigned char *b, uint64_t n)
{
	uint64_t at = 0;

	while (at + 36 <= n) {
		uint16_t misc = u16at(b + at + 4), size = u16at(b + at + 6);
		const unsigned char *id = b + at + 12;
		size_t idn = misc & (1u << 15) ? id[20] : 20;
		const char *fn = (const char *)b + at + 36;
		uint32_t name;
		char hex[41];

		if (size < 36 || size > n - at)
			break;
		hex_id(hex, id, idn);
		name = pd_intern(&d->strs, fn, strnlen(fn, size - 36u));
		if (!strcmp(pd_intern_str(&d->strs, name),
			    "[kernel.kallsyms]") &&
		    (misc & MISC_CPUMODE) == MISC_KERNEL)
			memcpy(d->syms.kernel_bid, hex, sizeof(hex));
		{
			struct pdd_dso *o = dso_named(d, name);

			if (!o->bid[0]) /* the first id recorded for the name */
				memcpy(o->bid, hex, sizeof(hex));
		}
		at += size;
	}
}

static void feat_event_desc(struct pdd *d, const unsigned char *b, uint64_t n)
{
	uint64_t at = 8, i, nr, asize;

	if (n < 8)
		return;
	nr = u32at(b);
	asize = u32at(b + 4);
	for (i = 0; i < nr && at + asize + 4 <= n; i++) {
		uint32_t nids;
		char *name;

		at += asize;
		nids = u32at(b + at);
		at += 4;
		name = header_string(b, n, &at);
		if (!name)
			return;
		at += (uint64_t)nids * 8;
		if (i < d->attrs.n) {
			free(d->attrs.v[i].name);
			d->attrs.v[i].name = name;
		} else {
			free(name);
		}
	}
}

static void read_features(struct pdd *d, const unsigned char *h)
{
	uint64_t off = d->data_off + d->data_size, bits[4];
	unsigned bit, k = 0;

	memcpy(bits, h + 72, sizeof(bits));
	for (bit = 0; bit < 256; bit++) {
		unsigned char sec[16], *b;
		uint64_t so, sn, at = 0;

		if (!(bits[bit / 64] >> (bit % 64) & 1))
			continue;
		if (read_at(d, off + 16 * (uint64_t)k++, sec, 16))
			return;
		if (bit != FEAT_BUILD_ID && bit != FEAT_HOSTNAME &&
		    bit != FEAT_OSRELEASE && bit != FEAT_EVENT_DESC &&
		    bit != FEAT_TRACING_DATA)
			continue;
		so = u64at(sec);
		sn = u64at(sec + 8);
		b = read_section(d, so, sn);
		if (!b)
			continue;
		if (bit == FEAT_BUILD_ID)
			feat_build_ids(d, b, sn);
		else if (bit == FEAT_EVENT_DESC)
			feat_event_desc(d, b, sn);
		else if (bit == FEAT_TRACING_DATA) {
			/* read by perfdata_sched.c once the header is in */
			free(d->tracing);
			d->tracing = b;
			d->tracing_n = sn;
			continue;
		} else if (bit == FEAT_HOSTNAME)
			d->syms.hostname = header_string(b, sn, &at);
		else
			d->syms.osrelease = header_string(b, sn, &at);
		free(b);
	}
}

size_t pd_pdd_attr_of(const struct pdd *d, uint64_t id)
{
	size_t lo;

	PD_LOWER_BOUND(lo, d->ids.v, d->ids.n, id, id);
	return lo < d->ids.n && d->ids.v[lo].id == id ? d->ids.v[lo].attr
						      : SIZE_MAX;
}

/* What perf script must read instead, or 0 when this reader can. */
static int needs_perf(struct pdd *d)
{
	size_t i;

	for (i = 0; i < d->attrs.n; i++) {
		const struct pdd_attr *a = &d->attrs.v[i];

		if ((a->sample_type & S_STACK_USER) && a->stack_user)
			return pd_pdd_use_perf(d,
					       "DWARF call graphs (--call-graph"
					       " dwarf) are unwound by perf");
		if ((a->sample_type & S_BRANCH_STACK) &&
		    (a->branch_type & (1u << 11)))
			return pd_pdd_use_perf(d,
					       "LBR call stacks (--call-graph"
					       " lbr) are stitched by perf");
		if ((a->sample_type ^ d->attrs.v[0].sample_type) &
		    (S_IDENTIFIER | S_IP | S_TID | S_TIME | S_ADDR | S_ID))
			return pd_pdd_use_perf(d,
					       "events whose samples are laid"
					       " out differently");
	}
	if (d->attrs.n > 1 &&
	    !(d->attrs.v[0].sample_type & (S_IDENTIFIER | S_ID)))
		return pd_pdd_use_perf(d, "several events without sample ids");
	return 0;
}

int pd_pdd_read_header(struct pdd *d, struct pd_err *err)
{
	unsigned char h[HEADER_SIZE];
	struct stat st;
	int rc;

	if (fstat(d->fd, &st) || read_at(d, 0, h, 16))
		return pd_pdd_bad(d, err, 0,
				  "not a perf.data file (too short)");
	if (!memcmp(h, "2ELIFREP", 8))
		return pd_pdd_use_perf(d,
				       "a recording from a big-endian machine");
	if (memcmp(h, "PERFILE2", 8))
		return pd_pdd_bad(d, err, 0,
				  "not a perf.data file (no PERFILE2)");
	if (u64at(h + 8) != HEADER_SIZE)
		return pd_pdd_use_perf(d,
				       "a piped recording (perf record -o -)");
	if (read_at(d, 0, h, HEADER_SIZE))
		return pd_pdd_bad(d, err, 16, "the header is cut short");
	d->data_off = u64at(h + 40);
	d->data_size = u64at(h + 48);
	if (d->data_off > (uint64_t)st.st_size ||
	    d->data_size > (uint64_t)st.st_size - d->data_off)
		return pd_pdd_bad(
		    d, err, 40,
		    "the data section runs past the end of the file"
		    " (perf record did not finish?)");
	if (!d->data_size && d->data_off < (uint64_t)st.st_size) {
		/* perf record was killed before it wrote the sizes */
		d->unfinished = 1;
		d->data_size = (uint64_t)st.st_size - d->data_off;
	}
	if (!d->data_size)
		return pd_pdd_bad(d, err, 48, "the data section is empty");
	rc = read_attrs(d, h, err);
	if (rc)
		return rc;
	if (!d->unfinished)
		read_features(d, h);
	d->trailer_type = d->attrs.v[0].sample_type;
	if (!(d->attrs.v[0].flags & (1u << 18)))
		d->trailer_type = 0; /* no sample_id_all */
	return needs_perf(d);
}

/* ---- the record stream ---- */

void pd_pdd_rewind_data(struct pdd *d)
{
	d->len = d->pos = 0;
	d->buf_off = d->data_off;
}

/*
 * The next record of the data section: 1 with *rec and *size set, 0 at
 * its end, an error code for a damaged one. A record is at most 64 KiB
 * (its size is 16 bits), so the buffer always holds a whole one.
 */
int pd_pdd_next_record(struct pdd *d, const unsigned char **rec, size_t *size,
		       struct pd_err *err)
{
	uint64_t end = d->data_off + d->data_size;
	uint64_t at = d->buf_off + d->pos;

	/*
	 * Set on every return, not only with a record: the callers' loops
	 * then hold no value whose setting the compiler must prove.
	 */
	*rec = NULL;
	*size = 0;
	if (at >= end)
		return 0;
	if (d->len - d->pos < 65536 && d->buf_off + d->len < end) {
		uint64_t want = end - (d->buf_off + d->len);
		size_t room;

		memmove(d->buf, d->buf + d->pos, d->len - d->pos);
		d->len -= d->pos;
		d->buf_off += d->pos;
		d->pos = 0;
		room = BUF_SIZE - d->len;
		if (want > room)
			want = room;
		if (read_at(d, d->buf_off + d->len, d->buf + d->len,
			    (size_t)want))
			return pd_pdd_bad(d, err, d->buf_off + d->len,
					  "cannot read the data section");
		d->len += (size_t)want;
	}
	if (d->len - d->pos < 8)
		return d->unfinished
			   ? 0
			   : pd_pdd_bad(d, err, at,
					"a record header is cut short");
	*size = u16at(d->buf + d->pos + 6);
	if (d->unfinished && *size >= 8 && *size > d->len - d->pos)
		return 0; /* the last record, cut when perf was killed */
	if (*size < 8 || *size > d->len - d->pos)
		return pd_pdd_bad(d, err, at,
				  *size < 8
				      ? "a record of size below 8 (damaged"
					" file)"
				      : "a record runs past the data section");
	*rec = d->buf + d->pos;
	d->pos += *size;
	return 1;
}

/* The time in a non-sample record's sample_id trailer, 0 when none. */
static uint64_t trailer_time(const struct pdd *d, const unsigned char *r,
			     size_t size)
{
	uint64_t t = d->trailer_type;
	size_t n = 0, at;

	if (!(t & S_TIME))
		return 0;
	n = !!(t & S_TID) + !!(t & S_TIME) + !!(t & S_ID) +
	    !!(t & S_STREAM_ID) + !!(t & S_CPU) + !!(t & S_IDENTIFIER);
	if (size < 8 + 8 * n)
		return 0;
	at = size - 8 * n + (t & S_TID ? 8 : 0);
	return u64at(r + at);
}

/* The DSO of a mapped file name and what MMAP2 says of it. */
static uint32_t dso_for(struct pdd *d, const char *fn, size_t fnlen, int kernel,
			const unsigned char *mmap2_id, int bid)
{
	struct pdd_dso *o;
	uint32_t name;

	if (kernel && fnlen >= 17 && !memcmp(fn, "[kernel.kallsyms]", 17))
		fnlen = 17; /* "[kernel.kallsyms]_text" */
	name = pd_intern(&d->strs, fn, fnlen);
	o = dso_named(d, name);
	o->kernel |= kernel;
	if (mmap2_id && bid && !o->bid[0]) {
		hex_id(o->bid, mmap2_id + 4, mmap2_id[0]);
	} else if (mmap2_id && !bid) {
		o->has_ino = 1;
		o->maj = u32at(mmap2_id);
		o->min = u32at(mmap2_id + 4);
		o->ino = u64at(mmap2_id + 8);
	}
	return d->dso_of.v[name];
}

/*
 * Whether a mapping is a JIT's code, as perf decides: executable memory
 * of no file (anonymous, /dev/zero, huge pages, a memfd). perf names it
 * /tmp/perf-PID.map, where the JIT writes its functions.
 */
static int jit_mapping(const char *fn, size_t n, int exec)
{
	static const char *const anon[] = { "/dev/zero", "/anon_hugepage",
					    "/memfd:", "[anon:" };
	size_t i;

	if (!exec)
		return 0;
	if (n == 6 && !memcmp(fn, "//anon", 6))
		return 1;
	for (i = 0; i < sizeof(anon) / sizeof(anon[0]); i++)
		if (n >= strlen(anon[i]) &&
		    !memcmp(fn, anon[i], strlen(anon[i])))
			return 1;
	return 0;
}

static void add_mmap(struct pdd *d, const unsigned char *r, size_t size,
		     int two)
{
	uint16_t misc = u16at(r + 4);
	size_t fo = two ? 8 + 64 : 8 + 32, fnlen;
	const char *fn;
	struct pdd_map m;
	int kernel = (misc & MISC_CPUMODE) == MISC_KERNEL, exec;
	char jit[32];

	if (size <= fo)
		return;
	fn = (const char *)r + fo;
	fnlen = strnlen(fn, size - fo);
	m.pid = u32at(r + 8);
	m.start = u64at(r + 16);
	m.len = u64at(r + 24);
	m.pgoff = u64at(r + 32);
	m.time = trailer_time(d, r, size);
	/* MMAP2 has the protection; MMAP is code unless marked data */
	exec = two ? (u32at(r + 64) & 4) != 0 : !(misc & MISC_MMAP_DATA);
	if (kernel) {
		m.pid = UINT32_MAX;
	} else if (jit_mapping(fn, fnlen, exec)) {
		snprintf(jit, sizeof(jit), "/tmp/perf-%u.map", m.pid);
		fn = jit;
		fnlen = strlen(jit);
	}
	m.dso = dso_for(d, fn, fnlen, kernel, two ? r + 40 : NULL,
			two && (misc & MISC_MMAP_BUILD_ID));
	if (fn == jit)
		d->syms.dsos.v[m.dso].jit = 1;
	PD_VEC_PUSH(&d->maps, m);
}

static int cmp_map(const void *a, const void *b)
{
	const struct pdd_map *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

static int cmp_comm(const void *a, const void *b)
{
	const struct pdd_comm *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

static int cmp_fork(const void *a, const void *b)
{
	const struct pdd_fork *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Pass 1: mappings, thread names and forks. */
int pd_pdd_pass_events(struct pdd *d, struct pd_err *err)
{
	const unsigned char *r;
	size_t size;
	int rc;

	pd_pdd_rewind_data(d);
	while ((rc = pd_pdd_next_record(d, &r, &size, err)) == 1) {
		uint32_t type = u32at(r);

		if (type == R_MMAP || type == R_MMAP2) {
			add_mmap(d, r, size, type == R_MMAP2);
		} else if (type == R_COMM && size > 16) {
			struct pdd_comm c;
			const char *s = (const char *)r + 16;

			c.tid = u32at(r + 12);
			c.name = pd_intern(&d->strs, s, strnlen(s, size - 16));
			c.time = trailer_time(d, r, size);
			c.exec = !!(u16at(r + 4) & MISC_COMM_EXEC);
			PD_VEC_PUSH(&d->comms, c);
		} else if (type == R_FORK && size >= 32) {
			struct pdd_fork f;

			f.pid = u32at(r + 8);
			f.ppid = u32at(r + 12);
			f.tid = u32at(r + 16);
			f.ptid = u32at(r + 20);
			f.time = u64at(r + 24);
			PD_VEC_PUSH(&d->forks, f);
		} else if (type == R_AUXTRACE) {
			return pd_pdd_use_perf(
			    d, "an AUX area trace (Intel PT, CoreSight)");
		} else if (type == R_COMPRESSED) {
			return pd_pdd_use_perf(
			    d, "compressed records (perf record -z)");
		} else if (type == R_HEADER_ATTR) {
			return pd_pdd_use_perf(
			    d, "events described in the data section");
		}
	}
	if (rc)
		return rc;
	if (d->maps.n > 1)
		pd_sort(d->maps.v, d->maps.n, sizeof(*d->maps.v), cmp_map);
	if (d->comms.n > 1)
		pd_sort(d->comms.v, d->comms.n, sizeof(*d->comms.v), cmp_comm);
	if (d->forks.n > 1)
		pd_sort(d->forks.v, d->forks.n, sizeof(*d->forks.v), cmp_fork);
	return 0;
}
