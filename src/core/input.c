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

static int gz_read(struct pd_input *in, void *buf, size_t n,
		   struct pd_err *err);

/* bzip2 on top of the raw byte stream, so stdin works too. */
static int bz_read(struct pd_input *in, void *buf, size_t n, struct pd_err *err)
{
	bz_stream *z = in->bz;
	int r;

	if (n > RAW_CHUNK)
		n = RAW_CHUNK;
	z->next_out = buf;
	z->avail_out = (unsigned)n;
	while (z->avail_out == n && !in->bz_end) {
		if (!in->bzin_len) {
			r = gz_read(in, in->bzin, RAW_CHUNK, err);
			if (r < 0)
				return r;
			if (r == 0)
				return pd_err_set(err, PD_EPARSE,
						  "%s: truncated bzip2 data",
						  in->path);
			in->bzin_len = (size_t)r;
			z->next_in = (char *)in->bzin;
			z->avail_in = (unsigned)r;
		}
		r = BZ2_bzDecompress(z);
		if (r == BZ_STREAM_END) {
			in->bz_end = 1;
		} else if (r != BZ_OK) {
			return pd_err_set(err, PD_EPARSE,
					  "%s: corrupt bzip2 data (error %d)",
					  in->path, r);
		}
		if (!z->avail_in)
			in->bzin_len = 0;
	}
	return (int)(n - z->avail_out);
}

static int raw_read(struct pd_input *in, void *buf, size_t n,
		    struct pd_err *err)
{
	if (in->bz)
		return bz_read(in, buf, n, err);
	return gz_read(in, buf, n, err);
}

static int gz_read(struct pd_input *in, void *buf, size_t n, struct pd_err *err)
{
	int r;

	/*
	 * zlib reads (or inflates) straight into buf when asked for at least
	 * twice its own buffer, and copies through that buffer otherwise: a
	 * tenth of a large JSON import was that copy.
	 */
	if (n > GZ_MAX_READ)
		n = GZ_MAX_READ;
	r = gzread(in->gz, buf, (unsigned)n);
	if (r < 0) {
		int zerr;
		const char *msg = gzerror(in->gz, &zerr);

		if (zerr == Z_ERRNO)
			return pd_err_set(err, PD_EIO, "%s: read error: %s",
					  in->path, strerror(errno));
		/* zlib names the stream "<fd:3>: "; the path says it better */
		if (msg && msg[0] == '<' && strstr(msg, ">: "))
			msg = strstr(msg, ">: ") + 3;
		return pd_err_set(err, PD_EPARSE, "%s: corrupt gzip data: %s",
				  in->path, msg ? msg : "?");
	}
	return r;
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

int pd_input_open(struct pd_input *in, const char *path, struct pd_err *err)
{
	unsigned char magic[4] = { 0 };
	int fd, r;
	size_t got = 0;

	memset(in, 0, sizeof(*in));
	in->path = path;
	if (!strcmp(path, "-")) {
		fd = dup(0);
	} else {
		fd = open(path, O_RDONLY);
	}
	in->fd = fd;
	if (fd < 0)
		return pd_err_set(err, PD_EIO, "%s: cannot open: %s", path,
				  strerror(errno));
	in->gz = gzdopen(fd, "rb");
	if (!in->gz) {
		close(fd);
		pd_die_oom(0);
	}
	gzbuffer(in->gz, 256 * 1024);

	/* Read the head, then decide on the text encoding from its start. */
	in->dec_cap = PD_INPUT_HEAD + 8;
	in->dec = pd_xmalloc(in->dec_cap);
	while (got < PD_INPUT_HEAD) {
		r = raw_read(in, in->dec + got, PD_INPUT_HEAD - got, err);
		if (r < 0)
			return r;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	in->gzipped = !gzdirect(in->gz);
	memcpy(magic, in->dec, got < 4 ? got : 4);
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
		z->next_in = (char *)in->bzin;
		z->avail_in = (unsigned)got;
		got = 0;
		while (got < PD_INPUT_HEAD) {
			r = raw_read(in, in->dec + got, PD_INPUT_HEAD - got,
				     err);
			if (r < 0)
				return r;
			if (r == 0)
				break;
			got += (size_t)r;
		}
		memcpy(magic, in->dec, got < 4 ? got : 4);
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
	if (lseek(in->fd, (off_t)start, SEEK_SET) < 0) {
		int e = errno;

		close(in->fd);
		return pd_err_set(err, PD_EIO, "%s: cannot seek: %s", path,
				  strerror(e));
	}
	/* transparent: the piece starts with text, never a gzip magic */
	in->gz = gzdopen(in->fd, "rb");
	if (!in->gz) {
		close(in->fd);
		pd_die_oom(0);
	}
	gzbuffer(in->gz, 256 * 1024);
	in->limited = 1;
	in->limit = len;
	return 0;
}

int pd_input_plain_file(const struct pd_input *in, uint64_t *start,
			uint64_t *size)
{
	struct stat sb;

	if (in->gzipped || in->bz || in->utf16 || in->offset ||
	    !strcmp(in->path, "-") || in->fd < 0 || fstat(in->fd, &sb) ||
	    !S_ISREG(sb.st_mode))
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
	if (in->gz)
		gzclose(in->gz);
	free(in->raw);
	free(in->dec);
	in->gz = NULL;
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
