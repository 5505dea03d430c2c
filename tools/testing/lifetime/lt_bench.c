// SPDX-License-Identifier: GPL-2.0
/*
 * Microbenchmark of the lifetime tracker's per-bio path (label lookup plus
 * lt_track_write(), and the same replayed from two CPUs' logs the way the
 * policy does) and of the planner, with the memory the owner table takes
 * on a 1 GiB and a 4 TB disk; and the longest the policy holds its lock
 * (interrupts off) on a 256 GiB and a 4 TiB disk.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lt-core.h"

#define LT_BENCH_BIOS	(2U << 20)
#define LT_BENCH_KEYS	64
#define LT_BENCH_TENANTS 4
#define LT_BENCH_RUNS	3
#define LT_BENCH_LOG	32	/* records per CPU log, as LT_LOG_LEN */

/**
 * struct lt_bench_disk - one disk size to measure
 * @name: how to print it
 * @bytes: its capacity
 */
struct lt_bench_disk {
	const char *name;
	u64 bytes;
};

static const struct lt_bench_disk lt_bench_disks[] = {
	{ "1 GiB", 1ULL << 30 },
	{ "4 TB", 4000000000000ULL },
};

static u64 lt_bench_rand(u64 *state)
{
	u64 x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static double lt_bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Time LT_BENCH_BIOS 4 KiB writes at the given sectors, in ns per bio. */
static double lt_bench_writes(struct lt_track *t, const u64 *sector,
			      const u16 *key, u64 *now)
{
	double start = lt_bench_now();
	unsigned int i;

	for (i = 0; i < LT_BENCH_BIOS; i++) {
		u16 tenant = key[i] % LT_BENCH_TENANTS;
		u16 label = lt_label_get(t, key[i] + 1, tenant);

		lt_track_write(t, sector[i], 8, label, (*now)++);
	}
	return (lt_bench_now() - start) / LT_BENCH_BIOS;
}

/*
 * The same writes logged by two CPUs in turn, LT_BENCH_LOG each, and
 * replayed in stamp order through lt_log_next(), in ns per bio.  Filling
 * the records is the submitting CPU's share and is timed too.
 */
static double lt_bench_replay(struct lt_track *t, const u64 *sector,
			      const u16 *key, u64 *now)
{
	static struct lt_rec log[2][LT_BENCH_LOG];
	double start = lt_bench_now();
	unsigned int i, j, c;

	for (i = 0; i < LT_BENCH_BIOS; i += 2 * LT_BENCH_LOG) {
		struct lt_log_cursor cur[2] = {
			{ .rec = log[0], .len = LT_BENCH_LOG },
			{ .rec = log[1], .len = LT_BENCH_LOG },
		};
		const struct lt_rec *r;

		for (j = 0; j < 2 * LT_BENCH_LOG; j++) {
			struct lt_rec *rec = &log[j & 1][j >> 1];

			rec->stamp = i + j;
			rec->sector = sector[i + j];
			rec->nr_sectors = 8;
			rec->key = key[i + j] + 1;
			rec->tenant = key[i + j] % LT_BENCH_TENANTS;
			memcpy(rec->name, "bench", 6);
		}
		for (c = 0; (r = lt_log_next(cur, 2)); c++)
			lt_track_write(t, r->sector, r->nr_sectors,
				       lt_label_get(t, r->key, r->tenant),
				       (*now)++);
		if (c != 2 * LT_BENCH_LOG)
			printf("# replayed %u of %u records\n", c, 2 * LT_BENCH_LOG);
	}
	return (lt_bench_now() - start) / LT_BENCH_BIOS;
}

/*
 * The same again with one range in 2^LT_DEFAULT_SAMPLE_SHIFT tracked, as
 * the kernel does by default: every bio asks lt_track_sampled(), only the
 * sampled ones are logged (by one CPU) and replayed; in ns per bio.
 */
static double lt_bench_sampled(struct lt_track *t, const u64 *sector,
			       const u16 *key, u64 *now)
{
	static struct lt_rec log[LT_BENCH_LOG];
	double start = lt_bench_now();
	struct lt_log_cursor cur;
	const struct lt_rec *r;
	unsigned int i, n = 0;

	for (i = 0; i < LT_BENCH_BIOS; i++) {
		struct lt_rec *rec = &log[n];

		if (!lt_track_sampled(t, sector[i], 8)) {
			(*now)++;
			continue;
		}
		rec->stamp = i;
		rec->sector = sector[i];
		rec->nr_sectors = 8;
		rec->key = key[i] + 1;
		rec->tenant = key[i] % LT_BENCH_TENANTS;
		memcpy(rec->name, "bench", 6);
		if (++n < LT_BENCH_LOG && i + 1 < LT_BENCH_BIOS)
			continue;
		cur = (struct lt_log_cursor) { .rec = log, .len = n };
		while ((r = lt_log_next(&cur, 1)))
			lt_track_write(t, r->sector, r->nr_sectors,
				       lt_label_get(t, r->key, r->tenant),
				       (*now)++);
		n = 0;
	}
	return (lt_bench_now() - start) / LT_BENCH_BIOS;
}

static double lt_bench_lookups(struct lt_track *t, const u16 *key)
{
	double start = lt_bench_now();
	unsigned int i, sum = 0;

	for (i = 0; i < LT_BENCH_BIOS; i++)
		sum += lt_label_get(t, key[i] + 1, key[i] % LT_BENCH_TENANTS);
	if (!sum)
		printf("# no labels\n");
	return (lt_bench_now() - start) / LT_BENCH_BIOS;
}

/*
 * Fill the disk once, one range per write, so every range has data.  Each
 * 1 MiB region belongs to one label, as a file's extents would.
 */
static double lt_bench_fill(struct lt_track *t, u64 *now)
{
	double start = lt_bench_now();
	u64 r;

	for (r = 0; r < t->nr_ranges; r++) {
		u64 len = t->stats.range_bytes;
		u16 k = ((r * len) >> 20) % LT_BENCH_KEYS;
		u16 load = lt_label_get(t, k + 1, k % LT_BENCH_TENANTS);

		lt_track_write(t, (r * len) >> LT_SECTOR_SHIFT,
			       len >> LT_SECTOR_SHIFT, load, *now);
		*now += len >> LT_PAGE_SHIFT;
	}
	return (lt_bench_now() - start) / t->nr_ranges;
}

/* LT_BENCH_BIOS random 4 KiB writes, keyed by their 1 MiB region. */
static void lt_bench_random(u64 *sector, u16 *key, u64 pages, u64 *rng)
{
	unsigned int i;

	for (i = 0; i < LT_BENCH_BIOS; i++) {
		sector[i] = (lt_bench_rand(rng) % pages) << 3;
		key[i] = (sector[i] >> 11) % LT_BENCH_KEYS;
	}
}

static int lt_bench_disk(const struct lt_bench_disk *d, u64 *sector,
			 u16 *key)
{
	u64 pages = d->bytes >> LT_PAGE_SHIFT, now = 1, rng = 0x9e3779b97f4a7c15ULL;
	double rnd, seq, look, fill, sweep, replay, sampled;
	struct lt_track t;
	unsigned int i;
	u64 s;

	if (lt_track_init(&t, d->bytes >> LT_SECTOR_SHIFT, 0, 0,
			  LT_DEFAULT_MEM_CAP))
		return -1;
	printf("%-6s range %5llu KiB  ranges %9llu  %zu B/range  ",
	       d->name, (unsigned long long)(t.stats.range_bytes >> 10),
	       (unsigned long long)t.stats.ranges, sizeof(struct lt_owner));
	printf("owner table %8.2f MiB  labels %4zu KiB  total %8.2f MiB%s\n",
	       t.stats.ranges * sizeof(struct lt_owner) / 1048576.0,
	       LT_MAX_LABELS * sizeof(struct lt_label) >> 10,
	       t.stats.mem_bytes / 1048576.0, t.on ? "" : "  (tracking off)");
	if (!t.on) {
		lt_track_exit(&t);
		return 0;
	}

	fill = lt_bench_fill(&t, &now);
	lt_bench_random(sector, key, pages, &rng);
	for (rnd = 1e9, i = 0; i < LT_BENCH_RUNS; i++)
		rnd = fmin(rnd, lt_bench_writes(&t, sector, key, &now));
	for (replay = 1e9, i = 0; i < LT_BENCH_RUNS; i++)
		replay = fmin(replay, lt_bench_replay(&t, sector, key, &now));
	s = lt_bench_rand(&rng) % pages;
	for (i = 0; i < LT_BENCH_BIOS; i++) {
		sector[i] = ((s + i) % pages) << 3;
		key[i] = (sector[i] >> 11) % LT_BENCH_KEYS;
	}
	for (seq = 1e9, i = 0; i < LT_BENCH_RUNS; i++)
		seq = fmin(seq, lt_bench_writes(&t, sector, key, &now));
	for (look = 1e9, i = 0; i < LT_BENCH_RUNS; i++)
		look = fmin(look, lt_bench_lookups(&t, key));
	sweep = lt_bench_now();
	lt_track_sweep(&t, now, t.nr_slots);
	sweep = (lt_bench_now() - sweep) / t.nr_slots;

	printf("       4 KiB writes: random %6.1f ns/bio  sequential %6.1f ns/bio",
	       rnd, seq);
	printf("  (label lookup alone %5.1f ns)\n", look);
	printf("       random, logged by two CPUs and replayed in order %6.1f ns/bio\n",
	       replay);
	printf("       whole-range fill %6.1f ns/range  sweep %5.2f ns/range",
	       fill, sweep);
	printf("  deaths charged %llu MiB  dropped %llu MiB\n",
	       (unsigned long long)(t.stats.dead_bytes >> 20),
	       (unsigned long long)(t.stats.dropped_bytes >> 20));
	if (lt_track_check(&t))
		printf("# reference counts are inconsistent\n");
	lt_track_exit(&t);

	/* The policy's default: one range in 16, in a table 1/16 the size. */
	if (lt_track_init(&t, d->bytes >> LT_SECTOR_SHIFT, 0,
			  LT_DEFAULT_SAMPLE_SHIFT, LT_DEFAULT_MEM_CAP))
		return -1;
	now = 1;
	lt_bench_fill(&t, &now);
	lt_bench_random(sector, key, pages, &rng);
	for (sampled = 1e9, i = 0; i < LT_BENCH_RUNS; i++)
		sampled = fmin(sampled, lt_bench_sampled(&t, sector, key, &now));
	printf("       one range in %u tracked: owner table %8.2f MiB (%llu entries),",
	       1U << LT_DEFAULT_SAMPLE_SHIFT,
	       t.stats.ranges * sizeof(struct lt_owner) / 1048576.0,
	       (unsigned long long)t.stats.ranges);
	printf(" total %8.2f MiB;", t.stats.mem_bytes / 1048576.0);
	printf(" random, the rest only counted %6.1f ns/bio\n", sampled);
	if (lt_track_check(&t))
		printf("# reference counts are inconsistent\n");
	lt_track_exit(&t);
	return 0;
}

static int lt_bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The median of @runs timings of @call, in ns: the work of each call is
 * the same, and the median leaves out the host's interruptions.
 */
#define LT_BENCH_MEDIAN(runs, call) ({					\
	unsigned int __i, __n = (runs);					\
	double __t[64], __s;						\
									\
	for (__i = 0; __i < __n; __i++) {				\
		__s = lt_bench_now();					\
		call;							\
		__t[__i] = lt_bench_now() - __s;			\
	}								\
	qsort(__t, __n, sizeof(__t[0]), lt_bench_cmp);			\
	__t[__n / 2]; })

