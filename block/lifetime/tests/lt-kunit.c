// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the lifetime policy's death tracker and planner.  The
 * cases live in lt-cases.h and also run in userspace from
 * tools/testing/lifetime.  The cases below need the policy's own code
 * (the per-CPU logs, the tenants, the worker), which lifetime.h makes
 * visible to them in a kernel with KUnit; they run in the kernel only.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "../lifetime.h"

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

static void lt_kunit_free_disk(void *data)
{
	lt_free(data);
}

/* A disk's policy state with no disk: the tracker and the logs only. */
static struct lt_disk *lt_kunit_disk(struct kunit *test)
{
	struct lt_disk *ld = kvzalloc(sizeof(*ld), GFP_KERNEL);
	struct gendisk *disk = kunit_kzalloc(test, sizeof(*disk), GFP_KERNEL);
	unsigned int cpu;

	KUNIT_ASSERT_NOT_NULL(test, ld);
	KUNIT_ASSERT_NOT_NULL(test, disk);
	strscpy(disk->disk_name, "kunit");
	ld->disk = disk;
	spin_lock_init(&ld->lock);
	ld->log = alloc_percpu(struct lt_log);
	ld->cursor = kcalloc(nr_cpu_ids, sizeof(*ld->cursor), GFP_KERNEL);
	RCU_INIT_POINTER(ld->tindex, kzalloc_obj(struct lt_tenant_index,
						 GFP_KERNEL));
	ld->bare_tag = 1;
	if (!ld->log || !ld->cursor || !rcu_access_pointer(ld->tindex) ||
	    !zalloc_cpumask_var(&ld->logged, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&ld->skipped, GFP_KERNEL) ||
	    lt_track_init(&ld->track, LT_GIB >> LT_SECTOR_SHIFT, 0, 0,
			  LT_DEFAULT_MEM_CAP)) {
		lt_kunit_free_disk(ld);
		KUNIT_FAIL_AND_ABORT(test, "cannot set up a tracker");
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, lt_kunit_free_disk,
							ld), 0);
	for_each_possible_cpu(cpu)
		spin_lock_init(&per_cpu_ptr(ld->log, cpu)->lock);
	ld->log_pages = U64_MAX;
	/* No worker to wake. */
	ld->next_check = U64_MAX;
	ld->next_period = U64_MAX;
	return ld;
}

static bool lt_kunit_log(struct lt_disk *ld, unsigned int cpu, u64 stamp,
			 u64 key, u64 bytes)
{
	struct lt_log *log = per_cpu_ptr(ld->log, cpu);
	struct lt_rec rec = {
		.stamp = stamp, .sector = LT_SECT(LT_MIB),
		.nr_sectors = LT_SECT(bytes), .key = key, .tenant = 1,
	};
	bool due;

	spin_lock_irq(&log->lock);
	due = lt_log_add(ld, log, cpu, &rec, key ? bytes >> LT_PAGE_SHIFT : 0);
	spin_unlock_irq(&log->lock);
	return due;
}

static void lt_kunit_replay_all(struct lt_disk *ld)
{
	spin_lock_irq(&ld->lock);
	lt_replay(ld, true);
	spin_unlock_irq(&ld->lock);
}

/*
 * A write of label a, a discard and a write of label b over one range,
 * logged on @c1, @c0 and @c1 in that order and replayed: the discard kills
 * a's data, not b's, and the logs are empty afterwards.
 */
static void lt_kunit_replay_order(struct kunit *test, struct lt_disk *ld,
				  unsigned int c0, unsigned int c1)
{
	unsigned int i;
	u16 a, b;

	KUNIT_EXPECT_FALSE(test, lt_kunit_log(ld, c1, 5, 0xa, 64 * LT_KIB));
	KUNIT_EXPECT_FALSE(test, lt_kunit_log(ld, c0, 10, 0, 64 * LT_KIB));
	KUNIT_EXPECT_FALSE(test, lt_kunit_log(ld, c1, 20, 0xb, 64 * LT_KIB));
	KUNIT_EXPECT_EQ(test, cpumask_weight(ld->logged), c0 == c1 ? 1 : 2);
	lt_kunit_replay_all(ld);

	a = lt_label_get(&ld->track, 0xa, 1);
	b = lt_label_get(&ld->track, 0xb, 1);
	KUNIT_EXPECT_NE(test, a, b);
	KUNIT_EXPECT_EQ(test, ld->track.stats.dead_bytes, 64 * LT_KIB);
	KUNIT_EXPECT_EQ(test, ld->track.label[b].bytes, 64 * LT_KIB);
	for (i = 0; i < LT_NR_BINS; i++)
		KUNIT_EXPECT_EQ(test, ld->track.label[b].hist[i], 0);
	KUNIT_EXPECT_EQ(test, ld->track.owner[LT_MIB >> 16].label, b);
	KUNIT_EXPECT_EQ(test, ld->now, 32);
	KUNIT_EXPECT_EQ(test, ld->act[0][1], 32);
	KUNIT_EXPECT_TRUE(test, cpumask_empty(ld->logged));
	for (i = 0; i < 2; i++) {
		struct lt_log *log = per_cpu_ptr(ld->log, i ? c1 : c0);

		KUNIT_EXPECT_EQ(test, log->len[0] + log->len[1], 0);
		KUNIT_EXPECT_EQ(test, log->pages[0] + log->pages[1], 0);
	}
}

