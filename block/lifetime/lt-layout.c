// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime policy's worker: every period it replays the logs, ages
 * and sweeps the tracker, recycles tenant slots, and when lt_plan_due()
 * says so, plans a layout from a snapshot of the labels (lt-plan.c) and
 * installs it for the bio path, under RCU.
 */
#include "lifetime.h"

#define CREATE_TRACE_POINTS
#include "lifetime_trace.h"

/* Reclaim age in pages: capacity over the media write rate. */
void lt_update_reclaim_age(struct lt_disk *ld)
{
	u64 cap = ld->track.capacity >> LT_PAGE_SHIFT;

	if (ld->age_override) {
		ld->reclaim_age = ld->age_override;
		ld->age_source = "operator";
	} else if (ld->media_ratio) {
		/* host pages per media page is at most 1: WAF >= 1 */
		ld->reclaim_age = max(cap * min(ld->media_ratio, 1024ULL) >> 10, 1ULL);
		ld->age_source = "media";
	} else {
		/* The host rate is the floor of the media rate. */
		ld->reclaim_age = max(cap, 1ULL);
		ld->age_source = "capacity";
	}
	/* The CPUs' logs together lag the tracker by about R/64 at most. */
	WRITE_ONCE(ld->log_pages,
		   max(div_u64(ld->reclaim_age, 64 * num_possible_cpus()), 1ULL));
}

/*
 * Streams the policy may hand out: 2..max, less those io.stream gives
 * cgroups, pins and budgets; the budgets read in @ld->budget are left
 * out too, should a setting have changed between the two looks.
 */
static unsigned int lt_free_streams(struct lt_disk *ld, u8 *streams)
{
	unsigned int max = min_t(unsigned int, LT_MAX_STREAMS,
				 ld->disk->queue->limits.max_write_streams);
	DECLARE_BITMAP(pinned, LT_MAX_STREAMS + 1) = { };
	unsigned int s, t, k, n = 0;

	blkcg_iostream_pinned(ld->disk, pinned, LT_MAX_STREAMS + 1);
	for (t = 0; t < LT_MAX_TENANTS; t++)
		for (k = 0; k < ld->budget[t].nr; k++)
			__set_bit(ld->budget[t].streams[k], pinned);
	/* Stream 1 shares the default handle with unplaced writes. */
	for (s = 2; s <= max; s++)
		if (!test_bit(s, pinned))
			streams[n++] = s;
	return n;
}

static bool lt_cgroup_gone(u64 cgid);

/*
 * The budget of the slot that cgroups share when every slot is taken,
 * from its members' budgets: the cgroups the tenant index maps to it,
 * those removed left out.  If one of them has no budget, or some are not
 * in the index (it was full), the slot has none and is planned on the
 * free streams, which io.stream leaves the unconfined members and folds
 * the others' writes off.  If all have budgets, the slot has the streams
 * they have in common.  If those are fewer than two, no budget can take
 * all their writes: @apart is set, and the slot is not planned.
 */
static void lt_share_budget(struct lt_disk *ld, struct lt_budget *b,
			    bool *apart)
{
	DECLARE_BITMAP(common, LT_MAX_STREAMS + 1);
	DECLARE_BITMAP(map, LT_MAX_STREAMS + 1);
	u64 *ids = ld->share_ids;
	struct lt_tenant_index *ti;
	unsigned int h, k, n = 0, s;
	bool partial, any = false;

	lt_lock(ld);
	ti = rcu_dereference_protected(ld->tindex, lockdep_is_held(&ld->lock));
	for (h = 0; h < LT_TENANT_HASH; h++)
		if (ti->key[h] && ti->slot[h] == LT_TENANT_SHARE)
			ids[n++] = ti->key[h] - 1;
	partial = ld->share_unindexed;
	lt_unlock(ld);

	b->nr = 0;
	*apart = false;
	if (partial)
		return;
	for (k = 0; k < n; k++) {
		if (lt_cgroup_gone(ids[k]))
			continue;
		if (!blkcg_iostream_budget(ld->disk, ids[k], map,
					   LT_MAX_STREAMS + 1))
			return;
		if (any)
			bitmap_and(common, common, map, LT_MAX_STREAMS + 1);
		else
			bitmap_copy(common, map, LT_MAX_STREAMS + 1);
		any = true;
	}
	if (!any)
		return;
	if (bitmap_weight(common, LT_MAX_STREAMS + 1) < 2) {
		*apart = true;
		return;
	}
	for_each_set_bit(s, common, LT_MAX_STREAMS + 1)
		b->streams[b->nr++] = s;
}

