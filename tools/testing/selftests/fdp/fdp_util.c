// SPDX-License-Identifier: GPL-2.0
/*
 * Device-side view of placement for the FDP selftests.
 *
 * The device reports, per reclaim unit handle, the media writes still
 * available in its open reclaim unit (RUAMW, in logical blocks).  A write of
 * N blocks through a handle lowers its RUAMW by N; when the unit fills, the
 * handle gets a fresh unit and RUAMW restarts from the unit size.  So two
 * snapshots give the blocks each handle consumed, modulo the unit size:
 * tests keep each measured write below one reclaim unit.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/nvme_ioctl.h>

#include "../kselftest.h"
#include "fdp_util.h"

#define NVME_CMD_IO_MGMT_RECV	0x12
#define NVME_IO_MGMT_RECV_RUHS	0x01

struct ruhs_desc {
	uint16_t pid;
	uint16_t ruhid;
	uint32_t earutr;
	uint64_t ruamw;
	uint8_t rsvd16[16];
};

struct ruhs {
	uint8_t rsvd0[14];
	uint16_t nruhsd;
	struct ruhs_desc desc[FDP_MAX_HANDLES];
};

static_assert(sizeof(struct ruhs_desc) == 32, "RUHS descriptor layout");
static_assert(offsetof(struct ruhs, desc) == 16, "RUHS header layout");

int fdp_read_sysfs_u64(const char *disk, const char *attr, uint64_t *val)
{
	char path[512], buf[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/block/%s/%s", disk, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	*val = strtoull(buf, NULL, 0);
	return 0;
}

static int ruhs_cmd(int fd, unsigned int nsid, void *buf, unsigned int len)
{
	struct nvme_passthru_cmd cmd = {
		.opcode = NVME_CMD_IO_MGMT_RECV,
		.nsid = nsid,
		.addr = (uintptr_t)buf,
		.data_len = len,
		.cdw10 = NVME_IO_MGMT_RECV_RUHS,
		.cdw11 = len / 4 - 1,
	};
	int ret;

	ret = ioctl(fd, NVME_IOCTL_IO_CMD, &cmd);
	if (ret < 0)
		return -errno;
	/* A positive value is an NVMe status: no FDP here. */
	return ret ? -ENODEV : 0;
}

/*
 * Read the reclaim unit handle status.  The buffer must match what the
 * device returns (some reject a longer one), so read the header first.
 */
static int read_ruhs(int fd, unsigned int nsid, struct ruhs *r)
{
	unsigned int n;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = ruhs_cmd(fd, nsid, r, 16);
	if (ret)
		return ret;
	n = r->nruhsd;
	if (!n)
		return -ENODEV;
	if (n > FDP_MAX_HANDLES)
		return -E2BIG;
	ret = ruhs_cmd(fd, nsid, r, 16 + n * sizeof(r->desc[0]));
	if (ret)
		return ret;
	return r->nruhsd == n ? 0 : -EIO;
}

/* An NVMe namespace's disk with a device node (not a hidden path). */
static bool is_whole_nvme_disk(const char *name)
{
	char path[512];
	uint64_t hidden;

	if (strncmp(name, "nvme", 4))
		return false;
	if (!fdp_read_sysfs_u64(name, "hidden", &hidden) && hidden)
		return false;
	snprintf(path, sizeof(path), "/dev/%s", name);
	return access(path, F_OK) == 0;
}

static int open_disk(const char *name, struct fdp_disk *disk)
{
	uint64_t v;
	int fd, nsid;

	memset(disk, 0, sizeof(*disk));
	disk->fd = -1;
	snprintf(disk->name, sizeof(disk->name), "%s", name);
	snprintf(disk->path, sizeof(disk->path), "/dev/%s", name);
	fd = open(disk->path, O_RDWR);
	if (fd < 0)
		return -errno;
	nsid = ioctl(fd, NVME_IOCTL_ID);
	if (nsid <= 0) {
		close(fd);
		return -ENOTTY;
	}
	disk->fd = fd;
	disk->nsid = nsid;
	if (!fdp_read_sysfs_u64(name, "queue/logical_block_size", &v))
		disk->lba_size = v;
	if (!fdp_read_sysfs_u64(name, "size", &v) && disk->lba_size)
		disk->nr_blocks = v * 512 / disk->lba_size;
	if (!fdp_read_sysfs_u64(name, "queue/max_write_streams", &v))
		disk->max_write_streams = v;
	if (!fdp_read_sysfs_u64(name, "queue/write_stream_granularity", &v) &&
	    disk->lba_size)
		disk->ru_blocks = v / disk->lba_size;
	return 0;
}

