/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BLK_IOSTREAM_H
#define BLK_IOSTREAM_H

struct bio;
struct gendisk;

#ifdef CONFIG_BLK_CGROUP_IOSTREAM
int blkcg_write_stream(struct bio *bio);
void blkcg_account_write_stream(struct bio *bio, bool fallback);
int blkcg_iostream_init_disk(struct gendisk *disk);
#else
/* No io.stream: no cgroup pins its writes. */
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
