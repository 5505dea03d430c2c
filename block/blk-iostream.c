// SPDX-License-Identifier: GPL-2.0
/*
 * io.stream: a cgroup v2 controller that confines a cgroup's writes to the
 * write streams it allows per disk.
 *
 * On a shared machine the operator knows which tenant's data live long and
 * which die young; the applications do not tag their writes, and buffered
 * writes reach the disk from the flusher, long after the writer left.
 * io.stream lets the operator say, per cgroup and disk, which write streams
 * (on an NVMe FDP SSD: which placement handles) the cgroup's writes may
 * use, writeback included: a bio is decided for the cgroup it is charged
 * to, which for writeback is the cgroup that owns the inode's writeback.
 *
 *   $ cat io.stream
 *   default inherit
 *   259:0 3-4
 *
 * A value is "inherit" (no setting of its own), 0 (no stream) or a set of
 * streams of the disk.  As with cpuset, a cgroup gets only what its
 * ancestors allow: its effective set is its setting intersected with its
 * parent's effective set.  Where that is empty, or the setting is 0, the
 * cgroup keeps its parent's effective set: on FDP a write without a stream
 * goes to the namespace's default handle, which is stream 1's, so "no
 * stream" would be one more stream, the one the operator may have given
 * another tenant.  0 means the device's default placement only where no
 * ancestor has a setting.  So the settings of a delegated subtree, whose
 * owner writes the io.stream files of its sub-cgroups but not of its own
 * root, never widen what the subtree's root allows.  What io.stream does
 * not see (NVMe passthrough, zone append, writes charged to another
 * cgroup) is listed in Documentation/admin-guide/cgroup-v2.rst.  An
 * effective set of one stream pins the writes to it; of several, it is a
 * budget: the submitter's stream, the filesystem's or the disk's placement
 * policy's choice is kept if it is in the set and replaced by one of the
 * set if not (see block/blk-stream.c for the order).  The root has no
 * file: no setting anywhere leaves every rule free.
 *
 * Settings are immutable objects published with RCU; each blkg keeps its
 * effective set in its policy data, under a seqcount.  A write of
 * io.stream allocates the new setting, replaces the old one, then
 * recomputes the effective sets of the written cgroup's subtree only (on
 * the disk of the line, or on every disk for a default), parents first,
 * each in place under its disk's queue_lock; a new blkg computes its own
 * when it is created, under the same lock.  Recomputing allocates
 * nothing, so a setting that is in force always has its subtree follow
 * it, and a write that fails (-ENOMEM for the setting) changed nothing.
 * The decision point copies the bio's blkg's set under the seqcount,
 * without a lock.  No global lock is taken on the way, so one tenant's
 * writes of io.stream cost the others nothing but the recomputation of
 * its own subtree.
 *
 * The policy is active on every disk that has streams when it is added,
 * so that each (cgroup, disk) pair there has a place for its setting;
 * disks without streams do not pay for it.  Nothing runs on the I/O path
 * while no cgroup has a setting.
 *
 * io.stat shows, per disk, the bytes and writes per stream of the cgroup
 * and its descendants.  A write counts on per-CPU counters, which rstat
 * (the io controller's flush, through pd_flush_fn) adds to the cgroup's
 * totals and passes up to its ancestors', as it does io.stat's other
 * keys; a removed cgroup's last counts reach its parent when its blkg is
 * released.  The counters are allocated by a work item, charged to the
 * cgroup's memory cgroup, after the cgroup's first counted write to a
 * disk with streams; until then, writes count in a few slots of the
 * policy data, and a failed allocation is tried again by a write a
 * second later.  Nothing is allocated on the I/O path: counters never
 * fail a bio nor a blkg.  So a disk without streams, and a cgroup that
 * never wrote to a disk, costs the policy data and its effective set and
 * nothing per CPU.
 */

#include <kunit/static_stub.h>
#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "blk-cgroup.h"
#include "blk-iostream.h"
#include "blk-stream.h"

/* Streams are u8 in struct bio. */
#define IOSTREAM_MAX		255
#define IOSTREAM_BITS		(IOSTREAM_MAX + 1)

static struct blkcg_policy blkcg_policy_iostream;

/**
 * struct iostream_mask - an io.stream setting, or an effective set
 * @rcu: for freeing a setting after the readers left
 * @inherit: for an effective set: no cgroup up to the root has a setting,
 *	every stream is allowed.  A setting of "inherit" has no object.
 * @rule2: for an effective set: what it says to rule 2 (see
 *	__blkcg_write_stream())
 * @map: the streams allowed, from 1 to %IOSTREAM_MAX; none for "0"
 *
 * A setting is never changed once published: a change publishes a new
 * object.  An effective set is kept in its blkg's policy data.
 */
struct iostream_mask {
	struct rcu_head rcu;
	bool inherit;
	int rule2;
	DECLARE_BITMAP(map, IOSTREAM_BITS);
};

/**
 * struct iostream_blkcg - per-cgroup data
 * @cpd: policy data
 * @dfl: the cgroup's default for disks without a line of their own, NULL
 *	for none
 */
struct iostream_blkcg {
	struct blkcg_policy_data cpd;
	struct iostream_mask __rcu *dfl;
};

/**
 * struct iostream_count - bytes and write bios
 * @bytes: bytes written
 * @ios: write bios
 */
struct iostream_count {
	u64 bytes;
	u64 ios;
};

/**
 * struct iostream_pcpu - what a cgroup wrote on one stream, on one CPU
 * @bytes: bytes written
 * @ios: write bios
 * @flushed: what of them the last flush added to the totals; under
 *	blkg_stat_lock
 */
struct iostream_pcpu {
	u64_stats_t bytes;
	u64_stats_t ios;
	struct iostream_count flushed;
};

/**
 * struct iostream_cpu_stat - what a cgroup wrote to one disk, on one CPU
 * @syncp: lets 32-bit machines read the counters whole
 * @nr: entries in @stream: the disk's streams when the counters were
 *	allocated, plus stream 0
 * @dirty: counts changed since the last flush took them: set by a write
 *	of this CPU that then has the blkg queued for a flush (while set,
 *	writes do not ask again), cleared by the flush
 * @fallback: writes whose stream the disk no longer had (@fallback.ios)
 * @stream: per stream
 */
struct iostream_cpu_stat {
	struct u64_stats_sync syncp;
	unsigned int nr;
	unsigned int dirty;
	struct iostream_pcpu fallback;
	struct iostream_pcpu stream[] __counted_by(nr);
};

/**
 * struct iostream_total - what a cgroup and its descendants wrote on one
 *	stream of one disk, as far as rstat flushed it
 * @sum: the counts
 * @passed: what of @sum was added to the parent's
 */
struct iostream_total {
	struct iostream_count sum;
	struct iostream_count passed;
};

/**
 * struct iostream_counters - what a cgroup wrote to one disk, per stream
 * @pcpu: the cgroup's own writes, per CPU
 * @syncp: lets 32-bit machines read the totals whole; written under
 *	blkg_stat_lock
 * @nr: entries in @total, as in @pcpu's
 * @unpassed: @total gained counts that were not passed to the parent's
 *	yet; under blkg_stat_lock
 * @fallback: as @total, of the fallbacks (only .ios counts)
 * @total: per stream, the subtree's
 */
struct iostream_counters {
	struct iostream_cpu_stat __percpu *pcpu;
	struct u64_stats_sync syncp;
	unsigned int nr;
	bool unpassed;
	struct iostream_total fallback;
	struct iostream_total total[] __counted_by(nr);
};

/* Streams a cgroup's first writes to a disk are counted on, before its counters. */
#define IOSTREAM_EARLY		4

/**
 * struct iostream_grp - per (cgroup, disk) data
 * @pd: policy data
 * @rcu: for freeing after the decisions that read it
 * @set: the cgroup's line for this disk, NULL for none
 * @eff_seq: lets a decision read @eff whole, without a lock
 * @eff: the effective set of the cgroup on the disk; written under the
 *	disk's queue_lock, inside @eff_seq
 * @ctr: the counters, NULL until a work item allocated them after the
 *	first counted write to a disk with streams; set once under
 *	@early_lock, freed with @pd
 * @early_lock: protects the fields below
 * @early_nr: early slots in use
 * @early_stream: the stream of each early slot
 * @early: counts of the writes made before @ctr, per early slot
 * @early_fallback: fallbacks made before @ctr
 * @ctr_queued: the work item is to allocate @ctr; it holds the blkg
 * @ctr_fails: allocations of @ctr that failed in a row
 * @ctr_retry: jiffies from which a write may ask for @ctr again, after a
 *	failure: a second after the first, twice as long after each next
 *	one, up to a minute
 * @ctr_node: on iostream_ctr_list while @ctr_queued
 */
