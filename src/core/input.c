/*
 * Decoded input. zlib's gzread() reads plain files as they are, so one code
 * path serves .gz and uncompressed inputs. The head is decoded once at open
 * for content sniffing and then replayed to the first reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <bzlib.h>

#include "core/input.h"
#include "core/limits.h"
#include "core/xalloc.h"

#define RAW_CHUNK (256u * 1024u)
#define GZ_MAX_READ (16u << 20) /* one gzread, below UINT_MAX */

static int utf8_put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * Refills rbuf from fd once it is consumed: 1 with bytes, 0 at the end,
 * or -PD_E*.
 */
static int raw_fill(struct pd_input *in, struct pd_err *err)
{
	ssize_t r;

	if (in->rpos < in->rlen)
		return 1;
	if (in->reof)
		return 0;
	do
		r = read(in->fd, in->rbuf, RAW_CHUNK);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return pd_err_set(err, PD_EIO, "%s: read error: %s", in->path,
				  strerror(errno));
	in->rpos = 0;
	in->rlen = (size_t)r;
	in->rtotal += (uint64_t)r;
	if (r == 0)
		in->reof = 1;
	return r > 0;
}

/* Offset in the file of the next byte not consumed from rbuf. */
static uint64_t raw_offset(const struct pd_input *in)
{
	return in->rtotal - (in->rlen - in->rpos);
}

/* The file's bytes as they are: rbuf first, then fd straight into buf. */
static int plain_read(struct pd_input *in, void *buf, size_t n,
		      struct pd_err *err)
{
	ssize_t r;

