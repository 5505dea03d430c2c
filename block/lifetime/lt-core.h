/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Core of the lifetime placement policy: the death tracker and the planner.
 *
 * The tracker watches every write and discard of one disk.  It remembers,
 * for each fixed-size LBA range, which label last wrote it and when, and
 * turns overwrites and discards into deaths charged to that label, binned
 * by age.  The planner reads the labels' histograms, computes each label's
 * survival at the reclaim age, and splits every tenant's labels into
 * classes, spending the free write streams where a split saves the most
 * garbage-collection copying.
 *
 * Everything here is plain integer C with bounded loops and no recursion:
 * the same files build into the kernel module and into the userspace tests
 * under tools/testing/lifetime.  None of it takes locks; the caller
 * serialises all calls on one tracker, and the planner works on a copy of
 * the labels.
 *
 * Units: sectors are 512 bytes; time is a host-write clock counting 4 KiB
 * pages written to the disk (not wall time); survival is a fraction in
 * units of 1/LT_SURV_ONE.
 */
#ifndef _LT_CORE_H
#define _LT_CORE_H

#ifdef __KERNEL__
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/limits.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include "lt-user.h"
#endif

#define LT_SECTOR_SHIFT		9
/*
 * The unit of the host clock, ages and page counts: 4 KiB whatever the
 * kernel's page size, so that ages, the reclaim age and the counts shown
 * in bytes agree on every architecture.
 */
#define LT_PAGE_SHIFT		12
#define LT_PAGE_SIZE		BIT(LT_PAGE_SHIFT)

/* Owner table geometry. */
#define LT_SUB_BITS		4
#define LT_SUBS			BIT(LT_SUB_BITS)	/* sub-blocks per range */
#define LT_MIN_RANGE_SHIFT	16			/* 64 KiB */
#define LT_MAX_RANGE_SHIFT	26			/* 64 MiB */
#define LT_TARGET_RANGES_SHIFT	22	/* aim for capacity / 2^22 ranges */
#define LT_DEFAULT_MEM_CAP	(64ULL << 20)
#define LT_MAX_SAMPLE_SHIFT	6	/* track at least 1 range in 64 */
#define LT_DEFAULT_SAMPLE_SHIFT	4	/* 1 range in 16 */

/*
 * Ages are kept in the owner table as u32 counts of (1 << time_shift)
 * pages.  The sweep clamps any age above LT_AGE_CLAMP, so an age read by
 * unsigned subtraction is right as long as each sweep pass completes
 * before another LT_AGE_CLAMP units of host writes; a difference above
 * LT_AGE_NEG means the caller's clock went backwards and reads as zero.
 * time_shift is the smallest shift that fits LT_AGE_HORIZON capacities
 * of host writes under the clamp.
 */
#define LT_AGE_CLAMP		BIT(30)
#define LT_AGE_NEG		BIT(31)
#define LT_AGE_HORIZON		8
/* The largest reclaim age an operator may set, in capacities. */
#define LT_MAX_AGE_CAPS		(LT_AGE_HORIZON / 2)

/* Labels. */
#define LT_MAX_LABELS		256
#define LT_LABEL_UNKNOWN	0
#define LT_HASH_BITS		9
#define LT_HASH_SIZE		BIT(LT_HASH_BITS)
#define LT_NR_BINS		40
#define LT_IDLE_AGES		4
#define LT_NAME_LEN		24

/* Planner. */
#define LT_MAX_TENANTS		64
#define LT_MAX_STREAMS		255
#define LT_TENANT_SHARED	U16_MAX
/*
 * Or'ed into a tenant index by lt-bio.c for a write an earlier rule
 * placed (an io.stream pin, a filesystem's kind, the application): it
 * counts for the clock and the tracker, not for the tenant's activity.
 */
#define LT_TENANT_PLACED	BIT(14)
#define LT_MIN_SIDE_PM		50
/*
 * A cut between two ranks that the layout before had stays while each
 * side holds this much of min_side, per mille (lt_rank_side()): a margin
 * against a rank's share hovering about min_side.  A heuristic.
 */
