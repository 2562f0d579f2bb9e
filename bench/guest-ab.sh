#!/bin/sh
# One boot of the A/B benchmark, run inside a guest by tools/report:
#   sh bench/guest-ab.sh MODE KERNEL ROUND OUTDIR
# OUTDIR is the kernel family's raw directory (tools/report: /results/raw/
# 6.12 or /results/raw/7.3); KERNEL is base, patched, or a prefix's label.
# MODE icount: the per-ioctl microbenchmark (guest ns = instructions), then
#              the GPU-offload frame benchmark: syncway headless with
#              syncway-offload, explicit sync and the no-sync control.
# MODE wall:   the microbenchmark, then the frame benchmark (syncway headless,
#              one output, explicit-sync client(s) in mailbox mode, all on the
#              guest's one vCPU).
# MODE prefix: the microbenchmark under the instruction clock only, into
#              prefix-icount-KERNEL.jsonl (KERNEL: base or a patch number),
#              for the per-patch table.
# MODE hardened: the same into hardened-icount-KERNEL-rROUND.jsonl, and the
#              CPU vulnerabilities the kernel reports, for the hardened table.
# MODE virgl:  no microbenchmark: the frame benchmark with a real driver, in a
#              guest with a 3D virtio-gpu under the instruction clock
#              (tools/vm-run --gpu virgl --icount): syncway headless on GLES2
#              with syncway-gears --renderer gles2 in mailbox mode, and the
#              CPU time of both processes over a window (bench/busy-window).
# Settings come from the environment (tools/report passes them in):
#   SYNCWAY_BENCH_BATCHES, SYNCWAY_BENCH_CALLS, SYNCWAY_BENCH_WARMUP  microbenchmark
#   SYNCWAY_BENCH_FRAME_SECS   length of the frame run (s; 0 = no frame run)
#   SYNCWAY_BENCH_CLIENT       client command (default: sync-client unthrottled)
#   SYNCWAY_BENCH_OUTPUT       headless mode WxH@HZ (default 256x256@1000)
#   SYNCWAY_BENCH_KMALLOC=FILE also run tests/kernel/syncobj-kmalloc-count
#                              --out FILE, last in the boot (nothing measured
#                              comes after it); empty: not
#   SYNCWAY_BENCH_OFFLOAD_SECS measured window of each offload run (guest s;
#                              0 = none), after SYNCWAY_BENCH_OFFLOAD_WARMUP
#                              (default 2)
#   SYNCWAY_BENCH_OFFLOAD_RUNS runs of each sync mode in the boot (default 1),
#                              explicit and none taking turns; each starts
#                              new processes (a new address-space layout)
#   SYNCWAY_BENCH_OFFLOAD_OUTPUT  headless mode of the offload runs
#                              (default 64x64@60)
#   SYNCWAY_BENCH_VIRGL_SECS   measured window of the virgl run (guest s,
#                              default 4), after SYNCWAY_BENCH_VIRGL_WARMUP
#                              (default 1) from the client's first frame
#   SYNCWAY_BENCH_VIRGL_SIZE   output and client size of the virgl run
#                              (default 64x64; the output runs at 60 Hz)
#   SYNCWAY_BENCH_BUILD        the build directory whose programs run
#                              (default build)
set -u
mode=$1 kernel=$2 round=$3 out=$4
bin=${SYNCWAY_BENCH_BUILD:-build}
mkdir -p "$out"
tag=$mode-$kernel-r$round
b=${SYNCWAY_BENCH_BATCHES:-30} c=${SYNCWAY_BENCH_CALLS:-100} w=${SYNCWAY_BENCH_WARMUP:-200}
cat /proc/loadavg >"$out/guest-loadavg-$tag.txt"
# The virgl run: all its files in tmpfs until it ends (no 9p in the window,
# see docs/bench.md). syncway and the client are started, the window opens
# SYNCWAY_BENCH_VIRGL_WARMUP guest seconds after the client said it is about
# to draw, busy-window samples both processes' schedstat at its ends, and
# SIGTERM ends the client (it then writes its summary; syncway -x follows).
if [ "$mode" = virgl ]; then
	t=/tmp/virgl-$tag size=${SYNCWAY_BENCH_VIRGL_SIZE:-64x64}
	mkdir -p "$t" && mkdir -p -m 700 /run/user/0
	export XDG_RUNTIME_DIR=/run/user/0 WLR_BACKENDS=headless WLR_RENDERER=gles2
	"$bin"/compositor/syncway -x --report 0 --stats "$t/syncway.jsonl" --headless-size "$size@60" \
		-s "echo \$\$ >$t/client.pid; exec $bin/clients/syncway-gears --renderer gles2 \
			--buffer dmabuf --mode mailbox --size $size --json $t/client.jsonl >$t/client.txt 2>&1" \
		>/dev/null 2>"$t/syncway.log" &
	spid=$! i=0
	while ! grep -q 'buffers, mailbox mode$' "$t/client.txt" 2>/dev/null && [ $i -lt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	"$bin"/bench/busy-window --warmup "${SYNCWAY_BENCH_VIRGL_WARMUP:-1}" \
		--window "${SYNCWAY_BENCH_VIRGL_SECS:-4}" --json "$t/window.jsonl" "$spid" \
		"$(cat "$t/client.pid" 2>/dev/null)" 2>"$t/window.log"
	wrc=$?
	kill -TERM "$(cat "$t/client.pid" 2>/dev/null)" 2>/dev/null
	wait "$spid"
	rc=$?
	for f in "$t"/*; do cp "$f" "$out/virgl-icount-$kernel-r$round-${f##*/}"; done
	[ $wrc = 0 ] && [ $rc = 0 ] || { echo "  virgl run failed (window $wrc, syncway $rc), see $out/virgl-icount-$kernel-r$round-*"; exit 1; }
	echo "  virgl: $(grep -m 1 'frames committed' "$t/client.txt")"
	exit 0
