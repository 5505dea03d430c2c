#!/usr/bin/env bash
# Host-side tests of scripts/waf-table's statistics (TAP): the mean and
# Student's t interval of known runs, cells of one and of several runs,
# replays of the shared run told from live runs, the fill and steadiness
# of each run, "excess removed" only where no placement leaves 0.2 of
# excess WAF, and a policy below the offline bound flagged.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() {	# result OK NAME [DETAIL...]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=$((failed + 1))
		shift 2
		printf '# %s\n' "$@"
	fi
}

echo "TAP version 13"

# The statistics themselves, from the script's own functions.
out=$(PYTHONDONTWRITEBYTECODE=1 python3 - "$TOP/scripts/waf-table" <<'EOF' 2>&1
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("waf_table", sys.argv[1])
spec = importlib.util.spec_from_loader("waf_table", loader)
wt = importlib.util.module_from_spec(spec)
loader.exec_module(wt)
m, ci = wt.mean_ci([1.0, 1.1, 1.2])
# mean 1.1, s = 0.1, t(0.975, 2) = 4.3027: 1.1 -+ 0.2484
assert abs(m - 1.1) < 1e-9 and abs(ci[0] - 0.85159) < 1e-4 and abs(ci[1] - 1.34841) < 1e-4, (m, ci)
m, ci = wt.mean_ci([1.5, 1.7])
assert abs(m - 1.6) < 1e-9 and ci is None, (m, ci)
# t quantiles beyond the table: 2.0211 at 40, 1.9799 at 120 degrees of freedom
assert abs(wt.t975(40) - 2.0211) < 2e-4 and abs(wt.t975(120) - 1.9799) < 2e-4
assert abs(wt.t975(30) - 2.0423) < 1e-4 and abs(wt.t975(31) - 2.0395) < 2e-4
print("mean 1.1, interval %.4f-%.4f" % wt.mean_ci([1.0, 1.1, 1.2])[1])
EOF
)
result $? "mean and 95% interval of 1.0, 1.1, 1.2 (Student's t, 2 df), t beyond 30 df: $out" "$out"

# A results directory: "shared" with three runs per cell, "rocksdb-xfs"
# with one run under the old single-run names.
d=$tmp/res
mkdir -p "$d"
sim() {	# sim FILE WAF FILL [KEY=VALUE...]: an fdp-sim result
	local f=$1 waf=$2 fill=$3
	shift 3
	{
		echo "gc_dest=per-handle gc_dest_from=option ruh_type=unknown" \
			"start=preconditioned device=custom op=7 ru_pages=512"
		awk -v w="$waf" 'BEGIN { printf "host_pages=100000 media_pages=%d gc_pages=%d waf=%.4f\n",
			w * 100000, (w - 1) * 100000, w }'
		echo "victims=10 victim_valid_fraction=0.5 mapped_pages=1 fill=$fill bytes_per_page=12"
		echo "handle=0 host_pages=100000 gc_pages=1"
		echo "$*"
	} >"$d/$f"
}
for r in 1 2 3; do
	w=$(awk -v r=$r 'BEGIN { printf "%.1f", 1.9 + r / 10 }')
	sim "shared-none.run$r.sim" "$w" 0.88 "steady=yes dw_after_full=3.0 gc_per_host_page=1.0"
	echo "oracle_waf=1.3000 bound_converged=yes" >>"$d/shared-none.run$r.sim"
	echo none >"$d/shared-none.run$r.choose"
	echo "placement ok" >"$d/shared-none.run$r.check"
done
sim shared-lifetime.run1.sim 1.0 0.85 "steady=yes dw_after_full=3.1 gc_per_host_page=0.0"
sim shared-lifetime.run2.sim 1.1 0.86 "steady=yes dw_after_full=3.5 gc_per_host_page=0.1"
sim shared-lifetime.run3.sim 1.2 0.87 "steady=no dw_after_full=3.3 gc_per_host_page=0.2"
for r in 1 2 3; do echo "placement ok" >"$d/shared-lifetime.run$r.check"; done
echo "placement differs" >"$d/shared-lifetime.run2.check"
# A stale single-run result beside the runs: not a fourth run.
sim shared-lifetime.sim 3.0 0.5
sim shared-isolation.run1.sim 1.8 0.88
sim shared-isolation.run2.sim 1.9 0.88
for r in 1 2 3; do
	sim "shared-hint.run$r.sim" 1.5 0.88
	echo key-map:0 >"$d/shared-hint.run$r.choose"
	sim "shared-hint-live.run$r.sim" 1.6 0.89
	echo "placement ok" >"$d/shared-hint-live.run$r.check"
	echo "agree_bytes=$((r * 300)) total_bytes=1000" >"$d/shared-hint-live.run$r.agree"
done
sim rocksdb-xfs-none.sim 1.1 0.87 "oracle_waf=1.0000"
sim rocksdb-xfs-lifetime.sim 1.05 0.86
# switch-log's results are not policies of switch.
sim switch-none.sim 1.4 0.7
sim switch-log-none.sim 9.0 0.5
sim switch-log-lifetime.sim 9.0 0.5

