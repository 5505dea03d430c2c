// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime policy's state, for developers, in
 * /sys/kernel/debug/block/<disk>/lifetime/: its labels, its layout, its
 * counters, and the switch that times its sections with interrupts off.
 */
#include "lifetime.h"

static const char *const lt_src_name[] = {
	[LT_SRC_NONE] = "none", [LT_SRC_FILE] = "file",
	[LT_SRC_THREAD] = "thread", [LT_SRC_BDEV] = "bdev",
};

/* The source of a label's @key; "?" for one this table does not know. */
static const char *lt_src_str(u64 key)
{
	u64 src = (key >> LT_KEY_SRC_SHIFT) & LT_KEY_SRC_MASK;

	return src < ARRAY_SIZE(lt_src_name) ? lt_src_name[src] : "?";
}

static const char *const lt_hint_name[] = {
	"not_set", "none", "short", "medium", "long", "extreme",
	"journal", "metadata",
};

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
			   ids[l->tenant],
			   lt_hint_name[(key >> LT_KEY_HINT_SHIFT) & LT_KEY_HINT_MASK],
			   lt_src_str(key),
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
			seq_printf(m, "boundary %u tenant %u label %u worth %llu%s\n",
				   i, inst->layout.commit[i].tenant,
				   inst->layout.commit[i].label,
				   inst->layout.commit[i].worth,
				   inst->layout.commit[i].by_rank ? " by_rank" : "");
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
void lt_set_timing(struct lt_disk *ld, bool on)
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

const struct blk_stream_debugfs_file lt_debugfs_files[] = {
	{ "labels", 0400, &lt_labels_fops },
	{ "layout", 0400, &lt_layout_fops },
	{ "stats", 0400, &lt_stats_fops },
	{ "irqoff_timing", 0600, &lt_timing_fops },
	{ }
};
