// SPDX-License-Identifier: GPL-2.0
/*
 * lifetime: a write stream placement policy that learns data lifetimes.
 *
 * Selected per disk in queue/write_stream_policy, the policy watches every
 * write and invalidation of the disk (overwrites, discards, write zeroes),
 * labels each write by tenant (cgroup), kind and lifetime hint, and file
 * class (the write class its filesystem gave the bio: the name pattern of
 * the file, fs/write_class.c) or, for a task's write without one, writer
 * thread, and charges each death to the label that wrote the data, binned
 * by age (lt-track.c).  Every quarter of a reclaim age (1/16 until the
 * first layout) a worker looks at which tenants are active and, when they
 * changed, when the operator asks, or once a reclaim age when the plan
 * moved, runs the planner (lt-plan.c): each tenant gets a stream, then the
 * free streams go to the splits between a tenant's labels that save the
 * most garbage-collection copying.  The layout is published with RCU; a
 * bio never sees half of one.
 *
 * Streams that io.stream pins a cgroup to are left to those cgroups, and
 * writes that an earlier rule placed are tracked but not planned.  A
 * cgroup that io.stream gives several streams (a budget) is planned on
 * them, together with the cgroups that have the same budget: its classes
 * are spread over its budget, and it takes none of the free streams.
 * Memory is bounded per disk (the owner table's cap); when it cannot be
 * had the disk gets no placement, and that is counted.
 *
 * Bios do not serialise on the tracker.  A bio's tenant and stream are
 * read from tables that only grow (tenants) or are replaced whole under
 * RCU (the layout, indexed by label key), and what the tracker needs of it
 * goes into a small per-CPU log.  The bio that fills its CPU's log, and
 * anyone about to read the tracker, replays the logs of all CPUs into the
 * tracker under the disk's lock, merged in the order the bios were
 * submitted (lt_log_next()), so a discard and a rewrite of the same blocks
 * from two CPUs are seen in the order they happened.
 *
 * Files: /sys/block/<disk>/queue/lifetime/ for settings, and
 * /sys/kernel/debug/block/<disk>/lifetime/ for state.  See
 * Documentation/block/write-stream-lifetime.rst.
 *
 * The policy can also run in shadow (queue/write_stream_shadow), as a
 * second instance on a disk whose live policy may be lifetime too.  The
 * two share nothing; the shadow's files are lifetime_shadow/ in both
 * places, with the same settings, so that its reclaim age comes from the
 * same input.  Its choices can still differ from a live instance's on
 * the same writes: the layout is planned by a worker, asynchronously, so
 * each instance starts a new layout at a slightly different write, and
 * the tracker samples and logs per CPU, so the bios folded in before a
 * plan differ too.
 */
#include <linux/bio.h>
#include <linux/blk-cgroup.h>
#include <linux/blk-stream.h>
#include <linux/blkdev.h>
#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/jump_label_ratelimit.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>
#include <linux/write_class.h>

#include "lt-core.h"

#define CREATE_TRACE_POINTS
#include "lifetime_trace.h"

/* Where a label's file class comes from. */
enum lt_src {
	LT_SRC_NONE,	/* nothing: writeback of a page with no file */
	LT_SRC_FILE,	/* the name pattern of a page-cache write's file */
	LT_SRC_THREAD,	/* the writing task's name pattern */
	LT_SRC_BDEV,	/* a block device's own page cache (fs metadata) */
};

static const char *const lt_src_name[] = {
	[LT_SRC_NONE] = "none", [LT_SRC_FILE] = "file",
	[LT_SRC_THREAD] = "thread", [LT_SRC_BDEV] = "bdev",
};

static const char *const lt_hint_name[] = {
	"not_set", "none", "short", "medium", "long", "extreme",
	"journal", "metadata",
};

#define LT_HISTORY	8
#define LT_LOG_LEN	32

/**
 * struct lt_memo - a CPU's last label, for the next write from the same
 *	place
 * @src: lt_bio_src() of the write: &lt_class_src for a write class,
 *	the submitting task for a thread's label, or NULL for a label of
 *	the hint alone
 * @id: the class, or the task's pid against the reuse of a freed task
 * @blkg: the write's cgroup on this disk (lt_bio_blkg()); only compared
 * @tag: lt_memo_tag() of the write's hint and the layout it looked up;
 *	0 for an empty memo
 * @stamp: jiffies when filled; trusted for half a second
 * @key: the label's key
 * @tenant: the tenant slot of the write's cgroup
 * @stream: the stream the layout gave
 * @pages: pages of this label's writes that touch no tracked range, not
 *	yet in the CPU's counts (lt_memo_flush()); only this CPU writes it
 * @name: the label's name, for a tracked write that makes a new label
 */
struct lt_memo {
	const void *src;
	unsigned long id;
	const void *blkg;
	u64 tag;
	unsigned long stamp;
	u64 key;
	u16 tenant;
	u8 stream;
	u64 pages;
	char name[LT_NAME_LEN];
};

/**
 * struct lt_log - one CPU's log of bios not yet given to the tracker
 * @lock: @cur and the length of the half it names, against a replay
 *	from another CPU
 * @cur: the half bios are logged into; the replay takes the other
 * @len: records in each half
 * @pages: pages written by the records of each half
 * @ranges: owner table ranges the records of each half touch
 * @rec: the two halves
 * @stream_pages: pages this CPU's bios were sent to each stream with by
 *	this policy, but for those @memo still holds
 * @skipped_pages: pages of this CPU's writes that touch no tracked range
 *	and were not logged, ever, but for those @memo still holds
 * @skipped_act: the same per tenant
 * @folded_pages: lt_skipped_sum() when last added to the clock
 * @folded_act: @skipped_act when last added to the activity by a replay
 * @memo: the label of this CPU's last write from a task (see lt_decide())
 */
struct lt_log {
	spinlock_t lock;	/* @cur, @len[@cur] */
	u8 cur;
	u32 len[2];
	u64 pages[2];
	u64 ranges[2];
	struct lt_rec rec[2][LT_LOG_LEN];
	u64 stream_pages[LT_MAX_STREAMS + 1];
	u64 skipped_pages;
	u64 skipped_act[LT_MAX_TENANTS];
	u64 folded_pages;
	u64 folded_act[LT_MAX_TENANTS];
	struct lt_memo memo;
};

/**
 * struct lt_installed - a layout as bios use it
 * @rcu: to free it after readers are done (first: kvfree_rcu() needs
 *	it near the start)
 * @tag: lt_memo_tag() of a write with no hint under this layout: a
 *	number new on each install and each recycling of tenant slots
 *	(lt_new_tag()) above the hint's bits
 * @tenants: active tenants planned for
 * @informed: tenants whose labels had shown deaths when planned (see
 *	lt_informed())
 * @key: key of each label slot when planned
 * @tenant: tenant of each label slot when planned
 * @hash: open-addressed index from (key, tenant) to the slots that got a
 *	stream of their own, 0 = empty; a bio of a label not in it takes its
 *	tenant's stream
 * @layout: the planner's result
 *
 * About 14 KiB, of which bios read the index, the keys and the layout's
 * stream tables; the rest is for display.  The worker allocates one with
 * kvzalloc() for each layout it installs (one it does not install is
 * kept for the next plan): from the slab while an order-2 block is
 * free, so that a bio's lookups touch few pages, and from vmalloc when
 * memory is fragmented, so that a plan does not fail for it.
 */
struct lt_installed {
	struct rcu_head rcu;
	u64 tag;
	u64 tenants;
	u64 informed;
	u64 key[LT_MAX_LABELS];
	u16 tenant[LT_MAX_LABELS];
	u16 hash[LT_HASH_SIZE];
	struct lt_layout layout;
};

#define LT_TENANT_HASH_BITS	8
#define LT_TENANT_HASH		BIT(LT_TENANT_HASH_BITS)
/* Cgroups the index holds at most, slot owners and sharers: half full. */
#define LT_TENANT_ENTRIES	(LT_TENANT_HASH / 2)
/* The slot that cgroups share when every slot has a cgroup of its own. */
#define LT_TENANT_SHARE		(LT_MAX_TENANTS - 1)

/**
 * struct lt_tenant_index - cgroup id to tenant slot, as bios look it up
 * @rcu: to free it after readers are done
 * @nr: entries in use
 * @key: open-addressed by hash_64() of the key, the cgroup id plus one;
 *	0 = empty.  Entries are only added (under the disk's lock, the slot
 *	before the key); a recycling replaces the whole index
 * @slot: the tenant slot of each entry
 */
struct lt_tenant_index {
	struct rcu_head rcu;
	unsigned int nr;
	u64 key[LT_TENANT_HASH];
	u8 slot[LT_TENANT_HASH];
};

/**
 * struct lt_disk - the policy's state for one disk
 * @disk: the disk
 * @lock: serialises the tracker, the clocks, additions to the tenant
 *	table and replays of @log
 * @log: per-CPU logs of bios for the tracker
 * @logged: CPUs whose log holds records
 * @skipped: CPUs that skipped writes since their last fold (lt_fold())
 * @cursor: scratch of a replay, one per possible CPU
 * @log_pages: pages a CPU's log may hold before it is replayed, so that
 *	the clock and the checks lag the bios by little against a reclaim
 *	age
 * @track: owner table, labels and their histograms
 * @now: host-write clock, 4 KiB pages written
 * @next_check: @now at which the next check is due
 * @next_period: @now at which the next period, a quarter of a reclaim
 *	age, ends
 * @periods_due: periods that ended and that the worker has not aged yet
 * @tindex: the index bios find their tenant slot in (lt_tenant())
 * @tenant_id: cgroup id of each tenant slot in use
 * @tenant_used: bitmap of the tenant slots in use
 * @tenant_dfl: slots whose cgroup is on the unified hierarchy, where the
 *	worker can tell that it was removed
 * @tenant_last: @now when each slot was given out or last wrote into a
 *	tracked range
 * @tenant_sharers: cgroups on each slot: 1, or more on %LT_TENANT_SHARE
 *	once every slot has a cgroup of its own
 * @nr_tenants: one past the highest slot in use
 * @tenants_full: a cgroup found no free slot; the worker is asked to
 *	recycle
 * @tenants_removed: slots recycled because their cgroup was removed
 * @tenants_idle: slots recycled because their cgroup was idle for a
 *	reclaim age
 * @tenant_overflow: cgroups that found no free slot and took
 *	%LT_TENANT_SHARE
 * @sharing_noted: the kernel log was told that cgroups share a slot
 * @share_unindexed: a cgroup on %LT_TENANT_SHARE found the tenant index
 *	full: the index does not name every cgroup on the slot
 * @tags: numbers handed out by lt_new_tag()
 * @bare_tag: lt_memo_tag() of a write with no hint while no layout is
 *	installed
 * @held_since: local_clock() when @lock was taken, with @timing
 * @held_max: the longest @lock was held (interrupts off) in ns, with
 *	@timing
 * @held_max_at: where it was let go then
 * @timing: time @lock (debugfs irqoff_timing), under lt_timing_mutex
 * @act: pages each tenant wrote in each of the last periods
 * @quarter: the period @act counts into
 * @quarters: periods since the last decay of the histograms
 * @names: file class or thread pattern of each label slot, for display
 * @label_key: key @names was filled for
 * @layout: the installed layout, NULL until the first plan
 * @plan_mutex: serialises planning and installing
 * @work: the periodic check and planner
 * @confine_work: queues @work when io.stream changed, at most once per
 *	LT_CONFINE_GAP
 * @confine_next: jiffies before which @confine_work waits; written and
 *	read under the disk's queue_lock
 * @snap: copy of the labels the planner works on
 * @scratch: the planner's scratch space
 * @next: layout being built
 * @budget: each tenant slot's io.stream budget on the disk, as the last
 *	check read it (lt_read_budgets())
 * @budget_planned: the budgets the installed layout was planned with
 * @share_ids: lt_share_budget()'s copy of the shared slot's cgroups
 * @range_size: owner table range size asked for in bytes, 0 for the
 *	default (queue/lifetime/range_size); written under @plan_mutex
 * @min_side: smallest side of a boundary, per mille of the tenant's
 *	bytes
 * @mem_cap: most bytes the owner table may take; written under
 *	@plan_mutex
 * @reclaim_age: reclaim age in pages of host writes, as last computed
 * @age_source: where it came from: "capacity", "media" or "operator"
 * @age_override: operator's reclaim age in pages, 0 for none
 * @media_bytes: last media bytes written the operator fed
 * @media_host: @now when it was fed
 * @media_ratio: host pages per media page, in 1/1024, 0 if unknown
 * @replan: the operator asked for a plan
 * @auto_plan: plan on the worker's own checks, not only when asked
 * @plans: layouts installed
 * @checks: checks run
 * @periods: periods that ended, as the worker aged them
 * @last_plan: jiffies of the last install
 * @last_plan_now: @now at the last install
 * @last_plan_period: @periods at the last plan, installed or not
 * @last_reason: why the last layout was installed
 * @history: the last LT_HISTORY installs: reason and @now
 * @shadow: the instance runs in shadow (queue/write_stream_shadow)
 * @kobj: /sys/block/<disk>/queue/lifetime, or lifetime_shadow in shadow
 * @debugfs: /sys/kernel/debug/block/<disk>/lifetime, or lifetime_shadow
 */