#define LT_RANK_KEEP_PM		667
#define LT_GROUP_WORTH_SHIFT	6
#define LT_SURV_SHIFT		16
#define LT_SURV_ONE		BIT(LT_SURV_SHIFT)
/* Periods per reclaim age: activity and drift are counted in quarters. */
#define LT_QUARTERS		4
/* Most pages between two checks before the first layout: 1 GiB. */
#define LT_FIRST_STEP_MAX	(1ULL << (30 - LT_PAGE_SHIFT))

/**
 * struct lt_owner - who owns one LBA range of the owner table
 * @label: label slot of the owner; meaningful only while @live is not 0
 * @live: bitmap of the range's sub-blocks whose data the owner wrote and
 *	that have not died since
 * @time: host clock of the owner's data, in units of (1 << time_shift)
 *	pages, truncated to 32 bits
 */
struct lt_owner {
	u16 label;
	u16 live;
	u32 time;
};

/**
 * enum lt_label_flags - state of a label slot
 * @LT_LABEL_USED: the slot holds a label
 * @LT_LABEL_DRAINING: the label was retired but owner entries still name
 *	it; their deaths are charged to nobody, and the slot is freed when
 *	the last such entry goes
 * @LT_LABEL_END_FRESH: the sub-block the label's last tracked write ended
 *	in held no live data before the label started filling it
 */
enum lt_label_flags {
	LT_LABEL_USED		= 1 << 0,
	LT_LABEL_DRAINING	= 1 << 1,
	LT_LABEL_END_FRESH	= 1 << 2,
};

/**
 * struct lt_label - one label: a kind of write that may die together
 * @key: opaque key from the caller (tenant, kind, hint, file class,
 *	thread, ...); 0 is reserved for the unknown label
 * @tenant: tenant index the label's writes belong to
 * @flags: &enum lt_label_flags
 * @idle: lt_track_age() calls since the label last wrote
 * @refs: owner table entries that name this label
 * @bytes: bytes written into tracked ranges (all bytes when tracking is
 *	off), decayed by lt_track_age()
 * @last_write: host clock (pages) of the label's last write
 * @end: disk byte just past the label's last write into a tracked range
 * @hist: bytes that died at an age (pages) in each bin, decayed like
 *	@bytes; bin 0 is age 0 and bin k >= 1 holds ages in
 *	[2^(k-1), 2^k), the last bin also everything older
 */
struct lt_label {
	u64 key;
	u16 tenant;
	u8 flags;
	u8 idle;
	u32 refs;
	u64 bytes;
	u64 last_write;
	u64 end;
	u64 hist[LT_NR_BINS];
};

/**
 * struct lt_track_stats - counters of one tracker
 * @host_bytes: bytes of the writes given to lt_track_write()
 * @discard_bytes: bytes of the discards and write zeroes given to
 *	lt_track_discard()
 * @dead_bytes: bytes whose death was charged to a label
 * @orphan_bytes: bytes that died while owned by a retired label
 * @dropped_bytes: live bytes the ownership rule stopped tracking
 * @label_overflow: label lookups that found the table full
 * @labels_retired: labels retired for being idle
 * @sweep_passes: complete passes of lt_track_sweep() over the table
 * @mem_bytes: memory held by the owner and label tables
 * @ranges: tracked ranges, one per owner table entry; 0 when tracking is
 *	off
 * @range_bytes: size of one range
 * @off: times the owner table could not be set up within the memory cap
 * @alloc_failed: failed allocations: of the owner table (tracking is off)
 *	or of a new layout (the installed one stays)
 */
struct lt_track_stats {
	u64 host_bytes;
	u64 discard_bytes;
	u64 dead_bytes;
	u64 orphan_bytes;
	u64 dropped_bytes;
	u64 label_overflow;
	u64 labels_retired;
	u64 sweep_passes;
	u64 mem_bytes;
	u64 ranges;
	u64 range_bytes;
	u32 off;
	u32 alloc_failed;
};

