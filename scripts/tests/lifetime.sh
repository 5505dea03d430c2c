#!/usr/bin/env bash
# Host-side tests of the lifetime policy's tracker and planner (TAP): the
# same cases as its KUnit suite, built from drivers/block/lifetime as a
# userspace program.
set -u
dir=$(cd "$(dirname "$0")/../../tools/testing/lifetime" && pwd)
if ! make -s -C "$dir" >/dev/null 2>&1; then
	echo "not ok 1 lifetime tests build"
	make -C "$dir" 2>&1 | sed 's/^/# /' | tail -n 20
	exit 1
fi
"$dir/lt_test"