struct iostream_grp {
	struct blkg_policy_data pd;
	struct rcu_head rcu;
	struct iostream_mask __rcu *set;
	seqcount_spinlock_t eff_seq;
	struct iostream_mask eff;
	struct iostream_counters *ctr;
	spinlock_t early_lock;	/* the early slots, @ctr's publication */
	u8 early_nr;
	u8 early_stream[IOSTREAM_EARLY];
	struct iostream_count early[IOSTREAM_EARLY];
	u64 early_fallback;
	bool ctr_queued;
	u8 ctr_fails;
	unsigned long ctr_retry;
	struct list_head ctr_node;
};

/*
 * The effective set where nothing confines, and of a blkg until its own is
 * computed.  Never freed.
 */
static struct iostream_mask iostream_any = {
	.inherit = true,
	.rule2 = BLKCG_STREAM_ANY,
};

/*
 * Settings other than "inherit", over all cgroups and disks: while there
 * are any, the decision point runs and reads each write's effective set
 * (see blkcg_write_stream()).  The static key follows the count: taken at
 * once when a setting appears, given back a second after the last one
 * went, so that a tenant that sets and clears io.stream in a loop does not
 * patch the kernel's text in a loop.  iostream_key_mutex serializes the
 * changes of the key only.
 */
atomic_t iostream_nr_pins = ATOMIC_INIT(0);
static DEFINE_MUTEX(iostream_key_mutex);
static bool iostream_key_held;
static bool iostream_registered;

static void iostream_update_key(void)
{
	bool want = atomic_read(&iostream_nr_pins) > 0;

	lockdep_assert_held(&iostream_key_mutex);
	if (want && !iostream_key_held)
		blk_stream_get();
	else if (!want && iostream_key_held)
		blk_stream_put();
	iostream_key_held = want;
}

static void iostream_key_workfn(struct work_struct *work)
{
	mutex_lock(&iostream_key_mutex);
	iostream_update_key();
	mutex_unlock(&iostream_key_mutex);
}

static DECLARE_DELAYED_WORK(iostream_key_work, iostream_key_workfn);

/* Make the static key follow the count of pins; may sleep. */
static void iostream_sync_key(void)
{
	if (atomic_read(&iostream_nr_pins) > 0) {
		if (!READ_ONCE(iostream_key_held))
			iostream_key_workfn(NULL);
	} else if (READ_ONCE(iostream_key_held)) {
		mod_delayed_work(system_percpu_wq, &iostream_key_work, HZ);
	}
}

/* Forget the pin of a setting that goes away with its cgroup. */
static void iostream_drop_pin(atomic_t *pins)
{
	if (atomic_dec_and_test(pins) && pins == &iostream_nr_pins)
		mod_delayed_work(system_percpu_wq, &iostream_key_work, HZ);
}

static struct iostream_blkcg *blkcg_to_iostream(struct blkcg *blkcg)
{
	struct blkcg_policy_data *cpd = blkcg_to_cpd(blkcg, &blkcg_policy_iostream);

	return cpd ? container_of(cpd, struct iostream_blkcg, cpd) : NULL;
}

static struct iostream_grp *blkg_to_iostream(struct blkcg_gq *blkg)
{
	struct blkg_policy_data *pd = blkg_to_pd(blkg, &blkcg_policy_iostream);

	return pd ? container_of(pd, struct iostream_grp, pd) : NULL;
}

static struct blkcg *iostream_parent(struct blkcg *blkcg)
{
	return css_to_blkcg(blkcg->css.parent);
}

/*
 * The setting that applies to @blkcg on a disk: its line for the disk
 * (from @blkg, its blkg there, if it has one), else its default; NULL for
 * none.  Under rcu_read_lock().
 */
static const struct iostream_mask *iostream_level(struct blkcg_gq *blkg,
						  struct blkcg *blkcg)
{
	struct iostream_grp *grp = blkg ? blkg_to_iostream(blkg) : NULL;
	struct iostream_blkcg *isc = blkcg_to_iostream(blkcg);
	const struct iostream_mask *m;

	m = grp ? rcu_dereference(grp->set) : NULL;
	if (!m && isc)
		m = rcu_dereference(isc->dfl);
	return m;
}

/* What an effective set says to rule 2: see __blkcg_write_stream(). */
static int iostream_rule2(const struct iostream_mask *eff)
{
	unsigned int first;

	if (eff->inherit)
		return BLKCG_STREAM_ANY;
	first = find_first_bit(eff->map, IOSTREAM_BITS);
	if (first == IOSTREAM_BITS)
		return 0;
	if (find_next_bit(eff->map, IOSTREAM_BITS, first + 1) < IOSTREAM_BITS)
		return BLKCG_STREAM_BUDGET;
	return first;
}

/*
 * The effective set of a level whose parent's is @parent, on a disk with
 * @max streams: @parent narrowed by the level's setting @m (NULL for
 * none).  Below a level with a setting, a setting of 0 or one that leaves
 * nothing of @parent keeps @parent: the level cannot give up the streams
 * it was given for the default placement, which on FDP is stream 1's
 * handle.  Where nothing above confines, a setting that names only
 * streams the disk lacks (a default written for a larger disk) leaves
 * "0", the device's default placement: the narrowest choice, where every
 * stream of the disk would open the other tenants' streams to the
 * cgroup's writes.  @eff may be @parent.
 */
static void iostream_narrow(struct iostream_mask *eff,
			    const struct iostream_mask *parent,
			    const struct iostream_mask *m, unsigned int max)
{
	DECLARE_BITMAP(map, IOSTREAM_BITS);

	if (!m) {
		if (eff != parent) {
			eff->inherit = parent->inherit;
			bitmap_copy(eff->map, parent->map, IOSTREAM_BITS);
		}
	} else {
		bitmap_copy(map, m->map, IOSTREAM_BITS);
		if (max < IOSTREAM_MAX)
			bitmap_clear(map, max + 1, IOSTREAM_MAX - max);
		if (!parent->inherit &&
		    !bitmap_and(map, map, parent->map, IOSTREAM_BITS))
			bitmap_copy(map, parent->map, IOSTREAM_BITS);
		eff->inherit = false;
		bitmap_copy(eff->map, map, IOSTREAM_BITS);
	}
	eff->rule2 = iostream_rule2(eff);
}

/* Whether @a and @b are the same effective set. */
static bool iostream_same(const struct iostream_mask *a,
			  const struct iostream_mask *b)
{
	return a->inherit == b->inherit &&
	       bitmap_equal(a->map, b->map, IOSTREAM_BITS);
}

/*
 * The effective set in force for @grp, copied into @buf, which is
 * returned.  Any context a bio is submitted from: without a lock, but
 * on PREEMPT_RT a reader that meets a write in progress waits for the
 * disk's queue_lock, which the writer holds for a copy of the set.
 */
static const struct iostream_mask *
iostream_grp_eff(struct iostream_grp *grp, struct iostream_mask *buf)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&grp->eff_seq);
		buf->inherit = grp->eff.inherit;
		buf->rule2 = grp->eff.rule2;
		bitmap_copy(buf->map, grp->eff.map, IOSTREAM_BITS);
	} while (read_seqcount_retry(&grp->eff_seq, seq));
	return buf;
}

/*
 * The effective set in force for @grp, where its disk's queue_lock, which
 * every write of it holds, is held.
 */
static const struct iostream_mask *
iostream_grp_eff_locked(struct iostream_grp *grp)
{
	lockdep_assert_held(&grp->pd.blkg->q->queue_lock);
	return &grp->eff;
}

/* Put @next in force for @grp.  Under the disk's queue_lock. */
static void iostream_publish(struct iostream_grp *grp,
			     const struct iostream_mask *next)
{
	write_seqcount_begin(&grp->eff_seq);
	grp->eff.inherit = next->inherit;
	grp->eff.rule2 = next->rule2;
	bitmap_copy(grp->eff.map, next->map, IOSTREAM_BITS);
	write_seqcount_end(&grp->eff_seq);
}

