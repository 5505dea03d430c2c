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
 * Settings and effective sets are immutable objects published with RCU.
 * A write of io.stream replaces the setting, then recomputes the
 * effective sets of the written cgroup's subtree only (on the disk of
 * the line, or on every disk for a default), parents first, each blkg
 * under its disk's queue_lock; a new blkg computes its own when it is
 * created, under the same lock.  The decision point reads the bio's
 * blkg's set under rcu_read_lock(), without a lock or a retry.  No global
 * lock is taken on the way, so one tenant's writes of io.stream cost the
 * others nothing but the recomputation of its own subtree.
 *
 * The policy is active on every disk so that each (cgroup, disk) pair has
 * a place for its setting.  Nothing runs on the I/O path while no cgroup
 * has a setting.
 *
 * io.stat shows, per disk, the bytes and writes per stream of the cgroup
 * and its descendants.  The per-CPU counters are allocated at the first
 * counted write of a cgroup to a disk with streams, in the submitter's
 * context, without sleeping; where that fails, the write is not counted
 * and a write a second later tries again: counters never fail a bio nor
 * a blkg.  So a disk without streams, and a cgroup that never wrote to a
 * disk, costs the policy data and its effective set and nothing per CPU.
 * Counts are summed over the cgroup's subtree when io.stat is read; those
 * of a cgroup that goes away are added to its parent's.
 */

#include <kunit/static_stub.h>
#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <kunit/static_stub.h>

#include "blk-cgroup.h"
#include "blk-iostream.h"
#include "blk-stream.h"

/* Streams are u8 in struct bio. */
#define IOSTREAM_MAX		255
#define IOSTREAM_BITS		(IOSTREAM_MAX + 1)

static struct blkcg_policy blkcg_policy_iostream;

/**
 * struct iostream_mask - an io.stream setting, or an effective set
 * @rcu: for freeing after the readers left
 * @inherit: for an effective set: no cgroup up to the root has a setting,
 *	every stream is allowed.  A setting of "inherit" has no object.
 * @rule2: for an effective set: what it says to rule 2 (see
 *	__blkcg_write_stream())
 * @map: the streams allowed, from 1 to %IOSTREAM_MAX; none for "0"
 *
 * Never changed once published: a change publishes a new object.
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
 * struct iostream_stat - what a cgroup wrote on one stream of one disk
 * @bytes: bytes written
 * @ios: write bios
 */
struct iostream_stat {
	u64_stats_t bytes;
	u64_stats_t ios;
};

/**
 * struct iostream_cpu_stat - what a cgroup wrote to one disk, on one CPU
 * @syncp: lets 32-bit machines read the counters whole
 * @nr: entries in @stream: the disk's streams when the counters were
 *	allocated, plus stream 0
 * @fallback: writes whose stream the disk no longer had
 * @stream: bytes and write bios per stream
 */
struct iostream_cpu_stat {
	struct u64_stats_sync syncp;
	unsigned int nr;
	u64_stats_t fallback;
	struct iostream_stat stream[] __counted_by(nr);
};

/**
 * struct iostream_count - a sum of per-CPU counters of one stream
 * @bytes: bytes written
 * @ios: write bios
 */
struct iostream_count {
	u64 bytes;
	u64 ios;
};

/**
 * struct iostream_grp - per (cgroup, disk) data
 * @pd: policy data
 * @rcu: for freeing after the decisions that read it
 * @set: the cgroup's line for this disk, NULL for none
 * @eff: the effective set of the cgroup on the disk; replaced under the
 *	disk's queue_lock, read under rcu_read_lock()
 * @init: the first effective set, allocated with the blkg and published
 *	by iostream_pd_init()
 * @stat: the counters, NULL until the first counted write to a disk with
 *	streams; set once, freed with @pd
 * @stat_failed: jiffies (never 0) when allocating @stat last failed, 0 if
 *	it did not
 * @folded: the blkg went offline and its counts were added to its
 *	parent's; under iostream_fold_lock
 */
struct iostream_grp {
	struct blkg_policy_data pd;
	struct rcu_head rcu;
	struct iostream_mask __rcu *set;
	struct iostream_mask __rcu *eff;
	struct iostream_mask *init;
	struct iostream_cpu_stat __percpu *stat;
	unsigned long stat_failed;
	bool folded;
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

/*
 * Taken for writing when an offline blkg's counts move to its parent, so
 * that a reader summing a subtree counts them once, not twice nor never.
 */
static DEFINE_SEQLOCK(iostream_fold_lock);

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
		mod_delayed_work(system_wq, &iostream_key_work, HZ);
	}
}

