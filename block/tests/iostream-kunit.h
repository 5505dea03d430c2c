/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for io.stream's parsing of values.  Included at the end of
 * block/blk-iostream.c, so it tests the static functions there.
 */
#ifdef CONFIG_BLK_CGROUP_IOSTREAM_KUNIT_TEST

#ifndef _BLK_IOSTREAM_KUNIT_H
#define _BLK_IOSTREAM_KUNIT_H

#include <kunit/test.h>

/**
 * struct iostream_parse_case - one value as written to io.stream
 * @in: the text after the device number (or "default")
 * @max: the disk's max_write_streams
 * @ret: expected return value
 * @v: expected value when @ret is 0
 */
struct iostream_parse_case {
	const char *in;
	int max;
	int ret;
	int v;
};

static const struct iostream_parse_case iostream_parse_cases[] = {
	{ .in = "inherit",		.max = 8, .ret = 0, .v = IOSTREAM_INHERIT },
	{ .in = " inherit\n",		.max = 8, .ret = 0, .v = IOSTREAM_INHERIT },
	{ .in = "inherit",		.max = 0, .ret = 0, .v = IOSTREAM_INHERIT },
	{ .in = "0",			.max = 8, .ret = 0, .v = 0 },
	{ .in = "0",			.max = 0, .ret = 0, .v = 0 },
	{ .in = "1",			.max = 8, .ret = 0, .v = 1 },
	{ .in = "8\n",			.max = 8, .ret = 0, .v = 8 },
	{ .in = "255",			.max = 255, .ret = 0, .v = 255 },
	{ .in = "9",			.max = 8, .ret = -EINVAL },
	{ .in = "1",			.max = 0, .ret = -EINVAL },
	{ .in = "256",			.max = 255, .ret = -EINVAL },
	{ .in = "-1",			.max = 8, .ret = -EINVAL },
	{ .in = "99999999999999999999", .max = 8, .ret = -EINVAL },
	{ .in = "0x3",			.max = 8, .ret = -EINVAL },
	{ .in = "3 4",			.max = 8, .ret = -EINVAL },
	{ .in = "3x",			.max = 8, .ret = -EINVAL },
	{ .in = "inheritx",		.max = 8, .ret = -EINVAL },
	{ .in = "inherit 1",		.max = 8, .ret = -EINVAL },
	{ .in = "default",		.max = 8, .ret = -EINVAL },
	{ .in = "",			.max = 8, .ret = -EINVAL },
	{ .in = "   ",			.max = 8, .ret = -EINVAL },
};

static void iostream_parse_case_desc(const struct iostream_parse_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\" max %d", c->in, c->max);
}

KUNIT_ARRAY_PARAM(iostream_parse, iostream_parse_cases, iostream_parse_case_desc);

static void iostream_test_parse_value(struct kunit *test)
{
	const struct iostream_parse_case *c = test->param_value;
	int v = -100, ret;

	ret = iostream_parse_value(c->in, c->max, &v);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (!c->ret)
		KUNIT_EXPECT_EQ(test, v, c->v);
	else
		KUNIT_EXPECT_EQ(test, v, -100);
}

/*
 * The count of pins follows every change of a setting, and only those.
 * Under iostream_mutex, as every change of a setting: no writer of
 * io.stream can update the static key while the count is off by one.
 */
static void iostream_test_set_counts_pins(struct kunit *test)
{
	int before, slot = IOSTREAM_INHERIT;

	mutex_lock(&iostream_mutex);
	before = atomic_read(&iostream_nr_pins);
	iostream_set(&slot, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&iostream_nr_pins), before + 1);
	iostream_set(&slot, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&iostream_nr_pins), before + 1);
	iostream_set(&slot, IOSTREAM_INHERIT);
	KUNIT_EXPECT_EQ(test, atomic_read(&iostream_nr_pins), before);
	iostream_set(&slot, IOSTREAM_INHERIT);
	KUNIT_EXPECT_EQ(test, atomic_read(&iostream_nr_pins), before);
	mutex_unlock(&iostream_mutex);
}

static struct kunit_case iostream_test_cases[] = {
	KUNIT_CASE_PARAM(iostream_test_parse_value, iostream_parse_gen_params),
	KUNIT_CASE(iostream_test_set_counts_pins),
	{}
};

static struct kunit_suite iostream_test_suite = {
	.name = "blk-iostream",
	.test_cases = iostream_test_cases,
};

kunit_test_suite(iostream_test_suite);

#endif /* _BLK_IOSTREAM_KUNIT_H */

#endif /* CONFIG_BLK_CGROUP_IOSTREAM_KUNIT_TEST */
