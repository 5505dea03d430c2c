// SPDX-License-Identifier: GPL-2.0
/*
 * Filesystem write streams: ext4 and XFS say what each write bio is (data
 * with the inode's lifetime hint, journal or metadata), the disk's
 * write_stream_policy and write_stream_hint_map turn that into a stream,
 * and the journal_stream/log_stream and metadata_stream mount options
 * place the journal and metadata themselves.
 *
 * Every placement check reads the device's reclaim unit handle status
 * before and after the writes (stream N is handle N - 1, stream 0 is
 * handle 0).  A reclaim unit is 16 MiB and the device's counts wrap at
 * that, so each measured step writes a few MiB at most, and long
 * workloads are measured in steps and summed.  Data must land exactly
 * where it should; the metadata and journal writes a filesystem makes
 * along with it are allowed, bounded, on the handles they may use.
 *
 * The test runs on the FDP namespace named by $FDP_TEST_DEV and destroys
 * its data; $FDP_TEST_PLAIN_DEV names a disk without streams for the
 * cases that need one (see fdp_util.c).  It skips when no disk is named,
 * when the named disk has no write streams and when the kernel has no
 * write_stream_policy; it fails when the other interface files or mount
 * options are missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest.h"
#include "fdp_util.h"

#ifndef RWH_WRITE_LIFE_SHORT
#define RWH_WRITE_LIFE_NOT_SET	0
#define RWH_WRITE_LIFE_NONE	1
#define RWH_WRITE_LIFE_SHORT	2
#define RWH_WRITE_LIFE_MEDIUM	3
#define RWH_WRITE_LIFE_LONG	4
#define RWH_WRITE_LIFE_EXTREME	5
#endif

#define MiB		(1024 * 1024)
#define FILE_SIZE	(4 * MiB)
#define SMALL_SIZE	4096
/* Journal and metadata a filesystem may write along with FILE_SIZE. */
#define META_SLACK	MiB
/* The metadata-heavy workload: files, and operations per measured step. */
#define NR_SMALL	1000
#define BATCH		50
#define MAX_FILES	(NR_SMALL + 64)
#define MNT		"/mnt/fs_streams_test"
#define TRACING		"/sys/kernel/tracing"
#define CMD_TIMEOUT	300

/* The streams the filesystem tests ask for; they need 8 streams. */
#define NEED_STREAMS	8
#define JOURNAL_STREAM	7
#define META_STREAM	8
#define PIN_STREAM	2

#define NR_POLICY_TESTS	4
#define NR_MAP_TESTS	12
#define NR_HINT_TESTS	(2 * 4)		/* buffered and direct, short..extreme */
#define NR_FS_TESTS	(2 * (NR_HINT_TESTS + 1) + 4 + 3 + 3)
#define NR_PIN_TESTS	3
#define NR_PART_TESTS	(NR_HINT_TESTS + 2)
#define NR_SWITCH_TESTS	2
#define NR_TESTS	(NR_POLICY_TESTS + NR_MAP_TESTS + 2 * NR_FS_TESTS + \
			 NR_PIN_TESTS + NR_PART_TESTS + NR_SWITCH_TESTS)
#define NR_SWITCHES	400

/* The keys of write_stream_hint_map, in the order it lists them. */
enum map_key { K_NOT_SET, K_NONE, K_SHORT, K_MEDIUM, K_LONG, K_EXTREME,
	       K_JOURNAL, K_METADATA, NR_KEYS };

static const char * const key_name[NR_KEYS] = {
	"not_set", "none", "short", "medium", "long", "extreme", "journal", "metadata",
};

static struct fdp_disk disk;
static char devnum[32], plain[64], plain_path[80];
static char top[512];
static unsigned int def_map[NR_KEYS];
static bool made_partitions;

struct fs_cfg {
	const char *fs;		/* "ext4" or "xfs" */
	char dev[300];		/* device node the filesystem is on */
	char logdev[300];	/* external journal or log device, or "" */
	char opts[256];		/* mount options, without logdev= */
};

/* The files written on the mounted filesystem, to check them later. */
struct wfile {
	char path[160];		/* "" once removed */
	size_t size;
	uint64_t sum;
};

static struct wfile files[MAX_FILES];
static unsigned int nr_files;

static int read_devnum(const char *name, char *buf, size_t len)
{
	char dir[300];
	int ret;

	buf[0] = '\0';
	snprintf(dir, sizeof(dir), "/sys/block/%s", name);
	ret = cg_read(dir, "dev", buf, len);
	buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

/*
 * Read or write /sys/block/@name/queue/@attr in one call; 0 or -errno.
 * The cgroup file helpers work on any directory.
 */
static int queue_read(const char *name, const char *attr, char *buf, size_t len)
{
	char dir[300];

	buf[0] = '\0';
	snprintf(dir, sizeof(dir), "/sys/block/%s/queue", name);
	return cg_read(dir, attr, buf, len);
}

static int queue_write(const char *name, const char *attr, const char *val)
{
	char dir[300];

	snprintf(dir, sizeof(dir), "/sys/block/%s/queue", name);
	return cg_write(dir, attr, val);
}

static const char *active_policy(char *buf)
{
	char *open = strchr(buf, '['), *close = open ? strchr(open, ']') : NULL;

	if (!close)
		return "";
	*close = '\0';
	return open + 1;
}

/* Switch the FDP disk's policy to @name and check it took; 0 or -errno. */
static int set_policy(const char *name)
{
	char buf[256];
	int ret;

	ret = queue_write(disk.name, "write_stream_policy", name);
	if (!ret)
		ret = queue_read(disk.name, "write_stream_policy", buf, sizeof(buf));
	if (!ret && strcmp(active_policy(buf), name))
		ret = -EIO;
	if (ret)
		ksft_print_msg("cannot set write_stream_policy %s: %s\n", name, strerror(-ret));
	return ret;
}

/*
 * The default map for @n streams: journal, metadata, short, medium, long
 * and extreme on streams 2 up, spread over the streams there are.
 */
static void default_map(unsigned int n, unsigned int *map)
{
	static const enum map_key order[] = { K_JOURNAL, K_METADATA, K_SHORT,
					      K_MEDIUM, K_LONG, K_EXTREME };
	unsigned int f = n ? n - 1 : 0, i;

	memset(map, 0, NR_KEYS * sizeof(*map));
	if (n < 2)
		return;
	for (i = 0; i < 6; i++)
		map[order[i]] = f >= 6 ? 2 + i : 2 + i * f / 6;
}

static void map_text(const unsigned int *map, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < NR_KEYS && off < len; i++)
		off += snprintf(buf + off, len - off, "%s %u\n", key_name[i], map[i]);
}

static int handle_of(unsigned int stream)
{
	return stream ? stream - 1 : 0;
}

