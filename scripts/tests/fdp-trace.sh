#!/usr/bin/env bash
# Host-side tests of scripts/fdp-trace (TAP output): the records it makes
# of block_write_stream events, the streams --choose puts in them from
# the block_write_stream_shadow events (shadow policies, maps by key and
# by cgroup), the agreement --agree counts, and the errors, with line
# numbers, on writes without a shadow event and on malformed input.  Small
# hand-written "trace-cmd report" excerpts; runs in seconds.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FT=$TOP/scripts/fdp-trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; shift; printf '# %s\n' "$@"; }

# same NAME WANT CMD...: CMD succeeds and prints exactly WANT.
same() {
	local name=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" = 0 ] && [ "$out" = "$want" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc" "got:" "$out" "wanted:" "$want"
	fi
}
# fails NAME STATUS PATTERN CMD...: CMD exits with STATUS and prints
# PATTERN (an extended regex) on standard error.  The records before an
# error may have been written, as for any stream.
fails() {
	local name=$1 st=$2 pat=$3 rc
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ "$rc" = "$st" ] && grep -qE -- "$pat" "$tmp/err"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, wanted $st with /$pat/" "$(cat "$tmp/err" "$tmp/out" | head -n 5)"
	fi
}

echo "TAP version 13"

# A run with two policies in shadow.  The write at line 4 has its shadow
# event after another CPU's events (line 8); two writes of the same range
# (lines 9 and 11) are paired in order; a discard (line 6) and a flush
# (line 13) have no shadow event, and neither does anything before the
# trace began (line 2).
cat >"$tmp/run.txt" <<'EOF'
cpus=2
              dd-253   [001]    12.100000: block_write_stream_shadow: 259,1 8 + 8 key=0 lifetime=7 hint=0
# mark run
              dd-253   [001]    12.115689: block_write_stream:   259,1 W 0 + 128 stream=0 rule=default cgroup=1
              kw-20    [000]    12.115690: block_write_stream:   259,1 WS 4096 + 8 stream=2 rule=fs cgroup=77
      blkdiscard-255   [000]    12.115691: block_write_stream:   259,1 DS 512 + 64 stream=0 rule=none cgroup=1
              kw-20    [000]    12.115692: block_write_stream_shadow: 259,1 4096 + 8 key=6 lifetime=2 hint=2
              dd-253   [001]    12.116344: block_write_stream_shadow: 259,1 0 + 128 key=3 lifetime=5 hint=5
              dd-253   [001]    12.122445: block_write_stream:   259,1 W 128 + 128 stream=0 rule=default cgroup=55
              dd-253   [001]    12.122457: block_write_stream_shadow: 259,1 128 + 128 key=0 lifetime=4 hint=1
              dd-253   [001]    12.123981: block_write_stream:   259,1 W 128 + 128 stream=0 rule=default cgroup=55
              dd-253   [001]    12.123987: block_write_stream_shadow: 259,1 128 + 128 key=7 lifetime=0 hint=3
              dd-253   [001]    12.124000: block_write_stream:   259,1 FWS 0 + 0 stream=0 rule=default cgroup=1
              dd-253   [001]    12.124001: block_write_stream_shadow: 259,1 0 + 0 key=0 lifetime=0 hint=0
EOF
rec() {	# the run's records with STREAM1..STREAM4 for its four writes
	printf '%s\n' "# mark run" \
		"12.115689 259,1 W 0 128 $1 default 1" \
		"12.115690 259,1 W 4096 8 $2 fs 77" \
		"12.115691 259,1 D 512 64 0 none 1" \
		"12.122445 259,1 W 128 128 $3 default 55" \
		"12.123981 259,1 W 128 128 $4 default 55"
}

same "live: the streams the writes got; shadow events ignored" "$(rec 0 2 0 0)" "$FT" "$tmp/run.txt"
same "--choose live is the default" "$(rec 0 2 0 0)" "$FT" --choose live "$tmp/run.txt"
same "--choose none: every write on stream 0" "$(rec 0 0 0 0)" "$FT" --choose none "$tmp/run.txt"
same "--choose shadow:lifetime: its choices, paired across CPUs and in order" \
	"$(rec 5 2 4 0)" "$FT" --choose shadow:lifetime "$tmp/run.txt"
