/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BLK_IOSTREAM_H
#define BLK_IOSTREAM_H

#include <linux/atomic.h>

struct bio;
struct gendisk;

#ifdef CONFIG_BLK_CGROUP_IOSTREAM
extern atomic_t iostream_nr_pins;
int __blkcg_write_stream(struct bio *bio);

/* Whether any cgroup has an io.stream setting, so may pin a bio. */
static inline bool blkcg_may_pin(void)
{
	return atomic_read(&iostream_nr_pins);
}

/*
 * The io.stream pin of a bio's cgroup (see __blkcg_write_stream()): -1 at
 * once while no cgroup has a setting, the common case.
 */
static inline int blkcg_write_stream(struct bio *bio)
{
	if (!blkcg_may_pin())
		return -1;
	return __blkcg_write_stream(bio);
}

void blkcg_account_write_stream(struct bio *bio, bool fallback);
int blkcg_iostream_init_disk(struct gendisk *disk);
#else
/* No io.stream: no cgroup pins its writes. */
static inline bool blkcg_may_pin(void)
{
	return false;
}

static inline int blkcg_write_stream(struct bio *bio)
{
	return -1;
}

static inline void blkcg_account_write_stream(struct bio *bio, bool fallback)
{
}

static inline int blkcg_iostream_init_disk(struct gendisk *disk)
{
	return 0;
}
#endif

#endif /* BLK_IOSTREAM_H */
