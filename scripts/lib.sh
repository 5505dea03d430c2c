# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts in this directory.  Sourced, not run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${FDP_BUILD:-$TOP/build}
SRC=$BUILD/src			# prepared kernel tree (a git repository)
BASE_VERSION=7.3		# the kernel release the series is written for

# Directories of this repository whose files are new kernel files, copied
# into the tree at the same path.
OVERLAY_DIRS="block drivers include fs lib kernel Documentation tools"

die() { echo "${0##*/}: error: $*" >&2; exit 1; }
note() { echo "${0##*/}: $*" >&2; }

# usage_from_header: print the leading comment block of the calling script.
usage_from_header() {
	sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"
}

# Accept --help/-h and reject unknown options for scripts with no options.
no_options() {
	case "${1:-}" in
	-h|--help) usage_from_header; exit 0 ;;
	"") ;;
	*) usage_from_header >&2; die "unknown option '$1'" ;;
	esac
}

need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 ||
			die "'$t' is missing: run scripts/install-deps"
	done
}

# Build scripts/rw-hint-fix.c (see there) and print the shim's path.
build_rw_hint_shim() {
	local so=$BUILD/rw-hint-fix.so src=$TOP/scripts/rw-hint-fix.c
	need gcc
	if [ ! -f "$so" ] || [ "$src" -nt "$so" ]; then
		mkdir -p "$BUILD" &&
		gcc -O2 -Wall -shared -fPIC -o "$so" "$src" -ldl >&2 || return 1
	fi
	echo "$so"
}

# The object directory of a build variant ("", "debug", "rt" or "jl").
objdir() {
	if [ -n "${1:-}" ]; then echo "$BUILD/obj-$1"; else echo "$BUILD/obj"; fi
}

# The option of scripts/build-kernel and scripts/vm-run that picks a build
# variant: --debug, --rt or --jump-labels; nothing for the plain build.
variant_option() {
	case ${1:-} in
	"") ;;
	jl) echo --jump-labels ;;
	*) echo "--$1" ;;
	esac
}
