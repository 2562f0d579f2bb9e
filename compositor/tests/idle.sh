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
result_suite=idle
build=${1:-build}
syncway=${SYNCWAY:-$build/compositor/syncway}
inhibit_client=$build/compositor/tests/idle-inhibit-client
out=/results/idle
rm -rf "$out"
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_RENDERER=pixman
if [ -e /dev/dri/card0 ]; then
	export LIBSEAT_BACKEND=noop WLR_LIBINPUT_NO_DEVICES=1 WLR_BACKENDS=drm
	output=Virtual-1
else
	export WLR_BACKENDS=headless
	output=HEADLESS-1
fi
unset WAYLAND_DISPLAY DISPLAY

# wait_for FILE STRING SECONDS: whether FILE gets a line with STRING in
# time. Deadlines are in seconds of the clock: counting turns of the loop
# made them several times longer under a busy TCG guest.
wait_for() {
	wait_end=$(($(date +%s) + $3 + 1))
	until grep -qF -- "$2" "$1" 2>/dev/null; do
		[ "$(date +%s)" -lt "$wait_end" ] || return 1
		sleep 0.1
	done
}

# count FILE LINE: how many lines of FILE are exactly LINE.
count() {
	grep -cx -- "$2" "$1" 2>/dev/null
}

# wait_count FILE LINE N SECONDS: whether FILE has N such lines in time.
wait_count() {
	wait_end=$(($(date +%s) + $4 + 1))
	until [ "$(count "$1" "$2")" -ge "$3" ]; do
		[ "$(date +%s)" -lt "$wait_end" ] || return 1
		sleep 0.1
	done
}

log=$out/syncway.log
stats=$out/stats.jsonl
# --report 1: the --stats file is flushed every second.
"$syncway" -v --report 1 --stats "$stats" --no-xwayland --output "$output:640x480" >"$log" 2>&1 &
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

# --- idle notification -----------------------------------------------------
# Each idle and resume is a line of the file; the nth of each is awaited.
events=$out/swayidle-events
: >"$events"
swayidle -w timeout 1 "echo idle >>$events" resume "echo resumed >>$events" \
	>"$out/swayidle.log" 2>&1 &
swayidle_pid=$!

if wait_count "$events" idle 1 10; then
	result idle-fires-after-timeout-without-input pass
else
	result idle-fires-after-timeout-without-input fail \
		"no idle within 10 s: $(tail -n 2 "$out/swayidle.log" | tr '\n' ' ')"
fi

wtype -k a 2>>"$out/input.log"
if wait_count "$events" resumed 1 5; then
	result key-press-resumes-from-idle pass
else
	result key-press-resumes-from-idle fail "no resume within 5 s of a key (wtype)"
fi

if wait_count "$events" idle 2 10 && wlrctl pointer move 10 10 2>>"$out/input.log" &&
	wait_count "$events" resumed 2 5; then
	result pointer-motion-resumes-from-idle pass
else
	result pointer-motion-resumes-from-idle fail \
		"events: $(tr '\n' ' ' <"$events") (wanted idle, resumed after wlrctl pointer move)"
fi

# --- idle inhibition ---------------------------------------------------------
# A shown inhibitor resumes an idle session and holds it awake: 3 s is
# three timeouts.
wait_count "$events" idle 3 10
"$inhibit_client" >"$out/inhibitor-1.log" 2>&1 &
inhibitor=$!
idles=$(count "$events" idle)
if wait_for "$out/inhibitor-1.log" shown 10 && wait_count "$events" resumed 3 5 &&
	sleep 3 && [ "$(count "$events" idle)" = "$idles" ]; then
	result shown-inhibitor-keeps-session-awake pass
else
	result shown-inhibitor-keeps-session-awake fail \
		"events: $(tr '\n' ' ' <"$events"); client: $(tr '\n' ' ' <"$out/inhibitor-1.log")"
fi

# Its window unmapped, the inhibitor is still there and no longer counts.
kill -USR1 "$inhibitor" 2>/dev/null
if wait_for "$out/inhibitor-1.log" hidden 5 && wait_count "$events" idle $((idles + 1)) 5; then
	result hidden-inhibitor-lets-session-idle pass
else
	result hidden-inhibitor-lets-session-idle fail \
		"events: $(tr '\n' ' ' <"$events"); client: $(tr '\n' ' ' <"$out/inhibitor-1.log")"
fi
kill "$inhibitor" 2>/dev/null
wait "$inhibitor"

# A second one shown, then its inhibitor destroyed (a player that stops
# playing): the window stays, and no longer inhibits.
"$inhibit_client" >"$out/inhibitor-2.log" 2>&1 &
inhibitor=$!
resumes=$(count "$events" resumed)
wait_for "$out/inhibitor-2.log" shown 10 && wait_count "$events" resumed $((resumes + 1)) 5
idles=$(count "$events" idle)
sleep 1.5
awake=$(count "$events" idle)
kill -USR2 "$inhibitor" 2>/dev/null
if [ "$awake" = "$idles" ] && wait_for "$out/inhibitor-2.log" released 5 &&
	wait_count "$events" idle $((idles + 1)) 5; then
	result released-inhibitor-lets-session-idle pass
else
	result released-inhibitor-lets-session-idle fail \
		"events: $(tr '\n' ' ' <"$events"); client: $(tr '\n' ' ' <"$out/inhibitor-2.log")"
fi
kill "$inhibitor" 2>/dev/null
wait "$inhibitor"

# A third one shown, then killed: its inhibitor goes with its connection.
"$inhibit_client" >"$out/inhibitor-3.log" 2>&1 &
inhibitor=$!
resumes=$(count "$events" resumed)
wait_for "$out/inhibitor-3.log" shown 10 && wait_count "$events" resumed $((resumes + 1)) 5
idles=$(count "$events" idle)
kill -KILL "$inhibitor" 2>/dev/null
wait "$inhibitor" 2>/dev/null
if wait_count "$events" idle $((idles + 1)) 5; then
	result dead-clients-inhibitor-lets-session-idle pass
else
	result dead-clients-inhibitor-lets-session-idle fail \
		"events: $(tr '\n' ' ' <"$events"); client: $(tr '\n' ' ' <"$out/inhibitor-3.log")"
fi
kill "$swayidle_pid" 2>/dev/null
wait "$swayidle_pid" 2>/dev/null

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
kill "$shm"
wait "$shm" 2>/dev/null

# --- gamma -------------------------------------------------------------------
# The output has no gamma LUT: wlroots tells wlsunset so at once.
wlsunset -l 0 -L 0 >"$out/wlsunset.log" 2>&1 &
sunset=$!
# wlsunset 0.4 names the output by its registry number.
if wait_for "$out/wlsunset.log" "gamma control of output" 10 &&
	grep -q "^gamma control of output [^ ]* failed" "$out/wlsunset.log" &&
	sleep 1 && kill -0 "$sunset" 2>/dev/null && kill -0 "$pid" 2>/dev/null; then
	result gamma-control-without-lut-tells-client-failed pass
else
	result gamma-control-without-lut-tells-client-failed fail \
		"wlsunset: $(tail -n 3 "$out/wlsunset.log" | tr '\n' ' ')"
fi
kill "$sunset" 2>/dev/null
wait "$sunset" 2>/dev/null

# --- the compositor after all that ----------------------------------------------
kill -TERM "$pid"
wait "$pid"
status=$?
if run_problems "$log" "$status" ""; then
	result compositor-exits-cleanly-after-session-clients pass
else
	tail -n 6 "$log" | sed 's/^/    /'
	result compositor-exits-cleanly-after-session-clients fail "$run_problems"
fi

result_summary
