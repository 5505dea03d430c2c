// SPDX-License-Identifier: GPL-2.0
/*
 * Planner of the lifetime placement policy: from the labels' histograms of
 * age at death to a layout, which stream each label's writes go to.
 *
 * Survival.  A set of labels X with b bytes written, d of them dead
 * before the reclaim age R, has survival s = 1 - d / b, in units of
 * 1/LT_SURV_ONE.  Bytes never seen dying count as surviving.  d takes
 * every histogram bin that ends at or below R, plus the share of the bin
 * holding R that lies below it, with the bin's deaths spread evenly over
 * log2 of the age: the share is the fractional part of log2(R), computed
 * exactly to LT_SURV_SHIFT bits by repeated squaring.  No correction for
 * the edge of a finite window is applied: the tracker decays bytes and
 * deaths alike (see lt-track.c), which leaves their ratio unbiased under
 * a steady load.
 *
 * Classes and boundaries.  Each tenant's labels are ordered by survival,
 * longest-lived first, ties broken by rank (below), key and then slot so
 * the order is total.  A class is a run of that order.  A boundary cuts a class
 * between two neighbours; each side must hold at least min_side_pm per
 * mille of the tenant's bytes.  Its worth, the copying it would save, is
 * w = bL * sL * (sL - sS), L the longer-lived side and S the other, both
 * taken inside the class being cut.  With survival scaled by 2^16 and
 * bytes below 2^64, w is computed as two 64x32-bit products each shifted
 * right by 16 bits, so it cannot overflow and is in bytes.
 *
 * Allocation.  First every tenant gets a stream of its own, largest
 * tenants first.  An active tenant whose writes touched no tracked range
 * (the tracker samples ranges) has no labels: it comes after the others,
 * counts as surviving, and gets a stream all the same, so that it shares
 * none with another tenant while tenants fit.  Then, while streams
 * remain, the boundary of highest worth over all tenants that own their
 * stream is committed and adds one stream.  Each label has exactly one
 * key that already folds every signal (tenant, kind, hint, file class,
 * thread) together, so a tenant has a single survival order and every
 * boundary adds exactly one class: the worth per added stream is the
 * worth itself.  Finally each tenant's classes are numbered by survival;
 * class 0, the longest-lived, takes the tenant's own stream and its
 * writes of unknown labels, the others the streams its boundaries added,
 * in the order they were added.
 *
 * Ranks.  A writer may say how long its data live (a lifetime hint, or
 * the kind of a journal or metadata write), which the caller passes as
 * each label's rank.  Survival only tells labels apart once their data
 * have had a reclaim age to die in; until then, or when their deaths
 * look the same, their survivals tie.  Labels that tie sort by rank:
 * those with none first, as they stand with the labels no plan has seen
 * yet in class 0, then the higher ranks first, so a tenant's labels of
 * one survival stand in the order their writers gave.  When no boundary
 * is worth anything and streams remain, a boundary between two such
 * labels of different ranks is committed, with worth 0: one the layout
 * before also had, then the one with the largest smaller side (a
 * heuristic that parts the most bytes; it does not weigh how far apart
 * the ranks are).  Each side must hold min_side_pm of the tenant's bytes,
 * so a rank with less shares a class with its neighbour; a boundary the
 * layout before had stays down to two thirds of that (LT_RANK_KEEP_PM),
 * after every boundary that holds min_side_pm.  Measured worth
 * always comes first: a writer's hints only spend streams that no
 * measured boundary wants, and once deaths show, the next plan orders
 * the labels by what they did.
 *
 * More tenants than streams.  Some tenants must share a stream, and
 * tenants that share one should die alike.  The tenants are ordered by
 * survival, longest-lived first (ties by bytes, then index), and cut into
 * groups of neighbours the same way labels are cut into classes: the cut
 * of highest worth w, on the groups' totals, each side at least
 * min_side_pm of all bytes, until B groups or no cut is worth at least
 * 1/2^LT_GROUP_WORTH_SHIFT of all bytes (smaller differences are noise of
 * the measurement, not lifetimes).  The streams left then go to the
 * largest tenants, each taken out of its group to a stream of its own,
 * while that leaves its group a member; a tenant that had a stream of
 * its own in the layout before (@prev_owners), one of the pool's, counts
 * twice its bytes here (a heuristic margin), so that tenants of like
 * bytes do not trade streams from plan to plan.  A group of one is its
 * tenant's own stream.  With survivals all alike and no layout before,
 * this is the B - 1 largest tenants on a stream each and the rest on
 * one; with hot and cold tenants it never puts a hot and a cold tenant
 * on one stream when a cut between them is worth more than the floor.
 * All B streams are used, so no label boundary is committed.
 *
 * Budgets.  A tenant that io.stream gives several streams (a budget,
 * struct lt_budget) is planned on them alone: it takes no free stream,
 * does not count among the tenants that the free streams are shared by,
 * and its boundaries compete only with each other.  Its own survival
 * order is cut at its boundaries of highest worth, one at a time as
 * above, into at most as many classes as the budget has streams, and its
 * class c goes on the budget's stream c: class 0, the longest-lived, also
 * takes its writes of unknown labels.  Tenants that have the same
 * budget (siblings under a parent's set) are planned on it together, as
 * the free streams are planned for the tenants without one: a stream
 * each while they fit, survival groups when they do not, then the best
 * boundaries among them.  A budget that only partly overlaps another's
 * (or that no longer fits the layout) is planned for each of its tenants
 * as if it were alone, so classes of the same rank share a stream, which
 * the layout shows as shared.  The operator gave them those streams to
 * share; the tenants without a budget keep the free streams whole.
 *
 * Stable streams.  Given the layout before (@prev_stream and
 * @prev_tenant_stream of the input), the free streams, and the streams of
 * each budget that tenants share, are then handed to the classes again so
 * that each keeps, where it can, the stream it had: a re-plan that finds
 * the same classes in another order of worth, or the same tenants in
 * another order of bytes, changes no stream.  A budget of one tenant puts
 * its class c on its stream c and is not matched again.
 *
 * Cost.  O(L^2) to sort L labels, O(B * L) for the boundaries; no
 * allocation: the caller passes the scratch space.  The result depends
 * on nothing but the input.
 */

#include "lt-core.h"

