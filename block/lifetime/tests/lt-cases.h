/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test cases of the lifetime tracker and planner, shared by the KUnit suite
 * (lt-kunit.c) and the userspace runner (tools/testing/lifetime/lt_test.c).
 *
 * The includer defines LT_TEST_CTX, the context type, and three helpers:
 *
 *   bool lt_check(LT_TEST_CTX *test, bool ok, const char *what, int line);
 *   bool lt_check_eq(LT_TEST_CTX *test, u64 got, u64 want,
 *		      const char *what, int line);
 *   void *lt_test_alloc(LT_TEST_CTX *test, size_t size);
 *
 * lt_check*() record a failure and return whether the check held;
 * lt_test_alloc() returns zeroed memory freed when the case ends.
 * lt_test_table[] lists the cases for the includer to run.
 */
#ifndef _LT_CASES_H
#define _LT_CASES_H

#define LT_EXPECT(test, cond)	lt_check(test, !!(cond), #cond, __LINE__)
#define LT_EXPECT_EQ(test, got, want)					\
	lt_check_eq(test, (u64)(got), (u64)(want), #got " == " #want,	\
		    __LINE__)

#define LT_KIB			1024ULL
#define LT_MIB			(1024ULL * LT_KIB)
#define LT_GIB			(1024ULL * LT_MIB)
#define LT_TB			4000000000000ULL	/* a "4 TB" drive */
#define LT_SECT(bytes)		((bytes) >> LT_SECTOR_SHIFT)

static struct lt_track *lt_test_track_sampled(LT_TEST_CTX *test, u64 bytes,
					      u32 range_size,
					      unsigned int sample_shift,
					      u64 mem_cap)
{
	struct lt_track *t = lt_test_alloc(test, sizeof(*t));

	if (!LT_EXPECT(test, t))
		return NULL;
	if (!LT_EXPECT_EQ(test, lt_track_init(t, LT_SECT(bytes), range_size,
					      sample_shift, mem_cap), 0))
		return NULL;
	return t;
}

static struct lt_track *lt_test_track(LT_TEST_CTX *test, u64 bytes,
				      u32 range_size, u64 mem_cap)
{
	return lt_test_track_sampled(test, bytes, range_size, 0, mem_cap);
}

static u64 lt_test_hist_sum(const struct lt_label *l)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < LT_NR_BINS; i++)
		sum += l->hist[i];
	return sum;
}

/* An owner entry is 8 bytes; the range size follows the capacity. */
static void lt_test_owner_size(LT_TEST_CTX *test)
{
	LT_EXPECT_EQ(test, sizeof(struct lt_owner), 8);
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(LT_GIB), 0, 0,
						LT_DEFAULT_MEM_CAP), 16);
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(LT_TB), 0, 0,
						LT_DEFAULT_MEM_CAP), 20);
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(4096 * LT_GIB), 0, 0,
						LT_DEFAULT_MEM_CAP), 20);
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(256 * LT_GIB), 0, 0,
						LT_DEFAULT_MEM_CAP), 16);
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(257 * LT_GIB), 0, 0,
						LT_DEFAULT_MEM_CAP), 17);
	/* An override replaces the default, and must be a power of two. */
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(LT_GIB), 256 * LT_KIB, 0,
						LT_DEFAULT_MEM_CAP), 18);
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(LT_GIB), 96 * LT_KIB, 0,
						LT_DEFAULT_MEM_CAP), -EINVAL);
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(LT_GIB), 32 * LT_KIB, 0,
						LT_DEFAULT_MEM_CAP), -EINVAL);
	/* The clock unit keeps eight capacities of writes under the clamp. */
	LT_EXPECT_EQ(test, lt_track_time_shift(LT_GIB), 0);
	LT_EXPECT_EQ(test, lt_track_time_shift(LT_TB), 3);
	LT_EXPECT_EQ(test, lt_track_time_shift(4096 * LT_GIB), 4);
}

/* A tracker with tracking off: labels still count bytes, nothing else. */
static void lt_test_untracked(LT_TEST_CTX *test, struct lt_track *t)
{
	u16 a;

	LT_EXPECT(test, !t->on);
	LT_EXPECT(test, !t->owner);
	LT_EXPECT_EQ(test, t->stats.off, 1);
	LT_EXPECT_EQ(test, t->stats.ranges, 0);
	LT_EXPECT_EQ(test, t->stats.mem_bytes,
		     LT_MAX_LABELS * sizeof(struct lt_label));
	a = lt_label_get(t, 0xa, 0);
	lt_track_write(t, 0, LT_SECT(64 * LT_KIB), a, 1);
	lt_track_write(t, 0, LT_SECT(64 * LT_KIB), a, 2);
	lt_track_discard(t, 0, LT_SECT(64 * LT_KIB), 3);
	LT_EXPECT_EQ(test, t->label[a].bytes, 128 * LT_KIB);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 0);
	LT_EXPECT_EQ(test, lt_track_sweep(t, 4, 100), 0);
}

/* The memory cap grows the ranges, and tracking stops if nothing fits. */
static void lt_test_mem_cap(LT_TEST_CTX *test)
{
	struct lt_track *t;

	/* 4 TB in 16 MiB: 1 MiB ranges take 30.5 MiB, 2 MiB ranges 15.3. */
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(LT_TB), 0, 0,
						16 * LT_MIB), 21);
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(LT_TB), 0, 0,
						256 * LT_KIB), -ENOSPC);
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(LT_GIB), 0, 0, 0),
		     -ENOSPC);
	/* Tracking one range in 8, the table holds one entry per 8 ranges. */
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(LT_TB), 0, 3,
						16 * LT_MIB), 20);
	LT_EXPECT_EQ(test, lt_track_range_shift(LT_SECT(LT_TB), 0, 3,
						256 * LT_KIB), 24);

	t = lt_test_track(test, LT_GIB, 0, 16 * LT_KIB);
	if (!t)
		return;
	LT_EXPECT(test, t->on);
	LT_EXPECT_EQ(test, t->stats.range_bytes, 512 * LT_KIB);
	LT_EXPECT_EQ(test, t->stats.ranges, 2048);
	LT_EXPECT_EQ(test, t->stats.off, 0);
	lt_track_exit(t);

	t = lt_test_track(test, LT_GIB, 0, 4);
	if (!t)
		return;
	LT_EXPECT_EQ(test, t->stats.alloc_failed, 0);
	lt_test_untracked(test, t);
	lt_track_exit(t);
}

/*
 * An owner table that cannot be allocated (here 4.9 GB for 40 TB in
 * 64 KiB ranges, past the kernel's INT_MAX limit on one allocation) turns
 * tracking off and is counted; the labels still count bytes.
 */
static void lt_test_alloc_failed(LT_TEST_CTX *test)
{
	struct lt_track *t = lt_test_track(test, 10 * LT_TB, 64 * LT_KIB,
					   U64_MAX);

	if (!t)
		return;
	LT_EXPECT_EQ(test, t->stats.alloc_failed, 1);
	lt_test_untracked(test, t);
	lt_track_exit(t);
}

/*
 * A new owner table keeps the labels and what they learned, forgets
 * whose data each range holds and takes that data out of its labels'
 * bytes, scales the labels' counts to the new sampling rate, and frees
 * retired labels; bad sizes leave the old table.
 */
static void lt_test_resize(LT_TEST_CTX *test)
{
	struct lt_track *t = lt_test_track(test, LT_GIB, 0, LT_DEFAULT_MEM_CAP);
	struct lt_stranded *st = lt_test_alloc(test, sizeof(*st));
	u64 r1 = LT_SECT(64 * LT_KIB), dead, mem;
	struct lt_track_size sz;
	u16 a, b, c, nr_free;

	if (!t || !LT_EXPECT(test, st))
		return;
	a = lt_label_get(t, 0xa, 1);
	b = lt_label_get(t, 0xb, 1);
	c = lt_label_get(t, 0xc, 2);
	lt_track_write(t, r1, LT_SECT(64 * LT_KIB), a, 10);
	lt_track_write(t, 0, LT_SECT(16 * LT_KIB), a, 10);
	lt_track_write(t, 0, LT_SECT(16 * LT_KIB), b, 110);
	lt_track_write(t, 2 * r1, LT_SECT(32 * LT_KIB), c, 120);
	lt_track_write(t, 3 * r1, LT_SECT(16 * LT_KIB), LT_LABEL_UNKNOWN, 120);
	/* c retired with data still live: it waits for its entry. */
	lt_track_forget_tenant(t, 2);
	LT_EXPECT(test, t->label[c].flags & LT_LABEL_DRAINING);
	LT_EXPECT_EQ(test, t->label[a].refs, 1);
	LT_EXPECT_EQ(test, t->label[a].hist[7], 16 * LT_KIB);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);
	dead = t->stats.dead_bytes;
	nr_free = t->nr_free;

	LT_EXPECT_EQ(test, lt_track_size_alloc(t, &sz, 3 * 64 * LT_KIB, 0,
					       LT_DEFAULT_MEM_CAP), -EINVAL);
	LT_EXPECT_EQ(test, lt_track_size_alloc(t, &sz, 0,
					       LT_MAX_SAMPLE_SHIFT + 1,
					       LT_DEFAULT_MEM_CAP), -EINVAL);
	LT_EXPECT_EQ(test, t->stats.range_bytes, 64 * LT_KIB);

	if (!LT_EXPECT_EQ(test, lt_track_size_alloc(t, &sz, 128 * LT_KIB, 0,
						    LT_DEFAULT_MEM_CAP), 0) ||
	    !LT_EXPECT(test, sz.owner))
		goto out;
	sz.stranded = st;
	lt_track_resize(t, &sz);
	/* At 200, with a reclaim age of 100: a's data at 10 survived it. */
	lt_track_count_stranded(&sz, 200ULL << t->time_shift,
				100ULL << t->time_shift, t->time_shift);
	lt_track_unstrand(t, &sz);
	kvfree(sz.owner);
	LT_EXPECT_EQ(test, t->stats.range_bytes, 128 * LT_KIB);
	LT_EXPECT_EQ(test, t->nr_slots, LT_GIB / (128 * LT_KIB));
	LT_EXPECT_EQ(test, t->stats.mem_bytes,
		     LT_MAX_LABELS * sizeof(struct lt_label) +
		     t->nr_slots * sizeof(struct lt_owner));
	LT_EXPECT_EQ(test, t->geom, lt_geom(true, 17, 0));
	/* The retired label is free; the others keep their slots. */
	LT_EXPECT_EQ(test, t->label[c].flags, 0);
	LT_EXPECT_EQ(test, t->nr_free, nr_free + 1);
	LT_EXPECT_EQ(test, t->label[a].refs, 0);
	LT_EXPECT_EQ(test, t->label[LT_LABEL_UNKNOWN].refs, 0);
	/*
	 * Live data younger than the reclaim age leaves its labels' bytes;
	 * a's, older, stays as survived.
	 */
	LT_EXPECT_EQ(test, st->live[a], 0);
	LT_EXPECT_EQ(test, st->live[b], 16 * LT_KIB);
	LT_EXPECT_EQ(test, t->label[a].bytes, 80 * LT_KIB);
	LT_EXPECT_EQ(test, t->label[b].bytes, 0);
	LT_EXPECT_EQ(test, t->label[LT_LABEL_UNKNOWN].bytes, 0);
	LT_EXPECT_EQ(test, t->label[a].hist[7], 16 * LT_KIB);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);

	/* The old data dies unseen; the new table tracks what follows. */
	lt_track_write(t, r1, LT_SECT(64 * LT_KIB), b, 1000);
	LT_EXPECT_EQ(test, t->stats.dead_bytes, dead);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 16 * LT_KIB);
	lt_track_write(t, r1, LT_SECT(64 * LT_KIB), a, 1100);
	LT_EXPECT_EQ(test, t->label[b].hist[7], 64 * LT_KIB);
	lt_track_write(t, 4 * r1, LT_SECT(64 * LT_KIB), LT_LABEL_UNKNOWN, 1100);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);

	/* One range in 4: the counts are scaled to what a quarter sees. */
	if (!LT_EXPECT_EQ(test, lt_track_size_alloc(t, &sz, 0, 2,
						    LT_DEFAULT_MEM_CAP), 0))
		goto out;
	lt_track_resize(t, &sz);
	kvfree(sz.owner);
	LT_EXPECT_EQ(test, t->sample_shift, 2);
	LT_EXPECT_EQ(test, t->geom, lt_geom(true, 16, 2));
	LT_EXPECT_EQ(test, t->label[b].hist[7], 16 * LT_KIB);
	LT_EXPECT_EQ(test, t->label[a].bytes, (80 + 64) * LT_KIB / 4);
	LT_EXPECT_EQ(test, t->label[LT_LABEL_UNKNOWN].bytes, 64 * LT_KIB / 4);

	/* A cap no table fits turns tracking off, and counts all bytes. */
	mem = t->stats.mem_bytes;
	if (!LT_EXPECT_EQ(test, lt_track_size_alloc(t, &sz, 0, 2, 0), 0))
		goto out;
	LT_EXPECT(test, !sz.owner && !sz.alloc_failed);
	lt_track_resize(t, &sz);
	LT_EXPECT(test, sz.owner);
	kvfree(sz.owner);
	LT_EXPECT(test, !t->on);
	LT_EXPECT_EQ(test, t->geom, lt_geom(false, 16, 2));
	LT_EXPECT(test, !lt_geom_sampled(t->geom));
	LT_EXPECT_EQ(test, t->stats.off, 1);
	LT_EXPECT_EQ(test, t->stats.range_bytes, 0);
	LT_EXPECT(test, t->stats.mem_bytes < mem);
	LT_EXPECT_EQ(test, t->label[b].hist[7], 64 * LT_KIB);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);
	LT_EXPECT(test, lt_track_sampled(t, 0, 8));

	/* ... and on again, with every range tracked. */
	if (!LT_EXPECT_EQ(test, lt_track_size_alloc(t, &sz, 0, 0,
						    LT_DEFAULT_MEM_CAP), 0))
		goto out;
	lt_track_resize(t, &sz);
	LT_EXPECT(test, !sz.owner);
	LT_EXPECT(test, t->on);
	LT_EXPECT_EQ(test, t->geom, lt_geom(true, 16, 0));
	LT_EXPECT_EQ(test, t->nr_ranges, LT_GIB / (64 * LT_KIB));
	LT_EXPECT_EQ(test, t->label[b].hist[7], 64 * LT_KIB);
	lt_track_write(t, 0, LT_SECT(64 * LT_KIB), a, 2000);
	lt_track_write(t, 0, LT_SECT(64 * LT_KIB), b, 2100);
	LT_EXPECT_EQ(test, t->label[a].hist[7], (16 + 64) * LT_KIB);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);
out:
	lt_track_exit(t);
}

