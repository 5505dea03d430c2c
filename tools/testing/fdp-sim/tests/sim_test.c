// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of the fdp-sim device model against analytic results, plus
 * its input checks.  TAP output; "sim_test --bench" measures replay speed
 * and memory instead.
 *
 * Uniform random overwrites under greedy GC approach the analytic
 * a / (a + W0(-a e^-a)) only with many pages per reclaim unit and many
 * units, so that the open and reserved units are a small share of the
 * device: the tests use 2048-page (8 MiB) units and 1024 logical units
 * (8 GiB; 4096 units, 32 GiB, at 7% over-provisioning), and measure over
 * three drive writes after two of warm-up.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../fdpsim.h"
#include "../trace.h"
#include "rng.h"

static int n, failed;

#define ARRAY_SIZE(x)	(sizeof(x) / sizeof((x)[0]))

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		failed++;
}

#define RU_PAGES	2048
#define LOGICAL		(1024ull * RU_PAGES)

/*
 * The device's logical capacity in pages: 1024 units, or 4096 at low
 * over-provisioning, where the handful of open and free units the model
 * keeps would otherwise be a visible share of the spare space.
 */
static uint64_t logical = LOGICAL;

static struct fdpsim_params params(double op, uint32_t handles)
{
	return (struct fdpsim_params){
		.logical_pages = logical, .op = op, .ru_pages = RU_PAGES,
		.handles = handles, .watermark = 4,
	};
}

/*
 * On device @p: fill, then random overwrites of pages [0, live); WAF after
 * warm-up.  @media and @free_at_start, if given, take the media pages
 * written after warm-up and the free units right after init.
 */
static double uniform_on(const struct fdpsim_params *p, uint64_t live,
			 uint64_t *media, uint32_t *free_at_start)
{
	uint64_t i, pages = p->logical_pages;
	struct fdpsim s;
	double waf;

	if (fdpsim_init(&s, p))
		return -1;
	if (free_at_start)
		*free_at_start = s.nr_free;
	for (i = 0; i < pages; i++)
		fdpsim_write(&s, i, 0, 0);
	for (i = live; i < pages; i++)
		fdpsim_discard(&s, i);
	for (i = 0; i < 2 * pages; i++)
		fdpsim_write(&s, rnd() % live, 0, 0);
	fdpsim_reset_counters(&s);
	for (i = 0; i < 3 * pages; i++)
		if (fdpsim_write(&s, rnd() % live, 0, 0))
			break;
	waf = fdpsim_waf(&s);
	if (media)
		*media = s.media_pages;
	fdpsim_exit(&s);
	return waf;
}

/* The same with one handle at @op over-provisioning. */
static double uniform(double op, uint64_t live, uint64_t *media)
{
	struct fdpsim_params p = params(op, 1);

	return uniform_on(&p, live, media, NULL);
}

static void test_uniform(double op)
{
	double want = fdpsim_uniform_waf(op), got;

	logical = op < 0.1 ? 4 * LOGICAL : LOGICAL;
	got = uniform(op, logical, NULL);
	logical = LOGICAL;

	result(fabs(got - want) <= 0.03 * want,
	       "uniform random writes at %.0f%% over-provisioning: WAF %.3f, formula %.3f",
	       op * 100, got, want);
}

/* A fifth of the data discarded: the formula at the effective spare. */
static void test_discard(void)
{
	double op = 0.07, live = 0.8;
	double want = fdpsim_uniform_waf((1 + op) / live - 1);
	double got = uniform(op, LOGICAL * live, NULL);

	result(fabs(got - want) <= 0.03 * want,
	       "a fifth discarded: WAF %.3f, formula at %.1f%% effective spare %.3f",
	       got, ((1 + op) / live - 1) * 100, want);
}

/* @hot_share of writes go to @hot_frac of pages; separated or mixed. */
static enum fdpsim_gc_dest gc_dest = FDPSIM_GC_PER_HANDLE;

static double hotcold(double op, double hot_frac, double hot_share, bool separate)
{
	struct fdpsim_params p = params(op, 2);
	uint64_t hot = LOGICAL * hot_frac, i;
	struct fdpsim s;
	double waf;

	p.gc_dest = gc_dest;
	if (fdpsim_init(&s, &p))
		return -1;
	for (i = 0; i < LOGICAL; i++)
		fdpsim_write(&s, i, separate && i < hot, 0);
	for (i = 0; i < 5 * LOGICAL; i++) {
		bool h = (rnd() % 1000) < hot_share * 1000;
		uint64_t l = h ? rnd() % hot : hot + rnd() % (LOGICAL - hot);

		if (i == 2 * LOGICAL)
			fdpsim_reset_counters(&s);
		fdpsim_write(&s, l, separate && h, 0);
	}
	waf = fdpsim_waf(&s);
	fdpsim_exit(&s);
	return waf;
}

