#!/bin/sh
# The demo clients on a real GPU: syncway on GLES2 and the clients on GLES2,
# in a guest with a 3D virtio-gpu (tools/vm-run --gpu virgl):
#   tools/vm-run --gpu virgl -q -- sh clients/tests/gpu.sh [BUILD_DIR]
# - syncway-gears --renderer gles2: every acquire point is a GPU job's fence
#   (an EGL native fence, still pending at commit), syncway waits for it and
#   releases on its render jobs' fences; both import those fences at their
#   points in one call each on Linux 6.16 and later, in four before (after
#   one refused call per process);
# - syncway-release-check against syncway: no captured frame shows what the
#   client renders into a buffer once its release point signals, and no
#   release point signals while a GPU job on the buffer is pending;
# - the same check against syncway mutants built by tools/test in
#   build-mutants/ (tests/conformance/mutants.py): it must fail on a syncway
#   that signals the release at commit (m6) and on one that signals it when
#   the CPU lets go, before the render job is done (m10). Without the
#   mutants' binaries those subtests are a FAIL, not a skip: the check must
#   be shown able to fail.
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/clients-gpu/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
result_suite=clients-gpu
build=${1:-build}
syncway=$build/compositor/syncway
out=/results/clients-gpu
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_BACKENDS=headless WLR_RENDERER=gles2 WLR_LIBINPUT_NO_DEVICES=1

# run NAME SYNCWAY EXPECT COMMAND: COMMAND as the client of SYNCWAY; sets
# ok/why from syncway's log (exit status, leaks, EXPECT's strings).
run() {
	name=$1 bin=$2 expect=$3
	shift 3
	log=$out/$name.log
	timeout -s TERM 120 "$bin" --report 0 -x --stats "$out/$name.stats.jsonl" -s "$*" >"$log" 2>&1
	if run_problems "$log" $? "$expect"; then ok=1; else ok=0; fi
	why=$run_problems
}

verdict() {
	if [ $ok = 1 ]; then
		result "$1" pass
	else
		echo "  last lines of $out/$1.log:"
		tail -n 8 "$out/$1.log" | sed 's/^/    /'
		result "$1" fail "${why#; }"
	fi
}

# releases LOG: "SIGNALLED FENCED IDLE" of syncway's explicit-sync exit
# line; IDLE: from the CPU with every render job done.
releases() {
	sed -n 's/^syncway: explicit sync: .* \([0-9][0-9]*\) release points signalled (\([0-9][0-9]*\) on render fences, \([0-9][0-9]*\) with every render job done.*/\1 \2 \3/p' "$1"
}

# calls LOG WHO KIND: "CALLS ERRORS" of KIND in the syncobj accounting that
# WHO (syncway or syncway-gears) prints at exit; "0 0" without such a line.
calls() {
	set -- $(sed -n "s/^$2:   $3  *\([0-9][0-9]*\) calls  *\([0-9][0-9]*\) errors.*/\1 \2/p" "$1")
	echo "${1:-0} ${2:-0}"
}

# Linux 6.16 imports a sync_file at a timeline point in one FD_TO_HANDLE;
# before, it takes four calls, after one refused probe per process
# (common/syncobj.c).
kernel=$(uname -r)
major=${kernel%%.*} minor=${kernel#*.}
minor=${minor%%.*}
one_call=0
[ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 16 ]; } && one_call=1

