#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Placement policies against disk removal.  For $TEARDOWN_SECS seconds
# (default 60), the controller of the FDP namespace is removed and
# rescanned (PCI), over and over, under writes.  Rounds of two kinds
# alternate:
#
#  - switcher rounds switch the disk's policy (queue/write_stream_policy:
#    none, hint, lifetime) and its policies in shadow
#    (queue/write_stream_shadow) in a loop until the files go;
#  - aimed rounds write the first setting a fresh disk ever gets, the hint
#    policy (live, or in shadow), once, after del_gendisk() marked the
#    disk dead: a few turns of a loop after its size reads 0 (it was just
#    marked dead) or after its bdi link went (a little later).  The file
#    is opened before the removal, so the write reaches the store however
#    late it comes.  Such a write must fail (-ENODEV), and install
#    nothing.  A store that lands between del_gendisk() taking the disk's
#    policies off and removing the queue's sysfs files, which used to
#    install a policy that stayed, is a few microseconds wide: a shell
#    hits it by chance only; the KUnit suite blk-stream-teardown tests it.
#
# Afterwards:
#
#  - no setting written to a disk marked dead was taken;
#  - no switch failed but with ENODEV or ENOENT once removal had started;
#  - the kernel logged no warning, BUG, oops or lockdep or KASAN report
#    (lockdep and KASAN only report on a kernel built with them, see
#    the diag lines);
#  - on a kernel with kmemleak, a scan finds no unreferenced object
#    allocated by the placement code (blk_stream, io.stream, lifetime);
#  - the lifetime module unloads (no instance of it was left behind);
#  - the decision point is off again: a write from a new cgroup, with no
#    policy on any disk, counts no stream in io.stat (which counts only
#    while some source of streams holds the static key).  A hint policy
#    left on a removed disk keeps it on.
#
# It writes only on the FDP namespace named by $FDP_TEST_DEV (such as
# /dev/nvme0n1), whose data it destroys, and removes its controller only
# with $FDP_TEST_HOTPLUG naming the controller's PCI function, which takes
# every namespace on that controller away for a while; without them, it
# skips.  It skips too when the named namespace has no write streams
# (unless $FDP_HANDLES says it has), when the lifetime policy is not
# available (see load_module in fdp_lib.sh), and when another disk uses
# it.  Needs cgroup v2 with the io controller.  Runs as root.

dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/fdp_lib.sh"
top=/sys/fs/cgroup/teardown_test
secs=${TEARDOWN_SECS:-60}
pids=()
tmp=

cleanup() {
	local c
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	for c in $top/*/; do
		[ -d "$c" ] && rmdir "$c" 2>/dev/null
	done
	rmdir $top 2>/dev/null
	echo none >$q/write_stream_shadow 2>/dev/null
	echo none >$q/write_stream_policy 2>/dev/null
	[ -n "$tmp" ] && rm -rf "$tmp"
}

fdp_named_disk
load_module
case $? in
0) ;;
"$KSFT_SKIP") skip_all "$why" ;;
*) ktap_exit_fail_msg "$why" ;;
esac

fdp_nvme_ctrl
if [ -z "${FDP_TEST_HOTPLUG:-}" ]; then
	skip_all "set FDP_TEST_HOTPLUG=${pcifn:-PCI_FUNCTION} to let the test" \
		"remove and rescan $disk's controller, and every namespace on it"
fi
[ "$FDP_TEST_HOTPLUG" = "$pcifn" ] && [ -n "$serial" ] && [ -n "$nsid" ] ||
	ktap_exit_fail_msg "FDP_TEST_HOTPLUG=$FDP_TEST_HOTPLUG:" \
		"not $disk's controller (${pcifn:-none})"
[ -w "$pci/remove" ] || skip_all "$pcifn cannot be removed through $pci/remove"
mod=/sys/module/blk_lifetime
[ -d $mod ] || skip_all "the lifetime policy is no module: it cannot be unloaded"
# The module must unload at the end: nothing else may hold it.
echo none >$q/write_stream_shadow 2>/dev/null
echo none >$q/write_stream_policy 2>/dev/null
[ "$(cat $mod/refcnt 2>/dev/null)" = 0 ] ||
	skip_all "blk_lifetime is in use (refcnt $(cat $mod/refcnt 2>/dev/null))" \
		"by another disk: it could not be unloaded at the end"
if [ ! -r /proc/lockdep_stats ]; then
	diag "no lockdep in this kernel (CONFIG_PROVE_LOCKING): no lock order checked"
elif ! grep -q 'debug_locks: *1' /proc/lockdep_stats; then
	diag "lockdep is off (an earlier report turned it off): no lock order checked"
fi
tmp=$(mktemp -d) || ktap_exit_fail_msg "mktemp failed"
ktap_set_plan 8

# Whether a write from a new cgroup to the disk counts a stream in
# io.stat, that is whether the decision point places.
placing() {	# NAME
	local cg=$top/$1
	mkdir -p $cg || return 2
	(echo $BASHPID >$cg/cgroup.procs &&
		dd if=/dev/zero of=/dev/$disk bs=64k count=16 oflag=direct status=none)
	grep "^$dev " $cg/io.stat | grep -q 'stream[0-9]*\.wbytes='
}

# Write VALUE to FILE; an error is expected only once the removal started
# ($tmp/removing), and then only ENODEV (the disk is dead) or ENOENT (the
# file went).  Others go to $tmp/errors, with the disk's size then (0
# once the driver started removing it) and whether the removal had
# started, so that a failure says which it was.
set_checked() {	# FILE VALUE
	local err sz rm=no

	err=$({ echo "$2" >"$1"; } 2>&1) && return 0
	[ -e $tmp/removing ] && rm=yes
	case $err in
	*"No such device"*|*"No such file or directory"*)
		[ $rm = yes ] && return 1 ;;
	esac
	sz=$(cat "${1%/queue/*}/size" 2>/dev/null) || sz=gone
	echo "$2 > ${1##*/}: ${err##*: } (size $sz, removing $rm)" >>$tmp/errors
	return 1
}

