#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A direct write smaller than a file system block into a new block: the
# file system writes the data, and iomap writes zeroes over the rest of
# the block, before and after the data (iomap_dio_zero()).  Both are the
# file's writes and carry its lifetime hint, so with the hint policy the
# whole block must land on the hint's stream, none of it on the stream of
# writes without a hint.
#
# A piece is one sector; a block is 4 KiB, or four sectors on a disk
# with 4 KiB sectors.  Each file system (ext4, XFS) gets NR one-piece
# O_DIRECT writes with hint SHORT, one into each new block of a file, at
# the block's start, second or third piece, so that iomap zeroes the
# block's tail, or its head and tail.  The map sends SHORT to stream 3
# (handle 2) and writes without a hint to stream 1 (handle 0); the
# journal and metadata go to streams 5 and 6.  The test counts every
# handle's bytes on the device, then reads each block back from the disk:
# the piece's bytes where they were written, zeroes elsewhere.
#
# Blocks larger than 4 KiB need a kernel that can mount them (large
# folios: CONFIG_TRANSPARENT_HUGEPAGE); a file system that refuses the
# block size skips its cases.  Needs mkfs.ext4, mkfs.xfs and python3.
# Uses and reformats the FDP namespace named by $FDP_TEST_DEV, whose data
# is destroyed; skips when none is named or it has fewer than six write
# streams.

dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/fdp_lib.sh"
mnt='' out='' q=''
NR=256
# Handles: stream N is handle N - 1.
HINTED=2 UNHINTED=0

cleanup() {
	if [ -n "$mnt" ]; then
		umount "$mnt" 2>/dev/null
		rmdir "$mnt"
	fi
	[ -n "$out" ] && rm -f "$out"
	[ -n "$q" ] && echo none >"$q/write_stream_policy" 2>/dev/null
	[ -n "$q" ] && echo default >"$q/write_stream_hint_map" 2>/dev/null
}
trap cleanup EXIT

# pieces.py write|check FILE NR PIECE BLOCK: write (O_DIRECT, hint
# SHORT) or check the pieces.  Piece i fills bytes (i % 3) * PIECE on of
# block i with the byte i % 251 + 1.
pieces_py='
import fcntl, mmap, os, struct, sys
F_SET_RW_HINT = 1036
RWH_WRITE_LIFE_SHORT = 2
op, path = sys.argv[1], sys.argv[2]
nr, piece, block = (int(a) for a in sys.argv[3:6])
def where(i):
    return i * block + (i % 3) * piece
if op == "write":
    fd = os.open(path, os.O_WRONLY | os.O_DIRECT)
    fcntl.fcntl(fd, F_SET_RW_HINT, struct.pack("Q", RWH_WRITE_LIFE_SHORT))
    buf = mmap.mmap(-1, piece)
    for i in range(nr):
        buf[:] = bytes([i % 251 + 1]) * piece
        if os.pwrite(fd, buf, where(i)) != piece:
            sys.exit("short write at %d" % where(i))
    os.close(fd)
    sys.exit(0)
data = open(path, "rb").read()
if len(data) != where(nr - 1) + piece:
    sys.exit("size %d, want %d" % (len(data), where(nr - 1) + piece))
for i in range(nr):
    want = bytearray(block)
    o = (i % 3) * piece
    want[o:o + piece] = bytes([i % 251 + 1]) * piece
    got = data[i * block:(i + 1) * block]
    if got != want[:len(got)]:
        sys.exit("block %d is not its piece amid zeroes" % i)
'

# The bytes handle $2 consumed, from fdp_tool watch's output in $1.
handle_bytes() {
	awk -v h="handle=$2" '$1 == h { sub("bytes=", "", $2); print $2 }' "$1"
}

# Whether fdp_tool watch's output in $1 shows the NR blocks, data and
# zeroes, on the hint's handle.  Without the hint on the zeroes, that
# handle gets only the data, a quarter or an eighth of it, and the rest
# goes to the handle of writes without a hint, which may otherwise see
# only the odd metadata write the file systems do not mark.
on_hint_handle() {
	local hinted unhinted

	hinted=$(handle_bytes "$1" "$HINTED")
	unhinted=$(handle_bytes "$1" "$UNHINTED")
	[ "${hinted:-0}" -ge $((NR * BLOCK)) ] &&
		[ "${unhinted:-0}" -lt $((NR * BLOCK / 4)) ]
}

check_pieces() {
	local msg

	msg=$(python3 -c "$pieces_py" check "$1" "$NR" "$PIECE" "$BLOCK" 2>&1) ||
		{ ktap_print_msg "$msg"; return 1; }
}

[ "$(id -u)" = 0 ] || { ktap_print_header; skip_all "must run as root"; }
fdp_named_disk 6
for cmd in mkfs.ext4 mkfs.xfs python3; do
	command -v $cmd >/dev/null || skip_all "$cmd is not installed"
done
[ -f "$q/write_stream_policy" ] || ktap_exit_fail_msg "no $q/write_stream_policy"
PIECE=$(cat "$q/logical_block_size")
BLOCK=$((PIECE < 1024 ? 4096 : 4 * PIECE))
node=/dev/$disk
mnt=$(mktemp -d)
out=$(mktemp)

ktap_set_plan 4

for fs in ext4 xfs; do
	# Nothing discarded, and ext4's inode tables and journal zeroed
	# now, not by a thread that writes them during the test.
	case $fs in
	ext4) mkfs.ext4 -q -F -b $BLOCK \
		-E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$node" ;;
	xfs) mkfs.xfs -q -f -K -b size=$BLOCK "$node" ;;
	esac >/dev/null || ktap_exit_fail_msg "mkfs.$fs -b $BLOCK failed"
	if ! mount -t $fs "$node" "$mnt"; then
		[ $BLOCK -gt 4096 ] ||
			ktap_exit_fail_msg "$fs: mount failed"
		# A 4 KiB-sector disk needs larger blocks, which this kernel
		# may not mount.
		for c in "on the hint's handle" "read back"; do
			ktap_test_skip "$fs: $c: this kernel cannot mount $BLOCK-byte blocks"
		done
		continue
	fi
	if ! echo hint >"$q/write_stream_policy" ||
	   ! printf 'not_set 1\nnone 1\nshort 3\njournal 5\nmetadata 6\n' \
		>"$q/write_stream_hint_map"; then
		ktap_exit_fail_msg "cannot set the hint policy and its map"
	fi
	f=$mnt/pieces
	: >"$f"
	sync
	"$tool" watch -- python3 -c "$pieces_py" write "$f" $NR "$PIECE" $BLOCK >"$out" ||
		ktap_exit_fail_msg "$fs: the writes failed"
	ktap_print_msg "$fs: $PIECE-byte pieces in $BLOCK-byte blocks:" \
		"$(tr '\n' ' ' <"$out")"
	ktap_test_result "$fs: on the hint's handle: the pieces and the zeroes around them" \
		on_hint_handle "$out"
	# Read from the disk, not the page cache.
	if ! umount "$mnt" || ! mount -t $fs "$node" "$mnt"; then
		ktap_exit_fail_msg "$fs: remount failed"
	fi
	ktap_test_result "$fs: read back: each block is its piece amid zeroes" \
		check_pieces "$f"
	umount "$mnt"
done

ktap_finished
