#!/bin/sh
# Input settings from the environment (syncway(1), ENVIRONMENT): a bad value
# stops syncway at start-up with status 2 and a message naming it; the key
# repeat rate and delay set reach clients (an unmodified wayland-info's
# wl_keyboard.repeat_info), with no keyboard plugged in and while a virtual
# keyboard (wtype) is the one typing, and on libinput's keyboards (the PC's
# PS/2 keyboard); the libinput settings of a libinput pointer, as syncway
# reads them back from libinput. That pointer is QEMU's virtio mouse
# (tools/vm-run --input), on a kernel with CONFIG_VIRTIO_INPUT: without
# one, that subtest is skipped.
#   tools/vm-run -q [--input] -- sh compositor/tests/input-config.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/input-config/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
result_suite=input-config
build=${1:-build}
syncway=${SYNCWAY:-$build/compositor/syncway}
key_client=$build/compositor/tests/key-client
out=/results/input-config
rm -rf "$out"
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_RENDERER=pixman WLR_BACKENDS=headless
unset WAYLAND_DISPLAY DISPLAY
udev_db=

finish() {
	[ -z "$udev_db" ] || rm -rf "$udev_db"
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
# wait_for FILE STRING: whether FILE has STRING within 20 s.
wait_for() {
	n=200
	until grep -q "\$2" "\$1"; do
		n=\$((n - 1))
		[ \$n -gt 0 ] || return 1
		sleep 0.1
	done
}
wayland-info -i wl_seat >$out/seat-placeholder.txt 2>&1
$key_client 0000ff 100 100 >$out/window.log 2>&1 &
wait_for $out/window.log enter || exit 11
wtype a -s 5000 b &
wait_for $out/window.log 'key [0-9]* released' || exit 12
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

# The libinput devices. The root has no udev daemon, and libinput takes only
# the devices udev tagged: the tags go into udev's database here, as udev's
# input_id would set them: a mouse for devices with relative axes, a
# keyboard for the others (the PS/2 keyboard, the power button).
if [ ! -d /run/udev/data ]; then
	udev_db=/run/udev/data
	mkdir -p "$udev_db"
	for dev in /sys/class/input/event*; do
		[ -e "$dev/dev" ] || continue
		if [ "$(cat "$dev/device/capabilities/rel")" != 0 ]; then
			printf 'E:ID_INPUT=1\nE:ID_INPUT_MOUSE=1\n'
		else
			printf 'E:ID_INPUT=1\nE:ID_INPUT_KEY=1\nE:ID_INPUT_KEYBOARD=1\n'
		fi >"$udev_db/c$(cat "$dev/dev")"
	done
fi
pointer=
for dev in /sys/class/input/event*; do
	[ -e "$dev/dev" ] && [ "$(cat "$dev/device/capabilities/rel")" != 0 ] &&
		pointer=$(cat "$dev/device/name")
done
log=$out/libinput.log
if ! ls /dev/input/event* >/dev/null 2>&1; then
	result repeat-info-from-configuration-on-libinput-keyboard skip "no input device in this guest"
else
	SYNCWAY_REPEAT_RATE=40 SYNCWAY_REPEAT_DELAY=250 SYNCWAY_TAP=1 SYNCWAY_NATURAL_SCROLL=1 \
	SYNCWAY_ACCEL_PROFILE=flat SYNCWAY_ACCEL_SPEED=0.5 LIBSEAT_BACKEND=noop \
	WLR_BACKENDS=headless,libinput timeout 90 "$syncway" -v --report 0 --no-xwayland \
		-x -s "wayland-info -i wl_seat >$out/seat-libinput.txt 2>&1" >"$log" 2>&1
	run_problems "$log" $? "" || exits="${exits:+$exits; }$log: $run_problems"
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
fi
want="input $pointer: pointer, natural scroll on, acceleration flat, speed 0.50"
if [ -z "$pointer" ]; then
	result libinput-pointer-settings-applied skip "no pointer device in this guest (it takes \
tools/vm-run --input and a kernel with CONFIG_VIRTIO_INPUT)"
elif grep -qF "$want" "$log"; then
	result libinput-pointer-settings-applied pass
else
	result libinput-pointer-settings-applied fail "no '$want' in syncway's log: \
$(grep "input $pointer:" "$log")"
fi

if [ -z "$exits" ]; then
	result compositor-exits-cleanly pass
else
	result compositor-exits-cleanly fail "$exits"
fi

result_summary
