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
 * to.
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
 * ancestor has a setting.  So a delegated subtree, whose owner writes the
 * io.stream files of its sub-cgroups but not of its own root, can never
 * reach a stream or handle its ancestors did not give it.  An effective
 * set of one stream pins the writes to it; of several, it is a budget: the
 * submitter's stream, the filesystem's or the disk's placement policy's
 * choice is kept if it is in the set and replaced by one of the set if not
 * (see block/blk-stream.c for the order).  The root has no file: no setting
 * anywhere leaves every rule free.
 *
 * Effective sets are computed when a setting changes and when a (cgroup,
 * disk) pair gets its blkg, and kept in the blkg's policy data: the
 * decision point reads one word and, for a budget, one set, without a lock
 * or a retry.  Only streams the disk had then are in them; if it later
 * loses streams (after a reset), a write placed on one it no longer has
 * falls back to stream 0 and is counted.
 *
 * The policy is active on every disk so that each (cgroup, disk) pair has
 * a place for its setting and for the bytes and I/Os it wrote per stream,
 * shown in io.stat.  Nothing runs on the I/O path while no cgroup has a
 * setting.
 */

#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>

#include "blk-cgroup.h"
#include "blk-iostream.h"
#include "blk-stream.h"

/* Streams are u8 in struct bio. */
#define IOSTREAM_MAX		255
#define IOSTREAM_BITS		(IOSTREAM_MAX + 1)

static struct blkcg_policy blkcg_policy_iostream;

/**
 * struct iostream_mask - an io.stream setting, or an effective set
 * @inherit: no setting ("inherit"); for an effective set: no cgroup up to
 *	the root has one, every stream is allowed
 * @map: the streams allowed, from 1 to %IOSTREAM_MAX; none for "0"
 *
 * A setting is written under iostream_mutex and iostream_seq, and read
 * under either.
 */
struct iostream_mask {
	bool inherit;
	DECLARE_BITMAP(map, IOSTREAM_BITS);
};

/**
 * struct iostream_blkcg - per-cgroup data
 * @cpd: policy data
 * @dfl: the cgroup's default for disks without a line of their own
 */
struct iostream_blkcg {
	struct blkcg_policy_data cpd;
	struct iostream_mask dfl;
};

/**
 * struct iostream_stat - what a cgroup wrote on one stream of one disk
 * @bytes: bytes written
 * @ios: write bios
 */
struct iostream_stat {
	u64 bytes;
	u64 ios;
};

/**
 * struct iostream_grp - per (cgroup, disk) data
 * @pd: policy data
 * @set: the cgroup's line for this disk
 * @rule2: what the effective set means for a write (see
 *	__blkcg_write_stream()), read with one load
 * @cur: which of @eff is the effective set; the other is the next one
 * @eff: the effective set of the cgroup on the disk, and room for the next
 *	one.  Both are written under the disk's queue_lock: the next one, and
 *	then @cur, only after an RCU grace period since @cur last changed, so
 *	that a reader under rcu_read_lock() sees one whole set.
 * @nr_stat: entries in @stat: the disk's streams when this was allocated,
 *	plus stream 0
 * @stat: per-CPU bytes and I/Os per stream
 * @fallback: per-CPU count of writes whose stream the disk no longer had
 */
struct iostream_grp {
	struct blkg_policy_data pd;
	struct iostream_mask set;
	int rule2;
	unsigned int cur;
	struct iostream_mask eff[2];
	unsigned int nr_stat;
	struct iostream_stat __percpu *stat;
	u64 __percpu *fallback;
};

/*
 * Settings other than "inherit", over all cgroups and disks: while there
 * are any, the decision point runs and reads each write's effective set
 * (see blkcg_write_stream()).  The count changes under the locks of the
 * setting (or none, when a cgroup goes away); the static key follows it
 * under iostream_mutex, which also serializes writers of io.stream.
 * iostream_seq lets a new blkg, set up under its queue's lock alone, read
 * its cgroup's default whole.
 */
atomic_t iostream_nr_pins = ATOMIC_INIT(0);
static DEFINE_MUTEX(iostream_mutex);
static seqcount_t iostream_seq = SEQCNT_ZERO(iostream_seq);
static bool iostream_key_held;
static bool iostream_registered;

