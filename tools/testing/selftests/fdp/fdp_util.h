/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the FDP placement selftests: find the FDP namespace, read
 * the device's reclaim unit handle status and tell which placement handles
 * consumed a write.
 */
#ifndef __FDP_UTIL_H
#define __FDP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/io_uring.h>

#define FDP_MAX_HANDLES	128

/**
 * struct fdp_disk - an NVMe namespace with Flexible Data Placement
 * @name: block device name, such as "nvme0n1"
 * @path: device node
 * @fd: open file descriptor of @path (read-write) for passthrough commands
 * @nsid: namespace identifier
 * @lba_size: logical block size in bytes
 * @nr_blocks: capacity in logical blocks
 * @ru_blocks: reclaim unit size in logical blocks
 * @nr_handles: placement handles of the namespace, from the device
 * @max_write_streams: what the kernel reports in queue/max_write_streams
 */
struct fdp_disk {
	char name[256];
	char path[272];
	int fd;
	unsigned int nsid;
	unsigned int lba_size;
	uint64_t nr_blocks;
	uint64_t ru_blocks;
	unsigned int nr_handles;
	unsigned int max_write_streams;
};

/**
 * struct fdp_usage - logical blocks each placement handle consumed
 * @blocks: indexed by placement handle (RUHS descriptor order, which is
 *	the order the NVMe driver maps stream N to, as handle N - 1)
 * @nr: number of valid entries
 */
struct fdp_usage {
	uint64_t blocks[FDP_MAX_HANDLES];
	unsigned int nr;
};

/* Reclaim unit available media writes per handle, as the device reports. */
struct fdp_snapshot {
	uint64_t ruamw[FDP_MAX_HANDLES];
	unsigned int nr;
};

/* A minimal io_uring for one direct write at a time, with a write stream. */
struct fdp_ring {
	int fd;
	void *sq, *cq;
	size_t sq_len, cq_len;
	struct io_uring_sqe *sqes;
	size_t sqes_len;
	struct io_uring_params p;
};

int fdp_ring_init(struct fdp_ring *r);
void fdp_ring_exit(struct fdp_ring *r);
int fdp_ring_write(struct fdp_ring *r, int fd, const void *buf, size_t len,
		   off_t off, unsigned int stream);

/* What a test that skips for want of a named disk says. */
#define FDP_TEST_DEV_HELP \
	"no disk named: set FDP_TEST_DEV=/dev/nvmeXnY to an NVMe FDP namespace " \
	"whose data the test may destroy"
#define FDP_TEST_PLAIN_DEV_HELP \
	"no disk without streams named: set FDP_TEST_PLAIN_DEV=/dev/DISK " \
	"(its data is destroyed) to run the cases that need one"

int fdp_open_disk(struct fdp_disk *disk);
void fdp_require_disk(struct fdp_disk *disk);
void fdp_close_disk(struct fdp_disk *disk);
bool fdp_plain_disk(char *name, size_t len);
int fdp_read_sysfs_u64(const char *disk, const char *attr, uint64_t *val);
int fdp_snapshot(const struct fdp_disk *disk, struct fdp_snapshot *snap);
int fdp_usage(const struct fdp_disk *disk, const struct fdp_snapshot *before,
	      const struct fdp_snapshot *after, struct fdp_usage *usage);
bool fdp_usage_is(const struct fdp_usage *usage, int handle, uint64_t blocks,
		  char *why, size_t len);
void fdp_usage_print(const struct fdp_disk *disk, const struct fdp_usage *usage);

/* cgroup v2 helpers; paths are absolute cgroup directories. */
#define CG_ROOT	"/sys/fs/cgroup"

int cg_create(char *path, size_t len, const char *parent, const char *name);
int cg_destroy(const char *path);
int cg_write(const char *cg, const char *file, const char *buf);
int cg_read(const char *cg, const char *file, char *buf, size_t len);
int cg_enter(const char *cg);
int cg_run(const char *cg, int (*fn)(void *arg), void *arg);
int cg_enable_controllers(const char *cg, const char *ctrls);

#endif /* __FDP_UTIL_H */
