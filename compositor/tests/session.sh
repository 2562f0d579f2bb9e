#!/bin/sh
# What the guest can check of a session's environment (the VT switch,
# drag-and-drop and the cursor's look need a real seat; docs/compositor.md
# has the manual checks): the cursor theme and size come from XCURSOR_THEME
# and XCURSOR_SIZE, and clients started by syncway get them, with a size
# of 24 when none was set.
#   tools/vm-run -q -- sh compositor/tests/session.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/session/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
result_suite=session
build=${1:-build}
syncway=${SYNCWAY:-$build/compositor/syncway}
out=/results/session
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_RENDERER=pixman WLR_BACKENDS=headless
unset WAYLAND_DISPLAY XCURSOR_THEME XCURSOR_SIZE

# check NAME LOG STATUS EXPECT (see outputs.sh).
check() {
	if run_problems "$2" "$3" "$4"; then
		result "$1" pass
	else
		tail -n 6 "$2" | sed 's/^/    /'
		result "$1" fail "$run_problems"
	fi
}

show_env='echo "client sees XCURSOR_THEME=${XCURSOR_THEME:-unset} XCURSOR_SIZE=${XCURSOR_SIZE:-unset}"'

log=$out/cursor-from-env.log
XCURSOR_THEME=Adwaita XCURSOR_SIZE=48 timeout 60 "$syncway" -v --report 0 --no-xwayland -x \
	-s "$show_env" >"$log" 2>&1
check cursor-theme-and-size-from-environment "$log" $? \
	"cursor theme Adwaita, size 48|client sees XCURSOR_THEME=Adwaita XCURSOR_SIZE=48"

log=$out/cursor-default.log
timeout 60 "$syncway" -v --report 0 --no-xwayland -x -s "$show_env" >"$log" 2>&1
check cursor-size-24-for-clients-when-unset "$log" $? \
	"cursor theme (default), size 24|client sees XCURSOR_THEME=unset XCURSOR_SIZE=24"

result_summary
