// SPDX-License-Identifier: GPL-2.0
/* fdp-sim: the trace format, see trace.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

const char * const trace_ruh_type_names[3] = {
	"unknown", "initially-isolated", "persistently-isolated",
};

int trace_parse_header(const char *line, struct trace_header *h, const char **why)
{
	char key[32], val[64];
	int n, i;

	if (strncmp(line, "# device ", 9))
		return 0;
	line += 9;
	memset(h, 0, sizeof(*h));
	while (sscanf(line, " %31[^= \t\n]=%63s%n", key, val, &n) == 2) {
		line += n;
		if (!strcmp(key, "capacity")) {
			char *end;

			h->capacity = strtoull(val, &end, 10);
			if (*end || !h->capacity || val[0] == '-') {
				*why = "header: capacity is not a number of bytes";
				return -1;
			}
		} else if (!strcmp(key, "ruh-type")) {
			for (i = 0; i < 3; i++)
				if (!strcmp(val, trace_ruh_type_names[i]))
					break;
			if (i == 3) {
				*why = "header: unknown ruh-type";
				return -1;
			}
			h->ruh_type = i;
		}
		/* Other keys are for other tools: ignored. */
	}
	while (isspace((unsigned char)*line))
		line++;
	if (*line) {
		*why = "header: expected KEY=VALUE pairs";
		return -1;
	}
	return 1;
}

int trace_parse_line(const char *line, struct trace_rec *r, const char **why)
{
	char time[32], dev[32], op[8], rule[16], extra[2];
	unsigned long long sector, sectors, stream, cgroup;
	char *end;
	int n;

	while (isspace((unsigned char)*line))
		line++;
	if (!*line || *line == '#')
		return 0;
	n = sscanf(line, "%31s %31s %7s %llu %llu %llu %15s %llu %1s", time, dev, op,
		   &sector, &sectors, &stream, rule, &cgroup, extra);
	if (n < 8) {
		*why = "expected 8 fields: TIME DEV OP SECTOR SECTORS STREAM RULE CGROUP";
		return -1;
	}
	if (n > 8) {
		*why = "extra fields after CGROUP";
		return -1;
	}
	r->time = strtod(time, &end);
	if (*end || r->time < 0) {
		*why = "TIME is not a number of seconds";
		return -1;
	}
	if (sscanf(dev, "%u%*[,:]%u%n", &r->major, &r->minor, &n) != 2 || dev[n]) {
		*why = "DEV is not MAJ,MIN";
		return -1;
	}
	if (!strcmp(op, "W")) {
		r->op = TRACE_WRITE;
	} else if (!strcmp(op, "D")) {
		r->op = TRACE_DISCARD;
	} else if (!strcmp(op, "Z")) {
		r->op = TRACE_ZEROES;
	} else {
		*why = "OP is not W, D or Z";
		return -1;
	}
	if (!sectors || sectors > UINT32_MAX) {
		*why = "SECTORS must be 1 to 2^32 - 1";
		return -1;
	}
	if (stream > 255) {
		*why = "STREAM above 255";
		return -1;
	}
	r->sector = sector;
	r->sectors = sectors;
	r->stream = stream;
	r->cgroup = cgroup;
	snprintf(r->rule, sizeof(r->rule), "%s", rule);
	return 1;
}