/*
 * Compute @blkg's effective set, on a disk with @max streams, from its
 * parent's and its own setting, into @next.  Under the disk's queue_lock
 * and rcu_read_lock(), parents first.
 *
 * Return: 0, or -ENOENT when @blkg or its parent has no io.stream data,
 * which the order of policy activation rules out for a parent: then @blkg
 * keeps the set it has.
 */
static int iostream_compute(struct blkcg_gq *blkg, unsigned int max,
			    struct iostream_mask *next)
{
	struct iostream_grp *pgrp;

	if (!blkg_to_iostream(blkg))
		return -ENOENT;
	if (!blkg->parent) {
		next->inherit = true;
		bitmap_zero(next->map, IOSTREAM_BITS);
		next->rule2 = BLKCG_STREAM_ANY;
		return 0;
	}
	pgrp = blkg_to_iostream(blkg->parent);
	if (WARN_ON_ONCE(!pgrp))
		return -ENOENT;
	iostream_narrow(next, iostream_grp_eff_locked(pgrp),
			iostream_level(blkg, blkg->blkcg), max);
	return 0;
}

/*
 * Recompute @blkg's effective set and put it in force if it changed, and
 * then tell the disk's placement policies, which may plan within it.
 * Under rcu_read_lock(); takes the disk's queue_lock.  The disk is read
 * under it while the blkg is online: the disk's release has not passed
 * blkcg_exit_disk(), which takes the blkgs offline under the same lock
 * before the placement state is freed (see disk_release()).
 */
static void iostream_update_blkg(struct blkcg_gq *blkg)
{
	struct request_queue *q = blkg->q;
	struct iostream_mask next;

	spin_lock_irq(&q->queue_lock);
	if (blkg->online &&
	    !iostream_compute(blkg, q->limits.max_write_streams, &next) &&
	    !iostream_same(&next,
			   iostream_grp_eff_locked(blkg_to_iostream(blkg)))) {
		iostream_publish(blkg_to_iostream(blkg), &next);
		blk_stream_confine_changed(q->disk);
	}
	spin_unlock_irq(&q->queue_lock);
}

/**
 * iostream_update - recompute the effective sets below a changed setting
 * @blkcg: the cgroup whose setting changed
 * @q: the queue of the disk whose line changed, NULL for a default
 *
 * Walks @blkcg's subtree only, parents first, and recomputes the sets of
 * its blkgs on @q's disk, or on every disk for a default.  Each blkg's set
 * is computed and written in place under its disk's queue_lock, which is
 * also where a new blkg computes its own from its parent's, so concurrent
 * updates and creations leave every set computed from the latest
 * settings.  Allocates nothing, so cannot fail: a setting in force is
 * always followed by its subtree.  @q is only compared, never
 * dereferenced: if the disk went away and its queue's address was reused
 * meanwhile, the walk recomputes the new disk's sets for nothing, which is
 * harmless.
 */
static void iostream_update(struct blkcg *blkcg, struct request_queue *q)
{
	struct cgroup_subsys_state *pos;
	struct blkcg_gq *blkg;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, &blkcg->css) {
		hlist_for_each_entry_rcu(blkg, &css_to_blkcg(pos)->blkg_list,
					 blkcg_node) {
			if (!q || blkg->q == q)
				iostream_update_blkg(blkg);
		}
	}
	rcu_read_unlock();
}

/*
 * A new blkg (or one the policy is being activated on): publish its first
 * effective set.  Called with the disk's queue_lock held, parents first,
 * so with no update of the blkg's set under way.
 */
static void iostream_pd_init(struct blkg_policy_data *pd)
{
	struct iostream_grp *grp = container_of(pd, struct iostream_grp, pd);
	struct blkcg_gq *blkg = pd->blkg;
	struct iostream_mask next;

	rcu_read_lock();
	if (!iostream_compute(blkg, blkg->q->limits.max_write_streams, &next))
		iostream_publish(grp, &next);
	rcu_read_unlock();
}

/*
 * The effective set of @blkcg on @q's disk: its blkg's or, for a cgroup
 * that has none there (it never wrote to the disk, or its blkg could not
 * be allocated), the nearest ancestor's narrowed by the defaults of the
 * cgroups in between, as its blkg would get it: a cgroup without a blkg
 * has no line for the disk.  On a disk where the policy could not be
 * activated when it was added, no blkg has io.stream data and no cgroup
 * a line: the defaults from the root down.  Into @eff.  Under
 * rcu_read_lock().
 */
static void iostream_cgroup_eff(struct blkcg *blkcg, struct request_queue *q,
				struct iostream_mask *eff)
{
	unsigned int max = q->limits.max_write_streams;
	struct blkcg *top = blkcg, *pos;
	struct iostream_grp *grp = NULL;
	struct blkcg_gq *blkg;

	for (;;) {
		blkg = blkg_lookup(top, q);
		grp = blkg ? blkg_to_iostream(blkg) : NULL;
		if (grp || !iostream_parent(top))
			break;
		top = iostream_parent(top);
	}
	iostream_narrow(eff, grp ? iostream_grp_eff(grp, eff) : &iostream_any,
			NULL, max);
	/* Down from @top, one level at a time. */
	while (top != blkcg) {
		for (pos = blkcg; iostream_parent(pos) != top;
		     pos = iostream_parent(pos))
			;
		iostream_narrow(eff, eff, iostream_level(NULL, pos), max);
		top = pos;
	}
}

/*
 * The cgroup of the task that submits a write, when it is below the
 * root; NULL when nothing but the bio's own blkg can tell (an interrupt,
 * a kernel thread of the root cgroup).
 */
static struct cgroup_subsys_state *iostream_submitter_css(void)
{
	struct cgroup_subsys_state *css;

	if (!in_task())
		return NULL;
	css = kthread_blkcg() ?: task_css(current, io_cgrp_id);
	return css && css->parent ? css : NULL;
}

/*
 * Whether @bio, submitted by a task of @css (see iostream_submitter_css()),
 * is charged to a proper ancestor of @css or to no cgroup: then @css's
 * effective set, which is never wider than the ancestor's, confines it.
 * Such a write is the writeback of a page of an inode whose writeback
 * belongs to an ancestor (the root, say), started by the task's fsync();
 * or a write of the task whose cgroup's blkg could not be allocated, which
 * blkg_lookup_create() charges to the nearest ancestor that has one, and
 * which must not escape the sets of the cgroups in between.
 */
static bool iostream_charged_above(struct bio *bio,
				   struct cgroup_subsys_state *css)
{
	struct cgroup_subsys_state *own, *pos;

	if (!css)
		return false;
	if (!bio->bi_blkg)
		return true;
	own = &bio->bi_blkg->blkcg->css;
	if (own == css)
		return false;
	for (pos = css->parent; pos; pos = pos->parent)
		if (pos == own)
			return true;
	return false;
}

/*
 * The effective set that confines @bio, on @q's disk: that of @css if it
 * is not NULL (see iostream_charged_above()), computed into @buf; else
 * that of the bio's blkg, or, on a disk where the policy is not active,
 * that of the blkg's cgroup computed from the defaults into @buf.  Under
 * rcu_read_lock().
 */
static const struct iostream_mask *
iostream_bio_eff_css(struct bio *bio, struct cgroup_subsys_state *css,
		     struct request_queue *q, struct iostream_mask *buf)
{
	struct iostream_grp *grp;

	if (css) {
		iostream_cgroup_eff(css_to_blkcg(css), q, buf);
		return buf;
	}
	if (!bio->bi_blkg)
		return &iostream_any;
	grp = blkg_to_iostream(bio->bi_blkg);
	if (likely(grp))
		return iostream_grp_eff(grp, buf);
	iostream_cgroup_eff(bio->bi_blkg->blkcg, q, buf);
	return buf;
}

static const struct iostream_mask *iostream_bio_eff(struct bio *bio,
						    struct iostream_mask *buf)
{
	struct cgroup_subsys_state *css = iostream_submitter_css();

	if (likely(!iostream_charged_above(bio, css)))
		css = NULL;
	return iostream_bio_eff_css(bio, css, bdev_get_queue(bio->bi_bdev),
				    buf);
}

