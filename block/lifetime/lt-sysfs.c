// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime policy's settings, one value per file, in
 * /sys/block/<disk>/queue/lifetime/ (lifetime_shadow/ for an instance in
 * shadow).  See Documentation/ABI/testing/sysfs-block-lifetime.
 */
#include "lifetime.h"

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

static ssize_t writer_ranks_show(struct lt_disk *ld, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(ld->writer_ranks));
}

/* 0 plans from measured survival alone; from the next plan on. */
static ssize_t writer_ranks_store(struct lt_disk *ld, const char *page,
				  size_t count)
{
	bool v;

	if (kstrtobool(page, &v))
		return -EINVAL;
	WRITE_ONCE(ld->writer_ranks, v);
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
LT_ATTR_RW(writer_ranks);
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
	&lt_attr_writer_ranks.attr,
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

VISIBLE_IF_KUNIT void lt_free(struct lt_disk *ld)
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

const struct kobj_type lt_ktype = {
	.sysfs_ops = &lt_sysfs_ops,
	.default_groups = lt_groups,
	.release = lt_kobj_release,
};
