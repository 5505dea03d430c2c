// SPDX-License-Identifier: GPL-2.0
/*
 * Per-disk write stream placement policies.
 *
 * A placement policy is rule 4 of the write stream decision point (see
 * blk-stream.c): it places the writes that neither the submitter, nor the
 * io.stream setting of the bio's cgroup, nor the filesystem placed.
 * Policies register here, as I/O schedulers register with the elevator
 * core, and are chosen per disk in queue/write_stream_policy.  "none", the
 * default, leaves every such write on the device's default placement.
 *
 * A disk's policy is published with RCU: a switch builds the new policy's
 * state, installs it, waits for a grace period and only then tears the
 * old one down, so a bio being decided sees one policy or the other and
 * switching under I/O is safe.  A policy module cannot be unloaded while
 * a disk uses it.
 *
 * Policies can also run in shadow (queue/write_stream_shadow), a few at
 * once next to the live one: each is asked about the same writes and
 * shown the same bios as a live instance would be, and its choice goes to
 * the block_write_stream_shadow tracepoint only, never to the bio.  One
 * traced run then gives every such policy's placement of the same writes.
 * The list is published with RCU as the live policy is.
 *
 * Locking.  blk_stream_mutex protects the list of policies and nothing
 * else: a policy found on it is kept by a reference on its module, taken
 * under it.  A disk's own settings (its policy, its policies in shadow and
 * the hint map) are changed under the disk's lock, blk_stream_disk.lock,
 * which a change holds while it sets up the new policy, waits for the
 * grace period and tears the old one down; del_gendisk() never takes it.
 * The change installs its policy under the queue's elevator_lock, and
 * only on a disk that is not dead (GD_DEAD).  del_gendisk() marks the disk
 * dead and then, in blk_stream_disk_exit(), takes the policies off under
 * the same lock.  So a policy is either installed before and taken off by
 * blk_stream_disk_exit(), or refused and torn down by the change that set
 * it up, even if that store comes after blk_stream_disk_exit() and before
 * the queue's sysfs files go.  Nothing under elevator_lock allocates or
 * waits: del_gendisk() takes it while the queue drains, as it does for
 * the elevator.
 *
 * Why elevator_lock and not a lock of the disk's placement state: that
 * state is allocated when a setting is first written, so it may not exist
 * yet when blk_stream_disk_exit() runs, and a store may make it at any
 * moment until the queue's sysfs files go.  The lock that orders the two
 * must exist for every disk, and elevator_lock does, is taken by
 * del_gendisk() already, and is held here only to swap two pointers.  A
 * store may wait behind an elevator switch; that is the cost.
 */

#include <linux/blkdev.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "blk.h"
#include "blk-stream.h"

/* Protects the list of policies, and only that. */
static DEFINE_MUTEX(blk_stream_mutex);
static LIST_HEAD(blk_stream_policies);

static struct blk_stream_policy *blk_stream_find_policy(const char *name)
{
	struct blk_stream_policy *pol;

	lockdep_assert_held(&blk_stream_mutex);
	list_for_each_entry(pol, &blk_stream_policies, list)
		if (!strcmp(pol->name, name))
			return pol;
	return NULL;
}

/*
 * The policy called @name, with a reference on its module; NULL if there
 * is none or its module is going away.
 */
static const struct blk_stream_policy *blk_stream_get_policy(const char *name)
{
	struct blk_stream_policy *pol;

	mutex_lock(&blk_stream_mutex);
	pol = blk_stream_find_policy(name);
	if (pol && !try_module_get(pol->owner))
		pol = NULL;
	mutex_unlock(&blk_stream_mutex);
	return pol;
}

/**
 * blk_stream_register_policy - make a placement policy available
 * @pol: the policy
 *
 * Return: 0, or -EINVAL if the name is reserved or already registered.
 */
