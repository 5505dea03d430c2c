#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fdp-sim command line: replays a trace, reports, refuses bad input with
# the line number and a non-zero exit.  TAP output.
cd "$(dirname "$0")/.." || exit 1
sim=./fdp-sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

check() {	# check NAME WANT_RC PATTERN -- ARGS...
	local name=$1 want=$2 pat=$3 out rc
	shift 4
	out=$("$sim" "$@" 2>&1); rc=$?
	n=$((n + 1))
	if [ "$rc" = "$want" ] && grep -qE -- "$pat" <<<"$out"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name"
		echo "# exit $rc (want $want), output:"
		sed 's/^/# /' <<<"$out" | head -n 5
		failed=$((failed + 1))
	fi
}

# A small trace: two streams, an overwrite, a discard, another disk.
cat >"$tmp/ok.trace" <<'T'
# time dev op sector sectors stream rule cgroup
0.1 259,0 W 0 16 2 cgroup 11
0.2 259,0 W 16 8 0 default 12
0.3 259,0 W 0 8 2 cgroup 11
0.4 259,0 D 0 16 0 none 0
0.5 8,0 W 0 8 0 default 1
T
echo "TAP version 13"
check "replays a trace" 0 "^host_pages=4 media_pages=4 gc_pages=0 waf=1.0000" -- \
	--capacity 512M --ru-size 1M "$tmp/ok.trace"
check "reports per handle" 0 "^handle=1 host_pages=3 gc_pages=0" -- \
	--capacity 512M --ru-size 1M "$tmp/ok.trace"
check "reports what is mapped after discards" 0 "mapped_pages=1 " -- \
	--capacity 512M --ru-size 1M "$tmp/ok.trace"
check "runs the oracle" 0 "^oracle_waf=1.0000" -- \
	--capacity 512M --ru-size 1M --oracle 0 "$tmp/ok.trace"
check "replays only the chosen disk" 0 "^host_pages=1 " -- \
	--capacity 512M --ru-size 1M --disk 8:0 "$tmp/ok.trace"

# The oracle against real placement: a full 64 MiB disk, 90% of random
# writes to a 10% hot region; unplaced, and hot/cold on two streams.
awk -v sep=0 'BEGIN { srand(7); pages = 16384; hot = 1638
	for (i = 0; i < pages; i++) print i / 1e6, "259,0 W", i * 8, 8, 1, "default 1"
	for (i = 0; i < 12 * pages; i++) {
		h = rand() < 0.9
		p = h ? int(rand() * hot) : hot + int(rand() * (pages - hot))
		print 1 + i / 1e6, "259,0 W", p * 8, 8, (sep && h) ? 2 : 1, "cgroup 1"
	} }' >"$tmp/mixed.trace"
awk '{ if ($6 == 1 && $4 / 8 < 1638 && $1 >= 1) $6 = 2; print }' "$tmp/mixed.trace" \
	>"$tmp/sep.trace"
sim_waf() {	# sim_waf KEY TRACE: the value of KEY= in fdp-sim's output
	"$sim" --capacity 64M --ru-size 128K --op 7 --oracle 0 "$2" |
		sed -n "s/.*$1=\([0-9.]*\).*/\1/p" | head -n 1
}
mixed=$(sim_waf waf "$tmp/mixed.trace")
sep=$(sim_waf waf "$tmp/sep.trace")
oracle=$(sim_waf oracle_waf "$tmp/mixed.trace")
n=$((n + 1))
if awk -v m="$mixed" -v s="$sep" -v o="$oracle" 'BEGIN { exit !(o <= s && s < m) }'; then
	echo "ok $n oracle $oracle <= hot/cold streams $sep < unplaced $mixed"
else
	echo "not ok $n oracle $oracle <= hot/cold streams $sep < unplaced $mixed"
	failed=$((failed + 1))
fi