	if (in->rpos < in->rlen) {
		if (n > in->rlen - in->rpos)
			n = in->rlen - in->rpos;
		memcpy(buf, in->rbuf + in->rpos, n);
		in->rpos += n;
		return (int)n;
	}
	if (in->reof)
		return 0;
	do
		r = read(in->fd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return pd_err_set(err, PD_EIO, "%s: read error: %s", in->path,
				  strerror(errno));
	in->rtotal += (uint64_t)r;
	if (r == 0)
		in->reof = 1;
	return (int)r;
}

/*
 * Where a gzip member ended: the end of the file (after zeros padding
 * it, if any), or the next member (`cat a.gz b.gz` is one valid gzip
 * file); any other byte is an error.
 */
static int gz_next_member(struct pd_input *in, struct pd_err *err)
{
	z_stream *z = in->zs;
	int r = raw_fill(in, err), zeros = 0;

	if (r < 0)
		return r;
	/*
	 * Zeros padding the file to a block end it, as gzip(1) has it;
	 * anything after them is garbage.
	 */
	while (r > 0 && in->rbuf[in->rpos] == 0) {
		zeros = 1;
		while (in->rpos < in->rlen && in->rbuf[in->rpos] == 0)
			in->rpos++;
		r = raw_fill(in, err);
		if (r < 0)
			return r;
	}
	if (r == 0) {
		in->zs_end = 1;
		return 0;
	}
	if (zeros || in->rbuf[in->rpos] != 0x1f)
		return pd_err_set(err, PD_EPARSE,
				  "%s: byte %llu: data after the end of the"
				  " gzip stream",
				  in->path, (unsigned long long)raw_offset(in));
	if (inflateReset(z) != Z_OK)
		pd_die_oom(0);
	return 1;
}

static int gz_read(struct pd_input *in, void *buf, size_t n, struct pd_err *err)
{
	z_stream *z = in->zs;
	int r;

	z->next_out = buf;
	z->avail_out = (unsigned)n;
	while (z->avail_out == n && !in->zs_end) {
		r = raw_fill(in, err);
		if (r < 0)
			return r;
		if (r == 0)
			return pd_err_set(err, PD_EPARSE,
					  "%s: byte %llu: truncated gzip"
					  " stream",
					  in->path,
					  (unsigned long long)in->rtotal);
		z->next_in = in->rbuf + in->rpos;
		z->avail_in = (unsigned)(in->rlen - in->rpos);
		r = inflate(z, Z_NO_FLUSH);
		in->rpos = in->rlen - z->avail_in;
		if (r == Z_STREAM_END) {
			r = gz_next_member(in, err);
			if (r < 0)
				return r;
		} else if (r == Z_MEM_ERROR) {
			pd_die_oom(0);
		} else if (r != Z_OK && r != Z_BUF_ERROR) {
			return pd_err_set(
			    err, PD_EPARSE,
			    "%s: byte %llu: corrupt gzip data: %s", in->path,
			    (unsigned long long)raw_offset(in),
			    z->msg ? z->msg : "?");
		}
	}
	return (int)(n - z->avail_out);
}

/* The file's bytes, inflated when it is gzip. */
static int byte_read(struct pd_input *in, void *buf, size_t n,
		     struct pd_err *err)
{
	/* below UINT_MAX for zlib, and for the int returned */
	if (n > GZ_MAX_READ)
		n = GZ_MAX_READ;
	return in->zs ? gz_read(in, buf, n, err) : plain_read(in, buf, n, err);
}

/*
 * After a bzip2 stream: the end of the input, or a further stream (bzip2
 * concatenates them too); anything else is an error.
 */
static int bz_next_stream(struct pd_input *in, struct pd_err *err)
{
	bz_stream *z = in->bz;
	uint64_t at = in->bz_fed - z->avail_in;
	int r;

	if (!z->avail_in) {
		r = byte_read(in, in->bzin, RAW_CHUNK, err);
		if (r <= 0)
			return r;
		in->bz_fed += (uint64_t)r;
		in->bzin_len = (size_t)r;
		z->next_in = (char *)in->bzin;
		z->avail_in = (unsigned)r;
	}
	if (*z->next_in != 'B')
		return pd_err_set(err, PD_EPARSE,
				  "%s: byte %llu: data after the end of the"
				  " bzip2 stream",
				  in->path, (unsigned long long)at);
	BZ2_bzDecompressEnd(z);
	{
		/* the init clears the stream; the read goes on where it was */
		bz_stream keep = *z;

		memset(z, 0, sizeof(*z));
		if (BZ2_bzDecompressInit(z, 0, 0) != BZ_OK)
			pd_die_oom(0);
		z->next_in = keep.next_in;
		z->avail_in = keep.avail_in;
		z->next_out = keep.next_out;
		z->avail_out = keep.avail_out;
	}
	in->bz_end = 0;
	return 1;
}

/* bzip2 on top of the byte stream, so stdin and .bz2.gz work too. */
static int bz_read(struct pd_input *in, void *buf, size_t n, struct pd_err *err)
{
	bz_stream *z = in->bz;
	int r;

	if (n > RAW_CHUNK)
		n = RAW_CHUNK;
	z->next_out = buf;
	z->avail_out = (unsigned)n;
	while (z->avail_out == n) {
		if (in->bz_end) {
			r = bz_next_stream(in, err);
			if (r <= 0)
				return r < 0 ? r : (int)(n - z->avail_out);
		}
		if (!z->avail_in) {
			r = byte_read(in, in->bzin, RAW_CHUNK, err);
			if (r < 0)
				return r;
			if (r == 0)
				return pd_err_set(
				    err, PD_EPARSE,
				    "%s: byte %llu: truncated"
				    " bzip2 stream",
				    in->path, (unsigned long long)in->bz_fed);
			in->bz_fed += (uint64_t)r;
			in->bzin_len = (size_t)r;
			z->next_in = (char *)in->bzin;
			z->avail_in = (unsigned)r;
		}
		r = BZ2_bzDecompress(z);
		if (r == BZ_STREAM_END) {
			in->bz_end = 1;
		} else if (r != BZ_OK) {
			return pd_err_set(
			    err, PD_EPARSE,
			    "%s: byte %llu: corrupt bzip2 data (error %d)",
			    in->path,
			    (unsigned long long)(in->bz_fed - z->avail_in), r);
		}
	}
	return (int)(n - z->avail_out);
}

/*
 * The bytes gzip or bzip2 may give by now: PD_LIMIT_INFLATE (or
 * PERFDIFF_LIMIT_INFLATE) times the file's bytes read, plus the floor.
 */
static uint64_t inflate_cap(const struct pd_input *in)
{
	return pd_limit_scaled(in->floor, in->ratio, in->rtotal);
}

static int too_inflated(const struct pd_input *in, struct pd_err *err)
{
	return pd_err_set(
	    err, PD_ETOOBIG,
	    "%s: byte %llu of the file: its %s data expands to over %llu"
	    " bytes, perfdiff's limit by then (%llu times the %llu bytes"
	    " read, plus %llu: PD_LIMIT_INFLATE in src/core/limits.h;"
	    " PERFDIFF_LIMIT_INFLATE=RATIO or"
	    " PERFDIFF_LIMIT_INFLATE_FLOOR=BYTES raises it)",
	    in->path, (unsigned long long)in->rtotal, in->bz ? "bzip2" : "gzip",
	    (unsigned long long)inflate_cap(in), in->ratio,
	    (unsigned long long)in->rtotal, in->floor);
}

static int raw_read(struct pd_input *in, void *buf, size_t n,
		    struct pd_err *err)
{
	int r = in->bz ? bz_read(in, buf, n, err) : byte_read(in, buf, n, err);