static void iostream_update_key(void)
{
	bool want = atomic_read(&iostream_nr_pins) > 0;

	lockdep_assert_held(&iostream_mutex);
	if (want && !iostream_key_held)
		blk_stream_get();
	else if (!want && iostream_key_held)
		blk_stream_put();
	iostream_key_held = want;
}

static void iostream_key_workfn(struct work_struct *work)
{
	mutex_lock(&iostream_mutex);
	iostream_update_key();
	mutex_unlock(&iostream_mutex);
}

static DECLARE_WORK(iostream_key_work, iostream_key_workfn);

/* Forget the pin of a setting that goes away with its cgroup. */
static void iostream_drop_pin(void)
{
	if (atomic_dec_and_test(&iostream_nr_pins))
		schedule_work(&iostream_key_work);
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
 * (from @blkg, its blkg there, if it has one), else its default.
 */
static const struct iostream_mask *iostream_level(struct blkcg_gq *blkg,
						  struct blkcg *blkcg)
{
	struct iostream_grp *grp = blkg ? blkg_to_iostream(blkg) : NULL;
	struct iostream_blkcg *isc = blkcg_to_iostream(blkcg);

	if (grp && !grp->set.inherit)
		return &grp->set;
	if (isc && !isc->dfl.inherit)
		return &isc->dfl;
	return NULL;
}

static const struct iostream_mask iostream_any = { .inherit = true };

/*
 * The effective set of a level whose parent's is @parent, on a disk with
 * @max streams: @parent narrowed by the level's setting @m (NULL for
 * none).  Below a level with a setting, a setting of 0 or one that leaves
 * nothing of @parent keeps @parent: the level cannot give up the streams
 * it was given for the default placement, which on FDP is stream 1's
 * handle.  @eff may be @parent.
 */
static void iostream_narrow(struct iostream_mask *eff,
			    const struct iostream_mask *parent,
			    const struct iostream_mask *m, unsigned int max)
{
	DECLARE_BITMAP(map, IOSTREAM_BITS);

	if (!m) {
		if (eff != parent)
			*eff = *parent;
		return;
	}
	bitmap_copy(map, m->map, IOSTREAM_BITS);
	if (max < IOSTREAM_MAX)
		bitmap_clear(map, max + 1, IOSTREAM_MAX - max);
	if (!parent->inherit &&
	    !bitmap_and(map, map, parent->map, IOSTREAM_BITS))
		bitmap_copy(map, parent->map, IOSTREAM_BITS);
	eff->inherit = false;
	bitmap_copy(eff->map, map, IOSTREAM_BITS);
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

/* The effective set in force for @grp; under rcu_read_lock() or a lock. */
static const struct iostream_mask *iostream_grp_eff(struct iostream_grp *grp)
{
	/* Pairs with the release in iostream_update_blkg(). */
	return &grp->eff[smp_load_acquire(&grp->cur)];
}

/*
 * Compute @blkg's effective set, on a disk with @max streams, from its
 * parent's and its own setting, and put it in force.  Under the disk's
 * queue_lock, parents first, and either before anyone can see @blkg or
 * (iostream_update()) an RCU grace period after @blkg's set last changed.
 * A caller not holding iostream_mutex reads the settings under
 * iostream_seq.
 */
static void iostream_update_blkg(struct blkcg_gq *blkg, unsigned int max)
{
	struct iostream_grp *grp = blkg_to_iostream(blkg);
	struct iostream_grp *pgrp;
	const struct iostream_mask *parent = &iostream_any;
	unsigned int next;

	if (!grp)
		return;
	next = !grp->cur;
	if (blkg->parent) {
		pgrp = blkg_to_iostream(blkg->parent);
		if (pgrp)
			parent = &pgrp->eff[pgrp->cur];
		iostream_narrow(&grp->eff[next], parent,
				iostream_level(blkg, blkg->blkcg), max);
	} else {
		grp->eff[next] = iostream_any;
	}
	WRITE_ONCE(grp->rule2, iostream_rule2(&grp->eff[next]));
	/* The set is whole before a reader can find it (iostream_grp_eff()). */
	smp_store_release(&grp->cur, next);
}

/* Recompute the effective sets of every cgroup on @q's disk. */
static void iostream_update_queue(struct request_queue *q)
{
	unsigned int max = q->limits.max_write_streams;
	struct blkcg_gq *blkg;

	spin_lock_irq(&q->queue_lock);
	/* blkg_list is pushed at the head: a reverse walk meets parents first */
	list_for_each_entry_reverse(blkg, &q->blkg_list, q_node)
		iostream_update_blkg(blkg, max);
	spin_unlock_irq(&q->queue_lock);
}

/*
 * Recompute the effective sets after a change of settings: on @q's disk,
 * or on every disk when @q is NULL (a cgroup's default changed).  Under
 * iostream_mutex, which keeps the settings still and updates apart.
 */
static void iostream_update(struct request_queue *q)
{
	struct blkcg_gq *root;

	lockdep_assert_held(&iostream_mutex);
	/* No reader is still in a set that an earlier update left. */
	synchronize_rcu();
	if (q) {
		iostream_update_queue(q);
		return;
	}
	rcu_read_lock();
	hlist_for_each_entry_rcu(root, &blkcg_root.blkg_list, blkcg_node)
		iostream_update_queue(root->q);
	rcu_read_unlock();
}

/*
 * A new blkg (or one the policy is being activated on): compute its
 * effective set before any write can use it.  Called with the disk's
 * queue_lock held, so with no update of the disk's sets under way.
 */
static void iostream_pd_init(struct blkg_policy_data *pd)
{
	struct blkcg_gq *blkg = pd->blkg;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&iostream_seq);
		iostream_update_blkg(blkg, blkg->q->limits.max_write_streams);
	} while (read_seqcount_retry(&iostream_seq, seq));
}

