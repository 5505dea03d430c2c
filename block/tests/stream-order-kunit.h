/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the write stream decision point as a whole: the order of
 * its rules, a policy switch while a bio is being decided, no policy on a
 * disk without streams, no io.stat counts from tracing, a stream beyond
 * the disk's, and the decision of a bio that a stacking device passed
 * down.  Included at the end of
 * block/blk-iostream.c, whose private structures stand in for a cgroup
 * with an io.stream setting; the bios are decided on disks that are
 * allocated but never added.
 */
#ifdef CONFIG_BLK_CGROUP_IOSTREAM_KUNIT_TEST

#ifndef _BLK_STREAM_ORDER_KUNIT_H
#define _BLK_STREAM_ORDER_KUNIT_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/write_class.h>
#include <trace/events/block.h>

#define ORDER_STREAMS	8

/* What the block_write_stream tracepoint said about one bio. */
struct order_seen {
	struct bio *bio;
	unsigned int calls;
	unsigned int stream;
	unsigned int rule;
};

static void order_probe(void *data, struct bio *bio, unsigned int rule,
			u64 cgroup)
{
	struct order_seen *seen = data;

	if (bio != seen->bio)
		return;
	seen->calls++;
	seen->stream = bio->bi_write_stream;
	seen->rule = rule;
}

/* A policy that places every write on order_policy_stream. */
static unsigned int order_policy_stream;
static unsigned int order_observed;

static unsigned int order_decide(struct gendisk *disk, void *data,
				 struct bio *bio)
{
	return order_policy_stream;
}

static void order_observe(struct gendisk *disk, void *data, struct bio *bio,
			  unsigned int stream)
{
	order_observed++;
}

static struct blk_stream_policy order_policy = {
	.name		= "kunit-order",
	.decide		= order_decide,
	.observe	= order_observe,
};

/*
 * A policy whose decision takes long enough for a switch to start while
 * it runs; its exit_disk() notes whether any decision was still running.
 */
static atomic_t order_in_decide = ATOMIC_INIT(0);
static atomic_t order_entered = ATOMIC_INIT(0);
static atomic_t order_switching = ATOMIC_INIT(0);
static int order_exit_saw = -1;

static unsigned int order_slow_decide(struct gendisk *disk, void *data,
				      struct bio *bio)
{
	int i;

	atomic_inc(&order_in_decide);
	atomic_set(&order_entered, 1);
	for (i = 0; i < 40000 && !atomic_read(&order_switching); i++)
		udelay(5);
	mdelay(20);
	atomic_dec(&order_in_decide);
	return 7;
}

static void order_slow_exit(struct gendisk *disk, void *data)
{
	order_exit_saw = atomic_read(&order_in_decide);
}

static struct blk_stream_policy order_slow_policy = {
	.name		= "kunit-slow",
	.decide		= order_slow_decide,
	.exit_disk	= order_slow_exit,
};

static struct gendisk *order_disk(struct kunit *test)
{
	struct queue_limits lim = {
		.max_write_streams = ORDER_STREAMS,
		.write_stream_granularity = SZ_16M,
	};
	struct gendisk *disk = blk_alloc_disk(&lim, NUMA_NO_NODE);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, disk);
	return disk;
}

static void order_put_disk(struct gendisk *disk)
{
	blk_stream_policy_store(disk, "none", 4);
	put_disk(disk);
}

static void order_set_policy(struct kunit *test, struct gendisk *disk,
			     const char *name)
{
	KUNIT_ASSERT_EQ(test, blk_stream_policy_store(disk, name, strlen(name)),
			(ssize_t)strlen(name));
}

/*
 * A 4 KiB write to @disk with no cgroup: bio_init() with a bdev would
 * take a reference on the root blkg that these bios, never submitted,
 * would not give back.
 */
static void order_bio_init(struct bio *bio, struct gendisk *disk)
{
	bio_init(bio, NULL, NULL, 0, REQ_OP_WRITE);
	bio->bi_bdev = disk->part0;
	bio->bi_iter.bi_size = SZ_4K;
}

