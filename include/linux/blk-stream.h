/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Write stream decision point: who picks the write stream of a bio.
 * See Documentation/block/write-streams.rst.
 */
#ifndef _LINUX_BLK_STREAM_H
#define _LINUX_BLK_STREAM_H

#include <linux/bio.h>
#include <linux/bitmap.h>
#include <linux/list.h>

/**
 * enum blk_stream_rule - the rule that decided a bio's write stream
 * @BLK_STREAM_RULE_NONE: not a write (discard, secure erase, write zeroes);
 *	seen by the decision point only to be traced
 * @BLK_STREAM_RULE_APP: the submitter set the stream (io_uring, a
 *	filesystem that places its own data, the raw block device's write
 *	hint); it is kept where the bio's cgroup allows it
 * @BLK_STREAM_RULE_CGROUP: the io.stream setting of the bio's cgroup and
 *	its ancestors: their single stream or 0, or the stream of their
 *	budget that replaced another rule's choice
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

struct block_device;
struct dentry;
struct file_operations;
struct gendisk;
struct module;

/**
 * struct blk_stream_policy - a per-disk write stream placement policy
 * @name: name written to the disk's queue/write_stream_policy file
 * @owner: module implementing the policy
 * @init_disk: optional; set up the policy for @disk and store its state in
 *	@data.  May sleep.  An error keeps the disk's previous policy.  The
 *	disk may be being deleted meanwhile: its capacity may read 0, and
 *	the instance may be torn down by @exit_disk before it ever decides.
 * @init_shadow: optional; set up an instance of the policy for @disk that
 *	runs in shadow (queue/write_stream_shadow): it is asked and shown the
 *	same bios as a live instance, but its choices only go to the
 *	block_write_stream_shadow tracepoint.  It must not disturb a live
 *	instance of the policy on the same disk.  A policy without it cannot
 *	run in shadow.  May sleep, and may see a dying disk as @init_disk.
 * @exit_disk: optional; tear down the state set up by @init_disk or
 *	@init_shadow.  Called after an RCU grace period: no @decide call for
 *	the disk is running.  It may run from del_gendisk(), once the disk
 *	is marked dead and its queue's freeze has begun, in NOIO scope, so
 *	it must not wait for I/O to the disk, nor for work that may: work it
 *	flushes or cancels must allocate in NOIO scope too
 *	(memalloc_noio_save()); and, for another instance on the same
 *	disk, at the same time as @init_disk or @init_shadow, since
 *	del_gendisk() does not wait for a change of the disk's policies in
 *	progress.
 * @decide: return the stream of a write bio that no earlier rule placed,
 *	or 0 to leave it to the device's default.  Called under
 *	rcu_read_lock() in the submitter's context, which may be atomic; the
 *	value is checked against the disk's streams by the caller.
 * @observe: optional; see a bio that @decide is not asked about: a write
 *	an earlier rule placed on @stream, or a discard, secure erase or
 *	write zeroes (@stream 0).  Same context as @decide.
 * @confine_changed: optional; io.stream changed the streams that confine
 *	the writes of a cgroup on @disk (a pin, or a budget the policy
 *	spends), by a write of io.stream or because the disk's number of
 *	streams changed.  Called for a live instance and for those in
 *	shadow, under rcu_read_lock() and the disk's queue_lock, taken
 *	with spin_lock_irq() (a sleeping lock on PREEMPT_RT, where
 *	interrupts stay on): it must not sleep, and may take only locks
 *	that are never held while queue_lock is taken and that are safe
 *	to take with interrupts off.  It may be called once per cgroup
 *	whose set changed, so it should only note the change, or queue
 *	work (queue_work() is fine).
 * @list: entry in the list of registered policies
 *
 * A policy is rule 4 of the decision order: it decides only writes that
 * the application, the cgroup and the filesystem left unplaced.  With
 * @observe it still sees every write and invalidation of the disk, which
 * a policy that learns lifetimes needs.
 */
struct blk_stream_policy {
	const char *name;
	struct module *owner;
	int (*init_disk)(struct gendisk *disk, void **data);
	int (*init_shadow)(struct gendisk *disk, void **data);
	void (*exit_disk)(struct gendisk *disk, void *data);
	unsigned int (*decide)(struct gendisk *disk, void *data,
			       struct bio *bio);
	void (*observe)(struct gendisk *disk, void *data, struct bio *bio,
			unsigned int stream);
	void (*confine_changed)(struct gendisk *disk, void *data);
	struct list_head list;
};