/**
 * __blkcg_write_stream - rule 2: what io.stream allows a bio's cgroup
 * @bio: a write bio
 *
 * A write charged to a proper ancestor of the submitting task's cgroup
 * (the root, or the nearest ancestor with a blkg when the cgroup's could
 * not be allocated) or to none is confined by the task's cgroup (see
 * iostream_charged_above()), whether it carries a stream or not.
 *
 * Return: %BLKCG_STREAM_ANY when no cgroup from the bio's up to the root
 * has a setting, %BLKCG_STREAM_BUDGET when the effective set has several
 * streams (blkcg_confine_write_stream() keeps the bio in it), else the one
 * stream the bio must use: its single stream, or 0 when no cgroup above
 * it confines it and it gave up placement.
 */
int __blkcg_write_stream(struct bio *bio)
{
	struct iostream_mask buf;
	int ret;

	rcu_read_lock();
	ret = iostream_bio_eff(bio, &buf)->rule2;
	rcu_read_unlock();
	return ret;
}

/*
 * @stream if @eff allows it and the disk, with @max streams, has it, else
 * the (@stream mod n)-th, counting from 0, of the n streams of @eff that
 * the disk has.
 */
static unsigned int iostream_confine(const struct iostream_mask *eff,
				     unsigned int stream, unsigned int max)
{
	unsigned int nbits = min(max, IOSTREAM_MAX) + 1;
	unsigned int n;

	if (eff->inherit || (stream && stream < nbits &&
			     test_bit(stream, eff->map)))
		return stream;
	n = bitmap_weight(eff->map, nbits);
	if (!n)
		return 0;
	return find_nth_bit(eff->map, nbits, stream % n);
}

/**
 * blkcg_confine_write_stream - keep a write in its cgroup's budget
 * @bio: a write bio for which blkcg_write_stream() said %BLKCG_STREAM_BUDGET
 * @stream: the stream an earlier or later rule chose, 0 for none
 *
 * A budget is spent by the other rules: a stream in the cgroup's effective
 * set is kept; any other, 0 included, is replaced by one of the set, the
 * same one for the same @stream, so that writes the disk's placement
 * policy keeps apart stay apart where the set allows it.  Only streams the
 * disk has now count: a budget that a controller reset shrank is spent on
 * what is left of it.
 *
 * Return: the stream to use.
 */
unsigned int blkcg_confine_write_stream(struct bio *bio, unsigned int stream)
{
	unsigned int max = bdev_get_queue(bio->bi_bdev)->limits.max_write_streams;
	struct iostream_mask buf;

	rcu_read_lock();
	stream = iostream_confine(iostream_bio_eff(bio, &buf), stream, max);
	rcu_read_unlock();
	return stream;
}

/**
 * blkcg_iostream_pinned - the streams io.stream gives cgroups on a disk
 * @disk: the disk
 * @map: bitmap of streams, set for each stream in some cgroup's effective
 *	set
 * @nbits: bits in @map; larger streams are left out
 *
 * Looks at the cgroups that have written to @disk (those with a blkg on
 * it): a placement policy that plans the streams leaves these alone.  Only
 * effective sets count: a setting its ancestors do not allow takes no
 * stream away from the others.  Stream 0 (the device's default) is never
 * set.
 */
