#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the lifetime write stream placement policy on an FDP namespace
# (block/lifetime).  Placement is checked on the device: each
# check runs the writes under "fdp_tool watch" and reads which placement
# handles consumed them.
#
# The test runs only on the FDP namespace named by $FDP_TEST_DEV (such as
# /dev/nvme0n1), whose data it destroys; without it, it skips.  It skips
# too when the named namespace has no write streams (unless $FDP_HANDLES
# says it has, as the test guest does) and when the policy is not
# available: not built in, not loaded, no blk-lifetime module to load and
# no $LIFETIME_KO.  A policy that is there but does not load fails.
# Needs ext4, cgroup v2 with the io controller, debugfs.
#
# The disk removal case unplugs the namespace's controller, and with it
# every namespace on it, only when $FDP_TEST_HOTPLUG names the
# controller's PCI function (such as 0000:00:04.0); it skips otherwise.
# In a VM whose harness sets FDP_HOTPLUG, it asks the harness for a QEMU
# device_del and device_add of the controller (QEMU id = its serial) by
# writing "del ID" or "add ID" to $FDP_HOTPLUG.req and reading "ok" back
# from $FDP_HOTPLUG.ack; without it, it removes and rescans the PCI
# function.
#
# Runs as root.

MiB=$((1024 * 1024))

dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/fdp_lib.sh"
mnt=/tmp/lifetime_test.mnt
top=/sys/fs/cgroup/lifetime_test
nr_tests=42

fdp_named_disk
lt=/sys/block/$disk/queue/lifetime
dbg=/sys/kernel/debug/block/$disk/lifetime

