/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of placement policies on a disk being deleted.  Once
 * del_gendisk() has marked the disk dead, a store of a policy, live or in
 * shadow, fails with -ENODEV and installs nothing, whether or not any
 * setting was written to the disk before; blk_stream_disk_exit() takes
 * off what was set before, also when it runs while a store sets a policy
 * up; a disk released without a deletion frees what it had; and, with
 * lockdep, a teardown inside the queue's freeze waits for nothing that
 * may need I/O to the disk.
 *
 * Two test policies, kunit-a and kunit-b, count the instances they set
 * up and tear down: every case checks that the counts match, and that the
 * decision point's static keys are back where they were, as they are when
 * no policy was left behind.  Their set-up can delete the disk on a
 * chosen call, which puts blk_stream_disk_exit() between a store's
 * set-up and its install.  Included at the end of
 * block/blk-stream-policy.c; the disk is allocated but never added, and
 * marked dead as __del_gendisk() does.
 */
#ifdef CONFIG_BLK_STREAM_TEARDOWN_KUNIT_TEST

#ifndef _BLK_STREAM_TEARDOWN_KUNIT_H
#define _BLK_STREAM_TEARDOWN_KUNIT_H

#include <kunit/test.h>
#include <linux/debug_locks.h>
#include <linux/lockdep.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>

struct teardown_keys {
	int key;
	int placing;
	int shadowing;
};

/* What the test policies count; the cases run one at a time. */
static struct {
	unsigned int inits;
	unsigned int exits;
	unsigned int noio_inits;	/* set-ups in NOIO scope */
	unsigned int noio_exits;	/* exits in NOIO scope */
	unsigned int calls;
	unsigned int delete_on;	/* the set-up call that deletes, 0 none */
	bool flush_work;	/* exit_disk flushes teardown_work */
} teardown_count;

/*
 * Work of the kind a policy's exit_disk may flush: it allocates, in NOIO
 * scope, as the series asks of every policy's work.
 */
static void teardown_work_fn(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();

	kfree(kmalloc(64, GFP_KERNEL));
	memalloc_noio_restore(noio);
}

static DECLARE_WORK(teardown_work, teardown_work_fn);

static void teardown_read_keys(struct teardown_keys *k)
{
	blk_stream_flush_puts();
	k->key = static_key_count(&blk_stream_key.key);
	k->placing = static_key_count(&blk_stream_placing.key);
	k->shadowing = static_key_count(&blk_stream_shadowing.key);
}

/* What del_gendisk() does to the disk's placement. */
static void teardown_delete(struct gendisk *disk)
{
	set_bit(GD_DEAD, &disk->state);
	blk_stream_disk_exit(disk);
}

static int teardown_pol_init(struct gendisk *disk, void **data)
{
	teardown_count.inits++;
	if (current->flags & PF_MEMALLOC_NOIO)
		teardown_count.noio_inits++;
	*data = NULL;
	if (++teardown_count.calls == teardown_count.delete_on)
		teardown_delete(disk);
	return 0;
}

static void teardown_pol_exit(struct gendisk *disk, void *data)
{
	teardown_count.exits++;
	if (current->flags & PF_MEMALLOC_NOIO)
		teardown_count.noio_exits++;
	if (teardown_count.flush_work) {
		queue_work(system_percpu_wq, &teardown_work);
		flush_work(&teardown_work);
	}
}

static unsigned int teardown_pol_decide(struct gendisk *disk, void *data,
					struct bio *bio)
{
	return 1;
}

#define TEARDOWN_POLICY(_name) {			\
	.name = _name,					\
	.owner = THIS_MODULE,				\
	.init_disk = teardown_pol_init,			\
	.init_shadow = teardown_pol_init,		\
	.exit_disk = teardown_pol_exit,			\
	.decide = teardown_pol_decide,			\
}

static struct blk_stream_policy teardown_pols[] = {
	TEARDOWN_POLICY("kunit-a"),
	TEARDOWN_POLICY("kunit-b"),
};

/* Whatever a case left: delete the disk, if it was not, and drop it. */
static void teardown_release(void *data)
{
	struct gendisk *disk = data;

	teardown_delete(disk);
	put_disk(disk);
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
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, teardown_release,
							disk), 0);
	memset(&teardown_count, 0, sizeof(teardown_count));
	teardown_read_keys(keys);
	return disk;
}

/* The keys are as @before, and every instance set up was torn down. */
static void teardown_check_keys(struct kunit *test,
				const struct teardown_keys *before)
{
	struct teardown_keys after;

	teardown_read_keys(&after);
	KUNIT_EXPECT_EQ(test, after.key, before->key);
	KUNIT_EXPECT_EQ(test, after.placing, before->placing);
	KUNIT_EXPECT_EQ(test, after.shadowing, before->shadowing);
	KUNIT_EXPECT_EQ(test, teardown_count.exits, teardown_count.inits);
	/*
	 * Every set-up and tear-down ran in NOIO scope, those of the stores
	 * too, which del_gendisk() may wait for: none may wait for I/O to
	 * the disk through reclaim.
	 */
	KUNIT_EXPECT_EQ(test, teardown_count.noio_inits, teardown_count.inits);
	KUNIT_EXPECT_EQ(test, teardown_count.noio_exits, teardown_count.exits);
}

