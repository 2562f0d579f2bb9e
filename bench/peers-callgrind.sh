#!/bin/sh
# Inside a guest: where a compositor's frame goes, for the peer comparison
# (docs/peers.md). Runs COMPOSITOR (syncway or sway, headless, pixman, as
# bench/peers-guest.sh starts them) under callgrind with weston-simple-shm
# and the present probe; zeroes the counters once the client is presenting,
# dumps them after SECS seconds, and writes OUT/COMP.callgrind and the
# client's frames presented in between (OUT/COMP.frames).
#   sh bench/peers-callgrind.sh BUILD OUT SECS COMPOSITOR...
# Then on the host: tools/in-root callgrind_annotate --inclusive=yes OUT/COMP.callgrind
# Known: sway under callgrind in the guest did not serve weston-simple-shm
# (the client never got past its first roundtrip; not investigated), so
# only syncway's profile exists so far.
set -u
build=$1 out=$2 secs=$3
shift 3
mkdir -p "$out"
probe=/syncway/$build/clients/libsyncway-present-probe.so
unset WAYLAND_DISPLAY DISPLAY
for comp in "$@"; do
	rt=/run/user/0/cg-$comp
	rm -rf "$rt"
	mkdir -p -m 700 "$rt"
	export XDG_RUNTIME_DIR=$rt
	cg="valgrind --tool=callgrind --callgrind-out-file=$out/$comp.callgrind --collect-atstart=yes"
	case $comp in
	syncway)
		SYNCWAY_DECORATIONS=server WLR_BACKENDS=headless WLR_RENDERER=pixman \
			$cg "$build/compositor/syncway" --headless-size 1280x720@60 --no-xwayland --report 0 \
			>"$out/$comp.log" 2>&1 &
		;;
	sway)
		printf 'output HEADLESS-1 mode 1280x720@60Hz\nxwayland disable\ndefault_border none\nfor_window [all] floating enable\n' \
			>"$rt/sway.conf"
		WLR_BACKENDS=headless WLR_HEADLESS_OUTPUTS=1 WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 \
			$cg sway -c "$rt/sway.conf" >"$out/$comp.log" 2>&1 &
		;;
	esac
	pid=$!
	i=0
	while [ $i -lt 600 ] && ! ls "$rt" | grep -q '^wayland-[0-9]*$'; do sleep 0.5; i=$((i + 1)); done
	sleep 5 # under valgrind the socket comes well before the first dispatch
	WAYLAND_DISPLAY=$(ls "$rt" | grep '^wayland-[0-9]*$' | head -n 1)
	export WAYLAND_DISPLAY
	SYNCWAY_PROBE_OUT=$out/$comp.probe.jsonl LD_PRELOAD=$probe weston-simple-shm >"$out/$comp.client.log" 2>&1 &
	kpid=$!
	sleep 10
	callgrind_control -z $pid >/dev/null
	a=$(grep -c '"present"' "$out/$comp.probe.jsonl")
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