static void test_hotcold(void)
{
	double op = 0.28, want = fdpsim_uniform_waf(op);
	double sep = hotcold(op, 0.2, 0.8, true), mixed = hotcold(op, 0.2, 0.8, false);

	result(fabs(sep - want) <= 0.03 * want,
	       "80/20 hot/cold on two streams: WAF %.3f, uniform formula %.3f", sep, want);
	result(mixed > sep * 1.1, "80/20 hot/cold mixed on one stream is worse: WAF %.3f vs %.3f",
	       mixed, sep);
}

/*
 * Initially isolated handles (GC copies of all handles share units) keep
 * less of what hot/cold separation saves than persistently isolated ones
 * (copies stay with their handle's data).
 */
static void test_gc_dest(void)
{
	double op = 0.07, mixed, per_handle, shared;

	mixed = hotcold(op, 0.2, 0.8, false);
	per_handle = hotcold(op, 0.2, 0.8, true);
	gc_dest = FDPSIM_GC_SHARED;
	shared = hotcold(op, 0.2, 0.8, true);
	gc_dest = FDPSIM_GC_PER_HANDLE;
	result(per_handle < shared && shared <= mixed * 1.01,
	       "80/20 at 7%%: separation saves %.3f of WAF with per-handle GC, %.3f with shared",
	       mixed - per_handle, mixed - shared);
}

/* A preconditioned device maps every page, and counts from there. */
static void test_precondition(void)
{
	struct fdpsim_params p = params(0.28, 1);
	struct fdpsim s;

	if (fdpsim_init(&s, &p)) {
		result(0, "precondition: init");
		return;
	}
	fdpsim_precondition(&s);
	result(s.mapped == logical && !s.host_pages && !s.media_pages,
	       "preconditioning maps all %llu pages and starts the counters afresh",
	       (unsigned long long)s.mapped);
	fdpsim_exit(&s);
}

/*
 * Every handle holds a unit, as an NVMe reclaim unit handle always
 * references one: a handle never written still keeps a unit out of the
 * spare, a full unit is replaced at once, and on a device of 256 units a
 * host that writes one of 8 handles pays for the 7 others (not with
 * lazy_units).
 */
static double one_handle_of_eight(bool lazy, uint32_t *free_at_start)
{
	struct fdpsim_params p = params(0.07, 8);

	p.logical_pages = 256 * RU_PAGES;
	p.watermark = 2;
	p.gc_dest = FDPSIM_GC_SHARED;
	p.lazy_units = lazy;
	return uniform_on(&p, p.logical_pages, NULL, free_at_start);
}

static void test_held_units(void)
{
	struct fdpsim_params p = params(0.28, 4);
	uint32_t held_free, lazy_free, i, nr_rus;
	double held, lazy;
	struct fdpsim s;
	bool replaced;

	rng = 1;
	held = one_handle_of_eight(false, &held_free);
	rng = 1;
	lazy = one_handle_of_eight(true, &lazy_free);
	nr_rus = (uint32_t)(256 * RU_PAGES * 1.07) / RU_PAGES;
	result(held_free == nr_rus - 8 && lazy_free == nr_rus,
	       "8 handles hold 8 units from the start (%u of %u free), none when lazy (%u)",
	       held_free, nr_rus, lazy_free);
	result(lazy > 1 && held > lazy * 1.02,
	       "one handle of 8 written, 256 units at 7%%: WAF %.3f with units held, %.3f lazy",
	       held, lazy);

	if (fdpsim_init(&s, &p)) {
		result(0, "held units: init");
		return;
	}
	for (i = 0; i < RU_PAGES; i++)
		fdpsim_write(&s, i, 3, 0);
	replaced = s.open[3] != FDPSIM_NONE && s.fill[s.open[3]] == 0 &&
		   s.valid[s.open[3]] == 0;
	result(replaced && s.nr_free == s.nr_rus - 5,
	       "a handle whose unit fills points at a new empty one at once");
	fdpsim_exit(&s);

	/* Lazily, the filled unit is closed and the handle holds none. */
	p.lazy_units = true;
	if (fdpsim_init(&s, &p)) {
		result(0, "lazy units: init");
		return;
	}
	for (i = 0; i < RU_PAGES; i++)
		fdpsim_write(&s, i, 3, 0);
	result(s.open[3] == FDPSIM_NONE && s.nr_free == s.nr_rus - 1,
	       "lazily, a handle whose unit fills holds none until it writes again");
	fdpsim_exit(&s);
}