/*
 * The blkg whose effective set confines a write that carries its
 * submitter's stream but is charged to the root cgroup or to none, as
 * when the submitter's cgroup is dying or its blkg could not be allocated:
 * the submitting task's, since the submitter chose the stream.  The bio's
 * own blkg when the submitter is in the root cgroup or not in a task;
 * NULL when the submitter's cgroup has no blkg on the disk, so no known
 * set.  Under rcu_read_lock().
 */
static struct blkcg_gq *iostream_submitter_blkg(struct bio *bio)
{
	struct cgroup_subsys_state *css;

	if (!in_task())
		return bio->bi_blkg;
	css = kthread_blkcg() ?: task_css(current, io_cgrp_id);
	if (!css || !css->parent)
		return bio->bi_blkg;
	return blkg_lookup(css_to_blkcg(css), bdev_get_queue(bio->bi_bdev));
}

/* Whether @bio's own blkg may not be the one that confines it. */
static bool iostream_root_charged(struct bio *bio)
{
	return bio->bi_write_stream &&
	       (!bio->bi_blkg || !bio->bi_blkg->parent);
}

/**
 * __blkcg_write_stream - rule 2: what io.stream allows a bio's cgroup
 * @bio: a write bio
 *
 * A write that carries its submitter's stream and is charged to the root
 * or to no cgroup is confined by the submitting task's cgroup (see
 * iostream_submitter_blkg()); where that cgroup has no effective set on
 * the disk, the submitter's stream is dropped and the other rules decide.
 *
 * Return: %BLKCG_STREAM_ANY when no cgroup from the bio's up to the root
 * has a setting, %BLKCG_STREAM_BUDGET when the effective set has several
 * streams (blkcg_confine_write_stream() keeps the bio in it), else the one
 * stream the bio must use: its single stream, or 0 when no cgroup above
 * it confines it and it gave up placement.
 */
int __blkcg_write_stream(struct bio *bio)
{
	struct blkcg_gq *blkg = bio->bi_blkg;
	struct iostream_grp *grp;
	int ret = BLKCG_STREAM_ANY;

	if (likely(!iostream_root_charged(bio))) {
		grp = blkg ? blkg_to_iostream(blkg) : NULL;
		return grp ? READ_ONCE(grp->rule2) : BLKCG_STREAM_ANY;
	}
	rcu_read_lock();
	blkg = iostream_submitter_blkg(bio);
	grp = blkg ? blkg_to_iostream(blkg) : NULL;
	if (grp)
		ret = READ_ONCE(grp->rule2);
	else if (blkg != bio->bi_blkg)
		bio->bi_write_stream = 0;
	rcu_read_unlock();
	return ret;
}

