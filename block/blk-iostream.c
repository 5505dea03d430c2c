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
 * A value is "inherit" (no setting of its own), 0 (no stream: the
 * device's default placement, even where the disk's placement policy would
 * place) or a set of streams of the disk.  As with cpuset, a cgroup gets
 * only what all its ancestors allow: its effective set is the intersection
 * of the settings from it up to the root, and an empty intersection is 0.
 * So a delegated subtree, whose owner writes the io.stream files of its
 * sub-cgroups but not of its own root, can never reach a stream its
 * ancestors did not give it.  An effective set of one stream pins the
 * writes to it; of several, it is a budget: the submitter's stream, the
 * filesystem's or the disk's placement policy's choice is kept if it is in
 * the set and replaced by one of the set if not (see block/blk-stream.c for
 * the order).  The root has no file: no setting anywhere leaves every rule
 * free.  A value the disk no longer has (streams shrank after a reset)
 * falls back to 0 and is counted.
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
 * struct iostream_mask - an io.stream setting, or the streams it leaves
 * @inherit: no setting ("inherit"); for an effective set: no cgroup up to
 *	the root has one, every stream is allowed
 * @map: the streams allowed, from 1 to %IOSTREAM_MAX; none for "0"
 *
 * Written under iostream_mutex and iostream_seq, read under either.
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
 * @nr_stat: entries in @stat: the disk's streams when this was allocated,
 *	plus stream 0
 * @stat: per-CPU bytes and I/Os per stream
 * @fallback: per-CPU count of writes whose stream the disk no longer had
 */
struct iostream_grp {
	struct blkg_policy_data pd;
	struct iostream_mask set;
	unsigned int nr_stat;
	struct iostream_stat __percpu *stat;
	u64 __percpu *fallback;
};

/*
 * Settings other than "inherit", over all cgroups and disks: while there
 * are any, the decision point runs and walks each write's cgroups (see
 * blkcg_write_stream()).  The count changes under the locks of the
 * setting (or none, when a cgroup goes away); the static key follows it
 * under iostream_mutex, which also serializes writers of io.stream.
 * iostream_seq lets the decision point, which takes no lock, read all the
 * settings from a cgroup up to the root as one consistent whole.
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

/*
 * The setting that applies to @blkcg on a disk: its line for the disk
 * (from @blkg, its blkg there, if it has one), else its default.
 */
static const struct iostream_mask *iostream_level(struct blkcg_gq *blkg,
						  struct blkcg *blkcg)
{
	struct iostream_grp *grp = blkg_to_iostream(blkg);
	struct iostream_blkcg *isc = blkcg_to_iostream(blkcg);

	if (grp && !grp->set.inherit)
		return &grp->set;
	if (isc && !isc->dfl.inherit)
		return &isc->dfl;
	return NULL;
}

/* Narrow @eff, the effective set of the levels below, by one level's. */
static void iostream_narrow(struct iostream_mask *eff,
			    const struct iostream_mask *m)
{
	if (!m)
		return;
	if (eff->inherit)
		bitmap_copy(eff->map, m->map, IOSTREAM_BITS);
	else
		bitmap_and(eff->map, eff->map, m->map, IOSTREAM_BITS);
	eff->inherit = false;
}

/*
 * The effective set of @blkg's cgroup on its disk: the intersection of
 * the settings of it and its ancestors, read as one whole.  Takes no lock.
 */
static void iostream_effective(struct blkcg_gq *blkg, struct iostream_mask *eff)
{
	struct blkcg_gq *pos;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&iostream_seq);
		eff->inherit = true;
		for (pos = blkg; pos && pos->parent; pos = pos->parent)
			iostream_narrow(eff, iostream_level(pos, pos->blkcg));
	} while (read_seqcount_retry(&iostream_seq, seq));
}

/**
 * __blkcg_write_stream - rule 2: what io.stream allows a bio's cgroup
 * @bio: a write bio
 *
 * Return: %BLKCG_STREAM_ANY when no cgroup from the bio's up to the root
 * has a setting, %BLKCG_STREAM_BUDGET when the effective set has several
 * streams (blkcg_confine_write_stream() keeps the bio in it), else the one
 * stream the bio must use: its single stream, or 0 when it has none.
 */