struct lt_disk {
	struct gendisk *disk;
	spinlock_t lock;		/* tracker, tenants, clocks, replay */
	struct lt_log __percpu *log;
	cpumask_var_t logged;
	cpumask_var_t skipped;
	struct lt_log_cursor *cursor;
	u64 log_pages;
	struct lt_track track;
	u64 now;
	u64 next_check;
	u64 next_period;
	unsigned int periods_due;
	struct lt_tenant_index __rcu *tindex;
	u64 tenant_id[LT_MAX_TENANTS];
	u64 tenant_used;
	u64 tenant_dfl;
	u64 tenant_last[LT_MAX_TENANTS];
	u32 tenant_sharers[LT_MAX_TENANTS];
	unsigned int nr_tenants;
	bool tenants_full;
	bool sharing_noted;
	bool share_unindexed;
	u64 tenants_removed;
	u64 tenants_idle;
	u64 tenant_overflow;
	u64 tags;
	u64 bare_tag;
	u64 held_since;
	u64 held_max;
	unsigned long held_max_at;
	bool timing;
	u64 act[LT_QUARTERS][LT_MAX_TENANTS];
	unsigned int quarter;
	unsigned int quarters;
	char names[LT_MAX_LABELS][LT_NAME_LEN];
	u64 label_key[LT_MAX_LABELS];

	struct lt_installed __rcu *layout;
	struct mutex plan_mutex;	/* planning and installing */
	struct work_struct work;
	struct delayed_work confine_work;
	unsigned long confine_next;
	struct lt_label *snap;
	struct lt_plan_work *scratch;
	struct lt_installed *next;
	struct lt_budget budget[LT_MAX_TENANTS];
	struct lt_budget budget_planned[LT_MAX_TENANTS];
	u64 share_ids[LT_TENANT_ENTRIES];

	u32 range_size;
	u32 min_side;
	u64 mem_cap;

	u64 reclaim_age;
	const char *age_source;
	u64 age_override;
	u64 media_bytes;
	u64 media_host;
	u64 media_ratio;
	bool replan;
	bool auto_plan;
	u64 plans;
	u64 checks;
	u64 periods;
	unsigned long last_plan;
	u64 last_plan_now;
	u64 last_plan_period;
	const char *last_reason;
	struct {
		const char *reason;
		u64 now;
	} history[LT_HISTORY];

	bool shadow;
	struct kobject kobj;
	struct dentry *debugfs;
};

/* Serialises the disks' irqoff_timing switches. */
static DEFINE_MUTEX(lt_timing_mutex);

/*
 * With a disk's irqoff_timing debugfs file set, its lock, always held
 * with interrupts off, times how long it is held, and the stats file
 * shows the longest: a measure of the policy's time with interrupts off.
 * A static key, counted by the disks that time: off, it costs a no-op.
 * Its last drop is left to a work item: lt_exit_disk() may run with the
 * queue frozen, where cpu_hotplug_lock must not be taken.
 */
static DEFINE_STATIC_KEY_DEFERRED_FALSE(lt_timing, HZ);

static inline void lt_held(struct lt_disk *ld)
{
	if (static_branch_unlikely(&lt_timing.key) && READ_ONCE(ld->timing))
		ld->held_since = local_clock();
}

static inline void lt_release(struct lt_disk *ld)
{
	u64 d;

	if (static_branch_unlikely(&lt_timing.key) && ld->held_since) {
		d = local_clock() - ld->held_since;
		if (d > ld->held_max) {
			WRITE_ONCE(ld->held_max, d);
			WRITE_ONCE(ld->held_max_at, _THIS_IP_);
		}
		ld->held_since = 0;
	}
}

static inline void lt_lock(struct lt_disk *ld)
{
	spin_lock_irq(&ld->lock);
	lt_held(ld);
}

static inline void lt_unlock(struct lt_disk *ld)
{
	lt_release(ld);
	spin_unlock_irq(&ld->lock);
}

/* --- labels ---------------------------------------------------------- */

/* A thread's label is named as a file's class is. */
static_assert(LT_NAME_LEN == WRITE_CLASS_NAME_LEN);

/*
 * The first sector of a bio on the whole disk.  Placement is decided in
 * submit_bio(), before a partition's bio is remapped to the disk, and one
 * owner table covers the whole disk.
 */
static inline sector_t lt_bio_sector(struct bio *bio)
{
	return bio->bi_iter.bi_sector + bio->bi_bdev->bd_start_sect;
}

/*
 * What a memo knows a write with a write class by: this address, with the
 * class for id.
 */
static const char lt_class_src;

/*
 * Where the label of a write (REQ_OP_WRITE) comes from: the write class
 * its filesystem gave it (fs/write_class.c), with the class in @id, or,
 * for a task's own write without one, the task, with its pid in @id.
 * NULL if the label is the write's hint alone, as for an empty write (a
 * flush) or writeback of a file without a class.
 */
static __always_inline const void *lt_bio_src(struct bio *bio,
					      unsigned long *id)
{
	*id = bio_write_class(bio);
	if (!bio->bi_iter.bi_size)
		return NULL;
	if (*id)
		return &lt_class_src;
	if (in_task() && !(current->flags & PF_KTHREAD)) {
		*id = current->pid;
		return current;
	}
	return NULL;
}

/*
 * The label key of a write from @src and @id (lt_bio_src()) and, if
 * @name is not NULL, a name for a new label.
 */
static u64 lt_src_key(struct bio *bio, const void *src, unsigned long id,
		      char *name)
{
	unsigned int hint = bio_stream_key(bio) & 7;
	enum lt_src kind = LT_SRC_NONE;
	u32 class = 0;

	if (name)
		name[0] = 0;
	if (src == &lt_class_src && id == WRITE_CLASS_BDEV) {
		kind = LT_SRC_BDEV;
	} else if (src == &lt_class_src) {
		class = id;
		kind = LT_SRC_FILE;
		if (name && !write_class_name(class, name, LT_NAME_LEN))
			snprintf(name, LT_NAME_LEN, "class:%04x", class);
	} else if (src == current) {
		unsigned int n = 0;

		class = write_class_pattern(current->comm,
					    strnlen(current->comm,
						    TASK_COMM_LEN),
					    17, name, &n);
		if (name)
			name[n] = 0;
		kind = LT_SRC_THREAD;
	}
	return BIT_ULL(62) | (u64)hint << 56 | (u64)kind << 48 | class;
}

/*
 * The label key of a write and, if @name is not NULL, a name for a new
 * label.
 */
static u64 lt_bio_key(struct bio *bio, char *name)
{
	unsigned long id;
	const void *src;

	src = lt_bio_src(bio, &id);
	return lt_src_key(bio, src, id, name);
}

/* The cgroup a bio is charged to, NULL without one. */
static struct cgroup *lt_bio_cgrp(struct bio *bio)
{
#ifdef CONFIG_BLK_CGROUP
	struct cgroup_subsys_state *css = bio_blkcg_css(bio);

	if (css)
		return css->cgroup;
#endif
	return NULL;
}

/*
 * What the memo knows a bio's cgroup by: its blkg, which is cheaper to
 * read than the cgroup's id and stands for one cgroup on this disk.  It
 * is only compared, never followed.  A blkg freed and another allocated
 * at its address could pass for it while the same file, hint and layout
 * go on, at most for the half second a memo is trusted: a few pages
 * charged to the tenant before, on its stream.
 */
static inline const void *lt_bio_blkg(struct bio *bio)
{
#ifdef CONFIG_BLK_CGROUP
	return bio->bi_blkg;
#else
	return NULL;
#endif
}

/*
 * Tenant slots
 * ============
 *
 * Each cgroup that writes to the disk gets a tenant slot of its own, up
 * to LT_MAX_TENANTS; the planner keeps tenants apart by slot.  A bio finds
 * its cgroup's slot in O(1), in an RCU-protected hash index, with no lock;
 * only a cgroup's first bio takes the disk's lock to be given a slot.
 * The worker gives slots back (lt_tenants_recycle()) when their cgroup
 * was removed, or when it neither wrote for the policy nor into a tracked
 * range for a reclaim age.  Only when every slot has a cgroup of its own
 * that is still there and writing do new cgroups share slot
 * %LT_TENANT_SHARE; that is counted, shown in the layout and logged, and
 * the worker is woken to look for a slot to give back.
 */

/* The slot of cgroup id @cgid in @ti, or -1. */
static int lt_tenant_find(const struct lt_tenant_index *ti, u64 cgid)
{
	u64 key = cgid + 1, v;
	u32 h = hash_64(key, LT_TENANT_HASH_BITS), n;

	for (n = 0; n < LT_TENANT_HASH; n++) {
		/* Pairs with the release in lt_tenant_insert(). */
		v = smp_load_acquire(&ti->key[h]);
		if (v == key)
			return ti->slot[h];
		if (!v)
			break;
		h = (h + 1) & (LT_TENANT_HASH - 1);
	}
	return -1;
}

/* Add @cgid on @slot to @ti, if it has room; under the disk's lock. */
static bool lt_tenant_insert(struct lt_tenant_index *ti, u64 cgid, u16 slot)
{
	u64 key = cgid + 1;
	u32 h = hash_64(key, LT_TENANT_HASH_BITS);

	if (ti->nr >= LT_TENANT_ENTRIES)
		return false;
	while (ti->key[h])
		h = (h + 1) & (LT_TENANT_HASH - 1);
	ti->slot[h] = slot;
	/* The slot before the key that finds it. */
	smp_store_release(&ti->key[h], key);
	ti->nr++;
	return true;
}

/* Give cgroup @cg (id @cgid) a tenant slot: a free one, or the shared one. */
static noinline u16 lt_tenant_add(struct lt_disk *ld, struct cgroup *cg,
				  u64 cgid)
{
	struct lt_tenant_index *ti;
	unsigned long flags;
	int slot;

	spin_lock_irqsave(&ld->lock, flags);
	lt_held(ld);
	ti = rcu_dereference_protected(ld->tindex, lockdep_is_held(&ld->lock));
	slot = lt_tenant_find(ti, cgid);
	if (slot >= 0)
		goto out;
	if (ld->tenant_used != U64_MAX) {
		slot = __ffs64(~ld->tenant_used);
		ld->tenant_used |= BIT_ULL(slot);
		ld->tenant_id[slot] = cgid;
		ld->tenant_last[slot] = ld->now;
		ld->tenant_sharers[slot] = 1;
		ld->tenant_dfl &= ~BIT_ULL(slot);
		if (cg && cg->root == &cgrp_dfl_root)
			ld->tenant_dfl |= BIT_ULL(slot);
		ld->nr_tenants = max_t(unsigned int, ld->nr_tenants, slot + 1);
		lt_tenant_insert(ti, cgid, slot);
		goto out;
	}
	slot = LT_TENANT_SHARE;
	ld->tenant_overflow++;
	/* Uncounted and looked up again if the index is full. */
	if (lt_tenant_insert(ti, cgid, slot))
		ld->tenant_sharers[slot]++;
	else
		ld->share_unindexed = true;
	if (!ld->tenants_full) {
		ld->tenants_full = true;
		queue_work(system_dfl_wq, &ld->work);
	}
out:
	lt_release(ld);
	spin_unlock_irqrestore(&ld->lock, flags);
	return slot;
}

/* The tenant slot of a bio's cgroup.  Under RCU, as the decision point is. */
static u16 lt_tenant(struct lt_disk *ld, struct bio *bio)
{
	struct cgroup *cg = lt_bio_cgrp(bio);
	u64 cgid = cg ? cgroup_id(cg) : 0;
	int slot;

	slot = lt_tenant_find(rcu_dereference(ld->tindex), cgid);
	return slot >= 0 ? slot : lt_tenant_add(ld, cg, cgid);
}

/* --- per bio --------------------------------------------------------- */

/* Pages of host writes in a period: a quarter of the reclaim age. */
static u64 lt_period(const struct lt_disk *ld)
{
	return max(ld->reclaim_age / LT_QUARTERS, 1ULL);
}

/*
 * @now at which the next check is due.  Each period ends with a check.
 * Until the first layout is installed, there are more checks in between,
 * every 1/16 of a reclaim age and at most LT_FIRST_STEP_MAX apart, so
 * that a new disk's tenants are kept apart early rather than after a
 * quarter of a large disk was written.  Those checks only plan: the
 * periods, which age what the policy learned, stay as they are.
 */
static u64 lt_next_check(const struct lt_disk *ld)
{
	u64 step;

	if (rcu_access_pointer(ld->layout))
		return ld->next_period;
	step = min(ld->reclaim_age / (LT_QUARTERS * LT_QUARTERS),
		   LT_FIRST_STEP_MAX);
	return min(ld->now + max(step, 1ULL), ld->next_period);
}

static void lt_clock(struct lt_disk *ld, u64 pages)
{
	lockdep_assert_held(&ld->lock);
	ld->now += pages;
	if (ld->now < ld->next_check)
		return;
	if (ld->now >= ld->next_period) {
		ld->next_period = ld->now + lt_period(ld);
		ld->periods_due++;
	}
	ld->next_check = lt_next_check(ld);
	queue_work(system_dfl_wq, &ld->work);
}

