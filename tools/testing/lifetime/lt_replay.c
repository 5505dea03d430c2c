// SPDX-License-Identifier: GPL-2.0
/*
 * lt_replay: replay an fdp-sim trace through the lifetime policy's tracker
 * and planner, and write the trace again with the streams the policy
 * would have chosen, for fdp-sim to turn into WAF.
 *
 *   lt_replay --capacity BYTES [--streams N] [--reclaim-age BYTES]
 *             [--sample-shift S] TRACE
 *
 * A trace carries each write's cgroup and the rule that placed it, not its
 * file or hint, so the replay labels a write by its cgroup (and, for the
 * filesystem's journal and metadata writes, by their stream): it shows
 * what the policy makes of tenants alone.  Writes an earlier rule placed
 * (application, cgroup, filesystem) keep their stream and are tracked,
 * but make no tenant active; the others get the stream of the installed
 * layout.  As in the kernel, the layout is checked at the end of every
 * period, a quarter of the reclaim age (by default the capacity), and
 * every 1/16 of it until the first layout, and planned for the kernel's
 * reasons (lt_plan_due()): no layout yet, the active tenants changed, a
 * tenant's lifetimes showed, or a reclaim age passed since the last plan;
 * each re-plan keeps the streams of the layout before where it can, as
 * the kernel's automatic ones do.  Like the kernel by default, the
 * tracker follows one range in 2^S (--sample-shift, 0 for all of them).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lt-core.h"
#include "trace.h"

struct lt_replay {
	struct lt_track t;
	struct lt_layout layout;
	struct lt_plan_work work;
	struct lt_label snap[LT_MAX_LABELS];
	u64 key[LT_MAX_LABELS];		/* label keys when planned */
	u64 cgroup[LT_MAX_TENANTS];
	unsigned int nr_tenants;
	u64 act[LT_QUARTERS][LT_MAX_TENANTS];
	unsigned int quarter, quarters;
	u64 now, next_check, next_period, reclaim_age, active, informed;
	u64 periods, last_plan_period;
	bool have_layout;
	u8 streams[LT_MAX_STREAMS];
	u8 nr_streams;
	unsigned long plans;
};

static u64 parse_size(const char *s)
{
	char *end;
	u64 v = strtoull(s, &end, 0);

	if (*end) {
		const char *units = "kmg", *u = strchr(units, *end | 0x20);

		if (u && *u) {
			v <<= 10 * (u - units + 1);
			end++;
		}
	}
	if (*end || end == s) {
		fprintf(stderr, "lt_replay: bad size '%s'\n", s);
		exit(2);
	}
	return v;
}

static u16 tenant_of(struct lt_replay *r, u64 cgroup)
{
	unsigned int i;

	for (i = 0; i < r->nr_tenants; i++)
		if (r->cgroup[i] == cgroup)
			return i;
	if (r->nr_tenants == LT_MAX_TENANTS)
		return LT_MAX_TENANTS - 1;
	r->cgroup[r->nr_tenants] = cgroup;
	return r->nr_tenants++;
}

/* A check; @period_end if it ends a period, as lt_workfn() does. */
static void check(struct lt_replay *r, bool period_end)
{
	struct lt_plan_input in = { 0 };
	u64 active = lt_active_tenants(r->act, LT_QUARTERS, r->nr_tenants);
	u8 prev[LT_MAX_LABELS], prev_tenant[LT_MAX_TENANTS];
	struct lt_check c = { 0 };

	if (period_end) {
		r->periods++;
		lt_track_period_end(&r->t, r->act, &r->quarter, &r->quarters,
				    r->now);
	}
	/* As in the kernel: no tenant wrote for the policy, no plan. */
	if (!r->t.on || !active)
		return;
	c.active = active;
	c.informed = lt_informed(r->t.label, LT_MAX_LABELS, active);
	c.installed = r->have_layout;
	c.tenants = r->active;
	c.tenants_informed = r->informed;
	c.periods = r->periods - r->last_plan_period;
	if (!lt_plan_due(&c))
		return;

	memcpy(r->snap, r->t.label, sizeof(r->snap));
	in.labels = r->snap;
	in.nr_labels = LT_MAX_LABELS;
	in.reclaim_age = r->reclaim_age;
	in.streams = r->streams;
	in.nr_streams = r->nr_streams;
	in.tenants = active;
	/* As in the kernel, a re-plan keeps the streams of the layout before. */
	if (r->have_layout) {
		for (unsigned int i = 0; i < LT_MAX_LABELS; i++)
			prev[i] = r->key[i] == r->snap[i].key ?
				  r->layout.label_stream[i] : 0;
		for (unsigned int i = 0; i < LT_MAX_TENANTS; i++)
			prev_tenant[i] = r->active & (1ULL << i) ?
					 r->layout.tenant_stream[i] : 0;
		in.prev_stream = prev;
		in.prev_tenant_stream = prev_tenant;
		in.prev_owners = lt_plan_owners(&r->layout) & r->active;
	}
	if (lt_plan(&in, &r->layout, &r->work))
		return;
	for (unsigned int i = 0; i < LT_MAX_LABELS; i++)
		r->key[i] = r->t.label[i].key;
	r->have_layout = true;
	r->active = active;
	r->informed = c.informed;
	r->last_plan_period = r->periods;
	r->plans++;
}

