/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for the hint placement policy's map.  Included at the end
 * of block/blk-stream-hint.c, so it tests the static functions there.
 */
#ifdef CONFIG_BLK_STREAM_HINT_KUNIT_TEST

#ifndef _BLK_STREAM_HINT_KUNIT_H
#define _BLK_STREAM_HINT_KUNIT_H

#include <kunit/test.h>

/*
 * The default map for each count of streams, in the documented order of
 * keys: not_set, none, short, medium, long, extreme, journal, metadata.
 */
static const struct {
	unsigned int max;
	u8 stream[BLK_STREAM_KEY_NR];
} stream_hint_defaults[] = {
	{ 0, { 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ 1, { 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ 2, { 0, 0, 2, 2, 2, 2, 2, 2 } },
	{ 3, { 0, 0, 2, 3, 3, 3, 2, 2 } },
	{ 4, { 0, 0, 3, 3, 4, 4, 2, 2 } },
	{ 5, { 0, 0, 3, 4, 4, 5, 2, 2 } },
	{ 6, { 0, 0, 3, 4, 5, 6, 2, 2 } },
	{ 7, { 0, 0, 4, 5, 6, 7, 2, 3 } },
	{ 8, { 0, 0, 4, 5, 6, 7, 2, 3 } },
	{ 255, { 0, 0, 4, 5, 6, 7, 2, 3 } },
};

static void stream_hint_test_defaults(struct kunit *test)
{
	unsigned int i, h;

	for (i = 0; i < ARRAY_SIZE(stream_hint_defaults); i++) {
		unsigned int max = stream_hint_defaults[i].max;

		for (h = 0; h < BLK_STREAM_KEY_NR; h++) {
			unsigned int s;

			s = blk_stream_hint_lookup(BLK_STREAM_HINT_MAP_DEFAULT,
						   h, max);
			KUNIT_EXPECT_EQ_MSG(test, s,
					    stream_hint_defaults[i].stream[h],
					    "%u streams, key %s", max,
					    blk_stream_hint_names[h]);
		}
	}
}

/* Every default stream exists and no key lands on stream 1. */
static void stream_hint_test_defaults_fit(struct kunit *test)
{
	unsigned int max, h, s;

	for (max = 0; max <= 64; max++) {
		for (h = 0; h < BLK_STREAM_KEY_NR; h++) {
			s = blk_stream_hint_default(h, max);
			KUNIT_EXPECT_LE(test, s, max);
			KUNIT_EXPECT_NE(test, s, 1);
		}
	}
}

static const struct {
	const char *line;
	unsigned int max;
	int ret;
	unsigned int key;
	u8 stream;
} stream_hint_parse_cases[] = {
	{ "short 3",		8, 0,	     WRITE_LIFE_SHORT,	  3 },
	{ "journal\t8",		8, 0,	     BLK_STREAM_KEY_JOURNAL,  8 },
	{ "metadata   0",	8, 0,	     BLK_STREAM_KEY_METADATA, 0 },
	{ "not_set 1",		8, 0,	     WRITE_LIFE_NOT_SET,  1 },
	{ "extreme 9",		8, -EINVAL },
	{ "extreme 1",		0, -EINVAL },
	{ "short",		8, -EINVAL },
	{ "short ",		8, -EINVAL },
	{ "short -1",		8, -EINVAL },
	{ "short 3x",		8, -EINVAL },
	{ "short 3 4",		8, -EINVAL },
	{ "Short 3",		8, -EINVAL },
	{ "lukewarm 3",		8, -EINVAL },
	{ "3 short",		8, -EINVAL },
	{ "short 256",		255, -EINVAL },
};

static void stream_hint_test_parse(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stream_hint_parse_cases); i++) {
		u64 map = BLK_STREAM_HINT_MAP_DEFAULT, want = map;
		char buf[32];
		int ret;

		strscpy(buf, stream_hint_parse_cases[i].line, sizeof(buf));
		ret = blk_stream_hint_parse(buf, stream_hint_parse_cases[i].max,
					    &map);
		KUNIT_EXPECT_EQ_MSG(test, ret, stream_hint_parse_cases[i].ret,
				    "\"%s\"", stream_hint_parse_cases[i].line);
		if (!stream_hint_parse_cases[i].ret) {
			want &= ~(0xffULL << (stream_hint_parse_cases[i].key * 8));
			want |= (u64)stream_hint_parse_cases[i].stream <<
				(stream_hint_parse_cases[i].key * 8);
		}
		/* A rejected line leaves the map as it was. */
		KUNIT_EXPECT_EQ_MSG(test, map, want, "\"%s\"",
				    stream_hint_parse_cases[i].line);
	}
}

/* An operator's entry beats the default; the others keep following it. */
static void stream_hint_test_lookup(struct kunit *test)
{
	u64 map = BLK_STREAM_HINT_MAP_DEFAULT;
	char buf[] = "medium 0";

	KUNIT_ASSERT_EQ(test, blk_stream_hint_parse(buf, 8, &map), 0);
	KUNIT_EXPECT_EQ(test, blk_stream_hint_lookup(map, WRITE_LIFE_MEDIUM, 8), 0);
	KUNIT_EXPECT_EQ(test, blk_stream_hint_lookup(map, WRITE_LIFE_SHORT, 8), 4);
	KUNIT_EXPECT_EQ(test, blk_stream_hint_lookup(map, WRITE_LIFE_SHORT, 4), 3);
}

static struct kunit_case stream_hint_test_cases[] = {
	KUNIT_CASE(stream_hint_test_defaults),
	KUNIT_CASE(stream_hint_test_defaults_fit),
	KUNIT_CASE(stream_hint_test_parse),
	KUNIT_CASE(stream_hint_test_lookup),
	{}
};

static struct kunit_suite stream_hint_test_suite = {
	.name = "blk-stream-hint",
	.test_cases = stream_hint_test_cases,
};

kunit_test_suite(stream_hint_test_suite);

#endif /* _BLK_STREAM_HINT_KUNIT_H */
#endif /* CONFIG_BLK_STREAM_HINT_KUNIT_TEST */
