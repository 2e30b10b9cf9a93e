/*
 * Every cap perfdiff puts on its input and output, named once with its
 * reason. A cap is a promise of bounded time and memory on hostile input,
 * never a silent cut: reaching one is an error (PD_ETOOBIG) with one
 * message shape, "WHERE: over perfdiff's limit of N WHAT (NAME in
 * src/core/limits.h)", from pd_err_limit (or pd_die_limit where no error
 * record reaches, the 32-bit ids), except where noted: the report caps
 * shorten a report and say so in it. docs/reliability.md lists them for
 * users. Raising one is a rebuild with -DNAME=N; each says what grows.
 */
#ifndef PD_LIMITS_H
#define PD_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/*
 * Nesting of JSON and XML documents, in levels. The formats nest fewer
 * than ten (speedscope, samply/Firefox, DHAT, samply sidecars, xctrace):
 * a document deeper than this is no profile, and each level costs a
 * small record of the reader's state.
 */
#ifndef PD_LIMIT_JSON_DEPTH
#define PD_LIMIT_JSON_DEPTH 64
#endif
/* The old V8 .cpuprofile nests one JSON level per call frame. */
#ifndef PD_LIMIT_CALL_DEPTH
#define PD_LIMIT_CALL_DEPTH 4096
#endif
/*
 * Distinct names, frames and stack-tree nodes of one profile: ids are 32
 * bits. 4 294 967 294 of each, far beyond a real profile's memory.
 */
#ifndef PD_LIMIT_IDS
#define PD_LIMIT_IDS 4294967294u
#endif
/*
 * Distinct call paths of one imported profile (its stack tree's nodes,
 * 40 to 70 bytes each): 134 million is about 5 to 9 GB. The worst real
 * shape measured, a merged Go pprof of 100 MB, holds 20 million; a
 * hostile file of distinct deep stacks reaches any number. The
 * environment's PERFDIFF_LIMIT_NODES raises it.
 */
#ifndef PD_LIMIT_NODES
#define PD_LIMIT_NODES ((size_t)1 << 27)
#endif
/*
 * Bytes in one name (a function, module, thread or event) of an imported
 * profile, and in one JSON string or number still being read. The
 * longest demangled C++ template names run to tens of KiB, and JSON
 * readers are tested with 3 MiB tokens; past 16 MiB a name is no symbol,
 * while a kilobyte of gzip can hold a gibibyte-long one that each buffer
 * on the way (the token or line read, the intern table) would copy.
 */
#ifndef PD_LIMIT_NAME
#define PD_LIMIT_NAME ((size_t)16 << 20)
#endif
/* Folders inside a bundle (a link loop is refused before this). */
#ifndef PD_LIMIT_BUNDLE_DEPTH
#define PD_LIMIT_BUNDLE_DEPTH 16
#endif
/* build_meta.json: a few keys; larger is not a bundle's metadata. */
#ifndef PD_LIMIT_BUILD_META
#define PD_LIMIT_BUILD_META ((size_t)1 << 20)
#endif
/* A compilation database read by `bundle init --cflags-from`. */
#ifndef PD_LIMIT_COMPILE_DB
#define PD_LIMIT_COMPILE_DB ((size_t)64 << 20)
#endif
/*
 * Symbol folders (--symbols): levels listed below each, and entries
 * listed in all (a home folder would take minutes); the files checked
 * for one library. Past these a folder is listed no further, with a note.
 */
#ifndef PD_LIMIT_SYMBOL_DIR_DEPTH
#define PD_LIMIT_SYMBOL_DIR_DEPTH 8
#endif
#ifndef PD_LIMIT_SYMBOL_DIR_ENTRIES
#define PD_LIMIT_SYMBOL_DIR_ENTRIES 500000
#endif
#ifndef PD_LIMIT_SYMBOL_CANDIDATES
#define PD_LIMIT_SYMBOL_CANDIDATES 256
#endif
/*
 * Binary headers read for identity and symbols (objid.c, elf.c): section
 * and load-command counts real files stay far below, and the largest
 * table read into memory. A file past them is not used, with a note.
 */
