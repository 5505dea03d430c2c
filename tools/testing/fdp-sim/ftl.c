// SPDX-License-Identifier: GPL-2.0
/*
 * fdp-sim device model: page mapping, one open reclaim unit per handle
 * (held from the start, as QEMU's and FEMU's FDP models hold one, unless
 * lazy_units), greedy garbage collection.  See fdpsim.h.
 *
 * Memory per logical page: 4 bytes of forward map, plus per physical page
 * (1 + op of them per logical page) 4 bytes of reverse map, 2 bytes of
 * cgroup and 1 byte of handle, to charge GC copies to whoever wrote the
 * data: 11.5 bytes at 7% over-provisioning, 14.5 at 50%.
 */
#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fdpsim.h"

/* Handle of the host write that put the data on each physical page. */
static uint8_t *page_handle_of(struct fdpsim *s)
{
	return (uint8_t *)(s->owner + (uint64_t)s->nr_rus * s->p.ru_pages);
}

/*
 * Open a free unit for handle @h in *@ru.  A unit is always free here, with
 * no slack at --watermark 2: after its GC loop a host write opens at most
 * one unit (held units: the refill of a full one), which leaves
 * watermark - 1; gc_one() opens at most one before it frees its victim,
 * as a victim holds under a unit's pages, all for one GC unit (per-handle
 * GC units take one handle's pages, as host units do).
 */
static inline void open_unit(struct fdpsim *s, uint32_t *ru, uint8_t h)
{
	assert(s->nr_free);
	*ru = s->free_list[--s->nr_free];
	s->fill[*ru] = 0;
	s->valid[*ru] = 0;
	s->ru_handle[*ru] = h;
}

/**
 * fdpsim_check_params() - can a device with these parameters work?
 *
 * Return: NULL, or a message saying what is impossible.
 */
const char *fdpsim_check_params(const struct fdpsim_params *p)
{
	uint64_t phys;

	if (!p->logical_pages)
		return "capacity is zero";
	if (!p->ru_pages)
		return "reclaim unit size is zero";
	if (!p->handles || p->handles > FDPSIM_MAX_HANDLES)
		return "handles must be 1 to 128";
	if (!(p->op > 0) || p->op > 10)
		return "over-provisioning must be above 0 and at most 1000%";
	phys = (uint64_t)(p->logical_pages * (1 + p->op));
	if (phys / p->ru_pages > UINT32_MAX - 1 || phys > UINT32_MAX - 1)
		return "device too large for 32-bit page numbers";
	/*
	 * Room for every open unit (host and GC, per handle), the free
	 * watermark, and one unit's worth of invalid pages for GC to win.
	 */
	if (phys / p->ru_pages < p->logical_pages / p->ru_pages + p->handles +
	    (p->gc_dest == FDPSIM_GC_SHARED ? 1 : p->handles) + p->watermark + 1)
		return "over-provisioning too small to garbage collect with these reclaim units";
	if (p->watermark < 2)
		return "watermark must be at least 2 free reclaim units";
	return NULL;
}

int fdpsim_init(struct fdpsim *s, const struct fdpsim_params *p)
{
	uint64_t phys;
	uint32_t i;

	if (fdpsim_check_params(p))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->nr_rus = (uint64_t)(p->logical_pages * (1 + p->op)) / p->ru_pages;
	phys = (uint64_t)s->nr_rus * p->ru_pages;
	s->l2p = malloc(p->logical_pages * sizeof(*s->l2p));
	s->p2l = malloc(phys * sizeof(*s->p2l));
	/* owner (2 bytes) and handle (1 byte) per physical page, one block */
	s->owner = malloc(phys * 3);
	s->valid = calloc(s->nr_rus, sizeof(*s->valid));
	s->fill = calloc(s->nr_rus, sizeof(*s->fill));
	s->ru_handle = calloc(s->nr_rus, 1);
	s->next = malloc(s->nr_rus * sizeof(*s->next));
	s->prev = malloc(s->nr_rus * sizeof(*s->prev));
	s->bucket = malloc((p->ru_pages + 1) * sizeof(*s->bucket));
	s->free_list = malloc(s->nr_rus * sizeof(*s->free_list));
	if (!s->l2p || !s->p2l || !s->owner || !s->valid || !s->fill || !s->ru_handle ||
	    !s->next || !s->prev || !s->bucket || !s->free_list) {
		fdpsim_exit(s);
		return -ENOMEM;
	}
	memset(s->l2p, 0xff, p->logical_pages * sizeof(*s->l2p));
	memset(s->p2l, 0xff, phys * sizeof(*s->p2l));
	memset(s->bucket, 0xff, (p->ru_pages + 1) * sizeof(*s->bucket));
	s->min_bucket = p->ru_pages + 1;
	for (i = 0; i < s->nr_rus; i++)
		s->free_list[i] = s->nr_rus - 1 - i;
	s->nr_free = s->nr_rus;
	for (i = 0; i < FDPSIM_MAX_HANDLES; i++) {
		s->open[i] = FDPSIM_NONE;
		s->gc_open[i] = FDPSIM_NONE;
	}
	/* Each handle references a unit from the start, written or not. */
	for (i = 0; !p->lazy_units && i < p->handles; i++)
		open_unit(s, &s->open[i], i);
	return 0;
}