fi
bmode=$mode micro=$out/micro-$tag
case $mode in
prefix) bmode=icount micro=$out/prefix-icount-$kernel ;;
hardened)
	bmode=icount micro=$out/hardened-icount-$kernel-r$round
	grep . /sys/devices/system/cpu/vulnerabilities/* >"$out/hardened-vulnerabilities-$kernel.txt"
	;;
esac
# warm-up pass (not recorded): page cache, slab caches, branch state of the guest
"$bin"/bench/syncobj-bench --mode "$bmode" --batches 2 --calls "$c" --warmup "$w" >/dev/null || exit 1
"$bin"/bench/syncobj-bench --mode "$bmode" --batches "$b" --calls "$c" --warmup "$w" \
	--json "$micro.jsonl" >"$micro.txt" || exit 1
echo "  micro: $(grep -c . "$micro.jsonl") cases"
# The offload runs write to the guest's tmpfs and copy at the end: no 9p
# traffic while frames are counted. A boot makes $SYNCWAY_BENCH_OFFLOAD_RUNS
# runs of each sync mode, explicit and none taking turns (a run's cost
# depends a little on what ran before it in the boot, docs/bench.md, *Runs
# and boots*); each run appends its summary line and syncway's lines to the
# boot's files, and the report pools them.
offload_secs=${SYNCWAY_BENCH_OFFLOAD_SECS:-0}
if [ "$mode" = icount ] && [ "$offload_secs" != 0 ]; then
	export XDG_RUNTIME_DIR=/run/user/0 WLR_BACKENDS=headless WLR_RENDERER=pixman
	for sync in explicit none; do
		rm -f "$out/offload-$tag-$sync-"*
	done
	j=1
	while [ $j -le "${SYNCWAY_BENCH_OFFLOAD_RUNS:-1}" ]; do
		for sync in explicit none; do
			t=/tmp/offload-$tag-$sync-$j
			mkdir -p "$t"
			# A fixed environment: two sets of the SYNCWAY_* variables that
			# tools/vm-run passes in put the no-sync control's frame 240
			# instructions (0.4 %) apart, boot after boot, and the set
			# differs between setups (docs/results/2026-12-07-offload-modes.md).
			env -i PATH="$PATH" HOME="${HOME:-/root}" XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" \
				WLR_BACKENDS=headless WLR_RENDERER=pixman \
				SYNCWAY_EXPLICIT_SYNC=$([ "$sync" = none ] && echo 0 || echo 1) \
				"$bin"/compositor/syncway -x --report 0 --stats "$t/syncway.jsonl" \
				--headless-size "${SYNCWAY_BENCH_OFFLOAD_OUTPUT:-64x64@60}" \
				-s "$bin/clients/syncway-offload --sync $sync --warmup ${SYNCWAY_BENCH_OFFLOAD_WARMUP:-2} \
					--duration $offload_secs --json $t/client.jsonl >$t/client.txt 2>&1" \
				>/dev/null 2>"$t/syncway.log"
			rc=$?
			for f in "$t"/*; do cat "$f" >>"$out/offload-$tag-$sync-${f##*/}"; done
			[ $rc = 0 ] || { echo "  offload run $j ($sync) failed ($rc), see $out/offload-$tag-$sync-*"; exit 1; }
			echo "  offload run $j ($sync): $(head -n 1 "$t/client.txt")"
			rm -rf "$t"
		done
		j=$((j + 1))
	done
fi
secs=${SYNCWAY_BENCH_FRAME_SECS:-0}
if [ "$mode" = wall ] && [ "$secs" -gt 0 ]; then
	client=${SYNCWAY_BENCH_CLIENT:-$bin/compositor/tests/sync-client --unthrottled --frames 100000000 --size 256x256}
	mkdir -p -m 700 /run/user/0
	export XDG_RUNTIME_DIR=/run/user/0 WLR_BACKENDS=headless WLR_RENDERER=pixman
	# The client ignores the SIGINT that stops syncway and ends when its
	# connection goes; its shell then writes the CPU time of its children
	# (the client): user and system, second line of `times`.
	rm -f "$out/client-times-$tag.txt"
	timeout -s INT "$secs" "$bin"/compositor/syncway --stats "$out/frame-$tag.jsonl" \
		--headless-size "${SYNCWAY_BENCH_OUTPUT:-256x256@1000}" \
		-s "trap '' INT; $client; times >$out/client-times-$tag.txt" \
		>/dev/null 2>"$out/frame-$tag.log"
	rc=$?
	i=0
	while [ ! -s "$out/client-times-$tag.txt" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
	# 124: stopped by the timeout, as intended
	[ $rc = 0 ] || [ $rc = 124 ] || { echo "  frame run failed ($rc), see $out/frame-$tag.log"; exit 1; }
	echo "  frame: $(grep -c '"type":"frame"' "$out/frame-$tag.jsonl") frames in $secs s"
fi
# The allocation counts: tracepoints and their buffers change the slab state,
# so they come after everything this boot measures.
kmalloc=${SYNCWAY_BENCH_KMALLOC:-}
if [ -n "$kmalloc" ]; then
	"$bin"/tests/kernel/syncobj-kmalloc-count --out "$kmalloc" >"$out/kmalloc-$kernel.txt" 2>&1 ||
		echo "  kmalloc-count failed (see $out/kmalloc-$kernel.txt)"
	echo "  kmalloc: $(cat "$kmalloc" 2>/dev/null | grep -c .) rows"
fi
exit 0
