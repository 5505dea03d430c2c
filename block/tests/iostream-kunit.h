/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for io.stream's parsing of values and its effective sets.
 * Included at the end of block/blk-iostream.c, so it tests the static
 * functions there.
 */
#ifdef CONFIG_BLK_CGROUP_IOSTREAM_KUNIT_TEST

#ifndef _BLK_IOSTREAM_KUNIT_H
#define _BLK_IOSTREAM_KUNIT_H

#include <kunit/static_stub.h>
#include <kunit/test.h>

/*
 * @m as io.stream shows a value, into @buf of KUNIT_PARAM_DESC_SIZE bytes;
 * "inherit" for an effective set where nothing confines (which
 * io.stream.effective shows as the disk's whole range).
 */
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
	{ .in = "default",		.max = 8, .ret = 0, .out = "inherit" },
	{ .in = " default\n",		.max = 8, .ret = 0, .out = "inherit" },
	{ .in = "inherit",		.max = 8, .ret = -EINVAL },
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
	{ .in = "defaultx",		.max = 8, .ret = -EINVAL },
	{ .in = "default 1",		.max = 8, .ret = -EINVAL },
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
	{ "top default beyond the disk gives 0", { }, { "9-10" },
	  "0", 0, { 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
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

static void iostream_chain_case_desc(const struct iostream_chain_case *c,
				     char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(iostream_chain, iostream_chain_cases, iostream_chain_case_desc);

/**
 * struct iostream_test_chain - three cgroups below a stand-in root
 * @root_grp: the root's data on the disk
 * @grp: their data on a disk with 8 streams
 * @isc: their per-cgroup data
 * @blkg: @blkg[0] stands for the root, @blkg[i + 1] for level i below it
 * @blkcg: the cgroups of @blkg[1] to @blkg[3]
 * @q: the disk's queue, with 8 streams
 * @bdev: the disk's block device
 * @pins: the settings of the chain; the test leaves the global count,
 *	which turns decisions on for real I/O, alone
 */
struct iostream_test_chain {
	struct iostream_grp root_grp;
	struct iostream_grp grp[3];
	struct iostream_blkcg isc[3];
	struct blkcg_gq blkg[4];
	struct blkcg blkcg[3];
	struct request_queue *q;
	struct block_device *bdev;
	struct gendisk *disk;
	struct blk_stream_disk sd;
	struct blk_stream_active act;
	unsigned int notified;
	atomic_t pins;
};

/* Free the sets the chain's levels hold. */
static void iostream_test_release(void *data)
{
	struct iostream_test_chain *ch = data;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		kfree_rcu(rcu_dereference_protected(ch->grp[i].set, true), rcu);
		kfree_rcu(rcu_dereference_protected(ch->isc[i].dfl, true), rcu);
		iostream_ctr_free(ch->grp[i].ctr);
	}
	iostream_ctr_free(ch->root_grp.ctr);
}

/* Recompute the chain's sets, as a write of io.stream at the top does. */
static void iostream_test_update(struct kunit *test,
				 struct iostream_test_chain *ch)
{
	iostream_update(&ch->blkcg[0], ch->q);
}

/*
 * Link level @i's blkg to its cgroup, where the update walk and
 * blkg_lookup() find it, and publish its first set, as blkg_create()
 * does.
 */
static void iostream_test_create(struct kunit *test,
				 struct iostream_test_chain *ch, unsigned int i)
{
	spin_lock_irq(&ch->q->queue_lock);
	iostream_pd_init(&ch->grp[i].pd);
	list_add(&ch->blkg[i + 1].q_node, &ch->q->blkg_list);
	hlist_add_head_rcu(&ch->blkg[i + 1].blkcg_node,
			   &ch->blkcg[i].blkg_list);
	rcu_assign_pointer(ch->blkcg[i].blkg_hint, &ch->blkg[i + 1]);
	ch->blkg[i + 1].online = true;
	spin_unlock_irq(&ch->q->queue_lock);
}

static void iostream_test_free_iostat(void *data)
{
	free_percpu((struct blkg_iostat_set __percpu __force *)data);
}

/*
 * The per-CPU io.stat of a blkg that is not a real one, marked as queued
 * on every CPU's list: blkg_rstat_updated() finds it so and touches no
 * list of its cgroup, which may be the real root.  The tests flush by
 * hand.
 */
static void iostream_test_fake_iostat(struct kunit *test,
				      struct blkcg_gq *blkg)
{
	int cpu;

	blkg->iostat_cpu = alloc_percpu(struct blkg_iostat_set);
	KUNIT_ASSERT_NOT_NULL(test, blkg->iostat_cpu);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, iostream_test_free_iostat,
						  (void __force *)blkg->iostat_cpu),
			0);
	for_each_possible_cpu(cpu)
		per_cpu_ptr(blkg->iostat_cpu, cpu)->lqueued = true;
}

/*
 * The chain, with the blkgs of the levels below @nr_blkgs not created
 * yet: their cgroups exist, with no blkg on the disk.
 */
