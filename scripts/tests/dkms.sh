#!/usr/bin/env bash
# Host-side tests of the out-of-tree module build (TAP): the top-level
# Kbuild and dkms.conf.  DKMS adds, builds and installs blk-lifetime.ko
# against the kernel build in build/obj (--kernelsourcedir; a distribution
# would use its linux-headers package), in trees of its own, so nothing
# outside build/ changes.  The installed module must carry that kernel's
# version magic and load in the guest booted from that kernel, where it
# must offer the lifetime policy.  Headers without the series, and a
# kernel whose build lacks one of the series' exported hooks, must stop
# the build with a message naming what is missing.
#
# FDP_DKMS_HEADERS and FDP_DKMS_KERNEL point the test at another kernel:
# the directory DKMS builds against (an unpacked linux-headers package,
# as scripts/build-deb --boot-test gives it) and the kernel image to boot.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OBJ=${FDP_DKMS_HEADERS:-${FDP_BUILD:-$TOP/build}/obj}
image=${FDP_DKMS_KERNEL:-$OBJ/arch/x86/boot/bzImage}
if [ -n "${FDP_DKMS_HEADERS:-}" ] && [ -z "${FDP_DKMS_KERNEL:-}" ]; then
	echo "dkms.sh: FDP_DKMS_HEADERS needs FDP_DKMS_KERNEL, the kernel those headers are of" >&2
	exit 2
fi
# Under build/, which the guest sees (its /tmp is its own).
work=${FDP_BUILD:-$TOP/build}/tests/dkms
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; shift; printf '%s\n' "$@" | sed 's/^/# /'; }
finish() { echo "1..$n"; [ "$failed" = 0 ]; exit; }

echo "TAP version 13"
if ! command -v dkms >/dev/null; then
	not_ok "dkms is installed" "run scripts/install-deps"
	finish
fi
if [ ! -f "$OBJ/Module.symvers" ] || [ ! -f "$OBJ/include/config/kernel.release" ]; then
	not_ok "a built kernel or its headers in $OBJ" "run scripts/build-kernel"
	finish
fi
kver=$(cat "$OBJ/include/config/kernel.release")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' "$TOP/dkms.conf")

# The package's source: what dkms.conf says to copy to /usr/src.
rm -rf "$work"
mkdir -p "$work/pkg/block" "$work/usr-src" "$work/var-lib-dkms" "$work/lib-modules/$kver"
cp "$TOP/Kbuild" "$TOP/dkms.conf" "$work/pkg/" &&
	cp -r "$TOP/block/lifetime" "$work/pkg/block/" || exit 1
d() {
	dkms --dkmstree "$work/var-lib-dkms" --sourcetree "$work/usr-src" \
	     --installtree "$work/lib-modules" "$@"
}

out=$(d add "$work/pkg" 2>&1) && ok "dkms add" || not_ok "dkms add" "$out"
out=$(d install "$name/$ver" -k "$kver" --kernelsourcedir "$OBJ" --no-depmod 2>&1); rc=$?
log=$work/var-lib-dkms/$name/$ver/build/make.log
ko=$(find "$work/lib-modules/$kver" -name 'blk-lifetime.ko*' 2>/dev/null | head -n 1)
if [ "$rc" = 0 ] && [ -n "$ko" ]; then
	ok "dkms install builds and installs blk-lifetime for $kver"
else
	not_ok "dkms install builds and installs blk-lifetime for $kver" "exit $rc" \
		"$(tail -n 5 <<<"$out")" "$(tail -n 15 "$log" 2>/dev/null)"
	finish
fi
st=$(d status "$name/$ver" -k "$kver" 2>&1)
grep -q "$name/$ver, $kver, .*: installed" <<<"$st" &&
	ok "dkms status says installed" || not_ok "dkms status says installed" "$st"
vm=$(modinfo -F vermagic "$ko" 2>&1)
[ "${vm%% *}" = "$kver" ] && ok "the module's vermagic is $kver" ||
	not_ok "the module's vermagic is $kver" "vermagic: $vm"

