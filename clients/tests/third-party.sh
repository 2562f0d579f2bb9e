#!/bin/sh
# Unmodified third-party clients from Debian against syncway, inside a guest
# (headless, pixman, explicit sync on the virtio-gpu render node), and
# against a syncway nested in another one (wlroots' Wayland backend):
#   tools/vm-run -q -- sh clients/tests/third-party.sh [BUILD_DIR]
# One subtest per client and mode. The client runs until syncway has
# presented MIN_PRESENTED of its commits (read from syncway's --stats), or
# for at most THIRD_PARTY_SECS: lavapipe's first frame alone takes seconds
# under TCG. It passes when the client ran until the suite stopped it (or
# ended by itself with status 0) without a crash or a protocol error,
# syncway exited 0 with no leak or sanitizer report, and at least
# MIN_PRESENTED of the client's commits were presented (the "N presented"
# of syncway's commit summary). A client that asks for a keyboard must get
# an xkb keymap (the guest has none: syncway's placeholder's), and one that
# sets explicit-sync acquire points must have had its commits taken as
# explicit sync. A client that cannot run in the guest (no GPU for it) is a
# SKIP with its reason, never a pass.
# Environment: SYNCWAY=PATH another syncway binary (e.g. an ASan build),
# THIRD_PARTY_SECS=N the longest a client runs (default 40),
# THIRD_PARTY_SET=gles2: instead, the EGL clients against syncway on GLES2,
# for a guest with a 3D virtio-gpu (tools/vm-run --gpu virgl); results as
# third-party@virgl.
# PASS/FAIL/SKIP lines on stdout, JSON lines to $SYNCWAY_TEST_JSON; logs in
# /results/third-party[@virgl]/.
# shellcheck source=SCRIPTDIR/../../tests/lib/result.sh
. "${0%/*}/../../tests/lib/result.sh"
set=${THIRD_PARTY_SET:-pixman}
case "$set" in
pixman) variant= ;;
gles2) variant=@virgl ;;
*) echo "third-party.sh: THIRD_PARTY_SET is pixman or gles2, not '$set'" >&2; exit 2 ;;
esac
result_suite=third-party$variant
build=${1:-build}
syncway=${SYNCWAY:-$build/compositor/syncway}
secs=${THIRD_PARTY_SECS:-40}
min_presented=20
out=/results/third-party$variant
# syncway's statistics are read while it writes them: on the guest's tmpfs,
# not over 9p (see tests/conformance/run-in-guest), copied at the end.
stats=$(mktemp -d /tmp/third-party.XXXXXX) || exit 2
trap 'cp "$stats"/* "$out"/ 2>/dev/null; rm -rf "$stats"' EXIT
mkdir -p "$out" "${XDG_RUNTIME_DIR:=/run/user/0}"
chmod 700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR WLR_RENDERER=$set
unset WAYLAND_DISPLAY DISPLAY
export MESA_SHADER_CACHE_DIR=${MESA_SHADER_CACHE_DIR:-/tmp/mesa-shader-cache}

# client_script NAME CMD STATS: a script that runs CMD, with its output in
# NAME.client.log, until STATS (syncway's --stats) holds $min_presented
# presented commits or $secs seconds have passed, and exits 0 if CMD ran
# until stopped or ended with status 0. WAYLAND_DEBUG shows which globals
# the client binds.
client_script() {
	script=$out/$1.sh
	cat >"$script" <<EOF
#!/bin/sh
# syncway sets DISPLAY for Xwayland; vkgears would take X11 with it.
unset DISPLAY
WAYLAND_DEBUG=1 $2 >"$out/$1.client.log" 2>&1 &
pid=\$!
i=0
while [ \$i -lt $((secs * 5)) ] && kill -0 \$pid 2>/dev/null; do
	[ "\$(grep -c '"type":"commit".*"present_ns"' "$3" 2>/dev/null)" -ge $min_presented ] && break
	sleep 0.2
	i=\$((i + 1))
done
kill -TERM \$pid 2>/dev/null && stopped=1
# A client stuck past SIGTERM (a GPU wait) gets 10 s, then SIGKILL: the
# suite goes on and says so. (A zombie, exited and not yet reaped, is
# gone.)
i=0
while [ \$i -lt 50 ]; do
	state=\$(sed 's/.*) //' /proc/\$pid/stat 2>/dev/null | cut -c1)
	[ -n "\$state" ] && [ "\$state" != Z ] || break
	sleep 0.2
	i=\$((i + 1))
done
if [ \$i = 50 ]; then
	kill -KILL \$pid 2>/dev/null
	echo "third-party: the client outlived SIGTERM by 10 s: killed" >>"$out/$1.client.log"
fi
wait \$pid
s=\$?
echo "third-party: client exit status \$s\${stopped:+ (stopped by the suite)}" >>"$out/$1.client.log"
[ \$s = 0 ] || [ -n "\$stopped" ]
EOF
	chmod +x "$script"
}

