#!/bin/sh
# The pointer as games use it, against one syncway in a guest:
# pointer-constraints (a locked pointer does not move the cursor, a
# confined one stays in its region, for relative and absolute motion
# alike, and unlocking puts the cursor at the client's hint),
# relative-pointer (deltas reach the client with pointer focus only) and
# cursor-shape-v1 (only the client with pointer focus changes the cursor).
# Clients: constraints-client (three windows of 400x300, placed side by
# side from the top left of a 1280x720 output) and wlr-virtual-pointer
# through wlrctl (relative) and pointer-client (absolute).
#   tools/vm-run -q -- sh compositor/tests/pointer.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/pointer/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
# shellcheck source=SCRIPTDIR/../../tests/lib/desktop.sh
. "${0%/*}/../../tests/lib/desktop.sh"
desktop_setup pointer "$1"
client=$build/compositor/tests/constraints-client
absolute=$build/compositor/tests/pointer-client
export XCURSOR_THEME=Adwaita XCURSOR_SIZE=24

# move DX DY: a relative motion, through a virtual pointer.
move() {
	wlrctl pointer move "$1" "$2" >>"$out/input.log" 2>&1
}

# to X Y: an absolute motion to X, Y (fractions of the 1280x720 layout).
to() {
	"$absolute" "$1" "$2" >>"$out/input.log" 2>&1
}

# cursor NAME X Y: the 48x48 pixels around layout X,Y, cursor included.
cursor() {
	grim -c -g "$(($2 - 24)),$(($3 - 24)) 48x48" -t ppm "$out/$1.ppm" 2>>"$out/input.log"
}

# start NAME ARGS...: a constraints-client appending to $out/NAME.out (the
# test appends marks there too), mapped; what went wrong shows there. $!
# is its pid after.
start() {
	name=$1
	shift
	"$client" "$@" >>"$out/$name.out" 2>&1 &
	wait_for "$out/$name.out" '^ready$' 20
}

syncway_start "$log" -v --report 0 --no-xwayland --output 'HEADLESS-1:1280x720' ||
	give_up compositor-starts "no Wayland socket within 30 s"

# Over the empty desktop first, so that the cursor shows "default".
to 0.5 0.9

# lock: the window at 0,0. The pointer enters it at 160,90 and is locked
# there; two motions reach the client as deltas without moving the cursor,
# then the client unlocks with the hint 50,40, where the cursor goes.
start lock --lock --hint 50,40 --unlock-after 2
lock_pid=$!
to 0.125 0.125
wait_for "$out/lock.out" '^locked$' 10
move 30 20
move 30 20
wait_for "$out/lock.out" '^unlock$' 10
move 5 5
# relative: the lock window has pointer focus; a second window at 400,0
# (which names a shape when clicked) gets it next.
start shape --shape-on-click crosshair
shape_pid=$!
move 7 3
to 0.5 0.125
move 4 6
wait_for "$out/shape.out" '^relative 4.00 6.00 4.00 6.00$' 10

# cursor shape: the cursor at 644,96 over the shape window, "default";
# crosshair once that window is clicked; and still crosshair after a
# client without pointer focus asks for another shape.
cursor shape-before 644 96
wlrctl pointer click >>"$out/input.log" 2>&1
wait_for "$out/shape.out" '^shape crosshair$' 10
cursor shape-focused 644 96
"$client" --set-shape not-allowed >"$out/unfocused.out" 2>&1
cursor shape-unfocused 644 96

# confine: the window at 800,0, confined to 100,50 120x80 of it; the
# pointer enters the region at 960,90 (160,90 in it), then is pushed out
# of it right, up, and by an absolute motion to the bottom left.
start confine --confine 100,50,120,80
confine_pid=$!
to 0.75 0.125
wait_for "$out/confine.out" '^confined$' 10
move 400 0
move 0 -300
wait_for "$out/confine.out" '^motion 219\.[0-9]* 50\.00$' 10
echo absolute >>"$out/confine.out"
to 0.05 0.9
move 1 1
wait_for "$out/confine.out" '^relative 1.00 1.00 1.00 1.00$' 10

stop "$lock_pid" "$shape_pid" "$confine_pid"
syncway_stop compositor-exits-clean ""

