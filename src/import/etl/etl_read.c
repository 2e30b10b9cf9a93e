/*
 * The bytes of an ETW trace and its events: a .etl read as it is, or the
 * .etl member of a zip (PerfView's .etl.zip) inflated as it streams; then
 * buffer by buffer (each a WMI buffer header and events, or plain-LZ77
 * compressed events), each event's header decoded (docs/formats.md,
 * "Windows ETW traces"). Offsets in messages are offsets in the .etl.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/limits.h"
#include "import/etl/etl_int.h"

/* Bytes of a WMI buffer header. */
#define BUF_HEADER 72
#define BUF_MAX PD_LIMIT_ETL_BUFFER
/* Buffer flag: the events after the header are compressed. */
#define BUF_COMPRESSED 0x40

static uint32_t rd16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
	return rd16(p) | rd16(p + 2) << 16;
}

static uint64_t rd64(const unsigned char *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* Where the trace's bytes come from. */
struct src {
	struct pd_input *in;
	const char *path;
	int zip, zdone;
	int method;    /* zip member: 0 stored, 8 deflated */
	uint64_t left; /* stored member: bytes left */
	z_stream zs;
	int zinit;
	/* the zip's bytes read and not used yet (inflate reads ahead) */
	unsigned char zin[1 << 16];
	size_t zpos, zlen;
	uint64_t zoff; /* bytes of the zip used */
	uint64_t pos;  /* bytes of the .etl handed out */
};

/* Reads n bytes of the input (the zip's own bytes); fewer at its end. */
static int raw_read(struct src *s, unsigned char *b, size_t n, size_t *got,
		    struct pd_err *err)
{
	size_t k = s->zlen - s->zpos < n ? s->zlen - s->zpos : n;

	memcpy(b, s->zin + s->zpos, k);
	s->zpos += k;
	*got = k;
	while (*got < n) {
		ssize_t r =
		    pd_input_read(s->in, (char *)b + *got, n - *got, err);

		if (r < 0)
			return (int)r;
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	s->zoff += *got;
	return 0;
}

/* Passes over n bytes of the input. */
static int raw_skip(struct src *s, uint64_t n, struct pd_err *err)
{
	unsigned char b[4096];
	size_t got;
	int rc = 0;

	while (n && rc == 0) {
		rc = raw_read(s, b, n < sizeof(b) ? (size_t)n : sizeof(b), &got,
			      err);
		if (got == 0)
			break;
		n -= got;
	}
	return rc;
}

/* Inflates up to n bytes of the member into b; *got 0 at its end. */
static int inflate_some(struct src *s, unsigned char *b, size_t n, size_t *got,
			struct pd_err *err)
{
	int zr;

	s->zs.next_out = b;
	s->zs.avail_out = (uInt)n;
	while (s->zs.avail_out == n && !s->zdone) {
		if (s->zpos == s->zlen) {
			ssize_t r = pd_input_read(s->in, (char *)s->zin,
						  sizeof(s->zin), err);

			if (r < 0)
				return (int)r;
			if (r == 0)
				return pd_err_set(err, PD_EPARSE,
						  "%s: byte %llu of the .etl:"
						  " the zip member ends early",
						  s->path,
						  (unsigned long long)s->pos);
			s->zpos = 0;
			s->zlen = (size_t)r;
		}
		s->zs.next_in = s->zin + s->zpos;
		s->zs.avail_in = (uInt)(s->zlen - s->zpos);
		zr = inflate(&s->zs, Z_NO_FLUSH);
		s->zoff += s->zlen - s->zpos - s->zs.avail_in;
		s->zpos = s->zlen - s->zs.avail_in;
		if (zr == Z_STREAM_END)
			s->zdone = 1;
		else if (zr != Z_OK)
			return pd_err_set(err, PD_EPARSE,
					  "%s: byte %llu of the .etl: the zip"
					  " member does not inflate (%s)",
					  s->path, (unsigned long long)s->pos,
					  s->zs.msg ? s->zs.msg : "bad data");
	}
	*got = n - s->zs.avail_out;
	return 0;
}

/* Reads up to n bytes of the .etl; fewer only at its end. */
static int src_read(struct src *s, unsigned char *b, size_t n, size_t *got,
		    struct pd_err *err)
{
	size_t k = 0, part = 0;
	int rc = 0;

	while (k < n && rc == 0) {
		if (!s->zip) {
			rc = raw_read(s, b + k, n - k, &part, err);
		} else if (s->method == 0) {
			size_t want = n - k < s->left ? n - k : (size_t)s->left;

			rc = raw_read(s, b + k, want, &part, err);
			s->left -= part;
		} else {
			rc = inflate_some(s, b + k, n - k, &part, err);
		}
		if (part == 0)
			break;
		k += part;
	}
	*got = k;
	s->pos += k;
	return rc;
}

static int ends_etl(const unsigned char *name, size_t n)
{
	return n >= 4 && (name[n - 4] == '.') && (name[n - 3] | 0x20) == 'e' &&
	       (name[n - 2] | 0x20) == 't' && (name[n - 1] | 0x20) == 'l';
}

/* A zip member's data descriptor (after its data): 12 bytes, or 16
 * with its optional signature. */
static int skip_descriptor(struct src *s, struct pd_err *err)
{
	unsigned char d[4];
	size_t got;
	int rc = raw_read(s, d, 4, &got, err);

	if (rc == 0)
		rc = raw_skip(s, rd32(d) == 0x08074b50 ? 12 : 8, err);
	return rc;
}

/*
 * Positions s at the first .etl member of the zip: members before it are
 * passed over (stored ones by size; deflated ones inflated and dropped,
 * since a member written by a stream may not give its size).
 */
static int zip_open(struct src *s, struct pd_err *err)
{
	unsigned char h[30], name[1024];
	size_t got;
	int rc;

	for (;;) {
		uint64_t at = s->zoff;
		uint32_t flags, method, nlen;

		rc = raw_read(s, h, sizeof(h), &got, err);
		if (rc < 0)
			return rc;
		if (got < sizeof(h) || rd32(h) != 0x04034b50)
			return pd_err_set(err, PD_EFORMAT,
					  "%s: byte %llu: a zip archive with"
					  " no .etl file in it",
					  s->path, (unsigned long long)at);
		flags = rd16(h + 6);
		method = rd16(h + 8);
		nlen = rd16(h + 26);
		if (nlen >= sizeof(name))
			return pd_err_set(err, PD_EPARSE,
					  "%s: byte %llu: a zip member name of"
					  " %u bytes",
					  s->path, (unsigned long long)at,
					  nlen);
		rc = raw_read(s, name, nlen, &got, err);
		if (rc == 0)
			rc = raw_skip(s, rd16(h + 28), err);
		if (rc < 0)
			return rc;
		if (method != 0 && method != 8)
			return pd_err_set(err, PD_EFORMAT,
					  "%s: byte %llu: zip compression"
					  " method %u (perfdiff reads stored"
					  " and deflated members)",
					  s->path, (unsigned long long)at,
					  method);
		s->method = (int)method;
		s->left = rd32(h + 18);
		s->zdone = 0;
		if (method == 8) {
			if (s->zinit)
				inflateEnd(&s->zs);
			memset(&s->zs, 0, sizeof(s->zs));
			if (inflateInit2(&s->zs, -MAX_WBITS) != Z_OK)
				return pd_err_set(err, PD_EIO, "%s: zlib",
						  s->path);
			s->zinit = 1;
		}
		if (ends_etl(name, nlen))
			return 0;
		if (method == 0 && (flags & 8))
			return pd_err_set(err, PD_EFORMAT,
					  "%s: byte %llu: a stored zip member"
					  " of unknown size before the .etl",
					  s->path, (unsigned long long)at);
		do {
			rc = src_read(s, name, sizeof(name), &got, err);
		} while (rc == 0 && got);
		if (rc == 0 && (flags & 8))
			rc = skip_descriptor(s, err);
		if (rc < 0)
			return rc;
		s->pos = 0;
	}
}

/* Header sizes by header type (0: not an event header). */
static size_t header_len(int type)
{
	switch (type) {
	case 1: /* system, 32 and 64 bit */
	case 2:
		return 32;
	case 3: /* compact */
	case 4:
		return 24;
	case 16: /* perfinfo */
	case 17:
		return 16;
	case 10: /* full EVENT_TRACE_HEADER */
	case 20:
		return 48;
	case 11: /* instance */
	case 21:
		return 56;
	case 18: /* EVENT_HEADER */
	case 19:
		return 80;
	default:
		return 0;
	}
}

/* Fills ev from the header at e (n bytes of buffer left); 0 or -1. */
static int decode(const unsigned char *e, size_t n, struct etl_event *ev,
		  size_t *size)
{
	int type = e[2];
	size_t hl = header_len(type);

	memset(ev, 0, sizeof(*ev));
	if (!hl || !(e[3] & 0x80) || n < 8)
		return -1;
	ev->ptr = (type == 1 || type == 3 || type == 16 || type == 10 ||
		   type == 11 || type == 18)
		      ? 4
		      : 8;
	ev->pid = ev->tid = -1;
	if (type <= 4 || type == 16 || type == 17) {
		*size = rd16(e + 4);
		ev->classic = 1;
		ev->version = (int)rd16(e);
		ev->opcode = e[6];
		ev->group = e[7];
	} else {
		*size = rd16(e);
	}
	if (*size < hl || *size > n)
		return -1;
	if (type <= 4) {
		ev->tid = rd32(e + 8);
		ev->pid = rd32(e + 12);
		ev->ts = rd64(e + 16);
	} else if (type == 16 || type == 17) {
		ev->ts = rd64(e + 8);
	} else {
		ev->tid = rd32(e + 8);
		ev->pid = rd32(e + 12);
		ev->ts = rd64(e + 16);
		memcpy(ev->guid, e + 24, 16);
		ev->has_guid = 1;
	}
	if (type == 10 || type == 20 || type == 11 || type == 21) {
		ev->opcode = e[4];
		ev->version = (int)rd16(e + 6);
	}
	if (type == 18 || type == 19) {
		ev->id = (int)rd16(e + 40);
		ev->version = e[42];
		ev->opcode = e[45];
		/* extended data items (EVENT_HEADER_FLAG_EXTENDED_INFO) */
		if (rd16(e + 4) & 1) {
			int more = 1;

			while (more) {
				if (hl + 8 > *size)
					return -1;
				more = rd16(e + hl + 4) & 1;
				hl += 8 + ((rd16(e + hl + 6) + 7u) & ~7u);
			}
			if (hl > *size)
				return -1;
		}
	}
	if (ev->pid == 0xffffffff)
		ev->pid = -1;
	if (ev->tid == 0xffffffff)
		ev->tid = -1;
	ev->data = e + hl;
	ev->len = *size - hl;
	return 0;
}

/* The events of one buffer's data (len bytes, at offset base). */
static int walk_events(struct etl_state *st, const unsigned char *d, size_t len,
		       uint64_t base, struct pd_err *err)
{
	size_t at = 0, size;
	struct etl_event ev;
	int rc;

	while (at + 4 <= len) {
		if (rd32(d + at) == 0xffffffff || rd32(d + at) == 0)
			break; /* the unused rest of the buffer */
		if (decode(d + at, len - at, &ev, &size) < 0)
			return pd_err_set(err, PD_EPARSE,
					  "%s: byte %llu of the .etl: not an"
					  " event header (or one larger than"
					  " its buffer)",
					  st->path,
					  (unsigned long long)(base + at));
		ev.offset = base + at;
		if (!st->ptr)
			st->ptr = ev.ptr;
		st->events++;
		rc = pd_etl_event_take(st, &ev, err);
		if (rc < 0)
			return rc;
		at += (size + 7) & ~(size_t)7;
	}
	return 0;
}

/*
 * What the trace's events may come to by now: PD_LIMIT_ETL_INFLATE (or
 * PERFDIFF_LIMIT_ETL_INFLATE) times the bytes read from the file, plus
 * the floor (core/limits.h).
 */
static uint64_t inflate_cap(const struct etl_state *st)
{
	return pd_limit_scaled(PD_LIMIT_ETL_INFLATE_FLOOR, st->inflate,
			       *st->spill.read);
}

static int too_expanded(const struct etl_state *st, uint64_t base,
			uint32_t saved, struct pd_err *err)
{
	return pd_err_set(
	    err, PD_ETOOBIG,
	    "%s: byte %llu of the .etl: a compressed buffer that expands to"
	    " %u bytes: over perfdiff's limit of %llu bytes of events by"
	    " then (%llu times the %llu bytes read, plus %llu:"
	    " PD_LIMIT_ETL_INFLATE in src/core/limits.h;"
	    " PERFDIFF_LIMIT_ETL_INFLATE=RATIO raises it)",
	    st->path, (unsigned long long)base, saved,
	    (unsigned long long)inflate_cap(st), st->inflate,
	    (unsigned long long)*st->spill.read,
	    (unsigned long long)PD_LIMIT_ETL_INFLATE_FLOOR);
}

/* One buffer whose header is h, its bsize - 72 bytes after it in body. */
static int take_buffer(struct etl_state *st, const unsigned char *h,
		       unsigned char *body, unsigned char **plain,
		       uint64_t base, struct pd_err *err)
{
	uint32_t bsize = rd32(h), saved = rd32(h + 4);
	unsigned flags = rd16(h + 0x34);
	size_t bad = 0;
	long n;

	st->buffers++;
	if (!(flags & BUF_COMPRESSED)) {
		if (saved < BUF_HEADER || saved > bsize)
			saved = rd32(h + 0x30);
		if (saved < BUF_HEADER || saved > bsize)
			saved = bsize;
		st->expanded += saved;
		return walk_events(st, body, saved - BUF_HEADER,
				   base + BUF_HEADER, err);
	}
	st->compressed++;
	if (saved < BUF_HEADER || saved > BUF_MAX)
		return pd_err_set(err, PD_EPARSE,
				  "%s: byte %llu of the .etl: a compressed"
				  " buffer of %u bytes",
				  st->path, (unsigned long long)base, saved);
	st->expanded += saved;
	if (st->expanded > inflate_cap(st))
		return too_expanded(st, base, saved, err);
	*plain = pd_xrealloc(*plain, saved);
	n = pd_xpress_lz77(body, bsize - BUF_HEADER, *plain, saved - BUF_HEADER,
			   &bad);
	if (n < 0)
		return pd_err_set(
		    err, PD_EPARSE,
		    "%s: byte %llu of the .etl: damaged"
		    " compressed data",
		    st->path, (unsigned long long)(base + BUF_HEADER + bad));
	/* the header says what the buffer holds once expanded */
	if ((size_t)n != saved - BUF_HEADER)
		return pd_err_set(err, PD_EPARSE,
				  "%s: byte %llu of the .etl: a compressed"
				  " buffer that expands to %ld bytes where its"
				  " header says %u",
				  st->path, (unsigned long long)base, n,
				  saved - BUF_HEADER);
	/* offsets inside decompressed events are the buffer's */
	return walk_events(st, *plain, (size_t)n, base, err);
}

static int too_big(const struct etl_state *st, uint64_t base,
		   struct pd_err *err)
{
	struct pd_buf where = PD_BUF_INIT;
	int rc;

	pd_buf_addf(&where, "%s: byte %llu of the .etl: a buffer", st->path,
		    (unsigned long long)base);
	rc = pd_err_limit(err, where.buf, BUF_MAX, "bytes in one buffer",
			  "PD_LIMIT_ETL_BUFFER");
	pd_buf_release(&where);
	return rc;
}

static int walk_buffers(struct src *s, struct etl_state *st, struct pd_err *err)
{
	unsigned char h[BUF_HEADER], *body = NULL, *plain = NULL;
	size_t got;
	uint32_t cap = 0;
	int rc = 0;

	for (;;) {
		uint64_t base = s->pos;
		uint32_t bsize;

		rc = src_read(s, h, sizeof(h), &got, err);
		if (rc < 0 || got == 0)
			break;
		bsize = rd32(h);
		if (got == sizeof(h) && bsize > BUF_MAX) {
			rc = too_big(st, base, err);
			break;
		}
		if (got < sizeof(h) || bsize < BUF_HEADER) {
			rc = pd_err_set(
			    err, PD_EPARSE, "%s: byte %llu of the .etl: %s",
			    st->path, (unsigned long long)base,
			    got < sizeof(h) ? "the trace ends inside a buffer"
					      " header"
					    : "not a buffer header (its size"
					      " is below its header's)");
			break;
		}
		if (bsize > cap) {
			body = pd_xrealloc(body, bsize);
			cap = bsize;
		}
		rc = src_read(s, body, bsize - BUF_HEADER, &got, err);
		if (rc == 0 && got < bsize - BUF_HEADER)
			rc = pd_err_set(
			    err, PD_EPARSE,
			    "%s: byte %llu of the .etl: the trace"
			    " ends inside a buffer of %u bytes",
			    st->path,
			    (unsigned long long)(base + got + BUF_HEADER),
			    bsize);
		if (rc == 0)
			rc = take_buffer(st, h, body, &plain, base, err);
		if (rc < 0)
			break;
	}
	free(body);
	free(plain);
	return rc;
}

/* Logging modes whose file holds fewer buffers than were written. */
#define MODE_CIRCULAR 0x2
#define MODE_NEWFILE 0x8

/*
 * A trace cut at a buffer's end reads as a shorter trace: the header's
 * count of buffers written is what tells it (docs/formats.md, "Windows
 * ETW traces").
 */
static int check_buffers(const struct src *s, const struct etl_state *st,
			 struct pd_err *err)
{
	if (!st->buffers_written || st->buffers >= st->buffers_written ||
	    (st->log_mode & (MODE_CIRCULAR | MODE_NEWFILE)))
		return 0;
	return pd_err_set(err, PD_EPARSE,
			  "%s: byte %llu of the .etl: the trace ends after %llu"
			  " of the %u buffers its header says were written"
			  " (cut short, or copied while it was recorded)",
			  st->path, (unsigned long long)s->pos,
			  (unsigned long long)st->buffers,
			  (unsigned)st->buffers_written);
}

int pd_etl_walk(struct pd_input *in, struct etl_state *st, struct pd_err *err)
{
	struct src *s = pd_xcalloc(1, sizeof(*s));
	int rc = 0;

	s->in = in;
	s->path = st->path;
	st->spill.read = &in->rtotal;
	rc = pd_limit_env("PERFDIFF_LIMIT_ETL_INFLATE", PD_LIMIT_ETL_INFLATE,
			  &st->inflate, err);
	if (rc == 0)
		rc = pd_limit_env("PERFDIFF_LIMIT_ETL_SPILL",
				  PD_LIMIT_ETL_SPILL, &st->spill.ratio, err);
	if (rc) {
		free(s);
		return rc;
	}
	if (in->head_len >= 4 && !memcmp(in->head, "PK\x03\x04", 4)) {
		s->zip = 1;
		rc = zip_open(s, err);
	}
	if (rc == 0)
		rc = walk_buffers(s, st, err);
	if (rc == 0)
		rc = check_buffers(s, st, err);
	if (rc == 0 && st->events == 0)
		rc = pd_err_set(err, PD_EPARSE, "%s: an ETW trace of no events",
				st->path);
	if (s->zinit)
		inflateEnd(&s->zs);
	free(s);
	return rc;
}

int pd_etl_sniff(const char *head, size_t len)
{
	const unsigned char *h = (const unsigned char *)head;

	size_t at = 0;

	/*
	 * A zip: a local header naming a .etl in the head (hopping from
	 * member to member needs sizes a zip written to a pipe gives only
	 * after the data, so the head is searched).
	 */
	if (len >= 4 && !memcmp(h, "PK\x03\x04", 4)) {
		for (at = 0; at + 30 <= len; at++) {
			size_t n;

			if (memcmp(h + at, "PK\x03\x04", 4))
				continue;
			n = rd16(h + at + 26);
			if (at + 30 + n <= len && ends_etl(h + at + 30, n))
				return 1;
		}
		return 0;
	}
	/* the first buffer starts with the trace's header event */
	return len >= BUF_HEADER + 8 && rd32(h) >= BUF_HEADER + 8 &&
	       rd32(h) <= BUF_MAX &&
	       (h[BUF_HEADER + 2] == 1 || h[BUF_HEADER + 2] == 2) &&
	       (h[BUF_HEADER + 3] & 0xc0) == 0xc0 && h[BUF_HEADER + 6] == 0 &&
	       h[BUF_HEADER + 7] == ETL_G_HEADER;
}
