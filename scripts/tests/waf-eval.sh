#!/usr/bin/env bash
# The WAF evaluation at its quick size (TAP): every scenario without
# placement and with the lifetime policy in the FDP guest, each run's
# placement checked on the device and its trace simulated, and the
# lifetime policy's share of the excess WAF held against a floor per
# scenario (scripts/waf-eval).  The floors were set on the model with GC
# copies kept per handle (persistently isolated handles), so the
# simulation here uses that mode whatever handle type QEMU reports.
# Isolation and hint take the same path in the script and are tested on
# the device by the kselftests; leaving them out here keeps CI within its
# time.  Needs the kernel built.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/scripts/waf-eval" --no-build --tap --gc-dest per-handle --policy none,lifetime \
	2>"$top/build/waf-eval-ci.log" |
	grep -E '^(not )?ok |^1\.\.'
rc=${PIPESTATUS[0]}
[ $rc = 0 ] || { echo "# waf-eval failed; see build/waf-eval-ci.log"; tail -n 20 "$top/build/waf-eval-ci.log" | sed 's/^/# /'; }
exit $rc