#ifndef PD_LIMIT_OBJ_SECTIONS
#define PD_LIMIT_OBJ_SECTIONS 1024
#endif
#ifndef PD_LIMIT_MACHO_LOADCMDS
#define PD_LIMIT_MACHO_LOADCMDS 4096
#endif
#ifndef PD_LIMIT_PDB_DIRECTORY
#define PD_LIMIT_PDB_DIRECTORY ((size_t)64 << 20)
#endif
#ifndef PD_LIMIT_ELF_SECTIONS
#define PD_LIMIT_ELF_SECTIONS 65535
#endif
#ifndef PD_LIMIT_SYMBOL_TABLE
#define PD_LIMIT_SYMBOL_TABLE ((size_t)1 << 30)
#endif
/*
 * Stacks of one thread of a samply/Firefox profile. Samples name their
 * stack by index, and their weights, CPU deltas and times are summed per
 * stack as they stream by, before the stack table is read: an index is
 * memory (20 bytes a stack) before it can be checked. 16 million stacks
 * is a stack table of hundreds of megabytes.
 */
#ifndef PD_LIMIT_FF_STACKS
#define PD_LIMIT_FF_STACKS ((size_t)1 << 24)
#endif
/* One top-level pprof field (a sample is a few bytes; a table less). */
#ifndef PD_LIMIT_PPROF_FIELD
#define PD_LIMIT_PPROF_FIELD ((size_t)1 << 30)
#endif
/*
 * An ETW trace's samples, stack events, key references and definitions,
 * kept until the trace ends (its stacks, processes and images come in any
 * order across the processors' buffers): 24 to 48 bytes each, in memory
 * up to PD_LIMIT_ETL_MEMORY bytes of each kind, then in sorted runs in
 * temporary files. A day of sampling eight processors at 1 kHz is 690
 * million samples before the idle loop's are dropped; most traces are a
 * few minutes.
 */
#ifndef PD_LIMIT_ETL_RECORDS
#define PD_LIMIT_ETL_RECORDS (1ULL << 32)
#endif
#ifndef PD_LIMIT_ETL_MEMORY
#define PD_LIMIT_ETL_MEMORY ((size_t)8 << 20)
#endif
/*
 * What a gzip or bzip2 input may expand to: its decompressed bytes at
 * most PD_LIMIT_INFLATE times the file's bytes read by then, plus
 * PD_LIMIT_INFLATE_FLOOR. Profiles compress 2 to 70 times (perf script
 * text, folded stacks, JSON), while gzip can claim 1 000 bytes for one
 * and bzip2 over 10 000: a few megabytes that decompress to terabytes
 * would keep a reader busy for hours. Checked as the bytes come; the
 * environment's PERFDIFF_LIMIT_INFLATE (a ratio) and
 * PERFDIFF_LIMIT_INFLATE_FLOOR (bytes) raise it.
 */
#ifndef PD_LIMIT_INFLATE
#define PD_LIMIT_INFLATE 256
#endif
#ifndef PD_LIMIT_INFLATE_FLOOR
#define PD_LIMIT_INFLATE_FLOOR ((uint64_t)1 << 30)
#endif
/*
 * What an ETW trace's compressed buffers may expand to, in all: the
 * events' bytes at most PD_LIMIT_ETL_INFLATE times the bytes read from
 * the file by then, plus PD_LIMIT_ETL_INFLATE_FLOOR. Real traces expand
 * 4.7 times (a buffer at most 13.4: the .NET trace of PerfView's tests),
 * while a few bytes of LZ77 can claim a buffer of 64 MiB, millions of
 * samples each. Checked before a buffer is expanded; the environment's
 * PERFDIFF_LIMIT_ETL_INFLATE (a ratio) raises it without a rebuild.
 */