/* Forget the pin of a setting that goes away with its cgroup. */
static void iostream_drop_pin(atomic_t *pins)
{
	if (atomic_dec_and_test(pins) && pins == &iostream_nr_pins)
		mod_delayed_work(system_wq, &iostream_key_work, HZ);
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

/* The effective set in force for @grp.  Under rcu_read_lock(). */
static const struct iostream_mask *iostream_grp_eff(struct iostream_grp *grp)
{
	return rcu_dereference(grp->eff);
}

/* Put @next in force for @grp.  Under the disk's queue_lock. */
static void iostream_publish(struct iostream_grp *grp,
			     struct iostream_mask *next)
{
	struct iostream_mask *old = rcu_replace_pointer(grp->eff, next, true);

	if (old != &iostream_any)
		kfree_rcu(old, rcu);
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
	iostream_narrow(next, iostream_grp_eff(pgrp),
			iostream_level(blkg, blkg->blkcg), max);
	return 0;
}

/**
 * struct iostream_pool - sets allocated for an update, before its locks
 * @m: the sets
 * @nr: how many of @m are left
 * @size: room in @m
 * @short_by: sets an update walk lacked
 */
struct iostream_pool {
	struct iostream_mask **m;
	unsigned int nr;
	unsigned int size;
	unsigned int short_by;
};

/*
 * Fill @pool up to @want sets, with @gfp.  Charged to the writer's memory
 * cgroup.
 */
static int iostream_pool_fill(struct iostream_pool *pool, unsigned int want,
			      gfp_t gfp)
{
	struct iostream_mask **m;

	KUNIT_STATIC_STUB_REDIRECT(iostream_pool_fill, pool, want, gfp);
	if (want > pool->size) {
		m = krealloc_array(pool->m, want, sizeof(*m), gfp);
		if (!m)
			return -ENOMEM;
		pool->m = m;
		pool->size = want;
	}
	while (pool->nr < want) {
		pool->m[pool->nr] = kmalloc_obj(**pool->m, gfp);
		if (!pool->m[pool->nr])
			return -ENOMEM;
		pool->nr++;
	}
	return 0;
}

/* Free @pool's sets; it is empty and may be filled again. */
static void iostream_pool_free(struct iostream_pool *pool)
{
	while (pool->nr)
		kfree(pool->m[--pool->nr]);
	kfree(pool->m);
	pool->m = NULL;
	pool->size = 0;
}

/*
 * Recompute @blkg's effective set and put it in force if it changed,
 * taking the new object from @pool.  Under rcu_read_lock(); takes the
 * disk's queue_lock.
 *
 * Return: false if @pool was empty and the set needed a new object.
 */
static bool iostream_update_blkg(struct blkcg_gq *blkg,
				 struct iostream_pool *pool)
{
	struct request_queue *q = blkg->q;
	struct iostream_mask next;
	bool ok = true;

	spin_lock_irq(&q->queue_lock);
	if (blkg->online &&
	    !iostream_compute(blkg, q->limits.max_write_streams, &next) &&
	    !iostream_same(&next, iostream_grp_eff(blkg_to_iostream(blkg)))) {
		if (pool->nr) {
			struct iostream_mask *m = pool->m[--pool->nr];

			m->inherit = next.inherit;
			m->rule2 = next.rule2;
			bitmap_copy(m->map, next.map, IOSTREAM_BITS);
			iostream_publish(blkg_to_iostream(blkg), m);
		} else {
			pool->short_by++;
			ok = false;
		}
	}
	spin_unlock_irq(&q->queue_lock);
	return ok;
}

/*
 * One walk of @blkcg's subtree, parents first: recompute the effective
 * sets of its blkgs on @q's disk, or on every disk when @q is NULL.  Stops
 * at the first blkg for which @pool has no set left.
 */
static bool iostream_walk(struct blkcg *blkcg, struct request_queue *q,
			  struct iostream_pool *pool)
{
	struct cgroup_subsys_state *pos;
	struct blkcg_gq *blkg;
	bool ok = true;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, &blkcg->css) {
		hlist_for_each_entry_rcu(blkg, &css_to_blkcg(pos)->blkg_list,
					 blkcg_node) {
			if (q && blkg->q != q)
				continue;
			ok = iostream_update_blkg(blkg, pool);
			if (!ok)
				goto out;
		}
	}
out:
	rcu_read_unlock();
	return ok;
}

