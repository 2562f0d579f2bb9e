#!/bin/sh
# Inside a guest: where a compositor's frame goes, for the peer comparison
# (docs/peers.md). Runs COMPOSITOR (syncway, syncway-plain or sway,
# started as for the measured boots: bench/peers-compositor.sh) under
# callgrind with a client (CLIENT, default weston-simple-shm) and the
# present probe; zeroes the counters once the client is presenting,
# dumps them after SECS seconds, and writes OUT/COMP.callgrind and the
# client's frames presented in between (OUT/COMP.frames).
#   sh bench/peers-callgrind.sh BUILD OUT SECS COMPOSITOR...
# Then on the host: tools/in-root callgrind_annotate --inclusive=yes OUT/COMP.callgrind
# Once sway under callgrind did not serve weston-simple-shm (the client never
# got past its first roundtrip; not investigated); later runs profiled it.
set -u
build=$1 out=$2 secs=$3
shift 3
renderer=pixman mode_w=1280 mode_h=720 hz=60
mkdir -p "$out"
probe=/syncway/$build/clients/libsyncway-present-probe.so
unset WAYLAND_DISPLAY DISPLAY
# shellcheck source=bench/peers-compositor.sh
. "${0%/*}/peers-compositor.sh"
for comp in "$@"; do
	rt=/run/user/0/cg-$comp
	rm -rf "$rt"
	mkdir -p -m 700 "$rt"
	export XDG_RUNTIME_DIR=$rt
	# valgrind's start-up is slow under TCG: up to 5 minutes for the socket,
	# and the first dispatch comes well after it.
	wrap="valgrind --tool=callgrind --callgrind-out-file=$out/$comp.callgrind --collect-atstart=yes"
	start_tenths=3000
	start_compositor "$comp" "$rt" || continue
	sleep 5
	# shellcheck disable=SC2086
	SYNCWAY_PROBE_OUT=$out/$comp.probe.jsonl LD_PRELOAD=$probe ${CLIENT:-weston-simple-shm} >"$out/$comp.client.log" 2>&1 &
	kpid=$!
	sleep 10
	callgrind_control -z $pid >/dev/null
	# No probe file yet: nothing presented before the counters were zeroed.
	a=$(cat "$out/$comp.probe.jsonl" 2>/dev/null | grep -c '"present"')
	sleep "$secs"
	callgrind_control -d $pid >/dev/null
	b=$(grep -c '"present"' "$out/$comp.probe.jsonl")
	echo $((b - a)) >"$out/$comp.frames"
	echo "  $comp: $((b - a)) frames presented in the dumped part" >&2
	kill $kpid
	kill $pid
	# sway under valgrind did not always leave on SIGTERM
	sleep 5
	kill -KILL $pid 2>/dev/null
	wait $kpid $pid
	# The first dump is the window; the one at exit holds what came after.
	[ -f "$out/$comp.callgrind.1" ] && mv "$out/$comp.callgrind.1" "$out/$comp.callgrind"
done
