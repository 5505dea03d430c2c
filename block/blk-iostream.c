// SPDX-License-Identifier: GPL-2.0
/*
 * io.stream: a cgroup v2 controller that pins a cgroup's writes to a write
 * stream per disk.
 *
 * On a shared machine the operator knows which tenant's data live long and
 * which die young; the applications do not tag their writes, and buffered
 * writes reach the disk from the flusher, long after the writer left.
 * io.stream lets the operator say, per cgroup and disk, which write stream
 * (on an NVMe FDP SSD: which placement handle) the cgroup's writes use,
 * writeback included: a bio is decided for the cgroup it is charged to.
 *
 *   $ cat io.stream
 *   default inherit
 *   259:0 3
 *
 * A value is "inherit" (take the parent's), 0 (the device's default
 * placement, even where the disk's placement policy would place) or a
 * stream of the disk.  The root has no file; its value lets the disk's
 * placement policy decide.  A stream set by the submitter always wins: this
 * only fills a bio's empty stream (see block/blk-stream.c for the order).
 * A value the disk no longer has (streams shrank after a reset) falls back
 * to 0 and is counted.
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

/* A value meaning "take the parent's". */
#define IOSTREAM_INHERIT	(-1)
/* Streams are u8 in struct bio. */
#define IOSTREAM_MAX		255

static struct blkcg_policy blkcg_policy_iostream;

/**
 * struct iostream_blkcg - per-cgroup data
 * @cpd: policy data
 * @dfl: the cgroup's default for disks without a line of their own, a
 *	stream or %IOSTREAM_INHERIT
 */