static struct iostream_test_chain *
iostream_test_chain_n(struct kunit *test, unsigned int nr_blkgs)
{
	int plid = blkcg_policy_iostream.plid;
	struct iostream_test_chain *ch;
	unsigned int i;

	ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	ch->q = kunit_kzalloc(test, sizeof(*ch->q), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch->q);
	ch->bdev = kunit_kzalloc(test, sizeof(*ch->bdev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch->bdev);
	/* A stand-in disk, with no placement policy until a test sets one. */
	ch->disk = kunit_kzalloc(test, sizeof(*ch->disk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch->disk);
	ch->disk->queue = ch->q;
	ch->q->disk = ch->disk;
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, iostream_test_release, ch),
			0);
	spin_lock_init(&ch->q->queue_lock);
	ch->q->limits.max_write_streams = 8;
	ch->q->root_blkg = &ch->blkg[0];
	INIT_LIST_HEAD(&ch->q->blkg_list);
	list_add(&ch->blkg[0].q_node, &ch->q->blkg_list);
	ch->bdev->bd_queue = ch->q;
	ch->blkg[0].blkcg = &blkcg_root;
	ch->blkg[0].q = ch->q;
	ch->blkg[0].pd[plid] = &ch->root_grp.pd;
	ch->root_grp.pd.blkg = &ch->blkg[0];
	seqcount_spinlock_init(&ch->root_grp.eff_seq, &ch->q->queue_lock);
	ch->root_grp.eff = iostream_any;
	spin_lock_init(&ch->root_grp.early_lock);
	INIT_LIST_HEAD(&ch->root_grp.ctr_node);
	for (i = 0; i < 3; i++) {
		seqcount_spinlock_init(&ch->grp[i].eff_seq, &ch->q->queue_lock);
		ch->grp[i].eff = iostream_any;
		spin_lock_init(&ch->grp[i].early_lock);
		INIT_LIST_HEAD(&ch->grp[i].ctr_node);
		ch->grp[i].pd.blkg = &ch->blkg[i + 1];
		ch->blkg[i + 1].parent = &ch->blkg[i];
		ch->blkg[i + 1].blkcg = &ch->blkcg[i];
		ch->blkg[i + 1].q = ch->q;
		ch->blkg[i + 1].pd[plid] = &ch->grp[i].pd;
		ch->blkcg[i].cpd[plid] = &ch->isc[i].cpd;
		INIT_LIST_HEAD(&ch->blkcg[i].css.children);
		ch->blkcg[i].css.parent = i ? &ch->blkcg[i - 1].css :
					      &blkcg_root.css;
		if (i)
			list_add_tail_rcu(&ch->blkcg[i].css.sibling,
					  &ch->blkcg[i - 1].css.children);
	}
	for (i = 0; i < 4; i++)
		iostream_test_fake_iostat(test, &ch->blkg[i]);
	for (i = 0; i < nr_blkgs; i++)
		iostream_test_create(test, ch, i);
	return ch;
}

static struct iostream_test_chain *iostream_test_chain(struct kunit *test)
{
	return iostream_test_chain_n(test, 3);
}

/*
 * Set level @i's line and default (NULL for none) and recompute the
 * chain, as a write of io.stream does.  A line goes on level @i's blkg.
 */
static void iostream_test_set(struct kunit *test,
			      struct iostream_test_chain *ch, unsigned int i,
			      const char *line, const char *dfl)
{
	struct iostream_mask *m = NULL;

	/* A failed parse is reported and leaves no setting. */
	if (line)
		KUNIT_EXPECT_EQ_MSG(test, iostream_new_setting(line, 8, &m), 0,
				    "parsing \"%s\"", line);
	iostream_set(&ch->grp[i].set, m, &ch->pins);
	m = NULL;
	if (dfl)
		KUNIT_EXPECT_EQ_MSG(test, iostream_new_setting(dfl, 255, &m), 0,
				    "parsing \"%s\"", dfl);
	iostream_set(&ch->isc[i].dfl, m, &ch->pins);
	iostream_test_update(test, ch);
}

/* Back to no setting, which also gives back the pins. */
static void iostream_test_unset(struct kunit *test,
				struct iostream_test_chain *ch)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		iostream_test_set(test, ch, i, NULL, NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->pins), 0);
}

/* Level @i's effective set as io.stream shows a value, into @out. */
static void iostream_test_eff(struct iostream_test_chain *ch, unsigned int i,
			      char *out)
{
	struct iostream_mask buf;

	iostream_test_print(iostream_grp_eff(&ch->grp[i], &buf), out);
}

/* A write of the chain's lowest cgroup to its disk. */
static void iostream_test_bio(struct iostream_test_chain *ch, struct bio *bio,
			      unsigned int level)
{
	memset(bio, 0, sizeof(*bio));
	bio->bi_bdev = ch->bdev;
	bio->bi_blkg = &ch->blkg[level];
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
	struct bio bio;
	unsigned int i;

	for (i = 0; i < 3; i++)
		iostream_test_set(test, ch, i, c->line[i], c->dfl[i]);

	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, c->eff);

	iostream_test_bio(ch, &bio, 3);
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
	unsigned int seq;
	struct bio bio;

	iostream_test_bio(ch, &bio, 3);
	iostream_test_set(test, ch, 0, "3-4", NULL);
	iostream_test_set(test, ch, 2, "4", NULL);
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "4");
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), 4);

	/* The parent moves away from the child's stream: the child follows. */
	seq = raw_read_seqcount(&ch->grp[2].eff_seq);
	iostream_test_set(test, ch, 0, "5-6", NULL);
	/* Rewritten in place, inside the seqcount. */
	KUNIT_EXPECT_EQ(test, raw_read_seqcount(&ch->grp[2].eff_seq), seq + 2);
	iostream_test_eff(ch, 1, out);
	KUNIT_EXPECT_STREQ(test, out, "5-6");
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "5-6");
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), BLKCG_STREAM_BUDGET);
	KUNIT_EXPECT_EQ(test, blkcg_confine_write_stream(&bio, 4), 5);

	/* An update that changes nothing publishes nothing. */
	seq = raw_read_seqcount(&ch->grp[2].eff_seq);
	iostream_test_update(test, ch);
	KUNIT_EXPECT_EQ(test, raw_read_seqcount(&ch->grp[2].eff_seq), seq);

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
 * A blkg created after a setting changed above it but before the update
 * reached it (its parent's set was still the old one when it computed
 * its own) gets the new set from the update.
 */
