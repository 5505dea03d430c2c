// SPDX-License-Identifier: GPL-2.0
/*
 * io.stream: a cgroup's writes, writeback included, go to the write streams
 * the operator allowed it, as the FDP device shows, even when the cgroup's
 * subtree is delegated to a user who tries to reach other streams.
 *
 * Every placement check reads the device's reclaim unit handle status
 * before and after the writes and fails if any block went to a handle it
 * should not have.  Filesystem tests put the journal (ext4) or log (XFS)
 * on the second, stream-less disk, so the FDP disk sees only data and
 * in-place metadata, and bound the metadata.
 *
 * The test runs on the FDP namespace named by $FDP_TEST_DEV and the disk
 * without streams named by $FDP_TEST_PLAIN_DEV, and destroys the data of
 * both (see fdp_util.c).  It skips when no FDP namespace is named or the
 * named one has no write streams, and when the kernel has no io.stream;
 * without a disk without streams, the cases that need it skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>

#include "../kselftest.h"
#include "fdp_util.h"

#define MiB		(1024 * 1024)
#define DIO_SIZE	(4 * MiB)
#define FILE_SIZE	(8 * MiB)
/* In-place metadata a filesystem may write while it takes FILE_SIZE. */
#define META_SLACK	(512 * 1024)
#define MNT		"/mnt/iostream_test"

static struct fdp_disk disk;
static char devnum[32], plain[64], plain_devnum[32];
static char top[512];
static unsigned int region;

static int read_devnum(const char *name, char *buf, size_t len)
{
	char path[300];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/block/%s/dev", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * The line of @buf (a cgroup file) keyed by our disk's number, NULL if
 * none: "259:1" must not match "259:10".
 */
static char *devnum_line(char *buf)
{
	size_t n = strlen(devnum);
	char *line;

	for (line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, devnum, n) && line[n] == ' ')
			return line;
	return NULL;
}

/* Set "MAJ:MIN VALUE" (@value NULL: "default ...") on @cg; 0 or -errno. */
static int set_stream(const char *cg, const char *dev, const char *value)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s %s", dev ? dev : "default", value);
	return cg_write(cg, "io.stream", buf);
}

struct job {
	off_t off;
	size_t size;
	int stream;		/* io_uring write_stream, or -1: pwrite */
	const char *file;	/* buffered write to this file instead */
	const char *dev;	/* direct write to this disk instead */
	bool fsync;
	size_t chunk;		/* bytes per write, 1 MiB if 0 */
};

static void fill(void *buf, size_t len, unsigned int seed)
{
	uint32_t *p = buf, x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len / 4; i++) {
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		p[i] = x;
	}
}

