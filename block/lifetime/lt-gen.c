// SPDX-License-Identifier: GPL-2.0
/*
 * Generations of files for the lifetime policy.
 *
 * An LSM tree's files all look alike by name and are written by the same
 * threads, yet a file written by a compaction of shallow files dies much
 * sooner than one written from deep files.  The number of compactions
 * behind a file, its generation, tells them apart: a file written by a
 * thread that read nothing lately (a flush) has generation 0, and one
 * written by a thread that read files has one more than the lowest
 * generation it read (lt_gen_note_create() in lt-core.h).
 *
 * The block layer sees neither those reads, which mostly hit the page
 * cache, nor which thread wrote a file's pages.  So, for each filesystem
 * a disk with the policy carries writes for, the policy puts an fsnotify
 * mark on the filesystem, asking for two events that arrive in the
 * context of the task that causes them: a file's creation, which gives
 * the file its generation from the creating thread's record, and a read,
 * which updates the reading thread's record.  A thread's reads of the
 * last file it created are not counted: a writer that reads back what it
 * just wrote (RocksDB checks each new table) is not compacting it, while
 * one that reads its older files (a compaction of the level it wrote
 * before) is.
 *
 * Generations live in a small table indexed by inode, in a seqlock:
 * files are created seldom and looked up on every counted read and on
 * labelling a write.  A file whose slot is taken by a newer one loses
 * its generation; its writes keep their other labels.  Thread records
 * are in a table indexed by pid; a thread only writes its own slot, and
 * two threads sharing a slot only blur each other's record until the
 * next read.
 *
 * The mark stays until the filesystem is unmounted, the disk leaves the
 * policy, generations are turned off or the module is unloaded.  While it
 * is there, every read and write on the filesystem goes through fsnotify,
 * as with any watch; that, and gains within the scatter of runs on
 * shallow LSM trees, is why the generations parameter is off by default.
 */
#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/fsnotify_backend.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "lt-core.h"
#include "lt-gen.h"

#define LT_GEN_FILE_BITS	12
#define LT_GEN_THREAD_BITS	8
#define LT_GEN_MAX_SBS		16
#define LT_GEN_IDLE		(5 * HZ)	/* a thread's reads go stale */

static bool generations;
/* The module is going: set and read under its parameter lock. */
static bool lt_gen_exiting;
static int lt_gen_param_set(const char *val, const struct kernel_param *kp);
static const struct kernel_param_ops lt_gen_param_ops = {
	.set = lt_gen_param_set,
	.get = param_get_bool,
};
module_param_cb(generations, &lt_gen_param_ops, &generations, 0644);
MODULE_PARM_DESC(generations,
		 "Label file writes by generation, inferred from the files the creating thread read (default: off)");

/**
 * struct lt_gen_file - the generation of one file
 * @inode: the file's inode; only compared
 * @ino: its number, against a freed inode's address being reused
 * @igen: its i_generation, likewise
 * @creator: the pid that created it
 * @gen: its generation
 */
struct lt_gen_file {
	const struct inode *inode;
	unsigned long ino;
	u32 igen;
	pid_t creator;
	u8 gen;
};

/**
 * struct lt_gen_thread - what a thread read, and its last file
 * @rec: the record of lt_gen_note_read() and lt_gen_note_create()
 * @file: the lt_gen_files slot of the last file it created, plus one
 */
struct lt_gen_thread {
	u64 rec;
	u32 file;
};

static struct lt_gen_file lt_gen_files[1 << LT_GEN_FILE_BITS];
static DEFINE_SEQLOCK(lt_gen_files_lock);
static struct lt_gen_thread lt_gen_threads[1 << LT_GEN_THREAD_BITS];

/**
 * struct lt_gen_sb - the policy's watch on one filesystem
 * @mark: the fsnotify mark on its superblock
 * @work: adds @mark
 * @sb: the superblock; only compared once @mark is added
 * @disk: the disk that asked for the watch; only compared
 * @listed: the watch is, or is about to be, in place; whoever clears it
 *	drops the reference the table holds on @mark
 * @used: the slot is taken until fsnotify frees @mark
 *
 * The slots are static, so that the bio that asks for a watch allocates
 * nothing.
 */