void blkcg_iostream_pinned(struct gendisk *disk, unsigned long *map,
			   unsigned int nbits)
{
	struct request_queue *q = disk->queue;
	const struct iostream_mask *eff;
	struct iostream_grp *grp;
	struct blkcg_gq *blkg;
	unsigned int s;

	nbits = min_t(unsigned int, nbits, IOSTREAM_BITS);
	rcu_read_lock();
	spin_lock_irq(&q->queue_lock);
	list_for_each_entry(blkg, &q->blkg_list, q_node) {
		grp = blkg_to_iostream(blkg);
		if (!grp)
			continue;
		eff = iostream_grp_eff_locked(grp);
		if (eff->inherit)
			continue;
		for_each_set_bit(s, eff->map, nbits)
			__set_bit(s, map);
	}
	spin_unlock_irq(&q->queue_lock);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(blkcg_iostream_pinned);

/*
 * The streams of @blkcg's budget on @q's disk into @map (@nbits bits,
 * cleared first), as blkcg_iostream_budget() says.  Under no lock; takes
 * rcu_read_lock() to read the effective set.
 */
static unsigned int iostream_budget(struct blkcg *blkcg,
				    struct request_queue *q,
				    unsigned long *map, unsigned int nbits)
{
	unsigned int max, s, n = 0;
	struct iostream_mask eff;

	bitmap_zero(map, nbits);
	if (!nbits || !blkcg->css.parent)
		return 0;
	rcu_read_lock();
	iostream_cgroup_eff(blkcg, q, &eff);
	rcu_read_unlock();
	max = min3(q->limits.max_write_streams, nbits - 1,
		   (unsigned int)IOSTREAM_MAX);
	for (s = 1; !eff.inherit && s <= max; s++) {
		if (test_bit(s, eff.map)) {
			__set_bit(s, map);
			n++;
		}
	}
	if (n >= 2)
		return n;
	bitmap_zero(map, nbits);
	return 0;
}

/**
 * blkcg_iostream_budget - the streams of a cgroup's budget on a disk
 * @disk: the disk
 * @cgid: id of the cgroup, on the unified hierarchy
 * @map: bitmap of streams, cleared, then set for each stream of the budget
 * @nbits: bits in @map; larger streams are left out
 *
 * For a placement policy that plans, at planning time, within the budgets
 * io.stream gives cgroups (see blkcg_confine_write_stream()).  The
 * cgroup's effective set on @disk is read as a write of the cgroup would
 * find it: its blkg's, copied under the blkg's seqcount, or for a cgroup
 * without a blkg on @disk the nearest ancestor's narrowed by the defaults
 * in between.  Only the streams @disk has now count, as for a write.  A
 * set of one stream is a pin, not a budget; no setting up to the root
 * leaves every stream free, which is no budget either.
 *
 * Context: process context; may sleep.  Takes no lock of the disk's.
 * The id is looked up in the caller's cgroup namespace.  A cgroup being
 * removed can read as its nearest live ancestor's budget.
 *
 * Return: the number of streams in the budget, at least 2, with @map set
 * to them; 0 with @map cleared if the cgroup has no budget on @disk or
 * is gone.
 */
unsigned int blkcg_iostream_budget(struct gendisk *disk, u64 cgid,
				   unsigned long *map, unsigned int nbits)
{
	struct cgroup_subsys_state *css;
	unsigned int n;
	struct cgroup *cg;

	might_sleep();
	bitmap_zero(map, nbits);
	if (!blkcg_may_pin() || !disk->queue->limits.max_write_streams)
		return 0;
	cg = cgroup_get_from_id(cgid);
	if (IS_ERR(cg))
		return 0;
	css = cgroup_get_e_css(cg, &io_cgrp_subsys);
	cgroup_put(cg);
	if (!css)
		return 0;
	n = iostream_budget(css_to_blkcg(css), disk->queue, map, nbits);
	css_put(css);
	return n;
}
EXPORT_SYMBOL_GPL(blkcg_iostream_budget);

/**
 * blkcg_iostream_confined - whether io.stream confines the current task
 * @disk: a disk
 *
 * For a driver that lets a task place writes itself, bypassing the
 * decision point (NVMe passthrough): whether the effective set of the
 * current task's cgroup on @disk confines its writes, so that such
 * writes must be refused.
 *
 * Return: true if a cgroup from the task's up to the root has a setting
 * for @disk and @disk has write streams: on a disk without streams there
 * is nothing to place, and a write there is not confined.
 */
bool blkcg_iostream_confined(struct gendisk *disk)
{
	struct cgroup_subsys_state *css;
	struct iostream_mask eff;
	bool ret = false;

	if (!blkcg_may_pin() || !disk->queue->limits.max_write_streams)
		return false;
	rcu_read_lock();
	css = kthread_blkcg() ?: task_css(current, io_cgrp_id);
	if (css && css->parent) {
		iostream_cgroup_eff(css_to_blkcg(css), disk->queue, &eff);
		ret = !eff.inherit;
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(blkcg_iostream_confined);

/* Streams whose sums io.stat holds at a time. */
#define IOSTREAM_CHUNK	16

/* @grp's counters, NULL if it has none yet. */
static struct iostream_counters *iostream_ctr(struct iostream_grp *grp)
{
	/* Pairs with iostream_ctr_install()'s release: fields initialized. */
	return smp_load_acquire(&grp->ctr);
}

/*
 * Charge @blkcg's counters to the memory cgroup of its cgroup: they are
 * the cgroup's, whoever's work item allocates them.  Returns the memory
 * cgroup to put back with iostream_memcg_end().
 */
static struct mem_cgroup *iostream_memcg_begin(struct blkcg *blkcg,
					       struct cgroup_subsys_state **css)
{
	KUNIT_STATIC_STUB_REDIRECT(iostream_memcg_begin, blkcg, css);
	*css = NULL;
#ifdef CONFIG_MEMCG
	*css = cgroup_get_e_css(blkcg->css.cgroup, &memory_cgrp_subsys);
	if (*css)
		return set_active_memcg(mem_cgroup_from_css(*css));
#endif
	return NULL;
}

static void iostream_memcg_end(struct mem_cgroup *old,
			       struct cgroup_subsys_state *css)
{
#ifdef CONFIG_MEMCG
	if (css) {
		set_active_memcg(old);
		css_put(css);
	}
#endif
}

/*
 * The counters are statistics: their allocation gives up rather than
 * push the cgroup into reclaim or its OOM killer, and says nothing.
 */
#define IOSTREAM_CTR_GFP	(GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN)

/*
 * Counters for streams 0 to @nr - 1 of @blkg's cgroup on its disk, from
 * the work item, charged to the cgroup.
 */
static struct iostream_counters *iostream_ctr_alloc(struct blkcg_gq *blkg,
						    unsigned int nr)
{
	struct cgroup_subsys_state *css;
	struct iostream_counters *ctr;
	struct mem_cgroup *old;
	int cpu;

	KUNIT_STATIC_STUB_REDIRECT(iostream_ctr_alloc, blkg, nr);

	old = iostream_memcg_begin(blkg->blkcg, &css);
	ctr = kvzalloc(struct_size(ctr, total, nr), IOSTREAM_CTR_GFP);
	if (ctr) {
		ctr->nr = nr;
		ctr->pcpu = __alloc_percpu_gfp(struct_size_t(struct iostream_cpu_stat,
							     stream, nr),
					       __alignof__(struct iostream_cpu_stat),
					       IOSTREAM_CTR_GFP);
	}
	iostream_memcg_end(old, css);
	if (!ctr || !ctr->pcpu) {
		kvfree(ctr);
		return NULL;
	}
	u64_stats_init(&ctr->syncp);
	for_each_possible_cpu(cpu) {
		struct iostream_cpu_stat *c = per_cpu_ptr(ctr->pcpu, cpu);

		u64_stats_init(&c->syncp);
		c->nr = nr;
	}
	return ctr;
}

static void iostream_ctr_free(struct iostream_counters *ctr)
{
	if (ctr) {
		free_percpu(ctr->pcpu);
		kvfree(ctr);
	}
}

/* Under @grp's early_lock: an allocation of @grp's counters failed. */
static void iostream_ctr_backoff(struct iostream_grp *grp)
{
	grp->ctr_retry = jiffies + (HZ << min_t(unsigned int, grp->ctr_fails, 6));
	if (grp->ctr_fails < U8_MAX)
		grp->ctr_fails++;
}

/*
 * Give @grp's cgroup its counters: the counts of its first writes move
 * from @grp's early slots to them.  Its parent has its own already.
 * Process context.
 *
 * Return: false if the allocation failed.
 */
static bool iostream_ctr_install(struct iostream_grp *grp)
{
	struct blkcg_gq *blkg = grp->pd.blkg;
	unsigned int max = blkg->q->limits.max_write_streams;
	struct iostream_counters *ctr;
	bool counted = false;
	unsigned int i, s;

	if (iostream_ctr(grp))
		return true;
	ctr = iostream_ctr_alloc(blkg, min(max, IOSTREAM_MAX) + 1);
	spin_lock_irq(&grp->early_lock);
	if (!ctr) {
		iostream_ctr_backoff(grp);
		spin_unlock_irq(&grp->early_lock);
		return false;
	}
	/* Flushes see the counters only now: nothing to sync with. */
	for (i = 0; i < grp->early_nr; i++) {
		s = grp->early_stream[i];
		if (s < ctr->nr)
			ctr->total[s].sum = grp->early[i];
		counted = true;
	}
	ctr->fallback.sum.ios = grp->early_fallback;
	grp->early_nr = 0;
	grp->early_fallback = 0;
	ctr->unpassed = counted;
	grp->ctr_fails = 0;
	/* Pairs with iostream_ctr(): readers see the counters initialized. */
	smp_store_release(&grp->ctr, ctr);
	spin_unlock_irq(&grp->early_lock);
	/*
	 * Let the next flush pass the early counts to the parent.  Where
	 * this queues nothing (io on cgroup v1), ctr->unpassed stays set for
	 * the blkg's next flush.
	 */
	if (counted) {
		preempt_disable();
		blkg_rstat_updated(blkg);
		preempt_enable();
	}
	return true;
}

/*
 * Counters for @blkg's cgroup and, first, for each of its ancestors that
 * has none: a cgroup's counts pass to its parent's.  Return: false if an
 * allocation failed.
 */
static bool iostream_ctr_install_all(struct blkcg_gq *blkg)
{
	struct iostream_grp *grp, *top;
	struct blkcg_gq *pos;

	for (;;) {
		top = NULL;
		for (pos = blkg; pos; pos = pos->parent) {
			grp = blkg_to_iostream(pos);
			if (grp && !iostream_ctr(grp))
				top = grp;
		}
		if (!top)
			return true;
		if (!iostream_ctr_install(top))
			return false;
		cond_resched();
	}
}

/* The work item's pass for @grp, which a write queued. */
static void iostream_ctr_work_one(struct iostream_grp *grp)
{
	bool ok = iostream_ctr_install_all(grp->pd.blkg);

	spin_lock_irq(&grp->early_lock);
	grp->ctr_queued = false;
	if (ok)
		grp->ctr_fails = 0;
	else if (!iostream_ctr(grp))
		iostream_ctr_backoff(grp);
	spin_unlock_irq(&grp->early_lock);
}

/* Blkgs that wrote before they had counters; under iostream_ctr_lock. */
static LIST_HEAD(iostream_ctr_list);
static DEFINE_SPINLOCK(iostream_ctr_lock);

static void iostream_ctr_workfn(struct work_struct *work)
{
	struct iostream_grp *grp;

	for (;;) {
		spin_lock_irq(&iostream_ctr_lock);
		grp = list_first_entry_or_null(&iostream_ctr_list,
					       struct iostream_grp, ctr_node);
		if (grp)
			list_del_init(&grp->ctr_node);
		spin_unlock_irq(&iostream_ctr_lock);
		if (!grp)
			return;
		iostream_ctr_work_one(grp);
		blkg_put(grp->pd.blkg);
		cond_resched();
	}
}

static DECLARE_WORK(iostream_ctr_work, iostream_ctr_workfn);

/* Have the work item allocate @grp's counters, holding its blkg. */
static void iostream_ctr_queue(struct iostream_grp *grp)
{
	KUNIT_STATIC_STUB_REDIRECT(iostream_ctr_queue, grp);

	blkg_get(grp->pd.blkg);
	spin_lock(&iostream_ctr_lock);
	list_add_tail(&grp->ctr_node, &iostream_ctr_list);
	spin_unlock(&iostream_ctr_lock);
	queue_work(system_percpu_wq, &iostream_ctr_work);
}

/*
 * Count a write on @stream (or a fallback) in @grp's early slots, while
 * the cgroup has no counters on the disk; ask for them.  A write on a
 * stream for which no slot is left is not counted.
 *
 * Return: false if the counters came meanwhile.
 */
static noinline bool iostream_count_early(struct iostream_grp *grp,
					  unsigned int s,
				 unsigned int bytes, bool fallback)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&grp->early_lock, flags);
	if (grp->ctr) {
		spin_unlock_irqrestore(&grp->early_lock, flags);
		return false;
	}
	for (i = 0; i < grp->early_nr && grp->early_stream[i] != s; i++)
		;
	if (i == grp->early_nr && i < IOSTREAM_EARLY) {
		grp->early_stream[i] = s;
		grp->early_nr++;
	}
	if (i < grp->early_nr) {
		grp->early[i].bytes += bytes;
		grp->early[i].ios++;
	}
	if (fallback)
		grp->early_fallback++;
	if (!grp->ctr_queued &&
	    (!grp->ctr_fails || time_after_eq(jiffies, grp->ctr_retry))) {
		grp->ctr_queued = true;
		iostream_ctr_queue(grp);
	}
	spin_unlock_irqrestore(&grp->early_lock, flags);
	return true;
}

/*
 * The first count on this CPU since a flush took them: set the mark and
 * have the blkg queued, or clear the mark again where it cannot be (see
 * iostream_account()).  Out of line: once per flush and CPU.
 */
static noinline void iostream_mark(struct blkcg_gq *blkg,
				   struct iostream_cpu_stat *c)
{
	WRITE_ONCE(c->dirty, 1);
	if (!blkg_rstat_updated(blkg))
		WRITE_ONCE(c->dirty, 0);
}

/* Count a write of @size bytes to stream @s in @blkg's counters @ctr. */
static __always_inline void iostream_account(struct blkcg_gq *blkg,
					     struct iostream_counters *ctr,
					     unsigned int s, unsigned int size,
					     bool fallback)
{
	struct iostream_cpu_stat *c = get_cpu_ptr(ctr->pcpu);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&c->syncp);
	if (likely(s < c->nr)) {
		u64_stats_add(&c->stream[s].bytes, size);
		u64_stats_inc(&c->stream[s].ios);
	}
	if (fallback)
		u64_stats_inc(&c->fallback.ios);
	u64_stats_update_end_irqrestore(&c->syncp, flags);
	/*
	 * A flush clears @dirty, with a full barrier, before it reads the
	 * counts (iostream_pd_flush()): either it sees the counts above or
	 * this sees @dirty clear.  Set, @dirty means that the blkg is queued
	 * on this CPU for a flush yet to clear it, or is about to be by the
	 * write this one interrupted, so most writes stop here.
	 * blkg_rstat_updated()'s barrier orders setting it before the test
	 * of lqueued.  Where io is not on the default hierarchy,
	 * blkg_rstat_updated() queues nothing and the mark is cleared
	 * again, so that the first write after io moves to v2 queues the
	 * blkg.
	 */
	smp_mb();
	if (!READ_ONCE(c->dirty))
		iostream_mark(blkg, c);
	put_cpu_ptr(ctr->pcpu);
}