/* A shorter reclaim age brings the next period and check forward. */
static void lt_check_soon(struct lt_disk *ld)
{
	lockdep_assert_held(&ld->lock);
	ld->next_period = min(ld->next_period, ld->now + lt_period(ld));
	ld->next_check = min(ld->next_check, lt_next_check(ld));
}

/*
 * Give one bio to the tracker: a write of @key and @tenant named @name, or
 * with @key 0 an invalidation.  A write with %LT_TENANT_PLACED in @tenant
 * adds nothing to the tenant's activity: the policy does not place it.
 */
static void lt_apply_bio(struct lt_disk *ld, u64 sector, u32 nr_sectors,
			 u64 key, u16 tenant, const char *name)
{
	bool placed = tenant & LT_TENANT_PLACED;
	u64 pages;
	u16 label;

	lockdep_assert_held(&ld->lock);
	if (!key) {
		lt_track_discard(&ld->track, sector, nr_sectors, ld->now);
		return;
	}
	tenant &= ~LT_TENANT_PLACED;
	pages = DIV_ROUND_UP((u64)nr_sectors << LT_SECTOR_SHIFT, LT_PAGE_SIZE);
	label = lt_label_get(&ld->track, key, tenant);
	if (label != LT_LABEL_UNKNOWN && ld->label_key[label] != key) {
		ld->label_key[label] = key;
		strscpy(ld->names[label], name);
	}
	lt_track_write(&ld->track, sector, nr_sectors, label, ld->now);
	ld->tenant_last[tenant] = ld->now;
	if (!placed)
		ld->act[ld->quarter][tenant] += pages;
	lt_clock(ld, pages);
}

/* Give one logged bio to the tracker. */
static void lt_apply(struct lt_disk *ld, const struct lt_rec *r)
{
	lt_apply_bio(ld, r->sector, r->nr_sectors, r->key, r->tenant, r->name);
}

/*
 * Pages of a CPU's writes that touched no tracked range: those in its
 * counts and those still in its memo.  The memo's owner empties the memo
 * before it adds its pages to the counts (lt_memo_flush()), and this
 * reads them the other way round, so a read from another CPU may miss
 * pages on their way but never counts them twice: the sum never runs
 * ahead of what was written, and lags it only while writes run.
 */
static u64 lt_skipped_sum(const struct lt_log *log)
{
	u64 v = READ_ONCE(log->skipped_pages);

	/* Pairs with the smp_wmb() in lt_memo_flush(). */
	smp_rmb();
	return v + READ_ONCE(log->memo.pages);
}

/*
 * Add the pages of @log's skipped writes since its last fold, those in
 * its memo included, to the clock alone; lt_fold() adds those in the
 * counts to their tenants' activity.
 */
static void lt_fold_clock(struct lt_disk *ld, struct lt_log *log)
{
	u64 v, pages;

	lockdep_assert_held(&ld->lock);
	v = lt_skipped_sum(log);
	if (v <= log->folded_pages)
		return;
	pages = v - log->folded_pages;
	WRITE_ONCE(log->folded_pages, v);
	lt_clock(ld, pages);
}

/*
 * Add the pages of @cpu's skipped writes since its last fold to the clock
 * and to their tenants' activity.  Only the disk lock's holder writes the
 * folded counts; the skipped ones only grow.
 */
static void lt_fold(struct lt_disk *ld, unsigned int cpu)
{
	struct lt_log *log = per_cpu_ptr(ld->log, cpu);
	unsigned int i, n = ld->nr_tenants;	/* set under ld->lock */
	u64 v;

	lockdep_assert_held(&ld->lock);
	for (i = 0; i < n; i++) {
		v = READ_ONCE(log->skipped_act[i]);
		ld->act[ld->quarter][i] += v - log->folded_act[i];
		log->folded_act[i] = v;
	}
	lt_fold_clock(ld, log);
}

/* Replay every CPU's log into the tracker, in submission order. */
static void lt_replay_logs(struct lt_disk *ld)
{
	const struct lt_rec *r;
	unsigned int cpu, n = 0;

	lockdep_assert_held(&ld->lock);
	for_each_cpu(cpu, ld->logged) {
		struct lt_log *log = per_cpu_ptr(ld->log, cpu);
		unsigned int half;

		spin_lock(&log->lock);
		cpumask_clear_cpu(cpu, ld->logged);
		half = log->cur;
		ld->cursor[n++] = (struct lt_log_cursor) {
			.rec = log->rec[half], .len = log->len[half],
		};
		/*
		 * The half read stays as it is until the next replay, which
		 * cannot start before this one ends.
		 */
		log->len[half] = 0;
		log->pages[half] = 0;
		log->ranges[half] = 0;
		log->cur ^= 1;
		spin_unlock(&log->lock);
	}
	while ((r = lt_log_next(ld->cursor, n)))
		lt_apply(ld, r);
}

/*
 * Replay every CPU's log into the tracker (lt_replay_logs()).  Each
 * logged CPU's halves are swapped under its log lock, so its bios go on
 * logging into the other half while this one is read.  The writes CPUs
 * skipped go to the clock first: those of the CPUs that marked
 * themselves in @skipped, or with @all those of every CPU.  The marks
 * are hints, not a handshake: a count read just before a skip lands, or
 * a mark lost to the clear, only waits for the CPU's next mark or the
 * worker's fold of all CPUs, once per check; no page is lost.
 */
static void lt_replay(struct lt_disk *ld, bool all)
{
	unsigned int cpu;

	lockdep_assert_held(&ld->lock);
	if (all) {
		cpumask_clear(ld->skipped);
		for_each_possible_cpu(cpu)
			lt_fold(ld, cpu);
	} else {
		for_each_cpu(cpu, ld->skipped) {
			cpumask_clear_cpu(cpu, ld->skipped);
			lt_fold(ld, cpu);
		}
	}
	lt_replay_logs(ld);
}

/* Replay the logs now: a CPU's log or count reached its limit. */
static void lt_replay_now(struct lt_disk *ld)
{
	unsigned long flags;

	spin_lock_irqsave(&ld->lock, flags);
	lt_held(ld);
	lt_replay(ld, false);
	lt_release(ld);
	spin_unlock_irqrestore(&ld->lock, flags);
}

/*
 * Add @rec to @log, the log of @cpu; return whether it is due a replay:
 * when full, when its writes reach the log's pages, or when its records
 * reach LT_CHUNK_RANGES ranges of the owner table, so that a replay's
 * time with interrupts off stays bounded (lt_record()).
 */
static bool lt_log_add(struct lt_disk *ld, struct lt_log *log,
		       unsigned int cpu, const struct lt_rec *rec, u64 pages)
{
	u32 g = READ_ONCE(ld->track.geom);
	unsigned int i = log->cur, shift = lt_geom_range(g);

	lockdep_assert_held(&log->lock);
	if (!log->len[i]) {
		cpumask_set_cpu(cpu, ld->logged);
		log->ranges[i] = 0;
	}
	log->rec[i][log->len[i]++] = *rec;
	log->pages[i] += pages;
	if (lt_geom_on(g) && rec->nr_sectors)
		log->ranges[i] += ((((rec->sector + rec->nr_sectors - 1) <<
				     LT_SECTOR_SHIFT) >> shift) -
				   ((rec->sector << LT_SECTOR_SHIFT) >>
				    shift)) + 1;
	return log->len[i] == LT_LOG_LEN ||
	       log->pages[i] >= READ_ONCE(ld->log_pages) ||
	       log->ranges[i] >= LT_CHUNK_RANGES;
}

/*
 * Lock the log of the CPU this runs on, which it stays on until
 * lt_log_unlock().  With PREEMPT_RT the lock sleeps and bios are never
 * submitted from hard interrupts, so the task is kept from migrating
 * instead of interrupts being turned off.
 */
static struct lt_log *lt_log_lock(struct lt_disk *ld, unsigned long *flags)
{
	struct lt_log *log;

	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		migrate_disable();
		log = this_cpu_ptr(ld->log);
		spin_lock_irqsave(&log->lock, *flags);
	} else {
		local_irq_save(*flags);
		log = this_cpu_ptr(ld->log);
		spin_lock(&log->lock);
	}
	return log;
}

static void lt_log_unlock(struct lt_log *log, unsigned long flags)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		spin_unlock_irqrestore(&log->lock, flags);
		migrate_enable();
	} else {
		spin_unlock(&log->lock);
		local_irq_restore(flags);
	}
}

/*
 * Log a bio's sectors for the tracker, for a later replay: a write under
 * @key named @name (LT_NAME_LEN bytes), or with @key 0 and @name NULL an
 * invalidation.
 */
static void lt_log(struct lt_disk *ld, u64 sector, u32 nr_sectors, u64 key,
		   u16 tenant, const char *name)
{
	struct lt_rec rec = {
		.sector = sector,
		.nr_sectors = nr_sectors,
		.key = key,
		.tenant = tenant,
	};
	struct lt_log *log;
	unsigned long flags;
	bool due;

	if (name)
		memcpy(rec.name, name, LT_NAME_LEN);
	for (;;) {
		log = lt_log_lock(ld, &flags);
		if (log->len[log->cur] < LT_LOG_LEN &&
		    log->ranges[log->cur] < LT_CHUNK_RANGES)
			break;
		/* Filled while this bio was on its way: replay first. */
		lt_log_unlock(log, flags);
		lt_replay_now(ld);
	}
	rec.stamp = local_clock();
	due = lt_log_add(ld, log, smp_processor_id(), &rec,
			 key ? DIV_ROUND_UP((u64)nr_sectors << LT_SECTOR_SHIFT,
					    LT_PAGE_SIZE) : 0);
	lt_log_unlock(log, flags);
	if (due)
		lt_replay_now(ld);
}

/*
 * Give sectors of a bio to the tracker as lt_log() does.  If the disk
 * lock is free, the bio goes to the tracker at once, after the logged bios so that it
 * sees them in order, and the clock takes this CPU's skipped pages (their
 * tenants' activity waits for the next replay).  If another CPU holds
 * the lock, the bio is logged instead: CPUs never wait for each other.
 * With the lock free most of the time, a bio is neither stamped nor
 * copied twice, and the logs stay empty.
 */
static void lt_record_part(struct lt_disk *ld, u64 sector, u32 nr_sectors,
			   u64 key, u16 tenant, const char *name)
{
	unsigned long flags;

	if (!spin_trylock_irqsave(&ld->lock, flags)) {
		lt_log(ld, sector, nr_sectors, key, tenant, name);
		return;
	}
	lt_held(ld);
	/*
	 * A bio another CPU logs meanwhile was submitted concurrently with
	 * this one: either order is right.
	 */
	if (unlikely(!data_race(cpumask_empty(ld->logged))))
		lt_replay_logs(ld);
	lt_fold_clock(ld, this_cpu_ptr(ld->log));
	lt_apply_bio(ld, sector, nr_sectors, key, tenant, name);
	lt_release(ld);
	spin_unlock_irqrestore(&ld->lock, flags);
}

/*
 * lt_record_part() for each part of a bio that touches at most
 * LT_CHUNK_RANGES ranges (lt_track_chunk()), in order: a discard of a
 * whole multi-terabyte disk keeps interrupts off no longer than a small
 * one, part by part, with the lock let go in between.  Bios of other
 * CPUs that the tracker sees between two parts were submitted while this
 * one was, so either order is right for them.
 */
static void lt_record(struct lt_disk *ld, struct bio *bio, u64 key,
		      u16 tenant, const char *name)
{
	u64 sector = lt_bio_sector(bio);
	u32 left = bio_sectors(bio), n;

	do {
		n = lt_track_chunk(&ld->track, sector, left);
		lt_record_part(ld, sector, n, key, tenant, name);
		sector += n;
		left -= n;
	} while (left);
}

/*
 * Pages a CPU sent to @stream, those its memo holds included, read as
 * lt_skipped_sum() reads them.
 */
static u64 lt_stream_sum(const struct lt_log *log, unsigned int stream)
{
	u64 v = READ_ONCE(log->stream_pages[stream]);

	/* Pairs with the smp_wmb() in lt_memo_flush(). */
	smp_rmb();
	/* The memo may change label meanwhile: then a read is off a moment. */
	if (data_race(log->memo.stream) == stream)
		v += READ_ONCE(log->memo.pages);
	return v;
}

/* Pages of the writes all CPUs skipped. */
static u64 lt_skipped_pages(struct lt_disk *ld)
{
	unsigned int cpu;
	u64 p = 0;

	for_each_possible_cpu(cpu)
		p += lt_skipped_sum(per_cpu_ptr(ld->log, cpu));
	return p;
}

/*
 * Count pages of writes that touch no tracked range: only their number,
 * for the clock and their tenant's activity (none with %LT_TENANT_PLACED
 * in @tenant), with no lock and interrupts on.  For the caller's CPU,
 * with preemption off, @log its log.  A CPU whose skipped pages since its
 * last fold reach the log's limit replays, so the clock keeps up as it
 * does for logged writes.
 *
 * Return: whether the CPU is due a replay.
 */