/* No policy is left, live or in shadow, and no key or instance. */
static void teardown_check(struct kunit *test, struct gendisk *disk,
			   const struct teardown_keys *before)
{
	struct blk_stream_disk *sd = READ_ONCE(disk->write_streams);
	void *live = sd ? rcu_access_pointer(sd->active) : NULL;
	void *shadow = sd ? rcu_access_pointer(sd->shadow) : NULL;

	KUNIT_EXPECT_NULL(test, live);
	KUNIT_EXPECT_NULL(test, shadow);
	teardown_check_keys(test, before);
}

/*
 * Nothing was ever set: the disk has no placement state when it goes.
 * Before the fix, blk_stream_disk_exit() marked no state dead here and
 * both stores installed their policy (they returned 9).
 */
static void stream_teardown_test_fresh(struct kunit *test)
{
	struct teardown_keys keys;
	struct gendisk *disk = teardown_disk(test, &keys);

	teardown_delete(disk);
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(disk, "kunit-a", 9),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, blk_stream_shadow_store(disk, "kunit-a", 9),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, teardown_count.inits, 0);
	teardown_check(test, disk, &keys);
}

/*
 * Set before: taken off by the deletion, in NOIO scope, and not set again
 * after it.
 */
static void stream_teardown_test_set(struct kunit *test)
{
	struct teardown_keys keys;
	struct gendisk *disk = teardown_disk(test, &keys);

	KUNIT_ASSERT_EQ(test, blk_stream_policy_store(disk, "kunit-a", 9), 9);
	KUNIT_ASSERT_EQ(test, blk_stream_shadow_store(disk, "kunit-b", 9), 9);
	teardown_delete(disk);
	KUNIT_EXPECT_EQ(test, teardown_count.exits, 2);
	/*
	 * In NOIO scope, although this disk is bio-based, for which
	 * del_gendisk() sets none: exit_disk may flush allocating work.
	 */
	KUNIT_EXPECT_EQ(test, teardown_count.noio_exits, 2);
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(disk, "kunit-a", 9),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, blk_stream_shadow_store(disk, "kunit-b", 9),
			-ENODEV);
	/* Nothing to change: "none" is no error. */
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(disk, "none", 5), 5);
	KUNIT_EXPECT_EQ(test, blk_stream_shadow_store(disk, "none", 5), 5);
	teardown_check(test, disk, &keys);
}

/*
 * Dead but not yet deleted, as after a surprise removal: the policy set
 * before stays until the deletion, and no other can be set.
 */
static void stream_teardown_test_dead(struct kunit *test)
{
	struct teardown_keys keys;
	struct gendisk *disk = teardown_disk(test, &keys);

	KUNIT_ASSERT_EQ(test, blk_stream_policy_store(disk, "kunit-a", 9), 9);
	set_bit(GD_DEAD, &disk->state);
	KUNIT_EXPECT_EQ(test, blk_stream_policy_store(disk, "none", 5),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, blk_stream_shadow_store(disk, "kunit-a", 9),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, teardown_count.inits, 1);
	blk_stream_disk_exit(disk);
	teardown_check(test, disk, &keys);
}

/*
 * The deletion comes while a store sets its policy up, the second of
 * @store's writes, "kunit-a" then @value: it takes kunit-a off, and the
 * store tears its own instances down.
 */
static void teardown_race(struct kunit *test,
			  ssize_t (*store)(struct gendisk *disk,
					   const char *page, size_t count),
			  const char *value)
{
	struct teardown_keys keys;
	struct gendisk *disk = teardown_disk(test, &keys);

	KUNIT_ASSERT_EQ(test, store(disk, "kunit-a", 9), 9);
	teardown_count.delete_on = 2;
	KUNIT_EXPECT_EQ(test, store(disk, value, strlen(value)), -ENODEV);
	KUNIT_EXPECT_EQ(test, teardown_count.inits, 2);
	teardown_check(test, disk, &keys);
}

static void stream_teardown_test_live_race(struct kunit *test)
{
	teardown_race(test, blk_stream_policy_store, "kunit-b");
}

/*
 * In shadow, the new list reuses the instance of kunit-a that the
 * deletion frees: it is torn down once, by the deletion.
 */
static void stream_teardown_test_shadow_race(struct kunit *test)
{
	teardown_race(test, blk_stream_shadow_store, "kunit-a kunit-b");
}