static void test_deterministic(void)
{
	uint64_t a, b;

	rng = 1;
	uniform(0.28, LOGICAL, &a);
	rng = 1;
	uniform(0.28, LOGICAL, &b);
	result(a == b, "same workload and seed, same result (%llu and %llu media pages)",
	       (unsigned long long)a, (unsigned long long)b);
}

static void test_params(void)
{
	struct fdpsim_params p = params(0.07, 8);
	const char *why;

	result(!fdpsim_check_params(&p), "sane parameters accepted");
	p.op = 0.001;
	why = fdpsim_check_params(&p);
	result(why && strstr(why, "too small"), "too little over-provisioning refused: %s",
	       why ? why : "accepted");
	p = params(0.07, 8);
	p.ru_pages = 0;
	result(!!fdpsim_check_params(&p), "zero-size reclaim unit refused");
	p = params(0.07, 200);
	result(!!fdpsim_check_params(&p), "200 handles refused");
	p = params(0.07, 8);
	p.logical_pages = 0;
	result(!!fdpsim_check_params(&p), "zero capacity refused");
}

static void test_parse(void)
{
	static const struct { const char *line; int ret; } cases[] = {
		{ "1.5 259,0 W 8 8 3 cgroup 42", 1 },
		{ "1.5 259:0 D 8 8 0 none 0", 1 },
		{ "# comment", 0 },
		{ "   ", 0 },
		{ "1.5 259,0 W 8 8 3 cgroup", -1 },
		{ "1.5 259,0 W 8 8 3 cgroup 42 extra", -1 },
		{ "x 259,0 W 8 8 3 cgroup 42", -1 },
		{ "1.5 259 W 8 8 3 cgroup 42", -1 },
		{ "1.5 259,0 R 8 8 3 cgroup 42", -1 },
		{ "1.5 259,0 W 8 0 3 cgroup 42", -1 },
		{ "1.5 259,0 W 8 8 300 cgroup 42", -1 },
		{ "-1 259,0 W 8 8 3 cgroup 42", -1 },
	};
	struct trace_rec r;
	const char *why;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		result(trace_parse_line(cases[i].line, &r, &why) == cases[i].ret,
		       "trace line '%s' parses as %d", cases[i].line, cases[i].ret);
	trace_parse_line("2.25 259,3 W 16 24 5 cgroup 77", &r, &why);
	result(r.major == 259 && r.minor == 3 && r.op == TRACE_WRITE && r.sector == 16 &&
	       r.sectors == 24 && r.stream == 5 && !strcmp(r.rule, "cgroup") && r.cgroup == 77,
	       "trace fields read back");
}

static void test_lambert(void)
{
	result(fabs(fdpsim_uniform_waf(0.07) - 7.82) < 0.01 &&
	       fabs(fdpsim_uniform_waf(0.28) - 2.48) < 0.01 &&
	       fabs(fdpsim_uniform_waf(0.50) - 1.72) < 0.01,
	       "formula gives 7.82, 2.48, 1.72 at 7%%, 28%%, 50%%");
}

static int bench(void)
{
	struct fdpsim_params p = params(0.28, 8);
	struct timespec t0, t1;
	struct fdpsim s;
	uint64_t i, writes = 8 * LOGICAL;
	double secs;

	if (fdpsim_init(&s, &p))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < writes; i++)
		fdpsim_write(&s, rnd() % LOGICAL, i & 7, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%llu host page writes (WAF %.2f, %llu media) in %.2f s\n",
	       (unsigned long long)writes, fdpsim_waf(&s), (unsigned long long)s.media_pages,
	       secs);
	printf("%.1f M host pages/s, %.1f M media pages/s; %zu bytes per logical page\n",
	       writes / secs / 1e6, s.media_pages / secs / 1e6, fdpsim_bytes_per_page(&s));
	fdpsim_exit(&s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return bench();
	printf("TAP version 13\n");
	test_lambert();
	test_params();
	test_parse();
	test_deterministic();
	test_uniform(0.07);
	test_uniform(0.28);
	test_uniform(0.50);
	test_discard();
	test_hotcold();
	test_gc_dest();
	test_precondition();
	test_held_units();
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