static bool lt_skip_local(struct lt_disk *ld, struct lt_log *log,
			  u16 tenant, u64 pages)
{
	unsigned int cpu = smp_processor_id();
	u64 sum, folded;

	if (!(tenant & LT_TENANT_PLACED))
		this_cpu_add(ld->log->skipped_act[tenant], pages);
	this_cpu_add(ld->log->skipped_pages, pages);
	if (!cpumask_test_cpu(cpu, ld->skipped))
		cpumask_set_cpu(cpu, ld->skipped);
	sum = lt_skipped_sum(log);
	folded = READ_ONCE(log->folded_pages);
	return sum > folded && sum - folded >= READ_ONCE(ld->log_pages);
}

/*
 * Move the pages counted in this CPU's memo @m, in @log, to the CPU's
 * counts: before the memo changes label, or once they reach the log's
 * limit.  Task context, preemption off.
 *
 * Return: whether the CPU is due a replay.
 */
static noinline bool lt_memo_flush(struct lt_disk *ld, struct lt_log *log,
				   struct lt_memo *m)
{
	u64 pages = m->pages;

	if (!pages)
		return false;
	WRITE_ONCE(m->pages, 0);
	/* Pairs with the smp_rmb() in lt_skipped_sum(). */
	smp_wmb();
	this_cpu_add(ld->log->stream_pages[m->stream], pages);
	return lt_skip_local(ld, log, m->tenant, pages);
}

/* lt_skip_local() from any context. */
static void lt_skip(struct lt_disk *ld, struct bio *bio, u16 tenant)
{
	bool due;

	preempt_disable();
	due = lt_skip_local(ld, this_cpu_ptr(ld->log), tenant,
			    DIV_ROUND_UP(bio->bi_iter.bi_size, LT_PAGE_SIZE));
	preempt_enable();
	if (due)
		lt_replay_now(ld);
}

/* Stream of a label in the installed layout, 0 if it has none of its own. */
static unsigned int lt_label_stream(const struct lt_installed *inst, u64 key,
				    u16 tenant)
{
	u32 h = lt_hash(key, tenant);
	unsigned int i;

	for (i = 0; i < LT_HASH_SIZE; i++, h = (h + 1) & (LT_HASH_SIZE - 1)) {
		u16 slot = inst->hash[h];

		if (!slot)
			break;
		if (inst->key[slot] == key && inst->tenant[slot] == tenant)
			return inst->layout.label_stream[slot];
	}
	return 0;
}

/* Stream of a label in @inst: its own, else its tenant's; 0 if no layout. */
static unsigned int lt_layout_stream(const struct lt_installed *inst, u64 key,
				     u16 tenant)
{
	unsigned int stream;

	if (!inst)
		return 0;
	stream = lt_label_stream(inst, key, tenant);
	return stream ?: inst->layout.tenant_stream[tenant];
}

/*
 * Label a write that touches a tracked range and log it, with @placed
 * (0 or %LT_TENANT_PLACED) or'ed into its tenant; return its key.
 */
static u64 lt_write_tracked(struct lt_disk *ld, struct bio *bio, u16 *tenant,
			    u16 placed)
{
	char name[LT_NAME_LEN] = { };
	u64 key;

	*tenant = lt_tenant(ld, bio);
	key = lt_bio_key(bio, name);
	lt_record(ld, bio, key, *tenant | placed, name);
	return key;
}

/* lt_decide() out of a task's context, where the memo is not used. */
static noinline unsigned int lt_decide_atomic(struct lt_disk *ld,
					      struct bio *bio,
					      const struct lt_installed *inst,
					      bool tracked)
{
	unsigned int stream;
	u16 tenant;

	if (tracked) {
		u64 key = lt_write_tracked(ld, bio, &tenant, 0);

		stream = lt_layout_stream(inst, key, tenant);
	} else {
		tenant = lt_tenant(ld, bio);
		stream = lt_layout_stream(inst, lt_bio_key(bio, NULL), tenant);
		lt_skip(ld, bio, tenant);
	}
	this_cpu_add(ld->log->stream_pages[stream],
		     DIV_ROUND_UP(bio->bi_iter.bi_size, LT_PAGE_SIZE));
	return stream;
}

/*
 * The memo's tag of a write with key @key under @inst; never 0.  It
 * changes with each install and each recycling of tenant slots
 * (lt_new_tag()), so that no memo keeps a slot given back.
 */
static inline u64 lt_memo_tag(const struct lt_disk *ld,
			      const struct lt_installed *inst, unsigned int key)
{
	return (inst ? READ_ONCE(inst->tag) : READ_ONCE(ld->bare_tag)) |
	       (u64)(u8)key << 1;
}

/*
 * Whether memo @m knows a write from @src (@id), cgroup @blkg and @tag
 * (lt_memo_tag()) and may still be trusted: for half a second, so that
 * a freed task or blkg whose address comes back is not taken for long.
 */
static inline bool lt_memo_hit(const struct lt_memo *m, const void *src,
			       unsigned long id, const void *blkg, u64 tag)
{
	return m->tag == tag && m->src == src && m->id == id &&
	       m->blkg == blkg && time_before(jiffies, m->stamp + HZ / 2);
}

/*
 * Fill this CPU's memo for a write @bio from @src (@id: lt_bio_src())
 * that the memo did not know: its tenant, label and stream under @inst,
 * and @tag (lt_memo_tag()).  Called and returns with preemption off,
 * which it turns on meanwhile, so the memo it returns may be another
 * CPU's than the caller's was.  The pages the memo counted
 * go to its CPU's counts first; @due is set if that CPU is due a replay.
 */
static noinline struct lt_memo *lt_memo_fill(struct lt_disk *ld,
					     const struct lt_installed *inst,
					     struct bio *bio, const void *src,
					     unsigned long id, u64 tag, bool *due)
{
	struct lt_memo fresh = {
		.src = src, .id = id, .blkg = lt_bio_blkg(bio), .tag = tag,
	};
	struct lt_log *log;
	struct lt_memo *m;

	preempt_enable();
	fresh.tenant = lt_tenant(ld, bio);
	fresh.key = lt_src_key(bio, src, id, fresh.name);
	fresh.stream = lt_layout_stream(inst, fresh.key, fresh.tenant);
	fresh.stamp = jiffies;
	preempt_disable();
	log = this_cpu_ptr(ld->log);
	m = &log->memo;
	*due = lt_memo_flush(ld, log, m);
	*m = fresh;
	return m;
}

/*
 * lt_decide() for all but its common case: a write out of a task's
 * context (lt_decide_atomic()), one that touches a tracked range, one
 * the memo does not know, and one that fills the memo.  @src and @id
 * are lt_bio_src()'s, @maybe lt_track_sampled_fast()'s.  The layout
 * is read again: at most six arguments keep the call a tail call.
 */
static noinline unsigned int lt_decide_slow(struct lt_disk *ld,
					    struct bio *bio, const void *src,
					    unsigned long id, int maybe)
{
	const struct lt_installed *inst = rcu_dereference(ld->layout);
	bool tracked = maybe < 0 ?
		lt_track_sampled_slow(&ld->track, lt_bio_sector(bio),
				      bio_sectors(bio)) : maybe;
	u64 pages = DIV_ROUND_UP(bio->bi_iter.bi_size, LT_PAGE_SIZE);
	const void *blkg = lt_bio_blkg(bio);
	u64 tag = lt_memo_tag(ld, inst, bio_stream_key(bio));
	unsigned int stream;
	bool due = false;
	struct lt_memo *m;

	if (!in_task())
		return lt_decide_atomic(ld, bio, inst, tracked);

	preempt_disable();
	m = &this_cpu_ptr(ld->log)->memo;
	if (!lt_memo_hit(m, src, id, blkg, tag))
		m = lt_memo_fill(ld, inst, bio, src, id, tag, &due);
	stream = m->stream;
	if (tracked) {
		u64 key = m->key;
		u16 tenant = m->tenant;
		char name[LT_NAME_LEN];

		memcpy(name, m->name, LT_NAME_LEN);
		/* Not with preemption off: on PREEMPT_RT its locks sleep. */
		preempt_enable();
		lt_record(ld, bio, key, tenant, name);
		this_cpu_add(ld->log->stream_pages[stream], pages);
	} else {
		/* Only this CPU writes it; others read it (lt_skipped_sum()). */
		WRITE_ONCE(m->pages, m->pages + pages);
		if (m->pages >= READ_ONCE(ld->log_pages))
			due |= lt_memo_flush(ld, this_cpu_ptr(ld->log), m);
		preempt_enable();
	}
	if (due)
		lt_replay_now(ld);
	return stream;
}

/*
 * The stream of a write.  One that touches a tracked range goes to the
 * tracker with its label (lt_record()); the others only add their pages
 * to their CPU's counts.  Most bios come in runs from one file or task, so
 * each CPU remembers the label of its last write from a task: the next one
 * from the same source, cgroup and hint, under the same layout and within
 * half a second, skips the label's key, the
 * tenant table and the layout's index, and adds its pages to the memo,
 * which hands them to the counts when it changes label or holds a log's
 * worth (lt_memo_flush()).  The memo, the log and the counts share one
 * section with preemption off.
 *
 * That common case, a write from a task that touches no tracked range
 * and that the memo knows, takes no call here but lt_bio_src()'s: so
 * that it saves and restores few registers, the rest goes to
 * lt_decide_slow().
 */
static unsigned int lt_decide(struct gendisk *disk, void *data,
			      struct bio *bio)
{
	const struct lt_installed *inst;
	struct lt_disk *ld = data;
	unsigned int stream;
	struct lt_memo *m;
	const void *src;
	unsigned long id;
	int maybe;
	u64 pages;

	/* First, so that few values live across the call it may make. */
	src = lt_bio_src(bio, &id);
	maybe = lt_track_sampled_fast(&ld->track, lt_bio_sector(bio),
				      bio_sectors(bio));
	if (unlikely(maybe || !in_task()))
		goto slow;

	inst = rcu_dereference(ld->layout);
	pages = DIV_ROUND_UP(bio->bi_iter.bi_size, LT_PAGE_SIZE);
	preempt_disable();
	m = &this_cpu_ptr(ld->log)->memo;
	if (unlikely(!lt_memo_hit(m, src, id, lt_bio_blkg(bio),
				  lt_memo_tag(ld, inst, bio_stream_key(bio))) ||
		     m->pages + pages >= READ_ONCE(ld->log_pages))) {
		preempt_enable();
		goto slow;
	}
	stream = m->stream;
	/* Only this CPU writes it; others read it (lt_skipped_sum()). */
	WRITE_ONCE(m->pages, m->pages + pages);
	preempt_enable();
	return stream;
slow:
	return lt_decide_slow(ld, bio, src, id, maybe);
}

/*
 * A write or invalidation the policy did not place.  A write that an
 * earlier rule placed counts for the clock and the tracker, not for its
 * tenant's activity, so a cgroup that io.stream pins takes none of the
 * policy's streams.
 */
static void lt_observe(struct gendisk *disk, void *data, struct bio *bio,
		       unsigned int stream)
{
	struct lt_disk *ld = data;
	bool tracked;
	u16 tenant;

	tracked = lt_track_sampled(&ld->track, lt_bio_sector(bio),
				   bio_sectors(bio));
	if (bio_op(bio) != REQ_OP_WRITE) {
		if (tracked)
			lt_record(ld, bio, 0, 0, NULL);
	} else if (tracked) {
		lt_write_tracked(ld, bio, &tenant, LT_TENANT_PLACED);
	} else {
		lt_skip(ld, bio,
			lt_tenant(ld, bio) | LT_TENANT_PLACED);
	}
}

/* --- planning -------------------------------------------------------- */

/* Reclaim age in pages: capacity over the media write rate. */
static void lt_update_reclaim_age(struct lt_disk *ld)
{
	u64 cap = ld->track.capacity >> LT_PAGE_SHIFT;

	if (ld->age_override) {
		ld->reclaim_age = ld->age_override;
		ld->age_source = "operator";
	} else if (ld->media_ratio) {
		/* host pages per media page is at most 1: WAF >= 1 */
		ld->reclaim_age = max(cap * min(ld->media_ratio, 1024ULL) >> 10, 1ULL);
		ld->age_source = "media";
	} else {
		/* The host rate is the floor of the media rate. */
		ld->reclaim_age = max(cap, 1ULL);
		ld->age_source = "capacity";
	}
	/* The CPUs' logs together lag the tracker by about R/64 at most. */
	WRITE_ONCE(ld->log_pages,
		   max(div_u64(ld->reclaim_age, 64 * num_possible_cpus()), 1ULL));
}

/*
 * Streams the policy may hand out: 2..max, less those io.stream gives
 * cgroups, pins and budgets; the budgets read in @ld->budget are left
 * out too, should a setting have changed between the two looks.
 */
