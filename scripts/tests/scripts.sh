#!/usr/bin/env bash
# Host-side tests of the scripts' handling of bad input (TAP output):
# unknown options print usage and fail, a base tree of the wrong version
# is refused, a patch that does not apply names itself and its hunk, a
# missing tool is named, and a guest that hangs or panics fails the run
# with its console log kept instead of hanging the caller.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; shift; printf '# %s\n' "$@"; }
# expect NAME PATTERN CMD...: CMD must fail and print PATTERN (an
# extended regex; "A|&|B" asks for lines matching A and B).
expect() {
	local name=$1 pat=$2 out rc p okpat=1
	shift 2
	out=$("$@" 2>&1 </dev/null); rc=$?
	while read -r -d '&' p; do
		p=${p%|}; p=${p#|}
		grep -qE -- "$p" <<<"$out" || okpat=
	done <<<"$pat&"
	if [ "$rc" != 0 ] && [ -n "$okpat" ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc, wanted failure with /$pat/" "$(tail -n 5 <<<"$out")"
	fi
}

echo "TAP version 13"

for s in install-deps prepare-tree build-kernel vm-run run-tests export-series update-patches demo \
	bench-iostream scenario-iostream14 fdp-trace bench-fs-hints dbbench-hints waf-eval; do
	[ -x "$TOP/scripts/$s" ] || { not_ok "$s exists"; continue; }
	expect "$s rejects an unknown option" "unknown option.*--bogus" "$TOP/scripts/$s" --bogus
	out=$("$TOP/scripts/$s" --help 2>&1); rc=$?
	if [ "$rc" = 0 ] && grep -q "^Usage: scripts/$s" <<<"$out"; then
		ok "$s --help prints usage"
	else
		not_ok "$s --help prints usage" "exit $rc" "$(head -n 3 <<<"$out")"
	fi
done

# A throw-away copy of the scripts with a base and a series of our own.
mkrepo() {
	rm -rf "$tmp/repo" "$tmp/base"
	mkdir -p "$tmp/repo/patches" "$tmp/base/lib"
	cp -r "$TOP/scripts" "$tmp/repo/"
	printf 'VERSION = %s\nPATCHLEVEL = %s\n' "$1" "$2" >"$tmp/base/Makefile"
	printf 'one\ntwo\nthree\n' >"$tmp/base/lib/file.c"
	echo "# series" >"$tmp/repo/patches/series"
	echo "# map" >"$tmp/repo/patches/overlay.map"
}
mkpatch() {	# mkpatch NAME FROM TO: a patch turning line FROM into TO
	cat >"$tmp/repo/patches/$1" <<EOP
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Test <test@example.org>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] lib: change $2

---
 lib/file.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/lib/file.c b/lib/file.c
--- a/lib/file.c
+++ b/lib/file.c
@@ -1,3 +1,3 @@
 one
-$2
+$3
 three
EOP
	echo "$1" >>"$tmp/repo/patches/series"
}

mkrepo 6 12
expect "prepare-tree refuses a base of the wrong version" "Linux 6.12; this series is for 7.3" \
	env FDP_BUILD="$tmp/build" "$tmp/repo/scripts/prepare-tree" --base "$tmp/base"

mkrepo 7 3
mkpatch 0001-good.patch two TWO
mkpatch 0002-bad.patch nothing-like-this NEW
expect "prepare-tree names a patch that does not apply and its hunk" \
	"patch 0002-bad.patch does not apply|&|nothing-like-this" \
	env FDP_BUILD="$tmp/build" "$tmp/repo/scripts/prepare-tree" --base "$tmp/base"

mkrepo 7 3
mkpatch 0001-good.patch two TWO
mkdir -p "$tmp/repo/lib" && echo new >"$tmp/repo/lib/new.c"
expect "prepare-tree refuses an overlay file no patch owns" "lib/new.c is not assigned" \
	env FDP_BUILD="$tmp/build" "$tmp/repo/scripts/prepare-tree" --base "$tmp/base"
echo "0001-good.patch lib/new.c" >>"$tmp/repo/patches/overlay.map"
if out=$(FDP_BUILD="$tmp/build" "$tmp/repo/scripts/prepare-tree" --base "$tmp/base" 2>&1) &&
   [ "$(cat "$tmp/build/src/lib/new.c")" = new ] &&
   grep -qx TWO "$tmp/build/src/lib/file.c" &&
   [ "$(git -C "$tmp/build/src" log --format=%s -1)" = "lib: change two" ] &&
   [ "$(git -C "$tmp/build/src" show --name-only --format= HEAD | sort | tr '\n' ' ')" = "lib/file.c lib/new.c " ]; then
	ok "prepare-tree applies the series with its overlay files in the same commit"
else
	not_ok "prepare-tree applies the series with its overlay files in the same commit" "$out"
fi

# A missing tool is named.
mkdir -p "$tmp/bin"
for t in bash dirname basename cat sed mkdir pwd seq rm grep; do
	ln -sf "$(command -v $t)" "$tmp/bin/$t"
done
expect "vm-run names a missing QEMU" "'qemu-system-x86_64' is missing" \
	env PATH="$tmp/bin" "$TOP/scripts/vm-run" true
expect "vm-run rejects a bad handle count" "--handles must be a positive number" \
	"$TOP/scripts/vm-run" --handles x true
expect "bench-fs-hints rejects a bad round count" "--rounds and --runtime take positive numbers" \
	"$TOP/scripts/bench-fs-hints" --rounds 0 --no-build
expect "waf-eval refuses an unknown scenario" "unknown scenario 'nope'" \
	"$TOP/scripts/waf-eval" --scenario nope
expect "waf-eval refuses an unknown policy" "unknown policy 'nope'" \
	"$TOP/scripts/waf-eval" --policy none,nope
expect "bench-fs-hints refuses an unknown policy" "--policy takes hint or lifetime" \
	"$TOP/scripts/bench-fs-hints" --no-build --policy nope
expect "bench-fs-hints wants a value for --runtime" "--runtime needs a value" \
	"$TOP/scripts/bench-fs-hints" --runtime
expect "dbbench-hints rejects a bad key count" "--num takes a positive number" \
	"$TOP/scripts/dbbench-hints" --num x --no-build

# A guest that hangs is killed; one that panics is reported; both keep the log.
kernel=$TOP/build/obj/arch/x86/boot/bzImage
if [ -f "$kernel" ]; then
	expect "vm-run kills a hung guest and keeps its log" "timed out after 20s.*console log: .*console.log" \
		"$TOP/scripts/vm-run" --out "$tmp/hang" --timeout 20 -- sleep 600
	[ -s "$tmp/hang/console.log" ] && ok "hung guest's console log is kept" ||
		not_ok "hung guest's console log is kept"
	expect "vm-run reports a guest that panics" "guest died before the command finished.*console log" \
		"$TOP/scripts/vm-run" --out "$tmp/panic" --timeout 120 --append "init=/bin/false" -- true
	grep -q "Kernel panic" "$tmp/panic/console.log" && ok "panicked guest's log shows the panic" ||
		not_ok "panicked guest's log shows the panic"
	out=$("$TOP/scripts/vm-run" --out "$tmp/rc" -- sh -c 'echo from-the-guest; exit 7' 2>&1); rc=$?
	[ "$rc" = 7 ] && grep -q from-the-guest <<<"$out" && ok "vm-run returns the command's output and exit status" ||
		not_ok "vm-run returns the command's output and exit status" "exit $rc" "$out"
else
	not_ok "guest tests" "no kernel at $kernel"
fi

echo "1..$n"
[ "$failed" = 0 ]