/* An overwrite charges the old owner the overwritten bytes at their age. */
static void lt_test_overwrite(LT_TEST_CTX *test)
{
	struct lt_track *t = lt_test_track(test, LT_GIB, 0, LT_DEFAULT_MEM_CAP);
	u16 a, b;

	if (!t)
		return;
	LT_EXPECT_EQ(test, lt_age_bin(0), 0);
	LT_EXPECT_EQ(test, lt_age_bin(1), 1);
	LT_EXPECT_EQ(test, lt_age_bin(4095), 12);
	LT_EXPECT_EQ(test, lt_age_bin(4096), 13);
	LT_EXPECT_EQ(test, lt_age_bin(1ULL << 50), LT_NR_BINS - 1);

	a = lt_label_get(t, 0xa, 1);
	b = lt_label_get(t, 0xb, 1);
	LT_EXPECT(test, a && b && a != b);
	lt_track_write(t, 0, LT_SECT(64 * LT_KIB), a, 1000);
	lt_track_write(t, LT_SECT(4 * LT_KIB), LT_SECT(16 * LT_KIB), b, 4000);
	LT_EXPECT_EQ(test, t->label[a].hist[12], 16 * LT_KIB);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 16 * LT_KIB);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[b]), 0);
	LT_EXPECT_EQ(test, t->label[a].bytes, 64 * LT_KIB);
	LT_EXPECT_EQ(test, t->label[b].bytes, 16 * LT_KIB);
	LT_EXPECT_EQ(test, t->stats.dead_bytes, 16 * LT_KIB);

	/* A sub-page write is charged its own bytes, not the sub-block. */
	lt_track_write(t, LT_SECT(32 * LT_KIB), 1, b, 4000);
	LT_EXPECT_EQ(test, t->label[a].hist[12], 16 * LT_KIB + 512);

	/* Ages read across the wrap of the 32-bit clock. */
	lt_track_write(t, LT_SECT(512 * LT_KIB), LT_SECT(64 * LT_KIB), a,
		       (1ULL << 32) - 10);
	lt_track_write(t, LT_SECT(512 * LT_KIB), LT_SECT(64 * LT_KIB), b,
		       (1ULL << 32) + 100);
	LT_EXPECT_EQ(test, t->label[a].hist[7], 64 * LT_KIB);

	/* A clock that steps back reads as age 0. */
	lt_track_write(t, LT_SECT(1024 * LT_KIB), LT_SECT(64 * LT_KIB), a,
		       (1ULL << 32) + 200);
	lt_track_write(t, LT_SECT(1024 * LT_KIB), LT_SECT(64 * LT_KIB), b,
		       (1ULL << 32) + 190);
	LT_EXPECT_EQ(test, t->label[a].hist[0], 64 * LT_KIB);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);
	lt_track_exit(t);
}

/* A discard charges the whole live sub-blocks it spans; zeroes too. */
static void lt_test_discard(LT_TEST_CTX *test)
{
	struct lt_track *t = lt_test_track(test, LT_GIB, 0, LT_DEFAULT_MEM_CAP);
	u64 r1 = LT_SECT(64 * LT_KIB), r2 = LT_SECT(128 * LT_KIB);
	u16 a, b;

	if (!t)
		return;
	a = lt_label_get(t, 0xa, 1);
	b = lt_label_get(t, 0xb, 1);
	lt_track_write(t, r1, LT_SECT(64 * LT_KIB), a, 10);
	lt_track_discard(t, r1 + LT_SECT(8 * LT_KIB), LT_SECT(32 * LT_KIB), 110);
	LT_EXPECT_EQ(test, t->label[a].hist[7], 32 * LT_KIB);
	LT_EXPECT_EQ(test, t->owner[1].live, 0xfc03);

	/* Parts of two sub-blocks: nothing dies. */
	lt_track_discard(t, r1 + LT_SECT(46 * LT_KIB), LT_SECT(4 * LT_KIB), 120);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 32 * LT_KIB);

	/* The rest dies at age 1000, and the range has no owner left. */
	lt_track_discard(t, r1, LT_SECT(64 * LT_KIB), 1010);
	LT_EXPECT_EQ(test, t->label[a].hist[10], 32 * LT_KIB);
	LT_EXPECT_EQ(test, t->owner[1].live, 0);
	LT_EXPECT_EQ(test, t->label[a].refs, 0);

	/* Write zeroes kill data the same way. */
	lt_track_write(t, r2, LT_SECT(64 * LT_KIB), a, 2000);
	lt_track_write_zeroes(t, r2, LT_SECT(64 * LT_KIB), 2003);
	LT_EXPECT_EQ(test, t->label[a].hist[2], 64 * LT_KIB);
	LT_EXPECT_EQ(test, t->owner[2].live, 0);
	/* ... so a later write over it charges nobody. */
	lt_track_write(t, r2, LT_SECT(64 * LT_KIB), b, 3000);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 128 * LT_KIB);
	LT_EXPECT_EQ(test, t->stats.dead_bytes, 128 * LT_KIB);
	LT_EXPECT_EQ(test, t->stats.discard_bytes, 164 * LT_KIB);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);
	lt_track_exit(t);
}

/* Partial overlaps follow the ownership rule of lt-track.c. */
static void lt_test_partial_overlap(LT_TEST_CTX *test)
{
	struct lt_track *t = lt_test_track(test, LT_GIB, 0, LT_DEFAULT_MEM_CAP);
	u64 r1 = LT_SECT(64 * LT_KIB);
	u16 a, b, c;

	if (!t)
		return;
	a = lt_label_get(t, 0xa, 1);
	b = lt_label_get(t, 0xb, 1);
	c = lt_label_get(t, 0xc, 1);

	/* Same label: the entry's time becomes the bytes' mean time. */
	lt_track_write(t, 0, LT_SECT(32 * LT_KIB), a, 0);
	lt_track_write(t, LT_SECT(32 * LT_KIB), LT_SECT(32 * LT_KIB), a, 1600);
	LT_EXPECT_EQ(test, t->owner[0].label, a);
	LT_EXPECT_EQ(test, t->owner[0].live, 0xffff);
	LT_EXPECT_EQ(test, t->owner[0].time, 800);
	lt_track_write(t, 0, LT_SECT(64 * LT_KIB), c, 2600);
	LT_EXPECT_EQ(test, t->label[a].hist[11], 64 * LT_KIB);

	/* Another label with fewer sub-blocks: the owner keeps the range. */
	lt_track_write(t, r1, LT_SECT(64 * LT_KIB), a, 100);
	lt_track_write(t, r1, LT_SECT(16 * LT_KIB), b, 200);
	LT_EXPECT_EQ(test, t->label[a].hist[7], 16 * LT_KIB);
	LT_EXPECT_EQ(test, t->owner[1].label, a);
	LT_EXPECT_EQ(test, t->owner[1].live, 0xfff0);
	LT_EXPECT_EQ(test, t->owner[1].time, 100);
	LT_EXPECT_EQ(test, t->stats.dropped_bytes, 16 * LT_KIB);

	/* Dropped sub-blocks are not live: overwriting them charges nobody. */
	lt_track_write(t, r1, LT_SECT(16 * LT_KIB), b, 300);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 80 * LT_KIB);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[b]), 0);

	/* The writer now holds more: it takes the range, the rest drops. */
	lt_track_write(t, r1 + LT_SECT(16 * LT_KIB), LT_SECT(32 * LT_KIB), b,
		       400);
	LT_EXPECT_EQ(test, t->label[a].hist[9], 32 * LT_KIB);
	LT_EXPECT_EQ(test, t->owner[1].label, b);
	LT_EXPECT_EQ(test, t->owner[1].live, 0x0ff0);
	LT_EXPECT_EQ(test, t->owner[1].time, 400);
	LT_EXPECT_EQ(test, t->stats.dropped_bytes, 48 * LT_KIB);

	/* Only what b owns dies as b's; a loses nothing more. */
	lt_track_write(t, r1, LT_SECT(64 * LT_KIB), c, 1424);
	LT_EXPECT_EQ(test, t->label[b].hist[11], 32 * LT_KIB);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[b]), 32 * LT_KIB);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 112 * LT_KIB);
	LT_EXPECT_EQ(test, t->label[a].refs, 0);
	LT_EXPECT_EQ(test, t->label[b].refs, 0);
	LT_EXPECT_EQ(test, t->label[c].refs, 2);

	/* A tie goes to the writer. */
	lt_track_write(t, 2 * r1, LT_SECT(32 * LT_KIB), a, 2000);
	lt_track_write(t, 2 * r1 + LT_SECT(32 * LT_KIB), LT_SECT(32 * LT_KIB), b,
		       2100);
	LT_EXPECT_EQ(test, t->owner[2].label, b);
	LT_EXPECT_EQ(test, t->owner[2].live, 0xff00);
	LT_EXPECT_EQ(test, t->stats.dropped_bytes, 80 * LT_KIB);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);
	lt_track_exit(t);
}

/*
 * 64 KiB sub-blocks, as in the 1 MiB ranges of a 4 TB disk: a file
 * appended in 4 KiB writes kills none of its own data; a write over it,
 * in order or not, does.
 */
static void lt_test_append(LT_TEST_CTX *test)
{
	struct lt_track *t = lt_test_track(test, LT_GIB, LT_MIB,
					   LT_DEFAULT_MEM_CAP);
	u64 off;
	u16 a;

	if (!t)
		return;
	LT_EXPECT_EQ(test, t->sub_shift, 16);
	a = lt_label_get(t, 0xa, 1);
	for (off = 0; off < 256 * LT_KIB; off += 4 * LT_KIB)
		lt_track_write(t, LT_SECT(off), LT_SECT(4 * LT_KIB), a,
			       off >> LT_PAGE_SHIFT);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 0);
	LT_EXPECT_EQ(test, t->owner[0].live, 0x000f);
	LT_EXPECT_EQ(test, t->label[a].bytes, 256 * LT_KIB);
	LT_EXPECT_EQ(test, t->label[a].end, 256 * LT_KIB);

	/*
	 * Rewritten in order from the start, as a circular log: the
	 * sub-block was live when the rewrite began, so every write dies.
	 */
	for (off = 0; off < 64 * LT_KIB; off += 4 * LT_KIB)
		lt_track_write(t, LT_SECT(off), LT_SECT(4 * LT_KIB), a,
			       100 + (off >> LT_PAGE_SHIFT));
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 64 * LT_KIB);
	/* Another write elsewhere inside a live sub-block also counts. */
	lt_track_write(t, LT_SECT(136 * LT_KIB), LT_SECT(4 * LT_KIB), a, 200);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 68 * LT_KIB);
	/* A write past the live ones kills nothing, nor do appends to it. */
	for (off = 512 * LT_KIB; off < 544 * LT_KIB; off += 4 * LT_KIB)
		lt_track_write(t, LT_SECT(off), LT_SECT(4 * LT_KIB), a, 300);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 68 * LT_KIB);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);
	lt_track_exit(t);
}

/*
 * A retired label's slot is reused only once nothing names it, and its
 * old data's deaths never reach the label that reuses it.
 */
static void lt_test_label_reuse(LT_TEST_CTX *test)
{
	struct lt_track *t = lt_test_track(test, LT_GIB, 0, LT_DEFAULT_MEM_CAP);
	u64 r1 = LT_SECT(64 * LT_KIB), r5 = LT_SECT(320 * LT_KIB);
	u64 dead;
	u16 a, a2, x, n;
	int i;

	if (!t)
		return;
	a = lt_label_get(t, 0xa, 1);
	x = lt_label_get(t, 0xf, 1);
	lt_track_write(t, 0, LT_SECT(128 * LT_KIB), a, 10);
	LT_EXPECT_EQ(test, t->label[a].refs, 2);
	for (i = 0; i < LT_IDLE_AGES; i++) {
		lt_track_write(t, r5, LT_SECT(64 * LT_KIB), x, 100 + i);
		lt_track_age(t);
	}
	LT_EXPECT(test, t->label[a].flags & LT_LABEL_DRAINING);
	LT_EXPECT(test, !(t->label[x].flags & LT_LABEL_DRAINING));
	LT_EXPECT_EQ(test, t->stats.labels_retired, 1);

	/* The same key now gets a fresh slot; the old one still drains. */
	a2 = lt_label_get(t, 0xa, 1);
	LT_EXPECT(test, a2 != a && a2 != x && a2);
	dead = t->stats.dead_bytes;
	lt_track_write(t, 0, LT_SECT(64 * LT_KIB), a2, 5000);
	LT_EXPECT_EQ(test, t->stats.orphan_bytes, 64 * LT_KIB);
	LT_EXPECT_EQ(test, t->stats.dead_bytes, dead);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a2]), 0);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 0);
	LT_EXPECT_EQ(test, t->label[a].refs, 1);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);

	/* A full sweep drops the last entry and frees the slot. */
	LT_EXPECT_EQ(test, lt_track_sweep(t, 5000, t->nr_ranges),
		     t->nr_ranges);
	LT_EXPECT_EQ(test, t->stats.sweep_passes, 1);
	LT_EXPECT_EQ(test, t->label[a].flags, 0);

	/* A new key takes the freed slot and inherits nothing. */
	n = lt_label_get(t, 0x77, 2);
	LT_EXPECT_EQ(test, n, a);
	LT_EXPECT_EQ(test, t->label[n].bytes, 0);
	lt_track_write(t, r1, LT_SECT(64 * LT_KIB), x, 6000);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[n]), 0);
	LT_EXPECT_EQ(test, t->stats.dead_bytes, dead);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);
	lt_track_exit(t);
}

/* Lookups: per tenant, stable, full table falls back to unknown. */
static void lt_test_label_table(LT_TEST_CTX *test)
{
	struct lt_track *t = lt_test_track(test, LT_GIB, 0, LT_DEFAULT_MEM_CAP);
	unsigned int i, distinct = 0;
	u16 a, b;

	if (!t)
		return;
	a = lt_label_get(t, 0x10, 0);
	b = lt_label_get(t, 0x10, 1);
	LT_EXPECT(test, a && b && a != b);
	LT_EXPECT_EQ(test, lt_label_get(t, 0x10, 0), a);
	LT_EXPECT_EQ(test, lt_label_get(t, 0x10, 1), b);
	LT_EXPECT_EQ(test, t->label[b].tenant, 1);
	LT_EXPECT_EQ(test, lt_label_get(t, 0, 1), LT_LABEL_UNKNOWN);

	for (i = 0; i < LT_MAX_LABELS; i++) {
		u16 l = lt_label_get(t, 0x1000 + i, 3);

		if (l != LT_LABEL_UNKNOWN)
			distinct++;
	}
	LT_EXPECT_EQ(test, distinct, LT_MAX_LABELS - 3);
	LT_EXPECT_EQ(test, t->stats.label_overflow, 3);
	/* Every key that found a slot finds the same one again. */
	for (i = 0; i < LT_MAX_LABELS - 3; i++) {
		u16 l = lt_label_get(t, 0x1000 + i, 3);

		if (!LT_EXPECT(test, l && t->label[l].key == 0x1000 + i))
			break;
	}
	LT_EXPECT_EQ(test, t->stats.label_overflow, 3);
	lt_track_exit(t);
}

/* lt_track_age() halves bytes and histogram. */
static void lt_test_decay(LT_TEST_CTX *test)
{
	struct lt_track *t = lt_test_track(test, LT_GIB, 0, LT_DEFAULT_MEM_CAP);
	u16 a;

	if (!t)
		return;
	a = lt_label_get(t, 0xa, 0);
	lt_track_write(t, 0, LT_SECT(64 * LT_KIB), a, 0);
	lt_track_write(t, 0, LT_SECT(64 * LT_KIB), a, 100);
	LT_EXPECT_EQ(test, t->label[a].bytes, 128 * LT_KIB);
	LT_EXPECT_EQ(test, t->label[a].hist[7], 64 * LT_KIB);
	lt_track_age(t);
	LT_EXPECT_EQ(test, t->label[a].bytes, 64 * LT_KIB);
	LT_EXPECT_EQ(test, t->label[a].hist[7], 32 * LT_KIB);
	LT_EXPECT_EQ(test, t->label[a].idle, 1);
	lt_track_exit(t);
}

