// SPDX-License-Identifier: GPL-2.0
/*
 * fdp-sim: replay a block trace (see trace.h; text or binary, read once as
 * a stream) on a model FDP SSD and report write amplification and whether
 * it has settled; optionally also the offline bound (death-time binning),
 * the best placement of the same writes by their known death times (from
 * a backward pass over a spill file) that a search of binnings finds, and
 * the write throughput and latency the flash behind the model would give.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fdpsim.h"
#include "trace.h"

#define SECTORS_PER_PAGE	(FDPSIM_PAGE_SIZE / 512)
#define NEVER			UINT64_MAX
#define ARRAY_SIZE(x)		(sizeof(x) / sizeof((x)[0]))

/* A trace record at page granularity, as the model replays it. */
struct op {
	uint64_t page;		/* first page */
	uint32_t pages;
	uint8_t discard;
	uint8_t handle;		/* placement handle the kernel chose */
	uint16_t cgroup;	/* cgroup slot */
};

/* The input trace, read once as a stream: text or binary. */
struct src {
	FILE *f;
	const char *name;
	bool binary;
	unsigned long lineno;		/* text: line; binary: record */
	struct trace_header hdr;	/* what its "# device" header says */
	bool records;			/* a record was read */
	bool have_disk;
	unsigned int major, minor;
	double last;
	uint64_t pages;			/* capacity, 0 until known */
	uint32_t handles;
	bool pending;			/* rec was read ahead by src_start() */
	struct trace_rec rec;
	uint64_t cgroup_ids[FDPSIM_MAX_CGROUPS];
	unsigned int nr_cgroups;
	uint64_t bin_ids[FDPSIM_MAX_CGROUPS];	/* binary: file slot -> cgroup ID */
	bool bin_end;
	uint64_t write_pages;
};

static void print_usage(FILE *f)
{
	fputs("usage: fdp-sim [options] TRACE (- for standard input; text or binary)\n"
	      "       fdp-sim --convert OUT [--capacity BYTES] [--disk MAJ:MIN] TEXT-TRACE\n"
	      "  --capacity BYTES   logical capacity of the disk (K, M, G; required\n"
	      "                     unless the trace header records it)\n"
	      "  --device field     the calibrated field device (README.rst): 15%% OP,\n"
	      "                     units of 1/1024 of the capacity, preconditioned\n"
	      "  --op PCT           over-provisioning in percent of capacity      [7]\n"
	      "  --ru-size BYTES    reclaim unit size                              [1M]\n"
	      "  --handles N        placement handles                              [8]\n"
	      "  --watermark N      garbage collect below N free reclaim units     [4]\n"
	      "  --gc-dest D        per-handle or shared: where GC writes copies\n"
	      "                     [the trace's handle type, else per-handle]\n"
	      "  --precondition     map every logical page before the trace starts\n"
	      "  --lazy-units       a handle takes a reclaim unit only when it writes\n"
	      "                     (default: every handle holds one, as QEMU and\n"
	      "                     FEMU model an NVMe FDP handle)\n"
	      "  --window BYTES     also report WAF per window of host writes\n"
	      "  --warmup BYTES     count only after this many host bytes\n"
	      "  --disk MAJ:MIN     replay only this disk's records (default: the first seen)\n"
	      "  --oracle N         also compute the offline bound (death-time binning)\n"
	      "                     with N handles (0: --handles)\n"
	      "  --bound-max N      try at most N binnings for the bound            [384]\n"
	      "  --offered-load L   also time the writes on the flash: L is 'trace' (the\n"
	      "                     trace's times), 'max' (--qd writes in flight) or\n"
	      "                     BYTES per second; reports throughput and latency\n"
	      "  --flash U,R,P,E[,B]  parallel flash units, read, program and erase\n"
	      "                     times in us, pages per erase block [64,40,200,2000,256]\n"
	      "  --qd N             writes in flight with --offered-load max       [64]\n"
	      "  --resources        report CPU time, wall time and peak memory\n"
	      "  --convert OUT      write the trace in binary form to OUT, replay nothing\n", f);
}

static int parse_bytes(const char *s, uint64_t *v)
{
	static const char units[] = "kmg";
	const char *unit;
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || x < 0)
		return -1;
	if (*end) {
		unit = strchr(units, *end | 0x20);
		if (!unit || end[1])
			return -1;
		x *= pow(1024, unit - units + 1);
	}
	*v = (uint64_t)x;
	return 0;
}

static unsigned int cgroup_slot(struct src *t, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < t->nr_cgroups; i++)
		if (t->cgroup_ids[i] == id)
			return i;
	if (t->nr_cgroups == FDPSIM_MAX_CGROUPS)
		return FDPSIM_MAX_CGROUPS - 1;	/* the rest share the last slot */
	t->cgroup_ids[t->nr_cgroups] = id;
	return t->nr_cgroups++;
}