/* @stream if @eff allows it, else the (@stream mod n)-th of its n streams. */
static unsigned int iostream_confine(const struct iostream_mask *eff,
				     unsigned int stream)
{
	unsigned int n;

	if (eff->inherit || (stream && stream < IOSTREAM_BITS &&
			     test_bit(stream, eff->map)))
		return stream;
	n = bitmap_weight(eff->map, IOSTREAM_BITS);
	if (!n)
		return 0;
	return find_nth_bit(eff->map, IOSTREAM_BITS, stream % n);
}

/**
 * blkcg_confine_write_stream - keep a write in its cgroup's budget
 * @bio: a write bio for which blkcg_write_stream() said %BLKCG_STREAM_BUDGET
 * @stream: the stream an earlier or later rule chose, 0 for none
 *
 * A budget is spent by the other rules: a stream in the cgroup's effective
 * set is kept; any other, 0 included, is replaced by one of the set, the
 * same one for the same @stream, so that writes the disk's placement
 * policy keeps apart stay apart where the set allows it.
 *
 * Return: the stream to use.
 */
unsigned int blkcg_confine_write_stream(struct bio *bio, unsigned int stream)
{
	struct blkcg_gq *blkg = bio->bi_blkg;
	struct iostream_grp *grp;

	rcu_read_lock();
	if (iostream_root_charged(bio))
		blkg = iostream_submitter_blkg(bio);
	grp = blkg ? blkg_to_iostream(blkg) : NULL;
	if (grp)
		stream = iostream_confine(iostream_grp_eff(grp), stream);
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
	/* The sets change only under the queue lock. */
	spin_lock_irq(&q->queue_lock);
	list_for_each_entry(blkg, &q->blkg_list, q_node) {
		grp = blkg_to_iostream(blkg);
		if (!grp)
			continue;
		eff = &grp->eff[grp->cur];
		if (eff->inherit)
			continue;
		for_each_set_bit(s, eff->map, nbits)
			__set_bit(s, map);
	}
	spin_unlock_irq(&q->queue_lock);
}
EXPORT_SYMBOL_GPL(blkcg_iostream_pinned);

/**
 * blkcg_account_write_stream - count a decided write for its cgroup
 * @bio: a write bio with its final bi_write_stream
 * @fallback: the bio's stream was dropped because the disk lacks it
 */
void blkcg_account_write_stream(struct bio *bio, bool fallback)
{
	struct iostream_grp *grp;
	unsigned int s = bio->bi_write_stream;

	if (!bio->bi_blkg)
		return;
	grp = blkg_to_iostream(bio->bi_blkg);
	if (!grp || !grp->stat)
		return;
	if (s < grp->nr_stat) {
		this_cpu_add(grp->stat[s].bytes, bio->bi_iter.bi_size);
		this_cpu_inc(grp->stat[s].ios);
	}
	if (fallback)
		this_cpu_inc(*grp->fallback);
}

static struct blkcg_policy_data *iostream_cpd_alloc(gfp_t gfp)
{
	struct iostream_blkcg *isc = kzalloc_obj(*isc, gfp);

	if (!isc)
		return NULL;
	isc->dfl.inherit = true;
	return &isc->cpd;
}

static void iostream_cpd_free(struct blkcg_policy_data *cpd)
{
	struct iostream_blkcg *isc = container_of(cpd, struct iostream_blkcg, cpd);

	if (!isc->dfl.inherit)
		iostream_drop_pin();
	kfree(isc);
}

static struct blkg_policy_data *iostream_pd_alloc(struct gendisk *disk,
						  struct blkcg *blkcg, gfp_t gfp)
{
	unsigned int nr = disk->queue->limits.max_write_streams + 1;
	struct iostream_grp *grp;