/**
 * lt_log2_frac() - fractional part of a base-2 logarithm
 * @x: argument, at least 1
 *
 * Return: the fractional part of log2(@x) in units of 1/LT_SURV_ONE,
 * rounded down; 0 for @x == 0.
 */
u32 lt_log2_frac(u64 x)
{
	unsigned int i, k;
	u32 frac = 0;
	u64 m;

	if (!x)
		return 0;
	/* Scale x into [2^31, 2^32): a mantissa in [1, 2) with 31 bits. */
	k = fls64(x) - 1;
	m = k >= 31 ? x >> (k - 31) : x << (31 - k);
	for (i = 0; i < LT_SURV_SHIFT; i++) {
		m = (m * m) >> 31;
		frac <<= 1;
		if (m >= (1ULL << 32)) {
			m >>= 1;
			frac |= 1;
		}
	}
	return frac;
}

/**
 * lt_dead_before() - bytes of a histogram that died before an age
 * @hist: LT_NR_BINS bins of bytes by age at death
 * @age: the age in pages
 *
 * Bin k >= 1 spans ages [2^(k-1), 2^k); the last bin is read as one such
 * octave for the split, and counts whole beyond it.
 *
 * Return: the bytes of the bins below @age, plus the log-uniform share of
 * the bin that holds @age.
 */
u64 lt_dead_before(const u64 *hist, u64 age)
{
	unsigned int k, i;
	u64 dead = 0;

	if (!age)
		return 0;
	k = fls64(age);
	if (k >= LT_NR_BINS) {
		for (i = 0; i < LT_NR_BINS; i++)
			dead += hist[i];
		return dead;
	}
	for (i = 0; i < k; i++)
		dead += hist[i];
	return dead + mul_u64_u32_shr(hist[k], lt_log2_frac(age),
				      LT_SURV_SHIFT);
}

/**
 * lt_survival() - share of bytes still alive
 * @bytes: bytes written
 * @dead: bytes of them that died
 *
 * Return: (@bytes - @dead) / @bytes in units of 1/LT_SURV_ONE, rounded
 * up; LT_SURV_ONE when nothing was written, 0 when @dead >= @bytes.
 */
u32 lt_survival(u64 bytes, u64 dead)
{
	unsigned int bits;

	if (!bytes)
		return LT_SURV_ONE;
	if (dead >= bytes)
		return 0;
	/* Keep dead << LT_SURV_SHIFT inside 64 bits. */
	bits = fls64(bytes);
	if (bits > 63 - LT_SURV_SHIFT) {
		bytes >>= bits - (63 - LT_SURV_SHIFT);
		dead >>= bits - (63 - LT_SURV_SHIFT);
	}
	return LT_SURV_ONE - (u32)div64_u64(dead << LT_SURV_SHIFT, bytes);
}

/**
 * lt_worth() - copying saved by keeping two sides of a class apart
 * @bytes_long: bytes of the longer-lived side
 * @surv_long: its survival
 * @surv_short: survival of the shorter-lived side
 *
 * Return: @bytes_long * @surv_long * (@surv_long - @surv_short), survival
 * read as a fraction, in bytes; 0 unless @surv_long > @surv_short.
 */
u64 lt_worth(u64 bytes_long, u32 surv_long, u32 surv_short)
{
	if (surv_long <= surv_short)
		return 0;
	return mul_u64_u32_shr(mul_u64_u32_shr(bytes_long, surv_long,
					       LT_SURV_SHIFT),
			       surv_long - surv_short, LT_SURV_SHIFT);
}

/* Ranks sort the higher first, and no rank before them all. */
static unsigned int lt_rank_order(u8 rank)
{
	return rank ? rank : LT_RANK_MAX + 1;
}

/* Does label slot a sort before slot b inside the same tenant? */
static bool lt_plan_before(const struct lt_plan_input *in,
			   const struct lt_plan_work *w, u16 a, u16 b)
{
	const struct lt_label *la = &in->labels[a], *lb = &in->labels[b];

	if (la->tenant != lb->tenant)
		return la->tenant < lb->tenant;
	if (w->surv[a] != w->surv[b])
		return w->surv[a] > w->surv[b];
	if (in->rank && in->rank[a] != in->rank[b])
		return lt_rank_order(in->rank[a]) > lt_rank_order(in->rank[b]);
	if (la->key != lb->key)
		return la->key < lb->key;
	return a < b;
}

/* Whether tenant @t has a budget: it is then planned on it alone. */
static bool lt_budgeted(const struct lt_plan_input *in, unsigned int t)
{
	return in->budgets && in->budgets[t].nr >= 2;
}

/* Bitmaps of streams 0 to LT_MAX_STREAMS, as 64-bit words. */
#define LT_STREAM_WORDS		((LT_MAX_STREAMS + 64) / 64)

static bool lt_stream_test(const u64 *map, u8 s)
{
	return map[s / 64] & BIT_ULL(s % 64);
}

static void lt_stream_set(u64 *map, u8 s)
{
	map[s / 64] |= BIT_ULL(s % 64);
}

/*
 * The free streams and each budget: non-zero and distinct, and no
 * stream both free and in a budget.
 */
static int lt_plan_check(const struct lt_plan_input *in)
{
	u64 pool[LT_STREAM_WORDS] = { 0 }, seen[LT_STREAM_WORDS];
	const struct lt_budget *b;
	unsigned int i, t;

	if (!in->labels || in->nr_labels > LT_MAX_LABELS ||
	    in->min_side_pm > 1000 || (in->nr_streams && !in->streams))
		return -EINVAL;
	/*
	 * A rank past LT_RANK_MAX has no place in the order (lt_rank_order())
	 * nor in the layout's u8 bitmaps of @tenant_ranks.
	 */
	for (i = 0; in->rank && i < in->nr_labels; i++)
		if (in->rank[i] > LT_RANK_MAX)
			return -EINVAL;
	for (i = 0; i < in->nr_streams; i++) {
		if (!in->streams[i] || lt_stream_test(pool, in->streams[i]))
			return -EINVAL;
		lt_stream_set(pool, in->streams[i]);
	}
	for (t = 0; t < LT_MAX_TENANTS; t++) {
		if (!lt_budgeted(in, t))
			continue;
		b = &in->budgets[t];
		memset(seen, 0, sizeof(seen));
		for (i = 0; i < b->nr; i++) {
			if (!b->streams[i] || lt_stream_test(seen, b->streams[i]) ||
			    lt_stream_test(pool, b->streams[i]))
				return -EINVAL;
			lt_stream_set(seen, b->streams[i]);
		}
	}
	return 0;
}

