#!/bin/sh
# Inside a guest: where a compositor's frame goes, for the peer comparison
# (docs/peers.md). Runs COMPOSITOR (syncway, syncway-plain, sway, sway-1.12,
# started as for the measured boots: bench/peers-compositor.sh) under
# callgrind with a client (CLIENT, default weston-simple-shm) and the
# present probe; zeroes the counters once the client is presenting,
# dumps them after SECS seconds, and writes OUT/COMP.callgrind and the
# client's frames presented in between (OUT/COMP.frames).
#   sh bench/peers-callgrind.sh BUILD OUT SECS COMPOSITOR...
# RENDERER=gles2 (default pixman) renders with GLES2, as the @virgl rows of
# tools/peers do: boot the guest with tools/vm-run --gpu virgl.
# TOOL=strace counts the compositor's system calls instead (strace -c -f
# attached for the same window; OUT/COMP.strace): what callgrind does not
# see, the kernel's side. valgrind slows the compositor down many times, so
# that it may miss vblanks it would make; strace less so. Compare a frame's
# own functions (inclusive cost over their calls), not the whole program
# over the presented frames, where the two rates differ.
# sway-1.12 runs on the peers' root (tools/vm-run --root peers), which has
# neither valgrind nor strace: stage the build root's beside the build
# first, on the host:
#   tools/in-root sh bench/peers-callgrind.sh --stage BUILD
# Then on the host: tools/in-root callgrind_annotate --inclusive=yes OUT/COMP.callgrind
# Once sway under callgrind did not serve weston-simple-shm (the client never
# got past its first roundtrip; not investigated); later runs profiled it.
set -u
if [ "${1:-}" = --stage ]; then
	# In the build root: valgrind's launcher, vgdb and callgrind_control,
	# its tools, and strace with the libraries the peers' root lacks.
	d=$2/tool-stage
	rm -rf "$d"
	mkdir -p "$d/bin" "$d/lib"
	cp /usr/bin/valgrind /usr/bin/valgrind.bin /usr/bin/vgdb /usr/bin/callgrind_control /usr/bin/strace "$d/bin/"
	cp -a /usr/libexec/valgrind "$d/valgrind"
	for l in $(ldd /usr/bin/strace | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p'); do
		case ${l##*/} in libc.so* | libm.so*) ;; *) cp -L "$l" "$d/lib/" ;; esac
	done
	exit 0
fi
build=$1 out=$2 secs=$3
shift 3
renderer=${RENDERER:-pixman} mode_w=1280 mode_h=720 hz=60
tool=${TOOL:-callgrind}
mkdir -p "$out"
probe=/syncway/$build/clients/libsyncway-present-probe.so
export MESA_SHADER_CACHE_DIR=${MESA_SHADER_CACHE_DIR:-/syncway/build/peers-shader-cache}
stage=/syncway/$build/tool-stage
if ! command -v valgrind >/dev/null && [ -d "$stage" ]; then
	PATH=$stage/bin:$PATH
	export VALGRIND_LIB=$stage/valgrind
	strace_env="LD_LIBRARY_PATH=$stage/lib"
fi
unset WAYLAND_DISPLAY DISPLAY
# shellcheck source=bench/peers-compositor.sh
. "${0%/*}/peers-compositor.sh"
for comp in "$@"; do
	fresh_runtime_dir "cg-$comp"
	if [ "$tool" = callgrind ]; then
		# valgrind's start-up is slow under TCG: up to 5 minutes for the
		# socket, and the first dispatch comes well after it.
		wrap="valgrind --tool=callgrind --callgrind-out-file=$out/$comp.callgrind --collect-atstart=yes"
		start_tenths=3000
	else
		wrap= start_tenths=300
	fi
	start_compositor "$comp" "$rt" || continue
	sleep 5
	# shellcheck disable=SC2086
	SYNCWAY_PROBE_OUT=$out/$comp.probe.jsonl LD_PRELOAD=$probe ${CLIENT:-weston-simple-shm} >"$out/$comp.client.log" 2>&1 &
	kpid=$!
	sleep 10
	# No probe file yet: nothing presented before the counters were zeroed.
	a=$(cat "$out/$comp.probe.jsonl" 2>/dev/null | grep -c '"present"')
	if [ "$tool" = callgrind ]; then
		callgrind_control -z $pid >/dev/null
	else
		# shellcheck disable=SC2086
		env ${strace_env:-} strace -c -f -p $pid -o "$out/$comp.strace" 2>/dev/null &
		tpid=$!
	fi
	sleep "$secs"
	if [ "$tool" = callgrind ]; then
		callgrind_control -d $pid >/dev/null
	else
		kill -INT $tpid
		wait $tpid
	fi
	b=$(grep -c '"present"' "$out/$comp.probe.jsonl")
	echo $((b - a)) >"$out/$comp.frames"
	echo "  $comp: $((b - a)) frames presented in the window" >&2
	kill $kpid
	kill $pid
	# sway under valgrind did not always leave on SIGTERM
	sleep 5
	kill -KILL $pid 2>/dev/null
	wait $kpid $pid
	# The first dump is the window; the one at exit holds what came after.
	if [ -f "$out/$comp.callgrind.1" ]; then
		mv "$out/$comp.callgrind.1" "$out/$comp.callgrind"
	fi
done
