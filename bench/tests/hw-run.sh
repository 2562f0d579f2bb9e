#!/bin/sh
# bench/hw-run.sh, the device-side script of the real-hardware recipe and of
# the LAVA jobs, run as a user would run it, on the guest's virtio-gpu
# (KMS for syncway, the render node for the microbenchmark): one short
# vkgears run, the suite left to the guest runs that already have it.
#   tools/vm-run -q -k patched -- sh bench/tests/hw-run.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; results in
# /results/hw-run/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
result_suite=hw-run
build=${1:-build}
out=/results/hw-run
rm -rf "$out"
# vkgears renders with lavapipe on the emulated CPU: its first frames come
# after its shaders are compiled, which takes seconds here (5 to more than
# 10, with the other lane's guests beside): hw-run.sh measures from its
# first report on, 7 s give one more. The guest's third-party suite ran
# vkgears before, into this shader cache (as e2e.sh and third-party.sh).
export MESA_SHADER_CACHE_DIR=${MESA_SHADER_CACHE_DIR:-/tmp/mesa-shader-cache}
sh bench/hw-run.sh --build "$build" --no-suite --runs 1 --secs 7 --out "$out" >/results/hw-run.log 2>&1
rc=$?
if [ $rc = 0 ]; then
	result exits-zero pass
else
	tail -n 8 /results/hw-run.log | sed 's/^/    /'
	result exits-zero fail "status $rc (see /results/hw-run.log)"
fi
if grep -q "^release=$(uname -r)$" "$out/kernel.txt" 2>/dev/null && grep -q '^gpu=.*CAP_SYNCOBJ_TIMELINE=1' "$out/kernel.txt"; then
	result kernel-and-gpu-recorded pass
else
	result kernel-and-gpu-recorded fail "kernel.txt: $(head -c 300 "$out/kernel.txt" 2>/dev/null)"
fi
n=$(grep -c '"median":' "$out/micro.jsonl" 2>/dev/null)
if [ "${n:-0}" -ge 30 ]; then
	result microbenchmark-cases-written pass
else
	result microbenchmark-cases-written fail "${n:-no} cases in micro.jsonl"
fi
fps=$(cat "$out/vkgears-fps.txt" 2>/dev/null)
case "$fps" in
[0-9]*.[0-9][0-9][0-9]) result vkgears-run-gives-one-frame-rate pass ;;
*) result vkgears-run-gives-one-frame-rate fail "vkgears-fps.txt: '$fps' (see $out/vkgears-1.log, $out/syncway-1.log)" ;;
esac
result_summary
