// SPDX-License-Identifier: GPL-2.0
/*
 * fdp-sim: replay a block trace (see trace.h) on a model FDP SSD and report
 * write amplification; optionally also the WAF of an oracle that places
 * the same writes by their known death times.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdpsim.h"
#include "trace.h"

#define SECTORS_PER_PAGE	(FDPSIM_PAGE_SIZE / 512)
#define NEVER			UINT64_MAX

/* A trace, at page granularity, as the model replays it. */
struct op {
	uint64_t page;		/* first page */
	uint32_t pages;
	uint8_t discard;
	uint8_t handle;		/* placement handle the kernel chose */
	uint16_t cgroup;	/* cgroup slot */
};

struct trace {
	struct op *ops;
	size_t nr, cap;
	uint64_t cgroup_ids[FDPSIM_MAX_CGROUPS];
	unsigned int nr_cgroups;
	uint64_t write_pages;
	struct trace_header hdr;	/* what the trace's "# device" line says */
	bool have_hdr;
};

static void print_usage(FILE *f)
{
	fputs("usage: fdp-sim [options] TRACE (- for standard input)\n"
	      "  --capacity BYTES   logical capacity of the disk (K, M, G; required\n"
	      "                     unless the trace header records it)\n"
	      "  --op PCT           over-provisioning in percent of capacity      [7]\n"
	      "  --ru-size BYTES    reclaim unit size                              [1M]\n"
	      "  --handles N        placement handles                              [8]\n"
	      "  --watermark N      garbage collect below N free reclaim units     [4]\n"
	      "  --gc-dest D        per-handle or shared: where GC writes copies\n"
	      "                     [the trace's handle type, else per-handle]\n"
	      "  --precondition     map every logical page before the trace starts\n"
	      "  --window BYTES     also report WAF per window of host writes\n"
	      "  --warmup BYTES     count only after this many host bytes\n"
	      "  --disk MAJ:MIN     replay only this disk's records (default: the first seen)\n"
	      "  --oracle N         also run the oracle with N handles (0: --handles)\n", f);
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

static unsigned int cgroup_slot(struct trace *t, uint64_t id)
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

static int add_op(struct trace *t, const struct op *o)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 65536;
		struct op *ops = realloc(t->ops, cap * sizeof(*ops));

		if (!ops)
			return -ENOMEM;
		t->ops = ops;
		t->cap = cap;
	}
	t->ops[t->nr++] = *o;
	return 0;
}