/* blkcg_account_write_stream() for a cgroup not yet given its counters. */
static noinline void iostream_account_early(struct bio *bio,
					    struct iostream_grp *grp,
					    bool fallback)
{
	unsigned int s = bio->bi_write_stream, size = bio->bi_iter.bi_size;

	if (!iostream_count_early(grp, s, size, fallback))
		iostream_account(bio->bi_blkg, iostream_ctr(grp), s, size,
				 fallback);
}

/**
 * blkcg_account_write_stream - count a decided write for its cgroup
 * @bio: a write bio with its final bi_write_stream
 * @fallback: the bio's stream was dropped because the disk lacks it
 *
 * Counts only on a disk with streams.  Allocates nothing: a cgroup's
 * first writes to a disk are counted in a few slots of its policy data
 * until a work item gave it its counters.
 */
void blkcg_account_write_stream(struct bio *bio, bool fallback)
{
	struct blkcg_gq *blkg = bio->bi_blkg;
	struct iostream_counters *ctr;
	struct iostream_grp *grp;

	if (!blkg || !blkg->q->limits.max_write_streams)
		return;
	grp = blkg_to_iostream(blkg);
	if (!grp)
		return;
	ctr = iostream_ctr(grp);
	/* Out of line, so that the common case keeps no value across a call. */
	if (unlikely(!ctr)) {
		iostream_account_early(bio, grp, fallback);
		return;
	}
	iostream_account(blkg, ctr, bio->bi_write_stream,
			 bio->bi_iter.bi_size, fallback);
}

/* @c's counts of @p, into @n. */
static void iostream_pcpu_read(struct iostream_cpu_stat *c,
			       struct iostream_pcpu *p, struct iostream_count *n)
{
	unsigned int seq;

	do {
		seq = u64_stats_fetch_begin(&c->syncp);
		n->bytes = u64_stats_read(&p->bytes);
		n->ios = u64_stats_read(&p->ios);
	} while (u64_stats_fetch_retry(&c->syncp, seq));
}

/* Add @c's counts of @p since the last flush to @t; take them as flushed. */
static void iostream_pcpu_take(struct iostream_cpu_stat *c,
			       struct iostream_pcpu *p, struct iostream_count *t)
{
	struct iostream_count n;

	iostream_pcpu_read(c, p, &n);
	t->bytes += n.bytes - p->flushed.bytes;
	t->ios += n.ios - p->flushed.ios;
	p->flushed = n;
}

/* Add what @t gained since it was last passed up to @up. */
static void iostream_total_pass(struct iostream_total *t,
				struct iostream_count *up)
{
	up->bytes += t->sum.bytes - t->passed.bytes;
	up->ios += t->sum.ios - t->passed.ios;
	t->passed = t->sum;
}

/*
 * pd_flush_fn: fold @cpu's counts of @pd's cgroup into its totals, and
 * pass what the totals gained to the parent's.  Under blkg_stat_lock,
 * children before parents: a parent's totals hold its subtree's counts
 * once they are flushed.  O(streams of the disk) where this CPU wrote or
 * the totals gained counts, O(1) otherwise (a flush for reads only).
 */
static void iostream_pd_flush(struct blkg_policy_data *pd, int cpu)
{
	struct iostream_grp *grp = container_of(pd, struct iostream_grp, pd);
	struct iostream_counters *ctr = iostream_ctr(grp);
	struct blkcg_gq *parent = pd->blkg->parent;
	struct iostream_counters *pctr = NULL;
	struct iostream_cpu_stat *c;
	struct iostream_grp *pgrp;
	unsigned int i, nr;

	if (!ctr)
		return;
	c = per_cpu_ptr(ctr->pcpu, cpu);
	/*
	 * Cleared before the counts are read, with a full barrier, which
	 * also orders them after the flush's clearing of the blkg's lqueued
	 * (blkg_rstat_updated()): a write whose counts this flush does not
	 * see finds @dirty clear after, sets it and queues the blkg again.
	 */
	if (xchg(&c->dirty, 0)) {
		u64_stats_update_begin(&ctr->syncp);
		for (i = 0; i < ctr->nr; i++)
			iostream_pcpu_take(c, &c->stream[i], &ctr->total[i].sum);
		iostream_pcpu_take(c, &c->fallback, &ctr->fallback.sum);
		u64_stats_update_end(&ctr->syncp);
		ctr->unpassed = true;
	}

	pgrp = parent ? blkg_to_iostream(parent) : NULL;
	if (pgrp)
		pctr = iostream_ctr(pgrp);
	if (!pctr || !ctr->unpassed)
		return;
	/* A stream the parent's counters lack (the disk grew) is not passed. */
	nr = min(ctr->nr, pctr->nr);
	u64_stats_update_begin(&pctr->syncp);
	for (i = 0; i < nr; i++)
		iostream_total_pass(&ctr->total[i], &pctr->total[i].sum);
	for (; i < ctr->nr; i++)
		ctr->total[i].passed = ctr->total[i].sum;
	iostream_total_pass(&ctr->fallback, &pctr->fallback.sum);
	u64_stats_update_end(&pctr->syncp);
	ctr->unpassed = false;
	pctr->unpassed = true;
}

/*
 * What io.stat shows for @grp: the counts of streams @first to @first +
 * IOSTREAM_CHUNK - 1 into @sum, the fallbacks into @fallback: the
 * totals, which the flush of io.stat's read brought up to date, or the
 * early slots before the counters exist.  Any context.
 */
static void iostream_grp_sum(struct iostream_grp *grp, unsigned int first,
			     struct iostream_count *sum, u64 *fallback)
{
	struct iostream_counters *ctr = iostream_ctr(grp);
	unsigned int i, end, seq, s;
	unsigned long flags;