# client_problems NAME: what the client's log shows went wrong.
client_problems() {
	client_problems=
	clog=$out/$1.client.log
	grep -qE 'Segmentation fault|Aborted|core dumped|AddressSanitizer' "$clog" &&
		client_problems="the client crashed"
	grep -qE '^\[[0-9. ]*\] *wl_display(#|@)1\.error\(' "$clog" &&
		client_problems="${client_problems:+$client_problems; }protocol error: $(grep -E 'wl_display(#|@)1\.error\(' "$clog" | head -n 1 | cut -c1-160)"
	grep -q 'no keyboard capability' "$clog" &&
		client_problems="${client_problems:+$client_problems; }the seat had no keyboard"
	# A crash kills the client before the suite stops it, and the shell of
	# the client script prints nothing for a background job.
	cstatus=$(sed -n 's/^third-party: client exit status \([0-9]*\)$/\1/p' "$clog")
	[ "${cstatus:-0}" -gt 128 ] &&
		client_problems="${client_problems:+$client_problems; }the client died of signal $((cstatus - 128))"
	# The guest has no keyboard: what a client that asks for one gets is the
	# placeholder's keymap, which must be a real xkb one.
	if grep -q 'wl_seat#[0-9]*\.get_keyboard(' "$clog" &&
		! grep -qE 'wl_keyboard#[0-9]+\.keymap\(1, fd [0-9]+, [1-9][0-9]*\)' "$clog"; then
		client_problems="${client_problems:+$client_problems; }it asked for a keyboard and got no xkb keymap"
	fi
	[ -z "$client_problems" ]
}

# presented LOG: the "N presented" of syncway's commit summary.
presented() {
	sed -n 's/^syncway: commits: .*), \([0-9][0-9]*\) presented.*/\1/p' "$1" | head -n 1
}

# uses LOG INTERFACE: whether the client's WAYLAND_DEBUG log binds it.
uses() {
	grep -q "wl_registry.*bind(.*\"$2\"" "$1"
}

# explicit LOG: the "N explicit sync" of syncway's commit summary.
explicit() {
	sed -n 's/^syncway: commits: [0-9]* with a buffer (\([0-9][0-9]*\) explicit sync.*/\1/p' "$1" | head -n 1
}

# explicit_sync_problems NAME LOG: a client that sets acquire points must
# have had its commits taken as explicit sync by syncway. Mesa's Vulkan WSI
# binds wp_linux_drm_syncobj_manager_v1 only on a hardware device; on a
# software one (lavapipe, the guest's) it presents through wl_shm and binds
# neither the syncobj manager nor linux-dmabuf, so this only bites on real
# hardware.
explicit_sync_problems() {
	explicit_sync_problems=
	clog=$out/$1.client.log
	if grep -q 'wp_linux_drm_syncobj_surface_v1#[0-9]*\.set_acquire_point(' "$clog"; then
		e=$(explicit "$2")
		echo "# $1: sets acquire points; syncway took ${e:-0} of its commits as explicit sync"
		[ "${e:-0}" -ge $min_presented ] ||
			explicit_sync_problems="it sets acquire points, but syncway took only ${e:-0} commits as explicit sync"
	elif uses "$clog" wp_linux_drm_syncobj_manager_v1; then
		echo "# $1: binds wp_linux_drm_syncobj_manager_v1 but sets no acquire point"
	elif uses "$clog" wl_shm && ! uses "$clog" zwp_linux_dmabuf_v1; then
		echo "# $1: presents through wl_shm only (no linux-dmabuf, no syncobj manager bound)"
	fi
	[ -z "$explicit_sync_problems" ]
}

