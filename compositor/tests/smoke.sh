#!/bin/sh
# Guest smoke test of the syncway compositor: headless + pixman, one
# compositor per scenario, each ended by its client (-x). The protocol-error
# rules are tested by tests/conformance/ (run-in-guest), not here.
#   tools/vm-run -q -- sh compositor/tests/smoke.sh [BUILD_DIR]
# Prints PASS/FAIL per scenario (and JSON lines to $SYNCWAY_TEST_JSON, see
# tests/lib/result.sh); logs and JSON stats go to /results/compositor-smoke/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
result_suite=compositor-smoke
build=${1:-build}
syncway=$build/compositor/syncway
client=$build/compositor/tests/sync-client
out=/results/compositor-smoke
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_BACKENDS=${WLR_BACKENDS:-headless} WLR_RENDERER=${WLR_RENDERER:-pixman}

# scenario NAME EXPECT_IN_LOG COMMAND...: runs syncway with COMMAND as its
# client; passes when both exit 0 and the log has every |-separated string.
scenario() {
	name=$1 expect=$2
	shift 2
	log=$out/$name.log
	timeout -s TERM 60 "$syncway" --report 2 -x --stats "$out/$name.jsonl" -s "$*" >"$log" 2>&1
	if run_problems "$log" $? "$expect"; then
		result "$name" pass
	else
		result "$name" fail "$run_problems (see $log)"
		echo "  last lines of $log:"
		tail -n 15 "$log" | sed 's/^/    /'
	fi
}

scenario shm-plain "frames in|(0 alive)" weston-simple-shm '& sleep 4; kill $!'
scenario sync-shm "all checks passed|(0 alive)|0 protocol errors" $client --frames 120
scenario sync-dmabuf "all checks passed|(0 alive)" $client --dmabuf --frames 120
scenario wait-before-submit "all checks passed|20 waited|0 presented before acquire" $client --frames 20 --wait-before-submit 30
scenario queued-behind-wait "all checks passed|0 presented before acquire" \
	$client --frames 20 --wait-before-submit 30 --queue
scenario unthrottled "all checks passed" $client --frames 300 --unthrottled --buffers 3
scenario high-points "all checks passed" $client --frames 30 --high-points
scenario end-syncobj-only "all checks passed" $client --frames 30 --end syncobj
scenario end-while-waiting "all checks passed|1 waits cancelled|(0 alive)" $client --frames 30 --end waiting
export SYNCWAY_EXPLICIT_SYNC=0
scenario switch-off "explicit sync: off (SYNCWAY_EXPLICIT_SYNC=0)|does not offer wp_linux_drm_syncobj" \
	"$client --frames 5; test \$? = 2"
unset SYNCWAY_EXPLICIT_SYNC
gears=$build/clients/syncway-gears
export SYNCWAY_FIFO=0
scenario switch-off-fifo "fifo-v1: off (SYNCWAY_FIFO=0)|offers no wp_fifo_manager_v1" \
	$gears --mode fifo --buffer shm --frames 5
unset SYNCWAY_FIFO
export SYNCWAY_COMMIT_TIMING=0
scenario switch-off-commit-timing \
	"commit-timing-v1: off (SYNCWAY_COMMIT_TIMING=0)|needs wp_commit_timing_manager_v1" \
	"$gears --buffer shm --target-fps 30 --frames 5; test \$? = 2"
unset SYNCWAY_COMMIT_TIMING
# With SYNCWAY_REALTIME=1 the event loop runs SCHED_RR (policy 2, field 41
# of /proc/PID/stat) and the startup command (syncway's child) as a normal
# task (0); by default both are normal tasks.
policies='test "$(cut -d" " -f41 /proc/$PPID/stat)" = %s && test "$(cut -d" " -f41 /proc/self/stat)" = 0'
export SYNCWAY_REALTIME=1
# shellcheck disable=SC2059 # the format is ours
scenario realtime-event-loop-only "real-time scheduling: on (SCHED_RR" "$(printf "$policies" 2)"
unset SYNCWAY_REALTIME
# shellcheck disable=SC2059
scenario normal-task-by-default "frames presented" "$(printf "$policies" 0)"
# syncway runs with glibc's per-thread cache of freed chunks cut to one a
# size (GLIBC_TUNABLES in /proc/PID/environ, the environment of its second
# start), unless the user's GLIBC_TUNABLES sets that count; its startup
# command gets the environment syncway was given. Started again, it keeps
# its name (ps, pgrep).
tunables='tr "\\0" "\\n" </proc/$PPID/environ | grep -qx "GLIBC_TUNABLES=%s" && test "${GLIBC_TUNABLES-unset}" = "%s" && test "$(cat /proc/$PPID/comm)" = syncway'
# shellcheck disable=SC2059
scenario small-tcache-for-syncway-not-its-children "frames presented" \
	"$(printf "$tunables" glibc.malloc.tcache_count=1 unset)"
export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072
# shellcheck disable=SC2059
scenario small-tcache-beside-other-tunables "frames presented" \
	"$(printf "$tunables" "$GLIBC_TUNABLES:glibc.malloc.tcache_count=1" "$GLIBC_TUNABLES")"
export GLIBC_TUNABLES=glibc.malloc.tcache_count=3
# shellcheck disable=SC2059
scenario tcache-count-of-the-user-kept "frames presented" \
	"$(printf "$tunables" "$GLIBC_TUNABLES" "$GLIBC_TUNABLES")"
unset GLIBC_TUNABLES

result_summary