# The offline bound (death-time binning) on a synthetic shared node at
# 90% fill, 5 drive writes: the search must converge (the last doubling
# of the binnings tried gains under 0.5% of WAF), never end above the
# old oracle's best of three binnings, and find a better binning than
# those three.  With --bound-max 3 it is the old oracle.
awk -v pages=16384 -v dw=5 -f tests/shared_node.awk >"$tmp/shared.trace"
kv() {	# kv KEY: the value of KEY= in standard input
	sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" | head -n 1
}
out=$("$sim" --capacity 64M --ru-size 64K --op 7 --oracle 0 "$tmp/shared.trace")
old=$("$sim" --capacity 64M --ru-size 64K --op 7 --oracle 0 --bound-max 3 "$tmp/shared.trace" |
      kv oracle_waf)
bound=$(kv bound_waf <<<"$out") first3=$(kv bound_first3_waf <<<"$out")
gain=$(kv bound_last_doubling_gain_pct <<<"$out") conv=$(kv bound_converged <<<"$out")
waf=$(kv waf <<<"$out") tried=$(kv bound_binnings <<<"$out")
n=$((n + 1))
name="offline bound on a shared node: $bound after $tried binnings, old oracle $old, unplaced $waf"
if [ "$conv" = yes ] && [ "$(kv bound_stop <<<"$out")" = gain ] && [ "$first3" = "$old" ] &&
   awk -v b="$bound" -v o="$old" -v g="$gain" -v w="$waf" \
	'BEGIN { exit !(b >= 1 && b <= o && b <= 0.98 * o && o < w && g < 0.5) }'; then
	echo "ok $n $name, the last doubling gained $gain%"
else
	echo "not ok $n $name, the last doubling gained $gain% (converged: $conv)"
	grep -E '^(oracle_waf|#)' <<<"$out" | sed 's/^/# /'
	failed=$((failed + 1))
fi
check "the bound names itself in its output" 0 \
	"^# offline bound \(death-time binning\): WAF 1\.[0-9]+, the best of" -- \
	--capacity 64M --ru-size 64K --op 7 --oracle 0 --bound-max 12 "$tmp/shared.trace"
check "a search cut short says it did not converge" 0 \
	" bound_binnings=6 .*bound_converged=no bound_stop=max$" -- \
	--capacity 64M --ru-size 64K --op 7 --oracle 0 --bound-max 6 "$tmp/shared.trace"
check "an offline bound with more handles than the device's" 0 \
	"^# offline bound \(death-time binning\): WAF 1\.[0-9]+, " -- \
	--capacity 64M --ru-size 64K --op 7 --oracle 16 "$tmp/shared.trace"
check "refuses an offline bound whose handles do not fit" 2 \
	"oracle 64: with 64 handles the device is impossible" -- \
	--capacity 64M --ru-size 64K --op 7 --oracle 64 "$tmp/shared.trace"
check "refuses an offline bound with one handle" 2 "oracle is 0 \(--handles\) or 2 to 128" -- \
	--capacity 64M --oracle 1 "$tmp/ok.trace"
check "refuses a search of under three binnings" 2 "bound-max is 3 to 100000" -- \
	--capacity 64M --oracle 0 --bound-max 2 "$tmp/ok.trace"

# Steady state: the WAF of each whole drive write (DW) after the first
# GC, and whether the last two agree within 2%.  A 64 MiB disk filled in
# order, then RANDOM DWs of random overwrites and SEQ DWs of overwrites
# in order.
dw_trace() {	# dw_trace RANDOM SEQ > TRACE
	awk -v r="$1" -v q="$2" 'BEGIN { srand(5); pages = 16384; t = 0
		for (i = 0; i < pages; i++) print (t++) / 1e6, "259,0 W", i * 8, 8, 1, "default 1"
		for (i = 0; i < r * pages; i++)
			print (t++) / 1e6, "259,0 W", int(rand() * pages) * 8, 8, 1, "default 1"
		for (i = 0; i < q * pages; i++)
			print (t++) / 1e6, "259,0 W", (i % pages) * 8, 8, 1, "default 1" }'
}
dw_trace 6 0 >"$tmp/steady.trace"
dw_trace 4 2 >"$tmp/changing.trace"
dw_trace 0 4 >"$tmp/seq.trace"
check "steady: random overwrites settle" 0 \
	"^steady=yes steady_why=settled dw=7.000 dw_after_full=5\.[0-9]+ " -- \
	--capacity 64M --ru-size 64K --op 28 "$tmp/steady.trace"
