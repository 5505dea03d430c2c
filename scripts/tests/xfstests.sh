#!/usr/bin/env bash
# The xfstests smoke subset (scripts/xfstests --smoke: quick log recovery
# and fsync tests) on ext4 and XFS, with the journal/log and metadata
# stream mount options and the hint policy (configuration c) and with
# the lifetime policy (d), in one guest boot of the built kernel: the
# two configurations whose code paths differ from the base kernel's.
# Prints TAP: one line per test and configuration (a test check could
# not run is a SKIP with its reason) and one for the guest's kernel log.
# The full runs and the comparison with the base kernel are
# scripts/xfstests' own commands.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${FDP_BUILD:-$TOP/build}
out=$BUILD/vm/xfstests-smoke
if [ ! -f "$BUILD/obj/arch/x86/boot/bzImage" ]; then
	echo "TAP version 13"
	echo "ok 1 xfstests smoke # SKIP no kernel in build/obj (scripts/build-kernel)"
	echo "1..1"
	exit 0
fi
rm -rf "$out"
mkdir -p "$out"
if "$TOP/scripts/xfstests" --smoke --fs ext4,xfs --config c,d --timeout 1500 \
	--out "$out" --tap "$out/smoke.tap" >"$out/xfstests.log" 2>&1; then
	cat "$out/smoke.tap"
elif [ -s "$out/smoke.tap" ]; then
	cat "$out/smoke.tap"
	echo "# see $out"
else
	echo "TAP version 13"
	echo "not ok 1 xfstests smoke run"
	sed 's/^/# /' "$out/xfstests.log" | tail -n 20
	echo "1..1"
fi
