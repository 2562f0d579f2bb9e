# Shared helpers for the tools/ scripts; sourced, never run.
# shellcheck shell=bash

SYNCWAY_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SYNCWAY_CACHE=${SYNCWAY_CACHE:-/var/cache/syncway}
# The kernel every flavour is built from; Debian's security archive keeps a few
# 6.12.x versions, so the exact one is pinned to keep results comparable.
SYNCWAY_KERNEL_PKG_VERSION=${SYNCWAY_KERNEL_PKG_VERSION:-6.12.118-1~deb12u1}
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

kernel_flavours="base patched debug"
# built only when asked for (tools/build-kernel NAME, tools/report --hardened)
kernel_flavours_optional="hardened-base hardened-patched"

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
	"$SYNCWAY_TOP/tools/in-root" sh -c '
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
