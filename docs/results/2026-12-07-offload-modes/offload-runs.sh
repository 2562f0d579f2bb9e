#!/bin/sh
# Several GPU-offload runs (explicit sync, as bench/guest-ab.sh's icount mode
# makes them) in one boot, for docs/results/2026-12-07-offload-modes.md:
#   sh docs/results/2026-12-07-offload-modes/offload-runs.sh OUTDIR RUNS
# Environment:
#   EXP_ASLR=0|1|2   write /proc/sys/kernel/randomize_va_space first (unset: keep)
#   EXP_WRAP         command put in front of syncway (e.g. "setarch -R")
#   EXP_SECS, EXP_WARMUP  window and warm-up of each run (default 1.5, 0.5)
#   EXP_MICRO=1      run the microbenchmark warm-up pass of guest-ab.sh first
#   EXP_SYNC         explicit (default) or none
#   EXP_CLEAN=1      before each run but the first: delete the earlier runs'
#                    files from tmpfs, drop the page cache and shrink every
#                    slab cache (what an earlier run leaves in the kernel)
#   EXP_PADS="N..."  run i gets an environment variable of the i-th length
#                    (bytes) in the list, which moves the initial stack of
#                    syncway and the client by that much (with EXP_ASLR=0:
#                    only that moves)
#   EXP_BUSY=1       bench/busy-window over the client's window (started
#                    when the client starts: warm-up + 0.05 s, window - 0.1 s):
#                    the compositor's and the client's CPU time in it
# Per run: the client's summary, syncway's --stats, and (sampled in the
# warm-up, never in the window) the client's and syncway's /proc maps.
set -u
out=$1 runs=$2 bin=build
mkdir -p "$out"
[ -n "${EXP_ASLR:-}" ] && echo "$EXP_ASLR" >/proc/sys/kernel/randomize_va_space
cat /proc/sys/kernel/randomize_va_space >"$out/randomize_va_space"
cat /proc/cmdline >"$out/cmdline"
if [ "${EXP_MICRO:-0}" = 1 ]; then
	"$bin"/bench/syncobj-bench --mode icount --batches 2 --calls 100 --warmup 200 >/dev/null || exit 1
fi
secs=${EXP_SECS:-1.5} warm=${EXP_WARMUP:-0.5} sync=${EXP_SYNC:-explicit}
export XDG_RUNTIME_DIR=/run/user/0 WLR_BACKENDS=headless WLR_RENDERER=pixman
mkdir -p -m 700 /run/user/0
i=1
while [ $i -le "$runs" ]; do
	t=/tmp/run$i
	if [ "${EXP_CLEAN:-0}" = 1 ] && [ $i -gt 1 ]; then
		rm -rf /tmp/run*
		sync
		echo 3 >/proc/sys/vm/drop_caches
		for c in /sys/kernel/slab/*/shrink; do echo 1 >"$c"; done 2>/dev/null
	fi
	mkdir -p "$t"
	if [ -n "${EXP_PADS:-}" ]; then
		# shellcheck disable=SC2086 # one word per length
		pad=$(set -- $EXP_PADS; shift $((i - 1)); echo "${1:-0}")
		SYNCWAY_PAD=$(printf "%${pad}s" "" | tr ' ' x)
		export SYNCWAY_PAD
		echo "$pad" >"$t/pad"
	fi
	grep -E '^(ctxt|processes)' /proc/stat >"$t/stat-before"
	cat /proc/interrupts >"$t/interrupts-before"
	cat /proc/vmstat >"$t/vmstat-before"
	SYNCWAY_EXPLICIT_SYNC=$([ "$sync" = none ] && echo 0 || echo 1) \
		${EXP_WRAP:-} "$bin"/compositor/syncway -x --report 0 --stats "$t/syncway.jsonl" \
		--headless-size 64x64@60 \
		-s "echo \$\$ >$t/client.pid; exec $bin/clients/syncway-offload --sync $sync --warmup $warm \
			--duration $secs --json $t/client.jsonl >$t/client.txt 2>&1" \
		>/dev/null 2>"$t/syncway.log" &
	spid=$!
	n=0
	while [ ! -s "$t/client.pid" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
	cp /proc/$spid/maps "$t/syncway-maps" 2>/dev/null
	cp /proc/"$(cat "$t/client.pid")"/maps "$t/client-maps" 2>/dev/null
	if [ "${EXP_BUSY:-0}" = 1 ]; then
		"$bin"/bench/busy-window --warmup "$(awk "BEGIN { print $warm + 0.05 }")" --window "$(awk "BEGIN { print $secs - 0.1 }")" \
			--json "$t/window.jsonl" "$spid" "$(cat "$t/client.pid")" 2>"$t/window.log"
	fi
	wait $spid
	rc=$?
	grep -E '^(ctxt|processes)' /proc/stat >"$t/stat-after"
	cat /proc/interrupts >"$t/interrupts-after"
	cat /proc/vmstat >"$t/vmstat-after"
	for f in "$t"/*; do cp "$f" "$out/run$i-${f##*/}"; done
	[ $rc = 0 ] || { echo "run $i failed ($rc)"; exit 1; }
	echo "run $i: $(head -n 1 "$t/client.txt")"
	i=$((i + 1))
done
