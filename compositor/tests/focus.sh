#!/bin/sh
# Input and focus for X11 windows and layer surfaces, in one syncway with
# Xwayland: an X11 window (xmessage) is a window like an xdg one (a
# toplevel-client window): placed where it covers no other, task bars list
# and activate it, Alt+F1 cycles to it, a click gives it the keyboard, and
# it is told when it loses it (xprop -root _NET_ACTIVE_WINDOW says which
# X11 window is active); one that asks for fullscreen (x11-client) fills
# the output. A click
# gives the keyboard to a layer surface that takes keyboard input (on
# demand), not to one that takes none (layer-client). The cursor a client
# sets over its X11 window or layer surface stays through pointer motion
# (grim captures the software cursor).
#   tools/vm-run -q -- sh compositor/tests/focus.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/focus/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
# shellcheck source=SCRIPTDIR/../../tests/lib/desktop.sh
. "${0%/*}/../../tests/lib/desktop.sh"
desktop_setup focus "$1"
tests=$build/compositor/tests

# point X Y: the pointer to X, Y of the 640x480 layout (absolute motion).
point() {
	# shellcheck disable=SC2046 # two fractions
	"$tests/pointer-client" $(awk -v x="$1" -v y="$2" 'BEGIN { printf "%.5f %.5f", (x + 0.5) / 640, (y + 0.5) / 480 }')
}

# active: the X11 window Xwayland is told is active, "0x0" for none.
active() {
	xprop -root _NET_ACTIVE_WINDOW 2>/dev/null | sed -n 's/.*window id # //p'
}

# is_active ID: whether the X11 window ID is the active one.
is_active() {
	[ "$(active)" = "$1" ]
}

# capture NAME X Y W H: grim's PPM of that box, in $tmp/NAME.ppm.
capture() {
	grim -t ppm -g "$2,$3 $4x$5" "$tmp/$1.ppm" 2>>"$out/grim.log"
}

# file_colours FILE: the distinct colours of a PPM capture, "rrggbb" words.
file_colours() {
	# shellcheck disable=SC2046 # W and H
	set -- "$1" $(head -c 20 "$1" | sed -n 2p)
	tail -c $(($2 * $3 * 3)) "$1" | od -An -v -tx1 -w3 | tr -d ' ' | sort -u | tr '\n' ' '
}

syncway_start "$log" -v --report 0 --headless-size 640x480 ||
	give_up setup "no Wayland socket within 30 s"
DISPLAY=$(sed -n 's/^syncway: xwayland: on DISPLAY=\([^ ]*\) .*/\1/p' "$log")
export DISPLAY

# The X11 window first: Xwayland starts with it. Its first start can take
# long on a busy host (stalls.sh): 120 s, polled.
xmessage -title 'X11 focus' 'focus test' >"$out/xmessage.log" 2>&1 &
pids="$pids $!"
if ! wait_count "$log" 'xwayland: mapped window .*class Xmessage' 1 120; then
	tail -n 20 "$log" | sed 's/^/    /'
	give_up setup "xmessage's window was not mapped within 120 s"
fi
xwininfo -name 'X11 focus' >"$out/xwininfo.txt" 2>&1
xid=$(sed -n 's/^xwininfo: Window id: \(0x[0-9a-f]*\) .*/\1/p' "$out/xwininfo.txt")
xx=$(sed -n 's/^ *Absolute upper-left X: *//p' "$out/xwininfo.txt")
xy=$(sed -n 's/^ *Absolute upper-left Y: *//p' "$out/xwininfo.txt")
if [ -z "$xid" ] || [ -z "$xx" ] || [ -z "$xy" ]; then
	give_up setup "xwininfo does not find xmessage's window: $(tr '\n' ' ' <"$out/xwininfo.txt")"
fi

# The cursor over the X11 window is Xwayland's, set when the pointer
# enters: the same capture after the entering motion (A) and after two
# more (B). A capture without the cursor (C) shows it is seen at all.
# Before any other window: nothing hides the X11 one.
name=x11-cursor-kept-over-x11-window
cx=$((xx + 14)) cy=$((xy + 14))
point 630 470
point "$cx" "$cy"
sleep 0.5
capture x11-a $((cx - 12)) $((cy - 12)) 40 40
point $((cx + 1)) "$cy"
point "$cx" "$cy"
sleep 0.5
capture x11-b $((cx - 12)) $((cy - 12)) 40 40
point 630 470
sleep 0.5
capture x11-c $((cx - 12)) $((cy - 12)) 40 40
cp "$tmp"/x11-*.ppm "$out/" 2>/dev/null
if cmp -s "$tmp/x11-a.ppm" "$tmp/x11-c.ppm"; then
	result $name skip "the captures show no cursor over the X11 window"