# A GPU client must hand over pending GPU fences, syncway must wait for them
# and release on its own render fences, every one of them.
for mode in mailbox fifo; do
	name=gears-gles2-$mode-acquires-on-gpu-fences
	run "$name" "$syncway" \
		"(0 alive)|0 protocol errors|acquire from render sync_file|last release points signalled" \
		"$build/clients/syncway-gears --renderer gles2 --buffer dmabuf --mode $mode --duration 3 --report 1 --size 128x128"
	set -- $(releases "$log")
	if [ $# != 3 ] || [ "$1" -lt 20 ]; then
		ok=0 why="$why; fewer than 20 release points signalled (${1:-none})"
	else
		# Before the first frame is rendered there is no render fence, and
		# nothing has read a buffer replaced by then: a mailbox client's
		# commits replaced before syncway's first frame may be released
		# from the CPU, as many as the GPU's first render lets it make
		# (llvmpipe compiling shaders on the host takes a while). Only
		# those: commits made before the first one presented.
		early=$(stats_drops_before_first "$out/$name.stats.jsonl")
		if [ $(($1 - $2 - $3)) -gt "${early:-0}" ]; then
			ok=0 why="$why; only $2 of $1 release points on render fences ($early commits replaced before the first frame)"
		fi
	fi
	waited=$(sed -n 's/^syncway: commits: .* (\([0-9][0-9]*\) explicit sync, \([0-9][0-9]*\) waited on the acquire point.*/\2/p' "$log")
	# A fence still pending at commit is what makes it a GPU fence (a
	# CPU renderer's is signalled at export); the client counts them.
	pending=$(sed -n 's/^syncway-gears: [0-9]* acquire points from render sync_files, \([0-9][0-9]*\) of them still pending.*/\1/p' "$log")
	[ "${pending:-0}" -ge 1 ] || { ok=0; why="$why; no acquire fence was pending at commit"; }
	[ "${waited:-0}" -ge 1 ] || { ok=0; why="$why; syncway never waited on an acquire point"; }
	echo "# $name: ${1:-?} releases, ${2:-?} on render fences; ${pending:-?} acquire fences" \
		"pending at commit, ${waited:-?} commits waited"
	verdict "$name"

	# Both sides import their render fences at points, each import in as
	# few calls as the kernel allows: the compositor one per fenced release,
	# the client one per acquire point. Without the one-call import the
	# client takes four calls an acquire point, and syncway, after the
	# refused probe and one import in four calls, puts each render fence
	# into a syncobj of its own once and TRANSFERs it to every release
	# point (at most one import per release).
	name=gears-gles2-$mode-imports-at-points-in-fewest-calls
	acquires=$(sed -n 's/^syncway-gears: \([0-9][0-9]*\) acquire points from render sync_files.*/\1/p' "$log")
	got="syncway: $(calls "$log" syncway import_sync_file_point), $(calls "$log" syncway import_sync_file), $(calls "$log" syncway transfer);"
	got="$got syncway-gears: $(calls "$log" syncway-gears import_sync_file_point), $(calls "$log" syncway-gears import_sync_file)"
	raw=
	if [ $one_call = 1 ]; then
		want="syncway: ${2:-0} 0, 0 0, 0 0; syncway-gears: ${acquires:-0} 0, 0 0"
	else
		# How many imports depends on the fences the frames had: a count
		# within its bounds stands as the range.
		set -- ${2:-0} $(calls "$log" syncway import_sync_file)
		want="syncway: 1 1, 1..$1 0, $1 0; syncway-gears: 1 1, ${acquires:-0} 0"
		if [ "$2" -ge 1 ] && [ "$2" -le "$1" ]; then
			raw=$got
			got=$(echo "$got" | sed "s/^syncway: 1 1, $2 /syncway: 1 1, 1..$1 /")
		fi
	fi
	echo "# $name: Linux $kernel, $([ $one_call = 1 ] && echo one call || echo four calls);" \
		"calls (errors) of import_sync_file_point, import_sync_file, transfer: ${raw:-$got}"
	if [ "$got" = "$want" ]; then
		result "$name" pass
	else
		result "$name" fail "expected $want"
	fi
done

# release_check NAME SYNCWAY [ARG...]: syncway-release-check against
# SYNCWAY (300 frames, or ARGs); sets ok (1 when the client passed) and the
# client's summary line in $summary.
release_check() {
	rc_name=$1 rc_bin=$2
	shift 2
	[ $# -gt 0 ] || set -- --frames 300
	run "$rc_name" "$rc_bin" "" "$build/clients/syncway-release-check $* --json $out/$rc_name.json"
	set -- "$rc_name"
	summary=$(grep '^syncway-release-check: .*: \(PASS\|FAIL\)' "$out/$1.log" | tail -n 1)
	echo "# $1: ${summary#syncway-release-check: }"
}

release_check release-check-passes-on-syncway "$syncway"
case "$summary" in *": PASS") ;; *) ok=0 why="$why; the client did not pass: ${summary:-no summary line}" ;; esac
verdict release-check-passes-on-syncway

# mutant NAME MUTANT WHAT [ARG...]: the check (with ARGs) must fail against
# the mutant, for WHAT (a pattern of its summary line).
mutant() {
	m_name=$1 m_mutant=$2 m_what=$3
	shift 3
	bin=build-mutants/$m_mutant/syncway
	if [ ! -x "$bin" ]; then
		result "$m_name" fail "no mutant binary $bin (tools/test builds it)"
		return
	fi
	release_check "$m_name" "$bin" "$@"
	set -- "$m_name" "$m_mutant" "$m_what"
	case "$summary" in
	*": FAIL")
		if echo "$summary" | grep -qE "$3"; then
			result "$1" pass
		else
			result "$1" fail "it failed, but not for the expected reason /$3/: $summary"
		fi
		;;
	*) result "$1" fail "the mutant $2 passed the check: ${summary:-no summary line}" ;;
	esac
}
mutant release-check-catches-release-at-commit m6-release-at-commit ' [1-9][0-9]* poison'
mutant release-check-catches-release-before-render-done m10-release-before-render-done ' [1-9][0-9]* early'
# The fence check alone, as bench/peers-release-check.sh runs it on the
# peers (docs/peers.md): it must catch the early release by itself.
mutant release-check-without-screen-catches-release-before-render-done \
	m10-release-before-render-done ' [1-9][0-9]* early.*the fence check alone' --no-screen --frames 100

result_summary
