#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Journal and metadata write kinds must not reach a SCSI disk.  ext4 and
# XFS mark their journal and metadata writes so that block-layer
# placement can tell them from file data.  sd sends a write's lifetime
# hint as the GROUP NUMBER of the command when the disk has permanent
# streams (sd_group_number()), so a kind carried as a hint would reach the
# disk as a group number nobody asked for.  Here a journal or metadata
# write of an ext4 file system with no hints must carry group number 0,
# and a file's lifetime hint must still reach the disk.
#
# The disk is the test's own: a new scsi_debug host (scsi_debug reports
# six streams, five of them permanent, and counts writes per group number
# in group_number_stats).  The module is loaded here if it is not loaded
# or built in, and the host is removed at the end; no other disk is
# touched.  The counts are the driver's, not the host's: do not run this
# beside other users of scsi_debug.  Needs mkfs.ext4 and python3.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR"/../kselftest/ktap_helpers.sh

drv=/sys/bus/pseudo/drivers/scsi_debug
mnt=
loaded=
added=
disk=

cleanup() {
	if [ -n "$mnt" ]; then
		umount "$mnt" 2>/dev/null
		rmdir "$mnt"
	fi
	[ -n "$added" ] && echo -1 >"$drv/add_host"
	[ -n "$loaded" ] && modprobe -r scsi_debug
}
trap cleanup EXIT

# Writes per group number since the last reset, as "GROUP COUNT" lines.
group_counts() {
	awk '$2 > 0' "$drv/group_number_stats"
}

reset_counts() {
	echo 0 >"$drv/group_number_stats"
}

# Whether every write since the last reset carried group number 0, and
# at least one write was made.
only_group_zero() {
	local counts

	counts=$(group_counts)
	ktap_print_msg "writes per group number: ${counts//$'\n'/, }"
	[ -n "$counts" ] && [ -z "$(echo "$counts" | awk '$1 != 0')" ]
}

# Whether a write since the last reset carried group number $1.
has_group() {
	local counts

	counts=$(group_counts)
	ktap_print_msg "writes per group number: ${counts//$'\n'/, }"
	echo "$counts" | awk -v g="$1" '$1 == g { found = 1 } END { exit !found }'
}

# The disks of the scsi_debug hosts, one per line.
debug_disks() {
	ls -d "$drv"/adapter*/host*/target*/*/block/* 2>/dev/null |
		xargs -rn1 basename | sort
}

ktap_print_header
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must run as root"
	exit "$KSFT_SKIP"
fi
for cmd in mkfs.ext4 python3; do
	if ! command -v $cmd >/dev/null; then
		ktap_skip_all "$cmd is not installed"
		exit "$KSFT_SKIP"
	fi
done
if [ ! -d "$drv" ]; then
	if ! modprobe scsi_debug add_host=0 2>/dev/null; then
		ktap_skip_all "no scsi_debug (CONFIG_SCSI_DEBUG)"
		exit "$KSFT_SKIP"
	fi
	loaded=1
fi
if [ ! -e "$drv/group_number_stats" ]; then
	ktap_skip_all "scsi_debug does not count writes per group number"
	exit "$KSFT_SKIP"
fi

ktap_set_plan 3

before=$(debug_disks)
echo 1 >"$drv/add_host" || ktap_exit_fail_msg "cannot add a scsi_debug host"
added=1
for _ in $(seq 50); do
	disk=$(comm -13 <(echo "$before") <(debug_disks) | head -n 1)
	[ -n "$disk" ] && [ -b "/dev/$disk" ] && break
	sleep 0.1
done
[ -b "/dev/$disk" ] || ktap_exit_fail_msg "the new scsi_debug host has no disk"
ktap_print_msg "disk $disk"

mnt=$(mktemp -d)
mkfs.ext4 -q -F "/dev/$disk" >/dev/null || ktap_exit_fail_msg "mkfs.ext4 failed"
sync

# Mount, write files, sync: the journal commits them.
reset_counts
mount -t ext4 "/dev/$disk" "$mnt" || ktap_exit_fail_msg "mount failed"
for i in $(seq 8); do
	mkdir "$mnt/d$i"
	dd if=/dev/zero of="$mnt/d$i/f" bs=64k count=4 status=none
done
sync
ktap_test_result "journal writes carry no group number" only_group_zero

# Unmount: the journal is checkpointed and the metadata written in place.
reset_counts
umount "$mnt" || ktap_exit_fail_msg "umount failed"
ktap_test_result "metadata writes carry no group number" only_group_zero

# A file's own lifetime hint is still sent: SHORT (2) as group number 2.
mount -t ext4 "/dev/$disk" "$mnt" || ktap_exit_fail_msg "mount failed"
reset_counts
python3 - "$mnt/hinted" <<'EOF' || ktap_exit_fail_msg "hinted write failed"
import fcntl, mmap, os, struct, sys
F_SET_RW_HINT = 1036
RWH_WRITE_LIFE_SHORT = 2
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o644)
fcntl.fcntl(fd, F_SET_RW_HINT, struct.pack("Q", RWH_WRITE_LIFE_SHORT))
buf = mmap.mmap(-1, 256 * 1024)
os.pwrite(fd, buf, 0)
os.fsync(fd)
os.close(fd)
EOF
ktap_test_result "a file's lifetime hint reaches the disk as its group number" \
	has_group 2

ktap_finished
