#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Placement through device-mapper, checked on the device: writes to a
# dm-linear device on part of an FDP namespace (an LVM volume), to a
# dm-crypt device on top of that one, to a dm-thin volume whose pool has
# its data and metadata on the namespace, to the origin of a fresh
# snapshot of the namespace's first 128 MiB, and to a dm-flakey device
# on the namespace, must land on the placement handle that the stream
# decided for them names, whoever decided it:
#
#  - the stacked device offers the namespace's write streams;
#  - a stream the application sets on its fd of the stacked device
#    (io_uring's write_stream) reaches the namespace;
#  - the io.stream setting of the writer's cgroup for the namespace
#    applies to its writes through the stacked device;
#  - and confines them: a stream the application sets outside the
#    cgroup's pin lands on the pin;
#  - the namespace's placement policy (hint, mapping writes without a
#    hint to a stream) places the writes that reach it through the
#    stacked device;
#  - and settings that no decision would read are refused: io.stream
#    lines for a mapped device fail, and it offers no placement policy;
#  - a target that would lose streams (dm-mirror, whose legs dm-io
#    writes) offers none.
#
# dm-flakey, told to corrupt every write, writes corrupted copies of the
# bios it gets, which must carry the application's stream and, when sync
# writes back a cgroup's dirty pages, that cgroup, for its pin to apply.
#
# With ext4 on dm-crypt over dm-linear (on dm-linear without dm-crypt):
#
#  - the writeback of a pinned cgroup's dirty pages, which the flusher
#    writes, not the tenant, lands on the pin;
#  - the journal_stream mount option places the journal on the namespace;
#  - the namespace's hint policy places a file by the lifetime hint set on
#    it (F_SET_RW_HINT), which dm-crypt's encrypted copies carry;
#
# and io.stat counts a pinned cgroup's writes through dm-linear once, on
# the namespace's line, with no stream keys on the mapped device's.
#
# The snapshot origin holds each first write to a chunk until the chunk
# is copied, then sends it down from the copy's completion, not through
# dm_submit_bio_remap(): the decision must reach such writes too.  The
# origin sits on the namespace itself, so that the held writes go
# straight to it, through no other mapped device that would decide them.
# The copies go to the snapshot's store, on the namespace, with no
# stream: for the origin, the bytes on handle 0 are not counted against a
# case.
#
# The test runs only on the FDP namespace named by $FDP_TEST_DEV (such as
# /dev/nvme0n1), whose data it destroys; without it, it skips.  It skips
# too when the named namespace has fewer than five write streams (unless
# $FDP_HANDLES says it has them), and when dmsetup or the kernel's
# device-mapper is missing; the dm-crypt, dm-thin, snapshot, dm-flakey
# and dm-mirror cases skip without their targets.  It fails on a
# namespace of less than 800 MiB, the part of it the test maps.  Needs
# cgroup v2 with the io and memory controllers.  Runs as root; the
# mapped devices are removed however the test ends.

MiB=$((1024 * 1024))
size=$((32 * MiB))
# The streams each case asks for, on handles stream - 1.
app_stream=3
pin_stream=4
policy_stream=5

dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/fdp_lib.sh"
top=/sys/fs/cgroup/dm_stack_test
lin=fdp_dm_stack_lin
crypt=fdp_dm_stack_crypt
meta=fdp_dm_stack_meta
data=fdp_dm_stack_data
pool=fdp_dm_stack_pool
thin=fdp_dm_stack_thin
cow=fdp_dm_stack_cow
snap=fdp_dm_stack_snap
origin=fdp_dm_stack_origin
flakey=fdp_dm_stack_flakey
mirror=fdp_dm_stack_mirror
mnt=/mnt/dm_stack_test
journal_stream=2
nr_tests=36

# Let dmsetup make its device nodes itself: the test runs without udev.
export DM_DISABLE_UDEV=1
dms() { dmsetup --noudevsync "$@"; }

cleanup() {
	local n

	exec 9<&- 2>/dev/null	# the fd the dm-flakey writeback case holds
	umount $mnt 2>/dev/null
	for n in $crypt $origin $snap $cow $lin $thin $pool $meta $data \
		 $flakey $mirror; do
		dms remove $n 2>/dev/null
	done
	rmdir $top/pinned $top/counted 2>/dev/null
	rmdir $top 2>/dev/null
	echo none >$q/write_stream_policy 2>/dev/null
	echo default >$q/write_stream_hint_map 2>/dev/null
}

