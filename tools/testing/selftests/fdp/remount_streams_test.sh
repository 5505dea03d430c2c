#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A remount that fails must leave a file system's journal and metadata
# streams as they were.  ext4 (journal_stream=, metadata_stream=) and XFS
# (log_stream=, metadata_stream=) check new streams with the other
# options, but install them only where the remount can no longer fail.
# Each case changes the streams with a remount that succeeds (so the test
# sees a change when there is one), then asks for other streams in a
# remount that fails, and checks the options the mount shows.
#
# The ext4 remount fails because the file system was shut down (xfs_io's
# shutdown command); the XFS one because it makes a norecovery mount
# read-write.  Needs mkfs.ext4, mkfs.xfs, xfs_io and python3.  Uses and
# reformats the FDP namespace named by $FDP_TEST_DEV, whose data is
# destroyed; skips when none is named or it has fewer than six write
# streams.

dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/fdp_lib.sh"
mnt=

cleanup() {
	if [ -n "$mnt" ]; then
		umount "$mnt" 2>/dev/null
		rmdir "$mnt"
	fi
}
trap cleanup EXIT

# The stream option $2 of the file system mounted at $1, 0 if not shown.
shown() {
	awk -v m="$1" -v o="$2" '$2 == m {
		n = split($4, opts, ",")
		for (i = 1; i <= n; i++)
			if (index(opts[i], o "=") == 1)
				v = substr(opts[i], length(o) + 2)
	} END { print v + 0 }' /proc/mounts
}

# Whether the mount at $1 shows journal/log stream $3 and metadata stream
# $4, the journal option being named $2.
streams_are() {
	local j m

	j=$(shown "$1" "$2")
	m=$(shown "$1" metadata_stream)
	ktap_print_msg "$2=$j metadata_stream=$m, want $3 and $4"
	[ "$j" = "$3" ] && [ "$m" = "$4" ]
}

# Remount $mnt read-only ($1 = ro) or read-write with the options $2,
# through mount(2) itself: mount(8) would add the options in use, which
# the kernel may refuse before it gets to the streams.
remount() {
	python3 - "$mnt" "$1" "$2" <<'EOF'
import ctypes, os, sys
MS_RDONLY, MS_REMOUNT = 1, 32
libc = ctypes.CDLL(None, use_errno=True)
flags = MS_REMOUNT | (MS_RDONLY if sys.argv[2] == "ro" else 0)
if libc.mount(b"none", sys.argv[1].encode(), None, flags,
              sys.argv[3].encode()):
    print("# remount,%s,%s: %s" % (sys.argv[2], sys.argv[3],
                                   os.strerror(ctypes.get_errno())))
    sys.exit(1)
EOF
}

remount_fails() {
	if remount "$1" "$2"; then
		ktap_print_msg "remount,$1,$2 succeeded"
		return 1
	fi
}

fdp_named_disk 6
[ "$(id -u)" = 0 ] || skip_all "must run as root"
for cmd in mkfs.ext4 mkfs.xfs xfs_io python3; do
	command -v $cmd >/dev/null || skip_all "$cmd is not installed"
done
dev=/dev/$disk	# the node, not fdp_named_disk's MAJ:MIN
mnt=$(mktemp -d)

ktap_set_plan 4

# ext4
mkfs.ext4 -q -F "$dev" >/dev/null || ktap_exit_fail_msg "mkfs.ext4 failed"
mount -o journal_stream=2,metadata_stream=3 "$dev" "$mnt" ||
	ktap_exit_fail_msg "ext4 mount failed"
remount rw journal_stream=4,metadata_stream=5 &&
	streams_are "$mnt" journal_stream 4 5
ktap_test_result "ext4: a remount changes the streams" [ $? = 0 ]
xfs_io -x -c shutdown "$mnt" || ktap_exit_fail_msg "cannot shut ext4 down"
remount_fails ro journal_stream=6,metadata_stream=6 &&
	streams_are "$mnt" journal_stream 4 5
ktap_test_result "ext4: a failing remount keeps the streams" [ $? = 0 ]
umount "$mnt"

# XFS
mkfs.xfs -q -f "$dev" >/dev/null || ktap_exit_fail_msg "mkfs.xfs failed"
mount -o ro,norecovery,log_stream=2,metadata_stream=3 "$dev" "$mnt" ||
	ktap_exit_fail_msg "XFS mount failed"
remount ro log_stream=4,metadata_stream=5 &&
	streams_are "$mnt" log_stream 4 5
ktap_test_result "xfs: a remount changes the streams" [ $? = 0 ]
remount_fails rw log_stream=6,metadata_stream=6 &&
	streams_are "$mnt" log_stream 4 5
ktap_test_result "xfs: a failing remount keeps the streams" [ $? = 0 ]
umount "$mnt"

ktap_finished