/* Survival at the reclaim age from a histogram. */
static void lt_test_survival(LT_TEST_CTX *test)
{
	u64 hist[LT_NR_BINS] = { 0 };
	u64 dead;

	/* Everything died well before R: survival 0. */
	hist[5] = 1000;
	LT_EXPECT_EQ(test, lt_dead_before(hist, 1 << 20), 1000);
	LT_EXPECT_EQ(test, lt_survival(1000, lt_dead_before(hist, 1 << 20)), 0);

	/* Nothing died, or only after R: full survival. */
	hist[5] = 0;
	LT_EXPECT_EQ(test, lt_survival(1000, lt_dead_before(hist, 1 << 20)),
		     LT_SURV_ONE);
	hist[30] = 1000;
	LT_EXPECT_EQ(test, lt_survival(1000, lt_dead_before(hist, 1 << 20)),
		     LT_SURV_ONE);
	LT_EXPECT_EQ(test, lt_survival(0, 0), LT_SURV_ONE);

	/* Bytes never seen dying count as alive: 300 of 1000 died. */
	hist[3] = 300;
	LT_EXPECT_EQ(test, lt_survival(1000, lt_dead_before(hist, 1024)),
		     LT_SURV_ONE - 300 * LT_SURV_ONE / 1000);
	LT_EXPECT_EQ(test, lt_survival(1000, 1500), 0);

	/* A bin that holds R splits evenly in log2 of the age. */
	memset(hist, 0, sizeof(hist));
	hist[11] = 1 << 20;			/* ages [1024, 2048) */
	LT_EXPECT_EQ(test, lt_dead_before(hist, 1024), 0);
	LT_EXPECT_EQ(test, lt_dead_before(hist, 2048), 1 << 20);
	dead = lt_dead_before(hist, 1448);	/* log2 = 10.49985 */
	LT_EXPECT(test, dead >= 524126 - 64 && dead <= 524126 + 64);
	dead = lt_dead_before(hist, 1536);	/* log2 = 10.58496 */
	LT_EXPECT(test, dead >= 613376 - 64 && dead <= 613376 + 64);
	LT_EXPECT_EQ(test, lt_log2_frac(1ULL << 40), 0);
	LT_EXPECT(test, lt_log2_frac(3) >= 38334 && lt_log2_frac(3) <= 38336);

	/* Worth: bL * sL * (sL - sS). */
	LT_EXPECT_EQ(test, lt_worth(LT_GIB, LT_SURV_ONE, 0), LT_GIB);
	LT_EXPECT_EQ(test, lt_worth(LT_GIB, LT_SURV_ONE / 2, LT_SURV_ONE / 4),
		     LT_GIB / 8);
	LT_EXPECT_EQ(test, lt_worth(LT_GIB, LT_SURV_ONE / 4, LT_SURV_ONE / 2),
		     0);
	LT_EXPECT_EQ(test, lt_worth(U64_MAX, LT_SURV_ONE, 0), U64_MAX);
}

/*
 * A four-tenant shared node shaped like seed 001's (section V-D):
 * RocksDB generations 0-3 die fast, 4 near the reclaim age, 5 long after;
 * PostgreSQL and SQLite each a short log and long data; an idle tenant.
 * Sizes in MiB; "early" bytes die at ages in bin 12, far below R = 2^20
 * pages, "late" bytes in bin 28, far above it.
 */
struct lt_test_label {
	u16 tenant;
	u16 key;
	u32 mib;
	u32 early;
	u32 late;
};

#define LT_TEST_R		BIT_ULL(20)

enum {
	LT_G0 = 1, LT_G1, LT_G2, LT_G3, LT_G4, LT_G5,
	LT_PG_WAL, LT_PG_TABLES, LT_SQ_WAL, LT_SQ_DB, LT_MONGO,
	LT_NODE_LABELS,
};

static const struct lt_test_label lt_shared_node[] = {
	[LT_G0] = { 0, 0x100, 10240, 10240, 0 },
	[LT_G1] = { 0, 0x101, 10240, 10240, 0 },
	[LT_G2] = { 0, 0x102, 10240, 10240, 0 },
	[LT_G3] = { 0, 0x103, 10240, 10035, 0 },	/* 2% */
	[LT_G4] = { 0, 0x104, 27111, 17080, 5000 },	/* 37% */
	[LT_G5] = { 0, 0x105, 5932, 712, 1000 },	/* 88% */
	[LT_PG_WAL] = { 1, 0x200, 4096, 2253, 1000 },	/* 45% */
	[LT_PG_TABLES] = { 1, 0x201, 8366, 335, 0 },	/* 96% */
	[LT_SQ_WAL] = { 2, 0x200, 6144, 6113, 0 },	/* 0.5% */
	[LT_SQ_DB] = { 2, 0x201, 10835, 650, 0 },	/* 94% */
	[LT_MONGO] = { 3, 0x400, 2048, 0, 0 },		/* 100% */
};

static void lt_test_fill(struct lt_label *labels,
			 const struct lt_test_label *src, unsigned int nr)
{
	unsigned int i;

	for (i = 1; i < nr; i++) {
		struct lt_label *l = &labels[i];

		memset(l, 0, sizeof(*l));
		l->flags = LT_LABEL_USED;
		l->key = src[i].key;
		l->tenant = src[i].tenant;
		l->bytes = (u64)src[i].mib * LT_MIB;
		l->hist[12] = (u64)src[i].early * LT_MIB;
		l->hist[28] = (u64)src[i].late * LT_MIB;
	}
}

static const u8 lt_test_streams[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };

/* A budget of streams 20, 21 and 22. */
static void lt_test_budget_20_22(struct lt_budget *b)
{
	b->nr = 3;
	b->streams[0] = 20;
	b->streams[1] = 21;
	b->streams[2] = 22;
}

/* A plan of @nr labels on @budget streams, with each label's @rank. */
static int lt_test_plan_ranked(const struct lt_label *labels,
			       unsigned int nr, const u8 *rank,
			       unsigned int budget, u16 min_side_pm,
			       struct lt_layout *out, struct lt_plan_work *work)
{
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = nr,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = budget,
		.min_side_pm = min_side_pm,
		.rank = rank,
	};

	return lt_plan(&in, out, work);
}

static int lt_test_plan(const struct lt_label *labels, unsigned int nr,
			unsigned int budget, u16 min_side_pm,
			struct lt_layout *out, struct lt_plan_work *work)
{
	return lt_test_plan_ranked(labels, nr, NULL, budget, min_side_pm, out,
				   work);
}

/* No stream carries two tenants' labels. */
static bool lt_test_isolated(const struct lt_label *labels, unsigned int nr,
			     const struct lt_layout *out)
{
	u16 owner[256];
	unsigned int i;

	memset(owner, 0xff, sizeof(owner));
	for (i = 1; i < nr; i++) {
		u8 s = out->label_stream[i];

		if (!s)
			continue;
		if (owner[s] != U16_MAX && owner[s] != labels[i].tenant)
			return false;
		owner[s] = labels[i].tenant;
	}
	return true;
}

static bool lt_test_near(u64 got, u64 want, u64 tol)
{
	return got + tol >= want && got <= want + tol;
}

/* Seven streams on the shared node: the three best splits, in order. */
static void lt_test_plan_shared_node(LT_TEST_CTX *test)
{
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	const struct lt_commit *c;

	if (!LT_EXPECT(test, labels && work && out))
		return;
	lt_test_fill(labels, lt_shared_node, LT_NODE_LABELS);
	if (!LT_EXPECT_EQ(test, lt_test_plan(labels, LT_NODE_LABELS, 7, 0, out,
					     work), 0))
		return;

	LT_EXPECT_EQ(test, out->nr_tenants, 4);
	LT_EXPECT_EQ(test, out->nr_streams, 7);
	LT_EXPECT_EQ(test, out->nr_shared, 0);
	/* Tenant-first, largest first: RocksDB, SQLite, PostgreSQL, idle. */
	LT_EXPECT_EQ(test, out->tenant_stream[0], 2);
	LT_EXPECT_EQ(test, out->tenant_stream[2], 3);
	LT_EXPECT_EQ(test, out->tenant_stream[1], 4);
	LT_EXPECT_EQ(test, out->tenant_stream[3], 5);

	/* SQLite's log, RocksDB's g0-3 | g4-5, PostgreSQL's log. */
	if (!LT_EXPECT_EQ(test, out->nr_commits, 3))
		return;
	c = out->commit;
	LT_EXPECT_EQ(test, c[0].tenant, 2);
	LT_EXPECT_EQ(test, c[0].label, LT_SQ_WAL);
	LT_EXPECT_EQ(test, c[1].tenant, 0);
	LT_EXPECT_EQ(test, c[1].label, LT_G3);
	LT_EXPECT_EQ(test, c[2].tenant, 1);
	LT_EXPECT_EQ(test, c[2].label, LT_PG_WAL);
	/* Worth 9.3, 6.8 and 4.0 GiB, within 0.1 GiB. */
	LT_EXPECT(test, lt_test_near(c[0].worth, 93 * LT_GIB / 10, LT_GIB / 10));
	LT_EXPECT(test, lt_test_near(c[1].worth, 68 * LT_GIB / 10, LT_GIB / 10));
	LT_EXPECT(test, lt_test_near(c[2].worth, 40 * LT_GIB / 10, LT_GIB / 10));
	LT_EXPECT_EQ(test, out->total_worth, c[0].worth + c[1].worth +
		     c[2].worth);

	/* Class 0 keeps the tenant's stream; g4 and g5 share it. */
	LT_EXPECT_EQ(test, out->label_stream[LT_SQ_DB], 3);
	LT_EXPECT_EQ(test, out->label_stream[LT_SQ_WAL], 6);
	LT_EXPECT_EQ(test, out->label_stream[LT_G5], 2);
	LT_EXPECT_EQ(test, out->label_stream[LT_G4], 2);
	LT_EXPECT_EQ(test, out->label_stream[LT_G0], 7);
	LT_EXPECT_EQ(test, out->label_stream[LT_G3], 7);
	LT_EXPECT_EQ(test, out->label_stream[LT_PG_TABLES], 4);
	LT_EXPECT_EQ(test, out->label_stream[LT_PG_WAL], 8);
	LT_EXPECT_EQ(test, out->label_stream[LT_MONGO], 5);
	LT_EXPECT_EQ(test, out->label_class[LT_G4], 0);
	LT_EXPECT_EQ(test, out->label_class[LT_G2], 1);
	LT_EXPECT_EQ(test, out->tenant_classes[0], 2);
	LT_EXPECT_EQ(test, out->tenant_classes[3], 1);
	LT_EXPECT_EQ(test, out->stream[4].tenant, 2);
	LT_EXPECT_EQ(test, out->stream[4].class, 1);
	LT_EXPECT_EQ(test, out->stream[4].bytes, 6144 * LT_MIB);
	LT_EXPECT(test, out->stream[4].survival < LT_SURV_ONE / 100);
	LT_EXPECT(test, lt_test_isolated(labels, LT_NODE_LABELS, out));

	/* An eighth stream goes to g4 | g5, worth 2.6 GiB. */
	if (!LT_EXPECT_EQ(test, lt_test_plan(labels, LT_NODE_LABELS, 8, 0, out,
					     work), 0))
		return;
	LT_EXPECT_EQ(test, out->nr_commits, 4);
	LT_EXPECT_EQ(test, c[3].tenant, 0);
	LT_EXPECT_EQ(test, c[3].label, LT_G4);
	LT_EXPECT(test, lt_test_near(c[3].worth, 26 * LT_GIB / 10, LT_GIB / 10));
	LT_EXPECT_EQ(test, out->label_class[LT_G5], 0);
	LT_EXPECT_EQ(test, out->label_class[LT_G4], 1);
	LT_EXPECT_EQ(test, out->label_class[LT_G0], 2);
}

/* Budgets 1 to 10: never over budget, classes only grow, no sharing. */
static void lt_test_plan_budget(LT_TEST_CTX *test)
{
	static const u8 classes[] = { 0, 4, 4, 4, 4, 5, 6, 7, 8, 9, 9 };
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	struct lt_commit prev[16];
	unsigned int budget, nprev = 0, i, sum, last = 0;

	if (!LT_EXPECT(test, labels && work && out))
		return;
	lt_test_fill(labels, lt_shared_node, LT_NODE_LABELS);
	for (budget = 1; budget <= 10; budget++) {
		if (!LT_EXPECT_EQ(test, lt_test_plan(labels, LT_NODE_LABELS,
						     budget, 0, out, work), 0))
			return;
		LT_EXPECT(test, out->nr_streams <= budget);
		LT_EXPECT_EQ(test, out->nr_streams, budget < 9 ? budget : 9);
		for (sum = 0, i = 0; i < LT_MAX_TENANTS; i++)
			sum += out->tenant_classes[i];
		LT_EXPECT_EQ(test, sum, classes[budget]);
		LT_EXPECT(test, sum >= last);
		last = sum;
		if (budget >= 4) {
			LT_EXPECT_EQ(test, out->nr_shared, 0);
			LT_EXPECT(test, lt_test_isolated(labels, LT_NODE_LABELS,
							 out));
		} else {
			LT_EXPECT_EQ(test, out->nr_shared, 4 - budget + 1);
		}
		/* A larger budget only adds boundaries after the same ones. */
		for (i = 0; i < nprev; i++)
			LT_EXPECT(test, out->commit[i].label == prev[i].label &&
				  out->commit[i].worth == prev[i].worth);
		nprev = out->nr_commits;
		if (nprev > ARRAY_SIZE(prev))
			nprev = ARRAY_SIZE(prev);
		memcpy(prev, out->commit, nprev * sizeof(prev[0]));
	}
}

/* Nine tenants, seven streams: six get their own, three share one. */
static void lt_test_plan_many_tenants(LT_TEST_CTX *test)
{
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	struct lt_test_label src[19];
	unsigned int t;

	if (!LT_EXPECT(test, labels && work && out))
		return;
	memset(src, 0, sizeof(src));
	for (t = 0; t < 9; t++) {
		/* A long-lived and a short-lived label, tempting a split. */
		src[1 + 2 * t] = (struct lt_test_label){ t, 0x10, 1024 * (t + 1),
							 0, 0 };
		src[2 + 2 * t] = (struct lt_test_label){ t, 0x20, 512 * (t + 1),
							 512 * (t + 1), 0 };
	}
	lt_test_fill(labels, src, 19);
	if (!LT_EXPECT_EQ(test, lt_test_plan(labels, 19, 7, 0, out, work), 0))
		return;
	LT_EXPECT_EQ(test, out->nr_tenants, 9);
	LT_EXPECT_EQ(test, out->nr_streams, 7);
	LT_EXPECT_EQ(test, out->nr_shared, 3);
	LT_EXPECT_EQ(test, out->nr_commits, 0);
	for (t = 0; t < 9; t++) {
		/* Tenant 8 is the largest and gets stream 2. */
		u8 want = t >= 3 ? 2 + 8 - t : 8;

		LT_EXPECT_EQ(test, out->tenant_stream[t], want);
		LT_EXPECT_EQ(test, out->label_stream[1 + 2 * t], want);
		LT_EXPECT_EQ(test, out->label_stream[2 + 2 * t], want);
		LT_EXPECT_EQ(test, out->tenant_classes[t], 1);
	}
	LT_EXPECT_EQ(test, out->stream[6].tenant, LT_TENANT_SHARED);
	LT_EXPECT_EQ(test, out->stream[0].tenant, 8);
	LT_EXPECT_EQ(test, out->stream[6].bytes, 1536 * 6 * LT_MIB);
}

/*
 * Fourteen tenants, seven streams, as in io.stream's experiment: the even
 * tenants' data die before the reclaim age, the odd ones' outlive it.
 * No stream may carry both kinds; noise in survival adds no group.
 */
