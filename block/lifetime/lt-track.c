// SPDX-License-Identifier: GPL-2.0
/*
 * Death tracker of the lifetime placement policy.
 *
 * The disk is cut into ranges of 2^range_shift bytes (64 KiB, or more on
 * disks above 256 GiB so that there are about 2^22 ranges, or more again
 * to stay under the memory cap), each cut into LT_SUBS sub-blocks.  Each
 * range has one 8-byte &struct lt_owner: the label that owns it, which of
 * its sub-blocks hold that label's live data, and when the label wrote
 * them.  Writes and discards over live sub-blocks are deaths, charged to
 * the owner's histogram at the age read from the host-write clock.
 *
 * Rules
 * =====
 *
 * Coverage.  A write covers every sub-block it touches, even in part: a
 * page-cache write smaller than a sub-block (4 KiB into the 64 KiB
 * sub-blocks of a 1 MiB range) must still count, or small random writes
 * on large disks would never be seen.  A discard or write-zeroes covers
 * only the sub-blocks it spans whole (those past the end of the disk
 * count as spanned), since the rest of a partly discarded sub-block still
 * holds data.
 *
 * Charge.  An overwrite charges the owner the overwritten live
 * sub-blocks, but never more bytes than the write put into the range; so
 * with 4 KiB sub-blocks and page-aligned writes the charge is exact.  With
 * larger sub-blocks, the part of a sub-block a small write of another
 * label leaves behind is no longer tracked, so its death goes uncounted.
 * A discard charges the whole live sub-blocks it covers.  The age of a
 * death is the host clock now minus the entry's time.
 *
 * Continuation.  With sub-blocks larger than a write, a file appended in
 * small writes would make each write look like the death of the one
 * before, in the sub-block they share.  So a write that starts where its
 * label's last write into a tracked range ended, inside a sub-block of a
 * range that label owns, and that sub-block held no live data before the
 * label started filling it, only fills it further: it charges nothing for
 * it.  A label rewriting its own data in order (a circular log) finds the
 * sub-block live when it starts on it, so each of its writes still
 * charges.  Two labels appending in turn into one sub-block, or one label
 * appending to two files in turn, are not told apart, and a small write
 * into a live sub-block elsewhere counts as an overwrite.
 *
 * Ownership.  One range has one owner.  A write by the owner's own label
 * adds its sub-blocks to the live set and moves the entry's time to the
 * byte-weighted mean of the old and new data, so the mean age of the
 * range's bytes stays right.  A write by another label when the old
 * owner keeps no live sub-block outside the write makes the writer the
 * owner.  Otherwise the side holding more live sub-blocks afterwards
 * keeps the range (the writer on a tie), and the other side's sub-blocks
 * are dropped: no longer live, their deaths never charged, counted in
 * dropped_bytes.  This drops the fewest bytes, and a label is never
 * charged for bytes another label wrote: charges can be missing, never
 * misplaced.  A dropped byte stays in its label's written bytes, so it
 * counts as surviving.
 *
 * Label reuse.  Labels are classes of writes, not files, and an entry
 * records the label of the write itself, so a reused inode or block never
 * relabels old data: the old data die charged to the label that wrote
 * them, and a new file under a label rightly shares its history.  What
 * must not happen is that a label slot given to a new key inherits the
 * deaths of the data its previous key wrote.  Each slot therefore counts the entries naming
 * it, and a slot is only reused once that count is zero.  lt_track_age()
 * retires labels that stopped writing: a retired label leaves the lookup
 * index at once, so its key gets a fresh slot on its next write, and
 * while entries still name it, it drains: their deaths are charged to
 * nobody (orphan_bytes) and lt_track_sweep() drops them.  The slot is
 * freed with the last one.
 *
 * Time.  The caller's clock counts 4 KiB pages written to the disk as a
 * u64.  Entries keep it as u32 in units of 2^time_shift pages, with
 * time_shift chosen so that LT_AGE_HORIZON times the capacity of writes
 * fits in LT_AGE_CLAMP units.  lt_track_sweep() clamps older entries to
 * that age; a pass over the table must complete within another
 * LT_AGE_CLAMP units of writes (the policy sweeps every reclaim age,
 * far more often), so unsigned subtraction never wraps.
 *
 * Decay.  lt_track_age(), called once per reclaim age, halves every
 * label's bytes and histogram: an exponentially weighted window with a
 * half-life of one reclaim age.  Under a steady load, deaths at any age
 * arrive at a constant rate just as writes do, so both decayed sums scale
 * alike and their ratio, survival, needs no correction for the edge of
 * the window (a window that starts empty would need one: early in it,
 * old data cannot have died yet).
 *
 * Sampling.  With sample_shift s > 0, the ranges go in blocks of 2^s and
 * each block tracks one of them, at the offset a hash of the block's
 * index picks, as spatial sampling estimates cache miss ratios.  The
 * owner table holds only the tracked ranges, one entry per block, so it
 * costs 8 bytes per tracked range.  A range is in or out for good, so
 * every write and death of a tracked range is seen and ages stay exact.
 * The hash keeps strided access patterns from lining up with the
 * samples; the blocks keep the samples spread evenly over the disk.  A
 * label's bytes and deaths both count only what falls in tracked ranges,
 * so survival, their ratio, is unbiased; what changes is its variance,
 * which grows as a label covers fewer tracked ranges (a label that never
 * touches one has no statistics and keeps its tenant's stream).  The
 * caller may then skip, before any locking, the writes that
 * lt_track_sampled() says touch no tracked range, and must still advance
 * its clock by their pages.
 *
 * Cost.  A write or discard costs O(1) per range it touches and a lookup
 * O(1) probes; lt_track_age() is O(LT_MAX_LABELS) and lt_track_sweep() is
 * bounded by its budget.  The caller serialises all calls on a tracker.
 */