fdp_named_disk 5
[ "$(cat /sys/block/$disk/size)" -ge $((800 * MiB / 512)) ] ||
	bail "$disk has less than the 800 MiB the test maps"
command -v dmsetup >/dev/null || skip_all "no dmsetup: install it (Debian: dmsetup)"
[ -c /dev/mapper/control ] || grep -qw device-mapper /proc/devices ||
	skip_all "no device-mapper: build CONFIG_BLK_DEV_DM"
dms targets >/dev/null 2>&1 || skip_all "dmsetup cannot talk to device-mapper"
have_crypt=0 have_thin=0 have_snap=0 have_flakey=0 have_mirror=0
dms targets | grep -qw crypt && have_crypt=1
dms targets | grep -qw thin-pool && have_thin=1
dms targets | grep -qw snapshot-origin && have_snap=1
dms targets | grep -qw flakey && have_flakey=1
dms targets | grep -qw mirror && have_mirror=1

diag "testing on $disk (FDP_TEST_DEV=$FDP_TEST_DEV); its data is destroyed"
echo "+io" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
ktap_set_plan $nr_tests
cleanup
# Whatever ends the test, a signal or the runner's timeout included, it
# leaves no mapped device holding the namespace.
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# dm-linear on 256 MiB of the namespace, from 128 MiB on: a volume that
# is not the whole disk.  dm-crypt (AES-XTS, a random key) on top of it.
sectors=$((256 * MiB / 512))
echo "0 $sectors linear /dev/$disk $((128 * MiB / 512))" | dms create $lin ||
	bail "cannot create dm-linear on $disk"
if [ $have_crypt = 1 ]; then
	key=$(od -An -tx1 -N64 /dev/urandom | tr -d ' \n')
	echo "0 $sectors crypt aes-xts-plain64 $key 0 /dev/mapper/$lin 0" |
		dms create $crypt || bail "cannot create dm-crypt on $lin"
fi
# A thin pool with 8 MiB of metadata from 384 MiB on and 256 MiB of data
# from 400 MiB on, and a thin volume of 256 MiB in it.
if [ $have_thin = 1 ]; then
	echo "0 $((8 * MiB / 512)) linear /dev/$disk $((384 * MiB / 512))" |
		dms create $meta && dd if=/dev/zero of=/dev/mapper/$meta bs=4096 count=1 \
			oflag=direct status=none &&
	echo "0 $sectors linear /dev/$disk $((400 * MiB / 512))" | dms create $data &&
	echo "0 $sectors thin-pool /dev/mapper/$meta /dev/mapper/$data 128 0 1 skip_block_zeroing" |
		dms create $pool && dms message $pool 0 "create_thin 0" &&
	echo "0 $sectors thin /dev/mapper/$pool 0" | dms create $thin ||
		bail "cannot create dm-thin on $disk"
fi
# A snapshot of the namespace's first 128 MiB, which no other device
# maps, its store 64 MiB from 672 MiB on; the snapshot-origin device on
# the namespace is where it is written.
origin_sectors=$((128 * MiB / 512))
if [ $have_snap = 1 ]; then
	echo "0 $((64 * MiB / 512)) linear /dev/$disk $((672 * MiB / 512))" |
		dms create $cow &&
	echo "0 $origin_sectors snapshot-origin /dev/$disk" | dms create $origin ||
		bail "cannot create a snapshot origin on $disk"
fi
# dm-flakey on 32 MiB of the namespace from 736 MiB on, up all the time:
# it passes every bio through.
if [ $have_flakey = 1 ]; then
	echo "0 $((32 * MiB / 512)) flakey /dev/$disk $((736 * MiB / 512)) 1 0" |
		dms create $flakey || bail "cannot create dm-flakey on $disk"
fi
# A new snapshot of the origin, in 512 KiB chunks, none copied yet: each
# write of the origin is then the first to its chunk, and held.
fresh_snapshot() {
	dms remove $snap 2>/dev/null
	echo "0 $origin_sectors snapshot /dev/$disk /dev/mapper/$cow N 1024" |
		dms create $snap || bail "cannot create a snapshot of $disk"
}