static void iostream_test_create_during_update(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain_n(test, 2);
	struct iostream_mask *m;
	char out[KUNIT_PARAM_DESC_SIZE];
	struct bio bio;

	iostream_test_set(test, ch, 2, NULL, "4");
	KUNIT_ASSERT_EQ(test, iostream_new_setting("3-4", 8, &m), 0);
	iostream_set(&ch->grp[0].set, m, &ch->pins);
	/* The lowest cgroup writes for the first time: its blkg appears. */
	iostream_test_create(test, ch, 2);
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "4");
	iostream_test_eff(ch, 1, out);
	KUNIT_EXPECT_STREQ(test, out, "inherit");
	iostream_test_update(test, ch);
	iostream_test_eff(ch, 1, out);
	KUNIT_EXPECT_STREQ(test, out, "3-4");
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "4");

	/* The top narrows to 3: the new blkg follows, not keeping its 4. */
	iostream_test_set(test, ch, 0, "3", NULL);
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "3");
	iostream_test_bio(ch, &bio, 3);
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), 3);
	iostream_test_unset(test, ch);
}

/* rule2 and the stream a budget makes of 5 for @bio, submitted from @css. */
static void iostream_test_submitted(struct kunit *test,
				    struct iostream_test_chain *ch,
				    struct bio *bio,
				    struct cgroup_subsys_state *css,
				    int rule2, unsigned int confined)
{
	const struct iostream_mask *eff;
	struct iostream_mask buf;

	rcu_read_lock();
	eff = iostream_bio_eff_css(bio, css, ch->q, &buf);
	KUNIT_EXPECT_EQ(test, eff->rule2, rule2);
	KUNIT_EXPECT_EQ(test, iostream_confine(eff, 5, 8), confined);
	rcu_read_unlock();
}

/*
 * A write charged to the root cgroup (or to none) is confined by the
 * cgroup of the task that submitted it, which io.stream is given as a
 * css here: the submitter's cgroup's blkg where it has one, else the
 * nearest ancestor's set narrowed by the defaults in between; never
 * "anything" below a confining ancestor.
 */
static void iostream_test_root_charged(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain_n(test, 2);
	struct bio bio;

	iostream_test_set(test, ch, 0, "3-4", NULL);
	iostream_test_set(test, ch, 1, "4", NULL);
	/* A line for a cgroup without a blkg cannot exist; its default can. */
	iostream_test_set(test, ch, 2, NULL, "3");

	iostream_test_bio(ch, &bio, 0);
	/* Submitter without a cgroup below the root: nothing confines. */
	iostream_test_submitted(test, ch, &bio, NULL, BLKCG_STREAM_ANY, 5);
	/* Submitter confined, bio root-charged: the submitter's set. */
	iostream_test_submitted(test, ch, &bio, &ch->blkcg[0].css,
				BLKCG_STREAM_BUDGET, 4);
	iostream_test_submitted(test, ch, &bio, &ch->blkcg[1].css, 4, 4);
	/* Submitter without a blkg: its parent's set, where 3 is not. */
	iostream_test_submitted(test, ch, &bio, &ch->blkcg[2].css, 4, 4);
	/* Charged to no cgroup at all: the same. */
	bio.bi_blkg = NULL;
	iostream_test_submitted(test, ch, &bio, &ch->blkcg[2].css, 4, 4);
	iostream_test_submitted(test, ch, &bio, NULL, BLKCG_STREAM_ANY, 5);

	/* The middle cgroup lets go: the default below narrows the top's. */
	iostream_test_set(test, ch, 1, NULL, NULL);
	iostream_test_submitted(test, ch, &bio, &ch->blkcg[2].css, 3, 3);

	/*
	 * Through the decision point: the KUnit thread is in the root
	 * cgroup, so a root-charged write is not confined, while the same
	 * write charged to the confined cgroup is.
	 */
	iostream_test_bio(ch, &bio, 0);
	bio.bi_write_stream = 5;
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), BLKCG_STREAM_ANY);
	KUNIT_EXPECT_EQ(test, bio.bi_write_stream, 5);
	bio.bi_blkg = &ch->blkg[1];
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), BLKCG_STREAM_BUDGET);
	KUNIT_EXPECT_EQ(test, blkcg_confine_write_stream(&bio, 5), 4);
	iostream_test_unset(test, ch);
}

/*
 * A write of a task whose cgroup's blkg could not be allocated is charged
 * to the nearest ancestor with one, which may confine less, or nothing:
 * the submitter's own set confines it, never the ancestor's.
 */
