// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace runner of the lifetime tracker and planner tests: the same
 * cases as the KUnit suite (block/lifetime/tests/lt-cases.h),
 * reported as TAP.  Exits non-zero when a case fails.
 */
#include <stdio.h>

#include "lt-core.h"

#define LT_TEST_MAX_ALLOCS	16

/**
 * struct lt_utest - state of the running case
 * @failed: checks that failed
 * @nr_allocs: entries in @allocs
 * @allocs: memory to free when the case ends
 */
struct lt_utest {
	unsigned int failed;
	unsigned int nr_allocs;
	void *allocs[LT_TEST_MAX_ALLOCS];
};

#define LT_TEST_CTX struct lt_utest

static bool lt_check(struct lt_utest *test, bool ok, const char *what,
		     int line)
{
	if (!ok) {
		test->failed++;
		printf("    # line %d: expected %s\n", line, what);
	}
	return ok;
}

static bool lt_check_eq(struct lt_utest *test, u64 got, u64 want,
			const char *what, int line)
{
	if (got != want) {
		test->failed++;
		printf("    # line %d: expected %s: got %llu (%lld), want %llu (%lld)\n",
		       line, what, (unsigned long long)got, (long long)got,
		       (unsigned long long)want, (long long)want);
	}
	return got == want;
}

static void *lt_test_alloc(struct lt_utest *test, size_t size)
{
	void *p;

	if (test->nr_allocs == LT_TEST_MAX_ALLOCS)
		return NULL;
	p = calloc(1, size);
	if (p)
		test->allocs[test->nr_allocs++] = p;
	return p;
}

#include "tests/lt-cases.h"

int main(void)
{
	unsigned int i, j, failed = 0, n = ARRAY_SIZE(lt_test_table);

	printf("TAP version 13\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		struct lt_utest test = { 0 };

		lt_test_table[i].run(&test);
		for (j = 0; j < test.nr_allocs; j++)
			free(test.allocs[j]);
		printf("%sok %u - %s\n", test.failed ? "not " : "", i + 1,
		       lt_test_table[i].name);
		if (test.failed)
			failed++;
	}
	printf("# %u passed, %u failed\n", n - failed, failed);
	return failed ? 1 : 0;
}