int blk_stream_register_policy(struct blk_stream_policy *pol)
{
	int ret = 0;

	if (!pol->name || !pol->decide || !strcmp(pol->name, "none"))
		return -EINVAL;

	mutex_lock(&blk_stream_mutex);
	if (blk_stream_find_policy(pol->name))
		ret = -EINVAL;
	else
		list_add_tail(&pol->list, &blk_stream_policies);
	mutex_unlock(&blk_stream_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(blk_stream_register_policy);

/**
 * blk_stream_unregister_policy - withdraw a placement policy
 * @pol: the policy
 *
 * No disk can be using @pol: each one holds a reference on its module.
 */
void blk_stream_unregister_policy(struct blk_stream_policy *pol)
{
	mutex_lock(&blk_stream_mutex);
	list_del_init(&pol->list);
	mutex_unlock(&blk_stream_mutex);
}
EXPORT_SYMBOL_GPL(blk_stream_unregister_policy);

/**
 * blk_stream_debugfs_create - make a policy's directory in the queue's debugfs
 * @disk: the disk the policy runs on
 * @name: the directory's name
 * @files: the files to make in it, up to an entry with no name
 * @data: the files' private data
 *
 * The queue's debugfs directory is the block layer's: it is changed under
 * the queue's debugfs_mutex, in NOIO context so that reclaim cannot write
 * to a queue that may be frozen.  It only exists once the queue is
 * registered, and a store can set a policy up just before: then nothing
 * is made, rather than a directory at the top of debugfs.
 *
 * Return: the directory, for blk_stream_debugfs_remove(), or NULL.
 */
struct dentry *
blk_stream_debugfs_create(struct gendisk *disk, const char *name,
			  const struct blk_stream_debugfs_file *files,
			  void *data)
{
	struct request_queue *q = disk->queue;
	struct dentry *dir = NULL;
	unsigned int memflags;

	memflags = blk_debugfs_lock(q);
	if (!IS_ERR_OR_NULL(q->debugfs_dir)) {
		dir = debugfs_create_dir(name, q->debugfs_dir);
		for (; !IS_ERR(dir) && files->name; files++)
			debugfs_create_file(files->name, files->mode, dir, data,
					    files->fops);
	}
	blk_debugfs_unlock(q, memflags);
	return IS_ERR(dir) ? NULL : dir;
}
EXPORT_SYMBOL_GPL(blk_stream_debugfs_create);

/**
 * blk_stream_debugfs_remove - remove a policy's directory from debugfs
 * @disk: the disk the policy runs on
 * @dir: the directory from blk_stream_debugfs_create(), or NULL
 */
void blk_stream_debugfs_remove(struct gendisk *disk, struct dentry *dir)
{
	unsigned int memflags;

	if (!dir)
		return;
	memflags = blk_debugfs_lock(disk->queue);
	debugfs_remove_recursive(dir);
	blk_debugfs_unlock(disk->queue, memflags);
}
EXPORT_SYMBOL_GPL(blk_stream_debugfs_remove);

/*
 * The disk's policy and policies in shadow, under the queue's
 * elevator_lock: once it is dropped, blk_stream_disk_exit() may take them
 * off and free them.
 */
static struct blk_stream_active *
blk_stream_active(struct gendisk *disk, struct blk_stream_disk *sd)
{
	return rcu_dereference_protected(sd->active,
			lockdep_is_held(&disk->queue->elevator_lock));
}

static struct blk_stream_shadow *
blk_stream_shadow(struct gendisk *disk, struct blk_stream_disk *sd)
{
	return rcu_dereference_protected(sd->shadow,
			lockdep_is_held(&disk->queue->elevator_lock));
}

/* Tear down a policy's instance on @disk that no bio can reach any more. */
static void blk_stream_instance_exit(struct gendisk *disk,
				     struct blk_stream_active *inst)
{
	if (inst->pol->exit_disk)
		inst->pol->exit_disk(disk, inst->data);
	module_put(inst->pol->owner);
}

/*
 * Tear down and free a live policy; it drops its hold on decisions, later
 * if @frozen (the queue may be frozen: see blk_stream_put_deferred()).
 */
static void blk_stream_active_free(struct gendisk *disk,
				   struct blk_stream_active *act, bool frozen)
{
	blk_stream_instance_exit(disk, act);
	kfree(act);
	if (frozen)
		blk_stream_put_deferred(false);
	else
		blk_stream_put();
}

/*
 * Install @pol (NULL for "none") on @disk, under the disk's lock.  The
 * old policy's state is torn down after a grace period, so no bio is
 * still deciding with it.
 *
 * Return: 0, or -ENOMEM, or -ENODEV if the disk is being deleted, or the
 * error of the policy's init_disk().
 */
static int blk_stream_switch(struct gendisk *disk, struct blk_stream_disk *sd,
			     const struct blk_stream_policy *pol)
{
	struct request_queue *q = disk->queue;
	struct blk_stream_active *old, *new = NULL;
	bool same;
	int ret;

	lockdep_assert_held(&sd->lock);
	mutex_lock(&q->elevator_lock);
	old = blk_stream_active(disk, sd);
	same = old ? old->pol == pol : !pol;
	mutex_unlock(&q->elevator_lock);
	if (same)
		return 0;
	/*
	 * Set up nothing on a disk being deleted.  Only a hint: the check
	 * under elevator_lock below is the one that counts.
	 */
	if (test_bit(GD_DEAD, &disk->state))
		return -ENODEV;

	if (pol) {
		new = kzalloc_obj(*new, GFP_KERNEL);
		if (!new)
			return -ENOMEM;
		/* The caller holds a reference. */
		__module_get(pol->owner);
		new->pol = pol;
		if (pol->init_disk) {
			ret = pol->init_disk(disk, &new->data);
			if (ret) {
				module_put(pol->owner);
				kfree(new);
				/* Such as on the zero capacity of a dead disk. */
				return test_bit(GD_DEAD, &disk->state) ?
					-ENODEV : ret;
			}
		}
		blk_stream_get();
	}

	/*
	 * Only blk_stream_disk_exit() can have changed the policy since it
	 * was read, and it marked the disk dead first.
	 */
	mutex_lock(&q->elevator_lock);
	if (test_bit(GD_DEAD, &disk->state)) {
		mutex_unlock(&q->elevator_lock);
		if (new)
			blk_stream_active_free(disk, new, false);
		return -ENODEV;
	}
	rcu_assign_pointer(sd->active, new);
	mutex_unlock(&q->elevator_lock);

	if (old) {
		synchronize_rcu();
		blk_stream_active_free(disk, old, false);
	}
	return 0;
}

/*
 * Tear down the instances of @sh that @keep does not flag (a newer list
 * took them over), and free @sh, which drops its hold on decisions, later
 * if @frozen.  No bio may still be using it.
 */
static void blk_stream_shadow_free(struct gendisk *disk,
				   struct blk_stream_shadow *sh,
				   unsigned long keep, bool frozen)
{
	unsigned int i;

	for (i = 0; i < sh->nr; i++)
		if (!test_bit(i, &keep))
			blk_stream_instance_exit(disk, &sh->pol[i]);
	kfree(sh);
	if (frozen)
		blk_stream_put_deferred(true);
	else
		blk_stream_shadow_put();
}

/*
 * Run @pols in shadow on @disk, @nr of them (0 for none), under the
 * disk's lock.  A policy that already runs in shadow keeps its instance,
 * and what it learned; the others' instances are torn down after a grace
 * period, as a switch of the live policy does.
 *
 * Return: 0, or -ENOMEM, or -ENODEV if the disk is being deleted, or the
 * error of a policy's init_shadow().
 */
static int blk_stream_shadow_switch(struct gendisk *disk,
				    struct blk_stream_disk *sd,
				    const struct blk_stream_policy **pols,
				    unsigned int nr)
{
	struct request_queue *q = disk->queue;
	struct blk_stream_shadow *old, *new = NULL;
	struct blk_stream_shadow cur = { };
	unsigned long kept = 0, reused = 0;
	unsigned int i, j;
	int ret;

	lockdep_assert_held(&sd->lock);
	/* A copy: blk_stream_disk_exit() may free the list meanwhile. */
	mutex_lock(&q->elevator_lock);
	old = blk_stream_shadow(disk, sd);
	if (old)
		cur = *old;
	mutex_unlock(&q->elevator_lock);

	/* The same list, in the same order: nothing to do. */
	if (nr == cur.nr) {
		for (i = 0; i < nr; i++)
			if (cur.pol[i].pol != pols[i])
				break;
		if (i == nr)
			return 0;
	}
	/* As for the live policy: set up nothing on a dead disk. */
	if (test_bit(GD_DEAD, &disk->state))
		return -ENODEV;
	if (nr) {
		new = kzalloc_obj(*new, GFP_KERNEL);
		if (!new)
			return -ENOMEM;
		blk_stream_shadow_get();
	}
	for (i = 0; i < nr; i++) {
		for (j = 0; j < cur.nr; j++)
			if (cur.pol[j].pol == pols[i])
				break;
		if (j < cur.nr) {
			new->pol[i] = cur.pol[j];
			__set_bit(j, &kept);
			__set_bit(i, &reused);
			new->nr++;
			continue;
		}
		/* The caller holds a reference. */
		__module_get(pols[i]->owner);
		ret = pols[i]->init_shadow(disk, &new->pol[i].data);
		if (ret) {
			module_put(pols[i]->owner);
			if (test_bit(GD_DEAD, &disk->state))
				ret = -ENODEV;
			goto out_undo;
		}
		new->pol[i].pol = pols[i];
		new->nr++;
	}

	/* As for the live policy: only a dead disk's list can have changed. */
	mutex_lock(&q->elevator_lock);
	if (test_bit(GD_DEAD, &disk->state)) {
		mutex_unlock(&q->elevator_lock);
		ret = -ENODEV;
		goto out_undo;
	}
	rcu_assign_pointer(sd->shadow, new);
	mutex_unlock(&q->elevator_lock);

	if (old) {
		synchronize_rcu();
		blk_stream_shadow_free(disk, old, kept, false);
	}
	return 0;

out_undo:
	/* Tear down only the instances made here; the old list owns the others. */
	if (new)
		blk_stream_shadow_free(disk, new, reused, false);
	return ret;
}

/**
 * blk_stream_disk_get - the placement state of a disk, allocated if needed
 * @disk: the disk
 *
 * Takes no lock: of two callers that race, one allocates the state that
 * both get.
 *
 * Return: the state, or NULL if out of memory.
 */
struct blk_stream_disk *blk_stream_disk_get(struct gendisk *disk)
{
	struct blk_stream_disk *sd;

	/* Pairs with the cmpxchg() below. */
	sd = smp_load_acquire(&disk->write_streams);
	if (sd)
		return sd;
	sd = kzalloc_obj(*sd, GFP_KERNEL);
	if (!sd)
		return NULL;
	mutex_init(&sd->lock);
	sd->hint_map = BLK_STREAM_HINT_MAP_DEFAULT;
	/*
	 * A successful cmpxchg() is fully ordered: whoever reads the pointer
	 * sees it initialised.  A failed one is not ordered at all, so the
	 * winner's state is read again with acquire rather than taken from
	 * its return value.
	 */
	if (cmpxchg(&disk->write_streams, NULL, sd)) {
		mutex_destroy(&sd->lock);
		kfree(sd);
		/* Pairs with the winner's cmpxchg(). */
		sd = smp_load_acquire(&disk->write_streams);
	}
	return sd;
}

/**
 * blk_stream_policy_observe - show the disk's policy a bio it did not decide
 * @disk: the bio's disk
 * @bio: a write placed by an earlier rule, or a discard, secure erase or
 *	write zeroes
 * @stream: the stream the write got, 0 for the others
 */
void blk_stream_policy_observe(struct gendisk *disk, struct bio *bio,
			       unsigned int stream)
{
	/* Pairs with the cmpxchg() in blk_stream_disk_get(). */
	struct blk_stream_disk *sd = smp_load_acquire(&disk->write_streams);
	struct blk_stream_active *act;

	if (!sd)
		return;
	rcu_read_lock();
	act = rcu_dereference(sd->active);
	if (act && act->pol->observe)
		act->pol->observe(disk, act->data, bio, stream);
	rcu_read_unlock();
}

/**
 * blk_stream_confine_changed - tell a disk's policies that io.stream changed
 * @disk: a disk on which the effective io.stream set of a cgroup changed
 *
 * Calls the confine_changed op of the disk's live policy and of those in
 * shadow.  Called by io.stream under the disk's queue_lock, for a blkg
 * still online: the disk is not released meanwhile, and its policies are
 * freed only after a grace period.
 */
void blk_stream_confine_changed(struct gendisk *disk)
{
	/* Pairs with the cmpxchg() in blk_stream_disk_get(). */
	struct blk_stream_disk *sd = smp_load_acquire(&disk->write_streams);
	struct blk_stream_active *act;
	struct blk_stream_shadow *sh;
	unsigned int i;

	lockdep_assert_held(&disk->queue->queue_lock);
	if (!sd)
		return;
	rcu_read_lock();
	act = rcu_dereference(sd->active);
	if (act && act->pol->confine_changed)
		act->pol->confine_changed(disk, act->data);
	sh = rcu_dereference(sd->shadow);
	for (i = 0; sh && i < sh->nr; i++)
		if (sh->pol[i].pol->confine_changed)
			sh->pol[i].pol->confine_changed(disk, sh->pol[i].data);
	rcu_read_unlock();
}

/**
 * blk_stream_shadow_choose - ask the disk's shadow policies about a write
 * @bio: a write bio, its stream not yet stored
 * @stream: the stream the decision point chose for it
 * @rule: the rule that chose it
 * @choice: gets each shadow policy's stream, %BLK_STREAM_SHADOW_MAX long
 *
 * A write that reached the policy (rule 4 or default) is decided by each
 * shadow policy, as a live one would decide it; one that an earlier rule
 * placed is shown to each, and would keep @stream under any policy.  A
 * stream the disk lacks is 0, as for the live policy.  Called under
 * rcu_read_lock(), which keeps the list returned alive.
 *
 * Return: the disk's shadow policies, or NULL if it has none.
 */
struct blk_stream_shadow *blk_stream_shadow_choose(struct bio *bio,
						   unsigned int stream,
						   enum blk_stream_rule rule,
						   u8 *choice)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	unsigned int max = disk->queue->limits.max_write_streams;
	/* Pairs with the cmpxchg() in blk_stream_disk_get(). */
	struct blk_stream_disk *sd = smp_load_acquire(&disk->write_streams);
	bool decide = rule == BLK_STREAM_RULE_POLICY ||
		      rule == BLK_STREAM_RULE_DEFAULT;
	struct blk_stream_shadow *sh;
	unsigned int i, s;

	if (!sd)
		return NULL;
	sh = rcu_dereference(sd->shadow);
	if (!sh)
		return NULL;
	for (i = 0; i < sh->nr; i++) {
		const struct blk_stream_active *act = &sh->pol[i];

		if (decide) {
			s = act->pol->decide(disk, act->data, bio);
		} else {
			if (act->pol->observe)
				act->pol->observe(disk, act->data, bio, stream);
			s = stream;
		}
		choice[i] = s > max ? 0 : s;
	}
	return sh;
}

/**
 * blk_stream_shadow_observe - show the shadow policies an invalidation
 * @bio: a discard, secure erase or write zeroes bio
 */
void blk_stream_shadow_observe(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;
	/* Pairs with the cmpxchg() in blk_stream_disk_get(). */
	struct blk_stream_disk *sd = smp_load_acquire(&disk->write_streams);
	struct blk_stream_shadow *sh;
	unsigned int i;

	if (!sd)
		return;
	rcu_read_lock();
	sh = rcu_dereference(sd->shadow);
	for (i = 0; sh && i < sh->nr; i++)
		if (sh->pol[i].pol->observe)
			sh->pol[i].pol->observe(disk, sh->pol[i].data, bio, 0);
	rcu_read_unlock();
}

ssize_t blk_stream_policy_show(struct gendisk *disk, char *page)
{
	/* Pairs with the cmpxchg() in blk_stream_disk_get(). */
	struct blk_stream_disk *sd = smp_load_acquire(&disk->write_streams);
	const struct blk_stream_policy *cur = NULL;
	struct blk_stream_policy *pol;
	struct blk_stream_active *act;
	ssize_t len;

	mutex_lock(&blk_stream_mutex);
	/* Keeps the policy, and so its module, while its name is printed. */
	rcu_read_lock();
	if (sd) {
		act = rcu_dereference(sd->active);
		if (act)
			cur = act->pol;
	}
	len = sysfs_emit(page, cur ? "none" : "[none]");
	/* A disk without streams has nothing to place: only "none". */
	list_for_each_entry(pol, &blk_stream_policies, list)
		if (pol == cur || disk->queue->limits.max_write_streams)
			len += sysfs_emit_at(page, len,
					     pol == cur ? " [%s]" : " %s",
					     pol->name);
	rcu_read_unlock();
	len += sysfs_emit_at(page, len, "\n");
	mutex_unlock(&blk_stream_mutex);
	return len;
}

ssize_t blk_stream_policy_store(struct gendisk *disk, const char *page,
				size_t count)
{
	const struct blk_stream_policy *pol = NULL;
	struct blk_stream_disk *sd;
	unsigned int noio;
	char name[32];
	int ret = 0;

	if (strscpy(name, page, sizeof(name)) < 0)
		return -EINVAL;
	strim(name);

	if (strcmp(name, "none")) {
		pol = blk_stream_get_policy(name);
		if (!pol)
			return -EINVAL;
		if (!disk->queue->limits.max_write_streams) {
			pr_warn_ratelimited("%s: no write streams: no placement policy\n",
					    disk->disk_name);
			ret = -EINVAL;
			goto out;
		}
	} else if (!READ_ONCE(disk->write_streams)) {
		return count;
	}

	sd = blk_stream_disk_get(disk);
	if (!sd) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_lock(&sd->lock);
	noio = memalloc_noio_save();
	ret = blk_stream_switch(disk, sd, pol);
	memalloc_noio_restore(noio);
	mutex_unlock(&sd->lock);
out:
	if (pol)
		module_put(pol->owner);
	return ret ? ret : count;
}

ssize_t blk_stream_shadow_show(struct gendisk *disk, char *page)
{
	/* Pairs with the cmpxchg() in blk_stream_disk_get(). */
	struct blk_stream_disk *sd = smp_load_acquire(&disk->write_streams);
	struct blk_stream_shadow *sh = NULL;
	ssize_t len = 0;
	unsigned int i;

	rcu_read_lock();
	if (sd)
		sh = rcu_dereference(sd->shadow);
	for (i = 0; sh && i < sh->nr; i++)
		len += sysfs_emit_at(page, len, i ? " %s" : "%s",
				     sh->pol[i].pol->name);
	rcu_read_unlock();
	if (!len)
		len = sysfs_emit(page, "none");
	len += sysfs_emit_at(page, len, "\n");
	return len;
}

/*
 * Check @name as the @nr-th shadow policy of @disk and find it, with a
 * reference on its module.
 */
static const struct blk_stream_policy *
blk_stream_shadow_parse(struct gendisk *disk, const char *name,
			const struct blk_stream_policy **pols, unsigned int nr)
{
	const struct blk_stream_policy *pol;
	unsigned int i;

	pol = blk_stream_get_policy(name);
	if (!pol) {
		pr_warn_ratelimited("%s: write_stream_shadow: no policy '%.32s'\n",
				    disk->disk_name, name);
		return NULL;
	}
	if (!pol->init_shadow) {
		pr_warn_ratelimited("%s: write_stream_shadow: %s cannot run in shadow\n",
				    disk->disk_name, pol->name);
		goto out_put;
	}
	for (i = 0; i < nr; i++) {
		if (pols[i] == pol) {
			pr_warn_ratelimited("%s: write_stream_shadow: %s given twice\n",
					    disk->disk_name, pol->name);
			goto out_put;
		}
	}
	return pol;

out_put:
	module_put(pol->owner);
	return NULL;
}

/*
 * A space-separated list of policies to run in shadow, or "none" or
 * nothing for none.  Either the whole list applies or, with -EINVAL,
 * nothing changes.
 */
ssize_t blk_stream_shadow_store(struct gendisk *disk, const char *page,
				size_t count)
{
	const struct blk_stream_policy *pols[BLK_STREAM_SHADOW_MAX];
	char *names[BLK_STREAM_SHADOW_MAX];
	unsigned int nr = 0, got = 0, noio;
	struct blk_stream_disk *sd;
	char *buf, *pos, *name;
	int ret = 0;

	buf = kstrndup(page, count, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	pos = strim(buf);
	if (!strcmp(pos, "none"))
		*pos = '\0';
	while ((name = strsep(&pos, " \t\n"))) {
		if (!*name)
			continue;
		if (nr == BLK_STREAM_SHADOW_MAX) {
			pr_warn_ratelimited("%s: write_stream_shadow: at most %d policies\n",
					    disk->disk_name, BLK_STREAM_SHADOW_MAX);
			kfree(buf);
			return -EINVAL;
		}
		names[nr++] = name;
	}

	for (got = 0; got < nr; got++) {
		pols[got] = blk_stream_shadow_parse(disk, names[got], pols, got);
		if (!pols[got]) {
			ret = -EINVAL;
			goto out;
		}
	}
	if (nr && !disk->queue->limits.max_write_streams) {
		pr_warn_ratelimited("%s: no write streams: no policy in shadow\n",
				    disk->disk_name);
		ret = -EINVAL;
		goto out;
	}
	if (!nr && !READ_ONCE(disk->write_streams))
		goto out;

	sd = blk_stream_disk_get(disk);
	if (!sd) {
		ret = -ENOMEM;
		goto out;
	}
	mutex_lock(&sd->lock);
	noio = memalloc_noio_save();
	ret = blk_stream_shadow_switch(disk, sd, pols, nr);
	memalloc_noio_restore(noio);
	mutex_unlock(&sd->lock);
out:
	while (got--)
		module_put(pols[got]->owner);
	kfree(buf);
	return ret ? ret : count;
}

/**
 * blk_stream_disk_exit - take the policies off a disk being deleted
 * @disk: the disk, marked dead (GD_DEAD)
 *
 * Called from del_gendisk() before the queue's sysfs and debugfs files
 * are removed, which a policy may use.  A store to write_stream_policy or
 * write_stream_shadow can still come after it, until the sysfs files go:
 * it finds the disk dead under elevator_lock and fails with -ENODEV.  The
 * state of the policy and of those in shadow is torn down now, so that
 * their modules can go; bios still being submitted see no policy.  Takes
 * no lock that a store holds while it allocates or waits: only
 * elevator_lock, briefly.  The policies' exit_disk runs in NOIO scope on
 * every disk, as do the switches of the stores, which del_gendisk() may
 * wait for when it removes the queue's sysfs files: del_gendisk() sets
 * NOIO around a blk-mq queue's teardown only, and a bio-based disk
 * (device-mapper, the NVMe multipath head) has a queue too.
 */
void blk_stream_disk_exit(struct gendisk *disk)
{
	struct request_queue *q = disk->queue;
	struct blk_stream_active *act = NULL;
	struct blk_stream_shadow *sh = NULL;
	struct blk_stream_disk *sd;
	unsigned int noio;

	WARN_ON_ONCE(!test_bit(GD_DEAD, &disk->state));
	mutex_lock(&q->elevator_lock);
	/* Pairs with the cmpxchg() in blk_stream_disk_get(). */
	sd = smp_load_acquire(&disk->write_streams);
	if (sd) {
		act = rcu_replace_pointer(sd->active, NULL,
					  lockdep_is_held(&q->elevator_lock));
		sh = rcu_replace_pointer(sd->shadow, NULL,
					 lockdep_is_held(&q->elevator_lock));
	}
	mutex_unlock(&q->elevator_lock);

	if (!act && !sh)
		return;
	synchronize_rcu();
	noio = memalloc_noio_save();
	if (act)
		blk_stream_active_free(disk, act, true);
	if (sh)
		blk_stream_shadow_free(disk, sh, 0, true);
	memalloc_noio_restore(noio);
}

/**
 * blk_stream_disk_free - free the placement state of a released disk
 * @disk: the disk; no bio can reach it and its sysfs files are gone
 *
 * A disk that add_disk() failed to add after its queue's sysfs files
 * appeared never went through blk_stream_disk_exit(), and a store may
 * have set a policy in that window: tear it down here.  No grace period
 * is needed: every submitter of a bio holds a reference to the disk, so
 * no bio can be deciding with this state once the disk is released.
 */
void blk_stream_disk_free(struct gendisk *disk)
{
	struct blk_stream_disk *sd = disk->write_streams;
	struct blk_stream_active *act;
	struct blk_stream_shadow *sh;
	unsigned int noio;

	if (!sd)
		return;
	act = rcu_dereference_protected(sd->active, 1);
	sh = rcu_dereference_protected(sd->shadow, 1);
	/* As everywhere a policy is torn down: see blk_stream_disk_exit(). */
	noio = memalloc_noio_save();
	if (act)
		blk_stream_active_free(disk, act, false);
	if (sh)
		blk_stream_shadow_free(disk, sh, 0, false);
	memalloc_noio_restore(noio);
	mutex_destroy(&sd->lock);
	kfree(sd);
	disk->write_streams = NULL;
}

#include "tests/stream-teardown-kunit.h"