static void fill(void *buf, size_t len, unsigned int seed)
{
	uint32_t *p = buf, x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len / 4; i++) {
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		p[i] = x;
	}
}

static uint64_t checksum(uint64_t h, const void *buf, size_t len)
{
	const uint64_t *p = buf;
	size_t i;

	for (i = 0; i < len / 8; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

#define SUM_SEED	0xcbf29ce484222325ull

/* Bytes per write() of a file of @size. */
static size_t chunk_of(size_t size)
{
	return size < MiB ? size : MiB;
}

/* The checksum of what write_file() writes for @size and @seed. */
static uint64_t content_sum(size_t size, unsigned int seed)
{
	size_t chunk = chunk_of(size), done;
	uint64_t h = SUM_SEED;
	void *buf = malloc(chunk);

	if (!buf)
		return 0;
	for (done = 0; done < size; done += chunk) {
		fill(buf, chunk, seed * 4096 + done / chunk);
		h = checksum(h, buf, chunk);
	}
	free(buf);
	return h;
}

static void file_add(const char *path, size_t size, unsigned int seed)
{
	struct wfile *f;

	if (nr_files == MAX_FILES)
		return;
	f = &files[nr_files++];
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->size = size;
	f->sum = content_sum(size, seed);
}

static struct wfile *file_find(const char *path)
{
	unsigned int i;

	for (i = 0; i < nr_files; i++)
		if (!strcmp(files[i].path, path))
			return &files[i];
	return NULL;
}

/* Checksum every file written since the last mkfs; return how many differ. */
static unsigned int files_bad(void)
{
	unsigned int i, bad = 0;
	void *buf = malloc(MiB);
	struct stat st;
	uint64_t h;
	ssize_t n;
	int fd;

	if (!buf)
		return nr_files ?: 1;
	for (i = 0; i < nr_files; i++) {
		if (!files[i].path[0])
			continue;
		h = SUM_SEED;
		fd = open(files[i].path, O_RDONLY);
		if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size != files[i].size) {
			if (fd >= 0)
				close(fd);
			ksft_print_msg("%s: missing or wrong size\n", files[i].path);
			bad++;
			continue;
		}
		while ((n = read(fd, buf, MiB)) > 0)
			h = checksum(h, buf, n);
		close(fd);
		if (n < 0 || h != files[i].sum) {
			if (bad < 5)
				ksft_print_msg("%s: checksum differs\n", files[i].path);
			bad++;
		}
	}
	free(buf);
	return bad;
}

struct wjob {
	const char *path;
	size_t size;		/* a multiple of chunk_of(size) */
	int hint;		/* RWH_WRITE_LIFE_*, or -1 to leave it unset */
	bool direct;
	unsigned int seed;
};

/* Write a file with a lifetime hint and fsync it; 0 or which step failed. */
static int write_file(void *arg)
{
	struct wjob *j = arg;
	size_t chunk = chunk_of(j->size), done;
	uint64_t hint = j->hint;
	int fd, ret = 0;
	void *buf;

	if (posix_memalign(&buf, 4096, chunk))
		return 1;
	fd = open(j->path, O_WRONLY | O_CREAT | O_TRUNC | (j->direct ? O_DIRECT : 0), 0644);
	if (fd < 0) {
		free(buf);
		return 2;
	}
	if (j->hint >= 0 && fcntl(fd, F_SET_RW_HINT, &hint))
		ret = 3;
	for (done = 0; !ret && done < j->size; done += chunk) {
		fill(buf, chunk, j->seed * 4096 + done / chunk);
		if (pwrite(fd, buf, chunk, done) != (ssize_t)chunk)
			ret = 4;
	}
	if (!ret && fsync(fd))
		ret = 5;
	close(fd);
	free(buf);
	return ret;
}

static int run(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

/* Run a shell command made from @fmt, bounded in time; its exit status. */
static int runf(const char *fmt, ...)
{
	char cmd[1024], line[1100];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(line, sizeof(line), "timeout -k 10 %d sh -c '%s'", CMD_TIMEOUT, cmd);
	return run(line);
}

static int flush_page_cache(void)
{
	sync();
	return cg_write("/proc/sys/vm", "drop_caches", "3");
}

/*
 * The options of the mount on MNT in /proc/mounts, with a comma at each
 * end so that ",opt," finds a whole option; -ENOENT if nothing is there.
 */
static int mount_opts(char *buf, size_t len)
{
	char line[1024], dev[300], dir[300], type[64], opts[600];
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/mounts", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%299s %299s %63s %599s", dev, dir, type, opts) != 4 ||
		    strcmp(dir, MNT))
			continue;
		snprintf(buf, len, ",%s,", opts);
		ret = 0;
	}
	fclose(f);
	return ret;
}

static bool mounted(void)
{
	char buf[700];

	return !mount_opts(buf, sizeof(buf));
}

