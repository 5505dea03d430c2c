#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Placement policies against disk removal.  For $TEARDOWN_SECS seconds
# (default 60), the controller of the FDP namespace is removed and
# rescanned (PCI), over and over, under writes, while the policy of the
# disk (queue/write_stream_policy: none, hint, lifetime) and its policies
# in shadow (queue/write_stream_shadow) are switched in a loop.  Every
# other round instead writes the first setting a fresh disk ever gets,
# once, a random while after del_gendisk() took the disk's bdi link away,
# aiming at the moment it takes the policies off; from a shell this mostly
# comes too late, after the queue's sysfs files went (the KUnit suite
# blk-stream-teardown covers that moment exactly).  Every policy set on a
# disk that goes must go with it.  Afterwards:
#
#  - the kernel logged no warning, BUG, oops or lockdep or KASAN report;
#  - the lifetime module unloads (no instance of it was left behind);
#  - the decision point is off again: a write from a new cgroup, with no
#    policy on any disk, counts no stream in io.stat (which counts only
#    while some source of streams holds the static key).
#
# It writes only on the FDP namespace named by $FDP_TEST_DEV (such as
# /dev/nvme0n1), whose data it destroys, and removes its controller only
# with $FDP_TEST_HOTPLUG naming the controller's PCI function, which takes
# every namespace on that controller away for a while; without them, it
# skips.  It skips too when the named namespace has no write streams
# (unless $FDP_HANDLES says it has), and when the lifetime policy is not
# available (see load_module in fdp_lib.sh).  Needs cgroup v2 with the io
# controller.  Runs as root.

dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/fdp_lib.sh"
top=/sys/fs/cgroup/teardown_test
secs=${TEARDOWN_SECS:-60}
pids=()

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
}

fdp_named_disk
load_module
case $? in
0) ;;
"$KSFT_SKIP") skip_all "$why" ;;
*) ktap_exit_fail_msg "$why" ;;
esac

ctrl=
for c in /sys/class/nvme/nvme*; do
	ls "$c" "$c"/*/ 2>/dev/null | grep -q "^${disk}\$\|^${disk%n*}c[0-9]*n${disk##*n}\$" &&
		{ ctrl=$c; break; }
done
pci=$(readlink -f "$ctrl/device" 2>/dev/null)
pcifn=${pci##*/}
serial=$(tr -d ' ' <"$ctrl/serial" 2>/dev/null)
nsid=$(cat /sys/block/$disk/nsid 2>/dev/null)
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
ktap_set_plan 5

# The disk of the same namespace on the same controller (by serial): it
# may come back under another name.
find_disk() {
	local c d
	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' <"$c/serial" 2>/dev/null)" = "$serial" ] || continue
		for d in "$c"/nvme*n*; do
			d=${d##*/}
			case $d in nvme*c*n*) d=${d%%c*}n${d##*n} ;; esac
			[ "$(cat "/sys/block/$d/nsid" 2>/dev/null)" = "$nsid" ] &&
				[ -b /dev/$d ] && { echo "$d"; return 0; }
		done
	done
	return 1
}

# Whether a write from a new cgroup to the disk counts a stream in
# io.stat, that is whether the decision point places.
placing() {	# NAME
	local cg=$top/$1
	mkdir -p $cg || return 2
	(echo $BASHPID >$cg/cgroup.procs &&
		dd if=/dev/zero of=/dev/$disk bs=64k count=16 oflag=direct status=none)
	grep "^$dev " $cg/io.stat | grep -q 'stream[0-9]*\.wbytes='
}

# Switch the live policy and those in shadow until the files go.
switcher() {
	local live=(hint lifetime none lifetime hint none)
	local shadow=("lifetime hint" none hint "hint lifetime" lifetime)
	local i=0

	# Periods 6 and 5: every live policy meets every list in shadow.
	while [ -e $q/write_stream_policy ]; do
		echo "${live[i % 6]}" >$q/write_stream_policy
		echo "${shadow[i % 5]}" >$q/write_stream_shadow
		i=$((i + 1))
	done 2>/dev/null
}

# Set FILE to VALUE once, SPIN turns of a loop after del_gendisk() took
# the disk's bdi link away: soon after, it takes the policies off, and
# then it removes the queue's sysfs files.  The file is opened before, so
# the write reaches the store however late it comes.  The first write to
# a fresh disk also makes its placement state.
late_set() {	# FILE VALUE SPIN
	local bdi=/sys/block/$disk/bdi n=0 fd

	exec {fd}>"$1" || return
	while [ -e $bdi ]; do :; done
	while [ $n -lt "$3" ]; do n=$((n + 1)); done
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

dmesg_lines=$(dmesg | wc -l)
rounds=0 lost=0 aimed=0 refused=0 taken= late=
end=$((SECONDS + secs))
while [ $SECONDS -lt $end ]; do
	dd if=/dev/urandom of=/dev/$disk bs=64k count=100000 oflag=direct \
		status=none 2>/dev/null &
	pids=($!)
	aim= spin=$((RANDOM % 300))
	case $((rounds % 4)) in
	1) late_set $q/write_stream_policy lifetime $spin &
	   aim=$! ;;
	3) late_set $q/write_stream_shadow "lifetime hint" $spin &
	   aim=$! ;;
	*) switcher & pids+=($!) ;;
	esac
	# Let the disk take some policies, and the aimed writer spin.
	sleep 0.$((RANDOM % 5 + 1))
	echo 1 >"$pci/remove"
	if [ -n "$aim" ]; then
		# Taken (before del_gendisk() took the policies off or, the
		# race, after) or refused (too late, or the disk was dead).
		if wait $aim; then
			aimed=$((aimed + 1)) taken+=" $spin"
		else
			refused=$((refused + 1)) late+=" $spin"
		fi
	fi
	wait "${pids[@]}" 2>/dev/null
	pids=()
	rounds=$((rounds + 1))
	new=
	for i in $(seq 1 300); do
		# Once more after 30 s: a loaded host may be slow to probe.
		[ $((i % 150)) = 1 ] && echo 1 >/sys/bus/pci/rescan
		new=$(find_disk) && break
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
diag "$rounds removals of the disk in $secs s; on a fresh disk being removed," \
	"$aimed late settings taken, $refused refused; now $disk"
diag "spins of those taken:${taken:- none}; refused:${late:- none}"

check "the disk came back after each of $rounds removals" \
	test $lost = 0 -a $rounds -gt 0

reports='WARNING|BUG|Oops|Call Trace|circular locking|KASAN'
bad=$(dmesg | tail -n +$((dmesg_lines + 1)) | grep -E "$reports")
[ -z "$bad" ] || echo "$bad" | head -20 | while read -r l; do diag "$l"; done
check "no kernel warning, BUG, oops, lockdep or KASAN report" test -z "$bad"

if [ $lost = 0 ]; then
	echo none >$q/write_stream_policy
	echo none >$q/write_stream_shadow
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
