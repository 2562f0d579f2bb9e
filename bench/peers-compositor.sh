# shellcheck shell=sh
# The compositors of the peer comparison (docs/peers.md), started the same
# way for its measured boots (bench/peers-guest.sh) and its profiles
# (bench/peers-callgrind.sh); sourced, never run. Every one headless at
# ${mode_w}x${mode_h}@$hz on $renderer, no Xwayland, no decorations drawn.
# Uses build, out, renderer, mode_w, mode_h and hz; wrap, a command to run
# the compositor under (valgrind; default none), and start_tenths, how long
# to wait for its socket in tenths of a second (default 300).
# SYNCWAY_PEERS_SCANOUT=0 (tools/vm-run passes SYNCWAY_* into the guest)
# turns direct scanout off in every wlroots compositor's scene
# (WLR_SCENE_DISABLE_DIRECT_SCANOUT, read by wlroots 0.18 and 0.20 alike):
# since wlroots 0.19 (c87ab6465, "Support direct scanout with src crop and
# dst boxes") the scene hands the output a lone window's buffer wherever the
# window lies, and the headless backend takes any buffer, so sway 1.12
# composites nothing for a single window, while wlroots 0.18 (syncway,
# sway 1.10) scans out only a buffer that covers the whole output. With it
# off, every compositor composites: the like-for-like frame (docs/peers.md).
if [ "${SYNCWAY_PEERS_SCANOUT:-1}" = 0 ]; then
	export WLR_SCENE_DISABLE_DIRECT_SCANOUT=1
fi
# SYNCWAY_PEERS_BACKEND=drm (tools/peers --drm): syncway and sway on
# virtio-gpu's KMS connector instead, Virtual-1, in mode ${mode_w}x${mode_h}
# (libseat's noop backend, no input devices), where page flips complete at
# a vblank on a kernel with DRM's vblank timer in virtio-gpu (7.3): both
# report real presentation. syncway-late is syncway with
# --max-render-time $SYNCWAY_PEERS_MAX_RENDER_TIME (default 6 ms). sway-1.12
# too, for the release check on its DRM backend (report 12 in
# docs/peer-bugs.md); tools/peers --drm does not offer it.
peers_drm=
[ "${SYNCWAY_PEERS_BACKEND:-headless}" = drm ] && peers_drm=1

# fresh_runtime_dir NAME: rt=/run/user/0/NAME, made anew (mode 700) and
# exported as XDG_RUNTIME_DIR.
fresh_runtime_dir() {
	rt=/run/user/0/$1
	rm -rf "$rt"
	mkdir -p /run/user/0
	mkdir -m 700 "$rt"
	export XDG_RUNTIME_DIR="$rt"
}

# stop_process PID: SIGTERM, 2 s to go, then SIGKILL, and reaped.
stop_process() {
	kill "$1" 2>/dev/null
	sleep 2
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# start_compositor COMP RT: COMP in the background on XDG_RUNTIME_DIR=RT,
# its output in $out/COMP.log; sets pid, and WAYLAND_DISPLAY once its socket
# is there. Returns 1 when it did not start.
start_compositor() {
	comp=$1 rt=$2
	if [ -n "$peers_drm" ]; then
		case $comp in
		syncway* | sway | sway-1.12) ;;
		*) echo "peers: $comp runs headless only here" >&2; return 1 ;;
		esac
		backend_env="WLR_BACKENDS=drm LIBSEAT_BACKEND=noop WLR_LIBINPUT_NO_DEVICES=1"
		output=Virtual-1 syncway_mode="--output Virtual-1:${mode_w}x${mode_h}@$hz"
	else
		backend_env="WLR_BACKENDS=headless WLR_HEADLESS_OUTPUTS=1"
		output=HEADLESS-1 syncway_mode="--headless-size ${mode_w}x${mode_h}@$hz"
	fi
	case $comp in
	syncway | syncway-plain | syncway-late)
		# syncway-plain: none of the protocols sway and weston lack here
		# (linux-drm-syncobj-v1, fifo-v1, commit-timing-v1), so that
		# every client takes the path it takes on them.
		on=$([ "$comp" = syncway-plain ] && echo 0 || echo 1)
		late=
		[ "$comp" = syncway-late ] && late="--max-render-time ${SYNCWAY_PEERS_MAX_RENDER_TIME:-6}"
		# shellcheck disable=SC2086 # one word each
		env $backend_env SYNCWAY_EXPLICIT_SYNC=$on SYNCWAY_FIFO=$on SYNCWAY_COMMIT_TIMING=$on \
			SYNCWAY_DECORATIONS=server WLR_RENDERER=$renderer \
			${wrap:-} "$build/compositor/syncway" $syncway_mode $late \
			--no-xwayland --report 0 >"$out/$comp.log" 2>&1 &
		;;
	sway | sway-1.12)
		# Floating windows keep the size they ask for (tiled ones would be
		# given the whole output); no border, no bar, no background.
		# sway-1.12: the same, from the peers' root (tools/peers runs it
		# in a guest of its own).
		cat >"$rt/sway.conf" <<EOF