/*
 * Released without a deletion, as when add_disk() fails after the
 * queue's sysfs files appeared: the release frees the policies.
 */
static void stream_teardown_test_release(struct kunit *test)
{
	struct teardown_keys keys;
	struct gendisk *disk = teardown_disk(test, &keys);

	KUNIT_ASSERT_EQ(test, blk_stream_policy_store(disk, "kunit-a", 9), 9);
	KUNIT_ASSERT_EQ(test, blk_stream_shadow_store(disk, "kunit-b", 9), 9);
	kunit_remove_action(test, teardown_release, disk);
	put_disk(disk);
	KUNIT_EXPECT_EQ(test, teardown_count.inits, 2);
	teardown_check_keys(test, &keys);
}

/*
 * del_gendisk() takes the policies off inside the queue's freeze, and an
 * exit_disk may flush work that allocates.  Lockdep sees a freeze only on
 * a queue that was live when it began, which is never so in del_gendisk()
 * of a disk that owns its queue (NVMe, dm): take the freeze's lockdep maps
 * here as blk_freeze_acquire_lock() does on a live queue.  The queue's
 * allocation taught lockdep that reclaim may enter the queue, so a
 * teardown that waits, inside the freeze, for anything that may recurse
 * into reclaim with I/O is a cycle, and lockdep reports it and turns
 * itself off.  This is stricter than del_gendisk() as lockdep sees it
 * today, on purpose: the rule holds for every disk.  The work flushed is
 * the test policy's, NOIO as the rule asks; what the case checks is the
 * block layer's own teardown (its locks, its NOIO scope, the static key
 * put) inside the freeze.  Needs a kernel with CONFIG_PROVE_LOCKING
 * (scripts/run-tests --debug); it skips elsewhere.
 */
static void stream_teardown_test_frozen(struct kunit *test)
{
	struct teardown_keys keys;
	struct gendisk *disk = teardown_disk(test, &keys);

	if (!IS_ENABLED(CONFIG_PROVE_LOCKING))
		kunit_skip(test, "needs CONFIG_PROVE_LOCKING");
	/* An earlier report fails the run on its own, in the kernel log. */
	if (!debug_locks)
		kunit_skip(test, "lockdep is off after an earlier report");

	KUNIT_ASSERT_EQ(test, blk_stream_policy_store(disk, "kunit-a", 9), 9);
	KUNIT_ASSERT_EQ(test, blk_stream_shadow_store(disk, "kunit-b", 9), 9);
	teardown_count.flush_work = true;

	set_bit(GD_DEAD, &disk->state);
	rwsem_acquire(&disk->queue->io_lockdep_map, 0, 1, _THIS_IP_);
	rwsem_acquire(&disk->queue->q_lockdep_map, 0, 1, _THIS_IP_);
	blk_stream_disk_exit(disk);
	rwsem_release(&disk->queue->q_lockdep_map, _THIS_IP_);
	rwsem_release(&disk->queue->io_lockdep_map, _THIS_IP_);

	KUNIT_EXPECT_EQ(test, teardown_count.exits, 2);
	KUNIT_EXPECT_TRUE_MSG(test, debug_locks,
			      "lockdep reported the teardown inside the freeze");
	teardown_check(test, disk, &keys);
}

static int stream_teardown_suite_init(struct kunit_suite *suite)
{
	int ret;

	ret = blk_stream_register_policy(&teardown_pols[0]);
	if (ret)
		return ret;
	ret = blk_stream_register_policy(&teardown_pols[1]);
	if (ret)
		blk_stream_unregister_policy(&teardown_pols[0]);
	return ret;
}

static void stream_teardown_suite_exit(struct kunit_suite *suite)
{
	blk_stream_unregister_policy(&teardown_pols[1]);
	blk_stream_unregister_policy(&teardown_pols[0]);
}

static struct kunit_case stream_teardown_test_cases[] = {
	KUNIT_CASE(stream_teardown_test_fresh),
	KUNIT_CASE(stream_teardown_test_set),
	KUNIT_CASE(stream_teardown_test_dead),
	KUNIT_CASE(stream_teardown_test_live_race),
	KUNIT_CASE(stream_teardown_test_shadow_race),
	KUNIT_CASE(stream_teardown_test_release),
	KUNIT_CASE(stream_teardown_test_frozen),
	{}
};

static struct kunit_suite stream_teardown_test_suite = {
	.name = "blk-stream-teardown",
	.suite_init = stream_teardown_suite_init,
	.suite_exit = stream_teardown_suite_exit,
	.test_cases = stream_teardown_test_cases,
};

kunit_test_suite(stream_teardown_test_suite);

#endif /* _BLK_STREAM_TEARDOWN_KUNIT_H */
#endif /* CONFIG_BLK_STREAM_TEARDOWN_KUNIT_TEST */
