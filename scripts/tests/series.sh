#!/usr/bin/env bash
# Host-side test of the patch series (TAP): it exports as a self-contained
# series that git am applies to a clean base and that checkpatch.pl
# --strict passes.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
echo "1..2"
out=$("$TOP/scripts/export-series" "$tmp/series" 2>&1)
if grep -q "git am: all .* patches apply" <<<"$out"; then
	echo "ok 1 series applies to a clean base with git am"
else
	echo "not ok 1 series applies to a clean base with git am"
	sed 's/^/# /' <<<"$out" | tail -n 30
fi
if grep -q "checkpatch --strict: clean" <<<"$out"; then
	echo "ok 2 every patch passes checkpatch --strict"
else
	echo "not ok 2 every patch passes checkpatch --strict"
	sed 's/^/# /' <<<"$out" | tail -n 40
fi