/**
 * struct lt_track - death tracker of one disk
 * @owner: owner table, one entry per tracked range; NULL when tracking is
 *	off
 * @label: label table, LT_MAX_LABELS slots, slot 0 the unknown label
 * @capacity: disk size in bytes
 * @nr_ranges: ranges on the disk
 * @nr_slots: entries in @owner: one per block of 2^@sample_shift ranges
 * @sweep_pos: next entry lt_track_sweep() visits
 * @range_shift: log2 of the range size in bytes
 * @sub_shift: log2 of the sub-block size in bytes
 * @time_shift: log2 of the owner table's time unit in pages
 * @sample_shift: one range in each block of 2^@sample_shift is tracked
 *	(see lt_range_slot()); 0 tracks them all
 * @on: the owner table exists and deaths are tracked
 * @geom: @on, @range_shift and @sample_shift in one word (lt_geom()),
 *	for the readers without the caller's lock: lt_track_resize()
 *	changes them, and one READ_ONCE() gives a set that belongs together
 * @last_sector: the disk's last sector
 * @nr_free: free label slots on @free
 * @free: stack of free label slots
 * @hash: open-addressed index of (key, tenant) to label slot, 0 = empty
 * @stats: counters
 */
struct lt_track {
	struct lt_owner *owner;
	struct lt_label *label;
	u64 capacity;
	u64 nr_ranges;
	u64 nr_slots;
	u64 sweep_pos;
	u8 range_shift;
	u8 sub_shift;
	u8 time_shift;
	u8 sample_shift;
	bool on;
	u16 nr_free;
	u32 geom;
	u64 last_sector;
	u16 free[LT_MAX_LABELS];
	u16 hash[LT_HASH_SIZE];
	struct lt_track_stats stats;
};

/**
 * struct lt_track_size - the sizes of an owner table, and the table
 * @owner: the table; NULL when tracking is off.  After lt_track_resize(),
 *	the old table
 * @nr_slots: entries in @owner
 * @range_shift: log2 of the range size in bytes, when @owner is set
 * @sample_shift: one range in 2^@sample_shift is tracked
 * @alloc_failed: tracking is off because @owner could not be allocated
 * @sub_shift: after lt_track_resize(), the old table's sub-block shift
 * @was: after lt_track_resize(), the old sampling shift of label counts
 *	(0 while tracking was off: every byte counted)
 * @will: the new one
 * @stranded: where lt_track_resize() notes the labels, for
 *	lt_track_count_stranded(); the caller's, or NULL
 */
struct lt_track_size {
	struct lt_owner *owner;
	u64 nr_slots;
	u8 range_shift;
	u8 sample_shift;
	bool alloc_failed;
	u8 sub_shift;
	u8 was;
	u8 will;
	struct lt_stranded *stranded;
};

/**
 * struct lt_stranded - the live data an old owner table leaves behind
 * @key: each label's key at lt_track_resize(), 0 for none
 * @tenant: and its tenant
 * @live: lt_track_count_stranded(): each label's live bytes in the old
 *	table younger than the reclaim age, whose deaths the new one cannot
 *	see
 */
struct lt_stranded {
	u64 key[LT_MAX_LABELS];
	u16 tenant[LT_MAX_LABELS];
	u64 live[LT_MAX_LABELS];
};

/**
 * struct lt_rec - one write or invalidation, logged for the tracker
 * @stamp: when it was submitted, on the submitting CPU's clock
 * @sector: first sector
 * @key: label key of a write; 0 for a discard or write-zeroes
 * @nr_sectors: length in sectors
 * @tenant: tenant index of a write, with %LT_TENANT_PLACED if an earlier
 *	rule placed it
 * @name: name of the write's file class or thread, for display
 */
struct lt_rec {
	u64 stamp;
	u64 sector;
	u64 key;
	u32 nr_sectors;
	u16 tenant;
	char name[LT_NAME_LEN];
};