/*
 * One CPU's log: replayed in order, emptied, and due a replay when full
 * or past its pages, with nothing lost.
 */
static void lt_kunit_replay(struct kunit *test)
{
	struct lt_disk *ld = lt_kunit_disk(test);
	unsigned int c0 = raw_smp_processor_id(), i;

	lt_kunit_replay_order(test, ld, c0, c0);

	for (i = 1; i < LT_LOG_LEN; i++)
		KUNIT_EXPECT_FALSE(test, lt_kunit_log(ld, c0, 100 + i, 0xa,
						      4 * LT_KIB));
	KUNIT_EXPECT_TRUE(test, lt_kunit_log(ld, c0, 200, 0xa, 4 * LT_KIB));
	lt_kunit_replay_all(ld);
	ld->log_pages = 16;
	KUNIT_EXPECT_FALSE(test, lt_kunit_log(ld, c0, 201, 0xb, 32 * LT_KIB));
	KUNIT_EXPECT_TRUE(test, lt_kunit_log(ld, c0, 202, 0xb, 32 * LT_KIB));
	lt_kunit_replay_all(ld);
	/* Invalidations move no clock and make no log due. */
	KUNIT_EXPECT_FALSE(test, lt_kunit_log(ld, c0, 203, 0, LT_MIB));
	KUNIT_EXPECT_EQ(test, ld->now, 32 + LT_LOG_LEN + 16);
	lt_kunit_replay_all(ld);
	KUNIT_EXPECT_EQ(test, ld->track.stats.host_bytes,
			128 * LT_KIB + LT_LOG_LEN * 4 * LT_KIB + 64 * LT_KIB);
	KUNIT_EXPECT_EQ(test, ld->track.stats.discard_bytes,
			64 * LT_KIB + LT_MIB);
	KUNIT_EXPECT_EQ(test, lt_track_check(&ld->track), 0);
}

/* Two CPUs' logs are merged in submission order. */
static void lt_kunit_replay_cpus(struct kunit *test)
{
	struct lt_disk *ld = lt_kunit_disk(test);
	unsigned int c0, c1;

	if (num_possible_cpus() < 2)
		kunit_skip(test, "needs two possible CPUs");
	c0 = cpumask_first(cpu_possible_mask);
	c1 = cpumask_next(c0, cpu_possible_mask);
	lt_kunit_replay_order(test, ld, c0, c1);
}

/*
 * Writes that touch no tracked range are only counted: a replay adds
 * their pages to the clock and their tenants' activity once, and a CPU
 * whose skipped pages reach the log's limit replays by itself.
 */
static void lt_kunit_skip(struct kunit *test)
{
	struct lt_disk *ld = lt_kunit_disk(test);
	struct bio bio;
	unsigned int i;

	bio_init(&bio, NULL, NULL, 0, REQ_OP_WRITE);
	bio.bi_iter.bi_size = 8 * LT_KIB;
	ld->nr_tenants = 3;
	for (i = 0; i < 5; i++)
		lt_skip(ld, &bio, 2);
	KUNIT_EXPECT_EQ(test, ld->now, 0);
	KUNIT_EXPECT_FALSE(test, cpumask_empty(ld->skipped));
	spin_lock_irq(&ld->lock);
	lt_replay(ld, false);
	spin_unlock_irq(&ld->lock);
	KUNIT_EXPECT_EQ(test, ld->now, 10);
	KUNIT_EXPECT_EQ(test, ld->act[0][2], 10);
	KUNIT_EXPECT_EQ(test, ld->act[0][1], 0);
	KUNIT_EXPECT_TRUE(test, cpumask_empty(ld->skipped));
	/* Folded once: a full replay adds nothing more. */
	lt_kunit_replay_all(ld);
	KUNIT_EXPECT_EQ(test, ld->now, 10);
	KUNIT_EXPECT_EQ(test, lt_skipped_pages(ld), 10);

	/* The fourth page past the last fold replays. */
	ld->log_pages = 8;
	for (i = 0; i < 3; i++)
		lt_skip(ld, &bio, 1);
	KUNIT_EXPECT_EQ(test, ld->now, 10);
	lt_skip(ld, &bio, 1);
	KUNIT_EXPECT_EQ(test, ld->now, 18);
	KUNIT_EXPECT_EQ(test, ld->act[0][1], 8);
	/* Nothing reached the tracker. */
	KUNIT_EXPECT_EQ(test, ld->track.stats.host_bytes, 0);
}

/*
 * A bio goes to the tracker at once while the disk lock is free, after
 * what was logged while it was not: a write of label a logged as
 * lt_record() logs it when another CPU holds the lock, then one of label
 * b over the same range, kills a's data.  Sectors are the whole disk's:
 * those of a partition are offset.
 */