cleanup() {
	local c
	umount $mnt 2>/dev/null
	for c in $top/*/*/ $top/*/; do
		[ -d "$c" ] || continue
		echo "$dev default" >"$c/io.stream" 2>/dev/null
		rmdir "$c" 2>/dev/null
	done
	rmdir $top 2>/dev/null
	echo none >$q/write_stream_shadow 2>/dev/null
	echo none >$q/write_stream_policy 2>/dev/null
}

# The handle that took at least 90% of the bytes of "fdp_tool watch" output
# on stdin, or "mixed"; "none" if nothing was written.
main_handle() {
	awk -F'[ =]' '/^handle=/ { b[$2] = $4; t += $4 }
		END { if (!t) { print "none"; exit }
		      for (h in b) if (b[h] * 10 >= t * 9) { print h; exit }
		      print "mixed" }'
}

# The same with O_DIRECT.
rewrite_direct() {	# BYTES FILE
	dd if=/dev/urandom of="$2" bs=256k count=$(($1 / 262144)) \
		oflag=direct conv=notrunc status=none
}
append_direct() {	# BYTES FILE
	dd if=/dev/urandom of="$2" bs=256k count=$(($1 / 262144)) \
		oflag=direct,append conv=notrunc status=none
}
# Direct writes of a file that exists, with a lifetime hint.
hinted() {	# HINT FILE OFFSET_MIB MIB
	"$tool" write --hint $1 --dev $2 --offset $(($3 * MiB)) --size $(($4 * MiB))
}

# The main handle (see main_handle) of a function run in a cgroup.
handle_of() {	# CG FUNC ARGS...
	local fns
	fns=$(declare -f in_cg rewrite append rewrite_direct append_direct hinted)
	"$tool" watch -- bash -c "$fns; top=$top; tool=$tool; MiB=$MiB; in_cg $*" |
		main_handle
}

# A tenant rewrites a log in place (it dies young) and appends to its
# data (they live), then replans; prints the handles that the log and the
# data land on afterwards.
log_and_data() {	# CG REWRITE APPEND: the write functions to use
	local i
	for i in $(seq 1 24); do
		in_cg $1 $2 $MiB $mnt/app.log
		in_cg $1 $3 $((256 * 1024)) $mnt/table.db
	done
	echo 1 >$lt/replan
	echo "$(handle_of $1 $2 $((2 * MiB)) $mnt/app.log)" \
	     "$(handle_of $1 $3 $((2 * MiB)) $mnt/table.db)"
}
# Two handles that each took one file's writes, and differ.
apart() {	# HANDLE HANDLE
	[ "$1" != "$2" ] && [ "$1" != mixed ] && [ "$1" != none ] &&
		[ "$2" != mixed ] && [ "$2" != none ]
}

layout() { cat $dbg/layout 2>/dev/null; }
layout_val() { layout | awk -v k="$1" '$1 == k { print $2; exit }'; }

start_policy() {	# RECLAIM_AGE_BYTES
	echo none >$q/write_stream_policy
	echo lifetime >$q/write_stream_policy || return 1
	echo "$1" >$lt/reclaim_age
}

load_module
case $? in
0) ;;
"$KSFT_SKIP") skip_all "$why" ;;
*) ktap_exit_fail_msg "$why" ;;
esac
diag "testing on $disk (FDP_TEST_DEV=$FDP_TEST_DEV); its data is destroyed"
echo "+io +memory" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p $top
echo "+io +memory" >$top/cgroup.subtree_control 2>/dev/null
ktap_set_plan $nr_tests

# --- sysfs and debugfs -------------------------------------------------
start_policy $((8 * MiB)) || bail "cannot select the lifetime policy"
check "policy is selected" grep -q '\[lifetime\]' $q/write_stream_policy
check "reclaim_age override is kept and reported as the operator's" \
	sh -c "[ \$(cat $lt/reclaim_age) = $((8 * MiB)) ] &&
	       [ \$(cat $lt/reclaim_age_source) = operator ]"
bad=0
# Past four capacities of host writes no device reclaims: refused.
cap=$(($(cat /sys/block/$disk/size) * 512))
for v in -1 abc "" 1x $((4 * cap + 4)); do
	echo "$v" >$lt/reclaim_age 2>/dev/null && { diag "reclaim_age took '$v'"; bad=1; }
done
echo $((4 * cap)) >$lt/reclaim_age ||
	{ diag "reclaim_age refused 4 capacities"; bad=1; }
echo $((8 * MiB)) >$lt/reclaim_age
echo 0 >$lt/replan 2>/dev/null && { diag "replan took 0"; bad=1; }
echo maybe >$lt/auto_plan 2>/dev/null && { diag "auto_plan took 'maybe'"; bad=1; }
echo maybe >$lt/writer_ranks 2>/dev/null && { diag "writer_ranks took 'maybe'"; bad=1; }
echo 100 >$lt/media_bytes_written && echo 50 >$lt/media_bytes_written 2>/dev/null &&
	{ diag "media_bytes_written went back"; bad=1; }
# The per-disk settings are checked when set, and keep their value.
for pv in range_size:12345 range_size:32768 range_size:134217728 range_size:x \
	  sample_shift:7 sample_shift:-1 min_side:1001 mem_cap:-1 mem_cap:x; do
	p=${pv%%:*} v=${pv#*:}
	old=$(cat $lt/$p)
	err=$( { echo "$v" >$lt/$p; } 2>&1 ) && { diag "$p took '$v'"; bad=1; }
	case $err in
	*"Invalid argument"*) ;;
	*) diag "$p refused '$v' with '$err', not EINVAL"; bad=1 ;;
	esac
	[ "$(cat $lt/$p)" = "$old" ] ||
		{ diag "$p changed to $(cat $lt/$p)"; bad=1; }
done
check "bad values are refused with EINVAL" [ $bad = 0 ]

# A new owner table, at once: a range size, a sampling rate and a cap.
# The labels stay; a write of the value in force rebuilds nothing, so an
# overwrite after it is still a death the tracker sees.
dead() { awk '$1 == "dead_bytes" { print $2 }' $dbg/stats; }
rs0=$(cat $lt/range_bytes) sh0=$(cat $lt/sample_shift) cap0=$(cat $lt/mem_cap)
rs1=$((2 * rs0))
[ "$rs0" -lt $((64 * MiB)) ] || rs1=$((rs0 / 2))
dd if=/dev/zero of=/dev/$disk bs=1M count=4 seek=64 oflag=direct status=none
mem0=$(cat $lt/memory) nl0=$(wc -l <$dbg/labels)
rs_ok=1
echo $rs1 >$lt/range_size && echo 5 >$lt/sample_shift &&
	echo $((cap0 / 2)) >$lt/mem_cap && echo 1000 >$lt/min_side || rs_ok=0
mem1=$(cat $lt/memory) nl1=$(wc -l <$dbg/labels)
diag "range_bytes $rs0 -> $(cat $lt/range_bytes) (range_size $(cat $lt/range_size))," \
	"sample_shift $sh0 -> $(cat $lt/sample_shift), mem_cap $(cat $lt/mem_cap)," \
	"memory $mem0 -> $mem1, labels $nl0 -> $nl1, min_side $(cat $lt/min_side)"
[ "$(cat $lt/range_size)" = $rs1 ] && [ "$(cat $lt/range_bytes)" = $rs1 ] &&
	[ "$(cat $lt/sample_shift)" = 5 ] && [ "$(cat $lt/mem_cap)" = $((cap0 / 2)) ] &&
	[ "$(cat $lt/min_side)" = 1000 ] && [ "$mem1" -lt "$mem0" ] &&
	[ "$nl1" = "$nl0" ] || rs_ok=0
echo 0 >$lt/range_size && echo 0 >$lt/sample_shift && echo "$cap0" >$lt/mem_cap &&
	echo 0 >$lt/min_side || rs_ok=0
[ "$(cat $lt/range_size)" = 0 ] && [ "$(cat $lt/range_bytes)" = "$rs0" ] &&
	[ "$(cat $lt/min_side)" = 50 ] || rs_ok=0
dd if=/dev/urandom of=/dev/$disk bs=1M count=1 seek=80 oflag=direct status=none
d0=$(dead)
echo 0 >$lt/sample_shift && echo 0 >$lt/range_size || rs_ok=0
dd if=/dev/urandom of=/dev/$disk bs=1M count=1 seek=80 oflag=direct status=none
d1=$(dead)
echo "$sh0" >$lt/sample_shift && [ "$(cat $lt/memory)" = "$mem0" ] || rs_ok=0
diag "an overwrite of 1 MiB after writes of the values in force: dead bytes $d0 -> $d1"
[ "$d1" = $((d0 + MiB)) ] || rs_ok=0
check "range_size, sample_shift, mem_cap and min_side take effect at once, per disk" \
	[ $rs_ok = 1 ]
check "debugfs shows layout, labels and stats" \
	sh -c "[ -r $dbg/layout ] && [ -r $dbg/labels ] && grep -q '^tracking on' $dbg/stats"

# --- a tenant's short-lived log and long-lived data end up apart -------
setup_fs || bail "cannot make ext4 on $disk"
start_policy $((8 * MiB))
in_cg t1 true
read -r log_h data_h < <(log_and_data t1 rewrite append)
diag "log on handle $log_h, data on handle $data_h"
grep -E 'app.log|table.db' $dbg/labels | sed 's/^/# /'
check "a tenant's log and data land on different handles" apart $log_h $data_h
check "the tenant's layout has two classes" \
	sh -c "[ \$(grep -c '^stream .* tenant' $dbg/layout) -ge 2 ]"
# The summary in sysfs, read with the worker held (auto_plan 0) so that
# no plan comes between it and the layout debugfs shows.
echo 0 >$lt/auto_plan
sum=$(cat $lt/plans $lt/layout_streams $lt/layout_tenants $lt/tenant_slots \
	$lt/tenant_overflow | tr '\n' ' ')
want="$(layout_val plans) $(grep -c '^stream ' $dbg/layout) $(layout_val tenants)"
want="$want $(layout_val tenant_slots) $(layout_val tenant_overflow) "
echo 1 >$lt/auto_plan
diag "queue/lifetime: plans, layout_streams, layout_tenants, tenant_slots," \
	"tenant_overflow: $sum; debugfs: $want"
check "queue/lifetime sums up the layout in force as debugfs shows it" \
	sh -c "[ '$sum' = '$want' ] && [ \$(echo $sum | cut -d' ' -f2) -ge 2 ]"
umount $mnt

# --- direct writes are classed by their file, as buffered ones are -------
# Every range tracked, so that the label's bytes are all the file's.
setup_fs || bail "cannot make ext4 on $disk"
start_policy $((8 * MiB))
echo 0 >$lt/sample_shift
in_cg t2 true
cg2=$(stat -c %i $top/t2)
in_cg t2 append $MiB $mnt/file.bin
in_cg t2 append_direct $MiB $mnt/file.bin
# Labels retire after four idle reclaim ages: look before more writes.
awk -v cg=$cg2 '$3 == cg' $dbg/labels | cut -d' ' -f1-9 | sed 's/^/# /'
read -r nfile fbytes < <(awk -v cg=$cg2 '$3 == cg && $5 == "file" && $6 ~ /file\.bin$/ {
	n++; b += $7 } END { print n + 0, b + 0 }' $dbg/labels)
nthread=$(awk -v cg=$cg2 '$3 == cg && $5 == "thread"' $dbg/labels | wc -l)
check "a file written buffered and direct has one label, and direct writes no thread label" \
	sh -c "[ $nfile = 1 ] && [ $fbytes -ge $((3 * MiB / 2)) ] && [ $nthread = 0 ]"
# One thread (dd) writes both files.
read -r log_h data_h < <(log_and_data t2 rewrite_direct append_direct)
diag "direct log on handle $log_h, direct data on handle $data_h"
check "one thread's direct log and data land on different handles" \
	apart $log_h $data_h
umount $mnt

# --- a tenant's lifetime hints part its data before any of it dies -------
# Two files of one tenant, one set short and one extreme with
# F_SET_RW_HINT, appended to, so that nothing dies: survival cannot tell
# them apart, the hints do (writer_ranks, the default), and with
# writer_ranks 0 they share the tenant's class.
hint_names=("a tenant's short and extreme hints land on different handles before any data die"
	    "with writer_ranks 0 they share the tenant's handle until deaths show")
hint_handles() {	# OFFSET_MIB: the handles of more writes of each file
	echo "$(handle_of h1 hinted 2 $mnt/short.dat $1 2)" \
	     "$(handle_of h1 hinted 5 $mnt/extreme.dat $1 2)"
}
hints_test() {
	local i s_h x_h s_h0 x_h0 rank_ok=0

	setup_fs || bail "cannot make ext4 on $disk"
	start_policy $((256 * MiB))
	in_cg h1 true
	touch $mnt/short.dat $mnt/extreme.dat
	for i in $(seq 0 7); do
		in_cg h1 hinted 2 $mnt/short.dat $i 1
		in_cg h1 hinted 5 $mnt/extreme.dat $i 1
	done
	echo 1 >$lt/replan
	read -r s_h x_h < <(hint_handles 8)
	grep -E 'short.dat|extreme.dat' $dbg/labels | cut -d' ' -f1-9 | sed 's/^/# /'
	layout | grep '^boundary' | sed 's/^/# /'
	diag "short hint on handle $s_h, extreme hint on handle $x_h"
	apart $s_h $x_h && grep -q '^boundary .* by_rank' $dbg/layout && rank_ok=1
	check "${hint_names[0]}" [ $rank_ok = 1 ]
	echo 0 >$lt/writer_ranks
	echo 1 >$lt/replan
	read -r s_h0 x_h0 < <(hint_handles 10)
	echo 1 >$lt/writer_ranks
	diag "writer_ranks 0: short hint on handle $s_h0, extreme hint on handle $x_h0"
	check "${hint_names[1]}" \
		sh -c "[ '$s_h0' = '$x_h0' ] && [ '$s_h0' != mixed ] && [ '$s_h0' != none ]"
	umount $mnt
}
# Streams from 2 on are the policy's: a cut needs a third.
if [ "$streams" -lt 3 ]; then
	for i in "${hint_names[@]}"; do
		ktap_test_skip "$i: needs 3 streams" "($streams streams)"
	done
else
	hints_test
fi

# --- write classes: the filesystem carries a file's name pattern -------
# The VFS gives a file opened for writing the class of its name pattern
# (digits dropped: db/7.sst is db/.sst), and the filesystem copies it
# into the file's bios.  Files named alike share one label; another
# pattern gets another; a renamed file takes the class of its new name
# when it is next opened for writing.  Label bytes decay (halve each
# reclaim age), so only part of what was written is asked for.
setup_fs || bail "cannot make ext4 on $disk"
start_policy $((16 * MiB))
sh0=$(cat $lt/sample_shift)
echo 0 >$lt/sample_shift
mkdir -p $mnt/db
for i in $(seq 1 8); do
	in_cg c1 rewrite $MiB $mnt/db/$i.sst
	in_cg c1 rewrite $MiB $mnt/db/$i.wal
done
in_cg c1 rewrite $MiB $mnt/db/old.tmp
sync
cls() {	# NAME: labels and bytes of file class NAME
	awk -v c="$1" '$5 == "file" && $6 == c { n++; b += $7 }
		END { print n + 0, b + 0 }' $dbg/labels
}
read -r nsst bsst < <(cls db/.sst)
read -r nwal bwal < <(cls db/.wal)
grep -E ' db/' $dbg/labels | cut -d' ' -f1-9 | sed 's/^/# /'
read -r _ btmp < <(cls db/old.tmp)
diag "db/.sst: $nsst labels, $bsst bytes; db/.wal: $nwal labels, $bwal bytes"
cls_ok=0
[ "$nsst" = 1 ] && [ "$nwal" = 1 ] && [ "$bsst" -ge $((2 * MiB)) ] &&
	[ "$bwal" -ge $((2 * MiB)) ] && cls_ok=1
check "files named alike share one file class, and another pattern has its own" \
	[ $cls_ok = 1 ]

# A name is shown with its spaces and unprintable bytes as '?', so that a
# file cannot add a column, or a row, to the table.
in_cg c1 rewrite $MiB "$mnt/db/my log"
sync
read -r nsp bsp < <(cls 'db/my?log')
bad_rows=$(awk 'NR > 1 && NF != 10' $dbg/labels | wc -l)
diag "db/my?log: $nsp labels, $bsp bytes; rows of another width: $bad_rows"
sp_ok=0
[ "$nsp" = 1 ] && [ "$bsp" -gt 0 ] && [ "$bad_rows" = 0 ] && sp_ok=1
check "a file name with a space is one column of the labels table" \
	[ $sp_ok = 1 ]

# Journal blocks are the journal's, not of the files whose data or
# metadata they copy: ext4's journal writes make labels of the journal
# kind with no class.
jrows=$(awk '$4 == "journal"' $dbg/labels | wc -l)
jcls=$(awk '$4 == "journal" && $5 != "none"' $dbg/labels | wc -l)
awk '$4 == "journal"' $dbg/labels | cut -d' ' -f1-9 | sed 's/^/# /'
j_ok=0
[ "$jrows" -ge 1 ] && [ "$jcls" = 0 ] && j_ok=1
check "journal writes carry the journal kind and no file class" \
	[ $j_ok = 1 ]
mv $mnt/db/old.tmp $mnt/db/50.sst
in_cg c1 append $((2 * MiB)) $mnt/db/50.sst
sync
read -r _ bsst2 < <(cls db/.sst)
read -r _ btmp2 < <(cls db/old.tmp)
echo "$sh0" >$lt/sample_shift
diag "after the rename: db/.sst $bsst -> $bsst2 bytes, db/old.tmp $btmp -> $btmp2 bytes"
mv_ok=0
[ $((bsst2 - bsst)) -ge $MiB ] && [ "$btmp" -gt 0 ] && [ "$btmp2" -le "$btmp" ] &&
	mv_ok=1
check "a renamed file's next writes carry its new name's class" [ $mv_ok = 1 ]
umount $mnt

# --- a tenant switch: a new layout within one reclaim age ---------------
setup_fs || bail "cannot make ext4 on $disk"
R=$((8 * MiB))
start_policy $R
for i in $(seq 1 8); do in_cg a rewrite $((2 * MiB)) $mnt/a.$((i % 2)); done
plans0=$(layout_val plans)
sw=$(layout_val host_bytes)
for i in $(seq 1 4); do in_cg b rewrite $((2 * MiB)) $mnt/b.$((i % 2)); done
sync
plans1=$(layout_val plans)
# The first layout installed after the switch ("plan N REASON HOST_BYTES").
read -r reason at < <(layout | awk -v sw="$sw" '$1 == "plan" && $4 > sw { print $3, $4; exit }')
diag "plans $plans0 -> $plans1, reason $reason, switch at $sw, installed at $at, reclaim age $R"
check "a tenant switch installs a new layout within one reclaim age" \
	sh -c "[ '$plans1' -gt '$plans0' ] && [ '$reason' = tenants ] &&
	       [ \$(( $at - $sw )) -le $R ]"
a_h=$(handle_of a rewrite $((2 * MiB)) $mnt/a.0)
b_h=$(handle_of b rewrite $((2 * MiB)) $mnt/b.0)
diag "tenant a on handle $a_h, b on handle $b_h"
check "after the switch the two tenants are on different handles" \
	sh -c "[ '$a_h' != '$b_h' ] && [ '$a_h' != mixed ] && [ '$b_h' != mixed ]"
# With auto_plan off, another switch leaves the layout until replan.
echo 0 >$lt/auto_plan
p0=$(layout_val plans)
for i in $(seq 1 8); do in_cg c rewrite $((2 * MiB)) $mnt/c.$((i % 2)); done
p1=$(layout_val plans)
echo 1 >$lt/replan
p2=$(layout_val plans)
# A new reclaim age, here the automatic one, must not turn it back on.
echo 0 >$lt/reclaim_age
ap=$(cat $lt/auto_plan)
echo 1 >$lt/auto_plan
diag "plans with auto_plan 0: $p0 -> $p1, after replan $p2; after a new reclaim age $ap"
check "auto_plan 0 keeps the layout through a switch until replan" \
	sh -c "[ '$p1' = '$p0' ] && [ '$p2' = \$(( $p1 + 1 )) ] && [ '$ap' = 0 ]"
umount $mnt

# --- a new disk's first layout comes early ---------------------------------
# Until the first layout, a check comes every 1/16 of a reclaim age, not a
# quarter: with R = 64 MiB, 12 MiB of writes must bring a layout, and
# before 8 MiB (R/16, plus what the logs and the worker lag).
setup_fs || bail "cannot make ext4 on $disk"
R=$((64 * MiB))
start_policy $R
for i in $(seq 1 6); do in_cg f rewrite $((2 * MiB)) $mnt/f.$((i % 2)); done
sync
read -r reason at < <(layout | awk '$1 == "plan" { print $3, $4; exit }')
diag "first layout: reason '$reason' at ${at:-none} host bytes, reclaim age $R"
check "a new disk gets its first layout within 1/16 of a reclaim age" \
	sh -c "[ '$reason' = first ] && [ '${at:-0}' -gt 0 ] &&
	       [ '${at:-0}' -le $((R / 8)) ]"
# Only host writes move the policy's time on.  A replan plans, but ends
# no period: five replans in a row, more than the four periods of a
# reclaim age, leave the periods and every label's bytes as they were
# (the next period ends at R/4 = 16 MiB of writes, far off).
label_bytes() { awk 'NR > 1 { b += $7 } END { print b + 0 }' $dbg/labels; }
b0=$(label_bytes)
c0=$(layout_val checks)
p0=$(layout_val periods)
for i in 1 2 3 4 5; do echo 1 >$lt/replan; done
b1=$(label_bytes)
c1=$(layout_val checks)
p1=$(layout_val periods)
diag "labels' bytes $b0 -> $b1, periods $p0 -> $p1 over checks $c0 -> $c1"
check "replans do not age what the policy learned" \
	sh -c "[ $b0 -gt 0 ] && [ $b1 -ge $b0 ] && [ -n '$p0' ] && [ '$p1' = '$p0' ] &&
	       [ $c1 -ge $((c0 + 5)) ]"
umount $mnt

# --- more tenants than streams -------------------------------------------
setup_fs || bail "cannot make ext4 on $disk"
free=$((streams - 1))
nten=$((free + 2))
start_policy $((512 * MiB))
# Tenant k writes 4 + k MiB: all active, the largest are the last ones.
for k in $(seq 0 $((nten - 1))); do in_cg m$k append $(((4 + k) * MiB)) $mnt/m$k; done
echo 1 >$lt/replan
layout | sed 's/^/# /'
shared=$(layout_val shared_tenants)
own=$(grep -c '^stream .* tenant [0-9]' $dbg/layout)
check "with $nten tenants and $free streams, $((nten - free + 1)) share one stream" \
	[ "${shared:-0}" = $((nten - free + 1)) ]
declare -A seen=()
bad=0
for k in $(seq $((nten - 1)) -1 0); do
	h=$(handle_of m$k append $MiB $mnt/m$k)
	if [ $k -ge $((nten - free + 1)) ]; then
		[ "$h" != mixed ] && [ -z "${seen[$h]:-}" ] ||
			{ diag "tenant m$k on handle $h, shared"; bad=1; }
		seen[$h]=m$k
	else
		shared_h=${shared_h:-$h}
		[ "$h" = "$shared_h" ] && [ -z "${seen[$h]:-}" ] ||
			{ diag "small tenant m$k on handle $h, not the shared one"; bad=1; }
	fi
done
check "the largest tenants each keep a handle, the rest share one" [ $bad = 0 ]
umount $mnt

# --- tenants that share a stream die alike -------------------------------
setup_fs || bail "cannot make ext4 on $disk"
start_policy $((512 * MiB))
# Even tenants rewrite one file in place (3/4 of their bytes die), odd
# ones append: two survival groups, and more tenants than streams.
for k in $(seq 0 $((nten - 1))); do
	if [ $((k % 2)) = 0 ]; then
		for i in 1 2 3 4; do in_cg g$k rewrite $((2 * MiB)) $mnt/g$k; done
	else
		in_cg g$k append $((8 * MiB)) $mnt/g$k
	fi
done
echo 1 >$lt/replan
layout | sed 's/^/# /'
groups=$(layout_val shared_streams)
declare -A kind_on=()
bad=0
for k in $(seq 0 $((nten - 1))); do
	if [ $((k % 2)) = 0 ]; then
		h=$(handle_of g$k rewrite $MiB $mnt/g$k) kind=rewrite
	else
		h=$(handle_of g$k append $MiB $mnt/g$k) kind=append
	fi
	diag "tenant g$k ($kind) on handle $h"
	[ "$h" != mixed ] && [ "$h" != none ] || { bad=1; continue; }
	[ "${kind_on[$h]:-$kind}" = $kind ] ||
		{ diag "handle $h carries both kinds"; bad=1; }
	kind_on[$h]=$kind
done
diag "$groups shared streams, ${#kind_on[@]} handles in use"
check "tenants sharing a handle have alike lifetimes, on every free handle" \
	sh -c "[ $bad = 0 ] && [ '${groups:-0}' -ge 1 ] && [ ${#kind_on[@]} = $free ]"
umount $mnt

# --- a pinned cgroup is left alone ---------------------------------------
setup_fs || bail "cannot make ext4 on $disk"
start_policy $((8 * MiB))
mkdir -p $top/pinned
echo "$dev $streams" >$top/pinned/io.stream
for i in $(seq 1 6); do
	in_cg pinned rewrite $MiB $mnt/p.log
	in_cg u append $MiB $mnt/u.db
	in_cg u rewrite $MiB $mnt/u.log
done
echo 1 >$lt/replan
p_h=$(handle_of pinned rewrite $((2 * MiB)) $mnt/p.log)
u_h=$(handle_of u append $((2 * MiB)) $mnt/u.db)
diag "pinned cgroup on handle $p_h, unpinned tenant's data on $u_h"
# The layout names each stream's cgroup: none may be the pinned one,
# whose writes would never use it.
pin_id=$(stat -c %i $top/pinned)
u_id=$(stat -c %i $top/u)
layout | grep '^stream ' | sed 's/^/# /'
check "a pinned cgroup keeps its stream and takes none of the policy's" \
	sh -c "[ '$p_h' = $((streams - 1)) ] && [ '$u_h' != $((streams - 1)) ] &&
	       ! grep -q '^stream $streams ' $dbg/layout &&
	       ! grep -q '^stream .* cgroup $pin_id ' $dbg/layout &&
	       grep -q '^stream .* cgroup $u_id ' $dbg/layout"
echo "$dev default" >$top/pinned/io.stream
umount $mnt

# For the tests on the raw disk: dd under the names hotw and coldw in BIN,
# and the policy started with every range of the disk tracked.
raw_start() {	# BIN
	mkdir -p $1
	ln -sf "$(command -v dd)" $1/hotw
	ln -sf "$(command -v dd)" $1/coldw
	start_policy $((8 * MiB)) && echo 0 >$lt/sample_shift
}

# --- a cgroup's budget: the policy plans within it -----------------------
# Cgroup "budget" has the last two streams, a budget; cgroup "free" none.
# On the raw disk, with O_DIRECT, so that the device sees nothing but
# the tenants' writes: "budget" rewrites 1 MiB in place again and again
# (it dies young, from a thread named hotw) and writes 512 KiB once at
# a new place each time (it lives, from coldw); "free" appends 256 KiB.
# Its two lifetimes must land on the two handles of its budget, all its
# bytes on them; "free" must keep a handle of its own, and the layout
# must give "budget" none of the free streams.  Before the policy
# planned within budgets, it gave "budget" free streams (2 and 4 here)
# that io.stream folded, mod 2, onto one stream of the budget.
budget_test() {
	local b1=$((streams - 1)) b2=$streams bin=/tmp/lifetime_test.bin
	local i out_hot out_cold h_hot h_cold h_free used bad=0
	local bid fid h

	umount $mnt 2>/dev/null
	raw_start $bin
	mkdir -p $top/budget $top/free
	echo "$dev $b1-$b2" >$top/budget/io.stream
	bid=$(stat -c %i $top/budget)
	fid=$(stat -c %i $top/free)
	# hot at 64 MiB, cold from 256 MiB, free from 512 MiB on.
	bhot() { $bin/hotw if=/dev/urandom of=/dev/$disk bs=256k count=4 \
		seek=256 oflag=direct conv=notrunc status=none; }
	bcold() { $bin/coldw if=/dev/urandom of=/dev/$disk bs=256k count=2 \
		seek=$((1024 + 2 * $1)) oflag=direct conv=notrunc status=none; }
	fwrite() { dd if=/dev/urandom of=/dev/$disk bs=256k count=1 \
		seek=$((2048 + $1)) oflag=direct conv=notrunc status=none; }
	for i in $(seq 0 23); do
		in_cg budget bhot
		in_cg budget bcold $i
		in_cg free fwrite $i
	done
	echo 1 >$lt/replan
	watch_in() {	# CG FUNC ARG: fdp_tool watch output of FUNC ARG in CG
		"$tool" watch -- bash -c "$(declare -f in_cg bhot bcold fwrite);
			top=$top bin=$bin disk=$disk; in_cg $*"
	}
	out_hot=$(watch_in budget bhot)
	out_cold=$(watch_in budget bcold 30)
	h_hot=$(main_handle <<<"$out_hot")
	h_cold=$(main_handle <<<"$out_cold")
	h_free=$(watch_in free fwrite 30 | main_handle)
	used=$(awk -F'[ =]' '/^handle=/ && $4 > 0 { printf "%s ", $2 }' \
		<<<"$out_hot$(printf '\n')$out_cold")
	diag "budget $b1-$b2 (handles $((b1 - 1)) and $((b2 - 1))): short-lived" \
		"on $h_hot, long-lived on $h_cold, all on: $used; free tenant on $h_free"
	layout | grep -E '^(stream|boundary)' | sed 's/^/# /'
	[ -n "$used" ] || bad=1
	for h in $used; do
		[ "$h" = $((b1 - 1)) ] || [ "$h" = $((b2 - 1)) ] || bad=1
	done
	check "a cgroup's budget takes all its writes" [ $bad = 0 ]
	in_budget() { [ "$1" = $((b1 - 1)) ] || [ "$1" = $((b2 - 1)) ]; }
	bad=1
	in_budget "$h_hot" && in_budget "$h_cold" && [ "$h_hot" != "$h_cold" ] && bad=0
	check "its short- and long-lived writes go on different handles of its budget" \
		[ $bad = 0 ]
	# Its streams in the layout are its budget's; the free tenant's not.
	bad=0
	layout | awk -v b1=$b1 -v b2=$b2 -v id=$bid \
		'$1 == "stream" && $6 == id && $2 != b1 && $2 != b2 { bad = 1 }
		 END { exit bad }' || bad=1
	layout | grep -q "^stream [0-9]* tenant [0-9]* cgroup $fid " || bad=1
	case $h_free in mixed|none|0|$((b1 - 1))|$((b2 - 1))) bad=1 ;; esac
	check "a tenant without a budget keeps its own handle; the budget takes no free stream" \
		[ $bad = 0 ]
	echo "$dev default" >$top/budget/io.stream
	rmdir $top/budget $top/free
	rm -rf $bin
	unset -f bhot bcold fwrite watch_in in_budget
}
budget_test

# --- cgroups past the tenant slots: the shared slot's budget -------------
# Cgroups take slots 0 to 62; "s1" takes the last, 63, and "s2" and
# "s3", finding none free, share it.  All three have the same budget, the
# last two streams: the shared slot must be planned within it, never on
# the free streams, which io.stream would fold off its writes.  Then s3's
# budget changes to streams that share only one with the others': no
# budget takes all the slot's writes, and it must not be planned at all.
# Before the shared slot read its members' budgets it had none and took
# free streams in both cases.
share_budget_test() {
	local b1=$((streams - 1)) b2=$streams b0=$((streams - 2))
	local bin=/tmp/lifetime_test.bin k i nfill bad=0 bad2=0 s63 p1
	local n1="cgroups sharing the last tenant slot are planned within their common budget"
	local n2="cgroups sharing the last tenant slot with different budgets get no stream"

	umount $mnt 2>/dev/null
	echo none >$q/write_stream_policy
	mkdir -p $bin && ln -sf "$(command -v dd)" $bin/hotw && ln -sf "$(command -v dd)" $bin/coldw
	if ! start_policy $((512 * MiB)); then
		ktap_test_fail "$n1 (no policy)"
		ktap_test_fail "$n2 (no policy)"
		return
	fi
	echo 0 >$lt/sample_shift
	nfill=$((63 - $(cat $lt/tenant_slots)))
	for k in $(seq 1 $nfill); do
		in_cg fill$k dd if=/dev/zero of=/dev/$disk bs=64k count=1 seek=$k \
			oflag=direct status=none || bad=1
	done
	for k in 1 2 3; do
		mkdir -p $top/s$k && echo "$dev $b1-$b2" >$top/s$k/io.stream || bad=1
	done
	shot() { $bin/hotw if=/dev/urandom of=/dev/$disk bs=256k count=4 \
		seek=$((256 + 8 * $1)) oflag=direct conv=notrunc status=none; }
	scold() { $bin/coldw if=/dev/urandom of=/dev/$disk bs=256k count=2 \
		seek=$((1024 + 64 * $1 + 2 * $2)) oflag=direct conv=notrunc status=none; }
	for i in $(seq 0 15); do
		for k in 1 2 3; do
			in_cg s$k shot $k
			in_cg s$k scold $k $i
		done
	done
	echo 1 >$lt/replan
	layout | grep -E '^(stream|tenant_slots|tenant_overflow|tenant 63)' | sed 's/^/# /'
	s63=$(layout | awk '$1 == "stream" && $4 == 63 { printf "%s ", $2 }')
	diag "shared slot 63 ($(layout | awk '$1 == "tenant" && $2 == 63 { print $6 }') cgroups," \
		"budget $b1-$b2): streams ${s63:-none}"
	[ "$(cat $lt/tenant_slots)" = 64 ] && [ -n "$s63" ] &&
		layout | grep -q '^tenant 63 cgroup [0-9]* sharers 3$' || bad=1
	p1=$(layout_val plans)
	for k in $s63; do
		[ "$k" = $b1 ] || [ "$k" = $b2 ] || bad=1
	done
	check "$n1" [ $bad = 0 ]

	echo "$dev $b0-$b1" >$top/s3/io.stream || bad2=1
	in_cg s3 shot 3
	echo 1 >$lt/replan
	s63=$(layout | awk '$1 == "stream" && $4 == 63 { printf "%s ", $2 }')
	diag "s3's budget now $b0-$b1: slot 63 on streams ${s63:-none}" \
		"(plans $p1 -> $(layout_val plans))"
	[ -z "$s63" ] && [ "$(layout_val plans)" -gt "$p1" ] || bad2=1
	check "$n2" [ $bad2 = 0 ]
	echo none >$q/write_stream_policy
	for k in 1 2 3; do
		echo "$dev default" >$top/s$k/io.stream
		rmdir $top/s$k
	done
	for k in $(seq 1 $nfill); do rmdir $top/fill$k; done
	rm -rf $bin
	unset -f shot scold
}
share_budget_test

# --- io.stream's changes are planned for at once -------------------------
# Cgroups "par/c1" and "par/c2" each rewrite 1 MiB in place (from a thread
# named hotw) and write 256 KiB once at a new place (coldw), on the raw
# disk, and the operator plans once.  No write and no replan follow any
# of the io.stream writes below: io.stream's changes alone must bring the
# re-plans, each within 10 s.
#  - Cgroup "late", which has not written, is pinned to the lowest stream
#    the layout gives c1 and c2: the layout must leave it ("streams"), and
#    their writes must not reach its handle.
#  - "late" goes, and "par" gets the last three streams, a budget its two
#    children inherit ("budget"): each child has a stream of the budget,
#    so their writes land on handles of the budget, none shared.
# Before io.stream told the policy, nothing re-planned until host writes
# brought the next check; before tenants under one budget were planned
# together, both children's longest-lived data met on the budget's first
# stream.  Needs 5 streams, and 392 MiB of disk.
budget_parent_test() {
	local b1=$((streams - 2)) b3=$streams bin=/tmp/lifetime_test.bin
	local c i k h pin used1 used2 bad size took
	local -A hot_at=([c1]=256 [c2]=512) cold_at=([c1]=1024 [c2]=1536)
	local names=(
		"a pin of a cgroup that has not written re-plans, with no write or replan"
		"the other tenants' writes leave the pinned stream"
		"a budget set on a parent re-plans, with no write or replan"
		"two children under a budget with a stream for each share none")

	size=$(($(cat /sys/block/$disk/size) * 512))
	if [ "$streams" -lt 5 ] || [ $size -lt $((392 * MiB)) ]; then
		for i in "${names[@]}"; do
			ktap_test_skip "$i: needs 5 streams and 392 MiB" \
				"($streams streams, $((size / MiB)) MiB)"
		done
		return
	fi
	raw_start $bin
	mkdir -p $top/par
	echo "+io" >$top/par/cgroup.subtree_control ||
		bail "cannot enable the io controller below $top/par"
	chot() { $bin/hotw if=/dev/urandom of=/dev/$disk bs=256k count=4 \
		seek=$1 oflag=direct conv=notrunc status=none; }
	ccold() { $bin/coldw if=/dev/urandom of=/dev/$disk bs=256k count=1 \
		seek=$(($1 + $2)) oflag=direct conv=notrunc status=none; }
	for i in $(seq 0 23); do
		for c in c1 c2; do
			in_cg par/$c chot ${hot_at[$c]}
			in_cg par/$c ccold ${cold_at[$c]} $i
		done
	done
	echo 1 >$lt/replan
	# The handles a child's writes take, by fdp_tool watch.
	used_by() {	# CHILD
		local out
		out=$("$tool" watch -- bash -c "$(declare -f in_cg chot ccold);
			top=$top bin=$bin disk=$disk
			in_cg par/$1 chot ${hot_at[$1]}
			in_cg par/$1 ccold ${cold_at[$1]} 30")
		awk -F'[ =]' '/^handle=/ && $4 > 0 { printf "%s ", $2 }' <<<"$out"
	}
	# Show the layout, and the handles each child's writes take in $used1
	# and $used2; $bad is 1 if either wrote nothing, else 0.
	watch_children() {	# WHAT
		layout | grep -E '^(stream|boundary)' | sed 's/^/# /'
		used1=$(used_by c1)
		used2=$(used_by c2)
		diag "$1: c1 on $used1, c2 on $used2"
		bad=0
		[ -n "$used1" ] && [ -n "$used2" ] || bad=1
	}
	# Write $2 to io.stream of cgroup $1, then wait up to 10 s for a
	# layout installed for reason $3; $took says how long it took, or is
	# empty.
	replanned() {	# CG VALUE REASON
		local plans n=0

		took=
		plans=$(layout_val plans)
		echo "$dev $2" >$top/$1/io.stream || return
		while [ $n -lt 100 ]; do
			[ "$(layout_val plans)" != "$plans" ] &&
				[ "$(layout_val last_reason)" = "$3" ] &&
				{ took="$((n / 10)).$((n % 10)) s"; return; }
			sleep 0.1
			n=$((n + 1))
		done
		diag "no re-plan for $3 in 10 s; last: $(layout_val last_reason)"
	}

	pin=$(layout | awk '$1 == "stream" && $3 == "tenant" { print $2 }' |
	      sort -n | head -1)
	mkdir -p $top/late
	replanned late "${pin:-2}" streams
	diag "after io.stream pinned late to ${pin:-none}: re-plan in ${took:-no time}"
	check "${names[0]}" test -n "$pin" -a -n "$took"
	watch_children "late pinned to handle $((${pin:-1} - 1))"
	for h in $used1 $used2; do [ "$h" != $((${pin:-1} - 1)) ] || bad=1; done
	check "${names[1]}" [ $bad = 0 ]
	echo "$dev default" >$top/late/io.stream
	rmdir $top/late

	replanned par $b1-$b3 budget
	diag "after io.stream gave par $b1-$b3: re-plan in ${took:-no time}"
	check "${names[2]}" [ -n "$took" ]
	watch_children "budget $b1-$b3 (handles $((b1 - 1))-$((b3 - 1)))"
	for h in $used1 $used2; do
		[ "$h" -ge $((b1 - 1)) ] && [ "$h" -le $((b3 - 1)) ] || bad=1
	done
	for h in $used1; do
		for k in $used2; do [ "$h" != "$k" ] || bad=1; done
	done
	check "${names[3]}" [ $bad = 0 ]
	echo "$dev default" >$top/par/io.stream
	rmdir $top/par/c1 $top/par/c2 $top/par
	rm -rf $bin
	unset -f chot ccold used_by watch_children replanned
}
budget_parent_test

# --- switches and unload under running writes ----------------------------
setup_fs || bail "cannot make ext4 on $disk"
start_policy $((4 * MiB))
errs=$mnt/errors
: >$errs
writer() {	# NAME FLAG: rewrite a 4 MiB file until $mnt/stop, then checksum it
	local f=$mnt/w.$1 i=0
	while [ ! -e $mnt/stop ]; do
		dd if=/dev/urandom of=$f bs=64k count=64 $2 conv=fsync status=none ||
			echo "$1 failed" >>$errs
		i=$((i + 1))
	done
	sha256sum $f >$f.sum
}
for m in buffered direct; do
	flag=; [ $m = direct ] && flag=oflag=direct
	in_cg w$m bash -c "$(declare -f writer); mnt=$mnt errs=$errs; writer $m $flag" &
done
sw_bad=0
for i in $(seq 1 20); do
	for p in none hint lifetime; do echo $p >$q/write_stream_policy || sw_bad=1; done
	sleep 0.2
done
echo none >$q/write_stream_policy
unloaded=no
if [ -n "${LIFETIME_KO:-}" ] && grep -q '^blk_lifetime ' /proc/modules; then
	rmmod blk_lifetime && unloaded=yes
	sleep 1
	insmod "$LIFETIME_KO" || sw_bad=1
	echo lifetime >$q/write_stream_policy || sw_bad=1
fi
diag "module unloaded and reloaded under writes: $unloaded"
touch $mnt/stop
wait
sync
echo 3 >/proc/sys/vm/drop_caches
sums_ok=1
for m in buffered direct; do sha256sum -c --quiet $mnt/w.$m.sum || sums_ok=0; done
check "policy switches and module reload under writes fail no I/O and lose nothing" \
	sh -c "[ $sw_bad = 0 ] && [ ! -s $errs ] && [ $sums_ok = 1 ]"
umount $mnt

# --- no memory for the owner table: no placement, counted ----------------
echo none >$q/write_stream_policy
echo lifetime >$q/write_stream_policy
cap=$lt/mem_cap
echo 4 >$cap
in_cg t1 "$tool" write --offset 0 --size $MiB >/dev/null
h=$("$tool" watch -- "$tool" write --offset $MiB --size $((2 * MiB)) | main_handle)
diag "mem_cap $(cat $cap), writes on handle $h"
sed 's/^/# /' $dbg/stats
check "an owner table over the memory cap means no placement, and is counted" \
	sh -c "grep -q '^tracking off' $dbg/stats &&
	       grep -q '^tracking_off 1' $dbg/stats && [ '$h' = 0 ]"
echo none >$q/write_stream_policy

# --- one range in 8 tracked: writes that miss them are only counted ------
# 16 MiB of 4 KiB direct writes in order: about 7/8 of them touch no
# tracked range and are only counted, yet the clock sees every page.
echo lifetime >$q/write_stream_policy
echo 3 >$lt/sample_shift
in_cg t1 dd if=/dev/zero of=/dev/$disk bs=4k count=4096 oflag=direct status=none
read -r hb sb < <(awk '$1 == "host_bytes" { h = $2 } $1 == "skipped_bytes" { s = $2 }
	END { print h + 0, s + 0 }' $dbg/stats)
clk=$(layout_val host_bytes)
diag "sample_shift $(cat $lt/sample_shift): tracked $hb, only counted $sb," \
	"clock $clk of $((16 * MiB)) bytes"
check "with one range in 8 tracked, the rest is only counted and the clock sees all" \
	sh -c "[ \$(cat $lt/sample_shift) = 3 ] && [ $((hb + sb)) = $((16 * MiB)) ] &&
	       [ $sb -ge $((16 * MiB * 3 / 4)) ] && [ $sb -le $((16 * MiB * 15 / 16)) ] &&
	       [ '$clk' = $((16 * MiB)) ]"
echo none >$q/write_stream_policy

# --- partitions: a partition's writes are tracked where they land --------
# Two partitions side by side over the disk's first 32 MiB, every range
# tracked.  The same offsets in each are different blocks of the disk, so
# the second partition's writes kill nothing the first wrote; writing the
# first again kills all of it.
part=$((16 * MiB / 512))
case $disk in *[0-9]) sep=p ;; *) sep= ;; esac	# nvme0n1p1, sda1
p1=/dev/$disk${sep}1
p2=/dev/$disk${sep}2
echo lifetime >$q/write_stream_policy
echo 0 >$lt/sample_shift
if addpart /dev/$disk 1 0 $part && addpart /dev/$disk 2 $part $part &&
   [ -b $p1 ] && [ -b $p2 ]; then
	in_cg t1 dd if=/dev/zero of=$p1 bs=1M count=4 oflag=direct status=none
	in_cg t2 dd if=/dev/zero of=$p2 bs=1M count=4 oflag=direct status=none
	d1=$(dead)
	in_cg t1 dd if=/dev/zero of=$p1 bs=1M count=4 oflag=direct status=none
	d2=$(dead)
	diag "dead bytes after the second partition's writes $d1," \
		"after the first's again $d2"
	check "a partition's writes are tracked at their place on the disk" \
		sh -c "[ '$d1' = 0 ] && [ '$d2' = $((4 * MiB)) ]"
else
	diag "cannot add partitions to $disk"
	ktap_test_fail "a partition's writes are tracked at their place on the disk"
fi
delpart /dev/$disk 2 2>/dev/null
delpart /dev/$disk 1 2>/dev/null
echo none >$q/write_stream_policy

# --- the owner table resized under writes and discards -----------------
# Sizes change back and forth (tracking off and on again included) while
# direct writes and discards run: no I/O may fail, and the kernel log must
# stay clean (the suite's last check).
resize_load_test() {
	local k v pids bad=0 errs=/tmp/lifetime_resize.err cap splats d0 d1
	local name="resizing the owner table under writes and discards fails no I/O"

	echo none >$q/write_stream_policy
	if ! start_policy $((64 * MiB)); then
		ktap_test_fail "$name (no policy)"
		return
	fi
	cap=$(cat $lt/mem_cap)
	splats=$(dmesg | grep -cE 'WARNING:|BUG:|UBSAN:|KCSAN:|circular locking|Oops')
	: >$errs
	# Writes and discards go on until the resizes end.
	(while :; do
		for k in $(seq 0 63); do
			dd if=/dev/urandom of=/dev/$disk bs=64k count=64 \
				seek=$((k * 64)) oflag=direct status=none ||
				echo "write $k" >>$errs
		done
	 done) &
	pids=$!
	(while :; do
		for k in $(seq 0 31); do
			blkdiscard -o $((k * 4 * MiB)) -l $((4 * MiB)) /dev/$disk ||
				echo "discard $k" >>$errs
		done
	 done) &
	pids="$pids $!"
	sleep 1
	for k in $(seq 1 16); do
		for v in 0 6 3 4; do echo $v >$lt/sample_shift || bad=1; done
		for v in 1048576 65536 0; do echo $v >$lt/range_size || bad=1; done
		echo 0 >$lt/mem_cap && echo "$cap" >$lt/mem_cap || bad=1
	done
	# Both loops must still have been running: the resizes met the I/O.
	for k in $pids; do
		kill -0 $k 2>/dev/null || { diag "I/O loop $k ended early"; bad=1; }
	done
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	# The table that is left tracks: an overwrite is a death it sees.
	echo 0 >$lt/sample_shift
	dd if=/dev/urandom of=/dev/$disk bs=1M count=1 seek=300 oflag=direct status=none
	d0=$(dead)
	dd if=/dev/urandom of=/dev/$disk bs=1M count=1 seek=300 oflag=direct status=none
	d1=$(dead)
	splats=$(($(dmesg | grep -cE 'WARNING:|BUG:|UBSAN:|KCSAN:|circular locking|Oops') - splats))
	diag "16 rounds of new sizes under writes and discards: $(grep -c . $errs) failed I/O," \
		"$splats new warnings in the kernel log, dead bytes $d0 -> $d1 on an overwrite"
	check "$name" \
		sh -c "[ $bad = 0 ] && [ ! -s $errs ] && [ $splats = 0 ] &&
		       [ '$d1' = $((d0 + MiB)) ] && grep -q '^tracking on' $dbg/stats"
	echo none >$q/write_stream_policy
	rm -f $errs
}
resize_load_test

# --- cgroup churn: tenant slots come back ---------------------------------
# A host makes and removes cgroups all the time (services, sessions,
# containers): far more than the policy's 64 tenant slots write once and
# go away.  Their slots must come back, and new tenants then each get a
# slot and a handle of their own.
churn_test() {
	local k h id bad=0 nnew=4 cg=$top/churn
	local -A seen=()

	echo none >$q/write_stream_policy
	if ! start_policy $((512 * MiB)); then
		ktap_test_fail "slots of 500 removed cgroups are given back (no policy)"
		ktap_test_fail "after the churn, new tenants each have a slot (no policy)"
		return
	fi
	for k in $(seq 0 499); do
		mkdir $cg &&
		(echo $BASHPID >$cg/cgroup.procs &&
		 exec dd if=/dev/zero of=/dev/$disk bs=64k count=1 seek=$((k % 1024)) \
			oflag=direct status=none) &&
		rmdir $cg || bad=1
	done
	for k in $(seq 0 $((nnew - 1))); do
		in_cg new$k dd if=/dev/zero of=/dev/$disk bs=1M count=8 \
			seek=$((64 + 16 * k)) oflag=direct status=none
	done
	echo 1 >$lt/replan
	layout | grep -E '^(tenant|stream)' | sed 's/^/# /'
	diag "after 500 cgroups: $(layout_val tenant_slots) slots in use," \
		"$(layout_val tenants_removed) given back," \
		"$(layout_val tenant_overflow) cgroups found none free"
	check "slots of 500 removed cgroups are given back" \
		sh -c "[ $bad = 0 ] && [ '$(layout_val tenants_removed)' -ge $((500 - 64)) ] &&
		       [ '$(layout_val tenant_slots)' -le $((nnew + 1)) ]"
	for k in $(seq 0 $((nnew - 1))); do
		id=$(stat -c %i $top/new$k)
		h=$(handle_of new$k dd if=/dev/zero of=/dev/$disk bs=1M count=1 \
			seek=$((64 + 16 * k)) oflag=direct status=none)
		diag "new tenant new$k (cgroup $id) on handle $h"
		case $h in mixed|none|0) bad=1 ;; esac
		[ -z "${seen[$h]:-}" ] || bad=1
		seen[$h]=new$k
		layout | grep -q "^tenant [0-9]* cgroup $id sharers 1\$" || bad=1
	done
	check "after the churn, $nnew new tenants each have a slot and a handle of their own" \
		[ $bad = 0 ]
	for k in $(seq 0 $((nnew - 1))); do rmdir $top/new$k; done
	echo none >$q/write_stream_policy
}
churn_test

# --- disk removal under running writes -----------------------------------
# A hot unplug of the controller with the policy on, live and in shadow
# (queue/write_stream_shadow), and writes in flight: del_gendisk runs
# under both instances.  Under scripts/vm-run (FDP_HOTPLUG
# set) QEMU unplugs it (device_del: ACPI asks the guest to eject it) and
# plugs it back (device_add) with its namespace; elsewhere the guest's
# side of it is done by hand, PCI remove and rescan.  Either way only with
# FDP_TEST_HOTPLUG naming the controller's PCI function.  The disk must go
# and come back, synced data must be intact, only I/O after the removal
# may fail, the kernel must log no warning, and the disk that comes back
# must take the policy again, with nothing in shadow.
fdp_nvme_ctrl

# Ask vm-run's QMP agent for "del" or "add" of the controller (its QEMU
# id is its serial) and wait for the answer.
hotplug() {	# del|add
	local a i
	rm -f "$FDP_HOTPLUG.ack"
	echo "$1 $serial" >"$FDP_HOTPLUG.tmp" && mv "$FDP_HOTPLUG.tmp" "$FDP_HOTPLUG.req" ||
		return 1
	# "del" is answered once QEMU saw the eject: allow a slow guest 60 s.
	for i in $(seq 1 600); do
		[ -f "$FDP_HOTPLUG.ack" ] && break
		sleep 0.1
	done
	a=$(cat "$FDP_HOTPLUG.ack" 2>/dev/null)
	diag "device_${1} $serial: ${a:-no answer}"
	[ "$a" = ok ]
}

removal="disk removal under writes with the policy on: data intact, no warning"
how=
if [ -z "${FDP_TEST_HOTPLUG:-}" ]; then
	diag "set FDP_TEST_HOTPLUG=${pcifn:-PCI_FUNCTION} to let the test unplug" \
		"$disk's controller, and every namespace on it, and plug it back"
elif [ "$FDP_TEST_HOTPLUG" != "$pcifn" ] || [ -z "$serial" ] || [ -z "$nsid" ]; then
	diag "FDP_TEST_HOTPLUG=$FDP_TEST_HOTPLUG: not $disk's controller (${pcifn:-none})"
	how=none
elif [ -n "${FDP_HOTPLUG:-}" ]; then
	how="QEMU device_del and device_add"
	unplug() { hotplug del; }
	replug() { hotplug add; }
elif [ -w "$pci/remove" ]; then
	how="PCI remove and rescan"
	unplug() { echo 1 >"$pci/remove"; }
	replug() { echo 1 >/sys/bus/pci/rescan; }
else
	diag "no hot plug agent and no PCI remove for $pcifn"
	how=none
fi
if [ "$how" = none ]; then
	ktap_test_fail "$removal"
elif [ -n "$how" ]; then
	start_policy $((4 * MiB))
	echo "lifetime hint" >$q/write_stream_shadow ||
		bail "cannot run lifetime and hint in shadow"
	"$tool" write --offset 0 --size $((4 * MiB)) >/dev/null
	sync
	before=$(dd if=/dev/$disk bs=1M count=4 iflag=direct status=none | sha256sum)
	dmesg_lines=$(dmesg | wc -l)
	dd if=/dev/urandom of=/dev/$disk bs=64k seek=256 count=4096 oflag=direct \
		status=none 2>/dev/null &
	wpid=$!
	sleep 1
	gone=0
	if unplug; then
		for i in $(seq 1 150); do
			[ -e /sys/block/$disk ] || { gone=1; break; }
			sleep 0.2
		done
	fi
	wait $wpid
	back=
	if replug; then
		for i in $(seq 1 150); do
			back=$(fdp_same_disk) && [ -e /dev/$back ] && break
			back=
			sleep 0.2
		done
	fi
	diag "$how: $disk gone $gone, back as ${back:-nothing}"
	[ -n "$back" ] || diag "disks now: $(ls /sys/block | tr '\n' ' ')"
	after=
	[ -n "$back" ] &&
		after=$(dd if=/dev/$back bs=1M count=4 iflag=direct status=none | sha256sum)
	warn=$(dmesg | tail -n +$((dmesg_lines + 1)) | grep -cE 'WARNING|BUG|Oops|Call Trace')
	again=0
	if [ -n "$back" ]; then
		disk=$back q=/sys/block/$back/queue lt=/sys/block/$back/queue/lifetime
		echo lifetime >$q/write_stream_policy 2>/dev/null &&
			[ -d /sys/block/$back/queue/lifetime ] &&
			[ "$(cat $q/write_stream_shadow)" = none ] && again=1
	fi
	diag "disk removal by $how"
	check "$removal" \
		sh -c "[ $gone = 1 ] && [ -n '$back' ] && [ '$before' = '$after' ] &&
		       [ $warn = 0 ] && [ $again = 1 ]"
else
	ktap_test_skip "$removal"
fi

cleanup
ktap_finished