/**
 * struct lt_log_cursor - a log being replayed by lt_log_next()
 * @rec: its records, in stamp order
 * @len: records in @rec
 * @pos: next record to return
 */
struct lt_log_cursor {
	const struct lt_rec *rec;
	u32 len;
	u32 pos;
};

/**
 * struct lt_budget - the streams io.stream gives one tenant as a budget
 * @nr: streams in @streams; fewer than 2 is no budget
 * @streams: the streams, each non-zero and distinct; the tenant's class
 *	c, 0 the longest-lived, goes on @streams[c]
 *
 * A tenant with a budget is planned on its budget alone, never on the
 * free streams; budgets of different tenants may share streams.
 */
struct lt_budget {
	u8 nr;
	u8 streams[LT_MAX_STREAMS];
};

/**
 * struct lt_plan_input - what the planner plans from
 * @labels: labels indexed by slot; slot 0 (unknown) is never planned
 * @nr_labels: entries in @labels, at most LT_MAX_LABELS
 * @reclaim_age: age at which survival is scored, in pages of host writes
 * @streams: free stream ids to hand out, each non-zero and distinct
 * @nr_streams: entries in @streams (the budget B)
 * @min_side_pm: smallest side of a boundary, per mille of the tenant's
 *	bytes; 0 means LT_MIN_SIDE_PM
 * @tenants: bitmap of active tenants, 0 for all; only tenants whose
 *	labels have bytes are planned
 * @budgets: LT_MAX_TENANTS entries, each tenant's budget, or NULL for no
 *	budgets; a budget's streams must not be in @streams
 * @prev_stream: @nr_labels entries, the stream each label had in the
 *	layout before, 0 for none; or NULL
 * @prev_tenant_stream: LT_MAX_TENANTS entries, each tenant's stream in the
 *	layout before, 0 for none; or NULL.  With either, the classes
 *	planned on @streams, or on a budget that tenants share, keep those
 *	streams where they can
 * @prev_owners: bitmap of the tenants that had a stream of their own in
 *	the layout before (lt_plan_owners()), less those whose slot was
 *	given back since.  When tenants share streams, such a tenant whose
 *	stream in @prev_tenant_stream is one of the pool's counts twice its
 *	bytes for a stream of its own
 * @rank: @nr_labels entries, where each label's writer put its data in
 *	an order of lifetimes, from 1 (shortest) up, at most LT_RANK_MAX,
 *	0 for nowhere; or NULL.  Labels whose survivals tie sort by it, and
 *	a boundary between two ranks takes a stream that no measured
 *	boundary is worth
 */
struct lt_plan_input {
	const struct lt_label *labels;
	u16 nr_labels;
	u64 reclaim_age;
	const u8 *streams;
	u8 nr_streams;
	u16 min_side_pm;
	u64 tenants;
	const struct lt_budget *budgets;
	const u8 *prev_stream;
	const u8 *prev_tenant_stream;
	u64 prev_owners;
	const u8 *rank;
};

/*
 * Highest rank of struct lt_plan_input's @rank, so that a tenant's ranks
 * fit a byte (struct lt_layout @tenant_ranks); the policy's go to
 * BLK_STREAM_KEY_RANKS.
 */
#define LT_RANK_MAX		7

/**
 * struct lt_layout_stream - one stream of a layout
 * @bytes: bytes of the labels placed on it
 * @survival: their survival at the reclaim age
 * @tenant: the tenant it serves, LT_TENANT_SHARED if several share it
 * @stream: the stream id
 * @class: class number inside the tenant, 0 the longest-lived
 */
struct lt_layout_stream {
	u64 bytes;
	u32 survival;
	u16 tenant;
	u8 stream;
	u8 class;
};

/**
 * struct lt_commit - one boundary the planner gave a stream, in order
 * @worth: estimated garbage-collection copies saved, in bytes
 * @surv_long: survival of the longer-lived side
 * @surv_short: survival of the shorter-lived side
 * @tenant: tenant whose class was split
 * @label: first (longest-lived) label of the shorter-lived side
 * @slot: index in the layout's streams of the stream of the class it
 *	starts (one its tenant's boundaries added: its classes take them
 *	in the order they were added, not always that of their cuts)
 * @by_rank: the boundary is between two ranks whose survivals tie: it
 *	was cut by the writers' hints alone, with no measured worth
 */
