#!/bin/sh
# Guest smoke test of the syncway compositor: headless + pixman, one
# compositor per scenario, each ended by its client (-x). The protocol-error
# rules are tested by tests/conformance/ (run-in-guest), not here.
#   tools/vm-run -q -- sh compositor/tests/smoke.sh [BUILD_DIR]
# Prints PASS/FAIL per scenario (and JSON lines to $SYNCWAY_TEST_JSON, as
# tests/lib/harness.h does); logs and JSON stats go to /results/compositor-smoke/.
build=${1:-build}
syncway=$build/compositor/syncway
client=$build/compositor/tests/sync-client
out=/results/compositor-smoke
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_BACKENDS=${WLR_BACKENDS:-headless} WLR_RENDERER=${WLR_RENDERER:-pixman}

passed=0 failed=0
# scenario NAME EXPECT_IN_LOG COMMAND...: runs syncway with COMMAND as its
# client; passes when both exit 0 and the log has every |-separated string.
scenario() {
	name=$1 expect=$2
	shift 2
	log=$out/$name.log
	timeout -s TERM 60 "$syncway" --report 2 -x --stats "$out/$name.jsonl" -s "$*" >"$log" 2>&1
	status=$?
	ok=1
	[ $status = 0 ] || ok=0
	old_ifs=$IFS
	IFS='|'
	for want in $expect; do
		grep -qF -- "$want" "$log" || { ok=0; echo "  missing in $log: $want"; }
	done
	IFS=$old_ifs
	grep -q 'LEAK?' "$log" && { ok=0; echo "  fd leak reported in $log"; }
	grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$log" &&
		{ ok=0; echo "  sanitizer report in $log"; }
	if [ $ok = 1 ]; then
		passed=$((passed + 1))
		echo "PASS compositor-smoke/$name"
		result=pass message=
	else
		failed=$((failed + 1))
		echo "FAIL compositor-smoke/$name (status $status), last lines of $log:"
		tail -n 15 "$log" | sed 's/^/  /'
		result=fail message="exit status $status; see $log"
	fi
	[ -z "${SYNCWAY_TEST_JSON:-}" ] ||
		printf '{"suite":"compositor-smoke","subtest":"%s","result":"%s","ms":0,"message":"%s"}\n' \
			"$name" "$result" "$message" >>"$SYNCWAY_TEST_JSON"
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

echo "compositor-smoke: $passed subtests passed, $failed failed, 0 skipped"
[ $failed = 0 ]