#include "lt-core.h"

static inline u16 lt_sub_mask(unsigned int first, unsigned int last)
{
	return (u16)(((2U << last) - 1) & ~((1U << first) - 1));
}

/**
 * lt_age_bin() - histogram bin of an age
 * @age: age in pages
 *
 * Return: 0 for age 0, k for ages in [2^(k-1), 2^k), at most
 * LT_NR_BINS - 1.
 */
unsigned int lt_age_bin(u64 age)
{
	unsigned int bin = fls64(age);

	return bin < LT_NR_BINS ? bin : LT_NR_BINS - 1;
}

/**
 * lt_log_next() - next record of several logs, in stamp order
 * @c: one cursor per log
 * @n: entries in @c
 *
 * Each log must be in stamp order, as a log filled by one CPU from its
 * clock is.  Equal stamps go in the order of @c.  O(@n) per record.
 *
 * Return: the record with the smallest stamp not yet returned, NULL when
 * every log is done.
 */
const struct lt_rec *lt_log_next(struct lt_log_cursor *c, unsigned int n)
{
	struct lt_log_cursor *best = NULL;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (c[i].pos < c[i].len &&
		    (!best || c[i].rec[c[i].pos].stamp <
			      best->rec[best->pos].stamp))
			best = &c[i];
	return best ? &best->rec[best->pos++] : NULL;
}

/* Owner table entries: one per block of 2^@sample_shift ranges. */
static u64 lt_track_slots(u64 capacity, unsigned int shift,
			  unsigned int sample_shift)
{
	return ((capacity - 1) >> (shift + sample_shift)) + 1;
}

/**
 * lt_track_range_shift() - choose the range size of an owner table
 * @nr_sectors: disk size in sectors
 * @range_size: requested range size in bytes, 0 for the default
 * @sample_shift: one range in 2^@sample_shift is tracked
 * @mem_cap: most bytes the owner table may take
 *
 * The default is the smallest power of two that is at least 64 KiB and
 * capacity / 2^22; a requested size replaces it.  The size then doubles
 * until the table, one entry per tracked range, fits @mem_cap.
 *
 * Return: log2 of the range size, -EINVAL if @range_size is not a power
 * of two between 64 KiB and 64 MiB, -ENOSPC if no range size up to
 * 64 MiB fits @mem_cap.
 */
int lt_track_range_shift(u64 nr_sectors, u32 range_size,
			 unsigned int sample_shift, u64 mem_cap)
{
	u64 capacity = nr_sectors << LT_SECTOR_SHIFT;
	unsigned int shift = LT_MIN_RANGE_SHIFT;

	if (!nr_sectors || nr_sectors > (U64_MAX >> LT_SECTOR_SHIFT))
		return -EINVAL;
	if (!lt_range_size_ok(range_size))
		return -EINVAL;
	if (range_size) {
		shift = fls64(range_size) - 1;
	} else {
		while (shift < LT_MAX_RANGE_SHIFT &&
		       (1ULL << (shift + LT_TARGET_RANGES_SHIFT)) < capacity)
			shift++;
	}
	for (; shift <= LT_MAX_RANGE_SHIFT; shift++) {
		u64 nr = lt_track_slots(capacity, shift, sample_shift);

		if (nr * sizeof(struct lt_owner) <= mem_cap)
			return shift;
	}
	return -ENOSPC;
}

/**
 * lt_track_time_shift() - unit of the owner table's clock
 * @capacity: disk size in bytes
 *
 * Return: the smallest shift such that LT_AGE_HORIZON capacities of
 * writes, in pages, fit in LT_AGE_CLAMP units of 2^shift pages.
 */
unsigned int lt_track_time_shift(u64 capacity)
{
	u64 pages = (capacity >> LT_PAGE_SHIFT) + 1;
	unsigned int shift = 0;

	if (pages > U64_MAX / LT_AGE_HORIZON)
		pages = U64_MAX / LT_AGE_HORIZON;
	pages *= LT_AGE_HORIZON;
	while (shift < 63 && (pages >> shift) > LT_AGE_CLAMP)
		shift++;
	return shift;
}