/**
 * fdp_open_disk() - find and open an FDP namespace for fdp_tool
 * @disk: filled in on success
 *
 * The disk is named by $FDP_DISK, or else it is the first NVMe namespace
 * whose device answers a reclaim unit handle status request.  Tests do
 * not look for a disk: they take the one the runner names (see
 * fdp_require_disk()).
 *
 * Return: 0, -ENODEV when there is no FDP namespace, or another -errno.
 */
int fdp_open_disk(struct fdp_disk *disk)
{
	const char *want = getenv("FDP_DISK");
	struct dirent *de;
	struct ruhs r;
	int ret = -ENODEV;
	DIR *dir;

	dir = opendir("/sys/block");
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (want ? strcmp(de->d_name, want) : !is_whole_nvme_disk(de->d_name))
			continue;
		if (open_disk(de->d_name, disk))
			continue;
		if (!read_ruhs(disk->fd, disk->nsid, &r)) {
			disk->nr_handles = r.nruhsd;
			ret = 0;
			break;
		}
		fdp_close_disk(disk);
	}
	closedir(dir);
	if (!ret && !disk->ru_blocks) {
		/* Only the kernel's stream support reports the unit size. */
		ksft_print_msg("%s: no write_stream_granularity\n", disk->name);
		fdp_close_disk(disk);
		ret = -ENODEV;
	}
	return ret;
}

/*
 * The name under /sys/block of the whole disk at @path, which the runner
 * named in @var.  Anything else ends the test: a runner that names a
 * device means it to be tested.
 */
static void named_disk(const char *var, const char *path, char *name, size_t len)
{
	char link[512], target[512];
	struct stat st;
	const char *base;
	ssize_t n;

	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		ksft_exit_fail_msg("%s=%s: not a block device\n", var, path);
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		ksft_exit_fail_msg("%s=%s: %s: %s\n", var, path, link, strerror(errno));
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	snprintf(name, len, "%s", base);
	snprintf(link, sizeof(link), "/sys/block/%s", name);
	if (access(link, F_OK))
		ksft_exit_fail_msg("%s=%s: a partition; name the whole disk\n", var, path);
}

/**
 * fdp_require_disk() - open the FDP namespace the runner named, or end the test
 * @disk: filled in on success
 *
 * The tests destroy the data of the disk they run on, so they run only on
 * the one named by $FDP_TEST_DEV, as blktests takes TEST_DEVS and xfstests
 * SCRATCH_DEV.  Without it the test is skipped.  A named disk without FDP
 * write streams is skipped too, unless $FDP_HANDLES says it has them (the
 * test guest sets it): then the test fails.
 */
void fdp_require_disk(struct fdp_disk *disk)
{
	const char *path = getenv("FDP_TEST_DEV");
	char name[256];
	struct ruhs r;
	int ret;

	if (!path || !*path)
		ksft_exit_skip("%s\n", FDP_TEST_DEV_HELP);
	named_disk("FDP_TEST_DEV", path, name, sizeof(name));
	ret = open_disk(name, disk);
	if (ret)
		ksft_exit_fail_msg("FDP_TEST_DEV=%s: %s\n", path, strerror(-ret));
	ret = read_ruhs(disk->fd, disk->nsid, &r);
	if (!ret && !disk->ru_blocks)
		ret = -ENODEV;	/* only the kernel's stream support reports it */
	if (ret && !getenv("FDP_HANDLES"))
		ksft_exit_skip("FDP_TEST_DEV=%s: no FDP write streams (%s)\n", path,
			       strerror(-ret));
	if (ret)
		ksft_exit_fail_msg("FDP_TEST_DEV=%s: no FDP write streams: %s\n", path,
				   strerror(-ret));
	disk->nr_handles = r.nruhsd;
	ksft_print_msg("testing on %s (FDP_TEST_DEV=%s); its data is destroyed\n",
		       disk->name, path);
}