same "--choose shadow:hint: the other policy's choices" \
	"$(rec 5 2 1 3)" "$FT" --choose shadow:hint "$tmp/run.txt"
same "--choose shadow reads standard input too" \
	"$(rec 5 2 4 0)" "$FT" --choose shadow:lifetime <"$tmp/run.txt"
# Keys 3, 6, 0, 7: key 3 is "-", key 7 is past the list.
same "--choose key-map: stream by key, '-' and missing keys 0" \
	"$(rec 0 9 1 0)" "$FT" --choose key-map:1,0,4,-,6,7,9 "$tmp/run.txt"
same "--choose cgroup-map: stream by cgroup, other cgroups 0" \
	"$(rec 0 3 6 6)" "$FT" --choose cgroup-map:55=6,77=3 "$tmp/run.txt"
same "--choose keeps the header of --capacity" \
	"$(printf '# device capacity=4096\n'; rec 5 2 4 0)" \
	"$FT" --capacity 4096 --choose shadow:lifetime "$tmp/run.txt"
# lifetime agrees with the live stream on the fs write (8 sectors) and
# the last write (128); hint on the fs write only.
same "--agree shadow:lifetime counts the bytes where shadow and live agree" \
	"agree_bytes=69632 total_bytes=200704" "$FT" --agree shadow:lifetime "$tmp/run.txt"
same "--agree shadow:hint" \
	"agree_bytes=4096 total_bytes=200704" "$FT" --agree shadow:hint "$tmp/run.txt"

# A write whose shadow event never comes.
sed '12d' "$tmp/run.txt" >"$tmp/lost.txt"
fails "a write without a shadow event is an error with its line" 1 \
	"lost.txt:11: no block_write_stream_shadow event" \
	"$FT" --choose shadow:lifetime "$tmp/lost.txt"
fails "--agree: the same error" 1 "lost.txt:11: no block_write_stream_shadow" \
	"$FT" --agree shadow:hint "$tmp/lost.txt"
fails "--choose key-map: the same error" 1 "lost.txt:11: no block_write_stream_shadow" \
	"$FT" --choose key-map:1 "$tmp/lost.txt"
same "--choose cgroup-map needs no shadow event" "$(rec 0 3 6 6)" \
	"$FT" --choose cgroup-map:55=6,77=3 "$tmp/lost.txt"
fails "a policy that was not in shadow is an error at its event" 1 \
	"run.txt:7: no choice of shadow policy lifetim for the write of .*run.txt:5" \
	"$FT" --choose shadow:lifetim "$tmp/run.txt"
sed 's/key=6 lifetime=2/key=6 lifetime=x/' "$tmp/run.txt" >"$tmp/bad1.txt"
fails "a malformed choice stops with its line" 1 "bad1.txt:7: not a block_write_stream_shadow event" \
	"$FT" --choose shadow:hint "$tmp/bad1.txt"
sed 's/128 key=3 /128 3 /' "$tmp/run.txt" >"$tmp/bad2.txt"
fails "a shadow event without its key stops with its line" 1 \
	"bad2.txt:8: not a block_write_stream_shadow event" \
	"$FT" --choose key-map:1 "$tmp/bad2.txt"
sed 's/W 128 + 128 stream=0/W 128 + 128 stream=a/' "$tmp/run.txt" >"$tmp/bad3.txt"
fails "a malformed decision event still stops with its line" 1 \
	"bad3.txt:9: not a block_write_stream event" "$FT" --choose shadow:hint "$tmp/bad3.txt"

for spec in "" bogus shadow: "shadow:a b" key-map: key-map:1,,2 key-map:256 key-map:x \
	    cgroup-map: cgroup-map:1 cgroup-map:x=1 cgroup-map:1=2, none:1; do
	fails "--choose '$spec' is refused" 2 "--choose is live, none" \
		"$FT" --choose "$spec" "$tmp/run.txt"
done
for spec in "" hint shadow: live; do
	fails "--agree '$spec' is refused" 2 "--agree takes shadow:NAME" \
		"$FT" --agree "$spec" "$tmp/run.txt"
done
fails "--agree does not combine with --choose" 2 "not with --choose" \
	"$FT" --agree shadow:hint --choose none "$tmp/run.txt"

echo "1..$n"
[ "$failed" = 0 ]
