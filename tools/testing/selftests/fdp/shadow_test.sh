#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of placement policies run in shadow (queue/write_stream_shadow) on
# an FDP namespace: the policies in shadow choose a stream for every write,
# reported by the block_write_stream_shadow tracepoint, while the device
# shows that only the live policy placed the writes.
#
#  - live none, lifetime in shadow: the device sees every byte on the
#    default handle, while the shadow events name other streams for some;
#  - live hint, hint in shadow: the shadow chooses the live stream for
#    every byte;
#  - live lifetime, lifetime in shadow: two independent instances on the
#    same writes agree on most bytes (see the threshold below);
#  - bad lists fail with EINVAL and leave the setting as it was.
#
# The test runs only on the FDP namespace named by $FDP_TEST_DEV (such as
# /dev/nvme0n1), whose data it destroys; without it, it skips.  It skips
# too when the named namespace has no write streams (unless $FDP_HANDLES
# says it has).  The lifetime cases skip when the policy is not available
# (not built in, not loaded, no blk-lifetime module, no $LIFETIME_KO).  A
# disk without streams named by $FDP_TEST_PLAIN_DEV is also checked to
# refuse policies in shadow.  Needs ext4, cgroup v2 with the io
# controller, tracefs.  Runs as root.

MiB=$((1024 * 1024))

dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/fdp_lib.sh"
mnt=/tmp/shadow_test.mnt
top=/sys/fs/cgroup/shadow_test
tr=/sys/kernel/tracing
nr_tests=7
# Least share of the bytes on which two lifetime instances agree; see
# the lifetime case below.
agree_min_pct=90

fdp_named_disk
[ -e $q/write_stream_shadow ] || ktap_exit_fail_msg "$q/write_stream_shadow: missing"
[ -d $tr/events/block/block_write_stream_shadow ] ||
	ktap_exit_fail_msg "no block_write_stream_shadow tracepoint in $tr"