static unsigned int lt_free_streams(struct lt_disk *ld, u8 *streams)
{
	unsigned int max = min_t(unsigned int, LT_MAX_STREAMS,
				 ld->disk->queue->limits.max_write_streams);
	DECLARE_BITMAP(pinned, LT_MAX_STREAMS + 1) = { };
	unsigned int s, t, k, n = 0;

	blkcg_iostream_pinned(ld->disk, pinned, LT_MAX_STREAMS + 1);
	for (t = 0; t < LT_MAX_TENANTS; t++)
		for (k = 0; k < ld->budget[t].nr; k++)
			__set_bit(ld->budget[t].streams[k], pinned);
	/* Stream 1 shares the default handle with unplaced writes. */
	for (s = 2; s <= max; s++)
		if (!test_bit(s, pinned))
			streams[n++] = s;
	return n;
}

static bool lt_cgroup_gone(u64 cgid);

/*
 * The budget of the slot that cgroups share when every slot is taken,
 * from its members' budgets: the cgroups the tenant index maps to it,
 * those removed left out.  If one of them has no budget, or some are not
 * in the index (it was full), the slot has none and is planned on the
 * free streams, which io.stream leaves the unconfined members and folds
 * the others' writes off.  If all have budgets, the slot has the streams
 * they have in common.  If those are fewer than two, no budget can take
 * all their writes: @apart is set, and the slot is not planned.
 */
static void lt_share_budget(struct lt_disk *ld, struct lt_budget *b,
			    bool *apart)
{
	DECLARE_BITMAP(common, LT_MAX_STREAMS + 1);
	DECLARE_BITMAP(map, LT_MAX_STREAMS + 1);
	u64 *ids = ld->share_ids;
	struct lt_tenant_index *ti;
	unsigned int h, k, n = 0, s;
	bool partial, any = false;

	lt_lock(ld);
	ti = rcu_dereference_protected(ld->tindex, lockdep_is_held(&ld->lock));
	for (h = 0; h < LT_TENANT_HASH; h++)
		if (ti->key[h] && ti->slot[h] == LT_TENANT_SHARE)
			ids[n++] = ti->key[h] - 1;
	partial = ld->share_unindexed;
	lt_unlock(ld);

	b->nr = 0;
	*apart = false;
	if (partial)
		return;
	for (k = 0; k < n; k++) {
		if (lt_cgroup_gone(ids[k]))
			continue;
		if (!blkcg_iostream_budget(ld->disk, ids[k], map,
					   LT_MAX_STREAMS + 1))
			return;
		if (any)
			bitmap_and(common, common, map, LT_MAX_STREAMS + 1);
		else
			bitmap_copy(common, map, LT_MAX_STREAMS + 1);
		any = true;
	}
	if (!any)
		return;
	if (bitmap_weight(common, LT_MAX_STREAMS + 1) < 2) {
		*apart = true;
		return;
	}
	for_each_set_bit(s, common, LT_MAX_STREAMS + 1)
		b->streams[b->nr++] = s;
}

/*
 * Read each tenant's io.stream budget on the disk into @ld->budget, its
 * streams in ascending order, so that a tenant's longest-lived class goes
 * on the budget's first stream, where io.stream sends the tenant's writes
 * that the policy leaves unplaced.  The slot that cgroups share when
 * every slot is taken has its members' budget (lt_share_budget()).
 * From the worker, under plan_mutex; may sleep.
 *
 * Return: the tenants that have a budget; @apart: the shared slot, if its
 * members' budgets differ and it must not be planned.
 */
static u64 lt_read_budgets(struct lt_disk *ld, u64 *apart)
{
	DECLARE_BITMAP(map, LT_MAX_STREAMS + 1);
	u64 ids[LT_MAX_TENANTS], used, shared = 0, set = 0;
	struct lt_budget *b;
	unsigned int t, s;
	bool split;

	lockdep_assert_held(&ld->plan_mutex);
	lt_lock(ld);
	memcpy(ids, ld->tenant_id, sizeof(ids));
	used = ld->tenant_used;
	for (t = 0; t < LT_MAX_TENANTS; t++)
		if (ld->tenant_sharers[t] > 1)
			shared |= BIT_ULL(t);
	lt_unlock(ld);
	*apart = 0;
	for (t = 0; t < LT_MAX_TENANTS; t++) {
		b = &ld->budget[t];
		b->nr = 0;
		if (!(used & BIT_ULL(t)))
			continue;
		if (shared & BIT_ULL(t)) {
			lt_share_budget(ld, b, &split);
			if (split)
				*apart |= BIT_ULL(t);
			if (b->nr)
				set |= BIT_ULL(t);
			continue;
		}
		if (!blkcg_iostream_budget(ld->disk, ids[t], map,
					   LT_MAX_STREAMS + 1))
			continue;
		for_each_set_bit(s, map, LT_MAX_STREAMS + 1)
			b->streams[b->nr++] = s;
		set |= BIT_ULL(t);
	}
	return set;
}

static bool lt_budget_has(const struct lt_budget *b, unsigned int stream)
{
	unsigned int k;

	for (k = 0; k < b->nr; k++)
		if (b->streams[k] == stream)
			return true;
	return false;
}

/*
 * Whether io.stream now keeps a tenant's writes off a stream the installed
 * layout @cur gives them: a stream outside a budgeted tenant's budget
 * ("budget" if its budget changed since the plan, else "streams"), or,
 * for a tenant without one, a stream that is no longer free (a pin or a
 * budget of another cgroup took it: "streams").  A stream shared by
 * several tenants must be free or in a budget.  Streams given back, or a
 * budget that grew, break nothing: the next plan for another reason
 * uses them.  @free are the @nr_free free streams.
 *
 * Return: the reason to plan again, or NULL.
 */
static const char *lt_layout_confined(const struct lt_disk *ld,
				      const struct lt_installed *cur,
				      const u8 *free, unsigned int nr_free)
{
	DECLARE_BITMAP(ok, LT_MAX_STREAMS + 1) = { };
	DECLARE_BITMAP(any, LT_MAX_STREAMS + 1);
	const struct lt_layout_stream *s;
	const struct lt_budget *b, *bp;
	unsigned int i, t;

	for (i = 0; i < nr_free; i++)
		__set_bit(free[i], ok);
	bitmap_copy(any, ok, LT_MAX_STREAMS + 1);
	for (t = 0; t < LT_MAX_TENANTS; t++)
		for (i = 0; i < ld->budget[t].nr; i++)
			__set_bit(ld->budget[t].streams[i], any);
	for (i = 0; i < cur->layout.nr_streams; i++) {
		s = &cur->layout.stream[i];
		if (s->tenant >= LT_MAX_TENANTS) {
			if (!test_bit(s->stream, any))
				return "streams";
			continue;
		}
		b = &ld->budget[s->tenant];
		if (b->nr ? lt_budget_has(b, s->stream) :
			    test_bit(s->stream, ok))
			continue;
		bp = &ld->budget_planned[s->tenant];
		return b->nr != bp->nr ||
		       memcmp(b->streams, bp->streams, b->nr) ? "budget" :
								"streams";
	}
	return NULL;
}

/* A memo tag that no memo holds yet (lt_memo_tag()). */
static u64 lt_new_tag(struct lt_disk *ld)
{
	lockdep_assert_held(&ld->plan_mutex);
	return ++ld->tags << 9 | 1;
}

/* Whether the cgroup of id @cgid, on the unified hierarchy, was removed. */
static bool lt_cgroup_gone(u64 cgid)
{
#ifdef CONFIG_BLK_CGROUP
	struct cgroup *cg = cgroup_get_from_id(cgid);
	bool gone;

	if (IS_ERR(cg))
		return true;
	gone = css_is_dying(&cg->self);
	cgroup_put(cg);
	return gone;
#else
	return false;
#endif
}

/*
 * The slots to give back: those of @gone (cgroups removed, as looked up
 * for @ids) whose cgroup is still the one looked up, and those whose
 * tenant neither wrote for the policy nor into a tracked range for a
 * reclaim age while a cgroup waits for a slot (shares one), or for
 * LT_IDLE_AGES reclaim ages, when its labels retire anyway, while none
 * does: a tenant that takes turns with others keeps what was learned of
 * it while there is room.  @idle gets the idle ones.
 */
static u64 lt_tenants_stale(struct lt_disk *ld, const u64 *ids, u64 gone,
			    u64 *idle)
{
	u64 active = lt_active_tenants(ld->act, LT_QUARTERS, ld->nr_tenants);
	u64 drop = 0, b, age = ld->reclaim_age;
	unsigned int s;

	lockdep_assert_held(&ld->lock);
	if (!ld->tenants_full && ld->tenant_sharers[LT_TENANT_SHARE] <= 1)
		age *= LT_IDLE_AGES;
	*idle = 0;
	for (s = 0; s < ld->nr_tenants; s++) {
		b = BIT_ULL(s);
		if (!(ld->tenant_used & b))
			continue;
		if ((gone & b) && ld->tenant_id[s] == ids[s]) {
			drop |= b;
		} else if (!(active & b) && ld->now - ld->tenant_last[s] >= age) {
			drop |= b;
			*idle |= b;
		}
	}
	return drop;
}

/*
 * Give back tenant slot @slot: its labels retire (their data's deaths are
 * charged to nobody), its activity is forgotten.
 */
static void lt_tenant_free(struct lt_disk *ld, unsigned int slot)
{
	unsigned int q;

	lockdep_assert_held(&ld->lock);
	lt_track_forget_tenant(&ld->track, slot);
	for (q = 0; q < LT_QUARTERS; q++)
		ld->act[q][slot] = 0;
	ld->tenant_used &= ~BIT_ULL(slot);
	ld->tenant_id[slot] = 0;
	ld->tenant_sharers[slot] = 0;
}

/*
 * Give back the slots of removed cgroups and of idle tenants (see "Tenant
 * slots" above), and with any given back, let the cgroups that shared a
 * slot look again for one of their own.  Cgroup ids are looked up without
 * the disk's lock (cgroup_get_from_id() takes kernfs's); a slot given to
 * another cgroup meanwhile stays.  The bios' index is replaced whole, and
 * the memo tag renewed so that no CPU's memo keeps a slot given back.  A
 * layout planned with a slot given back no longer matches the active
 * tenants, so the next check plans again.  From the worker, under
 * plan_mutex; @cur is the installed layout.
 */
static void lt_tenants_recycle(struct lt_disk *ld, struct lt_installed *cur)
{
	u64 ids[LT_MAX_TENANTS], check, gone = 0, drop, idle;
	struct lt_tenant_index *ti = NULL, *old = NULL;
	unsigned int s, sharers = 0;

	lt_lock(ld);
	lt_replay(ld, true);
	check = ld->tenant_used & ld->tenant_dfl;
	memcpy(ids, ld->tenant_id, sizeof(ids));
	drop = lt_tenants_stale(ld, ids, 0, &idle);
	lt_unlock(ld);

	for (s = 0; s < LT_MAX_TENANTS; s++)
		if ((check & BIT_ULL(s)) && lt_cgroup_gone(ids[s]))
			gone |= BIT_ULL(s);
	if (gone | drop)
		ti = kzalloc_obj(*ti, GFP_KERNEL);

	lt_lock(ld);
	if (ti) {
		/* Pages logged meanwhile still count for the old tenants. */
		lt_replay(ld, true);
		drop = lt_tenants_stale(ld, ids, gone, &idle);
	}
	ld->tenants_full = false;
	if (ti && drop) {
		for (s = 0; s < ld->nr_tenants; s++)
			if (drop & BIT_ULL(s))
				lt_tenant_free(ld, s);
		ld->tenants_idle += hweight64(idle);
		ld->tenants_removed += hweight64(drop & ~idle);
		if (ld->tenant_used & BIT_ULL(LT_TENANT_SHARE))
			ld->tenant_sharers[LT_TENANT_SHARE] = 1;
		for (s = 0; s < LT_MAX_TENANTS; s++)
			if (ld->tenant_used & BIT_ULL(s))
				lt_tenant_insert(ti, ld->tenant_id[s], s);
		ld->nr_tenants = fls64(ld->tenant_used);
		ld->share_unindexed = false;
		old = rcu_replace_pointer(ld->tindex, ti,
					  lockdep_is_held(&ld->lock));
		ti = NULL;
	}
	if (ld->tenant_sharers[LT_TENANT_SHARE] > 1 && !ld->sharing_noted) {
		ld->sharing_noted = true;
		sharers = ld->tenant_sharers[LT_TENANT_SHARE];
	} else if (ld->tenant_sharers[LT_TENANT_SHARE] <= 1) {
		ld->sharing_noted = false;
	}
	lt_unlock(ld);
	kfree(ti);

	if (sharers)
		pr_notice("%s: lifetime: %u cgroups share tenant slot %u: more than %u write to the disk\n",
			  ld->disk->disk_name, sharers, LT_TENANT_SHARE,
			  LT_MAX_TENANTS);
	if (!old)
		return;
	kfree_rcu(old, rcu);
	if (cur) {
		cur->tenants &= ~drop;
		WRITE_ONCE(cur->tag, lt_new_tag(ld));
	} else {
		WRITE_ONCE(ld->bare_tag, lt_new_tag(ld));
	}
}