static void lt_kunit_record(struct kunit *test)
{
	struct block_device *part = kunit_kzalloc(test, sizeof(*part),
						  GFP_KERNEL);
	struct lt_disk *ld = lt_kunit_disk(test);
	char an[LT_NAME_LEN] = "a", bn[LT_NAME_LEN] = "b";
	struct bio bio;
	u16 a, b;

	KUNIT_ASSERT_NOT_NULL(test, part);
	part->bd_start_sect = LT_SECT(LT_MIB);
	bio_init(&bio, NULL, NULL, 0, REQ_OP_WRITE);
	bio.bi_bdev = part;
	bio.bi_iter.bi_size = 64 * LT_KIB;

	lt_log(ld, lt_bio_sector(&bio), bio_sectors(&bio), 0xa, 1, an);
	KUNIT_EXPECT_FALSE(test, cpumask_empty(ld->logged));
	KUNIT_EXPECT_EQ(test, ld->track.stats.host_bytes, 0);

	lt_record(ld, &bio, 0xb, 1, bn);
	KUNIT_EXPECT_TRUE(test, cpumask_empty(ld->logged));
	a = lt_label_get(&ld->track, 0xa, 1);
	b = lt_label_get(&ld->track, 0xb, 1);
	KUNIT_EXPECT_NE(test, a, b);
	KUNIT_EXPECT_STREQ(test, ld->names[b], "b");
	KUNIT_EXPECT_EQ(test, ld->track.stats.host_bytes, 128 * LT_KIB);
	KUNIT_EXPECT_EQ(test, ld->track.stats.dead_bytes, 64 * LT_KIB);
	KUNIT_EXPECT_EQ(test, ld->track.label[a].bytes, 64 * LT_KIB);
	KUNIT_EXPECT_EQ(test, ld->track.owner[LT_MIB >> 16].label, b);
	KUNIT_EXPECT_EQ(test, ld->now, 32);

	/* An invalidation, applied at once too. */
	bio.bi_opf = REQ_OP_DISCARD;
	lt_record(ld, &bio, 0, 0, NULL);
	KUNIT_EXPECT_EQ(test, ld->track.stats.dead_bytes, 128 * LT_KIB);
	KUNIT_EXPECT_EQ(test, ld->track.owner[LT_MIB >> 16].live, 0);
	KUNIT_EXPECT_EQ(test, lt_track_check(&ld->track), 0);
}

/*
 * A write's rank comes from its label key as lt_bio_key() builds it: the
 * journal 1, metadata 2, the hints short 3 to extreme 6, in the order of
 * the hint policy's default map; none for a write with no hint.
 */
static void lt_kunit_key_rank(struct kunit *test)
{
	static const u8 want[BLK_STREAM_KEY_NR] = {
		[WRITE_LIFE_NOT_SET] = 0,
		[WRITE_LIFE_NONE] = 0,
		[WRITE_LIFE_SHORT] = 3,
		[WRITE_LIFE_MEDIUM] = 4,
		[WRITE_LIFE_LONG] = 5,
		[WRITE_LIFE_EXTREME] = 6,
		[BLK_STREAM_KEY_JOURNAL] = 1,
		[BLK_STREAM_KEY_METADATA] = 2,
	};
	struct bio bio;
	unsigned int k;

	for (k = 0; k < BLK_STREAM_KEY_NR; k++) {
		bio_init(&bio, NULL, NULL, 0, REQ_OP_WRITE);
		if (k == BLK_STREAM_KEY_JOURNAL)
			bio_set_write_kind(&bio, WRITE_KIND_JOURNAL);
		else if (k == BLK_STREAM_KEY_METADATA)
			bio_set_write_kind(&bio, WRITE_KIND_METADATA);
		else
			bio.bi_write_hint = k;
		KUNIT_EXPECT_EQ(test, bio_stream_key(&bio), k);
		KUNIT_EXPECT_EQ(test, blk_stream_key_rank(k), want[k]);
		KUNIT_EXPECT_EQ(test, lt_key_rank(lt_bio_key(&bio, NULL)),
				want[k]);
	}
}

/*
 * The pages a CPU's memo holds count as skipped and as sent to its
 * stream before the memo hands them over, and reach the clock once,
 * whether a fold finds them in the memo or in the counts.
 */
