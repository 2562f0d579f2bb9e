# Sourced by the guest scripts that run syncway's conformance suites against
# a compositor (bench/peers-conformance-guest.sh, bench/peers-kwin-sigterm.sh,
# bench/peers-release-check.sh): the compositor headless at 640x480@60 on
# GLES2 (virgl), the suites' clients on a clean environment, start_compositor
# from bench/peers-compositor.sh, and release_check_run.
# shellcheck shell=sh
# shellcheck disable=SC2034 # read by bench/peers-compositor.sh
renderer=gles2 mode_w=640 mode_h=480 hz=60
export MESA_SHADER_CACHE_DIR="${MESA_SHADER_CACHE_DIR:-/syncway/build/peers-shader-cache}"
# Every timeout of the suites doubled: TCG and llvmpipe behind virgl.
export SYNCWAY_CONFORMANCE_TIME_SCALE="${SYNCWAY_CONFORMANCE_TIME_SCALE:-2}"
unset WAYLAND_DISPLAY DISPLAY
# shellcheck source=bench/peers-compositor.sh
. "${0%/*}/peers-compositor.sh"

# release_check_run BUILD JSON LOG: syncway-release-check's fence check alone
# (--no-screen, 300 commits; bench/peers-release-check.sh says why) against
# the running compositor, its output in LOG; sets release_rc (its exit
# status) and release_summary (its verdict line, empty without one).
release_check_run() {
	"$1/clients/syncway-release-check" --no-screen --frames 300 --json "$2" >"$3" 2>&1
	release_rc=$?
	release_summary=$(grep '^syncway-release-check: .*: \(PASS\|FAIL\)$' "$3" | tail -n 1)
}
