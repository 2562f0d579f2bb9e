#!/bin/sh
# Inside a virgl guest (tools/peers-conformance boots it): the explicit-sync
# suites against each COMPOSITOR in turn (syncway and wlr-ref from the build
# root, sway, kwin and mutter from the peers' root), headless on GLES2, as
# bench/peers-compositor.sh starts them for the peer comparison. Per
# compositor: OUT/COMP/version (what it says it is), OUT/COMP/globals (the
# explicit-sync and pacing globals it offers) and OUT/COMP/SUITE.jsonl (a
# line per subtest; SUITE release-check: syncway-release-check's fence
# check, rule 30 with the GPU's fences), the suites' output in
# OUT/COMP/SUITE.txt, the compositor's log in OUT/COMP.log.
#   sh bench/peers-conformance-guest.sh BUILD OUT COMPOSITOR...
# The suites are plain Wayland clients; their syncway-only expectations
# (a second instance with the protocol off, small caps) are not set, so
# those subtests skip with the reason. Exit status: 1 when a compositor did
# not start or a suite did not run to its end, else 0 (FAILs are results).
build=$1 out=$2
shift 2
mkdir -p "$out"
# shellcheck source=bench/peers-conformance-env.sh
. "${0%/*}/peers-conformance-env.sh"

# release_check COMP DIR: syncway-release-check --no-screen against the
# running compositor; DIR/release-check.jsonl gets one line in the suites'
# form, DIR/release-check.txt the client's output.
release_check() {
	release_check_run "$build" "$2/release-check.json" "$2/release-check.txt"
	result=fail
	case $release_summary in *": PASS") result=pass ;; esac
	message=$(printf '%s\n' "$release_summary" |
		sed -n 's/.* \([0-9][0-9]* releases, [0-9][0-9]* early (fence pending)\).*/\1/p')
	[ -n "$release_summary" ] || message="no summary line: $(tail -n 1 "$2/release-check.txt" | tr -d '"\\')"
	printf '{"suite":"release-check","subtest":"no-release-point-before-the-gpu-is-done","result":"%s","message":"%s"}\n' \
		"$result" "$message" >"$2/release-check.jsonl"
	echo "conformance: $1: release check: $result ($message)" >&2
}

status=0
for comp in "$@"; do
	fresh_runtime_dir "conformance-$comp"
	mkdir -p "$out/$comp"
	case $comp in
	syncway*) echo "syncway ${SYNCWAY_DESCRIBE:-(tree unknown)}" >"$out/$comp/version" ;;
	wlr-ref) "$build/tools/syncway-wlr-ref" --version >"$out/$comp/version" 2>&1 ;;
	sway) sway --version >"$out/$comp/version" 2>&1 ;;
	kwin) kwin_wayland --version >"$out/$comp/version" 2>&1 ;;
	mutter) mutter --version 2>&1 | head -n 1 >"$out/$comp/version" ;;
	weston) weston --version >"$out/$comp/version" 2>&1 ;;
	esac
	if ! start_compositor "$comp" "$rt"; then
		status=1
		continue
	fi
	echo "conformance: $comp: $(cat "$out/$comp/version")" >&2
	wayland-info 2>/dev/null | grep -oE "interface: '(wp_linux_drm_syncobj_manager_v1|zwp_linux_explicit_synchronization_v1|wp_fifo_manager_v1|wp_commit_timing_manager_v1|wp_presentation|zwp_linux_dmabuf_v1|wp_tearing_control_manager_v1)', *version: *[0-9]+" |
		sed "s/interface: '\([a-z0-9_]*\)', *version: */\1 /" >"$out/$comp/globals"
	# Rule 30 with real GPU fences first, on the fresh compositor: the
	# release check's fence check (bench/peers-release-check.sh tells
	# why without the read-back), as one subtest of its own.
	release_check "$comp" "$out/$comp"
	# syncway's documented cap on held commits (docs/compositor.md);
	# the peers state none.
	held=
	case $comp in syncway*) held=4096 ;; esac
	for suite in syncobj-conformance pacing-conformance syncobj-robustness; do
		SYNCWAY_CONFORMANCE_MAX_HELD=$held "$build/tests/conformance/$suite" --json "$out/$comp/$suite.jsonl" >"$out/$comp/$suite.txt" 2>&1
		rc=$?
		tail -n 1 "$out/$comp/$suite.txt" | sed "s/^/conformance: $comp: /" >&2
		# 0: all passed, 1: something failed; anything else: the suite
		# itself did not finish (a crash, a lost connection).
		if [ $rc -gt 1 ]; then
			echo "conformance: $comp: $suite ended with status $rc" >&2
			status=1
		fi
		kill -0 $pid 2>/dev/null || break
	done
	# A compositor that crashed in the last subtest may still be exiting
	# (its GPU context going) and answer kill -0, its SIGSEGV showing only
	# at the wait after SIGTERM: one that answers no client gets a few
	# seconds to go (the sleep also reaps it).
	if kill -0 $pid 2>/dev/null && ! timeout 30 wayland-info >/dev/null 2>&1; then
		echo "conformance: $comp answers no client after the suites" >&2
		sleep 5
	fi
	if kill -0 $pid 2>/dev/null; then
		kill -TERM $pid
		wait $pid
	else
		wait $pid
		echo "conformance: $comp died during the suites (status $?): $(tail -n 1 "$out/$comp.log")" >&2
		echo died >"$out/$comp/died"
	fi
	# KWin's and Mutter's session bus (bench/peers-compositor.sh).
	pkill -f "unix:path=$rt/bus" 2>/dev/null
done
exit $status
