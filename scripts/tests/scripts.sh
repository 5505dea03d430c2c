#!/usr/bin/env bash
# Host-side tests of the scripts' handling of bad input (TAP output):
# unknown options print usage and fail, a base tree of the wrong version
# is refused, a patch that does not apply names itself and its hunk, a
# missing tool is named, a guest that hangs or panics fails the run
# with its console log kept instead of hanging the caller, and the hot
# plug agent sends the QMP commands the guest asks for.
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
	bench-iostream scenario-iostream14 fdp-trace bench-fs-hints dbbench-hints waf-eval bench-insn build-deb xfstests \
	fresh-machine late-group-whatif; do
	[ -x "$TOP/scripts/$s" ] || { not_ok "$s exists"; continue; }
	expect "$s rejects an unknown option" "unknown option.*--bogus" "$TOP/scripts/$s" --bogus
	out=$("$TOP/scripts/$s" --help 2>&1); rc=$?
	if [ "$rc" = 0 ] && grep -q "^Usage: scripts/$s" <<<"$out"; then
		ok "$s --help prints usage"
	else
		not_ok "$s --help prints usage" "exit $rc" "$(head -n 3 <<<"$out")"
	fi
done

# fresh-machine removes its chroot at the end: it must never take a
# directory it did not make, nor one another run is using.
expect "fresh-machine refuses --dir /" "not a place for a chroot" \
	"$TOP/scripts/fresh-machine" --dir / true
mkdir -p "$tmp/fm/root/keep"
expect "fresh-machine keeps a DIR it did not make" "was not made by this script" \
	"$TOP/scripts/fresh-machine" --dir "$tmp/fm" true
[ -d "$tmp/fm/root/keep" ] && ok "fresh-machine left that DIR in place" ||
	not_ok "fresh-machine left that DIR in place"