/* Is @dev (a device node) mounted anywhere? */
static bool dev_mounted(const char *dev)
{
	char line[1024], d[300];
	bool found = false;
	FILE *f;

	f = fopen("/proc/mounts", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%299s", d) == 1 && !strcmp(d, dev))
			found = true;
	fclose(f);
	return found;
}

static bool shows_opt(const char *opt)
{
	char buf[700], want[160];

	snprintf(want, sizeof(want), ",%s,", opt);
	return !mount_opts(buf, sizeof(buf)) && strstr(buf, want);
}

static bool shows_opt_name(const char *name)
{
	char buf[700], want[160];

	snprintf(want, sizeof(want), ",%s=", name);
	return !mount_opts(buf, sizeof(buf)) && strstr(buf, want);
}

static int umount_all(void)
{
	int i;

	for (i = 0; i < 10 && mounted(); i++)
		if (umount(MNT))
			sleep(1);
	return mounted() ? -EBUSY : 0;
}

/* Make @c's filesystem; 0 or the failing command's status. */
static int do_mkfs(const struct fs_cfg *c)
{
	nr_files = 0;
	if (!strcmp(c->fs, "ext4")) {
		if (c->logdev[0] &&
		    runf("mke2fs -q -F -O journal_dev -b 4096 %s >/dev/null", c->logdev))
			return 1;
		return runf("mkfs.ext4 -q -F -b 4096 %s%s -E %s %s >/dev/null",
			    c->logdev[0] ? "-J device=" : "", c->logdev,
			    "nodiscard,lazy_itable_init=0,lazy_journal_init=0", c->dev);
	}
	/*
	 * mkfs.xfs refuses a filesystem below 300 MiB (the disk without
	 * streams is smaller) unless run as fstests runs it.
	 */
	if (c->logdev[0])
		return runf("mkfs.xfs -q -f -K -l logdev=%s,size=64m,sectsize=4096 %s >/dev/null",
			    c->logdev, c->dev);
	return runf("TEST_DIR=/tmp TEST_DEV=%s QA_CHECK_FS=xfs mkfs.xfs -q -f -K %s >/dev/null",
		    c->dev, c->dev);
}

/* Mount @c on MNT with @opts (NULL: @c's own); 0 or -errno. */
static int do_mount(const struct fs_cfg *c, const char *opts)
{
	char data[600];

	if (!opts)
		opts = c->opts;
	if (!strcmp(c->fs, "xfs") && c->logdev[0])
		snprintf(data, sizeof(data), "logdev=%s%s%s", c->logdev,
			 opts[0] ? "," : "", opts);
	else
		snprintf(data, sizeof(data), "%s", opts);
	mkdir(MNT, 0755);
	if (mount(c->dev, MNT, c->fs, 0, data))
		return -errno;
	return 0;
}

/* fsck @c's unmounted filesystem without changing it; 0 if clean. */
static int do_fsck(const struct fs_cfg *c)
{
	char cmd[800];
	int ret;

	if (!strcmp(c->fs, "ext4"))
		snprintf(cmd, sizeof(cmd), "e2fsck -fn %s%s %s", c->logdev[0] ? "-j " : "",
			 c->logdev, c->dev);
	else
		snprintf(cmd, sizeof(cmd), "xfs_repair -n %s%s %s", c->logdev[0] ? "-l " : "",
			 c->logdev, c->dev);
	ret = runf("%s >/tmp/fs_streams_fsck.log 2>&1", cmd);
	if (ret) {
		ksft_print_msg("%s: exit status %d\n", cmd, ret);
		run("head -n 20 /tmp/fs_streams_fsck.log | sed \"s/^/# /\"");
	}
	return ret;
}

/*
 * Integrity after a placement mode: every file written since mkfs reads
 * back with its checksum from the device (page cache dropped), the
 * unmounted filesystem checks clean, and after mounting it again the
 * files are still intact.  Leaves the filesystem mounted if it can.
 */
static void check_integrity(const char *name, const struct fs_cfg *c)
{
	unsigned int bad;
	int ret;

	if (!mounted()) {
		ksft_test_result_fail("%s: not mounted\n", name);
		return;
	}
	flush_page_cache();
	bad = files_bad();
	if (bad) {
		ksft_test_result_fail("%s: %u of %u files differ after drop_caches\n",
				      name, bad, nr_files);
		return;
	}
	if (umount_all()) {
		ksft_test_result_fail("%s: umount failed\n", name);
		return;
	}
	if (do_fsck(c)) {
		ksft_test_result_fail("%s: fsck found problems\n", name);
		do_mount(c, NULL);
		return;
	}
	ret = do_mount(c, NULL);
	if (ret) {
		ksft_test_result_fail("%s: mount again: %s\n", name, strerror(-ret));
		return;
	}
	bad = files_bad();
	if (bad) {
		ksft_test_result_fail("%s: %u of %u files differ after umount and mount\n",
				      name, bad, nr_files);
		return;
	}
	ksft_test_result_pass("%s\n", name);
}

/* Add what each handle consumed since *@s to @acc and move *@s on. */
static int usage_add(struct fdp_snapshot *s, struct fdp_usage *acc)
{
	struct fdp_snapshot now;
	struct fdp_usage u;
	unsigned int i;

	if (fdp_snapshot(&disk, &now) || fdp_usage(&disk, s, &now, &u))
		return -EIO;
	acc->nr = u.nr;
	for (i = 0; i < u.nr; i++)
		acc->blocks[i] += u.blocks[i];
	*s = now;
	return 0;
}

static int usage_begin(struct fdp_snapshot *s, struct fdp_usage *acc)
{
	memset(acc, 0, sizeof(*acc));
	return fdp_snapshot(&disk, s) ? -EIO : 0;
}

/*
 * Did @target consume @blocks, or at most @slack more, the handles in
 * @noise at most @slack, and every other handle nothing?
 */
static bool usage_ok(const struct fdp_usage *u, int target, uint64_t blocks,
		     uint64_t noise, uint64_t slack, char *why, size_t len)
{
	size_t off = 0;
	unsigned int i;
	bool ok = true;

	why[0] = '\0';
	for (i = 0; i < u->nr; i++) {
		uint64_t lo = 0, hi = 0, b = u->blocks[i];

		if ((int)i == target) {
			lo = blocks;
			hi = blocks + slack;
		} else if (i < 64 && (noise & (1ull << i))) {
			hi = slack;
		}
		if (b >= lo && b <= hi)
			continue;
		ok = false;
		if (off < len)
			off += snprintf(why + off, len - off,
					"%shandle %u consumed %llu blocks, want %llu..%llu",
					off ? "; " : "", i, (unsigned long long)b,
					(unsigned long long)lo, (unsigned long long)hi);
	}
	if ((unsigned int)target >= u->nr && off < len)
		snprintf(why + off, len - off, "no handle %d", target);
	return ok && (unsigned int)target < u->nr;
}

static const int hints[] = { RWH_WRITE_LIFE_SHORT, RWH_WRITE_LIFE_MEDIUM,
			     RWH_WRITE_LIFE_LONG, RWH_WRITE_LIFE_EXTREME };

/*
 * Write one FILE_SIZE file per hint short..extreme, buffered then fsync
 * and O_DIRECT, each measured on its own: with the hint policy the data
 * must land on the mapped stream's handle, with none on handle 0.  The
 * journal and metadata may add up to META_SLACK on their own handles (the
 * map's journal and metadata streams with the hint policy, handle 0 with
 * none).  @why_not: the policy could not be set; every check fails.
 */
static void hint_placement(const char *tag, bool hint_policy, const char *why_not)
{
	static unsigned int seed = 1000;
	uint64_t data = FILE_SIZE / disk.lba_size, slack = META_SLACK / disk.lba_size;
	uint64_t noise = 1;
	unsigned int d, h;
	int target;

	if (hint_policy)
		noise |= 1ull << handle_of(def_map[K_JOURNAL]) |
			 1ull << handle_of(def_map[K_METADATA]);
	for (d = 0; d < 2; d++) {
		for (h = 0; h < 4; h++) {
			char name[128], path[300], why[512];
			struct wjob j = { .path = path, .size = FILE_SIZE,
					  .hint = hints[h], .direct = d, .seed = ++seed };
			struct fdp_snapshot s;
			struct fdp_usage u;
			int ret;

			target = hint_policy ? handle_of(def_map[hints[h]]) : 0;
			snprintf(name, sizeof(name), "%s_%s_%s_%s_on_handle_%d", tag,
				 hint_policy ? "hint" : "none", d ? "direct" : "buffered",
				 key_name[hints[h]], target);
			snprintf(path, sizeof(path), MNT "/%s_%s_%s",
				 hint_policy ? "hint" : "none", d ? "direct" : "buffered",
				 key_name[hints[h]]);
			sync();
			if (usage_begin(&s, &u)) {
				ksft_test_result_fail("%s: handle status\n", name);
				continue;
			}
			ret = write_file(&j);
			if (ret) {
				ksft_test_result_fail("%s: writer failed (%d)\n", name, ret);
				continue;
			}
			file_add(path, j.size, j.seed);
			if (usage_add(&s, &u)) {
				ksft_test_result_fail("%s: handle status\n", name);
				continue;
			}
			if (why_not) {
				fdp_usage_print(&disk, &u);
				ksft_test_result_fail("%s: %s\n", name, why_not);
			} else if (!usage_ok(&u, target, data, noise, slack, why, sizeof(why))) {
				fdp_usage_print(&disk, &u);
				ksft_test_result_fail("%s: %s\n", name, why);
			} else {
				ksft_test_result_pass("%s\n", name);
			}
		}
	}
}

static void fail_n(unsigned int n, const char *tag, const char *why)
{
	while (n--)
		ksft_test_result_fail("%s: %s\n", tag, why);
}

static void skip_n(unsigned int n, const char *tag, const char *why)
{
	while (n--)
		ksft_test_result_skip("%s: %s\n", tag, why);
}

/*
 * Hint placement on @c, with the hint policy and then with none, each
 * followed by the integrity check.  The journal or log is on the FDP disk
 * with the data: with the hint policy it goes to the map's journal stream
 * and the data to the hint streams, which differ, so the data's handle
 * still sees nothing but data; with none everything shares handle 0,
 * which is what that mode must show.
 */
static void hint_fs(const char *tag, struct fs_cfg *c)
{
	char name[128];
	int ret;

	if (do_mkfs(c) || do_mount(c, NULL)) {
		fail_n(2 * (NR_HINT_TESTS + 1), tag, "mkfs or mount failed");
		return;
	}
	ret = queue_write(disk.name, "write_stream_hint_map", "default");
	ret = set_policy("hint") ?: ret;
	hint_placement(tag, true, ret ? "cannot set policy hint and the default map" : NULL);
	snprintf(name, sizeof(name), "%s_hint_integrity", tag);
	check_integrity(name, c);

	ret = set_policy("none");
	hint_placement(tag, false, ret ? "cannot set policy none" : NULL);
	snprintf(name, sizeof(name), "%s_none_integrity", tag);
	check_integrity(name, c);
	umount_all();
}

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

static int trace_enable(bool on)
{
	return trace_ctl("events/block/block_write_stream/enable", on ? "1" : "0");
}

/*
 * Sum the sectors of the traced writes to our disk on @stream that
 * rule=fs decided (@fs), and that any other rule decided (@other).
 */
static int traced_stream(unsigned int stream, long long *fs, long long *other)
{
	char line[512], dev[32], want[32], *p, *q;
	unsigned int maj, min;
	FILE *f;

	*fs = *other = 0;
	if (sscanf(devnum, "%u:%u", &maj, &min) != 2)
		return -EINVAL;
	snprintf(dev, sizeof(dev), " %u,%u ", maj, min);
	snprintf(want, sizeof(want), " stream=%u rule=", stream);
	f = fopen(TRACING "/trace", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "block_write_stream:") || !strstr(line, dev))
			continue;
		q = strstr(line, want);
		p = strstr(line, " + ");
		if (!q || !p)
			continue;
		if (!strncmp(q + strlen(want), "fs ", 3))
			*fs += atoll(p + 3);
		else
			*other += atoll(p + 3);
	}
	fclose(f);
	return 0;
}

