/*
 * Windows ETW traces (.etl, and PerfView's .etl.zip): CPU samples with
 * their stacks read into a profile without any Windows API
 * (docs/formats.md, "Windows ETW traces").
 */
#ifndef PD_ETL_H
#define PD_ETL_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/input.h"
#include "import/formats.h"
#include "model/profile.h"

/* Nonzero when head starts an ETW trace or a zip whose first member is. */
int pd_etl_sniff(const char *head, size_t len);
PD_NODISCARD int pd_etl_import(struct pd_input *in, struct pd_profile *p,
			       const struct pd_import_opts *o,
			       struct pd_err *err);
/*
 * pd_etl_import holding at most `records` samples (and as many stack
 * events) in memory before it sorts them into temporary files (0: the
 * default, PD_LIMIT_ETL_MEMORY's worth); the profile is the same.
 */
PD_NODISCARD int pd_etl_import_held(struct pd_input *in, struct pd_profile *p,
				    const struct pd_import_opts *o,
				    size_t records, struct pd_err *err);

/*
 * How many of each kernel and CLR event the reader decodes a trace held,
 * named as PerfView names them (provider/task/opcode); samples counts the
 * PerfInfo/Sample events that are not the idle loop's (a sample of thread
 * 0 outside a DPC or an interrupt), as PerfView counts them.
 */
enum pd_etl_kind {
	PD_ETL_SAMPLE,
	PD_ETL_SAMPLE_IDLE,
	PD_ETL_STACKWALK,
	PD_ETL_STACK_KEY,
	PD_ETL_STACK_KEYDEF,
	PD_ETL_IMAGE_LOAD,
	PD_ETL_IMAGE_UNLOAD,
	PD_ETL_IMAGE_DCSTART,
	PD_ETL_IMAGE_DCSTOP,
	PD_ETL_PROCESS_START,
	PD_ETL_PROCESS_STOP,
	PD_ETL_PROCESS_DCSTART,
	PD_ETL_PROCESS_DCSTOP,
	PD_ETL_PROCESS_DEFUNCT,
	PD_ETL_THREAD_START,
	PD_ETL_THREAD_STOP,
	PD_ETL_THREAD_DCSTART,
	PD_ETL_THREAD_DCSTOP,
	PD_ETL_DBGID_RSDS,
	PD_ETL_METHOD_LOAD,
	PD_ETL_METHOD_UNLOAD,
	PD_ETL_METHOD_DCSTART,
	PD_ETL_METHOD_DCSTOP,
	PD_ETL_VIRTUAL_ALLOC,
	PD_ETL_VIRTUAL_FREE,
	/* read but not compared yet: named in one note */
	PD_ETL_DISK_READ,
	PD_ETL_DISK_WRITE,
	PD_ETL_FILE_CREATE,
	PD_ETL_FILE_READ,
	PD_ETL_FILE_WRITE,
	PD_ETL_HARD_FAULT,
	PD_ETL_CSWITCH,
	PD_ETL_READY_THREAD,
	PD_ETL_ALLOC_TICK,
	PD_ETL_KINDS
};
/* PerfView's name of a kind ("Windows Kernel/PerfInfo/Sample"). */
const char *pd_etl_kind_name(enum pd_etl_kind k);
/* Counts the kinds of path's events into counts[PD_ETL_KINDS]. */
PD_NODISCARD int pd_etl_count(const char *path, uint64_t *counts,
			      struct pd_err *err);

/*
 * Undoes the "plain LZ77" compression of [MS-XCA] section 2.3 (what ETW
 * writes in compressed buffers): n bytes at src into at most cap bytes at
 * dst. Returns the bytes written, or -1 with *bad the offset in src where
 * the data stopped making sense (a match before the output's start, a
 * length or output past the end).
 */
PD_NODISCARD long pd_xpress_lz77(const unsigned char *src, size_t n,
				 unsigned char *dst, size_t cap, size_t *bad);

#endif