/**
 * struct blk_stream_debugfs_file - a file of a policy's debugfs directory
 * @name: the file's name; an entry with none ends a list
 * @mode: its mode
 * @fops: its operations; the file's private data is the directory's
 */
struct blk_stream_debugfs_file {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
};

struct dentry *
blk_stream_debugfs_create(struct gendisk *disk, const char *name,
			  const struct blk_stream_debugfs_file *files,
			  void *data);
void blk_stream_debugfs_remove(struct gendisk *disk, struct dentry *dir);

/* Policies that can run in shadow on one disk at once. */
#define BLK_STREAM_SHADOW_MAX	4

int blk_stream_register_policy(struct blk_stream_policy *pol);
int bdev_set_kind_stream(struct block_device *bdev, enum write_kind kind,
			 unsigned int stream);
void blk_stream_unregister_policy(struct blk_stream_policy *pol);

#ifdef CONFIG_BLK_CGROUP_IOSTREAM
void blkcg_iostream_pinned(struct gendisk *disk, unsigned long *map,
			   unsigned int nbits);
unsigned int blkcg_iostream_budget(struct gendisk *disk, u64 cgid,
				   unsigned long *map, unsigned int nbits);
bool blkcg_iostream_confined(struct gendisk *disk);
#else
static inline void blkcg_iostream_pinned(struct gendisk *disk,
					 unsigned long *map, unsigned int nbits)
{
}

static inline unsigned int blkcg_iostream_budget(struct gendisk *disk,
						 u64 cgid, unsigned long *map,
						 unsigned int nbits)
{
	bitmap_zero(map, nbits);
	return 0;
}

static inline bool blkcg_iostream_confined(struct gendisk *disk)
{
	return false;
}
#endif

/*
 * Keys of a write for policies that place by what the write is: its
 * lifetime hint (enum rw_hint), or its kind if it is a journal or
 * metadata write.
 */
#define BLK_STREAM_KEY_JOURNAL	WRITE_LIFE_HINT_NR
#define BLK_STREAM_KEY_METADATA	(WRITE_LIFE_HINT_NR + 1)
#define BLK_STREAM_KEY_NR	(WRITE_LIFE_HINT_NR + 2)

/* Places in the order of blk_stream_key_rank(). */
#define BLK_STREAM_KEY_RANKS	6

/**
 * blk_stream_key_rank - where a key stands in the order of lifetimes
 * @key: the hint or kind of a write (bio_stream_key())
 *
 * The journal, whose blocks are written again each time the log wraps,
 * then metadata, then the lifetime hints from short to extreme: the order
 * in which the hint policy's default map hands out streams, and the
 * lifetime policy's first guess at the order of survival.
 *
 * Return: 1 to %BLK_STREAM_KEY_RANKS in that order, 0 for a write that
 * has neither a hint nor a kind.
 */
static inline unsigned int blk_stream_key_rank(unsigned int key)
{
	switch (key) {
	case BLK_STREAM_KEY_JOURNAL:
		return 1;
	case BLK_STREAM_KEY_METADATA:
		return 2;
	case WRITE_LIFE_SHORT ... WRITE_LIFE_EXTREME:
		return key - WRITE_LIFE_SHORT + 3;
	default:
		return 0;
	}
}

/**
 * bio_stream_key - the key of a write for placement by hint or kind
 * @bio: a write bio
 *
 * Return: %BLK_STREAM_KEY_JOURNAL or %BLK_STREAM_KEY_METADATA for a
 * journal or metadata write, else the write's lifetime hint.
 */
static inline unsigned int bio_stream_key(const struct bio *bio)
{
	enum write_kind kind = bio_write_kind(bio);

	if (kind)
		return BLK_STREAM_KEY_JOURNAL + kind - WRITE_KIND_JOURNAL;
	return bio->bi_write_hint;
}

/* The block_write_stream tracepoint turns decisions on while enabled. */
int blk_stream_trace_reg(void);
void blk_stream_trace_unreg(void);

#endif /* _LINUX_BLK_STREAM_H */
