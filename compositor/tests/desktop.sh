#!/bin/sh
# The everyday clients of a desktop against one syncway, in a guest, each
# unmodified from Debian: waybar draws its bar (it needs xdg-output and the
# layer shell), grim captures outputs by name (xdg-output, screencopy),
# wl-clipboard copies, pastes and watches the clipboard and the primary
# selection through wlr-data-control, and foot is told the fractional scale
# of a 1.5 output (fractional-scale-v1).
#   tools/vm-run -q -- sh compositor/tests/desktop.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/desktop/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
result_suite=desktop
build=${1:-build}
syncway=${SYNCWAY:-$build/compositor/syncway}
out=/results/desktop
rm -rf "$out"
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_RENDERER=pixman WLR_BACKENDS=headless
unset WAYLAND_DISPLAY DISPLAY
tmp=$(mktemp -d)

# wait_for FILE STRING SECONDS: whether FILE gets a line with STRING in time.
wait_for() {
	wait_left=$(($3 * 10))
	while [ $wait_left -gt 0 ]; do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		wait_left=$((wait_left - 1))
	done
	return 1
}

# pixel X Y: the colour at logical X,Y as "R G B", from a 1x1 capture.
pixel() {
	grim -s 1 -g "$1,$2 1x1" -t ppm "$tmp/px.ppm" 2>>"$out/grim.log" &&
		od -An -tu1 -j11 -N3 "$tmp/px.ppm" | tr -s ' ' | sed 's/^ //'
}

# ppm_size FILE: "W H" of a binary PPM (grim writes "P6\nW H\n255\n").
ppm_size() {
	head -c 20 "$1" | sed -n 2p
}

# HEADLESS-1 at 1.5: 1280x720 pixels, 853x480 in the layout; HEADLESS-2
# right of it at 1.
log=$out/syncway.log
"$syncway" -v --report 0 --no-xwayland --outputs 2 --output 'HEADLESS-1:1280x720,scale=1.5,pos=0,0' \
	--output 'HEADLESS-2:320x240,pos=853,0' >"$log" 2>&1 &
pid=$!
if ! wait_for "$log" "running on WAYLAND_DISPLAY=" 30; then
	tail -n 20 "$log" | sed 's/^/    /'
	result compositor-starts fail "no Wayland socket within 30 s"
	kill "$pid" 2>/dev/null
	result_summary
	exit
fi
WAYLAND_DISPLAY=$(sed -n 's/^syncway: running on WAYLAND_DISPLAY=//p' "$log")
export WAYLAND_DISPLAY

# The bar: one module of fixed text, a colour no one else draws.
mkdir -p "$tmp/waybar"
cat >"$tmp/waybar/config" <<'EOF'
{ "layer": "top", "position": "top", "height": 30, "output": "HEADLESS-1",
  "modules-left": ["custom/hello"],
  "custom/hello": { "format": "syncway" } }
EOF
cat >"$tmp/waybar/style.css" <<'EOF'
* { font-family: DejaVu Sans; font-size: 12px; }
window#waybar { background: #ff00ff; color: #000000; }
EOF
# waybar asks the session bus for the desktop portal's settings and gives
# up without one; a login session has one, the guest has not.
dbus-run-session -- waybar -c "$tmp/waybar/config" -s "$tmp/waybar/style.css" \
	>"$out/waybar.log" 2>&1 &
waybar_pid=$!
if wait_for "$log" 'layer shell: mapped "waybar" on the top layer of HEADLESS-1' 60; then
	# Mapped is not drawn: the first buffer may still be on its way.
	colour= tries=50
	while [ $tries -gt 0 ]; do
		colour=$(pixel 600 15)
		[ "$colour" = "255 0 255" ] && break
		sleep 0.2
		tries=$((tries - 1))
	done
	if [ "$colour" = "255 0 255" ]; then
		result waybar-draws-its-bar-on-the-named-output pass
	else
		result waybar-draws-its-bar-on-the-named-output fail \
			"the bar's middle is '$colour', not 255 0 255 (magenta)"
	fi