static void lt_kunit_memo(struct kunit *test)
{
	struct lt_disk *ld = lt_kunit_disk(test);
	struct lt_memo *m;
	struct lt_log *log;
	bool due;

	/* The memo and the counts of one CPU throughout. */
	migrate_disable();
	log = this_cpu_ptr(ld->log);
	m = &log->memo;
	ld->nr_tenants = 3;
	m->tenant = 2;
	m->stream = 3;
	WRITE_ONCE(m->pages, 5);
	KUNIT_EXPECT_EQ(test, lt_skipped_pages(ld), 5);
	KUNIT_EXPECT_EQ(test, lt_stream_sum(log, 3), 5);
	KUNIT_EXPECT_EQ(test, lt_stream_sum(log, 2), 0);
	lt_kunit_replay_all(ld);
	KUNIT_EXPECT_EQ(test, ld->now, 5);
	KUNIT_EXPECT_EQ(test, ld->act[0][2], 0);

	preempt_disable();
	due = lt_memo_flush(ld, log, m);
	preempt_enable();
	KUNIT_EXPECT_FALSE(test, due);
	KUNIT_EXPECT_EQ(test, READ_ONCE(m->pages), 0);
	KUNIT_EXPECT_EQ(test, lt_skipped_pages(ld), 5);
	KUNIT_EXPECT_EQ(test, lt_stream_sum(log, 3), 5);
	lt_kunit_replay_all(ld);
	KUNIT_EXPECT_EQ(test, ld->now, 5);
	KUNIT_EXPECT_EQ(test, ld->act[0][2], 5);

	/* A flush that brings the CPU to the log's limit makes it due. */
	ld->log_pages = 8;
	WRITE_ONCE(m->pages, 8);
	preempt_disable();
	due = lt_memo_flush(ld, log, m);
	preempt_enable();
	KUNIT_EXPECT_TRUE(test, due);
	lt_kunit_replay_all(ld);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, ld->now, 13);
	KUNIT_EXPECT_EQ(test, ld->act[0][2], 13);
	KUNIT_EXPECT_EQ(test, lt_skipped_pages(ld), 13);
}

/* A worker that only counts its runs. */
static void lt_kunit_count_work(struct work_struct *work)
{
	struct lt_disk *ld = container_of(work, struct lt_disk, work);

	WRITE_ONCE(ld->checks, ld->checks + 1);
}

/* lt_clock() under the lock, and whether it woke the worker. */
static bool lt_kunit_clock_by(struct lt_disk *ld, u64 pages)
{
	u64 checks = READ_ONCE(ld->checks);

	spin_lock_irq(&ld->lock);
	lt_clock(ld, pages);
	spin_unlock_irq(&ld->lock);
	flush_work(&ld->work);
	return READ_ONCE(ld->checks) != checks;
}

/*
 * Checks come at the end of each period, a quarter of a reclaim age, and
 * until the first layout every 1/16 of it as well; only the ends of
 * periods are due to age what was learned.  A shorter reclaim age brings
 * both forward.
 */
static void lt_kunit_clock(struct kunit *test)
{
	struct lt_installed *inst = kunit_kzalloc(test, sizeof(*inst),
						  GFP_KERNEL);
	struct lt_disk *ld = lt_kunit_disk(test);

	KUNIT_ASSERT_NOT_NULL(test, inst);
	INIT_WORK(&ld->work, lt_kunit_count_work);
	ld->reclaim_age = 1600;
	ld->next_period = lt_period(ld);
	ld->next_check = lt_next_check(ld);
	KUNIT_EXPECT_EQ(test, ld->next_period, 400);
	KUNIT_EXPECT_EQ(test, ld->next_check, 100);

	KUNIT_EXPECT_FALSE(test, lt_kunit_clock_by(ld, 99));
	/* A check in the first period, which ends no period. */
	KUNIT_EXPECT_TRUE(test, lt_kunit_clock_by(ld, 11));
	KUNIT_EXPECT_EQ(test, ld->periods_due, 0);
	KUNIT_EXPECT_EQ(test, ld->next_check, 210);
	/* The period's end comes before the next early check would. */
	KUNIT_EXPECT_TRUE(test, lt_kunit_clock_by(ld, 250));
	KUNIT_EXPECT_EQ(test, ld->next_check, 400);
	KUNIT_EXPECT_TRUE(test, lt_kunit_clock_by(ld, 40));
	KUNIT_EXPECT_EQ(test, ld->periods_due, 1);
	KUNIT_EXPECT_EQ(test, ld->next_period, 800);
	KUNIT_EXPECT_EQ(test, ld->next_check, 500);

	/*
	 * With a layout, a check ends each period and no other; installing
	 * it drops the early check already set (as lt_install() does).
	 */
	rcu_assign_pointer(ld->layout, inst);
	ld->next_check = lt_next_check(ld);
	KUNIT_EXPECT_EQ(test, ld->next_check, 800);
	KUNIT_EXPECT_FALSE(test, lt_kunit_clock_by(ld, 399));
	KUNIT_EXPECT_TRUE(test, lt_kunit_clock_by(ld, 1));
	KUNIT_EXPECT_EQ(test, ld->periods_due, 2);
	KUNIT_EXPECT_EQ(test, ld->next_period, 1200);
	KUNIT_EXPECT_EQ(test, ld->next_check, 1200);

	/* A reclaim age of 400 pages: the period ends 100 pages on. */
	ld->reclaim_age = 400;
	spin_lock_irq(&ld->lock);
	lt_check_soon(ld);
	spin_unlock_irq(&ld->lock);
	KUNIT_EXPECT_EQ(test, ld->next_period, 900);
	KUNIT_EXPECT_EQ(test, ld->next_check, 900);
	KUNIT_EXPECT_EQ(test, ld->checks, 4);

	RCU_INIT_POINTER(ld->layout, NULL);
}

/*
 * The worker ages what was learned by the periods that ended, and by
 * nothing else: checks in between leave the activity window and the
 * histograms alone, and many periods at once age at most a reclaim age.
 */