/* Survival of every label, the sorted order and the tenants' segments. */
static void lt_plan_order(const struct lt_plan_input *in,
			  struct lt_plan_work *w)
{
	unsigned int i, j, n = 0;
	u16 t;

	for (i = 1; i < in->nr_labels; i++) {
		const struct lt_label *l = &in->labels[i];
		u64 dead;

		if (!l->bytes || l->tenant >= LT_MAX_TENANTS ||
		    (in->tenants && !(in->tenants & BIT_ULL(l->tenant))))
			continue;
		dead = min(lt_dead_before(l->hist, in->reclaim_age), l->bytes);
		w->surv[i] = lt_survival(l->bytes, dead);
		w->tenant_bytes[l->tenant] += l->bytes;
		/* Insertion sort: stable, bounded by LT_MAX_LABELS^2. */
		for (j = n; j > 0 && lt_plan_before(in, w, i, w->order[j - 1]); j--)
			w->order[j] = w->order[j - 1];
		w->order[j] = i;
		n++;
	}

	for (i = 0; i < n; i++) {
		const struct lt_label *l = &in->labels[w->order[i]];
		u64 dead = min(lt_dead_before(l->hist, in->reclaim_age),
			       l->bytes);

		w->pre_bytes[i + 1] = w->pre_bytes[i] + l->bytes;
		w->pre_dead[i + 1] = w->pre_dead[i] + dead;
		t = l->tenant;
		if (!i || in->labels[w->order[i - 1]].tenant != t) {
			w->first[t] = i;
			w->cut[i] = true;
		}
		w->end[t] = i + 1;
	}
}

/*
 * The tenants without a budget, by bytes, largest first, ties by index;
 * then those of @in->tenants whose writes touched no tracked range, by
 * index.  Those have no labels: they get a stream all the same, as
 * survival 1.
 */
static unsigned int lt_plan_tenants(const struct lt_plan_input *in,
				    struct lt_plan_work *w)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < LT_MAX_TENANTS; i++) {
		if (!w->tenant_bytes[i] || lt_budgeted(in, i))
			continue;
		for (j = n; j > 0 &&
		     w->tenant_bytes[w->torder[j - 1]] < w->tenant_bytes[i]; j--)
			w->torder[j] = w->torder[j - 1];
		w->torder[j] = i;
		n++;
	}
	for (i = 0; i < LT_MAX_TENANTS; i++)
		if (!w->tenant_bytes[i] && (in->tenants & BIT_ULL(i)) &&
		    !lt_budgeted(in, i))
			w->torder[n++] = i;
	return n;
}

/*
 * Worth of cutting the run [@cs, @p) of prefix sums @pb (bytes) and @pd
 * (bytes dead before the reclaim age) before position @q, with the
 * survivals of its longer- and shorter-lived sides in @sl and @ss; 0 if
 * a side holds less than @min_side.
 */
static u64 lt_cut_worth(const u64 *pb, const u64 *pd, unsigned int cs,
			unsigned int q, unsigned int p, u64 min_side,
			u32 *sl, u32 *ss)
{
	u64 bl = pb[q] - pb[cs], bs = pb[p] - pb[q];

	if (bl < min_side || bs < min_side)
		return 0;
	*sl = lt_survival(bl, pd[q] - pd[cs]);
	*ss = lt_survival(bs, pd[p] - pd[q]);
	return lt_worth(bl, *sl, *ss);
}

/*
 * A cut before position @q of the run [@cs, @p) whose two neighbours have
 * different ranks: the bytes of its smaller side, and in @tier which cuts
 * come first: 2 for one the layout before had (its neighbours on
 * different streams), 1 for a new one, 0 for one the layout before had
 * whose smaller side is now under @min_side.  0 bytes if the ranks are
 * the same or a side holds less than @min_side, or, for a cut the layout
 * before had, less than LT_RANK_KEEP_PM of it: so a rank whose share
 * hovers about @min_side does not gain and lose its stream from plan to
 * plan, and a cut kept in that margin never takes a stream from one a
 * plan would draw afresh.
 */
static u64 lt_rank_side(const struct lt_plan_input *in,
			const struct lt_plan_work *w, unsigned int cs,
			unsigned int q, unsigned int p, u64 min_side,
			u8 *tier)
{
	u16 a = w->order[q - 1], b = w->order[q];
	u64 bl = w->pre_bytes[q] - w->pre_bytes[cs];
	u64 bs = w->pre_bytes[p] - w->pre_bytes[q];
	bool had = in->prev_stream && in->prev_stream[a] &&
		   in->prev_stream[b] && in->prev_stream[a] != in->prev_stream[b];
	u64 side = had ? mul_u64_u32_div(min_side, LT_RANK_KEEP_PM, 1000) :
			 min_side;

	if (in->rank[a] == in->rank[b] || bl < side || bs < side)
		return 0;
	*tier = bl < min_side || bs < min_side ? 0 : had ? 2 : 1;
	return min(bl, bs);
}

/*
 * The allowed boundary of highest worth among @tenants (a bitmap); ties
 * go to the lowest tenant, then the earliest position.  If no boundary is
 * worth anything, a boundary between two ranks (lt_rank_side()): by its
 * tier, so that classes of worth 0 do not move with small changes of
 * bytes, then the largest smaller side (a heuristic: it parts the most
 * bytes), the same ties.  Returns its position in the order, or 0 if
 * there is neither.
 */
static unsigned int lt_plan_best(const struct lt_plan_input *in,
				 struct lt_plan_work *w,
				 struct lt_commit *best, u64 tenants)
{
	unsigned int t, p, q, cs, best_q = 0, rank_q = 0;
	u8 rank_tier = 0;
	u64 rank_side = 0;
	u16 rank_tenant = 0;

