/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for io.stream's parsing of values and its effective sets.
 * Included at the end of block/blk-iostream.c, so it tests the static
 * functions there.
 */
#ifdef CONFIG_BLK_CGROUP_IOSTREAM_KUNIT_TEST

#ifndef _BLK_IOSTREAM_KUNIT_H
#define _BLK_IOSTREAM_KUNIT_H

#include <kunit/test.h>

/* @m as io.stream shows it, into @buf of KUNIT_PARAM_DESC_SIZE bytes. */
static void iostream_test_print(const struct iostream_mask *m, char *buf)
{
	if (m->inherit)
		strscpy(buf, "inherit", KUNIT_PARAM_DESC_SIZE);
	else if (bitmap_empty(m->map, IOSTREAM_BITS))
		strscpy(buf, "0", KUNIT_PARAM_DESC_SIZE);
	else
		scnprintf(buf, KUNIT_PARAM_DESC_SIZE, "%*pbl", IOSTREAM_BITS,
			  m->map);
}

/**
 * struct iostream_parse_case - one value as written to io.stream
 * @in: the text after the device number (or "default")
 * @max: the disk's max_write_streams
 * @ret: expected return value
 * @out: expected value, as io.stream shows it, when @ret is 0
 */
struct iostream_parse_case {
	const char *in;
	int max;
	int ret;
	const char *out;
};

static const struct iostream_parse_case iostream_parse_cases[] = {
	{ .in = "inherit",		.max = 8, .ret = 0, .out = "inherit" },
	{ .in = " inherit\n",		.max = 8, .ret = 0, .out = "inherit" },
	{ .in = "inherit",		.max = 0, .ret = 0, .out = "inherit" },
	{ .in = "0",			.max = 8, .ret = 0, .out = "0" },
	{ .in = "0",			.max = 0, .ret = 0, .out = "0" },
	{ .in = "1",			.max = 8, .ret = 0, .out = "1" },
	{ .in = "8\n",			.max = 8, .ret = 0, .out = "8" },
	{ .in = "255",			.max = 255, .ret = 0, .out = "255" },
	{ .in = "3,4",			.max = 8, .ret = 0, .out = "3-4" },
	{ .in = "2-4,7",		.max = 8, .ret = 0, .out = "2-4,7" },
	{ .in = "7,2,3-3",		.max = 8, .ret = 0, .out = "2-3,7" },
	{ .in = "1-255",		.max = 255, .ret = 0, .out = "1-255" },
	{ .in = "default",		.max = 8, .ret = 0, .out = "inherit" },
	{ .in = "default\n",		.max = 0, .ret = 0, .out = "inherit" },
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
	{ .in = "default 3",		.max = 8, .ret = -EINVAL },
	{ .in = "defaults",		.max = 8, .ret = -EINVAL },
	{ .in = "",			.max = 8, .ret = -EINVAL },
	{ .in = "   ",			.max = 8, .ret = -EINVAL },
	{ .in = "0,3",			.max = 8, .ret = -EINVAL },
	{ .in = "0-3",			.max = 8, .ret = -EINVAL },
	{ .in = "3,",			.max = 8, .ret = -EINVAL },
	{ .in = ",3",			.max = 8, .ret = -EINVAL },
	{ .in = "3,,4",			.max = 8, .ret = -EINVAL },
	{ .in = "4-3",			.max = 8, .ret = -EINVAL },
	{ .in = "3-",			.max = 8, .ret = -EINVAL },
	{ .in = "3-9",			.max = 8, .ret = -EINVAL },
	{ .in = "3, 4",			.max = 8, .ret = -EINVAL },
	{ .in = "all",			.max = 8, .ret = -EINVAL },
};

static void iostream_parse_case_desc(const struct iostream_parse_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\" max %d", c->in, c->max);
}

KUNIT_ARRAY_PARAM(iostream_parse, iostream_parse_cases, iostream_parse_case_desc);

static void iostream_test_parse_value(struct kunit *test)
{
	const struct iostream_parse_case *c = test->param_value;
	struct iostream_mask m = { .inherit = true };
	char out[KUNIT_PARAM_DESC_SIZE];
	int ret;

	__set_bit(5, m.map);
	ret = iostream_parse_value(c->in, c->max, &m);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	iostream_test_print(&m, out);
	KUNIT_EXPECT_STREQ(test, out, c->ret ? "inherit" : c->out);
	if (c->ret)
		KUNIT_EXPECT_TRUE(test, test_bit(5, m.map));
}

