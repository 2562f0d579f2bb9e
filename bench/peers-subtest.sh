#!/bin/sh
# Inside a virgl guest: one subtest of syncway's explicit-sync suites,
# RUNS times against each COMPOSITOR (bench/peers-compositor.sh names; the
# peers' root for sway-1.12, kwin, mutter), started as the conformance
# matrix starts it: how a FAIL of docs/results/peers-conformance.md is
# reproduced, and how often. Writes OUT/COMP.N.txt (the suite's output) and
# OUT/COMP.N.jsonl, and a line per run on stdout.
#   sh bench/peers-subtest.sh BUILD OUT RUNS SUITE SUBTEST COMPOSITOR...
# SUITE: syncobj-conformance, syncobj-robustness or pacing-conformance. On
# the host, for example:
#   tools/vm-run -q --gpu virgl --root peers -k patched -- sh bench/peers-subtest.sh \
#       build /results/sd 3 syncobj-robustness surface-destroyed-mid-wait mutter sway-1.12
set -u
build=$1 out=$2 runs=$3 suite=$4 subtest=$5
shift 5
# shellcheck source=bench/peers-conformance-env.sh
. "${0%/*}/peers-conformance-env.sh"
mkdir -p "$out"
for comp in "$@"; do
	fresh_runtime_dir "subtest-$comp"
	if ! start_compositor "$comp" "$rt"; then
		echo "$comp: the compositor did not start (see $out/$comp.log)"
		continue
	fi
	r=1
	while [ "$r" -le "$runs" ]; do
		"$build/tests/conformance/$suite" --run "$subtest" --json "$out/$comp.$r.jsonl" \
			>"$out/$comp.$r.txt" 2>&1
		line=$(grep -E "^(PASS|FAIL|SKIP) $suite/$subtest" "$out/$comp.$r.txt" | head -n 1)
		echo "$comp run $r: ${line:-no result line, see $out/$comp.$r.txt}"
		r=$((r + 1))
	done
	stop_process "$pid"
done
