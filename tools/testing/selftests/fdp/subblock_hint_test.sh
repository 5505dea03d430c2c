#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A direct write smaller than a file system block into a new block: the
# file system writes the data, and iomap writes zeroes over the rest of
# the block (iomap_dio_zero()).  Both are the file's writes and carry its
# lifetime hint, so with the hint policy the whole block must land on the
# hint's stream, none of it on the stream of writes without a hint.
#
# Each file system (ext4, XFS; 4 KiB blocks) gets NR 512-byte O_DIRECT
# writes with hint SHORT, one into each new block of a file.  The map
# sends SHORT to stream 3 (handle 2) and writes without a hint to stream
# 1 (handle 0); the journal and metadata go to streams 5 and 6.  The test
# counts every handle's bytes on the device and checks the blocks read
# back as the data followed by zeroes.
#
# Needs a namespace whose sectors are smaller than the block
# (scripts/vm-run --lba-size 512 makes one) and skips on any other, as
# such a write cannot be made there.  Needs mkfs.ext4, mkfs.xfs and
# python3.  Uses and reformats the FDP namespace named by $FDP_TEST_DEV,
# whose data is destroyed; skips when none is named or it has fewer than
# six write streams.

dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/fdp_lib.sh"
mnt=
NR=256
BLOCK=4096
HINT_SHORT=2
# Handles: stream N is handle N - 1.
HINTED=2 UNHINTED=0

cleanup() {
	if [ -n "$mnt" ]; then
		umount "$mnt" 2>/dev/null
		rmdir "$mnt"
	fi
	[ -n "$q" ] && echo none >"$q/write_stream_policy" 2>/dev/null
	[ -n "$q" ] && echo default >"$q/write_stream_hint_map" 2>/dev/null
}
trap cleanup EXIT

# Write $5 sub-block pieces of $4, one at the start of each $3-byte
# block, each through fdp_tool $1 (O_DIRECT pwrite after F_SET_RW_HINT $2).
# shellcheck disable=SC2016	# expanded by the shell fdp_tool watch runs
write_pieces='for i in $(seq 0 $(($5 - 1))); do
	"$1" write --hint "$2" --dev "$4" --offset $((i * $3)) --size 512 || exit 1
done'

# Whether every block of $1 is 512 bytes of data and then zeroes.
zero_padded() {
	python3 - "$1" "$NR" "$BLOCK" <<'EOF'
import sys
path, nr, bs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, 'rb').read()
if len(data) != (nr - 1) * bs + 512:
    print("# size %d, want %d" % (len(data), (nr - 1) * bs + 512))
    sys.exit(1)
bad = [i for i in range(nr - 1) if any(data[i * bs + 512:(i + 1) * bs])]
if bad:
    print("# %d blocks are not zero after their data, first %d" % (len(bad), bad[0]))
    sys.exit(1)
EOF
}

# The bytes handle $2 consumed, from fdp_tool watch's output in $1.
handle_bytes() {
	awk -v h="handle=$2" '$1 == h { sub("bytes=", "", $2); print $2 }' "$1"
}

# Whether fdp_tool watch's output in $1 shows the NR blocks, data and
# zeroes, on the hint's handle.  Without the hint on the zeroes, that
# handle gets only the data, an eighth of it, and the rest goes to the
# handle of writes without a hint, which may otherwise see only the odd
# metadata write the file systems do not mark.
on_hint_handle() {
	local hinted unhinted

	hinted=$(handle_bytes "$1" "$HINTED")
	unhinted=$(handle_bytes "$1" "$UNHINTED")
	[ "${hinted:-0}" -ge $((NR * BLOCK)) ] &&
		[ "${unhinted:-0}" -lt $((NR * BLOCK / 4)) ]
}

fdp_named_disk 6
[ "$(id -u)" = 0 ] || skip_all "must run as root"
for cmd in mkfs.ext4 mkfs.xfs python3; do
	command -v $cmd >/dev/null || skip_all "$cmd is not installed"
done
lbs=$(cat "$q/logical_block_size")
[ "$lbs" -lt $BLOCK ] ||
	skip_all "$disk has $lbs-byte sectors: a write smaller than a $BLOCK-byte" \
		"block needs smaller ones (scripts/vm-run --lba-size 512)"
[ -f "$q/write_stream_policy" ] || ktap_exit_fail_msg "no $q/write_stream_policy"
node=/dev/$disk
mnt=$(mktemp -d)
out=$(mktemp)

ktap_set_plan 4

for fs in ext4 xfs; do
	case $fs in
	# Inode tables and journal zeroed now, not by a thread that
	# writes them during the test without a hint.
	ext4) mkfs.ext4 -q -F -b $BLOCK -E lazy_itable_init=0,lazy_journal_init=0 \
		"$node" >/dev/null ;;
	xfs) mkfs.xfs -q -f -b size=$BLOCK "$node" >/dev/null ;;
	esac || ktap_exit_fail_msg "mkfs.$fs failed"
	mount -t $fs "$node" "$mnt" || ktap_exit_fail_msg "$fs: mount failed"
	if ! echo hint >"$q/write_stream_policy" ||
	   ! printf 'not_set 1\nnone 1\nshort 3\njournal 5\nmetadata 6\n' \
		>"$q/write_stream_hint_map"; then
		ktap_exit_fail_msg "cannot set the hint policy and its map"
	fi
	f=$mnt/pieces
	: >"$f"
	sync
	"$tool" watch -- bash -c "$write_pieces" - "$tool" $HINT_SHORT $BLOCK "$f" $NR >"$out" ||
		ktap_exit_fail_msg "$fs: the writes failed"
	ktap_print_msg "$fs: $(tr '\n' ' ' <"$out")"
	ktap_test_result "$fs: sub-block writes and their zeroes on the hint's handle" \
		on_hint_handle "$out"
	# Read from the disk, not the page cache.
	if ! umount "$mnt" || ! mount -t $fs "$node" "$mnt"; then
		ktap_exit_fail_msg "$fs: remount failed"
	fi
	ktap_test_result "$fs: every block reads back as its data and zeroes" \
		zero_padded "$f"
	umount "$mnt"
done
rm -f "$out"

ktap_finished
