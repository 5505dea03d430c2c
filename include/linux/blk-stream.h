/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Write stream decision point: who picks the write stream of a bio.
 * See Documentation/block/write-streams.rst.
 */
#ifndef _LINUX_BLK_STREAM_H
#define _LINUX_BLK_STREAM_H

/**
 * enum blk_stream_rule - the rule that decided a bio's write stream
 * @BLK_STREAM_RULE_NONE: not a write (discard, secure erase, write zeroes);
 *	seen by the decision point only to be traced
 * @BLK_STREAM_RULE_APP: the submitter set the stream (io_uring, a
 *	filesystem that places its own data, the raw block device's write
 *	hint); it is kept
 * @BLK_STREAM_RULE_CGROUP: the operator's io.stream setting of the bio's
 *	cgroup
 * @BLK_STREAM_RULE_FS: the filesystem's stream for journal or metadata
 * @BLK_STREAM_RULE_POLICY: the disk's placement policy
 * @BLK_STREAM_RULE_DEFAULT: nothing applied: stream 0, the device's
 *	default placement
 * @BLK_STREAM_RULE_NR: number of rules
 *
 * The rules are tried in this order; the first that applies decides.
 */
enum blk_stream_rule {
	BLK_STREAM_RULE_NONE,
	BLK_STREAM_RULE_APP,
	BLK_STREAM_RULE_CGROUP,
	BLK_STREAM_RULE_FS,
	BLK_STREAM_RULE_POLICY,
	BLK_STREAM_RULE_DEFAULT,
	BLK_STREAM_RULE_NR,
};

/* The block_write_stream tracepoint turns decisions on while enabled. */
int blk_stream_trace_reg(void);
void blk_stream_trace_unreg(void);

#endif /* _LINUX_BLK_STREAM_H */
