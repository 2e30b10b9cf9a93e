/* Unit tests for import/symbols.c: debug ids and llvm-symbolizer batches. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>

#include "testutil.h"

#include "import/symbols.h"

__attribute__((noinline)) int pd_test_marker_function(int x);
int main(void);

/* A function's address as data (ISO C has no cast for it). */
static void *code_addr(int (*f)(int))
{
	void *p;

	memcpy(&p, &f, sizeof(p));
	return p;
}

static void *code_addr0(int (*f)(void))
{
	void *p;

	memcpy(&p, &f, sizeof(p));
	return p;
}

int pd_test_marker_function(int x)
{
	return x * 3 + 1;
}

static void test_debugid(void **state)
{
	char out[34];

	(void)state;
	pd_debugid_norm("f635824e-318b-3f0c-842c-c369737f2b68", out);
	assert_string_equal(out, "F635824E318B3F0C842CC369737F2B680");
	pd_debugid_norm("F635824E318B3F0C842CC369737F2B680", out);
	assert_string_equal(out, "F635824E318B3F0C842CC369737F2B680");
	pd_debugid_norm("00112233-4455-6677-8899-aabbccddeeff-1a", out);
	assert_string_equal(out, "00112233445566778899AABBCCDDEEFF1");
}

static void test_llvm_batch(void **state)
{
	Dl_info info;
	struct pd_symreq reqs[3];
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t got;

	(void)state;
	if (system("llvm-symbolizer --version >/dev/null 2>&1") != 0) {
		skip();
		return;
	}
	assert_true(n > 0);
	self[n] = '\0';
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
	got = pd_symbols_llvm(self, reqs, 3);
	assert_int_equal(got, 2);
	assert_string_equal(reqs[0].name, "pd_test_marker_function");
	assert_null(reqs[1].name);
	assert_string_equal(reqs[2].name, "main");
	free(reqs[0].name);
	free(reqs[2].name);
	assert_int_equal(pd_test_marker_function(1), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debugid),
		cmocka_unit_test(test_llvm_batch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
