#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The timing model against seed 000's uneven-partitioning result (section
# 3.1): two sequential writers at the same rate, one over 5% of the space
# and one over the rest, on the field device, with and without a handle
# each, writes kept in flight (--offered-load max).  Published: WAF ~3 vs
# ~1, IOPS 3.3x, mean latency -70%, tail latency -77% with FDP.  Fails if
# the model gets a direction wrong (FDP not faster, or its tail not
# shorter); prints how close the sizes come.
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in fdp conv; do
	./tests/gen "$tmp/$m.bin" 262144 4 5 50 seq $([ $m = conv ] && echo mixed) || exit 1
	./fdp-sim --device field --offered-load max --warmup 2G "$tmp/$m.bin" >"$tmp/$m.out" ||
		exit 1
done
kv() { sed -n "s/.*[ ^]$1=\([0-9.]*\).*/\1/p; s/^$1=\([0-9.]*\).*/\1/p" "$tmp/$2.out" | head -n 1; }
awk -v wf="$(kv waf fdp)" -v wc="$(kv waf conv)" \
    -v if_="$(kv write_iops fdp)" -v ic="$(kv write_iops conv)" \
    -v mf="$(kv lat_mean_us fdp)" -v mc="$(kv lat_mean_us conv)" \
    -v tf="$(kv lat_p999_us fdp)" -v tc="$(kv lat_p999_us conv)" 'BEGIN {
	printf "uneven partitioning (seed 000 section 3.1), field device, "
	printf "64 units, 40/200/2000 us\n"
	printf "%-22s %10s %10s %12s\n", "", "published", "model", "model values"
	printf "%-22s %10s %10s %6.2f / %.2f\n", "WAF conv / FDP", "~3 / ~1", "", wc, wf
	printf "%-22s %10s %9.1fx %6.0f / %.0f\n", "IOPS FDP vs conv", "3.3x",
	       if_ / ic, if_, ic
	printf "%-22s %10s %+9.0f%% %6.0f / %.0f us\n", "mean latency", "-70%",
	       (mf / mc - 1) * 100, mf, mc
	printf "%-22s %10s %+9.0f%% %6.0f / %.0f us\n", "p99.9 latency", "-77%",
	       (tf / tc - 1) * 100, tf, tc
	ok = if_ > ic && tf < tc
	print "timing check: " (ok ? "PASS" : "FAIL") " (held to the direction only)"
	exit !ok }'