	grp = kzalloc_node(sizeof(*grp), gfp, disk->node_id);
	if (!grp)
		return NULL;
	grp->set.inherit = true;
	/* Until iostream_pd_init(): what no setting gives. */
	grp->eff[0].inherit = true;
	grp->rule2 = BLKCG_STREAM_ANY;
	/* Disks without streams only count fallbacks: nothing to place. */
	if (nr > 1) {
		grp->stat = __alloc_percpu_gfp(nr * sizeof(*grp->stat),
					       __alignof__(*grp->stat), gfp);
		grp->fallback = alloc_percpu_gfp(u64, gfp);
		if (!grp->stat || !grp->fallback) {
			free_percpu(grp->stat);
			free_percpu(grp->fallback);
			kfree(grp);
			return NULL;
		}
		grp->nr_stat = nr;
	}
	return &grp->pd;
}

static void iostream_pd_free(struct blkg_policy_data *pd)
{
	struct iostream_grp *grp = container_of(pd, struct iostream_grp, pd);

	if (!grp->set.inherit)
		iostream_drop_pin();
	free_percpu(grp->stat);
	free_percpu(grp->fallback);
	kfree(grp);
}

static void iostream_pd_stat(struct blkg_policy_data *pd, struct seq_file *s)
{
	struct iostream_grp *grp = container_of(pd, struct iostream_grp, pd);
	u64 fallback = 0;
	unsigned int i;
	int cpu;

	for (i = 0; i < grp->nr_stat; i++) {
		u64 bytes = 0, ios = 0;

		for_each_possible_cpu(cpu) {
			bytes += per_cpu_ptr(grp->stat, cpu)[i].bytes;
			ios += per_cpu_ptr(grp->stat, cpu)[i].ios;
		}
		if (ios)
			seq_printf(s, " stream%u.wbytes=%llu stream%u.wios=%llu",
				   i, bytes, i, ios);
	}
	if (grp->fallback) {
		for_each_possible_cpu(cpu)
			fallback += *per_cpu_ptr(grp->fallback, cpu);
		if (fallback)
			seq_printf(s, " stream.fallback=%llu", fallback);
	}
}

static void iostream_print_value(struct seq_file *sf,
				 const struct iostream_mask *m)
{
	if (m->inherit)
		seq_puts(sf, "inherit\n");
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

	if (!dname || grp->set.inherit)
		return 0;
	seq_printf(sf, "%s ", dname);
	iostream_print_value(sf, &grp->set);
	return 0;
}

static int iostream_show(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));

	mutex_lock(&iostream_mutex);
	seq_puts(sf, "default ");
	iostream_print_value(sf, &blkcg_to_iostream(blkcg)->dfl);
	blkcg_print_blkgs(sf, blkcg, iostream_prfill, &blkcg_policy_iostream,
			  0, false);
	mutex_unlock(&iostream_mutex);
	return 0;
}

/*
 * The effective set of @blkcg on @q's disk: its blkg's or, for a cgroup
 * that has none there (it never wrote to the disk), the nearest
 * ancestor's narrowed by the defaults of the cgroups in between, as its
 * blkg would get it.  Under iostream_mutex and rcu_read_lock().
 */
static void iostream_cgroup_eff(struct blkcg *blkcg, struct request_queue *q,
				struct iostream_mask *eff)
{
	unsigned int max = q->limits.max_write_streams;
	struct blkcg *top = blkcg, *pos;
	struct iostream_grp *grp;
	struct blkcg_gq *blkg;