static void iostream_test_ancestor_charged(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain_n(test, 1);
	struct bio bio;

	/*
	 * The delegation root (level 1) is confined by its default only,
	 * its child by a default too: neither has a blkg, level 0 has one
	 * and confines nothing.
	 */
	iostream_test_set(test, ch, 1, NULL, "3-4");
	iostream_test_set(test, ch, 2, NULL, "4");
	iostream_test_bio(ch, &bio, 1);

	KUNIT_EXPECT_TRUE(test, iostream_charged_above(&bio, &ch->blkcg[2].css));
	KUNIT_EXPECT_TRUE(test, iostream_charged_above(&bio, &ch->blkcg[1].css));
	KUNIT_EXPECT_FALSE(test, iostream_charged_above(&bio, &ch->blkcg[0].css));
	KUNIT_EXPECT_FALSE(test, iostream_charged_above(&bio, NULL));
	iostream_test_submitted(test, ch, &bio, &ch->blkcg[2].css, 4, 4);
	iostream_test_submitted(test, ch, &bio, &ch->blkcg[1].css,
				BLKCG_STREAM_BUDGET, 4);
	/* Charged to its own cgroup, a write keeps its cgroup's set. */
	iostream_test_bio(ch, &bio, 2);
	KUNIT_EXPECT_FALSE(test, iostream_charged_above(&bio, &ch->blkcg[0].css));
	/* Charged to a descendant of the submitter's: the bio's cgroup. */
	KUNIT_EXPECT_FALSE(test, iostream_charged_above(&bio, &blkcg_root.css));
	iostream_test_unset(test, ch);
}

/*
 * On a disk where the policy could not be activated (no blkg has
 * io.stream data), a cgroup's defaults still confine its writes.
 */
static void iostream_test_no_policy(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain(test);
	int plid = blkcg_policy_iostream.plid;
	struct blkg_policy_data *pd[4];
	struct bio bio;
	unsigned int i;

	iostream_test_set(test, ch, 0, NULL, "3-4");
	iostream_test_set(test, ch, 2, NULL, "4");
	for (i = 0; i < 4; i++) {
		pd[i] = ch->blkg[i].pd[plid];
		ch->blkg[i].pd[plid] = NULL;
	}
	iostream_test_bio(ch, &bio, 2);
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), BLKCG_STREAM_BUDGET);
	KUNIT_EXPECT_EQ(test, blkcg_confine_write_stream(&bio, 1), 4);
	iostream_test_bio(ch, &bio, 3);
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), 4);
	iostream_test_bio(ch, &bio, 0);
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), BLKCG_STREAM_ANY);
	for (i = 0; i < 4; i++)
		ch->blkg[i].pd[plid] = pd[i];
	iostream_test_unset(test, ch);
}

/* The count of pins follows every change of a setting, and only those. */
static void iostream_test_set_counts_pins(struct kunit *test)
{
	static const char * const vals[] = { "3", "0", "2-5", "default",
					     "default" };
	static const int pins[] = { 1, 1, 1, 0, 0 };
	struct iostream_mask __rcu *slot = NULL;
	struct iostream_mask *m;
	atomic_t count = ATOMIC_INIT(0);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		KUNIT_ASSERT_EQ(test, iostream_new_setting(vals[i], 8, &m), 0);
		iostream_set(&slot, m, &count);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&count), pins[i],
				    "after \"%s\"", vals[i]);
	}
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(slot));
}

/*
 * Expect @blkcg's budget on the chain's disk, read into a map of @nbits
 * bits, to have @want streams, @list: @map's bits past @nbits are not
 * the helper's.
 */
static void iostream_test_budget_of(struct kunit *test,
				    struct iostream_test_chain *ch,
				    struct blkcg *blkcg, unsigned int nbits,
				    unsigned int want, const char *list)
{
	DECLARE_BITMAP(map, IOSTREAM_BITS);
	char out[KUNIT_PARAM_DESC_SIZE];

	bitmap_fill(map, IOSTREAM_BITS);
	KUNIT_EXPECT_EQ(test, iostream_budget(blkcg, ch->q, map, nbits), want);
	scnprintf(out, sizeof(out), "%*pbl", nbits, map);
	KUNIT_EXPECT_STREQ(test, out, list);
}

/*
 * What a placement policy reads as a cgroup's budget at planning time:
 * the streams the disk has of an effective set of several, read as a
 * write would; nothing for no setting, a pin or "0".
 */
static void iostream_test_budget(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain_n(test, 2);

	/* No setting up to the root, and the root itself: no budget. */
	iostream_test_budget_of(test, ch, &ch->blkcg[1], IOSTREAM_BITS, 0, "");
	iostream_test_budget_of(test, ch, &blkcg_root, IOSTREAM_BITS, 0, "");

	iostream_test_set(test, ch, 0, "3-6", NULL);
	iostream_test_set(test, ch, 1, "2,4-5", NULL);
	iostream_test_budget_of(test, ch, &ch->blkcg[0], IOSTREAM_BITS, 4, "3-6");
	/* Narrowed by the parent's set: 2 is not in it. */
	iostream_test_budget_of(test, ch, &ch->blkcg[1], IOSTREAM_BITS, 2, "4-5");
	/* A cgroup with no blkg: its parent's set; then its default's pin. */
	iostream_test_budget_of(test, ch, &ch->blkcg[2], IOSTREAM_BITS, 2, "4-5");
	iostream_test_set(test, ch, 2, NULL, "5");
	iostream_test_budget_of(test, ch, &ch->blkcg[2], IOSTREAM_BITS, 0, "");
	/* Streams past @nbits are left out: one left is a pin. */
	iostream_test_budget_of(test, ch, &ch->blkcg[1], 5, 0, "");
	iostream_test_budget_of(test, ch, &ch->blkcg[0], 5, 2, "3-4");
	/* The disk lost streams: only those it has count. */
	ch->q->limits.max_write_streams = 4;
	iostream_test_budget_of(test, ch, &ch->blkcg[0], IOSTREAM_BITS, 2, "3-4");
	iostream_test_budget_of(test, ch, &ch->blkcg[1], IOSTREAM_BITS, 0, "");
	ch->q->limits.max_write_streams = 8;
	/* A pin, and "0" at the top, are no budget. */
	iostream_test_set(test, ch, 1, "4", NULL);
	iostream_test_budget_of(test, ch, &ch->blkcg[1], IOSTREAM_BITS, 0, "");
	iostream_test_set(test, ch, 0, "0", NULL);
	iostream_test_budget_of(test, ch, &ch->blkcg[0], IOSTREAM_BITS, 0, "");
	iostream_test_unset(test, ch);
}

