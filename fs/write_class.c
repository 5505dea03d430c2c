// SPDX-License-Identifier: GPL-2.0
/*
 * Write classes of files.
 *
 * A write stream placement policy that learns which data die together
 * (block/lifetime/) needs to tell writes of different kinds of file
 * apart: an LSM tree's tables from its write-ahead log, a database's redo
 * log from its tablespaces.  The block layer sees only bios.  So, as a
 * file's lifetime hint (i_write_hint) reaches its bios, its write class
 * does: the VFS gives the inode of a regular file opened for writing the
 * class of the name it was opened by, and each filesystem copies the
 * inode's class into the bios it builds for the file's data, next to the
 * hint (bio_set_write_class()).
 *
 * A class is a 16-bit hash of the file's name pattern: the names of its
 * directory and itself with digits dropped, and a name of 8 or more hex
 * digits only (PostgreSQL's WAL segments, hashes) dropped whole, so that
 * 000123.sst and 000124.sst, or two WAL segments, share a class.  A
 * table of the last name seen per class slot lets a policy show what a
 * class stands for.
 *
 * Classes cost a walk of two names at each open for writing, so they are
 * only given while a user wants them (write_class_enable()), and only to
 * files of filesystems on block devices (FS_REQUIRES_DEV).  A file
 * keeps the class of its last open for writing: a file opened while no
 * one wanted classes has none until it is opened again, and a renamed
 * file takes its new class when next opened.
 */
#include <linux/ctype.h>
#include <linux/dcache.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/jump_label_ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/write_class.h>

#include "internal.h"

/*
 * Its last drop is left to a work item, a second later: users drop it
 * where cpu_hotplug_lock, which a static key's update takes, must not be
 * taken, such as a disk's removal with its queue frozen.
 */
DEFINE_STATIC_KEY_DEFERRED_FALSE(write_class_wanted, HZ);

/*
 * The longest name read of the file and of its directory: longer names
 * are classed, and named, by their first 64 bytes.
 */
#define WRITE_CLASS_READ_LEN	64
#define WRITE_CLASS_NAMES_BITS	8

/*
 * A raw spinlock, taken with interrupts off: readers may run in any
 * context but NMI, also on PREEMPT_RT, and hold it for a copy of a name.
 * Writers only try it.
 */
static DEFINE_RAW_SPINLOCK(write_class_names_lock);
static struct {
	u16 wclass;
	char name[WRITE_CLASS_NAME_LEN];
} write_class_names[1 << WRITE_CLASS_NAMES_BITS];

/**
 * write_class_enable - start giving files write classes
 *
 * Counted: classes are given until each caller has called
 * write_class_disable().
 *
 * Context: process context; may sleep.
 */
void write_class_enable(void)
{
	static_branch_deferred_inc(&write_class_wanted);
}
EXPORT_SYMBOL_FOR_MODULES(write_class_enable, "blk-lifetime");

/**
 * write_class_disable - drop a write_class_enable()
 *
 * Files keep the classes they have.  The last drop takes effect a second
 * later, from a work item.
 *
 * Context: process context; takes no lock, so may be called with a
 * queue frozen.
 */
void write_class_disable(void)
{
	static_branch_slow_dec_deferred(&write_class_wanted);
}
EXPORT_SYMBOL_FOR_MODULES(write_class_disable, "blk-lifetime");

/**
 * write_class_pattern - add a name's pattern to a hash
 * @s: the name
 * @len: its length
 * @h: the hash so far
 * @buf: if not %NULL, receives the pattern at *@n, while it has room
 *	(WRITE_CLASS_NAME_LEN - 1 bytes in all), with each byte that is not
 *	printable ASCII, or is a space, as '?'; not NUL-terminated
 * @n: where the pattern goes on in @buf, updated
 *
 * The pattern of a name is the name with digits dropped, or nothing if
 * it is 8 or more hex digits only.  A policy may class other names, such
 * as a task's, the way files are classed.
 *
 * Context: any context.
 * Return: @h with the pattern added.
 */
u32 write_class_pattern(const unsigned char *s, unsigned int len, u32 h,
			char *buf, unsigned int *n)
{
	bool hex = len >= 8;
	unsigned int i;

	for (i = 0; i < len && hex; i++)
		hex = isxdigit(s[i]);
	if (hex)
		return h;
	for (i = 0; i < len; i++) {
		if (isdigit(s[i]))
			continue;
		h = h * 31 + s[i];
		if (buf && *n < WRITE_CLASS_NAME_LEN - 1)
			buf[(*n)++] = s[i] > ' ' && s[i] < 0x7f ? s[i] : '?';
	}
	return h;
}
EXPORT_SYMBOL_FOR_MODULES(write_class_pattern, "blk-lifetime");