# The sysfs name of a mapped device: dm-N.
dm_name() {	# NAME
	local mm

	mm=$(dms info -c --noheadings -o major,minor --separator : "$1")
	basename "$(readlink -f "/sys/dev/block/$mm")"
}
# Bytes handle H consumed in fdp_tool watch output on stdin, then the bytes
# of all the others; but those of handle 0 if \$skip0 is 1.
skip0=0
handle_split() {	# H
	awk -F'[ =]' -v h="$1" -v skip0=$skip0 '/^handle=/ {
			if ($2 == h) a += $4; else if (!skip0 || $2 != 0) o += $4 }
		END { printf "%.0f %.0f\n", a, o }'
}
# Write $size bytes to a device under fdp_tool watch; print the bytes of
# handle H and of the others.  fdp_tool's own options follow the device.
watch_write() {	# H DEV [fdp_tool write options]
	local h=$1 d=$2 out
	shift 2
	[ "$d" = /dev/mapper/$origin ] && fresh_snapshot
	out=$("$tool" watch --interval 1 -- \
	      "$tool" write --dev "$d" --offset 0 --size $size "$@") ||
		{ diag "writing to $d failed" >&2; echo "0 0"; return; }
	handle_split "$h" <<<"$out"
}
# Most of the $size bytes on the handle, few on the others.  The counts
# come from the handles' RUAMW, polled: a poll that comes after more than
# a whole reclaim unit was written misses it, which fdp_tool watch warns
# about.  No other writes reach the namespace meanwhile.
landed() {	# ON OTHERS
	[ "$1" -ge $((size / 2)) ] && [ "$2" -le $((size / 8)) ]
}

# The names of the cases of a device, the same whether they run or skip.
case_names() {	# LABEL
	names=("$1: offers the namespace's write streams"
	       "$1: the application's stream reaches the namespace"
	       "$1: io.stream of the namespace places the cgroup's writes"
	       "$1: io.stream of the namespace confines the application's stream"
	       "$1: the namespace's placement policy places the writes")
}

cases() {	# NAME LABEL
	local name=$1 label=$2 d=/dev/mapper/$1 dm on off

	case_names "$label"
	skip0=0
	[ "$name" = $origin ] && skip0=1
	dm=$(dm_name "$name")
	diag "$label: /dev/$dm, max_write_streams=$(cat /sys/block/$dm/queue/max_write_streams)"
	check "${names[0]}" \
		[ "$(cat /sys/block/$dm/queue/max_write_streams)" = "$streams" ]

	read -r on off < <(watch_write $((app_stream - 1)) "$d" --stream $app_stream)
	diag "$label, application stream $app_stream:" \
	     "$on bytes on handle $((app_stream - 1)), $off on others"
	check "${names[1]}" landed "$on" "$off"

	# An operator's pin for the namespace holds whatever device the tenant
	# writes through.
	mkdir -p $top/pinned
	echo "$dev $pin_stream" >$top/pinned/io.stream || bail "cannot pin $top/pinned"
	read -r on off < <(in_cg pinned watch_write $((pin_stream - 1)) "$d")
	diag "$label, io.stream pin $pin_stream for $disk:" \
	     "$on bytes on handle $((pin_stream - 1)), $off on others"
	check "${names[2]}" landed "$on" "$off"

	# The application's own stream, outside the pin, must not escape it.
	read -r on off < <(in_cg pinned watch_write $((pin_stream - 1)) "$d" \
			   --stream $app_stream)
	diag "$label, io.stream pin $pin_stream, application stream $app_stream:" \
	     "$on bytes on handle $((pin_stream - 1)), $off on others"
	check "${names[3]}" landed "$on" "$off"

	echo "not_set $policy_stream" >$q/write_stream_hint_map || bail "cannot set the hint map"
	echo hint >$q/write_stream_policy || bail "cannot set policy hint"
	read -r on off < <(watch_write $((policy_stream - 1)) "$d")
	echo none >$q/write_stream_policy
	diag "$label, policy hint of $disk, not_set to $policy_stream:" \
	     "$on bytes on handle $((policy_stream - 1)), $off on others"
	check "${names[4]}" landed "$on" "$off"
}