void fdp_close_disk(struct fdp_disk *disk)
{
	if (disk->fd >= 0)
		close(disk->fd);
	disk->fd = -1;
}

/**
 * fdp_plain_disk() - the disk without write streams the runner named
 * @name: buffer for the block device name, "" when none was named
 * @len: size of @name
 *
 * Some tests also need a disk with no write streams, for an external
 * journal or log and to check that stream settings are refused there.
 * It is named by $FDP_TEST_PLAIN_DEV and its data is destroyed too.
 *
 * Return: true when a disk was named; a named device that is not a whole
 * disk without write streams ends the test.
 */
bool fdp_plain_disk(char *name, size_t len)
{
	const char *path = getenv("FDP_TEST_PLAIN_DEV");
	uint64_t v;

	name[0] = '\0';
	if (!path || !*path) {
		ksft_print_msg("%s\n", FDP_TEST_PLAIN_DEV_HELP);
		return false;
	}
	named_disk("FDP_TEST_PLAIN_DEV", path, name, len);
	if (fdp_read_sysfs_u64(name, "queue/max_write_streams", &v) || v)
		ksft_exit_fail_msg("FDP_TEST_PLAIN_DEV=%s: not a disk without write streams\n",
				   path);
	return true;
}

int fdp_snapshot(const struct fdp_disk *disk, struct fdp_snapshot *snap)
{
	struct ruhs r;
	unsigned int i;
	int ret;

	ret = read_ruhs(disk->fd, disk->nsid, &r);
	if (ret)
		return ret;
	snap->nr = r.nruhsd;
	for (i = 0; i < r.nruhsd; i++)
		snap->ruamw[i] = r.desc[i].ruamw;
	return 0;
}

/**
 * fdp_usage() - blocks each handle consumed between two snapshots
 *
 * Return: 0, or -EINVAL if the snapshots do not fit the disk (a handle
 * count that changed, or an RUAMW above the reclaim unit size).
 */
int fdp_usage(const struct fdp_disk *disk, const struct fdp_snapshot *before,
	      const struct fdp_snapshot *after, struct fdp_usage *usage)
{
	uint64_t ru = disk->ru_blocks;
	unsigned int i;

	if (before->nr != after->nr || before->nr > FDP_MAX_HANDLES)
		return -EINVAL;
	usage->nr = before->nr;
	for (i = 0; i < before->nr; i++) {
		uint64_t b = before->ruamw[i], a = after->ruamw[i];

		if (!b || !a || b > ru || a > ru)
			return -EINVAL;
		/* A full unit was replaced by a fresh one when a > b. */
		usage->blocks[i] = a <= b ? b - a : b + ru - a;
	}
	return 0;
}

/**
 * fdp_usage_is() - did exactly one handle consume exactly @blocks?
 * @usage: what the device reported
 * @handle: the placement handle that should have consumed the blocks
 * @blocks: how many logical blocks it should have consumed
 * @why: on a mismatch, a description of every handle that differs
 * @len: size of @why
 *
 * Return: true when @handle consumed @blocks and every other handle none.
 */
bool fdp_usage_is(const struct fdp_usage *usage, int handle, uint64_t blocks,
		  char *why, size_t len)
{
	size_t off = 0;
	unsigned int i;
	bool ok = true;

	if (len)
		why[0] = '\0';
	if (handle < 0 || (unsigned int)handle >= usage->nr) {
		snprintf(why, len, "no handle %d (device has %u)", handle, usage->nr);
		return false;
	}
	for (i = 0; i < usage->nr; i++) {
		uint64_t want = (int)i == handle ? blocks : 0;

		if (usage->blocks[i] == want)
			continue;
		ok = false;
		if (off < len)
			off += snprintf(why + off, len - off,
					"%shandle %u consumed %llu blocks, expected %llu",
					off ? "; " : "", i,
					(unsigned long long)usage->blocks[i],
					(unsigned long long)want);
	}
	return ok;
}

void fdp_usage_print(const struct fdp_disk *disk, const struct fdp_usage *usage)
{
	unsigned int i;

	for (i = 0; i < usage->nr; i++)
		if (usage->blocks[i])
			ksft_print_msg("%s: handle %u consumed %llu blocks\n",
				       disk->name, i, (unsigned long long)usage->blocks[i]);
}

