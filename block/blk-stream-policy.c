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
 */

#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "blk-stream.h"

/* Protects the list of policies and every disk's blk_stream_disk. */
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

static struct blk_stream_active *
blk_stream_active(struct blk_stream_disk *sd)
{
	return rcu_dereference_protected(sd->active,
					 lockdep_is_held(&blk_stream_mutex));
}

/*
 * Install @pol (NULL for "none") on @disk.  The old policy's state is
 * torn down after a grace period, so no bio is still deciding with it.
 */
static int blk_stream_switch(struct gendisk *disk, struct blk_stream_disk *sd,
			     const struct blk_stream_policy *pol)
{
	struct blk_stream_active *old = blk_stream_active(sd);
	struct blk_stream_active *new = NULL;
	int ret;

	if (old ? old->pol == pol : !pol)
		return 0;

	if (pol) {
		if (!try_module_get(pol->owner))
			return -ENODEV;
		new = kzalloc_obj(*new, GFP_KERNEL);
		if (!new) {
			ret = -ENOMEM;
			goto out_put;
		}
		new->pol = pol;
		if (pol->init_disk) {
			ret = pol->init_disk(disk, &new->data);
			if (ret)
				goto out_free;
		}
		if (!old)
			blk_stream_get();
	}

	rcu_assign_pointer(sd->active, new);
	if (old) {
		synchronize_rcu();
		if (old->pol->exit_disk)
			old->pol->exit_disk(disk, old->data);
		module_put(old->pol->owner);
		kfree(old);
		if (!new)
			blk_stream_put();
	}
	return 0;

out_free:
	kfree(new);
out_put:
	module_put(pol->owner);
	return ret;
}

/**
 * blk_stream_disk_get - the placement state of a disk, allocated if needed
 * @disk: the disk
 *
 * Return: the state, or NULL if out of memory.
 */
struct blk_stream_disk *blk_stream_disk_get(struct gendisk *disk)
{
	struct blk_stream_disk *sd;

	lockdep_assert_held(&blk_stream_mutex);
	sd = disk->write_streams;
	if (sd)
		return sd;
	sd = kzalloc_obj(*sd, GFP_KERNEL);
	if (!sd)
		return NULL;
	sd->hint_map = BLK_STREAM_HINT_MAP_DEFAULT;
	/* Pairs with the acquire of bios deciding concurrently. */
	smp_store_release(&disk->write_streams, sd);
	return sd;
}

void blk_stream_lock(void)
{
	mutex_lock(&blk_stream_mutex);
}

void blk_stream_unlock(void)
{
	mutex_unlock(&blk_stream_mutex);
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
	/* Pairs with the release in blk_stream_disk_get(). */
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

ssize_t blk_stream_policy_show(struct gendisk *disk, char *page)
{
	struct blk_stream_policy *pol;
	const struct blk_stream_policy *cur = NULL;
	struct blk_stream_active *act;
	ssize_t len;

	mutex_lock(&blk_stream_mutex);
	if (disk->write_streams) {
		act = blk_stream_active(disk->write_streams);
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
	len += sysfs_emit_at(page, len, "\n");
	mutex_unlock(&blk_stream_mutex);
	return len;
}

ssize_t blk_stream_policy_store(struct gendisk *disk, const char *page,
				size_t count)
{
	const struct blk_stream_policy *pol = NULL;
	struct blk_stream_disk *sd;
	char name[32];
	int ret = 0;

	if (strscpy(name, page, sizeof(name)) < 0)
		return -EINVAL;
	strim(name);

	mutex_lock(&blk_stream_mutex);
	if (strcmp(name, "none")) {
		pol = blk_stream_find_policy(name);
		if (!pol) {
			ret = -EINVAL;
			goto out;
		}
		if (!disk->queue->limits.max_write_streams) {
			pr_warn_ratelimited("%s: no write streams: no placement policy\n",
					    disk->disk_name);
			ret = -EINVAL;
			goto out;
		}
	} else if (!disk->write_streams) {
		goto out;
	}

	sd = blk_stream_disk_get(disk);
	if (!sd)
		ret = -ENOMEM;
	else if (sd->dead)
		ret = -ENODEV;
	else
		ret = blk_stream_switch(disk, sd, pol);
out:
	mutex_unlock(&blk_stream_mutex);
	return ret ? ret : count;
}

/**
 * blk_stream_disk_exit - take the policy off a disk being deleted
 * @disk: the disk
 *
 * Called from del_gendisk() once its sysfs files are gone.  The policy's
 * state is torn down now, so that its module can go; bios still being
 * submitted see no policy.
 */
void blk_stream_disk_exit(struct gendisk *disk)
{
	struct blk_stream_disk *sd;

	mutex_lock(&blk_stream_mutex);
	sd = disk->write_streams;
	if (sd) {
		sd->dead = true;
		blk_stream_switch(disk, sd, NULL);
	}
	mutex_unlock(&blk_stream_mutex);
}

/* Called when the disk is released: no bio can reach it any more. */
void blk_stream_disk_free(struct gendisk *disk)
{
	kfree(disk->write_streams);
	disk->write_streams = NULL;
}