/*
 * Read each tenant's io.stream budget on the disk into @ld->budget, its
 * streams in ascending order, so that a tenant's longest-lived class goes
 * on the budget's first stream, where io.stream sends the tenant's writes
 * that the policy leaves unplaced (tenants that share a budget keep their
 * streams across re-plans instead).  The slot that cgroups share when
 * every slot is taken has its members' budget (lt_share_budget()).
 * From the worker, under plan_mutex; may sleep.
 *
 * Return: the tenants that have a budget; @apart: the shared slot, if its
 * members' budgets differ and it must not be planned.
 */
static u64 lt_read_budgets(struct lt_disk *ld, u64 *apart)
{
	DECLARE_BITMAP(map, LT_MAX_STREAMS + 1);
	u64 ids[LT_MAX_TENANTS], used, shared = 0, set = 0;
	struct lt_budget *b;
	unsigned int t, s;
	bool split;

	lockdep_assert_held(&ld->plan_mutex);
	lt_lock(ld);
	memcpy(ids, ld->tenant_id, sizeof(ids));
	used = ld->tenant_used;
	for (t = 0; t < LT_MAX_TENANTS; t++)
		if (ld->tenant_sharers[t] > 1)
			shared |= BIT_ULL(t);
	lt_unlock(ld);
	*apart = 0;
	for (t = 0; t < LT_MAX_TENANTS; t++) {
		b = &ld->budget[t];
		b->nr = 0;
		if (!(used & BIT_ULL(t)))
			continue;
		if (shared & BIT_ULL(t)) {
			lt_share_budget(ld, b, &split);
			if (split)
				*apart |= BIT_ULL(t);
			if (b->nr)
				set |= BIT_ULL(t);
			continue;
		}
		if (!blkcg_iostream_budget(ld->disk, ids[t], map,
					   LT_MAX_STREAMS + 1))
			continue;
		for_each_set_bit(s, map, LT_MAX_STREAMS + 1)
			b->streams[b->nr++] = s;
		set |= BIT_ULL(t);
	}
	return set;
}

static bool lt_budget_has(const struct lt_budget *b, unsigned int stream)
{
	unsigned int k;

	for (k = 0; k < b->nr; k++)
		if (b->streams[k] == stream)
			return true;
	return false;
}

/*
 * Whether io.stream now keeps a tenant's writes off a stream the installed
 * layout @cur gives them: a stream outside a budgeted tenant's budget
 * ("budget" if its budget changed since the plan, else "streams"), or,
 * for a tenant without one, a stream that is no longer free (a pin or a
 * budget of another cgroup took it: "streams").  A stream shared by
 * several tenants must be free or in a budget.  Streams given back, or a
 * budget that grew, break nothing: the next plan for another reason
 * uses them.  @free are the @nr_free free streams.
 *
 * Return: the reason to plan again, or NULL.
 */