struct lt_commit {
	u64 worth;
	u32 surv_long;
	u32 surv_short;
	u16 tenant;
	u16 label;
	u8 slot;
	u8 by_rank;
};

/**
 * struct lt_layout - the planner's result
 * @label_stream: stream of each label slot, 0 for labels of tenants that
 *	get no stream
 * @label_class: class of each label inside its tenant
 * @tenant_stream: each tenant's default stream (its class 0), which also
 *	takes the tenant's writes of unknown or unplanned labels; 0 if none
 * @tenant_classes: classes of each tenant
 * @tenant_ranks: bitmap of the ranks (struct lt_plan_input) whose labels
 *	hold at least min_side_pm of each planned tenant's bytes
 * @stream: the streams handed out: the free ones, then those of the
 *	budgets, each once, by tenant and class (each pool in the order
 *	of its streams, unless the input gave the layout before)
 * @commit: boundaries in the order they were committed: on the free
 *	streams, then inside each budget
 * @total_worth: sum of the committed boundaries' worth, in bytes
 * @reclaim_age: the reclaim age planned for, in pages
 * @nr_tenants: tenants planned
 * @nr_streams: entries used in @stream
 * @nr_commits: entries in @commit
 * @nr_shared: tenants sharing a stream, 0 when each has its own
 * @nr_groups: streams shared by several tenants
 */
struct lt_layout {
	u8 label_stream[LT_MAX_LABELS];
	u8 label_class[LT_MAX_LABELS];
	u8 tenant_stream[LT_MAX_TENANTS];
	u8 tenant_classes[LT_MAX_TENANTS];
	u8 tenant_ranks[LT_MAX_TENANTS];
	struct lt_layout_stream stream[LT_MAX_STREAMS];
	struct lt_commit commit[LT_MAX_STREAMS];
	u64 total_worth;
	u64 reclaim_age;
	u16 nr_tenants;
	u8 nr_streams;
	u8 nr_commits;
	u16 nr_shared;
	u8 nr_groups;
};

/**
 * struct lt_plan_work - scratch space of lt_plan(), allocated by the caller
 * @pre_bytes: prefix sums of bytes over @order
 * @pre_dead: prefix sums of bytes dead before the reclaim age over @order
 * @tenant_bytes: bytes of each tenant
 * @min_side: smallest allowed side of each tenant, in bytes
 * @slot_bytes: bytes placed on each stream slot
 * @slot_dead: bytes dead before the reclaim age on each stream slot
 * @surv: survival of each label slot
 * @order: planned label slots by tenant, then survival, longest-lived first
 * @first: each tenant's first position in @order
 * @end: each tenant's end position in @order
 * @torder: active tenants by bytes, largest first
 * @own: each tenant's own stream slot plus one, 0 if none
 * @share: the slot plus one of the stream a tenant shares, 0 if none
 * @cut: a class starts at this position of @order
 * @gpre_bytes: prefix sums of bytes over @gorder
 * @gpre_dead: prefix sums of bytes dead before the reclaim age over @gorder
 * @gorder: tenants by survival, longest-lived first
 * @gcut: a tenant group starts at this position of @gorder
 * @tsurv: survival of each tenant
 * @ggroup: first position in @gorder of each tenant's group
 * @gsize: tenants left in the group that starts at each position
 * @gslot: the slot plus one of the group that starts at each position
 * @bslot: index plus one in the layout's streams of each budget stream
 *	given out, 0 if none
 * @kbytes: bytes of each (slot, previous stream) pair of lt_plan_keep()
 * @kslot: the pair's stream slot
 * @kprev: the pair's index in the pool's streams of the previous stream
 * @kto: index in the pool's streams that each slot is given
 * @ktaken: the pool's streams already given by lt_plan_keep()
 * @kpos: position plus one in the pool's streams of each stream id
 * @kmap: each stream id before lt_plan_keep(), to the one after
 */
