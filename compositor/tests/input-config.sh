#!/bin/sh
# Input settings from the environment (syncway(1), ENVIRONMENT): a bad value
# stops syncway at start-up with status 2 and a message naming it; the key
# repeat rate and delay set reach clients (an unmodified wayland-info's
# wl_keyboard.repeat_info), with no keyboard plugged in and while a virtual
# keyboard (wtype) is the one typing, and on libinput's keyboards (the PC's
# PS/2 keyboard); the libinput settings of a mouse and a touchpad (tap,
# natural scroll, acceleration), as syncway reads them back from libinput
# and as a window receives their motion, scrolling and taps. The mouse and
# the touchpad are the test's own, plugged in through uinput
# (uinput-devices; the guests' kernels have CONFIG_INPUT_UINPUT).
#   tools/vm-run -q -- sh compositor/tests/input-config.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/input-config/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
# For wait_until, wait_for, has and after; the steps syncway runs source it
# too.
lib=$(cd "${0%/*}/../../tests/lib" && pwd)
# shellcheck source=SCRIPTDIR/../../tests/lib/desktop.sh
. "$lib/desktop.sh"
result_suite=input-config
build=${1:-build}
syncway=${SYNCWAY:-$build/compositor/syncway}
key_client=$build/compositor/tests/key-client
pointer_client=$build/compositor/tests/constraints-client
uinput=$build/compositor/tests/uinput-devices
out=/results/input-config
rm -rf "$out"
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_RENDERER=pixman WLR_BACKENDS=headless
unset WAYLAND_DISPLAY DISPLAY
udev_db=
scratch=

finish() {
	[ -z "$udev_db" ] || rm -rf "$udev_db"
	[ -z "$scratch" ] || rm -rf "$scratch"
}
trap finish EXIT

