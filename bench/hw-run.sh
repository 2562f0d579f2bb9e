#!/bin/sh
# The A/B measurement on a real machine (docs/real-hardware.md): run it once
# on the base kernel and once on the patched one, same machine, same root,
# then compare the two result directories with syncway-ministat. LAVA jobs
# (tools/lava-jobs) run it with --lava.
#   usage: sh bench/hw-run.sh [--out DIR] [--runs N] [--secs S] [--build DIR]
#                             [--no-suite] [--no-vkgears] [--lava]
#   --out DIR      results (default hw-results/KERNEL-RELEASE)
#   --runs N       vkgears runs (default 5), each measured for --secs S
#                  (default 100) after vkgears' first report, which covers
#                  its start-up (waited for up to 120 s)
#   --build DIR    the syncway build directory (default build)
#   --no-suite     skip the behaviour suite
#   --no-vkgears   skip the vkgears runs (no display, no Vulkan driver)
#   --lava         also report every result with lava-test-case
# Runs from the top of a syncway tree built on that machine, as root or in a
# session that may open the GPU (syncway starts on KMS).
# Writes: kernel.txt (release, command line, GPU), suite.log and suite/,
# micro.jsonl and micro.txt (syncobj-bench, wall clock), vkgears-N.log and
# vkgears-fps.txt (one mean FPS per run, its first report left out).
set -u
build=build runs=5 secs=100 start_max=120 out= suite=1 vkgears=1 lava=
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:?--out needs a directory}; shift ;;
	--runs) runs=${2:?--runs needs a number}; shift ;;
	--secs) secs=${2:?--secs needs seconds}; shift ;;
	--build) build=${2:?--build needs a directory}; shift ;;
	--no-suite) suite= ;;
	--no-vkgears) vkgears= ;;
	--lava) lava=1 ;;
	-h | --help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "hw-run: unknown option '$1' (try --help)" >&2; exit 2 ;;
	esac
	shift
done
die() {
	echo "hw-run: error: $*" >&2
	exit 1
}
case "$runs$secs" in *[!0-9]*) die "--runs and --secs want whole numbers" ;; esac
[ -x "$build/bench/syncobj-bench" ] || die "$build/bench/syncobj-bench is not built (meson setup $build && ninja -C $build)"
out=${out:-hw-results/$(uname -r)}
mkdir -p "$out" || die "cannot create $out"
[ -z "$lava" ] || command -v lava-test-case >/dev/null || die "--lava outside a LAVA test shell (no lava-test-case)"

# report NAME RESULT [MEASUREMENT UNITS]: a result for LAVA, when asked.
report() {
	[ -n "$lava" ] || return 0
	if [ $# -gt 2 ]; then
		lava-test-case "$1" --result "$2" --measurement "$3" --units "$4"
	else
		lava-test-case "$1" --result "$2"
	fi
}

{
	echo "release=$(uname -r)"
	echo "cmdline=$(cat /proc/cmdline)"
	"$build/tools/syncway-drminfo" 2>&1 | sed 's/^/gpu=/'
} >"$out/kernel.txt"
echo "hw-run: $(uname -r), results in $out"

status=0
if [ -n "$suite" ]; then
	echo "hw-run: the behaviour suite"
	SYNCWAY_KT_BUILD=$build sh tests/kernel/run-in-guest.sh "$out/suite" >"$out/suite.log" 2>&1 || status=1
	# PASS/FAIL/SKIP suite/subtest ... -> LAVA test cases named suite.subtest
	sed -n 's,^\(PASS\|FAIL\|SKIP\) \([^ :]*\).*,\1 \2,p' "$out/suite.log" | tr / . |
		while read -r r name; do
			case $r in PASS) report "$name" pass ;; FAIL) report "$name" fail ;; SKIP) report "$name" skip ;; esac
		done
	echo "hw-run: suite: $(grep -c '^PASS' "$out/suite.log") passed, $(grep -c '^FAIL' "$out/suite.log") failed"
fi

echo "hw-run: the per-ioctl microbenchmark"
if "$build/bench/syncobj-bench" --mode wall --json "$out/micro.jsonl" >"$out/micro.txt" 2>&1; then
	sed -n 's/.*"case":"\([a-z_]*\)","handles":\([0-9]*\),.*"median":\([0-9.]*\),.*/\1 \2 \3/p' "$out/micro.jsonl" |
		while read -r c h m; do report "micro-$c-$h" pass "$m" ns; done
else
	report micro fail
	status=1
fi

if [ -n "$vkgears" ]; then
	command -v vkgears >/dev/null || die "vkgears is not installed (apt-get install mesa-utils mesa-vulkan-drivers; or --no-vkgears)"
	rm -f "$out/vkgears-fps.txt"
	export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/run/user/$(id -u)}
	mkdir -p -m 700 "$XDG_RUNTIME_DIR"
	# As root on a VT or a board's serial console there is no seat manager:
	# syncway then opens the devices itself.
	[ "$(id -u)" = 0 ] && [ -z "${LIBSEAT_BACKEND:-}" ] && export LIBSEAT_BACKEND=noop
	i=0
	while [ $i -lt "$runs" ]; do
		i=$((i + 1))
		echo "hw-run: vkgears -present-mailbox, run $i of $runs ($secs s after its start-up)"
		# A board without keyboard or mouse is fine: wlroots would
		# refuse to start without input devices. timeout turns the TERM
		# that ends the run into syncway's INT and bounds a hung run.
		log=$out/vkgears-$i.log
		rm -f "$log"
		timeout -s INT $((start_max + secs + 10)) env WLR_BACKENDS="${WLR_BACKENDS:-drm}" \
			WLR_LIBINPUT_NO_DEVICES="${WLR_LIBINPUT_NO_DEVICES:-1}" \
			"$build/compositor/syncway" -s "vkgears -present-mailbox >$log 2>&1" \
			>"$out/syncway-$i.log" 2>&1 &
		run_pid=$!
		# vkgears' start-up (its shaders compiled, on a slow CPU for
		# seconds) falls in its first report: the measured seconds
		# start after it, however long it took.
		t=0
		while ! grep -q ' FPS$' "$log" 2>/dev/null && kill -0 $run_pid 2>/dev/null &&
			[ $t -lt "$start_max" ]; do
			sleep 1
			t=$((t + 1))
		done
		grep -q ' FPS$' "$log" 2>/dev/null && sleep "$secs"
		kill -TERM $run_pid 2>/dev/null
		wait $run_pid
		# vkgears reports "N frames in T seconds = F FPS" every 5 s;
		# the first report includes start-up.
		fps=$(sed -n 's/.* = *\([0-9.]*\) FPS$/\1/p' "$log" | tail -n +2 |
			awk '{ s += $1; n++ } END { if (n) printf "%.3f\n", s / n }')
		if [ -z "$fps" ]; then
			echo "hw-run: run $i: vkgears reported no frame rate after its first report (within $start_max s) and $secs s more (see $log, $out/syncway-$i.log)" >&2
			report "vkgears-mailbox-run$i" fail
			status=1
			continue
		fi
		echo "$fps" >>"$out/vkgears-fps.txt"
		echo "hw-run: run $i: $fps FPS"
		report "vkgears-mailbox-run$i" pass "$fps" fps
	done
fi
echo "hw-run: done; compare two kernels with: syncway-ministat BASE/vkgears-fps.txt PATCHED/vkgears-fps.txt"
exit $status