if ! python3 "$TOP/scripts/waf-table" --no-plots "$d" shared rocksdb-xfs switch \
	>"$tmp/out" 2>&1; then
	result 1 "waf-table runs" "$(tail -n 5 "$tmp/out")"
	echo "1..$n"
	exit 1
fi
csv=$d/results.csv
row() {	# row SCENARIO POLICY SOURCE: that cell's line of results.csv
	awk -F, -v s="$1" -v p="$2" -v src="$3" '$1 == s && $2 == p && $10 == src' "$csv"
}
col() {	# col N LINE
	cut -d, -f"$1" <<<"$2"
}
md=$(cat "$d/results.md")

l=$(row shared lifetime live)
result "$([ "$(col 11 "$l")" = 3 ] && [ "$(col 3 "$l")" = 1.1000 ] &&
	  [ "$(col 12 "$l")" = 0.8516 ] && [ "$(col 13 "$l")" = 1.3484 ] && echo 0)" \
	"three runs of 1.0, 1.1, 1.2: mean 1.1000, interval 0.8516-1.3484" "$l"
want='| shared | lifetime | live run | 3 | 1.100 | 0.852-1.348 | 0.100 | 3.1-3.5 |'
want+=' 85%, 86%, 87% | no (1 of 3 runs) |'
result "$(grep -qF "$want" <<<"$md" && echo 0)" \
	"results.md: runs, interval, GC copies per host page, DW after full, each run's fill, steadiness" \
	"$(grep '| shared | lifetime' <<<"$md")"
result "$(grep -qF '| DIFFERS (run 2) |' <<<"$(grep '| shared | lifetime' <<<"$md")" && echo 0)" \
	"a device check that failed in one run names the run"
l=$(row shared none replay)
result "$([ "$(col 3 "$l")" = 2.1000 ] && [ "$(col 11 "$l")" = 3 ] && echo 0)" \
	"no placement: mean of 2.0, 2.1, 2.2, a replay of the shared run" "$l"
# excess removed (2.1 - 1.1) / (2.1 - 1) = 91%; the bound's share
# (2.1 - 1.1) / (2.1 - 1.3) = 125%: flagged.
l=$(row shared lifetime live)
result "$([ "$(col 4 "$l")" = 0.9091 ] && [ "$(col 5 "$l")" = 1.2500 ] &&
	  [ "$(col 19 "$l")" = yes ] && echo 0)" \
	"excess removed 91%, 125% of the bound's reduction, flagged in the CSV" "$l"
result "$(grep -qF '| 91% | **125%: above the bound** |' <<<"$md" &&
	  grep -q '^\*\*above the bound\*\*' <<<"$md" && echo 0)" \
	"results.md flags a cell above the bound and says what it means"
l=$(row shared isolation live)
result "$([ "$(col 11 "$l")" = 2 ] && [ -z "$(col 12 "$l")" ] &&
	  grep -qF '| shared | isolation | live run | 2 | 1.850 | n<3: no interval |' <<<"$md" &&
	  echo 0)" "two runs: the mean, and no interval" "$l"
result "$(grep -qF '| shared | hint | replay of the shared run | 3 | 1.500 |' <<<"$md" &&
	  grep -qF '| shared | hint | live run | 3 | 1.600 |' <<<"$md" &&
	  grep -q '| shared | hint | live run .*agrees with its shadow on 60.0% of bytes' <<<"$md" &&
	  echo 0)" \
	"a replay of the shared run and the live run of the same policy, with the bytes they agree on"
want='| shared | offline bound (death-time binning) | replay of the shared run | 3 | 1.300 |'
result "$(grep -qF "$want" <<<"$md" &&
	  grep -q 'search converged in 3 of 3 runs' <<<"$md" &&
	  [ "$(col 18 "$(row shared offline-bound replay)")" = "converged 3/3" ] && echo 0)" \
	"the offline bound (death-time binning) row, by that name"
result "$([ -n "$(row switch none live)" ] && [ -z "$(row switch log-none live)" ] &&
	  ! grep -q '9.000' <<<"$md" && echo 0)" \
	"switch-log's results are not taken for policies of switch"
# rocksdb-xfs: W0 - 1 = 0.1 < 0.2: no "excess removed" in results.md.
want='| rocksdb-xfs | lifetime | live run | 1 | 1.050 | n<3: no interval |'
result "$(grep -qF "$want" <<<"$md" &&
	  grep '| rocksdb-xfs | lifetime' <<<"$md" | grep -qF '| 86% | - | - | 50% |' &&
	  grep -q '^"-" in excess WAF removed: no placement.s excess WAF (W0 - 1) is under 0.2' <<<"$md" &&
	  echo 0)" "a single run under the old name; excess removed left out under 0.2, with a note" \
	"$(grep '| rocksdb-xfs | lifetime' <<<"$md")"
result "$([ -f "$d/results-per-handle.md" ] && [ -f "$d/results-per-handle.csv" ] && echo 0)" \
	"the GC mode's copy of the tables"

echo "1..$n"
[ "$failed" = 0 ]