static int job_fn(void *arg)
{
	struct job *j = arg;
	size_t chunk = j->chunk ?: MiB, done;
	struct fdp_ring r;
	void *buf;
	int fd, ret;

	if (posix_memalign(&buf, 4096, chunk))
		return 1;
	if (j->file)
		fd = open(j->file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	else
		fd = open(j->dev ?: disk.path, O_WRONLY | O_DIRECT);
	if (fd < 0)
		return 2;
	if (j->stream >= 0 && fdp_ring_init(&r))
		return 3;
	for (done = 0; done < j->size; done += chunk) {
		fill(buf, chunk, (j->off + done) / MiB);
		if (j->stream >= 0)
			ret = fdp_ring_write(&r, fd, buf, chunk, j->off + done, j->stream);
		else
			ret = pwrite(fd, buf, chunk, j->off + done);
		if (ret != (int)chunk)
			return 4;
	}
	if (j->fsync && fsync(fd))
		return 5;
	close(fd);
	return 0;
}

/*
 * A region of the raw disk for a direct-I/O job, past its first 256 MiB,
 * the next one each time; after the last, the first again.  The device
 * counts what each handle takes, overwritten blocks included.
 */
static off_t next_region(void)
{
	uint64_t size = disk.nr_blocks * disk.lba_size;
	unsigned int n = size > 272 * MiB ? (size - 256 * MiB) / (16 * MiB) : 1;

	return (off_t)(region++ % n) * 16 * MiB + 256 * MiB;
}

static bool snap(struct fdp_snapshot *s)
{
	return !fdp_snapshot(&disk, s);
}

/* Blocks @handle consumed between @a and @b; -1 on error. */
static int64_t consumed(const struct fdp_snapshot *a, const struct fdp_snapshot *b,
			struct fdp_usage *u)
{
	if (fdp_usage(&disk, a, b, u))
		return -1;
	return 0;
}

/*
 * Run a direct-I/O job of DIO_SIZE in @cg and check that only @handle
 * consumed it.
 */
static void check_dio(const char *name, const char *cg, int stream, int handle)
{
	struct job j = { .off = next_region(), .size = DIO_SIZE, .stream = stream };
	struct fdp_snapshot a, b;
	struct fdp_usage u;
	char why[512];
	int ret;

	if (!snap(&a)) {
		ksft_test_result_fail("%s: handle status\n", name);
		return;
	}
	ret = cg_run(cg, job_fn, &j);
	if (ret || !snap(&b) || consumed(&a, &b, &u)) {
		ksft_test_result_fail("%s: writer failed (%d)\n", name, ret);
		return;
	}
	if (!fdp_usage_is(&u, handle, DIO_SIZE / disk.lba_size, why, sizeof(why))) {
		fdp_usage_print(&disk, &u);
		ksft_test_result_fail("%s: %s\n", name, why);
		return;
	}
	ksft_test_result_pass("%s\n", name);
}

static void test_direct(void)
{
	char a[600], b[600];

	cg_create(a, sizeof(a), top, "direct");
	set_stream(a, devnum, "3");
	check_dio("direct_pinned_stream_3_to_handle_2", a, -1, 2);
	set_stream(a, devnum, "default");
	check_dio("direct_unpinned_to_handle_0", a, -1, 0);
	set_stream(a, NULL, "4");
	check_dio("direct_default_line_4_to_handle_3", a, -1, 3);
	set_stream(a, NULL, "default");
	/* Where nothing above confines, 0 gives up placement. */
	set_stream(a, devnum, "0");
	check_dio("direct_top_level_0_to_handle_0", a, -1, 0);
	set_stream(a, devnum, "default");
	cg_destroy(a);

	/* Inheritance: a child without a setting follows its parent. */
	cg_create(a, sizeof(a), top, "parent");
	cg_create(b, sizeof(b), a, "child");
	cg_enable_controllers(a, "+io +memory");
	set_stream(a, devnum, "3");
	check_dio("child_inherits_parent_stream_3", b, -1, 2);
	/*
	 * A child cannot leave its parent's streams, not even for the
	 * default handle: 5 and 3 leave none, which keeps the parent's 3,
	 * and so does 0.
	 */
	set_stream(b, devnum, "5");
	check_dio("child_pin_outside_parent_keeps_stream_3", b, -1, 2);
	set_stream(b, devnum, "2-8");
	check_dio("child_set_narrowed_to_parent_stream_3", b, -1, 2);
	set_stream(b, devnum, "0");
	check_dio("child_zero_keeps_parent_stream_3", b, -1, 2);
	set_stream(b, devnum, "default");
	check_dio("child_inherit_line_drops_override", b, -1, 2);
	set_stream(a, devnum, "default");
	set_stream(a, NULL, "6");
	check_dio("child_inherits_parent_default_6", b, -1, 5);

	/* The application's stream is kept only inside the cgroup's. */
	set_stream(a, NULL, "default");
	set_stream(b, devnum, "5");
	check_dio("pin_5_confines_app_stream_7", b, 7, 4);
	set_stream(b, devnum, "6-7");
	check_dio("app_stream_7_kept_in_set_6-7", b, 7, 6);
	set_stream(b, devnum, "default");
	check_dio("default_removes_the_line", b, -1, 0);
	cg_destroy(b);
	cg_destroy(a);
}

/* io.stat counts what the cgroup wrote per stream. */
static void test_stat(void)
{
	struct job j = { .off = next_region(), .size = DIO_SIZE, .stream = -1 };
	char cg[600], stat[4096], want[128], *line;
	int ret;

	cg_create(cg, sizeof(cg), top, "stat");
	set_stream(cg, devnum, "2");
	ret = cg_run(cg, job_fn, &j);
	if (ret || cg_read(cg, "io.stat", stat, sizeof(stat))) {
		ksft_test_result_fail("io_stat_counts_stream_bytes: writer %d\n", ret);
		goto out;
	}
	line = devnum_line(stat);
	snprintf(want, sizeof(want), " stream2.wbytes=%d stream2.wios=%d", DIO_SIZE,
		 DIO_SIZE / MiB);
	if (!line || !strstr(line, want)) {
		ksft_print_msg("io.stat: %s", stat);
		ksft_test_result_fail("io_stat_counts_stream_bytes: want '%s'\n", want + 1);
	} else {
		ksft_test_result_pass("io_stat_counts_stream_bytes\n");
	}
out:
	set_stream(cg, devnum, "default");
	cg_destroy(cg);
}

/*
 * Bytes io.stat of @cg shows on stream @stream of our disk: 0 if none,
 * -1 if io.stat cannot be read.
 */
static long long stat_stream_bytes(const char *cg, int stream)
{
	char stat[4096], key[32], *line, *end, *p;

	if (cg_read(cg, "io.stat", stat, sizeof(stat)))
		return -1;
	for (line = stat; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (strncmp(line, devnum, strlen(devnum)) ||
		    line[strlen(devnum)] != ' ')
			continue;
		snprintf(key, sizeof(key), " stream%d.wbytes=", stream);
		p = strstr(line, key);
		return p ? atoll(p + strlen(key)) : 0;
	}
	return 0;
}

/*
 * stat_stream_bytes() once it is @want, or after 5 s the last value: a
 * cgroup's first writes reach its ancestors' io.stat once a work item
 * gave it counters, and a removed cgroup's last ones once its blkg is
 * released.
 */
static long long stat_stream_bytes_wait(const char *cg, int stream,
					long long want)
{
	long long bytes = -1;
	int i;

	for (i = 0; i < 50; i++) {
		bytes = stat_stream_bytes(cg, stream);
		if (bytes == want)
			break;
		usleep(100 * 1000);
	}
	return bytes;
}

/*
 * The root cgroup's io.stat counts its writes per stream too, although an
 * NVMe namespace learns its streams after its disk and root blkg were
 * made.  A pin elsewhere keeps the decision, and so the counting, on; the
 * root's own write has no rule that places it, so it goes to stream 0.
 * Dirty pages that earlier tests left charged to the root are written
 * back first, so that none is counted in the window.
 */
static void test_stat_root(void)
{
	static const char name[] = "io_stat_counts_root_cgroup_streams";
	struct job j = { .off = next_region(), .size = DIO_SIZE, .stream = -1 };
	long long before, after;
	char cg[600];
	int ret;

	cg_create(cg, sizeof(cg), top, "stat_root");
	set_stream(cg, devnum, "2");
	sync();
	before = stat_stream_bytes(CG_ROOT, 0);
	ret = cg_run(CG_ROOT, job_fn, &j);
	after = stat_stream_bytes(CG_ROOT, 0);
	if (ret || before < 0 || after < 0)
		ksft_test_result_fail("%s: writer %d, io.stat %lld %lld\n",
				      name, ret, before, after);
	else if (after - before != DIO_SIZE)
		ksft_test_result_fail("%s: stream0.wbytes grew by %lld, want %d\n",
				      name, after - before, DIO_SIZE);
	else
		ksft_test_result_pass("%s\n", name);
	set_stream(cg, devnum, "default");
	cg_destroy(cg);
}

/*
 * io.stat's per-stream keys are hierarchical, as its other keys: a parent
 * shows what its child wrote on each stream, and keeps it when the child
 * is removed, counting once what the child wrote after the parent's last
 * read.  A disk without streams shows no per-stream key, though the
 * subtree wrote to it while writes were counted.
 */
static void test_stat_tree(void)
{
	static const char no_keys[] = "io_stat_no_stream_keys_without_streams";
	struct job j = { .off = next_region(), .size = DIO_SIZE, .stream = -1 };
	struct job pj = { .off = 0, .size = MiB, .stream = -1 };
	char parent[600], child[600], path[128], stat[4096], *line;
	long long bytes;
	size_t n;
	int ret;

	cg_create(parent, sizeof(parent), top, "stat_tree");
	cg_enable_controllers(parent, "+io +memory");
	cg_create(child, sizeof(child), parent, "child");
	set_stream(parent, devnum, "4");
	ret = cg_run(child, job_fn, &j);
	bytes = stat_stream_bytes_wait(parent, 4, DIO_SIZE);
	if (ret || bytes != DIO_SIZE)
		ksft_print_msg("writer %d, parent's stream4.wbytes=%lld, want %d\n",
			       ret, bytes, DIO_SIZE);
	ksft_test_result(!ret && bytes == DIO_SIZE,
			 "io_stat_parent_counts_child_streams\n");

	/* Written after the parent's last read, then the child goes. */
	j.off = next_region();
	ret = cg_run(child, job_fn, &j);
	cg_destroy(child);
	bytes = stat_stream_bytes_wait(parent, 4, 2 * DIO_SIZE);
	if (!ret && bytes == 2 * DIO_SIZE) {
		/* Once: no later flush adds it again. */
		usleep(500 * 1000);
		bytes = stat_stream_bytes(parent, 4);
	}
	if (ret || bytes != 2 * DIO_SIZE)
		ksft_print_msg("writer %d, parent's stream4.wbytes=%lld after rmdir, want %d\n",
			       ret, bytes, 2 * DIO_SIZE);
	ksft_test_result(!ret && bytes == 2 * DIO_SIZE,
			 "io_stat_parent_keeps_removed_child_streams\n");

	if (!plain[0]) {
		ksft_test_result_skip("%s: no FDP_TEST_PLAIN_DEV\n", no_keys);
		goto out;
	}
	/* The parent's pin keeps the counting on; it may hold no task. */
	snprintf(path, sizeof(path), "/dev/%s", plain);
	pj.dev = path;
	cg_create(child, sizeof(child), parent, "plain");
	ret = cg_run(child, job_fn, &pj);
	line = NULL;
	if (!ret && !cg_read(parent, "io.stat", stat, sizeof(stat))) {
		n = strlen(plain_devnum);
		for (line = stat; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
			if (!strncmp(line, plain_devnum, n) && line[n] == ' ')
				break;
		if (line && strchr(line, '\n'))
			*strchr(line, '\n') = '\0';
	}
	if (!line || !strstr(line, "wbytes=") || strstr(line, "stream"))
		ksft_print_msg("writer %d, io.stat line: %s\n", ret, line ?: "none");
	ksft_test_result(line && strstr(line, "wbytes=") && !strstr(line, "stream"),
			 "%s\n", no_keys);
	cg_destroy(child);
out:
	set_stream(parent, devnum, "default");
	cg_destroy(parent);
}

#define TRACING "/sys/kernel/tracing"

static int trace_ctl(const char *file, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), TRACING "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Sum the sectors of the block_write_stream records that match @want
 * (a substring such as "stream=3 rule=cgroup cgroup=42") for our disk.
 */
static long long traced_sectors(const char *want)
{
	char line[512], dev[32], *p;
	long long sum = 0;
	unsigned int maj, min;
	FILE *f;

	if (sscanf(devnum, "%u:%u", &maj, &min) != 2)
		return -1;
	snprintf(dev, sizeof(dev), " %u,%u ", maj, min);
	f = fopen(TRACING "/trace", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "block_write_stream:") || !strstr(line, dev) ||
		    !strstr(line, want))
			continue;
		p = strstr(line, " + ");
		if (p)
			sum += atoll(p + 3);
	}
	fclose(f);
	return sum;
}

/*
 * The decision tracepoint records each write with its stream, the rule
 * that decided and the cgroup, and each discard with rule=none.
 */