# The installed module loads in the kernel it was built for and
# registers its policy, shown on the disk with write streams (the NVMe
# controllers may probe in either order).
guest='p=; for q in /sys/block/nvme*/queue; do
		[ "$(cat $q/max_write_streams)" -gt 0 ] && p=$q/write_stream_policy && break
	done; [ -n "$p" ] &&
	! grep -qw lifetime "$p" && insmod "$0" && cat "$p" && rmmod blk_lifetime'
if [ -f "$image" ]; then
	out=$("$TOP/scripts/vm-run" --kernel "$image" --out "$work/vm" --timeout 300 -- \
		sh -c "$guest" "$ko" 2>&1); rc=$?
	[ "$rc" = 0 ] && grep -q '^\[none\] .*lifetime' <<<"$out" &&
		ok "the installed module loads in the guest and offers the lifetime policy" ||
		not_ok "the installed module loads in the guest and offers the lifetime policy" \
			"exit $rc" "$(tail -n 5 <<<"$out")"
else
	not_ok "the installed module loads in the guest" "no kernel image $image"
fi

# A kernel without one of the hooks: the same build against its exports.
grep -vw blk_stream_register_policy "$OBJ/Module.symvers" >"$work/Module.symvers.nohook"
out=$(FDP_SYMVERS=$work/Module.symvers.nohook \
	make -C "$OBJ" M="$work/pkg" modules 2>&1); rc=$?
[ "$rc" != 0 ] && grep -q "cannot take blk-lifetime: it does not export the series' hooks blk_stream_register_policy" <<<"$out" &&
	ok "a kernel without the series' hooks is refused by name" ||
	not_ok "a kernel without the series' hooks is refused by name" "exit $rc" "$(tail -n 5 <<<"$out")"

# The PREEMPT_RT kernel (scripts/build-kernel --rt), when it was built:
# the policy supports RT, so the out-of-tree build must not refuse it.
rt=${FDP_BUILD:-$TOP/build}/obj-rt
if [ -z "${FDP_DKMS_HEADERS:-}" ] && grep -qx CONFIG_PREEMPT_RT=y "$rt/.config" 2>/dev/null &&
   [ -f "$rt/Module.symvers" ]; then
	rm -rf "$work/rt" && cp -r "$work/pkg" "$work/rt"
	out=$(make -C "$rt" M="$work/rt" modules 2>&1); rc=$?
	vm=$(modinfo -F vermagic "$work/rt/block/lifetime/blk-lifetime.ko" 2>&1)
	[ "$rc" = 0 ] && [[ "$vm" == *preempt_rt* ]] &&
		ok "the module builds out of tree against the PREEMPT_RT kernel" ||
		not_ok "the module builds out of tree against the PREEMPT_RT kernel" \
			"exit $rc" "$(tail -n 5 <<<"$out")" "vermagic: $vm"
else
	why="no RT build (scripts/build-kernel --rt)"
	[ -z "${FDP_DKMS_HEADERS:-}" ] || why="the test runs against other headers"
	n=$((n + 1)); echo "ok $n the module builds out of tree against the PREEMPT_RT kernel # SKIP $why"
fi

# Headers of a kernel without the series (Kbuild read as kbuild reads
# it, with the tree's srctree and configuration).
mkdir -p "$work/no-series/include/linux"
out=$(make -f "$TOP/Kbuild" srctree="$work/no-series" CONFIG_MODULES=y CONFIG_FS_WRITE_CLASS=y 2>&1); rc=$?
[ "$rc" != 0 ] && grep -q "cannot take blk-lifetime: its headers .* lack include/linux/blk-stream.h" <<<"$out" &&
	ok "headers without the series are refused by name" ||
	not_ok "headers without the series are refused by name" "exit $rc" "$out"

d remove "$name/$ver" --all --no-depmod >/dev/null 2>&1
rm -f "$work"/vm/*.img
[ -z "$(find "$work/lib-modules" -name 'blk-lifetime.ko*')" ] &&
	ok "dkms remove takes the module away" || not_ok "dkms remove takes the module away"
finish
