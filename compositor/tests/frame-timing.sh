#!/bin/sh
# When syncway renders a frame against the vblank it is for (--max-render-time),
# in a guest, with weston-simple-shm drawing at every frame callback: on
# headless outputs (syncway's vblank clock) and on virtio-gpu's KMS
# connector, whose page flips complete at a vblank from DRM's vblank timer
# in Linux 7.3 (6.12's complete at once: those subtests skip there). The
# frames' "lead_ns" in --stats (frame start to presentation) tell; medians,
# with room for the guest's late wake-ups.
#   tools/vm-run -q -k base-7.3 -- sh compositor/tests/frame-timing.sh [BUILD_DIR]
# PASS/FAIL lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/frame-timing/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
result_suite=frame-timing
build=${1:-build}
syncway=${SYNCWAY:-$build/compositor/syncway}
out=/results/frame-timing
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_RENDERER=pixman
unset WAYLAND_DISPLAY

log=$out/bad-option.log
timeout 10 "$syncway" --max-render-time 0 >"$log" 2>&1
status=$?
if [ $status = 2 ] && grep -q "^syncway: --max-render-time wants milliseconds" "$log"; then
	result bad-max-render-time-exits-2 pass
else
	result bad-max-render-time-exits-2 fail "status $status, log: $(head -c 200 "$log")"
fi

# run NAME BACKEND [OPTION...]: syncway on BACKEND with $client (default
# simple-shm for 3 s); sets median_ms (of the presented frames' lead: after
# the first 20, or the last $pick),
# interval_ms (the median presentation interval), frames and run_problems.
run() {
	name=$1 backend=$2
	shift 2
	log=$out/$name.log stats=$out/$name.jsonl
	if [ "$backend" = drm ]; then
		set -- --output Virtual-1:800x600 "$@"
		env="LIBSEAT_BACKEND=noop WLR_LIBINPUT_NO_DEVICES=1 WLR_BACKENDS=drm"
	else
		set -- --headless-size 800x600@60 "$@"
		env="WLR_BACKENDS=headless"
	fi
	env $env timeout 60 "$syncway" --report 0 --no-xwayland --stats "$stats" "$@" -x \
		-s "${client:-timeout 3 weston-simple-shm; true}" >"$log" 2>&1
	run_problems "$log" $? ""
	# The lead modulo the refresh: how long before a vblank the frame
	# began, whether it made that vblank or (a guest starved of CPU beside
	# others) the next; the headless late check below catches a frame
	# shown a vblank late by syncway's clock itself.
	median_ms=$(sed -n 's/.*"type":"frame".*"refresh_ns":\([0-9]*\),"lead_ns":\([0-9-]*\),.*/\1 \2/p' "$stats" |
		tail -n "${pick:-+21}" | awk '{ print $2 % $1 }' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", v[int((NR + 1) / 2)] / 1e6; else print "none" }')
	interval_ms=$(sed -n 's/.*"type":"frame".*"interval_ns":\([0-9]*\).*/\1/p' "$stats" | tail -n +21 | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", v[int((NR + 1) / 2)] / 1e6; else print "none" }')
	frames=$(grep -c '"type":"frame".*"presented":true' "$stats")
	# Headless: frames shown a refresh or more after their commit ended,
	# not at the first vblank after it, as syncway's clock must show them.
	# (On DRM the kernel decides: a flip that came too close to a vblank
	# takes the next.)
	late=0
	[ "$backend" = drm ] || late=$(sed -n 's/.*"type":"frame".*"refresh_ns":\([0-9]*\),"lead_ns":\([0-9-]*\),"render_ns":\([0-9]*\),"commit_ns":\([0-9]*\).*/\1 \2 \3 \4/p' "$stats" |
		awk '$2 - $3 - $4 >= $1 { n++ } END { print n + 0 }')
}

# within NAME LO HI: the subtest passes when the run went well, every frame
# was shown at the first vblank after its commit (headless) and the median
# lead is in [LO, HI] ms.
within() {
	if [ -n "$run_problems" ]; then
		result "$1" fail "$run_problems"
	elif [ "$median_ms" = none ] || [ "$frames" -lt 60 ]; then
		result "$1" fail "$frames frames presented, too few to tell"
	elif [ "$late" != 0 ]; then
		result "$1" fail "$late of $frames frames shown a vblank after the first one after their commit"
	elif awk -v m="$median_ms" -v lo="$2" -v hi="$3" 'BEGIN { exit !(m >= lo && m <= hi) }'; then
		result "$1" pass
	else
		result "$1" fail "median lead $median_ms ms over $frames frames, not in [$2, $3] ms"
	fi
}

# The clock wakes a quarter refresh (4.17 ms at 60 Hz) before each vblank.
run headless-default headless
within headless-frame-begins-a-quarter-refresh-before-its-vblank 2.5 4.3
run headless-budget headless --max-render-time 10
within headless-frame-begins-max-render-time-before-its-vblank 8 10.1

# A wake-up late by more than the budget (syncway stopped for 25 ms, five
# times, each at another phase of the refresh) makes its frame for the next
# vblank; the regular wake-up for that vblank must not make a second one,
# or it and every frame after it are shown a vblank late (lead 20.8 ms).
# The median of the last frames, all after the stops.
client='weston-simple-shm & c=$!; sleep 1
	for i in 1 2 3 4 5; do kill -STOP $PPID; sleep 0.025; kill -CONT $PPID; sleep 0.37; done
	sleep 1; kill $c; wait $c; true'
pick=60
run headless-late-wake-up headless
within headless-late-wake-up-leaves-later-frames-on-their-vblank 2.5 4.3
client= pick=

# On DRM the frame event comes at the page flip, a vblank: without a
# budget the frame is rendered then and shown at the next vblank.
run drm-default drm
if [ -z "$run_problems" ] && [ "$interval_ms" != none ] &&
	awk -v i="$interval_ms" 'BEGIN { exit !(i < 12) }'; then
	reason="page flips complete at once on this kernel's virtio-gpu (median interval $interval_ms ms): no vblank to render against"
	result drm-frame-begins-at-the-vblank-before-its-own skip "$reason"
	result drm-frame-begins-max-render-time-before-its-vblank skip "$reason"
	result drm-measured-budget-begins-the-frame-late-in-the-refresh skip "$reason"
else
	within drm-frame-begins-at-the-vblank-before-its-own 12 17.5
	run drm-budget drm --max-render-time 6
	within drm-frame-begins-max-render-time-before-its-vblank 4 6.1
	# A measured budget: what rendering took lately and a margin, well
	# under the most of a refresh the frame event gives.
	run drm-auto drm --max-render-time auto
	within drm-measured-budget-begins-the-frame-late-in-the-refresh 1.5 10
fi
result_summary
