#!/bin/sh
# Inside a virgl guest: rule 30 of linux-drm-syncobj-v1 with real GPU
# fences, on each COMPOSITOR (bench/peers-compositor.sh names; the peers'
# root for sway-1.12, kwin, mutter): syncway-release-check with
# --no-screen, which fails when a release point signals while a GPU job on
# the buffer (the compositor's render job sampling it) is still pending.
# The read-back is left out for every compositor alike: of the peers only
# sway offers wlr-screencopy, and on virgl an early release never shows on
# screen anyway (the host runs every context's jobs in order; see
# docs/clients.md). Writes OUT/COMP.json, OUT/COMP.client.log, the
# compositor's OUT/COMP.log, and one line per compositor on stdout.
#   sh bench/peers-release-check.sh BUILD OUT COMPOSITOR...
# SYNCWAY_RELEASE_RUNS=N (tools/vm-run passes SYNCWAY_* into the guest)
# runs each compositor N times, each in a fresh instance (KWin's early
# releases come at a new window's first frames, report 13), its files
# then named COMP.RUN.json and so on.
# BUILD: the build directory, relative to the tree (the guest's /syncway).
# On the host, for example:
#   tools/vm-run -q --gpu virgl --root peers -k patched -- \
#       sh bench/peers-release-check.sh build /results/release-check sway-1.12 mutter
set -u
build=$1 out=$2
shift 2
# shellcheck source=bench/peers-conformance-env.sh
. "${0%/*}/peers-conformance-env.sh"
mkdir -p "$out"
status=0
runs=${SYNCWAY_RELEASE_RUNS:-1}
for comp in "$@"; do
	r=1
	while [ "$r" -le "$runs" ]; do
		name=$comp
		[ "$runs" = 1 ] || name=$comp.$r
		r=$((r + 1))
		fresh_runtime_dir "release-check-$comp"
		if ! start_compositor "$comp" "$rt"; then
			echo "release-check $name: the compositor did not start (see $out/$comp.log)"
			status=1
			continue
		fi
		[ "$runs" = 1 ] || mv "$out/$comp.log" "$out/$name.log"
		release_check_run "$build" "$out/$name.json" "$out/$name.client.log"
		stop_process "$pid"
		echo "release-check $name: exit $release_rc: ${release_summary:-no summary line, see $out/$name.client.log}"
		[ "$release_rc" = 0 ] || status=1
	done
done
exit $status