	memset(sum, 0, IOSTREAM_CHUNK * sizeof(*sum));
	*fallback = 0;
	if (!ctr) {
		spin_lock_irqsave(&grp->early_lock, flags);
		ctr = grp->ctr;
		for (i = 0; !ctr && i < grp->early_nr; i++) {
			s = grp->early_stream[i];
			if (s >= first && s < first + IOSTREAM_CHUNK)
				sum[s - first] = grp->early[i];
		}
		if (!ctr)
			*fallback = grp->early_fallback;
		spin_unlock_irqrestore(&grp->early_lock, flags);
		if (!ctr)
			return;
		/* Under early_lock, which published it. */
	}
	end = min(first + IOSTREAM_CHUNK, ctr->nr);
	do {
		seq = u64_stats_fetch_begin(&ctr->syncp);
		for (i = first; i < end; i++)
			sum[i - first] = ctr->total[i].sum;
		*fallback = ctr->fallback.sum.ios;
	} while (u64_stats_fetch_retry(&ctr->syncp, seq));
}

/*
 * io.stat's per-stream keys: what the cgroup and its descendants wrote on
 * the disk, as rstat summed it (see iostream_grp_sum()).  O(streams).
 */
static void iostream_pd_stat(struct blkg_policy_data *pd, struct seq_file *s)
{
	struct iostream_grp *grp = container_of(pd, struct iostream_grp, pd);
	struct iostream_counters *ctr = iostream_ctr(grp);
	unsigned int nr = ctr ? ctr->nr : IOSTREAM_BITS;
	struct iostream_count sum[IOSTREAM_CHUNK];
	u64 fallback = 0, fb;
	unsigned int first, i;

	for (first = 0; first < nr; first += IOSTREAM_CHUNK) {
		iostream_grp_sum(grp, first, sum, &fb);
		if (!first)
			fallback = fb;
		for (i = 0; i < IOSTREAM_CHUNK && first + i < nr; i++)
			if (sum[i].ios)
				seq_printf(s, " stream%u.wbytes=%llu stream%u.wios=%llu",
					   first + i, sum[i].bytes, first + i,
					   sum[i].ios);
	}
	if (fallback)
		seq_printf(s, " stream.fallback=%llu", fallback);
}

static struct blkcg_policy_data *iostream_cpd_alloc(gfp_t gfp)
{
	struct iostream_blkcg *isc = kzalloc_obj(*isc, gfp);

	return isc ? &isc->cpd : NULL;
}

static void iostream_cpd_free(struct blkcg_policy_data *cpd)
{
	struct iostream_blkcg *isc = container_of(cpd, struct iostream_blkcg, cpd);
	struct iostream_mask *dfl = rcu_dereference_protected(isc->dfl, true);

	if (dfl) {
		iostream_drop_pin(&iostream_nr_pins);
		kfree_rcu(dfl, rcu);
	}
	kfree(isc);
}

static struct blkg_policy_data *iostream_pd_alloc(struct gendisk *disk,
						  struct blkcg *blkcg, gfp_t gfp)
{
	struct iostream_grp *grp;

	grp = kzalloc_node(sizeof(*grp), gfp, disk->node_id);
	if (!grp)
		return NULL;
	seqcount_spinlock_init(&grp->eff_seq, &disk->queue->queue_lock);
	/* Until iostream_pd_init(): what no setting gives. */
	grp->eff = iostream_any;
	spin_lock_init(&grp->early_lock);
	INIT_LIST_HEAD(&grp->ctr_node);
	/* The counters come after the first counted write. */
	return &grp->pd;
}

static void iostream_grp_free_rcu(struct rcu_head *rcu)
{
	struct iostream_grp *grp = container_of(rcu, struct iostream_grp, rcu);

	kfree(rcu_dereference_protected(grp->set, true));
	iostream_ctr_free(grp->ctr);
	kfree(grp);
}

/*
 * A decision may still read @pd's sets: it runs before the bio enters the
 * queue, so activation's and deactivation's bypass does not cover it.
 * Free after a grace period.
 */
static void iostream_pd_free(struct blkg_policy_data *pd)
{
	struct iostream_grp *grp = container_of(pd, struct iostream_grp, pd);

	if (rcu_access_pointer(grp->set))
		iostream_drop_pin(&iostream_nr_pins);
	call_rcu(&grp->rcu, iostream_grp_free_rcu);
}

/* A setting, or an effective set on a disk with @max streams. */
static void iostream_print_value(struct seq_file *sf,
				 const struct iostream_mask *m,
				 unsigned int max)
{
	if (m->inherit)
		seq_printf(sf, "0-%u\n", max);
	else if (bitmap_empty(m->map, IOSTREAM_BITS))
		seq_puts(sf, "0\n");
	else
		seq_printf(sf, "%*pbl\n", IOSTREAM_BITS, m->map);
}

static u64 iostream_prfill(struct seq_file *sf, struct blkg_policy_data *pd,
			   int off)
{
	struct iostream_grp *grp = container_of(pd, struct iostream_grp, pd);
	const char *dname = blkg_dev_name(pd->blkg);
	const struct iostream_mask *m = rcu_dereference(grp->set);

	if (!dname || !m)
		return 0;
	seq_printf(sf, "%s ", dname);
	iostream_print_value(sf, m, 0);
	return 0;
}

/* io.stream: the lines that are set, the default first.  No lock. */
static int iostream_show(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));
	const struct iostream_mask *dfl;

	rcu_read_lock();
	dfl = rcu_dereference(blkcg_to_iostream(blkcg)->dfl);
	if (dfl) {
		seq_puts(sf, "default ");
		iostream_print_value(sf, dfl, 0);
	}
	rcu_read_unlock();
	blkcg_print_blkgs(sf, blkcg, iostream_prfill, &blkcg_policy_iostream,
			  0, false);
	return 0;
}

/*
 * io.stream.effective: for each disk with streams, the streams the
 * cgroup's writes may use there, 0 standing for no stream: "0-N" on a
 * disk with N streams where no cgroup up to the root has a setting.  No
 * lock.
 */
static int iostream_effective_show(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));
	struct blkcg_gq *root;

	rcu_read_lock();
	hlist_for_each_entry_rcu(root, &blkcg_root.blkg_list, blkcg_node) {
		struct request_queue *q = root->q;
		const char *dname = blkg_dev_name(root);
		struct iostream_mask eff;

		if (!dname || !q->limits.max_write_streams)
			continue;
		iostream_cgroup_eff(blkcg, q, &eff);
		seq_printf(sf, "%s ", dname);
		iostream_print_value(sf, &eff, q->limits.max_write_streams);
	}
	rcu_read_unlock();
	return 0;
}

/* Digits of a stream number up to IOSTREAM_MAX; NULL if none or too big. */
static const char *iostream_parse_num(const char *p, const char *end,
				      unsigned int *n)
{
	const char *start = p;
	unsigned int v = 0;

	for (; p < end && isdigit(*p); p++) {
		v = v * 10 + *p - '0';
		if (v > IOSTREAM_MAX)
			return NULL;
	}
	*n = v;
	return p == start ? NULL : p;
}

/*
 * Parse one value into @m: "default", which removes a setting (@m->inherit
 * is set); "0"; or a list of streams from 1 to @max, such as "3", "3,5"
 * or "2-4,7".  Leading and trailing white space is allowed, nothing else.
 * @m is written only on success.
 */
static int iostream_parse_value(const char *s, unsigned int max,
				struct iostream_mask *m)
{
	DECLARE_BITMAP(map, IOSTREAM_BITS);
	const char *p, *end;
	size_t len;

	s = skip_spaces(s);
	len = strcspn(s, " \t\n");
	if (!len || s[len + strspn(s + len, " \t\n")])
		return -EINVAL;
	if (len == 7 && !strncmp(s, "default", 7)) {
		m->inherit = true;
		bitmap_zero(m->map, IOSTREAM_BITS);
		return 0;
	}
	bitmap_zero(map, IOSTREAM_BITS);
	if (len == 1 && *s == '0')
		goto done;
	for (p = s, end = s + len; p < end; ) {
		unsigned int first, last;

		p = iostream_parse_num(p, end, &first);
		if (!p)
			return -EINVAL;
		last = first;
		if (p < end && *p == '-') {
			p = iostream_parse_num(p + 1, end, &last);
			if (!p)
				return -EINVAL;
		}
		if (!first || first > last || last > max)
			return -EINVAL;
		bitmap_set(map, first, last - first + 1);
		if (p < end && (*p != ',' || ++p == end))
			return -EINVAL;
	}
done:
	m->inherit = false;
	bitmap_copy(m->map, map, IOSTREAM_BITS);
	return 0;
}