void fdpsim_exit(struct fdpsim *s)
{
	free(s->l2p);
	free(s->p2l);
	free(s->owner);
	free(s->valid);
	free(s->fill);
	free(s->ru_handle);
	free(s->next);
	free(s->prev);
	free(s->bucket);
	free(s->free_list);
	free(s->windows);
	free(s->dw_media);
	memset(s, 0, sizeof(*s));
}

size_t fdpsim_bytes_per_page(const struct fdpsim *s)
{
	uint64_t phys = (uint64_t)s->nr_rus * s->p.ru_pages;
	uint64_t bytes = s->p.logical_pages * sizeof(*s->l2p) + phys * (4 + 3) +
			 (uint64_t)s->nr_rus * 21 + (s->p.ru_pages + 1) * 4;

	return (bytes + s->p.logical_pages - 1) / s->p.logical_pages;
}

/* Full RUs sit in a list per valid count, for greedy victim choice. */
static inline void bucket_add(struct fdpsim *s, uint32_t ru)
{
	uint32_t v = s->valid[ru], head = s->bucket[v];

	s->prev[ru] = FDPSIM_NONE;
	s->next[ru] = head;
	if (head != FDPSIM_NONE)
		s->prev[head] = ru;
	s->bucket[v] = ru;
	if (v < s->min_bucket)
		s->min_bucket = v;
}

static inline void bucket_del(struct fdpsim *s, uint32_t ru)
{
	uint32_t v = s->valid[ru];

	if (s->prev[ru] != FDPSIM_NONE)
		s->next[s->prev[ru]] = s->next[ru];
	else
		s->bucket[v] = s->next[ru];
	if (s->next[ru] != FDPSIM_NONE)
		s->prev[s->next[ru]] = s->prev[ru];
}

/* Full units are closed and sit in the GC lists; the victim is taken out. */
static bool ru_is_full(const struct fdpsim *s, uint32_t ru)
{
	return s->fill[ru] == s->p.ru_pages;
}

static inline void invalidate(struct fdpsim *s, uint32_t ppage)
{
	uint32_t ru = ppage / s->p.ru_pages;

	s->p2l[ppage] = FDPSIM_NONE;
	if (ru_is_full(s, ru)) {
		bucket_del(s, ru);
		s->valid[ru]--;
		bucket_add(s, ru);
	} else {
		s->valid[ru]--;
	}
}

/* Place logical page @l on the next page of *@ru, opening a unit if needed. */
static inline void append(struct fdpsim *s, uint32_t *ru, uint32_t l, uint16_t cg, uint8_t h)
{
	uint32_t pp;

	if (*ru == FDPSIM_NONE)
		open_unit(s, ru, h);
	pp = *ru * s->p.ru_pages + s->fill[*ru]++;
	if (s->tm) {
		struct fdpsim_timing *tm = s->tm;
		uint64_t *b = &tm->busy[pp % tm->units];

		*b = (*b > tm->ready ? *b : tm->ready) + tm->t_prog;
		tm->done = *b;
	}
	s->valid[*ru]++;
	s->p2l[pp] = l;
	s->l2p[l] = pp;
	s->owner[pp] = cg;
	page_handle_of(s)[pp] = h;
	s->media_pages++;
	s->all_media++;
	/* A full unit is closed at once: full units are the GC candidates. */
	if (ru_is_full(s, *ru)) {
		bucket_add(s, *ru);
		*ru = FDPSIM_NONE;
	}
}