output $output mode ${mode_w}x${mode_h}@${hz}Hz
xwayland disable
default_border none
default_floating_border none
for_window [all] floating enable
EOF
		# shellcheck disable=SC2086 # one word each
		env $backend_env WLR_RENDERER=$renderer WLR_LIBINPUT_NO_DEVICES=1 \
			${wrap:-} sway -c "$rt/sway.conf" >"$out/$comp.log" 2>&1 &
		;;
	wlr-ref)
		# The wlroots 0.18 reference of this tree (tools/wlr-ref.c):
		# wlroots' own linux-drm-syncobj-v1 manager, on the renderer's
		# device with GLES2; with pixman (no device) on the render node,
		# its glue waiting and signalling on the CPU (--syncobj-node);
		# always headless, no decorations.
		node=
		[ "$renderer" = pixman ] && [ -c /dev/dri/renderD128 ] &&
			node="--syncobj-node /dev/dri/renderD128"
		# shellcheck disable=SC2086 # one word each
		env WLR_RENDERER=$renderer ${wrap:-} "$build/tools/syncway-wlr-ref" \
			--mode "${mode_w}x${mode_h}@$hz" $node >"$out/$comp.log" 2>&1 &
		;;
	weston)
		# No panel, no lock, no animations: the desktop shell's client only
		# draws a plain background once. weston offers no xdg-decoration.
		cat >"$rt/weston.ini" <<EOF
[core]
idle-time=0
require-input=false
[shell]
panel-position=none
background-color=0xff202020
locking=false
animation=none
startup-animation=none
close-animation=none
focus-animation=none
EOF
		r=$renderer
		[ "$r" = gles2 ] && r=gl
		${wrap:-} weston --backend=headless --renderer=$r --width=$mode_w --height=$mode_h \
			--refresh-rate=$((hz * 1000)) -c "$rt/weston.ini" >"$out/$comp.log" 2>&1 &
		;;
	kwin | kwin-noscale | mutter)
		# Debian sid's KWin and Mutter (the peers' root), on a session
		# bus of their own; KWin's virtual backend and Mutter's headless
		# one, both with a 60 Hz output and GL on the render node.
		# kwin-noscale: KWin without its scale effect (on by default: a
		# new window scales and fades in over its first 200 ms; report 13
		# in docs/peer-bugs.md).
		dbus-daemon --session --address="unix:path=$rt/bus" --fork --nopidfile
		export DBUS_SESSION_BUS_ADDRESS="unix:path=$rt/bus" HOME="$rt"
		if [ "$comp" = kwin-noscale ]; then
			mkdir -p "$rt/.config"
			printf '[Plugins]\nscaleEnabled=false\n' >"$rt/.config/kwinrc"
		fi
		if [ "$comp" != mutter ]; then
			KWIN_COMPOSE=O2ES ${wrap:-} kwin_wayland --virtual --no-lockscreen --no-global-shortcuts \
				--width "$mode_w" --height "$mode_h" --socket wayland-1 >"$out/$comp.log" 2>&1 &
		else
			${wrap:-} mutter --headless --wayland --no-x11 --virtual-monitor "${mode_w}x${mode_h}" \
				--wayland-display wayland-1 >"$out/$comp.log" 2>&1 &
		fi
		;;
	*) echo "peers: unknown compositor $comp" >&2; return 1 ;;
	esac
	pid=$!
	i=0
	while [ $i -lt "${start_tenths:-300}" ]; do
		for s in "$rt"/wayland-*; do
			case $s in *.lock | *'*'*) continue ;; esac
			[ -S "$s" ] && { WAYLAND_DISPLAY=${s##*/}; export WAYLAND_DISPLAY; return 0; }
		done
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	echo "peers: $comp did not start, see $out/$comp.log" >&2
	return 1
}