	while (!(blkg = blkg_lookup(top, q)) && iostream_parent(top))
		top = iostream_parent(top);
	grp = blkg ? blkg_to_iostream(blkg) : NULL;
	*eff = grp ? *iostream_grp_eff(grp) : iostream_any;
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
 * io.stream.effective: for each disk with streams, the streams the
 * cgroup's writes may use there, "inherit" when no cgroup up to the root
 * has a setting.
 */
static int iostream_effective_show(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));
	struct blkcg_gq *root;

	mutex_lock(&iostream_mutex);
	rcu_read_lock();
	hlist_for_each_entry_rcu(root, &blkcg_root.blkg_list, blkcg_node) {
		struct request_queue *q = root->q;
		const char *dname = blkg_dev_name(root);
		struct iostream_mask eff;

		if (!dname || !q->limits.max_write_streams)
			continue;
		iostream_cgroup_eff(blkcg, q, &eff);
		seq_printf(sf, "%s ", dname);
		iostream_print_value(sf, &eff);
	}
	rcu_read_unlock();
	mutex_unlock(&iostream_mutex);
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
 * Parse one value into @m: "default" or its synonym "inherit", which
 * remove a setting; "0"; or a list of streams from 1 to @max, such as "3",
 * "3,5" or "2-4,7".  Leading and trailing white space is allowed, nothing
 * else.  @m is written only on success.
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
	if (len == 7 &&
	    (!strncmp(s, "inherit", 7) || !strncmp(s, "default", 7))) {
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

/* Replace a setting and keep the count of pins.  Under iostream_mutex. */
static void iostream_set(struct iostream_mask *slot,
			 const struct iostream_mask *m)
{
	unsigned long flags;

	lockdep_assert_held(&iostream_mutex);
	if (slot->inherit && !m->inherit)
		atomic_inc(&iostream_nr_pins);
	else if (!slot->inherit && m->inherit)
		atomic_dec(&iostream_nr_pins);
	/* No reader may interrupt the writer: it would wait for itself. */
	local_irq_save(flags);
	write_seqcount_begin(&iostream_seq);
	slot->inherit = m->inherit;
	bitmap_copy(slot->map, m->map, IOSTREAM_BITS);
	write_seqcount_end(&iostream_seq);
	local_irq_restore(flags);
}

static ssize_t iostream_write_disk(struct blkcg *blkcg, char *buf)
{
	struct iostream_mask m;
	struct blkg_conf_ctx ctx;
	unsigned int max;
	int ret;

	blkg_conf_init(&ctx, buf);
	ret = blkg_conf_open_bdev(&ctx);
	if (ret)
		return ret;

	/*
	 * A delegatee may write this file: the error is all it gets, so that
	 * it cannot fill the log.
	 */
	max = ctx.bdev->bd_disk->queue->limits.max_write_streams;
	ret = iostream_parse_value(ctx.body, max, &m);
	if (!max && !ret && !m.inherit)
		ret = -EINVAL;
	if (ret)
		goto close_bdev;

	/* Normally done when the disk was added; a no-op then. */
	ret = blkcg_activate_policy(ctx.bdev->bd_disk, &blkcg_policy_iostream);
	if (ret)
		goto close_bdev;
	ret = blkg_conf_prep(blkcg, &blkcg_policy_iostream, &ctx);
	if (ret)
		goto close_bdev;
	iostream_set(&blkg_to_iostream(ctx.blkg)->set, &m);
	blkg_conf_unprep(&ctx);
	iostream_update(ctx.bdev->bd_disk->queue);
close_bdev:
	blkg_conf_close_bdev(&ctx);
	return ret;
}

static ssize_t iostream_write(struct kernfs_open_file *of, char *buf,
			      size_t nbytes, loff_t off)
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	struct iostream_mask m;
	int ret = 0;

	mutex_lock(&iostream_mutex);
	if (strchr(buf, ':')) {
		ret = iostream_write_disk(blkcg, buf);
	} else {
		/* "default VALUE" or "VALUE": the cgroup's default */
		char *p = skip_spaces(buf);

		if (!strncmp(p, "default", 7) && isspace(p[7]) &&
		    *skip_spaces(p + 7))
			p += 7;
		ret = iostream_parse_value(p, IOSTREAM_MAX, &m);
		if (!ret) {
			iostream_set(&blkcg_to_iostream(blkcg)->dfl, &m);
			iostream_update(NULL);
		}
	}
	iostream_update_key();
	mutex_unlock(&iostream_mutex);
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
};

/**
 * blkcg_iostream_init_disk - give a new disk its io.stream state
 * @disk: disk being added
 *
 * Called from add_disk(), after the driver set the disk's limits: the
 * root cgroup's counters get a slot for each stream the disk has (an NVMe
 * namespace learns its streams only after its disk was allocated).  Does
 * nothing before the policy is registered.
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
