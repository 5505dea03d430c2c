// SPDX-License-Identifier: GPL-2.0
/*
 * Write streams on an FDP NVMe namespace, as mainline places them: the
 * namespace exposes one write stream per placement handle, a write on
 * stream N consumes the media writes of placement handle N - 1 and of no
 * other, and a write with no stream lands on handle 0.  Streams come from
 * F_SET_RW_HINT on the raw block device (block/fops.c maps hint N to stream
 * N for direct I/O) and from io_uring's per-I/O write_stream.
 *
 * Placement is read from the device (reclaim unit handle status), not from
 * the kernel.  The test writes on the FDP namespace named by $FDP_TEST_DEV
 * and destroys its data; it skips when no disk is named or the named disk
 * has no FDP write streams (with FDP_HANDLES set, as the test guest sets
 * it, such a disk fails the test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "fdp_util.h"

#define WRITE_SIZE	(256 * 1024)
#define REGION_SIZE	(1024 * 1024)

static struct fdp_disk disk;
static int dio_fd = -1;
static void *buf;
static unsigned int next_region;

static off_t take_region(void)
{
	return (off_t)next_region++ * REGION_SIZE;
}

enum how { VIA_HINT, VIA_URING, VIA_BUFFERED };

/*
 * Write WRITE_SIZE bytes on @stream by @how and check that handle @handle
 * consumed them all and no other handle consumed anything.
 */
static void check_placement(const char *name, enum how how, unsigned int stream,
			    int handle)
{
	struct fdp_snapshot before, after;
	uint64_t blocks = WRITE_SIZE / disk.lba_size;
	struct fdp_usage usage;
	off_t off = take_region();
	char why[512];
	int fd = dio_fd, ret;
	__u64 hint = stream;
	struct fdp_ring r;

	if (fdp_snapshot(&disk, &before)) {
		ksft_test_result_fail("%s: cannot read handle status\n", name);
		return;
	}
	switch (how) {
	case VIA_HINT:
		if (fcntl(dio_fd, F_SET_RW_HINT, &hint)) {
			ksft_test_result_fail("%s: F_SET_RW_HINT %u: %s\n", name,
					      stream, strerror(errno));
			return;
		}
		ret = pwrite(dio_fd, buf, WRITE_SIZE, off);
		hint = RWH_WRITE_LIFE_NOT_SET;
		fcntl(dio_fd, F_SET_RW_HINT, &hint);
		break;
	case VIA_URING:
		ret = fdp_ring_init(&r);
		if (ret) {
			ksft_test_result_fail("%s: io_uring: %s\n", name, strerror(-ret));
			return;
		}
		ret = fdp_ring_write(&r, dio_fd, buf, WRITE_SIZE, off, stream);
		fdp_ring_exit(&r);
		if (ret < 0) {
			errno = -ret;
			ret = -1;
		}
		break;
	case VIA_BUFFERED:
		fd = open(disk.path, O_RDWR);
		ret = fd < 0 ? -1 : pwrite(fd, buf, WRITE_SIZE, off);
		if (ret == WRITE_SIZE && fsync(fd))
			ret = -1;
		if (fd >= 0)
			close(fd);
		break;
	}
	if (ret != WRITE_SIZE) {
		ksft_test_result_fail("%s: write returned %d: %s\n", name, ret,
				      strerror(errno));
		return;
	}
	if (fdp_snapshot(&disk, &after) || fdp_usage(&disk, &before, &after, &usage)) {
		ksft_test_result_fail("%s: cannot read handle status\n", name);
		return;
	}
	if (!fdp_usage_is(&usage, handle, blocks, why, sizeof(why))) {
		fdp_usage_print(&disk, &usage);
		ksft_test_result_fail("%s: %s\n", name, why);
		return;
	}
	ksft_test_result_pass("%s\n", name);
}

static void test_streams_match_handles(void)
{
	const char *want = getenv("FDP_HANDLES");

	ksft_print_msg("%s: %u handles, max_write_streams %u, reclaim unit %llu x %u bytes\n",
		       disk.name, disk.nr_handles, disk.max_write_streams,
		       (unsigned long long)disk.ru_blocks, disk.lba_size);
	if (want && strtoul(want, NULL, 10) != disk.nr_handles)
		ksft_test_result_fail("streams_match_handles: %u handles, guest was given %s\n",
				      disk.nr_handles, want);
	else
		ksft_test_result(disk.max_write_streams == disk.nr_handles,
				 "streams_match_handles\n");
}