#ifndef PD_LIMIT_ETL_INFLATE
#define PD_LIMIT_ETL_INFLATE 32
#endif
#ifndef PD_LIMIT_ETL_INFLATE_FLOOR
#define PD_LIMIT_ETL_INFLATE_FLOOR ((uint64_t)16 << 20)
#endif
/*
 * Bytes of an ETW trace's records in temporary files at once: at most
 * PD_LIMIT_ETL_SPILL times the bytes read from the file, plus 256 MiB,
 * and never more than half the space free in the temporary folder when
 * the first run was written (a full disk is an error before it is a full
 * disk). A record is 24 to 48 bytes and an event at least 24, so a real
 * trace's records stay within a few times its bytes.
 * PERFDIFF_LIMIT_ETL_SPILL (a ratio) raises the first bound; TMPDIR
 * chooses the folder.
 */
#ifndef PD_LIMIT_ETL_SPILL
#define PD_LIMIT_ETL_SPILL 16
#endif
#ifndef PD_LIMIT_ETL_SPILL_FLOOR
#define PD_LIMIT_ETL_SPILL_FLOOR ((uint64_t)256 << 20)
#endif
/*
 * Context switches, wakeups and switch-ins of one perf recording, kept
 * until the file ends to pair each switch-out with its thread's next
 * switch-in (docs/formats.md, "Off-CPU time"): 24 bytes each, and 16
 * more while they are paired, so 8 Mi of them is about 340 MB. A busy
 * machine switches some 20 000 times a second: several minutes of
 * sched_switch at every switch. PERFDIFF_LIMIT_PERF_SWITCHES raises it
 * without a rebuild.
 */
#ifndef PD_LIMIT_PERF_SWITCHES
#define PD_LIMIT_PERF_SWITCHES ((uint64_t)1 << 23)
#endif
/* One buffer of an ETW trace (ETW writes at most 1 MiB today). */
#ifndef PD_LIMIT_ETL_BUFFER
#define PD_LIMIT_ETL_BUFFER ((uint32_t)64 << 20)
#endif
/* What an external symbolizer may print for one batch. */
#ifndef PD_LIMIT_SYMBOLIZER_OUTPUT
#define PD_LIMIT_SYMBOLIZER_OUTPUT ((size_t)1 << 30)
#endif
/*
 * Reports: the HTML flame graph's nodes (more would stall a browser; the
 * smallest are merged and the page says how many), and the Markdown
 * report's bytes, all its series together (a GitHub comment holds 65 536
 * characters; tables are cut, parts left out, and each cut is said:
 * docs/reports.md, "Several series").
 */
#ifndef PD_LIMIT_FLAME_NODES
#define PD_LIMIT_FLAME_NODES 300000
#endif
#ifndef PD_LIMIT_MARKDOWN_BYTES
#define PD_LIMIT_MARKDOWN_BYTES 60000
#endif
/* perfdiff site: a comparison page read back to add its links (bytes). */
#ifndef PD_LIMIT_SITE_PAGE
#define PD_LIMIT_SITE_PAGE ((size_t)1 << 30)
#endif

/*
 * Records "WHERE: over perfdiff's limit of N WHAT (NAME in
 * src/core/limits.h)" as PD_ETOOBIG; returns PD_ETOOBIG.
 */
int pd_err_limit(struct pd_err *err, const char *where, unsigned long long n,
		 const char *what, const char *name);
/* The same text for readers whose error path takes a message. */
const char *pd_limit_text(char *buf, size_t size, unsigned long long n,
			  const char *what, const char *name);
/*
 * A cap the environment may raise: the value of the variable env (a
 * whole number from 1) in *n, else dflt. Anything else there is an
 * error naming the variable (PD_EUSAGE).
 */
PD_NODISCARD int pd_limit_env(const char *env, unsigned long long dflt,
			      unsigned long long *n, struct pd_err *err);
/*
 * A cap that grows with the input: floor + ratio * n, or UINT64_MAX
 * where that overflows (PD_LIMIT_ETL_INFLATE, PD_LIMIT_ETL_SPILL).
 */
uint64_t pd_limit_scaled(uint64_t floor, unsigned long long ratio, uint64_t n);
/* For a cap no error record reaches: prints the message and exits 2. */
PD_NORETURN void pd_die_limit(unsigned long long n, const char *what,
			      const char *name);

#endif