struct lt_gen_sb {
	struct fsnotify_mark mark;
	struct work_struct work;
	struct super_block *sb;
	const struct gendisk *disk;
	bool listed;
	bool used;
};

static struct fsnotify_group *lt_gen_group;
static struct workqueue_struct *lt_gen_wq;
static struct lt_gen_sb lt_gen_sbs[LT_GEN_MAX_SBS];
static DEFINE_SPINLOCK(lt_gen_lock);	/* lt_gen_sbs[]: listed, used */
/* The last filesystem looked up or added, under lt_gen_lock; NULL if gone. */
static struct super_block *lt_gen_last_sb;
static atomic_long_t lt_gen_nr_files;
static DEFINE_PER_CPU(unsigned long, lt_gen_nr_reads);

static struct lt_gen_file *lt_gen_slot(const struct inode *inode)
{
	return &lt_gen_files[hash_ptr(inode, LT_GEN_FILE_BITS)];
}

/* The generation entry of @inode in @f; false if it has none. */
static bool lt_gen_find(const struct inode *inode, struct lt_gen_file *f)
{
	const struct lt_gen_file *slot = lt_gen_slot(inode);
	unsigned int seq;

	do {
		seq = read_seqbegin(&lt_gen_files_lock);
		*f = *slot;
	} while (read_seqretry(&lt_gen_files_lock, seq));
	return f->inode == inode && f->ino == inode->i_ino &&
	       f->igen == inode->i_generation;
}

static struct lt_gen_thread *lt_gen_thread(void)
{
	return &lt_gen_threads[hash_32(current->pid, LT_GEN_THREAD_BITS)];
}

static void lt_gen_created(struct inode *inode)
{
	struct lt_gen_thread *t = lt_gen_thread();
	struct lt_gen_file *f = lt_gen_slot(inode);
	u64 rec = READ_ONCE(t->rec);
	unsigned long flags;
	u32 gen;

	gen = lt_gen_note_create(&rec, current->pid, jiffies, LT_GEN_IDLE);
	WRITE_ONCE(t->rec, rec);
	WRITE_ONCE(t->file, f - lt_gen_files + 1);
	/* Writes are labelled in any context, so readers may interrupt. */
	write_seqlock_irqsave(&lt_gen_files_lock, flags);
	f->inode = inode;
	f->ino = inode->i_ino;
	f->igen = inode->i_generation;
	f->creator = current->pid;
	f->gen = gen;
	write_sequnlock_irqrestore(&lt_gen_files_lock, flags);
	atomic_long_inc(&lt_gen_nr_files);
}

static void lt_gen_read(struct inode *inode)
{
	struct lt_gen_thread *t = lt_gen_thread();
	struct lt_gen_file f;

	if (!lt_gen_find(inode, &f))
		return;
	/* Reading back the file it just wrote. */
	if (f.creator == current->pid &&
	    READ_ONCE(t->file) == lt_gen_slot(inode) - lt_gen_files + 1)
		return;
	WRITE_ONCE(t->rec, lt_gen_note_read(READ_ONCE(t->rec), current->pid,
					    f.gen, jiffies, LT_GEN_IDLE));
	this_cpu_inc(lt_gen_nr_reads);
}

/* Events of the superblock marks, which only the full handler may take. */
static int lt_gen_event(struct fsnotify_group *group, u32 mask,
			const void *data, int data_type, struct inode *dir,
			const struct qstr *name, u32 cookie,
			struct fsnotify_iter_info *iter_info)
{
	struct inode *inode = fsnotify_data_inode(data, data_type);

	if (!READ_ONCE(generations) || !inode || !S_ISREG(inode->i_mode))
		return 0;
	if (mask & FS_CREATE)
		lt_gen_created(inode);
	else if (mask & FS_ACCESS)
		lt_gen_read(inode);
	return 0;
}

/* Unlist @w, under lt_gen_lock; true if it was listed. */
static bool __lt_gen_unlist(struct lt_gen_sb *w)
{
	if (!w->listed)
		return false;
	w->listed = false;
	if (lt_gen_last_sb == w->sb)
		WRITE_ONCE(lt_gen_last_sb, NULL);
	return true;
}