static void lt_install(struct lt_disk *ld, const char *reason)
{
	struct lt_installed *inst = ld->next, *old;
	unsigned int i, classes = 0;

	lockdep_assert_held(&ld->plan_mutex);
	for (i = 0; i < LT_MAX_TENANTS; i++)
		classes += inst->layout.tenant_classes[i];
	inst->tag = lt_new_tag(ld);
	old = rcu_replace_pointer(ld->layout, inst,
				  lockdep_is_held(&ld->plan_mutex));
	ld->next = NULL;
	if (old)
		kvfree_rcu(old, rcu);
	WRITE_ONCE(ld->plans, ld->plans + 1);
	ld->last_plan = jiffies;
	ld->last_plan_now = READ_ONCE(ld->now);
	ld->last_plan_period = ld->periods;
	ld->last_reason = reason;
	/* The first layout ends the checks between the ends of periods. */
	lt_lock(ld);
	ld->next_check = lt_next_check(ld);
	lt_unlock(ld);
	ld->history[ld->plans % LT_HISTORY].reason = reason;
	ld->history[ld->plans % LT_HISTORY].now = ld->last_plan_now;
	trace_blk_lifetime_layout(ld->disk, reason, inst->layout.nr_tenants,
				  inst->layout.nr_streams, classes,
				  inst->layout.total_worth,
				  inst->layout.reclaim_age << LT_PAGE_SHIFT,
				  ld->shadow);
}

/* Index the labels that got a stream of their own by key and tenant. */
static void lt_index(struct lt_installed *inst, const struct lt_label *labels)
{
	unsigned int i;
	u32 h;

	memset(inst->hash, 0, sizeof(inst->hash));
	for (i = 1; i < LT_MAX_LABELS; i++) {
		inst->tenant[i] = labels[i].tenant;
		if (!(labels[i].flags & LT_LABEL_USED) ||
		    (labels[i].flags & LT_LABEL_DRAINING) ||
		    !inst->layout.label_stream[i])
			continue;
		h = lt_hash(inst->key[i], inst->tenant[i]);
		while (inst->hash[h])
			h = (h + 1) & (LT_HASH_SIZE - 1);
		inst->hash[h] = i;
	}
}

static bool lt_same_layout(const struct lt_installed *a,
			   const struct lt_installed *b)
{
	return a->tenants == b->tenants &&
	       !memcmp(a->layout.label_stream, b->layout.label_stream,
		       sizeof(a->layout.label_stream)) &&
	       !memcmp(a->layout.tenant_stream, b->layout.tenant_stream,
		       sizeof(a->layout.tenant_stream)) &&
	       !memcmp(a->key, b->key, sizeof(a->key));
}

/*
 * Age what the policy learned by the periods that ended since the worker
 * last did: each moves the activity window on by one and sweeps a
 * quarter of the owner table, and every LT_QUARTERS of them halve the
 * histograms.  Only host writes end periods (lt_clock()), so a check in
 * between, before the first layout or asked for with replan, ages
 * nothing.  At most a reclaim age's worth is aged at once: by then the
 * window is empty and the sweep has made its pass.
 *
 * Return: the owner entries to sweep, which the caller does in parts
 * (lt_sweep()).
 */
static u64 lt_end_periods(struct lt_disk *ld)
{
	unsigned int n = min_t(unsigned int, ld->periods_due, LT_QUARTERS);
	u64 sweep = 0;

	lockdep_assert_held(&ld->lock);
	ld->periods += ld->periods_due;
	ld->periods_due = 0;
	while (n--)
		sweep += lt_track_period_turn(&ld->track, ld->act, &ld->quarter,
					      &ld->quarters);
	return sweep;
}

/*
 * Owner entries swept, and labels copied, per hold of the disk's lock
 * from the worker: each part keeps interrupts off for a few
 * microseconds, however large the disk.
 */
#define LT_SWEEP_PART		4096
#define LT_SNAP_PART		16

/* Sweep @entries of the owner table, in parts. */
static void lt_sweep(struct lt_disk *ld, u64 entries)
{
	u64 n;

	while (entries) {
		n = min_t(u64, entries, LT_SWEEP_PART);
		lt_lock(ld);
		lt_track_sweep(&ld->track, ld->now, n);
		lt_unlock(ld);
		entries -= n;
		cond_resched();
	}
}

/*
 * Copy the labels into @snap, with their keys into @key and, if @names is
 * not NULL, their names, in parts.  Each label is copied whole; labels
 * copied in different parts may be a few bios apart.
 */
static void lt_snap_labels(struct lt_disk *ld, struct lt_label *snap, u64 *key,
			   char (*names)[LT_NAME_LEN])
{
	unsigned int i;

	for (i = 0; i < LT_MAX_LABELS; i += LT_SNAP_PART) {
		lt_lock(ld);
		memcpy(snap + i, ld->track.label + i, sizeof(*snap) * LT_SNAP_PART);
		memcpy(key + i, ld->label_key + i, sizeof(*key) * LT_SNAP_PART);
		if (names)
			memcpy(names + i, ld->names + i, LT_NAME_LEN * LT_SNAP_PART);
		lt_unlock(ld);
	}
}

static void lt_plan_work(struct lt_disk *ld)
{
	struct lt_plan_input in = { };
	struct lt_installed *cur;
	const char *reason = NULL;
	u8 streams[LT_MAX_STREAMS];
	bool replan, auto_plan;
	u64 active, informed, periods, now, sweep, budgeted, apart;
	int nr_free = -1;

	mutex_lock(&ld->plan_mutex);
	cur = rcu_dereference_protected(ld->layout,
					lockdep_is_held(&ld->plan_mutex));
	lt_tenants_recycle(ld, cur);
	if (!ld->next)
		ld->next = kvzalloc_obj(*ld->next, GFP_KERNEL);

	lt_lock(ld);
	lt_replay(ld, true);
	ld->checks++;
	lt_update_reclaim_age(ld);
	active = lt_active_tenants(ld->act, LT_QUARTERS, ld->nr_tenants);
	sweep = lt_end_periods(ld);
	if (!ld->next)
		/* No new layout this time; the installed one stays. */
		ld->track.stats.alloc_failed++;
	periods = ld->periods;
	now = ld->now;
	replan = ld->replan;
	ld->replan = false;
	auto_plan = READ_ONCE(ld->auto_plan);
	lt_unlock(ld);

	lt_sweep(ld, sweep);
	if (!ld->next)
		goto out;
	lt_snap_labels(ld, ld->snap, ld->next->key, NULL);
	if (!ld->track.on)
		goto out;	/* no tracking, no placement */
	/*
	 * No tenant wrote for the policy in the last reclaim age: nothing to
	 * plan for, and a plan of every tenant would place pinned ones.
	 */
	if (!active)
		goto out;
	budgeted = lt_read_budgets(ld, &apart) & active;
	/*
	 * The shared slot's cgroups are confined apart: it is not planned,
	 * and a layout that gave it streams is replaced, by an empty one if
	 * it was the only tenant (a plan for no tenant would plan them all).
	 */
	active &= ~apart;
	if (!active) {
		if (cur && (cur->tenants & apart) && (replan || auto_plan)) {
			memset(&ld->next->layout, 0, sizeof(ld->next->layout));
			ld->next->layout.reclaim_age = ld->reclaim_age;
			ld->next->tenants = 0;
			ld->next->informed = 0;
			lt_index(ld->next, ld->snap);
			memcpy(ld->budget_planned, ld->budget,
			       sizeof(ld->budget));
			lt_install(ld, "budget");
		}
		goto out;
	}
	informed = lt_informed(ld->snap, LT_MAX_LABELS, active);
	if (replan) {
		reason = "operator";
	} else if (auto_plan) {
		struct lt_check c = {
			.active = active,
			.informed = informed,
			.installed = !!cur,
			.tenants = cur ? cur->tenants : 0,
			.tenants_informed = cur ? cur->informed : 0,
			/*
			 * Counted in periods, not bytes: the worker runs a
			 * little after each period's end, so a byte count
			 * would now and then skip one.
			 */
			.periods = periods - ld->last_plan_period,
		};

		reason = lt_plan_due(&c);
		/* io.stream keeps data off streams the layout gives them. */
		if (!reason && cur) {
			nr_free = lt_free_streams(ld, streams);
			reason = lt_layout_confined(ld, cur, streams, nr_free);
		}
	}
	if (!reason)
		goto out;
	if (nr_free < 0)
		nr_free = lt_free_streams(ld, streams);

	in.labels = ld->snap;
	in.nr_labels = LT_MAX_LABELS;
	in.reclaim_age = ld->reclaim_age;
	in.streams = streams;
	in.nr_streams = nr_free;
	in.min_side_pm = READ_ONCE(ld->min_side);
	in.tenants = active;
	in.budgets = ld->budget;
	ld->next->tenants = active;
	ld->next->informed = informed;
	/*
	 * With nothing to place on, a first layout waits; an installed one
	 * is replaced by an empty one, so that no tenant keeps streams that
	 * io.stream has taken.
	 */
	if ((!in.nr_streams && !budgeted && !cur) ||
	    lt_plan(&in, &ld->next->layout, ld->scratch))
		goto out;
	lt_index(ld->next, ld->snap);
	memcpy(ld->budget_planned, ld->budget, sizeof(ld->budget));
	/*
	 * Drift, learning and io.stream's changes install only a layout
	 * that changed.
	 */
	if (cur && (!strcmp(reason, "drift") || !strcmp(reason, "learned") ||
		    !strcmp(reason, "budget") || !strcmp(reason, "streams")) &&
	    lt_same_layout(cur, ld->next)) {
		ld->last_plan_now = now;
		ld->last_plan_period = periods;
		/* Bios never read it; its readers hold plan_mutex. */
		cur->informed = ld->next->informed;
		goto out;
	}
	lt_install(ld, reason);
out:
	mutex_unlock(&ld->plan_mutex);
}

/*
 * The policy's exit_disk cancels this work inside the disk's freeze, so
 * its allocations must not wait for I/O: NOIO scope.
 */
static void lt_workfn(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();

	lt_plan_work(container_of(work, struct lt_disk, work));
	memalloc_noio_restore(noio);
}

/* --- sysfs: settings ------------------------------------------------- */

struct lt_attr {
	struct attribute attr;
	ssize_t (*show)(struct lt_disk *ld, char *page);
	ssize_t (*store)(struct lt_disk *ld, const char *page, size_t count);
};

static ssize_t reclaim_age_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%llu\n", READ_ONCE(ld->reclaim_age) << LT_PAGE_SHIFT);
}

static ssize_t reclaim_age_store(struct lt_disk *ld, const char *page,
				 size_t count)
{
	u64 v;

	if (kstrtou64(page, 0, &v))
		return -EINVAL;
	/*
	 * Beyond the owner table's horizon, old ages would be clamped below
	 * the reclaim age; no device reclaims later than LT_MAX_AGE_CAPS
	 * capacities of host writes.
	 */
	if (v / LT_MAX_AGE_CAPS > ld->track.capacity)
		return -EINVAL;
	lt_lock(ld);
	lt_replay(ld, true);
	ld->age_override = v >> LT_PAGE_SHIFT;
	if (v && !ld->age_override)
		ld->age_override = 1;
	lt_update_reclaim_age(ld);
	lt_check_soon(ld);
	lt_unlock(ld);
	return count;
}

static ssize_t reclaim_age_source_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%s\n", READ_ONCE(ld->age_source));
}

static ssize_t media_bytes_written_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%llu\n", READ_ONCE(ld->media_bytes));
}

/*
 * The device's media bytes written (FDP statistics): two readings give the
 * media rate against the host writes seen between them.
 */
static ssize_t media_bytes_written_store(struct lt_disk *ld, const char *page,
					 size_t count)
{
	u64 v, media, host;

	if (kstrtou64(page, 0, &v))
		return -EINVAL;
	lt_lock(ld);
	lt_replay(ld, true);
	if (ld->media_bytes && v < ld->media_bytes) {
		lt_unlock(ld);
		return -EINVAL;		/* the counter never goes back */
	}
	media = (v - ld->media_bytes) >> LT_PAGE_SHIFT;
	host = ld->now - ld->media_host;
	if (ld->media_bytes && media && host)
		ld->media_ratio = div64_u64(host << 10, media) ?: 1;
	ld->media_bytes = v;
	ld->media_host = ld->now;
	lt_update_reclaim_age(ld);
	lt_check_soon(ld);
	lt_unlock(ld);
	return count;
}

static ssize_t replan_store(struct lt_disk *ld, const char *page, size_t count)
{
	bool v;

	if (kstrtobool(page, &v) || !v)
		return -EINVAL;
	lt_lock(ld);
	ld->replan = true;
	lt_unlock(ld);
	queue_work(system_dfl_wq, &ld->work);
	flush_work(&ld->work);
	return count;
}

static ssize_t auto_plan_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(ld->auto_plan));
}

/* 0 keeps the installed layout until the operator asks for a plan. */
static ssize_t auto_plan_store(struct lt_disk *ld, const char *page,
			       size_t count)
{
	bool v;

	if (kstrtobool(page, &v))
		return -EINVAL;
	WRITE_ONCE(ld->auto_plan, v);
	return count;
}

