#!/bin/sh
# The everyday clients of a desktop against one syncway, in a guest, each
# unmodified from Debian: grim captures outputs by name (xdg-output,
# screencopy),
# wl-clipboard copies, pastes and watches the clipboard and the primary
# selection through wlr-data-control, and foot is told the fractional scale
# of a 1.5 output (fractional-scale-v1). waybar, which needs xdg-output and
# the layer shell, is session.sh's: the example session starts it.
#   tools/vm-run -q -- sh compositor/tests/desktop.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/desktop/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
# shellcheck source=SCRIPTDIR/../../tests/lib/desktop.sh
. "${0%/*}/../../tests/lib/desktop.sh"
desktop_setup desktop "$1"

# HEADLESS-1 at 1.5: 1280x720 pixels, 853x480 in the layout; HEADLESS-2
# right of it at 1.
syncway_start "$log" -v --report 0 --no-xwayland --outputs 2 --output 'HEADLESS-1:1280x720,scale=1.5,pos=0,0' \
	--output 'HEADLESS-2:320x240,pos=853,0' ||
	give_up compositor-starts "no Wayland socket within 30 s"

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
wait_until 10 has "$tmp/watch.txt" first
wl-copy second 2>>"$out/wl-copy.log"
wait_until 10 has "$tmp/watch.txt" second
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

syncway_stop compositor-exits-clean-after-the-desktop-clients "syncway: held commits:"
result_summary
