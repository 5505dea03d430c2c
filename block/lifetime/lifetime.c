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
 * Documentation/block/write-stream-lifetime.rst.  lifetime.h says
 * which source file holds what.
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
#include "lifetime.h"

/* Serialises the disks' irqoff_timing switches. */
DEFINE_MUTEX(lt_timing_mutex);

/*
 * With a disk's irqoff_timing debugfs file set, its lock, always held
 * with interrupts off, times how long it is held, and the stats file
 * shows the longest: a measure of the policy's time with interrupts off.
 * A static key, counted by the disks that time: off, it costs a no-op.
 * Its last drop is left to a work item: lt_exit_disk() may run with the
 * queue frozen, where cpu_hotplug_lock must not be taken.
 */
DEFINE_STATIC_KEY_DEFERRED_FALSE(lt_timing, HZ);

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
	ld->writer_ranks = true;
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

VISIBLE_IF_KUNIT int lt_init_disk(struct gendisk *disk, void **data)
{
	return lt_init_instance(disk, data, false);
}

VISIBLE_IF_KUNIT int lt_init_shadow(struct gendisk *disk, void **data)
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
