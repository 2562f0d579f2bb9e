# Sourced by the guest scripts that run syncway's conformance suites against
# a compositor (bench/peers-conformance-guest.sh, bench/peers-kwin-sigterm.sh):
# the compositor headless at 640x480@60 on GLES2 (virgl), the suites' clients
# on a clean environment, and start_compositor from bench/peers-compositor.sh.
# shellcheck shell=sh
# shellcheck disable=SC2034 # read by bench/peers-compositor.sh
renderer=gles2 mode_w=640 mode_h=480 hz=60
export MESA_SHADER_CACHE_DIR="${MESA_SHADER_CACHE_DIR:-/syncway/build/peers-shader-cache}"
# Every timeout of the suites doubled: TCG and llvmpipe behind virgl.
export SYNCWAY_CONFORMANCE_TIME_SCALE="${SYNCWAY_CONFORMANCE_TIME_SCALE:-2}"
unset WAYLAND_DISPLAY DISPLAY
# shellcheck source=bench/peers-compositor.sh
. "${0%/*}/peers-compositor.sh"