	best->worth = 0;
	best->by_rank = 0;
	for (t = 0; t < LT_MAX_TENANTS; t++) {
		if (!w->tenant_bytes[t] || !(tenants & BIT_ULL(t)))
			continue;
		cs = w->first[t];
		for (p = cs + 1; p <= w->end[t]; p++) {
			if (p < w->end[t] && !w->cut[p])
				continue;
			/* The class [cs, p): try every cut q inside it. */
			for (q = cs + 1; q < p; q++) {
				u32 sl = 0, ss = 0;
				u64 worth;

				worth = lt_cut_worth(w->pre_bytes, w->pre_dead,
						     cs, q, p, w->min_side[t],
						     &sl, &ss);
				if (worth > best->worth) {
					best->worth = worth;
					best->surv_long = sl;
					best->surv_short = ss;
					best->tenant = t;
					best_q = q;
				} else if (!worth && !best_q && in->rank) {
					u8 tier = 0;
					u64 side = lt_rank_side(in, w, cs, q, p,
								w->min_side[t],
								&tier);

					if (side && (tier > rank_tier ||
						     (tier == rank_tier &&
						      side > rank_side))) {
						rank_tier = tier;
						rank_side = side;
						rank_tenant = t;
						rank_q = q;
						best->surv_long = sl;
						best->surv_short = ss;
					}
				}
			}
			cs = p;
		}
	}
	if (best_q || !rank_q)
		return best_q;
	best->tenant = rank_tenant;
	best->by_rank = 1;
	return rank_q;
}

/*
 * The cut of highest worth among the tenant groups of at least @floor,
 * each side at least @min_side; ties go to the earliest position.
 * Returns its position in gorder, or 0 if there is none.
 */
static unsigned int lt_plan_group_cut(const struct lt_plan_work *w,
				      unsigned int nt, u64 min_side, u64 floor)
{
	unsigned int cs = 0, p, q, best_q = 0;
	u64 best = floor - 1;

	for (p = 1; p <= nt; p++) {
		if (p < nt && !w->gcut[p])
			continue;
		/* The group [cs, p): try every cut q inside it. */
		for (q = cs + 1; q < p; q++) {
			u32 sl, ss;
			u64 worth;

			worth = lt_cut_worth(w->gpre_bytes, w->gpre_dead, cs, q,
					     p, min_side, &sl, &ss);
			if (worth > best) {
				best = worth;
				best_q = q;
			}
		}
		cs = p;
	}
	return best_q;
}

/*
 * Whether tenant @t had a stream of its own in the layout before, one of
 * the pool's @nr @streams.
 */
static bool lt_plan_owned(const struct lt_plan_input *in, unsigned int t,
			  const u8 *streams, unsigned int nr)
{
	unsigned int i;

	if (!in->prev_tenant_stream || !(in->prev_owners & BIT_ULL(t)))
		return false;
	for (i = 0; i < nr; i++)
		if (streams[i] == in->prev_tenant_stream[t])
			return true;
	return false;
}

/*
 * More tenants than streams, the pool's @budget @streams: groups of
 * survival neighbours, then the largest tenants, those that had a stream
 * of their own counted twice, on streams of their own (see the top of
 * this file).  Sets own[] and share[]; returns the streams used, which
 * is @budget.
 */
static unsigned int lt_plan_groups(const struct lt_plan_input *in,
				   struct lt_plan_work *w, unsigned int nt,
				   const u8 *streams, unsigned int budget,
				   u32 pm, struct lt_layout *out)
{
	unsigned int i, j, q, g = 0, groups = 1, slot = 0, left;
	u64 total, min_side, floor, owned = 0;
	u16 t;

	for (i = 0; i < nt; i++) {
		t = w->torder[i];
		w->tsurv[t] = lt_survival(w->tenant_bytes[t],
					  w->pre_dead[w->end[t]] -
					  w->pre_dead[w->first[t]]);
		/* Stable: equal survival keeps the order by bytes. */
		for (j = i; j > 0 && w->tsurv[w->gorder[j - 1]] < w->tsurv[t]; j--)
			w->gorder[j] = w->gorder[j - 1];
		w->gorder[j] = t;
	}
	for (i = 0; i < nt; i++) {
		t = w->gorder[i];
		w->gpre_bytes[i + 1] = w->gpre_bytes[i] + w->tenant_bytes[t];
		w->gpre_dead[i + 1] = w->gpre_dead[i] +
			w->pre_dead[w->end[t]] - w->pre_dead[w->first[t]];
	}
	total = w->gpre_bytes[nt];
	min_side = mul_u64_u32_div(total, pm, 1000);
	floor = max(total >> LT_GROUP_WORTH_SHIFT, 1ULL);
	w->gcut[0] = true;
	while (groups < budget) {
		q = lt_plan_group_cut(w, nt, min_side, floor);
		if (!q)
			break;
		w->gcut[q] = true;
		groups++;
	}
	for (i = 0; i < nt; i++) {
		if (w->gcut[i])
			g = i;
		w->ggroup[w->gorder[i]] = g;
		w->gsize[g]++;
	}

	/*
	 * The streams left go to tenants taken out of their groups, each
	 * while its group keeps a member, largest first; a tenant that had
	 * a stream of its own counts twice its bytes, so that tenants of
	 * like bytes do not trade streams from plan to plan.
	 */
	for (i = 0; i < nt; i++)
		if (lt_plan_owned(in, w->torder[i], streams, budget))
			owned |= BIT_ULL(w->torder[i]);
	for (left = budget - groups; left; left--) {
		u64 best_w = 0, wt;
		u16 best = U16_MAX;

		for (i = 0; i < nt; i++) {
			t = w->torder[i];
			if (w->own[t] || w->gsize[w->ggroup[t]] < 2)
				continue;
			wt = w->tenant_bytes[t];
			if (owned & BIT_ULL(t))
				wt = wt > U64_MAX / 2 ? U64_MAX : wt * 2;
			if (best == U16_MAX || wt > best_w) {
				best = t;
				best_w = wt;
			}
		}
		if (best == U16_MAX)
			break;
		w->gsize[w->ggroup[best]]--;
		w->own[best] = ++slot;
	}
	/* Then the groups, longest-lived first. */
	for (i = 0; i < nt; i++) {
		t = w->gorder[i];
		g = w->ggroup[t];
		if (w->own[t])
			continue;
		if (w->gsize[g] == 1) {
			w->own[t] = ++slot;
			continue;
		}
		if (!w->gslot[g]) {
			w->gslot[g] = ++slot;
			out->nr_groups++;
		}
		w->share[t] = w->gslot[g];
		out->nr_shared++;
	}
	return slot;
}