/**
 * lt_track_size_alloc() - allocate an owner table of new sizes
 * @t: tracker; only its capacity is read
 * @sz: the new sizes and their owner table, for lt_track_resize()
 * @range_size: range size in bytes, 0 for the default
 * @sample_shift: track one range in 2^@sample_shift, at most
 *	LT_MAX_SAMPLE_SHIFT
 * @mem_cap: most bytes the owner table may take
 *
 * No range size within @mem_cap is not an error: @sz then turns tracking
 * off.  Neither is a failed allocation: @sz turns tracking off and says
 * so (@sz->alloc_failed), and the caller chooses.
 *
 * Context: may sleep.
 * Return: 0, or -EINVAL for bad sizes.
 */
int lt_track_size_alloc(const struct lt_track *t, struct lt_track_size *sz,
			u32 range_size, unsigned int sample_shift, u64 mem_cap)
{
	int shift;

	memset(sz, 0, sizeof(*sz));
	if (sample_shift > LT_MAX_SAMPLE_SHIFT)
		return -EINVAL;
	shift = lt_track_range_shift(t->capacity >> LT_SECTOR_SHIFT,
				     range_size, sample_shift, mem_cap);
	if (shift == -EINVAL)
		return -EINVAL;
	sz->sample_shift = sample_shift;
	if (shift < 0)
		return 0;
	sz->nr_slots = lt_track_slots(t->capacity, shift, sample_shift);
	/* A failure is handled: no tracking, counted, and no splat. */
	sz->owner = kvcalloc(sz->nr_slots, sizeof(*sz->owner),
			     GFP_KERNEL | __GFP_NOWARN);
	if (!sz->owner) {
		sz->nr_slots = 0;
		sz->alloc_failed = true;
		return 0;
	}
	sz->range_shift = shift;
	return 0;
}

/*
 * Put @sz's sizes and table in force.  Readers without the caller's lock
 * read only the geometry word, written last and once.
 */
static void lt_track_size_set(struct lt_track *t, struct lt_track_size *sz)
{
	unsigned int s = sz->sample_shift;
	bool on = sz->owner;

	t->owner = sz->owner;
	t->nr_slots = sz->nr_slots;
	t->sweep_pos = 0;
	t->stats.mem_bytes += t->nr_slots * sizeof(*t->owner);
	t->stats.ranges = t->nr_slots;
	t->stats.range_bytes = on ? 1ULL << sz->range_shift : 0;
	if (!on) {
		t->stats.off++;
		t->stats.alloc_failed += sz->alloc_failed;
	}
	t->on = on;
	t->sample_shift = s;
	/* Off, the last size stays: lockless readers never see a bad one. */
	if (on)
		t->range_shift = sz->range_shift;
	else if (!t->range_shift)
		t->range_shift = LT_MIN_RANGE_SHIFT;
	t->nr_ranges = on ? lt_track_slots(t->capacity, t->range_shift, 0) : 0;
	t->sub_shift = t->range_shift - LT_SUB_BITS;
	WRITE_ONCE(t->geom, lt_geom(on, t->range_shift, s));
	sz->owner = NULL;
}

/**
 * lt_track_init() - set up the tracker of one disk
 * @t: tracker, zeroed or not
 * @nr_sectors: disk size in sectors
 * @range_size: range size in bytes, 0 for the default
 * @sample_shift: track one range in 2^@sample_shift, at most
 *	LT_MAX_SAMPLE_SHIFT
 * @mem_cap: most bytes the owner table may take
 *
 * When no range size fits @mem_cap or the owner table cannot be
 * allocated, tracking is off (@t->on is false, stats.off counts it), labels
 * still count written bytes, and the function still succeeds: the policy
 * then places nothing.
 *
 * Context: may sleep.
 * Return: 0, -EINVAL for bad sizes, -ENOMEM if the label table cannot be
 * allocated.
 */
int lt_track_init(struct lt_track *t, u64 nr_sectors, u32 range_size,
		  unsigned int sample_shift, u64 mem_cap)
{
	struct lt_track_size sz;
	int ret;
	u16 i;

	BUILD_BUG_ON(sizeof(struct lt_owner) != 8);
	BUILD_BUG_ON(LT_HASH_SIZE < 2 * LT_MAX_LABELS);

	memset(t, 0, sizeof(*t));
	if (!nr_sectors || nr_sectors > (U64_MAX >> LT_SECTOR_SHIFT))
		return -EINVAL;
	t->capacity = nr_sectors << LT_SECTOR_SHIFT;
	ret = lt_track_size_alloc(t, &sz, range_size, sample_shift, mem_cap);
	if (ret)
		return ret;

	t->label = kvcalloc(LT_MAX_LABELS, sizeof(*t->label), GFP_KERNEL);
	if (!t->label) {
		kvfree(sz.owner);
		return -ENOMEM;
	}
	t->label[LT_LABEL_UNKNOWN].flags = LT_LABEL_USED;
	for (i = 0; i < LT_MAX_LABELS - 1; i++)
		t->free[i] = LT_MAX_LABELS - 1 - i;
	t->nr_free = LT_MAX_LABELS - 1;

	t->last_sector = nr_sectors - 1;
	t->time_shift = lt_track_time_shift(t->capacity);
	t->stats.mem_bytes = LT_MAX_LABELS * sizeof(*t->label);
	lt_track_size_set(t, &sz);
	return 0;
}

