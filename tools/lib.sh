# Shared helpers for the tools/ scripts; sourced, never run.
# shellcheck shell=bash

SYNCWAY_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SYNCWAY_CACHE=${SYNCWAY_CACHE:-/var/cache/syncway}
# The kernels every flavour is built from, one per family: Debian's
# linux-source-6.12 (bookworm's security archive keeps a few 6.12.x versions)
# and linux-source-7.3 (trixie-backports keeps a few 7.x ones). The exact
# versions are pinned to keep results comparable.
SYNCWAY_KERNEL_PKG_VERSION=${SYNCWAY_KERNEL_PKG_VERSION:-6.12.118-1~deb12u1}
SYNCWAY_KERNEL_7_3_PKG_VERSION=${SYNCWAY_KERNEL_7_3_PKG_VERSION:-7.3.4-1~bpo13+1}
SYNCWAY_SUITE=${SYNCWAY_SUITE:-trixie}
SYNCWAY_MIRROR=${SYNCWAY_MIRROR:-http://deb.debian.org/debian}

prog=${prog:-$(basename "$0")}

die() {
	printf '%s: error: %s\n' "$prog" "$*" >&2
	exit 1
}

say() {
	printf '%s: %s\n' "$prog" "$*" >&2
}

need_root() {
	[ "$(id -u)" = 0 ] || die "must run as root (it installs packages, chroots and mounts)"
}

apt_updated=
# apt_install PKG...: install the Debian packages that are not there yet.
apt_install() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "${p%%=*}" 2>/dev/null | grep -q '^install ok installed$' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	need_root
	say "installing on the host: ${missing[*]}"
	if [ -z "$apt_updated" ]; then
		apt-get update -q >/dev/null || die "apt-get update failed"
		apt_updated=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
		>/dev/null || die "apt-get install ${missing[*]} failed"
}

# patch_code FILE: a patch file's diff, without its message and headers:
# what a build of it depends on, so that a reworded or renumbered patch
# (a re-roll) keeps the kernels and results kept for it.
patch_code() {
	sed -n '/^diff --git /,$p' "$1"
}

# hash_files FILE...: one short digest over the contents of the files, in order.
hash_files() {
	cat "$@" | sha256sum | cut -c1-16
}

root_dir() {
	printf '%s/root\n' "$SYNCWAY_CACHE"
}

kernel_dir() {
	printf '%s/kernels/%s\n' "$SYNCWAY_CACHE" "$1"
}

# Kernel flavours: base (unpatched), patched (with the series), debug-base
# and debug (the same with KASAN, kmemleak, lockdep and fault injection), of
# Linux 6.12; the same names ending in -7.3 are of Linux 7.3.
kernel_families="6.12 7.3"
kernel_flavours="base patched debug-base debug base-7.3 patched-7.3 debug-base-7.3 debug-7.3"
# built only when asked for (tools/build-kernel NAME, tools/report --hardened)
kernel_flavours_optional="hardened-base hardened-patched hardened-base-7.3 hardened-patched-7.3"

# family_of FLAVOUR: the Linux version (6.12 or 7.3) the flavour is built from.
family_of() {
	case "$1" in
	*-7.3) echo 7.3 ;;
	*) echo 6.12 ;;
	esac
}

# flavour_kind FLAVOUR: the flavour without its family (base, patched, ...).
flavour_kind() {
	echo "${1%-7.3}"
}

# family_flavour FAMILY KIND: the flavour of that kind in that family.
family_flavour() {
	if [ "$1" = 6.12 ]; then echo "$2"; else echo "$2-$1"; fi
}

# family_pkg_version FAMILY: the pinned Debian version of its linux-source.
family_pkg_version() {
	case "$1" in
	6.12) echo "$SYNCWAY_KERNEL_PKG_VERSION" ;;
	7.3) echo "$SYNCWAY_KERNEL_7_3_PKG_VERSION" ;;
	*) die "unknown kernel family '$1' (known: $kernel_families)" ;;
	esac
}

# series_dir FAMILY: the directory of the family's patch series.
series_dir() {
	echo "$SYNCWAY_TOP/kernel-patches/$1"
}

# series_patches FAMILY: the file names of the family's series, in order.
series_patches() {
	grep -v '^#' "$(series_dir "$1")/series" | grep .
}

# build_syncway [--target TARGET] DIR [MESON_OPTION...]: compiles the project
# in the build root into DIR (all of it, or TARGET), set up with the options
# the first time and reconfigured to them later. Warnings are errors: the
# code builds without any, and a new one must stop the tests, not scroll by
# in a log nobody reads.
build_syncway() {
	local target=
	if [ "$1" = --target ]; then
		target=$2
		shift 2
	fi
	local dir=$1
	shift
	# One at a time: tools/test runs the soak beside the peer comparison,
	# and both bring the build up to date (meson configure writes too).
	flock "${TMPDIR:-/tmp}/syncway-build.lock" "$SYNCWAY_TOP/tools/in-root" sh -c '
		dir=$1 target=$2
		shift 2
		if [ -f "$dir/build.ninja" ]; then
			meson configure "$dir" -Dwerror=true "$@"
		else
			meson setup "$dir" -Dwerror=true "$@"
		fi >/dev/null && ninja -C "$dir" $target' build_syncway "$dir" "$target" "$@"
}

# print_help: the script's header comment, which is its usage text.
print_help() {
	sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
}
