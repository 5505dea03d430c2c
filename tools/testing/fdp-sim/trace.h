/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fdp-sim trace format: text, one record per line, fields separated by
 * white space, '#' starts a comment line:
 *
 *   TIME DEV OP SECTOR SECTORS STREAM RULE CGROUP
 *
 *   TIME     seconds, as a decimal number (records must not go back)
 *   DEV      the whole disk, MAJ,MIN or MAJ:MIN
 *   OP       W (write), D (discard or secure erase), Z (write zeroes)
 *   SECTOR   first 512-byte sector, counted from the start of the disk
 *   SECTORS  length in 512-byte sectors (> 0)
 *   STREAM   write stream, 0 for none (ignored for D and Z)
 *   RULE     which rule decided (app, cgroup, fs, policy, default, none)
 *   CGROUP   cgroup ID of the writer, 0 if none
 *
 * scripts/fdp-trace turns the kernel's block_write_stream events into it.
 */
#ifndef FDPSIM_TRACE_H
#define FDPSIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

enum trace_op { TRACE_WRITE, TRACE_DISCARD, TRACE_ZEROES };

struct trace_rec {
	double time;
	uint32_t major, minor;
	enum trace_op op;
	uint64_t sector;
	uint32_t sectors;
	uint32_t stream;
	char rule[16];
	uint64_t cgroup;
};

/* Parse one line; 1 for a record, 0 for a blank or comment line, -1 bad. */
int trace_parse_line(const char *line, struct trace_rec *r, const char **why);

#endif /* FDPSIM_TRACE_H */