static void test_tracepoint(void)
{
	struct job pinned = { .off = next_region(), .size = DIO_SIZE, .stream = -1 };
	/*
	 * io_uring first tries without blocking; a bio the block layer would
	 * have to split fails then and is submitted (and traced) again.
	 * Writes of a size the disk takes whole are traced once.
	 */
	struct job app = { .off = next_region(), .size = DIO_SIZE, .stream = 7,
			   .chunk = 128 * 1024 };
	struct job plain_job = { .off = next_region(), .size = DIO_SIZE, .stream = -1 };
	long long want = DIO_SIZE / 512, got[4];
	char cg[600], other[600], match[128];
	uint64_t range[2] = { next_region(), DIO_SIZE };
	struct stat st, st_other;
	int fd, ret;

	cg_create(cg, sizeof(cg), top, "traced");
	cg_create(other, sizeof(other), top, "untraced");
	set_stream(cg, devnum, "3");
	if (stat(cg, &st) || stat(other, &st_other) || trace_ctl("trace", "") ||
	    trace_ctl("events/block/block_write_stream/enable", "1")) {
		ksft_test_result_fail("tracepoint_records_decisions: cannot enable the event\n");
		goto out;
	}
	/* The application's stream is its own where no io.stream confines it. */
	ret = cg_run(cg, job_fn, &pinned) || cg_run(other, job_fn, &app) ||
	      cg_run(other, job_fn, &plain_job);
	fd = open(disk.path, O_WRONLY);
	if (fd < 0 || ioctl(fd, BLKDISCARD, range))
		ret = 1;
	if (fd >= 0)
		close(fd);
	trace_ctl("events/block/block_write_stream/enable", "0");
	snprintf(match, sizeof(match), "stream=3 rule=cgroup cgroup=%llu",
		 (unsigned long long)st.st_ino);
	got[0] = traced_sectors(match);
	snprintf(match, sizeof(match), "stream=7 rule=app cgroup=%llu",
		 (unsigned long long)st_other.st_ino);
	got[1] = traced_sectors(match);
	got[2] = traced_sectors("stream=0 rule=default");
	got[3] = traced_sectors("rule=none");
	if (ret || got[0] != want || got[1] != want || got[2] != want || got[3] != want)
		ksft_test_result_fail("%s: %s: %lld %lld %lld %lld, want %lld\n",
				      "tracepoint_records_decisions",
				      ret ? "a write failed" : "sectors differ",
				      got[0], got[1], got[2], got[3], want);
	else
		ksft_test_result_pass("tracepoint_records_decisions\n");
out:
	trace_ctl("trace", "");
	set_stream(cg, devnum, "default");
	cg_destroy(cg);
	cg_destroy(other);
}

/* Two cgroups writing at once on different streams: nothing crosses. */
static void test_concurrent(void)
{
	struct job ja = { .off = next_region(), .size = DIO_SIZE, .stream = -1 };
	struct job jb = { .off = next_region(), .size = DIO_SIZE, .stream = -1 };
	char a[600], b[600], why[512];
	struct fdp_snapshot s0, s1;
	struct fdp_usage u;
	int sa, sb;
	pid_t pa, pb;

	cg_create(a, sizeof(a), top, "tenant_a");
	cg_create(b, sizeof(b), top, "tenant_b");
	set_stream(a, devnum, "2");
	set_stream(b, devnum, "7");
	snap(&s0);
	pa = fork();
	if (!pa)
		_exit(cg_run(a, job_fn, &ja));
	pb = fork();
	if (!pb)
		_exit(cg_run(b, job_fn, &jb));
	waitpid(pa, &sa, 0);
	waitpid(pb, &sb, 0);
	if (!WIFEXITED(sa) || WEXITSTATUS(sa) || !WIFEXITED(sb) || WEXITSTATUS(sb) ||
	    !snap(&s1) || consumed(&s0, &s1, &u)) {
		ksft_test_result_fail("two_cgroups_at_once_nothing_crosses: writers failed\n");
		goto out;
	}
	/* Check each handle, then that nothing else moved. */
	if (u.blocks[1] != DIO_SIZE / disk.lba_size ||
	    u.blocks[6] != DIO_SIZE / disk.lba_size) {
		fdp_usage_print(&disk, &u);
		ksft_test_result_fail("two_cgroups_at_once_nothing_crosses: %llu, %llu blocks\n",
				      (unsigned long long)u.blocks[1],
				      (unsigned long long)u.blocks[6]);
		goto out;
	}
	u.blocks[6] = 0;
	ksft_test_result(fdp_usage_is(&u, 1, DIO_SIZE / disk.lba_size, why, sizeof(why)),
			 "two_cgroups_at_once_nothing_crosses\n");
out:
	set_stream(a, devnum, "default");
	set_stream(b, devnum, "default");
	cg_destroy(a);
	cg_destroy(b);
}

static int sysctl_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int flush_page_cache(void)
{
	sync();
	return sysctl_write("/proc/sys/vm/drop_caches", "3");
}

static bool file_intact(const char *file, size_t size)
{
	void *want, *got;
	size_t done;
	bool ok = true;
	int fd;

	fd = open(file, O_RDONLY);
	want = malloc(MiB);
	got = malloc(MiB);
	if (fd < 0 || !want || !got)
		return false;
	for (done = 0; done < size && ok; done += MiB) {
		fill(want, MiB, done / MiB);
		ok = pread(fd, got, MiB, done) == MiB && !memcmp(want, got, MiB);
	}
	close(fd);
	free(want);
	free(got);
	return ok;
}