static void lt_kunit_periods(struct kunit *test)
{
	struct block_device *part = kunit_kzalloc(test, sizeof(*part),
						  GFP_KERNEL);
	struct lt_disk *ld = lt_kunit_disk(test);
	char name[LT_NAME_LEN] = "a";
	struct bio bio;
	unsigned int i;
	u16 a;

	KUNIT_ASSERT_NOT_NULL(test, part);
	mutex_init(&ld->plan_mutex);
	INIT_WORK(&ld->work, lt_kunit_count_work);
	ld->snap = kvcalloc(LT_MAX_LABELS, sizeof(*ld->snap), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ld->snap);
	bio_init(&bio, NULL, NULL, 0, REQ_OP_WRITE);
	bio.bi_bdev = part;
	bio.bi_iter.bi_size = 64 * LT_KIB;
	lt_record(ld, &bio, 0xa, 1, name);
	a = lt_label_get(&ld->track, 0xa, 1);
	KUNIT_EXPECT_EQ(test, ld->track.label[a].bytes, 64 * LT_KIB);
	KUNIT_EXPECT_EQ(test, ld->act[0][1], 16);

	/* Checks that end no period (replans, early checks) age nothing. */
	for (i = 0; i < 2 * LT_QUARTERS; i++)
		lt_workfn(&ld->work);
	KUNIT_EXPECT_EQ(test, ld->checks, 2 * LT_QUARTERS);
	KUNIT_EXPECT_EQ(test, ld->periods, 0);
	KUNIT_EXPECT_EQ(test, ld->quarter, 0);
	KUNIT_EXPECT_EQ(test, ld->act[0][1], 16);
	KUNIT_EXPECT_EQ(test, ld->track.label[a].bytes, 64 * LT_KIB);

	/* One period: the window moves on, the histograms stay. */
	ld->periods_due = 1;
	lt_workfn(&ld->work);
	KUNIT_EXPECT_EQ(test, ld->periods, 1);
	KUNIT_EXPECT_EQ(test, ld->quarter, 1);
	KUNIT_EXPECT_EQ(test, ld->act[0][1], 16);
	KUNIT_EXPECT_EQ(test, ld->track.label[a].bytes, 64 * LT_KIB);

	/* Six at once count for drift, but age as four: one halving. */
	ld->periods_due = 6;
	lt_workfn(&ld->work);
	KUNIT_EXPECT_EQ(test, ld->periods, 7);
	KUNIT_EXPECT_EQ(test, ld->periods_due, 0);
	KUNIT_EXPECT_EQ(test, ld->quarter, 1);
	KUNIT_EXPECT_EQ(test, ld->act[0][1], 0);
	KUNIT_EXPECT_EQ(test, ld->track.label[a].bytes, 32 * LT_KIB);
	KUNIT_EXPECT_EQ(test, lt_track_check(&ld->track), 0);
}

/*
 * Tenant slots: each cgroup gets one of its own until none is left, then
 * they share one, counted, and the worker is woken; slots of tenants idle
 * for a reclaim age are then given back with their labels, and a cgroup
 * that shared looks again and finds one of its own.  A tenant that wrote
 * keeps its slot, and with no cgroup waiting, so does one idle for less
 * than LT_IDLE_AGES reclaim ages.
 */