struct lt_plan_work {
	u64 pre_bytes[LT_MAX_LABELS + 1];
	u64 pre_dead[LT_MAX_LABELS + 1];
	u64 tenant_bytes[LT_MAX_TENANTS];
	u64 min_side[LT_MAX_TENANTS];
	u64 slot_bytes[LT_MAX_STREAMS];
	u64 slot_dead[LT_MAX_STREAMS];
	u32 surv[LT_MAX_LABELS];
	u16 order[LT_MAX_LABELS];
	u16 first[LT_MAX_TENANTS];
	u16 end[LT_MAX_TENANTS];
	u16 torder[LT_MAX_TENANTS];
	u16 own[LT_MAX_TENANTS];
	u16 share[LT_MAX_TENANTS];
	bool cut[LT_MAX_LABELS + 1];
	u64 gpre_bytes[LT_MAX_TENANTS + 1];
	u64 gpre_dead[LT_MAX_TENANTS + 1];
	u16 gorder[LT_MAX_TENANTS];
	bool gcut[LT_MAX_TENANTS + 1];
	u32 tsurv[LT_MAX_TENANTS];
	u16 ggroup[LT_MAX_TENANTS];
	u16 gsize[LT_MAX_TENANTS];
	u16 gslot[LT_MAX_TENANTS];
	u16 bslot[LT_MAX_STREAMS + 1];
	u64 kbytes[LT_MAX_LABELS + LT_MAX_TENANTS];
	u8 kslot[LT_MAX_LABELS + LT_MAX_TENANTS];
	u8 kprev[LT_MAX_LABELS + LT_MAX_TENANTS];
	u8 kto[LT_MAX_STREAMS];
	bool ktaken[LT_MAX_STREAMS];
	u8 kpos[LT_MAX_STREAMS + 1];
	u8 kmap[LT_MAX_STREAMS + 1];
};

/* lt-track.c */
int lt_track_range_shift(u64 nr_sectors, u32 range_size,
			 unsigned int sample_shift, u64 mem_cap);
unsigned int lt_track_time_shift(u64 capacity);
int lt_track_init(struct lt_track *t, u64 nr_sectors, u32 range_size,
		  unsigned int sample_shift, u64 mem_cap);
int lt_track_size_alloc(const struct lt_track *t, struct lt_track_size *sz,
			u32 range_size, unsigned int sample_shift, u64 mem_cap);
void lt_track_resize(struct lt_track *t, struct lt_track_size *sz);
void lt_track_count_stranded(struct lt_track_size *sz, u64 now, u64 horizon,
			     unsigned int time_shift);
void lt_track_unstrand(struct lt_track *t, const struct lt_track_size *sz);
void lt_track_exit(struct lt_track *t);
bool lt_track_sampled_slow(const struct lt_track *t, u64 sector,
			   u32 nr_sectors);
u16 lt_label_get(struct lt_track *t, u64 key, u16 tenant);
void lt_track_write(struct lt_track *t, u64 sector, u32 nr_sectors,
		    u16 label, u64 now);
void lt_track_discard(struct lt_track *t, u64 sector, u32 nr_sectors,
		      u64 now);
void lt_track_age(struct lt_track *t);
void lt_track_forget_tenant(struct lt_track *t, u16 tenant);
u64 lt_track_sweep(struct lt_track *t, u64 now, u64 budget);
u64 lt_track_period_turn(struct lt_track *t, u64 act[][LT_MAX_TENANTS],
			 unsigned int *period, unsigned int *since_age);
void lt_track_period_end(struct lt_track *t, u64 act[][LT_MAX_TENANTS],
			 unsigned int *period, unsigned int *since_age, u64 now);
int lt_track_check(const struct lt_track *t);
unsigned int lt_age_bin(u64 age);
const struct lt_rec *lt_log_next(struct lt_log_cursor *c, unsigned int n);

