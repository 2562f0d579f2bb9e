#!/bin/sh
# What the guest can check of a session's environment (the VT switch,
# drag-and-drop and the cursor's look need a real seat; docs/compositor.md
# has the manual checks): the cursor theme and size come from XCURSOR_THEME
# and XCURSOR_SIZE, and clients started by syncway get them, with a size
# of 24 when none was set. Then the example session of
# docs/examples/startup, run as a display manager would start it (syncway
# without -s finds it in $XDG_CONFIG_HOME/syncway/startup), with shorter
# timeouts: waybar's bar shows, the session goes idle and swaylock locks
# it, the password typed unlocks it, and the bar is still there.
#   tools/vm-run -q -- sh compositor/tests/session.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/session/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
# shellcheck source=SCRIPTDIR/../../tests/lib/desktop.sh
. "${0%/*}/../../tests/lib/desktop.sh"
desktop_setup session "$1"
unset XCURSOR_THEME XCURSOR_SIZE

# shellcheck disable=SC2016 # for the shell syncway -s starts
show_env='echo "client sees XCURSOR_THEME=${XCURSOR_THEME:-unset} XCURSOR_SIZE=${XCURSOR_SIZE:-unset}"'

log=$out/cursor-from-env.log
XCURSOR_THEME=Adwaita XCURSOR_SIZE=48 timeout 60 "$syncway" -v --report 0 --no-xwayland -x \
	-s "$show_env" >"$log" 2>&1
check_exit cursor-theme-and-size-from-environment "$log" $? \
	"cursor theme Adwaita, size 48|client sees XCURSOR_THEME=Adwaita XCURSOR_SIZE=48"

log=$out/cursor-default.log
timeout 60 "$syncway" -v --report 0 --no-xwayland -x -s "$show_env" >"$log" 2>&1
check_exit cursor-size-24-for-clients-when-unset "$log" $? \
	"cursor theme (default), size 24|client sees XCURSOR_THEME=unset XCURSOR_SIZE=24"

# The example session. waybar asks the session bus for the desktop portal's
# settings and gives up without one: a login session has one, here it is
# started for the test.
password='syncway-session-test'
log=$out/example.log
mkdir -p "$tmp/config/syncway"
cp docs/examples/startup docs/examples/waybar.jsonc "$tmp/config/syncway/"
bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1 2>"$out/dbus.log")
bus_pid=$(echo "$bus" | sed -n 2p)
pids="$pids $bus_pid"
if ! guest_login "$password" "$tmp" || [ -z "$bus_pid" ]; then
	give_up example-session-setup "no root password or no session bus ($(head -c 200 "$out/dbus.log"))"
fi
# The lock's red tells it from anything waybar or the empty desktop draw.
if DBUS_SESSION_BUS_ADDRESS=$(echo "$bus" | sed -n 1p) XDG_CONFIG_HOME=$tmp/config \
	LOCK_AFTER=3 LOCK_COLOUR=ff0000 syncway_start "$log" -v --report 0 --no-xwayland &&
	wait_until 10 has "$log" "start-up script $tmp/config/syncway/startup"; then
	result startup-script-runs-without-s pass
else
	result startup-script-runs-without-s fail "no 'start-up script' line: $(tail -n 3 "$log" | tr '\n' ' ')"
fi

# The bar, at the top of the output. Until it shows, the pointer moves
# every second: input keeps swayidle from locking before the bar is seen.
bar='' tries=60
until has "$log" 'layer shell: mapped "waybar"' && bar=$(pixel 640 2) &&
	[ -n "$bar" ] && [ "$bar" != "0 0 0" ] && [ "$bar" != "255 0 0" ]; do
	tries=$((tries - 1))
	[ $tries -gt 0 ] || break
	wlrctl pointer move 1 0 2>/dev/null
	sleep 1
done
if [ $tries -gt 0 ]; then
	result example-bar-shows pass
else
	result example-bar-shows fail "no waybar surface within 60 s, or nothing drawn at its top ('$bar')"
fi

# Idle: no input from now on, so swayidle runs swaylock after 3 s.
if wait_until 30 has "$log" "told it locked the session" &&
	wait_pixel 10 640 2 "255 0 0"; then
	result idle-locks-the-example-session pass
else
	result idle-locks-the-example-session fail "not locked within 30 s, or the top of the output is '$colour', not swaylock's red"
fi

# The password typed unlocks; swayidle goes before the check, or it locks
# again 3 s after the last key.
wtype "$password" && wtype -k Return
if wait_until 20 has "$log" "session lock: unlocked by pid"; then
	result typed-password-unlocks-the-example-session pass
else
	result typed-password-unlocks-the-example-session fail "no unlock within 20 s: $(grep 'session lock' "$log" | tail -n 2 | tr '\n' ' ')"
fi
pkill -x swayidle
if wait_pixel 10 640 2 "$bar"; then
	result example-bar-still-there-after-unlock pass
else
	result example-bar-still-there-after-unlock fail "the top of the output is '$colour', the bar was '$bar'"
fi

syncway_stop example-session-exits-clean "syncway: held commits:"
result_summary