/* Reclaim the full unit with the fewest valid pages. */
static int gc_one(struct fdpsim *s)
{
	uint32_t ru, i, base;
	uint8_t *ph = page_handle_of(s);

	while (s->min_bucket <= s->p.ru_pages && s->bucket[s->min_bucket] == FDPSIM_NONE)
		s->min_bucket++;
	if (s->min_bucket >= s->p.ru_pages)
		return -ENOSPC;	/* nothing to win: every full unit is valid */
	if (!s->full) {
		/* Free space ran out: drive writes after full count from here. */
		s->full = true;
		s->full_host = s->all_host;
		s->dw_media_start = s->all_media;
	}
	ru = s->bucket[s->min_bucket];
	bucket_del(s, ru);
	s->victims++;
	s->victim_valid += s->valid[ru];
	base = ru * s->p.ru_pages;
	for (i = 0; i < s->p.ru_pages && s->valid[ru]; i++) {
		uint32_t l = s->p2l[base + i];
		uint8_t h = ph[base + i];
		uint16_t cg = s->owner[base + i];

		/* Each copy's forward map entry is a cache miss: fetch ahead. */
		if (i + 32 < s->p.ru_pages && s->p2l[base + i + 32] != FDPSIM_NONE)
			__builtin_prefetch(&s->l2p[s->p2l[base + i + 32]], 1);

		if (l == FDPSIM_NONE)
			continue;
		s->p2l[base + i] = FDPSIM_NONE;
		s->valid[ru]--;
		if (s->tm) {
			uint64_t *b = &s->tm->busy[(base + i) % s->tm->units];

			*b = (*b > s->tm->now ? *b : s->tm->now) + s->tm->t_read;
			s->tm->ready = *b;
		}
		append(s, &s->gc_open[s->p.gc_dest == FDPSIM_GC_SHARED ? 0 : h], l, cg, h);
		s->gc_pages++;
		s->gc_by_handle[h]++;
		s->gc_by_cgroup[cg % FDPSIM_MAX_CGROUPS]++;
	}
	if (s->tm) {
		/*
		 * Each unit erases its share of the victim: its pages in erase
		 * blocks of block_pages, pro rata, so that scaled-down units
		 * (fewer pages than a block per unit) cost what their share of
		 * a real unit's erase would.
		 */
		uint32_t u, n = s->p.ru_pages < s->tm->units ? s->p.ru_pages : s->tm->units;
		uint64_t per = (uint64_t)((double)s->tm->t_erase * s->p.ru_pages / n /
					  s->tm->block_pages);

		for (u = 0; u < n; u++) {
			uint64_t *b = &s->tm->busy[(base + u) % s->tm->units];

			*b = (*b > s->tm->now ? *b : s->tm->now) + per;
		}
	}
	s->fill[ru] = 0;
	s->free_list[s->nr_free++] = ru;
	return 0;
}

static void close_window(struct fdpsim *s)
{
	if (s->nr_windows == s->cap_windows) {
		uint64_t cap = s->cap_windows ? 2 * s->cap_windows : 1024;
		struct fdpsim_window *w = realloc(s->windows, cap * sizeof(*w));

		if (!w)
			return;
		s->windows = w;
		s->cap_windows = cap;
	}
	s->windows[s->nr_windows].host = s->host_pages - s->win_host_start;
	s->windows[s->nr_windows].media = s->media_pages - s->win_media_start;
	s->nr_windows++;
	s->win_host_start = s->host_pages;
	s->win_media_start = s->media_pages;
}

/* A whole drive write after the first GC ended: keep its media pages. */
static void close_dw(struct fdpsim *s)
{
	if (s->nr_dw == s->cap_dw) {
		uint64_t cap = s->cap_dw ? 2 * s->cap_dw : 64;
		uint64_t *m = realloc(s->dw_media, cap * sizeof(*m));

		if (!m)
			return;
		s->dw_media = m;
		s->cap_dw = cap;
	}
	s->dw_media[s->nr_dw++] = s->all_media - s->dw_media_start;
	s->dw_media_start = s->all_media;
}

/**
 * fdpsim_write() - a host write of one page through a placement handle
 *
 * Return: 0, -ERANGE for a page past the capacity or a handle the device
 * lacks, -ENOSPC when garbage collection cannot free a unit.
 */
