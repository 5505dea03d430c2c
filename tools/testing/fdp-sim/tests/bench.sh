#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: replay a generated trace of 8 Mi logical pages (32 GiB)
# filled once and overwritten 3 times (80% of the writes to a fifth of the
# space through their own stream), at 7% over-provisioning with 8 MiB
# reclaim units, from its binary form, with the offline bound (death-time
# binning), its search cut at 48 binnings (one replay each; the whole
# search takes minutes here).  Fails unless the replay runs at 5 M host
# page writes per second of CPU time or more, and the peak resident
# memory, bound included, is at most 16 bytes per logical page; prints
# the rate of the whole run with the bound's search.
# Rates per wall-clock second are printed too: on a loaded machine they
# say more about the load than about fdp-sim.
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pages=${BENCH_PAGES:-8388608}
./tests/gen "$tmp/bench.bin" "$pages" 3 20 80 || exit 1
out=$(./fdp-sim --op 7 --ru-size 8M --resources --oracle 0 --bound-max 48 "$tmp/bench.bin") ||
	exit 1
echo "$out" | grep -E '^(gc_dest|host_pages|oracle_waf)=|^# offline bound'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "$out" | awk -F'[ =]' -v pages="$pages" '/^(oracle_waf|replay_cpu_s)=/ {
	for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
}
END {
	n = v["trace_write_pages"]
	printf "replay: %.2f M host page writes/s of CPU time, %.2f M/s of wall time\n",
		n / v["replay_cpu_s"] / 1e6, n / v["replay_wall_s"] / 1e6
	printf "with the offline bound (backward pass and %d replays): ", v["bound_binnings"]
	printf "%.2f M/s of CPU time, %.2f M/s of wall time\n",
		n / v["total_cpu_s"] / 1e6, n / v["total_wall_s"] / 1e6
	printf "peak RSS %d KiB: %.2f bytes per logical page (%d pages)\n",
		v["peak_rss_kib"], v["rss_bytes_per_page"], pages
	rate = n / v["replay_cpu_s"]
	ok = rate >= 5e6 && v["rss_bytes_per_page"] <= 16
	print (ok ? "bench: PASS" : "bench: FAIL") \
		" (wants >= 5 M host page writes/s of CPU time, <= 16 B/page)"
	exit !ok }'
