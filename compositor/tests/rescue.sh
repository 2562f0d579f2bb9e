#!/bin/sh
# Windows rescued from an output that goes away, in one syncway with two
# headless outputs side by side (HEADLESS-1 640x480 at 0,0, HEADLESS-2
# 800x600 right of it): a window (key-client, red) opened on HEADLESS-2
# (new windows open on the output under the pointer: wlrctl moves it
# there) is on HEADLESS-1 whole, at its size, once an unmodified wlr-randr
# turns HEADLESS-2 off; a maximized window (toplevel-client, maximized by
# wlrctl through foreign-toplevel management) is refilled on HEADLESS-1:
# it is asked for HEADLESS-1's size (its xdg_toplevel.configure events,
# under WAYLAND_DEBUG).
#   tools/vm-run -q -- sh compositor/tests/rescue.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/rescue/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
# shellcheck source=SCRIPTDIR/../../tests/lib/desktop.sh
. "${0%/*}/../../tests/lib/desktop.sh"
desktop_setup rescue "$1"
key_client=$build/compositor/tests/key-client
toplevel_client=$build/compositor/tests/toplevel-client

# red OUTPUT: sets red to how many pixels of a capture of OUTPUT are the
# window's ff0000.
red() {
	red=0
	grim -o "$1" -t ppm "$tmp/shot.ppm" 2>>"$out/grim.log" || return 1
	# grim writes "P6\nW H\n255\n" and the pixels.
	# shellcheck disable=SC2046 # W and H
	set -- $(head -c 20 "$tmp/shot.ppm" | sed -n 2p)
	red=$(tail -c $(($1 * $2 * 3)) "$tmp/shot.ppm" | od -An -v -tx1 -w3 | grep -c '^ ff 00 00$')
	return 0
}

# red_is OUTPUT N: whether OUTPUT shows N red pixels.
red_is() {
	red "$1" && [ "$red" = "$2" ]
}

# configured FILE W H: whether the WAYLAND_DEBUG log FILE has an
# xdg_toplevel.configure to W x H.
configured() {
	grep -qE "xdg_toplevel[@#][0-9]+\.configure\($2, $3," "$1"
}

syncway_start "$log" -v --report 0 --no-xwayland --outputs 2 --output 'HEADLESS-1:640x480,pos=0,0' \
	--output 'HEADLESS-2:800x600,pos=640,0' ||
	give_up setup "no Wayland socket within 30 s"

# The pointer to HEADLESS-2, and a 300x200 window there.
wlrctl pointer move 900 300
"$key_client" ff0000 300 200 >"$out/window.log" 2>"$out/window.err" &
pids="$pids $!"
if ! wait_until 20 grep -q shown "$out/window.log" || ! wait_until 10 red_is HEADLESS-2 60000 ||
	! red_is HEADLESS-1 0; then
	give_up setup "the window is not on HEADLESS-2 alone: $red red pixels on the last capture"
fi

wlr-randr --output HEADLESS-2 --off >"$out/randr-off-1.log" 2>&1
if wait_until 10 red_is HEADLESS-1 60000; then
	result window-of-output-turned-off-moves-whole-to-remaining-output pass
else
	result window-of-output-turned-off-moves-whole-to-remaining-output fail \
		"HEADLESS-1 shows $red of the window's 60000 red pixels after HEADLESS-2 went off"
fi

# HEADLESS-2 back, the pointer there, and a window that is maximized on
# it: asked for 800x600, then for 640x480 when HEADLESS-2 goes again.
wlr-randr --output HEADLESS-2 --on --pos 640,0 >"$out/randr-on.log" 2>&1
wlrctl pointer move 400 0
mkfifo "$tmp/commands"
WAYLAND_DEBUG=client "$toplevel_client" window rescue-max max <"$tmp/commands" \
	>"$out/max.log" 2>"$out/max-wayland.log" &
pids="$pids $!"
exec 3>"$tmp/commands"
problems=
if ! wait_until 20 grep -q configure "$out/max.log"; then
	problems="toplevel-client not configured"
else
	# wlrctl (0.2.2) often dies of a SIGSEGV after sending the request:
	# it frees its windows when it stops listening, and the window's new
	# state comes after. What counts is the configure the window gets.
	wlrctl toplevel maximize app_id:rescue-max >"$out/wlrctl-maximize.log" 2>&1 ||
		echo "wlrctl exited with status $?" >>"$out/wlrctl-maximize.log"
	wait_until 10 configured "$out/max-wayland.log" 800 600 ||
		problems="not asked for 800x600 when maximized on HEADLESS-2"
fi
if [ -z "$problems" ]; then
	wlr-randr --output HEADLESS-2 --off >"$out/randr-off-2.log" 2>&1
	if ! wait_until 10 configured "$out/max-wayland.log" 640 480; then
		problems="not asked for HEADLESS-1's 640x480 after HEADLESS-2 went off; configures: \
$(grep -oE 'configure\([0-9]+, [0-9]+' "$out/max-wayland.log" | tr '\n' ' ')"
	fi
fi
if [ -z "$problems" ]; then
	result maximized-window-refills-remaining-output pass
else
	result maximized-window-refills-remaining-output fail "$problems"
fi
exec 3>&-

kill $syncway_pid
exited $syncway_pid 20
pids=${pids#" $syncway_pid"}
check_exit compositor-exits-cleanly "$log" "$exit_status" ""

result_summary
