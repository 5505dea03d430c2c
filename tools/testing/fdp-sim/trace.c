// SPDX-License-Identifier: GPL-2.0
/* fdp-sim: the trace format, see trace.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

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
