/*
 * The ETW reader's entry: the state a trace fills, the walk, then the
 * profile (docs/formats.md, "Windows ETW traces"); and the counts of what it
 * decoded, by PerfView's event names, for checks against PerfView.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/limits.h"
#include "import/etl/etl_int.h"

/* Samples and stack events by thread, then time: how they are joined. */
static int cmp_sample(const void *a, const void *b)
{
	const struct etl_sample *x = a, *y = b;

	return pd_etl_cmp2(x->tid, x->ts, y->tid, y->ts);
}

/* Key references (by their own time) and definitions by key, then time:
 * how keys resolve. */
static int cmp_key(const void *a, const void *b)
{
	const struct etl_sref *x = a, *y = b;

	return pd_etl_cmp2(x->key, x->kts, y->key, y->kts);
}

static int cmp_cswitch(const void *a, const void *b)
{
	const struct etl_cswitch *x = a, *y = b;

	return pd_etl_cmp2(x->ts, x->new_tid, y->ts, y->new_tid);
}

static int cmp_kdef(const void *a, const void *b)
{
	const struct etl_kdef *x = a, *y = b;

	return pd_etl_cmp2(x->key, x->ts, y->key, y->ts);
}

/* An I/O's start before its end at one time: its IRP, then its time. */
static int cmp_disk(const void *a, const void *b)
{
	const struct etl_disk *x = a, *y = b;
	int c = pd_etl_cmp2(x->irp, x->ts, y->irp, y->ts);

	return c ? c : x->done - y->done;
}

/* A table of records of size held up to PD_LIMIT_ETL_MEMORY (or n). */
static void table(struct etl_table *t, size_t size,
		  int (*cmp)(const void *, const void *), size_t n)
{
	pd_etl_table_init(t, size, cmp, n ? n : PD_LIMIT_ETL_MEMORY / size);
}

void pd_etl_state_init(struct etl_state *st, const char *path,
		       const struct pd_import_opts *o, size_t records)
{
	memset(st, 0, sizeof(*st));
	st->path = path;
	st->o = o;
	pd_intern_init(&st->strs);
	pd_intern_init(&st->stacks);
	table(&st->samples, sizeof(struct etl_sample), cmp_sample, records);
	table(&st->srefs, sizeof(struct etl_sref), pd_etl_cmp_sref, records);
	table(&st->krefs, sizeof(struct etl_sref), cmp_key, records);
	table(&st->kdefs, sizeof(struct etl_kdef), cmp_kdef, records);
	table(&st->cswitch, sizeof(struct etl_cswitch), cmp_cswitch, records);
	table(&st->disk, sizeof(struct etl_disk), cmp_disk, records);
	st->cswitch.spill = st->disk.spill = &st->spill;
	st->samples.spill = st->srefs.spill = &st->spill;
	st->krefs.spill = st->kdefs.spill = &st->spill;
	st->inflate = PD_LIMIT_ETL_INFLATE;
	st->spill.ratio = PD_LIMIT_ETL_SPILL;
	st->spill.floor = PD_LIMIT_ETL_SPILL_FLOOR;
}

void pd_etl_state_release(struct etl_state *st)
{
	pd_intern_release(&st->strs);
	pd_intern_release(&st->stacks);
	pd_etl_table_release(&st->samples);
	pd_etl_table_release(&st->srefs);
	pd_etl_table_release(&st->krefs);
	pd_etl_table_release(&st->kdefs);
	pd_etl_table_release(&st->cswitch);
	PD_VEC_FREE(&st->waits);
	pd_etl_table_release(&st->disk);
	PD_VEC_FREE(&st->ranges);
	PD_VEC_FREE(&st->threads);
	PD_VEC_FREE(&st->procs);
	PD_VEC_FREE(&st->pend);
	free(st->fslots);
	st->fslots = NULL;
}

int pd_etl_import(struct pd_input *in, struct pd_profile *p,
		  const struct pd_import_opts *o, struct pd_err *err)
{
	return pd_etl_import_held(in, p, o, 0, err);
}

int pd_etl_import_held(struct pd_input *in, struct pd_profile *p,
		       const struct pd_import_opts *o, size_t records,
		       struct pd_err *err)
{
	struct etl_state st;
	int rc;

	pd_etl_state_init(&st, in->path, o, records);
	if (o->event && !strcasecmp(o->event, "virtualalloc"))
		st.valloc = 1;
	else if (o->event && !strcasecmp(o->event, "diskio"))
		st.diskio = st.io = 1;
	else if (o->event && !strcasecmp(o->event, "hardfault"))
		st.hardfault = st.io = 1;
	else if (o->event && !strcasecmp(o->event, "fileio"))
		st.fileio = st.io = 1;
	else if (o->event && strcasecmp(o->event, "cpu")) {
		pd_etl_state_release(&st);
		return pd_err_set(err, PD_EUSAGE,
				  "%s: --event %s: an ETW trace gives 'cpu'"
				  " (its CPU samples, the default),"
				  " 'virtualalloc' (bytes committed by"
				  " VirtualAlloc), 'diskio' (disk reads' and"
				  " writes' service time), 'fileio' (file"
				  " reads' and writes' time) or 'hardfault'"
				  " (the time threads waited for pages read"
				  " in)",
				  in->path, o->event);
	}
	rc = pd_etl_walk(in, &st, err);
	if (rc == 0)
		rc = pd_etl_build(&st, p, err);
	pd_etl_state_release(&st);
	return rc;
}