VISIBLE_IF_KUNIT const char *lt_layout_confined(const struct lt_disk *ld,
						const struct lt_installed *cur,
						const u8 *free,
						unsigned int nr_free)
{
	DECLARE_BITMAP(ok, LT_MAX_STREAMS + 1) = { };
	DECLARE_BITMAP(any, LT_MAX_STREAMS + 1);
	const struct lt_layout_stream *s;
	const struct lt_budget *b, *bp;
	unsigned int i, t;

	for (i = 0; i < nr_free; i++)
		__set_bit(free[i], ok);
	bitmap_copy(any, ok, LT_MAX_STREAMS + 1);
	for (t = 0; t < LT_MAX_TENANTS; t++)
		for (i = 0; i < ld->budget[t].nr; i++)
			__set_bit(ld->budget[t].streams[i], any);
	for (i = 0; i < cur->layout.nr_streams; i++) {
		s = &cur->layout.stream[i];
		if (s->tenant >= LT_MAX_TENANTS) {
			if (!test_bit(s->stream, any))
				return "streams";
			continue;
		}
		b = &ld->budget[s->tenant];
		if (b->nr ? lt_budget_has(b, s->stream) :
			    test_bit(s->stream, ok))
			continue;
		bp = &ld->budget_planned[s->tenant];
		return b->nr != bp->nr ||
		       memcmp(b->streams, bp->streams, b->nr) ? "budget" :
								"streams";
	}
	return NULL;
}

/* A memo tag that no memo holds yet (lt_memo_tag()). */
static u64 lt_new_tag(struct lt_disk *ld)
{
	lockdep_assert_held(&ld->plan_mutex);
	return ++ld->tags << 9 | 1;
}

/* Whether the cgroup of id @cgid, on the unified hierarchy, was removed. */
static bool lt_cgroup_gone(u64 cgid)
{
#ifdef CONFIG_BLK_CGROUP
	struct cgroup *cg = cgroup_get_from_id(cgid);
	bool gone;

	if (IS_ERR(cg))
		return true;
	gone = css_is_dying(&cg->self);
	cgroup_put(cg);
	return gone;
#else
	return false;
#endif
}

/*
 * The slots to give back: those of @gone (cgroups removed, as looked up
 * for @ids) whose cgroup is still the one looked up, and those whose
 * tenant neither wrote for the policy nor into a tracked range for a
 * reclaim age while a cgroup waits for a slot (shares one), or for
 * LT_IDLE_AGES reclaim ages, when its labels retire anyway, while none
 * does: a tenant that takes turns with others keeps what was learned of
 * it while there is room.  @idle gets the idle ones.
 */
static u64 lt_tenants_stale(struct lt_disk *ld, const u64 *ids, u64 gone,
			    u64 *idle)
{
	u64 active = lt_active_tenants(ld->act, LT_QUARTERS, ld->nr_tenants);
	u64 drop = 0, b, age = ld->reclaim_age;
	unsigned int s;

	lockdep_assert_held(&ld->lock);
	if (!ld->tenants_full && ld->tenant_sharers[LT_TENANT_SHARE] <= 1)
		age *= LT_IDLE_AGES;
	*idle = 0;
	for (s = 0; s < ld->nr_tenants; s++) {
		b = BIT_ULL(s);
		if (!(ld->tenant_used & b))
			continue;
		if ((gone & b) && ld->tenant_id[s] == ids[s]) {
			drop |= b;
		} else if (!(active & b) && ld->now - ld->tenant_last[s] >= age) {
			drop |= b;
			*idle |= b;
		}
	}
	return drop;
}

/*
 * Give back tenant slot @slot: its labels retire (their data's deaths are
 * charged to nobody), its activity is forgotten.
 */
static void lt_tenant_free(struct lt_disk *ld, unsigned int slot)
{
	unsigned int q;

	lockdep_assert_held(&ld->lock);
	lt_track_forget_tenant(&ld->track, slot);
	for (q = 0; q < LT_QUARTERS; q++)
		ld->act[q][slot] = 0;
	ld->tenant_used &= ~BIT_ULL(slot);
	ld->tenant_id[slot] = 0;
	ld->tenant_sharers[slot] = 0;
}