/**
 * iostream_prepare - allocate the sets for changing a setting
 * @blkcg: the cgroup whose setting is to change
 * @q: the queue of the disk whose line is to change, NULL for a default
 * @pool: an empty pool, filled with a set for each blkg of @blkcg's
 *	subtree on @q's disk (on every disk for a default), and one more
 *	for the blkg that writing a line may create
 *
 * Called before the setting is replaced, so that a failure changes
 * nothing: a write that fails leaves the old setting and the effective
 * sets computed from it.  @q is only compared, never dereferenced.
 *
 * Return: 0, or -ENOMEM with @pool freed.
 */
static int iostream_prepare(struct blkcg *blkcg, struct request_queue *q,
			    struct iostream_pool *pool)
{
	struct cgroup_subsys_state *pos;
	struct blkcg_gq *blkg;
	unsigned int want = 1;
	int ret;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, &blkcg->css)
		hlist_for_each_entry_rcu(blkg, &css_to_blkcg(pos)->blkg_list,
					 blkcg_node)
			if (!q || blkg->q == q)
				want++;
	rcu_read_unlock();
	ret = iostream_pool_fill(pool, want, GFP_KERNEL_ACCOUNT);
	if (ret)
		iostream_pool_free(pool);
	return ret;
}

/**
 * iostream_update - recompute the effective sets below a changed setting
 * @blkcg: the cgroup whose setting changed
 * @q: the queue of the disk whose line changed, NULL for a default
 * @pool: the sets iostream_prepare() allocated; freed
 *
 * Walks @blkcg's subtree only, parents first.  A walk that runs short
 * (blkgs created between iostream_prepare() and the change of the
 * setting) starts over with more, keeping what the last one did; those
 * sets are allocated without failing, as the setting is already in force
 * and its subtree must follow it.  Each blkg's set is computed and
 * replaced under its disk's queue_lock, which is also where a new blkg
 * computes its own from its parent's, so concurrent updates and
 * creations leave every set computed from the latest settings.  @q is
 * only compared, never dereferenced: if the disk went away and its queue's
 * address was reused meanwhile, the walk recomputes the new disk's sets
 * for nothing, which is harmless.
 */
static void iostream_update(struct blkcg *blkcg, struct request_queue *q,
			    struct iostream_pool *pool)
{
	for (;;) {
		pool->short_by = 0;
		if (iostream_walk(blkcg, q, pool))
			break;
		cond_resched();
		iostream_pool_fill(pool, pool->short_by + 4,
				   GFP_KERNEL_ACCOUNT | __GFP_NOFAIL);
	}
	iostream_pool_free(pool);
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
	struct iostream_mask *m = grp->init;

	if (!m)
		return;
	rcu_read_lock();
	if (!iostream_compute(blkg, blkg->q->limits.max_write_streams, m)) {
		grp->init = NULL;
		iostream_publish(grp, m);
	}
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
	iostream_narrow(eff, grp ? iostream_grp_eff(grp) : &iostream_any, NULL,
			max);
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
		return iostream_grp_eff(grp);
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
		eff = iostream_grp_eff(grp);
		if (eff->inherit)
			continue;
		for_each_set_bit(s, eff->map, nbits)
			__set_bit(s, map);
	}
	spin_unlock_irq(&q->queue_lock);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(blkcg_iostream_pinned);

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

/*
 * Per-CPU counters for streams 0 to @nr - 1.  Allocated without sleeping,
 * in any context but NMI: the first counted write of a cgroup to a disk
 * asks for them as it is submitted.
 */
static struct iostream_cpu_stat __percpu *iostream_stat_alloc(unsigned int nr)
{
	struct iostream_cpu_stat __percpu *stat;
	int cpu;

	KUNIT_STATIC_STUB_REDIRECT(iostream_stat_alloc, nr);

