/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BLK_STREAM_INTERNAL_H
#define BLK_STREAM_INTERNAL_H

#include <linux/bio.h>
#include <linux/blk-stream.h>
#include <linux/jump_label.h>

DECLARE_STATIC_KEY_FALSE(blk_stream_key);

void __bio_set_write_stream(struct bio *bio);
void blk_stream_get(void);
void blk_stream_put(void);

/*
 * Called from submit_bio() for every bio.  Costs one patched-out branch
 * until some source of streams (an io.stream setting, a placement policy,
 * the decision tracepoint) is in use.
 */
static inline void bio_set_write_stream(struct bio *bio)
{
	if (static_branch_unlikely(&blk_stream_key))
		__bio_set_write_stream(bio);
}

#endif /* BLK_STREAM_INTERNAL_H */
