#!/bin/sh
# Inside a virgl guest on the peers' root with gdb in it (docs/peers.md,
# "KWin did not run"): KWin started as the matrix starts it, one CLIENT of
# the peer comparison (default gears-gles2) against it, and while it runs,
# every SECS guest seconds, where each of KWin's threads sleeps in the kernel
# (/proc/PID/task/TID/stack) and, once KWin has presented nothing for 10 s,
# every thread's user-space stack from gdb. Without gdb only the kernel
# stacks are taken. Writes OUT/stall.txt and KWin's log OUT/kwin.log.
#   sh bench/peers-kwin-stall.sh BUILD OUT [CLIENT [SECS [ROUNDS]]]
# bench/peers-kwin-sigterm.sh says how to make a copy of the peers' root
# with gdb and boot it. SYNCWAY_STALL_MODE=WxH (tools/vm-run passes SYNCWAY_*
# into the guest) sets KWin's output, 640x480 by default as in the matrix;
# tools/peers runs 1280x720. The client runs with the present probe, as in
# tools/peers.
set -u
build=$1 out=$2 client=${3:-gears-gles2} secs=${4:-5} rounds=${5:-8}
mkdir -p "$out"
# shellcheck source=bench/peers-conformance-env.sh
. "${0%/*}/peers-conformance-env.sh"
mode=${SYNCWAY_STALL_MODE:-${mode_w}x$mode_h}
mode_w=${mode%x*} mode_h=${mode#*x}
fresh_runtime_dir kwin-stall
start_compositor kwin "$rt" || exit 1
log=$out/stall.txt
case $client in
gears-gles2) cmd="$build/clients/syncway-gears --buffer dmabuf --renderer gles2 --mode frame-callback --refresh $hz" ;;
gears-dmabuf) cmd="$build/clients/syncway-gears --buffer dmabuf --mode frame-callback --refresh $hz" ;;
*) echo "peers-kwin-stall: unknown client $client" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086 # the command's words
SYNCWAY_PROBE_OUT=$out/probe.jsonl LD_PRELOAD=/syncway/$build/clients/libsyncway-present-probe.so \
	$cmd >"$out/client.log" 2>&1 &
cpid=$!
took_gdb=
r=0
while [ $r -lt "$rounds" ] && kill -0 "$cpid" 2>/dev/null; do
	sleep "$secs"
	r=$((r + 1))
	{
		echo "== round $r, guest uptime $(cut -d' ' -f1 /proc/uptime) s"
		for t in /proc/"$pid"/task/*; do
			echo "-- kwin thread ${t##*/} ($(cat "$t/comm")) $(grep State: "$t/status")"
			cat "$t/stack" 2>/dev/null
		done
		echo "-- client $(grep State: /proc/"$cpid"/status 2>/dev/null)"
		cat /proc/"$cpid"/stack 2>/dev/null
	} >>"$log"
	if [ -z "$took_gdb" ] && [ $((r * secs)) -ge 10 ] && command -v gdb >/dev/null; then
		took_gdb=1
		gdb -p "$pid" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 30' \
			>>"$log" 2>&1
	fi
done
# The client waits for its last release points at exit, which a stalled
# KWin never signals.
stop_process "$cpid"
stop_process "$pid"
echo "peers-kwin-stall: $r rounds; the client's last lines:"
tail -n 5 "$out/client.log"