/* A stream above max_write_streams is refused and writes nothing. */
static void test_uring_stream_out_of_range(void)
{
	struct fdp_snapshot before, after;
	unsigned int stream = disk.max_write_streams + 1;
	struct fdp_usage usage;
	char why[512];
	struct fdp_ring r;
	int ret;

	if (stream > 255) {
		ksft_test_result_skip("uring_stream_out_of_range: 255 streams\n");
		return;
	}
	if (fdp_snapshot(&disk, &before) || fdp_ring_init(&r)) {
		ksft_test_result_fail("uring_stream_out_of_range: setup\n");
		return;
	}
	ret = fdp_ring_write(&r, dio_fd, buf, WRITE_SIZE, take_region(), stream);
	fdp_ring_exit(&r);
	if (fdp_snapshot(&disk, &after) || fdp_usage(&disk, &before, &after, &usage)) {
		ksft_test_result_fail("uring_stream_out_of_range: cannot read handle status\n");
		return;
	}
	if (ret != -EINVAL)
		ksft_test_result_fail("uring_stream_out_of_range: stream %u: %d, want %d\n",
				      stream, ret, -EINVAL);
	else if (!fdp_usage_is(&usage, 0, 0, why, sizeof(why)))
		ksft_test_result_fail("uring_stream_out_of_range: %s\n", why);
	else
		ksft_test_result_pass("uring_stream_out_of_range\n");
}

/*
 * The comparison itself: a write on stream 3 must not pass as handle 3
 * (stream 4's), must not pass with a wrong block count, and must pass as
 * handle 2.
 */
static void test_detects_wrong_handle(void)
{
	struct fdp_snapshot before, after;
	uint64_t blocks = WRITE_SIZE / disk.lba_size;
	struct fdp_usage usage;
	__u64 hint = RWH_WRITE_LIFE_MEDIUM;	/* stream 3, handle 2 */
	char why[512];
	int ret;

	if (disk.max_write_streams < 4) {
		ksft_test_result_skip("detects_wrong_handle: needs 4 streams\n");
		return;
	}
	if (fdp_snapshot(&disk, &before) || fcntl(dio_fd, F_SET_RW_HINT, &hint)) {
		ksft_test_result_fail("detects_wrong_handle: setup\n");
		return;
	}
	ret = pwrite(dio_fd, buf, WRITE_SIZE, take_region());
	hint = RWH_WRITE_LIFE_NOT_SET;
	fcntl(dio_fd, F_SET_RW_HINT, &hint);
	if (ret != WRITE_SIZE || fdp_snapshot(&disk, &after) ||
	    fdp_usage(&disk, &before, &after, &usage)) {
		ksft_test_result_fail("detects_wrong_handle: write or status failed\n");
		return;
	}
	if (fdp_usage_is(&usage, 3, blocks, why, sizeof(why))) {
		ksft_test_result_fail("detects_wrong_handle: stream 3 accepted as handle 3\n");
		return;
	}
	ksft_print_msg("expected mismatch reported: %s\n", why);
	if (fdp_usage_is(&usage, 2, blocks - 1, why, sizeof(why))) {
		ksft_test_result_fail("detects_wrong_handle: wrong block count accepted\n");
		return;
	}
	ksft_test_result(fdp_usage_is(&usage, 2, blocks, why, sizeof(why)),
			 "detects_wrong_handle\n");
}

int main(void)
{
	unsigned int s, nr_hints;
	char name[64];

	ksft_print_header();
	fdp_require_disk(&disk);
	if (disk.ru_blocks * disk.lba_size <= WRITE_SIZE)
		ksft_exit_fail_msg("reclaim unit too small to measure a %d byte write\n",
				   WRITE_SIZE);
	dio_fd = open(disk.path, O_RDWR | O_DIRECT);
	if (dio_fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", disk.path, strerror(errno));
	if (posix_memalign(&buf, 4096, WRITE_SIZE))
		ksft_exit_fail_msg("out of memory\n");
	memset(buf, 0x5a, WRITE_SIZE);

	nr_hints = disk.max_write_streams < RWH_WRITE_LIFE_EXTREME ?
		   disk.max_write_streams : RWH_WRITE_LIFE_EXTREME;
	ksft_set_plan(1 + nr_hints + disk.max_write_streams + 4);

	test_streams_match_handles();
	for (s = 1; s <= nr_hints; s++) {
		snprintf(name, sizeof(name), "rw_hint_%u_to_handle_%u", s, s - 1);
		check_placement(name, VIA_HINT, s, s - 1);
	}
	for (s = 1; s <= disk.max_write_streams; s++) {
		snprintf(name, sizeof(name), "uring_stream_%u_to_handle_%u", s, s - 1);
		check_placement(name, VIA_URING, s, s - 1);
	}
	check_placement("no_stream_direct_to_handle_0", VIA_HINT, 0, 0);
	check_placement("no_stream_buffered_to_handle_0", VIA_BUFFERED, 0, 0);
	test_uring_stream_out_of_range();
	test_detects_wrong_handle();

	close(dio_fd);
	fdp_close_disk(&disk);
	ksft_finished();
}