static void lt_kunit_tenants(struct kunit *test)
{
	struct lt_disk *ld = lt_kunit_disk(test);
	const struct lt_tenant_index *ti;
	u64 tag = ld->bare_tag;
	unsigned int i;
	u16 label;

	mutex_init(&ld->plan_mutex);
	INIT_WORK(&ld->work, lt_kunit_count_work);
	ld->reclaim_age = 100;
	for (i = 0; i < LT_MAX_TENANTS; i++)
		KUNIT_EXPECT_EQ(test, lt_tenant_add(ld, NULL, 1000 + i), i);
	KUNIT_EXPECT_FALSE(test, ld->tenants_full);
	KUNIT_EXPECT_EQ(test, lt_tenant_add(ld, NULL, 5000), LT_TENANT_SHARE);
	flush_work(&ld->work);
	KUNIT_EXPECT_EQ(test, ld->checks, 1);
	KUNIT_EXPECT_EQ(test, ld->tenant_overflow, 1);
	KUNIT_EXPECT_EQ(test, ld->tenant_sharers[LT_TENANT_SHARE], 2);
	rcu_read_lock();
	ti = rcu_dereference(ld->tindex);
	KUNIT_EXPECT_EQ(test, lt_tenant_find(ti, 1007), 7);
	KUNIT_EXPECT_EQ(test, lt_tenant_find(ti, 5000), LT_TENANT_SHARE);
	KUNIT_EXPECT_EQ(test, lt_tenant_find(ti, 6000), -1);
	rcu_read_unlock();

	/* Tenant 7 wrote lately, the rest not for a reclaim age. */
	label = lt_label_get(&ld->track, 0xa, 3);
	KUNIT_EXPECT_NE(test, label, LT_LABEL_UNKNOWN);
	ld->now = 300;
	ld->act[0][7] = 1;
	mutex_lock(&ld->plan_mutex);
	lt_tenants_recycle(ld, NULL);
	mutex_unlock(&ld->plan_mutex);
	KUNIT_EXPECT_EQ(test, ld->tenant_used, BIT_ULL(7));
	KUNIT_EXPECT_EQ(test, ld->tenants_idle, LT_MAX_TENANTS - 1);
	KUNIT_EXPECT_EQ(test, ld->tenants_removed, 0);
	KUNIT_EXPECT_EQ(test, ld->nr_tenants, 8);
	KUNIT_EXPECT_NE(test, ld->bare_tag, tag);
	KUNIT_EXPECT_FALSE(test, ld->tenants_full);
	/* Tenant 3's label retired: its key makes a new one. */
	KUNIT_EXPECT_EQ(test, ld->track.stats.labels_retired, 1);
	rcu_read_lock();
	ti = rcu_dereference(ld->tindex);
	KUNIT_EXPECT_EQ(test, lt_tenant_find(ti, 1007), 7);
	KUNIT_EXPECT_EQ(test, lt_tenant_find(ti, 1003), -1);
	KUNIT_EXPECT_EQ(test, lt_tenant_find(ti, 5000), -1);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, lt_tenant_add(ld, NULL, 5000), 0);
	KUNIT_EXPECT_EQ(test, ld->tenant_sharers[0], 1);
	/*
	 * With no cgroup waiting for a slot, one reclaim age idle is not
	 * enough: nothing is given back, and the index stays.
	 */
	ld->now = 450;
	ti = rcu_access_pointer(ld->tindex);
	mutex_lock(&ld->plan_mutex);
	lt_tenants_recycle(ld, NULL);
	mutex_unlock(&ld->plan_mutex);
	KUNIT_EXPECT_EQ(test, ld->tenant_used, BIT_ULL(0) | BIT_ULL(7));
	KUNIT_EXPECT_PTR_EQ(test, rcu_access_pointer(ld->tindex), ti);
	synchronize_rcu();
}

/* A write of @size bytes at the start of a partition at the disk's start. */
static void lt_kunit_bio(struct kunit *test, struct bio *bio, u32 size)
{
	struct block_device *part = kunit_kzalloc(test, sizeof(*part),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, part);
	bio_init(bio, NULL, NULL, 0, REQ_OP_WRITE);
	bio->bi_bdev = part;
	bio->bi_iter.bi_size = size;
}

/*
 * A discard of the whole disk goes to the tracker in parts of at most
 * LT_CHUNK_RANGES ranges, with the same result as at once: everything the
 * write before it left live dies.
 */
static void lt_kunit_parts(struct kunit *test)
{
	struct lt_disk *ld = lt_kunit_disk(test);
	char name[LT_NAME_LEN] = "a";
	struct bio bio;
	u64 r;

	lt_kunit_bio(test, &bio, LT_GIB - LT_MIB);
	KUNIT_EXPECT_EQ(test, lt_track_chunk(&ld->track, 3, U32_MAX),
			LT_CHUNK_RANGES * (64 * LT_KIB >> LT_SECTOR_SHIFT) - 3);
	KUNIT_EXPECT_EQ(test, lt_track_chunk(&ld->track, 3, 8), 8);
	lt_record(ld, &bio, 0xa, 1, name);
	KUNIT_EXPECT_EQ(test, ld->track.stats.host_bytes, LT_GIB - LT_MIB);
	KUNIT_EXPECT_EQ(test, ld->now, (LT_GIB - LT_MIB) >> LT_PAGE_SHIFT);
	bio.bi_opf = REQ_OP_DISCARD;
	bio.bi_iter.bi_sector = 0;
	bio.bi_iter.bi_size = LT_GIB - LT_MIB;
	lt_record(ld, &bio, 0, 0, NULL);
	KUNIT_EXPECT_EQ(test, ld->track.stats.dead_bytes, LT_GIB - LT_MIB);
	for (r = 0; r < ld->track.nr_slots; r++)
		if (ld->track.owner[r].live)
			break;
	KUNIT_EXPECT_EQ(test, r, ld->track.nr_slots);
	KUNIT_EXPECT_EQ(test, lt_track_check(&ld->track), 0);
}

/*
 * A log half that was replayed because its records reached
 * LT_CHUNK_RANGES ranges takes records again when it is the current half
 * once more: lt_log() must not find it still full, or it would replay
 * an empty log for ever.
 */
static void lt_kunit_log_ranges(struct kunit *test)
{
	struct lt_disk *ld = lt_kunit_disk(test);
	char name[LT_NAME_LEN] = "a";
	u32 part = lt_track_chunk(&ld->track, 0, U32_MAX);
	int i;

	/* One CPU's log throughout: each part fills a half in turn. */
	migrate_disable();
	for (i = 0; i < 4; i++)
		lt_log(ld, 0, part, 0xa, 1, name);
	migrate_enable();
	KUNIT_EXPECT_TRUE(test, cpumask_empty(ld->logged));
	KUNIT_EXPECT_EQ(test, ld->track.stats.host_bytes,
			4 * ((u64)part << LT_SECTOR_SHIFT));
	KUNIT_EXPECT_EQ(test, lt_track_check(&ld->track), 0);
}