/*
 * A metadata-heavy workload in @dir: create NR_SMALL small files with
 * fsync, rename each with an fsync of the directory, delete every other
 * one.  The device is read every BATCH operations so that no handle can
 * wrap a reclaim unit between two reads; @u sums it.  The first batch is
 * traced with a sync, so that it holds journal and metadata writes.
 */
static int small_workload(const char *dir, struct fdp_snapshot *s, struct fdp_usage *u)
{
	char a[sizeof(files[0].path)], b[sizeof(files[0].path)];
	unsigned int i;
	struct wfile *f;
	int dfd, ret = 0;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		return -errno;
	trace_ctl("trace", "");
	trace_enable(true);
	for (i = 0; i < NR_SMALL && !ret; i++) {
		struct wjob j = { .path = a, .size = SMALL_SIZE, .hint = -1, .seed = 5000 + i };

		snprintf(a, sizeof(a), "%s/f%05u", dir, i);
		if (write_file(&j)) {
			ret = -EIO;
			break;
		}
		file_add(a, j.size, j.seed);
		if ((i + 1) % BATCH)
			continue;
		if (i + 1 == BATCH) {
			sync();
			trace_enable(false);
		}
		ret = usage_add(s, u);
	}
	trace_enable(false);
	for (i = 0; i < NR_SMALL && !ret; i++) {
		snprintf(a, sizeof(a), "%s/f%05u", dir, i);
		snprintf(b, sizeof(b), "%s/g%05u", dir, i);
		if (rename(a, b) || fsync(dfd)) {
			ret = -errno;
			break;
		}
		f = file_find(a);
		if (f)
			snprintf(f->path, sizeof(f->path), "%s", b);
		if (!((i + 1) % BATCH))
			ret = usage_add(s, u);
	}
	for (i = 0; i < NR_SMALL && !ret; i += 2) {
		snprintf(b, sizeof(b), "%s/g%05u", dir, i);
		if (unlink(b)) {
			ret = -errno;
			break;
		}
		f = file_find(b);
		if (f)
			f->path[0] = '\0';
		if (!((i + 2) % BATCH)) {
			if (fsync(dfd))
				ret = -errno;
			else
				ret = usage_add(s, u);
		}
	}
	if (!ret && fsync(dfd))
		ret = -errno;
	close(dfd);
	return ret;
}

/*
 * The journal/log and metadata streams from mount options, with the hint
 * policy on: rule 3 (fs) beats the policy, so journal and metadata writes
 * land on handles JOURNAL_STREAM - 1 and META_STREAM - 1, not on the map's
 * journal and metadata handles; the small files' data has no hint and
 * goes to handle 0.  The journal is inside the filesystem on the FDP disk:
 * its stream is what is measured.  Unmounting is measured too, as it
 * writes the metadata still in memory (XFS writes its metadata in place
 * only when the log asks or at unmount).
 */