# The cases of a device, or their skips: HAVE is 1 if its target is there.
cases_or_skip() {	# HAVE NAME LABEL WHY
	local c

	if [ "$1" = 1 ]; then
		cases "$2" "$3"
		return
	fi
	case_names "$3"
	for c in "${names[@]}"; do
		ktap_test_skip "$c: $4"
	done
}

mkdir -p $top
echo "+io" >$top/cgroup.subtree_control || bail "no io controller in $top"
cases $lin dm-linear
dm=$(dm_name $lin)
mm=$(cat /sys/block/$dm/dev)
check "dm-linear: an io.stream line for the mapped device is refused" \
	eval "! echo '$mm $pin_stream' 2>/dev/null >$top/pinned/io.stream"
check "dm-linear: the mapped device offers no placement policy" \
	[ ! -e /sys/block/$dm/queue/write_stream_policy -a \
	  ! -e /sys/block/$dm/queue/write_stream_hint_map ]

# io.stat: a pinned cgroup's direct writes through the volume count once,
# on the namespace, where they were decided.
mkdir -p $top/counted
echo "$dev $pin_stream" >$top/counted/io.stream || bail "cannot pin $top/counted"
in_cg counted "$tool" write --dev /dev/mapper/$lin --offset 0 --size $size ||
	bail "cannot write to /dev/mapper/$lin"
stat=$(cat $top/counted/io.stat)
diag "io.stat of a cgroup that wrote $size bytes through dm-linear:"
while read -r l; do diag "  $l"; done <<<"$stat"
wbytes=$(grep "^$dev " <<<"$stat" | grep -o "stream$pin_stream\.wbytes=[0-9]*")
check "dm-linear: io.stat counts the cgroup's writes once, on the namespace" \
	[ "$wbytes" = "stream$pin_stream.wbytes=$size" ]
check "dm-linear: io.stat shows no stream keys on the mapped device" \
	eval "! grep '^$mm ' <<<\"\$stat\" | grep -q stream"

# ext4 on dm-crypt over the volume, or on the volume without dm-crypt,
# its journal on a stream of its own.
fsdev=/dev/mapper/$lin fslabel=dm-linear
[ $have_crypt = 1 ] && fsdev=/dev/mapper/$crypt fslabel="dm-crypt over dm-linear"
mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 $fsdev &&
	mkdir -p $mnt && mount -o journal_stream=$journal_stream $fsdev $mnt ||
	bail "cannot mount ext4 with journal_stream=$journal_stream on $fsdev"
# Dirty pages of the pinned cgroup (memory and io: cgroup writeback), which
# the flusher writes back at the sync, after the tenant left.
echo "+memory" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
echo "+memory" >$top/cgroup.subtree_control ||
	bail "no memory controller in $top: cgroup writeback needs it"