/*
 * A disk of no capacity, as an NVMe namespace reads while it is being
 * deleted and before it is marked dead, is refused as a dead disk is:
 * with -ENODEV, live or in shadow.
 */
static void lt_kunit_no_capacity(struct kunit *test)
{
	struct queue_limits lim = { };
	struct gendisk *disk;
	void *data = NULL;

	disk = blk_alloc_disk(&lim, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, disk);
	KUNIT_EXPECT_EQ(test, get_capacity(disk), 0);
	KUNIT_EXPECT_EQ(test, lt_init_disk(disk, &data), -ENODEV);
	KUNIT_EXPECT_EQ(test, lt_init_shadow(disk, &data), -ENODEV);
	KUNIT_EXPECT_NULL(test, data);
	put_disk(disk);
}

static void lt_kunit_set_budget(struct lt_budget *b, const u8 *streams,
				unsigned int nr)
{
	memset(b, 0, sizeof(*b));
	b->nr = nr;
	if (nr)
		memcpy(b->streams, streams, nr);
}

/*
 * When io.stream's changes make the installed layout wrong: a tenant's
 * stream taken from the free ones, a budgeted tenant's stream outside its
 * budget, a shared stream neither free nor in a budget; and when they do
 * not: streams given back, a budget that grew.
 */
static void lt_kunit_confined(struct kunit *test)
{
	struct lt_disk *ld = lt_kunit_disk(test);
	struct lt_installed *cur = lt_test_alloc(test, sizeof(*cur));
	static const u8 all[] = { 2, 3, 4, 5, 6, 7 };
	static const u8 no3[] = { 2, 4, 5, 6, 7 };
	static const u8 no6[] = { 2, 3, 4, 5, 7 };
	static const u8 b45[] = { 4, 5 }, b457[] = { 4, 5, 7 };
	static const u8 b57[] = { 5, 7 }, b6[] = { 6 };
	struct lt_layout_stream *st;

	KUNIT_ASSERT_NOT_NULL(test, cur);
	st = cur->layout.stream;
	/* Tenant 0 on 3; tenant 1 on 4 and 5; 6 shared. */
	st[0] = (struct lt_layout_stream){ .stream = 3, .tenant = 0 };
	st[1] = (struct lt_layout_stream){ .stream = 4, .tenant = 1 };
	st[2] = (struct lt_layout_stream){ .stream = 5, .tenant = 1 };
	st[3] = (struct lt_layout_stream){ .stream = 6,
					   .tenant = LT_TENANT_SHARED };
	cur->layout.nr_streams = 4;

	KUNIT_EXPECT_NULL(test, lt_layout_confined(ld, cur, all, 6));
	/* A pin of another cgroup took 3, then 6. */
	KUNIT_EXPECT_STREQ(test, lt_layout_confined(ld, cur, no3, 5), "streams");
	KUNIT_EXPECT_STREQ(test, lt_layout_confined(ld, cur, no6, 5), "streams");
	/* 6 went into tenant 0's budget instead: its stream 3 is outside. */
	lt_kunit_set_budget(&ld->budget[0], b6, 1);
	KUNIT_EXPECT_STREQ(test, lt_layout_confined(ld, cur, no6, 5), "budget");
	memcpy(&ld->budget_planned[0], &ld->budget[0], sizeof(ld->budget[0]));
	KUNIT_EXPECT_STREQ(test, lt_layout_confined(ld, cur, no6, 5), "streams");
	lt_kunit_set_budget(&ld->budget[0], NULL, 0);
	lt_kunit_set_budget(&ld->budget_planned[0], NULL, 0);
	/* Tenant 1 given 4-5, then 4, 5 and 7: its streams stay in it. */
	lt_kunit_set_budget(&ld->budget[1], b45, 2);
	KUNIT_EXPECT_NULL(test, lt_layout_confined(ld, cur, all, 6));
	lt_kunit_set_budget(&ld->budget[1], b457, 3);
	KUNIT_EXPECT_NULL(test, lt_layout_confined(ld, cur, all, 6));
	/* Narrowed to 5 and 7: 4 is outside it. */
	lt_kunit_set_budget(&ld->budget[1], b57, 2);
	KUNIT_EXPECT_STREQ(test, lt_layout_confined(ld, cur, all, 6), "budget");
}

KUNIT_DEFINE_ACTION_WRAPPER(lt_kunit_put_disk, put_disk, struct gendisk *);
KUNIT_DEFINE_ACTION_WRAPPER(lt_kunit_cancel_work, cancel_work_sync,
			    struct work_struct *);

/* Write @mib MiB as tenant @t, label 0x100 + @t, at @t * 64 MiB. */
static void lt_kunit_write(struct kunit *test, struct lt_disk *ld, u16 t,
			   u32 mib)
{
	char name[LT_NAME_LEN];
	struct bio bio;

	lt_kunit_bio(test, &bio, mib * LT_MIB);
	bio.bi_iter.bi_sector = LT_SECT((u64)t * 64 * LT_MIB);
	snprintf(name, sizeof(name), "t%u", t);
	lt_record(ld, &bio, 0x100 + t, t, name);
}

