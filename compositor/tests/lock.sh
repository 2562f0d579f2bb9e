#!/bin/sh
# ext-session-lock-v1 with an unmodified swaylock, in one syncway with two
# outputs, a wallpaper (swaybg, blue) and a window (key-client, green) that
# logs the keys it gets: while locked, screencopy (grim) sees only the lock
# (swaylock's red, or the compositor's black), keys go to the lock surface
# and nowhere else, the compositor's bindings are off; a second locker is
# refused; a locker killed with SIGKILL leaves the session locked (blank,
# no keys to windows, new windows get no focus, an output that comes is
# blank); a new swaylock takes over, unlocks with root's password (PAM,
# which the suite gives root through bind mounts over /etc/shadow and
# /etc/pam.d), and the window shows and gets keys again.
#   tools/vm-run -q -- sh compositor/tests/lock.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/lock/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
# shellcheck source=SCRIPTDIR/../../tests/lib/desktop.sh
. "${0%/*}/../../tests/lib/desktop.sh"
desktop_setup lock "$1"
key_client=$build/compositor/tests/key-client
password='syncway-lock-test'

guest_login "$password" "$tmp" ||
	give_up setup "cannot give root a password (openssl passwd, bind mounts)"

# Alt+Return starts $SYNCWAY_TERM: here a marker file.
SYNCWAY_TERM="touch $tmp/binding-ran" syncway_start "$log" -v --report 0 --no-xwayland --outputs 2 \
	--output 'HEADLESS-1:200x150,pos=0,0' --output 'HEADLESS-2:200x150,pos=200,0' ||
	give_up setup "no Wayland socket within 30 s"

swaybg -c '#0000ff' >"$out/swaybg.log" 2>&1 &
pids="$pids $!"
"$key_client" 00ff00 120 90 >"$out/window.log" 2>"$out/window.err" &
pids="$pids $!"
if ! wait_for "$out/window.log" enter 20 || ! wait_count "$log" 'mapped "wallpaper"' 2 20 ||
	! wait_colours '' "0000ff 00ff00" 10; then
	give_up setup "no window with the keyboard over the wallpaper; the outputs show: $colours"
fi

# The first locker, with its Wayland events logged: the keys it gets.
WAYLAND_DEBUG=1 swaylock -C /dev/null -u -e -c ff0000 >"$out/swaylock-1.log" 2>&1 &
locker=$!
pids="$pids $locker"
wait_for "$log" "told it locked the session" 20
if wait_colours '' ff0000 10; then
	result lock-hides-windows-from-screencopy pass
else
	result lock-hides-windows-from-screencopy fail "the outputs show $colours, not only the lock's ff0000"
fi

# wl_keyboard.key events in swaylock's WAYLAND_DEBUG log.
key_event='wl_keyboard[@#][0-9]+\.key\('
wtype abc
wait_count "$out/swaylock-1.log" "$key_event" 6 10
if has_lines "$out/swaylock-1.log" "$key_event" 6 && ! has_lines "$out/window.log" '^key ' 1 &&
	[ "$(tail -n 1 "$out/window.log")" = leave ]; then
	result keys-go-to-the-lock-surface-only pass
else
	result keys-go-to-the-lock-surface-only fail "swaylock got $(lines "$out/swaylock-1.log" \
"$key_event") key events of 6; window log: $(tr '\n' ' ' <"$out/window.log")"
fi

# Alt+Return: the marker must still be absent seconds later, at the end
# of the locked phases (compositor-bindings-off-while-locked). Escape
# first, so that swaylock (-e) has no password to check at the Return.
wtype -k Escape -M alt -k Return -m alt

timeout 20 swaylock -C /dev/null -u -c 00ffff >"$out/swaylock-refused.log" 2>&1
status=$?
if [ $status != 0 ] && [ $status != 124 ] && grep -q 'session lock: refused a lock from pid' "$log" &&
	kill -0 $locker 2>/dev/null; then
	result second-locker-refused-while-one-runs pass
else
	result second-locker-refused-while-one-runs fail "second swaylock exited $status; \
$(tail -n 2 "$out/swaylock-refused.log" | tr '\n' ' ')"
fi

