/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of placement policies on a disk being deleted.  Once
 * del_gendisk() has marked the disk dead, a store of a policy, live or in
 * shadow, fails with -ENODEV and installs nothing, whether or not any
 * setting was written to the disk before; blk_stream_disk_exit() takes
 * off what was set before.  Every case checks that the decision point's
 * static keys are back where they were, as they are when no policy was
 * left behind.  Included at the end of block/blk-stream-policy.c; the
 * disk is allocated but never added, and marked dead as __del_gendisk()
 * does.  The hint policy, always built in, stands for any policy.
 */
#ifdef CONFIG_BLK_STREAM_HINT_KUNIT_TEST

#ifndef _BLK_STREAM_TEARDOWN_KUNIT_H
#define _BLK_STREAM_TEARDOWN_KUNIT_H

#include <kunit/test.h>
#include <linux/sizes.h>

struct teardown_keys {
	int key;
	int placing;
	int shadowing;
};

static void teardown_read_keys(struct teardown_keys *k)
{
	k->key = static_key_count(&blk_stream_key.key);
	k->placing = static_key_count(&blk_stream_placing.key);
	k->shadowing = static_key_count(&blk_stream_shadowing.key);
}

static struct gendisk *teardown_disk(struct kunit *test,
				     struct teardown_keys *keys)
{
	struct queue_limits lim = {
		.max_write_streams = 8,
		.write_stream_granularity = SZ_16M,
	};
	struct gendisk *disk = blk_alloc_disk(&lim, NUMA_NO_NODE);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, disk);
	teardown_read_keys(keys);
	return disk;
}

/* What del_gendisk() does to the disk's placement. */
static void teardown_delete(struct gendisk *disk)
{
	set_bit(GD_DEAD, &disk->state);
	blk_stream_disk_exit(disk);
}

/* The disk has no policy, live or in shadow, and the keys are as before. */
static void teardown_check_put(struct kunit *test, struct gendisk *disk,
			       const struct teardown_keys *before)
{
	struct blk_stream_disk *sd = READ_ONCE(disk->write_streams);
	void *live = sd ? rcu_access_pointer(sd->active) : NULL;
	void *shadow = sd ? rcu_access_pointer(sd->shadow) : NULL;
	struct teardown_keys after;

	KUNIT_EXPECT_NULL(test, live);
	KUNIT_EXPECT_NULL(test, shadow);
	teardown_read_keys(&after);
	KUNIT_EXPECT_EQ(test, after.key, before->key);
	KUNIT_EXPECT_EQ(test, after.placing, before->placing);
	KUNIT_EXPECT_EQ(test, after.shadowing, before->shadowing);
	put_disk(disk);
}

/* Nothing was ever set: the disk has no placement state when it goes. */
static void stream_teardown_test_fresh(struct kunit *test)
{
	struct teardown_keys keys;
	struct gendisk *disk = teardown_disk(test, &keys);

	teardown_delete(disk);
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(disk, "hint", 4),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, blk_stream_shadow_store(disk, "hint", 4),
			-ENODEV);
	teardown_check_put(test, disk, &keys);
}

/* Set before: taken off by the deletion, and not set again after it. */
static void stream_teardown_test_set(struct kunit *test)
{
	struct teardown_keys keys;
	struct gendisk *disk = teardown_disk(test, &keys);

	KUNIT_ASSERT_EQ(test, blk_stream_policy_store(disk, "hint", 4), 4);
	KUNIT_ASSERT_EQ(test, blk_stream_shadow_store(disk, "hint", 4), 4);
	teardown_delete(disk);
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(disk, "hint", 4),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, blk_stream_shadow_store(disk, "hint", 4),
			-ENODEV);
	/* Nothing to change: "none" is no error. */
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(disk, "none", 4), 4);
	KUNIT_EXPECT_EQ(test, blk_stream_shadow_store(disk, "none", 4), 4);
	teardown_check_put(test, disk, &keys);
}

/*
 * Dead but not yet deleted, as after a surprise removal: the policy set
 * before stays until the deletion, and no other can be set.
 */
static void stream_teardown_test_dead(struct kunit *test)
{
	struct teardown_keys keys;
	struct gendisk *disk = teardown_disk(test, &keys);

	KUNIT_ASSERT_EQ(test, blk_stream_policy_store(disk, "hint", 4), 4);
	set_bit(GD_DEAD, &disk->state);
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(disk, "none", 4),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, blk_stream_shadow_store(disk, "hint", 4),
			-ENODEV);
	blk_stream_disk_exit(disk);
	teardown_check_put(test, disk, &keys);
}

static struct kunit_case stream_teardown_test_cases[] = {
	KUNIT_CASE(stream_teardown_test_fresh),
	KUNIT_CASE(stream_teardown_test_set),
	KUNIT_CASE(stream_teardown_test_dead),
	{}
};

static struct kunit_suite stream_teardown_test_suite = {
	.name = "blk-stream-teardown",
	.test_cases = stream_teardown_test_cases,
};

kunit_test_suite(stream_teardown_test_suite);

#endif /* _BLK_STREAM_TEARDOWN_KUNIT_H */
#endif /* CONFIG_BLK_STREAM_HINT_KUNIT_TEST */