static int run(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

/* Run a shell command made from @fmt; return its exit status. */
static int runf(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return run(cmd);
}

/* A filesystem on the FDP disk with its journal or log on @plain. */
static int mkfs_mount(const char *fs)
{
	const char *d = disk.path;

	mkdir(MNT, 0755);
	if (!strcmp(fs, "ext4"))
		return runf("mke2fs -q -F -O journal_dev -b 4096 /dev/%s >/dev/null", plain) ||
		       runf("mkfs.ext4 -q -F -b 4096 -J device=/dev/%s -E %s %s >/dev/null",
			    plain, "nodiscard,lazy_itable_init=0,lazy_journal_init=0", d) ||
		       runf("mount -t ext4 %s %s", d, MNT);
	return runf("mkfs.xfs -q -f -K -l logdev=/dev/%s,size=64m,sectsize=4096 %s >/dev/null",
		    plain, d) ||
	       runf("mount -t xfs -o logdev=/dev/%s %s %s", plain, d, MNT);
}

/*
 * Buffered writes on @fs in a cgroup confined to stream 6 (handle 5): with
 * fsync, or left to background writeback, or with the cgroup removed while
 * its pages are still dirty.  The data must land on handle 5, metadata
 * only within META_SLACK of it or on handle 0, nothing elsewhere.
 */
enum fs_mode { FS_FSYNC, FS_BACKGROUND, FS_REMOVE };

static void check_fs(const char *fs, enum fs_mode mode)
{
	static const char * const mode_name[] = { "fsync", "background_writeback",
						  "cgroup_removed_while_dirty" };
	uint64_t data = FILE_SIZE / disk.lba_size, slack = META_SLACK / disk.lba_size;
	struct job j = { .file = MNT "/data", .size = FILE_SIZE, .stream = -1,
			 .fsync = mode == FS_FSYNC };
	struct fdp_snapshot s0, s1;
	struct fdp_usage u;
	char cg[600], name[128], stat[256];
	unsigned int i, waited;
	bool ok = true;
	int ret;

	snprintf(name, sizeof(name), "%s_buffered_%s", fs, mode_name[mode]);
	if (!plain[0]) {
		/* The journal or log goes on the disk without streams. */
		ksft_test_result_skip("%s: no FDP_TEST_PLAIN_DEV\n", name);
		return;
	}
	if (mkfs_mount(fs)) {
		ksft_test_result_fail("%s: mkfs or mount failed\n", name);
		return;
	}
	/* Writeback too uses what the parent allows: 6-8 and 1-6 leave 6. */
	cg_create(cg, sizeof(cg), top, "fs");
	set_stream(top, devnum, "6-8");
	set_stream(cg, devnum, "1-6");
	sync();
	snap(&s0);
	ret = cg_run(cg, job_fn, &j);
	if (ret) {
		ksft_test_result_fail("%s: writer failed (%d)\n", name, ret);
		goto out;
	}
	if (mode == FS_REMOVE) {
		if (cg_destroy(cg)) {
			ksft_test_result_fail("%s: rmdir: %s\n", name, strerror(errno));
			goto out;
		}
		sync();
	} else if (mode == FS_BACKGROUND) {
		/* Let only the flusher write: wait for the bytes to arrive. */
		for (waited = 0; waited < 60; waited++) {
			sleep(1);
			if (snap(&s1) && !consumed(&s0, &s1, &u) && u.blocks[5] >= data)
				break;
		}
	}
	if (!snap(&s1) || consumed(&s0, &s1, &u)) {
		ksft_test_result_fail("%s: handle status\n", name);
		goto out;
	}
	fdp_usage_print(&disk, &u);
	for (i = 0; i < u.nr; i++) {
		if (i == 5)
			ok &= u.blocks[i] >= data && u.blocks[i] <= data + slack;
		else if (i == 0)
			ok &= u.blocks[i] <= slack;
		else
			ok &= !u.blocks[i];
	}
	if (!ok) {
		ksft_test_result_fail("%s: want %llu..%llu blocks on handle 5, <= %llu on 0\n",
				      name, (unsigned long long)data,
				      (unsigned long long)(data + slack),
				      (unsigned long long)slack);
		goto out;
	}
	flush_page_cache();
	if (!file_intact(MNT "/data", FILE_SIZE)) {
		ksft_test_result_fail("%s: data read back differ\n", name);
		goto out;
	}
	if (mode == FS_REMOVE) {
		/* The removed cgroup must go away once its pages are gone. */
		for (waited = 0; waited < 30; waited++) {
			flush_page_cache();
			if (!cg_read(top, "cgroup.stat", stat, sizeof(stat)) &&
			    strstr(stat, "nr_dying_descendants 0"))
				break;
			sleep(1);
		}
		if (waited == 30) {
			ksft_test_result_fail("%s: removed cgroup still dying: %s\n", name, stat);
			goto out;
		}
	}
	ksft_test_result_pass("%s\n", name);
out:
	if (mode != FS_REMOVE) {
		set_stream(cg, devnum, "default");
		cg_destroy(cg);
	}
	set_stream(top, devnum, "default");
	umount(MNT);
}

static void test_fs(void)
{
	char old_expire[32] = "3000", old_wb[32] = "500";
	int fd;

	fd = open("/proc/sys/vm/dirty_expire_centisecs", O_RDONLY);
	if (fd >= 0) {
		old_expire[read(fd, old_expire, sizeof(old_expire) - 1)] = '\0';
		close(fd);
	}
	fd = open("/proc/sys/vm/dirty_writeback_centisecs", O_RDONLY);
	if (fd >= 0) {
		old_wb[read(fd, old_wb, sizeof(old_wb) - 1)] = '\0';
		close(fd);
	}
	/* Background writeback in seconds, not half a minute. */
	sysctl_write("/proc/sys/vm/dirty_expire_centisecs", "200");
	sysctl_write("/proc/sys/vm/dirty_writeback_centisecs", "100");
	check_fs("ext4", FS_FSYNC);
	check_fs("ext4", FS_BACKGROUND);
	check_fs("ext4", FS_REMOVE);
	check_fs("xfs", FS_FSYNC);
	check_fs("xfs", FS_BACKGROUND);
	check_fs("xfs", FS_REMOVE);
	sysctl_write("/proc/sys/vm/dirty_expire_centisecs", old_expire);
	sysctl_write("/proc/sys/vm/dirty_writeback_centisecs", old_wb);
}

/* Bad input: each write fails with @err and leaves io.stream as it was. */
static void bad_input(const char *cg, const char *name, const char *input, int err)
{
	char before[1024], after[1024];
	int ret;

	cg_read(cg, "io.stream", before, sizeof(before));
	ret = cg_write(cg, "io.stream", input);
	cg_read(cg, "io.stream", after, sizeof(after));
	if (ret != -err)
		ksft_test_result_fail("bad_input_%s: got %d (%s), want %d\n", name, ret,
				      strerror(-ret), -err);
	else if (!err && strcmp(before, after))
		ksft_test_result_fail("bad_input_%s: io.stream changed:\n%s", name, after);
	else if (strcmp(before, after))
		ksft_test_result_fail("bad_input_%s: io.stream changed:\n%s", name, after);
	else
		ksft_test_result_pass("bad_input_%s\n", name);
}

struct racer {
	const char *cg;
	int id;
	int errors;
};

static void *race_fn(void *arg)
{
	struct racer *r = arg;
	char v[16];
	int i;

	for (i = 0; i < 200; i++) {
		snprintf(v, sizeof(v), "%d", 1 + (r->id + i) % 8);
		if (set_stream(r->cg, devnum, v))
			r->errors++;
	}
	return NULL;
}

static int effective_of(const char *cg, char *val, size_t len);

static void test_bad_input(void)
{
	char cg[600], buf[64], want[32], big[8192], part[300] = "", pdev[32], cmd[300];
	struct racer racers[4];
	pthread_t th[4];
	int i, errors = 0;

	cg_create(cg, sizeof(cg), top, "bad");
	/* Where nothing confines, the effective set is the whole disk. */
	snprintf(want, sizeof(want), "0-%u", disk.max_write_streams);
	if (effective_of(cg, buf, sizeof(buf)))
		ksft_test_result_fail("effective_unconfined_is_the_disk: no line\n");
	else
		ksft_test_result(!strcmp(buf, want),
				 "effective_unconfined_is_the_disk: %s\n", buf);
	set_stream(cg, devnum, "3");
	set_stream(cg, NULL, "2");

	bad_input(cg, "garbage", "garbage", EINVAL);
	/* "default" is the one word for no setting. */
	snprintf(buf, sizeof(buf), "%s inherit", devnum);
	bad_input(cg, "inherit_is_not_a_value", buf, EINVAL);
	bad_input(cg, "default_garbage", "default garbage", EINVAL);
	bad_input(cg, "negative_default", "default -1", EINVAL);
	bad_input(cg, "default_above_255", "default 256", EINVAL);
	snprintf(buf, sizeof(buf), "%s -1", devnum);
	bad_input(cg, "negative", buf, EINVAL);
	snprintf(buf, sizeof(buf), "%s 99999999999999999999", devnum);
	bad_input(cg, "huge", buf, EINVAL);
	snprintf(buf, sizeof(buf), "%s %u", devnum, disk.max_write_streams + 1);
	bad_input(cg, "above_max_write_streams", buf, EINVAL);
	snprintf(buf, sizeof(buf), "%s 3 4", devnum);
	bad_input(cg, "extra_field", buf, EINVAL);
	bad_input(cg, "default_extra_field", "default 3 4", EINVAL);
	snprintf(buf, sizeof(buf), "%s", devnum);
	bad_input(cg, "missing_value", buf, EINVAL);
	bad_input(cg, "unknown_device", "4095:4095 1", ENODEV);
	bad_input(cg, "malformed_devnum", "259:x 1", EINVAL);
	bad_input(cg, "malformed_devnum_2", ":0 1", EINVAL);
	bad_input(cg, "empty_line", "\n", EINVAL);
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	bad_input(cg, "longer_than_a_page", big, E2BIG);
	if (plain[0]) {
		snprintf(buf, sizeof(buf), "%s 1", plain_devnum);
		bad_input(cg, "disk_without_streams", buf, EINVAL);
		snprintf(buf, sizeof(buf), "%s 0", plain_devnum);
		bad_input(cg, "disk_without_streams_0", buf, EINVAL);
	} else {
		ksft_test_result_skip("bad_input_disk_without_streams: no FDP_TEST_PLAIN_DEV\n");
		ksft_test_result_skip("bad_input_disk_without_streams_0: no FDP_TEST_PLAIN_DEV\n");
	}

	/* A partition's number: streams belong to the whole disk. */
	snprintf(cmd, sizeof(cmd), "echo ',64M' | sfdisk -q %.200s >/dev/null", disk.path);
	snprintf(part, sizeof(part), "%sp1", disk.name);
	if (run(cmd) || read_devnum(part, pdev, sizeof(pdev))) {
		snprintf(part, sizeof(part), "%.100s/%.100sp1", disk.name, disk.name);
		if (read_devnum(part, pdev, sizeof(pdev)))
			pdev[0] = '\0';
	}
	if (pdev[0]) {
		snprintf(buf, sizeof(buf), "%s 1", pdev);
		bad_input(cg, "partition", buf, ENODEV);
	} else {
		ksft_test_result_fail("bad_input_partition: could not make a partition\n");
	}
	snprintf(cmd, sizeof(cmd), "wipefs -q -a %.100s && blockdev --rereadpt %.100s 2>/dev/null",
		 disk.path, disk.path);
	run(cmd);

	/* A zero-length write never reaches io.stream: it writes nothing. */
	bad_input(cg, "zero_length_write", "", 0);

	/* Concurrent writers: every write succeeds, one value remains. */
	for (i = 0; i < 4; i++) {
		racers[i] = (struct racer){ .cg = cg, .id = i };
		pthread_create(&th[i], NULL, race_fn, &racers[i]);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		errors += racers[i].errors;
	}
	cg_read(cg, "io.stream", big, sizeof(big));
	{
		char *line = devnum_line(big);
		unsigned int v = 0;

		ksft_test_result(!errors && line &&
				 sscanf(line + strlen(devnum), " %u", &v) == 1 &&
				 v >= 1 && v <= 8 && !strchr(strchr(line, '\n') + 1, ':'),
				 "concurrent_writers\n");
	}

	/* A user the delegation does not allow cannot write. */
	{
		pid_t pid = fork();
		int status;

		if (!pid) {
			if (setgid(65534) || setuid(65534))
				_exit(2);
			_exit(set_stream(cg, devnum, "1") == -EACCES ? 0 : 1);
		}
		waitpid(pid, &status, 0);
		cg_read(cg, "io.stream", buf, sizeof(buf));
		ksft_test_result(WIFEXITED(status) && !WEXITSTATUS(status),
				 "unprivileged_write_refused\n");
	}
	set_stream(cg, devnum, "default");
	set_stream(cg, NULL, "default");
	cg_destroy(cg);
}

/*
 * Delegation.  The operator gives a tenant cgroup the streams of @allowed
 * and delegates it to an unprivileged user as cgroup-v2.rst describes: the
 * directory, its cgroup.procs, cgroup.subtree_control and cgroup.threads
 * belong to the user, who also gets an open descriptor of the disk, as a
 * database is given a volume.  A sibling, another tenant, has stream 1,
 * whose handle 0 is also where writes without a stream land.  The user
 * then tries each way it has to reach another stream, the sibling's above
 * all, and the device must show every byte on a handle that the tenant's
 * streams allow: giving up placement with 0, or asking for streams its
 * parent does not have, leaves it on its parent's streams.  With the
 * descriptor it also tries an NVMe passthrough write to handle 0, which
 * must be refused, zeroes a range with BLKZEROOUT, whose Write Zeroes
 * the device places as a write, and writes the disk through the page
 * cache and writes that back itself with fdatasync(), which must go where
 * the cgroup that owns the disk's page cache writeback allows (see
 * cgroup-v2.rst).
 */
#define TENANT_UID	65534

struct deleg {
	char t[600], a[700], b[700], c[800], other[600];
	int fd_direct;
	int fd_plain;
	off_t off;
};

/* The tenant writes "@value" to @file of @cg; 0 or -errno. */
static int tw(const char *cg, const char *file, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return cg_write(cg, file, buf);
}

/* A tenant's write that must work; 1 after saying why if it did not. */
static int tw_ok(const char *cg, const char *file, const char *value)
{
	int ret = tw(cg, file, "%s", value);

	if (ret)
		ksft_print_msg("tenant: '%s' > %s/%s: %s\n", value, cg, file,
			       strerror(-ret));
	return !!ret;
}

/* The tenant sets "@value" as the line of our disk in @cg's io.stream. */
static int tw_disk(const char *cg, const char *value)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s %s", devnum, value);
	return tw_ok(cg, "io.stream", buf);
}