# Switch the live policy and those in shadow until the files go (or for
# at most 60 s).
switcher() {
	local live=(hint lifetime none lifetime hint none)
	local shadow=("lifetime hint" none hint "hint lifetime" lifetime)
	local i=0 end=$((SECONDS + 60))

	# Periods 6 and 5: every live policy meets every list in shadow.
	while [ -e $q/write_stream_policy ] && [ $SECONDS -lt $end ]; do
		set_checked $q/write_stream_policy "${live[i % 6]}"
		set_checked $q/write_stream_shadow "${shadow[i % 5]}"
		i=$((i + 1))
	done
}

# Write VALUE to FILE once TRIGGER (a file) is gone, or reads 0 for the
# disk's size, and SPIN turns of a loop later; give up after 30 s.
# The status is the write's, or 2 if it was not written.
late_set() {	# FILE VALUE TRIGGER SPIN
	local n=0 fd sz=1 end=$((SECONDS + 30))

	[ -e "$3" ] || return 2
	exec {fd}>"$1" || return 2
	case $3 in
	*/size)
		while read -r sz <"$3" && [ "$sz" != 0 ]; do
			[ $SECONDS -lt $end ] || return 2
		done ;;
	*)
		while [ -e "$3" ]; do
			[ $SECONDS -lt $end ] || return 2
		done ;;
	esac
	while [ $n -lt "$4" ]; do n=$((n + 1)); done
	echo "$2" >&$fd
} 2>/dev/null

echo "+io" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p $top
echo "+io" >$top/cgroup.subtree_control 2>/dev/null

# The probe of the decision point: on with a policy, off without.
echo hint >$q/write_stream_policy
placing on
base_on=$?
echo none >$q/write_stream_policy
echo none >$q/write_stream_shadow
placing off
base_off=$?
probe=
if [ ! -e $top/io.stream ]; then
	probe="no io.stream controller"
elif [ $base_on != 0 ]; then
	probe="io.stat counts no stream with the hint policy on"
elif [ $base_off != 1 ]; then
	probe="io.stat counts streams with no policy: something else places"
fi
[ -z "$probe" ] || diag "cannot see the decision point: $probe"

# Leaks found from here on are this test's.
kmemleak=/sys/kernel/debug/kmemleak
[ -w $kmemleak ] && echo clear >$kmemleak 2>/dev/null || kmemleak=

