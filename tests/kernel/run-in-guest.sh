#!/bin/sh
# Runs the drm_syncobj behaviour suite inside a guest, one binary after the
# other, and leaves per-binary transcripts and JSON results in OUTDIR:
#   tools/vm-run -q -k base -- tests/kernel/run-in-guest.sh /results/kernel-base
# Optional, from the environment (tools/vm-run passes SYNCWAY_* into the guest):
#   SYNCWAY_KT_BUILD   build directory (default build)
#   SYNCWAY_KT_EXPECT  base|patched: also run syncobj-kmalloc-count --expect it
#   SYNCWAY_KT_LEAK=1  also run syncobj-leak-check
#   SYNCWAY_KT_FAULTS=1  also run syncobj-fault-inject (needs a kernel with fault
#                      injection: the debug flavours); its transcript goes to
#                      OUTDIR/fault-inject.txt, outside transcripts/: its site
#                      counts differ between kernels by design
#   SYNCWAY_KT_SKIP_MAX=1  skip the max-count subtests (slow debug kernels)
#   SYNCWAY_KT_FEW_COUNTS=1  arrays of 1, 4, 5 and 64 only (slow debug kernels)
# syncobj-gpu-fence needs a 3D virtio-gpu (tools/vm-run --gpu virgl); without
# one its subtests skip and it writes no transcript.
# Exit status: 0 when every binary passed.
set -u
out=${1:?usage: run-in-guest.sh OUTDIR}
build=${SYNCWAY_KT_BUILD:-build}
json=${SYNCWAY_TEST_JSON:-$out/results.jsonl}
mkdir -p "$out/transcripts" || exit 2
rm -f "$out"/transcripts/*.txt "$out/results.jsonl"
status=0
for bin in syncobj-wait syncobj-timeline-wait syncobj-reset syncobj-signal \
	syncobj-timeline-signal syncobj-query syncobj-handle-fd syncobj-point-import \
	syncobj-gpu-fence; do
	start=$(date +%s%3N)
	"$build/tests/kernel/$bin" --json "$json" \
		--transcript "$out/transcripts/$bin.txt" || status=1
	end=$(date +%s%3N)
	echo "# $bin: $((end - start)) ms"
done
if [ -n "${SYNCWAY_KT_EXPECT:-}" ]; then
	"$build/tests/kernel/syncobj-kmalloc-count" --json "$json" \
		--expect "$SYNCWAY_KT_EXPECT" --out "$out/kmalloc.jsonl" || status=1
fi
if [ "${SYNCWAY_KT_LEAK:-0}" = 1 ]; then
	"$build/tests/kernel/syncobj-leak-check" --json "$json" || status=1
fi
if [ "${SYNCWAY_KT_FAULTS:-0}" = 1 ]; then
	start=$(date +%s%3N)
	"$build/tests/kernel/syncobj-fault-inject" --json "$json" \
		--transcript "$out/fault-inject.txt" || status=1
	end=$(date +%s%3N)
	echo "# syncobj-fault-inject: $((end - start)) ms"
fi
exit $status