# Each bad value alone; syncway would run `true` and exit 0 if it took it.
problems=
for setting in SYNCWAY_REPEAT_RATE=fast SYNCWAY_REPEAT_RATE=1001 SYNCWAY_REPEAT_DELAY=0 \
	SYNCWAY_TAP=yes SYNCWAY_NATURAL_SCROLL=2 SYNCWAY_ACCEL_PROFILE=bouncy \
	SYNCWAY_ACCEL_SPEED=1.5 SYNCWAY_ACCEL_SPEED=nan; do
	name=${setting%%=*} value=${setting#*=}
	log=$out/bad-$name-$value.log
	env "$setting" timeout 30 "$syncway" --report 0 --no-xwayland -x -s true >"$log" 2>&1
	status=$?
	if [ $status != 2 ] || ! grep -q "^syncway: $name wants .*, not '$value'$" "$log"; then
		problems="${problems:+$problems; }$setting: status $status, \
$(grep -m 1 "$name" "$log" || echo "$name not named")"
	fi
done
if [ -z "$problems" ]; then
	result bad-setting-exits-2-naming-it pass
else
	result bad-setting-exits-2-naming-it fail "$problems"
fi

# wayland-info's seat, first with no keyboard but syncway's stand-in, then
# while wtype's keyboard is the seat's: it typed "a" (the window says so),
# and sleeps 5 s before typing "b" (wtype -s).
steps=$out/steps.sh
cat >"$steps" <<EOF
. $lib/desktop.sh
wayland-info -i wl_seat >$out/seat-placeholder.txt 2>&1
$key_client 0000ff 100 100 >$out/window.log 2>&1 &
wait_for $out/window.log enter 20 || exit 11
wtype a -s 5000 b &
wait_for $out/window.log 'key [0-9]* released' 20 || exit 12
wayland-info -i wl_seat >$out/seat-virtual.txt 2>&1
EOF
log=$out/repeat.log
SYNCWAY_REPEAT_RATE=40 SYNCWAY_REPEAT_DELAY=250 timeout 90 "$syncway" -v --report 0 --no-xwayland \
	-x -s "sh $steps" >"$log" 2>&1
status=$?
exits=
run_problems "$log" $status "" || exits="$log: $run_problems"
for keyboard in placeholder virtual; do
	name=repeat-info-from-configuration
	[ $keyboard = virtual ] && name=repeat-info-from-configuration-on-virtual-keyboard
	seat=$out/seat-$keyboard.txt
	if grep -q 'keyboard repeat rate: 40$' "$seat" && grep -q 'keyboard repeat delay: 250$' "$seat"; then
		result $name pass
	elif [ ! -s "$seat" ]; then
		result $name fail "no wayland-info output (syncway exited $status)"
	else
		result $name fail "wayland-info says: $(grep 'repeat' "$seat" | tr -s '\t\n' '  ')"
	fi
done

# The libinput devices: the PC's PS/2 keyboard, and a mouse and a touchpad
# of this test's own through uinput (uinput-devices, which moves, scrolls
# and taps them on command).
# The fifo, and the window's output that the steps poll, live on the
# guest's tmpfs: /results (9p) has no fifos, and a file polled there while
# it grows once came back with holes.
scratch=$XDG_RUNTIME_DIR/input-config
rm -rf "$scratch"
mkdir -p "$scratch"
fifo=$scratch/uinput.fifo
window=$scratch/pointer.out
mkfifo "$fifo"
"$uinput" "$fifo" >"$out/uinput.out" 2>&1 &
uinput_pid=$!
uinput_ready() { has_lines "$out/uinput.out" '^ready$' 1 || not_running $uinput_pid; }
wait_until 10 uinput_ready
# The root has no udev daemon, and libinput takes only the devices udev
# tagged: the tags go into udev's database here, as udev's input_id would
# set them: a touchpad for a pointing device with absolute axes
# (INPUT_PROP_POINTER), a mouse for devices with relative axes, a keyboard
# for the others (the PS/2 keyboard, the power button).
if [ ! -d /run/udev/data ]; then
	udev_db=/run/udev/data
	mkdir -p "$udev_db"
	for dev in /sys/class/input/event*; do
		[ -e "$dev/dev" ] || continue
		if [ $((0x$(cat "$dev/device/properties") & 1)) = 1 ]; then
			printf 'E:ID_INPUT=1\nE:ID_INPUT_TOUCHPAD=1\n'
		elif [ "$(cat "$dev/device/capabilities/rel")" != 0 ]; then
			printf 'E:ID_INPUT=1\nE:ID_INPUT_MOUSE=1\n'
		else
			printf 'E:ID_INPUT=1\nE:ID_INPUT_KEY=1\nE:ID_INPUT_KEYBOARD=1\n'
		fi >"$udev_db/c$(cat "$dev/dev")"
	done
fi
# With the settings below, a mouse motion of 10 reaches the window as 15
# (flat acceleration at speed 0.5 multiplies by 1.5), a detent of the
# wheel up as a scroll of +15 (natural scrolling: without it, -15) and a
# tap on the touchpad as a button press. The window is constraints-client
# at 0,0; the first motion brings the pointer into it.
steps=$out/libinput-steps.sh
cat >"$steps" <<EOF
. $lib/desktop.sh
# saw MARK REGEX: whether the window printed a line matching REGEX after
# the mark MARK.
saw() { after $window "\$1" | grep -q -- "\$2"; }
wayland-info -i wl_seat >$out/seat-libinput.txt 2>&1
$pointer_client >>$window 2>&1 &
client=\$!
wait_for $window '^ready\$' 20 || exit 11
echo 'move 20 20' >$fifo
wait_for $window '^enter ' 20 || exit 12
echo mark-move >>$window
echo 'move 10 0' >$fifo
wait_until 20 saw mark-move '^relative ' || exit 13
echo mark-wheel >>$window
echo 'wheel 1' >$fifo
wait_until 20 saw mark-wheel '^axis 0 ' || exit 14
echo mark-tap >>$window
echo tap >$fifo
wait_until 20 saw mark-tap '^button\$' || exit 15
kill \$client
EOF
log=$out/libinput.log
: >"$window"
SYNCWAY_REPEAT_RATE=40 SYNCWAY_REPEAT_DELAY=250 SYNCWAY_TAP=1 SYNCWAY_NATURAL_SCROLL=1 \
SYNCWAY_ACCEL_PROFILE=flat SYNCWAY_ACCEL_SPEED=0.5 LIBSEAT_BACKEND=noop \
WLR_BACKENDS=headless,libinput timeout 120 "$syncway" -v --report 0 --no-xwayland \
	-x -s "sh $steps" >"$log" 2>&1
run_problems "$log" $? "" || exits="${exits:+$exits; }$log: $run_problems"
kill -0 $uinput_pid 2>/dev/null && echo quit >"$fifo"
wait $uinput_pid
uinput_status=$?
cp "$window" "$out/pointer.out"

seat=$out/seat-libinput.txt
# The seat's keyboard is the last one plugged in: one of libinput's.
keyboards=$(grep -v placeholder "$log" | grep -c 'input .*: keyboard, repeat 40/s after 250 ms$')
if [ "$keyboards" -ge 1 ] && grep -q 'keyboard repeat rate: 40$' "$seat" &&
	grep -q 'keyboard repeat delay: 250$' "$seat"; then
	result repeat-info-from-configuration-on-libinput-keyboard pass
else
	result repeat-info-from-configuration-on-libinput-keyboard fail "$keyboards libinput \
keyboards with the repeat set; wayland-info says: $(grep 'repeat' "$seat" | tr -s '\t\n' '  ')"
fi
if [ $uinput_status != 0 ] || ! grep -q '^ready$' "$out/uinput.out"; then
	for name in libinput-mouse-settings-applied libinput-touchpad-settings-applied \
		flat-acceleration-reaches-the-window natural-scroll-reaches-the-window \
		tap-gives-a-button-press; do
		result $name fail "no uinput devices (status $uinput_status): $(tail -n 1 "$out/uinput.out")"
	done
else
	for device in mouse touchpad; do
		settings="natural scroll on, acceleration flat, speed 0.50"
		[ $device = touchpad ] && settings="tap on, $settings"
		want="input syncway test $device: pointer, $settings"
		if grep -qF "$want" "$log"; then
			result libinput-$device-settings-applied pass
		else
			result libinput-$device-settings-applied fail "no '$want' in syncway's log: \
$(grep "input syncway test $device:" "$log")"
		fi
	done
	got=$(after "$window" mark-move | grep -m 1 '^relative ')
	if [ "$got" = "relative 15.00 0.00 10.00 0.00" ]; then
		result flat-acceleration-reaches-the-window pass
	else
		result flat-acceleration-reaches-the-window fail "a motion of 10,0 came as \
'${got:-nothing}' (want 'relative 15.00 0.00 10.00 0.00': accelerated, then unaccelerated)"
	fi
	got=$(after "$window" mark-wheel | grep -m 1 '^axis ')
	if [ "$got" = "axis 0 15.00" ]; then
		result natural-scroll-reaches-the-window pass
	else
		result natural-scroll-reaches-the-window fail "a detent up came as '${got:-nothing}' \
(want 'axis 0 15.00')"
	fi
	if after "$window" mark-tap | grep -q '^button$'; then
		result tap-gives-a-button-press pass
	else
		result tap-gives-a-button-press fail "no button press after the tap: \
$(after "$window" mark-tap | tr '\n' ' ')"
	fi
fi

if [ -z "$exits" ]; then
	result compositor-exits-cleanly pass
else
	result compositor-exits-cleanly fail "$exits"
fi

result_summary