mkdir -p "$tmp/fm2" && touch "$tmp/fm2/.fresh-machine"
expect "fresh-machine refuses a DIR another run holds" "in use by another run" \
	flock "$tmp/fm2/lock" "$TOP/scripts/fresh-machine" --dir "$tmp/fm2" true

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
mkmbox() {	# mkmbox NAME SUBJECT < DIFF: a patch of the series
	{ cat <<EOP
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Test <test@example.org>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] $2

---
EOP
	  cat; } >"$tmp/repo/patches/$1"
	echo "$1" >>"$tmp/repo/patches/series"
}
mkpatch() {	# mkpatch NAME FROM TO: a patch turning line FROM into TO
	mkmbox "$1" "lib: change $2" <<EOP
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

# A new file that a later patch changes: its final text is in the
# overlay, on the map's "final" line, and must be what the series makes.
mkrepo 7 3
mkmbox 0001-add.patch "lib: add new.c" <<'EOP'
 lib/new.c | 1 +
 1 file changed, 1 insertion(+)
 create mode 100644 lib/new.c

diff --git a/lib/new.c b/lib/new.c
new file mode 100644
index 0000000..3e75765
--- /dev/null
+++ b/lib/new.c
@@ -0,0 +1 @@
+new
EOP
mkmbox 0002-change.patch "lib: change new.c" <<'EOP'
 lib/new.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/lib/new.c b/lib/new.c
--- a/lib/new.c
+++ b/lib/new.c
@@ -1 +1 @@
-new
+newer
EOP
(cd "$tmp/repo" && git init -q && git add -A)
if out=$(FDP_BUILD="$tmp/build" "$tmp/repo/scripts/prepare-tree" --base "$tmp/base" 2>&1 &&
	 FDP_BUILD="$tmp/build" "$tmp/repo/scripts/update-patches" 2>&1) &&
   [ "$(cat "$tmp/repo/lib/new.c" 2>/dev/null)" = newer ] &&
   grep -qx "final lib/new.c" "$tmp/repo/patches/overlay.map" &&
   [ "$(cat "$tmp/repo/patches/series" | grep -c '^000')" = 2 ]; then
	ok "update-patches writes the final text of a new file that a later patch changes"
else
	not_ok "update-patches writes the final text of a new file that a later patch changes" "$out"
fi
out=$(FDP_BUILD="$tmp/build" "$tmp/repo/scripts/prepare-tree" --base "$tmp/base" 2>&1) &&
	ok "prepare-tree accepts the overlay's final text the series makes" ||
	not_ok "prepare-tree accepts the overlay's final text the series makes" "$out"
echo "edited" >"$tmp/repo/lib/new.c"
expect "prepare-tree refuses a final text the series does not make" \
	"lib/new.c: the series makes another text|&|\\+edited" \
	env FDP_BUILD="$tmp/build" "$tmp/repo/scripts/prepare-tree" --base "$tmp/base"
expect "update-patches refuses to overwrite an overlay edit build/src lacks" \
	"lib/new.c differs from build/src" \
	env FDP_BUILD="$tmp/build" "$tmp/repo/scripts/update-patches"
echo newer >"$tmp/repo/lib/new.c"
echo newest >"$tmp/build/src/lib/new.c"
git -C "$tmp/build/src" commit -q -a --fixup=HEAD
if out=$(GIT_SEQUENCE_EDITOR=true git -C "$tmp/build/src" rebase -q -i --autosquash fdp-base 2>&1 &&
	 FDP_BUILD="$tmp/build" "$tmp/repo/scripts/update-patches" 2>&1) &&
   [ "$(cat "$tmp/repo/lib/new.c")" = newest ]; then
	ok "update-patches copies back a final text changed in build/src"
else
	not_ok "update-patches copies back a final text changed in build/src" "$out"
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
expect "vm-run rejects a bad instruction-count shift" "--icount takes a shift from 0 to 9" \
	"$TOP/scripts/vm-run" --icount 12 true
expect "bench-fs-hints rejects a bad round count" "--rounds and --runtime take positive numbers" \
	"$TOP/scripts/bench-fs-hints" --rounds 0 --no-build
expect "scenario-iostream14 takes one overwrite pattern" "--seq and --randmap exclude each other" \
	"$TOP/scripts/scenario-iostream14" --seq --randmap
expect "scenario-iostream14 refuses a fill outside 1 to 1000 per mille" "--fill takes a share" \
	"$TOP/scripts/scenario-iostream14" --fill 1001
expect "scenario-iostream14 refuses an unknown map" "unknown map 'nope'" \
	"$TOP/scripts/scenario-iostream14" --maps none,nope
expect "waf-eval refuses an unknown scenario" "unknown scenario 'nope'" \
	"$TOP/scripts/waf-eval" --scenario nope
expect "waf-eval refuses an unknown policy" "unknown policy 'nope'" \
	"$TOP/scripts/waf-eval" --policy none,nope
mkdir -p "$tmp/waf" &&
	echo "host_pages=256 media_pages=256 gc_pages=0 waf=1.0000" >"$tmp/waf/rocksdb-xfs-lifetime.sim"
expect "waf-table names a run that lacks its run without placement" \
	"no simulation of rocksdb-xfs without placement|&|nothing to tabulate" \
	"$TOP/scripts/waf-table" "$tmp/waf" rocksdb-xfs
expect "bench-fs-hints refuses an unknown policy" "--policy takes hint or lifetime" \
	"$TOP/scripts/bench-fs-hints" --no-build --policy nope
expect "bench-fs-hints wants a value for --runtime" "--runtime needs a value" \
	"$TOP/scripts/bench-fs-hints" --runtime
expect "bench-fs-hints rejects a bad switch period" "--switch-every takes a number of seconds" \
	"$TOP/scripts/bench-fs-hints" --no-build --switch-every 2s
expect "bench-fs-hints runs an A/A comparison only by switching" "--policy none needs --switch-every" \
	"$TOP/scripts/bench-fs-hints" --no-build --policy none
expect "bench-fs-hints refuses an unknown mode" "--mode takes buffered, direct or both" \
	"$TOP/scripts/bench-fs-hints" --no-build --mode sync
expect "bench-fs-hints wants four switches in a run" "--runtime must cover at least four switches" \
	"$TOP/scripts/bench-fs-hints" --no-build --switch-every 10 --runtime 30
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

# QEMU that dies of a signal before the guest's command starts (as an
# assertion in a device model makes it) gets one more boot; a second
# death fails the run.  A fake QEMU aborts on its first N calls, then
# plays the guest: it writes the command's output and status.
mkdir -p "$tmp/fq"
cat >"$tmp/fq/qemu-system-x86_64" <<'EOQ'
#!/bin/bash
n=$(cat "$FAKE_QEMU_CALLS" 2>/dev/null || echo 0)
echo $((n + 1)) >"$FAKE_QEMU_CALLS"
[ "$n" -lt "$FAKE_QEMU_ABORTS" ] && kill -ABRT $$
for a in "$@"; do
	case $a in local,id=results,path=*) d=${a#local,id=results,path=}; d=${d%%,*} ;; esac
done
echo "from the second boot" >"$d/output"
echo 0 >"$d/rc"
EOQ
chmod +x "$tmp/fq/qemu-system-x86_64"
: >"$tmp/fq/bzImage"
out=$(FAKE_QEMU_CALLS=$tmp/fq/calls FAKE_QEMU_ABORTS=1 PATH="$tmp/fq:$PATH" \
	"$TOP/scripts/vm-run" --kernel "$tmp/fq/bzImage" --plain-size 0 --out "$tmp/fq/once" -- true 2>&1); rc=$?
[ "$rc" = 0 ] && grep -q "QEMU died (exit 134) before the guest's command started; booting again" <<<"$out" &&
	grep -q "from the second boot" <<<"$out" && [ -f "$tmp/fq/once/qemu-1.log" ] &&
	ok "vm-run boots again when QEMU dies before the command starts" ||
	not_ok "vm-run boots again when QEMU dies before the command starts" "exit $rc" "$(tail -n 5 <<<"$out")"
rm -f "$tmp/fq/calls"
expect "vm-run fails when QEMU dies twice" "guest died before the command finished \(QEMU exit 134\)" \
	env FAKE_QEMU_CALLS="$tmp/fq/calls" FAKE_QEMU_ABORTS=2 PATH="$tmp/fq:$PATH" \
	"$TOP/scripts/vm-run" --kernel "$tmp/fq/bzImage" --plain-size 0 --out "$tmp/fq/twice" -- true

# vm-hotplug turns the guest's requests into QMP commands, against a fake
# QMP server that records them, refuses an unknown id as QEMU does, and
# reports a deleted device a little after device_del returns ("stuck"
# never goes: the agent must give up).
cat >"$tmp/fake-qmp" <<'EOP'
import json, os, socket, sys, time
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(sys.argv[1]); srv.listen(1)
conn, _ = srv.accept()
log = open(sys.argv[2], "w", buffering=1)
conn.sendall(b'{"QMP": {"version": {}, "capabilities": []}}\n')
for line in conn.makefile():
    msg = json.loads(line)
    log.write(json.dumps(msg, sort_keys=True) + "\n")
    args = msg.get("arguments", {})
    if msg["execute"] == "device_del" and args.get("id") not in ("fdp0", "stuck"):
        reply = {"error": {"class": "DeviceNotFound",
                           "desc": "Device '%s' not found" % args.get("id")}}
    else:
        reply = {"return": {}}
    # An event first, not for a device: the agent must skip it.
    conn.sendall(b'{"event": "DEVICE_DELETED", "data": {"path": "/x"}}\n' +
                 json.dumps(reply).encode() + b"\n")
    if msg["execute"] == "device_del" and args.get("id") == "fdp0":
        time.sleep(0.3)
        conn.sendall(b'{"event": "DEVICE_DELETED", "data": {"device": "fdp0"}}\n')
EOP
mkdir -p "$tmp/hp"
python3 "$tmp/fake-qmp" "$tmp/hp/qmp.sock" "$tmp/hp/qmp.log" &
qpid=$!
VM_HOTPLUG_DELETE_TIMEOUT=1 "$TOP/scripts/vm-hotplug" "$tmp/hp/qmp.sock" "$tmp/hp" 2>/dev/null &
hpid=$!
ask() {	# REQUEST: the agent's answer
	rm -f "$tmp/hp/hotplug.ack"
	echo "$1" >"$tmp/hp/req.tmp" && mv "$tmp/hp/req.tmp" "$tmp/hp/hotplug.req"
	for _ in $(seq 1 100); do
		[ -f "$tmp/hp/hotplug.ack" ] && break
		sleep 0.1
	done
	cat "$tmp/hp/hotplug.ack" 2>/dev/null
}
a1=$(ask "del fdp0") a2=$(ask "add fdp0") a3=$(ask "del nosuch")
a4=$(ask "add nosuch") a5=$(ask "eject fdp0") a6=$(ask "del stuck")
# QEMU going away closes the socket: the agent must not outlive it.
kill $qpid 2>/dev/null
wait $qpid 2>/dev/null
for _ in $(seq 1 30); do
	kill -0 $hpid 2>/dev/null || break
	sleep 0.1
done
if kill -0 $hpid 2>/dev/null; then
	kill $hpid 2>/dev/null
	not_ok "vm-hotplug exits when QEMU closes QMP"
else
	ok "vm-hotplug exits when QEMU closes QMP"
fi
wait $hpid 2>/dev/null
want_log='{"execute": "qmp_capabilities"}
{"arguments": {"id": "fdp0"}, "execute": "device_del"}
{"arguments": {"driver": "nvme", "id": "fdp0", "serial": "fdp0", "subsys": "subsys0"}, "execute": "device_add"}
{"arguments": {"id": "nosuch"}, "execute": "device_del"}
{"arguments": {"id": "stuck"}, "execute": "device_del"}'
got_log=$(cat "$tmp/hp/qmp.log" 2>/dev/null)
[ "$a1" = ok ] && [ "$a2" = ok ] && [ "$got_log" = "$want_log" ] &&
	ok "vm-hotplug sends device_del and device_add of the FDP controller" ||
	not_ok "vm-hotplug sends device_del and device_add of the FDP controller" \
		"answers '$a1' '$a2'" "$got_log"
[ "$a3" = "error: Device 'nosuch' not found" ] &&
	[ "$a4" = "error: no device_add arguments for 'nosuch'" ] &&
	[[ $a5 == "error: want 'del ID' or 'add ID'"* ]] &&
	ok "vm-hotplug answers QMP's errors and bad requests with an error" ||
	not_ok "vm-hotplug answers QMP's errors and bad requests with an error" \
		"answers '$a3' '$a4' '$a5'"
[ "$a6" = "error: the guest did not eject stuck within 1 s" ] &&
	ok "vm-hotplug answers del only once QEMU reports the device deleted" ||
	not_ok "vm-hotplug answers del only once QEMU reports the device deleted" \
		"answer '$a6'"

# A failed kselftest subtest names what the test printed before it, so
# that a CI log shows why without the results directory.
mkdir -p "$tmp/sum"
cat >"$tmp/sum/kselftest.tap" <<'EOT'
TAP version 13
1..1
# selftests: fdp: some_test.sh
# 1..2
# # unrelated note
# ok 1 first check
# # 2 writes failed: Invalid argument
# not ok 2 second check
not ok 1 selftests: fdp: some_test.sh # exit=1
EOT
out=$("$TOP/scripts/tap-summary" "$tmp/sum" 2>&1)
if grep -qE '^FAIL kselftest: fdp: some_test\.sh.*: second check \(2 writes failed: Invalid argument\)$' <<<"$out" &&
   grep -qE '^PASS kselftest: fdp: some_test\.sh.*: first check$' <<<"$out"; then
	ok "tap-summary shows a failed subtest's diagnostics"
else
	not_ok "tap-summary shows a failed subtest's diagnostics" "$out"
fi

# A second guest's results (run-tests' boot with 512-byte sectors) count
# with the first's, named by the guest: its tests, and its kernel log,
# which fails the run on an oops; its KUnit suites are the first boot's
# again and do not count twice.
mkdir -p "$tmp/sum/guest-lba512"
cat >"$tmp/sum/guest-lba512/kselftest.tap" <<'EOT'
TAP version 13
1..1
# selftests: fdp: other_test.sh
ok 1 selftests: fdp: other_test.sh
EOT
printf '[    1.0] Oops: int3: 0000 [#1] SMP\n' >"$tmp/sum/guest-lba512/console.log"
printf '    ok 1 case\nok 1 suite\n' >"$tmp/sum/guest-lba512/kunit.log"
out=$("$TOP/scripts/tap-summary" "$tmp/sum" 2>&1)
rc=$?
if [ "$rc" = 1 ] &&
   grep -qE '^PASS kselftest\[lba512\]: fdp: other_test\.sh$' <<<"$out" &&
   grep -qE '^FAIL kernel: kernel_log_clean\[lba512\]' <<<"$out" &&
   grep -qE '^PASS kernel: kernel_log_clean$' <<<"$out" &&
   ! grep -q 'suite' <<<"$out" &&
   [ "$(tail -n 1 <<<"$out")" = "3 passed, 2 failed, 0 skipped" ]; then
	ok "tap-summary counts a second guest's tests and kernel log"
else
	not_ok "tap-summary counts a second guest's tests and kernel log" "rc $rc" "$out"
fi

# bench-insn's tables from a results directory: two runs of two
# policies, so that the change is the mean of the runs' differences
# with Student's t interval (t = 12.706 for one degree of freedom), and
# a compiler's copy of a decision point function counts as its own.
b=$tmp/binsn
mkdir -p "$b"
printf 'io_uring\n\n\nkernel=no-jump-labels\n' >"$b/settings"
cat >"$b/kallsyms" <<'EOT'
ffffffff81000000 T submit_bio
ffffffff81001000 T __bio_set_write_stream
ffffffff81002000 t bio_set_placed_write_stream.constprop.0
ffffffff81003000 T other
ffffffffa0000000 t lt_decide	[blk_lifetime]
ffffffffa0001000 t lt_end	[blk_lifetime]
EOT
printf '0 ext4 direct none 10 5 1\n1 ext4 direct lifetime 10 5 1\n' >"$b/MANIFEST"
printf '2 ext4 direct none 10 5 2\n3 ext4 direct lifetime 10 5 2\n' >>"$b/MANIFEST"
printf 'ffffffff81000010 900\ntotal 1000\n' >"$b/count.0"
printf 'ffffffff81001000 100\nffffffff81002004 50\nffffffffa0000008 40\ntotal 1300\n' >"$b/count.1"
printf 'ffffffff81000010 1000\ntotal 1100\n' >"$b/count.2"
printf 'ffffffff81001000 100\nffffffff81002004 50\nffffffffa0000008 40\ntotal 1200\n' >"$b/count.3"
out=$("$TOP/scripts/bench-insn" --report "$b" 2>&1)
want='| lifetime | 10 | 125 | +20 +- 127 (+19.0% +- 121.0%) | 15.0 | 4.0 | 0.0 | - | 5 | lt_decide 4 |'
if grep -qxF '| none | 10 | 105 |  | 0.0 | 0.0 | 0.0 | - | 5 |  |' <<<"$out" &&
   grep -qxF "$want" <<<"$out" &&
   grep -q 'the mean of 2 runs, on a kernel without jump labels\.' <<<"$out"; then
	ok "bench-insn reports the mean change of several runs with its interval"
else
	not_ok "bench-insn reports the mean change of several runs with its interval" "$out"
fi
want="Where lifetime's change goes, a write (mean over the runs of the difference from the same run's none): "
want+="submit_bio -95.0, __bio_set_write_stream +10.0, bio_set_placed_write_stream +5.0, lt_decide +4.0; "
want+="the rest of the kernel +0.0."
if grep -qxF "$want" <<<"$out"; then
	ok "bench-insn says where the change goes, function by function"
else
	not_ok "bench-insn says where the change goes, function by function" "$out"
fi

# Counts that hold each block's runs: a direct write is counted by the
# runs of __iomap_dio_rw()'s first block (two translations of it add),
# not by the disk's blocks; the I/O waits are the runs of the first
# block of io_schedule() or of a compiler's copy of io_schedule_timeout(),
# not of a later block.  Windows without runs fall back to blocks.
b=$tmp/binsn2
mkdir -p "$b"
printf 'psync\n\n\n' >"$b/settings"
cat >"$b/kallsyms" <<'EOT'
ffffffff81000000 T submit_bio
ffffffff81001000 T __iomap_dio_rw
ffffffff81004000 T io_schedule
ffffffff81005000 t io_schedule_timeout.constprop.0
ffffffff81006000 T __schedule
ffffffff81007000 T io_wq_enqueue
EOT
printf '0 ext4 direct none 99 5 1\n1 ext4 direct lifetime 99 5 1\n' >"$b/MANIFEST"
printf '2 xfs direct none 10 5 1\n3 xfs direct lifetime 10 5 1\n' >>"$b/MANIFEST"
printf 'ffffffff81000010 900 9\nffffffff81001000 60 6\nffffffff81001000 40 4\nffffffff81004000 30 6\nffffffff81004010 20 10\ntotal 1000\n' >"$b/count.0"
printf 'ffffffff81000010 900 9\nffffffff81001000 100 10\nffffffff81005000 12 3\nffffffff81005008 10 5\ntotal 1100\n' >"$b/count.1"
# Calls of the events: the runs of a function's first block, per write.
printf 'ffffffff81006000 5 3\n' >>"$b/count.0"
printf 'ffffffff81006000 5 5\nffffffff81006004 1 7\nffffffff81007000 2 1\n' >>"$b/count.1"
printf 'ffffffff81000010 900\ntotal 1000\n' >"$b/count.2"
printf 'ffffffff81000010 900\ntotal 1100\n' >"$b/count.3"
out=$("$TOP/scripts/bench-insn" --report "$b" 2>&1)
if grep -qxF '| none | 10 | 100 |  | 0.0 | 0.0 | 0.0 | 0.60 | 5 |  |' <<<"$out" &&
   grep -qxF '| lifetime | 10 | 110 | +10 (+10.0%) | 0.0 | 0.0 | 0.0 | 0.30 | 5 |  |' <<<"$out" &&
   grep -qF '| policy | writes | all |' <<<"$out" &&
   grep -qF '| policy | blocks | all |' <<<"$out" &&
   grep -qxF '| none | 10 | 100 |  | 0.0 | 0.0 | 0.0 | - | 5 |  |' <<<"$out"; then
	ok "bench-insn counts direct writes and I/O waits in the window from the blocks' runs"
else
	not_ok "bench-insn counts direct writes and I/O waits in the window from the blocks' runs" "$out"
fi
want="Calls per write, none then lifetime (mean over the runs): io-wq punts (io_wq_enqueue) 0.0000 and 0.1000, "
want+="device interrupts (__handle_irq_event_percpu) 0.0000 and 0.0000, timer interrupts (hrtimer_interrupt) "
want+="0.0000 and 0.0000, schedules (__schedule) 0.3000 and 0.5000."
if grep -qxF "$want" <<<"$out" && [ "$(grep -c '^Calls per write' <<<"$out")" = 1 ]; then
	ok "bench-insn gives the calls per write of events that follow a write's time, where counts have runs"
else
	not_ok "bench-insn gives the calls per write of events that follow a write's time, where counts have runs" "$out"
fi
if grep -q "held equal" <<<"$out"; then
	not_ok "bench-insn holds no punts equal where no run had one" "$out"
else
	ok "bench-insn holds no punts equal where no run had one"
fi
if grep -q 'random writes into 64 MiB files)\.$' <<<"$out"; then
	ok "bench-insn names no kernel for counts that do not say which"
else
	not_ok "bench-insn names no kernel for counts that do not say which" "$(head -n 1 <<<"$out")"
fi

# With io_uring, the change with each run's io-wq punts held equal: a
# run's instructions a write are 1000, 2000 a punt a write and 50 more
# under lifetime, plus noise that the fit cannot explain (+10 -20 +10
# under none, -10 +20 -10 under lifetime).  lifetime's runs have 0.1
# punt a write more, so the plain difference of the means (+250) is not
# the answer.  By hand: the noise's variance is 1200 / 3 = 400; the
# policy's column left after the intercept and the punts sums to
# 1.5 - 0.15^2 / 0.055 in squares, so the change's variance is 400 /
# 1.0909 = 366.7, and t(3) = 3.182 gives +- 60.9 (4.4% of none's 1400).
b3=$tmp/binsn3
mkdir -p "$b3"
printf 'io_uring\n\n\n' >"$b3/settings"
cat >"$b3/kallsyms" <<'EOT'
ffffffff81001000 T __iomap_dio_rw
ffffffff81007000 T io_wq_enqueue
EOT
: >"$b3/MANIFEST"
w=0
for row in "none 1 1 12100" "none 2 2 13800" "none 3 3 16100" \
	   "lifetime 1 2 14400" "lifetime 2 3 16700" "lifetime 3 4 18400"; do
	read -r pol run punts total <<<"$row"
	echo "$w ext4 direct $pol 10 5 $run" >>"$b3/MANIFEST"
	printf 'ffffffff81001000 10 10\nffffffff81007000 %d %d\ntotal %d\n' \
		"$punts" "$punts" "$total" >"$b3/count.$w"
	w=$((w + 1))
done
out=$("$TOP/scripts/bench-insn" --report "$b3" 2>&1)
want="With each window's io-wq punts a write held equal (least squares over the 6 windows of none and lifetime, 3 runs each): "
want+="lifetime's change +50 +- 61 a write (+3.6% +- 4.4% of none's mean), a punt 2000 instructions."
if grep -qxF "$want" <<<"$out"; then
	ok "bench-insn gives the change with each run's io-wq punts held equal"
else
	not_ok "bench-insn gives the change with each run's io-wq punts held equal" "$out"
fi

# --jump-labels boots the kernel and loads the module of build/obj-jl,
# and the report says the kernel had jump labels, as its .config does: a
# fake QEMU records its arguments and plays the guest with the counts
# above.  Nothing is built or booted.
j=$tmp/jl
mkdir -p "$j/build/obj-jl/arch/x86/boot" "$j/build/obj-jl/block/lifetime" "$j/bin"
echo 'ffffffff81248e10 T __x64_sys_sync' >"$j/build/obj-jl/System.map"
: >"$j/build/obj-jl/arch/x86/boot/bzImage"
: >"$j/build/obj-jl/block/lifetime/blk-lifetime.ko"
echo CONFIG_JUMP_LABEL=y >"$j/build/obj-jl/.config"
touch "$j/build/insn-count.so"
cat >"$j/bin/qemu-system-x86_64" <<EOQ
#!/bin/bash
printf '%s\n' "\$@" >"$j/qemu-args"
for a in "\$@"; do
	case \$a in local,id=results,path=*) d=\${a#local,id=results,path=}; d=\${d%%,*} ;; esac
done
cp "$b/kallsyms" "$b/MANIFEST" "$b"/count.* "\$d/"
: >"\$d/output"
echo 0 >"\$d/rc"
EOQ
chmod +x "$j/bin/qemu-system-x86_64"
out=$(FDP_BUILD=$j/build PATH="$j/bin:$PATH" "$TOP/scripts/bench-insn" --jump-labels --no-build \
	--policies "none lifetime" --fs "ext4 xfs" --mode direct --engine psync 2>&1); rc=$?
if [ "$rc" = 0 ] && grep -qx -- "$j/build/obj-jl/arch/x86/boot/bzImage" "$j/qemu-args" &&
   grep -qF "$j/build/obj-jl/block/lifetime/blk-lifetime.ko" "$j/build/vm/bench-insn-jl/cmd" &&
   grep -qx 'kernel=jump-labels' "$j/build/vm/bench-insn-jl/settings" &&
   grep -q 'random writes into 64 MiB files), on a kernel with jump labels\.$' <<<"$out"; then
	ok "bench-insn --jump-labels boots build/obj-jl's kernel and module and says so"
else
	not_ok "bench-insn --jump-labels boots build/obj-jl's kernel and module and says so" "exit $rc" \
		"$(tail -n 5 <<<"$out")"
fi
rm "$j/build/obj-jl/block/lifetime/blk-lifetime.ko"
expect "bench-insn refuses a build without the module before it boots" \
	"no kernel or no blk-lifetime.ko in .*obj-jl: run scripts/build-kernel --jump-labels" \
	env FDP_BUILD="$j/build" PATH="$j/bin:$PATH" "$TOP/scripts/bench-insn" --jump-labels --no-build \
	--fs ext4 --mode direct
[ -f "$j/build/vm/bench-insn-jl/results.md" ] &&
	ok "bench-insn keeps the last run's counts when it cannot boot" ||
	not_ok "bench-insn keeps the last run's counts when it cannot boot"
expect "bench-insn --jump-labels wants the kernel of build-kernel --jump-labels" \
	"obj-jl/System.map: run scripts/build-kernel --jump-labels" \
	env FDP_BUILD="$tmp/nobuild" "$TOP/scripts/bench-insn" --jump-labels --no-build \
	--fs ext4 --mode direct

# Without --no-build, --jump-labels has build-kernel build build/obj-jl,
# without the kselftests: a copy of the scripts whose prepare-tree and
# build-kernel only record how they were called.
k=$tmp/bk
mkdir -p "$k"
cp -a "$TOP/scripts" "$k/"
printf '#!/bin/sh\nexit 0\n' >"$k/scripts/prepare-tree"
printf '#!/bin/sh\necho "$*" >"%s/build-args"\nexit 1\n' "$k" >"$k/scripts/build-kernel"
expect "bench-insn stops when the build fails" "build failed" \
	env FDP_BUILD="$k/build" "$k/scripts/bench-insn" --jump-labels --fs ext4 --mode direct
grep -qx -- "--jump-labels --no-selftests" "$k/build-args" 2>/dev/null &&
	ok "bench-insn --jump-labels builds with build-kernel --jump-labels" ||
	not_ok "bench-insn --jump-labels builds with build-kernel --jump-labels" \
		"$(cat "$k/build-args" 2>/dev/null)"

# run-tests --jump-labels builds and boots the kernel with jump labels,
# with the plain kernel's timeouts: the same copy of the scripts, whose
# build-kernel and vm-run only record how they were called.
printf '#!/bin/sh\necho "$*" >"%s/build-args"\nexit 0\n' "$k" >"$k/scripts/build-kernel"
printf '#!/bin/sh\necho "$*" >>"%s/vm-args"\nexit 0\n' "$k" >"$k/scripts/vm-run"
rm -f "$k/build-args" "$k/vm-args"
FDP_BUILD="$k/build" "$k/scripts/run-tests" --jump-labels --no-install --guest-only >/dev/null 2>&1
if grep -qx -- "--jump-labels" "$k/build-args" 2>/dev/null &&
   grep -q -- "^--jump-labels --out $k/build/vm/tests-jl --timeout 1800 -- scripts/guest-run-tests $k/build/obj-jl/kselftest_install" \
	"$k/vm-args" 2>/dev/null &&
   grep -q -- "^--jump-labels --lba-size 512 " "$k/vm-args"; then
	ok "run-tests --jump-labels builds and boots build/obj-jl with the plain timeouts"
else
	not_ok "run-tests --jump-labels builds and boots build/obj-jl with the plain timeouts" \
		"$(cat "$k/build-args" "$k/vm-args" 2>/dev/null)"
fi
rm -f "$k/build-args" "$k/vm-args"
FDP_BUILD="$k/build" "$k/scripts/run-tests" --rt --no-install --guest-only >/dev/null 2>&1
grep -qx -- "--rt" "$k/build-args" 2>/dev/null &&
   grep -q -- "^--rt --out $k/build/vm/tests-rt --timeout 7200 -- " "$k/vm-args" 2>/dev/null &&
	ok "run-tests --rt builds and boots build/obj-rt with raised timeouts" ||
	not_ok "run-tests --rt builds and boots build/obj-rt with raised timeouts" \
		"$(cat "$k/build-args" "$k/vm-args" 2>/dev/null)"

# late-group-whatif: the group's stream loses the moved cgroup's earlier
# writes (--moved), and the group's writes after the mark join it
# (--early); the other lines pass unchanged.
cat >"$tmp/lg.trace" <<'EOT'
1.0 259,3 W 0 8 2 policy 10
1.1 259,3 W 8 8 3 policy 11
# mark run
2.0 259,3 W 16 8 0 default 20
3.0 259,3 W 24 8 3 policy 20
3.1 259,3 W 8 8 2 policy 11
EOT
out=$("$TOP/scripts/late-group-whatif" --group 20 --moved --early "$tmp/lg.trace" 2>"$tmp/lg.err")
want=$(printf '%s\n' "1.0 259,3 W 0 8 2 policy 10" "1.1 259,3 W 8 8 2 policy 11" "# mark run" \
	"2.0 259,3 W 16 8 3 default 20" "3.0 259,3 W 24 8 3 policy 20" "3.1 259,3 W 8 8 2 policy 11")
if [ "$out" = "$want" ] && grep -q 'stream 3; moved: 11->2' "$tmp/lg.err"; then
	ok "late-group-whatif moves the displaced cgroup's writes and the group's early ones"
else
	not_ok "late-group-whatif moves the displaced cgroup's writes and the group's early ones" "$out" "$(cat "$tmp/lg.err")"
fi
out=$("$TOP/scripts/late-group-whatif" --group 20 "$tmp/lg.trace" 2>/dev/null)
[ "$out" = "$(cat "$tmp/lg.trace")" ] && ok "late-group-whatif with no change asked prints the trace as it was" ||
	not_ok "late-group-whatif with no change asked prints the trace as it was" "$out"
expect "late-group-whatif needs a run mark" 'no "run" mark' \
	sh -c "grep -v mark '$tmp/lg.trace' | '$TOP/scripts/late-group-whatif' --group 20"

echo "1..$n"
[ "$failed" = 0 ]
