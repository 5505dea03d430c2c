#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the shell tests that write on the FDP namespace named by
# $FDP_TEST_DEV.  Source it with $dir set to the tests' directory; a test
# defines cleanup() for bail(), and $mnt and $top for the helpers that
# mount the disk and make cgroups.

. "$dir/../kselftest/ktap_helpers.sh"
tool=$dir/fdp_tool

check() {	# NAME CMD...: a test case from a command's status
	local name=$1
	shift
	if "$@"; then ktap_test_pass "$name"; else ktap_test_fail "$name"; fi
}
diag() { echo "# $*"; }
bail() { cleanup; ktap_exit_fail_msg "$*"; }
skip_all() { ktap_skip_all "$*"; exit "$KSFT_SKIP"; }

# fdp_named_disk [MIN]: print the KTAP header and find the disk named by
# $FDP_TEST_DEV: $disk, $streams, $dev (MAJ:MIN) and $q (its queue
# directory).  Skips without a disk named, or when it has fewer than MIN
# write streams (default 2; unless $FDP_HANDLES says it has them); fails
# on a name that is no whole disk.
fdp_named_disk() {
	local disk_kv streams_kv min=${1:-2}

	ktap_print_header
	if [ -z "${FDP_TEST_DEV:-}" ]; then
		skip_all "no disk named: set FDP_TEST_DEV=/dev/nvmeXnY to an NVMe FDP" \
			"namespace whose data the test may destroy"
	fi
	[ -b "$FDP_TEST_DEV" ] ||
		ktap_exit_fail_msg "FDP_TEST_DEV=$FDP_TEST_DEV: not a block device"
	disk=$(basename "$(readlink -f "/sys/dev/block/$(stat -L -c %Hr:%Lr "$FDP_TEST_DEV")")")
	[ -e "/sys/block/$disk" ] ||
		ktap_exit_fail_msg "FDP_TEST_DEV=$FDP_TEST_DEV: a partition; name the whole disk"
	# fdp_tool works on the disk named by $FDP_DISK.
	export FDP_DISK=$disk
	read -r disk_kv _ streams_kv _ < <("$tool" info 2>/dev/null)
	streams=${streams_kv#max_write_streams=}
	if [ "${disk_kv#disk=}" != "$disk" ] || [ "${streams:-0}" -lt "$min" ]; then
		local few="FDP_TEST_DEV=$FDP_TEST_DEV: fewer than $min FDP write streams"

		[ -n "${FDP_HANDLES:-}" ] && ktap_exit_fail_msg "$few"
		skip_all "$few"
	fi
	dev=$(cat /sys/block/$disk/dev)
	q=/sys/block/$disk/queue
}

# fdp_nvme_ctrl: the NVMe controller of $disk, for the tests that unplug
# it: $ctrl (its sysfs directory), $pci (its PCI device), $pcifn (the
# PCI function's name), $serial and $nsid (the namespace's), each empty
# where not found.
fdp_nvme_ctrl() {
	local c

	ctrl=
	for c in /sys/class/nvme/nvme*; do
		ls "$c" "$c"/*/ 2>/dev/null |
			grep -q "^${disk}\$\|^${disk%n*}c[0-9]*n${disk##*n}\$" &&
			{ ctrl=$c; break; }
	done
	pci=$(readlink -f "$ctrl/device" 2>/dev/null)
	pcifn=${pci##*/}
	serial=$(tr -d ' ' <"$ctrl/serial" 2>/dev/null)
	nsid=$(cat /sys/block/$disk/nsid 2>/dev/null)
}

# fdp_same_disk: the disk of namespace $nsid on the controller with
# $serial, which may come back under another name after a hot plug.
fdp_same_disk() {
	local c d

	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' <"$c/serial" 2>/dev/null)" = "$serial" ] || continue
		# nvmeXnZ, or nvmeXcYnZ: a path of the multipath disk nvmeXnZ
		for d in "$c"/nvme*n*; do
			d=${d##*/}
			case $d in nvme*c*n*) d=${d%%c*}n${d##*n} ;; esac
			[ "$(cat "/sys/block/$d/nsid" 2>/dev/null)" = "$nsid" ] &&
				[ -b /dev/$d ] && { echo "$d"; return 0; }
		done
	done
	return 1
}

# The lifetime policy, or a reason in $why: 0 if it is there, 4
# (KSFT_SKIP) if it is not available here, 1 if it is there but does not
# load.
load_module() {
	why=
	grep -qw lifetime $q/write_stream_policy && return 0
	if [ -z "${LIFETIME_KO:-}" ]; then
		# An installed module (make modules_install) is the runner's too.
		LIFETIME_KO=$(modinfo -n blk-lifetime 2>/dev/null)
		if [ -z "$LIFETIME_KO" ]; then
			why="no lifetime policy: build CONFIG_BLK_STREAM_LIFETIME"
			why+=" or set LIFETIME_KO=blk-lifetime.ko"
			return "$KSFT_SKIP"
		fi
	fi
	[ -f "$LIFETIME_KO" ] || { why="LIFETIME_KO=$LIFETIME_KO: no such file"; return 1; }
	insmod "$LIFETIME_KO" || { why="insmod $LIFETIME_KO failed"; return 1; }
	grep -qw lifetime $q/write_stream_policy && return 0
	why="$LIFETIME_KO loaded, but $disk offers no lifetime policy"
	return 1
}

# Run a command or function in a cgroup under $top, from a subshell.
in_cg() {	# CG CMD...
	local cg=$top/$1
	shift
	mkdir -p "$cg"
	(echo $BASHPID >"$cg/cgroup.procs" && "$@")
}

# Write BYTES to FILE in place (from its start, as a log or a rewritten
# table does), or appended, and write it back.
rewrite() {	# BYTES FILE
	dd if=/dev/urandom of="$2" bs=256k count=$(($1 / 262144)) \
		conv=notrunc,fsync status=none
}
append() {	# BYTES FILE
	dd if=/dev/urandom of="$2" bs=256k count=$(($1 / 262144)) \
		oflag=append conv=notrunc,fsync status=none
}

# A fresh ext4 on the disk, mounted with discard on $mnt.
setup_fs() {
	umount $mnt 2>/dev/null
	mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 /dev/$disk || return 1
	mkdir -p $mnt && mount -o discard /dev/$disk $mnt
}