/*
 * Size the owner table anew, at once: what the policy learned of lifetimes
 * stays, where each label's data lies is forgotten (lt_track_resize()).
 * Sizes that give the table in use change nothing.  Under plan_mutex,
 * which keeps two writers, and the worker's sweep, from crossing.  The
 * table is allocated before the disk's lock is taken and the old one
 * counted and freed after; in NOIO scope, as del_gendisk() waits for a
 * store in progress inside the disk's freeze (see lt_workfn()).
 */
static int lt_resize(struct lt_disk *ld, u32 range_size,
		     unsigned int sample_shift, u64 mem_cap)
{
	struct lt_track *t = &ld->track;
	struct lt_track_size *sz;
	unsigned int noio;
	int shift, ret;
	u64 now, age;

	lockdep_assert_held(&ld->plan_mutex);
	shift = lt_track_range_shift(t->capacity >> LT_SECTOR_SHIFT,
				     range_size, sample_shift, mem_cap);
	if (shift == -EINVAL)
		return -EINVAL;
	if (sample_shift == t->sample_shift &&
	    (shift < 0 ? !t->on : t->on && shift == t->range_shift)) {
		WRITE_ONCE(ld->range_size, range_size);
		WRITE_ONCE(ld->mem_cap, mem_cap);
		return 0;
	}
	noio = memalloc_noio_save();
	sz = kzalloc_obj(*sz, GFP_KERNEL);
	ret = sz ? lt_track_size_alloc(t, sz, range_size, sample_shift,
				       mem_cap) : -ENOMEM;
	if (!ret && !sz->alloc_failed)
		sz->stranded = kzalloc_obj(*sz->stranded, GFP_KERNEL);
	memalloc_noio_restore(noio);
	if (!ret && (sz->alloc_failed || !sz->stranded))
		ret = -ENOMEM;
	if (ret) {
		lt_lock(ld);
		t->stats.alloc_failed += ret == -ENOMEM;
		lt_unlock(ld);
		if (sz)
			kvfree(sz->owner);
		kfree(sz);
		return ret;
	}
	lt_lock(ld);
	lt_replay(ld, true);
	lt_track_resize(t, sz);
	now = ld->now;
	age = ld->reclaim_age;
	WRITE_ONCE(ld->range_size, range_size);
	WRITE_ONCE(ld->mem_cap, mem_cap);
	lt_unlock(ld);
	lt_track_count_stranded(sz, now, age, t->time_shift);
	lt_lock(ld);
	lt_track_unstrand(t, sz);
	lt_unlock(ld);
	kvfree(sz->owner);
	kfree(sz->stranded);
	kfree(sz);
	return 0;
}

static ssize_t range_size_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(ld->range_size));
}

static ssize_t range_size_store(struct lt_disk *ld, const char *page,
				size_t count)
{
	u32 v;
	int ret;

	ret = kstrtou32(page, 0, &v);
	if (ret)
		return ret;
	if (!lt_range_size_ok(v))
		return -EINVAL;
	mutex_lock(&ld->plan_mutex);
	ret = lt_resize(ld, v, ld->track.sample_shift, ld->mem_cap);
	mutex_unlock(&ld->plan_mutex);
	return ret ?: count;
}

/*
 * Written under the disk's lock by a resize; a read racing one gives the
 * old value or the new, either of them true a moment ago.
 */
static ssize_t range_bytes_show(struct lt_disk *ld, char *page)
{
	u64 v = data_race(ld->track.stats.range_bytes);	/* see above */

	return sysfs_emit(page, "%llu\n", v);
}

static ssize_t sample_shift_show(struct lt_disk *ld, char *page)
{
	/* One value, of the old table or the new. */
	return sysfs_emit(page, "%u\n", data_race(ld->track.sample_shift));
}

static ssize_t sample_shift_store(struct lt_disk *ld, const char *page,
				  size_t count)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(page, 0, &v);
	if (ret)
		return ret;
	if (v > LT_MAX_SAMPLE_SHIFT)
		return -EINVAL;
	mutex_lock(&ld->plan_mutex);
	ret = lt_resize(ld, ld->range_size, v, ld->mem_cap);
	mutex_unlock(&ld->plan_mutex);
	return ret ?: count;
}

static ssize_t mem_cap_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%llu\n", READ_ONCE(ld->mem_cap));
}

/* A cap no owner table fits turns tracking off: range_bytes reads 0. */
static ssize_t mem_cap_store(struct lt_disk *ld, const char *page,
			     size_t count)
{
	u64 v;
	int ret;

	ret = kstrtou64(page, 0, &v);
	if (ret)
		return ret;
	mutex_lock(&ld->plan_mutex);
	ret = lt_resize(ld, ld->range_size, ld->track.sample_shift, v);
	mutex_unlock(&ld->plan_mutex);
	return ret ?: count;
}

static ssize_t min_side_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(ld->min_side));
}

/* Read by the next plan. */
static ssize_t min_side_store(struct lt_disk *ld, const char *page,
			      size_t count)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(page, 0, &v);
	if (ret)
		return ret;
	if (v > 1000)
		return -EINVAL;
	WRITE_ONCE(ld->min_side, v ?: LT_MIN_SIDE_PM);
	return count;
}

/* The layout in force, for operators; debugfs has the whole of it. */
static ssize_t plans_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%llu\n", READ_ONCE(ld->plans));
}

static ssize_t lt_layout_count(struct lt_disk *ld, char *page, bool streams)
{
	struct lt_installed *inst;
	unsigned int n = 0;

	rcu_read_lock();
	inst = rcu_dereference(ld->layout);
	if (inst)
		n = streams ? inst->layout.nr_streams : inst->layout.nr_tenants;
	rcu_read_unlock();
	return sysfs_emit(page, "%u\n", n);
}

static ssize_t layout_streams_show(struct lt_disk *ld, char *page)
{
	return lt_layout_count(ld, page, true);
}

static ssize_t layout_tenants_show(struct lt_disk *ld, char *page)
{
	return lt_layout_count(ld, page, false);
}

static ssize_t tenant_slots_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%u\n",
			  (unsigned int)hweight64(READ_ONCE(ld->tenant_used)));
}

static ssize_t tenant_overflow_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%llu\n", READ_ONCE(ld->tenant_overflow));
}

static ssize_t memory_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%llu\n", ld->track.stats.mem_bytes +
			  sizeof(*ld) + sizeof(*ld->snap) * LT_MAX_LABELS +
			  sizeof(*ld->scratch) + 2 * sizeof(struct lt_installed) +
			  sizeof(struct lt_tenant_index) +
			  num_possible_cpus() * (sizeof(struct lt_log) +
						 sizeof(*ld->cursor)));
}

#define LT_ATTR_RW(n) \
	static struct lt_attr lt_attr_##n = __ATTR(n, 0644, n##_show, n##_store)
#define LT_ATTR_RO(n) \
	static struct lt_attr lt_attr_##n = __ATTR(n, 0444, n##_show, NULL)
#define LT_ATTR_WO(n) \
	static struct lt_attr lt_attr_##n = __ATTR(n, 0200, NULL, n##_store)

LT_ATTR_RW(reclaim_age);
LT_ATTR_RO(reclaim_age_source);
LT_ATTR_RW(media_bytes_written);
LT_ATTR_WO(replan);
LT_ATTR_RW(auto_plan);
LT_ATTR_RW(range_size);
LT_ATTR_RO(range_bytes);
LT_ATTR_RW(sample_shift);
LT_ATTR_RW(mem_cap);
LT_ATTR_RW(min_side);
LT_ATTR_RO(memory);
LT_ATTR_RO(plans);
LT_ATTR_RO(layout_streams);
LT_ATTR_RO(layout_tenants);
LT_ATTR_RO(tenant_slots);
LT_ATTR_RO(tenant_overflow);

static struct attribute *lt_attrs[] = {
	&lt_attr_reclaim_age.attr,
	&lt_attr_reclaim_age_source.attr,
	&lt_attr_media_bytes_written.attr,
	&lt_attr_replan.attr,
	&lt_attr_auto_plan.attr,
	&lt_attr_range_size.attr,
	&lt_attr_range_bytes.attr,
	&lt_attr_sample_shift.attr,
	&lt_attr_mem_cap.attr,
	&lt_attr_min_side.attr,
	&lt_attr_memory.attr,
	&lt_attr_plans.attr,
	&lt_attr_layout_streams.attr,
	&lt_attr_layout_tenants.attr,
	&lt_attr_tenant_slots.attr,
	&lt_attr_tenant_overflow.attr,
	NULL,
};
ATTRIBUTE_GROUPS(lt);

static ssize_t lt_attr_show(struct kobject *kobj, struct attribute *attr,
			    char *page)
{
	struct lt_attr *a = container_of(attr, struct lt_attr, attr);

	return a->show ? a->show(container_of(kobj, struct lt_disk, kobj), page) : -EIO;
}

static ssize_t lt_attr_store(struct kobject *kobj, struct attribute *attr,
			     const char *page, size_t count)
{
	struct lt_attr *a = container_of(attr, struct lt_attr, attr);

	return a->store ? a->store(container_of(kobj, struct lt_disk, kobj),
				   page, count) : -EIO;
}

static const struct sysfs_ops lt_sysfs_ops = {
	.show = lt_attr_show,
	.store = lt_attr_store,
};

static void lt_free(struct lt_disk *ld)
{
	kvfree(rcu_dereference_protected(ld->layout, true));
	kvfree(ld->next);
	kfree(rcu_dereference_protected(ld->tindex, true));
	kvfree(ld->snap);
	kvfree(ld->scratch);
	free_percpu(ld->log);
	kfree(ld->cursor);
	free_cpumask_var(ld->logged);
	free_cpumask_var(ld->skipped);
	lt_track_exit(&ld->track);
	kvfree(ld);
}

static void lt_kobj_release(struct kobject *kobj)
{
	lt_free(container_of(kobj, struct lt_disk, kobj));
}

static const struct kobj_type lt_ktype = {
	.sysfs_ops = &lt_sysfs_ops,
	.default_groups = lt_groups,
	.release = lt_kobj_release,
};

/* --- debugfs: state -------------------------------------------------- */

/*
 * label tenant cgroup kind source class bytes survival stream histogram,
 * printed from a copy taken in parts (lt_snap_labels()) into the
 * planner's snapshot, which plan_mutex keeps for this reader meanwhile.
 */