	if (r > 0 && (in->bz || in->zs)) {
		in->inflated += (uint64_t)r;
		if (in->inflated > inflate_cap(in))
			return too_inflated(in, err);
	}
	return r;
}

/*
 * The first PD_INPUT_HEAD bytes (fewer at the end) into in->dec, their
 * first four in magic; *got their number. 0, or the error code.
 */
static int read_head(struct pd_input *in, size_t *got, unsigned char magic[4],
		     struct pd_err *err)
{
	int r;

	*got = 0;
	while (*got < PD_INPUT_HEAD) {
		r = raw_read(in, in->dec + *got, PD_INPUT_HEAD - *got, err);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	memset(magic, 0, 4);
	memcpy(magic, in->dec, *got < 4 ? *got : 4);
	return 0;
}

/* Appends decoded bytes to in->dec; returns bytes added, 0 at end. */
static ssize_t fill_utf16(struct pd_input *in, struct pd_err *err)
{
	size_t need, i, o;
	int r;

	if (in->dec_pos == in->dec_len)
		in->dec_pos = in->dec_len = 0;
	need = in->dec_len + RAW_CHUNK * 2;
	if (need > in->dec_cap) {
		in->dec = pd_xrealloc(in->dec, need);
		in->dec_cap = need;
	}
	r = raw_read(in, in->raw + in->raw_len, RAW_CHUNK - in->raw_len, err);
	if (r < 0)
		return r;
	if (r == 0 && in->raw_len < 2) {
		in->eof = 1;
		return 0;
	}
	in->raw_len += (size_t)r;
	o = in->dec_len;
	for (i = 0; i + 1 < in->raw_len;) {
		const unsigned char *p = in->raw + i;
		uint32_t u = in->utf16 == 1 ? (uint32_t)(p[0] | p[1] << 8)
					    : (uint32_t)(p[0] << 8 | p[1]);

		if (u >= 0xd800 && u < 0xdc00) {
			uint32_t lo;

			if (i + 3 >= in->raw_len) {
				if (r != 0)
					break; /* the pair's second half is next
						*/
				u = 0xfffd;    /* input ends inside a pair */
			} else {
				lo = in->utf16 == 1
					 ? (uint32_t)(p[2] | p[3] << 8)
					 : (uint32_t)(p[2] << 8 | p[3]);
				if (lo >= 0xdc00 && lo < 0xe000) {
					u = 0x10000 + ((u - 0xd800) << 10) +
					    (lo - 0xdc00);
					i += 2;
				} else {
					u = 0xfffd;
				}
			}
		} else if (u >= 0xdc00 && u < 0xe000) {
			u = 0xfffd;
		}
		o += (size_t)utf8_put(in->dec + o, u);
		i += 2;
	}
	memmove(in->raw, in->raw + i, in->raw_len - i);
	in->raw_len -= i;
	if (r == 0 && in->raw_len) /* odd trailing byte */
		in->raw_len = 0;
	r = (int)(o - in->dec_len);
	in->dec_len = o;
	return r;
}

/* Reads from fd into rbuf until it holds want bytes or the file ends. */
static int peek(struct pd_input *in, size_t want, struct pd_err *err)
{
	ssize_t r;

	while (in->rlen < want && !in->reof) {
		r = read(in->fd, in->rbuf + in->rlen, RAW_CHUNK - in->rlen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return pd_err_set(err, PD_EIO, "%s: read error: %s",
					  in->path, strerror(errno));
		in->rlen += (size_t)r;
		in->rtotal += (uint64_t)r;
		if (r == 0)
			in->reof = 1;
	}
	return 0;
}

/* Whether the first bytes are a gzip header; if so, inflate from here. */
static void start_gzip(struct pd_input *in)
{
	z_stream *z;

	if (in->rlen < 2 || in->rbuf[0] != 0x1f || in->rbuf[1] != 0x8b)
		return;
	z = pd_xcalloc(1, sizeof(*z));
	/* 16: gzip only, with its header and CRC and length trailer */
	if (inflateInit2(z, 16 + MAX_WBITS) != Z_OK)
		pd_die_oom(0);
	in->zs = z;
	in->gzipped = 1;
}

int pd_input_open(struct pd_input *in, const char *path, struct pd_err *err)
{
	unsigned char magic[4] = { 0 };
	struct stat st;
	int fd, r;
	size_t got = 0;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->fd = -1;
	r = pd_limit_env("PERFDIFF_LIMIT_INFLATE", PD_LIMIT_INFLATE, &in->ratio,
			 err);
	if (r == 0)
		r = pd_limit_env("PERFDIFF_LIMIT_INFLATE_FLOOR",
				 PD_LIMIT_INFLATE_FLOOR, &in->floor, err);
	if (r < 0)
		return r;
	if (!strcmp(path, "-")) {
		fd = dup(0);
	} else {
		fd = open(path, O_RDONLY);
	}
	if (fd < 0)
		return pd_err_set(err, PD_EIO, "%s: cannot open: %s", path,
				  strerror(errno));
	in->fd = fd;
	in->owns_fd = 1;
	/* only a file with a name can be opened again (pd_json_keys) */
	in->regular =
	    !fstat(fd, &st) && S_ISREG(st.st_mode) && strcmp(path, "-") != 0;
	in->rbuf = pd_xmalloc(RAW_CHUNK);
	r = peek(in, 8, err);
	if (r < 0)
		return r;
	if (in->rlen >= 8 && !memcmp(in->rbuf, "PERFILE2", 8)) {
		in->perfdata = 1;
		return 0;
	}
	start_gzip(in);

	/* Read the head, then decide on the text encoding from its start. */
	in->dec_cap = PD_INPUT_HEAD + 8;
	in->dec = pd_xmalloc(in->dec_cap);
	r = read_head(in, &got, magic, err);
	if (r < 0)
		return r;
	if (got >= 3 && !memcmp(magic, "BZh", 3)) {
		/* bzip2: what was read is compressed; decode the head again. */
		bz_stream *z = pd_xcalloc(1, sizeof(*z));

		if (BZ2_bzDecompressInit(z, 0, 0) != BZ_OK) {
			free(z);
			return pd_err_set(err, PD_EIO, "%s: bzip2 init failed",
					  path);
		}
		in->bz = z;
		in->bzin = pd_xmalloc(RAW_CHUNK);
		memcpy(in->bzin, in->dec, got);
		in->bzin_len = got;
		in->bz_fed = got;
		z->next_in = (char *)in->bzin;
		z->avail_in = (unsigned)got;
		r = read_head(in, &got, magic, err);
		if (r < 0)
			return r;
	}
	if (got >= 4 && !memcmp(magic,
				"\xfd"
				"7zX",
				4))
		return pd_err_set(err, PD_EFORMAT,
				  "%s: xz-compressed input is not supported;"
				  " decompress it first (unxz -k)",
				  path);
	if (got >= 4 && !memcmp(magic, "\x28\xb5\x2f\xfd", 4))
		return pd_err_set(err, PD_EFORMAT,
				  "%s: zstd-compressed input is not supported;"
				  " decompress it first (unzstd)",
				  path);
	if (got >= 2 && (magic[0] == 0xff && magic[1] == 0xfe))
		in->utf16 = 1;
	else if (got >= 2 && (magic[0] == 0xfe && magic[1] == 0xff))
		in->utf16 = 2;

	if (in->utf16) {
		in->raw = pd_xmalloc(RAW_CHUNK);
		memcpy(in->raw, in->dec + 2, got - 2);
		in->raw_len = got - 2;
		in->dec_len = 0;
		while (in->dec_len < PD_INPUT_HEAD && !in->eof) {
			ssize_t n = fill_utf16(in, err);

			if (n < 0)
				return (int)n;
			if (n == 0 && in->raw_len == 0)
				break;
		}
	} else {
		in->dec_len = got;
		if (got >= 3 && !memcmp(magic, "\xef\xbb\xbf", 3))
			in->dec_pos = 3;
	}
	if (got >= 8 && (in->gzipped || in->bz) &&
	    !memcmp(in->dec, "PERFILE2", 8)) {
		/* a compressed perf.data: read decompressed, from a copy */
		in->perfdata = 1;
		in->regular = 0;
	}
	in->head_len = in->dec_len - in->dec_pos;
	if (in->head_len > PD_INPUT_HEAD)
		in->head_len = PD_INPUT_HEAD;
	memcpy(in->head, in->dec + in->dec_pos, in->head_len);
	return 0;
}

int pd_input_open_range(struct pd_input *in, const char *path, uint64_t start,
			uint64_t len, struct pd_err *err)
{
	memset(in, 0, sizeof(*in));
	in->path = path;
	in->fd = open(path, O_RDONLY);
	if (in->fd < 0)
		return pd_err_set(err, PD_EIO, "%s: cannot open: %s", path,
				  strerror(errno));
	in->owns_fd = 1;
	if (lseek(in->fd, (off_t)start, SEEK_SET) < 0) {
		int e = errno;

		close(in->fd); /* the caller closes only what opened */
		in->fd = -1;
		return pd_err_set(err, PD_EIO, "%s: cannot seek: %s", path,
				  strerror(e));
	}
	/* read as it is: the piece starts with text, never a gzip magic */
	in->limited = 1;
	in->limit = len;
	return 0;
}

int pd_input_plain_file(const struct pd_input *in, uint64_t *start,
			uint64_t *size)
{
	struct stat sb;

	if (in->gzipped || in->bz || in->utf16 || in->offset || !in->regular ||
	    fstat(in->fd, &sb) || !S_ISREG(sb.st_mode))
		return 0;
	*start = in->dec_pos; /* 3 after a UTF-8 BOM */
	*size = (uint64_t)sb.st_size;
	return *start < *size;
}

ssize_t pd_input_read(struct pd_input *in, char *buf, size_t n,
		      struct pd_err *err)
{
	size_t take;
	int r;

	if (in->limited) {
		if (in->offset >= in->limit)
			return 0;
		if (n > in->limit - in->offset)
			n = (size_t)(in->limit - in->offset);
	}
	if (in->dec_pos < in->dec_len) {
		take = in->dec_len - in->dec_pos;
		if (take > n)
			take = n;
		memcpy(buf, in->dec + in->dec_pos, take);
		in->dec_pos += take;
		in->offset += take;
		return (ssize_t)take;
	}
	if (in->utf16) {
		ssize_t got;

		if (in->eof)
			return 0;
		got = fill_utf16(in, err);
		if (got <= 0)
			return got;
		return pd_input_read(in, buf, n, err);
	}
	r = raw_read(in, buf, n, err);
	if (r > 0)
		in->offset += (uint64_t)r;
	return r;
}

void pd_input_close(struct pd_input *in)
{
	if (in->bz) {
		BZ2_bzDecompressEnd(in->bz);
		free(in->bz);
		in->bz = NULL;
	}
	free(in->bzin);
	in->bzin = NULL;
	if (in->zs) {
		inflateEnd(in->zs);
		free(in->zs);
		in->zs = NULL;
	}
	if (in->owns_fd && in->fd >= 0)
		close(in->fd);
	in->owns_fd = 0;
	in->fd = -1;
	free(in->rbuf);
	free(in->raw);
	free(in->dec);
	in->rbuf = NULL;
	in->raw = NULL;
	in->dec = NULL;
}

int pd_input_is_binary(const struct pd_input *in)
{
	size_t i, bad = 0;

	for (i = 0; i < in->head_len; i++) {
		unsigned char c = (unsigned char)in->head[i];

		if (c == 0)
			return 1;
		if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' &&
		    c != '\f' && c != 0x1b)
			bad++;
	}
	return in->head_len && bad * 20 > in->head_len;
}

void pd_lines_init(struct pd_lines *l, struct pd_input *in)
{
	memset(l, 0, sizeof(*l));
	l->in = in;
	l->cap = 1u << 20;
	l->buf = pd_xmalloc(l->cap + 1);
	l->max_line = 64u << 20;
}

void pd_lines_release(struct pd_lines *l)
{
	free(l->buf);
	l->buf = NULL;
}

int pd_lines_next(struct pd_lines *l, char **line, size_t *len,
		  struct pd_err *err)
{
	for (;;) {
		char *s = l->buf + l->start;
		char *nl = memchr(s, '\n', l->end - l->start);
		size_t n;

		if (nl || (l->eof && l->end > l->start)) {
			n = nl ? (size_t)(nl - s) : l->end - l->start;
			l->start += n + (nl ? 1 : 0);
			if (n && s[n - 1] == '\r')
				n--;
			s[n] = '\0';
			l->lineno++;
			*line = s;
			*len = n;
			return 1;
		}
		if (l->eof)
			return 0;
		if (l->start > 0) {
			memmove(l->buf, l->buf + l->start, l->end - l->start);
			l->end -= l->start;
			l->start = 0;
		}
		if (l->end == l->cap) {
			if (l->cap >= l->max_line)
				return pd_err_set(err, PD_ETOOBIG,
						  "%s:%zu: line longer than %zu"
						  " bytes",
						  l->in->path, l->lineno + 1,
						  l->max_line);
			l->cap *= 2;
			l->buf = pd_xrealloc(l->buf, l->cap + 1);
		}
		{
			ssize_t r = pd_input_read(l->in, l->buf + l->end,
						  l->cap - l->end, err);

			if (r < 0)
				return (int)r;
			if (r == 0)
				l->eof = 1;
			l->end += (size_t)r;
		}
	}
}
