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
 * A header line before the first record may say what device the trace was
 * taken on (scripts/fdp-trace writes it when told):
 *
 *   # device capacity=BYTES ruh-type=TYPE
 *
 * TYPE is the NVMe reclaim unit handle type of the device's handles:
 * initially-isolated (data that garbage collection copies from all handles
 * may share units) or persistently-isolated (it never mixes), or unknown.
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

enum trace_ruh_type {
	TRACE_RUHT_UNKNOWN = 0,
	TRACE_RUHT_INITIALLY = 1,	/* NVMe RUHT values */
	TRACE_RUHT_PERSISTENTLY = 2,
};

struct trace_header {
	uint64_t capacity;		/* bytes, 0 if not recorded */
	enum trace_ruh_type ruh_type;
};

extern const char * const trace_ruh_type_names[3];

/* A "# device" line: 1 and *h filled in, 0 for another line, -1 bad. */
int trace_parse_header(const char *line, struct trace_header *h, const char **why);

/*
 * The binary form (fdp-sim --convert, scripts/fdp-trace --binary): one disk,
 * little-endian, a 32-byte header and 24-byte records.  Cgroup IDs are
 * given once each by a TRACE_BIN_CGROUP record (sector: the ID) and then
 * named by slot; a TRACE_BIN_END record (sector: the records before it)
 * closes the file, so that a truncated file is told from a whole one.
 */
#define TRACE_BIN_MAGIC		"\177FDPSIM1"	/* 8 bytes; no text starts so */

struct trace_bin_header {
	char magic[8];
	uint64_t capacity;		/* bytes, 0 if not recorded */
	uint32_t ruh_type;		/* enum trace_ruh_type */
	uint32_t major, minor;
	uint32_t reserved;
};

enum { TRACE_BIN_CGROUP = 'C', TRACE_BIN_END = 'E' };

struct trace_bin_rec {
	uint64_t time_ns;
	uint64_t sector;		/* or the cgroup ID, or the record count */
	uint32_t sectors;
	uint8_t op;			/* 'W', 'D', 'Z', TRACE_BIN_CGROUP, TRACE_BIN_END */
	uint8_t stream;
	uint16_t cgroup;		/* cgroup slot */
};

/* Parse one line; 1 for a record, 0 for a blank or comment line, -1 bad. */
int trace_parse_line(const char *line, struct trace_rec *r, const char **why);

#endif /* FDPSIM_TRACE_H */