check "steady: a WAF per whole DW after the first GC" 0 "full_dw=5 dw_waf=2\.[0-9]+$" -- \
	--capacity 64M --ru-size 64K --op 28 "$tmp/steady.trace"
check "steady: not when the workload changes in the last DW" 0 \
	"^steady=no steady_why=changing dw=7.000 .* last_dw_waf=1\.[0-9]+ prev_dw_waf=2\." -- \
	--capacity 64M --ru-size 64K --op 28 "$tmp/changing.trace"
check "steady: overwrites in order copy nothing in any DW" 0 \
	"steady=yes .*gc_per_host_page=0.0000 last_dw_waf=1.0000 prev_dw_waf=1.0000" -- \
	--capacity 64M --ru-size 64K --op 28 "$tmp/seq.trace"
check "steady: a trace that never fills the device" 0 \
	"^steady=no steady_why=never-full dw=0.000 dw_after_full=0.000 gc_per_host_page=0.0000$" \
	-- \
	--capacity 512M --ru-size 1M "$tmp/ok.trace"
dw_trace 1 0 >"$tmp/short.trace"
check "steady: not after under two DWs of GC" 0 \
	"^steady=no steady_why=under-2-dw-after-full dw=2.000 dw_after_full=0\." -- \
	--capacity 64M --ru-size 64K --op 28 "$tmp/short.trace"
out=$("$sim" --capacity 64M --ru-size 64K --op 28 --warmup 64M "$tmp/steady.trace")
n=$((n + 1))
if awk '/^host_pages=/ { split($1, h, "="); split($3, g, "=") }
	/^steady=/ { split($5, c, "=") }
	END { exit !(h[2] > 0 && g[2] > 0 && sprintf("%.4f", g[2] / h[2]) == c[2]) }' \
	<<<"$out"; then
	echo "ok $n GC copies per host page are gc_pages / host_pages of the counted run"
else
	echo "not ok $n GC copies per host page are gc_pages / host_pages of the counted run"
	grep -E '^(host_pages|steady)=' <<<"$out" | sed 's/^/# /'
	failed=$((failed + 1))
fi

printf '0.1 259,0 W 0 8 2 cgroup 11\n0.2 259,0 X 0 8 2 cgroup 11\n' >"$tmp/badop.trace"
check "rejects a bad operation with its line" 1 "badop.trace:2: OP is not W, D or Z" -- \
	--capacity 512M --ru-size 1M "$tmp/badop.trace"
printf '0.1 259,0 W 0 8 2 cgroup 11\n0.2 259,0 W 0 8\n' >"$tmp/short.trace"
check "rejects a record with missing fields" 1 "short.trace:2: expected 8 fields" -- \
	--capacity 512M --ru-size 1M "$tmp/short.trace"
printf '0.1 259,0 W 0 8 2 cgroup 11\n0.2 259,0 W 8 8 2 cgr' >"$tmp/trunc.trace"
check "rejects a truncated trace" 1 "trunc.trace:2: truncated record" -- \
	--capacity 512M --ru-size 1M "$tmp/trunc.trace"
printf '0.1 259,0 W 1048568 16 2 cgroup 11\n' >"$tmp/past.trace"
check "rejects a write past the capacity" 1 \
	"past.trace:1: sectors 1048568..1048583 are past the capacity" -- \
	--capacity 512M --ru-size 1M "$tmp/past.trace"
printf '0.2 259,0 W 0 8 2 cgroup 11\n0.1 259,0 W 0 8 2 cgroup 11\n' >"$tmp/back.trace"
check "rejects time going back" 1 "back.trace:2: time goes back" -- \
	--capacity 512M --ru-size 1M "$tmp/back.trace"
printf '0.1 259,0 W 0 8 9 cgroup 11\n' >"$tmp/stream.trace"
check "rejects a stream the device lacks" 1 \
	"stream.trace:1: stream 9 but the device has 8 handles" -- \
	--capacity 512M --ru-size 1M "$tmp/stream.trace"
check "rejects reclaim units that do not fit" 2 \
	"impossible device: over-provisioning too small" -- \
	--capacity 512M --ru-size 32M "$tmp/ok.trace"
check "rejects too little over-provisioning" 2 "impossible device: over-provisioning too small" -- \
	--capacity 512M --ru-size 1M --op 1 "$tmp/ok.trace"
