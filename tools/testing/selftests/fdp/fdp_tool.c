// SPDX-License-Identifier: GPL-2.0
/*
 * fdp_tool: look at and exercise placement on an FDP namespace.
 *
 *   fdp_tool info                      the namespace, its handles and streams
 *   fdp_tool status                    RUAMW of every placement handle
 *   fdp_tool write [--stream N | --hint N] [--dev PATH] --offset BYTES
 *                  --size BYTES        direct writes through io_uring with
 *                                      sqe->write_stream = N, or through
 *                                      pwrite() after F_SET_RW_HINT N, to
 *                                      the namespace or to PATH (a device
 *                                      stacked on it)
 *   fdp_tool watch [--interval MS] -- CMD [ARG...]
 *                                      run CMD, following every handle's
 *                                      RUAMW, and print the bytes each
 *                                      handle consumed
 *
 * The namespace is $FDP_DISK or the first NVMe namespace with FDP.
 * watch polls often enough to count whole reclaim units as long as no
 * handle fills more than one unit between two polls; it warns when a poll
 * saw more than half a unit consumed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fdp_util.h"

static struct fdp_disk disk;

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: fdp_tool info\n"
		"       fdp_tool status\n"
		"       fdp_tool write [--stream N | --hint N] [--dev PATH] --offset BYTES --size BYTES\n"
		"       fdp_tool watch [--interval MS] -- CMD [ARG...]\n");
}

static uint64_t parse_size(const char *s)
{
	static const char units[] = "kmg";
	const char *unit;
	uint64_t v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		goto bad;
	if (*end) {
		unit = strchr(units, *end | 0x20);
		if (!unit || end[1])
			goto bad;
		v <<= 10 * (unit - units + 1);
	}
	return v;
bad:
	fprintf(stderr, "fdp_tool: bad number '%s'\n", s);
	exit(2);
}

static int cmd_info(void)
{
	printf("disk=%s handles=%u max_write_streams=%u lba_size=%u ru_blocks=%llu blocks=%llu\n",
	       disk.name, disk.nr_handles, disk.max_write_streams, disk.lba_size,
	       (unsigned long long)disk.ru_blocks, (unsigned long long)disk.nr_blocks);
	return 0;
}

static int cmd_status(void)
{
	struct fdp_snapshot s;
	unsigned int i;
	int ret;

	ret = fdp_snapshot(&disk, &s);
	if (ret) {
		fprintf(stderr, "fdp_tool: handle status: %s\n", strerror(-ret));
		return 1;
	}
	for (i = 0; i < s.nr; i++)
		printf("handle=%u ruamw=%llu\n", i, (unsigned long long)s.ruamw[i]);
	return 0;
}

static int cmd_write(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stream", required_argument, NULL, 's' },
		{ "hint", required_argument, NULL, 'h' },
		{ "offset", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 'z' },
		{ "dev", required_argument, NULL, 'd' },
		{}
	};
	uint64_t off = 0, size = 0, chunk = 1 << 20, done;
	int stream = -1, hint = -1, fd, c, ret = 0;
	const char *path = disk.path;
	struct fdp_ring r;
	void *buf;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			stream = parse_size(optarg);
			break;
		case 'h':
			hint = parse_size(optarg);
			break;
		case 'o':
			off = parse_size(optarg);
			break;
		case 'z':
			size = parse_size(optarg);
			break;
		case 'd':
			path = optarg;
			break;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (!size || (stream >= 0 && hint >= 0) || stream > 255 ||
	    off % disk.lba_size || size % disk.lba_size) {
		fprintf(stderr,
			"fdp_tool write: need --size, at most one of --stream and --hint, whole blocks\n");
		return 2;
	}
	fd = open(path, O_RDWR | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, chunk)) {
		perror("fdp_tool write");
		return 1;
	}
	for (done = 0; done < chunk / sizeof(long); done++)
		((long *)buf)[done] = random();
	if (hint >= 0) {
		uint64_t h = hint;

		if (fcntl(fd, F_SET_RW_HINT, &h)) {
			perror("fdp_tool write: F_SET_RW_HINT");
			return 1;
		}
	}
	if (stream >= 0 && fdp_ring_init(&r)) {
		perror("fdp_tool write: io_uring");
		return 1;
	}
	for (done = 0; done < size; done += chunk) {
		size_t len = size - done < chunk ? size - done : chunk;

		if (stream >= 0)
			ret = fdp_ring_write(&r, fd, buf, len, off + done, stream);
		else
			ret = pwrite(fd, buf, len, off + done) < 0 ? -errno : (int)len;
		if (ret != (int)len) {
			fprintf(stderr, "fdp_tool write: at %llu: %s\n",
				(unsigned long long)(off + done),
				ret < 0 ? strerror(-ret) : "short write");
			return 1;
		}
	}
	if (stream >= 0)
		fdp_ring_exit(&r);
	close(fd);
	return 0;
}

static int cmd_watch(int argc, char **argv)
{
	uint64_t total[FDP_MAX_HANDLES] = {}, max_step = 0;
	struct fdp_snapshot prev, cur;
	struct fdp_usage step;
	long interval = 10;
	unsigned int i;
	int status, done = 0;
	pid_t pid;

	if (argc >= 3 && !strcmp(argv[1], "--interval")) {
		interval = parse_size(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 3 || strcmp(argv[1], "--") || interval <= 0) {
		print_usage(stderr);
		return 2;
	}
	if (fdp_snapshot(&disk, &prev)) {
		perror("fdp_tool watch: handle status");
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (pid < 0)
		return 1;
	while (!done) {
		struct timespec ts = { interval / 1000, (interval % 1000) * 1000000 };

		nanosleep(&ts, NULL);
		done = waitpid(pid, &status, WNOHANG) == pid;
		if (fdp_snapshot(&disk, &cur) || fdp_usage(&disk, &prev, &cur, &step)) {
			fprintf(stderr, "fdp_tool watch: handle status failed\n");
			kill(pid, SIGKILL);
			return 1;
		}
		for (i = 0; i < step.nr; i++) {
			total[i] += step.blocks[i];
			if (step.blocks[i] > max_step)
				max_step = step.blocks[i];
		}
		prev = cur;
	}
	if (max_step > disk.ru_blocks / 2)
		fprintf(stderr,
			"fdp_tool watch: warning: %llu blocks in one poll; whole units may be missed\n",
			(unsigned long long)max_step);
	for (i = 0; i < prev.nr; i++)
		printf("handle=%u bytes=%llu\n", i,
		       (unsigned long long)(total[i] * disk.lba_size));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	ret = fdp_open_disk(&disk);
	if (ret) {
		fprintf(stderr, "fdp_tool: no FDP namespace: %s\n", strerror(-ret));
		return 1;
	}
	if (!strcmp(argv[1], "info"))
		return cmd_info();
	if (!strcmp(argv[1], "status"))
		return cmd_status();
	if (!strcmp(argv[1], "write"))
		return cmd_write(argc - 1, argv + 1);
	if (!strcmp(argv[1], "watch"))
		return cmd_watch(argc - 1, argv + 1);
	print_usage(stderr);
	return 2;
}
