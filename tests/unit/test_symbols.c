/*
 * Unit tests for symbolication: debug ids, symbolizer batches and output
 * lines, and the identity readers on headers written byte by byte.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>

#include "testutil.h"

#include <ctype.h>

#include "import/symbols/objid.h"
#include "import/symbols/symbolizer.h"
#include "import/symbols/symbols.h"

__attribute__((noinline)) int pd_test_marker_function(int x);
int main(int argc, char **argv);

/* A function's address as data (ISO C has no cast for it). */
static void *code_addr(int (*f)(int))
{
	void *p;

	memcpy(&p, &f, sizeof(p));
	return p;
}

static void *code_addr0(int (*f)(int, char **))
{
	void *p;

	memcpy(&p, &f, sizeof(p));
	return p;
}

/* This program's file: ctest runs it by its full path (argv[0]). */
static const char *self;

static int self_is_elf(void)
{
	struct pd_objid id;

	return self && pd_objid_file(self, &id) == 0 && id.kind == PD_OBJ_ELF;
}

int pd_test_marker_function(int x)
{
	return x * 3 + 1;
}

static void test_debugid(void **state)
{
	char out[42];

	(void)state;
	pd_debugid_norm("f635824e-318b-3f0c-842c-c369737f2b68", out);
	assert_string_equal(out, "F635824E318B3F0C842CC369737F2B680");
	pd_debugid_norm("F635824E318B3F0C842CC369737F2B680", out);
	assert_string_equal(out, "F635824E318B3F0C842CC369737F2B680");
	/* An age of two digits stays whole (it was cut to one). */
	pd_debugid_norm("00112233-4455-6677-8899-aabbccddeeff-1a", out);
	assert_string_equal(out, "00112233445566778899AABBCCDDEEFF1A");
	pd_debugid_norm("00112233445566778899AABBCCDDEEFF01", out);
	assert_string_equal(out, "00112233445566778899AABBCCDDEEFF1");
	pd_debugid_norm("deadbeef", out); /* not an id */
	assert_string_equal(out, "");
	pd_debugid_norm(NULL, out);
	assert_string_equal(out, "");
}

static void test_llvm_batch(void **state)
{
	Dl_info info;
	struct pd_symreq reqs[3];
	struct pd_symtool tool;
	struct pd_symjob job;
	size_t got;

	(void)state;
	pd_symtool_find(NULL, &tool);
	if (!tool.path || !self_is_elf()) {
		free(tool.path);
		skip();
		return;
	}
	assert_true(dladdr(code_addr(pd_test_marker_function), &info));
	memset(reqs, 0, sizeof(reqs));
	/* Inside the function, a bogus address, and main: one batch. */
	reqs[0].addr = (uint64_t)((char *)code_addr(pd_test_marker_function) -
				  (char *)info.dli_fbase) +
		       2;
	reqs[1].addr = 0x10; /* the ELF header: no symbol there */
	assert_true(dladdr(code_addr0(main), &info));
	reqs[2].addr =
	    (uint64_t)((char *)code_addr0(main) - (char *)info.dli_fbase);
	memset(&job, 0, sizeof(job));
	job.obj = self;
	got = pd_symtool_run(&tool, &job, reqs, 3);
	assert_int_equal(got, 2);
	assert_string_equal(reqs[0].name, "pd_test_marker_function");
	assert_null(reqs[1].name);
	assert_string_equal(reqs[2].name, "main");
	free(reqs[0].name);
	free(reqs[2].name);
	free(tool.path);
	assert_int_equal(pd_test_marker_function(1), 4);
}

/* The ELF reader (ours, or libelf's) names this very test program. */
static void test_elf_self(void **state)
{
	Dl_info info;
	struct pd_symreq reqs[3];
	struct pd_objid id;

	(void)state;
	if (!self_is_elf()) {
		skip();
		return;
	}
	memset(reqs, 0, sizeof(reqs));
	assert_true(dladdr(code_addr(pd_test_marker_function), &info));
	reqs[0].addr = (uint64_t)((char *)code_addr(pd_test_marker_function) -
				  (char *)info.dli_fbase) +
		       1;
	reqs[1].addr = 0x10; /* the header: no function */
	assert_true(dladdr(code_addr0(main), &info));
	reqs[2].addr =
	    (uint64_t)((char *)code_addr0(main) - (char *)info.dli_fbase);
	assert_int_equal(pd_objid_file(self, &id), 0);
	assert_int_equal(pd_symbols_elf(self, id.image_base, reqs, 3), 2);
	assert_string_equal(reqs[0].name, "pd_test_marker_function");
	assert_null(reqs[1].name);
	assert_string_equal(reqs[2].name, "main");
	free(reqs[0].name);
	free(reqs[2].name);
	/* Not ELF: nothing, no error. */
	memset(reqs, 0, sizeof(reqs));
	assert_int_equal(pd_symbols_elf(PD_SOURCE_DIR "/README.md", 0, reqs, 1),
			 0);
}