/* Read and check the whole trace; print the first error with its line. */
static int load_trace(FILE *f, const char *name, const char *want_disk,
		      uint64_t *pagesp, uint32_t handles, struct trace *t)
{
	uint64_t pages = *pagesp;
	bool records = false;
	unsigned int want_major = 0, want_minor = 0;
	bool have_disk = false;
	char line[1024];
	double last = 0;
	unsigned long lineno = 0;

	if (want_disk) {
		if (sscanf(want_disk, "%u%*[,:]%u", &want_major, &want_minor) != 2) {
			fprintf(stderr, "fdp-sim: --disk: '%s' is not MAJ:MIN\n", want_disk);
			return -1;
		}
		have_disk = true;
	}
	while (fgets(line, sizeof(line), f)) {
		struct trace_rec r;
		const char *why = NULL;
		struct op o = {};
		uint64_t end;
		int ret;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, "%s:%lu: line too long\n", name, lineno);
			return -1;
		}
		if (feof(f) && !strchr(line, '\n') && line[0]) {
			fprintf(stderr, "%s:%lu: truncated record (no end of line)\n",
				name, lineno);
			return -1;
		}
		ret = trace_parse_header(line, &t->hdr, &why);
		if (ret > 0 && records) {
			fprintf(stderr, "%s:%lu: device header after the first record\n",
				name, lineno);
			return -1;
		}
		if (ret > 0 && !pages && t->hdr.capacity) {
			if (t->hdr.capacity % FDPSIM_PAGE_SIZE) {
				fprintf(stderr, "%s:%lu: capacity is not whole 4 KiB pages\n",
					name, lineno);
				return -1;
			}
			pages = *pagesp = t->hdr.capacity / FDPSIM_PAGE_SIZE;
		}
		if (ret > 0 && t->hdr.capacity && t->hdr.capacity != pages * FDPSIM_PAGE_SIZE) {
			fprintf(stderr,
				"%s:%lu: the trace is of a %llu-byte disk, the model's is %llu bytes\n",
				name, lineno, (unsigned long long)t->hdr.capacity,
				(unsigned long long)(pages * FDPSIM_PAGE_SIZE));
			return -1;
		}
		if (ret > 0) {
			t->have_hdr = true;
			continue;
		}
		if (!ret)
			ret = trace_parse_line(line, &r, &why);
		if (ret < 0) {
			fprintf(stderr, "%s:%lu: %s\n", name, lineno, why);
			return -1;
		}
		if (!ret)
			continue;
		records = true;
		if (!pages) {
			fprintf(stderr, "%s:%lu: no --capacity, and the trace has no device header\n",
				name, lineno);
			return -1;
		}
		if (!have_disk) {
			want_major = r.major;
			want_minor = r.minor;
			have_disk = true;
		}
		if (r.major != want_major || r.minor != want_minor)
			continue;
		if (r.time < last) {
			fprintf(stderr, "%s:%lu: time goes back (%.6f after %.6f)\n", name,
				lineno, r.time, last);
			return -1;
		}
		last = r.time;
		end = r.sector + r.sectors;
		if (end > pages * SECTORS_PER_PAGE) {
			fprintf(stderr,
				"%s:%lu: sectors %llu..%llu are past the capacity (%llu sectors)\n",
				name, lineno, (unsigned long long)r.sector,
				(unsigned long long)end - 1,
				(unsigned long long)(pages * SECTORS_PER_PAGE));
			return -1;
		}
		if (r.op == TRACE_WRITE) {
			/* A partial page is written whole (read-modify-write). */
			o.page = r.sector / SECTORS_PER_PAGE;
			o.pages = (end + SECTORS_PER_PAGE - 1) / SECTORS_PER_PAGE - o.page;
			o.handle = r.stream ? r.stream - 1 : 0;
			if (o.handle >= handles) {
				fprintf(stderr, "%s:%lu: stream %u but the device has %u handles\n",
					name, lineno, r.stream, handles);
				return -1;
			}
			t->write_pages += o.pages;
		} else {
			/* Only whole pages are unmapped. */
			o.page = (r.sector + SECTORS_PER_PAGE - 1) / SECTORS_PER_PAGE;
			if (end / SECTORS_PER_PAGE <= o.page)
				continue;
			o.pages = end / SECTORS_PER_PAGE - o.page;
			o.discard = 1;
		}
		o.cgroup = cgroup_slot(t, r.cgroup);
		if (add_op(t, &o)) {
			fprintf(stderr, "fdp-sim: out of memory\n");
			return -1;
		}
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: read error\n", name);
		return -1;
	}
	return 0;
}

/* Replay @t; with @place, put each written page on the handle it returns. */
static int replay(struct fdpsim *s, const struct trace *t, uint64_t warmup,
		  const uint8_t *place)
{
	uint64_t w = 0;
	size_t i;
	uint32_t k;
	bool counting = !warmup;

	for (i = 0; i < t->nr; i++) {
		const struct op *o = &t->ops[i];

		for (k = 0; k < o->pages; k++) {
			if (o->discard) {
				fdpsim_discard(s, o->page + k);
				continue;
			}
			if (fdpsim_write(s, o->page + k, place ? place[w] : o->handle, o->cgroup))
				return -1;
			if (++w == warmup && !counting) {
				fdpsim_reset_counters(s);
				counting = true;
			}
		}
	}
	return 0;
}

