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
 *     itself, the raw block device's write hint) is kept if rule 2 allows;
 *  2. the io.stream setting of the bio's cgroup, which for writeback is
 *     the cgroup that owns the inode's writeback: a single stream (or 0)
 *     that the cgroup and its ancestors allow replaces any other, even
 *     the submitter's; several are a budget that the other rules spend,
 *     whose choice is kept only inside it;
 *  3. the filesystem's stream for journal or metadata;
 *  4. the disk's placement policy;
 *  5. otherwise stream 0, the device's default placement.
 *
 * Every value is checked against the whole disk's max_write_streams (a
 * partition's bio uses its disk's streams): a stream the disk does not
 * have falls back to 0, so none reaches the driver.
 *
 * A stacking driver that sets QUEUE_FLAG_STREAM_BELOW (bio-based
 * device-mapper) has the decision run not on its own bios but on those it
 * sends down: submit_bio() marks the bio undecided (bi_stream_undecided),
 * clones and splits keep the mark, and submit_bio_noacct() decides a
 * marked bio, and clears the mark, on the first device it reaches that
 * does not pass the decision on, with that device's settings.  However a
 * driver sends its bios down, each is so decided once, on the disk whose
 * handles it fills.  Each decision can be
 * traced (block_write_stream), which is also how placement is replayed
 * outside the kernel.  Nothing runs here unless one of the sources of
 * streams is in use or the tracepoint is enabled: a static key, taken by
 * each while it is.
 */

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/cgroup.h>
#include <linux/workqueue.h>
#include <trace/events/block.h>

#include "blk-cgroup.h"
#include "blk-iostream.h"
#include "blk-stream.h"

DEFINE_STATIC_KEY_FALSE(blk_stream_key);
DEFINE_STATIC_KEY_FALSE(blk_stream_placing);
DEFINE_STATIC_KEY_FALSE(blk_stream_shadowing);

/* Turn decisions on while a source of streams is in use; may sleep. */
void blk_stream_get(void)
{
	static_branch_inc(&blk_stream_key);
	static_branch_inc(&blk_stream_placing);
}

void blk_stream_put(void)
{
	static_branch_dec(&blk_stream_placing);
	static_branch_dec(&blk_stream_key);
}

/*
 * Policies in shadow see every write, so they turn decisions on; but
 * they place nothing, so, as for the tracepoint below, io.stat counts
 * nothing while they alone are on.
 */
void blk_stream_shadow_get(void)
{
	static_branch_inc(&blk_stream_key);
	static_branch_inc(&blk_stream_shadowing);
}

void blk_stream_shadow_put(void)
{
	static_branch_dec(&blk_stream_shadowing);
	static_branch_dec(&blk_stream_key);
}

/*
 * del_gendisk() takes a disk's policies off while the queue is frozen.
 * The last decrement of a static key takes cpu_hotplug_lock, which must
 * not nest in a queue freeze (rq-qos dropped its static key for this),
 * so from there the decrements are left to a work item.
 */
static atomic_t blk_stream_puts = ATOMIC_INIT(0);
static atomic_t blk_stream_shadow_puts = ATOMIC_INIT(0);

static void blk_stream_put_workfn(struct work_struct *work)
{
	while (atomic_add_unless(&blk_stream_puts, -1, 0))
		blk_stream_put();
	while (atomic_add_unless(&blk_stream_shadow_puts, -1, 0))
		blk_stream_shadow_put();
}

static DECLARE_WORK(blk_stream_put_work, blk_stream_put_workfn);

/* blk_stream_put() or blk_stream_shadow_put(), later. */
void blk_stream_put_deferred(bool shadow)
{
	atomic_inc(shadow ? &blk_stream_shadow_puts : &blk_stream_puts);
	schedule_work(&blk_stream_put_work);
}

/* Wait for the deferred decrements: the keys are then as they will be. */
void blk_stream_flush_puts(void)
{
	flush_work(&blk_stream_put_work);
}

/*
 * The decision tracepoint sees every write while it is enabled, so it
 * turns decisions on; but tracing must not change what is traced, so it
 * is no source of streams: while it alone is on, io.stat counts nothing.
 */
int blk_stream_trace_reg(void)
{
	static_branch_inc(&blk_stream_key);
	return 0;
}

void blk_stream_trace_unreg(void)
{
	static_branch_dec(&blk_stream_key);
}

static DEFINE_MUTEX(blk_stream_kind_mutex);

/**
 * bdev_set_kind_stream - choose the stream of a kind of filesystem write
 * @bdev: block device (whole disk or partition) the filesystem holds
 * @kind: %WRITE_KIND_JOURNAL or %WRITE_KIND_METADATA
 * @stream: the stream, 0 to stop placing the kind
 *
 * Rule 3 of the decision order: once set, writes of @kind to @bdev go to
 * @stream unless the submitter or the bio's cgroup placed them.  Meant
 * for the filesystem holding @bdev, which must set 0 again when it lets
 * go of the device.  A partition uses its disk's streams.
 *
 * Return: 0, or -EINVAL if @kind is not a kind or the disk has no stream
 * @stream.
 */