/*
 * PLT stubs are named as perf and binutils name them: every "name@plt"
 * label objdump prints for this test program's .plt/.plt.sec is the name
 * perfdiff gives that address (objdump is the independent count).
 */
static void test_plt_objdump(void **state)
{
	char cmd[1024], line[512];
	struct pd_symreq reqs[64];
	char *want[64];
	size_t n = 0, i;
	FILE *f;

	(void)state;
	if (!self_is_elf() || system("objdump --version >/dev/null 2>&1")) {
		skip();
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn -j .plt -j .plt.sec '%s'"
		 " 2>/dev/null",
		 self);
	f = popen(cmd, "r");
	assert_non_null(f);
	memset(reqs, 0, sizeof(reqs));
	while (n < 64 && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char name[256];

		if (sscanf(line, "%llx <%255[^>]>:", &a, name) == 2 &&
		    strstr(name, "@plt") && !strchr(name, '-') &&
		    !strchr(name, '+')) {
			reqs[n].addr = a + 2; /* inside the stub */
			want[n++] = strdup(name);
		}
	}
	pclose(f);
	assert_true(n >= 3); /* memset, strdup, popen, ... are called here */
	assert_int_equal(pd_symbols_elf(self, 0, reqs, n), n);
	for (i = 0; i < n; i++) {
		assert_string_equal(reqs[i].name, want[i]);
		free(reqs[i].name);
		free(want[i]);
	}
}

static void test_tool_lines(void **state)
{
	char *s;

	(void)state;
	s = pd_symtool_name(PD_SYMTOOL_ATOS,
			    "parse_record (in app) (app.c:12)");
	assert_string_equal(s, "parse_record");
	free(s);
	s = pd_symtool_name(PD_SYMTOOL_ATOS,
			    "Foo::bar(int) (in libfoo.dylib) + 24");
	assert_string_equal(s, "Foo::bar(int)");
	free(s);
	assert_null(pd_symtool_name(PD_SYMTOOL_ATOS, "0x100003f40"));
	assert_null(pd_symtool_name(PD_SYMTOOL_LLVM, "??"));
	s = pd_symtool_name(PD_SYMTOOL_LLVM, "hash_key");
	assert_string_equal(s, "hash_key");
	free(s);
}

/* ---- headers written byte by byte from the formats' layouts ---- */

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void putbe32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static const unsigned char guid[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
					0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
					0xcc, 0xdd, 0xee, 0xff };
/* GUID fields 1-3 little-endian, then the bytes, then the age in hex. */
#define GUID_TEXT                                                              \
	"33221100"                                                             \
	"5544"                                                                 \
	"7766"                                                                 \
	"8899AABBCCDDEEFF"

static size_t make_pe(unsigned char *f)
{
	const char *pdb = "C:\\build\\out\\app.pdb";

	memset(f, 0, 0x600);
	f[0] = 'M';
	f[1] = 'Z';
	put32(f + 0x3c, 0x80);
	memcpy(f + 0x80, "PE\0\0", 4);
	put16(f + 0x84, 0x8664);
	put16(f + 0x86, 1);	     /* sections */
	put32(f + 0x88, 0x5F3E1234); /* TimeDateStamp */
	put16(f + 0x94, 240);	     /* SizeOfOptionalHeader */
	put16(f + 0x98, 0x20b);	     /* PE32+ */
	put64(f + 0x98 + 24, 0x140000000ull);
	put32(f + 0x98 + 56, 0x5000);	    /* SizeOfImage */
	put32(f + 0x98 + 108, 16);	    /* data directories */
	put32(f + 0x98 + 112 + 48, 0x2000); /* debug directory RVA */
	put32(f + 0x98 + 112 + 52, 28);
	memcpy(f + 0x188, ".rdata", 6);
	put32(f + 0x188 + 8, 0x1000);
	put32(f + 0x188 + 12, 0x2000);
	put32(f + 0x188 + 16, 0x200);
	put32(f + 0x188 + 20, 0x400);
	put32(f + 0x400 + 12, 2); /* CODEVIEW */
	put32(f + 0x400 + 16, (uint32_t)(24 + strlen(pdb) + 1));
	put32(f + 0x400 + 24, 0x420);
	memcpy(f + 0x420, "RSDS", 4);
	memcpy(f + 0x424, guid, 16);
	put32(f + 0x434, 0x1A);
	memcpy(f + 0x438, pdb, strlen(pdb) + 1);
	return 0x600;
}