/* A tenant's write that must be refused with EACCES or EPERM. */
static int tw_refused(const char *cg, const char *file, const char *value)
{
	int ret = tw(cg, file, "%s", value);

	if (ret == -EACCES || ret == -EPERM)
		return 0;
	ksft_print_msg("tenant: '%s' > %s/%s: %s, want EACCES or EPERM\n", value,
		       cg, file, ret ? strerror(-ret) : "accepted");
	return 1;
}

static int drop_privileges(void)
{
	return setgroups(0, NULL) || setgid(TENANT_UID) || setuid(TENANT_UID);
}

/* Write DIO_SIZE at @off through @fd: io_uring with @stream if >= 0. */
static int tenant_write(int fd, off_t off, int stream)
{
	struct fdp_ring r;
	void *buf;
	size_t done;
	int ret;

	if (posix_memalign(&buf, 4096, MiB))
		return 1;
	if (stream >= 0 && fdp_ring_init(&r)) {
		free(buf);
		return 1;
	}
	for (done = 0; done < DIO_SIZE; done += MiB) {
		fill(buf, MiB, (off + done) / MiB);
		if (stream >= 0)
			ret = fdp_ring_write(&r, fd, buf, MiB, off + done, stream);
		else
			ret = pwrite(fd, buf, MiB, off + done);
		if (ret != MiB) {
			ksft_print_msg("tenant: write: %s\n",
				       strerror(ret < 0 ? -ret : errno));
			break;
		}
	}
	if (stream >= 0)
		fdp_ring_exit(&r);
	free(buf);
	return done < DIO_SIZE;
}

/*
 * An NVMe passthrough command @opcode, Write (01h) or Write Zeroes (08h),
 * of 64 KiB at @off through @fd, a descriptor of an NVMe disk's node,
 * with a placement directive for @handle (none for -1).  0 when the
 * device took it, -errno when the kernel refused it, else the NVMe
 * status.
 */
static int passthru(int fd, int opcode, off_t off, int handle)
{
	struct nvme_passthru_cmd64 cmd = { };
	size_t len = 64 * 1024;
	void *buf = NULL;
	int nsid, ret;

	nsid = ioctl(fd, NVME_IOCTL_ID);
	if (nsid <= 0) {
		ksft_print_msg("NVME_IOCTL_ID: %s\n", strerror(errno));
		return -EINVAL;
	}
	cmd.opcode = opcode;
	cmd.nsid = nsid;
	if (opcode == 0x01) {
		if (posix_memalign(&buf, 4096, len))
			return -ENOMEM;
		fill(buf, len, 7);
		cmd.addr = (uintptr_t)buf;
		cmd.data_len = len;
	}
	cmd.cdw10 = (off / disk.lba_size) & 0xffffffff;
	cmd.cdw11 = (uint64_t)(off / disk.lba_size) >> 32;
	/* NLB, 0-based; DTYPE 2, data placement, in bits 23:20 */
	cmd.cdw12 = len / disk.lba_size - 1;
	if (handle >= 0) {
		cmd.cdw12 |= 2 << 20;
		cmd.cdw13 = handle << 16;	/* DSPEC: placement handle */
	}
	ret = ioctl(fd, NVME_IOCTL_IO64_CMD, &cmd);
	free(buf);
	return ret == -1 ? -errno : ret;
}

static const char *passthru_name(int opcode)
{
	return opcode == 0x01 ? "Write" : "Write Zeroes";
}

/*
 * A passthrough @opcode to handle 0 through the disk's node: a tenant
 * whose cgroup io.stream confines must be refused with EACCES, since the
 * command would bypass the decision; Write Zeroes changes the blocks
 * (and takes the handle's reclaim unit) as Write does.  1 after saying
 * why otherwise.
 */
static int tenant_passthru(int fd, int opcode, off_t off)
{
	int ret = passthru(fd, opcode, off, 0);

	if (ret == -EACCES)
		return 0;
	if (ret > 0)
		ksft_print_msg("tenant: passthrough %s: NVMe status %#x, want EACCES\n",
			       passthru_name(opcode), ret);
	else
		ksft_print_msg("tenant: passthrough %s to handle 0: %s, want EACCES\n",
			       passthru_name(opcode), ret ? strerror(-ret) : "written");
	return 1;
}

