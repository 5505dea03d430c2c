// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime policy's per-bio path, in the order a write meets it: its
 * label (cgroup, kind or hint, file class or thread), its tenant slot,
 * the host-write clock, the per-CPU log or count that tells the tracker,
 * the memo of a CPU's last label, and the stream the installed layout
 * gives it (lt_decide()); invalidations reach the tracker through
 * lt_observe().
 */
#include "lifetime.h"

/* --- labels ---------------------------------------------------------- */

/* A thread's label is named as a file's class is. */
static_assert(LT_NAME_LEN == WRITE_CLASS_NAME_LEN);

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
	unsigned int hint = bio_stream_key(bio) & LT_KEY_HINT_MASK;
	enum lt_src kind = LT_SRC_NONE;
	u32 class = 0;

	BUILD_BUG_ON(LT_KEY_HINT_MASK + 1 < BLK_STREAM_KEY_NR);
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
	return BIT_ULL(62) | (u64)hint << LT_KEY_HINT_SHIFT |
	       (u64)kind << LT_KEY_SRC_SHIFT | class;
}

/*
 * The label key of a write and, if @name is not NULL, a name for a new
 * label.
 */
VISIBLE_IF_KUNIT u64 lt_bio_key(struct bio *bio, char *name)
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
VISIBLE_IF_KUNIT int lt_tenant_find(const struct lt_tenant_index *ti, u64 cgid)
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
bool lt_tenant_insert(struct lt_tenant_index *ti, u64 cgid, u16 slot)
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
VISIBLE_IF_KUNIT noinline u16 lt_tenant_add(struct lt_disk *ld,
					    struct cgroup *cg, u64 cgid)
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
u64 lt_period(const struct lt_disk *ld)
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
u64 lt_next_check(const struct lt_disk *ld)
{
	u64 step;

	if (rcu_access_pointer(ld->layout))
		return ld->next_period;
	step = min(ld->reclaim_age / (LT_QUARTERS * LT_QUARTERS),
		   LT_FIRST_STEP_MAX);
	return min(ld->now + max(step, 1ULL), ld->next_period);
}

VISIBLE_IF_KUNIT void lt_clock(struct lt_disk *ld, u64 pages)
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
void lt_check_soon(struct lt_disk *ld)
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
void lt_replay(struct lt_disk *ld, bool all)
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
VISIBLE_IF_KUNIT bool lt_log_add(struct lt_disk *ld, struct lt_log *log,
				 unsigned int cpu, const struct lt_rec *rec,
				 u64 pages)
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
VISIBLE_IF_KUNIT void lt_log(struct lt_disk *ld, u64 sector, u32 nr_sectors,
			     u64 key, u16 tenant, const char *name)
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
VISIBLE_IF_KUNIT void lt_record(struct lt_disk *ld, struct bio *bio, u64 key,
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
u64 lt_stream_sum(const struct lt_log *log, unsigned int stream)
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
u64 lt_skipped_pages(struct lt_disk *ld)
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
VISIBLE_IF_KUNIT noinline bool lt_memo_flush(struct lt_disk *ld,
					     struct lt_log *log,
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
VISIBLE_IF_KUNIT void lt_skip(struct lt_disk *ld, struct bio *bio, u16 tenant)
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
 * Whether memo @m knows a write from @src (@id), cgroup @blkg and @tag
 * (lt_memo_tag()) and may still be trusted: for half a second, so that
 * a freed task or blkg whose address comes back is not taken for long.
 */
static inline bool lt_memo_hit(const struct lt_memo *m, const void *src,
			       unsigned long id, const void *blkg, u64 tag)
{
	unsigned long now;

	if (m->tag != tag || m->src != src || m->id != id || m->blkg != blkg)
		return false;
	/*
	 * jiffies is volatile: time_before(jiffies, ...) has typecheck()
	 * declare a volatile dummy, which CONFIG_INIT_STACK_ALL_* must
	 * store to, giving lt_decide() a stack frame.
	 */
	now = jiffies;
	return time_before(now, m->stamp + HZ / 2);
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
unsigned int lt_decide(struct gendisk *disk, void *data, struct bio *bio)
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
void lt_observe(struct gendisk *disk, void *data, struct bio *bio,
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
