/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BLK_STREAM_INTERNAL_H
#define BLK_STREAM_INTERNAL_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/blk-stream.h>
#include <linux/jump_label.h>
#include <linux/mutex.h>

DECLARE_STATIC_KEY_FALSE(blk_stream_key);
/* Some source of streams is in use, not only the decision tracepoint. */
DECLARE_STATIC_KEY_FALSE(blk_stream_placing);
/* Some disk runs placement policies in shadow. */
DECLARE_STATIC_KEY_FALSE(blk_stream_shadowing);

void __bio_set_write_stream(struct bio *bio);
void blk_stream_get(void);
void blk_stream_put(void);
void blk_stream_shadow_get(void);
void blk_stream_shadow_put(void);
void blk_stream_put_deferred(bool shadow);
void blk_stream_flush_puts(void);

/**
 * struct blk_stream_disk - write stream placement state of a disk
 * @active: the disk's policy and its state; NULL for "none"
 * @shadow: the policies run in shadow on the disk; NULL for none
 * @hint_map: the hint policy's map, byte N the stream of hint or kind N,
 *	%BLK_STREAM_HINT_DEFAULT for its default (see blk-stream-hint.c)
 * @lock: serialises the changes of the disk's settings: policy, policies
 *	in shadow, hint map
 *
 * Allocated when a setting is first written for the disk, freed with the
 * disk.  Changed under @lock; @active and @shadow are also installed and
 * taken off under the queue's elevator_lock (see blk-stream-policy.c),
 * and read under RCU.
 */
struct blk_stream_disk {
	struct blk_stream_active __rcu	*active;
	struct blk_stream_shadow __rcu	*shadow;
	u64				hint_map;
	struct mutex			lock;	/* see above */
};

#define BLK_STREAM_HINT_DEFAULT		0xff
#define BLK_STREAM_HINT_MAP_DEFAULT	(~0ULL)

/**
 * struct blk_stream_active - the policy installed on a disk
 * @pol: the policy; holds a reference on its module
 * @data: the policy's state for the disk, from its init_disk()
 */
struct blk_stream_active {
	const struct blk_stream_policy	*pol;
	void				*data;
};

/**
 * struct blk_stream_shadow - the policies run in shadow on a disk
 * @nr: number of policies in @pol
 * @pol: the policies, in the order given, each with its state from its
 *	init_shadow(); each holds a reference on its module
 */
struct blk_stream_shadow {
	unsigned int			nr;
	struct blk_stream_active	pol[BLK_STREAM_SHADOW_MAX];
};

struct blk_stream_disk *blk_stream_disk_get(struct gendisk *disk);
ssize_t blk_stream_hint_map_show(struct gendisk *disk, char *page);
ssize_t blk_stream_hint_map_store(struct gendisk *disk, const char *page,
				  size_t count);

/**
 * blk_stream_policy_decide - rule 4: ask the disk's policy
 * @disk: the whole disk the bio is for
 * @bio: a write bio that no earlier rule placed
 *
 * Inline: the decision point asks this of every write no earlier rule
 * placed.
 *
 * Return: the policy's stream, 0 if it has none or the disk has no policy.
 */
static inline unsigned int
blk_stream_policy_decide(struct gendisk *disk, struct bio *bio)
{
	/* Pairs with the cmpxchg() in blk_stream_disk_get(). */
	struct blk_stream_disk *sd = smp_load_acquire(&disk->write_streams);
	struct blk_stream_active *act;
	unsigned int stream = 0;

	if (!sd)
		return 0;
	rcu_read_lock();
	act = rcu_dereference(sd->active);
	if (act)
		stream = act->pol->decide(disk, act->data, bio);
	rcu_read_unlock();
	return stream;
}

void blk_stream_policy_observe(struct gendisk *disk, struct bio *bio,
			       unsigned int stream);
ssize_t blk_stream_policy_show(struct gendisk *disk, char *page);
ssize_t blk_stream_policy_store(struct gendisk *disk, const char *page,
				size_t count);
ssize_t blk_stream_shadow_show(struct gendisk *disk, char *page);
ssize_t blk_stream_shadow_store(struct gendisk *disk, const char *page,
				size_t count);
struct blk_stream_shadow *blk_stream_shadow_choose(struct bio *bio,
						   unsigned int stream,
						   enum blk_stream_rule rule,
						   u8 *choice);
void blk_stream_shadow_observe(struct bio *bio);
void blk_stream_confine_changed(struct gendisk *disk);
void blk_stream_disk_exit(struct gendisk *disk);
void blk_stream_disk_free(struct gendisk *disk);

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

/*
 * Called from submit_bio_noacct() for every bio: decide a bio that a
 * stacking device above passed down undecided (QUEUE_FLAG_STREAM_BELOW)
 * once it reaches a device that does not pass the decision on.  Costs
 * one patched-out branch while no source of streams is in use, and a
 * test of a bio field while one is.
 */
static inline void bio_set_passed_write_stream(struct bio *bio)
{
	if (static_branch_unlikely(&blk_stream_key) &&
	    unlikely(bio->bi_stream_undecided) &&
	    !blk_queue_stream_below(bdev_get_queue(bio->bi_bdev)))
		__bio_set_write_stream(bio);
}

#endif /* BLK_STREAM_INTERNAL_H */
