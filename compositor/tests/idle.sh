#!/bin/sh
# Idle, idle inhibition, output power and gamma against one syncway, in a
# guest, with the clients a session uses, unmodified from Debian:
#   swayidle (ext-idle-notify-v1) with a 1 s timeout goes idle without
#     input, and a key (wtype) or pointer motion (wlrctl) resumes it;
#   a window that inhibits idle (idle-inhibit-client,
#     idle-inhibit-unstable-v1) keeps it awake while shown, and not once
#     hidden, released or its client dead;
#   wlopm (wlr-output-power-management) turns the output off, which then
#     stops presenting the frames weston-simple-shm keeps asking for, and
#     on again, which presents them again (counted in syncway's --stats);
#   wlsunset (wlr-gamma-control) binds and is told "failed": neither
#     virtio-gpu's CRTC nor a headless output has a gamma LUT, and syncway
#     goes on.
# On the DRM backend where there is a card0 (virtio-gpu; no seat daemon,
# no input devices), so that what goes off and on is a KMS CRTC; on the
# headless backend where there is none.
#   tools/vm-run -q -- sh compositor/tests/idle.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/idle/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
# shellcheck source=SCRIPTDIR/../../tests/lib/desktop.sh
. "${0%/*}/../../tests/lib/desktop.sh"
desktop_setup idle "$1"
inhibit_client=$build/compositor/tests/idle-inhibit-client
if [ -e /dev/dri/card0 ]; then
	export LIBSEAT_BACKEND=noop WLR_LIBINPUT_NO_DEVICES=1 WLR_BACKENDS=drm
	output=Virtual-1
else
	output=HEADLESS-1
fi

stats=$out/stats.jsonl
# --report 1: the --stats file is flushed every second.
syncway_start "$log" -v --report 1 --stats "$stats" --no-xwayland --output "$output:640x480" ||
	give_up compositor-starts "no Wayland socket within 30 s"

# --- idle notification -----------------------------------------------------
# Each idle and resume is a line of the file; the nth of each is awaited.
events=$out/swayidle-events
: >"$events"
swayidle -w timeout 1 "echo idle >>$events" resume "echo resumed >>$events" \
	>"$out/swayidle.log" 2>&1 &
swayidle_pid=$!

if wait_count "$events" '^idle$' 1 10; then
	result idle-fires-after-timeout-without-input pass
else
	result idle-fires-after-timeout-without-input fail \
		"no idle within 10 s: $(tail -n 2 "$out/swayidle.log" | tr '\n' ' ')"
fi

wtype -k a 2>>"$out/input.log"
if wait_count "$events" '^resumed$' 1 5; then
	result key-press-resumes-from-idle pass
else
	result key-press-resumes-from-idle fail "no resume within 5 s of a key (wtype)"
fi

if wait_count "$events" '^idle$' 2 10 && wlrctl pointer move 10 10 2>>"$out/input.log" &&
	wait_count "$events" '^resumed$' 2 5; then
	result pointer-motion-resumes-from-idle pass
else
	result pointer-motion-resumes-from-idle fail \
		"events: $(tr '\n' ' ' <"$events") (wanted idle, resumed after wlrctl pointer move)"
fi

# --- idle inhibition ---------------------------------------------------------
# show_inhibitor N: starts idle-inhibit-client N on an idle session (its
# pid in inhibitor); whether it is shown and the session resumes.
show_inhibitor() {
	resumes=$(lines "$events" '^resumed$')
	"$inhibit_client" >"$out/inhibitor-$1.log" 2>&1 &
	inhibitor=$!
	wait_for "$out/inhibitor-$1.log" '^shown$' 10 && wait_count "$events" '^resumed$' $((resumes + 1)) 5
}
# said N: the events, and what inhibitor N said.
said() {
	echo "events: $(tr '\n' ' ' <"$events"); client: $(tr '\n' ' ' <"$out/inhibitor-$1.log")"
}

# A shown inhibitor resumes an idle session and holds it awake: 3 s is
# three timeouts.
wait_count "$events" '^idle$' 3 10
idles=$(lines "$events" '^idle$')
if show_inhibitor 1 && sleep 3 && [ "$(lines "$events" '^idle$')" = "$idles" ]; then
	result shown-inhibitor-keeps-session-awake pass