/* Say what is wrong with the trace, where: FILE:LINE (binary: record). */
static int src_err(const struct src *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%lu: ", t->name, t->lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static int header_seen(struct src *t)
{
	if (t->records)
		return src_err(t, "device header after the first record");
	if (!t->pages && t->hdr.capacity) {
		if (t->hdr.capacity % FDPSIM_PAGE_SIZE)
			return src_err(t, "capacity is not whole 4 KiB pages");
		t->pages = t->hdr.capacity / FDPSIM_PAGE_SIZE;
	}
	if (t->hdr.capacity && t->hdr.capacity != t->pages * FDPSIM_PAGE_SIZE)
		return src_err(t, "the trace is of a %llu-byte disk, the model's is %llu bytes",
			(unsigned long long)t->hdr.capacity,
			(unsigned long long)(t->pages * FDPSIM_PAGE_SIZE));
	return 0;
}

/* The next record of a text trace: 1, 0 at the end, -1 bad (said). */
static int text_next(struct src *t, struct trace_rec *r)
{
	char line[1024];

	while (fgets(line, sizeof(line), t->f)) {
		const char *why = NULL;
		int ret;

		t->lineno++;
		if (!strchr(line, '\n') && !feof(t->f))
			return src_err(t, "line too long");
		if (feof(t->f) && !strchr(line, '\n') && line[0])
			return src_err(t, "truncated record (no end of line)");
		ret = trace_parse_header(line, &t->hdr, &why);
		if (ret > 0) {
			if (header_seen(t))
				return -1;
			continue;
		}
		if (!ret)
			ret = trace_parse_line(line, r, &why);
		if (ret < 0)
			return src_err(t, "%s", why);
		if (ret)
			return 1;
	}
	if (ferror(t->f))
		return src_err(t, "read error");
	return 0;
}

/* The next record of a binary trace. */
static int bin_next(struct src *t, struct trace_rec *r)
{
	struct trace_bin_rec b;
	size_t n;

	for (;;) {
		n = fread(&b, 1, sizeof(b), t->f);
		if (n != sizeof(b)) {
			if (ferror(t->f))
				return src_err(t, "read error");
			if (t->bin_end && !n)
				return 0;
			if (n)
				return src_err(t, "truncated binary trace (a partial record)");
			return src_err(t, "truncated binary trace (no end record)");
		}
		if (t->bin_end)
			return src_err(t, "data after the end record");
		t->lineno++;
		switch (b.op) {
		case TRACE_BIN_CGROUP:
			if (b.cgroup >= FDPSIM_MAX_CGROUPS)
				return src_err(t, "cgroup slot %u out of range", b.cgroup);
			t->bin_ids[b.cgroup] = b.sector;
			continue;
		case TRACE_BIN_END:
			if (b.sector != t->lineno - 1)
				return src_err(t,
					       "end record counts %llu records, the file has %lu",
					(unsigned long long)b.sector, t->lineno - 1);
			t->bin_end = true;
			continue;
		case 'W':
		case 'D':
		case 'Z':
			break;
		default:
			return src_err(t, "unknown binary record type %u", b.op);
		}
		if (!b.sectors)
			return src_err(t, "SECTORS must be 1 to 2^32 - 1");
		if (b.cgroup >= FDPSIM_MAX_CGROUPS)
			return src_err(t, "cgroup slot %u out of range", b.cgroup);
		r->time = b.time_ns / 1e9;
		r->major = t->major;
		r->minor = t->minor;
		r->op = b.op == 'W' ? TRACE_WRITE : b.op == 'D' ? TRACE_DISCARD : TRACE_ZEROES;
		r->sector = b.sector;
		r->sectors = b.sectors;
		r->stream = b.stream;
		r->rule[0] = 0;
		r->cgroup = t->bin_ids[b.cgroup];
		t->records = true;
		return 1;
	}
}

static int src_next_rec(struct src *t, struct trace_rec *r)
{
	if (t->pending) {
		t->pending = false;
		*r = t->rec;
		return 1;
	}
	return t->binary ? bin_next(t, r) : text_next(t, r);
}

/* Read the header (and, for text, up to the first record). */
static int src_start(struct src *t, const char *want_disk)
{
	int c, ret;

	if (want_disk) {
		if (sscanf(want_disk, "%u%*[,:]%u", &t->major, &t->minor) != 2) {
			fprintf(stderr, "fdp-sim: --disk: '%s' is not MAJ:MIN\n", want_disk);
			return -1;
		}
		t->have_disk = true;
	}
	c = getc(t->f);
	if (c != EOF)
		ungetc(c, t->f);
	if (c == TRACE_BIN_MAGIC[0]) {
		struct trace_bin_header h;

		t->binary = true;
		if (fread(&h, sizeof(h), 1, t->f) != 1 ||
		    memcmp(h.magic, TRACE_BIN_MAGIC, sizeof(h.magic)))
			return src_err(t, "not an fdp-sim binary trace (bad or short header)");
		if (h.ruh_type > TRACE_RUHT_PERSISTENTLY)
			return src_err(t, "binary header: unknown handle type %u", h.ruh_type);
		if (t->have_disk && (t->major != h.major || t->minor != h.minor))
			return src_err(t, "the binary trace is of disk %u:%u only",
				       h.major, h.minor);
		t->major = h.major;
		t->minor = h.minor;
		t->have_disk = true;
		t->hdr.capacity = h.capacity;
		t->hdr.ruh_type = h.ruh_type;
		return header_seen(t);
	}
	ret = text_next(t, &t->rec);
	if (ret < 0)
		return -1;
	t->pending = ret > 0;
	return 0;
}

/*
 * The next record of the chosen disk (the first one seen unless --disk),
 * in time order: 1, 0 at the end, -1 bad (said).
 */
static int src_next_disk_rec(struct src *t, struct trace_rec *r)
{
	int ret;

	for (;;) {
		ret = src_next_rec(t, r);
		if (ret <= 0)
			return ret;
		t->records = true;
		if (!t->have_disk) {
			t->major = r->major;
			t->minor = r->minor;
			t->have_disk = true;
		}
		if (r->major != t->major || r->minor != t->minor)
			continue;
		if (r->time < t->last)
			return src_err(t, "time goes back (%.6f after %.6f)", r->time, t->last);
		t->last = r->time;
		return 1;
	}
}

/* The next operation of the chosen disk: 1, 0 at the end, -1 bad (said). */
static int src_next_op(struct src *t, struct op *o)
{
	struct trace_rec r;
	uint64_t end;
	int ret;

	for (;;) {
		ret = src_next_disk_rec(t, &r);
		if (ret <= 0)
			return ret;
		if (!t->pages)
			return src_err(t, "no --capacity, and the trace has no device header");
		end = r.sector + r.sectors;
		if (end > t->pages * SECTORS_PER_PAGE)
			return src_err(t, "sectors %llu..%llu are past the capacity (%llu sectors)",
				(unsigned long long)r.sector, (unsigned long long)end - 1,
				(unsigned long long)(t->pages * SECTORS_PER_PAGE));
		memset(o, 0, sizeof(*o));
		if (r.op == TRACE_WRITE) {
			/* A partial page is written whole (read-modify-write). */
			o->page = r.sector / SECTORS_PER_PAGE;
			o->pages = (end + SECTORS_PER_PAGE - 1) / SECTORS_PER_PAGE - o->page;
			o->handle = r.stream ? r.stream - 1 : 0;
			if (o->handle >= t->handles)
				return src_err(t, "stream %u but the device has %u handles",
					       r.stream,
					t->handles);
			t->write_pages += o->pages;
		} else {
			/* Only whole pages are unmapped. */
			o->page = (r.sector + SECTORS_PER_PAGE - 1) / SECTORS_PER_PAGE;
			if (end / SECTORS_PER_PAGE <= o->page)
				continue;
			o->pages = end / SECTORS_PER_PAGE - o->page;
			o->discard = 1;
		}
		o->cgroup = cgroup_slot(t, r.cgroup);
		return 1;
	}
}

/* --convert: the chosen disk's records, in binary form. */
static int convert(struct src *t, const char *out)
{
	struct trace_bin_header h = { .magic = TRACE_BIN_MAGIC };
	struct trace_bin_rec b;
	struct trace_rec r;
	bool known[FDPSIM_MAX_CGROUPS] = {};
	uint64_t n = 0;
	FILE *f;
	int ret;

	f = fopen(out, "w");
	if (!f) {
		fprintf(stderr, "fdp-sim: %s: %s\n", out, strerror(errno));
		return 1;
	}
	/* The header is rewritten at the end, when the disk is known. */
	fwrite(&h, sizeof(h), 1, f);
	while ((ret = src_next_disk_rec(t, &r)) > 0) {
		unsigned int slot;

		slot = cgroup_slot(t, r.cgroup);
		if (!known[slot]) {
			memset(&b, 0, sizeof(b));
			b.op = TRACE_BIN_CGROUP;
			b.sector = r.cgroup;
			b.cgroup = slot;
			fwrite(&b, sizeof(b), 1, f);
			known[slot] = true;
			n++;
		}
		memset(&b, 0, sizeof(b));
		b.time_ns = (uint64_t)(r.time * 1e9 + 0.5);
		b.sector = r.sector;
		b.sectors = r.sectors;
		b.op = r.op == TRACE_WRITE ? 'W' : r.op == TRACE_DISCARD ? 'D' : 'Z';
		b.stream = r.stream;
		b.cgroup = slot;
		fwrite(&b, sizeof(b), 1, f);
		n++;
	}
	memset(&b, 0, sizeof(b));
	b.op = TRACE_BIN_END;
	b.sector = n;
	fwrite(&b, sizeof(b), 1, f);
	h.capacity = t->pages ? t->pages * FDPSIM_PAGE_SIZE : t->hdr.capacity;
	h.ruh_type = t->hdr.ruh_type;
	h.major = t->major;
	h.minor = t->minor;
	rewind(f);
	fwrite(&h, sizeof(h), 1, f);
	if (fclose(f) || ret < 0) {
		if (!ret)
			fprintf(stderr, "fdp-sim: %s: write error\n", out);
		unlink(out);
		return 1;
	}
	return 0;
}

#define HIST_SUB	32	/* buckets per power of two */
#define HIST_N		(64 * HIST_SUB)
#define CHUNK		65536

static unsigned int hist_bucket(uint64_t v)
{
	unsigned int e;

	if (v < HIST_SUB)
		return v;
	e = 63 - __builtin_clzll(v);	/* >= 5 */
	return (e - 4) * HIST_SUB + ((v >> (e - 5)) & (HIST_SUB - 1));
}

static uint64_t hist_floor(unsigned int b)
{
	unsigned int e;

	if (b < HIST_SUB)
		return b;
	e = b / HIST_SUB + 4;
	return (uint64_t)(HIST_SUB + b % HIST_SUB) << (e - 5);
}

/* --offered-load and the latency of each host page write. */
struct clock {
	struct fdpsim_timing tm;
	double load;			/* bytes/s; 0: the trace's times; < 0: max */
	uint32_t qd;			/* with max: writes in flight */
	uint64_t *ring;			/* with max: completions of the last qd */
	uint64_t arrival, first, last_done, n;
	double sum;			/* of latencies, ns */
	uint64_t hist[HIST_N];		/* latency, ns */
};

/* Replay state: warm-up, and where the written pages go. */
struct player {
	struct fdpsim *s;
	uint64_t warmup, w;
	bool counting;
	struct clock *clk;		/* NULL: no timing */
	uint64_t time_ns;		/* the current record's time */
};

static void clock_before(struct player *pl)
{
	struct clock *c = pl->clk;
	uint64_t a;

	if (c->load > 0)
		a = (uint64_t)(pl->w * (double)FDPSIM_PAGE_SIZE * 1e9 / c->load);
	else if (c->load < 0)
		a = c->ring[pl->w % c->qd] > c->arrival ? c->ring[pl->w % c->qd] : c->arrival;
	else
		a = pl->time_ns;
	c->arrival = a;
	c->tm.now = a;
}

static void clock_after(struct player *pl)
{
	struct clock *c = pl->clk;
	uint64_t done = c->tm.done;

	if (c->load < 0)
		c->ring[pl->w % c->qd] = done;
	if (!pl->counting)
		return;
	if (!c->n++)
		c->first = c->arrival;
	if (done > c->last_done)
		c->last_done = done;
	c->hist[hist_bucket(done - c->arrival)]++;
	c->sum += done - c->arrival;
}

/* The latency (us) under which a share @q of the counted writes completed. */
static double clock_quantile(const struct clock *c, double q)
{
	uint64_t want = (uint64_t)ceil(q * c->n), sum = 0;
	unsigned int i;

	for (i = 0; i < HIST_N; i++) {
		sum += c->hist[i];
		if (sum >= want && sum)
			return hist_floor(i) / 1e3;
	}
	return 0;
}

static int play(struct player *pl, const struct op *o, const uint32_t *life,
		const uint64_t *bounds, unsigned int n)
{
	uint32_t k;

	for (k = 0; k < o->pages; k++) {
		unsigned int h = o->handle;

		if (o->discard) {
			fdpsim_discard(pl->s, o->page + k);
			continue;
		}
		if (life) {
			uint32_t l = life[k];

			if (l == UINT32_MAX) {
				h = n - 1;	/* never dies */
			} else {
				for (h = 0; h + 2 < n && l >= bounds[h]; h++)
					;
			}
		}
		if (pl->clk)
			clock_before(pl);
		if (fdpsim_write(pl->s, o->page + k, h, o->cgroup))
			return -1;
		if (pl->clk)
			clock_after(pl);
		if (++pl->w == pl->warmup && !pl->counting) {
			fdpsim_reset_counters(pl->s);
			pl->counting = true;
		}
	}
	return 0;
}

/*
 * The oracle's future knowledge, from a backward pass over the operations
 * (spilled to @ops during the replay): each written page's lifetime, in
 * host pages written until its next overwrite or discard (UINT32_MAX:
 * never; longer lives are cut at UINT32_MAX - 1), into @lives in write
 * order, and their histogram in @hist.  Memory: 8 bytes per logical page.
 */
static int backward(FILE *ops, uint64_t nops, uint64_t pages, uint64_t nw, FILE *lives,
		    uint64_t *hist)
{
	uint64_t *next = malloc(pages * sizeof(*next));
	struct op *buf = malloc(CHUNK * sizeof(*buf));
	uint32_t *lb = malloc(CHUNK * sizeof(*lb));
	uint64_t i, w = nw, left = nops, lw_end = nw;
	unsigned int nl = 0;
	int ret = -1;

	if (!next || !buf || !lb)
		goto out;
	for (i = 0; i < pages; i++)
		next[i] = NEVER;
	/* lb[] fills from its end: lives of writes lw_end - nl .. lw_end - 1. */
	while (left) {
		uint64_t n = left < CHUNK ? left : CHUNK, j;

		left -= n;
		if (fseeko(ops, left * sizeof(*buf), SEEK_SET) ||
		    fread(buf, sizeof(*buf), n, ops) != n)
			goto out;
		for (j = n; j-- > 0;) {
			const struct op *o = &buf[j];
			uint32_t k;

			for (k = o->pages; k-- > 0;) {
				uint64_t *d = &next[o->page + k], life;

				if (o->discard) {
					*d = w;
					continue;
				}
				w--;
				life = *d == NEVER ? UINT32_MAX :
				       *d - w >= UINT32_MAX ? UINT32_MAX - 1 : *d - w;
				if (life != UINT32_MAX)
					hist[hist_bucket(life)]++;
				*d = w;
				lb[CHUNK - 1 - nl++] = life;
				if (nl == CHUNK) {
					lw_end -= nl;
					if (fseeko(lives, lw_end * 4, SEEK_SET) ||
					    fwrite(lb, 4, nl, lives) != nl)
						goto out;
					nl = 0;
				}
			}
		}
	}
	if (nl) {
		lw_end -= nl;
		if (fseeko(lives, lw_end * 4, SEEK_SET) ||
		    fwrite(lb + CHUNK - nl, 4, nl, lives) != nl)
			goto out;
	}
	ret = fflush(lives);
out:
	free(next);
	free(buf);
	free(lb);
	return ret;
}

/*
 * The lives of the next @pages written pages, contiguous in @lb (CHUNK
 * of them, [*lpos, *lfill) not yet used), read on from @lives as needed;
 * NULL if the file ends first.
 */
static const uint32_t *next_lives(FILE *lives, uint32_t *lb, uint64_t *lpos,
				  uint64_t *lfill, uint32_t pages)
{
	const uint32_t *life;

	if (*lpos + pages > *lfill) {
		uint64_t keep = *lfill - *lpos;

		memmove(lb, lb + *lpos, keep * sizeof(*lb));
		*lfill = keep + fread(lb + keep, sizeof(*lb), CHUNK - keep, lives);
		*lpos = 0;
		if (pages > *lfill)
			return NULL;
	}
	life = lb + *lpos;
	*lpos += pages;
	return life;
}

/*
 * The offline bound (death-time binning): each written page goes to one
 * of n handles by its known lifetime, in classes cut at lifetimes
 * bounds[0] <= bounds[1] <= ...; the pages that never die get the last
 * handle.  A search over many binnings keeps the best: it is an upper
 * bound on the WAF the best such placement gives, not a proof that no
 * placement does better, and it stops when doubling the binnings tried
 * gains under BOUND_STOP of WAF.
 */
#define BOUND_STOP		0.005
#define BOUND_MIN		24	/* the stop rule applies from 24 to 48 on */
#define BOUND_FINE		1.1	/* ... once refinement moves by 10% or less */
#define BOUND_MAX_DEFAULT	384

enum bound_family {
	FAM_EQUAL_BYTES,	/* the old oracle's three first */
	FAM_LOG_SHORT,
	FAM_LOG_MID,
	FAM_GEOMETRIC,		/* ratio r apart, around a share of the bytes */
	FAM_QUANTILE,		/* at shares (i / classes)^g of the bytes */
	FAM_REFINED,		/* one boundary of the best so far moved */
};

static const char * const family_names[] = {
	"equal-bytes", "log-short", "log-mid", "geometric", "quantile-power", "refined",
};

struct bound {
	/* The replays' input: the spilled operations and their lives. */
	const struct fdpsim_params *p;
	FILE *ops, *lives;
	uint64_t nops, warmup;
	bool precondition;
	struct op *buf;
	uint32_t *lb;
	unsigned int n, nb;	/* handles; boundaries (n - 2) */
	/* The distribution of lifetimes of the pages that die. */
	const uint64_t *hist;
	uint64_t dying;
	/* The search */
	uint64_t (*tried)[FDPSIM_MAX_HANDLES];
	unsigned int nr_tried, max;
	uint64_t best_b[FDPSIM_MAX_HANDLES];
	double best;
	enum bound_family best_fam;
	unsigned int next_structured;	/* the next of the structured list */
	unsigned int next_move;		/* refinement: boundary * 2 + direction */
	unsigned int last_move;		/* the move being tried */
	unsigned int moves_since_gain;
	double step;			/* refinement: factor a boundary moves by */
};

/* WAF of one replay with the lifetime classes @bounds; < 0 on error. */
static double bound_replay(struct bound *bd, const uint64_t *bounds)
{
	struct fdpsim s;
	struct player pl = { .s = &s, .warmup = bd->warmup, .counting = !bd->warmup };
	uint64_t left = bd->nops, lpos = 0, lfill = 0;
	double waf = -1;

	if (fdpsim_init(&s, bd->p))
		return -1;
	if (bd->precondition)
		fdpsim_precondition(&s);
	rewind(bd->ops);
	rewind(bd->lives);
	while (left) {
		uint64_t m = left < CHUNK ? left : CHUNK, j;

		if (fread(bd->buf, sizeof(*bd->buf), m, bd->ops) != m)
			goto out;
		left -= m;
		for (j = 0; j < m; j++) {
			const struct op *o = &bd->buf[j];
			const uint32_t *life = NULL;

			if (j + 8 < m)
				fdpsim_prefetch(&s, bd->buf[j + 8].page);
			if (!o->discard) {
				life = next_lives(bd->lives, bd->lb, &lpos, &lfill, o->pages);
				if (!life)
					goto out;
			}
			if (play(&pl, o, life, bounds, bd->n))
				goto out;
		}
	}
	waf = fdpsim_waf(&s);
out:
	fdpsim_exit(&s);
	return waf;
}

/* The lifetime under which a share @q of the dying pages' bytes die. */
static uint64_t life_quantile(const struct bound *bd, double q)
{
	uint64_t want = (uint64_t)(q * bd->dying), c = 0;
	unsigned int i;

	for (i = 0; i < HIST_N && c + bd->hist[i] <= want; i++)
		c += bd->hist[i];
	return hist_floor(i < HIST_N ? i : HIST_N - 1);
}

/* Try one binning (boundaries sorted here); 1 if it was new, -1 on error. */
static int bound_try(struct bound *bd, uint64_t *b, enum bound_family fam)
{
	unsigned int i, j;
	double w;

	for (i = 1; i < bd->nb; i++)		/* insertion sort: few boundaries */
		for (j = i; j > 0 && b[j - 1] > b[j]; j--) {
			uint64_t x = b[j];

			b[j] = b[j - 1];
			b[j - 1] = x;
		}
	for (i = 0; i < bd->nr_tried; i++)
		if (!memcmp(bd->tried[i], b, bd->nb * sizeof(*b)))
			return 0;
	w = bound_replay(bd, b);
	if (w < 0)
		return -1;
	memcpy(bd->tried[bd->nr_tried++], b, bd->nb * sizeof(*b));
	if (bd->best < 0 || w < bd->best) {
		bd->best = w;
		bd->best_fam = fam;
		memcpy(bd->best_b, b, bd->nb * sizeof(*b));
		bd->moves_since_gain = 0;
		/* A move that helped is tried again from there. */
		if (fam == FAM_REFINED)
			bd->next_move = bd->last_move;
	}
	return 1;
}

/*
 * The @k-th binning of the fixed list, from coarse to fine; false when
 * the list has run out.  Geometric: boundaries r apart, the middle one at
 * a share of the dying bytes; quantile-power: at shares (i / classes)^g
 * of them, g < 1 spending the classes on the long lives, g > 1 on the
 * short ones.
 */
static bool bound_structured(const struct bound *bd, unsigned int k, uint64_t *b,
			     enum bound_family *fam)
{
	static const double ratio[] = { 2, 8, 16, 1.5, 3, 32, 1.25, 6, 64, 12 };
	static const double center[] = { 0.5, 0.9, 0.2, 0.97, 0.7, 0.05, 0.99, 0.35 };
	static const double power[] = { 0.5, 2, 0.25, 4, 0.7, 1.4, 0.35, 3, 0.85, 1.2 };
	unsigned int i, classes = bd->nb + 1;

	/* Every third a quantile-power binning, while they last. */
	if (k % 3 == 2 && k / 3 < ARRAY_SIZE(power)) {
		for (i = 0; i < bd->nb; i++)
			b[i] = life_quantile(bd, pow((double)(i + 1) / classes, power[k / 3]));
		*fam = FAM_QUANTILE;
		return true;
	}
	k -= k / 3 < ARRAY_SIZE(power) ? (k + 1) / 3 : ARRAY_SIZE(power);
	if (k >= ARRAY_SIZE(ratio) * ARRAY_SIZE(center))
		return false;
	{
		double r = ratio[k / ARRAY_SIZE(center)];
		double mid = (double)life_quantile(bd, center[k % ARRAY_SIZE(center)]);

		for (i = 0; i < bd->nb; i++) {
			double v = mid * pow(r, (double)i - (bd->nb - 1) / 2.0);

			b[i] = v < 1 ? 1 : v > UINT32_MAX ? UINT32_MAX : (uint64_t)v;
		}
	}
	*fam = FAM_GEOMETRIC;
	return true;
}

/*
 * Greedy refinement: move one boundary of the best binning so far up or
 * down by a factor, boundary after boundary; after a whole round of moves
 * that gained nothing, the factor shrinks to its square root.  False when
 * it has shrunk to nothing.
 */
static bool bound_refine(struct bound *bd, uint64_t *b)
{
	unsigned int i;
	double v;

	if (bd->moves_since_gain >= 2 * bd->nb) {
		bd->step = sqrt(bd->step);
		bd->moves_since_gain = 0;
	}
	if (bd->step < 1.01)
		return false;
	memcpy(b, bd->best_b, bd->nb * sizeof(*b));
	i = bd->next_move / 2 % bd->nb;
	v = b[i] * (bd->next_move & 1 ? 1 / bd->step : bd->step);
	b[i] = v < 1 ? 1 : v > UINT32_MAX ? UINT32_MAX : (uint64_t)v;
	bd->last_move = bd->next_move++;
	bd->moves_since_gain++;
	return true;
}

/*
 * The search: the old oracle's three binnings, then rounds that each
 * double the binnings tried, half from the fixed list and half greedy
 * refinement of the best, until a doubling from BOUND_MIN binnings on
 * gains under BOUND_STOP of WAF, or @max binnings have been tried.
 */
enum bound_stop {
	STOP_GAIN,		/* a doubling gained under BOUND_STOP: converged */
	STOP_NO_COPIES,		/* WAF 1: nothing left to win */
	STOP_EXHAUSTED,		/* nothing left to try */
	STOP_MAX,		/* --bound-max binnings tried: not converged */
};

static const char * const stop_names[] = { "gain", "no-copies", "exhausted", "max" };

struct bound_result {
	double waf, first3, prev;
	unsigned int binnings, prev_binnings;
	enum bound_stop stop;
	enum bound_family fam;
};

static int bound_search(struct bound *bd, struct bound_result *res)
{
	uint64_t b[FDPSIM_MAX_HANDLES];
	unsigned int kind, i, classes = bd->nb + 1;
	bool structured = true, refine = true;

	/* The old oracle: equal bytes, and log-spaced x4 around the capacity. */
	for (kind = FAM_EQUAL_BYTES; kind <= FAM_LOG_MID; kind++) {
		for (i = 0; i < bd->nb; i++) {
			if (kind == FAM_EQUAL_BYTES && bd->dying)
				b[i] = life_quantile(bd, (double)(i + 1) / classes);
			else
				b[i] = (uint64_t)(bd->p->logical_pages *
						  pow(4, (double)i - (kind == FAM_LOG_SHORT ?
								classes - 2 : classes / 2)));
		}
		if (bound_try(bd, b, kind) < 0)
			return -1;
	}
	res->first3 = bd->best;
	res->prev = bd->best;
	res->prev_binnings = bd->nr_tried;
	res->stop = STOP_MAX;
	/* One class, or no copies: nothing to search. */
	if (!bd->nb || !bd->dying)
		res->stop = STOP_EXHAUSTED;
	if (bd->best <= 1)
		res->stop = STOP_NO_COPIES;
	while (res->stop == STOP_MAX && bd->nr_tried < bd->max) {
		unsigned int target = 2 * bd->nr_tried, round_start = bd->nr_tried;
		double before = bd->best;

		if (target > bd->max)
			target = bd->max;
		while (bd->nr_tried < target && (structured || refine)) {
			enum bound_family fam = FAM_REFINED;
			bool quarter = bd->nr_tried - round_start < (target - round_start + 3) / 4;
			int r;

			if (structured && (quarter || !refine)) {
				structured = bound_structured(bd, bd->next_structured++, b, &fam);
				if (!structured)
					continue;
			} else if (refine) {
				refine = bound_refine(bd, b);
				if (!refine)
					continue;
			}
			r = bound_try(bd, b, fam);
			if (r < 0)
				return -1;
		}
		res->prev = before;
		res->prev_binnings = round_start;
		if (bd->best <= 1)
			res->stop = STOP_NO_COPIES;
		else if (bd->nr_tried == 2 * round_start && round_start >= BOUND_MIN &&
			 (!refine || bd->step <= BOUND_FINE) &&
			 before - bd->best < BOUND_STOP * before)
			res->stop = STOP_GAIN;
		else if (!structured && !refine)
			res->stop = STOP_EXHAUSTED;
	}
	res->waf = bd->best;
	res->binnings = bd->nr_tried;
	res->fam = bd->best_fam;
	return 0;
}

/*
 * The offline bound over the trace spilled to @ops: the backward pass
 * gives each write's lifetime, then the search replays the trace once
 * per binning; the model is the only per-page state during each replay.
 */
static int offline_bound(const struct fdpsim_params *p, FILE *ops, uint64_t nops, uint64_t nw,
			 uint64_t warmup, bool precondition, unsigned int n, unsigned int max,
			 struct bound_result *res)
{
	uint64_t *hist = calloc(HIST_N, sizeof(*hist));
	struct bound bd = {
		.p = p, .ops = ops, .nops = nops, .warmup = warmup,
		.precondition = precondition, .n = n, .nb = n - 2, .hist = hist,
		.max = max < 3 ? 3 : max, .best = -1, .step = 4,
	};
	unsigned int i;
	int ret = -1;

	bd.buf = malloc(CHUNK * sizeof(*bd.buf));
	bd.lb = malloc(CHUNK * sizeof(*bd.lb));
	bd.tried = calloc(bd.max, sizeof(*bd.tried));
	bd.lives = tmpfile();
	if (!hist || !bd.buf || !bd.lb || !bd.tried || !bd.lives || n < 2 ||
	    backward(ops, nops, p->logical_pages, nw, bd.lives, hist))
		goto out;
	for (i = 0; i < HIST_N; i++)
		bd.dying += hist[i];
	ret = bound_search(&bd, res);
out:
	free(hist);
	free(bd.buf);
	free(bd.lb);
	free(bd.tried);
	if (bd.lives)
		fclose(bd.lives);
	return ret;
}

/* Units the device has and needs (see fdpsim_check_params()). */
static uint64_t units_have(const struct fdpsim_params *p)
{
	return (uint64_t)(p->logical_pages * (1 + p->op)) / p->ru_pages;
}

static void refuse_device(const struct fdpsim_params *p, const char *err)
{
	fprintf(stderr, "fdp-sim: impossible device: %s\n", err);
	if (!p->ru_pages || !p->logical_pages || !strstr(err, "over-provisioning too small"))
		return;
	fprintf(stderr, "fdp-sim: %llu reclaim units of %u pages; it needs %llu for the capacity,",
		(unsigned long long)units_have(p), p->ru_pages,
		(unsigned long long)(p->logical_pages / p->ru_pages));
	fprintf(stderr, " %u open for host writes, %u for GC copies,", p->handles,
		p->gc_dest == FDPSIM_GC_SHARED ? 1 : p->handles);
	fprintf(stderr, " %u free (--watermark) and 1 to reclaim\n", p->watermark);
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double wall_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Spilled pieces are short enough for the oracle's buffer of lives. */
#define SPILL_PAGES	4096

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "capacity", required_argument, NULL, 'c' },
		{ "op", required_argument, NULL, 'o' },
		{ "ru-size", required_argument, NULL, 'r' },
		{ "handles", required_argument, NULL, 'h' },
		{ "watermark", required_argument, NULL, 'w' },
		{ "gc-dest", required_argument, NULL, 'g' },
		{ "window", required_argument, NULL, 'W' },
		{ "warmup", required_argument, NULL, 'u' },
		{ "disk", required_argument, NULL, 'd' },
		{ "oracle", required_argument, NULL, 'O' },
		{ "bound-max", required_argument, NULL, 'B' },
		{ "precondition", no_argument, NULL, 'P' },
		{ "lazy-units", no_argument, NULL, 'z' },
		{ "resources", no_argument, NULL, 'R' },
		{ "convert", required_argument, NULL, 'C' },
		{ "device", required_argument, NULL, 'D' },
		{ "offered-load", required_argument, NULL, 'L' },
		{ "flash", required_argument, NULL, 'F' },
		{ "qd", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'H' },
		{}
	};
	static const char * const steady_why[] = {
		[FDPSIM_STEADY] = "settled", [FDPSIM_NEVER_FULL] = "never-full",
		[FDPSIM_SHORT] = "under-2-dw-after-full", [FDPSIM_CHANGING] = "changing",
	};
	enum fdpsim_steady st;
	struct fdpsim_params p = { .op = 0.07, .handles = 8, .watermark = 4 };
	uint64_t capacity = 0, ru = 1 << 20, window = 0, warmup = 0, v, nops = 0;
	const char *disk = NULL, *err, *name, *gc_from, *conv = NULL;
	int c, ret, oracle_n = -1, gc_set = 0, precondition = 0, resources = 0;
	bool field = false, op_set = false, ru_set = false;
	const char *load = NULL;
	unsigned int units = 64, qd = 64, block_pages = 256;
	double t_read = 40, t_prog = 200, t_erase = 2000;
	struct clock *clk = NULL;
	double t0 = wall_seconds(), c0 = cpu_seconds(), t1, c1;
	struct src t = {};
	struct fdpsim s;
	struct player pl = { .s = &s };
	unsigned int i, bound_max = BOUND_MAX_DEFAULT;
	FILE *spill = NULL;
	struct op o;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
		case 'r':
		case 'W':
		case 'u':
			if (parse_bytes(optarg, &v)) {
				fprintf(stderr, "fdp-sim: bad size '%s'\n", optarg);
				return 2;
			}
			*(c == 'c' ? &capacity : c == 'r' ? &ru : c == 'W' ? &window : &warmup) = v;
			ru_set |= c == 'r';
			break;
		case 'o':
			p.op = atof(optarg) / 100;
			op_set = true;
			break;
		case 'L':
			load = optarg;
			break;
		case 'F':
			c = 0;
			if (sscanf(optarg, "%u,%lf,%lf,%lf%n,%u%n", &units, &t_read, &t_prog,
				   &t_erase, &c, &block_pages, &c) < 4 || optarg[c] || !units ||
			    units > 65536 || !block_pages ||
			    !(t_read >= 0) || !(t_prog > 0) || !(t_erase >= 0)) {
				fprintf(stderr,
					"fdp-sim: --flash is UNITS,READ_US,PROGRAM_US,ERASE_US[,BLOCK_PAGES]\n");
				return 2;
			}
			break;
		case 'Q':
			qd = atoi(optarg);
			if (qd < 1 || qd > 65536) {
				fprintf(stderr, "fdp-sim: --qd is 1 to 65536\n");
				return 2;
			}
			break;
		case 'D':
			if (strcmp(optarg, "field")) {
				fprintf(stderr, "fdp-sim: --device: the only preset is 'field'\n");
				return 2;
			}
			field = true;
			break;
		case 'h':
			p.handles = atoi(optarg);
			break;
		case 'w':
			p.watermark = atoi(optarg);
			break;
		case 'g':
			gc_set = 1;
			if (!strcmp(optarg, "per-handle")) {
				p.gc_dest = FDPSIM_GC_PER_HANDLE;
			} else if (!strcmp(optarg, "shared")) {
				p.gc_dest = FDPSIM_GC_SHARED;
			} else {
				fprintf(stderr, "fdp-sim: --gc-dest is per-handle or shared\n");
				return 2;
			}
			break;
		case 'P':
			precondition = 1;
			break;
		case 'z':
			p.lazy_units = true;
			break;
		case 'R':
			resources = 1;
			break;
		case 'C':
			conv = optarg;
			break;
		case 'd':
			disk = optarg;
			break;
		case 'O':
			oracle_n = atoi(optarg);
			if (oracle_n < 0 || oracle_n == 1 || oracle_n > FDPSIM_MAX_HANDLES) {
				fprintf(stderr, "fdp-sim: --oracle is 0 (--handles) or 2 to %d\n",
					FDPSIM_MAX_HANDLES);
				return 2;
			}
			break;
		case 'B':
			bound_max = atoi(optarg);
			if (bound_max < 3 || bound_max > 100000) {
				fprintf(stderr, "fdp-sim: --bound-max is 3 to 100000\n");
				return 2;
			}
			break;
		case 'H':
			print_usage(stdout);
			return 0;
		default:
			fprintf(stderr,
				"fdp-sim: unknown option or missing value: '%s' (see --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fdp-sim: expected one trace file, got %d (see --help)\n",
			argc - optind);
		return 2;
	}
	if (capacity % FDPSIM_PAGE_SIZE || ru % FDPSIM_PAGE_SIZE || !ru) {
		fprintf(stderr, "fdp-sim: capacity and reclaim unit must be multiples of 4 KiB\n");
		return 2;
	}
	if (field) {
		if (!op_set)
			p.op = FDPSIM_FIELD_OP;
		precondition = 1;
	}
	p.logical_pages = capacity / FDPSIM_PAGE_SIZE;
	p.ru_pages = ru / FDPSIM_PAGE_SIZE;
	if (field && !ru_set)
		p.ru_pages = p.logical_pages / FDPSIM_FIELD_UNITS;
	p.window = window / FDPSIM_PAGE_SIZE;
	/* With a capacity, refuse an impossible device before reading. */
	err = capacity && !conv && p.ru_pages ? fdpsim_check_params(&p) : NULL;
	if (err) {
		refuse_device(&p, err);
		return 2;
	}
	name = argv[optind];
	t.name = name;
	t.pages = p.logical_pages;
	t.handles = p.handles;
	t.f = strcmp(name, "-") ? fopen(name, "r") : stdin;
	if (!t.f) {
		fprintf(stderr, "fdp-sim: %s: %s\n", name, strerror(errno));
		return 1;
	}
	if (src_start(&t, disk))
		return 1;
	if (conv)
		return convert(&t, conv);
	if (!t.pages) {
		fprintf(stderr, "%s:%lu: no --capacity, and the trace has no device header\n",
			name, t.lineno);
		return 1;
	}
	p.logical_pages = t.pages;
	if (field && !ru_set)
		p.ru_pages = p.logical_pages / FDPSIM_FIELD_UNITS ? : 1;
	/* GC copies follow the handle type of the device the trace is from. */
	gc_from = "option";
	if (!gc_set) {
		gc_from = t.hdr.ruh_type ? "trace" : "default";
		p.gc_dest = t.hdr.ruh_type == TRACE_RUHT_INITIALLY ? FDPSIM_GC_SHARED :
			    FDPSIM_GC_PER_HANDLE;
	}
	err = fdpsim_check_params(&p);
	if (err) {
		refuse_device(&p, err);
		return 2;
	}
	if (load) {
		double rate = 0;

		if (!strcmp(load, "max")) {
			rate = -1;
		} else if (strcmp(load, "trace")) {
			if (parse_bytes(load, &v) || !v) {
				fprintf(stderr,
					"fdp-sim: --offered-load is trace, max or BYTES per second\n");
				return 2;
			}
			rate = v;
		}
		clk = calloc(1, sizeof(*clk));
		if (!clk)
			return 1;
		clk->load = rate;
		clk->qd = qd;
		clk->tm.units = units;
		clk->tm.block_pages = block_pages;
		clk->tm.t_read = t_read * 1e3;
		clk->tm.t_prog = t_prog * 1e3;
		clk->tm.t_erase = t_erase * 1e3;
		clk->tm.busy = calloc(units, sizeof(*clk->tm.busy));
		clk->ring = calloc(qd, sizeof(*clk->ring));
		if (!clk->tm.busy || !clk->ring)
			return 1;
	}
	if (oracle_n > 0) {
		/* The bound's device differs only in its number of handles. */
		struct fdpsim_params bp = p;

		bp.handles = oracle_n;
		err = fdpsim_check_params(&bp);
		if (err) {
			fprintf(stderr,
				"fdp-sim: --oracle %d: with %d handles the device is impossible\n",
				oracle_n, oracle_n);
			refuse_device(&bp, err);
			return 2;
		}
	}
	if (oracle_n >= 0) {
		spill = tmpfile();
		if (!spill) {
			fprintf(stderr, "fdp-sim: cannot make a temporary file: %s\n",
				strerror(errno));
			return 1;
		}
	}
	if (fdpsim_init(&s, &p)) {
		fprintf(stderr, "fdp-sim: out of memory\n");
		return 1;
	}
	if (precondition)
		fdpsim_precondition(&s);
	/* Timing starts with the trace, on idle flash. */
	s.tm = clk ? &clk->tm : NULL;
	pl.clk = clk;
	pl.warmup = warmup / FDPSIM_PAGE_SIZE;
	pl.counting = !pl.warmup;
	/* One pass over the trace, as it streams in. */
	while ((ret = src_next_op(&t, &o)) > 0) {
		if (spill) {
			struct op piece = o;

			while (piece.pages) {
				uint32_t k = piece.pages < SPILL_PAGES ? piece.pages : SPILL_PAGES;
				struct op w = piece;

				w.pages = k;
				if (fwrite(&w, sizeof(w), 1, spill) != 1) {
					fprintf(stderr,
						"fdp-sim: cannot write the temporary file\n");
					return 1;
				}
				nops++;
				piece.page += k;
				piece.pages -= k;
			}
		}
		pl.time_ns = (uint64_t)(t.last * 1e9 + 0.5);
		if (play(&pl, &o, NULL, NULL, 0)) {
			fprintf(stderr, "fdp-sim: garbage collection found nothing to reclaim\n");
			return 1;
		}
	}
	if (ret < 0)
		return 1;
	printf("gc_dest=%s gc_dest_from=%s ruh_type=%s start=%s device=%s op=%.4g ru_pages=%u",
	       p.gc_dest == FDPSIM_GC_SHARED ? "shared" : "per-handle", gc_from,
	       trace_ruh_type_names[t.hdr.ruh_type], precondition ? "preconditioned" : "empty",
	       field ? "field" : "custom", p.op * 100, p.ru_pages);
	printf(" reclaim_units=%u capacity_units=%.1f handles=%u handle_units=%s\n", s.nr_rus,
	       (double)p.logical_pages / p.ru_pages, p.handles,
	       p.lazy_units ? "lazy" : "held");
	printf("host_pages=%llu media_pages=%llu gc_pages=%llu waf=%.4f\n",
	       (unsigned long long)s.host_pages, (unsigned long long)s.media_pages,
	       (unsigned long long)s.gc_pages, fdpsim_waf(&s));
	printf("victims=%llu victim_valid_fraction=%.4f mapped_pages=%llu fill=%.4f",
	       (unsigned long long)s.victims,
	       s.victims ? (double)s.victim_valid / s.victims / p.ru_pages : 0,
	       (unsigned long long)s.mapped, (double)s.mapped / p.logical_pages);
	printf(" bytes_per_page=%zu\n", fdpsim_bytes_per_page(&s));
	st = fdpsim_steady(&s);
	printf("steady=%s steady_why=%s dw=%.3f dw_after_full=%.3f gc_per_host_page=%.4f",
	       st == FDPSIM_STEADY ? "yes" : "no", steady_why[st],
	       (double)s.all_host / p.logical_pages,
	       s.full ? (double)(s.all_host - s.full_host) / p.logical_pages : 0,
	       s.host_pages ? (double)s.gc_pages / s.host_pages : 0);
	if (s.nr_dw >= 2)
		printf(" last_dw_waf=%.4f prev_dw_waf=%.4f", fdpsim_dw_waf(&s, s.nr_dw - 1),
		       fdpsim_dw_waf(&s, s.nr_dw - 2));
	putchar('\n');
	for (i = 0; i < p.handles; i++)
		if (s.host_by_handle[i] || s.gc_by_handle[i])
			printf("handle=%u host_pages=%llu gc_pages=%llu\n", i,
			       (unsigned long long)s.host_by_handle[i],
			       (unsigned long long)s.gc_by_handle[i]);
	for (i = 0; i < t.nr_cgroups; i++)
		printf("cgroup=%llu gc_pages=%llu\n", (unsigned long long)t.cgroup_ids[i],
		       (unsigned long long)s.gc_by_cgroup[i]);
	for (v = 0; v < s.nr_windows; v++)
		printf("window=%llu host_pages=%llu media_pages=%llu waf=%.4f\n",
		       (unsigned long long)v, (unsigned long long)s.windows[v].host,
		       (unsigned long long)s.windows[v].media,
		       (double)s.windows[v].media / s.windows[v].host);
	for (v = 0; v < s.nr_dw; v++)
		printf("full_dw=%llu dw_waf=%.4f\n", (unsigned long long)v + 1,
		       fdpsim_dw_waf(&s, v));
	if (clk) {
		double secs = clk->n ? (clk->last_done - clk->first) / 1e9 : 0;

		printf("timing load=%s units=%u read_us=%g program_us=%g erase_us=%g",
		       load, units, t_read, t_prog, t_erase);
		printf(" block_pages=%u", block_pages);
		if (clk->load < 0)
			printf(" qd=%u", qd);
		printf(" write_mib_s=%.1f write_iops=%.0f lat_mean_us=%.0f",
		       secs > 0 ? clk->n * (double)FDPSIM_PAGE_SIZE / secs / (1 << 20) : 0,
		       secs > 0 ? clk->n / secs : 0, clk->n ? clk->sum / clk->n / 1e3 : 0);
		printf(" lat_p50_us=%.0f lat_p99_us=%.0f lat_p999_us=%.0f\n",
		       clock_quantile(clk, 0.5),
		       clock_quantile(clk, 0.99), clock_quantile(clk, 0.999));
	}
	s.tm = NULL;
	fdpsim_exit(&s);
	if (clk) {
		free(clk->tm.busy);
		free(clk->ring);
		free(clk);
	}
	t1 = wall_seconds();
	c1 = cpu_seconds();
	if (spill) {
		struct fdpsim_params bp = p;
		struct bound_result b;
		double gain;

		if (oracle_n)
			bp.handles = oracle_n;
		if (offline_bound(&bp, spill, nops, t.write_pages, pl.warmup, precondition,
				  bp.handles, bound_max, &b)) {
			fprintf(stderr, "fdp-sim: the offline bound could not run\n");
			return 1;
		}
		gain = b.prev > 0 ? (b.prev - b.waf) / b.prev * 100 : 0;
		/* oracle_waf and oracle_binning: the names of the first versions */
		printf("oracle_waf=%.4f oracle_binning=%s bound_waf=%.4f bound_binnings=%u",
		       b.waf, family_names[b.fam], b.waf, b.binnings);
		printf(" bound_first3_waf=%.4f bound_prev_binnings=%u bound_prev_waf=%.4f",
		       b.first3, b.prev_binnings, b.prev);
		printf(" bound_last_doubling_gain_pct=%.2f bound_converged=%s bound_stop=%s\n",
		       gain, b.stop == STOP_MAX ? "no" : "yes", stop_names[b.stop]);
		printf("# offline bound (death-time binning): WAF %.4f, the best of %u binnings",
		       b.waf, b.binnings);
		printf(" (of the first 3: %.4f); ", b.first3);
		if (b.stop == STOP_NO_COPIES)
			printf("it copies nothing: converged\n");
		else if (b.stop == STOP_EXHAUSTED)
			printf("nothing more to try: converged\n");
		else
			printf("from %u to %u binnings it gained %.2f%%, %s\n", b.prev_binnings,
			       b.binnings, gain, b.stop == STOP_GAIN ?
			       "under 0.5%: converged" : "not converged: raise --bound-max");
		fclose(spill);
	}
	if (resources) {
		struct rusage ru_self;

		getrusage(RUSAGE_SELF, &ru_self);
		printf("replay_cpu_s=%.3f replay_wall_s=%.3f total_cpu_s=%.3f total_wall_s=%.3f",
		       c1 - c0, t1 - t0, cpu_seconds() - c0, wall_seconds() - t0);
		printf(" trace_write_pages=%llu peak_rss_kib=%ld rss_bytes_per_page=%.2f\n",
		       (unsigned long long)t.write_pages, ru_self.ru_maxrss,
		       ru_self.ru_maxrss * 1024.0 / p.logical_pages);
	}
	return 0;
}
