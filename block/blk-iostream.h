/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BLK_IOSTREAM_H
#define BLK_IOSTREAM_H

#include <linux/atomic.h>

struct bio;
struct gendisk;

/* What rule 2 says when it does not give one stream: see blkcg_write_stream(). */
#define BLKCG_STREAM_ANY	(-1)
#define BLKCG_STREAM_BUDGET	(-2)

#ifdef CONFIG_BLK_CGROUP_IOSTREAM
extern atomic_t iostream_nr_pins;
int __blkcg_write_stream(struct bio *bio);

/* Whether any cgroup has an io.stream setting, so may pin a bio. */
static inline bool blkcg_may_pin(void)
{
	return atomic_read(&iostream_nr_pins);
}

/*
 * What io.stream allows a bio's cgroup (see __blkcg_write_stream()): one
 * stream, %BLKCG_STREAM_BUDGET or %BLKCG_STREAM_ANY, which is returned at
 * once while no cgroup has a setting, the common case.
 */
static inline int blkcg_write_stream(struct bio *bio)
{
	if (!blkcg_may_pin())
		return BLKCG_STREAM_ANY;
	return __blkcg_write_stream(bio);
}

unsigned int blkcg_confine_write_stream(struct bio *bio, unsigned int stream);
void blkcg_account_write_stream(struct bio *bio, bool fallback);
int blkcg_iostream_init_disk(struct gendisk *disk);
void blkcg_iostream_limits_changed(struct request_queue *q);
#else
/* No io.stream: no cgroup pins its writes. */
static inline bool blkcg_may_pin(void)
{
	return false;
}

static inline int blkcg_write_stream(struct bio *bio)
{
	return BLKCG_STREAM_ANY;
}

static inline unsigned int blkcg_confine_write_stream(struct bio *bio,
						      unsigned int stream)
{
	return stream;
}

static inline void blkcg_account_write_stream(struct bio *bio, bool fallback)
{
}

static inline int blkcg_iostream_init_disk(struct gendisk *disk)
{
	return 0;
}

static inline void blkcg_iostream_limits_changed(struct request_queue *q)
{
}
#endif

#endif /* BLK_IOSTREAM_H */