	stat = __alloc_percpu_gfp(struct_size_t(struct iostream_cpu_stat,
						stream, nr),
				  __alignof__(struct iostream_cpu_stat),
				  GFP_NOWAIT | __GFP_NOWARN);
	if (!stat)
		return NULL;
	for_each_possible_cpu(cpu) {
		struct iostream_cpu_stat *c = per_cpu_ptr(stat, cpu);

		u64_stats_init(&c->syncp);
		c->nr = nr;
	}
	return stat;
}

/*
 * @grp's counters on @q's disk, allocated if @grp has none yet and the
 * disk has streams.  After a failed allocation, none is tried for a
 * second: the writes meanwhile are not counted.
 */
static struct iostream_cpu_stat __percpu *
iostream_stat_get(struct iostream_grp *grp, struct request_queue *q)
{
	struct iostream_cpu_stat __percpu *stat = READ_ONCE(grp->stat);
	unsigned int max = q->limits.max_write_streams;
	unsigned long failed;

	if (likely(stat) || !max)
		return stat;
	failed = READ_ONCE(grp->stat_failed);
	if (failed && time_in_range(jiffies, failed, failed + HZ))
		return NULL;
	stat = iostream_stat_alloc(min(max, IOSTREAM_MAX) + 1);
	if (!stat) {
		WRITE_ONCE(grp->stat_failed, jiffies ?: 1);
		return NULL;
	}
	/* Another CPU may have been first. */
	if (cmpxchg(&grp->stat, NULL, stat)) {
		free_percpu(stat);
		stat = READ_ONCE(grp->stat);
	}
	return stat;
}

/**
 * blkcg_account_write_stream - count a decided write for its cgroup
 * @bio: a write bio with its final bi_write_stream
 * @fallback: the bio's stream was dropped because the disk lacks it
 */
void blkcg_account_write_stream(struct bio *bio, bool fallback)
{
	struct iostream_cpu_stat __percpu *stat;
	unsigned int s = bio->bi_write_stream;
	struct iostream_cpu_stat *c;
	struct iostream_grp *grp;
	unsigned long flags;

	if (!bio->bi_blkg)
		return;
	grp = blkg_to_iostream(bio->bi_blkg);
	if (!grp)
		return;
	stat = iostream_stat_get(grp, bio->bi_blkg->q);
	if (!stat)
		return;
	c = get_cpu_ptr(stat);
	flags = u64_stats_update_begin_irqsave(&c->syncp);
	if (s < c->nr) {
		u64_stats_add(&c->stream[s].bytes, bio->bi_iter.bi_size);
		u64_stats_inc(&c->stream[s].ios);
	}
	if (fallback)
		u64_stats_inc(&c->fallback);
	u64_stats_update_end_irqrestore(&c->syncp, flags);
	put_cpu_ptr(stat);
}

/* Entries of @stat's counters; the same on every CPU. */
static unsigned int iostream_stat_nr(struct iostream_cpu_stat __percpu *stat)
{
	return raw_cpu_ptr(stat)->nr;
}

/*
 * Add @stat's counts of streams @first to @first + @n - 1 to @sum, and
 * its fallbacks to @fallback if not NULL.
 */
static void iostream_stat_sum(struct iostream_cpu_stat __percpu *stat,
			      unsigned int first, unsigned int n,
			      struct iostream_count *sum, u64 *fallback)
{
	unsigned int i, end, seq;
	u64 bytes, ios, fb;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct iostream_cpu_stat *c = per_cpu_ptr(stat, cpu);

		end = min(first + n, c->nr);
		for (i = first; i < end; i++) {
			do {
				seq = u64_stats_fetch_begin(&c->syncp);
				bytes = u64_stats_read(&c->stream[i].bytes);
				ios = u64_stats_read(&c->stream[i].ios);
			} while (u64_stats_fetch_retry(&c->syncp, seq));
			sum[i - first].bytes += bytes;
			sum[i - first].ios += ios;
		}
		if (!fallback)
			continue;
		do {
			seq = u64_stats_fetch_begin(&c->syncp);
			fb = u64_stats_read(&c->fallback);
		} while (u64_stats_fetch_retry(&c->syncp, seq));
		*fallback += fb;
	}
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
	/* Until iostream_pd_init(): what no setting gives. */
	RCU_INIT_POINTER(grp->eff, &iostream_any);
	/* The counters come with the first counted write. */
	grp->init = kmalloc_obj(*grp->init, gfp);
	if (!grp->init) {
		kfree(grp);
		return NULL;
	}
	return &grp->pd;
}