/*
 * On the disk without streams there is nothing to place: io.stream does
 * not confine there, and the tenant keeps passthrough, by its default
 * too.  1 after saying why otherwise.
 */
static int tenant_passthru_plain(int fd)
{
	int ret;

	if (fd < 0)
		return 0;
	ret = passthru(fd, 0x08, 0, -1);
	if (!ret)
		return 0;
	ksft_print_msg("tenant: passthrough Write Zeroes to %s: %s\n", plain,
		       ret > 0 ? "NVMe error" : strerror(-ret));
	return 1;
}

/*
 * Zeroes DIO_SIZE at @off with BLKZEROOUT: Write Zeroes without
 * deallocation, which the device writes and places as a write.
 */
static int tenant_zeroout(int fd, off_t off)
{
	uint64_t range[2] = { off, DIO_SIZE };

	if (!ioctl(fd, BLKZEROOUT, range))
		return 0;
	ksft_print_msg("tenant: BLKZEROOUT: %s\n", strerror(errno));
	return 1;
}

/* Whether our disk takes Write Zeroes, rather than written zero pages. */
static bool disk_writes_zeroes(void)
{
	uint64_t bytes;

	return !fdp_read_sysfs_u64(disk.name, "queue/write_zeroes_max_bytes",
				   &bytes) && bytes;
}

/*
 * A buffered write of DIO_SIZE at @off through @fd, whose O_DIRECT is
 * cleared for it (the description is shared: the caller sets it again).
 * The pages stay dirty: deleg_check() looks at who owns them, then has
 * the tenant write them back.
 */
static int tenant_buffered(int fd, off_t off)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_DIRECT)) {
		ksft_print_msg("tenant: F_SETFL: %s\n", strerror(errno));
		return 1;
	}
	return tenant_write(fd, off, -1);
}

enum deleg_step {
	STEP_SETUP,
	STEP_INHERIT,
	STEP_PIN_OUTSIDE,
	STEP_PIN_INSIDE,
	STEP_SET_WIDER,
	STEP_DEFAULT_LINE,
	STEP_ZERO,
	STEP_REMOVE_LINES,
	STEP_NESTED,
	STEP_MOVE_OUT,
	STEP_PARENT_FILES,
	STEP_APP_STREAM,
	STEP_RW_HINT,
	STEP_PASSTHRU,
	STEP_PASSTHRU_ZEROES,
	STEP_PASSTHRU_PLAIN,
	STEP_ZEROOUT,
	STEP_BUFFERED,
	STEP_BUFFERED_SYNC,
	STEP_VIEW,
	STEP_NR,
};

static const char * const deleg_step_name[STEP_NR] = {
	[STEP_INHERIT]		= "tenant_inherits",
	[STEP_PIN_OUTSIDE]	= "tenant_pins_other_tenants_stream_1",
	[STEP_PIN_INSIDE]	= "tenant_pins_stream_4",
	[STEP_SET_WIDER]	= "tenant_sets_streams_1-8",
	[STEP_DEFAULT_LINE]	= "tenant_default_line_1",
	[STEP_ZERO]		= "tenant_gives_up_with_0",
	[STEP_REMOVE_LINES]	= "tenant_removes_lines_with_default",
	[STEP_NESTED]		= "tenant_subtree_pins_1",
	[STEP_MOVE_OUT]		= "tenant_moves_to_other_tenant",
	[STEP_PARENT_FILES]	= "tenant_writes_parent_files",
	[STEP_APP_STREAM]	= "tenant_io_uring_stream_1",
	[STEP_RW_HINT]		= "tenant_sets_raw_disk_hint_5",
	[STEP_PASSTHRU]		= "tenant_nvme_passthrough_handle_0_refused",
	[STEP_PASSTHRU_ZEROES]	= "tenant_nvme_passthrough_write_zeroes_refused",
	[STEP_PASSTHRU_PLAIN]	= "tenant_nvme_passthrough_plain_disk_allowed",
	[STEP_ZEROOUT]		= "tenant_blkzeroout_raw_disk",
	[STEP_BUFFERED]		= "tenant_buffered_raw_disk_fdatasync",
};

struct deleg_job {
	struct deleg *d;
	enum deleg_step step;
};

/*
 * One step as the tenant, started by root in the tenant's cgroup a (or in
 * the tenant's root for the setup): configure, then write DIO_SIZE.
 */
static int deleg_tenant(void *arg)
{
	struct deleg_job *j = arg;
	struct deleg *d = j->d;
	int fd = d->fd_direct, stream = -1, err = 0;
	char buf[256];

	if (drop_privileges())
		return 100;
	switch (j->step) {
	case STEP_SETUP:
		/* Processes in a leaf, then the controllers for the subtree. */
		if (mkdir(d->a, 0755) || mkdir(d->b, 0755) || mkdir(d->c, 0755)) {
			ksft_print_msg("tenant: mkdir: %s\n", strerror(errno));
			return 101;
		}
		err = tw_ok(d->a, "cgroup.procs", "0") ||
		      tw_ok(d->t, "cgroup.subtree_control", "+io +memory") ||
		      tw_ok(d->b, "cgroup.subtree_control", "+io +memory");
		return err ? 102 : 0;
	case STEP_INHERIT:
		break;
	case STEP_PIN_OUTSIDE:
		err = tw_disk(d->a, "1");
		break;
	case STEP_PIN_INSIDE:
		err = tw_disk(d->a, "4");
		break;
	case STEP_SET_WIDER:
		err = tw_disk(d->a, "1-8");
		break;
	case STEP_DEFAULT_LINE:
		err = tw_disk(d->a, "default") ||
		      tw_ok(d->a, "io.stream", "default 1");
		break;
	case STEP_ZERO:
		err = tw_disk(d->a, "0");
		break;
	case STEP_REMOVE_LINES:
		err = tw_disk(d->a, "default") ||
		      tw_ok(d->a, "io.stream", "default");
		break;
	case STEP_NESTED:
		/* Deeper in its own subtree, where it may move itself. */
		err = tw_disk(d->b, "1") || tw_disk(d->c, "1,5-8") ||
		      tw_ok(d->c, "cgroup.procs", "0");
		break;
	case STEP_MOVE_OUT:
		err = tw_refused(d->other, "cgroup.procs", "0") ||
		      tw_refused(top, "cgroup.procs", "0") ||
		      tw_refused(CG_ROOT, "cgroup.procs", "0");
		break;
	case STEP_PARENT_FILES:
		snprintf(buf, sizeof(buf), "%s 7", devnum);
		err = tw_refused(d->t, "io.stream", buf) ||
		      tw_refused(d->t, "io.stream", "default 7") ||
		      tw_refused(top, "io.stream", buf) ||
		      tw_refused(d->other, "io.stream", buf) ||
		      tw_refused(d->a, "io.stream.effective", buf);
		break;
	case STEP_APP_STREAM:
		stream = 1;
		break;
	case STEP_PASSTHRU:
		err = tenant_passthru(fd, 0x01, d->off);
		break;
	case STEP_PASSTHRU_ZEROES:
		err = tenant_passthru(fd, 0x08, d->off);
		break;
	case STEP_PASSTHRU_PLAIN:
		err = tenant_passthru_plain(d->fd_plain);
		break;
	case STEP_ZEROOUT:
		return tenant_zeroout(fd, d->off) ? 107 : 0;
	case STEP_BUFFERED:
		return tenant_buffered(fd, d->off) ? 107 : 0;
	case STEP_BUFFERED_SYNC:
		if (fdatasync(fd)) {
			ksft_print_msg("tenant: fdatasync: %s\n", strerror(errno));
			return 107;
		}
		return 0;
	case STEP_VIEW:
		/* In c a default only: c gets no blkg on the disk. */
		return tw_disk(d->a, "1-8") ||
		       tw_ok(d->c, "io.stream", "default 1-8") ? 105 : 0;
	case STEP_RW_HINT:
		/*
		 * The tenant owns the disk's node for this step, as a
		 * database may own its volume: its hint makes its direct
		 * writes stream 5.
		 */
		if (fcntl(fd, F_SET_RW_HINT, &(uint64_t){ RWH_WRITE_LIFE_EXTREME })) {
			ksft_print_msg("tenant: F_SET_RW_HINT: %s\n", strerror(errno));
			err = 1;
		}
		break;
	default:
		return 104;
	}
	if (err)
		return 105;
	/* Whatever was tried, the tenant is still in its own subtree. */
	if (cg_read("/proc/self", "cgroup", buf, sizeof(buf)) || !strstr(buf, "/deleg_t/")) {
		ksft_print_msg("tenant: now in %s", buf);
		return 106;
	}
	return tenant_write(fd, d->off, stream) ? 107 : 0;
}