/* Unlist @w; true if this caller did and owns the table's reference. */
static bool lt_gen_unlist(struct lt_gen_sb *w)
{
	unsigned long flags;
	bool listed;

	spin_lock_irqsave(&lt_gen_lock, flags);
	listed = __lt_gen_unlist(w);
	spin_unlock_irqrestore(&lt_gen_lock, flags);
	return listed;
}

/* The filesystem went away (or the watch was ended): forget it. */
static void lt_gen_freeing_mark(struct fsnotify_mark *mark,
				struct fsnotify_group *group)
{
	struct lt_gen_sb *w = container_of(mark, struct lt_gen_sb, mark);

	/* The caller holds a reference of its own. */
	if (lt_gen_unlist(w))
		fsnotify_put_mark(mark);
}

static void lt_gen_free_mark(struct fsnotify_mark *mark)
{
	struct lt_gen_sb *w = container_of(mark, struct lt_gen_sb, mark);
	unsigned long flags;

	spin_lock_irqsave(&lt_gen_lock, flags);
	w->used = false;
	spin_unlock_irqrestore(&lt_gen_lock, flags);
}

static const struct fsnotify_ops lt_gen_ops = {
	.handle_event = lt_gen_event,
	.freeing_mark = lt_gen_freeing_mark,
	.free_mark = lt_gen_free_mark,
};

static void lt_gen_add_work(struct work_struct *work)
{
	struct lt_gen_sb *w = container_of(work, struct lt_gen_sb, work);
	struct super_block *sb = w->sb;
	unsigned int noio;

	/*
	 * The policy's exit_disk flushes this work inside the disk's
	 * freeze: the mark's allocations must not wait for I/O.
	 */
	noio = memalloc_noio_save();
	/* Generations turned off since the watch was asked for: no mark. */
	if ((!READ_ONCE(generations) ||
	     fsnotify_add_mark(&w->mark, sb, FSNOTIFY_OBJ_TYPE_SB, 0)) &&
	    lt_gen_unlist(w))
		fsnotify_put_mark(&w->mark);
	memalloc_noio_restore(noio);
	deactivate_super(sb);
}

/**
 * lt_gen_watch() - watch the filesystem of a file that @disk is written for
 * @disk: the disk
 * @sb: the file's superblock, alive while the caller's write is
 *
 * Any context.  The mark is added from a workqueue, holding the
 * filesystem active meanwhile; a filesystem going away is not watched.
 */
void lt_gen_watch(const struct gendisk *disk, struct super_block *sb)
{
	struct lt_gen_sb *w, *free = NULL;
	unsigned long flags;

	if (!lt_gen_group || !READ_ONCE(generations) ||
	    READ_ONCE(lt_gen_last_sb) == sb)
		return;
	spin_lock_irqsave(&lt_gen_lock, flags);
	for (w = lt_gen_sbs; w < lt_gen_sbs + LT_GEN_MAX_SBS; w++) {
		if (w->listed && w->sb == sb) {
			WRITE_ONCE(lt_gen_last_sb, sb);
			goto out;
		}
		if (!w->used && !free)
			free = w;
	}
	if (!free || !atomic_inc_not_zero(&sb->s_active))
		goto out;
	w = free;
	fsnotify_init_mark(&w->mark, lt_gen_group);
	w->mark.mask = FS_CREATE | FS_ACCESS;
	w->sb = sb;
	w->disk = disk;
	w->listed = true;
	w->used = true;
	WRITE_ONCE(lt_gen_last_sb, sb);
	queue_work(lt_gen_wq, &w->work);
out:
	spin_unlock_irqrestore(&lt_gen_lock, flags);
}

/*
 * End the watches @disk asked for, or all if @disk is NULL.  Unlisting
 * a watch hands us the table's reference on its mark; a mark still
 * being added is in place once the workqueue is flushed, and a mark
 * that was never added is destroyed all the same (a no-op) and freed by
 * the last reference.
 */