static void iostream_test_confine_changed(struct gendisk *disk, void *data)
{
	struct iostream_test_chain *ch = data;

	lockdep_assert_held(&disk->queue->queue_lock);
	ch->notified++;
}

static const struct blk_stream_policy iostream_test_policy = {
	.name = "iostream_test",
	.confine_changed = iostream_test_confine_changed,
};

/*
 * The disk's placement policy hears of a change of an effective set on
 * the disk by a write of io.stream, and not of a setting that changes no
 * set or of a setting on another disk; and of each change of the disk's
 * number of streams.
 */
static void iostream_test_notify(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain(test);
	struct request_queue *other;
	struct iostream_mask *m;

	ch->act.pol = &iostream_test_policy;
	ch->act.data = ch;
	RCU_INIT_POINTER(ch->sd.active, &ch->act);
	ch->disk->write_streams = &ch->sd;

	iostream_test_set(test, ch, 0, "3-6", NULL);
	KUNIT_EXPECT_GE(test, ch->notified, 1);
	/* The same set again: nothing changed. */
	ch->notified = 0;
	iostream_test_set(test, ch, 0, "3-6", NULL);
	KUNIT_EXPECT_EQ(test, ch->notified, 0);
	/* The lowest level narrowed. */
	iostream_test_set(test, ch, 2, "4-5", NULL);
	KUNIT_EXPECT_GE(test, ch->notified, 1);
	/* A default does not change a set that a line gives. */
	ch->notified = 0;
	iostream_test_set(test, ch, 2, "4-5", "4");
	KUNIT_EXPECT_EQ(test, ch->notified, 0);
	/* The walk for another disk's line leaves this one alone. */
	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other);
	iostream_set(&ch->grp[0].set, NULL, &ch->pins);
	iostream_update(&ch->blkcg[0], other);
	KUNIT_EXPECT_EQ(test, ch->notified, 0);
	iostream_test_unset(test, ch);

	/*
	 * A change of the number of streams: told once, whether or not a
	 * set changed (the free streams did).
	 */
	KUNIT_ASSERT_EQ(test, iostream_new_setting("9-12", 255, &m), 0);
	iostream_change_dfl(&ch->blkcg[0], m, &ch->pins);
	ch->notified = 0;
	ch->q->limits.max_write_streams = 12;
	blkcg_iostream_limits_changed(ch->q);
	KUNIT_EXPECT_EQ(test, ch->notified, 1);
	ch->q->limits.max_write_streams = 10;
	blkcg_iostream_limits_changed(ch->q);
	KUNIT_EXPECT_EQ(test, ch->notified, 2);
	ch->q->limits.max_write_streams = 8;
	iostream_change_dfl(&ch->blkcg[0], NULL, &ch->pins);

	ch->disk->write_streams = NULL;
	iostream_test_unset(test, ch);
}

/*
 * For the order tests: give the stand-in blkg @blkg the effective set of
 * its setting below the root, as an update would.
 */
static void iostream_test_recompute_one(struct kunit *test,
					struct blkcg_gq *blkg)
{
	struct iostream_grp *grp = blkg_to_iostream(blkg);
	unsigned int max = blkg->q->limits.max_write_streams;
	struct iostream_mask m;

	rcu_read_lock();
	spin_lock_irq(&blkg->q->queue_lock);
	KUNIT_EXPECT_EQ(test, iostream_compute(blkg, max, &m), 0);
	iostream_publish(grp, &m);
	spin_unlock_irq(&blkg->q->queue_lock);
	rcu_read_unlock();
}

/*
 * The sets follow a change of the disk's number of streams: a default
 * naming streams 9-12, written for a larger disk, gives no stream on a
 * disk with 8 and those streams once the disk has 12; they go again
 * when it has 8.
 */
static void iostream_test_limits_changed(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain(test);
	char out[KUNIT_PARAM_DESC_SIZE];
	struct iostream_mask *m;
	struct bio bio;

	iostream_test_bio(ch, &bio, 3);
	KUNIT_ASSERT_EQ(test, iostream_new_setting("9-12", 255, &m), 0);
	iostream_change_dfl(&ch->blkcg[0], m, &ch->pins);
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "0");
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), 0);

	ch->q->limits.max_write_streams = 12;
	blkcg_iostream_limits_changed(ch->q);
	iostream_test_eff(ch, 0, out);
	KUNIT_EXPECT_STREQ(test, out, "9-12");
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "9-12");
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), BLKCG_STREAM_BUDGET);

	ch->q->limits.max_write_streams = 8;
	blkcg_iostream_limits_changed(ch->q);
	iostream_test_eff(ch, 2, out);
	KUNIT_EXPECT_STREQ(test, out, "0");
	iostream_change_dfl(&ch->blkcg[0], NULL, &ch->pins);
	iostream_test_unset(test, ch);
}

