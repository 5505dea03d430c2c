#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tests of this directory write only on the disks the runner names
# ($FDP_TEST_DEV, $FDP_TEST_PLAIN_DEV).  Run every other test here with
# no disk named, and check that each skips and says how to name one.  A
# test that takes no disk at all belongs in no_disk_tests below.
#
# The disks named to this test are the witnesses: the tests, which do not
# see them named, must not write to them.  Their write and discard counts,
# the checksum of their first 64 MiB and, on the FDP namespace, the
# reclaim unit handle status must be the same afterwards.  Without a named
# disk those checks skip.  Runs as root.

dir=$(cd "$(dirname "$0")" && pwd)
. "$dir/../kselftest/ktap_helpers.sh"
tool=$dir/fdp_tool
self=$(basename "$0")
# A test that ran for real instead of skipping must not hold up the rest.
per_test_timeout=120
# Tests here that need no disk, and so need not skip without one.
no_disk_tests="scsi_hint_test.sh"

# The whole disk at a device node, or nothing.
disk_of() {	# PATH
	local d
	[ -b "$1" ] || return 1
	d=$(basename "$(readlink -f "/sys/dev/block/$(stat -L -c %Hr:%Lr "$1")")")
	[ -e "/sys/block/$d" ] && echo "$d"
}

# What a test could change on a disk: its write and discard counts (fields
# 5, 7, 12 and 14 of /sys/block/DISK/stat), its first 64 MiB and, on an
# FDP namespace, the media writes left in each handle's reclaim unit.
state_of() {	# DISK
	local f
	read -r -a f <"/sys/block/$1/stat"
	echo "writes ${f[4]} sectors ${f[6]} discards ${f[11]} sectors ${f[13]}"
	echo "first 64 MiB $(dd if="/dev/$1" bs=1M count=64 iflag=direct status=none |
		sha256sum | cut -d' ' -f1)"
	FDP_DISK=$1 "$tool" status 2>/dev/null
}

tests=()
for t in "$dir"/*_test "$dir"/*_test.sh; do
	[ -x "$t" ] && [ "$(basename "$t")" != "$self" ] || continue
	[[ " $no_disk_tests " == *" $(basename "$t") "* ]] || tests+=("$t")
done

ktap_print_header
[ ${#tests[@]} -gt 0 ] || ktap_exit_fail_msg "no test to run in $dir"
ktap_set_plan $((${#tests[@]} + 2))

dev=
plain=
if [ -n "${FDP_TEST_DEV:-}" ]; then
	dev=$(disk_of "$FDP_TEST_DEV") ||
		ktap_exit_fail_msg "FDP_TEST_DEV=$FDP_TEST_DEV: not a whole disk"
fi
if [ -n "${FDP_TEST_PLAIN_DEV:-}" ]; then
	plain=$(disk_of "$FDP_TEST_PLAIN_DEV") ||
		ktap_exit_fail_msg "FDP_TEST_PLAIN_DEV=$FDP_TEST_PLAIN_DEV: not a whole disk"
fi
sync
[ -n "$dev" ] && dev_before=$(state_of "$dev")
[ -n "$plain" ] && plain_before=$(state_of "$plain")

for t in "${tests[@]}"; do
	name=$(basename "$t")
	out=$(cd "$dir" && env -u FDP_TEST_DEV -u FDP_TEST_PLAIN_DEV -u FDP_TEST_HOTPLUG \
		-u FDP_DISK timeout "$per_test_timeout" "$t" 2>&1)
	rc=$?
	echo "$out" | tail -n 3 | sed "s/^/# $name: /"
	if [ $rc = "$KSFT_SKIP" ] && echo "$out" | grep -q "set FDP_TEST_DEV=/dev/"; then
		ktap_test_pass "$name skips without FDP_TEST_DEV and says how to name a disk"
	else
		ktap_print_msg "$name: exit status $rc, want $KSFT_SKIP with the opt-in message"
		ktap_test_fail "$name skips without FDP_TEST_DEV and says how to name a disk"
	fi
done

sync
witness() {	# VAR DISK BEFORE
	local after

	if [ -z "$2" ]; then
		ktap_print_msg "no $1: nothing to watch"
		ktap_test_skip "nothing written to the disk named by $1"
		return
	fi
	after=$(state_of "$2")
	if [ "$3" = "$after" ]; then
		ktap_test_pass "nothing written to the disk named by $1"
	else
		diff <(echo "$3") <(echo "$after") | sed "s/^/# $2: /"
		ktap_test_fail "nothing written to the disk named by $1"
	fi
}
witness FDP_TEST_DEV "$dev" "${dev_before:-}"
witness FDP_TEST_PLAIN_DEV "$plain" "${plain_before:-}"
ktap_finished