/*
 * A pool of @budget streams: one to each of the @nt tenants of
 * @w->torder, or groups when they do not fit, then the boundaries of
 * highest worth (see the top of this file).  The pool's streams are
 * @streams; its entries of @out->stream start at @base.  Returns the
 * entries it put in use.
 */
static unsigned int lt_plan_pool(const struct lt_plan_input *in,
				 struct lt_plan_work *w, struct lt_layout *out,
				 unsigned int nt, u32 pm, const u8 *streams,
				 unsigned int budget, unsigned int base)
{
	unsigned int i, used, slot, cls, t, p, k, first;
	u64 owners = 0;

	/* Tenant-first: one stream each, or groups when they do not fit. */
	for (i = 0; i < nt; i++) {
		t = w->torder[i];
		w->min_side[t] = mul_u64_u32_div(w->tenant_bytes[t], pm, 1000);
		if (nt <= budget)
			w->own[t] = i + 1;
	}
	used = nt <= budget ? nt :
	       lt_plan_groups(in, w, nt, streams, budget, pm, out);
	for (i = 0; i < nt; i++)
		if (w->own[w->torder[i]])
			owners |= BIT_ULL(w->torder[i]);

	/* Then the boundaries, best first, while streams remain. */
	first = out->nr_commits;
	while (used < budget) {
		struct lt_commit *c = &out->commit[out->nr_commits];

		p = lt_plan_best(in, w, c, owners);
		if (!p)
			break;
		w->cut[p] = true;
		c->label = w->order[p];
		c->slot = base + used++;
		out->total_worth += c->worth;
		out->nr_commits++;
	}

	/* Number the classes and give each its stream. */
	for (i = 0; i < nt; i++) {
		unsigned int next = 0;

		t = w->torder[i];
		slot = base + (w->own[t] ? w->own[t] : w->share[t]) - 1U;
		out->tenant_stream[t] = streams[slot - base];
		/* Also for a tenant with no labels. */
		out->stream[slot].tenant = w->own[t] ? t : LT_TENANT_SHARED;
		cls = 0;
		for (p = w->first[t]; p < w->end[t]; p++) {
			u16 label = w->order[p];

			if (p > w->first[t] && w->cut[p] && w->own[t]) {
				/* The tenant's next added stream. */
				while (next + 1 < out->nr_commits &&
				       out->commit[next].tenant != t)
					next++;
				slot = out->commit[next++].slot;
				cls++;
			}
			out->label_stream[label] = streams[slot - base];
			out->label_class[label] = cls;
			w->slot_bytes[slot] += in->labels[label].bytes;
			w->slot_dead[slot] += w->pre_dead[p + 1] - w->pre_dead[p];
			out->stream[slot].tenant = w->own[t] ? t : LT_TENANT_SHARED;
			out->stream[slot].class = cls;
		}
		out->tenant_classes[t] = cls + 1;
	}
	for (slot = 0; slot < used; slot++)
		out->stream[base + slot].stream = streams[slot];
	/*
	 * Classes take the tenant's added streams in the order they were
	 * added, which need not be the order of their cuts: each boundary
	 * names the stream of the class it starts.
	 */
	for (k = first; k < out->nr_commits; k++)
		for (slot = 0; slot < used; slot++)
			if (streams[slot] ==
			    out->label_stream[out->commit[k].label])
				out->commit[k].slot = base + slot;
	return used;
}

/*
 * Keep each class planned on a pool of streams (the free streams, or a
 * budget that tenants share), the pool's @nr @streams in @out->stream
 * from @base, on the stream it had in the layout before (@in->prev_stream,
 * @in->prev_tenant_stream).  The planner numbers its streams by the order
 * it committed boundaries in and the tenants by bytes, both of which move
 * from plan to plan; a stream that changes class mixes the old class's
 * data with the new one's in its open reclaim unit, and in every unit
 * that garbage collection fills from the handle.  The @used stream slots
 * are matched to the pool's streams greedily: the slot and previous
 * stream whose labels wrote the most bytes first, then the next pair of a
 * slot and a stream both still unmatched; a tenant's own stream pairs its
 * class 0 with the tenant's stream before, with no bytes, so that a
 * tenant whose writes touched no tracked range keeps its stream too.
 * Slots left take the pool's streams left, in order.  O(L^2) for L
 * labels, as the sort.
 */
static void lt_plan_keep_pair(struct lt_plan_work *w, unsigned int *n,
			      u8 slot, u8 prev, u64 bytes)
{
	unsigned int j;

	for (j = 0; j < *n; j++)
		if (w->kslot[j] == slot && w->kprev[j] == prev)
			break;
	if (j == *n) {
		w->kslot[j] = slot;
		w->kprev[j] = prev;
		w->kbytes[j] = 0;
		(*n)++;
	}
	w->kbytes[j] += bytes;
}

static void lt_plan_keep(const struct lt_plan_input *in,
			 struct lt_plan_work *w, struct lt_layout *out,
			 const u8 *streams, unsigned int nr,
			 unsigned int base, unsigned int used)
{
	u8 *pos = w->kpos, *to = w->kmap;
	unsigned int i, j, n = 0, best, slot, next = 0;
	u8 s, p;

	if ((!in->prev_stream && !in->prev_tenant_stream) || !used)
		return;
	/* Position plus one in the pool's streams, of each stream id. */
	memset(pos, 0, sizeof(w->kpos));
	for (i = 0; i < nr; i++)
		pos[streams[i]] = i + 1;
	memset(w->kto, 0xff, sizeof(w->kto));
	memset(w->ktaken, 0, sizeof(w->ktaken));
	for (i = 1; in->prev_stream && i < in->nr_labels; i++) {
		s = out->label_stream[i];
		p = in->prev_stream[i];
		if (s && pos[s] && pos[p] && in->labels[i].bytes)
			lt_plan_keep_pair(w, &n, pos[s] - 1, pos[p] - 1,
					  in->labels[i].bytes);
	}
	for (i = 0; in->prev_tenant_stream && i < LT_MAX_TENANTS; i++) {
		s = out->tenant_stream[i];
		p = in->prev_tenant_stream[i];
		if (s && pos[s] && pos[p])
			lt_plan_keep_pair(w, &n, pos[s] - 1, pos[p] - 1, 0);
	}
	for (;;) {
		best = n;
		for (j = 0; j < n; j++)
			if (w->kto[w->kslot[j]] == 0xff &&
			    !w->ktaken[w->kprev[j]] &&
			    (best == n || w->kbytes[j] > w->kbytes[best]))
				best = j;
		if (best == n)
			break;
		w->kto[w->kslot[best]] = w->kprev[best];
		w->ktaken[w->kprev[best]] = true;
	}
	for (slot = 0; slot < used; slot++) {
		if (w->kto[slot] != 0xff)
			continue;
		while (w->ktaken[next])
			next++;
		w->kto[slot] = next;
		w->ktaken[next] = true;
	}
	/* From the stream ids before to those after, in this pool only. */
	memset(to, 0, sizeof(w->kmap));
	for (slot = 0; slot < used; slot++) {
		s = streams[w->kto[slot]];
		to[streams[slot]] = s;
		out->stream[base + slot].stream = s;
	}
	for (i = 1; i < in->nr_labels; i++)
		if (pos[out->label_stream[i]])
			out->label_stream[i] = to[out->label_stream[i]];
	for (i = 0; i < LT_MAX_TENANTS; i++)
		if (pos[out->tenant_stream[i]])
			out->tenant_stream[i] = to[out->tenant_stream[i]];
}