/* A write of @bytes on @stream by level @level of @ch, counted. */
static void iostream_test_write(struct iostream_test_chain *ch,
				unsigned int level, unsigned int stream,
				unsigned int bytes)
{
	struct bio bio;

	iostream_test_bio(ch, &bio, level);
	bio.bi_write_stream = stream;
	bio.bi_iter.bi_size = bytes;
	blkcg_account_write_stream(&bio, false);
}

/* io.stat's per-stream keys of level @level of @ch, into @out. */
static void iostream_test_stat(struct kunit *test,
			       struct iostream_test_chain *ch,
			       unsigned int level, char *out, size_t len)
{
	struct seq_file sf = { .buf = out, .size = len };

	iostream_pd_stat(ch->blkg[level].pd[blkcg_policy_iostream.plid], &sf);
	KUNIT_ASSERT_LT(test, sf.count, len);
	out[sf.count] = '\0';
}

static void iostream_test_no_queue(struct iostream_grp *grp)
{
}

static struct mem_cgroup *
iostream_test_no_memcg(struct blkcg *blkcg, struct cgroup_subsys_state **css)
{
	*css = NULL;
	return NULL;
}

/*
 * The chain's blkgs are not real ones: leave the work item, which holds
 * a blkg, and the cgroups' memory cgroups out.  The tests play the work
 * item's part.
 */
static void iostream_test_stubs(struct kunit *test)
{
	kunit_activate_static_stub(test, iostream_ctr_queue,
				   iostream_test_no_queue);
	kunit_activate_static_stub(test, iostream_memcg_begin,
				   iostream_test_no_memcg);
}

/* The work item's pass for level @level's cgroup, queued by a write. */
static void iostream_test_install(struct kunit *test,
				  struct iostream_test_chain *ch,
				  unsigned int level)
{
	struct iostream_grp *grp = blkg_to_iostream(&ch->blkg[level]);

	KUNIT_EXPECT_TRUE(test, grp->ctr_queued);
	iostream_ctr_work_one(grp);
}

/*
 * rstat's flush of every CPU, children first, the root last, as an
 * io.stat read or a blkg's release does.
 */
static void iostream_test_flush(struct iostream_test_chain *ch)
{
	unsigned int i;
	int cpu;

	rcu_read_lock();
	local_irq_disable();
	for_each_possible_cpu(cpu) {
		for (i = 3; i > 0; i--)
			iostream_pd_flush(&ch->grp[i - 1].pd, cpu);
		iostream_pd_flush(&ch->root_grp.pd, cpu);
	}
	local_irq_enable();
	rcu_read_unlock();
}

/*
 * A cgroup's first writes to a disk with streams count in early slots;
 * the counters come from the work item they queue, not with the blkg, and
 * take the early counts over; rstat sums them up the tree.
 */