/**
 * struct iostream_chain_case - a cgroup's settings up to the root
 * @desc: what the case shows
 * @line: from the top cgroup below the root down to the bio's, each one's
 *	line for the disk, NULL for none ("inherit")
 * @dfl: the same cgroups' defaults, NULL for "inherit"
 * @eff: the expected effective set of the lowest cgroup, as io.stream
 *	shows a value ("inherit" when nothing is set)
 * @rule2: what __blkcg_write_stream() must return
 * @confined: what blkcg_confine_write_stream() must make of each stream
 *	from 0 to 8 that another rule chose
 */
struct iostream_chain_case {
	const char *desc;
	const char *line[3];
	const char *dfl[3];
	const char *eff;
	int rule2;
	unsigned int confined[9];
};

#define ANY	BLKCG_STREAM_ANY
#define BUDGET	BLKCG_STREAM_BUDGET

static const struct iostream_chain_case iostream_chain_cases[] = {
	{ "nothing set", { }, { }, "inherit", ANY,
	  { 0, 1, 2, 3, 4, 5, 6, 7, 8 } },
	{ "a pin", { "3" }, { }, "3", 3, { 3, 3, 3, 3, 3, 3, 3, 3, 3 } },
	{ "pin inherited", { "3", NULL, NULL }, { }, "3", 3,
	  { 3, 3, 3, 3, 3, 3, 3, 3, 3 } },
	{ "child pin outside its parent's keeps it", { "3", "5" }, { }, "3", 3,
	  { 3, 3, 3, 3, 3, 3, 3, 3, 3 } },
	{ "child of a budget asks for another's", { "3-4", "1" }, { }, "3-4",
	  BUDGET, { 3, 4, 3, 3, 4, 4, 3, 4, 3 } },
	{ "child set reaching beyond", { "3", "1-8" }, { }, "3", 3,
	  { 3, 3, 3, 3, 3, 3, 3, 3, 3 } },
	{ "budget", { "3-4" }, { }, "3-4", BUDGET,
	  { 3, 4, 3, 3, 4, 4, 3, 4, 3 } },
	{ "child pin inside a budget", { "3-4", "4" }, { }, "4", 4,
	  { 4, 4, 4, 4, 4, 4, 4, 4, 4 } },
	{ "budgets intersect", { "2-5", "3-8", "1,3-4" }, { }, "3-4", BUDGET,
	  { 3, 4, 3, 3, 4, 4, 3, 4, 3 } },
	{ "child 0 keeps the parent's set", { "3-4", "0" }, { }, "3-4", BUDGET,
	  { 3, 4, 3, 3, 4, 4, 3, 4, 3 } },
	{ "grandchild 0 keeps the nearest set", { "2-5", "3", "0" }, { }, "3",
	  3, { 3, 3, 3, 3, 3, 3, 3, 3, 3 } },
	{ "0 at the top gives up", { "0" }, { }, "0", 0,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ "parent 0 stays 0", { "0", "3" }, { }, "0", 0,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ "top default beyond the disk", { }, { "9-10" }, "0", 0,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ "default beyond the disk keeps the parent's", { "2-3", NULL },
	  { NULL, "9" }, "2-3", BUDGET, { 2, 3, 2, 3, 2, 3, 2, 3, 2 } },
	{ "set partly beyond the disk", { }, { "8-9" }, "8", 8,
	  { 8, 8, 8, 8, 8, 8, 8, 8, 8 } },
	{ "parent default", { }, { "6-7", NULL }, "6-7", BUDGET,
	  { 6, 7, 6, 7, 6, 7, 6, 7, 6 } },
	{ "child default outside the parent's line", { "3-4", NULL },
	  { NULL, "7" }, "3-4", BUDGET, { 3, 4, 3, 3, 4, 4, 3, 4, 3 } },
	{ "line wins over own default", { "3-4", "4" }, { NULL, "7" }, "4", 4,
	  { 4, 4, 4, 4, 4, 4, 4, 4, 4 } },
	{ "parent default narrows child line", { NULL, "1-8" }, { "2,8" },
	  "2,8", BUDGET, { 2, 8, 2, 8, 2, 8, 2, 8, 8 } },
	{ "lowest line beats its default", { "3-4", NULL, "3" },
	  { NULL, NULL, "7" }, "3", 3, { 3, 3, 3, 3, 3, 3, 3, 3, 3 } },
};

#undef ANY
#undef BUDGET