static void lt_test_plan_tenant_groups(LT_TEST_CTX *test)
{
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	struct lt_test_label src[15];
	unsigned int t, round;
	u8 kind[256];

	if (!LT_EXPECT(test, labels && work && out))
		return;
	for (round = 0; round < 2; round++) {
		memset(src, 0, sizeof(src));
		for (t = 0; t < 14; t++) {
			/* Round 1: survivals 1% to 6% apart inside a kind. */
			u32 noise = round ? 10 * (t / 2 % 7) : 0;

			src[1 + t] = (struct lt_test_label){ t, 0x10, 1024,
				t % 2 ? noise : 1024 - noise, 0 };
		}
		lt_test_fill(labels, src, 15);
		if (!LT_EXPECT_EQ(test, lt_test_plan(labels, 15, 7, 0, out,
						     work), 0))
			return;
		LT_EXPECT_EQ(test, out->nr_tenants, 14);
		LT_EXPECT_EQ(test, out->nr_streams, 7);
		LT_EXPECT_EQ(test, out->nr_groups, 2);
		LT_EXPECT_EQ(test, out->nr_shared, 9);
		LT_EXPECT_EQ(test, out->nr_commits, 0);
		memset(kind, 0xff, sizeof(kind));
		for (t = 0; t < 14; t++) {
			u8 s = out->tenant_stream[t];

			LT_EXPECT(test, s >= 2 && s <= 8);
			LT_EXPECT_EQ(test, out->label_stream[1 + t], s);
			LT_EXPECT(test, kind[s] == 0xff || kind[s] == t % 2);
			kind[s] = t % 2;
		}
		/* Equal bytes: the lowest five tenants get a stream each. */
		for (t = 0; t < 5; t++)
			LT_EXPECT_EQ(test, out->stream[t].tenant, t);
		LT_EXPECT_EQ(test, out->stream[5].tenant, LT_TENANT_SHARED);
		LT_EXPECT_EQ(test, out->stream[6].tenant, LT_TENANT_SHARED);
		/* The long-lived group first: tenants 5, 7, 9, 11, 13. */
		LT_EXPECT_EQ(test, out->stream[5].bytes, 5 * 1024 * LT_MIB);
		LT_EXPECT_EQ(test, out->tenant_stream[13], out->stream[5].stream);
		LT_EXPECT_EQ(test, out->tenant_stream[12], out->stream[6].stream);
	}
}

/*
 * An active tenant whose writes touched no tracked range has no labels:
 * it still gets a stream of its own while tenants fit, and one to share
 * when they do not; with no labels at all, the active tenants still get
 * theirs.
 */
static void lt_test_plan_unseen_tenant(LT_TEST_CTX *test)
{
	static const struct lt_test_label src[] = {
		[1] = { 0, 0x10, 4096, 0, 0 },		/* tenant 0: data lives */
		[2] = { 0, 0x20, 2048, 2048, 0 },	/* and its log dies */
		[3] = { 1, 0x10, 1024, 0, 0 },
	};
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = ARRAY_SIZE(src),
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 4,
		.tenants = BIT_ULL(0) | BIT_ULL(1) | BIT_ULL(2),
	};

	if (!LT_EXPECT(test, labels && work && out))
		return;
	lt_test_fill(labels, src, ARRAY_SIZE(src));
	if (!LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0))
		return;
	/* Tenants 0 and 1 by bytes, then tenant 2, then tenant 0's split. */
	LT_EXPECT_EQ(test, out->nr_tenants, 3);
	LT_EXPECT_EQ(test, out->nr_streams, 4);
	LT_EXPECT_EQ(test, out->tenant_stream[0], 2);
	LT_EXPECT_EQ(test, out->tenant_stream[1], 3);
	LT_EXPECT_EQ(test, out->tenant_stream[2], 4);
	LT_EXPECT_EQ(test, out->stream[2].tenant, 2);
	LT_EXPECT_EQ(test, out->stream[2].bytes, 0);
	LT_EXPECT_EQ(test, out->label_stream[2], 5);
	LT_EXPECT(test, lt_test_isolated(labels, ARRAY_SIZE(src), out));

	/* Two streams for three tenants: tenant 2 shares one. */
	in.nr_streams = 2;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0))
		return;
	LT_EXPECT_EQ(test, out->nr_tenants, 3);
	LT_EXPECT_EQ(test, out->nr_streams, 2);
	LT_EXPECT_EQ(test, out->nr_shared, 2);
	LT_EXPECT(test, out->tenant_stream[2] == 2 || out->tenant_stream[2] == 3);

	/* Not active: no stream, as before. */
	in.nr_streams = 4;
	in.tenants = BIT_ULL(0) | BIT_ULL(1);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0))
		return;
	LT_EXPECT_EQ(test, out->nr_tenants, 2);
	LT_EXPECT_EQ(test, out->tenant_stream[2], 0);

	/* No labels at all: each active tenant gets a stream. */
	in.nr_labels = 1;
	in.tenants = BIT_ULL(3) | BIT_ULL(5);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0))
		return;
	LT_EXPECT_EQ(test, out->nr_tenants, 2);
	LT_EXPECT_EQ(test, out->nr_streams, 2);
	LT_EXPECT_EQ(test, out->tenant_stream[3], 2);
	LT_EXPECT_EQ(test, out->tenant_stream[5], 3);
}

/* Whether every label of tenant @t is on a stream of @b, and no other is. */
static bool lt_test_in_budget(const struct lt_label *labels, unsigned int nr,
			      const struct lt_layout *out, u16 t,
			      const struct lt_budget *b)
{
	unsigned int i, k;
	bool in, own;

	for (i = 1; i < nr; i++) {
		for (in = false, k = 0; k < b->nr; k++)
			in |= out->label_stream[i] == b->streams[k];
		own = labels[i].tenant == t;
		if (in != own)
			return false;
	}
	return true;
}

/* The free streams' entries of two layouts are the same. */
static bool lt_test_same_pool(const struct lt_layout *a,
			      const struct lt_layout *b, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (a->stream[i].stream != b->stream[i].stream ||
		    a->stream[i].tenant != b->stream[i].tenant ||
		    a->stream[i].bytes != b->stream[i].bytes)
			return false;
	return true;
}

/*
 * io.stream budgets: a tenant with one is planned on it alone, class c on
 * its stream c; the others are planned on the free streams as if it were
 * not there.
 */
/*
 * Plan @in without budgets, with only @tenants active, into @ref (what
 * the other tenants get without the budgets' tenants), then with
 * @budgets into @out.
 */
static bool lt_test_plan_budgets(LT_TEST_CTX *test, struct lt_plan_input *in,
				 struct lt_budget *budgets, u64 tenants,
				 struct lt_layout *ref, struct lt_layout *out,
				 struct lt_plan_work *work)
{
	in->tenants = tenants;
	in->budgets = NULL;
	if (!LT_EXPECT_EQ(test, lt_plan(in, ref, work), 0))
		return false;
	in->tenants = 0;
	in->budgets = budgets;
	return LT_EXPECT_EQ(test, lt_plan(in, out, work), 0);
}

static void lt_test_plan_io_budget(LT_TEST_CTX *test)
{
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_budget *budgets = lt_test_alloc(test, sizeof(*budgets) *
						  LT_MAX_TENANTS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	struct lt_layout *ref = lt_test_alloc(test, sizeof(*ref));
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = LT_NODE_LABELS,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 7,
	};
	unsigned int i, t;

	if (!LT_EXPECT(test, labels && budgets && work && out && ref))
		return;
	lt_test_fill(labels, lt_shared_node, LT_NODE_LABELS);

	/* The others alone, then SQLite with a budget of streams 20, 21. */
	in.tenants = BIT_ULL(0) | BIT_ULL(1) | BIT_ULL(3);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, ref, work), 0))
		return;
	budgets[2].nr = 2;
	budgets[2].streams[0] = 20;
	budgets[2].streams[1] = 21;
	in.budgets = budgets;
	in.tenants = 0;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0))
		return;
	LT_EXPECT_EQ(test, out->nr_tenants, 4);
	/* Its data (class 0) and its log on the two budget streams. */
	LT_EXPECT_EQ(test, out->tenant_stream[2], 20);
	LT_EXPECT_EQ(test, out->label_stream[LT_SQ_DB], 20);
	LT_EXPECT_EQ(test, out->label_stream[LT_SQ_WAL], 21);
	LT_EXPECT_EQ(test, out->label_class[LT_SQ_WAL], 1);
	LT_EXPECT_EQ(test, out->tenant_classes[2], 2);
	LT_EXPECT(test, lt_test_in_budget(labels, LT_NODE_LABELS, out, 2,
					  &budgets[2]));
	/* The others lose no free stream to it: the same plan as without. */
	LT_EXPECT_EQ(test, ref->nr_streams, 7);
	LT_EXPECT_EQ(test, out->nr_streams, ref->nr_streams + 2);
	LT_EXPECT(test, lt_test_same_pool(out, ref, ref->nr_streams));
	for (i = 1; i < LT_NODE_LABELS; i++)
		if (labels[i].tenant != 2)
			LT_EXPECT_EQ(test, out->label_stream[i],
				     ref->label_stream[i]);
	for (t = 0; t < LT_MAX_TENANTS; t++)
		if (t != 2)
			LT_EXPECT_EQ(test, out->tenant_stream[t],
				     ref->tenant_stream[t]);
	LT_EXPECT_EQ(test, out->stream[7].stream, 20);
	LT_EXPECT_EQ(test, out->stream[7].tenant, 2);
	LT_EXPECT_EQ(test, out->stream[8].stream, 21);
	LT_EXPECT_EQ(test, out->stream[8].class, 1);
	LT_EXPECT_EQ(test, out->stream[8].bytes, 6144 * LT_MIB);
	LT_EXPECT(test, out->stream[8].survival < LT_SURV_ONE / 100);
	LT_EXPECT_EQ(test, out->commit[out->nr_commits - 1].tenant, 2);
	LT_EXPECT_EQ(test, out->commit[out->nr_commits - 1].slot, 8);

	/*
	 * RocksDB too, with three streams that overlap SQLite's: three
	 * classes (g5 | g4 | g0-3, the best two cuts), each tenant planned
	 * on its budget as if alone, and the streams they share shown so.
	 */
	budgets[0].nr = 3;
	budgets[0].streams[0] = 20;
	budgets[0].streams[1] = 21;
	budgets[0].streams[2] = 22;
	if (!lt_test_plan_budgets(test, &in, budgets, BIT_ULL(1) | BIT_ULL(3),
				  ref, out, work))
		return;
	LT_EXPECT_EQ(test, out->tenant_classes[0], 3);
	LT_EXPECT_EQ(test, out->label_stream[LT_G5], 20);
	LT_EXPECT_EQ(test, out->label_stream[LT_G4], 21);
	LT_EXPECT_EQ(test, out->label_stream[LT_G0], 22);
	LT_EXPECT_EQ(test, out->label_stream[LT_G3], 22);
	LT_EXPECT_EQ(test, out->label_stream[LT_SQ_DB], 20);
	LT_EXPECT_EQ(test, out->label_stream[LT_SQ_WAL], 21);
	LT_EXPECT(test, lt_test_same_pool(out, ref, ref->nr_streams));
	if (LT_EXPECT_EQ(test, out->nr_streams, ref->nr_streams + 3)) {
		LT_EXPECT_EQ(test, out->stream[ref->nr_streams].tenant,
			     LT_TENANT_SHARED);
		LT_EXPECT_EQ(test, out->stream[ref->nr_streams + 1].tenant,
			     LT_TENANT_SHARED);
		LT_EXPECT_EQ(test, out->stream[ref->nr_streams + 2].tenant, 0);
	}
	for (i = 1; i < LT_NODE_LABELS; i++)
		if (labels[i].tenant == 1 || labels[i].tenant == 3)
			LT_EXPECT(test, out->label_stream[i] >= 2 &&
				  out->label_stream[i] <= 8);

	/* No free stream at all: the budgets are planned all the same. */
	in.nr_streams = 0;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0))
		return;
	LT_EXPECT_EQ(test, out->nr_streams, 3);
	LT_EXPECT_EQ(test, out->label_stream[LT_SQ_WAL], 21);
	LT_EXPECT_EQ(test, out->label_stream[LT_PG_WAL], 0);
	LT_EXPECT_EQ(test, out->tenant_stream[1], 0);

	/* An active tenant with no labels: its budget's first stream. */
	in.nr_streams = 7;
	in.tenants = BIT_ULL(0) | BIT_ULL(5);
	budgets[5].nr = 2;
	budgets[5].streams[0] = 30;
	budgets[5].streams[1] = 31;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0))
		return;
	LT_EXPECT_EQ(test, out->nr_tenants, 2);
	LT_EXPECT_EQ(test, out->tenant_stream[5], 30);
	LT_EXPECT_EQ(test, out->tenant_stream[2], 0);
	LT_EXPECT_EQ(test, out->nr_streams, 4);

	/* One stream is a pin, not a budget: planned on the free streams. */
	memset(budgets, 0, sizeof(*budgets) * LT_MAX_TENANTS);
	budgets[2].nr = 1;
	budgets[2].streams[0] = 20;
	in.tenants = 0;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0))
		return;
	in.budgets = NULL;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, ref, work), 0))
		return;
	LT_EXPECT(test, !memcmp(out->label_stream, ref->label_stream,
				sizeof(out->label_stream)));

	/* A budget stream that is free, repeated or 0 is refused. */
	in.budgets = budgets;
	budgets[2].nr = 2;
	budgets[2].streams[1] = 2;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), -EINVAL);
	budgets[2].streams[1] = 20;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), -EINVAL);
	budgets[2].streams[1] = 0;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), -EINVAL);
	budgets[2].streams[1] = 21;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0);

	/*
	 * Siblings with the same budget of three streams, RocksDB and
	 * SQLite: planned on it together, a stream each and the third to
	 * the best boundary of the two, no stream shared between them.
	 */
	memset(budgets, 0, sizeof(*budgets) * LT_MAX_TENANTS);
	for (t = 0; t <= 2; t += 2) {
		budgets[t].nr = 3;
		budgets[t].streams[0] = 20;
		budgets[t].streams[1] = 21;
		budgets[t].streams[2] = 22;
	}
	if (!lt_test_plan_budgets(test, &in, budgets, BIT_ULL(1) | BIT_ULL(3),
				  ref, out, work))
		return;
	LT_EXPECT_EQ(test, out->nr_tenants, 4);
	LT_EXPECT(test, lt_test_same_pool(out, ref, ref->nr_streams));
	/* Their labels, and only theirs, on the budget's streams. */
	for (i = 1; i < LT_NODE_LABELS; i++)
		LT_EXPECT_EQ(test, out->label_stream[i] >= 20 &&
			     out->label_stream[i] <= 22,
			     labels[i].tenant == 0 || labels[i].tenant == 2);
	LT_EXPECT(test, out->tenant_stream[0] != out->tenant_stream[2]);
	LT_EXPECT_EQ(test, out->tenant_classes[0] + out->tenant_classes[2], 3);
	if (LT_EXPECT_EQ(test, out->nr_streams, ref->nr_streams + 3))
		for (i = ref->nr_streams; i < out->nr_streams; i++)
			LT_EXPECT(test, out->stream[i].tenant == 0 ||
				  out->stream[i].tenant == 2);
	for (i = 1; i < LT_NODE_LABELS; i++)
		if (labels[i].tenant == 0)
			LT_EXPECT(test, out->label_stream[i] !=
				  out->tenant_stream[2]);
}

/* Same keys, opposite lifetimes in two tenants: each gets its own split. */
static void lt_test_plan_conflict(LT_TEST_CTX *test)
{
	static const struct lt_test_label src[] = {
		[1] = { 0, 0x10, 4096, 4055, 0 },	/* tenant 0: log dies */
		[2] = { 0, 0x20, 4096, 205, 0 },
		[3] = { 1, 0x10, 4096, 205, 0 },	/* tenant 1: log lives */
		[4] = { 1, 0x20, 4096, 4055, 0 },
	};
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));

	if (!LT_EXPECT(test, labels && work && out))
		return;
	lt_test_fill(labels, src, ARRAY_SIZE(src));
	if (!LT_EXPECT_EQ(test, lt_test_plan(labels, ARRAY_SIZE(src), 4, 0, out,
					     work), 0))
		return;
	LT_EXPECT_EQ(test, out->nr_commits, 2);
	LT_EXPECT_EQ(test, out->label_stream[2], 2);
	LT_EXPECT_EQ(test, out->label_class[2], 0);
	LT_EXPECT_EQ(test, out->label_stream[1], 4);
	LT_EXPECT_EQ(test, out->label_class[1], 1);
	LT_EXPECT_EQ(test, out->label_stream[3], 3);
	LT_EXPECT_EQ(test, out->label_class[3], 0);
	LT_EXPECT_EQ(test, out->label_stream[4], 5);
	LT_EXPECT_EQ(test, out->label_class[4], 1);
	LT_EXPECT(test, lt_test_isolated(labels, ARRAY_SIZE(src), out));
}