out=$("$tool" watch --interval 1 -- bash -c \
	"echo \$BASHPID >$top/pinned/cgroup.procs &&
	 dd if=/dev/urandom of=$mnt/dirty bs=1M count=$((size / MiB)) status=none &&
	 echo \$BASHPID >/sys/fs/cgroup/cgroup.procs && sync")
read -r on off < <(handle_split $((pin_stream - 1)) <<<"$out")
diag "$fslabel, ext4, writeback of the pinned cgroup:" \
     "$on bytes on handle $((pin_stream - 1)), $off on others"
check "$fslabel: ext4's writeback of a pinned cgroup lands on the pin" \
	landed "$on" "$off"
# Journal commits: small files, each synced.
out=$("$tool" watch --interval 1 -- bash -c \
	"for i in \$(seq 200); do echo \$i >$mnt/j\$i; sync $mnt/j\$i; done")
read -r on off < <(handle_split $((journal_stream - 1)) <<<"$out")
diag "$fslabel, ext4, 200 synced small files:" \
     "$on bytes on handle $((journal_stream - 1)), $off on others"
check "$fslabel: ext4's journal_stream places the journal on the namespace" \
	[ "$on" -ge $((200 * 4096)) ]
# A file with a short lifetime hint, written direct; the hint policy of
# the namespace maps "short" to its stream.
echo default >$q/write_stream_hint_map &&
	echo "short $policy_stream" >$q/write_stream_hint_map ||
	bail "cannot set the hint map"
echo hint >$q/write_stream_policy || bail "cannot set policy hint"
truncate -s $size $mnt/hinted
# RWH_WRITE_LIFE_SHORT
out=$("$tool" watch --interval 1 -- \
      "$tool" write --dev $mnt/hinted --offset 0 --size $size --hint 2)
echo none >$q/write_stream_policy
echo default >$q/write_stream_hint_map
read -r on off < <(handle_split $((policy_stream - 1)) <<<"$out")
diag "$fslabel, ext4, a file with hint short, mapped to $policy_stream:" \
     "$on bytes on handle $((policy_stream - 1)), $off on others"
check "$fslabel: the namespace's hint policy places a file by its hint" \
	landed "$on" "$off"
umount $mnt

cases_or_skip $have_crypt $crypt "dm-crypt over dm-linear" "no crypt target (CONFIG_DM_CRYPT)"
cases_or_skip $have_thin $thin dm-thin "no thin-pool target (CONFIG_DM_THIN_PROVISIONING)"
cases_or_skip $have_snap $origin "snapshot origin on the namespace" \
	"no snapshot-origin target (CONFIG_DM_SNAPSHOT)"

cases_or_skip $have_flakey $flakey dm-flakey "no flakey target (CONFIG_DM_FLAKEY)"

# The same dm-flakey, now down all the time and corrupting every write it
# gets: it writes a corrupted copy of each bio, not the bio.
names=("dm-flakey corrupting writes: the copies reach the namespace"
       "dm-flakey corrupting writes: the application's stream reaches the namespace"
       "dm-flakey corrupting writes: the writeback of a pinned cgroup lands on the pin")
if [ $have_flakey = 1 ]; then
	dms remove $flakey || bail "cannot remove $flakey"
	corrupt="2 random_write_corrupt 1000000000"
	echo "0 $((32 * MiB / 512)) flakey /dev/$disk $((736 * MiB / 512)) 0 1 $corrupt" |
		dms create $flakey || bail "cannot create a corrupting dm-flakey on $disk"
	read -r on off < <(watch_write $((app_stream - 1)) /dev/mapper/$flakey \
			   --stream $app_stream)
	# fdp_tool writes the same MiB over and over: the first two MiB on
	# the namespace differ only if dm-flakey wrote corrupted copies.
	mib() { dd if=/dev/$disk bs=1M skip=$1 count=1 iflag=direct status=none; }
	check "${names[0]}" eval "! cmp -s <(mib 736) <(mib 737)"
	diag "dm-flakey corrupting writes, application stream $app_stream:" \
	     "$on bytes on handle $((app_stream - 1)), $off on others"
	check "${names[1]}" landed "$on" "$off"
	# Dirty pages of the device, written by the pinned cgroup and written
	# back by sync, outside it.  The open fd keeps dd's close from
	# writing them back itself.
	exec 9</dev/mapper/$flakey
	out=$("$tool" watch --interval 1 -- bash -c \
		"echo \$BASHPID >$top/pinned/cgroup.procs &&
		 dd if=/dev/urandom of=/dev/mapper/$flakey bs=1M \
		    count=$((size / MiB)) status=none &&
		 echo \$BASHPID >/sys/fs/cgroup/cgroup.procs && sync")
	exec 9<&-
	read -r on off < <(handle_split $((pin_stream - 1)) <<<"$out")
	diag "dm-flakey corrupting writes, writeback of the pinned cgroup:" \
	     "$on bytes on handle $((pin_stream - 1)), $off on others"
	check "${names[2]}" landed "$on" "$off"
else
	for c in "${names[@]}"; do
		ktap_test_skip "$c: no flakey target (CONFIG_DM_FLAKEY)"
	done
fi

# dm-mirror writes each leg through bios of its own (dm-io), which would
# lose the stream: it offers none.  Two legs of 16 MiB from 768 MiB on,
# no resync.
name="dm-mirror, which would lose streams, offers none"
if [ $have_mirror = 1 ]; then
	legs="2 /dev/$disk $((768 * MiB / 512)) /dev/$disk $((784 * MiB / 512))"
	echo "0 $((16 * MiB / 512)) mirror core 2 1024 nosync $legs" |
		dms create $mirror || bail "cannot create dm-mirror on $disk"
	check "$name" [ "$(cat /sys/block/"$(dm_name $mirror)"/queue/max_write_streams)" = 0 ]
else
	ktap_test_skip "$name: no mirror target (CONFIG_DM_MIRROR)"
fi

cleanup
ktap_finished