static void fs_kind_streams(const char *tag, struct fs_cfg *c)
{
	const char *jopt = strcmp(c->fs, "xfs") ? "journal_stream" : "log_stream";
	int jh = handle_of(JOURNAL_STREAM), mh = handle_of(META_STREAM), ret;
	long long jfs, jother, mfs, mother;
	char name[128], o1[64], o2[64];
	struct fdp_snapshot s;
	struct fdp_usage u;
	bool ok = true;
	unsigned int i;

	snprintf(o1, sizeof(o1), "%s=%u", jopt, JOURNAL_STREAM);
	snprintf(o2, sizeof(o2), "metadata_stream=%u", META_STREAM);
	snprintf(c->opts, sizeof(c->opts), "%s,%s", o1, o2);
	snprintf(name, sizeof(name), "%s_fs_streams_mount_shows_options", tag);
	ret = do_mkfs(c) ? -EIO : do_mount(c, NULL);
	if (ret) {
		ksft_print_msg("mkfs, or mount -o %s: %s\n", c->opts, strerror(-ret));
		ksft_test_result_fail("%s\n", name);
		snprintf(name, sizeof(name), "%s_fs_streams_on_handles_%d_%d", tag, jh, mh);
		ksft_test_result_fail("%s: not mounted\n", name);
		snprintf(name, sizeof(name), "%s_fs_streams_traced_rule_fs", tag);
		ksft_test_result_fail("%s: not mounted\n", name);
		snprintf(name, sizeof(name), "%s_fs_streams_integrity", tag);
		ksft_test_result_fail("%s: not mounted\n", name);
		c->opts[0] = '\0';
		return;
	}
	ksft_test_result(shows_opt(o1) && shows_opt(o2), "%s\n", name);

	snprintf(name, sizeof(name), "%s_fs_streams_on_handles_%d_%d", tag, jh, mh);
	ret = queue_write(disk.name, "write_stream_hint_map", "default");
	ret = set_policy("hint") ?: ret;
	sync();
	ret = usage_begin(&s, &u) ?: ret;
	ret = small_workload(MNT "/meta", &s, &u) ?: ret;
	/* The unmount writes are traced too, after the first batch. */
	trace_enable(true);
	ret = umount_all() ?: ret;
	trace_enable(false);
	ret = usage_add(&s, &u) ?: ret;
	fdp_usage_print(&disk, &u);
	if (ret) {
		ksft_test_result_fail("%s: workload, policy or handle status failed (%d)\n",
				      name, ret);
	} else {
		for (i = 0; i < u.nr; i++) {
			if ((int)i == jh || (int)i == mh || i == 0)
				continue;
			ok &= !u.blocks[i];
		}
		ok &= u.blocks[jh] && u.blocks[mh];
		for (i = 0; i < u.nr; i++)
			ok &= (int)i == jh || u.blocks[i] <= u.blocks[jh];
		if (!ok)
			ksft_print_msg("want handles %d, %d used, %d most, others 0\n",
				       jh, mh, jh);
		ksft_test_result(ok, "%s\n", name);
	}

	snprintf(name, sizeof(name), "%s_fs_streams_traced_rule_fs", tag);
	if (traced_stream(JOURNAL_STREAM, &jfs, &jother) ||
	    traced_stream(META_STREAM, &mfs, &mother)) {
		ksft_test_result_fail("%s: cannot read the trace\n", name);
	} else {
		ksft_print_msg("traced sectors on stream %u: rule=fs %lld, other %lld\n",
			       JOURNAL_STREAM, jfs, jother);
		ksft_print_msg("traced sectors on stream %u: rule=fs %lld, other %lld\n",
			       META_STREAM, mfs, mother);
		ksft_test_result(jfs > 0 && mfs > 0 && !jother && !mother, "%s\n", name);
	}
	trace_ctl("trace", "");

	snprintf(name, sizeof(name), "%s_fs_streams_integrity", tag);
	ret = do_mount(c, NULL);
	if (ret)
		ksft_test_result_fail("%s: mount again: %s\n", name, strerror(-ret));
	else
		check_integrity(name, c);
	umount_all();
	c->opts[0] = '\0';
}

/*
 * A few small files with fsync; return the blocks each handle consumed
 * (journal commits for each, metadata at unmount is not included).
 */
static int fsync_burst(const char *tag, struct fdp_usage *u)
{
	static unsigned int seed = 9000;
	struct fdp_snapshot s;
	char path[300];
	int i, ret;

	sync();
	ret = usage_begin(&s, u);
	for (i = 0; i < 20 && !ret; i++) {
		struct wjob j = { .path = path, .size = SMALL_SIZE, .hint = -1, .seed = ++seed };

		snprintf(path, sizeof(path), MNT "/%s_burst_%u", tag, seed);
		ret = write_file(&j) ? -EIO : 0;
		if (!ret)
			file_add(path, j.size, j.seed);
	}
	return ret ?: usage_add(&s, u);
}

/* Read /dev/kmsg from its end on: 0 and an fd, or -errno. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	lseek(fd, 0, SEEK_END);
	return fd;
}

/* Did the kernel log anything containing @what since kmsg_open()? */
static bool kmsg_has(int fd, const char *what)
{
	char rec[8192];
	bool found = false;
	ssize_t n;
	int i;

	for (i = 0; i < 10000; i++) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, what))
			found = true;
	}
	return found;
}

/*
 * Mounting @c with @opts must fail, leave nothing mounted and log a
 * message naming @option.  @known: a good value of the option mounted, so
 * the option exists (a kernel without it also refuses the mount).
 */
static void bad_mount(const char *name, const struct fs_cfg *c, const char *opts,
		      const char *option, bool known)
{
	int fd, ret;
	bool logged;

	umount_all();
	fd = kmsg_open();
	ret = do_mount(c, opts);
	logged = fd >= 0 && kmsg_has(fd, option);
	if (fd >= 0)
		close(fd);
	if (!ret) {
		umount_all();
		ksft_test_result_fail("%s: -o %s mounted\n", name, opts);
	} else if (mounted() || dev_mounted(c->dev)) {
		umount_all();
		ksft_test_result_fail("%s: -o %s failed (%s) but left a mount\n", name, opts,
				      strerror(-ret));
	} else if (!logged) {
		ksft_test_result_fail("%s: no kernel message names %s\n", name, option);
	} else if (!known) {
		ksft_test_result_fail("%s: refused, but a good %s was refused too\n", name,
				      option);
	} else {
		ksft_test_result_pass("%s\n", name);
	}
}

/*
 * Mount options: they mount with good values and show in /proc/mounts,
 * a remount changes the journal stream on the device and in /proc/mounts,
 * a remount to 0 hides it, and bad values refuse the mount.  Policy none:
 * the journal goes to handle 0 when no option places it.
 */