int __blkcg_write_stream(struct bio *bio)
{
	struct iostream_mask eff;
	unsigned int first;

	iostream_effective(bio->bi_blkg, &eff);
	if (eff.inherit)
		return BLKCG_STREAM_ANY;
	first = find_first_bit(eff.map, IOSTREAM_BITS);
	if (first == IOSTREAM_BITS)
		return 0;
	if (find_next_bit(eff.map, IOSTREAM_BITS, first + 1) < IOSTREAM_BITS)
		return BLKCG_STREAM_BUDGET;
	return first;
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
	struct iostream_mask eff;

	iostream_effective(bio->bi_blkg, &eff);
	return iostream_confine(&eff, stream);
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
	struct iostream_mask eff;
	struct blkcg_gq *blkg;
	unsigned int s;

	nbits = min_t(unsigned int, nbits, IOSTREAM_BITS);
	spin_lock_irq(&q->queue_lock);
	list_for_each_entry(blkg, &q->blkg_list, q_node) {
		iostream_effective(blkg, &eff);
		if (eff.inherit)
			continue;
		for_each_set_bit(s, eff.map, nbits)
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
 * io.stream.effective: for each disk with streams, the streams the
 * cgroup's writes may use there, "any" when no cgroup up to the root has a
 * setting.  A cgroup that never wrote to the disk has no blkg there, nor
 * may its ancestors: their defaults apply.
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
		struct iostream_mask eff = { .inherit = true };
		struct blkcg *pos;

		if (!dname || !q->limits.max_write_streams)
			continue;
		for (pos = blkcg; pos && pos != &blkcg_root;
		     pos = css_to_blkcg(pos->css.parent))
			iostream_narrow(&eff, iostream_level(blkg_lookup(pos, q),
							     pos));
		seq_printf(sf, "%s ", dname);
		if (eff.inherit)
			seq_puts(sf, "any\n");
		else
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
 * Parse one value into @m: "inherit"; on a disk's line (@line) also
 * "default", which removes the line as "inherit" does; "0"; or a list of
 * streams from 1 to @max, such as "3", "3,5" or "2-4,7".  Leading and
 * trailing white space is allowed, nothing else.  @m is written only on
 * success.
 */
static int iostream_parse_value(const char *s, unsigned int max, bool line,
				struct iostream_mask *m)
{
	DECLARE_BITMAP(map, IOSTREAM_BITS);
	const char *p, *end;
	size_t len;

	s = skip_spaces(s);
	len = strcspn(s, " \t\n");
	if (!len || s[len + strspn(s + len, " \t\n")])
		return -EINVAL;
	if ((len == 7 && !strncmp(s, "inherit", 7)) ||
	    (line && len == 7 && !strncmp(s, "default", 7))) {
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

	max = ctx.bdev->bd_disk->queue->limits.max_write_streams;
	ret = iostream_parse_value(ctx.body, max, true, &m);
	if (!max && (ret || !m.inherit)) {
		pr_warn_ratelimited("io.stream: %s has no write streams\n",
				    ctx.bdev->bd_disk->disk_name);
		ret = -EINVAL;
	} else if (ret) {
		pr_warn_ratelimited("io.stream: %s: '%s' is not inherit, default, 0 or a list of streams from 1 to %u\n",
				    ctx.bdev->bd_disk->disk_name, strim(ctx.body), max);
	}
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

		if (!strncmp(p, "default", 7) && isspace(p[7]))
			p += 7;
		ret = iostream_parse_value(p, IOSTREAM_MAX, false, &m);
		if (ret)
			pr_warn_ratelimited("io.stream: default '%s' is not inherit, 0 or a list of streams from 1 to %u\n",
					    strim(p), IOSTREAM_MAX);
		else
			iostream_set(&blkcg_to_iostream(blkcg)->dfl, &m);
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
