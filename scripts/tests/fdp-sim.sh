#!/usr/bin/env bash
# Host-side tests of fdp-sim (TAP): validation of the model against the
# analytic results, its command line and input checks, and its field
# device against seed 000's published results (make calibrate, ~10 s).
set -u
dir=$(cd "$(dirname "$0")/../../tools/testing/fdp-sim" && pwd)
if ! make -s -C "$dir" >/dev/null 2>&1; then
	echo "not ok 1 fdp-sim builds"
	make -C "$dir" 2>&1 | sed 's/^/# /' | tail -n 20
	exit 1
fi
rc=0
"$dir/tests/sim_test" || rc=1
"$dir/tests/cli_test.sh" | grep -v '^TAP version' || rc=1
if out=$("$dir/tests/calibrate" 2>&1); then
	echo "ok 1 calibration against seed 000 ($(tail -n 1 <<<"$out"))"
else
	echo "not ok 1 calibration against seed 000"
	rc=1
fi
sed 's/^/# /' <<<"$out"
exit $rc