/*
 * Parse @val into @m, as a test's setup: a failure is reported, and the
 * caller must not use @m then (it may hold anything).  Not an assertion,
 * which would end the test with iostream_mutex held.
 */
static int expect_parse(struct kunit *test, const char *val,
			unsigned int max, struct iostream_mask *m)
{
	int ret = iostream_parse_value(val, max, m);

	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "parsing \"%s\"", val);
	return ret;
}

static void iostream_chain_case_desc(const struct iostream_chain_case *c,
				     char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(iostream_chain, iostream_chain_cases, iostream_chain_case_desc);

/**
 * struct iostream_test_chain - three cgroups below a stand-in root
 * @grp: their data on a disk with 8 streams
 * @isc: their per-cgroup data
 * @blkg: @blkg[0] stands for the root, @blkg[i + 1] for level i below it
 * @blkcg: the cgroups of @blkg[1] to @blkg[3]
 */
struct iostream_test_chain {
	struct iostream_grp grp[3];
	struct iostream_blkcg isc[3];
	struct blkcg_gq blkg[4];
	struct blkcg blkcg[3];
};

/* Recompute the chain's sets, parents first, as iostream_update() does. */
static void iostream_test_update(struct iostream_test_chain *ch)
{
	unsigned int i;

	for (i = 1; i < ARRAY_SIZE(ch->blkg); i++)
		iostream_update_blkg(&ch->blkg[i], 8);
}

static struct iostream_test_chain *iostream_test_chain(struct kunit *test)
{
	int plid = blkcg_policy_iostream.plid;
	struct iostream_test_chain *ch;
	unsigned int i;

	ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return NULL;
	ch->blkg[0].blkcg = &blkcg_root;
	for (i = 0; i < 3; i++) {
		ch->grp[i].set.inherit = true;
		ch->isc[i].dfl.inherit = true;
		ch->blkg[i + 1].parent = &ch->blkg[i];
		ch->blkg[i + 1].blkcg = &ch->blkcg[i];
		ch->blkg[i + 1].pd[plid] = &ch->grp[i].pd;
		ch->blkcg[i].cpd[plid] = &ch->isc[i].cpd;
	}
	iostream_test_update(ch);
	return ch;
}

/*
 * Set level @i's line and default (NULL for "inherit") and recompute the
 * chain, as a write of io.stream does.
 */
static void iostream_test_set(struct kunit *test,
			      struct iostream_test_chain *ch, unsigned int i,
			      const char *line, const char *dfl)
{
	struct iostream_mask m = { .inherit = true };

	mutex_lock(&iostream_mutex);
	/* @m is set only by a parse that succeeded. */
	if (!line || !expect_parse(test, line, 8, &m))
		iostream_set(&ch->grp[i].set, &m);
	m.inherit = true;
	if (!dfl || !expect_parse(test, dfl, 255, &m))
		iostream_set(&ch->isc[i].dfl, &m);
	iostream_test_update(ch);
	mutex_unlock(&iostream_mutex);
}

/* Back to no setting, which also gives back the pins. */
static void iostream_test_unset(struct kunit *test,
				struct iostream_test_chain *ch)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		iostream_test_set(test, ch, i, NULL, NULL);
}

/* Level @i's effective set as io.stream shows a value, into @out. */
static void iostream_test_eff(struct iostream_test_chain *ch, unsigned int i,
			      char *out)
{
	iostream_test_print(iostream_grp_eff(&ch->grp[i]), out);
}

/*
 * The effective set of a cgroup three levels below the root, as the
 * decision point reads it, and what it does to the stream another rule
 * chose.
 */
static void iostream_test_effective(struct kunit *test)
{
	const struct iostream_chain_case *c = test->param_value;
	struct iostream_test_chain *ch = iostream_test_chain(test);
	char out[KUNIT_PARAM_DESC_SIZE];
	struct bio bio = {};
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ch);
	for (i = 0; i < 3; i++)
		iostream_test_set(test, ch, i, c->line[i], c->dfl[i]);

	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, c->eff);

	bio.bi_blkg = &ch->blkg[3];
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), c->rule2);
	for (i = 0; i < ARRAY_SIZE(c->confined); i++)
		KUNIT_EXPECT_EQ_MSG(test, blkcg_confine_write_stream(&bio, i),
				    c->confined[i], "stream %u", i);
	iostream_test_unset(test, ch);
}

/*
 * A change of a parent's setting reaches the effective sets below it,
 * which are computed when settings change, not when a bio is decided.
 */
