#!/bin/sh
# Inside a guest (tools/peers boots it): the peer comparison of one boot.
# Starts each COMPOSITOR in turn (syncway, sway or weston: headless, the
# same 1280x720@60 output, the same renderer, no decorations drawn), runs the
# CLIENTS on it one after the other, each with the present probe
# (libsyncway-present-probe.so: the client's own wp_presentation feedback),
# and measures the compositor process's CPU time over a window of SECS guest
# seconds with busy-window, once the client has presented WARM frames.
#   sh bench/peers-guest.sh BUILD OUT RENDERER SECS COMPOSITORS CLIENTS [WARM]
# RENDERER is pixman or gles2 (gles2: a virgl guest); COMPOSITORS and
# CLIENTS are comma-separated; COMP/A+B in COMPOSITORS runs clients A and B
# on COMP instead of CLIENTS. Writes OUT/COMP-CLIENT.{probe,window}.jsonl,
# OUT/COMP-CLIENT.log and OUT/COMP.log, and one line per run to stderr.
# A client that the compositor cannot serve (syncway-gears needs
# linux-drm-syncobj-v1; gears-dmabuf that falls back to wl_shm is not a
# dmabuf client) is recorded as skipped with the client's reason.
set -u
build=$1 out=$2 renderer=$3 secs=$4 comps=$5 clients=$6
warm=${7:-30} # presented frames before the window: shaders compiled, window mapped
mode_w=1280 mode_h=720 hz=60
# On KMS (tools/peers --drm) a mode virtio-gpu's connector lists.
[ "${SYNCWAY_PEERS_BACKEND:-headless}" = drm ] && mode_w=1024 mode_h=768
mkdir -p "$out"
probe=/syncway/$build/clients/libsyncway-present-probe.so
export MESA_SHADER_CACHE_DIR=${MESA_SHADER_CACHE_DIR:-/syncway/build/peers-shader-cache}
# libdecor has no plugin in the root, so its fallback draws nothing: no
# client decorations with any compositor (the probe records subsurfaces).
unset WAYLAND_DISPLAY DISPLAY
# shellcheck source=bench/peers-compositor.sh
. "${0%/*}/peers-compositor.sh"
# KWin reads its render-time query at every vblank of its virtual output,
# a wait on the CPU until the GPU has finished the frame; under the
# instruction clock the first one never returned and KWin presented
# nothing (docs/peers.md, "KWin did not run"). Without it KWin renders the
# same frames.
export KWIN_NO_TIMER_QUERY=1

client_cmd() {
	case $1 in
	simple-shm) echo "weston-simple-shm" ;;
	vkgears-fifo) echo "vkgears -size 300x300" ;;
	vkgears-mailbox) echo "vkgears -size 300x300 -present-mailbox" ;;
	vkcube-fifo) echo "vkcube --wsi wayland --width 300 --height 300 --present_mode 2" ;;
	vkcube-mailbox) echo "vkcube --wsi wayland --width 300 --height 300 --present_mode 1" ;;
	gears-shm) echo "$build/clients/syncway-gears --buffer shm --mode frame-callback --refresh $hz" ;;
	gears-dmabuf) echo "$build/clients/syncway-gears --buffer dmabuf --mode frame-callback --refresh $hz" ;;
	gears-gles2) echo "$build/clients/syncway-gears --buffer dmabuf --renderer gles2 --mode frame-callback --refresh $hz" ;;
	simple-egl) echo "weston-simple-egl" ;;
	*) return 1 ;;
	esac
}

# state PID LOG: for a failure's line, whether the compositor (PID) still
# runs and the last line the client printed.
state() {
	alive="the compositor runs"
	kill -0 "$1" 2>/dev/null ||
		alive="the compositor is gone, its last words: $(grep -v '^$' "$out/$comp.log" | tail -n 1 | cut -c1-100)"
	last=$(grep -v '^$' "$2" 2>/dev/null | tail -n 1 | cut -c1-100)
	echo "$alive; the client's last words: ${last:-none}"
}

presented() {
	n=$(cat "$1" 2>/dev/null | grep -c '"type":"present"')
	echo "${n:-0}"
}