/* Whether @range_size may be asked for: 0 (automatic) or a range size. */
static inline bool lt_range_size_ok(u32 range_size)
{
	return !range_size ||
	       (is_power_of_2(range_size) &&
		range_size >= (1U << LT_MIN_RANGE_SHIFT) &&
		range_size <= (1U << LT_MAX_RANGE_SHIFT));
}

/*
 * The tracker's geometry in one word: the range size in sectors while
 * ranges are sampled (tracking on and sample_shift not 0, else 0: the
 * inline path of lt_track_sampled() in one field), sample_shift,
 * range_shift (always a valid range size, also while tracking is off)
 * and whether tracking is on.
 */
static inline u32 lt_geom(bool on, unsigned int range_shift,
			  unsigned int sample_shift)
{
	return (on && sample_shift ? range_shift - LT_SECTOR_SHIFT : 0) |
	       sample_shift << 8 | range_shift << 16 | (u32)on << 24;
}

static inline unsigned int lt_geom_sampled(u32 g)
{
	return g & 0xff;
}

static inline unsigned int lt_geom_sample(u32 g)
{
	return (g >> 8) & 0xff;
}

static inline unsigned int lt_geom_range(u32 g)
{
	return (g >> 16) & 0xff;
}

static inline bool lt_geom_on(u32 g)
{
	return g >> 24;
}

/*
 * Whether range @r is the one its block of 2^sample_shift ranges
 * tracks: the one at the offset the block's index hashes to, by
 * hash_64()'s multiplicative hash.  Only while sampling (@g's
 * sample_shift not 0).
 */
static inline bool lt_range_picked(u32 g, u64 r)
{
	unsigned int s = lt_geom_sample(g);
	u64 h = (r >> s) * GOLDEN_RATIO_64;

	return (r & ((1ULL << s) - 1)) == h >> (64 - s);
}

/*
 * The owner table entry of range @r under geometry @g, or -1 if @r is not
 * tracked: its block of 2^sample_shift ranges tracks one range
 * (lt_range_picked()), in the block's entry.
 */
static inline s64 lt_geom_slot(u32 g, u64 r)
{
	if (!lt_geom_sample(g))
		return r;
	if (!lt_range_picked(g, r))
		return -1;
	return r >> lt_geom_sample(g);
}

/* lt_geom_slot() under the caller's lock. */
static inline s64 lt_range_slot(const struct lt_track *t, u64 r)
{
	return lt_geom_slot(t->geom, r);
}

/*
 * lt_track_sampled()'s inline path: 1 if a write or discard touches a
 * tracked range, 0 if not, -1 if only lt_track_sampled_slow() can tell.
 * One within a single range, most of them, costs a few shifts, a
 * multiply and a compare.  For callers that keep calls off their common
 * path.
 */
static inline int lt_track_sampled_fast(const struct lt_track *t, u64 sector,
					u32 nr_sectors)
{
	u32 g = READ_ONCE(t->geom);
	unsigned int shift = lt_geom_sampled(g);
	u64 r;

	if (unlikely(!shift || !nr_sectors))
		return -1;
	r = sector >> shift;
	/* In one range, which may be the last, partial one: tracked or not. */
	if (unlikely((sector + nr_sectors - 1) >> shift != r ||
		     r > t->last_sector >> shift))
		return -1;
	return lt_range_picked(g, r);
}

/**
 * lt_track_sampled() - does a write or discard touch a tracked range?
 * @t: tracker
 * @sector: first sector
 * @nr_sectors: length in sectors
 *
 * Reads the geometry in one word and what lt_track_init() set, so it may
 * run without the caller's lock.  When tracking is off every write counts
 * as sampled, since labels still count written bytes.  Inline, as every
 * write asks.
 *
 * Return: true if lt_track_write() or lt_track_discard() of the same
 * sectors would change the owner table or the labels, and for a write
 * past the end of the disk inside its last, partial range if that range
 * is tracked.
 */