static int lt_labels_show(struct seq_file *m, void *v)
{
	struct lt_disk *ld = m->private;
	char (*names)[LT_NAME_LEN];
	u64 ids[LT_MAX_TENANTS], age, *keys;
	struct lt_installed *inst;
	unsigned int i, k;

	names = kvmalloc_array(LT_MAX_LABELS, LT_NAME_LEN + sizeof(*keys),
			       GFP_KERNEL);
	if (!names)
		return -ENOMEM;
	keys = (u64 *)(names + LT_MAX_LABELS);
	mutex_lock(&ld->plan_mutex);
	inst = rcu_dereference_protected(ld->layout,
					 lockdep_is_held(&ld->plan_mutex));
	lt_lock(ld);
	lt_replay(ld, true);
	memcpy(ids, ld->tenant_id, sizeof(ids));
	age = ld->reclaim_age;
	lt_unlock(ld);
	lt_snap_labels(ld, ld->snap, keys, names);

	seq_puts(m, "label tenant cgroup hint source class bytes survival stream histogram\n");
	for (i = 1; i < LT_MAX_LABELS; i++) {
		const struct lt_label *l = &ld->snap[i];
		u64 key = l->key;
		u32 surv;

		if (!(l->flags & LT_LABEL_USED) || (l->flags & LT_LABEL_DRAINING))
			continue;
		surv = lt_survival(l->bytes, lt_dead_before(l->hist, age));
		seq_printf(m, "%u %u %llu %s %s %s %llu %u.%03u %u", i, l->tenant,
			   ids[l->tenant], lt_hint_name[(key >> 56) & 7],
			   lt_src_name[(key >> 48) & 3],
			   names[i][0] ? names[i] : "-", l->bytes,
			   surv >> LT_SURV_SHIFT,
			   (u32)(((u64)(surv & (LT_SURV_ONE - 1)) * 1000) >> LT_SURV_SHIFT),
			   inst && inst->key[i] == key ? inst->layout.label_stream[i] : 0);
		for (k = 0; k < LT_NR_BINS; k++)
			seq_printf(m, "%c%llu", k ? ',' : ' ', l->hist[k]);
		seq_putc(m, '\n');
	}
	mutex_unlock(&ld->plan_mutex);
	kvfree(names);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(lt_labels);

/* the planner's state, then stream tenant cgroup class survival bytes */
static int lt_layout_show(struct seq_file *m, void *v)
{
	u64 ids[LT_MAX_TENANTS], used, removed, idle, overflow, p;
	u32 sharers[LT_MAX_TENANTS];
	struct lt_disk *ld = m->private;
	struct lt_installed *inst;
	unsigned int i;

	lt_lock(ld);
	lt_replay(ld, true);
	memcpy(ids, ld->tenant_id, sizeof(ids));
	memcpy(sharers, ld->tenant_sharers, sizeof(sharers));
	used = ld->tenant_used;
	removed = ld->tenants_removed;
	idle = ld->tenants_idle;
	overflow = ld->tenant_overflow;
	lt_unlock(ld);
	mutex_lock(&ld->plan_mutex);
	inst = rcu_dereference_protected(ld->layout,
					 lockdep_is_held(&ld->plan_mutex));
	seq_printf(m, "plans %llu\nchecks %llu\nperiods %llu\nlast_reason %s\nlast_plan_ms_ago %u\n",
		   ld->plans, ld->checks, ld->periods, ld->last_reason ?: "-",
		   ld->plans ? jiffies_to_msecs(jiffies - ld->last_plan) : 0);
	seq_printf(m, "reclaim_age %llu\nreclaim_age_source %s\nhost_bytes %llu\nlast_plan_host_bytes %llu\n",
		   ld->reclaim_age << LT_PAGE_SHIFT, ld->age_source,
		   READ_ONCE(ld->now) << LT_PAGE_SHIFT,
		   ld->last_plan_now << LT_PAGE_SHIFT);
	for (p = ld->plans > LT_HISTORY ? ld->plans - LT_HISTORY + 1 : 1;
	     p <= ld->plans; p++)
		seq_printf(m, "plan %llu %s %llu\n", p,
			   ld->history[p % LT_HISTORY].reason,
			   ld->history[p % LT_HISTORY].now << LT_PAGE_SHIFT);
	if (inst) {
		seq_printf(m, "tenants %u\nshared_tenants %u\nshared_streams %u\nworth %llu\ninformed %#llx\n",
			   inst->layout.nr_tenants, inst->layout.nr_shared,
			   inst->layout.nr_groups, inst->layout.total_worth,
			   inst->informed);
		for (i = 0; i < inst->layout.nr_streams; i++) {
			const struct lt_layout_stream *s = &inst->layout.stream[i];

			seq_printf(m, "stream %u tenant %d cgroup %llu class %u survival %u bytes %llu\n",
				   s->stream,
				   s->tenant == LT_TENANT_SHARED ? -1 : s->tenant,
				   s->tenant == LT_TENANT_SHARED ? 0 :
				   ids[s->tenant], s->class,
				   (u32)(((u64)s->survival * 1000) >> LT_SURV_SHIFT),
				   s->bytes);
		}
		for (i = 0; i < inst->layout.nr_commits; i++)
			seq_printf(m, "boundary %u tenant %u label %u worth %llu\n",
				   i, inst->layout.commit[i].tenant,
				   inst->layout.commit[i].label,
				   inst->layout.commit[i].worth);
	}
	mutex_unlock(&ld->plan_mutex);
	seq_printf(m, "tenant_slots %u\ntenants_removed %llu\ntenants_idle %llu\ntenant_overflow %llu\n",
		   (unsigned int)hweight64(used), removed, idle, overflow);
	for (i = 0; i < LT_MAX_TENANTS; i++)
		if (used & BIT_ULL(i))
			seq_printf(m, "tenant %u cgroup %llu sharers %u\n", i,
				   ids[i], sharers[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(lt_layout);

static int lt_stats_show(struct seq_file *m, void *v)
{
	struct lt_disk *ld = m->private;
	struct lt_track_stats st;
	unsigned int i, cpu;

	lt_lock(ld);
	lt_replay(ld, true);
	st = ld->track.stats;
	lt_unlock(ld);
	seq_printf(m, "tracking %s\nranges %llu\nrange_bytes %llu\nmemory_bytes %llu\n",
		   st.ranges ? "on" : "off", st.ranges, st.range_bytes, st.mem_bytes);
	seq_printf(m, "host_bytes %llu\ndiscard_bytes %llu\ndead_bytes %llu\n",
		   st.host_bytes, st.discard_bytes, st.dead_bytes);
	seq_printf(m, "orphan_bytes %llu\ndropped_bytes %llu\nlabel_overflow %llu\n",
		   st.orphan_bytes, st.dropped_bytes, st.label_overflow);
	seq_printf(m, "labels_retired %llu\ntracking_off %u\nalloc_failed %u\n",
		   st.labels_retired, st.off, st.alloc_failed);
	seq_printf(m, "sample_shift %u\nskipped_bytes %llu\n",
		   ld->track.sample_shift, lt_skipped_pages(ld) << LT_PAGE_SHIFT);
	seq_printf(m, "irqoff_max_ns %llu\nirqoff_max_at %pS\n",
		   READ_ONCE(ld->held_max), (void *)READ_ONCE(ld->held_max_at));
	for (i = 0; i <= LT_MAX_STREAMS; i++) {
		u64 p = 0;

		for_each_possible_cpu(cpu)
			p += lt_stream_sum(per_cpu_ptr(ld->log, cpu), i);
		if (p)
			seq_printf(m, "stream %u bytes %llu\n", i, p << LT_PAGE_SHIFT);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(lt_stats);

/* Turn timing of the disk's lock on or off; lt_exit_disk() turns it off. */
static void lt_set_timing(struct lt_disk *ld, bool on)
{
	lockdep_assert_held(&lt_timing_mutex);
	if (on == ld->timing)
		return;
	WRITE_ONCE(ld->timing, on);
	if (on)
		static_branch_deferred_inc(&lt_timing);
	else
		static_branch_slow_dec_deferred(&lt_timing);
}

static ssize_t lt_timing_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct lt_disk *ld = file_inode(file)->i_private;
	char v[2] = { READ_ONCE(ld->timing) ? '1' : '0', '\n' };

	return simple_read_from_buffer(buf, count, ppos, v, 2);
}

static ssize_t lt_timing_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct lt_disk *ld = file_inode(file)->i_private;
	bool on;
	int ret;

	ret = kstrtobool_from_user(buf, count, &on);
	if (ret)
		return ret;
	mutex_lock(&lt_timing_mutex);
	lt_set_timing(ld, on);
	mutex_unlock(&lt_timing_mutex);
	return count;
}

static const struct file_operations lt_timing_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = lt_timing_read,
	.write = lt_timing_write,
	.llseek = default_llseek,
};

/* --- policy ---------------------------------------------------------- */

static const struct blk_stream_debugfs_file lt_debugfs_files[] = {
	{ "labels", 0400, &lt_labels_fops },
	{ "layout", 0400, &lt_layout_fops },
	{ "stats", 0400, &lt_stats_fops },
	{ "irqoff_timing", 0600, &lt_timing_fops },
	{ }
};

/*
 * Checks that io.stream asks for are at least this far apart, however
 * often it is written (a delegatee may write it in a loop).
 */
#define LT_CONFINE_GAP		HZ

static void lt_confine_workfn(struct work_struct *work)
{
	struct lt_disk *ld = container_of(to_delayed_work(work), struct lt_disk,
					  confine_work);

	queue_work(system_dfl_wq, &ld->work);
}

/*
 * io.stream changed the streams that confine a cgroup's writes on the
 * disk: check now whether the layout must change (lt_layout_confined()),
 * rather than at the next check, which host writes bring; or, if the last
 * such check was queued less than LT_CONFINE_GAP ago, once that gap has
 * passed.  Calls while the delayed work is pending add nothing.  Under the
 * disk's queue_lock, which serializes the calls for one instance;
 * exit_disk cancels the works after a grace period.  With auto_plan off
 * a check would plan nothing.
 */
static void lt_confine_changed(struct gendisk *disk, void *data)
{
	struct lt_disk *ld = data;
	long wait = (long)(ld->confine_next - jiffies);

	if (!READ_ONCE(ld->auto_plan))
		return;
	wait = clamp_t(long, wait, 0, LT_CONFINE_GAP);
	if (queue_delayed_work(system_dfl_wq, &ld->confine_work, wait))
		ld->confine_next = jiffies + wait + LT_CONFINE_GAP;
}

static int lt_init_instance(struct gendisk *disk, void **data, bool shadow)
{
	const char *name = shadow ? "lifetime_shadow" : "lifetime";
	struct lt_disk *ld;
	sector_t nr_sectors;
	unsigned int cpu;
	int ret;

	ld = kvzalloc_obj(*ld, GFP_KERNEL);
	if (!ld)
		return -ENOMEM;
	ld->disk = disk;
	ld->shadow = shadow;
	spin_lock_init(&ld->lock);
	mutex_init(&ld->plan_mutex);
	INIT_WORK(&ld->work, lt_workfn);
	INIT_DELAYED_WORK(&ld->confine_work, lt_confine_workfn);
	ld->confine_next = jiffies;
	kobject_init(&ld->kobj, &lt_ktype);

	ld->snap = kvcalloc(LT_MAX_LABELS, sizeof(*ld->snap), GFP_KERNEL);
	ld->scratch = kvzalloc_obj(*ld->scratch, GFP_KERNEL);
	ld->log = alloc_percpu(struct lt_log);
	ld->cursor = kcalloc(nr_cpu_ids, sizeof(*ld->cursor), GFP_KERNEL);
	RCU_INIT_POINTER(ld->tindex, kzalloc_obj(struct lt_tenant_index,
						 GFP_KERNEL));
	ld->bare_tag = 1;
	if (!ld->snap || !ld->scratch || !ld->log || !ld->cursor ||
	    !rcu_access_pointer(ld->tindex) ||
	    !zalloc_cpumask_var(&ld->logged, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&ld->skipped, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto out_put;
	}
	for_each_possible_cpu(cpu)
		spin_lock_init(&per_cpu_ptr(ld->log, cpu)->lock);
	/*
	 * A disk of no capacity has nothing to track.  One being deleted
	 * can read so before it is marked dead (nvme_ns_remove() sets the
	 * capacity to 0 before del_gendisk()): refuse it as a dead disk is.
	 * So does a namespace whose format the host cannot use.
	 */
	nr_sectors = get_capacity(disk);
	if (!nr_sectors) {
		pr_info_ratelimited("%s: lifetime: capacity 0 (being removed, or an unusable format): nothing to track\n",
				    disk->disk_name);
		ret = -ENODEV;
		goto out_put;
	}
	/*
	 * Without an owner table within the cap there is no tracking and no
	 * placement; the disk still takes the policy, and its stats say so.
	 */
	ld->mem_cap = LT_DEFAULT_MEM_CAP;
	ld->min_side = LT_MIN_SIDE_PM;
	ret = lt_track_init(&ld->track, nr_sectors, 0, LT_DEFAULT_SAMPLE_SHIFT,
			    ld->mem_cap);
	if (ret == -EINVAL)
		pr_warn("%s: lifetime: cannot track a disk of %llu sectors\n",
			disk->disk_name, (u64)nr_sectors);
	if (ret)
		goto out_put;
	if (ld->track.stats.alloc_failed)
		pr_info("%s: lifetime: cannot allocate the owner table, no placement\n",
			disk->disk_name);
	else if (!ld->track.on)
		pr_info("%s: lifetime: no owner table within mem_cap=%llu, no placement\n",
			disk->disk_name, ld->mem_cap);
	ld->age_source = "capacity";
	ld->auto_plan = true;
	lt_update_reclaim_age(ld);
	ld->next_period = lt_period(ld);
	ld->next_check = lt_next_check(ld);

	ret = kobject_add(&ld->kobj, &disk->queue_kobj, name);
	if (ret)
		goto out_put;
	ld->debugfs = blk_stream_debugfs_create(disk, name, lt_debugfs_files, ld);
	/* Files opened for writing from now on get write classes. */
	write_class_enable();
	*data = ld;
	return 0;

out_put:
	kobject_put(&ld->kobj);
	return ret;
}

static int lt_init_disk(struct gendisk *disk, void **data)
{
	return lt_init_instance(disk, data, false);
}

static int lt_init_shadow(struct gendisk *disk, void **data)
{
	return lt_init_instance(disk, data, true);
}

static void lt_exit_disk(struct gendisk *disk, void *data)
{
	struct lt_disk *ld = data;

	blk_stream_debugfs_remove(disk, ld->debugfs);
	kobject_del(&ld->kobj);
	/* First the work that queues the other. */
	cancel_delayed_work_sync(&ld->confine_work);
	cancel_work_sync(&ld->work);
	mutex_lock(&lt_timing_mutex);
	lt_set_timing(ld, false);
	mutex_unlock(&lt_timing_mutex);
	write_class_disable();
	kobject_put(&ld->kobj);
}

static struct blk_stream_policy lt_policy = {
	.name = "lifetime",
	.owner = THIS_MODULE,
	.init_disk = lt_init_disk,
	.init_shadow = lt_init_shadow,
	.exit_disk = lt_exit_disk,
	.confine_changed = lt_confine_changed,
	.decide = lt_decide,
	.observe = lt_observe,
};

static int __init lt_init(void)
{
	return blk_stream_register_policy(&lt_policy);
}

static void __exit lt_exit(void)
{
	blk_stream_unregister_policy(&lt_policy);
	static_key_deferred_flush(&lt_timing);
}

module_init(lt_init);
module_exit(lt_exit);
MODULE_DESCRIPTION("Write stream placement policy that learns data lifetimes");
MODULE_LICENSE("GPL");

#ifdef CONFIG_BLK_STREAM_LIFETIME_KUNIT_TEST
#include "tests/lt-kunit.c"
#endif