/*
 * lt_track_sampled()'s answer for what its inline path leaves: an empty
 * write, one over more than one range or past the disk's end, and any
 * write while tracking or sampling is off.
 */
bool lt_track_sampled_slow(const struct lt_track *t, u64 sector,
			   u32 nr_sectors)
{
	u32 g = READ_ONCE(t->geom);
	unsigned int shift = lt_geom_range(g);
	u64 r, last;

	if (!lt_geom_on(g) || !lt_geom_sample(g))
		return true;
	if (!nr_sectors || sector > t->last_sector)
		return false;
	r = (sector << LT_SECTOR_SHIFT) >> shift;
	last = min(((sector + nr_sectors) << LT_SECTOR_SHIFT) - 1,
		   t->capacity - 1) >> shift;
	/* A write over 2^(s+1) - 1 ranges holds a whole block, so one. */
	if (last - r >= (2U << lt_geom_sample(g)) - 2)
		return true;
	for (; r <= last; r++)
		if (lt_geom_slot(g, r) >= 0)
			return true;
	return false;
}

/**
 * lt_track_exit() - free what lt_track_init() allocated
 * @t: tracker
 */
void lt_track_exit(struct lt_track *t)
{
	kvfree(t->owner);
	kvfree(t->label);
	t->owner = NULL;
	t->label = NULL;
	t->on = false;
	t->geom = lt_geom(false, t->range_shift, t->sample_shift);
}

static void lt_hash_remove(struct lt_track *t, u16 idx)
{
	const u32 mask = LT_HASH_SIZE - 1;
	u32 i, j, n;

	i = lt_hash(t->label[idx].key, t->label[idx].tenant);
	for (n = 0; n < LT_HASH_SIZE && t->hash[i] != idx; n++)
		i = (i + 1) & mask;
	if (t->hash[i] != idx)
		return;

	/* Backward-shift deletion keeps every probe chain unbroken. */
	j = i;
	for (n = 0; n < LT_HASH_SIZE; n++) {
		const struct lt_label *l;
		u32 home;

		j = (j + 1) & mask;
		if (!t->hash[j])
			break;
		l = &t->label[t->hash[j]];
		home = lt_hash(l->key, l->tenant);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			t->hash[i] = t->hash[j];
			i = j;
		}
	}
	t->hash[i] = 0;
}

/**
 * lt_label_get() - find or create the label of a key
 * @t: tracker
 * @key: the caller's key, 0 for unknown
 * @tenant: tenant of the write
 *
 * The same key under two tenants makes two labels.
 *
 * Return: the label slot, or LT_LABEL_UNKNOWN for key 0 or when the table
 * is full (counted in stats.label_overflow).
 */
u16 lt_label_get(struct lt_track *t, u64 key, u16 tenant)
{
	struct lt_label *l;
	u32 h, n;
	u16 idx;

	if (!key)
		return LT_LABEL_UNKNOWN;
	h = lt_hash(key, tenant);
	for (n = 0; n < LT_HASH_SIZE; n++) {
		idx = t->hash[h];
		if (!idx)
			break;
		l = &t->label[idx];
		if (l->key == key && l->tenant == tenant)
			return idx;
		h = (h + 1) & (LT_HASH_SIZE - 1);
	}
	if (n == LT_HASH_SIZE || !t->nr_free) {
		t->stats.label_overflow++;
		return LT_LABEL_UNKNOWN;
	}
	idx = t->free[--t->nr_free];
	l = &t->label[idx];
	memset(l, 0, sizeof(*l));
	l->key = key;
	l->tenant = tenant;
	l->flags = LT_LABEL_USED;
	t->hash[h] = idx;
	return idx;
}

static void lt_label_free(struct lt_track *t, u16 idx)
{
	memset(&t->label[idx], 0, sizeof(t->label[idx]));
	t->free[t->nr_free++] = idx;
}

/* Age of the entry's data in units of 2^time_shift pages. */
static inline u32 lt_owner_age(const struct lt_owner *e, u32 now)
{
	u32 age = now - e->time;

	return age > LT_AGE_NEG ? 0 : age;
}

/* @v counted at one range in 2^@was, as counted at one in 2^@will. */
static u64 lt_rescale(u64 v, unsigned int was, unsigned int will)
{
	return was >= will ? v << (was - will) : v >> (will - was);
}