elif ! cmp -s "$tmp/x11-a.ppm" "$tmp/x11-b.ppm"; then
	result $name fail "the cursor changed with pointer motion over the X11 window (x11-a.ppm, x11-b.ppm)"
else
	result $name pass
fi

# Then an xdg window, which takes the keyboard as it maps.
x11_active_before=$(active)
mkfifo "$tmp/window"
"$tests/toplevel-client" window sw.focus "Focus window" <"$tmp/window" >"$out/window.log" 2>&1 &
pids="$pids $!"
exec 3>"$tmp/window"
w=$out/window.log
wait_count "$w" '^focus-in' 1 20 || echo "the xdg window never had focus" >>"$out/setup.txt"
setup=
[ -e "$out/setup.txt" ] && setup=" (setup: $(tr '\n' ';' <"$out/setup.txt"))"

name=x11-window-listed-as-toplevel
"$tests/toplevel-client" list >"$out/list.txt" 2>&1
if ! wait_until 10 wlrctl toplevel find app_id:Xmessage 'title:X11 focus'; then
	result $name fail "wlrctl finds no window app_id:Xmessage 'title:X11 focus'$setup"
elif ! grep -qxF 'toplevel app_id=Xmessage title=X11 focus' "$out/list.txt"; then
	result $name fail "ext-foreign-toplevel-list lacks it: $(tr '\n' ';' <"$out/list.txt")"
else
	result $name pass
fi

name=x11-window-deactivated-when-focus-leaves
if [ "$x11_active_before" != "$xid" ]; then
	result $name fail "xmessage's window was not active before the xdg window came: $x11_active_before"
elif wait_until 10 is_active 0x0; then
	result $name pass
else
	result $name fail "_NET_ACTIVE_WINDOW is $(active), not 0x0, with the xdg window focused$setup"
fi

# Two windows, the xdg one on top: Alt+F1 goes to the other.
name=alt-f1-cycles-to-x11-window
wtype -M alt -k F1 -m alt
if ! wait_until 10 is_active "$xid"; then
	result $name fail "_NET_ACTIVE_WINDOW is $(active), not xmessage's $xid$setup"
elif ! wait_count "$w" '^focus-out' 1 5; then
	result $name fail "the xdg window kept the keyboard$setup"
else
	result $name pass
fi

name=task-bar-activates-x11-window
wlrctl toplevel focus app_id:sw.focus
wait_count "$w" '^focus-in' 2 10
wlrctl toplevel focus app_id:Xmessage
if ! wait_until 10 is_active "$xid"; then
	result $name fail "_NET_ACTIVE_WINDOW is $(active), not xmessage's $xid$setup"
elif ! wait_count "$w" '^focus-out' 2 5 || ! wlrctl toplevel find app_id:Xmessage state:active; then
	result $name fail "the xdg window kept the keyboard, or xmessage is not said to be active$setup"
else
	result $name pass
fi

# A click near xmessage's top left corner (its label, not its button).
name=click-focuses-x11-window
wlrctl toplevel focus app_id:sw.focus
wait_count "$w" '^focus-in' 3 10
point $((xx + 6)) $((xy + 6))
wlrctl pointer click
if ! wait_until 10 is_active "$xid"; then
	result $name fail "_NET_ACTIVE_WINDOW is $(active), not xmessage's $xid$setup"
elif ! wait_count "$w" '^focus-out' 3 5; then
	result $name fail "the xdg window kept the keyboard$setup"
else
	result $name pass
fi

# A launcher-like layer surface on the top layer, on demand: it takes the
# keyboard as it maps; a task bar moves it to the xdg window; a click
# brings it back.
l=$out/layer.log
"$tests/layer-client" 0000ff 400 300 100 80 on-demand >"$l" 2>"$out/layer.err" &
pids="$pids $!"
wait_count "$l" '^enter' 1 20 || echo "the layer surface never had focus" >>"$out/setup.txt"
wlrctl toplevel focus app_id:sw.focus
wait_count "$l" '^leave' 1 10 || echo "the layer surface kept the keyboard" >>"$out/setup.txt"
[ -e "$out/setup.txt" ] && setup=" (setup: $(tr '\n' ';' <"$out/setup.txt"))"

