/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lifetime policy's own header: the state of one disk, and what its
 * files share.  They are:
 *
 * - lt-bio.c: one bio's path, top to bottom: its label, its tenant, its
 *   stream, and what the tracker is told of it;
 * - lt-layout.c: the worker that checks, plans and installs layouts;
 * - lt-sysfs.c: the settings in queue/lifetime/;
 * - lt-debugfs.c: the state in debugfs;
 * - lifetime.c: the policy's operations and the module.
 *
 * The tracker and the planner (lt-track.c, lt-plan.c, lt-core.h) know
 * nothing of these, and build in user space too.
 */
#ifndef _BLK_LIFETIME_H
#define _BLK_LIFETIME_H

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
#include <kunit/visibility.h>

#include "lt-core.h"

/* Where a label's file class comes from. */
enum lt_src {
	LT_SRC_NONE,	/* nothing: writeback of a page with no file */
	LT_SRC_FILE,	/* the name pattern of a page-cache write's file */
	LT_SRC_THREAD,	/* the writing task's name pattern */
	LT_SRC_BDEV,	/* a block device's own page cache (fs metadata) */
};

/*
 * A label's key (lt_src_key()): bit 62 always set, so that no key is 0;
 * the write's stream key (bio_stream_key(): its lifetime hint, or its
 * kind) in LT_KEY_HINT_MASK at LT_KEY_HINT_SHIFT; the &enum lt_src at
 * LT_KEY_SRC_SHIFT; the file class or thread pattern below.
 */
#define LT_KEY_HINT_SHIFT	56
#define LT_KEY_HINT_MASK	7
#define LT_KEY_SRC_SHIFT	48
#define LT_KEY_SRC_MASK		0xff

/* The planner's rank of a label (struct lt_plan_input): its key's place. */
static inline u8 lt_key_rank(u64 key)
{
	return blk_stream_key_rank((key >> LT_KEY_HINT_SHIFT) &
				   LT_KEY_HINT_MASK);
}

/* lt_plan() refuses a rank past LT_RANK_MAX: the policy's must fit. */
static_assert(BLK_STREAM_KEY_RANKS <= LT_RANK_MAX);

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
 * @rank: the planner's rank of each label of @snap (lt_key_rank()),
 *	under @plan_mutex
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
 * @writer_ranks: plan with the ranks of what the writers said
 *	(lt_key_rank()) where survivals tie
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
	u8 rank[LT_MAX_LABELS];
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
	bool writer_ranks;
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

/* irqoff_timing (lifetime.c): the disks' switches, and the key they count. */
extern struct mutex lt_timing_mutex;
extern struct static_key_false_deferred lt_timing;

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

/* lt-bio.c */
void lt_check_soon(struct lt_disk *ld);
unsigned int lt_decide(struct gendisk *disk, void *data, struct bio *bio);
u64 lt_next_check(const struct lt_disk *ld);
void lt_observe(struct gendisk *disk, void *data, struct bio *bio,
		unsigned int stream);
u64 lt_period(const struct lt_disk *ld);
void lt_replay(struct lt_disk *ld, bool all);
u64 lt_skipped_pages(struct lt_disk *ld);
u64 lt_stream_sum(const struct lt_log *log, unsigned int stream);
bool lt_tenant_insert(struct lt_tenant_index *ti, u64 cgid, u16 slot);

/* lt-layout.c */
void lt_snap_labels(struct lt_disk *ld, struct lt_label *snap, u64 *key,
		    char names[][LT_NAME_LEN]);
void lt_update_reclaim_age(struct lt_disk *ld);
void lt_workfn(struct work_struct *work);

/* lt-sysfs.c */
extern const struct kobj_type lt_ktype;

/* lt-debugfs.c */
void lt_set_timing(struct lt_disk *ld, bool on);
extern const struct blk_stream_debugfs_file lt_debugfs_files[];

/* Visible to the KUnit tests (tests/lt-kunit.c) only. */
#if IS_ENABLED(CONFIG_KUNIT)
/* lt-bio.c */
u64 lt_bio_key(struct bio *bio, char *name);
void lt_clock(struct lt_disk *ld, u64 pages);
void lt_log(struct lt_disk *ld, u64 sector, u32 nr_sectors, u64 key, u16 tenant,
	    const char *name);
bool lt_log_add(struct lt_disk *ld, struct lt_log *log, unsigned int cpu,
		const struct lt_rec *rec, u64 pages);
bool lt_memo_flush(struct lt_disk *ld, struct lt_log *log, struct lt_memo *m);
void lt_record(struct lt_disk *ld, struct bio *bio, u64 key, u16 tenant,
	       const char *name);
void lt_skip(struct lt_disk *ld, struct bio *bio, u16 tenant);
u16 lt_tenant_add(struct lt_disk *ld, struct cgroup *cg, u64 cgid);
int lt_tenant_find(const struct lt_tenant_index *ti, u64 cgid);
/* lt-layout.c */
const char *lt_layout_confined(const struct lt_disk *ld,
			       const struct lt_installed *cur, const u8 *free,
			       unsigned int nr_free);
void lt_tenants_recycle(struct lt_disk *ld, struct lt_installed *cur);
/* lt-sysfs.c */
void lt_free(struct lt_disk *ld);
/* lifetime.c */
int lt_init_disk(struct gendisk *disk, void **data);
int lt_init_shadow(struct gendisk *disk, void **data);
#endif

#endif /* _BLK_LIFETIME_H */