void lt_gen_forget(const struct gendisk *disk)
{
	DECLARE_BITMAP(gone, LT_GEN_MAX_SBS);
	unsigned int i;

	if (!lt_gen_group)
		return;
	bitmap_zero(gone, LT_GEN_MAX_SBS);
	spin_lock_irq(&lt_gen_lock);
	for (i = 0; i < LT_GEN_MAX_SBS; i++) {
		struct lt_gen_sb *w = &lt_gen_sbs[i];

		if ((!disk || w->disk == disk) && __lt_gen_unlist(w))
			__set_bit(i, gone);
	}
	spin_unlock_irq(&lt_gen_lock);
	flush_workqueue(lt_gen_wq);
	for_each_set_bit(i, gone, LT_GEN_MAX_SBS) {
		fsnotify_destroy_mark(&lt_gen_sbs[i].mark, lt_gen_group);
		fsnotify_put_mark(&lt_gen_sbs[i].mark);
	}
}

/*
 * Writing 0 to the parameter also ends every watch, so that the
 * filesystems' reads and writes stop going through fsnotify for us.  A
 * watch asked for by a write that still saw 1, too late for
 * lt_gen_forget() to find, is not added: lt_gen_add_work() sees 0.
 */
static int lt_gen_param_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_bool(val, kp);

	/* Under the module's parameter lock, as lt_gen_exit()'s update. */
	if (!ret && !READ_ONCE(generations) && !lt_gen_exiting)
		lt_gen_forget(NULL);
	return ret;
}

/**
 * lt_gen_of() - the generation of a file, for its writes' label
 * @inode: the file
 *
 * Any context.
 *
 * Return: its generation plus one, 0 if it has none.
 */
u32 lt_gen_of(const struct inode *inode)
{
	struct lt_gen_file f;

	if (!READ_ONCE(generations) || !lt_gen_find(inode, &f))
		return 0;
	return f.gen + 1;
}

/* Lines of the stats file: the module's, shared by its disks. */
void lt_gen_show(struct seq_file *m)
{
	unsigned long reads = 0;
	unsigned int cpu, sbs = 0, i;

	for_each_possible_cpu(cpu)
		reads += per_cpu(lt_gen_nr_reads, cpu);
	for (i = 0; i < LT_GEN_MAX_SBS; i++)
		sbs += READ_ONCE(lt_gen_sbs[i].listed);
	seq_printf(m, "generations %d\ngen_filesystems %u\ngen_files %ld\ngen_reads %lu\n",
		   READ_ONCE(generations), sbs,
		   atomic_long_read(&lt_gen_nr_files), reads);
}

int lt_gen_init(void)
{
	unsigned int i;

	/* Once: a slot taken again may find its last run still running. */
	for (i = 0; i < LT_GEN_MAX_SBS; i++)
		INIT_WORK(&lt_gen_sbs[i].work, lt_gen_add_work);
	lt_gen_wq = alloc_workqueue("lifetime_gen", WQ_UNBOUND, 1);
	if (!lt_gen_wq)
		return -ENOMEM;
	lt_gen_group = fsnotify_alloc_group(&lt_gen_ops, 0);
	if (IS_ERR(lt_gen_group)) {
		int ret = PTR_ERR(lt_gen_group);

		lt_gen_group = NULL;
		destroy_workqueue(lt_gen_wq);
		return ret;
	}
	return 0;
}

/* Whether a slot's mark is not yet freed (lt_gen_free_mark()). */
static bool lt_gen_any_used(void)
{
	bool used = false;
	unsigned int i;

	spin_lock_irq(&lt_gen_lock);
	for (i = 0; i < LT_GEN_MAX_SBS; i++)
		used |= lt_gen_sbs[i].used;
	spin_unlock_irq(&lt_gen_lock);
	return used;
}

void lt_gen_exit(void)
{
	if (!lt_gen_group)
		return;
	/*
	 * The parameter's file outlives this function: a write of 0 to it
	 * from now on must not touch the workqueue.
	 */
	kernel_param_lock(THIS_MODULE);
	lt_gen_exiting = true;
	kernel_param_unlock(THIS_MODULE);
	lt_gen_forget(NULL);
	destroy_workqueue(lt_gen_wq);
	fsnotify_put_group(lt_gen_group);
	/*
	 * Our free_mark() must have run, and returned, before the module
	 * goes.  An unmount destroying a mark meanwhile may hold the last
	 * reference a while before the reaper gets the mark.
	 */
	while (lt_gen_any_used())
		msleep(20);
	fsnotify_wait_marks_destroyed();
}