static unsigned int place(struct lt_replay *r, u16 label, u16 tenant)
{
	unsigned int s = 0;

	if (!r->have_layout)
		return 0;
	if (label && r->key[label] == r->t.label[label].key)
		s = r->layout.label_stream[label];
	return s ? s : r->layout.tenant_stream[tenant];
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "capacity", required_argument, NULL, 'c' },
		{ "streams", required_argument, NULL, 's' },
		{ "reclaim-age", required_argument, NULL, 'r' },
		{ "sample-shift", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static struct lt_replay r;
	u64 capacity = 0, age = 0, period, first;
	unsigned int max_streams = 8, sample = LT_DEFAULT_SAMPLE_SHIFT, i;
	char line[512];
	unsigned long lineno = 0;
	FILE *f;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			capacity = parse_size(optarg);
			break;
		case 's':
			max_streams = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			age = parse_size(optarg);
			break;
		case 'S':
			sample = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"usage: lt_replay --capacity BYTES [--streams N] [--reclaim-age BYTES] [--sample-shift S] TRACE\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!capacity || optind != argc - 1 || max_streams < 2 ||
	    max_streams > LT_MAX_STREAMS) {
		fprintf(stderr, "lt_replay: need --capacity, 2 to %u streams and one TRACE\n",
			LT_MAX_STREAMS);
		return 2;
	}
	f = strcmp(argv[optind], "-") ? fopen(argv[optind], "r") : stdin;
	if (!f) {
		fprintf(stderr, "lt_replay: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	if (sample > LT_MAX_SAMPLE_SHIFT) {
		fprintf(stderr, "lt_replay: --sample-shift is at most %u\n",
			LT_MAX_SAMPLE_SHIFT);
		return 2;
	}
	if (lt_track_init(&r.t, capacity >> LT_SECTOR_SHIFT, 0, sample,
			  LT_DEFAULT_MEM_CAP)) {
		fprintf(stderr, "lt_replay: cannot set up the tracker\n");
		return 1;
	}
	for (i = 2; i <= max_streams; i++)
		r.streams[r.nr_streams++] = i;
	r.reclaim_age = (age ? age : capacity) >> LT_PAGE_SHIFT;
	period = r.reclaim_age / LT_QUARTERS ?: 1;
	/* The kernel's first checks, every 1/16 of it. */
	first = r.reclaim_age / (LT_QUARTERS * LT_QUARTERS) ?: 1;
	if (first > LT_FIRST_STEP_MAX)
		first = LT_FIRST_STEP_MAX;
	r.next_period = period;
	r.next_check = first < period ? first : period;

	while (fgets(line, sizeof(line), f)) {
		struct trace_rec rec;
		const char *why;
		int ret;

		lineno++;
		ret = trace_parse_line(line, &rec, &why);
		if (ret < 0) {
			fprintf(stderr, "lt_replay: %s:%lu: %s\n", argv[optind], lineno, why);
			return 1;
		}
		if (!ret) {
			fputs(line, stdout);	/* comments and marks pass */
			continue;
		}
		if (rec.op == TRACE_WRITE) {
			bool earlier = !strcmp(rec.rule, "app") || !strcmp(rec.rule, "cgroup") ||
				       !strcmp(rec.rule, "fs");
			u16 tenant = tenant_of(&r, rec.cgroup);
			u64 key = 1ULL << 62 | (!strcmp(rec.rule, "fs") ? rec.stream : 0);
			u64 pages = ((u64)rec.sectors * 512 + 4095) >> LT_PAGE_SHIFT;
			u16 label = lt_label_get(&r.t, key, tenant);

			lt_track_write(&r.t, rec.sector, rec.sectors, label, r.now);
			if (!earlier) {
				rec.stream = place(&r, label, tenant);
				snprintf(rec.rule, sizeof(rec.rule), "%s",
					 rec.stream ? "policy" : "default");
			}
			/* As in the kernel: only the policy's writes. */
			if (!earlier)
				r.act[r.quarter][tenant] += pages;
			r.now += pages;
		} else {
			lt_track_discard(&r.t, rec.sector, rec.sectors, r.now);
		}
		printf("%.6f %u,%u %c %llu %u %u %s %llu\n", rec.time, rec.major, rec.minor,
		       rec.op == TRACE_WRITE ? 'W' : rec.op == TRACE_DISCARD ? 'D' : 'Z',
		       (unsigned long long)rec.sector, rec.sectors, rec.stream, rec.rule,
		       (unsigned long long)rec.cgroup);
		/* One period at most per write, as lt_clock() counts. */
		if (r.now >= r.next_check) {
			bool end = r.now >= r.next_period;

			if (end)
				r.next_period = r.now + period;
			check(&r, end);
			r.next_check = r.next_period;
			if (!r.have_layout && r.now + first < r.next_period)
				r.next_check = r.now + first;
		}
	}
	fprintf(stderr, "lt_replay: %lu lines, %u tenants, %lu plans\n", lineno,
		r.nr_tenants, r.plans);
	lt_track_exit(&r.t);
	return 0;
}