int bdev_set_kind_stream(struct block_device *bdev, enum write_kind kind,
			 unsigned int stream)
{
	unsigned int max = bdev->bd_disk->queue->limits.max_write_streams;
	u8 *slot;

	if ((kind != WRITE_KIND_JOURNAL && kind != WRITE_KIND_METADATA) ||
	    stream > max)
		return -EINVAL;

	slot = &bdev->bd_kind_stream[kind];
	mutex_lock(&blk_stream_kind_mutex);
	if (!*slot && stream)
		blk_stream_get();
	else if (*slot && !stream)
		blk_stream_put();
	WRITE_ONCE(*slot, stream);
	mutex_unlock(&blk_stream_kind_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(bdev_set_kind_stream);

/*
 * Rule 3: the stream the filesystem chose for a journal or metadata bio;
 * the slot of WRITE_KIND_DATA is never set.
 */
static unsigned int bio_kind_stream(struct bio *bio)
{
	return READ_ONCE(bio->bi_bdev->bd_kind_stream[bio_write_kind(bio)]);
}

/* Rules 3 to 5, for a bio that neither its submitter nor cgroup placed. */
static int bio_fs_or_policy_stream(struct gendisk *disk, struct bio *bio,
				   enum blk_stream_rule *rule)
{
	unsigned int stream = bio_kind_stream(bio);

	if (stream) {
		*rule = BLK_STREAM_RULE_FS;
		return stream;
	}
	stream = blk_stream_policy_decide(disk, bio);
	*rule = stream ? BLK_STREAM_RULE_POLICY : BLK_STREAM_RULE_DEFAULT;
	return stream;
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

/*
 * Store the stream of a write whose disk runs policies in shadow, after
 * asking them: they see the bio as the live policy saw it, before it
 * carries @stream.  Their choices are traced right after the decision.
 */
static noinline void bio_shadow_write_stream(struct bio *bio,
					     unsigned int decided,
					     unsigned int stream,
					     enum blk_stream_rule rule)
{
	u8 choice[BLK_STREAM_SHADOW_MAX];
	struct blk_stream_shadow *sh;
	char buf[128];
	unsigned int i, len = 0;

	rcu_read_lock();
	sh = blk_stream_shadow_choose(bio, decided, rule, choice);
	bio->bi_write_stream = stream;
	trace_decision(bio, rule);
	if (sh && trace_block_write_stream_shadow_enabled()) {
		buf[0] = '\0';
		for (i = 0; i < sh->nr; i++)
			len += scnprintf(buf + len, sizeof(buf) - len,
					 "%s%s=%u", i ? " " : "",
					 sh->pol[i].pol->name, choice[i]);
		trace_block_write_stream_shadow(bio, bio_stream_key(bio), buf);
	}
	rcu_read_unlock();
}

/*
 * The rare cases of bio_finish_write_stream(): a stream the disk no
 * longer has, policies running in shadow, or the tracepoint enabled.
 */
static noinline void bio_finish_write_stream_slow(struct bio *bio,
						  unsigned int stream,
						  enum blk_stream_rule rule)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	unsigned int decided = stream;
	bool fallback = false;

	/* The disk may have lost streams since the value was chosen. */
	if (stream > disk->queue->limits.max_write_streams) {
		stream = 0;
		fallback = true;
	}
	if (static_branch_unlikely(&blk_stream_shadowing)) {
		bio_shadow_write_stream(bio, decided, stream, rule);
	} else {
		bio->bi_write_stream = stream;
		trace_decision(bio, rule);
	}
	if (static_branch_likely(&blk_stream_placing))
		blkcg_account_write_stream(bio, fallback);
}

/*
 * Store the decided stream, checked against the disk, and count it.
 * Inline: every decided write ends here, and most need only the store
 * and the count.
 */
static __always_inline void bio_finish_write_stream(struct bio *bio,
						    unsigned int stream,
						    enum blk_stream_rule rule)
{
	struct request_queue *q = bdev_get_queue(bio->bi_bdev);

	if (unlikely(stream > q->limits.max_write_streams ||
		     static_branch_unlikely(&blk_stream_shadowing) ||
		     trace_block_write_stream_enabled())) {
		bio_finish_write_stream_slow(bio, stream, rule);
		return;
	}
	bio->bi_write_stream = stream;
	if (static_branch_likely(&blk_stream_placing))
		blkcg_account_write_stream(bio, false);
}

/* An invalidation is shown to the policy and traced; it has no stream. */
static noinline void bio_observe_invalidation(struct bio *bio)
{
	blk_stream_policy_observe(bio->bi_bdev->bd_disk, bio, 0);
	if (static_branch_unlikely(&blk_stream_shadowing))
		blk_stream_shadow_observe(bio);
	trace_decision(bio, BLK_STREAM_RULE_NONE);
}

/*
 * Write Zeroes that the device does not deallocate (REQ_NOUNMAP, or a
 * device that cannot) writes the media, and NVMe places it as it places a
 * write.  Where io.stream confines the bio's cgroup, every Write Zeroes
 * bio, deallocating or not, is given a stream of the cgroup's set: the
 * pin, or the one a budget gives a bio without a stream (its first, for a
 * bio that carries none).  Else BLKZEROOUT or
 * fallocate(FALLOC_FL_ZERO_RANGE) would put a confined tenant's zeroes
 * on the device's default placement, another tenant's.  No other rule
 * places Write Zeroes; the policy sees it as an invalidation, and io.stat
 * does not count it.
 */
static noinline void bio_confine_write_zeroes(struct bio *bio)
{
	unsigned int max = bdev_get_queue(bio->bi_bdev)->limits.max_write_streams;
	int allowed = blkcg_write_stream(bio);
	unsigned int stream;

	if (allowed == BLKCG_STREAM_ANY)
		return;
	if (allowed == BLKCG_STREAM_BUDGET)
		stream = blkcg_confine_write_stream(bio, bio->bi_write_stream);
	else
		stream = allowed;
	/* The disk may have lost streams since the set was computed. */
	bio->bi_write_stream = stream <= max ? stream : 0;
}

/*
 * Rules 1 to 5 for a write that a rule before the policy may place: its
 * submitter, its cgroup or its filesystem.  Out of line, so that the
 * common case saves and restores few registers.
 */
static noinline void bio_set_placed_write_stream(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	int allowed = blkcg_write_stream(bio);
	enum blk_stream_rule rule;
	bool policy_saw;
	int stream;

	if (bio->bi_write_stream &&
	    (allowed < 0 || bio->bi_write_stream == allowed)) {
		rule = BLK_STREAM_RULE_APP;
		stream = bio->bi_write_stream;
	} else if (allowed >= 0) {
		rule = BLK_STREAM_RULE_CGROUP;
		stream = allowed;
	} else {
		stream = bio_fs_or_policy_stream(disk, bio, &rule);
	}
	policy_saw = rule == BLK_STREAM_RULE_POLICY ||
		     rule == BLK_STREAM_RULE_DEFAULT;

	/* The cgroup's budget: what another rule chose stays inside it. */
	if (allowed == BLKCG_STREAM_BUDGET) {
		unsigned int confined = blkcg_confine_write_stream(bio, stream);

		if (confined != stream) {
			rule = BLK_STREAM_RULE_CGROUP;
			stream = confined;
		}
	}

	/* A policy learning from all writes also sees those it did not place. */
	if (!policy_saw)
		blk_stream_policy_observe(disk, bio, stream);
	bio_finish_write_stream(bio, stream, rule);
}

/*
 * The write is for a stacking device that leaves the decision to the
 * disks its remapped bios reach (QUEUE_FLAG_STREAM_BELOW): decide nothing
 * here, mark the bio for the decision below.  Only the filesystem's
 * stream must be taken along, as the filesystem holds this device, not
 * the disk below: it travels on the bio as the submitter's stream.
 */
static noinline void bio_pass_write_stream_below(struct bio *bio)
{
	if (!bio->bi_write_stream && bio_write_kind(bio))
		bio->bi_write_stream = bio_kind_stream(bio);
	bio->bi_stream_undecided = true;
}

/**
 * __bio_set_write_stream - decide the write stream of a bio
 * @bio: bio being submitted
 *
 * Fills an empty bi_write_stream of a write bio, and overwrites one only
 * where the io.stream setting of the bio's cgroup does not allow it.  On
 * a device that passes the decision on, marks the bio for the decision
 * below instead.  Runs in the submitter's context, which may be atomic:
 * it takes no lock and allocates nothing.
 */
void __bio_set_write_stream(struct bio *bio)
{
	struct request_queue *q = bdev_get_queue(bio->bi_bdev);
	enum req_op op = bio_op(bio);
	unsigned int stream;

	if (unlikely(op != REQ_OP_WRITE)) {
		if (op != REQ_OP_DISCARD && op != REQ_OP_SECURE_ERASE &&
		    op != REQ_OP_WRITE_ZEROES)
			return;
		bio->bi_stream_undecided = blk_queue_stream_below(q);
		if (bio->bi_stream_undecided)
			return;
		/* Confined first, so that the trace shows the stream. */
		if (op == REQ_OP_WRITE_ZEROES && blkcg_may_pin())
			bio_confine_write_zeroes(bio);
		bio_observe_invalidation(bio);
		return;
	}
	if (unlikely(blk_queue_stream_below(q))) {
		bio_pass_write_stream_below(bio);
		return;
	}
	/* Decided here, even if a device above passed it down. */
	bio->bi_stream_undecided = false;

	/*
	 * Most writes: no rule before the policy can apply, as the write has
	 * no stream, no cgroup has an io.stream setting and the write is not
	 * the filesystem's journal or metadata.  Straight to the policy.
	 */
	if (unlikely(bio->bi_write_stream || blkcg_may_pin() ||
		     bio_write_kind(bio))) {
		bio_set_placed_write_stream(bio);
		return;
	}
	stream = blk_stream_policy_decide(bio->bi_bdev->bd_disk, bio);
	bio_finish_write_stream(bio, stream, stream ? BLK_STREAM_RULE_POLICY :
				BLK_STREAM_RULE_DEFAULT);
}