/*
 * The cgroup (its inode number) whose writeback owns the dirty pages of
 * the FDP disk's page cache: the one wb of the disk with a dirty inode,
 * from debugfs.  0 if there is not exactly one.
 */
static unsigned long dirty_wb_owner(void)
{
	char path[128], line[128];
	unsigned long ino = 0, owner = 0, n;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/bdi/%s/wb_stats", devnum);
	f = fopen(path, "r");
	if (!f) {
		ksft_print_msg("%s: %s\n", path, strerror(errno));
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "WbCgIno: %lu", &n) == 1) {
			ino = n;
		} else if ((sscanf(line, "b_dirty: %lu", &n) == 1 ||
			    sscanf(line, "b_io: %lu", &n) == 1 ||
			    sscanf(line, "b_more_io: %lu", &n) == 1) && n && owner != ino) {
			owner = ino;
			found++;
		}
	}
	fclose(f);
	return found == 1 ? owner : 0;
}

static unsigned long cg_ino(const char *cg)
{
	struct stat st;

	return stat(cg, &st) ? 0 : st.st_ino;
}

/*
 * The buffered step: the tenant dirties the disk's page cache, then
 * writes it back itself with fdatasync().  The writes are charged to the
 * cgroup that owns the disk inode's writeback, not to the tenant: if that
 * is the root cgroup, io.stream confines them by the cgroup of the task
 * that writes back, the tenant's; if it is the tenant's cgroup, by its
 * own set.  Either way they must land on @handle.  Another owner is a
 * state this test did not make: it skips then, saying which.
 */
static int deleg_buffered(struct deleg *d, struct deleg_job *j, bool *skip)
{
	unsigned long owner;
	int ret, flags;

	ret = cg_run(d->a, deleg_tenant, j);
	owner = dirty_wb_owner();
	if (!ret) {
		j->step = STEP_BUFFERED_SYNC;
		ret = cg_run(d->a, deleg_tenant, j);
		j->step = STEP_BUFFERED;
	}
	flags = fcntl(d->fd_direct, F_GETFL);
	if (flags < 0 || fcntl(d->fd_direct, F_SETFL, flags | O_DIRECT))
		ret = ret ?: -errno;
	if (!ret && (owner == cg_ino(CG_ROOT) || owner == cg_ino(d->a))) {
		ksft_print_msg("the disk's dirty pages belong to the %s cgroup\n",
			       owner == cg_ino(d->a) ? "tenant's" : "root");
	} else if (!ret) {
		ksft_print_msg("dirty pages of cgroup ino %lu, not root's %lu or tenant's %lu\n",
			       owner, cg_ino(CG_ROOT), cg_ino(d->a));
		*skip = true;
	}
	return ret;
}

/* Run one tenant step; check the device took DIO_SIZE on @handle only. */
static void deleg_check(struct deleg *d, const char *round, enum deleg_step step,
			int handle)
{
	struct deleg_job j = { .d = d, .step = step };
	struct fdp_snapshot a, b;
	struct fdp_usage u;
	struct stat node = { };
	bool lent = false, skip = false;
	char why[512];
	uint64_t want;
	unsigned int i;
	int ret;

	d->off = next_region();
	fflush(stdout);
	if (step == STEP_ZEROOUT && !disk_writes_zeroes()) {
		ksft_test_result_skip("%s_%s: %s takes no Write Zeroes\n", round,
				      deleg_step_name[step], disk.name);
		return;
	}
	if (!snap(&a)) {
		ksft_test_result_fail("%s_%s: handle status\n", round, deleg_step_name[step]);
		return;
	}
	/* Only the owner of the node may set a hint: lend it to the tenant. */
	if (step == STEP_RW_HINT) {
		if (stat(disk.path, &node) || chown(disk.path, TENANT_UID, TENANT_UID))
			ret = -errno;
		else
			lent = true;
	}
	if (step == STEP_RW_HINT && !lent)
		;
	else if (step == STEP_BUFFERED)
		ret = deleg_buffered(d, &j, &skip);
	else
		ret = cg_run(d->a, deleg_tenant, &j);
	if (lent) {
		if (chown(disk.path, node.st_uid, node.st_gid) && !ret)
			ret = -errno;
		fcntl(d->fd_direct, F_SET_RW_HINT, &(uint64_t){ RWH_WRITE_LIFE_NOT_SET });
	}
	if (ret || !snap(&b) || consumed(&a, &b, &u)) {
		ksft_test_result_fail("%s_%s: tenant step failed (%d)\n", round,
				      deleg_step_name[step], ret);
		return;
	}
	if (skip) {
		ksft_test_result_skip("%s_%s: the disk's writeback belongs to another cgroup\n",
				      round, deleg_step_name[step]);
		return;
	}
	want = DIO_SIZE / disk.lba_size;
	if (step == STEP_ZEROOUT) {
		/*
		 * A device may deallocate zeroes rather than write them: what
		 * it wrote must all be on @handle, and it must write some.
		 */
		for (want = 0, i = 0; i < u.nr; i++)
			want += u.blocks[i];
		if (!want) {
			ksft_test_result_skip("%s_%s: the device wrote no media for the zeroes\n",
					      round, deleg_step_name[step]);
			return;
		}
	}
	if (!fdp_usage_is(&u, handle, want, why, sizeof(why))) {
		fdp_usage_print(&disk, &u);
		ksft_test_result_fail("%s_%s: %s\n", round, deleg_step_name[step], why);
		return;
	}
	ksft_test_result_pass("%s_%s\n", round, deleg_step_name[step]);
}

static int chown_cg(const char *cg, const char *file)
{
	char path[800];

	snprintf(path, sizeof(path), "%s%s%s", cg, file ? "/" : "", file ? file : "");
	return chown(path, TENANT_UID, TENANT_UID);
}

/* What io.stream.effective of @cg says about our disk, into @val. */
static int effective_of(const char *cg, char *val, size_t len)
{
	char buf[1024], *line;

	if (cg_read(cg, "io.stream.effective", buf, sizeof(buf)))
		return -1;
	line = devnum_line(buf);
	if (!line)
		return -1;
	snprintf(val, len, "%s", line + strlen(devnum) + 1);
	val[strcspn(val, "\n")] = '\0';
	return 0;
}

/* Placement handle of stream @stream; stream 0 shares handle 0. */
static int handle_of(int stream)
{
	return stream ? stream - 1 : 0;
}

/*
 * One round: the tenant's cgroup gets @allowed, by a line for the disk or
 * (@by_default) by its default, whose first stream @first takes the
 * writes no rule placed, and those of a cgroup that gave up placement or
 * asked for streams outside @allowed.  Stream 4 is @s4 in it, and an
 * application's stream 1 or 5 becomes @s1 or @s5.
 */
