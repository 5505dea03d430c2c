// SPDX-License-Identifier: GPL-2.0
/*
 * gen: write a synthetic fdp-sim trace in binary form (see trace.h).
 *
 *   gen OUT PAGES PASSES HOT_PCT HOT_SHARE_PCT [seq] [mixed]
 *
 * PAGES logical 4 KiB pages (the header records the capacity), filled in
 * order through stream 1, then PASSES times PAGES pages of random 64 KiB
 * overwrites: HOT_SHARE_PCT of them to the first HOT_PCT of the space
 * through stream 2, the rest to the remainder through stream 1.  With
 * "seq" each of the two jobs overwrites its part in order, round and
 * round, instead; with "mixed" both write through stream 1 (no
 * placement).  One record per 64 KiB, a microsecond apart.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../trace.h"
#include "rng.h"

#define REC_PAGES	16

int main(int argc, char **argv)
{
	struct trace_bin_header h = { .magic = TRACE_BIN_MAGIC, .major = 259 };
	struct trace_bin_rec r = { .op = TRACE_BIN_CGROUP, .sector = 1 };
	uint64_t pages, passes, hot, share, n = 0, i, t = 0, units, hot_units, next[2] = {};
	bool seq = false, mixed = false;
	FILE *f;

	for (i = 6; i < (uint64_t)argc; i++) {
		seq |= !strcmp(argv[i], "seq");
		mixed |= !strcmp(argv[i], "mixed");
	}
	if (argc < 6 || argc > 8 || argc != 6 + seq + mixed) {
		fprintf(stderr,
			"usage: gen OUT PAGES PASSES HOT_PCT HOT_SHARE_PCT [seq] [mixed]\n");
		return 2;
	}
	pages = strtoull(argv[2], NULL, 0) / REC_PAGES * REC_PAGES;
	passes = strtoull(argv[3], NULL, 0);
	hot = strtoull(argv[4], NULL, 0);
	share = strtoull(argv[5], NULL, 0);
	units = pages / REC_PAGES;
	hot_units = units * hot / 100;
	if (!units || hot > 100 || share > 100 || (share && !hot_units) ||
	    (share < 100 && hot_units == units)) {
		fprintf(stderr, "gen: bad sizes\n");
		return 2;
	}
	f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	h.capacity = pages * 4096;
	fwrite(&h, sizeof(h), 1, f);
	fwrite(&r, sizeof(r), 1, f);
	n++;
	memset(&r, 0, sizeof(r));
	r.op = 'W';
	r.sectors = REC_PAGES * 8;
	for (i = 0; i < units; i++, n++) {
		r.time_ns = t += 1000;
		r.sector = i * REC_PAGES * 8;
		r.stream = 1;
		fwrite(&r, sizeof(r), 1, f);
	}
	for (i = 0; i < passes * units; i++, n++) {
		bool is_hot = rnd() % 100 < share;
		uint64_t u = is_hot ? rnd() % hot_units :
			     hot_units + rnd() % (units - hot_units);

		if (seq) {
			u = next[is_hot]++;
			u = is_hot ? u % hot_units : hot_units + u % (units - hot_units);
		}
		r.time_ns = t += 1000;
		r.sector = u * REC_PAGES * 8;
		r.stream = is_hot && !mixed ? 2 : 1;
		fwrite(&r, sizeof(r), 1, f);
	}
	memset(&r, 0, sizeof(r));
	r.op = TRACE_BIN_END;
	r.sector = n;
	fwrite(&r, sizeof(r), 1, f);
	if (fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