/*
 * Give back the slots of removed cgroups and of idle tenants (see "Tenant
 * slots" above), and with any given back, let the cgroups that shared a
 * slot look again for one of their own.  Cgroup ids are looked up without
 * the disk's lock (cgroup_get_from_id() takes kernfs's); a slot given to
 * another cgroup meanwhile stays.  The bios' index is replaced whole, and
 * the memo tag renewed so that no CPU's memo keeps a slot given back.  A
 * layout planned with a slot given back no longer matches the active
 * tenants, so the next check plans again.  From the worker, under
 * plan_mutex; @cur is the installed layout.
 */
VISIBLE_IF_KUNIT void lt_tenants_recycle(struct lt_disk *ld,
					 struct lt_installed *cur)
{
	u64 ids[LT_MAX_TENANTS], check, gone = 0, drop, idle;
	struct lt_tenant_index *ti = NULL, *old = NULL;
	unsigned int s, sharers = 0;

	lt_lock(ld);
	lt_replay(ld, true);
	check = ld->tenant_used & ld->tenant_dfl;
	memcpy(ids, ld->tenant_id, sizeof(ids));
	drop = lt_tenants_stale(ld, ids, 0, &idle);
	lt_unlock(ld);

	for (s = 0; s < LT_MAX_TENANTS; s++)
		if ((check & BIT_ULL(s)) && lt_cgroup_gone(ids[s]))
			gone |= BIT_ULL(s);
	if (gone | drop)
		ti = kzalloc_obj(*ti, GFP_KERNEL);

	lt_lock(ld);
	if (ti) {
		/* Pages logged meanwhile still count for the old tenants. */
		lt_replay(ld, true);
		drop = lt_tenants_stale(ld, ids, gone, &idle);
	}
	ld->tenants_full = false;
	if (ti && drop) {
		for (s = 0; s < ld->nr_tenants; s++)
			if (drop & BIT_ULL(s))
				lt_tenant_free(ld, s);
		ld->tenants_idle += hweight64(idle);
		ld->tenants_removed += hweight64(drop & ~idle);
		if (ld->tenant_used & BIT_ULL(LT_TENANT_SHARE))
			ld->tenant_sharers[LT_TENANT_SHARE] = 1;
		for (s = 0; s < LT_MAX_TENANTS; s++)
			if (ld->tenant_used & BIT_ULL(s))
				lt_tenant_insert(ti, ld->tenant_id[s], s);
		ld->nr_tenants = fls64(ld->tenant_used);
		ld->share_unindexed = false;
		old = rcu_replace_pointer(ld->tindex, ti,
					  lockdep_is_held(&ld->lock));
		ti = NULL;
	}
	if (ld->tenant_sharers[LT_TENANT_SHARE] > 1 && !ld->sharing_noted) {
		ld->sharing_noted = true;
		sharers = ld->tenant_sharers[LT_TENANT_SHARE];
	} else if (ld->tenant_sharers[LT_TENANT_SHARE] <= 1) {
		ld->sharing_noted = false;
	}
	lt_unlock(ld);
	kfree(ti);

	if (sharers)
		pr_notice("%s: lifetime: %u cgroups share tenant slot %u: more than %u write to the disk\n",
			  ld->disk->disk_name, sharers, LT_TENANT_SHARE,
			  LT_MAX_TENANTS);
	if (!old)
		return;
	kfree_rcu(old, rcu);
	if (cur) {
		cur->tenants &= ~drop;
		WRITE_ONCE(cur->tag, lt_new_tag(ld));
	} else {
		WRITE_ONCE(ld->bare_tag, lt_new_tag(ld));
	}
}