/*
 * What the policy does with its lock held, and so interrupts off, on a
 * large disk with every range tracked (the largest owner table): the
 * median of several calls of each part it now does, and of what it did
 * at once before (a whole discard bio, a period's sweep, four periods'
 * sweeps, the whole label table's copy).
 */
static void lt_bench_irqoff(u64 bytes)
{
	static struct lt_label snap[LT_MAX_LABELS];
	u64 now = 1, part, bio, quarter;
	struct lt_track t;
	double w;
	u16 i;

	if (lt_track_init(&t, bytes >> LT_SECTOR_SHIFT, 0, 0,
			  LT_DEFAULT_MEM_CAP) || !t.on)
		return;
	lt_bench_fill(&t, &now);
	for (i = 1; i < LT_MAX_LABELS; i++)
		lt_label_get(&t, 1000 + i, i % LT_BENCH_TENANTS);
	part = lt_track_chunk(&t, 0, U32_MAX);
	bio = (U32_MAX >> LT_SECTOR_SHIFT) & ~7ULL;	/* a 4 GiB bio */
	quarter = DIV_ROUND_UP(t.nr_slots, LT_QUARTERS);
	printf("irqoff, %llu GiB, every range tracked (%llu KiB ranges, %llu entries),",
	       (unsigned long long)(bytes >> 30),
	       (unsigned long long)(t.stats.range_bytes >> 10),
	       (unsigned long long)t.nr_slots);
	printf(" median of each:\n");
	w = LT_BENCH_MEDIAN(16, lt_track_discard(&t, part * (__i + 1), part, now));
	printf("       discard part of %u ranges %8.1f us", LT_CHUNK_RANGES, w / 1000);
	w = LT_BENCH_MEDIAN(5, lt_track_discard(&t, bio * (__i + 8), bio, now));
	printf("   (a 4 GiB discard bio at once, before: %8.1f us)\n", w / 1000);
	w = LT_BENCH_MEDIAN(16, lt_track_write(&t, part * (__i + 100), part, 1, now));
	printf("       write part of %u ranges   %8.1f us\n", LT_CHUNK_RANGES, w / 1000);
	w = LT_BENCH_MEDIAN(64, lt_track_sweep(&t, now, 4096));
	printf("       sweep of 4096 entries     %8.1f us", w / 1000);
	w = LT_BENCH_MEDIAN(5, lt_track_sweep(&t, now, quarter));
	printf("   (a period's sweep at once, before: %8.1f us;", w / 1000);
	w = LT_BENCH_MEDIAN(3, lt_track_sweep(&t, now, 4 * quarter));
	printf(" four periods' %8.1f us)\n", w / 1000);
	memcpy(snap, t.label, sizeof(snap));
	w = LT_BENCH_MEDIAN(64, memcpy(snap + (__i % 16) * 16,
				       t.label + (__i % 16) * 16,
				       16 * sizeof(*snap)));
	printf("       copy of 16 labels         %8.1f us", w / 1000);
	w = LT_BENCH_MEDIAN(16, memcpy(snap, t.label, sizeof(snap)));
	printf("   (all %u at once, before: %8.1f us)\n", LT_MAX_LABELS, w / 1000);
	w = LT_BENCH_MEDIAN(8, lt_track_age(&t));
	printf("       aging of the labels       %8.1f us\n", w / 1000);
	lt_track_exit(&t);
}