# Between "locked" and "unlocking": both deltas, and no wl_pointer.motion
# (the cursor did not move).
locked=$(awk '/^locked$/ { on = 1; next } /^unlocking$/ { on = 0 } on' "$out/lock.out")
n_rel=$(echo "$locked" | grep -cxF "relative 30.00 20.00 30.00 20.00")
if ! grep -qx locked "$out/lock.out"; then
	result locked-pointer-gets-relative-motion-and-cursor-stays fail \
		"never locked: $(head -c 300 "$out/lock.out")"
elif [ "$n_rel" != 2 ] || echo "$locked" | grep -q '^motion'; then
	result locked-pointer-gets-relative-motion-and-cursor-stays fail \
		"$n_rel of 2 deltas while locked; events then: $(echo "$locked" | tr '\n' ';' | head -c 300)"
else
	result locked-pointer-gets-relative-motion-and-cursor-stays pass
fi

# After the unlock: the cursor at the hint, then 5,5 further.
unlocked=$(after "$out/lock.out" unlocking | grep '^motion' | head -n 2 | tr '\n' ';')
if [ "$unlocked" = "motion 50.00 40.00;motion 55.00 45.00;" ]; then
	result unlock-puts-cursor-at-position-hint pass
else
	result unlock-puts-cursor-at-position-hint fail "motion after the unlock: $unlocked"
fi

# 7,3 went to the lock window only, 4,6 to the shape window only.
if grep -qxF "relative 7.00 3.00 7.00 3.00" "$out/lock.out" &&
	! grep -qxF "relative 4.00 6.00 4.00 6.00" "$out/lock.out" &&
	grep -qxF "relative 4.00 6.00 4.00 6.00" "$out/shape.out" &&
	! grep -qxF "relative 7.00 3.00 7.00 3.00" "$out/shape.out"; then
	result relative-motion-reaches-focused-client pass
else
	result relative-motion-reaches-focused-client fail "lock window: $(grep -c '^relative' \
		"$out/lock.out") deltas, shape window: $(grep -c '^relative' "$out/shape.out"); see $out"
fi

if [ ! -s "$out/shape-before.ppm" ] || [ ! -s "$out/shape-focused.ppm" ]; then
	result cursor-shape-from-focused-client-only fail \
		"no capture (grim): $(tail -n 2 "$out/input.log")"
elif cmp -s "$out/shape-before.ppm" "$out/shape-focused.ppm"; then
	result cursor-shape-from-focused-client-only fail \
		"the focused client's crosshair did not change the cursor: $(tail -n 3 "$out/shape.out")"
elif ! grep -qx "shape not-allowed" "$out/unfocused.out"; then
	result cursor-shape-from-focused-client-only fail \
		"the other client: $(head -c 300 "$out/unfocused.out")"
elif ! cmp -s "$out/shape-focused.ppm" "$out/shape-unfocused.ppm"; then
	result cursor-shape-from-focused-client-only fail \
		"a client without pointer focus changed the cursor"
else
	result cursor-shape-from-focused-client-only pass
fi

# Every position the confined client saw, from "confined" on, in 100..220
# by 50..130; the right and top edges reached.
confined=$(after "$out/confine.out" confined)
bad=$(echo "$confined" | awk '/^(unconfined|leave)$/ ||
	($1 == "motion" && ($2 < 100 || $2 >= 220 || $3 < 50 || $3 >= 130))' | head -n 3 | tr '\n' ';')
if ! grep -qx confined "$out/confine.out"; then
	result confined-pointer-stays-in-region fail "never confined: $(head -c 300 "$out/confine.out")"
elif [ -n "$bad" ]; then
	result confined-pointer-stays-in-region fail "outside the region: $bad"
elif ! echo "$confined" | grep -qE '^motion 219\.[0-9]+ 90\.00$' ||
	! echo "$confined" | grep -qE '^motion 219\.[0-9]+ 50\.00$'; then
	result confined-pointer-stays-in-region fail \
		"edges not reached: $(echo "$confined" | grep '^motion' | tr '\n' ';' | head -c 300)"
else
	result confined-pointer-stays-in-region pass
fi
# The absolute motion to 64,648 took the cursor to the region's bottom
# left corner (the 1,1 after it marks the end of what the client got).
absolute_motion=$(after "$out/confine.out" absolute | grep '^motion' | head -n 1)
case $absolute_motion in
"motion 100.00 129."*) result absolute-motion-stays-in-confined-region pass ;;
*)
	events=$(after "$out/confine.out" absolute | tr '\n' ';' | head -c 300)
	result absolute-motion-stays-in-confined-region fail \
		"first position after it: '$absolute_motion'; events: $events"
	;;
esac

result_summary