static void lt_install(struct lt_disk *ld, const char *reason)
{
	struct lt_installed *inst = ld->next, *old;
	unsigned int i, classes = 0;

	lockdep_assert_held(&ld->plan_mutex);
	for (i = 0; i < LT_MAX_TENANTS; i++)
		classes += inst->layout.tenant_classes[i];
	inst->tag = lt_new_tag(ld);
	old = rcu_replace_pointer(ld->layout, inst,
				  lockdep_is_held(&ld->plan_mutex));
	ld->next = NULL;
	if (old)
		kvfree_rcu(old, rcu);
	WRITE_ONCE(ld->plans, ld->plans + 1);
	ld->last_plan = jiffies;
	ld->last_plan_now = READ_ONCE(ld->now);
	ld->last_plan_period = ld->periods;
	ld->last_reason = reason;
	/* The first layout ends the checks between the ends of periods. */
	lt_lock(ld);
	ld->next_check = lt_next_check(ld);
	lt_unlock(ld);
	ld->history[ld->plans % LT_HISTORY].reason = reason;
	ld->history[ld->plans % LT_HISTORY].now = ld->last_plan_now;
	trace_blk_lifetime_layout(ld->disk, reason, inst->layout.nr_tenants,
				  inst->layout.nr_streams, classes,
				  inst->layout.total_worth,
				  inst->layout.reclaim_age << LT_PAGE_SHIFT,
				  ld->shadow);
}

/* Index the labels that got a stream of their own by key and tenant. */
static void lt_index(struct lt_installed *inst, const struct lt_label *labels)
{
	unsigned int i;
	u32 h;

	memset(inst->hash, 0, sizeof(inst->hash));
	for (i = 1; i < LT_MAX_LABELS; i++) {
		inst->tenant[i] = labels[i].tenant;
		if (!(labels[i].flags & LT_LABEL_USED) ||
		    (labels[i].flags & LT_LABEL_DRAINING) ||
		    !inst->layout.label_stream[i])
			continue;
		h = lt_hash(inst->key[i], inst->tenant[i]);
		while (inst->hash[h])
			h = (h + 1) & (LT_HASH_SIZE - 1);
		inst->hash[h] = i;
	}
}

/* The tenants that have a stream of their own in @inst. */
static u64 lt_layout_owners(const struct lt_installed *inst)
{
	return lt_plan_owners(&inst->layout);
}

static bool lt_same_layout(const struct lt_installed *a,
			   const struct lt_installed *b)
{
	return a->tenants == b->tenants &&
	       !memcmp(a->layout.label_stream, b->layout.label_stream,
		       sizeof(a->layout.label_stream)) &&
	       !memcmp(a->layout.tenant_stream, b->layout.tenant_stream,
		       sizeof(a->layout.tenant_stream)) &&
	       !memcmp(a->key, b->key, sizeof(a->key));
}

/*
 * Age what the policy learned by the periods that ended since the worker
 * last did: each moves the activity window on by one and sweeps a
 * quarter of the owner table, and every LT_QUARTERS of them halve the
 * histograms.  Only host writes end periods (lt_clock()), so a check in
 * between, before the first layout or asked for with replan, ages
 * nothing.  At most a reclaim age's worth is aged at once: by then the
 * window is empty and the sweep has made its pass.
 *
 * Return: the owner entries to sweep, which the caller does in parts
 * (lt_sweep()).
 */
static u64 lt_end_periods(struct lt_disk *ld)
{
	unsigned int n = min_t(unsigned int, ld->periods_due, LT_QUARTERS);
	u64 sweep = 0;

	lockdep_assert_held(&ld->lock);
	ld->periods += ld->periods_due;
	ld->periods_due = 0;
	while (n--)
		sweep += lt_track_period_turn(&ld->track, ld->act, &ld->quarter,
					      &ld->quarters);
	return sweep;
}

/*
 * Owner entries swept, and labels copied, per hold of the disk's lock
 * from the worker: each part keeps interrupts off for a few
 * microseconds, however large the disk.
 */
#define LT_SWEEP_PART		4096
#define LT_SNAP_PART		16

/* Sweep @entries of the owner table, in parts. */
static void lt_sweep(struct lt_disk *ld, u64 entries)
{
	u64 n;

	while (entries) {
		n = min_t(u64, entries, LT_SWEEP_PART);
		lt_lock(ld);
		lt_track_sweep(&ld->track, ld->now, n);
		lt_unlock(ld);
		entries -= n;
		cond_resched();
	}
}

/*
 * Copy the labels into @snap, with their keys into @key and, if @names is
 * not NULL, their names, in parts.  Each label is copied whole; labels
 * copied in different parts may be a few bios apart.
 */