/* A side under the minimum share of the tenant's bytes gets no stream. */
static void lt_test_plan_min_side(LT_TEST_CTX *test)
{
	struct lt_test_label src[] = {
		[1] = { 0, 0x10, 1000, 0, 0 },
		[2] = { 0, 0x20, 49, 49, 0 },		/* 4.7% */
	};
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));

	if (!LT_EXPECT(test, labels && work && out))
		return;
	lt_test_fill(labels, src, ARRAY_SIZE(src));
	LT_EXPECT_EQ(test, lt_test_plan(labels, 3, 2, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 0);
	LT_EXPECT_EQ(test, out->nr_streams, 1);
	LT_EXPECT_EQ(test, out->label_stream[2], 2);

	/* A 4% minimum lets it through. */
	LT_EXPECT_EQ(test, lt_test_plan(labels, 3, 2, 40, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT_EQ(test, out->label_stream[2], 3);

	/* So does a side of 5.7% at the default 5%. */
	src[2].mib = 60;
	src[2].early = 60;
	lt_test_fill(labels, src, ARRAY_SIZE(src));
	LT_EXPECT_EQ(test, lt_test_plan(labels, 3, 2, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT_EQ(test, out->commit[0].label, 2);
	LT_EXPECT_EQ(test, out->label_stream[1], 2);
	LT_EXPECT_EQ(test, out->label_stream[2], 3);
}

/*
 * Writers' ranks (lifetime hints): labels whose survivals tie are ordered
 * by rank and cut between ranks, on streams no measured boundary wants.
 */
static void lt_test_plan_rank(LT_TEST_CTX *test)
{
	/*
	 * One tenant's labels before any of their data died, ranks 1 to 4,
	 * and a label with no rank.
	 */
	struct lt_test_label src[] = {
		[1] = { 0, 0x12, 100, 0, 0 },
		[2] = { 0, 0x13, 100, 0, 0 },
		[3] = { 0, 0x14, 100, 0, 0 },
		[4] = { 0, 0x15, 100, 0, 0 },
		[5] = { 0, 0x06, 100, 0, 0 },
	};
	static const u8 rank[] = { 0, 1, 2, 3, 4, 0 };
	static const u8 rank8[] = { 0, 1, 2, 3, 4, 0, 0, 0 };
	static const u8 prev[] = { 0, 3, 2, 2, 2, 2 };
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	struct lt_plan_input in = {
		.nr_labels = 6,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 2,
		.rank = rank,
		.prev_stream = prev,
	};
	unsigned int i;

	if (!LT_EXPECT(test, labels && work && out))
		return;
	lt_test_fill(labels, src, ARRAY_SIZE(src));
	in.labels = labels;

	/* Without ranks, no boundary is worth anything: one class. */
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 6, NULL, 7, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 0);
	LT_EXPECT_EQ(test, out->tenant_classes[0], 1);

	/*
	 * With them, the label with no rank first, in class 0 with the
	 * labels no plan has seen, then a class per rank, the highest first.
	 * The first cut is the one with the largest smaller side (200 MiB,
	 * the earlier of two), then the earliest of the 100 MiB ones.
	 */
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 6, rank, 7, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 4);
	LT_EXPECT_EQ(test, out->nr_streams, 5);
	LT_EXPECT_EQ(test, out->commit[0].label, 3);
	LT_EXPECT_EQ(test, out->commit[1].label, 4);
	LT_EXPECT_EQ(test, out->commit[2].label, 2);
	LT_EXPECT_EQ(test, out->commit[3].label, 1);
	for (i = 0; i < 4; i++) {
		LT_EXPECT_EQ(test, out->commit[i].by_rank, 1);
		LT_EXPECT_EQ(test, out->commit[i].worth, 0);
	}
	LT_EXPECT_EQ(test, out->label_class[5], 0);
	LT_EXPECT_EQ(test, out->label_class[4], 1);
	LT_EXPECT_EQ(test, out->label_class[3], 2);
	LT_EXPECT_EQ(test, out->label_class[2], 3);
	LT_EXPECT_EQ(test, out->label_class[1], 4);
	LT_EXPECT_EQ(test, out->label_stream[5], out->tenant_stream[0]);
	for (i = 1; i < 5; i++)
		LT_EXPECT(test, out->label_stream[i] != out->label_stream[i + 1]);
	LT_EXPECT_EQ(test, out->tenant_ranks[0], 0x1f);

	/* Labels with no rank are not cut from each other by it. */
	labels[6] = labels[5];
	labels[6].key = 0x07;
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 7, rank8, 7, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 4);
	LT_EXPECT_EQ(test, out->label_stream[5], out->label_stream[6]);
	memset(&labels[6], 0, sizeof(*labels));

	/* One stream more than the tenant's: the best cut alone. */
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 6, rank, 2, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT_EQ(test, out->commit[0].label, 3);
	LT_EXPECT_EQ(test, out->label_stream[5], out->label_stream[4]);
	LT_EXPECT_EQ(test, out->label_stream[3], out->label_stream[1]);
	LT_EXPECT(test, out->label_stream[4] != out->label_stream[3]);

	/*
	 * Unless the layout before had another cut by rank: labels 2 to 5 on
	 * one stream and label 1 on another.  It stays, although its smaller
	 * side is 100 MiB, not 200.
	 */
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT_EQ(test, out->commit[0].label, 1);
	LT_EXPECT_EQ(test, out->label_stream[1], 3);
	LT_EXPECT_EQ(test, out->label_stream[2], 2);

	/*
	 * Measured worth comes first: the lowest rank's data die young, so
	 * the one stream more cuts them off with worth, and the ranks only
	 * take the streams after it.
	 */
	src[1].early = 100;
	lt_test_fill(labels, src, ARRAY_SIZE(src));
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 6, rank, 2, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT_EQ(test, out->commit[0].label, 1);
	LT_EXPECT_EQ(test, out->commit[0].by_rank, 0);
	LT_EXPECT(test, out->commit[0].worth > 0);
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 6, rank, 7, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 4);
	LT_EXPECT_EQ(test, out->commit[0].label, 1);
	LT_EXPECT_EQ(test, out->commit[0].by_rank, 0);
	LT_EXPECT_EQ(test, out->commit[1].label, 3);
	LT_EXPECT_EQ(test, out->commit[1].by_rank, 1);
	LT_EXPECT_EQ(test, out->commit[2].label, 4);
	LT_EXPECT_EQ(test, out->commit[2].by_rank, 1);
	LT_EXPECT_EQ(test, out->commit[3].label, 2);
	LT_EXPECT_EQ(test, out->commit[3].by_rank, 1);

	/*
	 * Also when the cut by rank is another tenant's, found first: tenant
	 * 1's labels have no rank, and one dies young.
	 */
	src[1].early = 0;
	lt_test_fill(labels, src, ARRAY_SIZE(src));
	labels[6] = labels[5];
	labels[6].tenant = 1;
	labels[6].key = 0x30;
	labels[7] = labels[6];
	labels[7].key = 0x31;
	labels[7].hist[12] = labels[7].bytes;
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 8, rank8, 3, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT_EQ(test, out->commit[0].tenant, 1);
	LT_EXPECT_EQ(test, out->commit[0].by_rank, 0);
	LT_EXPECT(test, out->label_stream[6] != out->label_stream[7]);
	LT_EXPECT_EQ(test, out->tenant_classes[0], 1);
	memset(&labels[6], 0, 2 * sizeof(*labels));

	/*
	 * A rank that does not match what the data do: the highest rank's
	 * data die young.  Its measured survival puts it last, whatever its
	 * rank, and it is cut off with worth.
	 */
	src[4].early = 100;
	lt_test_fill(labels, src, ARRAY_SIZE(src));
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 6, rank, 7, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->commit[0].label, 4);
	LT_EXPECT_EQ(test, out->commit[0].by_rank, 0);
	LT_EXPECT_EQ(test, out->label_class[4], out->tenant_classes[0] - 1);
	LT_EXPECT_EQ(test, out->label_class[5], 0);

	/* Each side of a cut by rank holds min_side of the tenant's bytes. */
	src[4].early = 0;
	src[4].mib = 15;	/* 4.76% */
	lt_test_fill(labels, src, 5);
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 5, rank, 7, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->label_stream[4], out->label_stream[3]);
	LT_EXPECT_EQ(test, out->nr_commits, 2);
}

/*
 * A filesystem tenant that sets no hints: its data have no rank, its
 * journal the lowest.  The data keep class 0, the tenant's stream, and
 * the journal leaves them.  A plan that cannot split a tenant still sees
 * its ranks, so lt_new_ranks() does not ask for another, unless a rank
 * was too small to be cut off and grew.
 */
static void lt_test_plan_rank_journal(LT_TEST_CTX *test)
{
	struct lt_test_label src[] = {
		[1] = { 1, 0x06, 20, 0, 0 },		/* journal, rank 1 */
		[2] = { 1, 0x20, 180, 0, 0 },		/* data */
		[3] = { 0, 0x13, 100, 0, 0 },		/* rank 3 */
		[4] = { 0, 0x15, 100, 0, 0 },		/* rank 5 */
	};
	static const u8 rank[] = { 0, 1, 0, 3, 5 };
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));

	if (!LT_EXPECT(test, labels && work && out))
		return;
	lt_test_fill(labels, src, 3);
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 3, rank, 2, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT_EQ(test, out->commit[0].by_rank, 1);
	LT_EXPECT_EQ(test, out->commit[0].label, 1);
	LT_EXPECT_EQ(test, out->label_stream[2], out->tenant_stream[1]);
	LT_EXPECT(test, out->label_stream[1] != out->label_stream[2]);

	/* Two tenants on one stream: neither is split, both are seen. */
	lt_test_fill(labels, src, ARRAY_SIZE(src));
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 5, rank, 1, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 0);
	LT_EXPECT_EQ(test, out->tenant_ranks[0], BIT(3) | BIT(5));
	LT_EXPECT_EQ(test, out->tenant_ranks[1], BIT(0) | BIT(1));
	LT_EXPECT_EQ(test, lt_new_ranks(labels, rank, out->tenant_ranks, 5,
					0x3, 0), 0);
	/* Not seen, they would ask for a plan. */
	memset(out->tenant_ranks, 0, sizeof(out->tenant_ranks));
	LT_EXPECT_EQ(test, lt_new_ranks(labels, rank, out->tenant_ranks, 5,
					0x3, 0), 0x3);

	/*
	 * A journal of 2.5% of its tenant's bytes could not be cut off: the
	 * plan does not count its rank as seen, and a check plans again
	 * once it holds 5%.
	 */
	src[1].mib = 5;
	lt_test_fill(labels, src, 3);
	LT_EXPECT_EQ(test, lt_test_plan_ranked(labels, 3, rank, 2, 0, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 0);
	LT_EXPECT_EQ(test, out->tenant_ranks[1], BIT(0));
	LT_EXPECT_EQ(test, lt_new_ranks(labels, rank, out->tenant_ranks, 3,
					0x2, 0), 0);
	labels[1].bytes = 10 * LT_MIB;
	LT_EXPECT_EQ(test, lt_new_ranks(labels, rank, out->tenant_ranks, 3,
					0x2, 0), 0x2);
}

/*
 * A cut between two ranks that the layout before had stays while each
 * side holds two thirds of min_side: a journal of 6% of its tenant's
 * bytes is cut off; at 4.1% the cut stays in a re-plan, not in a plan
 * without a layout before; at 3.1% it goes.
 */
static void lt_test_plan_rank_keep(LT_TEST_CTX *test)
{
	struct lt_test_label src[] = {
		[1] = { 0, 0x06, 6, 0, 0 },		/* journal, rank 1 */
		[2] = { 0, 0x20, 94, 0, 0 },		/* data */
	};
	static const u8 rank[] = { 0, 1, 0 };
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	u8 *prev = lt_test_alloc(test, LT_MAX_LABELS), journal;
	struct lt_plan_input in = {
		.nr_labels = 3,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 2,
		.rank = rank,
	};

	if (!LT_EXPECT(test, labels && work && out && prev))
		return;
	lt_test_fill(labels, src, ARRAY_SIZE(src));
	in.labels = labels;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT_EQ(test, out->commit[0].by_rank, 1);
	LT_EXPECT(test, out->label_stream[1] != out->label_stream[2]);
	memcpy(prev, out->label_stream, LT_MAX_LABELS);

	/* 4 of 98 MiB: under the side, over two thirds of it. */
	labels[1].bytes = 4 * LT_MIB;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 0);
	in.prev_stream = prev;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT_EQ(test, out->commit[0].by_rank, 1);
	LT_EXPECT_EQ(test, out->label_stream[1], prev[1]);
	LT_EXPECT_EQ(test, out->label_stream[2], prev[2]);
	/* Not seen at that size: a check may ask, and the plan keeps it. */
	LT_EXPECT_EQ(test, out->tenant_ranks[0], BIT(0));
	/* A label the layout before did not have is no kept cut. */
	journal = prev[1];
	prev[1] = 0;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 0);
	prev[1] = journal;

	/* 3 of 97 MiB: under two thirds of the side. */
	labels[1].bytes = 3 * LT_MIB;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 0);
	LT_EXPECT_EQ(test, out->label_stream[1], out->label_stream[2]);
}

/*
 * A cut kept under min_side gives way to one that a plan would draw
 * afresh: tenant 0's journal, cut off at 6%, falls to 3.5%; tenant 1's
 * new level holds 20%; one stream is left for the two.
 */
static void lt_test_plan_rank_keep_fresh(LT_TEST_CTX *test)
{
	struct lt_test_label src[] = {
		[1] = { 0, 0x20, 94, 0, 0 },		/* data */
		[2] = { 0, 0x06, 6, 0, 0 },		/* journal, rank 1 */
		[3] = { 1, 0x20, 100, 0, 0 },		/* data */
		[4] = { 1, 0x13, 0, 0, 0 },		/* level, rank 3 */
	};
	static const u8 rank[] = { 0, 0, 1, 0, 3 };
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	u8 *prev = lt_test_alloc(test, LT_MAX_LABELS);
	struct lt_plan_input in = {
		.nr_labels = 5,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 3,
		.rank = rank,
	};

	if (!LT_EXPECT(test, labels && work && out && prev))
		return;
	lt_test_fill(labels, src, 4);
	in.labels = labels;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT(test, out->label_stream[1] != out->label_stream[2]);
	memcpy(prev, out->label_stream, LT_MAX_LABELS);
	/* Label 4 is new: the worker passes no stream for it. */
	prev[4] = 0;

	/* Tenant 0: 7 of 200 MiB; tenant 1: 40 of 200. */
	src[1].mib = 193;
	src[2].mib = 7;
	src[3].mib = 160;
	src[4].mib = 40;
	lt_test_fill(labels, src, 5);
	in.prev_stream = prev;
	LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0);
	LT_EXPECT_EQ(test, out->nr_commits, 1);
	LT_EXPECT_EQ(test, out->commit[0].tenant, 1);
	LT_EXPECT_EQ(test, out->label_stream[1], out->label_stream[2]);
	LT_EXPECT(test, out->label_stream[3] != out->label_stream[4]);
}

/*
 * Installs of @nr checks of one tenant whose rank-3 label holds @share(k)
 * per 10000 of its bytes at check k, the worker's loop in small: a first
 * plan, a "hints" plan when lt_new_ranks() asks, a "drift" plan every
 * LT_QUARTERS checks; a plan is installed only if it moves a label.
 */