static void fs_options(const char *tag, struct fs_cfg *c)
{
	const bool xfs = !strcmp(c->fs, "xfs");
	const char *jopt = xfs ? "log_stream" : "journal_stream";
	struct fs_cfg pc = { .fs = c->fs };
	char name[128], opt[128], why[300];
	bool known = false, ok;
	struct fdp_usage u;
	int ret;

	snprintf(name, sizeof(name), "%s_stream_options_known", tag);
	snprintf(c->opts, sizeof(c->opts), "%s=2,metadata_stream=3", jopt);
	set_policy("none");
	if (do_mkfs(c) || do_mount(c, NULL)) {
		ksft_test_result_fail("%s: mkfs or mount -o %s failed\n", name, c->opts);
	} else {
		snprintf(opt, sizeof(opt), "%s=2", jopt);
		known = shows_opt(opt) && shows_opt("metadata_stream=3");
		ksft_test_result(known, "%s\n", name);
	}

	/* Remount to stream 5: the journal moves from handle 1 to handle 4. */
	snprintf(name, sizeof(name), "%s_remount_%s_5", tag, jopt);
	ret = mounted() ? runf("mount -o remount,%s=5 %s", jopt, MNT) : -1;
	snprintf(opt, sizeof(opt), "%s=5", jopt);
	if (ret || !shows_opt(opt) || fsync_burst(tag, &u)) {
		ksft_test_result_fail("%s: remount failed (%d) or /proc/mounts lacks %s\n",
				      name, ret, opt);
	} else {
		fdp_usage_print(&disk, &u);
		ok = u.blocks[4] && !u.blocks[1];
		snprintf(why, sizeof(why), "handle 4 consumed %llu, handle 1 %llu",
			 (unsigned long long)u.blocks[4], (unsigned long long)u.blocks[1]);
		ksft_test_result(ok, "%s%s%s\n", name, ok ? "" : ": ", ok ? "" : why);
	}

	/* Remount to 0: the option leaves /proc/mounts, the journal handle 4. */
	snprintf(name, sizeof(name), "%s_remount_%s_0", tag, jopt);
	ret = mounted() ? runf("mount -o remount,%s=0 %s", jopt, MNT) : -1;
	if (ret || !mounted() || shows_opt_name(jopt) || fsync_burst(tag, &u)) {
		ksft_test_result_fail("%s: remount failed (%d) or /proc/mounts still shows %s\n",
				      name, ret, jopt);
	} else {
		fdp_usage_print(&disk, &u);
		ksft_test_result(!u.blocks[4] && !u.blocks[1], "%s\n", name);
	}
	umount_all();
	c->opts[0] = '\0';

	/* Bad values: the filesystem from above, and one on the plain disk. */
	snprintf(name, sizeof(name), "%s_bad_%s_abc", tag, jopt);
	snprintf(opt, sizeof(opt), "%s=abc", jopt);
	bad_mount(name, c, opt, jopt, known);
	if (xfs) {
		snprintf(name, sizeof(name), "%s_bad_%s_99", tag, jopt);
		snprintf(opt, sizeof(opt), "%s=99", jopt);
	} else {
		snprintf(name, sizeof(name), "%s_bad_%s_above_max_write_streams", tag, jopt);
		snprintf(opt, sizeof(opt), "%s=%u", jopt, disk.max_write_streams + 1);
	}
	bad_mount(name, c, opt, jopt, known);
	snprintf(name, sizeof(name), "%s_bad_metadata_stream_1_on_disk_without_streams", tag);
	if (!plain[0]) {
		ksft_test_result_skip("%s: no FDP_TEST_PLAIN_DEV\n", name);
		return;
	}
	snprintf(pc.dev, sizeof(pc.dev), "%s", plain_path);
	if (do_mkfs(&pc))
		ksft_test_result_fail("%s: mkfs on %s failed\n", name, plain);
	else
		bad_mount(name, &pc, "metadata_stream=1", "metadata_stream", known);
}

static int set_stream(const char *cg, const char *value)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s %s", devnum, value);
	return cg_write(cg, "io.stream", buf);
}

/*
 * io.stream (rule 2) beats the hint map (rule 4) for data: a cgroup
 * pinned to PIN_STREAM writes a file with hint short, which the map
 * would put on another stream.  The journal is on the disk without
 * streams, so that the pinned handle sees only the data and what the
 * cgroup's own metadata writeback adds (bounded); metadata written
 * outside the cgroup may use the map's metadata handle or handle 0.
 */
static void test_cgroup_pin(void)
{
	uint64_t data = FILE_SIZE / disk.lba_size, slack = META_SLACK / disk.lba_size;
	uint64_t noise = 1 | 1ull << handle_of(def_map[K_METADATA]);
	struct fs_cfg c = { .fs = "ext4" };
	int target = handle_of(PIN_STREAM);
	unsigned int d;
	char cg[600];
	int ret;

	snprintf(c.dev, sizeof(c.dev), "%s", disk.path);
	if (!plain[0]) {
		skip_n(NR_PIN_TESTS, "ext4_cgroup_pin", "no FDP_TEST_PLAIN_DEV");
		return;
	}
	snprintf(c.logdev, sizeof(c.logdev), "%s", plain_path);
	if (do_mkfs(&c) || do_mount(&c, NULL)) {
		fail_n(NR_PIN_TESTS, "ext4_cgroup_pin", "mkfs or mount failed");
		return;
	}
	cg_create(cg, sizeof(cg), top, "pin");
	ret = queue_write(disk.name, "write_stream_hint_map", "default");
	ret = set_policy("hint") ?: ret;
	ret = set_stream(cg, "2") ?: ret;
	if (ret)
		ksft_print_msg("policy, map or io.stream setup failed: %s\n", strerror(-ret));
	for (d = 0; d < 2; d++) {
		char name[128], path[300], why[512];
		struct wjob j = { .path = path, .size = FILE_SIZE, .hint = RWH_WRITE_LIFE_SHORT,
				  .direct = d, .seed = 7000 + d };
		struct fdp_snapshot s;
		struct fdp_usage u;
		int err;

		snprintf(name, sizeof(name), "ext4_cgroup_pin_%u_beats_hint_map_%s",
			 PIN_STREAM, d ? "direct" : "buffered");
		snprintf(path, sizeof(path), MNT "/pinned_%s", d ? "direct" : "buffered");
		sync();
		if (usage_begin(&s, &u)) {
			ksft_test_result_fail("%s: handle status\n", name);
			continue;
		}
		err = cg_run(cg, write_file, &j);
		if (err) {
			ksft_test_result_fail("%s: writer failed (%d)\n", name, err);
			continue;
		}
		file_add(path, j.size, j.seed);
		if (usage_add(&s, &u)) {
			ksft_test_result_fail("%s: handle status\n", name);
			continue;
		}
		if (ret) {
			fdp_usage_print(&disk, &u);
			ksft_test_result_fail("%s: setup failed\n", name);
		} else if (!usage_ok(&u, target, data, noise, slack, why, sizeof(why))) {
			fdp_usage_print(&disk, &u);
			ksft_test_result_fail("%s: %s\n", name, why);
		} else {
			ksft_test_result_pass("%s\n", name);
		}
	}
	set_stream(cg, "default");
	cg_destroy(cg);
	check_integrity("ext4_cgroup_pin_integrity", &c);
	umount_all();
}