/**
 * lt_track_resize() - replace the owner table, keeping the labels
 * @t: tracker
 * @sz: sizes and table from lt_track_size_alloc(); on return it holds the
 *	old table, for lt_track_count_stranded() and lt_track_unstrand()
 *	after the caller's lock, then kvfree()
 *
 * The tracker forgets who owns each range, so the data live in the old
 * table will die unseen; lt_track_unstrand() then takes it out of its
 * labels' bytes, so that their survival, deaths over bytes, is not
 * raised by deaths that can no longer be seen.  The labels keep what they
 * learned.  Their byte counts and age histograms, which count tracked
 * ranges only, are scaled from the old sampling rate to the new one,
 * which keeps the ratio of the two, so that old and new writes weigh
 * alike.  Labels that were retired and waited for their last owner entry
 * are freed.
 *
 * Context: the caller's lock, as for lt_track_write().  Bounded: one pass
 * over the LT_MAX_LABELS labels.
 */
void lt_track_resize(struct lt_track *t, struct lt_track_size *sz)
{
	unsigned int was = t->on ? t->sample_shift : 0;
	unsigned int will = sz->owner ? sz->sample_shift : 0;
	struct lt_stranded *st = sz->stranded;
	struct lt_owner *old = t->owner;
	u64 old_slots;
	u16 i, b;

	sz->sub_shift = t->sub_shift;
	sz->was = was;
	sz->will = will;
	if (st)
		memset(st, 0, sizeof(*st));
	for (i = 0; i < LT_MAX_LABELS; i++) {
		struct lt_label *l = &t->label[i];

		if (!(l->flags & LT_LABEL_USED))
			continue;
		if (i != LT_LABEL_UNKNOWN && (l->flags & LT_LABEL_DRAINING)) {
			lt_label_free(t, i);
			continue;
		}
		if (st) {
			st->key[i] = l->key;
			st->tenant[i] = l->tenant;
		}
		l->refs = 0;
		l->end = 0;
		l->flags &= ~LT_LABEL_END_FRESH;
		l->bytes = lt_rescale(l->bytes, was, will);
		for (b = 0; b < LT_NR_BINS; b++)
			l->hist[b] = lt_rescale(l->hist[b], was, will);
	}
	t->stats.mem_bytes -= t->nr_slots * sizeof(*t->owner);
	old_slots = t->nr_slots;
	lt_track_size_set(t, sz);
	sz->owner = old;
	sz->nr_slots = old_slots;
}

/**
 * lt_track_count_stranded() - the young live bytes of each label in an old
 *	table
 * @sz: what lt_track_resize() left
 * @now: host clock in pages at the resize
 * @horizon: age in pages from which live data counts as a survivor
 * @time_shift: the tracker's @time_shift
 *
 * Data older than @horizon (the reclaim age) has survived it, and counts
 * as such in its label whatever becomes of it; younger data might have
 * died before reaching it, which the new table cannot see: only that is
 * counted, for lt_track_unstrand() to take out of its label.
 *
 * Context: without the tracker's lock: the old table is the caller's
 * alone.  O(entries); may be long for a large table.
 */
void lt_track_count_stranded(struct lt_track_size *sz, u64 now, u64 horizon,
			     unsigned int time_shift)
{
	u32 t_now = now >> time_shift;
	u64 i, h = horizon >> time_shift;

	for (i = 0; sz->owner && sz->stranded && i < sz->nr_slots; i++) {
		const struct lt_owner *e = &sz->owner[i];

		if (e->live && lt_owner_age(e, t_now) < h)
			sz->stranded->live[e->label] +=
				(u64)hweight16(e->live) << sz->sub_shift;
	}
}

/**
 * lt_track_unstrand() - take the stranded live bytes out of the labels
 * @t: tracker
 * @sz: what lt_track_count_stranded() counted
 *
 * Only from labels still the ones they were at lt_track_resize(), scaled
 * as their bytes were.  Bytes may have been halved once by decay since
 * data younger than a reclaim age was written, live data not: a label's
 * bytes do not go below 0.
 *
 * Context: the caller's lock.  Bounded: one pass over the labels.
 */
void lt_track_unstrand(struct lt_track *t, const struct lt_track_size *sz)
{
	const struct lt_stranded *st = sz->stranded;
	u16 i;

	for (i = 0; st && i < LT_MAX_LABELS; i++) {
		struct lt_label *l = &t->label[i];
		u64 v;

		if (!st->live[i] || !(l->flags & LT_LABEL_USED) ||
		    l->key != st->key[i] || l->tenant != st->tenant[i])
			continue;
		v = lt_rescale(st->live[i], sz->was, sz->will);
		l->bytes -= min(l->bytes, v);
	}
}

static void lt_label_retire(struct lt_track *t, u16 idx)
{
	struct lt_label *l = &t->label[idx];

	lt_hash_remove(t, idx);
	t->stats.labels_retired++;
	if (!l->refs) {
		lt_label_free(t, idx);
		return;
	}
	l->flags |= LT_LABEL_DRAINING;
	l->bytes = 0;
	memset(l->hist, 0, sizeof(l->hist));
}

static inline bool lt_draining(const struct lt_track *t,
			       const struct lt_owner *e)
{
	return t->label[e->label].flags & LT_LABEL_DRAINING;
}