else
	tail -n 5 "$out/waybar.log" | sed 's/^/    /'
	result waybar-draws-its-bar-on-the-named-output fail \
		"waybar mapped no layer surface on HEADLESS-1 within 60 s (waybar.log)"
fi

# grim by output name: each output's pixels, whole.
sizes=
for o in HEADLESS-1 HEADLESS-2; do
	grim -o "$o" -t ppm "$tmp/$o.ppm" 2>>"$out/grim.log" &&
		sizes="$sizes$o $(ppm_size "$tmp/$o.ppm");"
done
if [ "$sizes" = "HEADLESS-1 1280 720;HEADLESS-2 320 240;" ]; then
	result grim-captures-each-output-by-name pass
else
	result grim-captures-each-output-by-name fail \
		"captured '$sizes', expected HEADLESS-1 1280x720 and HEADLESS-2 320x240 ($(tail -n 1 "$out/grim.log"))"
fi

# wl-clipboard: --watch needs wlr-data-control (it refuses to run without).
wl-paste --watch sh -c 'cat; echo' >"$tmp/watch.txt" 2>"$out/wl-paste-watch.log" &
watch_pid=$!
sleep 0.5
wl-copy first 2>>"$out/wl-copy.log"
wait_for "$tmp/watch.txt" first 10
wl-copy second 2>>"$out/wl-copy.log"
wait_for "$tmp/watch.txt" second 10
pasted=$(timeout 10 wl-paste -n 2>>"$out/wl-paste.log")
if [ "$pasted" = second ] && grep -qx first "$tmp/watch.txt" && grep -qx second "$tmp/watch.txt"; then
	result wl-copy-reaches-wl-paste-and-its-watch pass
else
	result wl-copy-reaches-wl-paste-and-its-watch fail \
		"pasted '$pasted'; the watch saw '$(tr '\n' ' ' <"$tmp/watch.txt")'; $(tail -n 1 "$out/wl-paste-watch.log")"
fi
kill "$watch_pid" 2>/dev/null

wl-copy -p primary-text 2>>"$out/wl-copy.log"
pasted=$(timeout 10 wl-paste -p -n 2>>"$out/wl-paste.log")
clip=$(timeout 10 wl-paste -n 2>>"$out/wl-paste.log")
if [ "$pasted" = primary-text ] && [ "$clip" = second ]; then
	result primary-selection-is-apart-from-clipboard pass
else
	result primary-selection-is-apart-from-clipboard fail \
		"primary '$pasted' (expected primary-text), clipboard '$clip' (expected second)"
fi

# fractional-scale-v1: 1.5 is 180/120. New windows open on the output under
# the pointer, which is where HEADLESS-2's arrival left it: it goes to
# HEADLESS-1 first.
wlrctl pointer move -600 0 2>>"$out/wlrctl.log"
WAYLAND_DEBUG=client timeout 30 foot -e sleep 3 >/dev/null 2>"$out/foot.log"
if grep -qE 'wp_fractional_scale_v1[@#][0-9]+\.preferred_scale\(180\)' "$out/foot.log"; then
	result foot-gets-fractional-scale-of-its-output pass
else
	result foot-gets-fractional-scale-of-its-output fail \
		"foot was not sent preferred_scale(180): $(grep -o 'wp_fractional_scale[^ ]*' "$out/foot.log" | sort -u | tr '\n' ' ')"
fi

kill "$waybar_pid" 2>/dev/null
wait "$waybar_pid" 2>/dev/null
kill -TERM "$pid"
wait "$pid"
status=$?
if run_problems "$log" "$status" "syncway: held commits:"; then
	result compositor-exits-clean-after-the-desktop-clients pass
else
	tail -n 6 "$log" | sed 's/^/    /'
	result compositor-exits-clean-after-the-desktop-clients fail "$run_problems"
fi
rm -rf "$tmp"
result_summary