kill -9 $locker
wait_for "$log" "died without unlocking" 10
problems=
wait_colours '' 000000 10 || problems="the outputs show $colours"
# A window that comes now gets no focus; keys reach no window.
"$key_client" ffff00 60 40 >"$out/window-2.log" 2>"$out/window-2.err" &
pids="$pids $!"
wait_for "$out/window-2.log" shown 20 || problems="$problems${problems:+; }second window not shown"
wtype xyz
sleep 1
colours
[ "$colours" = 000000 ] || problems="$problems${problems:+; }with a new window the outputs show $colours"
! has_lines "$out/window.log" '^key ' 1 || problems="$problems${problems:+; }the window got keys"
grep -q enter "$out/window-2.log" && problems="$problems${problems:+; }the new window got the keyboard"
! has_lines "$out/window-2.log" '^key ' 1 || problems="$problems${problems:+; }the new window got keys"
if [ -z "$problems" ]; then
	result locker-that-dies-leaves-session-locked pass
else
	result locker-that-dies-leaves-session-locked fail "$problems"
fi

# HEADLESS-2 off, then on elsewhere: swaybg maps a wallpaper on it again,
# which must not show.
if wlr-randr --output HEADLESS-2 --off >"$out/wlr-randr.log" 2>&1 &&
	wlr-randr --output HEADLESS-2 --on --pos 0,150 >>"$out/wlr-randr.log" 2>&1 &&
	wait_count "$log" 'mapped "wallpaper" on the background layer of HEADLESS-2' 2 20; then
	if wait_colours HEADLESS-2 000000 2; then
		result output-enabled-while-locked-is-blank pass
	else
		result output-enabled-while-locked-is-blank fail "HEADLESS-2 shows $colours"
	fi
else
	result output-enabled-while-locked-is-blank fail "HEADLESS-2 did not come back with a wallpaper"
fi
# Back where it was: the windows may be on it.
wlr-randr --output HEADLESS-2 --pos 200,0 >>"$out/wlr-randr.log" 2>&1

if [ -e "$tmp/binding-ran" ]; then
	result compositor-bindings-off-while-locked fail "Alt+Return started a terminal"
else
	result compositor-bindings-off-while-locked pass
fi

swaylock -C /dev/null -u -c ff0000 >"$out/swaylock-2.log" 2>&1 &
locker=$!
pids="$pids $locker"
problems=
wait_count "$log" "told it locked the session" 2 20 || problems="not told it locked"
grep -q "takes over the locked session" "$log" || problems="$problems${problems:+; }no take-over logged"
wait_colours '' ff0000 10 || problems="$problems${problems:+; }the outputs show $colours"
wtype "$password"
wtype -k Return
if ! exited $locker 30; then
	problems="$problems${problems:+; }swaylock still runs 30 s after the password"
elif [ "$exit_status" != 0 ]; then
	problems="$problems${problems:+; }swaylock exited $exit_status"
fi
grep -q "session lock: unlocked by pid $locker" "$log" || problems="$problems${problems:+; }no unlock logged"
if [ -z "$problems" ]; then
	result new-locker-takes-over-and-unlocks pass
else
	result new-locker-takes-over-and-unlocks fail "$problems"
fi

# The newest window has the keyboard again, and the bindings work.
problems=
wait_colours '' "0000ff 00ff00 ffff00" 10 || problems="the outputs show $colours"
wait_for "$out/window-2.log" enter 5 || problems="$problems${problems:+; }no window got the keyboard"
wtype q
wait_count "$out/window-2.log" '^key ' 2 5 || problems="$problems${problems:+; }no key reached the window"
wtype -M alt -k Return -m alt
wait_until 3 test -e "$tmp/binding-ran" || problems="$problems${problems:+; }Alt+Return did nothing"
if [ -z "$problems" ]; then
	result session-works-again-after-unlock pass
else
	result session-works-again-after-unlock fail "$problems"
fi

syncway_stop compositor-exits-cleanly "session lock: locked by pid|session lock: the locker (pid"

result_summary
