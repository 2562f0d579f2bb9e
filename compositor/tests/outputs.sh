#!/bin/sh
# --output, the mode fallback and wlr-output-management (through an
# unmodified wlr-randr), in a guest: headless (any mode is a custom mode
# there) and on virtio-gpu's KMS connector (a fixed list).
#   tools/vm-run -q -- sh compositor/tests/outputs.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/outputs/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
result_suite=outputs
build=${1:-build}
syncway=${SYNCWAY:-$build/compositor/syncway}
out=/results/outputs
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_RENDERER=pixman
unset WAYLAND_DISPLAY

# check NAME LOG STATUS EXPECT: passes when syncway exited 0, LOG has the
# |-separated EXPECT strings and no leak or sanitizer report.
check() {
	if run_problems "$2" "$3" "$4"; then
		result "$1" pass
	else
		tail -n 6 "$2" | sed 's/^/    /'
		result "$1" fail "$run_problems"
	fi
}

log=$out/headless-config.log
WLR_BACKENDS=headless timeout 60 "$syncway" --report 0 --no-xwayland \
	--output 'HEADLESS-1:640x480@30,scale=2,transform=90,pos=100,50' -x -s true >"$log" 2>&1
check headless-output-takes-mode-scale-transform "$log" $? \
	"syncway: output HEADLESS-1: 640x480@30.000 Hz, scale 2.00, transform 90"

# wlroots' headless outputs run at 60 Hz when a mode names no rate, and say
# 0 Hz: syncway gives them 60 Hz in their mode, so that what clients and
# the log see is the rate the vblank clock runs at.
log=$out/headless-default-rate.log
WLR_BACKENDS=headless timeout 60 "$syncway" --report 0 --no-xwayland --outputs 2 \
	--output 'HEADLESS-2:320x240' -x -s true >"$log" 2>&1
check headless-output-without-a-rate-runs-and-says-60-hz "$log" $? \
	"syncway: output HEADLESS-1: 1280x720@60.000 Hz|syncway: output HEADLESS-2: 320x240@60.000 Hz"

# --adaptive-sync on an output without variable refresh (headless has none,
# nor has virtio-gpu): said so, and the output stays on in its mode. On a
# VRR monitor the output line ends in ", adaptive sync" (a manual check).
log=$out/adaptive-sync.log
WLR_BACKENDS=headless timeout 60 "$syncway" --report 0 --no-xwayland --adaptive-sync -x -s true \
	>"$log" 2>&1
check adaptive-sync-absent-is-said-and-output-stays-on "$log" $? \
	"syncway: output HEADLESS-1: no adaptive sync|syncway: output HEADLESS-1: 1280x720@"

log=$out/bad-spec.log
timeout 10 "$syncway" --output 'HEADLESS-1:640x480,scale=zero' >"$log" 2>&1
status=$?
if [ $status = 2 ] && grep -q "^syncway: --output HEADLESS-1:640x480,scale=zero: 'scale=zero'" "$log"; then
	result bad-output-spec-exits-2-naming-the-part pass
else
	result bad-output-spec-exits-2-naming-the-part fail "status $status, log: $(head -c 200 "$log")"
fi

log=$out/off.log
WLR_BACKENDS=headless timeout 60 "$syncway" --report 0 --no-xwayland --output '*:off' -x -s true \
	>"$log" 2>&1
status=$?
if grep -q '^syncway: output ' "$log"; then
	result output-off-stays-off fail "an output was enabled: $(grep '^syncway: output ' "$log")"
else
	check output-off-stays-off "$log" $status ""
fi

# block FILE OUTPUT: OUTPUT's lines in a wlr-randr listing.
block() {
	awk -v o="$2" '/^[^ ]/ { p = ($1 == o) } p' "$1"
}

# expect_block NAME FILE OUTPUT 'STRING|STRING...': fails NAME unless
# OUTPUT's block in FILE has every STRING; returns 1 then.
expect_block() {
	b=$(block "$2" "$3")
	missing=
	old_ifs=$IFS
	IFS='|'
	for want in $4; do
		case $b in
		*"$want"*) ;;
		*) missing="${missing:+$missing, }'$want'" ;;
		esac
	done
	IFS=$old_ifs
	[ -z "$missing" ] && return 0
	result "$1" fail "$3 in $(basename "$2") lacks $missing: $(echo "$b" | tr '\n' ' ' | head -c 300)"
	return 1
}

# wlr-randr as a client of syncway's wlr-output-management: list, turn an
# output off and on again with another mode, scale and position, and a dry
# run that must change nothing. Each listing goes to a file.
steps=$out/randr-headless.sh
cat >"$steps" <<EOF
wlr-randr >$out/randr-1.txt || exit 11
wlr-randr --output HEADLESS-2 --off || exit 12
wlr-randr >$out/randr-2.txt || exit 13
wlr-randr --output HEADLESS-2 --on --custom-mode 800x600@30Hz --scale 2 --pos 2000,0 || exit 14
wlr-randr >$out/randr-3.txt || exit 15
wlr-randr --output HEADLESS-1 --transform 90 --dryrun || exit 16
wlr-randr >$out/randr-4.txt || exit 17
EOF
rm -f "$out"/randr-*.txt
log=$out/randr-headless.log
WLR_BACKENDS=headless timeout 90 "$syncway" --report 0 --no-xwayland --outputs 2 -x -s "sh $steps" \
	>"$log" 2>&1