static unsigned int lt_test_hover(LT_TEST_CTX *test, unsigned int nr,
				  u32 (*share)(unsigned int))
{
	static const u8 rank[] = { 0, 0, 3 };
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *cur = lt_test_alloc(test, sizeof(*cur));
	struct lt_layout *next = lt_test_alloc(test, sizeof(*next));
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = 3,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 4,
		.tenants = 1,
		.rank = rank,
	};
	unsigned int k, last = 0, installs = 0;

	if (!LT_EXPECT(test, labels && work && cur && next))
		return 0;
	for (k = 1; k <= nr; k++) {
		u64 part = (u64)share(k) * LT_MIB / 10;
		bool plan;

		labels[1] = (struct lt_label){ .flags = LT_LABEL_USED,
			.key = 0x20, .bytes = 1000 * LT_MIB - part };
		labels[2] = (struct lt_label){ .flags = LT_LABEL_USED,
			.key = 0x13, .bytes = part };
		plan = !installs || k - last >= LT_QUARTERS ||
		       lt_new_ranks(labels, rank, cur->tenant_ranks, 3, 1, 0);
		if (!plan)
			continue;
		last = k;
		in.prev_stream = installs ? cur->label_stream : NULL;
		if (!LT_EXPECT_EQ(test, lt_plan(&in, next, work), 0))
			return 0;
		if (installs && !memcmp(cur->label_stream, next->label_stream,
					sizeof(cur->label_stream))) {
			memcpy(cur->tenant_ranks, next->tenant_ranks,
			       sizeof(cur->tenant_ranks));
			continue;
		}
		memcpy(cur, next, sizeof(*cur));
		installs++;
	}
	return installs;
}

/* 4.9% and 5.1% by turns, three checks each. */
static u32 lt_test_hover_turns(unsigned int k)
{
	return (k / 3) & 1 ? 490 : 510;
}

/* 4.7% to 5.3%, a fixed pseudo-random sequence. */
static u32 lt_test_hover_noise(unsigned int k)
{
	return 470 + (k * 2654435761U >> 16) % 61;
}

/* 3%, then 6% from the sixth check. */
static u32 lt_test_hover_late(unsigned int k)
{
	return k < 6 ? 300 : 600;
}

/*
 * A rank whose share hovers about min_side gets its stream once and
 * keeps it, however the checks that follow find it; one that grows past
 * min_side between plans is split off at the first check that sees it.
 */
static void lt_test_plan_rank_hover(LT_TEST_CTX *test)
{
	LT_EXPECT_EQ(test, lt_test_hover(test, 24, lt_test_hover_turns), 1);
	LT_EXPECT_EQ(test, lt_test_hover(test, 200, lt_test_hover_noise), 1);
	LT_EXPECT_EQ(test, lt_test_hover(test, 6, lt_test_hover_late), 2);
}

/* The same input gives the same layout; bad input is refused. */
static void lt_test_plan_determinism(LT_TEST_CTX *test)
{
	static const u8 zero[] = { 2, 0, 3 }, dup[] = { 2, 3, 2 };
	static const struct lt_test_label ties[] = {
		[1] = { 0, 0x30, 100, 100, 0 },
		[2] = { 0, 0x10, 100, 100, 0 },
		[3] = { 0, 0x20, 100, 100, 0 },
		[4] = { 0, 0x40, 300, 0, 0 },
	};
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *a = lt_test_alloc(test, sizeof(*a));
	struct lt_layout *b = lt_test_alloc(test, sizeof(*b));
	u8 bad_rank[LT_NODE_LABELS];
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = LT_NODE_LABELS,
		.reclaim_age = LT_TEST_R,
		.nr_streams = 3,
	};

	if (!LT_EXPECT(test, labels && work && a && b))
		return;
	lt_test_fill(labels, lt_shared_node, LT_NODE_LABELS);
	LT_EXPECT_EQ(test, lt_test_plan(labels, LT_NODE_LABELS, 7, 0, a, work),
		     0);
	memset(work, 0xa5, sizeof(*work));
	memset(b, 0x5a, sizeof(*b));
	LT_EXPECT_EQ(test, lt_test_plan(labels, LT_NODE_LABELS, 7, 0, b, work),
		     0);
	LT_EXPECT(test, !memcmp(a, b, sizeof(*a)));

	/* Equal survival sorts by key, not by slot. */
	memset(labels, 0, sizeof(*labels) * LT_MAX_LABELS);
	lt_test_fill(labels, ties, ARRAY_SIZE(ties));
	LT_EXPECT_EQ(test, lt_test_plan(labels, ARRAY_SIZE(ties), 2, 0, a, work),
		     0);
	LT_EXPECT_EQ(test, a->commit[0].label, 2);
	LT_EXPECT_EQ(test, a->nr_commits, 1);

	lt_test_fill(labels, lt_shared_node, LT_NODE_LABELS);
	in.streams = zero;
	LT_EXPECT_EQ(test, lt_plan(&in, a, work), -EINVAL);
	in.streams = dup;
	LT_EXPECT_EQ(test, lt_plan(&in, a, work), -EINVAL);
	in.streams = lt_test_streams;
	/* A rank past LT_RANK_MAX is refused; LT_RANK_MAX itself is not. */
	memset(bad_rank, 0, sizeof(bad_rank));
	in.rank = bad_rank;
	LT_EXPECT_EQ(test, lt_plan(&in, a, work), 0);
	bad_rank[LT_PG_WAL] = LT_RANK_MAX;
	LT_EXPECT_EQ(test, lt_plan(&in, a, work), 0);
	bad_rank[LT_PG_WAL] = LT_RANK_MAX + 1;
	LT_EXPECT_EQ(test, lt_plan(&in, a, work), -EINVAL);
	in.rank = NULL;
	/* Only the active tenants are planned. */
	in.nr_streams = 7;
	in.tenants = BIT_ULL(0) | BIT_ULL(2);
	LT_EXPECT_EQ(test, lt_plan(&in, a, work), 0);
	LT_EXPECT_EQ(test, a->nr_tenants, 2);
	LT_EXPECT_EQ(test, a->label_stream[LT_PG_WAL], 0);
	LT_EXPECT_EQ(test, a->tenant_stream[1], 0);
	LT_EXPECT(test, a->nr_streams <= 7 && a->nr_commits >= 2);
}

/*
 * Whether @out hands each stream out once, and each committed class and
 * each tenant's class 0 is on the stream its layout entry names.
 */
static bool lt_test_streams_consistent(const struct lt_layout *out,
				       unsigned int nr_labels)
{
	bool seen[256] = { false };
	unsigned int i;

	for (i = 0; i < out->nr_streams; i++) {
		if (seen[out->stream[i].stream])
			return false;
		seen[out->stream[i].stream] = true;
		if (out->stream[i].class == 0 &&
		    out->stream[i].tenant != LT_TENANT_SHARED &&
		    out->tenant_stream[out->stream[i].tenant] !=
		    out->stream[i].stream)
			return false;
	}
	for (i = 0; i < out->nr_commits; i++)
		if (out->stream[out->commit[i].slot].stream !=
		    out->label_stream[out->commit[i].label])
			return false;
	for (i = 1; i < nr_labels; i++)
		if (out->label_stream[i] && !seen[out->label_stream[i]])
			return false;
	return true;
}

/*
 * A re-plan that finds the same classes in another order of worth, or the
 * same tenants in another order of bytes, keeps each label and tenant on
 * its stream when it is given the layout before; without it, the streams
 * move.  Two classes that had one stream: the one with more bytes keeps it.
 */
static void lt_test_plan_keep(LT_TEST_CTX *test)
{
	static const u8 none[LT_MAX_LABELS], alien[LT_MAX_LABELS] = {
		[1 ... LT_NODE_LABELS - 1] = 200,
	};
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *a = lt_test_alloc(test, sizeof(*a));
	struct lt_layout *b = lt_test_alloc(test, sizeof(*b));
	struct lt_layout *c = lt_test_alloc(test, sizeof(*c));
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = LT_NODE_LABELS,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 7,
	};
	u8 *both = lt_test_alloc(test, LT_MAX_LABELS);
	unsigned int i, moved = 0;

	if (!LT_EXPECT(test, labels && work && a && b && c && both))
		return;
	lt_test_fill(labels, lt_shared_node, LT_NODE_LABELS);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, a, work), 0))
		return;
	/* PostgreSQL's log now dies young: its boundary outranks RocksDB's. */
	labels[LT_PG_WAL].hist[12] = 4000 * LT_MIB;
	labels[LT_PG_WAL].hist[28] = 0;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	LT_EXPECT_EQ(test, b->nr_commits, 3);
	LT_EXPECT_EQ(test, b->commit[1].label, LT_PG_WAL);
	LT_EXPECT_EQ(test, b->commit[2].label, LT_G3);
	for (i = 1; i < LT_NODE_LABELS; i++)
		moved += b->label_stream[i] != a->label_stream[i];
	LT_EXPECT(test, moved > 0);

	/* With the layout before, nothing moves. */
	in.prev_stream = a->label_stream;
	in.prev_tenant_stream = a->tenant_stream;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, c, work), 0))
		return;
	LT_EXPECT_EQ(test, c->nr_commits, 3);
	LT_EXPECT_EQ(test, c->commit[1].label, LT_PG_WAL);
	for (i = 1; i < LT_NODE_LABELS; i++)
		LT_EXPECT_EQ(test, c->label_stream[i], a->label_stream[i]);
	for (i = 0; i < 4; i++)
		LT_EXPECT_EQ(test, c->tenant_stream[i], a->tenant_stream[i]);
	LT_EXPECT(test, lt_test_streams_consistent(c, LT_NODE_LABELS));

	/* No stream before, or none of the pool's: the plan without. */
	in.prev_stream = none;
	in.prev_tenant_stream = NULL;
	LT_EXPECT_EQ(test, lt_plan(&in, c, work), 0);
	LT_EXPECT(test, !memcmp(b, c, sizeof(*b)));
	in.prev_stream = alien;
	LT_EXPECT_EQ(test, lt_plan(&in, c, work), 0);
	LT_EXPECT(test, !memcmp(b, c, sizeof(*b)));

	/*
	 * SQLite's log and PostgreSQL's had stream 8: SQLite's, with more
	 * bytes, keeps it; the other classes take the streams left, not 8.
	 */
	memset(both, 0, LT_MAX_LABELS);
	both[LT_SQ_WAL] = 8;
	both[LT_PG_WAL] = 8;
	in.prev_stream = both;
	LT_EXPECT_EQ(test, lt_plan(&in, c, work), 0);
	LT_EXPECT_EQ(test, c->label_stream[LT_SQ_WAL], 8);
	LT_EXPECT(test, c->label_stream[LT_PG_WAL] != 8);
	LT_EXPECT(test, lt_test_streams_consistent(c, LT_NODE_LABELS));

	/* SQLite grows past RocksDB: tenants keep their streams all the same. */
	lt_test_fill(labels, lt_shared_node, LT_NODE_LABELS);
	labels[LT_SQ_DB].bytes = 80000 * LT_MIB;
	in.prev_stream = NULL;
	in.prev_tenant_stream = NULL;
	LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0);
	LT_EXPECT(test, b->tenant_stream[2] != a->tenant_stream[2]);
	in.prev_tenant_stream = a->tenant_stream;
	LT_EXPECT_EQ(test, lt_plan(&in, c, work), 0);
	for (i = 0; i < 4; i++)
		LT_EXPECT_EQ(test, c->tenant_stream[i], a->tenant_stream[i]);
	LT_EXPECT_EQ(test, c->label_stream[LT_SQ_DB], a->tenant_stream[2]);
	LT_EXPECT(test, lt_test_streams_consistent(c, LT_NODE_LABELS));
}

/*
 * Fourteen tenants of two kinds on seven streams: a tenant that had a
 * stream of its own counts twice its bytes, so it keeps one instead of
 * trading it for a tenant a little larger.
 */
static void lt_test_plan_group_keep(LT_TEST_CTX *test)
{
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *a = lt_test_alloc(test, sizeof(*a));
	struct lt_layout *b = lt_test_alloc(test, sizeof(*b));
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = 15,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 7,
	};
	struct lt_test_label src[15];
	u8 prev_tenant[LT_MAX_TENANTS];
	unsigned int t;

	if (!LT_EXPECT(test, labels && work && a && b))
		return;
	memset(src, 0, sizeof(src));
	for (t = 0; t < 14; t++)
		src[1 + t] = (struct lt_test_label){ t, 0x10, 1024,
						     t % 2 ? 0 : 1024, 0 };
	lt_test_fill(labels, src, 15);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, a, work), 0))
		return;
	LT_EXPECT_EQ(test, a->nr_groups, 2);
	/* Equal bytes: the lowest five tenants get a stream each. */
	for (t = 0; t < 5; t++)
		LT_EXPECT_EQ(test, a->stream[t].tenant, t);

	/* Tenants 5 to 9 grow by 1%: the largest, with no layout before. */
	for (t = 5; t < 10; t++)
		labels[1 + t].bytes += 10 * LT_MIB;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	for (t = 0; t < 5; t++)
		LT_EXPECT_EQ(test, b->stream[t].tenant, 5 + t);

	/* With the layout before, tenants 0 to 4 keep their streams. */
	in.prev_stream = a->label_stream;
	in.prev_tenant_stream = a->tenant_stream;
	in.prev_owners = lt_plan_owners(a);
	LT_EXPECT_EQ(test, in.prev_owners, 0x1f);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	LT_EXPECT_EQ(test, b->nr_groups, 2);
	for (t = 0; t < 14; t++) {
		if (t < 5)
			LT_EXPECT_EQ(test, b->tenant_stream[t],
				     a->tenant_stream[t]);
		else
			LT_EXPECT(test, b->tenant_stream[t] ==
					b->tenant_stream[(t % 2) ? 13 : 12]);
	}
	LT_EXPECT(test, lt_test_streams_consistent(b, 15));

	/* Tenant 0 falls below half of the largest: tenant 5 takes over. */
	labels[1].bytes = 500 * LT_MIB;
	labels[1].hist[12] = 500 * LT_MIB;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	LT_EXPECT_EQ(test, b->tenant_stream[0], b->tenant_stream[12]);
	for (t = 1; t < 5; t++)
		LT_EXPECT_EQ(test, b->tenant_stream[t], a->tenant_stream[t]);
	LT_EXPECT(test, b->tenant_stream[5] != b->tenant_stream[13]);
	labels[1].bytes = 1024 * LT_MIB;
	labels[1].hist[12] = 1024 * LT_MIB;

	/* A stream the pool no longer has is no claim: tenant 5 takes over. */
	memcpy(prev_tenant, a->tenant_stream, sizeof(prev_tenant));
	prev_tenant[0] = 12;
	in.prev_tenant_stream = prev_tenant;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	LT_EXPECT_EQ(test, b->tenant_stream[0], b->tenant_stream[12]);
	LT_EXPECT(test, b->tenant_stream[5] != b->tenant_stream[13]);
	/* Without the bitmap, nobody has a claim: the largest win. */
	in.prev_tenant_stream = a->tenant_stream;
	in.prev_owners = 0;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	for (t = 0; t < 5; t++)
		LT_EXPECT(test, b->tenant_stream[5 + t] !=
			  b->tenant_stream[(t % 2) ? 12 : 13]);

	/*
	 * A group-mate's slot given back: tenant 13 alone has the odd group's
	 * stream in @prev_tenant_stream, but it shared it and has no claim.
	 */
	memcpy(prev_tenant, a->tenant_stream, sizeof(prev_tenant));
	for (t = 5; t < 13; t += 2)
		prev_tenant[t] = 0;
	labels[14].bytes = 1030 * LT_MIB;
	in.prev_tenant_stream = prev_tenant;
	in.prev_owners = lt_plan_owners(a);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	for (t = 0; t < 5; t++)
		LT_EXPECT_EQ(test, b->tenant_stream[t], a->tenant_stream[t]);
	LT_EXPECT_EQ(test, b->tenant_stream[13], b->tenant_stream[11]);
}

/*
 * One survival group on three streams: A (1000 MiB) and B (400 MiB) had
 * streams of their own, C (450 MiB), D and E (100 MiB) shared the third.
 * B keeps its stream against C, a little larger, whatever A's bytes.
 */