/* Plan a full label table: every label a different survival. */
static void lt_bench_plan(void)
{
	static struct lt_label labels[LT_MAX_LABELS];
	static const u8 streams[] = { 2, 3, 4, 5, 6, 7, 8 };
	static struct lt_plan_work work;
	static struct lt_layout out;
	struct lt_plan_input in = {
		.labels = labels,
		.nr_labels = LT_MAX_LABELS,
		.reclaim_age = 1ULL << 20,
		.streams = streams,
		.nr_streams = ARRAY_SIZE(streams),
	};
	u64 rng = 12345;
	unsigned int i, runs = 200;
	double start;

	for (i = 1; i < LT_MAX_LABELS; i++) {
		labels[i].key = i;
		labels[i].tenant = i % LT_BENCH_TENANTS;
		labels[i].bytes = (1 + lt_bench_rand(&rng) % 1024) << 20;
		labels[i].hist[1 + lt_bench_rand(&rng) % (LT_NR_BINS - 1)] =
			labels[i].bytes / 2;
	}
	start = lt_bench_now();
	for (i = 0; i < runs; i++)
		lt_plan(&in, &out, &work);
	printf("planner: %u labels, %u tenants, B=%zu: %.1f us per plan, %u boundaries",
	       LT_MAX_LABELS - 1, LT_BENCH_TENANTS, ARRAY_SIZE(streams),
	       (lt_bench_now() - start) / runs / 1000, out.nr_commits);
	printf(", scratch %zu KiB, layout %zu KiB\n", sizeof(work) >> 10,
	       sizeof(out) >> 10);
}

int main(void)
{
	u64 *sector = calloc(LT_BENCH_BIOS, sizeof(*sector));
	u16 *key = calloc(LT_BENCH_BIOS, sizeof(*key));
	unsigned int i;
	int ret = 0;

	if (!sector || !key)
		return 1;
	printf("per-bio path: lt_label_get() + lt_track_write(), %u bios of 4 KiB",
	       LT_BENCH_BIOS);
	printf(", %u keys, one per 1 MiB region; best of %u runs\n",
	       LT_BENCH_KEYS, LT_BENCH_RUNS);
	for (i = 0; i < ARRAY_SIZE(lt_bench_disks); i++)
		if (lt_bench_disk(&lt_bench_disks[i], sector, key))
			ret = 1;
	lt_bench_plan();
	lt_bench_irqoff(256ULL << 30);
	lt_bench_irqoff(4ULL << 40);
	free(sector);
	free(key);
	return ret;
}