static inline bool lt_track_sampled(const struct lt_track *t, u64 sector,
				    u32 nr_sectors)
{
	int v = lt_track_sampled_fast(t, sector, nr_sectors);

	return v < 0 ? lt_track_sampled_slow(t, sector, nr_sectors) : v;
}

/*
 * Most ranges one call of lt_track_write() or lt_track_discard() is given
 * by a caller that bounds its time with interrupts off: a write or
 * discard over more goes in parts (lt_track_chunk()).  Each range costs a
 * few instructions, and a tracked one an owner entry's update.
 */
#define LT_CHUNK_RANGES		1024

/**
 * lt_track_chunk() - the first part of a write or discard, bounded
 * @t: tracker
 * @sector: first sector
 * @nr_sectors: length in sectors
 *
 * Parts end on range boundaries, so that the tracker does to each range
 * what it would do for the whole.
 *
 * Return: the sectors from @sector that touch at most LT_CHUNK_RANGES
 * ranges; @nr_sectors when tracking is off, as every call is O(1) then.
 */
static inline u32 lt_track_chunk(const struct lt_track *t, u64 sector,
				 u32 nr_sectors)
{
	u32 g = READ_ONCE(t->geom);
	unsigned int shift;
	u64 end;

	if (!lt_geom_on(g))
		return nr_sectors;
	shift = lt_geom_range(g) - LT_SECTOR_SHIFT;
	end = ((sector >> shift) + LT_CHUNK_RANGES) << shift;
	return min(end - sector, (u64)nr_sectors);
}

/* Slot of (key, tenant) in an open-addressed index of LT_HASH_SIZE. */
static inline u32 lt_hash(u64 key, u16 tenant)
{
	return hash_64(key ^ ((u64)tenant << 48) ^ tenant, LT_HASH_BITS);
}

/**
 * lt_track_write_zeroes() - account a write-zeroes command
 * @t: tracker
 * @sector: first sector
 * @nr_sectors: length in sectors
 * @now: host clock in pages
 *
 * Zeroed blocks hold no data worth keeping, so they die like discarded
 * ones and nobody owns them afterwards.
 */
static inline void lt_track_write_zeroes(struct lt_track *t, u64 sector,
					 u32 nr_sectors, u64 now)
{
	lt_track_discard(t, sector, nr_sectors, now);
}

/* lt-plan.c */
u32 lt_log2_frac(u64 x);
u64 lt_dead_before(const u64 *hist, u64 age);
u32 lt_survival(u64 bytes, u64 dead);
u64 lt_worth(u64 bytes_long, u32 surv_long, u32 surv_short);

/**
 * struct lt_check - what a periodic check decides from
 * @active: active tenants now (lt_active_tenants())
 * @informed: tenants of @active whose lifetimes show now (lt_informed())
 * @installed: a layout is installed
 * @tenants: the active tenants it was planned for
 * @tenants_informed: those of them whose lifetimes showed then
 * @periods: periods (quarters of a reclaim age) that ended since it was
 *	planned, including any this check ages
 * @ranked: tenants of @active that write a rank its plan did not see
 *	(lt_new_ranks())
 */
struct lt_check {
	u64 active;
	u64 informed;
	bool installed;
	u64 tenants;
	u64 tenants_informed;
	u64 periods;
	u64 ranked;
};

u64 lt_plan_owners(const struct lt_layout *l);
int lt_plan(const struct lt_plan_input *in, struct lt_layout *out,
	    struct lt_plan_work *work);
u64 lt_active_tenants(const u64 act[][LT_MAX_TENANTS], unsigned int nr_periods,
		      unsigned int nr_tenants);
u64 lt_informed(const struct lt_label *labels, unsigned int nr_labels,
		u64 tenants);
u64 lt_new_ranks(const struct lt_label *labels, const u8 *rank,
		 const u8 *seen, unsigned int nr_labels, u64 tenants,
		 u16 min_side_pm);
const char *lt_plan_due(const struct lt_check *c);

#endif /* _LT_CORE_H */