int fdp_ring_init(struct fdp_ring *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = syscall(__NR_io_uring_setup, 4, &r->p);
	if (r->fd < 0)
		return -errno;
	r->sq_len = r->p.sq_off.array + r->p.sq_entries * sizeof(__u32);
	r->cq_len = r->p.cq_off.cqes + r->p.cq_entries * sizeof(struct io_uring_cqe);
	if (r->p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_len > r->sq_len)
			r->sq_len = r->cq_len;
		r->cq_len = 0;
	}
	r->sq = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (r->sq == MAP_FAILED)
		goto fail;
	r->cq = r->sq;
	if (r->cq_len) {
		r->cq = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
		if (r->cq == MAP_FAILED)
			goto fail;
	}
	r->sqes_len = r->p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		goto fail;
	return 0;
fail:
	close(r->fd);
	return -errno;
}

void fdp_ring_exit(struct fdp_ring *r)
{
	munmap(r->sqes, r->sqes_len);
	if (r->cq_len)
		munmap(r->cq, r->cq_len);
	munmap(r->sq, r->sq_len);
	close(r->fd);
}

/**
 * fdp_ring_write() - write through io_uring with sqe->write_stream set
 *
 * Return: the completion's result: bytes written or -errno.
 */
int fdp_ring_write(struct fdp_ring *r, int fd, const void *buf, size_t len,
		   off_t off, unsigned int stream)
{
	__u32 *sq_tail = r->sq + r->p.sq_off.tail;
	__u32 *sq_mask = r->sq + r->p.sq_off.ring_mask;
	__u32 *sq_array = r->sq + r->p.sq_off.array;
	__u32 *cq_head = r->cq + r->p.cq_off.head;
	__u32 *cq_tail = r->cq + r->p.cq_off.tail;
	__u32 *cq_mask = r->cq + r->p.cq_off.ring_mask;
	struct io_uring_cqe *cqes = r->cq + r->p.cq_off.cqes;
	__u32 tail = *sq_tail, idx = tail & *sq_mask, head;
	struct io_uring_sqe *sqe = &r->sqes[idx];
	int res;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_WRITE;
	sqe->fd = fd;
	sqe->addr = (unsigned long)buf;
	sqe->len = len;
	sqe->off = off;
	sqe->write_stream = stream;
	sq_array[idx] = idx;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	head = *cq_head;
	if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	res = cqes[head & *cq_mask].res;
	__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

/**
 * cg_create() - make a cgroup
 * @path: where the new cgroup's directory is written
 * @len: size of @path
 * @parent: parent cgroup directory
 * @name: name of the new cgroup
 *
 * Return: 0 or -errno (an existing cgroup is fine).
 */
int cg_create(char *path, size_t len, const char *parent, const char *name)
{
	snprintf(path, len, "%s/%s", parent, name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Move every process out to the root and remove the cgroup. */
int cg_destroy(const char *path)
{
	char procs[600], buf[4096], *p;
	int fd;
	ssize_t n;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	fd = open(procs, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"))
			cg_write(CG_ROOT, "cgroup.procs", p);
	}
	if (rmdir(path) && errno != ENOENT)
		return -errno;
	return 0;
}

/* Write @buf to a cgroup file in one write(); return 0 or -errno. */
int cg_write(const char *cg, const char *file, const char *buf)
{
	char path[600];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, strlen(buf));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

int cg_read(const char *cg, const char *file, char *buf, size_t len)
{
	char path[600];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	return 0;
}

/* Move the calling process into @cg. */
int cg_enter(const char *cg)
{
	return cg_write(cg, "cgroup.procs", "0");
}

/*
 * Run @fn(@arg) in a child process inside @cg and wait for it.
 * Return: the child's exit status, or -1 if it did not exit normally.
 */
int cg_run(const char *cg, int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (cg_enter(cg))
			_exit(126);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Enable controllers ("+io +memory") for the children of @cg. */
int cg_enable_controllers(const char *cg, const char *ctrls)
{
	return cg_write(cg, "cgroup.subtree_control", ctrls);
}