old_buf=$(cat $tr/buffer_size_kb)
cleanup() {
	local c
	echo 0 >$tr/events/block/block_write_stream/enable 2>/dev/null
	echo 0 >$tr/events/block/block_write_stream_shadow/enable 2>/dev/null
	echo "$old_buf" >$tr/buffer_size_kb 2>/dev/null
	umount $mnt 2>/dev/null
	for c in $top/*/; do
		[ -d "$c" ] && rmdir "$c" 2>/dev/null
	done
	rmdir $top 2>/dev/null
	echo none >$q/write_stream_shadow 2>/dev/null
	echo none >$q/write_stream_policy 2>/dev/null
}

trace_start() {
	echo 0 >$tr/tracing_on
	echo 16384 >$tr/buffer_size_kb
	: >$tr/trace
	echo 1 >$tr/events/block/block_write_stream/enable
	echo 1 >$tr/events/block/block_write_stream_shadow/enable
	echo 1 >$tr/tracing_on
}
# Stop tracing and print the writes to the disk, one line each:
# "SECTORS LIVE KEY NAME=STREAM...", the live stream from the decision and
# the rest from its shadow event (pairs by disk, sector and length, in
# order); "SECTORS LIVE -" for a write without a shadow event.  Fails if
# the buffer lost events.
trace_writes() {
	local lost
	echo 0 >$tr/events/block/block_write_stream_shadow/enable
	echo 0 >$tr/events/block/block_write_stream/enable
	lost=$(awk '/^# entries-in-buffer\/entries-written:/ {
		split($3, a, "/"); print a[2] - a[1]; exit }' $tr/trace)
	[ "${lost:-1}" = 0 ] || { diag "trace lost ${lost:-?} events"; return 1; }
	awk -v dev="${dev/:/,}" '
	{
		for (i = 1; i <= NF; i++)
			if ($i == "block_write_stream:" || $i == "block_write_stream_shadow:")
				break
		if (i > NF || $(i + 1) != dev)
			next
	}
	$i == "block_write_stream:" && $(i + 2) ~ /W/ && $(i + 2) !~ /D/ && $(i + 5) > 0 {
		k = $(i + 3) " " $(i + 5)
		s = $(i + 6); sub(/^stream=/, "", s)
		n++; len[n] = $(i + 5); live[n] = s; rest[n] = "-"
		q[k] = (k in q) && q[k] != "" ? q[k] " " n : n
		next
	}
	$i == "block_write_stream_shadow:" {
		k = $(i + 2) " " $(i + 4)
		if (!(k in q) || q[k] == "")
			next
		split(q[k], a, " "); j = a[1]
		q[k] = substr(q[k], length(j) + 2)
		r = $(i + 5); sub(/^key=/, "", r)
		for (f = i + 6; f <= NF; f++)
			r = r " " $f
		rest[j] = r
	}
	END { for (j = 1; j <= n; j++) print len[j], live[j], rest[j] }' $tr/trace
}
# Bytes of the writes on stdin (trace_writes) whose shadow NAME chose a
# stream that satisfies COND ("== live", ">= 2", ...): "BYTES TOTAL".
shadow_bytes() {	# NAME OP ARG
	awk -v name="$1" -v op="$2" -v arg="$3" '
	{
		t += $1 * 512; c = ""
		for (f = 4; f <= NF; f++)
			if (index($f, name "=") == 1)
				c = substr($f, length(name) + 2)
		if (c == "")
			next
		v = arg == "live" ? $2 : arg
		if ((op == "==" && c + 0 == v + 0) || (op == ">=" && c + 0 >= v + 0))
			b += $1 * 512
	}
	END { printf "%.0f %.0f\n", b, t }'
}
# Bytes of the writes on stdin (trace_writes) whose live stream satisfies
# COND ("== 0", ">= 2"), then 0.
live_bytes() {	# COND
	awk "\$2 $1 { b += \$1 * 512 } END { printf \"%.0f 0\\n\", b }"
}
# Bytes each handle consumed, from fdp_tool watch output on stdin:
# "HANDLE0_BYTES OTHER_HANDLES_BYTES".
handle0_split() {
	awk -F'[ =]' '/^handle=/ { if ($2 == 0) z += $4; else o += $4 }
		END { printf "%.0f %.0f\n", z, o }'
}

# A tenant's short-lived log and long-lived data, with a new layout of
# lifetime instance DIR (lifetime or lifetime_shadow) at the end.
train() {	# CG DIR...
	local cg=$1 d i
	shift
	for i in $(seq 1 24); do
		in_cg $cg rewrite $MiB $mnt/app.log
		in_cg $cg append $((256 * 1024)) $mnt/table.db
	done
	for d in "$@"; do echo 1 >/sys/block/$disk/queue/$d/replan; done
}
# More of the same, as a script for fdp_tool watch.
more_writes() {	# CG
	local fns
	fns=$(declare -f in_cg rewrite append)
	"$tool" watch -- bash -c "$fns; top=$top
		for i in 1 2 3 4; do
			in_cg $1 rewrite \$((2 * $MiB)) $mnt/app.log
			in_cg $1 append \$((2 * $MiB)) $mnt/table.db
		done; sync"
}

load_module
lt_rc=$?
[ $lt_rc = 0 ] || [ $lt_rc = "$KSFT_SKIP" ] || ktap_exit_fail_msg "$why"
diag "testing on $disk (FDP_TEST_DEV=$FDP_TEST_DEV); its data is destroyed"
echo "+io +memory" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p $top
ktap_set_plan $nr_tests

# --- live none, lifetime in shadow ------------------------------------------
if [ $lt_rc = 0 ]; then
	setup_fs || bail "cannot make ext4 on $disk"
	echo none >$q/write_stream_policy || bail "cannot set policy none"
	echo lifetime >$q/write_stream_shadow || bail "cannot run lifetime in shadow"
	echo $((8 * MiB)) >/sys/block/$disk/queue/lifetime_shadow/reclaim_age
	check "lifetime in shadow has files of its own, and no live instance's" \
		sh -c "[ \"\$(cat $q/write_stream_shadow)\" = lifetime ] &&
		       [ -d /sys/block/$disk/queue/lifetime_shadow ] &&
		       [ -e /sys/kernel/debug/block/$disk/lifetime_shadow/layout ] &&
		       [ ! -e /sys/block/$disk/queue/lifetime ]"
	train s1 lifetime_shadow
	trace_start
	read -r h0 hother < <(more_writes s1 | handle0_split)
	writes=$(trace_writes) || bail "cannot trace the writes"
	read -r placed total < <(shadow_bytes lifetime ">=" 2 <<<"$writes")
	read -r live0 _ < <(live_bytes "== 0" <<<"$writes")
	nosh=$(awk '$3 == "-"' <<<"$writes" | wc -l)
	diag "device: $h0 bytes on handle 0, $hother on others;" \
	     "traced $total bytes, $live0 live on stream 0, $placed on streams >= 2 in shadow;" \
	     "$nosh writes without a shadow event"
	check "live none: every byte on the default handle, some elsewhere in shadow" \
		sh -c "[ $h0 -ge $((12 * MiB)) ] && [ $hother = 0 ] && [ $total -gt 0 ] &&
		       [ $live0 = $total ] && [ $placed -gt 0 ] && [ $nosh = 0 ]"
	# A module in shadow cannot go; once out of shadow, it can.
	ko=${LIFETIME_KO:-$(modinfo -n blk-lifetime 2>/dev/null)}
	if [ -e /sys/module/blk_lifetime/initstate ] && [ -f "$ko" ]; then
		held=0 freed=0
		rmmod blk_lifetime 2>/dev/null || held=1
		echo none >$q/write_stream_shadow
		rmmod blk_lifetime && freed=1
		[ -e /sys/module/blk_lifetime ] || insmod "$ko" ||
			bail "cannot load $ko again"
		check "the lifetime module stays while in shadow, and can go after" \
			sh -c "[ $held = 1 ] && [ $freed = 1 ] &&
			       grep -qw lifetime $q/write_stream_policy"
	else
		ktap_test_skip "the lifetime module stays while in shadow: not a loaded module"
	fi
	echo none >$q/write_stream_shadow
	umount $mnt
else
	ktap_test_skip "lifetime in shadow has files of its own: $why"
	ktap_test_skip "live none with lifetime in shadow: $why"
	ktap_test_skip "the lifetime module stays while in shadow: $why"
fi

# --- live hint, hint in shadow ------------------------------------------------
# ext4's journal and metadata writes reach the policy with their kinds,
# which the default map places; its data writes have no hint.
setup_fs || bail "cannot make ext4 on $disk"
echo default >$q/write_stream_hint_map || bail "cannot reset the hint map"
echo hint >$q/write_stream_policy || bail "cannot set policy hint"
echo hint >$q/write_stream_shadow || bail "cannot run hint in shadow"
trace_start
for i in $(seq 1 32); do
	mkdir -p $mnt/d$i && append $MiB $mnt/d$i/f
	sync
done
writes=$(trace_writes) || bail "cannot trace the writes"
read -r same total < <(shadow_bytes hint "==" live <<<"$writes")
read -r placed _ < <(live_bytes ">= 2" <<<"$writes")
diag "hint: $same of $total bytes chosen alike in shadow and live; $placed live on streams >= 2"
check "hint in shadow chooses the live hint stream for every byte" \
	sh -c "[ $total -gt 0 ] && [ $same = $total ] && [ $placed -gt 0 ]"
echo none >$q/write_stream_shadow
echo none >$q/write_stream_policy
umount $mnt

# --- live lifetime, lifetime in shadow ----------------------------------------
# The two instances see the same writes in the same order and plan from
# the same settings.  What can differ is when each installs a layout: each
# plans in its own worker, so the writes in flight around an automatic
# plan may be placed by the old layout in one and the new in the other,
# and each tracker folds the per-CPU logs at its own moments.  Here the
# traced writes come after an explicit replan of both, so automatic plans
# within them are few: at least $agree_min_pct% of the bytes must agree,
# and anything less means the instances are not independent copies of one
# policy (shared state, or one seeing writes the other does not).
if [ $lt_rc = 0 ]; then
	setup_fs || bail "cannot make ext4 on $disk"
	echo lifetime >$q/write_stream_policy || bail "cannot set policy lifetime"
	echo lifetime >$q/write_stream_shadow || bail "cannot run lifetime in shadow"
	echo $((8 * MiB)) >/sys/block/$disk/queue/lifetime/reclaim_age &&
		echo $((8 * MiB)) >/sys/block/$disk/queue/lifetime_shadow/reclaim_age ||
		bail "cannot set the reclaim age"
	train s2 lifetime lifetime_shadow
	trace_start
	read -r h0 hother < <(more_writes s2 | handle0_split)
	writes=$(trace_writes) || bail "cannot trace the writes"
	read -r same total < <(shadow_bytes lifetime "==" live <<<"$writes")
	read -r placed _ < <(live_bytes ">= 2" <<<"$writes")
	pct=$((total ? same * 100 / total : 0))
	diag "lifetime: $same of $total bytes agree ($pct%), $placed live on streams >= 2;" \
	     "device: $hother bytes off handle 0"
	check "live and shadow lifetime agree on at least $agree_min_pct% of the bytes" \
		sh -c "[ $total -gt 0 ] && [ $pct -ge $agree_min_pct ] && [ $placed -gt 0 ] &&
		       [ $hother -gt 0 ]"
	echo none >$q/write_stream_shadow
	echo none >$q/write_stream_policy
	umount $mnt
else
	ktap_test_skip "live and shadow lifetime instances agree: $why"
fi

# --- bad lists -------------------------------------------------------------
# Each must fail with EINVAL and leave the list as it was.
refuses() {	# FILE VALUE
	local before err
	before=$(cat "$1")
	err=$(echo "$2" 2>&1 >"$1")
	if ! grep -q "Invalid argument" <<<"$err"; then
		diag "'$2' > $1: ${err:-accepted}"
		return 1
	fi
	[ "$(cat "$1")" = "$before" ] || { diag "'$2' changed $1 to $(cat "$1")"; return 1; }
}
echo hint >$q/write_stream_shadow
bad=0
five=$(printf 'hint %.0s' 1 2 3 4 5)
for v in bogus "hint bogus" "hint hint" "hint none" "$five"; do
	refuses $q/write_stream_shadow "$v" || bad=1
done
[ $lt_rc = 0 ] && { refuses $q/write_stream_shadow "lifetime lifetime" || bad=1; }
check "bad lists fail with EINVAL and keep the list" \
	sh -c "[ $bad = 0 ] && [ \"\$(cat $q/write_stream_shadow)\" = hint ]"
echo none >$q/write_stream_shadow
cleared=$(cat $q/write_stream_shadow)
echo hint >$q/write_stream_shadow
echo >$q/write_stream_shadow
emptied=$(cat $q/write_stream_shadow)
if [ -n "${FDP_TEST_PLAIN_DEV:-}" ]; then
	pd=$(basename "$(readlink -f "/sys/dev/block/$(stat -L -c %Hr:%Lr "$FDP_TEST_PLAIN_DEV")")")
	pq=/sys/block/$pd/queue
	plain_bad=0
	refuses $pq/write_stream_shadow hint || plain_bad=1
	check "'none' and an empty line clear the list; a disk without streams refuses one" \
		sh -c "[ '$cleared' = none ] && [ '$emptied' = none ] && [ $plain_bad = 0 ] &&
		       [ \"\$(cat $pq/write_stream_shadow)\" = none ]"
else
	check "'none' and an empty line clear the list" \
		sh -c "[ '$cleared' = none ] && [ '$emptied' = none ]"
fi

cleanup
ktap_finished