void lt_snap_labels(struct lt_disk *ld, struct lt_label *snap, u64 *key,
		    char names[][LT_NAME_LEN])
{
	unsigned int i;

	for (i = 0; i < LT_MAX_LABELS; i += LT_SNAP_PART) {
		lt_lock(ld);
		memcpy(snap + i, ld->track.label + i, sizeof(*snap) * LT_SNAP_PART);
		memcpy(key + i, ld->label_key + i, sizeof(*key) * LT_SNAP_PART);
		if (names)
			memcpy(names + i, ld->names + i, LT_NAME_LEN * LT_SNAP_PART);
		lt_unlock(ld);
	}
}

static void lt_plan_work(struct lt_disk *ld)
{
	struct lt_plan_input in = { };
	struct lt_installed *cur;
	const char *reason = NULL;
	u8 streams[LT_MAX_STREAMS], prev[LT_MAX_LABELS];
	u8 prev_tenant[LT_MAX_TENANTS];
	bool replan, auto_plan, ranks;
	u64 active, informed, periods, now, sweep, budgeted, apart;
	int nr_free = -1;
	unsigned int i;

	mutex_lock(&ld->plan_mutex);
	cur = rcu_dereference_protected(ld->layout,
					lockdep_is_held(&ld->plan_mutex));
	lt_tenants_recycle(ld, cur);
	if (!ld->next)
		ld->next = kvzalloc_obj(*ld->next, GFP_KERNEL);

	lt_lock(ld);
	lt_replay(ld, true);
	ld->checks++;
	lt_update_reclaim_age(ld);
	active = lt_active_tenants(ld->act, LT_QUARTERS, ld->nr_tenants);
	sweep = lt_end_periods(ld);
	if (!ld->next)
		/* No new layout this time; the installed one stays. */
		ld->track.stats.alloc_failed++;
	periods = ld->periods;
	now = ld->now;
	replan = ld->replan;
	ld->replan = false;
	auto_plan = READ_ONCE(ld->auto_plan);
	lt_unlock(ld);

	lt_sweep(ld, sweep);
	if (!ld->next)
		goto out;
	lt_snap_labels(ld, ld->snap, ld->next->key, NULL);
	if (!ld->track.on)
		goto out;	/* no tracking, no placement */
	/*
	 * No tenant wrote for the policy in the last reclaim age: nothing to
	 * plan for, and a plan of every tenant would place pinned ones.
	 */
	if (!active)
		goto out;
	budgeted = lt_read_budgets(ld, &apart) & active;
	/*
	 * The shared slot's cgroups are confined apart: it is not planned,
	 * and a layout that gave it streams is replaced, by an empty one if
	 * it was the only tenant (a plan for no tenant would plan them all).
	 */
	active &= ~apart;
	if (!active) {
		if (cur && (cur->tenants & apart) && (replan || auto_plan)) {
			memset(&ld->next->layout, 0, sizeof(ld->next->layout));
			ld->next->layout.reclaim_age = ld->reclaim_age;
			ld->next->tenants = 0;
			ld->next->informed = 0;
			lt_index(ld->next, ld->snap);
			memcpy(ld->budget_planned, ld->budget,
			       sizeof(ld->budget));
			lt_install(ld, "budget");
		}
		goto out;
	}
	informed = lt_informed(ld->snap, LT_MAX_LABELS, active);
	ranks = READ_ONCE(ld->writer_ranks);
	for (i = 0; i < LT_MAX_LABELS; i++)
		ld->rank[i] = ranks ? lt_key_rank(ld->next->key[i]) : 0;
	if (replan) {
		reason = "operator";
	} else if (auto_plan) {
		struct lt_check c = {
			.active = active,
			.informed = informed,
			.installed = !!cur,
			.tenants = cur ? cur->tenants : 0,
			.tenants_informed = cur ? cur->informed : 0,
			/*
			 * Counted in periods, not bytes: the worker runs a
			 * little after each period's end, so a byte count
			 * would now and then skip one.
			 */
			.periods = periods - ld->last_plan_period,
		};

		/* Only a tenant with a stream of its own can be split. */
		if (cur)
			c.ranked = lt_new_ranks(ld->snap, ld->rank,
						cur->layout.tenant_ranks,
						LT_MAX_LABELS,
						active & lt_layout_owners(cur),
						READ_ONCE(ld->min_side));

		reason = lt_plan_due(&c);
		/* io.stream keeps data off streams the layout gives them. */
		if (!reason && cur) {
			nr_free = lt_free_streams(ld, streams);
			reason = lt_layout_confined(ld, cur, streams, nr_free);
		}
	}
	if (!reason)
		goto out;
	if (nr_free < 0)
		nr_free = lt_free_streams(ld, streams);

	in.labels = ld->snap;
	in.nr_labels = LT_MAX_LABELS;
	in.reclaim_age = ld->reclaim_age;
	in.streams = streams;
	in.nr_streams = nr_free;
	in.min_side_pm = READ_ONCE(ld->min_side);
	in.tenants = active;
	in.budgets = ld->budget;
	in.rank = ld->rank;
	/*
	 * Re-plans keep the streams of the layout before: each label's, if
	 * its slot still holds that label, and each planned tenant's.  The
	 * operator's replan numbers them afresh, so that it brings two
	 * instances that see the same writes (live and shadow) to the same
	 * layout whatever their layouts before.
	 */
	if (cur && !replan) {
		for (i = 0; i < LT_MAX_LABELS; i++)
			prev[i] = cur->key[i] == ld->next->key[i] &&
				  cur->tenant[i] == ld->snap[i].tenant ?
				  cur->layout.label_stream[i] : 0;
		for (i = 0; i < LT_MAX_TENANTS; i++)
			prev_tenant[i] = cur->tenants & BIT_ULL(i) ?
					 cur->layout.tenant_stream[i] : 0;
		in.prev_stream = prev;
		in.prev_tenant_stream = prev_tenant;
		in.prev_owners = lt_layout_owners(cur) & cur->tenants;
	}
	ld->next->tenants = active;
	ld->next->informed = informed;
	/*
	 * With nothing to place on, a first layout waits; an installed one
	 * is replaced by an empty one, so that no tenant keeps streams that
	 * io.stream has taken.
	 */
	if ((!in.nr_streams && !budgeted && !cur) ||
	    lt_plan(&in, &ld->next->layout, ld->scratch))
		goto out;
	lt_index(ld->next, ld->snap);
	memcpy(ld->budget_planned, ld->budget, sizeof(ld->budget));
	/*
	 * Drift, learning, new ranks and io.stream's changes install only
	 * a layout that changed.
	 */
	if (cur && (!strcmp(reason, "drift") || !strcmp(reason, "learned") ||
		    !strcmp(reason, "hints") || !strcmp(reason, "budget") ||
		    !strcmp(reason, "streams")) &&
	    lt_same_layout(cur, ld->next)) {
		ld->last_plan_now = now;
		ld->last_plan_period = periods;
		/*
		 * Bios never read these; their readers hold plan_mutex.  The
		 * plan saw what it saw, installed or not: "learned" and
		 * "hints" do not plan for it again.
		 */
		cur->informed = ld->next->informed;
		memcpy(cur->layout.tenant_ranks, ld->next->layout.tenant_ranks,
		       sizeof(cur->layout.tenant_ranks));
		goto out;
	}
	lt_install(ld, reason);
out:
	mutex_unlock(&ld->plan_mutex);
}

/*
 * The policy's exit_disk cancels this work inside the disk's freeze, so
 * its allocations must not wait for I/O: NOIO scope.
 */
void lt_workfn(struct work_struct *work)
{
	unsigned int noio = memalloc_noio_save();

	lt_plan_work(container_of(work, struct lt_disk, work));
	memalloc_noio_restore(noio);
}
