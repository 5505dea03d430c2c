/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fdp-sim: a trace-driven model of an SSD with Flexible Data Placement.
 *
 * Logical space is mapped in 4 KiB pages onto reclaim units (RUs) of the
 * physical space.  Each placement handle writes into one open RU; garbage
 * collection (GC) picks the full RU with the fewest valid pages (greedy),
 * copies its valid pages and frees it, whenever fewer than a watermark of
 * RUs are free.  Stream N writes through placement handle N - 1 and a write
 * with no stream through handle 0, as the Linux NVMe driver and the device
 * do.  Write amplification (WAF) is media pages written over host pages
 * written.
 */
#ifndef FDPSIM_H
#define FDPSIM_H

#include <stdbool.h>
#include <stdint.h>

#define FDPSIM_PAGE_SIZE	4096u
#define FDPSIM_NONE		UINT32_MAX
#define FDPSIM_MAX_HANDLES	128
#define FDPSIM_MAX_CGROUPS	4096

/* Where GC writes the pages it copies. */
enum fdpsim_gc_dest {
	FDPSIM_GC_PER_HANDLE,	/* a GC unit per handle: handles stay apart */
	FDPSIM_GC_SHARED,	/* one GC unit for all handles */
};

/*
 * The "field" device (fdp-sim --device field): the parameters with which
 * the model reproduces seed 000's raw-device results (tests/calibrate.c,
 * README.rst), reclaim units a 1/FDPSIM_FIELD_UNITS of the capacity.
 */
#define FDPSIM_FIELD_OP		0.15
#define FDPSIM_FIELD_GC_DEST	FDPSIM_GC_PER_HANDLE
#define FDPSIM_FIELD_UNITS	1024

struct fdpsim_params {
	uint64_t logical_pages;		/* host-visible capacity */
	double op;			/* over-provisioning: physical/logical - 1 */
	uint32_t ru_pages;		/* pages per reclaim unit */
	uint32_t handles;		/* placement handles */
	uint32_t watermark;		/* GC when fewer RUs than this are free */
	enum fdpsim_gc_dest gc_dest;
	uint64_t window;		/* host pages per WAF window, 0: none */
	/*
	 * false: every handle holds an open unit for host writes at all
	 * times and gets a new one as soon as its unit fills: an NVMe reclaim
	 * unit handle always references a reclaim unit, and QEMU's and FEMU's
	 * FDP models take one per handle at start (whether a drive keeps an
	 * unwritten referenced unit out of its spare is its firmware's
	 * choice).  true: a handle takes a unit at its first write and none
	 * after its unit fills, until it writes again, so a handle never
	 * written costs no spare space.
	 */
	bool lazy_units;
};

/*
 * Optional timing of the flash behind the FTL: @units parallel units
 * (dies), physical page p on unit p % units (reclaim units striped across
 * them), each doing one read, program or erase at a time.  A host write
 * arrives at @now; the GC it triggers is queued first, so it waits behind
 * that work on its unit.  A GC copy reads on the victim's unit, then
 * programs on the destination's; a victim's erase occupies each unit it
 * spans, for its share of erase blocks of @block_pages.  Times in ns.
 */
struct fdpsim_timing {
	uint32_t units, block_pages;
	uint64_t t_read, t_prog, t_erase;
	uint64_t now;			/* arrival of the current host write */
	uint64_t done;			/* out: its completion */
	uint64_t ready;			/* internal: when the data to program is there */
	uint64_t *busy;			/* unit -> busy until */
};

struct fdpsim_window {
	uint64_t host, media;
};

struct fdpsim {
	struct fdpsim_params p;
	uint32_t nr_rus;
	uint32_t *l2p;			/* logical page -> physical page */
	uint32_t *p2l;			/* physical page -> logical page */
	uint16_t *owner;		/* physical page -> cgroup slot */
	uint32_t *valid;		/* RU -> valid pages */
	uint32_t *fill;			/* RU -> pages written */
	uint8_t *ru_handle;		/* RU -> handle it was opened for */
	/* Greedy victim choice: full RUs in lists by valid count. */
	uint32_t *next, *prev;		/* RU list links */
	uint32_t *bucket;		/* valid count -> first RU */
	uint32_t min_bucket;		/* no full RU has fewer valid pages */
	uint32_t *free_list;		/* stack of free RUs */
	uint32_t nr_free;
	uint32_t open[FDPSIM_MAX_HANDLES];	/* host-write RU per handle */
	uint32_t gc_open[FDPSIM_MAX_HANDLES];	/* GC RU per handle (or [0]) */
	struct fdpsim_timing *tm;	/* NULL: no timing */
	/* Results */
	uint64_t mapped;		/* logical pages holding data */
	uint64_t host_pages, media_pages, gc_pages, discarded_pages;
	uint64_t victims, victim_valid;
	uint64_t gc_by_handle[FDPSIM_MAX_HANDLES];
	uint64_t host_by_handle[FDPSIM_MAX_HANDLES];
	uint64_t gc_by_cgroup[FDPSIM_MAX_CGROUPS];
	struct fdpsim_window *windows;
	uint64_t nr_windows, cap_windows;
	uint64_t win_host_start, win_media_start;
	/*
	 * Steady state: from the first GC on, the media pages of each whole
	 * drive write (logical_pages host pages).  Counted from the start of
	 * the trace (or of preconditioning's end), warm-up or not.
	 */
	uint64_t all_host, all_media;	/* never reset by reset_counters */
	uint64_t full_host;		/* all_host at the first GC */
	uint64_t dw_media_start;	/* all_media at the current DW's start */
	bool full;			/* GC has run */
	uint64_t *dw_media;		/* media pages of each whole DW after full */
	uint64_t nr_dw, cap_dw;
};

const char *fdpsim_check_params(const struct fdpsim_params *p);
int fdpsim_init(struct fdpsim *s, const struct fdpsim_params *p);
void fdpsim_exit(struct fdpsim *s);
int fdpsim_write(struct fdpsim *s, uint64_t lpage, uint32_t handle, uint16_t cgroup);
void fdpsim_precondition(struct fdpsim *s);

/* A write of @lpage is coming: fetch its forward map entry ahead. */
static inline void fdpsim_prefetch(const struct fdpsim *s, uint64_t lpage)
{
	if (lpage < s->p.logical_pages)
		__builtin_prefetch(&s->l2p[lpage], 1);
}

void fdpsim_discard(struct fdpsim *s, uint64_t lpage);
double fdpsim_waf(const struct fdpsim *s);

/* The steady-state check: the last whole DW's WAF within 2% of the one before. */
#define FDPSIM_STEADY_TOL	0.02

enum fdpsim_steady {
	FDPSIM_STEADY,		/* the last two whole DWs within FDPSIM_STEADY_TOL */
	FDPSIM_NEVER_FULL,	/* GC never ran */
	FDPSIM_SHORT,		/* fewer than two whole DWs after the first GC */
	FDPSIM_CHANGING,	/* the last two whole DWs differ by more */
};

double fdpsim_dw_waf(const struct fdpsim *s, uint64_t i);
enum fdpsim_steady fdpsim_steady(const struct fdpsim *s);
void fdpsim_reset_counters(struct fdpsim *s);
size_t fdpsim_bytes_per_page(const struct fdpsim *s);

/* Analytic WAF of uniform random writes under greedy GC with many pages per unit. */
double fdpsim_uniform_waf(double op);
double fdpsim_lambert_w0(double x);

#endif /* FDPSIM_H */