int fdpsim_write(struct fdpsim *s, uint64_t lpage, uint32_t handle, uint16_t cgroup)
{
	uint32_t old;

	if (lpage >= s->p.logical_pages || handle >= s->p.handles)
		return -ERANGE;
	old = s->l2p[lpage];
	if (old != FDPSIM_NONE)
		invalidate(s, old);
	else
		s->mapped++;
	while (s->nr_free < s->p.watermark)
		if (gc_one(s))
			return -ENOSPC;
	if (s->tm)
		s->tm->ready = s->tm->now;
	append(s, &s->open[handle], lpage, cgroup, handle);
	/* The handle points at a new unit as soon as its unit is full. */
	if (!s->p.lazy_units && s->open[handle] == FDPSIM_NONE)
		open_unit(s, &s->open[handle], handle);
	s->host_pages++;
	s->all_host++;
	s->host_by_handle[handle]++;
	if (s->full && s->all_host - s->full_host == (s->nr_dw + 1) * s->p.logical_pages)
		close_dw(s);
	if (s->p.window && s->host_pages - s->win_host_start >= s->p.window)
		close_window(s);
	return 0;
}

void fdpsim_discard(struct fdpsim *s, uint64_t lpage)
{
	if (lpage >= s->p.logical_pages || s->l2p[lpage] == FDPSIM_NONE)
		return;
	invalidate(s, s->l2p[lpage]);
	s->l2p[lpage] = FDPSIM_NONE;
	s->mapped--;
	s->discarded_pages++;
}

/*
 * A used drive: every logical page written once, in order, through handle
 * 0, and the counters started afresh.  The trace then overwrites it.  GC
 * copies of this data are charged to the last cgroup slot.
 */
void fdpsim_precondition(struct fdpsim *s)
{
	uint64_t i;

	for (i = 0; i < s->p.logical_pages; i++)
		fdpsim_write(s, i, 0, FDPSIM_MAX_CGROUPS - 1);
	fdpsim_reset_counters(s);
	/* The trace's drive writes start here (the fill needs no GC). */
	s->all_host = 0;
	s->all_media = 0;
	s->full = false;
	s->nr_dw = 0;
}

double fdpsim_waf(const struct fdpsim *s)
{
	return s->host_pages ? (double)s->media_pages / s->host_pages : 0;
}

/* WAF of the @i-th whole drive write after the first GC. */
double fdpsim_dw_waf(const struct fdpsim *s, uint64_t i)
{
	return i < s->nr_dw ? (double)s->dw_media[i] / s->p.logical_pages : 0;
}

/**
 * fdpsim_steady() - has WAF stopped changing?
 *
 * Steady when the WAF of the last whole drive write after the first GC is
 * within FDPSIM_STEADY_TOL of the one before it.
 */
enum fdpsim_steady fdpsim_steady(const struct fdpsim *s)
{
	double last, prev;

	if (!s->full)
		return FDPSIM_NEVER_FULL;
	if (s->nr_dw < 2)
		return FDPSIM_SHORT;
	last = fdpsim_dw_waf(s, s->nr_dw - 1);
	prev = fdpsim_dw_waf(s, s->nr_dw - 2);
	return fabs(last - prev) <= FDPSIM_STEADY_TOL * prev ? FDPSIM_STEADY : FDPSIM_CHANGING;
}

/* Start counting afresh, keeping the device's state (after a warm-up). */
void fdpsim_reset_counters(struct fdpsim *s)
{
	s->host_pages = 0;
	s->media_pages = 0;
	s->gc_pages = 0;
	s->discarded_pages = 0;
	s->victims = 0;
	s->victim_valid = 0;
	memset(s->gc_by_handle, 0, sizeof(s->gc_by_handle));
	memset(s->host_by_handle, 0, sizeof(s->host_by_handle));
	memset(s->gc_by_cgroup, 0, sizeof(s->gc_by_cgroup));
	s->nr_windows = 0;
	s->win_host_start = 0;
	s->win_media_start = 0;
}

/* Principal branch of Lambert W, for x in [-1/e, 0]: Halley iteration. */
double fdpsim_lambert_w0(double x)
{
	double w = x < -0.25 ? -1 + sqrt(2 * (1 + M_E * x)) : x;
	int i;

	for (i = 0; i < 64; i++) {
		double e = exp(w), f = w * e - x, d;

		if (w == -1)
			break;
		d = f / (e * (w + 1) - (w + 2) * f / (2 * w + 2));
		w -= d;
		if (fabs(d) < 4 * DBL_EPSILON)
			break;
	}
	return w;
}

/*
 * WAF of uniform random overwrites with physical/logical ratio a under
 * greedy GC, in the limit of many pages per unit: a / (a + W0(-a e^-a)).
 */
double fdpsim_uniform_waf(double op)
{
	double a = 1 + op;

	return a / (a + fdpsim_lambert_w0(-a * exp(-a)));
}