static void iostream_test_stat_early(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain(test);
	struct iostream_test_chain *plain = iostream_test_chain(test);
	struct gendisk *disk = kunit_kzalloc(test, sizeof(*disk), GFP_KERNEL);
	struct blkg_policy_data *pd;
	struct iostream_grp *grp;
	char out[256];

	KUNIT_ASSERT_NOT_NULL(test, disk);
	iostream_test_stubs(test);
	disk->queue = ch->q;
	disk->node_id = NUMA_NO_NODE;
	pd = iostream_pd_alloc(disk, &ch->blkcg[0], GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	grp = container_of(pd, struct iostream_grp, pd);
	KUNIT_EXPECT_NULL(test, grp->ctr);
	iostream_pd_free(pd);

	iostream_test_write(ch, 2, 3, 4096);
	KUNIT_EXPECT_NULL(test, ch->grp[1].ctr);
	KUNIT_EXPECT_TRUE(test, ch->grp[1].ctr_queued);
	iostream_test_stat(test, ch, 2, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, " stream3.wbytes=4096 stream3.wios=1");

	iostream_test_install(test, ch, 2);
	KUNIT_EXPECT_NOT_NULL(test, ch->root_grp.ctr);
	KUNIT_EXPECT_NOT_NULL(test, ch->grp[0].ctr);
	KUNIT_EXPECT_NOT_NULL(test, ch->grp[1].ctr);
	KUNIT_EXPECT_NULL(test, ch->grp[2].ctr);
	iostream_test_flush(ch);
	iostream_test_stat(test, ch, 1, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, " stream3.wbytes=4096 stream3.wios=1");
	iostream_test_stat(test, ch, 3, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, "");

	iostream_test_write(ch, 3, 3, 8192);
	iostream_test_write(ch, 3, 0, 512);
	iostream_test_write(ch, 1, 8, 4096);
	iostream_test_install(test, ch, 3);
	iostream_test_flush(ch);
	iostream_test_stat(test, ch, 1, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out,
			   " stream0.wbytes=512 stream0.wios=1 stream3.wbytes=12288 stream3.wios=2 stream8.wbytes=4096 stream8.wios=1");
	iostream_test_stat(test, ch, 2, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out,
			   " stream0.wbytes=512 stream0.wios=1 stream3.wbytes=12288 stream3.wios=2");
	iostream_test_stat(test, ch, 3, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out,
			   " stream0.wbytes=512 stream0.wios=1 stream3.wbytes=8192 stream3.wios=1");
	/* A second flush adds nothing. */
	iostream_test_flush(ch);
	iostream_test_stat(test, ch, 1, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out,
			   " stream0.wbytes=512 stream0.wios=1 stream3.wbytes=12288 stream3.wios=2 stream8.wbytes=4096 stream8.wios=1");

	/* The root's own writes are flushed too. */
	iostream_test_write(ch, 0, 8, 1);
	iostream_test_flush(ch);
	iostream_test_stat(test, ch, 0, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out,
			   " stream0.wbytes=512 stream0.wios=1 stream3.wbytes=12288 stream3.wios=2 stream8.wbytes=4097 stream8.wios=2");

	/* A disk without streams counts nothing and allocates nothing. */
	plain->q->limits.max_write_streams = 0;
	iostream_test_write(plain, 3, 0, 4096);
	KUNIT_EXPECT_FALSE(test, plain->grp[2].ctr_queued);
	KUNIT_EXPECT_EQ(test, plain->grp[2].early_nr, 0);
	iostream_test_stat(test, plain, 1, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, "");
}

static struct iostream_counters *iostream_test_no_ctr(struct blkcg_gq *blkg,
						      unsigned int nr)
{
	return NULL;
}

/*
 * A failed allocation of counters loses no count that fits the early
 * slots, nor the blkg nor the placement, and a write a second later
 * tries again.
 */
static void iostream_test_stat_alloc_fails(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain(test);
	char out[256];
	struct bio bio;

	iostream_test_stubs(test);
	kunit_activate_static_stub(test, iostream_ctr_alloc,
				   iostream_test_no_ctr);
	iostream_test_set(test, ch, 0, "3", NULL);
	iostream_test_write(ch, 3, 3, 4096);
	iostream_test_install(test, ch, 3);
	KUNIT_EXPECT_NULL(test, ch->grp[2].ctr);
	KUNIT_EXPECT_EQ(test, ch->root_grp.ctr_fails, 1);
	KUNIT_EXPECT_EQ(test, ch->grp[2].ctr_fails, 1);
	iostream_test_bio(ch, &bio, 3);
	KUNIT_EXPECT_EQ(test, __blkcg_write_stream(&bio), 3);
	iostream_test_stat(test, ch, 3, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, " stream3.wbytes=4096 stream3.wios=1");

	/* Within the second, writes count but do not ask again. */
	iostream_test_write(ch, 3, 3, 4096);
	KUNIT_EXPECT_FALSE(test, ch->grp[2].ctr_queued);
	/* Four early slots: a fifth stream is not counted. */
	iostream_test_write(ch, 3, 1, 1);
	iostream_test_write(ch, 3, 2, 1);
	iostream_test_write(ch, 3, 4, 1);
	iostream_test_write(ch, 3, 5, 1);

	/* A second later a write asks again; a second failure waits two. */
	ch->grp[2].ctr_retry = jiffies - 1;
	iostream_test_write(ch, 3, 3, 4096);
	iostream_test_install(test, ch, 3);
	KUNIT_EXPECT_EQ(test, ch->grp[2].ctr_fails, 2);
	KUNIT_EXPECT_TRUE(test, time_after(ch->grp[2].ctr_retry,
					   jiffies + HZ + HZ / 2));

	/* Memory is back: the next try gets the counters. */
	kunit_deactivate_static_stub(test, iostream_ctr_alloc);
	ch->grp[2].ctr_retry = jiffies - 1;
	iostream_test_write(ch, 3, 3, 4096);
	iostream_test_install(test, ch, 3);
	KUNIT_EXPECT_NOT_NULL(test, ch->grp[2].ctr);
	KUNIT_EXPECT_EQ(test, ch->grp[2].ctr_fails, 0);
	iostream_test_flush(ch);
	iostream_test_stat(test, ch, 1, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out,
			   " stream1.wbytes=1 stream1.wios=1 stream2.wbytes=1 stream2.wios=1 stream3.wbytes=16384 stream3.wios=4 stream4.wbytes=1 stream4.wios=1");
	iostream_test_unset(test, ch);
}

/*
 * What a cgroup wrote reaches its ancestors once: a removed cgroup's
 * last counts are flushed when its blkg is released, and later flushes
 * add nothing.  A parent whose counters have fewer streams (the disk
 * gained some) counts the ones it has.
 */
static void iostream_test_stat_once(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain(test);
	static const char all[] =
		" stream2.wbytes=12288 stream2.wios=3 stream5.wbytes=1 stream5.wios=1";
	char out[256];

	iostream_test_stubs(test);
	iostream_test_write(ch, 2, 2, 4096);
	iostream_test_install(test, ch, 2);
	ch->q->limits.max_write_streams = 12;
	iostream_test_write(ch, 3, 2, 4096);
	iostream_test_install(test, ch, 3);
	KUNIT_EXPECT_EQ(test, ch->grp[2].ctr->nr, 13);
	iostream_test_write(ch, 3, 2, 4096);
	iostream_test_write(ch, 3, 5, 1);
	iostream_test_write(ch, 3, 11, 7);
	iostream_test_flush(ch);
	iostream_test_stat(test, ch, 1, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, all);
	iostream_test_stat(test, ch, 3, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out,
			   " stream2.wbytes=8192 stream2.wios=2 stream5.wbytes=1 stream5.wios=1 stream11.wbytes=7 stream11.wios=1");
	iostream_test_flush(ch);
	iostream_test_flush(ch);
	iostream_test_stat(test, ch, 1, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, all);
	iostream_test_stat(test, ch, 2, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, all);
}

static int iostream_test_queue_calls;
static bool iostream_test_queued;

/*
 * __blkg_rstat_updated(), which counts its calls and answers whether the
 * blkg is now queued, as on the default hierarchy or on cgroup v1.
 */
static bool iostream_test_rstat_updated(struct blkcg_gq *blkg)
{
	iostream_test_queue_calls++;
	return iostream_test_queued;
}

/* How many CPUs' marks of @grp's counters are set. */
static unsigned int iostream_test_marks(struct iostream_grp *grp)
{
	struct iostream_counters *ctr = iostream_ctr(grp);
	unsigned int n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(ctr->pcpu, cpu)->dirty);
	return n;
}