/**
 * struct order_case - one write and what each rule would say about it
 * @desc: what the case shows
 * @app: the stream the submitter set, 0 for none
 * @cgroup: the io.stream setting of the bio's cgroup, NULL for inherit
 * @kind: the write's kind
 * @fs: the filesystem's stream on the disk for the write's kind (for the
 *	journal if the write is data), 0 for none
 * @policy: the policy's stream, -1 for no policy ("none")
 * @stream: the stream the write must get
 * @rule: the rule that must decide
 * @asked: the policy was asked although another rule decided in the end
 *	(a cgroup's budget replaced its choice), so it is not shown the
 *	write again
 */
struct order_case {
	const char *desc;
	int app;
	const char *cgroup;
	enum write_kind kind;
	int fs;
	int policy;
	unsigned int stream;
	enum blk_stream_rule rule;
	bool asked;
};

#define INH	NULL
#define DATA	WRITE_KIND_DATA
#define JRNL	WRITE_KIND_JOURNAL
#define META	WRITE_KIND_METADATA
#define APP	BLK_STREAM_RULE_APP
#define CGRP	BLK_STREAM_RULE_CGROUP
#define FS	BLK_STREAM_RULE_FS
#define POL	BLK_STREAM_RULE_POLICY

static const struct order_case order_cases[] = {
	{ "application first",		3, INH,   JRNL, 5, 6,  3, APP },
	{ "application on its pin",	4, "4",   JRNL, 5, 6,  4, APP },
	{ "pin confines application",	3, "4",   JRNL, 5, 6,  4, CGRP },
	{ "cgroup before filesystem",	0, "4",   JRNL, 5, 6,  4, CGRP },
	{ "cgroup 0 is a pin",		0, "0",   META, 5, 6,  0, CGRP },
	{ "cgroup 0 confines app",	3, "0",   DATA, 0, 6,  0, CGRP },
	{ "filesystem before policy",	0, INH,   JRNL, 5, 6,  5, FS },
	{ "metadata stream",		0, INH,   META, 5, 6,  5, FS },
	{ "kind without stream",	0, INH,   JRNL, 0, 6,  6, POL },
	{ "data to the policy",		0, INH,   DATA, 5, 6,  6, POL },
	{ "policy says 0",		0, INH,   DATA, 0, 0,  0, BLK_STREAM_RULE_DEFAULT },
	{ "no policy",			0, INH,   JRNL, 0, -1, 0, BLK_STREAM_RULE_DEFAULT },
	{ "app beyond the disk",	9, INH,   DATA, 0, 6,  0, APP },
	{ "cgroup beyond the disk",	0, "9",   DATA, 0, 6,  0, CGRP },
	{ "cgroup beyond, no policy",	0, "9",   DATA, 0, -1, 0, CGRP },
	{ "policy beyond the disk",	0, INH,   DATA, 0, 9,  0, POL },
	{ "budget keeps app inside",	4, "3-4", DATA, 0, 6,  4, APP },
	{ "budget confines app",	6, "3-4", DATA, 0, 6,  3, CGRP },
	{ "budget keeps fs inside",	0, "3-4", JRNL, 4, 6,  4, FS },
	{ "budget confines fs",		0, "3-4", JRNL, 5, 6,  4, CGRP },
	{ "budget keeps policy inside",	0, "3-4", DATA, 0, 4,  4, POL },
	{ "budget confines policy",	0, "3-4", DATA, 0, 7,  4, CGRP, true },
	{ "budget spends policy's 0",	0, "3-4", DATA, 0, 0,  3, CGRP, true },
	{ "budget without policy",	0, "3-4", DATA, 0, -1, 3, CGRP },
};

#undef INH
#undef APP
#undef CGRP
#undef FS
#undef POL
#undef DATA
#undef JRNL
#undef META