/* Whether tenants @t and @u have the same budget. */
static bool lt_same_budget(const struct lt_plan_input *in, unsigned int t,
			   unsigned int u)
{
	const struct lt_budget *a = &in->budgets[t], *b = &in->budgets[u];

	return a->nr == b->nr && !memcmp(a->streams, b->streams, a->nr);
}

/* Whether tenant @t is planned: it wrote, or it is active. */
static bool lt_planned(const struct lt_plan_input *in,
		       const struct lt_plan_work *w, unsigned int t)
{
	return w->tenant_bytes[t] || (in->tenants & BIT_ULL(t));
}

/*
 * Whether a planned tenant with another budget than @t's has one of the
 * streams of @t's: the match must then leave @t's pool on the streams it
 * would take anyway, so that whether that budget is pooled does not
 * depend on the layout before.
 */
static bool lt_budget_overlaps(const struct lt_plan_input *in,
			       const struct lt_plan_work *w, unsigned int t)
{
	const struct lt_budget *b = &in->budgets[t], *c;
	unsigned int u, i, j;

	for (u = 0; u < LT_MAX_TENANTS; u++) {
		if (!lt_budgeted(in, u) || !lt_planned(in, w, u) ||
		    lt_same_budget(in, t, u))
			continue;
		c = &in->budgets[u];
		for (i = 0; i < b->nr; i++)
			for (j = 0; j < c->nr; j++)
				if (b->streams[i] == c->streams[j])
					return true;
	}
	return false;
}

/*
 * Tenants that share a budget, planned on it together as a pool (see the
 * top of this file), their entries of @out->stream from @used on, then
 * matched to the streams they had (lt_plan_keep()).  A budget is pooled
 * only if it fits the layout and none of its streams was given out before
 * (after the match); the others are left to lt_plan_budgets().  Sets
 * @done for the tenants planned.  Returns the entries in use.
 */
static unsigned int lt_plan_shared_budgets(const struct lt_plan_input *in,
					   struct lt_plan_work *w,
					   struct lt_layout *out,
					   unsigned int used, u32 pm,
					   u64 *done)
{
	unsigned int t, u, i, j, nt, n;
	const struct lt_budget *b;

	for (t = 0; t < LT_MAX_TENANTS; t++) {
		if (!lt_budgeted(in, t) || !lt_planned(in, w, t) ||
		    (*done & BIT_ULL(t)))
			continue;
		b = &in->budgets[t];
		/* Its tenants by bytes, largest first, then the silent ones. */
		nt = 0;
		for (u = t; u < LT_MAX_TENANTS; u++) {
			if (!lt_budgeted(in, u) || !w->tenant_bytes[u] ||
			    !lt_same_budget(in, t, u))
				continue;
			for (j = nt; j > 0 &&
			     w->tenant_bytes[w->torder[j - 1]] < w->tenant_bytes[u];
			     j--)
				w->torder[j] = w->torder[j - 1];
			w->torder[j] = u;
			nt++;
		}
		for (u = t; u < LT_MAX_TENANTS; u++)
			if (lt_budgeted(in, u) && !w->tenant_bytes[u] &&
			    (in->tenants & BIT_ULL(u)) && lt_same_budget(in, t, u))
				w->torder[nt++] = u;
		if (nt < 2 || used + b->nr > LT_MAX_STREAMS)
			continue;
		for (i = 0; i < b->nr; i++)
			if (w->bslot[b->streams[i]])
				break;
		if (i < b->nr)
			continue;

		/* lt_plan_groups() starts from clean group state. */
		memset(w->gpre_bytes, 0, sizeof(w->gpre_bytes));
		memset(w->gpre_dead, 0, sizeof(w->gpre_dead));
		memset(w->gcut, 0, sizeof(w->gcut));
		memset(w->ggroup, 0, sizeof(w->ggroup));
		memset(w->gsize, 0, sizeof(w->gsize));
		memset(w->gslot, 0, sizeof(w->gslot));
		n = lt_plan_pool(in, w, out, nt, pm, b->streams, b->nr, used);
		lt_plan_keep(in, w, out, b->streams,
			     lt_budget_overlaps(in, w, t) ? n : b->nr, used, n);
		/* The match may move an entry: look entries up by stream. */
		for (i = 0; i < n; i++)
			w->bslot[out->stream[used + i].stream] = used + i + 1;
		for (i = 0; i < nt; i++)
			*done |= BIT_ULL(w->torder[i]);
		out->nr_tenants += nt;
		used += n;
	}
	return used;
}

/*
 * The entry of @out->stream for budget stream @stream, given to tenant @t
 * for its class @cls: a new one at *@n, or the one another class or
 * tenant was given, then shared by tenants if they differ.
 */
static unsigned int lt_budget_slot(struct lt_plan_work *w,
				   struct lt_layout *out, unsigned int *n,
				   u16 t, u8 stream, u8 cls)
{
	unsigned int slot = w->bslot[stream];

	if (slot) {
		slot--;
		if (out->stream[slot].tenant != t)
			out->stream[slot].tenant = LT_TENANT_SHARED;
		return slot;
	}
	slot = (*n)++;
	w->bslot[stream] = slot + 1;
	out->stream[slot].stream = stream;
	out->stream[slot].tenant = t;
	out->stream[slot].class = cls;
	return slot;
}