/* The entry stops naming its label: it has no live sub-block left. */
static void lt_owner_clear(struct lt_track *t, struct lt_owner *e)
{
	struct lt_label *l = &t->label[e->label];

	e->live = 0;
	if (!--l->refs && (l->flags & LT_LABEL_DRAINING))
		lt_label_free(t, e->label);
	e->label = LT_LABEL_UNKNOWN;
}

static void lt_owner_set(struct lt_track *t, struct lt_owner *e, u16 label,
			 u16 live, u32 now)
{
	if (e->live)
		lt_owner_clear(t, e);
	e->label = label;
	e->live = live;
	e->time = now;
	t->label[label].refs++;
}

static void lt_charge(struct lt_track *t, const struct lt_owner *e,
		      u64 bytes, u32 now)
{
	u64 age = (u64)lt_owner_age(e, now) << t->time_shift;

	t->label[e->label].hist[lt_age_bin(age)] += bytes;
	t->stats.dead_bytes += bytes;
}

/*
 * A label wrote @bytes into the sub-blocks @mask of the range of @e; those
 * of @fill it only filled further (see "Continuation" above).
 */
static void lt_owner_write(struct lt_track *t, struct lt_owner *e, u16 mask,
			   u16 fill, u32 bytes, u16 label, u32 now)
{
	unsigned int n, r;
	u16 dead, rest;

	if (e->live && lt_draining(t, e)) {
		dead = e->live & mask;
		t->stats.orphan_bytes += min((u64)hweight16(dead) << t->sub_shift,
					     (u64)bytes);
		t->stats.dropped_bytes +=
			(u64)hweight16(e->live & ~mask) << t->sub_shift;
		lt_owner_clear(t, e);
	}

	dead = e->live & mask & ~fill;
	if (dead)
		lt_charge(t, e, min((u64)hweight16(dead) << t->sub_shift,
				    (u64)bytes), now);

	rest = e->live & ~mask;
	if (!rest) {
		lt_owner_set(t, e, label, mask, now);
		return;
	}

	n = hweight16(mask);
	r = hweight16(rest);
	if (e->label == label) {
		e->time += (u32)div_u64((u64)lt_owner_age(e, now) * n, n + r);
		e->live = rest | mask;
	} else if (n >= r) {
		t->stats.dropped_bytes += (u64)r << t->sub_shift;
		lt_owner_set(t, e, label, mask, now);
	} else {
		t->stats.dropped_bytes += bytes;
		e->live = rest;
	}
}

/* The byte range [*start, *end) of a bio inside the disk; false if empty. */
static bool lt_clip(const struct lt_track *t, u64 sector, u32 nr_sectors,
		    u64 *start, u64 *end)
{
	if (sector >= (t->capacity >> LT_SECTOR_SHIFT))
		return false;
	*start = sector << LT_SECTOR_SHIFT;
	*end = min(*start + ((u64)nr_sectors << LT_SECTOR_SHIFT), t->capacity);
	return *start < *end;
}

/**
 * lt_track_write() - account one write
 * @t: tracker
 * @sector: first sector
 * @nr_sectors: length in sectors
 * @label: label of the write, from lt_label_get()
 * @now: host clock in pages, including this write or not, but the same
 *	way for every call
 *
 * Charges the deaths the write causes and makes @label the owner of what
 * it wrote, following the rules at the top of this file.  Parts beyond
 * the end of the disk are ignored.
 */
void lt_track_write(struct lt_track *t, u64 sector, u32 nr_sectors,
		    u16 label, u64 now)
{
	u64 start, end, r, last, base;
	struct lt_label *l;
	u32 ntime, a, b;
	u64 tracked = 0;
	bool fresh = false;

	if (label >= LT_MAX_LABELS || !(t->label[label].flags & LT_LABEL_USED) ||
	    (t->label[label].flags & LT_LABEL_DRAINING))
		label = LT_LABEL_UNKNOWN;
	if (!lt_clip(t, sector, nr_sectors, &start, &end))
		return;

	l = &t->label[label];
	t->stats.host_bytes += end - start;
	if (!t->on) {
		tracked = end - start;
		goto account;
	}

	ntime = (u32)(now >> t->time_shift);
	last = (end - 1) >> t->range_shift;
	for (r = start >> t->range_shift; r <= last; r++) {
		s64 slot = lt_range_slot(t, r);
		u16 mask, fill = 0;

		if (slot < 0)
			continue;
		base = r << t->range_shift;
		a = max(start, base) - base;
		b = min(end, base + (1ULL << t->range_shift)) - base;
		mask = lt_sub_mask(a >> t->sub_shift, (b - 1) >> t->sub_shift);
		/* Continuation: the label goes on filling its sub-block. */
		if (start == l->end && (l->flags & LT_LABEL_END_FRESH) &&
		    base + a == start && (a & ((1U << t->sub_shift) - 1)) &&
		    t->owner[slot].label == label)
			fill = BIT(a >> t->sub_shift);
		/* Was the sub-block the write ends in empty, or filled so? */
		if (base + b == end) {
			u16 lb = BIT((b - 1) >> t->sub_shift);

			fresh = (fill & lb) || !(t->owner[slot].live & lb);
		}
		lt_owner_write(t, &t->owner[slot], mask, fill, b - a, label,
			       ntime);
		tracked += b - a;
	}
	/* Bytes count where deaths can be seen: in tracked ranges. */
	if (!tracked)
		return;
	l->end = end;
	if (fresh)
		l->flags |= LT_LABEL_END_FRESH;
	else
		l->flags &= ~LT_LABEL_END_FRESH;
account:
	l->bytes += tracked;
	l->last_write = now;
	l->idle = 0;
}