static void order_case_desc(const struct order_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(order, order_cases, order_case_desc);

static void stream_order_test(struct kunit *test)
{
	const struct order_case *c = test->param_value;
	struct gendisk *disk = order_disk(test);
	enum write_kind fs_kind = c->kind ?: WRITE_KIND_JOURNAL;
	struct iostream_mask *m = NULL;
	struct order_seen seen = {};
	struct iostream_grp *grp;
	struct blkcg_gq *child;
	struct bio *bio;

	/* Off the stack, which KASAN's redzones would make too large. */
	grp = kunit_kzalloc(test, sizeof(*grp), GFP_KERNEL);
	child = kunit_kzalloc(test, sizeof(*child), GFP_KERNEL);
	bio = kunit_kzalloc(test, sizeof(*bio), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, grp);
	KUNIT_ASSERT_NOT_NULL(test, child);
	KUNIT_ASSERT_NOT_NULL(test, bio);
	grp->eff = iostream_any;

	/* A cgroup below the root, with io.stream set to c->cgroup. */
	/* The root's set, which the child's is computed from. */
	KUNIT_ASSERT_EQ(test, blkcg_activate_policy(disk, &blkcg_policy_iostream),
			0);
	child->parent = disk->queue->root_blkg;
	child->blkcg = &blkcg_root;
	child->q = disk->queue;
	child->pd[blkcg_policy_iostream.plid] = &grp->pd;
	grp->pd.blkg = child;
	seqcount_spinlock_init(&grp->eff_seq, &disk->queue->queue_lock);
	spin_lock_init(&grp->early_lock);
	INIT_LIST_HEAD(&grp->ctr_node);
	/* The decision counts the write: no work item for a fake blkg. */
	iostream_test_stubs(test);
	iostream_test_fake_iostat(test, child);
	if (c->cgroup)
		KUNIT_ASSERT_EQ(test, iostream_new_setting(c->cgroup, IOSTREAM_MAX,
							   &m), 0);
	/*
	 * The global count of settings, which the decision point checks:
	 * while this test runs, real writes are decided too, and find no
	 * setting.
	 */
	iostream_set(&grp->set, m, &iostream_nr_pins);
	iostream_test_recompute_one(test, child);

	if (c->fs)
		KUNIT_ASSERT_EQ(test, bdev_set_kind_stream(disk->part0, fs_kind,
							   c->fs), 0);
	if (c->policy >= 0) {
		order_policy_stream = c->policy;
		order_set_policy(test, disk, order_policy.name);
	}
	order_observed = 0;

	order_bio_init(bio, disk);
	bio->bi_write_stream = c->app;
	bio_set_write_kind(bio, c->kind);
	bio->bi_blkg = child;
	seen.bio = bio;
	KUNIT_ASSERT_EQ(test, register_trace_block_write_stream(order_probe,
								&seen), 0);
	__bio_set_write_stream(bio);
	unregister_trace_block_write_stream(order_probe, &seen);
	tracepoint_synchronize_unregister();
	bio->bi_blkg = NULL;

	KUNIT_EXPECT_EQ(test, bio->bi_write_stream, c->stream);
	KUNIT_EXPECT_EQ(test, seen.calls, 1);
	KUNIT_EXPECT_EQ(test, seen.stream, c->stream);
	KUNIT_EXPECT_EQ(test, seen.rule, c->rule);
	/* A policy sees the writes that earlier rules placed. */
	if (c->policy >= 0)
		KUNIT_EXPECT_EQ(test, order_observed,
				c->rule != BLK_STREAM_RULE_POLICY &&
				c->rule != BLK_STREAM_RULE_DEFAULT && !c->asked);

	if (c->fs)
		bdev_set_kind_stream(disk->part0, fs_kind, 0);
	iostream_set(&grp->set, NULL, &iostream_nr_pins);
	synchronize_rcu();
	order_put_disk(disk);
}

struct order_switch_ctx {
	struct gendisk *disk;
	unsigned int stream;
	struct completion done;
};

static int order_switch_writer(void *data)
{
	struct order_switch_ctx *ctx = data;
	struct bio bio;

	order_bio_init(&bio, ctx->disk);
	__bio_set_write_stream(&bio);
	ctx->stream = bio.bi_write_stream;
	complete(&ctx->done);
	return 0;
}

/*
 * A switch while a bio is being decided: the bio gets the old policy's
 * stream, the old policy's state is torn down only after that decision
 * returned, and the next bio gets the new policy's stream.
 */
static void stream_order_test_switch(struct kunit *test)
{
	struct order_switch_ctx *ctx;
	struct task_struct *task;
	const char *name = order_policy.name;
	struct bio bio;
	int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->disk = order_disk(test);
	atomic_set(&order_entered, 0);
	atomic_set(&order_switching, 0);
	order_exit_saw = -1;
	order_policy_stream = 2;
	init_completion(&ctx->done);
	order_set_policy(test, ctx->disk, order_slow_policy.name);

	task = kthread_run(order_switch_writer, ctx, "kunit-stream-switch");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	/*
	 * The slow policy holds the writer in its decision, under RCU, for
	 * up to about 220 ms.  No assertion may end the test before the
	 * writer is done with ctx.
	 */
	for (i = 0; i < 1000 && !atomic_read(&order_entered); i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_TRUE(test, atomic_read(&order_entered));
	atomic_set(&order_switching, 1);
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(ctx->disk, name,
						      strlen(name)),
			(ssize_t)strlen(name));
	KUNIT_EXPECT_EQ(test, order_exit_saw, 0);
	wait_for_completion(&ctx->done);
	KUNIT_EXPECT_EQ(test, ctx->stream, 7);

	order_bio_init(&bio, ctx->disk);
	__bio_set_write_stream(&bio);
	KUNIT_EXPECT_EQ(test, bio.bi_write_stream, 2);
	order_put_disk(ctx->disk);
}

/* A disk without streams offers no policy and refuses one. */
static void stream_order_test_no_streams(struct kunit *test)
{
	struct queue_limits lim = {};
	struct gendisk *disk = blk_alloc_disk(&lim, NUMA_NO_NODE);
	char *page;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, disk);
	page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	blk_stream_policy_show(disk, page);
	KUNIT_EXPECT_STREQ(test, page, "[none]\n");
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(disk, order_policy.name,
						      strlen(order_policy.name)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(disk, "none", 4), 4);
	put_disk(disk);
}