status=0
for entry in $(echo "$comps" | tr , ' '); do
	comp=${entry%%/*} comp_clients=$clients
	[ "$comp" = "$entry" ] || comp_clients=$(echo "${entry#*/}" | tr + ,)
	fresh_runtime_dir "peers-$comp"
	start_compositor "$comp" "$rt" || { status=1; continue; }
	cpid=$pid
	for client in $(echo "$comp_clients" | tr , ' '); do
		cmd=$(client_cmd "$client") || { echo "peers: unknown client $client" >&2; status=1; continue; }
		base=$out/$comp-$client
		rm -f "$base.probe.jsonl" "$base.window.jsonl"
		# The log in tmpfs, its tail kept: a client stuck in a loop that
		# prints (vkgears' libdecor set-up) must not fill the results.
		log=/tmp/peers-$comp-$client.log
		SYNCWAY_PROBE_OUT=$base.probe.jsonl LD_PRELOAD=$probe $cmd >"$log" 2>&1 &
		kpid=$!
		# Until WARM frames are presented, the client exits, or 90 s of
		# guest time, 60 s without any frame (lavapipe's first shader
		# compilation takes tens of seconds under the instruction clock).
		deadline=$(($(date +%s) + 90)) first=$(($(date +%s) + 60))
		while [ "$(presented "$base.probe.jsonl")" -lt $warm ] && kill -0 $kpid 2>/dev/null &&
			[ "$(date +%s)" -lt $deadline ]; do
			[ "$(date +%s)" -ge $first ] && [ "$(presented "$base.probe.jsonl")" = 0 ] && break
			[ "$client" = gears-dmabuf ] && grep -q 'falling back to wl_shm' "$log" && break
			sleep 0.2
		done
		# syncway-gears without zwp_linux_dmabuf_v1 (or a dumb buffer to
		# export) draws into wl_shm: not the client the row is named for.
		if [ "$client" = gears-dmabuf ] && grep -q 'falling back to wl_shm' "$log"; then
			kill -TERM $kpid 2>/dev/null
			wait $kpid 2>/dev/null
			tail -n 50 "$log" >"$base.log"
			rm -f "$log"
			echo '{"type":"skip","why":"no dmabuf (the client fell back to wl_shm)"}' >"$base.window.jsonl"
			echo "  $comp $client: skipped (no dmabuf: $(grep -m1 'falling back' "$base.log" | cut -c16-90))" >&2
			continue
		fi
		if ! kill -0 $kpid 2>/dev/null; then
			wait $kpid
			rc=$?
			tail -n 50 "$log" >"$base.log"
			if grep -q 'does not offer wp_linux_drm_syncobj_manager_v1' "$base.log"; then
				echo '{"type":"skip","why":"no linux-drm-syncobj-v1"}' >"$base.window.jsonl"
				echo "  $comp $client: skipped (the compositor offers no linux-drm-syncobj-v1)" >&2
			elif [ $rc = 139 ] && [ "$comp" = weston ] && [ "${client%%-*}" = vkgears ]; then
				# vkgears with libdecor's plugin-less fallback and no
				# xdg-decoration: a known crash, recorded.
				echo '{"type":"skip","why":"vkgears crashes (SIGSEGV) without xdg-decoration and libdecor plugins"}' \
					>"$base.window.jsonl"
				echo "  $comp $client: skipped (vkgears crashes without xdg-decoration)" >&2
			else
				echo "  $comp $client: FAILED, the client exited ($rc) after $(presented "$base.probe.jsonl") frames ($(state $cpid "$base.log"))" >&2
				status=1
			fi
			continue
		fi
		if [ "$(presented "$base.probe.jsonl")" -lt $warm ]; then
			kill -KILL $kpid 2>/dev/null
			wait $kpid 2>/dev/null
			tail -n 50 "$log" >"$base.log"
			why=$(grep -v '^$' "$base.log" | tail -n 1 | tr -d '"\\' | cut -c1-80)
			n=$(presented "$base.probe.jsonl")
			echo "{\"type\":\"skip\",\"why\":\"$n frames presented: $why\"}" >"$base.window.jsonl"
			# vkgears waits for its first configure in a loop of
			# libdecor_dispatch(ctx, 0) that never gets it under sway:
			# a known incompatibility, recorded, not a failure of the run.
			if [ "$n" = 0 ] && grep -q 'unable to initialize libdecor' "$base.log"; then
				echo "  $comp $client: skipped (never configured: $why)" >&2
			else
				echo "  $comp $client: FAILED, $n frames presented in 90 s ($(state $cpid "$base.log"))" >&2
				status=1
			fi
			rm -f "$log"
			continue
		fi
		werr=$(/syncway/$build/bench/busy-window --warmup 0 --window "$secs" --json "$base.window.jsonl" \
			$cpid $kpid 2>&1)
		wrc=$?
		st=$(state $cpid "$log")
		kill -TERM $kpid 2>/dev/null
		wait $kpid
		tail -n 50 "$log" >"$base.log"
		rm -f "$log"
		if [ $wrc != 0 ]; then
			echo "  $comp $client: FAILED, busy-window ($wrc: $werr; $st)" >&2
			status=1
			continue
		fi
		echo "  $comp $client: $(presented "$base.probe.jsonl") frames presented" >&2
	done
	kill -TERM $cpid 2>/dev/null
	wait $cpid
done
exit $status