/**
 * lt_track_discard() - account a discard
 * @t: tracker
 * @sector: first sector
 * @nr_sectors: length in sectors
 * @now: host clock in pages
 *
 * Live sub-blocks the discard spans whole die and are charged to their
 * owner; the range loses its owner when nothing of it stays live.
 */
void lt_track_discard(struct lt_track *t, u64 sector, u32 nr_sectors,
		      u64 now)
{
	u64 start, end, r, last, base, range = 1ULL << t->range_shift;
	u32 ntime, a, b;

	if (!lt_clip(t, sector, nr_sectors, &start, &end))
		return;
	t->stats.discard_bytes += end - start;
	if (!t->on)
		return;

	ntime = (u32)(now >> t->time_shift);
	last = (end - 1) >> t->range_shift;
	for (r = start >> t->range_shift; r <= last; r++) {
		s64 slot = lt_range_slot(t, r);
		unsigned int first, stop;
		struct lt_owner *e;
		u16 dead;
		u64 bytes;

		if (slot < 0)
			continue;
		e = &t->owner[slot];
		base = r << t->range_shift;
		a = max(start, base) - base;
		b = min(end, base + range) - base;
		if (end == t->capacity)
			b = range;
		first = (a + (1U << t->sub_shift) - 1) >> t->sub_shift;
		stop = b >> t->sub_shift;
		if (first >= stop)
			continue;
		dead = e->live & lt_sub_mask(first, stop - 1);
		if (!dead)
			continue;
		bytes = (u64)hweight16(dead) << t->sub_shift;
		if (lt_draining(t, e))
			t->stats.orphan_bytes += bytes;
		else
			lt_charge(t, e, bytes, ntime);
		if (e->live & ~dead)
			e->live &= ~dead;
		else
			lt_owner_clear(t, e);
	}
}

/**
 * lt_track_age() - forget old behaviour, once per reclaim age
 * @t: tracker
 *
 * Halves every label's written bytes and histogram, and retires labels
 * that wrote nothing during the last LT_IDLE_AGES calls (see the rules at
 * the top of this file).  The unknown label is never retired.
 */
void lt_track_age(struct lt_track *t)
{
	unsigned int i, bin;

	for (i = 0; i < LT_MAX_LABELS; i++) {
		struct lt_label *l = &t->label[i];

		if (!(l->flags & LT_LABEL_USED) ||
		    (l->flags & LT_LABEL_DRAINING))
			continue;
		l->bytes >>= 1;
		for (bin = 0; bin < LT_NR_BINS; bin++)
			l->hist[bin] >>= 1;
		if (i == LT_LABEL_UNKNOWN)
			continue;
		if (l->idle < U8_MAX)
			l->idle++;
		if (l->idle >= LT_IDLE_AGES)
			lt_label_retire(t, i);
	}
}

/**
 * lt_track_forget_tenant() - retire every label of a tenant
 * @t: tracker
 * @tenant: the tenant, whose slot the caller gives to another
 *
 * Its labels leave the lookup index and drain, as idle ones do
 * (lt_track_age()), so the next tenant of the slot starts with labels of
 * its own.  O(LT_MAX_LABELS).
 */
void lt_track_forget_tenant(struct lt_track *t, u16 tenant)
{
	unsigned int i;

	for (i = 1; i < LT_MAX_LABELS; i++) {
		const struct lt_label *l = &t->label[i];

		if ((l->flags & LT_LABEL_USED) &&
		    !(l->flags & LT_LABEL_DRAINING) && l->tenant == tenant)
			lt_label_retire(t, i);
	}
}

/**
 * lt_track_sweep() - visit part of the owner table
 * @t: tracker
 * @now: host clock in pages
 * @budget: most entries to visit
 *
 * Drops the entries of retired labels and clamps ages above LT_AGE_CLAMP,
 * resuming where the last call stopped.  The policy calls it from its
 * worker with a budget that completes a pass well within a reclaim age.
 *
 * Return: entries visited.
 */
