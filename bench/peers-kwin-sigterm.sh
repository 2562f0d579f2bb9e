#!/bin/sh
# Inside a virgl guest on the peers' root with gdb in it (docs/peers.md, the
# KWin rows of "Explicit sync against the peers"; docs/peer-bugs.md, report
# 11): KWin started as the conformance matrix starts it, taken through
# CASE, then stopped with SIGTERM as bench/peers-conformance-guest.sh stops
# it. How it ended goes to OUT/CASE.status; with GDB=1, gdb is attached once
# KWin is up, before the case, and OUT/CASE.gdb.txt gets the signal that
# ended KWin, every thread's 12 innermost frames and the first thread's 40
# outermost.
#   sh bench/peers-kwin-sigterm.sh BUILD OUT CASE...
# The peers' root has no gdb (tools/peers-root-packages.txt); GDB=1 wants a
# copy with it, booted through a cache directory of its own, e.g.:
#   cp -a /var/cache/syncway/peers-root-KEY DIR/peers-root-dbg
#   chroot DIR/peers-root-dbg apt-get -o Acquire::Check-Valid-Until=false update
#   chroot DIR/peers-root-dbg apt-get install --no-install-recommends gdb
#   ln -s /var/cache/syncway/root DIR/root; ln -s /var/cache/syncway/kernels DIR/kernels
#   ln -s peers-root-dbg DIR/peers-root
#   SYNCWAY_CACHE=DIR tools/vm-run -q -k patched --gpu virgl --root peers -- \
#       env GDB=1 sh bench/peers-kwin-sigterm.sh build /results/r held
# CASE: idle (one wayland-info), held (the robustness subtest
# hundred-thousand-held-commits-keep-others-fast alone), robustness (the
# whole robustness suite), suites (the three suites, as the matrix).
build=$1 out=$2
shift 2
mkdir -p "$out"
# shellcheck source=bench/peers-conformance-env.sh
. "${0%/*}/peers-conformance-env.sh"

for case in "$@"; do
	fresh_runtime_dir "kwin-$case"
	start_compositor kwin "$rt" || { echo "$case: kwin did not start" >&2; continue; }
	mv "$out/kwin.log" "$out/$case.kwin.log" 2>/dev/null
	gpid=
	if [ "${GDB:-0}" = 1 ]; then
		gdb -p "$pid" -batch -nx -ex 'set pagination off' -ex 'set print thread-events off' \
			-ex 'handle SIGTERM nostop noprint pass' -ex 'handle SIGPIPE nostop noprint pass' \
			-ex 'handle SIGUSR1 nostop noprint pass' -ex 'handle SIGUSR2 nostop noprint pass' \
			-ex continue -ex 'info program' -ex 'thread apply all bt 12' \
			-ex 'x/8i $pc-16' -ex 'info registers' -ex 'info proc mappings' \
			-ex 'bt -40' -ex 'info sharedlibrary' \
			>"$out/$case.gdb.txt" 2>&1 &
		gpid=$!
		i=0
		while [ $i -lt 600 ] && ! grep -qs 'TracerPid:[[:space:]]*[1-9]' /proc/"$pid"/status; do
			sleep 0.1
			i=$((i + 1))
		done
		# gdb reads symbols after the attach; give it time to continue.
		sleep 20
	fi
	case $case in
	idle) wayland-info >/dev/null 2>&1 ;;
	held)
		"$build/tests/conformance/syncobj-robustness" --run hundred-thousand-held-commits-keep-others-fast \
			>"$out/$case.suite.txt" 2>&1
		;;
	robustness) "$build/tests/conformance/syncobj-robustness" >"$out/$case.suite.txt" 2>&1 ;;
	suites)
		for s in syncobj-conformance pacing-conformance syncobj-robustness; do
			SYNCWAY_CONFORMANCE_MAX_HELD='' "$build/tests/conformance/$s" --json "$out/$case.$s.jsonl" \
				>>"$out/$case.suite.txt" 2>&1
		done
		;;
	esac
	tail -n 1 "$out/$case.suite.txt" 2>/dev/null | sed "s/^/$case: /" >&2
	# The matrix's liveness check (bench/peers-conformance-guest.sh).
	if kill -0 "$pid" 2>/dev/null; then
		t0=$(cut -d' ' -f1 /proc/uptime)
		timeout 30 wayland-info >/dev/null 2>&1
		echo "$case: wayland-info status $? after $(awk -v t0="$t0" '{ printf "%.1f", $1 - t0 }' /proc/uptime) s" >&2
	fi
	echo "$case: after the case kwin has $(ls /proc/"$pid"/fd 2>/dev/null | wc -l) fds, $(ls /proc/"$pid"/task 2>/dev/null | wc -l) threads, $(grep State: /proc/"$pid"/status 2>/dev/null)" >&2
	if ! kill -0 "$pid" 2>/dev/null || grep -qs 'State:.*Z' /proc/"$pid"/status; then
		wait "$pid"
		echo "$case: kwin died before the SIGTERM (status $?)" | tee "$out/$case.status" >&2
		[ -n "$gpid" ] && wait "$gpid"
		pkill -f "unix:path=$rt/bus" 2>/dev/null
		continue
	fi
	kill -TERM "$pid"
	wait "$pid"
	st=$?
	echo "$case: kwin after SIGTERM: status $st$([ $st -gt 128 ] && echo " (signal $((st - 128)))")" |
		tee "$out/$case.status" >&2
	[ -n "$gpid" ] && wait "$gpid"
	pkill -f "unix:path=$rt/bus" 2>/dev/null
done
exit 0
