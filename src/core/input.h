/*
 * Byte input from a file or stdin ("-"), decoded to UTF-8: gzip and bzip2
 * are inflated transparently, a UTF-8 BOM is dropped and UTF-16 (with BOM) is
 * converted. The struct owns its handle and buffers; pd_input_close() releases
 * them.
 */
#ifndef PD_INPUT_H
#define PD_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/compat.h"
#include "core/err.h"

#define PD_INPUT_HEAD (64u * 1024u)

struct pd_input {
	const char *path; /* borrowed, for messages */
	int fd;		  /* the file's descriptor, opened once */
	int owns_fd;	  /* fd is closed by pd_input_close() */
	int regular;	  /* fd is a regular file (it could be read again) */
	int perfdata;	  /* the file is a raw perf.data: nothing decoded */
	/*
	 * Bytes read from fd and not consumed yet: the first ones are peeked
	 * at for the magic numbers, and every byte is read from fd once.
	 */
	unsigned char *rbuf;
	size_t rpos, rlen;
	uint64_t rtotal; /* bytes read from fd in all */
	int reof;
	void *zs; /* z_stream when the input is gzip */
	int zs_end;
	int utf16; /* 0, 1 little-endian, 2 big-endian */
	int gzipped;
	void *bz;	     /* bz_stream when the input is bzip2 */
	unsigned char *bzin; /* compressed bytes waiting */
	size_t bzin_len;
	uint64_t bz_fed; /* bytes handed to bzip2, for offsets */
	int bz_end;
	unsigned char *raw; /* UTF-16 staging */
	size_t raw_len;
	char *dec; /* decoded bytes not yet handed out */
	size_t dec_pos, dec_len, dec_cap;
	int eof;
	uint64_t offset; /* decoded bytes handed out so far */
	uint64_t limit;	 /* with limited: bytes to hand out in all */
	int limited;
	uint64_t inflated; /* bytes gzip or bzip2 gave so far */
	/* their cap (core/limits.h): floor + ratio * the file's bytes read */
	unsigned long long ratio, floor;
	char head[PD_INPUT_HEAD];
	size_t head_len; /* decoded head, for sniffing; also queued in dec */
};

/*
 * Opens path (or stdin, "-") once and decodes its head; a FIFO or pipe is
 * read once, whole. A raw perf.data sets perfdata and decodes nothing (its
 * first bytes stay in rbuf). Errors name the file; a damaged or truncated
 * gzip or bzip2 stream, or bytes after it that start no further stream,
 * is an error naming the byte offset, at open or at the read that meets it.
 */
PD_NODISCARD int pd_input_open(struct pd_input *in, const char *path,
			       struct pd_err *err);
/*
 * Opens len bytes of the plain file path from byte start, as they are (no
 * sniffing, inflating or decoding): one piece of a file read on several
 * threads (import/perf_split.c).
 */
PD_NODISCARD int pd_input_open_range(struct pd_input *in, const char *path,
				     uint64_t start, uint64_t len,
				     struct pd_err *err);
/*
 * Whether in is a regular file read as it is (not stdin, not compressed
 * or UTF-16) and not read yet: then *start is where its text starts (after
 * a UTF-8 BOM) and *size the file's size, and pieces of it can be opened
 * with pd_input_open_range().
 */
int pd_input_plain_file(const struct pd_input *in, uint64_t *start,
			uint64_t *size);
/* Reads up to n decoded bytes; returns the count, 0 at end, or -PD_E*. */
PD_NODISCARD ssize_t pd_input_read(struct pd_input *in, char *buf, size_t n,
				   struct pd_err *err);
void pd_input_close(struct pd_input *in);
/* True when the head looks like binary data rather than text or JSON. */
int pd_input_is_binary(const struct pd_input *in);

/* Line reader over a pd_input; lines exclude "\n" and a trailing "\r". */
struct pd_lines {
	struct pd_input *in;
	char *buf;
	size_t cap, start, end;
	size_t lineno; /* 1-based number of the line last returned */
	size_t max_line;
	int eof;
};

void pd_lines_init(struct pd_lines *l, struct pd_input *in);
void pd_lines_release(struct pd_lines *l);
/* Returns 1 with *line (NUL-terminated, writable), 0 at end, or -PD_E*. */
PD_NODISCARD int pd_lines_next(struct pd_lines *l, char **line, size_t *len,
			       struct pd_err *err);

#endif