/*
 * Put @m, NULL for "default", in @slot and keep @pins, the count of
 * settings, up to date.  Takes no lock: concurrent writers of one slot
 * are ordered by the exchange.
 */
static void iostream_set(struct iostream_mask __rcu **slot,
			 struct iostream_mask *m, atomic_t *pins)
{
	struct iostream_mask *old;

	old = unrcu_pointer(xchg(slot, RCU_INITIALIZER(m)));
	if (!old && m)
		atomic_inc(pins);
	else if (old && !m)
		iostream_drop_pin(pins);
	if (old)
		kfree_rcu(old, rcu);
}

/*
 * A new setting from @buf, parsed against @max streams: NULL in @m for
 * "default".
 */
static int iostream_new_setting(const char *buf, unsigned int max,
				struct iostream_mask **m)
{
	struct iostream_mask v;
	int ret = iostream_parse_value(buf, max, &v);

	*m = NULL;
	if (ret || v.inherit)
		return ret;
	*m = kmemdup(&v, sizeof(v), GFP_KERNEL_ACCOUNT);
	return *m ? 0 : -ENOMEM;
}

/*
 * "$MAJ:$MIN $VALUE".  The error is all a writer gets, nothing is logged:
 * a delegatee may write this file.
 */
static ssize_t iostream_write_disk(struct blkcg *blkcg, char *buf)
{
	struct iostream_mask *m = NULL;
	struct request_queue *q;
	struct blkg_conf_ctx ctx;
	unsigned int max;
	int ret;

	blkg_conf_init(&ctx, buf);
	ret = blkg_conf_open_bdev(&ctx);
	if (ret)
		return ret;
	q = ctx.bdev->bd_disk->queue;
	max = q->limits.max_write_streams;
	ret = iostream_new_setting(ctx.body, max, &m);
	if (!ret && !max && m)
		ret = -EINVAL;
	/*
	 * A stacking device that passes the decision down (bio-based
	 * device-mapper) reads no line of its own: the lines of the disks
	 * below confine its writes.  Taking one would only seem to work.
	 */
	if (!ret && m && blk_queue_stream_below(q))
		ret = -EOPNOTSUPP;
	if (ret)
		goto close_bdev;
	/* "default" where the policy is not active: there is no line. */
	if (!m && !blkcg_policy_enabled(q, &blkcg_policy_iostream))
		goto close_bdev;
	/*
	 * The policy was activated when the disk was added; a disk where
	 * that failed has no io.stream (-EOPNOTSUPP).
	 */
	ret = blkg_conf_prep(blkcg, &blkcg_policy_iostream, &ctx);
	if (ret)
		goto close_bdev;
	iostream_set(&blkg_to_iostream(ctx.blkg)->set, m, &iostream_nr_pins);
	m = NULL;
	blkg_conf_unprep(&ctx);
close_bdev:
	blkg_conf_close_bdev(&ctx);
	kfree(m);
	/* Outside the queue's rq_qos_mutex: @q is only compared. */
	if (!ret)
		iostream_update(blkcg, q);
	return ret;
}

/*
 * Replace @blkcg's default with @m (NULL for none) and recompute its
 * subtree, counting the setting in @pins.
 */
static void iostream_change_dfl(struct blkcg *blkcg, struct iostream_mask *m,
				atomic_t *pins)
{
	iostream_set(&blkcg_to_iostream(blkcg)->dfl, m, pins);
	iostream_update(blkcg, NULL);
}

static ssize_t iostream_write(struct kernfs_open_file *of, char *buf,
			      size_t nbytes, loff_t off)
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	struct iostream_mask *m;
	int ret;

	if (strchr(buf, ':')) {
		ret = iostream_write_disk(blkcg, buf);
	} else {
		/* "default $VALUE", "$VALUE" or "default": the default */
		char *p = skip_spaces(buf);

		if (!strncmp(p, "default", 7) && isspace(p[7]) &&
		    *skip_spaces(p + 7))
			p += 7;
		ret = iostream_new_setting(p, IOSTREAM_MAX, &m);
		if (!ret)
			iostream_change_dfl(blkcg, m, &iostream_nr_pins);
	}
	iostream_sync_key();
	return ret ?: nbytes;
}

static struct cftype iostream_files[] = {
	{
		.name = "stream",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = iostream_show,
		.write = iostream_write,
	},
	{
		.name = "stream.effective",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = iostream_effective_show,
	},
	{ } /* sentinel */
};

static struct blkcg_policy blkcg_policy_iostream = {
	.dfl_cftypes	= iostream_files,
	.cpd_alloc_fn	= iostream_cpd_alloc,
	.cpd_free_fn	= iostream_cpd_free,
	.pd_alloc_fn	= iostream_pd_alloc,
	.pd_init_fn	= iostream_pd_init,
	.pd_free_fn	= iostream_pd_free,
	.pd_stat_fn	= iostream_pd_stat,
	.pd_flush_fn	= iostream_pd_flush,
};

/**
 * blkcg_iostream_init_disk - give a new disk its io.stream state
 * @disk: disk being added
 *
 * Called from add_disk(), after the driver set the disk's limits (an
 * NVMe namespace learns its streams only after its disk was allocated).
 * Activates the policy, which freezes the queue and gives each of the
 * disk's blkgs its policy data, only on a disk with streams: elsewhere
 * there is nothing to place, nothing to count and no line to keep.  Nor
 * on a stacking device that passes the decision down to the disks below
 * (see iostream_write_disk()), which reads no line and counts nothing.  A
 * disk that gains streams later has its cgroups' defaults applied (see
 * iostream_cgroup_eff()) but takes no line of its own until it is added
 * again.  Does nothing before the policy is registered.  The policy is
 * never deactivated on a live disk.
 *
 * Return: 0, or the error of activating the policy on @disk.
 */
int blkcg_iostream_init_disk(struct gendisk *disk)
{
	if (!iostream_registered || !disk->queue->limits.max_write_streams ||
	    blk_queue_stream_below(disk->queue))
		return 0;
	return blkcg_activate_policy(disk, &blkcg_policy_iostream);
}

/**
 * blkcg_iostream_limits_changed - a disk's number of streams changed
 * @q: the disk's queue
 *
 * Called by queue_limits_commit_update() when max_write_streams changed
 * (a controller reset, a namespace rescan): the effective sets were
 * computed against the old number, which drops the streams a disk lacks,
 * so a default naming streams 9-12 on a disk that had 8 gave no stream.
 * Recompute every set on the disk, parents first, in place.  O(blkgs of
 * the disk) under its queue_lock, as activating a policy is.
 */
void blkcg_iostream_limits_changed(struct request_queue *q)
{
	unsigned int max = q->limits.max_write_streams;
	struct iostream_mask next;
	struct iostream_grp *grp;
	struct blkcg_gq *blkg;

	rcu_read_lock();
	spin_lock_irq(&q->queue_lock);
	/* blkg_create() adds a blkg at the head, after its parent. */
	list_for_each_entry_reverse(blkg, &q->blkg_list, q_node) {
		grp = blkg_to_iostream(blkg);
		if (grp && !iostream_compute(blkg, max, &next) &&
		    !iostream_same(&next, iostream_grp_eff_locked(grp)))
			iostream_publish(grp, &next);
	}
	/*
	 * The policy may plan on the streams no set holds, which changed
	 * with the number of streams, even if no set did.  A blkg on the
	 * list: the disk's release has not passed blkcg_exit_disk().
	 */
	if (!list_empty(&q->blkg_list))
		blk_stream_confine_changed(q->disk);
	spin_unlock_irq(&q->queue_lock);
	rcu_read_unlock();
}

static int __init iostream_init(void)
{
	int ret = blkcg_policy_register(&blkcg_policy_iostream);

	iostream_registered = !ret;
	return ret;
}
subsys_initcall_sync(iostream_init);

#include "tests/iostream-kunit.h"
#include "tests/stream-order-kunit.h"