/* Per-stream write counts of the root cgroup on @disk. */
static u64 order_root_wios(struct gendisk *disk)
{
	struct iostream_grp *grp = blkg_to_iostream(disk->queue->root_blkg);
	struct iostream_count sum[IOSTREAM_CHUNK] = { };
	u64 ios = 0, fallback;
	unsigned int i;

	if (grp)
		iostream_grp_sum(grp, 0, sum, &fallback);
	for (i = 0; i < IOSTREAM_CHUNK; i++)
		ios += sum[i].ios;
	return ios;
}

/*
 * Enabling the tracepoint decides every write but counts none of them in
 * io.stat; a source of streams (here the filesystem's journal stream)
 * does.
 */
static void stream_order_test_trace_counts_nothing(struct kunit *test)
{
	struct gendisk *disk = order_disk(test);
	struct order_seen seen = {};
	struct bio bio;

	if (static_key_enabled(&blk_stream_placing)) {
		order_put_disk(disk);
		kunit_skip(test, "a source of streams is in use");
	}
	KUNIT_ASSERT_EQ(test, blkcg_activate_policy(disk, &blkcg_policy_iostream),
			0);
	order_bio_init(&bio, disk);
	bio.bi_blkg = disk->queue->root_blkg;
	seen.bio = &bio;
	KUNIT_ASSERT_EQ(test, register_trace_block_write_stream(order_probe,
								&seen), 0);
	__bio_set_write_stream(&bio);
	KUNIT_EXPECT_EQ(test, seen.calls, 1);
	KUNIT_EXPECT_EQ(test, order_root_wios(disk), 0);

	KUNIT_EXPECT_EQ(test, bdev_set_kind_stream(disk->part0,
						   WRITE_KIND_JOURNAL, 3), 0);
	bio.bi_write_stream = 0;
	__bio_set_write_stream(&bio);
	KUNIT_EXPECT_EQ(test, order_root_wios(disk), 1);
	bdev_set_kind_stream(disk->part0, WRITE_KIND_JOURNAL, 0);

	unregister_trace_block_write_stream(order_probe, &seen);
	tracepoint_synchronize_unregister();
	bio.bi_blkg = NULL;
	order_put_disk(disk);
}