/*
 * A CPU's mark is set by a write that has the blkg queued, and the
 * writes after it do not ask again until a flush clears it.  Where the
 * blkg cannot be queued (io on cgroup v1) the mark is cleared again, so
 * that a write after io moves to the default hierarchy queues the blkg.
 * Every write reaches io.stat.  The writes stay on one CPU.
 */
static void iostream_test_stat_mark(struct kunit *test)
{
	struct iostream_test_chain *ch = iostream_test_chain(test);
	struct iostream_grp *grp = blkg_to_iostream(&ch->blkg[2]);
	char out[256];
	int cpu;

	iostream_test_stubs(test);
	kunit_activate_static_stub(test, __blkg_rstat_updated,
				   iostream_test_rstat_updated);
	iostream_test_write(ch, 2, 3, 4096);
	iostream_test_install(test, ch, 2);
	for_each_possible_cpu(cpu)
		per_cpu_ptr(ch->blkg[2].iostat_cpu, cpu)->lqueued = false;
	iostream_test_queue_calls = 0;

	/* cgroup v1: every write asks, none leaves the mark set. */
	iostream_test_queued = false;
	migrate_disable();
	iostream_test_write(ch, 2, 3, 4096);
	iostream_test_write(ch, 2, 3, 4096);
	KUNIT_EXPECT_EQ(test, iostream_test_queue_calls, 2);
	KUNIT_EXPECT_EQ(test, iostream_test_marks(grp), 0);

	/* The default hierarchy: the first write asks and sets the mark. */
	iostream_test_queued = true;
	iostream_test_write(ch, 2, 3, 4096);
	iostream_test_write(ch, 2, 3, 4096);
	KUNIT_EXPECT_EQ(test, iostream_test_queue_calls, 3);
	KUNIT_EXPECT_EQ(test, iostream_test_marks(grp), 1);
	iostream_test_flush(ch);
	KUNIT_EXPECT_EQ(test, iostream_test_marks(grp), 0);
	iostream_test_write(ch, 2, 3, 4096);
	KUNIT_EXPECT_EQ(test, iostream_test_queue_calls, 4);
	KUNIT_EXPECT_EQ(test, iostream_test_marks(grp), 1);

	/* Queued already (from the default hierarchy): not asked, kept. */
	iostream_test_flush(ch);
	iostream_test_queued = false;
	this_cpu_ptr(ch->blkg[2].iostat_cpu)->lqueued = true;
	iostream_test_write(ch, 2, 3, 4096);
	KUNIT_EXPECT_EQ(test, iostream_test_queue_calls, 4);
	KUNIT_EXPECT_EQ(test, iostream_test_marks(grp), 1);
	migrate_enable();

	iostream_test_flush(ch);
	iostream_test_stat(test, ch, 2, out, sizeof(out));
	KUNIT_EXPECT_STREQ(test, out, " stream3.wbytes=28672 stream3.wios=7");
}

static struct kunit_case iostream_test_cases[] = {
	KUNIT_CASE_PARAM(iostream_test_parse_value, iostream_parse_gen_params),
	KUNIT_CASE_PARAM(iostream_test_effective, iostream_chain_gen_params),
	KUNIT_CASE(iostream_test_recompute),
	KUNIT_CASE(iostream_test_create_during_update),
	KUNIT_CASE(iostream_test_root_charged),
	KUNIT_CASE(iostream_test_ancestor_charged),
	KUNIT_CASE(iostream_test_no_policy),
	KUNIT_CASE(iostream_test_set_counts_pins),
	KUNIT_CASE(iostream_test_budget),
	KUNIT_CASE(iostream_test_notify),
	KUNIT_CASE(iostream_test_limits_changed),
	KUNIT_CASE(iostream_test_stat_early),
	KUNIT_CASE(iostream_test_stat_alloc_fails),
	KUNIT_CASE(iostream_test_stat_once),
	KUNIT_CASE(iostream_test_stat_mark),
	{}
};

static struct kunit_suite iostream_test_suite = {
	.name = "blk-iostream",
	.test_cases = iostream_test_cases,
};

kunit_test_suite(iostream_test_suite);

#endif /* _BLK_IOSTREAM_KUNIT_H */

#endif /* CONFIG_BLK_CGROUP_IOSTREAM_KUNIT_TEST */