const char *pd_etl_kind_name(enum pd_etl_kind k)
{
	static const char *const names[PD_ETL_KINDS] = {
		[PD_ETL_SAMPLE] = "Windows Kernel/PerfInfo/Sample",
		[PD_ETL_SAMPLE_IDLE] = "Windows Kernel/PerfInfo/Sample (idle)",
		[PD_ETL_STACKWALK] = "Windows Kernel/StackWalk/Stack",
		[PD_ETL_STACK_KEY] = "Windows Kernel/StackWalk/StackKey",
		[PD_ETL_STACK_KEYDEF] =
		    "Windows Kernel/StackWalk/KeyDefinition",
		[PD_ETL_IMAGE_LOAD] = "Windows Kernel/Image/Load",
		[PD_ETL_IMAGE_UNLOAD] = "Windows Kernel/Image/Unload",
		[PD_ETL_IMAGE_DCSTART] = "Windows Kernel/Image/DCStart",
		[PD_ETL_IMAGE_DCSTOP] = "Windows Kernel/Image/DCStop",
		[PD_ETL_PROCESS_START] = "Windows Kernel/Process/Start",
		[PD_ETL_PROCESS_STOP] = "Windows Kernel/Process/Stop",
		[PD_ETL_PROCESS_DCSTART] = "Windows Kernel/Process/DCStart",
		[PD_ETL_PROCESS_DCSTOP] = "Windows Kernel/Process/DCStop",
		[PD_ETL_PROCESS_DEFUNCT] = "Windows Kernel/Process/Defunct",
		[PD_ETL_THREAD_START] = "Windows Kernel/Thread/Start",
		[PD_ETL_THREAD_STOP] = "Windows Kernel/Thread/Stop",
		[PD_ETL_THREAD_DCSTART] = "Windows Kernel/Thread/DCStart",
		[PD_ETL_THREAD_DCSTOP] = "Windows Kernel/Thread/DCStop",
		[PD_ETL_DBGID_RSDS] = "KernelTraceControl/ImageID/DbgID_RSDS",
		[PD_ETL_METHOD_LOAD] =
		    "Microsoft-Windows-DotNETRuntime/Method/LoadVerbose",
		[PD_ETL_METHOD_UNLOAD] =
		    "Microsoft-Windows-DotNETRuntime/Method/UnloadVerbose",
		[PD_ETL_METHOD_DCSTART] = "Microsoft-Windows-DotNETRuntimeRundo"
					  "wn/Method/DCStartVerbose",
		[PD_ETL_METHOD_DCSTOP] = "Microsoft-Windows-DotNETRuntimeRundo"
					 "wn/Method/DCStopVerbose",
		[PD_ETL_VIRTUAL_ALLOC] =
		    "Windows Kernel/PageFault/VirtualAlloc",
		[PD_ETL_VIRTUAL_FREE] = "Windows Kernel/PageFault/VirtualFree",
		[PD_ETL_DISK_READ] = "Windows Kernel/DiskIO/Read",
		[PD_ETL_DISK_WRITE] = "Windows Kernel/DiskIO/Write",
		[PD_ETL_FILE_CREATE] = "Windows Kernel/FileIO/Create",
		[PD_ETL_FILE_READ] = "Windows Kernel/FileIO/Read",
		[PD_ETL_FILE_WRITE] = "Windows Kernel/FileIO/Write",
		[PD_ETL_HARD_FAULT] = "Windows Kernel/Memory/HardFault",
		[PD_ETL_CSWITCH] = "Windows Kernel/Thread/CSwitch",
		[PD_ETL_READY_THREAD] = "Windows Kernel/Dispatcher/ReadyThread",
		[PD_ETL_ALLOC_TICK] =
		    "Microsoft-Windows-DotNETRuntime/GC/AllocationTick",
	};

	return (unsigned)k < PD_ETL_KINDS ? names[k] : "?";
}

int pd_etl_count(const char *path, uint64_t *counts, struct pd_err *err)
{
	struct pd_import_opts o;
	struct pd_input in;
	struct etl_state st;
	int rc;

	memset(&o, 0, sizeof(o));
	pd_etl_state_init(&st, path, &o, 0);
	st.count_only = 1;
	rc = pd_input_open(&in, path, err);
	if (rc == 0)
		rc = pd_etl_walk(&in, &st, err);
	pd_input_close(&in);
	memcpy(counts, st.counts, sizeof(st.counts));
	pd_etl_state_release(&st);
	return rc;
}