# The kernel log from here on is this test's.
marker="teardown_test: start $$ $EPOCHSECONDS"
echo "$marker" >/dev/kmsg
rounds=0 lost=0 aimed=0 refused=0 missed=0 taken=
end=$((SECONDS + secs))
while [ $SECONDS -lt $end ]; do
	rm -f $tmp/removing
	dd if=/dev/urandom of=/dev/$disk bs=64k count=100000 oflag=direct \
		status=none 2>/dev/null &
	pids=($!)
	aim=
	spin=$((RANDOM % 10))
	trigger=/sys/block/$disk/size
	[ $((rounds / 4 % 2)) = 1 ] && trigger=/sys/block/$disk/bdi
	case $((rounds % 4)) in
	1) file=write_stream_policy ;;
	3) file=write_stream_shadow ;;
	*) file= ;;
	esac
	if [ -n "$file" ]; then
		late_set $q/$file hint $trigger $spin &
		aim=$!
	else
		switcher &
	fi
	pids+=($!)
	# Let the disk take some policies, and the aimed writer spin.
	sleep 0.$((RANDOM % 5 + 1))
	: >$tmp/removing
	echo 1 >"$pci/remove"
	if [ -n "$aim" ]; then
		# Written after GD_DEAD: taken only if the store missed it.
		wait $aim
		case $? in
		0) aimed=$((aimed + 1)) taken+=" $file@${trigger##*/}+$spin" ;;
		2) missed=$((missed + 1)) ;;
		*) refused=$((refused + 1)) ;;
		esac
	fi
	wait "${pids[@]}" 2>/dev/null
	pids=()
	rounds=$((rounds + 1))
	new=
	for i in $(seq 1 300); do
		# Once more after 30 s: a loaded host may be slow to probe.
		[ $((i % 150)) = 1 ] && echo 1 >/sys/bus/pci/rescan
		new=$(fdp_same_disk) && break
		sleep 0.2
	done
	if [ -z "$new" ]; then
		lost=1
		break
	fi
	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' <"$c/serial" 2>/dev/null)" = "$serial" ] &&
			pci=$(readlink -f "$c/device")
	done
	disk=$new q=/sys/block/$new/queue dev=$(cat /sys/block/$new/dev)
done
rm -f $tmp/removing
diag "$rounds removals of the disk in $secs s; settings written to a dead" \
	"disk: $aimed taken, $refused refused, $missed not written; now $disk"

check "the disk came back after each of $rounds removals" \
	test $lost = 0 -a $rounds -gt 0

[ $aimed = 0 ] || diag "taken (file@trigger+spin):$taken"
check "no setting written to a disk marked dead was taken" \
	test $aimed = 0 -a $missed = 0

errors=0
if [ -s $tmp/errors ]; then
	errors=$(wc -l <$tmp/errors)
	sort $tmp/errors | uniq -c | head -10 | while read -r l; do diag "$l"; done
fi
check "no switch failed but for the disk going away" test "$errors" = 0

reports='WARNING:|BUG:|Oops|Call Trace|circular locking|KASAN|kmemleak'
log=$(dmesg | sed -n "/$marker/,\$p")
if [ -z "$log" ]; then
	bad="the kernel log wrapped: the test's part of it is lost"
else
	bad=$(echo "$log" | grep -E "$reports")
fi
[ -z "$bad" ] || echo "$bad" | head -20 | while read -r l; do diag "$l"; done
check "no kernel warning, BUG, oops, lockdep or KASAN report" test -z "$bad"

if [ $lost = 0 ]; then
	echo none >$q/write_stream_policy
	echo none >$q/write_stream_shadow
fi

# Scan while the module is loaded, so that its symbols resolve in the
# backtraces; an object is reported only once it has stayed unreferenced
# through two scans, some seconds apart.
if [ -z "$kmemleak" ]; then
	ktap_test_skip "kmemleak finds nothing of the placement code (no kmemleak)"
else
	echo scan >$kmemleak
	sleep 6
	echo scan >$kmemleak
	awk -v RS='unreferenced object' \
		'/blk_stream|iostream|blk_lifetime| lt_[a-z_]+\+0x/ {
			print "unreferenced object" $0 }' $kmemleak >$tmp/leaks
	head -40 $tmp/leaks | while read -r l; do diag "$l"; done
	check "kmemleak finds nothing of the placement code" test ! -s $tmp/leaks
fi
diag "blk_lifetime refcnt $(cat $mod/refcnt 2>/dev/null)"
check "the lifetime module unloads" rmmod blk_lifetime
# Put it back for the tests after this one.
load_module || diag "cannot load the lifetime policy again: $why"

if [ $lost = 1 ]; then
	ktap_test_skip "the decision point is off again (the disk did not come back)"
elif [ -n "$probe" ]; then
	ktap_test_skip "the decision point is off again ($probe)"
else
	placing after
	check "the decision point is off again" test $? = 1
fi

echo lifetime >$q/write_stream_policy 2>/dev/null &&
	[ "$(cat $q/write_stream_shadow)" = none ]
check "the disk that came back takes a policy, with none in shadow" test $? = 0

cleanup
ktap_finished