/*
 * Copy the name of @dentry, at most WRITE_CLASS_READ_LEN bytes, into
 * @buf; return its length.  Under RCU and a read of rename_lock, which
 * the caller checks: a rename may change the name meanwhile.  As in
 * prepend_name(), the name is read after its pointer, and only up to a
 * NUL, so a length and a pointer from either side of a rename stay
 * within one name.
 */
static unsigned int write_class_copy_name(const struct dentry *dentry,
					  unsigned char *buf)
{
	/* Pairs with the release in __d_alloc(). */
	const unsigned char *s = smp_load_acquire(&dentry->d_name.name);
	unsigned int len = min(READ_ONCE(dentry->d_name.len),
			       WRITE_CLASS_READ_LEN);
	unsigned int i;

	for (i = 0; i < len; i++) {
		buf[i] = READ_ONCE(s[i]);
		if (!buf[i])
			break;
	}
	return i;
}

/*
 * Hash the name patterns of @dentry's directory and @dentry into a class,
 * and put them, "dir/name", in @buf.  Takes no reference: the names are
 * read under RCU, and again under rename_lock if a rename ran meanwhile,
 * as d_path() reads them.
 */
static u16 write_class_of(const struct dentry *dentry, char *buf)
{
	unsigned char name[WRITE_CLASS_READ_LEN];
	const struct dentry *parent;
	unsigned int len, n;
	int seq = 0;
	u32 h;

	rcu_read_lock();
restart:
	read_seqbegin_or_lock(&rename_lock, &seq);
	n = 0;
	h = 17;
	parent = READ_ONCE(dentry->d_parent);
	if (parent != dentry) {
		len = write_class_copy_name(parent, name);
		h = write_class_pattern(name, len, h, buf, &n);
	}
	h = h * 31 + '/';
	if (n < WRITE_CLASS_NAME_LEN - 1)
		buf[n++] = '/';
	len = write_class_copy_name(dentry, name);
	h = write_class_pattern(name, len, h, buf, &n);
	if (need_seqretry(&rename_lock, seq)) {
		seq = 1;
		goto restart;
	}
	done_seqretry(&rename_lock, seq);
	rcu_read_unlock();
	buf[n] = 0;
	return WRITE_CLASS_FIRST + h % (U16_MAX + 1 - WRITE_CLASS_FIRST);
}

/**
 * __file_set_write_class - give a file's inode the class of its name
 * @file: a file just opened
 *
 * Only a regular file opened for writing, on a filesystem that needs a
 * block device, gets a class.  The name goes to the table when the
 * inode's class changes, or when the class's slot is empty, and only if
 * no one else holds the table: opens of files that keep their class do
 * not write to anything shared.
 *
 * Context: do_dentry_open(), while write_class_wanted is on.
 */
void __file_set_write_class(struct file *file)
{
	struct inode *inode = file_inode(file);
	char buf[WRITE_CLASS_NAME_LEN] = { };
	unsigned long flags;
	unsigned int slot;
	u16 wclass;

	if (!(file->f_mode & FMODE_WRITE) || !S_ISREG(inode->i_mode) ||
	    !(inode->i_sb->s_type->fs_flags & FS_REQUIRES_DEV))
		return;
	wclass = write_class_of(file->f_path.dentry, buf);
	slot = wclass & ((1 << WRITE_CLASS_NAMES_BITS) - 1);
	if (READ_ONCE(inode->i_write_class) != wclass)
		inode_set_write_class(inode, wclass);
	else if (READ_ONCE(write_class_names[slot].wclass))
		return;
	if (!raw_spin_trylock_irqsave(&write_class_names_lock, flags))
		return;
	WRITE_ONCE(write_class_names[slot].wclass, wclass);
	memcpy(write_class_names[slot].name, buf, sizeof(buf));
	raw_spin_unlock_irqrestore(&write_class_names_lock, flags);
}

/**
 * write_class_name - the name pattern a write class was last seen for
 * @wclass: a class of a file name pattern
 * @buf: receives the name, NUL-terminated, e.g. "db/.sst"
 * @size: the size of @buf
 *
 * Context: any context but NMI.
 * Return: %false, and @buf unchanged, if the name was not kept: another
 * class took its slot in the table, or none was seen yet.
 */
bool write_class_name(u16 wclass, char *buf, size_t size)
{
	unsigned int slot = wclass & ((1 << WRITE_CLASS_NAMES_BITS) - 1);
	char name[WRITE_CLASS_NAME_LEN];
	unsigned long flags;
	bool found;

	if (wclass < WRITE_CLASS_FIRST)
		return false;
	raw_spin_lock_irqsave(&write_class_names_lock, flags);
	found = write_class_names[slot].wclass == wclass;
	if (found)
		memcpy(name, write_class_names[slot].name, sizeof(name));
	raw_spin_unlock_irqrestore(&write_class_names_lock, flags);
	if (found)
		strscpy(buf, name, size);
	return found;
}
EXPORT_SYMBOL_FOR_MODULES(write_class_name, "blk-lifetime");