struct iostream_blkcg {
	struct blkcg_policy_data cpd;
	int dfl;
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
 * @stream: the cgroup's setting for this disk, or %IOSTREAM_INHERIT
 * @nr_stat: entries in @stat: the disk's streams when this was allocated,
 *	plus stream 0
 * @stat: per-CPU bytes and I/Os per stream
 * @fallback: per-CPU count of writes whose stream the disk no longer had
 */
struct iostream_grp {
	struct blkg_policy_data pd;
	int stream;
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
 */
atomic_t iostream_nr_pins = ATOMIC_INIT(0);
static DEFINE_MUTEX(iostream_mutex);
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

/**
 * __blkcg_write_stream - the io.stream pin of a bio's cgroup
 * @bio: a write bio
 *
 * Walks from the bio's cgroup to the root: at each level the cgroup's line
 * for the disk wins over its default; "inherit" moves up.
 *
 * Return: the stream to use (0 for the device's default placement), or -1
 * when no cgroup on the way pins the bio and later rules decide.
 */
int __blkcg_write_stream(struct bio *bio)
{
	struct blkcg_gq *blkg = bio->bi_blkg;

	for (; blkg && blkg->parent; blkg = blkg->parent) {
		struct iostream_grp *grp = blkg_to_iostream(blkg);
		struct iostream_blkcg *isc = blkcg_to_iostream(blkg->blkcg);
		int v;

		v = grp ? READ_ONCE(grp->stream) : IOSTREAM_INHERIT;
		if (v != IOSTREAM_INHERIT)
			return v;
		v = isc ? READ_ONCE(isc->dfl) : IOSTREAM_INHERIT;
		if (v != IOSTREAM_INHERIT)
			return v;
	}
	return -1;
}

/**
 * blkcg_iostream_pinned - the streams io.stream pins cgroups to on a disk
 * @disk: the disk
 * @map: bitmap of streams, set for each stream some cgroup is pinned to
 * @nbits: bits in @map; larger streams are left out
 *
 * Looks at the cgroups that have written to @disk (those with a blkg on
 * it): a placement policy that plans the streams leaves these alone.
 * Stream 0 (the device's default) is never set.
 */
void blkcg_iostream_pinned(struct gendisk *disk, unsigned long *map,
			   unsigned int nbits)
{
	struct request_queue *q = disk->queue;
	struct blkcg_gq *blkg;

	spin_lock_irq(&q->queue_lock);
	list_for_each_entry(blkg, &q->blkg_list, q_node) {
		struct iostream_grp *grp = blkg_to_iostream(blkg);
		struct iostream_blkcg *isc = blkcg_to_iostream(blkg->blkcg);
		int v = grp ? READ_ONCE(grp->stream) : IOSTREAM_INHERIT;

		if (v == IOSTREAM_INHERIT && isc)
			v = READ_ONCE(isc->dfl);
		if (v > 0 && v < nbits)
			__set_bit(v, map);
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
	isc->dfl = IOSTREAM_INHERIT;
	return &isc->cpd;
}

static void iostream_cpd_free(struct blkcg_policy_data *cpd)
{
	struct iostream_blkcg *isc = container_of(cpd, struct iostream_blkcg, cpd);

	if (isc->dfl != IOSTREAM_INHERIT)
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
	grp->stream = IOSTREAM_INHERIT;
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

	if (grp->stream != IOSTREAM_INHERIT)
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

static void iostream_print_value(struct seq_file *sf, int v)
{
	if (v == IOSTREAM_INHERIT)
		seq_puts(sf, "inherit\n");
	else
		seq_printf(sf, "%d\n", v);
}

static u64 iostream_prfill(struct seq_file *sf, struct blkg_policy_data *pd,
			   int off)
{
	struct iostream_grp *grp = container_of(pd, struct iostream_grp, pd);
	const char *dname = blkg_dev_name(pd->blkg);

	if (!dname || grp->stream == IOSTREAM_INHERIT)
		return 0;
	seq_printf(sf, "%s ", dname);
	iostream_print_value(sf, grp->stream);
	return 0;
}

static int iostream_show(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));

	seq_puts(sf, "default ");
	iostream_print_value(sf, blkcg_to_iostream(blkcg)->dfl);
	blkcg_print_blkgs(sf, blkcg, iostream_prfill, &blkcg_policy_iostream,
			  0, false);
	return 0;
}

/*
 * Parse one value: "inherit", or a stream from 0 to @max.  Trailing white
 * space is allowed, nothing else.
 */
static int iostream_parse_value(const char *s, int max, int *v)
{
	unsigned int n;
	char tok[8];
	int len;

	if (sscanf(s, " %7s%n", tok, &len) != 1 || s[len + strspn(s + len, " \t\n")])
		return -EINVAL;
	if (!strcmp(tok, "inherit")) {
		*v = IOSTREAM_INHERIT;
		return 0;
	}
	if (kstrtouint(tok, 10, &n) || n > max)
		return -EINVAL;
	*v = n;
	return 0;
}

/* Replace a setting and keep the count of pins.  Under iostream_mutex. */
static void iostream_set(int *slot, int v)
{
	lockdep_assert_held(&iostream_mutex);
	if (*slot == IOSTREAM_INHERIT && v != IOSTREAM_INHERIT)
		atomic_inc(&iostream_nr_pins);
	else if (*slot != IOSTREAM_INHERIT && v == IOSTREAM_INHERIT)
		atomic_dec(&iostream_nr_pins);
	WRITE_ONCE(*slot, v);
}

static ssize_t iostream_write_disk(struct blkcg *blkcg, char *buf)
{
	struct blkg_conf_ctx ctx;
	unsigned int max;
	int ret, v;

	blkg_conf_init(&ctx, buf);
	ret = blkg_conf_open_bdev(&ctx);
	if (ret)
		return ret;

	max = ctx.bdev->bd_disk->queue->limits.max_write_streams;
	ret = iostream_parse_value(ctx.body, max, &v);
	if (!max && (ret || v != IOSTREAM_INHERIT)) {
		pr_warn_ratelimited("io.stream: %s has no write streams\n",
				    ctx.bdev->bd_disk->disk_name);
		ret = -EINVAL;
	} else if (ret) {
		pr_warn_ratelimited("io.stream: %s: '%s' is not inherit, 0 or a stream up to %u\n",
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
	iostream_set(&blkg_to_iostream(ctx.blkg)->stream, v);
	blkg_conf_unprep(&ctx);
close_bdev:
	blkg_conf_close_bdev(&ctx);
	return ret;
}

static ssize_t iostream_write(struct kernfs_open_file *of, char *buf,
			      size_t nbytes, loff_t off)
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	int ret = 0, v;

	mutex_lock(&iostream_mutex);
	if (strchr(buf, ':')) {
		ret = iostream_write_disk(blkcg, buf);
	} else {
		/* "default VALUE" or "VALUE": the cgroup's default */
		char *p = skip_spaces(buf);

		if (!strncmp(p, "default", 7) && isspace(p[7]))
			p += 7;
		ret = iostream_parse_value(p, IOSTREAM_MAX, &v);
		if (!ret)
			iostream_set(&blkcg_to_iostream(blkcg)->dfl, v);
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