/*
 * Death of each written page, in host pages written before it dies: the
 * next write or discard of the same page, NEVER if none.
 */
static uint64_t *death_times(const struct trace *t, uint64_t pages)
{
	uint64_t *death = malloc(t->write_pages * sizeof(*death));
	uint64_t *next = malloc(pages * sizeof(*next));
	uint64_t w = t->write_pages;
	size_t i;

	if (!death || !next) {
		free(death);
		free(next);
		return NULL;
	}
	for (i = 0; i < pages; i++)
		next[i] = NEVER;
	/* Walk backwards; a discard kills at the clock of the next write. */
	for (i = t->nr; i-- > 0;) {
		const struct op *o = &t->ops[i];
		uint32_t k;

		for (k = o->pages; k-- > 0;) {
			if (o->discard) {
				next[o->page + k] = w;
			} else {
				w--;
				death[w] = next[o->page + k];
				next[o->page + k] = w;
			}
		}
	}
	free(next);
	return death;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Oracle: the best of several ways to bin writes by known lifetime into
 * @n handles: equal shares of bytes by lifetime, and log-spaced lifetimes
 * around the capacity.  Pages that never die get the last handle.
 */
static double oracle(const struct fdpsim_params *p, const struct trace *t,
		     uint64_t warmup, bool precondition, unsigned int n,
		     unsigned int *best_kind)
{
	uint64_t *death = death_times(t, p->logical_pages), *life, *sorted;
	uint64_t nw = t->write_pages, i, dying = 0, bounds[FDPSIM_MAX_HANDLES];
	uint8_t *place = malloc(nw);
	double best = -1;
	unsigned int kind, b;

	life = malloc(nw * sizeof(*life));
	sorted = malloc(nw * sizeof(*sorted));
	if (!death || !place || !life || !sorted || n < 2)
		goto out;
	for (i = 0; i < nw; i++) {
		life[i] = death[i] == NEVER ? NEVER : death[i] - i;
		if (life[i] != NEVER)
			sorted[dying++] = life[i];
	}
	qsort(sorted, dying, sizeof(*sorted), cmp_u64);
	for (kind = 0; kind < 3; kind++) {
		struct fdpsim s;
		unsigned int classes = n - 1;	/* the last handle: never dies */

		for (b = 0; b + 1 < classes; b++) {
			if (kind == 0 && dying)		/* equal bytes */
				bounds[b] = sorted[dying * (b + 1) / classes];
			else				/* log-spaced, x4 apart */
				bounds[b] = (uint64_t)(p->logical_pages *
						       pow(4, (double)b - (kind == 1 ?
								classes - 2 : classes / 2)));
		}
		for (i = 0; i < nw; i++) {
			if (life[i] == NEVER) {
				place[i] = n - 1;
				continue;
			}
			for (b = 0; b + 1 < classes && life[i] >= bounds[b]; b++)
				;
			place[i] = b;
		}
		if (fdpsim_init(&s, p))
			break;
		if (precondition)
			fdpsim_precondition(&s);
		if (!replay(&s, t, warmup, place) && (best < 0 || fdpsim_waf(&s) < best)) {
			best = fdpsim_waf(&s);
			*best_kind = kind;
		}
		fdpsim_exit(&s);
	}
out:
	free(death);
	free(place);
	free(life);
	free(sorted);
	return best;
}

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
		{ "precondition", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'H' },
		{}
	};
	static const char * const kinds[] = { "equal-bytes", "log-short", "log-mid" };
	struct fdpsim_params p = { .op = 0.07, .handles = 8, .watermark = 4 };
	uint64_t capacity = 0, ru = 1 << 20, window = 0, warmup = 0, v;
	const char *disk = NULL, *err, *name;
	int c, oracle_n = -1, gc_set = 0, precondition = 0;
	const char *gc_from;
	struct trace t = {};
	struct fdpsim s;
	unsigned int i, kind = 0;
	FILE *f;

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
			break;
		case 'o':
			p.op = atof(optarg) / 100;
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
		case 'd':
			disk = optarg;
			break;
		case 'O':
			oracle_n = atoi(optarg);
			break;
		case 'H':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		print_usage(stderr);
		return 2;
	}
	if (capacity % FDPSIM_PAGE_SIZE || ru % FDPSIM_PAGE_SIZE || !ru) {
		fprintf(stderr, "fdp-sim: capacity and reclaim unit must be multiples of 4 KiB\n");
		return 2;
	}
	p.logical_pages = capacity / FDPSIM_PAGE_SIZE;
	p.ru_pages = ru / FDPSIM_PAGE_SIZE;
	p.window = window / FDPSIM_PAGE_SIZE;
	/* With a capacity, refuse an impossible device before reading. */
	err = capacity ? fdpsim_check_params(&p) : NULL;
	if (err) {
		fprintf(stderr, "fdp-sim: impossible device: %s\n", err);
		return 2;
	}
	name = argv[optind];
	f = strcmp(name, "-") ? fopen(name, "r") : stdin;
	if (!f) {
		fprintf(stderr, "fdp-sim: %s: %s\n", name, strerror(errno));
		return 1;
	}
	if (load_trace(f, name, disk, &p.logical_pages, p.handles, &t))
		return 1;
	if (!p.logical_pages) {
		fprintf(stderr, "fdp-sim: %s: no --capacity, and the trace has no device header\n",
			name);
		return 2;
	}
	/* GC copies follow the handle type of the device the trace is from. */
	gc_from = "option";
	if (!gc_set) {
		gc_from = t.hdr.ruh_type ? "trace" : "default";
		p.gc_dest = t.hdr.ruh_type == TRACE_RUHT_INITIALLY ? FDPSIM_GC_SHARED :
			    FDPSIM_GC_PER_HANDLE;
	}
	err = fdpsim_check_params(&p);
	if (err) {
		fprintf(stderr, "fdp-sim: impossible device: %s\n", err);
		return 2;
	}
	if (fdpsim_init(&s, &p)) {
		fprintf(stderr, "fdp-sim: out of memory\n");
		return 1;
	}
	if (precondition)
		fdpsim_precondition(&s);
	printf("gc_dest=%s gc_dest_from=%s ruh_type=%s start=%s\n",
	       p.gc_dest == FDPSIM_GC_SHARED ? "shared" : "per-handle", gc_from,
	       trace_ruh_type_names[t.hdr.ruh_type], precondition ? "preconditioned" : "empty");
	if (replay(&s, &t, warmup / FDPSIM_PAGE_SIZE, NULL)) {
		fprintf(stderr, "fdp-sim: garbage collection found nothing to reclaim\n");
		return 1;
	}
	printf("host_pages=%llu media_pages=%llu gc_pages=%llu waf=%.4f\n",
	       (unsigned long long)s.host_pages, (unsigned long long)s.media_pages,
	       (unsigned long long)s.gc_pages, fdpsim_waf(&s));
	printf("victims=%llu victim_valid_fraction=%.4f mapped_pages=%llu fill=%.4f",
	       (unsigned long long)s.victims,
	       s.victims ? (double)s.victim_valid / s.victims / p.ru_pages : 0,
	       (unsigned long long)s.mapped, (double)s.mapped / p.logical_pages);
	printf(" bytes_per_page=%zu\n", fdpsim_bytes_per_page(&s));
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
	fdpsim_exit(&s);
	if (oracle_n >= 0) {
		double w = oracle(&p, &t, warmup / FDPSIM_PAGE_SIZE, precondition,
				  oracle_n ? (unsigned int)oracle_n : p.handles, &kind);

		if (w < 0) {
			fprintf(stderr, "fdp-sim: the oracle could not run\n");
			return 1;
		}
		printf("oracle_waf=%.4f oracle_binning=%s\n", w, kinds[kind]);
	}
	free(t.ops);
	return 0;
}