# check NAME: the verdict of a syncway run whose log is NAME.log.
check() {
	name=$1
	log=$out/$name.log
	ok=1 why=
	run_problems "$log" "$status" "" || { ok=0; why=$run_problems; }
	client_problems "$name" || { ok=0; why="${why:+$why; }$client_problems"; }
	n=$(presented "$log")
	[ "${n:-0}" -ge $min_presented ] ||
		{ ok=0; why="${why:+$why; }only ${n:-0} of its commits presented (at least $min_presented wanted)"; }
	explicit_sync_problems "$name" "$log" || { ok=0; why="${why:+$why; }$explicit_sync_problems"; }
	for iface in wp_linux_drm_syncobj_manager_v1 wp_fifo_manager_v1 wp_commit_timing_manager_v1 \
		wp_presentation; do
		uses "$out/$name.client.log" $iface && echo "# $name: binds $iface"
	done
	if [ $ok = 1 ]; then
		echo "# $name: ${n} commits presented"
		result "$name" pass
	else
		echo "  last lines of $log and $out/$name.client.log:"
		tail -n 6 "$log" | sed 's/^/    /'
		grep -v '^\[' "$out/$name.client.log" | tail -n 6 | sed 's/^/    /'
		result "$name" fail "$why"
	fi
}

# headless NAME CMD: CMD against a headless syncway.
headless() {
	client_script "$1" "$2" "$stats/$1.stats.jsonl"
	WLR_BACKENDS=headless timeout -k 10 -s TERM 120 "$syncway" --report 0 -x \
		--stats "$stats/$1.stats.jsonl" -s "$out/$1.sh" >"$out/$1.log" 2>&1
	status=$?
}

# cannot_run NAME PATTERN REASON: after a run, SKIP (and return 0) when
# the client's log shows it could not start in the guest for want of
# hardware; return 1 otherwise.
cannot_run() {
	grep -qE "$2" "$out/$1.client.log" || return 1
	result "$1" skip "$3: $(grep -E "$2" "$out/$1.client.log" | head -n 1 | cut -c1-120)"
}

# On GLES2 over virgl: Mesa's EGL clients render on the guest's 3D
# virtio-gpu and hand syncway dmabufs. Mesa's EGL Wayland platform has no
# linux-drm-syncobj-v1 code (25.0 in the root, nor 26.1), so none of them
# sets acquire points: what they show is that syncway's GPU renderer
# composites real GPU-rendered dmabufs, implicitly synchronised.
if [ "$set" = gles2 ]; then
	for client in weston-simple-egl es2gears_wayland eglgears_wayland weston-simple-dmabuf-egl \
		weston-simple-dmabuf-feedback; do
		headless "$client-frames-reach-output" "$client"
		check "$client-frames-reach-output"
		# A GPU client must have handed over dmabufs, not shm.
		if uses "$out/$client-frames-reach-output.client.log" zwp_linux_dmabuf_v1; then
			result "$client-hands-over-dmabufs" pass
		else
			result "$client-hands-over-dmabufs" fail "it did not bind zwp_linux_dmabuf_v1"
		fi
	done
	result_summary
	exit
fi

headless vkgears-fifo-frames-reach-output "vkgears"
check vkgears-fifo-frames-reach-output

# The same run, as a pacing check: Mesa's WSI in FIFO mode binds fifo-v1 and
# sends wait_barrier, and syncway shows every frame for a refresh: no commit
# replaced before it was shown once the window was on the output (before,
# the protocol lets barriers be ignored), and no vblank at which one of its
# ready commits waited, except those syncway slept through while it waited
# for a CPU: the guest's one vCPU also runs vkgears' software renderer, which
# at times keeps syncway off it past a vblank (reported, not failed; syncway
# tells them from its own by the CPU time it used since its previous vblank).
# (Under TCG vkgears renders slower than the refresh: one present per
# refresh is its ceiling, not what it reaches.)
name=vkgears-fifo-paces-through-fifo-v1
clog=$out/vkgears-fifo-frames-reach-output.client.log
slog=$out/vkgears-fifo-frames-reach-output.log
sjson=$stats/vkgears-fifo-frames-reach-output.stats.jsonl
why=
uses "$clog" wp_fifo_manager_v1 || why="it did not bind wp_fifo_manager_v1"
grep -q 'wp_fifo_v1#[0-9]*\.wait_barrier' "$clog" || why="${why:+$why; }it sent no wait_barrier"
late_drops=$(awk '
	function field(name,   i, v) {
		i = index($0, "\"" name "\":")
		if (i == 0) return ""
		v = substr($0, i + length(name) + 3)
		sub(/[,}].*/, "", v)
		return v
	}
	/"type":"commit"/ && /"result":"presented"/ { t = field("t_ns") + 0; if (!first || t < first) first = t }
	/"type":"commit"/ && /"result":"dropped"/ { dropped[++n] = field("t_ns") + 0 }
	END { c = 0; for (i = 1; i <= n; i++) if (first && dropped[i] > first) c++; print c + 0 }' "$sjson")