check "rejects a capacity that is not whole pages" 2 "multiples of 4 KiB" -- \
	--capacity 1000 "$tmp/ok.trace"
check "needs a capacity" 1 "ok.trace:2: no --capacity, and the trace has no device header" -- \
	"$tmp/ok.trace"
check "refuses an unknown option in one line" 2 \
	"^fdp-sim: unknown option or missing value: '--no-such' \(see --help\)\$" -- \
	--no-such "$tmp/ok.trace"
check "refuses an option without its value" 2 "missing value: '--capacity'" -- --capacity
check "needs exactly one trace" 2 "^fdp-sim: expected one trace file, got 2 \(see --help\)\$" -- \
	--capacity 512M "$tmp/ok.trace" "$tmp/ok.trace"

# The device header: capacity and reclaim unit handle type.
{ echo "# device capacity=536870912 ruh-type=initially-isolated"; cat "$tmp/ok.trace"; } \
	>"$tmp/hdr.trace"
check "takes the capacity from the header" 0 "^host_pages=4 " -- --ru-size 1M "$tmp/hdr.trace"
check "initially isolated handles: GC copies share units" 0 \
	"^gc_dest=shared gc_dest_from=trace ruh_type=initially-isolated start=empty" -- \
	--ru-size 1M "$tmp/hdr.trace"
check "an explicit --gc-dest wins over the header" 0 "^gc_dest=per-handle gc_dest_from=option" -- \
	--ru-size 1M --gc-dest per-handle "$tmp/hdr.trace"
check "no header: per-handle, and says so" 0 \
	"^gc_dest=per-handle gc_dest_from=default ruh_type=unknown" -- \
	--capacity 512M --ru-size 1M "$tmp/ok.trace"
check "preconditioned: says so, every page mapped" 0 \
	"^gc_dest=per-handle .* start=preconditioned" -- \
	--capacity 512M --ru-size 1M --precondition "$tmp/ok.trace"
check "preconditioned: every page mapped" 0 "mapped_pages=131070 " -- \
	--capacity 512M --ru-size 1M --precondition "$tmp/ok.trace"
check "refuses a trace of another disk size" 1 \
	"hdr.trace:1: the trace is of a 536870912-byte disk, the model's is 268435456 bytes" -- \
	--capacity 256M --ru-size 512K "$tmp/hdr.trace"
{ echo "# device capacity=512M"; cat "$tmp/ok.trace"; } >"$tmp/badhdr.trace"
check "refuses a malformed header" 1 "badhdr.trace:1: header: capacity is not a number" -- \
	--ru-size 1M "$tmp/badhdr.trace"
{ cat "$tmp/ok.trace"; echo "# device capacity=536870912"; } >"$tmp/latehdr.trace"
check "refuses a header after the records" 1 \
	"latehdr.trace:7: device header after the first record" -- \
	--capacity 512M --ru-size 1M "$tmp/latehdr.trace"
check "names a missing trace" 1 "no-such.trace: No such file" -- \
	--capacity 512M --ru-size 1M "$tmp/no-such.trace"
check "the field device preset" 0 \
	"device=field op=15 ru_pages=128 reclaim_units=1177 capacity_units=1024.0 " -- \
	--device field --capacity 512M "$tmp/ok.trace"
# A reclaim unit sweep on the field device at 7%: the units are reported,
# and a unit too large for the spare space says what it needs.
check "the field device at 7% with chosen reclaim units" 0 \
	"preconditioned device=field op=7 ru_pages=256 reclaim_units=547 capacity_units=512.0 " -- \
	--device field --op 7 --ru-size 1M --capacity 512M "$tmp/ok.trace"
check "reclaim units too large for the spare space: what it needs" 2 \
	"273 reclaim units of 512 pages; it needs 256 for the capacity, 8 open for host writes" \
	-- \
	--device field --op 7 --ru-size 2M --capacity 512M "$tmp/ok.trace"
# Every handle holds a unit, unless --lazy-units: on a device whose spare
# is a few units, random overwrites through one handle of 8 copy more.
dw_trace 4 0 >"$tmp/one-handle.trace"
check "every handle holds its unit by default" 0 \
	"handles=8 handle_units=held$" -- \
	--capacity 64M --ru-size 256K --op 10 --watermark 2 "$tmp/one-handle.trace"