/*
 * A stream beyond the disk's (streams the disk lost after the policy
 * chose) is dropped: the write goes to stream 0, the device's default,
 * and io.stat counts it there and as a fallback, not as a write to the
 * stream chosen.  A stream the disk has is counted as one.
 */
static void stream_order_test_beyond_disk(struct kunit *test)
{
	struct iostream_count sum[IOSTREAM_CHUNK];
	struct gendisk *disk = order_disk(test);
	struct iostream_grp *grp;
	u64 fallback;
	struct bio bio;

	KUNIT_ASSERT_EQ(test, blkcg_activate_policy(disk, &blkcg_policy_iostream),
			0);
	order_set_policy(test, disk, order_policy.name);
	order_bio_init(&bio, disk);
	bio.bi_blkg = disk->queue->root_blkg;

	order_policy_stream = ORDER_STREAMS;
	__bio_set_write_stream(&bio);
	KUNIT_EXPECT_EQ(test, bio.bi_write_stream, ORDER_STREAMS);

	order_policy_stream = ORDER_STREAMS + 1;
	bio.bi_write_stream = 0;
	__bio_set_write_stream(&bio);
	KUNIT_EXPECT_EQ(test, bio.bi_write_stream, 0);

	/* The counts are summed by rstat once the cgroup has its counters. */
	css_rstat_flush(&blkcg_root.css);
	grp = blkg_to_iostream(disk->queue->root_blkg);
	KUNIT_ASSERT_NOT_NULL(test, grp);
	iostream_grp_sum(grp, 0, sum, &fallback);
	KUNIT_EXPECT_EQ(test, sum[ORDER_STREAMS].ios, 1);
	KUNIT_EXPECT_EQ(test, sum[0].ios, 1);
	KUNIT_EXPECT_EQ(test, fallback, 1);

	bio.bi_blkg = NULL;
	order_put_disk(disk);
}

/*
 * A write to a device that passes the decision down is marked, not
 * decided; a clone keeps the mark through another such device and is
 * decided once, by submit_bio_noacct()'s hook, on the first device that
 * decides, with that device's policy.  A write that reaches a deciding
 * device's submit_bio() instead is decided there and loses the mark.
 */
static void stream_order_test_passed_below(struct kunit *test)
{
	struct gendisk *top = order_disk(test), *bottom = order_disk(test);
	struct order_seen seen = {};
	struct bio bio, clone;

	blk_queue_flag_set(QUEUE_FLAG_STREAM_BELOW, top->queue);
	order_policy_stream = 5;
	order_set_policy(test, bottom, order_policy.name);
	KUNIT_ASSERT_EQ(test, register_trace_block_write_stream(order_probe,
								&seen), 0);

	order_bio_init(&bio, top);
	bio.bi_write_stream = 2;
	seen.bio = &bio;
	__bio_set_write_stream(&bio);
	KUNIT_EXPECT_EQ(test, seen.calls, 0);
	KUNIT_EXPECT_TRUE(test, bio.bi_stream_undecided);
	KUNIT_EXPECT_EQ(test, bio.bi_write_stream, 2);

	KUNIT_ASSERT_EQ(test, bio_init_clone(NULL, &clone, &bio, GFP_KERNEL), 0);
	KUNIT_EXPECT_TRUE(test, clone.bi_stream_undecided);
	seen.bio = &clone;
	clone.bi_bdev = top->part0;
	bio_set_passed_write_stream(&clone);
	KUNIT_EXPECT_EQ(test, seen.calls, 0);
	KUNIT_EXPECT_TRUE(test, clone.bi_stream_undecided);
	clone.bi_bdev = bottom->part0;
	bio_set_passed_write_stream(&clone);
	bio_set_passed_write_stream(&clone);
	KUNIT_EXPECT_EQ(test, seen.calls, 1);
	KUNIT_EXPECT_EQ(test, seen.rule, BLK_STREAM_RULE_APP);
	KUNIT_EXPECT_EQ(test, seen.stream, 2);
	KUNIT_EXPECT_FALSE(test, clone.bi_stream_undecided);
	bio_uninit(&clone);

	/* No stream of its own: the bottom's policy places the clone. */
	bio.bi_write_stream = 0;
	KUNIT_ASSERT_EQ(test, bio_init_clone(NULL, &clone, &bio, GFP_KERNEL), 0);
	clone.bi_bdev = bottom->part0;
	seen = (struct order_seen){ .bio = &clone };
	bio_set_passed_write_stream(&clone);
	KUNIT_EXPECT_EQ(test, seen.calls, 1);
	KUNIT_EXPECT_EQ(test, seen.rule, BLK_STREAM_RULE_POLICY);
	KUNIT_EXPECT_EQ(test, seen.stream, 5);

	/* Marked, but submitted to the bottom with submit_bio(): once. */
	clone.bi_write_stream = 0;
	clone.bi_stream_undecided = true;
	__bio_set_write_stream(&clone);
	bio_set_passed_write_stream(&clone);
	KUNIT_EXPECT_EQ(test, seen.calls, 2);
	KUNIT_EXPECT_FALSE(test, clone.bi_stream_undecided);
	bio_uninit(&clone);

	unregister_trace_block_write_stream(order_probe, &seen);
	tracepoint_synchronize_unregister();
	order_put_disk(bottom);
	order_put_disk(top);
}