/*
 * Each tenant with a budget that lt_plan_shared_budgets() left (not in
 * @done) on its budget alone (see the top of this file), its streams in
 * @out->stream after the @used ones given out before.  The
 * budgets' streams are distinct from the free ones and from each other
 * inside one budget (lt_plan_check()), so there are at most
 * LT_MAX_STREAMS entries in all.  Returns the entries in use.
 */
static unsigned int lt_plan_budgets(const struct lt_plan_input *in,
				    struct lt_plan_work *w,
				    struct lt_layout *out, unsigned int used,
				    u32 pm, u64 done)
{
	unsigned int t, k, p, cls, slot, first, n = used;
	const struct lt_budget *b;

	for (t = 0; t < LT_MAX_TENANTS; t++) {
		if (!lt_budgeted(in, t) || !lt_planned(in, w, t) ||
		    (done & BIT_ULL(t)))
			continue;
		b = &in->budgets[t];
		out->nr_tenants++;
		w->min_side[t] = mul_u64_u32_div(w->tenant_bytes[t], pm, 1000);

		/* Its own boundaries of highest worth, one stream each. */
		first = out->nr_commits;
		for (k = 1; k < b->nr; k++) {
			struct lt_commit c = { };

			p = lt_plan_best(in, w, &c, BIT_ULL(t));
			if (!p)
				break;
			w->cut[p] = true;
			c.label = w->order[p];
			out->total_worth += c.worth;
			/* Shown while there is room; planned all the same. */
			if (out->nr_commits < LT_MAX_STREAMS)
				out->commit[out->nr_commits++] = c;
		}

		/* Class c on the budget's stream c; also with no labels. */
		cls = 0;
		slot = lt_budget_slot(w, out, &n, t, b->streams[0], 0);
		out->tenant_stream[t] = b->streams[0];
		for (p = w->first[t]; p < w->end[t]; p++) {
			u16 label = w->order[p];

			if (p > w->first[t] && w->cut[p]) {
				cls++;
				slot = lt_budget_slot(w, out, &n, t,
						      b->streams[cls], cls);
			}
			out->label_stream[label] = b->streams[cls];
			out->label_class[label] = cls;
			w->slot_bytes[slot] += in->labels[label].bytes;
			w->slot_dead[slot] += w->pre_dead[p + 1] - w->pre_dead[p];
		}
		out->tenant_classes[t] = cls + 1;
		for (k = first; k < out->nr_commits; k++)
			out->commit[k].slot =
				w->bslot[out->label_stream[out->commit[k].label]] - 1;
	}
	return n;
}

/*
 * The ranks of each tenant's labels that hold at least min_side of its
 * bytes, so that a boundary could cut them off: what lt_new_ranks()
 * compares the tenant's labels with at the next checks.
 */
static void lt_plan_ranks(const struct lt_plan_input *in,
			  const struct lt_plan_work *w, struct lt_layout *out,
			  u32 pm)
{
	u64 bytes[LT_RANK_MAX + 1], side;
	unsigned int t, i, r;

	for (t = 0; in->rank && t < LT_MAX_TENANTS; t++) {
		if (!w->tenant_bytes[t])
			continue;
		memset(bytes, 0, sizeof(bytes));
		/* lt_plan_check() bounds the ranks by LT_RANK_MAX. */
		for (i = w->first[t]; i < w->end[t]; i++)
			bytes[in->rank[w->order[i]]] +=
				in->labels[w->order[i]].bytes;
		side = mul_u64_u32_div(w->tenant_bytes[t], pm, 1000);
		for (r = 0; r <= LT_RANK_MAX; r++)
			if (bytes[r] && bytes[r] >= side)
				out->tenant_ranks[t] |= BIT(r);
	}
}

/**
 * lt_plan_owners() - the tenants that have a stream of their own
 * @l: a layout
 *
 * Return: a bitmap of the tenants that a stream of @l serves alone (any
 * stream: the tenant's class 0 or a boundary's).
 */
u64 lt_plan_owners(const struct lt_layout *l)
{
	u64 owners = 0;
	unsigned int i;

	for (i = 0; i < l->nr_streams; i++)
		if (l->stream[i].tenant < LT_MAX_TENANTS)
			owners |= BIT_ULL(l->stream[i].tenant);
	return owners;
}

/**
 * lt_plan() - compute a layout
 * @in: labels, reclaim age, free streams, budgets and limits
 * @out: the layout
 * @work: scratch space
 *
 * See the top of this file for the method.  With at most as many tenants
 * without a budget as free streams, no free stream serves two tenants;
 * a tenant with a budget gets streams of its budget only.
 *
 * Context: any; does not sleep or allocate.
 * Return: 0, or -EINVAL for a bad input: no label table or too many
 * labels, a minimum side above 1000 per mille, a rank above LT_RANK_MAX,
 * a stream id of 0 or given twice among the free streams or inside one
 * budget, or a budget's stream among the free streams.
 */
int lt_plan(const struct lt_plan_input *in, struct lt_layout *out,
	    struct lt_plan_work *work)
{
	u32 pm = in->min_side_pm ? in->min_side_pm : LT_MIN_SIDE_PM;
	struct lt_plan_work *w = work;
	unsigned int i, nt, used = 0, slot, t;
	u64 done = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = lt_plan_check(in);
	if (ret)
		return ret;
	memset(w, 0, sizeof(*w));
	out->reclaim_age = in->reclaim_age;

	lt_plan_order(in, w);
	lt_plan_ranks(in, w, out, pm);
	nt = lt_plan_tenants(in, w);
	out->nr_tenants = nt;
	if (nt && in->nr_streams) {
		used = lt_plan_pool(in, w, out, nt, pm, in->streams,
				    in->nr_streams, 0);
		lt_plan_keep(in, w, out, in->streams, in->nr_streams, 0,
			     used);
	}
	used = lt_plan_shared_budgets(in, w, out, used, pm, &done);
	used = lt_plan_budgets(in, w, out, used, pm, done);
	for (slot = 0; slot < used; slot++) {
		out->stream[slot].bytes = w->slot_bytes[slot];
		out->stream[slot].survival = lt_survival(w->slot_bytes[slot],
							 w->slot_dead[slot]);
	}
	out->nr_streams = used;

