#!/bin/sh
# --output and the mode fallback, in a guest: headless (any mode is a
# custom mode there) and on virtio-gpu's KMS connector (a fixed list).
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
else
	result drm-unknown-mode-falls-back skip "no /dev/dri/card0"
fi

result_summary