static void part_path(unsigned int n, char *buf, size_t len)
{
	snprintf(buf, len, "%sp%u", disk.path, n);
}

static void wipe_partitions(void)
{
	char p1[300], p2[300];

	umount_all();
	part_path(1, p1, sizeof(p1));
	part_path(2, p2, sizeof(p2));
	runf("wipefs -q -a %s %s >/dev/null 2>&1; sfdisk -q --delete %s >/dev/null 2>&1; "
	     "wipefs -q -a %s >/dev/null; blockdev --rereadpt %s", p1, p2, disk.path,
	     disk.path, disk.path);
	made_partitions = false;
}

/*
 * The hint placement on a partition: a GPT with two partitions, ext4 on
 * the second; the streams, the policy and the map are the whole disk's.
 */
/*
 * Switching the policy and rewriting the map while writers run must fail
 * no I/O and lose no data: two writers, buffered and direct, rewrite
 * their files with hints while the policy flips between none and hint
 * and the map between two layouts.
 */
static void test_switch_under_io(void)
{
	static const char * const maps[] = { "default", "short 8\nmedium 7\n" };
	struct fs_cfg c = { .fs = "ext4" };
	pid_t pid[2];
	unsigned int i, errors = 0;
	int status, d, failed = 0;

	snprintf(c.dev, sizeof(c.dev), "%s", disk.path);
	if (do_mkfs(&c) || do_mount(&c, NULL)) {
		fail_n(NR_SWITCH_TESTS, "switch_under_io", "mkfs or mount failed");
		return;
	}
	for (d = 0; d < 2; d++) {
		pid[d] = fork();
		if (!pid[d]) {
			char path[300];
			struct wjob j = { .path = path, .size = FILE_SIZE,
					  .hint = RWH_WRITE_LIFE_SHORT + d,
					  .direct = d, .seed = 9000 + d };
			int r, ret = 0;

			snprintf(path, sizeof(path), MNT "/switch_%d", d);
			for (r = 0; r < 8 && !ret; r++)
				ret = write_file(&j);
			_exit(ret);
		}
	}
	for (i = 0; i < NR_SWITCHES; i++) {
		if (set_policy(i & 1 ? "none" : "hint") ||
		    queue_write(disk.name, "write_stream_hint_map", maps[i / 2 % 2]))
			errors++;
		usleep(5000);
	}
	for (d = 0; d < 2; d++) {
		if (pid[d] < 0 || waitpid(pid[d], &status, 0) != pid[d] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
		else
			file_add(d ? MNT "/switch_1" : MNT "/switch_0", FILE_SIZE,
				 9000 + d);
	}
	queue_write(disk.name, "write_stream_hint_map", "default");
	set_policy("none");
	if (errors || failed)
		ksft_test_result_fail("%s: %u of %u switches, %d writers failed\n",
				      "switch_under_io_no_error", errors,
				      NR_SWITCHES, failed);
	else
		ksft_test_result_pass("switch_under_io_no_error\n");
	check_integrity("switch_under_io_integrity", &c);
	umount_all();
}

static void test_partition(void)
{
	struct fs_cfg c = { .fs = "ext4" };
	const char *why = NULL;
	char opt[80];
	unsigned int i;
	int ret;

	made_partitions = true;
	part_path(2, c.dev, sizeof(c.dev));
	if (runf("printf \"label: gpt\\n,256M\\n,\\n\" | sfdisk -q %s >/dev/null",
		 disk.path)) {
		why = "sfdisk failed";
	} else {
		for (i = 0; i < 100 && access(c.dev, F_OK); i++)
			usleep(100 * 1000);
		if (access(c.dev, F_OK))
			why = "no device node for the second partition";
		else if (do_mkfs(&c) || do_mount(&c, NULL))
			why = "mkfs or mount failed";
	}
	if (why) {
		fail_n(NR_PART_TESTS, "partition", why);
		wipe_partitions();
		return;
	}
	ret = queue_write(disk.name, "write_stream_hint_map", "default");
	ret = set_policy("hint") ?: ret;
	hint_placement("ext4_partition", true,
		       ret ? "cannot set policy hint and the default map" : NULL);
	/* The partition reports no streams of its own: the disk's count. */
	snprintf(opt, sizeof(opt), "journal_stream=%u,metadata_stream=%u",
		 disk.max_write_streams, disk.max_write_streams);
	ret = runf("mount -o remount,%s %s", opt, MNT);
	if (ret || !shows_opt(opt))
		ksft_test_result_fail("%s: remount (%d) or /proc/mounts\n",
				      "ext4_partition_kind_streams_from_disk", ret);
	else
		ksft_test_result_pass("ext4_partition_kind_streams_from_disk\n");
	check_integrity("ext4_partition_integrity", &c);
	wipe_partitions();
}

/* Policy file: lists none and hint, [none] first; switches; refuses junk. */
static void test_policy(void)
{
	char buf[256], copy[256], *tok, *save;
	bool none = false, hint = false;
	int marked = 0, ret;

	ret = queue_read(disk.name, "write_stream_policy", buf, sizeof(buf));
	if (ret) {
		ksft_test_result_fail("policy_lists_none_and_hint_default_none: %s\n",
				      strerror(-ret));
	} else {
		snprintf(copy, sizeof(copy), "%s", buf);
		for (tok = strtok_r(copy, "\n ", &save); tok; tok = strtok_r(NULL, "\n ", &save)) {
			size_t n = strlen(tok);

			if (tok[0] == '[' && n > 2 && tok[n - 1] == ']') {
				marked++;
				tok[n - 1] = '\0';
				tok++;
				none |= !strcmp(tok, "none") && marked == 1;
			} else {
				none |= !strcmp(tok, "none");
			}
			hint |= !strcmp(tok, "hint");
		}
		ksft_test_result(none && hint && marked == 1 &&
				 strchr(buf, '\n') && !strcmp(active_policy(buf), "none"),
				 "policy_lists_none_and_hint_default_none\n");
	}
	ksft_test_result(!set_policy("hint"), "policy_switch_to_hint\n");

	ret = queue_write(disk.name, "write_stream_policy", "no_such_policy");
	queue_read(disk.name, "write_stream_policy", buf, sizeof(buf));
	if (ret != -EINVAL || strcmp(active_policy(buf), "hint"))
		ksft_test_result_fail("policy_unknown_name_einval_unchanged: got %d, active '%s'\n",
				      ret, active_policy(buf));
	else
		ksft_test_result_pass("policy_unknown_name_einval_unchanged\n");

	ret = queue_write(disk.name, "write_stream_policy", "none\n");
	queue_read(disk.name, "write_stream_policy", buf, sizeof(buf));
	ksft_test_result(!ret && !strcmp(active_policy(buf), "none"),
			 "policy_switch_back_to_none_with_newline\n");
}

/* Write @input to @name's map: it must fail with EINVAL and change nothing. */
static void map_bad(const char *name, const char *dname, const char *input)
{
	char before[512], after[512];
	int ret;

	queue_read(dname, "write_stream_hint_map", before, sizeof(before));
	ret = queue_write(dname, "write_stream_hint_map", input);
	queue_read(dname, "write_stream_hint_map", after, sizeof(after));
	if (ret != -EINVAL)
		ksft_test_result_fail("%s: got %d (%s), want EINVAL\n", name, ret, strerror(-ret));
	else if (!before[0] || strcmp(before, after))
		ksft_test_result_fail("%s: map changed or unreadable:\n%s", name, after);
	else
		ksft_test_result_pass("%s\n", name);
}

/* Write @input to the map and check it then reads as @map. */
static void map_good(const char *name, const char *input, const unsigned int *map)
{
	char want[512], got[512];
	int ret;

	map_text(map, want, sizeof(want));
	ret = queue_write(disk.name, "write_stream_hint_map", input);
	queue_read(disk.name, "write_stream_hint_map", got, sizeof(got));
	if (ret || strcmp(want, got)) {
		ksft_print_msg("map after '%s' (%d):\n%s", input, ret, got);
		ksft_test_result_fail("%s\n", name);
	} else {
		ksft_test_result_pass("%s\n", name);
	}
}

static void test_map(void)
{
	unsigned int map[NR_KEYS], n = disk.max_write_streams;
	char want[512], got[512], buf[128];
	int ret;

	map_text(def_map, want, sizeof(want));
	ret = queue_read(disk.name, "write_stream_hint_map", got, sizeof(got));
	if (ret || strcmp(want, got)) {
		ksft_print_msg("want:\n%s", want);
		ksft_print_msg("got (%d):\n%s", ret, got);
		ksft_test_result_fail("map_default_for_%u_streams\n", n);
	} else {
		ksft_test_result_pass("map_default_for_%u_streams\n", n);
	}

	memcpy(map, def_map, sizeof(map));
	map[K_SHORT] = n >= 7 ? 7 : n;
	snprintf(buf, sizeof(buf), "short %u", map[K_SHORT]);
	map_good("map_set_one_key", buf, map);
	map[K_MEDIUM] = 1;
	map[K_LONG] = n;
	snprintf(buf, sizeof(buf), "medium 1\nlong %u\n", n);
	map_good("map_set_two_keys_up_to_max_write_streams", buf, map);

	map_bad("map_bad_garbage", disk.name, "garbage");
	map_bad("map_bad_unknown_key", disk.name, "lukewarm 1");
	snprintf(buf, sizeof(buf), "short %u", n + 1);
	map_bad("map_bad_above_max_write_streams", disk.name, buf);
	map_bad("map_bad_negative", disk.name, "short -1");
	map_bad("map_bad_missing_value", disk.name, "short");
	map_bad("map_bad_good_then_bad_line_applies_nothing", disk.name,
		"extreme 1\nlukewarm 2\n");

	map_good("map_default_word_resets", "default", def_map);

	if (!plain[0]) {
		skip_n(2, "map_disk_without_streams", "no FDP_TEST_PLAIN_DEV");
		return;
	}
	default_map(0, map);
	map_text(map, want, sizeof(want));
	ret = queue_read(plain, "write_stream_hint_map", got, sizeof(got));
	ksft_test_result(!ret && !strcmp(want, got), "map_disk_without_streams_all_zero\n");
	map_bad("map_disk_without_streams_nonzero_einval", plain, "short 1");
}

static void cleanup(void)
{
	umount_all();
	if (made_partitions)
		wipe_partitions();
	trace_enable(false);
	if (disk.fd >= 0) {
		queue_write(disk.name, "write_stream_policy", "none");
		queue_write(disk.name, "write_stream_hint_map", "default");
	}
	if (top[0])
		cg_destroy(top);
}

int main(void)
{
	struct fs_cfg c;
	static const char * const fs[] = { "ext4", "xfs" };
	unsigned int i;
	char buf[256];

	ksft_print_header();
	disk.fd = -1;
	fdp_require_disk(&disk);
	if (queue_read(disk.name, "write_stream_policy", buf, sizeof(buf)) == -ENOENT)
		ksft_exit_skip("%s: no queue/write_stream_policy in this kernel\n", disk.name);
	if (disk.max_write_streams < NEED_STREAMS)
		ksft_exit_fail_msg("%s has %u write streams, the test needs %u\n", disk.name,
				   disk.max_write_streams, NEED_STREAMS);
	if (disk.lba_size != 4096 && disk.lba_size != 512)
		ksft_exit_fail_msg("unexpected logical block size %u\n", disk.lba_size);
	read_devnum(disk.name, devnum, sizeof(devnum));
	fdp_plain_disk(plain, sizeof(plain));
	snprintf(plain_path, sizeof(plain_path), "/dev/%s", plain);
	default_map(disk.max_write_streams, def_map);
	ksft_print_msg("FDP disk %s (%s, %u streams), disk without streams %s\n", disk.name,
		       devnum, disk.max_write_streams, plain[0] ? plain : "none");
	atexit(cleanup);
	umount_all();
	if (cg_enable_controllers(CG_ROOT, "+io +memory") ||
	    cg_create(top, sizeof(top), CG_ROOT, "fs_streams_test") ||
	    cg_enable_controllers(top, "+io +memory"))
		ksft_print_msg("cannot set up cgroup %s\n", top);

	ksft_set_plan(NR_TESTS);
	test_policy();
	test_map();
	queue_write(disk.name, "write_stream_hint_map", "default");
	for (i = 0; i < 2; i++) {
		memset(&c, 0, sizeof(c));
		c.fs = fs[i];
		snprintf(c.dev, sizeof(c.dev), "%s", disk.path);
		hint_fs(fs[i], &c);
		fs_kind_streams(fs[i], &c);
		fs_options(fs[i], &c);
	}
	test_cgroup_pin();
	test_switch_under_io();
	test_partition();
	cleanup();
	top[0] = '\0';
	fdp_close_disk(&disk);
	ksft_finished();
}
