#!/usr/bin/env bash
# Host-side tests of the lifetime policy's tracker and planner (TAP): the
# same cases as its KUnit suite, built from block/lifetime as a
# userspace program.
set -u
dir=$(cd "$(dirname "$0")/../../tools/testing/lifetime" && pwd)
if ! make -s -C "$dir" >/dev/null 2>&1; then
	echo "not ok 1 lifetime tests build"
	make -C "$dir" 2>&1 | sed 's/^/# /' | tail -n 20
	exit 1
fi
# lt_test's own plan line is replaced by one that counts the replay and
# sanitizer tests.
out=$("$dir/lt_test")
rc=$?
grep -v '^1\.\.' <<<"$out"
# lt_replay: two tenants overwriting their own halves of a 64 MiB disk.
# Once planned, each tenant's writes must be on a stream of its own.
n=$(grep -c '^ok\|^not ok' <<<"$out")
trace=$(mktemp)
awk 'BEGIN { for (i = 0; i < 40000; i++) {
	c = i % 2; s = c * 65536 + (i * 2654435761 % 8192) * 8
	printf "%d.0 259,0 W %d 8 0 default %d\n", i, s, 100 + c } }' >"$trace"
out=$("$dir/lt_replay" --capacity 64M "$trace" 2>/dev/null |
	awk 'NR > 30000 { s[$8] = s[$8] " " $6 }
	     END { for (c in s) { split(s[c], a, " "); u[c] = a[1]
			for (i in a) if (a[i] != a[1]) u[c] = "mixed" }
		   print u[100], u[101] }')
# As in the kernel, the first layout comes after 1/16 of the reclaim age
# (the capacity, 64 MiB), not a quarter: the first placed write must come
# before 8 MiB (2048 writes of 4 KiB) were written.
first=$("$dir/lt_replay" --capacity 64M "$trace" 2>/dev/null |
	awk '$7 == "policy" { print NR; exit }')
rm -f "$trace"
read -r s0 s1 <<<"$out"
if [ -n "$s0" ] && [ "$s0" != mixed ] && [ "$s1" != mixed ] && [ "$s0" != "$s1" ] &&
   [ "$s0" -ge 2 ] && [ "$s1" -ge 2 ]; then
	echo "ok $((n + 1)) - lt_replay gives two tenants streams of their own ($s0, $s1)"
else
	echo "not ok $((n + 1)) - lt_replay gives two tenants streams of their own (got '$out')"
	rc=1
fi
n=$((n + 1))
if [ -n "$first" ] && [ "$first" -le 2048 ]; then
	echo "ok $((n + 1)) - lt_replay places its first write within 1/16 of a reclaim age (write $first)"
else
	echo "not ok $((n + 1)) - lt_replay places its first write within 1/16 of a reclaim age (write ${first:-none})"
	rc=1
fi
# The same cases under ASan, LSan and UBSan: a leak fails them too.
if san=$("$dir/lt_test_san" 2>&1); then
	echo "ok $((n + 2)) - lt_test under ASan, LSan and UBSan"
else
	echo "not ok $((n + 2)) - lt_test under ASan, LSan and UBSan"
	grep -E 'ERROR|SUMMARY|runtime error|^not ok' <<<"$san" | head -n 20 | sed 's/^/# /'
	rc=1
fi
echo "1..$((n + 2))"
exit $rc