static void iostream_test_recompute(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain(test);
	char out[KUNIT_PARAM_DESC_SIZE];
	struct bio bio = {};
	unsigned int cur;

	KUNIT_ASSERT_NOT_NULL(test, ch);
	bio.bi_blkg = &ch->blkg[3];
	iostream_test_set(test, ch, 0, "3-4", NULL);
	iostream_test_set(test, ch, 2, "4", NULL);
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "4");
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), 4);

	/* The parent moves away from the child's stream: the child follows. */
	cur = ch->grp[2].cur;
	iostream_test_set(test, ch, 0, "5-6", NULL);
	KUNIT_EXPECT_NE(test, ch->grp[2].cur, cur);
	iostream_test_eff(ch, 1, out);
	KUNIT_EXPECT_STREQ(test, out, "5-6");
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "5-6");
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), BLKCG_STREAM_BUDGET);
	KUNIT_EXPECT_EQ(test, blkcg_confine_write_stream(&bio, 4), 5);

	/* The parent lets go: the child's own setting is all there is. */
	iostream_test_set(test, ch, 0, NULL, NULL);
	iostream_test_eff(ch, 1, out);
	KUNIT_EXPECT_STREQ(test, out, "inherit");
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "4");
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), 4);

	/* A middle default of 0 keeps the top's set for all below. */
	iostream_test_set(test, ch, 1, NULL, "0");
	iostream_test_set(test, ch, 0, "2", NULL);
	iostream_test_eff(ch, 1, out);
	KUNIT_EXPECT_STREQ(test, out, "2");
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "2");
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), 2);
	iostream_test_unset(test, ch);
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), BLKCG_STREAM_ANY);
}

/*
 * A write charged to the root (or to no cgroup) with its submitter's
 * stream is confined by the submitter's cgroup: here a kthread in the
 * root, so nothing confines it and its stream stays.
 */
static void iostream_test_root_charged(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain(test);
	struct bio bio = {};

	KUNIT_ASSERT_NOT_NULL(test, ch);
	iostream_test_set(test, ch, 0, "3", NULL);
	bio.bi_write_stream = 5;
	bio.bi_blkg = &ch->blkg[0];
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), BLKCG_STREAM_ANY);
	KUNIT_EXPECT_EQ(test, bio.bi_write_stream, 5);
	KUNIT_EXPECT_EQ(test, blkcg_confine_write_stream(&bio, 5), 5);
	bio.bi_blkg = NULL;
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), BLKCG_STREAM_ANY);
	KUNIT_EXPECT_EQ(test, bio.bi_write_stream, 5);
	/* The same write charged to the confined cgroup is confined. */
	bio.bi_blkg = &ch->blkg[1];
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), 3);
	iostream_test_unset(test, ch);
}

/*
 * The count of pins follows every change of a setting, and only those.
 * Under iostream_mutex, as every change of a setting: no writer of
 * io.stream can update the static key while the count is off by one.
 */
static void iostream_test_set_counts_pins(struct kunit *test)
{
	struct iostream_mask slot = { .inherit = true }, m;
	int before;

	mutex_lock(&iostream_mutex);
	before = atomic_read(&iostream_nr_pins);
	if (!expect_parse(test, "3", 8, &m))
		iostream_set(&slot, &m);
	KUNIT_EXPECT_EQ(test, atomic_read(&iostream_nr_pins), before + 1);
	if (!expect_parse(test, "0", 8, &m))
		iostream_set(&slot, &m);
	KUNIT_EXPECT_EQ(test, atomic_read(&iostream_nr_pins), before + 1);
	if (!expect_parse(test, "2-5", 8, &m))
		iostream_set(&slot, &m);
	KUNIT_EXPECT_EQ(test, atomic_read(&iostream_nr_pins), before + 1);
	if (!expect_parse(test, "default", 8, &m))
		iostream_set(&slot, &m);
	KUNIT_EXPECT_EQ(test, atomic_read(&iostream_nr_pins), before);
	iostream_set(&slot, &m);
	KUNIT_EXPECT_EQ(test, atomic_read(&iostream_nr_pins), before);
	mutex_unlock(&iostream_mutex);
}

static struct kunit_case iostream_test_cases[] = {
	KUNIT_CASE_PARAM(iostream_test_parse_value, iostream_parse_gen_params),
	KUNIT_CASE_PARAM(iostream_test_effective, iostream_chain_gen_params),
	KUNIT_CASE(iostream_test_recompute),
	KUNIT_CASE(iostream_test_root_charged),
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