static void lt_test_plan_group_keep_bar(LT_TEST_CTX *test)
{
	static const u32 mib[] = { 1000, 400, 450, 100, 100 };
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	u8 prev_tenant[LT_MAX_TENANTS] = { 2, 3, 4, 4, 4 };
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = 6,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 3,
		.prev_tenant_stream = prev_tenant,
		.prev_owners = 0x3,
	};
	struct lt_test_label src[6];
	unsigned int t;

	if (!LT_EXPECT(test, labels && work && out))
		return;
	memset(src, 0, sizeof(src));
	for (t = 0; t < 5; t++)
		src[1 + t] = (struct lt_test_label){ t, 0x10, mib[t], 0, 0 };
	lt_test_fill(labels, src, 6);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0))
		return;
	LT_EXPECT_EQ(test, out->nr_groups, 1);
	LT_EXPECT_EQ(test, out->tenant_stream[0], 2);
	LT_EXPECT_EQ(test, out->tenant_stream[1], 3);
	for (t = 2; t < 5; t++)
		LT_EXPECT_EQ(test, out->tenant_stream[t], 4);
	/* B below half of C: C takes B's place. */
	labels[2].bytes = 200 * LT_MIB;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, out, work), 0))
		return;
	LT_EXPECT(test, out->tenant_stream[2] != out->tenant_stream[1]);
	LT_EXPECT_EQ(test, out->tenant_stream[1], out->tenant_stream[3]);
}

/*
 * Four tenants of one survival group share an io.stream budget of three
 * streams: those that had a stream of their own in it keep it, and a
 * stream outside the budget is no claim on it.
 */
static void lt_test_plan_group_keep_budget(LT_TEST_CTX *test)
{
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_budget *budgets = lt_test_alloc(test, sizeof(*budgets) *
						  LT_MAX_TENANTS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *a = lt_test_alloc(test, sizeof(*a));
	struct lt_layout *b = lt_test_alloc(test, sizeof(*b));
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = 5,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 7,
		.tenants = 0xf,
	};
	u8 prev_tenant[LT_MAX_TENANTS] = { };
	struct lt_test_label src[5];
	unsigned int t;

	if (!LT_EXPECT(test, labels && budgets && work && a && b))
		return;
	memset(src, 0, sizeof(src));
	for (t = 0; t < 4; t++) {
		src[1 + t] = (struct lt_test_label){ t, 0x10, 1024, 0, 0 };
		lt_test_budget_20_22(&budgets[t]);
	}
	in.budgets = budgets;
	lt_test_fill(labels, src, 5);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, a, work), 0))
		return;
	/* Equal bytes: tenants 0 and 1 a stream each, 2 and 3 the third. */
	LT_EXPECT_EQ(test, a->tenant_stream[2], a->tenant_stream[3]);
	LT_EXPECT(test, a->tenant_stream[0] != a->tenant_stream[1] &&
		  a->tenant_stream[0] != a->tenant_stream[2] &&
		  a->tenant_stream[1] != a->tenant_stream[2]);
	LT_EXPECT_EQ(test, lt_plan_owners(a), 0x3);

	/* Tenants 2 and 3 grow by 1%: with no layout before, they win. */
	labels[3].bytes += 10 * LT_MIB;
	labels[4].bytes += 10 * LT_MIB;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	LT_EXPECT_EQ(test, b->tenant_stream[0], b->tenant_stream[1]);

	/* With it, each tenant keeps the stream it had. */
	memcpy(prev_tenant, a->tenant_stream, sizeof(prev_tenant));
	in.prev_tenant_stream = prev_tenant;
	in.prev_owners = lt_plan_owners(a);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	for (t = 0; t < 4; t++)
		LT_EXPECT_EQ(test, b->tenant_stream[t], a->tenant_stream[t]);

	/* A free stream before is no claim on the budget. */
	prev_tenant[0] = 5;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	LT_EXPECT_EQ(test, b->tenant_stream[0], b->tenant_stream[3]);
	LT_EXPECT(test, b->tenant_stream[1] != b->tenant_stream[2] &&
		  b->tenant_stream[1] != b->tenant_stream[0]);
}

/*
 * Two tenants share an io.stream budget of three streams, one of them
 * split in two classes: when their bytes change order, a re-plan keeps
 * every class on its stream, as on the free streams.
 */
static void lt_test_plan_budget_keep(LT_TEST_CTX *test)
{
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_budget *budgets = lt_test_alloc(test, sizeof(*budgets) *
						  LT_MAX_TENANTS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *a = lt_test_alloc(test, sizeof(*a));
	struct lt_layout *b = lt_test_alloc(test, sizeof(*b));
	static const struct lt_test_label src[] = {
		[1] = { 0, 0x10, 2048, 0, 0 },
		[2] = { 0, 0x20, 1024, 1024, 0 },
		[3] = { 1, 0x10, 1024, 0, 0 },
		[4] = { 2, 0x10, 512, 0, 0 },
		[5] = { 2, 0x20, 512, 512, 0 },
	};
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = 6,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 7,
		.tenants = 0x7,
	};
	unsigned int t, i;

	if (!LT_EXPECT(test, labels && budgets && work && a && b))
		return;
	for (t = 0; t < 2; t++)
		lt_test_budget_20_22(&budgets[t]);
	in.budgets = budgets;
	lt_test_fill(labels, src, 6);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, a, work), 0))
		return;
	/* Tenant 0, the larger, first; its log on the third stream. */
	LT_EXPECT_EQ(test, a->label_stream[1], 20);
	LT_EXPECT_EQ(test, a->label_stream[3], 21);
	LT_EXPECT_EQ(test, a->label_stream[2], 22);
	/*
	 * Tenant 2 has no budget: free streams, which the budget's match
	 * must leave alone (checked below).
	 */
	LT_EXPECT_EQ(test, a->label_stream[4], 2);
	LT_EXPECT_EQ(test, a->label_stream[5], 3);

	/* Tenant 1 grows past tenant 0: numbered afresh, they swap. */
	labels[3].bytes = 8192 * LT_MIB;
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	LT_EXPECT_EQ(test, b->label_stream[3], 20);

	/* With the layout before, nothing moves. */
	in.prev_stream = a->label_stream;
	in.prev_tenant_stream = a->tenant_stream;
	in.prev_owners = lt_plan_owners(a);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	for (i = 1; i < 6; i++)
		LT_EXPECT_EQ(test, b->label_stream[i], a->label_stream[i]);
	for (t = 0; t < 3; t++)
		LT_EXPECT_EQ(test, b->tenant_stream[t], a->tenant_stream[t]);
	LT_EXPECT(test, lt_test_streams_consistent(b, 6));
}

/*
 * Two tenants share a budget of three streams and use two; the layout
 * before had them the other way round.  A tenant alone on a budget that
 * overlaps theirs at its first stream is planned after them: it must
 * find the entry of the tenant the match left on that stream.
 */
static void lt_test_plan_budget_keep_bslot(LT_TEST_CTX *test)
{
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_budget *budgets = lt_test_alloc(test, sizeof(*budgets) *
						  LT_MAX_TENANTS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *b = lt_test_alloc(test, sizeof(*b));
	static const struct lt_test_label src[] = {
		[1] = { 0, 0x10, 2048, 0, 0 },
		[2] = { 1, 0x10, 1024, 0, 0 },
		[3] = { 2, 0x10, 512, 0, 0 },
	};
	static const u8 prev[LT_MAX_LABELS] = { [1] = 21, [2] = 20, [3] = 20 };
	static const u8 prev_tenant[LT_MAX_TENANTS] = { 21, 20, 20 };
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = 4,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 2,
		.tenants = 0x7,
		.prev_stream = prev,
		.prev_tenant_stream = prev_tenant,
	};

	if (!LT_EXPECT(test, labels && budgets && work && b))
		return;
	lt_test_budget_20_22(&budgets[0]);
	lt_test_budget_20_22(&budgets[1]);
	budgets[2].nr = 2;
	budgets[2].streams[0] = 20;
	budgets[2].streams[1] = 23;
	in.budgets = budgets;
	lt_test_fill(labels, src, 4);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	LT_EXPECT_EQ(test, b->label_stream[1], 21);
	LT_EXPECT_EQ(test, b->label_stream[2], 20);
	LT_EXPECT_EQ(test, b->label_stream[3], 20);
	if (!LT_EXPECT_EQ(test, b->nr_streams, 2))
		return;
	/* Entry 0 is tenant 0's, now on 21; entry 1 tenant 1's and 2's. */
	LT_EXPECT_EQ(test, b->stream[0].stream, 21);
	LT_EXPECT_EQ(test, b->stream[0].tenant, 0);
	LT_EXPECT_EQ(test, b->stream[0].bytes, 2048 * LT_MIB);
	LT_EXPECT_EQ(test, b->stream[1].stream, 20);
	LT_EXPECT_EQ(test, b->stream[1].tenant, LT_TENANT_SHARED);
	LT_EXPECT_EQ(test, b->stream[1].bytes, 1536 * LT_MIB);
	LT_EXPECT(test, lt_test_streams_consistent(b, 4));
}

/*
 * Budgets that partly overlap: tenants 0 and 1 share streams 20 to 22,
 * tenants 2 and 3 streams 22 and 23.  While the first pool needs all
 * three, the second is not pooled; once it needs two, the match must not
 * keep it on stream 22, which would leave the second unpooled for good.
 */
static void lt_test_plan_budget_keep_overlap(LT_TEST_CTX *test)
{
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_budget *budgets = lt_test_alloc(test, sizeof(*budgets) *
						  LT_MAX_TENANTS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *a = lt_test_alloc(test, sizeof(*a));
	struct lt_layout *b = lt_test_alloc(test, sizeof(*b));
	static const struct lt_test_label src[] = {
		[1] = { 0, 0x10, 4096, 0, 0 },
		[2] = { 0, 0x20, 8192, 8000, 0 },
		[3] = { 1, 0x10, 4096, 0, 0 },
		[4] = { 2, 0x10, 1024, 0, 0 },
		[5] = { 3, 0x10, 1024, 0, 0 },
	};
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = 6,
		.reclaim_age = LT_TEST_R,
		.streams = lt_test_streams,
		.nr_streams = 2,
		.tenants = 0xf,
	};
	unsigned int t;

	if (!LT_EXPECT(test, labels && budgets && work && a && b))
		return;
	lt_test_budget_20_22(&budgets[0]);
	lt_test_budget_20_22(&budgets[1]);
	for (t = 2; t < 4; t++) {
		budgets[t].nr = 2;
		budgets[t].streams[0] = 22;
		budgets[t].streams[1] = 23;
	}
	in.budgets = budgets;
	lt_test_fill(labels, src, 6);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, a, work), 0))
		return;
	/* Tenant 0's log on 22: tenants 2 and 3 each plan theirs alone. */
	LT_EXPECT_EQ(test, a->tenant_classes[0], 2);
	LT_EXPECT_EQ(test, a->label_stream[2], 22);
	LT_EXPECT_EQ(test, a->tenant_stream[2], a->tenant_stream[3]);

	/*
	 * The log stops dying young: the first pool needs two streams, and
	 * tenant 0's one class wrote most of its bytes on 22 before.
	 */
	labels[2].hist[12] = 0;
	in.prev_stream = a->label_stream;
	in.prev_tenant_stream = a->tenant_stream;
	in.prev_owners = lt_plan_owners(a);
	if (!LT_EXPECT_EQ(test, lt_plan(&in, b, work), 0))
		return;
	LT_EXPECT_EQ(test, b->tenant_classes[0], 1);
	for (t = 0; t < 2; t++)
		LT_EXPECT(test, b->tenant_stream[t] == 20 ||
			  b->tenant_stream[t] == 21);
	LT_EXPECT(test, b->tenant_stream[2] != b->tenant_stream[3]);
	LT_EXPECT(test, lt_test_streams_consistent(b, 6));
}

/*
 * One tenant, three labels: label 1 outlives label 2 a little, label 3
 * dies young.  The boundary before label 3 is worth more and is
 * committed first, the one before label 2 second: each boundary must
 * name the stream of the class it starts, whatever the order of the
 * commits.
 */
static void lt_test_plan_commit_slot(LT_TEST_CTX *test)
{
	struct lt_label *labels = lt_test_alloc(test, sizeof(*labels) *
						LT_MAX_LABELS);
	struct lt_plan_work *work = lt_test_alloc(test, sizeof(*work));
	struct lt_layout *out = lt_test_alloc(test, sizeof(*out));
	static const struct lt_test_label src[] = {
		[1] = { 0, 0x10, 1000, 0, 0 },
		[2] = { 0, 0x20, 1000, 100, 0 },
		[3] = { 0, 0x30, 1000, 1000, 0 },
	};
	unsigned int k;

	if (!LT_EXPECT(test, labels && work && out))
		return;
	lt_test_fill(labels, src, 4);
	if (!LT_EXPECT_EQ(test, lt_test_plan(labels, 4, 3, 0, out, work), 0))
		return;
	if (!LT_EXPECT_EQ(test, out->nr_commits, 2))
		return;
	LT_EXPECT_EQ(test, out->commit[0].label, 3);
	LT_EXPECT_EQ(test, out->commit[1].label, 2);
	for (k = 0; k < 2; k++)
		LT_EXPECT_EQ(test, out->stream[out->commit[k].slot].stream,
			     out->label_stream[out->commit[k].label]);
	LT_EXPECT_EQ(test, out->label_class[2], 1);
	LT_EXPECT_EQ(test, out->label_class[3], 2);
	LT_EXPECT(test, lt_test_streams_consistent(out, 4));
}

/**
 * struct lt_test_case - one shared test case
 * @name: its name in TAP output
 * @run: the case
 */
struct lt_test_case {
	const char *name;
	void (*run)(LT_TEST_CTX *test);
};

/*
 * Per-CPU logs replayed in stamp order: a discard logged on one CPU
 * between two writes of the same range logged on another must kill the
 * first write's data, not the second's.
 */
static void lt_test_log_merge(LT_TEST_CTX *test)
{
	struct lt_track *t = lt_test_track(test, LT_GIB, 0, LT_DEFAULT_MEM_CAP);
	u64 r = LT_SECT(64 * LT_KIB), n = LT_SECT(64 * LT_KIB);
	const struct lt_rec log0[] = {
		{ .stamp = 10, .sector = r, .nr_sectors = n },
		{ .stamp = 30, .sector = 0, .nr_sectors = 8, .key = 0xc },
	};
	const struct lt_rec log1[] = {
		{ .stamp = 5, .sector = r, .nr_sectors = n, .key = 0xa },
		{ .stamp = 20, .sector = r, .nr_sectors = n, .key = 0xb },
		{ .stamp = 30, .sector = 8, .nr_sectors = 8, .key = 0xd },
	};
	struct lt_log_cursor c[3] = {
		{ .rec = log0, .len = 2 }, { .rec = NULL, .len = 0 },
		{ .rec = log1, .len = 3 },
	};
	/* Equal stamps go in cursor order: log0's write first. */
	const u64 want[] = { 5, 10, 20, 30, 30 };
	const u64 want_key[] = { 0xa, 0, 0xb, 0xc, 0xd };
	const struct lt_rec *rec;
	unsigned int i = 0;
	u64 now = 1;
	u16 a, b;

	if (!t)
		return;
	while ((rec = lt_log_next(c, 3))) {
		if (!LT_EXPECT(test, i < 5))
			goto out;
		LT_EXPECT_EQ(test, rec->stamp, want[i]);
		LT_EXPECT_EQ(test, rec->key, want_key[i]);
		if (rec->key)
			lt_track_write(t, rec->sector, rec->nr_sectors,
				       lt_label_get(t, rec->key, 1), now);
		else
			lt_track_discard(t, rec->sector, rec->nr_sectors, now);
		now += 16;
		i++;
	}
	LT_EXPECT_EQ(test, i, 5);
	LT_EXPECT_EQ(test, t->label[lt_label_get(t, 0xc, 1)].bytes, 4 * LT_KIB);
	LT_EXPECT_EQ(test, t->stats.dead_bytes, 64 * LT_KIB);
	a = lt_label_get(t, 0xa, 1);
	b = lt_label_get(t, 0xb, 1);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[a]), 64 * LT_KIB);
	LT_EXPECT_EQ(test, lt_test_hist_sum(&t->label[b]), 0);
	LT_EXPECT_EQ(test, t->owner[1].label, b);
	LT_EXPECT_EQ(test, t->owner[1].live, 0xffff);
	LT_EXPECT(test, !lt_log_next(c, 3));
