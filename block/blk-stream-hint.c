// SPDX-License-Identifier: GPL-2.0
/*
 * The "hint" write stream placement policy: a static per-disk map from a
 * write's lifetime hint or kind to a stream.
 *
 * Files carry a lifetime hint (F_SET_RW_HINT: none, short, medium, long,
 * extreme), and filesystems mark their journal and metadata writes with a
 * write kind; bio_stream_key() gives either as one key.  The map, in
 * queue/write_stream_hint_map, turns each into a stream.  Its default
 * uses the disk's free streams: stream 1 shares its placement handle with
 * unplaced writes, so streams 2..N are handed out, one per key in the
 * order journal, metadata, short, medium, long, extreme; with fewer free
 * streams than keys, neighbours in that order share a stream.  Writes with
 * no hint stay unplaced.
 */

#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/string.h>

#include "blk-stream.h"

static const char *const blk_stream_hint_names[BLK_STREAM_KEY_NR] = {
	[WRITE_LIFE_NOT_SET]	= "not_set",
	[WRITE_LIFE_NONE]	= "none",
	[WRITE_LIFE_SHORT]	= "short",
	[WRITE_LIFE_MEDIUM]	= "medium",
	[WRITE_LIFE_LONG]	= "long",
	[WRITE_LIFE_EXTREME]	= "extreme",
	[BLK_STREAM_KEY_JOURNAL] = "journal",
	[BLK_STREAM_KEY_METADATA] = "metadata",
};

/* The last rank is extreme's (blk_stream_key_rank()). */
static_assert(WRITE_LIFE_EXTREME - WRITE_LIFE_SHORT + 3 == BLK_STREAM_KEY_RANKS);

/**
 * blk_stream_hint_default - the default stream of a key
 * @key: the hint or kind (bio_stream_key())
 * @max: the disk's max_write_streams
 */
static unsigned int blk_stream_hint_default(unsigned int key,
					    unsigned int max)
{
	/* Its place in the default order, from 0; -1 for none. */
	int rank = (int)blk_stream_key_rank(key) - 1;
	unsigned int free = max - 1;

	if (rank < 0 || max < 2)
		return 0;
	if (free >= BLK_STREAM_KEY_RANKS)
		return 2 + rank;
	return 2 + rank * free / BLK_STREAM_KEY_RANKS;
}

static u8 blk_stream_hint_entry(u64 map, unsigned int key)
{
	return map >> (key * 8);
}

static unsigned int blk_stream_hint_lookup(u64 map, unsigned int key,
					   unsigned int max)
{
	u8 v = blk_stream_hint_entry(map, key);

	return v == BLK_STREAM_HINT_DEFAULT ?
		blk_stream_hint_default(key, max) : v;
}

static unsigned int blk_stream_hint_decide(struct gendisk *disk, void *data,
					   struct bio *bio)
{
	struct blk_stream_disk *sd = data;
	unsigned int key = bio_stream_key(bio);

	if (key >= BLK_STREAM_KEY_NR)
		return 0;
	return blk_stream_hint_lookup(READ_ONCE(sd->hint_map), key,
				      disk->queue->limits.max_write_streams);
}

static int blk_stream_hint_init(struct gendisk *disk, void **data)
{
	*data = disk->write_streams;
	return 0;
}

static struct blk_stream_policy blk_stream_hint_policy = {
	.name		= "hint",
	.owner		= THIS_MODULE,
	.init_disk	= blk_stream_hint_init,
	/* Stateless: in shadow it reads the same map as it does live. */
	.init_shadow	= blk_stream_hint_init,
	.decide		= blk_stream_hint_decide,
};

ssize_t blk_stream_hint_map_show(struct gendisk *disk, char *page)
{
	unsigned int max = disk->queue->limits.max_write_streams;
	/* Pairs with the cmpxchg() in blk_stream_disk_get(). */
	struct blk_stream_disk *sd = smp_load_acquire(&disk->write_streams);
	u64 map = sd ? READ_ONCE(sd->hint_map) : BLK_STREAM_HINT_MAP_DEFAULT;
	ssize_t len = 0;
	int i;

	for (i = 0; i < BLK_STREAM_KEY_NR; i++)
		len += sysfs_emit_at(page, len, "%s %u\n",
				     blk_stream_hint_names[i],
				     blk_stream_hint_lookup(map, i, max));
	return len;
}

static int blk_stream_hint_parse(char *line, unsigned int max, u64 *map)
{
	char *key = strsep(&line, " \t");
	unsigned int stream;
	int i;

	if (!line)
		return -EINVAL;
	i = match_string(blk_stream_hint_names, BLK_STREAM_KEY_NR, key);
	if (i < 0 || kstrtouint(skip_spaces(line), 10, &stream) ||
	    stream > max)
		return -EINVAL;
	*map &= ~(0xffULL << (i * 8));
	*map |= (u64)stream << (i * 8);
	return 0;
}

/*
 * Lines of "KEY STREAM" update those keys; "default" alone restores the
 * default map.  Either every line applies or, with -EINVAL, none does.
 */
ssize_t blk_stream_hint_map_store(struct gendisk *disk, const char *page,
				  size_t count)
{
	unsigned int max = disk->queue->limits.max_write_streams;
	struct blk_stream_disk *sd;
	char *buf, *pos, *line;
	u64 map;
	int ret = 0;

	/* As the other placement files: a disk being deleted takes nothing. */
	if (test_bit(GD_DEAD, &disk->state))
		return -ENODEV;
	buf = kstrndup(page, count, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	sd = blk_stream_disk_get(disk);
	if (!sd) {
		kfree(buf);
		return -ENOMEM;
	}
	mutex_lock(&sd->lock);

	if (sysfs_streq(buf, "default")) {
		map = BLK_STREAM_HINT_MAP_DEFAULT;
	} else {
		map = sd->hint_map;
		pos = buf;
		ret = -EINVAL;
		while ((line = strsep(&pos, "\n"))) {
			line = strim(line);
			if (!*line)
				continue;
			ret = blk_stream_hint_parse(line, max, &map);
			if (ret)
				goto out;
		}
		if (ret)	/* no line at all */
			goto out;
	}
	WRITE_ONCE(sd->hint_map, map);
out:
	mutex_unlock(&sd->lock);
	kfree(buf);
	return ret ? ret : count;
}

static int __init blk_stream_hint_policy_init(void)
{
	BUILD_BUG_ON(sizeof(u64) < BLK_STREAM_KEY_NR);
	return blk_stream_register_policy(&blk_stream_hint_policy);
}
subsys_initcall(blk_stream_hint_policy_init);

#include "tests/stream-hint-kunit.h"