static void deleg_round(const char *round, const char *allowed, bool by_default,
			int first, int s4, int s1, int s5)
{
	static const enum deleg_step steps[] = {
		STEP_INHERIT, STEP_PIN_OUTSIDE, STEP_PIN_INSIDE, STEP_SET_WIDER,
		STEP_DEFAULT_LINE, STEP_ZERO, STEP_REMOVE_LINES, STEP_NESTED,
		STEP_MOVE_OUT, STEP_PARENT_FILES, STEP_APP_STREAM, STEP_RW_HINT,
		STEP_PASSTHRU, STEP_PASSTHRU_ZEROES, STEP_PASSTHRU_PLAIN,
		STEP_ZEROOUT, STEP_BUFFERED,
	};
	struct deleg d = { .fd_direct = -1, .fd_plain = -1 };
	struct deleg_job setup = { .d = &d, .step = STEP_SETUP };
	struct deleg_job view = { .d = &d, .step = STEP_VIEW };
	char eff[64], eff_c[64];
	unsigned int i;
	int handle;

	cg_create(d.t, sizeof(d.t), top, "deleg_t");
	cg_create(d.other, sizeof(d.other), top, "deleg_other");
	snprintf(d.a, sizeof(d.a), "%s/a", d.t);
	snprintf(d.b, sizeof(d.b), "%s/b", d.t);
	snprintf(d.c, sizeof(d.c), "%s/c", d.b);
	set_stream(d.other, devnum, "1");
	d.fd_direct = open(disk.path, O_WRONLY | O_DIRECT);
	if (plain[0]) {
		char path[128];

		snprintf(path, sizeof(path), "/dev/%s", plain);
		d.fd_plain = open(path, O_WRONLY);
	}
	if (set_stream(d.t, by_default ? NULL : devnum, allowed) || d.fd_direct < 0 ||
	    chown_cg(d.t, NULL) || chown_cg(d.t, "cgroup.procs") ||
	    chown_cg(d.t, "cgroup.subtree_control") || chown_cg(d.t, "cgroup.threads")) {
		ksft_print_msg("%s: cannot give the tenant '%s': %s\n", round, allowed,
			       strerror(errno));
		for (i = 0; i < ARRAY_SIZE(steps) + 1; i++)
			ksft_test_result_fail("%s_%s\n", round,
					      i ? deleg_step_name[steps[i - 1]] :
					      "tenant_effective_view");
		goto out;
	}
	if (cg_run(d.t, deleg_tenant, &setup)) {
		for (i = 0; i < ARRAY_SIZE(steps) + 1; i++)
			ksft_test_result_fail("%s_%s: tenant setup failed\n", round,
					      i ? deleg_step_name[steps[i - 1]] :
					      "tenant_effective_view");
		goto out;
	}

	/*
	 * What the tenant sees: its set, though it asks for more, in a
	 * cgroup with a line for the disk (so a blkg there) and in one with
	 * a default only, which never wrote to the disk.
	 */
	if (cg_run(d.a, deleg_tenant, &view) || effective_of(d.a, eff, sizeof(eff)) ||
	    effective_of(d.c, eff_c, sizeof(eff_c)))
		ksft_test_result_fail("%s_tenant_effective_view: no io.stream.effective\n",
				      round);
	else
		ksft_test_result(!strcmp(eff, allowed) && !strcmp(eff_c, allowed),
				 "%s_tenant_effective_view: %s and %s\n", round, eff, eff_c);
	set_stream(d.a, devnum, "default");
	set_stream(d.c, NULL, "default");

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		switch (steps[i]) {
		case STEP_PIN_INSIDE:
			handle = handle_of(s4);
			break;
		case STEP_APP_STREAM:
			handle = handle_of(s1);
			break;
		case STEP_RW_HINT:
			handle = handle_of(s5);
			break;
		default:
			handle = handle_of(first);
		}
		deleg_check(&d, round, steps[i], handle);
	}
out:
	if (d.fd_direct >= 0)
		close(d.fd_direct);
	if (d.fd_plain >= 0)
		close(d.fd_plain);
	cg_destroy(d.c);
	cg_destroy(d.b);
	cg_destroy(d.a);
	set_stream(d.t, devnum, "default");
	set_stream(d.t, NULL, "default");
	cg_destroy(d.t);
	set_stream(d.other, devnum, "default");
	cg_destroy(d.other);
}

#define DELEG_TESTS	(3 * (1 + 17) + 1)

/*
 * A task that io.stream does not confine keeps NVMe passthrough, Write
 * Zeroes and Write with a placement directive included, though it has no
 * CAP_SYS_ADMIN: its writes land on the handle it named.
 */
static void test_passthru_unconfined(void)
{
	struct deleg d = { .fd_direct = -1, .fd_plain = -1 };
	struct fdp_snapshot a, b;
	struct fdp_usage u;
	char why[512];
	pid_t pid;
	int status = -1;

	cg_create(d.t, sizeof(d.t), top, "passthru_free");
	d.off = next_region();
	d.fd_direct = open(disk.path, O_WRONLY | O_DIRECT);
	if (d.fd_direct < 0 || !snap(&a)) {
		ksft_test_result_fail("unconfined_nvme_passthrough_allowed: %s\n",
				      strerror(errno));
		goto out;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		int r;

		if (cg_enter(d.t) || drop_privileges())
			_exit(100);
		r = passthru(d.fd_direct, 0x08, d.off, 5);
		if (r) {
			ksft_print_msg("unconfined Write Zeroes: %s\n",
				       r > 0 ? "NVMe error" : strerror(-r));
			_exit(101);
		}
		r = passthru(d.fd_direct, 0x01, d.off + 64 * 1024, 5);
		if (r) {
			ksft_print_msg("unconfined Write: %s\n",
				       r > 0 ? "NVMe error" : strerror(-r));
			_exit(102);
		}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || !snap(&b) || consumed(&a, &b, &u)) {
		ksft_test_result_fail("unconfined_nvme_passthrough_allowed: status %#x\n",
				      status);
		goto out;
	}
	/* The Write's 64 KiB at least, on handle 5 only. */
	if (!fdp_usage_is(&u, 5, 64 * 1024 / disk.lba_size, why, sizeof(why)) &&
	    !fdp_usage_is(&u, 5, 2 * 64 * 1024 / disk.lba_size, why, sizeof(why))) {
		fdp_usage_print(&disk, &u);
		ksft_test_result_fail("unconfined_nvme_passthrough_allowed: %s\n", why);
		goto out;
	}
	ksft_test_result_pass("unconfined_nvme_passthrough_allowed\n");
out:
	if (d.fd_direct >= 0)
		close(d.fd_direct);
	cg_destroy(d.t);
}

static void test_delegation(void)
{
	/* A pin: stream 3 only, which every other stream becomes. */
	deleg_round("pin_3", "3", false, 3, 3, 3, 3);
	/*
	 * A budget of two: a stream outside it becomes its (N mod 2)-th,
	 * counting from 0, so 1 and 5 become 4.
	 */
	deleg_round("set_3-4", "3-4", false, 3, 4, 4, 4);
	/*
	 * The same budget as the tenant's default, which also survives the
	 * disk's removal: every blkg of the tenant's subtree is made by its
	 * writes, not by a write of io.stream.
	 */
	deleg_round("default_3-4", "3-4", true, 3, 4, 4, 4);
	test_passthru_unconfined();
}

int main(void)
{
	char buf[256];

	ksft_print_header();
	fdp_require_disk(&disk);
	if (disk.max_write_streams < 8)
		ksft_exit_skip("needs 8 write streams, %s has %u\n", disk.name,
			       disk.max_write_streams);
	if (cg_enable_controllers(CG_ROOT, "+io +memory"))
		ksft_exit_fail_msg("cannot enable the io and memory controllers\n");
	if (cg_create(top, sizeof(top), CG_ROOT, "iostream_test") ||
	    cg_enable_controllers(top, "+io +memory"))
		ksft_exit_fail_msg("cannot create %s\n", top);
	if (cg_read(top, "io.stream", buf, sizeof(buf))) {
		cg_destroy(top);
		ksft_exit_skip("no io.stream in this kernel\n");
	}
	read_devnum(disk.name, devnum, sizeof(devnum));
	if (fdp_plain_disk(plain, sizeof(plain)) &&
	    read_devnum(plain, plain_devnum, sizeof(plain_devnum)))
		ksft_exit_fail_msg("%s: no device number\n", plain);
	ksft_print_msg("FDP disk %s (%s), disk without streams %s (%s)\n", disk.name,
		       devnum, plain[0] ? plain : "none", plain_devnum);

	ksft_set_plan(16 + 7 + 3 + 23 + DELEG_TESTS);
	test_direct();
	test_stat();
	test_stat_root();
	test_stat_tree();
	test_concurrent();
	test_tracepoint();
	test_fs();
	test_bad_input();
	test_delegation();

	cg_destroy(top);
	fdp_close_disk(&disk);
	ksft_finished();
}