/*
 * The worker's re-plan keeps the streams of tenants that had one of their
 * own (lt_plan_owners() of the installed layout, as @prev_owners): seven
 * tenants take the seven free streams, then two larger ones arrive.  With
 * nine tenants of like survival on seven streams, six keep a stream of
 * their own and three share one; the six are the old owners, not the
 * newcomers, and the smallest old tenant keeps its stream too, now shared
 * with the newcomers.
 */
static void lt_kunit_plan_owners(struct kunit *test)
{
	struct queue_limits lim = { .max_write_streams = 8 };
	struct lt_disk *ld = lt_kunit_disk(test);
	const u64 old = GENMASK_ULL(6, 0), all = GENMASK_ULL(8, 0);
	const u64 kept = GENMASK_ULL(6, 1);
	const struct lt_installed *inst;
	u8 first[7];
	u16 t, slot;

	ld->disk = blk_alloc_disk(&lim, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ld->disk);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							lt_kunit_put_disk,
							ld->disk), 0);
	mutex_init(&ld->plan_mutex);
	/* Only the two checks below run: the clock wakes no worker. */
	INIT_WORK(&ld->work, lt_kunit_count_work);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							lt_kunit_cancel_work,
							&ld->work), 0);
	ld->snap = kvcalloc(LT_MAX_LABELS, sizeof(*ld->snap), GFP_KERNEL);
	ld->scratch = kvzalloc_obj(*ld->scratch, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ld->snap);
	KUNIT_ASSERT_NOT_NULL(test, ld->scratch);
	ld->auto_plan = true;
	ld->min_side = LT_MIN_SIDE_PM;
	lt_update_reclaim_age(ld);
	KUNIT_ASSERT_TRUE(test, ld->track.on);

	/* No cgroup has these ids: no budget, nothing removed. */
	for (t = 0; t < 9; t++) {
		slot = lt_tenant_add(ld, NULL, BIT_ULL(40) + t);
		KUNIT_ASSERT_EQ(test, slot, t);
	}
	for (t = 0; t < 7; t++)
		lt_kunit_write(test, ld, t, 10 + t);
	lt_workfn(&ld->work);
	inst = rcu_dereference_protected(ld->layout, true);
	KUNIT_ASSERT_NOT_NULL(test, inst);
	KUNIT_EXPECT_STREQ(test, ld->last_reason, "first");
	KUNIT_EXPECT_EQ(test, lt_plan_owners(&inst->layout), old);
	for (t = 0; t < 7; t++) {
		first[t] = inst->layout.tenant_stream[t];
		KUNIT_EXPECT_GE(test, first[t], 2);
		KUNIT_EXPECT_LE(test, first[t], 8);
	}

	/* 18 MiB each: more than any old tenant, less than twice any. */
	lt_kunit_write(test, ld, 7, 18);
	lt_kunit_write(test, ld, 8, 18);
	lt_workfn(&ld->work);
	inst = rcu_dereference_protected(ld->layout, true);
	KUNIT_EXPECT_STREQ(test, ld->last_reason, "tenants");
	KUNIT_EXPECT_EQ(test, inst->tenants, all);
	KUNIT_EXPECT_EQ(test, lt_plan_owners(&inst->layout), kept);
	for (t = 0; t < 7; t++)
		KUNIT_EXPECT_EQ_MSG(test, inst->layout.tenant_stream[t],
				    first[t], "tenant %u", t);
	KUNIT_EXPECT_EQ(test, inst->layout.tenant_stream[7], first[0]);
	KUNIT_EXPECT_EQ(test, inst->layout.tenant_stream[8], first[0]);
	KUNIT_EXPECT_EQ(test, ld->checks, 2);
}

static struct kunit_case lt_kunit_cases[] = {
	KUNIT_CASE_PARAM(lt_kunit_run, lt_kunit_gen_params),
	KUNIT_CASE(lt_kunit_replay),
	KUNIT_CASE(lt_kunit_replay_cpus),
	KUNIT_CASE(lt_kunit_skip),
	KUNIT_CASE(lt_kunit_record),
	KUNIT_CASE(lt_kunit_key_rank),
	KUNIT_CASE(lt_kunit_memo),
	KUNIT_CASE(lt_kunit_clock),
	KUNIT_CASE(lt_kunit_periods),
	KUNIT_CASE(lt_kunit_tenants),
	KUNIT_CASE(lt_kunit_parts),
	KUNIT_CASE(lt_kunit_log_ranges),
	KUNIT_CASE(lt_kunit_no_capacity),
	KUNIT_CASE(lt_kunit_confined),
	KUNIT_CASE(lt_kunit_plan_owners),
	{}
};

static struct kunit_suite lt_kunit_suite = {
	.name = "lifetime",
	.test_cases = lt_kunit_cases,
};

kunit_test_suite(lt_kunit_suite);