static void test_objid_pe(void **state)
{
	unsigned char f[0x600];
	size_t n = make_pe(f), k;
	struct pd_objid id;
	uint64_t base;

	(void)state;
	assert_int_equal(pd_objid_mem(f, n, &id), PD_OBJ_PE);
	assert_string_equal(id.code_id, "5F3E12345000");
	assert_string_equal(id.debug_id, GUID_TEXT "1A");
	assert_string_equal(id.pdb_name, "app.pdb");
	assert_true(id.image_base == 0x140000000ull);
	assert_int_equal(pd_objid_match(&id, NULL, "5f3e12345000", &base), 1);
	assert_true(base == 0x140000000ull);
	assert_int_equal(pd_objid_match(&id, GUID_TEXT "1A", NULL, &base), 1);
	/* Another age, another timestamp: another build. */
	assert_int_equal(pd_objid_match(&id, GUID_TEXT "1B", NULL, &base), 0);
	assert_int_equal(pd_objid_match(&id, NULL, "5F3E12355000", &base), 0);
	assert_int_equal(pd_objid_match(&id, NULL, NULL, &base), -1);
	/* Every truncation reads as much as it can and never past the end. */
	for (k = 0; k < n; k++)
		pd_objid_mem(f, k, &id);
}

static size_t make_pdb(unsigned char *f)
{
	const uint32_t bs = 512;

	memset(f, 0, 7 * bs);
	memcpy(f,
	       "Microsoft C/C++ MSF 7.00\r\n\x1a"
	       "DS\0\0\0",
	       32);
	put32(f + 32, bs);
	put32(f + 36, 1);		  /* free block map */
	put32(f + 40, 7);		  /* blocks */
	put32(f + 44, 4 + 4 * 4 + 4 * 2); /* directory bytes */
	put32(f + 52, 3);		  /* block map at block 3 */
	put32(f + 3 * bs, 4);		  /* the directory is block 4 */
	put32(f + 4 * bs, 4);		  /* streams */
	put32(f + 4 * bs + 4, 0);
	put32(f + 4 * bs + 8, 28);
	put32(f + 4 * bs + 12, 0);
	put32(f + 4 * bs + 16, 12);
	put32(f + 4 * bs + 20, 5); /* stream 1 in block 5 */
	put32(f + 4 * bs + 24, 6); /* stream 3 in block 6 */
	put32(f + 5 * bs, 20000404);
	put32(f + 5 * bs + 8, 3); /* the info stream's age */
	memcpy(f + 5 * bs + 12, guid, 16);
	put32(f + 6 * bs, 0xffffffffu);
	put32(f + 6 * bs + 4, 19990903);
	put32(f + 6 * bs + 8, 0x1A); /* the DBI age, which exes record */
	return 7 * bs;
}

static void test_objid_pdb(void **state)
{
	unsigned char f[7 * 512];
	size_t n = make_pdb(f), k;
	struct pd_objid id;
	uint64_t base;

	(void)state;
	assert_int_equal(pd_objid_mem(f, n, &id), PD_OBJ_PDB);
	assert_string_equal(id.debug_id, GUID_TEXT "1A");
	assert_int_equal(
	    pd_objid_match(&id, GUID_TEXT "1A", "5F3E12345000", &base), 1);
	assert_int_equal(pd_objid_match(&id, GUID_TEXT "3", NULL, &base), 0);
	for (k = 0; k < n; k++)
		pd_objid_mem(f, k, &id);
	/* A directory block out of range: a PDB without an id, no crash. */
	put32(f + 3 * 512, 99);
	assert_int_equal(pd_objid_mem(f, n, &id), PD_OBJ_PDB);
	assert_string_equal(id.debug_id, "");
}