	/* Labels of planned tenants that wrote nothing go to class 0. */
	for (i = 1; i < in->nr_labels; i++) {
		t = in->labels[i].tenant;
		if (!out->label_stream[i] && t < LT_MAX_TENANTS &&
		    out->tenant_stream[t])
			out->label_stream[i] = out->tenant_stream[t];
	}
	return 0;
}

/**
 * lt_active_tenants() - the tenants that count as active
 * @act: pages each tenant wrote, per period
 * @nr_periods: periods in @act, together one reclaim age
 * @nr_tenants: tenants in use
 *
 * Return: a bitmap of the tenants that wrote at least 5% of the pages
 * written over all periods; 0 when nothing was written.
 */
u64 lt_active_tenants(const u64 act[][LT_MAX_TENANTS], unsigned int nr_periods,
		      unsigned int nr_tenants)
{
	u64 sum[LT_MAX_TENANTS] = { 0 }, total = 0, set = 0;
	unsigned int q, i;

	if (nr_tenants > LT_MAX_TENANTS)
		nr_tenants = LT_MAX_TENANTS;
	for (q = 0; q < nr_periods; q++)
		for (i = 0; i < nr_tenants; i++)
			sum[i] += act[q][i];
	for (i = 0; i < nr_tenants; i++)
		total += sum[i];
	for (i = 0; total && i < nr_tenants; i++)
		if (sum[i] * 20 >= total)
			set |= 1ULL << i;
	return set;
}

/**
 * lt_informed() - the tenants whose lifetimes show
 * @labels: labels indexed by slot; slot 0 is skipped
 * @nr_labels: entries in @labels
 * @tenants: bitmap of the tenants to look at
 *
 * A tenant's lifetimes show once its labels have seen deaths of at least
 * 1/16 of their bytes.  Until then all its survivals are 1, and a plan
 * can give it a stream but no splits.
 *
 * Return: the bitmap of those tenants of @tenants.
 */
u64 lt_informed(const struct lt_label *labels, unsigned int nr_labels,
		u64 tenants)
{
	u64 set = 0;
	unsigned int t, i, k;

	for (t = 0; t < LT_MAX_TENANTS; t++) {
		u64 bytes = 0, dead = 0;

		if (!(tenants & BIT_ULL(t)))
			continue;
		for (i = 1; i < nr_labels; i++) {
			const struct lt_label *l = &labels[i];

			if (!(l->flags & LT_LABEL_USED) || l->tenant != t)
				continue;
			bytes += l->bytes;
			for (k = 0; k < LT_NR_BINS; k++)
				dead += l->hist[k];
		}
		if (bytes && dead >= bytes / 16)
			set |= BIT_ULL(t);
	}
	return set;
}

/**
 * lt_new_ranks() - the tenants that write a rank their plan did not see
 * @labels: labels indexed by slot; slot 0 is skipped
 * @rank: @nr_labels entries, each label's rank (struct lt_plan_input)
 * @seen: LT_MAX_TENANTS entries, the ranks that held a boundary's side of
 *	each tenant's bytes when the installed layout was planned (struct
 *	lt_layout @tenant_ranks)
 * @nr_labels: entries in @labels
 * @tenants: bitmap of the tenants to look at
 * @min_side_pm: smallest side of a boundary, per mille of a tenant's
 *	bytes; 0 means LT_MIN_SIDE_PM
 *
 * A tenant's labels that came after its layout was planned take its
 * class 0, whatever their writer said.  Once those of a rank that the
 * plan did not see hold a boundary's side of the tenant's bytes, a plan
 * could cut them off by rank (or, for a rank that the plan saw smaller
 * and kept on a stream of its own, LT_RANK_KEEP_PM, would keep it).  A
 * rank counts as seen once a plan saw it that large, whether or not that
 * plan was installed, so a tenant that a plan cannot split is not planned
 * for again; a rank that was smaller is planned for when it grows.
 *
 * Return: the bitmap of those tenants of @tenants.
 */
u64 lt_new_ranks(const struct lt_label *labels, const u8 *rank,
		 const u8 *seen, unsigned int nr_labels, u64 tenants,
		 u16 min_side_pm)
{
	u32 pm = min_side_pm ? min_side_pm : LT_MIN_SIDE_PM;
	u64 set = 0, fresh[LT_RANK_MAX + 1];
	unsigned int t, i, r;

	for (t = 0; t < LT_MAX_TENANTS; t++) {
		u64 bytes = 0;

		if (!(tenants & BIT_ULL(t)))
			continue;
		memset(fresh, 0, sizeof(fresh));
		for (i = 1; i < nr_labels; i++) {
			const struct lt_label *l = &labels[i];

			if (!(l->flags & LT_LABEL_USED) || l->tenant != t)
				continue;
			bytes += l->bytes;
			r = rank[i];
			if (r && r <= LT_RANK_MAX && !(seen[t] & BIT(r)))
				fresh[r] += l->bytes;
		}
		for (r = 1; r <= LT_RANK_MAX; r++)
			if (fresh[r] &&
			    fresh[r] >= mul_u64_u32_div(bytes, pm, 1000))
				set |= BIT_ULL(t);
	}
	return set;
}

/**
 * lt_plan_due() - whether a check plans, and why
 * @c: the check
 *
 * In order: no active tenant, no plan; no layout yet, "first"; the active
 * tenants changed, "tenants"; a tenant's lifetimes showed since the
 * layout was planned, "learned"; a tenant writes a rank the layout does
 * not place, "hints"; LT_QUARTERS periods (a reclaim age) since the last
 * plan, "drift".  Drift, learned and hints plans are installed only if
 * they changed the layout.
 *
 * Return: the reason, or NULL for no plan.
 */
const char *lt_plan_due(const struct lt_check *c)
{
	if (!c->active)
		return NULL;
	if (!c->installed)
		return "first";
	if (c->active != c->tenants)
		return "tenants";
	if (c->informed & ~c->tenants_informed)
		return "learned";
	if (c->ranked)
		return "hints";
	if (c->periods >= LT_QUARTERS)
		return "drift";
	return NULL;
}
