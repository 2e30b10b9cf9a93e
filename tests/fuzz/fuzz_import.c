/*
 * libFuzzer target for the importers. PD_FUZZ_FORMAT names the format to
 * force ("" sniffs). The bytes go through a memfd so the whole path runs:
 * decompression, BOM/UTF-16 decoding, sniffing, parsing, aggregation and
 * a diff against itself. An ETW trace is read as each of its profiles
 * (CPU, VirtualAlloc, disk I/O, hard faults, file I/O), chosen by its length.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "import/import.h"
#include "model/func.h"
#include "stats/diff.h"

#ifndef PD_FUZZ_FORMAT
#define PD_FUZZ_FORMAT ""
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_import_opts o;
	struct pd_profile p;
	struct pd_err err = PD_ERR_INIT;
	char path[64];
	int fd = memfd_create("pdfuzz", 0);

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&o, 0, sizeof(o));
	o.from = *PD_FUZZ_FORMAT ? PD_FUZZ_FORMAT : NULL;
	o.perf = "/nonexistent/perf"; /* a perf.data input runs no perf */
	if (!strcmp(PD_FUZZ_FORMAT, "etl")) {
		/* each of a trace's profiles, by the input's length */
		static const char *const events[] = { NULL, "virtualalloc",
						      "diskio", "hardfault",
						      "fileio" };

		o.event = events[size % 5];
	}
	pd_profile_init(&p);
	if (pd_import(&p, path, &o, &err) == 0) {
		struct pd_funcs fn;
		struct pd_settings set;
		struct pd_diff d;

		pd_settings_default(&set);
		pd_funcs_init(&fn, 0);
		pd_diff_compute(&d, &p, &p, &fn, &set);
		pd_diff_release(&d);
		pd_funcs_release(&fn);
	} else if (!err.msg[0] || strchr(err.msg, '\n')) {
		__builtin_trap(); /* errors are one line, never empty */
	}
	pd_profile_release(&p);
	close(fd);
	return 0;
}