name=click-focuses-on-demand-layer-surface
point 450 340
wlrctl pointer click
if wait_count "$l" '^enter' 2 10; then
	result $name pass
else
	result $name fail "the layer surface did not get the keyboard when clicked$setup"
fi

name=click-does-not-focus-non-interactive-layer-surface
n=$out/layer-none.log
"$tests/layer-client" 00ffff 400 150 100 80 none >"$n" 2>"$out/layer-none.err" &
pids="$pids $!"
if ! wait_count "$n" '^shown' 1 20; then
	result $name fail "the second layer surface was not shown"
else
	point 450 190
	wlrctl pointer click
	sleep 0.5
	if has_lines "$n" '^enter' 1; then
		result $name fail "it got the keyboard"
	elif has_lines "$l" '^leave' 2; then
		result $name fail "the focused layer surface lost the keyboard"
	else
		result $name pass
	fi
fi

# layer-client's cursor is magenta.
name=layer-cursor-kept-over-layer-surface
point 420 320
point 422 321
point 421 320
sleep 0.5
capture layer 423 322 10 10
cp "$tmp/layer.ppm" "$out/" 2>/dev/null
case " $(file_colours "$tmp/layer.ppm") " in
*" ff00ff "*) result $name pass ;;
*) result $name fail "no magenta cursor over the layer surface; the capture has $(file_colours "$tmp/layer.ppm")" ;;
esac

# A second X11 window goes where it covers no other, as xdg ones do.
name=x11-window-placed-beside-others
xmessage -title 'X11 second' 'second' >"$out/xmessage-2.log" 2>&1 &
xm2=$!
pids="$pids $xm2"
if ! wait_count "$log" 'xwayland: mapped window .*class Xmessage' 2 60; then
	result $name fail "the second xmessage window was not mapped within 60 s"
else
	xwininfo -name 'X11 second' >"$out/xwininfo-2.txt" 2>&1
	# box FILE: "X Y W H" of the window xwininfo described in FILE.
	box() {
		sed -n 's/^ *Absolute upper-left X: *//p; s/^ *Absolute upper-left Y: *//p;
			s/^ *Width: *//p; s/^ *Height: *//p' "$1" | tr '\n' ' '
	}
	# shellcheck disable=SC2046 # two boxes
	if awk -v a="$(box "$out/xwininfo.txt")" -v b="$(box "$out/xwininfo-2.txt")" 'BEGIN {
		split(a, p, " "); split(b, q, " ")
		if (q[3] == "") exit 1
		exit !(p[1] + p[3] <= q[1] || q[1] + q[3] <= p[1] || p[2] + p[4] <= q[2] || q[2] + q[4] <= p[2])
	}'; then
		result $name pass
	else
		result $name fail "it covers the first: $(box "$out/xwininfo.txt")and $(box "$out/xwininfo-2.txt")(x y w h)"
	fi
fi
kill $xm2 2>/dev/null
wait $xm2 2>/dev/null
pids=${pids%" $xm2"}

# A game's X11 window asks for fullscreen once mapped (EWMH): it fills
# the output.
name=x11-fullscreen-request-fills-output
mkfifo "$tmp/x11"
"$tests/x11-client" 'X11 game' <"$tmp/x11" >"$out/x11-client.log" 2>&1 &
pids="$pids $!"
exec 4>"$tmp/x11"
if ! wait_count "$log" 'xwayland: mapped window .*class SwX11' 1 60; then
	result $name fail "x11-client's window was not mapped within 60 s"
else
	echo fullscreen >&4
	if wait_count "$out/x11-client.log" '^configure 0 0 640 480$' 1 10; then
		result $name pass
	else
		result $name fail "not configured to 0,0 640x480: $(tr '\n' ';' <"$out/x11-client.log")"
	fi
fi
echo quit >&4
exec 4>&-

echo quit >&3
exec 3>&-
kill $syncway_pid
exited $syncway_pid 20
pids=${pids#" $syncway_pid"}
check_exit compositor-exits-cleanly "$log" "$exit_status" "xwayland: ready on"

result_summary