status=$?
if ! run_problems "$log" $status "syncway: output HEADLESS-2: off|syncway: output HEADLESS-2: 800x600@30.000 Hz, scale 2.00"; then
	tail -n 6 "$log" | sed 's/^/    /'
	result wlr-randr-configures-headless-outputs fail "$run_problems"
elif expect_block wlr-randr-configures-headless-outputs "$out/randr-1.txt" HEADLESS-1 "Enabled: yes" &&
	expect_block wlr-randr-configures-headless-outputs "$out/randr-1.txt" HEADLESS-2 "Enabled: yes" &&
	expect_block wlr-randr-configures-headless-outputs "$out/randr-2.txt" HEADLESS-2 "Enabled: no" &&
	expect_block wlr-randr-configures-headless-outputs "$out/randr-3.txt" HEADLESS-2 \
		"Enabled: yes|800x600 px, 30.000000 Hz (current)|Position: 2000,0|Scale: 2.000000" &&
	expect_block wlr-randr-configures-headless-outputs "$out/randr-4.txt" HEADLESS-1 \
		"Transform: normal"; then
	result wlr-randr-configures-headless-outputs pass
fi

# fifo-v1's forward progress: a barrier that no refresh clears (its only
# output turned off under a fifo client) is cleared within a second
# anyway, by a timer that the barriers raised at every refresh do not
# re-arm.
steps=$out/fifo-off.sh
cat >"$steps" <<EOF
$build/clients/syncway-gears --mode fifo --buffer shm --duration 30 >$out/fifo-off-gears.log 2>&1 &
sleep 1
wlr-randr --output HEADLESS-1 --off || exit 12
sleep 3
kill \$!
EOF
log=$out/fifo-off.log
WLR_BACKENDS=headless timeout 90 "$syncway" --report 0 --no-xwayland -x -s "sh $steps" >"$log" 2>&1
status=$?
cleared=$(sed -n 's/^syncway: fifo: [0-9]* barriers set (\([0-9]*\) cleared without a refresh).*/\1/p' "$log")
if [ "${cleared:-0}" -ge 1 ]; then
	check fifo-barrier-without-refresh-clears-within-a-second "$log" $status "syncway: output HEADLESS-1: off"
else
	result fifo-barrier-without-refresh-clears-within-a-second fail \
		"no barrier cleared without a refresh: $(grep '^syncway: fifo:' "$log")"
fi

# KMS: a mode virtio-gpu's connector does not have falls back to one it
# has, and frames reach the screen.
if [ -e /dev/dri/card0 ]; then
	log=$out/drm-fallback.log
	LIBSEAT_BACKEND=noop WLR_LIBINPUT_NO_DEVICES=1 WLR_BACKENDS=drm timeout 90 "$syncway" \
		--report 0 --no-xwayland --output '*:4000x3000' -x \
		-s "$build/clients/syncway-gears --buffer shm --duration 2 --report 1" >"$log" 2>&1
	status=$?
	n=$(sed -n 's/^syncway: commits: .*), \([0-9][0-9]*\) presented.*/\1/p' "$log" | head -n 1)
	if [ "${n:-0}" -lt 10 ]; then
		result drm-unknown-mode-falls-back fail "only ${n:-0} commits presented"
	else
		check drm-unknown-mode-falls-back "$log" $status "has no mode 4000x3000|syncway: output "
	fi

	# wlr-randr picks one of the connector's modes; a mode the device
	# cannot scan out is refused as a whole and changes nothing, and
	# frames keep coming after both.
	steps=$out/randr-drm.sh
	cat >"$steps" <<EOF
wlr-randr --output Virtual-1 --mode 1024x768 || exit 11
wlr-randr --output Virtual-1 --custom-mode 9000x9000 && exit 12
wlr-randr >$out/randr-drm.txt || exit 13
exec $build/clients/syncway-gears --buffer shm --duration 2 --report 1
EOF
	rm -f "$out/randr-drm.txt"
	log=$out/randr-drm.log
	LIBSEAT_BACKEND=noop WLR_LIBINPUT_NO_DEVICES=1 WLR_BACKENDS=drm timeout 90 "$syncway" \
		--report 0 --no-xwayland -x -s "sh $steps" >"$log" 2>&1
	status=$?
	n=$(sed -n 's/^syncway: commits: .*), \([0-9][0-9]*\) presented.*/\1/p' "$log" | head -n 1)
	if [ "${n:-0}" -lt 10 ]; then
		result wlr-randr-sets-drm-mode-or-changes-nothing fail \
			"status $status, only ${n:-0} commits presented"
	elif ! run_problems "$log" $status \
		"syncway: output Virtual-1: 1024x768@|configuration could not be applied; outputs unchanged"; then
		tail -n 6 "$log" | sed 's/^/    /'
		result wlr-randr-sets-drm-mode-or-changes-nothing fail "$run_problems"
	elif expect_block wlr-randr-sets-drm-mode-or-changes-nothing "$out/randr-drm.txt" Virtual-1 \
		"1024x768 px, 60.004002 Hz (current)"; then
		result wlr-randr-sets-drm-mode-or-changes-nothing pass
	fi
else
	result drm-unknown-mode-falls-back skip "no /dev/dri/card0"
	result wlr-randr-sets-drm-mode-or-changes-nothing skip "no /dev/dri/card0"
fi

result_summary