else
	result shown-inhibitor-keeps-session-awake fail "$(said 1)"
fi

# Its window unmapped, the inhibitor is still there and no longer counts.
kill -USR1 "$inhibitor" 2>/dev/null
if wait_for "$out/inhibitor-1.log" '^hidden$' 5 && wait_count "$events" '^idle$' $((idles + 1)) 5; then
	result hidden-inhibitor-lets-session-idle pass
else
	result hidden-inhibitor-lets-session-idle fail "$(said 1)"
fi
stop "$inhibitor"

# A second one shown, then its inhibitor destroyed (a player that stops
# playing): the window stays, and no longer inhibits.
show_inhibitor 2
idles=$(lines "$events" '^idle$')
sleep 1.5
awake=$(lines "$events" '^idle$')
kill -USR2 "$inhibitor" 2>/dev/null
if [ "$awake" = "$idles" ] && wait_for "$out/inhibitor-2.log" '^released$' 5 &&
	wait_count "$events" '^idle$' $((idles + 1)) 5; then
	result released-inhibitor-lets-session-idle pass
else
	result released-inhibitor-lets-session-idle fail "$(said 2)"
fi
stop "$inhibitor"

# A third one shown, then killed: its inhibitor goes with its connection.
show_inhibitor 3
idles=$(lines "$events" '^idle$')
kill -KILL "$inhibitor" 2>/dev/null
wait "$inhibitor" 2>/dev/null
if wait_count "$events" '^idle$' $((idles + 1)) 5; then
	result dead-clients-inhibitor-lets-session-idle pass
else
	result dead-clients-inhibitor-lets-session-idle fail "$(said 3)"
fi
stop "$swayidle_pid"

# --- output power --------------------------------------------------------------
# presented: frames the output presented so far, as the --stats file has
# them (flushed every second).
presented() {
	grep -c "\"type\":\"frame\",[^}]*\"output\":\"$output\",[^}]*\"presented\":true" "$stats"
}
# power: the output's mode as wlopm lists it.
power() {
	wlopm 2>>"$out/wlopm.log" | sed -n "s/^$output //p"
}

weston-simple-shm >"$out/simple-shm.log" 2>&1 &
shm=$!
sleep 2
before=$(presented)
wlopm --off "$output" 2>>"$out/wlopm.log"
listed_off=$(power)
# Frames in flight when it went off are flushed within a second; after
# that, two more seconds without one.
sleep 1.5
off_start=$(presented)
sleep 2.2
off_end=$(presented)
if [ "$listed_off" = off ] && [ "$before" -gt 0 ] && [ "$off_end" = "$off_start" ] &&
	grep -q "$output: turned off" "$log"; then
	result output-powered-off-stops-presenting pass
else
	result output-powered-off-stops-presenting fail \
		"wlopm lists '$listed_off'; frames presented: $before before, $off_start..$off_end while off"
fi

wlopm --on "$output" 2>>"$out/wlopm.log"
listed_on=$(power)
sleep 2.2
on_end=$(presented)
if [ "$listed_on" = on ] && [ "$on_end" -gt "$off_end" ] && kill -0 "$shm" 2>/dev/null; then
	result output-powered-on-presents-again pass
else
	result output-powered-on-presents-again fail \
		"wlopm lists '$listed_on'; frames presented: $off_end while off, $on_end after"
fi
stop "$shm"

# --- gamma -------------------------------------------------------------------
# The output has no gamma LUT: wlroots tells wlsunset so at once.
wlsunset -l 0 -L 0 >"$out/wlsunset.log" 2>&1 &
sunset=$!
# wlsunset 0.4 names the output by its registry number.
if wait_for "$out/wlsunset.log" "gamma control of output" 10 &&
	grep -q "^gamma control of output [^ ]* failed" "$out/wlsunset.log" &&
	sleep 1 && kill -0 "$sunset" 2>/dev/null && kill -0 "$syncway_pid" 2>/dev/null; then
	result gamma-control-without-lut-tells-client-failed pass
else
	result gamma-control-without-lut-tells-client-failed fail \
		"wlsunset: $(tail -n 3 "$out/wlsunset.log" | tr '\n' ' ')"
fi
stop "$sunset"

# --- the compositor after all that ----------------------------------------------
syncway_stop compositor-exits-cleanly-after-session-clients ""

result_summary