static void make_macho(unsigned char *f, uint32_t cpu, uint64_t text,
		       unsigned char uuid_first)
{
	size_t i;

	memset(f, 0, 0x200);
	put32(f, 0xfeedfacf);
	put32(f + 4, cpu);
	put32(f + 12, 2); /* MH_EXECUTE */
	put32(f + 16, 2); /* ncmds */
	put32(f + 20, 72 + 24);
	put32(f + 32, 0x19); /* LC_SEGMENT_64 */
	put32(f + 36, 72);
	memcpy(f + 40, "__TEXT", 6);
	put64(f + 56, text);
	put32(f + 104, 0x1b); /* LC_UUID */
	put32(f + 108, 24);
	for (i = 0; i < 16; i++)
		f[112 + i] = (unsigned char)(uuid_first + i);
}

static void test_objid_macho(void **state)
{
	unsigned char f[0x600];
	struct pd_objid id;
	uint64_t base;
	size_t k;

	(void)state;
	make_macho(f, 0x0100000c, 0x100000000ull, 0xa0);
	assert_int_equal(pd_objid_mem(f, 0x200, &id), PD_OBJ_MACHO);
	assert_string_equal(id.slice[0].uuid,
			    "A0A1A2A3A4A5A6A7A8A9AAABACADAEAF");
	assert_string_equal(id.debug_id, "A0A1A2A3A4A5A6A7A8A9AAABACADAEAF0");
	/* samply's forms: breakpadId with age 0, codeId the bare UUID. */
	assert_int_equal(pd_objid_match(&id,
					"A0A1A2A3A4A5A6A7A8A9AAABACADAEAF0",
					NULL, &base),
			 1);
	assert_true(base == 0x100000000ull);
	assert_int_equal(pd_objid_match(&id, NULL,
					"a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
					&base),
			 1);
	assert_int_equal(pd_objid_match(&id,
					"B0A1A2A3A4A5A6A7A8A9AAABACADAEAF0",
					NULL, &base),
			 0);
	for (k = 0; k < 0x200; k++)
		pd_objid_mem(f, k, &id);

	/* A fat file: x86_64 at 0x200, arm64 at 0x400; the match picks
	 * the slice and its __TEXT address. */
	memset(f, 0, sizeof(f));
	putbe32(f, 0xcafebabe);
	putbe32(f + 4, 2);
	putbe32(f + 8, 0x01000007);
	putbe32(f + 16, 0x200);
	putbe32(f + 20, 0x200);
	putbe32(f + 28, 0x0100000c);
	putbe32(f + 36, 0x400);
	putbe32(f + 40, 0x200);
	make_macho(f + 0x200, 0x01000007, 0x100000000ull, 0x10);
	make_macho(f + 0x400, 0x0100000c, 0x200000000ull, 0x20);
	assert_int_equal(pd_objid_mem(f, sizeof(f), &id), PD_OBJ_MACHO);
	assert_int_equal(id.nslices, 2);
	assert_int_equal(pd_objid_match(&id, NULL,
					"202122232425262728292A2B2C2D2E2F",
					&base),
			 1);
	assert_true(base == 0x200000000ull);
	for (k = 0; k < sizeof(f); k++)
		pd_objid_mem(f, k, &id);
}

static void test_objid_elf_self(void **state)
{
	struct pd_objid id;
	char line[512], want[130] = "", cmd[4200];
	FILE *p;

	(void)state;
	if (!self_is_elf()) {
		skip();
		return;
	}
	assert_null(strchr(self, '\''));
	/* readelf, an independent reader, says what the build id is. */
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", self);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		char *b = strstr(line, "Build ID: ");
		size_t i;

		if (b) {
			for (i = 0, b += 10; isxdigit((unsigned char)b[i]) &&
					     i + 1 < sizeof(want);
			     i++)
				want[i] = b[i];
			want[i] = '\0';
		}
	}
	if (p)
		pclose(p);
	if (!want[0]) {
		skip();
		return;
	}
	assert_int_equal(pd_objid_file(self, &id), 0);
	assert_int_equal(id.kind, PD_OBJ_ELF);
	assert_string_equal(id.code_id, want);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debugid),
		cmocka_unit_test(test_llvm_batch),
		cmocka_unit_test(test_elf_self),
		cmocka_unit_test(test_plt_objdump),
		cmocka_unit_test(test_tool_lines),
		cmocka_unit_test(test_objid_pe),
		cmocka_unit_test(test_objid_pdb),
		cmocka_unit_test(test_objid_macho),
		cmocka_unit_test(test_objid_elf_self),
	};

	(void)argc;
	self = argv[0];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