[ "$late_drops" = 0 ] || why="${why:+$why; }$late_drops commits replaced before shown after its first frame"
missed=$(sed -n 's/.* \([0-9][0-9]*\) missed vblanks (a ready commit waited).*/\1/p' "$slog" | head -n 1)
waiting=$(log_cpu_waits "$slog")
if [ -z "$missed" ] || [ -z "$waiting" ]; then
	why="${why:+$why; }no missed-vblank counts in syncway's summary"
elif [ "$missed" -gt "$waiting" ]; then
	why="${why:+$why; }$((missed - waiting)) missed vblanks (a ready commit waited) not slept through for want of a CPU"
fi
echo "# $name: binds fifo-v1, $late_drops late drops, ${missed:-?} missed vblanks," \
	"${waiting:-?} of them while syncway waited for a CPU"
if [ -z "$why" ]; then result "$name" pass; else result "$name" fail "$why"; fi

headless vkgears-mailbox-frames-reach-output "vkgears -present-mailbox"
check vkgears-mailbox-frames-reach-output

headless vkcube-frames-reach-output "vkcube --wsi wayland"
check vkcube-frames-reach-output

headless weston-simple-shm-frames-reach-output "weston-simple-shm"
check weston-simple-shm-frames-reach-output

headless weston-presentation-shm-gets-feedback "weston-presentation-shm"
check weston-presentation-shm-gets-feedback
# It asks for presentation feedback on every frame: some must have come.
if ! grep -q 'wp_presentation_feedback#[0-9]*\.presented(' "$out/weston-presentation-shm-gets-feedback.client.log"; then
	result weston-presentation-shm-feedback-presented fail "no wp_presentation_feedback.presented event reached it"
else
	result weston-presentation-shm-feedback-presented pass
fi

headless weston-simple-dmabuf-feedback-frames-reach-output "weston-simple-dmabuf-feedback"
# Without virgl, Mesa's GBM on virtio-gpu's render node falls back to dumb
# buffers, which only the primary node may create: the client asserts on its
# first buffer. Only that failure is a skip; any other one is a failure.
cannot_run weston-simple-dmabuf-feedback-frames-reach-output \
	'could not create GBM bo' \
	"GBM cannot allocate on virtio-gpu's render node without 3D" ||
	check weston-simple-dmabuf-feedback-frames-reach-output

# X11: xdpyinfo talks to Xwayland, and an xmessage window is mapped in the
# scene (syncway -v logs each X11 window it maps).
cat >"$out/xwayland.sh" <<'EOF'
#!/bin/sh
xdpyinfo >/dev/null || exit 1
timeout -s TERM 60 xmessage -timeout 2 "syncway xwayland check"
s=$?
[ $s = 0 ] || [ $s = 124 ]
EOF
chmod +x "$out/xwayland.sh"
WLR_BACKENDS=headless timeout -k 10 -s TERM 120 "$syncway" -v --report 0 -x -s "$out/xwayland.sh" \
	>"$out/xwayland.log" 2>&1
status=$?
ok=1 why=
run_problems "$out/xwayland.log" "$status" "syncway: xwayland: on DISPLAY=" || { ok=0; why=$run_problems; }
grep -q 'xwayland: mapped window .*class Xmessage' "$out/xwayland.log" ||
	{ ok=0; why="${why:+$why; }no xmessage window mapped"; }
if [ $ok = 1 ]; then
	result xwayland-x11-window-maps pass
else
	tail -n 8 "$out/xwayland.log" | sed 's/^/    /'
	result xwayland-x11-window-maps fail "$why"
fi