out:
	lt_track_exit(t);
}

/*
 * When a check plans: activity at 5% of a reclaim age's bytes, lifetimes
 * shown at deaths of 1/16 of a tenant's bytes, and the order of the
 * reasons.
 */
static void lt_test_plan_due(LT_TEST_CTX *test)
{
	u64 (*act)[LT_MAX_TENANTS];
	struct lt_label *labels;
	struct lt_check c = { };
	u8 *rank, *seen;

	act = lt_test_alloc(test, sizeof(*act) * LT_QUARTERS);
	labels = lt_test_alloc(test, sizeof(*labels) * LT_MAX_LABELS);
	rank = lt_test_alloc(test, LT_MAX_LABELS);
	seen = lt_test_alloc(test, LT_MAX_TENANTS);
	if (!LT_EXPECT(test, act && labels && rank && seen))
		return;

	/* Tenant 2 wrote 5% of the bytes: active; tenant 3, just under. */
	act[0][0] = 900;
	act[1][1] = 900;
	act[3][2] = 100;
	act[2][3] = 99;
	LT_EXPECT_EQ(test, lt_active_tenants(act, LT_QUARTERS, 4), 0x7);
	LT_EXPECT_EQ(test, lt_active_tenants(act, LT_QUARTERS, 2), 0x3);
	memset(act, 0, sizeof(*act) * LT_QUARTERS);
	LT_EXPECT_EQ(test, lt_active_tenants(act, LT_QUARTERS, 4), 0);

	/*
	 * Tenant 0: deaths of exactly 1/16 of its bytes, over two labels.
	 * Tenant 1: one page short of it.  Tenant 2: deaths, but not asked
	 * about.  Tenant 3: bytes, no deaths.
	 */
	labels[1] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 0,
				       .bytes = 12 * LT_MIB };
	labels[1].hist[3] = LT_MIB / 2;
	labels[2] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 0,
				       .bytes = 4 * LT_MIB };
	labels[2].hist[20] = LT_MIB / 2;
	labels[3] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 1,
				       .bytes = 16 * LT_MIB };
	labels[3].hist[3] = LT_MIB - 4 * LT_KIB;
	labels[4] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 2,
				       .bytes = LT_MIB };
	labels[4].hist[0] = LT_MIB;
	labels[5] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 3,
				       .bytes = LT_MIB };
	/* A free slot's counts are not a tenant's. */
	labels[6] = (struct lt_label){ .tenant = 3 };
	labels[6].hist[0] = LT_MIB;
	LT_EXPECT_EQ(test, lt_informed(labels, LT_MAX_LABELS, 0xb), 0x1);
	LT_EXPECT_EQ(test, lt_informed(labels, LT_MAX_LABELS, 0xf), 0x5);
	labels[3].hist[3] += 4 * LT_KIB;
	LT_EXPECT_EQ(test, lt_informed(labels, LT_MAX_LABELS, 0xf), 0x7);
	LT_EXPECT_EQ(test, lt_informed(labels, LT_MAX_LABELS, 0), 0);

	/*
	 * New ranks: tenant 0's plan saw rank 3; labels that came after it
	 * have rank 4 (6 MiB), rank 3 and no rank (50 MiB each).  Tenant 1's
	 * saw rank 2, and its new rank 5 holds 3.8% of its bytes.
	 */
	memset(labels, 0, sizeof(*labels) * LT_MAX_LABELS);
	memset(rank, 0, LT_MAX_LABELS);
	memset(seen, 0, LT_MAX_TENANTS);
	seen[0] = BIT(3);
	seen[1] = BIT(2);
	labels[1] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 0,
				       .bytes = 100 * LT_MIB };
	rank[1] = 3;
	labels[2] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 0,
				       .bytes = 6 * LT_MIB };
	rank[2] = 4;
	labels[3] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 0,
				       .bytes = 50 * LT_MIB };
	rank[3] = 3;
	labels[4] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 0,
				       .bytes = 50 * LT_MIB };
	labels[5] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 1,
				       .bytes = 100 * LT_MIB };
	rank[5] = 2;
	labels[6] = (struct lt_label){ .flags = LT_LABEL_USED, .tenant = 1,
				       .bytes = 4 * LT_MIB };
	rank[6] = 5;
	/* 6 MiB of 206: 2.9%, under the default 5%. */
	LT_EXPECT_EQ(test, lt_new_ranks(labels, rank, seen, LT_MAX_LABELS,
					0x3, 0), 0);
	/* Without the rank 3 and unranked labels: 6 of 106, 5.7%. */
	labels[3].flags = 0;
	labels[4].flags = 0;
	LT_EXPECT_EQ(test, lt_new_ranks(labels, rank, seen, LT_MAX_LABELS,
					0x3, 0), 0x1);
	LT_EXPECT_EQ(test, lt_new_ranks(labels, rank, seen, LT_MAX_LABELS,
					0x2, 0), 0);
	/* Tenant 1's 4 of 104 at a 3% side; not once a plan saw it. */
	LT_EXPECT_EQ(test, lt_new_ranks(labels, rank, seen, LT_MAX_LABELS,
					0x3, 30), 0x3);
	seen[1] |= BIT(5);
	LT_EXPECT_EQ(test, lt_new_ranks(labels, rank, seen, LT_MAX_LABELS,
					0x3, 30), 0x1);
	seen[0] |= BIT(4);
	LT_EXPECT_EQ(test, lt_new_ranks(labels, rank, seen, LT_MAX_LABELS,
					0x3, 0), 0);

	/* The reasons, in order. */
	LT_EXPECT(test, !lt_plan_due(&c));
	c.active = 0x3;
	LT_EXPECT(test, !strcmp(lt_plan_due(&c), "first"));
	c.installed = true;
	c.tenants = 0x1;
	c.informed = 0x3;
	c.periods = LT_QUARTERS;
	LT_EXPECT(test, !strcmp(lt_plan_due(&c), "tenants"));
	c.tenants = 0x3;
	c.tenants_informed = 0x1;
	LT_EXPECT(test, !strcmp(lt_plan_due(&c), "learned"));
	c.tenants_informed = 0x3;
	c.ranked = 0x2;
	LT_EXPECT(test, !strcmp(lt_plan_due(&c), "hints"));
	c.ranked = 0;
	LT_EXPECT(test, !strcmp(lt_plan_due(&c), "drift"));
	c.periods = LT_QUARTERS - 1;
	LT_EXPECT(test, !lt_plan_due(&c));
	/* Lifetimes that stop showing do not plan by themselves. */
	c.informed = 0x1;
	LT_EXPECT(test, !lt_plan_due(&c));
	/* Nor does a layout with no active tenant. */
	c.active = 0;
	c.periods = 100;
	LT_EXPECT(test, !lt_plan_due(&c));
}

/* xorshift64: a fixed pseudo-random sequence for the cases. */
static u64 lt_test_rand(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * A sampled tracker follows one range in 2^s for good: a write or discard
 * changes it exactly when lt_track_sampled() says so, and survival from
 * the tracked ranges is close to survival from all of them.
 */
static void lt_test_sampling(LT_TEST_CTX *test)
{
	struct lt_track *all = lt_test_track(test, LT_GIB, 0, LT_DEFAULT_MEM_CAP);
	struct lt_track *t = lt_test_alloc(test, sizeof(*t));
	u64 r, n = 0, x = 1, before, sect, page, age = 1ULL << 16;
	unsigned int i, shift, in_block = 0, offs = 0;
	u16 a, lbl[2][2];
	u32 s0, s1;
	bool s;

	if (!all || !t)
		return;
	LT_EXPECT_EQ(test, lt_track_init(t, LT_SECT(LT_GIB), 0,
					 LT_MAX_SAMPLE_SHIFT + 1,
					 LT_DEFAULT_MEM_CAP), -EINVAL);
	t = lt_test_track_sampled(test, LT_GIB, 0, 2, LT_DEFAULT_MEM_CAP);
	if (!t)
		return;
	LT_EXPECT(test, lt_track_sampled(all, 12345, 8));
	/* 8 bytes per tracked range: a quarter of the 16384 ranges. */
	LT_EXPECT_EQ(test, t->nr_ranges, 16384);
	LT_EXPECT_EQ(test, t->stats.ranges, 4096);
	LT_EXPECT_EQ(test, t->stats.mem_bytes,
		     4096 * sizeof(struct lt_owner) +
		     LT_MAX_LABELS * sizeof(struct lt_label));

	a = lt_label_get(t, 0xa, 1);
	shift = t->range_shift - LT_SECTOR_SHIFT;
	for (r = 0; r < t->nr_ranges; r++) {
		before = t->label[a].bytes;
		s = lt_track_sampled(t, r << shift, LT_SECT(4 * LT_KIB));
		lt_track_write(t, r << shift, LT_SECT(4 * LT_KIB), a, r);
		n += s;
		in_block += s;
		if (s)
			offs |= 1U << (r % 4);
		if (!LT_EXPECT_EQ(test, t->label[a].bytes - before,
				  s ? 4 * LT_KIB : 0))
			break;
		/* One range in each block of four, not always the same. */
		if (r % 4 == 3 && !LT_EXPECT_EQ(test, in_block, 1))
			break;
		if (r % 4 == 3)
			in_block = 0;
	}
	LT_EXPECT_EQ(test, n, t->nr_ranges / 4);
	LT_EXPECT_EQ(test, offs, 0xf);
	LT_EXPECT_EQ(test, t->stats.host_bytes, t->nr_ranges * 4 * LT_KIB);
	lt_track_discard(t, 0, LT_SECT(LT_GIB), t->nr_ranges);
	LT_EXPECT_EQ(test, t->stats.dead_bytes, n * 4 * LT_KIB);
	LT_EXPECT(test, !lt_track_sampled(t, LT_SECT(LT_GIB), 8));
	LT_EXPECT(test, !lt_track_sampled(t, 0, 0));
	LT_EXPECT(test, lt_track_sampled(t, 0, LT_SECT(64 * LT_MIB)));
	/* Seven ranges from anywhere hold a whole block of four. */
	for (r = 0; r < 8; r++)
		LT_EXPECT(test, lt_track_sampled(t, (r + 1000) << shift,
						 7 << shift));
	/*
	 * A write over two ranges, or past the end, counts if a range it
	 * touches on the disk is tracked.
	 */
	for (r = 0; r + 1 < t->nr_ranges; r += 97)
		if (!LT_EXPECT_EQ(test,
				  lt_track_sampled(t, ((r + 1) << shift) - 8, 16),
				  lt_range_slot(t, r) >= 0 ||
				  lt_range_slot(t, r + 1) >= 0))
			break;
	r = t->nr_ranges - 1;
	LT_EXPECT_EQ(test, lt_track_sampled(t, LT_SECT(LT_GIB) - 8, 16),
		     lt_range_slot(t, r) >= 0);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);
	lt_track_exit(t);

	/*
	 * A hot label rewrites 64 MiB and a cold one 512 MiB, 7 to 1, at
	 * random 4 KiB pages, after each wrote its region once.  Survival
	 * at 2^16 pages is about 0.03 and 0.94; the default sampling, one
	 * range in 16, must give it within 0.04.
	 */
	t = lt_test_track_sampled(test, LT_GIB, 0, LT_DEFAULT_SAMPLE_SHIFT,
				  LT_DEFAULT_MEM_CAP);
	if (!t)
		return;
	for (i = 0; i < 2; i++) {
		struct lt_track *k = i ? t : all;

		lbl[i][0] = lt_label_get(k, 0x40, 1);
		lbl[i][1] = lt_label_get(k, 0xc0, 1);
		lt_track_write(k, 0, LT_SECT(64 * LT_MIB), lbl[i][0], 0);
		lt_track_write(k, LT_SECT(512 * LT_MIB), LT_SECT(512 * LT_MIB),
			       lbl[i][1], 0);
	}
	for (page = 1; page <= 1ULL << 18; page++) {
		bool hot = lt_test_rand(&x) % 8;
		u64 span = hot ? 64 * LT_MIB : 512 * LT_MIB;

		sect = LT_SECT((lt_test_rand(&x) % (span >> LT_PAGE_SHIFT))
			       << LT_PAGE_SHIFT);
		if (!hot)
			sect += LT_SECT(512 * LT_MIB);
		lt_track_write(all, sect, 8, lbl[0][!hot], page);
		lt_track_write(t, sect, 8, lbl[1][!hot], page);
	}
	for (i = 0; i < 2; i++) {
		const struct lt_label *l0 = &all->label[lbl[0][i]];
		const struct lt_label *l1 = &t->label[lbl[1][i]];

		s0 = lt_survival(l0->bytes, lt_dead_before(l0->hist, age));
		s1 = lt_survival(l1->bytes, lt_dead_before(l1->hist, age));
		LT_EXPECT(test, s0 < s1 + LT_SURV_ONE / 25 &&
			  s1 < s0 + LT_SURV_ONE / 25);
		LT_EXPECT(test, i ? s0 > LT_SURV_ONE * 9 / 10 :
			  s0 < LT_SURV_ONE / 10);
	}
	LT_EXPECT(test, t->label[lbl[1][0]].bytes * 6 < all->label[lbl[0][0]].bytes);
	LT_EXPECT_EQ(test, lt_track_check(t), 0);
	lt_track_exit(t);
	lt_track_exit(all);
}

static const struct lt_test_case lt_test_table[] = {
	{ "owner_size", lt_test_owner_size },
	{ "mem_cap", lt_test_mem_cap },
	{ "alloc_failed", lt_test_alloc_failed },
	{ "resize", lt_test_resize },
	{ "overwrite", lt_test_overwrite },
	{ "discard", lt_test_discard },
	{ "partial_overlap", lt_test_partial_overlap },
	{ "append", lt_test_append },
	{ "label_reuse", lt_test_label_reuse },
	{ "label_table", lt_test_label_table },
	{ "decay", lt_test_decay },
	{ "survival", lt_test_survival },
	{ "sampling", lt_test_sampling },
	{ "log_merge", lt_test_log_merge },
	{ "plan_shared_node", lt_test_plan_shared_node },
	{ "plan_budget", lt_test_plan_budget },
	{ "plan_many_tenants", lt_test_plan_many_tenants },
	{ "plan_tenant_groups", lt_test_plan_tenant_groups },
	{ "plan_unseen_tenant", lt_test_plan_unseen_tenant },
	{ "plan_io_budget", lt_test_plan_io_budget },
	{ "plan_conflict", lt_test_plan_conflict },
	{ "plan_min_side", lt_test_plan_min_side },
	{ "plan_rank", lt_test_plan_rank },
	{ "plan_rank_journal", lt_test_plan_rank_journal },
	{ "plan_rank_keep", lt_test_plan_rank_keep },
	{ "plan_rank_keep_fresh", lt_test_plan_rank_keep_fresh },
	{ "plan_rank_hover", lt_test_plan_rank_hover },
	{ "plan_determinism", lt_test_plan_determinism },
	{ "plan_keep", lt_test_plan_keep },
	{ "plan_group_keep", lt_test_plan_group_keep },
	{ "plan_group_keep_bar", lt_test_plan_group_keep_bar },
	{ "plan_group_keep_budget", lt_test_plan_group_keep_budget },
	{ "plan_budget_keep", lt_test_plan_budget_keep },
	{ "plan_budget_keep_bslot", lt_test_plan_budget_keep_bslot },
	{ "plan_budget_keep_overlap", lt_test_plan_budget_keep_overlap },
	{ "plan_commit_slot", lt_test_plan_commit_slot },
	{ "plan_due", lt_test_plan_due },
};

#endif /* _LT_CASES_H */