check "--lazy-units: a handle takes a unit when it writes" 0 \
	"handles=8 handle_units=lazy$" -- \
	--capacity 64M --ru-size 256K --op 10 --watermark 2 --lazy-units "$tmp/one-handle.trace"
held=$("$sim" --capacity 64M --ru-size 256K --op 10 --watermark 2 "$tmp/one-handle.trace" |
	grep -o 'waf=[0-9.]*' | head -n 1)
lazy=$("$sim" --capacity 64M --ru-size 256K --op 10 --watermark 2 --lazy-units \
	"$tmp/one-handle.trace" | grep -o 'waf=[0-9.]*' | head -n 1)
n=$((n + 1))
if awk -v h="${held#waf=}" -v l="${lazy#waf=}" 'BEGIN { exit !(l > 1 && h > l * 1.05) }'; then
	echo "ok $n held units of 7 idle handles cost spare: $held against $lazy lazily"
else
	echo "not ok $n held units of 7 idle handles cost spare: $held against $lazy lazily"
	failed=$((failed + 1))
fi
check "refuses an unknown device preset" 2 "the only preset is 'field'" -- \
	--device lab --capacity 512M "$tmp/ok.trace"

# Timing: a write to idle flash takes the program time (within the 3%
# of the latency histogram's buckets); bad timing options are refused.
check "a write to idle flash takes the program time" 0 \
	"^timing load=1M .* write_iops=[0-9]+ lat_mean_us=200 lat_p50_us=(19[4-9]|200) " -- \
	--capacity 512M --ru-size 1M --offered-load 1M "$tmp/ok.trace"
check "refuses a bad --flash" 2 "flash is UNITS,READ_US,PROGRAM_US,ERASE_US" -- \
	--capacity 512M --flash 64,40 --offered-load max "$tmp/ok.trace"
check "refuses a bad --offered-load" 2 "offered-load is trace, max or BYTES per second" -- \
	--capacity 512M --offered-load fast "$tmp/ok.trace"

# The binary form: the same replay, and truncation told apart.
"$sim" --convert "$tmp/mixed.bin" "$tmp/mixed.trace" || echo "# --convert failed"
text=$("$sim" --capacity 64M --ru-size 128K --op 7 --oracle 0 "$tmp/mixed.trace" 2>&1)
bin=$("$sim" --capacity 64M --ru-size 128K --op 7 --oracle 0 "$tmp/mixed.bin" 2>&1)
n=$((n + 1))
if [ -n "$text" ] && [ "$text" = "$bin" ]; then
	echo "ok $n the binary form replays as the text"
else
	echo "not ok $n the binary form replays as the text"
	diff <(echo "$text") <(echo "$bin") | head -n 5 | sed 's/^/# /'
	failed=$((failed + 1))
fi
head -c 1000 "$tmp/mixed.bin" >"$tmp/part.bin"
check "rejects a partial binary record" 1 \
	"part.bin:40: truncated binary trace \(a partial record\)" -- \
	--capacity 64M --ru-size 128K "$tmp/part.bin"
head -c 1016 "$tmp/mixed.bin" >"$tmp/noend.bin"
check "rejects a binary trace without its end" 1 \
	"noend.bin:41: truncated binary trace \(no end record\)" -- \
	--capacity 64M --ru-size 128K "$tmp/noend.bin"
head -c 20 "$tmp/mixed.bin" >"$tmp/hdr.bin"
check "rejects a short binary header" 1 "hdr.bin:0: not an fdp-sim binary trace" -- \
	--capacity 64M --ru-size 128K "$tmp/hdr.bin"
"$sim" --convert "$tmp/hdr2.bin" "$tmp/hdr.trace"
check "the binary header keeps the disk size" 1 \
	"the trace is of a 536870912-byte disk, the model's is 268435456 bytes" -- \
	--capacity 256M --ru-size 512K "$tmp/hdr2.bin"
check "the binary header keeps the handle type" 0 "^gc_dest=shared gc_dest_from=trace" -- \
	--ru-size 1M "$tmp/hdr2.bin"
echo "1..$n"
[ "$failed" = 0 ]