u64 lt_track_sweep(struct lt_track *t, u64 now, u64 budget)
{
	u32 ntime = (u32)(now >> t->time_shift);
	u64 done;

	if (!t->on)
		return 0;
	for (done = 0; done < budget; done++) {
		struct lt_owner *e = &t->owner[t->sweep_pos];

		if (e->live && lt_draining(t, e)) {
			t->stats.dropped_bytes +=
				(u64)hweight16(e->live) << t->sub_shift;
			lt_owner_clear(t, e);
		} else if (e->live) {
			u32 age = ntime - e->time;

			if (age > LT_AGE_NEG)
				e->time = ntime;
			else if (age > LT_AGE_CLAMP)
				e->time = ntime - LT_AGE_CLAMP;
		}
		if (++t->sweep_pos == t->nr_slots) {
			t->sweep_pos = 0;
			t->stats.sweep_passes++;
		}
	}
	return done;
}

/**
 * lt_track_period_turn() - lt_track_period_end() but for its sweep
 * @t: tracker
 * @act: pages each tenant wrote in each of the last LT_QUARTERS periods
 * @period: the period @act counts into; moved on to the next, cleared
 * @since_age: periods since the histograms were last halved
 *
 * For a caller that sweeps the period's quarter of the owner table in
 * parts of its own.  O(LT_MAX_LABELS * LT_NR_BINS).
 *
 * Return: the entries the period's sweep is to visit.
 */
u64 lt_track_period_turn(struct lt_track *t, u64 act[][LT_MAX_TENANTS],
			 unsigned int *period, unsigned int *since_age)
{
	*period = (*period + 1) % LT_QUARTERS;
	memset(act[*period], 0, sizeof(act[0]));
	if (++*since_age >= LT_QUARTERS) {
		*since_age = 0;
		lt_track_age(t);
	}
	return DIV_ROUND_UP(t->nr_slots, LT_QUARTERS);
}

/**
 * lt_track_period_end() - age by one period, a quarter of a reclaim age
 * @t: tracker
 * @act: pages each tenant wrote in each of the last LT_QUARTERS periods
 * @period: the period @act counts into; moved on to the next, cleared
 * @since_age: periods since the histograms were last halved
 * @now: host clock in pages
 *
 * Sweeps a quarter of the owner table (lt_track_sweep()) and, every
 * LT_QUARTERS periods, halves the histograms (lt_track_age()).  The
 * kernel's worker ages by lt_track_period_turn() and sweeps in parts;
 * the userspace replay ages by this.
 */
void lt_track_period_end(struct lt_track *t, u64 act[][LT_MAX_TENANTS],
			 unsigned int *period, unsigned int *since_age, u64 now)
{
	lt_track_sweep(t, now, lt_track_period_turn(t, act, period, since_age));
}

/**
 * lt_track_check() - verify the label table and reference counts
 * @t: tracker
 *
 * For tests and debugging: walks the whole owner table.
 *
 * Context: may sleep.
 * Return: 0 when every label slot is in use or on the free stack, every
 * label in use but not retired is in the index and no other, a retired
 * label is still named, the geometry word matches the fields, and every
 * label's reference count equals the number of entries naming it and
 * every named label is in use; -EUCLEAN otherwise, -ENOMEM if no scratch
 * memory could be had.
 */
int lt_track_check(const struct lt_track *t)
{
	unsigned int used = 0, hashed = 0;
	int ret = 0;
	u32 *refs;
	u64 r;
	u16 i;

	/*
	 * The label table: every slot is used or free, a retired label waits
	 * only for entries that name it, and the index holds the others.
	 */
	for (i = 1; i < LT_MAX_LABELS; i++) {
		u8 f = t->label[i].flags;

		if (!(f & LT_LABEL_USED))
			continue;
		used++;
		if (!(f & LT_LABEL_DRAINING))
			hashed++;
		else if (!t->label[i].refs)
			return -EUCLEAN;
	}
	if (used + t->nr_free != LT_MAX_LABELS - 1)
		return -EUCLEAN;
	for (r = 0; r < LT_HASH_SIZE; r++) {
		i = t->hash[r];
		if (!i)
			continue;
		if (i >= LT_MAX_LABELS ||
		    (t->label[i].flags & (LT_LABEL_USED | LT_LABEL_DRAINING)) !=
		    LT_LABEL_USED)
			return -EUCLEAN;
		hashed--;
	}
	if (hashed)
		return -EUCLEAN;
	if (t->geom != lt_geom(t->on, t->range_shift, t->sample_shift))
		return -EUCLEAN;

	if (!t->on)
		return 0;
	refs = kvcalloc(LT_MAX_LABELS, sizeof(*refs), GFP_KERNEL);
	if (!refs)
		return -ENOMEM;
	for (r = 0; r < t->nr_slots && !ret; r++) {
		const struct lt_owner *e = &t->owner[r];

		if (!e->live)
			continue;
		if (e->label >= LT_MAX_LABELS ||
		    !(t->label[e->label].flags & LT_LABEL_USED))
			ret = -EUCLEAN;
		else
			refs[e->label]++;
	}
	for (i = 0; i < LT_MAX_LABELS && !ret; i++)
		if (refs[i] != t->label[i].refs)
			ret = -EUCLEAN;
	kvfree(refs);
	return ret;
}