static void iostream_grp_free_rcu(struct rcu_head *rcu)
{
	struct iostream_grp *grp = container_of(rcu, struct iostream_grp, rcu);
	struct iostream_mask *eff = rcu_dereference_protected(grp->eff, true);

	if (eff != &iostream_any)
		kfree(eff);
	kfree(rcu_dereference_protected(grp->set, true));
	kfree(grp->init);
	free_percpu(grp->stat);
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

/* Streams whose sums io.stat and the folding of counts hold at a time. */
#define IOSTREAM_CHUNK	16

/*
 * Add @sum, counts of streams @first and on, to this CPU's counters of
 * @stat, with interrupts off: u64_stats_add() takes an unsigned long.
 */
static void iostream_stat_fold(struct iostream_cpu_stat __percpu *stat,
			       unsigned int first,
			       const struct iostream_count *sum, u64 fallback)
{
	struct iostream_cpu_stat *c = this_cpu_ptr(stat);
	unsigned int i, end = min(first + IOSTREAM_CHUNK, c->nr);

	lockdep_assert_irqs_disabled();
	u64_stats_update_begin(&c->syncp);
	for (i = first; i < end; i++) {
		u64_stats_set(&c->stream[i].bytes,
			      u64_stats_read(&c->stream[i].bytes) +
			      sum[i - first].bytes);
		u64_stats_set(&c->stream[i].ios,
			      u64_stats_read(&c->stream[i].ios) +
			      sum[i - first].ios);
	}
	u64_stats_set(&c->fallback, u64_stats_read(&c->fallback) + fallback);
	u64_stats_update_end(&c->syncp);
}

/*
 * A blkg goes offline with its cgroup or its disk: add what it wrote to
 * its parent's counts, as io.stat's other keys keep what a removed cgroup
 * did in its parent's.  Under the disk's queue_lock, children before
 * their parents; a parent without counters yet gets them here if it can.
 * Writes counted on the blkg after this are lost.
 */
static void iostream_pd_offline(struct blkg_policy_data *pd)
{
	struct iostream_grp *grp = container_of(pd, struct iostream_grp, pd);
	struct iostream_cpu_stat __percpu *stat = READ_ONCE(grp->stat);
	struct iostream_cpu_stat __percpu *pstat = NULL;
	struct iostream_count sum[IOSTREAM_CHUNK];
	struct blkcg_gq *parent = pd->blkg->parent;
	unsigned int first, nr = 0;
	struct iostream_grp *pgrp;
	u64 fallback;

	pgrp = parent ? blkg_to_iostream(parent) : NULL;
	if (stat && pgrp)
		pstat = iostream_stat_get(pgrp, parent->q);
	if (pstat)
		nr = iostream_stat_nr(stat);

	write_seqlock(&iostream_fold_lock);
	for (first = 0; first < nr; first += IOSTREAM_CHUNK) {
		memset(sum, 0, sizeof(sum));
		fallback = 0;
		iostream_stat_sum(stat, first, IOSTREAM_CHUNK, sum,
				  first ? NULL : &fallback);
		iostream_stat_fold(pstat, first, sum, fallback);
	}
	WRITE_ONCE(grp->folded, true);
	write_sequnlock(&iostream_fold_lock);
}

/*
 * Add the counts of streams @first to @first + IOSTREAM_CHUNK - 1 of
 * @blkg and of its online descendants on @blkg's disk to @sum, and their
 * fallbacks to @fallback if not NULL.  Return the entries of the largest
 * counters met, 0 if none.
 */
static unsigned int iostream_subtree_sum(struct blkcg_gq *blkg,
					 unsigned int first,
					 struct iostream_count *sum,
					 u64 *fallback)
{
	struct iostream_cpu_stat __percpu *stat;
	struct cgroup_subsys_state *pos;
	struct iostream_grp *grp;
	struct blkcg_gq *d;
	unsigned int nr = 0;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, &blkg->blkcg->css) {
		d = pos == &blkg->blkcg->css ? blkg :
			blkg_lookup(css_to_blkcg(pos), blkg->q);
		grp = d ? blkg_to_iostream(d) : NULL;
		stat = grp ? READ_ONCE(grp->stat) : NULL;
		if (!stat || READ_ONCE(grp->folded))
			continue;
		nr = max(nr, iostream_stat_nr(stat));
		iostream_stat_sum(stat, first, IOSTREAM_CHUNK, sum, fallback);
	}
	rcu_read_unlock();
	return nr;
}

