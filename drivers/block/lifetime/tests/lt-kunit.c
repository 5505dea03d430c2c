// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the lifetime policy's death tracker and planner.  The
 * cases live in lt-cases.h and also run in userspace from
 * tools/testing/lifetime.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "../lt-core.h"

#define LT_TEST_CTX struct kunit

static bool lt_check(struct kunit *test, bool ok, const char *what, int line)
{
	KUNIT_EXPECT_TRUE_MSG(test, ok, "line %d: %s", line, what);
	return ok;
}

static bool lt_check_eq(struct kunit *test, u64 got, u64 want,
			const char *what, int line)
{
	KUNIT_EXPECT_EQ_MSG(test, got, want, "line %d: %s", line, what);
	return got == want;
}

KUNIT_DEFINE_ACTION_WRAPPER(lt_kunit_kvfree, kvfree, const void *);

static void *lt_test_alloc(struct kunit *test, size_t size)
{
	void *p = kvzalloc(size, GFP_KERNEL);

	if (p && kunit_add_action_or_reset(test, lt_kunit_kvfree, p))
		return NULL;
	return p;
}

#include "lt-cases.h"

static void lt_kunit_run(struct kunit *test)
{
	const struct lt_test_case *c = test->param_value;

	c->run(test);
}

KUNIT_ARRAY_PARAM_DESC(lt_kunit, lt_test_table, name);

static struct kunit_case lt_kunit_cases[] = {
	KUNIT_CASE_PARAM(lt_kunit_run, lt_kunit_gen_params),
	{}
};

static struct kunit_suite lt_kunit_suite = {
	.name = "lifetime",
	.test_cases = lt_kunit_cases,
};

kunit_test_suite(lt_kunit_suite);