/*
 * A bio a driver builds to write another's data (an encrypted or a
 * corrupted copy) gets everything the decision reads of the bio.
 */
static void stream_order_test_copy_placement(struct kunit *test)
{
	struct bio src, dst;

	bio_init(&src, NULL, NULL, 0, REQ_OP_WRITE);
	bio_init(&dst, NULL, NULL, 0, REQ_OP_WRITE);
	src.bi_write_hint = WRITE_LIFE_SHORT;
	src.bi_write_stream = 3;
	src.bi_stream_undecided = true;
	bio_set_write_kind(&src, WRITE_KIND_JOURNAL);
#ifdef CONFIG_FS_WRITE_CLASS
	src.bi_write_class = WRITE_CLASS_FIRST + 1;
#endif
	bio_copy_placement(&dst, &src);
	KUNIT_EXPECT_EQ(test, dst.bi_write_hint, WRITE_LIFE_SHORT);
	KUNIT_EXPECT_EQ(test, dst.bi_write_stream, 3);
	KUNIT_EXPECT_TRUE(test, dst.bi_stream_undecided);
	KUNIT_EXPECT_EQ(test, bio_write_kind(&dst), WRITE_KIND_JOURNAL);
	KUNIT_EXPECT_EQ(test, bio_write_class(&dst), bio_write_class(&src));
	bio_uninit(&dst);
	bio_uninit(&src);
}

static int stream_order_suite_init(struct kunit_suite *suite)
{
	int ret = blk_stream_register_policy(&order_policy);

	if (!ret)
		ret = blk_stream_register_policy(&order_slow_policy);
	return ret;
}

static void stream_order_suite_exit(struct kunit_suite *suite)
{
	blk_stream_unregister_policy(&order_slow_policy);
	blk_stream_unregister_policy(&order_policy);
}

static struct kunit_case stream_order_test_cases[] = {
	KUNIT_CASE_PARAM(stream_order_test, order_gen_params),
	KUNIT_CASE_SLOW(stream_order_test_switch),
	KUNIT_CASE(stream_order_test_no_streams),
	KUNIT_CASE(stream_order_test_trace_counts_nothing),
	KUNIT_CASE(stream_order_test_beyond_disk),
	KUNIT_CASE(stream_order_test_passed_below),
	KUNIT_CASE(stream_order_test_copy_placement),
	{}
};

static struct kunit_suite stream_order_test_suite = {
	.name = "blk-stream-order",
	.suite_init = stream_order_suite_init,
	.suite_exit = stream_order_suite_exit,
	.test_cases = stream_order_test_cases,
};

kunit_test_suite(stream_order_test_suite);

#endif /* _BLK_STREAM_ORDER_KUNIT_H */
#endif /* CONFIG_BLK_CGROUP_IOSTREAM_KUNIT_TEST */