/*
 * io.stat's per-stream keys: what the cgroup and its descendants wrote on
 * the disk, summed here, IOSTREAM_CHUNK streams at a time, over their
 * blkgs and CPUs.  Under the cgroup's blkcg->lock, which nests inside the
 * disk's queue_lock, so the walk of the subtree is under RCU only; a walk
 * that met the folding of a removed cgroup's counts into its parent's
 * starts over.  Costs O(descendants x streams x CPUs) per read, for
 * descendants that wrote to a disk with streams; the writes pay nothing
 * for the sums.
 */
static void iostream_pd_stat(struct blkg_policy_data *pd, struct seq_file *s)
{
	struct iostream_count sum[IOSTREAM_CHUNK];
	unsigned int first, i, nr, seq;
	u64 fallback = 0, fb;

	for (first = 0; first < IOSTREAM_BITS; first += IOSTREAM_CHUNK) {
		do {
			seq = read_seqbegin(&iostream_fold_lock);
			memset(sum, 0, sizeof(sum));
			fb = 0;
			nr = iostream_subtree_sum(pd->blkg, first, sum,
						  first ? NULL : &fb);
		} while (read_seqretry(&iostream_fold_lock, seq));
		if (!first)
			fallback = fb;
		for (i = 0; i < IOSTREAM_CHUNK && first + i < nr; i++)
			if (sum[i].ios)
				seq_printf(s, " stream%u.wbytes=%llu stream%u.wios=%llu",
					   first + i, sum[i].bytes, first + i,
					   sum[i].ios);
		if (first + IOSTREAM_CHUNK >= nr)
			break;
	}
	if (fallback)
		seq_printf(s, " stream.fallback=%llu", fallback);
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
	struct iostream_pool pool = { };
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
	if (!ret)
		ret = iostream_prepare(blkcg, q, &pool);
	if (ret)
		goto close_bdev;
	/*
	 * The policy was activated when the disk was added; a disk where
	 * that failed has no io.stream (-EOPNOTSUPP).
	 */
	ret = blkg_conf_prep(blkcg, &blkcg_policy_iostream, &ctx);
	if (ret) {
		iostream_pool_free(&pool);
		goto close_bdev;
	}
	iostream_set(&blkg_to_iostream(ctx.blkg)->set, m, &iostream_nr_pins);
	m = NULL;
	blkg_conf_unprep(&ctx);
close_bdev:
	blkg_conf_close_bdev(&ctx);
	kfree(m);
	/* Outside the queue's rq_qos_mutex: @q is only compared. */
	if (!ret)
		iostream_update(blkcg, q, &pool);
	return ret;
}

/*
 * Replace @blkcg's default with @m (NULL for none) and recompute its
 * subtree, counting the setting in @pins.  On failure nothing changed
 * and @m is freed.
 */
static int iostream_change_dfl(struct blkcg *blkcg, struct iostream_mask *m,
			       atomic_t *pins)
{
	struct iostream_pool pool = { };
	int ret = iostream_prepare(blkcg, NULL, &pool);

	if (ret) {
		kfree(m);
		return ret;
	}
	iostream_set(&blkcg_to_iostream(blkcg)->dfl, m, pins);
	iostream_update(blkcg, NULL, &pool);
	return 0;
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
			ret = iostream_change_dfl(blkcg, m, &iostream_nr_pins);
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
	.pd_offline_fn	= iostream_pd_offline,
	.pd_free_fn	= iostream_pd_free,
	.pd_stat_fn	= iostream_pd_stat,
};

/**
 * blkcg_iostream_init_disk - give a new disk its io.stream state
 * @disk: disk being added
 *
 * Called from add_disk(), after the driver set the disk's limits: the
 * root cgroup's counters get a slot for each stream the disk has (an NVMe
 * namespace learns its streams only after its disk was allocated).  Does
 * nothing before the policy is registered.  The policy is never
 * deactivated on a live disk.
 *
 * Return: 0, or the error of activating the policy on @disk.
 */
int blkcg_iostream_init_disk(struct gendisk *disk)
{
	if (!iostream_registered)
		return 0;
	return blkcg_activate_policy(disk, &blkcg_policy_iostream);
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
