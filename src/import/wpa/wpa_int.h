/*
 * The WPA importer's parts: wpa.c reads the CSV, settles the columns and
 * the number format; wpa_rows.c turns each row into samples or table rows.
 */
#ifndef PD_IMPORT_WPA_INT_H
#define PD_IMPORT_WPA_INT_H

#include <regex.h>

#include "core/buf.h"
#include "core/compat.h"
#include "import/formats.h"
#include "import/rowtree.h"

#define WPA_LOOKAHEAD 2000

enum wpa_shape { SHAPE_STACK, SHAPE_TREE, SHAPE_FLAT, SHAPE_TABLE };
enum wpa_kind { WPA_IGNORE, WPA_KEY, WPA_MEASURE };

struct wpa_column {
	char *name;    /* as in the header */
	char unit[16]; /* from the last parentheses: ms, s, µs, B, ... */
	int text;      /* a non-numeric value was seen */
	int numeric;   /* a numeric value was seen */
	int hex;       /* 0x... values: addresses or offsets, not keys */
	enum wpa_kind kind;
};

struct wpa_row {
	char **f;
	size_t n;
	size_t line;
};

struct wpa {
	struct pd_profile *p;
	const struct pd_import_opts *o;
	struct pd_input *in;
	struct pd_err *err;
	PD_VEC(char *) cur; /* fields of the row being read */
	size_t line;	    /* rows seen, the header being 1 */
	PD_VEC(struct wpa_column) cols;
	PD_VEC(struct wpa_row) pending; /* rows before the decisions */
	int decided, failed;
	char decimal, thousands;
	enum wpa_shape shape;
	int c_stack, c_weight, c_count, c_process, c_thread, c_module,
	    c_function;
	double weight_scale; /* to ns */
	/*
	 * Memory tables with stacks (Heap Allocations, VirtualAlloc Commit
	 * LifeTimes): bytes from c_bytes, allocations from Count, exact;
	 * allocator frames (alloc_re) cut from the leaf end.
	 */
	int memory, c_bytes, by_count;
	/*
	 * A table of waits or I/O (io_time_col): the kernel's and the system
	 * libraries' frames at a stack's leaf are its caller's, the
	 * function that waited (docs/formats.md, "Off-CPU time").
	 */
	int waits;
	double bytes_scale;
	regex_t alloc_re;
	int alloc_re_set;
	PD_VEC(unsigned char)
	frame_alloc; /* per frame: 0 unseen, 1 no, 2 yes */
	/* tree shape */
	struct pd_rowtree tree;
	/* table shape */
	struct pd_mtable *table;
	PD_VEC(int) measure_cols;
	PD_VEC(int) key_cols;
	/* processes by weight, for the note */
	struct pd_intern procs;
	PD_VEC(double) proc_w;
	struct pd_buf tmp, key;
	PD_VEC(uint32_t) frames;
	size_t ambiguous;
};

static const char *const units[] = { "ms", "s",	 "µs",	  "us", "ns", "B", "KB",
				     "MB", "GB", "bytes", "%",	"Hz", NULL };

/* The allocator frames WPA memory stacks end in (module!function). */
extern const char pd_wpa_alloc_default[];

/* Strips spaces, no-break spaces (U+00A0, U+202F) and quotes into out. */
void pd_wpa_clean_number(const char *s, struct pd_buf *out);
/* 1 with *out set when s is a number in the file's format, else 0. */
int pd_wpa_parse_num(struct wpa *w, const char *s, double *out);
/* Records "FILE: row N, column C: what"; returns PD_EPARSE. */
int pd_wpa_fail_at(struct wpa *w, size_t line, int col, const char *what);
/* One data row (n fields) into the profile, by the file's shape. */
PD_NODISCARD int pd_wpa_row(struct wpa *w, char **f, size_t n, size_t line);
/*
 * Tree view: closes the open nodes at depth or deeper (-1: all), giving
 * each its self weight, inclusive minus its children's.
 */

#endif