# Layer shell: swaybg's wallpaper is a layer surface on the background
# layer (syncway -v logs each one it maps), and it is shown.
WLR_BACKENDS=headless timeout -k 10 -s TERM 60 "$syncway" -v --report 0 --no-xwayland -x \
	-s "swaybg -c '#336699' & sleep 3; kill \$!" >"$out/swaybg.log" 2>&1
status=$?
ok=1 why=
run_problems "$out/swaybg.log" "$status" "" || { ok=0; why=$run_problems; }
grep -q 'layer shell: mapped "wallpaper" on the background layer' "$out/swaybg.log" ||
	{ ok=0; why="${why:+$why; }no wallpaper layer surface mapped"; }
[ "$(presented "$out/swaybg.log")" -ge 1 ] 2>/dev/null || { ok=0; why="${why:+$why; }nothing presented"; }
if [ $ok = 1 ]; then
	result swaybg-wallpaper-on-background-layer pass
else
	tail -n 8 "$out/swaybg.log" | sed 's/^/    /'
	result swaybg-wallpaper-on-background-layer fail "$why"
fi

# Key bindings through a virtual keyboard: wtype presses Alt+Return, and
# syncway starts $SYNCWAY_TERM, here a command that leaves a marker.
marker=$stats/terminal-started
rm -f "$marker"
SYNCWAY_TERM="touch $marker" WLR_BACKENDS=headless timeout -k 10 -s TERM 60 "$syncway" --report 0 -x \
	-s "wtype -M alt -k Return -m alt && sleep 2" >"$out/alt-return.log" 2>&1
status=$?
ok=1 why=
run_problems "$out/alt-return.log" "$status" "" || { ok=0; why=$run_problems; }
[ -e "$marker" ] || { ok=0; why="${why:+$why; }Alt+Return from wtype did not start \$SYNCWAY_TERM"; }
if [ $ok = 1 ]; then
	result alt-return-from-virtual-keyboard-starts-terminal pass
else
	tail -n 8 "$out/alt-return.log" | sed 's/^/    /'
	result alt-return-from-virtual-keyboard-starts-terminal fail "$why"
fi

# Nested: the inner syncway is a client of the outer one (wlroots' Wayland
# backend); the client draws into the inner one, whose output is a window
# on the outer one. Both must show frames.
nested() {
	name=nested-$1
	client_script "$name" "$2" "$stats/$name.inner.stats.jsonl"
	inner=$out/$name.inner.sh
	cat >"$inner" <<EOF
#!/bin/sh
WLR_BACKENDS=wayland "$syncway" --report 0 -x --stats "$stats/$name.inner.stats.jsonl" \
	-s "$out/$name.sh" >"$out/$name.inner.log" 2>&1
EOF
	chmod +x "$inner"
	WLR_BACKENDS=headless timeout -k 10 -s TERM 120 "$syncway" --report 0 -x \
		--stats "$stats/$name.stats.jsonl" -s "$inner" >"$out/$name.log" 2>&1
	status=$?
	ok=1 why=
	run_problems "$out/$name.log" "$status" "" || { ok=0; why="outer: $run_problems"; }
	run_problems "$out/$name.inner.log" 0 "" || { ok=0; why="${why:+$why; }inner: $run_problems"; }
	client_problems "$name" || { ok=0; why="${why:+$why; }$client_problems"; }
	explicit_sync_problems "$name" "$out/$name.inner.log" ||
		{ ok=0; why="${why:+$why; }inner: $explicit_sync_problems"; }
	n_inner=$(presented "$out/$name.inner.log")
	n_outer=$(presented "$out/$name.log")
	[ "${n_inner:-0}" -ge $min_presented ] ||
		{ ok=0; why="${why:+$why; }inner syncway presented ${n_inner:-0} of the client's commits"; }
	[ "${n_outer:-0}" -ge $min_presented ] ||
		{ ok=0; why="${why:+$why; }outer syncway presented ${n_outer:-0} commits of the inner one's window"; }
	if [ $ok = 1 ]; then
		echo "# $name: inner presented $n_inner client commits, outer $n_outer of the inner window's"
		result "$name" pass
	else
		tail -n 6 "$out/$name.inner.log" | sed 's/^/    /'
		result "$name" fail "$why"
	fi
}
nested vkgears-frames-reach-both-outputs "vkgears"
nested weston-simple-shm-frames-reach-both-outputs "weston-simple-shm"

result_summary
