#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lifetime policy's longest time with interrupts off on a large disk
# (TAP).  On an FDP namespace of several TiB (a sparse image file under
# QEMU will do), with the policy's lock timed (the disk's irqoff_timing
# debugfs file) and every range tracked (sample_shift=0, the largest owner
# table): data is written across the disk, many periods end (a small
# reclaim age: each sweeps a quarter of the owner table), the whole disk
# is discarded, and the labels are read.  Fails if the lock was ever
# held longer than the bound, MAX_US microseconds (default 200).
#
# Under QEMU, run it on one vCPU with the instruction counter as the
# clock, one nanosecond per instruction: the time is then the guest
# instructions the section ran, which the host's load cannot stretch
# (under plain TCG a vCPU the host preempts with the lock held shows
# milliseconds):
#
#	scripts/vm-run --smp 1 --icount 0 --ns-size 4T -- \
#		env LIFETIME_KO=build/obj/block/lifetime/blk-lifetime.ko \
#		tools/testing/lifetime/<this script>
#
# Usage: irqoff_test.sh [MAX_US]   (as root; $LIFETIME_KO: the module)

max_us=${1:-200}
MiB=$((1024 * 1024))
nr=0
failed=0
ok() { nr=$((nr + 1)); echo "ok $nr $*"; }
not_ok() { nr=$((nr + 1)); failed=$((failed + 1)); echo "not ok $nr $*"; }
diag() { echo "# $*"; }

echo "TAP version 13"
disk=
for q in /sys/block/*/queue; do
	[ "$(cat $q/max_write_streams 2>/dev/null || echo 0)" -ge 2 ] || continue
	disk=$(basename "$(dirname $q)")
	[ -b /dev/$disk ] && break
	disk=
done
if [ -z "$disk" ]; then
	echo "1..0 # SKIP no disk with write streams"
	exit 4
fi
echo "1..2"
q=/sys/block/$disk/queue
lt=/sys/block/$disk/queue/lifetime
dbg=/sys/kernel/debug/block/$disk/lifetime
grep -qw lifetime $q/write_stream_policy ||
	{ [ -n "${LIFETIME_KO:-}" ] && insmod "$LIFETIME_KO"; }
size=$(($(cat /sys/block/$disk/size) * 512))
diag "$disk: $((size >> 30)) GiB"

echo none >$q/write_stream_policy
echo lifetime >$q/write_stream_policy || { not_ok "policy selected"; exit 1; }
echo 1 >$dbg/irqoff_timing
echo 0 >$lt/sample_shift
grep -E '^(ranges|range_bytes|memory_bytes)' $dbg/stats | sed 's/^/# /'
echo $((64 * MiB)) >$lt/reclaim_age

# 1 MiB at 256 places across the disk, twice: live data all over the
# owner table, and 32 periods' ends, each sweeping a quarter of it.
step=$((size / 256 / MiB))
for pass in 1 2; do
	for i in $(seq 0 255); do
		dd if=/dev/zero of=/dev/$disk bs=1M count=1 seek=$((i * step)) \
			oflag=direct status=none
	done
done
echo 1 >$lt/replan
t0=$(date +%s.%N)
blkdiscard /dev/$disk
t1=$(date +%s.%N)
cat $dbg/labels >/dev/null
sed 's/^/# /' $dbg/stats | grep -E 'bytes|irqoff|sweep'
grep -E '^(periods|checks)' $dbg/layout | sed 's/^/# /'
dead=$(awk '$1 == "dead_bytes" { print $2 }' $dbg/stats)
disc=$(awk '$1 == "discard_bytes" { print $2 }' $dbg/stats)
ns=$(awk '$1 == "irqoff_max_ns" { print $2 }' $dbg/stats)
diag "discard of $((size >> 30)) GiB took $(echo "$t1 - $t0" | bc) s;" \
	"longest hold of the lock with interrupts off: $((ns / 1000)) us," \
	"$(awk '$1 == "irqoff_max_at" { print "in " $2 }' $dbg/stats)"
if [ "$disc" = "$size" ] && [ "${dead:-0}" -gt 0 ]; then
	ok "the whole disk's discard is tracked"
else
	not_ok "the whole disk's discard is tracked (discard_bytes $disc of $size, dead $dead)"
fi
if [ -n "$ns" ] && [ "$ns" -gt 0 ] && [ "$ns" -le $((max_us * 1000)) ]; then
	ok "interrupts off at most $max_us us at a time ($((ns / 1000)) us)"
else
	not_ok "interrupts off at most $max_us us at a time (${ns:-?} ns)"
fi
echo 0 >$dbg/irqoff_timing
echo none >$q/write_stream_policy
[ $failed = 0 ]
