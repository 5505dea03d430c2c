/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Write classes: which kind of file a write belongs to, for write stream
 * placement.  See fs/write_class.c.
 */
#ifndef _LINUX_WRITE_CLASS_H
#define _LINUX_WRITE_CLASS_H

#include <linux/blk_types.h>
#include <linux/fs.h>
#include <linux/types.h>

/* No class: not a regular file, or opened while no one asked. */
#define WRITE_CLASS_NONE	0
/* The page cache of a block device. */
#define WRITE_CLASS_BDEV	1
/* The lowest class of a file name pattern. */
#define WRITE_CLASS_FIRST	2

/* The longest class name, with its NUL. */
#define WRITE_CLASS_NAME_LEN	24

#ifdef CONFIG_FS_WRITE_CLASS
void write_class_enable(void);
void write_class_disable(void);
bool write_class_name(u16 wclass, char *buf, size_t size);
u32 write_class_pattern(const unsigned char *s, unsigned int len, u32 h,
			char *buf, unsigned int *n);

/**
 * inode_set_write_class - set the write class of an inode
 * @inode: the inode
 * @wclass: its class: WRITE_CLASS_BDEV, or one of a name pattern
 *
 * Context: any context.
 */
static inline void inode_set_write_class(struct inode *inode, u16 wclass)
{
	WRITE_ONCE(inode->i_write_class, wclass);
}

/**
 * bio_set_write_class - give a bio the write class of its file
 * @bio: a bio built for data of @inode
 * @inode: the file's inode
 *
 * Filesystems call it where they build bios of a file's data, next to
 * setting bi_write_hint.
 *
 * Context: any context.
 */
static inline void bio_set_write_class(struct bio *bio,
				       const struct inode *inode)
{
	bio->bi_write_class = READ_ONCE(inode->i_write_class);
}

/**
 * bio_clear_write_class - give a bio no write class
 * @bio: a bio being initialised
 *
 * Context: any context.
 */
static inline void bio_clear_write_class(struct bio *bio)
{
	bio->bi_write_class = WRITE_CLASS_NONE;
}

/**
 * bio_write_class - the write class of a bio
 * @bio: the bio
 *
 * Context: any context.
 * Return: the class its filesystem gave it, or WRITE_CLASS_NONE.
 */
static inline u16 bio_write_class(const struct bio *bio)
{
	return bio->bi_write_class;
}
#else
static inline void write_class_enable(void)
{
}

static inline void write_class_disable(void)
{
}

static inline bool write_class_name(u16 wclass, char *buf, size_t size)
{
	return false;
}

static inline u32 write_class_pattern(const unsigned char *s, unsigned int len,
				      u32 h, char *buf, unsigned int *n)
{
	return h;
}

static inline void inode_set_write_class(struct inode *inode, u16 wclass)
{
}

static inline void bio_set_write_class(struct bio *bio,
				       const struct inode *inode)
{
}

static inline void bio_clear_write_class(struct bio *bio)
{
}

static inline u16 bio_write_class(const struct bio *bio)
{
	return WRITE_CLASS_NONE;
}
#endif

#endif /* _LINUX_WRITE_CLASS_H */
