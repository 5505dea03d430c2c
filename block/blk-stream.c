// SPDX-License-Identifier: GPL-2.0
/*
 * The write stream decision point.
 *
 * A write stream tells the device which data belong together; on an NVMe
 * SSD with Flexible Data Placement, stream N writes through placement
 * handle N - 1 and data of one stream share reclaim units.  Streams pay
 * off when data that die together share a stream, which the submitter of
 * a bio rarely knows and never knows for another tenant.  So one place in
 * the block layer decides the stream of every write bio that reaches
 * submit_bio(), by the first rule that applies (enum blk_stream_rule):
 *
 *  1. a stream already on the bio (io_uring, a filesystem that places
 *     itself, the raw block device's write hint) is kept;
 *  2. the io.stream setting of the bio's cgroup, which for writeback is
 *     the cgroup the dirty pages are charged to;
 *  3. the filesystem's stream for journal or metadata;
 *  4. the disk's placement policy;
 *  5. otherwise stream 0, the device's default placement.
 *
 * Every value is checked against the whole disk's max_write_streams (a
 * partition's bio uses its disk's streams): a stream the disk does not
 * have falls back to 0, so none reaches the driver.  Each decision can be
 * traced (block_write_stream), which is also how placement is replayed
 * outside the kernel.  Nothing runs here unless one of the sources of
 * streams is in use: a static key, taken by each source while it is.
 */

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/cgroup.h>
#include <trace/events/block.h>

#include "blk-cgroup.h"
#include "blk-iostream.h"
#include "blk-stream.h"

DEFINE_STATIC_KEY_FALSE(blk_stream_key);

/* Turn decisions on while a source of streams is in use; may sleep. */
void blk_stream_get(void)
{
	static_branch_inc(&blk_stream_key);
}

void blk_stream_put(void)
{
	static_branch_dec(&blk_stream_key);
}

/* The decision tracepoint sees every write while it is enabled. */
int blk_stream_trace_reg(void)
{
	blk_stream_get();
	return 0;
}

void blk_stream_trace_unreg(void)
{
	blk_stream_put();
}

static u64 bio_cgroup_id(struct bio *bio)
{
#ifdef CONFIG_BLK_CGROUP
	if (bio->bi_blkg)
		return cgroup_id(bio->bi_blkg->blkcg->css.cgroup);
#endif
	return 0;
}

static void trace_decision(struct bio *bio, enum blk_stream_rule rule)
{
	if (trace_block_write_stream_enabled())
		trace_block_write_stream(bio, rule, bio_cgroup_id(bio));
}

/**
 * __bio_set_write_stream - decide the write stream of a bio
 * @bio: bio being submitted
 *
 * Fills an empty bi_write_stream of a write bio and never overwrites one
 * that is valid for the disk.  Runs in the submitter's context, which may
 * be atomic: it takes no lock and allocates nothing.
 */
void __bio_set_write_stream(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	unsigned int max = disk->queue->limits.max_write_streams;
	enum blk_stream_rule rule;
	bool fallback = false;
	int stream;

	switch (bio_op(bio)) {
	case REQ_OP_WRITE:
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
	case REQ_OP_WRITE_ZEROES:
		trace_decision(bio, BLK_STREAM_RULE_NONE);
		return;
	default:
		return;
	}

	if (bio->bi_write_stream) {
		rule = BLK_STREAM_RULE_APP;
		stream = bio->bi_write_stream;
	} else {
		stream = blkcg_write_stream(bio);
		if (stream >= 0) {
			rule = BLK_STREAM_RULE_CGROUP;
		} else {
			rule = BLK_STREAM_RULE_DEFAULT;
			stream = 0;
		}
	}

	/* The disk may have lost streams since the value was chosen. */
	if (unlikely(stream > max)) {
		stream = 0;
		fallback = true;
	}
	bio->bi_write_stream = stream;
	blkcg_account_write_stream(bio, fallback);
	trace_decision(bio, rule);
}
